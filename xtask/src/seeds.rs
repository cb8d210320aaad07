//! `cargo xtask seeds`: the same plan estimated with several seeds, to show how far one
//! estimate may stray from another, appended to results/seeds.json.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use nqueens_core::{Counts, Method, Problem};
use nqueens_plan::{Options, Sample, Slices, SoFar, TaskList, TimedKeys};
use serde::{Deserialize, Serialize};

use crate::host::{Build, Host, timestamp};
use crate::measure::Stats;
use crate::plan::{Lines, core_time, count_list};
use crate::workspace::Appending;

/// How far the estimates of one board may stray from each other: the largest over the
/// smallest, less one.
pub(crate) const AGREEMENT: f64 = 0.15;

/// How far the machine's speed may move across a sweep, by the panel's same work timed
/// before each seed and after the last (the largest time over the smallest, less one), for
/// the seeds' spread to be the sampler's rather than the machine's: on one Zen 4, five
/// seeds of N = 28 agreed within 1.13 while that work took the same time to 6%, and five
/// more spread 1.36 when a neighbour slowed it by a third mid-sweep
/// (docs/measurements/plans.md).
const STEADY: f64 = 0.10;

/// The board of the reference count taken before each seed and after the last: the same
/// work every time, so that its time says how fast the machine runs. Seeds run one after
/// another, for hours from N = 26, on shared machines whose speed drifts: on one Zen 5 the
/// same five seeds of N = 22 estimated 14% less core-time 80 minutes apart, and a seed of
/// N = 28 sampled a fifth longer than the others in the same 28 minutes
/// (docs/measurements/plans.md).
const REFERENCE_N: usize = 18;

/// Reference counts taken each time, of which the median is kept: the first of a process
/// builds the join's tables.
const REFERENCE_RUNS: usize = 3;

/// How long the sample that chooses those timings runs: each taking again costs about
/// as long.
const PANEL_TIME: Duration = Duration::from_secs(60);

/// The memory whose pages [`first_touch_ns`] touches: 65,536 pages of 4 KiB.
const TOUCHED_BYTES: usize = 256 << 20;

/// The page [`first_touch_ns`] counts in: the smallest the system gives memory in.
const PAGE_BYTES: usize = 4096;

pub(crate) struct Seeds {
    pub(crate) ns: Vec<usize>,
    pub(crate) seeds: Vec<u64>,
    pub(crate) threads: usize,
    pub(crate) sample_time: Option<Duration>,
    /// Take the seeds' samples in slices of this length, each seed's slice in turn, so
    /// that a change in the machine's speed falls on every seed alike; by default each
    /// seed's sample in one go, one seed after another.
    pub(crate) slice: Option<Duration>,
    /// As [`crate::plan::Plan`]'s.
    pub(crate) max_memory: Option<u64>,
    pub(crate) out: PathBuf,
    /// The folder each sample's timings are written to, if any.
    pub(crate) timings: Option<PathBuf>,
    /// Whether to go on with the last sweep in `out`, stopped before it finished.
    pub(crate) resume: bool,
}

/// The committed file: every sweep, newest last.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub(crate) struct SeedSweeps {
    pub(crate) sweeps: Vec<SeedSweep>,
}

/// One sweep of boards and seeds, on one machine.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct SeedSweep {
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) threads: usize,
    /// What the sweep was asked for, and whether the engines and xtask it ran were
    /// committed (absent in sweeps before they could go on after a stop): only a sweep
    /// of the same request from committed sources may go on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) asked: Option<Asked>,
    #[serde(default)]
    pub(crate) committed: bool,
    /// When the sweep went on after a stop, and from which commit.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) resumed: Vec<Resumed>,
    pub(crate) boards: Vec<Board>,
}

/// What a sweep samples: its boards and seeds, each sample's threads, length (`None` for
/// the default) and memory in all (`None` for the join's default a thread).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Asked {
    pub(crate) ns: Vec<usize>,
    pub(crate) seeds: Vec<u64>,
    pub(crate) threads: usize,
    pub(crate) sample_time_s: Option<f64>,
    pub(crate) max_memory_bytes: Option<u64>,
    /// The length of the slices the samples were taken in, if they were.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) slice_s: Option<f64>,
}

impl std::fmt::Display for Asked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (n, seeds) = (self.ns.iter(), self.seeds.iter());
        let listed = |items: Vec<String>| items.join(", ");
        write!(
            f,
            "N = {}, seeds {}, {} threads, samples of {}{}, memory {}",
            listed(n.map(usize::to_string).collect()),
            listed(seeds.map(u64::to_string).collect()),
            self.threads,
            self.sample_time_s.map_or("the default length".to_owned(), |s| format!("{s} s")),
            self.slice_s.map_or(String::new(), |s| format!(" in slices of {s} s")),
            self.max_memory_bytes.map_or("by default".to_owned(), |b| format!("{b} bytes")),
        )
    }
}

/// A sweep going on after a stop.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Resumed {
    pub(crate) timestamp_utc: String,
    pub(crate) git_commit: String,
}

/// One board's estimates, one per seed.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct Board {
    pub(crate) n: usize,
    pub(crate) kernel: String,
    pub(crate) estimates: Vec<serde_json::Value>,
    /// The budget each thread counted within (absent in sweeps before it was recorded).
    #[serde(default)]
    pub(crate) memory_per_thread_bytes: Option<u64>,
    /// The seed of the panel timed again around the seeds ([`Seeds::panel`]): which work
    /// the speeds beside each seed are of (absent in sweeps before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) panel_seed: Option<u64>,
    /// What that panel timed, by key, so that a sweep resumed in another process times
    /// the same work (absent in sweeps before it was recorded).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) panel: Option<TimedKeys>,
    /// The largest core-hours over the smallest, less one.
    pub(crate) spread: f64,
    /// The seeds whose samples, taken in slices, are under way, by seed.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) under_way: BTreeMap<u64, UnderWay>,
}

