//! The sample below a list's tasks: each draw descends from a task of the list to a random
//! unit below it, and on to a random piece of the unit where units are too large for the
//! sample's time, and times it; the engine charges each stretch of the timing to the task
//! that does it once, and the draw weighs each charge by the inverse of the chance of
//! reaching that task (see the crate's documentation).

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use nqueens_core::{Charge, Problem, SolutionsOf, Task};
use nqueens_random::{SplitMix64, mix};
use nqueens_scheduler::{
    Finish, INTERVAL_WIDTH, Prediction, Progress, Runner, shared_mean_variance, stratified_order,
};

use crate::gate::Gate;
use crate::options::{Options, PlanError, TaskList, Timed, Watch};
use crate::sample::{
    NOT_CUT, PerSolution, RUN_TO_RUN, Sample, SampledTiming, unit_interval, with_noise,
};
use crate::slices::{Clock, Drawn};
use crate::whole::WARM_UP_PER_THREAD;

/// The longest the descents may run unless the options say otherwise, or the sample is
/// still short of [`PLAN_PRECISION`] for a long count ([`default_time`]).
const MOST_DESCENT_TIME: Duration = Duration::from_secs(90);

/// The sampling error (95%, relative) a sample of a long count goes on for past
/// [`MOST_DESCENT_TIME`]: in 90 s on 2 threads, N = 26 timed 12 to 20 pieces and N = 27
/// about 600, their errors were 25% to 40%, and five seeds' estimates spread by 2.19 and
/// 1.37 times. At 5%, five seeds would spread by about 6%.
const PLAN_PRECISION: f64 = 0.05;

/// The most of the count's predicted wall time a sample takes to reach
/// [`PLAN_PRECISION`]: a plan of a count of seconds needs no such precision, one of
/// years does.
const PLAN_SHARE: f64 = 0.001;

/// The longest a sample goes on for [`PLAN_PRECISION`] unless the options say otherwise.
/// The error falls as the square root of the draws, so on 2 threads N = 27 (25% in 90 s)
/// needs about 25 times the draws and N = 26 (40%) about 60 times; N = 28's pieces take 2
/// to 5 core-minutes each, and a machine with more threads gets further in the hour.
const LONGEST_DEFAULT_TIME: Duration = Duration::from_secs(3600);

/// The most descents drawn: at N = 16 a unit takes microseconds, and this many estimate
/// the work within a few percent.
const MOST_DESCENTS: usize = 1 << 14;

/// The sampling error (95%, relative) at which the descents stop early.
const ENOUGH_PRECISION: f64 = 0.01;

/// The sampling error at which the descents stop once they have taken
/// [`AFFORDABLE_SHARE`] of the work they predict: a count of seconds needs no plan
/// precise to 1%, and reaching it took longer than the count.
const AFFORDABLE_PRECISION: f64 = 0.03;

/// See [`AFFORDABLE_PRECISION`].
const AFFORDABLE_SHARE: f64 = 0.05;

/// What the descents' timings still miss of a count, as a relative standard deviation:
/// a task timed alone pays a little of what a count pays once (its walk's set-up, the
/// first touch of its lists), and two threads timing different tasks share the caches
/// otherwise than a count's neighbouring tasks do. Against the counts of N = 16 to 21 on
/// AMD EPYC (avx512, two seeds each) they predicted 0.95 to 1.15 times the wall time
/// (docs/measurements/estimator.md).
const RESIDUAL: f64 = 0.06;

/// The most strata: enough to follow how costs change along any list.
const MOST_STRATA: usize = 64;

/// How many descents each stratum gets at least before the sample may stop: its spread
/// needs two.
const LEAST_PER_STRATUM: usize = 4;

/// Pieces timed per thread before the sample chooses between units and pieces.
const PILOT_PER_THREAD: usize = 4;

/// The fewest timings per thread a sample ends with, past its time if need be: from
/// N = 28 a piece takes minutes, and `estimate 28` stopped at its 90 seconds having
/// timed nothing but its warm-up.
const LEAST_TIMED_PER_THREAD: usize = 4;

/// Strata of a list of `tasks` for descents: each stratum's spread needs two draws, and
/// draws are cheap, so strata hold as few as two tasks.
pub(crate) fn strata(tasks: usize) -> usize {
    (tasks / 2).clamp(1, MOST_STRATA)
}

/// What a descent walks: anything with a key, a finer one extending it by a byte.
pub(crate) trait Keyed: Clone {
    /// The length of its key.
    fn key_len(&self) -> usize;
}

impl Keyed for Task {
    fn key_len(&self) -> usize {
        self.key().len()
    }
}

/// A task reached by a descent, and how many like each of its ancestors there are: the
/// inverse of the chance of reaching each, by the length of its key (1 for the task the
/// descent started from and those above it).
#[derive(Clone, Debug)]
pub(crate) struct Path<T = Task> {
    pub(crate) task: T,
    weights: Vec<f64>,
    /// The tasks the descent passed through, from where it started.
    passed: Vec<T>,
}

impl<T: Keyed> Path<T> {
    /// The path that starts, and ends, at `task`.
    pub(crate) fn at(task: &T) -> Path<T> {
        let passed = vec![task.clone()];
        Path { task: task.clone(), weights: vec![1.0; task.key_len() + 1], passed }
    }

    /// How many like it there are below the task the descent started from.
    pub(crate) fn weight(&self) -> f64 {
        self.weights.last().copied().unwrap_or(1.0)
    }

    /// What the timing of the path's task with these `charges` says the task the descent
    /// started from costs: each charge as many times as its owner has like it.
    pub(crate) fn cost(&self, charges: &[Charge]) -> f64 {
        // An owner is the measured task or one of its ancestors; the engine may name
        // owners below a task cut short above them, which is their owner in its stead.
        let weight = |owner: usize| self.weights[owner.min(self.weights.len() - 1)];
        charges.iter().map(|c| c.seconds * weight(c.owner)).sum()
    }

    /// Random steps down from the path's task as far as `finer` goes, each choosing among
    /// the finer tasks in proportion to `size`.
    pub(crate) fn descend<E>(
        mut self,
        random: &mut u64,
        finer: impl Fn(&T) -> Result<Vec<T>, E>,
        size: impl Fn(&T) -> Result<f64, E>,
    ) -> Result<Path<T>, E> {
        while self.step(random, &finer, &size)? {}
        Ok(self)
    }

    /// One random step down, if `finer` offers any: whether it was taken.
    fn step<E>(
        &mut self,
        random: &mut u64,
        finer: impl Fn(&T) -> Result<Vec<T>, E>,
        size: impl Fn(&T) -> Result<f64, E>,
    ) -> Result<bool, E> {
        // The word moves on only for a step taken, as it always has, so that what a seed
        // draws after a descent (a check's pieces below its unit) stays what it was.
        let place = || {
            *random = mix(*random);
            unit_interval(*random)
        };
        self.step_at(place, finer, size)
    }

    /// One step down, if `finer` offers any, to the finer task at `place()` (in [0, 1)) of
    /// their sizes laid end to end: whether it was taken.
    fn step_at<E>(
        &mut self,
        place: impl FnOnce() -> f64,
        finer: impl Fn(&T) -> Result<Vec<T>, E>,
        size: impl Fn(&T) -> Result<f64, E>,
    ) -> Result<bool, E> {
        let tasks = finer(&self.task)?;
        let sizes = tasks.iter().map(&size).collect::<Result<Vec<f64>, _>>()?;
        let all: f64 = sizes.iter().sum();
        if tasks.is_empty() || all <= 0.0 {
            return Ok(false);
        }
        let mut point = all * place();
        let chosen = sizes.iter().position(|&size| {
            point -= size;
            point < 0.0
        });
        // Rounding may leave the point on the last task's far edge.
        let chosen = chosen.unwrap_or_else(|| sizes.iter().rposition(|&s| s > 0.0).unwrap_or(0));
        let weight = self.weight() * all / sizes[chosen];
        self.enter(tasks[chosen].clone(), weight);
        Ok(true)
    }

    /// One step down to `task`, of which there are `weight` like it below where the
    /// descent started.
    fn enter(&mut self, task: T, weight: f64) {
        self.task = task;
        self.weights.resize(self.task.key_len() + 1, weight);
        self.passed.push(self.task.clone());
    }

    /// `count` of the paths one step down to `tasks`, the task's finer ones, none twice,
    /// each as likely (all of them where `count` reaches their number), and how many they
    /// are. A task's pieces each cost what they cost, so one drawn again adds nothing;
    /// they differ (the first slice of an N = 27 row set did twice the pairs of the
    /// others), so the more of them, the better the prediction, and all of them leave no
    /// sampling error.
    pub(crate) fn distinct_steps(
        &self,
        tasks: Vec<T>,
        count: usize,
        random: &mut u64,
    ) -> (Vec<Path<T>>, usize) {
        let mut order: Vec<usize> = (0..tasks.len()).collect();
        let mut stream = SplitMix64::new(*random);
        stream.shuffle(&mut order);
        *random = stream.next_u64();
        order.truncate(count);
        let weight = self.weight() * tasks.len() as f64;
        let step = |at: usize| {
            let mut path = self.clone();
            path.enter(tasks[at].clone(), weight);
            path
        };
        (order.into_iter().map(step).collect(), tasks.len())
    }

    /// The path cut short at the task it passed through whose key is `len` bytes long,
    /// which is then timed whole, its units with it; the path as it is where it ends
    /// above that. The cut depends on the path's length alone, not on what its timing
    /// shows, so the estimate stays unbiased.
    pub(crate) fn cut_at(&self, len: usize) -> Path<T> {
        if len >= self.task.key_len() {
            return self.clone();
        }
        let at = self.passed.iter().rposition(|task| task.key_len() <= len);
        match at {
            Some(at) if self.passed[at].key_len() < self.task.key_len() => {
                let task = self.passed[at].clone();
                let weights = self.weights[..=task.key_len()].to_vec();
                Path { task, weights, passed: self.passed[..=at].to_vec() }
            }
            _ => self.clone(),
        }
    }
}

