use std::fmt;

/// A complete, valid placement: exactly one queen in every row and column and no two on a
/// diagonal. `columns()[r]` is the 0-based column of row `r`'s queen.
///
/// The board's eight symmetries act on solutions; [`Solution::canonical`] picks the
/// lexicographically least image as the representative of a class.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Solution {
    columns: Vec<usize>,
}

/// The first reason, scanning rows from the top, that a placement is not a solution, or,
/// for queens placed in advance (see [`crate::Problem::with_placement`]), scanning them in
/// the order given. Rows and columns are 0-based here; `Display` writes them 1-based, as
/// users count.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Conflict {
    /// No queens at all.
    Empty,
    /// A queen stands outside the board.
    OffBoard {
        /// Its row.
        row: usize,
        /// Its column.
        column: usize,
    },
    /// Two queens share a row; only queens placed in advance can, a solution's columns
    /// being one per row.
    Row {
        /// The queen met first, as (row, column).
        first: (usize, usize),
        /// The queen met second.
        second: (usize, usize),
    },
    /// Two queens share a column.
    Column {
        /// The queen met first (in a solution, the upper one), as (row, column).
        first: (usize, usize),
        /// The queen met second.
        second: (usize, usize),
    },
    /// Two queens share a diagonal.
    Diagonal {
        /// The queen met first (in a solution, the upper one), as (row, column).
        first: (usize, usize),
        /// The queen met second.
        second: (usize, usize),
    },
}

impl fmt::Display for Conflict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = |(r, c): (usize, usize)| format!("row {} column {}", r + 1, c + 1);
        match *self {
            Conflict::Empty => f.write_str("no queens"),
            Conflict::OffBoard { row, column } => {
                write!(f, "the queen at {} is off the board", at((row, column)))
            }
            Conflict::Row { first, second } if first == second => {
                write!(f, "the queen at {} is given twice", at(first))
            }
            Conflict::Row { first, second } => {
                write!(f, "queens at {} and {} share a row", at(first), at(second))
            }
            Conflict::Column { first, second } => {
                write!(f, "queens at {} and {} share a column", at(first), at(second))
            }
            Conflict::Diagonal { first, second } => {
                write!(f, "queens at {} and {} share a diagonal", at(first), at(second))
            }
        }
    }
}

impl std::error::Error for Conflict {}

impl Solution {
    /// Checks a placement given as one column per row, in O(N).
    pub fn new(columns: Vec<usize>) -> Result<Solution, Conflict> {
        if columns.is_empty() {
            return Err(Conflict::Empty);
        }
        // A bit per column and diagonal is enough to accept a solution and takes a few
        // megabytes at ten million rows; naming the clash takes the row on each line,
        // eight bytes a line, which only a rejected placement pays for.
        if attacks_none(&columns) {
            return Ok(Solution { columns });
        }
        match first_conflict(&columns) {
            Some(conflict) => Err(conflict),
            None => Ok(Solution { columns }),
        }
    }

    /// The board size.
    pub fn n(&self) -> usize {
        self.columns.len()
    }

    /// The 0-based column of each row's queen.
    pub fn columns(&self) -> &[usize] {
        &self.columns
    }

    /// The solution turned a quarter clockwise: the queen at (r, c) moves to (c, N-1-r).
    pub fn rotate(&self) -> Solution {
        let n = self.n();
        let mut columns = vec![0; n];
        for (row, &column) in self.columns.iter().enumerate() {
            columns[column] = n - 1 - row;
        }
        Solution { columns }
    }

    /// The solution mirrored left to right: the queen at (r, c) moves to (r, N-1-c).
    pub fn mirror(&self) -> Solution {
        let n = self.n();
        Solution { columns: self.columns.iter().map(|&c| n - 1 - c).collect() }
    }

    /// All eight images under the board's symmetries, the identity first; images may repeat.
    pub fn images(&self) -> Vec<Solution> {
        let mut images = Vec::with_capacity(8);
        let mut turned = self.clone();
        for _ in 0..4 {
            images.push(turned.mirror());
            let next = turned.rotate();
            images.push(turned);
            turned = next;
        }
        images.swap(0, 1);
        images
    }

    /// The least image in lexicographic order of columns: one representative per class.
    pub fn canonical(&self) -> Solution {
        self.images().into_iter().min().expect("a solution has eight images")
    }

    /// How many distinct images the solution has: 8, 4, 2, or 1 for the single queen of N = 1.
    pub fn distinct_images(&self) -> usize {
        let mut images = self.images();
        images.sort();
        images.dedup();
        images.len()
    }
}

