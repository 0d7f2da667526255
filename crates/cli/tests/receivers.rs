//! Data-driven tests of reference resolution, one case per rule: every directory under
//! `fixtures/receivers/<language>/<rule>/` is a small project whose sources carry the
//! expected answers as end-of-line markers:
//!
//! - `ref: Type::member`: this line refers to `Type::member` (`resolved`);
//! - `ref?: Type::member`: this line refers to it, labeled `heuristic`;
//! - `dispatch: Type::member`: this line calls a trait, interface or base member that
//!   `Type::member` implements (labeled `dispatch`);
//! - `check: Type::member`: no reference here, but `Type::member`'s answers are checked.
//!
//! A target with spaces is quoted: `ref: "<P as Parser>::parse"`.
//!
//! For every target a marker names, `mcursor refs TARGET --json` must answer exactly the
//! marked lines with exactly the marked labels: a missing answer, an extra one or a wrong
//! label fails the case. Several markers may share a line (`ref: A::x ref: B::y`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// (path, line, label)
type Expected = BTreeSet<(String, u32, String)>;

fn source_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut work = vec![dir.to_path_buf()];
    while let Some(d) = work.pop() {
        for entry in std::fs::read_dir(&d).expect("read case dir") {
            let path = entry.expect("entry").path();
            if path.is_dir() {
                if path.file_name().is_some_and(|n| n != ".mcursor") {
                    work.push(path);
                }
            } else if std::fs::read_to_string(&path)
                .is_ok_and(|content| mcursor_syntax::Lang::of_file(&path, &content).is_some())
            {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The markers of a case: target → expected answers.
fn expectations(dir: &Path) -> BTreeMap<String, Expected> {
    // A target is a word, or quoted when it has spaces (`"<P as Parser>::parse"`).
    let marker = regex::Regex::new(r#"\b(ref\?|ref|dispatch|check):\s*(?:"([^"]+)"|([^\s,"]+))"#)
        .expect("regex");
    let mut out: BTreeMap<String, Expected> = BTreeMap::new();
    for file in source_files(dir) {
        let rel = file
            .strip_prefix(dir)
            .expect("inside case")
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).expect("read source");
        for (i, line) in text.lines().enumerate() {
            // `//` comments, `#` in Python, Ruby and shell, `--` in Lua.
            let Some(comment) = line
                .find("//")
                .or_else(|| line.find('#'))
                .or_else(|| line.find("--"))
            else {
                continue;
            };
            for m in marker.captures_iter(&line[comment..]) {
                let Some(target) = m.get(2).or_else(|| m.get(3)) else {
                    continue;
                };
                let target = target.as_str().to_owned();
                let expected = out.entry(target).or_default();
                let label = match &m[1] {
                    "ref" => "resolved",
                    "ref?" => "heuristic",
                    "dispatch" => "dispatch",
                    _ => continue,
                };
                expected.insert((rel.clone(), i as u32 + 1, label.to_owned()));
            }
        }
    }
    out
}

fn run_case(dir: &Path) -> Vec<String> {
    let copy = tempfile::tempdir().expect("tempdir");
    common::copy_tree(dir, copy.path());
    common::index(copy.path());
    let mut failures = Vec::new();
    let expectations = expectations(copy.path());
    assert!(
        !expectations.is_empty(),
        "{} has no markers: a case must check something",
        dir.display()
    );
    for (target, expected) in expectations {
        let output = common::mcursor(copy.path(), &["refs", &target, "--json"]);
        let code = output.status.code();
        if code != Some(0) && code != Some(1) {
            failures.push(format!(
                "{target}: refs failed: {}",
                common::stderr(&output)
            ));
            continue;
        }
        let hits: serde_json::Value =
            serde_json::from_slice(&output.stdout).unwrap_or(serde_json::Value::Null);
        let got: Expected = hits
            .as_array()
            .into_iter()
            .flatten()
            .map(|h| {
                (
                    h["path"].as_str().unwrap_or("").to_owned(),
                    h["line"].as_u64().unwrap_or(0) as u32,
                    h["confidence"].as_str().unwrap_or("").to_owned(),
                )
            })
            .collect();
        for missing in expected.difference(&got) {
            failures.push(format!(
                "{target}: missing {}:{} ({})",
                missing.0, missing.1, missing.2
            ));
        }
        for extra in got.difference(&expected) {
            failures.push(format!(
                "{target}: unexpected {}:{} ({})",
                extra.0, extra.1, extra.2
            ));
        }
    }
    failures
}

fn run_language(language: &str) {
    let root = common::fixtures_dir().join("receivers").join(language);
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&root)
        .expect("cases")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.is_dir())
        .collect();
    cases.sort();
    assert!(!cases.is_empty(), "no cases under {}", root.display());
    let mut report = Vec::new();
    for case in &cases {
        for failure in run_case(case) {
            report.push(format!(
                "{}: {failure}",
                case.file_name().unwrap_or_default().to_string_lossy()
            ));
        }
    }
    assert!(
        report.is_empty(),
        "{} wrong answers in {} {language} cases:\n{}",
        report.len(),
        cases.len(),
        report.join("\n")
    );
}

#[test]
fn rust_receivers() {
    run_language("rust");
}

#[test]
fn typescript_receivers() {
    run_language("typescript");
}

#[test]
fn javascript_receivers() {
    run_language("javascript");
}

#[test]
fn python_receivers() {
    run_language("python");
}

#[test]
fn go_receivers() {
    run_language("go");
}

#[test]
fn java_receivers() {
    run_language("java");
}

#[test]
fn csharp_receivers() {
    run_language("csharp");
}

#[test]
fn c_receivers() {
    run_language("c");
}

#[test]
fn php_receivers() {
    run_language("php");
}

#[test]
fn ruby_receivers() {
    run_language("ruby");
}

#[test]
fn cpp_receivers() {
    run_language("cpp");
}

#[test]
fn kotlin_receivers() {
    run_language("kotlin");
}

#[test]
fn shell_receivers() {
    run_language("shell");
}

#[test]
fn lua_receivers() {
    run_language("lua");
}
