//! Names the commit, whether its tree was modified, and the optional features, for
//! `nqueens --version` and for the provenance every result carries.

use std::process::Command;

/// What the binary is built from, as git pathspecs from the repository root.
const BUILT_FROM: [&str; 4] =
    [":(top)crates", ":(top)Cargo.toml", ":(top)Cargo.lock", ":(top)rust-toolchain.toml"];

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
    // Only what the binary is built from: results and notes written beside a run do not
    // change what it counts, while a new source file not yet added does.
    let status = [&["status", "--porcelain", "--"][..], &BUILT_FROM].concat();
    let modified = match git(&status) {
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
    for path in [
        "../../.git/HEAD",
        "../../.git/index",
        "../../crates",
        "../../Cargo.toml",
        "../../Cargo.lock",
    ] {
        println!("cargo:rerun-if-changed={path}");
    }
}
