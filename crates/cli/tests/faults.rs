//! The ordinary faults of a long run, each met as a user would meet it: the result of a
//! finished count reaches the user (on stdout, or with the error on stderr), a checkpoint
//! survives exactly, and the exit status follows the README's convention.

use std::fs::{self, File};
use std::io::{BufRead, BufReader, Read};
use std::path::Path;
use std::process::{Child, Command, ExitStatus, Output, Stdio};
use std::thread::sleep;
use std::time::{Duration, Instant};

use nqueens_scheduler::fnv1a;
use nqueens_test_support::known_counts;
use serde_json::Value;

const NQUEENS: &str = env!("CARGO_BIN_EXE_nqueens");

/// A count that takes seconds on any processor, so that a test can reach it mid-run.
const SLOW_COUNT: [&str; 8] =
    ["count", "16", "--method", "plain", "--kernel", "scalar", "--threads", "2"];

/// What N = 12 prints, less its elapsed time and kernel, which vary.
const TWELVE: &str = "N=12 total=14200 unique=1787 method=eightfold";

fn nqueens() -> Command {
    Command::new(NQUEENS)
}

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The one line of `output`'s stderr.
fn one_line(output: &Output) -> String {
    let text = stderr(output);
    assert_eq!(text.lines().count(), 1, "one line expected: {text}");
    text
}

/// Waits for `child`, failing the test if it has not ended within `limit`.
fn wait_at_most(child: &mut Child, limit: Duration) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("still running after {limit:?}");
        }
        sleep(Duration::from_millis(10));
    }
}

/// The output of `command`, which must end within `limit`.
fn output_within(command: &mut Command, limit: Duration) -> Output {
    let mut child = command.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let reader = std::thread::spawn(move || {
        let mut text = Vec::new();
        err.read_to_end(&mut text).unwrap();
        text
    });
    let mut stdout = Vec::new();
    out.read_to_end(&mut stdout).unwrap();
    let status = wait_at_most(&mut child, limit);
    Output { status, stdout, stderr: reader.join().unwrap() }
}

fn send(child: &Child, signal: &str) {
    let status = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
    assert!(status.success());
}

/// Waits until `child` handles SIGINT and SIGTERM, as its `/proc` status shows.
fn wait_for_signal_handlers(child: &Child) {
    let status = format!("/proc/{}/status", child.id());
    let started = Instant::now();
    loop {
        let caught = fs::read_to_string(&status)
            .ok()
            .and_then(|text| {
                let mask = text.lines().find_map(|line| line.strip_prefix("SigCgt:"))?;
                u64::from_str_radix(mask.trim(), 16).ok()
            })
            .unwrap_or(0);
        // Bit k - 1 stands for signal k: SIGINT is 2, SIGTERM 15.
        if caught & (1 << 1) != 0 && caught & (1 << 14) != 0 {
            return;
        }
        assert!(started.elapsed() < Duration::from_secs(30), "no signal handlers");
        sleep(Duration::from_millis(1));
    }
}

