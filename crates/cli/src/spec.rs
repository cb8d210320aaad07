//! What a count is, in one place: the problem, how it is split into tasks, and what
//! identifies the task list, shared by `count`, `count --mpi` and `merge`.

use std::num::NonZeroUsize;

use anyhow::Context;
use nqueens_core::{ENGINE_IDENTITY, Error as EngineError, Method, Problem, Task, Turn};
use nqueens_plan::{MOST_TASKS, Sharing};
use nqueens_scheduler::{Identity, fnv1a};
use serde::{Deserialize, Serialize};

use crate::cli::{BoardArgs, CountArgs, MethodChoice};
use crate::exit::usage;

/// One count: the problem, its split, and its task list.
#[derive(Debug)]
pub(crate) struct RunSpec {
    pub(crate) problem: Problem,
    pub(crate) tasks: Vec<Task>,
    pub(crate) identity: RunIdentity,
}

impl RunSpec {
    /// The count of `problem`, split `depth` rows deep, or as finely as `sharing` needs.
    pub(crate) fn new(
        problem: Problem,
        depth: Option<usize>,
        sharing: Sharing,
    ) -> anyhow::Result<RunSpec> {
        let depth = match depth {
            Some(depth) => {
                check_depth(&problem, depth)?;
                depth
            }
            None => nqueens_plan::depth_for(&problem, sharing)?,
        };
        let tasks = problem.tasks(depth)?;
        let identity = RunIdentity::of(&problem, depth, &tasks);
        Ok(RunSpec { problem, tasks, identity })
    }
}

/// The problem `args` describe: the method (auto picks the fastest for N, or the plain
/// method where queens are placed), the placed queens and the kernel; or the solutions a
/// turn leaves unchanged, whose search is plain backtracking of their own.
pub(crate) fn problem(args: &CountArgs) -> anyhow::Result<Problem> {
    match args.symmetric {
        Some(turn) => {
            let problem = Problem::unchanged_by(args.board.n, turn)?;
            if let MethodChoice::Exactly(method) = args.board.method
                && method != problem.method()
            {
                return Err(usage!(
                    "--symmetric counts with a {0} search of its own; drop --method, or give \
                     --method {0}",
                    problem.method()
                ));
            }
            Ok(problem.with_kernel(args.board.kernel)?)
        }
        None => board(&args.board, &args.place),
    }
}

/// The problem of `board`'s size, method (auto picks the fastest for N, or the one that
/// takes queens placed in advance) and kernel, holding the queens `place`.
pub(crate) fn board(board: &BoardArgs, place: &[(usize, usize)]) -> anyhow::Result<Problem> {
    let n = board.n;
    let method = match board.method {
        MethodChoice::Exactly(method) => method,
        MethodChoice::Auto => Method::auto(n, !place.is_empty()),
    };
    let kernel = board.kernel;
    let mut problem = Problem::new(n, method)?;
    if !place.is_empty() {
        problem = problem.with_placement(place)?;
    }
    Ok(problem.with_kernel(kernel)?)
}

/// How many times the machine's logical CPUs `--threads` may ask for: more threads than
/// CPUs only share them, and a hundred thousand would spend seconds starting up.
const MOST_THREADS_PER_CPU: usize = 4;

/// The worker threads a command runs on: those asked for, or one per logical CPU. More
/// than [`MOST_THREADS_PER_CPU`] per logical CPU is refused.
pub(crate) fn threads(asked: Option<NonZeroUsize>) -> anyhow::Result<usize> {
    let cpus = std::thread::available_parallelism().map_or(1, NonZeroUsize::get);
    let Some(asked) = asked else { return Ok(cpus) };
    let most = MOST_THREADS_PER_CPU * cpus;
    if asked.get() > most {
        return Err(usage!(
            "--threads {asked} is more than {MOST_THREADS_PER_CPU} per logical CPU of this \
             machine (it has {cpus}, so at most {most}); more threads than CPUs only share them"
        ));
    }
    Ok(asked.get())
}

/// Checks that splitting `problem` `depth` rows deep makes at most [`MOST_TASKS`] tasks,
/// without building a list far longer than that: each split one row deeper multiplies the
/// tasks by at most N, so a split whose parent has more than `MOST_TASKS / 8` is refused
/// before it is built.
pub(crate) fn check_depth(problem: &Problem, depth: usize) -> anyhow::Result<()> {
    let n = problem.n();
    let max = problem.max_depth();
    if depth > max {
        // Refused before any list is built: at the frontier, the lists of the splits above
        // the deepest take minutes and gigabytes to build.
        return Err(EngineError::Depth { depth, n, max }.into());
    }
    for shallower in 0..depth {
        let tasks = problem.tasks(shallower)?.len();
        if tasks > MOST_TASKS / 8 {
            let most = tasks.saturating_mul(n.pow((depth - shallower).min(8) as u32));
            let allowed = if tasks <= MOST_TASKS { shallower } else { shallower.saturating_sub(1) };
            return Err(usage!(
                "--depth {depth} may split N = {n} into up to {most} tasks (depth {shallower} \
                 makes {tasks}, and each row deeper up to {n} times as many), more than the \
                 {MOST_TASKS} allowed; use --depth {allowed} or less, or leave it out to have \
                 it chosen"
            ));
        }
    }
    let tasks = problem.tasks(depth)?.len();
    if tasks > MOST_TASKS {
        return Err(usage!(
            "--depth {depth} splits N = {n} into {tasks} tasks, more than the {MOST_TASKS} \
             allowed; use a smaller depth, or leave it out to have it chosen"
        ));
    }
    Ok(())
}

