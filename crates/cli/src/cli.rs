//! The command line, in one place: clap's definitions and nothing else.

use std::num::NonZeroUsize;

use clap::{Args, CommandFactory, Parser, Subcommand};
use nqueens_core::Method;

/// Counts N-Queens solutions: all of them (OEIS A000170) and those distinct under the
/// board's 8 symmetries (OEIS A002562).
#[derive(Debug, Parser)]
#[command(name = "nqueens", version, about, max_term_width = 100)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Count the solutions of an N x N board.
    Count(CountArgs),
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

    /// Print one JSON object on stdout instead of a line of text.
    #[arg(long)]
    pub(crate) json: bool,
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
