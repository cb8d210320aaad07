//! The runner with tasks whose answers are known: sums of squares.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use nqueens_scheduler::{
    Checkpoint, CheckpointError, CheckpointLock, Finish, Identity, RunError, Runner, Shard,
    sample_first_order,
};

fn squares(n: u64) -> Vec<u64> {
    (1..=n).collect()
}

fn sum_of_squares(n: u64) -> u128 {
    u128::from(n * (n + 1) * (2 * n + 1) / 6)
}

/// The checkpoint at `path`, held for a run.
fn held(path: &Path) -> Arc<CheckpointLock> {
    Arc::new(CheckpointLock::acquire(path).unwrap())
}

fn runner(n: u64) -> Runner<u64, u128, String> {
    Runner::new(squares(n), |&t| Ok(u128::from(t * t)), |a, b| Ok(a + b), 0)
}

#[test]
fn every_thread_count_gives_the_same_result() {
    for threads in [1, 2, 3, 8, 64] {
        let report = runner(500).threads(threads).run(|_| {}).unwrap();
        assert_eq!(report.result, sum_of_squares(500));
        assert_eq!((report.finish, report.done, report.total), (Finish::Complete, 500, 500));
    }
}

#[test]
fn progress_counts_up_to_the_total() {
    let mut seen = Vec::new();
    runner(50).threads(2).run(|p| seen.push((p.done, *p.partial))).unwrap();
    assert_eq!(seen.first(), Some(&(0, 0)));
    assert_eq!(seen.last(), Some(&(50, sum_of_squares(50))));
    assert!(seen.windows(2).all(|w| w[0].0 <= w[1].0));
}

#[test]
fn a_panicking_task_is_named_and_does_not_hang() {
    let tasks = squares(100);
    let result = Runner::new(
        tasks,
        |&t| if t == 42 { panic!("boom at {t}") } else { Ok::<u128, String>(1) },
        |a, b| Ok(a + b),
        0,
    )
    .threads(3)
    .run(|_| {});
    match result {
        Err(RunError::Panicked { index, message }) => {
            assert_eq!(index, 41);
            assert!(message.contains("boom at 42"));
        }
        other => panic!("expected a panic error, got {other:?}"),
    }
}

#[test]
fn a_failing_task_is_named() {
    let result = Runner::new(
        squares(10),
        |&t| if t == 7 { Err(format!("bad {t}")) } else { Ok(1u128) },
        |a, b| Ok(a + b),
        0,
    )
    .run(|_| {});
    assert!(matches!(result, Err(RunError::Task { index: 6, ref error }) if error == "bad 7"));
}

#[test]
fn shards_add_up_to_the_whole() {
    for count in [1, 2, 3, 7] {
        let mut sum = 0;
        for index in 0..count {
            let shard = Shard::new(index, count).unwrap();
            sum += runner(100).threads(2).shard(shard).run(|_| {}).unwrap().result;
        }
        assert_eq!(sum, sum_of_squares(100), "{count} shards");
    }
}

#[test]
fn the_sample_is_served_first_backwards_then_the_rest_in_order() {
    let shard = Shard::new(1, 3).unwrap();
    for tasks in [10, 64, 1000] {
        let pending: Vec<usize> = shard.select(tasks).collect();
        let order = sample_first_order(&pending, tasks);
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, pending, "{tasks} tasks: every pending task once");
        // The runner's 64 strata (`COST_STRATA`), at most one a pending task.
        let strata = 64.min(pending.len());
        let (drawn, rest) = order.split_at(strata);
        assert!(drawn.is_sorted_by(|a, b| a > b), "{tasks} tasks: the sample backwards");
        assert!(rest.is_sorted(), "{tasks} tasks: the rest in order");
        // One task of each stratum: the i-th from the end of the sample lies in the i-th
        // run of consecutive pending tasks, the runs as even as they can be.
        let (size, longer) = (pending.len() / strata, pending.len() % strata);
        for (stratum, index) in drawn.iter().rev().enumerate() {
            let start = stratum * size + stratum.min(longer);
            let end = start + size + usize::from(stratum < longer);
            assert!(pending[start..end].contains(index), "{tasks} tasks, stratum {stratum}");
        }
    }
}

