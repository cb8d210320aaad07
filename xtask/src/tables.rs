//! `cargo xtask tables [--check]`: the benchmark tables in README.md and results/README.md,
//! generated from the committed JSON. With `--check`, stale tables are an error.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use plotters::prelude::*;

use crate::bench::{FrontierRun, Record, Sweep};
use crate::estimate_check::{Checks, Outcome, TABLE_HEADER};
use crate::measure::{self, Stats};
use crate::plan::Plans;
use crate::scaling::ScalingRun;

pub(crate) fn run(check: bool) -> Result<(), String> {
    let results = crate::workspace::project_root().join("results");
    let mut sweep: Sweep = crate::workspace::read_json(&results.join("bench.json"))?;
    let scaling: ScalingRun = crate::workspace::read_json(&results.join("scaling.json"))?;
    let root = crate::workspace::project_root();
    let readme = root.join("README.md");
    // The README's table is the sweep alone, one run of one commit; the frontier's longer
    // counts, from other commits, join it in results/README.md and the chart.
    ensure_section(&readme, "benchmarks", &summary(&sweep, &scaling), check)?;
    add_frontier_runs(&mut sweep, &results.join("frontier"))?;
    let checks: Checks = crate::workspace::read_json(&results.join("estimate.json"))?;
    ensure_section(&results.join("README.md"), "estimates", &estimates(&checks), check)?;
    let plans: Plans = crate::workspace::read_json(&results.join("plans.json"))?;
    ensure_section(&readme, "plans", &plan_table(&plans), check)?;
    ensure_section(&results.join("README.md"), "benchmarks", &details(&sweep, &scaling), check)?;
    ensure_chart(&results.join("growth.svg"), &sweep, check)
}

/// Adds to the sweep the counts under `dir` (each the `--json` output of a long
/// `nqueens count`) of boards, methods and thread counts it lacks, so that the tables reach
/// the frontier. Only runs on the sweep's machine (the processor model and instruction sets
/// the count's report names) and on the kernel the sweep ran the method on are added; of
/// several for the same board, method and threads, the last file by name. Where
/// `time -v`'s report of the count lies beside it (`n22.json`, `n22-time.txt`), its user
/// and system seconds and peak memory come with it.
fn add_frontier_runs(sweep: &mut Sweep, dir: &Path) -> Result<(), String> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| format!("cannot read {}: {e}", dir.display()))?
        .filter_map(Result::ok)
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "json"))
        .collect();
    files.sort();
    for path in files {
        let output: serde_json::Value = crate::workspace::read_json(&path)?;
        let number = |name: &str| output[name].as_u64().map(|v| v as usize);
        let (Some(n), Some(threads), Some(method), Some(seconds)) = (
            number("n"),
            number("threads"),
            output["method"].as_str(),
            output["elapsed_s"].as_f64(),
        ) else {
            return Err(format!("{} is not the JSON of a count", path.display()));
        };
        let kernel = output["kernel"].as_str().map(str::to_owned);
        let swept = |r: &Record| r.source.is_none() && r.method == method;
        let in_sweep = sweep.results.iter().any(|r| swept(r) && r.n == n && r.threads == threads);
        let other_kernel = sweep.results.iter().any(|r| swept(r) && r.kernel != kernel);
        let host = &output["host"];
        let same_host = host["cpu_model"].as_str() == Some(sweep.host.cpu_model.as_str())
            && host["instruction_sets"] == serde_json::json!(sweep.host.instruction_sets);
        if in_sweep || other_kernel || !same_host {
            continue;
        }
        let file = path.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let stem = path.file_stem().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
        let report = dir.join(format!("{stem}-time.txt"));
        let timed = match std::fs::read_to_string(&report) {
            Ok(text) => TimeReport::parse(&text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => TimeReport::default(),
            Err(e) => return Err(format!("cannot read {}: {e}", report.display())),
        };
        sweep.results.retain(|r| {
            !(r.source.is_some() && r.n == n && r.method == method && r.threads == threads)
        });
        sweep.results.push(Record {
            n,
            method: method.to_owned(),
            threads,
            kernel,
            depth: number("depth").unwrap_or_default(),
            wall_s: vec![seconds],
            wall: Stats::of(&[seconds]),
            user_s: timed.user_s.into_iter().collect(),
            system_s: timed.system_s.into_iter().collect(),
            total: measure::field(&output, "total")?,
            unique: measure::field(&output, "unique")?,
            nodes: None,
            nodes_per_s: None,
            matches_known: None,
            source: Some(FrontierRun {
                file: format!("results/frontier/{file}"),
                peak_kib: timed.peak_kib,
            }),
        });
    }
    Ok(())
}

