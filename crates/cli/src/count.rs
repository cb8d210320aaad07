//! `nqueens count`.

use std::process::ExitCode;
use std::time::Instant;

use anyhow::Context;
use nqueens_core::{Counts, Outcome, Problem};
use serde::Serialize;

use crate::cli::CountArgs;

/// What `count --json` prints.
#[derive(Debug, Serialize)]
struct CountReport {
    n: usize,
    method: String,
    threads: usize,
    depth: usize,
    tasks: usize,
    total: u128,
    unique: u128,
    elapsed_s: f64,
}

pub(crate) fn run(args: CountArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let problem = Problem::new(args.n, args.method)?;
    let threads = args.threads.map_or(1, |t| t.get());
    let depth = 0;
    let tasks = problem.tasks(depth)?;
    let counts = nqueens_scheduler::run_sequential(
        &tasks,
        |task| problem.solve(task, false),
        |a, b| a.merge(b),
        Counts::default(),
    )
    .context("count failed")?;
    let Outcome { total, unique } = problem.finish(&counts)?;
    let report = CountReport {
        n: problem.n(),
        method: problem.method().to_string(),
        threads,
        depth,
        tasks: tasks.len(),
        total,
        unique,
        elapsed_s: started.elapsed().as_secs_f64(),
    };
    if args.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        println!(
            "N={} total={} unique={} method={} threads={} elapsed={:.3}s",
            report.n, report.total, report.unique, report.method, report.threads, report.elapsed_s
        );
    }
    Ok(ExitCode::SUCCESS)
}
