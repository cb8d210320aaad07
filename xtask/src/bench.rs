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
    pub(crate) out: PathBuf,
}

/// A sweep: every combination of the parameters, with the machine it ran on.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Sweep {
    pub(crate) schema_version: u32,
    pub(crate) engine_version: String,
    pub(crate) timestamp: u64,
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) runs: usize,
    pub(crate) warmup: usize,
    pub(crate) results: Vec<Record>,
}

/// One combination of parameters and its measurements.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) n: usize,
    pub(crate) method: String,
    pub(crate) threads: usize,
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
        let mut results = Vec::new();
        let mut engine_version = String::new();
        for (n, method, threads) in combinations {
            bar.set_message(format!("N={n} {method} threads={threads}"));
            for _ in 0..self.warmup {
                measure::count(&binary, n, method, threads, &[])?;
                bar.inc(1);
            }
            let mut runs = Vec::new();
            for _ in 0..self.runs {
                runs.push(measure::count(&binary, n, method, threads, &[])?);
                bar.inc(1);
            }
            let last = &runs[runs.len() - 1].output;
            engine_version = last["engine_version"].as_str().unwrap_or_default().to_owned();
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
            let wall_s: Vec<f64> = runs.iter().map(|r| r.wall_s).collect();
            let wall = Stats::of(&wall_s);
            // Counting nodes slows the kernel a little, so one more run, untimed, counts them.
            let counted = measure::count(&binary, n, method, threads, &["--stats"])?;
            bar.inc(1);
            let nodes = measure::field(&counted.output, "nodes").ok();
            results.push(Record {
                n,
                method: method.clone(),
                threads,
                depth: last["depth"].as_u64().unwrap_or_default() as usize,
                user_s: runs.iter().map(|r| r.user_s).collect(),
                system_s: runs.iter().map(|r| r.system_s).collect(),
                total,
                unique,
                nodes,
                nodes_per_s: nodes.map(|nodes| nodes as f64 / wall.median),
                matches_known,
                wall_s,
                wall,
            });
        }
        bar.finish_and_clear();
        let (timestamp, timestamp_utc) = timestamp();
        let sweep = Sweep {
            schema_version: SCHEMA_VERSION,
            engine_version,
            timestamp,
            timestamp_utc,
            build: Build::this(),
            host: Host::this(),
            runs: self.runs,
            warmup: self.warmup,
            results,
        };
        crate::workspace::write_json(&self.out, &sweep)?;
        println!("wrote {} ({} combinations)", self.out.display(), sweep.results.len());
        Ok(())
    }
}
