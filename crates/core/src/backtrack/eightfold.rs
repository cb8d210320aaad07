//! The eightfold count: every solution counted once through the edge of the board whose
//! queen is nearest a corner.
//!
//! A queen in a corner is counted through the [`Corner`] roots, the other solutions through
//! the [`Border`] roots, which count the boards whose top edge is nearest and tally them by
//! how many other edges are as near. A board with `k` such ties stands for `8 / (k + 1)`
//! solutions; [`EdgeRoot::weigh`] turns a tally into solutions, and the one share that is
//! not whole, 8/3, into thirds that [`crate::Counts`] carries until the count is complete.

use super::rules::{LaneRules, Rules, SearchCount};
use crate::mask::{MAX_N, Mask};

/// The smallest board the edge roots apply to: they need room for their bounds, so smaller
/// boards are mirrored in half instead.
pub(super) const MIN_N: usize = 5;

/// One first-row placement of the eightfold count, and the bound it sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum EdgeRoot {
    /// The first queen in the corner, the second at `(1, bound1)`.
    Corner { bound1: usize },
    /// The first queen at `(0, bound1)`, no queen in a corner.
    Border { bound1: usize },
}

impl EdgeRoot {
    /// The first rows of every root of an `n`-board, `n >= MIN_N`: the corner roots by the
    /// second row's column, then the border roots left of the middle.
    pub(super) fn prefixes(n: usize) -> Vec<Vec<u8>> {
        let n = n as u8;
        let corners = (2..n - 1).map(|b| vec![0, b]);
        let sides = (1..n).take_while(|&b| b < n - 1 - b).map(|b| vec![b]);
        corners.chain(sides).collect()
    }

    /// The root `prefix` descends from, if it is one of [`EdgeRoot::prefixes`] or below one.
    pub(super) fn of(n: usize, prefix: &[u8]) -> Option<EdgeRoot> {
        let first = usize::from(*prefix.first()?);
        if first == 0 {
            let bound1 = usize::from(*prefix.get(1)?);
            return (2..n - 1).contains(&bound1).then_some(EdgeRoot::Corner { bound1 });
        }
        (first < n - 1 - first).then_some(EdgeRoot::Border { bound1: first })
    }

    /// The solutions a tally below this root stands for, as whole solutions and thirds
    /// (0, 1 or 2), or `None` on overflow.
    pub(super) fn weigh(self, leaves: [u128; 4]) -> Option<(u128, u128)> {
        match self {
            EdgeRoot::Corner { .. } => Some((leaves[0].checked_mul(8)?, 0)),
            // A board with k ties stands for 8 / (k + 1) solutions; only 8 / 3 leaves a
            // fraction, which is kept in thirds.
            EdgeRoot::Border { .. } => {
                let [alone, one_tie, two_ties, three_ties] = leaves;
                let thirds = two_ties.checked_mul(8)?;
                let whole = alone
                    .checked_mul(8)?
                    .checked_add(one_tie.checked_mul(4)?)?
                    .checked_add(thirds / 3)?
                    .checked_add(three_ties.checked_mul(2)?)?;
                Some((whole, thirds % 3))
            }
        }
    }
}

/// Below a queen in the top-left corner and one at `(1, bound1)`: the transposed board is
/// the same class, so only boards whose column-1 queen lies below row `bound1` are kept.
/// Each such board stands for 8 solutions (no other corner can hold a queen).
#[derive(Clone)]
pub(super) struct Corner<M> {
    /// The columns each row may take at most: all but column 1 above `bound1`.
    row_filter: [M; MAX_N],
}

impl<M: Mask> Corner<M> {
    pub(super) fn new(bound1: usize) -> Corner<M> {
        let mut row_filter = [!M::ZERO; MAX_N];
        row_filter[..bound1].fill(!M::bit(1));
        Corner { row_filter }
    }
}

impl<M: Mask> Rules<M> for Corner<M> {
    const READS_BOARD: bool = false;

    #[inline(always)]
    fn allowed(&self, row: usize, free: M, _down: M) -> M {
        free & self.row_filter[row]
    }