#[test]
fn a_stopped_run_resumes_to_the_same_result() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squares.ckpt");
    let identity = Identity::from([("what".to_owned(), "squares".to_owned())]);
    let stop = Arc::new(AtomicBool::new(false));
    let slow = |&t: &u64| {
        std::thread::sleep(Duration::from_millis(2));
        Ok::<u128, String>(u128::from(t * t))
    };
    let flag = Arc::clone(&stop);
    let report = Runner::new(squares(300), slow, |a, b| Ok(a + b), 0)
        .threads(2)
        .checkpoint(held(&path), Duration::from_secs(60), identity.clone())
        .stop_flag(Arc::clone(&stop))
        .run(move |p| {
            if p.done >= 20 {
                flag.store(true, Ordering::Relaxed);
            }
        })
        .unwrap();
    assert_eq!(report.finish, Finish::Stopped);
    assert!(report.done < 300);
    let saved = Checkpoint::<u128>::load(&path).unwrap().unwrap();
    assert!(!saved.complete);
    assert_eq!(saved.partial, report.result);

    let mut resumed_from = None;
    let report = Runner::new(squares(300), slow, |a, b| Ok(a + b), 0)
        .threads(2)
        .checkpoint(held(&path), Duration::from_secs(60), identity.clone())
        .run(|p| {
            resumed_from.get_or_insert(p.resumed);
        })
        .unwrap();
    assert_eq!((report.finish, report.result), (Finish::Complete, sum_of_squares(300)));
    assert!(resumed_from.unwrap() >= 20);
    assert!(Checkpoint::<u128>::load(&path).unwrap().unwrap().complete);

    let other = Identity::from([("what".to_owned(), "cubes".to_owned())]);
    let refused = runner(300).checkpoint(held(&path), Duration::from_secs(60), other).run(|_| {});
    assert!(matches!(refused, Err(RunError::Checkpoint(_))));
}

#[test]
fn a_fed_run_runs_exactly_the_batches_handed_out() {
    for threads in [1, 3] {
        // Every third task, in batches of five, as another process might hand them out.
        let mut batches = (0..300)
            .step_by(3)
            .collect::<Vec<usize>>()
            .chunks(5)
            .map(<[_]>::to_vec)
            .collect::<Vec<_>>()
            .into_iter();
        let mut asked = Vec::new();
        let report = runner(300)
            .threads(threads)
            .run_fed(
                |p| {
                    asked.push(p.done);
                    Ok(batches.next().unwrap_or_default())
                },
                |_| {},
            )
            .unwrap();
        let expected: u128 = (1..=300u128).step_by(3).map(|t| t * t).sum();
        assert_eq!(report.result, expected);
        assert_eq!((report.finish, report.done, report.total), (Finish::Complete, 100, 100));
        assert_eq!(asked.len(), 21, "20 batches and the empty one that ends the feed");
    }
}

#[test]
fn a_fed_run_refuses_a_task_handed_out_twice_or_out_of_range() {
    for batch in [vec![1, 2, 1], vec![10]] {
        let mut once = Some(batch);
        let result = runner(10).threads(2).run_fed(|_| Ok(once.take().unwrap_or_default()), |_| {});
        assert!(matches!(result, Err(RunError::BadTask { tasks: 10, .. })), "{result:?}");
    }
}

#[test]
fn a_failing_feed_fails_the_run() {
    let result = runner(10).run_fed(|_| Err("rank 0 is gone".to_owned()), |_| {});
    assert!(matches!(result, Err(RunError::Feed(ref e)) if e == "rank 0 is gone"));
}

#[test]
fn a_fed_run_reports_a_task_that_fails_while_the_feed_is_asked_for_more() {
    // The only worker fails its first task and ends while the slow feed prepares the next
    // batch, which is then queued with no worker left to take it.
    let mut next = 0..10;
    let result = Runner::new(
        squares(10),
        |&t| if t == 1 { Err(format!("bad {t}")) } else { Ok(1u128) },
        |a, b| Ok(a + b),
        0,
    )
    .threads(1)
    .run_fed(
        |_| {
            std::thread::sleep(Duration::from_millis(20));
            Ok(next.next().into_iter().collect())
        },
        |_| {},
    );
    assert!(matches!(result, Err(RunError::Task { index: 0, ref error }) if error == "bad 1"));
}

#[test]
fn a_checkpoint_of_another_shard_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squares.ckpt");
    let identity = Identity::from([("what".to_owned(), "squares".to_owned())]);
    let every = Duration::from_secs(60);
    let first = Shard::new(0, 2).unwrap();
    runner(20).shard(first).checkpoint(held(&path), every, identity.clone()).run(|_| {}).unwrap();
    let second = Shard::new(1, 2).unwrap();
    let refused = runner(20).shard(second).checkpoint(held(&path), every, identity).run(|_| {});
    assert!(
        matches!(refused, Err(RunError::Checkpoint(CheckpointError::Corrupt { .. }))),
        "{refused:?}"
    );
}

#[test]
fn a_fed_run_neither_reads_nor_writes_the_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("squares.ckpt");
    let every = Duration::ZERO;
    let cubes = Identity::from([("what".to_owned(), "cubes".to_owned())]);
    runner(10).checkpoint(held(&path), every, cubes).run(|_| {}).unwrap();
    let saved = std::fs::read(&path).unwrap();

    // A checkpoint of another run would be refused if it were read.
    let squares = Identity::from([("what".to_owned(), "squares".to_owned())]);
    let mut once = Some(vec![0, 1, 2]);
    let report = runner(10)
        .threads(2)
        .checkpoint(held(&path), every, squares)
        .run_fed(|_| Ok(once.take().unwrap_or_default()), |_| {})
        .unwrap();
    assert_eq!((report.finish, report.result), (Finish::Complete, sum_of_squares(3)));
    assert_eq!(std::fs::read(&path).unwrap(), saved);
}

