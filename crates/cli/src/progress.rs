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

/// How often `--progress log` prints a line at first, and at most: a line every 5 s is
/// right for a minute's count and 17,280 lines for a day's, so the interval grows with the
/// run, to a twelfth of the time elapsed, up to 10 minutes (about 150 lines a day).
const LOG_EVERY_FIRST: Duration = Duration::from_secs(5);
const LOG_EVERY_MOST: Duration = Duration::from_secs(600);

/// The time between log lines `elapsed` into a run.
fn log_interval(elapsed: Duration) -> Duration {
    (elapsed / 12).clamp(LOG_EVERY_FIRST, LOG_EVERY_MOST)
}

/// The bar's length: its position is the share of the run done, in ten-thousandths.
const BAR_LENGTH: u64 = 10_000;

/// What the user sees of a run on stderr: its progress as `mode` asks, and, in every mode,
/// a warning when checkpoint saves start or stop failing.
pub(crate) struct Display {
    view: View,
    /// What the run is, where it is not the count itself (`auditing`): the log's lines and
    /// the bar name it.
    phase: Option<&'static str>,
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
        Display { view, phase: None, checkpoint_failing: false, resume_said: false }
    }

    /// A display of a phase after the count (`auditing`), said when it starts with `what`
    /// it does, so that no phase of a run is silent.
    pub(crate) fn phase(mode: ProgressMode, phase: &'static str, what: &str) -> Display {
        let mut display = Display::new(mode);
        display.phase = Some(phase);
        if !matches!(display.view, View::Hidden) {
            display.view.say(what);
        }
        display
    }

    pub(crate) fn update(&mut self, progress: &Progress<'_, impl Found>) {
        if !self.resume_said && progress.resumed > 0 && !matches!(self.view, View::Hidden) {
            self.resume_said = true;
            let earlier = progress.elapsed.saturating_sub(progress.session).as_secs_f64();
            self.view.say(&format!(
                "resuming the checkpoint: {} of {} tasks done in {} before",
                grouped(progress.resumed as u128),
                grouped(progress.total as u128),
                clock(earlier)
            ));
        }
        self.view.update(progress, self.phase);
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

    fn update(&mut self, progress: &Progress<'_, impl Found>, phase: Option<&str>) {
        match self {
            View::Bar(bar) => {
                if bar.length() != Some(BAR_LENGTH) {
                    bar.set_length(BAR_LENGTH);
                    bar.enable_steady_tick(Duration::from_millis(200));
                }
                bar.set_position((share_done(progress) * BAR_LENGTH as f64) as u64);
                bar.set_elapsed(progress.elapsed);
                bar.set_prefix(eta(progress).map_or_else(|| "--:--:--".to_owned(), clock));
                bar.set_message(match phase {
                    Some(phase) => format!("{phase}: {}", solutions_so_far(progress)),
                    None => solutions_so_far(progress),
                });
            }
            View::Log { last } => {
                let due = last.is_none_or(|at| at.elapsed() >= log_interval(progress.elapsed));
                if due || progress.done == progress.total {
                    *last = Some(Instant::now());
                    match phase {
                        Some(phase) => say!("{phase}: {}", log_line(progress)),
                        None => say!("{}", log_line(progress)),
                    }
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
    format!("{} solutions, {}/s", grouped(progress.partial.found()), human(rate))
}

/// The share of the run done, on the ETA's basis: the time spent over the time spent and
/// the time the ETA says is left. Tasks differ a hundredfold in cost, so their share done
/// would disagree with the ETA beside it; where there is no ETA yet, it is all there is.
fn share_done<R>(progress: &Progress<'_, R>) -> f64 {
    if progress.done >= progress.total {
        return 1.0;
    }
    let elapsed = progress.elapsed.as_secs_f64();
    match eta(progress) {
        Some(left) if elapsed + left > 0.0 => elapsed / (elapsed + left),
        _ => progress.done as f64 / progress.total as f64,
    }
}

fn log_line(progress: &Progress<'_, impl Found>) -> String {
    let percent = 100.0 * share_done(progress);
    let eta = eta(progress).map_or_else(|| "--:--:--".to_owned(), clock);
    format!(
        "{percent:.1}% done, elapsed {}, ETA {eta}, {}/{} tasks, {}",
        clock(progress.elapsed.as_secs_f64()),
        grouped(progress.done as u128),
        grouped(progress.total as u128),
        solutions_so_far(progress)
    )
}

/// A count with its thousands grouped: `4,779,803,696`.
pub(crate) fn grouped(count: u128) -> String {
    let digits = count.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (index, digit) in digits.chars().enumerate() {
        if index > 0 && (digits.len() - index).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// How progress is shown on stderr.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Shown {
    Bar,
    Log,
    Nothing,
}

/// How progress in `mode` is shown: a bar needs a terminal that can redraw a line, so
/// `bar` on a file or pipe gives the log's lines, and `auto` there nothing; on a terminal
/// that cannot redraw (`TERM` dumb or unset: an Emacs shell, some CI consoles) both give
/// the log's lines, since someone is watching.
pub(crate) fn shown_as(mode: ProgressMode) -> Shown {
    let terminal = std::io::stderr().is_terminal();
    let redraws =
        terminal && std::env::var("TERM").is_ok_and(|term| !term.is_empty() && term != "dumb");
    match mode {
        ProgressMode::Bar | ProgressMode::Auto if redraws => Shown::Bar,
        ProgressMode::Auto if terminal => Shown::Log,
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

/// The bar's fields for a terminal `width` columns wide, never wider than it: all of them
/// from 80 columns (the solutions found as the message), without the message below
/// that, without the elapsed time below 50, without the bar below 24, and only the
/// percentage below 14. The bar itself takes what the others leave.
pub(crate) fn bar_style(width: usize) -> ProgressStyle {
    let template = if width >= 80 {
        "{elapsed_precise} [{wide_bar}] {percent:>3}% ETA {prefix} {msg}"
    } else if width >= 50 {
        "{elapsed_precise} [{wide_bar}] {percent:>3}% ETA {prefix}"
    } else if width >= 24 {
        "[{wide_bar}] {percent:>3}% ETA {prefix}"
    } else if width >= 14 {
        "{percent:>3}% {prefix}"
    } else {
        "{percent:>3}%"
    };
    ProgressStyle::with_template(template).expect("the templates are valid").progress_chars("=> ")
}

/// Seconds until the run ends: from the scheduler's cost model, which times every part of
/// the list, or, where it has none (a run over MPI, a resumed run before its first task
/// here), from the tasks done so far, in this session or before it.
fn eta<R>(progress: &Progress<'_, R>) -> Option<f64> {
    if let Some(eta) = progress.eta {
        return Some(eta.as_secs_f64());
    }
    let fresh = progress.done - progress.resumed;
    let (seconds, tasks) = match fresh {
        0 => (progress.elapsed.saturating_sub(progress.session), progress.resumed),
        _ => (progress.session, fresh),
    };
    (tasks > 0).then(|| {
        let per_task = seconds.as_secs_f64() / tasks as f64;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_log_interval_grows_with_the_run_between_bounds() {
        let minutes = |m: u64| Duration::from_secs(60 * m);
        assert_eq!(log_interval(Duration::ZERO), LOG_EVERY_FIRST);
        assert_eq!(log_interval(minutes(1)), LOG_EVERY_FIRST);
        assert_eq!(log_interval(minutes(60)), minutes(5));
        assert_eq!(log_interval(minutes(24 * 60)), LOG_EVERY_MOST);
        // A day's log: a line every 10 minutes once past two hours.
        let mut lines = 0;
        let mut at = Duration::ZERO;
        while at < minutes(24 * 60) {
            at += log_interval(at);
            lines += 1;
        }
        assert!(lines < 250, "{lines} lines a day");
    }

    #[test]
    fn a_resumed_run_has_an_eta_before_its_first_task_and_a_share_on_its_basis() {
        let found = Counts::default();
        let progress = Progress {
            done: 50,
            total: 100,
            resumed: 50,
            partial: &found,
            elapsed: Duration::from_secs(101),
            session: Duration::from_secs(1),
            eta: None,
            checkpoint_failure: None,
        };
        assert_eq!(eta(&progress), Some(100.0));
        assert!((share_done(&progress) - 101.0 / 201.0).abs() < 1e-9);
        assert!(log_line(&progress).contains("ETA 00:01:40, 50/100 tasks"));
    }

    #[test]
    fn counts_are_grouped_in_thousands() {
        assert_eq!(grouped(0), "0");
        assert_eq!(grouped(999), "999");
        assert_eq!(grouped(1000), "1,000");
        assert_eq!(grouped(4_779_803_696), "4,779,803,696");
        assert_eq!(grouped(u128::MAX).len(), 39 + 12);
    }
}
