//! Checkpoint files as outside input: whatever a file holds, `Checkpoint::load` returns a
//! checkpoint or an error and never panics, and what `save` writes loads back equal.

use std::path::Path;

use nqueens_scheduler::{Checkpoint, CheckpointError, Identity, MOST_CHECKPOINT_BYTES, fnv1a};
use nqueens_test_support::Damage;
use proptest::prelude::*;
use serde::{Deserialize, Serialize};

/// A partial result shaped like the engines' counts: wide integers, one with a default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
struct Partial {
    total: u128,
    #[serde(default)]
    thirds: u128,
    nodes: u128,
}

/// Each case writes and reads a file, in about a millisecond: a hundred cases take a tenth
/// of a second.
fn config() -> ProptestConfig {
    ProptestConfig { cases: 128, failure_persistence: None, ..ProptestConfig::default() }
}

/// Finished ranges as `save` writes them: sorted, disjoint, non-empty, within `tasks`.
fn finished(tasks: usize) -> impl Strategy<Value = Vec<[usize; 2]>> {
    prop::collection::btree_set(0..=tasks, 0..24).prop_map(|cuts| {
        let cuts: Vec<usize> = cuts.into_iter().collect();
        cuts.chunks_exact(2).map(|pair| [pair[0], pair[1]]).collect()
    })
}

fn checkpoint() -> impl Strategy<Value = Checkpoint<Partial>> {
    let identity = prop::collection::btree_map(any::<String>(), any::<String>(), 0..6);
    let tasks = (0..100_000usize).prop_flat_map(|tasks| (Just(tasks), finished(tasks)));
    let partial = (any::<u128>(), 0..3u128, any::<u128>())
        .prop_map(|(total, thirds, nodes)| Partial { total, thirds, nodes });
    // Times a run can record, up to some 30,000 years.
    let elapsed_s = prop_oneof![Just(0.0), 0.0..1.0f64, 0.0..1e12f64];
    (identity, tasks, partial, elapsed_s, any::<bool>()).prop_map(
        |(identity, (tasks, finished), partial, elapsed_s, complete)| Checkpoint {
            identity,
            tasks,
            finished,
            partial,
            elapsed_s,
            complete,
            sessions: Vec::new(),
        },
    )
}

/// Loads the file at `path`, which exists: a checkpoint, or an error that says why not.
/// A panic fails the property by itself.
fn load(path: &Path) -> Result<Checkpoint<Partial>, CheckpointError> {
    let loaded = Checkpoint::<Partial>::load(path)?;
    Ok(loaded.expect("the file exists, so it is not reported missing"))
}

/// What a loaded checkpoint promises whatever file it came from: finished ranges in
/// order, non-empty, and within the task list.
fn assert_well_formed(checkpoint: &Checkpoint<Partial>) {
    let mut end_of_previous = 0;
    for &[start, end] in &checkpoint.finished {
        assert!(
            end_of_previous <= start && start < end && end <= checkpoint.tasks,
            "{checkpoint:?}"
        );
        end_of_previous = end;
    }
}

/// The file `save` writes for `body`, with a checksum that matches, so that the damage done
/// to the body reaches the parser of the checkpoint itself rather than the checksum test.
fn envelope(body: &str) -> String {
    format!(r#"{{"checksum":"{:016x}","body":{body}}}"#, fnv1a(body.as_bytes()))
}

/// Damage of every kind, anywhere in a checkpoint file, with numbers replaced by values
/// near the edges of what the fields hold or by what JSON does not have.
fn damage() -> impl Strategy<Value = Damage> {
    Damage::any(vec![
        "-1",
        "0",
        "1.5",
        "1e400",
        "NaN",
        "null",
        "\"\"",
        "[]",
        "18446744073709551616",
        "340282366920938463463374607431768211456",
    ])
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn a_saved_checkpoint_loads_back_equal(checkpoint in checkpoint()) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        checkpoint.save(&path).unwrap();
        // Exactly, the time to the last bit too: the workspace enables serde_json's
        // `float_roundtrip`, so a time does not drift from save to save.
        prop_assert_eq!(load(&path).unwrap(), checkpoint);
    }

    #[test]
    fn random_bytes_are_refused_without_a_panic(
        bytes in prop::collection::vec(any::<u8>(), 1..256),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        std::fs::write(&path, &bytes).unwrap();
        // Random bytes are all but never a checkpoint; if they are one, it is well formed.
        if let Ok(checkpoint) = load(&path) {
            assert_well_formed(&checkpoint);
        }
    }

    #[test]
    fn damaged_checkpoint_files_load_or_are_refused_without_a_panic(
        checkpoint in checkpoint(),
        damage in damage(),
        checksum_still_matches in any::<bool>(),
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        let body = serde_json::to_string(&checkpoint).unwrap();
        let damaged = if checksum_still_matches {
            let body = damage.apply(body.as_bytes());
            envelope(&String::from_utf8_lossy(&body)).into_bytes()
        } else {
            damage.apply(envelope(&body).as_bytes())
        };
        std::fs::write(&path, &damaged).unwrap();
        if damaged.is_empty() {
            // Truncated to nothing, the file is one made to be written (`mktemp`): no
            // checkpoint yet, as `load` documents.
            prop_assert!(matches!(Checkpoint::<Partial>::load(&path), Ok(None)));
        } else {
            match load(&path) {
                Ok(loaded) => assert_well_formed(&loaded),
                Err(CheckpointError::Mismatch { .. }) => panic!("loading compares no identity"),
                Err(_) => {}
            }
        }
        prop_assert_eq!(std::fs::read(&path).unwrap(), damaged, "a damaged file is left as it is");
    }
}

