//! How `solve` and `list` print a solution, and how they treat a closed pipe.

use std::io::{self, Write};

use anyhow::Context;
use nqueens_core::Solution;

use crate::cli::Format;
use crate::exit::usage;
use crate::output::STDOUT_FAILED;

/// The widest board drawn: a line of N cells and N - 1 spaces fits an 80-column terminal.
pub(crate) const MAX_DRAWN_N: usize = 40;

/// Refuses to draw a board too wide to read.
pub(crate) fn check_drawable(n: usize) -> anyhow::Result<()> {
    if n > MAX_DRAWN_N {
        return Err(usage!(
            "boards are drawn up to N = {MAX_DRAWN_N}, which fits an 80-column terminal; \
             N = {n} is too wide, so leave out the drawing to print the columns"
        ));
    }
    Ok(())
}

/// Writes one solution in `format`: the columns (from 1) on one line, the board drawn
/// with `Q` and `.`, or one JSON object on one line.
pub(crate) fn write(out: &mut impl Write, solution: &Solution, format: Format) -> io::Result<()> {
    match format {
        Format::Text => writeln!(out, "{solution}"),
        Format::Board => {
            let n = solution.n();
            let mut line = String::with_capacity(2 * n);
            for &column in solution.columns() {
                line.clear();
                for cell in 0..n {
                    if cell > 0 {
                        line.push(' ');
                    }
                    line.push(if cell == column { 'Q' } else { '.' });
                }
                writeln!(out, "{line}")?;
            }
            Ok(())
        }
        Format::Json => {
            write!(out, "{{\"n\":{},\"columns\":[", solution.n())?;
            for (i, column) in solution.columns().iter().enumerate() {
                let comma = if i > 0 { "," } else { "" };
                write!(out, "{comma}{}", column + 1)?;
            }
            writeln!(out, "]}}")
        }
    }
}

/// The outcome of printing, where a reader that went away (`| head`) is no failure: it
/// has read all it wanted.
pub(crate) fn unless_closed(result: io::Result<()>) -> anyhow::Result<()> {
    match result {
        Err(error) if error.kind() == io::ErrorKind::BrokenPipe => Ok(()),
        other => other.context(STDOUT_FAILED),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shown(format: Format) -> String {
        let solution = Solution::new(vec![1, 3, 0, 2]).unwrap();
        let mut out = Vec::new();
        write(&mut out, &solution, format).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn every_format_counts_columns_from_one() {
        assert_eq!(shown(Format::Text), "2 4 1 3\n");
        assert_eq!(shown(Format::Board), ". Q . .\n. . . Q\nQ . . .\n. . Q .\n");
        assert_eq!(shown(Format::Json), "{\"n\":4,\"columns\":[2,4,1,3]}\n");
    }
}
