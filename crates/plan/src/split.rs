//! How finely a count's tasks are split, for the machines that will run them: the count
//! and its plan must split alike, so that the plan predicts the count it names.

use nqueens_core::{Error, Problem};

/// Tasks per worker thread the automatic split aims for: enough that a slow task near the
/// end does not leave the other threads idle for long.
pub const TASKS_PER_THREAD: usize = 64;

/// Threads per machine assumed when splitting a run shared by several processes or
/// sessions, whose depth must not depend on any one machine's thread count: all shards
/// and ranks must share one task list, and a resume may run with other threads than the
/// run it continues.
const SHARED_THREADS: usize = 16;

/// The most tasks an explicit depth may make: each task is a few dozen bytes, and a list
/// this long already keeps thousands of threads busy.
pub const MOST_TASKS: usize = 1 << 21;

/// The most tasks the automatic split aims for. The first list with this many may be a
/// few times longer than it, never near what `--cores 100000000` or `--shard 0/100000000`
/// would ask for: those lists, built row by row, filled the machine's memory.
pub const MOST_WANTED: usize = MOST_TASKS / 8;

/// Who will run the task list, which decides how finely it is split.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sharing {
    /// This process alone, from start to end, on this many threads.
    Alone { threads: usize },
    /// This many processes (shards, MPI ranks) or sessions (resumes of a checkpoint), each
    /// on a machine whose thread count the list must not depend on.
    Shared { processes: usize },
}

/// The split of `problem`'s count as finely as `sharing` needs.
pub fn depth_for(problem: &Problem, sharing: Sharing) -> Result<usize, Error> {
    let threads = match sharing {
        Sharing::Alone { threads } => threads,
        Sharing::Shared { processes } => SHARED_THREADS.saturating_mul(processes),
    };
    problem.depth_for(TASKS_PER_THREAD.saturating_mul(threads).min(MOST_WANTED))
}
