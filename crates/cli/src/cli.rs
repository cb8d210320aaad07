//! The command line, in one place: clap's definitions and nothing else.

use std::ffi::OsStr;
use std::num::NonZeroUsize;
use std::path::PathBuf;
use std::sync::LazyLock;
use std::time::Duration;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::{Args, CommandFactory, Parser, Subcommand, ValueEnum, ValueHint};
use nqueens_core::{Kernel, Method, Turn};
use nqueens_scheduler::Shard;

use crate::provenance::Build;

/// Counts N-Queens solutions: all of them (OEIS A000170) and those distinct under the
/// board's 8 symmetries (OEIS A002562).
#[derive(Debug, Parser)]
#[command(
    name = "nqueens",
    version = SHORT_VERSION.as_str(),
    long_version = LONG_VERSION.as_str(),
    max_term_width = 80
)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// `-V`: the version, the commit and the engine, on one line.
static SHORT_VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{} (commit {}, engine {})",
        env!("CARGO_PKG_VERSION"),
        Build::this().text(),
        nqueens_core::ENGINE_IDENTITY
    )
});

/// `--version`'s long form: the commit built (and whether its tree was modified), the
/// engine identity, and the optional features built in.
static LONG_VERSION: LazyLock<String> = LazyLock::new(|| {
    format!(
        "{}\ncommit {}\nengine {}\nfeatures: {}",
        env!("CARGO_PKG_VERSION"),
        Build::this().text(),
        nqueens_core::ENGINE_IDENTITY,
        env!("NQUEENS_FEATURES"),
    )
});

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Count the solutions of an N x N board, or those holding some queens (--place).
    Count(CountArgs),
    /// Predict a count's wall time, core-hours and memory from a timed sample of its tasks.
    Estimate(EstimateArgs),
    /// Print one solution of an N x N board: built directly, or found at random.
    Solve(SolveArgs),
    /// Print the solutions of an N x N board in lexicographic order.
    List(ListArgs),
    /// Say whether placements are solutions, and if not, which two queens attack each other.
    Verify(VerifyArgs),
    /// Sum the JSON results of the shards of one run and print the count.
    Merge(MergeArgs),
    /// Print a shell's completion script for nqueens (bash, zsh, fish, elvish, powershell).
    Completions(CompletionsArgs),
    /// Print the manual page of nqueens or of one subcommand, in roff (`nqueens man count |
    /// man -l -`).
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub(crate) struct ManArgs {
    /// The subcommand whose page to print (nqueens-count(1) and so on); without it, the
    /// page of nqueens itself.
    #[arg(value_parser = MAN_PAGES)]
    pub(crate) subcommand: Option<String>,
}

/// The subcommands with a page of their own: every one but `help`.
const MAN_PAGES: [&str; 8] =
    ["count", "estimate", "solve", "list", "verify", "merge", "completions", "man"];

#[derive(Debug, Args)]
pub(crate) struct CompletionsArgs {
    /// The shell.
    #[arg(value_enum)]
    pub(crate) shell: clap_complete::Shell,
}

/// What defines a count and the share of the machine it runs on: `count` and `estimate`
/// take the same, so that an estimate predicts exactly the count it names.
#[derive(Debug, Args)]
pub(crate) struct BoardArgs {
    /// The board size, 1 to 128.
    #[arg(value_name = "N", value_hint = ValueHint::Other, allow_negative_numbers = true, value_parser = parse_board_size)]
    pub(crate) n: usize,

