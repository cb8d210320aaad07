//! The join's sample below a count's tasks, which are too large to time whole from N = 23
//! on 2 threads, and which a sample of whole tasks may miss the large ones of before: each
//! draw descends from a task of the list to a random row set, and on to a
//! random part of it, choosing among [`Problem::parts`] at random at every level, and
//! times the row set alone, or the part where row sets are too large too.
//!
//! A part chosen with probability `p` stands for `1 / p` like it (Knuth's estimate of a
//! tree's size), so `1 / p` times its cost is an unbiased estimate of its task's. Its cost
//! is not its time, though: a part redoes work that its task does once (the other half's
//! half-boards, the rows its task shares among its row sets). The engine says which of its
//! time is its own ([`Work`]: the join's pair count, which it times) and what share of
//! the rest, and the part is charged that.

use std::time::{Duration, Instant};

use anyhow::Context;
use nqueens_core::{Problem, Task, Work};
use nqueens_scheduler::{
    CostModel, Finish, INTERVAL_WIDTH, Prediction, Progress, Runner, stratified_order,
};

use super::sample::{self, SampleDisplay, SampleOptions, strata};
use crate::audit::mix;
use crate::cli::DescendTo;
use crate::signals::Signals;

/// The longest the descents may run.
const MOST_DESCENT_TIME: Duration = Duration::from_secs(90);

/// The most descents drawn: at N = 16 the parts take microseconds, and this many estimate
/// the work within a few percent.
const MOST_DESCENTS: usize = 1 << 14;

/// The sampling error (95%, relative) at which the descents stop early.
const ENOUGH_PRECISION: f64 = 0.03;

/// Draws per stratum in a block of the sample served in list order.
const DRAWS_PER_STRATUM_BLOCK: usize = 4;

/// Parts of row sets timed per thread before the sample chooses between row sets and
/// parts.
const PILOT_PER_THREAD: usize = 4;

/// How far an estimate from row sets, or from parts of them, may overstate or understate
/// the work of an `n`-board, as a factor either way, from checks against counts and
/// against each other (docs/measurements.md): row sets predicted 1.00 and 1.38 times the
/// counts of N = 20 and 21; parts 3.3 and 6 times, and 1.5 times the row sets at N = 24.
/// Odd boards' parts, whose middle queens leave fewer columns, overstate more.
pub(super) fn model_error(descended_to: DescendTo, n: usize) -> f64 {
    match descended_to {
        DescendTo::RowSets => 1.4,
        DescendTo::Parts if n.is_multiple_of(2) => 3.0,
        DescendTo::Parts => 6.0,
    }
}

/// How many descents each stratum gets at least before the sample may stop.
const LEAST_PER_STRATUM: usize = 4;

/// One draw: the task of the list it descends from, the row set it reached and a part of
/// that row set, and how many like each the task holds (the inverse of the chance of
/// drawing it).
struct Draw {
    index: usize,
    row_set: Task,
    row_set_weight: f64,
    part: Task,
    part_weight: f64,
}

/// A draw timed: its task, weight, seconds and work.
#[derive(Clone, Copy)]
struct Timed {
    index: usize,
    /// How many like it its task of the list holds, and of those, its row set.
    weight: f64,
    part_weight: f64,
    seconds: f64,
    work: Work,
}

/// What the descents predict of a list: each task's cost, and the whole list's work.
pub(super) struct Descents {
    pub(super) costs: Vec<f64>,
    pub(super) work: Prediction,
    pub(super) timed: usize,
    pub(super) seconds: f64,
    /// Whether it timed whole row sets or parts of them.
    pub(super) descended_to: DescendTo,
}

