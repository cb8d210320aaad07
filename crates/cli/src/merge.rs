//! `nqueens merge`: the count of a run from its shards' results.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use anyhow::Context;
use nqueens_core::{Counts, ENGINE_IDENTITY, Kernel, Task};

use crate::audit::AuditReport;
use crate::cli::MergeArgs;
use crate::exit::{self, usage};
use crate::output::{self, say};
use crate::provenance::{Build, engines_differ};
use crate::report::{CountReport, Finished, NodeStats, ShardBuild, ShardInfo};
use crate::spec::RunIdentity;
use crate::unique;

pub(crate) fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    if args.compare {
        return compare(&args.files);
    }
    let mut shards: Vec<(PathBuf, CountReport, ShardInfo)> = Vec::new();
    for (path, report) in read_all(&args.files)? {
        if report.tasks_counted.is_some() {
            return Err(usage!(
                "{} is a count of chosen tasks (count --task), not of a shard; merge --compare \
                 holds it against a shard's result",
                path.display()
            ));
        }
        let Some(info) = report.shard else {
            return Err(usage!("{} is the result of a whole run, not of a shard", path.display()));
        };
        shards.push((path, report, info));
    }
    let (first_path, first, first_shard) = &shards[0];
    let mut by_index: BTreeMap<usize, &Path> = BTreeMap::new();
    for (path, shard, info) in &shards {
        let from = |difference: String| {
            format!(
                "{} is from a different run: {difference} in {}",
                path.display(),
                first_path.display()
            )
        };
        if shard.run.engine != first.run.engine || first.run.engine.is_none() {
            return Err(usage!(
                "{}",
                engines_differ(
                    &path.display().to_string(),
                    shard.run.engine.as_deref(),
                    &match &first.run.engine {
                        Some(engine) if path != first_path => {
                            format!("{}'s engine {engine}", first_path.display())
                        }
                        _ => format!("this build's engine {ENGINE_IDENTITY}"),
                    },
                    &shard.build.clone().into_iter().collect::<Vec<_>>(),
                    &format!(
                        "count the shards again with builds of one engine (this one is engine \
                         {ENGINE_IDENTITY}), and merge those"
                    ),
                )
            ));
        }
        if info.count != first_shard.count {
            let counts = format!("shard count is {} there but {}", info.count, first_shard.count);
            return Err(usage!("{}", from(counts)));
        }
        if let Some(difference) = first.run.difference(&shard.run) {
            return Err(usage!("{}", from(difference)));
        }
        if let Some(earlier) = by_index.insert(info.index, path) {
            return Err(usage!(
                "shard {}/{} is given twice ({} and {})",
                info.index,
                info.count,
                earlier.display(),
                path.display()
            ));
        }
    }
    if by_index.len() < first_shard.count {
        return Err(usage!("{}", missing(&by_index, first_shard.count)));
    }

    let counts =
        shards.iter().try_fold(Counts::default(), |sum, (_, shard, _)| sum.merge(&shard.counts))?;
    // The rotation-fixed counts of the unique count take seconds to minutes near N = 28:
    // every CPU of the merging machine shares them. Nothing stops them but the process.
    let cpus = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let never = Arc::new(AtomicBool::new(false));
    let outcome = unique::finish(&first.run.problem()?, &counts, cpus, never)
        .map_err(distrust)?
        .context("the rotation-fixed counts stopped unasked")?;
    let (kernel, kernels_note) = one_kernel(&shards);
    let (shard_builds, builds_note) = builds(&shards);
    let audit = merged_audit(shards.iter().map(|(_, shard, _)| shard.audit.as_ref()));
    let audit_note = (audit.is_none() && shards.iter().any(|(_, shard, _)| shard.audit.is_some()))
        .then_some(
            "the merged result reports no audit: not every shard was audited the same way \
             (the same share and seed); each shard's own report says what its audit found",
        );
    let threads = match shards.iter().map(|(_, s, _)| s.threads).collect::<Option<Vec<_>>>() {
        Some(threads) => Some(
            threads
                .into_iter()
                .try_fold(0usize, usize::checked_add)
                .context("the shards' thread counts add up to more than a number can hold")?,
        ),
        None => None,
    };
    let finished = Finished {
        kernel,
        threads,
        sessions: None,
        resumed: shards.iter().any(|(_, shard, _)| shard.resumed),
        shard_builds: Some(shard_builds),
        counts,
        unique: outcome.unique,
        // Shards usually run side by side: the slowest one is the run's wall time.
        elapsed_s: shards.iter().map(|(_, s, _)| s.elapsed_s).fold(0.0, f64::max),
        shard: None,
        stats: merged_stats(&shards, counts.nodes),
        host: shards
            .iter()
            .all(|(_, s, _)| s.host == first.host)
            .then(|| first.host.clone())
            .flatten(),
        audit,
        by_task: None,
    };
    CountReport::new(first.run.clone(), finished).print(args.json)?;
    // Only after the result, so that a merge that fails says one line.
    let notes = [kernels_note, builds_note].into_iter().flatten();
    for note in notes.chain(audit_note.map(str::to_owned)) {
        say!("{note}");
    }
    Ok(ExitCode::SUCCESS)
}

