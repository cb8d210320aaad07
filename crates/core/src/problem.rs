//! The front door: a board, a method, and the engine that counts it.

use std::fmt;
use std::sync::Arc;

use crate::counts::Counts;
use crate::engine::{DEFAULT_MEMORY_PER_THREAD, Engine, Measurement, Profile, Setup, Task};
use crate::error::Error;
use crate::fixed::{RotationFixed, Turn, unique_by_burnside, unique_from_fixed};
use crate::kernel::Kernel;
use crate::mask::{MAX_N, MaskWidth};
use crate::method::Method;
use crate::placement::Placement;
use crate::published::{SolutionsOf, solutions_of};

/// A board size and a method: what to count, and how; optionally, queens placed in
/// advance that every counted solution must hold. Cloning is cheap: the engine is shared.
#[derive(Clone)]
pub struct Problem {
    method: Method,
    setup: Setup,
    /// Count only the solutions this turn leaves unchanged, with their own search.
    turn: Option<Turn>,
    engine: Arc<dyn Engine>,
}

impl fmt::Debug for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Problem")
            .field("method", &self.method)
            .field("setup", &self.setup)
            .finish_non_exhaustive()
    }
}

/// How a count's memory per thread is limited.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryLimit {
    /// A limit asked for: the method's budget is set to it, above its default too.
    Asked(u64),
    /// A limit the count must stay under, such as a share of the machine: it only lowers
    /// the method's budget.
    AtMost(u64),
}

/// A problem fitted to a memory limit by [`Problem::fit_memory`].
#[derive(Clone, Debug)]
pub struct MemoryPlan {
    /// The problem with its budget set.
    pub problem: Problem,
    /// About how many bytes each worker thread needs, for methods whose memory grows with
    /// N; `None` for those that need only a board per thread.
    pub per_thread: Option<u64>,
    /// Whether the largest tasks may not fit whole and are then counted in pieces (slower,
    /// never wrong).
    pub in_pieces: bool,
}

/// The answer to a count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outcome {
    /// All solutions (OEIS A000170), those holding the placed queens, or those a turn
    /// leaves unchanged.
    pub total: u128,
    /// Solutions distinct under rotations and reflections (OEIS A002562); `None` when
    /// queens were placed in advance, since a partial board is not symmetric, and for a
    /// count of the solutions a turn leaves unchanged.
    pub unique: Option<u128>,
}

impl Problem {
    /// A problem on the narrowest masks that hold an `n`-board.
    pub fn new(n: usize, method: Method) -> Result<Problem, Error> {
        if !(1..=MAX_N).contains(&n) {
            return Err(Error::BoardSize { n });
        }
        let setup = Setup {
            n,
            width: MaskWidth::for_board(n),
            kernel: Kernel::Auto,
            placement: None,
            memory_per_thread: DEFAULT_MEMORY_PER_THREAD,
            threads: 1,
        };
        Problem::build(method, setup, None)
    }

    fn build(method: Method, setup: Setup, turn: Option<Turn>) -> Result<Problem, Error> {
        let engine: Arc<dyn Engine> = match turn {
            Some(turn) => Arc::new(RotationFixed::new(setup.n, turn, setup.kernel)?),
            None => method.engine(&setup)?,
        };
        Ok(Problem { method, setup, turn, engine })
    }

    /// The solutions of an `n`-board that `turn` leaves unchanged, as [`Problem::fixed_by`]
    /// counts them; its method is the plain one, since their search is plain backtracking
    /// of their own.
    pub fn unchanged_by(n: usize, turn: Turn) -> Result<Problem, Error> {
        Problem::new(n, Method::Plain)?.fixed_by(turn)
    }

