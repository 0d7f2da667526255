//! Compact plain-text answers for models: the same wording whether the index is reached
//! over MCP (`mcursor-mcp`) or by mcursor's own agent (`mcursor-agent`). One line per
//! hit, `path:line:column` first, so a model can quote and open it.

use crate::Result;
use crate::query::{Index, Page, RefHit, RefTarget, SearchHit, SymbolHit, UnreadMention};

/// What a name or `path:line` target names: its definitions, or nothing, with the
/// closest names (which are suggestions, not matches).
pub enum Targets {
    Found(Vec<SymbolHit>),
    Missing { suggestions: Vec<String> },
}

/// The definitions `target` (a name or `path:line[:column]`) stands for.
pub fn targets(index: &Index, target: &str) -> Result<Targets> {
    let hits = index.targets(&RefTarget::parse(target))?;
    if hits.is_empty() {
        return Ok(Targets::Missing {
            suggestions: index.similar_names(target, 5),
        });
    }
    Ok(Targets::Found(hits))
}

/// A file name (or a name derived from one, such as a module path) as text output shows
/// it: control characters escaped (`\n`, `\x1b`), so a name with a newline cannot fake
/// result lines and one with escape sequences cannot draw on a terminal. Ordinary names
/// are unchanged.
pub fn escape_controls(path: &str) -> std::borrow::Cow<'_, str> {
    if !path.chars().any(char::is_control) {
        return std::borrow::Cow::Borrowed(path);
    }
    let mut shown = String::with_capacity(path.len() + 8);
    for c in path.chars() {
        match c {
            '\n' => shown.push_str("\\n"),
            '\r' => shown.push_str("\\r"),
            '\t' => shown.push_str("\\t"),
            c if c.is_control() => shown.push_str(&format!("\\x{:02x}", c as u32)),
            c => shown.push(c),
        }
    }
    std::borrow::Cow::Owned(shown)
}

pub fn symbol_line(hit: &SymbolHit) -> String {
    format!(
        "{}:{}:{} {} {}  {}",
        escape_controls(&hit.path),
        hit.line,
        hit.column,
        hit.kind,
        escape_controls(&hit.qualified_name),
        hit.signature
    )
}

/// Definitions, one per line.
pub fn definitions(hits: &[SymbolHit]) -> String {
    hits.iter().map(symbol_line).collect::<Vec<_>>().join("\n")
}

/// "No such symbol", with suggestions labeled as not being matches.
pub fn missing(name: &str, suggestions: &[String]) -> String {
    let mut text = format!("no symbol named {name}");
    if !suggestions.is_empty() {
        text.push_str(&format!(
            "\nsuggestions (not matches): {}",
            suggestions.join(", ")
        ));
    }
    text
}

