//! A plan that checks itself: tasks drawn at random from the count's list, or below it,
//! are each predicted, by descents below them as the estimate predicts, and counted
//! whole, exactly as a count would; the ratio of the counted time to the predicted says
//! how far to trust the plan, and corrects it.

use std::time::{Duration, Instant};

use nqueens_core::{Problem, Profile, SolutionsOf, Task};
use nqueens_random::mix;
use nqueens_scheduler::{Finish, INTERVAL_WIDTH, Prediction, Runner, stratified_order};
use serde::Serialize;

use crate::descent::Path;
use crate::gate::Gate;
use crate::options::{DEFAULT_CHECK_TIMING, Options, PlanError, TaskList, Timed, Watch};
use crate::sample::Sample;

/// The fewest descents below each checked task where the estimate timed units or the
/// tasks above them: its units differ, so one is no prediction.
const LEAST_DESCENTS_PER_TASK: usize = 16;

/// The most descents below each checked task, however short: at N = 22 (timings of 23
/// ms) 256 take six thread-seconds a task, against the task's count of seconds.
const MOST_DESCENTS_PER_TASK: usize = 256;

/// The fewest units timed below a checked task above its units where the estimate timed
/// pieces: units differ (N = 28's checked row sets from 3 to 136 s), so one is no
/// prediction, and two give the spread between them.
const LEAST_UNITS_PER_TASK: usize = 2;

/// The fewest pieces timed for each checked unit: every piece walks its unit's first rows
/// again, which at N = 26 took longer than the unit's own pairs (8 units' 16 pieces each
/// had not been timed after 4 minutes on 2 threads), and at N = 28 most of a piece's two
/// to five minutes, so that 4 pieces took twice the unit's count. Any slice of a row set
/// stands for it without bias (they interleave its groups of pairs and its later
/// meetings), and the ratio's interval, from how far each task strays, shows what few
/// pieces cost in precision; a prediction's own spread needs two.
const LEAST_PIECES_PER_UNIT: usize = 2;

/// The most core-seconds a checked task should take, and by default the timings that
/// predict it where they time a unit's every piece ([`pieces_to_time`]): a user checks a
/// plan of Q(28) in an hour or two of a laptop's cores.
pub const MOST_CHECKED_TASK_SECONDS: f64 = 600.0;

/// How many times its split's average the larger tasks a check draws take: N = 25's four,
/// from a split of 570 core-seconds a task on average, were predicted at 554 to 1,520 s
/// and counted in 435 to 1,160 s.
const LARGE_OVER_AVERAGE: f64 = 2.0;

/// What a check found.
#[derive(Debug, Serialize)]
pub struct Check {
    /// The split the tasks were drawn from, and the length of the count's list, from
    /// whose tasks (or below them) they were drawn.
    pub depth: usize,
    pub list_tasks: usize,
    /// What the predictions timed below each task.
    pub timed: Timed,
    pub tasks: Vec<CheckedTask>,
    /// The sums of the tasks' predicted and counted thread-seconds.
    pub predicted_s: f64,
    pub counted_s: f64,
    /// Counted over predicted, with its interval (95%).
    pub ratio: f64,
    pub ratio_low: f64,
    pub ratio_high: f64,
    /// The checked tasks' own cost per solution in core-nanoseconds, with its interval
    /// (95%): their weighed counted time over their weighed solutions, from counts alone.
    /// Absent where they found no solutions.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub core_ns_per_solution: Option<[f64; 3]>,
    /// How long the check took.
    pub check_s: f64,
    /// The checked tasks' profiles added up, where the check profiled them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
}

/// One task checked.
#[derive(Clone, Debug, Serialize, serde::Deserialize)]
pub struct CheckedTask {
    /// The index in the count's list of the task it is, or lies below; its key.
    pub index: usize,
    pub key: Vec<u8>,
    /// How many tasks of its split it stands for: one of the list's strata, and below the
    /// list, the inverse of the chance of the descent that reached it.
    pub weight: f64,
    pub predicted_s: f64,
    /// The standard error of its prediction from sampling, by the spread of the descents
    /// below it: none where they timed every piece of a unit, whatever stalled them.
    pub predicted_error_s: f64,
    /// How many descents below it were timed for its prediction (the check's `timed`);
    /// plans recorded before it was are read as 0.
    #[serde(default)]
    pub timed_below: usize,
    pub counted_s: f64,
    /// Its solutions, for a user to compare with another count of the task.
    pub total: u128,
    /// Where its count's time and work went, where the check profiled it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub profile: Option<Profile>,
}

impl Check {
    /// `work` (thread-seconds, or any time that scales with them) corrected by the
    /// check's ratio, its interval widened by the ratio's.
    pub fn corrected(&self, work: Prediction) -> Prediction {
        let ratio = Prediction { expected: self.ratio, low: self.ratio_low, high: self.ratio_high };
        product(work, ratio)
    }