/// From `task`, random steps down [`Problem::parts`] (within row sets or not) as far as
/// they go: the task reached, and how many like it `task` holds, the inverse of the
/// chance of reaching it. Each step takes a part in proportion to the row sets below it,
/// so that every row set is about equally likely: a uniform choice among parts reached
/// the row sets of N = 28 with chances a thousand times apart, and a few draws then
/// decided the estimate.
fn descend(
    problem: &Problem,
    task: &Task,
    within_row_sets: bool,
    random: &mut u64,
) -> anyhow::Result<(Task, f64)> {
    let (mut task, mut weight) = (task.clone(), 1.0);
    loop {
        let parts = problem.parts(&task, within_row_sets)?;
        let sizes = (parts.iter())
            .map(|part| problem.row_sets_below(part))
            .collect::<Result<Vec<f64>, _>>()?;
        let all: f64 = sizes.iter().sum();
        if parts.is_empty() || all <= 0.0 {
            return Ok((task, weight));
        }
        *random = mix(*random);
        let mut point = all * (*random >> 11) as f64 / (1u64 << 53) as f64;
        let chosen = sizes.iter().position(|&size| {
            point -= size;
            point < 0.0
        });
        // Rounding may leave the point on the last part's far edge.
        let chosen = chosen.unwrap_or_else(|| sizes.iter().rposition(|&s| s > 0.0).unwrap_or(0));
        weight *= all / sizes[chosen];
        task = parts[chosen].clone();
    }
}

/// `count` descents into `list` drawn by `seed`, one task of every stratum in turn.
fn draw(problem: &Problem, list: &[Task], count: usize, seed: u64) -> anyhow::Result<Vec<Draw>> {
    let indices: Vec<usize> = (0..list.len()).collect();
    let mut draws = Vec::with_capacity(count);
    let mut round = 0;
    while draws.len() < count {
        for index in stratified_order(&indices, strata(list.len()), mix(seed ^ round)) {
            if draws.len() == count {
                break;
            }
            let mut random = mix(seed ^ mix(draws.len() as u64));
            let (row_set, row_set_weight) = descend(problem, &list[index], false, &mut random)?;
            let (part, part_weight) = descend(problem, &row_set, true, &mut random)?;
            draws.push(Draw { index, row_set, row_set_weight, part, part_weight });
        }
        round += 1;
    }
    // Each block is served in list order, so that the parts of one split (an odd board's
    // middle queens) follow each other and share the tables the engine builds per split,
    // as the count's tasks do.
    for block in draws.chunks_mut(DRAWS_PER_STRATUM_BLOCK * strata(list.len())) {
        block.sort_by_key(|draw| draw.index);
    }
    Ok(draws)
}

/// What the runner solves: a draw's row set or its part, the draw's index, and the length
/// of the key the descent started from.
type Solved = Vec<(usize, bool, f64, Work)>;

