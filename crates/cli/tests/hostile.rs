//! Hostile repositories and bad invocations: each case is indexed or skipped with a reason,
//! or rejected with a clear message and exit code 2. Never a panic, never a hang.

mod common;

use std::io::Write;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::{index, mcursor, mcursor_command, query, stderr, stdout};

fn write(dir: &Path, name: &str, bytes: &[u8]) {
    let path = dir.join(name);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).expect("mkdir");
    }
    std::fs::write(path, bytes).expect("write");
}

fn index_json(dir: &Path, extra: &[&str]) -> serde_json::Value {
    let mut args = vec!["index", "--json"];
    args.extend_from_slice(extra);
    let output = mcursor(dir, &args);
    assert!(
        output.status.success(),
        "index failed: {}{}",
        stdout(&output),
        stderr(&output)
    );
    serde_json::from_slice(&output.stdout).expect("index json")
}

fn skipped_reason(summary: &serde_json::Value, path: &str) -> Option<String> {
    summary["skipped_files"]
        .as_array()?
        .iter()
        .find(|s| s["path"] == path)
        .and_then(|s| s["reason"].as_str())
        .map(str::to_owned)
}

#[test]
fn hostile_files_are_indexed_or_skipped_with_a_reason() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    write(root, "src/good.rs", b"pub fn good_one() {}\n");
    write(root, "bin/blob.rs", b"fn a() {}\0\x01\x02binary");
    write(
        root,
        "src/latin1.rs",
        b"pub fn caf\xe9() {}\npub fn after_bad_bytes() {}\n",
    );
    let utf16: Vec<u8> = [0xFF, 0xFE]
        .into_iter()
        .chain(
            "pub fn from_utf16() {}\n"
                .encode_utf16()
                .flat_map(|u| u.to_le_bytes()),
        )
        .collect();
    write(root, "src/wide.rs", &utf16);
    // 100,000-deep nesting in each language, a definition after it (found below).
    let nest =
        |open: &str, close: &str| format!("{}1{}", open.repeat(100_000), close.repeat(100_000));
    for (path, code, open, close) in [
        (
            "src/deep.rs",
            "fn deep() { let x = NEST; }\npub fn after_deep() {}\n",
            "(",
            ")",
        ),
        (
            "web/deep.js",
            "const d = NEST;\nfunction afterDeepJs() {}\n",
            "[",
            "]",
        ),
        (
            "py/deep.py",
            "d = NEST\ndef after_deep_py():\n    pass\n",
            "[",
            "]",
        ),
        (
            "go/deep.go",
            "package deep\n\nvar d = NEST\n\nfunc AfterDeepGo() {}\n",
            "(",
            ")",
        ),
        (
            "java/Deep.java",
            "class Deep { int d = NEST; }\nclass AfterDeepJava {}\n",
            "(",
            ")",
        ),
        (
            "cs/Deep.cs",
            "class Deep { int d = NEST; }\nclass AfterDeepCSharp {}\n",
            "(",
            ")",
        ),
        (
            "c/deep.c",
            "int deep = NEST;\nint after_deep_c(void) { return 1; }\n",
            "(",
            ")",
        ),
        (
            "cpp/deep.cpp",
            "namespace deep { int d = NEST; }\nclass AfterDeepCpp { int m(); };\nint AfterDeepCpp::m() { return m(); }\n",
            "(",
            ")",
        ),
        (
            "php/deep.php",
            "<?php\n$d = NEST;\nfunction after_deep_php() { return 1; }\n",
            "(",
            ")",
        ),
        (
            "rb/deep.rb",
            "D = NEST\ndef after_deep_ruby\n  1\nend\n",
            "[",
            "]",
        ),
        (
            "kt/Deep.kt",
            "package deep\nval d = NEST\nfun afterDeepKotlin() = 1\n",
            "(",
            ")",
        ),
        (
            "lua/deep.lua",
            "local d = NEST\nfunction after_deep_lua() return 1 end\n",
            "(",
            ")",
        ),
        (
            "sh/deep.sh",
            "deep() { NEST; }\nafter_deep_sh() { :; }\n",
            "(",
            ")",
        ),
    ] {
        write(
            root,
            path,
            code.replace("NEST", &nest(open, close)).as_bytes(),
        );
    }
    // Export macros everywhere, and a class keyword with nothing after it.
    write(
        root,
        "cpp/macros.hpp",
        b"struct EXPORT AfterMacrosCpp final : Base {};\nclass A B C D {\nclass EXPORT\nclass",
    );
    // A module that includes itself, a class that is its own superclass.
    write(
        root,
        "rb/cycle.rb",
        b"module Loop\n  include Loop\n  def in_loop; in_loop; end\nend\nclass Own < Own\n  include Loop\n  def f; in_loop; missing; end\nend\n",
    );
    write(
        root,
        "php/cycle.php",
        b"<?php\ntrait T { use T; function in_trait_cycle() { return $this->in_trait_cycle(); } }\nclass C extends C { use T; }\n",
    );
    // Scripts that source each other and themselves; a script of unclosed `[[` and `${`
    // (what the shell parse view scans; in a comment, so that the parse itself is quick).
    write(
        root,
        "sh/a.sh",
        b"source ./b.sh\nsource ./a.sh\nin_a_sh() { in_b_sh; }\n",
    );
    write(root, "sh/b.sh", b". ./a.sh\nin_b_sh() { in_a_sh; }\n");
    write(
        root,
        "sh/unclosed.sh",
        format!(
            "# {}\nafter_unclosed_sh() {{ :; }}\n",
            "[[ ${x,, ".repeat(100_000)
        )
        .as_bytes(),
    );
    // Headers that include each other and themselves.
    write(
        root,
        "c/a.h",
        b"#include \"b.h\"\n#include \"a.h\"\nint in_a(void);\n",
    );
    write(
        root,
        "c/b.h",
        b"#include \"a.h\"\nstatic int in_b_cycle(void) { return in_a(); }\n",
    );
    write(
        root,
        "py/broken.py",
        b"def broken(:\n    pass\nclass Half(\ndef after_broken_py():\n    return 1\n",
    );
    let mut minified = String::from("function minifiedEntry(){");
    while minified.len() < 3 * 1024 * 1024 {
        minified.push_str("var a=function(b){return b+1};a(2);");
    }
    minified.push('}');
    write(root, "web/big.min.js", minified.as_bytes());
    write(root, "web/huge.js", &vec![b'x'; 2 * 1024 * 1024]);
    // A file name that is not UTF-8.
    {
        use std::os::unix::ffi::OsStrExt;
        let name = std::ffi::OsStr::from_bytes(b"src/bad\xffname.rs");
        std::fs::write(root.join(name), b"fn hidden_by_name() {}").expect("write");
    }
    // A FIFO: reading it would block forever.
    let fifo = root.join("src/pipe.rs");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    let have_fifo = made.map(|s| s.success()).unwrap_or(false);
    // Symlinks: a loop, one pointing out of the repository, one to a file inside.
    std::os::unix::fs::symlink(root.join("loop_b"), root.join("loop_a")).expect("symlink");
    std::os::unix::fs::symlink(root.join("loop_a"), root.join("loop_b")).expect("symlink");
    std::os::unix::fs::symlink("/etc", root.join("outside")).expect("symlink");
    std::os::unix::fs::symlink(root.join("src/good.rs"), root.join("src/alias.rs"))
        .expect("symlink");
    write(root, ".gitignore", b"ignored/\n");
    write(root, "ignored/secret.rs", b"pub fn ignored_fn() {}");
    write(root, ".mcursorignore", b"vendor/\n");
    write(root, "vendor/dep.rs", b"pub fn vendored_fn() {}");
    write(root, ".hidden/h.rs", b"pub fn hidden_fn() {}");

    let started = Instant::now();
    let summary = index_json(
        root,
        &["--max-file-size", "8388608", "--parse-timeout-ms", "3000"],
    );
    assert!(
        started.elapsed() < Duration::from_secs(120),
        "indexing hung"
    );

    for name in [
        "good_one",
        "after_bad_bytes",
        "from_utf16",
        "after_deep",
        "afterDeepJs",
        "after_deep_py",
        "after_broken_py",
        "AfterDeepGo",
        "AfterDeepJava",
        "AfterDeepCSharp",
        "after_deep_c",
        "in_b_cycle",
        "AfterDeepCpp::m",
        "AfterMacrosCpp",
        "after_deep_php",
        "after_deep_ruby",
        "Loop::in_loop",
        "in_trait_cycle",
        "afterDeepKotlin",
        "after_deep_sh",
        "in_a_sh",
        "in_b_sh",
        "after_unclosed_sh",
        "after_deep_lua",
    ] {
        let (code, out) = query(root, &["find", name]);
        assert_eq!(code, 0, "{name} not found: {out}");
    }
    assert_eq!(
        skipped_reason(&summary, "bin/blob.rs").as_deref(),
        Some("binary (contains a NUL byte)")
    );
    assert!(
        skipped_reason(&summary, "src/bad\u{FFFD}name.rs")
            .is_some_and(|r| r.contains("not valid UTF-8")),
        "{summary}"
    );
    if have_fifo {
        assert!(
            skipped_reason(&summary, "src/pipe.rs")
                .is_some_and(|r| r.contains("not a regular file")),
            "{summary}"
        );
    }
    assert!(skipped_reason(&summary, "outside").is_some_and(|r| r.contains("symbolic link")));
    assert!(skipped_reason(&summary, "loop_a").is_some_and(|r| r.contains("symbolic link")));
    assert!(skipped_reason(&summary, "src/alias.rs").is_some_and(|r| r.contains("symbolic link")));
    // The minified file is within the raised limit: parsed (or, if slow, text-only).
    let (code, _) = query(root, &["search", "minifiedEntry"]);
    assert_eq!(code, 0);
    for name in ["ignored_fn", "vendored_fn", "hidden_fn", "hidden_by_name"] {
        let (code, _) = query(root, &["find", name]);
        assert_eq!(code, 1, "{name} must not be indexed");
    }
    // Nothing outside the root was read: /etc's files are not in the index.
    let (code, _) = query(
        root,
        &["search", "--regex", "root:x:0:0", "--path", "outside/**"],
    );
    assert_eq!(code, 1);

    // Without a limit an update keeps the index's (the big file stays indexed); with the
    // 1 MiB default given explicitly, the big files are skipped as too large.
    index_json(root, &[]);
    let (code, _) = query(root, &["search", "minifiedEntry"]);
    assert_eq!(code, 0, "the index's 8 MiB limit was not kept");
    let summary = index_json(root, &["--max-file-size", "1048576"]);
    assert_eq!(
        skipped_reason(&summary, "web/huge.js").as_deref(),
        Some("larger than the size limit")
    );
    assert!(skipped_reason(&summary, "web/big.min.js").is_some());
}

