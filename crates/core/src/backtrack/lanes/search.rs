//! The lane search, written once for any [`Register`]: the buffers of boards waiting to
//! enter each row, the step that takes a register's worth of them through one row, and the
//! close of the last two rows.
//!
//! A file of its own because it is what every instruction set shares: it names no
//! instruction and holds no `unsafe`. Each register's file compiles it for that register's
//! instructions (`#[target_feature]`), and the register methods, all `#[inline(always)]`,
//! become single instructions inside it. The trait is here, not beside the registers,
//! because it lists what this search needs of them.

use crate::backtrack::rules::{LaneRules, SearchCount};
use crate::kernel::MAX_LANE_N;

/// Where a `down` mask keeps its tie counter: above the columns of the widest board a lane
/// kernel takes ([`MAX_LANE_N`]).
pub(super) const TIE_SHIFT: u32 = 28;

/// One register of `u32` masks and the lane operations the search needs.
///
/// A register, and a lane set that is a vector, carries the token of its
/// instruction set, and only a token makes one, so every method is safe: wherever
/// such a value exists, detection has proved the instructions its methods run. The
/// methods are inlined into a search compiled for those instructions, where each
/// becomes one or a few of them.
pub(super) trait Register: Copy {
    /// The proof that the processor has the register's instructions.
    type Token: Copy;
    /// A set of lanes.
    type Lanes: Copy;
    const WIDTH: usize;

    fn splat(token: Self::Token, value: u32) -> Self;
    /// The lanes below `count`, which is at most [`Register::WIDTH`].
    fn first(token: Self::Token, count: usize) -> Self::Lanes;
    /// Reads `from` into the first lanes, zero elsewhere; panics if `from` holds
    /// more than [`Register::WIDTH`] values.
    fn load(token: Self::Token, from: &[u32]) -> Self;
    /// Writes the lanes of `keep`, in order, to the front of `to`, and may overwrite
    /// the rest of its first [`Register::WIDTH`] values; panics if `to` is shorter.
    fn store_kept(self, keep: Self::Lanes, to: &mut [u32]);
    fn and(self, other: Self) -> Self;
    fn or(self, other: Self) -> Self;
    fn xor(self, other: Self) -> Self;
    /// `self & !other`.
    fn without(self, other: Self) -> Self;
    /// `x & -x` in each lane.
    fn lowest(self) -> Self;
    /// `self << 1`, the diagonals' step from one row to the next.
    fn left_one(self) -> Self;
    /// `self >> 1`.
    fn right_one(self) -> Self;
    /// `self << 3`, a tie count as a byte's bit offset.
    fn times_eight(self) -> Self;
    /// `self >> 8`, the next byte of pending counts.
    fn next_byte(self) -> Self;
    /// The tie counter of a `down` mask.
    fn tie_count(self) -> Self;
    /// `1 << shift` lane by lane.
    fn one_shifted(shift: Self) -> Self;
    fn nonzero(self) -> Self::Lanes;
    fn equal(self, other: Self) -> Self::Lanes;
    /// `self` in the lanes of `lanes`, zero elsewhere.
    fn keep(self, lanes: Self::Lanes) -> Self;
    /// `self` in the lanes of `lanes`, `other` elsewhere.
    fn select(self, lanes: Self::Lanes, other: Self) -> Self;
    /// `self + other` in the lanes of `lanes`, `self` elsewhere.
    fn add_where(self, lanes: Self::Lanes, other: Self) -> Self;
    fn sum(self) -> u32;
    fn both(a: Self::Lanes, b: Self::Lanes) -> Self::Lanes;
    fn count(lanes: Self::Lanes) -> u32;
    fn none(lanes: Self::Lanes) -> bool;
}

/// Room in one row's buffer: fewer than a register's worth of boards wait when a
/// register's children arrive, at most one register's worth per column, and a full
/// register may be stored past the end.
const CAPACITY: usize = 16 + 16 * MAX_LANE_N + 16;

/// The boards waiting to enter each row: per row, their `left`, `down` and `right`
/// masks.
struct Buffers {
    rows: Vec<[[u32; CAPACITY]; 3]>,
    len: [usize; MAX_LANE_N],
}

impl Buffers {
    fn new(n: usize) -> Buffers {
        Buffers { rows: vec![[[0; CAPACITY]; 3]; n], len: [0; MAX_LANE_N] }
    }
}

