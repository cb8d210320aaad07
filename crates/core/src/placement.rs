//! Queens placed in advance: the partial board a count with `--place` must hold.

use std::fmt;

use crate::error::Error;
use crate::mask::MAX_N;
use crate::solution::Conflict;

/// Marks a row with no fixed queen.
const OPEN: u8 = u8::MAX;

/// Queens fixed in advance on a board of at most [`MAX_N`] rows, at most one per
/// row, no two attacking each other. A fixed-size value, so that a [`crate::Problem`]
/// holding one stays `Copy`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Placement {
    /// The column of each row's fixed queen, or [`OPEN`].
    columns: [u8; MAX_N],
}

impl Placement {
    /// Checks queens given as 0-based `(row, column)` pairs in any order, against each
    /// other and the `n`-board. [`Error::Placement`] names the first queen off the board or
    /// the first pair that share a row, column or diagonal, in the order given.
    pub fn new(n: usize, queens: &[(usize, usize)]) -> Result<Placement, Error> {
        if !(1..=MAX_N).contains(&n) {
            return Err(Error::BoardSize { n });
        }
        let conflict = |conflict| Err(Error::Placement { n, conflict });
        let mut columns = [OPEN; MAX_N];
        for (i, &second) in queens.iter().enumerate() {
            let (row, column) = second;
            if row >= n || column >= n {
                return conflict(Conflict::OffBoard { row, column });
            }
            for &first in &queens[..i] {
                if first.0 == row {
                    return conflict(Conflict::Row { first, second });
                }
                if first.1 == column {
                    return conflict(Conflict::Column { first, second });
                }
                if first.0.abs_diff(row) == first.1.abs_diff(column) {
                    return conflict(Conflict::Diagonal { first, second });
                }
            }
            columns[row] = column as u8;
        }
        Ok(Placement { columns })
    }

    /// The column of the queen fixed in `row`, if there is one.
    pub fn column(&self, row: usize) -> Option<usize> {
        self.columns.get(row).filter(|&&c| c != OPEN).map(|&c| usize::from(c))
    }

    /// The fixed queens as 0-based `(row, column)` pairs, from the top row down.
    pub fn queens(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        (0..MAX_N).filter_map(|row| Some((row, self.column(row)?)))
    }

    /// Whether `prefix` (a column for each of the first rows) keeps every fixed queen of
    /// those rows where it is.
    pub(crate) fn admits(&self, prefix: &[u8]) -> bool {
        prefix.iter().zip(&self.columns).all(|(&c, &fixed)| fixed == OPEN || c == fixed)
    }
}

impl fmt::Display for Placement {
    /// The queens as `R:C` pairs, 1-based, from the top row down, comma-separated: the
    /// form `nqueens count --place` reads.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, (row, column)) in self.queens().enumerate() {
            if i > 0 {
                f.write_str(",")?;
            }
            write!(f, "{}:{}", row + 1, column + 1)?;
        }
        Ok(())
    }
}

impl fmt::Debug for Placement {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.queens()).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_the_first_clash_in_the_order_given() {
        let place = |queens: &[(usize, usize)]| Placement::new(8, queens).map(|p| p.to_string());
        let clash = |conflict| Err(Error::Placement { n: 8, conflict });
        assert_eq!(place(&[(4, 2), (0, 0)]), Ok("1:1,5:3".to_owned()));
        assert_eq!(place(&[]), Ok(String::new()));
        assert_eq!(place(&[(8, 0)]), clash(Conflict::OffBoard { row: 8, column: 0 }));
        assert_eq!(place(&[(0, 8)]), clash(Conflict::OffBoard { row: 0, column: 8 }));
        assert_eq!(
            place(&[(2, 1), (2, 5)]),
            clash(Conflict::Row { first: (2, 1), second: (2, 5) })
        );
        assert_eq!(
            place(&[(0, 3), (6, 3)]),
            clash(Conflict::Column { first: (0, 3), second: (6, 3) })
        );
        assert_eq!(
            place(&[(0, 0), (7, 4), (5, 2)]),
            clash(Conflict::Diagonal { first: (7, 4), second: (5, 2) })
        );
        assert_eq!(Placement::new(200, &[]), Err(Error::BoardSize { n: 200 }));
    }

    #[test]
    fn the_message_counts_from_one() {
        let error = Placement::new(8, &[(0, 0), (2, 2)]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "cannot place these queens on the 8 x 8 board: queens at row 1 column 1 and row 3 \
             column 3 share a diagonal"
        );
    }
}
