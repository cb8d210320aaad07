//! `nqueens count`: a run of the count's tasks on the scheduler.

use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use nqueens_core::{ENGINE_IDENTITY, Error as EngineError, MemoryLimit, MemoryPlan, Problem, Task};
use nqueens_plan::Sharing;
use nqueens_scheduler::{
    CheckpointError, CheckpointLock, Finish, Identity, RunError, Runner, Shard,
};

use crate::audit::{Audit, Tally};
use crate::cli::{CountArgs, MethodChoice};
use crate::exit::{self, usage};
use crate::host::Host;
use crate::memory;
use crate::output::say;
use crate::progress::{Display, grouped};
use crate::provenance::{Build, engines_differ};
use crate::report::{CountReport, Finished, NodeStats, SessionReport, ShardInfo};
use crate::signals::Signals;
use crate::spec::{self, RunIdentity, RunSpec};
use crate::unique;

pub(crate) fn run(args: CountArgs) -> anyhow::Result<ExitCode> {
    // First, so that a signal in any phase is seen: the set-up below takes a moment from
    // N = 24, and a signal then stops the run before its first task. Under MPI a signal
    // keeps its default action, ending the rank: mpirun then ends the job, and a run over
    // MPI has no checkpoint to save.
    let signals = (!args.mpi).then(Signals::install).transpose()?;
    let threads = spec::threads(args.board.workers.threads)?;
    let plan = check_memory(spec::problem(&args)?, threads, args.board.max_memory, 0)?;
    let pieces_note = pieces_note(&plan);
    let problem = plan.problem;
    let Some(signals) = signals else {
        if let Some(note) = pieces_note {
            say!("{note}");
        }
        return crate::mpi::run(&args, problem, threads);
    };
    let shard = args.shard.unwrap_or(Shard::WHOLE);
    let sharing = if shard == Shard::WHOLE && args.checkpoint.is_none() {
        Sharing::Alone { threads }
    } else {
        Sharing::Shared { processes: shard.count }
    };
    let RunSpec { problem, tasks, identity } = RunSpec::new(problem, args.depth, sharing)?;
    if let Some(note) = pieces_note {
        say!("{note}");
    }
    if !args.task.is_empty() {
        return count_tasks(&args, &problem, &tasks, identity, threads, &signals);
    }
    // Taken once the command line has been checked (a usage error is said as one), before
    // any work, and held until the result is printed: a second run on the checkpoint is
    // refused before it counts anything.
    let lock = args.checkpoint.as_deref().map(CheckpointLock::acquire).transpose()?.map(Arc::new);
    if let Some(unenforced) = lock.as_deref().and_then(CheckpointLock::unenforced) {
        say!("warning: {unenforced}");
    }

    let audit = args.audit.map(|share| Audit::choose(share, args.audit_seed, shard, tasks.len()));
    let count_nodes = args.stats;
    let solver = problem.clone();
    let keeper = audit.clone();
    // A shard keeps every task's result, so that two runs of it can be compared task by
    // task (`merge --compare`).
    let keep_every = shard != Shard::WHOLE;
    let indexed: Vec<(usize, Task)> = tasks.iter().cloned().enumerate().collect();
    let mut runner = Runner::new(
        indexed,
        move |(index, task): &(usize, Task)| {
            let counts = solver.solve(task, count_nodes)?;
            let keep = keep_every || keeper.as_ref().is_some_and(|audit| audit.contains(*index));
            Ok(Tally::of_task(counts, *index, keep))
        },
        Tally::merge,
        Tally::default(),
    )
    .threads(threads)
    .shard(shard)
    .sample_first(true)
    .stop_flag(signals.flag())
    .session(SessionReport::about(problem.kernel(), threads));
    let mut fields = identity.fields();
    if let Some(lock) = &lock {
        fields.insert("shard".to_owned(), shard.to_string());
        if args.stats {
            // Node counts of a run that did not count them cannot be finished by one that does.
            fields.insert("stats".to_owned(), "nodes counted".to_owned());
        }
        if let Some(audit) = &audit {
            // Only the tasks of the same audit keep their results.
            fields.insert("audit".to_owned(), audit.identity());
        }
        runner = runner.checkpoint(Arc::clone(lock), args.checkpoint_every, fields.clone());
    }

    let mut display = Display::new(args.board.progress());
    let outcome = runner.run(|progress| display.update(progress));
    display.finish();
    // What the program chose rather than the user: where it differs, it follows from what
    // the user changed.
    let chosen: Vec<&str> = [
        matches!(args.board.method, MethodChoice::Auto).then_some("method"),
        args.depth.is_none().then_some("depth"),
    ]
    .into_iter()
    .flatten()
    .collect();
    let report =
        outcome.map_err(|error| refusal(error, &fields, &chosen)).context("count failed")?;
    let saved = Saved { path: args.checkpoint.as_deref(), failure: report.checkpoint_failure };

    if report.finish == Finish::Stopped {
        say!(
            "stopped after {} of {} tasks ({:.1}s); {}",
            grouped(report.done as u128),
            grouped(report.total as u128),
            report.elapsed.as_secs_f64(),
            saved.resume_hint()
        );
        return Ok(signals.exit_code());
    }
    let Tally { counts, by_task } = report.result;
    let audited = match &audit {
        Some(audit) => match audit.check(
            &problem,
            &tasks,
            &by_task,
            threads,
            &signals,
            args.board.progress(),
        )? {
            Some(audited) => Some(audited),
            None => {
                say!(
                    "stopped while auditing, after every task had finished: N={} total={} \
                     (not audited); {}",
                    problem.n(),
                    counts.total,
                    saved.resume_hint()
                );
                return Ok(signals.exit_code());
            }
        },
        None => None,
    };
    let whole = shard == Shard::WHOLE;
    let unique = if whole {
        // The rotation-fixed counts take seconds from N = 24 and minutes near N = 28: they
        // run on every thread, and a signal stops them.
        let finished = unique::finish(&problem, &counts, threads, signals.flag());
        match finished.map_err(|error| distrust(error, args.checkpoint.as_deref()))? {
            Some(outcome) => outcome.unique,
            None => {
                say!(
                    "stopped while counting the solutions that rotations leave unchanged, \
                     after every task had finished: N={} total={}; {}",
                    problem.n(),
                    counts.total,
                    saved.resume_hint()
                );
                return Ok(signals.exit_code());
            }
        }
    } else {
        None
    };
    let (kernel, ran_threads, sessions) = SessionReport::what_ran(&report.sessions);
    let finished = Finished {
        kernel,
        threads: ran_threads,
        resumed: sessions.is_some(),
        sessions,
        shard_builds: None,
        counts,
        unique,
        elapsed_s: report.elapsed.as_secs_f64(),
        shard: (!whole).then_some(ShardInfo { index: shard.index, count: shard.count }),
        stats: None,
        host: Some(Host::this()),
        audit: audited,
        by_task: (!whole).then_some(by_task),
    };
    let mut result = CountReport::new(identity, finished);
    if args.stats {
        let thread_seconds = result.thread_seconds();
        result.stats =
            Some(NodeStats::of_this_process(counts.nodes, problem.work_unit(), thread_seconds));
    }
    let printed = result.print(args.json);
    if !args.place.is_empty() && !args.json {
        say!("note: no unique count: a board with queens placed in advance has no symmetry");
    }
    if !whole && !args.json {
        say!(
            "note: a shard's total is partial: merge the shards' --json output with nqueens merge"
        );
    }
    if let Some(sessions) = &result.sessions {
        note_other_builds(sessions);
    }
    if let (Some(path), Some(failure)) = (saved.path, &saved.failure) {
        say!(
            "checkpoint {} is stale: its last save failed ({}); the count is complete all the same",
            path.display(),
            failure_cause(failure)
        );
        printed?;
        return Ok(ExitCode::from(exit::FAILURE));
    }
    printed?;
    Ok(ExitCode::SUCCESS)
}