/// Starts `args` with `--progress log` and returns once its first progress line is out:
/// the count has started its tasks.
fn start_logged(args: &[&str]) -> (Child, BufReader<std::process::ChildStderr>) {
    let mut child = nqueens()
        .args(args)
        .args(["--progress", "log"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut log = BufReader::new(child.stderr.take().unwrap());
    let mut first = String::new();
    log.read_line(&mut first).unwrap();
    assert!(first.contains("tasks"), "{first}");
    (child, log)
}

fn rest_of(mut log: BufReader<std::process::ChildStderr>) -> String {
    let mut text = String::new();
    log.read_to_string(&mut text).unwrap();
    text
}

/// A shard's JSON output, for `merge`.
fn shard_files(dir: &Path) -> Vec<String> {
    (0..2)
        .map(|index| {
            let shard = format!("{index}/2");
            let output = nqueens().args(["count", "12", "--shard", &shard, "--json"]).output();
            let path = dir.join(format!("shard{index}.json"));
            fs::write(&path, output.unwrap().stdout).unwrap();
            path.to_str().unwrap().to_owned()
        })
        .collect()
}

/// Each command that prints a result, with what the text of its result starts with.
fn commands_with_results(dir: &Path) -> Vec<(Vec<String>, &'static str)> {
    let owned = |args: &[&str]| args.iter().map(|&arg| arg.to_owned()).collect::<Vec<_>>();
    let mut merge = owned(&["merge"]);
    merge.extend(shard_files(dir));
    let mut merge_json = merge.clone();
    merge_json.push("--json".to_owned());
    vec![
        (owned(&["count", "12"]), TWELVE),
        (owned(&["count", "12", "--json"]), TWELVE_JSON),
        (merge, TWELVE),
        (merge_json, TWELVE_JSON),
        (owned(&["estimate", "10", "--progress", "never"]), "N=10 method="),
        (owned(&["estimate", "10", "--progress", "never", "--json"]), "{\"n\":10,"),
    ]
}

/// How the JSON of `count 12` starts.
const TWELVE_JSON: &str = "{\"n\":12,\"method\":\"eightfold\"";

#[test]
fn a_shard_whose_stdout_fails_can_still_be_merged_from_stderr() {
    let dir = tempfile::tempdir().unwrap();
    let full = || Stdio::from(File::options().write(true).open("/dev/full").unwrap());
    let lost = nqueens().args(["count", "12", "--shard", "0/2", "--json"]).stdout(full()).output();
    let line = one_line(&lost.unwrap());
    let (_, json) = line.split_once("; the result: ").expect(&line);
    let rescued = dir.path().join("rescued.json");
    fs::write(&rescued, json).unwrap();
    let other = &shard_files(dir.path())[1];
    let merged = nqueens().args(["merge", rescued.to_str().unwrap(), other]).output().unwrap();
    assert!(merged.status.success(), "{}", String::from_utf8_lossy(&merged.stderr));
    assert!(String::from_utf8_lossy(&merged.stdout).starts_with(TWELVE));
}

/// Runs every command that prints a result with the stdout `broken` makes, and checks
/// that each says `error` and gives its result on stderr, with status 1.
fn the_result_survives(broken: impl Fn() -> Stdio, error: &str) {
    let dir = tempfile::tempdir().unwrap();
    for (args, result) in commands_with_results(dir.path()) {
        let output = nqueens().args(&args).stdout(broken()).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        let line = one_line(&output);
        assert!(line.starts_with("nqueens: cannot write the result to stdout"), "{line}");
        assert!(line.contains(error), "{line}");
        assert!(line.contains(&format!("; the result: {result}")), "{args:?}: {line}");
    }
}

#[test]
fn a_closed_pipe_gets_the_result_on_stderr() {
    let closed_pipe = || {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        Stdio::from(writer)
    };
    the_result_survives(closed_pipe, "Broken pipe");
}

#[test]
fn a_full_stdout_gets_the_result_on_stderr() {
    let full = || Stdio::from(File::options().write(true).open("/dev/full").unwrap());
    the_result_survives(full, "No space left on device");
}

#[test]
fn a_closed_stdout_gets_the_result_on_stderr() {
    // `>&-`: the shell starts the program with descriptor 1 closed.
    let output = Command::new("sh")
        .args(["-c", "exec \"$0\" count 12 >&-", NQUEENS])
        .stderr(Stdio::piped())
        .output()
        .unwrap();
    assert_eq!(output.status.code(), Some(1));
    let line = one_line(&output);
    assert!(line.contains("stdout is closed"), "{line}");
    assert!(line.contains(&format!("; the result: {TWELVE}")), "{line}");
    for streaming in ["solve 8", "list 8", "verify 2 4 1 3"] {
        let script = format!("exec \"$0\" {streaming} >&-");
        let output = Command::new("sh").args(["-c", &script, NQUEENS]).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{streaming}");
        assert!(one_line(&output).contains("stdout is closed"), "{streaming}");
    }
}

#[test]
fn a_checkpoint_folder_that_disappears_mid_run_loses_nothing_of_the_count() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("d");
    fs::create_dir(&folder).unwrap();
    let checkpoint = folder.join("c.ckpt");
    let mut args = SLOW_COUNT.to_vec();
    args.extend(["--checkpoint", checkpoint.to_str().unwrap(), "--checkpoint-every", "0.1"]);
    let (mut child, log) = start_logged(&args);
    // The first save, before the first task, worked; now the folder becomes a file.
    assert!(checkpoint.exists());
    fs::remove_dir_all(&folder).unwrap();
    fs::write(&folder, "not a folder").unwrap();
    let mut stdout = String::new();
    child.stdout.take().unwrap().read_to_string(&mut stdout).unwrap();
    let status = wait_at_most(&mut child, Duration::from_secs(300));
    let log = rest_of(log);

    let (total, unique) = known_counts(16);
    assert!(stdout.starts_with(&format!("N=16 total={total} unique={unique} ")), "{stdout}");
    assert_eq!(status.code(), Some(1), "a stale checkpoint is a failure: {log}");
    let warnings: Vec<&str> = log.lines().filter(|line| line.contains("warning")).collect();
    assert_eq!(warnings.len(), 1, "one warning for a run of failures: {log}");
    assert!(warnings[0].contains("Not a directory"), "{log}");
    assert!(warnings[0].contains("counting on"), "{log}");
    let last = log.lines().last().unwrap();
    assert!(last.contains("is stale") && last.contains("Not a directory"), "{log}");
}

#[test]
fn a_checkpoint_path_that_is_no_regular_file_is_refused_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    for (path, kind) in [
        (fifo.to_str().unwrap(), "a FIFO"),
        ("/dev/full", "a device"),
        (dir.path().to_str().unwrap(), "a directory"),
    ] {
        let output = output_within(
            nqueens().args(["count", "12", "--checkpoint", path]),
            Duration::from_secs(30),
        );
        assert_eq!(output.status.code(), Some(2), "{path}");
        let line = one_line(&output);
        assert!(line.contains(&format!("{path} is {kind}, not a regular file")), "{line}");
    }
}

