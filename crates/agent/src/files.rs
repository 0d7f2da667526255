//! The file tools: `read_file`, `write_file`, `edit_file`, `list_directory`. Each takes
//! the model's JSON arguments and returns compact text for the model; every failure is a
//! [`ToolError`] whose message tells the model what to do instead.

use std::fmt::Write as _;
use std::io::Write as _;
use std::path::Path;

use serde_json::{Value, json};

use crate::workspace::Workspace;
use crate::{ToolError, ToolSpec, string_arg};

/// Lines one `read_file` call returns at most; the note says how to read on.
pub const READ_MAX_LINES: usize = 400;
/// Bytes one `read_file` call returns at most.
pub const READ_MAX_BYTES: usize = 32 * 1024;
/// Entries one `list_directory` call returns at most.
pub const LIST_MAX_ENTRIES: usize = 500;

fn optional_number(args: &Value, name: &str) -> Result<Option<usize>, ToolError> {
    match args.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| ToolError::BadArguments(format!("`{name}` must be a positive integer"))),
    }
}

fn io_error(ws: &Workspace, path: &Path, error: std::io::Error) -> ToolError {
    let shown = ws.display(path);
    match error.kind() {
        std::io::ErrorKind::NotFound => ToolError::NotFound(shown),
        _ => ToolError::Io {
            path: shown,
            detail: error.to_string(),
        },
    }
}

/// The largest file `edit_file` loads (it needs the whole text); bigger ones are
/// refused with a hint.
pub const EDIT_MAX_BYTES: u64 = 8 * 1024 * 1024;

/// `path` opened for reading if it is a regular file: a directory, FIFO, device or
/// socket is refused before anything blocks or streams forever.
fn open_regular(ws: &Workspace, path: &Path) -> Result<std::fs::File, ToolError> {
    let meta = std::fs::metadata(path).map_err(|e| io_error(ws, path, e))?;
    if meta.is_dir() {
        return Err(ToolError::BadArguments(format!(
            "{} is a directory; use list_directory",
            ws.display(path)
        )));
    }
    mcursor_index::walk::open_regular(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidInput => ToolError::BadArguments(format!(
            "{} is not a regular file (a FIFO, device or socket); only regular files are read",
            ws.display(path)
        )),
        _ => io_error(ws, path, e),
    })
}