/// The error of a run refused for its checkpoint: one of another engine told as such, and
/// one of another run (`ours` is this run's identity) with the fields a user sets first.
fn refusal(error: RunError<EngineError>, ours: &Identity, chosen: &[&str]) -> anyhow::Error {
    let RunError::Checkpoint(CheckpointError::Mismatch { path, saved, sessions, .. }) = &error
    else {
        return error.into();
    };
    let theirs = saved.get("engine").map(String::as_str);
    if theirs == Some(ENGINE_IDENTITY) {
        return match differences(saved, ours, chosen) {
            Some(differences) => usage!(
                "checkpoint {} belongs to a different run: {differences}; use another file or \
                 the same options",
                path.display()
            ),
            None => error.into(),
        };
    }
    let builds = Build::distinct(sessions.iter().map(|session| SessionReport::of(session).build));
    let path = path.display();
    let finish = match theirs {
        Some(engine) => format!("a build of engine {engine}"),
        None => "the build that started it".to_owned(),
    };
    usage!(
        "{}",
        engines_differ(
            &format!("checkpoint {path}"),
            theirs,
            &format!("this build's engine {ENGINE_IDENTITY}"),
            &builds,
            &format!(
                "finish that run with {finish}, or count again from the start with this one \
                 and another --checkpoint file ({path} was left untouched)"
            ),
        )
    )
}

