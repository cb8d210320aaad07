//! One half of the board as the walk builds it: its boards row by row (each fill writing
//! every free column and keeping the good ones, so that the loop has no unpredictable
//! branch), its north boards readied for the tail, and the signatures of a row set's
//! complete half-boards, in stretches by rank.

use std::ops::Range;

use super::board::{Geometry, HalfBoard, NORTH_COLUMNS, Side};
use super::budget::SIGNATURE_BYTES;
use super::north::{NorthBoards, Piece, RankedRun};
use super::pair_count::PairKernel;
use super::refill::{Refill, Writer};
use super::signatures;
use super::tail::TailTable;
use super::transpose::{LinesRank, Transposes};
use crate::simd::prefetch;

/// One half of the board as the walk builds it.
pub(super) struct Half {
    pub(super) columns: u64,
    /// The rows that put their queen in this half: one per column.
    pub(super) quota: usize,
    /// `levels[k]`: the boards of the first `k` north rows decided for this half.
    pub(super) levels: Vec<Refill<HalfBoard>>,
    /// The boards of the last north level, ready for the tail, and that level while its
    /// boards are the ones `north` holds: a half whose rows are all placed before the
    /// other half's pieces ([`super::walk::Walk`]) is readied once for all of them.
    pub(super) north: NorthBoards,
    north_level: Option<usize>,
    /// The signatures of the complete half-boards of the row set at hand, in stretches by
    /// rank ([`Stretches`]).
    pub(super) signatures: Refill<u64>,
    pub(super) stretches: Stretches,
    /// The runs of `north` cut by rank for the row set at hand.
    pub(super) ranked_runs: Vec<RankedRun>,
}

/// Where a half's signatures change rank against a row set's (`least` and `greatest`, its
/// halves' ranks): those ranking above `greatest` end at `above`, those ranking
/// `greatest` (if above `least`) at `greatest`, those between at `between`, and the rest
/// rank `least`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Stretches {
    pub(super) above: usize,
    pub(super) greatest: usize,
    pub(super) between: usize,
}

/// What a fill notes of each queen it places, for the transposes' ranks
/// ([`HalfBoard::columns`]): the column of a queen above the middle, the column of an odd
/// board's middle row's queen mirrored, and nothing of the rest.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Note {
    Nothing,
    Column,
    MirroredColumn,
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

impl NextRow {
    /// The columns `board` leaves free in this row, and those of them its queen may take:
    /// open, and on no diagonal of the board's queens. A fill writes the first and keeps
    /// the second; a count of the kept boards ([`Half::extensions`]) reads the same.
    #[inline(always)]
    fn candidates(&self, board: &HalfBoard) -> (u64, u64) {
        let free = self.columns & !board.columns;
        (free, self.open & !(board.rising >> self.row) & !(board.falling >> self.fall))
    }
}

impl Half {
    pub(super) fn new(columns: u64) -> Half {
        let quota = columns.count_ones() as usize;
        let mut levels = vec![Refill::default(); quota + 1];
        levels[0] = Refill::of(&[HalfBoard::default()]);
        let (north, signatures) = (NorthBoards::default(), Refill::default());
        let stretches = Stretches::default();
        let ranked_runs = Vec::new();
        let north_level = None;
        Half { columns, quota, levels, north, north_level, signatures, stretches, ranked_runs }
    }

    /// The room the fill of the list after `level` would leave if it took `boards` boards
    /// of `level`, and the room that list holds now.
    pub(super) fn fill_bytes(&self, level: usize, boards: usize) -> (usize, usize) {
        let next = &self.levels[level + 1];
        (next.room_after(boards * (self.quota - level), usize::MAX), next.held_bytes())
    }

    /// The room the list after `level` takes for `kept` boards, counted: exactly that, once
    /// any larger room it holds is freed ([`Half::fit_room`]).
    pub(super) fn counted_fill_bytes(kept: usize) -> usize {
        (kept + 1) * size_of::<HalfBoard>()
    }

    /// Frees the room of the list after `level` if it holds more than `kept` boards need, so
    /// that a counted fill takes only what it keeps.
    pub(super) fn fit_room(&mut self, level: usize, kept: usize) {
        let needed = Half::counted_fill_bytes(kept);
        let next = &mut self.levels[level + 1];
        if next.held_bytes() > needed {
            next.release();
        }
    }

    /// The bytes of room its lists hold: worked out from the lists each time, so that no
    /// change to one can leave the budget's view of them behind.
    pub(super) fn held_bytes(&self) -> usize {
        let levels: usize = self.levels.iter().map(Refill::held_bytes).sum();
        levels + self.north.bytes() + self.signature_bytes()
    }

    /// The bytes of room the signatures hold, with their sorted copies in the pair count.
    pub(super) fn signature_bytes(&self) -> usize {
        self.signatures.held_bytes() / size_of::<u64>() * SIGNATURE_BYTES
    }

