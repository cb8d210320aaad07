//! `cargo xtask plan`: what counts of the frontier would cost on this machine, from the
//! plan crate in this process, each checked by counting some of its tasks whole, appended
//! to results/plans.json.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use nqueens_core::{Method, Problem, solutions_of};
use nqueens_plan::{
    Check, CheckedTask, Options, Sharing, Subject, TaskList, Timed, Unwatched, Watch, check_depth,
    per_solution_of, work_by_solutions,
};
use serde::{Deserialize, Serialize};

use crate::host::{Build, Host, timestamp};
use crate::workspace::Appending;

/// The cluster each plan is predicted on, besides the core-time alone.
pub(crate) const CLUSTER_CORES: usize = 10_000;

pub(crate) struct Plan {
    pub(crate) ns: Vec<usize>,
    pub(crate) threads: usize,
    /// Tasks checked per board: `even` on even boards, `odd` on odd ones (0: none).
    pub(crate) checks: (usize, usize),
    pub(crate) seed: u64,
    /// The longest each board's sample may run, if not the plan crate's default.
    pub(crate) sample_time: Option<Duration>,
    /// The thread time of timings for each checked task's prediction, if not the plan
    /// crate's default.
    pub(crate) check_timing: Option<Duration>,
    /// The memory the count may hold, spread over its threads, if not the engine's
    /// default budget per thread.
    pub(crate) max_memory: Option<u64>,
    pub(crate) out: PathBuf,
}

/// The committed file: every sweep of plans, newest last.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct Plans {
    pub(crate) plans: Vec<PlanSweep>,
}

/// One sweep of plans, on one machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct PlanSweep {
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) threads: usize,
    /// What the planned counts may hold in all, where not the default budget per thread.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) max_memory_bytes: Option<u64>,
    /// The core-seconds of timings asked for each checked task's prediction, where not the
    /// plan crate's default (`--check-minutes`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) check_timing_s: Option<f64>,
    pub(crate) results: Vec<serde_json::Value>,
}

/// One board's plan, as results/plans.json records it.
#[derive(Debug, Serialize)]
struct BoardPlan {
    n: usize,
    kernel: &'static str,
    #[serde(flatten)]
    estimate: nqueens_plan::Estimate,
    /// What each worker and the process are expected to hold at their peak.
    memory_per_thread_bytes: Option<u64>,
    /// What the workers share besides (the join's cached tail tables), held once.
    shared_memory_bytes: u64,
    cluster: Option<nqueens_plan::ClusterEstimate>,
    check: Option<Check>,
    /// The core-hours corrected by the check.
    corrected_core_hours: Option<[f64; 3]>,
    /// What the estimate took, and the check after it.
    estimate_wall_s: f64,
}

/// `count` of `noun`, for people: `1 piece`, `348 pieces`.
fn things(count: usize, noun: &str) -> String {
    if count == 1 { format!("{count} {noun}") } else { format!("{count} {noun}s") }
}

/// Progress on stderr, a line a minute: a plan of N = 28 runs for an hour and more.
pub(crate) struct Lines {
    n: usize,
    last: std::cell::Cell<Instant>,
    /// What the sample under way is of.
    subject: std::cell::Cell<Subject>,
}

impl Lines {
    pub(crate) fn new(n: usize) -> Lines {
        Lines {
            n,
            last: std::cell::Cell::new(Instant::now()),
            subject: std::cell::Cell::new(Subject::Count),
        }
    }

    fn due(&self) -> bool {
        let due = self.last.get().elapsed() >= Duration::from_secs(60);
        if due {
            self.last.set(Instant::now());
        }
        due
    }
}

impl Watch for Lines {
    fn begins(&self, subject: Subject) {
        self.subject.set(subject);
    }

    fn sampling(&self, timed: Timed, count: usize, done: f64, elapsed: Duration) {
        if self.due() {
            eprintln!(
                "N = {}: {} timed, {:.0}% of the sample done, {:.0} s",
                self.n,
                things(count, timed.noun()),
                100.0 * done,
                elapsed.as_secs_f64()
            );
        }
    }

    fn sampled(&self, timed: Timed, count: usize, elapsed: Duration) {
        eprintln!(
            "N = {}: sampled {}: {} in {:.0} s",
            self.n,
            self.subject.get(),
            things(count, timed.noun()),
            elapsed.as_secs_f64()
        );
    }

    fn checking(&self, counted: usize, of: usize, elapsed: Duration) {
        if self.due() || counted == of {
            eprintln!(
                "N = {}: checked {counted} of {of} tasks, {:.0} s",
                self.n,
                elapsed.as_secs_f64()
            );
        }
    }
}

