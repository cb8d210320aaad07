//! Where a sample's spread lies: between the prefixes of the north rows that row sets
//! share (walked once for all of them by a count, again by every timing), or among the
//! pieces below one prefix; and whether row sets timed alone, charged by owner, add up to
//! their prefix counted whole.
//!
//! `cargo run --release -p nqueens-plan --example prefix_spread -- N PREFIXES MEMBERS WHOLE
//! MOST SEED`: PREFIXES prefixes drawn as the sample draws, MEMBERS pieces below each
//! (timed on 2 threads), then WHOLE prefixes with at most MOST row sets below them, each
//! counted whole and every row set below it timed alone. Minutes at N = 26.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use nqueens_core::{Charge, Method, Problem, Task};
use nqueens_plan::{Sharing, depth_for};
use nqueens_random::mix;

type Failure = Box<dyn std::error::Error + Send + Sync>;

/// A descent as the sample makes it: children in proportion to their units, each task
/// weighed by the inverse of the chance of reaching it.
#[derive(Clone)]
struct Path {
    task: Task,
    weights: Vec<f64>,
    passed: Vec<Task>,
}

impl Path {
    fn step_to(&mut self, task: Task, weight: f64) {
        self.weights.resize(task.key().len() + 1, weight);
        self.passed.push(task.clone());
        self.task = task;
    }

    fn down_to_unit(mut self, problem: &Problem, random: &mut u64) -> Result<Path, Failure> {
        loop {
            let children = problem.children(&self.task)?;
            if children.is_empty() {
                return Ok(self);
            }
            let sizes =
                children.iter().map(|c| problem.units_below(c)).collect::<Result<Vec<_>, _>>()?;
            let all: f64 = sizes.iter().sum();
            *random = mix(*random);
            let mut point = all * ((*random >> 11) as f64 / (1u64 << 53) as f64);
            let chosen = sizes
                .iter()
                .position(|&size| {
                    point -= size;
                    point < 0.0
                })
                .unwrap_or(sizes.len() - 1);
            let weight = self.weights[self.weights.len() - 1] * all / sizes[chosen];
            self.step_to(children[chosen].clone(), weight);
        }
    }

    fn down_to_piece(mut self, problem: &Problem, random: &mut u64) -> Result<Path, Failure> {
        let pieces = problem.pieces(&self.task)?;
        if !pieces.is_empty() {
            *random = mix(*random);
            let chosen = (*random % pieces.len() as u64) as usize;
            let weight = self.weights[self.weights.len() - 1] * pieces.len() as f64;
            self.step_to(pieces[chosen].clone(), weight);
        }
        Ok(self)
    }
}

/// Seconds and weighed cost of the stretches owned at or above `prefix_len`, and below.
#[derive(Clone, Copy, Default)]
struct Split {
    shared_s: f64,
    own_s: f64,
    shared_cost: f64,
    own_cost: f64,
}

fn split(charges: &[Charge], weights: &[f64], prefix_len: usize) -> Split {
    let weight = |owner: usize| weights[owner.min(weights.len() - 1)];
    let mut split = Split::default();
    for charge in charges {
        if charge.owner <= prefix_len {
            split.shared_s += charge.seconds;
            split.shared_cost += charge.seconds * weight(charge.owner);
        } else {
            split.own_s += charge.seconds;
            split.own_cost += charge.seconds * weight(charge.owner);
        }
    }
    split
}

fn units_below(problem: &Problem, task: &Task, units: &mut Vec<Task>) -> Result<(), Failure> {
    let children = problem.children(task)?;
    if children.is_empty() {
        units.push(task.clone());
    }
    for child in children {
        units_below(problem, &child, units)?;
    }
    Ok(())
}

enum Job {
    Member { prefix: usize, path: Path },
    Whole { prefix: usize, task: Task },
    Unit { prefix: usize, task: Task },
}

enum Timed {
    Member { prefix: usize, split: Split },
    Whole { prefix: usize, seconds: f64 },
    Unit { prefix: usize, split: Split },
}

