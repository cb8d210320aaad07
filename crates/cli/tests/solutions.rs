//! `nqueens solve`, `list`, `verify` and `count --place`, run as a user would, with every
//! solution checked by the independent oracles of `nqueens-test-support`.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

use nqueens_test_support::{
    XorShift, completions, images, is_solution, known_counts, output_with_input,
};
use serde_json::Value;

fn nqueens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args).output().expect("nqueens runs")
}

fn nqueens_with_input(args: &[&str], input: &str) -> Output {
    output_with_input(Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args), input.as_bytes())
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The stdout of a run that must succeed.
fn success(args: &[&str]) -> String {
    let output = nqueens(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    stdout(&output)
}

/// Asserts a failure with one line on stderr holding `expected`, and nothing on stdout.
fn assert_refused(output: &Output, expected: &str) {
    let message = stderr(output);
    assert!(!output.status.success(), "succeeded, expected {expected:?}");
    assert_eq!(message.lines().count(), 1, "{message}");
    assert!(message.contains(expected), "{message:?} lacks {expected:?}");
    assert!(!message.contains("panicked"), "{message}");
    assert!(output.stdout.is_empty());
}

/// A line of columns counted from 1, as `solve` and `list` print them, 0-based.
fn columns(line: &str) -> Vec<usize> {
    line.split(' ').map(|c| c.parse::<usize>().unwrap() - 1).collect()
}

#[test]
fn solve_prints_a_valid_solution_for_every_board_up_to_2000() {
    let boards: Vec<usize> = (1..=2000).filter(|n| !matches!(n, 2 | 3)).collect();
    std::thread::scope(|scope| {
        for share in boards.chunks(boards.len().div_ceil(4)) {
            scope.spawn(move || {
                for &n in share {
                    let text = success(&["solve", &n.to_string()]);
                    assert!(is_solution(&columns(text.trim_end())), "N = {n}: {text}");
                    assert_eq!(text.lines().count(), 1);
                }
            });
        }
    });
}

#[test]
fn solve_handles_very_large_boards() {
    for n in [100_003, 1_000_000, 10_000_000] {
        let text = success(&["solve", &n.to_string()]);
        let solution = columns(text.trim_end());
        assert_eq!(solution.len(), n);
        assert!(is_solution(&solution), "N = {n}");
    }
}

#[test]
fn solve_says_when_there_is_no_solution() {
    for n in ["2", "3"] {
        assert_refused(&nqueens(&["solve", n]), &format!("there is no solution for N = {n}"));
    }
    assert_refused(&nqueens(&["solve", "0"]), "N must be at least 1");
    assert_refused(&nqueens(&["solve", "100000001"]), "at most 100000000");
    assert_refused(&nqueens(&["solve", "10000001", "--random"]), "at most 10000000");
}

#[test]
fn solve_draws_the_board_or_prints_json() {
    assert_eq!(success(&["solve", "4", "--board"]), ". Q . .\n. . . Q\nQ . . .\n. . Q .\n");
    let json: Value = serde_json::from_str(&success(&["solve", "8", "--json"])).unwrap();
    assert_eq!(json, serde_json::json!({"n": 8, "columns": [2, 4, 6, 8, 3, 1, 7, 5]}));
    assert_eq!(success(&["solve", "40", "--board"]).lines().count(), 40);
    assert_refused(&nqueens(&["solve", "41", "--board"]), "drawn up to N = 40");
    // The last format given wins, as with any repeated option.
    assert_eq!(success(&["solve", "8", "--board", "--json"]), success(&["solve", "8", "--json"]));
}

#[test]
fn random_solutions_are_valid_and_follow_the_seed() {
    for n in ["1", "4", "5", "8", "13", "100", "5000"] {
        let first = success(&["solve", n, "--random", "--seed", "11"]);
        assert!(is_solution(&columns(first.trim_end())), "N = {n}");
        assert_eq!(success(&["solve", n, "--random", "--seed", "11"]), first, "N = {n}");
    }
    let seeds: BTreeSet<String> = (0..8)
        .map(|seed| success(&["solve", "300", "--random", "--seed", &seed.to_string()]))
        .collect();
    assert_eq!(seeds.len(), 8);
    let constructed = success(&["solve", "300"]);
    assert!(!seeds.contains(&constructed));
    assert_refused(&nqueens(&["solve", "8", "--seed", "1"]), "--random");
    assert_refused(&nqueens(&["solve", "3", "--random"]), "no solution");
}

fn listed(n: usize, extra: &[&str]) -> Vec<Vec<usize>> {
    let n = n.to_string();
    success(&[&["list", n.as_str()], extra].concat()).lines().map(columns).collect()
}

#[test]
fn list_gives_every_solution_once_in_lexicographic_order() {
    for n in 1..=10 {
        let all = listed(n, &[]);
        assert_eq!(all.len() as u128, known_counts(n).0, "N = {n}");
        assert!(all.iter().all(|s| is_solution(s)), "N = {n}");
        assert!(all.windows(2).all(|pair| pair[0] < pair[1]), "N = {n}: order or repeats");
    }
}

#[test]
fn list_unique_gives_one_least_image_per_class() {
    for n in 1..=10 {
        let unique = listed(n, &["--unique"]);
        assert_eq!(unique.len() as u128, known_counts(n).1, "N = {n}");
        assert!(unique.windows(2).all(|pair| pair[0] < pair[1]), "N = {n}");
        let mut classes = BTreeSet::new();
        for solution in unique {
            let images = images(&solution);
            assert!(is_solution(&solution));
            assert_eq!(images.first(), Some(&solution), "N = {n}: not the least image");
            assert!(classes.insert(images), "N = {n}: two of one class");
        }
    }
}

#[test]
fn list_order_does_not_depend_on_the_threads() {
    let one = success(&["list", "9", "--threads", "1"]);
    for threads in ["2", "3", "8"] {
        assert_eq!(success(&["list", "9", "--threads", threads]), one, "{threads} threads");
    }
}

#[test]
fn list_formats_and_limit() {
    assert_eq!(success(&["list", "8", "--limit", "2"]), "1 5 8 6 3 7 2 4\n1 6 8 3 7 4 2 5\n");
    assert_eq!(success(&["list", "8", "--limit", "0"]), "");
    assert_eq!(success(&["list", "3"]), "");
    assert_eq!(
        success(&["list", "4", "--format", "board"]),
        ". Q . .\n. . . Q\nQ . . .\n. . Q .\n\n. . Q .\nQ . . .\n. . . Q\n. Q . .\n\n"
    );
    let lines: Vec<Value> = success(&["list", "6", "--format", "json"])
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    assert_eq!(lines.len(), 4);
    assert_eq!(lines[0], serde_json::json!({"n": 6, "columns": [2, 4, 6, 1, 3, 5]}));
    assert_refused(&nqueens(&["list", "41", "--format", "board"]), "drawn up to N = 40");
    assert_refused(&nqueens(&["list", "129"]), "between 1 and 128");
    assert_refused(&nqueens(&["list", "8", "--format", "svg"]), "invalid value 'svg'");
}

#[test]
fn list_ends_quietly_when_the_reader_goes_away() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(["list", "16"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut first).unwrap();
    assert!(is_solution(&columns(first.trim_end())));
    let output = child.wait_with_output().unwrap();
    assert!(output.status.success(), "{:?}: {}", output.status, stderr(&output));
    assert_eq!(stderr(&output), "");
}

#[test]
fn verify_names_the_first_pair_that_attack_each_other() {
    let cases: &[(&[&str], &str)] = &[
        (&["2", "4", "1", "3"], "solution (N = 4)\n"),
        (&["2,4,1,3"], "solution (N = 4)\n"),
        (&["1"], "solution (N = 1)\n"),
        (
            &["1", "3", "5", "2", "1"],
            "not a solution: queens at row 1 column 1 and row 5 column 1 share a column\n",
        ),
        (
            &["1", "3", "2"],
            "not a solution: queens at row 2 column 3 and row 3 column 2 share a diagonal\n",
        ),
        (
            &["2", "4", "6", "1", "5", "3"],
            "not a solution: queens at row 4 column 1 and row 6 column 3 share a diagonal\n",
        ),
        (&["2", "4", "1", "5"], "not a solution: the queen at row 4 column 5 is off the board\n"),
    ];
    for (args, expected) in cases {
        let output = nqueens(&[&["verify"], *args].concat());
        assert_eq!(stdout(&output), *expected, "{args:?}");
        assert_eq!(output.status.success(), expected.starts_with("solution"), "{args:?}");
    }
}

#[test]
fn verify_reads_one_placement_per_line_from_stdin() {
    let output = nqueens_with_input(&["verify"], "2 4 1 3\n\n1 2\n3 1 4 2\n");
    assert_eq!(
        stdout(&output),
        "line 1: solution (N = 4)\n\
         line 3: not a solution: queens at row 1 column 1 and row 2 column 2 share a diagonal\n\
         line 4: solution (N = 4)\n"
    );
    assert_eq!(output.status.code(), Some(1));
    let all_good = nqueens_with_input(&["verify"], &success(&["list", "8"]));
    assert_eq!(stdout(&all_good).lines().count(), 92);
    assert!(all_good.status.success());
}

#[test]
fn verify_refuses_malformed_input_clearly() {
    let cases: &[(&[&str], &str, &str)] = &[
        (&["verify", "2", "x", "1"], "", "'x' is not a column"),
        (&["verify", "2", "0", "1"], "", "'0' is not a column"),
        (&["verify", "1.5"], "", "'1.5' is not a column"),
        (&["verify", ""], "", "no columns given"),
        (&["verify"], "", "no placements on standard input"),
        (&["verify"], "2 4 1 3\n2 4 one 3\n", "line 2: 'one' is not a column"),
    ];
    for (args, input, expected) in cases {
        let output = nqueens_with_input(args, input);
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{args:?} {input:?}: {message}");
        assert_eq!(message.lines().count(), 1, "{message}");
        assert!(message.contains(expected), "{message:?} lacks {expected:?}");
    }
}

fn place_arg(queens: &[(usize, usize)]) -> String {
    let pairs: Vec<String> = queens.iter().map(|(r, c)| format!("{}:{}", r + 1, c + 1)).collect();
    pairs.join(",")
}

fn placed_total(n: usize, queens: &[(usize, usize)], extra: &[&str]) -> u128 {
    let (n, place) = (n.to_string(), place_arg(queens));
    let args = [&["count", n.as_str(), "--place", place.as_str(), "--json"], extra].concat();
    let json: Value = serde_json::from_str(&success(&args)).unwrap();
    assert_eq!(json["unique"], Value::Null);
    assert_eq!(json["method"], "plain");
    u128::from(json["total"].as_u64().unwrap())
}

#[test]
fn placed_counts_equal_a_filter_of_the_listed_solutions() {
    let mut random = XorShift::new(0x2545_f491_4f6c_dd1d);
    for n in 4..=10 {
        let all = listed(n, &[]);
        let mut tried = 0;
        while tried < 6 {
            let queens: Vec<(usize, usize)> =
                (0..1 + random.below(3)).map(|_| (random.below(n), random.below(n))).collect();
            let attack = queens.iter().enumerate().any(|(i, a)| {
                queens[..i]
                    .iter()
                    .any(|b| a.0 == b.0 || a.1 == b.1 || a.0.abs_diff(b.0) == a.1.abs_diff(b.1))
            });
            if attack {
                continue;
            }
            tried += 1;
            let expected = all.iter().filter(|s| queens.iter().all(|&(r, c)| s[r] == c)).count();
            assert_eq!(placed_total(n, &queens, &[]), expected as u128, "N = {n}, {queens:?}");
        }
    }
}

#[test]
fn placed_counts_beyond_64_columns_agree_with_an_independent_search() {
    let n = 90;
    let solution = columns(success(&["solve", "90", "--random", "--seed", "5"]).trim_end());
    let open = [0, 1, 2, 3, 40, 41, 42, 87, 88, 89];
    let queens: Vec<(usize, usize)> =
        (0..n).filter(|row| !open.contains(row)).map(|row| (row, solution[row])).collect();
    let mut board: Vec<Option<usize>> = solution.iter().map(|&c| Some(c)).collect();
    for &row in &open {
        board[row] = None;
    }
    let expected = completions(&mut board, &open);
    assert!(expected >= 1);
    assert_eq!(placed_total(n, &queens, &[]), expected);
    assert_eq!(placed_total(n, &queens, &["--threads", "3", "--depth", "20"]), expected);
}

#[test]
fn a_placed_count_says_unique_is_not_defined() {
    let output = nqueens(&["count", "8", "--place", "1:1", "--threads", "1", "--kernel", "scalar"]);
    let text = stdout(&output);
    let expected = "N=8 place=1:1 total=4 method=plain kernel=scalar threads=1 elapsed=";
    assert!(text.starts_with(expected), "{text}");
    // The result line holds only key=value fields; the note is for the reader, on stderr.
    assert!(text.split_whitespace().all(|field| field.contains('=')), "{text}");
    assert!(stderr(&output).contains("note: no unique count"), "{}", stderr(&output));
    let json: Value = serde_json::from_str(&success(&[
        "count", "8", "--place", "5:3", "--place", "1:1", "--json",
    ]))
    .unwrap();
    assert_eq!(json["placement"], serde_json::json!([[1, 1], [5, 3]]));
    let plain: Value = serde_json::from_str(&success(&["count", "8", "--json"])).unwrap();
    assert!(plain.get("placement").is_none(), "no placement key without --place");
}

#[test]
fn impossible_placements_are_refused_with_the_conflict() {
    let cases: &[(&[&str], &str)] = &[
        (
            &["count", "8", "--place", "1:1,2:2"],
            "queens at row 1 column 1 and row 2 column 2 share a diagonal",
        ),
        (
            &["count", "8", "--place", "3:1,3:5"],
            "queens at row 3 column 1 and row 3 column 5 share a row",
        ),
        (
            &["count", "8", "--place", "1:4,8:4"],
            "queens at row 1 column 4 and row 8 column 4 share a column",
        ),
        (&["count", "8", "--place", "9:1"], "the queen at row 9 column 1 is off the board"),
        (&["count", "8", "--place", "0:1"], "they count from 1"),
        (&["count", "8", "--place", "1-1"], "expected R:C"),
        (&["count", "8", "--place", "1:1", "--method", "eightfold"], "plain method, not eightfold"),
        (&["count", "129", "--place", "1:1"], "between 1 and 128"),
    ];
    for (args, expected) in cases {
        assert_refused(&nqueens(args), expected);
    }
}

#[test]
fn placed_shards_merge_and_never_mix_with_other_placements() {
    let dir = tempfile::tempdir().unwrap();
    let shard = |place: &str, index: usize| {
        let spec = format!("{index}/3");
        let text = success(&["count", "11", "--place", place, "--shard", &spec, "--json"]);
        let path = dir.path().join(format!("{place}-{index}.json"));
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let files: Vec<String> = (0..3).map(|i| shard("2:5", i)).collect();
    let merged: Value = serde_json::from_str(&success(
        &[&["merge", "--json"], &files.iter().map(String::as_str).collect::<Vec<_>>()[..]].concat(),
    ))
    .unwrap();
    assert_eq!(merged["total"].as_u64().map(u128::from), Some(placed_total(11, &[(1, 4)], &[])));
    assert_eq!(merged["unique"], Value::Null);
    assert_eq!(merged["placement"], serde_json::json!([[2, 5]]));

    let foreign = shard("2:6", 2);
    let output = nqueens(&["merge", &files[0], &files[1], &foreign]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("is from a different run"), "{}", stderr(&output));

    let checkpoint = dir.path().join("placed.ckpt");
    let checkpoint = checkpoint.to_str().unwrap();
    success(&["count", "10", "--place", "1:1", "--checkpoint", checkpoint]);
    let output = nqueens(&["count", "10", "--place", "1:2", "--checkpoint", checkpoint]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("placement is '1:1' there but '1:2' here"),
        "{}",
        stderr(&output)
    );
    let output = nqueens(&["count", "10", "--checkpoint", checkpoint]);
    assert!(!output.status.success(), "an unplaced run resumed a placed checkpoint");
}