    /// The count's work in thread-seconds, with its interval, by the checked tasks' own
    /// cost per solution times the count's `solutions`: a plan from counts alone, which
    /// neither the sample nor the predictions enter. `None` where they found none.
    pub fn by_solutions(&self, solutions: SolutionsOf) -> Option<Prediction> {
        let per_solution = self.core_ns_per_solution?.map(|ns| ns * 1e-9);
        Some(work_by_solutions(per_solution, solutions))
    }
}

/// The work in thread-seconds of a count of `solutions` at `per_solution` thread-seconds a
/// solution ([expected, low, high]), its interval widened by the solutions' own error.
pub fn work_by_solutions(per_solution: [f64; 3], solutions: SolutionsOf) -> Prediction {
    let [expected, low, high] = per_solution;
    let margin = INTERVAL_WIDTH * solutions.relative_error * solutions.total;
    let total = solutions.total;
    let solutions = Prediction { expected: total, low: total - margin, high: total + margin };
    product(Prediction { expected, low, high }, solutions)
}

/// The product of two independent estimates, their relative margins added in quadrature.
fn product(a: Prediction, b: Prediction) -> Prediction {
    let relative = |p: Prediction| {
        let spread = (p.high - p.expected).max(p.expected - p.low);
        if p.expected > 0.0 { spread / p.expected } else { 0.0 }
    };
    let expected = a.expected * b.expected;
    let margin = expected * relative(a).hypot(relative(b));
    Prediction { expected, low: (expected - margin).max(0.0), high: expected + margin }
}

/// The split a check draws its tasks from, for a count split `depth` deep whose estimate
/// took `sample`: where it timed pieces, the units (the finest tasks a count runs whole,
/// which is what the pieces predict); else the split whose larger tasks take at most
/// about [`MOST_CHECKED_TASK_SECONDS`] each, at least `depth` deep.
pub fn check_depth(problem: &Problem, sample: &Sample, depth: usize) -> Result<usize, PlanError> {
    if sample.timed == Timed::Pieces {
        return Ok(problem.max_depth());
    }
    let work = sample.work.expected;
    let wanted = (work * LARGE_OVER_AVERAGE / MOST_CHECKED_TASK_SECONDS).ceil();
    let wanted = wanted.min(crate::split::MOST_WANTED as f64);
    Ok(problem.depth_for(wanted as usize)?.max(depth))
}

/// What the runner does for one item of a check: a descent below a checked task to a
/// piece of one of the units timed for it (or to a unit, or the task above one, each
/// its own), timed, or the task counted whole.
#[derive(Clone, Debug)]
enum Item {
    Descent { checked: usize, unit: usize, path: Path },
    Whole { checked: usize, task: Task },
}

/// What is timed below a checked task: the descents to each unit timed for it, and how
/// many pieces the unit has where the task is that one unit and they end at its pieces.
struct Below {
    units: Vec<Vec<Path>>,
    population: Option<usize>,
}

/// Each item's checked task, and what it found: a descent's cost, or a count's seconds and
/// solutions.
type Found = Vec<(usize, Finding)>;

#[derive(Clone, Debug, Serialize, serde::Deserialize)]
enum Finding {
    Descent { unit: usize, cost: f64 },
    Whole { seconds: f64, total: u128, profile: Option<Profile> },
}

