//! `nqueens estimate`: what a count will take, predicted from a timed sample of its tasks.
//!
//! The count's task list is split finer, the finer list is cut into strata of consecutive
//! tasks, and tasks are drawn at random from every stratum in turn and timed on as many
//! threads as the count would run ([`nqueens_scheduler::CostModel`]). The sample stops at a
//! small share of the work it predicts. Each task of the count is then the sum of its finer
//! tasks, timed or taken at their stratum's mean, and the count's wall time is the time its
//! workers take to work through those tasks in the order the runner serves them.

use std::cell::Cell;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens_core::{Method, Problem, Task};
use nqueens_scheduler::{
    CostModel, Finish, Prediction, Progress, Runner, Shard, makespan, sample_first_order,
    stratified_order,
};
use serde::Serialize;

use crate::cli::{DescendTo, EstimateArgs, ProgressMode};
use crate::count::check_memory;
use crate::exit::usage;
use crate::host::Host;
use crate::memory;
use crate::output::{self, say};
use crate::progress::draws_bar;
use crate::signals::Signals;
use crate::spec::{self, RunSpec, Sharing};

mod descent;

use self::descent::Descents;

/// The most of the predicted work the sample may take.
const SAMPLE_SHARE: f64 = 0.02;

/// Run-to-run noise of a count's time on a shared machine, as a relative standard
/// deviation: the same count of N = 20 took 41.4 s to 44.8 s from one day to the next
/// (docs/measurements.md). It does not average out over a count's tasks, so it widens
/// every interval beside the sampling error.
const RUN_TO_RUN: f64 = 0.06;

/// The longest the sample may run, whatever the share.
const MOST_SAMPLE_TIME: Duration = Duration::from_secs(120);

/// Tasks of the finer list per stratum, so that one round of the sample (a task from each
/// stratum) is about 1% of the list, and the 2% share takes about two rounds.
const TASKS_PER_STRATUM: usize = 100;

/// The most strata: enough to follow how costs change along any list.
const MOST_STRATA: usize = 64;

/// The largest cluster predicted: beyond the largest machines built, and a bound that
/// keeps a mistyped `--cores` from being taken for a plan.
const MOST_CORES: usize = 100_000_000;

/// Tasks run per thread before the sample, and not timed: a thread's first tasks pay for
/// the memory its allocator has yet to map, which the count's later tasks reuse. At N = 18
/// the join's sample predicted 4.2 to 5.5 s for a 3.2 s count without them.
const WARM_UP_PER_THREAD: usize = 2;

/// The times of the sampled tasks: their index in the sampled list, and seconds.
type Timings = Vec<(usize, f64)>;

