//! `nqueens estimate`: what a count will take, predicted by the plan crate from a timed
//! sample of its tasks, and with `--check`, checked by counting some of them whole.

use std::cell::Cell;
use std::num::NonZeroUsize;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use anyhow::Context;
use indicatif::{ProgressBar, ProgressDrawTarget};
use nqueens_core::{ENGINE_IDENTITY, Method, Problem, Profile, SolutionsOf};
use nqueens_plan::{
    Check, ClusterEstimate, Estimate, Options, Sample, SampledTiming, Subject, TaskList, Timed,
    Watch, check_depth,
};
use nqueens_scheduler::Prediction;
use serde::Serialize;

use crate::cli::{EstimateArgs, ProgressMode, SampleChoice};
use crate::count::{check_memory, pieces_note};
use crate::exit::usage;
use crate::host::Host;
use crate::memory;
use crate::output::{self, plural, say};
use crate::progress::{self, Shown, grouped, shown_as};
use crate::provenance::Build;
use crate::signals::Signals;
use crate::spec::{self, RunSpec};

/// The largest cluster predicted: beyond the largest machines built, and a bound that
/// keeps a mistyped `--cores` from being taken for a plan.
const MOST_CORES: usize = 100_000_000;

pub(crate) fn run(args: EstimateArgs) -> anyhow::Result<ExitCode> {
    let signals = Signals::install()?;
    let started = Instant::now();
    let threads = spec::threads(args.board.workers.threads)?;
    if let Some(cores) = args.cores
        && cores.get() > MOST_CORES
    {
        return Err(usage!(
            "--cores {cores} is more than the {MOST_CORES} cores predicted at most"
        ));
    }
    let problem = spec::board(&args.board, &[])?;
    if let Some(path) = &args.timings {
        check_writable(path)?;
    }
    let draws = nqueens_plan::draws_bytes(problem.n(), threads);
    let plan = check_memory(problem, threads, args.board.max_memory, draws)?;
    let pieces_note = pieces_note(&plan);
    let problem = plan.problem;
    let count = RunSpec::new(problem.clone(), None, nqueens_plan::Sharing::Alone { threads })?;
    if args.check.is_some() {
        refuse_unchecked(&problem, &count.tasks)?;
    }
    if let Some(depth) = args.depth {
        spec::check_depth(&problem, depth)?;
        let own = count.identity.depth;
        if depth < own {
            return Err(usage!(
                "--depth {depth} is shallower than the count's depth {own}: a check counts the \
                 count's tasks or finer ones"
            ));
        }
    }
    if let Some(note) = pieces_note {
        say!("{note}");
    }
    // A count builds its task list and checks its memory before its first task.
    let setup_s = started.elapsed().as_secs_f64();
    let options = Options {
        timed: args.sample.map(|choice| match choice {
            SampleChoice::Units => Timed::Units,
            SampleChoice::Pieces => Timed::Pieces,
        }),
        sample_time: args.sample_time,
        profile: args.profile,
        check_timing: args.check_sample_time,
        stop: signals.flag(),
        ..Options::new(threads, args.seed)
    };
    let watch = SampleDisplay::new(args.board.progress());
    // What the process holds besides its workers' lists and the tables they share, as a
    // count would: the memory check's probe has freed its lists by now, and the tail
    // tables it built are counted with what the threads share. Counted in both, they put
    // N = 28's peak at 3.70 GiB for an estimate that held 3.23 GiB
    // (docs/measurements/memory.md).
    let memory_before = memory::resident_bytes()
        .map(|resident| resident.saturating_sub(problem.held_shared_bytes()));
    let list = TaskList { depth: count.identity.depth, tasks: count.tasks };
    let Some((estimate, sample, fixed_s)) =
        nqueens_plan::estimate(&problem, &list, setup_s, &options, &watch)?
    else {
        return Ok(stopped(&signals));
    };
    // Written before anything else can fail, and reported after the estimate is printed,
    // so that neither loses the other.
    let timings_written = (args.timings.as_deref())
        .map(|path| write_timings(path, &problem, &estimate, &sample))
        .transpose();
    // Whole tasks hold what the count's threads will; measured before any other sample.
    // Units and pieces are seldom the largest, which is what a count's worker holds at its
    // peak: the engine predicts that.
    let peak_memory_bytes = if sample.timed() == Timed::Tasks {
        memory::peak_resident_bytes().unwrap_or(0)
    } else {
        peak_memory(&problem, threads, memory_before)?
    };
    let cluster = match args.cores.map(NonZeroUsize::get) {
        None => None,
        Some(cores) => {
            let cluster =
                nqueens_plan::cluster(&problem, &sample, cores, fixed_s, &options, &watch)?;
            let Some(cluster) = cluster else { return Ok(stopped(&signals)) };
            Some(cluster)
        }
    };
    let check = match args.check.map(NonZeroUsize::get) {
        None => None,
        Some(tasks) => {
            if tasks > list.tasks.len() {
                say!(
                    "--check {tasks}: the count runs {}, one drawn from each",
                    things(list.tasks.len(), "task")
                );
            }
            let depth = match args.depth {
                Some(depth) => depth,
                None => check_depth(&problem, &sample, list.depth)?,
            };
            let found =
                nqueens_plan::check(&problem, &list, depth, tasks, &sample, &options, &watch)?;
            let Some(found) = found else { return Ok(stopped(&signals)) };
            Some(found)
        }
    };
    let corrected = check.as_ref().map(|check| Corrected {
        wall: check.corrected(Prediction {
            expected: estimate.predicted_wall_s,
            low: estimate.predicted_wall_s_low,
            high: estimate.predicted_wall_s_high,
        }),
        core_hours: check.corrected(Prediction {
            expected: estimate.core_hours,
            low: estimate.core_hours_low,
            high: estimate.core_hours_high,
        }),
    });
    let by_solutions = (check.as_ref().zip(problem.known_solutions()))
        .and_then(|(check, known)| by_solutions(check, known, &estimate));
    let report = EstimateReport {
        n: problem.n(),
        method: problem.method(),
        kernel: problem.kernel().name(),
        estimate,
        peak_memory_bytes,
        cluster,
        check,
        corrected,
        by_solutions,
        estimate_s: started.elapsed().as_secs_f64(),
        host: Host::this(),
        engine: ENGINE_IDENTITY,
        build: Build::this(),
    };
    let (printed, result) = if args.json {
        let json = serde_json::to_string(&report)?;
        (format!("{json}\n"), json)
    } else {
        let text = report.text();
        let result = text.trim_end().replace('\n', "; ");
        (text, result)
    };
    output::print_result(&printed, &result)?;
    timings_written?;
    Ok(ExitCode::SUCCESS)
}