/// `merge --compare A B`: the tasks whose counts differ between two results of one shard.
fn compare(files: &[PathBuf]) -> anyhow::Result<ExitCode> {
    let reports = read_all(files)?;
    let [(first_path, first), (second_path, second)] = &reports[..] else {
        return Err(usage!("--compare takes two results of one shard, got {}", reports.len()));
    };
    let (a, b) = (first_path.display(), second_path.display());
    if let Some(difference) = first.run.difference(&second.run) {
        return Err(usage!("{a} and {b} are of different runs: {difference} in {a}"));
    }
    let chosen = second.tasks_counted.as_ref().or(first.tasks_counted.as_ref());
    if first.shard != second.shard && chosen.is_none() {
        return Err(usage!("{a} and {b} are results of different shards"));
    }
    let kept = |report: &CountReport, path: &Path| {
        report.by_task.clone().ok_or_else(|| {
            usage!(
                "{} has no counts by task: it is a whole run's result, or a shard's from a \
                 version that did not record them",
                path.display()
            )
        })
    };
    let (ours, theirs) = (kept(first, first_path)?, kept(second, second_path)?);
    let tasks = first.run.problem()?.tasks(first.run.depth)?;
    // Against a count of chosen tasks, those tasks alone.
    let indices: BTreeSet<usize> = match chosen {
        Some(chosen) => chosen.iter().copied().collect(),
        None => ours.keys().chain(theirs.keys()).copied().collect(),
    };
    let shown = |counts: Option<&Counts>| match counts {
        Some(counts) if counts.thirds > 0 => format!("{} and {}/3", counts.total, counts.thirds),
        Some(counts) => counts.total.to_string(),
        None => "nothing".to_owned(),
    };
    let mut out = output::stdout()?;
    let mut differing = Vec::new();
    for index in &indices {
        let (x, y) = (ours.get(index), theirs.get(index));
        if x.map(|c| (c.total, c.thirds)) != y.map(|c| (c.total, c.thirds)) {
            differing.push(*index);
            let key = tasks.get(*index).map(Task::key).unwrap_or_default();
            writeln!(out, "task {index} (key {key:?}): {} in {a}, {} in {b}", shown(x), shown(y))?;
        }
    }
    if differing.is_empty() {
        match indices.len() {
            1 => writeln!(out, "the 1 task agrees")?,
            tasks => writeln!(out, "all {tasks} tasks agree")?,
        }
        return Ok(ExitCode::SUCCESS);
    }
    writeln!(
        out,
        "{} of {} tasks differ: count them again with {}",
        differing.len(),
        indices.len(),
        recount_command(&first.run, &differing)
    )?;
    Ok(ExitCode::from(exit::FAILURE))
}

/// The command that counts `tasks` of `run`'s list again, each on its own: the depth given,
/// so that the list is the same whatever the machine.
fn recount_command(run: &RunIdentity, tasks: &[usize]) -> String {
    let listed: Vec<String> = tasks.iter().map(ToString::to_string).collect();
    let chosen = match (&run.placement, run.symmetric) {
        (Some(_), _) => format!(" --place {}", run.place_text()),
        (None, Some(turn)) => format!(" --symmetric {turn}"),
        (None, None) => String::new(),
    };
    format!(
        "`nqueens count {} --method {}{chosen} --depth {} --task {} --json`",
        run.n,
        run.method,
        run.depth,
        listed.join(",")
    )
}

