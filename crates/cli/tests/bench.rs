//! `mcursor bench` end to end: on a fixture (the CI smoke test), on a synthetic corpus
//! with ground truth, without any grep tool installed, and with bad inputs. No timing is
//! asserted, only what the report says about answers.

mod common;

use std::path::Path;

use common::{fixture, index, mcursor, mcursor_command, stderr, stdout};
use mcursor_synth::{SynthConfig, SynthLang, generate};
use serde_json::Value;

fn bench_json(dir: &Path, extra: &[&str]) -> Value {
    let mut args = vec!["--json", "bench", "--queries", "6", "--runs", "1"];
    args.extend_from_slice(extra);
    let output = mcursor(dir, &args);
    assert!(
        output.status.success(),
        "bench failed: {}\n{}",
        stdout(&output),
        stderr(&output)
    );
    serde_json::from_slice(&output.stdout).expect("bench --json prints one JSON document")
}

fn row<'a>(report: &'a Value, question: &str, tool: &str) -> Option<&'a Value> {
    report["questions"]
        .as_array()?
        .iter()
        .find(|q| q["question"] == question)?["rows"]
        .as_array()?
        .iter()
        .find(|r| r["tool"] == tool)
}

fn have(program: &str) -> bool {
    std::process::Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn bench_on_a_fixture_reports_every_tool_and_draws_a_plot() {
    let repo = fixture("rust-basic");
    index(repo.path());
    let plot = repo.path().join("out/bench.svg");
    std::fs::create_dir_all(plot.parent().expect("parent")).expect("mkdir");
    let report = bench_json(repo.path(), &["--plot", plot.to_str().expect("utf-8 path")]);

    let names = report["names"].as_array().expect("names");
    assert!(!names.is_empty());
    for name in names {
        // Names are sampled from definitions, so each has at least one.
        assert!(name["definitions"].as_u64() >= Some(1), "{name}");
    }
    for question in ["definitions", "references"] {
        for tool in ["mcursor_in_process", "mcursor"] {
            let row = row(&report, question, tool).expect("mcursor rows");
            assert_eq!(row["samples"].as_u64().map(|s| s > 0), Some(true));
        }
    }
    let process = row(&report, "definitions", "mcursor").expect("process row");
    assert!(process["lines_per_query"].as_f64() >= Some(1.0));
    if have("grep") {
        let grep = row(&report, "definitions", "grep").expect("grep row");
        // Every definition line contains the name, so grep finds them all, among others.
        let precision = grep["precision"]
            .as_f64()
            .expect("scored against the index");
        assert!(precision > 0.0 && precision <= 1.0, "{precision}");
        assert_eq!(grep["scored_against"], "index");
        assert!(grep["times_mcursor"].as_f64().is_some());
    }

    let svg = std::fs::read_to_string(&plot).expect("plot written");
    assert!(svg.starts_with("<svg"), "{}", &svg[..svg.len().min(80)]);
    assert!(svg.contains("Where is NAME defined?") && svg.contains("mcursor find"));

    // More names asked for than the fixture has: every eligible name, once.
    let table = stdout(&mcursor(
        repo.path(),
        &["bench", "--queries", "400", "--runs", "1"],
    ));
    assert!(table.contains("Where is NAME used?"), "{table}");
    assert!(table.contains("mcursor refs (in-process)"), "{table}");
}

#[test]
fn bench_against_ground_truth_scores_both_questions() {
    let dir = tempfile::tempdir().expect("tempdir");
    let corpus = dir.path().join("corpus");
    let config = SynthConfig {
        lang: SynthLang::Rust,
        files: 60,
        seed: 11,
    };
    let truth = generate(&config, &corpus).expect("generate");
    let truth_path = dir.path().join("corpus.truth.json");
    truth.save(&truth_path).expect("save truth");
    index(&corpus);
    let report = bench_json(&corpus, &["--truth", truth_path.to_str().expect("utf-8")]);

    let find = row(&report, "definitions", "mcursor_in_process").expect("find row");
    assert_eq!(find["scored_against"], "truth");
    assert_eq!(find["precision"].as_f64(), Some(1.0), "{find}");
    assert_eq!(find["recall"].as_f64(), Some(1.0), "{find}");
    let refs = row(&report, "references", "mcursor_in_process").expect("refs row");
    let refs_precision = refs["precision"].as_f64().expect("scored");
    assert!(refs["recall"].as_f64().expect("scored") > 0.5, "{refs}");
    if have("grep") {
        // Comments, strings and shadowing locals cost grep precision; it never misses.
        let grep = row(&report, "definitions", "grep").expect("grep row");
        assert!(grep["precision"].as_f64() < Some(0.5), "{grep}");
        assert_eq!(grep["recall"].as_f64(), Some(1.0), "{grep}");
        let grep_refs = row(&report, "references", "grep").expect("grep refs row");
        assert!(
            grep_refs["precision"].as_f64() < Some(refs_precision),
            "{grep_refs} vs {refs}"
        );
    }
}

#[test]
fn missing_grep_tools_are_skipped_with_a_note() {
    let repo = fixture("ts-basic");
    index(repo.path());
    let empty_path = tempfile::tempdir().expect("tempdir");
    let output = mcursor_command(repo.path(), &["bench", "--queries", "3", "--runs", "1"])
        .env("PATH", empty_path.path())
        .output()
        .expect("run");
    let text = stdout(&output);
    assert!(output.status.success(), "{text}\n{}", stderr(&output));
    for tool in ["rg -w", "git grep -w", "grep -rw"] {
        assert!(text.contains(&format!("skipped: {tool}")), "{tool}: {text}");
    }
    assert!(text.contains("mcursor find"), "{text}");
}

#[test]
fn bad_inputs_are_clear_errors() {
    let repo = fixture("rust-basic");
    let no_index = mcursor(repo.path(), &["bench"]);
    assert_eq!(no_index.status.code(), Some(2));
    assert!(
        stderr(&no_index).contains("mcursor index"),
        "{}",
        stderr(&no_index)
    );

    index(repo.path());
    let garbage = repo.path().join("garbage.json");
    std::fs::write(&garbage, "{ not json").expect("write");
    let output = mcursor(repo.path(), &["bench", "--truth", "garbage.json"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not a ground-truth file"),
        "{}",
        stderr(&output)
    );

    let other = tempfile::tempdir().expect("tempdir");
    let truth = generate(
        &SynthConfig {
            lang: SynthLang::TypeScript,
            files: 5,
            seed: 1,
        },
        &other.path().join("c"),
    )
    .expect("generate");
    let foreign = other.path().join("c.truth.json");
    truth.save(&foreign).expect("save");
    let output = mcursor(
        repo.path(),
        &["bench", "--truth", foreign.to_str().expect("utf-8")],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("does not describe this index"),
        "{}",
        stderr(&output)
    );

    let text_only = tempfile::tempdir().expect("tempdir");
    std::fs::write(text_only.path().join("README.md"), "no code here\n").expect("write");
    index(text_only.path());
    let output = mcursor(text_only.path(), &["bench"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no names to look up"),
        "{}",
        stderr(&output)
    );

    let output = mcursor(
        repo.path(),
        &[
            "bench",
            "--queries",
            "3",
            "--runs",
            "1",
            "--plot",
            "no/such/dir/plot.svg",
        ],
    );
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("plot.svg"), "{}", stderr(&output));
    assert!(!repo.path().join("no").exists());

    let missing = mcursor(repo.path(), &["bench", "--truth", "nope.json"]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(
        stderr(&missing).contains("nope.json"),
        "{}",
        stderr(&missing)
    );
}
