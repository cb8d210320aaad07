//! The command line's manners: hints, help, errors, output and progress as users of
//! ripgrep, hyperfine or cargo expect them.

use std::process::{Command, Output, Stdio};

use nqueens_test_support::output_with_input;
use serde_json::Value;

fn nqueens(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args).output().expect("nqueens runs")
}

fn with_stdin(args: &[&str], input: &[u8]) -> Output {
    output_with_input(Command::new(env!("CARGO_BIN_EXE_nqueens")).args(args), input)
}

fn stdout(output: &Output) -> String {
    String::from_utf8(output.stdout.clone()).unwrap()
}

fn stderr(output: &Output) -> String {
    String::from_utf8(output.stderr.clone()).unwrap()
}

/// A usage error: status 2, and what stderr says.
fn refused(args: &[&str]) -> String {
    let output = nqueens(args);
    assert_eq!(output.status.code(), Some(2), "{args:?}: {}", stderr(&output));
    stderr(&output)
}

#[test]
fn clap_suggestions_are_kept_after_the_one_line_error() {
    let said = refused(&["count", "8", "--thread", "2"]);
    assert_eq!(said.lines().count(), 2, "{said}");
    assert!(said.lines().nth(1).unwrap().contains("tip:") && said.contains("--threads"), "{said}");
    let said = refused(&["cout", "8"]);
    assert!(said.contains("tip:") && said.contains("count"), "{said}");
}

#[test]
fn help_fits_80_columns_with_a_short_and_a_long_form() {
    for command in ["count", "estimate", "solve", "list", "verify", "merge"] {
        let long = stdout(&nqueens(&[command, "--help"]));
        let short = stdout(&nqueens(&[command, "-h"]));
        for line in long.lines().chain(short.lines()) {
            assert!(line.chars().count() <= 80, "{command}: {line:?}");
            assert!(line.matches("[default:").count() <= 1, "{command}: {line:?}");
        }
        assert!(long.len() >= short.len(), "{command}");
    }
    let count_long = stdout(&nqueens(&["count", "--help"]));
    let count_short = stdout(&nqueens(&["count", "-h"]));
    assert!(count_short.len() < count_long.len() * 3 / 4, "-h is the short help");
    for help in [&count_long, &stdout(&nqueens(&["estimate", "--help"]))] {
        let defaults =
            help.matches("[default: auto]").count() + help.matches("[default: 1]").count();
        let twice = help.contains("allowed] [default") || help.contains("[default: 1] [default");
        assert!(!twice && defaults <= 4, "{help}");
    }
}

#[test]
fn numbers_out_of_range_say_what_is_wrong() {
    assert!(refused(&["count", "-1"]).contains("'-1' is not a board size"));
    assert!(refused(&["solve", "8", "--random", "--seed", "-1"]).contains("'-1' is negative"));
    assert!(refused(&["list", "8", "--limit", "-1"]).contains("'-1' is negative"));
    assert!(refused(&["count", "8", "--place", "1:1,"]).contains("a comma too many"));
    assert!(refused(&["count", "8", "--place", "1:1,1:1"]).contains("is given twice"));
    let depth = refused(&["count", "15", "--method", "plain", "--depth", "7"]);
    assert!(depth.contains("may split N = 15 into up to") && depth.contains("or less"), "{depth}");
}

#[test]
fn memory_limits_the_machine_cannot_honour_are_refused_or_noted() {
    assert!(refused(&["count", "8", "--max-memory", "100000T"]).contains("more than this machine"));
    let output = nqueens(&["count", "8", "--method", "plain", "--max-memory", "1K"]);
    assert!(output.status.success());
    assert!(stderr(&output).contains("changes nothing"), "{}", stderr(&output));
}

#[test]
fn counts_and_estimates_say_one_and_many_in_words() {
    let output = nqueens(&["estimate", "8", "--threads", "1", "--cores", "1"]);
    let text = stdout(&output);
    assert!(text.contains("(1 machine of 1 thread,"), "{text}");
    let output = nqueens(&["estimate", "8", "--threads", "2", "--cores", "3"]);
    let text = stdout(&output);
    assert!(text.contains("(2 machines of up to 2 threads,"), "{text}");
    for n in ["1", "2", "3", "4"] {
        let output = nqueens(&["estimate", n, "--threads", "1"]);
        assert!(output.status.success(), "estimate {n}: {}", stderr(&output));
    }
}

