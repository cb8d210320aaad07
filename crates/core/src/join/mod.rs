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
//! Symmetry: reflecting the board north-south maps `R` to its mirror image and reflecting it
//! east-west maps `R` to its complement, so an even board counts one `R` of each such orbit,
//! weighed by the orbit's size. On an odd board the eight symmetries map the middle row and
//! column onto themselves, so only one placement of their queens per orbit is counted.

mod disjoint;

use std::mem::MaybeUninit;
use std::ops::Range;

use self::disjoint::PairKernel;
use crate::counts::Counts;
use crate::engine::{Engine, Task};
use crate::error::Error;
use crate::kernel::Kernel;

/// The largest board the join handles: row sets are `u32`s and signatures `u64`s.
pub(crate) const MAX_JOIN_N: usize = 32;

/// How many times the memory of the probe row set a task may need (see
/// [`Join::probe_bytes`]): the most that any task has needed more than that row set on the
/// boards measured (N = 10 to 18 needed at most 3.6 times).
pub const JOIN_MEMORY_MARGIN: u64 = 4;

/// The most bytes per worker thread the join holds unless told otherwise. Every row set
/// up to N = 23 fits whole; from N = 24 the largest may be counted in pieces, so that
/// N = 28 runs on 2 GiB per thread with room for the rest of the process.
pub const DEFAULT_JOIN_MEMORY: u64 = 3 << 29;

/// The fewest bytes per worker thread the join takes: the pair count's tables and buckets,
/// and a few megabytes of half-boards.
pub const MIN_JOIN_MEMORY: u64 = 4 << 20;

/// What the pair count holds beyond the half-boards, at most: its tables (at most
/// [`disjoint::MOST_TABLE_BYTES`] per lane width) and its buckets' bounds.
const SCRATCH_BYTES: u64 = 1 << 20;

/// The bytes a complete half-board's signature may take: once in its half's list, and
/// once more sorted into its bucket by the pair count.
const SIGNATURE_BYTES: usize = 2 * size_of::<u64>();

/// Diagonals, numbered as bits of a `u64`, that have cells on both sides of the split.
#[derive(Clone, Copy, Debug)]
struct Span {
    low: u32,
    len: u32,
}

impl Span {
    fn of(n: usize, diagonal: impl Fn(usize, usize) -> u32, west: u64, east: u64) -> Span {
        let (mut seen_west, mut seen_east) = (0u64, 0u64);
        for row in 0..n {
            for column in 0..n {
                let bit = 1u64 << diagonal(row, column);
                if west >> column & 1 == 1 {
                    seen_west |= bit;
                }
                if east >> column & 1 == 1 {
                    seen_east |= bit;
                }
            }
        }
        let crossing = seen_west & seen_east;
        // The crossing diagonals of a vertical split are consecutive in both numberings.
        // A board too small to have a crossing diagonal has an empty span, starting anywhere.
        Span { low: crossing.trailing_zeros() % 64, len: crossing.count_ones() }
    }

    fn extract(self, diagonals: u64) -> u64 {
        (diagonals >> self.low) & ((1u64 << self.len) - 1)
    }
}

/// One placement of the middle row's and middle column's queens on an odd board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Centre {
    /// The row of the middle column's queen.
    row: usize,
    /// The column of the middle row's queen.
    column: usize,
}

/// A board split for the join: the rows still free, in the order their halves are decided,
/// the columns of each half, and the cells the fixed queens leave open.
#[derive(Clone, Debug)]
struct Split {
    /// The free rows in the order the walk decides them. With [`Split::reflect`] they go
    /// from the outside in (0, N-1, 1, N-2, ...), so that the north-south mirror swaps
    /// neighbours and a row set's orbit is settled pair by pair; otherwise from the top, so
    /// that neighbouring rows, which attack each other most, prune each half early.
    order: Vec<u8>,
    west: u64,
    east: u64,
    /// Per row, the columns no fixed queen attacks.
    open: [u64; MAX_JOIN_N],
    /// Even boards count one row set per orbit of the two reflections; odd boards count
    /// every row set of a canonical centre placement, weighed by its orbit.
    reflect: bool,
    weight: u128,
}

impl Split {
    /// How many of the free rows put their queen in each half: one per column.
    fn quota(&self) -> (usize, usize) {
        (self.west.count_ones() as usize, self.east.count_ones() as usize)
    }
}

