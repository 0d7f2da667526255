//! Answers that never mislead: a stale index, a cut list, a language read as text only, a
//! "nothing refers to it" that the parser could not vouch for, each says so; and what a
//! new user trips over (positions relative to the current directory, `.mcursor/` in
//! `git status`, usage errors, help).

mod common;

use common::{append, fixture, index, mcursor, stderr, stdout};

const STALE: &str = "the index is behind the tree";

#[test]
fn a_query_on_a_stale_index_says_so_until_it_is_updated() {
    let dir = fixture("rust-basic");
    index(dir.path());
    let fresh = mcursor(dir.path(), &["find", "parse_config"]);
    assert!(!stderr(&fresh).contains(STALE), "{}", stderr(&fresh));

    // An edit in place (the directory's time does not move).
    append(&dir.path().join("src/lib.rs"), "\npub fn zz_new() {}\n");
    let missing = mcursor(dir.path(), &["find", "zz_new"]);
    assert_eq!(missing.status.code(), Some(1));
    let said = stderr(&missing);
    assert!(said.contains("no symbol named zz_new"), "{said}");
    assert!(
        said.contains(STALE) && said.contains("src/lib.rs modified"),
        "{said}"
    );
    // JSON output stays JSON; the warning is on stderr there too.
    let json = mcursor(dir.path(), &["find", "parse_config", "--json"]);
    let parsed: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert!(parsed.is_array());
    assert!(stderr(&json).contains(STALE));

    // A new file in a new directory, and a deleted one.
    std::fs::create_dir_all(dir.path().join("src/extra")).expect("mkdir");
    std::fs::write(
        dir.path().join("src/extra/mod.rs"),
        "pub fn zz_extra() {}\n",
    )
    .expect("write");
    std::fs::remove_file(dir.path().join("src/session.rs")).expect("remove");
    let said = stderr(&mcursor(dir.path(), &["refs", "parse_config"]));
    assert!(said.contains("3 files changed"), "{said}");
    assert!(said.contains("src/extra/mod.rs added"), "{said}");
    assert!(said.contains("src/session.rs deleted"), "{said}");

    index(dir.path());
    let updated = mcursor(dir.path(), &["find", "zz_new"]);
    assert_eq!(updated.status.code(), Some(0));
    assert!(!stderr(&updated).contains(STALE), "{}", stderr(&updated));
}

#[test]
fn touched_files_and_files_without_symbols_do_not_make_answers_stale() {
    let dir = fixture("rust-basic");
    index(dir.path());
    // Same content, new time (a branch switched away and back).
    let lib = dir.path().join("src/lib.rs");
    let content = std::fs::read(&lib).expect("read");
    std::thread::sleep(std::time::Duration::from_millis(20));
    std::fs::write(&lib, &content).expect("rewrite");
    let said = stderr(&mcursor(dir.path(), &["find", "parse_config"]));
    assert!(!said.contains(STALE), "{said}");
    // A text file changes what `search` reads, not what `find` answers.
    append(&dir.path().join("Cargo.toml"), "\n# note\n");
    let said = stderr(&mcursor(dir.path(), &["find", "parse_config"]));
    assert!(!said.contains(STALE), "{said}");
    let said = stderr(&mcursor(dir.path(), &["search", "parse_config"]));
    assert!(
        said.contains(STALE) && said.contains("Cargo.toml"),
        "{said}"
    );
}

#[test]
fn a_running_watch_marks_the_index_live() {
    let dir = fixture("rust-basic");
    index(dir.path());
    append(&dir.path().join("src/lib.rs"), "\npub fn zz_new() {}\n");
    // What `mcursor watch` holds while it keeps the index current.
    let lock = std::fs::File::create(dir.path().join(".mcursor/watch.lock")).expect("create");
    lock.lock().expect("lock");
    let said = stderr(&mcursor(dir.path(), &["find", "parse_config"]));
    assert!(!said.contains(STALE), "{said}");
    drop(lock);
    let said = stderr(&mcursor(dir.path(), &["find", "parse_config"]));
    assert!(said.contains(STALE), "{said}");
}

