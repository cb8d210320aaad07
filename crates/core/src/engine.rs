//! What every counting engine provides, and the task it hands out.
//!
//! An engine turns one board into an ordered list of independent [`Task`]s and counts the
//! solutions below one task at a time. It knows nothing of threads, files or terminals:
//! the scheduler runs its tasks, and [`crate::Problem`] is the front that picks the engine
//! for a method.

use std::fmt;
use std::sync::Arc;

use crate::counts::Counts;
use crate::error::Error;
use crate::kernel::Kernel;
use crate::mask::MaskWidth;
use crate::placement::Placement;

/// The most bytes per worker thread an engine whose memory grows with N (the join) holds
/// unless told otherwise. The join fits every row set up to N = 23 whole in it; from
/// N = 24 the largest may be counted in pieces, so that N = 28 runs on 2 GiB per thread
/// with room for the rest of the process.
pub const DEFAULT_MEMORY_PER_THREAD: u64 = 3 << 29;

/// Everything an engine is built from, besides its method.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Setup {
    pub(crate) n: usize,
    pub(crate) width: MaskWidth,
    pub(crate) kernel: Kernel,
    pub(crate) placement: Option<Placement>,
    /// The most bytes an engine whose memory grows with N may hold per worker thread.
    pub(crate) memory_per_thread: u64,
    /// The worker threads that share what the engine builds once (the join's tail tables):
    /// each thread's budget counts its share of that.
    pub(crate) threads: usize,
}

/// One way of counting. Implementations check their task's engine and shape before they
/// trust it: a task made by another engine, or for another board, is refused with
/// [`Error::ForeignTask`].
pub(crate) trait Engine: fmt::Debug + Send + Sync {
    /// The name of the method the engine counts by, in its tasks: a task is solved only by
    /// an engine of the method and board that made it.
    fn name(&self) -> &'static str;

    /// The board size.
    fn n(&self) -> usize;

    /// The kernel the counting runs on, on this processor.
    fn kernel(&self) -> Kernel;

    /// The deepest split the board allows.
    fn max_depth(&self) -> usize;

    /// Every task of a split `depth` deep (at most [`Engine::max_depth`]), in a fixed order.
    fn tasks(&self, depth: usize) -> Vec<Task>;

    /// Counts the solutions below one task; `count_nodes` adds the work done (placements,
    /// or pairs of half-boards tested).
    fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error>;

    /// The tasks one level finer than `task` that partition its solutions, each of which a
    /// count could run whole, for an estimate that descends from a task too large to time
    /// to a random unit below it. Empty at a unit: every task the engine offers nothing
    /// finer for (the join's row set, the finest task it counts whole).
    fn children(&self, task: &Task) -> Result<Vec<Task>, Error> {
        let _ = task;
        Ok(Vec::new())
    }

    /// About how many units lie below `task`: a descent chooses among children in
    /// proportion, so that every unit is about as likely to be drawn, however unevenly
    /// the children divide them. The same for every task by default.
    fn units_below(&self, task: &Task) -> Result<f64, Error> {
        let _ = task;
        Ok(1.0)
    }

    /// The pieces one level finer than `task` (a unit, or a piece of one) that partition
    /// its solutions, finer than any task a count runs: only an estimate times them, for
    /// units too large to time in its time. Empty where the engine offers nothing finer.
    fn pieces(&self, task: &Task) -> Result<Vec<Task>, Error> {
        let _ = task;
        Ok(Vec::new())
    }

    /// Builds what the engine builds once for many tasks and keeps (the join's tables of
    /// a split's last rows), so that a timing of `task` that follows measures the task's
    /// own work only.
    fn prepare(&self, task: &Task) -> Result<(), Error> {
        let _ = task;
        Ok(())
    }

    /// Whether what [`Engine::prepare`] builds for `task` is in place, so that a timing
    /// may start without building anything: a build beside another thread's timing slows
    /// that timing (it shares the memory and the caches), which a count, building rarely,
    /// does not see.
    fn is_prepared(&self, task: &Task) -> Result<bool, Error> {
        let _ = task;
        Ok(true)
    }

