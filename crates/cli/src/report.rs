//! What `count` and `merge` print: one report, built by [`CountReport::new`], written as
//! text by [`CountReport::text`] or as JSON by [`CountReport::json`].

use std::collections::BTreeMap;

use nqueens_core::{Counts, Kernel};
use nqueens_scheduler::Session;
use serde::{Deserialize, Serialize};

use crate::audit::AuditReport;
use crate::host::Host;
use crate::memory;
use crate::output;
use crate::progress::grouped;
use crate::provenance::Build;
use crate::spec::RunIdentity;

/// One count, whole or one shard of it. A shard's `--json` output is what `merge` reads,
/// so this type is both the printed result and the shard file format.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct CountReport {
    /// What was counted: board, method, placement, split, task list and engine identity.
    #[serde(flatten)]
    pub(crate) run: RunIdentity,
    /// The build that printed this report; absent in reports written before it was named.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) build: Option<Build>,
    /// The kernel that ran (backtracking tasks with fewer than three open rows run on the
    /// scalar kernel, and the join tests buckets of at most 64 half-boards in one word,
    /// which is as fast there); absent where several ran the tasks (sessions of a resumed
    /// run, shards, as `sessions` and `merge`'s note say), and in join reports written
    /// before the join took a kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) kernel: Option<Kernel>,
    /// The worker threads that ran the tasks; `null` where sessions of a resumed run ran
    /// them on different numbers.
    pub(crate) threads: Option<usize>,
    /// Whether the count was resumed from a checkpoint: its tasks then ran in several
    /// sessions, which `sessions` lists (for merged shards, each shard's file).
    #[serde(default)]
    pub(crate) resumed: bool,
    /// For a resumed count, what ran its tasks, session by session (alike sessions in one
    /// entry), this one last; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) sessions: Option<Vec<SessionReport>>,
    /// For a count of chosen tasks (`count --task`), their indices; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) tasks_counted: Option<Vec<usize>>,
    /// For merged shards, the builds that made them, each with its shards; absent
    /// otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) shard_builds: Option<Vec<ShardBuild>>,
    /// All solutions; for a shard, those of its tasks only.
    pub(crate) total: u128,
    /// `total` in decimal digits, for readers whose numbers are doubles (JavaScript, jq
    /// 1.6), which round integers above 2^53 (N = 24 and up); empty in reports written
    /// before it was.
    #[serde(default)]
    pub(crate) total_decimal: String,
    /// Solutions distinct under symmetry; `null` for a shard (it needs the whole run) and
    /// for a partial board (it has no symmetry).
    pub(crate) unique: Option<u128>,
    /// `unique` in decimal digits, as `total_decimal`.
    #[serde(default)]
    pub(crate) unique_decimal: Option<String>,
    pub(crate) elapsed_s: f64,
    /// Which shard this is; `null` for a whole run.
    pub(crate) shard: Option<ShardInfo>,
    /// The merged counts of the tasks run; a shard of an eightfold count may hold thirds of
    /// a solution, which the other shards complete.
    pub(crate) counts: Counts,
    /// Nodes and time per node, with `--stats`; absent without.
    #[serde(default, flatten, skip_serializing_if = "Option::is_none")]
    pub(crate) stats: Option<NodeStats>,
    /// The machine the count ran on; absent for an MPI run (its ranks may be on several
    /// machines), for merged shards that ran on different ones, and in reports written
    /// before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) host: Option<Host>,
    /// What `--audit` counted again, all of it in agreement; absent without.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) audit: Option<AuditReport>,
    /// For a shard, every task's counts by its index in the whole list, so that two runs of
    /// the shard can be compared task by task (`merge --compare`); absent for a whole run
    /// and in shards written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) by_task: Option<BTreeMap<usize, Counts>>,
}

/// What ran one or more alike sessions of a resumed count.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct SessionReport {
    /// The kernel, where the session's checkpoint record names one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) kernel: Option<Kernel>,
    pub(crate) threads: usize,
    /// The build that ran them.
    pub(crate) build: Build,
    /// How many sessions this entry stands for.
    pub(crate) runs: usize,
    /// Tasks they finished.
    pub(crate) tasks: usize,
    /// Seconds they counted.
    pub(crate) elapsed_s: f64,
}

impl SessionReport {
    /// What the checkpoint records of a session of a count on `kernel` with `threads`,
    /// by this build: what [`SessionReport::of`] reads back.
    pub(crate) fn about(kernel: Kernel, threads: usize) -> BTreeMap<String, String> {
        let build = Build::this();
        BTreeMap::from([
            ("kernel".to_owned(), kernel.to_string()),
            ("threads".to_owned(), threads.to_string()),
            ("modified".to_owned(), build.modified_word().to_owned()),
            ("commit".to_owned(), build.commit),
        ])
    }

