//! Data-driven tests of `mcursor impls`, one case per rule: every directory under
//! `fixtures/impls/` is a small project with an `expected.txt` of commands and their
//! exact output:
//!
//! ```text
//! $ impls Shape
//! src/lib.rs:24:1: impl Shape for Circle
//!     src/lib.rs:25:8: method Circle::area
//! $ impls Circle
//! ! 1 Circle (struct) is defined, but nothing in the index implements, extends or overrides it
//! ```
//!
//! Lines after `$ ARGS` are the expected stdout; a `! CODE MESSAGE` line expects that exit
//! code and that line on stderr (otherwise the exit code must be 0). A missing, extra or
//! reordered line fails the case.

mod common;

use std::path::Path;

struct Case {
    args: Vec<String>,
    stdout: String,
    exit: i32,
    stderr_line: Option<String>,
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
                stderr_line: None,
            });
        } else if let Some(case) = cases.last_mut() {
            if let Some(rest) = line.strip_prefix("! ") {
                let (code, message) = rest.split_once(' ').expect("! CODE MESSAGE");
                case.exit = code.parse().expect("exit code");
                case.stderr_line = Some(message.to_owned());
            } else {
                case.stdout.push_str(line);
                case.stdout.push('\n');
            }
        }
    }
    cases
}

#[test]
fn every_impls_case_answers_as_expected() {
    let root = common::fixtures_dir().join("impls");
    let mut dirs: Vec<_> = std::fs::read_dir(&root)
        .expect("fixtures/impls")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    assert!(dirs.len() >= 5, "the impls cases are missing");
    let mut failures = Vec::new();
    for dir in dirs {
        let name = dir
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let copy = common::fixture(&format!("impls/{name}"));
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
                .stderr_line
                .as_ref()
                .is_none_or(|line| stderr.lines().any(|l| l == line));
            if stdout != case.stdout || code != case.exit || !stderr_ok {
                failures.push(format!(
                    "{name}: `{}`\nexpected (exit {}):\n{}{}\ngot (exit {code}):\n{stdout}stderr: {stderr}",
                    case.args.join(" "),
                    case.exit,
                    case.stdout,
                    case.stderr_line.as_deref().unwrap_or(""),
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The JSON shape: the implementing type's definition, the kind, the methods.
#[test]
fn impls_json_names_the_type_the_kind_and_the_methods() {
    let dir = common::fixture("impls/rust-blanket-impl");
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