    /// How to count: auto, join, eightfold, half or plain [default: auto].
    ///
    /// join (half-board meet in the middle, fastest from N = 16), eightfold (backtracking
    /// with the 8-fold symmetry), half (mirror halving), plain (no symmetry), or auto, the
    /// fastest for N; with --place, plain, the only one allowed. All are exact and report
    /// total and unique counts.
    #[arg(
        long,
        value_name = "METHOD",
        default_value = "auto",
        hide_default_value = true,
        hide_possible_values = true,
        value_parser = OneOf { names: &METHODS, parse: parse_method }
    )]
    pub(crate) method: MethodChoice,

    /// The instruction set: auto, avx512, avx2 or scalar.
    ///
    /// avx512 (backtracking: sixteen boards at a time in AVX-512 registers, N <= 28; join:
    /// 512 pairs at a time, with VPOPCNTDQ), avx2 (eight boards, N <= 28; 256 pairs),
    /// scalar (one board; 64 pairs), or auto, the fastest this processor has for N. All give
    /// the same counts; one the processor lacks is refused.
    #[arg(
        long,
        value_name = "KERNEL",
        default_value = "auto",
        hide_possible_values = true,
        value_parser = OneOf { names: &KERNELS, parse: parse_kernel }
    )]
    pub(crate) kernel: Kernel,

    /// Hold at most SIZE of memory in all (K, M, G, T: powers of 1024).
    ///
    /// The limit bounds the whole process: the join's room is what is left of it once the
    /// process's own memory (a few tens of MiB, and an estimate's draws) is set aside,
    /// divided by the threads (at least 4 MiB each; without this option, 1.5 GiB or less),
    /// and row sets too large for that are counted in pieces. A count that needs more is
    /// refused up front, and so is more than the machine has. Backtracking needs only a
    /// board per thread and says that it ignores the limit [default: 3/4 of the machine's
    /// memory].
    #[arg(long, value_name = "SIZE", value_hint = ValueHint::Other, value_parser = parse_size)]
    pub(crate) max_memory: Option<u64>,

    #[command(flatten)]
    pub(crate) workers: Workers,

    /// Progress on stderr: auto, bar, log or never.
    ///
    /// auto: a bar on a terminal, else nothing; bar: a bar (log lines where it cannot be
    /// drawn: a file, a pipe, TERM=dumb); log: a line every 5 seconds at first, less often
    /// as the run grows (at most every 10 minutes), for batch jobs; never: nothing.
    #[arg(
        long,
        value_enum,
        default_value_t = ProgressMode::Auto,
        hide_possible_values = true,
        overrides_with = "quiet"
    )]
    pub(crate) progress: ProgressMode,

    /// No progress on stderr: the same as --progress never (the last of the two wins).
    #[arg(short, long, overrides_with = "progress")]
    pub(crate) quiet: bool,
}

impl BoardArgs {
    /// How progress is shown: as --progress says, or not at all with --quiet.
    pub(crate) fn progress(&self) -> ProgressMode {
        if self.quiet { ProgressMode::Never } else { self.progress }
    }
}

/// The worker threads of a command that searches in parallel.
#[derive(Debug, Args)]
pub(crate) struct Workers {
    /// Worker threads [default: the number of logical CPUs].
    #[arg(
        short = 'j',
        long,
        value_name = "T", value_hint = ValueHint::Other,
        allow_negative_numbers = true,
        value_parser = parse_positive
    )]
    pub(crate) threads: Option<NonZeroUsize>,
}

#[derive(Debug, Args)]
pub(crate) struct CountArgs {
    #[command(flatten)]
    pub(crate) board: BoardArgs,

    /// Count only the solutions holding these queens (R:C from 1, comma-separated).
    ///
    /// Row:column pairs counted from 1, in any rows, comma-separated or given with --place
    /// again. A partial board has no symmetry, so no unique count is reported.
    #[arg(long, value_name = "QUEENS", value_hint = ValueHint::Other, value_delimiter = ',', value_parser = parse_queen)]
    pub(crate) place: Vec<(usize, usize)>,

