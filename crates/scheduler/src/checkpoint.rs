//! Checkpoint files: what a run has finished, saved so that it can resume.
//!
//! A checkpoint is JSON: `{"checksum": "...", "body": {...}}`. The checksum is an FNV-1a
//! hash of the body's exact text, so a file that was truncated, edited or damaged is
//! refused (and left as it is) instead of resuming with wrong counts. How the file is read
//! and replaced is [`crate::files`]'s; who may hold it, [`crate::lock`]'s.

use std::collections::BTreeMap;
use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use crate::files::{read_regular_file, write_atomically};

/// What a checkpoint knows of its run, field by field (N, method, depth, shard, engine
/// version...). A checkpoint resumes only a run with the very same identity.
pub type Identity = BTreeMap<String, String>;

/// The largest checkpoint read. A checkpoint holds its finished tasks as ranges, a few
/// dozen bytes each: a list of two million tasks finished every other one is about 40 MB.
pub const MOST_CHECKPOINT_BYTES: u64 = 64 << 20;

/// The saved state of a run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Checkpoint<R> {
    /// The run this checkpoint belongs to.
    pub identity: Identity,
    /// The length of the whole task list (all shards).
    pub tasks: usize,
    /// The finished task indices, as sorted half-open ranges `[start, end)`.
    pub finished: Vec<[usize; 2]>,
    /// The merged result of the finished tasks.
    pub partial: R,
    /// Seconds spent on the run so far, over every session.
    pub elapsed_s: f64,
    /// Whether the run has finished all its tasks; `partial` is then the result.
    pub complete: bool,
    /// What ran the run, session by session, oldest first; empty in checkpoints written
    /// before sessions were recorded.
    #[serde(default)]
    pub sessions: Vec<Session>,
}

/// What one or more consecutive sessions of a run that were alike (the same description)
/// did: how many tasks they finished, in how much time.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Session {
    /// What the caller said of the session ([`crate::Runner::session`]): the program's
    /// build and settings, say.
    pub about: BTreeMap<String, String>,
    /// How many sessions this entry stands for.
    pub runs: usize,
    /// Tasks they finished.
    pub tasks: usize,
    /// Seconds they spent on the run.
    pub elapsed_s: f64,
}

impl Session {
    /// `sessions` with `latest` added at the end, joined to the last entry if it is alike,
    /// so that a run resumed a thousand times the same way keeps one entry.
    pub fn append(sessions: &[Session], latest: Session) -> Vec<Session> {
        let mut all = sessions.to_vec();
        match all.last_mut() {
            Some(last) if last.about == latest.about => {
                // Saturating: the counts come from a file, which may have been edited.
                last.runs = last.runs.saturating_add(latest.runs);
                last.tasks = last.tasks.saturating_add(latest.tasks);
                last.elapsed_s += latest.elapsed_s;
            }
            _ => all.push(latest),
        }
        all
    }
}

#[derive(Serialize, Deserialize)]
struct Envelope<'a> {
    checksum: String,
    #[serde(borrow)]
    body: &'a RawValue,
}

/// Why a checkpoint could not be read or written.
#[derive(Debug)]
pub enum CheckpointError {
    /// The file could not be read or written.
    Io {
        /// The checkpoint file.
        path: PathBuf,
        /// What went wrong.
        source: io::Error,
    },
    /// The file is not a whole, undamaged checkpoint.
    Corrupt {
        /// The checkpoint file.
        path: PathBuf,
        /// What is wrong with it.
        reason: String,
    },
    /// The path names something that cannot hold a checkpoint: a directory, a FIFO, a
    /// device or a socket.
    NotAFile {
        /// The checkpoint path.
        path: PathBuf,
        /// What it is instead, such as "a FIFO".
        kind: &'static str,
    },
    /// The file belongs to a different run.
    Mismatch {
        /// The checkpoint file.
        path: PathBuf,
        /// The fields that differ, with both values.
        difference: String,
        /// The identity the file records, so that a caller can say more of a difference
        /// it knows to be grave.
        saved: Box<Identity>,
        /// What ran the file's run, as it records.
        sessions: Vec<Session>,
    },
    /// Another run holds the checkpoint.
    Busy {
        /// The checkpoint file.
        path: PathBuf,
        /// Who holds it, as the holder wrote it in the lock file ("process 1234 on host").
        holder: String,
    },
}