/// `kib` KiB in whole MiB, rounded to the nearest.
fn mib(kib: u64) -> u64 {
    (kib + 512) / 1024
}

/// What GNU `time -v` reports of a command, of the figures the tables show.
#[derive(Debug, Default, PartialEq)]
struct TimeReport {
    user_s: Option<f64>,
    system_s: Option<f64>,
    peak_kib: Option<u64>,
}

impl TimeReport {
    fn parse(report: &str) -> TimeReport {
        let value = |label: &str| {
            report.lines().find_map(|line| line.trim().strip_prefix(label)?.trim().parse().ok())
        };
        TimeReport {
            user_s: value("User time (seconds):"),
            system_s: value("System time (seconds):"),
            peak_kib: value("Maximum resident set size (kbytes):").map(|kib: f64| kib as u64),
        }
    }
}

/// Replaces the text between the markers of section `name` in `path` with `section`; with
/// `check`, fails instead if that would change the file.
fn ensure_section(path: &Path, name: &str, section: &str, check: bool) -> Result<(), String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read {}: {e}", path.display()))?;
    let begin_marker = format!(
        "<!-- generated by `cargo xtask tables` ({name}): edit results/*.json, not this -->"
    );
    let end_marker = format!("<!-- end of generated {name} -->");
    let (Some(begin), Some(end)) = (text.find(&begin_marker), text.find(&end_marker)) else {
        return Err(format!("{} has no markers for the generated {name}", path.display()));
    };
    let updated = format!("{}{begin_marker}\n{section}{}", &text[..begin], &text[end..]);
    if updated == text {
        return Ok(());
    }
    if check {
        return Err(format!(
            "the tables in {} are stale: run `cargo xtask tables`",
            path.display()
        ));
    }
    crate::workspace::write_file(path, &updated)?;
    println!("updated {}", path.display());
    Ok(())
}

/// Draws the growth chart to `path`; with `check`, fails instead if that would change it.
fn ensure_chart(path: &Path, sweep: &Sweep, check: bool) -> Result<(), String> {
    let drawn = std::env::temp_dir().join(format!("nqueens-growth-{}.svg", std::process::id()));
    draw_growth(sweep, &drawn)?;
    let chart = std::fs::read_to_string(&drawn);
    let _ = std::fs::remove_file(&drawn);
    let chart = chart.map_err(|e| format!("cannot read the drawn chart: {e}"))?;
    if std::fs::read_to_string(path).is_ok_and(|old| old == chart) {
        return Ok(());
    }
    if check {
        return Err(format!("{} is stale: run `cargo xtask tables`", path.display()));
    }
    crate::workspace::write_file(path, &chart)?;
    println!("updated {}", path.display());
    Ok(())
}

fn provenance(sweep: &Sweep) -> String {
    format!(
        "Machine: {}. Source: {}, {}, taken {}.",
        sweep.host.describe(),
        sweep.build.describe(),
        sweep.build.rustc.lines().next().unwrap_or("rustc"),
        sweep.timestamp_utc
    )
}

/// The methods of the sweep, in its order, and the most threads any ran on: the README
/// compares them there.
fn methods_at_most_threads(sweep: &Sweep) -> (Vec<&str>, usize) {
    let threads = sweep.results.iter().map(|r| r.threads).max().unwrap_or(1);
    let at_most_threads = sweep.results.iter().filter(|r| r.threads == threads);
    (distinct(at_most_threads.map(|r| r.method.as_str())), threads)
}

/// Each of `names` once, in the order they first come.
fn distinct<'a>(names: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen = Vec::new();
    for name in names {
        if !seen.contains(&name) {
            seen.push(name);
        }
    }
    seen
}

/// The record of `method` at `n` on `threads` threads.
fn record<'s>(sweep: &'s Sweep, n: usize, method: &str, threads: usize) -> Option<&'s Record> {
    sweep.results.iter().find(|r| r.n == n && r.method == method && r.threads == threads)
}