impl Path<Task> {
    /// From a task of a list to a random unit below it: children are chosen in
    /// proportion to the units below them, so that every unit is about equally likely (a
    /// uniform choice reached the units of N = 28 with chances a thousand times apart,
    /// and a few draws then decided the estimate).
    pub(crate) fn down_to_unit(
        self,
        problem: &Problem,
        random: &mut u64,
    ) -> Result<Path, PlanError> {
        Ok(self.descend(random, |t| problem.children(t), |t| problem.units_below(t))?)
    }

    /// From a task to a random task `levels` splits deeper (or a unit above), chosen as
    /// [`Path::down_to_unit`] chooses.
    pub(crate) fn down_levels(
        mut self,
        problem: &Problem,
        levels: usize,
        random: &mut u64,
    ) -> Result<Path, PlanError> {
        for _ in 0..levels {
            if !self.step(random, |t| problem.children(t), |t| problem.units_below(t))? {
                break;
            }
        }
        Ok(self)
    }

    /// From a unit to a random piece of it, each as likely.
    pub(crate) fn down_to_piece(
        self,
        problem: &Problem,
        random: &mut u64,
    ) -> Result<Path, PlanError> {
        Ok(self.descend(random, |t| problem.pieces(t), |_| Ok(1.0))?)
    }

    /// From a unit to its piece at `place` (in [0, 1)) of its pieces in their order, and
    /// on to a random piece of that where pieces have pieces.
    fn down_to_piece_at(
        mut self,
        problem: &Problem,
        place: f64,
        random: &mut u64,
    ) -> Result<Path, PlanError> {
        if self.step_at(|| place, |t| problem.pieces(t), |_| Ok(1.0))? {
            return self.down_to_piece(problem, random);
        }
        Ok(self)
    }

    /// From a unit to `count(offered)` of its `offered` pieces, none twice
    /// ([`Path::distinct_steps`]), or to all of them where that is half of them or more,
    /// and from each on to a random piece of it where pieces have pieces; with how many
    /// pieces the unit has where the draws end at them, so that a prediction from their
    /// mean may take the finite population's correction (none where a draw went further:
    /// its error is then two stages'). A unit without pieces is its own.
    pub(crate) fn down_to_pieces(
        self,
        problem: &Problem,
        count: impl FnOnce(usize) -> usize,
        random: &mut u64,
    ) -> Result<(Vec<Path>, Option<usize>), PlanError> {
        // A unit's pieces are uneven: at N = 26 in the default budget its first slices
        // carry its later fills' meetings whole, 10 to 25 times what each other slice
        // predicts, and 15 of 16 drawn left out the first and predicted the unit at 2.9 s
        // for 4.5 s counted, with no error left to show it. Taking all where half or
        // more are asked costs at most twice what was asked.
        let offered = problem.pieces(&self.task)?;
        let count = count(offered.len());
        let count = if count.saturating_mul(2) >= offered.len() { offered.len() } else { count };
        let (steps, pieces) = self.distinct_steps(offered, count.max(1), random);
        if pieces == 0 {
            return Ok((vec![self], Some(1)));
        }
        let paths = (steps.into_iter())
            .map(|path| path.down_to_piece(problem, random))
            .collect::<Result<Vec<Path>, PlanError>>()?;
        let ended = paths.iter().all(|path| path.passed.len() == self.passed.len() + 1);
        Ok((paths, ended.then_some(pieces)))
    }
}

/// The most bytes a sample's draws hold at once on a board of `n` rows timed by `threads`
/// threads, which a memory limit must hold beside the count's threads: every draw's two
/// paths, each a task, and a weight and a task passed at each level of a key of at most
/// `n + 1` bytes, every allocation with the allocator's overhead, and the draws before
/// their pieces were chosen. At N = 28 the draws held about 80 MiB
/// (docs/measurements/memory.md).
pub fn draws_bytes(n: usize, threads: usize) -> u64 {
    const ALLOCATION_OVERHEAD: usize = 16;
    let levels = n + 2;
    let key = (n + 1 + ALLOCATION_OVERHEAD).next_multiple_of(16);
    let path = levels * (size_of::<f64>() + size_of::<Task>() + key) + key;
    let draw = size_of::<Draw>() + size_of::<DrawnUnit>() + 2 * (path + 2 * ALLOCATION_OVERHEAD);
    ((MOST_DESCENTS + WARM_UP_PER_THREAD * threads) * draw) as u64
}

/// One draw: the task of the list it descends from, and the unit and the piece of it that
/// it reached.
struct Draw {
    index: usize,
    unit: Path,
    piece: Path,
}

/// A draw before its piece is chosen, with the random word its descent goes on with.
struct DrawnUnit {
    index: usize,
    unit: Path,
    random: u64,
}

/// `count` descents into `list` drawn by `seed`, one task of every stratum in turn, each
/// to a unit.
fn draw(
    problem: &Problem,
    list: &[Task],
    count: usize,
    seed: u64,
) -> Result<Vec<DrawnUnit>, PlanError> {
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
            let unit = Path::at(&list[index]).down_to_unit(problem, &mut random)?;
            draws.push(DrawnUnit { index, unit, random });
        }
        round += 1;
    }
    Ok(draws)
}

/// The place in its unit (in [0, 1), of its pieces in their order) of the piece of each
/// of `count` draws in the order they are timed: every round of `round` draws from the
/// first takes one place in each `round`-th of the range, in random order, so that every
/// place has its share of the draws from the first to any, to within one. Each draw's
/// piece is still any of its unit's as likely, whatever its unit, so the estimate stays
/// unbiased. A unit's pieces differ by their place (a row set of the join too large for
/// its memory deals its later fills' meetings whole to its first slices, at N = 26 10 to
/// 25 times the others' cost), and random places caught the dear ones in any share of the
/// draws (what that did to N = 28's seeds: docs/design-notes.md, "The sample").
fn piece_places(count: usize, round: usize, seed: u64) -> Vec<f64> {
    // A stream of its own, so that the units drawn stay those of the seed.
    let mut random = SplitMix64::new(mix(seed ^ 0x91ace5));
    let round = round.max(1);
    let mut places = Vec::with_capacity(count + round);
    while places.len() < count {
        let mut order: Vec<usize> = (0..round).collect();
        random.shuffle(&mut order);
        for place in order {
            let place = (place as f64 + unit_interval(random.next_u64())) / round as f64;
            // Rounding may reach the range's end.
            places.push(place.min(1.0 - f64::EPSILON));
        }
    }
    places.truncate(count);
    places
}

/// The drawn `units` each on to its piece at its place of [`piece_places`], in rounds as
/// long as the first unit with pieces has. The `warm_ups` at the end are timed first, and
/// join a sample of long pieces, so they take the first places and the sample's draws
/// the places after them.
fn to_pieces(
    problem: &Problem,
    units: Vec<DrawnUnit>,
    warm_ups: usize,
    seed: u64,
) -> Result<Vec<Draw>, PlanError> {
    let mut round = 1;
    for drawn in &units {
        round = problem.pieces(&drawn.unit.task)?.len();
        if round > 0 {
            break;
        }
    }
    let mut places = piece_places(units.len(), round, seed);
    let warm_ups = warm_ups.min(places.len());
    places.rotate_left(warm_ups);
    (units.into_iter().zip(places))
        .map(|(drawn, place)| {
            let DrawnUnit { index, unit, mut random } = drawn;
            let piece = unit.clone().down_to_piece_at(problem, place, &mut random)?;
            Ok(Draw { index, unit, piece })
        })
        .collect()
}

/// Puts `draws` in the list's order, by the `stratum` of each: in runs of 1, 2, 4, ...
/// times as many draws as there are `strata`, forwards and backwards in turn, each
/// stratum's draws in the order they came. Draws timed one after another then share what
/// the engine builds for many neighbouring tasks ([`Problem::prepare`]), which the sample
/// builds while no timing runs ([`Gate`]): drawn in random order, N = 21's sample built
/// one of the join's 11 splits' tail tables (0.1 to 0.25 s each) before nearly every
/// timing. Each stratum's draws stay a random choice of its tasks wherever the sample
/// stops, and the stratified estimate takes each stratum's mean over its own draws.
fn in_list_order<T>(draws: &mut [T], strata: usize, stratum: impl Fn(&T) -> usize) {
    let (mut start, mut run, mut forwards) = (0, strata.max(1), true);
    while start < draws.len() {
        let end = (start + run).min(draws.len());
        let drawn = &mut draws[start..end];
        if forwards {
            drawn.sort_by_key(|d| stratum(d));
        } else {
            drawn.sort_by_key(|d| std::cmp::Reverse(stratum(d)));
        }
        (start, run, forwards) = (end, 2 * run, !forwards);
    }
}

/// What the runner returns for a timing.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Timing {
    /// The draw; the warm-ups' draws follow the sample's.
    pub(crate) draw: usize,
    /// Whether it timed the draw's piece, else its unit's path cut at `cut`.
    pub(crate) piece: bool,
    pub(crate) cut: usize,
    /// The length of the timed task's key, and how many like it its list task holds.
    key_len: usize,
    weight: f64,
    seconds: f64,
    /// When it ended, on the sample's clock.
    ended_s: f64,
    cost: f64,
    /// The solutions the draw says its list task holds: the timed task's, weighed as a
    /// charge it owns is.
    solutions: f64,
}

/// What a timed draw says of the list task it was drawn from.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Weighed {
    /// The task's index in the list.
    index: usize,
    /// How long the timing took.
    seconds: f64,
    /// The task's cost and its solutions, as the draw estimates them.
    cost: f64,
    solutions: f64,
}

/// The least time a timing should take. A unit timed alone pays what a count pays once
/// for many (setting up its walk, the first touch of its lists, cold caches): at N = 17,
/// where a unit takes microseconds, units predicted 1.45 times the count. So the sample
/// climbs: while the timings of its current level take less than this on average, it cuts
/// its paths short one or more levels higher ([`Path::cut_at`]) and times those tasks
/// whole.
const LEAST_TIMING: f64 = 0.02;

/// A timing this long loses what a thread's first timings pay more than later ones (the
/// first mapping of memory, cold caches: milliseconds) in its own time; from N = 26 every
/// piece maps its lists afresh anyway. So a sample of such pieces keeps its warm-up's: at
/// N = 28 on 2 threads the warm-up's 4 pieces took 14 minutes.
const LONG_TIMING: f64 = 1.0;

