//! Terminal and JSON rendering. Colors are written as ANSI styles into an `anstream`
//! stream, which strips them when stdout is not a terminal or `NO_COLOR` is set.

use std::io::{BufWriter, Write};

use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressStyle};
use mcursor_index::escape_controls;
use mcursor_index::{
    BuildSummary, CallEdge, Confidence, ImpactSite, ImplHit, RefConfidence, RefHit, SearchHit,
    Status, SymbolHit, SyntaxErrors, WatchEvent,
};

pub const ERROR: Style = AnsiColor::Red.on_default().bold();
const PATH: Style = AnsiColor::Magenta.on_default();
const LINE: Style = AnsiColor::Green.on_default();
const KIND: Style = AnsiColor::Cyan.on_default();
const NAME: Style = Style::new().bold();
pub const DIM: Style = Style::new().dimmed();
pub const WARN: Style = AnsiColor::Yellow.on_default();
pub const HEADER: Style = AnsiColor::Blue.on_default().bold();
pub const ADDED: Style = AnsiColor::Green.on_default();
pub const REMOVED: Style = AnsiColor::Red.on_default();

/// Buffered stdout that knows whether it prints JSON.
pub struct Out {
    pub json: bool,
    stream: anstream::AutoStream<Box<dyn Write + Send>>,
}

impl Out {
    pub fn new(json: bool) -> Self {
        let choice = anstream::AutoStream::choice(&std::io::stdout());
        Self {
            json,
            stream: anstream::AutoStream::new(Box::new(BufWriter::new(std::io::stdout())), choice),
        }
    }

    pub fn json_value<T: serde::Serialize>(&mut self, value: &T) -> anyhow::Result<()> {
        // As an io::Error, so a closed pipe (`| head`) is recognised and ends quietly.
        serde_json::to_writer(&mut self.stream, value).map_err(std::io::Error::from)?;
        writeln!(self.stream)?;
        Ok(())
    }

    pub fn note(&mut self, text: &str) -> anyhow::Result<()> {
        writeln!(
            self.stream,
            "{}{text}{}",
            WARN.render(),
            WARN.render_reset()
        )?;
        Ok(())
    }

    pub fn text(&mut self, text: &str) -> anyhow::Result<()> {
        self.stream.write_all(text.as_bytes())?;
        Ok(())
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        self.stream.flush()
    }
}

fn paint(style: Style, text: impl std::fmt::Display) -> String {
    format!("{}{text}{}", style.render(), style.render_reset())
}

fn location(path: &str, line: u32, column: u32) -> String {
    format!(
        "{}:{}:{}",
        paint(PATH, escape_controls(path)),
        paint(LINE, line),
        column
    )
}

pub fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error
        .chain()
        .filter_map(|e| e.downcast_ref::<std::io::Error>())
        .any(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
}

/// A progress bar on stderr counting `unit`s; hidden when stderr is not a terminal.
pub fn progress_bar(unit: &str) -> ProgressBar {
    let bar = ProgressBar::new(0);
    if let Ok(style) = ProgressStyle::with_template(&format!(
        "{{spinner}} {{msg:<28}} [{{bar:30}}] {{pos}}/{{len}} {unit}, {{elapsed}} (eta {{eta}})"
    )) {
        bar.set_style(style.progress_chars("=> "));
    }
    bar.set_message("walking");
    bar.enable_steady_tick(std::time::Duration::from_millis(120));
    bar
}

/// A message for the user on stderr (never on stdout, which may be JSON).
pub fn message(text: &str) -> anyhow::Result<()> {
    let mut stderr = anstream::stderr();
    writeln!(stderr, "{text}")?;
    Ok(())
}

/// A warning for the user on stderr: what an answer cannot vouch for.
pub fn warning(text: &str) -> anyhow::Result<()> {
    caution(&format!("warning: {text}"))
}

/// "No such symbol", with suggestions, and which source files have no symbols at all.
pub fn no_symbol(
    name: &str,
    suggestions: &[String],
    text_only: &std::collections::BTreeMap<String, usize>,
) -> anyhow::Result<()> {
    let mut stderr = anstream::stderr();
    writeln!(
        stderr,
        "no symbol named {}",
        paint(NAME, escape_controls(name))
    )?;
    if !suggestions.is_empty() {
        writeln!(
            stderr,
            "{} {}",
            paint(DIM, "suggestions (not matches):"),
            suggestions.join(", ")
        )?;
    }
    if !text_only.is_empty() {
        caution(&format!(
            "this tree also has {}, read as text only: their symbols are not indexed, so {} may be defined there; `mcursor search {}` covers them",
            counted_languages(text_only),
            escape_controls(name),
            escape_controls(last_segment(name))
        ))?;
    }
    Ok(())
}

