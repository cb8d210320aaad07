//! The worker threads and where their tasks come from: a shard's, queued before they start,
//! or a feed's, batch by batch. Workers are detached: a stop returns at once without
//! waiting for tasks that may run for minutes.

use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::run::{Progress, RunError, Solve};
use crate::state::RunState;

/// Where a run's tasks come from: it keeps the workers' queue stocked.
pub(crate) trait TaskSource<R, E> {
    /// Queues more tasks if the workers may run dry before they would arrive otherwise,
    /// counting them in `state.total`.
    fn top_up(&mut self, state: &mut RunState<R>) -> Result<(), RunError<E>>;

    /// Whether every task this source will hand out has been queued.
    fn is_exhausted(&self) -> bool;
}

/// A shard's unfinished tasks, all counted and queued, and the queue closed, before the
/// workers start (see [`closed_queue`]).
pub(crate) struct ShardTasks;

impl<R, E> TaskSource<R, E> for ShardTasks {
    fn top_up(&mut self, _tally: &mut RunState<R>) -> Result<(), RunError<E>> {
        Ok(())
    }

    fn is_exhausted(&self) -> bool {
        true
    }
}

/// A queue holding `indices` that no one can add to: workers reading it end when it is
/// empty.
pub(crate) fn closed_queue(indices: &[usize]) -> Receiver<usize> {
    let (jobs, queue) = crossbeam_channel::unbounded();
    for &index in indices {
        jobs.send(index).expect("the queue is open while its receiver is held here");
    }
    queue
}

/// The tasks a feed hands out, batch by batch, until it hands out an empty one.
pub(crate) struct FedTasks<F> {
    /// Hands out the next batch of task indices; an empty one when there are no more.
    pub(crate) feed: F,
    /// The sending end of the workers' queue: dropping it, once the feed has no more,
    /// closes the queue, so the workers end when it is empty.
    pub(crate) jobs: Option<Sender<usize>>,
    /// Which tasks the feed has handed out, so that one handed out twice is refused, not
    /// counted twice.
    pub(crate) handed_out: Vec<bool>,
    /// The feed is asked for more when fewer tasks than this wait.
    pub(crate) low_water: usize,
}