/// The join engine for one board size.
#[derive(Clone, Debug)]
pub(crate) struct Join {
    n: usize,
    /// The columns of the west and east halves; the middle column of an odd board is in
    /// neither.
    west: u64,
    east: u64,
    rising: Span,
    falling: Span,
    /// The canonical centre placements of an odd board with their orbit sizes; empty when
    /// `n` is even.
    centres: Vec<(Centre, u128)>,
    /// What counts the disjoint pairs of signatures.
    pairs: PairKernel,
    /// The most bytes a worker's lists of half-boards may hold at once: a fill that would
    /// pass it is cut into pieces, each counted with the rest of the walk below it.
    list_budget: usize,
}

/// A task of the join, read from its key: the split it works in and the halves it decides.
struct Key<'k> {
    split: Split,
    decided: &'k [u8],
}

/// What one task found: solutions (already weighed by symmetry), and the work it took.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct JoinTally {
    total: u128,
    /// Pairs of half-boards tested for a clash.
    pairs: u128,
}

impl Join {
    /// The join of an `n`-board, its pairs tested on `kernel`, holding at most
    /// `memory_per_thread` bytes per worker thread; a kernel this processor lacks is
    /// refused with [`Error::Kernel`], a budget below [`MIN_JOIN_MEMORY`] with
    /// [`Error::MemoryBudget`].
    pub(crate) fn new(n: usize, kernel: Kernel, memory_per_thread: u64) -> Result<Join, Error> {
        if !(1..=MAX_JOIN_N).contains(&n) {
            return Err(Error::JoinSize { n, max: MAX_JOIN_N });
        }
        if memory_per_thread < MIN_JOIN_MEMORY {
            return Err(Error::MemoryBudget { bytes: memory_per_thread, min: MIN_JOIN_MEMORY });
        }
        let list_budget = usize::try_from(memory_per_thread - SCRATCH_BYTES).unwrap_or(usize::MAX);
        let pairs =
            PairKernel::new(kernel).ok_or(Error::Kernel { kernel, n, max_n: MAX_JOIN_N })?;
        let half = n / 2;
        let west = (1u64 << half) - 1;
        let east = ((1u64 << n) - 1) & !((1u64 << (n - half)) - 1);
        let rising = Span::of(n, |r, c| (r + c) as u32, west, east);
        let falling = Span::of(n, |r, c| (c + n - 1 - r) as u32, west, east);
        let centres = if n % 2 == 1 { canonical_centres(n) } else { Vec::new() };
        Ok(Join { n, west, east, rising, falling, centres, pairs, list_budget })
    }

    /// Every task of `depth` decided rows, in a fixed order: on an odd board the centre
    /// placement's row and column, then one byte per decided row in [`Split::order`], 1 if
    /// its queen stands west. Prefixes that cannot lead to a counted row set are left out.
    fn keys(&self, depth: usize) -> Vec<Vec<u8>> {
        let mut keys = Vec::new();
        if self.n.is_multiple_of(2) {
            let split = self.even_split();
            split_prefixes(&split, depth, &mut Vec::new(), Orbit::START, &mut keys);
        } else {
            for &(centre, weight) in &self.centres {
                let split = self.odd_split(centre, weight);
                let mut prefix = vec![centre.row as u8, centre.column as u8];
                split_prefixes(&split, depth, &mut prefix, Orbit::START, &mut keys);
            }
        }
        keys
    }

    /// The most rows whose half a task can decide: every row left free by the middle queens.
    fn most_decided(&self) -> usize {
        if self.n.is_multiple_of(2) { self.n } else { self.n.saturating_sub(2) }
    }

