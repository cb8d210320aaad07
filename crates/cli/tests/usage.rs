//! The command line as a user of ripgrep or cargo would expect it: tips that help, the last
//! of a repeated option winning, completions for every list of values, one verdict per
//! placement given to `verify`, and one way to choose an output format.

use std::process::{Command, Output};

use serde_json::Value;

fn nqueens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args).output().expect("nqueens runs")
}

fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn success(args: &[&str]) -> String {
    let output = nqueens(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    stdout(&output)
}

#[test]
fn verify_judges_each_argument_as_a_placement_in_any_format() {
    let output = nqueens(&["verify", "2 4 1 3", "1 2 3 4"]);
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "argument 1: solution (N = 4)\nargument 2: not a solution: queens at row 1 column 1 \
         and row 2 column 2 share a diagonal\n"
    );
    // Columns one per argument are still one placement.
    assert_eq!(success(&["verify", "2", "4", "1", "3"]), "solution (N = 4)\n");

    let json = success(&["solve", "8", "--json"]);
    let board = success(&["solve", "5", "--board"]);
    let judged = success(&["verify", json.trim(), &board, "3,1,4,2"]);
    assert_eq!(
        judged,
        "argument 1: solution (N = 8)\nargument 2: solution (N = 5)\nargument 3: solution \
         (N = 4)\n"
    );
    let refused = nqueens(&["verify", "2 4 1 3", "{\"columns\": [2, 4"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).starts_with("nqueens: argument 2: not a JSON object"), "{}", {
        stderr(&refused)
    });
    assert!(refused.stdout.is_empty(), "no verdict before the arguments are all read");
    // Lines of placements in one argument, as `$(nqueens list 6)` gives: a usage error
    // that says how to get a verdict on each.
    let listed = success(&["list", "6"]);
    let refused = nqueens(&["verify", &listed]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("holds 4 placements on 4 lines"), "{}", stderr(&refused));
}

