//! Names the commit, whether its tree was modified, and the optional features, for
//! `nqueens --version` and for the provenance every result carries.

use std::process::Command;

fn main() {
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .output()
            .ok()
            .filter(|output| output.status.success())
            .and_then(|output| String::from_utf8(output.stdout).ok())
    };
    let commit = git(&["rev-parse", "--short=12", "HEAD"])
        .map_or_else(|| "unknown".to_owned(), |hash| hash.trim().to_owned());
    let modified = match git(&["status", "--porcelain", "--untracked-files=no"]) {
        Some(changes) if changes.trim().is_empty() => "no",
        Some(_) => "yes",
        None => "unknown",
    };
    println!("cargo:rustc-env=NQUEENS_COMMIT={commit}");
    println!("cargo:rustc-env=NQUEENS_MODIFIED={modified}");
    let features = if std::env::var_os("CARGO_FEATURE_MPI").is_some() { "mpi" } else { "none" };
    println!("cargo:rustc-env=NQUEENS_FEATURES={features}");
    // A new commit or a checkout changes HEAD or the branch it names; an edit to a tracked
    // file changes whether the tree is modified, whichever crate it is in.
    for path in ["../../.git/HEAD", "../../.git/index", "../../crates", "../../Cargo.toml"] {
        println!("cargo:rerun-if-changed={path}");
    }
}