/// How many times the sample's time whole units would take (by the pilot's pieces) for
/// the pilot's timings to join a sample of pieces: units would take hundreds of times
/// the sample's time at N = 26 and 28, whose pilots timed 8 pieces each, a third of what
/// N = 26 timed in 2 minutes on 2 threads, and dropped them.
const CLEAR_CHOICE: f64 = 4.0;

/// Where the sample stands.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Stage {
    /// Timing a few pieces, or units where there are none, to choose between them.
    Pilot,
    /// Timing a few of the paths cut at this key length, to see if they take long enough.
    Climbing(usize),
    /// The sample proper: pieces, or units' paths cut at `cut`, of the draws from `from`
    /// on (those whose timings chose the cut are left out, so that the cut does not hang
    /// on the timings it is judged by).
    Sampling { pieces: bool, cut: usize, from: usize },
}

/// Whether a sample that may time pieces does, where whole units would take `units_take`
/// seconds to reach the least draws, by the pilot's timings (none: `pilot_empty`); and
/// whether the choice is clear enough for the pilot's timings to join the sample: a pilot
/// of pieces several times cheaper would not have changed it. Judged on the sample's time
/// but at most the default's, not a longer one asked for: at N = 26 with 22 minutes, units
/// fitted for the seed whose pilot's pieces came out cheaper, which then timed 136 units
/// (an interval of 49%) where the other seeds timed about 1,300 pieces and agreed within 4%.
fn times_pieces(units_take: f64, sample_time: Duration, pilot_empty: bool) -> (bool, bool) {
    let choice_time = sample_time.min(MOST_DESCENT_TIME).as_secs_f64();
    (pilot_empty || units_take > choice_time, units_take > CLEAR_CHOICE * choice_time)
}

/// Times descents into `listed` until their estimate is precise enough or their time is
/// up; `None` if stopped, or paused at the end of a slice where the options take the
/// sample in slices (it goes on from the timings it keeps there). A pilot times pieces of
/// units, or units where they have none; if whole units would let the sample reach
/// [`LEAST_PER_STRATUM`] draws per stratum in its time (at most [`MOST_DESCENT_TIME`],
/// however long the sample may run), the sample times units (climbing above them while
/// they are small), whose cost is what a count pays, else it goes on with pieces.
pub(crate) fn sample(
    problem: &Problem,
    listed: TaskList,
    options: &Options,
    watch: &dyn Watch,
) -> Result<Option<Sample>, PlanError> {
    let TaskList { depth, tasks: list } = listed;
    let threads = options.threads;
    // The time of the pilot and the climb; the sample proper may go on longer by default.
    let pilot_time = options.sample_time.unwrap_or(MOST_DESCENT_TIME);
    let warm_up = WARM_UP_PER_THREAD * threads;
    let mut units = draw(problem, &list, MOST_DESCENTS + warm_up, options.seed)?;
    let strata = Strata::of(list.len());
    let pilot_size = (PILOT_PER_THREAD * threads).min(MOST_DESCENTS);
    // The pilot's draws and a round of every stratum after them stay in random order: a
    // sample of pieces starts after the pilot (or with it), and one stopped within its
    // first round (at N = 28, a few timings of minutes each) covers the list evenly. A
    // climb of units that passes them judges its later levels on draws from one part of
    // the list, which decides the level, not the estimate (those timings are left out).
    let in_random_order = (pilot_size + strata.sizes.len()).min(MOST_DESCENTS);
    in_list_order(&mut units[in_random_order..MOST_DESCENTS], strata.sizes.len(), |d| {
        strata.stratum_of(d.index)
    });
    let all_draws = to_pieces(problem, units, warm_up, options.seed)?;
    let draws = &all_draws[..MOST_DESCENTS];
    let has_pieces = draws.iter().any(|d| d.piece.task != d.unit.task);
    let list_len = list.iter().map(|task| task.key().len()).min().unwrap_or(0);
    let unit_len = draws.iter().map(|d| d.unit.task.key().len()).max().unwrap_or(0);
    let drawn = draws.len();
    // What the sample reads of each draw once its paths go to the timings: its list task,
    // and how many pieces of its unit its piece stands for. The paths are moved, not
    // copied: 16,384 draws' paths, each passing a task per level, held about 70 MiB of
    // N = 26's heap, and twice that copied (docs/measurements/memory.md).
    let of_draws: Vec<(usize, f64)> =
        all_draws.iter().map(|d| (d.index, d.piece.weight() / d.unit.weight())).collect();
    // Whatever a draw times, unit, piece or a task above them, its key begins the piece's.
    let piece_keys: Vec<Box<[u8]>> = all_draws.iter().map(|d| d.piece.task.key().into()).collect();
    // Item 2k is draw k's unit, 2k + 1 its piece; the warm-ups' pieces, drawn last, come
    // last.
    let mut items: Vec<(usize, bool, Path)> = Vec::with_capacity(2 * all_draws.len());
    for (at, d) in all_draws.into_iter().enumerate() {
        if at < drawn {
            items.push((at, false, d.unit));
        }
        items.push((at, true, d.piece));
    }
    let warm_up_items = 2 * drawn..items.len();
    let cut = Arc::new(AtomicUsize::new(NOT_CUT));
    let (solver, gate) = (problem.for_sample(threads), Gate::default());
    let cut_now = Arc::clone(&cut);
    let slices = options.slices.clone();
    let found_before = match &slices {
        Some(slices) => {
            let drawn = Drawn { seed: options.seed, threads, tasks: list.len(), depth };
            slices.so_far.lock().unwrap_or_else(PoisonError::into_inner).go_on(drawn)?
        }
        None => Default::default(),
    };
    let clock = Arc::new(Clock::start(found_before.is_empty()));
    // A slice's time runs from its first timing afresh: finding the earlier slices'
    // timings again costs it none of it (a sample of thousands finds them in a feed each).
    let first_afresh = Arc::new(OnceLock::new());
    let (clock_now, afresh) = (Arc::clone(&clock), Arc::clone(&first_afresh));
    let runner = Runner::new(
        items,
        move |(draw, piece, path): &(usize, bool, Path)| {
            let cut = if *piece { NOT_CUT } else { cut_now.load(Ordering::Relaxed) };
            if let Some(found) = found_before.get(&(*draw, *piece, cut)) {
                clock_now.found_again(found.ended_s);
                return Ok(vec![*found]);
            }
            let path = path.cut_at(cut);
            afresh.get_or_init(Instant::now);
            clock_now.run();
            let (measured, seconds) = gate.measure(&solver, &path.task)?;
            let ended_s = clock_now.now();
            let cost = path.cost(&measured.charges);
            let weight = path.weight();
            let solutions = measured.solutions as f64 * weight;
            let key_len = path.task.key().len();
            let timing = Timing {
                draw: *draw,
                piece: *piece,
                cut,
                key_len,
                weight,
                seconds,
                ended_s,
                cost,
                solutions,
            };
            if let Some(slices) = &slices {
                slices.so_far.lock().unwrap_or_else(PoisonError::into_inner).add(timing);
            }
            Ok::<_, nqueens_core::Error>(vec![timing])
        },
        |a: &Vec<Timing>, b: &Vec<Timing>| Ok(a.iter().chain(b).copied().collect()),
        Vec::new(),
    )
    .threads(threads)
    .stop_flag(options.stop.clone());
    // The timings of pieces, or of units' paths cut at `cut`, of the draws from `from` on:
    // what each draw says of its list task.
    let timed_as = |results: &[Timing], pieces: bool, cut: usize, from: usize| {
        (sampled_timings(results, drawn, pieces, cut, from).into_iter())
            .map(|t| Weighed {
                index: of_draws[t.draw].0,
                seconds: t.seconds,
                cost: t.cost,
                solutions: t.solutions,
            })
            .collect::<Vec<Weighed>>()
    };
    let known = problem.known_solutions();
    let least = LEAST_PER_STRATUM * strata.sizes.len();
    // Small batches, so that the time limit is kept however long a timing takes.
    let batch = 2 * threads;
    let (mut warmed, mut next) = (false, 0);
    let mut stage = match options.timed {
        Some(Timed::Pieces) if has_pieces => {
            Stage::Sampling { pieces: true, cut: NOT_CUT, from: 0 }
        }
        _ => Stage::Pilot,
    };
    // The highest level of the climb whose timings are in, where the sample settles if
    // its time runs out before the climb ends.
    let mut climbed = NOT_CUT;
    // When the sample proper began, on the sample's clock.
    let mut sampling_since = None;
    let paused = AtomicBool::new(false);
    let slice_over = || {
        let length = options.slices.as_ref().map(|slices| slices.length);
        length.zip(first_afresh.get()).is_some_and(|(length, first)| first.elapsed() >= length)
    };
    let feed = |progress: &Progress<'_, Vec<Timing>>| {
        if !warmed {
            warmed = true;
            return Ok(warm_up_items.clone().collect());
        }
        let session = clock.session();
        let pilot_time_left = session < pilot_time && next < drawn;
        let hand = |pieces: bool, next: &mut usize| {
            if slice_over() {
                paused.store(true, Ordering::Relaxed);
                return Vec::new();
            }
            let handed: Vec<usize> = (*next..(*next + batch).min(drawn))
                .map(|at| 2 * at + usize::from(pieces))
                .collect();
            *next += handed.len();
            handed
        };
        if stage == Stage::Pilot {
            let pilot = timed_as(progress.partial, has_pieces, NOT_CUT, 0);
            // The pilot goes on until enough of it is timed: an empty batch would end
            // the run.
            if pilot.len() < pilot_size && pilot_time_left {
                return Ok(hand(has_pieces, &mut next));
            }
            // A unit takes at most the time of all its pieces: each builds its own share
            // of the unit's work and repeats some of the rest.
            let per_unit = (progress.partial.iter())
                .filter(|t| t.draw < drawn && t.piece == has_pieces)
                .map(|t| t.seconds * if has_pieces { of_draws[t.draw].1 } else { 1.0 })
                .sum::<f64>()
                / pilot.len().max(1) as f64;
            let units_take = per_unit * least as f64 / threads as f64;
            let (pieces, clear) = if has_pieces && options.timed != Some(Timed::Units) {
                times_pieces(units_take, pilot_time, pilot.is_empty())
            } else {
                (false, false)
            };
            stage = match (pieces, has_pieces) {
                (true, _) => Stage::Sampling {
                    pieces: true,
                    cut: NOT_CUT,
                    from: if clear { 0 } else { next },
                },
                (false, true) => Stage::Climbing(NOT_CUT),
                // The pilot timed units: it is the first level of the climb.
                (false, false) => {
                    climbed = NOT_CUT;
                    climb(NOT_CUT, per_unit, unit_len, list_len, next)
                }
            };
        }
        while let Stage::Climbing(len) = stage {
            cut.store(len, Ordering::Relaxed);
            let level = timed_as(progress.partial, false, len, 0);
            if level.len() < pilot_size && pilot_time_left {
                return Ok(hand(false, &mut next));
            }
            if level.is_empty() {
                // Time ran out before this level's first timing: the one below serves.
                stage = Stage::Sampling { pieces: false, cut: climbed, from: 0 };
                break;
            }
            climbed = len;
            let mean = level.iter().map(|t| t.seconds).sum::<f64>() / level.len() as f64;
            stage = if pilot_time_left {
                climb(len, mean, unit_len, list_len, next)
            } else {
                Stage::Sampling { pieces: false, cut: len, from: 0 }
            };
        }
        let Stage::Sampling { pieces, cut: len, from } = stage else {
            unreachable!("the pilot and the climb end in the sample");
        };
        cut.store(len, Ordering::Relaxed);
        let timed = timed_as(progress.partial, pieces, len, from);
        let work = (strata.estimate(&timed, known).map(|found| found.work))
            .filter(|work| work.expected > 0.0);
        let (precision, share) = work.filter(|_| timed.len() >= least).map_or((1.0, 0.0), |work| {
            let spent = session.as_secs_f64() * threads as f64;
            ((work.high - work.expected) / work.expected, spent / work.expected)
        });
        let count_wall = work.map_or(0.0, |work| work.expected / threads as f64);
        let most_time = options.sample_time.unwrap_or_else(|| default_time(precision, count_wall));
        // By default the sample proper has time of its own: where choosing what to time
        // took the sample's time, it goes on until it has its least draws or has had that
        // time again. N = 23's pilot and climb took all of 90 s on 2 threads (its odd board
        // builds a split's tail tables for most of the random draws that choose), and five
        // seeds' samples of 13 tasks each then spread 1.8 times.
        let since = *sampling_since.get_or_insert(session);
        let own_time_left = options.sample_time.is_none()
            && session - since < MOST_DESCENT_TIME
            && timed.len() < least;
        let lacking = own_time_left && session >= most_time;
        let time_left = (session < most_time || own_time_left) && next < drawn;
        let affordable = precision <= AFFORDABLE_PRECISION && share >= AFFORDABLE_SHARE;
        let fewest = LEAST_TIMED_PER_THREAD * threads;
        let short = timed.len() < fewest && next < drawn;
        let done = (session.as_secs_f64() / most_time.as_secs_f64())
            .max(ENOUGH_PRECISION / precision)
            .max(if precision <= AFFORDABLE_PRECISION { share / AFFORDABLE_SHARE } else { 0.0 })
            .min(if short { timed.len() as f64 / fewest as f64 } else { 1.0 })
            .min(if lacking { timed.len() as f64 / least as f64 } else { 1.0 });
        watch.sampling(kind_of(pieces, len), timed.len(), done, session);
        if (precision <= ENOUGH_PRECISION || affordable || !time_left) && !short {
            return Ok(Vec::new());
        }
        Ok(hand(pieces, &mut next))
    };
    let report = runner.run_fed(feed, |_| {})?;
    if paused.load(Ordering::Relaxed) {
        return Ok(None);
    }
    let elapsed = clock.session();
    let (pieces, len, from) = match stage {
        Stage::Sampling { pieces, cut, from } => (pieces, cut, from),
        Stage::Climbing(len) => (false, len, 0),
        Stage::Pilot => (has_pieces, NOT_CUT, 0),
    };
    let timed = timed_as(&report.result, pieces, len, from);
    let mut timings: Vec<SampledTiming> =
        (sampled_timings(&report.result, drawn, pieces, len, from))
            .into_iter()
            .map(|t| {
                let list_task = of_draws[t.draw].0;
                SampledTiming {
                    list_task,
                    stratum: strata.stratum_of(list_task),
                    key: piece_keys[t.draw][..t.key_len].to_vec(),
                    weight: t.weight,
                    seconds: t.seconds,
                    ended_s: t.ended_s,
                    cost: t.cost,
                    solutions: t.solutions,
                }
            })
            .collect();
    timings.sort_by(|a, b| a.ended_s.total_cmp(&b.ended_s));
    let kind = kind_of(pieces, len);
    watch.sampled(kind, timed.len(), elapsed);
    if report.finish != Finish::Complete {
        return Ok(None);
    }
    let found = strata.estimate(&timed, known).ok_or(PlanError::NothingTimed)?;
    let seconds = elapsed.as_secs_f64();
    let noise = RUN_TO_RUN.hypot(RESIDUAL);
    Ok(Some(Sample {
        costs: (0..list.len()).map(|index| found.means[strata.stratum_of(index)]).collect(),
        list,
        depth,
        timed: kind,
        cut: len,
        work: with_noise(found.work, noise),
        by_time_alone: with_noise(found.by_time_alone, noise),
        per_solution: found.per_solution,
        count: timed.len(),
        timed_cost: seconds * threads as f64,
        seconds,
        timings,
    }))
}