    /// The report of `session`, as [`SessionReport::about`] described it.
    pub(crate) fn of(session: &Session) -> SessionReport {
        let field = |name: &str| session.about.get(name).map(String::as_str);
        let kernel =
            field("kernel").and_then(|name| Kernel::ALL.into_iter().find(|k| k.name() == name));
        let build = Build::from_words(
            field("commit").unwrap_or("unknown"),
            field("modified").unwrap_or(""),
        );
        SessionReport {
            kernel,
            threads: field("threads").and_then(|t| t.parse().ok()).unwrap_or(0),
            build,
            runs: session.runs,
            tasks: session.tasks,
            elapsed_s: session.elapsed_s,
        }
    }

    /// The kernel and threads that ran a count's tasks over `sessions`, each `None` where
    /// sessions that finished tasks differ in it, and for a resumed count the sessions
    /// themselves. A session that finished no task ran none, whatever it was asked.
    pub(crate) fn what_ran(
        sessions: &[Session],
    ) -> (Option<Kernel>, Option<usize>, Option<Vec<SessionReport>>) {
        let reports: Vec<SessionReport> = sessions.iter().map(SessionReport::of).collect();
        let working: Vec<&SessionReport> = match reports.iter().filter(|s| s.tasks > 0).collect() {
            some if !Vec::is_empty(&some) => some,
            _ => reports.last().into_iter().collect(),
        };
        let kernel = one(working.iter().map(|s| s.kernel)).flatten();
        let threads = one(working.iter().map(|s| s.threads));
        let resumed = sessions.iter().fold(0usize, |runs, s| runs.saturating_add(s.runs)) > 1;
        (kernel, threads, resumed.then_some(reports))
    }
    /// `threads` times the seconds counted: the thread time these sessions took.
    fn thread_seconds(&self) -> f64 {
        self.threads as f64 * self.elapsed_s
    }

    /// `605 tasks on avx2 with 2 threads in 12.1s`.
    fn text(&self) -> String {
        let kernel = self.kernel.map_or_else(|| "an unnamed kernel".to_owned(), |k| k.to_string());
        let threads = if self.threads == 1 { "thread" } else { "threads" };
        let runs =
            if self.runs > 1 { format!(" over {} sessions", self.runs) } else { String::new() };
        format!(
            "{} tasks on {kernel} with {} {threads} in {:.1}s{runs}",
            grouped(self.tasks as u128),
            self.threads,
            self.elapsed_s
        )
    }
}

/// The one value `values` all take, or `None` where they differ or there are none.
fn one<T: PartialEq>(mut values: impl Iterator<Item = T>) -> Option<T> {
    let first = values.next()?;
    values.all(|value| value == first).then_some(first)
}

/// One build among those that made merged shards, and which shards it made.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShardBuild {
    #[serde(flatten)]
    pub(crate) build: Build,
    pub(crate) shards: Vec<usize>,
}

/// Which shard of how many a report covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ShardInfo {
    pub(crate) index: usize,
    pub(crate) count: usize,
}

/// How hard the kernel worked: what `--stats` adds to a report. The nodes themselves are
/// `counts.nodes`, written once (reports written before that held them here too, which
/// reading them ignores).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct NodeStats {
    /// What a node is: `node` (a queen placed) or `pair` (a pair of half-boards tested);
    /// empty in reports written before it was recorded.
    #[serde(default)]
    pub(crate) node_unit: String,
    /// `nodes` in decimal digits, as `total_decimal`: counts of nodes pass 2^53 from N = 20.
    #[serde(default)]
    pub(crate) nodes_decimal: String,
    /// Thread-nanoseconds per node: wall time times threads over nodes, so that runs on
    /// different thread counts compare as kernel efficiency.
    pub(crate) ns_per_node: f64,
    /// The most memory the process held (for merged shards, the most any shard held), when
    /// the system tells.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) peak_memory_bytes: Option<u64>,
}

impl NodeStats {
    /// The statistics of `nodes` placements that took `thread_ns` thread-nanoseconds.
    pub(crate) fn new(
        nodes: u128,
        node_unit: &str,
        thread_ns: f64,
        peak_memory_bytes: Option<u64>,
    ) -> NodeStats {
        let ns_per_node = if nodes == 0 { 0.0 } else { thread_ns / nodes as f64 };
        let (nodes_decimal, node_unit) = (nodes.to_string(), node_unit.to_owned());
        NodeStats { node_unit, nodes_decimal, ns_per_node, peak_memory_bytes }
    }

