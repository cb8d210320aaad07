//! The walk of one task: every row of the split's order joins the west or the east half.
//!
//! Up to the tail rows (the north), each half's boards grow row by row, so that row sets
//! sharing a prefix share the work of placing it; a half with no board left ends the
//! branch. The tail rows are only chosen: each row set's half-boards are its north boards
//! joined with the tail tables, and its solutions the disjoint pairs of the two halves'
//! signatures. A walk either counts ([`Count`]) or only measures the memory a row set
//! needs ([`Probe`]); the two are separate types so that counting carries no probe's test.

use std::ops::Range;
use std::time::{Duration, Instant};

use super::budget::{Budget, SIGNATURE_BYTES};
use super::pair_count::{self, PairCount, PairKernel, Scratch, Slice};
use super::refill::{Refill, Writer};
use super::signatures;
use super::split::{Geometry, HalfBoard, Key, NORTH_COLUMNS, PerSide, Side, Split};
use super::tail::{TailBoard, TailTable, Tails};
use super::transpose::{LinesRank, Rank, Transposes};

/// What a walk is for: counting, or measuring.
pub(super) trait Goal: Sized {
    /// Readies the halves' north boards for the tail, once per choice of the north rows.
    fn end_north(walk: &mut Walk<'_, Self>, levels: PerSide<usize>);

    /// Takes in a complete row set of weight `weight`: the north boards at `levels`, with
    /// the tail rows `subsets` of each half.
    fn row_set(
        walk: &mut Walk<'_, Self>,
        levels: PerSide<usize>,
        subsets: PerSide<usize>,
        weight: u128,
    );

    /// Whether the walk should stop here.
    fn done(walk: &Walk<'_, Self>) -> bool;

    /// Frees what the goal holds that grows with the lists, for a walk short of room.
    fn release(&mut self);

    /// Where the walk's stretches of work are timed, for an estimate; `None` when they
    /// are not.
    fn clock(&mut self) -> Option<&mut Clock>;
}

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
}

/// Counting a task's solutions.
pub(super) struct Count<'a> {
    pair_kernel: &'a PairKernel,
    /// The slice of each row set this count takes: all of it, except in a piece.
    slice: Slice,
    /// The meetings of pieces of half-boards counted so far ([`Goal::row_set`]), and how
    /// many of them the first fill of the north rows had.
    meetings: usize,
    first_fill_meetings: usize,
    pub(super) pair_scratch: Scratch,
    pub(super) tally: JoinCount,
    /// Where the walk's work is timed, for an estimate.
    pub(super) clock: Option<Clock>,
}

