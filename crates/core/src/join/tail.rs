//! The tail tables: every placement of every subset of a split's last rows on each half,
//! built once per split and shared by the worker threads through a cache.
//!
//! The walk places the queens of a split's first rows (the north) row by row; a half-board
//! is a north board and a tail board on the columns it leaves free whose diagonals miss
//! each other. Building the deep levels one board at a time cost most of the join's time
//! on odd boards before the tables; they are a file of their own because they are built
//! apart from the walk, once per split, and cached across tasks.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, OnceLock, PoisonError};

use super::board::{Geometry, HalfBoard, PerSide, Side, Span, diagonals_of, rising};
use super::split::Split;
use super::transpose::Rank;

/// A placement of some tail rows on one half, or a north board readied to meet them: its
/// bits on the diagonals where north and tail boards can meet ([`Meeting`]), and its
/// crossing diagonals, which make up a half-board's signature.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct TailBoard {
    /// A north board keeps its rank ([`super::transpose`]) here too, from bit
    /// [`RANK_SHIFT`] on, above every meeting bit, so that the clash test with a tail board
    /// ignores it.
    pub(super) meets: u64,
    pub(super) signature: u64,
}

/// Where a north board's [`TailBoard::meets`] holds its rank.
const RANK_SHIFT: u32 = 48;

impl TailBoard {
    /// A north board readied for the tail, with its rank.
    pub(super) fn north(meets: u64, signature: u64, rank: Rank) -> TailBoard {
        TailBoard { meets: meets | u64::from(rank) << RANK_SHIFT, signature }
    }

    /// A north board's rank.
    pub(super) fn rank(&self) -> Rank {
        (self.meets >> RANK_SHIFT) as Rank
    }
}

/// The diagonals of one half on which a north board and a tail board can both have a
/// queen. The north rows all lie above the tail rows, so only a few diagonals of each
/// direction (fewer than the half's columns) hold cells of both; a board's bits on them,
/// packed into one word, make the clash test one AND.
#[derive(Clone, Copy, Debug)]
pub(super) struct Meeting {
    rising: Span,
    falling: Span,
}

impl Meeting {
    fn of(n: usize, columns: u64, north: &[u8], tail: &[u8]) -> Meeting {
        let meet = |diagonal: &dyn Fn(usize, usize) -> u32| {
            let seen = |rows| diagonals_of(n, rows, columns, diagonal);
            Span::covering(seen(north) & seen(tail))
        };
        let meeting =
            Meeting { rising: meet(&rising), falling: meet(&|r, c| (c + n - 1 - r) as u32) };
        debug_assert!(meeting.rising.len + meeting.falling.len <= RANK_SHIFT);
        meeting
    }

    pub(super) fn bits(self, board: &HalfBoard) -> u64 {
        self.rising.extract(board.rising) | self.falling.extract(board.falling) << self.rising.len
    }
}

/// The columns of one half: at most `n / 2` of them from `low`.
#[derive(Clone, Copy, Debug)]
struct HalfColumns {
    columns: u64,
    low: u32,
}

/// Every placement of every subset of the tail rows on one half's columns, grouped by the
/// subset and, within it, by the columns it takes. A north board that leaves the columns
/// `c` of its half free completes, with the tail rows `s`, exactly the boards of group
/// `(s, c)` whose diagonals miss its own.
///
/// The boards' two words are kept in two lists, so that a vector loads the meeting bits
/// of several boards at once, and their signatures.
#[derive(Debug)]
pub(super) struct TailTable {
    meets: Vec<u64>,
    signatures: Vec<u64>,
    /// Group `(s, c)`, with `c` relative to the half's lowest column, is the boards from
    /// `starts[s * masks + c]` to `starts[s * masks + c + 1]`.
    starts: Vec<u32>,
    half: HalfColumns,
    /// The column sets of the half's width.
    pub(super) masks: usize,
    pub(super) meeting: Meeting,
}

