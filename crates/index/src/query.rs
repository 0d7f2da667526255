//! The query API over one committed generation: definitions, references, call graph,
//! full-text and regex search, status.
//!
//! Opening reads the text index's committed generation from its `meta.json` and maps the
//! matching store file; the text index itself is opened only when a search needs it, so a
//! `find` touches two small files and a few pages of the mapping.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use globset::{GlobBuilder, GlobMatcher};
use mcursor_syntax::{Lang, RefKind, SymbolKind};
use rayon::prelude::*;
use serde::Serialize;
use tantivy::collector::TopDocs;
use tantivy::schema::Value as _;

use crate::build::{Change, ChangedFile};
use crate::error::{IndexError, IoContext, Result};
use crate::graph::{CallNode, CallSite, Direction, explore};
use crate::store::{Confidence, FileInfo, RefInfo, RefShape, Store, SymbolInfo};
use crate::walk::{INDEX_DIR, SourceRoot};
use crate::{FORMAT_FILE, TEXT_DIR, decode_source, format_marker, text};

/// Below this many files to read, a query reads them on its own thread: starting the
/// thread pool costs more (much more on a loaded machine or one with many cores).
const PARALLEL_FILES: usize = 32;

/// Longest line text returned with a hit, in characters.
const MAX_LINE_CHARS: usize = 300;

/// A definition. (Its JSON and text shapes live above the index, in `mcursor-tools`.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolHit {
    pub name: String,
    pub qualified_name: String,
    pub kind: SymbolKind,
    /// `None` only for a file the index keeps as text (which has no definitions).
    pub lang: Option<Lang>,
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub signature: String,
    pub doc: String,
    pub id: u32,
    /// A member of a container: never what a bare name refers to.
    pub member: bool,
}

/// A reference.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RefHit {
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub kind: RefKind,
    /// Qualified name of the definition the use sits in, if any.
    pub enclosing: Option<String>,
    /// Qualified name of the definition it refers to (resolved, a guess, or for a
    /// dispatch the trait's, interface's or base class's member it names), or the bare
    /// name (heuristic by name: any definition with that name).
    pub target: String,
    /// The file and line of that definition, when `target` names one: tells apart
    /// same-named definitions in different files (two TypeScript modules' `ZodType`).
    pub target_path: Option<String>,
    pub target_line: Option<u32>,
    pub confidence: RefConfidence,
    pub text: String,
}

/// How sure a reference is to reach the asked-for definition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum RefConfidence {
    /// Decided by scope, an import, a path or the receiver's declared type.
    Resolved,
    /// A call through a trait's, interface's or base class's member that the asked-for
    /// one implements or overrides: it may reach it.
    Dispatch,
    /// Matched by name only: it may be another definition with that name.
    Heuristic,
}

impl RefConfidence {
    pub const fn as_str(self) -> &'static str {
        match self {
            RefConfidence::Resolved => "resolved",
            RefConfidence::Dispatch => "dispatch",
            RefConfidence::Heuristic => "heuristic",
        }
    }
}

impl From<Confidence> for RefConfidence {
    fn from(confidence: Confidence) -> Self {
        match confidence {
            Confidence::Resolved => RefConfidence::Resolved,
            Confidence::Heuristic => RefConfidence::Heuristic,
        }
    }
}

/// A reference `refs` found, before its line is read: the record, the target label, and
/// whether it reaches the asked-for member by dispatch.
pub(crate) struct Found {
    pub r: RefInfo,
    pub target: String,
    /// Where the definition named by `target` is, when the reference names one.
    pub target_at: Option<(String, u32)>,
    pub dispatch: bool,
}

/// A full-text or regex match, as the CLI's `search` JSON prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SearchHit {
    pub path: String,
    pub line: u32,
    pub text: String,
    pub score: f32,
}

/// The first hits of a longer answer, and how many there are: a list cut at a limit
/// says so.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Page<T> {
    pub hits: Vec<T>,
    /// How many hits there are in all.
    pub total: usize,
    /// `total` counts what was looked at, and there is more (a search reads the best
    /// ranked files only).
    pub total_at_least: bool,
}

impl<T> Page<T> {
    /// All the hits there are, uncut.
    pub fn whole(hits: Vec<T>) -> Page<T> {
        let total = hits.len();
        Page {
            hits,
            total,
            total_at_least: false,
        }
    }

    /// Whether there are more hits than these.
    pub fn truncated(&self) -> bool {
        self.total_at_least || self.total > self.hits.len()
    }

    /// `100 of 114 shown` (`50 of at least 220 shown`), or `None` when nothing was cut.
    pub fn shown(&self) -> Option<String> {
        self.truncated().then(|| {
            format!(
                "{} of {}{} shown",
                self.hits.len(),
                if self.total_at_least { "at least " } else { "" },
                self.total
            )
        })
    }
}

/// A file that may refer to a symbol where the parser could not read it: an answer of
/// "nothing refers to it" names these instead of passing for certain.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct UnreadMention {
    pub path: String,
    /// Lines that name the symbol inside a region the parser could not read (all lines
    /// naming it when the file was not parsed at all).
    pub lines: Vec<u32>,
    /// `syntax error`, `parse timed out`, or `not checked` (past the files re-read).
    pub why: &'static str,
}

/// Files with syntax errors re-parsed to find out whether a mention sits in an error.
const MAX_REPARSED: usize = 20;

/// One edge of a call graph answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallEdge {
    /// 1 for direct callers/callees, 2 for theirs, ...
    pub depth: u32,
    pub caller: String,
    pub callee: String,
    /// When the same call sites may reach several definitions (a name match among
    /// same-named methods of several types): all of them, `callee` first; else empty.
    pub candidates: Vec<String>,
    /// Where the caller is defined (or the file, for top-level code).
    pub caller_path: String,
    pub caller_line: u32,
    /// Call sites as `path:line:column`.
    pub sites: Vec<String>,
    /// Resolved when every site is.
    pub confidence: Confidence,
}

/// What `find` looks for.
#[derive(Debug, Clone, Default)]
pub struct FindQuery {
    /// A name, or a qualified name with `::` or `.` (`Session::run`, `Store.add`).
    pub name: String,
    pub kind: Option<SymbolKind>,
    pub lang: Option<Lang>,
    /// Names starting with `name`.
    pub prefix: bool,
    /// Names similar to `name` (the caller labels these as fuzzy).
    pub fuzzy: bool,
    pub limit: Option<usize>,
}

impl FindQuery {
    pub fn exact(name: &str) -> Self {
        Self {
            name: name.to_owned(),
            ..Self::default()
        }
    }
}

/// What `refs` looks for.
#[derive(Debug, Clone)]
pub enum RefTarget {
    Name(String),
    /// `path:line[:column]`, 1-based.
    Location {
        path: String,
        line: u32,
        column: Option<u32>,
    },
}

impl RefTarget {
    /// `src/a.rs:42:8` and `src/a.rs:42` are locations; anything else is a name.
    pub fn parse(text: &str) -> RefTarget {
        let mut parts = text.rsplitn(3, ':');
        let last = parts.next();
        let middle = parts.next();
        let first = parts.next();
        let number = |s: Option<&str>| s.and_then(|s| s.parse::<u32>().ok());
        match (first, number(middle), number(last)) {
            (Some(path), Some(line), Some(column)) if !path.is_empty() => RefTarget::Location {
                path: path.to_owned(),
                line,
                column: Some(column),
            },
            _ => match (middle, number(last)) {
                (Some(path), Some(line)) if !path.is_empty() && first.is_none() => {
                    RefTarget::Location {
                        path: path.to_owned(),
                        line,
                        column: None,
                    }
                }
                _ => RefTarget::Name(text.to_owned()),
            },
        }
    }
}

