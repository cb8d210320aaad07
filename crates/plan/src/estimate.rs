//! What a count will take: the sample that predicts it, and its wall time on this machine
//! and on a cluster of machines like it.

use nqueens_core::{Problem, Task};
use nqueens_scheduler::{INTERVAL_WIDTH, Prediction, Shard, makespan, sample_first_order};
use serde::Serialize;

use crate::descent;
use crate::options::{Options, PlanError, Subject, TaskList, Timed, Watch};
use crate::sample::Sample;
use crate::split::{MOST_WANTED, Sharing, depth_for};
use crate::whole;

/// What a count is predicted to take, as `estimate --json` prints it.
#[derive(Debug, Serialize)]
pub struct Estimate {
    pub threads: usize,
    /// The split and the number of tasks of the count predicted.
    pub depth: usize,
    pub tasks: usize,
    pub predicted_wall_s: f64,
    pub predicted_wall_s_low: f64,
    pub predicted_wall_s_high: f64,
    pub core_hours: f64,
    pub core_hours_low: f64,
    pub core_hours_high: f64,
    /// Where the count's solutions are known (published, or extrapolated from the
    /// published), the core-hours are the sample's cost per solution times them; these
    /// are the core-hours by the sample's timings alone, which are the core-hours above
    /// where the solutions are not known.
    pub core_hours_by_time_alone: f64,
    pub core_hours_by_time_alone_low: f64,
    pub core_hours_by_time_alone_high: f64,
    /// The sample's cost per solution in core-nanoseconds, the solutions it was multiplied
    /// by, and whether they are published (else extrapolated, with a relative standard
    /// deviation of `solutions_error`).
    pub core_ns_per_solution: Option<f64>,
    pub solutions: Option<f64>,
    pub solutions_published: bool,
    pub solutions_error: f64,
    /// What the sample timed, how many, and the tasks of the list it drew them from.
    pub sampled: Timed,
    pub sampled_count: usize,
    pub sampled_list_tasks: usize,
    /// How long the sample took, and its share of the predicted work.
    pub sample_s: f64,
    pub sample_share: f64,
    pub seed: u64,
}

/// The wall time on a cluster of machines like this one.
#[derive(Debug, Serialize)]
pub struct ClusterEstimate {
    pub cores: usize,
    /// Shards, one per machine of the estimate's threads.
    pub processes: usize,
    pub tasks: usize,
    pub predicted_wall_s: f64,
    pub predicted_wall_s_low: f64,
    pub predicted_wall_s_high: f64,
    /// What was timed for it: 0 where the count's sample served.
    pub sampled_count: usize,
}

/// Estimates the count of `problem` whose tasks are `count`, on the options' threads, its
/// set-up having taken `setup_seconds`; `None` if stopped. The count also counts the
/// solutions rotations leave unchanged once its tasks are done, on its threads: a minute
/// and more near N = 28, so they are sampled too.
pub fn estimate(
    problem: &Problem,
    count: &TaskList,
    setup_seconds: f64,
    options: &Options,
    watch: &dyn Watch,
) -> Result<Option<(Estimate, Sample, f64)>, PlanError> {
    let threads = options.threads;
    let mut fixed_s = setup_seconds;
    for fixed in problem.rotation_fixed()? {
        let list = finer_list(&fixed, &TaskList::of(&fixed, 0)?)?;
        if let Some(turn) = fixed.turn() {
            watch.begins(Subject::UnchangedBy(turn));
        }
        let Some(sample) = whole::sample(&fixed, list, options, watch)? else {
            return Ok(None);
        };
        fixed_s += sample.work.expected / threads as f64;
    }
    watch.begins(Subject::Count);
    let Some(sample) = sample(problem, count, options, watch)? else {
        return Ok(None);
    };
    let wall = wall_time(&sample, &count.tasks, Shard::WHOLE, threads, fixed_s);
    let known = sample.per_solution.map(|found| found.solutions);
    let estimate = Estimate {
        threads,
        depth: count.depth,
        tasks: count.tasks.len(),
        predicted_wall_s: wall.expected,
        predicted_wall_s_low: wall.low,
        predicted_wall_s_high: wall.high,
        core_hours: sample.work.expected / 3600.0,
        core_hours_low: sample.work.low / 3600.0,
        core_hours_high: sample.work.high / 3600.0,
        core_hours_by_time_alone: sample.by_time_alone.expected / 3600.0,
        core_hours_by_time_alone_low: sample.by_time_alone.low / 3600.0,
        core_hours_by_time_alone_high: sample.by_time_alone.high / 3600.0,
        core_ns_per_solution: sample.per_solution.map(|found| 1e9 * found.seconds),
        solutions: known.map(|known| known.total),
        solutions_published: known.is_some_and(|known| known.relative_error == 0.0),
        solutions_error: known.map_or(0.0, |known| known.relative_error),
        sampled: sample.timed,
        sampled_count: sample.count,
        sampled_list_tasks: sample.list.len(),
        sample_s: sample.seconds,
        sample_share: sample.share(),
        seed: options.seed,
    };
    Ok(Some((estimate, sample, fixed_s)))
}

