//! The half-board join: counting by meeting in the middle instead of backtracking through
//! every row.
//!
//! Split the columns into a west and an east half. Every solution of an even board puts
//! exactly half its queens in each, so it is a choice of the rows `R` whose queens stand
//! west, a non-attacking placement of those queens on the west columns, and one of the other
//! rows on the east columns. Rows and columns then hold by construction; the two halves can
//! only clash on a diagonal that crosses the middle, so each half-board reduces to a
//! *signature*, the set of crossing diagonals it occupies, and the solutions for `R` are the
//! pairs of west and east signatures that are disjoint. Those pairs are counted in bulk: one
//! side is bit-sliced (bit `j` of word `k` says that signature `j` leaves diagonal `k` free),
//! with the ANDs of every combination of a few diagonals tabulated, so that one table lookup
//! per chunk of a query's signature and a popcount test 64 (or 512) pairs at once.
//!
//! An odd board first places the middle column's queen, which is in neither half; the
//! remaining rows, the middle row among them, then split between the two halves as above,
//! with that queen's diagonals forbidden to both.
//!
//! The half-boards of a row set are built in two parts, like quadrants: the walk places
//! the queens of the first rows (the north) row by row, sharing the work between row sets
//! with the same first rows, and the queens of the last rows (the tail) come from tables
//! that hold every placement of every subset of those rows on each half, built once per
//! split.
//!
//! Symmetry: reflecting the board north-south maps `R` to its mirror image and reflecting it
//! east-west maps `R` to its complement, so one `R` of each such orbit is counted, weighed
//! by the orbit's size; on an odd board north-south also moves the middle column's queen
//! to the mirrored row, so only its rows up to the middle are split. The transpose maps
//! `R` to the columns of the north queens: a solution counts twice, once or not at all as
//! those rank above, with or below `R` ([`transpose`]), which each half-board decides
//! alone.
//!
//! This file ties the parts into the [`Engine`]; each module's own docs say which part it
//! holds.

mod board;
mod budget;
mod count;
mod half;
mod key;
mod north;
mod pair_count;
mod refill;
mod room;
mod signatures;
mod split;
mod tail;
mod transpose;
mod walk;

use std::sync::Arc;
use std::time::Duration;

use self::board::{Geometry, PerSide, Side};
use self::budget::Budget;
use self::count::{Clock, Count, JoinCount};
use self::key::{Key, SLICES};
use self::pair_count::{PairKernel, Slice};
use self::room::Stopwatch;
pub(crate) use self::split::MAX_JOIN_N;
use self::split::{NAME, Split};
use self::tail::{TailCache, Tails};
use self::walk::{Probe, Walk};
use crate::counts::Counts;
use crate::engine::{Charge, Counter, Engine, Measurement, Part, Profile, Task};
use crate::error::Error;
use crate::kernel::Kernel;

/// The join's unit of work: a pair of half-boards tested for a clash.
pub(crate) const WORK_UNIT: &str = "pair";

/// How much finer than the count's own list an estimate's sampled list is. Each join task
/// walks its prefix's half-boards again, so finer lists cost more in all (with the walk
/// of every row, at N = 18, 537 tasks took 8% more thread-time than the 144 of a 2-thread
/// count and 3410 tasks 19% more); since the tail tables the walk is short, and an even
/// board's tasks differ so much in cost that 2% of the work was 8 tasks of twice as fine a
/// list: N = 20 predicted 64.9 s for a 99.9 s count, and 96.2 s with this one.
const SAMPLE_FINER: usize = 8;

/// The join engine for one board size.
#[derive(Clone, Debug)]
pub(crate) struct Join {
    geometry: Geometry,
    pair_kernel: PairKernel,
    budget: Budget,
    tails: Arc<TailCache>,
}