    /// Count only the solutions a turn leaves unchanged: half-turn or quarter-turn.
    ///
    /// half-turn counts OEIS A032522, quarter-turn OEIS A033148, each with a search of its
    /// own; no unique count is reported.
    #[arg(
        long,
        value_name = "TURN",
        conflicts_with = "place",
        hide_possible_values = true,
        value_parser = OneOf { names: &TURNS, parse: parse_turn }
    )]
    pub(crate) symmetric: Option<Turn>,

    /// Count a share F of the tasks again, and report the total only if they agree.
    ///
    /// A seeded share F (0 < F <= 1) of the tasks is counted again once the count is done,
    /// on another kernel and, with the join, as the sum of each task's parts; a task that
    /// does not agree is named and no total is reported. The audit shows its own progress
    /// and reports its own time. Costs F times how slow the recount's kernel is beside the
    /// count's: about F to 2 F where another vector kernel recounts, up to about 3 F where
    /// only the scalar kernel is left (a processor with AVX2 alone).
    #[arg(
        long,
        value_name = "F", value_hint = ValueHint::Other,
        allow_negative_numbers = true,
        value_parser = parse_fraction,
        conflicts_with = "mpi"
    )]
    pub(crate) audit: Option<f64>,

    /// The seed that chooses the audited tasks.
    #[arg(long, value_name = "S", value_hint = ValueHint::Other, default_value_t = 0, requires = "audit")]
    pub(crate) audit_seed: u64,

    /// Rows fixed in each task [default: at least 64 tasks per thread].
    #[arg(long, value_name = "K", value_hint = ValueHint::Other)]
    pub(crate) depth: Option<usize>,

    /// Run only shard I of M (0 <= I < M) and print its partial counts, for `nqueens merge`.
    #[arg(long, value_name = "I/M", value_hint = ValueHint::Other)]
    pub(crate) shard: Option<Shard>,

    /// Share the count among the ranks of an MPI job (run under mpirun).
    ///
    /// Rank 0 hands out batches of tasks, each rank runs them on its threads, and rank 0
    /// prints the sum. Needs a build with `--features mpi`.
    #[arg(long, conflicts_with_all = ["shard", "checkpoint"])]
    pub(crate) mpi: bool,

    /// With --mpi: rank R of P runs shard R/P of the tasks instead of asking for batches.
    #[arg(long, requires = "mpi")]
    pub(crate) mpi_static: bool,

    /// Save progress to FILE, and resume from it when it exists.
    #[arg(long, value_name = "FILE")]
    pub(crate) checkpoint: Option<PathBuf>,

    /// Time between checkpoint saves: seconds, or with a unit (500ms, 30s, 5m, 1h, 1d), from
    /// 0.1 s to a day.
    #[arg(
        long,
        value_name = "TIME", value_hint = ValueHint::Other,
        default_value = "60s",
        requires = "checkpoint",
        value_parser = parse_interval
    )]
    pub(crate) checkpoint_every: Duration,

    /// Count only these tasks of the list (indices from 0, comma-separated), each on its own.
    ///
    /// The tasks `merge --compare` names, counted again: give the options of the run that
    /// named them (or the --depth it prints), so that the list is the same. The JSON holds
    /// each task's count (`by_task`), which `merge --compare` compares with a shard's.
    #[arg(
        long,
        value_name = "I,...", value_hint = ValueHint::Other,
        value_delimiter = ',',
        conflicts_with_all = ["checkpoint", "mpi", "audit"]
    )]
    pub(crate) task: Vec<usize>,

    /// Report the work done (placements or pairs tested) and the peak memory.
    ///
    /// Counts the placements tried (for the join, the pairs of half-boards tested) and
    /// reports them with the thread-time per one, to see the kernel's efficiency apart from
    /// the symmetry gain (slows backtracking a little), and the peak memory. Part of a
    /// checkpoint's identity: a run resumes only with the same --stats.
    #[arg(long)]
    pub(crate) stats: bool,

    /// Print one JSON object on stdout instead of a line of text.
    #[arg(long)]
    pub(crate) json: bool,
}

/// A method, or `auto` for the fastest one for the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MethodChoice {
    Auto,
    Exactly(Method),
}

/// The values `--method` takes, which shells complete.
const METHODS: [&str; 5] = ["auto", "join", "eightfold", "half", "plain"];

/// The values `--kernel` takes.
const KERNELS: [&str; 4] = ["auto", "avx512", "avx2", "scalar"];

/// The values `--symmetric` takes.
const TURNS: [&str; 2] = ["half-turn", "quarter-turn"];

