//! The engine identity test: every task's result over a fixed set of small boards, as one
//! digest, against the digest `crates/core/src/identity.rs` records beside the engine
//! version. Checkpoints and shards of one identity are added up; this test is what makes a
//! change to a task's result change the identity.

use nqueens_core::{
    ENGINE_DIGEST, ENGINE_IDENTITY, ENGINE_VERSION, Kernel, MaskWidth, Method, Problem, Turn,
};
use nqueens_test_support::{pair_test_runs, processor_runs, say_refused};

/// How many tasks a default split aims for: the CLI's 64 per thread, on 2 threads and on
/// the 16 it assumes for shards and checkpoints.
const DEFAULT_TASKS: [usize; 2] = [64 * 2, 64 * 16];

/// Queens placed in advance, as 0-based `(row, column)`: one in the first row, one in a
/// middle row, and two apart.
const PLACEMENTS: [&[(usize, usize)]; 3] = [&[(0, 1)], &[(4, 2)], &[(1, 3), (6, 0)]];

/// The boards whose task results make the digest, each with the label it is hashed under.
fn boards(kernel: Kernel) -> Vec<(String, Problem)> {
    let mut boards = Vec::new();
    let mut add = |label: String, problem: Problem| boards.push((label, problem));
    for method in Method::ALL {
        for width in [MaskWidth::U64, MaskWidth::U128] {
            for n in 1..=12 {
                let problem = Problem::new(n, method).unwrap().with_width(width).unwrap();
                add(format!("{method} N={n} {}-bit", width.columns()), problem);
            }
        }
    }
    // The join's even-board weights, buckets and tail tables only come into play on the
    // boards it is chosen for.
    for n in 13..=16 {
        add(format!("join N={n}"), Problem::new(n, Method::Join).unwrap());
    }
    for n in 9..=12 {
        for queens in PLACEMENTS {
            let problem = Problem::new(n, Method::Plain).unwrap().with_placement(queens).unwrap();
            add(format!("plain N={n} placing {queens:?}"), problem);
        }
    }
    for turn in Turn::ALL {
        for n in 1..=16 {
            add(format!("{turn} N={n}"), Problem::unchanged_by(n, turn).unwrap());
        }
    }
    boards
        .into_iter()
        .map(|(label, problem)| {
            // The rotation-fixed searches run on the scalar kernel alone.
            let problem = match problem.turn() {
                Some(_) => problem,
                None => problem.with_kernel(kernel).unwrap(),
            };
            (label, problem)
        })
        .collect()
}

/// The splits each board is counted at: every one on the small boards (a shard's list, or
/// another thread count's, may take any), and elsewhere none, the default ones and the
/// deepest; the deepest is left out where it makes so many tasks that the test would take
/// minutes.
fn depths(problem: &Problem) -> Vec<usize> {
    const MOST_TASKS: usize = 200_000;
    const EVERY_DEPTH_UP_TO: usize = 12;
    let deepest = problem.max_depth();
    if problem.n() <= EVERY_DEPTH_UP_TO {
        return (0..=deepest).collect();
    }
    let mut depths = vec![0];
    depths.extend(DEFAULT_TASKS.map(|tasks| problem.depth_for(tasks).unwrap()));
    if problem.tasks(deepest).unwrap().len() <= MOST_TASKS {
        depths.push(deepest);
    }
    depths.sort_unstable();
    depths.dedup();
    depths
}

/// 64-bit FNV-1a, written out here so that the digest depends on nothing it checks.
struct Fnv(u64);

impl Fnv {
    fn add(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
        }
    }
}

/// The digest of every task's key and result (whole solutions and thirds; not the nodes,
/// which measure work, not results) on `kernel`, as 8 hex digits.
fn digest(kernel: Kernel) -> String {
    let mut hash = Fnv(0xcbf2_9ce4_8422_2325);
    for (label, problem) in boards(kernel) {
        for depth in depths(&problem) {
            hash.add(format!("{label} depth {depth}\n").as_bytes());
            for task in problem.tasks(depth).unwrap() {
                let counts = problem.solve(&task, false).unwrap();
                hash.add(&[task.key().len() as u8]);
                hash.add(task.key());
                hash.add(&counts.total.to_le_bytes());
                hash.add(&counts.thirds.to_le_bytes());
            }
        }
    }
    format!("{:08x}", (hash.0 ^ (hash.0 >> 32)) as u32)
}

#[test]
fn the_task_results_match_the_engine_identity() {
    let computed = digest(Kernel::Scalar);
    assert!(
        computed == ENGINE_DIGEST,
        "the engine's task results changed: their digest is {computed}, but engine version \
         {ENGINE_VERSION} records {ENGINE_DIGEST}. Checkpoints and shards of the old results \
         would be added to the new ones. If the change is meant to change what a task counts, \
         raise the version to {} and record digest \"{computed}\" in \
         crates/core/src/identity.rs; if it is not (speed work, a new kernel), a task's \
         result changed by mistake.",
        ENGINE_VERSION + 1
    );
    assert_eq!(ENGINE_IDENTITY, format!("{ENGINE_VERSION}-{ENGINE_DIGEST}"));
}

#[test]
fn every_kernel_gives_the_same_task_results() {
    for kernel in [Kernel::Avx512, Kernel::Avx2] {
        if !processor_runs(kernel.name()) || !pair_test_runs(kernel.name()) {
            say_refused(kernel.name());
            continue;
        }
        assert_eq!(digest(kernel), digest(Kernel::Scalar), "{kernel}");
    }
}