/// Checks `count` tasks of the split `depth` deep, each predicted from descents that time
/// what `sample` timed (units, the tasks above them, or pieces) and counted whole; `None`
/// if stopped. The tasks are drawn one from each of `count` strata of `list` (the
/// count's), and where `depth` is deeper, by a descent from there, as likely to reach
/// each unit as the estimate's: a list of every unit of N = 27 would not fit in memory.
pub fn check(
    problem: &Problem,
    list: &TaskList,
    depth: usize,
    count: usize,
    sample: &Sample,
    options: &Options,
    watch: &dyn Watch,
) -> Result<Option<Check>, PlanError> {
    if list.tasks.is_empty() {
        return Err(PlanError::NothingToCheck);
    }
    let started = Instant::now();
    let chosen = draw(problem, list, depth, count, options.seed)?;
    let mut below = Vec::with_capacity(chosen.len());
    // As many timings as take about the check's time a task, as far as the bounds allow:
    // where they are short, more of them cost the check little and take out what a few
    // leave to chance.
    // The sample's warm-up and builds are in its time, so somewhat fewer than these.
    let per_timing = sample.timed_cost / sample.count.max(1) as f64;
    let per_task = options.check_timing.unwrap_or(DEFAULT_CHECK_TIMING).as_secs_f64();
    let timings_within = |least, most| timings_per_task(per_task, per_timing).clamp(least, most);
    let per_unit = timings_within(LEAST_PIECES_PER_UNIT, usize::MAX);
    let most = MOST_CHECKED_TASK_SECONDS;
    let timed = |offered| pieces_to_time(options.check_timing, per_timing, offered, per_unit, most);
    for (checked, Drawn { path: from, .. }) in chosen.iter().enumerate() {
        if sample.timed == Timed::Pieces && problem.children(&from.task)?.is_empty() {
            let mut random = mix(options.seed ^ mix(checked as u64));
            let (pieces, of) = Path::at(&from.task).down_to_pieces(problem, timed, &mut random)?;
            below.push(Below { units: vec![pieces], population: of });
            continue;
        }
        // Descents are at most MOST_DESCENTS_PER_TASK, so no two tasks share a stream.
        let stream =
            |draw: usize| mix(options.seed ^ mix((checked * MOST_DESCENTS_PER_TASK + draw) as u64));
        if sample.timed == Timed::Pieces {
            // A task above its units (`--depth`) is predicted from units of its own, each
            // timed as a checked unit is (every piece where they fit): one random piece a
            // unit would leave its later fills' meetings to chance, as a few pieces of a
            // checked unit do. As many units as the check's time a task allows (by default
            // a checked task's ten core-minutes), at least two: each unit's pieces all
            // where they take half that time or less, else as many as half of it allows.
            let asked = options.check_timing.map(|t| t.as_secs_f64());
            let half = asked.unwrap_or(MOST_CHECKED_TASK_SECONDS) / LEAST_UNITS_PER_TASK as f64;
            let per_unit = timings_per_task(half, per_timing).max(LEAST_PIECES_PER_UNIT);
            let budget = per_unit.saturating_mul(LEAST_UNITS_PER_TASK);
            let timed =
                |offered| pieces_to_time(options.check_timing, per_timing, offered, per_unit, half);
            let unit_at = |draw| {
                let mut random = stream(draw);
                let unit = Path::at(&from.task).down_to_unit(problem, &mut random)?;
                Ok::<_, PlanError>(unit.down_to_pieces(problem, timed, &mut random)?.0)
            };
            // Every unit of the join has as many pieces, so the first says how many fit.
            let first = unit_at(0)?;
            let units = (budget / first.len()).clamp(LEAST_UNITS_PER_TASK, MOST_DESCENTS_PER_TASK);
            let others = (1..units).map(unit_at);
            let units = std::iter::once(Ok(first)).chain(others).collect::<Result<_, _>>()?;
            below.push(Below { units, population: None });
            continue;
        }
        // A task above its units, or a unit where the estimate timed units or the tasks
        // above them, is predicted from descents that each reach a unit of their own,
        // each its own unit.
        let descents = timings_within(LEAST_DESCENTS_PER_TASK, MOST_DESCENTS_PER_TASK);
        let descents = (0..descents).map(|draw| {
            let mut random = stream(draw);
            let unit = Path::at(&from.task).down_to_unit(problem, &mut random)?;
            Ok(vec![unit.cut_at(sample.cut)])
        });
        let units = descents.collect::<Result<Vec<Vec<Path>>, PlanError>>()?;
        below.push(Below { units, population: None });
    }
    // Each task's first descent, then each one's second, and so on: a stall of the
    // machine falls on the descents then under way, of several tasks, not on one task's.
    let timed_below: Vec<Vec<(usize, &Path)>> = (below.iter())
        .map(|b| {
            (b.units.iter().enumerate())
                .flat_map(|(unit, paths)| paths.iter().map(move |path| (unit, path)))
                .collect()
        })
        .collect();
    let mut descents = Vec::new();
    for round in 0..timed_below.iter().map(Vec::len).max().unwrap_or(0) {
        for (checked, paths) in timed_below.iter().enumerate() {
            if let Some(&(unit, path)) = paths.get(round) {
                descents.push(Item::Descent { checked, unit, path: path.clone() });
            }
        }
    }
    let wholes = (chosen.iter().enumerate())
        .map(|(checked, drawn)| Item::Whole { checked, task: drawn.path.task.clone() })
        .collect();
    let items = spread_among(descents, wholes);
    let solver = problem.for_sample(options.threads);
    let (profile, gate) = (options.profile, Gate::default());
    let runner = Runner::new(
        items,
        move |item: &Item| {
            let found = match item {
                Item::Descent { checked, unit, path } => {
                    let measured = gate.time(&solver, &path.task, || solver.measure(&path.task))?;
                    let cost = path.cost(&measured.charges);
                    (*checked, Finding::Descent { unit: *unit, cost })
                }
                Item::Whole { checked, task } if profile => {
                    let (counts, profile) =
                        gate.count(&solver, task, || solver.solve_profiled(task))?;
                    let (seconds, total) = (profile.seconds, counts.total);
                    (*checked, Finding::Whole { seconds, total, profile: Some(profile) })
                }
                Item::Whole { checked, task } => {
                    let (counts, spent) = gate.count(&solver, task, || solver.solve_timed(task))?;
                    let (seconds, total) = (spent.as_secs_f64(), counts.total);
                    (*checked, Finding::Whole { seconds, total, profile: None })
                }
            };
            Ok::<Found, nqueens_core::Error>(vec![found])
        },
        |a: &Found, b: &Found| Ok(a.iter().chain(b).cloned().collect()),
        Vec::new(),
    )
    .threads(options.threads)
    .stop_flag(options.stop.clone());
    let report = runner.run(|progress| {
        let counted = (progress.partial.iter())
            .filter(|(_, found)| matches!(found, Finding::Whole { .. }))
            .count();
        // The last count may end before the timings after it: the check is done with them,
        // and its end is told once, below.
        if progress.done < progress.total {
            let counted = counted.min(chosen.len().saturating_sub(1));
            watch.checking(counted, chosen.len(), progress.session);
        }
    })?;
    if report.finish != Finish::Complete {
        return Ok(None);
    }
    watch.checking(chosen.len(), chosen.len(), report.elapsed);
    let mut tasks: Vec<CheckedTask> = (chosen.iter())
        .map(|drawn| CheckedTask {
            index: drawn.index,
            key: drawn.path.task.key().to_vec(),
            weight: drawn.weight,
            predicted_s: 0.0,
            predicted_error_s: 0.0,
            timed_below: 0,
            counted_s: 0.0,
            total: 0,
            profile: None,
        })
        .collect();
    let mut costs: Vec<Vec<Vec<f64>>> =
        below.iter().map(|b| vec![Vec::new(); b.units.len()]).collect();
    for (checked, finding) in report.result {
        let task = &mut tasks[checked];
        match finding {
            Finding::Descent { unit, cost } => costs[checked][unit].push(cost),
            Finding::Whole { seconds, total, profile } => {
                (task.counted_s, task.total, task.profile) = (seconds, total, profile);
            }
        }
    }
    let profile = options.profile.then(|| {
        let mut sum = Profile::default();
        tasks.iter().filter_map(|task| task.profile.as_ref()).for_each(|p| sum.add(p));
        sum
    });
    for ((task, units), below) in tasks.iter_mut().zip(&costs).zip(&below) {
        (task.predicted_s, task.predicted_error_s) = predicted(units, below.population);
        task.timed_below = units.iter().map(Vec::len).sum();
    }
    let (ratio, ratio_low, ratio_high) = ratio_of(&tasks).ok_or(PlanError::NothingToCheck)?;
    let core_ns_per_solution = per_solution_of(&tasks).map(|found| found.map(|s| 1e9 * s));
    Ok(Some(Check {
        depth,
        list_tasks: list.tasks.len(),
        timed: sample.timed,
        predicted_s: tasks.iter().map(|t| t.predicted_s).sum(),
        counted_s: tasks.iter().map(|t| t.counted_s).sum(),
        tasks,
        ratio,
        ratio_low,
        ratio_high,
        core_ns_per_solution,
        check_s: started.elapsed().as_secs_f64(),
        profile,
    }))
}