/// A line on stderr in the warning color: what an answer cannot vouch for.
fn caution(text: &str) -> anyhow::Result<()> {
    writeln!(anstream::stderr(), "{}", paint(WARN, text))?;
    Ok(())
}

/// `Session` of `pkg::Session` or `Session.send`: what a text search looks for.
fn last_segment(name: &str) -> &str {
    name.rsplit(['.', ':'])
        .find(|s| !s.is_empty())
        .unwrap_or(name)
}

/// `85 python files, 3 go files`.
fn counted_languages(counts: &std::collections::BTreeMap<String, usize>) -> String {
    counts
        .iter()
        .map(|(lang, n)| format!("{n} {lang} file{}", if *n == 1 { "" } else { "s" }))
        .collect::<Vec<_>>()
        .join(", ")
}

/// An empty answer that cannot be sure: files name the target where the parser could not
/// read them. `what` is what was not found (`callers`), or where the target is defined.
pub fn unread(
    target: &str,
    what: &str,
    unread: &[mcursor_index::UnreadMention],
) -> anyhow::Result<()> {
    caution(&format!(
        "nothing parsed refers to {} ({what}), but {} file{} name{} it where the parser could not read the code; these may be uses:",
        escape_controls(target),
        unread.len(),
        if unread.len() == 1 { "" } else { "s" },
        if unread.len() == 1 { "s" } else { "" },
    ))?;
    let mut stderr = anstream::stderr();
    for file in unread.iter().take(20) {
        let lines: Vec<String> = file.lines.iter().take(10).map(u32::to_string).collect();
        writeln!(
            stderr,
            "  {}:{}  {}",
            paint(PATH, escape_controls(&file.path)),
            lines.join(","),
            paint(DIM, file.why)
        )?;
    }
    if unread.len() > 20 {
        writeln!(stderr, "  ... and {} more files", unread.len() - 20)?;
    }
    Ok(())
}

pub fn symbol(out: &mut Out, hit: &SymbolHit) -> anyhow::Result<()> {
    writeln!(
        out.stream,
        "{}: {} {}  {}",
        location(&hit.path, hit.line, hit.column),
        paint(KIND, hit.kind.as_str()),
        paint(NAME, escape_controls(&hit.qualified_name)),
        paint(DIM, terminal_safe(&hit.signature))
    )?;
    Ok(())
}

/// One reference; `show_target` names what it refers to (when the query matched several
/// definitions).
pub fn reference(out: &mut Out, hit: &RefHit, show_target: bool) -> anyhow::Result<()> {
    let mut note = hit.kind.as_str().to_owned();
    if show_target {
        note.push_str(" of ");
        note.push_str(&hit.target);
    }
    if let Some(enclosing) = &hit.enclosing {
        note.push_str(" in ");
        note.push_str(enclosing);
    }
    if hit.confidence != RefConfidence::Resolved {
        note.push_str(", ");
        note.push_str(hit.confidence.as_str());
    }
    if hit.confidence == RefConfidence::Dispatch {
        note.push_str(" via ");
        note.push_str(&hit.target);
    }
    writeln!(
        out.stream,
        "{}: {}  {}",
        location(&hit.path, hit.line, hit.column),
        terminal_safe(&hit.text),
        paint(DIM, format!("[{}]", escape_controls(&note)))
    )?;
    Ok(())
}

/// One implementation: where, what implements what, and the methods that answer for
/// the implemented members; deeper levels indented.
pub fn implementation(out: &mut Out, hit: &ImplHit) -> anyhow::Result<()> {
    let indent = "  ".repeat(hit.depth.saturating_sub(1) as usize);
    let what = mcursor_tools::answers::implementation_phrase(hit);
    writeln!(
        out.stream,
        "{indent}{}: {}",
        location(&hit.path, hit.line, hit.column),
        paint(NAME, escape_controls(&what))
    )?;
    for method in &hit.methods {
        writeln!(
            out.stream,
            "{indent}    {}: {} {}",
            location(&method.path, method.line, method.column),
            paint(KIND, method.kind.as_str()),
            paint(NAME, escape_controls(&method.qualified_name)),
        )?;
    }
    Ok(())
}

