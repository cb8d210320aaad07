//! Progress on stderr: an indicatif bar, a log line every few seconds, or nothing.

use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nqueens_core::Counts;
use nqueens_scheduler::Progress;

use crate::cli::ProgressMode;
use crate::output::say;

/// What a run's partial result says of the solutions found so far.
pub(crate) trait Found {
    fn found(&self) -> u128;
}

impl Found for Counts {
    fn found(&self) -> u128 {
        self.total
    }
}

/// How often `--progress log` prints a line.
const LOG_EVERY: Duration = Duration::from_secs(5);

/// What the user sees of a run on stderr: its progress as `mode` asks, and, in every mode,
/// a warning when checkpoint saves start or stop failing.
pub(crate) struct Display {
    view: View,
    /// Whether the latest checkpoint save failed, so that a run of failures warns once.
    checkpoint_failing: bool,
}

enum View {
    Bar(ProgressBar),
    Log { last: Option<Instant> },
    Hidden,
}

impl Display {
    pub(crate) fn new(mode: ProgressMode) -> Display {
        let view = if draws_bar(mode) {
            View::bar()
        } else if mode == ProgressMode::Log {
            View::Log { last: None }
        } else {
            View::Hidden
        };
        Display { view, checkpoint_failing: false }
    }

    pub(crate) fn update(&mut self, progress: &Progress<'_, impl Found>) {
        self.view.update(progress);
        let failure = progress.checkpoint_failure;
        if failure.is_some() != self.checkpoint_failing {
            self.checkpoint_failing = failure.is_some();
            let warning = match failure {
                Some(failure) => format!(
                    "warning: {failure}; counting on, and trying again at each \
                     --checkpoint-every interval"
                ),
                None => "the checkpoint is saved again".to_owned(),
            };
            self.view.say(&warning);
        }
    }

    pub(crate) fn finish(&self) {
        if let View::Bar(bar) = &self.view {
            bar.finish_and_clear();
        }
    }
}

impl View {
    fn bar() -> View {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let style = ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30.cyan/blue}] {pos}/{len} tasks {percent:>3}% ETA {prefix} | {msg}",
        )
        .expect("the template is valid")
        .progress_chars("=> ");
        bar.set_style(style);
        bar.enable_steady_tick(Duration::from_millis(200));
        View::Bar(bar)
    }

    /// A line on stderr that the bar, if there is one, does not draw over.
    fn say(&self, line: &str) {
        match self {
            View::Bar(bar) => bar.suspend(|| say!("{line}")),
            View::Log { .. } | View::Hidden => say!("{line}"),
        }
    }

    fn update(&mut self, progress: &Progress<'_, impl Found>) {
        match self {
            View::Bar(bar) => {
                if bar.length() != Some(progress.total as u64) {
                    bar.set_length(progress.total as u64);
                    bar.reset_eta();
                }
                bar.set_position(progress.done as u64);
                bar.set_elapsed(progress.elapsed);
                bar.set_prefix(eta(progress).map_or_else(|| "unknown".to_owned(), clock));
                bar.set_message(solutions_so_far(progress));
            }
            View::Log { last } => {
                let due = last.is_none_or(|at| at.elapsed() >= LOG_EVERY);
                if due || progress.done == progress.total {
                    *last = Some(Instant::now());
                    say!("{}", log_line(progress));
                }
            }
            View::Hidden => {}
        }
    }
}

fn solutions_so_far(progress: &Progress<'_, impl Found>) -> String {
    let seconds = progress.session.as_secs_f64();
    let found_now = progress.partial.found() as f64;
    let rate =
        if seconds > 0.0 { found_now / progress.elapsed.as_secs_f64().max(seconds) } else { 0.0 };
    format!("{} solutions, {}/s", progress.partial.found(), human(rate))
}

fn log_line(progress: &Progress<'_, impl Found>) -> String {
    let percent = if progress.total == 0 {
        100.0
    } else {
        100.0 * progress.done as f64 / progress.total as f64
    };
    let eta = eta(progress).map_or_else(|| "unknown".to_owned(), |eta| format!("{eta:.0}s"));
    format!(
        "{}/{} tasks ({percent:.1}%), elapsed {:.0}s, ETA {eta}, {}",
        progress.done,
        progress.total,
        progress.elapsed.as_secs_f64(),
        solutions_so_far(progress)
    )
}

/// Whether progress in `mode` is a bar: always for `bar`, and for `auto` on a terminal.
pub(crate) fn draws_bar(mode: ProgressMode) -> bool {
    mode == ProgressMode::Bar || (mode == ProgressMode::Auto && std::io::stderr().is_terminal())
}

/// Seconds until the run ends: from the scheduler's cost model, which times every part of
/// the list, or, where it has none (a run over MPI), from the tasks done so far.
fn eta<R>(progress: &Progress<'_, R>) -> Option<f64> {
    if let Some(eta) = progress.eta {
        return Some(eta.as_secs_f64());
    }
    let fresh = progress.done - progress.resumed;
    (fresh > 0).then(|| {
        let per_task = progress.session.as_secs_f64() / fresh as f64;
        per_task * (progress.total - progress.done) as f64
    })
}

/// Seconds as `1:02:03`, or `4:05` under an hour.
fn clock(seconds: f64) -> String {
    let whole = seconds.round() as u64;
    let (hours, minutes, seconds) = (whole / 3600, whole / 60 % 60, whole % 60);
    if hours > 0 {
        format!("{hours}:{minutes:02}:{seconds:02}")
    } else {
        format!("{minutes}:{seconds:02}")
    }
}

/// A rate with an SI suffix, e.g. `12.3M`.
fn human(x: f64) -> String {
    let (value, suffix) = [(1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|&(scale, _)| x >= scale)
        .map_or((x, ""), |(scale, suffix)| (x / scale, suffix));
    format!("{value:.1}{suffix}")
}
