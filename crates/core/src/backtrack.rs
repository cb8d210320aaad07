//! The bitmask backtracking engine.
//!
//! A search fills rows top to bottom. For each row it keeps three masks of attacked columns:
//! `down` (columns taken), `left` and `right` (diagonals, shifted one column per row). The
//! free columns of a row are `full & !(left | down | right)`; the lowest is peeled off with
//! `x & -x` and the next row is entered with the masks shifted.
//!
//! A [`Rules`] value restricts the columns below one kind of first-row placement (a *root*)
//! and scores completed boards. The eightfold rules count each solution through the edge
//! of the board whose queen is nearest a corner: a queen in a corner through the corner
//! root, the others through a [`Border`] root, which counts the boards whose top edge is
//! nearest and tallies them by how many other edges are as near (see [`Border`]).
//!
//! Every rule set is also a table of allowed columns per row ([`LaneTables`]), the form
//! in which the lane-parallel kernel (`crate::lanes`) follows it sixteen boards at a time.

use crate::lanes::LaneRules;
use crate::mask::Mask;

/// What a search found, in the narrow counters the hot loop can afford. A `u64` cannot
/// wrap here: it would take centuries of single-core counting to reach 2^64 increments.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Tally {
    /// Completed boards by their number of ties: other edges as near a corner as the top
    /// edge ([`Border`]); the other rules use only `leaves[0]`.
    pub(crate) leaves: [u64; 4],
    /// Placements made, when counted.
    pub(crate) nodes: u64,
}

/// The restrictions of one kind of root.
pub(crate) trait Rules<M: Mask>: Clone {
    /// Whether the leaf reads the rows above the last; if not, the search skips recording them.
    const READS_BOARD: bool;
    /// The columns `row` may take, given its free columns and the columns taken above it.
    fn allowed(&self, row: usize, free: M, down: M) -> M;
    /// Scores a board whose last row may take the columns in `last` (none if empty).
    /// With [`Rules::READS_BOARD`], `board` holds every row, the last one being `last`.
    fn leaf(&self, board: &[M], last: M, tally: &mut Tally);
}

/// Rules as the lane-parallel kernel reads them; built from the `u32` instance of the rules.
pub(crate) trait LaneTables {
    fn lane_rules(&self, n: usize) -> LaneRules;
}

/// No restriction: every solution below the root is counted.
#[derive(Clone)]
pub(crate) struct Unrestricted;

impl<M: Mask> Rules<M> for Unrestricted {
    const READS_BOARD: bool = false;

    #[inline(always)]
    fn allowed(&self, _row: usize, free: M, _down: M) -> M {
        free
    }

    #[inline(always)]
    fn leaf(&self, _board: &[M], last: M, tally: &mut Tally) {
        // Branch-free: whether a board completes is a coin flip the predictor cannot learn.
        tally.leaves[0] += u64::from(!last.is_empty());
    }
}

impl LaneTables for Unrestricted {
    fn lane_rules(&self, n: usize) -> LaneRules {
        LaneRules::new(n, &[u32::low_bits(n as u32); crate::MAX_N])
    }
}

/// Below a queen in the top-left corner and one at `(1, bound1)`: the transposed board is
/// the same class, so only boards whose column-1 queen lies below row `bound1` are kept.
/// Each such board stands for 8 solutions (no other corner can hold a queen).
#[derive(Clone)]
pub(crate) struct Corner<M> {
    /// The columns each row may take at most: all but column 1 above `bound1`.
    row_filter: [M; crate::MAX_N],
}

