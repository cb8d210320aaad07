//! A timed sample of a task list, what it predicts of each task, and the noise every
//! prediction carries.

use nqueens_core::{SolutionsOf, Task};
use nqueens_scheduler::{INTERVAL_WIDTH, Prediction};
use serde::Serialize;

use crate::options::Timed;

/// The cut of a path that is not cut: its units are timed alone.
pub(crate) const NOT_CUT: usize = usize::MAX;

/// A timed sample of a task list, and what it predicts of each of its tasks.
#[derive(Debug)]
pub struct Sample {
    pub(crate) list: Vec<Task>,
    /// The split of the list.
    pub(crate) depth: usize,
    pub(crate) timed: Timed,
    /// Where units were timed with the tasks above them, the length of those tasks' keys
    /// ([`NOT_CUT`] if not).
    pub(crate) cut: usize,
    /// Each task's cost, in thread-seconds: its time if timed whole, else its stratum's
    /// mean.
    pub(crate) costs: Vec<f64>,
    /// The whole list's work, in thread-seconds.
    pub(crate) work: Prediction,
    /// The work by the timings alone, where `work` is the sample's cost per solution
    /// times the solutions known; else the same as `work`.
    pub(crate) by_time_alone: Prediction,
    /// The sample's cost per solution and the solutions it was multiplied by, where they
    /// are known.
    pub(crate) per_solution: Option<PerSolution>,
    /// How many tasks, units or pieces were timed, the thread-seconds they took, and the
    /// sample's wall time.
    pub(crate) count: usize,
    pub(crate) timed_cost: f64,
    pub(crate) seconds: f64,
    /// The timings the estimate rests on, in the order they ended.
    pub(crate) timings: Vec<SampledTiming>,
}

/// One timing of a sample, and what it says of the list task it was drawn from: what
/// `estimate --timings` writes, so that a plan can be taken apart draw by draw (which
/// draws weigh most, whether the dear ones share a place or a stretch of the list).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct SampledTiming {
    /// The list task it was drawn from (its index in the list), and that task's stratum.
    pub list_task: usize,
    pub stratum: usize,
    /// The key of the task, unit or piece timed, and how many like it the list task holds
    /// (the inverse of the chance of drawing it).
    pub key: Vec<u8>,
    pub weight: f64,
    /// How long it took, and when it ended, from the sample's start.
    pub seconds: f64,
    pub ended_s: f64,
    /// The list task's cost in thread-seconds and its solutions, as this timing estimates
    /// them.
    pub cost: f64,
    pub solutions: f64,
}

/// A sample's cost per solution, in thread-seconds, and the solutions known that it
/// multiplies to the count's work.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct PerSolution {
    pub(crate) seconds: f64,
    pub(crate) solutions: SolutionsOf,
}

impl Sample {
    /// What the sample timed.
    pub fn timed(&self) -> Timed {
        self.timed
    }

    /// The work of the list, in thread-seconds.
    pub fn work(&self) -> Prediction {
        self.work
    }

    /// The timings the estimate rests on, in the order they ended.
    pub fn timings(&self) -> &[SampledTiming] {
        &self.timings
    }

    /// The share of the predicted work the sample took.
    pub(crate) fn share(&self) -> f64 {
        self.timed_cost / self.work.expected.max(f64::MIN_POSITIVE)
    }

    /// The cost of each of `tasks`: the sampled list's tasks that it holds (those whose
    /// key starts with its key).
    pub(crate) fn task_costs(&self, tasks: &[Task]) -> Vec<f64> {
        costs_by_prefix(&self.costs, &self.list, tasks)
    }
}

/// Run-to-run noise of a count's time on a shared machine, as a relative standard
/// deviation: the same count of N = 20 took up to 8% longer from one day to the next on
/// one machine (docs/measurements/frontier.md). It does not average out over a count's tasks, so it
/// widens every interval beside the sampling error.
pub(crate) const RUN_TO_RUN: f64 = 0.06;

/// `work` with the run-to-run noise of [`RUN_TO_RUN`] added to its sampling error.
pub(crate) fn with_run_to_run(work: Prediction) -> Prediction {
    with_noise(work, RUN_TO_RUN)
}

/// `work` with a relative standard deviation of `noise` added to its sampling error.
pub(crate) fn with_noise(work: Prediction, noise: f64) -> Prediction {
    let sampling = (work.high - work.expected).max(work.expected - work.low);
    let noise = INTERVAL_WIDTH * noise * work.expected;
    let margin = sampling.hypot(noise);
    Prediction {
        expected: work.expected,
        low: (work.expected - margin).max(0.0),
        high: work.expected + margin,
    }
}

/// A number in [0, 1) from a random word.
pub(crate) fn unit_interval(random: u64) -> f64 {
    (random >> 11) as f64 / (1u64 << 53) as f64
}

/// The cost of each of `tasks`: the sum of the `costs` of the tasks of `finer` whose key
/// starts with its key. Tasks of one list are in key order, so one pass matches them.
pub(crate) fn costs_by_prefix(costs: &[f64], finer: &[Task], tasks: &[Task]) -> Vec<f64> {
    let mut sums = vec![0.0; tasks.len()];
    let mut at = 0;
    for (task, cost) in finer.iter().zip(costs) {
        while at < tasks.len() && !task.key().starts_with(tasks[at].key()) {
            at += 1;
        }
        match sums.get_mut(at) {
            Some(sum) => *sum += cost,
            None => unreachable!("every finer task extends a task of the coarser list"),
        }
    }
    sums
}

#[cfg(test)]
mod tests {
    use nqueens_core::{Kernel, Method, Problem};

    use super::*;

    #[test]
    fn every_finer_task_falls_in_the_task_it_extends() {
        for method in Method::ALL {
            for n in [8, 9, 12, 13] {
                let problem = Problem::new(n, method).unwrap().with_kernel(Kernel::Auto).unwrap();
                let shallow = problem.depth_for(16).unwrap();
                let coarse = problem.tasks(shallow).unwrap();
                let fine = problem.tasks((shallow + 2).min(problem.max_depth())).unwrap();
                // Each finer task costs its index + 1, so each sum names its tasks.
                let costs: Vec<f64> = (1..=fine.len()).map(|i| i as f64).collect();
                let sums = costs_by_prefix(&costs, &fine, &coarse);
                for (task, sum) in coarse.iter().zip(&sums) {
                    let expected: f64 = fine
                        .iter()
                        .zip(&costs)
                        .filter(|(f, _)| f.key().starts_with(task.key()))
                        .map(|(_, c)| c)
                        .sum();
                    assert_eq!(*sum, expected, "{method} N = {n}, {task:?}");
                }
                assert_eq!(sums.iter().sum::<f64>(), costs.iter().sum::<f64>());
            }
        }
    }
}