#[test]
fn cut_lists_say_how_many_there_are() {
    let dir = fixture("rust-basic");
    index(dir.path());
    let all = mcursor(dir.path(), &["find", "--prefix", "p", "--json"]);
    let total = serde_json::from_slice::<serde_json::Value>(&all.stdout)
        .expect("json")
        .as_array()
        .map_or(0, Vec::len);
    assert!(total >= 3, "{}", stdout(&all));
    assert!(!stderr(&all).contains("shown"), "{}", stderr(&all));

    for json in [false, true] {
        let mut args = vec!["find", "--prefix", "p", "--limit", "2"];
        if json {
            args.push("--json");
        }
        let cut = mcursor(dir.path(), &args);
        assert!(
            stderr(&cut).contains(&format!("2 of {total} shown; --limit N for more")),
            "{}",
            stderr(&cut)
        );
    }
    let all_refs = stdout(&mcursor(dir.path(), &["refs", "parse_config"]))
        .lines()
        .count();
    assert!(all_refs > 1);
    let refs = mcursor(dir.path(), &["refs", "parse_config", "--limit", "1"]);
    assert_eq!(stdout(&refs).lines().count(), 1);
    assert!(
        stderr(&refs).contains(&format!("1 of {all_refs} shown")),
        "{}",
        stderr(&refs)
    );
    let search = mcursor(dir.path(), &["search", "config", "--limit", "2"]);
    assert_eq!(stdout(&search).lines().count(), 2);
    assert!(stderr(&search).contains("2 of "), "{}", stderr(&search));
}

#[test]
fn languages_read_as_text_only_are_named_not_mistaken_for_absent_symbols() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("pkg")).expect("mkdir");
    std::fs::write(
        dir.path().join("pkg/Session.swift"),
        "class Session {\n    func sendIt() {}\n}\n",
    )
    .expect("write");
    std::fs::write(dir.path().join("lib.rs"), "pub fn helper() {}\n").expect("write");
    let built = mcursor(dir.path(), &["index"]);
    assert!(
        stdout(&built)
            .contains("read as text only (no symbols; `search` covers them): 1 swift file"),
        "{}",
        stdout(&built)
    );
    let missing = mcursor(dir.path(), &["find", "Session"]);
    assert_eq!(missing.status.code(), Some(1));
    let said = stderr(&missing);
    assert!(said.contains("1 swift file, read as text only"), "{said}");
    assert!(said.contains("`mcursor search Session`"), "{said}");
    let found = mcursor(dir.path(), &["search", "Session"]);
    assert!(
        stdout(&found).contains("pkg/Session.swift:1:"),
        "{}",
        stdout(&found)
    );

    let refused = mcursor(dir.path(), &["find", "Session", "--lang", "swift"]);
    assert_eq!(refused.status.code(), Some(2));
    let said = stderr(&refused);
    assert!(
        said.contains("swift files are indexed as text only"),
        "{said}"
    );
    assert!(
        said.contains("rust, typescript, tsx, javascript, python, go, java, csharp"),
        "{said}"
    );
}

