//! Every memory decision of the join: how many tail rows the tables hold, how many splits
//! the tail cache keeps, how much room the walk's lists may take, when a fill or a row
//! set's signatures are cut into pieces, and what a worker thread needs in all.
//!
//! A count runs for hours on machines shared with other work, so the join holds to the
//! bytes per thread it is given, counting the largest row sets in pieces rather than
//! asking for more. Keeping these figures in one place keeps them consistent with each
//! other: the walk asks the budget, and the budget answers from what the walk holds.

use std::collections::BTreeMap;
use std::sync::{Mutex, PoisonError};

use super::board::Geometry;
use super::pair_count;
use super::split::NAME;
use super::tail::{self, TailBoard};
use crate::error::Error;

/// How many times the memory of the probe row set a task may need (see
/// [`Budget::bytes_per_thread`]): the most that any task has needed more than that row set
/// on the boards measured (N = 10 to 18 needed at most 3.6 times).
const MEMORY_MARGIN: u64 = 4;

/// The fewest bytes per worker thread the join takes: the pair count's tables and buckets,
/// and a few megabytes of half-boards.
pub(super) const MIN_MEMORY: u64 = 4 << 20;

/// What the pair count holds beyond the half-boards and what grows with them
/// ([`SIGNATURE_BYTES`]), at most: its tables (at most [`pair_count::MOST_TABLE_BYTES`]
/// per lane width) and the permutation's.
pub(super) const SCRATCH_BYTES: u64 = 1 << 20;

/// The share of a thread's budget that the tail tables it counts (the cache's splits and
/// the one it may build) may take at most: half. On an even board, one split, all of that
/// half is its tables': of the default 1.5 GiB, N = 22's 10 tail rows (676 MiB), N = 24's
/// 9, N = 26's and 28's 8. A sixth (before the tables were built in place) held N = 22's
/// 9 rows, which took 0.95 of the time of the 8 rows an eighth held on a shard of N = 22
/// (docs/measurements/join.md).
const TAIL_TABLES_SHARE: usize = 2;

/// The splits whose tables the tail cache holds at least, when the board has that many: an
/// estimate samples tasks of every split at random, and two threads in neighbouring splits
/// of the key order must not evict each other. An odd board's cache holds every split
/// where that costs no tail row ([`Budget::new`]).
const CACHED_SPLITS: usize = 3;

/// The copies of one split's tail tables that the tail rows are chosen for: the cache's,
/// and one more for a split built while the cache is full, whose tables are written in
/// place (tail.rs). They are chosen as if each thread held them all, so that a count's
/// tail rows, and with them its tasks' work, are the same on any number of threads; each
/// thread's budget then counts only its share of the cache ([`Budget::new`]). A cache that
/// holds every split (an even board's one, or all of an odd board's) never evicts one, so
/// it never builds a copy beside the ones it holds: on an even board, counting a building
/// beside it, and the list of found boards that took as much again, held N = 26 to 7 tail
/// rows at the default budget, where 8 took 0.64 of the time of its checked tasks
/// (docs/measurements/join.md).
fn counted_copies(cached_splits: usize, splits: usize) -> usize {
    if cached_splits >= splits { splits } else { cached_splits + 1 }
}

/// The bytes a complete half-board's signature may take: once in its half's list, once
/// more sorted into its bucket by the pair count, and its share of the pair count's bounds
/// of buckets ([`pair_count::BOUND_BYTES_PER_SIGNATURE`]), which grow with the lists.
pub(super) const SIGNATURE_BYTES: usize =
    2 * size_of::<u64>() + pair_count::BOUND_BYTES_PER_SIGNATURE;

/// What one worker thread of the join may hold, shared out.
#[derive(Clone, Copy, Debug)]
pub(super) struct Budget {
    /// The most bytes a worker's lists of half-boards may hold at once: a fill that would
    /// pass it is cut into pieces, each counted with the rest of the walk below it.
    pub(super) lists: usize,
    /// How many of the last rows of a split's order come from tables, and the most bytes
    /// the tables of one split take.
    pub(super) tail_rows: usize,
    pub(super) tail_bytes: usize,
    /// How many splits' tables the tail cache holds, and the bytes of tail tables a
    /// thread counts: its share of the cache, which the threads share, and the copy of a
    /// split it builds while the cache is full.
    pub(super) cached_splits: usize,
    pub(super) tail_counted: usize,
}