pub(crate) fn run(args: EstimateArgs) -> anyhow::Result<ExitCode> {
    let signals = Signals::install()?;
    let threads = spec::threads(args.board.threads)?;
    if let Some(cores) = args.cores
        && cores.get() > MOST_CORES
    {
        return Err(usage!(
            "--cores {cores} is more than the {MOST_CORES} cores predicted at most"
        ));
    }
    let started = Instant::now();
    let problem = spec::board(&args.board, &[])?;
    let problem = check_memory(problem, threads, args.board.max_memory)?;
    let count = RunSpec::new(problem.clone(), None, Sharing::Alone { threads })?;
    let cluster = args
        .cores
        .map(|cores| {
            let processes = cores.get().div_ceil(threads);
            RunSpec::new(problem.clone(), None, Sharing::Shared { processes })
                .map(|spec| (cores.get(), processes, spec))
        })
        .transpose()?;
    // A count builds its task list and checks its memory before its first task.
    let setup_s = started.elapsed().as_secs_f64();
    let options = SampleOptions {
        threads,
        seed: args.seed,
        progress: args.board.progress,
        descend_to: args.descend,
    };
    // And it counts the solutions fixed by rotations, on its threads, once its tasks are
    // done: a minute and more near N = 28, so they are sampled too.
    let mut fixed_s = setup_s;
    for fixed in problem.rotation_fixed()? {
        let list = sampled_tasks(&fixed, fixed.tasks(0)?.len(), 0)?;
        let Some(sample) = Sample::take(&fixed, list, options, &signals)? else {
            return Ok(stopped(&signals));
        };
        fixed_s += sample.work.expected / threads as f64;
    }

    let memory_before = memory::peak_resident_bytes();
    let list = sampled_tasks(&problem, count.tasks.len(), count.identity.depth)?;
    let deepest = match &cluster {
        Some((_, _, spec)) if spec.identity.depth > count.identity.depth => spec.tasks.clone(),
        _ => list.clone(),
    };
    let has_parts = !problem.parts(&list[0], false)?.is_empty();
    let sample = if has_parts {
        let Some(descents) = Descents::take(&problem, &deepest, options, &signals)? else {
            return Ok(stopped(&signals));
        };
        let descended = Sample::of_descents(deepest, descents, threads);
        // Where whole tasks are small enough, a sample of them also times what parts
        // leave out (the walk a task shares between its row sets) and holds the memory
        // the count's threads will.
        let whole_cost = (strata(list.len()) as f64 / list.len() as f64).max(SAMPLE_SHARE)
            * descended.work.expected
            / threads as f64;
        let same_list = descended.list.len() == list.len();
        if same_list && whole_cost <= MOST_SAMPLE_TIME.as_secs_f64() / 2.0 && args.descend.is_none()
        {
            let Some(whole) = Sample::take(&problem, list, options, &signals)? else {
                return Ok(stopped(&signals));
            };
            whole
        } else {
            descended
        }
    } else {
        let Some(whole) = Sample::take(&problem, list, options, &signals)? else {
            return Ok(stopped(&signals));
        };
        whole
    };
    let wall = spread_like(sample.wall_time(&count.tasks, Shard::WHOLE), sample.work, fixed_s);
    let cluster = match cluster {
        None => None,
        Some((cores, processes, spec)) => {
            // Where tasks share work, finer tasks cost more in all than the task they
            // refine, so a cluster's deeper list is sampled on its own rather than summed
            // into the count's.
            let own;
            let sample = if spec.identity.depth <= sample.depth {
                &sample
            } else {
                let list = sampled_tasks(&problem, spec.tasks.len(), spec.identity.depth)?;
                let Some(taken) = Sample::take(&problem, list, options, &signals)? else {
                    return Ok(stopped(&signals));
                };
                own = taken;
                &own
            };
            let task_costs = sample.task_costs(&spec.tasks);
            // Shards past the list's length have no task: the slowest is among the others,
            // so the work here grows with the list, not with the cores.
            let slowest = (0..processes.min(spec.tasks.len()))
                .map(|index| {
                    let shard = Shard::new(index, processes).expect("index < processes");
                    sample.shard_wall_time(&task_costs, shard)
                })
                .fold(0.0, f64::max);
            let wall = spread_like(slowest, sample.work, fixed_s);
            Some(ClusterEstimate {
                cores,
                processes,
                tasks: spec.tasks.len(),
                predicted_wall_s: wall.expected,
                predicted_wall_s_low: wall.low,
                predicted_wall_s_high: wall.high,
                sampled_tasks: sample.timed,
            })
        }
    };
    let peak_memory_bytes = if sample.descended.is_some() {
        peak_memory(&problem, threads, memory_before)?
    } else {
        memory::peak_resident_bytes().unwrap_or(0)
    };

    let estimate = Estimate {
        n: problem.n(),
        method: problem.method(),
        kernel: problem.kernel().name(),
        threads,
        depth: count.identity.depth,
        tasks: count.tasks.len(),
        predicted_wall_s: wall.expected,
        predicted_wall_s_low: wall.low,
        predicted_wall_s_high: wall.high,
        core_hours: sample.work.expected / 3600.0,
        core_hours_low: sample.work.low / 3600.0,
        core_hours_high: sample.work.high / 3600.0,
        peak_memory_bytes,
        sampled_tasks: sample.timed,
        sampled_list_tasks: sample.list.len(),
        descended: sample.descended,
        sample_s: sample.seconds,
        sample_share: sample.share(),
        seed: args.seed,
        cluster,
        host: Host::this(),
    };
    let text = estimate.text();
    let printed =
        if args.json { format!("{}\n", serde_json::to_string(&estimate)?) } else { text.clone() };
    output::print_result(&printed, &text.trim_end().replace('\n', "; "))?;
    Ok(ExitCode::SUCCESS)
}