#[test]
fn a_header_written_in_cpp_is_read_as_cpp() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write =
        |path: &str, text: &str| std::fs::write(dir.path().join(path), text).expect("write");
    write(
        "cart.h",
        "struct cart { int n; };\nint cart_total(struct cart *c);\n",
    );
    write(
        "context.h",
        "namespace jp {\nclass JPContext {\npublic:\n  int size();\n};\n}\n",
    );
    write(
        "cart.c",
        "#include \"cart.h\"\nint cart_total(struct cart *c) { return c->n; }\n",
    );
    let built = mcursor(dir.path(), &["index"]);
    assert!(stdout(&built).contains("2 c, 1 cpp"), "{}", stdout(&built));
    let found = mcursor(dir.path(), &["find", "cart", "--json"]);
    assert!(
        stdout(&found).contains("\"lang\":\"c\""),
        "{}",
        stdout(&found)
    );
    let cpp = mcursor(dir.path(), &["find", "JPContext::size", "--json"]);
    assert!(
        stdout(&cpp).contains("\"lang\":\"cpp\""),
        "{}",
        stdout(&cpp)
    );
    assert!(
        stdout(&cpp).contains("jp::JPContext::size"),
        "{}",
        stdout(&cpp)
    );

    // An edit that turns the C header into C++ makes its symbols C++'s, qualified by the
    // namespace.
    write("cart.h", "namespace shop {\nstruct cart { int n; };\n}\n");
    index(dir.path());
    let moved = mcursor(dir.path(), &["find", "cart", "--json"]);
    assert!(stdout(&moved).contains("shop::cart"), "{}", stdout(&moved));
    assert!(
        stdout(&moved).contains("\"lang\":\"cpp\""),
        "{}",
        stdout(&moved)
    );
}

#[test]
fn a_script_without_an_extension_is_read_as_shell_by_its_first_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    let write = |path: &str, text: &str| {
        let path = dir.path().join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    };
    write(
        "bin/deploy",
        "#!/usr/bin/env bash\nsource lib/common.sh\nship() { say go; }\nship\n",
    );
    write("lib/common.sh", "say() { echo \"$@\"; }\n");
    write("NOTES", "#!not a script\nship it\n");
    let built = mcursor(dir.path(), &["index"]);
    assert!(stdout(&built).contains("(2 shell)"), "{}", stdout(&built));
    let refs = mcursor(dir.path(), &["refs", "say"]);
    assert!(stdout(&refs).contains("bin/deploy:3:"), "{}", stdout(&refs));
    assert!(!stdout(&refs).contains("heuristic"), "{}", stdout(&refs));

    // A new script makes symbol answers stale; a new text file does not.
    write("README", "deploy with bin/deploy\n");
    let said = stderr(&mcursor(dir.path(), &["find", "ship"]));
    assert!(!said.contains(STALE), "{said}");
    write("bin/setup", "#!/bin/sh\nsetup() { ship; }\n");
    let said = stderr(&mcursor(dir.path(), &["find", "ship"]));
    assert!(
        said.contains(STALE) && said.contains("bin/setup added"),
        "{said}"
    );
}

#[test]
fn nothing_refers_to_it_only_when_the_parser_read_every_mention() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("src")).expect("mkdir");
    std::fs::write(
        dir.path().join("src/lib.ts"),
        "export function lonely() {}\nexport function usedNowhere() {}\n",
    )
    .expect("write");
    // A call of `lonely` inside code the parser cannot read (JSX in a .ts file), and a
    // mention of `usedNowhere` in a comment it did read.
    std::fs::write(
        dir.path().join("src/view.ts"),
        "function f() {\n  const x = <div>{lonely(}</div>;\n}\n// usedNowhere is named here only\n",
    )
    .expect("write");
    index(dir.path());
    let unread = mcursor(dir.path(), &["refs", "lonely"]);
    assert_eq!(unread.status.code(), Some(1), "{}", stdout(&unread));
    let said = stderr(&unread);
    assert!(said.contains("nothing parsed refers to lonely"), "{said}");
    assert!(said.contains("src/view.ts:2"), "{said}");
    assert!(said.contains("syntax error"), "{said}");
    let sure = stderr(&mcursor(dir.path(), &["refs", "usedNowhere"]));
    assert!(sure.contains("nothing in the index refers to it"), "{sure}");
}