/// A seed's sample taken in slices, paused between them.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct UnderWay {
    /// What it has timed.
    pub(crate) so_far: SoFar,
    /// The machine's speed before its first slice, as an estimate records it.
    pub(crate) before: serde_json::Map<String, serde_json::Value>,
    /// The wall time of its slices so far.
    pub(crate) wall_s: f64,
    pub(crate) slices: usize,
}

impl Seeds {
    pub(crate) fn run(&self) -> Result<(), String> {
        if cfg!(debug_assertions) {
            return Err("cargo xtask seeds times the engines in its own process: run it built \
                        for release, `cargo xtask-release seeds ...`"
                .to_owned());
        }
        if let Some(folder) = &self.timings
            && !folder.is_dir()
        {
            return Err(format!("--timings {}: no such folder", folder.display()));
        }
        let (saved, mut sweep) = self.begin()?;
        let save = |sweep: &SeedSweep| saved.save(|sweeps| sweeps.sweeps.push(sweep.clone()));
        // Saved before the first hour's sample, so that a sweep stopped within it is the
        // one `--resume` finds, not the sweep before it.
        save(&sweep)?;
        let within = format!("within {:.0}%", 100.0 * AGREEMENT);
        println!(
            "| N | kernel | core-time by seed | largest / smallest | {within} | by time alone \
             | reference count of N = {REFERENCE_N} | at its speed | a sample of the board again \
             | at their speed | a page's first touch |"
        );
        println!("| ---: | --- | --- | ---: | --- | ---: | --- | ---: | --- | ---: | --- |");
        for (at, &n) in self.ns.iter().enumerate() {
            let (problem, _, list) = count_list(n, self.threads, self.max_memory)
                .map_err(|e| format!("N = {n}: {e}"))?;
            let kernel = problem.kernel().name().to_owned();
            let memory_per_thread_bytes = Some(problem.memory_per_thread());
            let failed = |e: Box<dyn std::error::Error>| format!("N = {n}: {e}");
            if let Some(board) = sweep.boards.get(at) {
                if (&board.kernel, board.memory_per_thread_bytes)
                    != (&kernel, memory_per_thread_bytes)
                {
                    return Err(format!(
                        "--resume: N = {n} was sampled with the {} kernel in {} bytes a \
                         thread, here it would be the {kernel} kernel in {} bytes: resume \
                         it with the same --max-memory-gib and kernel",
                        board.kernel,
                        board.memory_per_thread_bytes.unwrap_or(0),
                        problem.memory_per_thread()
                    ));
                }
            } else {
                eprintln!(
                    "N = {n}: the panel, a sample of seed {} of up to a minute, timed again \
                     between seeds",
                    self.panel_seed()
                );
                let panel = self.panel(&problem, &list).map_err(failed)?;
                sweep.boards.push(Board {
                    n,
                    kernel,
                    estimates: Vec::new(),
                    memory_per_thread_bytes,
                    panel_seed: Some(self.panel_seed()),
                    panel: Some(panel.timed_keys()),
                    spread: 0.0,
                    under_way: BTreeMap::new(),
                });
                save(&sweep)?;
            }
            let board = &sweep.boards[at];
            let panel = board.panel.clone().expect("new boards and resumed ones have a panel");
            if !board.pending(&self.seeds).is_empty() || !board.timed_after_each() {
                let reference = Problem::new(REFERENCE_N, Method::Join)
                    .and_then(|p| p.with_kernel(problem.kernel()))
                    .map_err(|e| format!("the reference count: {e}"))?;
                // The machine's speed, by the same work each time: the reference count's
                // seconds, the panel's thread-seconds and a page's first touch.
                let speed = || -> Result<[(&str, f64); 3], String> {
                    Ok([
                        ("reference_{}_s", reference_seconds(&reference, self.threads)?),
                        ("panel_{}_s", self.panel_seconds(&problem, &panel).map_err(failed)?),
                        ("first_touch_{}_ns", first_touch_ns()),
                    ])
                };
                // Rounds, each after the machine's speed is taken: one seed's whole sample
                // a round, or in slices a slice of every seed's not yet done.
                loop {
                    let now = speed()?;
                    // The speed after the seeds done since it was last taken; a sweep
                    // stopped before it was taken after a seed takes the speed it goes
                    // on at for that.
                    let board = &mut sweep.boards[at];
                    let unmeasured = (board.estimates.iter_mut())
                        .filter(|estimate| estimate.get("panel_after_s").is_none());
                    let mut measured = 0;
                    for estimate in unmeasured {
                        estimate
                            .as_object_mut()
                            .expect("an estimate")
                            .extend(fields(&now, "after"));
                        measured += 1;
                    }
                    if measured > 0 {
                        save(&sweep)?;
                    }
                    let pending = sweep.boards[at].pending(&self.seeds);
                    let round = if self.slice.is_some() {
                        &pending[..]
                    } else {
                        &pending[..1.min(pending.len())]
                    };
                    if round.is_empty() {
                        break;
                    }
                    for &seed in round {
                        let board = &mut sweep.boards[at];
                        let under_way = board.under_way.remove(&seed).unwrap_or_else(|| UnderWay {
                            so_far: SoFar::default(),
                            before: fields(&now, "before"),
                            wall_s: 0.0,
                            slices: 0,
                        });
                        // A sweep runs for hours: its log says where it is.
                        let index = self.seeds.iter().position(|&s| s == seed).unwrap_or(0);
                        let of = format!("{} of {}", index + 1, self.seeds.len());
                        match self.slice {
                            Some(_) => eprintln!(
                                "N = {n}: seed {seed} ({of}), slice {}",
                                under_way.slices + 1
                            ),
                            None => eprintln!("N = {n}: seed {seed}, {of}"),
                        }
                        match self
                            .estimate(&problem, &list, seed, &sweep.build, under_way)
                            .map_err(failed)?
                        {
                            Ok(estimate) => {
                                let hours = |field: &str| {
                                    work(estimate[field].as_f64().unwrap_or(f64::NAN))
                                };
                                eprintln!(
                                    "N = {n}: seed {seed}: {} ({} to {})",
                                    hours("core_hours"),
                                    hours("core_hours_low"),
                                    hours("core_hours_high")
                                );
                                board.add(estimate);
                            }
                            Err(paused) => {
                                eprintln!(
                                    "N = {n}: seed {seed} paused, {} timings in {} slices so far",
                                    paused.so_far.len(),
                                    paused.slices
                                );
                                board.under_way.insert(seed, paused);
                            }
                        }
                        // Saved before the next seed or the speed after it, which must not
                        // lose a sample of minutes.
                        save(&sweep)?;
                    }
                }
            }
            let board = &sweep.boards[at];
            println!("{}", row(board));
            if let Some(moved) = board.machine_moved() {
                eprintln!(
                    "N = {n}: the machine did not hold its speed: the panel's same work took \
                     {:.2} times as long at its slowest as at its fastest, so the seeds' \
                     spread is partly the machine's; sweep again on a quiet machine",
                    1.0 + moved
                );
            }
        }
        let written = if sweep.resumed.is_empty() { "appended to" } else { "resumed in" };
        println!("{written} {}", self.out.display());
        Ok(())
    }