/// `wholes` spread evenly among `timings`, each in the middle of its share of them, in
/// the order served: the counts, taken together, then run in the same minutes as the
/// timings that predict them, so that the ratio of their sums holds where the machine's
/// speed moves during the check. Counted after all the timings, the counts met a machine
/// that had slowed since: on a Zen 5 whose speed moved by a quarter within the hour, a
/// plans sweep checked N = 22 at 0.78 where the same check alone said 1.02, and a check
/// slowed on purpose for its second half said 1.25 to 1.52 with its counts last and 1.01
/// to 1.12 with them spread (docs/measurements/plans.md). Each task's timings come in
/// rounds across the whole check and its count at one moment of it, so a drift makes the
/// tasks stray from the ratio and widens its interval instead.
fn spread_among<T>(timings: Vec<T>, wholes: Vec<T>) -> Vec<T> {
    let (timed, counted) = (timings.len(), wholes.len());
    let mut items = Vec::with_capacity(timed + counted);
    let mut timings = timings.into_iter();
    for (at, whole) in wholes.into_iter().enumerate() {
        let timings_before = (2 * at + 1) * timed / (2 * counted);
        items.extend(timings.by_ref().take(timings_before - (items.len() - at)));
        items.push(whole);
    }
    items.extend(timings);
    items
}

/// A task drawn for a check: the index in the count's list of the task it is or lies
/// below, the path down to it, and how many tasks of its split it stands for.
struct Drawn {
    index: usize,
    path: Path,
    weight: f64,
}

/// One task from each of `count` strata of `list`, and from there a descent to the split
/// `depth` deep.
fn draw(
    problem: &Problem,
    list: &TaskList,
    depth: usize,
    count: usize,
    seed: u64,
) -> Result<Vec<Drawn>, PlanError> {
    let indices: Vec<usize> = (0..list.tasks.len()).collect();
    let strata = count.clamp(1, list.tasks.len());
    let (size, wider) = (list.tasks.len() / strata, list.tasks.len() % strata);
    let stratum = |index: usize| (size + usize::from(index < wider * (size + 1))) as f64;
    let order = stratified_order(&indices, strata, mix(seed ^ 0xc4ec));
    (order.into_iter().take(strata).enumerate())
        .map(|(at, index)| {
            let mut random = mix(seed ^ mix(0xd0e5 + at as u64));
            let path = Path::at(&list.tasks[index]);
            let path = path.down_levels(problem, depth.saturating_sub(list.depth), &mut random)?;
            Ok(Drawn { index, weight: stratum(index) * path.weight(), path })
        })
        .collect()
}