/// Impact sites under a heading per level and kind (`level 1 · call (3)`).
pub fn impact(out: &mut Out, sites: &[ImpactSite]) -> anyhow::Result<()> {
    let mut at = 0;
    while at < sites.len() {
        let (depth, kind) = (sites[at].depth, sites[at].kind);
        let group = sites[at..]
            .iter()
            .take_while(|s| s.depth == depth && s.kind == kind)
            .count();
        writeln!(
            out.stream,
            "{}",
            paint(KIND, format!("level {depth} · {} ({group})", kind.as_str()))
        )?;
        for site in &sites[at..at + group] {
            let confidence = match site.confidence {
                RefConfidence::Resolved => String::new(),
                other => format!(", {}", other.as_str()),
            };
            writeln!(
                out.stream,
                "  {}: {}  {}",
                location(&site.path, site.line, site.column),
                paint(
                    NAME,
                    escape_controls(site.affected.as_deref().unwrap_or("(top level)"))
                ),
                paint(
                    DIM,
                    escape_controls(&format!("[uses {}{confidence}]", site.uses)).into_owned()
                )
            )?;
        }
        at += group;
    }
    Ok(())
}

pub fn call_edge(out: &mut Out, edge: &CallEdge, callers: bool) -> anyhow::Result<()> {
    let indent = "  ".repeat(edge.depth.saturating_sub(1) as usize);
    let callee = mcursor_tools::answers::callee_text(edge);
    let (shown, other) = if callers {
        (&edge.caller, &callee)
    } else {
        (&callee, &edge.caller)
    };
    let arrow = if callers { "calls" } else { "called by" };
    let confidence = match edge.confidence {
        Confidence::Resolved => String::new(),
        Confidence::Heuristic => format!(", {}", edge.confidence.as_str()),
    };
    let site = edge.sites.first().cloned().unwrap_or_default();
    let more = match edge.sites.len() {
        0 | 1 => String::new(),
        n => format!(" (+{} more)", n - 1),
    };
    writeln!(
        out.stream,
        "{indent}{}  {}",
        paint(NAME, escape_controls(shown)),
        paint(
            DIM,
            escape_controls(&format!("[{arrow} {other} at {site}{more}{confidence}]")).into_owned()
        )
    )?;
    Ok(())
}

pub fn search_hit(out: &mut Out, hit: &SearchHit) -> anyhow::Result<()> {
    writeln!(
        out.stream,
        "{}:{}: {}",
        paint(PATH, escape_controls(&hit.path)),
        paint(LINE, hit.line),
        terminal_safe(&hit.text)
    )?;
    Ok(())
}

fn megabytes(bytes: u64) -> String {
    format!("{:.1} MB", bytes as f64 / 1_000_000.0)
}

/// One event of `mcursor watch`: a line (or a few) of text, or one JSON object per line
/// with the time it was written (`unix_ms`), flushed at once.
pub fn watch_event(out: &mut Out, event: &WatchEvent) -> anyhow::Result<()> {
    let unix_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0);
    if out.json {
        let value = match event {
            WatchEvent::Ready(s) => serde_json::json!({"event": "ready", "summary": s}),
            WatchEvent::Updated(s) => serde_json::json!({"event": "updated", "summary": s}),
            WatchEvent::Rescan(m) => serde_json::json!({"event": "rescan", "message": m}),
            WatchEvent::Polling(m) => serde_json::json!({"event": "polling", "message": m}),
            WatchEvent::Compacted { carried, summary } => serde_json::json!({
                "event": "compacted",
                "carried_files": carried,
                "summary": summary
            }),
            WatchEvent::Failed(m) => serde_json::json!({"event": "failed", "message": m}),
        };
        let mut value = value;
        value["unix_ms"] = unix_ms.into();
        out.json_value(&value)?;
        return Ok(out.flush()?);
    }
    match event {
        WatchEvent::Ready(s) => {
            if !s.unchanged {
                index_summary(out, s)?;
            }
            writeln!(
                out.stream,
                "watching {} ({} files, generation {}); Ctrl-C stops",
                s.root.display(),
                s.files,
                s.generation
            )?;
        }
        WatchEvent::Updated(s) => index_summary(out, s)?,
        WatchEvent::Compacted { carried, summary } => {
            out.note(&format!(
                "quiet: the patches carried {carried} files; everything resolved again from the cached facts"
            ))?;
            index_summary(out, summary)?;
        }
        WatchEvent::Rescan(why) => out.note(&format!("rescanning the tree: {why}"))?,
        WatchEvent::Polling(why) => out.note(&why.to_string())?,
        WatchEvent::Failed(why) => out.note(&format!(
            "update failed: {why}; the index stays as it was, watching goes on"
        ))?,
    }
    Ok(out.flush()?)
}