impl<M: Mask> Corner<M> {
    pub(crate) fn new(bound1: usize) -> Corner<M> {
        let mut row_filter = [!M::ZERO; crate::MAX_N];
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
    fn leaf(&self, _board: &[M], last: M, tally: &mut Tally) {
        tally.leaves[0] += u64::from(!last.is_empty());
    }
}

impl LaneTables for Corner<u32> {
    fn lane_rules(&self, n: usize) -> LaneRules {
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
pub(crate) struct Border<M> {
    bound1: usize,
    /// The columns each row above the last may take at most: no outer column nearer the
    /// top or bottom than `bound1`.
    row_filter: [M; crate::MAX_N],
    /// The row by which both outer columns must be taken.
    bound2: usize,
    outer: M,
    /// The last row's columns nearer its ends than `bound1`.
    last_forbidden: M,
    /// The last row's columns as near its ends as `bound1`.
    last_ties: M,
}

impl<M: Mask> Border<M> {
    pub(crate) fn new(n: usize, bound1: usize) -> Border<M> {
        let outer = M::bit(n as u32 - 1) | M::ONE;
        let low = M::low_bits(bound1 as u32);
        let mut row_filter = [!M::ZERO; crate::MAX_N];
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
    fn leaf(&self, board: &[M], last: M, tally: &mut Tally) {
        if !last.is_empty() && (last & self.last_forbidden).is_empty() {
            let ties = usize::from(!(board[self.bound1] & self.outer).is_empty())
                + usize::from(!(board[self.bound2] & self.outer).is_empty())
                + usize::from(!(last & self.last_ties).is_empty());
            tally.leaves[ties] += 1;
        }
    }
}

impl LaneTables for Border<u32> {
    fn lane_rules(&self, n: usize) -> LaneRules {
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

/// Scores a board whose last row may take the columns in `last`; `board` holds the rows
/// above it and is only touched by rules that read it.
#[inline(always)]
fn score<M: Mask, R: Rules<M>, const NODES: bool>(
    rules: &R,
    board: &mut [M; crate::MAX_N],
    n: usize,
    last: M,
    tally: &mut Tally,
) {
    if NODES {
        tally.nodes += u64::from(!last.is_empty());
    }
    if R::READS_BOARD {
        board[n - 1] = last;
        rules.leaf(&board[..n], last, tally);
    } else {
        rules.leaf(&[], last, tally);
    }
}

/// Defines a depth-first descent method named `$name` that recurses into itself, so that
/// the same body can be compiled twice, with and without extra CPU features.
macro_rules! descend {
    ($(#[$attr:meta])* $name:ident) => {
        $(#[$attr])*
        fn $name<const NODES: bool, L: Level>(&mut self, row: usize, masks: (M, M, M)) {
            if row + 1 == self.last {
                self.close_pair::<NODES>(row, masks);
            } else {
                self.each_child::<NODES>(row, masks, |s, below| {
                    s.$name::<NODES, L::Next>(row + 1, below)
                });
            }
        }
    };
}

/// The state of one depth-first search, kept apart from the walker so that the hot
/// recursion reads plain fields and a fixed-size board.
struct Search<M, R> {
    /// A copy, not a reference: the bounds are read at every node.
    rules: R,
    full: M,
    last: usize,
    board: [M; crate::MAX_N],
    tally: Tally,
}

impl<M: Mask, R: Rules<M>> Search<M, R> {
    /// Calls `visit` with each column `row` may take and the masks of the row below it.
    #[inline(always)]
    fn each_child<const NODES: bool>(
        &mut self,
        row: usize,
        (left, down, right): (M, M, M),
        mut visit: impl FnMut(&mut Self, (M, M, M)),
    ) {
        let free = self.full & !(left | down | right);
        let mut candidates = self.rules.allowed(row, free, down);
        while !candidates.is_empty() {
            let bit = candidates.lowest();
            candidates = candidates ^ bit;
            if NODES {
                self.tally.nodes += 1;
            }
            if R::READS_BOARD {
                self.board[row] = bit;
            }
            visit(self, ((left | bit) << 1, down | bit, (right | bit) >> 1));
        }
    }

    /// Scores the last two rows without a loop over candidates. Two
    /// columns are left for them; each row can take either, and the last row the other one
    /// if the diagonals allow. The branch-free arithmetic replaces the most mispredicted
    /// loop of the search, the one over the second-to-last row's candidates.
    #[inline(always)]
    fn close_pair<const NODES: bool>(&mut self, row: usize, (left, down, right): (M, M, M)) {
        let free = self.full & !(left | down | right);
        let candidates = self.rules.allowed(row, free, down);
        let open = self.full & !down;
        let first = open.lowest();
        let second = open ^ first;
        for (mine, other) in [(first, second), (second, first)] {
            let placed = candidates & mine;
            let attacked = ((left | placed) << 1) | ((right | placed) >> 1);
            let last = if placed.is_empty() { M::ZERO } else { other & !attacked };
            if NODES {
                self.tally.nodes += u64::from(!placed.is_empty());
            }
            if R::READS_BOARD {
                self.board[row] = mine;
            }
            score::<M, R, NODES>(
                &self.rules,
                &mut self.board,
                self.last + 1,
                last,
                &mut self.tally,
            );
        }
    }

    descend! {
        /// Counts the completions below `row`, entered with `masks`, which must not be the
        /// last row; the last two rows are closed by [`Search::close_pair`], not by calls.
        /// `L` is the depth below the task's prefix as a type, so each depth is its own
        /// copy of the loop with its own branch-predictor history: the branches of a
        /// shallow row and a deep row behave differently, and one shared copy confuses
        /// the predictor.
        descend
    }

    descend! {
        /// [`Search::descend`] compiled for processors with BMI1, BMI2, POPCNT and LZCNT
        /// (`x & -x`, `x & (x - 1)` and `!a & b` become one instruction each). The default
        /// build targets any x86-64, so the walker picks this copy at run time when it can.
        #[cfg(target_arch = "x86_64")]
        #[target_feature(enable = "bmi1,bmi2,popcnt,lzcnt")]
        descend_bmi
    }

    fn run<const NODES: bool>(&mut self, row: usize, masks: (M, M, M)) {
        #[cfg(target_arch = "x86_64")]
        if has_bmi() {
            // SAFETY: the processor has every feature `descend_bmi` is compiled for.
            unsafe { self.descend_bmi::<NODES, D0>(row, masks) };
            return;
        }
        self.descend::<NODES, D0>(row, masks);
    }
}

/// Whether this processor runs [`Search::descend_bmi`]; the standard library caches the
/// answer, so asking once per task costs nothing.
#[cfg(target_arch = "x86_64")]
fn has_bmi() -> bool {
    std::arch::is_x86_feature_detected!("bmi1")
        && std::arch::is_x86_feature_detected!("bmi2")
        && std::arch::is_x86_feature_detected!("popcnt")
        && std::arch::is_x86_feature_detected!("lzcnt")
}

/// A search depth as a type (see `Search::descend`).
trait Level {
    type Next: Level;
}

macro_rules! levels {
    ($($level:ident => $next:ident),* $(,)?) => {$(
        enum $level {}
        impl Level for $level {
            type Next = $next;
        }
    )*};
}

// Depths past the last named one share one copy; by then the search is near its leaves
// for every board size that finishes in reasonable time.
levels!(
    D0 => D1, D1 => D2, D2 => D3, D3 => D4, D4 => D5, D5 => D6, D6 => D7, D7 => D8,
    D8 => D9, D9 => D10, D10 => D11, D11 => D12, D12 => D13, D13 => D14, D14 => D15,
    D15 => D16, D16 => D17, D17 => D18, D18 => D19, D19 => D20, D20 => D21, D21 => D22,
    D22 => D23, D23 => Deeper, Deeper => Deeper,
);

/// A depth-first walk below one prefix.
pub(crate) struct Walker<'r, M, R> {
    rules: &'r R,
    full: M,
    n: usize,
}

impl<'r, M: Mask, R: Rules<M>> Walker<'r, M, R> {
    /// A walker for an `n`-row board under `rules`.
    pub(crate) fn new(n: usize, rules: &'r R) -> Self {
        Walker { rules, full: M::low_bits(n as u32), n }
    }

    /// The rules the walker follows.
    pub(crate) fn rules(&self) -> &'r R {
        self.rules
    }

    /// Places the prefix's queens (one column per row) on `board` and returns the masks
    /// below them.
    fn place(prefix: &[u8], board: &mut [M]) -> (M, M, M) {
        let (mut left, mut down, mut right) = (M::ZERO, M::ZERO, M::ZERO);
        for (row, &column) in prefix.iter().enumerate() {
            let bit = M::bit(u32::from(column));
            board[row] = bit;
            left = (left | bit) << 1;
            down |= bit;
            right = (right | bit) >> 1;
        }
        (left, down, right)
    }

    /// Counts the completions of `prefix`, which must leave the last row empty.
    pub(crate) fn count<const NODES: bool>(self, prefix: &[u8]) -> Tally {
        // The search owns a fixed-size board and a copy of the rules, so the hot loop reads
        // plain fields instead of following pointers at every node.
        let mut board = [M::ZERO; crate::MAX_N];
        let (left, down, right) = Self::place(prefix, &mut board);
        let (n, full, rules) = (self.n, self.full, self.rules);
        let last = n - 1;
        let mut tally = Tally::default();
        let start = prefix.len();
        if start == last {
            score::<M, R, NODES>(rules, &mut board, n, full & !(left | down | right), &mut tally);
            return tally;
        }
        let mut search = Search { rules: rules.clone(), full, last, board, tally };
        search.run::<NODES>(start, (left, down, right));
        search.tally
    }

    /// Every extension of `prefix` to `depth` rows that the rules allow, in column order.
    pub(crate) fn extend(self, prefix: &[u8], depth: usize, out: &mut Vec<Vec<u8>>) {
        let (left, down, right) = Self::place(prefix, &mut [M::ZERO; crate::MAX_N]);
        let mut prefix = prefix.to_vec();
        self.extend_from(&mut prefix, depth, left, down, right, out);
    }

    fn extend_from(
        &self,
        prefix: &mut Vec<u8>,
        depth: usize,
        left: M,
        down: M,
        right: M,
        out: &mut Vec<Vec<u8>>,
    ) {
        let row = prefix.len();
        if row >= depth {
            out.push(prefix.clone());
            return;
        }
        let free = self.full & !(left | down | right);
        let mut candidates = self.rules.allowed(row, free, down);
        while !candidates.is_empty() {
            let bit = candidates.lowest();
            candidates = candidates ^ bit;
            prefix.push(bit.lowest_index() as u8);
            self.extend_from(prefix, depth, (left | bit) << 1, down | bit, (right | bit) >> 1, out);
            prefix.pop();
        }
    }
}
