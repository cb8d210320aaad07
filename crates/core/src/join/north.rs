//! A half's boards at the end of the north rows, sorted for the join with the tail: by a
//! counting sort into runs that leave the same columns free, each run from the highest
//! rank down, cut by rank against a row set with binary searches that
//! go in step, and into pieces whose joins fit the budget.

use std::ops::Range;

use super::board::{Geometry, HalfBoard, Side};
use super::pair_count::PairKernel;
use super::room::Room;
use super::signatures;
use super::tail::{TailBoard, TailTable};
use super::transpose::{LinesRank, Rank, Transposes};
use crate::simd::prefetch;

/// How many boards ahead of the one it readies the gather asks for: 8, 16 and 32 took
/// about the same time at N = 26, 32 the least.
const GATHER_AHEAD: usize = 32;

/// A half's boards at the end of the north rows, in the form the join with the tail reads,
/// sorted into runs that leave the same columns free, so that a run meets one group of
/// the tail table and a run with no group is skipped whole.
#[derive(Debug, Default)]
pub(super) struct NorthBoards {
    pub(super) boards: Room<TailBoard>,
    /// The columns each run leaves free (relative to the half's lowest), and the run.
    pub(super) runs: Vec<(usize, Range<usize>)>,
    counts: Vec<usize>,
    /// Each board's rank.
    ranks: Room<Rank>,
    /// The boards' indices from the highest rank down, the order in which they are sorted
    /// into their runs.
    by_rank: Room<u32>,
    /// Per rank from the highest down, its boards' count, then where they go in `by_rank`.
    rank_starts: Vec<u32>,
}

/// Where boards ranked `rank` stand in the order from the highest rank down, in which they
/// are counted and taken into their runs.
fn from_highest(transposes: &Transposes, rank: Rank) -> usize {
    transposes.ranks() - 1 - usize::from(rank)
}

/// A run of north boards that leave the columns `free` free, cut by rank against a row set:
/// `cuts[k]..cuts[k + 1]` are its boards of the `k`-th of [`super::half::Stretches`] (the
/// last, those ranking the row set's least), found once for all four.
#[derive(Clone, Debug)]
pub(super) struct RankedRun {
    pub(super) free: usize,
    pub(super) cuts: [usize; 5],
}

impl RankedRun {
    pub(super) fn of(
        north: &NorthBoards,
        free: usize,
        boards: Range<usize>,
        rank: LinesRank,
    ) -> RankedRun {
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

    /// The boards a row set reads: those ranking at least its least.
    pub(super) fn read(&self) -> Range<usize> {
        self.cuts[0]..self.cuts[4]
    }
}

/// A run of north boards whose joins with the tail rows write at most `signatures`
/// signatures.
#[derive(Clone, Debug)]
pub(super) struct Piece {
    pub(super) boards: Range<usize>,
    pub(super) signatures: usize,
}

impl NorthBoards {
    /// The runs that meet `boards`, each with its free columns and its boards in `boards`.
    pub(super) fn runs_within(
        &self,
        boards: &Range<usize>,
    ) -> impl Iterator<Item = (usize, Range<usize>)> {
        let first = self.runs.partition_point(|(_, run)| run.end <= boards.start);
        self.runs[first..]
            .iter()
            .take_while(|(_, run)| run.start < boards.end)
            .map(|(free, run)| (*free, run.start.max(boards.start)..run.end.min(boards.end)))
    }

