//! The worker pool and the coordinator loop.
//!
//! Workers take task indices from a shared queue and send each result back over a
//! channel. The calling thread is the coordinator: it alone merges results, reports
//! progress, writes checkpoints, asks a feed for more tasks and watches the stop flag, so
//! nothing is shared in the hot path but one receive per task. Workers are detached
//! threads: a stop returns at once with the finished work saved, without waiting for
//! tasks that may run for minutes.
//!
//! The coordinator does not care where its tasks come from; a `TaskSource` keeps the queue
//! stocked. A shard's tasks are all queued before the workers start, while a feed is asked
//! for the next batch whenever the queue runs low.
//!
//! ## Memory ordering
//!
//! Two flags cross threads: `stop`, raised by the caller (from a signal handler, say) and
//! read by the coordinator, and `quit`, raised by the coordinator and read by the workers.
//! Both are stored and loaded with `Ordering::Relaxed`, which suffices because they carry
//! no data: nothing is read on the strength of having seen a flag. Results travel over
//! channels, whose send happens before the receive that takes it, and workers read only
//! the task list, which never changes, so no acquire-release pair is needed to make
//! anything visible. Relaxed still guarantees that a raised flag is never lost and is seen
//! soon. Seeing it late costs at most one more task: a worker that misses `quit` solves
//! one more task whose result nobody receives, and a coordinator that misses `stop` merges
//! one more result, or waits one more tick, before it saves and reports what it has.

use std::collections::BTreeMap;
use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::checkpoint::{Checkpoint, CheckpointError, Identity, Session};
use crate::cost::stratified_order;
use crate::lock::CheckpointLock;
use crate::pool::{FedTasks, Outcome, ShardTasks, TaskSource, WorkerPool, closed_queue};
use crate::shard::Shard;
use crate::state::{CheckpointPlan, CheckpointWriter, RunState};

/// How many strata of consecutive tasks the runner's cost model cuts the list into: enough
/// to follow how costs change along the list, few enough that a run has timed one of each
/// soon after it starts.
pub(crate) const COST_STRATA: usize = 64;

/// Solves one task; called on the worker threads.
pub(crate) type Solve<T, R, E> = dyn Fn(&T) -> Result<R, E> + Send + Sync;
/// Merges two results; called on the coordinator only.
pub(crate) type Merge<R, E> = dyn Fn(&R, &R) -> Result<R, E>;

/// A run of a task list: what to solve, how to merge, and how to run it.
pub struct Runner<T, R, E> {
    tasks: Arc<[T]>,
    solve: Arc<Solve<T, R, E>>,
    merge: Box<Merge<R, E>>,
    empty: R,
    threads: usize,
    shard: Shard,
    checkpoint: Option<CheckpointPlan>,
    about: BTreeMap<String, String>,
    stop: Arc<AtomicBool>,
    tick: Duration,
    sample_first: bool,
}

impl<T, R, E> fmt::Debug for Runner<T, R, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("tasks", &self.tasks.len())
            .field("threads", &self.threads)
            .field("shard", &self.shard)
            .field("checkpoint", &self.checkpoint.as_ref().map(|plan| plan.lock.path()))
            .finish_non_exhaustive()
    }
}

/// Where a run stands, as reported to the progress callback.
#[derive(Debug)]
pub struct Progress<'a, R> {
    /// Tasks of this shard finished, including those finished before a resume.
    pub done: usize,
    /// Tasks in this shard, or of a fed run, those handed out so far.
    pub total: usize,
    /// Tasks that were already finished when this session started.
    pub resumed: usize,
    /// The merged result of the finished tasks.
    pub partial: &'a R,
    /// Time spent on the run, over every session.
    pub elapsed: Duration,
    /// Time spent in this session only.
    pub session: Duration,
    /// How long the tasks not yet finished will take, from the time the finished ones
    /// took in this session: each stratum of consecutive tasks at the mean of those timed
    /// in it (see [`CostModel`]). `None` until a task has finished in this session.
    pub eta: Option<Duration>,
    /// Why the latest checkpoint save failed; `None` if it succeeded or none was due yet.
    /// A failed save does not stop the run: the next one is tried an interval later.
    pub checkpoint_failure: Option<&'a CheckpointError>,
}

/// How a run ended without error.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Finish {
    /// Every task of the shard is done.
    Complete,
    /// The stop flag was raised; finished work is in the report (and the checkpoint).
    Stopped,
}

