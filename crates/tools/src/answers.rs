//! The wording of index answers: compact plain text, one line per hit with
//! `path:line:column` first (so a model can quote it and open the file), ranked, cut to a
//! byte budget, and always saying what was left out and how to get it.

use mcursor_index::{
    CallEdge, Impact, ImpactSite, ImplHit, ImplKind, RefConfidence, RefHit, SearchHit, SymbolHit,
    UnreadMention, escape_controls,
};

pub fn symbol_line(hit: &SymbolHit) -> String {
    format!(
        "{}:{}:{} {} {}  {}",
        escape_controls(&hit.path),
        hit.line,
        hit.column,
        hit.kind.as_str(),
        escape_controls(&hit.qualified_name),
        hit.signature
    )
}

pub fn reference_line(r: &RefHit) -> String {
    let confidence = match r.confidence {
        RefConfidence::Dispatch => format!("dispatch via {}", r.target),
        RefConfidence::Resolved | RefConfidence::Heuristic => r.confidence.as_str().to_owned(),
    };
    format!(
        "{}:{}:{} [{} in {}, {confidence}] {}",
        escape_controls(&r.path),
        r.line,
        r.column,
        r.kind.as_str(),
        escape_controls(r.enclosing.as_deref().unwrap_or("top level")),
        r.text
    )
}

/// The first line of an impact answer: totals, counts per level and kind, and what was
/// not followed.
pub fn impact_summary(target: &str, depth: u32, impact: &Impact) -> String {
    if impact.sites.is_empty() {
        return format!(
            "nothing in the index uses or implements {target}: a change to it affects no other code the index knows"
        );
    }
    let mut levels: std::collections::BTreeMap<u32, std::collections::BTreeMap<&str, usize>> =
        std::collections::BTreeMap::new();
    for site in &impact.sites {
        *levels
            .entry(site.depth)
            .or_default()
            .entry(site.kind.as_str())
            .or_default() += 1;
    }
    let levels: Vec<String> = levels
        .iter()
        .map(|(level, kinds)| {
            let kinds: Vec<String> = kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
            format!("level {level}: {}", kinds.join(", "))
        })
        .collect();
    let mut text = format!(
        "a change to {target} (to depth {depth}) can affect {} site{} in {} file{} ({} definition{}); {}",
        impact.sites.len(),
        if impact.sites.len() == 1 { "" } else { "s" },
        impact.per_file.len(),
        if impact.per_file.len() == 1 { "" } else { "s" },
        impact.definitions,
        if impact.definitions == 1 { "" } else { "s" },
        levels.join("; ")
    );
    if impact.heuristic_not_followed > 0 {
        text.push_str(&format!(
            ". Cut at name matches: {} definition{} reached only by heuristic uses not followed further",
            impact.heuristic_not_followed,
            if impact.heuristic_not_followed == 1 { "" } else { "s" }
        ));
    }
    if impact.truncated {
        text.push_str(". The walk stopped at its limit: there may be more");
    }
    text
}

/// `path:line:column level 1 call in a::go (uses Runner) [resolved]`.
pub fn impact_line(s: &ImpactSite) -> String {
    format!(
        "{}:{}:{} level {} {} in {} (uses {}) [{}]",
        escape_controls(&s.path),
        s.line,
        s.column,
        s.depth,
        s.kind.as_str(),
        escape_controls(s.affected.as_deref().unwrap_or("top level")),
        escape_controls(&s.uses),
        s.confidence.as_str()
    )
}

/// What an edge calls: its callee, or when name matching left several candidates,
/// `one of 7: a::Regex::is_match, b::Regex::is_match, ... (+2 more)`.
pub fn callee_text(e: &CallEdge) -> String {
    const SHOWN: usize = 4;
    if e.candidates.len() < 2 {
        return e.callee.clone();
    }
    let mut text = format!(
        "one of {}: {}",
        e.candidates.len(),
        e.candidates[..e.candidates.len().min(SHOWN)].join(", ")
    );
    if e.candidates.len() > SHOWN {
        text.push_str(&format!(" (+{} more)", e.candidates.len() - SHOWN));
    }
    text
}

/// One call graph edge, indented by its depth.
pub fn edge_line(e: &CallEdge) -> String {
    format!(
        "{}{} -> {} ({}; {})",
        "  ".repeat(e.depth.saturating_sub(1) as usize),
        escape_controls(&e.caller),
        escape_controls(&callee_text(e)),
        e.sites.join(", "),
        e.confidence.as_str()
    )
}

/// What implements what: `impl Runner for engine::Engine`, `Engine is a subtype of Base`
/// (`extends`, `implements`, a supertrait: declared in the type's own header).
pub fn implementation_phrase(i: &ImplHit) -> String {
    let implementor = i
        .implementor
        .as_ref()
        .map_or(i.implementor_text.as_str(), |s| s.qualified_name.as_str());
    match i.kind {
        ImplKind::Impl => format!("impl {} for {implementor}", i.implements),
        ImplKind::Blanket => format!(
            "impl {} for every {implementor} (blanket impl)",
            i.implements
        ),
        ImplKind::Subtype => format!("{implementor} is a subtype of {}", i.implements),
    }
}

/// `path:line:column impl Runner for Engine: run (5), stop (9)`; deeper levels indented.
pub fn implementation_line(i: &ImplHit) -> String {
    let mut line = format!(
        "{}{}:{}:{} {}",
        "  ".repeat(i.depth.saturating_sub(1) as usize),
        escape_controls(&i.path),
        i.line,
        i.column,
        escape_controls(&implementation_phrase(i))
    );
    if !i.methods.is_empty() {
        let methods: Vec<String> = i
            .methods
            .iter()
            .map(|m| format!("{} ({})", escape_controls(&m.name), m.line))
            .collect();
        line.push_str(": ");
        line.push_str(&methods.join(", "));
    }
    line
}

