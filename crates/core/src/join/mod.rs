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
//! An odd board first places the queens of the middle row and the middle column (one queen
//! if it is the centre); the remaining rows then split between the two halves as above,
//! with those queens' diagonals forbidden to both.
//!
//! The half-boards of a row set are built in two parts, like quadrants: the walk places
//! the queens of the first rows (the north) row by row, sharing the work between row sets
//! with the same first rows, and the queens of the last rows (the tail) come from tables
//! that hold every placement of every subset of those rows on each half, built once per
//! split.
//!
//! Symmetry: reflecting the board north-south maps `R` to its mirror image and reflecting it
//! east-west maps `R` to its complement, so an even board counts one `R` of each such orbit,
//! weighed by the orbit's size. The transpose maps `R` to the columns of the north queens:
//! a solution counts twice, once or not at all as those rank above, with or below `R`
//! ([`transpose`]), which each half-board decides alone. On an odd board the eight
//! symmetries map the middle row and column onto themselves, so only one placement of
//! their queens per orbit is counted.
//!
//! The files follow these parts: [`split`] (the halves, orbits and task keys),
//! [`transpose`] (the ranks), [`walk`] (the north rows and each row set's count), [`tail`]
//! (the tables and their cache), [`refill`] (the lists the walk fills), [`signatures`]
//! (a row set's half-boards from the two parts), [`budget`] (every
//! memory decision) and [`pair_count`] (the disjoint pairs). This file ties them into the
//! [`Engine`].

mod budget;
mod pair_count;
mod refill;
mod signatures;
mod split;
mod tail;
mod transpose;
mod walk;

use std::sync::Arc;
use std::time::{Duration, Instant};