/// How many times longer `method` took at `n` than at `n - 1`.
fn growth(sweep: &Sweep, n: usize, method: &str, threads: usize) -> Option<f64> {
    let now = record(sweep, n, method, threads)?;
    let before = record(sweep, n.checked_sub(1)?, method, threads)?;
    Some(now.wall.median / before.wall.median)
}

/// The kernels a method's records name, for a column header.
fn kernels_of(sweep: &Sweep, method: &str) -> String {
    let of_method = sweep.results.iter().filter(|r| r.method == method);
    let kernels = distinct(of_method.filter_map(|r| r.kernel.as_deref()));
    if kernels.is_empty() { String::new() } else { format!(" ({})", kernels.join(", ")) }
}

/// The README's tables: per N, the fastest method's wall time and each method's with its
/// growth from N - 1, at the sweep's most threads; then core scaling.
fn summary(sweep: &Sweep, scaling: &ScalingRun) -> String {
    let (methods, threads) = methods_at_most_threads(sweep);
    let ns: BTreeSet<usize> =
        sweep.results.iter().map(|r| r.n).chain(sweep.skipped.iter().map(|s| s.n)).collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Wall seconds on {threads} threads, median of {} runs after {} warm-up (one run where \
         longer than {} s), and in brackets how many times longer than N - 1 \
         (`cargo xtask bench`, `results/bench.json`; every run in `results/README.md`).",
        sweep.runs,
        sweep.warmup,
        sweep.long_s.map_or_else(|| "the sweep's limit".to_owned(), |s| format!("{s:.0}")),
    );
    let _ = writeln!(out, "{}\n", provenance(sweep));
    let header: Vec<String> =
        methods.iter().map(|method| format!("{method}{}", kernels_of(sweep, method))).collect();
    let _ = writeln!(out, "| N | fastest | {} |", header.join(" | "));
    let _ = writeln!(out, "| ---: | --- |{}", " ---: |".repeat(methods.len()));
    for n in ns {
        let fastest = methods
            .iter()
            .filter_map(|method| record(sweep, n, method, threads))
            .min_by(|a, b| a.wall.median.total_cmp(&b.wall.median))
            .map_or_else(String::new, |r| format!("{} {:.3}", r.method, r.wall.median));
        let cells: Vec<String> = methods
            .iter()
            .map(|method| {
                if let Some(r) = record(sweep, n, method, threads) {
                    let grown = growth(sweep, n, method, threads)
                        .map_or_else(String::new, |g| format!(" (x{g:.1})"));
                    format!("{:.3}{grown}", r.wall.median)
                } else if let Some(s) = sweep
                    .skipped
                    .iter()
                    .find(|s| s.n == n && s.method == *method && s.threads == threads)
                {
                    format!("not run (~{:.0} s)", s.predicted_s)
                } else {
                    String::new()
                }
            })
            .collect();
        let _ = writeln!(out, "| {n} | {fastest} | {} |", cells.join(" | "));
    }
    let _ = writeln!(out, "\n![wall time against N, log scale](results/growth.svg)");
    let _ = writeln!(
        out,
        "\nCore scaling at N = {} (`cargo xtask scaling`, `results/scaling.json`), medians of {} \
         alternating runs, on {}; {}:\n",
        scaling.n,
        scaling.runs,
        scaling.host.describe(),
        scaling.build.describe()
    );
    out.push_str(&scaling_table(scaling, Runs::MedianOnly));
    let _ = writeln!(out, "\n![speedup over 1 thread](results/scaling.svg)");
    out
}

