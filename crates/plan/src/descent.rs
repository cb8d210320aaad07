//! The sample below a list's tasks: each draw descends from a task of the list to a random
//! unit below it, and on to a random piece of the unit where units are too large for the
//! sample's time, and times it; the engine charges each stretch of the timing to the task
//! that does it once, and the draw weighs each charge by the inverse of the chance of
//! reaching that task (see the crate's documentation).

use std::time::{Duration, Instant};

use nqueens_core::{Charge, Problem, Task};
use nqueens_scheduler::{Finish, INTERVAL_WIDTH, Prediction, Progress, Runner, stratified_order};

use crate::estimate::Sample;
use crate::whole::WARM_UP_PER_THREAD;
use crate::{Options, PlanError, TaskList, Timed, Watch, mix, unit_interval, with_run_to_run};

/// The longest the descents may run.
pub(crate) const MOST_DESCENT_TIME: Duration = Duration::from_secs(90);

/// The most descents drawn: at N = 16 a unit takes microseconds, and this many estimate
/// the work within a few percent.
const MOST_DESCENTS: usize = 1 << 14;

/// The sampling error (95%, relative) at which the descents stop early.
const ENOUGH_PRECISION: f64 = 0.03;

/// The most strata: enough to follow how costs change along any list.
const MOST_STRATA: usize = 64;

/// How many descents each stratum gets at least before the sample may stop: its spread
/// needs two.
const LEAST_PER_STRATUM: usize = 4;

/// Draws per stratum in a block of the sample served in list order.
const DRAWS_PER_STRATUM_BLOCK: usize = 4;

/// Pieces timed per thread before the sample chooses between units and pieces.
const PILOT_PER_THREAD: usize = 4;

/// Strata of a list of `tasks` for descents: each stratum's spread needs two draws, and
/// draws are cheap, so strata hold as few as two tasks.
pub(crate) fn strata(tasks: usize) -> usize {
    (tasks / 2).clamp(1, MOST_STRATA)
}

/// A task reached by a descent, and how many like each of its ancestors there are: the
/// inverse of the chance of reaching each, by the length of its key (1 for the task the
/// descent started from and those above it).
#[derive(Clone, Debug)]
pub(crate) struct Path {
    pub(crate) task: Task,
    weights: Vec<f64>,
}

impl Path {
    /// The path that starts, and ends, at `task`.
    pub(crate) fn at(task: &Task) -> Path {
        Path { task: task.clone(), weights: vec![1.0; task.key().len() + 1] }
    }

    /// How many like it there are below the task the descent started from.
    pub(crate) fn weight(&self) -> f64 {
        self.weights.last().copied().unwrap_or(1.0)
    }

    /// What the timing of the path's task with these `charges` says the task the descent
    /// started from costs: each charge as many times as its owner has like it.
    pub(crate) fn cost(&self, charges: &[Charge]) -> f64 {
        let weight = |owner: usize| self.weights[owner.min(self.weights.len() - 1)];
        charges.iter().map(|c| c.seconds * c.alike * weight(c.owner)).sum()
    }

    /// Random steps down from the path's task as far as `finer` goes, each choosing among
    /// the finer tasks in proportion to `size`.
    pub(crate) fn descend(
        mut self,
        random: &mut u64,
        finer: impl Fn(&Task) -> Result<Vec<Task>, nqueens_core::Error>,
        size: impl Fn(&Task) -> Result<f64, nqueens_core::Error>,
    ) -> Result<Path, nqueens_core::Error> {
        loop {
            let tasks = finer(&self.task)?;
            let sizes = tasks.iter().map(&size).collect::<Result<Vec<f64>, _>>()?;
            let all: f64 = sizes.iter().sum();
            if tasks.is_empty() || all <= 0.0 {
                return Ok(self);
            }
            *random = mix(*random);
            let mut point = all * unit_interval(*random);
            let chosen = sizes.iter().position(|&size| {
                point -= size;
                point < 0.0
            });
            // Rounding may leave the point on the last task's far edge.
            let chosen =
                chosen.unwrap_or_else(|| sizes.iter().rposition(|&s| s > 0.0).unwrap_or(0));
            let weight = self.weight() * all / sizes[chosen];
            self.task = tasks[chosen].clone();
            self.weights.resize(self.task.key().len() + 1, weight);
        }
    }

    /// From a task of a list to a random unit below it: children are chosen in
    /// proportion to the units below them, so that every unit is about equally likely (a
    /// uniform choice reached the units of N = 28 with chances a thousand times apart,
    /// and a few draws then decided the estimate).
    pub(crate) fn to_unit(self, problem: &Problem, random: &mut u64) -> Result<Path, PlanError> {
        Ok(self.descend(random, |t| problem.children(t), |t| problem.units_below(t))?)
    }

