//! What a plan is asked for and reports to: its options, what it times, where its
//! progress goes, the task list it plans, and why it fails.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use nqueens_core::{Problem, Task, Turn};
use nqueens_scheduler::RunError;

use crate::slices::Slices;
use serde::{Deserialize, Serialize};

/// The thread time of timings for each checked task's prediction, unless asked otherwise.
/// A unit's pieces differ most: a piece's own pairs count 16 times in its unit's
/// prediction, and at N = 27 (pieces of 0.75 s, 0.3 s of them its own pairs) a check whose
/// two pieces of the largest unit ran while something slowed the machine for a tenth of a
/// second predicted that unit at 8.95 s and 7.2 s, where all sixteen, timed apart, predict
/// 5.6 to 5.8 s; at N = 26 in the default 1.5 GiB a thread, a row set's first slices carry
/// its later fills' meetings whole (one unit's slices predicted 76 and 90 s, its fourteen
/// others 3.3 to 3.9 s, for 13.3 s counted), and with ten seconds (4 of 16 pieces a unit)
/// checks said 1.14 to 1.44 where all sixteen said 0.97 (0.95 to 1.00). At N = 22, 16
/// descents below a task predicted it at 13.5 to 18.5 s in every plans sweep of seed 1 for
/// counts of 8.5 to 9.4 s.
pub(crate) const DEFAULT_CHECK_TIMING: Duration = Duration::from_secs(40);

/// How a sample is taken: on as many threads as the count would run, drawn by `seed`,
/// stopped when `stop` is raised.
#[derive(Clone, Debug)]
pub struct Options {
    pub threads: usize,
    pub seed: u64,
    /// Time whole units or pieces of them, whatever their size, to compare the two; by
    /// default units where the sample's time lets it time enough of them.
    pub timed: Option<Timed>,
    /// The longest the sample may run. By default 120 s for whole tasks, and 90 s for
    /// descents, which go on while they are short of a 5% error for a long count, up to
    /// a thousandth of it or an hour: a board whose pieces take seconds to minutes each
    /// (the join from N = 26) times only a few of them in 90 s.
    pub sample_time: Option<Duration>,
    /// Whether a check profiles the tasks it counts: every part of their work timed and
    /// counted ([`nqueens_core::Profile`]), at the cost of a few clock reads per part.
    pub profile: bool,
    /// The thread time a check spends on the timings that predict each task it counts:
    /// more times more of a unit's pieces or more descents below a task, for a ratio that
    /// rests less on chance. By default forty seconds, or every piece of a unit where they
    /// take no longer than counting a checked task may; a time asked for replaces both.
    pub check_timing: Option<Duration>,
    /// Take the count's sample in slices, each going on from what the earlier ones timed;
    /// by default in one go. A sample of whole tasks (small boards) is taken in one go
    /// regardless.
    pub slices: Option<Slices>,
    pub stop: Arc<AtomicBool>,
}

impl Options {
    /// A sample on `threads` drawn by `seed`, the rest by default, never stopped unless
    /// `stop` is replaced by a flag someone raises.
    pub fn new(threads: usize, seed: u64) -> Options {
        Options {
            threads,
            seed,
            timed: None,
            sample_time: None,
            profile: false,
            check_timing: None,
            slices: None,
            stop: Arc::new(AtomicBool::new(false)),
        }
    }
}

/// What a sample timed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Timed {
    /// Whole tasks of a list.
    Tasks,
    /// Units below the list's tasks: the finest tasks the engine counts whole.
    Units,
    /// Tasks between the list's and the units, each timed whole with its units: where
    /// units take too little time to time alone.
    Finer,
    /// Pieces of units, finer than any task a count runs.
    Pieces,
}

impl Timed {
    /// What one of them is called, for people.
    pub fn noun(self) -> &'static str {
        match self {
            Timed::Tasks => "task",
            Timed::Units => "unit",
            Timed::Finer => "finer task",
            Timed::Pieces => "piece",
        }
    }
}

/// What a sample is of: an estimate samples the count asked for and, for a unique count,
/// the counts of the solutions each turn leaves unchanged, which that count runs too;
/// with `--cores`, the finer list the cluster's shards run may need a sample of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Subject {
    /// The tasks of the count asked for.
    Count,
    /// The finer list of tasks the cluster's shards run.
    Shards,
    /// The count of the solutions `Turn` leaves unchanged.
    UnchangedBy(Turn),
}

impl fmt::Display for Subject {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Subject::Count => f.write_str("the count"),
            Subject::Shards => f.write_str("the shards' tasks"),
            Subject::UnchangedBy(Turn::Half) => {
                f.write_str("the solutions a half turn leaves unchanged")
            }
            Subject::UnchangedBy(Turn::Quarter) => {
                f.write_str("the solutions a quarter turn leaves unchanged")
            }
        }
    }
}

/// Where a plan's progress goes: to a bar or a log, say. Called from the thread that
/// runs the plan, between timings.
pub trait Watch {
    /// A sample of `subject` begins; the calls up to its [`Watch::sampled`] are about it.
    fn begins(&self, _subject: Subject) {}

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
    /// A check found no task to count, or tasks predicted to take no time.
    NothingToCheck,
    /// A key to time again that no task of the board has.
    UnknownKey(Vec<u8>),
    /// The timings a sample in slices was to go on from were another sample's: drawn as
    /// this says.
    OtherSample(String),
}

impl fmt::Display for PlanError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlanError::Engine(error) => write!(f, "{error}"),
            PlanError::Run(error) => write!(f, "the sample failed: {error}"),
            PlanError::NothingTimed => write!(f, "no part of the sample finished"),
            PlanError::NothingToCheck => {
                write!(f, "nothing to check: no task of the list is predicted to take any time")
            }
            PlanError::UnknownKey(key) => write!(f, "no task of this board has the key {key:?}"),
            PlanError::OtherSample(drawn) => {
                write!(f, "the timings to go on from belong to another sample ({drawn})")
            }
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