impl Join {
    /// The join of an `n`-board, its pairs tested on `kernel`, holding at most
    /// `memory_per_thread` bytes per worker thread on `threads` threads, which share its
    /// tail tables; a kernel this processor lacks is refused with [`Error::Kernel`], a
    /// budget below the least it takes with [`Error::MemoryBudget`].
    pub(crate) fn new(
        n: usize,
        kernel: Kernel,
        memory_per_thread: u64,
        threads: usize,
    ) -> Result<Join, Error> {
        if !(1..=MAX_JOIN_N).contains(&n) {
            return Err(Error::MethodSize { method: NAME, n, max: MAX_JOIN_N });
        }
        let pair_kernel =
            PairKernel::new(kernel).ok_or(Error::Kernel { kernel, n, max_n: MAX_JOIN_N })?;
        let geometry = Geometry::new(n);
        let budget = Budget::new(&geometry, memory_per_thread, threads)?;
        let tails = Arc::new(TailCache::new(budget.cached_splits));
        pair_count::ready();
        Ok(Join { geometry, pair_kernel, budget, tails })
    }

    /// The join for a sample timed by `threads` threads: its tail cache holds as many
    /// splits as their budgets' tail share does ([`Budget::sampled_by`]), starting with the
    /// tables this one holds; `None` where that is no more than this one holds.
    fn sampled_by(&self, threads: usize) -> Option<Join> {
        let budget = self.budget.sampled_by(self.geometry.split_count(), threads);
        (budget.cached_splits > self.budget.cached_splits).then(|| {
            let tails = Arc::new(self.tails.widened(budget.cached_splits));
            Join { budget, tails, ..self.clone() }
        })
    }

    /// Counts the solutions below one task's key, or a piece's, or `None` if the key is
    /// neither a task nor a piece of this board.
    fn solve_key(&self, bytes: &[u8]) -> Option<JoinCount> {
        let key = self.geometry.key(bytes)?;
        let tails = self.tails_of(&key.split);
        Some(self.solve_with(&key, &tails))
    }

    /// Counts the solutions below `key` with its split's tail tables `tails`.
    fn solve_with(&self, key: &Key, tails: &Tails) -> JoinCount {
        self.walk_with(key, tails, Count::new(&self.pair_kernel, key.slice)).tally
    }

    /// Walks `key` with `tails` toward `count`, plain, timed or profiled, and gives it back
    /// with what it found.
    fn walk_with<'a>(&'a self, key: &Key, tails: &Tails, count: Count<'a>) -> Count<'a> {
        let mut walk = Walk::new(&self.geometry, &self.budget, key, tails, count);
        walk.run();
        walk.goal
    }

    /// What each stretch of a walk of `key` (`bytes`) timed by `clock` charges: a half's
    /// north boards at a position of the order belong to the prefix that ends there, their
    /// readying for the tail to the prefix of the north rows, their joining with the tail
    /// and the pair count's sorting for the row set's first meeting of pieces of
    /// half-boards to the row set, and the rest of the pair counts (and of a row set over
    /// the budget, its later meetings) to the key itself, a row set or one of its slices.
    /// The rest of the walk's `total` (choosing
    /// each row set's tail rows, cutting its boards into runs, setting the walk up) is
    /// charged to the row set, which sets its walk up once: uncharged, it made whole tasks
    /// at N = 17 look 15% cheaper than they are.
    fn charges(&self, bytes: &[u8], key: &Key, clock: &Clock, total: Duration) -> Vec<Charge> {
        let row_set = bytes.len() - usize::from(key.slice != Slice::WHOLE);
        let head = row_set - key.decided.len();
        let north_rows = key.split.order.len().saturating_sub(self.budget.tail_rows);
        let mut charges = Vec::new();
        let mut charge = |seconds: Duration, owner: usize| {
            if !seconds.is_zero() {
                charges.push(Charge { seconds: seconds.as_secs_f64(), owner });
            }
        };
        for side in Side::BOTH {
            for (position, spent) in clock.north.iter().enumerate() {
                charge(spent[side], head + position + 1);
            }
            charge(clock.end_north[side], head + north_rows);
            charge(clock.signatures[side], row_set);
        }
        charge(clock.sorting, row_set);
        charge(clock.later_signatures, bytes.len());
        charge(clock.pairs.saturating_sub(clock.sorting), bytes.len());
        let timed = charges.iter().map(|c| c.seconds).sum::<f64>();
        let rest = (total.as_secs_f64() - timed - clock.repeated.as_secs_f64()).max(0.0);
        charges.push(Charge { seconds: rest, owner: row_set });
        charges
    }

