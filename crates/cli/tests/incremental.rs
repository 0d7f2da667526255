//! Incremental updates: an index brought up to date after any sequence of edits,
//! additions, deletions, renames, touches, binary files and `.gitignore` changes equals a
//! fresh index of the same tree (compared as canonical dumps); a killed update leaves an
//! index that opens and that the next run brings to that same state; the summary says
//! what changed.

mod common;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{
    append, copy_tree, fixtures_dir, mcursor, mcursor_command, source_files, stderr, stdout,
};
use mcursor_index::{BuildOptions, Index, ResidentDeclarations, build_index};
use mcursor_synth::SplitMix64;

/// The language fixtures side by side in one repository.
fn mixed_repo() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    for name in [
        "rust-basic",
        "ts-basic",
        "js-basic",
        "py-basic",
        "go-basic",
        "java-basic",
        "csharp-basic",
        "c-basic",
        "php-basic",
        "ruby-basic",
        "cpp-basic",
        "kotlin-basic",
        "shell-basic",
        "lua-basic",
    ] {
        copy_tree(&fixtures_dir().join(name), &dir.path().join(name));
    }
    dir
}

fn options(full: bool) -> BuildOptions {
    BuildOptions {
        threads: 2,
        full,
        ..BuildOptions::default()
    }
}

/// Asserts that the index of `root` dumps the same as a fresh build of the same tree.
fn assert_equals_fresh(root: &Path) {
    let updated = Index::open(root).expect("open").dump().expect("dump");
    let fresh = fresh_dump(root);
    assert!(
        updated == fresh,
        "{}",
        diff_lines(&updated, &fresh).join("\n")
    );
}

fn fresh_dump(root: &Path) -> String {
    let copy = tempfile::tempdir().expect("tempdir");
    copy_tree(root, copy.path());
    build_index(copy.path(), &options(true), &|_| {}).expect("fresh build");
    Index::open(copy.path())
        .expect("open")
        .dump()
        .expect("dump")
}

/// Identifiers defined somewhere in the tree, to write uses and new definitions of.
fn names_in(root: &Path) -> Vec<String> {
    let mut names = vec!["fresh_name".to_owned(), "Widget".to_owned()];
    for file in source_files(root) {
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        for word in text.split(|c: char| !(c.is_alphanumeric() || c == '_')) {
            let starts_alpha = word.chars().next().is_some_and(char::is_alphabetic);
            if starts_alpha && word.len() > 3 && !names.iter().any(|n| n == word) {
                names.push(word.to_owned());
            }
        }
    }
    names
}

