//! Predicting what a task list costs from a timed sample of it.
//!
//! Neighbouring tasks of a list tend to cost alike (they share the prefix that made them)
//! while tasks far apart may differ a hundredfold, so the list is cut into strata of
//! consecutive tasks and each stratum is sampled on its own: the estimate of the whole is
//! the sum over strata of each stratum's size times its sampled mean, and its spread comes
//! from the spread within strata, not between them. A sample drawn one task per stratum per
//! round ([`stratified_order`]) is a stratified sample at every length, so a run that serves
//! its tasks in that order can predict its end from whatever it has finished.

use std::ops::Range;

use nqueens_random::SplitMix64;

/// How many standard errors either side of an estimate its interval spans: about 95% of
/// estimates of a normal spread fall within it.
pub const INTERVAL_WIDTH: f64 = 1.96;

/// The task list cut into strata, and the costs timed so far in each.
#[derive(Clone, Debug)]
pub struct CostModel {
    strata: Vec<Stratum>,
    /// Tasks in the whole list.
    tasks: usize,
}

#[derive(Clone, Debug, Default)]
struct Stratum {
    /// Tasks in the stratum.
    size: usize,
    /// Tasks timed, and the sum and sum of squares of their costs.
    timed: usize,
    sum: f64,
    sum_of_squares: f64,
}

impl Stratum {
    fn mean(&self) -> Option<f64> {
        (self.timed > 0).then(|| self.sum / self.timed as f64)
    }

    /// The sample variance of the costs timed, if two or more were.
    fn variance(&self) -> Option<f64> {
        (self.timed > 1).then(|| {
            let mean = self.sum / self.timed as f64;
            ((self.sum_of_squares - self.timed as f64 * mean * mean) / (self.timed - 1) as f64)
                .max(0.0)
        })
    }
}

/// A predicted cost, with the interval it most likely falls in.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Prediction {
    /// The estimate.
    pub expected: f64,
    /// The interval's ends.
    pub low: f64,
    /// See `low`.
    pub high: f64,
}

impl CostModel {
    /// A model of a list of `tasks`, cut into `strata` strata of consecutive tasks (at
    /// least one, at most one per task) whose sizes differ by at most one.
    pub fn new(tasks: usize, strata: usize) -> CostModel {
        let strata = strata.clamp(1, tasks.max(1));
        let strata = (0..strata)
            .map(|s| Stratum { size: bounds(tasks, strata, s).len(), ..Stratum::default() })
            .collect();
        CostModel { strata, tasks }
    }

    /// How many strata the list is cut into.
    pub fn strata(&self) -> usize {
        self.strata.len()
    }

    /// The stratum task `index` is in.
    pub fn stratum_of(&self, index: usize) -> usize {
        // Strata of sizes q + 1 (the first `r`) and q: invert `bounds`.
        let count = self.strata.len();
        let (q, r) = (self.tasks / count, self.tasks % count);
        if index < r * (q + 1) { index / (q + 1) } else { r + (index - r * (q + 1)) / q.max(1) }
    }

    /// Records that task `index` cost `cost` (seconds, say).
    pub fn observe(&mut self, index: usize, cost: f64) {
        let stratum = self.stratum_of(index);
        let stratum = &mut self.strata[stratum];
        stratum.timed += 1;
        stratum.sum += cost;
        stratum.sum_of_squares += cost * cost;
    }

    /// Tasks timed so far.
    pub fn timed(&self) -> usize {
        self.strata.iter().map(|s| s.timed).sum()
    }

    /// The mean cost of the tasks timed, over every stratum.
    fn overall_mean(&self) -> Option<f64> {
        let timed = self.timed();
        (timed > 0).then(|| self.timed_cost() / timed as f64)
    }

    /// The expected cost of task `index`: its stratum's mean, or the mean of all the tasks
    /// timed while its stratum has none; `None` before any task is timed.
    pub fn expected(&self, index: usize) -> Option<f64> {
        self.strata[self.stratum_of(index)].mean().or_else(|| self.overall_mean())
    }

    /// The cost of the tasks not yet timed, `untimed[s]` of them in stratum `s` as
    /// [`CostModel::untimed`] counts them, with its interval; `None` before any task is
    /// timed. A stratum with one timed task borrows the relative spread of the others, and
    /// the whole sample's where none has two; the strata with none timed share the mean of
    /// every timing, and so its error.
    pub fn remaining(&self, untimed: &[usize]) -> Option<Prediction> {
        let overall = self.overall_mean()?;
        let pooled = self.pooled_relative_variance();
        let timed_in_all = self.timed() as f64;
        let (mut expected, mut variance) = (0.0, 0.0);
        let (mut left_untimed, mut timed_strata_spread) = (0.0, 0.0);
        for (stratum, &left) in self.strata.iter().zip(untimed) {
            let left = left as f64;
            let Some(mean) = stratum.mean() else {
                left_untimed += left;
                continue;
            };
            let spread = stratum.variance().unwrap_or(pooled * mean * mean);
            expected += left * mean;
            // The variance of a sum of `left` costs estimated from `timed` of them: the
            // spread of each, and the error of the mean they are taken at.
            variance += spread * (left + left * left / stratum.timed as f64);
            timed_strata_spread += left * spread;
        }
        // The untimed strata's tasks are taken at the mean of all timings: the spread of
        // each around it, and that mean's error.
        let spread_of_all = self.spread_of_all().unwrap_or(overall * overall);
        expected += left_untimed * overall;
        variance += left_untimed * spread_of_all
            + shared_mean_variance(left_untimed, spread_of_all, timed_strata_spread, timed_in_all);
        let margin = INTERVAL_WIDTH * variance.sqrt();
        Some(Prediction { expected, low: (expected - margin).max(0.0), high: expected + margin })
    }