    /// The statistics of this process's run, which took `thread_seconds` over its threads
    /// (and, resumed, the threads of its earlier sessions).
    pub(crate) fn of_this_process(nodes: u128, node_unit: &str, thread_seconds: f64) -> NodeStats {
        NodeStats::new(nodes, node_unit, thread_seconds * 1e9, memory::peak_resident_bytes())
    }
}

/// What a finished run (or shard) adds to its identity.
#[derive(Clone, Debug)]
pub(crate) struct Finished {
    pub(crate) kernel: Option<Kernel>,
    pub(crate) threads: Option<usize>,
    /// For a resumed run, what ran each session; `None` for a run of one session.
    pub(crate) sessions: Option<Vec<SessionReport>>,
    /// Whether any of it was resumed: a resumed run, or merged shards of which one was
    /// (whose sessions their own files list).
    pub(crate) resumed: bool,
    pub(crate) shard_builds: Option<Vec<ShardBuild>>,
    pub(crate) counts: Counts,
    /// Solutions distinct under symmetry, where the run can know them.
    pub(crate) unique: Option<u128>,
    pub(crate) elapsed_s: f64,
    pub(crate) shard: Option<ShardInfo>,
    pub(crate) stats: Option<NodeStats>,
    pub(crate) host: Option<Host>,
    pub(crate) audit: Option<AuditReport>,
    pub(crate) by_task: Option<BTreeMap<usize, Counts>>,
}

impl CountReport {
    /// The report of a finished run of `run`.
    pub(crate) fn new(run: RunIdentity, finished: Finished) -> CountReport {
        CountReport {
            run,
            build: Some(Build::this()),
            kernel: finished.kernel,
            threads: finished.threads,
            resumed: finished.resumed,
            sessions: finished.sessions,
            tasks_counted: None,
            shard_builds: finished.shard_builds,
            total: finished.counts.total,
            total_decimal: finished.counts.total.to_string(),
            unique: finished.unique,
            unique_decimal: finished.unique.map(|unique| unique.to_string()),
            elapsed_s: finished.elapsed_s,
            shard: finished.shard,
            counts: finished.counts,
            stats: finished.stats,
            host: finished.host,
            audit: finished.audit,
            by_task: finished.by_task,
        }
    }

    /// Prints the report on stdout, as JSON or as text; where stdout fails, the error
    /// carries the same line, since a shard's JSON holds what `merge` needs.
    pub(crate) fn print(&self, json: bool) -> anyhow::Result<()> {
        let printed = if json { self.json()? } else { self.text() };
        output::print_result(&format!("{printed}\n"), &printed)
    }

    /// The thread time the tasks took: each session's seconds times its threads, summed.
    pub(crate) fn thread_seconds(&self) -> f64 {
        match &self.sessions {
            Some(sessions) => sessions.iter().map(SessionReport::thread_seconds).sum(),
            None => self.elapsed_s * self.threads.unwrap_or(0) as f64,
        }
    }

    /// One JSON object.
    pub(crate) fn json(&self) -> anyhow::Result<String> {
        Ok(serde_json::to_string(self)?)
    }