fn snippet(rng: &mut SplitMix64, ext: &str, names: &[String]) -> String {
    let mut pick = || names[rng.below(names.len())].clone();
    let (a, b, c) = (pick(), pick(), pick());
    if ext == "java" {
        return match rng.below(4) {
            0 => format!("\nclass {a} {{ int {b}() {{ return {c}(); }} }}\n"),
            1 => {
                format!("\nclass {a} extends {b} {{ void {c}() {{ this.{c}(); super.{c}(); }} }}\n")
            }
            2 => format!("\ninterface {a} {{ void {b}(); }}\n"),
            _ => format!("\nenum {a} {{ {b}; int {c}() {{ return {b}.ordinal(); }} }}\n"),
        };
    }
    if ext == "cs" {
        return match rng.below(5) {
            0 => format!("\nclass {a} {{ int {b}() => {c}(); }}\n"),
            1 => format!(
                "\npartial class {a} : {b} {{ void {c}() {{ this.{c}(); base.{c}(); }} }}\n"
            ),
            2 => format!("\ninterface {a} {{ void {b}(); }}\n"),
            3 => format!("\nstatic class {a} {{ static int {b}(this {c} x) => x.{b}(); }}\n"),
            _ => format!("\nenum {a} {{ {b}, {c} }}\n"),
        };
    }
    if ext == "c" || ext == "h" {
        return match rng.below(5) {
            0 => format!("\nint {a}(void) {{ return {b}({c}); }}\n"),
            1 => format!(
                "\nstruct {a} {{ int {b}; }};\nint {c}(struct {a} *x) {{ return x->{b}; }}\n"
            ),
            2 => format!("\n#include \"{b}.h\"\nint {a}(void);\nextern int {c};\n"),
            3 => format!("\n#define {a}(x) ({b}(x))\nenum {{ {c}_ON, {c}_OFF }};\n"),
            _ => format!(
                "\ntypedef struct {{ int {b}; }} {a};\nstatic int {c}({a} *p) {{ return p->{b}; }}\n"
            ),
        };
    }
    if ext == "php" {
        return match rng.below(5) {
            0 => format!("\nfunction {a}(): int {{ return {b}({c}); }}\n"),
            1 => format!(
                "\nclass {a} extends {b} {{ public function {c}() {{ $this->{c}(); parent::{c}(); }} }}\n"
            ),
            2 => format!("\ninterface {a} {{ public function {b}(); }}\n"),
            3 => format!(
                "\ntrait {a} {{ public int ${b} = 0; }}\nclass {c} {{ use {a}; public function f() {{ return $this->{b}; }} }}\n"
            ),
            _ => format!(
                "\nenum {a} {{ case {b}; public function {c}() {{ return self::{b}; }} }}\n"
            ),
        };
    }
    if ext == "cpp" || ext == "hpp" {
        return match rng.below(5) {
            0 => format!("\nint {a}() {{ return {b}({c}); }}\n"),
            1 => format!(
                "\nclass {a} : public {b} {{\npublic:\n  int {c}() const {{ return this->{c}() + {b}::{c}(); }}\n}};\n"
            ),
            2 => format!("\nnamespace {a} {{ int {b}(); int {c}() {{ return {a}::{b}(); }} }}\n"),
            3 => format!(
                "\nstruct {a} {{ int {b}; int {c}() const; }};\nint {a}::{c}() const {{ return {b}; }}\n"
            ),
            _ => format!("\ntemplate <typename T> T {a}(T x) {{ return x.{b}(); }}\n"),
        };
    }
    if ext == "lua" {
        return match rng.below(4) {
            0 => format!("\nfunction {a}() return {b}() end\n"),
            1 => {
                format!("\nlocal {a} = require(\"{b}\")\nfunction {c}.{b}() return {a}.{c}() end\n")
            }
            2 => format!("\nfunction {a}:{b}() return self:{c}() end\n"),
            _ => format!("\nlocal function {a}() local {b} = 1 return {c}({b}) end\n"),
        };
    }
    if ext == "sh" {
        return match rng.below(4) {
            0 => format!("\n{a}() {{\n    {b} \"$@\"\n}}\n"),
            1 => format!("\n{a}={b}\nfunction {c} {{ echo \"${a}\"; }}\n"),
            2 => format!("\nsource ./{a}.sh\n{b} \"${c}\"\n"),
            _ => format!("\n{a}() {{ local {b}=1; {c} \"${b}\"; }}\n"),
        };
    }
    if ext == "kt" {
        return match rng.below(5) {
            0 => format!("\nfun {a}(): Int = {b}({c})\n"),
            1 => format!(
                "\nclass {a} : {b}() {{\n    override fun {c}() = super.{c}() + this.{c}()\n}}\n"
            ),
            2 => format!("\nobject {a} {{ fun {b}() = {c}.{b}() }}\n"),
            3 => format!(
                "\nclass {a}(val {b}: {c}) {{\n    companion object {{ fun {c}(): {a} = {a}({c}()) }}\n}}\n"
            ),
            _ => format!("\nfun {b}.{a}(): Int = {c}()\n"),
        };
    }
    if ext == "rb" {
        return match rng.below(5) {
            0 => format!("\ndef {a}\n  {b}({c})\nend\n"),
            1 => format!("\nclass {a} < {b}\n  def {c}\n    self.{c}\n    super\n  end\nend\n"),
            2 => format!("\nmodule {a}\n  def {b}; {c}; end\nend\n"),
            3 => format!(
                "\nclass {a}\n  include {b}\n  def initialize; @{c} = {a}.new; end\n  def f; @{c}.f; end\nend\n"
            ),
            _ => format!("\n{a} = {b}.new.{c}\n"),
        };
    }
    if ext == "go" {
        return match rng.below(4) {
            0 => format!("\nfunc {a}() int {{ return {b}({c}) }}\n"),
            1 => format!(
                "\ntype {a} struct{{ {b} int }}\n\nfunc (x *{a}) {c}() int {{ return x.{b} }}\n"
            ),
            2 => format!("\ntype {a} struct{{ *{b} }}\n\nfunc (x {a}) {c}() {{ x.{c}() }}\n"),
            _ => format!("\nvar {a} = {b}.{c}()\n"),
        };
    }
    if ext == "py" {
        return match rng.below(5) {
            0 => format!("def {a}():\n    return {b}({c})\n"),
            1 => format!("class {a}:\n    def {b}(self):\n        return self.{c}()\n"),
            2 => format!("from .{b} import {a}\n{a}()\n"),
            3 => format!("class {a}({b}):\n    def {c}(self):\n        return super().{c}()\n"),
            _ => format!("import {a}\n{a}.{b}({c})\n"),
        };
    }
    let rust = ext == "rs";
    match (rust, rng.below(5)) {
        (true, 4) => format!(
            "pub trait {a} {{ fn {b}(&self); }}\nimpl {a} for {c} {{ fn {b}(&self) {{}} }}\n"
        ),
        (false, 4) => {
            format!("export class {a} extends {b} implements {c} {{ {b}() {{ return 1; }} }}\n")
        }
        (true, 0) => format!("pub fn {a}() {{ {b}(); {c}::new(); }}\n"),
        (true, 1) => {
            format!("pub struct {a};\nimpl {a} {{ pub fn {b}(&self) {{ self.{c}(); }} }}\n")
        }
        (true, 2) => format!("use crate::{a}::{b};\n"),
        (true, _) => format!("mod {a} {{ pub fn {b}() {{ super::{c}(); }} }}\n"),
        (false, 0) => format!("export function {a}() {{ return {b}({c}); }}\n"),
        (false, 1) => format!("export class {a} {{ {b}() {{ return this.{c}(); }} }}\n"),
        (false, 2) => format!("import {{ {a} }} from './{b}';\n{a}();\n"),
        (false, _) => format!("export default function {a}() {{ {b}.{c}(); }}\n"),
    }
}

fn extension(path: &Path) -> String {
    path.extension()
        .and_then(|e| e.to_str())
        .unwrap_or("rs")
        .to_owned()
}

/// An edit that keeps the file's interface (the patch path): a comment line anywhere,
/// shifting what follows, or a digit changed.
fn body_edit(rng: &mut SplitMix64, file: &Path, step: usize) -> String {
    let text = std::fs::read_to_string(file).unwrap_or_default();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let at = rng.below(lines.len() + 1);
    if rng.below(2) == 0 {
        let comment = match extension(file).as_str() {
            "py" | "rb" | "sh" | "" => "#",
            "lua" => "--",
            _ => "//",
        };
        lines.insert(at, format!("{comment} note {step}"));
    } else if let Some(line) = lines.get_mut(at.saturating_sub(1)) {
        *line = line.replace('1', "2");
    }
    std::fs::write(file, lines.join("\n") + "\n").expect("edit");
    format!("body edit of {}", file.display())
}

