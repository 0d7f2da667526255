//! mcursor-tools declares the index's model-facing tools once: `find_symbol`,
//! `find_references`, `find_implementations`, `callers`, `callees`, `impact`,
//! `search_code` and `index_status`, each with its
//! name, description, argument struct (its JSON schema derived by `schemars`), handler,
//! and the wording ([`answers`]) and JSON shape ([`wire`]) of its answer. The agent
//! (`mcursor-agent`) and the MCP server (`mcursor-mcp`) both register the tools from
//! [`IndexTool::ALL`] and run them through [`IndexTools`], over one [`LiveIndex`]; the
//! CLI's `--json` prints the same [`wire`] shapes.
//!
//! Invariants:
//! - Index tools only read: none of them changes a file or the index's contents (they
//!   may bring the index up to date with the tree first).
//! - An answer fits a byte budget and says what it left out and how to get the rest
//!   (`offset`, a narrower filter); "no such symbol" (with suggestions that are labeled as
//!   not matches) and "no uses" are different answers.
//! - Bad arguments are [`ToolError::BadArguments`], a sentence the caller can act on;
//!   they never reach the index.

pub mod answers;
pub mod wire;

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use mcursor_index::{
    FindQuery, Index, IndexError, LiveIndex, Page, Progress, RefTarget, RefsQuery, SearchQuery,
};
use mcursor_syntax::{Lang, RefKind, SymbolKind};
use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

use answers::Window;

/// Longest name, query or path argument accepted, in bytes.
pub const MAX_ARGUMENT_BYTES: usize = 4096;
/// Bytes of an answer when nobody sized it (an MCP client: a large model, most likely).
pub const DEFAULT_ANSWER_BYTES: usize = 6_000 * 4;
/// References looked at (counted and ranked) for one answer.
const REFS_LOOKED_AT: usize = 1000;
/// Items of a list answer when the caller set no limit (the byte budget cuts first).
const DEFAULT_LIMIT: usize = 200;
/// The most items a caller may ask for at once.
const MAX_LIMIT: usize = 1000;

/// One model-facing index tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IndexTool {
    FindSymbol,
    FindReferences,
    FindImplementations,
    Callers,
    Callees,
    Impact,
    SearchCode,
    IndexStatus,
}

impl IndexTool {
    /// Every index tool, in the order a model should consider them.
    pub const ALL: [IndexTool; 8] = [
        IndexTool::FindSymbol,
        IndexTool::FindReferences,
        IndexTool::FindImplementations,
        IndexTool::Callers,
        IndexTool::Callees,
        IndexTool::Impact,
        IndexTool::SearchCode,
        IndexTool::IndexStatus,
    ];

