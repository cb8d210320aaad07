//! `cargo xtask timings -- FILE...`: a sample taken apart draw by draw, one table row per
//! timings file (`nqueens estimate --timings`, `cargo xtask seeds --timings`): how much
//! of the sample's spread its dearest timing and the first slices of row sets hold.
//!
//! The estimate is the sample's cost per solution times the count's solutions, so what
//! spreads it is each timing's cost less its solutions at that cost per solution (its
//! residual). Where one timing holds most of the squared residuals, the seeds differ by
//! whether they drew it; where the first slices hold them, by how their draws of first
//! slices fell (docs/measurements/plans.md).
//!
//! A seed draws the same keys whenever it runs, so the keys a file shares with the first
//! file of the same board and seed tell the machine's speed apart from the draws: their
//! seconds over that file's are what the machine (or the engine) alone moved. And where
//! several files sample one board, their costs per solution should spread about as much
//! as each file's own timings say they may (its standard error): what spreads them more is
//! common to all of a file's timings, the machine's speed while it sampled.
//!
//! Those files' timings pooled say how often five seeds would agree within 15% with as
//! many timings each as the files have, and with two and three times as many: five
//! samples drawn from the pool again and again ([`agreement`]).

use std::collections::HashMap;
use std::path::Path;

use nqueens_random::SplitMix64;
use serde_json::Value;

use crate::measure::Stats;
use crate::seeds::{AGREEMENT, spread as spread_of};

/// The seeds of a sweep that [`agreement`] draws again: as many as `cargo xtask seeds`
/// runs by default.
const SEEDS: usize = 5;

/// The sweeps [`agreement`] draws, enough to give how often five samples agree to about
/// a percent.
const SWEEPS: usize = 2000;

pub(crate) fn run(files: &[String]) -> Result<(), String> {
    if files.is_empty() {
        return Err("timings needs the files after --".into());
    }
    println!(
        "| file | N | seed | timed | timings | core-ns / solution | its standard error | \
         first slices' share \
         | first slices' cost per solution, over the others' | dearest timing's share | its \
         seconds | cost per solution without it | most solutions / mean | the same seed's \
         first file: shared keys' seconds over its |"
    );
    println!(
        "| --- | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: \
         | ---: |"
    );
    let mut firsts = HashMap::new();
    let mut boards: Vec<Board> = Vec::new();
    for file in files {
        let (name, json) = crate::workspace::named_json(Path::new(file))?;
        let timings = timings_of(&json)
            .ok_or_else(|| format!("{file}: no timings (write them with --timings)"))?;
        let keyed = seconds_by_key(&timings);
        let seed = (json["n"].as_u64(), json["seed"].as_u64());
        let against = firsts.get(&seed).map(|first| same_keys(first, &keyed));
        let (line, found) = row(file, &name, &json, &timings, against)?;
        println!("{line}");
        firsts.entry(seed).or_insert(keyed);
        let n = json["n"].as_u64().unwrap_or(0);
        let per_solution = (found.per_solution, found.standard_error);
        let drawn = timings.iter().map(|t| (t.cost, t.solutions));
        match boards.iter_mut().find(|board| board.n == n) {
            Some(board) => {
                board.files.push(per_solution);
                board.pool.extend(drawn);
            }
            None => boards.push(Board { n, files: vec![per_solution], pool: drawn.collect() }),
        }
    }
    for Board { n, files, pool } in boards {
        if let Some(across) = Across::of(&files) {
            println!(
                "N = {n}, {} files: {:.3} to {:.3} core-ns a solution ({:.2} largest over \
                 smallest), spread {:.1}% across the files; each file's timings give it a \
                 standard error of {:.1}% on average, what their draws alone would spread",
                files.len(),
                1e9 * across.least,
                1e9 * across.most,
                across.most / across.least,
                100.0 * across.spread,
                100.0 * across.standard_error,
            );
            let size = pool.len() / files.len();
            let mut random = SplitMix64::new(n);
            let agreed: Vec<String> = (1..=3)
                .map(|times| {
                    let (agreed, deviation) = agreement(&pool, times * size, &mut random);
                    format!(
                        "{:.0}% with {} timings a sample (each {:.1}% off their mean)",
                        100.0 * agreed,
                        times * size,
                        100.0 * deviation
                    )
                })
                .collect();
            println!(
                "N = {n}, the {} timings pooled and drawn again, {SWEEPS} sweeps of {SEEDS} \
                 samples: within {:.0}% {}",
                pool.len(),
                100.0 * AGREEMENT,
                agreed.join(", ")
            );
        }
    }
    Ok(())
}