/// Refuses a timings file whose folder does not exist, before a sample of an hour.
fn check_writable(path: &Path) -> anyhow::Result<()> {
    let folder = match path.parent() {
        Some(folder) if !folder.as_os_str().is_empty() => folder,
        _ => Path::new("."),
    };
    if !folder.is_dir() {
        anyhow::bail!("cannot write timings to {}: no folder {}", path.display(), folder.display());
    }
    Ok(())
}

/// What `--timings` writes: the sample's every timing, with what it sampled.
#[derive(Serialize)]
struct TimingsFile<'a> {
    n: usize,
    method: Method,
    kernel: &'static str,
    threads: usize,
    seed: u64,
    sampled: Timed,
    sampled_list_tasks: usize,
    timings: &'a [SampledTiming],
    host: Host,
    engine: &'static str,
    build: Build,
}

fn write_timings(
    path: &Path,
    problem: &Problem,
    estimate: &Estimate,
    sample: &Sample,
) -> anyhow::Result<()> {
    let file = TimingsFile {
        n: problem.n(),
        method: problem.method(),
        kernel: problem.kernel().name(),
        threads: estimate.threads,
        seed: estimate.seed,
        sampled: estimate.sampled,
        sampled_list_tasks: estimate.sampled_list_tasks,
        timings: sample.timings(),
        host: Host::this(),
        engine: ENGINE_IDENTITY,
        build: Build::this(),
    };
    let json = serde_json::to_string(&file)?;
    nqueens_scheduler::write_atomically(path, format!("{json}\n").as_bytes())
        .with_context(|| format!("cannot write timings to {}", path.display()))
}