    /// A profile of a walk that took `seconds`, timed by `clock` and counted in `tally`.
    /// The last north row is a part of its own: at N = 26 and 28 it placed most of the
    /// north boards.
    fn profile(&self, clock: &Clock, tally: &JoinCount, seconds: f64) -> Profile {
        let both = |times: &PerSide<Duration>| (times.west + times.east).as_secs_f64();
        let no_north = PerSide::default();
        let (last, earlier) = clock.north.split_last().unwrap_or((&no_north, &[]));
        let sorting = clock.sorting.as_secs_f64();
        let parts = [
            ("north rows but the last", earlier.iter().map(both).sum::<f64>()),
            ("last north row", both(last)),
            ("readying north boards", both(&clock.end_north)),
            ("signatures", both(&clock.signatures) + clock.later_signatures.as_secs_f64()),
            ("sorting", sorting),
            ("pair count", clock.pairs.as_secs_f64() - sorting),
        ];
        let timed: f64 = parts.iter().map(|&(_, seconds)| seconds).sum();
        let parts = (parts.into_iter().chain([("rest", (seconds - timed).max(0.0))]))
            .map(|(name, seconds)| Part { name: name.to_owned(), seconds })
            .collect();
        let work = tally.pair_work;
        let board_bytes = size_of::<board::HalfBoard>() as u128;
        let counters = [
            ("solutions", tally.total),
            ("north boards", clock.north_boards),
            ("north boards readied", clock.readied_boards),
            ("meetings of pieces", clock.meetings),
            ("signatures", tally.signatures),
            ("pairs tested", tally.pairs_tested),
            ("groups of lanes", u128::from(work.groups)),
            ("group tests", u128::from(work.group_tests)),
            ("lookups", u128::from(work.lookups)),
            ("north board bytes", clock.north_boards * board_bytes),
            ("signature bytes", tally.signatures * size_of::<u64>() as u128),
            ("table bytes", u128::from(work.table_bytes)),
            ("query bytes", u128::from(work.query_bytes)),
        ];
        let counters =
            counters.into_iter().map(|(name, value)| Counter { name: name.to_owned(), value });
        Profile { seconds, parts, counters: counters.collect() }
    }

    /// The tail tables of `split`, from the cache.
    fn tails_of(&self, split: &Split) -> Tails {
        let tail_rows = self.budget.tail_rows;
        self.tails.get(split.middle_queen, |side| {
            Tails::build_half(&self.geometry, split, tail_rows, side)
        })
    }

    /// The bytes one worker holds while it counts a row set with many half-boards: the one
    /// whose rows alternate between the halves, which leaves the queens of each half the
    /// farthest apart. The walk builds that row set's half-boards without counting their
    /// pairs, and stops as soon as it holds more than `limit` bytes, returning the most it
    /// held. Its split's tail tables come from the cache, so that the count after it does
    /// not build them a second time while its other threads wait.
    fn probe_bytes(&self, limit: usize) -> usize {
        let split = self.geometry.first_split();
        let mut rows = split.order.clone();
        rows.sort_unstable();
        let west: Vec<u8> = rows.iter().step_by(2).take(split.quota().west).copied().collect();
        let side = |row| if west.contains(row) { Side::West } else { Side::East };
        let decided = split.order.iter().map(side).collect();
        let tails = self.tails_of(&split);
        let key = Key { split, decided, slice: Slice::WHOLE };
        let mut walk = Walk::new(&self.geometry, &self.budget, &key, &tails, Probe { limit });
        walk.run();
        let probed = Budget::probed(walk.peak_list_bytes);
        // The probe runs on the thread that starts the count, which then only waits for
        // its workers: the pages of the lists it freed, kept for a next walk that never
        // comes, held 304 MiB through N = 26's estimate and took it past two threads'
        // 3 GiB (docs/measurements/memory.md).
        drop(walk);
        room::keep_freed(0);
        probed
    }
}

