//! The transposes: of a solution and its transpose, which the join counts, and how often.
//!
//! A board's row sets use the four reflections that keep the west-east cut
//! ([`super::split`]). The other four symmetries are those reflections after the
//! transpose, which swaps rows with columns: it maps a solution's row set (the rows of its
//! west queens) to the columns of its north queens (those above the middle row), and those
//! back to the row set. So one rank of such sets of lines, which the reflections keep,
//! compares them. A solution counts twice if its columns rank above its row set, once if
//! they rank the same, and not at all if below: a solution and its transpose then count
//! two between them, and every orbit of the eight symmetries its size.
//!
//! A set of lines is ranked by two ranks of subsets of one half: of its lines below the
//! middle, and of its lines above the middle mirrored onto them (line `x` onto
//! `N - 1 - x`), each up to its complement within the half. The lesser of the two decides,
//! and the greater breaks ties. The mirror swaps the two and the complement complements
//! both, so the reflections keep the rank. For the columns of a solution's north queens,
//! the lines below the middle are the west half-board's and those above the east's: a
//! solution counts at all only if each half-board ranks at least the lesser of its row
//! set's two, so each half-board is tested alone, before any pair, and those ranking below
//! are never joined.
//!
//! On an odd board the middle line is in neither half, and a set of lines leaves one more
//! line out: the row set, the row of the middle column's queen (which is neither west nor
//! east); the columns, the column of the middle row's queen (neither north nor south).
//! The reflections complement a set within the lines it leaves, so a half's subset is
//! ranked up to its complement within the half less that line, if it is the half's: a
//! rank per subset and left-out line. The transpose swaps the two left-out lines with the
//! two sets, so the argument above holds as it is. The half-board that holds the middle
//! row notes its queen's column mirrored into the other half's lines (board.rs): there it
//! meets none of the half-board's own columns, and mirrored it is already a line of the
//! half-board's own half, as the rank reads it.

use super::board::Side;

/// The rank of a subset of one half's lines, up to complement.
pub(super) type Rank = u16;

/// The rank of a set of lines: the lesser of its two halves' ranks, then the greater,
/// compared in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LinesRank {
    pub(super) least: Rank,
    pub(super) greatest: Rank,
}

/// The ranks of a board's sets of lines.
#[derive(Clone, Debug)]
pub(super) struct Transposes {
    n: usize,
    half: usize,
    /// Per line a half may leave out (none first, then each line of the half) and per
    /// subset of the half's lines (as bits from line 0), its rank up to complement within
    /// the half less that line.
    ranks: Vec<Rank>,
    /// How many ranks there are.
    rank_count: usize,
}

impl Transposes {
    /// The ranks of an `n`-board's sets of lines, `n <= 32`.
    ///
    /// Any order of the subsets of a half up to complement counts exactly; they differ in
    /// how many pairs the half-boards ranking below their row set leave out. Balanced
    /// subsets, whose lines lie evenly about the middle of the half, rank lowest: of the
    /// orders measured (docs/measurements/join.md), that left the fewest pairs to test.
    /// Every subset and left-out line has a rank of its own unless there are more than a
    /// [`Rank`] holds (N = 31), when neighbours in that order share one.
    pub(super) fn new(n: usize) -> Transposes {
        let half = n / 2;
        let subsets = 1usize << half;
        // An even board's sets leave no line out.
        let left_out_lines = if n.is_multiple_of(2) { 0 } else { half };
        let offset = |line: usize| 2 * line as i64 - (half as i64 - 1);
        let sum =
            |set: usize| (0..half).filter(|&line| set >> line & 1 == 1).map(offset).sum::<i64>();
        let mut classes = Vec::new();
        // Universe 0 leaves no line out, universe `k + 1` line `k`.
        let lines_of =
            |universe: usize| (subsets - 1) & !universe.checked_sub(1).map_or(0, |line| 1 << line);
        for universe in 0..=left_out_lines {
            let lines = lines_of(universe);
            for set in (0..subsets).filter(|&set| set & !lines == 0) {
                let complement = lines & !set;
                if set <= complement {
                    // How far the set lies off the middle against its complement, which
                    // the complement leaves as it is.
                    let imbalance = (2 * sum(set) - sum(lines)).unsigned_abs();
                    classes.push((imbalance, universe, set));
                }
            }
        }
        classes.sort_unstable();
        let rank_count = classes.len().min(usize::from(Rank::MAX) + 1);
        let mut ranks = vec![0; (left_out_lines + 1) * subsets];
        for (index, &(_, universe, set)) in classes.iter().enumerate() {
            let rank = (index * rank_count / classes.len()) as Rank;
            let lines = lines_of(universe);
            ranks[universe * subsets + set] = rank;
            ranks[universe * subsets + (lines & !set)] = rank;
        }
        Transposes { n, half, ranks, rank_count }
    }

    /// How many ranks a subset of one half's lines can have.
    pub(super) fn ranks(&self) -> usize {
        self.rank_count
    }

    /// The rank of the subset `lines` of one half's lines (below the middle), up to its
    /// complement within the half less the line whose bit `left_out_bit` holds, if any.
    fn of_subset(&self, lines: u64, left_out_bit: u64) -> Rank {
        debug_assert!(left_out_bit.count_ones() <= 1, "{left_out_bit:b}");
        let subsets = 1u64 << self.half;
        let universe =
            if left_out_bit == 0 { 0 } else { u64::from(left_out_bit.trailing_zeros()) + 1 };
        self.ranks[(universe * subsets + (lines & (subsets - 1))) as usize]
    }