/// Runs the jobs on 2 threads, as the sample times on a 2-core machine.
fn run(problem: &Problem, jobs: &[Job], prefix_len: usize) -> Result<Vec<Timed>, Failure> {
    let next = AtomicUsize::new(0);
    let timed = Mutex::new(Vec::new());
    let work = || -> Result<(), Failure> {
        while let Some(job) = jobs.get(next.fetch_add(1, Ordering::Relaxed)) {
            let result = match job {
                Job::Member { prefix, path } => {
                    problem.prepare(&path.task)?;
                    let charges = problem.measure(&path.task)?;
                    Timed::Member {
                        prefix: *prefix,
                        split: split(&charges, &path.weights, prefix_len),
                    }
                }
                Job::Whole { prefix, task } => {
                    problem.prepare(task)?;
                    let (_, seconds) = problem.solve_timed(task)?;
                    Timed::Whole { prefix: *prefix, seconds: seconds.as_secs_f64() }
                }
                Job::Unit { prefix, task } => {
                    problem.prepare(task)?;
                    let charges = problem.measure(task)?;
                    let weights = vec![1.0; task.key().len() + 1];
                    Timed::Unit { prefix: *prefix, split: split(&charges, &weights, prefix_len) }
                }
            };
            timed.lock().map_err(|_| "poisoned")?.push(result);
        }
        Ok(())
    };
    std::thread::scope(|scope| {
        let workers: Vec<_> = (0..2).map(|_| scope.spawn(work)).collect();
        workers.into_iter().try_for_each(|w| w.join().map_err(|_| "a worker panicked")?)
    })?;
    Ok(timed.into_inner().map_err(|_| "poisoned")?)
}