/// The result of a run.
#[derive(Debug)]
pub struct Report<R> {
    /// The merged result of the finished tasks.
    pub result: R,
    /// Whether the run completed.
    pub finish: Finish,
    /// Tasks of this shard finished.
    pub done: usize,
    /// Tasks in this shard, or those handed out to a fed run.
    pub total: usize,
    /// Time spent on the run, over every session.
    pub elapsed: Duration,
    /// Why the last checkpoint save failed, if it did: the checkpoint on disk then holds
    /// less than the report (or nothing, if no save succeeded). `None` without a checkpoint.
    pub checkpoint_failure: Option<CheckpointError>,
    /// What ran the run, session by session (alike sessions in one entry), this one last:
    /// the sessions its checkpoint recorded and this one.
    pub sessions: Vec<Session>,
}

/// Why a run failed.
#[derive(Debug)]
pub enum RunError<E> {
    /// A task returned an error.
    Task {
        /// The task's index in the whole list.
        index: usize,
        /// Its error.
        error: E,
    },
    /// A task panicked.
    Panicked {
        /// The task's index in the whole list.
        index: usize,
        /// The panic message.
        message: String,
    },
    /// Merging two results failed (an overflow, say).
    Merge(E),
    /// The checkpoint could not be read, does not fit this run, or could not be written
    /// before the first task (a save that fails later only warns: see
    /// [`Progress::checkpoint_failure`]).
    Checkpoint(CheckpointError),
    /// The feed of a fed run failed.
    Feed(E),
    /// The feed handed out a task that does not exist or that it had handed out before.
    BadTask {
        /// The index handed out.
        index: usize,
        /// Tasks in the whole list.
        tasks: usize,
    },
}

impl<E: fmt::Display> fmt::Display for RunError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RunError::Task { index, error } => write!(f, "task {index} failed: {error}"),
            RunError::Panicked { index, message } => write!(f, "task {index} panicked: {message}"),
            RunError::Merge(error) => write!(f, "merging results failed: {error}"),
            RunError::Checkpoint(error) => error.fmt(f),
            RunError::Feed(error) => write!(f, "getting tasks failed: {error}"),
            RunError::BadTask { index, tasks } => write!(
                f,
                "task {index} was handed out twice or does not exist (the list has {tasks})"
            ),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RunError<E> {}

impl<E> From<CheckpointError> for RunError<E> {
    fn from(error: CheckpointError) -> Self {
        RunError::Checkpoint(error)
    }
}