/// Tasks of a millisecond each that wait until `gate` opens, so that a test can change the
/// disk mid-run.
fn gated(n: u64, gate: Arc<AtomicBool>) -> Runner<u64, u128, String> {
    Runner::new(
        squares(n),
        move |&t| {
            while !gate.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(1));
            }
            std::thread::sleep(Duration::from_millis(1));
            Ok(u128::from(t * t))
        },
        |a, b| Ok(a + b),
        0,
    )
}

/// A checkpoint in a folder of its own, which a test can take away: the temporary
/// directory (kept while it lives), the folder, the checkpoint's path and its identity.
fn checkpoint_in_a_folder() -> (tempfile::TempDir, PathBuf, PathBuf, Identity) {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("d");
    std::fs::create_dir(&folder).unwrap();
    let path = folder.join("run.ckpt");
    (dir, folder, path, Identity::from([("run".to_owned(), "squares".to_owned())]))
}

#[test]
fn a_failing_save_warns_through_progress_and_the_run_goes_on() {
    let (_dir, folder, path, identity) = checkpoint_in_a_folder();
    let gate = Arc::new(AtomicBool::new(false));
    let mut failures_seen = 0;
    let mut recovered = false;
    let report = gated(200, Arc::clone(&gate))
        .threads(2)
        .tick(Duration::from_millis(5))
        .checkpoint(held(&path), Duration::from_millis(10), identity.clone())
        .run(|progress| {
            if progress.done == 0 && !gate.load(Ordering::Relaxed) {
                // The save before the first task worked; now the folder is gone.
                assert!(path.exists());
                std::fs::remove_dir_all(&folder).unwrap();
                std::fs::write(&folder, b"not a folder").unwrap();
                gate.store(true, Ordering::Relaxed);
            }
            if progress.checkpoint_failure.is_some() {
                failures_seen += 1;
                if failures_seen == 3 {
                    // Back again: the next interval's save succeeds.
                    std::fs::remove_file(&folder).unwrap();
                    std::fs::create_dir(&folder).unwrap();
                }
            } else if failures_seen > 0 {
                recovered = true;
            }
        })
        .unwrap();
    assert_eq!(report.result, sum_of_squares(200), "a failed save loses nothing of the count");
    assert!(failures_seen >= 3 && recovered, "{failures_seen} failures, recovered: {recovered}");
    assert!(report.checkpoint_failure.is_none(), "{:?}", report.checkpoint_failure);
    let saved = Checkpoint::<u128>::load(&path).unwrap().unwrap();
    assert!(saved.complete);
    assert_eq!(saved.partial, sum_of_squares(200));
}

#[test]
fn a_final_save_that_fails_is_reported_with_the_whole_result() {
    let (_dir, folder, path, identity) = checkpoint_in_a_folder();
    let gate = Arc::new(AtomicBool::new(false));
    let report = gated(50, Arc::clone(&gate))
        .threads(2)
        .checkpoint(held(&path), Duration::from_secs(3600), identity)
        .run(|_| {
            if !gate.load(Ordering::Relaxed) {
                std::fs::remove_dir_all(&folder).unwrap();
                gate.store(true, Ordering::Relaxed);
            }
        })
        .unwrap();
    assert_eq!((report.result, report.finish), (sum_of_squares(50), Finish::Complete));
    assert!(matches!(report.checkpoint_failure, Some(CheckpointError::Io { .. })));
}

#[test]
fn a_checkpoint_that_cannot_be_written_fails_the_run_before_any_task() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing-folder").join("run.ckpt");
    let refused = CheckpointLock::acquire(&missing);
    assert!(matches!(refused, Err(CheckpointError::Io { .. })), "{refused:?}");
    // A folder that goes away after the run took its checkpoint.
    let folder = dir.path().join("folder");
    std::fs::create_dir(&folder).unwrap();
    let path = folder.join("run.ckpt");
    let lock = held(&path);
    std::fs::remove_dir_all(&folder).unwrap();
    let identity = Identity::from([("run".to_owned(), "squares".to_owned())]);
    let ran = Arc::new(AtomicBool::new(false));
    let flag = Arc::clone(&ran);
    let result = Runner::new(
        squares(10),
        move |&t| {
            flag.store(true, Ordering::Relaxed);
            Ok::<u128, String>(u128::from(t))
        },
        |a, b| Ok(a + b),
        0,
    )
    .checkpoint(lock, Duration::from_secs(60), identity)
    .run(|_| {});
    assert!(matches!(result, Err(RunError::Checkpoint(CheckpointError::Io { .. }))), "{result:?}");
    assert!(!ran.load(Ordering::Relaxed));
}