#[test]
fn a_checkpoint_behind_a_symbolic_link_is_written_to_its_target() {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("store")).unwrap();
    let link = dir.path().join("run.ckpt");
    std::os::unix::fs::symlink("store/n12.ckpt", &link).unwrap();
    let run = || nqueens().args(["count", "12", "--checkpoint", link.to_str().unwrap()]).output();
    let first = run().unwrap();
    assert!(first.status.success(), "{}", stderr(&first));
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let saved: Value =
        serde_json::from_slice(&fs::read(dir.path().join("store/n12.ckpt")).unwrap()).unwrap();
    assert_eq!(saved["body"]["complete"], true);
    assert_eq!(saved["body"]["partial"]["total"], 14200);
    // The link still leads to the finished count, which the same command prints at once.
    let again = run().unwrap();
    assert!(String::from_utf8_lossy(&again.stdout).starts_with(TWELVE));
}

/// Runs `args` to its end, which must be the exact counts of N = 16.
fn finishes_n16_exactly(args: &[&str]) {
    let output = nqueens().args(args).output().unwrap();
    assert!(output.status.success(), "{}", stderr(&output));
    let (total, unique) = known_counts(16);
    let text = String::from_utf8_lossy(&output.stdout);
    assert!(text.starts_with(&format!("N=16 total={total} unique={unique} ")), "{text}");
}

#[test]
fn a_signal_mid_run_saves_the_checkpoint_and_exits_128_plus_its_number() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("c.ckpt");
    let mut args = SLOW_COUNT.to_vec();
    args.extend(["--checkpoint", checkpoint.to_str().unwrap()]);
    for (signal, status) in [("-TERM", 143), ("-INT", 130)] {
        let (mut child, log) = start_logged(&args);
        sleep(Duration::from_millis(300));
        send(&child, signal);
        assert_eq!(wait_at_most(&mut child, Duration::from_secs(30)).code(), Some(status));
        let log = rest_of(log);
        let last = log.lines().last().unwrap();
        assert!(last.contains("stopped after") && last.contains("progress saved"), "{log}");
    }
    let saved: Value = serde_json::from_slice(&fs::read(&checkpoint).unwrap()).unwrap();
    assert_eq!(saved["body"]["complete"], false);
    finishes_n16_exactly(&args);
}

