//! Where the program's words go: results on stdout, everything else on stderr as lines
//! that start `nqueens:`. Nothing here panics on a write error. A result that stdout cannot
//! take is reported on stderr with the result itself, so a finished count is never lost;
//! a message that stderr cannot take is the only thing lost.

use std::fmt;
use std::io::{self, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// What a streaming subcommand says when stdout fails, before the system's reason.
pub(crate) const STDOUT_FAILED: &str = "cannot write to stdout";

/// Whether the process started with its stdout closed (`>&-`).
static STDOUT_CLOSED: AtomicBool = AtomicBool::new(false);

/// Notes whether stdout is closed before `main` can look: Rust's runtime opens
/// `/dev/null` on a closed standard descriptor before `main` starts, after which a result
/// written there would vanish without an error. Constructors in `.init_array` run before
/// the runtime's start-up. That section is Linux's (ELF's); elsewhere a closed stdout goes
/// unnoticed, as it does for most programs.
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array")]
static NOTE_CLOSED_STDOUT: extern "C" fn() = note_closed_stdout;

#[cfg(target_os = "linux")]
extern "C" fn note_closed_stdout() {
    // SAFETY: F_GETFD only reads the flags of a descriptor number; on a closed one it
    // fails with EBADF and changes nothing.
    if unsafe { libc::fcntl(libc::STDOUT_FILENO, libc::F_GETFD) } == -1 {
        STDOUT_CLOSED.store(true, Ordering::Relaxed);
    }
}

/// A line on stderr, after `nqueens: `. A stderr that cannot take it loses this line only.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // One write for the whole line: stderr is unbuffered, and a line written piece by
        // piece can be cut by another process's output (mpirun's, the other ranks').
        let line = format!("nqueens: {}\n", format_args!($($arg)*));
        let _ = std::io::stderr().write_all(line.as_bytes());
    }};
}
pub(crate) use say;

/// A finished result that stdout did not take; its message carries the result.
#[derive(Debug)]
pub(crate) struct NotPrinted {
    error: io::Error,
    /// The result, in one line of text.
    result: String,
}

impl fmt::Display for NotPrinted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot write the result to stdout ({}); the result: {}", self.error, self.result)
    }
}

impl std::error::Error for NotPrinted {}

/// Prints `printed` on stdout. Where stdout is closed or fails, the error is a
/// [`NotPrinted`] carrying `result`, the same result as one line: the JSON itself where
/// `printed` is JSON, so that a script can still take it from stderr.
pub(crate) fn print_result(printed: &str, result: &str) -> anyhow::Result<()> {
    let written = if STDOUT_CLOSED.load(Ordering::Relaxed) {
        Err(io::Error::new(io::ErrorKind::BrokenPipe, "stdout is closed"))
    } else {
        let mut out = io::stdout().lock();
        out.write_all(printed.as_bytes()).and_then(|()| out.flush())
    };
    written.map_err(|error| NotPrinted { error, result: result.to_owned() }.into())
}

/// Stdout, for a subcommand that streams its output there; an error if the process
/// started with it closed, where every line would be lost.
pub(crate) fn stdout() -> anyhow::Result<io::StdoutLock<'static>> {
    if STDOUT_CLOSED.load(Ordering::Relaxed) {
        anyhow::bail!("stdout is closed, so nothing could be printed");
    }
    Ok(io::stdout().lock())
}

/// `count` of `word`, in the plural unless there is one: `1 task`, `2 tasks`.
pub(crate) fn plural(count: usize, word: &str) -> String {
    if count == 1 { format!("1 {word}") } else { format!("{count} {word}s") }
}