impl<'a> Count<'a> {
    pub(super) fn new(pair_kernel: &'a PairKernel, slice: Slice) -> Count<'a> {
        let (pair_scratch, tally) = (Scratch::default(), JoinCount::default());
        Count {
            pair_kernel,
            slice,
            meetings: 0,
            first_fill_meetings: 0,
            pair_scratch,
            tally,
            clock: None,
        }
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

    /// When a detailed clock's stretch starts, if it is timed.
    fn detailed_start(&self) -> Option<Instant> {
        self.clock.as_ref().is_some_and(|clock| clock.detailed).then(Instant::now)
    }
}

/// Measuring the bytes a row set holds without counting its pairs: the walk gives up once
/// it holds more than `limit` bytes.
pub(super) struct Probe {
    pub(super) limit: usize,
}

/// One half of the board as the walk builds it.
struct Half {
    columns: u64,
    /// The rows that put their queen in this half: one per column.
    quota: usize,
    /// `levels[k]`: the boards of the first `k` north rows decided for this half.
    levels: Vec<Refill<HalfBoard>>,
    /// The boards of the last north level, ready for the tail.
    north: NorthBoards,
    /// The signatures of the complete half-boards of the row set at hand, on an even board
    /// in stretches by rank ([`Stretches`]).
    signatures: Refill<u64>,
    stretches: Stretches,
    /// The runs of `north` cut by rank for the row set at hand.
    ranked_runs: Vec<RankedRun>,
    /// The bytes of room its lists hold.
    held: usize,
}

/// A half's boards at the end of the north rows, in the form the join with the tail reads,
/// sorted into runs that leave the same columns free, so that a run meets one group of
/// the tail table and a run with no group is skipped whole.
#[derive(Debug, Default)]
struct NorthBoards {
    boards: Vec<TailBoard>,
    /// The columns each run leaves free (relative to the half's lowest), and the run.
    runs: Vec<(usize, Range<usize>)>,
    counts: Vec<usize>,
    /// On an even board, each board's rank.
    ranks: Vec<Rank>,
    /// The boards' indices from the highest rank down, the order in which they are sorted
    /// into their runs.
    by_rank: Vec<u32>,
    /// Per rank from the highest down, its boards' count, then where they go in `by_rank`.
    rank_starts: Vec<u32>,
}

/// Where a half's signatures change rank against a row set's (`least` and `greatest`, its
/// halves' ranks): those ranking above `greatest` end at `above`, those ranking
/// `greatest` (if above `least`) at `greatest`, those between at `between`, and the rest
/// rank `least`. Odd boards, whose signatures are not ranked, have no rest.
#[derive(Clone, Copy, Debug, Default)]
struct Stretches {
    above: usize,
    greatest: usize,
    between: usize,
}

/// A run of north boards that leave the columns `free` free, cut by rank against a row set:
/// `cuts[k]..cuts[k + 1]` are its boards of the `k`-th of [`Stretches`] (the last, those
/// ranking the row set's least), found once for all four.
#[derive(Clone, Debug)]
struct RankedRun {
    free: usize,
    cuts: [usize; 5],
}

impl RankedRun {
    fn of(north: &NorthBoards, free: usize, boards: Range<usize>, rank: LinesRank) -> RankedRun {
        // Each run is sorted from the highest rank down, so each cut is the number of its
        // boards ranking at least some bound. The four binary searches go in step, so
        // that their chains of loads overlap: one after the other, they took a tenth of
        // the join's time at N = 18, whose runs hold a few dozen boards.
        let run = &north.boards[boards.clone()];
        let (greatest, least) = (u32::from(rank.greatest), u32::from(rank.least));
        let bounds = [greatest + 1, greatest, least + 1, least];
        let at_least = |board: &TailBoard, bound: u32| u32::from(board.rank()) >= bound;
        let mut bases = [0; 4];
        let mut size = run.len();
        while size > 1 {
            let half = size / 2;
            for (base, bound) in bases.iter_mut().zip(bounds) {
                let middle = *base + half;
                *base = if at_least(&run[middle], bound) { middle } else { *base };
            }
            size -= half;
        }
        let mut cuts = [boards.start; 5];
        for ((cut, base), bound) in cuts[1..].iter_mut().zip(bases).zip(bounds) {
            *cut += base + usize::from(run.get(base).is_some_and(|board| at_least(board, bound)));
        }
        // Where the two ranks are one, the boards ranking it are those at the least, and
        // the stretch of the greatest is empty.
        cuts[2] = cuts[2].min(cuts[3]);
        RankedRun { free, cuts }
    }
}

/// A run of north boards whose joins with the tail rows test `tested` tail boards.
#[derive(Clone, Debug)]
struct Piece {
    boards: Range<usize>,
    tested: usize,
}

/// The row a fill places a queen in, on one half.
#[derive(Clone, Copy)]
struct NextRow {
    row: usize,
    /// Its falling diagonal's offset, `N - 1 - row`.
    fall: usize,
    /// The half's columns, and those of them no fixed queen attacks in this row.
    columns: u64,
    open: u64,
    /// The half's columns every board of the level leaves free, as many for each.
    free: usize,
}

/// The depth-first walk of one task toward `goal`.
pub(super) struct Walk<'a, G> {
    geometry: &'a Geometry,
    budget: &'a Budget,
    split: &'a Split,
    decided: &'a [Side],
    tails: &'a Tails,
    /// The sides chosen for the rows of the order so far.
    sides: Vec<Side>,
    halves: PerSide<Half>,
    pub(super) goal: G,
    /// The most bytes the walk's lists have held at once.
    pub(super) peak_list_bytes: usize,
}

impl<'a, G: Goal> Walk<'a, G> {
    /// The walk of the task `key` on `geometry`, within `budget`, its tail rows from
    /// `tails`.
    pub(super) fn new(
        geometry: &'a Geometry,
        budget: &'a Budget,
        key: &'a Key,
        tails: &'a Tails,
        goal: G,
    ) -> Walk<'a, G> {
        Walk {
            geometry,
            budget,
            split: &key.split,
            decided: &key.decided,
            tails,
            sides: Vec::with_capacity(key.split.order.len()),
            halves: key.split.columns.map(|_, columns| Half::new(columns)),
            goal,
            peak_list_bytes: 0,
        }
    }

