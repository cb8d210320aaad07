//! The worker pool and the coordinator loop.
//!
//! Workers take task indices from a shared queue and send each result back over a
//! channel. The calling thread is the coordinator: it alone merges results, reports
//! progress, writes checkpoints, asks a feed for more tasks and watches the stop flag, so
//! nothing is shared in the hot path but one receive per task. Workers are detached threads: a stop returns at once with
//! the finished work saved, without waiting for tasks that may run for minutes.

use std::any::Any;
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use crossbeam_channel::RecvTimeoutError;
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::checkpoint::{Checkpoint, CheckpointError, Identity, ranges};
use crate::shard::Shard;

type Solve<T, R, E> = dyn Fn(&T) -> Result<R, E> + Send + Sync;
type Merge<R, E> = dyn Fn(&R, &R) -> Result<R, E>;

/// A run of a task list: what to solve, how to merge, and how to run it.
pub struct Runner<T, R, E> {
    tasks: Arc<[T]>,
    solve: Arc<Solve<T, R, E>>,
    merge: Box<Merge<R, E>>,
    empty: R,
    threads: usize,
    shard: Shard,
    checkpoint: Option<CheckpointPlan>,
    stop: Arc<AtomicBool>,
    tick: Duration,
}

impl<T, R, E> fmt::Debug for Runner<T, R, E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Runner")
            .field("tasks", &self.tasks.len())
            .field("threads", &self.threads)
            .field("shard", &self.shard)
            .field("checkpoint", &self.checkpoint.as_ref().map(|plan| &plan.path))
            .finish_non_exhaustive()
    }
}

struct CheckpointPlan {
    path: PathBuf,
    every: Duration,
    identity: Identity,
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
}

impl<'a, R> Progress<'a, R> {
    fn at(
        partial: &'a R,
        done: usize,
        total: usize,
        resumed: usize,
        elapsed_before: Duration,
        started: Instant,
    ) -> Self {
        let session = started.elapsed();
        Progress { done, total, resumed, partial, elapsed: elapsed_before + session, session }
    }
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
#[derive(Clone, Debug)]
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
    /// The checkpoint could not be read, written, or does not fit this run.
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
            stop: Arc::new(AtomicBool::new(false)),
            tick: Duration::from_millis(200),
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

    /// Saves progress to `path` every `every` and on stop, and resumes from it if it
    /// exists and its identity matches.
    pub fn checkpoint(
        mut self,
        path: impl Into<PathBuf>,
        every: Duration,
        identity: Identity,
    ) -> Self {
        self.checkpoint = Some(CheckpointPlan { path: path.into(), every, identity });
        self
    }

