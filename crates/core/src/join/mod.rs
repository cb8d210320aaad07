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
//! board. A half-board is a walked board and a tail board on the columns it leaves free
//! whose diagonals miss each other; building the deep levels of the walk one board at a
//! time cost most of the join's time on odd boards before.
//!
//! Symmetry: reflecting the board north-south maps `R` to its mirror image and reflecting it
//! east-west maps `R` to its complement, so an even board counts one `R` of each such orbit,
//! weighed by the orbit's size. On an odd board the eight symmetries map the middle row and
//! column onto themselves, so only one placement of their queens per orbit is counted.

mod disjoint;

use std::mem::MaybeUninit;
use std::ops::Range;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

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

/// The share of a thread's budget that one split's tail tables may take at most.
const TAIL_SHARE: usize = 8;

/// The tail tables a thread counts against its budget: the split it works in, the one the
/// cache holds, and the building of a third, whose found boards take about as much again.
const TAIL_COPIES: usize = 3;

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
        let rows: Vec<u8> = (0..n as u8).collect();
        // The crossing diagonals of a vertical split are consecutive in both numberings.
        let seen = |columns| diagonals_of(n, &rows, columns, &diagonal);
        Span::covering(seen(west) & seen(east))
    }

    /// The least span that holds every bit of `diagonals`; an empty one starts anywhere.
    fn covering(diagonals: u64) -> Span {
        let low = diagonals.trailing_zeros() % 64;
        let len = if diagonals == 0 { 0 } else { 64 - diagonals.leading_zeros() - low };
        Span { low, len }
    }

    fn extract(self, diagonals: u64) -> u64 {
        (diagonals >> self.low) & ((1u64 << self.len) - 1)
    }
}