/// How long a sample whose time the options leave open may run, its timings so far
/// having predicted a count of `count_wall` seconds on its threads at `precision`:
/// [`MOST_DESCENT_TIME`], or while it is short of [`PLAN_PRECISION`], [`PLAN_SHARE`] of
/// the count, up to [`LONGEST_DEFAULT_TIME`].
fn default_time(precision: f64, count_wall: f64) -> Duration {
    if precision <= PLAN_PRECISION {
        return MOST_DESCENT_TIME;
    }
    let share = Duration::try_from_secs_f64(PLAN_SHARE * count_wall).unwrap_or(Duration::MAX);
    share.clamp(MOST_DESCENT_TIME, LONGEST_DEFAULT_TIME)
}

/// What a sample of pieces, or of units' paths cut at `cut`, timed.
fn kind_of(pieces: bool, cut: usize) -> Timed {
    match (pieces, cut) {
        (true, _) => Timed::Pieces,
        (false, NOT_CUT) => Timed::Units,
        (false, _) => Timed::Finer,
    }
}

/// The timings of a sample of pieces, or of units' paths cut at `cut`, of the draws from
/// `from` to `draws` (the warm-ups' draws follow them). Where the sample's own timings
/// average [`LONG_TIMING`] or more, the warm-ups' pieces join them: whether they do hangs
/// on the other timings, not on their own, so the sample stays unbiased.
fn sampled_timings(
    results: &[Timing],
    draws: usize,
    pieces: bool,
    cut: usize,
    from: usize,
) -> Vec<&Timing> {
    let of_kind = |t: &&Timing| t.piece == pieces && (pieces || t.cut == cut);
    let mut timed: Vec<&Timing> =
        results.iter().filter(of_kind).filter(|t| (from..draws).contains(&t.draw)).collect();
    let mean = timed.iter().map(|t| t.seconds).sum::<f64>() / timed.len().max(1) as f64;
    if pieces && mean >= LONG_TIMING {
        timed.extend(results.iter().filter(of_kind).filter(|t| t.draw >= draws));
    }
    timed
}

