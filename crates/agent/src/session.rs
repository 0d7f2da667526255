//! The agent loop: ask the model, run the tools it calls, give it their results, until it
//! answers without calling a tool (or the step limit, or Ctrl-C).
//!
//! Order and safety: tools run only on a finished model message (a retried request never
//! re-runs one); read-only calls that stand next to each other in a message run
//! concurrently, a mutating call (`write_file`, `edit_file`, `execute_command`) runs alone,
//! in order, after approval. Results go back in the order of the calls, each tagged with
//! its call's id.

use std::collections::HashSet;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcursor_llm::{ChatRequest, Client, Event, LlmError, Message, ToolCall, ToolSpec, Usage};
use serde_json::json;
use tokio::sync::watch;

use crate::text_calls::{self, ToolCallMode};
use crate::{MAX_CONTENT_ARGUMENTS, ToolOutcome, Toolbox, argument_limit, mutates};

/// Someone who answers approval requests (a terminal prompt).
pub type Person = Arc<dyn Fn(&ApprovalRequest) -> Decision + Send + Sync>;

/// How mutating tools are approved.
#[derive(Clone, Default)]
pub struct Approval {
    /// `--yes`: ordinary mutating calls run without asking.
    pub auto: bool,
    /// Who to ask, when there is a terminal; without one (and without `auto`) mutating
    /// calls are refused and the model is told why.
    pub person: Option<Person>,
    /// `--allow-protected-writes`: writes to protected paths (`.git/`, `.env`, ...) need
    /// no person either. Without it they are always asked, never covered by `auto` or
    /// "always this session".
    pub protected_writes: bool,
}