    pub const fn name(self) -> &'static str {
        match self {
            IndexTool::FindSymbol => "find_symbol",
            IndexTool::FindReferences => "find_references",
            IndexTool::FindImplementations => "find_implementations",
            IndexTool::Callers => "callers",
            IndexTool::Callees => "callees",
            IndexTool::Impact => "impact",
            IndexTool::SearchCode => "search_code",
            IndexTool::IndexStatus => "index_status",
        }
    }

    pub fn from_name(name: &str) -> Option<IndexTool> {
        IndexTool::ALL.into_iter().find(|t| t.name() == name)
    }

    /// What the tool does, for a model choosing one. Short: a small model reads every
    /// word of it with every request.
    pub const fn description(self) -> &'static str {
        match self {
            IndexTool::FindSymbol => {
                "Where a symbol is defined: exact lookup by name or `Type::method`."
            }
            IndexTool::FindReferences => {
                "Who uses a symbol (target: a name or `path:line`), best first. Optional: \
                 kind (call, type, import), path (a directory or glob), offset."
            }
            IndexTool::FindImplementations => {
                "Which types implement a trait, interface or class (target), with their methods; \
                 or which methods implement a trait method."
            }
            IndexTool::Callers => "Which functions call a function or method (target).",
            IndexTool::Callees => "Which functions a function or method (target) calls.",
            IndexTool::Impact => {
                "What a change to a symbol (target) can break: its uses and implementations, \
                 then the uses of those, to depth (default 2)."
            }
            IndexTool::SearchCode => "Full-text search: words, \"phrases\" or regex; path: a glob.",
            IndexTool::IndexStatus => {
                "The code index: files per language, symbols, references, generation, \
                 whether it is current."
            }
        }
    }

    /// The JSON schema of the tool's arguments.
    pub fn parameters(self) -> Value {
        match self {
            IndexTool::FindSymbol => schema::<FindSymbolArgs>(),
            IndexTool::FindReferences => schema::<FindReferencesArgs>(),
            IndexTool::FindImplementations => schema::<FindImplementationsArgs>(),
            IndexTool::Callers | IndexTool::Callees => schema::<CallGraphArgs>(),
            IndexTool::Impact => schema::<ImpactArgs>(),
            IndexTool::SearchCode => schema::<SearchCodeArgs>(),
            IndexTool::IndexStatus => schema::<NoArgs>(),
        }
    }

    /// The arguments a small model is shown (the rest are accepted, not advertised). A
    /// 1.5B model given every optional argument filled them all in, with guesses
    /// (`"lang": "cpp", "offset": 42` for a Rust symbol), and gave up at the error; shown
    /// only these, it called the tools as meant (`benches/README.md`, the agent benchmark).
    pub const fn agent_arguments(self) -> &'static [&'static str] {
        match self {
            IndexTool::FindSymbol => &["name"],
            IndexTool::FindReferences => &["target", "kind", "path", "offset"],
            IndexTool::FindImplementations => &["target"],
            IndexTool::Callers | IndexTool::Callees => &["target"],
            IndexTool::Impact => &["target"],
            IndexTool::SearchCode => &["query", "regex", "path"],
            IndexTool::IndexStatus => &[],
        }
    }

    /// [`IndexTool::parameters`] with only the [`IndexTool::agent_arguments`], and without
    /// their descriptions (the tool's description names what they take: a small model
    /// reads every schema with every request, and these cost more than they told it).
    pub fn agent_parameters(self) -> Value {
        let mut schema = self.parameters();
        if let Some(properties) = schema.get_mut("properties").and_then(Value::as_object_mut) {
            properties.retain(|name, _| self.agent_arguments().contains(&name.as_str()));
            for property in properties.values_mut().filter_map(Value::as_object_mut) {
                property.remove("description");
            }
        }
        schema
    }

    /// Whether mcursor's own agent offers the tool. It does not need the index's
    /// bookkeeping (it keeps the index current itself), and every schema costs a small
    /// model prompt tokens on every request.
    pub const fn for_agent(self) -> bool {
        match self {
            IndexTool::FindSymbol
            | IndexTool::FindReferences
            | IndexTool::FindImplementations
            | IndexTool::Callers
            | IndexTool::Callees
            | IndexTool::Impact
            | IndexTool::SearchCode => true,
            IndexTool::IndexStatus => false,
        }
    }
}

