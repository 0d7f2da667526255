//! The contenders: mcursor in-process, mcursor as a process, and the grep family, each run
//! the way a person or an agent would type it.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use mcursor_index::{FindQuery, Index, RefTarget, RefsQuery};

/// A `path:line` answer, path relative to the index root with `/`.
pub type Site = String;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Tool {
    McursorInProcess,
    Mcursor,
    Rg,
    GitGrep,
    Grep,
}

impl Tool {
    pub const ALL: [Tool; 5] = [
        Tool::McursorInProcess,
        Tool::Mcursor,
        Tool::Rg,
        Tool::GitGrep,
        Tool::Grep,
    ];

    /// The label for `question` (grep tools answer both questions with one run).
    pub fn label(self, question: Question) -> &'static str {
        match (self, question) {
            (Tool::McursorInProcess, Question::Definitions) => "mcursor find (in-process)",
            (Tool::McursorInProcess, Question::References) => "mcursor refs (in-process)",
            (Tool::Mcursor, Question::Definitions) => "mcursor find",
            (Tool::Mcursor, Question::References) => "mcursor refs",
            (Tool::Rg, _) => "rg -w",
            (Tool::GitGrep, _) => "git grep -w",
            (Tool::Grep, _) => "grep -rw",
        }
    }

    pub fn is_grep(self) -> bool {
        matches!(self, Tool::Rg | Tool::GitGrep | Tool::Grep)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Question {
    /// Where is NAME defined?
    Definitions,
    /// Where is NAME used?
    References,
}

impl Question {
    pub const ALL: [Question; 2] = [Question::Definitions, Question::References];

    pub fn as_str(self) -> &'static str {
        match self {
            Question::Definitions => "definitions",
            Question::References => "references",
        }
    }
}

/// One timed answer.
#[derive(Clone, Debug, Default)]
pub struct Answer {
    pub elapsed: Duration,
    /// Distinct `path:line` sites in the answer.
    pub sites: HashSet<Site>,
    /// What a reader of the output gets: lines and bytes of stdout (0 in-process).
    pub lines: usize,
    pub bytes: usize,
}

/// A program the benchmark runs, found on `PATH` (or `mcursor` itself).
#[derive(Clone, Debug)]
pub struct Programs {
    pub mcursor: PathBuf,
    pub available: Vec<Tool>,
    /// Why a tool is not in the run, in words for the report.
    pub skipped: Vec<String>,
}