/// Wall time against N on a log scale, a line per method at the sweep's most threads,
/// each point from 0.1 s on marked with its growth from N - 1.
fn draw_growth(sweep: &Sweep, path: &Path) -> Result<(), String> {
    let (methods, threads) = methods_at_most_threads(sweep);
    let at_most_threads: Vec<&Record> =
        sweep.results.iter().filter(|r| r.threads == threads).collect();
    let error = |e: &dyn std::fmt::Display| format!("cannot draw {}: {e}", path.display());
    let (Some(first), Some(last)) =
        (at_most_threads.iter().map(|r| r.n).min(), at_most_threads.iter().map(|r| r.n).max())
    else {
        return Err("results/bench.json holds no runs".to_owned());
    };
    let slowest = at_most_threads.iter().map(|r| r.wall.median).fold(1.0, f64::max);
    let fastest = at_most_threads.iter().map(|r| r.wall.median).fold(slowest, f64::min);
    let root = SVGBackend::new(path, (720, 460)).into_drawing_area();
    root.fill(&WHITE).map_err(|e| error(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("nqueens count N on {threads} threads: wall time"), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (first as f64 - 0.5)..(last as f64 + 0.8),
            (fastest / 2.0..slowest * 3.0).log_scale(),
        )
        .map_err(|e| error(&e))?;
    chart
        .configure_mesh()
        .x_desc("N")
        .y_desc("wall seconds (log scale)")
        .x_labels(last - first + 1)
        .x_label_formatter(&|n| format!("{n:.0}"))
        .draw()
        .map_err(|e| error(&e))?;
    let palette = [BLUE, RED, GREEN, MAGENTA, CYAN];
    for (method, color) in methods.iter().zip(palette.iter().cycle()) {
        let mut series: Vec<(usize, f64)> = at_most_threads
            .iter()
            .filter(|r| r.method == *method)
            .map(|r| (r.n, r.wall.median))
            .collect();
        series.sort_by_key(|&(n, _)| n);
        let points: Vec<(f64, f64)> = series.iter().map(|&(n, s)| (n as f64, s)).collect();
        let color = *color;
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))
            .map_err(|e| error(&e))?
            .label(*method)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))
            .map_err(|e| error(&e))?;
        let labels = series
            .iter()
            .filter(|&&(_, seconds)| seconds >= GROWTH_LABEL_FROM_S)
            .filter_map(|&(n, seconds)| {
                let grown = growth(sweep, n, method, threads)?;
                Some(Text::new(
                    format!("x{grown:.1}"),
                    (n as f64 + 0.1, seconds),
                    ("sans-serif", 12).into_font().color(&color),
                ))
            });
        chart.draw_series(labels).map_err(|e| error(&e))?;
    }
    crate::scaling::draw_legend(&mut chart).map_err(|e| error(&e))?;
    root.present().map_err(|e| error(&e))
}

/// The shortest time whose growth the chart writes beside it: below, start-up dominates.
const GROWTH_LABEL_FROM_S: f64 = 0.1;

/// results/README.md's estimate table: the latest check of each N and method, with the
/// machine and commit of each check it draws on.
fn estimates(checks: &Checks) -> String {
    let mut latest: Vec<(&Outcome, usize)> = Vec::new();
    for (index, check) in checks.checks.iter().enumerate() {
        for outcome in &check.results {
            let same =
                |(o, _): &&mut (&Outcome, usize)| o.n == outcome.n && o.method == outcome.method;
            match latest.iter_mut().find(same) {
                Some(slot) => *slot = (outcome, index),
                None => latest.push((outcome, index)),
            }
        }
    }
    let methods = distinct(latest.iter().map(|&(outcome, _)| outcome.method.as_str()));
    let rank = |method: &str| methods.iter().position(|m| *m == method);
    latest.sort_by_key(|(outcome, _)| (rank(&outcome.method), outcome.n));
    let mut out = String::new();
    let mut drawn_on: Vec<usize> = latest.iter().map(|&(_, index)| index).collect();
    drawn_on.sort_unstable();
    drawn_on.dedup();
    for index in drawn_on {
        let check = &checks.checks[index];
        let _ = writeln!(
            out,
            "Check of {} (`cargo xtask estimate-check`, `results/estimate.json`): {}, {}.",
            check.timestamp_utc,
            check.build.describe(),
            check.host.describe()
        );
    }
    let _ = write!(out, "\n{TABLE_HEADER}");
    for (outcome, _) in latest {
        let _ = writeln!(out, "{}", outcome.row());
    }
    out
}

/// The README's plans table: the latest sweep of `cargo xtask-release plan`, with its machine.
fn plan_table(plans: &Plans) -> String {
    let Some(sweep) = plans.plans.last() else { return String::new() };
    let memory = sweep.max_memory_bytes.map_or_else(String::new, |bytes| {
        format!(" (counts holding at most {:.0} GiB)", bytes as f64 / (1u64 << 30) as f64)
    });
    let mut out = format!(
        "Predicted by `cargo xtask-release plan` (`results/plans.json`) on {}, {} threads{memory}, \
         {}, {}.\n\n{}",
        sweep.timestamp_utc,
        sweep.threads,
        sweep.build.describe(),
        sweep.host.describe(),
        crate::plan::TABLE_HEADER
    );
    for estimate in &sweep.results {
        let _ = writeln!(out, "{}", crate::plan::row(estimate));
    }
    out
}