#[test]
fn short_flags_for_threads_and_quiet() {
    let output = nqueens(&["count", "10", "-j", "1", "-q"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("total=724 ") && stderr(&output).is_empty());
}

#[test]
fn version_names_the_commit_the_engine_and_the_features() {
    let long = stdout(&nqueens(&["--version"]));
    assert!(long.contains("commit ") && long.contains("features: "), "{long}");
    assert!(long.contains(&format!("\nengine {}\n", nqueens_core::ENGINE_IDENTITY)), "{long}");
    let short = stdout(&nqueens(&["-V"]));
    assert_eq!(short.lines().count(), 1, "{short}");
}

#[test]
fn completions_and_the_manual_hold_every_subcommand_and_flag() {
    let help = stdout(&nqueens(&["--help"]));
    let subcommands =
        ["count", "estimate", "solve", "list", "verify", "merge", "completions", "man"];
    for subcommand in subcommands {
        assert!(help.contains(subcommand), "{subcommand} missing from --help");
    }
    let page = stdout(&nqueens(&["man"]));
    assert!(page.starts_with(".ie") || page.contains(".TH"), "{page}");
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = nqueens(&["completions", shell]);
        assert!(script.status.success(), "{shell}");
        let script = stdout(&script);
        for subcommand in subcommands {
            assert!(script.contains(subcommand), "{shell}: {subcommand}");
            if subcommand == "completions" || subcommand == "man" {
                continue;
            }
            // Every long flag the subcommand's help names is completed.
            let help = stdout(&nqueens(&[subcommand, "--help"]));
            for flag in help.split_whitespace().filter(|word| word.starts_with("--")) {
                let flag = flag.trim_end_matches([',', '.', ')', ':']);
                let flag = flag.split(['=', '[', '<']).next().unwrap();
                if flag.len() > 2
                    && flag.chars().skip(2).all(|c| c.is_ascii_lowercase() || c == '-')
                {
                    let bare = flag.trim_start_matches('-');
                    assert!(script.contains(bare), "{shell}: {subcommand} {flag}");
                }
            }
        }
    }
}

#[test]
fn every_page_the_manual_names_exists_and_says_the_exit_statuses() {
    let page = stdout(&nqueens(&["man"]));
    let pages = ["count", "estimate", "solve", "list", "verify", "merge", "completions", "man"];
    for subcommand in pages {
        assert!(page.contains(&format!("nqueens\\-{subcommand}(1)")), "{subcommand}");
        let own = stdout(&nqueens(&["man", subcommand]));
        assert!(own.contains(&format!(".TH nqueens-{subcommand} 1")), "{own}");
        assert!(own.contains(".SH \"EXIT STATUS\""), "{subcommand}");
        let flag = if subcommand == "count" { "checkpoint" } else { "help" };
        assert!(own.contains(&format!("\\-\\-{flag}")), "{subcommand}: {flag}");
    }
    assert!(page.contains(".SH \"EXIT STATUS\"\n.TP\n0\n"), "{page}");
}

#[test]
fn merge_reads_shards_from_standard_input() {
    let shard = |index: &str| {
        let output = nqueens(&["count", "10", "--shard", index, "--json", "--threads", "1"]);
        assert!(output.status.success());
        output.stdout
    };
    let both = [shard("0/2"), shard("1/2")].concat();
    let merged = with_stdin(&["merge", "-", "--json"], &both);
    assert!(merged.status.success(), "{}", stderr(&merged));
    let merged: Value = serde_json::from_slice(&merged.stdout).unwrap();
    assert_eq!((merged["total"].as_u64(), merged["unique"].as_u64()), (Some(724), Some(92)));
    assert!(with_stdin(&["merge", "-"], b"").status.code() == Some(2));
}

#[test]
fn verify_reads_what_list_and_solve_print() {
    for format in ["text", "json", "board"] {
        let listed = nqueens(&["list", "6", "--format", format]);
        let verdicts = with_stdin(&["verify"], &listed.stdout);
        assert!(verdicts.status.success(), "{format}: {}", stderr(&verdicts));
        assert_eq!(stdout(&verdicts).matches("solution (N = 6)").count(), 4, "{format}");
    }
    for flag in ["--json", "--board"] {
        let solved = nqueens(&["solve", "12", flag]);
        let verdict = with_stdin(&["verify"], &solved.stdout);
        assert!(verdict.status.success(), "{flag}: {}", stderr(&verdict));
    }
    let broken = with_stdin(&["verify"], b"Q . . .\n. . Q .\n");
    assert_eq!(broken.status.code(), Some(2));
    assert!(stderr(&broken).contains("ends before its last row"), "{}", stderr(&broken));
}

