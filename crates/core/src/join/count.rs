//! The walk's goal of counting: each row set's north boards joined with the tail rows in
//! pieces that fit the budget, every piece of one half meeting every piece of the other,
//! and the disjoint pairs counted with the weight of the row set's orbit and ranks. A
//! count may also time the stretches of its work that other tasks own, for an estimate
//! ([`Clock`]).

use std::time::Duration;

use super::board::{Geometry, PerSide, Side};
use super::half::Half;
use super::north::pieces;
use super::pair_count::{self, PairCount, PairKernel, Scratch, Slice, Work};
use super::room::Stopwatch;
use super::tail::Tails;
use super::transpose::LinesRank;
use super::walk::{Goal, Walk};

/// The time a walk spent on each stretch of its work, for an estimate that charges each
/// to the task of a count that does it once ([`crate::engine::Charge`]). Only the stretches
/// whose owner is not the walked key itself are timed: the north rows of its prefix, and
/// where the key is a row set, the rest of its stretches. A task above the row sets places
/// thousands of boards of its own, and two clock reads each cost it a quarter of its time
/// at N = 17.
#[derive(Clone, Debug, Default)]
pub(super) struct Clock {
    /// Whether the north boards' readying is timed: the key holds every north row, so
    /// that it is done once, for a prefix of the key.
    pub(super) end_north_owned: bool,
    /// Whether the stretches after the north rows are timed: the key is a row set.
    pub(super) detailed: bool,
    /// Whether every stretch is timed, the north rows below the key's prefix and the
    /// sorting of every meeting of pieces included, for a profile rather than an estimate.
    pub(super) whole: bool,
    /// The north boards placed, those readied for the tail, and the meetings of a row
    /// set's pieces of half-boards counted, for a profile: where a row set is counted in
    /// pieces, how often each is done again.
    pub(super) north_boards: u128,
    pub(super) readied_boards: u128,
    pub(super) meetings: u128,
    /// Placing each half's queens of the row at each position of the order.
    pub(super) north: Vec<PerSide<Duration>>,
    /// Readying each half's north boards for the tail.
    pub(super) end_north: PerSide<Duration>,
    /// Joining each half's north boards with its tail rows.
    pub(super) signatures: PerSide<Duration>,
    /// Counting the disjoint pairs, the sorting included.
    pub(super) pairs: Duration,
    /// Sorting both lists for the first meeting's pair count, which every slice of a row
    /// set repeats.
    pub(super) sorting: Duration,
    /// Joining each half's boards with the tail for the meetings after a row set's first,
    /// which a slice does only for the meetings it takes part of: its share of each.
    pub(super) later_signatures: Duration,
    /// The rest of those joinings, and of those meetings' sorting, which the other slices
    /// taking part of the same meeting repeat: charged to none, as a count does them once.
    pub(super) repeated: Duration,
}

/// What one task found: solutions (already weighed by symmetry), and the work it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct JoinCount {
    pub(super) total: u128,
    /// Pairs of half-boards tested for a clash.
    pub(super) pairs_tested: u128,
    /// The pair count's work, and the signatures it met (both halves'), for a profile.
    pub(super) pair_work: Work,
    pub(super) signatures: u128,
}

/// Counting a task's solutions.
pub(super) struct Count<'a> {
    pair_kernel: &'a PairKernel,
    /// The slice of each row set this count takes: all of it, except in a piece.
    slice: Slice,
    /// The meetings of pieces of half-boards counted so far ([`Goal::row_set`]).
    meetings: usize,
    pub(super) pair_scratch: Scratch,
    pub(super) tally: JoinCount,
    /// Where the walk's work is timed, for an estimate.
    pub(super) clock: Option<Clock>,
}

impl<'a> Count<'a> {
    pub(super) fn new(pair_kernel: &'a PairKernel, slice: Slice) -> Count<'a> {
        let (pair_scratch, tally) = (Scratch::default(), JoinCount::default());
        Count { pair_kernel, slice, meetings: 0, pair_scratch, tally, clock: None }
    }

    /// A count that also times the stretches of its work that others own: its prefix's
    /// north rows, the north boards' readying if `end_north_owned`, and all of them if
    /// `detailed` ([`Clock`]).
    pub(super) fn timed(
        pair_kernel: &'a PairKernel,
        slice: Slice,
        end_north_owned: bool,
        detailed: bool,
    ) -> Count<'a> {
        let clock = Clock { end_north_owned, detailed, ..Clock::default() };
        Count { clock: Some(clock), ..Count::new(pair_kernel, slice) }
    }

