//! Test-only helpers shared by the workspace's tests: the known counts (OEIS A000170,
//! A002562, A032522 and A033148, from `testdata/known-counts.json`), brute-force oracles, what this
//! processor's kernels should do, and a seeded random generator for reproducible data.
//!
//! The oracles are deliberately naive, and this crate does not depend on `nqueens-core`:
//! a checker that shared code with the engines could share their bugs too.

#![deny(missing_docs)]

use std::collections::BTreeSet;
use std::io::Write;
use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;

use proptest::prelude::*;

/// Runs `command` with `input` on its stdin, and collects what it printed.
pub fn output_with_input(command: &mut Command, input: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command runs");
    child.stdin.take().expect("stdin is piped").write_all(input).expect("stdin takes the input");
    child.wait_with_output().expect("the command ends")
}

/// One board's line of `testdata/known-counts.json`.
#[derive(Clone, Copy)]
struct Known {
    n: usize,
    total: u128,
    unique: u128,
    half_turn: u128,
    quarter_turn: u128,
}

/// Every board in `testdata/known-counts.json`, read once.
static KNOWN: LazyLock<Vec<Known>> = LazyLock::new(|| {
    let text = include_str!("../../../testdata/known-counts.json");
    let json: serde_json::Value = serde_json::from_str(text).expect("known counts are JSON");
    let number = |entry: &serde_json::Value, name: &str| {
        let value =
            entry[name].as_u64().unwrap_or_else(|| panic!("{name} is not an integer in {entry}"));
        u128::from(value)
    };
    json["counts"]
        .as_array()
        .expect("a list of counts")
        .iter()
        .map(|entry| Known {
            n: usize::try_from(number(entry, "n")).expect("a board size"),
            total: number(entry, "total"),
            unique: number(entry, "unique"),
            half_turn: number(entry, "half_turn"),
            quarter_turn: number(entry, "quarter_turn"),
        })
        .collect()
});

fn listed(n: usize) -> Option<Known> {
    KNOWN.iter().find(|known| known.n == n).copied()
}

/// `(total, unique)` for an `n`-board, or `None` if `testdata/known-counts.json` does not
/// list it.
pub fn listed_counts(n: usize) -> Option<(u128, u128)> {
    listed(n).map(|known| (known.total, known.unique))
}

/// `(total, unique)` for an `n`-board; panics if `testdata/known-counts.json` does not list
/// it, since a test asking for it is wrong.
pub fn known_counts(n: usize) -> (u128, u128) {
    listed_counts(n).unwrap_or_else(|| panic!("no known count for N = {n}"))
}

/// The solutions of an `n`-board that a half turn (OEIS A032522) and a quarter turn (OEIS
/// A033148) leave unchanged; panics if `testdata/known-counts.json` does not list it.
pub fn known_rotation_fixed(n: usize) -> (u128, u128) {
    let known = listed(n).unwrap_or_else(|| panic!("no known count for N = {n}"));
    (known.half_turn, known.quarter_turn)
}

/// How many of `solutions` (one column per row) a half turn and a quarter turn leave
/// unchanged, one by one: the brute force the rotation-fixed searches are checked against.
pub fn rotation_fixed_among(solutions: &[Vec<usize>]) -> (u128, u128) {
    let turned = |columns: &[usize]| {
        // A quarter turn takes the queen at (row, column) to (column, n - 1 - row).
        let n = columns.len();
        let mut image = vec![0; n];
        for (row, &column) in columns.iter().enumerate() {
            image[column] = n - 1 - row;
        }
        image
    };
    let (mut half, mut quarter) = (0, 0);
    for columns in solutions {
        let once = turned(columns);
        let twice = turned(&once);
        if twice == *columns {
            half += 1;
            if once == *columns {
                quarter += 1;
            }
        }
    }
    (half, quarter)
}

/// Whether one column per row is a solution: at least one queen, every queen on the board,
/// no two sharing a column or a diagonal.
pub fn is_solution(columns: &[usize]) -> bool {
    let n = columns.len();
    let mut seen_columns = vec![false; n];
    let mut seen_sums = vec![false; 2 * n];
    let mut seen_differences = vec![false; 2 * n];
    n > 0
        && columns.iter().enumerate().all(|(row, &column)| {
            column < n
                && !std::mem::replace(&mut seen_columns[column], true)
                && !std::mem::replace(&mut seen_sums[row + column], true)
                && !std::mem::replace(&mut seen_differences[n + row - column], true)
        })
}