    /// The same board, counting only the solutions that `turn` leaves unchanged (OEIS
    /// A032522 for a half turn, A033148 for a quarter turn) with their own search, whatever
    /// the method. A partial board has no symmetry: with queens placed in advance it is
    /// refused with [`Error::PlacementMethod`].
    pub fn fixed_by(&self, turn: Turn) -> Result<Problem, Error> {
        if self.setup.placement.is_some() {
            return Err(Error::PlacementMethod { method: turn.name() });
        }
        Problem::build(self.method, self.setup, Some(turn))
    }

    /// The turn whose unchanged solutions are counted, if the count is of those.
    pub fn turn(&self) -> Option<Turn> {
        self.turn
    }

    /// The same problem counting only the solutions that hold `queens`, given as 0-based
    /// `(row, column)` pairs in any rows. A partial board has no symmetry to exploit, so
    /// the method must be [`Method::Plain`] ([`Error::PlacementMethod`] otherwise); queens
    /// off the board or attacking each other are refused with [`Error::Placement`].
    pub fn with_placement(&self, queens: &[(usize, usize)]) -> Result<Problem, Error> {
        if let Some(turn) = self.turn {
            return Err(Error::PlacementMethod { method: turn.name() });
        }
        if self.method != Method::Plain {
            return Err(Error::PlacementMethod { method: self.method.name() });
        }
        let placement = Some(Placement::new(self.setup.n, queens)?);
        Problem::build(self.method, Setup { placement, ..self.setup }, self.turn)
    }

    /// The same problem on masks of the given width (wider masks are slower, never wrong).
    pub fn with_width(&self, width: MaskWidth) -> Result<Problem, Error> {
        if self.setup.n > width.columns() {
            return Err(Error::MaskTooNarrow { n: self.setup.n, columns: width.columns() });
        }
        Problem::build(self.method, Setup { width, ..self.setup }, self.turn)
    }

    /// The same problem counted on the given kernel: the backtracking's lanes, or the
    /// join's pair test. A kernel the processor lacks, or a lane kernel asked for a board
    /// above 28 rows, is refused with [`Error::Kernel`].
    pub fn with_kernel(&self, kernel: Kernel) -> Result<Problem, Error> {
        Problem::build(self.method, Setup { kernel, ..self.setup }, self.turn)
    }

    /// The same problem holding at most `bytes` per worker thread: the join splits the
    /// half-boards of a row set into pieces that fit, and counts them piece by piece
    /// (slower, never wrong). A budget below [`Problem::min_memory_per_thread`] is refused
    /// with [`Error::MemoryBudget`]. Backtracking needs only a board per thread, and
    /// ignores it.
    pub fn with_memory_per_thread(&self, bytes: u64) -> Result<Problem, Error> {
        Problem::build(self.method, Setup { memory_per_thread: bytes, ..self.setup }, self.turn)
    }

    /// The same problem counted by `threads` worker threads, which share what the engine
    /// builds once: the join's tail tables, held once however many threads read them, are
    /// counted in each thread's budget as its share, so that the threads' budgets add up
    /// to what the count holds. Counted whole in every thread's budget, they left a
    /// 16-thread count of N = 28 at 1.5 GiB a thread two-fifths of its memory unused, and
    /// its largest row sets were cut into smaller pieces, which repeat more of their work
    /// (docs/measurements/join.md).
    /// A problem made for fewer threads than a count runs may hold more than its budgets
    /// add up to; zero is taken as one.
    pub fn with_threads(&self, threads: usize) -> Result<Problem, Error> {
        let threads = threads.max(1);
        Problem::build(self.method, Setup { threads, ..self.setup }, self.turn)
    }

    /// The same problem for a sample (or check) whose `threads` threads time tasks drawn
    /// from the whole list rather than in its order: an engine that keeps what it builds
    /// once for many neighbouring tasks (the join's tail tables of a split) keeps as much
    /// of it as the threads' budgets hold, so that the sample does not rebuild it before
    /// most timings. Each task does what the count's does, on the same tables, and what
    /// this problem's engine has built already serves the sample: rebuilt in an engine of
    /// its own, N = 24's one split's tables took the sample's first 12 seconds on one
    /// thread.
    pub fn for_sample(&self, threads: usize) -> Problem {
        match self.engine.for_sample(threads) {
            Some(engine) => Problem { engine, ..self.clone() },
            None => self.clone(),
        }
    }

