//! `nqueens merge`: the count of a run from its shards' results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use nqueens_core::Counts;

use crate::cli::MergeArgs;
use crate::report::{CountReport, Finished, NodeStats, ShardInfo};

pub(crate) fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut shards: Vec<(PathBuf, CountReport, ShardInfo)> = Vec::new();
    for path in &args.files {
        let report = read(path)?;
        let Some(info) = report.shard else {
            bail!("{} is the result of a whole run, not of a shard", path.display());
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
            bail!(from(format!("shard count is {} there but {}", info.count, first_shard.count)));
        }
        if let Some(difference) = first.run.difference(&shard.run) {
            bail!(from(difference));
        }
        if let Some(earlier) = by_index.insert(info.index, path) {
            bail!(
                "shard {}/{} is given twice ({} and {})",
                info.index,
                info.count,
                earlier.display(),
                path.display()
            );
        }
    }
    let missing: Vec<String> = (0..first_shard.count)
        .filter(|i| !by_index.contains_key(i))
        .map(|i| format!("{i}/{}", first_shard.count))
        .collect();
    if !missing.is_empty() {
        bail!(
            "shard {} missing",
            missing.join(", ") + if missing.len() > 1 { " are" } else { " is" }
        );
    }

    let counts =
        shards.iter().try_fold(Counts::default(), |sum, (_, shard, _)| sum.merge(&shard.counts))?;
    let outcome = first.run.problem()?.finish(&counts)?;
    let finished = Finished {
        kernel: first.kernel,
        threads: shards.iter().map(|(_, s, _)| s.threads).sum(),
        counts,
        unique: outcome.unique,
        // Shards usually run side by side: the slowest one is the run's wall time.
        elapsed_s: shards.iter().map(|(_, s, _)| s.elapsed_s).fold(0.0, f64::max),
        shard: None,
        stats: merged_stats(&shards, counts.nodes),
    };
    CountReport::new(first.run.clone(), finished).print(args.json)?;
    Ok(ExitCode::SUCCESS)
}

fn read(path: &Path) -> anyhow::Result<CountReport> {
    let text =
        std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    let report: CountReport = serde_json::from_str(text.trim()).with_context(|| {
        format!("{} is not the JSON output of nqueens count --shard", path.display())
    })?;
    if report.counts.total != report.total {
        bail!("{} is inconsistent: its total and its counts differ", path.display());
    }
    Ok(report)
}

/// Node statistics of the whole run, if every shard counted its nodes.
fn merged_stats(shards: &[(PathBuf, CountReport, ShardInfo)], nodes: u128) -> Option<NodeStats> {
    if shards.iter().any(|(_, shard, _)| shard.stats.is_none()) {
        return None;
    }
    let thread_ns: f64 = shards.iter().map(|(_, s, _)| s.elapsed_s * 1e9 * s.threads as f64).sum();
    let peak = shards.iter().filter_map(|(_, s, _)| s.stats?.peak_memory_bytes).max();
    Some(NodeStats::new(nodes, thread_ns, peak))
}