    /// From a unit to a random piece of it, each as likely.
    pub(crate) fn to_piece(self, problem: &Problem, random: &mut u64) -> Result<Path, PlanError> {
        Ok(self.descend(random, |t| problem.pieces(t), |_| Ok(1.0))?)
    }
}

/// One draw: the task of the list it descends from, and the unit and the piece of it that
/// it reached.
struct Draw {
    index: usize,
    unit: Path,
    piece: Path,
}

/// `count` descents into `list` drawn by `seed`, one task of every stratum in turn.
fn draw(problem: &Problem, list: &[Task], count: usize, seed: u64) -> Result<Vec<Draw>, PlanError> {
    let indices: Vec<usize> = (0..list.len()).collect();
    let strata = strata(list.len());
    let mut draws = Vec::with_capacity(count);
    let mut round = 0;
    while draws.len() < count {
        for index in stratified_order(&indices, strata, mix(seed ^ round)) {
            if draws.len() == count {
                break;
            }
            let mut random = mix(seed ^ mix(draws.len() as u64));
            let unit = Path::at(&list[index]).to_unit(problem, &mut random)?;
            let piece = unit.clone().to_piece(problem, &mut random)?;
            draws.push(Draw { index, unit, piece });
        }
        round += 1;
    }
    // Each block is served in list order, so that the draws below one task follow each
    // other and share the tables the engine builds per split, as the count's tasks do.
    for block in draws.chunks_mut(DRAWS_PER_STRATUM_BLOCK * strata) {
        block.sort_by_key(|draw| draw.index);
    }
    Ok(draws)
}

/// What the runner returns for each timing: the draw, whether of its piece, the seconds
/// the timing took, and its cost.
type Timings = Vec<(usize, bool, f64, f64)>;

/// Times descents into `listed` until their estimate is precise enough or their time is
/// up; `None` if stopped. A pilot times pieces; if whole units would let the sample
/// reach [`LEAST_PER_STRATUM`] draws per stratum in its time, the rest times whole units,
/// whose cost is what a count pays, else it goes on with pieces.
pub(crate) fn sample(
    problem: &Problem,
    listed: TaskList,
    options: &Options,
    watch: &dyn Watch,
) -> Result<Option<Sample>, PlanError> {
    let TaskList { depth, tasks: list } = listed;
    let threads = options.threads;
    let warm_up = WARM_UP_PER_THREAD * threads;
    let all_draws = draw(problem, &list, MOST_DESCENTS + warm_up, options.seed)?;
    let (draws, warm_up_draws) = all_draws.split_at(MOST_DESCENTS);
    let has_pieces = draws.iter().any(|d| d.piece.task != d.unit.task);
    // Item 2k is draw k's unit, 2k + 1 its piece; the warm-ups' pieces come last.
    let mut items: Vec<(usize, bool, Path)> = Vec::with_capacity(2 * all_draws.len());
    for (at, d) in draws.iter().enumerate() {
        items.push((at, false, d.unit.clone()));
        items.push((at, true, d.piece.clone()));
    }
    let warm_up_items = items.len()..items.len() + warm_up_draws.len();
    for d in warm_up_draws {
        items.push((usize::MAX, true, d.piece.clone()));
    }
    let solver = problem.clone();
    let runner = Runner::new(
        items,
        move |(at, is_piece, path): &(usize, bool, Path)| {
            solver.prepare(&path.task)?;
            let started = Instant::now();
            let charges = solver.measure(&path.task)?;
            let seconds = started.elapsed().as_secs_f64();
            Ok::<_, nqueens_core::Error>(vec![(*at, *is_piece, seconds, path.cost(&charges))])
        },
        |a: &Timings, b: &Timings| Ok(a.iter().chain(b).copied().collect()),
        Vec::new(),
    )
    .threads(threads)
    .stop_flag(options.stop.clone());
    let of_kind = |results: &Timings, pieces: bool| -> Vec<(usize, f64, f64)> {
        (results.iter())
            .filter(|&&(at, is_piece, _, _)| at < draws.len() && is_piece == pieces)
            .map(|&(at, _, seconds, cost)| (draws[at].index, seconds, cost))
            .collect()
    };
    let strata = Strata::of(list.len());
    let least = LEAST_PER_STRATUM * strata.sizes.len();
    // Small batches, so that the time limit is kept however long a timing takes; the
    // draws are already in list order within blocks.
    let batch = 2 * threads;
    let pilot_size = (PILOT_PER_THREAD * threads).min(draws.len());
    let (mut warmed, mut next) = (false, 0);
    let mut pieces = match options.timed {
        Some(timed) => Some(timed == Timed::Pieces && has_pieces),
        None => (!has_pieces).then_some(false),
    };
    let mut kind = Timed::Pieces;
    let feed = |progress: &Progress<'_, Timings>| {
        if !warmed {
            warmed = true;
            return Ok(warm_up_items.clone().collect());
        }
        let session = progress.session;
        let pieces = match pieces {
            Some(pieces) => pieces,
            None => {
                let pilot: Vec<(usize, f64)> = (progress.partial.iter())
                    .filter(|&&(at, is_piece, _, _)| at < draws.len() && is_piece)
                    .map(|&(at, _, seconds, _)| (at, seconds))
                    .collect();
                // Pieces go on being handed out until enough of them are timed: an
                // empty batch would end the run.
                if pilot.len() < pilot_size && session < MOST_DESCENT_TIME && next < draws.len() {
                    let more: Vec<usize> =
                        (next..(next + batch).min(draws.len())).map(|at| 2 * at + 1).collect();
                    next += more.len();
                    return Ok(more);
                }
                // A unit takes at most the time of all its pieces: each builds its own
                // share of the unit's work and repeats some of the rest.
                let per_unit = (pilot.iter())
                    .map(|&(at, seconds)| {
                        seconds * draws[at].piece.weight() / draws[at].unit.weight()
                    })
                    .sum::<f64>()
                    / pilot.len().max(1) as f64;
                let units_take = per_unit * least as f64 / threads as f64;
                let chosen = pilot.is_empty() || units_take > MOST_DESCENT_TIME.as_secs_f64();
                if !chosen {
                    next = 0;
                }
                *pieces.insert(chosen)
            }
        };
        kind = if pieces { Timed::Pieces } else { Timed::Units };
        let timed = of_kind(progress.partial, pieces);
        let precision = (timed.len() >= least)
            .then(|| strata.estimate(&timed))
            .flatten()
            .filter(|(work, _)| work.expected > 0.0)
            .map_or(1.0, |(work, _)| (work.high - work.expected) / work.expected);
        let done = (session.as_secs_f64() / MOST_DESCENT_TIME.as_secs_f64())
            .max(ENOUGH_PRECISION / precision)
            .min(1.0);
        watch.sampling(kind, timed.len(), done, session);
        if precision <= ENOUGH_PRECISION || session >= MOST_DESCENT_TIME || next == draws.len() {
            return Ok(Vec::new());
        }
        let handed: Vec<usize> =
            (next..(next + batch).min(draws.len())).map(|at| 2 * at + usize::from(pieces)).collect();
        next += handed.len();
        Ok(handed)
    };
    let report = runner.run_fed(feed, |_| {})?;
    let pieces = kind == Timed::Pieces && has_pieces;
    let timed = of_kind(&report.result, pieces);
    let kind = if pieces { Timed::Pieces } else { Timed::Units };
    watch.sampled(kind, timed.len(), report.elapsed);
    if report.finish != Finish::Complete {
        return Ok(None);
    }
    let (work, means) = strata.estimate(&timed).ok_or(PlanError::NothingTimed)?;
    let seconds = report.elapsed.as_secs_f64();
    Ok(Some(Sample {
        costs: (0..list.len()).map(|index| means[strata.stratum_of(index)]).collect(),
        list,
        depth,
        timed: kind,
        work: with_run_to_run(work),
        count: timed.len(),
        timed_cost: seconds * threads as f64,
        seconds,
    }))
}