/// Options of `refs`.
#[derive(Debug, Clone, Default)]
pub struct RefsQuery {
    pub kind: Option<RefKind>,
    /// Leave out name-matched references.
    pub resolved_only: bool,
    /// Leave out calls made through a trait, interface or base-class member that a
    /// target implements or overrides (confidence `dispatch`).
    pub direct_only: bool,
    /// Only uses in this file, below this directory, or matching this glob (`*`, `?`,
    /// `[...]`: `src/**/*.rs`), root-relative and `/`-separated.
    pub under: Option<String>,
    pub limit: Option<usize>,
}

/// What `search` looks for.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub query: String,
    pub regex: bool,
    pub path_glob: Option<String>,
    pub lang: Option<Lang>,
    pub limit: usize,
}

/// `mcursor status`.
#[derive(Debug, Clone, Serialize)]
pub struct Status {
    pub root: PathBuf,
    pub generation: u64,
    pub built_unix_ms: u64,
    pub files: u32,
    pub symbols: u32,
    pub references: u32,
    pub files_per_lang: BTreeMap<String, u32>,
    pub index_bytes: u64,
    pub source_bytes: u64,
    pub current: bool,
    pub modified: Vec<String>,
    pub added: Vec<String>,
    pub deleted: Vec<String>,
    /// Files moved with their content unchanged (`from` is the indexed path).
    pub renamed: Vec<ChangedFile>,
    /// A running `mcursor watch` keeps this index current (and makes the updates
    /// `mcursor index` asks for).
    pub watched: bool,
    /// That watcher's process id, when it could be read.
    pub watcher_pid: Option<u32>,
}

/// How many files with syntax errors `mcursor status` and `index --json` name (each is
/// parsed again to find its first error line, so [`Index::status`], which the index
/// tools and MCP's resource read too, leaves them to [`Index::syntax_errors`]).
pub const STATUS_SYNTAX_ERRORS: usize = 20;

/// Files the parser could read only in part.
#[derive(Debug, Clone, Default, Serialize)]
pub struct SyntaxErrors {
    /// How many there are.
    pub total: usize,
    /// The first of them, by path.
    pub files: Vec<SyntaxErrorFile>,
}

/// A file with syntax errors (or whose parse timed out).
#[derive(Debug, Clone, Serialize)]
pub struct SyntaxErrorFile {
    pub path: String,
    /// The first line inside a syntax error; `None` when the parse timed out, the parser
    /// did not place the error (a missing token it hides), or the file could not be read
    /// again.
    pub line: Option<u32>,
    pub timed_out: bool,
}

/// An opened index generation. Cheap to open; safe to share between threads.
pub struct Index {
    root: PathBuf,
    /// The root as query-time reads open files below it.
    source: SourceRoot,
    pub(crate) dir: PathBuf,
    pub(crate) store: Store,
}

fn read_generation(dir: &Path) -> Result<u64> {
    let marker = dir.join(FORMAT_FILE);
    let format = std::fs::read_to_string(&marker).at(&marker)?;
    if format != format_marker() {
        // The marker's number alone, as the message words it ("written by format 6").
        let written = format.trim();
        return Err(IndexError::FormatMismatch {
            path: dir.to_path_buf(),
            found: written
                .strip_prefix(crate::FORMAT_MARKER_PREFIX)
                .unwrap_or(written)
                .to_owned(),
            expected: crate::FORMAT_VERSION,
        });
    }
    crate::text_meta_generation(dir).map_err(|why| IndexError::Corrupt {
        path: dir.to_path_buf(),
        detail: match why {
            crate::UncommittedText::Missing => "the text index has no commit",
            crate::UncommittedText::Unreadable => "the text index metadata is unreadable",
            crate::UncommittedText::NoGeneration => "the text index commit names no generation",
        }
        .to_owned(),
    })
}

impl Index {
    /// Opens the index that covers `start` (it or its nearest parent holding `.mcursor/`).
    pub fn open(start: &Path) -> Result<Index> {
        let root = crate::find_root(start)?;
        Self::open_root(&root)
    }