/// The next stage after timings of paths cut at `len` (or units, [`NOT_CUT`]) that took
/// `mean` seconds on average, the sample going on from draw `next`: the sample at that
/// cut if they take [`LEAST_TIMING`] or more, or the cut is at the list's tasks already;
/// else a climb one level higher. Levels near the list hold many times the units of the
/// one below, so a climb of as many levels as the timings fell short by doublings
/// overshot: N = 20 then timed tasks of 80 ms, and its sample took 47 s.
fn climb(len: usize, mean: f64, unit_len: usize, list_len: usize, next: usize) -> Stage {
    let at = if len == NOT_CUT { unit_len } else { len };
    if mean >= LEAST_TIMING || at <= list_len {
        Stage::Sampling { pieces: false, cut: len, from: next }
    } else {
        Stage::Climbing(at - 1)
    }
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

    /// The work of the list and each stratum's mean task cost, from the `timed` draws:
    /// each draw estimates its task's cost and solutions, each stratum's tasks cost its
    /// draws' mean, and the interval is the stratified sample's (drawn with replacement).
    /// Where the list's solutions are `known`, the work is the sample's cost per solution
    /// times them (a ratio estimate), and the means are scaled to it. `None` before any
    /// draw is timed.
    ///
    /// A draw's cost and its solutions carry the same weight, the inverse of the chance of
    /// drawing it, and a task's time follows its solutions (the pair count's tests, most
    /// of the time, are some 120 a solution at N = 22): the ratio leaves out of the error
    /// what the weights and the tasks' sizes spread, and keeps what their cost per
    /// solution does. The checks of the plans table said so first: there, counted row
    /// sets' times minus their solutions at the mean cost per solution varied 2.5 to 12
    /// times less than their times (variances; docs/design-notes.md).
    fn estimate(&self, timed: &[Weighed], known: Option<SolutionsOf>) -> Option<Stratified> {
        if timed.is_empty() {
            return None;
        }
        let cost = |w: &Weighed| w.cost;
        let by_time = self.stratify(timed, cost, cost);
        let by_time_alone = around(by_time.expected, by_time.variance.sqrt());
        let per_solution = known.and_then(|known| {
            let solutions = self.stratify(timed, |w| w.solutions, cost).expected;
            (solutions > 0.0).then_some((known, solutions, by_time.expected / solutions))
        });
        let Some((known, solutions, per_solution)) = per_solution else {
            let means = by_time.means;
            return Some(Stratified {
                work: by_time_alone,
                means,
                by_time_alone,
                per_solution: None,
            });
        };
        let residuals = self.stratify(timed, |w| w.cost - per_solution * w.solutions, cost);
        let scale = known.total / solutions;
        let expected = per_solution * known.total;
        let deviation = (scale * residuals.variance.sqrt()).hypot(expected * known.relative_error);
        let work = around(expected, deviation);
        let means = by_time.means.iter().map(|mean| mean * scale).collect();
        let per_solution = Some(PerSolution { seconds: per_solution, solutions: known });
        Some(Stratified { work, means, by_time_alone, per_solution })
    }

    /// The stratified estimate of the list's sum of `value`: each stratum's mean times its
    /// size, and the variance of that sum. Strata of one draw each, whose own spread is
    /// unknown, are taken together in pairs along the list ([`collapsed_spreads`]); where
    /// only one is left, it borrows the whole sample's spread relative to `scale`'s mean
    /// (the cost, whose means differ from one stratum to the next far more than their
    /// relative spreads do). Strata without a
    /// draw take the mean of all draws: one estimate for all of them, which varies with
    /// the draws that the drawn strata are counted by too, not as if each undrawn stratum
    /// had a draw of its own (that had put N = 28's plan from 12 pieces over 64 strata at
    /// ±17%). With every stratum undrawn but those of one draw each, the variance is about
    /// a simple random sample's.
    fn stratify(
        &self,
        timed: &[Weighed],
        value: impl Fn(&Weighed) -> f64,
        scale: impl Fn(&Weighed) -> f64,
    ) -> Stratum {
        let mut sums = vec![(0usize, 0.0f64, 0.0f64, 0.0f64); self.sizes.len()];
        for w in timed {
            let entry = &mut sums[self.stratum_of(w.index)];
            let v = value(w);
            entry.0 += 1;
            entry.1 += v;
            entry.2 += v * v;
            entry.3 += scale(w);
        }
        let all = timed.len().max(1) as f64;
        let mean_of_all = sums.iter().map(|s| s.1).sum::<f64>() / all;
        let squares_of_all = sums.iter().map(|s| s.2).sum::<f64>() / all;
        let scale_of_all = sums.iter().map(|s| s.3).sum::<f64>() / all;
        let spread_around_mean = (squares_of_all - mean_of_all * mean_of_all).max(0.0);
        let relative_spread = if scale_of_all > 0.0 {
            spread_around_mean / (scale_of_all * scale_of_all)
        } else {
            1.0
        };
        let spread_of_all =
            if timed.len() > 1 { spread_around_mean * all / (all - 1.0) } else { 0.0 };
        let collapsed = collapsed_spreads(&sums, &self.sizes);
        let (mut expected, mut variance, mut undrawn, mut drawn_spread) = (0.0, 0.0, 0.0, 0.0);
        let mut means = Vec::with_capacity(sums.len());
        for ((&(count, sum, squares, scales), &size), paired) in
            sums.iter().zip(&self.sizes).zip(collapsed)
        {
            let size = size as f64;
            if count == 0 {
                undrawn += size;
                expected += size * mean_of_all;
                means.push(mean_of_all);
                continue;
            }
            let mean = sum / count as f64;
            let spread = if count > 1 {
                ((squares - count as f64 * mean * mean) / (count - 1) as f64).max(0.0)
            } else {
                paired.unwrap_or(relative_spread * scales * scales)
            };
            expected += size * mean;
            variance += size * size * spread / count as f64;
            drawn_spread += size * spread;
            means.push(mean);
        }
        variance += shared_mean_variance(undrawn, spread_of_all, drawn_spread, all);
        Stratum { expected, variance, means }
    }
}

/// The spread of each stratum of one draw (its `sums`: draws, sum, squares, scale), taken
/// with the next such stratum along the list, a last odd one with the pair before it:
/// each group's strata estimate their sums by their one draw, the group's variance is
/// that of those sums about their shares of the group's (by size), and each stratum gets
/// the spread that accounts for its share of it. This counts as spread only what
/// neighbouring strata differ by, where the whole sample's spread holds what the list's
/// far ends do too: with costs growing fourfold along the list, 84 draws over 64 strata
/// (N = 28's sample) had an interval 1.7 times as wide as the estimates' spread
/// (docs/measurements/estimator.md). `None` for strata of other counts, and for all where
/// fewer than two have one draw.
fn collapsed_spreads(sums: &[(usize, f64, f64, f64)], sizes: &[usize]) -> Vec<Option<f64>> {
    let singles: Vec<usize> = (0..sums.len()).filter(|&s| sums[s].0 == 1).collect();
    let mut spreads = vec![None; sums.len()];
    if singles.len() < 2 {
        return spreads;
    }
    let groups = singles.len() / 2;
    let size = |s: usize| sizes[s] as f64;
    for group in 0..groups {
        let end = if group + 1 == groups { singles.len() } else { 2 * group + 2 };
        let members = &singles[2 * group..end];
        let group_size: f64 = members.iter().map(|&s| size(s)).sum();
        let group_sum: f64 = members.iter().map(|&s| size(s) * sums[s].1).sum();
        let k = members.len() as f64;
        let deviations: f64 = (members.iter())
            .map(|&s| (size(s) * sums[s].1 - size(s) / group_size * group_sum).powi(2))
            .sum();
        let variance = k / (k - 1.0) * deviations;
        let squared_sizes: f64 = members.iter().map(|&s| size(s) * size(s)).sum();
        for &s in members {
            spreads[s] = Some(variance / squared_sizes);
        }
    }
    spreads
}

/// What a sample's draws say of the list ([`Strata::estimate`]).
struct Stratified {
    /// The list's work, in thread-seconds, and each stratum's mean task cost.
    work: Prediction,
    means: Vec<f64>,
    /// The work by the timings alone, which is `work` where the solutions are not known.
    by_time_alone: Prediction,
    /// The sample's cost per solution, where the solutions are known.
    per_solution: Option<PerSolution>,
}

/// A stratified sum and its variance, with each stratum's mean.
struct Stratum {
    expected: f64,
    variance: f64,
    means: Vec<f64>,
}

/// The interval of a sum estimated as `expected` with a standard deviation `deviation`.
fn around(expected: f64, deviation: f64) -> Prediction {
    let margin = INTERVAL_WIDTH * deviation;
    Prediction { expected, low: (expected - margin).max(0.0), high: expected + margin }
}

#[cfg(test)]
mod tests {
    use std::convert::Infallible;

    use nqueens_core::Method;

    use super::*;

    /// A toy count: a tree of keys four bytes deep whose branching and costs follow from
    /// the keys, so that it is as uneven as a count's. Each node does work once for all
    /// the units below it; a unit timed alone does its ancestors' work again and charges
    /// each stretch to its owner. A unit's own work splits into pieces unevenly.
    #[derive(Clone, Debug, PartialEq)]
    struct Key(Vec<u8>);

    impl Keyed for Key {
        fn key_len(&self) -> usize {
            self.0.len()
        }
    }

    const DEPTH: usize = 4;

    /// The join's slices of a row set.
    const PLACES: usize = 16;

    fn hash(key: &[u8]) -> u64 {
        key.iter().fold(0x5eed, |h, &b| mix(h ^ u64::from(b)))
    }

    fn children(key: &Key) -> Result<Vec<Key>, Infallible> {
        let ways = if key.0.len() >= DEPTH { 0 } else { 1 + hash(&key.0) % 4 };
        Ok((0..ways as u8).map(|b| Key([key.0.clone(), vec![b]].concat())).collect())
    }

    fn units_below(key: &Key) -> Result<f64, Infallible> {
        let children = children(key)?;
        if children.is_empty() {
            return Ok(1.0);
        }
        children.iter().map(units_below).sum()
    }

    /// The work a node does once: the units' own work, at the bottom, far outweighs it.
    fn work(key: &[u8]) -> f64 {
        let scale = if key.len() == DEPTH { 100.0 } else { 1.0 };
        scale * (1 + hash(key) % 7) as f64
    }

    /// A unit's pieces: its own work, past a fifth that every piece repeats, split in
    /// `1 + hash % 3` uneven shares.
    fn pieces(key: &Key) -> Result<Vec<Key>, Infallible> {
        let ways = if key.0.len() == DEPTH { 1 + hash(&key.0) % 3 } else { 0 };
        Ok((0..ways as u8).map(|b| Key([key.0.clone(), vec![b]].concat())).collect())
    }

    /// What timing a unit, or a piece of one, charges: its ancestors' work at their key
    /// lengths, and its own (for a piece, the fifth every piece repeats, which is the
    /// unit's, and its share of the rest).
    fn charges(key: &Key) -> Vec<Charge> {
        let unit = key.0.len().min(DEPTH);
        let mut charges: Vec<Charge> =
            (0..unit).map(|len| Charge { seconds: work(&key.0[..len]), owner: len }).collect();
        let own = work(&key.0[..unit]);
        if key.0.len() > DEPTH {
            let ways = pieces(&Key(key.0[..DEPTH].to_vec())).unwrap().len() as f64;
            let share = f64::from(key.0[DEPTH] + 1) / (ways * (ways + 1.0) / 2.0);
            charges.push(Charge { seconds: own / 5.0, owner: unit });
            charges.push(Charge { seconds: own * 0.8 * share, owner: key.0.len() });
        } else {
            charges.push(Charge { seconds: own, owner: unit });
        }
        charges
    }

    /// Every node's work, once: what a count of the whole tree does.
    fn exact(key: &Key) -> f64 {
        work(&key.0) + children(key).unwrap().iter().map(exact).sum::<f64>()
    }

    /// Every path below `path`, as far as `finer` goes, with its chance.
    fn every_path<T: Keyed + Clone>(
        path: Path<T>,
        chance: f64,
        finer: &dyn Fn(&T) -> Vec<T>,
        size: &dyn Fn(&T) -> f64,
        into: &mut Vec<(Path<T>, f64)>,
    ) {
        let tasks = finer(&path.task);
        if tasks.is_empty() {
            into.push((path, chance));
            return;
        }
        let all: f64 = tasks.iter().map(size).sum();
        for task in tasks {
            let mut next = path.clone();
            let share = size(&task) / all;
            let weight = next.weight() / share;
            next.enter(task, weight);
            every_path(next, chance * share, finer, size, into);
        }
    }