/// What `estimate` predicts, as `--json` prints it.
#[derive(Debug, Serialize)]
struct Estimate {
    n: usize,
    method: Method,
    kernel: &'static str,
    threads: usize,
    /// The split and the number of tasks of the count predicted.
    depth: usize,
    tasks: usize,
    predicted_wall_s: f64,
    predicted_wall_s_low: f64,
    predicted_wall_s_high: f64,
    core_hours: f64,
    core_hours_low: f64,
    core_hours_high: f64,
    peak_memory_bytes: u64,
    /// Tasks timed (parts of tasks, if `descended`), out of the finer list the sample was
    /// drawn from.
    sampled_tasks: usize,
    sampled_list_tasks: usize,
    /// What the sample timed below the list's tasks, if not the tasks themselves.
    descended: Option<DescendTo>,
    /// How long the sample took, and its share of the predicted work.
    sample_s: f64,
    sample_share: f64,
    seed: u64,
    cluster: Option<ClusterEstimate>,
    /// The machine timed, which the prediction is for.
    host: Host,
}

/// The wall time on a cluster of machines like this one.
#[derive(Debug, Serialize)]
struct ClusterEstimate {
    cores: usize,
    /// Shards, one per machine of `threads` threads.
    processes: usize,
    tasks: usize,
    predicted_wall_s: f64,
    predicted_wall_s_low: f64,
    predicted_wall_s_high: f64,
    /// Tasks timed for it: 0 where the count's sample served.
    sampled_tasks: usize,
}

impl Estimate {
    fn text(&self) -> String {
        let mut text = format!(
            "N={} method={} kernel={} threads={}: about {} ({} to {}), {:.3} core-hours ({:.3} \
             to {:.3}), peak memory about {}\n",
            self.n,
            self.method,
            self.kernel,
            self.threads,
            duration(self.predicted_wall_s),
            duration(self.predicted_wall_s_low),
            duration(self.predicted_wall_s_high),
            self.core_hours,
            self.core_hours_low,
            self.core_hours_high,
            memory::human(self.peak_memory_bytes),
        );
        if let Some(cluster) = &self.cluster {
            text += &format!(
                "on {} cores ({} machines of {} threads, --shard I/{}): about {} ({} to {})\n",
                cluster.cores,
                cluster.processes,
                self.threads,
                cluster.processes,
                duration(cluster.predicted_wall_s),
                duration(cluster.predicted_wall_s_low),
                duration(cluster.predicted_wall_s_high),
            );
        }
        let timed = match self.descended {
            None => "of",
            Some(DescendTo::RowSets) => "row sets below",
            Some(DescendTo::Parts) => "parts of row sets below",
        };
        text += &format!(
            "sampled {} {timed} {} tasks in {:.1}s ({:.1}% of the predicted work, seed {})\n",
            self.sampled_tasks,
            self.sampled_list_tasks,
            self.sample_s,
            100.0 * self.sample_share,
            self.seed,
        );
        text
    }
}

/// What `estimate` says when a signal stops it.
fn stopped(signals: &Signals) -> ExitCode {
    say!("estimate stopped before its prediction");
    signals.exit_code()
}