/// The ratio of the counted to the predicted sums, each task weighed by how many it stands
/// for, and its interval: the ratio estimator's standard error, from how far each task's
/// weighed count strays from its prediction times the ratio and from each prediction's
/// own error (a task that outweighs the rest strays little from a ratio drawn to its
/// own), times Student's quantile for so few tasks (8 checked N = 22 row sets once put
/// the ratio at 0.63 to 0.82 with the normal's, and 16 others at 0.93 to 1.06). One task
/// gives no spread: its interval is the ratio's own size either way. `None` where the
/// tasks were predicted to take no time.
fn ratio_of(tasks: &[CheckedTask]) -> Option<(f64, f64, f64)> {
    let [ratio, low, high] = counted_over(tasks, |t| t.predicted_s, |t| t.predicted_error_s)?;
    Some((ratio, low, high))
}

/// The tasks' counted thread-seconds per solution, each task weighed by how many it
/// stands for, with its interval: [expected, low, high]. The ratio estimator's standard
/// error, from how far each task's weighed time strays from its solutions at that cost,
/// times Student's quantile. A task's time follows its solutions, so this strays far less
/// than the time of the tasks does (the plans table's checks: 2.5 to 12 times less in
/// variance). `None` where the tasks found no solutions.
pub fn per_solution_of(tasks: &[CheckedTask]) -> Option<[f64; 3]> {
    counted_over(tasks, |t| t.total as f64, |_| 0.0)
}

/// The ratio of the tasks' weighed counted time to their weighed `of`, with its interval
/// ([expected, low, high]): the ratio estimator's standard error, from how far each
/// task's weighed count strays from its `of` times the ratio and from the standard error
/// of each `of` (`error_of`), times Student's quantile for so few tasks. One task gives no
/// spread: its interval is the ratio's own size. `None` where the `of` add up to nothing.
fn counted_over(
    tasks: &[CheckedTask],
    of: impl Fn(&CheckedTask) -> f64,
    error_of: impl Fn(&CheckedTask) -> f64,
) -> Option<[f64; 3]> {
    let over: f64 = tasks.iter().map(|t| t.weight * of(t)).sum();
    let counted: f64 = tasks.iter().map(|t| t.weight * t.counted_s).sum();
    if over <= 0.0 {
        return None;
    }
    let ratio = counted / over;
    let k = tasks.len() as f64;
    let error = if tasks.len() < 2 {
        ratio
    } else {
        let strays: f64 =
            tasks.iter().map(|t| (t.weight * (t.counted_s - ratio * of(t))).powi(2)).sum();
        let noise: f64 = tasks.iter().map(|t| (t.weight * ratio * error_of(t)).powi(2)).sum();
        (strays * k / (k - 1.0) + noise).sqrt() / over
    };
    let margin = student_quantile(tasks.len().saturating_sub(1)) * error;
    Some([ratio, (ratio - margin).max(0.0), ratio + margin])
}

/// A checked task's prediction and its standard error from what the timings below it
/// cost, by the unit each was timed in: one unit's pieces by their mean, with the finite
/// `population`'s correction; else each unit's mean, the units drawn independently, so
/// that their spread carries that of their pieces too (two-stage sampling).
fn predicted(units: &[Vec<f64>], population: Option<usize>) -> (f64, f64) {
    match units {
        [pieces] => mean_and_error(pieces, population),
        _ => {
            let mean = |costs: &Vec<f64>| costs.iter().sum::<f64>() / costs.len().max(1) as f64;
            mean_and_error(&units.iter().map(mean).collect::<Vec<f64>>(), None)
        }
    }
}

/// The mean of `costs` and its standard error (none from one cost): drawn with
/// replacement, or none twice from a `population` of that many, the whole of which leaves
/// no error.
fn mean_and_error(costs: &[f64], population: Option<usize>) -> (f64, f64) {
    let k = costs.len() as f64;
    if costs.is_empty() {
        return (0.0, 0.0);
    }
    let mean = costs.iter().sum::<f64>() / k;
    if costs.len() < 2 {
        return (mean, 0.0);
    }
    let squares: f64 = costs.iter().map(|c| (c - mean).powi(2)).sum();
    let unsampled = population.map_or(1.0, |all| (1.0 - k / all as f64).max(0.0));
    (mean, (squares / (k - 1.0) / k * unsampled).sqrt())
}

/// How many of a checked unit's `offered` pieces to time, at `per_timing` core-seconds
/// each (the sample's average), where the check's time would time `by_time`: where no
/// time was `asked` for, all of them if they take no longer than `within` seconds (a
/// checked task's count's at most, [`MOST_CHECKED_TASK_SECONDS`], or a share of it). A
/// unit's later fills' meetings go whole to a few of its pieces, so that a few pieces
/// mostly miss them: N = 28's check from 3 pieces a unit said 1.19 (0.98 to 1.40), its
/// three strays 1.56 to 2.01, where all 16 said 0.91 (0.88 to 0.95) and the same three
/// 0.96 to 0.97, in 7 minutes of checking on 2 threads against 3.
fn pieces_to_time(
    asked: Option<Duration>,
    per_timing: f64,
    offered: usize,
    by_time: usize,
    within: f64,
) -> usize {
    let every_piece_fits = per_timing * offered as f64 <= within;
    if asked.is_none() && every_piece_fits { offered } else { by_time }
}

