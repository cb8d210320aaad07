//! The walk of one task: every row of the split's order joins the west or the east half.
//!
//! Up to the tail rows (the north), each half's boards grow row by row, so that row sets
//! sharing a prefix share the work of placing it; a half with no board left ends the
//! branch. The tail rows are only chosen: each row set's half-boards are its north boards
//! joined with the tail tables, and its solutions the disjoint pairs of the two halves'
//! signatures. A walk either counts ([`super::count::Count`]) or only measures the memory a
//! row set needs ([`Probe`]); the two are separate types so that counting carries no
//! probe's test.

use std::ops::Range;

use super::board::{Geometry, PerSide, Side};
use super::budget::{Budget, SIGNATURE_BYTES};
use super::count::Clock;
use super::half::Half;
use super::key::Key;
use super::room::{self, Stopwatch};
use super::split::Split;
use super::tail::Tails;

/// How one level's boards are extended by the next row: all at once, with room for every
/// candidate or for the counted boards the fill keeps, or in pieces that each keep the
/// counted boards.
enum Fills {
    Whole(Option<usize>),
    Pieces(Vec<(Range<usize>, usize)>),
}

impl Fills {
    fn len(&self) -> usize {
        match self {
            Fills::Whole(_) => 1,
            Fills::Pieces(pieces) => pieces.len(),
        }
    }

    /// The boards of a level of `boards` that fill `fill` extends, and the boards it
    /// keeps if counted.
    fn get(&self, fill: usize, boards: usize) -> (Range<usize>, Option<usize>) {
        match self {
            Fills::Whole(kept) => (0..boards, *kept),
            Fills::Pieces(pieces) => (pieces[fill].0.clone(), Some(pieces[fill].1)),
        }
    }
}

/// What a walk is for: counting, or measuring.
pub(super) trait Goal: Sized {
    /// Readies the halves' north boards for the tail, once per choice of the north rows.
    fn end_north(walk: &mut Walk<'_, Self>, levels: PerSide<usize>);

    /// Takes in a complete row set of weight `weight`: the north boards at `levels`, with
    /// the tail rows `subsets` of each half.
    fn row_set(
        walk: &mut Walk<'_, Self>,
        levels: PerSide<usize>,
        subsets: PerSide<usize>,
        weight: u128,
    );

    /// Whether the walk should stop here.
    fn done(walk: &Walk<'_, Self>) -> bool;

    /// Frees what the goal holds that grows with the lists, for a walk short of room.
    fn release(&mut self);

    /// Where the walk's stretches of work are timed, for an estimate; `None` when they
    /// are not.
    fn clock(&mut self) -> Option<&mut Clock>;
}

/// Measuring the bytes a row set holds without counting its pairs: the walk gives up once
/// it holds more than `limit` bytes.
pub(super) struct Probe {
    pub(super) limit: usize,
}

/// The depth-first walk of one task toward `goal`.
pub(super) struct Walk<'a, G> {
    pub(super) geometry: &'a Geometry,
    budget: &'a Budget,
    pub(super) split: &'a Split,
    decided: &'a [Side],
    pub(super) tails: &'a Tails,
    /// The side chosen for the row at each position of the order, read where every row
    /// has one.
    pub(super) sides: Vec<Side>,
    /// The positions of the north rows in the order the walk places them: the split's,
    /// except while a cut fill places the other half's rows first
    /// ([`Walk::other_half_first`]).
    north_order: Vec<usize>,
    rearranged: bool,
    /// Whether every north row's side is decided: then the rows left may be rearranged,
    /// and a level a fill has read whole is read again only after it is refilled, unless
    /// pinned: each cut fill's pieces walk on from the levels where it was cut, which stay
    /// until its last piece is done. Held until the walk came back to them, the levels
    /// left each piece a share of little room: N = 26's checked row sets at 512 MiB a
    /// thread took 0.73 of the time freed.
    north_decided: bool,
    pinned: Vec<PerSide<usize>>,
    pub(super) halves: PerSide<Half>,
    pub(super) goal: G,
    /// The most bytes the walk's lists have held at once.
    pub(super) peak_list_bytes: usize,
}

impl<'a, G: Goal> Walk<'a, G> {
    /// The walk of the task `key` on `geometry`, within `budget`, its tail rows from
    /// `tails`.
    pub(super) fn new(
        geometry: &'a Geometry,
        budget: &'a Budget,
        key: &'a Key,
        tails: &'a Tails,
        goal: G,
    ) -> Walk<'a, G> {
        room::keep_freed(budget.lists);
        let rows = key.split.order.len();
        let north_rows = rows.saturating_sub(budget.tail_rows);
        Walk {
            geometry,
            budget,
            split: &key.split,
            decided: &key.decided,
            tails,
            sides: vec![Side::West; rows],
            north_order: (0..north_rows).collect(),
            rearranged: false,
            north_decided: key.decided.len() >= north_rows,
            pinned: Vec::new(),
            halves: key.split.columns.map(|_, columns| Half::new(columns)),
            goal,
            peak_list_bytes: 0,
        }
    }

