//! The splits a board's tasks work in: the rows still free, in the order their halves are
//! decided, and the cells the fixed queens leave open; an even board's one split, counting
//! one row set per orbit of the two reflections, or an odd board's one per canonical
//! placement of its middle row's and middle column's queens, weighed by its orbit.

use super::board::{Geometry, PerSide, Side};

/// The join's name, in its tasks and its errors.
pub(super) const NAME: &str = "join";

/// The largest board the join handles: row sets are `u32`s and signatures `u64`s.
pub(crate) const MAX_JOIN_N: usize = 32;

/// One placement of the middle row's and middle column's queens on an odd board.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Centre {
    /// The row of the middle column's queen.
    pub(super) row: usize,
    /// The column of the middle row's queen.
    pub(super) column: usize,
}

/// A board split for the join: the rows still free, in the order their halves are decided,
/// the columns of each half, and the cells the fixed queens leave open.
#[derive(Clone, Debug)]
pub(super) struct Split {
    /// The free rows in the order the walk decides them: from the top, so that neighbouring
    /// rows, which attack each other most, prune each half early, and the tail rows, the
    /// last of the order, lie together.
    pub(super) order: Vec<u8>,
    pub(super) columns: PerSide<u64>,
    /// Per row, the columns no fixed queen attacks.
    pub(super) open: [u64; MAX_JOIN_N],
    /// Even boards count one row set per orbit of the two reflections (see
    /// [`orbit_weight`]); odd boards count every row set of a canonical centre placement,
    /// weighed by its orbit.
    pub(super) reflect: bool,
    pub(super) weight: u128,
    /// The odd board's centre placement, which names the split.
    pub(super) centre: Option<Centre>,
}

impl Split {
    /// How many of the free rows put their queen in each half: one per column.
    pub(super) fn quota(&self) -> PerSide<usize> {
        self.columns.map(|_, columns| columns.count_ones() as usize)
    }

    /// Whether the row at `position` of the order may go to `side`: an even board counts
    /// only the row sets that put row 0 west, since the east-west reflection pairs each
    /// row set with its complement.
    pub(super) fn allows(&self, position: usize, side: Side) -> bool {
        !(self.reflect && position == 0 && side == Side::East)
    }

    /// The weight of the complete row set that `sides`, in the order, choose: the size
    /// of its orbit, or `None` if another member of the orbit is the one counted.
    pub(super) fn weight_of(&self, sides: &[Side]) -> Option<u128> {
        if self.reflect {
            orbit_weight(self.order.len(), self.west_rows(sides))
        } else {
            Some(self.weight)
        }
    }

    /// Whether some choice of sides for the rest of the order, within the halves' quotas,
    /// completes `sides` (as the split allows them) to a counted row set. Only an even
    /// board's last rows can leave none: while half its rows are still free, the free rows
    /// at both ends can mirror the decided ones (or their complement), which makes the row
    /// set no greater than its image, so only shorter rests are searched.
    pub(super) fn completes(&self, sides: &[Side]) -> bool {
        self.completes_from(&mut sides.to_vec())
    }

    fn completes_from(&self, sides: &mut Vec<Side>) -> bool {
        let quota = self.quota();
        let taken = |side: Side| sides.iter().filter(|&&s| s == side).count();
        let allowed = sides.first().is_none_or(|&side| self.allows(0, side));
        if !allowed || Side::BOTH.iter().any(|&side| taken(side) > quota[side]) {
            return false;
        }
        if sides.len() == self.order.len() {
            return self.weight_of(sides).is_some();
        }
        if !self.reflect || 2 * (self.order.len() - sides.len()) >= self.order.len() {
            return true;
        }
        Side::BOTH.into_iter().any(|side| {
            sides.push(side);
            let completes = self.completes_from(sides);
            sides.pop();
            completes
        })
    }

    /// How many choices of sides for the rest of the order, within the halves' quotas,
    /// follow `sides` (as the split allows them): the row sets below it, counted or not.
    pub(super) fn completions(&self, sides: &[Side]) -> f64 {
        match sides.first() {
            None if self.reflect => return self.completions(&[Side::West]),
            Some(&side) if !self.allows(0, side) => return 0.0,
            _ => {}
        }
        let free = self.order.len() - sides.len();
        let west = sides.iter().filter(|&&s| s == Side::West).count();
        let Some(west_left) = self.quota().west.checked_sub(west) else {
            return 0.0;
        };
        if west_left > free {
            return 0.0;
        }
        (0..west_left).fold(1.0, |ways, k| ways * (free - k) as f64 / (k + 1) as f64)
    }