impl fmt::Display for CheckpointError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CheckpointError::Io { path, source } => {
                write!(f, "checkpoint {}: {source}", path.display())
            }
            CheckpointError::Corrupt { path, reason } => write!(
                f,
                "checkpoint {} is damaged or not a checkpoint ({reason}); it was left untouched",
                path.display()
            ),
            CheckpointError::NotAFile { path, kind } => write!(
                f,
                "checkpoint {} is {kind}, not a regular file; name a file (it may not exist yet)",
                path.display()
            ),
            CheckpointError::Mismatch { path, difference, .. } => write!(
                f,
                "checkpoint {} belongs to a different run: {difference}; use another file or \
                 the same options",
                path.display()
            ),
            CheckpointError::Busy { path, holder } => write!(
                f,
                "checkpoint {} is in use by another run ({holder}); wait for that run to end, \
                 or use another file",
                path.display()
            ),
        }
    }
}

impl std::error::Error for CheckpointError {}

/// The 64-bit FNV-1a hash: tiny, dependency-free, and enough to tell a damaged file.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .fold(0xcbf2_9ce4_8422_2325, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

impl<R: Serialize + DeserializeOwned> Checkpoint<R> {
    /// Reads the checkpoint at `path`: `Ok(None)` if there is no file.
    pub fn load(path: &Path) -> Result<Option<Checkpoint<R>>, CheckpointError> {
        let Some(bytes) = read_regular_file(path)? else { return Ok(None) };
        // An empty file is one made to be written (`mktemp`), not one damaged: a damaged
        // checkpoint is never empty, since each is written whole and renamed into place.
        if bytes.is_empty() {
            return Ok(None);
        }
        let corrupt = |reason: String| CheckpointError::Corrupt { path: path.to_owned(), reason };
        let text = String::from_utf8(bytes).map_err(|_| corrupt("not UTF-8 text".into()))?;
        let envelope: Envelope<'_> =
            serde_json::from_str(&text).map_err(|e| corrupt(format!("not valid JSON: {e}")))?;
        if envelope.checksum != format!("{:016x}", fnv1a(envelope.body.get().as_bytes())) {
            return Err(corrupt("checksum does not match".into()));
        }
        let checkpoint: Checkpoint<R> = serde_json::from_str(envelope.body.get())
            .map_err(|e| corrupt(format!("unexpected content: {e}")))?;
        checkpoint.check_ranges().map_err(corrupt)?;
        Ok(Some(checkpoint))
    }

    fn check_ranges(&self) -> Result<(), String> {
        let mut end_of_previous = 0;
        for &[start, end] in &self.finished {
            if start < end_of_previous || start >= end || end > self.tasks {
                return Err(format!("finished range [{start}, {end}) is out of order or range"));
            }
            end_of_previous = end;
        }
        Ok(())
    }

    /// Writes the checkpoint to `path` atomically: a crash leaves the old file or the new
    /// one, never a mix.
    pub fn save(&self, path: &Path) -> Result<(), CheckpointError> {
        let io_error = |source| CheckpointError::Io { path: path.to_owned(), source };
        let body = serde_json::to_string(self).map_err(|e| io_error(io::Error::other(e)))?;
        let raw = RawValue::from_string(body).map_err(|e| io_error(io::Error::other(e)))?;
        let envelope =
            Envelope { checksum: format!("{:016x}", fnv1a(raw.get().as_bytes())), body: &raw };
        let text = serde_json::to_string(&envelope).map_err(|e| io_error(io::Error::other(e)))?;
        write_atomically(path, text.as_bytes()).map_err(io_error)
    }