/// How many timings below a checked task take about `per_task` thread-seconds, at
/// `per_timing` each; `usize::MAX` where timings take no time and some is asked for.
fn timings_per_task(per_task: f64, per_timing: f64) -> usize {
    // The cast saturates: a timing of no time gives `usize::MAX`.
    (per_task / per_timing).ceil() as usize
}

/// The 97.5% quantile of Student's t with `freedom` degrees of freedom: as wide an
/// interval (95%) for a handful of tasks as [`INTERVAL_WIDTH`] is for many.
fn student_quantile(freedom: usize) -> f64 {
    const QUANTILES: [f64; 30] = [
        12.71, 4.30, 3.18, 2.78, 2.57, 2.45, 2.36, 2.31, 2.26, 2.23, 2.20, 2.18, 2.16, 2.14, 2.13,
        2.12, 2.11, 2.10, 2.09, 2.09, 2.08, 2.07, 2.07, 2.06, 2.06, 2.06, 2.05, 2.05, 2.05, 2.04,
    ];
    match freedom {
        0 => QUANTILES[0],
        1..=30 => QUANTILES[freedom - 1],
        _ => INTERVAL_WIDTH,
    }
}

#[cfg(test)]
mod tests {
    use nqueens_core::Method;

    use super::*;

    #[test]
    fn the_counts_run_among_the_timings_that_predict_them() {
        for (timed, counted) in [(0, 3), (3, 0), (1, 1), (10, 2), (7, 3), (80, 8), (5, 8)] {
            let timings: Vec<usize> = (0..timed).collect();
            let wholes: Vec<usize> = (1000..1000 + counted).collect();
            let items = spread_among(timings.clone(), wholes.clone());
            let (served_wholes, served_timings): (Vec<usize>, Vec<usize>) =
                items.iter().partition(|&&item| item >= 1000);
            assert_eq!((served_timings, served_wholes), (timings, wholes), "each in its order");
            if counted > 0 {
                // Half the timings come before the counts, on average over the counts.
                let before: Vec<usize> = (items.iter().enumerate())
                    .filter(|(_, item)| **item >= 1000)
                    .map(|(place, item)| place - (item - 1000))
                    .collect();
                let mean = before.iter().sum::<usize>() as f64 / counted as f64;
                let apart = mean - timed as f64 / 2.0;
                assert!(apart.abs() <= 0.5, "{timed} timings, {counted} counts: {before:?}");
            }
        }
        assert_eq!(spread_among(vec![0, 1, 2, 3, 4, 5], vec![10, 11]), [0, 10, 1, 2, 3, 11, 4, 5]);
    }

    /// What a check reports of its counts, in the order it reports it.
    #[derive(Default)]
    struct Counted(std::sync::Mutex<Vec<usize>>);

    impl Watch for Counted {
        fn sampling(&self, _: Timed, _: usize, _: f64, _: Duration) {}
        fn sampled(&self, _: Timed, _: usize, _: Duration) {}
        fn checking(&self, counted: usize, _: usize, _: Duration) {
            self.0.lock().unwrap().push(counted);
        }
    }

    /// The counts end before the timings after the last of them: the check says it has
    /// counted them all when it is done, not on every timing that ends after.
    #[test]
    fn a_check_says_all_are_counted_once_it_is_done() {
        let problem = Problem::new(13, Method::Join).unwrap();
        let list = TaskList::of(&problem, problem.depth_for(16).unwrap()).unwrap();
        let options =
            Options { sample_time: Some(Duration::from_millis(300)), ..Options::new(2, 1) };
        let (_, sample, _) =
            crate::estimate(&problem, &list, 0.0, &options, &crate::Unwatched).unwrap().unwrap();
        let watch = Counted::default();
        let checked = check(&problem, &list, list.depth, 4, &sample, &options, &watch);
        assert_eq!(checked.unwrap().expect("not stopped").tasks.len(), 4);
        let counted = watch.0.into_inner().unwrap();
        assert!(counted.windows(2).all(|pair| pair[0] <= pair[1]), "{counted:?}");
        // Once, after the run: a log prints its last line once.
        assert_eq!(counted.iter().filter(|&&c| c == 4).count(), 1, "{counted:?}");
        assert_eq!(counted.last(), Some(&4));
    }

    fn task(predicted_s: f64, counted_s: f64) -> CheckedTask {
        let (key, predicted_error_s) = (Vec::new(), 0.0);
        CheckedTask {
            index: 0,
            key,
            weight: 1.0,
            predicted_s,
            predicted_error_s,
            timed_below: 0,
            counted_s,
            total: 0,
            profile: None,
        }
    }

