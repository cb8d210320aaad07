//! The built `nqueens` binary, run as a user would.

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nqueens_test_support::{known_counts, pair_test_runs, processor_runs, say_refused};
use serde_json::Value;

fn nqueens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args).output().expect("nqueens runs")
}

fn json(args: &[&str]) -> Value {
    let output = nqueens(args);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// `(total, unique)` of a report, as [`known_counts`] gives them.
fn counts(value: &Value) -> (u128, u128) {
    let count = |name: &str| u128::from(value[name].as_u64().unwrap());
    (count("total"), count("unique"))
}

/// A report's node count.
fn nodes(value: &Value) -> u128 {
    u128::from(value["counts"]["nodes"].as_u64().unwrap())
}

#[test]
fn count_prints_one_line_with_every_field() {
    let output = nqueens(&["count", "8", "--threads", "1", "--kernel", "scalar"]);
    assert!(output.status.success());
    let text = String::from_utf8(output.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(
        text.starts_with(
            "N=8 total=92 unique=12 method=eightfold kernel=scalar threads=1 elapsed="
        ),
        "{text}"
    );
}

#[test]
fn count_json_has_the_documented_shape() {
    let value = json(&["count", "16", "--json"]);
    assert_eq!(counts(&value), (14_772_512, 1_846_955));
    assert_eq!(value["n"], 16);
    assert_eq!(value["method"], "join", "auto picks the join at N = 16");
    assert!(value["threads"].as_u64().unwrap() >= 1);
    assert!(value["elapsed_s"].as_f64().unwrap() > 0.0);
    assert_eq!(value["shard"], Value::Null);
    let host = &value["host"];
    assert!(!host["cpu_model"].as_str().unwrap().is_empty(), "{host}");
    assert!(host["logical_cpus"].as_u64().unwrap() >= 1, "{host}");
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    if cpuinfo.lines().any(|line| line.starts_with("cpu family")) {
        assert!(host["cpu_family"].as_u64().is_some(), "{host}");
        assert!(host["cpu_model_number"].as_u64().is_some(), "{host}");
    }
    let sets = host["instruction_sets"].as_array().unwrap();
    let kernel = value["kernel"].as_str().unwrap();
    if kernel != "scalar" {
        assert!(sets.iter().any(|set| set.as_str().unwrap().starts_with(kernel)), "{value}");
    }
}

#[test]
fn an_estimate_says_what_it_timed_below_the_tasks() {
    // Units of microseconds are timed with the tasks above them: "finer" tasks.
    for (what, sampled) in [("units", &["units", "finer"][..]), ("pieces", &["pieces"])] {
        let args = ["estimate", "16", "--method", "join", "--threads", "2", "--sample", what];
        let value = json(&[&args[..], &["--json"]].concat());
        let number = |name: &str| value[name].as_f64().unwrap_or_else(|| panic!("{name}"));
        assert!(sampled.contains(&value["sampled"].as_str().unwrap()), "{value}");
        assert!(number("core_hours") > 0.0 && number("predicted_wall_s") > 0.0);
        assert!(number("sampled_count") >= 1.0);
        assert!(number("estimate_s") >= number("sample_s"), "{value}");
    }
}

/// `--timings` writes the timings the estimate rests on: as many as it says it sampled,
/// each from a task of its list, and each stratum's mean cost times its tasks adds up to
/// its core time by the timings alone.
#[test]
fn an_estimates_timings_are_the_ones_it_weighed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("timings.json");
    let file = path.to_str().unwrap();
    let args = ["estimate", "16", "--method", "join", "--threads", "2", "--sample", "pieces"];
    let value = json(&[&args[..], &["--json", "--timings", file]].concat());
    let written: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    let timings = written["timings"].as_array().unwrap();
    assert_eq!(timings.len() as u64, value["sampled_count"].as_u64().unwrap());
    for field in ["n", "method", "kernel", "seed", "sampled", "sampled_list_tasks", "engine"] {
        assert_eq!(written[field], value[field], "{field}");
    }
    // 128 tasks in 64 strata of two.
    assert_eq!(value["sampled_list_tasks"], 128);
    let mut strata = vec![(0.0, 0usize); 64];
    for timing in timings {
        let stratum = timing["stratum"].as_u64().unwrap() as usize;
        assert_eq!(stratum, timing["list_task"].as_u64().unwrap() as usize / 2, "{timing}");
        strata[stratum].0 += timing["cost"].as_f64().unwrap();
        strata[stratum].1 += 1;
    }
    let all = strata.iter().map(|s| s.0).sum::<f64>() / timings.len() as f64;
    let work: f64 = (strata.iter())
        .map(|&(sum, count)| 2.0 * if count > 0 { sum / count as f64 } else { all })
        .sum();
    let hours = value["core_hours_by_time_alone"].as_f64().unwrap();
    assert!((work / 3600.0 / hours - 1.0).abs() < 1e-9, "{work} s for {hours} core-hours");
}

/// Where the sample timed pieces, a check times pieces of each unit it draws, none twice:
/// at N = 16 they take microseconds, so every piece of each, and its prediction has no
/// sampling error left. Above the units (`--depth`), as many units as the check allows a
/// task (256, the most), each timed as a checked unit is: every piece.
#[test]
fn a_check_of_short_pieces_times_every_piece_of_its_units() {
    let args = ["estimate", "16", "--method", "join", "--threads", "2", "--sample", "pieces"];
    let checked = [&args[..], &["--check", "2"]].concat();
    let value = json(&[&checked[..], &["--json"]].concat());
    let check = &value["check"];
    assert_eq!(check["timed"], "pieces", "{check}");
    for task in check["tasks"].as_array().unwrap() {
        assert_eq!(task["timed_below"], 16, "{task}");
        assert_eq!(task["predicted_error_s"], 0.0, "{task}");
    }
    let text = String::from_utf8(nqueens(&checked).stdout).unwrap();
    assert_eq!(text.matches("from 16 pieces timed, counted").count(), 2, "{text}");
    // Tasks of the count's list, above their units: each descent reaches a unit of its
    // own, the units differ, and each unit's pieces are all timed.
    let depth = value["depth"].to_string();
    let above = json(&[&checked[..], &["--depth", &depth, "--json"]].concat());
    let tasks = above["check"]["tasks"].as_array().unwrap();
    assert!(tasks.iter().all(|task| task["timed_below"] == 256 * 16), "{above}");
    assert!(tasks.iter().any(|task| task["predicted_error_s"].as_f64().unwrap() > 0.0));
}

/// `--check` counts the tasks it draws whole: each one's solutions are what a count of
/// that task alone finds, its ratio is of the sums, each task standing for its stratum of
/// the count's list, and the plan is corrected by it.
#[test]
fn a_check_counts_its_tasks_whole_and_corrects_the_plan() {
    let args = ["estimate", "16", "--method", "join", "--threads", "2", "--check", "3", "--json"];
    let value = json(&args);
    let check = &value["check"];
    let tasks = check["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 3, "{check}");
    let depth = check["depth"].as_u64().unwrap().to_string();
    assert_eq!(check["depth"], value["depth"], "N = 16 checks tasks of the count's list");
    let (mut predicted, mut counted, mut weights, mut solutions) = (0.0, 0.0, 0.0, 0.0);
    for task in tasks {
        let index = task["index"].as_u64().unwrap().to_string();
        let alone = json(
            &["count", "16", "--method", "join", "--depth", &depth, "--task", &index]
                .iter()
                .chain(&["--json"])
                .copied()
                .collect::<Vec<_>>(),
        );
        assert_eq!(task["total"], alone["counts"]["total"], "task {index}: {task}");
        let weight = task["weight"].as_f64().unwrap();
        predicted += weight * task["predicted_s"].as_f64().unwrap();
        counted += weight * task["counted_s"].as_f64().unwrap();
        weights += weight;
        solutions += weight * task["total"].as_f64().unwrap();
    }
    let number = |value: &Value, name: &str| value[name].as_f64().unwrap();
    assert_eq!(weights, number(check, "list_tasks"), "{check}");
    let ratio = number(check, "ratio");
    assert!((ratio - counted / predicted).abs() < 1e-9 * ratio, "{check}");
    assert!(number(check, "ratio_low") <= ratio && ratio <= number(check, "ratio_high"));
    let corrected = number(&value["corrected"]["wall"], "expected");
    let planned = number(&value, "predicted_wall_s");
    assert!((corrected - planned * ratio).abs() < 1e-9 * corrected.max(1e-12), "{value}");
    // The checked tasks' own cost per solution, and the plan by it: that cost times the
    // 14,772,512 solutions of N = 16.
    let per_solution: Vec<f64> = check["core_ns_per_solution"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let weighed = 1e9 * counted / solutions;
    assert!((per_solution[0] - weighed).abs() < 1e-9 * weighed, "{check}");
    assert!(per_solution[1] <= per_solution[0] && per_solution[0] <= per_solution[2]);
    let by_solutions = number(&value["by_solutions"]["core_hours"], "expected");
    let expected = per_solution[0] * 1e-9 * 14_772_512.0 / 3600.0;
    assert!((by_solutions - expected).abs() < 1e-9 * expected, "{value}");

    let text = String::from_utf8(nqueens(&args[..args.len() - 1]).stdout).unwrap();
    assert_eq!(text.matches("checked task ").count(), 3, "{text}");
    assert!(
        text.contains("times the predicted time") && text.contains("corrected: about"),
        "{text}"
    );
    assert!(text.contains("by the checked tasks' own cost per solution"), "{text}");
}

/// `--profile` profiles each checked task: its parts' times add up to its own, its
/// solutions are the task's, and the check's profile is the sum of its tasks'.
#[test]
fn a_profiled_check_says_where_each_tasks_time_and_work_went() {
    let args = ["estimate", "16", "--method", "join", "--threads", "2", "--check", "2"];
    let value = json(&[&args[..], &["--profile", "--json"]].concat());
    let check = &value["check"];
    let counter = |profile: &Value, name: &str| {
        let counters = profile["counters"].as_array().unwrap();
        let found = counters.iter().find(|c| c["name"] == name).unwrap_or_else(|| panic!("{name}"));
        found["value"].as_u64().unwrap()
    };
    let (mut solutions, mut pairs) = (0, 0);
    for task in check["tasks"].as_array().unwrap() {
        let profile = &task["profile"];
        let seconds = profile["seconds"].as_f64().unwrap();
        assert_eq!(seconds, task["counted_s"].as_f64().unwrap(), "{task}");
        let parts: Vec<f64> = profile["parts"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["seconds"].as_f64().unwrap())
            .collect();
        assert!(parts.len() > 2 && parts.iter().all(|&p| p >= 0.0), "{profile}");
        assert!(
            (parts.iter().sum::<f64>() - seconds).abs() <= 1e-6 * seconds.max(1.0),
            "{profile}"
        );
        assert_eq!(
            u128::from(counter(profile, "solutions")),
            task["total"].as_u64().unwrap().into()
        );
        assert!(counter(profile, "pairs tested") >= counter(profile, "group tests"), "{profile}");
        assert!(counter(profile, "lookups") >= counter(profile, "group tests"), "{profile}");
        solutions += counter(profile, "solutions");
        pairs += counter(profile, "pairs tested");
    }
    assert_eq!(counter(&check["profile"], "solutions"), solutions, "{check}");
    assert_eq!(counter(&check["profile"], "pairs tested"), pairs, "{check}");

    let text = String::from_utf8(nqueens(&[&args[..], &["--profile"]].concat()).stdout).unwrap();
    assert!(
        text.contains("profile of the checked tasks: ") && text.contains("pair count "),
        "{text}"
    );
    assert!(text.contains("per solution: ") && text.contains("lookups "), "{text}");
    let unchecked = nqueens(&["estimate", "16", "--profile"]);
    assert_eq!(unchecked.status.code(), Some(2), "--profile needs --check: {}", stderr(&unchecked));
}

#[test]
fn a_cluster_adds_its_prediction_and_leaves_the_machines_sample_alone() {
    // The cluster's list of 500 machines is about a hundred times finer than the count's.
    let sampled = |cores: &[&str]| {
        let mut args = vec!["estimate", "17", "--threads", "2", "--json"];
        args.extend_from_slice(cores);
        let value = json(&args);
        (value["depth"].clone(), value["sampled_list_tasks"].clone(), value["cluster"].clone())
    };
    let (depth, list, cluster) = sampled(&[]);
    assert!(cluster.is_null());
    let (depth_with, list_with, cluster) = sampled(&["--cores", "1000"]);
    assert_eq!((depth_with, list_with), (depth, list));
    assert_eq!(cluster["processes"], 500);
}

#[test]
fn estimate_json_has_the_documented_shape() {
    for method in ["join", "eightfold"] {
        let value = json(&[
            "estimate",
            "13",
            "--method",
            method,
            "--threads",
            "2",
            "--cores",
            "8",
            "--json",
        ]);
        let number =
            |name: &str| value[name].as_f64().unwrap_or_else(|| panic!("{method}: {name}"));
        assert_eq!(value["n"], 13);
        assert_eq!(value["method"], method);
        assert_eq!(value["threads"], 2);
        assert!(number("predicted_wall_s_low") <= number("predicted_wall_s"));
        assert!(number("predicted_wall_s") <= number("predicted_wall_s_high"));
        assert!(number("predicted_wall_s") > 0.0);
        assert!(number("core_hours_low") <= number("core_hours"));
        assert!(number("core_hours") <= number("core_hours_high"));
        assert!(number("peak_memory_bytes") > 0.0);
        assert!(number("sampled_count") >= 1.0);
        // Units and pieces below the tasks may outnumber them; whole tasks cannot.
        match value["sampled"].as_str().unwrap() {
            "tasks" => assert!(number("sampled_count") <= number("sampled_list_tasks")),
            "units" | "finer" | "pieces" => assert_eq!(method, "join", "{value}"),
            other => panic!("{method} sampled {other}"),
        }
        assert!(number("estimate_s") > 0.0, "{value}");
        assert!(number("core_hours_by_time_alone_low") <= number("core_hours_by_time_alone"));
        assert!(number("core_hours_by_time_alone") <= number("core_hours_by_time_alone_high"));
        // The join's sample weighs its time against the published 73,712 solutions; whole
        // tasks (backtracking) are timed alone.
        if method == "join" {
            assert_eq!(number("solutions"), 73_712.0, "{value}");
            assert_eq!(value["solutions_published"], true, "{value}");
            assert_eq!(number("solutions_error"), 0.0, "{value}");
            let per_solution = number("core_ns_per_solution") * 1e-9 * number("solutions");
            assert!((per_solution / 3600.0 / number("core_hours") - 1.0).abs() < 1e-9);
        } else {
            assert!(value["core_ns_per_solution"].is_null() && value["solutions"].is_null());
            assert_eq!(value["solutions_published"], false, "{value}");
            assert_eq!(number("core_hours"), number("core_hours_by_time_alone"), "{value}");
        }
        assert!(value["check"].is_null() && value["corrected"].is_null(), "{value}");
        assert!(value["host"]["instruction_sets"].is_array(), "{method}: {value}");
        assert_eq!(value["cluster"]["cores"], 8);
        assert_eq!(value["cluster"]["processes"], 4);
        assert!(value["cluster"]["predicted_wall_s"].as_f64().unwrap() > 0.0);
    }
}

#[test]
fn bad_input_is_one_clear_line_and_a_failure() {
    let cases: &[(&[&str], &str)] = &[
        (&["count", "0"], "between 1 and 128"),
        (&["count", "200"], "between 1 and 128"),
        (&["count", "abc"], "invalid value 'abc'"),
        (&["count", "-3"], "'-3' is not a board size"),
        (&["count", "8", "--threads", "-1"], "'-1' is negative"),
        (&["count", "8", "--method", "fast"], "unknown method 'fast'"),
        (&["count", "8", "--kernel", "gpu"], "unknown kernel 'gpu'"),
        (&["count", "30", "--method", "eightfold", "--kernel", "avx2"], "use --kernel auto"),
        (&["count", "8", "--bogus"], "unexpected argument '--bogus'"),
        (&["count", "8", "--threads", "0"], "'0' for '--threads <T>': must be at least 1"),
        (&["count", "8", "--shard", "3/3"], "shard 3/3 does not exist"),
        (&["count", "8", "--shard", "x"], "I/M"),
        (&["count", "8", "--depth", "9"], "split depth must be between 0 and 7"),
        (&["count", "8", "--method", "join", "--depth", "9"], "between 0 and 8"),
        (&["count", "33", "--method", "join"], "the join method counts boards up to N = 32"),
        (&["count", "18", "--method", "join", "--max-memory", "1M"], "than the 1.0 MiB allowed"),
        (&["count", "24", "--threads", "2", "--max-memory", "2M"], "at least 4.0 MiB per thread"),
        (&["count", "8", "--max-memory", "lots"], "'lots' is not a size"),
        (&["count", "14", "--place", "1:2", "--method", "join"], "counted with the plain"),
        (&["count", "8", "--checkpoint", "x", "--checkpoint-every", "0"], "outside 0.1s to 24h"),
        (&["count"], "<N>"),
        (&["count", "12", "--threads", "100000"], "more than 4 per logical CPU"),
        (&["count", "24", "--method", "plain", "--depth", "12"], "use --depth 4 or less"),
        (&["estimate", "0"], "between 1 and 128"),
        (&["estimate", "8", "--threads", "0"], "'0' for '--threads <T>': must be at least 1"),
        (&["estimate", "8", "--cores", "x"], "'x' is not a whole number"),
        (&["estimate", "12", "--threads", "100000"], "more than 4 per logical CPU"),
        (&["estimate", "33", "--method", "join"], "the join method counts boards up to N = 32"),
        (&["estimate", "18", "--method", "join", "--max-memory", "1M"], "than the 1.0 MiB allowed"),
        (
            &["estimate", "12", "--method", "eightfold", "--check", "2"],
            "--check needs tasks that split into finer ones",
        ),
        (&["estimate", "12", "--check", "0"], "must be at least 1"),
        (&["estimate", "12", "--sample-time", "0.5"], "'0.5' is outside 1s to 24h"),
        (&["estimate", "12", "--sample-time", "2d"], "'2d' is outside 1s to 24h"),
        (&["estimate", "12", "--sample-time", "soon"], "'soon' is not a time"),
        (&["estimate", "12", "--depth", "3"], "--check"),
        (&["estimate", "12", "--check-sample-time", "5m"], "not provided: --check <K>"),
        (&["estimate", "16", "--check", "2", "--check-sample-time", "0.5"], "'0.5' is outside"),
        (
            &["estimate", "16", "--check", "2", "--depth", "99"],
            "split depth must be between 0 and 16",
        ),
        (&["estimate", "8", "--method", "fast"], "unknown method 'fast'"),
        (&["estimate", "12", "--timings", "/no/such/folder/t.json"], "no folder /no/such/folder"),
        // Where the largest tasks would be counted in pieces, the note of it waits for the
        // rest of the command line, so that a usage error stays one line.
        (&["count", "22", "--threads", "2", "--max-memory", "96M", "--depth", "99"], "0 and 22"),
        (
            &[
                "estimate",
                "22",
                "--threads",
                "2",
                "--max-memory",
                "256M",
                "--check",
                "2",
                "--depth",
                "23",
            ],
            "split depth must be between 0 and 22",
        ),
    ];
    for (args, expected) in cases {
        let output = nqueens(args);
        let message = stderr(&output);
        assert!(!output.status.success(), "{args:?} succeeded");
        // One line, and clap's suggestion on a second where it has one.
        let mut lines = message.lines();
        lines.next();
        assert!(lines.all(|line| line.starts_with("  tip: ")), "{args:?}: {message}");
        assert!(message.lines().count() <= 2, "{args:?}: {message}");
        assert!(message.contains(expected), "{args:?}: {message}");
        assert!(!message.contains("panicked"), "{args:?}: {message}");
        assert!(output.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn every_thread_count_and_depth_gives_the_known_counts() {
    for n in 10..=14 {
        for method in ["join", "eightfold", "half", "plain"] {
            for threads in ["1", "2", "3", "8"] {
                for depth in ["1", "3", "5"] {
                    let ns = n.to_string();
                    let args = [
                        "count",
                        &ns,
                        "--method",
                        method,
                        "--threads",
                        threads,
                        "--depth",
                        depth,
                        "--json",
                    ];
                    assert_eq!(counts(&json(&args)), known_counts(n), "{args:?}");
                }
            }
        }
    }
}

#[test]
fn shards_merge_to_the_unsharded_count() {
    for (n, method) in [(13, "eightfold"), (14, "eightfold"), (13, "join"), (14, "join")] {
        shards_merge_to_the_known_count(n, method);
    }
}

fn shards_merge_to_the_known_count(n: usize, method: &str) {
    let dir = tempfile::tempdir().unwrap();
    let ns = n.to_string();
    for shards in [2, 3, 5] {
        let mut files = Vec::new();
        for index in 0..shards {
            let shard = format!("{index}/{shards}");
            let args = ["count", &ns, "--method", method, "--shard", &shard, "--json"];
            let output = nqueens(&args);
            assert!(output.status.success(), "{}", stderr(&output));
            let file = dir.path().join(format!("{index}-of-{shards}.json"));
            std::fs::write(&file, &output.stdout).unwrap();
            files.push(file.to_str().unwrap().to_owned());
        }
        let mut args = vec!["merge", "--json"];
        args.extend(files.iter().map(String::as_str));
        assert_eq!(counts(&json(&args)), known_counts(n), "N = {n}, {method}, {shards} shards");
    }
}

#[test]
fn merge_names_a_missing_duplicated_or_foreign_shard() {
    let dir = tempfile::tempdir().unwrap();
    let write = |name: &str, args: &[&str]| {
        let output = nqueens(args);
        let path = dir.path().join(name);
        std::fs::write(&path, &output.stdout).unwrap();
        path.to_str().unwrap().to_owned()
    };
    let a = write("a.json", &["count", "11", "--shard", "0/3", "--json"]);
    let b = write("b.json", &["count", "11", "--shard", "1/3", "--json"]);
    let c = write("c.json", &["count", "11", "--shard", "2/3", "--json"]);
    let foreign = write("d.json", &["count", "12", "--shard", "2/3", "--json"]);
    let cases: &[(Vec<&str>, &str)] = &[
        (vec!["merge", &a, &b], "shard 2/3 is missing"),
        (vec!["merge", &a, &b, &b, &c], "shard 1/3 is given twice"),
        (vec!["merge", &a, &b, &foreign], "d.json is from a different run: n is 12"),
        (vec!["merge", "no-such-file.json"], "cannot read no-such-file.json"),
    ];
    for (args, expected) in cases {
        let output = nqueens(args);
        assert!(!output.status.success(), "{args:?}");
        assert!(stderr(&output).contains(expected), "{args:?}: {}", stderr(&output));
    }
    assert_eq!(counts(&json(&["merge", "--json", &c, &a, &b])), known_counts(11));
}

/// The count the checkpoint tests stop and resume: a few seconds on one thread.
const CHECKPOINTED: [&str; 8] =
    ["count", "16", "--method", "half", "--threads", "1", "--depth", "4"];

/// Starts `count` saving a checkpoint every 0.1 s, and waits until the checkpoint records
/// some finished work.
fn start_checkpointed(count: &[&str], path: &Path) -> std::process::Child {
    let child = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(count)
        .arg("--json")
        .args(["--checkpoint", path.to_str().unwrap(), "--checkpoint-every", "0.1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(Instant::now() < deadline, "no checkpoint appeared");
        sleep(Duration::from_millis(20));
    }
    sleep(Duration::from_millis(300));
    child
}

fn checkpoint_body(path: &Path) -> Value {
    let text = std::fs::read_to_string(path).unwrap();
    serde_json::from_str::<Value>(&text).unwrap()["body"].clone()
}

#[test]
fn a_killed_run_resumes_to_the_exact_count() {
    a_killed_run_resumes(&CHECKPOINTED, 16);
}

#[test]
fn a_killed_join_run_resumes_to_the_exact_count() {
    a_killed_run_resumes(&["count", "18", "--method", "join", "--threads", "1"], 18);
}

/// Kills `count` once it has checkpointed some work, and resumes it on two threads.
fn a_killed_run_resumes(count: &[&str], n: usize) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let mut child = start_checkpointed(count, &path);
    child.kill().unwrap();
    child.wait().unwrap();
    let saved = checkpoint_body(&path);
    assert_eq!(saved["complete"], false);
    assert!(!saved["finished"].as_array().unwrap().is_empty());

    let mut args = count.to_vec();
    let threads = args.iter().position(|&a| a == "--threads").unwrap() + 1;
    args[threads] = "2";
    let resumed = json(&[&args[..], &["--json", "--checkpoint", path.to_str().unwrap()]].concat());
    assert_eq!(counts(&resumed), known_counts(n));
    assert_eq!(checkpoint_body(&path)["complete"], true);
}

#[test]
fn sigint_stops_with_status_130_and_a_usable_checkpoint() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("n16.ckpt");
    let child = start_checkpointed(&CHECKPOINTED, &path);
    let pid = child.id().to_string();
    let sent = Instant::now();
    assert!(Command::new("kill").args(["-INT", &pid]).status().unwrap().success());
    let output = child.wait_with_output().unwrap();
    assert!(sent.elapsed() < Duration::from_secs(5), "took {:?} to stop", sent.elapsed());
    assert_eq!(output.status.code(), Some(130), "{}", stderr(&output));
    assert!(stderr(&output).contains("run the same command again to resume"));
    assert_eq!(checkpoint_body(&path)["complete"], false);

    let resumed =
        json(&[&CHECKPOINTED[..], &["--json", "--checkpoint", path.to_str().unwrap()]].concat());
    assert_eq!(counts(&resumed), known_counts(16));
}

#[test]
fn checkpoints_of_other_runs_and_damaged_ones_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let file = path.to_str().unwrap();
    json(&["count", "10", "--checkpoint", file, "--json"]);

    let output = nqueens(&["count", "11", "--checkpoint", file]);
    assert!(!output.status.success());
    assert!(
        stderr(&output).contains("belongs to a different run: n is '10' there but '11' here"),
        "{}",
        stderr(&output)
    );

    let text = std::fs::read_to_string(&path).unwrap();
    let damaged = &text[..text.len() - 10];
    std::fs::write(&path, damaged).unwrap();
    let output = nqueens(&["count", "10", "--checkpoint", file]);
    assert!(!output.status.success());
    assert!(stderr(&output).contains("is damaged"), "{}", stderr(&output));
    assert_eq!(std::fs::read_to_string(&path).unwrap(), damaged, "the damaged file was changed");
}

#[test]
fn a_completed_checkpoint_gives_the_result_again() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("run.ckpt");
    let file = file.to_str().unwrap();
    let first = json(&["count", "12", "--checkpoint", file, "--json"]);
    let again = json(&["count", "12", "--checkpoint", file, "--json"]);
    assert_eq!(counts(&first), known_counts(12));
    assert_eq!(counts(&again), known_counts(12));
}

#[test]
fn progress_log_writes_lines_to_stderr_only() {
    let output = nqueens(&["count", "12", "--progress", "log", "--json"]);
    assert!(output.status.success());
    assert!(stderr(&output).contains("100.0% done"), "{}", stderr(&output));
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(counts(&value), known_counts(12));
}

#[test]
fn stats_report_nodes_without_changing_the_counts() {
    let plain = json(&["count", "11", "--json"]);
    assert!(plain.get("nodes").is_none() && plain.get("ns_per_node").is_none());
    assert!(plain["counts"].get("nodes").is_none(), "not measured, so absent: {plain}");
    let stats = json(&["count", "11", "--json", "--stats"]);
    assert_eq!(counts(&stats), known_counts(11));
    assert!(nodes(&stats) > known_counts(11).0);
    assert!(stats.get("nodes").is_none(), "the nodes are named once: {stats}");
    assert_eq!(stats["nodes_decimal"], nodes(&stats).to_string());
    assert_eq!(stats["node_unit"], "node");
    assert!(stats["ns_per_node"].as_f64().unwrap() > 0.0);
    let line = nqueens(&["count", "11", "--stats"]);
    let text = String::from_utf8(line.stdout).unwrap();
    assert_eq!(text.lines().count(), 1);
    assert!(text.contains(" nodes=") && text.contains(" ns/node="), "{text}");
}

#[test]
fn every_kernel_gives_the_same_counts_and_nodes() {
    for method in ["join", "eightfold", "half", "plain"] {
        let scalar =
            json(&["count", "13", "--method", method, "--kernel", "scalar", "--stats", "--json"]);
        assert_eq!(counts(&scalar), known_counts(13), "{method}");
        assert_eq!(scalar["kernel"], "scalar");
        for kernel in ["auto", "avx512", "avx2"] {
            let args = ["count", "13", "--method", method, "--kernel", kernel, "--stats", "--json"];
            let output = nqueens(&args);
            // Whether the kernel should run is asked of the processor, not of nqueens, so
            // that a kernel refused where it should run fails instead of being skipped.
            let runs =
                if method == "join" { pair_test_runs(kernel) } else { processor_runs(kernel) };
            if !runs {
                let message = stderr(&output);
                assert!(!output.status.success(), "{args:?} ran without {kernel}");
                assert_eq!(message.lines().count(), 1, "{message}");
                let expected = format!("this processor cannot run the {kernel} kernel");
                assert!(message.contains(&expected), "{args:?}: {message}");
                continue;
            }
            assert!(output.status.success(), "{args:?}: {}", stderr(&output));
            let report: Value = serde_json::from_slice(&output.stdout).unwrap();
            assert_eq!(report["counts"], scalar["counts"], "{method}, {kernel}");
            let ran = report["kernel"].as_str().unwrap();
            assert!(kernel == "auto" || ran == kernel, "{kernel} ran as {ran}");
        }
    }
    for kernel in ["avx512", "avx2"].into_iter().filter(|kernel| !pair_test_runs(kernel)) {
        say_refused(kernel);
    }
}

#[test]
fn any_memory_limit_counts_exactly() {
    let limited = json(&[
        "count",
        "16",
        "--method",
        "join",
        "--threads",
        "2",
        "--max-memory",
        "96M",
        "--json",
    ]);
    assert_eq!(counts(&limited), known_counts(16));
    let roomy = json(&[
        "count",
        "16",
        "--method",
        "join",
        "--threads",
        "1",
        "--max-memory",
        "4G",
        "--json",
    ]);
    assert_eq!(counts(&roomy), known_counts(16));
}

#[test]
fn a_memory_limit_bounds_the_whole_process() {
    const LIMIT: u64 = 96 << 20;
    // A shard whose lists fill the join's room: where the limit was the join's alone, the
    // process held about 100 MiB.
    let limited = json(&[
        "count",
        "22",
        "--method",
        "join",
        "--threads",
        "1",
        "--shard",
        "0/2048",
        "--max-memory",
        "96M",
        "--json",
        "--stats",
    ]);
    if cfg!(target_os = "linux") {
        let peak = limited["peak_memory_bytes"].as_u64().unwrap();
        assert!(peak > LIMIT / 2 && peak <= LIMIT, "peak {peak} for a limit of {LIMIT}");
    }
}

#[test]
fn join_stats_report_pairs_and_peak_memory() {
    let stats = json(&["count", "14", "--method", "join", "--json", "--stats"]);
    assert_eq!(counts(&stats), known_counts(14));
    // Every pair of half-boards is tested, so there are more pairs than solutions.
    assert!(nodes(&stats) > known_counts(14).0);
    if cfg!(target_os = "linux") {
        assert!(stats["peak_memory_bytes"].as_u64().unwrap() > 0);
    }
    let line = nqueens(&["count", "14", "--method", "join", "--stats"]);
    let text = String::from_utf8(line.stdout).unwrap();
    assert!(text.contains(" nodes=") && text.contains(" node_unit=pair ns/node="), "{text}");
}

#[test]
fn auto_picks_backtracking_for_small_boards_and_placements_and_the_join_above() {
    assert_eq!(json(&["count", "8", "--json"])["method"], "eightfold");
    assert_eq!(json(&["count", "15", "--json"])["method"], "eightfold");
    assert_eq!(json(&["count", "16", "--json"])["method"], "join");
    assert_eq!(json(&["count", "16", "--method", "auto", "--json"])["method"], "join");
    assert_eq!(json(&["count", "14", "--place", "1:2", "--json"])["method"], "plain");
}