pub fn index_summary(out: &mut Out, s: &BuildSummary) -> anyhow::Result<()> {
    if s.unchanged {
        writeln!(
            out.stream,
            "index is current: no file changed since generation {} ({} files, {} symbols, {} references); `mcursor index --full` rebuilds it anyway",
            s.generation, s.files, s.symbols, s.references
        )?;
        return Ok(());
    }
    if s.incremental {
        let c = &s.changes;
        let mut parts = Vec::new();
        for (n, what) in [
            (c.modified, "changed"),
            (c.added, "added"),
            (c.deleted, "deleted"),
            (c.renamed, "renamed"),
        ] {
            if n > 0 {
                parts.push(format!("{n} {what}"));
            }
        }
        // A fold of the patches (`watch` when quiet) resolves again without a change.
        if parts.is_empty() {
            parts.push("no file changed".to_owned());
        }
        writeln!(
            out.stream,
            "updated in {:.2}s{}: {}; {} files, {} symbols, {} references (generation {})",
            s.duration_ms as f64 / 1000.0,
            match (s.patched, s.resolved_files) {
                (false, _) => String::new(),
                (true, 0) => " (patch)".to_owned(),
                (true, 1) => " (patch, references of 1 file resolved again)".to_owned(),
                (true, n) => format!(" (patch, references of {n} files resolved again)"),
            },
            parts.join(", "),
            s.files,
            s.symbols,
            s.references,
            s.generation
        )?;
        for f in c.files.iter().take(10) {
            let change = match &f.from {
                Some(from) => format!("renamed from {}", escape_controls(from)),
                None => format!("{:?}", f.change).to_lowercase(),
            };
            writeln!(
                out.stream,
                "  {}  {}",
                paint(PATH, escape_controls(&f.path)),
                paint(DIM, &change)
            )?;
        }
        let listed = c.files.len().min(10);
        let total = c.added + c.modified + c.deleted + c.renamed;
        if total > listed {
            writeln!(
                out.stream,
                "  ... {} more (--json lists them)",
                total - listed
            )?;
        }
        if s.reparsed > 0 {
            writeln!(
                out.stream,
                "  {} unchanged {} parsed again: the facts cache lacked {} (missing, damaged, \
                 or written by another version of mcursor)",
                s.reparsed,
                if s.reparsed == 1 { "file" } else { "files" },
                if s.reparsed == 1 { "it" } else { "them" },
            )?;
        }
        return Ok(());
    }
    let parsed: Vec<String> = s.parsed.iter().map(|(l, n)| format!("{n} {l}")).collect();
    writeln!(
        out.stream,
        "indexed {} files ({}) in {:.2}s: {} symbols, {} references",
        s.files,
        if parsed.is_empty() {
            "none parsed".to_owned()
        } else {
            parsed.join(", ")
        },
        s.duration_ms as f64 / 1000.0,
        s.symbols,
        s.references
    )?;
    writeln!(
        out.stream,
        "source {}, index {} (generation {}) in {}",
        megabytes(s.source_bytes),
        megabytes(s.index_bytes),
        s.generation,
        s.root.join(mcursor_index::INDEX_DIR).display()
    )?;
    if !s.skipped.is_empty() {
        let reasons: Vec<String> = s.skipped.iter().map(|(r, n)| format!("{n} {r}")).collect();
        writeln!(out.stream, "skipped: {}", reasons.join(", "))?;
        for f in s.skipped_files.iter().take(10) {
            writeln!(
                out.stream,
                "  {}  {}",
                paint(PATH, escape_controls(&f.path)),
                paint(DIM, &f.reason)
            )?;
        }
        if s.skipped_files.len() > 10 {
            writeln!(out.stream, "  ... (--json lists them all)")?;
        }
    }
    if !s.text_only.is_empty() {
        writeln!(
            out.stream,
            "{}",
            paint(
                WARN,
                format!(
                    "read as text only (no symbols; `search` covers them): {}",
                    counted_languages(&s.text_only)
                )
            )
        )?;
    }
    if s.syntax_errors > 0 {
        writeln!(
            out.stream,
            "{} files have syntax errors (indexed from their valid parts); `mcursor status --syntax-errors` lists them",
            s.syntax_errors
        )?;
    }
    for path in &s.timed_out {
        writeln!(
            out.stream,
            "{}: parse timed out; text search only",
            paint(WARN, escape_controls(path))
        )?;
    }
    Ok(())
}

