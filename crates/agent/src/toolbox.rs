//! All the tools of one agent session behind one call: file tools and index tools on
//! blocking threads, `execute_command` as a task. Whatever goes wrong comes back as a
//! [`ToolOutcome`] for the model, never as an error of the loop.

use std::future::Future;
use std::sync::Arc;

use crate::shell::{CommandOptions, execute_command, execute_command_spec};
use crate::{
    IndexTools, ToolError, ToolOutcome, ToolSpec, Workspace, index_tools, parse_arguments,
};

pub struct Toolbox {
    workspace: Workspace,
    index: Arc<IndexTools>,
    command: CommandOptions,
}

fn outcome(result: Result<String, ToolError>) -> ToolOutcome {
    result.into()
}

impl Toolbox {
    pub fn new(workspace: Workspace, command: CommandOptions) -> Self {
        let index = Arc::new(IndexTools::new(workspace.root().to_path_buf()));
        Toolbox {
            workspace,
            index,
            command,
        }
    }

    pub fn workspace(&self) -> &Workspace {
        &self.workspace
    }

    /// Every tool's schema, index tools first (the prompt asks the model to prefer them).
    pub fn specs(&self) -> Vec<ToolSpec> {
        let mut specs = index_tools::specs();
        specs.extend(crate::file_tool_specs());
        specs.push(execute_command_spec());
        specs
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
        if index_tools::is_index_tool(name) {
            let args = match parse_arguments(arguments) {
                Ok(args) => args,
                Err(e) => return outcome(Err(e)),
            };
            let index = self.index.clone();
            let name = name.to_owned();
            let joined = tokio::task::spawn_blocking(move || index.run(&name, &args)).await;
            return outcome(joined.unwrap_or_else(|e| Err(ToolError::Internal(e.to_string()))));
        }
        if name == "execute_command" {
            let args = match parse_arguments(arguments) {
                Ok(args) => args,
                Err(e) => return outcome(Err(e)),
            };
            return outcome(
                execute_command(&self.workspace, &args, &self.command, on_output, cancel).await,
            );
        }
        if crate::is_file_tool(name) {
            let workspace = self.workspace.clone();
            let (name, arguments) = (name.to_owned(), arguments.to_owned());
            let joined = tokio::task::spawn_blocking(move || {
                crate::run_file_tool(&workspace, &name, &arguments)
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