impl Descents {
    /// Times descents into `list` until their estimate is precise enough or their time is
    /// up; `None` if a signal stopped them. A pilot times parts of row sets, which take
    /// milliseconds at N = 20; if whole row sets would let the sample reach
    /// [`LEAST_PER_STRATUM`] draws per stratum in its time, the rest times whole row sets,
    /// whose cost is closer to what a count pays (parts repeat work in ways the shares
    /// only roughly undo: [`model_error`]), else it goes on with parts.
    pub(super) fn take(
        problem: &Problem,
        list: &[Task],
        options: SampleOptions,
        signals: &Signals,
    ) -> anyhow::Result<Option<Descents>> {
        let SampleOptions { threads, seed, progress, descend_to } = options;
        let warm_up = sample::WARM_UP_PER_THREAD * threads;
        let draws = draw(problem, list, MOST_DESCENTS + warm_up, seed)?;
        let (draws, warm_up_draws) = draws.split_at(MOST_DESCENTS);
        // Item 2k is draw k's row set, 2k + 1 its part; the warm-ups' parts come last.
        let from = |d: &Draw| list[d.index].key().len();
        let mut items: Vec<(usize, bool, Task, usize)> = Vec::new();
        for (at, d) in draws.iter().enumerate() {
            items.push((at, false, d.row_set.clone(), from(d)));
            items.push((at, true, d.part.clone(), from(d)));
        }
        let warm_up_items = items.len()..items.len() + warm_up_draws.len();
        for d in warm_up_draws {
            items.push((usize::MAX, true, d.part.clone(), from(d)));
        }
        let solver = problem.clone();
        let runner = Runner::new(
            items,
            move |(at, is_part, task, from): &(usize, bool, Task, usize)| {
                solver.prepare(task)?;
                let started = Instant::now();
                let work = solver.measure(task, *from)?;
                let seconds = started.elapsed().as_secs_f64();
                Ok::<_, nqueens_core::Error>(vec![(*at, *is_part, seconds, work)])
            },
            |a: &Solved, b: &Solved| Ok(a.iter().chain(b).copied().collect()),
            Vec::new(),
        )
        .threads(threads)
        .stop_flag(signals.flag());
        let timed_of = |results: &[(usize, bool, f64, Work)], parts: bool| -> Vec<Timed> {
            let own = |&&(at, is_part, _, _): &&(usize, bool, f64, Work)| {
                at < draws.len() && is_part == parts
            };
            (results.iter().filter(own))
                .map(|&(at, _, seconds, work)| {
                    let d = &draws[at];
                    let part_weight = if parts { d.part_weight } else { 1.0 };
                    let weight = d.row_set_weight * part_weight;
                    Timed { index: d.index, weight, part_weight, seconds, work }
                })
                .collect()
        };
        let display = SampleDisplay::new(progress, "descent", "of the time allowed", 1.0);
        let strata = Strata::of(list.len());
        let least = LEAST_PER_STRATUM * strata.sizes.len();
        // Small batches, so that the time limit is kept however long a piece takes; the
        // draws are already in list order within blocks.
        let batch = 2 * threads;
        let pilot_size = (PILOT_PER_THREAD * threads).min(draws.len());
        let (mut warmed, mut next) = (false, 0);
        let mut parts = descend_to.map(|to| to == DescendTo::Parts);
        let feed = |progress: &Progress<'_, Solved>| {
            if !warmed {
                warmed = true;
                return Ok(warm_up_items.clone().collect());
            }
            let session = progress.session;
            let parts = match parts {
                Some(parts) => parts,
                None => {
                    // The pilot's parts say what a row set costs.
                    let pilot = timed_of(progress.partial, true);
                    // Parts go on being handed out until enough of them are timed: an
                    // empty batch would end the run.
                    if pilot.len() < pilot_size && session < MOST_DESCENT_TIME && next < draws.len()
                    {
                        let more: Vec<usize> =
                            (next..(next + batch).min(draws.len())).map(|at| 2 * at + 1).collect();
                        next += more.len();
                        return Ok(more);
                    }
                    // The pilot's parts overstate a row set by about their model error:
                    // without taking it out, N = 24 and 27 went on with parts where row
                    // sets fit.
                    let per_row_set = pilot.iter().map(|t| t.part_weight * cost(t)).sum::<f64>()
                        / pilot.len().max(1) as f64
                        / model_error(DescendTo::Parts, problem.n());
                    let whole_rounds = per_row_set * least as f64 / threads as f64;
                    let chosen = pilot.is_empty() || whole_rounds > MOST_DESCENT_TIME.as_secs_f64();
                    if !chosen {
                        next = 0;
                    }
                    *parts.insert(chosen)
                }
            };
            let timed = timed_of(progress.partial, parts);
            let precision = (timed.len() >= least)
                .then(|| strata.estimate(&timed))
                .flatten()
                .filter(|(work, _)| work.expected > 0.0)
                .map_or(1.0, |(work, _)| (work.high - work.expected) / work.expected);
            let share = session.as_secs_f64() / MOST_DESCENT_TIME.as_secs_f64();
            display.show(timed.len(), session, share);
            if precision <= ENOUGH_PRECISION || session >= MOST_DESCENT_TIME || next == draws.len()
            {
                return Ok(Vec::new());
            }
            let handed: Vec<usize> = (next..(next + batch).min(draws.len()))
                .map(|at| 2 * at + usize::from(parts))
                .collect();
            next += handed.len();
            Ok(handed)
        };
        let report = runner.run_fed(feed, |_| {}).context("the sample failed")?;
        let below_row_sets = parts.unwrap_or(true);
        let timed = timed_of(&report.result, below_row_sets);
        let share = report.elapsed.as_secs_f64() / MOST_DESCENT_TIME.as_secs_f64();
        display.finish(timed.len(), report.elapsed, share);
        if report.finish != Finish::Complete {
            return Ok(None);
        }
        let descended_to = if below_row_sets { DescendTo::Parts } else { DescendTo::RowSets };
        let (work, means) = strata.estimate(&timed).context("no part of the sample finished")?;
        Ok(Some(Descents {
            costs: (0..list.len()).map(|index| means[strata.model.stratum_of(index)]).collect(),
            work,
            timed: timed.len(),
            seconds: report.elapsed.as_secs_f64(),
            descended_to,
        }))
    }
}