#[test]
fn a_parse_that_runs_past_its_deadline_is_reported_not_fatal() {
    let dir = tempfile::tempdir().expect("tempdir");
    let mut big = String::new();
    for i in 0..12_000 {
        big.push_str(&format!(
            "pub fn function_number_{i}(x: u32) -> u32 {{ x + {i} }}\n"
        ));
    }
    write(dir.path(), "src/lib.rs", big.as_bytes());
    let summary = index_json(dir.path(), &["--parse-timeout-ms", "1"]);
    assert_eq!(summary["timed_out"][0], "src/lib.rs", "{summary}");
    // Still findable by text search.
    let (code, _) = query(dir.path(), &["search", "function_number_5"]);
    assert_eq!(code, 0);
}

#[test]
fn bad_paths_and_damaged_indexes_exit_2_with_a_clear_message() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();

    let missing = root.join("nope");
    let output = mcursor(root, &["index", missing.to_str().unwrap_or("nope")]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no such file or directory"),
        "{}",
        stderr(&output)
    );

    write(root, "file.rs", b"fn f() {}");
    let output = mcursor(root, &["index", "file.rs"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("not a directory"),
        "{}",
        stderr(&output)
    );

    let output = mcursor(root, &["find", "f"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("run `mcursor index`"),
        "{}",
        stderr(&output)
    );

    let output = mcursor(&root.join("nope"), &["find", "f"]);
    assert_eq!(output.status.code(), Some(2));

    index(root);
    // Damage the symbol store: every query must say so, and a rebuild repairs it.
    let index_dir = root.join(".mcursor");
    let graph = std::fs::read_dir(&index_dir)
        .expect("read index dir")
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("graph-"))
        })
        .expect("graph file");
    let bytes = std::fs::read(&graph).expect("read graph");
    std::fs::write(&graph, &bytes[..bytes.len() / 2]).expect("truncate");
    let output = mcursor(root, &["find", "f"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("damaged"), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("mcursor index --full"),
        "{}",
        stderr(&output)
    );
    std::fs::write(&graph, b"garbage").expect("write garbage");
    assert_eq!(mcursor(root, &["find", "f"]).status.code(), Some(2));
    index(root);
    assert_eq!(query(root, &["find", "f"]).0, 0);

    // An index written by another format version.
    std::fs::write(index_dir.join("FORMAT"), "mcursor index format 0\n").expect("write");
    let output = mcursor(root, &["find", "f"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("written by format 0, this mcursor reads format")
            && stderr(&output).contains("mcursor index --full"),
        "{}",
        stderr(&output)
    );
    index(root);
    assert_eq!(query(root, &["find", "f"]).0, 0);

    // The text index's commit file destroyed.
    std::fs::write(index_dir.join("text/meta.json"), b"{ not json").expect("write");
    let output = mcursor(root, &["search", "f"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("damaged"), "{}", stderr(&output));
    index(root);
    assert_eq!(query(root, &["search", "f"]).0, 0);

    // Bad patterns are errors, not crashes.
    let output = mcursor(root, &["search", "--regex", "(unclosed"]);
    assert_eq!(output.status.code(), Some(2));
    let output = mcursor(root, &["search", "f", "--path", "[z-a]"]);
    assert_eq!(output.status.code(), Some(2));
    let output = mcursor(root, &["refs", "file.rs:999:1"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("no indexed symbol"),
        "{}",
        stderr(&output)
    );
}

fn synthetic_repo(root: &Path, files: usize) {
    for i in 0..files {
        let mut text = String::new();
        for j in 0..40 {
            text.push_str(&format!(
                "pub fn item_{i}_{j}(x: u32) -> u32 {{ helper_{j}(x) + {j} }}\npub fn helper_{j}(x: u32) -> u32 {{ x }}\n"
            ));
        }
        write(root, &format!("src/m{i}.rs"), text.as_bytes());
    }
}

#[test]
fn a_second_writer_waits_or_refuses_and_nothing_is_corrupted() {
    let dir = tempfile::tempdir().expect("tempdir");
    synthetic_repo(dir.path(), 200);
    let mut first = mcursor_command(dir.path(), &["index"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn");
    // Whatever the timing, a second writer either waits its turn or (with --no-wait)
    // says who holds the lock; both indexes end up usable.
    std::thread::sleep(Duration::from_millis(30));
    let second = mcursor(dir.path(), &["index", "--no-wait"]);
    let code = second.status.code();
    assert!(
        code == Some(0) || (code == Some(2) && stderr(&second).contains("locked by")),
        "{}",
        stderr(&second)
    );
    let waited = mcursor(dir.path(), &["index"]);
    assert!(waited.status.success(), "{}", stderr(&waited));
    assert!(first.wait().expect("wait").success());
    assert_eq!(query(dir.path(), &["find", "item_3_7"]).0, 0);
}

#[test]
fn a_killed_index_run_leaves_a_usable_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    synthetic_repo(dir.path(), 120);
    index(dir.path());
    let mut opened = 0;
    let runs = 8;
    for i in 0..runs {
        // Change the tree so the killed run would have written something new.
        write(
            dir.path(),
            "src/extra.rs",
            format!("pub fn extra_{i}() {{}}").as_bytes(),
        );
        let mut child = mcursor_command(dir.path(), &["index"])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn");
        std::thread::sleep(Duration::from_millis(10 + 37 * i as u64));
        let _ = child.kill();
        let _ = child.wait();
        let (code, out) = query(dir.path(), &["find", "item_5_5"]);
        assert_eq!(code, 0, "run {i}: index unusable after kill: {out}");
        opened += 1;
    }
    assert_eq!(opened, runs);
    index(dir.path());
    let (code, _) = query(dir.path(), &["find", &format!("extra_{}", runs - 1)]);
    assert_eq!(code, 0);
}

#[test]
fn broken_pipes_are_not_errors() {
    let dir = tempfile::tempdir().expect("tempdir");
    synthetic_repo(dir.path(), 30);
    index(dir.path());
    let mut child = mcursor_command(dir.path(), &["search", "helper", "--limit", "100000"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    drop(child.stdout.take());
    let output = child.wait_with_output().expect("wait");
    assert!(
        output.status.code() == Some(0) || output.status.code() == Some(1),
        "{}",
        stderr(&output)
    );
    assert!(!stderr(&output).contains("panicked"));
    let _ = std::io::stderr().flush();
}

#[test]
fn queries_during_rebuilds_always_get_an_answer() {
    let dir = tempfile::tempdir().expect("tempdir");
    synthetic_repo(dir.path(), 150);
    index(dir.path());
    let root = dir.path().to_path_buf();
    let writer = std::thread::spawn(move || {
        for _ in 0..4 {
            let output = mcursor(&root, &["index", "--full"]);
            assert!(output.status.success(), "{}", stderr(&output));
        }
    });
    let mut answered = 0;
    let queries: [&[&str]; 2] = [&["refs", "helper_3"], &["search", "helper_3"]];
    while !writer.is_finished() {
        let args = queries[answered % 2];
        let output = mcursor(dir.path(), args);
        assert_eq!(
            output.status.code(),
            Some(0),
            "`mcursor {}` during a rebuild failed: {}",
            args.join(" "),
            stderr(&output)
        );
        answered += 1;
    }
    writer.join().expect("writer thread");
    assert!(answered > 0);
    eprintln!("{answered} queries answered during 4 rebuilds");
}
