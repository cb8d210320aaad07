//! `nqueens completions SHELL` and `nqueens man`: generated from clap's definition of the
//! command line, so that they cannot fall out of step with it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{self, CompletionsArgs};
use crate::output;

pub(crate) fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = cli::build_command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "nqueens", &mut script);
    write_out(&script)
}

pub(crate) fn man() -> anyhow::Result<ExitCode> {
    let mut page = Vec::new();
    clap_mangen::Man::new(cli::build_command()).render(&mut page).context("rendering the page")?;
    write_out(&page)
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut out = output::stdout()?;
    crate::show::unless_closed(out.write_all(bytes).and_then(|()| out.flush()))?;
    Ok(ExitCode::SUCCESS)
}