pub fn status(out: &mut Out, s: &Status) -> anyhow::Result<()> {
    let langs: Vec<String> = s
        .files_per_lang
        .iter()
        .map(|(l, n)| format!("{n} {l}"))
        .collect();
    writeln!(
        out.stream,
        "index of {} (generation {})",
        s.root.display(),
        s.generation
    )?;
    writeln!(out.stream, "files: {} ({})", s.files, langs.join(", "))?;
    writeln!(
        out.stream,
        "symbols: {}, references: {}",
        s.symbols, s.references
    )?;
    writeln!(
        out.stream,
        "size: {} for {} of source",
        megabytes(s.index_bytes),
        megabytes(s.source_bytes)
    )?;
    if s.watched {
        let pid = s
            .watcher_pid
            .map_or(String::new(), |pid| format!(" (pid {pid})"));
        writeln!(
            out.stream,
            "watched: a running `mcursor watch`{pid} keeps it current and makes the updates `mcursor index` asks for"
        )?;
    }
    if s.current {
        writeln!(
            out.stream,
            "{}",
            paint(LINE, "current: no files changed since the index was built")
        )?;
    } else {
        writeln!(
            out.stream,
            "{}",
            paint(
                WARN,
                format!(
                    "stale: {} modified, {} added, {} deleted, {} renamed since the index was built; run `mcursor index` (or keep `mcursor watch` running)",
                    s.modified.len(),
                    s.added.len(),
                    s.deleted.len(),
                    s.renamed.len()
                )
            )
        )?;
        let renamed: Vec<String> = s
            .renamed
            .iter()
            .map(|r| {
                format!(
                    "{} (from {})",
                    escape_controls(&r.path),
                    escape_controls(r.from.as_deref().unwrap_or("?"))
                )
            })
            .collect();
        for (label, paths) in [
            ("modified", &s.modified),
            ("added", &s.added),
            ("deleted", &s.deleted),
            ("renamed", &renamed),
        ] {
            for p in paths.iter().take(20) {
                writeln!(
                    out.stream,
                    "  {label:<8} {}",
                    paint(PATH, escape_controls(p))
                )?;
            }
            if paths.len() > 20 {
                writeln!(out.stream, "  {label:<8} ... and {} more", paths.len() - 20)?;
            }
        }
    }
    Ok(())
}

/// Files indexed from their valid parts: a heading, then `path:line` each; with
/// `heading`, a last line says how to see them all when some are left out.
pub fn syntax_errors(out: &mut Out, errors: &SyntaxErrors, heading: bool) -> anyhow::Result<()> {
    if errors.total == 0 {
        return Ok(());
    }
    if heading {
        writeln!(
            out.stream,
            "{}",
            paint(
                WARN,
                format!(
                    "{} files have syntax errors (indexed from their valid parts):",
                    errors.total
                )
            )
        )?;
    }
    let indent = if heading { "  " } else { "" };
    for f in &errors.files {
        let at = match (f.line, f.timed_out) {
            (_, true) => ": parse timed out".to_owned(),
            (Some(line), false) => format!(":{line}"),
            (None, false) => " (line unknown)".to_owned(),
        };
        writeln!(
            out.stream,
            "{indent}{}{at}",
            paint(PATH, escape_controls(&f.path))
        )?;
    }
    if heading && errors.files.len() < errors.total {
        writeln!(
            out.stream,
            "  ... and {} more: `mcursor status --syntax-errors` lists them all",
            errors.total - errors.files.len()
        )?;
    }
    Ok(())
}

