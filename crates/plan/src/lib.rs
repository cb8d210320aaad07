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
//! order the runner serves them.
//!
//! The crate knows the engines only through [`Problem`]'s neutral terms: tasks, their
//! children and pieces, and the charges of a timing. It runs its samples on the
//! scheduler's [`Runner`](nqueens_scheduler::Runner), reports their progress to a
//! [`Watch`], and stops when the caller's flag is raised.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use nqueens_core::{Problem, Task};
use nqueens_scheduler::{INTERVAL_WIDTH, Prediction, RunError};
use serde::Serialize;

mod check;
mod descent;
mod estimate;
mod split;
mod whole;

pub use crate::check::{Check, CheckedTask, MOST_CHECKED_TASK_SECONDS, check, check_depth};
pub use crate::estimate::{ClusterEstimate, Estimate, Sample, cluster, estimate};
pub use crate::split::{MOST_TASKS, MOST_WANTED, Sharing, TASKS_PER_THREAD, depth_for};

/// How a sample is taken: on as many threads as the count would run, drawn by `seed`,
/// stopped when `stop` is raised.
#[derive(Clone, Debug)]
pub struct Options {
    pub threads: usize,
    pub seed: u64,
    /// Time whole units or pieces of them, whatever their size, to compare the two; by
    /// default units where the sample's time lets it time enough of them.
    pub timed: Option<Timed>,
    pub stop: Arc<AtomicBool>,
}

/// What a sample timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timed {
    /// Whole tasks of a list.
    Tasks,
    /// Units below the list's tasks: the finest tasks the engine counts whole.
    Units,
    /// Pieces of units, finer than any task a count runs.
    Pieces,
}

impl Timed {
    /// What one of them is called, for people.
    pub fn noun(self) -> &'static str {
        match self {
            Timed::Tasks => "task",
            Timed::Units => "unit",
            Timed::Pieces => "piece",
        }
    }
}

/// Where a plan's progress goes: to a bar or a log, say. Called from the thread that
/// runs the plan, between timings.
pub trait Watch {
    /// A sample has timed `timed` of what it times, and has done `done` (0 to 1) of what
    /// it aims at, in `elapsed`.
    fn sampling(&self, timed: Timed, count: usize, done: f64, elapsed: Duration);

    /// The sample has ended.
    fn sampled(&self, timed: Timed, count: usize, elapsed: Duration);

    /// A check has counted `counted` of its `of` tasks in `elapsed`.
    fn checking(&self, counted: usize, of: usize, elapsed: Duration);
}

/// A [`Watch`] that shows nothing.
#[derive(Clone, Copy, Debug, Default)]
pub struct Unwatched;

impl Watch for Unwatched {
    fn sampling(&self, _: Timed, _: usize, _: f64, _: Duration) {}
    fn sampled(&self, _: Timed, _: usize, _: Duration) {}
    fn checking(&self, _: usize, _: usize, _: Duration) {}
}

/// A task list and the split that made it.
#[derive(Clone, Debug)]
pub struct TaskList {
    pub depth: usize,
    pub tasks: Vec<Task>,
}

impl TaskList {
    /// The tasks of `problem` split `depth` deep.
    pub fn of(problem: &Problem, depth: usize) -> Result<TaskList, PlanError> {
        Ok(TaskList { depth, tasks: problem.tasks(depth)? })
    }
}

/// Why a plan failed.
#[derive(Debug)]
pub enum PlanError {
    /// The engine refused a task or a setting.
    Engine(nqueens_core::Error),
    /// A timing's run failed.
    Run(String),
    /// The sample ended before anything was timed.
    NothingTimed,
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Engine(error) => write!(f, "{error}"),
            PlanError::Run(error) => write!(f, "the sample failed: {error}"),
            PlanError::NothingTimed => write!(f, "no part of the sample finished"),
        }
    }
}

impl std::error::Error for PlanError {}

impl From<nqueens_core::Error> for PlanError {
    fn from(error: nqueens_core::Error) -> PlanError {
        PlanError::Engine(error)
    }
}

impl<E: fmt::Display> From<RunError<E>> for PlanError {
    fn from(error: RunError<E>) -> PlanError {
        PlanError::Run(error.to_string())
    }
}

/// Run-to-run noise of a count's time on a shared machine, as a relative standard
/// deviation: the same count of N = 20 took 41.4 s to 44.8 s from one day to the next
/// (docs/measurements.md). It does not average out over a count's tasks, so it widens
/// every interval beside the sampling error.
const RUN_TO_RUN: f64 = 0.06;

/// `work` with the run-to-run noise of [`RUN_TO_RUN`] added to its sampling error.
fn with_run_to_run(work: Prediction) -> Prediction {
    let sampling = (work.high - work.expected).max(work.expected - work.low);
    let noise = INTERVAL_WIDTH * RUN_TO_RUN * work.expected;
    let margin = sampling.hypot(noise);
    Prediction {
        expected: work.expected,
        low: (work.expected - margin).max(0.0),
        high: work.expected + margin,
    }
}

/// SplitMix64's step: the random numbers of a sample, from its seed.
pub(crate) fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A number in [0, 1) from a random word.
fn unit_interval(random: u64) -> f64 {
    (random >> 11) as f64 / (1u64 << 53) as f64
}