impl TailTable {
    /// The table of `half` for the tail rows `rows` of `split`.
    fn build(geometry: &Geometry, split: &Split, half: HalfColumns, rows: &[u8]) -> TailTable {
        let masks = 1usize << (geometry.n / 2);
        let groups = masks << rows.len();
        let north = &split.order[..split.order.len() - rows.len()];
        let meeting = Meeting::of(geometry.n, half.columns, north, rows);
        // Two passes over the placements, one to count each group's boards and one to
        // write them in place: a list of the found boards before they were sorted into
        // their groups took as much memory again as the table, and the budget counted it.
        let group_of = |subset: usize, board: &HalfBoard| {
            subset * masks + (board.columns >> half.low) as usize
        };
        let mut starts = vec![0u32; groups + 1];
        each_tail_board(geometry.n, split, half.columns, rows, &mut |subset, board| {
            starts[group_of(subset, board) + 1] += 1;
            true
        });
        for group in 0..groups {
            starts[group + 1] += starts[group];
        }
        let boards = starts[groups] as usize;
        let mut next = starts.clone();
        let (mut meets, mut signatures) = (vec![0; boards], vec![0; boards]);
        each_tail_board(geometry.n, split, half.columns, rows, &mut |subset, board| {
            let at = &mut next[group_of(subset, board)];
            let at_index = *at as usize;
            (meets[at_index], signatures[at_index]) =
                (meeting.bits(board), geometry.signature(board));
            *at += 1;
            true
        });
        TailTable { meets, signatures, starts, half, masks, meeting }
    }

    /// The columns of the half that `board` leaves free, relative to its lowest.
    pub(super) fn free_columns(&self, board: &HalfBoard) -> usize {
        ((self.half.columns & !board.columns) >> self.half.low) as usize
    }

    /// The tail boards of the rows `subset` on the columns `free`, which complete the
    /// north boards that leave those columns free where their diagonals do not meet.
    pub(super) fn group(&self, subset: usize, free: usize) -> TailGroup<'_> {
        let group = subset * self.masks + free;
        let boards = self.starts[group] as usize..self.starts[group + 1] as usize;
        TailGroup { meets: &self.meets[boards.clone()], signatures: &self.signatures[boards] }
    }

    fn bytes(&self) -> usize {
        (self.meets.len() + self.signatures.len()) * size_of::<u64>()
            + self.starts.len() * size_of::<u32>()
    }
}

/// The tail boards of one group of a [`TailTable`]: the words of each board, at the same
/// position in both lists.
#[derive(Clone, Copy, Debug)]
pub(super) struct TailGroup<'a> {
    pub(super) meets: &'a [u64],
    pub(super) signatures: &'a [u64],
}

impl TailGroup<'_> {
    pub(super) fn len(&self) -> usize {
        self.meets.len()
    }
}

/// The bytes the tables of `rows` tail rows take on halves of `width` columns that hold
/// `boards` tail boards in all, both halves together.
pub(super) fn table_bytes(rows: usize, width: usize, boards: usize) -> usize {
    2 * ((1 << (rows + width)) + 1) * size_of::<u32>() + boards * size_of::<TailBoard>()
}

/// Calls `found` with every placement of every subset of `rows` (the subset as bits, one
/// per row in `rows`) on the columns `half`, as long as it returns true; returns whether
/// it always did.
pub(super) fn each_tail_board(
    n: usize,
    split: &Split,
    half: u64,
    rows: &[u8],
    found: &mut impl FnMut(usize, &HalfBoard) -> bool,
) -> bool {
    /// Where the placement stands: the next row's index in `rows`, and the subset so far.
    struct Placing<'a> {
        n: usize,
        open: &'a [u64],
        half: u64,
        rows: &'a [u8],
    }
    fn place(
        at: &Placing<'_>,
        index: usize,
        subset: usize,
        board: HalfBoard,
        found: &mut impl FnMut(usize, &HalfBoard) -> bool,
    ) -> bool {
        let Some(&row) = at.rows.get(index) else {
            return found(subset, &board);
        };
        if !place(at, index + 1, subset, board, found) {
            return false;
        }
        let row = usize::from(row);
        let fall = at.n - 1 - row;
        let mut free = at.half & at.open[row] & !board.columns;
        free &= !(board.rising >> row) & !(board.falling >> fall);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let next = board.with_queen(bit, row, fall);
            if !place(at, index + 1, subset | 1 << index, next, found) {
                return false;
            }
        }
        true
    }
    let at = Placing { n, open: &split.open, half, rows };
    place(&at, 0, 0, HalfBoard::default(), found)
}

/// The tail tables of one split, for both halves.
#[derive(Debug)]
pub(super) struct Tails(pub(super) PerSide<Arc<TailTable>>);

