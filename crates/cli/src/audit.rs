//! `count --audit F`: a count that checks itself. A seeded share of the tasks keep their
//! own results beside the sum (in the checkpoint too), and once the count is done they are
//! counted again on another kernel, and where the method splits a task finer
//! ([`Problem::children`]: the join's next row) as the sum of its parts, a walk of the
//! same solutions in other pieces, and compared one
//! by one. A run of weeks on many machines
//! meets bit flips, bad nodes and paths the tests never reach; a total is reported only if
//! every audited task agrees, and a task that does not is named.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

use anyhow::bail;
use nqueens_core::{Counts, Kernel, Problem, Task};
use nqueens_random::mix;
use nqueens_scheduler::{Finish, Runner, Shard};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::cli::ProgressMode;
use crate::progress::{Display, Found, grouped};
use crate::signals::Signals;

/// Which tasks an audit recounts: each task of the shard independently, with probability
/// `fraction`, by a hash of the seed and its index, so that a resumed run audits the same
/// tasks; at least one.
#[derive(Clone, Debug)]
pub(crate) struct Audit {
    pub(crate) fraction: f64,
    pub(crate) seed: u64,
    chosen: BTreeSet<usize>,
}

impl Audit {
    pub(crate) fn choose(fraction: f64, seed: u64, shard: Shard, tasks: usize) -> Audit {
        let draw = |index: usize| mix(seed ^ mix(index as u64));
        // Below this, a draw is chosen: the share `fraction` of all u64s.
        let below = (fraction * 2f64.powi(64)).min(u64::MAX as f64) as u64;
        let mut chosen: BTreeSet<usize> =
            shard.select(tasks).filter(|&index| draw(index) < below).collect();
        if chosen.is_empty()
            && let Some(least) = shard.select(tasks).min_by_key(|&index| draw(index))
        {
            chosen.insert(least);
        }
        Audit { fraction, seed, chosen }
    }

    pub(crate) fn contains(&self, index: usize) -> bool {
        self.chosen.contains(&index)
    }

    /// How the checkpoint names the audit: a run resumes only with the same one.
    pub(crate) fn identity(&self) -> String {
        format!("{} of the tasks, seed {}", self.fraction, self.seed)
    }

    /// Counts the chosen tasks again, on the fastest kernel other than the count's that
    /// this processor runs (the count's own where there is no other) and as the sum of
    /// their parts where the method has any, and compares them with what the count
    /// `recorded`. `None` if a signal stopped it.
    pub(crate) fn check(
        &self,
        problem: &Problem,
        tasks: &[Task],
        recorded: &BTreeMap<usize, Counts>,
        threads: usize,
        signals: &Signals,
        progress: ProgressMode,
    ) -> anyhow::Result<Option<AuditReport>> {
        let ran_on = problem.kernel();
        let recount = [Kernel::Avx512, Kernel::Avx2, Kernel::Scalar]
            .into_iter()
            .filter(|&kernel| kernel != ran_on)
            .find_map(|kernel| problem.with_kernel(kernel).ok())
            .unwrap_or_else(|| problem.clone());
        let chosen: Vec<(usize, Task)> =
            self.chosen.iter().map(|&index| (index, tasks[index].clone())).collect();
        let in_parts = match tasks.first() {
            Some(task) => !recount.children(task)?.is_empty(),
            None => false,
        };
        let how = if in_parts { " as the sums of their parts" } else { "" };
        let mut display = Display::phase(
            progress,
            "auditing",
            &format!(
                "auditing: counting {} of {} tasks again on {}{how}",
                grouped(chosen.len() as u128),
                grouped(tasks.len() as u128),
                recount.kernel()
            ),
        );
        let solver = recount.clone();
        let report = Runner::new(
            chosen,
            move |(index, task): &(usize, Task)| {
                let parts = solver.children(task)?;
                let counts = if parts.is_empty() {
                    solver.solve(task, false)?
                } else {
                    parts.iter().try_fold(Counts::default(), |sum, part| {
                        sum.merge(&solver.solve(part, false)?)
                    })?
                };
                Ok(Tally::of_task(counts, *index, true))
            },
            Tally::merge,
            Tally::default(),
        )
        .threads(threads)
        .stop_flag(signals.flag())
        .run(|progress| display.update(progress));
        display.finish();
        let report = report?;
        if report.finish == Finish::Stopped {
            return Ok(None);
        }
        for (&index, again) in &report.result.by_task {
            let key = tasks[index].key();
            let Some(first) = recorded.get(&index) else {
                bail!("audit failed: task {index} (key {key:?}) has no recorded result");
            };
            if (first.total, first.thirds) != (again.total, again.thirds) {
                bail!(
                    "audit failed: task {index} of {} (key {key:?}) counted {} on {ran_on} but \
                     {} on {}{}; no total is reported: recount that task on another machine",
                    tasks.len(),
                    Shown(first),
                    Shown(again),
                    recount.kernel(),
                    if recount.children(&tasks[index])?.is_empty() { "" } else { " in parts" },
                );
            }
        }
        let audited = report.result.by_task.len();
        Ok(Some(AuditReport {
            fraction: self.fraction,
            seed: self.seed,
            kernel: recount.kernel(),
            in_parts,
            tasks: audited,
            agreed: audited,
            elapsed_s: Some(report.elapsed.as_secs_f64()),
        }))
    }
}

