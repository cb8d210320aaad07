//! Running the release binary once and timing it.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::Serialize;
use serde_json::Value;

/// One timed run of `nqueens count`.
pub(crate) struct Run {
    pub(crate) wall_s: f64,
    pub(crate) user_s: f64,
    pub(crate) system_s: f64,
    /// The binary's `--json` output.
    pub(crate) output: Value,
}

/// Builds the release binary and returns its path; or, where `NQUEENS_BINARY` names one
/// (a machine without the toolchain, measured with a binary built elsewhere), that one.
pub(crate) fn build_release() -> Result<PathBuf, String> {
    if let Some(binary) = std::env::var_os("NQUEENS_BINARY") {
        return Ok(PathBuf::from(binary));
    }
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--package", "nqueens-cli"])
        .current_dir(crate::workspace::project_root())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err("cargo build --release failed".into());
    }
    Ok(crate::workspace::project_root().join("target/release/nqueens"))
}

/// CPU time used by waited-for children so far, as (user, system) seconds.
fn children_cpu_time() -> (f64, f64) {
    // SAFETY: getrusage writes one rusage struct into the zeroed value it is given.
    let usage = unsafe {
        let mut usage: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage);
        usage
    };
    let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    (seconds(usage.ru_utime), seconds(usage.ru_stime))
}

/// Runs `nqueens count N --method M --threads T --json` once, with `extra` arguments. A
/// method written `M/K` runs on kernel `K` (`--kernel K`).
pub(crate) fn count(
    binary: &Path,
    n: usize,
    method: &str,
    threads: usize,
    extra: &[&str],
) -> Result<Run, String> {
    let (method, kernel) = method.split_once('/').unwrap_or((method, "auto"));
    let (user_before, system_before) = children_cpu_time();
    let started = Instant::now();
    let output = Command::new(binary)
        .args(["count", &n.to_string(), "--method", method, "--kernel", kernel])
        .args(["--threads", &threads.to_string()])
        .args(["--json", "--progress", "never"])
        .args(extra)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let wall_s = started.elapsed().as_secs_f64();
    let (user_after, system_after) = children_cpu_time();
    if !output.status.success() {
        return Err(format!(
            "nqueens count {n} --method {method} --kernel {kernel} --threads {threads} failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let output = serde_json::from_slice(&output.stdout)
        .map_err(|e| format!("nqueens printed no JSON object: {e}"))?;
    Ok(Run {
        wall_s,
        user_s: user_after - user_before,
        system_s: system_after - system_before,
        output,
    })
}

/// Summary statistics of a sample.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub(crate) struct Stats {
    pub(crate) min: f64,
    pub(crate) median: f64,
    pub(crate) mean: f64,
    pub(crate) max: f64,
    pub(crate) stddev: f64,
}

impl Stats {
    pub(crate) fn of(values: &[f64]) -> Stats {
        let mut sorted = values.to_vec();
        sorted.sort_by(f64::total_cmp);
        let count = sorted.len() as f64;
        let mean = sorted.iter().sum::<f64>() / count;
        let middle = sorted.len() / 2;
        let median = if sorted.len() % 2 == 1 {
            sorted[middle]
        } else {
            (sorted[middle - 1] + sorted[middle]) / 2.0
        };
        let variance = if sorted.len() > 1 {
            sorted.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (count - 1.0)
        } else {
            0.0
        };
        Stats {
            min: sorted[0],
            median,
            mean,
            max: sorted[sorted.len() - 1],
            stddev: variance.sqrt(),
        }
    }
}

/// A count from the binary's JSON output.
pub(crate) fn field(output: &Value, name: &str) -> Result<u128, String> {
    output[name]
        .as_u64()
        .map(u128::from)
        .ok_or_else(|| format!("the output has no integer '{name}'"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_of_a_sample() {
        let stats = Stats::of(&[3.0, 1.0, 2.0, 4.0]);
        assert_eq!((stats.min, stats.median, stats.mean, stats.max), (1.0, 2.5, 2.5, 4.0));
        assert!((stats.stddev - 1.2909944).abs() < 1e-6);
    }
}
