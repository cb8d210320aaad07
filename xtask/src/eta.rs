//! `cargo xtask eta LOG`: how close a count's ETA came to its real end, read from the
//! lines of `nqueens count --progress log`, against the ETA that tasks done would give.

use std::path::Path;

/// One progress line: tasks done and in all, and seconds elapsed and to go.
struct Line {
    done: f64,
    total: f64,
    elapsed: f64,
    eta: Option<f64>,
}

fn parse(line: &str) -> Option<Line> {
    let rest = line.strip_prefix("nqueens: ")?;
    let (done, rest) = rest.split_once('/')?;
    let (total, rest) = rest.split_once(" tasks")?;
    let elapsed = rest.split_once("elapsed ")?.1.split_once('s')?.0;
    let eta = rest.split_once("ETA ")?.1.split_once(',')?.0;
    Some(Line {
        done: done.parse().ok()?,
        total: total.parse().ok()?,
        elapsed: elapsed.parse().ok()?,
        eta: eta.strip_suffix('s').and_then(|s| s.parse().ok()),
    })
}

pub(crate) fn run(log: &Path) -> Result<(), String> {
    let text =
        std::fs::read_to_string(log).map_err(|e| format!("cannot read {}: {e}", log.display()))?;
    let lines: Vec<Line> = text.lines().filter_map(parse).collect();
    let end = lines
        .iter()
        .rfind(|line| line.done == line.total)
        .map(|line| line.elapsed)
        .ok_or("the log has no line of a finished run")?;
    println!("| at | tasks done | end by the log's ETA | error | end by tasks done | error |");
    println!("| ---: | ---: | ---: | ---: | ---: | ---: |");
    let (mut model_error, mut tasks_error, mut rows) = (0.0, 0.0, 0);
    for tenth in 1..=9 {
        let at = end * f64::from(tenth) / 10.0;
        let Some(line) = lines.iter().find(|line| line.elapsed >= at && line.done > 0.0) else {
            continue;
        };
        let Some(eta) = line.eta else { continue };
        let by_model = line.elapsed + eta;
        let by_tasks = line.elapsed * line.total / line.done;
        let error = |predicted: f64| 100.0 * (predicted - end) / end;
        println!(
            "| {:.0}s | {:.1}% | {by_model:.0}s | {:+.0}% | {by_tasks:.0}s | {:+.0}% |",
            line.elapsed,
            100.0 * line.done / line.total,
            error(by_model),
            error(by_tasks),
        );
        model_error += error(by_model).abs();
        tasks_error += error(by_tasks).abs();
        rows += 1;
    }
    if rows > 0 {
        println!(
            "mean absolute error: the log's ETA {:.0}%, tasks done {:.0}% (the run ended at {end:.0}s)",
            model_error / f64::from(rows),
            tasks_error / f64::from(rows)
        );
    }
    Ok(())
}
