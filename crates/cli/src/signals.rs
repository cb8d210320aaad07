//! Ctrl-C (SIGINT), SIGTERM, and SIGHUP (a closed terminal). For the subcommands that count, the first signal raises
//! a flag: the runners (the count's, its audit's and the rotation-fixed counts') stop at
//! their next step, and the count's saves its checkpoint. A second signal ends the process
//! at once. The subcommands that stream what they find have nothing to save, and end at the
//! first ([`end_at_once`]). Either way the exit status is 128 + the signal, and a line on
//! stderr says why, except after a count's second signal, which ends it at once.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use anyhow::Context;
use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
use signal_hook::iterator::Signals as Received;

use crate::exit;
use crate::output::say;

/// The signals that stop a run: a terminal closed under it (SIGHUP) saves its checkpoint
/// like a Ctrl-C or a scheduler's SIGTERM.
const STOPPING: [i32; 3] = [SIGINT, SIGTERM, SIGHUP];

/// The handlers' flags: whether to stop, and the signal that said so.
#[derive(Debug)]
pub(crate) struct Signals {
    stop: Arc<AtomicBool>,
    received: Arc<AtomicUsize>,
}

impl Signals {
    /// Installs the handlers. Called first thing, so that no phase of a run ignores a signal.
    pub(crate) fn install() -> anyhow::Result<Signals> {
        let stop = Arc::new(AtomicBool::new(false));
        let received = Arc::new(AtomicUsize::new(0));
        for signal in STOPPING {
            // Registered first, so it sees the flag as the previous signal left it.
            signal_hook::flag::register_conditional_shutdown(
                signal,
                128 + signal,
                Arc::clone(&stop),
            )
            .context("cannot install a signal handler")?;
            signal_hook::flag::register_usize(signal, Arc::clone(&received), signal as usize)
                .context("cannot install a signal handler")?;
            signal_hook::flag::register(signal, Arc::clone(&stop))
                .context("cannot install a signal handler")?;
        }
        Ok(Signals { stop, received })
    }

    /// The flag a signal raises, for the runner to watch.
    pub(crate) fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.stop)
    }

    /// The exit status after the signal received: 128 + its number.
    pub(crate) fn exit_code(&self) -> ExitCode {
        match self.received.load(Ordering::Relaxed) {
            0 => exit::after_signal(SIGINT),
            signal => exit::after_signal(signal as i32),
        }
    }
}

/// Ends the process at the first SIGINT or SIGTERM, saying what it was `doing`: for the
/// subcommands with no state to save. What their buffers held is lost, as in a death by
/// the signal; what they wrote before stays written.
pub(crate) fn end_at_once(doing: &'static str) -> anyhow::Result<()> {
    let mut received = Received::new(STOPPING).context("cannot install a signal handler")?;
    std::thread::spawn(move || {
        if let Some(signal) = received.forever().next() {
            let name = match signal {
                SIGINT => "SIGINT",
                SIGHUP => "SIGHUP",
                _ => "SIGTERM",
            };
            say!("stopped by {name} while {doing}");
            std::process::exit(128 + signal);
        }
    });
    Ok(())
}
