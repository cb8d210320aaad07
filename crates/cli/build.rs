//! Names the commit and the optional features for `nqueens --version`.

use std::process::Command;

fn main() {
    let commit = Command::new("git")
        .args(["rev-parse", "--short=12", "HEAD"])
        .output()
        .ok()
        .filter(|output| output.status.success())
        .and_then(|output| String::from_utf8(output.stdout).ok())
        .map_or_else(|| "unknown".to_owned(), |hash| hash.trim().to_owned());
    let dirty = Command::new("git")
        .args(["status", "--porcelain", "--untracked-files=no"])
        .output()
        .ok()
        .is_some_and(|output| output.status.success() && !output.stdout.is_empty());
    let commit = if dirty { format!("{commit}, modified") } else { commit };
    println!("cargo:rustc-env=NQUEENS_COMMIT={commit}");
    let features = if std::env::var_os("CARGO_FEATURE_MPI").is_some() { "mpi" } else { "none" };
    println!("cargo:rustc-env=NQUEENS_FEATURES={features}");
    // A new commit or a checkout changes HEAD or the branch it names.
    for path in ["../../.git/HEAD", "../../.git/index"] {
        println!("cargo:rerun-if-changed={path}");
    }
}
