//! `nqueens merge` on damaged shard files, run as a user would: whatever a file holds,
//! merge prints a count or one line saying what is wrong, and never panics.

use std::process::{Command, Output, Stdio};
use std::sync::LazyLock;
use std::thread::sleep;
use std::time::{Duration, Instant};

use nqueens_test_support::{Damage, known_counts};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use serde_json::Value;

/// Runs nqueens, killing it if it runs for long: a merge of two small files takes
/// milliseconds, so a slow one is stuck, and a stuck one must fail the test, not hang it.
fn nqueens(args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("nqueens runs");
    let deadline = Instant::now() + Duration::from_secs(30);
    while child.try_wait().unwrap().is_none() {
        if Instant::now() > deadline {
            child.kill().unwrap();
            panic!("nqueens {args:?} ran for 30 s");
        }
        sleep(Duration::from_millis(5));
    }
    child.wait_with_output().unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// What `count 10 --shard I/2 --stats --json` prints for shards 0 and 1, run once for all
/// the tests here: `--stats` adds the node fields to what can be damaged.
static SHARDS: LazyLock<[String; 2]> = LazyLock::new(|| {
    ["0/2", "1/2"].map(|shard| {
        let output = nqueens(&["count", "10", "--shard", shard, "--stats", "--json"]);
        assert!(output.status.success(), "{}", stderr(&output));
        String::from_utf8(output.stdout).unwrap()
    })
});

/// Merges `first` (as the file of shard 0) with the undamaged shard 1, and asserts that
/// merge either printed one JSON count or failed with one line, without a panic. Shard 1
/// comes with it so that a file that still reads gets as far as the counting.
fn merge(first: &[u8]) -> Output {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("0.json"), dir.path().join("1.json"));
    std::fs::write(&a, first).unwrap();
    std::fs::write(&b, &SHARDS[1]).unwrap();
    let output = nqueens(&["merge", "--json", a.to_str().unwrap(), b.to_str().unwrap()]);
    let (message, case) = (stderr(&output), String::from_utf8_lossy(first));
    assert!(output.status.code().is_some(), "{case}: killed by a signal");
    assert_ne!(output.status.code(), Some(101), "{case}: {message}");
    assert!(!message.contains("panicked"), "{case}: {message}");
    if output.status.success() {
        // Notes only: shards that ran on different kernels, or were not audited alike.
        assert!(message.lines().all(|line| line.starts_with("nqueens: the ")), "{case}: {message}");
        let value: Result<Value, _> = serde_json::from_slice(&output.stdout);
        assert!(value.is_ok(), "{case}: {}", String::from_utf8_lossy(&output.stdout));
    } else {
        assert_eq!(message.lines().count(), 1, "{case}: {message}");
        assert!(message.starts_with("nqueens: "), "{case}: {message}");
        assert!(output.stdout.is_empty(), "{case}");
    }
    output
}

/// `(total, unique)` of a merge that succeeded.
fn counts(output: &Output) -> (u128, u128) {
    let value: Value = serde_json::from_slice(&output.stdout).unwrap();
    let count = |name: &str| u128::from(value[name].as_u64().unwrap());
    (count("total"), count("unique"))
}

#[test]
fn undamaged_shards_merge_to_the_known_count() {
    let output = merge(SHARDS[0].as_bytes());
    assert!(output.status.success());
    assert_eq!(counts(&output), known_counts(10));
}

#[test]
fn the_shards_node_counts_add_up_exactly() {
    let nodes = |value: &Value| value["nodes_decimal"].as_str().unwrap().parse::<u128>().unwrap();
    let shards: Vec<Value> =
        SHARDS.iter().map(|text| serde_json::from_str(text).unwrap()).collect();
    let merged: Value = serde_json::from_slice(&merge(SHARDS[0].as_bytes()).stdout).unwrap();
    assert_eq!(nodes(&merged), nodes(&shards[0]) + nodes(&shards[1]), "{merged}");
    assert_eq!(merged["counts"]["nodes"].as_u64().map(u128::from), Some(nodes(&merged)));
    // A node count past 2^64 is summed exactly. (A `Value` would hold it as a double.)
    let (own, past) = (nodes(&shards[0]), (1u128 << 70) + 1);
    let huge = SHARDS[0]
        .replace(&format!("\"nodes\":{own}"), &format!("\"nodes\":{past}"))
        .replace(&format!("\"nodes_decimal\":\"{own}\""), &format!("\"nodes_decimal\":\"{past}\""));
    assert_eq!(huge.matches(&past.to_string()).count(), 2, "{huge}");
    let merged: Value = serde_json::from_slice(&merge(huge.as_bytes()).stdout).unwrap();
    assert_eq!(nodes(&merged), past + nodes(&shards[1]), "{merged}");
}

#[test]
fn a_merge_names_the_shards_host_only_if_they_share_one() {
    let host =
        |output: &Output| serde_json::from_slice::<Value>(&output.stdout).unwrap()["host"].clone();
    let shard: Value = serde_json::from_str(&SHARDS[0]).unwrap();
    assert!(shard["host"].is_object(), "{shard}");
    assert_eq!(host(&merge(SHARDS[0].as_bytes())), shard["host"]);
    let mut elsewhere = shard.clone();
    elsewhere["host"]["cpu_model"] = Value::from("another processor");
    let output = merge(elsewhere.to_string().as_bytes());
    assert_eq!(counts(&output), known_counts(10));
    assert_eq!(host(&output), Value::Null);
}

