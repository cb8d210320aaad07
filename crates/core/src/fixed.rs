//! Solutions unchanged by a rotation: OEIS A032522 (a half turn) and A033148 (a quarter
//! turn), counted on their own and for Burnside's lemma.
//!
//! A solution unchanged by a half turn holds, with each queen `(r, c)`, the queen
//! `(N - 1 - r, N - 1 - c)`. The half-turn search places those pairs from the middle rows
//! outwards: the rows placed are then always one band around the middle, and the rows
//! above and below it are attacked along diagonals that move one column per row, as in
//! plain backtracking, so the whole board lives in five masks. The queens of the first
//! pairs are a task's key, so the count splits, checkpoints and shards like any other.
//!
//! A quarter turn also takes row `r` to column `r`, which breaks that band; its solutions
//! are far fewer (none unless N is 0 or 1 modulo 4) and its search, which places each
//! cell's orbit of four at once, costs milliseconds where the half turn's takes seconds,
//! so it stays one task.

use std::fmt;
use std::str::FromStr;

use crate::counts::Counts;
use crate::engine::{Engine, Task};
use crate::error::Error;
use crate::kernel::Kernel;
use crate::mask::{Mask, MaskWidth};

/// The rotation-fixed searches' unit of work: a queen placed (with its images).
pub(crate) const WORK_UNIT: &str = "node";

/// A rotation of the board that a solution may be unchanged by.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Turn {
    /// 180 degrees: OEIS A032522.
    #[cfg_attr(feature = "serde", serde(rename = "half-turn"))]
    Half,
    /// 90 degrees: OEIS A033148. Such solutions are unchanged by a half turn too.
    #[cfg_attr(feature = "serde", serde(rename = "quarter-turn"))]
    Quarter,
}

impl Turn {
    /// Both turns, in the order the help text lists them.
    pub const ALL: [Turn; 2] = [Turn::Half, Turn::Quarter];

    /// The name used on the command line, in JSON and in tasks.
    pub fn name(self) -> &'static str {
        match self {
            Turn::Half => "half-turn",
            Turn::Quarter => "quarter-turn",
        }
    }
}

impl fmt::Display for Turn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The error for a turn name that is not one of [`Turn::ALL`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownTurn(pub String);

impl fmt::Display for UnknownTurn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Turn::ALL.iter().map(|turn| turn.name()).collect();
        write!(f, "unknown turn '{}' (expected one of: {})", self.0, names.join(", "))
    }
}

impl std::error::Error for UnknownTurn {}

impl FromStr for Turn {
    type Err = UnknownTurn;

    fn from_str(s: &str) -> Result<Turn, UnknownTurn> {
        Turn::ALL.into_iter().find(|turn| turn.name() == s).ok_or_else(|| UnknownTurn(s.to_owned()))
    }
}

/// The engine that counts the solutions of an `n`-board unchanged by a turn.
#[derive(Clone, Debug)]
pub(crate) struct RotationFixed {
    n: usize,
    turn: Turn,
    width: MaskWidth,
}

impl RotationFixed {
    /// The engine for `turn` on an `n`-board. Its searches are scalar: a kernel other than
    /// [`Kernel::Auto`] or [`Kernel::Scalar`] is refused with [`Error::ScalarOnly`].
    pub(crate) fn new(n: usize, turn: Turn, kernel: Kernel) -> Result<RotationFixed, Error> {
        if !matches!(kernel, Kernel::Auto | Kernel::Scalar) {
            return Err(Error::ScalarOnly { search: turn.name(), kernel });
        }
        Ok(RotationFixed { n, turn, width: MaskWidth::for_board(n) })
    }

    /// The top queens' columns of every valid band `depth` pairs deep, in order.
    fn prefixes(&self, depth: usize) -> Vec<Vec<u8>> {
        let mut prefixes = Vec::new();
        match self.width {
            MaskWidth::U64 => {
                Band::<u64>::new(self.n).extend(depth, &mut Vec::new(), &mut prefixes)
            }
            MaskWidth::U128 => {
                Band::<u128>::new(self.n).extend(depth, &mut Vec::new(), &mut prefixes);
            }
        }
        prefixes
    }
}

