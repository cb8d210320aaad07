//! Checkpoint files: what a run has finished, saved so that it can resume.
//!
//! A checkpoint is JSON: `{"checksum": "...", "body": {...}}`. The checksum is an FNV-1a
//! hash of the body's exact text, so a file that was truncated, edited or damaged is
//! refused (and left as it is) instead of resuming with wrong counts. Files are replaced
//! atomically: written to a temporary file beside them, flushed to disk, then renamed.
//!
//! A checkpoint is held by one run at a time: [`CheckpointLock`] takes an advisory lock on
//! a file beside it (`FILE.lock`), which the kernel releases when the process ends however
//! it ends, so `kill -9` never leaves a stale lock, and a second run is refused at once.
//!
//! The path is outside input too. Only a regular file is read, and at most
//! [`MOST_CHECKPOINT_BYTES`] of it, so a FIFO cannot block the run and a device cannot
//! feed it without end; a symbolic link is followed, so that its target holds the
//! checkpoint and the link stays a link.

use std::collections::BTreeMap;
use std::fmt;
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

/// What a checkpoint knows of its run, field by field (N, method, depth, shard, engine
/// version...). A checkpoint resumes only a run with the very same identity.
pub type Identity = BTreeMap<String, String>;

/// The largest checkpoint read. A checkpoint holds its finished tasks as ranges, a few
/// dozen bytes each: a list of two million tasks finished every other one is about 40 MB.
pub const MOST_CHECKPOINT_BYTES: u64 = 64 << 20;

/// How many symbolic links a checkpoint path may pass through, as Linux allows (`ELOOP`).
const MOST_LINKS: usize = 40;

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

/// The bytes of the regular file at `path`, at most [`MOST_CHECKPOINT_BYTES`] of them;
/// `None` if there is no file.
fn read_regular_file(path: &Path) -> Result<Option<Vec<u8>>, CheckpointError> {
    let io_error = |source| CheckpointError::Io { path: path.to_owned(), source };
    // Non-blocking, so that opening a FIFO returns at once instead of waiting for a writer;
    // what was opened is then looked at before a byte is read.
    let file = match File::options().read(true).custom_flags(libc::O_NONBLOCK).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(source) => return Err(io_error(source)),
    };
    let file_type = file.metadata().map_err(io_error)?.file_type();
    let kind = if file_type.is_file() {
        None
    } else if file_type.is_dir() {
        Some("a directory")
    } else if file_type.is_fifo() {
        Some("a FIFO")
    } else if file_type.is_char_device() || file_type.is_block_device() {
        Some("a device")
    } else {
        Some("a socket")
    };
    if let Some(kind) = kind {
        return Err(CheckpointError::NotAFile { path: path.to_owned(), kind });
    }
    let mut bytes = Vec::new();
    file.take(MOST_CHECKPOINT_BYTES + 1).read_to_end(&mut bytes).map_err(io_error)?;
    if bytes.len() as u64 > MOST_CHECKPOINT_BYTES {
        return Err(CheckpointError::Corrupt {
            path: path.to_owned(),
            reason: format!(
                "larger than the {} MiB a checkpoint can be",
                MOST_CHECKPOINT_BYTES >> 20
            ),
        });
    }
    Ok(Some(bytes))
}