#[test]
fn a_random_solution_without_a_seed_says_its_seed() {
    let output = nqueens(&["solve", "50", "--random"]);
    let said = stderr(&output);
    let seed = said.split_whitespace().find_map(|word| word.parse::<u64>().ok()).expect(&said);
    let again = nqueens(&["solve", "50", "--random", "--seed", &seed.to_string()]);
    assert_eq!(again.stdout, output.stdout);
}

#[test]
fn a_resumed_count_says_how_far_its_checkpoint_had_come() {
    let dir = tempfile::tempdir().unwrap();
    let checkpoint = dir.path().join("c.ckpt");
    let checkpoint = checkpoint.to_str().unwrap();
    let args = ["count", "11", "--checkpoint", checkpoint, "--progress", "log", "-j", "1"];
    assert!(nqueens(&args).status.success());
    let again = nqueens(&args);
    assert!(stderr(&again).contains("resuming the checkpoint: "), "{}", stderr(&again));
    assert!(stdout(&again).contains("total=2680 "));
}

/// The frames a terminal of `columns` shows of a bar: the text between carriage returns
/// and newlines, without its escape sequences.
fn frames(columns: usize, args: &str) -> Vec<String> {
    frames_with(columns, "", args)
}

/// [`frames`], the binary started by `launcher` (`env TERM=dumb`, say).
fn frames_with(columns: usize, launcher: &str, args: &str) -> Vec<String> {
    let binary = env!("CARGO_BIN_EXE_nqueens");
    let shell = format!("stty cols {columns} rows 24; exec {launcher} {binary} {args}");
    let output = Command::new("script")
        .args(["-qec", &shell, "/dev/null"])
        .stdin(Stdio::null())
        .output()
        .expect("script (util-linux) runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let mut plain = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            // An escape sequence: ESC [ parameters, up to a letter.
            if chars.next_if_eq(&'[').is_some() {
                while chars.next().is_some_and(|c| !c.is_ascii_alphabetic()) {}
            }
            continue;
        }
        plain.push(c);
    }
    plain.split(['\r', '\n']).map(str::to_owned).filter(|frame| !frame.trim().is_empty()).collect()
}

#[test]
fn the_bar_fits_the_terminal_and_drops_fields_when_narrow() {
    for columns in [80, 60, 40, 30, 20, 10] {
        let frames = frames(columns, "count 17 --method join -j 1 --progress bar");
        let bars: Vec<&String> = frames.iter().filter(|f| f.contains('%')).collect();
        assert!(!bars.is_empty(), "{columns} columns: no bar in {frames:?}");
        for frame in &bars {
            assert!(frame.chars().count() <= columns, "{columns} columns: {frame:?}");
            assert!(!frame.contains("0/0"), "{frame:?}");
            assert_eq!(frame.contains("ETA"), columns >= 24, "{columns} columns: {frame:?}");
        }
        let full = bars.iter().any(|f| f.contains("solutions"));
        assert_eq!(full, columns >= 80, "{columns} columns: {bars:?}");
    }
}

#[test]
fn a_terminal_that_cannot_redraw_gets_log_lines() {
    for term in ["TERM=dumb", "-u TERM"] {
        for mode in ["bar", "auto"] {
            let args = format!("count 16 --method eightfold -j 1 --progress {mode}");
            let frames = frames_with(80, &format!("env {term}"), &args);
            assert!(
                frames.iter().any(|f| f.contains("% done, elapsed ")),
                "{term} {mode}: {frames:?}"
            );
            assert!(!frames.iter().any(|f| f.contains('[')), "{term} {mode}: a bar in {frames:?}");
        }
    }
}

#[test]
fn progress_lines_group_digits_and_share_one_basis_with_the_eta() {
    let output = nqueens(&["count", "16", "--method", "eightfold", "-j", "1", "--progress", "log"]);
    let log = stderr(&output);
    let last = log.lines().last().unwrap_or_default();
    assert!(last.starts_with("nqueens: 100.0% done, elapsed 00:00:0"), "{log}");
    assert!(last.contains(", ETA 00:00:00, "), "{log}");
    assert!(last.contains(" tasks, 14,772,512 solutions, "), "{log}");
}

#[test]
fn the_bar_on_a_file_gives_the_log_lines() {
    let output = nqueens(&["count", "16", "--progress", "bar", "-j", "1"]);
    assert!(stderr(&output).contains("% done, elapsed "), "{}", stderr(&output));
}