/// A list's strata, as the descents sample them.
struct Strata {
    /// Tasks in each stratum, consecutive and as even as can be.
    sizes: Vec<usize>,
    tasks: usize,
}

impl Strata {
    fn of(tasks: usize) -> Strata {
        let count = strata(tasks).min(tasks.max(1));
        let (q, r) = (tasks / count, tasks % count);
        Strata { sizes: (0..count).map(|s| q + usize::from(s < r)).collect(), tasks }
    }

    /// The stratum task `index` is in.
    fn stratum_of(&self, index: usize) -> usize {
        let count = self.sizes.len();
        let (q, r) = (self.tasks / count, self.tasks % count);
        if index < r * (q + 1) { index / (q + 1) } else { r + (index - r * (q + 1)) / q.max(1) }
    }

    /// The work of the list and each stratum's mean task cost, from the `timed` draws
    /// (list index, seconds, cost): each draw estimates its task's cost, each stratum's
    /// tasks cost its estimates' mean, and the interval is the stratified sample's (drawn
    /// with replacement). `None` before any draw is timed.
    fn estimate(&self, timed: &[(usize, f64, f64)]) -> Option<(Prediction, Vec<f64>)> {
        if timed.is_empty() {
            return None;
        }
        let mut sums = vec![(0usize, 0.0f64, 0.0f64); self.sizes.len()];
        for &(index, _, cost) in timed {
            let entry = &mut sums[self.stratum_of(index)];
            entry.0 += 1;
            entry.1 += cost;
            entry.2 += cost * cost;
        }
        let all = timed.len() as f64;
        let mean_of_all = sums.iter().map(|s| s.1).sum::<f64>() / all;
        let squares_of_all = sums.iter().map(|s| s.2).sum::<f64>() / all;
        // A stratum with one draw borrows the whole sample's relative spread.
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