    /// The most bytes per thread the count may hold: [`DEFAULT_MEMORY_PER_THREAD`] unless
    /// [`Problem::with_memory_per_thread`] said otherwise.
    pub fn memory_per_thread(&self) -> u64 {
        self.setup.memory_per_thread
    }

    /// The fewest bytes per thread the method takes, for methods whose memory grows with N
    /// and that hold to a budget; `None` for those that need only a board per thread.
    pub fn min_memory_per_thread(&self) -> Option<u64> {
        self.engine.min_memory_per_thread()
    }

    /// The problem fitted to `limit` bytes per worker thread, with what it then needs. A
    /// method that holds to a budget is given `limit` (or, for [`MemoryLimit::AtMost`],
    /// its own budget if that is less); a count that needs more than `limit` even so is
    /// refused with [`Error::MemoryLimit`].
    pub fn fit_memory(&self, limit: MemoryLimit) -> Result<MemoryPlan, Error> {
        let (limit, budget) = match limit {
            MemoryLimit::Asked(limit) => (limit, limit),
            MemoryLimit::AtMost(limit) => (limit, limit.min(self.memory_per_thread())),
        };
        let least = self.min_memory_per_thread();
        let problem = match least {
            Some(least) if budget >= least && budget != self.memory_per_thread() => {
                self.with_memory_per_thread(budget)?
            }
            _ => self.clone(),
        };
        let Some(mut needs) = problem.bytes_per_thread(limit)? else {
            return Ok(MemoryPlan { problem, per_thread: None, in_pieces: false });
        };
        if needs > limit {
            if let Some(least) = least
                && limit < least
            {
                // The probe stopped at the limit; the least that does is the whole of its
                // largest task or the smallest budget, whichever is less.
                needs = problem.bytes_per_thread(least)?.map_or(needs, |whole| whole.min(least));
            }
            let (method, n) = (self.method.name(), self.n());
            return Err(Error::MemoryLimit { method, n, needs, limit });
        }
        // An engine needs its whole budget only when its largest tasks pass it.
        let in_pieces = needs == problem.memory_per_thread();
        Ok(MemoryPlan { problem, per_thread: Some(needs), in_pieces })
    }

    /// How many tasks an estimate of this count should sample from, when the count itself
    /// runs `count_tasks`: as fine as the method's tasks allow without costing the sample
    /// more than the count would spend on the same work.
    pub fn sampled_tasks(&self, count_tasks: usize) -> usize {
        self.engine.sampled_tasks(count_tasks)
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.setup.n
    }

    /// The method.
    pub fn method(&self) -> Method {
        self.method
    }

