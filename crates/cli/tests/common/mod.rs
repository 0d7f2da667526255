//! Helpers shared by the CLI integration tests: fixture copies and running the binary.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub fn fixtures_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures")
}

/// A private copy of `fixtures/<name>` in a temporary directory (tests never write into
/// the repository).
pub fn fixture(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    copy_tree(&fixtures_dir().join(name), dir.path());
    dir
}

pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("mkdir");
    for entry in std::fs::read_dir(from).expect("read fixture dir") {
        let entry = entry.expect("entry");
        let target = to.join(entry.file_name());
        if entry.file_type().expect("file type").is_dir() {
            if entry.file_name() == ".mcursor" {
                continue;
            }
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).expect("copy");
        }
    }
}

pub fn mcursor_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcursor"));
    command
        .arg("-C")
        .arg(dir)
        .args(args)
        .env_remove("NO_COLOR")
        .env("CLICOLOR", "0");
    command
}

pub fn mcursor(dir: &Path, args: &[&str]) -> Output {
    mcursor_command(dir, args).output().expect("run mcursor")
}

/// Appends `text` to the file at `path`.
pub fn append(path: &Path, text: &str) {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .append(true)
        .open(path)
        .expect("open for append");
    file.write_all(text.as_bytes()).expect("append");
}

pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// Runs `mcursor index` and asserts it succeeded.
pub fn index(dir: &Path) {
    let output = mcursor(dir, &["index"]);
    assert!(
        output.status.success(),
        "index failed: {}\n{}",
        stdout(&output),
        stderr(&output)
    );
}

/// Runs a query and returns (exit code, stdout).
pub fn query(dir: &Path, args: &[&str]) -> (i32, String) {
    let output = mcursor(dir, args);
    (output.status.code().unwrap_or(-1), stdout(&output))
}

/// Source files under `root` (not the index), sorted: a stable choice of what to edit.
pub fn source_files(root: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).expect("read dir").flatten() {
            let path = entry.path();
            if path.file_name().is_some_and(|n| n == ".mcursor") {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if std::fs::read_to_string(&path)
                .is_ok_and(|content| mcursor_syntax::Lang::of_file(&path, &content).is_some())
            {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// `mcursor -C DIR ask` against a scripted server at `base_url`, with the environment's
/// model settings removed (the caller adds flags, the question and more variables).
pub fn ask_command(dir: &Path, base_url: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_mcursor"));
    command
        .arg("-C")
        .arg(dir)
        .arg("ask")
        .args(["--base-url", base_url, "--model", "scripted"])
        .env_remove("MCURSOR_PRESET")
        .env_remove("MCURSOR_BASE_URL")
        .env_remove("MCURSOR_MODEL")
        .env_remove("MCURSOR_SANDBOX_SIMULATE_MISSING")
        .env("MCURSOR_API_KEY", "test-key")
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null());
    command
}