    /// A task that outweighs the rest draws the ratio to its own, so that it strays
    /// little from it however far its prediction may be off: at N = 27 one row set's two
    /// pieces predicted 17.4 s for 14.6 s counted, and the ratio's interval was 0.83 to
    /// 0.86. Its prediction's own error widens the interval.
    #[test]
    fn a_task_that_outweighs_the_rest_widens_the_interval_by_its_own_error() {
        let others = [task(1.0, 0.8), task(0.4, 0.3), task(0.3, 0.25)];
        let outweighing = |predicted_error_s| CheckedTask { predicted_error_s, ..task(17.4, 14.6) };
        let exact: Vec<CheckedTask> =
            [outweighing(0.0)].into_iter().chain(others.clone()).collect();
        let noisy: Vec<CheckedTask> = [outweighing(2.6)].into_iter().chain(others).collect();
        let (ratio, low, high) = ratio_of(&exact).unwrap();
        let (noisy_ratio, noisy_low, noisy_high) = ratio_of(&noisy).unwrap();
        assert_eq!(ratio, noisy_ratio);
        assert!(
            high - low < 0.1 && noisy_high - noisy_low > 0.5,
            "{low} {high} {noisy_low} {noisy_high}"
        );
        assert_eq!(mean_and_error(&[12.0, 17.0], None), (14.5, 2.5));
        assert_eq!(mean_and_error(&[3.0], None), (3.0, 0.0));
        // Drawn none twice, half of four leave half the variance; all four, none.
        let (_, half) = mean_and_error(&[12.0, 17.0], Some(4));
        assert!((half - 2.5 / 2f64.sqrt()).abs() < 1e-12, "{half}");
        assert_eq!(mean_and_error(&[12.0, 17.0, 11.0, 14.0], Some(4)), (13.5, 0.0));
    }

    /// A task is predicted by the means of the units timed below it: one unit's pieces
    /// with the finite population's correction, several units by the spread of their
    /// means, however many pieces each had; descents that are each their own unit, by
    /// their plain mean.
    #[test]
    fn units_below_a_task_predict_it_by_their_means() {
        let unit = vec![12.0, 17.0, 11.0, 14.0];
        assert_eq!(predicted(std::slice::from_ref(&unit), Some(4)), (13.5, 0.0));
        assert_eq!(predicted(&[vec![12.0, 17.0]], None), (14.5, 2.5));
        assert_eq!(predicted(&[unit, vec![18.0]], None), (15.75, 2.25));
        let descents = [vec![12.0], vec![17.0], vec![11.0]];
        assert_eq!(predicted(&descents, None), mean_and_error(&[12.0, 17.0, 11.0], None));
    }

    #[test]
    fn the_ratio_is_of_the_sums_and_narrows_as_tasks_agree() {
        let agreeing = [task(1.0, 1.1), task(2.0, 2.2), task(4.0, 4.4)];
        let (ratio, low, high) = ratio_of(&agreeing).unwrap();
        assert!((ratio - 1.1).abs() < 1e-12 && (high - low) < 1e-9);
        let straying = [task(1.0, 2.0), task(2.0, 1.0), task(4.0, 5.0)];
        let (ratio, low, high) = ratio_of(&straying).unwrap();
        assert!((ratio - 8.0 / 7.0).abs() < 1e-12);
        assert!(low < ratio && ratio < high && high - low > 0.5, "{low} {high}");
        assert_eq!(ratio_of(&[task(0.0, 1.0)]), None);
        // A task drawn from below stands for as many as its weight.
        let weighed = [CheckedTask { weight: 3.0, ..task(1.0, 2.0) }, task(2.0, 1.0)];
        let copies = [task(1.0, 2.0), task(1.0, 2.0), task(1.0, 2.0), task(2.0, 1.0)];
        let (ratio, copied) = (ratio_of(&weighed).unwrap().0, ratio_of(&copies).unwrap().0);
        assert!((ratio - 7.0 / 5.0).abs() < 1e-12 && (ratio - copied).abs() < 1e-12);
    }

    /// Tasks drawn below the list are tasks of the split asked for, and their weights
    /// add up to its length on average (each stratum's tasks to its size, always).
    #[test]
    fn tasks_drawn_below_the_list_stand_for_their_split() {
        let problem = Problem::new(13, Method::Join).unwrap();
        let list = TaskList::of(&problem, 2).unwrap();
        let depth = problem.max_depth();
        let split = problem.tasks(depth).unwrap();
        let (draws, count) = (400, 5);
        let mut weights = 0.0;
        for seed in 0..draws {
            let drawn = draw(&problem, &list, depth, count, seed).unwrap();
            assert_eq!(drawn.len(), count);
            assert!(drawn.iter().all(|d| split.contains(&d.path.task)), "seed {seed}");
            weights += drawn.iter().map(|d| d.weight).sum::<f64>();
            let at_list = draw(&problem, &list, list.depth, count, seed).unwrap();
            let listed: f64 = at_list.iter().map(|d| d.weight).sum();
            assert_eq!(listed, list.tasks.len() as f64);
        }
        let mean = weights / draws as f64;
        let units = split.len() as f64;
        assert!((mean - units).abs() < 0.1 * units, "{mean} for {units} tasks");
    }

