//! What `count` and `merge` print, as text or JSON.

use anyhow::bail;
use nqueens_core::{Counts, Method, Placement};
use serde::{Deserialize, Serialize};

use crate::memory;

/// One count, whole or one shard of it. A shard's `--json` output is what `merge` reads,
/// so this type is both the printed result and the shard file format.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CountReport {
    pub(crate) n: usize,
    pub(crate) method: String,
    /// The backtracking kernel that ran (`avx512`, `avx2` or `scalar`; tasks with fewer than three open rows run scalar); absent for the join.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) kernel: Option<String>,
    /// The queens placed in advance, as `[row, column]` counted from 1; absent without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) placement: Option<Vec<[usize; 2]>>,
    pub(crate) threads: usize,
    pub(crate) depth: usize,
    /// Tasks in the whole task list (all shards).
    pub(crate) tasks: usize,
    /// All solutions; for a shard, those of its tasks only.
    pub(crate) total: u128,
    /// Solutions distinct under symmetry; `null` for a shard (it needs the whole run) and
    /// for a partial board (it has no symmetry).
    pub(crate) unique: Option<u128>,
    pub(crate) elapsed_s: f64,
    pub(crate) engine_version: String,
    /// A hash of the task list, so that shards of different task lists are never merged.
    pub(crate) task_digest: String,
    /// Which shard this is; `null` for a whole run.
    pub(crate) shard: Option<ShardInfo>,
    /// The merged counts of the tasks run; a shard of an eightfold count may hold thirds of
    /// a solution, which the other shards complete.
    pub(crate) counts: Counts,
    /// Nodes and time per node, with `--stats`; absent without.
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) stats: Option<NodeStats>,
}

/// How hard the kernel worked: what `--stats` adds to a report.
#[derive(Clone, Copy, Debug, Serialize, Deserialize)]
pub(crate) struct NodeStats {
    /// Placements tried.
    pub(crate) nodes: u128,
    /// Thread-nanoseconds per node: wall time times threads over nodes, so that runs on
    /// different thread counts compare as kernel efficiency.
    pub(crate) ns_per_node: f64,
    /// The most memory the process held (for merged shards, the most any shard held), when
    /// the system tells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) peak_memory_bytes: Option<u64>,
}

impl NodeStats {
    pub(crate) fn new(
        nodes: u128,
        elapsed: std::time::Duration,
        threads: usize,
        peak_memory_bytes: Option<u64>,
    ) -> NodeStats {
        let thread_ns = elapsed.as_secs_f64() * 1e9 * threads as f64;
        NodeStats::from_thread_ns(nodes, thread_ns, peak_memory_bytes)
    }

    /// The statistics of `nodes` placements that took `thread_ns` thread-nanoseconds.
    pub(crate) fn from_thread_ns(
        nodes: u128,
        thread_ns: f64,
        peak_memory_bytes: Option<u64>,
    ) -> NodeStats {
        let ns_per_node = if nodes == 0 { 0.0 } else { thread_ns / nodes as f64 };
        NodeStats { nodes, ns_per_node, peak_memory_bytes }
    }
}

/// The queens of a placement as `[row, column]` counted from 1, as reports write them.
pub(crate) fn one_based(placement: &Placement) -> Vec<[usize; 2]> {
    placement.queens().map(|(row, column)| [row + 1, column + 1]).collect()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShardInfo {
    pub(crate) index: usize,
    pub(crate) count: usize,
}

impl CountReport {
    pub(crate) fn print(&self, json: bool) -> anyhow::Result<()> {
        if json {
            println!("{}", serde_json::to_string(self)?);
            return Ok(());
        }
        match self.stats {
            Some(stats) => {
                // The join's unit of work is a pair of half-boards tested, not a placement.
                let unit = if self.method == Method::Join.name() { "pair" } else { "node" };
                let kernel =
                    self.kernel.as_ref().map(|k| format!(" kernel={k}")).unwrap_or_default();
                let peak = stats
                    .peak_memory_bytes
                    .map(|bytes| format!(" peak_memory={}", memory::human(bytes)))
                    .unwrap_or_default();
                println!(
                    "{}{kernel} {unit}s={} ns/{unit}={:.3}{peak}",
                    self.line(),
                    stats.nodes,
                    stats.ns_per_node
                )
            }
            None => println!("{}", self.line()),
        }
        Ok(())
    }

    /// The one-line text form, without node statistics.
    fn line(&self) -> String {
        let place = match self.placement {
            Some(_) => format!(" place={}", self.place_text()),
            None => String::new(),
        };
        match (self.unique, self.shard) {
            (Some(unique), _) => format!(
                "N={}{place} total={} unique={} method={} threads={} elapsed={:.3}s",
                self.n, self.total, unique, self.method, self.threads, self.elapsed_s
            ),
            (None, Some(shard)) => format!(
                "N={}{place} shard={}/{} partial total={} method={} threads={} elapsed={:.3}s \
                 (combine the shards' --json output with nqueens merge)",
                self.n,
                shard.index,
                shard.count,
                self.total,
                self.method,
                self.threads,
                self.elapsed_s
            ),
            (None, None) => format!(
                "N={}{place} total={} method={} threads={} elapsed={:.3}s \
                 (unique is not defined for a partial board)",
                self.n, self.total, self.method, self.threads, self.elapsed_s
            ),
        }
    }

    /// The placed queens as `--place` takes them (`1:1,5:3`), or `none`.
    pub(crate) fn place_text(&self) -> String {
        match &self.placement {
            Some(queens) => {
                let pairs: Vec<String> = queens.iter().map(|[r, c]| format!("{r}:{c}")).collect();
                pairs.join(",")
            }
            None => "none".to_owned(),
        }
    }

    /// The placed queens as 0-based `(row, column)` pairs, as the engine takes them.
    pub(crate) fn queens(&self) -> anyhow::Result<Option<Vec<(usize, usize)>>> {
        let Some(queens) = &self.placement else {
            return Ok(None);
        };
        queens
            .iter()
            .map(|&[row, column]| match (row.checked_sub(1), column.checked_sub(1)) {
                (Some(row), Some(column)) => Ok((row, column)),
                _ => bail!("placement {row}:{column} does not count from 1"),
            })
            .collect::<anyhow::Result<Vec<_>>>()
            .map(Some)
    }
}
