//! mcursor-mcp serves one repository's mcursor index to other agents over the Model
//! Context Protocol (stdio), built on the official Rust SDK (`rmcp`).
//!
//! It owns the protocol side only: the tools themselves (names, descriptions, argument
//! schemas, handlers, answers) are `mcursor-tools`' [`IndexTool::ALL`], the same ones
//! mcursor's agent registers, answered by one [`IndexTools`] (a `LiveIndex` that follows
//! the working tree). Here: listing them, running a call on a blocking thread, build
//! progress as MCP progress notifications, and errors as MCP errors.
//!
//! Invariants:
//! - Bad input never ends the server: unknown tools and malformed arguments are protocol
//!   errors (invalid params), failed queries are tool errors the caller sees; only a
//!   closed stdin ends it.
//! - Answers are never older than the files: before each answer the working tree is
//!   compared with the index (size and modification time, at most once a second) and the
//!   index is updated if anything changed. With no index yet, the first call builds one
//!   and reports progress as MCP progress notifications.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use mcursor_index::{IndexError, Progress};
use mcursor_tools::{IndexTool, IndexTools, ToolError};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities,
    ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
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
    tools: Arc<IndexTools>,
}

impl IndexServer {
    pub fn new(root: PathBuf) -> Self {
        Self {
            tools: Arc::new(IndexTools::new(&root)),
            root,
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
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("mcursor", env!("CARGO_PKG_VERSION")))
            .with_instructions(format!(
                "Code intelligence for the repository at {}: exact definitions (find_symbol), \
                 references with confidence (find_references), call graph (callers, callees) and \
                 code search (search_code). Prefer these over grepping for identifiers. Long \
                 answers are cut to a budget and say how to get the rest (offset).",
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
