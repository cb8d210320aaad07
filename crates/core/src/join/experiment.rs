//! Experiment, kept in one commit and removed in the next: how much a size other than the
//! units below (the placements of a task's decided rows on each half, to a power) or a
//! list draw in proportion to units and a Neyman allocation over the strata would narrow
//! the sample's spread, from every row set of a board timed alone. Run with
//! `mkdir -p /tmp/exp && EXP_N=20 EXP_LIST=256 EXP_M=11 cargo test --release -p nqueens-core
//! --lib predictor_experiment -- --ignored --nocapture` (`EXP_MEM=8388608` for a small
//! budget, `EXP_M=0` for all the north rows); it writes each row set's time, pairs and
//! approximate half-board counts to /tmp/exp/units-N.txt.

use std::time::Instant;

use super::split::{Key, Side};
use super::*;
use crate::engine::DEFAULT_MEMORY_PER_THREAD;

fn placements(n: usize, split: &split::Split, side: Side, rows: &[u8]) -> f64 {
    fn go(n: usize, split: &split::Split, cols: u64, rows: &[u8], used: u64, rise: u64, fall: u64) -> f64 {
        let Some((&row, rest)) = rows.split_first() else { return 1.0 };
        let row = usize::from(row);
        let mut free = cols & split.open[row] & !used;
        let mut ways = 0.0;
        while free != 0 {
            let c = free.trailing_zeros() as usize;
            free &= free - 1;
            let (r, f) = (1u64 << (row + c), 1u64 << (c + n - 1 - row));
            if rise & r == 0 && fall & f == 0 {
                ways += go(n, split, cols, rest, used | 1 << c, rise | r, fall | f);
            }
        }
        ways
    }
    go(n, split, split.columns[side], rows, 0, 0, 0)
}

fn side_rows(key: &Key, side: Side, m: usize) -> Vec<u8> {
    key.split.order.iter().zip(&key.decided).take(m).filter(|(_, s)| **s == side).map(|(r, _)| *r).collect()
}

const PREDICTORS: usize = 6;
const NAMES: [&str; PREDICTORS] = ["units", "exact^-1", "exact^-0.5", "exact^-0.25", "exact^0.25", "exact^0.5"];

fn sizes(join: &Join, bytes: &[u8], m: usize) -> [f64; PREDICTORS] {
    let key = join.geometry.key(bytes).unwrap();
    let units = key.split.completions(&key.decided);
    let n = join.geometry.n;
    let g = Side::BOTH.iter().map(|&s| placements(n, &key.split, s, &side_rows(&key, s, m))).product::<f64>();
    [units, units / g, units / g.sqrt(), units * g.powf(-0.25), units * g.powf(0.25), units * g.sqrt()]
}

/// (C, S per predictor) for the subtree at `bytes`.
fn approx(key: &Key, side: Side, n: usize) -> f64 {
    let rows: Vec<usize> = key.split.order.iter().zip(&key.decided).filter(|(_, s)| **s == side).map(|(r, _)| usize::from(*r)).collect();
    let w = key.split.columns[side].count_ones() as f64;
    let mut log = (1..=rows.len()).map(|k| (w - k as f64 + 1.0).max(1.0).ln()).sum::<f64>();
    for (i, &a) in rows.iter().enumerate() {
        for &b in &rows[i + 1..] {
            let d = a.abs_diff(b) as f64;
            if d < w {
                log += (1.0 - 2.0 * (w - d) / (w * (w - 1.0))).max(1e-9).ln();
            }
        }
    }
    let _ = n;
    log
}

fn eval(join: &Join, bytes: &[u8], m: usize, costs: &mut Vec<f64>) -> (f64, [f64; PREDICTORS]) {
    let task = Task::new(join, bytes.to_vec());
    let children = join.children(&task).unwrap();
    if children.is_empty() {
        let key = join.geometry.key(bytes).unwrap();
        let tails = join.tails_of(&key.split);
        let start = Instant::now();
        let tally = join.solve_with(&key, &tails);
        let c = start.elapsed().as_secs_f64();
        costs.push(c);
        use std::io::Write;
        let n = join.geometry.n;
        let mut f = std::fs::OpenOptions::new().append(true).create(true).open(format!("/tmp/exp/units-{n}.txt")).unwrap();
        let weight = key.split.weight_of(&key.decided).map_or(0, |w| w);
        writeln!(f, "{} {c} {} {} {} {weight}", bytes.iter().map(|b| b.to_string()).collect::<String>(), tally.pairs_tested, approx(&key, Side::West, n), approx(&key, Side::East, n)).unwrap();
        return (c, [c * c; PREDICTORS]);
    }
    let results: Vec<_> = children.iter().map(|ch| (sizes(join, ch.key(), m), eval(join, ch.key(), m, costs))).collect();
    let c: f64 = results.iter().map(|(_, (c, _))| c).sum();
    let mut s = [0.0; PREDICTORS];
    for k in 0..PREDICTORS {
        let all: f64 = results.iter().map(|(sz, _)| sz[k]).sum();
        for (sz, (_, sub)) in &results {
            if sz[k] > 0.0 { s[k] += sub[k] * all / sz[k]; }
        }
    }
    (c, s)
}