    /// Opens the index of exactly `root`.
    pub fn open_root(root: &Path) -> Result<Index> {
        let dir = root.join(INDEX_DIR);
        // A writer may publish a new generation and remove an old graph file between our
        // two reads; reading again settles on a consistent pair.
        let mut last_error = None;
        for _ in 0..5 {
            let generation = read_generation(&dir)?;
            let path = dir.join(crate::store::graph_file_name(generation));
            match Store::open(&path) {
                Ok(store) if store.generation() == generation => {
                    return Ok(Index {
                        root: root.to_path_buf(),
                        source: SourceRoot::new(root),
                        dir,
                        store,
                    });
                }
                Ok(_) => {
                    last_error = Some(IndexError::Corrupt {
                        path: dir.clone(),
                        detail: "graph file generation does not match its name".into(),
                    })
                }
                Err(IndexError::Io { source, .. })
                    if source.kind() == std::io::ErrorKind::NotFound =>
                {
                    last_error = Some(IndexError::Corrupt {
                        path: dir.clone(),
                        detail: format!("graph file of generation {generation} is missing"),
                    });
                    std::thread::sleep(std::time::Duration::from_millis(20));
                }
                Err(e) => return Err(e),
            }
        }
        Err(last_error.unwrap_or_else(|| IndexError::NoIndex(root.to_path_buf())))
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn generation(&self) -> u64 {
        self.store.generation()
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Whether the working tree moved since this generation was built (a bounded check,
    /// see [`Freshness`]): what a query says next to its answer.
    pub fn freshness(&self, scope: crate::FreshnessScope) -> crate::Freshness {
        crate::fresh::check(&self.root, &self.store, scope)
    }

    /// Files matching `parts`, best first, with their scores. The text index is opened
    /// per search (it is cheap), so a long-lived `Index` sees the latest commit; an open
    /// that races a writer's clean-up of old segments is retried.
    fn ranked_files(
        &self,
        parts: &[text::QueryPart],
        lang: Option<Lang>,
        wanted: usize,
    ) -> Result<(Vec<(f32, String)>, usize)> {
        type Ranked = (Vec<(f32, String)>, usize);
        let attempt = || -> std::result::Result<Ranked, tantivy::TantivyError> {
            let (index, fields) = text::open(&self.dir.join(TEXT_DIR)).map_err(|e| match e {
                IndexError::Text(e) => e,
                other => tantivy::TantivyError::SystemError(other.to_string()),
            })?;
            let reader = index
                .reader_builder()
                .reload_policy(tantivy::ReloadPolicy::Manual)
                .try_into()?;
            let searcher = reader.searcher();
            let query = text::build_query(fields, parts, lang.map(Lang::as_str));
            let (top, count) = searcher.search(
                &query,
                &(
                    TopDocs::with_limit(wanted).order_by_score(),
                    tantivy::collector::Count,
                ),
            )?;
            let mut files = Vec::with_capacity(top.len());
            for (score, address) in top {
                let doc: tantivy::TantivyDocument = searcher.doc(address)?;
                if let Some(path) = doc.get_first(fields.path).and_then(|v| v.as_str()) {
                    files.push((score, path.to_owned()));
                }
            }
            Ok((files, count))
        };
        let mut last = None;
        for _ in 0..3 {
            match attempt() {
                Ok(files) => return Ok(files),
                Err(e) => {
                    last = Some(e);
                    std::thread::sleep(std::time::Duration::from_millis(25));
                }
            }
        }
        Err(IndexError::Corrupt {
            path: self.dir.clone(),
            detail: last.map(|e| e.to_string()).unwrap_or_default(),
        })
    }

    pub(crate) fn hit(&self, symbol: &SymbolInfo<'_>) -> SymbolHit {
        let file = self.store.file(symbol.file);
        let (signature, doc) = symbol.texts();
        SymbolHit {
            name: symbol.name.to_owned(),
            qualified_name: symbol.qualified_name.clone(),
            kind: symbol.kind,
            lang: file.as_ref().and_then(|f| f.lang),
            path: file.map(|f| f.path.to_owned()).unwrap_or_default(),
            line: symbol.line,
            column: symbol.column,
            end_line: symbol.end_line,
            signature: signature.to_owned(),
            doc: doc.to_owned(),
            id: symbol.id,
            member: symbol.member,
        }
    }

    fn file_lang(&self, file: u32) -> Option<Lang> {
        self.store.file(file).and_then(|f| f.lang)
    }

    /// Definitions matching `query`, ordered by path and line, at most `query.limit`.
    pub fn find(&self, query: &FindQuery) -> Vec<SymbolHit> {
        self.find_page(query).hits
    }

    /// Definitions matching `query`, with how many there are beyond `query.limit`.
    pub fn find_page(&self, query: &FindQuery) -> Page<SymbolHit> {
        let segments = split_qualified(&query.name);
        let Some(last) = segments.last() else {
            return Page::whole(Vec::new());
        };
        let ids: Vec<u32> = if query.fuzzy {
            self.similar_names(last, 50)
                .into_iter()
                .flat_map(|n| self.store.symbols_named(&n))
                .collect()
        } else if query.prefix {
            let mut ids = Vec::new();
            for name_id in self.store.names_with_prefix(last) {
                ids.extend(self.store.symbols_named(self.store.name(name_id)));
            }
            ids
        } else {
            self.store.symbols_named(last)
        };
        // Each with its path: ordered and cut before their hits are made, which read
        // their signatures and docs (from compressed blocks).
        let mut found: Vec<(&str, SymbolInfo<'_>)> = ids
            .into_iter()
            .filter_map(|id| self.store.symbol(id))
            .filter(|s| query.kind.is_none_or(|k| k == s.kind))
            .filter(|s| {
                segments.len() < 2
                    || query.fuzzy
                    || qualified_ends_with(&s.qualified_name, &segments, query.prefix)
            })
            .filter_map(|s| {
                let file = self.store.file(s.file);
                let lang = file.as_ref().and_then(|f| f.lang);
                let path = file.map_or("", |f| f.path);
                query
                    .lang
                    .is_none_or(|l| lang == Some(l))
                    .then_some((path, s))
            })
            .collect();
        let limit = query.limit.unwrap_or(usize::MAX);
        let (hits, total) =
            if found.is_empty() && segments.len() >= 2 && !query.prefix && !query.fuzzy {
                let mut hits = self.by_public_path(&segments, query);
                hits.sort_by(|a, b| (&a.path, a.line, a.column).cmp(&(&b.path, b.line, b.column)));
                let total = hits.len();
                hits.truncate(limit);
                (hits, total)
            } else {
                found.sort_by(|(a_path, a), (b_path, b)| {
                    (a_path, a.line, a.column).cmp(&(b_path, b.line, b.column))
                });
                let total = found.len();
                let hits = found.iter().take(limit).map(|(_, s)| self.hit(s)).collect();
                (hits, total)
            };
        Page {
            hits,
            total,
            total_at_least: false,
        }
    }

    /// Rust definitions a path reaches through the module tree or a re-export:
    /// `builder::Command`, `crate::builder::Command` and `clap_builder::Command` (the
    /// package name first) all find `builder::command::Command` when `builder/mod.rs` or
    /// the crate root has `pub use command::Command`. A re-export is an import the
    /// resolver tied to the definition; its module is where the path leads.
    fn by_public_path(&self, segments: &[String], query: &FindQuery) -> Vec<SymbolHit> {
        let Some((last, qualifier)) = segments.split_last() else {
            return Vec::new();
        };
        let mut qualifier: &[String] = qualifier;
        let mut anchored = false;
        while let Some((first, rest)) = qualifier.split_first()
            && matches!(first.as_str(), "crate" | "self")
        {
            qualifier = rest;
            anchored = true;
        }
        let candidates: Vec<SymbolInfo<'_>> = self
            .store
            .symbols_named(last)
            .into_iter()
            .filter_map(|id| self.store.symbol(id))
            .filter(|s| {
                self.file_lang(s.file).map(Lang::family) == Some(mcursor_syntax::Family::Rust)
            })
            .filter(|s| !s.member)
            .filter(|s| query.kind.is_none_or(|k| k == s.kind))
            .filter(|s| query.lang.is_none_or(|l| self.file_lang(s.file) == Some(l)))
            .collect();
        if candidates.is_empty() {
            return Vec::new();
        }
        let cargo_dirs: HashSet<String> = (0..self.store.file_count())
            .filter_map(|i| self.store.file(i))
            .filter_map(|f| match f.path {
                "Cargo.toml" => Some(String::new()),
                path => path.strip_suffix("/Cargo.toml").map(str::to_owned),
            })
            .collect();
        let mut package_names: HashMap<String, Option<String>> = HashMap::new();
        let mut package_name = |crate_key: &str| -> Option<String> {
            package_names
                .entry(crate_key.to_owned())
                .or_insert_with(|| {
                    let manifest = if crate_key.is_empty() {
                        "Cargo.toml".to_owned()
                    } else {
                        format!("{crate_key}/Cargo.toml")
                    };
                    read_text(&self.source, &manifest)
                        .and_then(|text| crate::resolve::cargo_package_name(&text))
                })
                .clone()
        };
        // Whether a module (of a crate) is where the qualifier leads.
        let mut leads_to = |file: u32| -> bool {
            let Some(path) = self.store.file(file).map(|f| f.path) else {
                return false;
            };
            let module = crate::resolve::rust_module(path, &cargo_dirs);
            let ends_with = |q: &[String]| {
                module.path.len() >= q.len() && module.path[module.path.len() - q.len()..] == *q
            };
            if anchored {
                return module.path == qualifier;
            }
            if ends_with(qualifier) {
                return true;
            }
            match qualifier.split_first() {
                Some((first, rest)) => {
                    module.path == rest
                        && package_name(&module.crate_key).as_deref() == Some(first.as_str())
                }
                None => false,
            }
        };
        let Some(name_id) = self.store.name_id(last) else {
            return Vec::new();
        };
        let mut importers: HashMap<u32, Vec<u32>> = HashMap::new();
        for r in self.store.refs_named(name_id) {
            if let (RefKind::Import, Some(target)) = (r.kind, r.target)
                && candidates.iter().any(|c| c.id == target)
                && !self.renamed_import(&r, last)
            {
                importers.entry(target).or_default().push(r.file);
            }
        }
        let mut answered: HashMap<u32, bool> = HashMap::new();
        let mut leads_to = |file: u32| *answered.entry(file).or_insert_with(|| leads_to(file));
        let mut hits = Vec::new();
        for symbol in candidates {
            // Defined in a module the path leads to, or imported (re-exported) by one.
            let reached = leads_to(symbol.file)
                || importers
                    .get(&symbol.id)
                    .is_some_and(|files| files.iter().any(|&f| leads_to(f)));
            if reached {
                hits.push(self.hit(&symbol));
            }
        }
        hits
    }

    /// Whether an import of `name` renames it (`use a::Name as Other;`): the path then
    /// ends in the other name.
    fn renamed_import(&self, r: &RefInfo, name: &str) -> bool {
        let Some(path) = self.store.file(r.file).map(|f| f.path) else {
            return false;
        };
        let lines = read_lines(&self.source, path, &BTreeSet::from([r.line]));
        let Some(line) = lines.get(&r.line) else {
            return false;
        };
        let after = line
            .char_indices()
            .nth(r.column.saturating_sub(1) as usize)
            .map_or("", |(at, _)| &line[at..]);
        after
            .strip_prefix(name)
            .is_some_and(|rest| rest.trim_start().starts_with("as "))
    }

    /// Names close to `name`, best first: same name in another case, names containing it,
    /// small edit distance. For "did you mean" suggestions and `--fuzzy`.
    /// A qualified name that found nothing suggests first the definitions its last
    /// segment names exactly (`foo::Command` → `builder::command::Command`).
    pub fn similar_names(&self, name: &str, limit: usize) -> Vec<String> {
        let segments = split_qualified(name);
        let last = segments.last().cloned().unwrap_or_default();
        let lower = last.to_lowercase();
        if lower.is_empty() {
            return Vec::new();
        }
        let mut exact: Vec<String> = Vec::new();
        if segments.len() >= 2 {
            for id in self.store.symbols_named(&last) {
                if let Some(symbol) = self.store.symbol(id)
                    && !exact.contains(&symbol.qualified_name)
                {
                    exact.push(symbol.qualified_name.clone());
                    if exact.len() >= limit {
                        return exact;
                    }
                }
            }
        }
        let mut scored: Vec<(u32, f64, &str)> = self
            .store
            .names()
            .filter(|n| *n != last)
            .filter_map(|n| {
                // Cheap tests first: most of a large index's names are ruled out by length
                // before any allocation or edit distance.
                if n.len() == lower.len() && n.eq_ignore_ascii_case(&lower) {
                    return Some((0, 1.0, n));
                }
                if lower.len() >= 3
                    && n.len() > lower.len()
                    && n.as_bytes()
                        .windows(lower.len())
                        .any(|w| w.eq_ignore_ascii_case(lower.as_bytes()))
                {
                    return Some((1, lower.len() as f64 / n.len() as f64, n));
                }
                if n.len().abs_diff(lower.len()) > lower.len() / 4 + 1 {
                    return None;
                }
                let similarity = strsim::normalized_damerau_levenshtein(&lower, &n.to_lowercase());
                (similarity >= 0.75).then_some((2, similarity, n))
            })
            .collect();
        scored.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal))
                .then(a.2.cmp(b.2))
        });
        let room = limit - exact.len();
        exact.extend(scored.into_iter().take(room).map(|(_, _, n)| n.to_owned()));
        exact
    }

