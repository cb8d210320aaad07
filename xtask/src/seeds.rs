//! `cargo xtask seeds`: the same plan estimated with several seeds, to show how far one
//! estimate may stray from another, appended to results/seeds.json.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nqueens_core::Problem;
use nqueens_plan::{Options, TaskList};
use serde::{Deserialize, Serialize};

use crate::host::{Build, Host, timestamp};
use crate::plan::{Lines, core_time, count_list};
use crate::workspace::Appending;

/// How far the estimates of one board may stray from each other: the largest over the
/// smallest, less one.
const AGREEMENT: f64 = 0.15;

pub(crate) struct Seeds {
    pub(crate) ns: Vec<usize>,
    pub(crate) seeds: Vec<u64>,
    pub(crate) threads: usize,
    pub(crate) sample_time: Option<Duration>,
    /// As [`crate::plan::Plan`]'s.
    pub(crate) max_memory: Option<u64>,
    pub(crate) out: PathBuf,
}

/// The committed file: every sweep, newest last.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct SeedSweeps {
    pub(crate) sweeps: Vec<SeedSweep>,
}

/// One sweep of boards and seeds, on one machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SeedSweep {
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) threads: usize,
    pub(crate) boards: Vec<Board>,
}

/// One board's estimates, one per seed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Board {
    pub(crate) n: usize,
    pub(crate) kernel: String,
    pub(crate) estimates: Vec<serde_json::Value>,
    /// The budget each thread counted within (absent in sweeps before it was recorded).
    #[serde(default)]
    pub(crate) memory_per_thread_bytes: Option<u64>,
    /// The largest core-hours over the smallest, less one.
    pub(crate) spread: f64,
}

impl Seeds {
    pub(crate) fn run(&self) -> Result<(), String> {
        if cfg!(debug_assertions) {
            return Err("cargo xtask seeds times the engines in its own process: run it built \
                        for release, `cargo xtask-release seeds ...`"
                .to_owned());
        }
        let within = format!("within {:.0}%", 100.0 * AGREEMENT);
        println!(
            "| N | kernel | core-time by seed | largest / smallest | {within} | by time alone |"
        );
        println!("| ---: | --- | --- | ---: | --- | ---: |");
        let saved = Appending::<SeedSweeps>::open(&self.out)?;
        let mut sweep = SeedSweep {
            timestamp_utc: timestamp().1,
            build: Build::this(),
            host: Host::this(),
            threads: self.threads,
            boards: Vec::new(),
        };
        for &n in &self.ns {
            let (problem, _, list) = count_list(n, self.threads, self.max_memory)
                .map_err(|e| format!("N = {n}: {e}"))?;
            let kernel = problem.kernel().name().to_owned();
            let memory_per_thread_bytes = Some(problem.memory_per_thread());
            sweep.boards.push(Board {
                n,
                kernel,
                estimates: Vec::new(),
                memory_per_thread_bytes,
                spread: 0.0,
            });
            for &seed in &self.seeds {
                let estimate =
                    self.estimate(&problem, &list, seed).map_err(|e| format!("N = {n}: {e}"))?;
                sweep.boards.last_mut().expect("pushed above").add(estimate);
                saved.save(|sweeps| sweeps.sweeps.push(sweep.clone()))?;
            }
            println!("{}", row(sweep.boards.last().expect("pushed above")));
        }
        println!("appended to {}", self.out.display());
        Ok(())
    }

    /// One plan's estimate with `seed`, as JSON with the time it took.
    fn estimate(
        &self,
        problem: &Problem,
        list: &TaskList,
        seed: u64,
    ) -> Result<serde_json::Value, Box<dyn std::error::Error>> {
        let started = Instant::now();
        let options = Options { sample_time: self.sample_time, ..Options::new(self.threads, seed) };
        let watch = Lines::new(problem.n());
        let (estimate, _, _) =
            nqueens_plan::estimate(problem, list, 0.0, &options, &watch)?.ok_or("stopped")?;
        let mut value = serde_json::to_value(&estimate)?;
        value["estimate_wall_s"] = started.elapsed().as_secs_f64().into();
        Ok(value)
    }
}

impl Board {
    /// Adds an estimate, and takes the spread of them all.
    fn add(&mut self, estimate: serde_json::Value) {
        self.estimates.push(estimate);
        self.spread = self.spread_of("core_hours");
    }

    /// The largest over the smallest of the estimates' `field`, less one.
    fn spread_of(&self, field: &str) -> f64 {
        let hours = self.estimates.iter().map(|e| e[field].as_f64().unwrap_or(f64::NAN));
        let most = hours.clone().fold(f64::NAN, f64::max);
        let least = hours.fold(f64::NAN, f64::min);
        most / least - 1.0
    }
}

/// A board's estimates as a row of the table [`Seeds::run`] prints.
fn row(board: &Board) -> String {
    let hours: Vec<String> = (board.estimates.iter())
        .map(|e| work(e["core_hours"].as_f64().unwrap_or(f64::NAN)))
        .collect();
    let within = if board.spread <= AGREEMENT { "yes" } else { "no" };
    // Where the work is the cost per solution times the solutions known, the spread the
    // same draws' time alone would have had.
    let alone = board.spread_of("core_hours_by_time_alone");
    format!(
        "| {} | {} | {} | {:.2} | {within} | {:.2} |",
        board.n,
        board.kernel,
        hours.join(", "),
        1.0 + board.spread,
        1.0 + alone
    )
}

/// Core-time for people, to three figures: small boards take core-seconds.
fn work(hours: f64) -> String {
    match hours * 3600.0 {
        seconds if seconds < 100.0 => format!("{seconds:.1} core-s"),
        seconds if seconds < 6000.0 => format!("{:.1} core-min", seconds / 60.0),
        _ if hours < 100.0 => format!("{hours:.2} core-hours"),
        _ => core_time(hours),
    }
}
