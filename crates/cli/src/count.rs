//! `nqueens count`: a run of the count's tasks on the scheduler.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use anyhow::{Context, bail};
use nqueens_core::{Counts, MIN_JOIN_MEMORY, Problem, Task};
use nqueens_scheduler::{Finish, Runner, Shard};

use crate::cli::CountArgs;
use crate::host::Host;
use crate::memory;
use crate::progress::Display;
use crate::report::{CountReport, Finished, NodeStats, ShardInfo};
use crate::spec::{self, RunSpec, Sharing};

/// Exit status of a run stopped by SIGINT or SIGTERM, as shells report a SIGINT death.
pub(crate) const STOPPED: u8 = 130;

pub(crate) fn run(args: CountArgs) -> anyhow::Result<ExitCode> {
    let threads = spec::threads(args.threads)?;
    let problem = check_memory(spec::problem(&args)?, threads, args.max_memory)?;
    if args.mpi {
        return crate::mpi::run(&args, problem, threads);
    }
    let checkpoint_every = Duration::try_from_secs_f64(args.checkpoint_every)
        .ok()
        .filter(|every| !every.is_zero())
        .context("--checkpoint-every must be a positive number of seconds")?;
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let sharing = if shard == Shard::WHOLE && args.checkpoint.is_none() {
        Sharing::Alone { threads }
    } else {
        Sharing::Shared { processes: shard.count }
    };
    let RunSpec { problem, tasks, identity } = RunSpec::new(problem, args.depth, sharing)?;

    let stop = stop_on_signals()?;
    let count_nodes = args.stats;
    let solver = problem.clone();
    let mut runner = Runner::new(
        tasks,
        move |task: &Task| solver.solve(task, count_nodes),
        |a: &Counts, b: &Counts| a.merge(b),
        Counts::default(),
    )
    .threads(threads)
    .shard(shard)
    .sample_first(true)
    .stop_flag(stop);
    if let Some(path) = &args.checkpoint {
        let mut fields = identity.fields();
        fields.insert("shard".to_owned(), shard.to_string());
        if args.stats {
            // Node counts of a run that did not count them cannot be finished by one that does.
            fields.insert("stats".to_owned(), "nodes counted".to_owned());
        }
        runner = runner.checkpoint(path, checkpoint_every, fields);
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
    let whole = shard == Shard::WHOLE;
    let finished = Finished {
        kernel: Some(problem.kernel()),
        threads,
        counts,
        unique: if whole { problem.finish(&counts)?.unique } else { None },
        elapsed_s: report.elapsed.as_secs_f64(),
        shard: (!whole).then_some(ShardInfo { index: shard.index, count: shard.count }),
        stats: args
            .stats
            .then(|| NodeStats::of_this_process(counts.nodes, report.elapsed, threads)),
        host: Some(Host::this()),
    };
    CountReport::new(identity, finished).print(args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// Share of the machine's memory a count may plan to use when `--max-memory` is not given.
const DEFAULT_MEMORY_SHARE: f64 = 0.75;

/// The problem with its memory per thread set to the limit over the threads, where the
/// method can count in any room (the join, from [`MIN_JOIN_MEMORY`]): to `--max-memory`'s
/// share when given, else at most the default; or an error for a count that still needs
/// more, with this many threads, than allowed.
pub(crate) fn check_memory(
    problem: Problem,
    threads: usize,
    max_memory: Option<u64>,
) -> anyhow::Result<Problem> {
    let (limit, source) = match max_memory {
        Some(limit) => (limit, "--max-memory"),
        None => match memory::machine_bytes() {
            Some(machine) => {
                ((machine as f64 * DEFAULT_MEMORY_SHARE) as u64, "3/4 of this machine")
            }
            None => return Ok(problem),
        },
    };
    let per_thread_limit = limit / threads as u64;
    // A limit given sets the room, above the default too; the machine's only lowers it.
    let budget = match max_memory {
        Some(_) => per_thread_limit,
        None => per_thread_limit.min(problem.memory_per_thread()),
    };
    let problem = if budget >= MIN_JOIN_MEMORY && budget != problem.memory_per_thread() {
        problem.with_memory_per_thread(budget)?
    } else {
        problem
    };
    let Some(mut per_thread) = problem.bytes_per_thread(per_thread_limit)? else {
        return Ok(problem);
    };
    if per_thread > per_thread_limit {
        if per_thread_limit < MIN_JOIN_MEMORY {
            // The probe stopped at the limit; the least that does is the whole row set or
            // the smallest budget, whichever is less.
            per_thread = problem
                .bytes_per_thread(MIN_JOIN_MEMORY)?
                .map_or(per_thread, |need| need.min(MIN_JOIN_MEMORY));
        }
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
    if per_thread == problem.memory_per_thread() {
        eprintln!(
            "nqueens: note: N = {} may hold more half-boards than fit in {} per thread; its \
             largest row sets are then counted in pieces (slower; --max-memory sets the room)",
            problem.n(),
            memory::human(per_thread),
        );
    }
    Ok(problem)
}

fn resume_hint(checkpoint: Option<&Path>) -> String {
    match checkpoint {
        Some(path) => {
            format!("progress saved to {}; run the same command again to resume", path.display())
        }
        None => "no --checkpoint was given, so this progress is lost".to_owned(),
    }
}

/// A flag raised by the first SIGINT or SIGTERM; a second one ends the process at once.
pub(crate) fn stop_on_signals() -> anyhow::Result<Arc<AtomicBool>> {
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
