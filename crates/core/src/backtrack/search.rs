//! The scalar kernel: a depth-first bitmask search, one board at a time.
//!
//! A search fills rows top to bottom. For each row it keeps three masks of attacked columns:
//! `down` (columns taken), `left` and `right` (diagonals, shifted one column per row). The
//! free columns of a row are `full & !(left | down | right)`; the lowest is peeled off with
//! `x & -x` and the next row is entered with the masks shifted. A [`Rules`] value says
//! which columns each row may take and scores the finished boards.

use super::rules::{Rules, SearchCount};
use crate::mask::{MAX_N, Mask};
use crate::simd::Bmi;

/// Scores a board whose last row may take the columns in `last`; `board` holds the rows
/// above it and is only touched by rules that read it.
#[inline(always)]
fn score<M: Mask, R: Rules<M>, const NODES: bool>(
    rules: &R,
    board: &mut [M; MAX_N],
    n: usize,
    last: M,
    tally: &mut SearchCount,
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
    board: [M; MAX_N],
    tally: SearchCount,
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
        /// `L` is the depth below the task's prefix (modulo 8) as a type, so neighbouring
        /// depths are their own copies of the loop with their own branch-predictor
        /// history: the branches of a shallow row and a deep row behave differently, and
        /// one shared copy confuses the predictor.
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

    fn run<const NODES: bool>(&mut self, row: usize, masks: (M, M, M), bmi: Option<Bmi>) {
        #[cfg(target_arch = "x86_64")]
        if let Some(_proof) = bmi {
            // SAFETY: the token proves that the processor has every feature `descend_bmi`
            // is compiled for.
            unsafe { self.descend_bmi::<NODES, D0>(row, masks) };
            return;
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = bmi;
        self.descend::<NODES, D0>(row, masks);
    }
}

/// A search depth, modulo 8, as a type (see `Search::descend`).
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

// The depths cycle through eight copies of the loop rather than a chain of one copy per
// depth: the compiler inlines a chain into ever longer functions, and a chain of 25 took
// the core crate's build from 10 s to 73 s while counting no faster (docs/measurements/scaling-and-build.md,
// "a faster first build").
levels!(D0 => D1, D1 => D2, D2 => D3, D3 => D4, D4 => D5, D5 => D6, D6 => D7, D7 => D0);

/// A depth-first walk below one prefix.
pub(super) struct Walker<'r, M, R> {
    rules: &'r R,
    full: M,
    n: usize,
}

impl<'r, M: Mask, R: Rules<M>> Walker<'r, M, R> {
    /// A walker for an `n`-row board under `rules`.
    pub(super) fn new(n: usize, rules: &'r R) -> Self {
        Walker { rules, full: M::low_bits(n as u32), n }
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
    pub(super) fn count<const NODES: bool>(self, prefix: &[u8], bmi: Option<Bmi>) -> SearchCount {
        // The search owns a fixed-size board and a copy of the rules, so the hot loop reads
        // plain fields instead of following pointers at every node.
        let mut board = [M::ZERO; MAX_N];
        let (left, down, right) = Self::place(prefix, &mut board);
        let (n, full, rules) = (self.n, self.full, self.rules);
        let last = n - 1;
        let mut tally = SearchCount::default();
        let start = prefix.len();
        if start == last {
            score::<M, R, NODES>(rules, &mut board, n, full & !(left | down | right), &mut tally);
            return tally;
        }
        let mut search = Search { rules: rules.clone(), full, last, board, tally };
        search.run::<NODES>(start, (left, down, right), bmi);
        search.tally
    }

    /// Every extension of `prefix` to `depth` rows that the rules allow, in column order.
    pub(super) fn extend(self, prefix: &[u8], depth: usize, out: &mut Vec<Vec<u8>>) {
        let (left, down, right) = Self::place(prefix, &mut [M::ZERO; MAX_N]);
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