/// How a sample is run: on the count's threads, drawn by `seed`, its progress shown so,
/// descending as far as asked or as far as it needs.
#[derive(Clone, Copy)]
struct SampleOptions {
    threads: usize,
    seed: u64,
    progress: ProgressMode,
    descend_to: Option<DescendTo>,
}

/// A timed sample of a finer task list, and what it predicts of each of its tasks.
struct Sample {
    list: Vec<Task>,
    /// The split of the list.
    depth: usize,
    /// What it timed below the list's tasks, if not the tasks themselves.
    descended: Option<DescendTo>,
    /// Each task's cost: its time if timed, else its stratum's mean.
    costs: Vec<f64>,
    /// The whole list's work, in thread-seconds.
    work: Prediction,
    timed: usize,
    timed_cost: f64,
    threads: usize,
    /// How long the sample took.
    seconds: f64,
}

impl Sample {
    /// Times a sample of `list`; `None` if a signal stopped it.
    fn take(
        problem: &Problem,
        list: Vec<Task>,
        options: SampleOptions,
        signals: &Signals,
    ) -> anyhow::Result<Option<Sample>> {
        let (timings, seconds) = time_sample(problem, &list, options, signals)?;
        let Some(timings) = timings else { return Ok(None) };
        let model = model_of(&timings, list.len());
        let work = with_run_to_run(model.total().context("no task of the sample finished")?);
        let mut costs: Vec<Option<f64>> = vec![None; list.len()];
        for &(index, seconds) in &timings {
            costs[index] = Some(seconds);
        }
        let costs = (0..list.len())
            .map(|index| costs[index].or_else(|| model.expected(index)).unwrap_or(0.0))
            .collect();
        Ok(Some(Sample {
            depth: list.first().map_or(0, |task| task.key().len()),
            descended: None,
            list,
            costs,
            work,
            timed: timings.len(),
            timed_cost: model.timed_cost(),
            threads: options.threads,
            seconds,
        }))
    }

    /// The sample that `descents` into `list` make.
    fn of_descents(list: Vec<Task>, descents: Descents, threads: usize) -> Sample {
        Sample {
            depth: list.first().map_or(0, |task| task.key().len()),
            descended: Some(descents.descended_to),
            list,
            costs: descents.costs,
            work: with_model_error(with_run_to_run(descents.work), descents.descended_to),
            timed: descents.timed,
            timed_cost: descents.seconds * threads as f64,
            threads,
            seconds: descents.seconds,
        }
    }

    /// The share of the predicted work the sample took.
    fn share(&self) -> f64 {
        self.timed_cost / self.work.expected.max(f64::MIN_POSITIVE)
    }

    /// The time the sample's threads take over `shard`'s share of `tasks`, served as the
    /// runner serves them, each task costing the sampled list's tasks that it holds (those
    /// whose key starts with its key).
    fn wall_time(&self, tasks: &[Task], shard: Shard) -> f64 {
        self.shard_wall_time(&self.task_costs(tasks), shard)
    }

    /// The cost of each of `tasks`: the sampled list's tasks that it holds (those whose
    /// key starts with its key).
    fn task_costs(&self, tasks: &[Task]) -> Vec<f64> {
        costs_by_prefix(&self.costs, &self.list, tasks)
    }

    /// The time the sample's threads take over `shard`'s share of tasks that cost
    /// `task_costs`, served as the runner serves them.
    fn shard_wall_time(&self, task_costs: &[f64], shard: Shard) -> f64 {
        let pending: Vec<usize> = shard.select(task_costs.len()).collect();
        let order = sample_first_order(&pending, task_costs.len());
        makespan(order.iter().map(|&index| task_costs[index]), self.threads)
    }
}

/// A wall time of `seconds` of work, whose interval is as wide relative to it as `work`'s
/// is, plus `fixed` seconds that do not vary.
fn spread_like(seconds: f64, work: Prediction, fixed: f64) -> Prediction {
    let ratio = |figure: f64| if work.expected > 0.0 { figure / work.expected } else { 1.0 };
    Prediction {
        expected: seconds + fixed,
        low: seconds * ratio(work.low) + fixed,
        high: seconds * ratio(work.high) + fixed,
    }
}