/// A value parsed by `parse`, one of `names`: the parser's own message for anything else,
/// and the names for shell completions and the manual.
#[derive(Clone)]
struct OneOf<T> {
    names: &'static [&'static str],
    parse: fn(&str) -> Result<T, String>,
}

impl<T: Clone + Send + Sync + 'static> TypedValueParser for OneOf<T> {
    type Value = T;

    fn parse_ref(
        &self,
        command: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        self.parse.parse_ref(command, arg, value)
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.names.iter().map(PossibleValue::new)))
    }
}

fn parse_method(text: &str) -> Result<MethodChoice, String> {
    if text == "auto" {
        return Ok(MethodChoice::Auto);
    }
    text.parse().map(MethodChoice::Exactly).map_err(|e: nqueens_core::UnknownMethod| {
        format!("unknown method '{}' (expected {})", e.0, METHODS.join(", "))
    })
}

fn parse_turn(text: &str) -> Result<Turn, String> {
    text.parse().map_err(|e: nqueens_core::UnknownTurn| e.to_string())
}

fn parse_kernel(text: &str) -> Result<Kernel, String> {
    Kernel::ALL.into_iter().find(|k| k.name() == text).ok_or_else(|| {
        let names: Vec<&str> = Kernel::ALL.iter().map(|k| k.name()).collect();
        format!("unknown kernel '{text}' (expected one of: {})", names.join(", "))
    })
}

/// A count of threads or cores, said in words where clap's own parser would print
/// "number would be zero for non-zero type".
fn parse_positive(text: &str) -> Result<NonZeroUsize, String> {
    NonZeroUsize::new(parse_whole(text)?).ok_or_else(|| "must be at least 1".to_owned())
}

/// A share of the tasks: a number above 0 and at most 1.
fn parse_fraction(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(share) if share > 0.0 && share <= 1.0 => Ok(share),
        _ => Err(format!("'{text}' is not a share of the tasks above 0 and at most 1")),
    }
}

/// A whole number, where clap's own parser would answer `-3` with "unexpected argument"
/// and `3.5` with "invalid digit found in string".
fn parse_whole(text: &str) -> Result<usize, String> {
    text.trim().parse().map_err(|_| match text.trim().strip_prefix('-') {
        Some(rest) if rest.parse::<u64>().is_ok() => format!("'{text}' is negative"),
        _ => format!("'{text}' is not a whole number"),
    })
}

/// A board size, whose range the method checks.
fn parse_board_size(text: &str) -> Result<usize, String> {
    parse_whole(text).map_err(|_| format!("'{text}' is not a board size (a whole number from 1)"))
}

/// A seed or a limit: a whole number from 0.
fn parse_seed(text: &str) -> Result<u64, String> {
    text.trim().parse().map_err(|_| match text.trim().strip_prefix('-') {
        Some(rest) if rest.parse::<u64>().is_ok() => format!("'{text}' is negative"),
        _ => format!("'{text}' is not a whole number from 0"),
    })
}

/// A size in bytes: a number, optionally followed by K, M, G or T (powers of 1024), with
/// or without a trailing `B` or `iB`.
fn parse_size(text: &str) -> Result<u64, String> {
    let upper = text.trim().to_ascii_uppercase();
    let unit = upper.trim_end_matches("IB").trim_end_matches('B');
    let (number, shift) = match unit.chars().last() {
        Some('K') => (&unit[..unit.len() - 1], 10),
        Some('M') => (&unit[..unit.len() - 1], 20),
        Some('G') => (&unit[..unit.len() - 1], 30),
        Some('T') => (&unit[..unit.len() - 1], 40),
        _ => (unit, 0),
    };
    let bad = || format!("'{text}' is not a size (examples: 800M, 16G, 1073741824)");
    let value: f64 = number.trim().parse().map_err(|_| bad())?;
    if !(value.is_finite() && value > 0.0) {
        return Err(bad());
    }
    let bytes = value * (1u64 << shift) as f64;
    // A fraction of a byte would be a limit of nothing, refused as `0` is.
    if !(1.0..u64::MAX as f64).contains(&bytes) {
        return Err(bad());
    }
    Ok(bytes as u64)
}

