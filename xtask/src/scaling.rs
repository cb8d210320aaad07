//! `cargo xtask scaling`: speedup and efficiency over thread counts, as JSON and an SVG chart.

use std::path::Path;

use plotters::prelude::*;
use serde::{Deserialize, Serialize};

use crate::host::{Build, Host, timestamp};
use crate::measure::{self, Stats};

pub(crate) struct Scaling {
    pub(crate) n: usize,
    pub(crate) methods: Vec<String>,
    pub(crate) threads: Vec<usize>,
    pub(crate) runs: usize,
}

/// A scaling run: one point per method and thread count.
#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct ScalingRun {
    pub(crate) schema_version: u32,
    pub(crate) n: usize,
    pub(crate) runs: usize,
    pub(crate) timestamp: u64,
    pub(crate) timestamp_utc: String,
    pub(crate) build: Build,
    pub(crate) host: Host,
    pub(crate) points: Vec<Point>,
}

#[derive(Debug, Serialize, Deserialize)]
pub(crate) struct Point {
    pub(crate) method: String,
    pub(crate) threads: usize,
    /// The kernel the counts ran; absent in files written before it was recorded.
    #[serde(skip_serializing_if = "Option::is_none", default)]
    pub(crate) kernel: Option<String>,
    pub(crate) wall_s: Vec<f64>,
    pub(crate) wall: Stats,
    /// Median wall time at the first thread count over this one's.
    pub(crate) speedup: f64,
    /// Speedup per thread, against the first thread count.
    pub(crate) efficiency: f64,
}

impl Scaling {
    pub(crate) fn run(&self) -> Result<(), String> {
        let binary = measure::build_release()?;
        let mut points = Vec::new();
        let mut build = None;
        for method in &self.methods {
            // Alternate thread counts run by run, so that drift of the machine hits all alike.
            let mut times = vec![Vec::new(); self.threads.len()];
            let mut kernel = None;
            for run in 0..self.runs {
                for (slot, &threads) in self.threads.iter().enumerate() {
                    eprintln!(
                        "xtask: N={} {method} threads={threads} run {}/{}",
                        self.n,
                        run + 1,
                        self.runs
                    );
                    let run = measure::count(&binary, self.n, method, threads, &[])?;
                    kernel = run.output["kernel"].as_str().map(str::to_owned);
                    build.get_or_insert_with(|| Build::of_binary(&run.output));
                    times[slot].push(run.wall_s);
                }
            }
            let base = Stats::of(&times[0]).median;
            for (&threads, wall_s) in self.threads.iter().zip(times) {
                let wall = Stats::of(&wall_s);
                let speedup = base / wall.median;
                let efficiency = speedup * self.threads[0] as f64 / threads as f64;
                println!(
                    "N={} {method} threads {threads:>2}: {:8.3} s  speedup {speedup:5.3}  efficiency {efficiency:5.3}",
                    self.n, wall.median
                );
                points.push(Point {
                    method: method.clone(),
                    threads,
                    kernel: kernel.clone(),
                    wall_s,
                    wall,
                    speedup,
                    efficiency,
                });
            }
        }
        let (timestamp, timestamp_utc) = timestamp();
        let run = ScalingRun {
            schema_version: crate::bench::SCHEMA_VERSION,
            n: self.n,
            runs: self.runs,
            timestamp,
            timestamp_utc,
            build: build.unwrap_or_else(Build::this),
            host: Host::this(),
            points,
        };
        let results = crate::workspace::project_root().join("results");
        crate::workspace::write_json(&results.join("scaling.json"), &run)?;
        draw(&run, &results.join("scaling.svg"))?;
        println!("wrote results/scaling.json and results/scaling.svg");
        Ok(())
    }
}

/// Speedup against threads for each method, with the ideal line.
pub(crate) fn draw(run: &ScalingRun, path: &Path) -> Result<(), String> {
    let max_threads = run.points.iter().map(|p| p.threads).max().unwrap_or(1).max(2) as f64;
    let root = SVGBackend::new(path, (640, 420)).into_drawing_area();
    let error = |e: &dyn std::fmt::Display| format!("cannot draw {}: {e}", path.display());
    root.fill(&WHITE).map_err(|e| error(&e))?;
    let mut chart = ChartBuilder::on(&root)
        .caption(format!("nqueens count {}: speedup over 1 thread", run.n), ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(50)
        .build_cartesian_2d(1f64..max_threads, 0f64..max_threads)
        .map_err(|e| error(&e))?;
    chart.configure_mesh().x_desc("threads").y_desc("speedup").draw().map_err(|e| error(&e))?;
    chart
        .draw_series(LineSeries::new(
            [(1.0, 1.0), (max_threads, max_threads)],
            BLACK.stroke_width(1),
        ))
        .map_err(|e| error(&e))?
        .label("ideal")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], BLACK));
    let palette = [BLUE, RED, GREEN, MAGENTA];
    let methods: Vec<&String> = {
        let mut seen: Vec<&String> = Vec::new();
        for point in &run.points {
            if !seen.contains(&&point.method) {
                seen.push(&point.method);
            }
        }
        seen
    };
    for (method, color) in methods.into_iter().zip(palette.iter().cycle()) {
        let series: Vec<(f64, f64)> = run
            .points
            .iter()
            .filter(|p| &p.method == method)
            .map(|p| (p.threads as f64, p.speedup))
            .collect();
        let color = *color;
        chart
            .draw_series(LineSeries::new(series.clone(), color.stroke_width(2)))
            .map_err(|e| error(&e))?
            .label(method.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], color.stroke_width(2)));
        chart
            .draw_series(series.into_iter().map(|p| Circle::new(p, 4, color.filled())))
            .map_err(|e| error(&e))?;
    }
    draw_legend(&mut chart).map_err(|e| error(&e))?;
    root.present().map_err(|e| error(&e))
}

/// The legend of every labelled series, in the upper left, as both charts place it.
pub(crate) fn draw_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate>(
    chart: &mut ChartContext<'a, DB, CT>,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    chart
        .configure_series_labels()
        .background_style(WHITE)
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
}