/// The files of one board.
struct Board {
    n: u64,
    /// Each file's cost per solution and its standard error.
    files: Vec<(f64, f64)>,
    /// Every file's timings, each its cost and solutions.
    pool: Vec<(f64, f64)>,
}

/// How often [`SEEDS`] samples of `size` timings each, drawn at random from `pool` (each
/// timing's cost and solutions), agree within [`AGREEMENT`] by their costs per solution,
/// over [`SWEEPS`] sweeps, and the standard deviation of one sample's cost per solution
/// over their mean. The pool stands for the board's timings: each sample is a simple
/// random one, its strata and rounds of slices left out, and the pool's rarest dear
/// timings are only as many as the files happened to draw, so it tells how many timings
/// five seeds need rather than what a sweep will give.
fn agreement(pool: &[(f64, f64)], size: usize, random: &mut SplitMix64) -> (f64, f64) {
    let mut estimate = || {
        let (cost, solutions) = (0..size.max(1)).fold((0.0, 0.0), |(cost, solutions), _| {
            let (c, s) = pool[random.below(pool.len())];
            (cost + c, solutions + s)
        });
        cost / solutions
    };
    let mut agreed = 0;
    let mut all = Vec::with_capacity(SWEEPS * SEEDS);
    for _ in 0..SWEEPS {
        let sweep: Vec<f64> = (0..SEEDS).map(|_| estimate()).collect();
        agreed += usize::from(spread_of(sweep.iter().copied()) <= AGREEMENT);
        all.extend(sweep);
    }
    let stats = Stats::of(&all);
    (agreed as f64 / SWEEPS as f64, stats.stddev / stats.mean)
}

/// How the costs per solution of several samples of one board spread, against what each
/// sample's own timings allow.
#[derive(Debug, PartialEq)]
struct Across {
    least: f64,
    most: f64,
    /// The standard deviation of the costs per solution, over their mean.
    spread: f64,
    /// The samples' standard errors (each over its cost per solution), on average.
    standard_error: f64,
}

impl Across {
    /// Of the samples' `(cost per solution, its standard error)`; `None` for fewer than
    /// two.
    fn of(samples: &[(f64, f64)]) -> Option<Across> {
        if samples.len() < 2 {
            return None;
        }
        let count = samples.len() as f64;
        let mean = samples.iter().map(|&(cost, _)| cost).sum::<f64>() / count;
        let squares: f64 = samples.iter().map(|&(cost, _)| (cost - mean).powi(2)).sum();
        Some(Across {
            least: samples.iter().map(|&(cost, _)| cost).fold(f64::INFINITY, f64::min),
            most: samples.iter().map(|&(cost, _)| cost).fold(0.0, f64::max),
            spread: (squares / (count - 1.0)).sqrt() / mean,
            standard_error: samples.iter().map(|&(_, error)| error).sum::<f64>() / count,
        })
    }
}

/// Each timing's seconds by its key.
fn seconds_by_key(timings: &[Timing]) -> HashMap<String, f64> {
    timings.iter().map(|t| (t.key.clone(), t.seconds)).collect()
}