    /// The definitions a `refs`/`callers`/`callees` target names. Empty: no such symbol.
    pub fn targets(&self, target: &RefTarget) -> Result<Vec<SymbolHit>> {
        match target {
            RefTarget::Name(name) => Ok(self.find(&FindQuery::exact(name))),
            RefTarget::Location { path, line, column } => {
                let path = path.trim_start_matches("./");
                let file = self.store.file_id(path).ok_or_else(|| {
                    IndexError::BadLocation(format!("{path} is not in the index"))
                })?;
                let on_name = |start: u32, len: usize| match column {
                    Some(c) => *c >= start && (*c as usize) < start as usize + len.max(1),
                    None => true,
                };
                let range = self.store.file(file).map(|f| f.symbols).unwrap_or(0..0);
                for id in range.clone() {
                    if let Some(s) = self.store.symbol(id)
                        && s.line == *line
                        && on_name(s.column, s.name.len())
                    {
                        // Overloads (TypeScript signatures before an implementation) are one
                        // function: uses resolve to one of them, so ask for all.
                        let overloading = self
                            .file_lang(s.file)
                            .is_some_and(|l| l.family().has_overloads());
                        let overloads: Vec<SymbolHit> = range
                            .filter_map(|other| self.store.symbol(other))
                            .filter(|o| {
                                overloading
                                    && o.kind == s.kind
                                    && o.qualified_name == s.qualified_name
                                    && s.kind.is_callable()
                            })
                            .map(|o| self.hit(&o))
                            .collect();
                        if overloads.len() > 1 {
                            return Ok(overloads);
                        }
                        return Ok(vec![self.hit(&s)]);
                    }
                }
                for r in self.store.refs_in_file(file) {
                    if r.line != *line || !on_name(r.column, self.store.name(r.name).len()) {
                        continue;
                    }
                    return Ok(match r.target.and_then(|t| self.store.symbol(t)) {
                        Some(s) => vec![self.hit(&s)],
                        None => self.find(&FindQuery::exact(self.store.name(r.name))),
                    });
                }
                Err(IndexError::BadLocation(match column {
                    Some(c) => format!("no indexed symbol at {path}:{line}:{c}"),
                    None => format!("no indexed symbol on {path}:{line}"),
                }))
            }
        }
    }

    /// Whether `r` may refer to `target`: resolved to it, or name-matched to a definition of
    /// a compatible kind in the same language family.
    fn refers_to(&self, r: &RefInfo, target: &SymbolHit) -> bool {
        match r.target {
            Some(t) => t == target.id,
            None => {
                let Some(family) = target.lang.map(Lang::family) else {
                    return false;
                };
                let same_family = self.file_lang(r.file).map(Lang::family) == Some(family);
                let kind = target.kind;
                let kind_fits = match r.shape {
                    RefShape::Member => crate::resolve::member_may_be(r.kind, kind, family),
                    RefShape::Path => crate::resolve::name_may_be(r.kind, kind, family),
                    RefShape::Bare if crate::resolve::bare_call_is_method(family) => {
                        crate::resolve::name_may_be(r.kind, kind, family)
                    }
                    RefShape::Bare => {
                        crate::resolve::name_may_be(r.kind, kind, family)
                            && !target.member
                            && !matches!(kind, SymbolKind::Method | SymbolKind::Field)
                    }
                };
                same_family && kind_fits
            }
        }
    }

    /// The members that implement or override the given ones (a trait's methods in its
    /// impls, an interface's or a base class's members in the classes below it).
    pub fn implementations(&self, targets: &[SymbolHit]) -> Vec<SymbolHit> {
        let mut out: Vec<SymbolHit> = targets
            .iter()
            .flat_map(|t| self.store.implementations_of(t.id))
            .filter_map(|id| self.store.symbol(id))
            .map(|s| self.hit(&s))
            .collect();
        out.sort_by(|a, b| (&a.path, a.line).cmp(&(&b.path, b.line)));
        out.dedup_by_key(|h| h.id);
        out
    }

    /// References to the given definitions, ordered by path and position, at most
    /// `query.limit`.
    pub fn references(&self, targets: &[SymbolHit], query: &RefsQuery) -> Vec<RefHit> {
        self.references_page(targets, query).hits
    }

    /// References to the given definitions, with how many there are beyond the limit.
    pub fn references_page(&self, targets: &[SymbolHit], query: &RefsQuery) -> Page<RefHit> {
        let found = self.found_references(targets, query);
        self.read_references(found, query.limit)
    }