    /// The engine for a sample whose `threads` threads time tasks drawn from the whole list
    /// ([`crate::Problem::for_sample`]): one that keeps more of what it builds for many
    /// tasks, sharing what this one has built; `None` where this one serves as it is.
    fn for_sample(&self, threads: usize) -> Option<Arc<dyn Engine>> {
        let _ = threads;
        None
    }

    /// Solves `task` whole, as a count does, and times it once what the engine shares
    /// among many tasks ([`Engine::prepare`]) is in place: a count builds that once, and a
    /// check that timed its building within a task (another thread's task, of another of
    /// the join's splits, may take its tables out of the cache between the two) saw an
    /// odd board's tasks of half a second take a second.
    fn solve_timed(&self, task: &Task) -> Result<(Counts, std::time::Duration), Error> {
        self.prepare(task)?;
        let started = std::time::Instant::now();
        let counts = self.solve(task, false)?;
        Ok((counts, started.elapsed()))
    }

    /// Solves `task` whole, as [`Engine::solve_timed`] does, and says where its time and
    /// work went ([`Profile`]); by default the whole solve is one part.
    fn solve_profiled(&self, task: &Task) -> Result<(Counts, Profile), Error> {
        let (counts, spent) = self.solve_timed(task)?;
        let profile = Profile {
            seconds: spent.as_secs_f64(),
            parts: vec![Part { name: "solve".to_owned(), seconds: spent.as_secs_f64() }],
            counters: Vec::new(),
        };
        Ok((counts, profile))
    }

    /// Solves `task` (a task or a piece), timing its work, and says of each stretch of that
    /// work which task of a count does it ([`Charge`]). By default the whole solve is the
    /// task's own.
    fn measure(&self, task: &Task) -> Result<Measurement, Error> {
        let started = std::time::Instant::now();
        let counts = self.solve(task, false)?;
        let seconds = started.elapsed().as_secs_f64();
        let charges = vec![Charge { seconds, owner: task.key().len() }];
        Ok(Measurement { charges, solutions: counts.total })
    }

    /// How many tasks an estimate should sample from, for a count whose own list has
    /// `count_tasks`: a finer list makes a better sample, but where tasks share work
    /// (the join's walk of a prefix), a finer list also costs more in all.
    fn sampled_tasks(&self, count_tasks: usize) -> usize;

    /// The fewest bytes per worker thread the engine takes, for engines whose memory grows
    /// with N and that hold to a budget; `None` for those that need only a board per thread.
    fn min_memory_per_thread(&self) -> Option<u64> {
        None
    }

    /// About how many bytes each worker thread needs beyond a fixed few hundred kilobytes,
    /// for engines whose memory grows with N; `None` for those that need only a board per
    /// thread. Measuring may stop once the figure passes `up_to`, returning a figure above it.
    fn bytes_per_thread(&self, up_to: u64) -> Result<Option<u64>, Error> {
        let _ = up_to;
        Ok(None)
    }

    /// What a worker is expected to hold at its peak in a count, for a prediction rather
    /// than a bound: like [`Engine::bytes_per_thread`] without its safety margin. `None`
    /// for engines that need only a board per thread.
    fn expected_bytes_per_thread(&self) -> Result<Option<u64>, Error> {
        Ok(None)
    }

    /// What the workers of a count share, held once per process beside what each holds
    /// ([`Engine::expected_bytes_per_thread`]): the join's cached tail tables.
    fn expected_shared_bytes(&self) -> u64 {
        0
    }

    /// What of [`Engine::expected_shared_bytes`] the engine holds already: the join's tail
    /// tables built so far (by the memory check's probe, before a count's first task).
    fn held_shared_bytes(&self) -> u64 {
        0
    }
}