    #[inline(always)]
    fn leaf(&self, _board: &[M], last: M, tally: &mut SearchCount) {
        tally.leaves[0] += u64::from(!last.is_empty());
    }
}

impl Corner<u32> {
    pub(super) fn lane_rules(&self, n: usize) -> LaneRules {
        let full = u32::low_bits(n as u32);
        LaneRules::new(n, &self.row_filter.map(|filter| filter & full))
    }
}

/// Below a first-row queen at column `bound1`, left of the middle, with no queen in a
/// corner: the boards on which no edge's queen is nearer a corner than the top edge's.
///
/// Each edge (top and bottom row, left and right column) holds one queen; its *distance*
/// is how far that queen stands from the nearer end of the edge. Of every solution, the
/// four rotations put each edge on top once and the mirror puts the top queen in the left
/// half, so counting the solutions whose top edge is nearest, in the left half, eight
/// times, counts every solution once, provided a solution with `k` other edges as near as
/// the top (ties) counts `1 / (k + 1)` each time. The bounds are on the outer columns near
/// the top and bottom and on the last row; ties are the outer columns in rows `bound1` and
/// `n - 1 - bound1` and the columns `bound1` and `n - 1 - bound1` in the last row. Unlike
/// the classic scheme, whose ties are broken by comparing the board with its rotations,
/// nothing here reads the finished board but three of its rows, so the lane-parallel
/// kernel can follow these rules too.
#[derive(Clone)]
pub(super) struct Border<M> {
    bound1: usize,
    /// The columns each row above the last may take at most: no outer column nearer the
    /// top or bottom than `bound1`.
    row_filter: [M; MAX_N],
    /// The row by which both outer columns must be taken.
    bound2: usize,
    outer: M,
    /// The last row's columns nearer its ends than `bound1`.
    last_forbidden: M,
    /// The last row's columns as near its ends as `bound1`.
    last_ties: M,
}

impl<M: Mask> Border<M> {
    pub(super) fn new(n: usize, bound1: usize) -> Border<M> {
        let outer = M::bit(n as u32 - 1) | M::ONE;
        let low = M::low_bits(bound1 as u32);
        let mut row_filter = [!M::ZERO; MAX_N];
        row_filter[1..bound1].fill(!outer);
        row_filter[n - bound1..n - 1].fill(!outer);
        Border {
            bound1,
            row_filter,
            bound2: n - 1 - bound1,
            outer,
            last_forbidden: low | (low << (n - bound1) as u32),
            last_ties: M::bit(bound1 as u32) | M::bit((n - 1 - bound1) as u32),
        }
    }
}

impl<M: Mask> Rules<M> for Border<M> {
    const READS_BOARD: bool = true;

    #[inline(always)]
    fn allowed(&self, row: usize, free: M, down: M) -> M {
        if row == self.bound2 {
            // The outer columns are closed below this row: both must be taken by now.
            let outer_taken = down & self.outer;
            if outer_taken.is_empty() {
                M::ZERO
            } else if outer_taken != self.outer {
                free & self.outer
            } else {
                free
            }
        } else {
            free & self.row_filter[row]
        }
    }

    #[inline(always)]
    fn leaf(&self, board: &[M], last: M, tally: &mut SearchCount) {
        if !last.is_empty() && (last & self.last_forbidden).is_empty() {
            let ties = usize::from(!(board[self.bound1] & self.outer).is_empty())
                + usize::from(!(board[self.bound2] & self.outer).is_empty())
                + usize::from(!(last & self.last_ties).is_empty());
            tally.leaves[ties] += 1;
        }
    }
}

impl Border<u32> {
    pub(super) fn lane_rules(&self, n: usize) -> LaneRules {
        let full = u32::low_bits(n as u32);
        let mut allowed = self.row_filter.map(|filter| filter & full);
        allowed[n - 1] = full & !self.last_forbidden;
        let mut rules = LaneRules::new(n, &allowed);
        rules.ties[self.bound1] = self.outer;
        rules.ties[self.bound2] = self.outer;
        rules.ties[n - 1] = self.last_ties;
        rules.outer_due = Some((self.bound2, self.outer));
        rules
    }
}