/// The plan by the checked tasks' own cost per solution times the count's `known`
/// solutions: its core-hours, and the estimate's wall time scaled as they are.
fn by_solutions(check: &Check, known: SolutionsOf, estimate: &Estimate) -> Option<Corrected> {
    let work = check.by_solutions(known)?;
    let planned = 3600.0 * estimate.core_hours;
    if planned <= 0.0 || work.expected <= 0.0 {
        return None;
    }
    let scaled = |p: Prediction, by: f64| Prediction {
        expected: p.expected * by,
        low: p.low * by,
        high: p.high * by,
    };
    Some(Corrected {
        wall: scaled(work, estimate.predicted_wall_s / planned),
        core_hours: scaled(work, 1.0 / 3600.0),
    })
}

/// A check counts tasks whose predictions come from units or pieces timed below them; an
/// engine that offers nothing below its tasks is sampled by timing whole tasks, which a
/// check would only time again.
fn refuse_unchecked(problem: &Problem, tasks: &[nqueens_core::Task]) -> anyhow::Result<()> {
    match tasks.first() {
        Some(task) if problem.children(task)?.is_empty() => Err(usage!(
            "--check needs tasks that split into finer ones to predict them by, as the join's \
             do; the {} method's estimate of N = {} timed its whole tasks already",
            problem.method(),
            problem.n()
        )),
        _ => Ok(()),
    }
}

/// What `estimate` reports, as `--json` prints it.
#[derive(Debug, Serialize)]
struct EstimateReport {
    n: usize,
    method: Method,
    kernel: &'static str,
    #[serde(flatten)]
    estimate: Estimate,
    peak_memory_bytes: u64,
    cluster: Option<ClusterEstimate>,
    check: Option<Check>,
    /// The plan corrected by the check's ratio.
    corrected: Option<Corrected>,
    /// The plan by the checked tasks' own cost per solution times the count's solutions,
    /// where they are known: from counts alone.
    by_solutions: Option<Corrected>,
    /// How long the estimate took, from start to report.
    estimate_s: f64,
    /// The machine timed, which the prediction is for.
    host: Host,
    /// The engine and build timed: another build may be faster or slower.
    engine: &'static str,
    build: Build,
}

/// A plan corrected by a check.
#[derive(Debug, Serialize)]
struct Corrected {
    #[serde(serialize_with = "prediction")]
    wall: Prediction,
    #[serde(serialize_with = "prediction")]
    core_hours: Prediction,
}

impl Corrected {
    /// The plan as the output's lines give it: wall time and core-hours, each with its
    /// interval.
    fn text(&self) -> String {
        format!(
            "about {} ({} to {}), {}",
            duration(self.wall.expected),
            duration(self.wall.low),
            duration(self.wall.high),
            core_time(self.core_hours.expected, self.core_hours.low, self.core_hours.high),
        )
    }
}

fn prediction<S: serde::Serializer>(p: &Prediction, serializer: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeStruct;
    let mut fields = serializer.serialize_struct("Prediction", 3)?;
    fields.serialize_field("expected", &p.expected)?;
    fields.serialize_field("low", &p.low)?;
    fields.serialize_field("high", &p.high)?;
    fields.end()
}