/// The wall time of the count on `cores` cores of machines like this one, each running
/// the options' threads on its shard, from the machine's `sample` where its list serves,
/// and `fixed_s` seconds that each machine spends whatever its share; `None` if stopped.
pub fn cluster(
    problem: &Problem,
    sample: &Sample,
    cores: usize,
    fixed_s: f64,
    options: &Options,
    watch: &dyn Watch,
) -> Result<Option<ClusterEstimate>, PlanError> {
    let threads = options.threads;
    let processes = cores.div_ceil(threads);
    let list = TaskList::of(problem, depth_for(problem, Sharing::Shared { processes })?)?;
    // Where tasks share work, finer tasks cost more in all than the task they refine, so a
    // cluster's deeper list is sampled on its own rather than summed into the count's.
    let own;
    let (sample, sampled_count) = if list.depth <= sample.depth {
        (sample, 0)
    } else {
        watch.begins(Subject::Shards);
        let Some(taken) = self::sample(problem, &list, options, watch)? else {
            return Ok(None);
        };
        own = taken;
        (&own, own.count)
    };
    let task_costs = sample.task_costs(&list.tasks);
    // Shards past the list's length have no task: the slowest is among the others, so the
    // work here grows with the list, not with the cores.
    let slowest = (0..processes.min(list.tasks.len()))
        .map(|index| {
            let shard = Shard::new(index, processes).expect("index < processes");
            shard_wall_time(&task_costs, shard, threads)
        })
        .fold(0.0, f64::max);
    let wall = spread_like(slowest, sample.work, fixed_s);
    Ok(Some(ClusterEstimate {
        cores,
        processes,
        tasks: list.tasks.len(),
        predicted_wall_s: wall.expected,
        predicted_wall_s_low: wall.low,
        predicted_wall_s_high: wall.high,
        sampled_count,
    }))
}

/// A sample of the count whose tasks are `count`: descents below its tasks where the
/// engine offers finer tasks, else whole tasks of a finer list.
pub(crate) fn sample(
    problem: &Problem,
    count: &TaskList,
    options: &Options,
    watch: &dyn Watch,
) -> Result<Option<Sample>, PlanError> {
    let has_children = match count.tasks.first() {
        Some(task) => !problem.children(task)?.is_empty(),
        None => false,
    };
    if has_children {
        descent::sample(problem, count.clone(), options, watch)
    } else {
        whole::sample(problem, finer_list(problem, count)?, options, watch)
    }
}

/// The finer list a sample of whole tasks is drawn from, at least as deep as `count`.
fn finer_list(problem: &Problem, count: &TaskList) -> Result<TaskList, PlanError> {
    let wanted = problem.sampled_tasks(count.tasks.len()).min(MOST_WANTED);
    let depth = problem.depth_for(wanted)?.max(count.depth);
    TaskList::of(problem, depth)
}

/// The time `threads` threads take over `shard`'s share of `tasks` with the sample's
/// costs, served as the runner serves them, plus `fixed_s`, with an interval as wide as
/// the sample's.
fn wall_time(
    sample: &Sample,
    tasks: &[Task],
    shard: Shard,
    threads: usize,
    fixed_s: f64,
) -> Prediction {
    let costs = sample.task_costs(tasks);
    spread_like(shard_wall_time(&costs, shard, threads), sample.work, fixed_s)
}

/// The time `threads` threads take over `shard`'s share of tasks that cost `task_costs`,
/// served as the runner serves them.
fn shard_wall_time(task_costs: &[f64], shard: Shard, threads: usize) -> f64 {
    let pending: Vec<usize> = shard.select(task_costs.len()).collect();
    let order = sample_first_order(&pending, task_costs.len());
    makespan(order.iter().map(|&index| task_costs[index]), threads)
}