/// The schema of `T`, in as few tokens as say the same to a model: no meta-schema or
/// title, an optional argument typed as its type (not also `null`: leaving it out is how
/// to say nothing), no integer formats.
fn schema<T: JsonSchema>() -> Value {
    let mut schema = serde_json::to_value(schemars::schema_for!(T)).unwrap_or(json!({}));
    if let Some(object) = schema.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
        for property in object
            .get_mut("properties")
            .and_then(Value::as_object_mut)
            .into_iter()
            .flat_map(|p| p.values_mut())
            .filter_map(Value::as_object_mut)
        {
            property.remove("format");
            property.remove("minimum");
            if let Some(Value::Array(types)) = property.get("type") {
                let named: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
                if let [only] = named.as_slice() {
                    property.insert("type".to_owned(), only.clone());
                }
            }
        }
    }
    schema
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindSymbolArgs {
    /// A name, or `Type::method` / `Class.method` / `module::name`.
    pub name: String,
    /// function, method, struct, class, enum, interface, trait, ...
    pub kind: Option<String>,
    /// rust, typescript, tsx, javascript, python, go, java or csharp.
    pub lang: Option<String>,
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindReferencesArgs {
    /// A name (as for find_symbol) or `path:line[:column]`.
    pub target: String,
    /// call, type, import, macro, field or identifier.
    pub kind: Option<String>,
    /// Only uses below this directory or matching this glob.
    pub path: Option<String>,
    /// Leave out name matches.
    pub resolved_only: Option<bool>,
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindImplementationsArgs {
    /// A trait, interface, class or method (as for find_symbol) or `path:line`.
    pub target: String,
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallGraphArgs {
    /// A function or method (as for find_symbol) or `path:line`.
    pub target: String,
    /// Levels to follow (1 to 5; default 1).
    pub depth: Option<usize>,
    pub offset: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ImpactArgs {
    /// A definition (as for find_symbol) or `path:line`.
    pub target: String,
    /// Levels to follow (1 to 4; default 2).
    pub depth: Option<u32>,
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchCodeArgs {
    pub query: String,
    /// The query is a regular expression.
    pub regex: Option<bool>,
    /// A path glob (`src/**/*.rs`).
    pub path: Option<String>,
    /// rust, typescript, tsx, javascript, python, go, java or csharp.
    pub lang: Option<String>,
    pub offset: Option<usize>,
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

/// Why a tool call got no answer.
#[derive(Debug, thiserror::Error)]
pub enum ToolError {
    /// The arguments do not fit the tool's schema, or a value is not one it knows.
    #[error("bad arguments: {0}")]
    BadArguments(String),
    /// The index could not answer (damaged, locked, a bad regex...).
    #[error("the code index could not answer: {0}")]
    Index(#[from] IndexError),
}

/// An answer: compact text for a model, and the same data as JSON ([`wire`] shapes).
#[derive(Debug, Clone, PartialEq)]
pub struct Answer {
    pub text: String,
    pub structured: Value,
}

/// The index tools over one repository's [`LiveIndex`]: built on first use, following the
/// working tree, updated after the caller's own edits before the next answer
/// ([`IndexTools::after_change`]).
pub struct IndexTools {
    live: LiveIndex,
    /// Bytes one answer may take (see [`IndexTools::fit_answers_to`]).
    answer_bytes: AtomicUsize,
}

impl IndexTools {
    pub fn new(root: &Path) -> IndexTools {
        IndexTools {
            live: LiveIndex::new(root),
            answer_bytes: AtomicUsize::new(DEFAULT_ANSWER_BYTES),
        }
    }

    /// Sizes answers for a model with a context window of `tokens`: about a fortieth of it
    /// (400 tokens of a 16,000 window), at least 300 tokens and at most 2,000, 4 bytes a
    /// token.
    pub fn fit_answers_to(&self, context_window_tokens: usize) {
        let tokens = (context_window_tokens / 40).clamp(300, 2_000);
        self.answer_bytes.store(tokens * 4, Ordering::Relaxed);
    }

    /// After the caller changed files (absolute paths; `None` when anything may have
    /// changed, after a command): returns at once, and the next answer waits for the
    /// update, so it sees the change.
    pub fn after_change(&self, changed: Option<Vec<std::path::PathBuf>>) {
        self.live.after_change(changed);
    }

    /// Runs `tool` on `arguments` (a JSON object). Synchronous: async callers use
    /// `spawn_blocking`. `progress` hears the build's progress when the first call builds
    /// the index.
    pub fn call(
        &self,
        tool: IndexTool,
        arguments: Value,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Answer, ToolError> {
        let budget = self.answer_bytes.load(Ordering::Relaxed);
        // Arguments are checked before the index is touched (or built).
        match tool {
            IndexTool::FindSymbol => {
                let args: FindSymbolArgs = parse(arguments)?;
                let query = FindQuery {
                    name: checked("name", &args.name)?.to_owned(),
                    kind: symbol_kind(args.kind.as_deref())?,
                    lang: lang(args.lang.as_deref())?,
                    ..FindQuery::default()
                };
                let window = window(args.offset, args.limit, budget);
                find_symbol(&*self.live.get(progress)?, query, window)
            }
            IndexTool::FindReferences => {
                let args: FindReferencesArgs = parse(arguments)?;
                let target = checked("target", &args.target)?;
                if let Some(path) = &args.path {
                    checked("path", path)?;
                }
                let query = RefsQuery {
                    kind: ref_kind(args.kind.as_deref())?,
                    resolved_only: args.resolved_only.unwrap_or(false),
                    direct_only: false,
                    under: args.path.clone(),
                    limit: Some(REFS_LOOKED_AT),
                };
                let window = window(args.offset, args.limit, budget);
                find_references(&*self.live.get(progress)?, target, &query, window)
            }
            IndexTool::FindImplementations => {
                let args: FindImplementationsArgs = parse(arguments)?;
                let target = checked("target", &args.target)?;
                let window = window(args.offset, args.limit, budget);
                find_implementations(&*self.live.get(progress)?, target, window)
            }
            IndexTool::Callers | IndexTool::Callees => {
                let args: CallGraphArgs = parse(arguments)?;
                let target = checked("target", &args.target)?;
                let depth = args.depth.unwrap_or(1).clamp(1, 5);
                let window = window(args.offset, None, budget);
                call_graph(
                    &*self.live.get(progress)?,
                    target,
                    depth,
                    tool == IndexTool::Callers,
                    window,
                )
            }
            IndexTool::Impact => {
                let args: ImpactArgs = parse(arguments)?;
                let target = checked("target", &args.target)?;
                let depth = args.depth.unwrap_or(2).clamp(1, 4);
                let window = window(args.offset, args.limit, budget);
                impact(&*self.live.get(progress)?, target, depth, window)
            }
            IndexTool::SearchCode => {
                let args: SearchCodeArgs = parse(arguments)?;
                checked("query", &args.query)?;
                if let Some(path) = &args.path {
                    checked("path", path)?;
                }
                let window = window(args.offset, args.limit, budget);
                let query = SearchQuery {
                    query: args.query,
                    regex: args.regex.unwrap_or(false),
                    path_glob: args.path,
                    lang: lang(args.lang.as_deref())?,
                    limit: window.offset + window.limit,
                };
                search_code(&*self.live.get(progress)?, &query, window)
            }
            IndexTool::IndexStatus => {
                let _: NoArgs = parse(arguments)?;
                index_status(&*self.live.get(progress)?)
            }
        }
    }
}

/// `arguments` as the tool's argument struct. A missing object (`null`) is an empty one.
fn parse<T: DeserializeOwned>(arguments: Value) -> Result<T, ToolError> {
    let arguments = if arguments.is_null() {
        json!({})
    } else {
        arguments
    };
    serde_json::from_value(arguments).map_err(|e| ToolError::BadArguments(e.to_string()))
}

fn checked<'a>(field: &str, value: &'a str) -> Result<&'a str, ToolError> {
    if value.len() > MAX_ARGUMENT_BYTES {
        return Err(ToolError::BadArguments(format!(
            "`{field}` is {} bytes; at most {MAX_ARGUMENT_BYTES} are accepted",
            value.len()
        )));
    }
    if value.trim().is_empty() {
        return Err(ToolError::BadArguments(format!("`{field}` is empty")));
    }
    Ok(value)
}

/// What small models write for "no filter".
fn no_filter(word: Option<&str>) -> Option<&str> {
    word.filter(|w| !matches!(w.trim(), "" | "all" | "any" | "*"))
}

/// `word` as a value of a vocabulary (`parse`), or an error naming its words; no filter
/// for a missing word or one of [`no_filter`]'s.
fn vocabulary<T>(
    word: Option<&str>,
    field: &str,
    parse: fn(&str) -> Option<T>,
    words: impl Iterator<Item = &'static str>,
) -> Result<Option<T>, ToolError> {
    no_filter(word)
        .map(|w| {
            parse(w).ok_or_else(|| {
                let words: Vec<&str> = words.collect();
                ToolError::BadArguments(format!("{field} `{w}`: one of {}", words.join(", ")))
            })
        })
        .transpose()
}

fn symbol_kind(word: Option<&str>) -> Result<Option<SymbolKind>, ToolError> {
    vocabulary(
        word,
        "kind",
        SymbolKind::parse,
        SymbolKind::ALL.into_iter().map(SymbolKind::as_str),
    )
}

fn ref_kind(word: Option<&str>) -> Result<Option<RefKind>, ToolError> {
    vocabulary(
        word,
        "kind",
        RefKind::parse,
        RefKind::ALL.into_iter().map(RefKind::as_str),
    )
}

fn lang(word: Option<&str>) -> Result<Option<Lang>, ToolError> {
    vocabulary(word, "lang", Lang::parse, Lang::names())
}

fn window(offset: Option<usize>, limit: Option<usize>, budget: usize) -> Window {
    Window {
        offset: offset.unwrap_or(0),
        limit: limit.unwrap_or(DEFAULT_LIMIT).clamp(1, MAX_LIMIT),
        budget,
    }
}

fn missing(name: &str, suggestions: Vec<String>) -> Answer {
    Answer {
        text: answers::missing(name, &suggestions),
        structured: json!({ "found": false, "name": name, "suggestions": suggestions }),
    }
}

/// A list answer over `page`: the lines of its hits in the window (after `header`, with
/// what was left out and how to narrow), and as JSON the `fields` that `shown` makes of
/// the hits shown, with the paging fields (`total`, `truncated`, `next_offset`, ...).
fn list_answer<T>(
    page: &Page<T>,
    header: Option<String>,
    line: impl Fn(&T) -> String,
    window: Window,
    narrow: &str,
    shown: impl FnOnce(&[T]) -> Value,
) -> Answer {
    let (total, at_least) = (page.total, page.total_at_least);
    let listing = answers::listing(
        header,
        page.hits.iter().map(line),
        total,
        at_least,
        window,
        narrow,
    );
    let end = window.offset + listing.shown;
    let mut structured = shown(&page.hits[window.offset.min(page.hits.len())..][..listing.shown]);
    if let Some(fields) = structured.as_object_mut() {
        fields.extend([
            ("total".to_owned(), json!(total)),
            ("total_at_least".to_owned(), json!(at_least)),
            ("offset".to_owned(), json!(window.offset)),
            (
                "truncated".to_owned(),
                json!(at_least || end < total || window.offset > 0),
            ),
            (
                "next_offset".to_owned(),
                json!((at_least || end < total).then_some(end)),
            ),
        ]);
    }
    Answer {
        text: listing.text,
        structured,
    }
}

fn find_symbol(index: &Index, query: FindQuery, window: Window) -> Result<Answer, ToolError> {
    let page = index.find_page(&FindQuery {
        limit: Some(window.offset + window.limit),
        ..query.clone()
    });
    if page.hits.is_empty() {
        return Ok(missing(&query.name, index.similar_names(&query.name, 5)));
    }
    Ok(list_answer(
        &page,
        None,
        answers::symbol_line,
        window,
        "a qualified name such as Type::method, kind or lang to narrow",
        |shown| json!({ "found": true, "definitions": wire::all::<_, wire::Definition>(shown) }),
    ))
}

fn find_references(
    index: &Index,
    target: &str,
    query: &RefsQuery,
    window: Window,
) -> Result<Answer, ToolError> {
    let definitions = index.targets(&RefTarget::parse(target))?;
    if definitions.is_empty() {
        return Ok(missing(target, index.similar_names(target, 5)));
    }
    let mut page = index.references_page(&definitions, query);
    let definitions_json = wire::all::<_, wire::Definition>(&definitions);
    if page.hits.is_empty() {
        let filtered = query.kind.is_some() || query.under.is_some() || query.resolved_only;
        let text = if filtered {
            // A filter that left nothing is not "nothing refers to it".
            let everywhere = index.references_page(
                &definitions,
                &RefsQuery {
                    limit: Some(0),
                    ..RefsQuery::default()
                },
            );
            (everywhere.total > 0).then(|| {
                format!(
                    "no uses of {target} match kind={} path={}{}; it has {} uses in all: call again without these filters to see them",
                    query.kind.map_or("(any)", RefKind::as_str),
                    query.under.as_deref().unwrap_or("(any)"),
                    if query.resolved_only { " resolved_only" } else { "" },
                    everywhere.total
                )
            })
        } else {
            None
        };
        let unread = if text.is_none() {
            index.unread_mentions(&definitions)?
        } else {
            Vec::new()
        };
        let text = text.unwrap_or_else(|| {
            if unread.is_empty() {
                answers::unused(target, &definitions)
            } else {
                answers::unread(target, &unread)
            }
        });
        return Ok(Answer {
            text,
            structured: json!({
                "found": true,
                "definitions": definitions_json,
                "references": [],
                "total": 0,
                "truncated": false,
                "unread": unread,
            }),
        });
    }
    answers::rank_references(&mut page.hits);
    Ok(list_answer(
        &page,
        Some(answers::references_summary(target, &page.hits, page.total)),
        answers::reference_line,
        window,
        "kind=call or path=DIR to narrow",
        |shown| {
            json!({
                "found": true,
                "definitions": definitions_json,
                "references": wire::all::<_, wire::Reference>(shown),
                "unread": [],
            })
        },
    ))
}

fn find_implementations(index: &Index, target: &str, window: Window) -> Result<Answer, ToolError> {
    let definitions = index.targets(&RefTarget::parse(target))?;
    if definitions.is_empty() {
        return Ok(missing(target, index.similar_names(target, 5)));
    }
    let page = index.implementors(&definitions);
    let definitions_json = wire::all::<_, wire::Definition>(&definitions);
    if page.hits.is_empty() {
        return Ok(Answer {
            text: answers::no_implementations(target, &definitions),
            structured: json!({
                "found": true,
                "definitions": definitions_json,
                "implementations": [],
                "total": 0,
                "truncated": false,
            }),
        });
    }
    Ok(list_answer(
        &page,
        None,
        answers::implementation_line,
        window,
        "a qualified name (Trait::method, module::Type) to narrow",
        |shown| {
            json!({
                "found": true,
                "definitions": definitions_json,
                "implementations": wire::all::<_, wire::Implementation>(shown),
            })
        },
    ))
}

fn impact(index: &Index, target: &str, depth: u32, window: Window) -> Result<Answer, ToolError> {
    let definitions = index.targets(&RefTarget::parse(target))?;
    if definitions.is_empty() {
        return Ok(missing(target, index.similar_names(target, 5)));
    }
    let found = index.impact(&definitions, depth);
    let summary = answers::impact_summary(target, depth, &found);
    let page = Page {
        total: found.sites.len(),
        total_at_least: found.truncated,
        hits: found.sites.clone(),
    };
    Ok(list_answer(
        &page,
        Some(summary),
        answers::impact_line,
        window,
        "depth=1 to narrow",
        |shown| wire::impact(&definitions, &found, shown),
    ))
}

fn call_graph(
    index: &Index,
    target: &str,
    depth: usize,
    callers: bool,
    window: Window,
) -> Result<Answer, ToolError> {
    let definitions = index.targets(&RefTarget::parse(target))?;
    if definitions.is_empty() {
        return Ok(missing(target, index.similar_names(target, 5)));
    }
    let page = if callers {
        index.callers(&definitions, depth)
    } else {
        index.callees(&definitions, depth)
    };
    let definitions_json = wire::all::<_, wire::Definition>(&definitions);
    if page.hits.is_empty() {
        return Ok(Answer {
            text: format!(
                "{target} is defined but has no {} in the index",
                if callers { "callers" } else { "callees" }
            ),
            structured: json!({
                "found": true,
                "definitions": definitions_json,
                "edges": [],
                "total": 0,
                "truncated": false,
            }),
        });
    }
    Ok(list_answer(
        &page,
        None,
        answers::edge_line,
        window,
        "a smaller depth",
        |shown| {
            json!({
                "found": true,
                "definitions": definitions_json,
                "edges": wire::all::<_, wire::Edge>(shown),
            })
        },
    ))
}

fn search_code(index: &Index, query: &SearchQuery, window: Window) -> Result<Answer, ToolError> {
    let page = index.search_page(query)?;
    if page.hits.is_empty() {
        return Ok(Answer {
            text: "no matches".to_owned(),
            structured: json!({ "matches": [], "total": 0, "truncated": false }),
        });
    }
    Ok(list_answer(
        &page,
        None,
        answers::search_line,
        window,
        "a path glob or more words to narrow",
        |shown| json!({ "matches": shown }),
    ))
}

fn index_status(index: &Index) -> Result<Answer, ToolError> {
    let status = index.status();
    let text = format!(
        "index of {} (generation {}): {} files, {} symbols, {} references; {}{}",
        mcursor_index::escape_controls(&status.root.display().to_string()),
        status.generation,
        status.files,
        status.symbols,
        status.references,
        if status.current { "current" } else { "stale" },
        if status.watched {
            " (kept current by a running `mcursor watch`)"
        } else {
            ""
        }
    );
    // A struct of strings and numbers always serializes.
    let structured =
        serde_json::to_value(&status).unwrap_or_else(|e| json!({ "error": e.to_string() }));
    Ok(Answer { text, structured })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_declaration_is_whole_and_the_agent_sees_a_subset() {
        for tool in IndexTool::ALL {
            assert_eq!(IndexTool::from_name(tool.name()), Some(tool));
            let full = tool.parameters();
            assert_eq!(full["type"], "object", "{}", tool.name());
            let properties = full["properties"].as_object().cloned().unwrap_or_default();
            // An argument named for the agent exists (a typo would hide it silently).
            for name in tool.agent_arguments() {
                assert!(properties.contains_key(*name), "{}: {name}", tool.name());
            }
            let shown = tool.agent_parameters();
            let shown = shown["properties"].as_object().cloned().unwrap_or_default();
            assert!(
                shown
                    .keys()
                    .all(|k| tool.agent_arguments().contains(&k.as_str()))
            );
            for required in full["required"].as_array().into_iter().flatten() {
                assert!(shown.contains_key(required.as_str().unwrap_or_default()));
            }
            // Optional arguments are typed as their type (no `null`), without formats.
            assert!(!full.to_string().contains("null"), "{full}");
            assert!(!full.to_string().contains("format"), "{full}");
        }
        assert_eq!(IndexTool::from_name("no_such_tool"), None);
    }

    #[test]
    fn callers_and_callees_page_within_the_budget() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        let mut lib = String::from("pub fn leaf() {}\n");
        for i in 0..40 {
            lib.push_str(&format!("pub fn caller_number_{i}() {{ leaf(); }}\n"));
        }
        std::fs::write(dir.path().join("src/lib.rs"), lib).expect("write");
        let tools = IndexTools::new(dir.path());
        tools.fit_answers_to(16_000);
        let first = tools
            .call(IndexTool::Callers, json!({"target": "leaf"}), &|_| {})
            .expect("callers");
        assert!(
            first.text.contains("caller_number_0 -> leaf"),
            "{}",
            first.text
        );
        assert!(first.text.len() <= 400 * 4 + 200, "{}", first.text.len());
        let next = first.structured["next_offset"]
            .as_u64()
            .expect("a next offset");
        assert_eq!(first.structured["total"], 40);
        assert_eq!(
            first.structured["edges"].as_array().map(Vec::len),
            Some(next as usize)
        );
        let rest = tools
            .call(
                IndexTool::Callers,
                json!({"target": "leaf", "offset": next}),
                &|_| {},
            )
            .expect("callers");
        assert!(
            rest.text.starts_with("  ") || rest.text.contains("-> leaf"),
            "{}",
            rest.text
        );
        assert!(!rest.text.contains("caller_number_0 "), "{}", rest.text);
        let callees = tools
            .call(
                IndexTool::Callees,
                json!({"target": "caller_number_3"}),
                &|_| {},
            )
            .expect("callees");
        assert!(
            callees.text.starts_with("caller_number_3 -> leaf"),
            "{}",
            callees.text
        );
        let missing = tools
            .call(IndexTool::Callers, json!({"target": "leaff"}), &|_| {})
            .expect("answered");
        assert_eq!(missing.structured["found"], false);
        assert!(matches!(
            tools.call(IndexTool::Callers, json!({"target": ""}), &|_| {}),
            Err(ToolError::BadArguments(_))
        ));
        assert!(matches!(
            tools.call(IndexTool::FindSymbol, json!({"name": "leaf", "lang": "cobol"}), &|_| {}),
            Err(ToolError::BadArguments(m)) if m.contains("rust")
        ));
    }

    /// Runs a tool by name, as the agent and MCP do, for its text.
    fn run(tools: &IndexTools, name: &str, args: Value) -> Result<String, ToolError> {
        let tool = IndexTool::from_name(name).expect("a tool");
        tools.call(tool, args, &|_| {}).map(|a| a.text)
    }

    #[test]
    fn implementations_page_within_the_budget_and_say_when_there_are_none() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        let mut lib =
            String::from("pub trait Shape { fn area(&self) -> f64; }\npub struct Lone;\n");
        for i in 0..60 {
            lib.push_str(&format!(
                "pub struct Shape{i};\nimpl Shape for Shape{i} {{ fn area(&self) -> f64 {{ 0.0 }} }}\n"
            ));
        }
        std::fs::write(dir.path().join("src/lib.rs"), lib).expect("write");
        let tools = IndexTools::new(dir.path());
        tools.fit_answers_to(16_000);
        let first = tools
            .call(
                IndexTool::FindImplementations,
                json!({"target": "Shape"}),
                &|_| {},
            )
            .expect("implementations");
        assert!(
            first
                .text
                .starts_with("src/lib.rs:4:1 impl Shape for Shape0: area (4)"),
            "{}",
            first.text
        );
        assert!(first.text.len() <= 400 * 4 + 200, "{}", first.text.len());
        assert_eq!(first.structured["total"], 60);
        let next = first.structured["next_offset"]
            .as_u64()
            .expect("a next offset");
        let rest = tools
            .call(
                IndexTool::FindImplementations,
                json!({"target": "Shape", "offset": next}),
                &|_| {},
            )
            .expect("implementations");
        assert!(!rest.text.contains("Shape0:"), "{}", rest.text);
        let method = tools
            .call(
                IndexTool::FindImplementations,
                json!({"target": "Shape::area"}),
                &|_| {},
            )
            .expect("implementations");
        assert_eq!(method.structured["total"], 60);
        let none = tools
            .call(
                IndexTool::FindImplementations,
                json!({"target": "Lone"}),
                &|_| {},
            )
            .expect("an answer");
        assert!(
            none.text.contains("nothing in the index implements"),
            "{}",
            none.text
        );
        assert_eq!(none.structured["found"], true);
        let missing = tools
            .call(
                IndexTool::FindImplementations,
                json!({"target": "Nowhere"}),
                &|_| {},
            )
            .expect("an answer");
        assert!(
            missing.text.starts_with("no symbol named Nowhere"),
            "{}",
            missing.text
        );
        assert!(matches!(
            tools.call(
                IndexTool::FindImplementations,
                json!({"target": ""}),
                &|_| {}
            ),
            Err(ToolError::BadArguments(_))
        ));
    }

    #[test]
    fn impact_summarizes_then_lists_sites_within_the_budget() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        let mut lib = String::from("pub fn leaf() {}\n");
        for i in 0..50 {
            lib.push_str(&format!(
                "pub fn middle_{i}() {{ leaf(); }}\npub fn top_{i}() {{ middle_{i}(); }}\n"
            ));
        }
        std::fs::write(dir.path().join("src/lib.rs"), lib).expect("write");
        let tools = IndexTools::new(dir.path());
        tools.fit_answers_to(16_000);
        let answer = tools
            .call(IndexTool::Impact, json!({"target": "leaf"}), &|_| {})
            .expect("impact");
        assert!(
            answer.text.starts_with(
                "a change to leaf (to depth 2) can affect 100 sites in 1 file (100 definitions); level 1: 50 call; level 2: 50 call"
            ),
            "{}",
            answer.text
        );
        assert!(answer.text.len() <= 400 * 4 + 300, "{}", answer.text.len());
        assert_eq!(answer.structured["total"], 100);
        assert!(answer.structured["next_offset"].as_u64().is_some());
        let shallow = tools
            .call(
                IndexTool::Impact,
                json!({"target": "leaf", "depth": 1}),
                &|_| {},
            )
            .expect("impact");
        assert_eq!(shallow.structured["total"], 50);
        let unused = tools
            .call(IndexTool::Impact, json!({"target": "top_3"}), &|_| {})
            .expect("impact");
        assert!(
            unused.text.starts_with("nothing in the index uses"),
            "{}",
            unused.text
        );
    }

    #[test]
    fn the_first_call_builds_the_index_and_later_ones_see_edits() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn parse_config() {}\n").expect("write");
        let tools = IndexTools::new(dir.path());
        let found = run(&tools, "find_symbol", json!({"name": "parse_config"})).expect("find");
        assert!(
            found.starts_with("src/lib.rs:1:8 function parse_config"),
            "{found}"
        );
        assert!(dir.path().join(".mcursor").is_dir());

        // An edit by someone else (not through the agent's tools) shows once the next
        // check for outside changes is due.
        std::fs::write(
            dir.path().join("src/lib.rs"),
            "pub fn load_config() {}\npub fn main() { load_config(); }\n",
        )
        .expect("edit");
        std::thread::sleep(mcursor_index::live::LOOK_EVERY + std::time::Duration::from_millis(100));
        let gone = run(&tools, "find_symbol", json!({"name": "parse_config"})).expect("find");
        assert!(gone.starts_with("no symbol named parse_config"), "{gone}");
        let refs = run(&tools, "find_references", json!({"target": "load_config"})).expect("refs");
        assert!(
            refs.starts_with("load_config is used 1 time: 1 resolved"),
            "{refs}"
        );
        assert!(refs.contains("\nsrc/lib.rs:2:17 [call in main"), "{refs}");
        let search = run(&tools, "search_code", json!({"query": "load config"})).expect("search");
        assert!(
            search.contains("src/lib.rs:1: pub fn load_config() {}"),
            "{search}"
        );
        assert!(matches!(
            run(&tools, "find_symbol", json!({"name": 3})),
            Err(ToolError::BadArguments(_))
        ));
        // A huge query is refused before any search work.
        let huge = run(&tools, "search_code", json!({"query": "a ".repeat(50_000)}));
        assert!(
            matches!(&huge, Err(ToolError::BadArguments(m)) if m.contains("at most 4096")),
            "{huge:?}"
        );
        let many = run(&tools, "search_code", json!({"query": "word ".repeat(40)}));
        assert!(
            matches!(&many, Err(ToolError::Index(m)) if m.to_string().contains("40 words")),
            "{many:?}"
        );
    }

    #[test]
    fn references_for_a_model_come_best_first_within_a_budget_with_the_way_on() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir_all(dir.path().join("src/net")).expect("mkdir");
        // Resolved calls in lib.rs, name matches through an unknown receiver in net/.
        let mut lib = String::from("pub fn target() {}\n");
        for i in 0..30 {
            lib.push_str(&format!("pub fn caller{i}() {{ target(); }}\n"));
        }
        std::fs::write(dir.path().join("src/lib.rs"), lib).expect("write");
        let mut net = String::from("pub fn go(x: &dyn std::any::Any) {\n");
        for _ in 0..30 {
            net.push_str("    x.target();\n");
        }
        net.push_str("}\n");
        std::fs::write(dir.path().join("src/net/mod.rs"), net).expect("write");
        let tools = IndexTools::new(dir.path());
        tools.fit_answers_to(16_000);
        let first = run(&tools, "find_references", json!({"target": "target"})).expect("refs");
        let lines: Vec<&str> = first.lines().collect();
        assert!(lines[0].contains("resolved (30 call)"), "{first}");
        assert!(lines[1].contains("resolved"), "{first}");
        assert!(first.len() <= 400 * 4 + 200, "{} bytes", first.len());
        let footer = lines.last().copied().unwrap_or_default();
        assert!(footer.contains("offset="), "{first}");
        let shown = lines.len() - 2;
        let next = run(
            &tools,
            "find_references",
            json!({"target": "target", "offset": shown}),
        )
        .expect("refs");
        assert!(
            next.contains(&format!("({}-", shown + 1)) || !next.contains("offset="),
            "{next}"
        );
        let calls = run(
            &tools,
            "find_references",
            json!({"target": "target", "kind": "call", "path": "src/lib.rs"}),
        )
        .expect("refs");
        assert!(
            calls
                .lines()
                .skip(1)
                .all(|l| l.starts_with("src/lib.rs") || l.starts_with('(')),
            "{calls}"
        );
        assert!(matches!(
            run(
                &tools,
                "find_references",
                json!({"target": "target", "kind": "sometimes"})
            ),
            Err(ToolError::BadArguments(_))
        ));
        // A filter that leaves nothing says that there are uses elsewhere; "all" is no
        // filter, and a path may be a glob.
        let elsewhere = run(
            &tools,
            "find_references",
            json!({"target": "target", "path": "lib/Session.cpp"}),
        )
        .expect("refs");
        assert!(
            elsewhere.starts_with("no uses of target match"),
            "{elsewhere}"
        );
        assert!(elsewhere.contains("uses in all"), "{elsewhere}");
        let all = run(
            &tools,
            "find_references",
            json!({"target": "target", "kind": "all", "path": "src/**/*.rs"}),
        )
        .expect("refs");
        assert!(all.starts_with("target is used"), "{all}");
    }
}
