//! mcursor-mcp serves one repository's mcursor index to other agents over the Model
//! Context Protocol, on stdio or streamable HTTP ([`serve_http`]), built on the official
//! Rust SDK (`rmcp`).
//!
//! It owns the protocol side only: the tools themselves (names, descriptions, argument
//! schemas, handlers, answers) are `mcursor-tools`' [`IndexTool::ALL`], the same ones
//! mcursor's agent registers, answered by one [`IndexTools`] (a `LiveIndex` that follows
//! the working tree). Here: listing them, running a call on a blocking thread, build
//! progress as MCP progress notifications, errors as MCP errors, the index status as a
//! resource (`mcursor://index`) whose subscribers hear `notifications/resources/updated`
//! when the index generation moves (whoever moved it), and over HTTP one index shared by
//! every session, bearer tokens and the loopback default.
//!
//! Invariants:
//! - Bad input never ends the server: unknown tools and malformed arguments are protocol
//!   errors (invalid params), failed queries are tool errors the caller sees; only a
//!   closed stdin ends it.
//! - Answers are never older than the files: before each answer the working tree is
//!   compared with the index (size and modification time, at most once a second) and the
//!   index is updated if anything changed. With no index yet, the first call builds one
//!   and reports progress as MCP progress notifications.
//! - Over HTTP, an address that is not loopback is refused without a bearer token; with
//!   one, every request without it is answered 401 before it reaches the protocol.

mod http;

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub use http::{MCP_PATH, serve_http};

