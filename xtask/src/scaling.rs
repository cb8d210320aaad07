//! `cargo xtask scaling`: wall time of one count at 1..=T threads, alternating runs so that
//! machine drift hits every thread count alike, with medians and speedup over 1 thread.

use std::process::Command;
use std::time::Instant;

pub(crate) struct Scaling {
    pub(crate) n: usize,
    pub(crate) method: String,
    pub(crate) threads: Vec<usize>,
    pub(crate) runs: usize,
}

impl Scaling {
    pub(crate) fn run(&self) -> Result<(), String> {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--release", "--package", "nqueens-cli"])
            .status()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        if !status.success() {
            return Err("cargo build --release failed".into());
        }
        let binary = crate::project_root().join("target/release/nqueens");
        let mut times = vec![Vec::new(); self.threads.len()];
        for _ in 0..self.runs {
            for (slot, threads) in self.threads.iter().enumerate() {
                let started = Instant::now();
                let output = Command::new(&binary)
                    .args(["count", &self.n.to_string(), "--method", &self.method])
                    .args(["--threads", &threads.to_string(), "--progress", "never"])
                    .output()
                    .map_err(|e| format!("cannot run {}: {e}", binary.display()))?;
                if !output.status.success() {
                    return Err(format!(
                        "nqueens failed: {}",
                        String::from_utf8_lossy(&output.stderr)
                    ));
                }
                times[slot].push(started.elapsed().as_secs_f64());
            }
        }
        println!("N={} method={} runs={} (median wall seconds)", self.n, self.method, self.runs);
        let base = median(&mut times[0].clone());
        for (threads, runs) in self.threads.iter().zip(&mut times) {
            let all: Vec<String> = runs.iter().map(|t| format!("{t:.3}")).collect();
            let median = median(runs);
            let speedup = base / median;
            let efficiency = speedup / *threads as f64 * self.threads[0] as f64;
            println!(
                "threads {threads:>2}: {median:8.3} s  speedup {speedup:5.3}  efficiency {efficiency:5.3}  runs [{}]",
                all.join(", ")
            );
        }
        Ok(())
    }
}

fn median(values: &mut [f64]) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}