    /// What the method's node counts count: `"node"` (a queen placed) or `"pair"` (a pair
    /// of half-boards tested).
    pub fn work_unit(&self) -> &'static str {
        match self.turn {
            Some(_) => crate::fixed::WORK_UNIT,
            None => self.method.work_unit(),
        }
    }

    /// The kernel the count runs on this processor: for [`Kernel::Auto`], the widest it has
    /// (for backtracking, if the board fits the lanes).
    pub fn kernel(&self) -> Kernel {
        self.engine.kernel()
    }

    /// The mask width the search runs on.
    pub fn width(&self) -> MaskWidth {
        self.setup.width
    }

    /// The queens placed in advance, if any.
    pub fn placement(&self) -> Option<&Placement> {
        self.setup.placement.as_ref()
    }

    /// How many solutions its tasks find together, where that is known before counting:
    /// for a count of all solutions, as published or extrapolated from the published
    /// ([`solutions_of`]); `None` with queens placed or a turn's unchanged solutions.
    pub fn known_solutions(&self) -> Option<SolutionsOf> {
        if self.setup.placement.is_some() || self.turn.is_some() {
            return None;
        }
        solutions_of(self.n())
    }

    /// The deepest split this board allows: for backtracking every task leaves at least the
    /// last row open; the join decides at most every free row.
    pub fn max_depth(&self) -> usize {
        self.engine.max_depth()
    }

    /// The independent tasks of this count, each `depth` rows deep (or as deep as the first
    /// rows the method fixes, where those are more), in a fixed order.
    pub fn tasks(&self, depth: usize) -> Result<Vec<Task>, Error> {
        let max = self.max_depth();
        if depth > max {
            return Err(Error::Depth { depth, n: self.n(), max });
        }
        Ok(self.engine.tasks(depth))
    }

    /// The shallowest split that yields at least `min_tasks` tasks, or the deepest the
    /// board allows. Deeper splits make more, smaller and more even tasks.
    pub fn depth_for(&self, min_tasks: usize) -> Result<usize, Error> {
        for depth in 0..self.max_depth() {
            if self.tasks(depth)?.len() >= min_tasks {
                return Ok(depth);
            }
        }
        Ok(self.max_depth())
    }

    /// About how many bytes each worker thread needs beyond a fixed few hundred kilobytes,
    /// for the methods whose memory grows with N: the join holds the half-boards of a row
    /// set, whole where they fit in [`Problem::memory_per_thread`] and in pieces where they
    /// do not. `None` for backtracking, which needs only a board per thread. Measuring
    /// stops once the figure passes `up_to`, and then returns a figure above `up_to`, so
    /// that a board far too large for the machine is refused in moments, not after a long
    /// probe.
    pub fn bytes_per_thread(&self, up_to: u64) -> Result<Option<u64>, Error> {
        self.engine.bytes_per_thread(up_to)
    }

    /// What each worker thread is expected to hold at its peak in a count, beyond a fixed
    /// few hundred kilobytes: [`Problem::bytes_per_thread`] is a bound with a margin for
    /// safety, this a prediction (the join: the lists of its largest row set, or its
    /// budget where that row set is counted in pieces). `None` for backtracking.
    pub fn expected_bytes_per_thread(&self) -> Result<Option<u64>, Error> {
        self.engine.expected_bytes_per_thread()
    }

    /// What a count's worker threads are expected to share, held once beside what each
    /// holds (the join: its cached tail tables); 0 for backtracking.
    pub fn expected_shared_bytes(&self) -> u64 {
        self.engine.expected_shared_bytes()
    }

    /// What of [`Problem::expected_shared_bytes`] is held already (the join: the tail
    /// tables its memory check built), so that a figure of what the process holds now,
    /// which includes it, is not given it twice.
    pub fn held_shared_bytes(&self) -> u64 {
        self.engine.held_shared_bytes()
    }

    /// Counts the solutions below one task. `count_nodes` adds the number of placements
    /// made (for the join, pairs of half-boards tested); without it the search compiles
    /// without the counter. A task of another problem is refused with
    /// [`Error::ForeignTask`].
    pub fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error> {
        self.engine.solve(task, count_nodes)
    }

    /// The tasks one level finer than `task` that partition its solutions, each of which a
    /// count could run whole; empty at a unit, the finest such task.
    pub fn children(&self, task: &Task) -> Result<Vec<Task>, Error> {
        self.engine.children(task)
    }

    /// About how many units (tasks without children) lie below `task`, for a descent to
    /// choose among children in proportion.
    pub fn units_below(&self, task: &Task) -> Result<f64, Error> {
        self.engine.units_below(task)
    }

    /// The pieces one level finer than `task` (a unit or a piece of one) that only an
    /// estimate times; empty where the method offers nothing finer.
    pub fn pieces(&self, task: &Task) -> Result<Vec<Task>, Error> {
        self.engine.pieces(task)
    }

    /// Builds what the method builds once for many tasks and keeps, so that a timing of
    /// `task` that follows measures its own work only.
    pub fn prepare(&self, task: &Task) -> Result<(), Error> {
        self.engine.prepare(task)
    }

    /// Whether what [`Problem::prepare`] builds for `task` is in place.
    pub fn is_prepared(&self, task: &Task) -> Result<bool, Error> {
        self.engine.is_prepared(task)
    }

    /// Solves `task` whole, as a count does, and times it once what the method builds for
    /// many tasks is in place.
    pub fn solve_timed(&self, task: &Task) -> Result<(Counts, std::time::Duration), Error> {
        self.engine.solve_timed(task)
    }

    /// Solves `task` whole, as a count does, and says where its time and work went.
    pub fn solve_profiled(&self, task: &Task) -> Result<(Counts, Profile), Error> {
        self.engine.solve_profiled(task)
    }

    /// Solves `task` (a task or a piece), timing its work, and says which task of a count
    /// does each stretch of it, and how many solutions it found.
    pub fn measure(&self, task: &Task) -> Result<Measurement, Error> {
        self.engine.measure(task)
    }

    /// The answer from the merged counts of every task, counting the solutions that
    /// rotations leave unchanged here, on one thread, for the unique count.
    pub fn finish(&self, counts: &Counts) -> Result<Outcome, Error> {
        self.check_whole(counts)?;
        let unique = if self.has_unique() {
            Some(unique_by_burnside(self.n(), counts.total)?)
        } else {
            None
        };
        Ok(Outcome { total: counts.total, unique })
    }

    /// The counts [`Problem::finish_with`] needs for the unique count, as problems of their
    /// own (their tasks then split, and run on threads, like any count's): the solutions a
    /// half turn and a quarter turn leave unchanged. None where there is no unique count.
    pub fn rotation_fixed(&self) -> Result<Vec<Problem>, Error> {
        if !self.has_unique() || self.n() <= 1 {
            return Ok(Vec::new());
        }
        Turn::ALL.into_iter().map(|turn| Problem::unchanged_by(self.n(), turn)).collect()
    }

    /// The answer from the merged counts of every task and the totals of the problems of
    /// [`Problem::rotation_fixed`], in their order.
    pub fn finish_with(&self, counts: &Counts, rotation_fixed: &[u128]) -> Result<Outcome, Error> {
        self.check_whole(counts)?;
        let unique = match (self.has_unique(), rotation_fixed) {
            (false, _) => None,
            (true, _) if self.n() <= 1 => Some(counts.total),
            (true, &[half_turn, quarter_turn]) => {
                Some(unique_from_fixed(counts.total, half_turn, quarter_turn)?)
            }
            (true, other) => {
                return Err(Error::Inconsistent(format!(
                    "the unique count needs 2 rotation-fixed counts, got {}",
                    other.len()
                )));
            }
        };
        Ok(Outcome { total: counts.total, unique })
    }

    /// Whether the count has a unique count: not for a partial board, which has no
    /// symmetry, nor for the solutions a turn leaves unchanged.
    fn has_unique(&self) -> bool {
        self.setup.placement.is_none() && self.turn.is_none()
    }

    fn check_whole(&self, counts: &Counts) -> Result<(), Error> {
        if counts.thirds != 0 {
            return Err(Error::Inconsistent(format!(
                "the counts add up to {} and {}/3 solutions",
                counts.total, counts.thirds
            )));
        }
        Ok(())
    }
}

/// Counts an `n`-board on one thread, without splitting.
pub fn count(n: usize, method: Method) -> Result<Outcome, Error> {
    let problem = Problem::new(n, method)?;
    let mut counts = Counts::default();
    for task in problem.tasks(0)? {
        counts = counts.merge(&problem.solve(&task, false)?)?;
    }
    problem.finish(&counts)
}