impl Engine for RotationFixed {
    fn name(&self) -> &'static str {
        self.turn.name()
    }

    fn n(&self) -> usize {
        self.n
    }

    fn kernel(&self) -> Kernel {
        Kernel::Scalar
    }

    fn max_depth(&self) -> usize {
        match self.turn {
            Turn::Half => self.n / 2,
            Turn::Quarter => 0,
        }
    }

    fn tasks(&self, depth: usize) -> Vec<Task> {
        match self.turn {
            Turn::Half => {
                self.prefixes(depth).into_iter().map(|key| Task::new(self, key)).collect()
            }
            Turn::Quarter => vec![Task::new(self, Vec::new())],
        }
    }

    fn solve(&self, task: &Task, count_nodes: bool) -> Result<Counts, Error> {
        let key = task.key_for(self)?;
        let (total, nodes) = match self.turn {
            Turn::Half => match self.width {
                MaskWidth::U64 => Band::<u64>::new(self.n).count_below(key),
                MaskWidth::U128 => Band::<u128>::new(self.n).count_below(key),
            }
            .ok_or_else(|| task.foreign())?,
            Turn::Quarter if key.is_empty() => {
                let mut board = Occupancy::new(self.n);
                let mut nodes = 0;
                (count_quarter_turn(&mut board, 0, &mut nodes), nodes)
            }
            Turn::Quarter => return Err(task.foreign()),
        };
        let nodes = if count_nodes { u128::from(nodes) } else { 0 };
        Ok(Counts { total, thirds: 0, nodes })
    }

    fn sampled_tasks(&self, count_tasks: usize) -> usize {
        // Tasks share no work, so a finer sample costs nothing more.
        count_tasks.max(1 << 14)
    }
}

/// The queens of a half-turn solution placed so far: a band of rows around the middle.
/// The masks are the columns taken and, for the next row above the band and the next row
/// below it, the columns that the band's queens attack along each diagonal.
#[derive(Clone, Copy, Debug)]
struct Band<M> {
    n: u32,
    columns: M,
    up_left: M,
    up_right: M,
    down_left: M,
    down_right: M,
    /// The rows between the next row above the band and the next row below it.
    gap: u32,
    /// The pairs of rows, above and below the band, still to place.
    pairs_left: u32,
}

impl<M: Mask> Band<M> {
    /// The empty band of an even board, or an odd board's middle queen: a half turn maps
    /// the middle row onto itself, so its queen stands at the centre.
    fn new(n: usize) -> Band<M> {
        let n = n as u32;
        let empty = Band {
            n,
            columns: M::ZERO,
            up_left: M::ZERO,
            up_right: M::ZERO,
            down_left: M::ZERO,
            down_right: M::ZERO,
            gap: 1,
            pairs_left: n / 2,
        };
        if n.is_multiple_of(2) {
            return empty;
        }
        let centre = M::bit(n / 2);
        let full = M::low_bits(n);
        Band {
            columns: centre,
            up_left: centre >> 1,
            up_right: (centre << 1) & full,
            down_left: centre >> 1,
            down_right: (centre << 1) & full,
            gap: 2,
            ..empty
        }
    }

    /// The columns the next row above the band may take.
    fn free_above(&self) -> M {
        M::low_bits(self.n) & !(self.columns | self.up_left | self.up_right)
    }

