//! The sample of whole tasks, for engines that offer nothing finer: tasks drawn from a
//! list finer than the count's, timed whole, until they take a small share of the work
//! they predict.

use std::time::{Duration, Instant};

use nqueens_core::{Problem, Task};
use nqueens_scheduler::{CostModel, Finish, Prediction, Progress, Runner, stratified_order};

use crate::gate::Gate;
use crate::options::{Options, PlanError, TaskList, Timed, Watch};
use crate::sample::{NOT_CUT, Sample, SampledTiming, with_run_to_run};

/// The most of the predicted work the sample may take.
pub(crate) const SAMPLE_SHARE: f64 = 0.02;

/// The longest the sample may run, whatever the share, unless the options say otherwise.
const MOST_SAMPLE_TIME: Duration = Duration::from_secs(120);

/// Tasks of the finer list per stratum, so that one round of the sample (a task from each
/// stratum) is about 1% of the list, and the 2% share takes about two rounds.
const TASKS_PER_STRATUM: usize = 100;

/// The most strata: enough to follow how costs change along any list.
const MOST_STRATA: usize = 64;

/// Tasks run per thread before the sample, and not timed: a thread's first tasks pay for
/// the memory its allocator has yet to map, which the count's later tasks reuse.
pub(crate) const WARM_UP_PER_THREAD: usize = 2;

/// Strata for a sampled list of `tasks`.
fn strata(tasks: usize) -> usize {
    (tasks / TASKS_PER_STRATUM).clamp(1, MOST_STRATA)
}

/// A sampled task's timing: its index in the sampled list, its seconds, when it ended
/// (from the sample's start) and its solutions.
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
struct Timing {
    index: usize,
    seconds: f64,
    ended_s: f64,
    solutions: f64,
}

type Timings = Vec<Timing>;

/// Times a stratified sample of `listed`'s tasks; `None` if stopped.
pub(crate) fn sample(
    problem: &Problem,
    listed: TaskList,
    options: &Options,
    watch: &dyn Watch,
) -> Result<Option<Sample>, PlanError> {
    let TaskList { depth, tasks: list } = listed;
    if list.is_empty() {
        // A board with no solution may leave no task to time, and nothing to predict.
        let work = Prediction { expected: 0.0, low: 0.0, high: 0.0 };
        return Ok(Some(Sample {
            list,
            depth,
            timed: Timed::Tasks,
            cut: NOT_CUT,
            costs: Vec::new(),
            work,
            by_time_alone: work,
            per_solution: None,
            count: 0,
            timed_cost: 0.0,
            seconds: 0.0,
            timings: Vec::new(),
        }));
    }
    let (timings, seconds) = time_sample(problem, &list, options, watch)?;
    let Some(timings) = timings else { return Ok(None) };
    let model = model_of(&timings, list.len());
    let work = with_run_to_run(model.total().ok_or(PlanError::NothingTimed)?);
    let mut costs: Vec<Option<f64>> = vec![None; list.len()];
    for timing in &timings {
        costs[timing.index] = Some(timing.seconds);
    }
    let costs = (0..list.len())
        .map(|index| costs[index].or_else(|| model.expected(index)).unwrap_or(0.0))
        .collect();
    let mut timed: Vec<SampledTiming> = (timings.iter())
        .map(|t| SampledTiming {
            list_task: t.index,
            stratum: model.stratum_of(t.index),
            key: list[t.index].key().to_vec(),
            weight: 1.0,
            seconds: t.seconds,
            ended_s: t.ended_s,
            cost: t.seconds,
            solutions: t.solutions,
        })
        .collect();
    timed.sort_by(|a, b| a.ended_s.total_cmp(&b.ended_s));
    Ok(Some(Sample {
        depth,
        timed: Timed::Tasks,
        cut: NOT_CUT,
        list,
        costs,
        work,
        by_time_alone: work,
        per_solution: None,
        count: timings.len(),
        timed_cost: model.timed_cost(),
        seconds,
        timings: timed,
    }))
}

/// The cost model of a sampled list of `tasks` with these `timings`.
fn model_of(timings: &Timings, tasks: usize) -> CostModel {
    let mut model = CostModel::new(tasks, strata(tasks));
    for timing in timings {
        model.observe(timing.index, timing.seconds);
    }
    model
}

