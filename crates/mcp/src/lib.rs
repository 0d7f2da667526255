//! mcursor-mcp serves one repository's mcursor index to other agents over the Model
//! Context Protocol (stdio), built on the official Rust SDK (`rmcp`).
//!
//! It owns the MCP tool surface (`find_symbol`, `find_references`, `callers`, `callees`,
//! `search_code`, `index_status`: schemas, descriptions, text and structured results).
//! Keeping the index fresh while it runs is `mcursor_index::LiveIndex`, the same policy
//! the agent's tools follow. Queries go to `mcursor-index`, whose synchronous API runs on
//! `spawn_blocking` threads.
//!
//! Invariants:
//! - Bad input never ends the server: unknown tools and malformed arguments are protocol
//!   errors, failed queries are tool errors the caller sees; only a closed stdin ends it.
//! - Answers are never older than the files: before each answer the working tree is
//!   compared with the index (size and modification time, at most once a second) and the
//!   index is rebuilt if anything changed. With no index yet, the first call builds one
//!   and reports progress as MCP progress notifications.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcursor_index::{
    FindQuery, Index, IndexError, LiveIndex, Progress, RefsQuery, SearchQuery, answers,
};
use mcursor_syntax::{Lang, RefKind, SymbolKind};
use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, Implementation, ProgressNotificationParam, RequestMetaObject,
    ServerCapabilities, ServerConfig,
};
use rmcp::{
    ErrorData, Peer, RoleServer, ServerHandler, ServiceExt, tool, tool_handler, tool_router,
};
use schemars::JsonSchema;
use serde::Deserialize;

/// Longest name, query or path argument accepted, in bytes.
const MAX_ARGUMENT_BYTES: usize = 4096;

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("MCP transport: {0}")]
    Transport(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
}

