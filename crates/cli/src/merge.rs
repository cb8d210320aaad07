//! `nqueens merge`: the count of a run from its shards' results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::Context;
use nqueens_core::Counts;

use crate::audit::AuditReport;
use crate::cli::MergeArgs;
use crate::exit::usage;
use crate::report::{CountReport, Finished, NodeStats, ShardInfo};

pub(crate) fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut shards: Vec<(PathBuf, CountReport, ShardInfo)> = Vec::new();
    for path in &args.files {
        let report = read(path)?;
        let Some(info) = report.shard else {
            return Err(usage!("{} is the result of a whole run, not of a shard", path.display()));
        };
        shards.push((path.clone(), report, info));
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
    let outcome = first.run.problem()?.finish(&counts)?;
    let finished = Finished {
        kernel: first.kernel,
        threads: shards
            .iter()
            .try_fold(0usize, |sum, (_, s, _)| sum.checked_add(s.threads))
            .context("the shards' thread counts add up to more than a number can hold")?,
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
        audit: merged_audit(shards.iter().map(|(_, shard, _)| shard.audit.as_ref())),
    };
    CountReport::new(first.run.clone(), finished).print(args.json)?;
    Ok(ExitCode::SUCCESS)
}

/// The shards' audits as one, if every shard was audited alike: their tasks add up.
fn merged_audit<'a>(audits: impl Iterator<Item = Option<&'a AuditReport>>) -> Option<AuditReport> {
    audits.map(|audit| audit.cloned()).reduce(|merged, audit| match (merged, audit) {
        (Some(merged), Some(audit))
            if (merged.fraction, merged.seed) == (audit.fraction, audit.seed) =>
        {
            let tasks = merged.tasks + audit.tasks;
            Some(AuditReport { tasks, agreed: merged.agreed + audit.agreed, ..merged })
        }
        _ => None,
    })?
}

fn read(path: &Path) -> anyhow::Result<CountReport> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let report: CountReport = serde_json::from_str(text.trim()).map_err(|error| {
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
    let thread_ns: f64 = shards.iter().map(|(_, s, _)| s.elapsed_s * 1e9 * s.threads as f64).sum();
    let peak = shards.iter().filter_map(|(_, s, _)| s.stats.as_ref()?.peak_memory_bytes).max();
    Some(NodeStats::new(nodes, thread_ns, peak))
}