impl Budget {
    /// The budget of `memory_per_thread` bytes for an `n`-board on each of `threads`
    /// threads; below [`MIN_MEMORY`] it is refused with [`Error::MemoryBudget`].
    pub(super) fn new(
        geometry: &Geometry,
        memory_per_thread: u64,
        threads: usize,
    ) -> Result<Budget, Error> {
        if memory_per_thread < MIN_MEMORY {
            return Err(Error::MemoryBudget {
                method: NAME,
                bytes: memory_per_thread,
                min: MIN_MEMORY,
            });
        }
        let room = usize::try_from(memory_per_thread - SCRATCH_BYTES).unwrap_or(usize::MAX);
        // Every split of an odd board where its tables then hold as many rows as with
        // three: a count's random first tasks and an estimate's sample draw from every
        // split, and with three of N = 21's 11 held, a sample drawn in random order built
        // tables before nearly every timing (0.1 to 0.25 s each). A row fewer at N = 25
        // made its checked row sets 1.17 times dearer, so a row is not given up for it
        // (docs/measurements/join.md).
        // Each choice counts the tail boards of its tables, so a board with no more splits
        // than the few is counted once.
        let splits = geometry.split_count();
        let tail_with = |cached| {
            let copies = counted_copies(cached, splits);
            (cached, copies, tail_for(geometry, room / TAIL_TABLES_SHARE / copies))
        };
        let every = tail_with(splits);
        let (cached_splits, copies, (tail_rows, tail_bytes)) = if splits <= CACHED_SPLITS {
            every
        } else {
            let few = tail_with(CACHED_SPLITS);
            if every.2.0 >= few.2.0 { every } else { few }
        };
        let cache_share = (cached_splits * tail_bytes).div_ceil(threads.max(1));
        let tail_counted = cache_share + (copies - cached_splits) * tail_bytes;
        let lists = room - tail_counted;
        Ok(Budget { lists, tail_rows, tail_bytes, cached_splits, tail_counted })
    }

    /// The budget of a sample of a board with `splits` splits timed by `threads` threads:
    /// its cache holds as many splits as the tail share of all their budgets does, less
    /// the one a thread builds while it is full, at least the count's and at most every
    /// split, with the count's tail rows. A sample draws from every split, and on odd boards
    /// the count's few (3 of N = 21's 11 and N = 25's 13) were rebuilt before most timings,
    /// each build alone, with the other thread waiting: `estimate 21` and `estimate 25` ran
    /// on one of their two threads (docs/measurements/plans.md).
    pub(super) fn sampled_by(self, splits: usize, threads: usize) -> Budget {
        let tail_share = (self.lists + self.tail_counted) / TAIL_TABLES_SHARE;
        let held = (threads * tail_share / self.tail_bytes.max(1)).saturating_sub(1);
        Budget { cached_splits: held.min(splits).max(self.cached_splits), ..self }
    }

    /// The bytes a thread holds besides its lists.
    fn fixed_bytes(&self) -> u64 {
        SCRATCH_BYTES + self.tail_counted as u64
    }

    /// The bytes the probe may stop at when the figure it serves is wanted only up to
    /// `up_to`: past that, the answer is above `up_to` whatever it is.
    pub(super) fn probe_limit(&self, up_to: u64) -> usize {
        let stop_at = up_to.saturating_sub(self.fixed_bytes()).min(self.lists as u64);
        usize::try_from(stop_at / MEMORY_MARGIN).unwrap_or(usize::MAX)
    }

    /// The bytes one worker holds, from what the probe row set held (`probed`): that
    /// taken [`MEMORY_MARGIN`] times, or the lists' budget if that is less, and the rest.
    pub(super) fn bytes_per_thread(&self, probed: usize) -> u64 {
        let lists = (probed as u64).saturating_mul(MEMORY_MARGIN).min(self.lists as u64);
        lists + self.fixed_bytes()
    }

