//! Data-driven tests of the navigation commands (`impls`, `impact`), one case per rule:
//! every directory under `fixtures/commands/` is a small project with an `expected.txt`
//! of commands and their exact output:
//!
//! ```text
//! $ impls Shape
//! src/lib.rs:24:1: impl Shape for Circle
//!     src/lib.rs:25:8: method Circle::area
//! $ impls Circle
//! ! 1 Circle (struct) is defined, but nothing in the index implements, extends or overrides it
//! $ impact Store::get
//! ...
//! 2> a change to Store::get (to depth 2) can affect 4 sites in 1 file (4 definitions); ...
//! ```
//!
//! Lines after `$ ARGS` are the expected stdout, exactly (a missing, extra or reordered
//! line fails the case); a `2> LINE` line must be on stderr; a `! CODE MESSAGE` line
//! expects that exit code and that line on stderr (otherwise the exit code must be 0).

mod common;

use std::path::Path;

struct Case {
    args: Vec<String>,
    stdout: String,
    exit: i32,
    stderr_lines: Vec<String>,
}

fn cases(dir: &Path) -> Vec<Case> {
    let text = std::fs::read_to_string(dir.join("expected.txt")).expect("expected.txt");
    let mut cases: Vec<Case> = Vec::new();
    for line in text.lines() {
        if let Some(args) = line.strip_prefix("$ ") {
            cases.push(Case {
                args: args.split_whitespace().map(str::to_owned).collect(),
                stdout: String::new(),
                exit: 0,
                stderr_lines: Vec::new(),
            });
        } else if let Some(case) = cases.last_mut() {
            if let Some(rest) = line.strip_prefix("! ") {
                let (code, message) = rest.split_once(' ').expect("! CODE MESSAGE");
                case.exit = code.parse().expect("exit code");
                case.stderr_lines.push(message.to_owned());
            } else if let Some(rest) = line.strip_prefix("2> ") {
                case.stderr_lines.push(rest.to_owned());
            } else {
                case.stdout.push_str(line);
                case.stdout.push('\n');
            }
        }
    }
    cases
}