    /// Reads a task's key, or `None` if it is not a task of this board.
    fn key<'k>(&self, bytes: &'k [u8]) -> Option<Key<'k>> {
        let (split, decided) = if self.n.is_multiple_of(2) {
            (self.even_split(), bytes)
        } else {
            let (&[row, column], decided) = bytes.split_first_chunk::<2>()?;
            let centre = Centre { row: usize::from(row), column: usize::from(column) };
            let &(_, weight) = self.centres.iter().find(|(c, _)| *c == centre)?;
            (self.odd_split(centre, weight), decided)
        };
        if decided.len() > split.order.len() || decided.iter().any(|&d| d > 1) {
            return None;
        }
        Some(Key { split, decided })
    }

    /// Counts the solutions below one task's key, or `None` if the key is not a task of
    /// this board.
    fn solve_key(&self, bytes: &[u8]) -> Option<JoinTally> {
        let key = self.key(bytes)?;
        let mut walk = Walk::new(self, &key.split, key.decided);
        walk.visit(0, (0, 0), Orbit::START);
        Some(walk.tally)
    }

    /// The bytes one worker holds while it counts a row set with many half-boards: the one
    /// whose rows alternate between the halves, which leaves the queens of each half the
    /// farthest apart. The walk builds that row set's half-boards without counting their
    /// pairs, and stops as soon as it holds more than `budget` bytes, returning the most it
    /// held.
    fn probe_bytes(&self, budget: usize) -> usize {
        let mut split = match self.centres.first() {
            Some(&(centre, weight)) => self.odd_split(centre, weight),
            None => self.even_split(),
        };
        split.reflect = false;
        let mut rows = split.order.clone();
        rows.sort_unstable();
        let (west_quota, _) = split.quota();
        let west: Vec<u8> = rows.iter().step_by(2).take(west_quota).copied().collect();
        let decided: Vec<u8> = split.order.iter().map(|row| u8::from(west.contains(row))).collect();
        let mut walk = Walk::new(self, &split, &decided);
        walk.probe_budget = Some(budget);
        walk.visit(0, (0, 0), Orbit::START);
        walk.peak_list_bytes + disjoint::MOST_TABLE_BYTES
    }

    /// The crossing diagonals a half-board occupies, as one word.
    fn signature(&self, board: &Partial) -> u64 {
        self.rising.extract(board.rising) | self.falling.extract(board.falling) << self.rising.len
    }

    fn signature_bits(&self) -> u32 {
        self.rising.len + self.falling.len
    }

    fn even_split(&self) -> Split {
        Split {
            order: middle_out(self.n),
            west: self.west,
            east: self.east,
            open: [(1u64 << self.n) - 1; MAX_JOIN_N],
            reflect: true,
            weight: 1,
        }
    }

    fn odd_split(&self, centre: Centre, weight: u128) -> Split {
        let n = self.n;
        let middle = n / 2;
        let fixed = [(centre.row, middle), (middle, centre.column)];
        let mut open = [0u64; MAX_JOIN_N];
        for (row, open) in open.iter_mut().enumerate().take(n) {
            for column in 0..n {
                let attacked = fixed.iter().any(|&(r, c)| {
                    r == row || c == column || r.abs_diff(row) == c.abs_diff(column)
                });
                if !attacked {
                    *open |= 1 << column;
                }
            }
        }
        let without = |mask: u64| mask & !(1u64 << centre.column);
        Split {
            order: (0..n).filter(|&r| r != centre.row && r != middle).map(|r| r as u8).collect(),
            west: without(self.west),
            east: without(self.east),
            open,
            reflect: false,
            weight,
        }
    }
}

impl Engine for Join {
    fn name(&self) -> &'static str {
        "join"
    }

    fn kernel(&self) -> Kernel {
        self.pairs.kernel()
    }

    fn max_depth(&self) -> usize {
        self.most_decided()
    }

    fn tasks(&self, depth: usize) -> Vec<Task> {
        self.keys(depth).into_iter().map(|key| Task::new(self.name(), key)).collect()
    }

    fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error> {
        let tally = self.solve_key(task.key_for(self)?).ok_or_else(|| task.foreign())?;
        let nodes = if count_nodes { tally.pairs } else { 0 };
        Ok(Counts { total: tally.total, nodes, ..Counts::default() })
    }

    /// The join holds the half-boards of a row set, whole while they fit in its budget:
    /// the half-boards of one row set with many of them are built, and their size taken
    /// [`JOIN_MEMORY_MARGIN`] times, or the budget if that is less. The probe stops once
    /// the figure passes the budget or `up_to`.
    fn bytes_per_thread(&self, up_to: u64) -> Result<Option<u64>, Error> {
        let bound = self.list_budget as u64 + SCRATCH_BYTES;
        let stop_at = up_to.min(bound) / JOIN_MEMORY_MARGIN;
        let probe = self.probe_bytes(usize::try_from(stop_at).unwrap_or(usize::MAX)) as u64;
        Ok(Some(probe.saturating_mul(JOIN_MEMORY_MARGIN).min(bound)))
    }
}

/// The rows of an even board in mirror pairs from the middle out: N/2 - 1, N/2, N/2 - 2,
/// N/2 + 1, ...
fn middle_out(n: usize) -> Vec<u8> {
    (0..n / 2).rev().flat_map(|row| [row as u8, (n - 1 - row) as u8]).collect()
}

