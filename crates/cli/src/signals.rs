//! Ctrl-C (SIGINT), SIGTERM, and SIGHUP (a closed terminal; left ignored where the run
//! was started ignoring it, as `nohup` does). For the subcommands that count, the first
//! signal raises a flag: the runners (the count's, its audit's and the rotation-fixed counts') stop at
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
/// like a Ctrl-C or a scheduler's SIGTERM, unless the run was started to outlive its
/// terminal (`nohup`, which starts it with SIGHUP ignored).
fn stopping() -> Vec<i32> {
    let mut signals = vec![SIGINT, SIGTERM];
    if !is_ignored(SIGHUP) {
        signals.push(SIGHUP);
    }
    signals
}

/// Whether `signal` was set to be ignored when the process started.
fn is_ignored(signal: i32) -> bool {
    // SAFETY: with a null new action, sigaction only writes the current one into `old`,
    // a zeroed `sigaction` that lives across the call.
    unsafe {
        let mut old: libc::sigaction = std::mem::zeroed();
        libc::sigaction(signal, std::ptr::null(), &mut old) == 0
            && old.sa_sigaction == libc::SIG_IGN
    }
}

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
        for signal in stopping() {
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

/// Ends the process at the first SIGINT, SIGTERM or SIGHUP, saying what it was `doing`: for the
/// subcommands with no state to save. What their buffers held is lost, as in a death by
/// the signal; what they wrote before stays written.
pub(crate) fn end_at_once(doing: &'static str) -> anyhow::Result<()> {
    let mut received = Received::new(stopping()).context("cannot install a signal handler")?;
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