/// A merge whose shards' results do not hold together (the Burnside sum is not a multiple
/// of 8, thirds of a solution are left over): said as what it means, since the total
/// cannot be trusted and is not printed.
fn distrust(error: anyhow::Error) -> anyhow::Error {
    let Some(nqueens_core::Error::Inconsistent(what)) = error.downcast_ref() else {
        return error;
    };
    anyhow::anyhow!(
        "the shards' task results do not add up ({what}), so the total cannot be trusted and \
         was not printed; a shard file was damaged or edited, or counted by a faulty build: \
         count the shards again, and compare each new result with its old one (merge \
         --compare OLD NEW) to find the file"
    )
}

/// The builds that made the shards, each with its shards, and where there are several, a
/// note naming them: shards of one engine merge whatever commit built them.
fn builds(shards: &[(PathBuf, CountReport, ShardInfo)]) -> (Vec<ShardBuild>, Option<String>) {
    let mut by_build: BTreeMap<Option<Build>, Vec<usize>> = BTreeMap::new();
    for (_, shard, info) in shards {
        by_build.entry(shard.build.clone()).or_default().push(info.index);
    }
    let note = (by_build.len() > 1).then(|| {
        let made: Vec<String> = by_build
            .iter()
            .map(|(build, indices)| {
                let build =
                    build.as_ref().map_or_else(|| "an unnamed build".to_owned(), Build::text);
                format!("{build} for {}", shard_list(indices))
            })
            .collect();
        format!(
            "the shards were counted by {} builds of engine {}: {}",
            by_build.len(),
            shards[0].1.run.engine_text(),
            made.join("; ")
        )
    });
    let builds = by_build
        .into_iter()
        .filter_map(|(build, shards)| Some(ShardBuild { build: build?, shards }))
        .collect();
    (builds, note)
}

/// `shard 3` or `shards 0, 1, 2`.
fn shard_list(indices: &[usize]) -> String {
    let indices: Vec<String> = indices.iter().map(ToString::to_string).collect();
    let shards = if indices.len() == 1 { "shard" } else { "shards" };
    format!("{shards} {}", indices.join(", "))
}

/// The kernel every shard ran on; where they differ, none, and a note naming each.
fn one_kernel(shards: &[(PathBuf, CountReport, ShardInfo)]) -> (Option<Kernel>, Option<String>) {
    let mut by_kernel: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (_, shard, info) in shards {
        let kernel = match (shard.kernel, &shard.sessions) {
            (Some(kernel), _) => kernel.to_string(),
            (None, Some(_)) => "several, resumed".to_owned(),
            (None, None) => "unnamed".to_owned(),
        };
        by_kernel.entry(kernel).or_default().push(info.index);
    }
    if by_kernel.len() == 1 {
        return (shards[0].1.kernel, None);
    }
    let ran: Vec<String> = by_kernel
        .iter()
        .map(|(kernel, indices)| format!("{kernel} ({})", shard_list(indices)))
        .collect();
    let note = format!(
        "the shards ran on different kernels, so the result names none: {}",
        ran.join("; ")
    );
    (None, Some(note))
}

/// The shards' audits as one, if every shard was audited alike: their tasks add up.
fn merged_audit<'a>(audits: impl Iterator<Item = Option<&'a AuditReport>>) -> Option<AuditReport> {
    audits.map(|audit| audit.cloned()).reduce(|merged, audit| match (merged, audit) {
        (Some(merged), Some(audit))
            if (merged.fraction, merged.seed) == (audit.fraction, audit.seed) =>
        {
            let tasks = merged.tasks + audit.tasks;
            let elapsed_s = merged.elapsed_s.zip(audit.elapsed_s).map(|(a, b)| a + b);
            Some(AuditReport { tasks, agreed: merged.agreed + audit.agreed, elapsed_s, ..merged })
        }
        _ => None,
    })?
}

/// What `-` stands for among the files: standard input.
const STDIN: &str = "-";