/// Every solution of an `n`-board, as one column per row, in lexicographic order: a plain
/// recursive search that compares each new queen with every queen above it.
pub fn all_solutions(n: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    search(n, &|_, _| true, &mut Vec::new(), &mut |columns| out.push(columns.to_vec()));
    out
}

/// How many row sets the join lets `west` (the rows whose queen stands in the west half of
/// an `n`-board, as bits) stand for, on an odd board with the middle column's queen in row
/// `middle_queen`: the size of its orbit under the reflections that keep the split
/// (north-south mirrors the rows, and the middle queen's row with them; east-west takes
/// the complement among the rows but the middle queen's), if `west` is the least member
/// of the orbit whose middle queen stands at most in the middle row and that holds the
/// first of its rows; else 0, as another member stands for it. Worked out from the orbit
/// itself, not from the join's rule.
pub fn row_set_weight(n: usize, middle_queen: Option<usize>, west: u32) -> u128 {
    let mirror = |set: u32| (0..n).filter(|&r| set >> r & 1 == 1).map(|r| 1 << (n - 1 - r)).sum();
    let rows_of = |queen: Option<usize>| ((1u32 << n) - 1) & !queen.map_or(0, |row| 1 << row);
    let image = middle_queen.map(|row| n - 1 - row);
    let mut orbit = vec![
        (middle_queen, west),
        (middle_queen, rows_of(middle_queen) & !west),
        (image, mirror(west)),
        (image, rows_of(image) & !mirror(west)),
    ];
    orbit.sort_unstable();
    orbit.dedup();
    let counted = orbit
        .iter()
        .filter(|&&(queen, set)| {
            let rows = rows_of(queen);
            let first_row_west = rows == 0 || set & rows & rows.wrapping_neg() != 0;
            queen.is_none_or(|row| row <= n / 2) && first_row_west
        })
        .min();
    if counted == Some(&(middle_queen, west)) { orbit.len() as u128 } else { 0 }
}

/// How many solutions of an `allowed.len()`-board put the queen of each row `r` on a column
/// whose bit is set in `allowed[r]`, by the same plain search as [`all_solutions`], each
/// solution counted `weigh(columns)` times.
///
/// Panics for boards over 64 rows, whose columns a `u64` cannot name.
pub fn weigh_solutions_within(allowed: &[u64], weigh: impl Fn(&[usize]) -> u128) -> u128 {
    let n = allowed.len();
    assert!(n <= 64, "a u64 holds the columns of boards up to N = 64, not {n}");
    let mut found = 0;
    search(n, &|row, column| allowed[row] >> column & 1 == 1, &mut Vec::new(), &mut |columns| {
        found += weigh(columns);
    });
    found
}

/// How often the join counts a solution (`columns[row]` its queens) whose row set stands
/// for its orbit under the reflections, so that it also stands for the transposes: 2, 1 or
/// 0 times as the columns of its north queens (above the middle row) rank above, with or
/// below the rows of its west queens. A set of lines is ranked by the ranks of its lines
/// below the middle and of its lines above mirrored onto them, the lesser compared first;
/// on an odd board the rows leave out the middle column's queen's and the columns the
/// middle row's queen's, besides the middle line. A set of one half is ranked by how far
/// its lines lie off the half's middle against the rest of the half (less a line the set
/// leaves out), then by that line, then by the lesser of it and its complement as a
/// number. Worked out from the sets themselves, not from the join's tables.
pub fn transposed_weight(columns: &[usize]) -> u128 {
    let n = columns.len();
    let half = n / 2;
    let offset = |line: usize| 2 * line as i64 - (half as i64 - 1);
    let rank_in_half = |lines: &[usize], left_out: Option<usize>| {
        let rest: Vec<usize> = (0..half).filter(|&line| Some(line) != left_out).collect();
        let imbalance = 2 * lines.iter().map(|&line| offset(line)).sum::<i64>()
            - rest.iter().map(|&line| offset(line)).sum::<i64>();
        let as_number: usize = lines.iter().map(|&line| 1 << line).sum();
        let complement = rest.iter().map(|&line| 1 << line).sum::<usize>() & !as_number;
        let left_out = left_out.map_or(0, |line| line + 1);
        (imbalance.unsigned_abs(), left_out, as_number.min(complement))
    };
    let rank = |lines: &[usize], left_out: Option<usize>| {
        let near: Vec<usize> = lines.iter().copied().filter(|&line| line < half).collect();
        let far: Vec<usize> =
            lines.iter().filter(|&&line| line >= n - half).map(|&line| n - 1 - line).collect();
        let near_left_out = left_out.filter(|&line| line < half);
        let far_left_out = left_out.filter(|&line| line >= n - half).map(|line| n - 1 - line);
        let (near, far) = (rank_in_half(&near, near_left_out), rank_in_half(&far, far_left_out));
        (near.min(far), near.max(far))
    };
    let west_rows: Vec<usize> = (0..n).filter(|&row| columns[row] < half).collect();
    let north_columns: Vec<usize> = columns[..half].to_vec();
    let (row_left_out, column_left_out) = if n % 2 == 1 {
        (columns.iter().position(|&column| column == half), Some(columns[half]))
    } else {
        (None, None)
    };
    match rank(&north_columns, column_left_out).cmp(&rank(&west_rows, row_left_out)) {
        std::cmp::Ordering::Greater => 2,
        std::cmp::Ordering::Equal => 1,
        std::cmp::Ordering::Less => 0,
    }
}