    /// The rows that `sides`, in the order, put west.
    pub(super) fn west_rows(&self, sides: &[Side]) -> u64 {
        (self.order.iter().zip(sides))
            .filter(|&(_, &side)| side == Side::West)
            .fold(0, |rows, (&row, _)| rows | 1 << row)
    }
}

impl Geometry {
    /// How many splits the board's tasks work in, without building them.
    pub(super) fn split_count(&self) -> usize {
        self.centres.len().max(1)
    }

    /// The first split of [`Geometry::splits`], without building the others.
    pub(super) fn first_split(&self) -> Split {
        match self.centres.first() {
            Some(&(centre, weight)) => self.odd_split(centre, weight),
            None => self.even_split(),
        }
    }

    /// Every split the board's tasks work in: the even board's one, or one per canonical
    /// centre placement.
    pub(super) fn splits(&self) -> Vec<Split> {
        if self.n.is_multiple_of(2) {
            vec![self.even_split()]
        } else {
            self.centres.iter().map(|&(centre, weight)| self.odd_split(centre, weight)).collect()
        }
    }

    pub(super) fn even_split(&self) -> Split {
        Split {
            order: (0..self.n as u8).collect(),
            columns: self.columns,
            open: [(1u64 << self.n) - 1; MAX_JOIN_N],
            reflect: true,
            weight: 1,
            centre: None,
        }
    }

    pub(super) fn odd_split(&self, centre: Centre, weight: u128) -> Split {
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
        Split {
            order: (0..n).filter(|&r| r != centre.row && r != middle).map(|r| r as u8).collect(),
            columns: self.columns.map(|_, columns| columns & !(1u64 << centre.column)),
            open,
            reflect: false,
            weight,
            centre: Some(centre),
        }
    }
}

/// The weight of an even board's row set `west_rows` (it holds row 0) among the four
/// reflections, or `None` if another member of its orbit is the one counted. Reflecting
/// the board north-south maps a row set to its mirror image, east-west to its complement.
/// Of the orbit, exactly the row set and one image under the north-south mirror (the
/// mirror itself or its complement) hold row 0; the smaller of the two counts for the
/// whole orbit.
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

/// Every placement of the middle column's queen (row) and the middle row's queen (column)
/// that a solution can hold, one per orbit under the board's symmetries, with the orbit's
/// size. The symmetries map the middle row and column onto themselves, so they act on these
/// placements by reflecting either coordinate and by swapping the two.
pub(super) fn canonical_centres(n: usize) -> Vec<(Centre, u128)> {
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
    use super::*;

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
    fn the_first_split_and_the_count_agree_with_the_list() {
        for n in 1..=13 {
            let geometry = Geometry::new(n);
            let splits = geometry.splits();
            assert_eq!(geometry.split_count(), splits.len(), "N = {n}");
            assert_eq!(geometry.first_split().centre, splits[0].centre, "N = {n}");
        }
    }

    /// Every prefix of sides, by brute force over its completions: whether one is counted,
    /// and how many there are.
    #[test]
    fn prefixes_complete_exactly_where_a_counted_row_set_follows() {
        fn check(split: &Split, sides: &mut Vec<Side>) -> (bool, f64) {
            let quota = split.quota();
            let within = sides.first().is_none_or(|&side| split.allows(0, side))
                && Side::BOTH
                    .iter()
                    .all(|&side| sides.iter().filter(|&&s| s == side).count() <= quota[side]);
            let found = if !within {
                (false, 0.0)
            } else if sides.len() == split.order.len() {
                (split.weight_of(sides).is_some(), 1.0)
            } else {
                let mut found = (false, 0.0);
                for side in Side::BOTH {
                    sides.push(side);
                    let (completes, completions) = check(split, sides);
                    sides.pop();
                    found = (found.0 || completes, found.1 + completions);
                }
                found
            };
            assert_eq!(split.completes(sides), found.0, "{sides:?}");
            assert_eq!(split.completions(sides), found.1, "{sides:?}");
            found
        }
        for n in 4..=14 {
            let geometry = Geometry::new(n);
            for split in geometry.splits() {
                check(&split, &mut Vec::new());
            }
        }
    }
}
