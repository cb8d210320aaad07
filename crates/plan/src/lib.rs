//! Plans a count before it runs: what it will take, predicted from a timed sample of its
//! tasks ([`estimate`]), and that prediction checked by counting some of them whole
//! ([`check`]).
//!
//! A count's task list is cut into strata of consecutive tasks, and tasks are drawn at
//! random from every stratum in turn. An engine whose tasks are too large to time whole
//! offers finer ones ([`Problem::children`]): each draw then descends from a task of the
//! list to one random unit below it (a task without children), or on to a random piece of
//! that unit ([`Problem::pieces`]), and the unit or piece is timed. A unit reached with
//! probability `p` stands for `1 / p` like it (Knuth's estimate of a tree's size); but a
//! count does the work that a task shares with its siblings once, where a unit timed alone
//! does it again, so the engine charges each stretch of what it timed to the task that
//! does it once ([`Charge`](nqueens_core::Charge)), and each stretch is weighed by the inverse of the chance of
//! reaching its owner. The sum is an unbiased estimate of the task's cost. The count's
//! wall time is then the time its workers take over tasks of those costs, served in the
//! order the runner serves them. What a sample timed can be timed again by its keys
//! ([`time_again`]): the board's own work, the same every time, as a measure of how fast
//! the machine runs it now.
//!
//! Every time here is thread time, the seconds one worker thread is busy, because that is
//! what a timing measures and what the runner's workers add up. The CLI and xtask print it
//! as core time, the word a cluster bills in: a count runs one worker on each core.
//!
//! The crate knows the engines only through [`Problem`]'s neutral terms: tasks, their
//! children and pieces, and the charges of a timing. It runs its samples on the
//! scheduler's [`Runner`](nqueens_scheduler::Runner), reports their progress to a
//! [`Watch`], and stops when the caller's flag is raised.

mod again;
mod check;
mod descent;
mod estimate;
mod gate;
mod options;
mod sample;
mod slices;
mod split;
mod whole;

pub use crate::again::{TimedKeys, time_again};
pub use crate::check::{
    Check, CheckedTask, MOST_CHECKED_TASK_SECONDS, check, check_depth, per_solution_of,
    work_by_solutions,
};
pub use crate::descent::draws_bytes;
pub use crate::estimate::{ClusterEstimate, Estimate, cluster, estimate};
pub use crate::options::{Options, PlanError, Subject, TaskList, Timed, Unwatched, Watch};
pub use crate::sample::{Sample, SampledTiming};
pub use crate::slices::{Slices, SoFar};
pub use crate::split::{MOST_TASKS, MOST_WANTED, Sharing, TASKS_PER_THREAD, depth_for};