    /// Frees the lists after `level`, which hold nothing the walk will read again before
    /// it refills them, and the signatures; and the north boards, unless `keeps_north` and
    /// they are those of `level`, which the walk will then read again as they are.
    pub(super) fn release_after(&mut self, level: usize, keeps_north: bool) {
        for list in self.levels.iter_mut().skip(level + 1) {
            list.release();
        }
        self.signatures.release();
        if !(keeps_north && self.north_level == Some(level)) {
            self.north.release();
            self.north_level = None;
        }
    }

    /// Frees the boards of `level`, once the walk has read them for the last time before
    /// it refills them; the first level, one empty board that nothing refills, stays.
    pub(super) fn release_source(&mut self, level: usize) {
        if level > 0 {
            self.levels[level].release();
        }
    }

    /// Readies the boards of `level`, the last north row, for the tail, ranked by
    /// `transposes` as the boards of `side`, unless they are readied already; the boards
    /// it readied.
    pub(super) fn end_north(
        &mut self,
        geometry: &Geometry,
        level: usize,
        table: &TailTable,
        transposes: &Transposes,
        side: Side,
    ) -> usize {
        if self.north_level == Some(level) {
            return 0;
        }
        let boards = self.levels[level].as_slice();
        self.north.fill(geometry, boards, table, transposes, side);
        self.north_level = Some(level);
        boards.len()
    }

    /// The row a fill of `level` places in `row`, on a column of `open`.
    fn next_row(&self, n: usize, level: usize, row: usize, open: u64) -> NextRow {
        NextRow { row, fall: n - 1 - row, columns: self.columns, open, free: self.quota - level }
    }

    /// How many boards each of the `boards` of `level` would extend to with a queen in
    /// `row` on a column of `open`: the candidates a fill keeps, without writing them.
    pub(super) fn extensions(
        &self,
        n: usize,
        level: usize,
        boards: Range<usize>,
        row: usize,
        open: u64,
    ) -> impl Iterator<Item = usize> + '_ {
        let next = self.next_row(n, level, row, open);
        self.levels[level].as_slice()[boards].iter().map(move |board| {
            let (candidates, open) = next.candidates(board);
            (candidates & open).count_ones() as usize
        })
    }

    /// Places a queen of this half's `level`-th row in `row`, on a column of `open`, on
    /// each of the `boards` of that level, noting what `note` says; false if no board is
    /// left. Where `kept`, the boards the fill keeps, is counted
    /// ([`Half::extensions`]), the list's room is that many; otherwise every candidate's.
    #[expect(clippy::too_many_arguments, reason = "one fill's row, its boards and its room")]
    pub(super) fn place(
        &mut self,
        n: usize,
        level: usize,
        boards: Range<usize>,
        row: usize,
        open: u64,
        note: Note,
        kept: Option<usize>,
    ) -> bool {
        let next_row = self.next_row(n, level, row, open);
        if self.north_level == Some(level + 1) {
            self.north_level = None;
        }
        let (done, next) = self.levels.split_at_mut(level + 1);
        let from = &done[level].as_slice()[boards];
        // One more than the kept boards: a fill writes each candidate after the kept ones
        // before it knows whether to keep it.
        let (bound, most) = match kept {
            Some(kept) => (kept + 1, kept + 1),
            None => (from.len() * next_row.free, usize::MAX),
        };
        next[0].refill(bound, most, |to| match note {
            Note::Nothing => write_extensions::<{ Note::Nothing as u8 }>(from, next_row, to),
            Note::Column => write_extensions::<{ Note::Column as u8 }>(from, next_row, to),
            Note::MirroredColumn => {
                write_extensions::<{ Note::MirroredColumn as u8 }>(from, next_row, to)
            }
        });
        next[0].len() > 0
    }

    /// Fills the signatures with the complete half-boards of the north boards of `piece`
    /// and the tail rows `subset`, in room for at most `most` signatures unless the piece
    /// writes more: those of the north boards ranking at least the row set's least `rank`,
    /// in [`Stretches`].
    pub(super) fn fill_signatures(
        &mut self,
        table: &TailTable,
        subset: usize,
        piece: &Piece,
        most: usize,
        rank: LinesRank,
        kernel: PairKernel,
    ) {
        let north = &self.north;
        let ranked_runs = &mut self.ranked_runs;
        let mut stretches = Stretches::default();
        // One more than the piece writes: a scalar fill writes each candidate after the
        // kept ones before it knows whether to keep it.
        self.signatures.refill(piece.signatures + 1, most, |mut to| {
            let runs = north.runs_within(&piece.boards);
            ranked_runs.clear();
            // A run whose group is empty writes nothing, so it is not cut. The others'
            // groups lie anywhere in a table of many megabytes: asked for here, they reach
            // the cache while the runs are cut, before the first stretch reads them.
            let joined = runs.filter(|&(free, _)| {
                let group = table.group(subset, free);
                if let (Some(meets), Some(signatures)) =
                    (group.meets.first(), group.signatures.first())
                {
                    prefetch(meets);
                    prefetch(signatures);
                }
                group.len() > 0
            });
            ranked_runs
                .extend(joined.map(|(free, boards)| RankedRun::of(north, free, boards, rank)));
            let mut ends = [0; 4];
            for (stretch, end) in ends.iter_mut().enumerate() {
                for run in ranked_runs.iter() {
                    let boards = &north.boards[run.cuts[stretch]..run.cuts[stretch + 1]];
                    // Most runs are empty in some stretches, and a join with no north
                    // boards still loads its group: skipped, N = 21 took 0.98 of the time.
                    if !boards.is_empty() {
                        to = signatures::write(kernel, boards, table.group(subset, run.free), to);
                    }
                }
                *end = to.kept();
            }
            stretches = Stretches { above: ends[0], greatest: ends[1], between: ends[2] };
            to
        });
        self.stretches = stretches;
    }
}