    /// One line of text.
    pub(crate) fn text(&self) -> String {
        let run = &self.run;
        let place = match (&run.placement, run.symmetric) {
            (Some(_), _) => format!(" place={}", run.place_text()),
            (None, Some(turn)) => format!(" symmetric={turn}"),
            (None, None) => String::new(),
        };
        let (n, elapsed) = (run.n, self.elapsed_s);
        let several = || "several".to_owned();
        let threads = self.threads.map_or_else(several, |threads| threads.to_string());
        // Every figure names the kernel it ran on; old join reports have none.
        let method = match self.kernel {
            Some(kernel) => format!("{} kernel={kernel}", run.method),
            None if self.resumed => format!("{} kernel=several", run.method),
            None => run.method.to_string(),
        };
        let engine = format!("engine={}", run.engine_text());
        let line = match (self.unique, self.shard, &self.tasks_counted) {
            (_, _, Some(indices)) => {
                let each: Vec<String> = indices
                    .iter()
                    .map(|index| {
                        let counts = self.by_task.as_ref().and_then(|by_task| by_task.get(index));
                        format!("{index}: {}", counts.map_or(0, |counts| counts.total))
                    })
                    .collect();
                let listed: Vec<String> = indices.iter().map(ToString::to_string).collect();
                format!(
                    "N={n}{place} tasks={} partial total={} method={method} threads={threads} \
                     elapsed={elapsed:.3}s {engine} (each: {})",
                    listed.join(","),
                    self.total,
                    each.join(", ")
                )
            }
            (Some(unique), _, None) => format!(
                "N={n}{place} total={} unique={unique} method={method} threads={threads} \
                 elapsed={elapsed:.3}s {engine}",
                self.total
            ),
            (None, Some(shard), None) => format!(
                "N={n}{place} shard={}/{} partial total={} method={method} threads={threads} \
                 elapsed={elapsed:.3}s {engine}",
                shard.index, shard.count, self.total
            ),
            (None, None, None) => format!(
                "N={n}{place} total={} method={method} threads={threads} \
                 elapsed={elapsed:.3}s {engine}",
                self.total
            ),
        };
        let line = match &self.sessions {
            Some(sessions) => {
                let ran: Vec<String> = sessions.iter().map(SessionReport::text).collect();
                format!("{line} resumed: {}", ran.join(", "))
            }
            None if self.resumed => format!("{line} resumed: shards, whose files say what ran"),
            None => line,
        };
        let line = match &self.audit {
            Some(audit) => {
                let parts = if audit.in_parts { " in parts" } else { "" };
                let took = audit.elapsed_s.map_or(String::new(), |s| format!(" in {s:.3}s"));
                format!(
                    "{line} audit={}/{} agreed on {}{parts}{took}",
                    audit.agreed, audit.tasks, audit.kernel
                )
            }
            None => line,
        };
        let Some(stats) = &self.stats else { return line };
        let unit = self.run.method.work_unit();
        let peak = stats
            .peak_memory_bytes
            .map(|bytes| format!(" peak_memory={}", memory::human(bytes)))
            .unwrap_or_default();
        format!(
            "{line} nodes={} node_unit={unit} ns/node={:.3}{peak}",
            self.counts.nodes, stats.ns_per_node
        )
    }
}

#[cfg(test)]
mod tests {
    use nqueens_core::Method;

    use super::*;

    /// The known counts of N = 27, past 2^53 where doubles round them (to ...696 for the
    /// unique count).
    const TOTAL_27: u128 = 234_907_967_154_122_528;
    const UNIQUE_27: u128 = 29_363_495_934_315_694;

    fn report_of_27() -> CountReport {
        let run = RunIdentity {
            n: 27,
            method: Method::Join,
            placement: None,
            symmetric: None,
            depth: 3,
            tasks: 1264,
            task_digest: "0123456789abcdef".to_owned(),
            engine: Some("1-0123abcd".to_owned()),
        };
        let counts = Counts { total: TOTAL_27, thirds: 0, nodes: (1 << 60) + 1 };
        let finished = Finished {
            kernel: Some(Kernel::Scalar),
            threads: Some(2),
            sessions: None,
            resumed: false,
            shard_builds: None,
            counts,
            unique: Some(UNIQUE_27),
            elapsed_s: 1.0,
            shard: None,
            stats: Some(NodeStats::new(counts.nodes, "pair", 1e9, None)),
            host: None,
            audit: None,
            by_task: None,
        };
        CountReport::new(run, finished)
    }

    #[test]
    fn counts_past_two_to_the_53_are_also_decimal_strings() {
        let json: serde_json::Value =
            serde_json::from_str(&report_of_27().json().unwrap()).unwrap();
        assert_eq!(json["total_decimal"], TOTAL_27.to_string());
        assert_eq!(json["unique_decimal"], UNIQUE_27.to_string());
        assert_eq!(json["nodes_decimal"], ((1u128 << 60) + 1).to_string());
        // A reader whose numbers are doubles gets the numbers rounded, the strings exact.
        assert_ne!(json["unique"].as_f64().unwrap() as u128, UNIQUE_27);
    }

    #[test]
    fn a_report_reads_back_as_written() {
        let report = report_of_27();
        let read: CountReport = serde_json::from_str(&report.json().unwrap()).unwrap();
        assert_eq!((read.total, read.unique), (TOTAL_27, Some(UNIQUE_27)));
        assert_eq!(read.json().unwrap(), report.json().unwrap());
        assert_eq!(read.counts.nodes, report.counts.nodes);
        let json: serde_json::Value = serde_json::from_str(&report.json().unwrap()).unwrap();
        assert!(json.get("nodes").is_none(), "the nodes are written once, in counts");
        assert_eq!(json["node_unit"], "pair");
    }
}
