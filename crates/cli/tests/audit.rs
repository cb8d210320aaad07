//! `count --audit F`: a seeded share of the tasks counted again on another kernel, the
//! total reported only if all agree, and a task whose recorded result was altered named.

use std::fs;
use std::path::Path;
use std::process::{Command, Output};

use nqueens_scheduler::fnv1a;
use nqueens_test_support::known_counts;
use serde_json::Value;

fn nqueens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args).output().expect("nqueens runs")
}

fn json(args: &[&str]) -> Value {
    let output = nqueens(args);
    assert!(output.status.success(), "{args:?}: {}", String::from_utf8_lossy(&output.stderr));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

fn total(value: &Value) -> u128 {
    u128::from(value["total"].as_u64().unwrap())
}

#[test]
fn an_audited_count_records_what_it_counted_again() {
    for method in ["eightfold", "join"] {
        let value = json(&["count", "14", "--method", method, "--audit", "0.1", "--json"]);
        assert_eq!(total(&value), known_counts(14).0, "{method}");
        let audit = &value["audit"];
        let tasks = audit["tasks"].as_u64().unwrap();
        let all = value["tasks"].as_u64().unwrap();
        assert!(tasks >= 1 && tasks < all / 2, "{method}: {tasks} of {all} audited");
        assert_eq!(audit["agreed"], audit["tasks"], "{method}");
        assert_eq!((audit["fraction"].as_f64(), audit["seed"].as_u64()), (Some(0.1), Some(0)));
        assert!(audit["kernel"].is_string(), "{method}: {audit}");
    }
    let text = nqueens(&["count", "12", "--audit", "1", "--threads", "1"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.contains(" audit=") && text.contains("agreed on"), "{text}");
    let unaudited = json(&["count", "12", "--json"]);
    assert_eq!(unaudited.get("audit"), None, "no audit, no field");
}

/// Adds one solution to the result that the checkpoint at `path` recorded for task
/// `index`, as a bit flip in a run's memory would, with the checksum made to match.
fn alter_recorded_task(path: &Path, index: usize) {
    let mut saved: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let recorded = &mut saved["body"]["partial"]["by_task"][index.to_string()]["total"];
    *recorded = Value::from(recorded.as_u64().expect("the task's result is kept") + 1);
    let body = serde_json::to_string(&saved["body"]).unwrap();
    let checksum = format!("{:016x}", fnv1a(body.as_bytes()));
    fs::write(path, format!("{{\"checksum\":\"{checksum}\",\"body\":{body}}}")).unwrap();
}

#[test]
fn an_altered_task_fails_the_audit_by_name_and_no_total_is_reported() {
    for method in ["eightfold", "join"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let file = path.to_str().unwrap();
        let count = ["count", "13", "--method", method, "--audit", "1", "--checkpoint", file];
        json(&[&count[..], &["--json"]].concat());
        alter_recorded_task(&path, 5);
        let output = nqueens(&[&count[..], &["--json"]].concat());
        assert_eq!(output.status.code(), Some(1), "{method}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("audit failed: task 5 of"), "{method}: {stderr}");
        assert_eq!(stderr.lines().count(), 1, "{method}: {stderr}");
        assert!(output.stdout.is_empty(), "{method}: a total was reported");
    }
}

#[test]
fn audited_shards_merge_with_their_audits_added_up() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for index in 0..2 {
        let shard = format!("{index}/2");
        let args = ["count", "13", "--shard", &shard, "--audit", "0.2", "--json"];
        let output = nqueens(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let file = dir.path().join(format!("{index}.json"));
        fs::write(&file, &output.stdout).unwrap();
        files.push(file.to_str().unwrap().to_owned());
    }
    let shard_tasks: u64 = files
        .iter()
        .map(|file| {
            let value: Value = serde_json::from_slice(&fs::read(file).unwrap()).unwrap();
            value["audit"]["tasks"].as_u64().unwrap()
        })
        .sum();
    let merged = json(&["merge", "--json", &files[0], &files[1]]);
    assert_eq!(total(&merged), known_counts(13).0);
    assert_eq!(merged["audit"]["tasks"].as_u64(), Some(shard_tasks));
    assert_eq!(merged["audit"]["agreed"].as_u64(), Some(shard_tasks));

    // Shard 1 again without its audit: the merge reports none, and says why.
    let unaudited = nqueens(&["count", "13", "--shard", "1/2", "--json"]);
    fs::write(&files[1], &unaudited.stdout).unwrap();
    let output = nqueens(&["merge", "--json", &files[0], &files[1]]);
    let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(total(&merged), known_counts(13).0);
    assert_eq!(merged["audit"], Value::Null, "{merged}");
    let note = String::from_utf8_lossy(&output.stderr);
    assert!(note.contains("reports no audit: not every shard was audited"), "{note}");
}

#[test]
fn shares_outside_zero_to_one_are_refused_in_one_line() {
    for share in ["0", "1.5", "-0.1", "half"] {
        let output = nqueens(&["count", "8", "--audit", share]);
        assert_eq!(output.status.code(), Some(2), "{share}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains("above 0 and at most 1"), "{share}: {stderr}");
    }
}

#[test]
fn merge_compare_finds_the_one_task_two_runs_disagree_on() {
    let dir = tempfile::tempdir().unwrap();
    let run = |name: &str, kernel: &str| {
        let args = ["count", "13", "--shard", "1/3", "--kernel", kernel, "--json"];
        let output = nqueens(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let path = dir.path().join(name);
        fs::write(&path, &output.stdout).unwrap();
        path
    };
    let (ours, theirs) = (run("a.json", "auto"), run("b.json", "scalar"));
    let paths = [ours.to_str().unwrap(), theirs.to_str().unwrap()];
    let compared = nqueens(&["merge", "--compare", paths[0], paths[1]]);
    assert!(compared.status.success(), "{}", String::from_utf8_lossy(&compared.stderr));
    let text = String::from_utf8(compared.stdout).unwrap();
    assert!(text.starts_with("all ") && text.ends_with(" tasks agree\n"), "{text}");

    let mut report: Value = serde_json::from_slice(&fs::read(&theirs).unwrap()).unwrap();
    let by_task = report["by_task"].as_object_mut().unwrap();
    let tasks = by_task.len();
    let (index, counts) = by_task.iter_mut().nth(tasks / 2).unwrap();
    let index = index.clone();
    counts["total"] = Value::from(counts["total"].as_u64().unwrap() + 1);
    // A run that got one task wrong says so throughout: its total is one more too.
    let total = report["total"].as_u64().unwrap() + 1;
    (report["total"], report["total_decimal"]) = (total.into(), total.to_string().into());
    report["counts"]["total"] = total.into();
    fs::write(&theirs, serde_json::to_string(&report).unwrap()).unwrap();
    let compared = nqueens(&["merge", "--compare", paths[0], paths[1]]);
    assert_eq!(compared.status.code(), Some(1));
    let text = String::from_utf8(compared.stdout).unwrap();
    assert_eq!(text.lines().count(), 2, "{text}");
    assert!(text.starts_with(&format!("task {index} (key [")), "{text}");
    let again = format!("1 of {tasks} tasks differ: count them again with `nqueens count 13 ");
    assert!(text.lines().last().is_some_and(|last| last.starts_with(&again)), "{text}");

    let whole = dir.path().join("whole.json");
    fs::write(&whole, nqueens(&["count", "13", "--json"]).stdout).unwrap();
    let refused = nqueens(&["merge", "--compare", paths[0], whole.to_str().unwrap()]);
    assert_eq!(refused.status.code(), Some(2));
}

#[test]
fn the_audit_says_what_it_recounts_and_shows_its_progress() {
    let output =
        nqueens(&["count", "14", "--method", "eightfold", "--audit", "0.5", "--progress", "log"]);
    assert!(output.status.success());
    let log = String::from_utf8_lossy(&output.stderr);
    let said = log.lines().position(|line| line.starts_with("nqueens: auditing: counting "));
    let done = log.lines().position(|line| line.starts_with("nqueens: auditing: 100.0% done"));
    assert!(said.is_some() && done > said, "{log}");
    let quiet = nqueens(&["count", "14", "--method", "eightfold", "--audit", "0.5", "-q"]);
    assert!(quiet.status.success() && quiet.stderr.is_empty(), "{}", {
        String::from_utf8_lossy(&quiet.stderr)
    });
}