fn read_text(ws: &Workspace, path: &Path) -> Result<String, ToolError> {
    let file = open_regular(ws, path)?;
    let size = file.metadata().map_err(|e| io_error(ws, path, e))?.len();
    if size > EDIT_MAX_BYTES {
        return Err(ToolError::BadArguments(format!(
            "{} has {size} bytes; edit_file edits files up to {EDIT_MAX_BYTES} bytes (use a command such as sed for larger ones)",
            ws.display(path)
        )));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    std::io::Read::read_to_end(
        &mut std::io::Read::take(file, EDIT_MAX_BYTES + 1),
        &mut bytes,
    )
    .map_err(|e| io_error(ws, path, e))?;
    if bytes.iter().take(8192).any(|b| *b == 0) {
        return Err(ToolError::Binary(ws.display(path)));
    }
    Ok(String::from_utf8(bytes)
        .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

/// Bytes `read_file` reads past the lines it returns to count the file's lines; beyond
/// that the total is given as a lower bound.
const COUNT_AHEAD_BYTES: u64 = 16 * 1024 * 1024;

/// Lines of a reader, each cut to a budget in memory however long it is.
struct Lines<R> {
    reader: std::io::BufReader<R>,
    consumed: u64,
}

impl<R: std::io::Read> Lines<R> {
    /// The next line without its end, at most `keep` bytes of it in `line`; `None` at
    /// the end. Returns whether the line was cut.
    fn next_line(&mut self, keep: usize, line: &mut Vec<u8>) -> std::io::Result<Option<bool>> {
        use std::io::BufRead;
        line.clear();
        let mut cut = false;
        let mut any = false;
        loop {
            let chunk = self.reader.fill_buf()?;
            if chunk.is_empty() {
                return Ok(any.then_some(cut));
            }
            any = true;
            let (piece, used, done) = match memchr::memchr(b'\n', chunk) {
                Some(end) => (&chunk[..end], end + 1, true),
                None => (chunk, chunk.len(), false),
            };
            let room = keep.saturating_sub(line.len());
            if piece.len() > room {
                cut = true;
            }
            line.extend_from_slice(&piece[..piece.len().min(room)]);
            self.reader.consume(used);
            self.consumed += used as u64;
            if done {
                if line.last() == Some(&b'\r') && !cut {
                    line.pop();
                }
                return Ok(Some(cut));
            }
        }
    }
}

/// Writes through a temporary file in the same directory, renamed into place: a killed
/// process leaves the old content or the new, never half of it.
fn write_atomically(ws: &Workspace, path: &Path, content: &str) -> Result<(), ToolError> {
    let dir = path.parent().unwrap_or(ws.root());
    std::fs::create_dir_all(dir).map_err(|e| io_error(ws, dir, e))?;
    let mut temp = tempfile::NamedTempFile::new_in(dir).map_err(|e| io_error(ws, dir, e))?;
    temp.write_all(content.as_bytes())
        .map_err(|e| io_error(ws, path, e))?;
    if let Ok(meta) = std::fs::metadata(path) {
        // Keep an existing file's permissions (an executable script stays executable).
        let _ = std::fs::set_permissions(temp.path(), meta.permissions());
    }
    temp.persist(path)
        .map_err(|e| io_error(ws, path, e.error))?;
    Ok(())
}

pub fn read_file_spec() -> ToolSpec {
    ToolSpec {
        name: "read_file".into(),
        description: format!(
            "Read a file with line numbers (at most {READ_MAX_LINES} lines a call)."
        ),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "start_line": {"type": "integer", "minimum": 1},
                "end_line": {"type": "integer", "minimum": 1}
            },
            "required": ["path"]
        }),
    }
}

pub fn read_file(ws: &Workspace, args: &Value) -> Result<String, ToolError> {
    let path = ws.resolve(string_arg(args, "path")?)?;
    let start = optional_number(args, "start_line")?.unwrap_or(1).max(1);
    let end = optional_number(args, "end_line")?;
    let file = open_regular(ws, &path)?;
    let size = file.metadata().map_err(|e| io_error(ws, &path, e))?.len();
    let shown = ws.display(&path);
    let mut lines = Lines {
        reader: std::io::BufReader::with_capacity(64 * 1024, file),
        consumed: 0,
    };
    {
        use std::io::BufRead;
        let head = lines
            .reader
            .fill_buf()
            .map_err(|e| io_error(ws, &path, e))?;
        if head.iter().take(8192).any(|b| *b == 0) {
            return Err(ToolError::Binary(shown));
        }
    }
    let wanted_last = end.unwrap_or(usize::MAX).max(start);
    let mut out = String::new();
    let mut line = Vec::new();
    let mut number = 0usize;
    let mut last_shown = 0usize;
    let mut window_full = false;
    let mut counted_to_end = true;
    let mut window_end_offset = 0u64;
    loop {
        let in_window = number + 1 >= start && number < wanted_last && !window_full;
        let keep = if in_window { READ_MAX_BYTES } else { 0 };
        let Some(cut) = lines
            .next_line(keep, &mut line)
            .map_err(|e| io_error(ws, &path, e))?
        else {
            break;
        };
        number += 1;
        if in_window {
            let text = String::from_utf8_lossy(&line);
            let shown_lines = number - start;
            if shown_lines >= READ_MAX_LINES
                || (last_shown >= start && out.len() + text.len() > READ_MAX_BYTES)
            {
                window_full = true;
                window_end_offset = lines.consumed;
            } else if cut || out.len() + text.len() > READ_MAX_BYTES {
                // One line longer than the budget: its start, and the note.
                let mut end = READ_MAX_BYTES.saturating_sub(out.len()).min(text.len());
                while !text.is_char_boundary(end) {
                    end -= 1;
                }
                let _ = writeln!(
                    out,
                    "{number:>6}│{}… (line cut at {end} bytes)",
                    &text[..end]
                );
                last_shown = number;
                window_full = true;
                window_end_offset = lines.consumed;
            } else {
                let _ = writeln!(out, "{number:>6}│{text}");
                last_shown = number;
            }
        } else if number >= wanted_last || window_full {
            if window_end_offset == 0 {
                window_end_offset = lines.consumed;
            }
            // Counting the rest: bounded, so a huge file does not cost a full read.
            if lines.consumed - window_end_offset > COUNT_AHEAD_BYTES {
                counted_to_end = false;
                break;
            }
        }
    }
    let total = if counted_to_end {
        number.to_string()
    } else {
        format!("at least {number} (the file has {size} bytes)")
    };
    if number == 0 {
        return Ok(format!("{shown} is empty"));
    }
    if start > number && counted_to_end {
        return Err(ToolError::BadArguments(format!(
            "{shown} has {number} lines; start_line {start} is past the end"
        )));
    }
    let mut header = format!("{shown}: lines {start}-{last_shown} of {total}");
    let more_wanted = end.map_or(number > last_shown || !counted_to_end, |e| {
        e > last_shown && (number > last_shown || !counted_to_end)
    });
    if more_wanted {
        let _ = write!(
            header,
            " (more follow: read_file with start_line={})",
            last_shown + 1
        );
    }
    Ok(format!("{header}\n{out}"))
}

