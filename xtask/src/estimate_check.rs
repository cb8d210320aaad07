//! `cargo xtask estimate-check`: `nqueens estimate` against the count it predicts, for
//! each board and method, appended to results/estimate.json.

use std::path::PathBuf;
use std::process::Command;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::host::{Build, Host, timestamp};
use crate::measure;

pub(crate) struct EstimateCheck {
    pub(crate) ns: Vec<usize>,
    pub(crate) methods: Vec<String>,
    pub(crate) threads: usize,
    pub(crate) out: PathBuf,
}

/// The committed file: every check ever recorded, newest last.
#[derive(Debug, Default, Serialize, Deserialize)]
pub(crate) struct Checks {
    pub(crate) checks: Vec<Check>,
}

/// One sweep of estimates and the counts they predict.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Check {
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) results: Vec<Outcome>,
}

/// One estimate and the count it predicts.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Outcome {
    pub(crate) n: usize,
    pub(crate) method: String,
    pub(crate) kernel: String,
    pub(crate) threads: usize,
    pub(crate) predicted_wall_s: f64,
    pub(crate) predicted_wall_s_low: f64,
    pub(crate) predicted_wall_s_high: f64,
    /// What the estimate itself took, and the share of the predicted work it timed.
    pub(crate) estimate_wall_s: f64,
    pub(crate) sample_share: f64,
    pub(crate) sampled_tasks: usize,
    pub(crate) actual_wall_s: f64,
    /// predicted / actual.
    pub(crate) ratio: f64,
    pub(crate) within_interval: bool,
}

/// The head of the table [`Outcome::row`] writes rows of.
pub(crate) const TABLE_HEADER: &str = "\
| N | method | kernel | predicted s | interval | actual s | predicted / actual | estimate took |
| ---: | --- | --- | ---: | --- | ---: | ---: | ---: |
";

impl Outcome {
    /// The outcome as a row of a Markdown table.
    pub(crate) fn row(&self) -> String {
        format!(
            "| {} | {} | {} | {:.2} | {:.2} to {:.2} | {:.2} | {:.2} | {:.2} s ({:.1}%) |",
            self.n,
            self.method,
            self.kernel,
            self.predicted_wall_s,
            self.predicted_wall_s_low,
            self.predicted_wall_s_high,
            self.actual_wall_s,
            self.ratio,
            self.estimate_wall_s,
            100.0 * self.sample_share,
        )
    }
}

impl EstimateCheck {
    pub(crate) fn run(&self) -> Result<(), String> {
        let binary = measure::build_release()?;
        let mut results = Vec::new();
        print!("{TABLE_HEADER}");
        for &n in &self.ns {
            for method in &self.methods {
                let (plain, kernel) = method.split_once('/').unwrap_or((method, "auto"));
                let started = std::time::Instant::now();
                let output = Command::new(&binary)
                    .args(["estimate", &n.to_string(), "--method", plain, "--kernel", kernel])
                    .args(["--threads", &self.threads.to_string(), "--json", "--progress", "never"])
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
                let estimate_wall_s = started.elapsed().as_secs_f64();
                if !output.status.success() {
                    return Err(format!(
                        "nqueens estimate {n} --method {method} failed: {}",
                        String::from_utf8_lossy(&output.stderr).trim()
                    ));
                }
                let estimate: Value = serde_json::from_slice(&output.stdout)
                    .map_err(|e| format!("nqueens estimate printed no JSON object: {e}"))?;
                let number = |name: &str| {
                    estimate[name].as_f64().ok_or_else(|| format!("the estimate has no '{name}'"))
                };
                let count = measure::count(&binary, n, method, self.threads, &[])?;
                let predicted = number("predicted_wall_s")?;
                let (low, high) =
                    (number("predicted_wall_s_low")?, number("predicted_wall_s_high")?);
                let outcome = Outcome {
                    n,
                    method: method.clone(),
                    kernel: estimate["kernel"].as_str().unwrap_or("unknown").to_owned(),
                    threads: self.threads,
                    predicted_wall_s: predicted,
                    predicted_wall_s_low: low,
                    predicted_wall_s_high: high,
                    estimate_wall_s,
                    sample_share: number("sample_share")?,
                    sampled_tasks: number("sampled_count")? as usize,
                    actual_wall_s: count.wall_s,
                    ratio: predicted / count.wall_s,
                    within_interval: (low..=high).contains(&count.wall_s),
                };
                println!("{}", outcome.row());
                results.push(outcome);
            }
        }
        let mut checks: Checks = if self.out.exists() {
            crate::workspace::read_json(&self.out)?
        } else {
            Checks::default()
        };
        checks.checks.push(Check {
            timestamp_utc: timestamp().1,
            build: Build::this(),
            host: Host::this(),
            results,
        });
        crate::workspace::write_json(&self.out, &checks)?;
        println!("appended to {}", self.out.display());
        Ok(())
    }
}