/// One random change to the tree; returns what it did, for failure messages.
fn mutate(rng: &mut SplitMix64, root: &Path, step: usize) -> String {
    let choice = rng.below(15);
    change(rng, root, step, choice)
}

/// An edit of one file that changes its interface: definitions or imports appended, a
/// line cut, a name renamed throughout the file.
fn interface_edit(rng: &mut SplitMix64, root: &Path, step: usize) -> String {
    let choice = rng.below(4);
    change(rng, root, step, choice)
}

/// Change `choice` of those [`mutate`] makes.
fn change(rng: &mut SplitMix64, root: &Path, step: usize, choice: usize) -> String {
    let files = source_files(root);
    let names = names_in(root);
    let Some(file) = files.get(rng.below(files.len().max(1))).cloned() else {
        let path = root.join(format!("src/new_{step}.rs"));
        std::fs::create_dir_all(root.join("src")).expect("mkdir");
        std::fs::write(&path, snippet(rng, "rs", &names)).expect("write");
        return format!("add {}", path.display());
    };
    let ext = extension(&file);
    let shown = file
        .strip_prefix(root)
        .unwrap_or(&file)
        .display()
        .to_string();
    match choice {
        11..=13 => body_edit(rng, &file, step),
        0 | 1 => {
            let mut text = std::fs::read_to_string(&file).unwrap_or_default();
            text.push_str(&snippet(rng, &ext, &names));
            std::fs::write(&file, text).expect("append");
            format!("append to {shown}")
        }
        2 => {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let mut lines: Vec<&str> = text.lines().collect();
            if !lines.is_empty() {
                lines.remove(rng.below(lines.len()));
            }
            std::fs::write(&file, lines.join("\n")).expect("cut");
            format!("delete a line of {shown}")
        }
        3 => {
            // Rename a definition throughout one file: its uses elsewhere now dangle.
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let old = &names[rng.below(names.len())];
            std::fs::write(&file, text.replace(old.as_str(), &format!("{old}_v{step}")))
                .expect("rename symbol");
            format!("rename {old} in {shown}")
        }
        4 => {
            std::fs::remove_file(&file).expect("delete");
            format!("delete {shown}")
        }
        5 | 6 => {
            // Move, sometimes to a new directory, sometimes to another language.
            let new_ext = match (ext.as_str(), rng.below(3)) {
                ("ts", 0) => "tsx",
                ("tsx", 0) => "ts",
                ("js", 0) => "ts",
                (other, _) => other,
            };
            let dir = file.parent().unwrap_or(root);
            let dir = if rng.below(2) == 0 {
                dir.join(format!("moved{step}"))
            } else {
                dir.to_path_buf()
            };
            std::fs::create_dir_all(&dir).expect("mkdir");
            let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("f");
            let to = dir.join(format!("{stem}_{step}.{new_ext}"));
            std::fs::rename(&file, &to).expect("move");
            format!(
                "move {shown} to {}",
                to.strip_prefix(root).unwrap_or(&to).display()
            )
        }
        7 => {
            let dir = file.parent().unwrap_or(root);
            let to = dir.join(format!("added_{step}.{ext}"));
            let copy_of = &files[rng.below(files.len())];
            let text = if rng.below(2) == 0 && extension(copy_of) == ext {
                // Same content as another file: renames are paired by content hash.
                std::fs::read_to_string(copy_of).unwrap_or_default()
            } else {
                (0..1 + rng.below(3))
                    .map(|_| snippet(rng, &ext, &names))
                    .collect()
            };
            std::fs::write(&to, text).expect("add");
            format!("add {}", to.strip_prefix(root).unwrap_or(&to).display())
        }
        8 => {
            // Touched, not changed.
            let handle = std::fs::File::options()
                .write(true)
                .open(&file)
                .expect("open");
            handle
                .set_modified(std::time::SystemTime::now() + Duration::from_secs(5))
                .expect("touch");
            format!("touch {shown}")
        }
        9 => {
            let to = file.with_file_name(format!("blob_{step}.{ext}"));
            std::fs::write(&to, b"binary\0data").expect("binary");
            format!(
                "add binary {}",
                to.strip_prefix(root).unwrap_or(&to).display()
            )
        }
        _ => {
            // Ignore one file, or stop ignoring everything.
            let gitignore = root.join(".gitignore");
            if gitignore.exists() && rng.below(2) == 0 {
                std::fs::remove_file(&gitignore).expect("unignore");
                "remove .gitignore".to_owned()
            } else {
                std::fs::write(&gitignore, format!("{shown}\n")).expect("ignore");
                format!("ignore {shown}")
            }
        }
    }
}