use self::budget::Budget;
use self::pair_count::{PairKernel, Slice};
pub(crate) use self::split::MAX_JOIN_N;
use self::split::{Geometry, Key, NAME, SLICES, Side, Split};
use self::tail::{TailCache, Tails};
use self::walk::{Clock, Count, JoinCount, Probe, Walk};
use crate::counts::Counts;
use crate::engine::{Charge, Engine, Task};
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
    /// `memory_per_thread` bytes per worker thread; a kernel this processor lacks is
    /// refused with [`Error::Kernel`], a budget below the least it takes with
    /// [`Error::MemoryBudget`].
    pub(crate) fn new(n: usize, kernel: Kernel, memory_per_thread: u64) -> Result<Join, Error> {
        if !(1..=MAX_JOIN_N).contains(&n) {
            return Err(Error::MethodSize { method: NAME, n, max: MAX_JOIN_N });
        }
        let pair_kernel =
            PairKernel::new(kernel).ok_or(Error::Kernel { kernel, n, max_n: MAX_JOIN_N })?;
        let geometry = Geometry::new(n);
        let budget = Budget::new(&geometry, memory_per_thread)?;
        let tails = Arc::new(TailCache::new(budget.cached_splits));
        Ok(Join { geometry, pair_kernel, budget, tails })
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
        let count = Count::new(&self.pair_kernel, key.slice);
        let mut walk = Walk::new(&self.geometry, &self.budget, key, tails, count);
        walk.run();
        walk.goal.tally
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

    /// The tail tables of `split`, from the cache.
    fn tails_of(&self, split: &Split) -> Arc<Tails> {
        self.tails.get(split.centre, || Tails::build(&self.geometry, split, self.budget.tail_rows))
    }

    /// The bytes one worker holds while it counts a row set with many half-boards: the one
    /// whose rows alternate between the halves, which leaves the queens of each half the
    /// farthest apart. The walk builds that row set's half-boards without counting their
    /// pairs, and stops as soon as it holds more than `limit` bytes, returning the most it
    /// held. Its split's tail tables come from the cache, so that the count after it does
    /// not build them a second time while its other threads wait.
    fn probe_bytes(&self, limit: usize) -> usize {
        let mut split = self.geometry.first_split();
        split.reflect = false;
        let mut rows = split.order.clone();
        rows.sort_unstable();
        let west: Vec<u8> = rows.iter().step_by(2).take(split.quota().west).copied().collect();
        let side = |row| if west.contains(row) { Side::West } else { Side::East };
        let decided = split.order.iter().map(side).collect();
        let tails = self.tails_of(&split);
        let key = Key { split, decided, slice: Slice::WHOLE };
        let mut walk = Walk::new(&self.geometry, &self.budget, &key, &tails, Probe { limit });
        walk.run();
        Budget::probed(walk.peak_list_bytes)
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
    /// of a row set over the budget it takes the same share of the first fill's later
    /// meetings of its pieces of half-boards, and every [`SLICES`]-th meeting of later
    /// fills whole (`Count::row_set` in walk.rs). Slices that took whole meetings only
    /// where a fill of the north rows had several, and groups elsewhere, mixed what they
    /// charged to the row set and to themselves: N = 26 predicted twice its count. Cut by
    /// the column of a half's first queen instead, a piece's lists were shorter than its
    /// row set's, and the pair count, choosing its buckets by their lengths, skipped fewer
    /// pairs: pieces predicted 2.7 times their row sets at N = 20.
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

    /// The tables are held before the clock starts, as [`Engine::measure`] holds them.
    fn solve_timed(&self, task: &Task) -> Result<(Counts, Duration), Error> {
        let key = self.geometry.key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        let tails = self.tails_of(&key.split);
        let started = Instant::now();
        let tally = self.solve_with(&key, &tails);
        let seconds = started.elapsed();
        Ok((Counts { total: tally.total, ..Counts::default() }, seconds))
    }

    /// Each stretch of the walk timed, and charged to the task that does it once
    /// ([`Join::charges`]).
    fn measure(&self, task: &Task) -> Result<Vec<Charge>, Error> {
        let bytes = task.key_for(self)?;
        let key = self.geometry.key(bytes).ok_or_else(|| task.foreign())?;
        // Held before the clock starts: another thread's task may have taken the split's
        // tables out of the cache since `prepare`, and their building is no stretch of
        // this task's (a count builds them once per split).
        let tails = self.tails_of(&key.split);
        let started = Instant::now();
        let north_rows = key.split.order.len().saturating_sub(self.budget.tail_rows);
        let end_north_owned = key.decided.len() >= north_rows;
        let timed = Count::timed(&self.pair_kernel, key.slice, end_north_owned, key.is_row_set());
        let mut walk = Walk::new(&self.geometry, &self.budget, &key, &tails, timed);
        walk.run();
        let clock = walk.goal.clock.take().unwrap_or_default();
        drop(walk);
        let total = started.elapsed();
        Ok(self.charges(bytes, &key, &clock, total))
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
}

#[cfg(test)]
mod tests {
    use nqueens_test_support::{
        count_solutions_within, row_set_weight, transposed_weight, weigh_solutions_within,
    };

    use super::split::{Centre, canonical_centres};
    use super::*;
    use crate::engine::DEFAULT_MEMORY_PER_THREAD;

    /// The columns a key allows each row: the half it puts the row in, or the column of a
    /// middle queen it fixes.
    fn allowed_columns(n: usize, key: &[u8]) -> Vec<u64> {
        let half = n / 2;
        let west = (1u64 << half) - 1;
        let east = ((1u64 << n) - 1) & !((1u64 << (n - half)) - 1);
        // A row the key leaves undecided (the centre placement frees one more row) may
        // take either half.
        let mut allowed = vec![west | east; n];
        let (order, decided): (Vec<usize>, &[u8]) = if n.is_multiple_of(2) {
            ((0..n).collect(), key)
        } else {
            let (row, column) = (usize::from(key[0]), usize::from(key[1]));
            allowed[row] = 1 << half;
            allowed[half] = 1 << column;
            ((0..n).filter(|&r| r != row && r != half).collect(), &key[2..])
        };
        for (&row, &goes_west) in order.iter().zip(decided) {
            allowed[row] = if goes_west == 1 { west } else { east };
        }
        allowed
    }

    /// How many row sets (or centre placements) a complete key stands for: the size of
    /// its orbit under the reflections, worked out from the sets themselves, or 0 if
    /// another member of the orbit is the one counted (the least of those with row 0
    /// west).
    fn weight(n: usize, key: &[u8]) -> u128 {
        if !n.is_multiple_of(2) {
            let centre = Centre { row: usize::from(key[0]), column: usize::from(key[1]) };
            return canonical_centres(n).iter().find(|(c, _)| *c == centre).unwrap().1;
        }
        let set: u32 =
            key.iter().enumerate().filter(|&(_, &west)| west == 1).fold(0, |s, (r, _)| s | 1 << r);
        row_set_weight(n, set)
    }

    #[test]
    fn every_row_set_agrees_with_backtracking() {
        for n in 4..=14 {
            let join = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
            let mut total = 0u128;
            for key in join.geometry.keys(join.geometry.most_decided()) {
                let counted = join.solve_key(&key).unwrap().total;
                let allowed = allowed_columns(n, &key);
                let found = if n.is_multiple_of(2) {
                    weigh_solutions_within(&allowed, transposed_weight)
                } else {
                    count_solutions_within(&allowed)
                };
                assert_eq!(counted, weight(n, &key) * found, "N = {n}, key {key:?}");
                total += counted;
            }
            let expected = crate::count(n, crate::Method::Plain).unwrap().total;
            assert_eq!(total, expected, "N = {n}");
        }
    }

    /// The finest tasks below `task`, and their pieces.
    fn leaves(join: &Join, task: &Task) -> Vec<Task> {
        let mut finer = join.children(task).unwrap();
        if finer.is_empty() {
            finer = join.pieces(task).unwrap();
        }
        if finer.is_empty() {
            return vec![task.clone()];
        }
        finer.iter().flat_map(|part| leaves(join, part)).collect()
    }

    /// Every task's children end in row sets, and its row sets' slices partition its
    /// solutions; a piece's work is charged to the tasks between its list's task and
    /// itself.
    #[test]
    fn pieces_partition_a_task_and_charge_its_work() {
        for n in 6..=13 {
            let join = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
            let mut cut = 0;
            for task in join.tasks(join.max_depth()) {
                let finest = leaves(&join, &task);
                // A descent never ends above a row set, where it would time work that
                // counts nothing.
                let row_set = |leaf: &Task| join.geometry.key(leaf.key()).unwrap().is_row_set();
                assert!(finest.iter().all(row_set), "N = {n}, {task:?}");
                let total: u128 =
                    finest.iter().map(|leaf| join.solve(leaf, false).unwrap().total).sum();
                assert_eq!(total, join.solve(&task, false).unwrap().total, "N = {n}, {task:?}");
                let head = if n.is_multiple_of(2) { 0 } else { 2 };
                for leaf in &finest {
                    for charge in join.measure(leaf).unwrap() {
                        assert!((head + 1..=leaf.key().len()).contains(&charge.owner), "N = {n}");
                        assert!(charge.seconds > 0.0, "N = {n}");
                    }
                }
                cut += usize::from(finest.len() > 1);
            }
            assert!(cut > 0, "N = {n}: no row set has pieces");
        }
    }

    #[test]
    fn the_parts_of_a_prefix_are_the_next_split() {
        for n in [8, 9, 12, 13] {
            let join = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
            for depth in 0..join.max_depth() {
                let deeper: Vec<Task> = join.tasks(depth + 1);
                let parts: Vec<Task> = join
                    .tasks(depth)
                    .iter()
                    .flat_map(|task| join.children(task).unwrap())
                    .collect();
                // Parts leave out only the prefixes that put more rows in a half than it
                // has columns, which hold no solution.
                assert!(parts.iter().all(|part| deeper.contains(part)), "N = {n}");
                let dropped: u128 = deeper
                    .iter()
                    .filter(|task| !parts.contains(task))
                    .map(|task| join.solve(task, false).unwrap().total)
                    .sum();
                assert_eq!(dropped, 0, "N = {n}, depth {depth}");
            }
        }
    }

    #[test]
    fn row_sets_over_the_budget_count_exactly_in_pieces() {
        for n in [9, 10, 11, 12, 13, 14] {
            let whole = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
            let mut total = 0;
            let mut split = false;
            for bytes in whole.geometry.keys(2) {
                let key = whole.geometry.key(&bytes).unwrap();
                let tails = whole.tails_of(&key.split);
                let count = || Count::new(&whole.pair_kernel, Slice::WHOLE);
                let mut walk = Walk::new(&whole.geometry, &whole.budget, &key, &tails, count());
                walk.run();
                // A third of what the task holds whole, so that its largest lists split.
                let lists = (walk.peak_list_bytes / 3).max(1024);
                let budget = Budget { lists, ..whole.budget };
                let mut in_pieces = Walk::new(&whole.geometry, &budget, &key, &tails, count());
                in_pieces.run();
                assert_eq!(
                    in_pieces.goal.tally.total, walk.goal.tally.total,
                    "N = {n}, key {bytes:?}"
                );
                total += in_pieces.goal.tally.total;
                split |= walk.peak_list_bytes > lists;
                // Past the budget by at most one board's extensions in each list.
                let most_per_board = n.div_ceil(2) * size_of::<split::HalfBoard>();
                assert!(
                    in_pieces.peak_list_bytes <= lists + (n + 2) * most_per_board,
                    "N = {n} peak {} budget {lists} whole {}",
                    in_pieces.peak_list_bytes,
                    walk.peak_list_bytes
                );
                let scratch = walk.goal.pair_scratch.held_bytes();
                assert!(scratch <= budget::SCRATCH_BYTES as usize, "N = {n}");
                for walk in [&walk, &in_pieces] {
                    let sorted = walk.goal.pair_scratch.sorted_bytes();
                    assert!(sorted <= walk.signature_bytes() / 2, "N = {n}");
                }
            }
            assert_eq!(total, crate::count(n, crate::Method::Plain).unwrap().total, "N = {n}");
            assert!(split || n < 12, "N = {n} fits the budget whole");
        }
    }

    /// A row set over the budget, which meets its pieces of half-boards in every fill of
    /// its north rows, adds up to its slices too.
    #[test]
    fn slices_of_row_sets_over_the_budget_add_up_to_them() {
        for n in [12, 13, 14] {
            let whole = Join::new(n, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
            for bytes in whole.geometry.keys(whole.geometry.most_decided()).into_iter().step_by(7) {
                let key = whole.geometry.key(&bytes).unwrap();
                let tails = whole.tails_of(&key.split);
                let mut walk = Walk::new(
                    &whole.geometry,
                    &whole.budget,
                    &key,
                    &tails,
                    Count::new(&whole.pair_kernel, Slice::WHOLE),
                );
                walk.run();
                let lists = (walk.peak_list_bytes / 3).max(1024);
                let budget = Budget { lists, ..whole.budget };
                let mut sum = 0;
                for index in 0..SLICES {
                    let slice = Slice::nth(index, SLICES);
                    let timed = Count::timed(&whole.pair_kernel, slice, true, true);
                    let mut piece = Walk::new(&whole.geometry, &budget, &key, &tails, timed);
                    piece.run();
                    sum += piece.goal.tally.total;
                    assert!(piece.peak_list_bytes > 0 && walk.peak_list_bytes > lists);
                }
                assert_eq!(sum, walk.goal.tally.total, "N = {n}, key {bytes:?}");
            }
        }
    }

    #[test]
    fn a_budget_bounds_the_estimate() {
        let least = budget::MIN_MEMORY;
        let join = Join::new(18, Kernel::Auto, least).unwrap();
        let unbounded = Join::new(18, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
        let whole = unbounded.bytes_per_thread(u64::MAX).unwrap().unwrap();
        assert!(whole > least, "N = 18 needs {whole} bytes whole");
        assert_eq!(join.bytes_per_thread(u64::MAX).unwrap(), Some(least));
    }

    #[test]
    fn the_count_uses_the_tail_tables_the_probe_built() {
        let join = Join::new(12, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
        join.bytes_per_thread(u64::MAX).unwrap();
        let split = join.geometry.first_split();
        let probed = join.tails.get(split.centre, || panic!("the probe left no tables"));
        assert!(Arc::ptr_eq(&probed, &join.tails_of(&split)));
    }

    #[test]
    fn tasks_of_the_splits_the_cache_holds_build_no_tables() {
        let join = Join::new(13, Kernel::Auto, DEFAULT_MEMORY_PER_THREAD).unwrap();
        let splits = join.geometry.splits();
        let held = &splits[..join.budget.cached_splits];
        assert!(held.len() >= 2, "two threads in neighbouring splits share the cache");
        let first: Vec<_> = held.iter().map(|split| join.tails_of(split)).collect();
        for (split, tails) in held.iter().zip(&first).rev() {
            assert!(Arc::ptr_eq(tails, &join.tails_of(split)), "{:?} rebuilt", split.centre);
        }
    }
}