impl EstimateReport {
    fn text(&self) -> String {
        let e = &self.estimate;
        let mut text = format!(
            "N={} method={} kernel={} threads={}: about {} ({} to {}), {}, peak memory about {}\n",
            self.n,
            self.method,
            self.kernel,
            e.threads,
            duration(e.predicted_wall_s),
            duration(e.predicted_wall_s_low),
            duration(e.predicted_wall_s_high),
            core_time(e.core_hours, e.core_hours_low, e.core_hours_high),
            memory::human(self.peak_memory_bytes),
        );
        if let Some(cluster) = &self.cluster {
            // Cores that are no multiple of the threads leave the last machine fewer.
            let up_to = if cluster.cores % e.threads == 0 { "" } else { "up to " };
            text += &format!(
                "on {} cores ({} of {up_to}{}, --shard I/{}): about {} ({} to {})\n",
                cluster.cores,
                plural(cluster.processes, "machine"),
                plural(e.threads, "thread"),
                cluster.processes,
                duration(cluster.predicted_wall_s),
                duration(cluster.predicted_wall_s_low),
                duration(cluster.predicted_wall_s_high),
            );
        }
        let below = match e.sampled {
            Timed::Tasks => format!(
                "{} of a finer list of {}",
                things(e.sampled_count, "task"),
                grouped(e.sampled_list_tasks as u128)
            ),
            timed => format!("{} below its tasks", things(e.sampled_count, timed.noun())),
        };
        text += &format!(
            "the count runs {} (depth {}); sampled {below} in {} ({:.1}% of the predicted \
             work, seed {})\n",
            things(e.tasks, "task"),
            e.depth,
            duration(e.sample_s),
            100.0 * e.sample_share,
            e.seed,
        );
        if let (Some(per_solution), Some(solutions)) = (e.core_ns_per_solution, e.solutions) {
            let (solutions, known) = if e.solutions_published {
                (grouped(solutions as u128), "published (OEIS A000170)".to_owned())
            } else {
                let error = 200.0 * e.solutions_error;
                (
                    format!("{solutions:.3e}"),
                    format!("extrapolated from the published, ±{error:.0}%"),
                )
            };
            text += &format!(
                "the sample's cost per solution, {} core-ns, times the {} solutions {known}; by its \
                 time alone, {}\n",
                figure(per_solution),
                solutions,
                core_time(
                    e.core_hours_by_time_alone,
                    e.core_hours_by_time_alone_low,
                    e.core_hours_by_time_alone_high
                ),
            );
        }
        if let (Some(check), Some(corrected)) = (&self.check, &self.corrected) {
            let below = if check.depth > e.depth { "a task below " } else { "" };
            for task in &check.tasks {
                text += &format!(
                    "checked {below}task {} of {}: predicted {} from {} timed, counted {}\n",
                    grouped(task.index as u128),
                    grouped(check.list_tasks as u128),
                    duration(task.predicted_s),
                    things(task.timed_below, check.timed.noun()),
                    duration(task.counted_s),
                );
            }
            if let Some(profile) = &check.profile {
                text += &profile_lines(profile);
            }
            text += &format!(
                "check: {} (depth {}) counted {:.2} times the predicted time ({:.2} to {:.2}) in \
                 {}; corrected: {}\n",
                things(check.tasks.len(), "task"),
                check.depth,
                check.ratio,
                check.ratio_low,
                check.ratio_high,
                duration(check.check_s),
                corrected.text(),
            );
        }
        if let (Some(check), Some(by_solutions)) = (&self.check, &self.by_solutions)
            && let Some([per_solution, low, high]) = check.core_ns_per_solution
        {
            text += &format!(
                "by the checked tasks' own cost per solution, {} core-ns ({} to {}): {}\n",
                figure(per_solution),
                figure(low),
                figure(high),
                by_solutions.text(),
            );
        }
        text += &format!("estimated in {}", duration(self.estimate_s));
        if self.estimate_s > e.predicted_wall_s && self.check.is_none() {
            text += ": longer than the count itself would take";
        }
        text.push('\n');
        text
    }
}