#[test]
fn incremental_updates_equal_fresh_indexes() {
    let sequences = 32;
    let steps = 8;
    let (mut compared, mut patched, mut interface_patches) = (0, 0, 0);
    for seed in 0..sequences {
        let repo = mixed_repo();
        let root = repo.path();
        // Every other sequence keeps its declarations between updates, as `watch` does.
        let resident = (seed % 2 == 1).then(ResidentDeclarations::new);
        let options = |full: bool| BuildOptions {
            resident: resident.clone(),
            ..options(full)
        };
        build_index(root, &options(false), &|_| {}).expect("first build");
        let mut rng = SplitMix64::new(seed);
        let mut history = Vec::new();
        for step in 0..steps {
            // A third of the steps only edit bodies (a patch, mostly), a third only edit
            // interfaces (a patch that resolves what the edits reach, mostly), a third
            // change anything.
            let mode = rng.below(3);
            let body_only = mode == 0;
            let mut edited = Vec::new();
            let before: Vec<(std::path::PathBuf, Vec<u8>)> = source_files(root)
                .into_iter()
                .map(|f| {
                    let text = std::fs::read(&f).unwrap_or_default();
                    (f, text)
                })
                .collect();
            for _ in 0..1 + rng.below(3) {
                if mode == 1 {
                    history.push(interface_edit(&mut rng, root, step));
                } else if body_only {
                    let files = source_files(root);
                    if let Some(file) = files.get(rng.below(files.len().max(1))) {
                        history.push(body_edit(&mut rng, file, step));
                        edited.push(file.canonicalize().expect("canonical path"));
                    }
                } else {
                    history.push(mutate(&mut rng, root, step));
                }
            }
            if mode == 1 {
                // Interface edits only modify files: those whose bytes differ now.
                edited = before
                    .iter()
                    .filter(|(f, text)| std::fs::read(f).ok().as_ref() != Some(text))
                    .map(|(f, _)| f.canonicalize().expect("canonical path"))
                    .collect();
            }
            // Sometimes say which files changed, as the watcher and the agent do (a
            // wrong or partial hint is the caller's bug, so only true hints are given).
            let mut build = options(false);
            if mode != 2 && rng.below(2) == 0 {
                build.changed_paths = Some(edited);
                history.push("(hinted)".to_owned());
            }
            let summary = build_index(root, &build, &|_| {}).unwrap_or_else(|e| {
                panic!("seed {seed}: update failed: {e:?}\n{}", history.join("\n"))
            });
            assert!(summary.incremental, "seed {seed}: update was a rebuild");
            patched += usize::from(summary.patched);
            interface_patches += usize::from(summary.patched && summary.resolved_files > 0);
            let updated = Index::open(root).expect("open").dump().expect("dump");
            let fresh = fresh_dump(root);
            if updated != fresh {
                let diff: Vec<String> = diff_lines(&updated, &fresh);
                panic!(
                    "seed {seed} step {step}: updated index differs from a fresh one\nchanges: {history:#?}\n{}",
                    diff.join("\n")
                );
            }
            compared += 1;
        }
    }
    assert_eq!(compared, sequences * steps as u64);
    eprintln!(
        "{compared} updates compared with fresh indexes, {patched} of them patches, \
         {interface_patches} of those after interface edits"
    );
    // Every update path was exercised: patches of body edits, patches of interface edits
    // (definitions and imports added, removed, renamed), full resolutions.
    assert!(
        patched > 10 && patched < compared as usize,
        "{patched}/{compared}"
    );
    assert!(
        interface_patches > 10 && interface_patches < patched,
        "{interface_patches}/{patched}"
    );
}

fn diff_lines(updated: &str, fresh: &str) -> Vec<String> {
    let a: std::collections::BTreeSet<&str> = updated.lines().collect();
    let b: std::collections::BTreeSet<&str> = fresh.lines().collect();
    a.difference(&b)
        .map(|l| format!("- updated only: {l}"))
        .chain(b.difference(&a).map(|l| format!("+ fresh only:   {l}")))
        .take(40)
        .collect()
}

