use std::fmt;

/// Why a count could not be set up or finished.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Error {
    /// The board size is outside `1..=128`.
    BoardSize {
        /// The size asked for.
        n: usize,
    },
    /// A mask width was forced that cannot hold the board.
    MaskTooNarrow {
        /// The board size.
        n: usize,
        /// The columns the forced width holds.
        columns: usize,
    },
    /// The split depth does not fit the board.
    Depth {
        /// The depth asked for.
        depth: usize,
        /// The board size.
        n: usize,
    },
    /// A task does not belong to the problem it was handed to.
    ForeignTask {
        /// The task's prefix, as columns.
        prefix: Vec<u8>,
    },
    /// A sum or product of counts left the range of `u128`.
    Overflow,
    /// Counts that must agree by a theorem did not; a bug, never a user error.
    Inconsistent(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BoardSize { n } => {
                write!(f, "board size must be between 1 and {}, got {n}", crate::MAX_N)
            }
            Error::MaskTooNarrow { n, columns } => {
                write!(f, "a {columns}-bit mask cannot hold a board of size {n}")
            }
            Error::Depth { depth, n } => {
                write!(
                    f,
                    "split depth must be between 0 and {} for N = {n}, got {depth}",
                    max_depth(*n)
                )
            }
            Error::ForeignTask { prefix } => {
                write!(f, "task with prefix {prefix:?} does not belong to this problem")
            }
            Error::Overflow => f.write_str("a count overflowed 128 bits"),
            Error::Inconsistent(what) => write!(f, "internal inconsistency: {what}"),
        }
    }
}

impl std::error::Error for Error {}

/// The deepest split a board allows: every prefix leaves the last row to the search.
pub(crate) fn max_depth(n: usize) -> usize {
    n.saturating_sub(1)
}