#[derive(Clone, Debug)]
pub struct ApprovalRequest {
    pub tool: String,
    /// The call's arguments as the model sent them.
    pub arguments: String,
    /// Why the call needs a person's explicit yes (a protected path), when it does:
    /// "always this session" is not offered then.
    pub protected: Option<String>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision {
    Yes,
    No,
    /// Yes, and do not ask again for this tool in this session.
    AlwaysThisSession,
}

#[derive(Clone)]
pub struct AgentOptions {
    pub max_steps: usize,
    pub approval: Approval,
    /// The model's context window, in tokens (estimated as 4 bytes of text each).
    pub context_window: usize,
    /// Compact when the conversation passes this fraction of the window.
    pub compact_at: f64,
    /// Messages at the end that compaction keeps verbatim (4: the last two tool steps),
    /// besides the question being worked on.
    pub keep_recent: usize,
    /// A tool result longer than this is cut, with a note saying how to get the rest.
    pub max_tool_result: usize,
    /// Whether the `task` tool (a sub-agent) is offered.
    pub subagents: bool,
    /// Where tool calls are taken from: native calls, calls written as text, or both.
    pub tool_calls: ToolCallMode,
}

impl Default for AgentOptions {
    fn default() -> Self {
        AgentOptions {
            max_steps: 30,
            approval: Approval::default(),
            context_window: 64_000,
            compact_at: 0.7,
            keep_recent: 4,
            max_tool_result: 24 * 1024,
            subagents: true,
            tool_calls: ToolCallMode::default(),
        }
    }
}

/// What the loop reports while it works (the CLI renders these, or prints them as JSON).
#[derive(Clone, Debug)]
pub enum AgentEvent {
    /// A model request begins (step 1, 2, …).
    Step { step: usize },
    /// Streaming from the model (text, tool-call pieces, retries).
    Model(Event),
    ToolStarted {
        id: String,
        name: String,
        arguments: String,
    },
    /// Live output of a running command.
    ToolOutput { id: String, bytes: Vec<u8> },
    ToolFinished {
        id: String,
        name: String,
        /// The result's first line.
        summary: String,
        /// The whole result as the model gets it (an edit's diff, say).
        output: String,
        is_error: bool,
        duration: Duration,
    },
    /// The reply had no native tool call, but its text held these (by name): they run
    /// as tool calls (see [`ToolCallMode`]).
    TextToolCalls { names: Vec<String> },
    /// Older tool results were summarized.
    Compacted { before: usize, after: usize },
    /// A sub-agent's events, for display (its messages stay out of this conversation).
    Subagent(Box<AgentEvent>),
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Stop {
    Answered,
    MaxSteps,
    Cancelled,
}

#[derive(Clone, Debug)]
pub struct TurnOutcome {
    pub answer: String,
    pub steps: usize,
    pub stop: Stop,
    /// Tokens the turn's requests cost, as the server reported them (zero from a server
    /// that reports none).
    pub usage: Usage,
}

/// Tool calls of one model message that run; the rest are dropped and the model told.
pub const MAX_CALLS_PER_MESSAGE: usize = 24;
/// Sub-agents (`task` calls) running at once; the others wait their turn.
pub const MAX_SUBAGENTS_AT_ONCE: usize = 4;

/// The system prompt: sent with every request, so kept short (a small model on a CPU
/// reads it every turn; `benches/README.md` has its size in tokens). `index`: whether the
/// index tools are offered.
fn system_prompt(index: bool) -> String {
    let lookups = if index {
        "- To find where something is defined, used or called, call find_symbol, find_references or callers first: they answer from a \
         code index and are exact. Use search_code for text; do not grep for identifiers.\n"
    } else {
        "- To find where something is defined or used, search with execute_command (grep -rn) and read the lines.\n"
    };
    format!(
        "You are mcursor, a coding agent working in a repository on the user's machine. \
         Answer the user's request by using the tools, then reply with a concise answer that cites paths and line numbers.\n\
         Rules:\n\
         {lookups}\
         - Read only the lines you need. Paths are relative to the repository root.\n\
         - Change files with edit_file or write_file.\n\
         - A refused tool call was not allowed: do not retry it; explain what you would have done."
    )
}

const SUMMARY_PROMPT: &str = "Summarize the earlier part of a coding agent's conversation for the agent itself. \
Keep every fact that may matter later: file paths with line numbers, symbol names, what was read, changed or run and \
with what result, and open questions. Be brief; no preamble.";

fn task_spec() -> ToolSpec {
    ToolSpec {
        name: "task".into(),
        description: "Ask a read-only sub-agent a self-contained question.".into(),
        parameters: json!({
            "type": "object",
            "properties": {"prompt": {"type": "string"}},
            "required": ["prompt"]
        }),
    }
}

/// Errors that end a turn (tool failures never do).
#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error(transparent)]
    Model(#[from] LlmError),
}

/// Estimated tokens of a conversation: 4 bytes of JSON text per token.
pub fn estimate_tokens(messages: &[Message]) -> usize {
    messages
        .iter()
        .map(|m| serde_json::to_string(m).map_or(0, |s| s.len()))
        .sum::<usize>()
        / 4
}

/// A message's calls as they may run: the first [`MAX_CALLS_PER_MESSAGE`] (the others are
/// dropped from the conversation, and their number returned), arguments within
/// [`argument_limit`]. Returns the calls to keep (oversized arguments replaced by a
/// note), by position why a kept call must not run, and how many were dropped.
fn bounded_calls(calls: &[ToolCall]) -> (Vec<ToolCall>, Vec<Option<String>>, usize) {
    let dropped = calls.len().saturating_sub(MAX_CALLS_PER_MESSAGE);
    let (kept, refused) = calls
        .iter()
        .take(MAX_CALLS_PER_MESSAGE)
        .map(|call| {
            let size = call.function.arguments.len();
            let limit = argument_limit(&call.function.name);
            if size <= limit {
                return (call.clone(), None);
            }
            let mut kept = call.clone();
            kept.function.arguments =
                json!({ "omitted": format!("{size} bytes of arguments, over the limit") })
                    .to_string();
            let hint = if limit == MAX_CONTENT_ARGUMENTS {
                "write a large file in parts: write_file, then edit_file to append"
            } else {
                "send something shorter"
            };
            let why = format!(
                "the arguments are {size} bytes; {} takes at most {limit} ({hint})",
                call.function.name
            );
            (kept, Some(why))
        })
        .unzip();
    (kept, refused, dropped)
}

fn capped(outcome: ToolOutcome, max: usize) -> ToolOutcome {
    ToolOutcome {
        text: cap(outcome.text, max),
        is_error: outcome.is_error,
    }
}

fn cap(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let mut cut = max;
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    format!(
        "{}\n… {} more bytes left out; ask for a narrower range (start_line/end_line, a path glob, a filter)",
        &text[..cut],
        text.len() - cut
    )
}

fn one_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let mut line: String = first.chars().take(120).collect();
    if line.len() < first.len() || text.lines().nth(1).is_some() {
        line.push('…');
    }
    line
}

/// Model requests a turn may still make, shared with its sub-agents: a `task` spends
/// the same `--max-steps` as its parent.
#[derive(Clone)]
struct StepBudget(Arc<AtomicUsize>);

impl StepBudget {
    fn new(steps: usize) -> Self {
        StepBudget(Arc::new(AtomicUsize::new(steps)))
    }

