//! `nqueens completions SHELL` and `nqueens man`: generated from clap's definition of the
//! command line, so that they cannot fall out of step with it.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;

use crate::cli::{self, CompletionsArgs, ManArgs};
use crate::{exit, output};

pub(crate) fn completions(args: &CompletionsArgs) -> anyhow::Result<ExitCode> {
    let mut command = cli::build_command();
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "nqueens", &mut script);
    write_out(&script)
}

pub(crate) fn man(args: &ManArgs) -> anyhow::Result<ExitCode> {
    let mut command = cli::build_command();
    // Built, a subcommand knows its page's name (nqueens-count) and its full usage.
    command.build();
    let command = match &args.subcommand {
        Some(name) => command
            .find_subcommand(name)
            .cloned()
            .with_context(|| format!("no subcommand {name}"))?,
        None => command,
    };
    let mut page = Vec::new();
    let source = format!("nqueens {}", env!("CARGO_PKG_VERSION"));
    clap_mangen::Man::new(command)
        .source(source)
        .render(&mut page)
        .context("rendering the page")?;
    let page = String::from_utf8(page).context("rendering the page")?;
    write_out(with_exit_status(&page).as_bytes())
}

/// `page` with a section on the exit statuses, which every subcommand shares, before its
/// version (or at its end).
fn with_exit_status(page: &str) -> String {
    let mut section = String::from(".SH \"EXIT STATUS\"\n");
    for (status, meaning) in exit::STATUSES {
        section += &format!(".TP\n{status}\n{}\n", meaning.replace('-', "\\-"));
    }
    match page.find(".SH VERSION") {
        Some(at) => format!("{}{section}{}", &page[..at], &page[at..]),
        None => format!("{page}{section}"),
    }
}

fn write_out(bytes: &[u8]) -> anyhow::Result<ExitCode> {
    let mut out = output::stdout()?;
    crate::show::unless_closed(out.write_all(bytes).and_then(|()| out.flush()))?;
    Ok(ExitCode::SUCCESS)
}