#[test]
fn an_interface_edit_is_a_patch_that_resolves_only_the_files_it_reaches() {
    let repo = mixed_repo();
    let root = repo.path();
    build_index(root, &options(false), &|_| {}).expect("first build");
    // A function inserted before every definition of config.rs (each of its symbols moves
    // to a new id) and one renamed; session.rs uses `Config` and is not edited.
    let config = root.join("rust-basic/src/config.rs");
    let text = std::fs::read_to_string(&config).expect("read");
    let edited = text
        .replacen(
            "/// Settings",
            "pub fn inserted_first() {}\n\n/// Settings",
            1,
        )
        .replace("fn default_retries", "fn default_attempts")
        .replace("default_retries()", "default_attempts()");
    std::fs::write(&config, edited).expect("edit");
    let output = mcursor(root, &["--json", "index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(json["patched"], true, "{json}");
    let (resolved, files) = (json["resolved_files"].as_u64(), json["files"].as_u64());
    assert!(
        resolved.is_some_and(|r| r >= 1) && resolved < files,
        "{resolved:?} of {files:?} files resolved again"
    );
    // The untouched file's reference follows `Config` to its new id.
    let refs = stdout(&mcursor(root, &["refs", "Config"]));
    assert!(refs.contains("rust-basic/src/session.rs:1"), "{refs}");
    // Export walks every id, the fresh ones past the base's included.
    let exported = |root: &Path| -> Vec<String> {
        let index = Index::open(root).expect("open");
        let mut names: Vec<String> = index
            .export_symbols()
            .map(|s| {
                format!(
                    "{} {}:{}",
                    s.symbol.qualified_name, s.symbol.path, s.symbol.line
                )
            })
            .collect();
        names.sort();
        names
    };
    let patched = exported(root);
    assert!(
        patched
            .iter()
            .any(|s| s.starts_with("config::inserted_first ")),
        "{patched:?}"
    );
    let copy = tempfile::tempdir().expect("tempdir");
    copy_tree(root, copy.path());
    build_index(copy.path(), &options(true), &|_| {}).expect("fresh build");
    assert_eq!(patched, exported(copy.path()));
    assert_equals_fresh(root);
    // A body edit on top of it is a patch again, over the same base.
    let text = std::fs::read_to_string(&config).expect("read") + "// note\n";
    std::fs::write(&config, text).expect("edit");
    let output = mcursor(root, &["--json", "index"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(
        (json["patched"].as_bool(), json["resolved_files"].as_u64()),
        (Some(true), Some(0)),
        "{json}"
    );
    assert_equals_fresh(root);
}

/// An interface patch takes the container heads of the files it does not resolve again
/// from their memos (`impl Square` evaluated once, at the full build). Here the type such
/// a head names moves to a new id: its file gains a function before it, and the file with
/// the `impl` names nothing that changed. The head must follow the type, not keep its
/// old place in the file (where the new function now is).
#[test]
fn recorded_container_heads_follow_their_types_to_new_ids() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    let files = [
        ("Cargo.toml", "[package]\nname = \"geo\"\n"),
        (
            "src/lib.rs",
            "pub mod area;\npub mod report;\npub mod shapes;\n",
        ),
        (
            "src/shapes.rs",
            "pub struct Square {\n    pub side: f64,\n}\n\npub trait Named {\n    fn name(&self) -> String;\n}\n",
        ),
        (
            "src/area.rs",
            "use crate::shapes::{Named, Square};\n\nimpl Square {\n    pub fn area(&self) -> f64 {\n        self.side * self.side\n    }\n}\n\nimpl Named for Square {\n    fn name(&self) -> String {\n        String::from(\"square\")\n    }\n}\n",
        ),
        (
            "src/report.rs",
            "use crate::shapes::{Named, Square};\n\npub fn report(s: &Square) -> String {\n    format!(\"{} {}\", s.name(), s.area())\n}\n",
        ),
    ];
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    build_index(root, &options(false), &|_| {}).expect("first build");
    let shapes = root.join("src/shapes.rs");
    let text = std::fs::read_to_string(&shapes).expect("read");
    std::fs::write(
        &shapes,
        format!("pub fn unit() -> f64 {{\n    1.0\n}}\n\n{text}"),
    )
    .expect("edit");
    let summary = build_index(root, &options(false), &|_| {}).expect("update");
    assert!(
        summary.patched && summary.resolved_files > 0 && summary.resolved_files < 5,
        "{summary:?}"
    );
    let refs = stdout(&mcursor(root, &["refs", "area"]));
    assert!(refs.contains("src/report.rs:4"), "{refs}");
    assert_equals_fresh(root);
}

/// A chain of glob re-exports longer than a chase may follow (`m0` → … → `m9`), used from
/// its far end (`a.rs`, resolved first: the chase runs out of steps) and near its end
/// (`z.rs`): `z`'s use resolves whatever was chased before it, in a full build on one
/// thread as in a patch of `z` alone. (A chase remembered from `a`'s walk once answered
/// `z` with `a`'s miss: a full build left `Target` a name match, a patch resolved it.)
#[test]
fn a_reexport_chain_resolves_alike_whatever_was_chased_before() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    let mut files = vec![
        (
            "Cargo.toml".to_owned(),
            "[package]\nname = \"chain\"\n".to_owned(),
        ),
        (
            "src/a.rs".to_owned(),
            "use crate::m0::Target;\n\npub fn from_the_far_end(_: Target) {}\n".to_owned(),
        ),
        (
            "src/z.rs".to_owned(),
            "use crate::m7::Target;\n\npub fn from_near_the_end(_: Target) {}\n".to_owned(),
        ),
        ("src/m9.rs".to_owned(), "pub struct Target;\n".to_owned()),
    ];
    let mut lib = String::from("pub mod a;\npub mod z;\n");
    for i in 0..10 {
        lib.push_str(&format!("pub mod m{i};\n"));
        if i < 9 {
            files.push((
                format!("src/m{i}.rs"),
                format!("pub use crate::m{}::*;\n", i + 1),
            ));
        }
    }
    files.push(("src/lib.rs".to_owned(), lib));
    for (path, text) in &files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }
    let one_thread = |full: bool| BuildOptions {
        threads: 1,
        full,
        ..BuildOptions::default()
    };
    build_index(root, &one_thread(true), &|_| {}).expect("full build");
    let resolved_in_z = || {
        let refs = stdout(&mcursor(root, &["refs", "Target"]));
        refs.lines()
            .filter(|l| l.starts_with("src/z.rs") && !l.contains("heuristic"))
            .count()
    };
    assert_eq!(
        resolved_in_z(),
        2,
        "both uses in z.rs resolved by the full build"
    );
    let z = root.join("src/z.rs");
    let text = std::fs::read_to_string(&z).expect("read");
    std::fs::write(&z, format!("{text}pub fn added() {{}}\n")).expect("edit");
    let summary = build_index(root, &one_thread(false), &|_| {}).expect("update");
    assert!(summary.patched, "{summary:?}");
    assert_eq!(
        resolved_in_z(),
        2,
        "both uses in z.rs resolved by the patch"
    );
    assert_equals_fresh(root);
}

/// A crate of three modules under `root`: `a` (`one`), `b` (`two`, `three`) and `c`
/// (`c_text`, which uses them).
fn three_modules(root: &Path, c_text: &str) {
    let write = |path: &str, text: &str| std::fs::write(root.join(path), text).expect("write");
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    write("src/lib.rs", "mod a;\nmod b;\nmod c;\n");
    write("src/a.rs", "pub fn one() {}\n");
    write("src/b.rs", "pub fn two() {}\npub fn three() {}\n");
    write("src/c.rs", c_text);
}

/// A patch that empties a file, then one over the same base that gives an earlier file
/// fresh ids: the emptied file's carried range starts inside the earlier file's (the
/// reader once took that for overlapping ranges and refused the index as corrupt).
#[test]
fn a_file_emptied_by_a_patch_does_not_collide_with_later_fresh_ids() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    let write = |path: &str, text: &str| std::fs::write(root.join(path), text).expect("write");
    three_modules(
        root,
        "pub fn uses() { crate::a::one(); crate::b::two(); }\n",
    );
    build_index(root, &options(false), &|_| {}).expect("first build");
    write("src/b.rs", "// nothing left\n");
    let emptied = build_index(root, &options(false), &|_| {}).expect("update");
    write("src/a.rs", "pub fn zero() {}\npub fn one() {}\n");
    let grown = build_index(root, &options(false), &|_| {}).expect("second update");
    assert!(
        emptied.patched && grown.patched,
        "not patches: the case is not exercised"
    );
    assert_equals_fresh(root);
}