/// The checked tasks' profile: each part's share of their time, and each kind of work per
/// solution.
fn profile_lines(profile: &Profile) -> String {
    let mut text = String::from("profile of the checked tasks:");
    for part in &profile.parts {
        let share = if profile.seconds > 0.0 { part.seconds / profile.seconds } else { 0.0 };
        text += &format!(" {} {:.1}%,", part.name, 100.0 * share);
    }
    text.pop();
    text.push('\n');
    let solutions = profile.counter("solutions").unwrap_or(0).max(1) as f64;
    text += &format!("per solution: {:.3} core-ns", 1e9 * profile.seconds / solutions);
    for counter in profile.counters.iter().filter(|c| c.name != "solutions") {
        text += &format!(", {} {}", counter.name, figure(counter.value as f64 / solutions));
    }
    text.push('\n');
    text
}

/// A figure per solution for people: three significant figures.
fn figure(value: f64) -> String {
    match value {
        100.0.. => format!("{value:.0}"),
        10.0.. => format!("{value:.1}"),
        1.0.. => format!("{value:.2}"),
        0.001.. => format!("{value:.3}"),
        // An interval's low end cut at nothing reads as nothing, not as "0.00e0".
        0.0 => "0".to_owned(),
        _ => format!("{value:.2e}"),
    }
}

/// `count` of `noun`, the count grouped by thousands.
fn things(count: usize, noun: &str) -> String {
    let grouped = grouped(count as u128);
    if count == 1 { format!("{grouped} {noun}") } else { format!("{grouped} {noun}s") }
}

/// Core time with its interval, in core-hours, the unit a cluster bills in, or in
/// core-seconds where a count takes less than a tenth of a core-hour, whose core-hours
/// would read as nothing.
fn core_time(hours: f64, low: f64, high: f64) -> String {
    if hours < 0.1 {
        let seconds = |hours: f64| figure(hours * 3600.0);
        format!("{} core-seconds ({} to {})", seconds(hours), seconds(low), seconds(high))
    } else {
        format!("{} core-hours ({} to {})", in_hours(hours), in_hours(low), in_hours(high))
    }
}

/// Core-hours for people: three significant figures, grouped by thousands.
fn in_hours(hours: f64) -> String {
    if hours >= 1000.0 {
        grouped(hours.round() as u128)
    } else if hours >= 1.0 {
        format!("{hours:.1}")
    } else {
        format!("{hours:.3}")
    }
}

/// What `estimate` says when a signal stops it.
fn stopped(signals: &Signals) -> ExitCode {
    say!("estimate stopped before its prediction");
    signals.exit_code()
}

/// The most memory the count will hold: what the process held before the sample and,
/// for methods whose memory grows with N, what its threads share and what each is
/// expected to hold at its peak, or else the most the process held.
fn peak_memory(problem: &Problem, threads: usize, before: Option<u64>) -> anyhow::Result<u64> {
    Ok(match problem.expected_bytes_per_thread()? {
        Some(per_thread) => {
            let shared = problem.expected_shared_bytes();
            before.unwrap_or(0) + shared + per_thread.saturating_mul(threads as u64)
        }
        None => memory::peak_resident_bytes().unwrap_or(0),
    })
}

/// The sample's progress on stderr: a bar that fills as the sample nears what it aims at,
/// or a log line every [`LOG_EVERY`].
struct SampleDisplay {
    bar: Option<ProgressBar>,
    log: bool,
    /// When the log last printed a line.
    logged: Cell<Option<Instant>>,
    /// What the sample under way is of.
    subject: Cell<Subject>,
}

/// How often the sample's log prints a line, like a count's.
const LOG_EVERY: Duration = Duration::from_secs(5);

impl SampleDisplay {
    fn new(mode: ProgressMode) -> SampleDisplay {
        let shown = shown_as(mode);
        let bar = (shown == Shown::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
            bar.set_style(progress::sample_style());
            bar
        });
        SampleDisplay {
            bar,
            log: shown == Shown::Log,
            logged: Cell::new(None),
            subject: Cell::new(Subject::Count),
        }
    }

    /// A log line, if one is due or `now`.
    fn log(&self, now: bool, line: impl FnOnce() -> String) {
        if self.log && (now || self.logged.get().is_none_or(|at| at.elapsed() >= LOG_EVERY)) {
            self.logged.set(Some(Instant::now()));
            say!("{}", line());
        }
    }
}

