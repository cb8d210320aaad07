//! Ctrl-C (SIGINT) and SIGTERM, for the subcommands that run long. The first signal raises
//! a flag: the runner stops at its next step and saves its checkpoint, and a long step of
//! our own ([`Signals::interruptible`]) is left where it is. A second signal ends the
//! process at once. Either way the exit status is 128 + the signal.

use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

use anyhow::Context;
use signal_hook::consts::{SIGINT, SIGTERM};

use crate::exit;

/// How often a wait for a long step looks at the flag.
const POLL: Duration = Duration::from_millis(50);

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
        for signal in [SIGINT, SIGTERM] {
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

    /// Whether a signal has asked the program to stop.
    pub(crate) fn raised(&self) -> bool {
        // Relaxed suffices: the flag carries no data (see the scheduler's run module).
        self.stop.load(Ordering::Relaxed)
    }

    /// The exit status after the signal received: 128 + its number.
    pub(crate) fn exit_code(&self) -> ExitCode {
        match self.received.load(Ordering::Relaxed) {
            0 => exit::after_signal(SIGINT),
            signal => exit::after_signal(signal as i32),
        }
    }

    /// Runs `work` on a thread of its own and returns what it gives, or `None` as soon as
    /// a signal asks to stop; the thread is then left to end with the process. For steps
    /// that take long and have nothing to save, such as the rotation-fixed count.
    pub(crate) fn interruptible<T: Send + 'static>(
        &self,
        work: impl FnOnce() -> T + Send + 'static,
    ) -> Option<T> {
        let (sender, receiver) = mpsc::channel();
        let worker = std::thread::spawn(move || {
            let _ = sender.send(work());
        });
        loop {
            if self.raised() {
                return None;
            }
            match receiver.recv_timeout(POLL) {
                Ok(value) => return Some(value),
                Err(RecvTimeoutError::Timeout) => {}
                Err(RecvTimeoutError::Disconnected) => match worker.join() {
                    Err(panic) => std::panic::resume_unwind(panic),
                    Ok(()) => unreachable!("the step sends its value before it ends"),
                },
            }
        }
    }
}