/// Where a row set stands against the other members of its orbit under the north-south
/// mirror (`m`), the east-west reflection (complement, `c`) and both (`mc`), compared in
/// [`Split::order`]: for each, whether its decisions so far equal the row set's own. A row
/// set is counted only if no member of its orbit comes first, so the first pair of rows
/// where a member differs settles whether that member can still come first.
#[derive(Clone, Copy, Debug)]
struct Orbit {
    tied: [bool; 3],
}

impl Orbit {
    const START: Orbit = Orbit { tied: [true; 3] };

    /// The state after a pair of mirror rows decided `(a, b)`, or `None` if a member of the
    /// orbit now comes first.
    fn after(self, a: u8, b: u8) -> Option<Orbit> {
        let images = [(b, a), (1 - a, 1 - b), (1 - b, 1 - a)];
        let mut tied = self.tied;
        for (tied, image) in tied.iter_mut().zip(images) {
            if *tied {
                if image < (a, b) {
                    return None;
                }
                *tied = image == (a, b);
            }
        }
        Some(Orbit { tied })
    }

    /// The number of distinct row sets in the orbit: the four symmetries over the number
    /// that leave the row set unchanged.
    fn size(self) -> u128 {
        4 / (1 + self.tied.iter().filter(|&&t| t).count() as u128)
    }
}

/// The orbit state after deciding position `position` of a split's order as `choice`,
/// given the decision before it; `None` if the row set cannot be the one counted.
fn advance(split: &Split, orbit: Orbit, position: usize, before: u8, choice: u8) -> Option<Orbit> {
    if split.reflect && position % 2 == 1 { orbit.after(before, choice) } else { Some(orbit) }
}

/// Appends every prefix of `depth` decisions that respects the halves' quotas and the
/// orbit rule.
fn split_prefixes(
    split: &Split,
    depth: usize,
    prefix: &mut Vec<u8>,
    orbit: Orbit,
    keys: &mut Vec<Vec<u8>>,
) {
    // The decisions so far: an odd board's keys start with the centre placement's two bytes.
    let head = prefix.len() - usize::from(!split.reflect) * 2;
    if head == depth {
        keys.push(prefix.clone());
        return;
    }
    let west = prefix[prefix.len() - head..].iter().filter(|&&d| d == 1).count();
    let (west_quota, east_quota) = split.quota();
    for choice in [0u8, 1] {
        let fits = if choice == 1 { west < west_quota } else { head - west < east_quota };
        let before = prefix.last().copied().unwrap_or(0);
        let Some(orbit) = fits.then(|| advance(split, orbit, head, before, choice)).flatten()
        else {
            continue;
        };
        prefix.push(choice);
        split_prefixes(split, depth, prefix, orbit, keys);
        prefix.pop();
    }
}

/// A half-board under construction: the columns it took, and its diagonals as bits
/// `row + column` and `column + N - 1 - row`.
#[derive(Clone, Copy, Debug, Default)]
struct Partial {
    columns: u64,
    rising: u64,
    falling: u64,
}

/// A list refilled in place, its room kept from fill to fill. A fill may write more
/// candidates than it keeps, so that it needs no unpredictable branch per candidate; the
/// room is left uninitialised, since zeroing a bound that is many times the list it holds
/// cost a fifth of the join's time at N = 20.
#[derive(Clone, Debug, Default)]
struct Refill<T> {
    items: Vec<T>,
}

impl<T: Copy> Refill<T> {
    fn of(items: Vec<T>) -> Refill<T> {
        Refill { items }
    }

    fn as_slice(&self) -> &[T] {
        &self.items
    }

    fn as_mut_slice(&mut self) -> &mut [T] {
        &mut self.items
    }

    fn len(&self) -> usize {
        self.items.len()
    }

    /// The bytes of room a refill of at most `bound` items leaves: the room grows at
    /// least twofold, so that slowly growing fills do not move the list every time.
    fn room_after(&self, bound: usize) -> usize {
        let capacity = self.items.capacity();
        let items = if bound <= capacity { capacity } else { bound.max(2 * capacity) };
        items * size_of::<T>()
    }

