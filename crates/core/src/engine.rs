//! What every counting engine provides, and the task it hands out.
//!
//! An engine turns one board into an ordered list of independent [`Task`]s and counts the
//! solutions below one task at a time. It knows nothing of threads, files or terminals:
//! the scheduler runs its tasks, and [`crate::Problem`] is the front that picks the engine
//! for a method.

use std::fmt;

use crate::counts::Counts;
use crate::error::Error;
use crate::kernel::Kernel;
use crate::mask::MaskWidth;
use crate::placement::Placement;

/// Everything an engine is built from, besides its method.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Setup {
    pub(crate) n: usize,
    pub(crate) width: MaskWidth,
    pub(crate) kernel: Kernel,
    pub(crate) placement: Option<Placement>,
    /// The most bytes an engine whose memory grows with N may hold per worker thread.
    pub(crate) memory_per_thread: u64,
}

/// One way of counting. Implementations check their task's engine and shape before they
/// trust it: a task made by another engine, or for another board, is refused with
/// [`Error::ForeignTask`].
pub(crate) trait Engine: fmt::Debug + Send + Sync {
    /// The engine's name in its tasks: a task is solved only by the engine that made it.
    fn name(&self) -> &'static str;

    /// The kernel the counting runs on, on this processor.
    fn kernel(&self) -> Kernel;

    /// The deepest split the board allows.
    fn max_depth(&self) -> usize;

    /// Every task of a split `depth` deep (at most [`Engine::max_depth`]), in a fixed order.
    fn tasks(&self, depth: usize) -> Vec<Task>;

    /// Counts the solutions below one task; `count_nodes` adds the work done (placements,
    /// or pairs of half-boards tested).
    fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error>;

    /// About how many bytes each worker thread needs beyond a fixed few hundred kilobytes,
    /// for engines whose memory grows with N; `None` for those that need only a board per
    /// thread. Measuring may stop once the figure passes `up_to`, returning a figure above it.
    fn bytes_per_thread(&self, up_to: u64) -> Result<Option<u64>, Error> {
        let _ = up_to;
        Ok(None)
    }
}

/// One independent piece of a count, made by an engine's [`Engine::tasks`]. Tasks come in a
/// fixed order, so their index in that list is stable from run to run; their [`Task::key`]
/// says which part of the count each is (for backtracking, the columns of the first rows;
/// for the join, which rows put their queen in the west half).
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Task {
    engine: &'static str,
    key: Box<[u8]>,
}

impl Task {
    pub(crate) fn new(engine: &'static str, key: Vec<u8>) -> Task {
        Task { engine, key: key.into_boxed_slice() }
    }

    /// The bytes that say which part of the count this task is. Equal lists of keys mean
    /// equal task lists, so checkpoints and shards hash them to tell runs apart.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The task's key if `engine` made it, or [`Error::ForeignTask`].
    pub(crate) fn key_for(&self, engine: &dyn Engine) -> Result<&[u8], Error> {
        if self.engine == engine.name() { Ok(&self.key) } else { Err(self.foreign()) }
    }

    /// The error for a task that does not belong where it was handed.
    pub(crate) fn foreign(&self) -> Error {
        Error::ForeignTask { engine: self.engine, key: self.key.to_vec() }
    }
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} task {:?}", self.engine, self.key)
    }
}