fn mean(values: &[f64]) -> f64 {
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

fn variance(values: &[f64]) -> f64 {
    let m = mean(values);
    values.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (values.len().max(2) - 1) as f64
}

/// The least and the most of `values`.
fn span(values: &[f64]) -> (f64, f64) {
    values.iter().fold((f64::MAX, 0.0f64), |(least, most), &v| (least.min(v), most.max(v)))
}

fn main() -> Result<(), Failure> {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse()).collect::<Result<_, _>>()?;
    let [n, prefixes, members, wholes, most, seed] = args[..] else {
        return Err("usage: prefix_spread N PREFIXES MEMBERS WHOLE MOST SEED".into());
    };
    let problem = Problem::new(n, Method::Join)?;
    let list = problem.tasks(depth_for(&problem, Sharing::Alone { threads: 2 })?)?;
    let mut random = mix(seed as u64);
    let start = |random: &mut u64| {
        *random = mix(*random);
        let task = list[(*random % list.len() as u64) as usize].clone();
        Path {
            weights: vec![list.len() as f64; task.key().len() + 1],
            passed: vec![task.clone()],
            task,
        }
    };
    // The prefix of the north rows: the longest owner above a unit that its timing names.
    let first = start(&mut random).down_to_unit(&problem, &mut random)?;
    let unit_len = first.task.key().len();
    let charges = problem.measure(&first.task)?;
    let prefix_len = charges.iter().map(|c| c.owner).filter(|&o| o < unit_len).max().unwrap_or(0);
    println!(
        "N = {n}: {} list tasks, units of {unit_len} key bytes, prefix of {prefix_len}",
        list.len()
    );
    if prefix_len < list[0].key().len() {
        return Err(format!(
            "N = {n}: the prefix of the north rows ({prefix_len} key bytes) lies above the \
             count's tasks ({} bytes): every task holds its own",
            list[0].key().len()
        )
        .into());
    }
    let prefix_of = |path: &Path| path.passed.iter().position(|t| t.key().len() == prefix_len);
    let mut jobs = Vec::new();
    let mut drawn = 0;
    while drawn < prefixes {
        let unit = start(&mut random).down_to_unit(&problem, &mut random)?;
        let Some(at) = prefix_of(&unit) else { continue };
        let prefix = Path {
            task: unit.passed[at].clone(),
            weights: unit.weights[..=prefix_len].to_vec(),
            passed: unit.passed[..=at].to_vec(),
        };
        jobs.push(Job::Member { prefix: drawn, path: unit.down_to_piece(&problem, &mut random)? });
        for _ in 1..members {
            let unit = prefix.clone().down_to_unit(&problem, &mut random)?;
            jobs.push(Job::Member {
                prefix: drawn,
                path: unit.down_to_piece(&problem, &mut random)?,
            });
        }
        drawn += 1;
    }
    let mut whole = 0;
    for _ in 0..10_000 {
        if whole == wholes {
            break;
        }
        let unit = start(&mut random).down_to_unit(&problem, &mut random)?;
        let Some(at) = prefix_of(&unit) else { continue };
        let mut units = Vec::new();
        units_below(&problem, &unit.passed[at], &mut units)?;
        if !(2..=most).contains(&units.len()) {
            continue;
        }
        jobs.push(Job::Whole { prefix: whole, task: unit.passed[at].clone() });
        jobs.extend(units.into_iter().map(|task| Job::Unit { prefix: whole, task }));
        whole += 1;
    }
    let started = Instant::now();
    let timed = run(&problem, &jobs, prefix_len)?;
    let mut clusters = vec![Vec::new(); prefixes];
    for t in &timed {
        if let Timed::Member { prefix, split } = t {
            clusters[*prefix].push(*split);
        }
    }
    let (mut cluster_means, mut within, mut shared_s, mut own_s) = (vec![], vec![], vec![], vec![]);
    let (mut shared_costs, mut own_means, mut most_within) = (vec![], vec![], 1.0f64);
    for cluster in &clusters {
        let owns: Vec<f64> = cluster.iter().map(|s| s.own_cost).collect();
        let shared: Vec<f64> = cluster.iter().map(|s| s.shared_cost).collect();
        let (least, most) = span(&owns);
        most_within = most_within.max(most / least);
        shared_costs.push(mean(&shared));
        own_means.push(mean(&owns));
        cluster_means.push(mean(&shared) + mean(&owns));
        within.push(variance(&owns));
        shared_s.extend(cluster.iter().map(|s| s.shared_s));
        own_s.extend(cluster.iter().map(|s| s.own_s));
    }
    let within = mean(&within);
    let between = (variance(&cluster_means) - within / members as f64).max(0.0);
    println!(
        "{prefixes} prefixes x {members} pieces: a piece's timing {:.2} s, of it the prefix's {:.2} s; \
         share of a draw's variance between prefixes {:.2}, coefficient of variation {:.2}",
        mean(&shared_s) + mean(&own_s),
        mean(&shared_s),
        between / (between + within),
        (between + within).sqrt() / mean(&cluster_means),
    );
    let (least, most) = span(&own_means);
    println!(
        "by weighed cost the prefix is {:.1}% of a draw; the pieces' own costs span {:.0} times \
         from one prefix to another ({least:.2e} to {most:.2e}), at most {most_within:.1} times \
         below one prefix",
        100.0 * mean(&shared_costs) / mean(&cluster_means),
        most / least,
    );
    for prefix in 0..whole {
        let whole_s = timed.iter().find_map(|t| match t {
            Timed::Whole { prefix: p, seconds } if *p == prefix => Some(*seconds),
            _ => None,
        });
        let units: Vec<Split> = (timed.iter())
            .filter_map(|t| match t {
                Timed::Unit { prefix: p, split } if *p == prefix => Some(*split),
                _ => None,
            })
            .collect();
        let shared = mean(&units.iter().map(|s| s.shared_s).collect::<Vec<_>>());
        let owned: f64 = units.iter().map(|s| s.own_s).sum();
        let whole_s = whole_s.ok_or("a whole prefix went untimed")?;
        println!(
            "prefix counted whole: {whole_s:.2} s; its {} row sets timed alone, charged by owner: \
             {:.2} s (prefix {shared:.2} s once, row sets {owned:.2} s), {:.3} of the whole",
            units.len(),
            shared + owned,
            (shared + owned) / whole_s,
        );
    }
    println!("timed in {:.0} s", started.elapsed().as_secs_f64());
    Ok(())
}