    /// Lets `fill` write at most `bound` items and keeps the number it returns: `fill`
    /// must have written every item below that number.
    fn refill(&mut self, bound: usize, fill: impl FnOnce(&mut [MaybeUninit<T>]) -> usize) {
        let room = self.room_after(bound) / size_of::<T>();
        if room > self.items.capacity() {
            // Dropped first, so that the old room and the new are never held at once.
            self.items = Vec::new();
            self.items.reserve_exact(room);
        }
        self.items.clear();
        let len = fill(&mut self.items.spare_capacity_mut()[..bound]);
        assert!(len <= bound, "a fill keeps at most the items it had room for");
        // SAFETY: `fill` wrote the first `len` items, and the room holds `bound >= len`.
        unsafe { self.items.set_len(len) };
    }

    fn held_bytes(&self) -> usize {
        self.items.capacity() * size_of::<T>()
    }

    fn release(&mut self) {
        self.items = Vec::new();
    }
}

impl Refill<u64> {
    /// The room a list of signatures takes, with their sorted copies in the pair count.
    fn signature_bytes(&self) -> usize {
        self.items.capacity() * SIGNATURE_BYTES
    }
}

/// One half of the board as the walk builds it.
struct Half {
    columns: u64,
    /// The rows that put their queen in this half: one per column.
    quota: usize,
    /// `levels[k]`: the partial boards of the first `k` rows decided for this half.
    levels: Vec<Refill<Partial>>,
    /// The signatures of the complete half-boards, once the last row is decided.
    signatures: Refill<u64>,
    /// The bytes of room its lists hold.
    held: usize,
}

impl Half {
    fn new(columns: u64) -> Half {
        let quota = columns.count_ones() as usize;
        let mut levels = vec![Refill::default(); quota.max(1)];
        levels[0] = Refill::of(vec![Partial::default()]);
        // A half with no columns is complete from the start: one empty board.
        let signatures = Refill::of(if quota == 0 { vec![0] } else { Vec::new() });
        let held = levels[0].held_bytes() + signatures.signature_bytes();
        Half { columns, quota, levels, signatures, held }
    }

    /// The room the signatures take, with their sorted copies in the pair count.
    fn signature_bytes(&self) -> usize {
        self.signatures.signature_bytes()
    }

    /// The room the fill of the list after `level` would leave if it took `boards` boards
    /// of `level`, and the room that list holds now.
    fn fill_bytes(&self, level: usize, boards: usize) -> (usize, usize) {
        let bound = boards * (self.quota - level);
        if level + 1 == self.quota {
            let room = self.signatures.room_after(bound) / size_of::<u64>() * SIGNATURE_BYTES;
            (room, self.signature_bytes())
        } else {
            let next = &self.levels[level + 1];
            (next.room_after(bound), next.held_bytes())
        }
    }

    /// The bytes one board of `level` may add to the list after it.
    fn bytes_per_board(&self, level: usize) -> usize {
        let item = if level + 1 == self.quota { SIGNATURE_BYTES } else { size_of::<Partial>() };
        (self.quota - level) * item
    }

    /// Frees the lists after `level`, which hold nothing the walk will read again before
    /// it refills them.
    fn release_after(&mut self, level: usize) {
        for list in self.levels.iter_mut().skip(level + 1) {
            self.held -= list.held_bytes();
            list.release();
        }
        if level < self.quota {
            self.held -= self.signature_bytes();
            self.signatures.release();
        }
    }

    /// Places a queen of this half's `level`-th row in `row`, on a column of `open`, on
    /// each of the `boards` of that level; false if no board is left.
    fn place(
        &mut self,
        join: &Join,
        level: usize,
        boards: Range<usize>,
        row: usize,
        open: u64,
    ) -> bool {
        let free = self.quota - level;
        let (done, next) = self.levels.split_at_mut(level + 1);
        let from = &done[level].as_slice()[boards];
        let bound = from.len() * free;
        let (grown, placed) = if level + 1 == self.quota {
            let before = self.signatures.signature_bytes();
            self.signatures.refill(bound, |to| complete(from, to, join, row, self.columns, open));
            (self.signatures.signature_bytes() - before, self.signatures.len())
        } else {
            let n = join.n;
            let before = next[0].held_bytes();
            next[0].refill(bound, |to| extend(from, to, n, row, self.columns, open, free));
            (next[0].held_bytes() - before, next[0].len())
        };
        self.held += grown;
        placed > 0
    }
}