/// Extends `columns` (the queens of the rows above) by a queen in each following row on a
/// square `allowed` takes and no queen above attacks, calling `found` with each full board.
fn search(
    n: usize,
    allowed: &impl Fn(usize, usize) -> bool,
    columns: &mut Vec<usize>,
    found: &mut impl FnMut(&[usize]),
) {
    let row = columns.len();
    if row == n {
        found(columns);
        return;
    }
    for column in (0..n).filter(|&column| allowed(row, column)) {
        let attacked = columns
            .iter()
            .enumerate()
            .any(|(r, &c)| c == column || r.abs_diff(row) == c.abs_diff(column));
        if !attacked {
            columns.push(column);
            search(n, allowed, columns, found);
            columns.pop();
        }
    }
}

/// Every solution of an `n`-board, in no particular order, found by trying all `n!`
/// permutations of the columns with [`is_solution`]: no pruning at all, so it shares not
/// even the search order with the engines or with [`all_solutions`].
pub fn permutation_solutions(n: usize) -> Vec<Vec<usize>> {
    fn permute(columns: &mut [usize], from: usize, out: &mut Vec<Vec<usize>>) {
        if from == columns.len() {
            if is_solution(columns) {
                out.push(columns.to_vec());
            }
            return;
        }
        for i in from..columns.len() {
            columns.swap(from, i);
            permute(columns, from + 1, out);
            columns.swap(from, i);
        }
    }
    let mut out = Vec::new();
    permute(&mut (0..n).collect::<Vec<_>>(), 0, &mut out);
    out
}

/// Where a symmetry of an `n`-board moves the square `(row, column)`.
type Move = fn(usize, usize, usize) -> (usize, usize);

/// The distinct images of a placement (one column per row) under the board's 8 symmetries,
/// each made by moving every queen; the first is the least, the class's representative.
pub fn images(columns: &[usize]) -> BTreeSet<Vec<usize>> {
    let n = columns.len();
    let moves: [Move; 8] = [
        |_, r, c| (r, c),
        |n, r, c| (c, n - 1 - r),
        |n, r, c| (n - 1 - r, n - 1 - c),
        |n, r, c| (n - 1 - c, r),
        |n, r, c| (r, n - 1 - c),
        |n, r, c| (n - 1 - r, c),
        |_, r, c| (c, r),
        |n, r, c| (n - 1 - c, n - 1 - r),
    ];
    moves
        .iter()
        .map(|turn| {
            let mut image = vec![0; n];
            for (r, &c) in columns.iter().enumerate() {
                let (row, column) = turn(n, r, c);
                image[row] = column;
            }
            image
        })
        .collect()
}

/// The completions of a partial board, one optional column per row, whose `open` rows are
/// empty: every column of each open row is tried against every queen already standing.
/// The board is left as it was given.
pub fn completions(board: &mut [Option<usize>], open: &[usize]) -> u128 {
    let Some((&row, rest)) = open.split_first() else {
        return 1;
    };
    let mut found = 0;
    for column in 0..board.len() {
        let free = board
            .iter()
            .enumerate()
            .all(|(r, c)| c.is_none_or(|c| c != column && r.abs_diff(row) != c.abs_diff(column)));
        if free {
            board[row] = Some(column);
            found += completions(board, rest);
            board[row] = None;
        }
    }
    found
}