/// Whether one column per row puts every queen on the board and no two on a line.
fn attacks_none(columns: &[usize]) -> bool {
    let n = columns.len();
    let mut taken_columns = BitSet::new(n);
    let mut taken_falling = BitSet::new(2 * n - 1);
    let mut taken_rising = BitSet::new(2 * n - 1);
    columns.iter().enumerate().all(|(row, &column)| {
        column < n
            && taken_columns.insert(column)
            && taken_falling.insert(row + n - 1 - column)
            && taken_rising.insert(row + column)
    })
}

/// A fixed-size set of small numbers, one bit each.
struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    fn new(len: usize) -> BitSet {
        BitSet { words: vec![0; len.div_ceil(64)] }
    }

    /// Adds `i`; false if it was there already.
    fn insert(&mut self, i: usize) -> bool {
        let (word, bit) = (&mut self.words[i / 64], 1u64 << (i % 64));
        let fresh = *word & bit == 0;
        *word |= bit;
        fresh
    }
}

/// The first reason, row by row, that one column per row is not a solution, if any.
fn first_conflict(columns: &[usize]) -> Option<Conflict> {
    let n = columns.len();
    // Which row holds each column and each diagonal, so the first clash names both queens.
    let mut column_row = vec![usize::MAX; n];
    let mut falling_row = vec![usize::MAX; 2 * n - 1];
    let mut rising_row = vec![usize::MAX; 2 * n - 1];
    for (row, &column) in columns.iter().enumerate() {
        if column >= n {
            return Some(Conflict::OffBoard { row, column });
        }
        let queen = (row, column);
        let earlier = column_row[column];
        if earlier != usize::MAX {
            return Some(Conflict::Column { first: (earlier, column), second: queen });
        }
        for earlier in [falling_row[row + n - 1 - column], rising_row[row + column]] {
            if earlier != usize::MAX {
                let first = (earlier, columns[earlier]);
                return Some(Conflict::Diagonal { first, second: queen });
            }
        }
        column_row[column] = row;
        falling_row[row + n - 1 - column] = row;
        rising_row[row + column] = row;
    }
    None
}

impl fmt::Display for Solution {
    /// The 1-based column of each row, space-separated.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, c) in self.columns.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{}", c + 1)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_a_known_solution() {
        let s = Solution::new(vec![1, 3, 0, 2]).unwrap();
        assert_eq!(s.to_string(), "2 4 1 3");
    }

    #[test]
    fn names_the_first_clash() {
        assert_eq!(
            Solution::new(vec![0, 2, 0, 3]),
            Err(Conflict::Column { first: (0, 0), second: (2, 0) })
        );
        assert_eq!(
            Solution::new(vec![0, 1, 3, 2]),
            Err(Conflict::Diagonal { first: (0, 0), second: (1, 1) })
        );
        assert_eq!(
            Solution::new(vec![2, 1, 0]),
            Err(Conflict::Diagonal { first: (0, 2), second: (1, 1) })
        );
        assert_eq!(Solution::new(vec![0, 4]), Err(Conflict::OffBoard { row: 1, column: 4 }));
        assert_eq!(Solution::new(vec![]), Err(Conflict::Empty));
    }

    #[test]
    fn four_quarter_turns_are_the_identity() {
        let s = Solution::new(vec![0, 4, 7, 5, 2, 6, 1, 3]).unwrap();
        assert_eq!(s.rotate().rotate().rotate().rotate(), s);
        assert_ne!(s.rotate(), s);
        assert!(Solution::new(s.rotate().columns().to_vec()).is_ok());
        assert_eq!(s.mirror().mirror(), s);
    }

    #[test]
    fn images_are_solutions_and_share_a_canonical_form() {
        let s = Solution::new(vec![0, 4, 7, 5, 2, 6, 1, 3]).unwrap();
        let images = s.images();
        assert_eq!(images[0], s);
        for image in &images {
            assert!(Solution::new(image.columns().to_vec()).is_ok());
            assert_eq!(image.canonical(), s.canonical());
        }
        assert_eq!(s.distinct_images(), 8);
        // The 4-queens solution is unchanged by a quarter turn.
        assert_eq!(Solution::new(vec![1, 3, 0, 2]).unwrap().distinct_images(), 2);
        assert_eq!(Solution::new(vec![0]).unwrap().distinct_images(), 1);
    }
}