impl Plan {
    pub(crate) fn run(&self) -> Result<(), String> {
        if cfg!(debug_assertions) {
            return Err("cargo xtask plan times the engines in its own process: run it built \
                        for release, `cargo xtask-release plan ...`"
                .to_owned());
        }
        let saved = Appending::<Plans>::open(&self.out)?;
        let mut sweep = PlanSweep {
            timestamp_utc: timestamp().1,
            build: Build::this(),
            host: Host::this(),
            threads: self.threads,
            max_memory_bytes: self.max_memory,
            check_timing_s: self.check_timing.map(|time| time.as_secs_f64()),
            results: Vec::new(),
        };
        print!("{TABLE_HEADER}");
        for &n in &self.ns {
            let plan = self.board(n).map_err(|e| format!("N = {n}: {e}"))?;
            let value = serde_json::to_value(&plan).map_err(|e| e.to_string())?;
            println!("{}", row(&value));
            sweep.results.push(value);
            saved.save(|plans| plans.plans.push(sweep.clone()))?;
        }
        println!("appended to {}", self.out.display());
        Ok(())
    }

    fn board(&self, n: usize) -> Result<BoardPlan, Box<dyn std::error::Error>> {
        let started = Instant::now();
        let (problem, depth, list) = count_list(n, self.threads, self.max_memory)?;
        let options = Options {
            sample_time: self.sample_time,
            check_timing: self.check_timing,
            ..Options::new(self.threads, self.seed)
        };
        let watch = Lines::new(n);
        let setup_s = started.elapsed().as_secs_f64();
        let (estimate, sample, fixed_s) =
            nqueens_plan::estimate(&problem, &list, setup_s, &options, &watch)?.ok_or("stopped")?;
        let cluster =
            nqueens_plan::cluster(&problem, &sample, CLUSTER_CORES, fixed_s, &options, &Unwatched)?;
        let memory_per_thread_bytes = problem.expected_bytes_per_thread()?;
        let shared_memory_bytes = problem.expected_shared_bytes();
        let checked = if n.is_multiple_of(2) { self.checks.0 } else { self.checks.1 };
        let check = if checked == 0 {
            None
        } else {
            let checked_depth = check_depth(&problem, &sample, depth)?;
            nqueens_plan::check(&problem, &list, checked_depth, checked, &sample, &options, &watch)?
        };
        let corrected_core_hours = check.as_ref().map(|check| {
            let work = sample.work();
            let corrected = check.corrected(work);
            [corrected.expected, corrected.low, corrected.high].map(|s| s / 3600.0)
        });
        Ok(BoardPlan {
            n,
            kernel: problem.kernel().name(),
            estimate,
            memory_per_thread_bytes,
            shared_memory_bytes,
            cluster,
            check,
            corrected_core_hours,
            estimate_wall_s: started.elapsed().as_secs_f64(),
        })
    }
}

/// The join on `n` and the task list a count on `threads` would run, at its depth, holding
/// `max_memory` bytes in all if given: from N = 28 the default 1.5 GiB per thread counts
/// row sets in pieces that a sample on 2 threads cannot time in an hour.
pub(crate) fn count_list(
    n: usize,
    threads: usize,
    max_memory: Option<u64>,
) -> Result<(Problem, usize, TaskList), Box<dyn std::error::Error>> {
    let problem = Problem::new(n, Method::Join)?.with_threads(threads)?;
    let problem = match max_memory {
        Some(bytes) => problem.with_memory_per_thread(bytes / threads as u64)?,
        None => problem,
    };
    let depth = nqueens_plan::depth_for(&problem, Sharing::Alone { threads })?;
    let list = TaskList::of(&problem, depth)?;
    Ok((problem, depth, list))
}

/// The head of the table [`row`] writes rows of.
pub(crate) const TABLE_HEADER: &str = "\
| N | kernel | core-time (interval) | sampled | checked: counted / predicted | corrected core-time | by the checked tasks' cost per solution | memory | on 10,000 cores | plan took |
| ---: | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: |
";