    /// Walks every row set below the task's decided rows.
    pub(super) fn run(&mut self) {
        self.visit(0, PerSide::default());
    }

    /// The positions of [`Split::order`] whose rows the walk places; the rest are the tail.
    fn north_rows(&self) -> usize {
        self.split.order.len().saturating_sub(self.budget.tail_rows)
    }

    /// The sides the row at `position` may take: its decided side, if any, as the split
    /// allows.
    fn sides_at(&self, position: usize) -> impl Iterator<Item = Side> + use<G> {
        let decided = self.decided.get(position).copied();
        let allowed = Side::BOTH.map(|side| self.split.allows(position, side));
        Side::BOTH
            .into_iter()
            .zip(allowed)
            .filter(move |&(side, allowed)| allowed && decided.is_none_or(|d| d == side))
            .map(|(side, _)| side)
    }

    /// Places the north row of the walk's `step` on each side it may take, the halves
    /// holding the boards of `levels` rows each.
    fn visit(&mut self, step: usize, levels: PerSide<usize>) {
        if step == self.north_rows() {
            G::end_north(self, levels);
            self.visit_tail(step, levels, PerSide::default());
            return;
        }
        let position = self.north_order[step];
        let row = usize::from(self.split.order[position]);
        let note = self.geometry.note(row);
        for side in self.sides_at(position) {
            let level = levels[side];
            if level == self.halves[side].quota {
                continue;
            }
            let open = self.split.open[row];
            let boards = self.halves[side].levels[level].len();
            let fills = self.fills(step, side, levels, open);
            if matches!(fills, Fills::Pieces(_)) && self.other_half_first(step, side) {
                self.visit(step, levels);
                self.north_order[step..].sort_unstable();
                self.rearranged = false;
                if G::done(self) {
                    return;
                }
                continue;
            }
            let mut next = levels;
            next[side] += 1;
            let cut = fills.len() > 1;
            if cut {
                self.pinned.push(levels);
            }
            for fill in 0..fills.len() {
                let (piece, kept) = fills.get(fill, boards);
                let prefix = position < self.decided.len();
                let timed = self.goal.clock().is_some_and(|clock| prefix || clock.whole);
                let started = timed.then(Stopwatch::start);
                let n = self.geometry.n;
                let placed = self.halves[side].place(n, level, piece, row, open, note, kept);
                if let (Some(started), Some(clock)) = (started, self.goal.clock()) {
                    clock.north.resize(clock.north.len().max(position + 1), PerSide::default());
                    clock.north[position][side] += started.elapsed();
                    clock.north_boards += self.halves[side].levels[level + 1].len() as u128;
                }
                self.note_bytes();
                if !cut && self.north_decided && !self.pinned.iter().any(|p| p[side] == level) {
                    self.halves[side].release_source(level);
                }
                if !placed {
                    continue;
                }
                if G::done(self) {
                    break;
                }
                self.sides[position] = side;
                self.visit(step + 1, next);
            }
            if cut {
                self.pinned.pop();
            }
            if G::done(self) {
                return;
            }
        }
    }

