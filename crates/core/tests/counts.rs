//! The engines against the known counts and against an independent brute force.

mod known;

use std::collections::BTreeSet;

use nqueens_core::{Counts, MaskWidth, Method, Problem, Solution, count, unique_by_burnside};

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
    assert_eq!(Method::fastest(13), Method::Eightfold);
    assert_eq!(Method::fastest(14), Method::Join);
    assert_eq!(Method::fastest(40), Method::Eightfold);
}

#[test]
fn eightfold_classes_agree_with_burnside() {
    for n in 5..=15 {
        let problem = Problem::new(n, Method::Eightfold).unwrap();
        let counts = count_split(&problem, 0);
        let classes: u128 = counts.classes.iter().sum();
        assert_eq!(unique_by_burnside(n, counts.total), Ok(classes), "N = {n}");
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

/// Every permutation of `0..n` (no pruning), as a brute force the kernel is compared with.
fn brute_force(n: usize) -> (u128, [u128; 3], BTreeSet<Solution>) {
    let mut columns: Vec<usize> = (0..n).collect();
    let mut total = 0;
    let mut classes = BTreeSet::new();
    let mut visit = |columns: &[usize]| {
        if let Ok(solution) = Solution::new(columns.to_vec()) {
            total += 1;
            classes.insert(solution.canonical());
        }
    };
    permute(&mut columns, 0, &mut visit);
    let mut by_images = [0; 3];
    for class in &classes {
        match class.distinct_images() {
            2 => by_images[0] += 1,
            4 => by_images[1] += 1,
            8 => by_images[2] += 1,
            _ => {}
        }
    }
    (total, by_images, classes)
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
        let (total, by_images, classes) = brute_force(n);
        for method in Method::ALL {
            let outcome = count(n, method).unwrap();
            let unique = Some(classes.len() as u128);
            assert_eq!((outcome.total, outcome.unique), (total, unique), "N = {n}");
        }
        if n >= 5 {
            let problem = Problem::new(n, Method::Eightfold).unwrap();
            assert_eq!(count_split(&problem, 0).classes, by_images, "classes, N = {n}");
        }
    }
}