/// Marsaglia's xorshift64 generator (shifts 13, 7, 17): random enough for test data, and
/// the same sequence for the same seed on every machine and toolchain, so that a failing
/// case can be run again.
///
/// ```
/// use nqueens_test_support::XorShift;
///
/// let mut random = XorShift::new(7);
/// let row = random.below(8);
/// assert!(row < 8);
/// assert_eq!(XorShift::new(7).below(8), row, "the same seed, the same sequence");
/// ```
#[derive(Clone, Debug)]
pub struct XorShift {
    state: u64,
}

impl XorShift {
    /// A generator seeded with `seed`. The lowest bit is set, since xorshift never leaves
    /// the all-zero state: an odd seed is used as it is, and seeds 2k and 2k + 1 give the
    /// same sequence.
    pub fn new(seed: u64) -> XorShift {
        XorShift { state: seed | 1 }
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state ^= self.state << 13;
        self.state ^= self.state >> 7;
        self.state ^= self.state << 17;
        self.state
    }

    /// A number below `bound`, from [`next_u64`](XorShift::next_u64) modulo `bound`: the
    /// slight bias towards small numbers does not matter to a test. Panics if `bound` is 0.
    pub fn below(&mut self, bound: usize) -> usize {
        (self.next_u64() % bound as u64) as usize
    }
}

/// A way to damage a file, for the tests of what reads outside input. Places are taken
/// modulo the file's length (or its count of numbers), so that any `usize` names one and a
/// property test can draw them freely.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Damage {
    /// Cut the file short before byte `at`.
    Truncate {
        /// Where the cut falls.
        at: usize,
    },
    /// Flip the `bits` of the byte at `at`.
    Flip {
        /// Which byte.
        at: usize,
        /// The bits flipped: any but 0 change the byte.
        bits: u8,
    },
    /// Drop up to `len` bytes from `at` on.
    Remove {
        /// The first byte dropped.
        at: usize,
        /// How many, fewer if the file ends first.
        len: usize,
    },
    /// Insert `bytes` before byte `at` (or at the end).
    Insert {
        /// Where they go.
        at: usize,
        /// What goes there.
        bytes: Vec<u8>,
    },
    /// Write `value` in place of a number: a run of digits, minus signs and points.
    Number {
        /// Which number, counted from the start.
        which: usize,
        /// What replaces it.
        value: String,
    },
}

impl Damage {
    /// Damage of every kind, anywhere, with numbers replaced by one of `numbers`.
    pub fn any(numbers: Vec<&'static str>) -> impl Strategy<Value = Damage> {
        let number = prop::sample::select(numbers);
        // Inserted bytes are ASCII, so that they reach the JSON parser; flipped ones leave it
        // about half the time, which tests the refusal of text that is not UTF-8. A number
        // replaced keeps the file JSON, the surest way past the parser to what checks the
        // values, so it is drawn the most.
        prop_oneof![
            1 => any::<usize>().prop_map(|at| Damage::Truncate { at }),
            1 => (any::<usize>(), 1..=u8::MAX).prop_map(|(at, bits)| Damage::Flip { at, bits }),
            1 => (any::<usize>(), 1..16usize).prop_map(|(at, len)| Damage::Remove { at, len }),
            1 => (any::<usize>(), prop::collection::vec(0..0x80u8, 1..8))
                .prop_map(|(at, bytes)| Damage::Insert { at, bytes }),
            3 => (any::<usize>(), number)
                .prop_map(|(which, value)| Damage::Number { which, value: value.to_owned() }),
        ]
    }

    /// `file`, damaged; unchanged where there is nothing to damage (no bytes, no numbers).
    pub fn apply(&self, file: &[u8]) -> Vec<u8> {
        let mut bytes = file.to_vec();
        let len = bytes.len();
        match self {
            Damage::Truncate { at } => bytes.truncate(at % (len + 1)),
            Damage::Flip { at, bits } if len > 0 => bytes[at % len] ^= bits,
            Damage::Flip { .. } => {}
            Damage::Remove { at, len: dropped } => {
                let start = at % (len + 1);
                bytes.drain(start..start.saturating_add(*dropped).min(len));
            }
            Damage::Insert { at, bytes: inserted } => {
                let at = at % (len + 1);
                bytes.splice(at..at, inserted.iter().copied());
            }
            Damage::Number { which, value } => {
                let numbers = numbers(&bytes);
                if !numbers.is_empty() {
                    let range = numbers[which % numbers.len()].clone();
                    bytes.splice(range, value.bytes());
                }
            }
        }
        bytes
    }
}

