//! mcursor-agent owns what the agent does on the model's behalf: the loop ([`Session`]:
//! steps, approvals with protected paths, limits per message, compaction, sub-agents,
//! cancellation) and the tools ([`Toolbox`]): the workspace rule (file tools never reach
//! outside the root, symbolic links included), the file tools `read_file`, `write_file`,
//! `edit_file` and `list_directory` (regular files only, bounded reads), the index tools
//! (declared and answered by `mcursor-tools`, the same as over MCP), and `execute_command` (async, through the OS sandbox of `mcursor-sandbox`: live
//! output, capped result, everything it started killed on timeout or cancellation, an
//! allowlisted environment).
//!
//! Every failure (bad JSON, a missing argument, an unknown tool, a missing file, an edit
//! that does not match once, a sandbox that cannot be enforced) becomes a tool result the
//! model reads and can act on; none of them ends a turn.
//!
//! File handlers are synchronous (file system work); the async loop runs them on blocking
//! threads.

mod files;
mod session;
mod shell;
mod text_calls;
mod toolbox;
mod workspace;

pub use files::{LIST_MAX_ENTRIES, READ_MAX_BYTES, READ_MAX_LINES};
pub use mcursor_llm::ToolSpec;
pub use session::{
    AgentError, AgentEvent, AgentOptions, Approval, ApprovalRequest, Decision, Person, Session,
    Stop, TurnOutcome, estimate_tokens,
};
pub use shell::{
    CommandOptions, PASSED_ENV, Sandbox, command_env, execute_command, execute_command_spec,
};
pub use text_calls::ToolCallMode;
pub use toolbox::Toolbox;
pub use workspace::Workspace;

/// Why a tool call failed; the message is written for the model.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    #[error("bad arguments: {0}")]
    BadArguments(String),
    #[error("the arguments are not valid JSON ({0}); send a JSON object")]
    InvalidJson(String),
    #[error("unknown tool `{name}`; the tools are: {known}")]
    UnknownTool { name: String, known: String },
    #[error("{path} is outside the workspace ({root}); use paths inside it")]
    OutsideWorkspace { path: String, root: String },
    #[error("no such file or directory: {0}")]
    NotFound(String),
    #[error("{0} is a binary file; it cannot be shown as text")]
    Binary(String),
    #[error("{0}")]
    NoMatch(String),
    #[error("{path}: {detail}")]
    Io { path: String, detail: String },
    #[error(
        "refused: the sandbox cannot confine commands on this machine ({0}). Nothing ran; \
         do not retry. The user can run `mcursor sandbox doctor` to see why, or start \
         mcursor with `--sandbox off` to run commands unconfined"
    )]
    SandboxRefused(String),
    #[error("the code index could not answer: {0}")]
    Index(String),
    #[error("the tool failed unexpectedly: {0}")]
    Internal(String),
}

impl From<mcursor_tools::ToolError> for ToolError {
    fn from(e: mcursor_tools::ToolError) -> Self {
        match e {
            mcursor_tools::ToolError::BadArguments(why) => ToolError::BadArguments(why),
            mcursor_tools::ToolError::Index(e) => ToolError::Index(e.to_string()),
        }
    }
}

/// A tool call's result as the model will read it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolOutcome {
    pub text: String,
    pub is_error: bool,
}

type Handler = fn(&Workspace, &serde_json::Value) -> Result<String, ToolError>;

struct FileTool {
    name: &'static str,
    spec: fn() -> ToolSpec,
    handler: Handler,
    mutates: bool,
    /// The largest arguments (JSON bytes) a call may send.
    max_arguments: usize,
}

/// The largest arguments of a call that carries file content.
pub const MAX_CONTENT_ARGUMENTS: usize = 1024 * 1024;
/// The largest arguments of any other call (paths, names, queries, commands).
pub const MAX_OTHER_ARGUMENTS: usize = 16 * 1024;

/// The largest arguments tool `name` accepts: what a file tool declares, else the limit
/// of the tools whose arguments are names, paths, queries and commands.
pub fn argument_limit(name: &str) -> usize {
    FILE_TOOLS
        .iter()
        .find(|t| t.name == name)
        .map_or(MAX_OTHER_ARGUMENTS, |t| t.max_arguments)
}