#[test]
fn a_signal_before_the_count_starts_stops_it_there() {
    // N = 27's set-up takes a moment and its tasks minutes each: the signal lands before
    // any task has finished.
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("c.ckpt");
    let args = ["count", "27", "--checkpoint", checkpoint.to_str().unwrap(), "--progress", "never"];
    let mut child = nqueens().args(args).stderr(Stdio::piped()).spawn().unwrap();
    wait_for_signal_handlers(&child);
    send(&child, "-TERM");
    let status = wait_at_most(&mut child, Duration::from_secs(30));
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert_eq!(status.code(), Some(143), "{log}");
    assert!(log.contains("stopped after 0 of"), "{log}");
    let saved: Value = serde_json::from_slice(&fs::read(&checkpoint).unwrap()).unwrap();
    assert_eq!(saved["body"]["finished"], serde_json::json!([]));
    assert_eq!(saved["body"]["identity"]["n"], "27");
}

/// Rewrites the checkpoint at `path` as the complete count of N = 27, as a run whose
/// every task has finished leaves it.
fn complete_n27(path: &Path) {
    let mut saved: Value = serde_json::from_slice(&fs::read(path).unwrap()).unwrap();
    let body = &mut saved["body"];
    let tasks = body["tasks"].as_u64().unwrap();
    body["finished"] = serde_json::json!([[0, tasks]]);
    body["partial"]["total"] = serde_json::json!(known_counts(27).0);
    body["complete"] = Value::Bool(true);
    let body = serde_json::to_string(body).unwrap();
    let checksum = format!("{:016x}", fnv1a(body.as_bytes()));
    fs::write(path, format!("{{\"checksum\":\"{checksum}\",\"body\":{body}}}")).unwrap();
}

#[test]
fn a_signal_after_the_last_task_still_tells_the_total() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("n27.ckpt");
    let args = ["count", "27", "--checkpoint", checkpoint.to_str().unwrap(), "--progress", "never"];
    // A checkpoint of N = 27 as saved before its first task, then made complete: the run
    // goes straight to the rotation-fixed counts, which take seconds.
    let mut child = nqueens().args(args).stderr(Stdio::null()).spawn().unwrap();
    wait_for_signal_handlers(&child);
    send(&child, "-TERM");
    assert_eq!(wait_at_most(&mut child, Duration::from_secs(60)).code(), Some(143));
    complete_n27(&checkpoint);

    let mut child = nqueens().args(args).stderr(Stdio::piped()).spawn().unwrap();
    sleep(Duration::from_millis(500));
    send(&child, "-TERM");
    let status = wait_at_most(&mut child, Duration::from_secs(30));
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert_eq!(status.code(), Some(143), "{log}");
    let total = known_counts(27).0;
    assert!(log.contains(&format!("N=27 total={total}")), "{log}");
    assert!(log.contains("progress saved to"), "{log}");
}

#[test]
fn an_estimate_stops_on_a_signal_in_its_rotation_fixed_count() {
    // The rotation-fixed counts of N = 27 come first and take seconds.
    let mut child = nqueens()
        .args(["estimate", "27", "--progress", "never"])
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    wait_for_signal_handlers(&child);
    sleep(Duration::from_millis(200));
    send(&child, "-INT");
    let status = wait_at_most(&mut child, Duration::from_secs(30));
    let mut log = String::new();
    child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
    assert_eq!(status.code(), Some(130), "{log}");
    assert!(log.contains("estimate stopped"), "{log}");
}