/// results/README.md: every record with its spread and CPU time, grouped by method.
fn details(sweep: &Sweep, scaling: &ScalingRun) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}", provenance(sweep));
    for method in distinct(sweep.results.iter().map(|r| r.method.as_str())) {
        let _ = writeln!(out, "\n### {method}\n");
        let _ = writeln!(
            out,
            "| N | threads | kernel | depth | runs | min s | median s | max s | stddev s | user s | system s | nodes | Mnodes/s | total | unique |"
        );
        let _ = writeln!(
            out,
            "| ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
        );
        for r in sweep.results.iter().filter(|r| r.method == method) {
            // Runs added from results/frontier/ have no CPU times.
            let median = |values: &[f64]| {
                if values.is_empty() {
                    String::new()
                } else {
                    format!("{:.3}", Stats::of(values).median)
                }
            };
            let (user, system) = (median(&r.user_s), median(&r.system_s));
            let nodes = r.nodes.map_or_else(String::new, |nodes| nodes.to_string());
            let rate = r.nodes_per_s.map_or_else(String::new, |rate| format!("{:.0}", rate / 1e6));
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {user} | {system} | {nodes} | {rate} | {} | {} |",
                r.n,
                r.threads,
                r.kernel.as_deref().unwrap_or(""),
                r.depth,
                r.wall_s.len(),
                r.wall.min,
                r.wall.median,
                r.wall.max,
                r.wall.stddev,
                r.total,
                r.unique
            );
        }
        for r in sweep.results.iter().filter(|r| r.method == method) {
            if let Some(run) = &r.source {
                let peak = run
                    .peak_kib
                    .map_or_else(String::new, |kib| format!(", peak memory {} MiB", mib(kib)));
                let _ = writeln!(
                    out,
                    "\nN = {} on {} threads: one long count, not part of the sweep, from `{}`{peak}.",
                    r.n, r.threads, run.file
                );
            }
        }
        for s in sweep.skipped.iter().filter(|s| s.method == method) {
            let _ = writeln!(
                out,
                "\nN = {} on {} threads: not run, predicted {:.0} s.",
                s.n, s.threads, s.predicted_s
            );
        }
    }
    let _ = writeln!(out, "\nScaling at N = {} ({}):\n", scaling.n, scaling.host.describe());
    out.push_str(&scaling_table(scaling, Runs::Each));
    let _ = writeln!(out, "\n![speedup over 1 thread](scaling.svg)");
    out
}

/// Whether a scaling table lists each run's wall time or only their median.
#[derive(Clone, Copy, PartialEq)]
enum Runs {
    /// The README's summary: the median alone.
    MedianOnly,
    /// results/README.md: every run, then the median.
    Each,
}