    /// A count that times every stretch of its work, for a profile ([`Clock::whole`]).
    pub(super) fn profiled(pair_kernel: &'a PairKernel, slice: Slice) -> Count<'a> {
        let clock =
            Clock { end_north_owned: true, detailed: true, whole: true, ..Clock::default() };
        let mut count = Count { clock: Some(clock), ..Count::new(pair_kernel, slice) };
        count.pair_scratch.counts_work = true;
        count
    }

    /// When a detailed clock's stretch starts, if it is timed.
    fn detailed_start(&self) -> Option<Stopwatch> {
        self.clock.as_ref().is_some_and(|clock| clock.detailed).then(Stopwatch::start)
    }
}

impl Goal for Count<'_> {
    fn end_north(walk: &mut Walk<'_, Self>, levels: PerSide<usize>) {
        for side in Side::BOTH {
            let owned = walk.goal.clock.as_ref().is_some_and(|clock| clock.end_north_owned);
            let started = owned.then(Stopwatch::start);
            let (geometry, table) = (walk.geometry, &walk.tails.0[side]);
            let transposes = &geometry.transposes;
            let readied =
                walk.halves[side].end_north(geometry, levels[side], table, transposes, side);
            if let (Some(started), Some(clock)) = (started, &mut walk.goal.clock) {
                clock.end_north[side] += started.elapsed();
                clock.readied_boards += readied as u128;
            }
        }
        walk.note_bytes();
        walk.release_readied(levels);
    }

    /// Counts the row set: its north boards joined with the tail rows of each half, then
    /// the disjoint pairs of the two halves' signatures. Where the signatures would pass
    /// the budget, the north boards of each half are joined in pieces, and every piece of
    /// one half meets every piece of the other. A slice of a row set counts its share of
    /// the groups of the first meeting's pair count; of every fill's other meetings it
    /// takes the same share, in runs of groups across them ([`Slice::of_later`]), so that
    /// it joins at most two of each fill's meetings. Dealt whole, a row set with three
    /// later meetings had three slices of sixteen each count a whole meeting, and pieces of
    /// N = 27 predicted one row set at 12 s to 20 s; and with later fills' meetings dealt
    /// whole in turn, the first slices of N = 28's largest row sets carried most of their
    /// solutions (one piece of 275 s, 53 times the sample's mean), and 94% of the sample's
    /// spread was its pieces of slice 0 (docs/measurements/plans.md).
    fn row_set(
        walk: &mut Walk<'_, Self>,
        _: PerSide<usize>,
        subsets: PerSide<usize>,
        weight: u128,
    ) {
        let most = walk.signatures_per_piece();
        let west_rows = walk.split.west_rows(&walk.sides);
        let rank = walk.geometry.transposes.of_lines(west_rows, walk.split.middle_queen);
        // Copied out of the walk, so that the halves can be borrowed beside it.
        let tails: &Tails = walk.tails;
        let tails = &tails.0;
        let kernel = *walk.goal.pair_kernel;
        let pieces = Side::BOTH.map(|side| {
            let north = &walk.halves[side].north;
            pieces(north, &tails[side], subsets[side], most, rank, kernel)
        });
        let [east_pieces, west_pieces] = &pieces;
        let sliced = walk.goal.slice;
        let fill_start = walk.goal.meetings;
        let fill_meetings = west_pieces.len() * east_pieces.len();
        // A west piece's signatures serve every east piece it meets: the pair count leaves
        // both lists as they are.
        for west_piece in west_pieces {
            let mut west_written = false;
            for east_piece in east_pieces {
                let meeting = walk.goal.meetings;
                walk.goal.meetings += 1;
                let first = meeting == 0;
                let taken = if first {
                    Some(sliced)
                } else if fill_start == 0 {
                    sliced.of_later(fill_meetings - 1, meeting - 1)
                } else {
                    sliced.of_later(fill_meetings, meeting - fill_start)
                };
                let Some(taken) = taken else {
                    continue;
                };
                if let Some(clock) = &mut walk.goal.clock {
                    clock.meetings += 1;
                }
                // The first meeting's joining is every slice's; a later one's, its share's.
                let share = if first { 1.0 } else { taken.share() };
                let west = (!west_written).then_some((Side::West, west_piece));
                west_written = true;
                for (side, piece) in west.into_iter().chain([(Side::East, east_piece)]) {
                    let started = walk.goal.detailed_start();
                    let (table, subset) = (&tails[side], subsets[side]);
                    walk.halves[side].fill_signatures(table, subset, piece, most, rank, kernel);
                    if let (Some(started), Some(clock)) = (started, &mut walk.goal.clock) {
                        let spent = started.elapsed();
                        if first {
                            clock.signatures[side] += spent;
                        } else {
                            clock.later_signatures += spent.mul_f64(share);
                            clock.repeated += spent.mul_f64(1.0 - share);
                        }
                    }
                }
                walk.note_bytes();
                let halves = &mut walk.halves;
                walk.goal.count_pairs(walk.geometry, halves, weight, rank, taken, first);
            }
        }
    }