    /// Walks every row set below the task's decided rows.
    pub(super) fn run(&mut self) {
        self.visit(0, PerSide::default());
    }

    /// The positions of [`Split::order`] whose rows the walk places; the rest are the tail.
    fn north_rows(&self) -> usize {
        self.split.order.len().saturating_sub(self.budget.tail_rows)
    }

    /// The sides the row at `position` may take: its decided side, if any, as the split
    /// allows.
    fn sides_at(&self, position: usize) -> impl Iterator<Item = Side> + use<G> {
        let decided = self.decided.get(position).copied();
        let allowed = Side::BOTH.map(|side| self.split.allows(position, side));
        Side::BOTH
            .into_iter()
            .zip(allowed)
            .filter(move |&(side, allowed)| allowed && decided.is_none_or(|d| d == side))
            .map(|(side, _)| side)
    }

    /// Places the row at `position` of the order on each side it may take, the halves
    /// holding the boards of `levels` rows each.
    fn visit(&mut self, position: usize, levels: PerSide<usize>) {
        if position == self.north_rows() {
            G::end_north(self, levels);
            self.visit_tail(position, levels, PerSide::default());
            return;
        }
        let row = usize::from(self.split.order[position]);
        let north = self.geometry.transposes.is_some() && row < self.geometry.n / 2;
        for side in self.sides_at(position) {
            let level = levels[side];
            if level == self.halves[side].quota {
                continue;
            }
            let boards = self.halves[side].levels[level].len();
            let per_fill = self.boards_per_fill(side, levels);
            let mut next = levels;
            next[side] += 1;
            for start in (0..boards).step_by(per_fill) {
                let piece = start..boards.min(start + per_fill);
                let open = self.split.open[row];
                let prefix = position < self.decided.len();
                let started = (prefix && self.goal.clock().is_some()).then(Instant::now);
                let placed =
                    self.halves[side].place(self.geometry.n, level, piece, row, open, north);
                if let (Some(started), Some(clock)) = (started, self.goal.clock()) {
                    clock.north.resize(clock.north.len().max(position + 1), PerSide::default());
                    clock.north[position][side] += started.elapsed();
                }
                if !placed {
                    continue;
                }
                self.note_bytes();
                if G::done(self) {
                    return;
                }
                self.sides.push(side);
                self.visit(position + 1, next);
                self.sides.pop();
            }
        }
    }

    /// Chooses the sides of the tail rows from `position` on, the north boards being at
    /// `levels`, and the tail rows chosen so far for each half `subsets`.
    fn visit_tail(&mut self, position: usize, levels: PerSide<usize>, subsets: PerSide<usize>) {
        if position == self.split.order.len() {
            if let Some(weight) = self.split.weight_of(&self.sides) {
                G::row_set(self, levels, subsets, weight);
            }
            return;
        }
        let bit = 1 << (position - self.north_rows());
        for side in self.sides_at(position) {
            let chosen = subsets[side].count_ones() as usize;
            if levels[side] + chosen >= self.halves[side].quota {
                continue;
            }
            let mut next = subsets;
            next[side] |= bit;
            self.sides.push(side);
            self.visit_tail(position + 1, levels, next);
            self.sides.pop();
            if G::done(self) {
                return;
            }
        }
    }

