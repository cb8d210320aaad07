//! `cargo xtask compare --base REV [--runs R] -- <nqueens arguments>`: the binary of an
//! earlier commit against the work tree's, run in turns on the same arguments.
//!
//! Machines here are shared and noisy, so speed is compared as a ratio taken in one run:
//! base and current alternate (B C B C ...), and the medians are compared. The base is
//! built in a git worktree under `target/compare/<commit>`, kept, so that the next
//! comparison with the same base builds nothing. Both must print the same counts, or the
//! comparison fails. Each comparison is appended to `results/compare.json`.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::host::{Build, Host, timestamp};
use crate::measure::{Stats, build_release};
use crate::workspace::{project_root, read_json, write_json};

/// What `cargo xtask compare` was asked.
pub(crate) struct Compare {
    pub(crate) base: String,
    pub(crate) runs: usize,
    pub(crate) args: Vec<String>,
}

/// `results/compare.json`.
#[derive(Debug, Default, Serialize, Deserialize)]
struct Comparisons {
    results: Vec<Comparison>,
}

/// One comparison of base and current.
#[derive(Debug, Serialize, Deserialize)]
struct Comparison {
    timestamp: String,
    host: Host,
    /// The instruction sets of this processor that the kernels use, as in `host`; kept
    /// because comparisons recorded before the host had them hold them only here.
    cpu_features: Vec<String>,
    /// The commit the base binary was built from.
    base_commit: String,
    /// The work tree the current binary was built from.
    current: Build,
    /// The arguments both binaries ran with.
    args: Vec<String>,
    /// The kernel the current binary reported, where its output names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    kernel: Option<String>,
    base_s: Vec<f64>,
    current_s: Vec<f64>,
    base_median_s: f64,
    current_median_s: f64,
    /// Current over base: below 1 is faster.
    ratio: f64,
}

impl Compare {
    pub(crate) fn run(&self) -> Result<(), String> {
        if self.args.is_empty() {
            return Err("compare needs the nqueens arguments after --, e.g. -- count 18".into());
        }
        let commit =
            git(&project_root(), &["rev-parse", "--verify", &format!("{}^{{commit}}", self.base)])
                .map_err(|e| format!("{} is not a commit: {e}", self.base))?;
        let base = build_at(&commit)?;
        let current = build_release()?;
        let (mut base_s, mut current_s) = (Vec::new(), Vec::new());
        let mut kernel = None;
        for run in 1..=self.runs {
            let (base_time, base_out) = time(&base, &self.args)?;
            let (current_time, current_out) = time(&current, &self.args)?;
            let (base_counts, current_counts) = (counts(&base_out), counts(&current_out));
            if base_counts != current_counts {
                return Err(format!(
                    "the counts differ: base printed {base_out:?}, current printed {current_out:?}"
                ));
            }
            kernel = named_kernel(&current_out);
            eprintln!(
                "run {run}/{}: base {base_time:.3} s, current {current_time:.3} s",
                self.runs
            );
            base_s.push(base_time);
            current_s.push(current_time);
        }
        let (base_median_s, current_median_s) =
            (Stats::of(&base_s).median, Stats::of(&current_s).median);
        let ratio = current_median_s / base_median_s;
        println!(
            "nqueens {}: base {} {base_median_s:.3} s, current {current_median_s:.3} s, \
             current / base = {ratio:.3} (medians of {} runs{})",
            self.args.join(" "),
            &commit[..12],
            self.runs,
            kernel.as_ref().map(|k| format!(", kernel {k}")).unwrap_or_default(),
        );
        let path = project_root().join("results/compare.json");
        let mut all: Comparisons =
            if path.exists() { read_json(&path)? } else { Comparisons::default() };
        let host = Host::this();
        all.results.push(Comparison {
            timestamp: timestamp().1,
            cpu_features: host.instruction_sets.clone(),
            host,
            base_commit: commit,
            current: Build::this(),
            args: self.args.clone(),
            kernel,
            base_s,
            current_s,
            base_median_s,
            current_median_s,
            ratio,
        });
        write_json(&path, &all)?;
        println!("appended to {}", path.display());
        Ok(())
    }
}

/// The release binary of `commit`, built once in its own worktree.
fn build_at(commit: &str) -> Result<PathBuf, String> {
    let root = project_root();
    let tree = root.join("target/compare").join(commit);
    let binary = tree.join("target/release/nqueens");
    if binary.exists() {
        return Ok(binary);
    }
    if !tree.exists() {
        let tree_text = tree.to_str().ok_or("the worktree's path is not UTF-8")?;
        git(&root, &["worktree", "add", "--detach", tree_text, commit])?;
    }
    eprintln!("building the base, {commit}, in {}", tree.display());
    let status = Command::new(env!("CARGO"))
        .args(["build", "--release", "--package", "nqueens-cli"])
        .current_dir(&tree)
        // The work tree's target directory would be rebuilt back and forth between commits.
        .env_remove("CARGO_TARGET_DIR")
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("building {commit} failed"));
    }
    Ok(binary)
}

fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    let output = Command::new("git")
        .args(args)
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    Ok(String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Wall seconds of one run and what it printed; a failed run fails the comparison.
fn time(binary: &Path, args: &[String]) -> Result<(f64, String), String> {
    let started = Instant::now();
    let output = Command::new(binary)
        .args(args)
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
    let wall = started.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(format!(
            "{} {} failed: {}",
            binary.display(),
            args.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok((wall, String::from_utf8_lossy(&output.stdout).into_owned()))
}

/// The numbers after `total` and `unique` in a report, text (`total=N`) or JSON
/// (`"total":N`), which must agree between base and current.
fn counts(output: &str) -> [Option<String>; 2] {
    ["total", "unique"].map(|name| value_after(output, name))
}

/// The kernel a report names, text (`kernel=K`) or JSON (`"kernel":"K"`).
fn named_kernel(output: &str) -> Option<String> {
    value_after(output, "kernel")
}

fn value_after(output: &str, name: &str) -> Option<String> {
    let text = format!("{name}=");
    let json = format!("\"{name}\":");
    let start = output
        .find(&text)
        .map(|at| at + text.len())
        .or_else(|| output.find(&json).map(|at| at + json.len()))?;
    let value: String = output[start..]
        .trim_start_matches('"')
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric())
        .collect();
    (!value.is_empty()).then_some(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_kernel_are_read_from_text_and_json() {
        let text =
            "N=12 total=14200 unique=1787 method=join threads=2 elapsed=0.01s kernel=avx2 pairs=5";
        let json = r#"{"n":12,"kernel":"avx2","total":14200,"unique":1787}"#;
        let some = |s: &str| Some(s.to_owned());
        assert_eq!(counts(text), [some("14200"), some("1787")]);
        assert_eq!(counts(json), counts(text));
        assert_eq!(named_kernel(text), some("avx2"));
        assert_eq!(named_kernel(json), some("avx2"));
        assert_eq!(counts("N=12 total=14200 method=plain"), [some("14200"), None]);
    }
}
