//! The engines against the known counts and against an independent brute force.

use std::collections::{BTreeMap, BTreeSet};

use nqueens_core::{
    Counts, DEFAULT_MEMORY_PER_THREAD, Error, Kernel, MaskWidth, MemoryLimit, Method, Problem,
    count,
};
use nqueens_test_support::{
    images, known_counts, pair_test_runs, permutation_solutions, processor_runs, say_refused,
};

fn count_split(problem: &Problem, depth: usize) -> Counts {
    problem.tasks(depth).unwrap().iter().fold(Counts::default(), |acc, task| {
        acc.merge(&problem.solve(task, false).unwrap()).unwrap()
    })
}

/// `problem` on `kernel`, or `None` where this processor lacks the kernel, after checking
/// that it is then refused. Whether it has the kernel is asked of the processor, not of the
/// engines, so a kernel refused where it should run fails the test instead of skipping it.
fn on_kernel(problem: &Problem, kernel: Kernel) -> Option<Problem> {
    let result = problem.with_kernel(kernel);
    let runs = match problem.method() {
        Method::Join => pair_test_runs(kernel.name()),
        _ => processor_runs(kernel.name()),
    };
    if runs {
        let refused = |e| panic!("{kernel} was refused on a processor that has it: {e}");
        return Some(result.unwrap_or_else(refused));
    }
    assert!(
        matches!(&result, Err(Error::Kernel { kernel: k, n, max_n }) if *k == kernel && n <= max_n),
        "{kernel} on a processor without it: {result:?}"
    );
    None
}

/// Says which vector kernels a test left out, once [`on_kernel`] has checked their refusal
/// (the join's AVX-512 asks for more of the processor than the lanes' do).
fn say_which_kernels_were_refused() {
    for kernel in [Kernel::Avx512, Kernel::Avx2] {
        if !processor_runs(kernel.name()) || !pair_test_runs(kernel.name()) {
            say_refused(kernel.name());
        }
    }
}

#[test]
fn every_method_matches_the_known_counts_on_both_mask_widths() {
    for method in Method::ALL {
        for width in [MaskWidth::U64, MaskWidth::U128] {
            for n in 1..=15 {
                let problem = Problem::new(n, method).unwrap().with_width(width).unwrap();
                let outcome = problem.finish(&count_split(&problem, 0)).unwrap();
                let (total, unique) = known_counts(n);
                assert_eq!(
                    (outcome.total, outcome.unique),
                    (total, Some(unique)),
                    "N = {n}, {method}, {width:?}"
                );
            }
        }
    }
}

#[test]
fn count_gives_total_and_unique_for_n_16() {
    let (total, unique) = known_counts(16);
    for method in [Method::Eightfold, Method::Join] {
        assert_eq!(
            count(16, method).map(|o| (o.total, o.unique)),
            Ok((total, Some(unique))),
            "{method}"
        );
    }
}

#[test]
fn the_join_refuses_boards_it_cannot_split() {
    assert!(Problem::new(32, Method::Join).is_ok());
    assert!(Problem::new(33, Method::Join).is_err());
    assert_eq!(Method::fastest(15), Method::Eightfold);
    assert_eq!(Method::fastest(16), Method::Join);
    assert_eq!(Method::fastest(40), Method::Eightfold);
}

#[test]
fn the_join_holds_at_most_its_budget_up_to_n_28() {
    let two_gib = 2 << 30;
    let board = Problem::new(28, Method::Join).unwrap();
    let need = board.bytes_per_thread(two_gib).unwrap().unwrap();
    assert_eq!(need, DEFAULT_MEMORY_PER_THREAD, "N = 28 splits its row sets to fit");
    assert!(need <= two_gib);
    let least = board.min_memory_per_thread().unwrap();
    let small = board.with_memory_per_thread(least).unwrap();
    assert_eq!(small.bytes_per_thread(two_gib).unwrap(), Some(least));
    assert!(matches!(board.with_memory_per_thread(least - 1), Err(Error::MemoryBudget { .. })));
    let whole = Problem::new(14, Method::Join).unwrap().with_memory_per_thread(least);
    let need = whole.unwrap().bytes_per_thread(two_gib).unwrap().unwrap();
    assert!(need < least, "N = 14 fits the smallest budget whole");
}