/// Writes every board of `from` with one more queen in `next.row`, on a column of the half
/// that the board has free and that is open and not attacked by the board, noting what
/// `NOTE` says (a [`Note`], a constant so that each kind of fill has its own loop and the
/// fills that note nothing carry no step for it). Every free column is written and only
/// the good ones kept, so the loop has no unpredictable branch.
fn write_extensions<'w, const NOTE: u8>(
    from: &[HalfBoard],
    next: NextRow,
    mut to: Writer<'w, HalfBoard>,
) -> Writer<'w, HalfBoard> {
    for board in from {
        let (mut candidates, open) = next.candidates(board);
        for _ in 0..next.free {
            let bit = candidates & candidates.wrapping_neg();
            candidates ^= bit;
            let mut extended = board.with_queen(bit, next.row, next.fall);
            if NOTE == Note::Column as u8 {
                extended.columns |= bit << NORTH_COLUMNS;
            } else if NOTE == Note::MirroredColumn as u8 {
                // The falling diagonal's offset is `N - 1 - row`.
                let n = next.row + next.fall + 1;
                extended.columns |= (bit.reverse_bits() >> (64 - n)) << NORTH_COLUMNS;
            }
            to.push(extended, open & bit != 0);
        }
    }
    to
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every extension a fill keeps, and only those, against the rules of the board: a
    /// column of the half that no queen holds, open in the row, and on no diagonal of a
    /// queen already placed.
    #[test]
    fn a_fill_keeps_exactly_the_extensions_that_attack_nothing() {
        let n = 8;
        let half_columns = 0b1111u64;
        let queens = [(0usize, 0usize), (1, 2)];
        let board = queens.iter().fold(HalfBoard::default(), |board, &(row, column)| {
            board.with_queen(1 << column, row, n - 1 - row)
        });
        for open in [0b1111, 0b0111, 0b0010] {
            let row = 3;
            let free = half_columns.count_ones() as usize - queens.len();
            let next = NextRow { row, fall: n - 1 - row, columns: half_columns, open, free };
            let mut list = Refill::<HalfBoard>::default();
            list.refill(next.free, usize::MAX, |to| {
                write_extensions::<{ Note::Nothing as u8 }>(&[board], next, to)
            });
            let kept: Vec<u64> =
                list.as_slice().iter().map(|b| b.columns & !board.columns).collect();
            let expected: Vec<u64> = (0..4)
                .filter(|&column| {
                    let taken = queens.iter().any(|&(_, c)| c == column);
                    let attacked = queens.iter().any(|&(r, c)| row - r == column.abs_diff(c));
                    !taken && !attacked && open & (1 << column) != 0
                })
                .map(|column| 1u64 << column)
                .collect();
            assert_eq!(kept, expected, "open {open:04b}");
            let mut north = Refill::<HalfBoard>::default();
            north.refill(next.free, usize::MAX, |to| {
                write_extensions::<{ Note::Column as u8 }>(&[board], next, to)
            });
            for extended in north.as_slice() {
                let placed = extended.columns & half_columns & !board.columns;
                assert_eq!(extended.columns >> NORTH_COLUMNS, placed, "the north column noted");
            }
            let mut middle = Refill::<HalfBoard>::default();
            middle.refill(next.free, usize::MAX, |to| {
                write_extensions::<{ Note::MirroredColumn as u8 }>(&[board], next, to)
            });
            for extended in middle.as_slice() {
                let placed = extended.columns & half_columns & !board.columns;
                let mirrored = placed.reverse_bits() >> (64 - n);
                assert_eq!(extended.columns >> NORTH_COLUMNS, mirrored, "the column mirrored");
            }
        }
    }

    #[test]
    fn the_bytes_held_follow_every_list() {
        let mut half = Half::new(0b1111);
        let start = half.held_bytes();
        assert!(half.place(8, 0, 0..1, 0, 0b1111, Note::Nothing, None));
        let placed = half.held_bytes();
        assert!(placed > start, "{start} then {placed}");
        half.release_after(0, false);
        assert_eq!(half.held_bytes(), start);
    }
}
