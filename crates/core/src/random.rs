//! A random solution, by min-conflicts local search.
//!
//! The queens always form a permutation, one per row and column, so only diagonals can
//! clash and a move is a swap of two rows' columns (Sosic and Gu's QS4, 1991). Each row is
//! first placed greedily: among a few random columns still unused, the one whose diagonals
//! hold the fewest queens so far. That leaves a handful of clashes even for a million rows.
//! Then a random attacked queen swaps columns with a random other one whenever that lowers
//! the number of clashes, counted from per-diagonal queen counts in O(1) per swap, until
//! none is left. A search stuck in a local minimum (small boards only, in practice) starts
//! over from a new greedy placement, drawn from the same random stream, so a seed always
//! gives the same solution.

use nqueens_random::SplitMix64;

use crate::error::Error;
use crate::solution::Solution;

/// The largest board [`random_solution`] searches: a few seconds a million rows.
pub const MAX_RANDOM_N: usize = 10_000_000;

/// Random columns the greedy placement looks at per row, at most.
const GREEDY_TRIES: usize = 32;

/// Swaps tried per row (plus a floor for small boards) before a search counts as stuck;
/// a search that succeeds needs a small fraction of this.
const SWAPS_PER_ROW: usize = 20;
const MIN_SWAPS: usize = 10_000;

/// A random solution of the `n`-board, the same for the same `seed`; [`Error::NoSolution`]
/// for N = 2 and N = 3 (and N = 0), [`Error::TooLarge`] above [`MAX_RANDOM_N`].
pub fn random_solution(n: usize, seed: u64) -> Result<Solution, Error> {
    if matches!(n, 0 | 2 | 3) {
        return Err(Error::NoSolution { n });
    }
    if n > MAX_RANDOM_N {
        return Err(Error::TooLarge { n, max: MAX_RANDOM_N });
    }
    let mut random = SplitMix64::new(seed);
    loop {
        let mut board = Board::greedy(n, &mut random);
        if board.repair(&mut random) {
            let columns = board.columns.into_iter().map(|c| c as usize).collect();
            return Solution::new(columns).map_err(|conflict| {
                Error::Inconsistent(format!("the random search for N = {n} failed: {conflict}"))
            });
        }
    }
}

/// A permutation of columns with the number of queens on every diagonal.
struct Board {
    /// The column of each row's queen; `u32` halves the memory of a large board.
    columns: Vec<u32>,
    /// Queens on each falling diagonal, indexed `row + n - 1 - column`.
    falling: Vec<u32>,
    /// Queens on each rising diagonal, indexed `row + column`.
    rising: Vec<u32>,
    /// The sum over diagonals of the queens beyond the first on each: zero for a solution.
    clashes: usize,
}

impl Board {
    fn greedy(n: usize, random: &mut SplitMix64) -> Board {
        let mut board = Board {
            columns: (0..n as u32).collect(),
            falling: vec![0; 2 * n - 1],
            rising: vec![0; 2 * n - 1],
            clashes: 0,
        };
        for row in 0..n {
            let mut best = (u32::MAX, row);
            for _ in 0..GREEDY_TRIES {
                let candidate = row + random.below(n - row);
                let queens = board.on_diagonals(row, board.columns[candidate]);
                best = best.min((queens, candidate));
                if queens == 0 {
                    break;
                }
            }
            board.columns.swap(row, best.1);
            board.add(row, board.columns[row]);
        }
        board
    }

    fn n(&self) -> usize {
        self.columns.len()
    }

    fn falling_index(&self, row: usize, column: u32) -> usize {
        row + self.n() - 1 - column as usize
    }

    /// The queens on the two diagonals through a square.
    fn on_diagonals(&self, row: usize, column: u32) -> u32 {
        self.falling[self.falling_index(row, column)] + self.rising[row + column as usize]
    }

    fn is_attacked(&self, row: usize) -> bool {
        let column = self.columns[row];
        self.falling[self.falling_index(row, column)] > 1 || self.rising[row + column as usize] > 1
    }

    fn add(&mut self, row: usize, column: u32) {
        let falling = self.falling_index(row, column);
        for count in [&mut self.falling[falling], &mut self.rising[row + column as usize]] {
            self.clashes += usize::from(*count > 0);
            *count += 1;
        }
    }

    fn remove(&mut self, row: usize, column: u32) {
        let falling = self.falling_index(row, column);
        for count in [&mut self.falling[falling], &mut self.rising[row + column as usize]] {
            *count -= 1;
            self.clashes -= usize::from(*count > 0);
        }
    }

    /// Swaps the columns of rows `a` and `b` if that lowers the clashes.
    fn swap_if_better(&mut self, a: usize, b: usize) -> bool {
        let before = self.clashes;
        let (column_a, column_b) = (self.columns[a], self.columns[b]);
        self.remove(a, column_a);
        self.remove(b, column_b);
        self.add(a, column_b);
        self.add(b, column_a);
        if self.clashes < before {
            self.columns.swap(a, b);
            return true;
        }
        self.remove(a, column_b);
        self.remove(b, column_a);
        self.add(a, column_a);
        self.add(b, column_b);
        false
    }

    fn attacked_rows(&self) -> Vec<usize> {
        (0..self.n()).filter(|&row| self.is_attacked(row)).collect()
    }

    /// Swaps until no queen is attacked (true), or gives up (false).
    fn repair(&mut self, random: &mut SplitMix64) -> bool {
        let n = self.n();
        let mut attacked = self.attacked_rows();
        let mut swaps_left = SWAPS_PER_ROW * n + MIN_SWAPS;
        while self.clashes > 0 {
            if swaps_left == 0 {
                return false;
            }
            if attacked.is_empty() {
                // A swap can put a queen beside one that was never attacked before; the
                // list misses such queens until it is rebuilt, which is rare and O(N).
                attacked = self.attacked_rows();
            }
            let pick = random.below(attacked.len());
            let row = attacked[pick];
            if !self.is_attacked(row) {
                attacked.swap_remove(pick);
                continue;
            }
            swaps_left -= 1;
            let other = random.below(n);
            if other != row && self.swap_if_better(row, other) && self.is_attacked(other) {
                attacked.push(other);
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_seed_gives_the_same_solution_and_others_differ() {
        let first = random_solution(200, 7).unwrap();
        assert_eq!(random_solution(200, 7).unwrap(), first);
        assert_ne!(random_solution(200, 8).unwrap(), first);
    }

    #[test]
    fn every_small_board_is_solved() {
        for n in (1..=64).filter(|n| !matches!(n, 2 | 3)) {
            for seed in 0..5 {
                assert_eq!(random_solution(n, seed).unwrap().n(), n);
            }
        }
        for n in [0, 2, 3] {
            assert_eq!(random_solution(n, 1), Err(Error::NoSolution { n }));
        }
    }
}
