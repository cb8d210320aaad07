//! Project automation: `cargo xtask <command>`.

const HELP: &str = "\
cargo xtask <command>

Commands:
  help    print this text
";

fn main() {
    let command = std::env::args().nth(1);
    match command.as_deref() {
        None | Some("help" | "--help" | "-h") => print!("{HELP}"),
        Some(other) => {
            eprintln!("error: unknown xtask command '{other}' (try `cargo xtask help`)");
            std::process::exit(2);
        }
    }
}