struct Search<'r, R: Register, const TIES: bool, const NODES: bool> {
    /// The proof that the processor has `R`'s instructions, for the registers made here.
    token: R::Token,
    rules: &'r LaneRules,
    /// Completed boards per lane since the last flush; with ties, one byte per tie count.
    pending: R,
    pending_closes: u32,
    tally: SearchCount,
}

/// How many register closes fit in the pending bytes: each adds at most 2 per lane.
const CLOSES_PER_FLUSH: u32 = 120;
const _: () = assert!(2 * CLOSES_PER_FLUSH <= 255);

/// Counts the completions of one board whose rows above `start` are filled.
#[inline(always)]
pub(super) fn search<R: Register, const TIES: bool, const NODES: bool>(
    token: R::Token,
    rules: &LaneRules,
    start: usize,
    (left, down, right): (u32, u32, u32),
) -> SearchCount {
    let deepest = rules.n - 3;
    let mut buffers = Buffers::new(rules.n);
    for (masks, mask) in buffers.rows[start].iter_mut().zip([left, down, right]) {
        masks[0] = mask;
    }
    buffers.len[start] = 1;
    let pending = R::splat(token, 0);
    let mut search = Search::<R, TIES, NODES> {
        token,
        rules,
        pending,
        pending_closes: 0,
        tally: SearchCount::default(),
    };
    let mut row = start;
    loop {
        if buffers.len[row] >= R::WIDTH {
            search.expand(&mut buffers, row, R::WIDTH);
            if row < deepest && buffers.len[row + 1] >= R::WIDTH {
                row += 1;
            }
            continue;
        }
        // Every row below holds less than a register's worth: look for one above.
        if row > start {
            row -= 1;
            continue;
        }
        match (start..=deepest).rev().find(|&r| buffers.len[r] > 0) {
            Some(r) => {
                let len = buffers.len[r];
                search.expand(&mut buffers, r, len);
                row = (r + 1).min(deepest);
            }
            None => break,
        }
    }
    search.flush();
    search.tally
}