#[test]
fn an_option_of_another_subcommand_gets_a_tip_naming_it() {
    for (args, tip) in [
        (&["estimate", "20", "--shard", "0/2"][..], "tip: --shard is an option of nqueens count"),
        (&["estimate", "20", "--place", "1:1"], "tip: --place is an option of nqueens count"),
        (&["solve", "8", "--limit", "3"], "tip: --limit is an option of nqueens list"),
    ] {
        let output = nqueens(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let message = stderr(&output);
        assert!(message.lines().nth(1) == Some(&format!("  {tip}")[..]), "{args:?}: {message}");
        assert_eq!(message.lines().count(), 2, "{args:?}: {message}");
    }
    // clap's own suggestion where the name is close, never its `-- --option` workaround.
    let message = stderr(&nqueens(&["count", "8", "--thread", "2"]));
    assert!(message.contains("tip: a similar argument exists: '--threads'"), "{message}");
    for args in [&["count", "8", "--frobnicate"][..], &["merge", "--json", "--shard"]] {
        let message = stderr(&nqueens(args));
        assert!(!message.contains("-- --"), "{args:?}: {message}");
    }
}

#[test]
fn completions_offer_the_values_of_every_list() {
    let lists = [
        ("method", "auto join eightfold half plain"),
        ("kernel", "auto avx512 avx2 scalar"),
        ("symmetric", "half-turn quarter-turn"),
        ("progress", "auto bar log never"),
        ("format", "text board json"),
    ];
    let bash = success(&["completions", "bash"]);
    let zsh = success(&["completions", "zsh"]);
    let fish = success(&["completions", "fish"]);
    for (option, values) in lists {
        assert!(bash.contains(&format!("compgen -W \"{values}\"")), "bash: --{option}");
        assert!(zsh.contains(&format!(":({values})'")), "zsh: --{option}");
        let first = values.split(' ').next().unwrap();
        let fish_line = fish.lines().find(|line| line.contains(&format!(" -l {option} ")));
        assert!(
            fish_line.is_some_and(|line| line.contains(&format!("-a \"{first}"))),
            "fish: --{option}: {fish_line:?}"
        );
    }
    // Options that take numbers complete no file names.
    for option in ["threads", "depth", "shard", "audit", "task", "max-memory"] {
        let lines: Vec<&str> =
            fish.lines().filter(|l| l.contains(&format!(" -l {option} "))).collect();
        assert!(!lines.is_empty() && lines.iter().all(|l| l.ends_with(" -f")), "fish: --{option}");
    }
    let colon = zsh.lines().find(|line| line.contains("--place=")).unwrap_or_default();
    assert!(!colon.contains(":R:C"), "zsh: a colon in --place's value name: {colon}");
}

#[test]
fn the_last_of_a_repeated_option_wins() {
    let output = nqueens(&["count", "8", "-q", "-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let output = nqueens(&["count", "8", "--progress", "log", "--progress", "never"]);
    assert!(output.status.success() && output.stderr.is_empty(), "{}", stderr(&output));
    let output = nqueens(&["count", "8", "--progress", "log", "-q"]);
    assert!(output.status.success() && output.stderr.is_empty(), "{}", stderr(&output));
    let output = nqueens(&["count", "8", "-q", "--progress", "log"]);
    assert!(stderr(&output).contains("100.0% done"), "{}", stderr(&output));
    assert_eq!(success(&["solve", "6", "--json", "--format", "text"]), "2 4 6 1 3 5\n");
    assert_eq!(success(&["list", "6", "--limit", "1", "--limit", "2"]).lines().count(), 2);
    // An option that adds up keeps adding up.
    let placed = success(&["count", "8", "--place", "1:1", "--place", "2:5", "--json"]);
    let placed: Value = serde_json::from_str(&placed).unwrap();
    assert_eq!(placed["placement"], serde_json::json!([[1, 1], [2, 5]]));
}

#[test]
fn solve_and_list_take_the_same_format_options() {
    for (format, shorthand) in [("json", "--json"), ("board", "--board")] {
        let solve = success(&["solve", "6", "--format", format]);
        assert_eq!(solve, success(&["solve", "6", shorthand]), "{format}");
        let list = success(&["list", "6", "--limit", "2", "--format", format]);
        assert_eq!(list, success(&["list", "6", "--limit", "2", shorthand]), "{format}");
    }
    assert_eq!(
        success(&["list", "6", "--json", "--limit", "1"]),
        "{\"n\":6,\"columns\":[2,4,6,1,3,5]}\n"
    );
}

#[test]
fn symmetric_counts_take_the_plain_method_they_run() {
    let text = success(&["count", "8", "--symmetric", "half-turn", "--method", "plain"]);
    assert!(text.starts_with("N=8 symmetric=half-turn total=4 method=plain "), "{text}");
    let output = nqueens(&["count", "8", "--symmetric", "half-turn", "--method", "join"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--method plain"), "{}", stderr(&output));
}

#[test]
fn the_short_version_names_the_commit_and_the_engine() {
    let short = success(&["-V"]);
    assert_eq!(short.lines().count(), 1, "{short}");
    assert!(short.contains("(commit ") && short.contains(nqueens_core::ENGINE_IDENTITY), "{short}");
}

#[test]
fn a_different_run_names_the_fields_a_user_set_first() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.ckpt");
    let file = file.to_str().unwrap();
    success(&["count", "12", "--checkpoint", file, "-q"]);
    let output = nqueens(&["count", "11", "--checkpoint", file]);
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(message.contains("different run: n is '12' there but '11' here"), "{message}");
    // The method auto picks for N follows from N, and is no news of its own.
    let output = nqueens(&["count", "16", "--checkpoint", file]);
    let message = stderr(&output);
    assert!(
        message.contains("different run: n is '12' there but '16' here (and so its "),
        "{message}"
    );
    assert!(!message.contains("method is"), "{message}");
    let output = nqueens(&["count", "12", "--checkpoint", file, "--method", "plain", "--stats"]);
    let message = stderr(&output);
    let expected = "different run: method is 'eightfold' there but 'plain' here, stats is absent \
                    there but 'nodes counted' here (and so its task_digest)";
    assert!(message.contains(expected), "{message}");
}

#[test]
fn checkpoint_options_take_units_bounds_and_an_empty_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("made-by-mktemp.ckpt");
    std::fs::write(&file, "").unwrap();
    let file = file.to_str().unwrap();
    for every in ["30", "5s", "2.5m", "1h", "0.1", "1e3", "500ms", "1d"] {
        let output = nqueens(&["count", "10", "--checkpoint", file, "--checkpoint-every", every]);
        assert!(output.status.success(), "{every}: {}", stderr(&output));
    }
    for (every, expected) in [
        ("1e20", "outside 0.1s to 24h"),
        ("0.0001", "outside 0.1s to 24h"),
        ("1e-10", "outside 0.1s to 24h"),
        ("25h", "outside 0.1s to 24h"),
        ("2d", "outside 0.1s to 24h"),
        ("50ms", "outside 0.1s to 24h"),
        ("inf", "is not a time"),
        ("5x", "is not a time"),
    ] {
        let output = nqueens(&["count", "10", "--checkpoint", file, "--checkpoint-every", every]);
        assert_eq!(output.status.code(), Some(2), "{every}");
        assert!(stderr(&output).contains(expected), "{every}: {}", stderr(&output));
    }
}

/// The results of `count 13 --shard I/2 --json`, in `dir`.
fn shard_files(dir: &std::path::Path) -> [std::path::PathBuf; 2] {
    [0, 1].map(|index| {
        let path = dir.join(format!("shard-{index}.json"));
        std::fs::write(
            &path,
            success(&["count", "13", "--shard", &format!("{index}/2"), "--json"]),
        )
        .unwrap();
        path
    })
}

#[test]
fn merge_reads_results_joined_in_one_file() {
    let dir = tempfile::tempdir().unwrap();
    let [first, second] = shard_files(dir.path());
    let joined = dir.path().join("all.json");
    let text =
        std::fs::read_to_string(&first).unwrap() + &std::fs::read_to_string(&second).unwrap();
    std::fs::write(&joined, text).unwrap();
    let merged = success(&["merge", joined.to_str().unwrap()]);
    assert!(merged.starts_with("N=13 total=73712 unique=9233 "), "{merged}");
    // One of them given twice, as the second result of the joined file.
    let output = nqueens(&["merge", joined.to_str().unwrap(), second.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("all.json:2"), "{}", stderr(&output));
}

#[test]
fn merge_compare_gives_the_command_that_counts_a_differing_task_again() {
    let dir = tempfile::tempdir().unwrap();
    let [first, _] = shard_files(dir.path());
    let good = std::fs::read_to_string(&first).unwrap();
    let mut bad: Value = serde_json::from_str(&good).unwrap();
    let (index, counts) = bad["by_task"].as_object_mut().unwrap().iter_mut().nth(7).unwrap();
    let index: usize = index.parse().unwrap();
    counts["total"] = (counts["total"].as_u64().unwrap() + 1).into();
    let total = bad["total"].as_u64().unwrap() + 1;
    (bad["total"], bad["total_decimal"]) = (total.into(), total.to_string().into());
    bad["counts"]["total"] = total.into();
    let bad_path = dir.path().join("bad.json");
    std::fs::write(&bad_path, bad.to_string()).unwrap();

    let compared =
        nqueens(&["merge", "--compare", bad_path.to_str().unwrap(), first.to_str().unwrap()]);
    assert_eq!(compared.status.code(), Some(1));
    let text = stdout(&compared);
    let command = text.lines().last().and_then(|line| line.split('`').nth(1)).expect(&text);
    let depth = bad["depth"].to_string();
    let expected =
        format!("nqueens count 13 --method eightfold --depth {depth} --task {index} --json");
    assert_eq!(command, expected);

    // The command, run: its result holds against both, and agrees with the good one.
    let args: Vec<&str> = command.split(' ').skip(1).collect();
    let recount = dir.path().join("recount.json");
    std::fs::write(&recount, success(&args)).unwrap();
    let recount = recount.to_str().unwrap();
    let agreed = success(&["merge", "--compare", first.to_str().unwrap(), recount]);
    assert_eq!(agreed, "the 1 task agrees\n");
    let differs = nqueens(&["merge", "--compare", bad_path.to_str().unwrap(), recount]);
    assert_eq!(differs.status.code(), Some(1));
    // A count of chosen tasks is no shard to merge.
    let refused = nqueens(&["merge", recount]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(stderr(&refused).contains("count of chosen tasks"), "{}", stderr(&refused));
}