impl Tails {
    /// The table of `side`'s half for the last `tail_rows` rows of `split`'s order.
    pub(super) fn build_half(
        geometry: &Geometry,
        split: &Split,
        tail_rows: usize,
        side: Side,
    ) -> TailTable {
        let rows = &split.order[split.order.len() - tail_rows..];
        let low = PerSide { west: 0, east: geometry.east_low() };
        let half = HalfColumns { columns: split.columns[side], low: low[side] };
        TailTable::build(geometry, split, half, rows)
    }

    #[cfg(test)]
    pub(super) fn build(geometry: &Geometry, split: &Split, tail_rows: usize) -> Tails {
        let half = |side| Arc::new(Tails::build_half(geometry, split, tail_rows, side));
        Tails(PerSide { west: half(Side::West), east: half(Side::East) })
    }

    #[cfg(test)]
    pub(super) fn bytes(&self) -> usize {
        self.0.west.bytes() + self.0.east.bytes()
    }

    /// Whether both hold the same tables, not copies.
    #[cfg(test)]
    pub(super) fn same(&self, other: &Tails) -> bool {
        Arc::ptr_eq(&self.0.west, &other.0.west) && Arc::ptr_eq(&self.0.east, &other.0.east)
    }
}

/// The tail tables of the splits used last, shared by the worker threads. Tasks of several
/// splits come in any order (an estimate samples them at random, and a count's threads
/// work in neighbouring splits), so the cache holds as many splits as the budget counts,
/// and forgets the one used least recently. A split is built once while it is held, by
/// the threads that need it: the first starts with the west half, the second with the
/// east, and each then waits for or builds the other, so that two threads that reach a
/// split together build it in half the time rather than one waiting for the other (an odd
/// board's count builds each split once or twice, 0.115 s of building at N = 21).
#[derive(Debug)]
pub(super) struct TailCache {
    slots: usize,
    /// The splits held, the one used last at the end.
    held: Mutex<Vec<Slot>>,
}

/// One split's tables in the cache.
#[derive(Debug)]
struct Slot {
    middle_queen: Option<usize>,
    tables: Arc<SplitTables>,
}

/// One split's tables, each half built once by the first thread that asks for it.
#[derive(Debug, Default)]
struct SplitTables {
    halves: PerSide<OnceLock<Arc<TailTable>>>,
    /// How many threads have asked: each starts with the half this makes its turn.
    asked: AtomicUsize,
}

impl TailCache {
    /// A cache of `slots` splits, at least one.
    pub(super) fn new(slots: usize) -> TailCache {
        TailCache { slots: slots.max(1), held: Mutex::default() }
    }

    /// The tables of the split of `middle_queen` ([`Split::middle_queen`]), each half built
    /// with `build` unless held.
    pub(super) fn get(
        &self,
        middle_queen: Option<usize>,
        build: impl Fn(Side) -> TailTable,
    ) -> Tails {
        let tables = {
            let mut held = self.lock();
            let slot = match held.iter().position(|slot| slot.middle_queen == middle_queen) {
                Some(at) => held.remove(at),
                None => {
                    if held.len() == self.slots {
                        held.remove(0);
                    }
                    Slot { middle_queen, tables: Arc::default() }
                }
            };
            let tables = Arc::clone(&slot.tables);
            held.push(slot);
            tables
        };
        // Built outside the cache's lock, so that other splits' tasks need not wait. A
        // half another thread is building is waited for by `get_or_init`, which builds it
        // anew if that thread failed, so no thread waits for a build that never ends.
        let half = |side| Arc::clone(tables.halves[side].get_or_init(|| Arc::new(build(side))));
        let (west, east) = if tables.asked.fetch_add(1, Ordering::Relaxed).is_multiple_of(2) {
            let west = half(Side::West);
            (west, half(Side::East))
        } else {
            let east = half(Side::East);
            (half(Side::West), east)
        };
        Tails(PerSide { west, east })
    }

    /// The bytes of the tables built so far.
    pub(super) fn held_bytes(&self) -> usize {
        let built = |slot: &Slot| -> usize {
            let halves = &slot.tables.halves;
            Side::BOTH.iter().filter_map(|&side| halves[side].get()).map(|t| t.bytes()).sum()
        };
        self.lock().iter().map(built).sum()
    }

