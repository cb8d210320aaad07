//! `nqueens count --mpi` under `mpirun`, with 2 and 3 ranks on this machine. These run only
//! in a build with `--features mpi` (`.ci/run` does one); without it, `--mpi` must be refused.

use std::process::{Command, Output};

#[cfg(feature = "mpi")]
use nqueens_test_support::{known_counts, known_rotation_fixed};
#[cfg(feature = "mpi")]
use serde_json::Value;

fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

#[cfg(not(feature = "mpi"))]
#[test]
fn mpi_without_the_feature_is_one_clear_line_and_a_usage_error() {
    let output = Command::new(env!("CARGO_BIN_EXE_nqueens"))
        .args(["count", "8", "--mpi"])
        .output()
        .expect("nqueens runs");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        stderr(&output),
        "nqueens: --mpi needs an nqueens built with MPI support: \
         cargo build --release --features mpi\n"
    );
}

/// `mpirun` with `ranks` ranks, each running `nqueens` with `args`; `:` in `args` starts
/// the arguments of another program of the job, as mpirun takes them.
#[cfg(feature = "mpi")]
fn mpirun(ranks: usize, args: &[&str]) -> Output {
    let nqueens = env!("CARGO_BIN_EXE_nqueens");
    let mut command = Command::new("timeout");
    // A hang is what these tests look for: give up long before a test runner would.
    command.args(["120", "mpirun", "--allow-run-as-root", "--oversubscribe"]);
    // Ranks waiting on this 2-core machine yield instead of spinning.
    command.args(["--mca", "mpi_yield_when_idle", "1", "-np", &ranks.to_string(), nqueens]);
    command.args(args.iter().map(|&arg| if arg == "NQUEENS" { nqueens } else { arg }));
    command.output().expect("mpirun runs (Debian: apt-get install openmpi-bin)")
}

#[cfg(feature = "mpi")]
fn counts_match_the_known_ones(mode: &[&str]) {
    for ranks in [2, 3] {
        for (n, method) in
            [(1, "eightfold"), (2, "eightfold"), (8, "half"), (12, "plain"), (14, "eightfold")]
        {
            let (n_text, threads) = (n.to_string(), if ranks == 2 { "2" } else { "1" });
            let mut args = vec!["count", &n_text, "--mpi", "--json", "--method", method];
            args.extend_from_slice(&["--threads", threads]);
            args.extend_from_slice(mode);
            let output = mpirun(ranks, &args);
            let case = format!("{ranks} ranks, {args:?}");
            assert!(output.status.success(), "{case}: {}", stderr(&output));
            // Only rank 0 prints, once.
            let value: Value = serde_json::from_slice(&output.stdout).unwrap_or_else(|e| {
                panic!("{case}: {e}: {}", String::from_utf8_lossy(&output.stdout))
            });
            let count = |name: &str| u128::from(value[name].as_u64().unwrap());
            assert_eq!((count("total"), count("unique")), known_counts(n), "{case}");
            assert_eq!(value["counts"]["total"], value["total"], "{case}");
            assert_eq!(
                value["threads"].as_u64(),
                Some(ranks as u64 * threads.parse::<u64>().unwrap()),
                "{case}"
            );
            assert_eq!(value["shard"], Value::Null, "{case}");
        }
    }
}

#[cfg(feature = "mpi")]
#[test]
fn ranks_sharing_batches_find_the_known_counts() {
    counts_match_the_known_ones(&[]);
}

#[cfg(feature = "mpi")]
#[test]
fn ranks_running_static_shards_find_the_known_counts() {
    counts_match_the_known_ones(&["--mpi-static"]);
}

#[cfg(feature = "mpi")]
#[test]
fn the_text_output_is_that_of_count() {
    let output = mpirun(2, &["count", "10", "--mpi", "--threads", "1", "--kernel", "scalar"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(
        text.starts_with(
            "N=10 total=724 unique=92 method=eightfold kernel=scalar threads=2 elapsed="
        ),
        "{text}"
    );
    assert_eq!(text.lines().count(), 1);
}

#[cfg(feature = "mpi")]
#[test]
fn ranks_find_the_known_half_turn_count() {
    for mode in [None, Some("--mpi-static")] {
        let mut args = vec!["count", "20", "--mpi", "--json", "--symmetric", "half-turn"];
        args.extend(mode);
        let output = mpirun(2, &args);
        assert!(output.status.success(), "{args:?}: {}", stderr(&output));
        let value: Value = serde_json::from_slice(&output.stdout).unwrap();
        assert_eq!(u128::from(value["total"].as_u64().unwrap()), known_rotation_fixed(20).0);
        assert_eq!(value["symmetric"], "half-turn");
    }
}

#[cfg(feature = "mpi")]
#[test]
fn a_rank_counting_something_else_fails_the_run_with_both_named() {
    for mode in [None, Some("--mpi-static")] {
        let mut args =
            vec!["count", "12", "--mpi", ":", "-np", "1", "NQUEENS", "count", "13", "--mpi"];
        args.extend(mode);
        let output = mpirun(1, &args);
        assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
        let message = stderr(&output);
        assert!(
            message.contains(
                "nqueens: rank 0 of 2: rank 1 counts something else: n is 13 there but 12 on \
                 rank 0"
            ),
            "{message}"
        );
    }
}

#[cfg(feature = "mpi")]
#[test]
fn a_failing_rank_other_than_0_ends_the_run_with_its_reason() {
    let args = [
        "count", "12", "--mpi", ":", "-np", "1", "NQUEENS", "count", "12", "--mpi", "--depth", "40",
    ];
    let output = mpirun(1, &args);
    // A split too deep is a usage error, and rank 1's status is the job's.
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("nqueens: rank 1 of 2: split depth must be between 0 and 11"),
        "{}",
        stderr(&output)
    );
}

#[cfg(feature = "mpi")]
#[test]
fn a_rank_that_dies_ends_the_run_instead_of_hanging() {
    let output = mpirun(1, &["count", "15", "--mpi", ":", "-np", "1", "sh", "-c", "exit 3"]);
    // Not 124, the status of `timeout`: mpirun ended the job itself.
    assert_eq!(output.status.code(), Some(3), "{}", stderr(&output));
}

#[test]
fn mpi_does_not_mix_with_shards_or_checkpoints() {
    for extra in [["--shard", "0/2"], ["--checkpoint", "x.ckpt"]] {
        let output = Command::new(env!("CARGO_BIN_EXE_nqueens"))
            .args(["count", "8", "--mpi"])
            .args(extra)
            .output()
            .expect("nqueens runs");
        assert_eq!(output.status.code(), Some(2), "{extra:?}");
        assert!(stderr(&output).contains("cannot be used with"), "{}", stderr(&output));
    }
}