/// A stretch of a measured task's work, and which task of a count does it. A task's walk
/// does work once for all the tasks below it that share it (the join builds the half-boards
/// of a prefix once for all its row sets), while a task measured alone does its ancestors'
/// work again for itself. So each stretch names its owner, the task whose key is the first
/// `owner` bytes of the measured one's, which does it once.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Charge {
    /// The stretch's time.
    pub seconds: f64,
    /// The length of the owner's key: at most the measured task's.
    pub owner: usize,
}

/// A task or piece solved with its time charged ([`Engine::measure`]): where its time went,
/// and the solutions it found.
#[derive(Clone, Debug, PartialEq)]
pub struct Measurement {
    /// Each stretch of its time, charged to its owner.
    pub charges: Vec<Charge>,
    /// The solutions it found, as a count's task finds them (the join's weighted total).
    pub solutions: u128,
}

/// Where one task's time and work went: the time of each part of the engine's work, and
/// how much of each kind of work it did, counted from its lists rather than read from the
/// processor's event counters (which not every machine lets a program read).
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Profile {
    /// The task's time, the parts' and the rest.
    pub seconds: f64,
    /// The parts of the work, in the order the engine does them.
    pub parts: Vec<Part>,
    /// The kinds of work done, each counted.
    pub counters: Vec<Counter>,
}

/// A part of an engine's work, and its time.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Part {
    /// What the part does, in the engine's words.
    pub name: String,
    /// Its time, summed over its stretches.
    pub seconds: f64,
}

/// How much of one kind of work a task did.
#[derive(Clone, Debug, Default, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Counter {
    /// What is counted, in the engine's words.
    pub name: String,
    /// How many.
    pub value: u128,
}

impl Profile {
    /// The sum of two tasks' profiles, part by part and counter by counter, in the order
    /// of the first and then of what only the second has.
    pub fn add(&mut self, other: &Profile) {
        self.seconds += other.seconds;
        for part in &other.parts {
            match self.parts.iter_mut().find(|p| p.name == part.name) {
                Some(mine) => mine.seconds += part.seconds,
                None => self.parts.push(part.clone()),
            }
        }
        for counter in &other.counters {
            match self.counters.iter_mut().find(|c| c.name == counter.name) {
                Some(mine) => mine.value += counter.value,
                None => self.counters.push(counter.clone()),
            }
        }
    }

    /// The value of the counter `name`, if the profile has it.
    pub fn counter(&self, name: &str) -> Option<u128> {
        self.counters.iter().find(|c| c.name == name).map(|c| c.value)
    }
}

/// One independent piece of a count, made by an engine ([`crate::Problem::tasks`]). Tasks
/// come in a fixed order, so their index in that list is stable from run to run; their
/// [`Task::key`] says which part of the count each is (for backtracking, the columns of the
/// first rows; for the join, which rows put their queen in the west half). A task is tagged
/// with the method and board size that made it, and only an engine of both solves it.
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Task {
    method: &'static str,
    n: usize,
    key: Box<[u8]>,
}

impl Task {
    pub(crate) fn new(engine: &dyn Engine, key: Vec<u8>) -> Task {
        Task { method: engine.name(), n: engine.n(), key: key.into_boxed_slice() }
    }

    /// The bytes that say which part of the count this task is. Equal lists of keys mean
    /// equal task lists, so checkpoints and shards hash them to tell runs apart.
    pub fn key(&self) -> &[u8] {
        &self.key
    }

    /// The task's key if an engine of `engine`'s method and board made it, or
    /// [`Error::ForeignTask`].
    pub(crate) fn key_for(&self, engine: &dyn Engine) -> Result<&[u8], Error> {
        if (self.method, self.n) == (engine.name(), engine.n()) {
            Ok(&self.key)
        } else {
            Err(self.foreign())
        }
    }

    /// The error for a task that does not belong where it was handed.
    pub(crate) fn foreign(&self) -> Error {
        Error::ForeignTask { method: self.method, n: self.n, key: self.key.to_vec() }
    }
}

impl fmt::Debug for Task {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} task of N = {} {:?}", self.method, self.n, self.key)
    }
}
