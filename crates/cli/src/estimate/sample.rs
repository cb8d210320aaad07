//! What every sample of an estimate shares: its options, its strata and its progress.

use std::cell::Cell;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget};

use crate::cli::{DescendTo, ProgressMode};
use crate::output::{plural, say};
use crate::progress::{self, Shown, shown_as};

/// The most of the predicted work the sample may take.
pub(super) const SAMPLE_SHARE: f64 = 0.02;

/// Tasks of the finer list per stratum, so that one round of the sample (a task from each
/// stratum) is about 1% of the list, and the 2% share takes about two rounds.
const TASKS_PER_STRATUM: usize = 100;

/// The most strata: enough to follow how costs change along any list.
const MOST_STRATA: usize = 64;

/// Tasks run per thread before the sample, and not timed: a thread's first tasks pay for
/// the memory its allocator has yet to map, which the count's later tasks reuse. At N = 18
/// the join's sample predicted 4.2 to 5.5 s for a 3.2 s count without them.
pub(super) const WARM_UP_PER_THREAD: usize = 2;

/// How a sample is run: on the count's threads, drawn by `seed`, its progress shown so,
/// descending as far as asked or as far as it needs.
#[derive(Clone, Copy)]
pub(super) struct SampleOptions {
    pub(super) threads: usize,
    pub(super) seed: u64,
    pub(super) progress: ProgressMode,
    pub(super) descend_to: Option<DescendTo>,
}

/// Strata for a sampled list of `tasks`.
pub(super) fn strata(tasks: usize) -> usize {
    (tasks / TASKS_PER_STRATUM).clamp(1, MOST_STRATA)
}

/// The sample's progress on stderr: its share of the work it aims to take.
pub(super) struct SampleDisplay {
    bar: Option<ProgressBar>,
    log: bool,
    /// What is timed (`task`, `descent`), and what the share is a share of.
    timed: &'static str,
    share_of: &'static str,
    /// The share at which the sample has all it aims at: the bar's end.
    aim: f64,
    /// When the log last printed a line: one every [`LOG_EVERY`] at most.
    logged: Cell<Option<Instant>>,
}

/// How often the sample's log prints a line, like a count's.
const LOG_EVERY: Duration = Duration::from_secs(5);

impl SampleDisplay {
    /// A display of `timed`s (in the singular), with a share `share_of` something, of
    /// which the sample aims at `aim`.
    pub(super) fn new(
        mode: ProgressMode,
        timed: &'static str,
        share_of: &'static str,
        aim: f64,
    ) -> SampleDisplay {
        let shown = shown_as(mode);
        let bar = (shown == Shown::Bar).then(|| {
            let bar = ProgressBar::with_draw_target(Some(1000), ProgressDrawTarget::stderr());
            bar.set_style(progress::sample_style());
            bar
        });
        SampleDisplay {
            bar,
            log: shown == Shown::Log,
            timed,
            share_of,
            aim,
            logged: Cell::new(None),
        }
    }

    pub(super) fn show(&self, timed: usize, session: Duration, share: f64) {
        if let Some(bar) = &self.bar {
            bar.set_position((1000.0 * share / self.aim).min(1000.0) as u64);
            bar.set_message(format!("{} timed", plural(timed, self.timed)));
        } else if self.log && self.logged.get().is_none_or(|at| at.elapsed() >= LOG_EVERY) {
            self.logged.set(Some(Instant::now()));
            self.log(timed, session, share);
        }
    }

    fn log(&self, timed: usize, session: Duration, share: f64) {
        say!(
            "sampling: {} timed, {:.1}% {}, {:.0}s",
            plural(timed, self.timed),
            100.0 * share,
            self.share_of,
            session.as_secs_f64()
        );
    }

    /// Ends the display; the log says where the sample ended, with the tasks still
    /// running when it stopped asking for more.
    pub(super) fn finish(&self, timed: usize, session: Duration, share: f64) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        } else if self.log {
            self.log(timed, session, share);
        }
    }
}
