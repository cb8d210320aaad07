//! Timings kept apart from the building of what an engine shares among many tasks.

use std::sync::{PoisonError, RwLock};
use std::time::{Duration, Instant};

use nqueens_core::{Counts, Error, Measurement, Problem, Task};

/// How often a timing builds what it needs and tries again before it runs alone: another
/// thread's build may evict it in between where threads outnumber what the engine keeps.
const ATTEMPTS: usize = 3;

/// Lets timings run side by side, as a count's tasks do, but never beside a build of what
/// the engine shares among many tasks ([`Problem::prepare`]). A count builds that rarely;
/// a sample that draws tasks from every part of the list may build before most of them.
/// At N = 21 a build of one of the join's 11 splits' tail tables takes 0.1 to 0.25 s and
/// writes a hundred megabytes, and with the tasks timed beside such builds on the other
/// thread, `estimate 21` on 2 threads predicted 1.11 to 1.28 times the count's
/// core-seconds (seeds 1 to 3; 1.00 on 1 thread; docs/measurements/estimator.md). A
/// build waits for the timings under way, and a timing whose task another thread's
/// builds keep evicting (more threads than the engine keeps splits) runs alone at last.
#[derive(Debug, Default)]
pub(crate) struct Gate {
    /// Held shared by a timing, alone by a build.
    building: RwLock<()>,
}

impl Gate {
    /// Runs `timing` of `task` once what it needs is built, with no build running beside it.
    pub(crate) fn time<T>(
        &self,
        problem: &Problem,
        task: &Task,
        timing: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        for _ in 0..ATTEMPTS {
            {
                let _timing = self.building.read().unwrap_or_else(PoisonError::into_inner);
                // Nothing is evicted while a timing holds the gate: only builds evict, and
                // they wait for it (all but the rare rebuild of a count, below).
                if problem.is_prepared(task)? {
                    return timing();
                }
            }
            let _build = self.building.write().unwrap_or_else(PoisonError::into_inner);
            problem.prepare(task)?;
        }
        let _alone = self.building.write().unwrap_or_else(PoisonError::into_inner);
        problem.prepare(task)?;
        timing()
    }

    /// `task`'s measurement and the seconds it took, timed as [`Gate::time`] times: what a
    /// sample times of a unit or piece, and what [`crate::time_again`] times of it again.
    pub(crate) fn measure(
        &self,
        problem: &Problem,
        task: &Task,
    ) -> Result<(Measurement, f64), Error> {
        self.time(problem, task, || {
            let started = Instant::now();
            let measured = problem.measure(task)?;
            Ok((measured, started.elapsed().as_secs_f64()))
        })
    }

    /// `task` counted whole and the time its count took, timed as [`Gate::time`] times: a
    /// sample's whole task, and what [`crate::time_again`] times of it again.
    pub(crate) fn solve_timed(
        &self,
        problem: &Problem,
        task: &Task,
    ) -> Result<(Counts, Duration), Error> {
        self.time(problem, task, || problem.solve_timed(task))
    }

    /// Runs `counting` of `task`, a check's count, once what it needs is built with no
    /// timing running beside the build; the count holds no part of the gate, so that
    /// another count may build beside it, as a count's tasks do. Held through the
    /// count, N = 25's check of four counts of 7 to 19 minutes ran them one at a time
    /// (3,048 s on one thread): the other thread's build waited for each to end. A
    /// check's counts run among its descents, whose first round goes below every checked
    /// task and so builds their splits' tables early; a count holds its tables while it
    /// runs (the join's `solve_timed` takes them before its clock starts), so no build
    /// takes them from it. Tables that another build takes between this build and the
    /// count are built again by the count, outside the gate and outside its clock: rare,
    /// beside a descent's timing at most, as a count's own tasks build beside each other.
    pub(crate) fn count<T>(
        &self,
        problem: &Problem,
        task: &Task,
        counting: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        if !problem.is_prepared(task)? {
            let _build = self.building.write().unwrap_or_else(PoisonError::into_inner);
            problem.prepare(task)?;
        }
        counting()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::{Duration, Instant};

    use nqueens_core::Method;
    use nqueens_random::mix;

    use super::*;

    /// On more threads than the join's tail cache holds splits, with every thread's tasks
    /// hopping between splits, every timing finds its task's tables built and still holds
    /// them when it ends: no build ran beside it to evict them.
    #[test]
    fn no_build_runs_beside_a_timing() {
        let problem =
            Problem::new(15, Method::Join).unwrap().with_memory_per_thread(4 << 20).unwrap();
        let mut tasks = problem.tasks(problem.depth_for(64).unwrap()).unwrap();
        let mut random = 1;
        tasks.sort_by_cached_key(|_| {
            random = mix(random);
            random
        });
        let threads = 6;
        let (gate, timed, unprepared) = (Gate::default(), AtomicUsize::new(0), AtomicUsize::new(0));
        std::thread::scope(|scope| {
            for thread in 0..threads {
                let (problem, tasks, gate) = (&problem, &tasks, &gate);
                let (timed, unprepared) = (&timed, &unprepared);
                scope.spawn(move || {
                    for task in tasks.iter().skip(thread).step_by(threads) {
                        if !problem.is_prepared(task).unwrap() {
                            unprepared.fetch_add(1, Ordering::Relaxed);
                        }
                        gate.time(problem, task, || {
                            assert!(problem.is_prepared(task)?, "{task:?} not built");
                            problem.solve(task, false)?;
                            assert!(problem.is_prepared(task)?, "{task:?} evicted");
                            timed.fetch_add(1, Ordering::Relaxed);
                            Ok(())
                        })
                        .unwrap();
                    }
                });
            }
        });
        assert_eq!(timed.into_inner(), tasks.len());
        // More builds than splits: the tasks evicted each other's tables.
        let mut splits: Vec<u8> = tasks.iter().map(|task| task.key()[0]).collect();
        splits.sort_unstable();
        splits.dedup();
        assert!(unprepared.into_inner() > splits.len(), "the tasks built and evicted tables");
    }

    /// Two counts of tasks of different splits run side by side, the second building its
    /// tables while the first counts: each count waits inside for the other to come in,
    /// which a count holding the gate would keep out until the wait ran out.
    #[test]
    fn a_count_builds_and_runs_beside_another() {
        let problem = Problem::new(15, Method::Join).unwrap();
        let tasks = problem.tasks(problem.depth_for(64).unwrap()).unwrap();
        let first = &tasks[0];
        let other = tasks.iter().find(|task| task.key()[0] != first.key()[0]).unwrap();
        let (gate, inside) = (Gate::default(), AtomicUsize::new(0));
        let both_inside = |task: &Task| {
            gate.count(&problem, task, || {
                inside.fetch_add(1, Ordering::SeqCst);
                let started = Instant::now();
                while inside.load(Ordering::SeqCst) < 2
                    && started.elapsed() < Duration::from_secs(30)
                {
                    std::thread::sleep(Duration::from_millis(1));
                }
                let met = inside.load(Ordering::SeqCst) == 2;
                problem.solve(task, false)?;
                Ok(met)
            })
            .unwrap()
        };
        let met = std::thread::scope(|scope| {
            let early = scope.spawn(|| both_inside(first));
            while inside.load(Ordering::SeqCst) == 0 && !early.is_finished() {
                std::thread::sleep(Duration::from_millis(1));
            }
            assert!(!problem.is_prepared(other).unwrap(), "the second split is not built yet");
            [both_inside(other), early.join().unwrap()]
        });
        assert_eq!(met, [true, true]);
    }
}
