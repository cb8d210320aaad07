//! Where the workspace is, and reading and writing its JSON files.

use std::path::{Path, PathBuf};

use serde::Serialize;
use serde::de::DeserializeOwned;

/// The workspace root: the nearest folder up from the current one that holds xtask (so a
/// built xtask can be run in a copy of the workspace elsewhere), or else the one it was
/// built in.
pub(crate) fn project_root() -> PathBuf {
    let here = std::env::current_dir().unwrap_or_default();
    here.ancestors().find(|dir| dir.join("xtask/Cargo.toml").is_file()).map_or_else(
        || {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .parent()
                .expect("xtask is inside the workspace")
                .to_owned()
        },
        Path::to_path_buf,
    )
}

pub(crate) fn write_json(path: &Path, value: &impl Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(value).map_err(|e| e.to_string())?;
    write_file(path, &(text + "\n"))
}

/// A JSON file named on the command line: its name, for the table row that reads it, and
/// what it holds.
pub(crate) fn named_json(file: &Path) -> Result<(String, serde_json::Value), String> {
    let name = file
        .file_name()
        .map_or_else(|| file.display().to_string(), |name| name.to_string_lossy().into_owned());
    let text = std::fs::read_to_string(file)
        .map_err(|e| format!("cannot read {}: {e}", file.display()))?;
    let json =
        serde_json::from_str(&text).map_err(|e| format!("{}: not JSON: {e}", file.display()))?;
    Ok((name, json))
}

/// Replaces the file at `path` with `text` atomically: an interrupted sweep leaves the
/// results it appends to as they were, not cut short.
pub(crate) fn write_file(path: &Path, text: &str) -> Result<(), String> {
    nqueens_scheduler::write_atomically(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Committed results that a sweep adds to as it goes: what the file held before the
/// sweep, written again with the sweep so far as it goes (after each board, or each
/// seed), so that a sweep of the frontier stopped after hours keeps what it finished.
pub(crate) struct Appending<T> {
    path: PathBuf,
    before: T,
}

impl<T: Default + Clone + Serialize + DeserializeOwned> Appending<T> {
    /// The results at `path`, or none if it is missing.
    pub(crate) fn open(path: &Path) -> Result<Appending<T>, String> {
        let before = if path.exists() { read_json(path)? } else { T::default() };
        Ok(Appending { path: path.to_owned(), before })
    }

    /// The results held before, to take from them what a sweep goes on with.
    pub(crate) fn before_mut(&mut self) -> &mut T {
        &mut self.before
    }

    /// Writes the results held before, with what `push` adds to them.
    pub(crate) fn save(&self, push: impl FnOnce(&mut T)) -> Result<(), String> {
        let mut results = self.before.clone();
        push(&mut results);
        write_json(&self.path, &results)
    }
}

pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each save writes what the file held before and the sweep so far, once.
    #[test]
    fn a_sweep_saved_as_it_goes_follows_what_was_there_once() {
        let path =
            std::env::temp_dir().join(format!("xtask-appending-{}.json", std::process::id()));
        let _ = std::fs::remove_file(&path);
        let fresh = Appending::<Vec<u32>>::open(&path).unwrap();
        fresh.save(|held| held.push(1)).unwrap();
        let saved = Appending::<Vec<u32>>::open(&path).unwrap();
        saved.save(|held| held.push(2)).unwrap();
        saved.save(|held| held.extend([2, 3])).unwrap();
        let read: Vec<u32> = read_json(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert_eq!(read, [1, 2, 3]);
    }
}
