//! What `count` and `merge` print, as text or JSON.

use nqueens_core::Counts;
use serde::{Deserialize, Serialize};

/// One count, whole or one shard of it. A shard's `--json` output is what `merge` reads,
/// so this type is both the printed result and the shard file format.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CountReport {
    pub(crate) n: usize,
    pub(crate) method: String,
    pub(crate) threads: usize,
    pub(crate) depth: usize,
    /// Tasks in the whole task list (all shards).
    pub(crate) tasks: usize,
    /// All solutions; for a shard, those of its tasks only.
    pub(crate) total: u128,
    /// Solutions distinct under symmetry; `null` for a shard (it needs the whole run).
    pub(crate) unique: Option<u128>,
    pub(crate) elapsed_s: f64,
    pub(crate) engine_version: String,
    /// A hash of the task list, so that shards of different task lists are never merged.
    pub(crate) task_digest: String,
    /// Which shard this is; `null` for a whole run.
    pub(crate) shard: Option<ShardInfo>,
    /// The merged per-class counts of the tasks run.
    pub(crate) counts: Counts,
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
        match (self.unique, self.shard) {
            (Some(unique), _) => println!(
                "N={} total={} unique={} method={} threads={} elapsed={:.3}s",
                self.n, self.total, unique, self.method, self.threads, self.elapsed_s
            ),
            (None, Some(shard)) => println!(
                "N={} shard={}/{} partial total={} method={} threads={} elapsed={:.3}s \
                 (combine the shards' --json output with nqueens merge)",
                self.n,
                shard.index,
                shard.count,
                self.total,
                self.method,
                self.threads,
                self.elapsed_s
            ),
            (None, None) => unreachable!("a whole run always has a unique count"),
        }
        Ok(())
    }
}