/// One plan as a row of the plans table. Sweeps written before the plan crate hold
/// the estimate's own JSON, with neither a check nor what was sampled.
pub(crate) fn row(plan: &serde_json::Value) -> String {
    let number = |name: &str| plan[name].as_f64().unwrap_or(f64::NAN);
    let cluster_s = plan["cluster"]["predicted_wall_s"].as_f64().unwrap_or(f64::NAN);
    let timed = serde_json::from_value::<Timed>(plan["sampled"].clone()).ok();
    let sampled = match (plan["sampled_count"].as_u64(), timed) {
        (Some(count), Some(timed)) => format!("{count} {}s", timed.noun()),
        _ => "not recorded".to_owned(),
    };
    let check = &plan["check"];
    let (checked, corrected) = match check["ratio"].as_f64() {
        Some(ratio) => {
            let hours = &plan["corrected_core_hours"];
            let hours = |at: usize| hours[at].as_f64().unwrap_or(f64::NAN);
            (
                format!(
                    "{ratio:.2} ({:.2} to {:.2}), {} tasks",
                    check["ratio_low"].as_f64().unwrap_or(f64::NAN),
                    check["ratio_high"].as_f64().unwrap_or(f64::NAN),
                    check["tasks"].as_array().map_or(0, Vec::len),
                ),
                core_time_between(hours(0), hours(1), hours(2)),
            )
        }
        None => ("not checked".to_owned(), "".to_owned()),
    };
    let by_solutions = by_solutions(plan).unwrap_or_default();
    format!(
        "| {} | {} | {} | {sampled} | {checked} | {corrected} | {by_solutions} | {} | {} | {:.0} s |",
        plan["n"],
        plan["kernel"].as_str().unwrap_or("unknown"),
        core_time_between(
            number("core_hours"),
            number("core_hours_low"),
            number("core_hours_high")
        ),
        memory(plan),
        span(cluster_s),
        number("estimate_wall_s"),
    )
}

/// The count's core-time by its checked tasks' own cost per solution times its solutions
/// (published, or extrapolated from the published), and that cost: from counts alone.
/// Worked out from the recorded tasks, so that plans recorded before the check reported
/// it have it too. `None` for a plan not checked.
fn by_solutions(plan: &serde_json::Value) -> Option<String> {
    let tasks: Vec<CheckedTask> = serde_json::from_value(plan["check"]["tasks"].clone()).ok()?;
    let [per_solution, low, high] = per_solution_of(&tasks)?;
    let n = plan["n"].as_u64().and_then(|n| usize::try_from(n).ok())?;
    let work = work_by_solutions([per_solution, low, high], solutions_of(n)?);
    let hours = |seconds: f64| seconds / 3600.0;
    Some(format!(
        "{}, {:.2} core-ns a solution",
        core_time_between(hours(work.expected), hours(work.low), hours(work.high)),
        1e9 * per_solution
    ))
}

/// What the planned count holds on its threads: each worker's share and what they share
/// (the join's tail tables, most of it at N = 22). Plans recorded without the shared part
/// give a worker's share alone, and the oldest the estimate's peak.
fn memory(plan: &serde_json::Value) -> String {
    let mib = |bytes: f64| bytes / f64::from(1 << 20);
    let threads = plan["threads"].as_f64().unwrap_or(f64::NAN);
    match (plan["memory_per_thread_bytes"].as_f64(), plan["shared_memory_bytes"].as_f64()) {
        (Some(each), Some(shared)) => format!("{:.0} MiB", mib(each * threads + shared)),
        (Some(each), None) => format!("{:.0} MiB a thread and tables", mib(each)),
        (None, _) => {
            format!("{:.0} MiB", mib(plan["peak_memory_bytes"].as_f64().unwrap_or(f64::NAN)))
        }
    }
}

/// A wall time for people: minutes, hours or days.
fn span(seconds: f64) -> String {
    match seconds {
        s if s < 60.0 => format!("{s:.0} s"),
        s if s < 3600.0 => format!("{:.1} min", s / 60.0),
        s if s < 86400.0 => format!("{:.1} h", s / 3600.0),
        s => format!("{:.1} days", s / 86400.0),
    }
}

/// Core-hours for people: hours up to a year's worth, then core-years.
pub(crate) fn core_time(hours: f64) -> String {
    let (per_unit, unit) = core_time_unit(hours);
    format!("{:.1} {unit}", hours / per_unit)
}

/// An estimate and its interval in the estimate's unit, so that a row reads at a glance.
fn core_time_between(hours: f64, low: f64, high: f64) -> String {
    let (per_unit, unit) = core_time_unit(hours);
    format!("{:.1} ({:.1} to {:.1}) {unit}", hours / per_unit, low / per_unit, high / per_unit)
}

fn core_time_unit(hours: f64) -> (f64, &'static str) {
    const YEAR: f64 = 24.0 * 365.25;
    if hours < YEAR { (1.0, "core-hours") } else { (YEAR, "core-years") }
}