    /// Refuses a checkpoint whose identity or task list differs from this run's.
    pub fn check_identity(
        &self,
        identity: &Identity,
        tasks: usize,
        path: &Path,
    ) -> Result<(), CheckpointError> {
        let mismatch = |difference| CheckpointError::Mismatch {
            path: path.to_owned(),
            difference,
            saved: Box::new(self.identity.clone()),
            sessions: self.sessions.clone(),
        };
        let keys: std::collections::BTreeSet<&String> =
            self.identity.keys().chain(identity.keys()).collect();
        let show = |v: Option<&String>| v.map_or("absent".to_owned(), |v| format!("'{v}'"));
        let differences: Vec<String> = keys
            .into_iter()
            .filter(|key| self.identity.get(*key) != identity.get(*key))
            .map(|key| {
                format!(
                    "{key} is {} there but {} here",
                    show(self.identity.get(key)),
                    show(identity.get(key))
                )
            })
            .collect();
        if !differences.is_empty() {
            return Err(mismatch(differences.join(", ")));
        }
        if self.tasks != tasks {
            return Err(mismatch(format!("it has {} tasks, this run has {tasks}", self.tasks)));
        }
        Ok(())
    }
}

/// The finished ranges of a set of flags.
pub(crate) fn ranges(finished: &[bool]) -> Vec<[usize; 2]> {
    let mut out: Vec<[usize; 2]> = Vec::new();
    for (index, _) in finished.iter().enumerate().filter(|(_, done)| **done) {
        match out.last_mut() {
            Some(range) if range[1] == index => range[1] += 1,
            _ => out.push([index, index + 1]),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::fs;

    use super::*;

    fn sample() -> Checkpoint<u128> {
        let identity =
            Identity::from([("n".into(), "12".into()), ("method".into(), "plain".into())]);
        Checkpoint {
            identity,
            tasks: 10,
            finished: vec![[0, 3], [5, 6]],
            partial: u128::MAX - 1,
            elapsed_s: 1.5,
            complete: false,
            sessions: Vec::new(),
        }
    }

    #[test]
    fn round_trips_through_a_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        assert!(Checkpoint::<u128>::load(&path).unwrap().is_none());
        sample().save(&path).unwrap();
        assert_eq!(Checkpoint::<u128>::load(&path).unwrap(), Some(sample()));
    }

    #[test]
    fn damaged_files_are_refused_and_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        sample().save(&path).unwrap();
        let text = fs::read_to_string(&path).unwrap();
        for damaged in [text[..text.len() / 2].to_owned(), text.replace("\"12\"", "\"13\"")] {
            fs::write(&path, &damaged).unwrap();
            let error = Checkpoint::<u128>::load(&path).unwrap_err();
            assert!(matches!(error, CheckpointError::Corrupt { .. }), "{error}");
            assert_eq!(fs::read_to_string(&path).unwrap(), damaged);
        }
    }

    #[test]
    fn an_empty_file_is_a_new_checkpoint() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.ckpt");
        fs::write(&path, "").unwrap();
        assert!(Checkpoint::<u128>::load(&path).unwrap().is_none());
    }

    #[test]
    fn a_different_run_is_named() {
        let mut identity = sample().identity;
        identity.insert("n".into(), "13".into());
        let error = sample().check_identity(&identity, 10, Path::new("x")).unwrap_err();
        assert!(error.to_string().contains("n is '12' there but '13' here"), "{error}");
        assert!(sample().check_identity(&sample().identity, 11, Path::new("x")).is_err());
        assert!(sample().check_identity(&sample().identity, 10, Path::new("x")).is_ok());
    }

    #[test]
    fn ranges_compress_runs() {
        assert_eq!(
            ranges(&[true, true, false, true, false, false, true]),
            vec![[0, 2], [3, 4], [6, 7]]
        );
        assert_eq!(ranges(&[]), Vec::<[usize; 2]>::new());
    }
}