    /// The references to `targets` that `query` keeps, by position, before any file is
    /// read (`query.limit` is not applied here).
    pub(crate) fn found_references(
        &self,
        targets: &[SymbolHit],
        query: &RefsQuery,
    ) -> BTreeMap<(u32, u32, u32), Found> {
        let mut found: BTreeMap<(u32, u32, u32), Found> = BTreeMap::new();
        // A common name (`get`) can have 100,000 definitions: resolved references find
        // theirs by id, and a heuristic one depends only on a target's language family,
        // kind and membership, so one target per (name, family, kind, member) stands for
        // the others.
        let by_id: HashMap<u32, &SymbolHit> = targets.iter().map(|t| (t.id, t)).collect();
        let mut representatives: Vec<&SymbolHit> = Vec::new();
        let mut seen = HashSet::new();
        for t in targets {
            let family = t.lang.map(Lang::family);
            if seen.insert((t.name.as_str(), family, t.kind, t.member)) {
                representatives.push(t);
            }
        }
        // The members the targets implement or override, transitively: a call through
        // one of them may dispatch to a target.
        let mut dispatched: HashMap<u32, SymbolHit> = HashMap::new();
        if !query.direct_only {
            let mut work: Vec<u32> = targets.iter().map(|t| t.id).collect();
            while let Some(id) = work.pop() {
                for base in self.store.overridden_by(id) {
                    if by_id.contains_key(&base) || dispatched.contains_key(&base) {
                        continue;
                    }
                    if let Some(symbol) = self.store.symbol(base)
                        && dispatched.len() < 64
                    {
                        dispatched.insert(base, self.hit(&symbol));
                        work.push(base);
                    }
                }
            }
        }
        let place = query.under.as_deref().map(Place::new);
        let names: BTreeSet<&str> = targets
            .iter()
            .map(|t| t.name.as_str())
            .chain(dispatched.values().map(|t| t.name.as_str()))
            .collect();
        for name in names {
            let Some(name_id) = self.store.name_id(name) else {
                continue;
            };
            for r in self.store.refs_named(name_id) {
                if query.resolved_only && r.confidence == Confidence::Heuristic {
                    continue;
                }
                if query.kind.is_some_and(|k| k != r.kind) {
                    continue;
                }
                if let Some(place) = &place
                    && !self.store.file(r.file).is_some_and(|f| place.holds(f.path))
                {
                    continue;
                }
                let target = match r.target {
                    Some(id) => by_id.get(&id).copied().map(|t| (t, false)).or_else(|| {
                        dispatched
                            .get(&id)
                            .filter(|_| r.confidence == Confidence::Resolved)
                            .map(|t| (t, true))
                    }),
                    None => representatives
                        .iter()
                        .copied()
                        .find(|t| t.name == name && self.refers_to(&r, t))
                        .map(|t| (t, false)),
                };
                if let Some((t, dispatch)) = target {
                    let (label, target_at) = match (r.confidence, r.target) {
                        (Confidence::Resolved, _) | (Confidence::Heuristic, Some(_)) => {
                            (t.qualified_name.clone(), Some((t.path.clone(), t.line)))
                        }
                        (Confidence::Heuristic, None) => (t.name.clone(), None),
                    };
                    // A direct answer at a position wins over a dispatch one.
                    match found.get(&(r.file, r.line, r.column)) {
                        Some(direct) if dispatch && !direct.dispatch => {}
                        _ => {
                            found.insert(
                                (r.file, r.line, r.column),
                                Found {
                                    r,
                                    target: label,
                                    target_at,
                                    dispatch,
                                },
                            );
                        }
                    }
                }
            }
        }
        found
    }

    /// The first `limit` of `found` as hits, with their lines read.
    fn read_references(
        &self,
        found: BTreeMap<(u32, u32, u32), Found>,
        limit: Option<usize>,
    ) -> Page<RefHit> {
        // Group the hits by file (the map is ordered by file first) and read each file once;
        // files are read in parallel, which matters when a name is used in 100,000 files.
        let limit = limit.unwrap_or(usize::MAX);
        let total = found.len();
        let mut by_file: Vec<(u32, Vec<Found>)> = Vec::new();
        for hit in found.into_values().take(limit) {
            match by_file.last_mut() {
                Some((file, group)) if *file == hit.r.file => group.push(hit),
                _ => by_file.push((hit.r.file, vec![hit])),
            }
        }
        let read_group = |(file, group): (u32, Vec<Found>)| -> Vec<RefHit> {
            let path = self
                .store
                .file(file)
                .map(|f| f.path.to_owned())
                .unwrap_or_default();
            let wanted: BTreeSet<u32> = group.iter().map(|hit| hit.r.line).collect();
            let lines = read_lines(&self.source, &path, &wanted);
            group
                .into_iter()
                .map(
                    |Found {
                         r,
                         target,
                         target_at,
                         dispatch,
                     }| RefHit {
                        text: lines
                            .get(&r.line)
                            .map(|l| clip(l.trim()))
                            .unwrap_or_default(),
                        path: path.clone(),
                        line: r.line,
                        column: r.column,
                        kind: r.kind,
                        enclosing: r
                            .enclosing
                            .and_then(|e| self.store.symbol(e))
                            .map(|s| s.qualified_name),
                        target,
                        target_path: target_at.as_ref().map(|(path, _)| path.clone()),
                        target_line: target_at.map(|(_, line)| line),
                        confidence: if dispatch {
                            RefConfidence::Dispatch
                        } else {
                            r.confidence.into()
                        },
                    },
                )
                .collect()
        };
        // Reading a few files costs less than starting the thread pool.
        let per_file: Vec<Vec<RefHit>> = if by_file.len() < PARALLEL_FILES {
            by_file.into_iter().map(read_group).collect()
        } else {
            by_file.into_par_iter().map(read_group).collect()
        };
        Page {
            hits: per_file.into_iter().flatten().collect(),
            total,
            total_at_least: false,
        }
    }

    fn node_label(&self, node: CallNode) -> (String, String, u32) {
        match node {
            CallNode::Symbol(id) => match self.store.symbol(id) {
                Some(s) => (
                    s.qualified_name.clone(),
                    self.store
                        .file(s.file)
                        .map(|f| f.path.to_owned())
                        .unwrap_or_default(),
                    s.line,
                ),
                None => (String::new(), String::new(), 0),
            },
            CallNode::File(f) => {
                let path = self
                    .store
                    .file(f)
                    .map(|f| f.path.to_owned())
                    .unwrap_or_default();
                (format!("{path} (top level)"), path, 0)
            }
            CallNode::Name(n) => (self.store.name(n).to_owned(), String::new(), 0),
        }
    }

    fn is_call(kind: RefKind) -> bool {
        matches!(kind, RefKind::Call | RefKind::Macro)
    }

    /// Who calls the targets, `depth` levels up.
    pub fn callers(&self, targets: &[SymbolHit], depth: usize) -> Page<CallEdge> {
        let start: Vec<CallNode> = targets.iter().map(|t| CallNode::Symbol(t.id)).collect();
        let graph = explore(&start, depth, Direction::Callers, 10_000, |node| {
            let CallNode::Symbol(id) = node else {
                return Vec::new();
            };
            let Some(symbol) = self.store.symbol(id) else {
                return Vec::new();
            };
            let hit = self.hit(&symbol);
            let Some(name_id) = self.store.name_id(symbol.name) else {
                return Vec::new();
            };
            self.store
                .refs_named(name_id)
                .filter(|r| Self::is_call(r.kind) && self.refers_to(r, &hit))
                .map(|r| {
                    let caller = match r.enclosing {
                        Some(e) => CallNode::Symbol(e),
                        None => CallNode::File(r.file),
                    };
                    (caller, site(&r))
                })
                .collect()
        });
        self.edges(graph)
    }

    /// What the targets call, `depth` levels down.
    pub fn callees(&self, targets: &[SymbolHit], depth: usize) -> Page<CallEdge> {
        let start: Vec<CallNode> = targets.iter().map(|t| CallNode::Symbol(t.id)).collect();
        let graph = explore(&start, depth, Direction::Callees, 10_000, |node| {
            let CallNode::Symbol(id) = node else {
                return Vec::new();
            };
            let Some(symbol) = self.store.symbol(id) else {
                return Vec::new();
            };
            self.store
                .refs_in_file(symbol.file)
                .skip_while(|r| r.line < symbol.line)
                .take_while(|r| r.line <= symbol.end_line)
                .filter(|r| r.enclosing == Some(id) && Self::is_call(r.kind))
                .map(|r| {
                    let callee = match r.target {
                        Some(t) => CallNode::Symbol(t),
                        None => CallNode::Name(r.name),
                    };
                    (callee, site(&r))
                })
                .collect()
        });
        self.edges(graph)
    }

