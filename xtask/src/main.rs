//! Project automation: `cargo xtask <command>`. One command per file.

mod bench;
mod compare;
mod estimate_check;
mod eta;
mod host;
mod measure;
mod peers;
mod plan;
mod profile;
mod scaling;
mod seeds;
mod tables;
#[cfg(test)]
mod tidy;
mod timings;
mod workspace;

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use crate::workspace::project_root;

const HELP: &str = "\
cargo xtask <command>

Commands:
  bench   [--n 8..=20] [--methods join,eightfold,plain] [--threads NCPU] [--runs 5]
          [--warmup 1] [--long 30] [--longest 600] [--out results/bench.json]
          build the release binary, time every combination (a method written M/K runs on
          kernel K, e.g. eightfold/scalar), check the counts against
          testdata/known-counts.json, and write one JSON file. A combination predicted
          (from the method's two previous N) to take over --long seconds runs once, one
          over --longest is skipped with the method's larger N
  scaling [--n 17] [--methods join,eightfold] [--threads 1..=NCPU] [--runs 5]
          speedup and efficiency against the first thread count, alternating runs;
          writes results/scaling.json and results/scaling.svg
  peers   --dir ../shared/peers [--n 16] [--runs 3] [--out results/peers.json]
          the plain, half and eightfold methods on the auto, avx2 and scalar kernels, one
          thread, against the C reference counters in DIR (seed_bitmask.c with and without
          half, eightfold.c), built with gcc -O3 -march=native and timed in turns; prints
          medians and ratios
  compare --base REV [--runs 3] -- <nqueens arguments>
          build REV in a worktree under target/compare (kept for the next time) and the
          work tree, run both in turns, check they print the same counts, and print the
          medians and current / base; appends to results/compare.json
  estimate-check [--n 16..=20] [--methods join,eightfold] [--threads 2]
          [--out results/estimate.json]
          run `nqueens estimate` and then the count it predicts for each N and method,
          print predicted against actual wall time, and append both to the JSON file
  plan    [--n 22..=28] [--threads 2] [--check-even 8] [--check-odd 4] [--seed 1]
          [--sample-minutes M] [--check-minutes M] [--max-memory-gib G]
          [--out results/plans.json] (run as `cargo xtask-release plan`)
          estimate each N's count with the plan crate in this process, then check it by
          counting that many of its tasks whole (none with 0), each predicted from M
          core-minutes of timings (by default every piece of a unit where they take ten
          core-minutes or less, else 2/3), and append the plans
          (core-time, checked ratio, corrected core-time, memory, time on 10,000 cores)
          to the JSON file
  seeds   [--n 20..=27] [--seeds 1..=5] [--threads 2] [--sample-minutes M]
          [--slice-minutes S] [--max-memory-gib G] [--out results/seeds.json]
          [--timings DIR] [--resume] (run as `cargo xtask-release seeds`)
          estimate each N's count once per seed with the plan crate in this process,
          print the core-hours of each and the largest over the smallest, and append
          them to the JSON file; before each seed and after the last, a reference
          count of N = 18 on every thread and the timings of a one-minute sample of
          the board (the least seed not drawn, 0 by default) taken again time the
          machine's speed, the column after each is the spread with each seed taken at
          the seeds' median speed by it (and the verdict says when the board's work
          moved by more than a tenth across the sweep: then the spread is partly the
          machine's),
          and the last how long the system took to give a new page its memory; --timings
          writes each sample's timings to DIR/nN-seedS-COMMIT.json, as `nqueens
          estimate --timings` does; the file is written after each seed, and --resume
          goes on with its last sweep where it stopped (the same flags and processor,
          a sweep begun from committed sources, and no change to the engines or xtask
          since its commit; the seed that was sampling when it stopped is sampled
          again, and the panel's same work says whether the machine's speed moved
          across the stop); --slice-minutes S takes the seeds' samples in slices of S
          minutes, a slice of each seed in turn, each going on from what its seed's
          slices timed before (kept in the JSON file between slices, so --resume goes on
          from the last slice ended), so that a drift in the machine's speed falls on
          every seed alike; the speed is then taken before each round of slices
  plan and seeds with --max-memory-gib G plan counts that hold G GiB in all, as
  `nqueens count --max-memory` does, instead of the join's default budget per thread
  eta     --log FILE
          how close the ETA of a `nqueens count --progress log` run came to its end, at
          each tenth of the run, against the ETA that tasks done would have given
  profile -- FILE...
          one table row per `nqueens estimate --check K --profile --json` output: the
          checked tasks' seconds, core-ns per solution, the time in each part, and the
          pairs tested, group tests and lookups per solution
  timings -- FILE...
          one table row per timings file (`nqueens estimate --timings`, `seeds
          --timings`): the cost per solution of all its timings and its standard
          error, the share of their squared residuals (cost less solutions at that
          cost per solution) that the first slices and the dearest timing hold, and
          that timing's weight in the cost per solution; of a seed run again, the keys
          it shares with the seed's first file: their seconds over that file's, the
          machine's own drift; then, per board of several files, how far their costs
          per solution spread against their standard errors
  tables  [--check]
          regenerate the tables in README.md and results/README.md from results/*.json;
          --check fails if they are stale instead
  help    print this text

The commands that time the binary build it first; NQUEENS_BINARY=PATH times PATH instead
(a machine without the toolchain, with a binary and xtask built elsewhere, run from a copy
of the workspace).
";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("xtask: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run(args: Vec<String>) -> Result<(), String> {
    let Some((command, rest)) = args.split_first() else {
        print!("{HELP}");
        return Ok(());
    };
    // What follows `--` goes to the program a command runs, not to the command.
    let (rest, passed) = match rest.iter().position(|arg| arg == "--") {
        Some(at) => (&rest[..at], rest[at + 1..].to_vec()),
        None => (rest, Vec::new()),
    };
    if !passed.is_empty() && !["compare", "profile", "timings"].contains(&command.as_str()) {
        return Err(format!("{command} takes no arguments after --"));
    }
    let mut flags = Flags::parse(rest)?;
    match command.as_str() {
        "help" | "--help" | "-h" => {
            flags.finish()?;
            print!("{HELP}");
            Ok(())
        }
        "bench" => {
            let bench = bench::Bench {
                ns: flags.list("--n", "8..=20")?,
                methods: flags.words("--methods", "join,eightfold,plain"),
                threads: flags.list("--threads", &num_cpus::get().to_string())?,
                runs: flags.number("--runs", 5)?.max(1),
                warmup: flags.number("--warmup", 1)?,
                longest_s: flags.number("--longest", 600)? as f64,
                long_s: flags.number("--long", 30)? as f64,
                out: flags
                    .take("--out")
                    .map_or_else(|| project_root().join("results/bench.json"), PathBuf::from),
            };
            flags.finish()?;
            bench.run()
        }
        "scaling" => {
            let scaling = scaling::Scaling {
                n: flags.number("--n", 17)?,
                methods: flags.words("--methods", "join,eightfold"),
                threads: flags.list("--threads", &format!("1..={}", num_cpus::get()))?,
                runs: flags.number("--runs", 5)?.max(1),
            };
            flags.finish()?;
            scaling.run()
        }
        "peers" => {
            let peers = peers::Peers {
                dir: flags.take("--dir").map(PathBuf::from).ok_or("peers needs --dir DIR")?,
                n: flags.number("--n", 16)?,
                runs: flags.number("--runs", 3)?.max(1),
                out: flags
                    .take("--out")
                    .map_or_else(|| project_root().join("results/peers.json"), PathBuf::from),
            };
            flags.finish()?;
            peers.run()
        }
        "compare" => {
            let compare = compare::Compare {
                base: flags.take("--base").ok_or("compare needs --base REV")?,
                runs: flags.number("--runs", 3)?.max(1),
                args: passed,
            };
            flags.finish()?;
            compare.run()
        }
        "estimate-check" => {
            let check = estimate_check::EstimateCheck {
                ns: flags.list("--n", "16..=20")?,
                methods: flags.words("--methods", "join,eightfold"),
                threads: flags.number("--threads", 2)?.max(1),
                out: flags
                    .take("--out")
                    .map_or_else(|| project_root().join("results/estimate.json"), PathBuf::from),
            };
            flags.finish()?;
            check.run()
        }
        "plan" => {
            let plan = plan::Plan {
                ns: flags.list("--n", "22..=28")?,
                threads: flags.number("--threads", 2)?.max(1),
                checks: (flags.number("--check-even", 8)?, flags.number("--check-odd", 4)?),
                seed: flags.number("--seed", 1)? as u64,
                sample_time: minutes(&mut flags, "--sample-minutes")?,
                check_timing: minutes(&mut flags, "--check-minutes")?,
                max_memory: max_memory(&mut flags)?,
                out: flags
                    .take("--out")
                    .map_or_else(|| project_root().join("results/plans.json"), PathBuf::from),
            };
            flags.finish()?;
            plan.run()
        }
        "seeds" => {
            let seeds = seeds::Seeds {
                ns: flags.list("--n", "20..=27")?,
                seeds: flags.list("--seeds", "1..=5")?.into_iter().map(|s| s as u64).collect(),
                threads: flags.number("--threads", 2)?.max(1),
                sample_time: minutes(&mut flags, "--sample-minutes")?,
                slice: minutes(&mut flags, "--slice-minutes")?,
                max_memory: max_memory(&mut flags)?,
                out: flags
                    .take("--out")
                    .map_or_else(|| project_root().join("results/seeds.json"), PathBuf::from),
                timings: flags.take("--timings").map(PathBuf::from),
                resume: flags.switch("--resume"),
            };
            flags.finish()?;
            seeds.run()
        }
        "eta" => {
            let log = flags.take("--log").ok_or("eta needs --log FILE")?;
            flags.finish()?;
            eta::run(std::path::Path::new(&log))
        }
        "profile" => {
            flags.finish()?;
            profile::run(&passed)
        }
        "timings" => {
            flags.finish()?;
            timings::run(&passed)
        }
        "tables" => {
            let check = flags.switch("--check");
            flags.finish()?;
            tables::run(check)
        }
        other => Err(format!("unknown command '{other}' (try `cargo xtask help`)")),
    }
}

/// `--sample-minutes M` (how long each board's sample may run) or `--check-minutes M`
/// (the thread time of timings for each checked task's prediction), if not the default.
fn minutes(flags: &mut Flags, flag: &str) -> Result<Option<Duration>, String> {
    flags
        .take(flag)
        .map(|minutes| match minutes.parse::<f64>() {
            Ok(m) if m > 0.0 && m <= 1440.0 => Ok(Duration::from_secs_f64(60.0 * m)),
            _ => Err(format!("{flag} {minutes}: not 0 to 1440 minutes")),
        })
        .transpose()
}

/// `--max-memory-gib G`: the memory a planned count may hold in all, in bytes.
fn max_memory(flags: &mut Flags) -> Result<Option<u64>, String> {
    flags
        .take("--max-memory-gib")
        .map(|gib| match gib.parse::<f64>() {
            Ok(g) if g > 0.0 && g <= 1e6 => Ok((g * (1u64 << 30) as f64) as u64),
            _ => Err(format!("--max-memory-gib {gib}: not a size in GiB")),
        })
        .transpose()
}

/// `--flag value` pairs and bare `--switch`es.
struct Flags(Vec<(String, Option<String>)>);

impl Flags {
    fn parse(args: &[String]) -> Result<Flags, String> {
        let mut flags = Vec::new();
        let mut args = args.iter().peekable();
        while let Some(flag) = args.next() {
            if !flag.starts_with("--") {
                return Err(format!("unexpected argument '{flag}'"));
            }
            let value = args.next_if(|v| !v.starts_with("--")).cloned();
            flags.push((flag.clone(), value));
        }
        Ok(Flags(flags))
    }

    fn take(&mut self, name: &str) -> Option<String> {
        let index = self.0.iter().position(|(flag, _)| flag == name)?;
        self.0.remove(index).1
    }

    fn switch(&mut self, name: &str) -> bool {
        let index = self.0.iter().position(|(flag, value)| flag == name && value.is_none());
        index.map(|i| self.0.remove(i)).is_some()
    }

    fn words(&mut self, name: &str, default: &str) -> Vec<String> {
        self.take(name).as_deref().unwrap_or(default).split(',').map(str::to_owned).collect()
    }

    fn number(&mut self, name: &str, default: usize) -> Result<usize, String> {
        self.take(name)
            .map_or(Ok(default), |v| v.parse().map_err(|_| format!("{name}: not a number: {v}")))
    }

    /// A list written `a,b,c`, `a..=b` or `a..b`.
    fn list(&mut self, name: &str, default: &str) -> Result<Vec<usize>, String> {
        let text = self.take(name).unwrap_or_else(|| default.to_owned());
        let bad =
            || format!("{name}: expected a list like 1,2,4 or a range like 8..=17, got '{text}'");
        let number = |s: &str| s.trim().parse::<usize>().map_err(|_| bad());
        let values: Vec<usize> = if let Some((a, b)) = text.split_once("..=") {
            (number(a)?..=number(b)?).collect()
        } else if let Some((a, b)) = text.split_once("..") {
            (number(a)?..number(b)?).collect()
        } else {
            text.split(',').map(number).collect::<Result<_, _>>()?
        };
        if values.is_empty() || values.contains(&0) {
            return Err(bad());
        }
        Ok(values)
    }

    /// Fails on flags no command asked for.
    fn finish(self) -> Result<(), String> {
        match self.0.first() {
            Some((flag, _)) => Err(format!("unknown flag {flag} (try `cargo xtask help`)")),
            None => Ok(()),
        }
    }
}