#[test]
fn every_command_case_answers_as_expected() {
    let root = common::fixtures_dir().join("commands");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("fixtures/commands")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 7, "the command cases are missing");
    let mut failures = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let copy = common::fixture(&format!("commands/{name}"));
        common::index(copy.path());
        let cases = cases(&dir);
        assert!(!cases.is_empty(), "{name}: no cases in expected.txt");
        for case in cases {
            let args: Vec<&str> = case.args.iter().map(String::as_str).collect();
            let output = common::mcursor(copy.path(), &args);
            let stdout = common::stdout(&output);
            let stderr = common::stderr(&output);
            let code = output.status.code().unwrap_or(-1);
            let stderr_ok = case
                .stderr_lines
                .iter()
                .all(|line| stderr.lines().any(|l| l == line));
            if stdout != case.stdout || code != case.exit || !stderr_ok {
                failures.push(format!(
                    "{name}: `{}`\nexpected (exit {}):\n{}{}\ngot (exit {code}):\n{stdout}stderr: {stderr}",
                    case.args.join(" "),
                    case.exit,
                    case.stdout,
                    case.stderr_lines.join("\n"),
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The JSON shape: the implementing type's definition, the kind, the methods.
#[test]
fn impls_json_names_the_type_the_kind_and_the_methods() {
    let dir = common::fixture("commands/impls-rust-blanket-impl");
    common::index(dir.path());
    let (code, stdout) = common::query(dir.path(), &["impls", "Describe", "--json"]);
    assert_eq!(code, 0);
    let hits: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    let hit = &hits[0];
    assert_eq!(hit["kind"], "blanket");
    assert_eq!(hit["implements"], "Describe");
    assert_eq!(hit["implementor_text"], "S: Source");
    assert!(hit["implementor"].is_null());
    assert_eq!(
        hit["methods"][0]["qualified_name"],
        "<S as Describe>::describe"
    );
    let (_, stdout) = common::query(dir.path(), &["impls", "Source", "--json"]);
    let hits: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(hits[0]["implementor"]["qualified_name"], "File");
    assert_eq!(hits[0]["implementor"]["kind"], "struct");
    assert_eq!(hits[0]["kind"], "impl");
}

/// The impact JSON: sites with kinds and confidences, counts per file, and the count of
/// definitions the walk did not follow past a name match.
#[test]
fn impact_json_says_where_the_walk_was_cut() {
    let dir = common::fixture("commands/impact-heuristic-cut");
    common::index(dir.path());
    let (code, stdout) = common::query(dir.path(), &["impact", "Alpha.isMatch", "--json"]);
    assert_eq!(code, 0);
    let answer: serde_json::Value = serde_json::from_str(&stdout).expect("json");
    assert_eq!(answer["heuristic_not_followed"], 1);
    assert_eq!(answer["total"], 3);
    assert_eq!(answer["truncated"], false);
    assert_eq!(answer["per_file"][0]["path"], "m.ts");
    assert_eq!(answer["per_file"][0]["sites"], 3);
    let sites = answer["sites"].as_array().expect("sites");
    let guess = sites
        .iter()
        .find(|s| s["affected"] == "guess")
        .expect("guess");
    assert_eq!(guess["confidence"], "heuristic");
    assert_eq!(guess["kind"], "call");
    assert_eq!(guess["depth"], 1);
    assert!(!sites.iter().any(|s| s["affected"] == "caller_of_guess"));
    let (_, limited) = common::query(
        dir.path(),
        &["impact", "Alpha.isMatch", "--json", "--limit", "1"],
    );
    let limited: serde_json::Value = serde_json::from_str(&limited).expect("json");
    assert_eq!(limited["sites"].as_array().map(Vec::len), Some(1));
    assert_eq!(limited["total"], 3);
    assert_eq!(limited["truncated"], true);
}

/// `export`: a header, every symbol (as many as `status` counts), every reference as an
/// edge whose ids name exported symbols, then implementations and overrides; a stale
/// index is refused unless asked for; `--kind` picks records.
#[test]
fn export_streams_the_whole_graph_and_refuses_a_stale_index() {
    let dir = common::fixture("rust-basic");
    common::index(dir.path());
    let (code, status) = common::query(dir.path(), &["status", "--json"]);
    assert_eq!(code, 0);
    let status: serde_json::Value = serde_json::from_str(&status).expect("status");
    let (code, stdout) = common::query(dir.path(), &["export"]);
    assert_eq!(code, 0);
    let records: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    let header = &records[0];
    assert_eq!(header["type"], "header");
    assert_eq!(header["format"], "mcursor-export");
    assert_eq!(header["generation"], status["generation"]);
    assert_eq!(header["stale"], false);
    let of = |t: &'static str| records.iter().filter(move |r| r["type"] == t);
    let ids: std::collections::HashSet<u64> =
        of("symbol").filter_map(|s| s["id"].as_u64()).collect();
    assert_eq!(
        ids.len() as u64,
        status["symbols"].as_u64().expect("symbols")
    );
    let references = of("edge")
        .filter(|e| e["kind"] != "implements" && e["kind"] != "overrides")
        .count();
    assert_eq!(
        references as u64,
        status["references"].as_u64().expect("refs")
    );
    for edge in of("edge") {
        for end in ["from", "to"] {
            if let Some(id) = edge[end].as_u64() {
                assert!(ids.contains(&id), "{edge}");
            }
        }
    }
    let implements: Vec<_> = of("edge").filter(|e| e["kind"] == "implements").collect();
    assert_eq!(implements.len(), 1, "{implements:?}");
    assert_eq!(implements[0]["how"], "impl");
    assert_eq!(of("edge").filter(|e| e["kind"] == "overrides").count(), 1);

    let (_, calls) = common::query(dir.path(), &["export", "--kind", "call"]);
    let calls: Vec<serde_json::Value> = calls
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).expect("json"))
        .collect();
    assert!(!calls.is_empty() && calls.iter().all(|e| e["kind"] == "call"));
    let (_, structs) = common::query(dir.path(), &["export", "--symbols", "--kind", "struct"]);
    assert!(
        structs
            .lines()
            .skip(1)
            .all(|l| l.contains("\"kind\":\"struct\""))
    );
    let bogus = common::mcursor(dir.path(), &["export", "--kind", "bogus"]);
    assert_eq!(bogus.status.code(), Some(2));
    assert!(common::stderr(&bogus).contains("not a symbol kind"));

    std::fs::write(dir.path().join("src/extra.rs"), "pub fn extra() {}\n").expect("write");
    let refused = common::mcursor(dir.path(), &["export"]);
    assert_eq!(refused.status.code(), Some(2));
    assert!(common::stdout(&refused).is_empty());
    assert!(
        common::stderr(&refused).contains("export refused"),
        "{}",
        common::stderr(&refused)
    );
    let (code, stale) = common::query(dir.path(), &["export", "--allow-stale"]);
    assert_eq!(code, 0);
    let header: serde_json::Value =
        serde_json::from_str(stale.lines().next().expect("header")).expect("json");
    assert_eq!(header["stale"], true);
}
