//! The transposes on an even board: of a solution and its transpose, which the join
//! counts, and how often.
//!
//! An even board's row sets use the four reflections that keep the west-east cut
//! ([`super::split`]). The other four symmetries are those reflections after the
//! transpose, which swaps rows with columns: it maps a solution's row set (the rows of its
//! west queens) to the columns of its north queens, and those back to the row set. Both
//! are sets of N/2 of the N lines, so one rank of such sets, which the reflections keep,
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

/// The rank of a subset of one half's lines, up to complement.
pub(super) type Rank = u16;

/// The rank of a set of `N / 2` lines: the lesser of its two halves' ranks, then the
/// greater, compared in that order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct LinesRank {
    pub(super) least: Rank,
    pub(super) greatest: Rank,
}

/// The ranks of an even board's sets of lines.
#[derive(Clone, Debug)]
pub(super) struct Transposes {
    n: usize,
    /// Per subset of one half's lines (as bits from line 0), its rank up to complement.
    ranks: Vec<Rank>,
}

impl Transposes {
    /// The ranks of an even `n`-board's sets of lines, `n <= 32`.
    ///
    /// Any order of the subsets of a half up to complement counts exactly; they differ in
    /// how many pairs the half-boards ranking below their row set leave out. Balanced
    /// subsets, whose lines lie evenly about the middle of the half, rank lowest: of the
    /// orders measured (docs/measurements/join.md), that left the fewest pairs to test.
    pub(super) fn new(n: usize) -> Transposes {
        let half = n / 2;
        let every = (1usize << half) - 1;
        let up_to_complement = |set: usize| set.min(every & !set);
        // Twice the sum of the lines' offsets from the half's middle, which the complement
        // negates.
        let imbalance = |set: usize| {
            let offsets = (0..half).filter(|&line| set >> line & 1 == 1);
            offsets.map(|line| 2 * line as i64 - (half as i64 - 1)).sum::<i64>().unsigned_abs()
        };
        let mut classes: Vec<usize> = (0..=every).map(up_to_complement).collect();
        classes.sort_unstable_by_key(|&set| (imbalance(set), set));
        classes.dedup();
        let mut ranks = vec![0; every + 1];
        for (rank, &set) in classes.iter().enumerate() {
            ranks[set] = rank as Rank;
            ranks[every & !set] = rank as Rank;
        }
        Transposes { n, ranks }
    }

    /// How many ranks a subset of one half's lines can have: one per pair of a subset and
    /// its complement.
    pub(super) fn ranks(&self) -> usize {
        self.ranks.len() / 2
    }

    /// The rank of the lines of `lines` below the middle, up to complement.
    pub(super) fn of_near(&self, lines: u64) -> Rank {
        self.ranks[(lines & (self.ranks.len() as u64 - 1)) as usize]
    }

    /// The rank of the lines of `lines` above the middle mirrored onto those below (`x` to
    /// `N - 1 - x`), up to complement.
    pub(super) fn of_far(&self, lines: u64) -> Rank {
        self.of_near(lines.reverse_bits() >> (64 - self.n))
    }

    /// The rank of the set `lines` of `N / 2` lines. For the columns of a solution's north
    /// queens, its halves' ranks are [`Transposes::of_near`] of the west half-board's and
    /// [`Transposes::of_far`] of the east's.
    pub(super) fn of_lines(&self, lines: u64) -> LinesRank {
        let (near, far) = (self.of_near(lines), self.of_far(lines));
        LinesRank { least: near.min(far), greatest: near.max(far) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reflections_keep_a_rank() {
        for n in (4..=12).step_by(2) {
            let transposes = Transposes::new(n);
            let all = (1u64 << n) - 1;
            let mirrored = |lines: u64| lines.reverse_bits() >> (64 - n);
            for lines in (0..=all).filter(|lines| lines.count_ones() as usize == n / 2) {
                let rank = transposes.of_lines(lines);
                assert_eq!(transposes.of_lines(mirrored(lines)), rank, "N = {n}, {lines:b}");
                assert_eq!(transposes.of_lines(all & !lines), rank, "N = {n}, {lines:b}");
            }
        }
    }
}