/// The shortest time between checkpoint saves: each save is an fsync, and ten a second is
/// already more than a run of hours needs.
const SHORTEST_INTERVAL: Duration = Duration::from_millis(100);

/// The longest time between checkpoint saves: a run that saves less often than daily loses
/// a day to a crash.
const LONGEST_INTERVAL: Duration = Duration::from_secs(24 * 3600);

/// A time: seconds (`90`, `0.5`) or a number with a unit (`30s`, `5m`, `1h`).
fn parse_seconds(text: &str) -> Result<f64, String> {
    let trimmed = text.trim();
    // The unit is the letters at the end, so that `1e3` is a number of seconds.
    let number = trimmed.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let seconds_per_unit = match &trimmed[number.len()..] {
        "ms" => 0.001,
        "" | "s" => 1.0,
        "m" | "min" => 60.0,
        "h" => 3600.0,
        "d" => 86400.0,
        _ => return Err(format!("'{text}' is not a time (examples: 30, 30s, 5m, 1h)")),
    };
    let value: f64 = number
        .trim()
        .parse()
        .ok()
        .filter(|value: &f64| value.is_finite())
        .ok_or_else(|| format!("'{text}' is not a time (examples: 30, 30s, 5m, 1h)"))?;
    Ok(value * seconds_per_unit)
}