/// Text from the model, a command or a file, safe to print on a terminal: escape
/// sequences (colors, cursor moves, OSC 52 clipboard writes, window titles) and other
/// control characters are removed; newlines and tabs stay. A carriage return is removed
/// too, so a line cannot be drawn over another.
pub fn terminal_safe(text: &str) -> std::borrow::Cow<'_, str> {
    let unsafe_char = |c: char| c.is_control() && c != '\n' && c != '\t';
    if !text.chars().any(unsafe_char) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if !unsafe_char(c) {
            out.push(c);
            continue;
        }
        // What kind of sequence starts here (ESC x, or its one-character C1 form).
        let introducer = match c {
            '\u{1b}' => chars.next_if(|n| ('\u{40}'..='\u{5f}').contains(n)),
            '\u{9b}' => Some('['),
            '\u{9d}' => Some(']'),
            '\u{90}' => Some('P'),
            '\u{98}' => Some('X'),
            '\u{9e}' => Some('^'),
            '\u{9f}' => Some('_'),
            _ => None,
        };
        match introducer {
            // CSI: parameters, then one final byte.
            Some('[') => {
                for n in chars.by_ref() {
                    if ('\u{40}'..='\u{7e}').contains(&n) {
                        break;
                    }
                }
            }
            // Strings (OSC, DCS, SOS, PM, APC): up to BEL or ST.
            Some(']' | 'P' | 'X' | '^' | '_') => {
                while let Some(n) = chars.next() {
                    if n == '\u{7}' || n == '\u{9c}' {
                        break;
                    }
                    if n == '\u{1b}' {
                        chars.next_if_eq(&'\\');
                        break;
                    }
                }
            }
            _ => {}
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Text a person must judge (an approval prompt): every control character shown as an
/// escape (`\r`, `\x1b`), so nothing can redraw or hide what is asked; invisible
/// characters that reorder or hide text (bidirectional overrides, zero-width ones) shown
/// as `\u{...}`; long runs of spaces shown as a count. Newlines and tabs stay.
pub fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut spaces = 0usize;
    let flush_spaces = |out: &mut String, spaces: &mut usize| {
        if *spaces >= 16 {
            out.push_str(&format!("⟨{spaces} spaces⟩"));
        } else {
            out.extend(std::iter::repeat_n(' ', *spaces));
        }
        *spaces = 0;
    };
    for c in text.chars() {
        if c == ' ' {
            spaces += 1;
            continue;
        }
        flush_spaces(&mut out, &mut spaces);
        match c {
            '\n' => out.push('\n'),
            '\r' => out.push_str("\\r"),
            '\t' => out.push('\t'),
            '\u{1b}' => out.push_str("\\x1b"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32)),
            '\u{200b}'..='\u{200f}'
            | '\u{202a}'..='\u{202e}'
            | '\u{2060}'..='\u{2069}'
            | '\u{feff}' => out.push_str(&format!("\\u{{{:04x}}}", c as u32)),
            c => out.push(c),
        }
    }
    flush_spaces(&mut out, &mut spaces);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terminal_safe_removes_sequences_and_keeps_text() {
        assert_eq!(terminal_safe("plain\ttext\n"), "plain\ttext\n");
        assert_eq!(terminal_safe("\u{1b}[31mred\u{1b}[0m"), "red");
        assert_eq!(
            terminal_safe("copy\u{1b}]52;c;cm0gLXJmIH4=\u{7}done"),
            "copydone"
        );
        assert_eq!(terminal_safe("a\u{1b}]0;title\u{1b}\\b"), "ab");
        assert_eq!(terminal_safe("ok\r\u{1b}[2Kfake"), "okfake");
        assert_eq!(terminal_safe("c1\u{9b}2Jx"), "c1x");
        assert_eq!(terminal_safe("bell\u{7}\u{8}"), "bell");
        // A sequence cut at the end of a chunk loses its introducer; the rest is text.
        assert_eq!(terminal_safe("tail\u{1b}"), "tail");
    }

    #[test]
    fn visible_shows_what_would_hide() {
        assert_eq!(
            visible("echo harmless\r\u{1b}[2Kls"),
            "echo harmless\\r\\x1b[2Kls"
        );
        assert_eq!(
            visible(&format!("echo harmless{}; touch pwned", " ".repeat(80))),
            "echo harmless⟨80 spaces⟩; touch pwned"
        );
        assert_eq!(visible("a  b\nc\td"), "a  b\nc\td");
        assert_eq!(visible("x\u{202e}y\u{200b}"), "x\\u{202e}y\\u{200b}");
    }
}
