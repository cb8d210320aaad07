//! One solution for every board that has one, built directly in O(N).
//!
//! The classic explicit construction (Hoffman, Loessi and Moore, 1969, in the form Wikipedia
//! gives): counting columns from 1, the even columns in order and then the odd ones form a
//! solution unless N mod 6 is 2 or 3. For N mod 6 = 2 the odd columns start 3, 1 and 5
//! moves to the end; for N mod 6 = 3 the 2 moves to the end of the even ones and 1, 3 to
//! the end of the odd ones. The result is checked like any other solution.

use crate::error::Error;
use crate::solution::Solution;

/// The largest board [`construct`] builds: its solution alone takes 8 bytes a row, 800 MB
/// at this size, and printing it about a gigabyte.
pub const MAX_CONSTRUCT_N: usize = 100_000_000;

/// A solution of the `n`-board, the same every time; [`Error::NoSolution`] for N = 2 and
/// N = 3 (and N = 0), [`Error::TooLarge`] above [`MAX_CONSTRUCT_N`].
pub fn construct(n: usize) -> Result<Solution, Error> {
    if matches!(n, 0 | 2 | 3) {
        return Err(Error::NoSolution { n });
    }
    if n > MAX_CONSTRUCT_N {
        return Err(Error::TooLarge { n, max: MAX_CONSTRUCT_N });
    }
    // Columns counted from 1 while building, as the rules are stated.
    let evens = (2..=n).step_by(2);
    let odds = (1..=n).step_by(2);
    let mut columns = Vec::with_capacity(n);
    match n % 6 {
        2 => {
            columns.extend(evens);
            columns.extend([3, 1]);
            columns.extend(odds.skip(3));
            columns.push(5);
        }
        3 => {
            columns.extend(evens.skip(1));
            columns.push(2);
            columns.extend(odds.skip(2));
            columns.extend([1, 3]);
        }
        _ => {
            columns.extend(evens);
            columns.extend(odds);
        }
    }
    for column in &mut columns {
        *column -= 1;
    }
    Solution::new(columns).map_err(|conflict| {
        Error::Inconsistent(format!("the construction for N = {n} failed: {conflict}"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn small_boards_get_the_textbook_solutions() {
        let solve = |n| construct(n).map(|s| s.to_string());
        assert_eq!(solve(1), Ok("1".to_owned()));
        assert_eq!(solve(4), Ok("2 4 1 3".to_owned()));
        assert_eq!(solve(8), Ok("2 4 6 8 3 1 7 5".to_owned()));
        assert_eq!(solve(9), Ok("4 6 8 2 5 7 9 1 3".to_owned()));
        for n in [0, 2, 3] {
            assert_eq!(solve(n), Err(Error::NoSolution { n }));
        }
        let too_large = MAX_CONSTRUCT_N + 1;
        assert_eq!(solve(too_large), Err(Error::TooLarge { n: too_large, max: MAX_CONSTRUCT_N }));
    }
}
