//! `--mpi` in a build without MPI support: a clear refusal instead of a missing flag, so
//! the same job script fails with the reason on any build.

use std::process::ExitCode;

use nqueens_core::Problem;

use crate::cli::CountArgs;
use crate::exit::usage;

pub(crate) fn run(_: &CountArgs, _: Problem, _: usize) -> anyhow::Result<ExitCode> {
    Err(usage!(
        "--mpi needs an nqueens built with MPI support: cargo build --release --features mpi"
    ))
}