/// References, or a sentence saying the target exists but nothing refers to it.
pub fn references(target: &str, definitions: &[SymbolHit], refs: &[RefHit]) -> String {
    if refs.is_empty() {
        return format!(
            "{target} is defined ({}) but nothing in the index refers to it",
            definitions
                .iter()
                .map(|t| format!("{}:{}", escape_controls(&t.path), t.line))
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    refs.iter()
        .map(|r| {
            let confidence = if r.confidence == crate::query::DISPATCH {
                format!("{} via {}", r.confidence, r.target)
            } else {
                r.confidence.to_owned()
            };
            format!(
                "{}:{}:{} [{} in {}, {confidence}] {}",
                escape_controls(&r.path),
                r.line,
                r.column,
                r.kind,
                escape_controls(r.enclosing.as_deref().unwrap_or("top level")),
                r.text
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// References for a model with little room: a first line with the counts (per
/// confidence, and per kind of use among the sure ones), then the uses best first
/// (resolved, then dispatch, then name matches, each in path order) from `offset` on,
/// as many as fit in `budget` bytes, then how to get the rest. `total` is how many uses
/// there are in all (`hits` may be the first of them).
pub fn ranked_references(
    target: &str,
    definitions: &[SymbolHit],
    hits: &[RefHit],
    total: usize,
    offset: usize,
    budget: usize,
) -> String {
    if hits.is_empty() {
        return references(target, definitions, hits);
    }
    let rank = |r: &RefHit| match r.confidence {
        "resolved" => 0,
        crate::query::DISPATCH => 1,
        _ => 2,
    };
    let mut ordered: Vec<&RefHit> = hits.iter().collect();
    ordered.sort_by_key(|r| rank(r));
    let count = |confidence: &str| hits.iter().filter(|r| r.confidence == confidence).count();
    let mut sure_kinds: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for r in hits.iter().filter(|r| rank(r) < 2) {
        *sure_kinds.entry(r.kind).or_insert(0) += 1;
    }
    let kinds: Vec<String> = sure_kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    // The definition's place is left out: a small model took it for a use.
    let mut text = format!(
        "{target} is used {total} time{}: {} resolved{}, {} dispatch, {} name matches (may be other symbols){}",
        if total == 1 { "" } else { "s" },
        count("resolved"),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        count(crate::query::DISPATCH),
        count("heuristic"),
        if hits.len() < total {
            format!("; counts of the first {}", hits.len())
        } else {
            String::new()
        }
    );
    let lines = ordered
        .iter()
        .skip(offset)
        .map(|r| references(target, definitions, std::slice::from_ref(*r)));
    let shown = push_fitting(&mut text, lines, budget);
    let end = offset + shown;
    if end < hits.len() || hits.len() < total {
        text.push_str(&format!(
            "\n(uses {}-{end} of {total} shown; offset={end} for the next, or kind=call or path=DIR to narrow)",
            offset + 1
        ));
    }
    text
}

/// The lines of an answer that fit in `budget` bytes (the first always), and a last line
/// saying how many of `total` were shown and how to get the rest when any were left
/// out. `at_least`: `total` is a lower bound.
pub fn fit_lines(
    lines: &[String],
    total: usize,
    at_least: bool,
    budget: usize,
    how: &str,
) -> String {
    let mut text = String::new();
    let shown = push_fitting(&mut text, lines.iter().cloned(), budget);
    if shown < total || at_least {
        text.push_str(&format!(
            "\n({shown} of {}{total} shown; {how})",
            if at_least { "at least " } else { "" }
        ));
    }
    text
}

/// Appends `lines` to `text`, one per line, while `text` stays within `budget` bytes (the
/// first line always); returns how many were appended.
fn push_fitting(text: &mut String, lines: impl Iterator<Item = String>, budget: usize) -> usize {
    let mut shown = 0;
    for line in lines {
        let separator = usize::from(!text.is_empty());
        if shown > 0 && text.len() + separator + line.len() > budget {
            break;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
        shown += 1;
    }
    shown
}

/// `text`, and a last line saying how much a cut list left out and how to get it.
pub fn with_cut<T>(mut text: String, page: &Page<T>, how: &str) -> String {
    if let Some(shown) = page.shown() {
        text.push_str(&format!("\n({shown}; {how})"));
    }
    text
}

/// What an empty answer could not read: files naming `target` where the parser failed.
pub fn unread(target: &str, unread: &[UnreadMention]) -> String {
    let files: Vec<String> = unread
        .iter()
        .take(20)
        .map(|u| {
            let lines: Vec<String> = u.lines.iter().take(10).map(u32::to_string).collect();
            format!(
                "{}:{} ({})",
                escape_controls(&u.path),
                lines.join(","),
                u.why
            )
        })
        .collect();
    format!(
        "nothing parsed refers to {target}, but these files name it where the parser could not read the code (possible uses): {}{}",
        files.join(", "),
        if unread.len() > 20 {
            format!(", and {} more files", unread.len() - 20)
        } else {
            String::new()
        }
    )
}

/// Matching lines of a code search.
pub fn search(hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        return "no matches".to_owned();
    }
    hits.iter()
        .map(|h| format!("{}:{}: {}", escape_controls(&h.path), h.line, h.text))
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn lines_fit_the_budget_and_say_what_was_left_out() {
        let lines: Vec<String> = (0..10).map(|i| format!("line number {i}")).collect();
        let cut = fit_lines(&lines, 40, false, 30, "narrow it");
        assert_eq!(
            cut,
            "line number 0\nline number 1\n(2 of 40 shown; narrow it)"
        );
        let whole = fit_lines(&lines[..2], 2, false, 1_000, "narrow it");
        assert_eq!(whole, "line number 0\nline number 1");
        // The first line always comes, however small the budget.
        assert!(
            fit_lines(&lines, 10, true, 1, "x").starts_with("line number 0\n(1 of at least 10")
        );
    }

    use super::*;

    #[test]
    fn file_names_cannot_fake_lines() {
        assert_eq!(escape_controls("src/lib.rs"), "src/lib.rs");
        assert_eq!(
            escape_controls("a.rs:1: fake\nsrc/real.rs"),
            "a.rs:1: fake\\nsrc/real.rs"
        );
        assert_eq!(escape_controls("x\u{1b}[2J.rs"), "x\\x1b[2J.rs");
    }
}
