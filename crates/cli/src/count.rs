//! `nqueens count`: a run of the backtracking tasks on the scheduler.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, bail};
use nqueens_core::{Counts, ENGINE_VERSION, Method, Placement, Problem, Task};
use nqueens_scheduler::{Finish, Identity, Runner, Shard, fnv1a};

use crate::cli::{CountArgs, MethodChoice};
use crate::memory;
use crate::progress::Display;
use crate::report::{CountReport, NodeStats, ShardInfo, one_based};

/// Tasks per worker thread the automatic split aims for: enough that a slow task near the
/// end does not leave the other threads idle for long.
pub(crate) const TASKS_PER_THREAD: usize = 64;

/// Threads per machine assumed when splitting a sharded or checkpointed run, whose depth
/// must not depend on any one machine's thread count: all shards must share one task
/// list, and a resume may run with other threads than the run it continues.
pub(crate) const SHARD_THREADS: usize = 16;

/// Exit status of a run stopped by SIGINT or SIGTERM, as shells report a SIGINT death.
pub(crate) const STOPPED: u8 = 130;

pub(crate) fn run(args: CountArgs) -> anyhow::Result<ExitCode> {
    let problem = if args.place.is_empty() {
        let method = match args.method {
            MethodChoice::Exactly(method) => method,
            MethodChoice::Auto => Method::fastest(args.n),
        };
        Problem::new(args.n, method)?
    } else {
        let method = match args.method {
            MethodChoice::Exactly(method) => method,
            MethodChoice::Auto => Method::Plain,
        };
        Problem::new(args.n, method)?.with_placement(&args.place)?
    }
    .with_kernel(args.kernel)?;
    let threads = match args.threads {
        Some(threads) => threads.get(),
        None => std::thread::available_parallelism().map_or(1, |t| t.get()),
    };
    check_memory(&problem, threads, args.max_memory)?;
    if args.mpi {
        return crate::mpi::run(args, problem, threads);
    }
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let depth = match args.depth {
        Some(depth) => depth,
        None if shard == Shard::WHOLE && args.checkpoint.is_none() => {
            problem.depth_for(TASKS_PER_THREAD * threads)?
        }
        None => problem.depth_for(TASKS_PER_THREAD * SHARD_THREADS * shard.count)?,
    };
    let tasks = problem.tasks(depth)?;
    let task_count = tasks.len();
    let task_digest = digest(&tasks, problem.placement());
    if !(args.checkpoint_every.is_finite() && args.checkpoint_every > 0.0) {
        bail!("--checkpoint-every must be a positive number of seconds");
    }

    let stop = stop_on_signals()?;
    let count_nodes = args.stats;
    let mut runner = Runner::new(
        tasks,
        move |task: &Task| problem.solve(task, count_nodes),
        |a: &Counts, b: &Counts| a.merge(b),
        Counts::default(),
    )
    .threads(threads)
    .shard(shard)
    .stop_flag(stop);
    if let Some(path) = &args.checkpoint {
        let mut identity = Identity::from([
            ("n".to_owned(), problem.n().to_string()),
            ("method".to_owned(), problem.method().to_string()),
            ("depth".to_owned(), depth.to_string()),
            ("shard".to_owned(), shard.to_string()),
            ("engine_version".to_owned(), ENGINE_VERSION.to_owned()),
            ("task_digest".to_owned(), task_digest.clone()),
        ]);
        // Only when there is one, so that checkpoints written before placements existed
        // still resume.
        if let Some(placement) = problem.placement() {
            identity.insert("placement".to_owned(), placement.to_string());
        }
        if args.stats {
            // Node counts of a run that did not count them cannot be finished by one that does.
            identity.insert("stats".to_owned(), "nodes counted".to_owned());
        }
        runner = runner.checkpoint(path, Duration::from_secs_f64(args.checkpoint_every), identity);
    }

    let mut display = Display::new(args.progress);
    let outcome = runner.run(|progress| display.update(progress));
    display.finish();
    let report = outcome.context("count failed")?;

    if report.finish == Finish::Stopped {
        eprintln!(
            "nqueens: stopped after {} of {} tasks ({:.1}s); {}",
            report.done,
            report.total,
            report.elapsed.as_secs_f64(),
            resume_hint(args.checkpoint.as_deref())
        );
        return Ok(ExitCode::from(STOPPED));
    }
    let counts = report.result;
    let unique = if shard == Shard::WHOLE { problem.finish(&counts)?.unique } else { None };
    CountReport {
        n: problem.n(),
        method: problem.method().to_string(),
        kernel: problem.kernel().map(|k| k.to_string()),
        placement: problem.placement().map(one_based),
        threads,
        depth,
        tasks: task_count,
        total: counts.total,
        unique,
        elapsed_s: report.elapsed.as_secs_f64(),
        engine_version: ENGINE_VERSION.to_owned(),
        task_digest,
        shard: (shard != Shard::WHOLE)
            .then_some(ShardInfo { index: shard.index, count: shard.count }),
        stats: args.stats.then(|| {
            NodeStats::new(counts.nodes, report.elapsed, threads, memory::peak_resident_bytes())
        }),
        counts,
    }
    .print(args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Share of the machine's memory a count may plan to use when `--max-memory` is not given.
const DEFAULT_MEMORY_SHARE: f64 = 0.75;

/// Refuses a count whose method needs more memory, with this many threads, than allowed.
fn check_memory(problem: &Problem, threads: usize, max_memory: Option<u64>) -> anyhow::Result<()> {
    let (limit, source) = match max_memory {
        Some(limit) => (limit, "--max-memory"),
        None => match memory::machine_bytes() {
            Some(machine) => {
                ((machine as f64 * DEFAULT_MEMORY_SHARE) as u64, "3/4 of this machine")
            }
            None => return Ok(()),
        },
    };
    let per_thread_limit = limit / threads as u64;
    let Some(per_thread) = problem.bytes_per_thread(per_thread_limit)? else { return Ok(()) };
    if per_thread > per_thread_limit {
        // The probe stops once past the limit, so its figure is a lower bound.
        bail!(
            "N = {} with the {} method needs at least {} per thread, {} for {threads} threads, \
             more than the {} allowed ({source}); use fewer --threads, raise --max-memory, or \
             --method eightfold",
            problem.n(),
            problem.method(),
            memory::human(per_thread),
            memory::human(per_thread.saturating_mul(threads as u64)),
            memory::human(limit),
        );
    }
    Ok(())
}

fn resume_hint(checkpoint: Option<&Path>) -> String {
    match checkpoint {
        Some(path) => {
            format!("progress saved to {}; run the same command again to resume", path.display())
        }
        None => "no --checkpoint was given, so this progress is lost".to_owned(),
    }
}

/// A hash of every task's prefix, in order, and of the placed queens: equal digests mean
/// equal task lists. Shallow tasks of different placements can have the same prefixes,
/// so the placement is hashed too; without one the digest is what it always was.
pub(crate) fn digest(tasks: &[Task], placement: Option<&Placement>) -> String {
    let mut bytes = Vec::new();
    for task in tasks {
        bytes.push(task.prefix().len() as u8);
        bytes.extend_from_slice(task.prefix());
    }
    if let Some(placement) = placement {
        bytes.extend_from_slice(format!("placement {placement}").as_bytes());
    }
    format!("{:016x}", fnv1a(&bytes))
}

/// A flag raised by the first SIGINT or SIGTERM; a second one ends the process at once.
fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        // Registered first, so it sees the flag as the previous signal left it.
        signal_hook::flag::register_conditional_shutdown(
            signal,
            i32::from(STOPPED),
            Arc::clone(&stop),
        )
        .context("cannot install a signal handler")?;
        signal_hook::flag::register(signal, Arc::clone(&stop))
            .context("cannot install a signal handler")?;
    }
    Ok(stop)
}
