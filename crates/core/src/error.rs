use std::fmt;

use crate::kernel::Kernel;
use crate::mask::MAX_N;
use crate::solution::Conflict;

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
        /// The deepest split the board and method allow.
        max: usize,
    },
    /// A method was asked for a board larger than it counts.
    MethodSize {
        /// The method's name.
        method: &'static str,
        /// The board size.
        n: usize,
        /// The largest board the method counts.
        max: usize,
    },
    /// A memory budget per thread below the least a method takes.
    MemoryBudget {
        /// The method's name.
        method: &'static str,
        /// The bytes per thread asked for.
        bytes: u64,
        /// The fewest bytes per thread the method takes.
        min: u64,
    },
    /// A count needs more memory per thread than it may hold.
    MemoryLimit {
        /// The method's name.
        method: &'static str,
        /// The board size.
        n: usize,
        /// The least it needs per thread: a lower bound, since measuring stops at the limit.
        needs: u64,
        /// The most it may hold per thread.
        limit: u64,
    },
    /// A task does not belong to the problem it was handed to.
    ForeignTask {
        /// The method that made the task.
        method: &'static str,
        /// The board size it was made for.
        n: usize,
        /// The task's key.
        key: Vec<u8>,
    },
    /// Queens fixed in advance cannot stand together on the board.
    Placement {
        /// The board size.
        n: usize,
        /// The first queen off the board or the first pair that attack each other.
        conflict: Conflict,
    },
    /// Queens were fixed in a count whose method uses the board's symmetry, which a
    /// partial board does not have.
    PlacementMethod {
        /// The name of the method asked for.
        method: &'static str,
    },
    /// The board has no solution (N = 2 or 3), or no squares (N = 0).
    NoSolution {
        /// The board size.
        n: usize,
    },
    /// The board is larger than [`crate::construct()`] or [`crate::random_solution`] take:
    /// they hold the whole solution, a number per row, in memory.
    TooLarge {
        /// The board size.
        n: usize,
        /// The largest size taken.
        max: usize,
    },
    /// A backtracking kernel was asked for that this processor lacks, or for a board larger
    /// than it holds.
    Kernel {
        /// The kernel asked for.
        kernel: Kernel,
        /// The board size.
        n: usize,
        /// The largest board the kernel holds.
        max_n: usize,
    },
    /// A vector kernel was asked for a search that runs on the scalar kernel only.
    ScalarOnly {
        /// The search's name, as its tasks carry it.
        search: &'static str,
        /// The kernel asked for.
        kernel: Kernel,
    },
    /// A sum or product of counts left the range of `u128`.
    Overflow,
    /// Counts that must agree by a theorem did not; a bug, never a user error.
    Inconsistent(String),
}

impl Error {
    /// Whether the error lies in what was asked (a board, split, kernel, placement or
    /// budget that cannot be) rather than in the run itself; a command line reports it as
    /// a usage error.
    pub fn is_usage(&self) -> bool {
        !matches!(self, Error::ForeignTask { .. } | Error::Overflow | Error::Inconsistent(_))
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BoardSize { n } => {
                write!(f, "board size must be between 1 and {MAX_N}, got {n}")
            }
            Error::MaskTooNarrow { n, columns } => {
                write!(f, "a {columns}-bit mask cannot hold a board of size {n}")
            }
            Error::Depth { depth, n, max } => {
                write!(f, "split depth must be between 0 and {max} for N = {n}, got {depth}")
            }
            Error::MethodSize { method, n, max } => {
                write!(f, "the {method} method counts boards up to N = {max}, got {n}")
            }
            Error::MemoryBudget { method, bytes, min } => write!(
                f,
                "the {method} method needs at least {} KiB per thread, got a budget of {} KiB",
                min.div_ceil(1024),
                bytes / 1024
            ),
            Error::MemoryLimit { method, n, needs, limit } => write!(
                f,
                "N = {n} with the {method} method needs at least {} KiB per thread, more than \
                 the {} KiB it may hold",
                needs.div_ceil(1024),
                limit / 1024
            ),
            Error::ForeignTask { method, n, key } => {
                write!(f, "{method} task {key:?} of N = {n} does not belong to this problem")
            }
            Error::Placement { n, conflict } => {
                write!(f, "cannot place these queens on the {n} x {n} board: {conflict}")
            }
            Error::PlacementMethod { method } => write!(
                f,
                "a partial board has no symmetry, so queens placed in advance are counted with \
                 the plain method, not {method}"
            ),
            Error::NoSolution { n: 0 } => f.write_str("N must be at least 1"),
            Error::NoSolution { n } => {
                write!(f, "there is no solution for N = {n}: queens fit only for N = 1 and N >= 4")
            }
            Error::TooLarge { n, max } => write!(f, "N must be at most {max}, got {n}"),
            Error::Kernel { kernel, n, max_n } if n > max_n => write!(
                f,
                "the {kernel} kernel counts boards up to N = {max_n}, got {n}; use --kernel auto"
            ),
            Error::Kernel { kernel, .. } => {
                write!(f, "this processor cannot run the {kernel} kernel; use --kernel auto")
            }
            Error::ScalarOnly { search, kernel } => write!(
                f,
                "the {search} count runs on the scalar kernel only, not {kernel}; use --kernel \
                 auto"
            ),
            Error::Overflow => f.write_str("a count overflowed 128 bits"),
            Error::Inconsistent(what) => write!(f, "internal inconsistency: {what}"),
        }
    }
}

impl std::error::Error for Error {}
