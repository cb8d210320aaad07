//! The engines against the known counts and against an independent brute force.

mod known;

use std::collections::BTreeSet;

use nqueens_core::{Counts, Kernel, MaskWidth, Method, Problem, Solution, count};

fn count_split(problem: &Problem, depth: usize) -> Counts {
    problem.tasks(depth).unwrap().iter().fold(Counts::default(), |acc, task| {
        acc.merge(&problem.solve(task, false).unwrap()).unwrap()
    })
}

#[test]
fn every_method_matches_the_known_counts_on_both_mask_widths() {
    for method in Method::ALL {
        for width in [MaskWidth::U64, MaskWidth::U128] {
            for n in 1..=15 {
                let problem = Problem::new(n, method).unwrap().with_width(width).unwrap();
                let outcome = problem.finish(&count_split(&problem, 0)).unwrap();
                let (total, unique) = known::counts(n);
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
    let (total, unique) = known::counts(16);
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
fn both_kernels_agree_task_by_task_on_counts_and_nodes() {
    // A lane kernel this processor lacks is skipped: it is not used here either.
    for method in [Method::Plain, Method::Half, Method::Eightfold] {
        for n in 5..=14 {
            for depth in [0, 1, 3] {
                let scalar = Problem::new(n, method).unwrap().with_kernel(Kernel::Scalar).unwrap();
                for lanes in [Kernel::Avx512, Kernel::Avx2].map(|k| scalar.with_kernel(k)) {
                    let Ok(lanes) = lanes else { continue };
                    for task in lanes.tasks(depth).unwrap() {
                        assert_eq!(
                            lanes.solve(&task, true),
                            scalar.solve(&task, true),
                            "N = {n}, {method}, {:?}, task {:?}",
                            lanes.kernel(),
                            task.key()
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn both_kernels_count_placed_queens_alike() {
    for queens in [&[(0, 1)][..], &[(3, 0), (5, 7)], &[(9, 4)], &[(2, 2), (4, 5), (8, 0)]] {
        let problem = Problem::new(12, Method::Plain).unwrap().with_placement(queens).unwrap();
        for depth in [0, 2] {
            let scalar = count_split(&problem.with_kernel(Kernel::Scalar).unwrap(), depth);
            for lanes in [Kernel::Avx512, Kernel::Avx2] {
                if let Ok(problem) = problem.with_kernel(lanes) {
                    assert_eq!(
                        count_split(&problem, depth),
                        scalar,
                        "{queens:?}, {lanes}, depth {depth}"
                    );
                }
            }
        }
    }
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

/// Every permutation of `0..n` (no pruning), as a brute force the kernel is compared with:
/// the solutions, and one representative per class.
fn brute_force(n: usize) -> (Vec<Solution>, BTreeSet<Solution>) {
    let mut columns: Vec<usize> = (0..n).collect();
    let mut solutions = Vec::new();
    let mut visit = |columns: &[usize]| {
        if let Ok(solution) = Solution::new(columns.to_vec()) {
            solutions.push(solution);
        }
    };
    permute(&mut columns, 0, &mut visit);
    let classes = solutions.iter().map(Solution::canonical).collect();
    (solutions, classes)
}

fn permute(columns: &mut [usize], from: usize, visit: &mut impl FnMut(&[usize])) {
    if from == columns.len() {
        visit(columns);
        return;
    }
    for i in from..columns.len() {
        columns.swap(from, i);
        permute(columns, from + 1, visit);
        columns.swap(from, i);
    }
}

#[test]
fn kernel_agrees_with_a_brute_force_over_permutations() {
    for n in 1..=10 {
        let (solutions, classes) = brute_force(n);
        for method in Method::ALL {
            for kernel in Kernel::ALL {
                let Ok(problem) = Problem::new(n, method).unwrap().with_kernel(kernel) else {
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
}

/// What an eightfold root is worth by the rule that the root's rows state: for a corner
/// root `[0, b]`, 8 per solution with those queens whose column-1 queen lies below row `b`;
/// for a border root `[c]`, 8 / (k + 1) per solution whose top queen is at column `c` and
/// whose other edges' queens stand no nearer a corner, `k` of them as near. In thirds.
fn share_in_thirds(solution: &Solution, root: &[u8]) -> u128 {
    let columns = solution.columns();
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
        let (solutions, _) = brute_force(n);
        for kernel in Kernel::ALL {
            let Ok(problem) = Problem::new(n, Method::Eightfold).unwrap().with_kernel(kernel)
            else {
                continue;
            };
            // Depth 2 splits every root once more, so the corner roots' second row shows.
            let mut roots: Vec<Vec<u8>> = Vec::new();
            let mut by_root = std::collections::BTreeMap::<Vec<u8>, Counts>::new();
            for task in problem.tasks(2).unwrap() {
                let root = if task.key()[0] == 0 { &task.key()[..2] } else { &task.key()[..1] };
                if !roots.iter().any(|r| r == root) {
                    roots.push(root.to_vec());
                }
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
}