    /// The sample variance of every cost timed, taken as one stratum, if two or more were.
    fn spread_of_all(&self) -> Option<f64> {
        let timed = self.timed();
        (timed > 1).then(|| {
            let sum: f64 = self.strata.iter().map(|s| s.sum).sum();
            let squares: f64 = self.strata.iter().map(|s| s.sum_of_squares).sum();
            let mean = sum / timed as f64;
            ((squares - timed as f64 * mean * mean) / (timed - 1) as f64).max(0.0)
        })
    }

    /// The summed cost of the tasks timed.
    pub fn timed_cost(&self) -> f64 {
        self.strata.iter().map(|s| s.sum).sum()
    }

    /// The cost of the whole list: the tasks timed, and the rest as
    /// [`CostModel::remaining`] predicts them; `None` before any task is timed.
    pub fn total(&self) -> Option<Prediction> {
        let timed = self.timed_cost();
        let rest = self.remaining(&self.untimed())?;
        Some(Prediction {
            expected: timed + rest.expected,
            low: timed + rest.low,
            high: timed + rest.high,
        })
    }

    /// How many tasks each stratum holds.
    pub fn sizes(&self) -> Vec<usize> {
        self.strata.iter().map(|s| s.size).collect()
    }

    /// How many tasks of each stratum are not yet timed.
    pub fn untimed(&self) -> Vec<usize> {
        self.strata.iter().map(|s| s.size - s.timed).collect()
    }

    /// The variance of the costs relative to their stratum's mean, pooled over the strata
    /// with two or more timed; without any, the whole sample's, taken as one stratum.
    fn pooled_relative_variance(&self) -> f64 {
        let (mut weighted, mut degrees) = (0.0, 0usize);
        for stratum in &self.strata {
            if let (Some(variance), Some(mean)) = (stratum.variance(), stratum.mean())
                && mean > 0.0
            {
                weighted += variance / (mean * mean) * (stratum.timed - 1) as f64;
                degrees += stratum.timed - 1;
            }
        }
        if degrees > 0 {
            return weighted / degrees as f64;
        }
        match (self.spread_of_all(), self.overall_mean()) {
            (Some(spread), Some(mean)) if mean > 0.0 => spread / (mean * mean),
            // One timing says nothing of the spread: assume costs as spread as their mean.
            _ => 1.0,
        }
    }
}

/// The variance of `undrawn` items taken at the mean of all `draws` of a stratified sample,
/// whose spread around that mean is `spread_of_all`: the strata no draw reached share
/// that one estimate, so their sum varies as it does, and with the drawn strata's
/// estimates, whose draws make it up (`drawn_spread`: the sum over the drawn strata of
/// the items each stands for times its spread). Counted as if each undrawn stratum had a
/// draw of its own, a dozen draws over 64 strata held the sum in their 95% interval
/// about 62% of the time.
pub fn shared_mean_variance(
    undrawn: f64,
    spread_of_all: f64,
    drawn_spread: f64,
    draws: f64,
) -> f64 {
    undrawn * (undrawn * spread_of_all + 2.0 * drawn_spread) / draws
}

/// The indices of stratum `s` of `count` strata over `tasks` tasks.
fn bounds(tasks: usize, count: usize, s: usize) -> Range<usize> {
    let (q, r) = (tasks / count, tasks % count);
    let start = s * q + s.min(r);
    start..start + q + usize::from(s < r)
}

/// `indices` in the order a stratified sample draws them: each round takes one index at
/// random from every stratum that has any left, the strata in random order, so that every
/// prefix of the order samples every part of the list alike. The same seed gives the same
/// order.
pub fn stratified_order(indices: &[usize], strata: usize, seed: u64) -> Vec<usize> {
    let mut random = SplitMix64::new(seed);
    let count = strata.clamp(1, indices.len().max(1));
    let mut pools: Vec<Vec<usize>> =
        (0..count).map(|s| indices[bounds(indices.len(), count, s)].to_vec()).collect();
    for pool in &mut pools {
        random.shuffle(pool);
    }
    let mut order = Vec::with_capacity(indices.len());
    let mut round: Vec<usize> = (0..count).collect();
    while order.len() < indices.len() {
        random.shuffle(&mut round);
        order.extend(round.iter().filter_map(|&s| pools[s].pop()));
    }
    order
}