/// The reports `files` hold: every one in each file, one after another as `cat` joins
/// them, and every one on standard input for `-` (`cat shard-*.json | nqueens merge -`);
/// named by the file, or `FILE:K` for the K-th of several (`stdin:K` for standard input).
fn read_all(files: &[PathBuf]) -> anyhow::Result<Vec<(PathBuf, CountReport)>> {
    if files.iter().filter(|path| path.as_os_str() == STDIN).count() > 1 {
        return Err(usage!("standard input (-) is given more than once"));
    }
    let mut reports = Vec::new();
    for path in files {
        let (text, name) = if path.as_os_str() == STDIN {
            let mut text = String::new();
            std::io::Read::read_to_string(&mut std::io::stdin().lock(), &mut text)
                .context("cannot read standard input")?;
            (text, "stdin".to_owned())
        } else {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            (text, path.display().to_string())
        };
        // Read as reports, not as JSON values first: a value would hold counts past 2^64
        // as doubles.
        let parsed: Vec<_> =
            serde_json::Deserializer::from_str(&text).into_iter::<CountReport>().collect();
        if parsed.is_empty() {
            return Err(usage!("{name} holds no shard result"));
        }
        let several = parsed.len() > 1 || path.as_os_str() == STDIN;
        for (index, report) in parsed.into_iter().enumerate() {
            let named =
                PathBuf::from(if several { format!("{name}:{}", index + 1) } else { name.clone() });
            let report = checked(&named, report)?;
            reports.push((named, report));
        }
    }
    Ok(reports)
}

/// The report read from `path`, if it is one and holds together.
fn checked(
    path: &Path,
    parsed: Result<CountReport, serde_json::Error>,
) -> anyhow::Result<CountReport> {
    let report: CountReport = parsed.map_err(|error| {
        usage!("{} is not the JSON output of nqueens count --shard: {error}", path.display())
    })?;
    let inconsistent = |what: &str| usage!("{} is inconsistent: {what}", path.display());
    if report.counts.total != report.total {
        return Err(inconsistent("its total and its counts differ"));
    }
    // Reports written before the decimal field have it empty.
    if !report.total_decimal.is_empty() && report.total_decimal != report.total.to_string() {
        return Err(inconsistent("its total and its decimal total differ"));
    }
    // Merging carries every three thirds into a whole solution: more than two would add
    // solutions no task found.
    if report.counts.thirds > 2 {
        return Err(inconsistent("it holds more than two thirds of a solution"));
    }
    if let Some(by_task) = &report.by_task {
        let sum = by_task.values().try_fold(Counts::default(), |sum, task| sum.merge(task));
        if sum.map(|sum| (sum.total, sum.thirds)) != Ok((report.counts.total, report.counts.thirds))
        {
            return Err(inconsistent("its counts by task do not add up to its total"));
        }
    }
    if let Some(shard) = report.shard
        && shard.index >= shard.count
    {
        return Err(inconsistent(&format!("shard {}/{} does not exist", shard.index, shard.count)));
    }
    Ok(report)
}

/// Which shards of `count` are not in `given`, the first few by name: a count can be far
/// larger than the files given, so the list stops early.
fn missing(given: &BTreeMap<usize, &Path>, count: usize) -> String {
    const NAMED: usize = 5;
    let absent = count - given.len();
    let named: Vec<String> = (0..count)
        .filter(|i| !given.contains_key(i))
        .take(NAMED)
        .map(|i| format!("{i}/{count}"))
        .collect();
    match absent {
        1 => format!("shard {} is missing", named[0]),
        _ if absent <= NAMED => format!("shard {} are missing", named.join(", ")),
        _ => format!("shard {} and {} more are missing", named.join(", "), absent - NAMED),
    }
}

/// Node statistics of the whole run, if every shard counted its nodes.
fn merged_stats(shards: &[(PathBuf, CountReport, ShardInfo)], nodes: u128) -> Option<NodeStats> {
    if shards.iter().any(|(_, shard, _)| shard.stats.is_none()) {
        return None;
    }
    let thread_ns: f64 = shards.iter().map(|(_, s, _)| s.thread_seconds() * 1e9).sum();
    let peak = shards.iter().filter_map(|(_, s, _)| s.stats.as_ref()?.peak_memory_bytes).max();
    let unit = shards.first().map_or("node", |(_, s, _)| s.run.method.work_unit());
    Some(NodeStats::new(nodes, unit, thread_ns, peak))
}