    /// The band with a queen at `top` in the next row above it and its image under the
    /// half turn in the next row below, or `None` if that image is attacked.
    #[inline(always)]
    fn with_pair(&self, top: M) -> Option<Band<M>> {
        let column = top.lowest_index();
        let bottom = M::bit(self.n - 1 - column);
        let below = self.columns | top | self.down_left | self.down_right;
        // The two queens are `gap` rows apart and on one diagonal if their columns are too.
        if !(bottom & below).is_empty() || (self.n - 1).abs_diff(2 * column) == self.gap {
            return None;
        }
        let full = M::low_bits(self.n);
        let far = self.gap + 1;
        let shifted_up = |mask: M| if far < M::BITS { (mask << far) & full } else { M::ZERO };
        let shifted_down = |mask: M| if far < M::BITS { mask >> far } else { M::ZERO };
        Some(Band {
            n: self.n,
            columns: self.columns | top | bottom,
            up_left: ((self.up_left | top) >> 1) | shifted_down(bottom),
            up_right: (((self.up_right | top) << 1) & full) | shifted_up(bottom),
            down_left: ((self.down_left | bottom) >> 1) | shifted_down(top),
            down_right: (((self.down_right | bottom) << 1) & full) | shifted_up(top),
            gap: self.gap + 2,
            pairs_left: self.pairs_left - 1,
        })
    }

    /// Every valid choice of the top queens' columns for `depth` more pairs (or as many as
    /// are left), appended to `prefix`, into `out`.
    fn extend(&self, depth: usize, prefix: &mut Vec<u8>, out: &mut Vec<Vec<u8>>) {
        if depth == 0 || self.pairs_left == 0 {
            out.push(prefix.clone());
            return;
        }
        let mut free = self.free_above();
        while !free.is_empty() {
            let top = free.lowest();
            free = free ^ top;
            if let Some(next) = self.with_pair(top) {
                prefix.push(top.lowest_index() as u8);
                next.extend(depth - 1, prefix, out);
                prefix.pop();
            }
        }
    }

    /// The solutions and placements below the pairs `key` names, or `None` if the key is
    /// not a valid band of this board.
    fn count_below(self, key: &[u8]) -> Option<(u128, u64)> {
        let mut band = self;
        for &column in key {
            let top = M::bit(u32::from(column));
            if u32::from(column) >= self.n || (band.free_above() & top).is_empty() {
                return None;
            }
            band = band.with_pair(top)?;
        }
        let mut nodes = 0;
        Some((u128::from(band.count(&mut nodes)), nodes))
    }

    fn count(&self, nodes: &mut u64) -> u64 {
        if self.pairs_left == 0 {
            return 1;
        }
        let mut found = 0;
        let mut free = self.free_above();
        while !free.is_empty() {
            let top = free.lowest();
            free = free ^ top;
            if let Some(next) = self.with_pair(top) {
                *nodes += 1;
                found += next.count(nodes);
            }
        }
        found
    }
}

/// A board of occupied rows, columns and diagonals, for the quarter turn's search.
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

/// The cells that quarter turns cycle `start` through, `start` first, and how many there
/// are (1 or 4). A fixed array: the search asks at every node.
fn quarter_turn_orbit(n: usize, start: (usize, usize)) -> ([(usize, usize); 4], usize) {
    let turn = |(row, column): (usize, usize)| (column, n - 1 - row);
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

/// The quarter-turn solutions below `board`: the first empty row at or after `first_row`
/// takes each column in turn, with that cell's whole orbit.
fn count_quarter_turn(board: &mut Occupancy, first_row: usize, nodes: &mut u64) -> u128 {
    let Some(row) = (first_row..board.n).find(|&r| !board.rows[r]) else {
        return 1;
    };
    let mut found = 0;
    for column in 0..board.n {
        let (cells, len) = quarter_turn_orbit(board.n, (row, column));
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
            *nodes += 1;
            found += count_quarter_turn(board, row + 1, nodes);
        }
        for &cell in &cells[..placed] {
            board.set(cell, false);
        }
    }
    found
}

/// The number of solutions of an `n`-board unchanged by `turn`, on one thread.
pub fn count_rotation_fixed(n: usize, turn: Turn) -> Result<u128, Error> {
    let engine = RotationFixed::new(n, turn, Kernel::Auto)?;
    let mut counts = Counts::default();
    for task in engine.tasks(0) {
        counts = counts.merge(&engine.solve(&task, false)?)?;
    }
    Ok(counts.total)
}

