//! `nqueens merge`: the count of a run from its shards' results.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use anyhow::{Context, bail};
use nqueens_core::{Counts, Method, Problem};

use crate::cli::MergeArgs;
use crate::report::{CountReport, NodeStats};

pub(crate) fn run(args: MergeArgs) -> anyhow::Result<ExitCode> {
    let mut shards: Vec<(PathBuf, CountReport)> = Vec::new();
    for path in &args.files {
        shards.push((path.clone(), read(path)?));
    }
    let (first_path, first) = &shards[0];
    let Some(first_shard) = first.shard else {
        bail!("{} is the result of a whole run, not of a shard", first_path.display());
    };
    let mut by_index: BTreeMap<usize, &Path> = BTreeMap::new();
    for (path, shard) in &shards {
        let Some(info) = shard.shard else {
            bail!("{} is the result of a whole run, not of a shard", path.display());
        };
        let fields = [
            ("n", first.n.to_string(), shard.n.to_string()),
            ("method", first.method.clone(), shard.method.clone()),
            ("placement", first.place_text(), shard.place_text()),
            ("depth", first.depth.to_string(), shard.depth.to_string()),
            ("shard count", first_shard.count.to_string(), info.count.to_string()),
            ("task_digest", first.task_digest.clone(), shard.task_digest.clone()),
            ("engine_version", first.engine_version.clone(), shard.engine_version.clone()),
        ];
        for (name, expected, found) in fields {
            if expected != found {
                bail!(
                    "{} is from a different run: {name} is {found} there but {expected} in {}",
                    path.display(),
                    first_path.display()
                );
            }
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
        shards.iter().try_fold(Counts::default(), |sum, (_, shard)| sum.merge(&shard.counts))?;
    let method: Method = first.method.parse()?;
    let mut problem = Problem::new(first.n, method)?;
    if let Some(queens) = first.queens()? {
        problem = problem.with_placement(&queens)?;
    }
    let outcome = problem.finish(&counts)?;
    CountReport {
        total: outcome.total,
        unique: outcome.unique,
        threads: shards.iter().map(|(_, s)| s.threads).sum(),
        // Shards usually run side by side: the slowest one is the run's wall time.
        elapsed_s: shards.iter().map(|(_, s)| s.elapsed_s).fold(0.0, f64::max),
        shard: None,
        stats: merged_stats(&shards, counts.nodes),
        counts,
        ..first.clone()
    }
    .print(args.json)?;
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
fn merged_stats(shards: &[(PathBuf, CountReport)], nodes: u128) -> Option<NodeStats> {
    if shards.iter().any(|(_, shard)| shard.stats.is_none()) {
        return None;
    }
    let thread_ns: f64 = shards.iter().map(|(_, s)| s.elapsed_s * 1e9 * s.threads as f64).sum();
    let peak = shards.iter().filter_map(|(_, s)| s.stats?.peak_memory_bytes).max();
    Some(NodeStats::from_thread_ns(nodes, thread_ns, peak))
}