    /// The bytes one worker is expected to hold at most, from what the probe row set held
    /// (`probed`, the probe stopped past `limit`): that row set's lists and the pair count's
    /// scratch. A probe that stopped says only that the lists may pass the budget, so the
    /// budget stands in. Unlike the bound, this leaves out the tail tables, which the
    /// threads share ([`Budget::expected_shared_bytes`]), and the copies a thread holds
    /// while it builds a split's tables, which are freed before its lists grow again:
    /// counted for every thread, as the bound does, they made N = 22's prediction 1.4 GiB
    /// for a count that held 425 MiB.
    pub(super) fn expected_bytes_per_thread(&self, probed: usize, limit: usize) -> u64 {
        let lists = if probed > limit { self.lists } else { probed.min(self.lists) };
        lists as u64 + SCRATCH_BYTES
    }

    /// The bytes of the tail tables the threads share: the cache's splits, held once.
    pub(super) fn expected_shared_bytes(&self) -> u64 {
        (self.cached_splits * self.tail_bytes) as u64
    }

    /// The bytes a probe's figure adds for the pair count's tables.
    pub(super) fn probed(list_bytes: usize) -> usize {
        list_bytes + pair_count::MOST_TABLE_BYTES
    }

    /// Whether a fill that leaves the walk's lists at `held` bytes keeps them in the half
    /// of the budget where fills are whole.
    pub(super) fn fill_is_whole(&self, held: usize) -> bool {
        held <= self.lists / 2
    }

    /// The bytes one fill may take once fills are cut, with the lists holding `held` bytes
    /// after freeing what the walk refills before reading, and `lists` lists (this one
    /// among them) still to be filled below it: the room left in the first half of the
    /// budget, or an equal share of all the room left among those lists. A list below takes
    /// at most the share its own fill is given, which is never less than this one's (the
    /// lists filled in between took at most theirs), so the walk stays within the budget.
    /// An equal share of the other half among all the walk's lists, as before, cut a row
    /// set of N = 26 at its second-last north row into eighteen pieces, every one of which
    /// walked, readied, joined and sorted the other half's boards again; this took N = 26's
    /// checked row sets to 0.66 of the time (docs/measurements/join.md).
    pub(super) fn fill_bytes(&self, held: usize, lists: usize) -> usize {
        let half = self.lists / 2;
        half.saturating_sub(held).max(self.lists.saturating_sub(held) / lists.max(1))
    }

    /// The signatures one half's piece may take at a row set: half of what the north
    /// boards (`north_bytes`) leave of the budget, and at least a share as large as one of
    /// the walk's `lists`.
    pub(super) fn signatures_per_piece(&self, north_bytes: usize, lists: usize) -> usize {
        let share = self.lists / 2 / lists.max(1);
        (self.lists.saturating_sub(north_bytes) / 2).max(share) / SIGNATURE_BYTES
    }
}

/// How many rows the tables should hold: N/2 - 1, which leaves the middle row and every
/// row above it to the walk, where the transposes' ranks note their columns. More tail
/// rows leave less to walk, but each joins more pairs of north and tail boards. On even
/// boards, since the joins of north and tail boards are written in vectors, N/2 - 1 tail
/// rows took 0.97 of the time of N/2 - 2 at N = 18 and 0.98 at N = 20, and the same at
/// N = 22; an odd board's split, whose halves are as wide as N - 1's, took 0.92 of the
/// time of N/3 at N = 19 (docs/measurements/join.md).
pub(super) fn most_tail_rows(n: usize) -> usize {
    (n / 2).saturating_sub(1)
}