    /// What this sweep samples.
    fn asked(&self) -> Asked {
        Asked {
            ns: self.ns.clone(),
            seeds: self.seeds.clone(),
            threads: self.threads,
            sample_time_s: self.sample_time.map(|time| time.as_secs_f64()),
            max_memory_bytes: self.max_memory,
            slice_s: self.slice.map(|time| time.as_secs_f64()),
        }
    }

    /// The results the sweep appends to, and the sweep: a new one, or with `--resume` the
    /// last in the file, taken out of it to be written back as it goes on.
    fn begin(&self) -> Result<(Appending<SeedSweeps>, SeedSweep), String> {
        let mut saved = Appending::<SeedSweeps>::open(&self.out)?;
        let (timestamp_utc, build) = (timestamp().1, Build::this());
        let committed = Build::sweep_committed();
        if !self.resume {
            let sweep = SeedSweep {
                timestamp_utc,
                build,
                host: Host::this(),
                threads: self.threads,
                asked: Some(self.asked()),
                committed,
                resumed: Vec::new(),
                boards: Vec::new(),
            };
            return Ok((saved, sweep));
        }
        let out = self.out.display();
        let mut sweep = (saved.before_mut().sweeps.pop())
            .ok_or_else(|| format!("--resume: {out} holds no sweep"))?;
        self.goes_on_with(&sweep, &build, committed, &Host::this())
            .map_err(|why| format!("--resume: the last sweep in {out} {why}"))?;
        sweep.resumed.push(Resumed { timestamp_utc, git_commit: build.git_commit });
        Ok((saved, sweep))
    }

    /// Why this sweep cannot go on with `last`, begun by another process, if it cannot:
    /// only the same boards and seeds, sampled the same way from the same committed
    /// sources (`committed`: whether this tree's are) on the same processor, make one
    /// sweep.
    fn goes_on_with(
        &self,
        last: &SeedSweep,
        build: &Build,
        committed: bool,
        host: &Host,
    ) -> Result<(), String> {
        let Some(asked) = &last.asked else {
            return Err("began before sweeps could go on after a stop".to_owned());
        };
        if *asked != self.asked() {
            return Err(format!(
                "asked for {asked}; this asks for {}: resume it with the same flags",
                self.asked()
            ));
        }
        if !last.committed {
            return Err("ran uncommitted changes to the engines or xtask, which no later \
                        build can be known to time as it did"
                .to_owned());
        }
        if !committed {
            return Err("ran committed sources, and this tree has uncommitted changes to the \
                        engines or xtask: commit or set them aside"
                .to_owned());
        }
        build
            .times_as(&last.build)
            .map_err(|why| format!("{why}: resume it with a build of the commit that began it"))?;
        if !host.same_processor(&last.host) {
            return Err(format!(
                "ran on another processor: {}; this is {}",
                last.host.describe(),
                host.describe()
            ));
        }
        let mut finished = last.boards.len() == asked.ns.len();
        for (at, board) in last.boards.iter().enumerate() {
            let seeds: Vec<u64> =
                board.estimates.iter().filter_map(|e| e["seed"].as_u64()).collect();
            let complete = seeds.len() == asked.seeds.len() && board.timed_after_each();
            // In slices, seeds end in any order, each once.
            let seeds_of_this_sweep = match asked.slice_s {
                Some(_) => {
                    let distinct: std::collections::BTreeSet<&u64> = seeds.iter().collect();
                    distinct.len() == seeds.len() && seeds.iter().all(|s| asked.seeds.contains(s))
                }
                None => asked.seeds.starts_with(&seeds),
            };
            let starts_this_sweep = asked.ns.get(at) == Some(&board.n)
                && seeds_of_this_sweep
                && seeds.len() == board.estimates.len()
                && board.panel_seed == Some(self.panel_seed())
                && board.panel.is_some()
                && (complete || at + 1 == last.boards.len());
            if !starts_this_sweep {
                return Err(format!(
                    "holds N = {} with seeds {seeds:?}{}, which is not how a sweep of {asked} \
                     begins",
                    board.n,
                    if board.panel.is_none() { " and no panel to time again" } else { "" },
                ));
            }
            finished &= complete;
        }
        if finished {
            return Err("is finished: there is nothing left to sample".to_owned());
        }
        Ok(())
    }