/// The task of `join` whose key is `bytes` and one more byte.
fn extended(join: &Join, bytes: &[u8], byte: u8) -> Task {
    let mut key = bytes.to_vec();
    key.push(byte);
    Task::new(join, key)
}

impl Engine for Join {
    fn name(&self) -> &'static str {
        NAME
    }

    fn n(&self) -> usize {
        self.geometry.n
    }

    fn kernel(&self) -> Kernel {
        self.pair_kernel.kernel()
    }

    fn max_depth(&self) -> usize {
        self.geometry.most_decided()
    }

    fn tasks(&self, depth: usize) -> Vec<Task> {
        self.geometry.keys(depth).into_iter().map(|key| Task::new(self, key)).collect()
    }

    fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error> {
        let tally = self.solve_key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        let nodes = if count_nodes { tally.pairs_tested } else { 0 };
        Ok(Counts { total: tally.total, nodes, ..Counts::default() })
    }

    /// Above a row set, the next row's sides that leave each half no more rows than
    /// columns.
    fn children(&self, task: &Task) -> Result<Vec<Task>, Error> {
        let bytes = task.key_for(self)?;
        let key = self.geometry.key(bytes).ok_or_else(|| task.foreign())?;
        if key.is_row_set() {
            return Ok(Vec::new());
        }
        // Within the quotas, and not a prefix whose every row set another of its orbit
        // stands for: a descent that reached one would time work that counts nothing.
        let sides = Side::BOTH.into_iter().filter(|&side| {
            let mut sides = key.decided.clone();
            sides.push(side);
            key.split.completes(&sides)
        });
        Ok(sides.map(|side| extended(self, bytes, side.key_byte())).collect())
    }

    /// Every choice of sides for the undecided rows within the quotas: the row sets below,
    /// counted or not (about half of an even board's are not, evenly spread).
    fn units_below(&self, task: &Task) -> Result<f64, Error> {
        let key = self.geometry.key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        Ok(key.split.completions(&key.decided))
    }

    /// Below a row set, its slices: each walks the row set's north rows, sorts its lists
    /// for the first pair count and counts every [`SLICES`]-th group of its stored lanes;
    /// of a row set over the budget it takes the same share of every fill's other
    /// meetings of its pieces of half-boards (`Count::row_set` in count.rs). Slices that
    /// took whole meetings only where a fill of the north rows had several, and groups
    /// elsewhere, mixed what they charged to the row set and to themselves: N = 26
    /// predicted twice its count. Cut by the column of a half's first queen instead, a
    /// piece's lists were shorter than its row set's, and the pair count, choosing its
    /// buckets by their lengths, skipped fewer pairs: pieces predicted 2.7 times their row
    /// sets at N = 20.
    fn pieces(&self, task: &Task) -> Result<Vec<Task>, Error> {
        let bytes = task.key_for(self)?;
        let key = self.geometry.key(bytes).ok_or_else(|| task.foreign())?;
        if !key.is_row_set() || key.slice != Slice::WHOLE {
            return Ok(Vec::new());
        }
        Ok((0..SLICES as u8).map(|index| extended(self, bytes, index)).collect())
    }

    fn prepare(&self, task: &Task) -> Result<(), Error> {
        let key = self.geometry.key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        self.tails_of(&key.split);
        Ok(())
    }

    fn is_prepared(&self, task: &Task) -> Result<bool, Error> {
        let key = self.geometry.key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        Ok(self.tails.holds(key.split.middle_queen))
    }

    /// The tables are held before the clock starts, as [`Engine::measure`] holds them.
    fn solve_timed(&self, task: &Task) -> Result<(Counts, Duration), Error> {
        let key = self.geometry.key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        let tails = self.tails_of(&key.split);
        let started = Stopwatch::start();
        let tally = self.solve_with(&key, &tails);
        let seconds = started.elapsed();
        Ok((Counts { total: tally.total, ..Counts::default() }, seconds))
    }

    /// Every stretch of the walk timed, the work of the pair count counted.
    fn solve_profiled(&self, task: &Task) -> Result<(Counts, Profile), Error> {
        let key = self.geometry.key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        let tails = self.tails_of(&key.split);
        let started = Stopwatch::start();
        let profiled = Count::profiled(&self.pair_kernel, key.slice);
        let Count { clock, tally, .. } = self.walk_with(&key, &tails, profiled);
        let seconds = started.elapsed().as_secs_f64();
        let counts = Counts { total: tally.total, ..Counts::default() };
        Ok((counts, self.profile(&clock.unwrap_or_default(), &tally, seconds)))
    }

    /// Each stretch of the walk timed, and charged to the task that does it once
    /// ([`Join::charges`]).
    fn measure(&self, task: &Task) -> Result<Measurement, Error> {
        let bytes = task.key_for(self)?;
        let key = self.geometry.key(bytes).ok_or_else(|| task.foreign())?;
        // Held before the clock starts: another thread's task may have taken the split's
        // tables out of the cache since `prepare`, and their building is no stretch of
        // this task's (a count builds them once per split).
        let tails = self.tails_of(&key.split);
        let started = Stopwatch::start();
        let north_rows = key.split.order.len().saturating_sub(self.budget.tail_rows);
        let end_north_owned = key.decided.len() >= north_rows;
        let timed = Count::timed(&self.pair_kernel, key.slice, end_north_owned, key.is_row_set());
        let Count { clock, tally, .. } = self.walk_with(&key, &tails, timed);
        let total = started.elapsed();
        let charges = self.charges(bytes, &key, &clock.unwrap_or_default(), total);
        Ok(Measurement { charges, solutions: tally.total })
    }

    fn for_sample(&self, threads: usize) -> Option<Arc<dyn Engine>> {
        self.sampled_by(threads).map(|join| Arc::new(join) as Arc<dyn Engine>)
    }

    fn sampled_tasks(&self, count_tasks: usize) -> usize {
        SAMPLE_FINER * count_tasks
    }

    fn min_memory_per_thread(&self) -> Option<u64> {
        Some(budget::MIN_MEMORY)
    }

    /// The join holds the half-boards of a row set, whole while they fit in its budget:
    /// the half-boards of one row set with many of them are built, and their size taken
    /// with a margin, or the budget if that is less. The probe stops once the figure passes
    /// the budget or `up_to`.
    fn bytes_per_thread(&self, up_to: u64) -> Result<Option<u64>, Error> {
        let probed = self.probe_bytes(self.budget.probe_limit(up_to));
        Ok(Some(self.budget.bytes_per_thread(probed)))
    }

    /// The row set the probe builds is the one with the most half-boards, so what it holds
    /// is what a worker holds at its peak. The probe stops where the bound's does: walked
    /// to the budget, it took minutes at N = 28.
    fn expected_bytes_per_thread(&self) -> Result<Option<u64>, Error> {
        let limit = self.budget.probe_limit(u64::MAX);
        let probed = self.probe_bytes(limit);
        Ok(Some(self.budget.expected_bytes_per_thread(probed, limit)))
    }

    fn expected_shared_bytes(&self) -> u64 {
        self.budget.expected_shared_bytes()
    }

    fn held_shared_bytes(&self) -> u64 {
        self.tails.held_bytes() as u64
    }
}

#[cfg(test)]
mod tests;
