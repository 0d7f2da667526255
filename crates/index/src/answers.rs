//! Compact plain-text answers for models: the same wording whether the index is reached
//! over MCP (`mcursor-mcp`) or by mcursor's own agent (`mcursor-agent`). One line per
//! hit, `path:line:column` first, so a model can quote and open it.

use crate::Result;
use crate::query::{Index, RefHit, RefTarget, SearchHit, SymbolHit};

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

pub fn symbol_line(hit: &SymbolHit) -> String {
    format!(
        "{}:{}:{} {} {}  {}",
        hit.path, hit.line, hit.column, hit.kind, hit.qualified_name, hit.signature
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
                .map(|t| format!("{}:{}", t.path, t.line))
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
                r.path,
                r.line,
                r.column,
                r.kind,
                r.enclosing.as_deref().unwrap_or("top level"),
                r.text
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Matching lines of a code search.
pub fn search(hits: &[SearchHit]) -> String {
    if hits.is_empty() {
        return "no matches".to_owned();
    }
    hits.iter()
        .map(|h| format!("{}:{}: {}", h.path, h.line, h.text))
        .collect::<Vec<_>>()
        .join("\n")
}
