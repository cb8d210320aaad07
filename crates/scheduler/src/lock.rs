//! A checkpoint is held by one run at a time: [`CheckpointLock`] takes an advisory lock on
//! a file beside it (`FILE.lock`), which the kernel releases when the process ends however
//! it ends, so `kill -9` never leaves a stale lock, and a second run is refused at once.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};

use crate::checkpoint::CheckpointError;
use crate::files::follow_links;

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