    /// A cache of `slots` splits that holds, to begin with, what this one holds.
    pub(super) fn widened(&self, slots: usize) -> TailCache {
        let held = (self.lock().iter())
            .map(|slot| Slot { middle_queen: slot.middle_queen, tables: Arc::clone(&slot.tables) })
            .collect();
        TailCache { slots: slots.max(1), held: Mutex::new(held) }
    }

    /// Whether the tables of the split of `middle_queen` are built and held.
    pub(super) fn holds(&self, middle_queen: Option<usize>) -> bool {
        let held = self.lock();
        held.iter().any(|slot| {
            let halves = &slot.tables.halves;
            slot.middle_queen == middle_queen
                && halves.west.get().is_some()
                && halves.east.get().is_some()
        })
    }

    fn lock(&self) -> MutexGuard<'_, Vec<Slot>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_builds_each_split_once_while_it_holds_it() {
        let geometry = Geometry::new(9);
        let splits = geometry.splits();
        let cache = TailCache::new(2);
        let builds = std::cell::Cell::new(0);
        let fetch = |split: &Split| {
            cache.get(split.middle_queen, |side| {
                builds.set(builds.get() + 1);
                Tails::build_half(&geometry, split, 2, side)
            });
        };
        // Alternating between two splits in random order rebuilds nothing.
        for split in [&splits[0], &splits[1], &splits[0], &splits[0], &splits[1]] {
            fetch(split);
        }
        assert_eq!(builds.get(), 2 * 2);
        let holds = |split: &Split| cache.holds(split.middle_queen);
        assert!(holds(&splits[0]) && holds(&splits[1]) && !holds(&splits[2]));
        // A third split evicts the least recently used, the first.
        fetch(&splits[2]);
        assert!(!holds(&splits[0]) && holds(&splits[1]) && holds(&splits[2]));
        fetch(&splits[1]);
        assert_eq!(builds.get(), 3 * 2);
        fetch(&splits[0]);
        assert_eq!(builds.get(), 4 * 2);
        assert!(holds(&splits[0]) && holds(&splits[1]) && !holds(&splits[2]));
    }

    #[test]
    fn two_threads_that_need_a_split_at_once_build_a_half_each() {
        use std::time::{Duration, Instant};
        let geometry = Geometry::new(9);
        let split = &geometry.splits()[1];
        let cache = TailCache::new(2);
        let building = AtomicUsize::new(0);
        let builders = Mutex::new(Vec::new());
        let fetch = || {
            cache.get(split.middle_queen, |side| {
                // Each build waits, for a while, until both are under way: one thread that
                // built both halves would wait here alone, and be recorded twice.
                building.fetch_add(1, Ordering::SeqCst);
                let began = Instant::now();
                while building.load(Ordering::SeqCst) < 2
                    && began.elapsed() < Duration::from_secs(60)
                {
                    std::thread::yield_now();
                }
                builders.lock().unwrap().push((side, std::thread::current().id()));
                Tails::build_half(&geometry, split, 2, side)
            })
        };
        let (first, second) = std::thread::scope(|scope| {
            let first = scope.spawn(fetch);
            let second = scope.spawn(fetch);
            (first.join().unwrap(), second.join().unwrap())
        });
        assert!(first.same(&second), "one table for both");
        let builders = builders.into_inner().unwrap();
        assert_eq!(builders.len(), 2, "each half built once: {builders:?}");
        assert_ne!(builders[0].0, builders[1].0, "{builders:?}");
        assert_ne!(builders[0].1, builders[1].1, "by different threads: {builders:?}");
        for side in [Side::West, Side::East] {
            let alone = Tails::build_half(&geometry, split, 2, side);
            let table = &first.0[side];
            assert_eq!((&table.meets, &table.signatures), (&alone.meets, &alone.signatures));
            assert_eq!(table.starts, alone.starts);
        }
    }

    #[test]
    fn a_build_that_fails_is_built_again_by_the_next_thread_that_asks() {
        let geometry = Geometry::new(9);
        let split = &geometry.splits()[1];
        let cache = TailCache::new(2);
        let failed = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            cache.get(split.middle_queen, |_| panic!("the build failed"))
        }));
        assert!(failed.is_err());
        assert!(!cache.holds(split.middle_queen));
        cache.get(split.middle_queen, |side| Tails::build_half(&geometry, split, 2, side));
        assert!(cache.holds(split.middle_queen));
    }
}