#[test]
#[ignore]
fn predictor_experiment() {
    let n: usize = std::env::var("EXP_N").unwrap().parse().unwrap();
    let list_tasks: usize = std::env::var("EXP_LIST").unwrap().parse().unwrap();
    let m: usize = std::env::var("EXP_M").unwrap().parse().unwrap();
    let mem: u64 = std::env::var("EXP_MEM").map(|s| s.parse().unwrap()).unwrap_or(DEFAULT_MEMORY_PER_THREAD);
    let join = Join::new(n, Kernel::Auto, mem).unwrap();
    let depth = (0..=join.geometry.most_decided()).find(|&d| join.geometry.keys(d).len() >= list_tasks).unwrap();
    let list = join.geometry.keys(depth);
    let north = join.geometry.first_split().order.len() - join.budget.tail_rows;
    let m = if m == 0 { north } else { m };
    println!("N = {n}: m {m}, list depth {depth}, {} tasks, north rows {north}, tail {}", list.len(), join.budget.tail_rows);
    let mut per_task = Vec::new();
    let mut costs = Vec::new();
    for key in &list {
        let sz = sizes(&join, key, m);
        per_task.push((sz, eval(&join, key, m, &mut costs)));
    }
    let total: f64 = per_task.iter().map(|(_, (c, _))| c).sum();
    let l = list.len() as f64;
    costs.sort_by(f64::total_cmp);
    println!("units {}, total {total:.2} s, unit cost median {:.2e} max {:.2e}", costs.len(), costs[costs.len()/2], costs[costs.len()-1]);
    let strata: usize = std::env::var("EXP_STRATA").map(|s| s.parse().unwrap()).unwrap_or((list.len() / 2).clamp(1, 64));
    for k in 0..PREDICTORS {
        // Uniform list draw, descent by predictor k.
        let s_uniform: f64 = per_task.iter().map(|(_, (_, s))| s[k]).sum::<f64>() * l;
        let cv_uniform = ((s_uniform - total * total).max(0.0)).sqrt() / total;
        // List draw by predictor k too.
        let all: f64 = per_task.iter().map(|(sz, _)| sz[k]).sum();
        let s_weighted: f64 = per_task.iter().map(|(sz, (_, s))| s[k] * all / sz[k]).sum();
        let cv_weighted = ((s_weighted - total * total).max(0.0)).sqrt() / total;
        // Strata: contiguous blocks, one draw each (variance of sum over strata).
        let mut var_strat_u = 0.0;
        let mut var_strat_w = 0.0;
        let (mut ney_u, mut ney_w) = (0.0, 0.0);
        for st in 0..strata {
            let block = &per_task[st * per_task.len() / strata..(st + 1) * per_task.len() / strata];
            let bl = block.len() as f64;
            let cb: f64 = block.iter().map(|(_, (c, _))| c).sum();
            let vu = (bl * block.iter().map(|(_, (_, s))| s[k]).sum::<f64>() - cb * cb).max(0.0);
            var_strat_u += vu;
            ney_u += vu.sqrt();
            let ab: f64 = block.iter().map(|(sz, _)| sz[k]).sum();
            let vw = (block.iter().map(|(sz, (_, s))| s[k] * ab / sz[k]).sum::<f64>() - cb * cb).max(0.0);
            var_strat_w += vw;
            ney_w += vw.sqrt();
        }
        // Per draw-equivalent: strata sum has `strata` draws; scale to per-draw CV.
        let cv_su = (var_strat_u * strata as f64).max(0.0).sqrt() / total;
        let cv_sw = (var_strat_w * strata as f64).max(0.0).sqrt() / total;
        println!("{:>10}: per-draw CV uniform-list {cv_uniform:.3}  weighted-list {cv_weighted:.3}  strata-uniform {cv_su:.3}  strata-weighted {cv_sw:.3}  neyman-u {:.3} neyman-w {:.3}", NAMES[k], ney_u / total, ney_w / total);
    }
}