impl Watch for SampleDisplay {
    fn begins(&self, subject: Subject) {
        self.subject.set(subject);
    }

    fn sampling(&self, timed: Timed, count: usize, done: f64, elapsed: Duration) {
        if let Some(bar) = &self.bar {
            bar.set_position((1000.0 * done).min(1000.0) as u64);
            bar.set_message(format!("{} timed", things(count, timed.noun())));
        }
        self.log(false, || {
            format!(
                "sampling {}: {} timed, {:.0}% of the sample done, {}",
                self.subject.get(),
                things(count, timed.noun()),
                100.0 * done.min(1.0),
                duration(elapsed.as_secs_f64())
            )
        });
    }

    fn sampled(&self, timed: Timed, count: usize, elapsed: Duration) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
            bar.reset();
        }
        self.log(true, || {
            format!(
                "sampled {}: {} timed in {}",
                self.subject.get(),
                things(count, timed.noun()),
                duration(elapsed.as_secs_f64())
            )
        });
    }

    fn checking(&self, counted: usize, of: usize, elapsed: Duration) {
        if let Some(bar) = &self.bar {
            bar.set_position((1000 * counted / of.max(1)) as u64);
            bar.set_message(format!("checking: {counted} of {} counted", things(of, "task")));
            if counted == of {
                bar.finish_and_clear();
            }
        }
        self.log(counted == of, || {
            format!(
                "checking: {counted} of {} counted, {}",
                things(of, "task"),
                duration(elapsed.as_secs_f64())
            )
        });
    }
}

/// Seconds for people: `12.3ms`, `4.2s`, `3m20s`, `5h07m`, `2d04h`, `3.2y`.
fn duration(seconds: f64) -> String {
    let whole = seconds.round() as u64;
    match whole {
        // An interval's low end cut at nothing reads as nothing, not as "0.0ms".
        _ if seconds <= 0.0 => "0s".to_owned(),
        _ if seconds < 0.1 => format!("{:.1}ms", seconds * 1000.0),
        0..60 => format!("{seconds:.1}s"),
        60..3600 => format!("{}m{:02}s", whole / 60, whole % 60),
        3600..86400 => format!("{}h{:02}m", whole / 3600, whole / 60 % 60),
        86400..31_557_600 => format!("{}d{:02}h", whole / 86400, whole / 3600 % 24),
        _ => format!("{:.1}y", seconds / 31_557_600.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_at_a_glance() {
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(0.01234), "12.3ms");
        assert_eq!(duration(0.25), "0.2s");
        assert_eq!(duration(4.25), "4.2s");
        assert_eq!(duration(200.0), "3m20s");
        assert_eq!(duration(5.0 * 3600.0 + 420.0), "5h07m");
        assert_eq!(duration(2.0 * 86400.0 + 4.0 * 3600.0), "2d04h");
        assert_eq!(duration(3.25 * 31_557_600.0), "3.2y");
    }

    #[test]
    fn figures_read_at_a_glance() {
        assert_eq!(figure(24.93), "24.9");
        assert_eq!(figure(0.583), "0.583");
        assert_eq!(figure(0.0), "0");
        assert_eq!(figure(0.000_42), "4.20e-4");
    }

    #[test]
    fn core_hours_keep_three_figures() {
        assert_eq!(in_hours(0.2618), "0.262");
        assert_eq!(in_hours(14.44), "14.4");
        assert_eq!(in_hours(2_340_123.4), "2,340,123");
    }

    #[test]
    fn short_counts_read_in_core_seconds() {
        assert_eq!(core_time(0.459, 0.383, 0.536), "0.459 core-hours (0.383 to 0.536)");
        assert_eq!(core_time(0.0003, 0.00025, 0.0004), "1.08 core-seconds (0.900 to 1.44)");
        assert_eq!(core_time(0.09, 0.0, 0.11), "324 core-seconds (0 to 396)");
    }
}