#[test]
fn positions_may_be_relative_to_the_current_directory_or_absolute() {
    let dir = fixture("rust-basic");
    index(dir.path());
    let from_root = mcursor(dir.path(), &["refs", "src/config.rs:11:8", "--json"]);
    assert_eq!(from_root.status.code(), Some(0), "{}", stderr(&from_root));
    let src = dir.path().join("src");
    let from_src = mcursor(&src, &["refs", "config.rs:11:8", "--json"]);
    assert_eq!(
        stdout(&from_src),
        stdout(&from_root),
        "{}",
        stderr(&from_src)
    );
    let absolute = format!("{}:11:8", src.join("config.rs").display());
    let from_anywhere = mcursor(&src, &["refs", &absolute, "--json"]);
    assert_eq!(stdout(&from_anywhere), stdout(&from_root));
    // Still repository-relative from a subdirectory, as before.
    let repo_relative = mcursor(&src, &["refs", "src/config.rs:11:8", "--json"]);
    assert_eq!(stdout(&repo_relative), stdout(&from_root));
}

#[test]
fn the_index_does_not_show_in_git_status() {
    let dir = fixture("rust-basic");
    let git = |args: &[&str]| {
        std::process::Command::new("git")
            .arg("-C")
            .arg(dir.path())
            .args(args)
            .output()
            .expect("git")
    };
    if !git(&["init", "-q"]).status.success() {
        return; // no git on this machine
    }
    index(dir.path());
    let status = String::from_utf8_lossy(&git(&["status", "--porcelain"]).stdout).into_owned();
    assert!(!status.contains(".mcursor"), "{status}");
    assert!(dir.path().join(".mcursor/.gitignore").is_file());
}