    #[test]
    fn draws_in_list_order_come_in_growing_runs_each_strata_draws_as_they_came() {
        let strata = 5;
        let stratum = |d: &usize| (d * 7 + 3) % strata;
        let mut order: Vec<usize> = (0..40).collect();
        in_list_order(&mut order, strata, stratum);
        for (run, drawn) in [0..5, 5..15, 15..35, 35..40].into_iter().enumerate() {
            let handed = &order[drawn.clone()];
            let mut same = handed.to_vec();
            same.sort_unstable();
            assert_eq!(same, drawn.collect::<Vec<_>>(), "run {run} holds its own draws");
            let seen: Vec<usize> = handed.iter().map(stratum).collect();
            let forwards = run % 2 == 0;
            assert!(
                seen.windows(2).all(|w| if forwards { w[0] <= w[1] } else { w[0] >= w[1] }),
                "run {run}: {seen:?}"
            );
            for s in 0..strata {
                let of: Vec<usize> = handed.iter().copied().filter(|d| stratum(d) == s).collect();
                assert!(of.windows(2).all(|w| w[0] < w[1]), "run {run}, stratum {s}: {of:?}");
            }
        }
    }

    #[test]
    fn a_descent_to_units_is_an_unbiased_estimate_of_the_whole_tree() {
        let root = Key(Vec::new());
        let mut paths = Vec::new();
        let finer = |k: &Key| children(k).unwrap();
        let size = |k: &Key| units_below(k).unwrap();
        every_path(Path::at(&root), 1.0, &finer, &size, &mut paths);
        let expected: f64 =
            paths.iter().map(|(path, chance)| chance * path.cost(&charges(&path.task))).sum();
        let exact = exact(&root);
        assert!((expected / exact - 1.0).abs() < 1e-12, "{expected} against {exact}");
        // Uniform choices are unbiased too, but weigh the units of thin branches more.
        let mut uniform = Vec::new();
        every_path(Path::at(&root), 1.0, &finer, &|_| 1.0, &mut uniform);
        let expected: f64 =
            uniform.iter().map(|(path, chance)| chance * path.cost(&charges(&path.task))).sum();
        assert!((expected / exact - 1.0).abs() < 1e-12, "{expected} against {exact}");
    }

    /// Paths cut short at one key length time the tasks there whole: each charges its
    /// own work and its units' (their charges, as a walk of the task would clock them),
    /// and the estimate is still the tree's work.
    #[test]
    fn paths_cut_short_are_an_unbiased_estimate_of_the_whole_tree() {
        let root = Key(Vec::new());
        let finer = |k: &Key| children(k).unwrap();
        let size = |k: &Key| units_below(k).unwrap();
        let mut paths = Vec::new();
        every_path(Path::at(&root), 1.0, &finer, &size, &mut paths);
        // A task timed whole: its ancestors' work, then all of its subtree's as its own.
        let whole = |key: &Key| {
            let len = key.0.len();
            let mut charges: Vec<Charge> =
                (0..len).map(|at| Charge { seconds: work(&key.0[..at]), owner: at }).collect();
            charges.push(Charge { seconds: exact(key), owner: len });
            charges
        };
        for len in 0..=DEPTH {
            let expected: f64 = (paths.iter())
                .map(|(path, chance)| {
                    let cut = path.cut_at(len);
                    assert_eq!(cut.task.0.len(), len);
                    chance * cut.cost(&whole(&cut.task))
                })
                .sum();
            let exact = exact(&root);
            assert!(
                (expected / exact - 1.0).abs() < 1e-12,
                "cut at {len}: {expected} against {exact}"
            );
        }
    }

    #[test]
    fn a_descent_to_pieces_is_an_unbiased_estimate_of_the_whole_tree() {
        let root = Key(Vec::new());
        let finer = |k: &Key| {
            let children = children(k).unwrap();
            if children.is_empty() { pieces(k).unwrap() } else { children }
        };
        let size = |k: &Key| if k.0.len() >= DEPTH { 1.0 } else { units_below(k).unwrap() };
        let mut paths = Vec::new();
        every_path(Path::at(&root), 1.0, &finer, &size, &mut paths);
        assert!(paths.iter().any(|(path, _)| path.task.0.len() > DEPTH));
        let expected: f64 =
            paths.iter().map(|(path, chance)| chance * path.cost(&charges(&path.task))).sum();
        let exact = exact(&root);
        assert!((expected / exact - 1.0).abs() < 1e-12, "{expected} against {exact}");
    }

    #[test]
    fn every_round_of_draws_takes_each_place_of_the_pieces_once() {
        let places = piece_places(5 * PLACES + 3, PLACES, 7);
        assert_eq!(places.len(), 5 * PLACES + 3);
        assert!(places.iter().all(|place| (0.0..1.0).contains(place)));
        for round in places.chunks(PLACES) {
            let mut taken: Vec<usize> =
                round.iter().map(|place| (place * PLACES as f64) as usize).collect();
            taken.sort_unstable();
            taken.dedup();
            assert_eq!(taken.len(), round.len(), "{round:?}");
        }
        assert_ne!(places, piece_places(5 * PLACES + 3, PLACES, 8), "the seed draws the order");
    }

    /// The join's draws in the order they are timed, the warm-ups first: every round of
    /// a row set's 16 slices takes each slice once.
    #[test]
    fn the_joins_draws_take_each_slice_once_a_round_from_the_warm_ups_on() {
        let problem = Problem::new(13, Method::Join).unwrap();
        let list = problem.tasks(2).unwrap();
        let (drawn, warm_ups) = (3 * PLACES + 5, 4);
        let units = draw(&problem, &list, drawn + warm_ups, 9).unwrap();
        let draws = to_pieces(&problem, units, warm_ups, 9).unwrap();
        let (sample, warm) = draws.split_at(drawn);
        let timed: Vec<&Draw> = warm.iter().chain(sample).collect();
        for round in timed.chunks(PLACES) {
            let mut slices: Vec<u8> = (round.iter())
                .map(|d| {
                    let (unit, piece) = (d.unit.task.key(), d.piece.task.key());
                    assert_eq!((piece.len(), &piece[..unit.len()]), (unit.len() + 1, unit));
                    piece[unit.len()]
                })
                .collect();
            slices.sort_unstable();
            slices.dedup();
            assert_eq!(slices.len(), round.len());
        }
    }

    /// A unit whose first piece holds most of its cost, as a join row set's first slices
    /// hold its later fills' meetings: a round of draws at their places predicts it
    /// exactly, where as many at random places catch the heavy piece in any share.
    #[test]
    fn a_round_of_places_predicts_a_unit_of_uneven_pieces_exactly() {
        let unit = Key(vec![0; DEPTH]);
        let slices = |k: &Key| -> Result<Vec<Key>, Infallible> {
            let pieces = if k.0.len() == DEPTH { PLACES as u8 } else { 0 };
            Ok((0..pieces).map(|b| Key([k.0.clone(), vec![b]].concat())).collect())
        };
        let cost = |k: &Key| if k.0[DEPTH] == 0 { 100.0 } else { 1.0 };
        let whole = 100.0 + (PLACES - 1) as f64;
        let predict = |pieces: Vec<Path<Key>>| {
            pieces.iter().map(|path| path.weight() * cost(&path.task)).sum::<f64>()
                / pieces.len() as f64
        };
        for seed in 0..20 {
            let at_places = (piece_places(PLACES, PLACES, seed).into_iter())
                .map(|place| {
                    let mut path = Path::at(&unit);
                    assert!(path.step_at(|| place, slices, |_| Ok(1.0)).unwrap());
                    path
                })
                .collect();
            assert_eq!(predict(at_places), whole, "seed {seed}");
        }
        let at_random: Vec<f64> = (0..20)
            .map(|seed| {
                let mut random = seed;
                predict(
                    (0..PLACES)
                        .map(|_| Path::at(&unit).descend(&mut random, slices, |_| Ok(1.0)).unwrap())
                        .collect(),
                )
            })
            .collect();
        assert!(at_random.iter().any(|&predicted| predicted != whole), "{at_random:?}");
    }

    /// A unit's pieces drawn none twice: as many as asked, or all of them where half or
    /// more are asked, each standing for as many as the unit has; a piece, which has
    /// none, is its own.
    #[test]
    fn a_units_pieces_are_drawn_none_twice() {
        let problem = Problem::new(13, Method::Join).unwrap();
        let units = problem.tasks(problem.max_depth()).unwrap();
        let unit = &units[units.len() / 2];
        let all = problem.pieces(unit).unwrap();
        assert!(all.len() > 4, "{unit:?}");
        let half = all.len().div_ceil(2);
        let asked_and_drawn =
            [(2, 2), (half - 1, half - 1), (half, all.len()), (usize::MAX, all.len())];
        for (seed, (asked, drawn)) in asked_and_drawn.into_iter().enumerate() {
            let mut random = seed as u64;
            let expected = (drawn, Some(all.len()));
            let (drawn, of) =
                Path::at(unit).down_to_pieces(&problem, |_| asked, &mut random).unwrap();
            assert_eq!((drawn.len(), of), expected, "{asked}");
            let mut keys: Vec<&[u8]> = drawn.iter().map(|path| path.task.key()).collect();
            keys.sort_unstable();
            keys.dedup();
            assert_eq!(keys.len(), drawn.len(), "a piece drawn twice of {asked}");
            assert!(drawn.iter().all(|path| all.contains(&path.task)));
            assert!(drawn.iter().all(|path| path.weight() == all.len() as f64));
        }
        let piece = &all[0];
        let (alone, of) = Path::at(piece).down_to_pieces(&problem, |_| 4, &mut 5).unwrap();
        assert_eq!((alone.len(), of, &alone[0].task), (1, Some(1), piece));
    }