/// A time between saves, from 0.1 s to a day.
fn parse_interval(text: &str) -> Result<Duration, String> {
    let seconds = parse_seconds(text)?;
    if !(SHORTEST_INTERVAL.as_secs_f64()..=LONGEST_INTERVAL.as_secs_f64()).contains(&seconds) {
        return Err(format!(
            "'{text}' is outside 0.1s to 24h: saves more often only add fsyncs, and less often \
             risk a day's work"
        ));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// The longest sample: a day is already more than any plan needs.
const LONGEST_SAMPLE: Duration = Duration::from_secs(24 * 3600);

/// How long an estimate may sample, from a second to a day.
fn parse_sample_time(text: &str) -> Result<Duration, String> {
    let seconds = parse_seconds(text)?;
    if !(1.0..=LONGEST_SAMPLE.as_secs_f64()).contains(&seconds) {
        return Err(format!("'{text}' is outside 1s to 24h"));
    }
    Ok(Duration::from_secs_f64(seconds))
}

/// What an estimate's sample times below the count's tasks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum SampleChoice {
    /// Whole units: the finest tasks a count runs whole.
    Units,
    /// Pieces of units, finer than any task a count runs.
    Pieces,
}

#[derive(Debug, Args)]
pub(crate) struct EstimateArgs {
    #[command(flatten)]
    pub(crate) board: BoardArgs,

    /// Also predict the wall time on a cluster of C cores like this machine's.
    ///
    /// Machines like this one, each running T threads, as `count --shard` splits the count
    /// for them.
    #[arg(long, value_name = "C", value_hint = ValueHint::Other, allow_negative_numbers = true, value_parser = parse_positive)]
    pub(crate) cores: Option<NonZeroUsize>,

    /// Time units or pieces of them, whatever their size.
    ///
    /// Where a count's tasks are too large to time, the sample times random units below
    /// them (the finest tasks a count runs whole; where units take under 20 ms, the tasks
    /// above them that take longer), or pieces of units where units are too large for the
    /// sample's time [default: units where enough of them fit in the sample's time, else
    /// pieces].
    #[arg(long, value_name = "WHAT", value_enum)]
    pub(crate) sample: Option<SampleChoice>,

    /// The longest the sample may run (30s, 20m, 1h).
    ///
    /// The sample stops sooner once its prediction is precise to 1%, and goes on past
    /// its time until it has timed 4 samples per thread; the timings under way when it
    /// stops are finished, not dropped. By default it runs 90 s (120 s where whole tasks
    /// are timed), and for a long count goes on while its own error is above 5%, up to a
    /// thousandth of the count it predicts or an hour: on 2 threads N = 27 takes 10 to 30
    /// minutes, N = 26 and 28 the hour.
    #[arg(long, value_name = "TIME", value_hint = ValueHint::Other, value_parser = parse_sample_time)]
    pub(crate) sample_time: Option<Duration>,

    /// After estimating, count K tasks drawn at random, and correct the plan by them.
    ///
    /// Each task is predicted as the estimate predicts it, then counted whole, exactly as
    /// the count would; the report gives each task's predicted and counted time, the ratio
    /// of their sums with its interval, and the plan corrected by it. The tasks come from
    /// the count's own list where its larger tasks take at most about ten core-minutes,
    /// else from a finer list whose tasks do (see --depth).
    #[arg(long, value_name = "K", value_hint = ValueHint::Other, allow_negative_numbers = true, value_parser = parse_positive)]
    pub(crate) check: Option<NonZeroUsize>,

    /// Profile the tasks the check counts: the time of each part of their work, and the
    /// work counted (pairs tested, lookups, bytes), per solution.
    #[arg(long, requires = "check")]
    pub(crate) profile: bool,

    /// The core time of the timings that predict each checked task (20s, 5m) [default:
    /// every piece of a checked unit where they take ten core-minutes or less, else 40s].
    ///
    /// The time given replaces the default: as many pieces of each checked unit, or
    /// finer tasks within each checked task, as take that long at the sample's average time
    /// each, so that a longer time leaves the ratio less to which were drawn. By default a
    /// check times every piece of a unit where they take ten core-minutes or less in all
    /// (N = 28 with 9 GiB a thread: 16 pieces of about 15 to 20 seconds), and where pieces
    /// take minutes (N = 28 in 1.5 GiB a thread), 2 of them. A checked task above its units
    /// (--depth) is predicted from as many of its units as that time allows (by default
    /// ten core-minutes), at least two, each with every piece where they take half of it.
    #[arg(long, value_name = "TIME", value_hint = ValueHint::Other, value_parser = parse_sample_time, requires = "check")]
    pub(crate) check_sample_time: Option<Duration>,

    /// Rows fixed in each task the check draws [default: the count's, or finer where its
    /// larger tasks would take more than about ten core-minutes].
    #[arg(long, value_name = "K", value_hint = ValueHint::Other, requires = "check")]
    pub(crate) depth: Option<usize>,

    /// Write every timing the estimate rests on to FILE, as JSON.
    ///
    /// One entry per timing, in the order they ended: the list task it was drawn from and
    /// its stratum, the key of what was timed and how many like it that task holds, its
    /// seconds, when it ended, and the cost and solutions it says its task holds. The
    /// file is written once the sample ends, before any check, and replaced whole.
    #[arg(long, value_name = "FILE", value_hint = ValueHint::FilePath)]
    pub(crate) timings: Option<PathBuf>,

    /// The seed of the sample: the same seed draws the same tasks.
    #[arg(long, value_name = "S", value_hint = ValueHint::Other, default_value_t = 1, allow_negative_numbers = true, value_parser = parse_seed)]
    pub(crate) seed: u64,

    /// Print one JSON object on stdout instead of lines of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct SolveArgs {
    /// The board size: 1, or 4 up to 100000000 (10000000 with --random).
    #[arg(value_name = "N", value_hint = ValueHint::Other, allow_negative_numbers = true, value_parser = parse_board_size)]
    pub(crate) n: usize,

    #[command(flatten)]
    pub(crate) printed: Printed,

    /// A random solution instead of the constructed one (prints its seed on stderr).
    ///
    /// Found by a min-conflicts local search; without --seed the seed is drawn from the
    /// clock and said on stderr, so that the solution can be found again.
    #[arg(long)]
    pub(crate) random: bool,

    /// The seed of --random: the same seed gives the same solution [default: from the
    /// clock].
    #[arg(
        long,
        value_name = "S", value_hint = ValueHint::Other,
        requires = "random",
        allow_negative_numbers = true,
        value_parser = parse_seed
    )]
    pub(crate) seed: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The board size, 1 to 128.
    #[arg(value_name = "N", value_hint = ValueHint::Other, allow_negative_numbers = true, value_parser = parse_board_size)]
    pub(crate) n: usize,

    /// Stop after K solutions.
    #[arg(long, value_name = "K", value_hint = ValueHint::Other, allow_negative_numbers = true, value_parser = parse_seed)]
    pub(crate) limit: Option<u64>,

    /// One solution per class under the board's 8 symmetries: the least of its images.
    #[arg(long)]
    pub(crate) unique: bool,

    #[command(flatten)]
    pub(crate) printed: Printed,

    #[command(flatten)]
    pub(crate) workers: Workers,
}