/// Builds `root` with its declarations and tables held between updates (as `watch`
/// holds them), then writes each step's file and updates: each update must be a patch
/// and equal a fresh index.
fn held_patches_equal_fresh(root: &Path, steps: &[(&str, String)]) {
    let held = BuildOptions {
        resident: Some(ResidentDeclarations::new()),
        ..options(false)
    };
    build_index(root, &held, &|_| {}).expect("first build");
    for (path, text) in steps {
        std::fs::write(root.join(path), text).expect("write");
        let summary = build_index(root, &held, &|_| {}).expect("update");
        assert!(
            summary.patched,
            "{path}: not a patch, the case is not exercised"
        );
        assert_equals_fresh(root);
    }
}

/// Interface patches with the resolver's tables held between them, as `watch` holds
/// them: a file that gains a definition stays within the room its ids have, one that
/// gains many outgrows it (the tables are made again), names vanish and come back; each
/// update equals a fresh index (and debug builds compare the tables brought up to date
/// with tables made from scratch).
#[test]
fn held_tables_follow_files_that_grow_past_their_room_and_shrink() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    three_modules(
        root,
        "pub fn uses() { crate::a::one(); crate::b::two(); crate::b::three(); }\n",
    );
    let many: String = (0..12)
        .map(|i| format!("pub fn many_{i}() {{}}\n"))
        .collect();
    let steps = [
        ("src/a.rs", "pub fn one() {}\npub fn two() {}\n".to_owned()),
        ("src/a.rs", format!("pub fn one() {{}}\n{many}")),
        ("src/b.rs", "pub fn three() {}\n".to_owned()),
        (
            "src/b.rs",
            "pub fn two() {}\npub fn three() {}\n".to_owned(),
        ),
        ("src/a.rs", "pub fn one() {}\n".to_owned()),
    ];
    held_patches_equal_fresh(root, &steps);
}

/// Held tables keep the type index and bring it up to date by the files that changed:
/// members inserted before others (their ids move within the file), renamed, a trait
/// implemented for an outside type and no more, a deref target changed and a trait impl
/// added (a blanket impl changed is resolved in full, so it stays); each update equals a fresh index (and debug builds compare the
/// index brought up to date with one merged afresh).
#[test]
fn a_held_type_index_follows_member_trait_and_deref_edits() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    let write = |path: &str, text: &str| std::fs::write(root.join(path), text).expect("write");
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    write(
        "src/lib.rs",
        "mod circle;\nmod ext;\nmod shapes;\nmod wrap;\n",
    );
    // The trait last, so that a method appended to it moves no type's id.
    let shapes = |extra: &str, area: &str, trait_extra: &str| {
        format!(
            "pub struct Square;\n\
             impl Shape for Square {{\n{extra}    fn {area}(&self) -> u32 {{ 4 }}\n}}\n\
             impl Square {{\n    pub fn side(&self) -> u32 {{ self.{area}() }}\n}}\n\
             pub trait Shape {{\n{extra}    fn {area}(&self) -> u32;\n    fn name(&self) -> u32 {{ 0 }}\n{trait_extra}}}\n"
        )
    };
    write("src/shapes.rs", &shapes("", "area", ""));
    // A method the trait does not have yet: it overrides one once the trait gains it.
    write(
        "src/circle.rs",
        "use crate::shapes::Shape;\npub struct Circle;\n\
         impl Shape for Circle {\n    fn area(&self) -> u32 { 3 }\n    fn rim(&self) -> u32 { 6 }\n}\n",
    );
    let ext = |extra: &str| {
        format!(
            "pub trait Loud {{ fn shout(&self) -> u32; }}\n\
             impl Loud for String {{ fn shout(&self) -> u32 {{ 1 }} }}\n{extra}"
        )
    };
    let blanket =
        "impl<T: crate::shapes::Shape> Loud for T { fn shout(&self) -> u32 { self.name() } }\n";
    write("src/ext.rs", &ext(blanket));
    let wrap = |target: &str| {
        format!(
            "use crate::ext::Loud;\nuse crate::shapes::{{Shape, Square}};\n\
             pub struct Boxed(Square);\n\
             impl std::ops::Deref for Boxed {{\n    type Target = {target};\n    \
             fn deref(&self) -> &{target} {{ todo!() }}\n}}\n\
             pub fn use_it(b: Boxed, s: String) -> u32 {{ s.shout() + b.side() + b.name() }}\n"
        )
    };
    write("src/wrap.rs", &wrap("Square"));
    let perimeter = "    fn perimeter(&self) -> u32 { 0 }\n";
    let steps = [
        (
            "src/shapes.rs",
            shapes("", "area", "    fn rim(&self) -> u32;\n"),
        ),
        ("src/shapes.rs", shapes(perimeter, "area", "")),
        ("src/shapes.rs", shapes(perimeter, "size", "")),
        (
            "src/ext.rs",
            ext(&format!(
                "{blanket}impl Loud for Vec<u8> {{ fn shout(&self) -> u32 {{ 2 }} }}\n"
            )),
        ),
        ("src/ext.rs", ext(blanket)),
        ("src/wrap.rs", wrap("String")),
        (
            "src/wrap.rs",
            format!(
                "{}impl Loud for Boxed {{ fn shout(&self) -> u32 {{ 3 }} }}\n",
                wrap("Square")
            ),
        ),
        ("src/shapes.rs", shapes("", "area", "")),
    ];
    held_patches_equal_fresh(root, &steps);
}

