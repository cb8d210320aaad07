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

/// Replaces the file at `path` with `text` atomically: an interrupted sweep leaves the
/// results it appends to as they were, not cut short.
pub(crate) fn write_file(path: &Path, text: &str) -> Result<(), String> {
    nqueens_scheduler::write_atomically(path, text.as_bytes())
        .map_err(|e| format!("cannot write {}: {e}", path.display()))
}

/// Adds a sweep to the committed results at `path` (created if missing): `push` appends
/// it to what the file holds.
pub(crate) fn append_json<T: Default + Serialize + DeserializeOwned>(
    path: &Path,
    push: impl FnOnce(&mut T),
) -> Result<(), String> {
    let mut held: T = if path.exists() { read_json(path)? } else { T::default() };
    push(&mut held);
    write_json(path, &held)
}

pub(crate) fn read_json<T: DeserializeOwned>(path: &Path) -> Result<T, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}