/// The number of classes of solutions under the board's 8 symmetries, from the total by
/// Burnside's lemma: the average number of solutions each symmetry leaves unchanged.
/// For N >= 2 no reflection fixes a solution, which leaves
/// `unique = (total + R180 + 2 * R90) / 8`; the single queen of N = 1 is fixed by all eight.
pub fn unique_by_burnside(n: usize, total: u128) -> Result<u128, Error> {
    if n <= 1 {
        return Ok(total);
    }
    let half_turn = count_rotation_fixed(n, Turn::Half)?;
    let quarter_turn = count_rotation_fixed(n, Turn::Quarter)?;
    unique_from_fixed(total, half_turn, quarter_turn)
}

/// Burnside's lemma for N >= 2, given the solutions a half turn and a quarter turn leave
/// unchanged, however they were counted.
pub(crate) fn unique_from_fixed(
    total: u128,
    half_turn: u128,
    quarter_turn: u128,
) -> Result<u128, Error> {
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
    use nqueens_test_support::{all_solutions, known_rotation_fixed, rotation_fixed_among};

    use super::*;

    #[test]
    fn orbits_have_the_rotations_order() {
        let cells = |(cells, len): ([(usize, usize); 4], usize)| cells[..len].to_vec();
        assert_eq!(cells(quarter_turn_orbit(5, (0, 1))), vec![(0, 1), (1, 4), (4, 3), (3, 0)]);
        assert_eq!(cells(quarter_turn_orbit(5, (2, 2))), vec![(2, 2)]);
    }

    #[test]
    fn both_turns_match_a_brute_force_over_every_solution() {
        for n in 1..=10 {
            let expected = rotation_fixed_among(&all_solutions(n));
            let counted = (
                count_rotation_fixed(n, Turn::Half).unwrap(),
                count_rotation_fixed(n, Turn::Quarter).unwrap(),
            );
            assert_eq!(counted, expected, "N = {n}");
        }
    }

    #[test]
    fn both_turns_match_the_known_counts() {
        for n in 1..=20 {
            let counted = (
                count_rotation_fixed(n, Turn::Half).unwrap(),
                count_rotation_fixed(n, Turn::Quarter).unwrap(),
            );
            assert_eq!(counted, known_rotation_fixed(n), "N = {n}");
        }
    }

    #[test]
    fn every_split_of_the_half_turn_adds_up_to_the_whole() {
        for n in [9, 12, 13, 16] {
            let engine = RotationFixed::new(n, Turn::Half, Kernel::Auto).unwrap();
            let whole = count_rotation_fixed(n, Turn::Half).unwrap();
            for depth in 0..=engine.max_depth() {
                let tasks = engine.tasks(depth);
                let mut sum = 0;
                for task in &tasks {
                    sum += engine.solve(task, false).unwrap().total;
                }
                assert_eq!(sum, whole, "N = {n}, depth {depth}, {} tasks", tasks.len());
            }
        }
    }

    #[test]
    fn keys_that_are_not_bands_are_refused() {
        let engine = RotationFixed::new(8, Turn::Half, Kernel::Auto).unwrap();
        let task = |key: Vec<u8>| Task::new(&engine, key);
        // Column 9 is off the board; columns 3 then 3 share a column.
        for key in [vec![9], vec![3, 3]] {
            assert!(matches!(engine.solve(&task(key), false), Err(Error::ForeignTask { .. })));
        }
        let quarter = RotationFixed::new(8, Turn::Quarter, Kernel::Auto).unwrap();
        assert!(engine.solve(&Task::new(&quarter, Vec::new()), false).is_err());
        assert!(quarter.solve(&Task::new(&quarter, vec![1]), false).is_err());
    }

    #[test]
    fn only_the_scalar_kernel_is_taken() {
        assert!(RotationFixed::new(12, Turn::Half, Kernel::Avx2).is_err());
        assert!(RotationFixed::new(12, Turn::Half, Kernel::Scalar).is_ok());
    }

    #[test]
    fn turns_read_their_names() {
        for turn in Turn::ALL {
            assert_eq!(turn.name().parse::<Turn>(), Ok(turn));
        }
        assert!("full-turn".parse::<Turn>().is_err());
    }
}
