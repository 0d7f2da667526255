//! The terminal table of a [`BenchReport`].

use std::fmt::Write as _;

use crate::{BenchReport, Question, Row};

pub(crate) fn duration(us: f64) -> String {
    if us < 1_000.0 {
        format!("{us:.1} µs")
    } else if us < 1_000_000.0 {
        format!("{:.1} ms", us / 1_000.0)
    } else {
        format!("{:.2} s", us / 1_000_000.0)
    }
}

fn bytes(b: f64) -> String {
    if b < 1024.0 {
        format!("{b:.0} B")
    } else if b < 1024.0 * 1024.0 {
        format!("{:.1} KiB", b / 1024.0)
    } else {
        format!("{:.1} MiB", b / (1024.0 * 1024.0))
    }
}

fn fraction(value: Option<f64>) -> String {
    value.map_or_else(|| "—".to_owned(), |v| format!("{v:.3}"))
}

fn cells(row: &Row, with_scores: bool) -> Vec<String> {
    let reads = row.bytes_per_query > 0.0 || row.lines_per_query > 0.0;
    let mut cells = vec![
        row.label.to_owned(),
        duration(row.median_us),
        duration(row.p99_us),
        row.times_mcursor
            .map_or_else(|| "—".to_owned(), |r| format!("{r:.1}×")),
        if reads {
            format!("{:.1}", row.lines_per_query)
        } else {
            "—".to_owned()
        },
        if reads {
            bytes(row.bytes_per_query)
        } else {
            "—".to_owned()
        },
    ];
    if with_scores {
        cells.push(fraction(row.score.precision));
        cells.push(fraction(row.score.recall));
    }
    cells
}

fn table(out: &mut String, header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (i, cell) in row.iter().enumerate() {
            widths[i] = widths[i].max(cell.chars().count());
        }
    }
    let line = |out: &mut String, cells: &[String]| {
        for (i, cell) in cells.iter().enumerate() {
            let pad = widths[i] - cell.chars().count();
            if i == 0 {
                let _ = write!(out, "  {cell}{}", " ".repeat(pad));
            } else {
                let _ = write!(out, "  {}{cell}", " ".repeat(pad));
            }
        }
        out.push('\n');
    };
    line(
        out,
        &header.iter().map(|h| h.to_string()).collect::<Vec<_>>(),
    );
    for row in rows {
        line(out, row);
    }
}

/// A plain-text report: one table per question, then per-class medians and notes.
pub fn render_table(report: &BenchReport) -> String {
    let mut out = String::new();
    let corpus = &report.corpus;
    let count = |class| report.names.iter().filter(|n| n.class == class).count();
    let _ = writeln!(
        out,
        "mcursor bench: {} ({} files, {:.1} MB indexed, {} symbols, {} references; {} CPUs)",
        corpus.root.display(),
        corpus.files,
        corpus.source_bytes as f64 / 1e6,
        corpus.symbols,
        corpus.references,
        report.cpus,
    );
    let _ = writeln!(
        out,
        "{} names ({} rare, {} medium, {} common; seed {}{}), {} rounds, tools alternated",
        report.queries,
        count(mcursor_synth::NameClass::Rare),
        count(mcursor_synth::NameClass::Medium),
        count(mcursor_synth::NameClass::Common),
        report.seed,
        if report.truth.is_some() {
            ", from the ground truth"
        } else {
            ""
        },
        report.runs,
    );
    for q in &report.questions {
        let title = match q.question {
            Question::Definitions => "Where is NAME defined?",
            Question::References => "Where is NAME used?",
        };
        let scored = q.rows.iter().any(|r| !r.scored_against.is_empty());
        let against = q
            .rows
            .iter()
            .find(|r| !r.scored_against.is_empty())
            .map_or("", |r| r.scored_against);
        let _ = writeln!(out, "\n{title}");
        let mut header = vec![
            "tool",
            "median",
            "p99",
            "× mcursor",
            "lines/name",
            "bytes/name",
        ];
        if scored {
            header.push(if against == "index" {
                "precision¹"
            } else {
                "precision"
            });
            header.push(if against == "index" {
                "recall¹"
            } else {
                "recall"
            });
        }
        let rows: Vec<Vec<String>> = q.rows.iter().map(|r| cells(r, scored)).collect();
        table(&mut out, &header, &rows);
        if against == "index" {
            let _ = writeln!(
                out,
                "  ¹ grep's hits scored against the index's definitions (no ground truth given)"
            );
        }
    }
    let _ = writeln!(out, "\nMedian time by name class (rare / medium / common):");
    let mut rows = Vec::new();
    for q in &report.questions {
        for row in &q.rows {
            if row.tool.is_grep() && q.question == Question::References {
                continue;
            }
            let mut cells = vec![row.label.to_owned()];
            for class in ["rare", "medium", "common"] {
                cells.push(
                    row.by_class
                        .get(class)
                        .map_or_else(|| "—".to_owned(), |c| duration(c.median_us)),
                );
            }
            rows.push(cells);
        }
    }
    table(&mut out, &["tool", "rare", "medium", "common"], &rows);
    let _ = writeln!(
        out,
        "\nLines to read per name, by name class (rare / medium / common):"
    );
    let mut rows = Vec::new();
    for q in &report.questions {
        for row in &q.rows {
            let reads = row.lines_per_query > 0.0 || row.bytes_per_query > 0.0;
            if !reads || (row.tool.is_grep() && q.question == Question::References) {
                continue;
            }
            let mut cells = vec![row.label.to_owned()];
            for class in ["rare", "medium", "common"] {
                cells.push(row.by_class.get(class).map_or_else(
                    || "—".to_owned(),
                    |c| format!("{:.1} ({})", c.lines_per_query, bytes(c.bytes_per_query)),
                ));
            }
            rows.push(cells);
        }
    }
    table(&mut out, &["tool", "rare", "medium", "common"], &rows);
    if report.truth.is_some() {
        let _ = writeln!(
            out,
            "\nPrecision / recall by name class (rare | medium | common):"
        );
        let mut rows = Vec::new();
        for q in &report.questions {
            for row in q.rows.iter().filter(|r| !r.scored_against.is_empty()) {
                let mut cells = vec![format!("{} ({})", row.label, q.question.as_str())];
                for class in ["rare", "medium", "common"] {
                    cells.push(row.by_class.get(class).map_or_else(
                        || "—".to_owned(),
                        |c| {
                            format!(
                                "{} / {}",
                                fraction(c.score.precision),
                                fraction(c.score.recall)
                            )
                        },
                    ));
                }
                rows.push(cells);
            }
        }
        table(
            &mut out,
            &["tool (question)", "rare", "medium", "common"],
            &rows,
        );
    }
    for skipped in &report.skipped {
        let _ = writeln!(out, "\nskipped: {skipped}");
    }
    for note in &report.notes {
        let _ = writeln!(out, "\nnote: {note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_pick_a_readable_unit() {
        assert_eq!(duration(4.25), "4.2 µs");
        assert_eq!(duration(2_500.0), "2.5 ms");
        assert_eq!(duration(1_250_000.0), "1.25 s");
        assert_eq!(bytes(512.0), "512 B");
        assert_eq!(bytes(4096.0), "4.0 KiB");
    }
}