pub fn search_line(h: &SearchHit) -> String {
    format!("{}:{}: {}", escape_controls(&h.path), h.line, h.text)
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

/// The target exists, and nothing in the index refers to it.
pub fn unused(target: &str, definitions: &[SymbolHit]) -> String {
    format!(
        "{target} is defined ({}) but nothing in the index refers to it",
        definitions
            .iter()
            .map(|t| format!("{}:{}", escape_controls(&t.path), t.line))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// The target exists, and nothing in the index implements or extends it.
pub fn no_implementations(target: &str, definitions: &[SymbolHit]) -> String {
    let kinds: std::collections::BTreeSet<&str> =
        definitions.iter().map(|d| d.kind.as_str()).collect();
    let kinds: Vec<&str> = kinds.into_iter().collect();
    format!(
        "{target} ({}{}) is defined, but nothing in the index implements, extends or overrides it",
        kinds.join(", "),
        match definitions.len() {
            1 => String::new(),
            n => format!("; {n} definitions"),
        }
    )
}

/// The first line of a references answer: the counts per confidence, and per kind of use
/// among the sure ones. `hits` are the uses looked at, `total` how many there are in all.
/// (The definition's place is left out: a small model took it for a use.)
pub fn references_summary(target: &str, hits: &[RefHit], total: usize) -> String {
    let count = |c: RefConfidence| hits.iter().filter(|r| r.confidence == c).count();
    let mut sure_kinds: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for r in hits
        .iter()
        .filter(|r| r.confidence != RefConfidence::Heuristic)
    {
        *sure_kinds.entry(r.kind.as_str()).or_insert(0) += 1;
    }
    let kinds: Vec<String> = sure_kinds.iter().map(|(k, n)| format!("{n} {k}")).collect();
    format!(
        "{target} is used {total} time{}: {} resolved{}, {} dispatch, {} name matches (may be other symbols){}",
        if total == 1 { "" } else { "s" },
        count(RefConfidence::Resolved),
        if kinds.is_empty() {
            String::new()
        } else {
            format!(" ({})", kinds.join(", "))
        },
        count(RefConfidence::Dispatch),
        count(RefConfidence::Heuristic),
        if hits.len() < total {
            format!("; counts of the first {}", hits.len())
        } else {
            String::new()
        }
    )
}

/// Uses best first: resolved, then dispatch, then name matches, each in path order.
pub fn rank_references(hits: &mut [RefHit]) {
    hits.sort_by_key(|r| r.confidence);
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

/// Which part of a list an answer holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Window {
    /// Items skipped before the first one shown.
    pub offset: usize,
    /// At most this many items.
    pub limit: usize,
    /// At most this many bytes of text (the first item always comes).
    pub budget: usize,
}

/// A list answer: the text, and how many items it shows from the window's offset on.
pub struct Listing {
    pub text: String,
    pub shown: usize,
}

/// `header` (if any), then the `lines` from the window's offset on, as many as its limit
/// and byte budget allow, then, when anything was left out, how many were shown of
/// `total` (`at_least`: a lower bound) and how to get the rest: the next offset, or
/// `narrow`.
pub fn listing(
    header: Option<String>,
    lines: impl Iterator<Item = String>,
    total: usize,
    at_least: bool,
    window: Window,
    narrow: &str,
) -> Listing {
    let mut text = header.unwrap_or_default();
    let mut shown = 0;
    for line in lines.skip(window.offset).take(window.limit) {
        let separator = usize::from(!text.is_empty());
        if shown > 0 && text.len() + separator + line.len() > window.budget {
            break;
        }
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(&line);
        shown += 1;
    }
    let end = window.offset + shown;
    if shown == 0 && window.offset > 0 {
        text.push_str(&format!(
            "{}(offset {} is past the end: there are {total})",
            if text.is_empty() { "" } else { "\n" },
            window.offset
        ));
    } else if end < total || at_least {
        let range = if window.offset == 0 {
            shown.to_string()
        } else {
            format!("{}-{end}", window.offset + 1)
        };
        text.push_str(&format!(
            "\n({range} of {}{total} shown; offset={end} for the next, or {narrow})",
            if at_least { "at least " } else { "" }
        ));
    }
    Listing { text, shown }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(offset: usize, limit: usize, budget: usize) -> Window {
        Window {
            offset,
            limit,
            budget,
        }
    }

    #[test]
    fn lines_fit_the_budget_and_say_what_was_left_out() {
        let lines: Vec<String> = (0..10).map(|i| format!("line number {i}")).collect();
        let listed = |total, at_least, w| {
            listing(None, lines.iter().cloned(), total, at_least, w, "narrow it").text
        };
        assert_eq!(
            listed(10, false, window(0, 100, 30)),
            "line number 0\nline number 1\n(2 of 10 shown; offset=2 for the next, or narrow it)"
        );
        assert_eq!(
            listed(10, false, window(0, 2, 1_000)),
            "line number 0\nline number 1\n(2 of 10 shown; offset=2 for the next, or narrow it)"
        );
        assert_eq!(
            listed(10, false, window(8, 100, 1_000)),
            "line number 8\nline number 9"
        );
        assert!(
            listed(10, false, window(3, 1, 1_000))
                .ends_with("(4-4 of 10 shown; offset=4 for the next, or narrow it)")
        );
        // The first line always comes, however small the budget.
        assert!(
            listed(40, true, window(0, 100, 1)).starts_with("line number 0\n(1 of at least 40")
        );
        assert_eq!(
            listed(10, false, window(12, 100, 1_000)),
            "(offset 12 is past the end: there are 10)"
        );
    }
}