/// Times tasks of `list` drawn by a stratified sample, on the options' threads, until
/// they take [`SAMPLE_SHARE`] of the work they predict or the sample's time
/// ([`MOST_SAMPLE_TIME`] by default) has passed; at least one task per stratum. `None` if stopped.
fn time_sample(
    problem: &Problem,
    list: &[Task],
    options: &Options,
    watch: &dyn Watch,
) -> Result<(Option<Timings>, f64), PlanError> {
    let threads = options.threads;
    let most_time = options.sample_time.unwrap_or(MOST_SAMPLE_TIME);
    let strata = strata(list.len());
    let order = stratified_order(&(0..list.len()).collect::<Vec<_>>(), strata, options.seed);
    let indexed: Vec<(usize, Task)> = list.iter().cloned().enumerate().collect();
    let (solver, gate) = (problem.for_sample(options.threads), Gate::default());
    let sample_start = Instant::now();
    let runner = Runner::new(
        indexed,
        move |(index, task): &(usize, Task)| {
            let (counts, spent) = gate.solve_timed(&solver, task)?;
            Ok::<Timings, nqueens_core::Error>(vec![Timing {
                index: *index,
                seconds: spent.as_secs_f64(),
                ended_s: sample_start.elapsed().as_secs_f64(),
                solutions: counts.total as f64,
            }])
        },
        |a: &Timings, b: &Timings| Ok(a.iter().chain(b).copied().collect()),
        Vec::new(),
    )
    .threads(threads)
    .stop_flag(options.stop.clone());

    let tasks = list.len();
    // The warm-up tasks are the last the sample would draw, so a sample that ends before
    // them is no less random. A list too short to spare them gets none.
    let warm_up = if order.len() >= 4 * WARM_UP_PER_THREAD * threads {
        order.len() - WARM_UP_PER_THREAD * threads
    } else {
        order.len()
    };
    let (sample, warm_up) = order.split_at(warm_up);
    let is_warm_up = |index: usize| warm_up.contains(&index);
    let mut warmed = false;
    let mut next = 0;
    let feed = |progress: &Progress<'_, Timings>| {
        if !warmed && !warm_up.is_empty() {
            warmed = true;
            return Ok(warm_up.to_vec());
        }
        let timed: Timings =
            progress.partial.iter().copied().filter(|t| !is_warm_up(t.index)).collect();
        let share = sampled_share(&timed, tasks);
        watch.sampling(Timed::Tasks, timed.len(), share / SAMPLE_SHARE, progress.session);
        let enough = timed.len() >= strata && share >= SAMPLE_SHARE;
        if enough || progress.session >= most_time || next == sample.len() {
            return Ok(Vec::new());
        }
        let batch = sample[next..(next + threads).min(sample.len())].to_vec();
        next += batch.len();
        Ok(batch)
    };
    let report = runner.run_fed(feed, |_| {})?;
    let seconds = report.elapsed.as_secs_f64();
    let timed: Timings = report.result.into_iter().filter(|t| !is_warm_up(t.index)).collect();
    watch.sampled(Timed::Tasks, timed.len(), report.elapsed);
    Ok(((report.finish == Finish::Complete).then_some(timed), seconds))
}

/// The share of the predicted work that the tasks timed so far took.
fn sampled_share(timings: &Timings, tasks: usize) -> f64 {
    let model = model_of(timings, tasks);
    match model.total() {
        Some(total) if total.expected > 0.0 => model.timed_cost() / total.expected,
        _ => 0.0,
    }
}

#[cfg(test)]
mod tests {
    use nqueens_core::Method;

    use super::*;

    /// A sample of whole tasks hands out each task it timed, with the task's own key and
    /// solutions, and its time as its cost.
    #[test]
    fn a_sample_of_whole_tasks_hands_out_each_task_it_timed() {
        let problem = Problem::new(12, Method::Eightfold).unwrap();
        let list = TaskList::of(&problem, problem.depth_for(2000).unwrap()).unwrap();
        let options = Options::new(2, 3);
        let found = sample(&problem, list, &options, &crate::options::Unwatched);
        let found = found.unwrap().expect("not stopped");
        assert_eq!(found.timings().len(), found.count);
        assert!(found.count >= strata(found.list.len()), "{}", found.count);
        for t in found.timings() {
            let task = &found.list[t.list_task];
            assert_eq!(t.key, task.key());
            assert_eq!((t.weight, t.cost), (1.0, t.seconds));
            assert_eq!(t.solutions, problem.solve(task, false).unwrap().total as f64);
        }
    }

    /// The interval holds what it predicts, for work that is exactly known: the nodes
    /// (for the join, pairs tested) of every task of a list, drawn by the stratified
    /// sample the estimate draws, 2% of the tasks at a time.
    #[test]
    fn the_interval_holds_the_work_of_a_known_task_list() {
        for (n, method) in [(13, Method::Eightfold), (14, Method::Eightfold), (18, Method::Join)] {
            let problem = Problem::new(n, method).unwrap();
            let tasks = problem.tasks(problem.depth_for(2000).unwrap()).unwrap();
            let work: Vec<f64> =
                tasks.iter().map(|task| problem.solve(task, true).unwrap().nodes as f64).collect();
            let total: f64 = work.iter().sum();
            let strata = strata(tasks.len());
            let sample = (tasks.len() / 50).max(2 * strata);
            let mut inside = 0;
            for seed in 0..40 {
                let order = stratified_order(&(0..tasks.len()).collect::<Vec<_>>(), strata, seed);
                let timings: Timings = (order[..sample].iter())
                    .map(|&index| Timing {
                        index,
                        seconds: work[index],
                        ended_s: 0.0,
                        solutions: 0.0,
                    })
                    .collect();
                let predicted = model_of(&timings, tasks.len()).total().unwrap();
                if (predicted.low..=predicted.high).contains(&total) {
                    inside += 1;
                }
                let off = predicted.expected / total - 1.0;
                assert!(off.abs() < 0.3, "{method} N = {n}, seed {seed}: {off:+.2}");
            }
            assert!(
                inside >= 34,
                "{method} N = {n}: the interval held the work {inside} of 40 times"
            );
        }
    }
}