    /// The seed of the sample whose timings are taken again before each seed and after
    /// the last ([`Seeds::panel`]): the least the sweep does not draw (0 unless the sweep
    /// draws 0), so that no seed's draws begin with the panel's.
    fn panel_seed(&self) -> u64 {
        (0..).find(|seed| !self.seeds.contains(seed)).expect("a sweep draws finitely many seeds")
    }

    /// A short sample of the board with a seed of its own ([`Seeds::panel_seed`], for
    /// [`PANEL_TIME`]): the panel whose timings are taken again before each seed and after
    /// the last. What it timed (pieces, units or tasks) is the board's own work, which
    /// follows the machine where the reference count of a small board does not: on one
    /// Zen 5 the same pieces of N = 28 took 1.23 times as long as in a sweep of the
    /// session before, while the reference counts of N = 18 within the later sweep ran
    /// 0.83 to 1.14 s, as they had before (docs/measurements/plans.md).
    fn panel(
        &self,
        problem: &Problem,
        list: &TaskList,
    ) -> Result<Sample, Box<dyn std::error::Error>> {
        let options = Options {
            sample_time: Some(PANEL_TIME),
            ..Options::new(self.threads, self.panel_seed())
        };
        let watch = Lines::new(problem.n());
        let (_, sample, _) =
            nqueens_plan::estimate(problem, list, 0.0, &options, &watch)?.ok_or("stopped")?;
        if sample.timings().is_empty() {
            return Err(format!("the panel's sample timed nothing in {PANEL_TIME:?}").into());
        }
        Ok(sample)
    }

    /// The thread-seconds the panel's timings take now, in all.
    fn panel_seconds(
        &self,
        problem: &Problem,
        panel: &TimedKeys,
    ) -> Result<f64, Box<dyn std::error::Error>> {
        let options = Options::new(self.threads, self.panel_seed());
        let seconds = nqueens_plan::time_again(problem, panel, &options)?.ok_or("stopped")?;
        Ok(seconds.iter().sum())
    }

    /// One plan's estimate with `seed`, going on from `under_way`, as JSON with the time
    /// it took and the machine's speed before it; or in slices, the seed paused, to go on
    /// in its next slice. Its timings file is named after the commit of `build`, the
    /// sweep's (a resumed sweep's commit may be a later one of the same sources).
    fn estimate(
        &self,
        problem: &Problem,
        list: &TaskList,
        seed: u64,
        build: &Build,
        mut under_way: UnderWay,
    ) -> Result<Result<serde_json::Value, UnderWay>, Box<dyn std::error::Error>> {
        let started = Instant::now();
        let so_far = Arc::new(Mutex::new(std::mem::take(&mut under_way.so_far)));
        let slices = self.slice.map(|length| Slices { so_far: Arc::clone(&so_far), length });
        let options =
            Options { sample_time: self.sample_time, slices, ..Options::new(self.threads, seed) };
        let watch = Lines::new(problem.n());
        let estimated = nqueens_plan::estimate(problem, list, 0.0, &options, &watch)?;
        under_way.wall_s += started.elapsed().as_secs_f64();
        under_way.slices += 1;
        let Some((estimate, sample, _)) = estimated else {
            if self.slice.is_none() {
                return Err("stopped".into());
            }
            under_way.so_far =
                std::mem::take(&mut *so_far.lock().unwrap_or_else(PoisonError::into_inner));
            return Ok(Err(under_way));
        };
        if let Some(folder) = &self.timings {
            let commit: String = build.git_commit.chars().take(7).collect();
            let path = folder.join(format!("n{}-seed{seed}-{commit}.json", problem.n()));
            let timings = serde_json::json!({
                "n": problem.n(),
                "kernel": problem.kernel().name(),
                "threads": self.threads,
                "seed": seed,
                "sampled": estimate.sampled,
                "sampled_list_tasks": estimate.sampled_list_tasks,
                "timings": sample.timings(),
                "build": build,
            });
            crate::workspace::write_file(&path, &format!("{timings}\n"))?;
        }
        let mut value = serde_json::to_value(&estimate)?;
        value["estimate_wall_s"] = under_way.wall_s.into();
        if self.slice.is_some() {
            value["slices"] = under_way.slices.into();
        }
        value.as_object_mut().expect("an estimate is an object").extend(under_way.before);
        Ok(Ok(value))
    }
}

/// How long the machine takes now for the same work: the median wall time, in seconds, of
/// [`REFERENCE_RUNS`] whole counts of `reference`, one on each of `threads` threads at
/// once, as a sample keeps them all busy. Each count is checked against the published one.
fn reference_seconds(reference: &Problem, threads: usize) -> Result<f64, String> {
    let failed = |e: nqueens_core::Error| format!("the reference count: {e}");
    let tasks = reference.tasks(0).map_err(failed)?;
    let count_all = || {
        (tasks.iter())
            .try_fold(Counts::default(), |sum, task| sum.merge(&reference.solve(task, false)?))
    };
    let known = reference.known_solutions().map(|known| known.total);
    let mut runs = Vec::with_capacity(REFERENCE_RUNS);
    for _ in 0..REFERENCE_RUNS {
        let started = Instant::now();
        let counted = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..threads.max(1)).map(|_| scope.spawn(count_all)).collect();
            let joined = workers.into_iter().map(|w| w.join().expect("a reference count panicked"));
            joined.collect::<Result<Vec<Counts>, nqueens_core::Error>>()
        });
        let seconds = started.elapsed().as_secs_f64();
        for counts in counted.map_err(failed)? {
            if known != Some(counts.total as f64) || counts.thirds != 0 {
                return Err(format!(
                    "the reference count of N = {REFERENCE_N} found {} solutions",
                    counts.total
                ));
            }
        }
        runs.push(seconds);
    }
    Ok(Stats::of(&runs).median)
}