#[test]
fn the_envelope_here_is_the_one_save_writes() {
    // The damage test recomputes checksums with `envelope`: it must match `save`, or its
    // "checksum still matches" cases would all stop at the checksum.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run.ckpt");
    let checkpoint = Checkpoint {
        identity: Identity::from([("n".to_owned(), "12".to_owned())]),
        tasks: 10,
        finished: vec![[0, 3], [5, 6]],
        partial: Partial { total: u128::MAX, thirds: 2, nodes: 7 },
        elapsed_s: 1.25,
        complete: false,
        sessions: Vec::new(),
    };
    checkpoint.save(&path).unwrap();
    let saved = std::fs::read_to_string(&path).unwrap();
    assert_eq!(saved, envelope(&serde_json::to_string(&checkpoint).unwrap()));
}

fn saved_sample() -> Checkpoint<u128> {
    Checkpoint {
        identity: Identity::from([("n".to_owned(), "12".to_owned())]),
        tasks: 4,
        finished: vec![[0, 2]],
        partial: 7,
        elapsed_s: 0.5,
        complete: false,
        sessions: Vec::new(),
    }
}

#[test]
fn only_a_regular_file_is_read() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo");
    let status = std::process::Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(status.success());
    // Opening a FIFO for reading would wait for a writer: the refusal must come at once.
    for (path, kind) in [
        (fifo.as_path(), "a FIFO"),
        (dir.path(), "a directory"),
        (Path::new("/dev/full"), "a device"),
    ] {
        match Checkpoint::<u128>::load(path) {
            Err(CheckpointError::NotAFile { kind: found, .. }) => assert_eq!(found, kind),
            other => panic!("{}: {other:?}", path.display()),
        }
    }
}

#[test]
fn a_file_larger_than_any_checkpoint_is_refused_unread() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("huge.ckpt");
    let file = std::fs::File::create(&path).unwrap();
    file.set_len(MOST_CHECKPOINT_BYTES + 1).unwrap();
    let error = Checkpoint::<u128>::load(&path).unwrap_err();
    assert!(matches!(error, CheckpointError::Corrupt { .. }), "{error}");
    assert!(error.to_string().contains("larger than"), "{error}");
}

#[test]
fn a_symbolic_link_is_followed_and_kept() {
    let dir = tempfile::tempdir().unwrap();
    let elsewhere = dir.path().join("elsewhere");
    std::fs::create_dir(&elsewhere).unwrap();
    let link = dir.path().join("run.ckpt");
    // A relative target, relative to the link's directory, that does not exist yet.
    std::os::unix::fs::symlink("elsewhere/target.ckpt", &link).unwrap();
    saved_sample().save(&link).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let target = elsewhere.join("target.ckpt");
    assert_eq!(Checkpoint::<u128>::load(&target).unwrap(), Some(saved_sample()));
    assert_eq!(Checkpoint::<u128>::load(&link).unwrap(), Some(saved_sample()));
    // Saved again through the link: the target is replaced, the link stays.
    let mut later = saved_sample();
    later.finished = vec![[0, 4]];
    later.save(&link).unwrap();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(Checkpoint::<u128>::load(&target).unwrap(), Some(later));
}

#[test]
fn a_loop_of_links_is_an_error_not_a_hang() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    std::os::unix::fs::symlink(&b, &a).unwrap();
    std::os::unix::fs::symlink(&a, &b).unwrap();
    assert!(saved_sample().save(&a).is_err());
    assert!(Checkpoint::<u128>::load(&a).is_err());
}