    /// The edges of an explored graph; a graph cut at its edge limit is a page whose
    /// total is a lower bound.
    fn edges(&self, graph: crate::graph::CallGraph) -> Page<CallEdge> {
        let mut edges: Vec<CallEdge> = graph
            .graph
            .all_edges()
            .map(|(from, to, &depth)| {
                let (caller, caller_path, caller_line) = self.node_label(from);
                let (callee, _, _) = self.node_label(to);
                let sites = graph.sites.get(&(from, to)).cloned().unwrap_or_default();
                let confidence = if sites.iter().all(|s| s.confidence == Confidence::Resolved) {
                    Confidence::Resolved
                } else {
                    Confidence::Heuristic
                };
                CallEdge {
                    depth,
                    caller,
                    callee,
                    candidates: Vec::new(),
                    caller_path,
                    caller_line,
                    sites: sites
                        .iter()
                        .map(|s| {
                            let path = self.store.file(s.file).map(|f| f.path).unwrap_or("");
                            format!("{path}:{}:{}", s.line, s.column)
                        })
                        .collect(),
                    confidence,
                }
            })
            .collect();
        edges.sort_by(|a, b| {
            (
                a.depth,
                &a.caller_path,
                a.caller_line,
                &a.caller,
                &a.sites,
                &a.callee,
            )
                .cmp(&(
                    b.depth,
                    &b.caller_path,
                    b.caller_line,
                    &b.caller,
                    &b.sites,
                    &b.callee,
                ))
        });
        // One caller whose same call sites name-match several definitions (`is_match`
        // on an unknown receiver, with seven types having one) is one edge listing the
        // candidates, not the same caller under each of them.
        let mut grouped: Vec<CallEdge> = Vec::with_capacity(edges.len());
        for edge in edges {
            match grouped.last_mut() {
                Some(last)
                    if last.depth == edge.depth
                        && last.caller == edge.caller
                        && last.caller_path == edge.caller_path
                        && last.caller_line == edge.caller_line
                        && last.sites == edge.sites
                        && last.confidence == edge.confidence
                        && last.confidence == Confidence::Heuristic =>
                {
                    if last.candidates.is_empty() {
                        last.candidates.push(last.callee.clone());
                    }
                    last.candidates.push(edge.callee);
                }
                _ => grouped.push(edge),
            }
        }
        let edges = grouped;
        Page {
            total: edges.len(),
            hits: edges,
            total_at_least: graph.cut,
        }
    }

    /// Full-text (or regex) search: the best `limit` matching lines (see
    /// [`search_page`](Self::search_page)).
    pub fn search(&self, query: &SearchQuery) -> Result<Vec<SearchHit>> {
        Ok(self.search_page(query)?.hits)
    }

    /// Full-text (or regex) search, with how many lines match in all. Text search ranks
    /// lines: those holding every word of the query first, then whole identifiers before
    /// sub-words, then words closer together, then the file's score; it reads the files
    /// tantivy ranks best (every one of them holds every word), so the total counts the
    /// lines of those files and is a lower bound when more files match. Regex search
    /// reads every file and counts every line. A query longer than [`MAX_QUERY_BYTES`]
    /// or with more than [`MAX_QUERY_WORDS`] words is refused: every word costs work on
    /// every candidate line.
    pub fn search_page(&self, query: &SearchQuery) -> Result<Page<SearchHit>> {
        if query.query.len() > MAX_QUERY_BYTES {
            return Err(IndexError::Pattern(format!(
                "the query is {} bytes; at most {MAX_QUERY_BYTES} are searched for",
                query.query.len()
            )));
        }
        let glob = match &query.path_glob {
            Some(g) => Some(path_glob(g).map_err(|e| IndexError::Pattern(e.to_string()))?),
            None => None,
        };
        let path_ok = |path: &str| glob.as_ref().is_none_or(|g| g.is_match(path));
        if query.regex {
            return self.regex_search(query, &path_ok);
        }
        let parts = text::parse_query(&query.query);
        if parts.len() > MAX_QUERY_WORDS {
            return Err(IndexError::Pattern(format!(
                "the query has {} words; at most {MAX_QUERY_WORDS} (search for the rarest ones)",
                parts.len()
            )));
        }
        if parts.is_empty() {
            return Err(IndexError::Pattern(
                "the query has no words to search for (use --regex for punctuation)".into(),
            ));
        }
        // Lines are ranked across the files tantivy ranks best; reading more files finds
        // more lines but costs a read each. A path glob filters files after ranking.
        let wanted_files = if glob.is_some() {
            2000
        } else {
            query.limit.max(1) + 20
        };
        let (files, matching_files) = self.ranked_files(&parts, query.lang, wanted_files)?;
        let read_all = files.len() >= matching_files;
        let read_file = |(rank, (score, path)): (usize, &(f32, String))| {
            let text = read_text(&self.source, path).unwrap_or_default();
            let lower = text.to_ascii_lowercase();
            text.lines()
                .zip(lower.lines())
                .enumerate()
                .filter_map(|(number, (line, lower))| {
                    let line_score = text::score_lowered_line(&parts, line, lower)?;
                    Some((
                        line_score,
                        rank,
                        SearchHit {
                            path: path.clone(),
                            line: number as u32 + 1,
                            text: clip(line),
                            score: *score,
                        },
                    ))
                })
                .collect::<Vec<_>>()
        };
        let candidates = files
            .iter()
            .enumerate()
            .filter(|(_, (_, path))| path_ok(path));
        let per_file: Vec<Vec<(text::LineScore, usize, SearchHit)>> =
            if files.len() < PARALLEL_FILES {
                candidates.map(read_file).collect()
            } else {
                candidates
                    .collect::<Vec<_>>()
                    .into_par_iter()
                    .map(read_file)
                    .collect()
            };
        let mut scored: Vec<(text::LineScore, usize, SearchHit)> =
            per_file.into_iter().flatten().collect();
        scored.sort_by(|a, b| {
            b.0.cmp(&a.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.line.cmp(&b.2.line))
        });
        let total = scored.len();
        scored.truncate(query.limit);
        Ok(Page {
            hits: scored.into_iter().map(|(_, _, hit)| hit).collect(),
            total,
            total_at_least: !read_all,
        })
    }

    fn regex_search(
        &self,
        query: &SearchQuery,
        path_ok: &(dyn Fn(&str) -> bool + Sync),
    ) -> Result<Page<SearchHit>> {
        let regex = regex::RegexBuilder::new(&query.query)
            .size_limit(16 * 1024 * 1024)
            .build()
            .map_err(|e| IndexError::Pattern(e.to_string()))?;
        let files: Vec<FileInfo<'_>> = (0..self.store.file_count())
            .filter_map(|i| self.store.file(i))
            .filter(|f| path_ok(f.path))
            .filter(|f| query.lang.is_none_or(|l| f.lang == Some(l)))
            .collect();
        let mut per_file: Vec<(Vec<SearchHit>, usize)> = files
            .par_iter()
            .map(|f| {
                let Some(text) = read_text(&self.source, f.path) else {
                    return (Vec::new(), 0);
                };
                let mut hits = Vec::new();
                let mut count = 0;
                for (number, line) in text.lines().enumerate() {
                    if regex.is_match(line) {
                        count += 1;
                        if hits.len() < query.limit {
                            hits.push(SearchHit {
                                path: f.path.to_owned(),
                                line: number as u32 + 1,
                                text: clip(line),
                                score: 1.0,
                            });
                        }
                    }
                }
                (hits, count)
            })
            .collect();
        let total = per_file.iter().map(|(_, count)| count).sum();
        let mut hits: Vec<SearchHit> = per_file
            .iter_mut()
            .flat_map(|(hits, _)| std::mem::take(hits))
            .collect();
        hits.truncate(query.limit);
        Ok(Page {
            hits,
            total,
            total_at_least: false,
        })
    }