impl Board {
    /// Adds an estimate, and takes the spread of them all.
    fn add(&mut self, estimate: serde_json::Value) {
        self.estimates.push(estimate);
        self.spread = self.spread_of("core_hours");
    }

    /// Whether the machine's speed was taken after each seed: a sweep stopped between a
    /// seed and that is not finished.
    fn timed_after_each(&self) -> bool {
        self.estimates.iter().all(|estimate| estimate.get("panel_after_s").is_some())
    }

    /// The seeds of `seeds` without an estimate yet, in their order.
    fn pending(&self, seeds: &[u64]) -> Vec<u64> {
        let done = |seed: u64| self.estimates.iter().any(|e| e["seed"].as_u64() == Some(seed));
        seeds.iter().copied().filter(|&seed| !done(seed)).collect()
    }

    /// The largest over the smallest of the estimates' `field`, less one.
    fn spread_of(&self, field: &str) -> f64 {
        let hours = self.estimates.iter().map(|e| e[field].as_f64().unwrap_or(f64::NAN));
        spread(hours)
    }

    /// How far the panel's times moved across the sweep (the largest over the smallest,
    /// less one), if more than [`STEADY`]: where they did, the seeds' spread is partly the
    /// machine's. None for a steady machine and for sweeps without those times.
    fn machine_moved(&self) -> Option<f64> {
        let times = self.before_and_last_after("panel", "s");
        Some(spread(times.into_iter())).filter(|moved| *moved > STEADY)
    }

    /// The times of the same work, `field` in `unit`, taken before each seed and after
    /// the last, in the order they were taken.
    fn before_and_last_after(&self, field: &str, unit: &str) -> Vec<f64> {
        let (before, after) = (format!("{field}_before_{unit}"), format!("{field}_after_{unit}"));
        (self.estimates.iter())
            .filter_map(|e| e[&before].as_f64())
            .chain(self.estimates.last().and_then(|e| e[&after].as_f64()))
            .collect()
    }

    /// Each seed's core-hours at the speed the machine had across all of them, by the
    /// times taken of the same work before and after each seed, `reference` (the count of
    /// N = 18) or `panel` (the board's own work): scaled by the median of the seeds'
    /// times over its own (the mean of its before and after), so that a seed sampled
    /// while the machine ran slow is taken as if it had not. Empty for sweeps without
    /// those times, and for samples taken in slices: each seed's slices run across the
    /// whole sweep, so they met the same machine as the others, and its before and after
    /// are the sweep's first and a later round's, not its own.
    fn at_one_speed(&self, by: &str) -> Vec<f64> {
        if self.estimates.iter().any(|e| e.get("slices").is_some()) {
            return Vec::new();
        }
        let time_of = |e: &serde_json::Value| {
            let before = e[format!("{by}_before_s")].as_f64()?;
            let after = e[format!("{by}_after_s")].as_f64()?;
            Some((before + after) / 2.0).filter(|time| *time > 0.0)
        };
        let times = self.estimates.iter().map(time_of).collect::<Option<Vec<_>>>();
        let Some(times) = times.filter(|times| !times.is_empty()) else {
            return Vec::new();
        };
        let median = Stats::of(&times).median;
        (self.estimates.iter().zip(&times))
            .map(|(e, own)| e["core_hours"].as_f64().unwrap_or(f64::NAN) * median / own)
            .collect()
    }
}

/// The largest over the smallest of `values`, less one.
pub(crate) fn spread(values: impl Iterator<Item = f64> + Clone) -> f64 {
    let most = values.clone().fold(f64::NAN, f64::max);
    let least = values.fold(f64::NAN, f64::min);
    most / least - 1.0
}

/// How long the system takes now to give memory to the pages a process touches first and
/// to take it back, in nanoseconds a 4 KiB page: the median of [`REFERENCE_RUNS`] times
/// [`TOUCHED_BYTES`] taken, written a byte a page, and freed. The reference count lives in
/// the caches and touches little new memory, where N = 28's pieces touch gigabytes: on one
/// Zen 5 a sweep's system time came to 14 µs a page fault where an earlier sweep's came to
/// 5, and the same pieces took a quarter longer (docs/measurements/plans.md).
fn first_touch_ns() -> f64 {
    let mut runs = Vec::with_capacity(REFERENCE_RUNS);
    for _ in 0..REFERENCE_RUNS {
        let started = Instant::now();
        let mut memory = vec![0u8; TOUCHED_BYTES];
        memory.iter_mut().step_by(PAGE_BYTES).for_each(|byte| *byte = 1);
        drop(std::hint::black_box(memory));
        runs.push(1e9 * started.elapsed().as_secs_f64() / (TOUCHED_BYTES / PAGE_BYTES) as f64);
    }
    Stats::of(&runs).median
}

/// The machine's speed as an estimate records it, taken `when` (before or after it).
fn fields(speed: &[(&str, f64)], when: &str) -> serde_json::Map<String, serde_json::Value> {
    speed.iter().map(|&(field, value)| (field.replace("{}", when), value.into())).collect()
}