#[test]
fn usage_errors_and_help() {
    let dir = fixture("rust-basic");
    index(dir.path());
    for args in [
        &["callers", "parse_config", "--depth", "0"][..],
        &["find", ""],
        &["refs", ""],
        &["search", ""],
    ] {
        let output = mcursor(dir.path(), args);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    for (command, positional) in [
        ("find", "<NAME>"),
        ("refs", "<TARGET>"),
        ("callers", "<TARGET>"),
        ("search", "<QUERY>"),
    ] {
        let help = stdout(&mcursor(dir.path(), &[command, "--help"]));
        let line = help
            .lines()
            .find(|l| l.trim_start().starts_with(positional))
            .unwrap_or_default();
        assert!(
            line.trim().len() > positional.len() + 4,
            "{command}: {help}"
        );
    }
    let find_help = stdout(&mcursor(dir.path(), &["find", "--help"]));
    assert!(
        find_help.contains("rust, typescript, tsx, javascript"),
        "{find_help}"
    );
    let mcp_help = stdout(&mcursor(dir.path(), &["mcp", "--help"]));
    assert!(
        !mcp_help.contains("--json") && !mcp_help.contains("--color"),
        "{mcp_help}"
    );
    // Output options work before the command and after it.
    for args in [
        &["--json", "find", "parse_config"][..],
        &["find", "parse_config", "--json"],
    ] {
        let output = mcursor(dir.path(), args);
        assert!(
            serde_json::from_slice::<serde_json::Value>(&output.stdout).is_ok(),
            "{args:?}"
        );
    }
}

#[test]
fn methods_declared_without_bodies_are_definitions_shown_whole() {
    let dir = tempfile::tempdir().expect("tempdir");
    common::copy_tree(
        &common::fixtures_dir().join("receivers/typescript/declare-class-methods"),
        dir.path(),
    );
    index(dir.path());
    for (name, signature) in [
        ("Engine.run", "run(): void"),
        ("Shape.area", "abstract area(unit: string): number"),
        (
            "Shape.describe",
            "describe(prefix: string, suffix?: string): string",
        ),
    ] {
        let found = mcursor(dir.path(), &["find", name, "--json"]);
        let hits: serde_json::Value = serde_json::from_slice(&found.stdout).expect("json");
        assert_eq!(hits[0]["signature"], signature, "{name}: {hits}");
        assert_eq!(hits[0]["kind"], "method", "{name}: {hits}");
    }
}

#[test]
fn public_paths_find_what_they_lead_to() {
    let dir = fixture("rust-basic");
    index(dir.path());
    let found = |name: &str| -> Vec<String> {
        let output = mcursor(dir.path(), &["find", name, "--json"]);
        serde_json::from_slice::<serde_json::Value>(&output.stdout)
            .expect("json")
            .as_array()
            .map(|hits| {
                hits.iter()
                    .map(|h| h["qualified_name"].as_str().unwrap_or_default().to_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    // `pub use config::parse_config;` in the crate root: the root's path, the package
    // name's, and the defining module's all lead to the top-level function only.
    for path in [
        "crate::parse_config",
        "rust_basic::parse_config",
        "config::parse_config",
    ] {
        assert_eq!(found(path), ["config::parse_config"], "{path}");
    }
    assert_eq!(found("rust_basic::session::Session"), ["session::Session"]);
    // Renamed on re-export (`as MainSession`): the old name is no path of the root.
    assert!(found("crate::Session").is_empty());
    let missing = mcursor(dir.path(), &["find", "nowhere::parse_config"]);
    let said = stderr(&missing);
    assert!(
        said.contains("config::parse_config, config::defaults::parse_config"),
        "{said}"
    );
}

#[test]
fn same_named_definitions_in_different_files_are_told_apart_in_json() {
    let dir = tempfile::tempdir().expect("tempdir");
    for module in ["v3", "v4"] {
        std::fs::create_dir_all(dir.path().join(module)).expect("mkdir");
        std::fs::write(
            dir.path().join(format!("{module}/types.ts")),
            "export class ZodType {\n  safeParse(x: unknown): boolean { return true; }\n}\n",
        )
        .expect("write");
        std::fs::write(
            dir.path().join(format!("{module}/use.ts")),
            "import { ZodType } from './types';\nnew ZodType().safeParse(1);\n",
        )
        .expect("write");
    }
    index(dir.path());
    let output = mcursor(dir.path(), &["refs", "ZodType.safeParse", "--json"]);
    let refs: serde_json::Value = serde_json::from_slice(&output.stdout).expect("json");
    let pairs: std::collections::BTreeSet<(String, String)> = refs
        .as_array()
        .expect("array")
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap_or_default().to_owned(),
                r["target_path"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let expected: std::collections::BTreeSet<(String, String)> = [
        ("v3/use.ts".to_owned(), "v3/types.ts".to_owned()),
        ("v4/use.ts".to_owned(), "v4/types.ts".to_owned()),
    ]
    .into_iter()
    .collect();
    assert_eq!(pairs, expected, "{refs}");
}

#[test]
fn references_can_be_limited_to_a_directory_or_file() {
    let dir = fixture("rust-basic");
    index(dir.path());
    let all = stdout(&mcursor(dir.path(), &["refs", "parse_config"]));
    let under = stdout(&mcursor(
        dir.path(),
        &["refs", "parse_config", "--under", "src/"],
    ));
    assert!(
        under.lines().count() < all.lines().count(),
        "{all}\n{under}"
    );
    assert!(under.lines().all(|l| l.starts_with("src/")), "{under}");
    let file = stdout(&mcursor(
        dir.path(),
        &["refs", "parse_config", "--under", "src/lib.rs"],
    ));
    assert!(
        !file.is_empty() && file.lines().all(|l| l.starts_with("src/lib.rs:")),
        "{file}"
    );
}

/// A caller whose call name-matches same-named methods of several types is listed once,
/// with the candidates, not once under each of them.
#[test]
fn callers_of_a_name_shared_by_several_types_are_listed_once() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut source = String::new();
    for ty in ["Alpha", "Beta", "Gamma"] {
        source.push_str(&format!(
            "export class {ty} {{ isMatch(): boolean {{ return true; }} }}\n"
        ));
    }
    source.push_str("export function check(r) { return r.isMatch(); }\n");
    source.push_str("export function sure(a: Alpha) { return a.isMatch(); }\n");
    std::fs::write(dir.path().join("m.ts"), source).expect("write");
    index(dir.path());
    let out = mcursor(dir.path(), &["callers", "isMatch"]);
    let text = stdout(&out);
    let check_lines = text.lines().filter(|l| l.starts_with("check")).count();
    assert_eq!(check_lines, 1, "{text}");
    assert!(
        text.contains("one of 3: Alpha.isMatch, Beta.isMatch, Gamma.isMatch"),
        "{text}"
    );
    // A resolved call stays an edge of its own target.
    assert!(
        text.lines()
            .any(|l| l.starts_with("sure") && l.contains("calls Alpha.isMatch at")),
        "{text}"
    );
    let json = mcursor(dir.path(), &["callers", "isMatch", "--json"]);
    let edges: serde_json::Value = serde_json::from_str(&stdout(&json)).expect("json");
    let edges = edges.as_array().expect("edges");
    assert_eq!(edges.len(), 2, "{edges:?}");
    let check = edges
        .iter()
        .find(|e| e["caller"] == "check")
        .expect("check");
    assert_eq!(check["candidates"].as_array().map(Vec::len), Some(3));
    assert_eq!(check["confidence"], "heuristic");
    let sure = edges.iter().find(|e| e["caller"] == "sure").expect("sure");
    assert!(sure.get("candidates").is_none(), "{sure}");
}

/// Files indexed from their valid parts are named, with the first error line the build
/// recorded: in `status`, `status --syntax-errors` (all of them) and `index --json`; the
/// index summary says how to list them.
#[test]
fn files_with_syntax_errors_are_named_with_their_first_error_line() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir(dir.path().join("src")).expect("mkdir");
    std::fs::write(dir.path().join("src/a.rs"), "pub fn ok() {}\n").expect("write");
    std::fs::write(
        dir.path().join("src/b.rs"),
        "pub fn fine() {}\n\npub fn broken( {\n",
    )
    .expect("write");
    let built = mcursor(dir.path(), &["index"]);
    assert!(
        stdout(&built).contains("`mcursor status --syntax-errors` lists them"),
        "{}",
        stdout(&built)
    );
    let status = stdout(&mcursor(dir.path(), &["status"]));
    assert!(status.contains("1 files have syntax errors"), "{status}");
    assert!(status.contains("  src/b.rs:3"), "{status}");
    let all = mcursor(dir.path(), &["status", "--syntax-errors"]);
    assert_eq!(all.status.code(), Some(0));
    assert_eq!(stdout(&all), "src/b.rs:3\n");
    let json: serde_json::Value =
        serde_json::from_str(&stdout(&mcursor(dir.path(), &["index", "--json"]))).expect("json");
    assert_eq!(json["syntax_error_files"][0]["path"], "src/b.rs");
    assert_eq!(json["syntax_error_files"][0]["line"], 3);
    // The line is the build's: a patch of another file keeps it, and an edit not yet
    // indexed does not move it (the file is not parsed again).
    std::fs::write(dir.path().join("src/a.rs"), "pub fn ok() { fine(); }\n").expect("write");
    index(dir.path());
    std::fs::write(
        dir.path().join("src/b.rs"),
        "\n\npub fn fine() {}\n\npub fn broken( {\n",
    )
    .expect("write");
    assert_eq!(
        stdout(&mcursor(dir.path(), &["status", "--syntax-errors"])),
        "src/b.rs:3\n"
    );
    std::fs::write(dir.path().join("src/b.rs"), "pub fn fixed() {}\n").expect("write");
    index(dir.path());
    let none = mcursor(dir.path(), &["status", "--syntax-errors"]);
    assert_eq!(none.status.code(), Some(1));
    assert!(stderr(&none).contains("0 files with syntax errors"));
}