/// The seconds of the keys `later` shares with `first`, over theirs in `first`, and how
/// many keys they share; `None` if none.
fn same_keys(first: &HashMap<String, f64>, later: &HashMap<String, f64>) -> Option<(f64, usize)> {
    let shared: Vec<(f64, f64)> = (later.iter())
        .filter_map(|(key, &seconds)| Some((first.get(key).copied()?, seconds)))
        .collect();
    let before: f64 = shared.iter().map(|&(before, _)| before).sum();
    let after: f64 = shared.iter().map(|&(_, after)| after).sum();
    (before > 0.0).then_some((after / before, shared.len()))
}

/// One timing as the file gives it.
#[derive(Clone, Debug, PartialEq)]
struct Timing {
    /// Its key as the file writes it, the same text for the same key in every file.
    key: String,
    /// The last step of its key: a piece's place among its unit's slices.
    last_key_byte: Option<u64>,
    seconds: f64,
    cost: f64,
    solutions: f64,
}

/// What a file's timings say of the spread of the estimate made from them.
#[derive(Debug, PartialEq)]
struct Spread {
    per_solution: f64,
    /// The standard error of `per_solution` that the timings' residuals give (as if drawn
    /// at random from one stratum), over it.
    standard_error: f64,
    /// The share of the squared residuals held by the first slices, and their cost per
    /// solution over the other slices' (pieces only).
    first_slices: Option<f64>,
    first_slices_dearer: Option<f64>,
    /// The timing with the largest squared residual: its share, and the cost per solution
    /// without it, over the cost per solution with it.
    dearest: Timing,
    dearest_share: f64,
    without_dearest: f64,
    /// The most solutions a timing stands for, over the mean.
    most_solutions: f64,
}

fn spread(timings: &[Timing], pieces: bool) -> Option<Spread> {
    let cost: f64 = timings.iter().map(|t| t.cost).sum();
    let solutions: f64 = timings.iter().map(|t| t.solutions).sum();
    if solutions <= 0.0 {
        return None;
    }
    let per_solution = cost / solutions;
    let squared = |t: &Timing| (t.cost - per_solution * t.solutions).powi(2);
    let squares: f64 = timings.iter().map(squared).sum();
    let all = squares.max(f64::MIN_POSITIVE);
    let is_first = |t: &&Timing| t.last_key_byte == Some(0);
    let first_slices =
        pieces.then(|| timings.iter().filter(is_first).map(squared).sum::<f64>() / all);
    let per_solution_of = |timings: Vec<&Timing>| {
        let solutions: f64 = timings.iter().map(|t| t.solutions).sum();
        (solutions > 0.0).then(|| timings.iter().map(|t| t.cost).sum::<f64>() / solutions)
    };
    let (first, others): (Vec<&Timing>, Vec<&Timing>) = timings.iter().partition(is_first);
    let first_slices_dearer = (per_solution_of(first).zip(per_solution_of(others)))
        .filter(|_| pieces)
        .map(|(first, others)| first / others);
    let dearest = timings.iter().max_by(|a, b| squared(a).total_cmp(&squared(b)))?.clone();
    let left = solutions - dearest.solutions;
    let without_dearest =
        if left > 0.0 { (cost - dearest.cost) / left / per_solution } else { f64::NAN };
    let mean_solutions = solutions / timings.len() as f64;
    let most_solutions = timings.iter().map(|t| t.solutions).fold(0.0, f64::max) / mean_solutions;
    let count = timings.len() as f64;
    let standard_error = if timings.len() > 1 {
        (squares / (count * (count - 1.0))).sqrt() / (cost / count)
    } else {
        f64::NAN
    };
    Some(Spread {
        per_solution,
        standard_error,
        first_slices,
        first_slices_dearer,
        dearest_share: squared(&dearest) / all,
        dearest,
        without_dearest,
        most_solutions,
    })
}

fn timings_of(json: &Value) -> Option<Vec<Timing>> {
    let timings = json["timings"].as_array()?;
    (timings.iter())
        .map(|t| {
            Some(Timing {
                key: t.get("key")?.to_string(),
                last_key_byte: t["key"].as_array().and_then(|key| key.last()?.as_u64()),
                seconds: t["seconds"].as_f64()?,
                cost: t["cost"].as_f64()?,
                solutions: t["solutions"].as_f64()?,
            })
        })
        .collect()
}