/// Serves the repository at (or above) `start` on stdin/stdout until stdin closes.
pub fn serve_stdio(start: &Path) -> Result<(), McpError> {
    let root = match mcursor_index::find_root(start) {
        Ok(root) => root,
        Err(IndexError::NoIndex(_)) => mcursor_index::check_root(start)?,
        Err(e) => return Err(e.into()),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?;
    runtime.block_on(async move {
        let server = IndexServer::new(root);
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| McpError::Transport(e.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|e| McpError::Transport(e.to_string()))?;
        Ok(())
    })
}

/// The MCP server for one repository.
#[derive(Clone)]
pub struct IndexServer {
    root: PathBuf,
    /// The index, kept current as the agent's tools keep theirs.
    live: Arc<LiveIndex>,
    tool_router: ToolRouter<Self>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindSymbolArgs {
    /// A name (`parse_config`), or a qualified name: `Type::method`, `Class.method`,
    /// `module::name`.
    pub name: String,
    /// Only definitions of this kind: function, method, struct, class, enum,
    /// enum_variant, interface, trait, type_alias, constant, static, variable, field,
    /// module, macro.
    pub kind: Option<String>,
    /// Only this language.
    #[serde(default)]
    #[schemars(schema_with = "lang_schema")]
    pub lang: Option<String>,
    /// At most this many results (default 50).
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindReferencesArgs {
    /// A symbol name (as for find_symbol) or a position `path:line[:column]`.
    pub target: String,
    /// Only this kind of use: call, type, import, macro, field, identifier.
    pub kind: Option<String>,
    /// Leave out references matched by name only (confidence "heuristic").
    pub resolved_only: Option<bool>,
    /// At most this many results (default 200).
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CallGraphArgs {
    /// A function or method name (as for find_symbol) or a position `path:line[:column]`.
    pub target: String,
    /// How many levels to follow (default 1, at most 5).
    pub depth: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchCodeArgs {
    /// Words to find. Each word matches whole identifiers and their sub-words
    /// (`parseFile` finds `parse_file`); `"quoted words"` form a phrase.
    pub query: String,
    /// Treat the query as a regular expression matched line by line.
    pub regex: Option<bool>,
    /// Only paths matching this glob (`src/**/*.rs`).
    pub path: Option<String>,
    /// Only files of this language.
    #[serde(default)]
    #[schemars(schema_with = "lang_schema")]
    pub lang: Option<String>,
    /// At most this many matching lines (default 50).
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoArgs {}

fn invalid(message: impl Into<String>) -> ErrorData {
    ErrorData::invalid_params(message.into(), None)
}

fn check_length(field: &str, value: &str) -> Result<(), ErrorData> {
    if value.len() > MAX_ARGUMENT_BYTES {
        return Err(invalid(format!(
            "`{field}` is {} bytes; at most {MAX_ARGUMENT_BYTES} are accepted",
            value.len()
        )));
    }
    if value.trim().is_empty() {
        return Err(invalid(format!("`{field}` is empty")));
    }
    Ok(())
}

fn parse_kind(word: Option<&str>) -> Result<Option<SymbolKind>, ErrorData> {
    word.map(|w| SymbolKind::parse(w).ok_or_else(|| invalid(format!("unknown symbol kind `{w}`"))))
        .transpose()
}

fn parse_ref_kind(word: Option<&str>) -> Result<Option<RefKind>, ErrorData> {
    word.map(|w| RefKind::parse(w).ok_or_else(|| invalid(format!("unknown reference kind `{w}`"))))
        .transpose()
}

/// The schema of a `lang` argument: one of the language table's names (or null).
fn lang_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let names: Vec<Option<&str>> = Lang::names().map(Some).chain([None]).collect();
    let mut schema = schemars::json_schema!({ "type": ["string", "null"] });
    schema.insert("enum".to_owned(), serde_json::json!(names));
    schema
}

fn parse_lang(word: Option<&str>) -> Result<Option<Lang>, ErrorData> {
    word.map(|w| Lang::parse(w).ok_or_else(|| invalid(format!("unknown language `{w}`"))))
        .transpose()
}

/// A successful answer: compact text for the model plus the same data as JSON.
fn answer(text: String, structured: serde_json::Value) -> CallToolResult {
    let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
    result.structured_content = Some(structured);
    result
}

/// A query that could not be answered (damaged index, bad regex...): the caller sees why.
fn failure(message: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(message)])
}

impl IndexServer {
    pub fn new(root: PathBuf) -> Self {
        Self {
            live: Arc::new(LiveIndex::new(&root)),
            root,
            tool_router: Self::tool_router(),
        }
    }

    /// The current index (see [`LiveIndex`]): built on first use, updated when files
    /// changed, with the build's progress forwarded when the caller asked for it.
    async fn fresh_index(
        &self,
        meta: &RequestMetaObject,
        peer: &Peer<RoleServer>,
    ) -> Result<Arc<Index>, String> {
        let (sender, mut receiver) =
            tokio::sync::mpsc::unbounded_channel::<(f64, Option<f64>, String)>();
        let live = self.live.clone();
        let get = tokio::task::spawn_blocking(move || {
            live.get(&|progress| {
                let update = match progress {
                    Progress::WaitingForLock { holder } => (
                        0.0,
                        None,
                        format!("waiting for {holder} to finish writing the index"),
                    ),
                    Progress::Walked { files } => (0.0, Some(files as f64), "parsing".into()),
                    Progress::Parsed { done, total } => {
                        (done as f64, Some(total as f64), "parsing".into())
                    }
                    Progress::Writing => (0.0, None, "resolving names and writing".into()),
                };
                let _ = sender.send(update);
            })
        });
        let token = meta.get_progress_token();
        while let Some((progress, total, message)) = receiver.recv().await {
            if let Some(token) = &token {
                let mut param =
                    ProgressNotificationParam::new(token.clone(), progress).with_message(message);
                if let Some(total) = total {
                    param = param.with_total(total);
                }
                let _ = peer.notify_progress(param).await;
            }
        }
        get.await
            .map_err(|e| e.to_string())?
            .map_err(|e| e.to_string())
    }

    /// Runs a synchronous query against a fresh index on a blocking thread.
    async fn query<T: Send + 'static>(
        &self,
        meta: &RequestMetaObject,
        peer: &Peer<RoleServer>,
        run: impl FnOnce(&Index) -> Result<T, String> + Send + 'static,
    ) -> Result<T, String> {
        let index = self.fresh_index(meta, peer).await?;
        tokio::task::spawn_blocking(move || run(&index))
            .await
            .map_err(|e| e.to_string())?
    }
}

fn missing(name: &str, suggestions: Vec<String>) -> CallToolResult {
    answer(
        answers::missing(name, &suggestions),
        serde_json::json!({ "found": false, "name": name, "suggestions": suggestions }),
    )
}

#[tool_router]
impl IndexServer {
    #[tool(
        description = "Where is a symbol defined? Exact lookup by name or qualified name (`Type::method`, `Class.method`) in the repository's code index: path, line, kind, qualified name and signature of each definition. Use this instead of grepping for an identifier. \"No such symbol\" comes back as found=false with suggestions that are not matches."
    )]
    async fn find_symbol(
        &self,
        Parameters(args): Parameters<FindSymbolArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        check_length("name", &args.name)?;
        let query = FindQuery {
            name: args.name.clone(),
            kind: parse_kind(args.kind.as_deref())?,
            lang: parse_lang(args.lang.as_deref())?,
            limit: Some(args.limit.unwrap_or(50).clamp(1, 1000)),
            ..FindQuery::default()
        };
        let name = args.name;
        let result = self
            .query(&meta, &peer, move |index| {
                let page = index.find_page(&query);
                if page.hits.is_empty() {
                    return Ok(missing(&name, index.similar_names(&name, 5)));
                }
                Ok(answer(
                    answers::with_cut(
                        answers::definitions(&page.hits),
                        &page,
                        "a larger limit, kind or lang, or a qualified name narrows",
                    ),
                    serde_json::json!({
                        "found": true,
                        "definitions": page.hits,
                        "total": page.total,
                        "truncated": page.truncated(),
                    }),
                ))
            })
            .await;
        Ok(result.unwrap_or_else(failure))
    }

    #[tool(
        description = "Who uses a symbol? References to a definition, found by name or by a `path:line[:column]` position: each with path, line, column, kind of use (call, type, import, macro, field, identifier), the enclosing definition, and confidence: \"resolved\" (decided by an import, path, scope or the receiver's declared type), \"heuristic\" (the receiver's type is unknown: a name match, may be another symbol with that name) or \"dispatch\" (a call through a trait, interface or base member this one implements: it may reach this one). Distinguishes \"no such symbol\" (found=false) from \"no references\" (found=true, empty list)."
    )]
    async fn find_references(
        &self,
        Parameters(args): Parameters<FindReferencesArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        check_length("target", &args.target)?;
        let query = RefsQuery {
            kind: parse_ref_kind(args.kind.as_deref())?,
            resolved_only: args.resolved_only.unwrap_or(false),
            direct_only: false,
            under: None,
            limit: Some(args.limit.unwrap_or(200).clamp(1, 5000)),
        };
        let target = args.target;
        let result = self
            .query(&meta, &peer, move |index| {
                let targets = match answers::targets(index, &target).map_err(|e| e.to_string())? {
                    answers::Targets::Found(t) => t,
                    answers::Targets::Missing { suggestions } => {
                        return Ok(missing(&target, suggestions));
                    }
                };
                let page = index.references_page(&targets, &query);
                let unread = if page.hits.is_empty() {
                    index.unread_mentions(&targets).map_err(|e| e.to_string())?
                } else {
                    Vec::new()
                };
                let text = if unread.is_empty() {
                    answers::with_cut(
                        answers::references(&target, &targets, &page.hits),
                        &page,
                        "a larger limit, or a kind, narrows",
                    )
                } else {
                    answers::unread(&target, &unread)
                };
                Ok(answer(
                    text,
                    serde_json::json!({
                        "found": true,
                        "definitions": targets,
                        "references": page.hits,
                        "total": page.total,
                        "truncated": page.truncated(),
                        "unread": unread,
                    }),
                ))
            })
            .await;
        Ok(result.unwrap_or_else(failure))
    }

    #[tool(
        description = "Who calls a function or method? The call graph upwards, `depth` levels (default 1): each edge with caller, callee, call sites and confidence (resolved or heuristic)."
    )]
    async fn callers(
        &self,
        Parameters(args): Parameters<CallGraphArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call_graph(args, meta, peer, true).await
    }

    #[tool(
        description = "What does a function or method call? The call graph downwards, `depth` levels (default 1): each edge with caller, callee, call sites and confidence (resolved or heuristic)."
    )]
    async fn callees(
        &self,
        Parameters(args): Parameters<CallGraphArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        self.call_graph(args, meta, peer, false).await
    }

    #[tool(
        description = "Full-text code search over the repository's index: words match whole identifiers and their sub-words (`parseFile` finds `parse_file`), \"quoted phrases\", or a regular expression with regex=true; optional path glob and language filters. Returns matching lines with path and line number."
    )]
    async fn search_code(
        &self,
        Parameters(args): Parameters<SearchCodeArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        check_length("query", &args.query)?;
        if let Some(path) = &args.path {
            check_length("path", path)?;
        }
        let query = SearchQuery {
            query: args.query,
            regex: args.regex.unwrap_or(false),
            path_glob: args.path,
            lang: parse_lang(args.lang.as_deref())?,
            limit: args.limit.unwrap_or(50).clamp(1, 1000),
        };
        let result = self
            .query(&meta, &peer, move |index| {
                let page = index.search_page(&query).map_err(|e| e.to_string())?;
                Ok(answer(
                    answers::with_cut(
                        answers::search(&page.hits),
                        &page,
                        "a larger limit, a path glob or more words narrow",
                    ),
                    serde_json::json!({
                        "matches": page.hits,
                        "total": page.total,
                        "total_at_least": page.total_at_least,
                        "truncated": page.truncated(),
                    }),
                ))
            })
            .await;
        Ok(result.unwrap_or_else(failure))
    }

    #[tool(
        description = "The state of the code index: files per language, symbols, references, generation, and whether it is current (the server rebuilds it before answering when files changed)."
    )]
    async fn index_status(
        &self,
        Parameters(_): Parameters<NoArgs>,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let result = self
            .query(&meta, &peer, move |index| {
                let status = index.status();
                let text = format!(
                    "index of {} (generation {}): {} files, {} symbols, {} references; {}",
                    status.root.display(),
                    status.generation,
                    status.files,
                    status.symbols,
                    status.references,
                    if status.current { "current" } else { "stale" }
                );
                let structured = serde_json::to_value(&status).map_err(|e| e.to_string())?;
                Ok(answer(text, structured))
            })
            .await;
        Ok(result.unwrap_or_else(failure))
    }
}

