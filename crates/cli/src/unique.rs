//! The unique count's last step: the solutions that rotations leave unchanged, counted
//! as tasks on the run's threads once the count's own tasks are merged.

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use nqueens_core::{Counts, Outcome, Problem, Task};
use nqueens_scheduler::{Finish, Runner};

use nqueens_plan::TASKS_PER_THREAD;

/// The answer from a count's merged `counts`: the rotation-fixed counts that the unique
/// count needs, run on `threads` threads; `None` if `stop` was raised meanwhile.
pub(crate) fn finish(
    problem: &Problem,
    counts: &Counts,
    threads: usize,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<Option<Outcome>> {
    Ok(match count_each(&problem.rotation_fixed()?, threads, stop)? {
        Some(rotation_fixed) => Some(problem.finish_with(counts, &rotation_fixed)?),
        None => None,
    })
}

/// The totals of `problems`, each split into tasks and run on `threads` threads; `None` if
/// `stop` was raised meanwhile.
pub(crate) fn count_each(
    problems: &[Problem],
    threads: usize,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<Option<Vec<u128>>> {
    let mut totals = Vec::with_capacity(problems.len());
    for problem in problems {
        let tasks = problem.tasks(problem.depth_for(TASKS_PER_THREAD * threads)?)?;
        let solver = problem.clone();
        let report = Runner::new(
            tasks,
            move |task: &Task| solver.solve(task, false),
            |a: &Counts, b: &Counts| a.merge(b),
            Counts::default(),
        )
        .threads(threads)
        .stop_flag(Arc::clone(&stop))
        .run(|_| {})?;
        if report.finish == Finish::Stopped {
            return Ok(None);
        }
        totals.push(report.result.total);
    }
    Ok(Some(totals))
}