    /// Takes one step; false when none is left.
    fn take(&self) -> bool {
        self.0
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                left.checked_sub(1)
            })
            .is_ok()
    }
}

/// A conversation with the model; one `ask` is one turn.
pub struct Session {
    client: Client,
    toolbox: Arc<Toolbox>,
    options: AgentOptions,
    messages: Vec<Message>,
    allowed_for_session: HashSet<String>,
    read_only: bool,
    /// The running turn's step budget (a sub-agent gets its parent's).
    budget: Option<StepBudget>,
    subagents: Arc<tokio::sync::Semaphore>,
}

impl Session {
    pub fn new(client: Client, toolbox: Arc<Toolbox>, options: AgentOptions) -> Session {
        toolbox.fit_answers_to(options.context_window);
        let system = system_prompt(toolbox.offers_index());
        Session {
            client,
            toolbox,
            options,
            messages: vec![Message::System { content: system }],
            allowed_for_session: HashSet::new(),
            read_only: false,
            budget: None,
            subagents: Arc::new(tokio::sync::Semaphore::new(MAX_SUBAGENTS_AT_ONCE)),
        }
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Forgets the conversation (keeps approvals given for the session).
    pub fn clear(&mut self) {
        self.messages.truncate(1);
    }

    fn tools(&self) -> Vec<ToolSpec> {
        let mut specs: Vec<ToolSpec> = self
            .toolbox
            .specs()
            .into_iter()
            .filter(|s| !self.read_only || !mutates(&s.name))
            .collect();
        if self.options.subagents && !self.read_only {
            specs.push(task_spec());
        }
        specs
    }

    /// One turn: the user's `question`, then model and tools until an answer. `cancel`
    /// turning true (Ctrl-C) ends the turn; the session stays usable.
    pub async fn ask(
        &mut self,
        question: &str,
        events: &mut (dyn FnMut(AgentEvent) + Send),
        cancel: watch::Receiver<bool>,
    ) -> Result<TurnOutcome, AgentError> {
        self.messages.push(Message::User {
            content: question.to_owned(),
        });
        // A sub-agent arrives with its parent's budget; a top-level turn starts one.
        let budget = self
            .budget
            .get_or_insert_with(|| StepBudget::new(self.options.max_steps))
            .clone();
        let outcome = self.turn(events, &cancel, &budget).await;
        if !self.read_only {
            self.budget = None;
        }
        outcome
    }

    async fn turn(
        &mut self,
        events: &mut (dyn FnMut(AgentEvent) + Send),
        cancel: &watch::Receiver<bool>,
        budget: &StepBudget,
    ) -> Result<TurnOutcome, AgentError> {
        let mut steps = 0;
        let mut usage = Usage::default();
        loop {
            if *cancel.borrow() {
                return Ok(self.stopped(Stop::Cancelled, steps, usage));
            }
            if steps >= self.options.max_steps || !budget.take() {
                return Ok(self.stopped(Stop::MaxSteps, steps, usage));
            }
            self.compact_if_needed(events).await?;
            steps += 1;
            events(AgentEvent::Step { step: steps });
            let request = ChatRequest {
                messages: self.messages.clone(),
                tools: self.tools(),
                temperature: None,
            };
            let mut cancelled = cancel.clone();
            let mut forward = |e| events(AgentEvent::Model(e));
            let completion = tokio::select! {
                result = self.client.complete(&request, &mut forward) => Some(result?),
                _ = cancelled.wait_for(|c| *c) => None,
            };
            let Some(completion) = completion else {
                return Ok(self.stopped(Stop::Cancelled, steps, usage));
            };
            if let Some(reported) = completion.usage {
                usage.prompt_tokens += reported.prompt_tokens;
                usage.completion_tokens += reported.completion_tokens;
                usage.total_tokens += reported.total_tokens;
            }
            let mode = self.options.tool_calls;
            let mut requested = if mode.takes_native() {
                completion.tool_calls.clone()
            } else {
                Vec::new()
            };
            let mut content = completion.content.clone();
            if mode.reads_text(requested.len())
                && let Some(text) = &completion.content
            {
                let written = text_calls::extract(text, &request.tools, steps);
                if !written.is_empty() {
                    events(AgentEvent::TextToolCalls {
                        names: written.iter().map(|c| c.function.name.clone()).collect(),
                    });
                    // The calls are what the text said: kept as calls, not twice.
                    content = None;
                    requested.extend(written);
                }
            }
            if requested.is_empty() {
                self.messages.push(Message::Assistant {
                    content: completion.content.clone(),
                    tool_calls: Vec::new(),
                });
                return Ok(TurnOutcome {
                    answer: completion.content.unwrap_or_default(),
                    steps,
                    stop: Stop::Answered,
                    usage,
                });
            }
            let (calls, refused, dropped) = bounded_calls(&requested);
            // What is kept in the conversation (and sent again with every request) is the
            // bounded form: no call past the limit, no oversized argument.
            self.messages.push(Message::Assistant {
                content,
                tool_calls: calls.clone(),
            });
            self.run_calls(&calls, &refused, events, cancel).await;
            if dropped > 0
                && let Some(Message::Tool { content, .. }) = self.messages.last_mut()
            {
                content.push_str(&format!(
                    "\nnote: the message asked for {} tool calls; only the first {MAX_CALLS_PER_MESSAGE} \
                     ran and the other {dropped} were dropped: ask again for what you still need",
                    completion.tool_calls.len()
                ));
            }
        }
    }

    fn stopped(&mut self, stop: Stop, steps: usize, usage: Usage) -> TurnOutcome {
        let answer = match stop {
            Stop::MaxSteps => format!(
                "Stopped after {steps} steps without a final answer (the limit, which counts sub-agents' steps too; raise it with --max-steps)."
            ),
            Stop::Cancelled => "Interrupted.".to_owned(),
            Stop::Answered => String::new(),
        };
        // The conversation must stay valid: every tool call needs a result, and the
        // model should know the turn ended.
        self.messages.push(Message::Assistant {
            content: Some(answer.clone()),
            tool_calls: Vec::new(),
        });
        TurnOutcome {
            answer,
            steps,
            stop,
            usage,
        }
    }

    /// Runs a message's tool calls: neighbouring read-only calls together, others alone.
    /// `refused` holds the answer of each call that must not run (too many calls, too
    /// large arguments), by position.
    async fn run_calls(
        &mut self,
        calls: &[ToolCall],
        refused: &[Option<String>],
        events: &mut (dyn FnMut(AgentEvent) + Send),
        cancel: &watch::Receiver<bool>,
    ) {
        // All results of one message share half of the window.
        let share = (self.options.context_window * 4 / 2 / calls.len().max(1))
            .clamp(1024, self.options.max_tool_result);
        let mut index = 0;
        while index < calls.len() {
            let call = &calls[index];
            if let Some(why) = &refused[index] {
                events(AgentEvent::ToolStarted {
                    id: call.id.clone(),
                    name: call.function.name.clone(),
                    arguments: call.function.arguments.clone(),
                });
                let outcome = ToolOutcome {
                    text: format!("error: not run: {why}"),
                    is_error: true,
                };
                events(AgentEvent::ToolFinished {
                    id: call.id.clone(),
                    name: call.function.name.clone(),
                    summary: one_line(&outcome.text),
                    output: outcome.text.clone(),
                    is_error: true,
                    duration: Duration::ZERO,
                });
                self.push_result(call, outcome);
                index += 1;
                continue;
            }
            if *cancel.borrow() {
                // Ctrl-C: the rest does not run, but every call still gets its result.
                for call in &calls[index..] {
                    self.push_result(
                        call,
                        ToolOutcome {
                            text: "not run: the user interrupted the turn".into(),
                            is_error: true,
                        },
                    );
                }
                return;
            }
            if mutates(&call.function.name) {
                let outcome = self.run_mutating(call, share, events, cancel).await;
                self.push_result(call, outcome);
                index += 1;
                continue;
            }
            let end = calls[index..]
                .iter()
                .zip(&refused[index..])
                .position(|(c, r)| mutates(&c.function.name) || r.is_some())
                .map_or(calls.len(), |p| index + p);
            let group = &calls[index..end];
            for call in group {
                events(AgentEvent::ToolStarted {
                    id: call.id.clone(),
                    name: call.function.name.clone(),
                    arguments: call.function.arguments.clone(),
                });
            }
            let started = Instant::now();
            let mut cancelled = cancel.clone();
            // Ctrl-C answers the group at once; the reads themselves are bounded, so what
            // still runs in the background ends soon.
            let outcomes = tokio::select! {
                outcomes = futures_util::future::join_all(
                    group.iter().map(|call| self.run_read_only(call, cancel)),
                ) => outcomes,
                _ = cancelled.wait_for(|c| *c) => group
                    .iter()
                    .map(|_| ToolOutcome {
                        text: "not finished: the user interrupted the turn".into(),
                        is_error: true,
                    })
                    .collect(),
            };
            for (call, outcome) in group.iter().zip(outcomes) {
                let outcome = capped(outcome, share);
                events(AgentEvent::ToolFinished {
                    id: call.id.clone(),
                    name: call.function.name.clone(),
                    summary: one_line(&outcome.text),
                    output: outcome.text.clone(),
                    is_error: outcome.is_error,
                    duration: started.elapsed(),
                });
                self.push_result(call, outcome);
            }
            index = end;
        }
    }

    async fn run_read_only(&self, call: &ToolCall, cancel: &watch::Receiver<bool>) -> ToolOutcome {
        if call.function.name == "task" {
            if self.read_only || !self.options.subagents {
                // Not offered here; a model that calls it anyway must not recurse.
                return ToolOutcome {
                    text: "error: the task tool is not available here; answer with the other tools"
                        .into(),
                    is_error: true,
                };
            }
            return self.run_subagent(call, cancel).await;
        }
        self.toolbox
            .call(
                &call.function.name,
                &call.function.arguments,
                &mut |_| {},
                std::future::pending(),
            )
            .await
    }

    async fn run_mutating(
        &mut self,
        call: &ToolCall,
        share: usize,
        events: &mut (dyn FnMut(AgentEvent) + Send),
        cancel: &watch::Receiver<bool>,
    ) -> ToolOutcome {
        let name = call.function.name.clone();
        events(AgentEvent::ToolStarted {
            id: call.id.clone(),
            name: name.clone(),
            arguments: call.function.arguments.clone(),
        });
        let started = Instant::now();
        let outcome = match self.approve(call) {
            Err(refusal) => refusal,
            Ok(()) => {
                let id = call.id.clone();
                let mut cancelled = cancel.clone();
                self.toolbox
                    .call(
                        &name,
                        &call.function.arguments,
                        &mut |bytes| {
                            events(AgentEvent::ToolOutput {
                                id: id.clone(),
                                bytes: bytes.to_vec(),
                            })
                        },
                        async move {
                            let _ = cancelled.wait_for(|c| *c).await;
                        },
                    )
                    .await
            }
        };
        let outcome = capped(outcome, share);
        events(AgentEvent::ToolFinished {
            id: call.id.clone(),
            name,
            summary: one_line(&outcome.text),
            output: outcome.text.clone(),
            is_error: outcome.is_error,
            duration: started.elapsed(),
        });
        outcome
    }

    fn approve(&mut self, call: &ToolCall) -> Result<(), ToolOutcome> {
        let name = &call.function.name;
        if self.read_only {
            return Err(ToolOutcome {
                text: format!(
                    "refused: {name} is not available to a sub-agent; report what you would change instead"
                ),
                is_error: true,
            });
        }
        let refused = |why: &str| ToolOutcome {
            text: format!(
                "refused: {why}; do not retry it, tell the user what you would have done"
            ),
            is_error: true,
        };
        let approval = &self.options.approval;
        let protected = self.toolbox.protected_write(name, &call.function.arguments);
        if let Some(why) = &protected {
            if approval.protected_writes {
                return Ok(());
            }
            let Some(person) = &approval.person else {
                return Err(refused(&format!(
                    "{why}. Such a write needs a person's yes at the terminal (or mcursor run \
                     with --allow-protected-writes); --yes does not cover it"
                )));
            };
            return match person(&ApprovalRequest {
                tool: name.clone(),
                arguments: call.function.arguments.clone(),
                protected: Some(why.clone()),
            }) {
                Decision::Yes | Decision::AlwaysThisSession => Ok(()),
                Decision::No => Err(refused(&format!("the user declined this {name} call"))),
            };
        }
        if approval.auto || self.allowed_for_session.contains(name) {
            return Ok(());
        }
        let Some(person) = &approval.person else {
            return Err(refused(&format!(
                "{name} needs approval, and mcursor runs without a terminal and without --yes"
            )));
        };
        match person(&ApprovalRequest {
            tool: name.clone(),
            arguments: call.function.arguments.clone(),
            protected: None,
        }) {
            Decision::Yes => Ok(()),
            Decision::AlwaysThisSession => {
                self.allowed_for_session.insert(name.clone());
                Ok(())
            }
            Decision::No => Err(refused(&format!("the user declined this {name} call"))),
        }
    }

    fn push_result(&mut self, call: &ToolCall, outcome: ToolOutcome) {
        self.messages.push(Message::Tool {
            tool_call_id: call.id.clone(),
            content: outcome.text,
        });
    }

    /// A fresh read-only session answers the task's prompt; only its answer comes back.
    /// It spends the parent's step budget, and at most [`MAX_SUBAGENTS_AT_ONCE`] run at
    /// once.
    async fn run_subagent(&self, call: &ToolCall, cancel: &watch::Receiver<bool>) -> ToolOutcome {
        let prompt = serde_json::from_str::<serde_json::Value>(&call.function.arguments)
            .ok()
            .and_then(|v| v.get("prompt").and_then(|p| p.as_str()).map(str::to_owned));
        let Some(prompt) = prompt.filter(|p| !p.trim().is_empty()) else {
            return ToolOutcome {
                text: "error: bad arguments: `prompt` (a string) is required".into(),
                is_error: true,
            };
        };
        let mut sub = Session::new(
            self.client.clone(),
            self.toolbox.clone(),
            AgentOptions {
                subagents: false,
                max_steps: self.options.max_steps.min(15),
                ..self.options.clone()
            },
        );
        sub.read_only = true;
        sub.budget = self.budget.clone();
        let Ok(_slot) = self.subagents.acquire().await else {
            return ToolOutcome {
                text: "error: the sub-agent could not start".into(),
                is_error: true,
            };
        };
        match Box::pin(sub.ask(&prompt, &mut |_| {}, cancel.clone())).await {
            Ok(outcome) => ToolOutcome {
                text: outcome.answer,
                is_error: outcome.stop != Stop::Answered,
            },
            Err(e) => ToolOutcome {
                text: format!("error: the sub-agent failed: {e}"),
                is_error: true,
            },
        }
    }

    /// Summarizes older messages when the conversation passes the soft limit.
    async fn compact_if_needed(
        &mut self,
        events: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Result<(), AgentError> {
        let limit = (self.options.context_window as f64 * self.options.compact_at) as usize;
        if estimate_tokens(&self.messages) <= limit {
            return Ok(());
        }
        self.compact(events).await
    }

    /// Replaces everything between the system prompt and the last few messages with a
    /// summary written by the model. The cut never separates tool results from the call.
    pub async fn compact(
        &mut self,
        events: &mut (dyn FnMut(AgentEvent) + Send),
    ) -> Result<(), AgentError> {
        let before = estimate_tokens(&self.messages);
        let mut cut = self
            .messages
            .len()
            .saturating_sub(self.options.keep_recent)
            .max(1);
        while cut > 1 && matches!(self.messages.get(cut), Some(Message::Tool { .. })) {
            cut -= 1;
        }
        // The question being worked on stays verbatim, after the summary.
        let question = self
            .messages
            .iter()
            .rposition(|m| matches!(m, Message::User { .. }))
            .filter(|q| (1..cut).contains(q));
        let older: Vec<Message> = self.messages[1..cut.max(1)]
            .iter()
            .enumerate()
            .filter(|(i, _)| Some(i + 1) != question)
            .map(|(_, m)| m.clone())
            .collect();
        if older.is_empty() {
            return Ok(());
        }
        let old = serde_json::to_string(&older).unwrap_or_default();
        let request = ChatRequest {
            messages: vec![
                Message::System {
                    content: SUMMARY_PROMPT.to_owned(),
                },
                Message::User { content: old },
            ],
            tools: Vec::new(),
            temperature: None,
        };
        // The summary's own text is not shown as if it were an answer; retries are.
        let summary = self
            .client
            .complete(&request, &mut |e| {
                if matches!(e, Event::Retrying { .. }) {
                    events(AgentEvent::Model(e));
                }
            })
            .await?;
        let summary = Message::User {
            content: format!(
                "[summary of earlier work in this session]\n{}",
                summary.content.unwrap_or_default()
            ),
        };
        let mut replacement = vec![summary];
        if let Some(q) = question {
            replacement.push(self.messages[q].clone());
        }
        self.messages.splice(1..cut, replacement);
        events(AgentEvent::Compacted {
            before,
            after: estimate_tokens(&self.messages),
        });
        Ok(())
    }
}
