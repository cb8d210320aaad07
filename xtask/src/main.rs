//! Project automation: `cargo xtask <command>`.

mod scaling;

use std::path::PathBuf;
use std::process::ExitCode;

const HELP: &str = "\
cargo xtask <command>

Commands:
  scaling [--n 17] [--method eightfold] [--threads 1,2] [--runs 5]
          time one count at each thread count, alternating runs; print medians,
          speedup and efficiency against the first thread count
  help    print this text
";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let Some((command, flags)) = args.split_first() else {
        print!("{HELP}");
        return Ok(());
    };
    match command.as_str() {
        "help" | "--help" | "-h" => {
            print!("{HELP}");
            Ok(())
        }
        "scaling" => {
            let mut scaling = scaling::Scaling {
                n: 17,
                method: "eightfold".into(),
                threads: vec![1, 2],
                runs: 5,
            };
            for pair in flags.chunks(2) {
                let [flag, value] = pair else {
                    return Err(format!("{} needs a value", pair[0]));
                };
                let number =
                    |v: &str| v.parse::<usize>().map_err(|_| format!("{flag}: not a number: {v}"));
                match flag.as_str() {
                    "--n" => scaling.n = number(value)?,
                    "--method" => scaling.method = value.clone(),
                    "--runs" => scaling.runs = number(value)?.max(1),
                    "--threads" => {
                        scaling.threads = value.split(',').map(number).collect::<Result<_, _>>()?;
                    }
                    other => return Err(format!("unknown flag {other} (try `cargo xtask help`)")),
                }
            }
            if scaling.threads.is_empty() || scaling.threads.contains(&0) {
                return Err("--threads needs positive thread counts".into());
            }
            scaling.run()
        }
        other => Err(format!("unknown command '{other}' (try `cargo xtask help`)")),
    }
}

/// The workspace root: xtask lives one directory below it.
fn project_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask is inside the workspace")
        .to_owned()
}