/// The table row of the timings file `file`, read as `json` with its `timings`;
/// `against`, the keys it shares with the first file of its board and seed, for every
/// file after that one.
fn row(
    file: &str,
    name: &str,
    json: &Value,
    timings: &[Timing],
    against: Option<Option<(f64, usize)>>,
) -> Result<(String, Spread), String> {
    let timed = json["sampled"].as_str().unwrap_or("?");
    let found = spread(timings, timed == "pieces")
        .ok_or_else(|| format!("{file}: the timings found no solutions"))?;
    let percent = |share: f64| format!("{:.0}%", 100.0 * share);
    let against = match against {
        None => "-".to_owned(),
        Some(None) => "none shared".to_owned(),
        Some(Some((ratio, shared))) => format!("{ratio:.3} ({shared} keys)"),
    };
    let line = format!(
        "| {name} | {} | {} | {timed} | {} | {:.3} | {:.1}% | {} | {} | {} | {:.1} | {:.3} | \
         {:.1} | {against} |",
        json["n"],
        json["seed"],
        timings.len(),
        1e9 * found.per_solution,
        100.0 * found.standard_error,
        found.first_slices.map_or_else(|| "-".to_owned(), percent),
        found.first_slices_dearer.map_or_else(|| "-".to_owned(), |ratio| format!("{ratio:.2}")),
        percent(found.dearest_share),
        found.dearest.seconds,
        found.without_dearest,
        found.most_solutions,
    );
    Ok((line, found))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(place: u64, cost: f64, solutions: f64) -> Timing {
        Timing {
            key: format!("[{place}]"),
            last_key_byte: Some(place),
            seconds: cost,
            cost,
            solutions,
        }
    }

    /// Three timings at 1 a solution and a first slice at 3: the first slice holds all
    /// of the spread, and without it the cost per solution is 1.
    #[test]
    fn a_dear_first_slice_holds_the_spread_it_makes() {
        let timings =
            [piece(0, 6.0, 2.0), piece(1, 1.0, 1.0), piece(2, 2.0, 2.0), piece(3, 1.0, 1.0)];
        let found = spread(&timings, true).unwrap();
        assert_eq!(found.per_solution, 10.0 / 6.0);
        assert_eq!(found.dearest, timings[0]);
        assert!(found.dearest_share > 0.72 && found.dearest_share < 0.73, "{found:?}");
        assert!((found.first_slices.unwrap() - found.dearest_share).abs() < 1e-12);
        assert!((found.without_dearest - 1.0 / found.per_solution).abs() < 1e-12);
        assert_eq!(found.most_solutions, 2.0 / 1.5);
        let squares = (6.0f64 - 20.0 / 6.0).powi(2)
            + (1.0f64 - 10.0 / 6.0).powi(2) * 2.0
            + (2.0f64 - 20.0 / 6.0).powi(2);
        let error = (squares / 12.0).sqrt() / 2.5;
        assert!((found.standard_error - error).abs() < 1e-12, "{found:?} against {error}");
        assert_eq!(found.first_slices_dearer, Some(3.0));
        assert_eq!(spread(&timings, false).unwrap().first_slices_dearer, None, "not pieces");
    }

    /// Timings all at one cost per solution leave no spread for any of them to hold.
    #[test]
    fn timings_at_one_cost_per_solution_have_no_spread() {
        let timings = [piece(0, 2.0, 2.0), piece(1, 1.0, 1.0), piece(2, 3.0, 3.0)];
        let found = spread(&timings, true).unwrap();
        assert_eq!((found.per_solution, found.first_slices), (1.0, Some(0.0)));
        assert_eq!((found.dearest_share, found.without_dearest), (0.0, 1.0));
        assert_eq!(found.standard_error, 0.0);
        assert!(spread(&[piece(0, 1.0, 0.0)], true).is_none(), "no solutions");
    }

    /// The files `nqueens estimate --timings` writes are read as written.
    #[test]
    fn a_timings_file_is_read_as_written() {
        let json: Value = serde_json::json!({"timings": [
            {"key": [1, 0, 7], "seconds": 2.0, "cost": 3.0, "solutions": 4.0, "weight": 1.0},
        ]});
        let timings = timings_of(&json).unwrap();
        assert_eq!(
            timings,
            [Timing {
                key: "[1,0,7]".to_owned(),
                last_key_byte: Some(7),
                seconds: 2.0,
                cost: 3.0,
                solutions: 4.0
            }]
        );
        assert!(timings_of(&serde_json::json!({"timings": [{"key": []}]})).is_none());
    }

    /// Of two runs of a seed, the keys both timed say how much slower the later ran: the
    /// keys only one of them timed say nothing of it.
    #[test]
    fn the_keys_two_files_share_compare_their_seconds() {
        let file = |timings: &[(&[u64], f64)]| {
            let timings: Vec<Value> = (timings.iter())
                .map(|(key, seconds)| {
                    let (cost, solutions) = (1.0, 1.0);
                    serde_json::json!({"key": key, "seconds": seconds, "cost": cost,
                        "solutions": solutions})
                })
                .collect();
            seconds_by_key(&timings_of(&serde_json::json!({ "timings": timings })).unwrap())
        };
        let first = file(&[(&[1, 0], 2.0), (&[1, 1], 4.0), (&[2, 0], 9.0)]);
        let later = file(&[(&[1, 1], 5.0), (&[1, 0], 1.0), (&[3, 0], 7.0)]);
        assert_eq!(same_keys(&first, &later), Some((1.0, 2)));
        let slower = file(&[(&[2, 0], 10.8)]);
        let (ratio, shared) = same_keys(&first, &slower).unwrap();
        assert!((ratio - 1.2).abs() < 1e-12 && shared == 1, "{ratio} of {shared}");
        assert_eq!(same_keys(&first, &file(&[(&[4], 1.0)])), None, "no key shared");
    }

    /// Timings at one cost per solution agree whatever is drawn; timings at costs per
    /// solution 1 and 3 in equal numbers, drawn one to a sample, agree only where all
    /// five draw the same (2 in 32 sweeps), and many to a sample, nearly always.
    #[test]
    fn five_samples_drawn_from_the_pool_agree_as_often_as_their_draws_allow() {
        let mut random = SplitMix64::new(7);
        let even = [(2.0, 1.0), (20.0, 10.0), (6.0, 3.0)];
        assert_eq!(agreement(&even, 1, &mut random), (1.0, 0.0));
        let two_costs = [(1.0, 1.0), (3.0, 1.0)];
        let (agreed, deviation) = agreement(&two_costs, 1, &mut random);
        assert!((agreed - 2.0 / 32.0).abs() < 0.02, "{agreed}");
        assert!((deviation - 0.5).abs() < 0.02, "{deviation}");
        let (agreed, deviation) = agreement(&two_costs, 1000, &mut random);
        assert_eq!(agreed, 1.0);
        assert!(deviation < 0.03, "{deviation}");
    }

    /// Samples at 1, 2 and 3 spread by the standard deviation 1 over the mean 2, whatever
    /// their own errors say; one sample alone spreads by nothing.
    #[test]
    fn samples_of_one_board_spread_by_their_costs_per_solution() {
        let across = Across::of(&[(2.0, 0.1), (1.0, 0.2), (3.0, 0.3)]).unwrap();
        assert_eq!((across.least, across.most, across.spread), (1.0, 3.0, 0.5));
        assert!((across.standard_error - 0.2).abs() < 1e-12, "{across:?}");
        assert_eq!(Across::of(&[(2.0, 0.1)]), None);
    }
}