    pub(super) fn fill(
        &mut self,
        geometry: &Geometry,
        boards: &[HalfBoard],
        table: &TailTable,
        transposes: &Transposes,
        side: Side,
    ) {
        self.counts.clear();
        self.counts.resize(table.masks + 1, 0);
        self.ranks.clear();
        self.rank_starts.clear();
        // One pass over the boards counts both sorts' keys: the list is larger than the
        // caches, and each pass over it reads it from memory again.
        self.rank_starts.resize(transposes.ranks(), 0);
        self.ranks.empty_with_room(boards.len());
        for board in boards {
            self.counts[table.free_columns(board) + 1] += 1;
            let rank = transposes.of_board(side, board.north_columns());
            self.ranks.push(rank);
            self.rank_starts[from_highest(transposes, rank)] += 1;
        }
        self.runs.clear();
        for free in 0..table.masks {
            let (start, len) = (self.counts[free], self.counts[free + 1]);
            if len > 0 {
                self.runs.push((free, start..start + len));
            }
            self.counts[free + 1] = start + len;
        }
        self.boards.fill(boards.len(), TailBoard::default());
        // Highest rank first in each run, so that a row set's boards of each rank are one
        // stretch: the boards are counted by rank and taken from the highest down, and
        // each run keeps the order its boards come in. Sorting each run apart took 4% of
        // the join's time at N = 18, whose runs hold a few dozen boards.
        let mut taken = 0;
        for count in &mut self.rank_starts {
            (*count, taken) = (taken, taken + *count);
        }
        self.by_rank.fill(boards.len(), 0);
        for (index, &rank) in self.ranks.iter().enumerate() {
            let at = &mut self.rank_starts[from_highest(transposes, rank)];
            // A thread's budget holds far fewer than 2^32 boards.
            self.by_rank[*at as usize] = index as u32;
            *at += 1;
        }
        // The boards are read in rank order, a gather from a list larger than the caches:
        // without asking for them ahead, a third of the walk's `perf` samples at N = 24
        // waited on these loads. Each rank's stretch of `by_rank` ends where its start was
        // moved to.
        let mut start = 0;
        for stretch in 0..self.rank_starts.len() {
            let rank = (transposes.ranks() - 1 - stretch) as Rank;
            let end = self.rank_starts[stretch] as usize;
            for at in start..end {
                if let Some(&ahead) = self.by_rank.get(at + GATHER_AHEAD) {
                    prefetch(&boards[ahead as usize]);
                }
                let index = self.by_rank[at] as usize;
                self.sort_into_run(geometry, table, &boards[index], rank);
            }
            start = end;
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

    pub(super) fn bytes(&self) -> usize {
        self.boards.capacity() * size_of::<TailBoard>()
            + self.runs.capacity() * size_of::<(usize, Range<usize>)>()
            + self.counts.capacity() * size_of::<usize>()
            + self.ranks.capacity() * size_of::<Rank>()
            + (self.by_rank.capacity() + self.rank_starts.capacity()) * size_of::<u32>()
    }

    pub(super) fn release(&mut self) {
        *self = NorthBoards::default();
    }
}

/// Cuts the north boards into pieces whose joins with the tail rows `subset` write at most
/// `most` signatures each (or one north board, if that alone writes more), for a row set
/// ranked `rank`. Where every tail board each north board is joined with
/// fits, that bound is one piece. Otherwise the signatures are counted before they are
/// written, so that a piece is cut where its signatures, not its tests, fill the room:
/// from N = 24 most tests fail (at N = 26 one half of a row set tested 65 million pairs of
/// north and tail boards for 3.5 million signatures, some of its north boards ranking
/// below the row set's least and never read), and cutting by the tests made that row set
/// fifteen meetings of pieces where its signatures fitted one (docs/measurements/join.md).
pub(super) fn pieces(
    north: &NorthBoards,
    table: &TailTable,
    subset: usize,
    most: usize,
    rank: LinesRank,
    kernel: PairKernel,
) -> Vec<Piece> {
    let joined = || {
        (north.runs.iter())
            .map(|(free, run)| (table.group(subset, *free), *free, run.clone()))
            .filter(|(group, ..)| group.len() > 0)
    };
    let tested: usize = joined().map(|(group, _, run)| run.len() * group.len()).sum();
    if tested == 0 {
        return Vec::new();
    }
    let all = 0..north.boards.len();
    if tested <= most {
        return vec![Piece { boards: all, signatures: tested }];
    }
    let mut pieces = Vec::new();
    let (mut start, mut written) = (0, 0);
    for (group, free, run) in joined() {
        let read = RankedRun::of(north, free, run, rank).read();
        let whole = signatures::count(kernel, &north.boards[read.clone()], group);
        if written + whole <= most {
            written += whole;
            continue;
        }
        for at in read {
            let one = signatures::count(kernel, &north.boards[at..at + 1], group);
            if written + one > most && written > 0 {
                pieces.push(Piece { boards: start..at, signatures: written });
                (start, written) = (at, 0);
            }
            written += one;
        }
    }
    if written > 0 {
        pieces.push(Piece { boards: start..all.end, signatures: written });
    }
    pieces
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A run's boards of each rank, from the highest down, as the fill leaves them.
    fn run_of_ranks(ranks: &[Rank]) -> NorthBoards {
        let boards: Vec<TailBoard> =
            ranks.iter().map(|&rank| TailBoard::north(0, 0, rank)).collect();
        NorthBoards { boards: Room::from_slice(&boards), ..NorthBoards::default() }
    }

    #[test]
    fn the_cuts_by_rank_are_the_counts_of_boards_ranking_at_least_each_bound() {
        let ranks: Vec<Rank> = vec![9, 9, 7, 7, 7, 5, 4, 4, 2, 1, 1, 0];
        let north = run_of_ranks(&ranks);
        for greatest in 0..=10u16 {
            for least in 0..=greatest {
                for boards in [0..ranks.len(), 3..9, 5..5, 11..12] {
                    let rank = LinesRank { greatest, least };
                    let run = RankedRun::of(&north, 0, boards.clone(), rank);
                    let at_least =
                        |bound: Rank| ranks[boards.clone()].iter().filter(|&&r| r >= bound).count();
                    let mut expected = [
                        boards.start,
                        boards.start + at_least(greatest.saturating_add(1)),
                        boards.start + at_least(greatest),
                        boards.start + at_least(least.saturating_add(1)),
                        boards.start + at_least(least),
                    ];
                    expected[2] = expected[2].min(expected[3]);
                    assert_eq!(run.cuts, expected, "ranks {greatest}, {least} over {boards:?}");
                }
            }
        }
    }

    #[test]
    fn the_runs_within_a_stretch_are_cut_to_it() {
        let north =
            NorthBoards { runs: vec![(3, 0..4), (5, 4..6), (6, 6..10)], ..NorthBoards::default() };
        let within: Vec<_> = north.runs_within(&(2..7)).collect();
        assert_eq!(within, [(3, 2..4), (5, 4..6), (6, 6..7)]);
        assert_eq!(north.runs_within(&(4..6)).collect::<Vec<_>>(), [(5, 4..6)]);
        assert_eq!(north.runs_within(&(10..10)).count(), 0);
    }
}