impl<T, R, E> Runner<T, R, E>
where
    T: Send + Sync + 'static,
    R: Clone + Send + Serialize + DeserializeOwned + 'static,
    E: Send + 'static,
{
    /// A run of `tasks` on one thread, the whole list, no checkpoint. `merge` must be
    /// associative and commutative with `empty` as its identity (exact sums are), so the
    /// result does not depend on the order in which workers finish.
    pub fn new(
        tasks: impl Into<Arc<[T]>>,
        solve: impl Fn(&T) -> Result<R, E> + Send + Sync + 'static,
        merge: impl Fn(&R, &R) -> Result<R, E> + 'static,
        empty: R,
    ) -> Self {
        Runner {
            tasks: tasks.into(),
            solve: Arc::new(solve),
            merge: Box::new(merge),
            empty,
            threads: 1,
            shard: Shard::WHOLE,
            checkpoint: None,
            about: BTreeMap::new(),
            stop: Arc::new(AtomicBool::new(false)),
            tick: Duration::from_millis(200),
            sample_first: false,
        }
    }

    /// The number of worker threads (at least 1).
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Runs only this shard's share of the tasks.
    pub fn shard(mut self, shard: Shard) -> Self {
        self.shard = shard;
        self
    }

    /// Saves progress to the checkpoint `lock` holds every `every` and on stop, and resumes
    /// from it if it exists and its identity matches. The run saves once before its first
    /// task, so that a path it cannot write fails the run before any work is done; a save
    /// that fails after that is reported and tried again an interval later, while the run
    /// goes on. The lock is shared so that the caller can hold the file from before the
    /// run until after it.
    pub fn checkpoint(
        mut self,
        lock: Arc<CheckpointLock>,
        every: Duration,
        identity: Identity,
    ) -> Self {
        self.checkpoint = Some(CheckpointPlan { lock, every, identity });
        self
    }

    /// What to record of this session in the checkpoint and the report (the program's
    /// build and settings, say), beside the tasks it finished and the time it took.
    pub fn session(mut self, about: BTreeMap<String, String>) -> Self {
        self.about = about;
        self
    }

    /// A flag that, once raised (by a signal handler, say), stops the run.
    pub fn stop_flag(mut self, stop: Arc<AtomicBool>) -> Self {
        self.stop = stop;
        self
    }

    /// Serves first one task drawn at random from each part of the list, then the rest in
    /// order, so that [`Progress::eta`] soon rests on every part of the list rather than on
    /// its first tasks alone, which may cost much more or less than the rest. The draw is
    /// the same in every run of the list; the drawn tasks are served from the last part to
    /// the first, so that tasks that share an engine's tables run together
    /// ([`sample_first_order`]).
    pub fn sample_first(mut self, sample_first: bool) -> Self {
        self.sample_first = sample_first;
        self
    }

    /// How often the progress callback is called when no task finishes.
    pub fn tick(mut self, tick: Duration) -> Self {
        self.tick = tick;
        self
    }

    /// Runs the tasks, calling `progress` on the calling thread after every finished task
    /// and at every tick.
    pub fn run(self, progress: impl FnMut(&Progress<'_, R>)) -> Result<Report<R>, RunError<E>> {
        let started = Instant::now();
        let (state, mut pending) = self.resume_shard(started)?;
        if let Some(plan) = &self.checkpoint {
            plan.save(&state, self.tasks.len(), pending.is_empty())?;
        }
        if self.sample_first {
            pending = sample_first_order(&pending, self.tasks.len());
        }
        let workers = WorkerPool::spawn(
            self.threads.min(pending.len()),
            closed_queue(&pending),
            &self.tasks,
            &self.solve,
        );
        self.coordinate(state, workers, ShardTasks, progress)
    }

    /// Runs the tasks that `feed` hands out, in batches of indices into the task list, until
    /// it hands out an empty batch. The feed is called on the calling thread whenever fewer
    /// than two tasks per thread are waiting, with the progress so far, so the next batch
    /// arrives before the threads run dry; it may block, on another process say. The run
    /// is complete when every task handed out is done.
    ///
    /// The feed decides which tasks run, so the shard is not used, and the checkpoint is
    /// neither read nor written: which tasks another process ran is not this run's to record.
    pub fn run_fed(
        mut self,
        feed: impl FnMut(&Progress<'_, R>) -> Result<Vec<usize>, E>,
        progress: impl FnMut(&Progress<'_, R>),
    ) -> Result<Report<R>, RunError<E>> {
        self.checkpoint = None;
        let mut state = RunState::new(self.empty.clone(), self.tasks.len(), Instant::now());
        state.about = self.about.clone();
        let (jobs, queue) = crossbeam_channel::unbounded();
        let workers = WorkerPool::spawn(self.threads, queue, &self.tasks, &self.solve);
        let source = FedTasks {
            feed,
            jobs: Some(jobs),
            handed_out: vec![false; self.tasks.len()],
            low_water: 2 * self.threads,
        };
        self.coordinate(state, workers, source, progress)
    }

    /// The state of this shard, with what a matching checkpoint records as finished, and
    /// the shard's tasks that are still to run.
    fn resume_shard(&self, started: Instant) -> Result<(RunState<R>, Vec<usize>), RunError<E>> {
        let mut state = RunState::new(self.empty.clone(), self.tasks.len(), started);
        state.about = self.about.clone();
        if let Some(plan) = &self.checkpoint
            && let Some(saved) = Checkpoint::<R>::load(plan.lock.path())?
        {
            self.restore(&mut state, saved, plan)?;
        }
        let selected: Vec<usize> = self.shard.select(self.tasks.len()).collect();
        let pending: Vec<usize> =
            selected.iter().copied().filter(|&index| !state.finished[index]).collect();
        state.total = selected.len();
        state.resumed = state.total - pending.len();
        state.done = state.resumed;
        for &index in &pending {
            state.queued(index);
        }
        Ok((state, pending))
    }

    /// Takes into `state` what `saved` records, refusing a checkpoint of another run or one
    /// that claims tasks of another shard, whose results would be counted twice.
    fn restore(
        &self,
        state: &mut RunState<R>,
        saved: Checkpoint<R>,
        plan: &CheckpointPlan,
    ) -> Result<(), CheckpointError> {
        let path = plan.lock.path();
        saved.check_identity(&plan.identity, self.tasks.len(), path)?;
        for &[start, end] in &saved.finished {
            if let Some(outside) = (start..end).find(|&index| !self.shard.contains(index)) {
                return Err(CheckpointError::Corrupt {
                    path: path.to_owned(),
                    reason: format!("task {outside} is not in shard {}", self.shard),
                });
            }
            state.finished[start..end].fill(true);
        }
        state.partial = saved.partial;
        // A time the file cannot mean (negative, or past what a Duration holds) is only a
        // figure for the report: it restarts from zero rather than failing the resume.
        state.elapsed_before = Duration::try_from_secs_f64(saved.elapsed_s).unwrap_or_default();
        state.sessions_before = saved.sessions;
        Ok(())
    }

    /// Receives results until every task is done, the stop flag is raised or something
    /// fails, reporting progress and saving checkpoints on the way, and asks `source` for
    /// more tasks before each wait.
    fn coordinate(
        &self,
        mut state: RunState<R>,
        workers: WorkerPool<R, E>,
        mut source: impl TaskSource<R, E>,
        mut progress: impl FnMut(&Progress<'_, R>),
    ) -> Result<Report<R>, RunError<E>> {
        let mut checkpoint = CheckpointWriter::new(self.checkpoint.as_ref(), self.tasks.len());
        progress(&state.progress(None));
        loop {
            if let Err(error) = source.top_up(&mut state) {
                workers.quit();
                return Err(error);
            }
            if state.done == state.total && source.is_exhausted() {
                break;
            }
            // Relaxed suffices: see "Memory ordering" in the module documentation.
            if self.stop.load(Ordering::Relaxed) {
                workers.quit();
                checkpoint.save(&state, false);
                return Ok(state.into_report(Finish::Stopped, checkpoint.failure));
            }
            if let Some(outcome) = workers.next_outcome(self.tick) {
                self.absorb(&mut state, outcome, &workers, &mut checkpoint)?;
            }
            checkpoint.save_if_due(&state);
            progress(&state.progress(checkpoint.failure.as_ref()));
        }
        workers.join();
        checkpoint.save(&state, true);
        Ok(state.into_report(Finish::Complete, checkpoint.failure))
    }

    /// Merges a finished task into `state`; a failed task, or a failed merge, ends the run.
    fn absorb(
        &self,
        state: &mut RunState<R>,
        (index, took, outcome): Outcome<R, E>,
        workers: &WorkerPool<R, E>,
        checkpoint: &mut CheckpointWriter<'_>,
    ) -> Result<(), RunError<E>> {
        match outcome {
            Ok(result) => state.add(index, took, &result, &*self.merge).map_err(|error| {
                workers.quit();
                RunError::Merge(error)
            }),
            Err(failure) => {
                workers.quit();
                // What finished is still right: keep it, so a fixed rerun resumes. The task's
                // failure is the news; a failed save here is only a worse checkpoint.
                checkpoint.save(state, false);
                Err(failure.into_run_error(index))
            }
        }
    }
}

/// The order a run with [`Runner::sample_first`] serves `pending`, indices into a list of
/// `tasks`: one task of each stratum of the list, drawn at random with a fixed seed, from
/// the last stratum to the first, then the rest in order.
///
/// Neighbouring tasks share what an engine readies for them (the join's tail tables of
/// one split, held for a few splits at a time), so the drawn tasks are served in the
/// list's order rather than the draw's, and backwards, so that the rest starts with what
/// the sample readied last. Served in the draw's order, N = 21's 64 drawn tasks rebuilt
/// tables for most of them: about 8 s of a one-thread count of a 45 s shard, where the
/// whole two-thread count's profile put 2.3% in building tables
/// (docs/measurements/join.md). Until the sample is served, its untimed strata take the
/// mean of the timed ones: about a second at N = 21, mostly its splits' builds.
pub fn sample_first_order(pending: &[usize], tasks: usize) -> Vec<usize> {
    let strata = COST_STRATA.min(tasks);
    let mut drawn: Vec<usize> =
        stratified_order(pending, strata, 0).into_iter().take(strata).collect();
    drawn.sort_unstable();
    let mut order: Vec<usize> = drawn.iter().rev().copied().collect();
    // Looked up by search rather than flagged in a list of `tasks`: an estimate orders
    // the share of each of thousands of shards, and each must cost its share, not the list.
    order.extend(pending.iter().copied().filter(|index| drawn.binary_search(index).is_err()));
    order
}