#[test]
fn a_merge_of_shards_on_different_kernels_names_none_and_says_which_ran_where() {
    let mut shard: Value = serde_json::from_str(&SHARDS[0]).unwrap();
    let other = if shard["kernel"] == "scalar" { "avx2" } else { "scalar" };
    let own = shard["kernel"].as_str().unwrap().to_owned();
    shard["kernel"] = Value::from(other);
    let output = merge(shard.to_string().as_bytes());
    assert_eq!(counts(&output), known_counts(10));
    let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(merged["kernel"], Value::Null, "{merged}");
    let note = stderr(&output);
    assert!(note.contains("different kernels"), "{note}");
    assert!(
        note.contains(&format!("{other} (shard 0)")) && note.contains(&format!("{own} (shard 1)"))
    );
}

#[test]
fn any_elapsed_time_is_taken_or_refused_in_one_line() {
    let elapsed = |text: &str| {
        let value: Value = serde_json::from_str(&SHARDS[0]).unwrap();
        let old = format!("\"elapsed_s\":{}", value["elapsed_s"]);
        assert!(SHARDS[0].contains(&old), "{old} is not in {}", SHARDS[0]);
        SHARDS[0].replace(&old, &format!("\"elapsed_s\":{text}"))
    };
    // Any JSON number an f64 holds is a time, however odd, and the count stays right.
    for text in ["-1", "-0.0", "0", "1e308", "-1e308"] {
        let output = merge(elapsed(text).as_bytes());
        assert!(output.status.success(), "elapsed_s {text}: {}", stderr(&output));
        assert_eq!(counts(&output), known_counts(10), "elapsed_s {text}");
    }
    // JSON has no NaN or infinity, and an f64 holds no 1e400.
    for text in ["NaN", "Infinity", "1e400", "-1e400", "null", "\"1\""] {
        let output = merge(elapsed(text).as_bytes());
        assert!(!output.status.success(), "elapsed_s {text} was taken");
    }
}

/// Damage of every kind, anywhere in a shard file, with numbers replaced by values near
/// the edges of what the fields hold or by what JSON does not have.
fn damage() -> impl Strategy<Value = Damage> {
    Damage::any(vec![
        "-1",
        "0",
        "3",
        "1.5",
        "1e400",
        "NaN",
        "null",
        "18446744073709551616",
        "340282366920938463463374607431768211455",
        "340282366920938463463374607431768211456",
    ])
}

proptest! {
    // Each case runs the binary, so there are few: with the other tests here, about thirty
    // runs in all. The seed is fixed so that every run of the suite tries the same damage
    // and a failure always reproduces; PROPTEST_RNG_SEED does not apply to it.
    #![proptest_config(ProptestConfig {
        cases: 16,
        max_shrink_iters: 32,
        failure_persistence: None,
        rng_seed: RngSeed::Fixed(0x006e_7175_6565_6e73),
        ..ProptestConfig::default()
    })]

    #[test]
    fn damaged_shard_files_are_merged_or_refused_in_one_line(damage in damage()) {
        merge(&damage.apply(SHARDS[0].as_bytes()));
    }
}

#[test]
fn thread_counts_that_overflow_are_refused_in_one_line() {
    let mut value: Value = serde_json::from_str(&SHARDS[0]).unwrap();
    value["threads"] = usize::MAX.into();
    assert!(!merge(value.to_string().as_bytes()).status.success());
}

#[test]
fn counts_no_task_could_have_found_are_refused() {
    let edited = |edit: &dyn Fn(&mut Value)| {
        let mut value: Value = serde_json::from_str(&SHARDS[0]).unwrap();
        edit(&mut value);
        value.to_string()
    };
    let cases: [(&str, String); 3] = [
        ("more than two thirds", edited(&|v| v["counts"]["thirds"] = 24.into())),
        ("shard 5/2 does not exist", edited(&|v| v["shard"]["index"] = 5.into())),
        ("shard 0/0 does not exist", edited(&|v| v["shard"]["count"] = 0.into())),
    ];
    for (expected, file) in cases {
        let output = merge(file.as_bytes());
        assert!(!output.status.success(), "{expected}");
        assert!(stderr(&output).contains(expected), "{expected}: {}", stderr(&output));
    }
}

#[test]
fn a_huge_shard_count_names_a_few_missing_shards_at_once() {
    let mut value: Value = serde_json::from_str(&SHARDS[0]).unwrap();
    value["shard"]["count"] = 1_000_000_000_000u64.into();
    let output = merge(value.to_string().as_bytes());
    assert!(
        stderr(&output).contains("is from a different run: shard count is 2 there but"),
        "{}",
        stderr(&output)
    );
    let dir = tempfile::tempdir().unwrap();
    let alone = dir.path().join("alone.json");
    std::fs::write(&alone, value.to_string()).unwrap();
    let output = nqueens(&["merge", alone.to_str().unwrap()]);
    assert!(
        stderr(&output).contains(
            "shard 1/1000000000000, 2/1000000000000, 3/1000000000000, \
             4/1000000000000, 5/1000000000000 and 999999999994 more are missing"
        ),
        "{}",
        stderr(&output)
    );
}
