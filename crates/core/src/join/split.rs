//! The splits a board's tasks work in: the rows still free, in the order their halves are
//! decided, and the cells the fixed queens leave open; an even board's one split, or an
//! odd board's one per row of its middle column's queen up to the middle, counting one row
//! set per orbit of the two reflections.

use super::board::{Geometry, PerSide, Side};

/// The join's name, in its tasks and its errors.
pub(super) const NAME: &str = "join";

/// The largest board the join handles: row sets are `u32`s and signatures `u64`s.
pub(crate) const MAX_JOIN_N: usize = 32;

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
    /// Whether the north-south reflection maps the split onto itself (an even board's, and
    /// an odd board's with its middle queen at the centre): its row sets then pair with
    /// their mirror images, and one row set of each orbit counts ([`orbit_weight`]).
    /// Otherwise every row set that puts the first row of the order west counts `weight`
    /// times: its complement, and the mirror images of both in the mirrored split.
    pub(super) mirrors: bool,
    pub(super) weight: u128,
    /// On an odd board, the row of the middle column's queen, which names the split.
    pub(super) middle_queen: Option<usize>,
}

impl Split {
    /// How many of the free rows put their queen in each half: one per column.
    pub(super) fn quota(&self) -> PerSide<usize> {
        self.columns.map(|_, columns| columns.count_ones() as usize)
    }

    /// Whether the row at `position` of the order may go to `side`: only the row sets that
    /// put the first row west count, since the east-west reflection pairs each row set with
    /// its complement.
    pub(super) fn allows(&self, position: usize, side: Side) -> bool {
        !(position == 0 && side == Side::East)
    }

    /// The weight of the complete row set that `sides`, in the order, choose: the size
    /// of its orbit, or `None` if another member of the orbit is the one counted.
    pub(super) fn weight_of(&self, sides: &[Side]) -> Option<u128> {
        if self.mirrors {
            orbit_weight(self.rows(), self.west_rows(sides))
        } else {
            Some(self.weight)
        }
    }

    /// Whether some choice of sides for the rest of the order, within the halves' quotas,
    /// completes `sides` (as the split allows them) to a counted row set. Only a mirrored
    /// split's last rows can leave none: while half its rows are still free, the free rows
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
        if !self.mirrors || 2 * (self.order.len() - sides.len()) >= self.order.len() {
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
            None if !self.order.is_empty() => return self.completions(&[Side::West]),
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

    /// The free rows, as bits.
    fn rows(&self) -> u64 {
        self.order.iter().fold(0, |rows, &row| rows | 1 << row)
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
        if self.n.is_multiple_of(2) { 1 } else { self.n / 2 + 1 }
    }

    /// The first split of [`Geometry::splits`], without building the others.
    pub(super) fn first_split(&self) -> Split {
        if self.n.is_multiple_of(2) { self.even_split() } else { self.odd_split(0) }
    }

    /// Every split the board's tasks work in: the even board's one, or one per row of the
    /// middle column's queen up to the middle.
    pub(super) fn splits(&self) -> Vec<Split> {
        if self.n.is_multiple_of(2) {
            vec![self.even_split()]
        } else {
            (0..=self.n / 2).map(|row| self.odd_split(row)).collect()
        }
    }

    pub(super) fn even_split(&self) -> Split {
        Split {
            order: (0..self.n as u8).collect(),
            columns: self.columns,
            open: [(1u64 << self.n) - 1; MAX_JOIN_N],
            mirrors: true,
            weight: 1,
            middle_queen: None,
        }
    }

    /// The split of an odd board whose middle column holds its queen in `row`, at most the
    /// middle row: the north-south reflection maps it onto the split of row `N - 1 - row`,
    /// which is therefore not counted, and the row sets of this one count for both. The
    /// middle row's queen is one of the others, in either half.
    pub(super) fn odd_split(&self, row: usize) -> Split {
        let n = self.n;
        let middle = n / 2;
        let mut open = [0u64; MAX_JOIN_N];
        for (r, open) in open.iter_mut().enumerate().take(n) {
            for column in 0..n {
                let attacked =
                    r == row || column == middle || r.abs_diff(row) == column.abs_diff(middle);
                if !attacked {
                    *open |= 1 << column;
                }
            }
        }
        // N = 1 has no row but the centre's: one empty row set, its own orbit, which
        // `orbit_weight` (that reads the last free row) cannot weigh. A mirrored split's
        // weight comes from the orbit, not from `weight`.
        let centre = row == middle;
        Split {
            order: (0..n).filter(|&r| r != row).map(|r| r as u8).collect(),
            columns: self.columns,
            open,
            mirrors: centre && n > 1,
            weight: if centre { 1 } else { 4 },
            middle_queen: Some(row),
        }
    }
}

/// The weight of a mirrored split's row set `west_rows` (it holds row 0) of the free rows
/// `rows` among the four reflections, or `None` if another member of the orbit is the one
/// counted. Reflecting the board north-south maps a row set to its mirror image, east-west
/// to its complement among the free rows. Of the orbit, exactly the row set and one image
/// under the north-south mirror (the mirror itself or its complement) hold row 0; the
/// smaller of the two counts for the whole orbit.
fn orbit_weight(rows: u64, west_rows: u64) -> Option<u128> {
    // The free rows of a mirrored split lie evenly about the middle, from row 0 to the last.
    let mirror = west_rows.reverse_bits() >> rows.leading_zeros();
    let image = if mirror & 1 == 1 { mirror } else { rows & !mirror };
    match west_rows.cmp(&image) {
        std::cmp::Ordering::Less => Some(4),
        std::cmp::Ordering::Equal => Some(2),
        std::cmp::Ordering::Greater => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_split_and_the_count_agree_with_the_list() {
        for n in 1..=13 {
            let geometry = Geometry::new(n);
            let splits = geometry.splits();
            assert_eq!(geometry.split_count(), splits.len(), "N = {n}");
            assert_eq!(geometry.first_split().middle_queen, splits[0].middle_queen, "N = {n}");
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
        for n in 1..=14 {
            let geometry = Geometry::new(n);
            for split in geometry.splits() {
                check(&split, &mut Vec::new());
            }
        }
    }
}