    /// How many boards of `side`'s current level one fill may extend: all of them while
    /// the walk's lists stay in the half of the budget where fills are whole. Otherwise
    /// the lists the walk will refill before reading are freed, and the fill takes the
    /// room the budget gives it.
    fn boards_per_fill(&mut self, side: Side, levels: PerSide<usize>) -> usize {
        let half = &self.halves[side];
        let level = levels[side];
        let boards = half.levels[level].len();
        let (room, held) = half.fill_bytes(level, boards);
        if self.budget.fill_is_whole(self.list_bytes() - held + room) {
            return boards.max(1);
        }
        self.halves.west.release_after(levels.west);
        self.halves.east.release_after(levels.east);
        // The pair count's sorted copies are at most the signatures just freed; they come
        // back with them.
        self.goal.release();
        let lists = self.halves.west.quota + self.halves.east.quota;
        let bytes = self.budget.fill_bytes(self.list_bytes(), lists);
        (bytes / self.halves[side].bytes_per_board(level)).max(1)
    }

    /// The signatures one half's piece may take at a row set.
    fn signatures_per_piece(&self) -> usize {
        let signatures = self.halves.west.signature_bytes() + self.halves.east.signature_bytes();
        let north = self.list_bytes() - signatures;
        self.budget.signatures_per_piece(north, self.halves.west.quota + self.halves.east.quota)
    }

    /// The bytes of room both halves' signatures hold, with their sorted copies.
    #[cfg(test)]
    pub(super) fn signature_bytes(&self) -> usize {
        self.halves.west.signature_bytes() + self.halves.east.signature_bytes()
    }

    fn note_bytes(&mut self) {
        self.peak_list_bytes = self.peak_list_bytes.max(self.list_bytes());
    }

    fn list_bytes(&self) -> usize {
        self.halves.west.held + self.halves.east.held
    }
}