#[test]
fn a_cluster_of_any_size_is_estimated_at_once_or_refused() {
    // Eightfold lists grow fastest with depth: a list as fine as 10^8 cores would ask for
    // once filled 24 GB and was killed.
    let args = ["estimate", "17", "--method", "eightfold", "--cores", "100000000"];
    let output =
        output_within(nqueens().args(args).args(["--progress", "never"]), Duration::from_secs(60));
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(String::from_utf8_lossy(&output.stdout).contains("on 100000000 cores"));
    let shard = ["count", "17", "--method", "eightfold", "--shard", "7/100000000", "--json"];
    let output = output_within(nqueens().args(shard), Duration::from_secs(60));
    assert!(output.status.success(), "{}", stderr(&output));
    let refused = nqueens().args(["estimate", "12", "--cores", "99999999999"]).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(one_line(&refused).contains("--cores 99999999999 is more than"));
}

#[test]
fn every_usage_error_exits_2_and_every_run_failure_1() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-folder").join("c.ckpt");
    let usage: [&[&str]; 12] = [
        &["count", "abc"],
        &["count", "0"],
        &["count", "129"],
        &["count", "12", "--threads", "100000"],
        &["count", "12", "--shard", "3/2"],
        &["count", "15", "--method", "plain", "--depth", "9"],
        &["count", "12", "--checkpoint", "x", "--checkpoint-every", "0"],
        &["count", "8", "--place", "1:1", "--method", "join"],
        &["solve", "3"],
        &["solve", "41", "--board"],
        &["estimate", "12", "--threads", "100000"],
        &["merge", "/dev/null"],
    ];
    for args in usage {
        let output = nqueens().args(args).output().unwrap();
        assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
        one_line(&output);
    }
    let output =
        nqueens().args(["count", "8", "--checkpoint", missing.to_str().unwrap()]).output().unwrap();
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(one_line(&output).contains("No such file or directory"));
}

#[test]
fn verify_calls_input_that_is_not_text_a_usage_error() {
    let mut child = nqueens()
        .arg("verify")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"2 4 1 3\n\xff\xfe\n").unwrap();
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(one_line(&output), "nqueens: line 2: not UTF-8 text\n");
}

#[test]
fn a_signal_ends_a_listing_or_a_search_with_one_line_and_128_plus_its_number() {
    let runs: [(&[&str], &str, i32, &str); 2] = [
        (&["list", "20"], "-INT", 130, "stopped by SIGINT while listing solutions"),
        (&["solve", "10000000", "--random", "--seed", "1"], "-TERM", 143, "stopped by SIGTERM"),
    ];
    for (args, signal, status, said) in runs {
        let mut child =
            nqueens().args(args).stdout(Stdio::null()).stderr(Stdio::piped()).spawn().unwrap();
        wait_for_signal_handlers(&child);
        send(&child, signal);
        let ended = wait_at_most(&mut child, Duration::from_secs(30));
        let mut log = String::new();
        child.stderr.take().unwrap().read_to_string(&mut log).unwrap();
        assert_eq!(ended.code(), Some(status), "{args:?}: {log}");
        assert_eq!(log.lines().count(), 1, "{args:?}: {log}");
        assert!(log.starts_with(&format!("nqueens: {said}")), "{args:?}: {log}");
    }
}

#[test]
fn help_and_version_that_stdout_cannot_take_exit_1() {
    for args in [&["--help"][..], &["count", "-h"], &["--version"]] {
        let full = File::options().write(true).open("/dev/full").unwrap();
        let output = nqueens().args(args).stdout(full).output().unwrap();
        assert_eq!(output.status.code(), Some(1), "{args:?}");
        assert!(one_line(&output).starts_with("nqueens: cannot write to stdout"), "{args:?}");
    }
}

#[test]
fn a_merge_whose_result_is_lost_says_one_line_whatever_its_notes() {
    let dir = tempfile::tempdir().unwrap();
    let files = shard_files(dir.path());
    let mut shard: Value = serde_json::from_slice(&fs::read(&files[0]).unwrap()).unwrap();
    shard["kernel"] = Value::from(if shard["kernel"] == "scalar" { "avx2" } else { "scalar" });
    fs::write(&files[0], shard.to_string()).unwrap();
    let full = File::options().write(true).open("/dev/full").unwrap();
    let output = nqueens().arg("merge").args(&files).stdout(full).output().unwrap();
    assert_eq!(output.status.code(), Some(1));
    assert!(one_line(&output).contains(&format!("; the result: {TWELVE}")));
}
