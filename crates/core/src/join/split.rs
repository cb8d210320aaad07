//! The board as the join splits it: the two halves, the diagonals that cross the middle,
//! the symmetry orbits that let one row set stand for several, and the task keys.
//!
//! Everything here is fixed by N (and an odd board's centre placement) before any
//! half-board is built, so it is kept apart from the walk that builds them, the tables that
//! finish them and the budget that bounds them.

use std::ops::{Index, IndexMut};

use super::pair_count::Slice;
use super::transpose::Transposes;

/// The join's name, in its tasks and its errors.
pub(super) const NAME: &str = "join";

/// The largest board the join handles: row sets are `u32`s and signatures `u64`s.
pub(crate) const MAX_JOIN_N: usize = 32;

/// The half of the board a row puts its queen in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Side {
    West,
    East,
}

impl Side {
    /// Both sides, in the order keys and the walk try them: east first, so that task lists
    /// keep the order they had when a key byte of 0 meant east.
    pub(super) const BOTH: [Side; 2] = [Side::East, Side::West];

    /// The side as a task key stores it.
    pub(super) fn key_byte(self) -> u8 {
        match self {
            Side::West => 1,
            Side::East => 0,
        }
    }

    fn of_key_byte(byte: u8) -> Option<Side> {
        match byte {
            1 => Some(Side::West),
            0 => Some(Side::East),
            _ => None,
        }
    }
}

/// One value for each half of the board.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct PerSide<T> {
    pub(super) west: T,
    pub(super) east: T,
}

impl<T> PerSide<T> {
    pub(super) fn map<U>(self, mut f: impl FnMut(Side, T) -> U) -> PerSide<U> {
        PerSide { west: f(Side::West, self.west), east: f(Side::East, self.east) }
    }
}

impl<T> Index<Side> for PerSide<T> {
    type Output = T;

    fn index(&self, side: Side) -> &T {
        match side {
            Side::West => &self.west,
            Side::East => &self.east,
        }
    }
}

impl<T> IndexMut<Side> for PerSide<T> {
    fn index_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::West => &mut self.west,
            Side::East => &mut self.east,
        }
    }
}

/// Diagonals, numbered as bits of a `u64`, that have cells on both sides of a cut.
#[derive(Clone, Copy, Debug)]
pub(super) struct Span {
    low: u32,
    pub(super) len: u32,
}

impl Span {
    fn across(n: usize, diagonal: impl Fn(usize, usize) -> u32, columns: PerSide<u64>) -> Span {
        let rows: Vec<u8> = (0..n as u8).collect();
        // The crossing diagonals of a vertical split are consecutive in both numberings.
        let seen = |columns| diagonals_of(n, &rows, columns, &diagonal);
        Span::covering(seen(columns.west) & seen(columns.east))
    }

    /// The least span that holds every bit of `diagonals`; an empty one starts anywhere.
    pub(super) fn covering(diagonals: u64) -> Span {
        let low = diagonals.trailing_zeros() % 64;
        let len = if diagonals == 0 { 0 } else { 64 - diagonals.leading_zeros() - low };
        Span { low, len }
    }

    pub(super) fn extract(self, diagonals: u64) -> u64 {
        (diagonals >> self.low) & ((1u64 << self.len) - 1)
    }
}

/// The diagonals, numbered by `diagonal(row, column)`, with a cell in one of `rows` and
/// one of `columns`.
pub(super) fn diagonals_of(
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

/// The diagonal through `(row, column)` that rises to the east, as a bit number.
pub(super) fn rising(row: usize, column: usize) -> u32 {
    (row + column) as u32
}

/// A half-board's queens so far: the columns it took, and its diagonals as bits
/// `row + column` and `column + N - 1 - row`.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct HalfBoard {
    /// From bit [`NORTH_COLUMNS`] on, the walk repeats the columns of the queens above an
    /// even board's middle, which the transposes rank; the columns of a half lie below it.
    pub(super) columns: u64,
    pub(super) rising: u64,
    pub(super) falling: u64,
}

/// Where a half-board's word of columns repeats those of its queens above the middle.
pub(super) const NORTH_COLUMNS: u32 = 32;