/// The join's tail tables are held once however many threads read them: each thread's
/// budget counts its share, so a count on more threads needs less of each.
#[test]
fn threads_share_the_joins_tail_tables() {
    let alone = Problem::new(18, Method::Join).unwrap();
    let shared = alone.expected_shared_bytes();
    assert!(shared > 0, "N = 18 holds tail tables");
    let need = |threads| alone.with_threads(threads).unwrap().bytes_per_thread(u64::MAX).unwrap();
    let one = need(1).unwrap();
    assert_eq!(need(0), Some(one), "no threads is taken as one");
    assert_eq!(one - need(4).unwrap(), shared - shared.div_ceil(4));
    assert_eq!(alone.with_threads(4).unwrap().expected_shared_bytes(), shared);
}

/// The memory check's probe builds the tail tables the count's threads will share, and
/// the engine says it holds them, so that what the process holds is not given them twice.
#[test]
fn the_joins_tables_built_by_its_probe_are_held_once() {
    let board = Problem::new(18, Method::Join).unwrap();
    assert_eq!(board.held_shared_bytes(), 0, "nothing is built before the probe");
    board.bytes_per_thread(u64::MAX).unwrap();
    let held = board.held_shared_bytes();
    assert!(held > 0 && held <= board.expected_shared_bytes(), "{held}");
    assert_eq!(Problem::new(18, Method::Eightfold).unwrap().held_shared_bytes(), 0);
}

#[test]
fn a_count_fits_its_memory_limit_or_is_refused() {
    let gib = 1 << 30;
    let board = Problem::new(28, Method::Join).unwrap();
    // The machine's share only lowers the budget; a limit asked for sets it.
    let plan = board.fit_memory(MemoryLimit::AtMost(4 * gib)).unwrap();
    assert_eq!(plan.problem.memory_per_thread(), DEFAULT_MEMORY_PER_THREAD);
    assert_eq!(plan.per_thread, Some(DEFAULT_MEMORY_PER_THREAD));
    assert!(plan.in_pieces, "N = 28 is counted in pieces");
    let plan = board.fit_memory(MemoryLimit::Asked(gib)).unwrap();
    assert_eq!((plan.problem.memory_per_thread(), plan.per_thread), (gib, Some(gib)));
    let plan = Problem::new(14, Method::Join).unwrap().fit_memory(MemoryLimit::Asked(gib));
    assert!(!plan.unwrap().in_pieces, "N = 14 fits whole");
    let refused = Problem::new(18, Method::Join).unwrap().fit_memory(MemoryLimit::Asked(1 << 20));
    assert!(
        matches!(refused, Err(Error::MemoryLimit { needs, limit: 1_048_576, .. }) if needs > 1 << 20),
        "{refused:?}"
    );
    for method in [Method::Plain, Method::Half, Method::Eightfold] {
        let plan = Problem::new(28, method).unwrap().fit_memory(MemoryLimit::Asked(1)).unwrap();
        assert_eq!((plan.per_thread, plan.in_pieces), (None, false), "{method}");
    }
}