/// What a timed task or part costs the count: its own seconds, and its share of the rest.
fn cost(timed: &Timed) -> f64 {
    let own = timed.work.own_seconds.min(timed.seconds);
    own + (timed.seconds - own) * timed.work.share_of_rest
}

/// A list's strata, as the descents sample them.
struct Strata {
    model: CostModel,
    /// Tasks in each stratum.
    sizes: Vec<usize>,
}

impl Strata {
    fn of(tasks: usize) -> Strata {
        let model = CostModel::new(tasks, strata(tasks));
        let sizes = model.sizes();
        Strata { model, sizes }
    }

    /// The work of the list and each stratum's mean task cost, from the timed descents:
    /// each descent estimates its task's cost, each stratum's tasks cost its estimates'
    /// mean, and the interval is the stratified sample's (drawn with replacement). `None`
    /// before any descent is timed.
    fn estimate(&self, timed: &[Timed]) -> Option<(Prediction, Vec<f64>)> {
        if timed.is_empty() {
            return None;
        }
        let mut sums = vec![(0usize, 0.0f64, 0.0f64); self.sizes.len()];
        for t in timed {
            let cost = t.weight * cost(t);
            let entry = &mut sums[self.model.stratum_of(t.index)];
            entry.0 += 1;
            entry.1 += cost;
            entry.2 += cost * cost;
        }
        let all = timed.len() as f64;
        let mean_of_all = sums.iter().map(|s| s.1).sum::<f64>() / all;
        let squares_of_all = sums.iter().map(|s| s.2).sum::<f64>() / all;
        // A stratum with one descent borrows the whole sample's relative spread.
        let relative_spread = if mean_of_all > 0.0 {
            (squares_of_all / (mean_of_all * mean_of_all) - 1.0).max(0.0)
        } else {
            1.0
        };
        let (mut expected, mut variance) = (0.0, 0.0);
        let mut means = Vec::with_capacity(sums.len());
        for (&(count, sum, squares), &size) in sums.iter().zip(&self.sizes) {
            let mean = if count > 0 { sum / count as f64 } else { mean_of_all };
            let spread = if count > 1 {
                ((squares - count as f64 * mean * mean) / (count - 1) as f64).max(0.0)
            } else {
                relative_spread * mean * mean
            };
            let size = size as f64;
            expected += size * mean;
            variance += size * size * spread / count.max(1) as f64;
            means.push(mean);
        }
        let margin = INTERVAL_WIDTH * variance.sqrt();
        let work =
            Prediction { expected, low: (expected - margin).max(0.0), high: expected + margin };
        Some((work, means))
    }
}
