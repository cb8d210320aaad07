//! `--mpi` in a build without MPI support: a clear refusal instead of a missing flag, so
//! the same job script fails with the reason on any build.

use std::process::ExitCode;

use anyhow::bail;
use nqueens_core::Problem;

use crate::cli::CountArgs;

pub(crate) fn run(_: &CountArgs, _: Problem, _: usize) -> anyhow::Result<ExitCode> {
    bail!("--mpi needs an nqueens built with MPI support: cargo build --release --features mpi")
}
