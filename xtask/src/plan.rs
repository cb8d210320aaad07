//! `cargo xtask plan`: what counts of the frontier would cost, as `nqueens estimate`
//! predicts them on this machine, appended to results/plans.json.

use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::host::{Build, Host, timestamp};
use crate::measure;

/// The cluster each plan is predicted on, besides the core-time alone.
pub(crate) const CLUSTER_CORES: usize = 10_000;

pub(crate) struct Plan {
    pub(crate) ns: Vec<usize>,
    pub(crate) threads: usize,
    pub(crate) out: PathBuf,
}

/// The committed file: every sweep of plans, newest last.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Plans {
    pub(crate) plans: Vec<PlanSweep>,
}

/// One sweep of estimates, on one machine.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct PlanSweep {
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) threads: usize,
    pub(crate) results: Vec<Value>,
}

impl Plan {
    pub(crate) fn run(&self) -> Result<(), String> {
        let binary = measure::build_release()?;
        let mut results = Vec::new();
        for &n in &self.ns {
            let started = std::time::Instant::now();
            let output = Command::new(&binary)
                .args(["estimate", &n.to_string(), "--threads", &self.threads.to_string()])
                .args(["--cores", &CLUSTER_CORES.to_string(), "--json", "--progress", "never"])
                .output()
                .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
            if !output.status.success() {
                return Err(format!(
                    "nqueens estimate {n} failed: {}",
                    String::from_utf8_lossy(&output.stderr).trim()
                ));
            }
            let mut estimate: Value = serde_json::from_slice(&output.stdout)
                .map_err(|e| format!("nqueens estimate printed no JSON object: {e}"))?;
            estimate["estimate_wall_s"] = started.elapsed().as_secs_f64().into();
            println!("{}", row(&estimate));
            results.push(estimate);
        }
        let mut plans: Plans = if self.out.exists() {
            crate::workspace::read_json(&self.out)?
        } else {
            Plans::default()
        };
        plans.plans.push(PlanSweep {
            timestamp_utc: timestamp().1,
            build: Build::this(),
            host: Host::this(),
            threads: self.threads,
            results,
        });
        crate::workspace::write_json(&self.out, &plans)?;
        println!("appended to {}", self.out.display());
        Ok(())
    }
}

/// The head of the table [`row`] writes rows of.
pub(crate) const TABLE_HEADER: &str = "\
| N | kernel | core-time | interval | memory per thread | on 1,000 cores | on 10,000 cores | estimate took |
| ---: | --- | ---: | --- | ---: | ---: | ---: | ---: |
";

/// One estimate as a row of the plans table: the time on 1,000 cores are its core-time over
/// them (its tasks are many more than the cores), on 10,000 its cluster prediction.
pub(crate) fn row(estimate: &Value) -> String {
    let number = |name: &str| estimate[name].as_f64().unwrap_or(f64::NAN);
    let core_hours = number("core_hours");
    let threads = number("threads").max(1.0);
    let cluster_s = estimate["cluster"]["predicted_wall_s"].as_f64().unwrap_or(f64::NAN);
    format!(
        "| {} | {} | {} | {} to {} | {:.0} MiB | {} | {} | {:.0} s |",
        estimate["n"],
        estimate["kernel"].as_str().unwrap_or("unknown"),
        core_time(core_hours),
        core_time(number("core_hours_low")),
        core_time(number("core_hours_high")),
        number("peak_memory_bytes") / threads / f64::from(1 << 20),
        span(core_hours * 3600.0 / 1000.0),
        span(cluster_s),
        number("estimate_wall_s"),
    )
}

/// A wall time for people: minutes, hours or days.
fn span(seconds: f64) -> String {
    match seconds {
        s if s < 3600.0 => format!("{:.1} min", s / 60.0),
        s if s < 86400.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86400.0),
    }
}

/// Core-hours for people: hours up to a year's worth, then core-years.
fn core_time(hours: f64) -> String {
    const YEAR: f64 = 24.0 * 365.25;
    if hours < YEAR {
        format!("{hours:.1} core-hours")
    } else {
        format!("{:.1} core-years", hours / YEAR)
    }
}
