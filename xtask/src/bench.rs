//! `cargo xtask bench`: a reproducible sweep of counts into one JSON file.

use std::path::PathBuf;

use indicatif::{ProgressBar, ProgressStyle};
use serde::{Deserialize, Serialize};

use crate::host::{Build, Host, timestamp};
use crate::measure::{self, Stats};

/// The version of the sweep file's layout; bump it when a field changes meaning.
pub(crate) const SCHEMA_VERSION: u32 = 1;

pub(crate) struct Bench {
    pub(crate) ns: Vec<usize>,
    pub(crate) methods: Vec<String>,
    pub(crate) threads: Vec<usize>,
    pub(crate) runs: usize,
    pub(crate) warmup: usize,
    /// A combination predicted to take longer than this many seconds is skipped, with the
    /// larger N of its method and thread count.
    pub(crate) longest_s: f64,
    /// A combination predicted to take longer than this many seconds runs once, without
    /// warm-up or node count: its spread is small beside its length.
    pub(crate) long_s: f64,
    pub(crate) out: PathBuf,
}

/// A sweep: every combination of the parameters, with the machine it ran on.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Sweep {
    pub(crate) schema_version: u32,
    /// The package version, which sweeps recorded as the engine's before engines had an
    /// identity of their own (`build.engine`); absent since.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) engine_version: Option<String>,
    pub(crate) timestamp: u64,
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) runs: usize,
    pub(crate) warmup: usize,
    /// The sweep's limits (see [`Bench`]); absent in files written before they existed.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) long_s: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) longest_s: Option<f64>,
    pub(crate) results: Vec<Record>,
    /// The combinations not run, with the seconds they were predicted to take.
    #[serde(default)]
    pub(crate) skipped: Vec<Skipped>,
}

/// A combination the sweep left out, as too long.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Skipped {
    pub(crate) n: usize,
    pub(crate) method: String,
    pub(crate) threads: usize,
    pub(crate) predicted_s: f64,
}

/// One combination of parameters and its measurements.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) n: usize,
    pub(crate) method: String,
    pub(crate) threads: usize,
    /// The kernel the count ran; absent in files written before it was recorded.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) kernel: Option<String>,
    /// The split depth the count chose.
    pub(crate) depth: usize,
    /// Wall time of every run, in seconds.
    pub(crate) wall_s: Vec<f64>,
    pub(crate) wall: Stats,
    /// User and system CPU time of every run, in seconds.
    pub(crate) user_s: Vec<f64>,
    pub(crate) system_s: Vec<f64>,
    pub(crate) total: u128,
    pub(crate) unique: u128,
    /// Placements tried, from one more run with `--stats`.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) nodes: Option<u128>,
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) nodes_per_s: Option<f64>,
    /// Whether total and unique equal the known values; absent where none are known.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) matches_known: Option<bool>,
    /// A long count that was not part of the sweep, for the tables to name.
    #[serde(skip)]
    pub(crate) source: Option<FrontierRun>,
}

/// A long count from results/frontier: its JSON file, and its peak resident memory where
/// `time -v` measured the count beside it.
#[derive(Debug)]
pub(crate) struct FrontierRun {
    pub(crate) file: String,
    pub(crate) peak_kib: Option<u64>,
}

