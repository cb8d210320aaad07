//! The `nqueens` binary.

// Results are written through `output`, which neither panics nor loses one on a write
// error; `print!` and `eprint!` would panic on a closed or full stream.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod audit;
mod cli;
mod count;
mod estimate;
mod exit;
mod host;
mod list;
mod manual;
mod memory;
mod merge;
#[cfg(feature = "mpi")]
mod mpi;
#[cfg(not(feature = "mpi"))]
#[path = "no_mpi.rs"]
mod mpi;
mod output;
mod progress;
mod provenance;
mod report;
mod show;
mod signals;
mod solve;
mod spec;
mod unique;
mod verify;

use std::process::ExitCode;

use anyhow::Context;
use clap::FromArgMatches;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::cli::{Cli, Command};
use crate::exit::USAGE_ERROR;
use crate::output::say;

fn main() -> ExitCode {
    let cli = match cli::build_command().try_get_matches().and_then(|m| Cli::from_arg_matches(&m)) {
        Ok(cli) => cli,
        Err(err) if matches!(err.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) => {
            // clap prints it, in colour on a terminal; a closed stdout, which the runtime
            // has reopened on /dev/null, is caught first.
            let printed = output::stdout().context(output::STDOUT_FAILED).and_then(|out| {
                drop(out);
                show::unless_closed(err.print())
            });
            return match printed {
                Ok(()) => ExitCode::SUCCESS,
                Err(error) => {
                    say!("{error:#}");
                    ExitCode::from(exit::FAILURE)
                }
            };
        }
        Err(err) if err.kind() == ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = err.print();
            return ExitCode::from(USAGE_ERROR);
        }
        Err(err) => {
            say!("{}", usage_error(&err));
            return ExitCode::from(USAGE_ERROR);
        }
    };
    match run(cli) {
        Ok(code) => code,
        Err(err) => {
            say!("{err:#}");
            ExitCode::from(exit::status_of(&err))
        }
    }
}

/// What clap says of a usage error, in one line, and a tip on a second where one helps:
/// for an option another subcommand takes, which one; else clap's suggestion of a similar
/// name (`tip: a similar argument exists`), but never its `-- --option`, which passes an
/// option as a value, and no subcommand takes such values. Clap's usage and its pointer
/// to --help follow, which the help itself holds.
fn usage_error(err: &clap::Error) -> String {
    let rendered = err.render().to_string();
    let mut paragraphs = rendered.split("\n\n").map(str::trim).filter(|p| !p.is_empty());
    let message = paragraphs.next().unwrap_or_default();
    let message: Vec<&str> = message.lines().map(str::trim).collect();
    let mut said = message.join(" ").trim_start_matches("error: ").to_owned();
    let clap_tips = paragraphs
        .filter(|p| p.starts_with("tip:") && !p.contains("use '-- "))
        .map(|tip| tip.lines().map(str::trim).collect::<Vec<_>>().join(" "));
    let tips: Vec<String> = match taken_elsewhere(err) {
        Some(tip) => vec![tip],
        None => clap_tips.collect(),
    };
    for tip in tips {
        said += "\n  ";
        said += &tip;
    }
    said
}

/// For an option this subcommand does not take, the subcommands that do take it, as a tip.
fn taken_elsewhere(err: &clap::Error) -> Option<String> {
    if err.kind() != ErrorKind::UnknownArgument {
        return None;
    }
    let Some(ContextValue::String(given)) = err.get(ContextKind::InvalidArg) else {
        return None;
    };
    let long = given.split('=').next()?.strip_prefix("--")?;
    let command = cli::build_command();
    let takers: Vec<String> = command
        .get_subcommands()
        .filter(|sub| sub.get_arguments().any(|arg| arg.get_long() == Some(long)))
        .map(|sub| format!("nqueens {}", sub.get_name()))
        .collect();
    if takers.is_empty() {
        return None;
    }
    Some(format!("tip: --{long} is an option of {}", takers.join(" and ")))
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Count(args) => count::run(args),
        Command::Estimate(args) => estimate::run(args),
        Command::Solve(args) => solve::run(args),
        Command::List(args) => list::run(args),
        Command::Verify(args) => verify::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Completions(args) => manual::completions(&args),
        Command::Man(args) => manual::man(&args),
    }
}
