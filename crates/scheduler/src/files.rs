//! The files a run must not lose, and paths that are outside input: a file is replaced
//! atomically (written to a temporary file beside it, flushed to disk, then renamed), only
//! a regular file is read, and at most [`MOST_CHECKPOINT_BYTES`] of it, so a FIFO cannot
//! block the run and a device cannot feed it without end; a symbolic link is followed, so
//! that its target holds the file and the link stays a link.

use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::checkpoint::{CheckpointError, MOST_CHECKPOINT_BYTES};

/// How many symbolic links a checkpoint path may pass through, as Linux allows (`ELOOP`).
const MOST_LINKS: usize = 40;

/// The bytes of the regular file at `path`, at most [`MOST_CHECKPOINT_BYTES`] of them;
/// `None` if there is no file.
pub(crate) fn read_regular_file(path: &Path) -> Result<Option<Vec<u8>>, CheckpointError> {
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
pub(crate) fn follow_links(path: &Path) -> io::Result<PathBuf> {
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