    /// Every piece of a unit, none twice, predicts the unit exactly: their uneven shares
    /// of its own work, each weighed by how many pieces it has, add up to it, and the
    /// work every piece repeats is charged once. Fewer of them hit every piece in turn.
    #[test]
    fn all_of_a_units_pieces_predict_it_exactly() {
        let mut units = Vec::new();
        let finer = |key: &Key| children(key).unwrap();
        every_path(Path::at(&Key(Vec::new())), 1.0, &finer, &|_| 1.0, &mut units);
        let mut random = 11;
        for (unit, _) in units.iter().filter(|(unit, _)| pieces(&unit.task).unwrap().len() > 1) {
            let whole = unit.cost(&charges(&unit.task));
            let (all, of) =
                unit.distinct_steps(pieces(&unit.task).unwrap(), usize::MAX, &mut random);
            assert_eq!(all.len(), of);
            let mean = all.iter().map(|p| p.cost(&charges(&p.task))).sum::<f64>() / of as f64;
            assert!((mean / whole - 1.0).abs() < 1e-12, "{unit:?}: {mean} against {whole}");
            let mut seen = vec![0; of];
            for _ in 0..40 * of {
                let (one, _) = unit.distinct_steps(pieces(&unit.task).unwrap(), 1, &mut random);
                seen[usize::from(*one[0].task.0.last().unwrap())] += 1;
            }
            assert!(seen.iter().all(|&times| times > 0), "{unit:?}: {seen:?}");
        }
    }

    /// Random descents, as the sample draws them, converge on the tree's work.
    #[test]
    fn random_descents_converge_on_the_work() {
        let root = Key(Vec::new());
        let exact = exact(&root);
        let mut random = 7;
        let draws = 20_000;
        let mut sum = 0.0;
        for _ in 0..draws {
            let unit = Path::at(&root).descend(&mut random, children, units_below).unwrap();
            let piece = unit.descend(&mut random, pieces, |_| Ok::<_, Infallible>(1.0)).unwrap();
            sum += piece.cost(&charges(&piece.task));
        }
        let mean = sum / f64::from(draws);
        assert!((mean / exact - 1.0).abs() < 0.03, "{mean} against {exact}");
    }

    #[test]
    fn strata_cover_the_list_and_find_each_task() {
        for tasks in [1, 2, 3, 127, 128, 129, 1000] {
            let strata = Strata::of(tasks);
            assert_eq!(strata.sizes.iter().sum::<usize>(), tasks);
            let mut at = 0;
            for (stratum, &size) in strata.sizes.iter().enumerate() {
                for index in at..at + size {
                    assert_eq!(strata.stratum_of(index), stratum, "{tasks} tasks, {index}");
                }
                at += size;
            }
        }
    }

    /// The warm-ups' pieces join a sample of pieces whose own timings are long, and only
    /// then; timings of draws before `from`, or of the other kind, never do.
    #[test]
    fn warm_ups_join_only_a_sample_of_long_pieces() {
        let timing = |draw, piece, seconds| Timing {
            draw,
            piece,
            cut: NOT_CUT,
            key_len: 0,
            weight: 1.0,
            seconds,
            ended_s: seconds,
            cost: seconds,
            solutions: 1.0,
        };
        let draws_of = |timed: Vec<&Timing>| timed.iter().map(|t| t.draw).collect::<Vec<_>>();
        let draws = 10;
        let long = [
            timing(0, true, 5.0),
            timing(3, true, 2.0),
            timing(4, false, 9.0),
            timing(10, true, 7.0),
        ];
        assert_eq!(draws_of(sampled_timings(&long, draws, true, NOT_CUT, 0)), [0, 3, 10]);
        assert_eq!(draws_of(sampled_timings(&long, draws, true, NOT_CUT, 1)), [3, 10]);
        assert_eq!(draws_of(sampled_timings(&long, draws, false, NOT_CUT, 0)), [4]);
        let short = [timing(0, true, 0.5), timing(3, true, 0.9), timing(10, true, 7.0)];
        assert_eq!(draws_of(sampled_timings(&short, draws, true, NOT_CUT, 0)), [0, 3]);
        assert!(sampled_timings(&long, draws, true, NOT_CUT, 5).is_empty());
    }

    /// A sample left to its default time stops at 90 s once precise enough, and short of
    /// it goes on for a thousandth of the count it predicts, from 90 s to an hour.
    #[test]
    fn a_default_sample_goes_on_for_a_long_count_until_precise() {
        let long_count = 1e7;
        assert_eq!(default_time(PLAN_PRECISION, long_count), MOST_DESCENT_TIME);
        assert_eq!(default_time(0.01, long_count), MOST_DESCENT_TIME);
        let short_of_it = 2.0 * PLAN_PRECISION;
        assert_eq!(default_time(short_of_it, 1000.0), MOST_DESCENT_TIME);
        assert_eq!(default_time(short_of_it, 1e6), Duration::from_secs(1000));
        assert_eq!(default_time(short_of_it, long_count), LONGEST_DEFAULT_TIME);
        assert_eq!(default_time(short_of_it, f64::INFINITY), LONGEST_DEFAULT_TIME);
        assert_eq!(default_time(1.0, 0.0), MOST_DESCENT_TIME);
    }

    /// Pieces where units would not reach their draws in the default sample's time, be
    /// the sample shorter or longer; units where they would.
    #[test]
    fn a_longer_sample_times_the_kind_of_the_default_one() {
        let (default, long, short) =
            (MOST_DESCENT_TIME, Duration::from_secs(22 * 60), Duration::from_secs(30));
        assert_eq!(times_pieces(600.0, default, false), (true, true));
        assert_eq!(times_pieces(600.0, long, false), (true, true), "not units in 22 minutes");
        assert_eq!(times_pieces(200.0, long, false), (true, false));
        assert_eq!(times_pieces(60.0, long, false), (false, false));
        assert_eq!(times_pieces(60.0, short, false), (true, false), "a shorter sample");
        assert_eq!(times_pieces(60.0, long, true), (true, false), "no pilot timed");
    }

    /// A sample out of time before its first timing goes on until it has timed a few
    /// per thread, rather than predicting nothing.
    #[test]
    fn a_sample_out_of_time_still_times_a_few_per_thread() {
        let problem = Problem::new(14, nqueens_core::Method::Join).unwrap();
        let list = TaskList::of(&problem, 2).unwrap();
        for timed in [None, Some(Timed::Pieces)] {
            let options =
                Options { timed, sample_time: Some(Duration::ZERO), ..Options::new(2, 1) };
            let found = sample(&problem, list.clone(), &options, &crate::options::Unwatched);
            let found = found.unwrap().expect("not stopped");
            assert!(found.count >= LEAST_TIMED_PER_THREAD * 2, "{timed:?}: {}", found.count);
            assert!(found.work.expected > 0.0, "{timed:?}");
        }
    }

    /// The timings a sample hands out are those its estimate weighs: each from a task of
    /// the list whose key begins its own, in that task's stratum, in the order they ended,
    /// and their stratified sum is the estimate's work by the timings alone.
    #[test]
    fn a_samples_timings_are_the_ones_its_estimate_weighs() {
        let problem = Problem::new(14, nqueens_core::Method::Join).unwrap();
        let list = TaskList::of(&problem, 2).unwrap();
        for timed in [Timed::Pieces, Timed::Units] {
            let options = Options {
                timed: Some(timed),
                sample_time: Some(Duration::from_secs(1)),
                ..Options::new(2, 1)
            };
            let found = sample(&problem, list.clone(), &options, &crate::options::Unwatched);
            let found = found.unwrap().expect("not stopped");
            let timings = found.timings();
            assert_eq!(timings.len(), found.count, "{timed:?}");
            let strata = Strata::of(found.list.len());
            for t in timings {
                let list_key = found.list[t.list_task].key();
                assert!(t.key.starts_with(list_key), "{timed:?}: {t:?}");
                if found.timed == Timed::Pieces {
                    assert!(t.key.len() > list_key.len(), "{timed:?}: {t:?}");
                }
                assert_eq!(t.stratum, strata.stratum_of(t.list_task), "{timed:?}: {t:?}");
                assert!(t.weight >= 1.0 && t.cost > 0.0 && t.ended_s >= t.seconds, "{t:?}");
            }
            assert!(timings.windows(2).all(|pair| pair[0].ended_s <= pair[1].ended_s));
            let weighed: Vec<Weighed> = (timings.iter())
                .map(|t| Weighed {
                    index: t.list_task,
                    seconds: t.seconds,
                    cost: t.cost,
                    solutions: t.solutions,
                })
                .collect();
            let again = strata.estimate(&weighed, None).unwrap().by_time_alone.expected;
            let expected = found.by_time_alone.expected;
            assert!((again / expected - 1.0).abs() < 1e-9, "{timed:?}: {again} for {expected}");
        }
    }

    /// A sample taken in slices too short to time more than a batch each pauses and goes
    /// on until it is done, timing nothing twice: every timing its estimate weighs is one
    /// a slice kept, found again by the slices after it rather than timed again.
    #[test]
    fn a_sample_in_slices_goes_on_from_what_it_timed() {
        use std::collections::BTreeSet;
        use std::sync::Mutex;

        use crate::slices::{Slices, SoFar};

        let problem = Problem::new(13, nqueens_core::Method::Join).unwrap();
        let list = TaskList::of(&problem, 2).unwrap();
        for timed in [Timed::Pieces, Timed::Units] {
            let so_far = Arc::new(Mutex::new(SoFar::default()));
            let length = Duration::from_millis(20);
            let options = Options {
                timed: Some(timed),
                sample_time: Some(Duration::from_millis(200)),
                slices: Some(Slices { so_far: Arc::clone(&so_far), length }),
                ..Options::new(2, 1)
            };
            let (mut paused, mut kept) = (0, 0);
            let found = loop {
                let slice = sample(&problem, list.clone(), &options, &crate::options::Unwatched);
                if let Some(found) = slice.unwrap() {
                    break found;
                }
                let now = so_far.lock().unwrap().len();
                assert!(now > kept, "{timed:?}: slice {paused} timed nothing");
                (paused, kept) = (paused + 1, now);
                assert!(paused < 10_000, "{timed:?}: never done");
            };
            assert!(paused > 1, "{timed:?}: paused {paused} times");
            let so_far = so_far.lock().unwrap().clone();
            let timings = serde_json::to_value(&so_far).unwrap()["timings"].clone();
            let timings: Vec<Timing> = serde_json::from_value(timings).unwrap();
            let which: BTreeSet<(usize, bool, usize)> =
                timings.iter().map(|t| (t.draw, t.piece, t.cut)).collect();
            assert_eq!(which.len(), timings.len(), "{timed:?}: a timing taken twice");
            for weighed in found.timings() {
                let kept = timings.iter().any(|t| {
                    (t.seconds, t.ended_s, t.cost)
                        == (weighed.seconds, weighed.ended_s, weighed.cost)
                });
                assert!(kept, "{timed:?}: {weighed:?} is no slice's");
            }
            assert!(found.work.expected > 0.0, "{timed:?}");
            let last = timings.iter().map(|t| t.ended_s).fold(0.0, f64::max);
            assert!(found.seconds >= last, "{timed:?}: {} before {last}", found.seconds);
        }
    }