use mcursor_index::{IndexError, Progress};
use mcursor_tools::{IndexTool, IndexTools, ToolError};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListResourcesResult, ListToolsResult, PaginatedRequestParams, ProgressNotificationParam,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
    ResourceContents, ResourceUpdatedNotificationParam, ServerCapabilities, ServerConfig,
    SubscribeRequestParams, Tool, ToolAnnotations, UnsubscribeRequestParams,
};
use rmcp::service::{Peer, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum McpError {
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error("MCP transport: {0}")]
    Transport(String),
    #[error("cannot start the async runtime: {0}")]
    Runtime(#[from] std::io::Error),
    #[error("cannot listen on {address}: {source}")]
    Bind {
        address: std::net::SocketAddr,
        source: std::io::Error,
    },
    /// A setting that would expose the index (a public address without a token).
    #[error("{0}")]
    Refused(String),
}

/// The resource that stands for the index: its status, updated with each generation.
pub const INDEX_RESOURCE: &str = "mcursor://index";
/// How often the committed generation is looked at for subscribers.
const GENERATION_POLL: Duration = Duration::from_secs(1);

/// The repository root for `start`: the index's, or `start` itself when it has none yet
/// (the first call builds it).
fn root_of(start: &Path) -> Result<PathBuf, McpError> {
    match mcursor_index::find_root(start) {
        Ok(root) => Ok(root),
        Err(IndexError::NoIndex(_)) => Ok(mcursor_index::check_root(start)?),
        Err(e) => Err(e.into()),
    }
}

fn runtime() -> Result<tokio::runtime::Runtime, McpError> {
    Ok(tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()?)
}

/// Serves the repository at (or above) `start` on stdin/stdout until stdin closes.
pub fn serve_stdio(start: &Path) -> Result<(), McpError> {
    let root = root_of(start)?;
    runtime()?.block_on(async move {
        let server = IndexServer::new(root);
        tokio::spawn(server.clone().announce_generations());
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
/// Clones share everything: over HTTP each session gets a clone, so all of them read one
/// index and one list of subscribers.
#[derive(Clone)]
pub struct IndexServer {
    root: PathBuf,
    tools: Arc<IndexTools>,
    /// Sessions subscribed to [`INDEX_RESOURCE`].
    subscribers: Arc<Mutex<Vec<Peer<RoleServer>>>>,
}

impl IndexServer {
    pub fn new(root: PathBuf) -> Self {
        Self {
            tools: Arc::new(IndexTools::new(&root)),
            root,
            subscribers: Arc::new(Mutex::new(Vec::new())),
        }
    }

    /// Forever: when the committed generation moves (this server's own update, `mcursor
    /// index`, a `mcursor watch`), tells every subscriber that [`INDEX_RESOURCE`] changed;
    /// forgets subscribers whose session is gone.
    async fn announce_generations(self) {
        let mut last = mcursor_index::current_generation(&self.root);
        let mut tick = tokio::time::interval(GENERATION_POLL);
        loop {
            tick.tick().await;
            let now = mcursor_index::current_generation(&self.root);
            if now.is_none() || now == last {
                continue;
            }
            last = now;
            let peers: Vec<Peer<RoleServer>> = self.subscribers().clone();
            for peer in &peers {
                // A failed send is a closed session, dropped below.
                let _ = peer
                    .notify_resource_updated(ResourceUpdatedNotificationParam::new(INDEX_RESOURCE))
                    .await;
            }
            self.subscribers().retain(|p| !p.is_transport_closed());
        }
    }

    fn subscribers(&self) -> std::sync::MutexGuard<'_, Vec<Peer<RoleServer>>> {
        match self.subscribers.lock() {
            Ok(list) => list,
            Err(poisoned) => poisoned.into_inner(),
        }
    }

    /// Runs `tool` on a blocking thread, forwarding a first build's progress to the
    /// caller when it asked for progress.
    async fn run(
        &self,
        tool: IndexTool,
        arguments: serde_json::Value,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResult, ErrorData> {
        let (sender, mut receiver) =
            tokio::sync::mpsc::unbounded_channel::<(f64, Option<f64>, String)>();
        let tools = self.tools.clone();
        let call = tokio::task::spawn_blocking(move || {
            tools.call(tool, arguments, &|progress| {
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
        let token = context.meta.get_progress_token();
        while let Some((progress, total, message)) = receiver.recv().await {
            if let Some(token) = &token {
                let mut param =
                    ProgressNotificationParam::new(token.clone(), progress).with_message(message);
                if let Some(total) = total {
                    param = param.with_total(total);
                }
                let _ = context.peer.notify_progress(param).await;
            }
        }
        match call.await {
            Ok(Ok(answer)) => {
                let mut result = CallToolResult::success(vec![ContentBlock::text(answer.text)]);
                result.structured_content = Some(answer.structured);
                Ok(result)
            }
            Ok(Err(ToolError::BadArguments(why))) => Err(ErrorData::invalid_params(why, None)),
            // A query that could not be answered (damaged index, bad regex...): the
            // caller sees why, as a tool error.
            Ok(Err(e @ ToolError::Index(_))) => {
                Ok(CallToolResult::error(vec![ContentBlock::text(
                    e.to_string(),
                )]))
            }
            Err(e) => Err(ErrorData::internal_error(e.to_string(), None)),
        }
    }
}

fn unknown_resource(uri: &str) -> ErrorData {
    ErrorData::resource_not_found(
        format!("no resource {uri}; the one resource is {INDEX_RESOURCE}"),
        None,
    )
}

/// Whether two peers are one session: clones of a session's peer share its client info.
fn same_session(a: &Peer<RoleServer>, b: &Peer<RoleServer>) -> bool {
    match (a.peer_info(), b.peer_info()) {
        (Some(a), Some(b)) => Arc::ptr_eq(&a, &b),
        _ => false,
    }
}

/// A tool as MCP lists it: its declaration, marked read-only.
fn listed(tool: IndexTool) -> Tool {
    let schema = match tool.parameters() {
        serde_json::Value::Object(schema) => schema,
        _ => serde_json::Map::new(),
    };
    Tool::new(tool.name(), tool.description(), schema)
        .annotate(ToolAnnotations::new().read_only(true))
}

impl ServerHandler for IndexServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_resources()
                .enable_resources_subscribe()
                .build(),
        )
        .with_server_info(Implementation::new("mcursor", env!("CARGO_PKG_VERSION")))
        .with_instructions(format!(
            "Code intelligence for the repository at {}: exact definitions (find_symbol), \
                 references with confidence (find_references), implementations \
                 (find_implementations), call graph (callers, callees), what a change affects \
                 (impact) and code search (search_code). Prefer these over grepping for \
                 identifiers. Long answers are cut to a budget and say how to get the rest \
                 (offset). Subscribe to {INDEX_RESOURCE} to hear when the index changes.",
            self.root.display()
        ))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(
            IndexTool::ALL.into_iter().map(listed).collect(),
        ))
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        Ok(ListResourcesResult::with_all_items(vec![
            Resource::new(INDEX_RESOURCE, "index")
                .with_description(
                    "The code index's status (files, symbols, generation, freshness); \
                     subscribers hear when its generation moves",
                )
                .with_mime_type("application/json"),
        ]))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        if request.uri != INDEX_RESOURCE {
            return Err(unknown_resource(&request.uri));
        }
        let tools = self.tools.clone();
        let answer = tokio::task::spawn_blocking(move || {
            tools.call(IndexTool::IndexStatus, serde_json::Value::Null, &|_| {})
        })
        .await
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?
        .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        Ok(
            ReadResourceResult::new(vec![ResourceContents::TextResourceContents {
                uri: INDEX_RESOURCE.to_owned(),
                mime_type: Some("application/json".to_owned()),
                text: answer.structured.to_string(),
                meta: None,
            }])
            .into(),
        )
    }

    // The 2025 protocol's subscriptions, which the clients of today speak (the
    // SDK marks them legacy ahead of the 2026-07-28 protocol).
    #[allow(deprecated)]
    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        if request.uri != INDEX_RESOURCE {
            return Err(unknown_resource(&request.uri));
        }
        let mut subscribers = self.subscribers();
        subscribers.retain(|p| !p.is_transport_closed());
        subscribers.push(context.peer);
        Ok(())
    }

    #[allow(deprecated)]
    async fn unsubscribe(
        &self,
        _request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.subscribers()
            .retain(|p| !p.is_transport_closed() && !same_session(p, &context.peer));
        Ok(())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        IndexTool::from_name(name).map(listed)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let Some(tool) = IndexTool::from_name(&request.name) else {
            return Err(ErrorData::invalid_params(
                format!(
                    "unknown tool `{}`; the tools are: {}",
                    request.name,
                    IndexTool::ALL.map(IndexTool::name).join(", ")
                ),
                None,
            ));
        };
        let arguments = request
            .arguments
            .map_or(serde_json::Value::Null, serde_json::Value::Object);
        Ok(self.run(tool, arguments, &context).await?.into())
    }
}