#[derive(Debug, Args)]
pub(crate) struct VerifyArgs {
    /// A placement's columns, one per argument, or placements, one per argument; without
    /// them, placements from stdin.
    ///
    /// Columns count from 1: `verify 2 4 1 3` is one placement. An argument that holds a
    /// whole placement (columns separated by spaces or commas, a JSON object with
    /// "columns", or a board drawn with Q and .) gets a verdict of its own. Standard
    /// input holds placements as `list` and `solve` print them, one verdict each (boards
    /// separated by a blank line).
    #[arg(value_name = "PLACEMENT", value_hint = ValueHint::Other)]
    pub(crate) columns: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct MergeArgs {
    /// The shard results, as `nqueens count --shard I/M --json` prints them; `-` reads
    /// every result on standard input.
    #[arg(required = true, value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,

    /// Print one JSON object on stdout instead of a line of text.
    #[arg(long)]
    pub(crate) json: bool,

    /// Compare two results of one shard task by task instead of summing shards.
    ///
    /// Two results of one shard (run on two machines, say): print the tasks whose counts
    /// differ, with their keys, and exit with status 1 if any do.
    #[arg(long, conflicts_with = "json")]
    pub(crate) compare: bool,
}

/// How `solve` and `list` print solutions: `--format`, or its shorthands; the last given
/// wins.
#[derive(Debug, Args)]
pub(crate) struct Printed {
    /// How each solution is printed: text, board or json.
    ///
    /// text: the column of each row, from 1; board: drawn with Q and . (up to N = 40,
    /// which fits an 80-column terminal); json: one {"n", "columns"} object per line.
    /// `nqueens verify` reads all three.
    #[arg(long, value_enum, default_value_t = Format::Text, overrides_with_all = ["json", "board"])]
    format: Format,

    /// The same as --format json.
    #[arg(long, overrides_with_all = ["format", "board"])]
    json: bool,

    /// The same as --format board.
    #[arg(long, overrides_with_all = ["format", "json"])]
    board: bool,
}

impl Printed {
    /// The format asked for.
    pub(crate) fn format(&self) -> Format {
        match (self.json, self.board) {
            (true, _) => Format::Json,
            (_, true) => Format::Board,
            _ => self.format,
        }
    }
}

/// How a solution is printed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    Text,
    Board,
    Json,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub(crate) enum ProgressMode {
    Auto,
    Bar,
    Log,
    Never,
}

/// One queen of `--place`, `R:C` counted from 1, as a 0-based `(row, column)`.
fn parse_queen(text: &str) -> Result<(usize, usize), String> {
    if text.trim().is_empty() {
        return Err("an empty queen: a comma too many?".to_owned());
    }
    let (row, column) = text
        .split_once(':')
        .ok_or_else(|| "expected R:C, a row and a column counted from 1".to_owned())?;
    let number = |part: &str| {
        part.trim()
            .parse::<usize>()
            .ok()
            .and_then(|value| value.checked_sub(1))
            .ok_or_else(|| format!("'{part}' is not a row or column (they count from 1)"))
    };
    Ok((number(row)?, number(column)?))
}

/// The clap command, for tests and for help generation.
pub(crate) fn build_command() -> clap::Command {
    // The last of a repeated option wins, as in most tools (`-q -q`, or `--progress log`
    // after a `--progress never` from an alias).
    let command = Cli::command().args_override_self(true);
    let names: Vec<String> =
        command.get_subcommands().map(|sub| sub.get_name().to_owned()).collect();
    names.into_iter().fold(command, |command, name| {
        command.mut_subcommand(name, |sub| sub.args_override_self(true))
    })
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use proptest::sample::select;

    use super::{parse_queen, parse_size};

    #[test]
    fn verify_app() {
        super::build_command().debug_assert();
    }

    #[test]
    fn every_subcommand_but_help_has_a_man_page() {
        let mut command = super::build_command();
        command.build();
        let named: Vec<&str> = command
            .get_subcommands()
            .map(clap::Command::get_name)
            .filter(|&name| name != "help")
            .collect();
        assert_eq!(named, super::MAN_PAGES);
    }

    #[test]
    fn queens_are_read_from_one() {
        assert_eq!(parse_queen("1:8"), Ok((0, 7)));
        assert_eq!(parse_queen(" 3 : 2 "), Ok((2, 1)));
        for bad in ["0:1", "1:0", "12", "a:1", "1:", "-1:2"] {
            assert!(parse_queen(bad).is_err(), "{bad}");
        }
    }

    /// The parsers are pure and quick: a few hundred cases each take milliseconds.
    fn config() -> ProptestConfig {
        ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() }
    }