impl Bench {
    pub(crate) fn run(&self) -> Result<(), String> {
        let binary = measure::build_release()?;
        let combinations: Vec<(usize, &String, usize)> = self
            .ns
            .iter()
            .flat_map(|&n| {
                self.methods.iter().flat_map(move |m| self.threads.iter().map(move |&t| (n, m, t)))
            })
            .collect();
        let bar = ProgressBar::new((combinations.len() * (self.runs + self.warmup + 1)) as u64);
        bar.set_style(
            ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} runs | {msg}")
                .expect("the template is valid"),
        );
        let mut results: Vec<Record> = Vec::new();
        let mut skipped = Vec::new();
        let mut build = None;
        for (n, method, threads) in combinations {
            let predicted = predicted_wall_s(&results, n, method, threads);
            if predicted.is_some_and(|seconds| seconds > self.longest_s)
                || skipped.iter().any(|s: &Skipped| s.method == *method && s.threads == threads)
            {
                let predicted_s = predicted.unwrap_or(f64::INFINITY);
                skipped.push(Skipped { n, method: method.clone(), threads, predicted_s });
                bar.inc((self.runs + self.warmup + 1) as u64);
                continue;
            }
            let long = predicted.is_some_and(|seconds| seconds > self.long_s);
            let (warmup, runs) = if long { (0, 1) } else { (self.warmup, self.runs) };
            bar.set_message(format!("N={n} {method} threads={threads}"));
            for _ in 0..warmup {
                measure::count(&binary, n, method, threads, &[])?;
                bar.inc(1);
            }
            let mut timed = Vec::new();
            for _ in 0..runs {
                timed.push(measure::count(&binary, n, method, threads, &[])?);
                bar.inc(1);
            }
            bar.inc((self.runs + self.warmup - runs - warmup) as u64);
            let last = &timed[timed.len() - 1].output;
            build.get_or_insert_with(|| Build::of_binary(last));
            let (total, unique) = (measure::field(last, "total")?, measure::field(last, "unique")?);
            let matches_known = match nqueens_test_support::listed_counts(n) {
                Some(known) if known != (total, unique) => {
                    return Err(format!(
                        "N={n} {method} threads={threads} counted total {total}, unique {unique}; \
                         the known values are {known:?}"
                    ));
                }
                Some(_) => Some(true),
                None => None,
            };
            let wall_s: Vec<f64> = timed.iter().map(|r| r.wall_s).collect();
            let wall = Stats::of(&wall_s);
            // Counting nodes slows the kernel a little, so one more run, untimed, counts them.
            let nodes = if long {
                None
            } else {
                let counted = measure::count(&binary, n, method, threads, &["--stats"])?;
                measure::field(&counted.output["counts"], "nodes").ok()
            };
            bar.inc(1);
            results.push(Record {
                n,
                method: method.clone(),
                threads,
                kernel: last["kernel"].as_str().map(str::to_owned),
                depth: last["depth"].as_u64().unwrap_or_default() as usize,
                user_s: timed.iter().map(|r| r.user_s).collect(),
                system_s: timed.iter().map(|r| r.system_s).collect(),
                total,
                unique,
                nodes,
                nodes_per_s: nodes.map(|nodes| nodes as f64 / wall.median),
                matches_known,
                source: None,
                wall_s,
                wall,
            });
        }
        bar.finish_and_clear();
        let (timestamp, timestamp_utc) = timestamp();
        let sweep = Sweep {
            schema_version: SCHEMA_VERSION,
            engine_version: None,
            timestamp,
            timestamp_utc,
            build: build.unwrap_or_else(Build::this),
            host: Host::this(),
            runs: self.runs,
            warmup: self.warmup,
            long_s: Some(self.long_s),
            longest_s: Some(self.longest_s),
            results,
            skipped,
        };
        crate::workspace::write_json(&self.out, &sweep)?;
        println!("wrote {} ({} combinations)", self.out.display(), sweep.results.len());
        Ok(())
    }
}

/// The wall time of `method` on `threads` threads at `n`, from its two largest smaller N
/// already run: the last time grown as much as it grew from the one before (at least
/// [`LEAST_GROWTH`]-fold a step, since small boards' times are mostly start-up).
fn predicted_wall_s(results: &[Record], n: usize, method: &str, threads: usize) -> Option<f64> {
    let mut earlier: Vec<&Record> =
        results.iter().filter(|r| r.method == method && r.threads == threads && r.n < n).collect();
    earlier.sort_by_key(|r| r.n);
    let last = earlier.pop()?;
    let growth = earlier
        .pop()
        .map_or(LEAST_GROWTH, |before| (last.wall.median / before.wall.median).max(LEAST_GROWTH));
    Some(last.wall.median * growth.powi((n - last.n) as i32))
}

/// The least growth per N that [`predicted_wall_s`] assumes: every method's time grows at
/// least this much from N = 16 on.
const LEAST_GROWTH: f64 = 4.0;

#[cfg(test)]
mod tests {
    use super::*;

    fn record(n: usize, median: f64) -> Record {
        Record {
            n,
            method: "join".to_owned(),
            threads: 2,
            kernel: Some("avx2".to_owned()),
            depth: 1,
            wall_s: vec![median],
            wall: Stats::of(&[median]),
            user_s: vec![median],
            system_s: vec![0.0],
            total: 0,
            unique: 0,
            nodes: None,
            nodes_per_s: None,
            matches_known: None,
            source: None,
        }
    }

    #[test]
    fn a_prediction_grows_as_the_last_step_did() {
        let results = [record(18, 2.0), record(19, 12.0)];
        assert_eq!(predicted_wall_s(&results, 20, "join", 2), Some(72.0));
        assert_eq!(predicted_wall_s(&results, 20, "join", 1), None);
        assert_eq!(predicted_wall_s(&results, 19, "join", 2), Some(8.0), "from N = 18 alone");
        let slow_start = [record(8, 0.002), record(9, 0.002)];
        assert_eq!(predicted_wall_s(&slow_start, 10, "join", 2), Some(0.008));
    }
}