    /// Chooses the sides of the tail rows from `position` on, the north boards being at
    /// `levels`, and the tail rows chosen so far for each half `subsets`.
    fn visit_tail(&mut self, position: usize, levels: PerSide<usize>, subsets: PerSide<usize>) {
        if position == self.split.order.len() {
            if let Some(weight) = self.split.weight_of(&self.sides) {
                G::row_set(self, levels, subsets, weight);
            }
            return;
        }
        let bit = 1 << (position - self.north_rows());
        for side in self.sides_at(position) {
            let chosen = subsets[side].count_ones() as usize;
            if levels[side] + chosen >= self.halves[side].quota {
                continue;
            }
            let mut next = subsets;
            next[side] |= bit;
            self.sides[position] = side;
            self.visit_tail(position + 1, levels, next);
            if G::done(self) {
                return;
            }
        }
    }

    /// Where the fill of `side` at the walk's `step` is cut and every north row left is
    /// decided, rearranges them so that the other half's come first, and says so. Its
    /// rows are then placed once, and only this half's rows are walked again for each
    /// piece, its north boards readied once ([`Half::end_north`]): in the split's order a
    /// piece walked the other half's later rows again, so that N = 28's largest checked row
    /// set in pieces placed 46 times the north boards of the row set whole and readied
    /// them in 101 s, where whole took 4 s (docs/measurements/join.md). Not where a cut
    /// comes while the rows are so rearranged: the two halves' cuts would defer to each
    /// other without end.
    fn other_half_first(&mut self, step: usize, side: Side) -> bool {
        if self.rearranged || !self.north_decided {
            return false;
        }
        let decided = self.decided;
        let other_later = self.north_order[step + 1..].iter().any(|&p| decided[p] != side);
        if other_later {
            self.north_order[step..].sort_by_key(|&p| decided[p] == side);
            self.rearranged = true;
        }
        other_later
    }

    /// Frees each half's last north level, at `levels`, once its boards are readied for
    /// the tail, where the walk reads that level again only after refilling it: the
    /// readied boards serve every row set and piece until then.
    pub(super) fn release_readied(&mut self, levels: PerSide<usize>) {
        if self.north_decided {
            for side in Side::BOTH {
                self.halves[side].release_source(levels[side]);
            }
        }
    }

    /// Whether `side` may place a queen in a north row after the walk's `step`.
    fn places_later(&self, step: usize, side: Side) -> bool {
        let later = &self.north_order[step + 1..];
        later.iter().any(|&position| self.sides_at(position).any(|s| s == side))
    }