/// The file a path names once its symbolic links are followed: the path itself if it is
/// not a link, or the final target of its links, which may not exist yet.
fn follow_links(path: &Path) -> io::Result<PathBuf> {
    let mut current = path.to_owned();
    for _ in 0..MOST_LINKS {
        match fs::symlink_metadata(&current) {
            Ok(metadata) if metadata.file_type().is_symlink() => {
                let target = fs::read_link(&current)?;
                // A relative target is relative to the link's directory; joining an
                // absolute one replaces the directory.
                current = current.parent().unwrap_or(Path::new("")).join(target);
            }
            Ok(_) => return Ok(current),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(current),
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::other(format!("more than {MOST_LINKS} symbolic links")))
}

/// Replaces the file at `path` with `bytes`: temporary file, fsync, rename, fsync of the
/// directory. Where `path` is a symbolic link, its target is replaced and the link kept.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let path = &follow_links(path)?;
    let dir = match path.parent() {
        Some(dir) if !dir.as_os_str().is_empty() => dir,
        _ => Path::new("."),
    };
    let name = path.file_name().ok_or_else(|| io::Error::other("not a file name"))?;
    let mut temp_name = name.to_os_string();
    temp_name.push(format!(".tmp{}", std::process::id()));
    let temp = dir.join(temp_name);
    let result = (|| {
        let mut file = File::create(&temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(&temp, path)?;
        // The rename itself must reach the disk too, or a crash could undo it.
        File::open(dir)?.sync_all()
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// A run's hold on its checkpoint: an exclusive advisory lock (`flock`) on `FILE.lock`,
/// beside the file its links lead to, naming the holding process. The kernel drops the lock
/// when the process ends, however it ends; the lock file is removed when the hold is
/// dropped, and one left by a killed run is taken over by the next.
#[derive(Debug)]
pub struct CheckpointLock {
    /// The checkpoint.
    path: PathBuf,
    /// The lock file.
    lock_path: PathBuf,
    /// Held open: the lock lives as long as this descriptor.
    _open: File,
    /// Why the file system could not lock, where it could not: the run then goes on
    /// unguarded rather than not at all.
    unenforced: Option<String>,
}

impl CheckpointLock {
    /// Takes the checkpoint at `path` for this process, or says who holds it
    /// ([`CheckpointError::Busy`]) without waiting.
    pub fn acquire(path: &Path) -> Result<CheckpointLock, CheckpointError> {
        let io_error = |source| CheckpointError::Io { path: path.to_owned(), source };
        let target = follow_links(path).map_err(io_error)?;
        let mut lock_name = target.file_name().unwrap_or_default().to_os_string();
        lock_name.push(".lock");
        let lock_path = target.with_file_name(lock_name);
        loop {
            let mut file = File::options()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false)
                .open(&lock_path)
                .map_err(io_error)?;
            match try_lock(&file) {
                Ok(true) => {}
                Ok(false) => {
                    let mut holder = String::new();
                    // The holder writes its name just after it locks: an empty file is one
                    // caught in between.
                    let _ = file.read_to_string(&mut holder);
                    let holder = match holder.trim() {
                        "" => "a process that has not yet written its name".to_owned(),
                        named => named.to_owned(),
                    };
                    return Err(CheckpointError::Busy { path: path.to_owned(), holder });
                }
                // Lustre without `-o flock`, an NFS mount whose lock daemon is down: a run
                // unguarded is better than none.
                Err(e)
                    if matches!(
                        e.raw_os_error(),
                        Some(libc::ENOSYS | libc::EOPNOTSUPP | libc::ENOLCK)
                    ) =>
                {
                    let unenforced = Some(format!(
                        "the file system cannot lock {} ({e}), so nothing stops a second run \
                         on this checkpoint",
                        lock_path.display()
                    ));
                    return Ok(CheckpointLock {
                        path: path.to_owned(),
                        lock_path,
                        _open: file,
                        unenforced,
                    });
                }
                Err(e) => return Err(io_error(e)),
            }
            // A holder that was ending may have removed the file between our open and our
            // lock: the lock is then on a file no one else will find, so try again.
            if !is_same_file(&file, &lock_path).map_err(io_error)? {
                continue;
            }
            let holder = format!("process {} on {}", std::process::id(), host_name());
            file.set_len(0).map_err(io_error)?;
            file.write_all(holder.as_bytes()).map_err(io_error)?;
            return Ok(CheckpointLock {
                path: path.to_owned(),
                lock_path,
                _open: file,
                unenforced: None,
            });
        }
    }

    /// The checkpoint this lock holds.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Why the checkpoint is not locked after all, where its file system cannot lock.
    pub fn unenforced(&self) -> Option<&str> {
        self.unenforced.as_deref()
    }
}

impl Drop for CheckpointLock {
    fn drop(&mut self) {
        // Removed while still locked, so that no other run can have locked this file; the
        // descriptor closes, and the lock goes, after this.
        let _ = fs::remove_file(&self.lock_path);
    }
}

/// Locks `file` exclusively if no one else has: `false` if another open file holds it.
fn try_lock(file: &File) -> io::Result<bool> {
    use std::os::fd::AsRawFd;
    // SAFETY: `flock` takes any descriptor and flags and touches no memory of ours; the
    // descriptor is open for as long as `file` is borrowed.
    let result = unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) };
    if result == 0 {
        return Ok(true);
    }
    let error = io::Error::last_os_error();
    match error.raw_os_error() {
        Some(libc::EWOULDBLOCK) => Ok(false),
        _ => Err(error),
    }
}

/// Whether the open `file` is the file at `path` (not one removed, or replaced, since).
fn is_same_file(file: &File, path: &Path) -> io::Result<bool> {
    use std::os::unix::fs::MetadataExt;
    let open = file.metadata()?;
    match fs::metadata(path) {
        Ok(named) => Ok((open.dev(), open.ino()) == (named.dev(), named.ino())),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

/// This machine's name, for the lock file: runs on several machines may share a disk.
fn host_name() -> String {
    let mut buffer = [0u8; 256];
    // SAFETY: the pointer and length describe `buffer`, which outlives the call;
    // `gethostname` writes at most that many bytes.
    let result = unsafe { libc::gethostname(buffer.as_mut_ptr().cast(), buffer.len()) };
    let end = buffer.iter().position(|&b| b == 0).unwrap_or(buffer.len());
    match (result, String::from_utf8_lossy(&buffer[..end])) {
        (0, name) if !name.is_empty() => name.into_owned(),
        _ => "this machine".to_owned(),
    }
}

#[cfg(test)]
mod tests {
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