/// The depth-first walk of one task: every row, in [`Split::order`], joins the west or the
/// east half, and each half's partial boards grow with it, so that row sets sharing a
/// prefix share the work of placing it. A half with no board left ends the branch.
struct Walk<'a> {
    join: &'a Join,
    split: &'a Split,
    decided: &'a [u8],
    choices: Vec<u8>,
    west: Half,
    east: Half,
    pairs: disjoint::Scratch,
    tally: JoinTally,
    /// Set for a walk that only measures memory: it counts nothing, and gives up once it
    /// holds more than this many bytes.
    probe_budget: Option<usize>,
    over_budget: bool,
    /// The most bytes the walk's lists have held at once.
    peak_list_bytes: usize,
}

impl<'a> Walk<'a> {
    fn new(join: &'a Join, split: &'a Split, decided: &'a [u8]) -> Walk<'a> {
        Walk {
            join,
            split,
            decided,
            choices: Vec::with_capacity(split.order.len()),
            west: Half::new(split.west),
            east: Half::new(split.east),
            pairs: disjoint::Scratch::default(),
            tally: JoinTally::default(),
            probe_budget: None,
            over_budget: false,
            peak_list_bytes: 0,
        }
    }

    fn visit(&mut self, position: usize, (west, east): (usize, usize), orbit: Orbit) {
        let Some(&row) = self.split.order.get(position) else {
            self.leaf(orbit);
            return;
        };
        let row = usize::from(row);
        let forced = self.decided.get(position).copied();
        for choice in [0u8, 1] {
            if forced.is_some_and(|f| f != choice) {
                continue;
            }
            let before = self.choices.last().copied().unwrap_or(0);
            let Some(orbit) = advance(self.split, orbit, position, before, choice) else {
                continue;
            };
            let (side, level) = if choice == 1 { (&self.west, west) } else { (&self.east, east) };
            if level == side.quota {
                continue;
            }
            let boards = side.levels[level].len();
            let per_fill = self.boards_per_fill(choice, (west, east));
            for start in (0..boards).step_by(per_fill) {
                let side = if choice == 1 { &mut self.west } else { &mut self.east };
                let piece = start..boards.min(start + per_fill);
                if !side.place(self.join, level, piece, row, self.split.open[row]) {
                    continue;
                }
                self.peak_list_bytes = self.peak_list_bytes.max(self.list_bytes());
                let probed = self.peak_list_bytes + disjoint::MOST_TABLE_BYTES;
                if self.probe_budget.is_some_and(|budget| probed > budget) {
                    self.over_budget = true;
                }
                if self.over_budget {
                    return;
                }
                self.choices.push(choice);
                let counts = if choice == 1 { (west + 1, east) } else { (west, east + 1) };
                self.visit(position + 1, counts, orbit);
                self.choices.pop();
            }
        }
    }

    /// How many boards of the chosen half's current level one fill may extend: all of
    /// them while the walk's lists fit in half the join's budget. Otherwise the lists the
    /// walk will refill before reading are freed, and the fill takes the room left in that
    /// half, or at least an equal share of the other half among all the lists, so that
    /// deep fills are not starved into pieces of one board; every list holds at most one
    /// such share above the first half, so the walk stays within the budget.
    fn boards_per_fill(&mut self, choice: u8, (west, east): (usize, usize)) -> usize {
        let (side, level) = if choice == 1 { (&self.west, west) } else { (&self.east, east) };
        let boards = side.levels[level].len();
        let (room, held) = side.fill_bytes(level, boards);
        let half_budget = self.join.list_budget / 2;
        if self.list_bytes() - held + room <= half_budget {
            return boards.max(1);
        }
        self.west.release_after(west);
        self.east.release_after(east);
        // The sorted copies are at most the signatures just freed; they come back with them.
        self.pairs.release_sorted();
        let lists = self.west.quota + self.east.quota;
        let share = half_budget / lists.max(1);
        let left = half_budget.saturating_sub(self.list_bytes()).max(share);
        let side = if choice == 1 { &self.west } else { &self.east };
        (left / side.bytes_per_board(level)).max(1)
    }

    fn leaf(&mut self, orbit: Orbit) {
        if self.probe_budget.is_some() {
            return;
        }
        let weight = if self.split.reflect { orbit.size() } else { self.split.weight };
        // Each half's signatures meet the other half's once, at this leaf, so the count
        // may reorder and rewrite them.
        let west = self.west.signatures.as_mut_slice();
        let east = self.east.signatures.as_mut_slice();
        // The smaller side is bit-sliced: its tables are built once per group of lanes.
        let (stored, queries) = if west.len() <= east.len() { (west, east) } else { (east, west) };
        let bits = self.join.signature_bits();
        let count = self.join.pairs.count(stored, queries, bits, &mut self.pairs);
        self.tally.total += weight * u128::from(count.disjoint);
        self.tally.pairs += u128::from(count.tested);
    }

    fn list_bytes(&self) -> usize {
        self.west.held + self.east.held
    }
}

/// Writes to `to` every board of `from` with one more queen in `row`, on a column of
/// `half` that the board has free (`free` of them, the same for every board) and that is in
/// `open` and not attacked by the board; returns how many there are. Every free column is
/// written and only the good ones kept, so the loop has no unpredictable branch.
fn extend(
    from: &[Partial],
    to: &mut [MaybeUninit<Partial>],
    n: usize,
    row: usize,
    half: u64,
    open: u64,
    free: usize,
) -> usize {
    let fall = n - 1 - row;
    let mut len = 0;
    for board in from {
        let mut candidates = half & !board.columns;
        let open = open & !(board.rising >> row) & !(board.falling >> fall);
        for _ in 0..free {
            let bit = candidates & candidates.wrapping_neg();
            candidates ^= bit;
            to[len] = MaybeUninit::new(Partial {
                columns: board.columns | bit,
                rising: board.rising | bit << row,
                falling: board.falling | bit << fall,
            });
            len += usize::from(open & bit != 0);
        }
    }
    len
}

/// Like [`extend`] for the half's last row, where each board has one column left: writes
/// the signatures of the boards it completes.
fn complete(
    from: &[Partial],
    to: &mut [MaybeUninit<u64>],
    join: &Join,
    row: usize,
    half: u64,
    open: u64,
) -> usize {
    let fall = join.n - 1 - row;
    let mut len = 0;
    for board in from {
        let bit = half & !board.columns;
        let open = open & !(board.rising >> row) & !(board.falling >> fall);
        to[len] = MaybeUninit::new(join.signature(&Partial {
            columns: board.columns | bit,
            rising: board.rising | bit << row,
            falling: board.falling | bit << fall,
        }));
        len += usize::from(open & bit != 0);
    }
    len
}

/// Every placement of the middle column's queen (row) and the middle row's queen (column)
/// that a solution can hold, one per orbit under the board's symmetries, with the orbit's
/// size. The symmetries map the middle row and column onto themselves, so they act on these
/// placements by reflecting either coordinate and by swapping the two.
fn canonical_centres(n: usize) -> Vec<(Centre, u128)> {
    let middle = n / 2;
    let mut centres = Vec::new();
    for row in 0..n {
        for column in 0..n {
            if (row == middle) != (column == middle) {
                continue;
            }
            if row != middle && row.abs_diff(middle) == column.abs_diff(middle) {
                continue;
            }
            let mut orbit = Vec::with_capacity(8);
            for (a, b) in [(row, column), (column, row)] {
                for a in [a, n - 1 - a] {
                    for b in [b, n - 1 - b] {
                        if !orbit.contains(&(a, b)) {
                            orbit.push((a, b));
                        }
                    }
                }
            }
            if orbit.iter().all(|&other| (row, column) <= other) {
                centres.push((Centre { row, column }, orbit.len() as u128));
            }
        }
    }
    centres
}

#[cfg(test)]
mod tests {
    use nqueens_test_support::count_solutions_within;