/// `work` with the run-to-run noise of [`RUN_TO_RUN`] added to its sampling error.
fn with_run_to_run(work: Prediction) -> Prediction {
    let sampling = (work.high - work.expected).max(work.expected - work.low);
    let noise = 1.96 * RUN_TO_RUN * work.expected;
    let margin = sampling.hypot(noise);
    Prediction {
        expected: work.expected,
        low: (work.expected - margin).max(0.0),
        high: work.expected + margin,
    }
}

/// `work`, predicted from row sets or parts of them, with the error of the model that
/// charges each its share ([`descent::model_error`]) either way.
fn with_model_error(work: Prediction, descended_to: DescendTo) -> Prediction {
    let error = descent::model_error(descended_to);
    Prediction {
        expected: work.expected,
        low: work.low.min(work.expected / error),
        high: work.high.max(work.expected * error),
    }
}

/// The cost model of a sampled list of `tasks` with these `timings`.
fn model_of(timings: &Timings, tasks: usize) -> CostModel {
    let mut model = CostModel::new(tasks, strata(tasks));
    for &(index, seconds) in timings {
        model.observe(index, seconds);
    }
    model
}

/// Strata for a sampled list of `tasks`.
fn strata(tasks: usize) -> usize {
    (tasks / TASKS_PER_STRATUM).clamp(1, MOST_STRATA)
}

/// The finer list the sample is drawn from, at least `depth` deep.
fn sampled_tasks(problem: &Problem, count_tasks: usize, depth: usize) -> anyhow::Result<Vec<Task>> {
    let wanted = problem.sampled_tasks(count_tasks).min(spec::MOST_WANTED);
    let depth = problem.depth_for(wanted)?.max(depth);
    Ok(problem.tasks(depth)?)
}

/// Times tasks of `list` drawn by a stratified sample, on `threads` threads, until they
/// take [`SAMPLE_SHARE`] of the work they predict or [`MOST_SAMPLE_TIME`] has passed; at
/// least one task per stratum. `None` if stopped by a signal.
fn time_sample(
    problem: &Problem,
    list: &[Task],
    options: SampleOptions,
    signals: &Signals,
) -> anyhow::Result<(Option<Timings>, f64)> {
    let SampleOptions { threads, seed, progress, .. } = options;
    let strata = strata(list.len());
    let order = stratified_order(&(0..list.len()).collect::<Vec<_>>(), strata, seed);
    let indexed: Vec<(usize, Task)> = list.iter().cloned().enumerate().collect();
    let solver = problem.clone();
    let runner = Runner::new(
        indexed,
        move |(index, task): &(usize, Task)| {
            let started = Instant::now();
            solver.solve(task, false)?;
            Ok::<Timings, nqueens_core::Error>(vec![(*index, started.elapsed().as_secs_f64())])
        },
        |a: &Timings, b: &Timings| Ok(a.iter().chain(b).copied().collect()),
        Vec::new(),
    )
    .threads(threads)
    .stop_flag(signals.flag());

    let display = SampleDisplay::new(progress);
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
            progress.partial.iter().copied().filter(|&(i, _)| !is_warm_up(i)).collect();
        let share = sampled_share(&timed, tasks);
        display.show(timed.len(), progress.session, share);
        let enough = timed.len() >= strata && share >= SAMPLE_SHARE;
        if enough || progress.session >= MOST_SAMPLE_TIME || next == sample.len() {
            return Ok(Vec::new());
        }
        let batch = sample[next..(next + threads).min(sample.len())].to_vec();
        next += batch.len();
        Ok(batch)
    };
    let report = runner.run_fed(feed, |_| {}).context("the sample failed")?;
    display.finish();
    let seconds = report.elapsed.as_secs_f64();
    let timed = report.result.into_iter().filter(|&(i, _)| !is_warm_up(i)).collect();
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

