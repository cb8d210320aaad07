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
    /// Whether the run has said how far the checkpoint it resumed had come.
    resume_said: bool,
}

enum View {
    Bar(ProgressBar),
    Log { last: Option<Instant> },
    Hidden,
}

impl Display {
    pub(crate) fn new(mode: ProgressMode) -> Display {
        let view = match shown_as(mode) {
            Shown::Bar => View::bar(),
            Shown::Log => View::Log { last: None },
            Shown::Nothing => View::Hidden,
        };
        Display { view, checkpoint_failing: false, resume_said: false }
    }

    pub(crate) fn update(&mut self, progress: &Progress<'_, impl Found>) {
        if !self.resume_said && progress.resumed > 0 && !matches!(self.view, View::Hidden) {
            self.resume_said = true;
            let earlier = progress.elapsed.saturating_sub(progress.session).as_secs_f64();
            self.view.say(&format!(
                "resuming the checkpoint: {} of {} tasks done in {} before",
                progress.resumed,
                progress.total,
                clock(earlier)
            ));
        }
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
    /// A bar drawn from the first update on (before it, the list's length is unknown), in
    /// the fields the terminal's width holds.
    fn bar() -> View {
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        bar.set_style(bar_style(terminal_width()));
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
                    bar.enable_steady_tick(Duration::from_millis(200));
                }
                bar.set_position(progress.done as u64);
                bar.set_elapsed(progress.elapsed);
                bar.set_prefix(eta(progress).map_or_else(|| "--:--:--".to_owned(), clock));
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

/// How progress is shown on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shown {
    Bar,
    Log,
    Nothing,
}

/// How progress in `mode` is shown: a bar needs a terminal (it redraws one line), so
/// `bar` on a file or pipe gives the log's lines, and `auto` there nothing.
pub(crate) fn shown_as(mode: ProgressMode) -> Shown {
    let terminal = std::io::stderr().is_terminal();
    match mode {
        ProgressMode::Bar | ProgressMode::Auto if terminal => Shown::Bar,
        ProgressMode::Bar | ProgressMode::Log => Shown::Log,
        ProgressMode::Auto | ProgressMode::Never => Shown::Nothing,
    }
}

/// The width of the terminal on stderr, or 80 columns where it says none.
fn terminal_width() -> usize {
    console::Term::stderr().size_checked().map_or(80, |(_, columns)| usize::from(columns))
}

/// The estimate's sample bar, in the fields the terminal's width holds.
pub(crate) fn sample_style() -> ProgressStyle {
    let template = if terminal_width() >= 50 {
        "sampling {elapsed_precise} [{wide_bar}] {percent:>3}% {msg}"
    } else {
        "[{wide_bar}] {percent:>3}%"
    };
    ProgressStyle::with_template(template).expect("the templates are valid").progress_chars("=> ")
}

/// The bar's fields for a terminal `width` columns wide: all of them from 80 columns,
/// without the solutions found below that, and only the bar, percentage and ETA below 50.
/// The bar itself takes what the others leave.
pub(crate) fn bar_style(width: usize) -> ProgressStyle {
    let template = if width >= 80 {
        "{elapsed_precise} [{wide_bar}] {pos}/{len} {percent:>3}% ETA {prefix} {msg}"
    } else if width >= 50 {
        "{elapsed_precise} [{wide_bar}] {percent:>3}% ETA {prefix}"
    } else {
        "[{wide_bar}] {percent:>3}% {prefix}"
    };
    ProgressStyle::with_template(template).expect("the templates are valid").progress_chars("=> ")
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

/// Seconds as `01:02:03`, the form the elapsed time beside it takes; days as `3d04:05:06`.
fn clock(seconds: f64) -> String {
    let whole = seconds.round() as u64;
    let (days, hours, minutes, seconds) =
        (whole / 86400, whole / 3600 % 24, whole / 60 % 60, whole % 60);
    if days > 0 {
        format!("{days}d{hours:02}:{minutes:02}:{seconds:02}")
    } else {
        format!("{hours:02}:{minutes:02}:{seconds:02}")
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