/// The fields of a checkpoint's identity that a user sets, in the order a user thinks of
/// them; the others (an automatic depth, the task list's digest) follow from these.
const SET_BY_USER: [&str; 8] =
    ["n", "method", "placement", "symmetric", "shard", "audit", "stats", "depth"];

/// How `saved` differs from `ours`: each field the user set in full, then the fields that
/// follow from them (the task list's digest, and the `chosen` ones the program picked:
/// an automatic method or depth); `None` if the identities agree.
fn differences(saved: &Identity, ours: &Identity, chosen: &[&str]) -> Option<String> {
    let show = |value: Option<&String>| value.map_or("absent".to_owned(), |v| format!("'{v}'"));
    let said = |name: &&str| {
        format!("{name} is {} there but {} here", show(saved.get(*name)), show(ours.get(*name)))
    };
    let names: std::collections::BTreeSet<&String> = saved.keys().chain(ours.keys()).collect();
    let differing: Vec<&str> = names
        .into_iter()
        .filter(|name| saved.get(*name) != ours.get(*name))
        .map(String::as_str)
        .collect();
    let set_by_user = |name: &str| {
        SET_BY_USER.iter().position(|set| *set == name).filter(|_| !chosen.contains(&name))
    };
    let (mut set, derived): (Vec<&str>, Vec<&str>) =
        differing.iter().partition(|name| set_by_user(name).is_some());
    set.sort_by_key(|name| set_by_user(name));
    match (set.is_empty(), derived.is_empty()) {
        (true, true) => None,
        (false, true) => Some(set.iter().map(said).collect::<Vec<_>>().join(", ")),
        (false, false) => Some(format!(
            "{} (and so its {})",
            set.iter().map(said).collect::<Vec<_>>().join(", "),
            derived.join(", ")
        )),
        (true, false) => Some(derived.iter().map(said).collect::<Vec<_>>().join(", ")),
    }
}

/// A finished count whose results do not hold together (the Burnside sum is not a multiple
/// of 8, thirds of a solution are left over): said as what it means, since the total
/// cannot be trusted and is not printed.
fn distrust(error: anyhow::Error, checkpoint: Option<&Path>) -> anyhow::Error {
    let Some(EngineError::Inconsistent(what)) = error.downcast_ref::<EngineError>() else {
        return error;
    };
    let suspect = match checkpoint {
        Some(path) => format!(
            "a damaged or mixed checkpoint ({}: a file edited, or resumed by a build that \
             counts differently) or a bug; count again with a new checkpoint file",
            path.display()
        ),
        None => "a bug in the engine, since no checkpoint was resumed; please report it with \
                 this command line"
            .to_owned(),
    };
    anyhow::anyhow!(
        "the count's task results do not add up ({what}), so the total cannot be trusted and \
         was not printed; the likely cause is {suspect}"
    )
}