    /// Timings kept by one sample are not another's to go on from: its draws differ.
    #[test]
    fn a_sample_goes_on_only_from_its_own_timings() {
        use std::sync::Mutex;

        use crate::slices::{Slices, SoFar};

        let problem = Problem::new(12, nqueens_core::Method::Join).unwrap();
        let list = TaskList::of(&problem, 2).unwrap();
        let so_far = Arc::new(Mutex::new(SoFar::default()));
        let slices = Slices { so_far: Arc::clone(&so_far), length: Duration::ZERO };
        let first = Options {
            sample_time: Some(Duration::from_millis(50)),
            slices: Some(slices),
            ..Options::new(1, 1)
        };
        let _ = sample(&problem, list.clone(), &first, &crate::options::Unwatched).unwrap();
        assert!(!so_far.lock().unwrap().is_empty());
        let other = Options { seed: 2, ..first };
        match sample(&problem, list, &other, &crate::options::Unwatched) {
            Err(PlanError::OtherSample(drawn)) => assert!(drawn.contains("seed 1"), "{drawn}"),
            wrong => panic!("{wrong:?}"),
        }
    }

    /// A draw of list task `index` that estimates its cost and solutions.
    fn weighed(index: usize, cost: f64, solutions: f64) -> Weighed {
        Weighed { index, seconds: 0.0, cost, solutions }
    }

    /// The stratified estimate is the sum of the strata's sizes times their means, and
    /// its interval narrows as draws agree.
    #[test]
    fn the_stratified_estimate_weighs_each_stratum_by_its_size() {
        let strata = Strata::of(8);
        assert_eq!(strata.sizes, vec![2; 4]);
        let agreeing: Vec<Weighed> =
            (0..8).map(|index| weighed(index, 1.0 + (index / 2) as f64, 1.0)).collect();
        let found = strata.estimate(&agreeing, None).unwrap();
        assert_eq!(found.means, vec![1.0, 2.0, 3.0, 4.0]);
        assert!((found.work.expected - 20.0).abs() < 1e-12);
        assert!(found.work.high - found.work.low < 1e-9, "{:?}", found.work);
        assert_eq!((found.by_time_alone, found.per_solution), (found.work, None));
        let straying: Vec<Weighed> = (0..8)
            .map(|index| weighed(index, if index % 2 == 0 { 1.0 } else { 3.0 }, 1.0))
            .collect();
        let found = strata.estimate(&straying, None).unwrap();
        assert!((found.work.expected - 16.0).abs() < 1e-12);
        assert!(found.work.low < 16.0 && found.work.high > 16.0);
    }

    /// Draws whose costs stray tenfold but whose cost per solution is the same give that
    /// cost times the solutions known, to the last bit, where their time alone gives a
    /// wide interval; an extrapolated total widens the interval by its own error alone.
    #[test]
    fn known_solutions_take_out_what_the_draws_sizes_spread() {
        let strata = Strata::of(8);
        let sizes = [1.0, 10.0, 3.0, 0.5, 7.0, 2.0, 9.0, 0.2];
        let draws: Vec<Weighed> = (0..8)
            .flat_map(|index| [sizes[index], 4.0 * sizes[7 - index]])
            .enumerate()
            .map(|(at, size)| weighed(at / 2, 3.0 * size, size))
            .collect();
        let published = SolutionsOf { total: 1000.0, relative_error: 0.0 };
        let found = strata.estimate(&draws, Some(published)).unwrap();
        assert_eq!(found.per_solution.map(|found| found.seconds), Some(3.0));
        assert!((found.work.expected - 3000.0).abs() < 1e-9, "{:?}", found.work);
        assert!(found.work.high - found.work.low < 1e-9, "{:?}", found.work);
        let alone = found.by_time_alone;
        assert!(alone.high - alone.low > 0.5 * alone.expected, "{alone:?}");
        // The stratum means follow the ratio: they add up to its work.
        let listed: f64 = found.means.iter().zip(&strata.sizes).map(|(m, &s)| m * s as f64).sum();
        assert!((listed - 3000.0).abs() < 1e-9, "{listed}");
        let extrapolated = SolutionsOf { relative_error: 0.01, ..published };
        let work = strata.estimate(&draws, Some(extrapolated)).unwrap().work;
        let margin = INTERVAL_WIDTH * 0.01 * 3000.0;
        assert!((work.high - 3000.0 - margin).abs() < 1e-9, "{work:?}");
        // A sample that found no solutions keeps its time alone.
        let empty: Vec<Weighed> = draws.iter().map(|d| Weighed { solutions: 0.0, ..*d }).collect();
        let found = strata.estimate(&empty, Some(published)).unwrap();
        assert_eq!((found.work, found.per_solution), (found.by_time_alone, None));
    }

    /// A sample of fewer draws than strata (N = 28's 12 pieces over 64) is as uncertain as
    /// its few draws: the interval (95%) holds the list's sum 94.5% of the time here, where
    /// counting each undrawn stratum as if it had a draw of its own held it 62% of the time.
    #[test]
    fn a_sample_with_undrawn_strata_is_as_uncertain_as_its_draws() {
        let strata = Strata::of(128);
        assert_eq!(strata.sizes.len(), 64);
        let cost = |index: usize| 1.0 + 3.0 * unit_interval(mix(0xc057 ^ index as u64));
        let sum: f64 = (0..128).map(cost).sum();
        let trials = 400;
        let mut held = 0;
        for trial in 0..trials {
            let mut random = SplitMix64::new(trial);
            let mut strata_drawn: Vec<usize> = (0..64).collect();
            random.shuffle(&mut strata_drawn);
            let draws: Vec<Weighed> = (strata_drawn.iter().take(12))
                .map(|&stratum| {
                    let index = 2 * stratum + random.below(2);
                    weighed(index, cost(index), 1.0)
                })
                .collect();
            let work = strata.estimate(&draws, None).unwrap().work;
            assert!(work.high < 3.0 * sum, "{work:?} for {sum}");
            held += usize::from(work.low <= sum && sum <= work.high);
        }
        let share = held as f64 / trials as f64;
        assert!(share > 0.85, "the interval held the sum {share} of the time");
    }

    /// Strata of one draw each are as uncertain as their neighbours' differences, not as
    /// the whole list's: along a list whose costs grow fourfold from end to end, 84 draws
    /// over 64 strata (N = 28's sample) give an interval as wide as the estimates' own
    /// spread from trial to trial says. Each one-draw stratum borrowing the whole sample's
    /// spread made it 1.7 times as wide (and held the sum every time).
    #[test]
    fn strata_of_one_draw_are_as_uncertain_as_their_neighbours_differences() {
        let strata = Strata::of(128);
        let trend = |index: usize| 1.0 + 3.0 * index as f64 / 128.0;
        let cost = |index: usize, random: &mut SplitMix64| {
            trend(index) + 2.0 * unit_interval(random.next_u64())
        };
        let trials = 2000;
        // The noise adds 1 to each task's cost on average.
        let sum = (0..128).map(|index| trend(index) + 1.0).sum::<f64>();
        let (mut estimates, mut half_widths, mut held) = (Vec::new(), 0.0, 0);
        for trial in 0..trials {
            let mut random = SplitMix64::new(trial);
            let mut twice: Vec<usize> = (0..64).collect();
            random.shuffle(&mut twice);
            let draws: Vec<Weighed> = (0..64)
                .chain(twice.into_iter().take(20))
                .map(|stratum| {
                    let index = 2 * stratum + random.below(2);
                    weighed(index, cost(index, &mut random), 1.0)
                })
                .collect();
            let work = strata.estimate(&draws, None).unwrap().work;
            held += usize::from(work.low <= sum && sum <= work.high);
            half_widths += (work.high - work.low) / 2.0;
            estimates.push(work.expected);
        }
        let mean = estimates.iter().sum::<f64>() / trials as f64;
        let spread = estimates.iter().map(|e| (e - mean).powi(2)).sum::<f64>() / trials as f64;
        let width = half_widths / trials as f64 / (INTERVAL_WIDTH * spread.sqrt());
        assert!((0.85..1.25).contains(&width), "the interval is {width} times as wide as it is");
        assert!(held as f64 / trials as f64 > 0.9, "the interval held the sum {held} times");
    }

    /// Every descent from a list's task to a piece, weighed by its chance, finds the
    /// task's solutions on average, exactly: the join's row sets and their slices, at
    /// N = 12 and 13, where a published total is the sum over the list.
    #[test]
    fn the_weighed_solutions_of_every_descent_average_to_the_count() {
        for n in [12, 13] {
            let problem = Problem::new(n, nqueens_core::Method::Join).unwrap();
            let list = TaskList::of(&problem, problem.depth_for(8).unwrap()).unwrap();
            let (mut total, mut sliced) = (0.0, 0);
            for task in &list.tasks {
                let mut units = Vec::new();
                let children = |t: &Task| problem.children(t).unwrap();
                let size = |t: &Task| problem.units_below(t).unwrap();
                every_path(Path::at(task), 1.0, &children, &size, &mut units);
                for (unit, chance) in units {
                    let mut pieces = Vec::new();
                    let of_unit = |t: &Task| problem.pieces(t).unwrap();
                    every_path(unit, chance, &of_unit, &|_| 1.0, &mut pieces);
                    sliced += usize::from(pieces.len() > 1);
                    for (piece, chance) in pieces {
                        let solutions = problem.measure(&piece.task).unwrap().solutions;
                        total += chance * solutions as f64 * piece.weight();
                    }
                }
            }
            assert!(sliced > 0, "N = {n}: no unit was cut in pieces");
            let known = problem.known_solutions().unwrap();
            assert_eq!(known.relative_error, 0.0);
            assert!((total / known.total - 1.0).abs() < 1e-9, "N = {n}: {total}");
        }
    }
}