impl IndexServer {
    async fn call_graph(
        &self,
        args: CallGraphArgs,
        meta: RequestMetaObject,
        peer: Peer<RoleServer>,
        callers: bool,
    ) -> Result<CallToolResult, ErrorData> {
        check_length("target", &args.target)?;
        let depth = args.depth.unwrap_or(1).clamp(1, 5);
        let target = args.target;
        let result = self
            .query(&meta, &peer, move |index| {
                let targets = match answers::targets(index, &target).map_err(|e| e.to_string())? {
                    answers::Targets::Found(t) => t,
                    answers::Targets::Missing { suggestions } => {
                        return Ok(missing(&target, suggestions));
                    }
                };
                let page = if callers {
                    index.callers(&targets, depth)
                } else {
                    index.callees(&targets, depth)
                };
                let edges = &page.hits;
                let text = if edges.is_empty() {
                    format!(
                        "{target} is defined but has no {} in the index",
                        if callers { "callers" } else { "callees" }
                    )
                } else {
                    edges
                        .iter()
                        .map(|e| {
                            format!(
                                "{}{} -> {} ({}; {})",
                                "  ".repeat(e.depth.saturating_sub(1) as usize),
                                e.caller,
                                e.callee,
                                e.sites.join(", "),
                                e.confidence
                            )
                        })
                        .collect::<Vec<_>>()
                        .join("\n")
                };
                let text = answers::with_cut(text, &page, "a smaller depth gives a whole answer");
                Ok(answer(
                    text,
                    serde_json::json!({
                        "found": true,
                        "definitions": targets,
                        "edges": edges,
                        "truncated": page.truncated(),
                    }),
                ))
            })
            .await;
        Ok(result.unwrap_or_else(failure))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for IndexServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mcursor", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Code intelligence for the repository at {}: exact definitions (find_symbol), \
                 references with confidence (find_references), call graph (callers, callees) and \
                 code search (search_code). Prefer these over grepping for identifiers.",
                self.root.display()
            ))
    }
}
