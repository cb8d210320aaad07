//! The board cut into a west and an east half: the side each row's queen takes, the
//! diagonals that cross the cut, and the half-boards whose crossing diagonals make their
//! signatures. Fixed by N before any half-board is built.

use std::ops::{Index, IndexMut};

use super::half::Note;
use super::transpose::Transposes;

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

    pub(super) fn of_key_byte(byte: u8) -> Option<Side> {
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
    /// From bit [`NORTH_COLUMNS`] on, the walk repeats the columns of the queens above the
    /// board's middle, which the transposes rank, and on an odd board the column of the
    /// middle row's queen, which the rank leaves out, mirrored (`x` to `N - 1 - x`) into the
    /// other half's columns: there it meets none of the board's own, and the rank reads it
    /// mirrored back as a line of the board's half. The columns of a half lie below it.
    pub(super) columns: u64,
    pub(super) rising: u64,
    pub(super) falling: u64,
}

/// Where a half-board's word of columns repeats those of its queens above the middle.
pub(super) const NORTH_COLUMNS: u32 = 32;

impl HalfBoard {
    /// The columns of the queens above the board's middle, and the middle row's queen's
    /// mirrored.
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

/// An `n`-board cut into a west and an east half: the columns of each, the diagonals that
/// cross the cut, and the ranks of sets of lines for the transposes.
#[derive(Clone, Debug)]
pub(super) struct Geometry {
    pub(super) n: usize,
    /// The middle column of an odd board is in neither half.
    pub(super) columns: PerSide<u64>,
    rising: Span,
    falling: Span,
    /// The ranks of row sets against the columns of north queens.
    pub(super) transposes: Transposes,
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
        let transposes = Transposes::new(n);
        Geometry { n, columns, rising, falling, transposes }
    }

    /// What a fill of `row` notes of its queens for the transposes' ranks.
    pub(super) fn note(&self, row: usize) -> Note {
        let middle = self.n / 2;
        if row < middle {
            Note::Column
        } else if row == middle && !self.n.is_multiple_of(2) {
            Note::MirroredColumn
        } else {
            Note::Nothing
        }
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
}