    /// The languages of the parsed files with their file counts, most files first (the
    /// build's own count, `IndexMeta::parsed`).
    pub fn languages(&self) -> Vec<(Lang, usize)> {
        let mut languages: Vec<(Lang, usize)> = self
            .store
            .meta()
            .parsed
            .iter()
            .filter_map(|(name, &count)| Some((Lang::parse(name)?, count)))
            .collect();
        languages.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        languages
    }

    /// Source files of languages read as text only (no symbols), per language.
    pub fn text_only_files(&self) -> BTreeMap<String, usize> {
        crate::build::text_only_counts(
            (0..self.store.file_count())
                .filter_map(|i| self.store.file(i))
                .map(|f| (f.path, f.lang)),
        )
    }

    /// Files in the targets' language families that name them where the parser could not
    /// read the code (a syntax error around the mention, or a parse that timed out): the
    /// uses an empty `refs` answer may have missed.
    pub fn unread_mentions(&self, targets: &[SymbolHit]) -> Result<Vec<UnreadMention>> {
        let Some(name) = targets.first().map(|t| t.name.as_str()) else {
            return Ok(Vec::new());
        };
        let families: Vec<_> = targets
            .iter()
            .filter_map(|t| t.lang.map(Lang::family))
            .collect();
        let parts = text::parse_query(name);
        if parts.is_empty() || parts.len() > MAX_QUERY_WORDS {
            return Ok(Vec::new());
        }
        let (files, _) = self.ranked_files(&parts, None, 5000)?;
        let mut unread = Vec::new();
        let mut reparsed = 0;
        for (_, path) in files {
            let Some(info) = self.store.file_id(&path).and_then(|id| self.store.file(id)) else {
                continue;
            };
            let Some(lang) = info.lang else { continue };
            if !(info.timed_out || info.syntax_errors) || !families.contains(&lang.family()) {
                continue;
            }
            let Some(text) = read_text(&self.source, &path) else {
                continue;
            };
            let mentions: Vec<u32> = text
                .lines()
                .enumerate()
                .filter(|(_, line)| text::identifier_runs(line).any(|(_, run)| run == name))
                .map(|(i, _)| i as u32 + 1)
                .collect();
            if mentions.is_empty() {
                continue;
            }
            if info.timed_out {
                unread.push(UnreadMention {
                    path,
                    lines: mentions,
                    why: "parse timed out",
                });
                continue;
            }
            if reparsed >= MAX_REPARSED {
                unread.push(UnreadMention {
                    path,
                    lines: mentions,
                    why: "not checked",
                });
                continue;
            }
            reparsed += 1;
            let regions = mcursor_syntax::syntax_error_lines(
                lang,
                text.as_bytes(),
                &mcursor_syntax::ParseConfig::default(),
            );
            let (lines, why) = match regions {
                None => (mentions, "parse timed out"),
                Some(regions) => (
                    mentions
                        .into_iter()
                        .filter(|line| regions.iter().any(|r| r.contains(line)))
                        .collect(),
                    "syntax error",
                ),
            };
            if !lines.is_empty() {
                unread.push(UnreadMention { path, lines, why });
            }
        }
        unread.sort_by(|a, b| a.path.cmp(&b.path));
        Ok(unread)
    }

    /// The files indexed from their valid parts only: how many, and the first `limit` by
    /// path with the first line of their first syntax error (recorded by the build; found
    /// by parsing the file again in an index written before it was recorded).
    pub fn syntax_errors(&self, limit: usize) -> SyntaxErrors {
        struct Flagged {
            path: String,
            lang: Lang,
            recorded: Option<u32>,
            timed_out: bool,
        }
        let flagged: Vec<Flagged> = (0..self.store.file_count())
            .filter_map(|i| self.store.file(i))
            .filter(|f| f.syntax_errors || f.timed_out)
            .filter_map(|f| {
                Some(Flagged {
                    path: f.path.to_owned(),
                    lang: f.lang?,
                    recorded: f.first_syntax_error,
                    timed_out: f.timed_out,
                })
            })
            .collect();
        let first_error = |file: &Flagged| {
            let line = if file.timed_out {
                None
            } else if file.recorded.is_some() {
                file.recorded
            } else {
                read_text(&self.source, &file.path).and_then(|text| {
                    mcursor_syntax::syntax_error_lines(
                        file.lang,
                        text.as_bytes(),
                        &mcursor_syntax::ParseConfig::default(),
                    )?
                    .iter()
                    .map(|r| *r.start())
                    .min()
                })
            };
            SyntaxErrorFile {
                path: file.path.clone(),
                line,
                timed_out: file.timed_out,
            }
        };
        let shown = &flagged[..flagged.len().min(limit)];
        // Parsing costs far more than reading: in parallel past a few files to parse.
        let to_parse = shown.iter().filter(|f| f.recorded.is_none()).count();
        let files = if to_parse < 4 {
            shown.iter().map(first_error).collect()
        } else {
            shown.par_iter().map(first_error).collect()
        };
        SyntaxErrors {
            total: flagged.len(),
            files,
        }
    }

    /// Index summary, and what changed in the working tree since it was built (by size and
    /// modification time; no file is parsed).
    pub fn status(&self) -> Status {
        let meta = self.store.meta();
        let mut files_per_lang: BTreeMap<String, u32> = BTreeMap::new();
        for f in (0..self.store.file_count()).filter_map(|i| self.store.file(i)) {
            let lang = f.lang.map(Lang::as_str).unwrap_or("text");
            *files_per_lang.entry(lang.to_owned()).or_insert(0) += 1;
        }
        let changes = crate::build::changes_since(self);
        let watcher = crate::fresh::live_watcher(&self.dir);
        let of_kind = |kind: Change| -> Vec<String> {
            changes
                .iter()
                .filter(|c| c.change == kind)
                .map(|c| c.path.clone())
                .collect()
        };
        let (modified, added, deleted) = (
            of_kind(Change::Modified),
            of_kind(Change::Added),
            of_kind(Change::Deleted),
        );
        let renamed: Vec<ChangedFile> = changes
            .iter()
            .filter(|c| c.change == Change::Renamed)
            .cloned()
            .collect();
        Status {
            root: self.root.clone(),
            generation: self.generation(),
            built_unix_ms: meta.built_unix_ms,
            files: self.store.file_count(),
            symbols: self.store.symbol_count(),
            references: self.store.ref_count(),
            files_per_lang,
            index_bytes: crate::build::dir_size(&self.dir),
            source_bytes: meta.source_bytes,
            current: changes.is_empty(),
            modified,
            added,
            deleted,
            renamed,
            watched: watcher.is_some(),
            watcher_pid: watcher.flatten(),
        }
    }
}

fn site(r: &RefInfo) -> CallSite {
    CallSite {
        file: r.file,
        line: r.line,
        column: r.column,
        confidence: r.confidence,
    }
}

/// A glob over root-relative paths, as in .gitignore: `*` stays within one directory,
/// `**` crosses them (`search --path`, `refs --under`).
fn path_glob(pattern: &str) -> std::result::Result<GlobMatcher, globset::Error> {
    Ok(GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()?
        .compile_matcher())
}

/// Where `refs --under` looks: a file, a directory, or a glob.
enum Place {
    Prefix(String),
    Glob(GlobMatcher),
}