pub fn write_file_spec() -> ToolSpec {
    ToolSpec {
        name: "write_file".into(),
        description: "Create or overwrite a file. Prefer edit_file to change one.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "content": {"type": "string"}
            },
            "required": ["path", "content"]
        }),
    }
}

pub fn write_file(ws: &Workspace, args: &Value) -> Result<String, ToolError> {
    let path = ws.resolve(string_arg(args, "path")?)?;
    let content = string_arg(args, "content")?;
    if path.is_dir() {
        return Err(ToolError::BadArguments(format!(
            "{} is a directory",
            ws.display(&path)
        )));
    }
    let existed = path.exists();
    write_atomically(ws, &path, content)?;
    Ok(format!(
        "{} {} ({} bytes, {} lines)",
        if existed { "replaced" } else { "created" },
        ws.display(&path),
        content.len(),
        content.lines().count()
    ))
}

pub fn edit_file_spec() -> ToolSpec {
    ToolSpec {
        name: "edit_file".into(),
        description: "Replace old_text (once in the file, without line numbers) with \
                      new_text."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "old_text": {"type": "string"},
                "new_text": {"type": "string"}
            },
            "required": ["path", "old_text", "new_text"]
        }),
    }
}

/// The file's lines most like the first line of `wanted`, for a failed match.
fn closest_lines(text: &str, wanted: &str) -> Vec<(usize, String)> {
    let needle = wanted
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or_default();
    let mut scored: Vec<(f64, usize, &str)> = text
        .lines()
        .enumerate()
        .map(|(i, line)| {
            (
                strsim::normalized_levenshtein(line.trim(), needle),
                i + 1,
                line,
            )
        })
        .filter(|(score, _, _)| *score >= 0.5)
        .collect();
    scored.sort_by(|a, b| {
        b.0.partial_cmp(&a.0)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then(a.1.cmp(&b.1))
    });
    scored
        .into_iter()
        .take(3)
        .map(|(_, n, line)| (n, line.trim_end().to_owned()))
        .collect()
}

