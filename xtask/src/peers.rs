//! `cargo xtask peers`: the backtracking methods against the C reference counters, timed
//! in one run.
//!
//! `compare.sh` (beside the peers) times one project command against `eightfold.c` and
//! `seed_bitmask.c half`; this times every backtracking method and both kernels against
//! every reference, including the plain `seed_bitmask.c` without mirror halving, in turns
//! (A B C ... A B C ...) so that a machine's drift hits all of them alike.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use serde::Serialize;

use crate::host::{Build, Host, timestamp};
use crate::measure::{self, Stats};

pub(crate) struct Peers {
    /// The folder holding `seed_bitmask.c` and `eightfold.c`.
    pub(crate) dir: PathBuf,
    pub(crate) n: usize,
    pub(crate) runs: usize,
    pub(crate) out: PathBuf,
}

/// One contender: a reference program or a project method on one kernel, one thread.
struct Contender {
    name: String,
    command: Vec<String>,
}

#[derive(Serialize)]
struct Comparison {
    timestamp_utc: String,
    build: Build,
    host: Host,
    n: usize,
    runs: usize,
    /// Median wall seconds and every run, per contender.
    results: Vec<Timing>,
    /// Project over reference, of the medians.
    ratios: Vec<Ratio>,
}

#[derive(Serialize)]
struct Timing {
    name: String,
    /// The kernel a project method ran, as it printed it; absent for the references.
    #[serde(skip_serializing_if = "Option::is_none")]
    kernel: Option<String>,
    wall_s: Vec<f64>,
    wall: Stats,
}

#[derive(Serialize)]
struct Ratio {
    project: String,
    reference: String,
    ratio: f64,
}

/// Which project method is measured against which reference.
const PAIRS: [(&str, &str); 9] = [
    ("plain", "seed_bitmask"),
    ("plain/avx2", "seed_bitmask"),
    ("plain/scalar", "seed_bitmask"),
    ("half", "seed_bitmask half"),
    ("half/avx2", "seed_bitmask half"),
    ("half/scalar", "seed_bitmask half"),
    ("eightfold", "eightfold.c"),
    ("eightfold/avx2", "eightfold.c"),
    ("eightfold/scalar", "eightfold.c"),
];

impl Peers {
    pub(crate) fn run(&self) -> Result<(), String> {
        let binary = measure::build_release()?;
        let work = std::env::temp_dir().join(format!("nqueens-peers-{}", std::process::id()));
        std::fs::create_dir_all(&work)
            .map_err(|e| format!("cannot create {}: {e}", work.display()))?;
        let seed = compile(&self.dir.join("seed_bitmask.c"), &work)?;
        let eightfold = compile(&self.dir.join("eightfold.c"), &work)?;
        let n = self.n.to_string();
        let path = |p: &Path| p.display().to_string();
        let mut contenders = vec![
            Contender { name: "seed_bitmask".into(), command: vec![path(&seed), n.clone()] },
            Contender {
                name: "seed_bitmask half".into(),
                command: vec![path(&seed), n.clone(), "half".into()],
            },
            Contender { name: "eightfold.c".into(), command: vec![path(&eightfold), n.clone()] },
        ];
        for (project, _) in PAIRS {
            let (method, kernel) = project.split_once('/').unwrap_or((project, "auto"));
            let command = [&path(&binary), "count", &n, "--method", method, "--kernel", kernel]
                .into_iter()
                .chain(["--threads", "1", "--progress", "never"])
                .map(str::to_owned)
                .collect();
            contenders.push(Contender { name: project.to_owned(), command });
        }

        let known_total =
            nqueens_test_support::listed_counts(self.n).map(|(total, _)| total.to_string());
        let mut times = vec![Vec::new(); contenders.len()];
        let mut kernels = vec![None; contenders.len()];
        for round in 0..self.runs {
            for ((contender, times), kernel) in contenders.iter().zip(&mut times).zip(&mut kernels)
            {
                eprintln!("peers: round {} of {}: {}", round + 1, self.runs, contender.name);
                let (seconds, printed) = time(&contender.command)?;
                if let Some(total) = &known_total
                    && !printed.split(|c: char| !c.is_ascii_digit()).any(|word| word == total)
                {
                    return Err(format!("{} printed {printed:?}, not {total}", contender.name));
                }
                times.push(seconds);
                *kernel = printed
                    .split_whitespace()
                    .find_map(|word| word.strip_prefix("kernel="))
                    .map(str::to_owned);
            }
        }
        let _ = std::fs::remove_dir_all(&work);

        let results: Vec<Timing> = contenders
            .iter()
            .zip(times)
            .zip(kernels)
            .map(|((c, wall_s), kernel)| Timing {
                name: c.name.clone(),
                kernel,
                wall: Stats::of(&wall_s),
                wall_s,
            })
            .collect();
        let median = |name: &str| results.iter().find(|t| t.name == name).map(|t| t.wall.median);
        let ratios: Vec<Ratio> = PAIRS
            .iter()
            .filter_map(|&(project, reference)| {
                Some(Ratio {
                    project: project.to_owned(),
                    reference: reference.to_owned(),
                    ratio: median(project)? / median(reference)?,
                })
            })
            .collect();
        println!("N = {}, one thread, median of {} runs:", self.n, self.runs);
        for timing in &results {
            println!("  {:<18} {:>9.3} s", timing.name, timing.wall.median);
        }
        for ratio in &ratios {
            println!("  {:<18} / {:<18} = {:.3}", ratio.project, ratio.reference, ratio.ratio);
        }
        let comparison = Comparison {
            timestamp_utc: timestamp().1,
            build: Build::this(),
            host: Host::this(),
            n: self.n,
            runs: self.runs,
            results,
            ratios,
        };
        crate::workspace::write_json(&self.out, &comparison)?;
        eprintln!("peers: wrote {}", self.out.display());
        Ok(())
    }
}

/// Builds a reference counter as `compare.sh` does.
fn compile(source: &Path, work: &Path) -> Result<PathBuf, String> {
    let binary = work.join(source.file_stem().unwrap_or_default());
    let status = Command::new("gcc")
        .args(["-O3", "-march=native", "-o"])
        .arg(&binary)
        .arg(source)
        .status()
        .map_err(|e| format!("cannot run gcc: {e}"))?;
    if !status.success() {
        return Err(format!("gcc failed on {}", source.display()));
    }
    Ok(binary)
}

/// Wall seconds of one run of `command`, which must succeed, and what it printed.
fn time(command: &[String]) -> Result<(f64, String), String> {
    let started = Instant::now();
    let output = Command::new(&command[0])
        .args(&command[1..])
        .output()
        .map_err(|e| format!("cannot run {}: {e}", command[0]))?;
    let seconds = started.elapsed().as_secs_f64();
    if !output.status.success() {
        return Err(format!(
            "{} failed: {}",
            command.join(" "),
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    Ok((seconds, String::from_utf8_lossy(&output.stdout).into_owned()))
}
