//! The command line, in one place: clap's definitions and nothing else.

use std::num::NonZeroUsize;
use std::path::PathBuf;

use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum};
use nqueens_core::Method;
use nqueens_scheduler::Shard;

/// Counts N-Queens solutions: all of them (OEIS A000170) and those distinct under the
/// board's 8 symmetries (OEIS A002562).
#[derive(Debug, Parser)]
#[command(name = "nqueens", version, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Count the solutions of an N x N board.
    Count(CountArgs),
    /// Sum the JSON results of the shards of one run and print the count.
    Merge(MergeArgs),
}

#[derive(Debug, Args)]
pub(crate) struct CountArgs {
    /// The board size, 1 to 128.
    #[arg(value_name = "N")]
    pub(crate) n: usize,

    /// How to search: eightfold (8-fold symmetry, fastest), half (mirror halving) or plain
    /// (no symmetry). All are exact and report total and unique counts.
    #[arg(long, default_value = "eightfold", value_name = "METHOD")]
    pub(crate) method: Method,

    /// Worker threads [default: the number of logical CPUs].
    #[arg(long, value_name = "T")]
    pub(crate) threads: Option<NonZeroUsize>,

    /// Rows fixed in each task [default: enough for at least 64 tasks per thread].
    #[arg(long, value_name = "K")]
    pub(crate) depth: Option<usize>,

    /// Run only shard I of M (0 <= I < M) and print its partial counts, for `nqueens merge`.
    #[arg(long, value_name = "I/M")]
    pub(crate) shard: Option<Shard>,

    /// Save progress to FILE, and resume from it when it exists.
    #[arg(long, value_name = "FILE")]
    pub(crate) checkpoint: Option<PathBuf>,

    /// Seconds between checkpoint saves.
    #[arg(long, value_name = "SECS", default_value_t = 60.0, requires = "checkpoint")]
    pub(crate) checkpoint_every: f64,

    /// Progress on stderr: a bar on a terminal (auto), always a bar, a line every few
    /// seconds (log, for batch jobs), or nothing.
    #[arg(long, value_enum, default_value_t = ProgressMode::Auto)]
    pub(crate) progress: ProgressMode,

    /// Print one JSON object on stdout instead of a line of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The shard results, as printed by `nqueens count --shard I/M --json`.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    /// Print one JSON object on stdout instead of a line of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProgressMode {
    Auto,
    Bar,
    Log,
    Never,
}

/// The clap command, for tests and for help generation.
pub(crate) fn build_command() -> clap::Command {
    Cli::command()
}

#[cfg(test)]
mod tests {
    #[test]
    fn verify_app() {
        super::build_command().debug_assert();
    }
}