const FILE_TOOLS: [FileTool; 4] = [
    FileTool {
        name: "read_file",
        spec: files::read_file_spec,
        handler: files::read_file,
        mutates: false,
        max_arguments: MAX_OTHER_ARGUMENTS,
    },
    FileTool {
        name: "write_file",
        spec: files::write_file_spec,
        handler: files::write_file,
        mutates: true,
        max_arguments: MAX_CONTENT_ARGUMENTS,
    },
    FileTool {
        name: "edit_file",
        spec: files::edit_file_spec,
        handler: files::edit_file,
        mutates: true,
        max_arguments: MAX_CONTENT_ARGUMENTS,
    },
    FileTool {
        name: "list_directory",
        spec: files::list_directory_spec,
        handler: files::list_directory,
        mutates: false,
        max_arguments: MAX_OTHER_ARGUMENTS,
    },
];

/// Whether `name` is one of the file tools.
pub(crate) fn is_file_tool(name: &str) -> bool {
    FILE_TOOLS.iter().any(|t| t.name == name)
}

/// A required string argument.
pub(crate) fn string_arg<'a>(
    args: &'a serde_json::Value,
    name: &str,
) -> Result<&'a str, ToolError> {
    match args.get(name) {
        Some(serde_json::Value::String(s)) => Ok(s),
        Some(_) => Err(ToolError::BadArguments(format!(
            "`{name}` must be a string"
        ))),
        None => Err(ToolError::BadArguments(format!("`{name}` is required"))),
    }
}

/// A required string argument that must not be blank.
pub(crate) fn nonempty_arg<'a>(
    args: &'a serde_json::Value,
    name: &str,
) -> Result<&'a str, ToolError> {
    let value = string_arg(args, name)?;
    if value.trim().is_empty() {
        return Err(ToolError::BadArguments(format!("`{name}` is empty")));
    }
    Ok(value)
}

/// The schemas of the file tools, as sent to the model.
pub fn file_tool_specs() -> Vec<ToolSpec> {
    FILE_TOOLS.iter().map(|t| (t.spec)()).collect()
}

/// Whether the named tool changes files or runs commands (and so needs approval and runs
/// in order).
pub fn mutates(name: &str) -> bool {
    name == "execute_command" || FILE_TOOLS.iter().any(|t| t.mutates && t.name == name)
}

impl From<Result<String, ToolError>> for ToolOutcome {
    fn from(result: Result<String, ToolError>) -> Self {
        match result {
            Ok(text) => ToolOutcome {
                text,
                is_error: false,
            },
            Err(error) => ToolOutcome {
                text: format!("error: {error}"),
                is_error: true,
            },
        }
    }
}

/// The model's raw arguments as a JSON object.
pub(crate) fn parse_arguments(arguments: &str) -> Result<serde_json::Value, ToolError> {
    // Some models send "" for a call without arguments.
    let arguments = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    let value: serde_json::Value =
        serde_json::from_str(arguments).map_err(|e| ToolError::InvalidJson(e.to_string()))?;
    if value.is_object() {
        Ok(value)
    } else {
        Err(ToolError::InvalidJson("not an object".into()))
    }
}