impl<R: Register, const TIES: bool, const NODES: bool> Search<'_, R, TIES, NODES> {
    /// The columns open to `row` in each lane of `lanes`.
    #[inline(always)]
    fn candidates(&self, row: usize, lanes: R::Lanes, l: R, d: R, r: R) -> R {
        let free = R::splat(self.token, self.rules.allowed[row]).without(l.or(d).or(r));
        let outer = match self.rules.outer_due {
            Some((due, outer)) if due == row => R::splat(self.token, outer),
            _ => return free.keep(lanes),
        };
        // One outer column taken: the row must take the other; none: the board is
        // dead, since the outer columns are closed below this row.
        let taken = d.and(outer);
        let restricted = free.select(taken.equal(outer), free.and(outer));
        restricted.keep(R::both(lanes, taken.nonzero()))
    }

    /// Takes the last `k` (up to a register's worth) boards waiting to enter `row` and
    /// places every queen they allow in that row.
    #[inline(always)]
    fn expand(&mut self, buffers: &mut Buffers, row: usize, k: usize) {
        let token = self.token;
        let base = buffers.len[row] - k;
        buffers.len[row] = base;
        let lanes = R::first(token, k);
        // The first `k` lanes read the `k` boards stored from `base`.
        let boards = &buffers.rows[row];
        let l = R::load(token, &boards[0][base..base + k]);
        let d = R::load(token, &boards[1][base..base + k]);
        let r = R::load(token, &boards[2][base..base + k]);
        let mut avail = self.candidates(row, lanes, l, d, r);
        let ties = R::splat(token, self.rules.ties[row]);
        let tie_one = R::splat(token, 1 << TIE_SHIFT);
        let closes = row + 3 == self.rules.n;
        let child_allowed = R::splat(token, self.rules.allowed[(row + 1).min(self.rules.n - 1)]);
        loop {
            let placing = avail.nonzero();
            if R::none(placing) {
                break;
            }
            let bit = avail.lowest();
            avail = avail.xor(bit);
            let cl = l.or(bit).left_one();
            let mut cd = d.or(bit);
            if TIES {
                cd = cd.add_where(bit.and(ties).nonzero(), tie_one);
            }
            let cr = r.or(bit).right_one();
            if NODES {
                self.tally.nodes += u64::from(R::count(placing));
            }
            if closes {
                self.close(placing, cl, cd, cr);
                continue;
            }
            let open = child_allowed.without(cl.or(cd).or(cr));
            let keep = R::both(placing, open.nonzero());
            // The stores check that a register's worth fits from `at`, which it always
            // does (see `CAPACITY`).
            let at = buffers.len[row + 1];
            let children = &mut buffers.rows[row + 1];
            cl.store_kept(keep, &mut children[0][at..]);
            cd.store_kept(keep, &mut children[1][at..]);
            cr.store_kept(keep, &mut children[2][at..]);
            buffers.len[row + 1] = at + R::count(keep) as usize;
        }
    }

    /// Scores the boards in `lanes` entering the second-to-last row. Two columns are
    /// left; each of the two rows may take either, the last the other one if the
    /// diagonals allow.
    #[inline(always)]
    fn close(&mut self, lanes: R::Lanes, l: R, d: R, r: R) {
        let n = self.rules.n;
        let token = self.token;
        let open = R::splat(token, (1 << n) - 1).without(d);
        let first = open.lowest();
        let second = open.xor(first);
        let candidates = self.candidates(n - 2, lanes, l, d, r);
        let last_allowed = R::splat(token, self.rules.allowed[n - 1]);
        let one = R::splat(token, 1);
        for (mine, other) in [(first, second), (second, first)] {
            let placing = candidates.and(mine).nonzero();
            let attacked = l.or(mine).left_one().or(r.or(mine).right_one());
            let last = other.without(attacked);
            let complete = R::both(placing, last.and(last_allowed).nonzero());
            if NODES {
                // As the scalar kernel counts: the last queen is placed, then the
                // rules decide whether its column counts.
                let placed_last = R::both(placing, last.nonzero());
                self.tally.nodes += u64::from(R::count(placing) + R::count(placed_last));
            }
            let weight = if TIES {
                let mine_ties = R::splat(token, self.rules.ties[n - 2]);
                let other_ties = R::splat(token, self.rules.ties[n - 1]);
                let ties = d
                    .tie_count()
                    .add_where(mine.and(mine_ties).nonzero(), one)
                    .add_where(other.and(other_ties).nonzero(), one);
                R::one_shifted(ties.times_eight())
            } else {
                one
            };
            self.pending = self.pending.add_where(complete, weight);
        }
        self.pending_closes += 1;
        if self.pending_closes == CLOSES_PER_FLUSH {
            self.flush();
        }
    }

    /// Moves the pending per-lane counts into the tally.
    #[inline(always)]
    fn flush(&mut self) {
        if TIES {
            let byte = R::splat(self.token, 0xff);
            let mut shifted = self.pending;
            for leaves in &mut self.tally.leaves {
                *leaves += u64::from(shifted.and(byte).sum());
                shifted = shifted.next_byte();
            }
        } else {
            self.tally.leaves[0] += u64::from(self.pending.sum());
        }
        self.pending = R::splat(self.token, 0);
        self.pending_closes = 0;
    }
}

/// Loads read exactly their slice, whatever its length, and a load or store that
/// would leave its slice panics instead. Here, beside the trait whose contract it checks;
/// each register's tests run it.
#[cfg(test)]
pub(super) fn loads_and_stores_stay_in_their_slices<R: Register>(token: R::Token) {
    use std::panic::{AssertUnwindSafe, catch_unwind};

    let values: Vec<u32> = (1..=R::WIDTH as u32).collect();
    for len in 0..=R::WIDTH {
        let register = R::load(token, &values[..len]);
        assert_eq!(register.sum(), values[..len].iter().sum::<u32>());
        let mut to = vec![0; R::WIDTH];
        register.store_kept(register.nonzero(), &mut to);
        assert_eq!(to[..len], values[..len]);
    }
    let too_long = vec![0; R::WIDTH + 1];
    assert!(catch_unwind(AssertUnwindSafe(|| R::load(token, &too_long))).is_err());
    let register = R::splat(token, 1);
    let mut too_short = vec![0; R::WIDTH - 1];
    let store = || register.store_kept(register.nonzero(), &mut too_short);
    assert!(catch_unwind(AssertUnwindSafe(store)).is_err());
}