/// A board's estimates as a row of the table [`Seeds::run`] prints.
fn row(board: &Board) -> String {
    let hours: Vec<String> = (board.estimates.iter())
        .map(|e| work(e["core_hours"].as_f64().unwrap_or(f64::NAN)))
        .collect();
    let within = match board.machine_moved() {
        _ if board.spread <= AGREEMENT => "yes".to_owned(),
        Some(moved) => format!("no, but the machine moved {:.2}", 1.0 + moved),
        None => "no".to_owned(),
    };
    // Where the work is the cost per solution times the solutions known, the spread the
    // same draws' time alone would have had.
    let alone = board.spread_of("core_hours_by_time_alone");
    let times = |field: &str, unit: &str, shown: &dyn Fn(f64) -> String| {
        let listed: Vec<String> =
            board.before_and_last_after(field, unit).into_iter().map(shown).collect();
        listed.join(", ")
    };
    let seconds = |seconds: f64| format!("{seconds:.2} s");
    let at_one_speed = |by: &str| {
        let at_one_speed = board.at_one_speed(by);
        if at_one_speed.is_empty() {
            String::new()
        } else {
            format!("{:.2}", 1.0 + spread(at_one_speed.iter().copied()))
        }
    };
    format!(
        "| {} | {} | {} | {:.2} | {within} | {:.2} | {} | {} | {} | {} | {} |",
        board.n,
        board.kernel,
        hours.join(", "),
        1.0 + board.spread,
        1.0 + alone,
        times("reference", "s", &seconds),
        at_one_speed("reference"),
        times("panel", "s", &|s: f64| format!("{s:.1} s")),
        at_one_speed("panel"),
        times("first_touch", "ns", &|ns: f64| format!("{ns:.0} ns")),
    )
}