/// Notes on stderr that a resumed count's tasks were counted by several builds (of this
/// engine, or the checkpoint would have been refused), naming their commits.
fn note_other_builds(sessions: &[SessionReport]) {
    let builds: Vec<String> = Build::distinct(sessions.iter().map(|session| session.build.clone()))
        .iter()
        .map(Build::text)
        .collect();
    if builds.len() > 1 {
        say!(
            "note: this count's tasks were counted by builds of {} commits of engine {}: {}",
            builds.len(),
            ENGINE_IDENTITY,
            builds.join(", ")
        );
    }
}

/// `count --task I,...`: the chosen tasks of the list alone, each one's count kept, for
/// `merge --compare` to hold against the run that named them.
fn count_tasks(
    args: &CountArgs,
    problem: &Problem,
    tasks: &[Task],
    identity: RunIdentity,
    threads: usize,
    signals: &Signals,
) -> anyhow::Result<ExitCode> {
    let chosen: std::collections::BTreeSet<usize> = args.task.iter().copied().collect();
    if let Some(&outside) = chosen.iter().find(|&&index| index >= tasks.len()) {
        return Err(usage!(
            "--task {outside} is not in this list of {} tasks (0 to {}); give the options of \
             the run that named it, its --depth and --shard among them",
            tasks.len(),
            tasks.len() - 1
        ));
    }
    let indexed: Vec<(usize, Task)> =
        chosen.iter().map(|&index| (index, tasks[index].clone())).collect();
    let solver = problem.clone();
    let mut display = Display::new(args.board.progress());
    let outcome = Runner::new(
        indexed,
        move |(index, task): &(usize, Task)| {
            Ok(Tally::of_task(solver.solve(task, false)?, *index, true))
        },
        Tally::merge,
        Tally::default(),
    )
    .threads(threads)
    .stop_flag(signals.flag())
    .run(|progress| display.update(progress));
    display.finish();
    let report = outcome.context("count failed")?;
    if report.finish == Finish::Stopped {
        say!(
            "stopped after {} of {} tasks; no --task result is kept",
            grouped(report.done as u128),
            grouped(report.total as u128)
        );
        return Ok(signals.exit_code());
    }
    let Tally { counts, by_task } = report.result;
    let finished = Finished {
        kernel: Some(problem.kernel()),
        threads: Some(threads),
        sessions: None,
        resumed: false,
        shard_builds: None,
        counts,
        unique: None,
        elapsed_s: report.elapsed.as_secs_f64(),
        shard: None,
        stats: None,
        host: Some(Host::this()),
        audit: None,
        by_task: Some(by_task),
    };
    let mut result = CountReport::new(identity, finished);
    result.tasks_counted = Some(chosen.into_iter().collect());
    result.print(args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// What became of a run's checkpoint.
struct Saved<'a> {
    path: Option<&'a Path>,
    /// Why its last save failed, if it did.
    failure: Option<CheckpointError>,
}

impl Saved<'_> {
    /// How a stopped run can go on.
    fn resume_hint(&self) -> String {
        match (self.path, &self.failure) {
            (Some(path), None) => format!(
                "progress saved to {}; run the same command again to resume",
                path.display()
            ),
            (Some(_), Some(failure)) => format!(
                "the checkpoint could not be saved ({}), so the progress since its last save \
                 is lost",
                failure_cause(failure)
            ),
            (None, _) => "no --checkpoint was given, so this progress is lost".to_owned(),
        }
    }
}

/// Why a checkpoint save failed, without the path, which the message around it names.
fn failure_cause(failure: &CheckpointError) -> String {
    match failure {
        CheckpointError::Io { source, .. } => source.to_string(),
        other => other.to_string(),
    }
}

/// Share of the machine's memory a count may plan to use when `--max-memory` is not given.
const DEFAULT_MEMORY_SHARE: f64 = 0.75;

