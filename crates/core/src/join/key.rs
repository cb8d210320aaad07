//! A join task's key: on an odd board the row of the middle column's queen, then the side
//! of each decided row of the split's order, and for a piece of a row set its slice. Keys
//! are listed by depth and read back here, and a key that names no task of the board is
//! refused.

use super::board::{Geometry, Side};
use super::pair_count::Slice;
use super::split::Split;

/// How many pieces an estimate cuts a row set into, each a slice of its pair counts
/// ([`Slice`]); a piece's key is its row set's and the slice's index.
pub(super) const SLICES: usize = 16;

/// A task of the join, read from its key: the split it works in and the sides its first
/// rows take, and for a piece of a row set, its slice.
pub(super) struct Key {
    pub(super) split: Split,
    pub(super) decided: Vec<Side>,
    pub(super) slice: Slice,
}

impl Key {
    /// Whether the key names every row's half.
    pub(super) fn is_row_set(&self) -> bool {
        self.decided.len() == self.split.order.len()
    }
}

impl Geometry {
    /// The most rows whose half a task can decide: every row but an odd board's middle
    /// column's queen's.
    pub(super) fn most_decided(&self) -> usize {
        if self.n.is_multiple_of(2) { self.n } else { self.n - 1 }
    }

    /// Every task of `depth` decided rows, in a fixed order: on an odd board the row of the
    /// middle column's queen, then one byte per decided row in [`Split::order`], its
    /// [`Side::key_byte`]. Prefixes that cannot lead to a counted row set are left out.
    pub(super) fn keys(&self, depth: usize) -> Vec<Vec<u8>> {
        let mut keys = Vec::new();
        for split in self.splits() {
            let mut prefix: Vec<u8> = split.middle_queen.map(|row| row as u8).into_iter().collect();
            let head = prefix.len();
            let mut sides = Vec::with_capacity(depth);
            each_prefix(&split, depth, &mut sides, &mut |sides| {
                prefix.truncate(head);
                prefix.extend(sides.iter().map(|side| side.key_byte()));
                keys.push(prefix.clone());
            });
        }
        keys
    }

    /// Reads a task's key, or `None` if it is not a task of this board.
    pub(super) fn key(&self, bytes: &[u8]) -> Option<Key> {
        let (split, decided) = if self.n.is_multiple_of(2) {
            (self.even_split(), bytes)
        } else {
            let (&row, decided) = bytes.split_first()?;
            let row = usize::from(row);
            if row > self.n / 2 {
                return None;
            }
            (self.odd_split(row), decided)
        };
        let (decided, piece) = decided.split_at(decided.len().min(split.order.len()));
        let decided: Vec<Side> =
            decided.iter().map(|&byte| Side::of_key_byte(byte)).collect::<Option<_>>()?;
        let allowed =
            decided.iter().enumerate().all(|(position, &side)| split.allows(position, side));
        let slice = match *piece {
            [] => Slice::WHOLE,
            [index] if usize::from(index) < SLICES => Slice::nth(usize::from(index), SLICES),
            _ => return None,
        };
        allowed.then_some(Key { split, decided, slice })
    }
}

/// Calls `found` with every choice of sides for the first `depth` rows of the order that
/// respects the halves' quotas and the first row's half, and that can still lead to
/// a counted row set.
fn each_prefix(split: &Split, depth: usize, sides: &mut Vec<Side>, found: &mut dyn FnMut(&[Side])) {
    // Past a quota, or a prefix whose every row set another of its orbit stands for.
    if !split.completes(sides) {
        return;
    }
    if sides.len() == depth {
        found(sides);
        return;
    }
    for side in Side::BOTH {
        sides.push(side);
        each_prefix(split, depth, sides, found);
        sides.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_that_are_not_tasks_are_refused() {
        let even = Geometry::new(8);
        assert!(even.key(&[2]).is_none());
        assert!(even.key(&[0; 9]).is_none());
        assert!(even.key(&[0]).is_none(), "an even board's row 0 stands west");
        let odd = Geometry::new(9);
        assert!(odd.key(&[]).is_none(), "no row for the middle column's queen");
        assert!(odd.key(&[5]).is_none(), "the mirrored split stands for rows past the middle");
        assert!(odd.key(&[0, 0]).is_none(), "the first row of the order stands west");
        assert!(odd.key(&[4, 1]).is_some());
    }
}
