//! Solutions unchanged by a rotation, for Burnside's lemma.
//!
//! A solution unchanged by a rotation `g` is a union of orbits of `g` on the cells. The
//! search takes the first empty row, tries each column there, and places that cell's whole
//! orbit at once (2 cells for a half turn, 4 for a quarter turn, 1 for the centre), so it
//! visits only about the square root of the plain tree and costs almost nothing beside it.

use crate::error::Error;

/// A board of occupied rows, columns and diagonals, for boards of any size.
struct Occupancy {
    n: usize,
    rows: Vec<bool>,
    columns: Vec<bool>,
    falling: Vec<bool>,
    rising: Vec<bool>,
}

impl Occupancy {
    fn new(n: usize) -> Occupancy {
        Occupancy {
            n,
            rows: vec![false; n],
            columns: vec![false; n],
            falling: vec![false; 2 * n - 1],
            rising: vec![false; 2 * n - 1],
        }
    }

    fn is_free(&self, (row, column): (usize, usize)) -> bool {
        !(self.rows[row]
            || self.columns[column]
            || self.falling[row + self.n - 1 - column]
            || self.rising[row + column])
    }

    fn set(&mut self, (row, column): (usize, usize), queen: bool) {
        self.rows[row] = queen;
        self.columns[column] = queen;
        self.falling[row + self.n - 1 - column] = queen;
        self.rising[row + column] = queen;
    }
}

/// The cells that `quarter_turns` quarter turns cycle `start` through, `start` first, and
/// how many there are (1, 2 or 4). A fixed array: the search asks at every node.
fn orbit(n: usize, start: (usize, usize), quarter_turns: u32) -> ([(usize, usize); 4], usize) {
    let turn = |(row, column): (usize, usize)| {
        (0..quarter_turns).fold((row, column), |(r, c), _| (c, n - 1 - r))
    };
    let mut cells = [start; 4];
    let mut len = 1;
    let mut next = turn(start);
    while next != start {
        cells[len] = next;
        len += 1;
        next = turn(next);
    }
    (cells, len)
}

fn count_from(board: &mut Occupancy, quarter_turns: u32, first_row: usize) -> u128 {
    let Some(row) = (first_row..board.n).find(|&r| !board.rows[r]) else {
        return 1;
    };
    let mut found = 0;
    for column in 0..board.n {
        let (cells, len) = orbit(board.n, (row, column), quarter_turns);
        let cells = &cells[..len];
        let mut placed = 0;
        for &cell in cells {
            if !board.is_free(cell) {
                break;
            }
            board.set(cell, true);
            placed += 1;
        }
        if placed == cells.len() {
            found += count_from(board, quarter_turns, row + 1);
        }
        for &cell in &cells[..placed] {
            board.set(cell, false);
        }
    }
    found
}

/// The number of solutions of an `n`-board unchanged by `quarter_turns` quarter turns
/// (1: a quarter turn, 2: a half turn).
pub fn count_rotation_fixed(n: usize, quarter_turns: u32) -> u128 {
    count_from(&mut Occupancy::new(n), quarter_turns, 0)
}

/// The number of classes of solutions under the board's 8 symmetries, from the total by
/// Burnside's lemma: the average number of solutions each symmetry leaves unchanged.
/// For N >= 2 no reflection fixes a solution, which leaves
/// `unique = (total + R180 + 2 * R90) / 8`; the single queen of N = 1 is fixed by all eight.
pub fn unique_by_burnside(n: usize, total: u128) -> Result<u128, Error> {
    if n <= 1 {
        return Ok(total);
    }
    let half_turn = count_rotation_fixed(n, 2);
    let quarter_turn = count_rotation_fixed(n, 1);
    let sum = total
        .checked_add(half_turn)
        .and_then(|s| s.checked_add(quarter_turn.checked_mul(2)?))
        .ok_or(Error::Overflow)?;
    if sum % 8 != 0 {
        return Err(Error::Inconsistent(format!(
            "total {total} + R180 {half_turn} + 2 * R90 {quarter_turn} is not a multiple of 8"
        )));
    }
    Ok(sum / 8)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orbits_have_the_rotations_order() {
        let cells = |(cells, len): ([(usize, usize); 4], usize)| cells[..len].to_vec();
        assert_eq!(cells(orbit(5, (0, 1), 1)), vec![(0, 1), (1, 4), (4, 3), (3, 0)]);
        assert_eq!(cells(orbit(5, (0, 1), 2)), vec![(0, 1), (4, 3)]);
        assert_eq!(cells(orbit(5, (2, 2), 1)), vec![(2, 2)]);
    }

    #[test]
    fn small_boards_have_the_known_symmetric_solutions() {
        // N = 4: both solutions are unchanged by a quarter turn; N = 8 has one class with
        // half-turn symmetry (4 solutions) and none with quarter-turn symmetry.
        assert_eq!(count_rotation_fixed(4, 1), 2);
        assert_eq!(count_rotation_fixed(4, 2), 2);
        assert_eq!(count_rotation_fixed(8, 2), 4);
        assert_eq!(count_rotation_fixed(8, 1), 0);
        assert_eq!(count_rotation_fixed(2, 2), 0);
    }
}
