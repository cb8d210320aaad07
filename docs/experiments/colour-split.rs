//! The queens split by square colour, weighed for issue 49 (docs/design-notes.md, "Where the
//! join's time goes"). Queens on squares of one colour never share a diagonal with queens on
//! the other, so Q(N) = sum over (rows, columns) of white(rows, columns) x black(the rest):
//! an exact-match join instead of the half-board join's disjointness test. What decides its
//! cost is how many one-colour placements must be walked per solution; this prints them.
//!
//! rustc -O docs/experiments/colour-split.rs -o /tmp/colour-split && /tmp/colour-split 16
use std::collections::HashMap;

struct Walk {
    n: usize,
    colour: usize,
    placements: u64,
    balanced: u64,
    by_lines: Option<HashMap<(u32, u32), u64>>,
}

impl Walk {
    // A placement can only be completed by the other colour when the rows and columns it
    // leaves have matching parities: white pairs even rows with even columns, black with odd.
    fn leaves_parities_fillable(&self, even_rows: i32, odd_rows: i32) -> bool {
        let (n, colour) = (self.n as i32, self.colour as i32);
        let (even_left, odd_left) = ((n + 1) / 2 - even_rows, n / 2 - odd_rows);
        let (even_cols_used, odd_cols_used) =
            if colour == 0 { (even_rows, odd_rows) } else { (odd_rows, even_rows) };
        let (even_cols_left, odd_cols_left) = ((n + 1) / 2 - even_cols_used, n / 2 - odd_cols_used);
        if colour == 0 {
            even_left == odd_cols_left && odd_left == even_cols_left
        } else {
            even_left == even_cols_left && odd_left == odd_cols_left
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn rows_from(
        &mut self,
        row: usize,
        even_rows: i32,
        odd_rows: i32,
        rows: u32,
        cols: u32,
        rising: u64,
        falling: u64,
    ) {
        let n = self.n;
        if row == n {
            self.placements += 1;
            if self.leaves_parities_fillable(even_rows, odd_rows) {
                self.balanced += 1;
            }
            if let Some(map) = &mut self.by_lines {
                *map.entry((rows, cols)).or_insert(0) += 1;
            }
            return;
        }
        self.rows_from(row + 1, even_rows, odd_rows, rows, cols, rising, falling);
        let mut col = (row + self.colour) % 2;
        while col < n {
            let (up, down) = (1u64 << (row + col), 1u64 << (row + n - 1 - col));
            if cols >> col & 1 == 0 && rising & up == 0 && falling & down == 0 {
                let (even, odd) = if row % 2 == 0 {
                    (even_rows + 1, odd_rows)
                } else {
                    (even_rows, odd_rows + 1)
                };
                self.rows_from(
                    row + 1,
                    even,
                    odd,
                    rows | 1 << row,
                    cols | 1 << col,
                    rising | up,
                    falling | down,
                );
            }
            col += 2;
        }
    }
}

fn walk(n: usize, colour: usize, keep: bool) -> Walk {
    let mut walk =
        Walk { n, colour, placements: 0, balanced: 0, by_lines: keep.then(HashMap::new) };
    walk.rows_from(0, 0, 0, 0, 0, 0, 0);
    walk
}

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|arg| arg.parse().ok())
        .filter(|&n| (4..=20).contains(&n))
        .expect("usage: colour-split N (4 to 20)");
    let keep = n <= 14;
    let (white, black) = (walk(n, 0, keep), walk(n, 1, keep));
    print!(
        "N = {n}: white placements {}, parity-fillable {}; black {}, {}",
        white.placements, white.balanced, black.placements, black.balanced
    );
    if let (Some(whites), Some(blacks)) = (&white.by_lines, &black.by_lines) {
        let all = (1u32 << n) - 1;
        let solutions: u64 = whites
            .iter()
            .map(|(&(rows, cols), count)| {
                count * blacks.get(&(all ^ rows, all ^ cols)).unwrap_or(&0)
            })
            .sum();
        let met = whites
            .keys()
            .filter(|&&(rows, cols)| blacks.contains_key(&(all ^ rows, all ^ cols)))
            .count();
        print!(
            "; solutions joined {solutions}; white keys {}, met by a black key {met}",
            whites.len()
        );
    }
    println!();
}