/// What a count's process spends where no clock of its own can see: from its launch to
/// its first instruction (1.7 ms) and from its result to its end (0.9 to 1.6 ms), measured
/// on an Intel Xeon for `count 16` and `count 17` by timestamps against their launcher's
/// clock (docs/measurements/estimator.md). Without it `estimate 16` predicted 0.85 (avx512)
/// and 0.92 (avx2) of the count's wall time on average.
const START_AND_EXIT_S: f64 = 0.003;

/// How far a whole process's wall time strays from run to run besides its work's share of
/// the noise, as a standard deviation: 12 counts of N = 16 (46 ms) on 2 threads spread by
/// 5.4 ms, of which the relative noise of a long count explains 2.8 ms. A short count's
/// interval is therefore no narrower than about 10 ms either side.
const PROCESS_JITTER_S: f64 = 0.005;

/// A wall time of `seconds` of work, whose interval is as wide relative to it as `work`'s
/// is, plus `fixed` seconds that do not vary and what the process spends outside its
/// clock, widened by a process's jitter.
fn spread_like(seconds: f64, work: Prediction, fixed: f64) -> Prediction {
    let ratio = |figure: f64| if work.expected > 0.0 { figure / work.expected } else { 1.0 };
    let expected = seconds + fixed + START_AND_EXIT_S;
    let jitter = INTERVAL_WIDTH * PROCESS_JITTER_S;
    Prediction {
        expected,
        low: (expected - (seconds * (1.0 - ratio(work.low))).hypot(jitter)).max(0.0),
        high: expected + (seconds * (ratio(work.high) - 1.0)).hypot(jitter),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A count of 40 ms strays by milliseconds whatever its sample says, one of hours by
    /// its work's share: the jitter widens the first and not the second.
    #[test]
    fn a_short_count_keeps_a_process_jitter_a_long_one_its_relative_spread() {
        let exact = Prediction { expected: 0.08, low: 0.08, high: 0.08 };
        let short = spread_like(0.04, exact, 0.005);
        assert_eq!(short.expected, 0.04 + 0.005 + START_AND_EXIT_S);
        let jitter = INTERVAL_WIDTH * PROCESS_JITTER_S;
        assert!((short.high - short.expected - jitter).abs() < 1e-12, "{short:?}");
        assert!((short.expected - short.low - jitter).abs() < 1e-12, "{short:?}");

        let work = Prediction { expected: 7200.0, low: 6480.0, high: 7920.0 };
        let long = spread_like(3600.0, work, 1.0);
        let relative = (long.high - long.expected) / 3600.0;
        assert!((relative - 0.1).abs() < 1e-6, "{long:?}");
        assert!(long.low < long.expected && long.expected < long.high);
    }

    /// What each sample begins on, in order.
    #[derive(Default)]
    struct Subjects(std::sync::Mutex<Vec<Subject>>);

    impl Watch for Subjects {
        fn begins(&self, subject: Subject) {
            self.0.lock().unwrap().push(subject);
        }
        fn sampling(&self, _: Timed, _: usize, _: f64, _: std::time::Duration) {}
        fn sampled(&self, _: Timed, _: usize, _: std::time::Duration) {}
        fn checking(&self, _: usize, _: usize, _: std::time::Duration) {}
    }

    /// A unique count runs the counts of the solutions each turn leaves unchanged too, so
    /// its estimate samples them, and says so before each; a cluster's finer list, where
    /// the count's own does not serve, is a sample of its own.
    #[test]
    fn each_sample_says_what_it_is_of() {
        use nqueens_core::{Method, Turn};
        let problem = Problem::new(12, Method::Join).unwrap();
        let list = TaskList::of(&problem, 0).unwrap();
        let options = Options {
            sample_time: Some(std::time::Duration::from_millis(50)),
            ..Options::new(1, 1)
        };
        let watch = Subjects::default();
        let (_, sample, fixed_s) =
            estimate(&problem, &list, 0.0, &options, &watch).unwrap().expect("not stopped");
        cluster(&problem, &sample, 4096, fixed_s, &options, &watch).unwrap().expect("not stopped");
        let subjects = watch.0.into_inner().unwrap();
        assert_eq!(
            subjects,
            [
                Subject::UnchangedBy(Turn::Half),
                Subject::UnchangedBy(Turn::Quarter),
                Subject::Count,
                Subject::Shards
            ]
        );
    }
}