/// A task's count as the audit names it: whole solutions, and thirds where there are any.
struct Shown<'a>(&'a Counts);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0.thirds {
            0 => write!(f, "{}", self.0.total),
            thirds => write!(f, "{} and {thirds}/3", self.0.total),
        }
    }
}

/// What an audit checked, as the JSON report records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct AuditReport {
    pub(crate) fraction: f64,
    pub(crate) seed: u64,
    /// The kernel the audited tasks were counted again on.
    pub(crate) kernel: Kernel,
    /// Whether each was counted again as the sum of its parts one level finer.
    #[serde(default)]
    pub(crate) in_parts: bool,
    /// Tasks counted again.
    pub(crate) tasks: usize,
    /// Tasks whose two counts agreed: all of them, or no report is made.
    pub(crate) agreed: usize,
    /// Seconds the recount took, which the count's `elapsed_s` does not hold; for merged
    /// shards, summed; absent in reports written before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) elapsed_s: Option<f64>,
}

/// A count's merged result, and the results of the tasks it keeps one by one (the audited
/// ones, and every one of a shard). Without any, it is written as the [`Counts`] alone, so checkpoints of counts
/// without an audit read as before.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Tally {
    pub(crate) counts: Counts,
    pub(crate) by_task: BTreeMap<usize, Counts>,
}

impl Tally {
    /// The tally of `counts` from task `index`, kept one by one if `keep`.
    pub(crate) fn of_task(counts: Counts, index: usize, keep: bool) -> Tally {
        let by_task = if keep { BTreeMap::from([(index, counts)]) } else { BTreeMap::new() };
        Tally { counts, by_task }
    }

    pub(crate) fn merge(a: &Tally, b: &Tally) -> Result<Tally, nqueens_core::Error> {
        let mut by_task = a.by_task.clone();
        by_task.extend(&b.by_task);
        Ok(Tally { counts: a.counts.merge(&b.counts)?, by_task })
    }
}

impl Found for Tally {
    fn found(&self) -> u128 {
        self.counts.total
    }
}

// Written by hand: serde's `flatten`, which would keep the counts' fields at the top, cannot
// hold the `u128`s.
impl Serialize for Tally {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let fields = 3 + usize::from(!self.by_task.is_empty());
        let mut map = serializer.serialize_map(Some(fields))?;
        map.serialize_entry("total", &self.counts.total)?;
        map.serialize_entry("thirds", &self.counts.thirds)?;
        map.serialize_entry("nodes", &self.counts.nodes)?;
        if !self.by_task.is_empty() {
            map.serialize_entry("by_task", &self.by_task)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Tally {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Tally, D::Error> {
        struct TallyVisitor;

        impl<'de> Visitor<'de> for TallyVisitor {
            type Value = Tally;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("counts: total, thirds, nodes, and by_task where tasks are kept")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Tally, A::Error> {
                let mut tally = Tally::default();
                let mut total = None;
                while let Some(field) = map.next_key::<String>()? {
                    match field.as_str() {
                        "total" => total = Some(map.next_value()?),
                        "thirds" => tally.counts.thirds = map.next_value()?,
                        "nodes" => tally.counts.nodes = map.next_value()?,
                        "by_task" => tally.by_task = map.next_value()?,
                        other => return Err(de::Error::unknown_field(other, FIELDS)),
                    }
                }
                tally.counts.total = total.ok_or_else(|| de::Error::missing_field("total"))?;
                Ok(tally)
            }
        }

        const FIELDS: &[&str] = &["total", "thirds", "nodes", "by_task"];
        deserializer.deserialize_map(TallyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tally_without_kept_tasks_reads_and_writes_as_counts() {
        let counts = Counts { total: 234_907_967_154_122_528, thirds: 2, nodes: 7 };
        let written = serde_json::to_string(&counts).unwrap();
        let tally: Tally = serde_json::from_str(&written).unwrap();
        assert_eq!(tally, Tally { counts, by_task: BTreeMap::new() });
        assert_eq!(serde_json::to_string(&tally).unwrap(), written);
        let kept = Tally { counts, by_task: BTreeMap::from([(3, counts)]) };
        let read: Tally = serde_json::from_str(&serde_json::to_string(&kept).unwrap()).unwrap();
        assert_eq!(read, kept);
    }

    #[test]
    fn the_chosen_share_follows_the_fraction_and_the_seed() {
        let shard = Shard::WHOLE;
        let chosen = |fraction, seed| Audit::choose(fraction, seed, shard, 10_000).chosen;
        let hundredth = chosen(0.01, 0).len();
        assert!((60..=140).contains(&hundredth), "{hundredth} of 10000");
        assert_eq!(chosen(0.01, 0), chosen(0.01, 0));
        assert_ne!(chosen(0.01, 0), chosen(0.01, 1));
        assert_eq!(chosen(1.0, 0).len(), 10_000);
        assert_eq!(Audit::choose(1e-9, 0, shard, 10).chosen.len(), 1, "at least one");
        let half = Shard::new(1, 2).unwrap();
        assert!(Audit::choose(0.5, 0, half, 100).chosen.iter().all(|&i| half.contains(i)));
    }
}