    use super::*;

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
            (middle_out(n).into_iter().map(usize::from).collect(), key)
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

    /// How many row sets (or centre placements) a key stands for: the size of its orbit
    /// under the reflections, worked out from the sets themselves.
    fn weight(n: usize, key: &[u8]) -> u128 {
        if !n.is_multiple_of(2) {
            let centre = Centre { row: usize::from(key[0]), column: usize::from(key[1]) };
            return canonical_centres(n).iter().find(|(c, _)| *c == centre).unwrap().1;
        }
        let set: u32 = middle_out(n)
            .iter()
            .zip(key)
            .filter(|&(_, &west)| west == 1)
            .fold(0, |set, (&row, _)| set | 1 << row);
        let mirror =
            |s: u32| (0..n).filter(|&r| s >> r & 1 == 1).fold(0u32, |m, r| m | 1 << (n - 1 - r));
        let all = (1u32 << n) - 1;
        let mut orbit = vec![set, mirror(set), all & !set, mirror(all & !set)];
        orbit.sort_unstable();
        orbit.dedup();
        orbit.len() as u128
    }

    #[test]
    fn every_row_set_agrees_with_backtracking() {
        for n in 4..=12 {
            let join = Join::new(n, Kernel::Auto, DEFAULT_JOIN_MEMORY).unwrap();
            let mut total = 0u128;
            for key in join.keys(join.most_decided()) {
                let counted = join.solve_key(&key).unwrap().total;
                let found = count_solutions_within(&allowed_columns(n, &key));
                assert_eq!(counted, weight(n, &key) * found, "N = {n}, key {key:?}");
                total += counted;
            }
            let expected = crate::count(n, crate::Method::Plain).unwrap().total;
            assert_eq!(total, expected, "N = {n}");
        }
    }