/// The diagonals, numbered by `diagonal(row, column)`, with a cell in one of `rows` and
/// one of `columns`.
fn diagonals_of(
    n: usize,
    rows: &[u8],
    columns: u64,
    diagonal: &dyn Fn(usize, usize) -> u32,
) -> u64 {
    let mut seen = 0u64;
    for &row in rows {
        for column in (0..n).filter(|&c| columns >> c & 1 == 1) {
            seen |= 1 << diagonal(usize::from(row), column);
        }
    }
    seen
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
    /// The free rows in the order the walk decides them: from the top, so that neighbouring
    /// rows, which attack each other most, prune each half early, and the tail rows, the
    /// last of the order, lie together.
    order: Vec<u8>,
    west: u64,
    east: u64,
    /// Per row, the columns no fixed queen attacks.
    open: [u64; MAX_JOIN_N],
    /// Even boards count one row set per orbit of the two reflections (see
    /// [`orbit_weight`]); odd boards count every row set of a canonical centre placement,
    /// weighed by its orbit.
    reflect: bool,
    weight: u128,
    /// The odd board's centre placement, which names the split.
    centre: Option<Centre>,
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
    /// How many of the last rows of a split's order come from tables, and the most bytes
    /// the tables of one split take.
    tail_rows: usize,
    tail_bytes: usize,
    tails: Arc<TailCache>,
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
        let budget = usize::try_from(memory_per_thread - SCRATCH_BYTES).unwrap_or(usize::MAX);
        let pairs =
            PairKernel::new(kernel).ok_or(Error::Kernel { kernel, n, max_n: MAX_JOIN_N })?;
        let half = n / 2;
        let west = (1u64 << half) - 1;
        let east = ((1u64 << n) - 1) & !((1u64 << (n - half)) - 1);
        let rising = Span::of(n, |r, c| (r + c) as u32, west, east);
        let falling = Span::of(n, |r, c| (c + n - 1 - r) as u32, west, east);
        let centres = if n % 2 == 1 { canonical_centres(n) } else { Vec::new() };
        let mut join = Join {
            n,
            west,
            east,
            rising,
            falling,
            centres,
            pairs,
            list_budget: budget,
            tail_rows: 0,
            tail_bytes: 0,
            tails: Arc::default(),
        };
        (join.tail_rows, join.tail_bytes) = join.tail_for(budget / TAIL_SHARE);
        join.list_budget = budget - TAIL_COPIES * join.tail_bytes;
        Ok(join)
    }

    /// How many rows the tables should hold. More tail rows leave less to walk, but each
    /// joins more pairs of walked and tail boards, and an odd board builds the tables again
    /// for every centre placement. `count N --method join --threads 1 --kernel avx2` was
    /// fastest with 5 or 6 tail rows at N = 17, 6 at N = 19 (a shard), 8 at N = 20 (a
    /// shard), and within the noise from 6 to 9 at N = 18.
    fn most_tail_rows(&self) -> usize {
        if self.n.is_multiple_of(2) { (self.n / 2).saturating_sub(2) } else { self.n / 3 }
    }

    /// The tail rows, at most [`Join::most_tail_rows`], whose tables take at most `most`
    /// bytes, with the bytes they take. The tables are counted on the even board's split,
    /// whose halves are at least as wide as any odd board's and whose cells are all open.
    fn tail_for(&self, most: usize) -> (usize, usize) {
        let split = self.even_split();
        let width = self.n / 2;
        let mut rows = self.most_tail_rows();
        loop {
            let starts = 2 * ((1 << (rows + width)) + 1) * size_of::<u32>();
            let fits = most.saturating_sub(starts) / size_of::<TailBoard>();
            let mut boards = 0;
            let tail = &split.order[self.n - rows..];
            let counted = [split.west, split.east].iter().all(|&half| {
                each_tail_board(self, &split, half, tail, &mut |_, _| {
                    boards += 1;
                    boards <= fits
                })
            });
            // No tail rows is one empty board per half, which any budget holds.
            if counted || rows == 0 {
                return (rows, starts + boards * size_of::<TailBoard>());
            }
            rows -= 1;
        }
    }

    /// Every task of `depth` decided rows, in a fixed order: on an odd board the centre
    /// placement's row and column, then one byte per decided row in [`Split::order`], 1 if
    /// its queen stands west. Prefixes that cannot lead to a counted row set are left out.
    fn keys(&self, depth: usize) -> Vec<Vec<u8>> {
        let mut keys = Vec::new();
        if self.n.is_multiple_of(2) {
            let split = self.even_split();
            split_prefixes(&split, depth, &mut Vec::new(), &mut keys);
        } else {
            for &(centre, weight) in &self.centres {
                let split = self.odd_split(centre, weight);
                let mut prefix = vec![centre.row as u8, centre.column as u8];
                split_prefixes(&split, depth, &mut prefix, &mut keys);
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
        let refused = |(position, &d): (usize, &u8)| d > 1 || !allows(&split, position, d);
        if decided.len() > split.order.len() || decided.iter().enumerate().any(refused) {
            return None;
        }
        Some(Key { split, decided })
    }

    /// Counts the solutions below one task's key, or `None` if the key is not a task of
    /// this board.
    fn solve_key(&self, bytes: &[u8]) -> Option<JoinTally> {
        let key = self.key(bytes)?;
        let tails = self.tails_of(&key.split);
        let mut walk = Walk::new(self, &key.split, key.decided, &tails);
        walk.visit(0, (0, 0));
        Some(walk.tally)
    }

    /// How many of the first rows of `split`'s order the walk places; the rest are the
    /// tail.
    fn walked_rows(&self, split: &Split) -> usize {
        split.order.len().saturating_sub(self.tail_rows)
    }

    /// The tail tables of `split`, built unless the split used last was the same.
    fn tails_of(&self, split: &Split) -> Arc<Tails> {
        self.tails.get(split.centre, || Tails::build(self, split))
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
        let tails = Tails::build(self, &split);
        let mut walk = Walk::new(self, &split, &decided, &tails);
        walk.probe_budget = Some(budget);
        walk.visit(0, (0, 0));
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
            order: (0..self.n as u8).collect(),
            west: self.west,
            east: self.east,
            open: [(1u64 << self.n) - 1; MAX_JOIN_N],
            reflect: true,
            weight: 1,
            centre: None,
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
            centre: Some(centre),
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
        let fixed = SCRATCH_BYTES + (TAIL_COPIES * self.tail_bytes) as u64;
        let bound = self.list_budget as u64;
        let stop_at = up_to.saturating_sub(fixed).min(bound) / JOIN_MEMORY_MARGIN;
        let probe = self.probe_bytes(usize::try_from(stop_at).unwrap_or(usize::MAX)) as u64;
        Ok(Some(probe.saturating_mul(JOIN_MEMORY_MARGIN).min(bound) + fixed))
    }
}

/// Whether a split lets the row at `position` of its order go to the half `choice`: an
/// even board counts only the row sets that put row 0 west, since the east-west reflection
/// pairs each row set with its complement.
fn allows(split: &Split, position: usize, choice: u8) -> bool {
    !(split.reflect && position == 0 && choice == 0)
}

/// The weight of an even board's row set `west_rows` (it holds row 0) among the four
/// reflections, or `None` if another member of its orbit is the one counted. Of the orbit,
/// exactly the row set and one image under the north-south mirror (the mirror itself or
/// its complement) hold row 0; the smaller of the two counts for the whole orbit.
fn orbit_weight(n: usize, west_rows: u64) -> Option<u128> {
    let mirror = west_rows.reverse_bits() >> (64 - n);
    let all = u64::MAX >> (64 - n);
    let image = if mirror & 1 == 1 { mirror } else { all & !mirror };
    match west_rows.cmp(&image) {
        std::cmp::Ordering::Less => Some(4),
        std::cmp::Ordering::Equal => Some(2),
        std::cmp::Ordering::Greater => None,
    }
}

/// The rows that `choices`, made in the order of an even board's split, put west.
fn west_rows(split: &Split, choices: &[u8]) -> u64 {
    (split.order.iter().zip(choices))
        .filter(|&(_, &choice)| choice == 1)
        .fold(0, |rows, (&row, _)| rows | 1 << row)
}

/// Appends every prefix of `depth` decisions that respects the halves' quotas and the
/// even board's first row.
fn split_prefixes(split: &Split, depth: usize, prefix: &mut Vec<u8>, keys: &mut Vec<Vec<u8>>) {
    // The decisions so far: an odd board's keys start with the centre placement's two bytes.
    let head = prefix.len() - usize::from(!split.reflect) * 2;
    if head == depth {
        // A complete row set that another of its orbit stands for would count nothing.
        let n = split.order.len();
        if !(split.reflect && depth == n && orbit_weight(n, west_rows(split, prefix)).is_none()) {
            keys.push(prefix.clone());
        }
        return;
    }
    let west = prefix[prefix.len() - head..].iter().filter(|&&d| d == 1).count();
    let (west_quota, east_quota) = split.quota();
    for choice in [0u8, 1] {
        let fits = if choice == 1 { west < west_quota } else { head - west < east_quota };
        if !fits || !allows(split, head, choice) {
            continue;
        }
        prefix.push(choice);
        split_prefixes(split, depth, prefix, keys);
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

impl Partial {
    /// The board with a queen more, at `bit` in `row`, whose falling diagonal is `fall`
    /// (`N - 1 - row`).
    fn with_queen(self, bit: u64, row: usize, fall: usize) -> Partial {
        Partial {
            columns: self.columns | bit,
            rising: self.rising | bit << row,
            falling: self.falling | bit << fall,
        }
    }
}

/// A placement of some tail rows on one half: its bits on the diagonals where it can meet
/// a walked board ([`Meeting`]), and the crossing diagonals it adds to the walked board's
/// signature.
#[derive(Clone, Copy, Debug, Default)]
struct TailBoard {
    meets: u64,
    signature: u64,
}

/// The diagonals of one half on which a walked board and a tail board can both have a
/// queen. The walked rows all lie above the tail rows, so only a few diagonals of each
/// direction (fewer than the half's columns) hold cells of both; a board's bits on them,
/// packed into one word, make the clash test one AND.
#[derive(Clone, Copy, Debug)]
struct Meeting {
    rising: Span,
    falling: Span,
}

impl Meeting {
    fn of(n: usize, columns: u64, walked: &[u8], tail: &[u8]) -> Meeting {
        let meet = |diagonal: &dyn Fn(usize, usize) -> u32| {
            let seen = |rows| diagonals_of(n, rows, columns, diagonal);
            Span::covering(seen(walked) & seen(tail))
        };
        Meeting {
            rising: meet(&|r, c| (r + c) as u32),
            falling: meet(&|r, c| (c + n - 1 - r) as u32),
        }
    }

    fn bits(self, board: &Partial) -> u64 {
        self.rising.extract(board.rising) | self.falling.extract(board.falling) << self.rising.len
    }
}

/// Every placement of every subset of the tail rows on one half's columns, grouped by the
/// subset and, within it, by the columns it takes. A walked board that leaves the columns
/// `c` of its half free completes, with the tail rows `s`, exactly the boards of group
/// `(s, c)` whose diagonals miss its own.
#[derive(Debug)]
struct TailTable {
    boards: Vec<TailBoard>,
    /// Group `(s, c)`, with `c` relative to the half's lowest column, is
    /// `boards[starts[s * masks + c]..starts[s * masks + c + 1]]`.
    starts: Vec<u32>,
    /// The half's columns, and its lowest column.
    columns: u64,
    low: u32,
    /// The column sets of the half's width.
    masks: usize,
    meeting: Meeting,
}

impl TailTable {
    /// The table of the half `columns` (at most `width` columns from `low`) for the tail
    /// rows `rows` of `split`.
    fn build(join: &Join, split: &Split, (columns, low): (u64, u32), rows: &[u8]) -> TailTable {
        let width = join.n / 2;
        let masks = 1usize << width;
        let groups = masks << rows.len();
        let walked = &split.order[..split.order.len() - rows.len()];
        let meeting = Meeting::of(join.n, columns, walked, rows);
        let mut found: Vec<(u32, TailBoard)> = Vec::new();
        each_tail_board(join, split, columns, rows, &mut |subset, board| {
            let group = subset * masks + (board.columns >> low) as usize;
            let tail = TailBoard { meets: meeting.bits(board), signature: join.signature(board) };
            found.push((group as u32, tail));
            true
        });
        let mut starts = vec![0u32; groups + 1];
        for &(group, _) in &found {
            starts[group as usize + 1] += 1;
        }
        for group in 0..groups {
            starts[group + 1] += starts[group];
        }
        let mut next = starts.clone();
        let mut boards = vec![TailBoard::default(); found.len()];
        for (group, board) in found {
            let at = &mut next[group as usize];
            boards[*at as usize] = board;
            *at += 1;
        }
        TailTable { boards, starts, columns, low, masks, meeting }
    }

    /// The columns of the half that `board` leaves free, relative to its lowest.
    fn free_columns(&self, board: &Partial) -> usize {
        ((self.columns & !board.columns) >> self.low) as usize
    }

    /// The tail boards of the rows `subset` on the columns `free`, which complete the
    /// walked boards that leave those columns free where their diagonals do not meet.
    fn group(&self, subset: usize, free: usize) -> &[TailBoard] {
        let group = subset * self.masks + free;
        &self.boards[self.starts[group] as usize..self.starts[group + 1] as usize]
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.boards.len() * size_of::<TailBoard>() + self.starts.len() * size_of::<u32>()
    }
}

/// Calls `found` with every placement of every subset of `rows` (the subset as bits, one
/// per row in `rows`) on the columns `half`, as long as it returns true.
fn each_tail_board(
    join: &Join,
    split: &Split,
    half: u64,
    rows: &[u8],
    found: &mut impl FnMut(usize, &Partial) -> bool,
) -> bool {
    fn place(
        n: usize,
        open: &[u64; MAX_JOIN_N],
        (half, rows): (u64, &[u8]),
        (index, subset): (usize, usize),
        board: Partial,
        found: &mut impl FnMut(usize, &Partial) -> bool,
    ) -> bool {
        let Some(&row) = rows.get(index) else {
            return found(subset, &board);
        };
        if !place(n, open, (half, rows), (index + 1, subset), board, found) {
            return false;
        }
        let row = usize::from(row);
        let fall = n - 1 - row;
        let mut free = half & open[row] & !board.columns;
        free &= !(board.rising >> row) & !(board.falling >> fall);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let next = board.with_queen(bit, row, fall);
            if !place(n, open, (half, rows), (index + 1, subset | 1 << index), next, found) {
                return false;
            }
        }
        true
    }
    place(join.n, &split.open, (half, rows), (0, 0), Partial::default(), found)
}

/// A half's boards at the end of the walk, in the form the join with the tail reads,
/// sorted into runs that leave the same columns free, so that a run meets one group of
/// the tail table and a run with no group is skipped whole.
#[derive(Debug, Default)]
struct Walked {
    boards: Vec<TailBoard>,
    /// The columns each run leaves free (relative to the half's lowest), and the run.
    runs: Vec<(usize, Range<usize>)>,
    counts: Vec<usize>,
}

impl Walked {
    fn fill(&mut self, join: &Join, boards: &[Partial], table: &TailTable) {
        self.counts.clear();
        self.counts.resize(table.masks + 1, 0);
        for board in boards {
            self.counts[table.free_columns(board) + 1] += 1;
        }
        self.runs.clear();
        for free in 0..table.masks {
            let (start, len) = (self.counts[free], self.counts[free + 1]);
            if len > 0 {
                self.runs.push((free, start..start + len));
            }
            self.counts[free + 1] = start + len;
        }
        self.boards.clear();
        self.boards.resize(boards.len(), TailBoard::default());
        for board in boards {
            let at = &mut self.counts[table.free_columns(board)];
            let signature = join.signature(board);
            self.boards[*at] = TailBoard { meets: table.meeting.bits(board), signature };
            *at += 1;
        }
    }

    fn bytes(&self) -> usize {
        self.boards.capacity() * size_of::<TailBoard>()
            + self.runs.capacity() * size_of::<(usize, Range<usize>)>()
            + self.counts.capacity() * size_of::<usize>()
    }

    fn release(&mut self) {
        *self = Walked::default();
    }
}

/// The tail tables of one split, for both halves.
#[derive(Debug)]
struct Tails {
    west: TailTable,
    east: TailTable,
}

impl Tails {
    fn build(join: &Join, split: &Split) -> Tails {
        let rows = &split.order[join.walked_rows(split)..];
        let east_low = (join.n - join.n / 2) as u32;
        Tails {
            west: TailTable::build(join, split, (split.west, 0), rows),
            east: TailTable::build(join, split, (split.east, east_low), rows),
        }
    }

    #[cfg(test)]
    fn bytes(&self) -> usize {
        self.west.bytes() + self.east.bytes()
    }
}

/// The tail tables of the split used last, shared by the worker threads: the tasks come in
/// the order of their keys, so neighbouring tasks share a split.
#[derive(Debug, Default)]
struct TailCache {
    last: Mutex<Option<(Option<Centre>, Arc<Tails>)>>,
}

impl TailCache {
    fn get(&self, split: Option<Centre>, build: impl FnOnce() -> Tails) -> Arc<Tails> {
        if let Some((held, tails)) = &*self.lock()
            && *held == split
        {
            return Arc::clone(tails);
        }
        // Built outside the lock, so that other splits' tasks need not wait.
        let tails = Arc::new(build());
        *self.lock() = Some((split, Arc::clone(&tails)));
        tails
    }

    fn lock(&self) -> MutexGuard<'_, Option<(Option<Centre>, Arc<Tails>)>> {
        self.last.lock().unwrap_or_else(PoisonError::into_inner)
    }
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
    /// least twofold, so that slowly growing fills do not move the list every time, but
    /// not past `most` items unless `bound` needs more.
    fn room_after(&self, bound: usize, most: usize) -> usize {
        let capacity = self.items.capacity();
        let items = if bound <= capacity { capacity } else { bound.max(most.min(2 * capacity)) };
        items * size_of::<T>()
    }

    /// Lets `fill` write at most `bound` items, in room for at most `most` unless `bound`
    /// needs more, and keeps the number it returns: `fill` must have written every item
    /// below that number.
    fn refill(
        &mut self,
        (bound, most): (usize, usize),
        fill: impl FnOnce(&mut [MaybeUninit<T>]) -> usize,
    ) {
        let room = self.room_after(bound, most) / size_of::<T>();
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
    /// `levels[k]`: the partial boards of the first `k` walked rows decided for this half.
    levels: Vec<Refill<Partial>>,
    /// The boards of the last walked level, ready for the tail.
    walked: Walked,
    /// The signatures of the complete half-boards of the row set at hand.
    signatures: Refill<u64>,
    /// The bytes of room its lists hold.
    held: usize,
}

impl Half {
    fn new(columns: u64) -> Half {
        let quota = columns.count_ones() as usize;
        let mut levels = vec![Refill::default(); quota + 1];
        levels[0] = Refill::of(vec![Partial::default()]);
        let held = levels[0].held_bytes();
        let (walked, signatures) = (Walked::default(), Refill::default());
        Half { columns, quota, levels, walked, signatures, held }
    }

    /// The room the fill of the list after `level` would leave if it took `boards` boards
    /// of `level`, and the room that list holds now.
    fn fill_bytes(&self, level: usize, boards: usize) -> (usize, usize) {
        let next = &self.levels[level + 1];
        (next.room_after(boards * (self.quota - level), usize::MAX), next.held_bytes())
    }

    /// The bytes one board of `level` may add to the list after it.
    fn bytes_per_board(&self, level: usize) -> usize {
        (self.quota - level) * size_of::<Partial>()
    }

    /// Frees the lists after `level`, which hold nothing the walk will read again before
    /// it refills them, and the signatures.
    fn release_after(&mut self, level: usize) {
        for list in self.levels.iter_mut().skip(level + 1) {
            self.held -= list.held_bytes();
            list.release();
        }
        self.held -= self.signatures.signature_bytes() + self.walked.bytes();
        self.signatures.release();
        self.walked.release();
    }

    /// Readies the boards of `level`, the last the walk builds, for the tail.
    fn end_walk(&mut self, join: &Join, level: usize, table: &TailTable) {
        self.held -= self.walked.bytes();
        self.walked.fill(join, self.levels[level].as_slice(), table);
        self.held += self.walked.bytes();
    }

    /// Places a queen of this half's `level`-th row in `row`, on a column of `open`, on
    /// each of the `boards` of that level; false if no board is left.
    fn place(
        &mut self,
        n: usize,
        level: usize,
        boards: Range<usize>,
        row: usize,
        open: u64,
    ) -> bool {
        let free = self.quota - level;
        let (done, next) = self.levels.split_at_mut(level + 1);
        let from = &done[level].as_slice()[boards];
        let before = next[0].held_bytes();
        let bound = from.len() * free;
        next[0]
            .refill((bound, usize::MAX), |to| extend(from, to, n, row, self.columns, open, free));
        self.held += next[0].held_bytes();
        self.held -= before;
        next[0].len() > 0
    }

    /// Fills the signatures with the complete half-boards of the walked boards `piece`
    /// (which test `tested` tail boards) and the tail rows `subset`, in room for at most
    /// `most` signatures unless they need more.
    fn complete(
        &mut self,
        (table, subset): (&TailTable, usize),
        (boards, tested): (Range<usize>, usize),
        most: usize,
    ) {
        let walked = &self.walked;
        let before = self.signatures.signature_bytes();
        self.signatures.refill((tested, most), |to| complete(walked, boards, table, subset, to));
        self.held += self.signatures.signature_bytes();
        self.held -= before;
    }
}

/// The depth-first walk of one task: every row, in [`Split::order`], joins the west or the
/// east half. Up to the tail rows, each half's partial boards grow with it, so that row
/// sets sharing a prefix share the work of placing it; a half with no board left ends the
/// branch. The tail rows are only chosen: each row set's half-boards are its walked boards
/// joined with the tail tables.
struct Walk<'a> {
    join: &'a Join,
    split: &'a Split,
    decided: &'a [u8],
    tails: &'a Tails,
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
    fn new(join: &'a Join, split: &'a Split, decided: &'a [u8], tails: &'a Tails) -> Walk<'a> {
        Walk {
            join,
            split,
            decided,
            tails,
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

    /// The positions of [`Split::order`] whose rows the walk places.
    fn walked_rows(&self) -> usize {
        self.join.walked_rows(self.split)
    }

    /// The choices at `position` that its forced decision, if any, and the split allow.
    fn choices_at(&self, position: usize) -> impl Iterator<Item = u8> + use<> {
        let forced = self.decided.get(position).copied();
        let split_allows = [allows(self.split, position, 0), allows(self.split, position, 1)];
        [0u8, 1]
            .into_iter()
            .filter(move |&c| forced.is_none_or(|f| f == c) && split_allows[c as usize])
    }

    fn visit(&mut self, position: usize, (west, east): (usize, usize)) {
        if position == self.walked_rows() {
            if self.probe_budget.is_none() {
                self.west.end_walk(self.join, west, &self.tails.west);
                self.east.end_walk(self.join, east, &self.tails.east);
                self.note_bytes();
            }
            self.visit_tail(position, (west, east), (0, 0));
            return;
        }
        let row = usize::from(self.split.order[position]);
        for choice in self.choices_at(position) {
            let (side, level) = if choice == 1 { (&self.west, west) } else { (&self.east, east) };
            if level == side.quota {
                continue;
            }
            let boards = side.levels[level].len();
            let per_fill = self.boards_per_fill(choice, (west, east));
            for start in (0..boards).step_by(per_fill) {
                let side = if choice == 1 { &mut self.west } else { &mut self.east };
                let piece = start..boards.min(start + per_fill);
                if !side.place(self.join.n, level, piece, row, self.split.open[row]) {
                    continue;
                }
                self.note_bytes();
                if self.over_budget {
                    return;
                }
                self.choices.push(choice);
                let counts = if choice == 1 { (west + 1, east) } else { (west, east + 1) };
                self.visit(position + 1, counts);
                self.choices.pop();
            }
        }
    }

    /// Chooses the halves of the tail rows from `position` on, the walked levels being
    /// `walked`, and the tail rows chosen so far for each half `subsets`.
    fn visit_tail(&mut self, position: usize, walked: (usize, usize), subsets: (usize, usize)) {
        if position == self.split.order.len() {
            self.leaf(walked, subsets);
            return;
        }
        let bit = 1 << (position - self.walked_rows());
        let chosen = |subset: usize| subset.count_ones() as usize;
        for choice in self.choices_at(position) {
            let next = if choice == 1 {
                (walked.0 + chosen(subsets.0) < self.west.quota)
                    .then_some((subsets.0 | bit, subsets.1))
            } else {
                (walked.1 + chosen(subsets.1) < self.east.quota)
                    .then_some((subsets.0, subsets.1 | bit))
            };
            let Some(next) = next else { continue };
            self.choices.push(choice);
            self.visit_tail(position + 1, walked, next);
            self.choices.pop();
            if self.over_budget {
                return;
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

    /// Counts the row set the walk has chosen: its walked boards, at levels `walked`,
    /// joined with the tail rows `subsets` of each half, then the disjoint pairs of the
    /// two halves' signatures. Where the signatures would pass the budget, the walked
    /// boards of each half are joined in pieces, and every piece of one half meets every
    /// piece of the other.
    fn leaf(&mut self, walked: (usize, usize), subsets: (usize, usize)) {
        let weight = if self.split.reflect {
            let west_rows = west_rows(self.split, &self.choices);
            let Some(weight) = orbit_weight(self.join.n, west_rows) else { return };
            weight
        } else {
            self.split.weight
        };
        let most = self.leaf_budget();
        if self.probe_budget.is_some() {
            // A probe does not ready the walked boards; it counts what their pieces test.
            let tested = |half: &Half, level: usize, table: &TailTable, subset: usize| {
                let boards = half.levels[level].as_slice();
                let tests = boards.iter().map(|b| table.group(subset, table.free_columns(b)).len());
                tests.sum::<usize>().min(most)
            };
            let signatures = tested(&self.west, walked.0, &self.tails.west, subsets.0)
                + tested(&self.east, walked.1, &self.tails.east, subsets.1);
            self.peak_list_bytes =
                self.peak_list_bytes.max(self.list_bytes() + signatures * SIGNATURE_BYTES);
            self.note_bytes();
            return;
        }
        let tails = self.tails;
        let west_pieces = pieces(&self.west.walked, &tails.west, subsets.0, most);
        let east_pieces = pieces(&self.east.walked, &tails.east, subsets.1, most);
        // The pair count rewrites both lists, so each meeting of pieces builds its own.
        for west_piece in &west_pieces {
            for east_piece in &east_pieces {
                self.west.complete((&tails.west, subsets.0), west_piece.clone(), most);
                self.east.complete((&tails.east, subsets.1), east_piece.clone(), most);
                self.note_bytes();
                self.count_pairs(weight);
            }
        }
    }

    /// Counts the disjoint pairs of the two halves' signatures, weighed by `weight`.
    fn count_pairs(&mut self, weight: u128) {
        // Each half's signatures meet the other half's once, here, so the count may
        // reorder and rewrite them.
        let west = self.west.signatures.as_mut_slice();
        let east = self.east.signatures.as_mut_slice();
        if west.is_empty() || east.is_empty() {
            return;
        }
        // The smaller side is bit-sliced: its tables are built once per group of lanes.
        let (stored, queries) = if west.len() <= east.len() { (west, east) } else { (east, west) };
        let bits = self.join.signature_bits();
        let count = self.join.pairs.count(stored, queries, bits, &mut self.pairs);
        self.tally.total += weight * u128::from(count.disjoint);
        self.tally.pairs += u128::from(count.tested);
    }

    /// The signatures one half's piece may take at a leaf: half of what the walk's boards
    /// leave of the budget, and at least a share as large as one list of the walk's.
    fn leaf_budget(&self) -> usize {
        let walked = self.list_bytes() - self.signature_bytes();
        let share = self.join.list_budget / 2 / (self.west.quota + self.east.quota).max(1);
        (self.join.list_budget.saturating_sub(walked) / 2).max(share) / SIGNATURE_BYTES
    }

    /// Records the walk's bytes, and whether a probe has passed its budget.
    fn note_bytes(&mut self) {
        self.peak_list_bytes = self.peak_list_bytes.max(self.list_bytes());
        let probed = self.peak_list_bytes + disjoint::MOST_TABLE_BYTES;
        if self.probe_budget.is_some_and(|budget| probed > budget) {
            self.over_budget = true;
        }
    }

    fn signature_bytes(&self) -> usize {
        self.west.signatures.signature_bytes() + self.east.signatures.signature_bytes()
    }

    fn list_bytes(&self) -> usize {
        self.west.held + self.east.held
    }
}

/// Cuts the walked boards into pieces whose joins with the tail rows `subset` test at
/// most `most` tail boards each (or one walked board, if that alone tests more), with the
/// tail boards each tests.
fn pieces(
    walked: &Walked,
    table: &TailTable,
    subset: usize,
    most: usize,
) -> Vec<(Range<usize>, usize)> {
    let mut pieces = Vec::new();
    let (mut start, mut tested) = (0, 0);
    for (free, run) in &walked.runs {
        let per_board = table.group(subset, *free).len();
        let mut at = run.start;
        while per_board > 0 && at < run.end {
            let fit = (most.saturating_sub(tested) / per_board).min(run.end - at);
            if fit == 0 && tested > 0 {
                pieces.push((start..at, tested));
                (start, tested) = (at, 0);
                continue;
            }
            tested += fit.max(1) * per_board;
            at += fit.max(1);
        }
    }
    if tested > 0 {
        pieces.push((start..walked.boards.len(), tested));
    }
    pieces
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
            to[len] = MaybeUninit::new(board.with_queen(bit, row, fall));
            len += usize::from(open & bit != 0);
        }
    }
    len
}

/// Writes to `to` the signature of every complete half-board that a board of `walked` in
/// `boards` and a tail board of the rows `subset` on its free columns make, where their
/// diagonals do not meet; returns how many there are. Like [`extend`], it writes every
/// pair it tests.
fn complete(
    walked: &Walked,
    boards: Range<usize>,
    table: &TailTable,
    subset: usize,
    to: &mut [MaybeUninit<u64>],
) -> usize {
    let first = walked.runs.partition_point(|(_, run)| run.end <= boards.start);
    let mut len = 0;
    for (free, run) in &walked.runs[first..] {
        if run.start >= boards.end {
            break;
        }
        let group = table.group(subset, *free);
        let run = run.start.max(boards.start)..run.end.min(boards.end);
        for board in &walked.boards[run] {
            for tail in group {
                to[len] = MaybeUninit::new(board.signature | tail.signature);
                len += usize::from(board.meets & tail.meets == 0);
            }
        }
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
        let mirror =
            |s: u32| (0..n).filter(|&r| s >> r & 1 == 1).fold(0u32, |m, r| m | 1 << (n - 1 - r));
        let all = (1u32 << n) - 1;
        let mut orbit = vec![set, mirror(set), all & !set, mirror(all & !set)];
        orbit.sort_unstable();
        orbit.dedup();
        let counted = orbit.iter().filter(|&&s| s & 1 == 1).min().copied();
        if counted == Some(set) { orbit.len() as u128 } else { 0 }
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
                let tails = whole.tails_of(&key.split);
                let mut walk = Walk::new(&whole, &key.split, key.decided, &tails);
                walk.visit(0, (0, 0));
                // A third of what the task holds whole, so that its largest lists split.
                let budget = (walk.peak_list_bytes / 3).max(1024);
                let pieces = Join { list_budget: budget, ..whole.clone() };
                let mut in_pieces = Walk::new(&pieces, &key.split, key.decided, &tails);
                in_pieces.visit(0, (0, 0));
                assert_eq!(in_pieces.tally.total, walk.tally.total, "N = {n}, key {bytes:?}");
                total += in_pieces.tally.total;
                split |= walk.peak_list_bytes > budget;
                // Past the budget by at most one board's extensions in each list.
                let lists = n + 2;
                let most_per_board = n.div_ceil(2) * size_of::<Partial>();
                assert!(
                    in_pieces.peak_list_bytes <= budget + lists * most_per_board,
                    "N = {n} peak {} budget {budget} whole {}",
                    in_pieces.peak_list_bytes,
                    walk.peak_list_bytes
                );
                assert!(walk.pairs.held_bytes() <= SCRATCH_BYTES as usize);
                for walk in [&walk, &in_pieces] {
                    let signatures = walk.west.signatures.signature_bytes()
                        + walk.east.signatures.signature_bytes();
                    assert!(walk.pairs.sorted_bytes() <= signatures / 2, "N = {n}");
                }
            }
            assert_eq!(total, crate::count(n, crate::Method::Plain).unwrap().total, "N = {n}");
            assert!(split || n < 12, "N = {n} fits the budget whole");
        }
    }

    #[test]
    fn tail_tables_take_at_most_what_the_budget_counts_for_them() {
        for n in 6..=18 {
            for budget in [MIN_JOIN_MEMORY, DEFAULT_JOIN_MEMORY] {
                let join = Join::new(n, Kernel::Auto, budget).unwrap();
                let budget = (budget - SCRATCH_BYTES) as usize;
                assert!(join.tail_bytes <= budget / TAIL_SHARE, "N = {n}");
                assert!(join.tail_rows <= join.most_tail_rows(), "N = {n}");
                let splits: Vec<Split> = if n % 2 == 0 {
                    vec![join.even_split()]
                } else {
                    join.centres.iter().map(|&(centre, w)| join.odd_split(centre, w)).collect()
                };
                for split in &splits {
                    let tails = Tails::build(&join, split);
                    assert!(tails.bytes() <= join.tail_bytes, "N = {n}, {:?}", split.centre);
                }
            }
        }
        let small = Join::new(18, Kernel::Auto, MIN_JOIN_MEMORY).unwrap();
        let large = Join::new(18, Kernel::Auto, DEFAULT_JOIN_MEMORY).unwrap();
        assert!(small.tail_rows < large.tail_rows, "a small budget holds fewer tail rows");
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
