//! All the tools of one agent session behind one call: file tools and index tools on
//! blocking threads, `execute_command` as a task. Whatever goes wrong comes back as a
//! [`ToolOutcome`] for the model, never as an error of the loop.
//!
//! The index tools are `mcursor-tools`' ([`IndexTool::ALL`], those offered to the agent):
//! the same declarations, handlers and answers as over MCP. The first call builds the
//! index if there is none; every call brings it up to date with the working tree, and
//! the agent's own writes and commands queue an update that the next index call waits
//! for (their results return at once), so answers never come from before an edit.

use std::future::Future;
use std::sync::Arc;

use mcursor_tools::{IndexTool, IndexTools};

use crate::shell::{CommandOptions, execute_command, execute_command_spec};
use crate::{ToolError, ToolOutcome, ToolSpec, Workspace, parse_arguments};

pub struct Toolbox {
    workspace: Workspace,
    index: Arc<IndexTools>,
    command: CommandOptions,
    /// Whether the index tools are offered (off: files and commands only, as a
    /// grep-driven agent has; for comparisons).
    offers_index: bool,
    /// Every offered tool's schema, built once (they go with every model request).
    specs: Vec<ToolSpec>,
}

fn outcome(result: Result<String, ToolError>) -> ToolOutcome {
    result.into()
}

impl Toolbox {
    pub fn new(workspace: Workspace, command: CommandOptions) -> Self {
        let index = Arc::new(IndexTools::new(workspace.root()));
        let mut specs = index_tool_specs();
        specs.extend(crate::file_tool_specs());
        specs.push(execute_command_spec());
        Toolbox {
            workspace,
            index,
            command,
            offers_index: true,
            specs,
        }
    }

    /// The same toolbox without the index tools: a model gets files and commands only.
    pub fn without_index(mut self) -> Self {
        self.offers_index = false;
        self.specs
            .retain(|s| IndexTool::from_name(&s.name).is_none());
        self
    }

    pub fn offers_index(&self) -> bool {
        self.offers_index
    }

    /// Sizes the index tools' answers for a model with this context window (tokens).
    pub fn fit_answers_to(&self, context_window_tokens: usize) {
        self.index.fit_answers_to(context_window_tokens);
    }

    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Why a call writes where a person must say yes (a protected path such as
    /// `.git/config`), or `None`. Commands are confined by the sandbox instead.
    pub fn protected_write(&self, name: &str, arguments: &str) -> Option<String> {
        if !crate::is_file_tool(name) || !crate::mutates(name) {
            return None;
        }
        let args = parse_arguments(arguments).ok()?;
        let path = self.workspace.resolve(args.get("path")?.as_str()?).ok()?;
        let relative = path.strip_prefix(self.workspace.root()).ok()?;
        let hooks = mcursor_sandbox::hooks_path(self.workspace.root());
        let why = mcursor_sandbox::protected_reason(relative, hooks.as_deref())?;
        Some(format!(
            "{} is a protected path: {why}",
            self.workspace.display(&path)
        ))
    }

    /// Every tool's schema, index tools first (the prompt asks the model to prefer them).
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.specs.clone()
    }

    /// Runs tool `name` on the model's raw `arguments`. `on_output` sees a command's output
    /// live; `cancel` resolving stops a running command.
    pub async fn call(
        &self,
        name: &str,
        arguments: &str,
        on_output: &mut (dyn FnMut(&[u8]) + Send),
        cancel: impl Future<Output = ()>,
    ) -> ToolOutcome {
        if let Some(tool) =
            IndexTool::from_name(name).filter(|t| t.for_agent() && self.offers_index)
        {
            let args = match parse_arguments(arguments) {
                Ok(args) => args,
                Err(e) => return outcome(Err(e)),
            };
            let index = self.index.clone();
            let joined = tokio::task::spawn_blocking(move || {
                index
                    .call(tool, args, &|_| {})
                    .map(|answer| answer.text)
                    .map_err(ToolError::from)
            })
            .await;
            return outcome(joined.unwrap_or_else(|e| Err(ToolError::Internal(e.to_string()))));
        }
        if name == "execute_command" {
            let args = match parse_arguments(arguments) {
                Ok(args) => args,
                Err(e) => return outcome(Err(e)),
            };
            let result =
                execute_command(&self.workspace, &args, &self.command, on_output, cancel).await;
            // A command may have changed any file: a walk and an update, which the next
            // index answer waits for (`after_change` only queues it).
            self.index.after_change(None);
            return outcome(result);
        }
        if crate::is_file_tool(name) {
            let workspace = self.workspace.clone();
            let index = self.index.clone();
            let (name, arguments) = (name.to_owned(), arguments.to_owned());
            let joined = tokio::task::spawn_blocking(move || {
                let outcome = crate::run_file_tool(&workspace, &name, &arguments);
                // Read-your-writes: the edited file's update is queued here, and the next
                // index answer waits for it (the model's turn in between overlaps it).
                if crate::mutates(&name) && !outcome.is_error {
                    let path = parse_arguments(&arguments)
                        .ok()
                        .and_then(|args| args.get("path")?.as_str().map(str::to_owned))
                        .and_then(|path| workspace.resolve(&path).ok());
                    index.after_change(path.map(|p| vec![p]));
                }
                outcome
            })
            .await;
            return joined.unwrap_or_else(|e| outcome(Err(ToolError::Internal(e.to_string()))));
        }
        outcome(Err(ToolError::UnknownTool {
            name: name.to_owned(),
            known: self
                .specs()
                .iter()
                .map(|s| s.name.clone())
                .collect::<Vec<_>>()
                .join(", "),
        }))
    }
}

/// The index tools the agent offers, as the model sees them.
pub(crate) fn index_tool_specs() -> Vec<ToolSpec> {
    IndexTool::ALL
        .into_iter()
        .filter(|t| t.for_agent())
        .map(|t| ToolSpec {
            name: t.name().into(),
            description: t.description().into(),
            parameters: t.agent_parameters(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_edit_is_seen_by_the_next_index_answer() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(
            dir.path().join("src/lib.rs"),
            "pub fn parse_config() {}\n\npub fn caller() { parse_config(); }\n",
        )
        .expect("write");
        let workspace = Workspace::new(dir.path()).expect("workspace");
        let toolbox = Toolbox::new(workspace, CommandOptions::default());
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("runtime");
        let call = |name: &str, args: &str| {
            runtime.block_on(toolbox.call(name, args, &mut |_| {}, std::future::pending()))
        };
        let found = call("find_symbol", r#"{"name": "parse_config"}"#);
        assert!(found.text.contains("src/lib.rs:1"), "{}", found.text);

        // A body edit shifts the definition down two lines: the next index answer, right
        // after it, sees it there.
        let edited = call(
            "edit_file",
            r#"{"path": "src/lib.rs", "old_text": "pub fn parse_config() {}", "new_text": "// moved\n// down\npub fn parse_config() {}"}"#,
        );
        assert!(!edited.is_error, "{}", edited.text);
        let found = call("find_symbol", r#"{"name": "parse_config"}"#);
        assert!(found.text.contains("src/lib.rs:3"), "{}", found.text);

        // A new file (a full update) with no index tool after it: indexed by the time the
        // session's tools are gone.
        let written = call(
            "write_file",
            r#"{"path": "src/more.rs", "content": "pub fn written_now() {}\n"}"#,
        );
        assert!(!written.is_error, "{}", written.text);
        drop(toolbox);
        let index = mcursor_index::Index::open(dir.path()).expect("open");
        assert!(
            !index
                .find(&mcursor_index::FindQuery::exact("written_now"))
                .is_empty()
        );
    }
}