pub fn edit_file(ws: &Workspace, args: &Value) -> Result<String, ToolError> {
    let path = ws.resolve(string_arg(args, "path")?)?;
    let old_text = string_arg(args, "old_text")?;
    let new_text = string_arg(args, "new_text")?;
    if old_text.is_empty() {
        return Err(ToolError::BadArguments(
            "`old_text` is empty; use write_file to create a file".into(),
        ));
    }
    let text = read_text(ws, &path)?;
    let shown = ws.display(&path);
    let starts: Vec<usize> = text.match_indices(old_text).map(|(at, _)| at).collect();
    match starts.as_slice() {
        [] => {
            let mut message = format!("old_text does not occur in {shown}.");
            let candidates = closest_lines(&text, old_text);
            if candidates.is_empty() {
                message.push_str(" Read the file again: it may have changed.");
            } else {
                message.push_str(" The closest lines:");
                for (n, line) in candidates {
                    let _ = write!(message, "\n{n:>6}│{line}");
                }
            }
            Err(ToolError::NoMatch(message))
        }
        [at] => {
            let mut edited = String::with_capacity(text.len() + new_text.len());
            edited.push_str(&text[..*at]);
            edited.push_str(new_text);
            edited.push_str(&text[at + old_text.len()..]);
            write_atomically(ws, &path, &edited)?;
            let diff = similar::TextDiff::from_lines(&text, &edited)
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{shown}"), &format!("b/{shown}"))
                .to_string();
            Ok(format!("edited {shown}\n{diff}"))
        }
        many => {
            let lines: Vec<String> = many
                .iter()
                .map(|at| (text[..*at].matches('\n').count() + 1).to_string())
                .collect();
            Err(ToolError::NoMatch(format!(
                "old_text occurs {} times in {shown} (lines {}); include more surrounding lines so it matches once",
                many.len(),
                lines.join(", ")
            )))
        }
    }
}

pub fn list_directory_spec() -> ToolSpec {
    ToolSpec {
        name: "list_directory".into(),
        description: format!("List a directory (at most {LIST_MAX_ENTRIES} entries)."),
        parameters: json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "depth": {"type": "integer", "minimum": 1, "maximum": 5}
            }
        }),
    }
}

pub fn list_directory(ws: &Workspace, args: &Value) -> Result<String, ToolError> {
    let given = match args.get("path") {
        None | Some(Value::Null) => ".",
        Some(_) => string_arg(args, "path")?,
    };
    let dir = ws.resolve(given)?;
    if !dir.is_dir() {
        return Err(if dir.exists() {
            ToolError::BadArguments(format!("{} is a file; use read_file", ws.display(&dir)))
        } else {
            ToolError::NotFound(ws.display(&dir))
        });
    }
    let depth = optional_number(args, "depth")?.unwrap_or(1).clamp(1, 5);
    let mut entries = Vec::new();
    let mut more = 0usize;
    for entry in ignore::WalkBuilder::new(&dir)
        .max_depth(Some(depth))
        .follow_links(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build()
        .flatten()
    {
        if entry.depth() == 0 {
            continue;
        }
        if entries.len() >= LIST_MAX_ENTRIES {
            more += 1;
            continue;
        }
        let relative = ws.display(entry.path());
        let line = match entry.file_type() {
            Some(t) if t.is_dir() => format!("{relative}/"),
            Some(t) if t.is_symlink() => format!("{relative} (link)"),
            _ => {
                let size = entry.metadata().map(|m| m.len()).unwrap_or(0);
                format!("{relative}  {size} B")
            }
        };
        entries.push(line);
    }
    let shown = ws.display(&dir);
    let shown = if shown.is_empty() {
        ".".to_owned()
    } else {
        shown
    };
    let mut out = format!(
        "{shown} ({} entries, depth {depth})\n",
        entries.len() + more
    );
    for line in entries {
        let _ = writeln!(out, "{line}");
    }
    if more > 0 {
        let _ = writeln!(out, "… {more} more: list a subdirectory or lower the depth");
    }
    Ok(out)
}