/// More edited files than a patch takes, after an earlier patch: the update resolves in
/// full and sees every edit (it once patched none of them and reported success).
#[test]
fn edits_past_the_patch_limit_after_a_patch_are_all_indexed() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::write(
        root.join("Cargo.toml"),
        "[package]\nname = \"many\"\nversion = \"0.1.0\"\n",
    )
    .expect("write");
    // One more file than a patch can hold, besides the one patched first.
    let files = 1001;
    for i in 0..=files {
        std::fs::write(
            root.join(format!("src/f{i}.rs")),
            format!("pub fn f{i}() {{}}\n"),
        )
        .expect("write");
    }
    build_index(root, &options(true), &|_| {}).expect("first build");
    let add = |i: usize| {
        let path = root.join(format!("src/f{i}.rs"));
        let text = std::fs::read_to_string(&path).expect("read");
        std::fs::write(&path, format!("{text}pub fn added{i}() {{}}\n")).expect("edit");
    };
    add(0);
    let output = mcursor(root, &["--json", "index"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(json["patched"], true, "{json}");
    (1..=files).for_each(add);
    let output = mcursor(root, &["--json", "index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    let summary = (json["patched"].as_bool(), json["symbols"].as_u64());
    assert_eq!(summary, (Some(false), Some(2 * (files as u64 + 1))));
    for i in [0, 1, files / 2, files] {
        let found = stdout(&mcursor(root, &["find", &format!("added{i}")]));
        assert!(
            found.contains(&format!("src/f{i}.rs:2")),
            "added{i}: {found}"
        );
    }
    assert_equals_fresh(root);
}

#[test]
fn the_summary_says_what_changed() {
    let repo = mixed_repo();
    let root = repo.path();
    let output = mcursor(root, &["index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let rust = root.join("rust-basic/src");
    std::fs::write(
        rust.join("config.rs"),
        std::fs::read_to_string(rust.join("config.rs")).expect("read") + "\npub fn more() {}\n",
    )
    .expect("edit");
    std::fs::rename(rust.join("session.rs"), rust.join("session2.rs")).expect("rename");
    std::fs::remove_file(root.join("js-basic/lib/math.js")).expect("delete");
    std::fs::write(rust.join("added.rs"), "pub fn added() {}\n").expect("add");

    let output = mcursor(root, &["index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.contains("1 changed, 1 added, 1 deleted, 1 renamed"),
        "{text}"
    );
    assert!(
        text.contains("rust-basic/src/session2.rs  renamed from rust-basic/src/session.rs"),
        "{text}"
    );

    std::fs::write(rust.join("added.rs"), "pub fn added_again() {}\n").expect("edit");
    let output = mcursor(root, &["--json", "index"]);
    let json: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(json["incremental"], true);
    assert_eq!(json["changes"]["modified"], 1);
    assert_eq!(
        json["changes"]["files"][0]["path"],
        "rust-basic/src/added.rs"
    );
    assert_eq!(json["changes"]["files"][0]["change"], "modified");
    let (code, found) = (
        mcursor(root, &["find", "added_again"]).status.code(),
        stdout(&mcursor(root, &["find", "added_again"])),
    );
    assert_eq!(code, Some(0), "{found}");

    let output = mcursor(root, &["index"]);
    assert!(
        stdout(&output).contains("index is current"),
        "{}",
        stdout(&output)
    );
}

/// A tree large enough that an update takes a while, so kills land inside it.
fn sizable_repo(root: &Path) {
    let config = mcursor_synth::SynthConfig {
        lang: mcursor_synth::SynthLang::Rust,
        files: 300,
        seed: 11,
    };
    mcursor_synth::generate(&config, root).expect("generate");
}

#[test]
fn killed_updates_leave_an_index_that_opens_and_then_equals_a_fresh_one() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    sizable_repo(root);
    let output = mcursor(root, &["index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let files = source_files(root);
    let mut rng = SplitMix64::new(99);

    // How long an uninterrupted update of this kind takes, to spread the kills over it.
    // Odd runs add functions (a full resolution), even runs only add comments (a patch).
    let change = |rng: &mut SplitMix64, i: usize| {
        for _ in 0..5 {
            let file = &files[rng.below(files.len())];
            let mut text = std::fs::read_to_string(file).unwrap_or_default();
            if i % 2 == 1 {
                text.push_str(&format!("\npub fn killed_{i}_{}() {{}}\n", rng.below(1000)));
            } else {
                text.insert_str(0, &format!("// run {i}\n"));
            }
            std::fs::write(file, text).expect("edit");
        }
    };
    change(&mut rng, 0);
    let started = Instant::now();
    let output = mcursor(root, &["index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let span = started.elapsed().as_millis().max(20) as u64;

    let runs = 40;
    let (mut opened, mut equal) = (0, 0);
    for i in 1..=runs {
        change(&mut rng, i);
        let mut child = mcursor_command(root, &["index"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(rng.below(span as usize) as u64));
        let _ = child.kill();
        let _ = child.wait();
        let found = mcursor(root, &["find", "killed_0_0", "--json"]);
        // 0 or 1 (found or not): the index opened. 2 would be a damaged index.
        if matches!(found.status.code(), Some(0 | 1)) {
            opened += 1;
        } else {
            eprintln!("run {i}: {}", stderr(&found));
        }
        let output = mcursor(root, &["index"]);
        assert!(output.status.success(), "{}", stderr(&output));
        let updated = Index::open(root).expect("open").dump().expect("dump");
        if updated == fresh_dump(root) {
            equal += 1;
        }
    }
    eprintln!(
        "killed {runs} updates at random points of {span} ms: opened {opened}/{runs}, equal to a fresh index after the next run {equal}/{runs}"
    );
    assert_eq!(opened, runs);
    assert_eq!(equal, runs);
}

#[test]
fn queries_during_updates_see_the_old_or_the_new_generation() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path().to_path_buf();
    sizable_repo(&root);
    build_index(&root, &options(false), &|_| {}).expect("first build");
    let files = source_files(&root);
    let probe = files[0].clone();
    let relative = probe
        .strip_prefix(&root)
        .expect("inside")
        .to_string_lossy()
        .into_owned();
    let name = names_in_file(&probe);

    let writer_root = root.clone();
    let writer = std::thread::spawn(move || {
        let mut rng = SplitMix64::new(5);
        let mut patched = 0;
        for i in 0..24 {
            // Mostly body edits of the probe file (patches), sometimes a new function
            // somewhere (a full resolution).
            if i % 6 == 5 {
                let file = &files[1 + rng.below(files.len() - 1)];
                let mut text = std::fs::read_to_string(file).expect("read");
                text.push_str(&format!("\npub fn during_{i}() {{}}\n"));
                std::fs::write(file, text).expect("edit");
            } else {
                body_edit(&mut rng, &probe, i);
            }
            let summary = build_index(&writer_root, &options(false), &|_| {}).expect("update");
            patched += usize::from(summary.patched);
        }
        patched
    });
    let (mut answers, mut errors) = (0, Vec::new());
    while !writer.is_finished() {
        match Index::open(&root) {
            Ok(index) => {
                // Whatever generation this is, it opens and answers: the probe's
                // definition is in the probe file.
                let hits = index.find(&mcursor_index::FindQuery::exact(&name));
                if !hits.iter().any(|h| h.path == relative) {
                    errors.push(format!("{name} not found in {relative}: {hits:?}"));
                }
                answers += 1;
            }
            Err(e) => errors.push(e.to_string()),
        }
    }
    let patched = writer.join().expect("writer");
    eprintln!(
        "{answers} answers during 24 updates ({patched} patches), {} errors",
        errors.len()
    );
    assert!(errors.is_empty(), "{errors:?}");
    assert!(patched > 0 && answers > 24);
}

/// The first function a file defines.
fn names_in_file(file: &Path) -> String {
    let text = std::fs::read_to_string(file).expect("read");
    text.lines()
        .find_map(|l| {
            let rest = l.trim_start().strip_prefix("pub fn ")?;
            Some(
                rest.split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()?
                    .to_owned(),
            )
        })
        .expect("a pub fn")
}

/// A facts cache the update cannot use (here: another layout, as after an upgrade) costs
/// a parse of every unchanged file, which the summary counts and the text output says,
/// and the index still comes out as a fresh one.
#[test]
fn an_update_without_usable_cached_facts_parses_again_and_says_so() {
    let repo = tempfile::tempdir().expect("tempdir");
    let root = repo.path();
    copy_tree(&fixtures_dir().join("rust-basic"), root);
    let output = mcursor(root, &["index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let cache = root.join(".mcursor/facts.bin");
    let mut bytes = std::fs::read(&cache).expect("read the cache");
    // The layout version follows the magic and the store's format version.
    bytes[12] = bytes[12].wrapping_add(1);
    std::fs::write(&cache, bytes).expect("write");
    let edited = root.join("src/config.rs");
    append(&edited, "pub fn after_an_upgrade() {}\n");

    let output = mcursor(root, &["--json", "index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    // Every file has an entry (a text-only one records that it has no facts).
    let files = summary["files"].as_u64().expect("files");
    assert_eq!(
        summary["reparsed"].as_u64(),
        Some(files - 1),
        "every file but the edited one: {summary}"
    );
    assert_equals_fresh(root);

    // The next update has the cache again: nothing is parsed but the edit.
    append(&edited, "pub fn and_then() {}\n");
    let output = mcursor(root, &["index"]);
    assert!(
        !stdout(&output).contains("parsed again"),
        "{}",
        stdout(&output)
    );
    // Without the cache at all, the text output says it.
    std::fs::remove_file(&cache).expect("remove the cache");
    append(&edited, "pub fn once_more() {}\n");
    let output = mcursor(root, &["index"]);
    let text = stdout(&output);
    assert!(
        text.contains(&format!("{} unchanged files parsed again", files - 1)),
        "{text}"
    );
    assert_equals_fresh(root);
}

#[test]
fn index_changed_updates_named_files_and_falls_back_to_a_walk() {
    let repo = mixed_repo();
    let root = repo.path();
    let output = mcursor(root, &["index"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let config = root.join("rust-basic/src/config.rs");
    let text = std::fs::read_to_string(&config).expect("read");
    std::fs::write(&config, format!("// moved down\n{text}")).expect("edit");

    // A body edit of a named file: a patch, and the definition moved.
    let output = mcursor(
        root,
        &["--json", "index", "--changed", "rust-basic/src/config.rs"],
    );
    assert!(output.status.success(), "{}", stderr(&output));
    let summary: serde_json::Value = serde_json::from_str(&stdout(&output)).expect("json");
    assert_eq!(summary["patched"], true, "{summary}");
    let found = stdout(&mcursor(root, &["find", "parse_config", "--json"]));
    assert!(found.contains("\"line\":12"), "{found}");

    // A new file named with --changed is not in the index: the update walks the tree
    // (and finds the unnamed edit beside it too).
    std::fs::write(
        root.join("rust-basic/src/new.rs"),
        "pub fn brand_new() {}\n",
    )
    .expect("add");
    std::fs::write(root.join("rust-basic/src/lib.rs"), "pub fn lib_only() {}\n").expect("edit");
    let output = mcursor(root, &["index", "--changed", "rust-basic/src/new.rs"]);
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("1 changed, 1 added"),
        "{}",
        stdout(&output)
    );
    for name in ["brand_new", "lib_only"] {
        assert_eq!(
            mcursor(root, &["find", name]).status.code(),
            Some(0),
            "{name}"
        );
    }
    assert_eq!(
        Index::open(root).expect("open").dump().expect("dump"),
        fresh_dump(root)
    );
}