    #[test]
    fn row_sets_over_the_budget_count_exactly_in_pieces() {
        for n in [9, 10, 11, 12, 13, 14] {
            let whole = Join::new(n, Kernel::Auto, DEFAULT_JOIN_MEMORY).unwrap();
            let mut total = 0;
            let mut split = false;
            for bytes in whole.keys(2) {
                let key = whole.key(&bytes).unwrap();
                let mut walk = Walk::new(&whole, &key.split, key.decided);
                walk.visit(0, (0, 0), Orbit::START);
                // A third of what the task holds whole, so that its largest lists split.
                let budget = (walk.peak_list_bytes / 3).max(1024);
                let pieces = Join { list_budget: budget, ..whole.clone() };
                let mut in_pieces = Walk::new(&pieces, &key.split, key.decided);
                in_pieces.visit(0, (0, 0), Orbit::START);
                assert_eq!(in_pieces.tally.total, walk.tally.total, "N = {n}, key {bytes:?}");
                total += in_pieces.tally.total;
                split |= walk.peak_list_bytes > budget;
                // Past the budget by at most one board's extensions in each list.
                let lists = n + 2;
                let most_per_board = n.div_ceil(2) * size_of::<Partial>();
                assert!(in_pieces.peak_list_bytes <= budget + lists * most_per_board, "N = {n}");
                assert!(walk.pairs.held_bytes() <= SCRATCH_BYTES as usize);
                for walk in [&walk, &in_pieces] {
                    let signatures = walk.west.signature_bytes() + walk.east.signature_bytes();
                    assert!(walk.pairs.sorted_bytes() <= signatures / 2, "N = {n}");
                }
            }
            assert_eq!(total, crate::count(n, crate::Method::Plain).unwrap().total, "N = {n}");
            assert!(split || n < 12, "N = {n} fits the budget whole");
        }
    }

    #[test]
    fn a_budget_bounds_the_estimate() {
        let join = Join::new(18, Kernel::Auto, MIN_JOIN_MEMORY).unwrap();
        let unbounded = Join::new(18, Kernel::Auto, DEFAULT_JOIN_MEMORY).unwrap();
        let whole = unbounded.bytes_per_thread(u64::MAX).unwrap().unwrap();
        assert!(whole > MIN_JOIN_MEMORY, "N = 18 needs {whole} bytes whole");
        assert_eq!(join.bytes_per_thread(u64::MAX).unwrap(), Some(MIN_JOIN_MEMORY));
        assert!(matches!(
            Join::new(18, Kernel::Auto, MIN_JOIN_MEMORY - 1),
            Err(Error::MemoryBudget { .. })
        ));
    }

    #[test]
    fn centre_orbits_cover_every_centre_placement_once() {
        for n in [5, 7, 9, 11] {
            let weights: u128 = canonical_centres(n).iter().map(|&(_, w)| w).sum();
            let middle = n / 2;
            let all = (0..n)
                .flat_map(|r| (0..n).map(move |c| (r, c)))
                .filter(|&(r, c)| (r == middle) == (c == middle))
                .filter(|&(r, c)| r == middle || r.abs_diff(middle) != c.abs_diff(middle))
                .count();
            assert_eq!(weights, all as u128, "N = {n}");
        }
    }

    #[test]
    fn keys_that_are_not_tasks_are_refused() {
        let even = Join::new(8, Kernel::Auto, DEFAULT_JOIN_MEMORY).unwrap();
        assert!(even.solve_key(&[2]).is_none());
        assert!(even.solve_key(&[0; 9]).is_none());
        let odd = Join::new(9, Kernel::Auto, DEFAULT_JOIN_MEMORY).unwrap();
        assert!(odd.solve_key(&[4]).is_none());
        assert!(odd.solve_key(&[4, 5]).is_none(), "not a centre placement a solution can hold");
        assert!(odd.solve_key(&[0, 0]).is_none(), "attacking middle queens");
    }
}
