//! The SVG picture of a [`BenchReport`]: for each question, median time per name class
//! and tool, on a log scale (microseconds in-process to seconds for `grep -r`).

use std::path::Path;

use plotters::prelude::*;

use crate::{BenchError, BenchReport, Result};

const CLASSES: [&str; 3] = ["rare", "medium", "common"];

fn plot_error(e: impl std::fmt::Display) -> BenchError {
    BenchError::Plot(e.to_string())
}

/// Draws the report into an SVG document.
pub fn svg(report: &BenchReport) -> Result<String> {
    let mut document = String::new();
    {
        let root = SVGBackend::with_string(&mut document, (1280, 560)).into_drawing_area();
        root.fill(&WHITE).map_err(plot_error)?;
        let title = format!(
            "mcursor bench: {} ({} files, {:.1} MB): median time per lookup, log scale",
            report.corpus.root.file_name().map_or_else(
                || report.corpus.root.display().to_string(),
                |n| { n.to_string_lossy().into_owned() }
            ),
            report.corpus.files,
            report.corpus.source_bytes as f64 / 1e6
        );
        let root = root
            .titled(&title, ("sans-serif", 20))
            .map_err(plot_error)?;
        let medians: Vec<f64> = report
            .questions
            .iter()
            .flat_map(|q| q.rows.iter())
            .flat_map(|r| r.by_class.values().map(|c| c.median_us / 1_000.0))
            .filter(|v| *v > 0.0)
            .collect();
        let lowest = medians.iter().copied().fold(f64::INFINITY, f64::min);
        let highest = medians.iter().copied().fold(0.0, f64::max);
        let (low, high) = if medians.is_empty() {
            (0.001, 1.0)
        } else {
            (lowest / 3.0, highest * 40.0)
        };
        let panels = root.split_evenly((1, report.questions.len().max(1)));
        for (panel, question) in panels.iter().zip(&report.questions) {
            let caption = match question.question {
                crate::Question::Definitions => "Where is NAME defined?",
                crate::Question::References => "Where is NAME used?",
            };
            let mut chart = ChartBuilder::on(panel)
                .caption(caption, ("sans-serif", 16))
                .margin(12)
                .x_label_area_size(30)
                .y_label_area_size(70)
                .build_cartesian_2d(0f64..3f64, (low..high).log_scale())
                .map_err(plot_error)?;
            chart
                .configure_mesh()
                .disable_x_mesh()
                .x_labels(7)
                .x_label_formatter(&|x| {
                    let slot = x - x.floor();
                    if (slot - 0.5).abs() < 1e-6 {
                        CLASSES
                            .get(*x as usize)
                            .map_or(String::new(), |c| format!("{c} names"))
                    } else {
                        String::new()
                    }
                })
                .y_desc("median (ms)")
                .y_label_formatter(&|ms| {
                    if *ms >= 1.0 {
                        format!("{ms:.0}")
                    } else {
                        format!("{ms:.3}")
                    }
                })
                .draw()
                .map_err(plot_error)?;
            let tools = question.rows.len().max(1) as f64;
            let width = 0.84 / tools;
            for (t, row) in question.rows.iter().enumerate() {
                let color = Palette99::pick(t).to_rgba();
                let bars: Vec<Rectangle<(f64, f64)>> = CLASSES
                    .iter()
                    .enumerate()
                    .filter_map(|(c, class)| {
                        let median = row.by_class.get(class)?.median_us / 1_000.0;
                        let left = c as f64 + 0.08 + t as f64 * width;
                        Some(Rectangle::new(
                            [(left, low), (left + width * 0.9, median.max(low))],
                            color.filled(),
                        ))
                    })
                    .collect();
                chart
                    .draw_series(bars)
                    .map_err(plot_error)?
                    .label(row.label)
                    .legend(move |(x, y)| {
                        Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled())
                    });
            }
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()
                .map_err(plot_error)?;
        }
        root.present().map_err(plot_error)?;
    }
    Ok(document)
}

/// Writes the plot to `path` (through `PATH.partial` beside it, renamed into place, so a
/// failed run leaves any earlier plot whole; the file gets the usual permissions).
pub fn plot_svg(report: &BenchReport, path: &Path) -> Result<()> {
    let document = svg(report)?;
    let mut partial = path.as_os_str().to_owned();
    partial.push(".partial");
    let partial = std::path::PathBuf::from(partial);
    let written = std::fs::write(&partial, document).and_then(|()| std::fs::rename(&partial, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&partial);
    }
    written.map_err(|source| BenchError::Io {
        path: path.to_path_buf(),
        source,
    })
}
