//! `count --symmetric`: the solutions a half turn or a quarter turn leaves unchanged
//! (OEIS A032522 and A033148), through the same shards, merges and checkpoints as a count.

use std::process::{Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nqueens_test_support::known_rotation_fixed;
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

/// The known count of `turn` (`half-turn` or `quarter-turn`) for an `n`-board.
fn known(n: usize, turn: &str) -> u128 {
    let (half, quarter) = known_rotation_fixed(n);
    if turn == "half-turn" { half } else { quarter }
}

#[test]
fn both_turns_give_the_known_counts_with_a_report_that_names_the_turn() {
    for n in [1, 4, 5, 8, 12, 13, 17, 20, 21, 24] {
        for turn in ["half-turn", "quarter-turn"] {
            let ns = n.to_string();
            let value = json(&["count", &ns, "--symmetric", turn, "--json"]);
            assert_eq!(total(&value), known(n, turn), "N = {n}, {turn}");
            assert_eq!(value["symmetric"], turn);
            assert_eq!(value["unique"], Value::Null, "no unique count of a symmetric count");
        }
    }
    let text = nqueens(&["count", "12", "--symmetric", "half-turn", "--threads", "1"]);
    let text = String::from_utf8(text.stdout).unwrap();
    assert!(text.starts_with("N=12 symmetric=half-turn total=80 method=plain"), "{text}");
    assert!(!text.contains("partial board"), "{text}");
}

#[test]
fn what_a_turn_cannot_be_counted_with_is_refused_in_one_line() {
    let cases: &[(&[&str], &str)] = &[
        (&["count", "8", "--symmetric", "full-turn"], "unknown turn 'full-turn'"),
        (&["count", "8", "--symmetric", "half-turn", "--place", "1:1"], "cannot be used with"),
        (&["count", "8", "--symmetric", "half-turn", "--method", "join"], "--method plain"),
        (&["count", "8", "--symmetric", "half-turn", "--kernel", "avx2"], "scalar kernel only"),
    ];
    for (args, expected) in cases {
        let output = nqueens(args);
        assert_eq!(output.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(stderr.contains(expected), "{args:?}: {stderr}");
    }
}

#[test]
fn half_turn_shards_merge_to_the_known_count_and_apart_from_a_whole_count() {
    let dir = tempfile::tempdir().unwrap();
    let mut files = Vec::new();
    for index in 0..3 {
        let shard = format!("{index}/3");
        let args = ["count", "16", "--symmetric", "half-turn", "--shard", &shard, "--json"];
        let output = nqueens(&args);
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        let file = dir.path().join(format!("{index}.json"));
        std::fs::write(&file, &output.stdout).unwrap();
        files.push(file.to_str().unwrap().to_owned());
    }
    let mut args = vec!["merge", "--json"];
    args.extend(files.iter().map(String::as_str));
    let merged = json(&args);
    assert_eq!(total(&merged), known(16, "half-turn"));
    assert_eq!(merged["symmetric"], "half-turn");

    // A shard of the whole count of the same board is another run.
    let whole = nqueens(&["count", "16", "--method", "plain", "--shard", "2/3", "--json"]);
    let foreign = dir.path().join("whole.json");
    std::fs::write(&foreign, &whole.stdout).unwrap();
    let output = nqueens(&["merge", &files[0], &files[1], foreign.to_str().unwrap()]);
    assert!(!output.status.success());
    assert!(String::from_utf8_lossy(&output.stderr).contains("from a different run"));
}

#[test]
fn a_killed_half_turn_count_resumes_to_the_exact_count() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let file = path.to_str().unwrap();
    let count = ["count", "25", "--symmetric", "half-turn", "--threads", "1", "--depth", "3"];
    let mut child = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(count)
        .args(["--checkpoint", file, "--checkpoint-every", "0.1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() {
        assert!(Instant::now() < deadline, "no checkpoint appeared");
        sleep(Duration::from_millis(20));
    }
    sleep(Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    let saved: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    assert_eq!(saved["body"]["complete"], false, "the count finished before it was killed");

    let mut resumed = count.to_vec();
    resumed[5] = "2";
    let value = json(&[&resumed[..], &["--json", "--checkpoint", file]].concat());
    assert_eq!(total(&value), known(25, "half-turn"));
}