    /// Tasks whose times are one cost per solution give it exactly, however their times
    /// and weights differ; tasks that stray from it widen its interval; tasks without
    /// solutions give none.
    #[test]
    fn the_cost_per_solution_is_of_the_weighed_sums() {
        let found = |weight: f64, counted_s: f64, total: u128| CheckedTask {
            weight,
            total,
            ..task(1.0, counted_s)
        };
        let even = [found(1.0, 2.0, 4), found(16.0, 30.0, 60), found(3.0, 0.5, 1)];
        let [per_solution, low, high] = per_solution_of(&even).unwrap();
        assert!((per_solution - 0.5).abs() < 1e-12 && high - low < 1e-12, "{low} {high}");
        let straying = [found(1.0, 2.0, 1), found(16.0, 30.0, 60), found(3.0, 0.5, 4)];
        let [per_solution, low, high] = per_solution_of(&straying).unwrap();
        let weighed = (2.0 + 16.0 * 30.0 + 3.0 * 0.5) / (1.0 + 16.0 * 60.0 + 3.0 * 4.0);
        assert!((per_solution - weighed).abs() < 1e-12);
        assert!(low < per_solution && per_solution < high, "{low} {high}");
        assert_eq!(per_solution_of(&[found(1.0, 2.0, 0)]), None);
        // The count by it carries its interval and the solutions' own error.
        let check = Check {
            depth: 0,
            list_tasks: 3,
            timed: Timed::Units,
            tasks: Vec::new(),
            predicted_s: 0.0,
            counted_s: 0.0,
            ratio: 1.0,
            ratio_low: 1.0,
            ratio_high: 1.0,
            core_ns_per_solution: Some([2.0, 1.5, 2.5]),
            check_s: 0.0,
            profile: None,
        };
        let published = SolutionsOf { total: 1e9, relative_error: 0.0 };
        let work = check.by_solutions(published).unwrap();
        assert!((work.expected - 2.0).abs() < 1e-12 && (work.high - 2.5).abs() < 1e-12);
        let extrapolated = SolutionsOf { relative_error: 0.1, ..published };
        let wider = check.by_solutions(extrapolated).unwrap();
        assert!(wider.high > work.high && wider.low < work.low, "{wider:?}");
    }

    /// About forty seconds of timings a checked task: N = 27's sample of 460 pieces in 3
    /// minutes on 2 threads gives 52 a unit (so all 16); N = 22's 3,284 timings in 76
    /// thread-seconds 1,729 (so 256 descents); timings of ten seconds 4; of no time, all.
    #[test]
    fn a_checked_task_gets_about_forty_seconds_of_timings() {
        assert_eq!(timings_per_task(40.0, 360.0 / 460.0), 52);
        assert_eq!(timings_per_task(40.0, 76.0 / 3284.0), 1729);
        assert_eq!(timings_per_task(40.0, 360.0 / 36.0), 4);
        assert_eq!(timings_per_task(40.0, 0.0 / 1.0), usize::MAX);
        assert_eq!(timings_per_task(40.0, 0.0 / 10.0), usize::MAX);
    }

    /// A check times every piece of its units by default where they fit in a checked
    /// task's ten core-minutes (N = 28 with 9 GiB a thread: 32 pieces in 3 min 43 s of 2
    /// threads; pieces of no time; pieces of exactly a sixteenth of the ten minutes), else
    /// as many as its time allows (N = 28 in the default budget, pieces of minutes), and
    /// as many as a time asked for allows, fewer or more; below a task above its units,
    /// within half the time (pieces of 17.5 s, as N = 28's with 9 GiB a thread, all 16;
    /// of 25 s, twelve).
    #[test]
    fn a_check_times_every_piece_of_a_unit_where_they_fit() {
        let most = MOST_CHECKED_TASK_SECONDS;
        let n28 = 446.0 / 32.0;
        assert_eq!(pieces_to_time(None, n28, 16, 3, most), 16);
        assert_eq!(pieces_to_time(None, 0.0, 16, usize::MAX, most), 16);
        assert_eq!(pieces_to_time(None, MOST_CHECKED_TASK_SECONDS / 16.0, 16, 2, most), 16);
        assert_eq!(pieces_to_time(None, 150.0, 16, 2, most), 2);
        let asked = |seconds| Some(Duration::from_secs(seconds));
        assert_eq!(pieces_to_time(asked(40), n28, 16, 3, most), 3);
        assert_eq!(timings_per_task(320.0, n28), 23, "5m20s asked: all 16 and more");
        assert_eq!(pieces_to_time(asked(320), 150.0, 16, 3, most), 3);
        // Each of the two or more units timed below a task above them gets half the time.
        assert_eq!(pieces_to_time(None, 17.5, 16, 18, most / 2.0), 16);
        assert_eq!(pieces_to_time(None, 25.0, 16, 12, most / 2.0), 12);
    }

    #[test]
    fn few_tasks_widen_the_interval() {
        let widths: Vec<f64> = (1..40).map(student_quantile).collect();
        assert!(widths.windows(2).all(|pair| pair[0] >= pair[1]), "{widths:?}");
        assert_eq!(student_quantile(7), 2.36);
        assert_eq!(student_quantile(1000), INTERVAL_WIDTH);
        let agreeing = [task(1.0, 1.1), task(2.0, 2.0), task(4.0, 4.4)];
        let (ratio, low, high) = ratio_of(&agreeing).unwrap();
        let (_, low_of_two, high_of_two) = ratio_of(&agreeing[1..]).unwrap();
        assert!(low < ratio && ratio < high && high_of_two - low_of_two > high - low);
    }
}