    /// The lines of `lines` above the middle, mirrored onto those below (`x` to `N - 1 - x`).
    fn mirrored(&self, lines: u64) -> u64 {
        (lines.reverse_bits() >> (64 - self.n)) & ((1 << self.half) - 1)
    }

    /// The lines of `lines` below the middle.
    fn near(&self, lines: u64) -> u64 {
        lines & ((1 << self.half) - 1)
    }

    /// The rank of a half-board on `side` whose north queens' columns are `columns`, with
    /// the column of its middle-row queen, if it has one, mirrored into the other half
    /// (`HalfBoard::north_columns`).
    pub(super) fn of_board(&self, side: Side, columns: u64) -> Rank {
        let (near, mirrored) = (self.near(columns), self.mirrored(columns));
        match side {
            Side::West => self.of_subset(near, mirrored),
            Side::East => self.of_subset(mirrored, near),
        }
    }

    /// The rank of the set `lines`, which leaves out the line `left_out` besides the
    /// middle on an odd board. For the columns of a solution's north queens, its halves'
    /// ranks are [`Transposes::of_board`] of the west and the east half-board.
    pub(super) fn of_lines(&self, lines: u64, left_out: Option<usize>) -> LinesRank {
        let left_out = left_out.map_or(0, |line| 1u64 << line);
        let near = self.of_subset(self.near(lines), self.near(left_out));
        let far = self.of_subset(self.mirrored(lines), self.mirrored(left_out));
        LinesRank { least: near.min(far), greatest: near.max(far) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The four reflections keep the rank of every set of lines a row set or the columns
    /// of north queens can be: on an odd board, the set leaves out the middle line and one
    /// more, and the complement is taken within the rest.
    #[test]
    fn the_reflections_keep_a_rank() {
        for n in 4..=13 {
            let transposes = Transposes::new(n);
            let middle = (n % 2 == 1).then_some(n / 2);
            let all = ((1u64 << n) - 1) & !middle.map_or(0, |line| 1 << line);
            let mirrored = |lines: u64| lines.reverse_bits() >> (64 - n);
            let left_outs: Vec<Option<usize>> = match middle {
                None => vec![None],
                Some(middle) => (0..n).filter(|&line| line != middle).map(Some).collect(),
            };
            for left_out in left_outs {
                let rest = all & !left_out.map_or(0, |line| 1 << line);
                let image = left_out.map(|line| n - 1 - line);
                for lines in (0..=all).filter(|&lines| lines & !rest == 0) {
                    let rank = transposes.of_lines(lines, left_out);
                    assert!(usize::from(rank.greatest) < transposes.ranks());
                    let mirror = transposes.of_lines(mirrored(lines), image);
                    assert_eq!(mirror, rank, "N = {n}, {lines:b} without {left_out:?}");
                    let complement = transposes.of_lines(rest & !lines, left_out);
                    assert_eq!(complement, rank, "N = {n}, {lines:b} without {left_out:?}");
                }
            }
        }
    }

    /// A half-board's rank is its columns' half of the rank of the set of lines, with the
    /// line the middle row's queen leaves out, whichever half holds that queen.
    #[test]
    fn a_half_board_ranks_its_half_of_the_columns() {
        let n = 11;
        let transposes = Transposes::new(n);
        let mirrored = |line: usize| 1u64 << (n - 1 - line);
        let (west, east) = (1 << 0 | 1 << 3, 1 << 7 | 1 << 9);
        // The middle row's queen in column 1 (west), then in column 8 (east).
        for (middle_queen, west_note, east_note) in [(1, mirrored(1), 0), (8, 0, mirrored(8))] {
            let lines = transposes.of_lines(west | east, Some(middle_queen));
            let halves = [
                transposes.of_board(Side::West, west | west_note),
                transposes.of_board(Side::East, east | east_note),
            ];
            assert_eq!(lines.least, halves[0].min(halves[1]), "queen in {middle_queen}");
            assert_eq!(lines.greatest, halves[0].max(halves[1]), "queen in {middle_queen}");
        }
    }

    /// N = 31 has more classes than a rank holds: neighbours share one, the reflections
    /// still keep every rank, and every rank is below the count.
    #[test]
    fn the_largest_odd_board_shares_ranks_and_keeps_them() {
        let n = 31;
        let transposes = Transposes::new(n);
        assert_eq!(transposes.ranks(), usize::from(Rank::MAX) + 1);
        let all = ((1u64 << n) - 1) & !(1 << (n / 2));
        let mirrored = |lines: u64| lines.reverse_bits() >> (64 - n);
        let mut lines = 0x2a5a_5a5au64 & all;
        for left_out in [0, 4, 20, 30] {
            let rest = all & !(1 << left_out);
            for _ in 0..200 {
                lines =
                    (lines.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1) >> 17) & rest;
                let rank = transposes.of_lines(lines, Some(left_out));
                assert!(usize::from(rank.greatest) < transposes.ranks());
                assert_eq!(transposes.of_lines(mirrored(lines), Some(n - 1 - left_out)), rank);
                assert_eq!(transposes.of_lines(rest & !lines, Some(left_out)), rank);
            }
        }
    }
}