    fn done(_: &Walk<'_, Self>) -> bool {
        false
    }

    fn release(&mut self) {
        self.pair_scratch.release_sorted();
    }

    fn clock(&mut self) -> Option<&mut Clock> {
        self.clock.as_mut()
    }
}

impl Count<'_> {
    /// Counts the disjoint pairs of the two halves' signatures, weighed by `weight`. A
    /// solution counts twice if its north queens' columns rank above the row set's `rank`,
    /// once if with it: the pair of its half-boards' ranks is above or equal
    /// to the row set's, the lesser compared first (transpose.rs). Only `slice` of the
    /// groups is counted, and the sorting of a row set's first meeting is timed apart;
    /// of a later meeting that slices share, the rest of its sorting is the other
    /// slices' ([`Clock::repeated`]).
    fn count_pairs(
        &mut self,
        geometry: &Geometry,
        halves: &mut PerSide<Half>,
        weight: u128,
        rank: LinesRank,
        slice: Slice,
        first_meeting: bool,
    ) {
        let bits = geometry.signature_bits();
        let started = self.detailed_start();
        let (w, e) = (halves.west.stretches, halves.east.stretches);
        let west = halves.west.signatures.as_slice();
        let east = halves.east.signatures.as_slice();
        let met = (west.len() + east.len()) as u128;
        // The pairs with a half-board ranking the row set's least first: their lists are
        // small, so they are counted without buckets.
        let (west_least, east_least) = (&west[w.between..], &east[e.between..]);
        let twice = [(west_least, &east[..e.above]), (&west[..w.above], east_least)];
        let twice = twice.map(|(west, east)| self.count_every(west, east, bits, slice));
        let once = if rank.greatest > rank.least {
            [(west_least, &east[e.above..e.greatest]), (&west[w.above..w.greatest], east_least)]
        } else {
            [(west_least, east_least), (&[], &[])]
        };
        let once = once.map(|(west, east)| self.count_every(west, east, bits, slice));
        let (west, east) = (&west[..w.between], &east[..e.between]);
        let share = slice.share();
        let mut shared_sorting = Duration::ZERO;
        let above = if west.is_empty() || east.is_empty() {
            PairCount::default()
        } else {
            let (stored, queries) = pair_count::stored_and_queried(west, east);
            // The first meeting's sorting is every slice's; a later one's, where slices
            // share the meeting, is shared by them.
            let sorting = match self.clock.as_mut().filter(|clock| clock.detailed) {
                Some(clock) if first_meeting || clock.whole => Some(&mut clock.sorting),
                Some(_) if share < 1.0 => Some(&mut shared_sorting),
                _ => None,
            };
            let scratch = &mut self.pair_scratch;
            self.pair_kernel.count(stored, queries, bits, slice, scratch, sorting)
        };
        if let (Some(started), Some(clock)) = (started, &mut self.clock) {
            let repeated = shared_sorting.mul_f64(1.0 - share);
            clock.pairs += started.elapsed().saturating_sub(repeated);
            clock.repeated += repeated;
        }
        let sum =
            |counts: &[PairCount]| counts.iter().map(|c| u128::from(c.disjoint)).sum::<u128>();
        let solutions = 2 * u128::from(above.disjoint) + 2 * sum(&twice) + sum(&once);
        self.tally.total += weight * solutions;
        for count in [above].into_iter().chain(twice).chain(once) {
            self.tally.pairs_tested += u128::from(count.tested);
            self.tally.pair_work += count.work;
        }
        self.tally.signatures += met;
    }

    /// The disjoint pairs of `west` and `east`, counted without buckets: the slice's share
    /// of them ([`Slice::of_lanes`](pair_count::Slice)).
    fn count_every(&mut self, west: &[u64], east: &[u64], bits: u32, slice: Slice) -> PairCount {
        if west.is_empty() || east.is_empty() {
            return PairCount::default();
        }
        let (stored, queries) = pair_count::shorter_first(west, east);
        self.pair_kernel.count_every(stored, queries, bits, slice, &mut self.pair_scratch)
    }
}
