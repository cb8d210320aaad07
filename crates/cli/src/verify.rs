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
        // Every argument a single column (`verify 2 4 1 3`) makes one placement; otherwise
        // each argument is a placement of its own, in any format `list` and `solve` print.
        let placements = if args.columns.iter().all(|arg| is_one_column(arg)) {
            vec![args.columns.join(" ")]
        } else {
            args.columns
        };
        let labelled = placements.len() > 1;
        let mut judged = Vec::with_capacity(placements.len());
        for (index, text) in placements.iter().enumerate() {
            let label = if labelled { format!("argument {}: ", index + 1) } else { String::new() };
            match placement(text) {
                Ok(Some(columns)) => judged.push((label, columns)),
                Ok(None) => return Ok(malformed(&format!("{label}no columns given"))),
                Err(message) => return Ok(malformed(&format!("{label}{message}"))),
            }
        }
        for (label, columns) in judged {
            all_solutions &= judge(&mut out, &label, columns)?;
        }
    } else {
        let mut placements = 0;
        let mut board = Board::default();
        for (index, line) in io::stdin().lock().split(b'\n').enumerate() {
            let number = index + 1;
            let line = line.context("cannot read standard input")?;
            let Ok(line) = std::str::from_utf8(&line) else {
                out.flush().context(STDOUT_FAILED)?;
                return Ok(malformed(&format!("line {number}: not UTF-8 text")));
            };
            let read = match board.read(number, line) {
                Ok(Some(read)) => Ok(Some(read)),
                Ok(None) if board.is_open() || is_board_row(line) => Ok(None),
                Ok(None) => parse_line(line).map(|columns| columns.map(|c| (number, c))),
                Err(message) => Err(message),
            };
            match read {
                Ok(Some((first, columns))) => {
                    placements += 1;
                    all_solutions &= judge(&mut out, &format!("line {first}: "), columns)?;
                }
                Ok(None) => {}
                Err(message) => {
                    out.flush().context(STDOUT_FAILED)?;
                    return Ok(malformed(&format!("line {number}: {message}")));
                }
            }
        }
        if let Some(first) = board.unfinished() {
            out.flush().context(STDOUT_FAILED)?;
            return Ok(malformed(&format!("line {first}: the board ends before its last row")));
        }
        if placements == 0 {
            return Ok(malformed(
                "no placements on standard input (one per line, columns from 1; a JSON \
                 object with \"columns\"; or a board drawn with Q and .)",
            ));
        }
    }
    out.flush().context(STDOUT_FAILED)?;
    Ok(if all_solutions { ExitCode::SUCCESS } else { ExitCode::from(exit::FAILURE) })
}

/// The 0-based columns of one line of standard input: a JSON object with `columns` (as
/// `--json` and `--format json` print; its `n`, where it has one, must agree), or columns
/// from 1; `None` for a blank line.
fn parse_line(text: &str) -> Result<Option<Vec<usize>>, String> {
    if !text.trim_start().starts_with('{') {
        return parse(text);
    }
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a JSON object: {e}"))?;
    let columns = match &value["columns"] {
        serde_json::Value::Null => return Err("a JSON object without \"columns\"".to_owned()),
        serde_json::Value::Array(columns) if columns.is_empty() => {
            return Err("a JSON object with no columns".to_owned());
        }
        serde_json::Value::Array(columns) => columns,
        other => return Err(format!("\"columns\" is {other}, not a list of columns")),
    };
    match &value["n"] {
        serde_json::Value::Null => {}
        n if n.as_u64() == Some(columns.len() as u64) => {}
        n => return Err(format!("\"n\" is {n}, but \"columns\" holds {}", columns.len())),
    }
    let columns = columns
        .iter()
        .map(|column| {
            column.as_u64().and_then(|c| usize::try_from(c).ok()?.checked_sub(1)).ok_or_else(|| {
                format!("{column} is not a column (columns are whole numbers counted from 1)")
            })
        })
        .collect::<Result<Vec<usize>, String>>()?;
    Ok(Some(columns))
}

/// Whether a command-line argument is one column of a placement given column by column,
/// rather than a placement of its own.
fn is_one_column(arg: &str) -> bool {
    let arg = arg.trim();
    !arg.contains(|c: char| c.is_whitespace() || c == ',')
        && !arg.starts_with('{')
        && !is_board_row(arg)
}

/// The 0-based columns of one placement given as an argument: columns from 1, a JSON
/// object with `columns`, or a board drawn with `Q` and `.` over several lines.
fn placement(text: &str) -> Result<Option<Vec<usize>>, String> {
    let lines: Vec<&str> = text.lines().filter(|line| !line.trim().is_empty()).collect();
    if !lines.first().is_some_and(|line| is_board_row(line)) {
        if lines.len() > 1 {
            return Err(format!(
                "holds {} placements on {} lines; give one placement per argument, or pipe \
                 them to nqueens verify for a verdict on each line",
                lines.len(),
                lines.len()
            ));
        }
        return parse_line(text.trim());
    }
    let mut board = Board::default();
    for (index, line) in lines.iter().enumerate() {
        if let Some((_, columns)) = board.read(index + 1, line)? {
            if index + 1 < lines.len() {
                return Err("a board with more rows than cells per row".to_owned());
            }
            return Ok(Some(columns));
        }
    }
    Err("the board ends before its last row".to_owned())
}