    /// A flag that, once raised (by a signal handler, say), stops the run.
    pub fn stop_flag(mut self, stop: Arc<AtomicBool>) -> Self {
        self.stop = stop;
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
        self.drive(None, progress)
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
        mut feed: impl FnMut(&Progress<'_, R>) -> Result<Vec<usize>, E>,
        progress: impl FnMut(&Progress<'_, R>),
    ) -> Result<Report<R>, RunError<E>> {
        self.shard = Shard::WHOLE;
        self.checkpoint = None;
        self.drive(Some(&mut feed), progress)
    }

    fn drive(
        self,
        mut feed: Option<&mut Feed<'_, R, E>>,
        mut progress: impl FnMut(&Progress<'_, R>),
    ) -> Result<Report<R>, RunError<E>> {
        let started = Instant::now();
        // A fed run learns its tasks from the feed; others run their shard's share.
        let selected: Vec<usize> = match feed {
            Some(_) => Vec::new(),
            None => self.shard.select(self.tasks.len()).collect(),
        };
        let mut finished = vec![false; self.tasks.len()];
        let mut partial = self.empty.clone();
        let mut elapsed_before = Duration::ZERO;

        if let Some(plan) = &self.checkpoint
            && let Some(saved) = Checkpoint::<R>::load(&plan.path)?
        {
            saved.check_identity(&plan.identity, self.tasks.len(), &plan.path)?;
            for &[start, end] in &saved.finished {
                if let Some(outside) = (start..end).find(|&i| !self.shard.contains(i)) {
                    return Err(RunError::Checkpoint(CheckpointError::Corrupt {
                        path: plan.path.clone(),
                        reason: format!("task {outside} is not in shard {}", self.shard),
                    }));
                }
                finished[start..end].fill(true);
            }
            partial = saved.partial;
            elapsed_before = Duration::from_secs_f64(saved.elapsed_s.max(0.0));
        }

        let pending: Vec<usize> = selected.iter().copied().filter(|&i| !finished[i]).collect();
        let mut total = selected.len();
        let resumed = total - pending.len();
        let mut done = resumed;
        let elapsed = |now: Instant| elapsed_before + now.duration_since(started);
        let save = |finished: &[bool], partial: &R, complete: bool| -> Result<(), RunError<E>> {
            if let Some(plan) = &self.checkpoint {
                Checkpoint {
                    identity: plan.identity.clone(),
                    tasks: self.tasks.len(),
                    finished: ranges(finished),
                    partial: partial.clone(),
                    elapsed_s: elapsed(Instant::now()).as_secs_f64(),
                    complete,
                }
                .save(&plan.path)?;
            }
            Ok(())
        };

        // A channel rather than a work-stealing deque: workers of a fed run must wait for
        // batches still to come, and a closed channel tells them that none will.
        let (jobs, queue) = crossbeam_channel::unbounded();
        for &index in &pending {
            jobs.send(index).expect("the queue is open while its receiver is held here");
        }
        // Handed out by a feed, so that a task handed out twice is refused, not counted twice.
        let mut handed_out = vec![false; if feed.is_some() { self.tasks.len() } else { 0 }];
        // Without a feed every task is queued already, and `then_some` drops the sender:
        // the queue is closed, so the workers end when it is empty.
        let mut jobs = feed.is_some().then_some(jobs);
        let quit = Arc::new(AtomicBool::new(false));
        let (sender, results) = crossbeam_channel::unbounded();
        let worker_count =
            if feed.is_some() { self.threads } else { self.threads.min(pending.len()) };
        let workers: Vec<_> = (0..worker_count)
            .map(|_| {
                let (queue, quit, sender) = (queue.clone(), Arc::clone(&quit), sender.clone());
                let (tasks, solve) = (Arc::clone(&self.tasks), Arc::clone(&self.solve));
                thread::spawn(move || work(&queue, &quit, &tasks, &*solve, &sender))
            })
            .collect();
        drop((sender, queue));

        let report = |partial: R, done: usize, total: usize, finish: Finish| Report {
            result: partial,
            finish,
            done,
            total,
            elapsed: elapsed(Instant::now()),
        };
        let every = self.checkpoint.as_ref().map_or(Duration::MAX, |plan| plan.every);
        let mut last_save = Instant::now();
        progress(&Progress::at(&partial, done, total, resumed, elapsed_before, started));
        loop {
            while let (Some(feed), Some(open)) = (feed.as_deref_mut(), &jobs)
                && total - done < 2 * self.threads
            {
                let batch =
                    feed(&Progress::at(&partial, done, total, resumed, elapsed_before, started))
                        .map_err(|e| {
                            quit.store(true, Ordering::Relaxed);
                            RunError::Feed(e)
                        })?;
                for &index in &batch {
                    if handed_out.get(index) != Some(&false) {
                        quit.store(true, Ordering::Relaxed);
                        return Err(RunError::BadTask { index, tasks: self.tasks.len() });
                    }
                    handed_out[index] = true;
                    open.send(index).expect("the queue is open while its receiver is held here");
                    total += 1;
                }
                if batch.is_empty() {
                    jobs = None;
                }
            }
            if done == total && jobs.is_none() {
                break;
            }
            if self.stop.load(Ordering::Relaxed) {
                quit.store(true, Ordering::Relaxed);
                save(&finished, &partial, false)?;
                return Ok(report(partial, done, total, Finish::Stopped));
            }
            match results.recv_timeout(self.tick) {
                Ok((index, Ok(result))) => {
                    partial = (self.merge)(&partial, &result).map_err(|e| {
                        quit.store(true, Ordering::Relaxed);
                        RunError::Merge(e)
                    })?;
                    finished[index] = true;
                    done += 1;
                }
                Ok((index, Err(failure))) => {
                    quit.store(true, Ordering::Relaxed);
                    // What finished is still right: keep it, so a fixed rerun resumes.
                    save(&finished, &partial, false)?;
                    return Err(match failure {
                        Failure::Error(error) => RunError::Task { index, error },
                        Failure::Panic(message) => RunError::Panicked { index, message },
                    });
                }
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => {
                    unreachable!(
                        "workers exit only when the queue is closed and empty or told to quit"
                    )
                }
            }
            if last_save.elapsed() >= every {
                save(&finished, &partial, false)?;
                last_save = Instant::now();
            }
            progress(&Progress::at(&partial, done, total, resumed, elapsed_before, started));
        }
        drop(jobs);
        for worker in workers {
            // A worker that reached here has sent every result; it cannot have panicked.
            let _ = worker.join();
        }
        save(&finished, &partial, true)?;
        Ok(report(partial, done, total, Finish::Complete))
    }
}

/// Hands out the next batch of task indices of a fed run; empty when there are no more.
type Feed<'a, R, E> = dyn FnMut(&Progress<'_, R>) -> Result<Vec<usize>, E> + 'a;

enum Failure<E> {
    Error(E),
    Panic(String),
}

type Outcome<R, E> = (usize, Result<R, Failure<E>>);

fn work<T, R, E>(
    queue: &crossbeam_channel::Receiver<usize>,
    quit: &AtomicBool,
    tasks: &[T],
    solve: &Solve<T, R, E>,
    results: &crossbeam_channel::Sender<Outcome<R, E>>,
) {
    for index in queue {
        if quit.load(Ordering::Relaxed) {
            return;
        }
        let result = match catch_unwind(AssertUnwindSafe(|| solve(&tasks[index]))) {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(Failure::Error(error)),
            Err(panic) => Err(Failure::Panic(panic_message(&*panic))),
        };
        let failed = result.is_err();
        if results.send((index, result)).is_err() || failed {
            return;
        }
    }
}

fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}
