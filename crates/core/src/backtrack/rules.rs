//! What a backtracking search may place, and how it scores a finished board.
//!
//! A [`Rules`] value restricts the columns below one kind of first-row placement (a *root*)
//! and scores completed boards. Every rule set also has a table form, [`LaneRules`]: the
//! allowed columns per row, the cells that count as ties, and one optional "outer columns
//! due" row, which is all the lane-parallel kernels (`super::lanes`) can follow.

use crate::kernel::MAX_LANE_N;
use crate::mask::{MAX_N, Mask};
use crate::placement::Placement;

/// What a search found, in the narrow counters the hot loop can afford. A `u64` cannot
/// wrap here: it would take centuries of single-core counting to reach 2^64 increments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct SearchCount {
    /// Completed boards by their number of ties: other edges as near a corner as the top
    /// edge (`super::eightfold::Border`); the other rules use only `leaves[0]`.
    pub(super) leaves: [u64; 4],
    /// Placements made, when counted.
    pub(super) nodes: u64,
}

/// The restrictions of one kind of root.
pub(super) trait Rules<M: Mask>: Clone {
    /// Whether the leaf reads the rows above the last; if not, the search skips recording them.
    const READS_BOARD: bool;
    /// The columns `row` may take, given its free columns and the columns taken above it.
    fn allowed(&self, row: usize, free: M, down: M) -> M;
    /// Scores a board whose last row may take the columns in `last` (none if empty).
    /// With [`Rules::READS_BOARD`], `board` holds every row, the last one being `last`.
    fn leaf(&self, board: &[M], last: M, tally: &mut SearchCount);
}

/// A rule set in table form, row by row, as the lane kernels read it.
#[derive(Clone, Debug)]
pub(super) struct LaneRules {
    pub(super) n: usize,
    /// The columns each row may take at most.
    pub(super) allowed: [u32; MAX_LANE_N],
    /// The cells of each row that count as a tie.
    pub(super) ties: [u32; MAX_LANE_N],
    /// A row by which both of two outer columns must be taken, and those columns: that row
    /// may take only an outer column while one is free, and nothing while both are.
    pub(super) outer_due: Option<(usize, u32)>,
}

impl LaneRules {
    /// Rules for an `n`-board whose rows may take the columns in `allowed` and know no ties;
    /// `n` must not exceed [`MAX_LANE_N`].
    pub(super) fn new(n: usize, allowed: &[u32]) -> LaneRules {
        let mut rules =
            LaneRules { n, allowed: [0; MAX_LANE_N], ties: [0; MAX_LANE_N], outer_due: None };
        rules.allowed[..n].copy_from_slice(&allowed[..n]);
        rules
    }
}

/// No restriction: every solution below the root is counted.
#[derive(Clone, Debug)]
pub(super) struct Unrestricted;

impl<M: Mask> Rules<M> for Unrestricted {
    const READS_BOARD: bool = false;

    #[inline(always)]
    fn allowed(&self, _row: usize, free: M, _down: M) -> M {
        free
    }

    #[inline(always)]
    fn leaf(&self, _board: &[M], last: M, tally: &mut SearchCount) {
        // Branch-free: whether a board completes is a coin flip the predictor cannot learn.
        tally.leaves[0] += u64::from(!last.is_empty());
    }
}

impl Unrestricted {
    pub(super) fn lane_rules(n: usize) -> LaneRules {
        LaneRules::new(n, &[u32::low_bits(n as u32); MAX_LANE_N])
    }
}

/// Counts only the boards that hold a placement's queens.
///
/// The row-by-row masks of the search know only the queens above the current row. A queen
/// fixed in a lower row must still keep its column and its two diagonals free above it, so
/// every open row gets a filter that removes those cells before the search reaches them;
/// a fixed row's filter is its queen's column alone.
#[derive(Clone, Debug)]
pub(super) struct Placed<M> {
    /// The columns each row may take at most: the fixed column in a fixed row; elsewhere
    /// every cell off the fixed queens' columns and diagonals.
    row_filter: [M; MAX_N],
    /// The last row's filter, which the leaf applies: the search never calls
    /// [`Rules::allowed`] for the last row.
    last_filter: M,
}

impl<M: Mask> Placed<M> {
    pub(super) fn new(n: usize, placement: &Placement) -> Placed<M> {
        let mut row_filter = [M::low_bits(n as u32); MAX_N];
        for (row, filter) in row_filter.iter_mut().enumerate().take(n) {
            if let Some(column) = placement.column(row) {
                *filter = M::bit(column as u32);
                continue;
            }
            for (fixed_row, column) in placement.queens() {
                let distance = row.abs_diff(fixed_row);
                *filter &= !M::bit(column as u32);
                if column + distance < n {
                    *filter &= !M::bit((column + distance) as u32);
                }
                if let Some(left) = column.checked_sub(distance) {
                    *filter &= !M::bit(left as u32);
                }
            }
        }
        Placed { row_filter, last_filter: row_filter[n - 1] }
    }
}

impl<M: Mask> Rules<M> for Placed<M> {
    const READS_BOARD: bool = false;

    #[inline(always)]
    fn allowed(&self, row: usize, free: M, _down: M) -> M {
        free & self.row_filter[row]
    }

    #[inline(always)]
    fn leaf(&self, _board: &[M], last: M, tally: &mut SearchCount) {
        tally.leaves[0] += u64::from(!(last & self.last_filter).is_empty());
    }
}

impl Placed<u32> {
    pub(super) fn lane_rules(&self, n: usize) -> LaneRules {
        LaneRules::new(n, &self.row_filter)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_rows_keep_off_the_fixed_lines() {
        let placement = Placement::new(5, &[(2, 2)]).unwrap();
        let rules = Placed::<u64>::new(5, &placement);
        assert_eq!(rules.row_filter[2], 0b00100);
        assert_eq!(rules.row_filter[0], 0b01010);
        assert_eq!(rules.row_filter[1], 0b10001);
        assert_eq!(rules.row_filter[3], 0b10001);
        assert_eq!(rules.last_filter, 0b01010);
    }
}