/// Runs a file tool on the model's raw `arguments` text.
pub fn run_file_tool(workspace: &Workspace, name: &str, arguments: &str) -> ToolOutcome {
    let tool = FILE_TOOLS.iter().find(|t| t.name == name);
    let result = match tool {
        None => Err(ToolError::UnknownTool {
            name: name.to_owned(),
            known: FILE_TOOLS
                .iter()
                .map(|t| t.name)
                .collect::<Vec<_>>()
                .join(", "),
        }),
        Some(tool) => {
            parse_arguments(arguments).and_then(|value| (tool.handler)(workspace, &value))
        }
    };
    result.into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        let ws = Workspace::new(dir.path()).expect("workspace");
        (dir, ws)
    }

    fn run(ws: &Workspace, name: &str, args: serde_json::Value) -> ToolOutcome {
        run_file_tool(ws, name, &args.to_string())
    }

    #[test]
    fn read_file_numbers_lines_and_pages_large_files() {
        let (dir, ws) = workspace();
        let text: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("big.txt"), &text).expect("write");
        let first = run(&ws, "read_file", serde_json::json!({"path": "big.txt"}));
        assert!(!first.is_error, "{}", first.text);
        assert!(first.text.starts_with(&format!(
            "big.txt: lines 1-{READ_MAX_LINES} of 1000 (more follow: read_file with start_line={})",
            READ_MAX_LINES + 1
        )), "{}", first.text);
        assert!(first.text.contains("     7│line 7\n"));
        let range = run(
            &ws,
            "read_file",
            serde_json::json!({"path": "big.txt", "start_line": 998, "end_line": 2000}),
        );
        assert_eq!(
            range.text,
            "big.txt: lines 998-1000 of 1000\n   998│line 998\n   999│line 999\n  1000│line 1000\n"
        );
        let past = run(
            &ws,
            "read_file",
            serde_json::json!({"path": "big.txt", "start_line": 5000}),
        );
        assert!(
            past.is_error && past.text.contains("past the end"),
            "{}",
            past.text
        );
    }

    #[test]
    fn read_file_refuses_binary_and_survives_invalid_utf8_and_long_lines() {
        let (dir, ws) = workspace();
        std::fs::write(dir.path().join("bin"), b"\x7fELF\0\0\x01").expect("write");
        let binary = run(&ws, "read_file", serde_json::json!({"path": "bin"}));
        assert!(
            binary.is_error && binary.text.contains("binary"),
            "{}",
            binary.text
        );
        std::fs::write(dir.path().join("latin1.txt"), b"caf\xe9\n").expect("write");
        let lossy = run(&ws, "read_file", serde_json::json!({"path": "latin1.txt"}));
        assert!(
            !lossy.is_error && lossy.text.contains("caf\u{fffd}"),
            "{}",
            lossy.text
        );
        std::fs::write(dir.path().join("min.js"), "x".repeat(200_000)).expect("write");
        let long = run(&ws, "read_file", serde_json::json!({"path": "min.js"}));
        assert!(
            !long.is_error && long.text.len() < READ_MAX_BYTES + 200,
            "{}",
            long.text.len()
        );
        assert!(long.text.contains("line cut at"));
        let missing = run(&ws, "read_file", serde_json::json!({"path": "nope.rs"}));
        assert_eq!(missing.text, "error: no such file or directory: nope.rs");
    }

    #[cfg(unix)]
    #[test]
    fn read_file_refuses_what_is_not_a_regular_file_at_once() {
        let (dir, ws) = workspace();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        let started = std::time::Instant::now();
        let read = run(&ws, "read_file", serde_json::json!({"path": "pipe"}));
        assert!(
            read.is_error && read.text.contains("not a regular file"),
            "{}",
            read.text
        );
        let edit = run(
            &ws,
            "edit_file",
            serde_json::json!({"path": "pipe", "old_text": "a", "new_text": "b"}),
        );
        assert!(edit.is_error && edit.text.contains("not a regular file"));
        // Refused, not blocked waiting for a writer (which never comes).
        assert!(started.elapsed() < std::time::Duration::from_secs(10));
    }

    #[test]
    fn read_file_reads_huge_files_in_bounded_work() {
        let (dir, ws) = workspace();
        // 40 MB of short lines: lines are counted only 16 MiB past the window.
        let line = "0123456789abcdef0123456789abcdef0123456789\n";
        let big = dir.path().join("big.log");
        let mut file = std::io::BufWriter::new(std::fs::File::create(&big).expect("create"));
        for _ in 0..(40_000_000 / line.len()) {
            std::io::Write::write_all(&mut file, line.as_bytes()).expect("write");
        }
        drop(file);
        let read = run(&ws, "read_file", serde_json::json!({"path": "big.log"}));
        assert!(!read.is_error, "{}", read.text);
        let header = read.text.lines().next().unwrap_or_default();
        assert!(
            header.starts_with("big.log: lines 1-400 of at least ")
                && header.contains(&format!(
                    "(the file has {} bytes)",
                    (40_000_000 / line.len()) * line.len()
                ))
                && header.ends_with("(more follow: read_file with start_line=401)"),
            "{header}"
        );
        // One 20 MB line: its start, cut, and never held whole.
        std::fs::write(dir.path().join("one.min.js"), "y".repeat(20_000_000)).expect("write");
        let one = run(&ws, "read_file", serde_json::json!({"path": "one.min.js"}));
        assert!(one.text.contains("line cut at"), "{}", &one.text[..200]);
        assert!(one.text.len() < READ_MAX_BYTES + 200);
        // A sparse 2 GB file is refused as binary after reading its first block.
        let sparse = std::fs::File::create(dir.path().join("sparse.img")).expect("create");
        sparse.set_len(2 << 30).expect("set_len");
        let refused = run(&ws, "read_file", serde_json::json!({"path": "sparse.img"}));
        assert!(
            refused.is_error && refused.text.contains("binary"),
            "{}",
            refused.text
        );
        // A window deep in the file still comes back.
        let deep = run(
            &ws,
            "read_file",
            serde_json::json!({"path": "big.log", "start_line": 900_000, "end_line": 900_001}),
        );
        assert!(
            deep.text
                .starts_with("big.log: lines 900000-900001 of 930232\n"),
            "{}",
            deep.text
        );
    }

    #[test]
    fn write_file_creates_parents_and_stays_inside() {
        let (dir, ws) = workspace();
        let created = run(
            &ws,
            "write_file",
            serde_json::json!({"path": "a/b/c.rs", "content": "fn c() {}\n"}),
        );
        assert_eq!(created.text, "created a/b/c.rs (10 bytes, 1 lines)");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("a/b/c.rs")).expect("read"),
            "fn c() {}\n"
        );
        let replaced = run(
            &ws,
            "write_file",
            serde_json::json!({"path": "a/b/c.rs", "content": ""}),
        );
        assert!(replaced.text.starts_with("replaced"), "{}", replaced.text);
        let outside = run(
            &ws,
            "write_file",
            serde_json::json!({"path": "../escape.txt", "content": "x"}),
        );
        assert!(
            outside.is_error && outside.text.contains("outside the workspace"),
            "{}",
            outside.text
        );
        assert!(
            !dir.path()
                .parent()
                .expect("parent")
                .join("escape.txt")
                .exists()
        );
    }

    #[test]
    fn edit_file_needs_exactly_one_match_and_shows_a_diff() {
        let (dir, ws) = workspace();
        let path = dir.path().join("lib.rs");
        std::fs::write(
            &path,
            "fn parse_config() {}\nfn main() {\n    parse_config();\n    parse_config();\n}\n",
        )
        .expect("write");
        let ambiguous = run(
            &ws,
            "edit_file",
            serde_json::json!({"path": "lib.rs", "old_text": "    parse_config();", "new_text": "    load_config();"}),
        );
        assert!(
            ambiguous.is_error
                && ambiguous.text.contains("occurs 2 times")
                && ambiguous.text.contains("lines 3, 4"),
            "{}",
            ambiguous.text
        );
        let missing = run(
            &ws,
            "edit_file",
            serde_json::json!({"path": "lib.rs", "old_text": "fn parse_confg() {}", "new_text": "x"}),
        );
        assert!(
            missing.is_error && missing.text.contains("     1│fn parse_config() {}"),
            "{}",
            missing.text
        );
        let edited = run(
            &ws,
            "edit_file",
            serde_json::json!({"path": "lib.rs", "old_text": "fn parse_config() {}", "new_text": "fn load_config() {}"}),
        );
        assert!(!edited.is_error, "{}", edited.text);
        assert!(
            edited
                .text
                .contains("-fn parse_config() {}\n+fn load_config() {}"),
            "{}",
            edited.text
        );
        assert!(
            std::fs::read_to_string(&path)
                .expect("read")
                .starts_with("fn load_config() {}\n")
        );
    }

    #[test]
    fn list_directory_respects_gitignore_and_depth() {
        let (dir, ws) = workspace();
        std::fs::create_dir_all(dir.path().join("src/deep")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join("target")).expect("mkdir");
        std::fs::create_dir_all(dir.path().join(".git")).expect("mkdir");
        std::fs::write(dir.path().join(".gitignore"), "target/\n").expect("write");
        std::fs::write(dir.path().join("src/lib.rs"), "x").expect("write");
        std::fs::write(dir.path().join("src/deep/a.rs"), "x").expect("write");
        std::fs::write(dir.path().join("target/out"), "x").expect("write");
        let top = run(&ws, "list_directory", serde_json::json!({}));
        assert_eq!(top.text, ". (1 entries, depth 1)\nsrc/\n");
        let deep = run(
            &ws,
            "list_directory",
            serde_json::json!({"path": "src", "depth": 3}),
        );
        assert_eq!(
            deep.text,
            "src (3 entries, depth 3)\nsrc/deep/\nsrc/deep/a.rs  1 B\nsrc/lib.rs  1 B\n"
        );
    }

    #[test]
    fn bad_calls_come_back_as_errors_for_the_model() {
        let (_dir, ws) = workspace();
        let unknown = run_file_tool(&ws, "rm_rf", "{}");
        assert!(
            unknown.is_error
                && unknown
                    .text
                    .contains("read_file, write_file, edit_file, list_directory")
        );
        let invalid = run_file_tool(&ws, "read_file", "{\"path\": ");
        assert!(
            invalid.is_error && invalid.text.contains("not valid JSON"),
            "{}",
            invalid.text
        );
        let wrong_type = run_file_tool(&ws, "read_file", "{\"path\": 7}");
        assert_eq!(
            wrong_type.text,
            "error: bad arguments: `path` must be a string"
        );
        let missing = run_file_tool(&ws, "write_file", "");
        assert_eq!(missing.text, "error: bad arguments: `path` is required");
        assert!(mutates("edit_file") && !mutates("read_file"));
    }
}
