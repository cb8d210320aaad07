//! What the coordinator knows of a run (which tasks are finished, their merged result,
//! what each took), and how it is saved to the run's checkpoint.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::checkpoint::{Checkpoint, CheckpointError, Identity, Session, ranges};
use crate::cost::CostModel;
use crate::lock::CheckpointLock;
use crate::run::{COST_STRATA, Finish, Merge, Progress, Report};

/// Where and how often a run saves its checkpoint, and the identity it saves.
pub(crate) struct CheckpointPlan {
    pub(crate) lock: Arc<CheckpointLock>,
    pub(crate) every: Duration,
    pub(crate) identity: Identity,
}

/// What the coordinator knows of a run: which tasks are finished and their merged result.
pub(crate) struct RunState<R> {
    /// Whether each task of the whole list is finished, in this session or before.
    pub(crate) finished: Vec<bool>,
    /// The merged result of the finished tasks.
    pub(crate) partial: R,
    /// The counts reported in [`Progress`].
    pub(crate) done: usize,
    /// See `done`.
    pub(crate) total: usize,
    /// See `done`.
    pub(crate) resumed: usize,
    /// Time spent on the run in earlier sessions.
    pub(crate) elapsed_before: Duration,
    /// What ran the earlier sessions, as the checkpoint recorded.
    pub(crate) sessions_before: Vec<Session>,
    /// What the caller said of this session.
    pub(crate) about: BTreeMap<String, String>,
    /// When this session started.
    started: Instant,
    /// The time each task finished in this session took, by strata of the list.
    costs: CostModel,
    /// Per stratum of `costs`, the tasks queued in this session and not yet finished.
    left: Vec<usize>,
    /// The time the tasks finished in this session took, summed over the workers.
    busy: Duration,
}

impl<R> RunState<R> {
    /// A run of nothing yet, out of a list of `tasks`, with `empty` as its result.
    pub(crate) fn new(empty: R, tasks: usize, started: Instant) -> Self {
        let costs = CostModel::new(tasks, COST_STRATA);
        RunState {
            finished: vec![false; tasks],
            partial: empty,
            done: 0,
            total: 0,
            resumed: 0,
            elapsed_before: Duration::ZERO,
            sessions_before: Vec::new(),
            about: BTreeMap::new(),
            started,
            left: vec![0; costs.strata()],
            costs,
            busy: Duration::ZERO,
        }
    }

    /// Notes that task `index` is queued in this session.
    pub(crate) fn queued(&mut self, index: usize) {
        self.left[self.costs.stratum_of(index)] += 1;
    }

    /// The time the queued tasks will take to finish, at the rate the workers have worked
    /// in this session.
    fn eta(&self, session: Duration) -> Option<Duration> {
        let left = self.costs.remaining(&self.left)?.expected;
        let busy = self.busy.as_secs_f64();
        // Work done per second of the session: about the number of busy workers.
        let rate = busy / session.as_secs_f64();
        (rate > 0.0).then(|| Duration::try_from_secs_f64(left / rate).ok()).flatten()
    }

    /// Time spent on the run, over every session.
    fn elapsed(&self) -> Duration {
        self.elapsed_before + self.started.elapsed()
    }

    /// The earlier sessions and this one.
    fn sessions(&self) -> Vec<Session> {
        let this = Session {
            about: self.about.clone(),
            runs: 1,
            tasks: self.done - self.resumed,
            elapsed_s: self.started.elapsed().as_secs_f64(),
        };
        Session::append(&self.sessions_before, this)
    }

    /// Where the run stands, for the progress callback and the feed.
    pub(crate) fn progress<'a>(
        &'a self,
        checkpoint_failure: Option<&'a CheckpointError>,
    ) -> Progress<'a, R> {
        let session = self.started.elapsed();
        Progress {
            done: self.done,
            total: self.total,
            resumed: self.resumed,
            partial: &self.partial,
            elapsed: self.elapsed_before + session,
            session,
            eta: self.eta(session),
            checkpoint_failure,
        }
    }

    /// Merges the `result` of task `index`, which took `took`, into the partial result.
    pub(crate) fn add<E>(
        &mut self,
        index: usize,
        took: Duration,
        result: &R,
        merge: &Merge<R, E>,
    ) -> Result<(), E> {
        self.partial = merge(&self.partial, result)?;
        self.finished[index] = true;
        self.done += 1;
        self.costs.observe(index, took.as_secs_f64());
        self.left[self.costs.stratum_of(index)] -= 1;
        self.busy += took;
        Ok(())
    }

    /// The report of a run that ended as `finish` says.
    pub(crate) fn into_report(
        self,
        finish: Finish,
        checkpoint_failure: Option<CheckpointError>,
    ) -> Report<R> {
        let (elapsed, sessions) = (self.elapsed(), self.sessions());
        let (result, done, total) = (self.partial, self.done, self.total);
        Report { result, finish, done, total, elapsed, checkpoint_failure, sessions }
    }
}

impl CheckpointPlan {
    /// Saves `state`, a state of a list of `tasks`, as `complete` says.
    pub(crate) fn save<R: Clone + Serialize + DeserializeOwned>(
        &self,
        state: &RunState<R>,
        tasks: usize,
        complete: bool,
    ) -> Result<(), CheckpointError> {
        Checkpoint {
            identity: self.identity.clone(),
            tasks,
            finished: ranges(&state.finished),
            partial: state.partial.clone(),
            elapsed_s: state.elapsed().as_secs_f64(),
            complete,
            sessions: state.sessions(),
        }
        .save(self.lock.path())
    }
}

/// Writes the checkpoint of a run that has one, every so often and when the run ends. A
/// save that fails is kept as [`CheckpointWriter::failure`] and tried again an interval
/// later: a run of days must not end on a full disk or a lost mount, nor lose its count.
pub(crate) struct CheckpointWriter<'a> {
    /// `None` for a run without a checkpoint.
    plan: Option<&'a CheckpointPlan>,
    /// Tasks in the whole list.
    tasks: usize,
    /// When a save was last tried, or the coordinator started.
    last_try: Instant,
    /// Why the latest save failed, if it did.
    pub(crate) failure: Option<CheckpointError>,
}

impl<'a> CheckpointWriter<'a> {
    /// A writer to `plan`'s file, or one that writes nothing if there is no plan.
    pub(crate) fn new(plan: Option<&'a CheckpointPlan>, tasks: usize) -> Self {
        CheckpointWriter { plan, tasks, last_try: Instant::now(), failure: None }
    }

    /// Saves `state`, as `complete` says, noting whether the save failed.
    pub(crate) fn save<R: Clone + Serialize + DeserializeOwned>(
        &mut self,
        state: &RunState<R>,
        complete: bool,
    ) {
        let Some(plan) = self.plan else { return };
        self.failure = plan.save(state, self.tasks, complete).err();
        self.last_try = Instant::now();
    }

    /// Saves `state` as unfinished if the plan's interval has passed since the last try.
    pub(crate) fn save_if_due<R: Clone + Serialize + DeserializeOwned>(
        &mut self,
        state: &RunState<R>,
    ) {
        if self.plan.is_some_and(|plan| self.last_try.elapsed() >= plan.every) {
            self.save(state, false);
        }
    }
}