/// The time a list of tasks with these `costs` takes on `workers` workers that each take
/// the next task in order when they finish one, as the runner's workers do.
pub fn makespan(costs: impl IntoIterator<Item = f64>, workers: usize) -> f64 {
    let mut free_at = vec![0.0f64; workers.max(1)];
    for cost in costs {
        let earliest =
            free_at.iter_mut().min_by(|a, b| a.total_cmp(b)).expect("there is at least one worker");
        *earliest += cost;
    }
    free_at.into_iter().fold(0.0, f64::max)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strata_cover_the_list_once_in_order() {
        for tasks in [1, 7, 64, 100, 1001] {
            for count in [1, 3, 64, 2000] {
                let model = CostModel::new(tasks, count);
                let sizes: usize = model.strata.iter().map(|s| s.size).sum();
                assert_eq!(sizes, tasks);
                let strata = model.strata.len();
                let mut last = 0;
                for index in 0..tasks {
                    let s = model.stratum_of(index);
                    assert!(bounds(tasks, strata, s).contains(&index), "{tasks} {count} {index}");
                    assert!(s == last || s == last + 1);
                    last = s;
                }
            }
        }
    }

    #[test]
    fn every_prefix_of_the_order_draws_from_every_stratum_alike() {
        let indices: Vec<usize> = (0..1000).collect();
        let order = stratified_order(&indices, 10, 7);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, indices);
        for round in 1..=100 {
            let mut per_stratum = [0; 10];
            for &index in &order[..round * 10] {
                per_stratum[index / 100] += 1;
            }
            assert_eq!(per_stratum, [round; 10], "after {round} rounds");
        }
        assert_eq!(order, stratified_order(&indices, 10, 7), "the seed fixes the order");
        assert_ne!(order, stratified_order(&indices, 10, 8));
    }

    #[test]
    fn the_interval_holds_the_cost_of_a_known_list() {
        // Costs that grow along the list and vary within it: what stratifying is for.
        let costs: Vec<f64> = (0..2000).map(|i| 1.0 + i as f64 / 100.0 + (i % 7) as f64).collect();
        let total: f64 = costs.iter().sum();
        let mut inside = 0;
        for seed in 0..100 {
            let mut model = CostModel::new(costs.len(), 20);
            let order = stratified_order(&(0..costs.len()).collect::<Vec<_>>(), 20, seed);
            for &index in &order[..60] {
                model.observe(index, costs[index]);
            }
            let timed: f64 = order[..60].iter().map(|&i| costs[i]).sum();
            let rest = model.remaining(&model.untimed()).unwrap();
            let predicted = rest.expected + timed;
            assert!((predicted - total).abs() < 0.05 * total, "seed {seed}: {predicted} {total}");
            if (rest.low + timed..=rest.high + timed).contains(&total) {
                inside += 1;
            }
        }
        assert!(inside >= 85, "the interval held the total in {inside} of 100 samples");
    }

    #[test]
    fn few_timings_over_many_strata_are_as_uncertain_as_they_are_few() {
        // The start of a count: a dozen tasks timed of a list cut into 64 strata, so most
        // strata are predicted from the mean of timings made elsewhere in the list.
        let mut random = SplitMix64::new(11);
        let costs: Vec<f64> = (0..6400)
            .map(|i| (1.0 + i as f64 / 640.0) * (0.5 + random.below(1000) as f64 / 1000.0))
            .collect();
        let total: f64 = costs.iter().sum();
        let indices: Vec<usize> = (0..costs.len()).collect();
        let trials = 400u64;
        let mut inside = 0;
        for seed in 0..trials {
            let mut model = CostModel::new(costs.len(), 64);
            let order = stratified_order(&indices, 64, seed);
            for &index in &order[..12] {
                model.observe(index, costs[index]);
            }
            let whole = model.total().unwrap();
            if (whole.low..=whole.high).contains(&total) {
                inside += 1;
            }
        }
        let held = inside as f64 / trials as f64;
        assert!(held > 0.85, "the interval held the total in {held:.3} of the samples");
    }

    #[test]
    fn an_untimed_stratum_is_taken_at_the_mean() {
        let mut model = CostModel::new(10, 2);
        model.observe(0, 2.0);
        model.observe(1, 4.0);
        assert_eq!(model.expected(9), Some(3.0));
        let rest = model.remaining(&model.untimed()).unwrap();
        assert_eq!(rest.expected, 8.0 * 3.0);
        assert!(rest.low < rest.expected && rest.expected < rest.high);
        assert_eq!(CostModel::new(3, 1).remaining(&[3]), None);
    }

    #[test]
    fn makespan_follows_the_list_on_free_workers() {
        assert_eq!(makespan([3.0, 1.0, 1.0, 1.0], 2), 3.0);
        assert_eq!(makespan([1.0, 1.0, 1.0, 3.0], 2), 4.0);
        assert_eq!(makespan([2.0; 4], 1), 8.0);
        assert_eq!(makespan([], 4), 0.0);
    }
}