/// The tail rows, at most [`most_tail_rows`], whose tables take at most `most` bytes, with
/// the bytes they take. The tables are counted on the even board's split, whose halves are
/// as wide as any odd board's and whose cells are all open.
fn tail_for(geometry: &Geometry, most: usize) -> (usize, usize) {
    let n = geometry.n;
    let width = n / 2;
    let mut rows = most_tail_rows(n);
    loop {
        let fits = most.saturating_sub(tail::table_bytes(rows, width, 0)) / size_of::<TailBoard>();
        let boards = TailBoards::remembered(geometry, rows, fits);
        // No tail rows is one empty board per half, which any budget holds.
        match boards {
            Some(boards) => return (rows, tail::table_bytes(rows, width, boards)),
            None if rows == 0 => return (0, tail::table_bytes(0, width, 2)),
            None => rows -= 1,
        }
    }
}

/// What is known of the tail boards of an `n`-board's `rows` tail rows: how many, or that
/// there are more than `boards`. Every problem built counts them for its budget, and a
/// count builds several for one board (its kernel, its threads, its memory): at N = 28 each
/// took a second of its start-up, nearly all of it (docs/measurements/memory.md).
#[derive(Clone, Copy, Debug, PartialEq)]
struct TailBoards {
    boards: usize,
    all_counted: bool,
}

/// The tail boards counted so far in this process, by board size and tail rows.
static COUNTED_TAIL_BOARDS: Mutex<BTreeMap<(usize, usize), TailBoards>> =
    Mutex::new(BTreeMap::new());

impl TailBoards {
    /// The tail boards of `rows` tail rows on `geometry`'s even split if there are at most
    /// `fits`, `None` if there are more: counted once per board and rows where the count is
    /// known, again (up to `fits`) where only a smaller bound is.
    fn remembered(geometry: &Geometry, rows: usize, fits: usize) -> Option<usize> {
        let key = (geometry.n, rows);
        let known =
            COUNTED_TAIL_BOARDS.lock().unwrap_or_else(PoisonError::into_inner).get(&key).copied();
        if let Some(known) = known
            && let Some(answer) = known.answer(fits)
        {
            return answer;
        }
        let counted = TailBoards::count(geometry, rows, fits);
        let mut memo = COUNTED_TAIL_BOARDS.lock().unwrap_or_else(PoisonError::into_inner);
        let entry = memo.entry(key).or_insert(counted);
        if counted.all_counted || (!entry.all_counted && counted.boards > entry.boards) {
            *entry = counted;
        }
        counted.answer(fits).flatten()
    }

    /// What this says of whether there are at most `fits`: `Some` of the count if so,
    /// `Some(None)` if not, and `None` where it cannot say.
    fn answer(self, fits: usize) -> Option<Option<usize>> {
        match self {
            TailBoards { boards, all_counted: true } => Some((boards <= fits).then_some(boards)),
            TailBoards { boards, all_counted: false } if boards > fits => Some(None),
            _ => None,
        }
    }