impl Goal for Count<'_> {
    fn end_north(walk: &mut Walk<'_, Self>, levels: PerSide<usize>) {
        for side in Side::BOTH {
            let owned = walk.goal.clock.as_ref().is_some_and(|clock| clock.end_north_owned);
            let started = owned.then(Instant::now);
            let ranks = walk.geometry.transposes.as_ref().map(|transposes| (transposes, side));
            walk.halves[side].end_north(walk.geometry, levels[side], &walk.tails.0[side], ranks);
            if let (Some(started), Some(clock)) = (started, &mut walk.goal.clock) {
                clock.end_north[side] += started.elapsed();
            }
        }
        walk.note_bytes();
    }

    /// Counts the row set: its north boards joined with the tail rows of each half, then
    /// the disjoint pairs of the two halves' signatures. Where the signatures would pass
    /// the budget, the north boards of each half are joined in pieces, and every piece of
    /// one half meets every piece of the other. A slice of a row set counts its share of
    /// the groups of the first meeting's pair count; of the first fill's later meetings it
    /// takes the same share, in runs of groups across them ([`Slice::of_later`]): dealt
    /// whole, a row set with three later meetings had three slices of sixteen each count
    /// a whole meeting, and pieces of N = 27 predicted one row set at 12 s to 20 s. Later
    /// fills' meetings are dealt whole, in turn: a row set over the budget meets its pieces
    /// in every fill of its north rows, and slices repeating every meeting's joining and
    /// sorting took longer than 90 seconds each at N = 26.
    fn row_set(
        walk: &mut Walk<'_, Self>,
        _: PerSide<usize>,
        subsets: PerSide<usize>,
        weight: u128,
    ) {
        let most = walk.signatures_per_piece();
        let rank = (walk.geometry.transposes.as_ref())
            .map(|transposes| transposes.of_lines(walk.split.west_rows(&walk.sides)));
        // Copied out of the walk, so that the halves can be borrowed beside it.
        let tails: &Tails = walk.tails;
        let tails = &tails.0;
        let kernel = *walk.goal.pair_kernel;
        let pieces = Side::BOTH
            .map(|side| pieces(&walk.halves[side].north, &tails[side], subsets[side], most));
        let [east_pieces, west_pieces] = &pieces;
        let sliced = walk.goal.slice;
        let first_fill = walk.goal.meetings == 0;
        if first_fill {
            walk.goal.first_fill_meetings = west_pieces.len() * east_pieces.len();
        }
        // The pair count rewrites both lists, so each meeting of pieces builds its own.
        for west_piece in west_pieces {
            for east_piece in east_pieces {
                let meeting = walk.goal.meetings;
                walk.goal.meetings += 1;
                let first = meeting == 0;
                let taken = if first {
                    Some(sliced)
                } else if first_fill {
                    sliced.of_later(walk.goal.first_fill_meetings - 1, meeting - 1)
                } else {
                    let dealt = meeting - walk.goal.first_fill_meetings;
                    sliced.holds(dealt).then_some(Slice::WHOLE)
                };
                let Some(taken) = taken else {
                    continue;
                };
                // The first meeting's joining is every slice's; a later one's, its share's.
                let share = if first { 1.0 } else { taken.share() };
                for (side, piece) in [(Side::West, west_piece), (Side::East, east_piece)] {
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
    /// Counts the disjoint pairs of the two halves' signatures, weighed by `weight`. On an
    /// even board, a solution counts twice if its north queens' columns rank above the row
    /// set's `rank`, once if with it: the pair of its half-boards' ranks is above or equal
    /// to the row set's, the lesser compared first (transpose.rs). Only `slice` of the
    /// groups is counted, and the sorting of a row set's first meeting is timed apart;
    /// of a later meeting that slices share, the rest of its sorting is the other
    /// slices' ([`Clock::repeated`]).
    fn count_pairs(
        &mut self,
        geometry: &Geometry,
        halves: &mut PerSide<Half>,
        weight: u128,
        rank: Option<LinesRank>,
        slice: Slice,
        first_meeting: bool,
    ) {
        let bits = geometry.signature_bits();
        let started = self.detailed_start();
        let (w, e) = (halves.west.stretches, halves.east.stretches);
        let west = halves.west.signatures.as_mut_slice();
        let east = halves.east.signatures.as_mut_slice();
        // The pairs with a half-board ranking the row set's least first: their lists are
        // small, so they are counted without buckets, which leave both lists as they are
        // for the count of the rest.
        let (west_least, east_least) = (&west[w.between..], &east[e.between..]);
        let twice = [(west_least, &east[..e.above]), (&west[..w.above], east_least)];
        let twice = twice.map(|(west, east)| self.count_every(west, east, bits, slice));
        let once = match rank {
            Some(rank) if rank.greatest > rank.least => {
                [(west_least, &east[e.above..e.greatest]), (&west[w.above..w.greatest], east_least)]
            }
            _ => [(west_least, east_least), (&[], &[])],
        };
        let once = once.map(|(west, east)| self.count_every(west, east, bits, slice));
        let (west, east) = (&mut west[..w.between], &mut east[..e.between]);
        let share = slice.share();
        let mut shared_sorting = Duration::ZERO;
        let above = if west.is_empty() || east.is_empty() {
            PairCount::default()
        } else {
            let (stored, queries) = pair_count::stored_and_queried(west, east);
            // The first meeting's sorting is every slice's; a later one's, where slices
            // share the meeting, is shared by them.
            let sorting = match self.clock.as_mut().filter(|clock| clock.detailed) {
                Some(clock) if first_meeting => Some(&mut clock.sorting),
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
        let solutions = match rank {
            Some(_) => 2 * u128::from(above.disjoint) + 2 * sum(&twice) + sum(&once),
            None => u128::from(above.disjoint),
        };
        self.tally.total += weight * solutions;
        self.tally.pairs_tested +=
            [above].iter().chain(&twice).chain(&once).map(|c| u128::from(c.tested)).sum::<u128>();
    }

    /// The disjoint pairs of `west` and `east`, counted without buckets (by the first
    /// of its slices).
    fn count_every(&mut self, west: &[u64], east: &[u64], bits: u32, slice: Slice) -> PairCount {
        if west.is_empty() || east.is_empty() || !slice.holds(0) {
            return PairCount::default();
        }
        let (stored, queries) = pair_count::shorter_first(west, east);
        self.pair_kernel.count_every(stored, queries, bits, &mut self.pair_scratch)
    }
}

impl Goal for Probe {
    /// A probe does not ready the north boards: it only needs what their pieces test.
    fn end_north(_: &mut Walk<'_, Self>, _: PerSide<usize>) {}

    fn row_set(
        walk: &mut Walk<'_, Self>,
        levels: PerSide<usize>,
        subsets: PerSide<usize>,
        _: u128,
    ) {
        let most = walk.signatures_per_piece();
        let signatures: usize = Side::BOTH
            .map(|side| {
                let (table, subset) = (&walk.tails.0[side], subsets[side]);
                let boards = walk.halves[side].levels[levels[side]].as_slice();
                let tests = boards.iter().map(|b| table.group(subset, table.free_columns(b)).len());
                tests.sum::<usize>().min(most)
            })
            .iter()
            .sum();
        let held = walk.list_bytes() + signatures * SIGNATURE_BYTES;
        walk.peak_list_bytes = walk.peak_list_bytes.max(held);
    }

    fn done(walk: &Walk<'_, Self>) -> bool {
        Budget::probed(walk.peak_list_bytes) > walk.goal.limit
    }

    fn release(&mut self) {}

    fn clock(&mut self) -> Option<&mut Clock> {
        None
    }
}

impl Half {
    fn new(columns: u64) -> Half {
        let quota = columns.count_ones() as usize;
        let mut levels = vec![Refill::default(); quota + 1];
        levels[0] = Refill::of(vec![HalfBoard::default()]);
        let held = levels[0].held_bytes();
        let (north, signatures) = (NorthBoards::default(), Refill::default());
        let stretches = Stretches::default();
        let ranked_runs = Vec::new();
        Half { columns, quota, levels, north, signatures, stretches, ranked_runs, held }
    }

    /// The room the fill of the list after `level` would leave if it took `boards` boards
    /// of `level`, and the room that list holds now.
    fn fill_bytes(&self, level: usize, boards: usize) -> (usize, usize) {
        let next = &self.levels[level + 1];
        (next.room_after(boards * (self.quota - level), usize::MAX), next.held_bytes())
    }

    /// The bytes one board of `level` may add to the list after it.
    fn bytes_per_board(&self, level: usize) -> usize {
        (self.quota - level) * size_of::<HalfBoard>()
    }

    /// The bytes of room the signatures hold, with their sorted copies in the pair count.
    fn signature_bytes(&self) -> usize {
        self.signatures.held_bytes() / size_of::<u64>() * SIGNATURE_BYTES
    }

    /// Frees the lists after `level`, which hold nothing the walk will read again before
    /// it refills them, and the signatures.
    fn release_after(&mut self, level: usize) {
        for list in self.levels.iter_mut().skip(level + 1) {
            self.held -= list.held_bytes();
            list.release();
        }
        self.held -= self.signature_bytes() + self.north.bytes();
        self.signatures.release();
        self.north.release();
    }

    /// Readies the boards of `level`, the last north row, for the tail, ranked by
    /// `ranks` on an even board.
    fn end_north(
        &mut self,
        geometry: &Geometry,
        level: usize,
        table: &TailTable,
        ranks: Option<(&Transposes, Side)>,
    ) {
        self.held -= self.north.bytes();
        self.north.fill(geometry, self.levels[level].as_slice(), table, ranks);
        self.held += self.north.bytes();
    }

    /// Places a queen of this half's `level`-th row in `row`, on a column of `open`, on
    /// each of the `boards` of that level, noting its column if `north` of the middle;
    /// false if no board is left.
    fn place(
        &mut self,
        n: usize,
        level: usize,
        boards: Range<usize>,
        row: usize,
        open: u64,
        north: bool,
    ) -> bool {
        let next_row = NextRow {
            row,
            fall: n - 1 - row,
            columns: self.columns,
            open,
            free: self.quota - level,
        };
        let (done, next) = self.levels.split_at_mut(level + 1);
        let from = &done[level].as_slice()[boards];
        let before = next[0].held_bytes();
        next[0].refill(from.len() * next_row.free, usize::MAX, |to| {
            // Two copies, so that the fills of the other rows carry no step for it.
            if north {
                write_extensions::<true>(from, next_row, to)
            } else {
                write_extensions::<false>(from, next_row, to)
            }
        });
        self.held += next[0].held_bytes();
        self.held -= before;
        next[0].len() > 0
    }

    /// Fills the signatures with the complete half-boards of the north boards of `piece`
    /// and the tail rows `subset`, in room for at most `most` signatures unless they need
    /// more: on an even board, those of the north boards ranking at least the row set's
    /// least `rank`, in [`Stretches`].
    fn fill_signatures(
        &mut self,
        table: &TailTable,
        subset: usize,
        piece: &Piece,
        most: usize,
        rank: Option<LinesRank>,
        kernel: PairKernel,
    ) {
        let north = &self.north;
        let before = self.signature_bytes();
        let ranked_runs = &mut self.ranked_runs;
        let mut stretches = Stretches::default();
        self.signatures.refill(piece.tested, most, |mut to| {
            let runs = north.runs_within(&piece.boards);
            let Some(rank) = rank else {
                for (free, boards) in runs {
                    to = signatures::write(
                        kernel,
                        &north.boards[boards],
                        table.group(subset, free),
                        to,
                    );
                }
                let all = to.kept();
                stretches = Stretches { above: all, greatest: all, between: all };
                return to;
            };
            ranked_runs.clear();
            // A run whose group is empty writes nothing, so it is not cut.
            let joined = runs.filter(|&(free, _)| table.group(subset, free).len() > 0);
            ranked_runs
                .extend(joined.map(|(free, boards)| RankedRun::of(north, free, boards, rank)));
            let mut ends = [0; 4];
            for (stretch, end) in ends.iter_mut().enumerate() {
                for run in ranked_runs.iter() {
                    let boards = &north.boards[run.cuts[stretch]..run.cuts[stretch + 1]];
                    to = signatures::write(kernel, boards, table.group(subset, run.free), to);
                }
                *end = to.kept();
            }
            stretches = Stretches { above: ends[0], greatest: ends[1], between: ends[2] };
            to
        });
        self.stretches = stretches;
        self.held += self.signature_bytes();
        self.held -= before;
    }
}

impl NorthBoards {
    /// The runs that meet `boards`, each with its free columns and its boards in `boards`.
    fn runs_within(&self, boards: &Range<usize>) -> impl Iterator<Item = (usize, Range<usize>)> {
        let first = self.runs.partition_point(|(_, run)| run.end <= boards.start);
        self.runs[first..]
            .iter()
            .take_while(|(_, run)| run.start < boards.end)
            .map(|(free, run)| (*free, run.start.max(boards.start)..run.end.min(boards.end)))
    }

    fn fill(
        &mut self,
        geometry: &Geometry,
        boards: &[HalfBoard],
        table: &TailTable,
        ranks: Option<(&Transposes, Side)>,
    ) {
        self.counts.clear();
        self.counts.resize(table.masks + 1, 0);
        for board in boards {
            self.counts[table.free_columns(board) + 1] += 1;
        }
        self.runs.clear();
        for free in 0..table.masks {
            let (start, len) = (self.counts[free], self.counts[free + 1]);
            if len > 0 {
                self.runs.push((free, start..start + len));
            }
            self.counts[free + 1] = start + len;
        }
        self.boards.clear();
        self.boards.resize(boards.len(), TailBoard::default());
        let Some((transposes, side)) = ranks else {
            for board in boards {
                self.sort_into_run(geometry, table, board, 0);
            }
            return;
        };
        // Highest rank first in each run, so that a row set's boards of each rank are one
        // stretch: the boards are counted by rank and taken from the highest down, and
        // each run keeps the order its boards come in. Sorting each run apart took 4% of
        // the join's time at N = 18, whose runs hold a few dozen boards.
        self.ranks.clear();
        self.ranks.extend(boards.iter().map(|board| match side {
            Side::West => transposes.of_near(board.north_columns()),
            Side::East => transposes.of_far(board.north_columns()),
        }));
        self.rank_starts.clear();
        self.rank_starts.resize(transposes.ranks(), 0);
        let from_highest = |rank: Rank| transposes.ranks() - 1 - usize::from(rank);
        for &rank in &self.ranks {
            self.rank_starts[from_highest(rank)] += 1;
        }
        let mut taken = 0;
        for count in &mut self.rank_starts {
            (*count, taken) = (taken, taken + *count);
        }
        self.by_rank.clear();
        self.by_rank.resize(boards.len(), 0);
        for (index, &rank) in self.ranks.iter().enumerate() {
            let at = &mut self.rank_starts[from_highest(rank)];
            // A thread's budget holds far fewer than 2^32 boards.
            self.by_rank[*at as usize] = index as u32;
            *at += 1;
        }
        for at in 0..self.by_rank.len() {
            let index = self.by_rank[at] as usize;
            self.sort_into_run(geometry, table, &boards[index], self.ranks[index]);
        }
    }

    /// Writes `board`, ranked `rank`, next in the run of the columns it leaves free.
    fn sort_into_run(
        &mut self,
        geometry: &Geometry,
        table: &TailTable,
        board: &HalfBoard,
        rank: Rank,
    ) {
        let at = &mut self.counts[table.free_columns(board)];
        let (meets, signature) = (table.meeting.bits(board), geometry.signature(board));
        self.boards[*at] = TailBoard::north(meets, signature, rank);
        *at += 1;
    }

    fn bytes(&self) -> usize {
        self.boards.capacity() * size_of::<TailBoard>()
            + self.runs.capacity() * size_of::<(usize, Range<usize>)>()
            + self.counts.capacity() * size_of::<usize>()
            + self.ranks.capacity() * size_of::<Rank>()
            + (self.by_rank.capacity() + self.rank_starts.capacity()) * size_of::<u32>()
    }

    fn release(&mut self) {
        *self = NorthBoards::default();
    }
}

/// Cuts the north boards into pieces whose joins with the tail rows `subset` test at most
/// `most` tail boards each (or one north board, if that alone tests more).
fn pieces(north: &NorthBoards, table: &TailTable, subset: usize, most: usize) -> Vec<Piece> {
    let mut pieces = Vec::new();
    let (mut start, mut tested) = (0, 0);
    for (free, run) in &north.runs {
        let per_board = table.group(subset, *free).len();
        let mut at = run.start;
        while per_board > 0 && at < run.end {
            let fit = (most.saturating_sub(tested) / per_board).min(run.end - at);
            if fit == 0 && tested > 0 {
                pieces.push(Piece { boards: start..at, tested });
                (start, tested) = (at, 0);
                continue;
            }
            tested += fit.max(1) * per_board;
            at += fit.max(1);
        }
    }
    if tested > 0 {
        pieces.push(Piece { boards: start..north.boards.len(), tested });
    }
    pieces
}

/// Writes every board of `from` with one more queen in `next.row`, on a column of the half
/// that the board has free and that is open and not attacked by the board, its column
/// noted again if the row is `NORTH` of an even board's middle. Every free column is
/// written and only the good ones kept, so the loop has no unpredictable branch.
fn write_extensions<'w, const NORTH: bool>(
    from: &[HalfBoard],
    next: NextRow,
    mut to: Writer<'w, HalfBoard>,
) -> Writer<'w, HalfBoard> {
    for board in from {
        let mut candidates = next.columns & !board.columns;
        let open = next.open & !(board.rising >> next.row) & !(board.falling >> next.fall);
        for _ in 0..next.free {
            let bit = candidates & candidates.wrapping_neg();
            candidates ^= bit;
            let mut extended = board.with_queen(bit, next.row, next.fall);
            if NORTH {
                extended.columns |= bit << NORTH_COLUMNS;
            }
            to.push(extended, open & bit != 0);
        }
    }
    to
}