/// Whether a line is a row of a drawn board: cells of `Q` and `.`, between spaces.
fn is_board_row(line: &str) -> bool {
    line.contains(['Q', '.']) && line.chars().all(|c| matches!(c, 'Q' | '.' | ' ' | '\t' | '\r'))
}

/// A board drawn with `Q` and `.` (as `--board` and `--format board` print), read a row at
/// a time: a board of N cells per row ends after its N-th row.
#[derive(Default)]
struct Board {
    /// The line of its first row, and each row's queen so far.
    first: usize,
    columns: Vec<usize>,
    width: usize,
}

impl Board {
    fn is_open(&self) -> bool {
        !self.columns.is_empty()
    }

    /// The first line of a board begun and not finished.
    fn unfinished(&self) -> Option<usize> {
        self.is_open().then_some(self.first)
    }

    /// Takes line `number`: a finished board's first line and columns, `None` if the line
    /// is no board row (or the board goes on), or what is wrong with the board.
    fn read(&mut self, number: usize, line: &str) -> Result<Option<(usize, Vec<usize>)>, String> {
        if !is_board_row(line) {
            return match self.unfinished() {
                Some(first) => Err(format!("the board of line {first} ends before its last row")),
                None => Ok(None),
            };
        }
        let cells: Vec<char> = line.chars().filter(|c| matches!(c, 'Q' | '.')).collect();
        let queens: Vec<usize> = (0..cells.len()).filter(|&cell| cells[cell] == 'Q').collect();
        let [column] = queens[..] else {
            return Err(format!("a board row holds one queen, not {}", queens.len()));
        };
        if !self.is_open() {
            (self.first, self.width) = (number, cells.len());
        } else if cells.len() != self.width {
            return Err(format!("a row of {} cells in a board of {}", cells.len(), self.width));
        }
        self.columns.push(column);
        if self.columns.len() < self.width {
            return Ok(None);
        }
        Ok(Some((self.first, std::mem::take(&mut self.columns))))
    }
}

/// The 0-based columns of a placement written as columns from 1, separated by spaces or
/// commas; `None` for a blank one.
fn parse(text: &str) -> Result<Option<Vec<usize>>, String> {
    let columns = text
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|token| !token.is_empty())
        .map(|token| {
            token.parse::<usize>().ok().and_then(|column| column.checked_sub(1)).ok_or_else(|| {
                let token = token.escape_debug();
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

    use super::{parse, parse_line};

    #[test]
    fn columns_count_from_one_and_take_spaces_or_commas() {
        assert_eq!(parse("2 4 1 3"), Ok(Some(vec![1, 3, 0, 2])));
        assert_eq!(parse(" 2,4, 1\t3 "), Ok(Some(vec![1, 3, 0, 2])));
        assert_eq!(parse("  "), Ok(None));
        assert!(parse("2 0 1").unwrap_err().contains("'0' is not a column"));
        assert!(parse("2 x").unwrap_err().contains("'x' is not a column"));
        assert!(parse("-1").is_err());
    }

    #[test]
    fn json_objects_give_their_columns() {
        assert_eq!(parse_line(r#"{"n":4,"columns":[2,4,1,3]}"#), Ok(Some(vec![1, 3, 0, 2])));
        assert!(parse_line(r#"{"n":4}"#).unwrap_err().contains("without"));
        assert!(parse_line(r#"{"columns":[0]}"#).unwrap_err().contains("not a column"));
        assert_eq!(parse_line(r#"{"columns":[1]}"#), Ok(Some(vec![0])), "n is optional");
    }

    #[test]
    fn json_objects_whose_columns_are_wrong_or_disagree_with_n_are_refused() {
        let refused = |line: &str| parse_line(line).unwrap_err();
        assert!(refused(r#"{"n":5,"columns":[2,4,1,3]}"#).contains(r#""n" is 5"#));
        assert!(refused(r#"{"n":"4","columns":[2,4,1,3]}"#).contains(r#""n" is "4""#));
        assert!(refused(r#"{"n":8,"columns":[]}"#).contains("no columns"));
        assert!(refused(r#"{"columns":"2 4 1 3"}"#).contains("not a list of columns"));
    }

    #[test]
    fn control_characters_in_a_refused_column_are_escaped() {
        let refused = parse("2 \u{0} 3").unwrap_err();
        assert!(refused.contains(r"'\0'"), "{refused}");
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