/// Where the runs of digits, minus signs and points of `bytes` stand: its numbers, and the
/// digits inside its strings.
fn numbers(bytes: &[u8]) -> Vec<std::ops::Range<usize>> {
    let mut numbers = Vec::new();
    let mut start = None;
    for (i, &b) in bytes.iter().chain(b" ").enumerate() {
        match (start, b.is_ascii_digit() || b == b'-' || b == b'.') {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                numbers.push(s..i);
                start = None;
            }
            _ => {}
        }
    }
    numbers
}

/// Whether this processor has what the engines' kernel named `kernel` (`auto`, `avx512`,
/// `avx2` or `scalar`, as the command line names them) needs, asked of the processor
/// itself rather than of the engines: so that a kernel refused where it should run fails
/// a test instead of being skipped. AVX2 comes with BMI1, BMI2, POPCNT and LZCNT, which the
/// engines use beside it; AVX-512 adds AVX-512F to all of those.
pub fn processor_runs(kernel: &str) -> bool {
    match kernel {
        "auto" | "scalar" => true,
        "avx2" => has_avx2(),
        "avx512" => has_avx2() && has_avx512(),
        other => panic!("no kernel is named {other}"),
    }
}

/// Whether this processor runs the join's pair test on `kernel`: as [`processor_runs`], but
/// AVX-512 there also needs the byte, vector-length and vector popcount extensions.
pub fn pair_test_runs(kernel: &str) -> bool {
    match kernel {
        "avx512" => processor_runs(kernel) && has_avx512_popcount(),
        other => processor_runs(other),
    }
}

#[cfg(target_arch = "x86_64")]
fn has_avx512_popcount() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx512bw") && has!("avx512vl") && has!("avx512vpopcntdq")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512_popcount() -> bool {
    false
}

#[cfg(target_arch = "x86_64")]
fn has_avx2() -> bool {
    use std::arch::is_x86_feature_detected as has;
    has!("avx2") && has!("bmi1") && has!("bmi2") && has!("popcnt") && has!("lzcnt")
}

#[cfg(target_arch = "x86_64")]
fn has_avx512() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx2() -> bool {
    false
}

#[cfg(not(target_arch = "x86_64"))]
fn has_avx512() -> bool {
    false
}