impl<R, E, F> TaskSource<R, E> for FedTasks<F>
where
    F: FnMut(&Progress<'_, R>) -> Result<Vec<usize>, E>,
{
    fn top_up(&mut self, state: &mut RunState<R>) -> Result<(), RunError<E>> {
        while let Some(jobs) = &self.jobs
            && state.total - state.done < self.low_water
        {
            let batch = (self.feed)(&state.progress(None)).map_err(RunError::Feed)?;
            for &index in &batch {
                if self.handed_out.get(index) != Some(&false) {
                    return Err(RunError::BadTask { index, tasks: self.handed_out.len() });
                }
                self.handed_out[index] = true;
                state.queued(index);
                jobs.send(index).expect("the queue is open while its receiver is held here");
                state.total += 1;
            }
            if batch.is_empty() {
                self.jobs = None;
            }
        }
        Ok(())
    }

    fn is_exhausted(&self) -> bool {
        self.jobs.is_none()
    }
}

/// Detached worker threads that solve the tasks on their queue and send back each
/// outcome.
///
/// The queue is a channel rather than a work-stealing deque: workers of a fed run must wait
/// for batches still to come, and a closed channel tells them that none will.
pub(crate) struct WorkerPool<R, E> {
    /// The workers' queue, held here too so that queueing a task cannot fail when every
    /// worker has ended on a failure that the coordinator has yet to receive.
    _queue_held_open: Receiver<usize>,
    /// Every task's outcome, in the order the workers finish them.
    results: Receiver<Outcome<R, E>>,
    /// Raised to tell the workers to take no more tasks.
    quit: Arc<AtomicBool>,
    /// Joined only when every task is done; otherwise left to end on their own.
    workers: Vec<JoinHandle<()>>,
}

impl<R: Send + 'static, E: Send + 'static> WorkerPool<R, E> {
    /// Starts `count` workers on the tasks that arrive on `queue`.
    pub(crate) fn spawn<T: Send + Sync + 'static>(
        count: usize,
        queue: Receiver<usize>,
        tasks: &Arc<[T]>,
        solve: &Arc<Solve<T, R, E>>,
    ) -> Self {
        let quit = Arc::new(AtomicBool::new(false));
        // The pool keeps no sender, so that the results channel disconnects when the last
        // worker ends.
        let (sender, results) = crossbeam_channel::unbounded();
        let workers = (0..count)
            .map(|_| {
                let (queue, quit, sender) = (queue.clone(), Arc::clone(&quit), sender.clone());
                let (tasks, solve) = (Arc::clone(tasks), Arc::clone(solve));
                thread::spawn(move || work(&queue, &quit, &tasks, &*solve, &sender))
            })
            .collect();
        WorkerPool { _queue_held_open: queue, results, quit, workers }
    }

    /// The next outcome, or `None` if none arrives within `wait`.
    pub(crate) fn next_outcome(&self, wait: Duration) -> Option<Outcome<R, E>> {
        match self.results.recv_timeout(wait) {
            Ok(outcome) => Some(outcome),
            Err(RecvTimeoutError::Timeout) => None,
            Err(RecvTimeoutError::Disconnected) => unreachable!(
                "workers exit only when the queue is closed and empty, after sending a \
                 failure, or when told to quit"
            ),
        }
    }

    /// Tells the workers to take no more tasks; those under way run to their end.
    pub(crate) fn quit(&self) {
        // Relaxed suffices: see "Memory ordering" in run.rs's documentation.
        self.quit.store(true, Ordering::Relaxed);
    }

    /// Waits for the workers of a run whose tasks are all done.
    pub(crate) fn join(mut self) {
        for worker in std::mem::take(&mut self.workers) {
            // A worker that reached here has sent every result; it cannot have panicked.
            let _ = worker.join();
        }
    }
}

impl<R, E> Drop for WorkerPool<R, E> {
    /// However the coordinator leaves (a failed checkpoint save or a panicking progress
    /// callback included), no worker starts another task whose result nobody would take.
    fn drop(&mut self) {
        // Relaxed suffices: see "Memory ordering" in run.rs's documentation.
        self.quit.store(true, Ordering::Relaxed);
    }
}

/// How a task failed.
pub(crate) enum Failure<E> {
    /// It returned an error.
    Error(E),
    /// It panicked, with this message.
    Panic(String),
}

impl<E> Failure<E> {
    /// The run's error for task `index` failing so.
    pub(crate) fn into_run_error(self, index: usize) -> RunError<E> {
        match self {
            Failure::Error(error) => RunError::Task { index, error },
            Failure::Panic(message) => RunError::Panicked { index, message },
        }
    }
}

/// A task's index, the time it took and what solving it gave.
pub(crate) type Outcome<R, E> = (usize, Duration, Result<R, Failure<E>>);

/// A worker's life: solves the tasks it takes from `queue` and sends each outcome, until
/// the queue is closed and empty, a task fails, the coordinator has gone, or `quit` is
/// raised.
fn work<T, R, E>(
    queue: &Receiver<usize>,
    quit: &AtomicBool,
    tasks: &[T],
    solve: &Solve<T, R, E>,
    results: &Sender<Outcome<R, E>>,
) {
    for index in queue {
        // Relaxed suffices: see "Memory ordering" in run.rs's documentation.
        if quit.load(Ordering::Relaxed) {
            return;
        }
        let started = Instant::now();
        let result = match catch_unwind(AssertUnwindSafe(|| solve(&tasks[index]))) {
            Ok(Ok(result)) => Ok(result),
            Ok(Err(error)) => Err(Failure::Error(error)),
            Err(panic) => Err(Failure::Panic(panic_message(&*panic))),
        };
        let failed = result.is_err();
        if results.send((index, started.elapsed(), result)).is_err() || failed {
            return;
        }
    }
}

/// The message a panic was raised with, if it was a string.
fn panic_message(panic: &(dyn Any + Send)) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".to_owned())
}
