//! Constructed, random and listed solutions, and counts of partial boards, each checked
//! against the oracles of `nqueens-test-support`, which share nothing with the engines.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use nqueens_core::{
    Conflict, Counts, Enumeration, Error, MaskWidth, Method, Problem, Solution, construct,
    random_solution,
};
use nqueens_test_support::{
    XorShift, all_solutions, completions, images, is_solution, known_counts,
};

fn listed(n: usize, unique: bool) -> Vec<Vec<usize>> {
    let enumeration = Enumeration::new(n, unique).unwrap();
    let mut found = Vec::new();
    for task in enumeration.tasks(n.min(3) - 1).unwrap() {
        let end = enumeration.each_solution(&task, |solution| {
            found.push(solution.columns().to_vec());
            ControlFlow::<()>::Continue(())
        });
        assert_eq!(end, Ok(ControlFlow::Continue(())));
    }
    found
}

fn count_placed(n: usize, queens: &[(usize, usize)], width: MaskWidth, depth: usize) -> u128 {
    let problem = Problem::new(n, Method::Plain)
        .and_then(|p| p.with_width(width))
        .and_then(|p| p.with_placement(queens))
        .unwrap();
    let counts = problem.tasks(depth).unwrap().iter().fold(Counts::default(), |sum, task| {
        sum.merge(&problem.solve(task, false).unwrap()).unwrap()
    });
    let outcome = problem.finish(&counts).unwrap();
    assert_eq!(outcome.unique, None, "a partial board has no unique count");
    outcome.total
}

#[test]
fn the_construction_solves_every_board_up_to_2000_and_some_large_ones() {
    let boards = (1..=2000).filter(|n| !matches!(n, 2 | 3));
    for n in boards.chain([99_999, 1_000_000, 1_000_001, 1_000_002, 1_000_003]) {
        match construct(n) {
            Ok(solution) => assert!(is_solution(solution.columns()), "N = {n}"),
            Err(error) => panic!("N = {n}: {error}"),
        }
    }
    for n in [2, 3] {
        assert_eq!(construct(n), Err(Error::NoSolution { n }));
    }
}

#[test]
fn random_solutions_are_valid_and_depend_on_the_seed_alone() {
    for n in [1, 4, 5, 6, 7, 8, 9, 10, 25, 100, 999, 5000] {
        let solution = random_solution(n, 2024).unwrap();
        assert!(is_solution(solution.columns()), "N = {n}");
        assert_eq!(random_solution(n, 2024).unwrap(), solution, "N = {n}");
    }
    let seeds: BTreeSet<Solution> =
        (0..10).map(|seed| random_solution(500, seed).unwrap()).collect();
    assert_eq!(seeds.len(), 10, "ten seeds gave only {} solutions", seeds.len());
}

#[test]
fn listing_gives_every_solution_once_in_order() {
    for n in 1..=10 {
        let all = listed(n, false);
        assert_eq!(all.len() as u128, known_counts(n).0, "N = {n}");
        assert!(all.iter().all(|s| is_solution(s)), "N = {n}");
        assert!(all.windows(2).all(|pair| pair[0] < pair[1]), "N = {n}: out of order or repeated");
        assert_eq!(all, all_solutions(n), "N = {n}");
    }
}

#[test]
fn unique_listing_gives_one_canonical_solution_per_class_in_order() {
    for n in 1..=10 {
        let unique = listed(n, true);
        assert_eq!(unique.len() as u128, known_counts(n).1, "N = {n}");
        assert!(unique.windows(2).all(|pair| pair[0] < pair[1]), "N = {n}");
        let mut classes = BTreeSet::new();
        for solution in &unique {
            let images = images(solution);
            assert!(is_solution(solution));
            assert_eq!(images.first(), Some(solution), "N = {n}: {solution:?} is not least");
            assert!(classes.insert(images), "N = {n}");
        }
    }
}

#[test]
fn placed_counts_equal_a_filter_of_all_solutions() {
    let mut random = XorShift::new(0x9e37_79b9_7f4a_7c15);
    for n in 1..=10 {
        let solutions = all_solutions(n);
        let mut tried = 0;
        while tried < 40 {
            let wanted = 1 + random.below(n.min(4));
            let mut queens: Vec<(usize, usize)> = Vec::new();
            while queens.len() < wanted {
                queens.push((random.below(n), random.below(n)));
            }
            let Ok(problem) = Problem::new(n, Method::Plain).unwrap().with_placement(&queens)
            else {
                continue;
            };
            tried += 1;
            let expected = solutions
                .iter()
                .filter(|s| queens.iter().all(|&(row, column)| s[row] == column))
                .count() as u128;
            for width in [MaskWidth::U64, MaskWidth::U128] {
                for depth in [0, n / 2, problem.max_depth()] {
                    assert_eq!(
                        count_placed(n, &queens, width, depth),
                        expected,
                        "N = {n}, queens {queens:?}, {width:?}, depth {depth}"
                    );
                }
            }
        }
    }
}

#[test]
fn placed_counts_beyond_64_columns_agree_with_an_independent_search() {
    for (n, open) in
        [(80, (0..10).collect::<Vec<_>>()), (100, vec![0, 7, 21, 33, 50, 51, 52, 77, 98, 99])]
    {
        let solution = random_solution(n, n as u64).unwrap();
        let queens: Vec<(usize, usize)> = (0..n)
            .filter(|row| !open.contains(row))
            .map(|row| (row, solution.columns()[row]))
            .collect();
        let mut board: Vec<Option<usize>> =
            (0..n).map(|row| Some(solution.columns()[row])).collect();
        for &row in &open {
            board[row] = None;
        }
        let expected = completions(&mut board, &open);
        assert!(expected >= 1, "the solution itself completes the board");
        for depth in [0, 5, n - 1] {
            assert_eq!(count_placed(n, &queens, MaskWidth::U128, depth), expected, "N = {n}");
        }
    }
}

#[test]
fn impossible_placements_and_symmetric_methods_are_refused() {
    let plain = Problem::new(8, Method::Plain).unwrap();
    assert_eq!(
        plain.with_placement(&[(0, 0), (3, 3)]).err(),
        Some(Error::Placement {
            n: 8,
            conflict: Conflict::Diagonal { first: (0, 0), second: (3, 3) }
        })
    );
    assert_eq!(
        Problem::new(8, Method::Eightfold).unwrap().with_placement(&[(0, 0)]).err(),
        Some(Error::PlacementMethod { method: "eightfold" })
    );
    let placed = plain.with_placement(&[(0, 0)]).unwrap();
    let foreign = Problem::new(8, Method::Plain).unwrap().tasks(1).unwrap();
    assert!(placed.solve(&foreign[1], false).is_err(), "a task off the fixed queen");
    assert_eq!(placed.tasks(1).unwrap().len(), 1);
}