    /// The fills of `side`'s current level with the row at the walk's `step` (on the columns
    /// `open`): the boards each extends, and how many boards it keeps where they were
    /// counted. All of them in one fill while the walk's lists stay in the half of the
    /// budget where fills are whole, with room for every candidate, or, where that room
    /// would pass it, for the boards the fill keeps, counted first: at the deep levels of
    /// N = 26 a fill keeps about two in five of its candidates. Otherwise the lists the
    /// walk will refill before reading are freed, and each fill takes the room the budget
    /// gives it among the lists still to be filled below it (a level for each north row
    /// left, on whichever half takes its queen, and each half's north boards and
    /// signatures), cut by the counts. Counted as up to a level a row on each half, the
    /// lists had twice the rows left where a cut came before both halves' last rows, and
    /// N = 28's largest checked row set was cut into pieces so small that it placed 33
    /// times the north boards it places whole (docs/measurements/join.md).
    fn fills(&mut self, step: usize, side: Side, levels: PerSide<usize>, open: u64) -> Fills {
        let level = levels[side];
        let n = self.geometry.n;
        let row = usize::from(self.split.order[self.north_order[step]]);
        let half = &self.halves[side];
        let boards = half.levels[level].len();
        let (room, held) = half.fill_bytes(level, boards);
        let others = self.list_bytes() - held;
        if self.budget.fill_is_whole(others + room) {
            return Fills::Whole(None);
        }
        let kept: usize = half.extensions(n, level, 0..boards, row, open).sum();
        if self.budget.fill_is_whole(others + Half::counted_fill_bytes(kept)) {
            self.halves[side].fit_room(level, kept);
            return Fills::Whole(Some(kept));
        }
        for s in Side::BOTH {
            let keeps_north = s != side && !self.places_later(step, s);
            self.halves[s].release_after(levels[s], keeps_north);
        }
        // The pair count's sorted copies are at most the signatures just freed; they come
        // back with them.
        self.goal.release();
        let rows_left = self.north_rows() - step - 1;
        let mut below = levels;
        below[side] += 1;
        let levels_left = Side::BOTH.map(|s| self.halves[s].quota - below[s]);
        let lists = 1 + levels_left.iter().sum::<usize>().min(rows_left) + 2 * Side::BOTH.len();
        let bytes = self.budget.fill_bytes(self.list_bytes(), lists);
        let half = &self.halves[side];
        let mut fills = Vec::new();
        let (mut start, mut taken) = (0, 0);
        for (at, kept) in half.extensions(n, level, 0..boards, row, open).enumerate() {
            if Half::counted_fill_bytes(taken + kept) > bytes && taken > 0 {
                fills.push((start..at, taken));
                (start, taken) = (at, 0);
            }
            taken += kept;
        }
        fills.push((start..boards, taken));
        Fills::Pieces(fills)
    }

    /// The signatures one half's piece may take at a row set.
    pub(super) fn signatures_per_piece(&self) -> usize {
        let signatures = self.halves.west.signature_bytes() + self.halves.east.signature_bytes();
        let north = self.list_bytes() - signatures;
        self.budget.signatures_per_piece(north, self.halves.west.quota + self.halves.east.quota)
    }

    /// The bytes of room both halves' signatures hold, with their sorted copies.
    #[cfg(test)]
    pub(super) fn signature_bytes(&self) -> usize {
        self.halves.west.signature_bytes() + self.halves.east.signature_bytes()
    }

    pub(super) fn note_bytes(&mut self) {
        self.peak_list_bytes = self.peak_list_bytes.max(self.list_bytes());
    }

    pub(super) fn list_bytes(&self) -> usize {
        self.halves.west.held_bytes() + self.halves.east.held_bytes()
    }
}

impl Goal for Probe {
    /// A probe does not ready the north boards: it only needs what their pieces test.
    fn end_north(_: &mut Walk<'_, Self>, _: PerSide<usize>) {}

    fn row_set(
        walk: &mut Walk<'_, Self>,
        levels: PerSide<usize>,
        subsets: PerSide<usize>,
        _: u128,
    ) {
        let most = walk.signatures_per_piece();
        let signatures: usize = Side::BOTH
            .map(|side| {
                let (table, subset) = (&walk.tails.0[side], subsets[side]);
                let boards = walk.halves[side].levels[levels[side]].as_slice();
                let tests = boards.iter().map(|b| table.group(subset, table.free_columns(b)).len());
                tests.sum::<usize>().min(most)
            })
            .iter()
            .sum();
        let held = walk.list_bytes() + signatures * SIGNATURE_BYTES;
        walk.peak_list_bytes = walk.peak_list_bytes.max(held);
    }

    fn done(walk: &Walk<'_, Self>) -> bool {
        Budget::probed(walk.peak_list_bytes) > walk.goal.limit
    }

    fn release(&mut self) {}

    fn clock(&mut self) -> Option<&mut Clock> {
        None
    }
}
