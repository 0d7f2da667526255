//! mcursor-index owns a repository's code index: the walk, the parallel parse pipeline,
//! name resolution, the symbol/reference graph, the full-text index, the on-disk store in
//! `.mcursor/`, and the query API that the CLI and the agent tools call.
//!
//! Invariants:
//! - Synchronous and thread-based (rayon); async callers use `spawn_blocking`.
//! - The symbol store and the text index are committed together under one generation
//!   number; a reader opens the generation the text index committed, never a mix, and a
//!   killed build leaves the previous generation readable (see [`build`]).
//! - One writer at a time across processes (see [`lock`]).
//! - Every reference says how sure it is ([`Confidence`]); "no such symbol" and "no
//!   references" are different answers.
//!
//! ```no_run
//! use mcursor_index::{BuildOptions, FindQuery, Index, build_index};
//! let root = std::path::Path::new(".");
//! build_index(root, &BuildOptions::default(), &|_| {})?;
//! let index = Index::open(root)?;
//! for hit in index.find(&FindQuery::exact("parse_config")) {
//!     println!("{}:{}:{} {}", hit.path, hit.line, hit.column, hit.signature);
//! }
//! # Ok::<(), mcursor_index::IndexError>(())
//! ```

pub mod build;
mod cache;
mod dump;
pub mod error;
mod export;
mod fresh;
mod graph;
mod handoff;
mod impact;
mod impls;
pub mod live;
pub mod lock;
mod query;
pub mod resident;
mod resolve;
pub mod store;
mod text;
mod trace;
pub mod walk;
pub mod watch;

use std::path::{Path, PathBuf};

pub use build::{
    BuildOptions, BuildSummary, Cancel, Change, ChangedFile, Changes, FoldPolicy, ParseOnlyReport,
    Progress, build_index, check_root, decode_source, parse_only,
};
pub use error::{IndexError, Result};
pub use export::{EdgeKind, ExportEdge, ExportSymbol};
pub use fresh::{Freshness, Scope as FreshnessScope};
pub use handoff::{HandedOff, update_by_watcher};
pub use impact::{Impact, ImpactKind, ImpactSite};
pub use impls::ImplHit;
pub use live::LiveIndex;
pub use lock::LockWait;
pub use query::{
    CallEdge, FindQuery, Index, MAX_QUERY_BYTES, MAX_QUERY_WORDS, Page, RefConfidence, RefHit,
    RefTarget, RefsQuery, STATUS_SYNTAX_ERRORS, SearchHit, SearchQuery, Status, SymbolHit,
    SyntaxErrorFile, SyntaxErrors, UnreadMention,
};
pub use resident::ResidentDeclarations;
pub use store::{Confidence, FORMAT_VERSION, ImplKind};
pub use walk::{INDEX_DIR, SkipReason};
pub use watch::{BackgroundWatch, WatchEvent, WatchOptions, watch};

pub(crate) const FORMAT_FILE: &str = "FORMAT";
pub(crate) const TEXT_DIR: &str = "text";

/// What the `FORMAT` file says before the format's number.
pub(crate) const FORMAT_MARKER_PREFIX: &str = "mcursor index format ";

pub(crate) fn format_marker() -> String {
    format!("{FORMAT_MARKER_PREFIX}{FORMAT_VERSION}\n")
}

/// What each commit of the text index records in its payload: the store generation it
/// was committed with (the commit protocol: the text commit publishes a generation).
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct CommitPayload {
    pub generation: u64,
}

impl CommitPayload {
    pub(crate) fn to_json(&self) -> String {
        serde_json::to_string(self).unwrap_or_default()
    }

    fn generation_of(payload: &str) -> Option<u64> {
        serde_json::from_str::<CommitPayload>(payload)
            .ok()
            .map(|p| p.generation)
    }
}

/// The generation the text index last committed, from its commit payload.
pub(crate) fn committed_generation(index: &tantivy::Index) -> Option<u64> {
    let payload = index.load_metas().ok()?.payload?;
    CommitPayload::generation_of(&payload)
}

/// Why the text index's `meta.json` names no generation.
pub(crate) enum UncommittedText {
    Missing,
    Unreadable,
    NoGeneration,
}

/// The generation recorded in the text index's `meta.json` under `dir` (`.mcursor/`),
/// read without opening the index.
pub(crate) fn text_meta_generation(dir: &std::path::Path) -> Result<u64, UncommittedText> {
    /// The part of tantivy's `meta.json` mcursor reads.
    #[derive(serde::Deserialize)]
    struct TextMeta {
        payload: Option<String>,
    }
    let meta = std::fs::read(dir.join(TEXT_DIR).join("meta.json"))
        .map_err(|_| UncommittedText::Missing)?;
    let meta: TextMeta = serde_json::from_slice(&meta).map_err(|_| UncommittedText::Unreadable)?;
    meta.payload
        .as_deref()
        .and_then(CommitPayload::generation_of)
        .ok_or(UncommittedText::NoGeneration)
}

/// The generation of `root`'s index as last committed, read from the text index's
/// `meta.json` alone (no index opened): cheap enough to poll, for servers that announce
/// updates. `None` without an index.
pub fn current_generation(root: &std::path::Path) -> Option<u64> {
    text_meta_generation(&root.join(walk::INDEX_DIR)).ok()
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

/// The nearest directory at or above `start` that holds an index (like git finds `.git`).
pub fn find_root(start: &Path) -> Result<PathBuf> {
    let start = std::fs::canonicalize(start).map_err(|e| IndexError::on_user_path(start, e))?;
    let mut current = Some(start.as_path());
    while let Some(dir) = current {
        if dir.join(INDEX_DIR).join(FORMAT_FILE).is_file() {
            return Ok(dir.to_path_buf());
        }
        current = dir.parent();
    }
    Err(IndexError::NoIndex(start))
}

#[cfg(test)]
mod tests {
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