#[test]
fn every_engine_refuses_the_tasks_of_other_methods_and_boards() {
    let problems: Vec<Problem> =
        (9..=12).flat_map(|n| Method::ALL.map(|method| Problem::new(n, method).unwrap())).collect();
    for made_by in &problems {
        let tasks = made_by.tasks(2.min(made_by.max_depth())).unwrap();
        for solver in &problems {
            let same = (solver.n(), solver.method()) == (made_by.n(), made_by.method());
            for task in &tasks {
                let solved = solver.solve(task, false);
                if same {
                    assert!(solved.is_ok(), "{task:?} refused by its own problem");
                } else {
                    assert!(
                        matches!(solved, Err(Error::ForeignTask { .. })),
                        "{task:?} of N = {}, {} solved by N = {}, {}: {solved:?}",
                        made_by.n(),
                        made_by.method(),
                        solver.n(),
                        solver.method()
                    );
                }
            }
        }
    }
}

#[test]
fn every_kernel_agrees_with_the_scalar_one_task_by_task() {
    for method in [Method::Plain, Method::Half, Method::Eightfold, Method::Join] {
        for n in 5..=14 {
            for depth in [0, 1, 3] {
                let scalar = Problem::new(n, method).unwrap().with_kernel(Kernel::Scalar).unwrap();
                for kernel in [Kernel::Avx512, Kernel::Avx2] {
                    let Some(lanes) = on_kernel(&scalar, kernel) else { continue };
                    for task in lanes.tasks(depth).unwrap() {
                        // The join's buckets pay off at different sizes for different
                        // widths of lanes, so it tests different numbers of pairs.
                        let count_nodes = method != Method::Join;
                        assert_eq!(
                            lanes.solve(&task, count_nodes),
                            scalar.solve(&task, count_nodes),
                            "N = {n}, {method}, {:?}, task {:?}",
                            lanes.kernel(),
                            task.key()
                        );
                    }
                }
            }
        }
    }
    say_which_kernels_were_refused();
}

#[test]
fn every_kernel_matches_the_known_counts_for_both_parities() {
    for (method, largest) in [(Method::Join, 16), (Method::Eightfold, 14)] {
        for n in 1..=largest {
            let (total, unique) = known_counts(n);
            for kernel in [Kernel::Scalar, Kernel::Avx2, Kernel::Avx512] {
                let Some(problem) = on_kernel(&Problem::new(n, method).unwrap(), kernel) else {
                    continue;
                };
                let depth = 2.min(problem.max_depth());
                let outcome = problem.finish(&count_split(&problem, depth)).unwrap();
                assert_eq!(
                    (outcome.total, outcome.unique),
                    (total, Some(unique)),
                    "N = {n}, {method}, {kernel}"
                );
            }
        }
    }
    say_which_kernels_were_refused();
}

#[test]
fn both_kernels_count_placed_queens_alike() {
    for queens in [&[(0, 1)][..], &[(3, 0), (5, 7)], &[(9, 4)], &[(2, 2), (4, 5), (8, 0)]] {
        let problem = Problem::new(12, Method::Plain).unwrap().with_placement(queens).unwrap();
        for depth in [0, 2] {
            let scalar = count_split(&problem.with_kernel(Kernel::Scalar).unwrap(), depth);
            for lanes in [Kernel::Avx512, Kernel::Avx2] {
                if let Some(problem) = on_kernel(&problem, lanes) {
                    assert_eq!(
                        count_split(&problem, depth),
                        scalar,
                        "{queens:?}, {lanes}, depth {depth}"
                    );
                }
            }
        }
    }
    say_which_kernels_were_refused();
}

#[test]
fn every_split_depth_gives_the_same_counts() {
    for method in Method::ALL {
        for n in [1, 2, 5, 8, 11] {
            let problem = Problem::new(n, method).unwrap();
            let whole = count_split(&problem, 0);
            for depth in 1..=problem.max_depth() {
                assert_eq!(count_split(&problem, depth), whole, "N = {n}, {method}, depth {depth}");
            }
        }
    }
}

#[test]
fn split_depth_beyond_the_board_is_refused() {
    let problem = Problem::new(6, Method::Plain).unwrap();
    assert!(problem.tasks(5).is_ok());
    assert!(problem.tasks(6).is_err());
}