fn runs_ok(program: &str, args: &[&str], cwd: &Path) -> bool {
    Command::new(program)
        .args(args)
        .current_dir(cwd)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

impl Programs {
    /// Which contenders this machine and this directory allow. A missing one is noted,
    /// never an error.
    pub fn detect(mcursor: PathBuf, root: &Path) -> Programs {
        let mut available = vec![Tool::McursorInProcess, Tool::Mcursor];
        let mut skipped = Vec::new();
        if runs_ok("rg", &["--version"], root) {
            available.push(Tool::Rg);
        } else {
            skipped.push("rg -w: ripgrep is not installed (not on PATH)".to_owned());
        }
        if !runs_ok("git", &["--version"], root) {
            skipped.push("git grep -w: git is not installed (not on PATH)".to_owned());
        } else if !runs_ok("git", &["rev-parse", "--is-inside-work-tree"], root) {
            skipped.push(format!(
                "git grep -w: {} is not inside a git work tree",
                root.display()
            ));
        } else {
            available.push(Tool::GitGrep);
        }
        if runs_ok("grep", &["--version"], root) {
            available.push(Tool::Grep);
        } else {
            skipped.push("grep -rw: GNU grep is not installed (not on PATH)".to_owned());
        }
        Programs {
            mcursor,
            available,
            skipped,
        }
    }
}

fn site(path: &str, line: u32) -> Site {
    format!("{path}:{line}")
}

/// Definitions through the query API, as `mcursor find` computes them, without a limit.
pub fn find_in_process(index: &Index, name: &str) -> Answer {
    let start = Instant::now();
    let hits = index.find(&FindQuery {
        limit: None,
        ..FindQuery::exact(name)
    });
    let elapsed = start.elapsed();
    Answer {
        elapsed,
        sites: hits.iter().map(|h| site(&h.path, h.line)).collect(),
        ..Answer::default()
    }
}

/// References through the query API, as `mcursor refs NAME` computes them (the source
/// line of every hit included), without a limit.
pub fn refs_in_process(index: &Index, name: &str) -> Answer {
    let start = Instant::now();
    let targets = index
        .targets(&RefTarget::Name(name.to_owned()))
        .unwrap_or_default();
    let hits = index.references(
        &targets,
        &RefsQuery {
            limit: None,
            ..RefsQuery::default()
        },
    );
    let elapsed = start.elapsed();
    Answer {
        elapsed,
        sites: hits.iter().map(|h| site(&h.path, h.line)).collect(),
        ..Answer::default()
    }
}

/// Lines and bytes of a finished process's output, and its `path\0line:` sites when the
/// tool was asked for NUL-separated file names.
fn answer_from_output(elapsed: Duration, stdout: &[u8], nul_paths: bool) -> Answer {
    let mut sites = HashSet::new();
    let mut lines = 0;
    for line in stdout.split(|b| *b == b'\n').filter(|l| !l.is_empty()) {
        lines += 1;
        if !nul_paths {
            continue;
        }
        let Some(nul) = line.iter().position(|b| *b == 0) else {
            continue;
        };
        let path = String::from_utf8_lossy(&line[..nul]);
        let path = path.strip_prefix("./").unwrap_or(&path);
        let rest = &line[nul + 1..];
        let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if let Some(number) = std::str::from_utf8(&rest[..digits])
            .ok()
            .and_then(|d| d.parse::<u32>().ok())
        {
            sites.insert(site(path, number));
        }
    }
    Answer {
        elapsed,
        sites,
        lines,
        bytes: stdout.len(),
    }
}

/// Runs `command` to completion, reading all its output, and times the whole of it.
fn timed(mut command: Command, nul_paths: bool) -> std::io::Result<(Answer, bool)> {
    let start = Instant::now();
    let output = command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .output()?;
    let elapsed = start.elapsed();
    // grep's 1 is "no match"; 2 with output (an unreadable file) still answers.
    let clean = output.status.code().is_some_and(|c| c <= 1);
    Ok((
        answer_from_output(elapsed, &output.stdout, nul_paths),
        clean,
    ))
}

/// One process run of `tool` for `name` in `root`. `Ok((answer, clean))`: `clean` is false
/// when the tool reported an error but still answered.
pub fn run_process(
    programs: &Programs,
    tool: Tool,
    question: Question,
    name: &str,
    root: &Path,
) -> std::io::Result<(Answer, bool)> {
    let mut command;
    match tool {
        Tool::McursorInProcess => {
            return Err(std::io::Error::other(
                "in-process lookups are not processes",
            ));
        }
        Tool::Mcursor => {
            command = Command::new(&programs.mcursor);
            command.arg("-C").arg(root).args(["--color", "never"]);
            match question {
                Question::Definitions => command.args(["find", "--limit", "1000000", "--"]),
                Question::References => command.args(["refs", "--limit", "1000000", "--"]),
            };
            command.arg(name);
            return timed(command, false);
        }
        Tool::Rg => {
            command = Command::new("rg");
            command.args([
                "-n",
                "-w",
                "-F",
                "--null",
                "--no-heading",
                "--color",
                "never",
            ]);
        }
        Tool::GitGrep => {
            command = Command::new("git");
            command.args(["grep", "-n", "-w", "-F", "-I", "--null", "--no-color"]);
        }
        Tool::Grep => {
            command = Command::new("grep");
            command.args([
                "-r",
                "-n",
                "-w",
                "-F",
                "-I",
                "--null",
                "--exclude-dir=.git",
                "--exclude-dir=.mcursor",
            ]);
        }
    }
    command.arg("--").arg(name);
    if tool == Tool::Grep {
        command.arg(".");
    }
    command.current_dir(root);
    timed(command, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_parsing_takes_paths_with_colons_and_strips_dot_slash() {
        let out = b"./src/a.rs\x0012:fn load() {}\nweird:name.rs\x003:load\nno-nul-line\n\n";
        let answer = answer_from_output(Duration::from_millis(1), out, true);
        assert_eq!(answer.lines, 3);
        assert_eq!(answer.bytes, out.len());
        let mut sites: Vec<_> = answer.sites.into_iter().collect();
        sites.sort();
        assert_eq!(sites, vec!["src/a.rs:12", "weird:name.rs:3"]);
    }
}
