//! `nqueens solve`: one solution, constructed or random, checked before it is printed.

use std::io::{BufWriter, Write};
use std::process::ExitCode;
use std::time::{SystemTime, UNIX_EPOCH};

use nqueens_core::{construct, random_solution};

use crate::cli::{Format, SolveArgs};
use crate::output::say;
use crate::{output, show};

pub(crate) fn run(args: SolveArgs) -> anyhow::Result<ExitCode> {
    crate::signals::end_at_once("finding a solution")?;
    let format = args.printed.format();
    if format == Format::Board {
        show::check_drawable(args.n)?;
    }
    // Both engines return only solutions that passed `Solution::new`'s O(N) check.
    let solution = if args.random {
        let seed = args.seed.unwrap_or_else(clock_seed);
        let solution = random_solution(args.n, seed)?;
        if args.seed.is_none() {
            say!("random solution of seed {seed} (--seed {seed} finds it again)");
        }
        solution
    } else {
        construct(args.n)?
    };
    let mut out = BufWriter::new(output::stdout()?);
    show::unless_closed(show::write(&mut out, &solution, format).and_then(|()| out.flush()))?;
    Ok(ExitCode::SUCCESS)
}

/// A seed that differs from run to run: the clock's nanoseconds.
fn clock_seed() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |since| since.as_nanos() as u64)
}