/// What the thread that starts a count holds past what it held before the memory check,
/// set aside from a memory limit: the allocator's heap after the check's probe, handed
/// back where it can be ([`memory::hand_back_freed`]). At N = 28 a count's heap was 32 MiB
/// at its peak, before the hand-back (docs/measurements/memory.md).
const STARTER_RESERVE: u64 = 32 << 20;

/// What each worker thread holds outside the room the join counts for its lists, set
/// aside from a memory limit: its stack, and the allocator's heap for its small lists and
/// the pair count's bounds of buckets, which the join counts in its lists' room while its
/// arena of pages may fill that room too. At N = 28, counted in pieces in the default
/// budget, the workers' heaps held 7 to 13 MiB each (docs/measurements/memory.md).
const THREAD_RESERVE: u64 = 16 << 20;

/// The problem fitted to the memory limit over the threads, which share what the engine
/// builds once, with what it needs per thread where that was measured: `--max-memory`'s
/// share when given, else at most 3/4 of the machine's; or a usage error for a count that
/// still needs more, with this many threads, than allowed. A limit bounds the whole
/// process: the join's room is what is left of it once the process's own memory, what each
/// thread holds besides its lists, and `set_aside` (what the command itself will hold, such
/// as an estimate's draws) are taken out.
pub(crate) fn check_memory(
    problem: Problem,
    threads: usize,
    max_memory: Option<u64>,
    set_aside: u64,
) -> anyhow::Result<MemoryPlan> {
    let problem = problem.with_threads(threads)?;
    if let (Some(limit), Some(machine)) = (max_memory, memory::machine_bytes())
        && limit > machine
    {
        return Err(usage!(
            "--max-memory {} is more than this machine's {}",
            memory::human(limit),
            memory::human(machine)
        ));
    }
    if problem.min_memory_per_thread().is_none() {
        if max_memory.is_some() {
            say!(
                "note: the {} method needs only a board per thread, so --max-memory changes \
                 nothing",
                problem.method()
            );
        }
        return Ok(MemoryPlan { problem, per_thread: None, in_pieces: false });
    }
    let (limit, source) = match max_memory {
        Some(limit) => (limit, "--max-memory"),
        None => match memory::machine_bytes() {
            Some(machine) => {
                ((machine as f64 * DEFAULT_MEMORY_SHARE) as u64, "3/4 of this machine")
            }
            None => return Ok(MemoryPlan { problem, per_thread: None, in_pieces: false }),
        },
    };
    let reserve = memory::resident_bytes().unwrap_or(0)
        + STARTER_RESERVE
        + THREAD_RESERVE * threads as u64
        + set_aside;
    let room = limit.saturating_sub(reserve);
    let per_thread = room / threads as u64;
    let asked = match max_memory {
        Some(_) => MemoryLimit::Asked(per_thread),
        None => MemoryLimit::AtMost(per_thread),
    };
    let fitted = problem.fit_memory(asked);
    memory::hand_back_freed();
    let plan = match fitted {
        Err(nqueens_core::Error::MemoryLimit { method, n, needs, .. }) => {
            return Err(usage!(
                "N = {n} with the {method} method needs at least {} per thread, {} for \
                 {threads} threads with the process's own {}, more than the {} allowed \
                 ({source}); use fewer --threads, raise --max-memory, or a --method whose \
                 memory does not grow with N",
                memory::human(needs),
                memory::human(needs.saturating_mul(threads as u64) + reserve),
                memory::human(reserve),
                memory::human(limit),
            ));
        }
        plan => plan?,
    };
    Ok(plan)
}

/// The note that the largest tasks may be counted in pieces, where `plan` says so: said
/// once the rest of the command line has been checked, so that a usage error stays one
/// line.
pub(crate) fn pieces_note(plan: &MemoryPlan) -> Option<String> {
    let per_thread = plan.per_thread.filter(|_| plan.in_pieces)?;
    Some(format!(
        "note: N = {} may need more than {} per thread; its largest tasks are then counted \
         in pieces (slower; --max-memory sets the room)",
        plan.problem.n(),
        memory::human(per_thread),
    ))
}
