//! `nqueens verify`: whether placements are solutions, and if not, why not.

use std::io::{self, BufRead, BufWriter, Write};
use std::process::ExitCode;

use anyhow::Context;
use nqueens_core::Solution;

use crate::cli::VerifyArgs;
use crate::exit::{self, USAGE_ERROR};
use crate::output::{self, STDOUT_FAILED, say};

pub(crate) fn run(args: VerifyArgs) -> anyhow::Result<ExitCode> {
    let mut out = BufWriter::new(output::stdout()?);
    let mut all_solutions = true;
    if !args.columns.is_empty() {
        let columns = match parse(&args.columns.join(" ")) {
            Ok(Some(columns)) => columns,
            Ok(None) => return Ok(malformed("no columns given")),
            Err(message) => return Ok(malformed(&message)),
        };
        all_solutions = judge(&mut out, "", columns)?;
    } else {
        let mut placements = 0;
        for (index, line) in io::stdin().lock().split(b'\n').enumerate() {
            let line = line.context("cannot read standard input")?;
            let Ok(line) = std::str::from_utf8(&line) else {
                out.flush().context(STDOUT_FAILED)?;
                return Ok(malformed(&format!("line {}: not UTF-8 text", index + 1)));
            };
            let columns = match parse(line) {
                Ok(Some(columns)) => columns,
                Ok(None) => continue,
                Err(message) => {
                    out.flush().context(STDOUT_FAILED)?;
                    return Ok(malformed(&format!("line {}: {message}", index + 1)));
                }
            };
            placements += 1;
            all_solutions &= judge(&mut out, &format!("line {}: ", index + 1), columns)?;
        }
        if placements == 0 {
            return Ok(malformed("no placements on standard input (one per line, columns from 1)"));
        }
    }
    out.flush().context(STDOUT_FAILED)?;
    Ok(if all_solutions { ExitCode::SUCCESS } else { ExitCode::from(exit::FAILURE) })
}

/// The 0-based columns of a placement written as columns from 1, separated by spaces or
/// commas; `None` for a blank one.
fn parse(text: &str) -> Result<Option<Vec<usize>>, String> {
    let columns = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|token| !token.is_empty())
        .map(|token| {
            token.parse::<usize>().ok().and_then(|column| column.checked_sub(1)).ok_or_else(|| {
                format!("'{token}' is not a column (columns are whole numbers counted from 1)")
            })
        })
        .collect::<Result<Vec<usize>, String>>()?;
    Ok((!columns.is_empty()).then_some(columns))
}

/// Prints the verdict on one placement; true if it is a solution.
fn judge(out: &mut impl Write, label: &str, columns: Vec<usize>) -> anyhow::Result<bool> {
    let n = columns.len();
    match Solution::new(columns) {
        Ok(_) => {
            writeln!(out, "{label}solution (N = {n})").context(STDOUT_FAILED)?;
            Ok(true)
        }
        Err(conflict) => {
            writeln!(out, "{label}not a solution: {conflict}").context(STDOUT_FAILED)?;
            Ok(false)
        }
    }
}

/// Reports input that is not a list of columns, as a usage error.
fn malformed(message: &str) -> ExitCode {
    say!("{message}");
    ExitCode::from(USAGE_ERROR)
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::sample::select;

    use super::parse;

    #[test]
    fn columns_count_from_one_and_take_spaces_or_commas() {
        assert_eq!(parse("2 4 1 3"), Ok(Some(vec![1, 3, 0, 2])));
        assert_eq!(parse(" 2,4, 1\t3 "), Ok(Some(vec![1, 3, 0, 2])));
        assert_eq!(parse("  "), Ok(None));
        assert!(parse("2 0 1").unwrap_err().contains("'0' is not a column"));
        assert!(parse("2 x").unwrap_err().contains("'x' is not a column"));
        assert!(parse("-1").is_err());
    }

    /// Each case parses one line: a few hundred take milliseconds.
    fn config() -> ProptestConfig {
        ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
    }

    /// A placement as `solve` and `list` print it, or as a user might type it: columns
    /// counted from 1, between any of the separators `verify` takes.
    fn printed(columns: &[usize], separator: &str, blank: &str) -> String {
        let columns: Vec<String> = columns.iter().map(|c| (c + 1).to_string()).collect();
        format!("{blank}{}{blank}", columns.join(separator))
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn any_line_is_columns_or_refused(
            text in prop_oneof![any::<String>(), "[ ,\t0-9a+\\-]{0,24}"],
        ) {
            // Columns that parse are written back the plain way.
            if let Ok(Some(columns)) = parse(&text) {
                prop_assert_eq!(parse(&printed(&columns, " ", "")), Ok(Some(columns)));
            }
        }

        #[test]
        fn a_printed_placement_reads_back(
            columns in (1..64usize).prop_flat_map(|n| Just((0..n).collect::<Vec<_>>()).prop_shuffle()),
            separator in select(vec![" ", ",", ", ", " , ", "\t", "  "]),
            blank in select(vec!["", " ", "\t", ","]),
        ) {
            prop_assert_eq!(parse(&printed(&columns, separator, blank)), Ok(Some(columns)));
        }
    }
}