impl HalfBoard {
    /// The columns of the queens above an even board's middle.
    pub(super) fn north_columns(&self) -> u64 {
        self.columns >> NORTH_COLUMNS
    }

    /// The board with a queen more, at `bit` in `row`, whose falling diagonal is `fall`
    /// (`N - 1 - row`).
    pub(super) fn with_queen(self, bit: u64, row: usize, fall: usize) -> HalfBoard {
        HalfBoard {
            columns: self.columns | bit,
            rising: self.rising | bit << row,
            falling: self.falling | bit << fall,
        }
    }
}

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

/// An `n`-board cut into a west and an east half: the columns of each, the diagonals that
/// cross the cut, and an odd board's canonical centre placements.
#[derive(Clone, Debug)]
pub(super) struct Geometry {
    pub(super) n: usize,
    /// The middle column of an odd board is in neither half.
    pub(super) columns: PerSide<u64>,
    rising: Span,
    falling: Span,
    /// The canonical centre placements of an odd board with their orbit sizes; empty when
    /// `n` is even.
    pub(super) centres: Vec<(Centre, u128)>,
    /// An even board's ranks of row sets against the columns of north queens.
    pub(super) transposes: Option<Transposes>,
}

impl Geometry {
    pub(super) fn new(n: usize) -> Geometry {
        let half = n / 2;
        let columns = PerSide {
            west: (1u64 << half) - 1,
            east: ((1u64 << n) - 1) & !((1u64 << (n - half)) - 1),
        };
        let rising = Span::across(n, rising, columns);
        let falling = Span::across(n, |r, c| (c + n - 1 - r) as u32, columns);
        let centres = if n % 2 == 1 { canonical_centres(n) } else { Vec::new() };
        let transposes = n.is_multiple_of(2).then(|| Transposes::new(n));
        Geometry { n, columns, rising, falling, centres, transposes }
    }

    /// The crossing diagonals a half-board occupies, as one word.
    pub(super) fn signature(&self, board: &HalfBoard) -> u64 {
        self.rising.extract(board.rising) | self.falling.extract(board.falling) << self.rising.len
    }

    pub(super) fn signature_bits(&self) -> u32 {
        self.rising.len + self.falling.len
    }

    /// The lowest column of the east half.
    pub(super) fn east_low(&self) -> u32 {
        (self.n - self.n / 2) as u32
    }

    /// The most rows whose half a task can decide: every row left free by the middle queens.
    pub(super) fn most_decided(&self) -> usize {
        if self.n.is_multiple_of(2) { self.n } else { self.n.saturating_sub(2) }
    }

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

    /// Every task of `depth` decided rows, in a fixed order: on an odd board the centre
    /// placement's row and column, then one byte per decided row in [`Split::order`], its
    /// [`Side::key_byte`]. Prefixes that cannot lead to a counted row set are left out.
    pub(super) fn keys(&self, depth: usize) -> Vec<Vec<u8>> {
        let mut keys = Vec::new();
        for split in self.splits() {
            let mut prefix = match split.centre {
                Some(centre) => vec![centre.row as u8, centre.column as u8],
                None => Vec::new(),
            };
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
            let (&[row, column], decided) = bytes.split_first_chunk::<2>()?;
            let centre = Centre { row: usize::from(row), column: usize::from(column) };
            let &(_, weight) = self.centres.iter().find(|(c, _)| *c == centre)?;
            (self.odd_split(centre, weight), decided)
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

/// Calls `found` with every choice of sides for the first `depth` rows of the order that
/// respects the halves' quotas and the even board's first row, and that can still lead to
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

    #[test]
    fn keys_that_are_not_tasks_are_refused() {
        let even = Geometry::new(8);
        assert!(even.key(&[2]).is_none());
        assert!(even.key(&[0; 9]).is_none());
        assert!(even.key(&[0]).is_none(), "an even board's row 0 stands west");
        let odd = Geometry::new(9);
        assert!(odd.key(&[4]).is_none());
        assert!(odd.key(&[4, 5]).is_none(), "not a centre placement a solution can hold");
        assert!(odd.key(&[0, 0]).is_none(), "attacking middle queens");
    }
}
