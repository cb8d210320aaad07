//! One engine, one answer: results name the engine and build that made them, results of
//! two engines are never added up, a checkpoint is held by one run at a time, and a count
//! built from several sessions says what ran each.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nqueens_core::ENGINE_IDENTITY;
use nqueens_scheduler::fnv1a;
use nqueens_test_support::known_counts;
use serde_json::Value;

/// An engine identity no build has: what an older or newer build's results would carry.
const OTHER_ENGINE: &str = "0-5d0c7e21";

fn nqueens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args).output().expect("nqueens runs")
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

fn json(args: &[&str]) -> Value {
    let output = nqueens(args);
    assert!(output.status.success(), "{args:?}: {}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// A count slow enough to stop part-way on any processor: seconds on one thread of the
/// scalar kernel (the vector kernels take a tenth of that).
const SLOW: [&str; 10] =
    ["count", "16", "--method", "half", "--kernel", "scalar", "--threads", "1", "--depth", "4"];

/// A count that runs for several times as long as [`SLOW`], held while another run tries
/// its checkpoint and then stopped: [`SLOW`] could finish first on a loaded machine.
const HELD: [&str; 10] =
    ["count", "17", "--method", "half", "--kernel", "scalar", "--threads", "1", "--depth", "4"];

/// Starts `count` saving its checkpoint `path` every 0.1 s, and waits until the
/// checkpoint records finished tasks.
fn start_checkpointed(count: &[&str], path: &Path) -> Child {
    let mut command = Command::new(env!("CARGO_BIN_EXE_nqueens"));
    // A count started with SIGHUP ignored (under `nohup`, as the tests themselves may
    // be) keeps ignoring it, as users of `nohup` want; the tests' counts start with the
    // default, so that a hang-up saves them.
    // SAFETY: between fork and exec only `signal`, which is async-signal-safe, runs.
    unsafe {
        command.pre_exec(|| {
            libc::signal(libc::SIGHUP, libc::SIG_DFL);
            Ok(())
        });
    }
    let child = command
        .args(count)
        .args(["--json", "--checkpoint", path.to_str().unwrap(), "--checkpoint-every", "0.1"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    while !path.exists() || body(path)["finished"].as_array().is_none_or(Vec::is_empty) {
        assert!(Instant::now() < deadline, "no finished task was checkpointed");
        sleep(Duration::from_millis(20));
    }
    child
}

/// Stops `child` with `signal` and returns what it printed.
fn stop(child: Child, signal: &str) -> Output {
    let pid = child.id().to_string();
    assert!(Command::new("kill").args([&format!("-{signal}"), &pid]).status().unwrap().success());
    child.wait_with_output().unwrap()
}

/// The body of the checkpoint at `path`.
fn body(path: &Path) -> Value {
    let text = fs::read_to_string(path).unwrap_or_default();
    serde_json::from_str::<Value>(&text).map_or(Value::Null, |file| file["body"].clone())
}

/// Rewrites the checkpoint at `path` with `edit` applied to its body, and a checksum that
/// matches: a file edited by hand, or written by another build.
fn reseal(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut edited = body(path);
    edit(&mut edited);
    let body = serde_json::to_string(&edited).unwrap();
    let checksum = format!("{:016x}", fnv1a(body.as_bytes()));
    fs::write(path, format!("{{\"checksum\":\"{checksum}\",\"body\":{body}}}")).unwrap();
}

/// Asserts that `output` is a refusal with status `code` in one line holding every one of
/// `words`, with nothing on stdout.
fn refused(output: &Output, code: i32, words: &[&str]) {
    let text = stderr(output);
    assert_eq!(output.status.code(), Some(code), "{text}");
    assert_eq!(text.lines().count(), 1, "{text}");
    for word in words {
        assert!(text.contains(word), "{word:?} is not in: {text}");
    }
    assert!(output.stdout.is_empty(), "{}", String::from_utf8_lossy(&output.stdout));
}

#[test]
fn every_result_names_its_engine_and_build() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("run.ckpt");
    let whole = json(&["count", "12", "--json", "--checkpoint", checkpoint.to_str().unwrap()]);
    let build = &whole["build"];
    assert_eq!(whole["engine"], ENGINE_IDENTITY);
    // 12 hex digits in a git checkout, `unknown` in a copy without one.
    assert!(!build["commit"].as_str().unwrap().is_empty(), "{build}");
    assert!(build["modified"].is_boolean(), "{build}");
    assert_eq!((&whole["resumed"], &whole["sessions"]), (&Value::Bool(false), &Value::Null));

    let saved = body(&checkpoint);
    assert_eq!(saved["identity"]["engine"], ENGINE_IDENTITY);
    let session = &saved["sessions"][0];
    assert_eq!(session["about"]["commit"], build["commit"], "{session}");
    assert_eq!(session["about"]["kernel"], whole["kernel"], "{session}");
    assert_eq!(session["about"]["threads"], whole["threads"].to_string(), "{session}");
    assert_eq!(session["tasks"], whole["tasks"], "{session}");

    let text = String::from_utf8(nqueens(&["count", "12"]).stdout).unwrap();
    assert!(text.trim_end().ends_with(&format!(" engine={ENGINE_IDENTITY}")), "{text}");

    let shards = shards(dir.path());
    for shard in &shards {
        let shard: Value = serde_json::from_str(&fs::read_to_string(shard).unwrap()).unwrap();
        assert_eq!((&shard["engine"], &shard["build"]), (&whole["engine"], build));
    }
    let files: Vec<&str> = shards.iter().map(|path| path.to_str().unwrap()).collect();
    let merged = json(&[&["merge", "--json"][..], &files].concat());
    assert_eq!((&merged["engine"], &merged["build"]), (&whole["engine"], build));
    assert_eq!(merged["shard_builds"][0]["shards"], serde_json::json!([0, 1]));
    assert_eq!(merged["shard_builds"][0]["commit"], build["commit"]);
    let text = String::from_utf8(nqueens(&[&["merge"][..], &files].concat()).stdout).unwrap();
    assert!(text.contains(&format!(" engine={ENGINE_IDENTITY}")), "{text}");
}

/// The two shards of `count 12 --shard I/2 --json`, written in `dir`.
fn shards(dir: &Path) -> [std::path::PathBuf; 2] {
    [0, 1].map(|index| {
        let shard = format!("{index}/2");
        let output = nqueens(&["count", "12", "--shard", &shard, "--json"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let path = dir.join(format!("shard-{index}.json"));
        fs::write(&path, output.stdout).unwrap();
        path
    })
}

/// Rewrites the shard file at `path` with `edit` applied.
fn edit_shard(path: &Path, edit: impl FnOnce(&mut Value)) {
    let mut shard: Value = serde_json::from_str(&fs::read_to_string(path).unwrap()).unwrap();
    edit(&mut shard);
    fs::write(path, serde_json::to_string(&shard).unwrap()).unwrap();
}

#[test]
fn a_checkpoint_of_another_engine_is_refused_by_name_and_left_untouched() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let stopped = stop(start_checkpointed(&SLOW, &path), "INT");
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
    let file = path.to_str().unwrap();
    let resume = [&SLOW[..], &["--checkpoint", file]].concat();

    // The same task keys, but results of another engine.
    reseal(&path, |body| body["identity"]["engine"] = OTHER_ENGINE.into());
    let before = fs::read(&path).unwrap();
    refused(&nqueens(&resume), 2, &[file, OTHER_ENGINE, ENGINE_IDENTITY, "never added up"]);
    assert_eq!(fs::read(&path).unwrap(), before, "the checkpoint was changed");

    // As a build from before engine identities wrote it (25f018d, 0.3.0).
    reseal(&path, |body| {
        let identity = body["identity"].as_object_mut().unwrap();
        identity.remove("engine");
        identity.insert("engine_version".to_owned(), "0.3.0".into());
        body.as_object_mut().unwrap().remove("sessions");
    });
    let before = fs::read(&path).unwrap();
    refused(&nqueens(&resume), 2, &["before engine identities", ENGINE_IDENTITY]);
    assert_eq!(fs::read(&path).unwrap(), before, "the checkpoint was changed");
}

#[test]
fn task_results_that_do_not_add_up_print_no_total() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let file = path.to_str().unwrap();
    json(&["count", "12", "--checkpoint", file, "--json"]);
    // One solution more, as a task counted by a faulty build under this identity would add.
    reseal(&path, |body| {
        let total = body["partial"]["total"].as_u64().unwrap();
        body["partial"]["total"] = (total + 1).into();
    });
    let output = nqueens(&["count", "12", "--checkpoint", file]);
    refused(&output, 1, &["do not add up", "not a multiple of 8", "not printed", file]);
}

#[test]
fn merge_refuses_shards_of_another_engine_and_names_other_builds() {
    let dir = tempfile::tempdir().unwrap();
    let [first, second] = shards(dir.path());
    let files = [first.to_str().unwrap(), second.to_str().unwrap()];
    let merge = |json: bool| {
        let format: &[&str] = if json { &["--json"] } else { &[] };
        nqueens(&[&["merge"][..], &files, format].concat())
    };
    let original = fs::read(&second).unwrap();

    edit_shard(&second, |shard| shard["engine"] = OTHER_ENGINE.into());
    refused(&merge(false), 2, &[files[1], OTHER_ENGINE, ENGINE_IDENTITY, "never added up"]);
    edit_shard(&second, |shard| {
        let shard = shard.as_object_mut().unwrap();
        shard.remove("engine");
        shard.insert("engine_version".to_owned(), "0.3.0".into());
    });
    refused(&merge(false), 2, &[files[1], "before engine identities"]);

    // Another commit of the same engine: merged, with a note naming both commits.
    fs::write(&second, &original).unwrap();
    edit_shard(&second, |shard| shard["build"]["commit"] = "0123456789ab".into());
    let output = merge(true);
    assert!(output.status.success(), "{}", stderr(&output));
    let merged: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(merged["total"].as_u64().map(u128::from), Some(known_counts(12).0));
    assert_eq!(merged["shard_builds"].as_array().unwrap().len(), 2, "{merged}");
    let note = stderr(&output);
    assert!(note.contains(" for shard 1") && note.contains("2 builds"), "{note}");
    assert!(note.contains("0123456789ab") && note.contains(" for shard 0"), "{note}");

    // One task's count edited: its shard no longer adds up.
    fs::write(&second, &original).unwrap();
    edit_shard(&second, |shard| {
        let (_, counts) = shard["by_task"].as_object_mut().unwrap().iter_mut().next().unwrap();
        counts["total"] = (counts["total"].as_u64().unwrap() + 1).into();
    });
    refused(&merge(false), 2, &[files[1], "do not add up to its total"]);

    // Edited throughout, as a faulty build would write it: the sum gives it away.
    fs::write(&second, &original).unwrap();
    edit_shard(&second, |shard| {
        let (_, counts) = shard["by_task"].as_object_mut().unwrap().iter_mut().next().unwrap();
        counts["total"] = (counts["total"].as_u64().unwrap() + 1).into();
        let total = shard["total"].as_u64().unwrap() + 1;
        (shard["total"], shard["total_decimal"]) = (total.into(), total.to_string().into());
        shard["counts"]["total"] = total.into();
    });
    refused(&merge(false), 1, &["shards' task results do not add up", "not printed"]);
}

#[test]
fn a_resumed_count_names_what_ran_each_session() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let file = path.to_str().unwrap();
    let stopped = stop(start_checkpointed(&SLOW, &path), "INT");
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));

    // Resumed on the fastest kernel this processor has, and on two threads.
    let mut again = SLOW.to_vec();
    (again[5], again[7]) = ("auto", "2");
    let resumed = json(&[&again[..], &["--checkpoint", file, "--json"]].concat());
    assert_eq!(resumed["total"].as_u64().map(u128::from), Some(known_counts(16).0));
    assert_eq!(resumed["resumed"], true);
    assert_eq!(resumed["threads"], Value::Null, "1 thread, then 2");
    let sessions = resumed["sessions"].as_array().unwrap();
    let ran: Vec<(&str, u64)> = sessions
        .iter()
        .map(|s| (s["kernel"].as_str().unwrap(), s["threads"].as_u64().unwrap()))
        .collect();
    let fastest = ran[1].0;
    assert_eq!(ran, [("scalar", 1), (fastest, 2)]);
    let tasks: u64 = sessions.iter().map(|s| s["tasks"].as_u64().unwrap()).sum();
    assert_eq!(Some(tasks), resumed["tasks"].as_u64());
    if fastest == "scalar" {
        assert_eq!(resumed["kernel"], "scalar");
    } else {
        assert_eq!(resumed["kernel"], Value::Null, "scalar, then {fastest}");
    }
    let counted: f64 = sessions.iter().map(|s| s["elapsed_s"].as_f64().unwrap()).sum();
    assert!((counted - resumed["elapsed_s"].as_f64().unwrap()).abs() < 0.01, "{resumed}");

    // The finished checkpoint again, as the first session ran: this one runs no task, and
    // says so.
    let output = nqueens(&[&SLOW[..], &["--checkpoint", file]].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(text.contains(" threads=several "), "{text}");
    assert!(text.contains(" resumed: "), "{text}");
    assert!(text.contains(&format!("tasks on {fastest} with 2 threads in ")), "{text}");
    assert!(text.contains(", 0 tasks on scalar with 1 thread in "), "{text}");
}

#[test]
fn a_held_checkpoint_is_refused_and_sighup_saves() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let file = path.to_str().unwrap();
    let holder = start_checkpointed(&HELD, &path);
    let pid = holder.id();

    let started = Instant::now();
    let second = nqueens(&[&HELD[..], &["--checkpoint", file]].concat());
    assert!(started.elapsed() < Duration::from_secs(5), "took {:?}", started.elapsed());
    refused(&second, 1, &[file, "in use by another run", &format!("process {pid} on ")]);

    let stopped = stop(holder, "HUP");
    assert_eq!(stopped.status.code(), Some(129), "{}", stderr(&stopped));
    assert!(stderr(&stopped).contains("run the same command again to resume"));
    let saved = body(&path);
    assert_eq!(saved["complete"], false);
    assert!(!saved["finished"].as_array().unwrap().is_empty(), "{saved}");
    assert!(!dir.path().join("run.ckpt.lock").exists(), "the lock file was left");

    let mut faster = HELD.to_vec();
    (faster[5], faster[7]) = ("auto", "2");
    let resumed = json(&[&faster[..], &["--checkpoint", file, "--json"]].concat());
    assert_eq!(resumed["total"].as_u64().map(u128::from), Some(known_counts(17).0));
}

#[test]
fn a_resumed_count_has_an_eta_from_its_first_progress_line() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let stopped = stop(start_checkpointed(&SLOW, &path), "INT");
    assert_eq!(stopped.status.code(), Some(130), "{}", stderr(&stopped));
    let args = [&SLOW[..], &["--checkpoint", path.to_str().unwrap(), "--progress", "log"]].concat();
    let resumed = nqueens(&args);
    assert!(resumed.status.success(), "{}", stderr(&resumed));
    let log = stderr(&resumed);
    let first = log.lines().find(|line| line.contains("% done")).expect(&log);
    assert!(!first.contains("ETA --:--:--"), "{log}");
}