/// What identifies a task list: counts with equal identities have equal tasks in the same
/// order, so their checkpoints resume each other and their shards merge. Reports carry it
/// under the same field names.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RunIdentity {
    pub(crate) n: usize,
    pub(crate) method: Method,
    /// The queens placed in advance, as `[row, column]` counted from 1; absent without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) placement: Option<Vec<[usize; 2]>>,
    /// The turn whose unchanged solutions are counted; absent for a count of all.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) symmetric: Option<Turn>,
    pub(crate) depth: usize,
    /// Tasks in the whole task list (all shards).
    pub(crate) tasks: usize,
    /// A hash of the task list, so that runs of different task lists are never mixed.
    pub(crate) task_digest: String,
    /// The identity of the engine whose task results these are (`nqueens_core`'s
    /// `ENGINE_IDENTITY`), so that results of two engines are never added up; `None` in
    /// results written before engines had one.
    #[serde(default)]
    pub(crate) engine: Option<String>,
}

impl RunIdentity {
    fn of(problem: &Problem, depth: usize, tasks: &[Task]) -> RunIdentity {
        RunIdentity {
            n: problem.n(),
            method: problem.method(),
            placement: problem
                .placement()
                .map(|p| p.queens().map(|(row, column)| [row + 1, column + 1]).collect()),
            symmetric: problem.turn(),
            depth,
            tasks: tasks.len(),
            task_digest: digest(tasks, problem),
            engine: Some(ENGINE_IDENTITY.to_owned()),
        }
    }

    /// The engine identity, or `none` for results written before engines had one.
    pub(crate) fn engine_text(&self) -> &str {
        self.engine.as_deref().unwrap_or("none")
    }

    /// The placed queens as `--place` takes them (`1:1,5:3`), or `none`.
    pub(crate) fn place_text(&self) -> String {
        match &self.placement {
            Some(queens) => {
                let pairs: Vec<String> = queens.iter().map(|[r, c]| format!("{r}:{c}")).collect();
                pairs.join(",")
            }
            None => "none".to_owned(),
        }
    }

    /// The placed queens as 0-based `(row, column)` pairs, as the engine takes them.
    pub(crate) fn queens(&self) -> anyhow::Result<Option<Vec<(usize, usize)>>> {
        let Some(queens) = &self.placement else {
            return Ok(None);
        };
        queens
            .iter()
            .map(|&[row, column]| {
                (row.checked_sub(1).zip(column.checked_sub(1)))
                    .with_context(|| format!("placement {row}:{column} does not count from 1"))
            })
            .collect::<anyhow::Result<Vec<_>>>()
            .map(Some)
    }

    /// The problem this identity counts, as `merge` rebuilds it from a shard's report.
    pub(crate) fn problem(&self) -> anyhow::Result<Problem> {
        let problem = Problem::new(self.n, self.method)?;
        Ok(match (self.queens()?, self.symmetric) {
            (Some(queens), _) => problem.with_placement(&queens)?,
            (None, Some(turn)) => problem.fixed_by(turn)?,
            (None, None) => problem,
        })
    }

    /// The identity field by field, most telling first; the placement and the turn are
    /// `none` without.
    fn named_fields(&self) -> [(&'static str, String); 7] {
        [
            ("n", self.n.to_string()),
            ("method", self.method.to_string()),
            ("placement", self.place_text()),
            ("symmetric", self.symmetric.map_or("none".to_owned(), |turn| turn.to_string())),
            ("depth", self.depth.to_string()),
            ("task_digest", self.task_digest.clone()),
            ("engine", self.engine_text().to_owned()),
        ]
    }

    /// The identity as checkpoints record it. The placement and the turn are there only
    /// when there is one, so that checkpoints written before they existed resume.
    pub(crate) fn fields(&self) -> Identity {
        self.named_fields()
            .into_iter()
            .filter(|(name, _)| *name != "placement" || self.placement.is_some())
            .filter(|(name, _)| *name != "symmetric" || self.symmetric.is_some())
            .map(|(name, value)| (name.to_owned(), value))
            .collect()
    }

    /// The first field in which `other` differs, as `name is theirs there but ours`.
    pub(crate) fn difference(&self, other: &RunIdentity) -> Option<String> {
        self.named_fields().into_iter().zip(other.named_fields()).find_map(
            |((name, ours), (_, theirs))| {
                (ours != theirs).then(|| format!("{name} is {theirs} there but {ours}"))
            },
        )
    }
}

/// A hash of every task's key, in order, and of the placed queens or the turn: equal
/// digests mean equal task lists. Shallow tasks of different placements, or of a turn and
/// a whole count, can have the same keys, so those are hashed too; without them the
/// digest is what it always was.
fn digest(tasks: &[Task], problem: &Problem) -> String {
    let mut bytes = Vec::new();
    for task in tasks {
        bytes.push(task.key().len() as u8);
        bytes.extend_from_slice(task.key());
    }
    if let Some(placement) = problem.placement() {
        bytes.extend_from_slice(format!("placement {placement}").as_bytes());
    }
    if let Some(turn) = problem.turn() {
        bytes.extend_from_slice(format!("symmetric {turn}").as_bytes());
    }
    format!("{:016x}", fnv1a(&bytes))
}
