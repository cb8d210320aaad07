//! How the program ends: one exit-status convention for every subcommand.
//!
//! - 0: success.
//! - 1: a failure at run time (a file that cannot be read or written, a stdout that takes
//!   no output, a checkpoint left stale or held by another run, a failed audit, task
//!   results that do not add up), or, for `verify`, a placement that
//!   is no solution, and for `merge --compare`, tasks whose counts differ.
//! - 2: a usage error: anything wrong with what the command line asks, whether clap or a
//!   later check finds it.
//! - 128 + signal: stopped by a signal (130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP).

use std::fmt;
use std::process::ExitCode;

use nqueens_core::Error as EngineError;
use nqueens_scheduler::{CheckpointError, RunError};

/// The convention above, in the words of the manual page.
pub(crate) const STATUSES: [(&str, &str); 4] = [
    ("0", "success"),
    (
        "1",
        "a failure at run time: a file that cannot be read or written, a stdout that takes no \
         output, a stale checkpoint or one another run holds, a failed audit, task results \
         that do not add up; for verify, a placement that is no solution; for merge \
         --compare, tasks whose counts differ",
    ),
    (
        "2",
        "a usage error: anything wrong with what the command line or the input asks, a \
         checkpoint or shard of another run or engine among them",
    ),
    ("129, 130, 143", "stopped by SIGHUP, SIGINT or SIGTERM (128 + the signal)"),
];

/// A failure at run time.
pub(crate) const FAILURE: u8 = 1;

/// A command line, or input, that asks for what cannot be done.
pub(crate) const USAGE_ERROR: u8 = 2;

/// The status of a process stopped by `signal`, as shells report a death by it.
pub(crate) fn after_signal(signal: i32) -> ExitCode {
    ExitCode::from(128 + signal as u8)
}

/// An error in what the command line asks: reported with [`USAGE_ERROR`].
#[derive(Debug)]
pub(crate) struct Usage(pub(crate) String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Usage {}

/// An [`anyhow::Error`] that is a usage error.
macro_rules! usage {
    ($($arg:tt)*) => {
        anyhow::Error::new(crate::exit::Usage(format!($($arg)*)))
    };
}
pub(crate) use usage;

/// The exit status of a command that failed with `error`: [`USAGE_ERROR`] if anything in
/// its chain of causes is an error in what was asked, else [`FAILURE`].
pub(crate) fn status_of(error: &anyhow::Error) -> u8 {
    let asked_wrongly = error.chain().any(|cause| {
        cause.is::<Usage>()
            || cause.downcast_ref::<EngineError>().is_some_and(EngineError::is_usage)
            || cause.downcast_ref::<CheckpointError>().is_some_and(checkpoint_is_usage)
            || matches!(
                cause.downcast_ref::<RunError<EngineError>>(),
                Some(RunError::Checkpoint(error)) if checkpoint_is_usage(error)
            )
    });
    if asked_wrongly { USAGE_ERROR } else { FAILURE }
}

/// Whether a checkpoint error lies in the path given rather than in the file's state: a
/// path that cannot be a checkpoint, or the checkpoint of another run.
fn checkpoint_is_usage(error: &CheckpointError) -> bool {
    matches!(error, CheckpointError::NotAFile { .. } | CheckpointError::Mismatch { .. })
}