    /// Text near what the options take, so that cases reach past the first check: digits,
    /// signs, points, exponents, separators and unit letters.
    fn near_miss(separator: &'static str) -> impl Strategy<Value = String> {
        let part = "[ +\\-0-9.eE]{0,8}[kKmMgGtTiIbB]{0,3}";
        (part, select(vec!["", separator]), part).prop_map(|(a, s, b)| format!("{a}{s}{b}"))
    }

    proptest! {
        #![proptest_config(config())]

        #[test]
        fn any_text_is_a_queen_or_refused(
            text in prop_oneof![any::<String>(), near_miss(":")],
        ) {
            // A queen that parses is written back the plain way.
            if let Ok((row, column)) = parse_queen(&text) {
                prop_assert_eq!(parse_queen(&format!("{}:{}", row + 1, column + 1)), Ok((row, column)));
            }
        }

        #[test]
        fn queens_written_from_one_read_back_from_zero(
            row in 1..=usize::MAX,
            column in 1..=usize::MAX,
            blanks in [select(vec!["", " ", "\t"]), select(vec!["", " ", "\t"])],
        ) {
            let [before, after] = blanks;
            let text = format!("{before}{row}{after}:{before}{column}{after}");
            prop_assert_eq!(parse_queen(&text), Ok((row - 1, column - 1)));
        }

        #[test]
        fn any_text_is_a_size_or_refused(text in prop_oneof![any::<String>(), near_miss("")]) {
            // Whatever parses is within the bound the parser sets itself: below u64::MAX.
            if let Ok(bytes) = parse_size(&text) {
                prop_assert!(bytes < u64::MAX, "{text:?} gave {bytes}");
            }
        }

        #[test]
        fn sizes_count_their_unit_in_powers_of_1024(
            value in 1..1u64 << 23,
            (unit, shift) in select(vec![("", 0), ("K", 10), ("M", 20), ("G", 30), ("T", 40)]),
            tail in select(vec!["", "B", "iB"]),
            lower in any::<bool>(),
        ) {
            let text = format!("{value}{unit}{tail}");
            let text = if lower { text.to_lowercase() } else { text };
            prop_assert_eq!(parse_size(&text), Ok(value << shift));
        }

        #[test]
        fn fractions_of_a_unit_are_counted_exactly(
            value in 0..1u64 << 20,
            (unit, shift) in select(vec![("K", 10), ("M", 20), ("G", 30), ("T", 40)]),
        ) {
            // Three quarters of a power of 1024 is a whole number of bytes, exact in an f64.
            let text = format!("{value}.75{unit}");
            prop_assert_eq!(parse_size(&text), Ok((value << shift) + (3 << shift) / 4));
        }
    }
}