/// The scaling table, a row per method and thread count.
fn scaling_table(scaling: &ScalingRun, runs: Runs) -> String {
    let (runs_header, runs_rule, median) = match runs {
        Runs::MedianOnly => ("", "", "wall s"),
        Runs::Each => (" runs (wall s) |", " --- |", "median s"),
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| method | kernel | threads |{runs_header} {median} | speedup | efficiency |"
    );
    let _ = writeln!(out, "| --- | --- | ---: |{runs_rule} ---: | ---: | ---: |");
    for p in &scaling.points {
        let each_run = if runs == Runs::Each {
            let walls: Vec<String> = p.wall_s.iter().map(|t| format!("{t:.3}")).collect();
            format!(" {} |", walls.join(", "))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} |{each_run} {:.3} | {:.3} | {:.3} |",
            p.method,
            p.kernel.as_deref().unwrap_or(""),
            p.threads,
            p.wall.median,
            p.speedup,
            p.efficiency
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn generated_tables_are_fresh() {
        run(true).unwrap();
    }

    /// A sweep of two methods on 2 threads: eightfold is fastest at N = 10, join at 11,
    /// and eightfold's N = 12 was skipped.
    fn fixture() -> (Sweep, ScalingRun) {
        let record = |n: usize, method: &str, seconds: f64| {
            serde_json::json!({
                "n": n, "method": method, "threads": 2, "kernel": "avx2", "depth": 3,
                "wall_s": [seconds], "wall": Stats::of(&[seconds]), "user_s": [seconds],
                "system_s": [0.0], "total": 724, "unique": 92,
            })
        };
        let build = serde_json::json!({
            "git_commit": "0123456789abcdef", "git_dirty": false, "rustc": "rustc 1.95.0",
            "profile": "release", "rustflags": "",
        });
        let host = serde_json::json!({
            "os": "Debian", "kernel": "Linux", "cpu_model": "Test CPU", "logical_cpus": 2,
            "physical_cores": 2, "memory_bytes": 1u64 << 30, "instruction_sets": ["avx2", "bmi2"],
        });
        let sweep = serde_json::json!({
            "schema_version": 1, "engine_version": "0.3.0", "timestamp": 0,
            "timestamp_utc": "2026-11-23T00:00:00Z", "build": build, "host": host, "runs": 1,
            "warmup": 0, "long_s": 30.0, "longest_s": 600.0,
            "results": [
                record(10, "join", 0.5), record(10, "eightfold", 0.25),
                record(11, "join", 2.0), record(11, "eightfold", 3.0),
                record(12, "join", 12.0),
            ],
            "skipped": [{ "n": 12, "method": "eightfold", "threads": 2, "predicted_s": 900.0 }],
        });
        let scaling = serde_json::json!({
            "schema_version": 1, "n": 11, "runs": 1, "timestamp": 0,
            "timestamp_utc": "2026-11-23T00:00:00Z", "build": build, "host": host, "points": [],
        });
        (serde_json::from_value(sweep).unwrap(), serde_json::from_value(scaling).unwrap())
    }

    #[test]
    fn the_summary_has_the_fastest_method_and_each_growth_per_n() {
        let (sweep, scaling) = fixture();
        let summary = summary(&sweep, &scaling);
        assert!(summary.contains("| N | fastest | join (avx2) | eightfold (avx2) |"), "{summary}");
        assert!(summary.contains("| 10 | eightfold 0.250 | 0.500 | 0.250 |"), "{summary}");
        assert!(
            summary.contains("| 11 | join 2.000 | 2.000 (x4.0) | 3.000 (x12.0) |"),
            "{summary}"
        );
        assert!(summary.contains("| 12 | join 12.000 | 12.000 (x6.0) | not run (~900 s) |"));
        assert!(summary.contains("Test CPU with avx2, bmi2"), "{summary}");
    }

    #[test]
    fn both_scaling_tables_have_a_row_per_point_and_only_the_details_every_run() {
        let (_, mut scaling) = fixture();
        let point = serde_json::json!({
            "method": "join", "threads": 2, "kernel": "avx2", "wall_s": [1.5, 1.0, 1.2],
            "wall": Stats::of(&[1.5, 1.0, 1.2]), "speedup": 1.9, "efficiency": 0.95,
        });
        scaling.points.push(serde_json::from_value(point).unwrap());
        assert_eq!(
            scaling_table(&scaling, Runs::MedianOnly),
            "| method | kernel | threads | wall s | speedup | efficiency |\n\
             | --- | --- | ---: | ---: | ---: | ---: |\n\
             | join | avx2 | 2 | 1.200 | 1.900 | 0.950 |\n"
        );
        assert_eq!(
            scaling_table(&scaling, Runs::Each),
            "| method | kernel | threads | runs (wall s) | median s | speedup | efficiency |\n\
             | --- | --- | ---: | --- | ---: | ---: | ---: |\n\
             | join | avx2 | 2 | 1.500, 1.000, 1.200 | 1.200 | 1.900 | 0.950 |\n"
        );
    }

    #[test]
    fn frontier_runs_fill_the_cells_the_sweep_lacks() {
        let (mut sweep, scaling) = fixture();
        let dir = std::env::temp_dir().join(format!("frontier-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let on = |cpu_model: &str, n: usize, kernel: &str, seconds: f64| {
            let host = serde_json::json!({
                "cpu_model": cpu_model, "logical_cpus": 2, "instruction_sets": ["avx2", "bmi2"],
            });
            serde_json::json!({
                "n": n, "method": "join", "depth": 5, "tasks": 10, "kernel": kernel,
                "threads": 2, "total": 724, "unique": 92, "elapsed_s": seconds, "host": host,
            })
            .to_string()
        };
        let count = |n, kernel, seconds| on("Test CPU", n, kernel, seconds);
        std::fs::write(dir.join("n12.json"), count(12, "avx2", 99.0)).unwrap();
        std::fs::write(dir.join("n13.json"), count(13, "avx2", 60.0)).unwrap();
        let time_report = "\tCommand being timed: \"nqueens count 13\"\n\tUser time (seconds): \
                           119.52\n\tSystem time (seconds): 0.40\n\tMaximum resident set size \
                           (kbytes): 51200\n";
        std::fs::write(dir.join("n13-time.txt"), time_report).unwrap();
        std::fs::write(dir.join("n13-scalar.json"), count(13, "scalar", 300.0)).unwrap();
        std::fs::write(dir.join("n14.json"), on("Other CPU", 14, "avx2", 400.0)).unwrap();
        add_frontier_runs(&mut sweep, &dir).unwrap();
        let _ = std::fs::remove_dir_all(&dir);
        let details = details(&sweep, &scaling);
        assert!(details.contains("| 12 | 2 | avx2 |"), "the sweep's own run: {details}");
        assert!(
            details.contains(
                "N = 13 on 2 threads: one long count, not part of the sweep, from \
                 `results/frontier/n13.json`, peak memory 50 MiB."
            ),
            "{details}"
        );
        assert!(details.contains("| 119.520 |"), "user time from time -v: {details}");
        assert!(!details.contains("| 14 |"), "a run on another machine: {details}");
    }

    #[test]
    fn the_details_are_grouped_by_method() {
        let (sweep, scaling) = fixture();
        let details = details(&sweep, &scaling);
        let join = details.find("### join").unwrap();
        let eightfold = details.find("### eightfold").unwrap();
        let rows = |section: &str| section.lines().filter(|l| l.starts_with("| 1")).count();
        assert_eq!((rows(&details[join..eightfold]), rows(&details[eightfold..])), (3, 2));
        assert!(details[eightfold..].contains("N = 12 on 2 threads: not run, predicted 900 s."));
    }

    #[test]
    fn the_estimate_table_holds_the_latest_check_of_each_n_and_method() {
        let outcome = |n: usize, method: &str, predicted: f64| {
            serde_json::json!({
                "n": n, "method": method, "kernel": "avx2", "threads": 2,
                "predicted_wall_s": predicted, "predicted_wall_s_low": predicted * 0.8,
                "predicted_wall_s_high": predicted * 1.2, "estimate_wall_s": 0.5,
                "sample_share": 0.02, "sampled_tasks": 10, "actual_wall_s": 10.0,
                "ratio": predicted / 10.0, "within_interval": true,
            })
        };
        let (sweep, _) = fixture();
        let check = |commit: &str, results: Vec<serde_json::Value>| {
            let mut build = serde_json::to_value(&sweep.build).unwrap();
            build["git_commit"] = commit.into();
            serde_json::json!({
                "timestamp_utc": "2026-11-23T00:00:00Z", "build": build,
                "host": serde_json::to_value(&sweep.host).unwrap(), "results": results,
            })
        };
        let checks = serde_json::json!({ "checks": [
            check("aaaaaaaaaaaa", vec![outcome(19, "join", 9.0), outcome(18, "eightfold", 11.0)]),
            check("bbbbbbbbbbbb", vec![outcome(19, "join", 12.0), outcome(18, "join", 10.0)]),
        ]});
        let table = estimates(&serde_json::from_value(checks).unwrap());
        let rows: Vec<&str> = table.lines().filter(|l| l.starts_with("| 1")).collect();
        assert_eq!(rows.len(), 3, "{table}");
        assert!(rows[0].starts_with("| 18 | join | avx2 | 10.00 | 8.00 to 12.00 | 10.00 | 1.00 |"));
        assert!(rows[1].starts_with("| 19 | join | avx2 | 12.00 |"), "the later check wins");
        assert!(rows[2].starts_with("| 18 | eightfold |"));
        assert!(table.contains("commit aaaaaaaaaa") && table.contains("commit bbbbbbbbbb"));
    }

    #[test]
    fn the_growth_chart_draws_every_method() {
        let (sweep, _) = fixture();
        let path = std::env::temp_dir().join(format!("growth-test-{}.svg", std::process::id()));
        draw_growth(&sweep, &path).unwrap();
        let chart = std::fs::read_to_string(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        assert!(chart.contains("join") && chart.contains("eightfold"));
        assert!(chart.contains("x6.0") && chart.contains("x12.0"), "growth labels");
    }
}