/// Core-time for people, to three figures: small boards take core-seconds.
fn work(hours: f64) -> String {
    match hours * 3600.0 {
        seconds if seconds < 100.0 => format!("{seconds:.1} core-s"),
        seconds if seconds < 6000.0 => format!("{:.1} core-min", seconds / 60.0),
        _ if hours < 100.0 => format!("{hours:.2} core-hours"),
        _ => core_time(hours),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn board(estimates: Vec<serde_json::Value>) -> Board {
        let mut board = Board {
            n: 28,
            kernel: "avx512".to_owned(),
            estimates: Vec::new(),
            memory_per_thread_bytes: None,
            panel_seed: None,
            panel: None,
            spread: 0.0,
            under_way: BTreeMap::new(),
        };
        for estimate in estimates {
            board.add(estimate);
        }
        board
    }

    fn sweep_of(ns: Vec<usize>, seeds: Vec<u64>) -> Seeds {
        Seeds {
            ns,
            seeds,
            threads: 2,
            sample_time: None,
            slice: None,
            max_memory: None,
            out: PathBuf::new(),
            timings: None,
            resume: true,
        }
    }

    /// The panel's seed is one the sweep does not draw: 0 by default, the least free
    /// seed where the sweep draws 0.
    #[test]
    fn the_panel_samples_with_a_seed_no_seed_of_the_sweep_shares() {
        let sweep = |seeds: Vec<u64>| sweep_of(vec![20], seeds);
        assert_eq!(sweep(vec![1, 2, 3, 4, 5]).panel_seed(), 0);
        assert_eq!(sweep(vec![0, 1, 3]).panel_seed(), 2);
        assert_eq!(sweep(vec![2, 1, 0]).panel_seed(), 3);
    }

    /// A board says which panel it was timed against; boards of sweeps before that was
    /// recorded still read, without one.
    #[test]
    fn a_board_records_its_panels_seed_and_older_boards_still_read() {
        let mut board = board(vec![timed(10.0, 1.0, 1.0)]);
        board.panel_seed = Some(2);
        let written = serde_json::to_value(&board).expect("a board serializes");
        assert_eq!(written["panel_seed"], 2);
        let mut older = written;
        older.as_object_mut().expect("an object").remove("panel_seed");
        let read: Board = serde_json::from_value(older).expect("an older board reads");
        assert_eq!(read.panel_seed, None);
    }

    /// A sweep goes on only with the last sweep of the same request, stopped before it
    /// finished, from committed sources that time the same work, on the same processor;
    /// the refusal says what differs.
    #[test]
    fn a_sweep_resumes_only_what_it_began() {
        let seeded = |seed: u64| serde_json::json!({ "seed": seed, "core_hours": 1.0, "panel_after_s": 1.0 });
        let panel = TimedKeys { depth: 3, timed: nqueens_plan::Timed::Pieces, keys: vec![vec![1]] };
        let board_of = |n: usize, seeds: &[u64]| Board {
            panel_seed: Some(0),
            panel: Some(panel.clone()),
            n,
            ..board(seeds.iter().map(|&seed| seeded(seed)).collect())
        };
        let sweep = sweep_of(vec![26, 28], vec![1, 2, 3]);
        // A committed build, whatever the tree the test runs in holds.
        let commit = "0123456789abcdef0123456789abcdef01234567".to_owned();
        let build = Build { git_commit: commit, git_dirty: false, ..Build::this() };
        let host = Host::this();
        let stopped = SeedSweep {
            timestamp_utc: timestamp().1,
            build: build.clone(),
            host: host.clone(),
            threads: 2,
            asked: Some(sweep.asked()),
            committed: true,
            resumed: Vec::new(),
            boards: vec![board_of(26, &[1, 2, 3]), board_of(28, &[1, 2])],
        };
        let goes_on = |last: &SeedSweep| sweep.goes_on_with(last, &build, true, &host);
        assert_eq!(goes_on(&stopped), Ok(()));
        // A board with no seed sampled yet, a sweep stopped before its second board, and
        // one stopped before its first.
        let mut unstarted = stopped.clone();
        unstarted.boards[1].estimates.clear();
        assert_eq!(goes_on(&unstarted), Ok(()));
        unstarted.boards.pop();
        assert_eq!(goes_on(&unstarted), Ok(()));
        unstarted.boards.clear();
        assert_eq!(goes_on(&unstarted), Ok(()));
        // Stopped after its last seed but before the speed after it.
        let mut finished = stopped.clone();
        finished.boards[1] = board_of(28, &[1, 2, 3]);
        let mut untimed = finished.clone();
        untimed.boards[1].estimates[2].as_object_mut().expect("an object").remove("panel_after_s");
        assert_eq!(goes_on(&untimed), Ok(()));
        let refused = |last: &SeedSweep, says: &str| {
            let why = goes_on(last).expect_err(says);
            assert!(why.contains(says), "{why}");
        };
        refused(&finished, "is finished");
        for other in [
            sweep_of(vec![26, 28], vec![1, 2]),
            sweep_of(vec![26, 28], vec![1, 2, 3, 4]),
            sweep_of(vec![26, 27], vec![1, 2, 3]),
            sweep_of(vec![28], vec![1, 2, 3]),
            Seeds { threads: 1, ..sweep_of(vec![26, 28], vec![1, 2, 3]) },
            Seeds { max_memory: Some(1 << 30), ..sweep_of(vec![26, 28], vec![1, 2, 3]) },
        ] {
            let why = other.goes_on_with(&stopped, &build, true, &host).expect_err("other flags");
            assert!(why.contains("resume it with the same flags"), "{why}");
        }
        let mut older = stopped.clone();
        older.asked = None;
        refused(&older, "began before sweeps could go on");
        let mut uncommitted = stopped.clone();
        uncommitted.committed = false;
        refused(&uncommitted, "ran uncommitted changes");
        let why = sweep.goes_on_with(&stopped, &build, false, &host).expect_err("a dirty tree");
        assert!(why.contains("this tree has uncommitted changes"), "{why}");
        let mut unpaneled = stopped.clone();
        unpaneled.boards[1].panel = None;
        refused(&unpaneled, "no panel to time again");
        let mut first_unfinished = stopped.clone();
        first_unfinished.boards[0] = board_of(26, &[1]);
        refused(&first_unfinished, "not how a sweep of");
        let mut other_engine = stopped.clone();
        other_engine.build.engine = Some("another engine".to_owned());
        refused(&other_engine, "another engine");
        let mut no_commit = stopped.clone();
        no_commit.build.git_commit = "--output=elsewhere".to_owned();
        refused(&no_commit, "no commit to compare");
        let mut other_processor = stopped.clone();
        other_processor.host.cpu_model_number = Some(u32::MAX);
        refused(&other_processor, "another processor");
        // In slices, seeds end in any order: a sweep goes on with any of them done, and
        // a slices' sweep is not a sweep of whole samples.
        let sliced = Seeds {
            slice: Some(Duration::from_secs(300)),
            ..sweep_of(vec![26, 28], vec![1, 2, 3])
        };
        let mut out_of_order = stopped.clone();
        out_of_order.asked = Some(sliced.asked());
        out_of_order.boards[1] = board_of(28, &[3, 1]);
        assert_eq!(sliced.goes_on_with(&out_of_order, &build, true, &host), Ok(()));
        assert_eq!(out_of_order.boards[1].pending(&[1, 2, 3]), [2]);
        let why = sweep.goes_on_with(&out_of_order, &build, true, &host).expect_err("sliced");
        assert!(why.contains("resume it with the same flags"), "{why}");
        let mut twice = out_of_order.clone();
        twice.boards[1] = board_of(28, &[3, 3]);
        let why = sliced.goes_on_with(&twice, &build, true, &host).expect_err("a seed twice");
        assert!(why.contains("not how a sweep of"), "{why}");
        let mut not_asked = out_of_order;
        not_asked.boards[1] = board_of(28, &[4]);
        let why = sliced.goes_on_with(&not_asked, &build, true, &host).expect_err("seed 4");
        assert!(why.contains("not how a sweep of"), "{why}");
    }

    /// A seed paused between slices keeps its timings and the speed before its first
    /// slice in the sweep's file, and boards without one still read.
    #[test]
    fn a_paused_seed_is_kept_in_the_sweeps_file() {
        let mut paused = board(vec![timed(10.0, 1.0, 1.0)]);
        let before = fields(&[("panel_{}_s", 30.0)], "before");
        let under_way = UnderWay { so_far: SoFar::default(), before, wall_s: 300.0, slices: 1 };
        paused.under_way.insert(2, under_way);
        let written = serde_json::to_value(&paused).expect("a board serializes");
        assert_eq!(written["under_way"]["2"]["before"]["panel_before_s"], 30.0);
        let read: Board = serde_json::from_value(written).expect("it reads back");
        assert_eq!(read.under_way[&2].slices, 1);
        let unpaused = serde_json::to_value(board(vec![timed(10.0, 1.0, 1.0)])).unwrap();
        assert!(unpaused.get("under_way").is_none(), "{unpaused}");
    }

    fn timed(core_hours: f64, before: f64, after: f64) -> serde_json::Value {
        serde_json::json!({
            "core_hours": core_hours,
            "core_hours_by_time_alone": core_hours,
            "reference_before_s": before,
            "reference_after_s": after,
        })
    }

    #[test]
    fn a_seed_sampled_while_the_machine_ran_slow_is_taken_at_the_others_speed() {
        // The second seed's machine took a fifth longer for the reference, and its
        // estimate came out a fifth higher: at one speed, the three agree.
        let board =
            board(vec![timed(10.0, 1.0, 1.0), timed(12.0, 1.1, 1.3), timed(10.0, 1.0, 1.0)]);
        assert!((board.spread - 0.2).abs() < 1e-9);
        let at_one_speed = board.at_one_speed("reference");
        assert_eq!(at_one_speed.len(), 3);
        for hours in &at_one_speed {
            assert!((hours - 10.0).abs() < 1e-9, "{at_one_speed:?}");
        }
        let row = row(&board);
        assert!(row.contains("| 1.00 s, 1.10 s, 1.00 s, 1.00 s | 1.00 |  |  |  |"), "{row}");
    }

    /// The board's own pieces, timed again, follow the machine where the small board's
    /// count does not: the seeds are taken at the pieces' speed.
    #[test]
    fn a_seed_sampled_while_the_boards_pieces_ran_slow_is_taken_at_their_speed() {
        let mut estimates =
            vec![timed(40.0, 1.0, 1.0), timed(50.0, 1.0, 1.0), timed(50.0, 1.0, 1.0)];
        // The third seed's before is the second's after: one taking again between them.
        for (estimate, (before, after)) in
            estimates.iter_mut().zip([(60.0, 60.0), (60.0, 90.0), (90.0, 60.0)])
        {
            estimate["panel_before_s"] = before.into();
            estimate["panel_after_s"] = after.into();
        }
        let board = board(estimates);
        assert!((board.spread - 0.25).abs() < 1e-9);
        assert!((spread(board.at_one_speed("reference").into_iter()) - 0.25).abs() < 1e-9);
        for hours in board.at_one_speed("panel") {
            assert!((hours - 50.0).abs() < 1e-9, "{hours}");
        }
        let row = row(&board);
        assert!(row.contains("| 1.25 | 60.0 s, 60.0 s, 90.0 s, 60.0 s | 1.00 |"), "{row}");
    }

    /// The within-15% verdict says when the panel's same work moved by more than a tenth
    /// across the sweep: a spread that the machine may have made is not the sampler's.
    #[test]
    fn a_sweep_across_a_slowdown_says_the_machine_moved() {
        let sweep = |hours: [f64; 3], panels: [f64; 4]| {
            let mut estimates: Vec<_> = hours.iter().map(|&h| timed(h, 1.0, 1.0)).collect();
            for (i, estimate) in estimates.iter_mut().enumerate() {
                estimate["panel_before_s"] = panels[i].into();
                estimate["panel_after_s"] = panels[i + 1].into();
            }
            board(estimates)
        };
        let within = |board: &Board| row(board).split(" | ").nth(4).unwrap_or("").to_owned();
        let steady = sweep([80.0, 100.0, 90.0], [349.0, 352.0, 335.0, 355.0]);
        assert_eq!(steady.machine_moved(), None);
        assert_eq!(within(&steady), "no");
        let slowed = sweep([80.0, 100.0, 90.0], [341.0, 327.0, 433.0, 386.0]);
        let moved = slowed.machine_moved().expect("433 over 327 is more than a tenth");
        assert!((moved - (433.0 / 327.0 - 1.0)).abs() < 1e-12, "{moved}");
        assert_eq!(within(&slowed), "no, but the machine moved 1.32");
        let agreed = sweep([85.0, 90.0, 88.0], [341.0, 327.0, 433.0, 386.0]);
        assert_eq!(within(&agreed), "yes");
        let unrecorded = board(vec![timed(80.0, 1.0, 1.0), timed(100.0, 1.0, 1.0)]);
        assert_eq!(unrecorded.machine_moved(), None);
        assert_eq!(within(&unrecorded), "no");
    }

    /// The first touches of each seed are listed as the reference counts are: each
    /// seed's before, and the last one's after.
    #[test]
    fn the_first_touches_are_listed_beside_the_reference_counts() {
        let mut estimates = vec![timed(10.0, 1.0, 1.0), timed(11.0, 1.0, 1.0)];
        for (estimate, (before, after)) in estimates.iter_mut().zip([(900.0, 950.0), (950.0, 2e3)])
        {
            estimate["first_touch_before_ns"] = before.into();
            estimate["first_touch_after_ns"] = after.into();
        }
        let row = row(&board(estimates));
        assert!(row.ends_with("| 900 ns, 950 ns, 2000 ns |"), "{row}");
        let touch = first_touch_ns();
        assert!(touch > 0.0 && touch.is_finite(), "{touch}");
    }

    #[test]
    fn the_reference_count_is_timed_and_checked_against_the_published_count() {
        let board = Problem::new(10, Method::Join).unwrap();
        assert!(reference_seconds(&board, 2).unwrap() > 0.0);
        // A count whose solutions are not the published ones is refused, not timed.
        let plain = Problem::new(10, Method::Plain).unwrap();
        let placed = plain.with_placement(&[(0, 0)]).unwrap();
        let refused = reference_seconds(&placed, 2).unwrap_err();
        assert!(refused.contains("found"), "{refused}");
    }

    #[test]
    fn a_steady_machine_leaves_the_spread_as_it_was() {
        let board = board(vec![timed(10.0, 2.0, 2.0), timed(13.0, 2.0, 2.0)]);
        let at_one_speed = board.at_one_speed("reference");
        assert!((spread(at_one_speed.iter().copied()) - board.spread).abs() < 1e-9);
    }

    /// A sliced sweep's seeds were all timed across the same hours: taking one at "its"
    /// speed would scale it by the readings that happened to open and close it.
    #[test]
    fn seeds_sampled_in_slices_are_not_taken_at_a_speed_of_their_own() {
        let mut estimates = vec![timed(52.0, 1.27, 1.27), timed(50.0, 1.27, 1.40)];
        for estimate in &mut estimates {
            estimate["slices"] = 10.into();
        }
        let board = board(estimates);
        assert!(board.at_one_speed("reference").is_empty());
        let row = row(&board);
        assert!(row.contains("| 1.27 s, 1.27 s, 1.40 s |  |"), "{row}");
    }

    #[test]
    fn sweeps_before_the_reference_counts_have_no_speed_to_take() {
        let old = |hours: f64| serde_json::json!({ "core_hours": hours, "core_hours_by_time_alone": hours });
        let board = board(vec![old(9.0), old(10.0)]);
        assert!(board.at_one_speed("reference").is_empty());
        assert!(board.at_one_speed("panel").is_empty());
        assert!(row(&board).ends_with("| 1.11 |  |  |  |  |  |"), "{}", row(&board));
    }
}