    /// Counts the tail boards, stopping past `fits`.
    fn count(geometry: &Geometry, rows: usize, fits: usize) -> TailBoards {
        let n = geometry.n;
        let split = geometry.even_split();
        let tail = &split.order[n - rows..];
        let mut boards = 0;
        let all_counted = [split.columns.west, split.columns.east].iter().all(|&half| {
            tail::each_tail_board(n, &split, half, tail, &mut |_, _| {
                boards += 1;
                boards <= fits
            })
        });
        TailBoards { boards, all_counted }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::DEFAULT_MEMORY_PER_THREAD;
    use crate::join::tail::Tails;

    #[test]
    fn tail_tables_take_at_most_what_the_budget_counts_for_them() {
        for n in 6..=18 {
            let geometry = Geometry::new(n);
            for memory in [MIN_MEMORY, DEFAULT_MEMORY_PER_THREAD] {
                let budget = Budget::new(&geometry, memory, 1).unwrap();
                let room = (memory - SCRATCH_BYTES) as usize;
                let copies = counted_copies(budget.cached_splits, geometry.split_count());
                assert!(budget.tail_bytes <= room / TAIL_TABLES_SHARE / copies, "N = {n}");
                assert!(budget.tail_rows <= most_tail_rows(n), "N = {n}");
                assert!(budget.cached_splits >= 2.min(geometry.splits().len()), "N = {n}");
                for split in geometry.splits() {
                    let tails = Tails::build(&geometry, &split, budget.tail_rows);
                    assert!(
                        tails.bytes() <= budget.tail_bytes,
                        "N = {n}, {:?}",
                        split.middle_queen
                    );
                }
            }
        }
        let small = Budget::new(&Geometry::new(18), MIN_MEMORY, 1).unwrap();
        let large = Budget::new(&Geometry::new(18), DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        assert!(small.tail_rows < large.tail_rows, "a small budget holds fewer tail rows");
    }

    /// The tail cache is held once, however many threads read it, so each thread's budget
    /// counts its share: the threads' lists grow with the share they no longer count, and
    /// what they and the cache hold adds up to no more than their budgets. The tail rows
    /// are the same on any number of threads.
    #[test]
    fn threads_count_their_share_of_the_tail_cache() {
        for n in [16, 17, 18, 21] {
            let geometry = Geometry::new(n);
            let alone = Budget::new(&geometry, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
            for threads in 1..=16 {
                let budget = Budget::new(&geometry, DEFAULT_MEMORY_PER_THREAD, threads).unwrap();
                assert_eq!(
                    (budget.tail_rows, budget.tail_bytes),
                    (alone.tail_rows, alone.tail_bytes)
                );
                let cache = budget.cached_splits * budget.tail_bytes;
                let own_copy = alone.tail_counted - cache;
                let held = threads * (budget.lists + own_copy + SCRATCH_BYTES as usize) + cache;
                assert!(held as u64 <= threads as u64 * DEFAULT_MEMORY_PER_THREAD, "N = {n}");
                let unshared = cache - cache.div_ceil(threads);
                assert_eq!(budget.lists, alone.lists + unshared, "N = {n}, {threads} threads");
                assert!(threads == 1 || budget.lists > alone.lists, "N = {n}");
            }
        }
    }

    /// A sample's cache holds what the tail share of its threads' budgets holds, never
    /// fewer splits than the count's nor more than the board has, with the count's tables.
    #[test]
    fn a_sample_holds_more_splits_of_the_same_tables() {
        let geometry = Geometry::new(21);
        let count = Budget::new(&geometry, DEFAULT_MEMORY_PER_THREAD, 1).unwrap();
        let splits = geometry.split_count();
        assert!(count.cached_splits < splits, "N = 21's count holds {}", count.cached_splits);
        for threads in 1..=4 {
            let sample = count.sampled_by(splits, threads);
            assert_eq!(
                (sample.tail_rows, sample.tail_bytes, sample.lists),
                (count.tail_rows, count.tail_bytes, count.lists)
            );
            let share = threads * (DEFAULT_MEMORY_PER_THREAD - SCRATCH_BYTES) as usize / 2;
            assert!((sample.cached_splits + 1) * sample.tail_bytes <= share, "{threads} threads");
            assert!(sample.cached_splits > count.cached_splits, "{threads} threads");
        }
        assert_eq!(count.sampled_by(splits, 2).cached_splits, splits);
    }

    /// Whatever was asked before, in this test or another of the process, the tail boards
    /// remembered answer as counting them does: a bound answers only above it.
    #[test]
    fn remembered_tail_boards_answer_as_counting_them() {
        for n in [12, 13, 16] {
            let geometry = Geometry::new(n);
            let rows = most_tail_rows(n);
            let all = TailBoards::count(&geometry, rows, usize::MAX);
            assert!(all.all_counted && all.boards > 3, "N = {n}");
            let asked = [all.boards / 2, all.boards / 3, all.boards - 1, all.boards, usize::MAX, 0];
            for fits in asked {
                let counted = (all.boards <= fits).then_some(all.boards);
                let remembered = TailBoards::remembered(&geometry, rows, fits);
                assert_eq!(remembered, counted, "N = {n}, at most {fits}");
            }
        }
    }

    #[test]
    fn a_budget_below_the_least_is_refused() {
        assert!(matches!(
            Budget::new(&Geometry::new(18), MIN_MEMORY - 1, 1),
            Err(Error::MemoryBudget { .. })
        ));
    }
}