/// The cost of each of `tasks`: the sum of the `costs` of the tasks of `finer` whose key
/// starts with its key. Tasks of one list are in key order, so one pass matches them.
fn costs_by_prefix(costs: &[f64], finer: &[Task], tasks: &[Task]) -> Vec<f64> {
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

/// The most memory the count will hold: what the process held before the sample, and
/// for methods whose memory grows with N, the most its threads may hold, or else what the
/// sample's threads held.
fn peak_memory(problem: &Problem, threads: usize, before: Option<u64>) -> anyhow::Result<u64> {
    let after = memory::peak_resident_bytes().unwrap_or(0);
    let base = before.unwrap_or(0);
    Ok(match problem.bytes_per_thread(u64::MAX)? {
        Some(per_thread) => after.max(base + per_thread.saturating_mul(threads as u64)),
        None => after,
    })
}

/// Seconds for people: `42.0s`, `3m20s`, `5h07m`, `2d04h`.
fn duration(seconds: f64) -> String {
    let whole = seconds.round() as u64;
    match whole {
        0..60 => format!("{seconds:.1}s"),
        60..3600 => format!("{}m{:02}s", whole / 60, whole % 60),
        3600..86400 => format!("{}h{:02}m", whole / 3600, whole / 60 % 60),
        _ => format!("{}d{:02}h", whole / 86400, whole / 3600 % 24),
    }
}

/// The sample's progress on stderr: its share of the work it aims to take.
struct SampleDisplay {
    bar: Option<ProgressBar>,
    log: bool,
    /// When the log last printed a line: one every [`LOG_EVERY`] at most.
    logged: Cell<Option<Instant>>,
}

/// How often the sample's log prints a line, like a count's.
const LOG_EVERY: Duration = Duration::from_secs(5);

impl SampleDisplay {
    fn new(mode: ProgressMode) -> SampleDisplay {
        let bar = draws_bar(mode).then(|| {
            let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
            let style = ProgressStyle::with_template(
                "sampling {elapsed_precise} [{bar:30.cyan/blue}] {percent:>3}% | {msg}",
            )
            .expect("the template is valid")
            .progress_chars("=> ");
            bar.set_style(style);
            bar
        });
        SampleDisplay { bar, log: mode == ProgressMode::Log, logged: Cell::new(None) }
    }

    fn show(&self, timed: usize, session: Duration, share: f64) {
        let message = format!("{timed} tasks timed");
        if let Some(bar) = &self.bar {
            bar.set_position((1000.0 * share / SAMPLE_SHARE).min(1000.0) as u64);
            bar.set_message(message);
        } else if self.log && self.logged.get().is_none_or(|at| at.elapsed() >= LOG_EVERY) {
            self.logged.set(Some(Instant::now()));
            say!(
                "sampling: {message}, {:.1}% of the predicted work, {:.0}s",
                100.0 * share,
                session.as_secs_f64()
            );
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

#[cfg(test)]
mod tests {
    use nqueens_core::{Kernel, Problem};

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

    /// The estimator's interval holds what it predicts, for work that is exactly known:
    /// the nodes (for the join, pairs tested) of every task of a list, drawn by the
    /// stratified sample the estimate draws, 2% of the tasks at a time.
    #[test]
    fn the_interval_holds_the_work_of_a_known_task_list() {
        for (n, method) in [(13, Method::Eightfold), (14, Method::Eightfold), (14, Method::Join)] {
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
                let timings: Timings = order[..sample].iter().map(|&i| (i, work[i])).collect();
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

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(4.25), "4.2s");
        assert_eq!(duration(200.0), "3m20s");
        assert_eq!(duration(5.0 * 3600.0 + 420.0), "5h07m");
        assert_eq!(duration(2.0 * 86400.0 + 4.0 * 3600.0), "2d04h");
    }
}