/// Says on stderr that the checks of `kernel` were skipped, after its refusal was checked:
/// a test that passes without running a kernel says so.
pub fn say_refused(kernel: &str) {
    eprintln!(
        "skipped: this processor has no {kernel}; the {kernel} kernel is refused as it should be"
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The join's weighing: a solution whose row set stands for its orbit under the
    /// reflections, weighed by the orbit, counts twice, once or not at all as
    /// [`transposed_weight`] says. Checked against every solution, with the share of
    /// solutions it leaves out and of ties, which it cannot.
    #[test]
    fn the_transposed_weight_counts_every_orbit_at_its_size() {
        for n in 1..=13 {
            let (mut total, mut counted, mut left_out, mut ties) = (0u128, 0, 0, 0);
            for columns in all_solutions(n) {
                let west: u32 =
                    (0..n).filter(|&row| columns[row] < n / 2).map(|row| 1 << row).sum();
                let middle_queen =
                    (n % 2 == 1).then(|| columns.iter().position(|&c| c == n / 2).unwrap());
                let weight = row_set_weight(n, middle_queen, west);
                if weight == 0 {
                    continue;
                }
                counted += 1;
                let transposed = transposed_weight(&columns);
                left_out += usize::from(transposed == 0);
                ties += usize::from(transposed == 1);
                total += weight * transposed;
            }
            assert_eq!(total, known_counts(n).0, "N = {n}");
            if n >= 12 {
                assert!(
                    left_out * 100 >= counted * 40,
                    "N = {n}: {left_out} of {counted} left out"
                );
                assert!(ties * 100 <= counted * 20, "N = {n}: {ties} of {counted} tied");
            }
        }
    }

    #[test]
    fn both_brute_forces_find_the_known_counts() {
        for n in 1..=9 {
            let all = all_solutions(n);
            let (total, unique) = known_counts(n);
            assert_eq!(all.len() as u128, total, "N = {n}");
            assert!(all.iter().all(|s| is_solution(s)), "N = {n}");
            assert!(all.windows(2).all(|pair| pair[0] < pair[1]), "N = {n}: out of order");
            let mut permuted = permutation_solutions(n);
            permuted.sort();
            assert_eq!(permuted, all, "N = {n}");
            let classes: BTreeSet<_> = all.iter().map(|s| images(s)).collect();
            assert_eq!(classes.len() as u128, unique, "N = {n}");
        }
    }

    #[test]
    fn the_solution_check_refuses_every_kind_of_attack() {
        assert!(is_solution(&[1, 3, 0, 2]));
        assert!(is_solution(&[0]));
        assert!(!is_solution(&[]), "no board");
        assert!(!is_solution(&[0, 0]), "a shared column");
        assert!(!is_solution(&[1, 3, 2, 0]), "a shared diagonal");
        assert!(!is_solution(&[1, 3, 0, 4]), "off the board");
    }

    #[test]
    fn allowed_columns_filter_the_solutions() {
        let every = u64::MAX;
        assert_eq!(weigh_solutions_within(&[every; 8], |_| 1), 92);
        // The 4 solutions of N = 8 with a queen in the corner of row 0.
        let corner = [&[1][..], &[every; 7]].concat();
        let expected = all_solutions(8).iter().filter(|s| s[0] == 0).count() as u128;
        assert_eq!(weigh_solutions_within(&corner, |_| 1), expected);
        assert_eq!(weigh_solutions_within(&[0, every, every, every], |_| 1), 0);
    }

    #[test]
    fn images_of_a_solution_are_solutions_of_one_class() {
        let class = images(&[1, 3, 0, 2]);
        assert_eq!(class, BTreeSet::from([vec![1, 3, 0, 2], vec![2, 0, 3, 1]]));
        for columns in all_solutions(8) {
            let class = images(&columns);
            assert!(class.contains(&columns));
            assert!(class.iter().all(|image| is_solution(image)));
            assert!(class.iter().all(|image| images(image) == class));
        }
    }

    #[test]
    fn completions_of_a_partial_board_are_a_filter_of_the_solutions() {
        for columns in all_solutions(6) {
            let mut board: Vec<Option<usize>> = columns.iter().map(|&c| Some(c)).collect();
            board[1] = None;
            board[4] = None;
            let expected = all_solutions(6)
                .iter()
                .filter(|s| (0..6).all(|r| matches!(r, 1 | 4) || s[r] == columns[r]))
                .count() as u128;
            assert_eq!(completions(&mut board, &[1, 4]), expected, "{columns:?}");
            assert_eq!(board[1], None, "the board is left as it was");
        }
    }

    #[test]
    fn damage_lands_where_it_is_asked_to_and_wraps_around() {
        let file = br#"{"n":10,"s":-1.5}"#;
        let apply = |damage: Damage| String::from_utf8_lossy(&damage.apply(file)).into_owned();
        assert_eq!(apply(Damage::Truncate { at: 5 }), r#"{"n":"#);
        assert_eq!(apply(Damage::Truncate { at: file.len() + 1 }), "");
        assert_eq!(apply(Damage::Flip { at: 2, bits: 0x20 }), r#"{"N":10,"s":-1.5}"#);
        assert_eq!(apply(Damage::Remove { at: 12, len: usize::MAX }), r#"{"n":10,"s":"#);
        let inserted = Damage::Insert { at: file.len(), bytes: b"x".to_vec() };
        assert_eq!(apply(inserted), r#"{"n":10,"s":-1.5}x"#);
        let number = |which, value: &str| Damage::Number { which, value: value.to_owned() };
        assert_eq!(apply(number(0, "NaN")), r#"{"n":NaN,"s":-1.5}"#);
        assert_eq!(apply(number(3, "")), r#"{"n":10,"s":}"#);
        assert_eq!(number(0, "1").apply(b"{}"), b"{}", "no number to replace");
        assert_eq!(Damage::Flip { at: 3, bits: 1 }.apply(b""), b"", "no byte to flip");
    }

    #[test]
    fn the_generator_is_marsaglias_xorshift64() {
        // The first number xorshift64 (13, 7, 17) draws from the state 1.
        assert_eq!(XorShift::new(1).next_u64(), 1_082_269_761);
        let draws = |seed| {
            let mut random = XorShift::new(seed);
            [random.next_u64(), random.next_u64(), random.next_u64()]
        };
        assert_eq!(draws(0), draws(1), "a zero seed does not stall the generator");
        assert_ne!(draws(3), draws(5));
    }

    #[test]
    fn every_kernel_name_has_an_answer() {
        assert!(processor_runs("auto") && processor_runs("scalar"));
        assert!(!processor_runs("avx512") || processor_runs("avx2"), "AVX-512 implies AVX2");
    }
}