impl Place {
    fn new(text: &str) -> Place {
        let trimmed = text.trim().trim_start_matches("./").trim_end_matches('/');
        // A glob that does not compile is taken as a plain path (and matches nothing).
        if trimmed.contains(['*', '?', '['])
            && let Ok(glob) = path_glob(trimmed)
        {
            return Place::Glob(glob);
        }
        Place::Prefix(trimmed.to_owned())
    }

    /// Whether the file at `path` is this file, below this directory, or matches.
    fn holds(&self, path: &str) -> bool {
        match self {
            Place::Glob(glob) => glob.is_match(path),
            Place::Prefix(under) => {
                under.is_empty()
                    || under == "."
                    || path == under
                    || path
                        .strip_prefix(under.as_str())
                        .is_some_and(|rest| rest.starts_with('/'))
            }
        }
    }
}

/// `a::b::c`, `a.b.c`, PHP's `a\b::c` and Ruby's `A::B#c` → `["a", "b", "c"]`.
fn split_qualified(name: &str) -> Vec<String> {
    name.split("::")
        .flat_map(|s| s.split(['.', '\\', '#']))
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether the qualified name ends with `segments` at a segment boundary.
fn qualified_ends_with(qualified: &str, segments: &[String], prefix_last: bool) -> bool {
    let own = split_qualified(qualified);
    if own.len() < segments.len() {
        return false;
    }
    let tail = &own[own.len() - segments.len()..];
    tail.iter().zip(segments).enumerate().all(|(i, (a, b))| {
        if prefix_last && i + 1 == segments.len() {
            a.starts_with(b.as_str())
        } else {
            // A blanket impl's members are named `<T as Trait>::m`: `Trait::m` finds them.
            a == b || blanket_trait(a) == Some(b.as_str())
        }
    })
}

/// `Trait` of a blanket impl's container name `<T as Trait>`.
fn blanket_trait(segment: &str) -> Option<&str> {
    let inner = segment.strip_prefix('<')?.strip_suffix('>')?;
    inner.split_once(" as ").map(|(_, t)| t.trim())
}

fn clip(line: &str) -> String {
    let line = line.trim_end();
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line.to_owned(),
    }
}

/// The longest search query, in bytes.
pub const MAX_QUERY_BYTES: usize = 4096;
/// The most words (and phrases) one search query may have.
pub const MAX_QUERY_WORDS: usize = 32;

/// Bytes a query reads of one file at most: indexed files are small (the build's size
/// limit); a file swapped for a huge one since is not read whole.
const QUERY_READ_LIMIT: u64 = 64 * 1024 * 1024;

/// A file's text as the indexer decoded it; `None` when it is gone, binary, or no longer
/// a regular file inside the root.
fn read_text(root: &SourceRoot, path: &str) -> Option<String> {
    use std::io::Read;
    let file = root.open(path)?;
    let mut bytes = Vec::new();
    file.take(QUERY_READ_LIMIT).read_to_end(&mut bytes).ok()?;
    decode_source(bytes).ok()
}

/// Lines `wanted` (from 1) of a file, read in blocks up to the last of them: a hit near
/// the top of a 9 MB generated file reads a few kilobytes, and no file is held whole.
/// UTF-16 files (byte order mark) are decoded whole, as the indexer decoded them.
fn read_lines(root: &SourceRoot, path: &str, wanted: &BTreeSet<u32>) -> HashMap<u32, String> {
    use std::io::BufRead;
    let mut found = HashMap::new();
    let Some(&last) = wanted.last() else {
        return found;
    };
    let Some(file) = root.open(path) else {
        return found;
    };
    let mut reader =
        std::io::BufReader::with_capacity(128 * 1024, std::io::Read::take(file, QUERY_READ_LIMIT));
    let utf16 = reader
        .fill_buf()
        .is_ok_and(|head| head.starts_with(&[0xFF, 0xFE]) || head.starts_with(&[0xFE, 0xFF]));
    if utf16 {
        let text = read_text(root, path).unwrap_or_default();
        for (number, line) in (1..=last).zip(text.lines()) {
            if wanted.contains(&number) {
                found.insert(number, line.to_owned());
            }
        }
        return found;
    }
    let mut buffer = Vec::new();
    let mut number = 1u32;
    while number <= last {
        buffer.clear();
        match reader.read_until(b'\n', &mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if wanted.contains(&number) {
            let mut line = buffer.strip_suffix(b"\n").unwrap_or(&buffer);
            line = line.strip_suffix(b"\r").unwrap_or(line);
            if number == 1 {
                line = line.strip_prefix(&[0xEF, 0xBB, 0xBF]).unwrap_or(line);
            }
            found.insert(number, String::from_utf8_lossy(line).into_owned());
        }
        number += 1;
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_lines_stops_after_the_last_wanted_line_and_decodes_like_the_indexer() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::write(
            dir.path().join("a.rs"),
            b"\xEF\xBB\xBFfirst\r\nsecond \xff\nthird\n\nfifth",
        )
        .expect("write");
        let wanted: BTreeSet<u32> = [1, 2, 4, 5, 9].into_iter().collect();
        let root = SourceRoot::new(dir.path());
        let lines = read_lines(&root, "a.rs", &wanted);
        assert_eq!(lines.get(&1).map(String::as_str), Some("first"));
        assert_eq!(lines.get(&2).map(String::as_str), Some("second \u{fffd}"));
        assert_eq!(lines.get(&4).map(String::as_str), Some(""));
        assert_eq!(lines.get(&5).map(String::as_str), Some("fifth"));
        assert!(!lines.contains_key(&9) && !lines.contains_key(&3));

        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("x\ny\n".encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
        std::fs::write(dir.path().join("w.ts"), utf16).expect("write");
        let lines = read_lines(&root, "w.ts", &[2].into_iter().collect());
        assert_eq!(lines.get(&2).map(String::as_str), Some("y"));
        assert!(read_lines(&root, "missing.rs", &wanted).is_empty());
    }

    #[test]
    fn locations_and_names_are_told_apart() {
        assert!(matches!(
            RefTarget::parse("src/a.rs:42:8"),
            RefTarget::Location {
                line: 42,
                column: Some(8),
                ..
            }
        ));
        assert!(matches!(
            RefTarget::parse("src/a.rs:42"),
            RefTarget::Location {
                line: 42,
                column: None,
                ..
            }
        ));
        assert!(matches!(
            RefTarget::parse("Session::run"),
            RefTarget::Name(_)
        ));
        assert!(matches!(
            RefTarget::parse("parse_config"),
            RefTarget::Name(_)
        ));
        assert!(matches!(RefTarget::parse("a::b::c"), RefTarget::Name(_)));
    }

    #[test]
    fn places_are_files_directories_at_a_separator_or_globs() {
        let holds = |place: &str, path: &str| Place::new(place).holds(path);
        assert!(holds("src/net", "src/net/client.rs"));
        assert!(holds("./src/net/", "src/net/client.rs"));
        assert!(holds("src/net/client.rs", "src/net/client.rs"));
        assert!(holds(".", "src/lib.rs"));
        assert!(!holds("src/net", "src/network.rs"));
        assert!(holds("src/**/*.rs", "src/net/client.rs"));
        assert!(holds("*/src/**/*", "pkg/src/a/b.rs"));
        assert!(!holds("src/*.rs", "src/net/client.rs"));
    }

    #[test]
    fn qualified_suffixes_match_at_segment_boundaries() {
        let segs = split_qualified("Session::run");
        assert!(qualified_ends_with("agent::Session::run", &segs, false));
        assert!(qualified_ends_with("Session.run", &segs, false));
        assert!(!qualified_ends_with("agent::MySession::run", &segs, false));
        assert!(!qualified_ends_with("run", &segs, false));
    }
}