#[test]
fn board_sizes_outside_the_masks_are_refused() {
    assert!(Problem::new(0, Method::Plain).is_err());
    assert!(Problem::new(129, Method::Plain).is_err());
    assert!(Problem::new(128, Method::Plain).is_ok());
    assert!(Problem::new(65, Method::Plain).unwrap().with_width(MaskWidth::U64).is_err());
}

#[test]
fn node_counting_does_not_change_the_counts() {
    let problem = Problem::new(9, Method::Eightfold).unwrap();
    for task in problem.tasks(2).unwrap() {
        let with = problem.solve(&task, true).unwrap();
        let without = problem.solve(&task, false).unwrap();
        assert_eq!(Counts { nodes: 0, ..with }, without);
        assert!(with.nodes > 0);
    }
}

#[test]
fn kernel_agrees_with_a_brute_force_over_permutations() {
    for n in 1..=10 {
        // Every permutation of the columns, with no pruning at all.
        let solutions = permutation_solutions(n);
        let classes: BTreeSet<_> = solutions.iter().map(|s| images(s)).collect();
        for method in Method::ALL {
            for kernel in Kernel::ALL {
                let Some(problem) = on_kernel(&Problem::new(n, method).unwrap(), kernel) else {
                    continue;
                };
                let outcome = problem.finish(&count_split(&problem, 0)).unwrap();
                let expected = (solutions.len() as u128, Some(classes.len() as u128));
                assert_eq!(
                    (outcome.total, outcome.unique),
                    expected,
                    "N = {n}, {method}, {kernel}"
                );
            }
        }
    }
    say_which_kernels_were_refused();
}

/// What an eightfold root is worth by the rule that the root's rows state: for a corner
/// root `[0, b]`, 8 per solution with those queens whose column-1 queen lies below row `b`;
/// for a border root `[c]`, 8 / (k + 1) per solution whose top queen is at column `c` and
/// whose other edges' queens stand no nearer a corner, `k` of them as near. In thirds.
fn share_in_thirds(columns: &[usize], root: &[u8]) -> u128 {
    let n = columns.len();
    let distance = |at: usize| at.min(n - 1 - at);
    let row_of = |column| columns.iter().position(|&c| c == column).unwrap();
    match *root {
        [0, b] if columns[..2] == [0, usize::from(b)] && row_of(1) > usize::from(b) => 24,
        [c] if columns[0] == usize::from(c) => {
            let top = distance(columns[0]);
            let others = [distance(columns[n - 1]), distance(row_of(0)), distance(row_of(n - 1))];
            if others.iter().any(|&d| d < top) {
                return 0;
            }
            let ties = others.iter().filter(|&&d| d == top).count() as u128;
            24 / (ties + 1)
        }
        _ => 0,
    }
}

#[test]
fn every_eightfold_root_counts_its_share_of_the_solutions() {
    for n in 5..=10 {
        let solutions = permutation_solutions(n);
        for kernel in Kernel::ALL {
            let eightfold = Problem::new(n, Method::Eightfold).unwrap();
            let Some(problem) = on_kernel(&eightfold, kernel) else { continue };
            // Depth 2 splits every root once more, so the corner roots' second row shows.
            let mut by_root = BTreeMap::<Vec<u8>, Counts>::new();
            for task in problem.tasks(2).unwrap() {
                let root = if task.key()[0] == 0 { &task.key()[..2] } else { &task.key()[..1] };
                let sum = by_root.entry(root.to_vec()).or_default();
                *sum = sum.merge(&problem.solve(&task, false).unwrap()).unwrap();
            }
            for (root, counts) in by_root {
                let expected: u128 = solutions.iter().map(|s| share_in_thirds(s, &root)).sum();
                assert_eq!(
                    3 * counts.total + counts.thirds,
                    expected,
                    "N = {n}, {kernel}, root {root:?}"
                );
            }
        }
    }
    say_which_kernels_were_refused();
}
