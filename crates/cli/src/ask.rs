//! `mcursor ask`: the agent on a terminal or in a script. The assistant's text streams to
//! stdout; steps, tool calls, command output and notes go to stderr (`--json`: one JSON
//! event per line on stdout instead).

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;
use std::sync::Arc;

use anyhow::{Context, Result};
use mcursor_agent::{
    AgentEvent, AgentOptions, Approval, ApprovalRequest, CommandOptions, Decision, Sandbox,
    Session, Stop, ToolCallMode, Toolbox, TurnOutcome, Workspace,
};
use mcursor_llm::{Client, Event, ModelConfig, Settings};
use mcursor_sandbox::Policy;
use serde_json::json;
use tokio::sync::watch;

use crate::render;

#[derive(clap::Args)]
pub struct AskArgs {
    /// The request. Without one: an interactive session (/exit, /clear, /compact).
    question: Vec<String>,
    #[command(flatten)]
    pub(crate) output: crate::OutputArgs,
    /// Allow write_file, edit_file and execute_command without asking (writes to
    /// protected paths such as .git/ and .env are still asked).
    #[arg(long)]
    yes: bool,
    /// Allow writes to protected paths (.git/, .mcursor/, .mcp.json, .cursor/, .vscode/,
    /// .env*) without asking; only with a terminal otherwise.
    #[arg(long)]
    allow_protected_writes: bool,
    /// OpenAI-compatible endpoint, e.g. https://api.deepseek.com/v1 [env: MCURSOR_BASE_URL].
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// Model name [env: MCURSOR_MODEL].
    #[arg(long)]
    model: Option<String>,
    /// openai, deepseek, ollama or llamacpp: their endpoint, a default model and where
    /// tool calls come from [env: MCURSOR_PRESET].
    #[arg(long)]
    preset: Option<String>,
    /// Model requests per question at most [default: 30].
    #[arg(long)]
    max_steps: Option<usize>,
    /// The model's context window in tokens; older tool results are summarized at 70%
    /// [default: what the server says (llama.cpp, Ollama), else the preset's, else 16000].
    #[arg(long)]
    context_window: Option<usize>,
    /// Seconds to wait for the first piece of a reply (a slow local model reads the whole
    /// prompt first) [default: 600].
    #[arg(long, value_name = "SECONDS")]
    first_byte_timeout: Option<u64>,
    /// Seconds a reply may stall once it has begun [default: 120].
    #[arg(long, value_name = "SECONDS")]
    idle_timeout: Option<u64>,
    /// Seconds a command may run before it and its children are killed [default: 120].
    #[arg(long)]
    command_timeout: Option<u64>,
    /// `on`: commands run in the OS sandbox (write only the workspace, no network, no
    /// credentials) and are refused where it cannot be enforced. `off`: unconfined, and
    /// every result says so [default: on].
    #[arg(long, value_enum)]
    sandbox: Option<SandboxSwitch>,
    /// Let sandboxed commands open network sockets (package installs, downloads).
    #[arg(long)]
    allow_network: bool,
    /// Another directory sandboxed commands may write (a build cache, say); repeatable.
    #[arg(long, value_name = "DIR")]
    sandbox_write: Vec<std::path::PathBuf>,
    /// Where tool calls come from: `native` (the server's tool calls), `text` (calls the
    /// model writes in its reply: `<tool_call>{...}`, a fenced JSON block), `auto`
    /// (native, else text) [env: MCURSOR_TOOL_CALLS] [default: the preset's, else auto].
    #[arg(long, value_name = "MODE", value_parser = parse_tool_calls)]
    tool_calls: Option<ToolCallMode>,
    /// Offer the model no index tools: files and commands only, as a grep-driven agent
    /// has (to compare the two; `benches/agent/`).
    #[arg(long)]
    no_index: bool,
}

/// The flag, else `MCURSOR_TOOL_CALLS`, else the config file, else the preset's, else
/// `auto`.
fn tool_call_mode(args: &AskArgs, defaults: &crate::config::AskDefaults) -> Result<ToolCallMode> {
    if let Some(mode) = args.tool_calls {
        return Ok(mode);
    }
    let from_env = std::env::var("MCURSOR_TOOL_CALLS")
        .ok()
        .filter(|v| !v.trim().is_empty());
    if let Some(word) = from_env.as_deref().or(defaults.tool_calls.as_deref()) {
        return ToolCallMode::parse(word)
            .with_context(|| format!("tool_calls `{word}`: one of native, text, auto"));
    }
    Ok(preset_name(args, defaults)
        .as_deref()
        .and_then(mcursor_llm::Preset::named)
        .and_then(|p| ToolCallMode::parse(p.tool_calls))
        .unwrap_or_default())
}

/// The preset chosen by flag, environment or config file, if any.
fn preset_name(args: &AskArgs, defaults: &crate::config::AskDefaults) -> Option<String> {
    args.preset
        .clone()
        .or_else(|| {
            std::env::var("MCURSOR_PRESET")
                .ok()
                .filter(|p| !p.trim().is_empty())
        })
        .or_else(|| defaults.preset.clone())
}

/// The context window assumed when neither the user, the server nor a preset says.
const DEFAULT_CONTEXT_WINDOW: usize = 16_000;

fn parse_tool_calls(word: &str) -> Result<ToolCallMode, String> {
    ToolCallMode::parse(word).ok_or_else(|| "one of: native, text, auto".to_owned())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SandboxSwitch {
    On,
    Off,
}

/// The key arguments of a call, for a one-line header.
fn key_arguments(arguments: &str) -> String {
    let Ok(serde_json::Value::Object(map)) = serde_json::from_str::<serde_json::Value>(arguments)
    else {
        return String::new();
    };
    [
        "name",
        "target",
        "query",
        "path",
        "command",
        "working_directory",
        "start_line",
        "end_line",
        "prompt",
    ]
    .iter()
    .filter_map(|k| {
        let value = map.get(*k)?;
        let text = value
            .as_str()
            .map_or_else(|| value.to_string(), str::to_owned);
        let text = render::visible(&text).replace('\n', "\\n");
        let total = text.chars().count();
        let mut shown: String = text.chars().take(80).collect();
        if total > 80 {
            shown.push_str(&format!("…(+{} chars)", total - 80));
        }
        Some(format!("{k}={shown}"))
    })
    .collect::<Vec<_>>()
    .join(" ")
}

/// The decoded part of a string field of JSON that is still arriving: what the model has
/// written so far of `write_file`'s `content`.
fn partial_string_field(json: &str, field: &str) -> String {
    let key = format!("\"{field}\"");
    let Some(at) = json.find(&key) else {
        return String::new();
    };
    let rest = json[at + key.len()..].trim_start();
    let Some(rest) = rest.strip_prefix(':') else {
        return String::new();
    };
    let Some(rest) = rest.trim_start().strip_prefix('"') else {
        return String::new();
    };
    let mut out = String::new();
    let mut chars = rest.chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => break,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some('r') => out.push('\r'),
                Some('u') => {
                    let hex: String = chars.by_ref().take(4).collect();
                    match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                        Some(c) if hex.len() == 4 => out.push(c),
                        _ => break,
                    }
                }
                Some(other) => out.push(other),
                None => break,
            },
            other => out.push(other),
        }
    }
    out
}

/// How much of a `write_file`'s arguments is previewed while the model writes them;
/// the approval prompt shows the rest.
const PREVIEW_LIMIT: usize = 16 * 1024;

/// A tool call whose arguments are arriving.
#[derive(Clone, Default)]
struct Streaming {
    name: String,
    /// The arguments so far (kept only for a `write_file` preview, up to the limit).
    json: String,
    /// Bytes of `content` already shown.
    shown: usize,
    /// The preview reached its limit and said so.
    cut: bool,
}

/// Renders events for people: text on stdout, the rest on stderr.
struct Terminal {
    /// The calls streaming in the current step, by index.
    calls: Vec<Streaming>,
    /// A preview line is open on stderr.
    preview_open: bool,
    text_open: bool,
    /// A "waiting for the model" line is drawn on stderr.
    waiting_shown: bool,
    output: Utf8Stream,
}

/// Bytes arriving in pieces, decoded as UTF-8 without splitting a character in two.
#[derive(Default)]
struct Utf8Stream {
    pending: Vec<u8>,
}

impl Utf8Stream {
    fn decode(&mut self, bytes: &[u8]) -> String {
        self.pending.extend_from_slice(bytes);
        let complete = match std::str::from_utf8(&self.pending) {
            Ok(_) => self.pending.len(),
            // An incomplete character at the end waits for the next piece.
            Err(e) if e.error_len().is_none() => e.valid_up_to(),
            Err(_) => self.pending.len(),
        };
        let text = String::from_utf8_lossy(&self.pending[..complete]).into_owned();
        self.pending.drain(..complete);
        text
    }
}

impl Terminal {
    fn new() -> Self {
        Terminal {
            calls: Vec::new(),
            preview_open: false,
            text_open: false,
            waiting_shown: false,
            output: Utf8Stream::default(),
        }
    }

    /// Clears the "waiting for the model" line once anything else is shown.
    fn end_waiting(&mut self) {
        if self.waiting_shown {
            let _ = write!(anstream::stderr(), "\r\x1b[2K");
            self.waiting_shown = false;
        }
    }

    /// Ends a `write_file` preview's last line on stderr.
    fn end_preview(&mut self) {
        if self.preview_open {
            let _ = writeln!(anstream::stderr());
            self.preview_open = false;
        }
    }

    fn end_text(&mut self) {
        if self.text_open {
            println!();
            self.text_open = false;
        }
    }

    fn show(&mut self, event: AgentEvent) {
        let mut err = anstream::stderr();
        if !matches!(event, AgentEvent::Model(Event::Waiting { .. })) {
            self.end_waiting();
        }
        match event {
            AgentEvent::Model(Event::Waiting { elapsed }) => {
                // One line, redrawn in place, and only for a person watching.
                if std::io::stderr().is_terminal() {
                    let _ = write!(
                        err,
                        "\r{}waiting for the model ({} s){}",
                        render::DIM.render(),
                        elapsed.as_secs(),
                        render::DIM.render_reset()
                    );
                    self.waiting_shown = true;
                }
            }
            AgentEvent::Step { step } => {
                self.calls.clear();
                self.preview_open = false;
                if step > 1 {
                    self.end_text();
                    let _ = writeln!(
                        err,
                        "{}── step {step}{}",
                        render::DIM.render(),
                        render::DIM.render_reset()
                    );
                }
            }
            AgentEvent::Model(Event::TextDelta(text)) => {
                print!("{}", render::terminal_safe(&text));
                let _ = std::io::stdout().flush();
                self.text_open = true;
            }
            AgentEvent::Model(Event::ToolCallStart { index, name, .. }) => {
                self.end_text();
                if self.calls.len() <= index {
                    self.calls.resize(index + 1, Streaming::default());
                }
                self.calls[index].name = name;
            }
            AgentEvent::Model(Event::ToolCallArguments { index, delta }) => {
                let Some(call) = self.calls.get_mut(index) else {
                    return;
                };
                if call.name != "write_file" || call.cut {
                    return;
                }
                // Decoding re-reads the arguments so far: bounded by the limit.
                call.json.push_str(&delta);
                let content = partial_string_field(&call.json, "content");
                if let Some(new) = content.get(call.shown..).filter(|n| !n.is_empty()) {
                    let _ = write!(
                        err,
                        "{}{}{}",
                        render::DIM.render(),
                        render::terminal_safe(new),
                        render::DIM.render_reset()
                    );
                    call.shown = content.len();
                    self.preview_open = true;
                }
                if call.json.len() > PREVIEW_LIMIT {
                    call.cut = true;
                    call.json = String::new();
                    let _ = write!(
                        err,
                        "{}\n… (preview cut at {} KiB){}",
                        render::DIM.render(),
                        PREVIEW_LIMIT / 1024,
                        render::DIM.render_reset()
                    );
                }
            }
            AgentEvent::Model(Event::Retrying {
                attempt,
                delay,
                reason,
            }) => {
                self.end_text();
                // The next attempt streams its tool calls from the start.
                self.calls.clear();
                self.end_preview();
                let _ = writeln!(
                    err,
                    "{}retry {attempt} in {:.1}s ({}); anything shown since the last step is discarded{}",
                    render::WARN.render(),
                    delay.as_secs_f64(),
                    render::terminal_safe(&reason),
                    render::WARN.render_reset()
                );
            }
            AgentEvent::ToolStarted {
                name, arguments, ..
            } => {
                self.end_text();
                self.end_preview();
                let _ = writeln!(
                    err,
                    "{}▶ {name}{} {}",
                    render::HEADER.render(),
                    render::HEADER.render_reset(),
                    key_arguments(&arguments)
                );
            }
            AgentEvent::ToolOutput { bytes, .. } => {
                let text = self.output.decode(&bytes);
                let _ = err.write_all(render::terminal_safe(&text).as_bytes());
            }
            AgentEvent::ToolFinished {
                name,
                summary,
                output,
                is_error,
                duration,
                ..
            } => {
                let (mark, style) = if is_error {
                    ("✗", render::WARN)
                } else {
                    ("✓", render::DIM)
                };
                let _ = writeln!(
                    err,
                    "  {}{mark} {} ({} bytes, {} ms){}",
                    style.render(),
                    render::terminal_safe(&summary),
                    output.len(),
                    duration.as_millis(),
                    style.render_reset()
                );
                if name == "edit_file" && !is_error {
                    // The diff, after the summary line.
                    for line in output.lines().skip(1) {
                        let style = match line.chars().next() {
                            Some('+') => render::ADDED,
                            Some('-') => render::REMOVED,
                            _ => render::DIM,
                        };
                        let _ = writeln!(
                            err,
                            "    {}{}{}",
                            style.render(),
                            render::terminal_safe(line),
                            style.render_reset()
                        );
                    }
                }
            }
            AgentEvent::Compacted { before, after } => {
                let _ = writeln!(
                    err,
                    "{}context compacted: about {before} → {after} tokens{}",
                    render::DIM.render(),
                    render::DIM.render_reset()
                );
            }
            AgentEvent::TextToolCalls { names } => {
                self.end_text();
                let _ = writeln!(
                    err,
                    "{}(the model wrote {} as text: run as tool calls){}",
                    render::DIM.render(),
                    names.join(", "),
                    render::DIM.render_reset()
                );
            }
            AgentEvent::Subagent(_) => {}
        }
    }
}

fn event_json(event: &AgentEvent) -> serde_json::Value {
    match event {
        AgentEvent::Step { step } => json!({"type": "step", "step": step}),
        AgentEvent::Model(Event::TextDelta(text)) => json!({"type": "text", "text": text}),
        AgentEvent::Model(Event::ToolCallStart { index, id, name }) => {
            json!({"type": "tool_call_start", "index": index, "id": id, "name": name})
        }
        AgentEvent::Model(Event::ToolCallArguments { index, delta }) => {
            json!({"type": "tool_call_arguments", "index": index, "delta": delta})
        }
        AgentEvent::Model(Event::Retrying {
            attempt,
            delay,
            reason,
        }) => {
            json!({"type": "retrying", "attempt": attempt, "delay_ms": delay.as_millis() as u64, "reason": reason})
        }
        AgentEvent::Model(Event::Waiting { elapsed }) => {
            json!({"type": "waiting", "elapsed_ms": elapsed.as_millis() as u64})
        }
        AgentEvent::ToolStarted {
            id,
            name,
            arguments,
        } => json!({"type": "tool_started", "id": id, "name": name, "arguments": arguments}),
        AgentEvent::ToolOutput { id, bytes } => {
            json!({"type": "tool_output", "id": id, "text": String::from_utf8_lossy(bytes)})
        }
        AgentEvent::ToolFinished {
            id,
            name,
            summary,
            output,
            is_error,
            duration,
        } => {
            json!({"type": "tool_finished", "id": id, "name": name, "summary": summary, "output": output, "is_error": is_error, "duration_ms": duration.as_millis() as u64})
        }
        AgentEvent::Compacted { before, after } => {
            json!({"type": "compacted", "before_tokens": before, "after_tokens": after})
        }
        AgentEvent::TextToolCalls { names } => json!({"type": "text_tool_calls", "names": names}),
        AgentEvent::Subagent(inner) => json!({"type": "subagent", "event": event_json(inner)}),
    }
}

fn print_json(value: &serde_json::Value) {
    let mut out = std::io::stdout().lock();
    let _ = serde_json::to_writer(&mut out, value);
    let _ = writeln!(out);
    let _ = out.flush();
}

/// Lines and characters of one argument an approval prompt shows before "show all".
const PROMPT_LINES: usize = 40;
const PROMPT_CHARS: usize = 4_000;

/// What a person approves: the tool, why it is protected (when it is), and every
/// argument whole, with control characters visible. `full: false` cuts long values and
/// says so; the person can ask for everything.
fn approval_prompt(request: &ApprovalRequest, full: bool) -> (String, bool) {
    let mut text = format!("allow {}?", request.tool);
    if let Some(why) = &request.protected {
        text.push_str(&format!(" ({})", render::visible(why)));
    }
    text.push('\n');
    let mut cut = false;
    match serde_json::from_str::<serde_json::Value>(&request.arguments) {
        Ok(serde_json::Value::Object(map)) => {
            for (key, value) in &map {
                let raw = value
                    .as_str()
                    .map_or_else(|| value.to_string(), str::to_owned);
                let shown = render::visible(&raw);
                let lines: Vec<&str> = shown.split('\n').collect();
                let mut body = String::new();
                let mut chars = 0;
                let mut kept = 0;
                for line in &lines {
                    if !full && (kept == PROMPT_LINES || chars + line.len() > PROMPT_CHARS) {
                        break;
                    }
                    let line: String = if full {
                        (*line).to_owned()
                    } else {
                        line.chars().take(PROMPT_CHARS - chars).collect()
                    };
                    chars += line.len();
                    kept += 1;
                    body.push_str(&format!("    │{line}\n"));
                }
                let left = shown.len().saturating_sub(chars + kept.saturating_sub(1));
                if lines.len() == 1 && left == 0 {
                    text.push_str(&format!("  {key}: {}\n", lines[0]));
                } else {
                    text.push_str(&format!("  {key}: ({} lines)\n{body}", lines.len()));
                }
                if left > 0 && !full {
                    cut = true;
                    text.push_str(&format!(
                        "    … {} more lines, {left} more characters not shown: answer s to see everything\n",
                        lines.len() - kept
                    ));
                }
            }
        }
        _ => text.push_str(&format!(
            "  arguments (not a JSON object): {}\n",
            render::visible(&request.arguments)
        )),
    }
    (text, cut)
}

/// A terminal prompt: yes, no, always for this session (not for protected paths), or
/// show everything first.
fn ask_on_terminal(request: &ApprovalRequest) -> Decision {
    let mut err = anstream::stderr();
    let mut full = false;
    loop {
        let (text, cut) = approval_prompt(request, full);
        let always = if request.protected.is_some() {
            ""
        } else {
            " / [a]lways this session"
        };
        let show = if cut { " / [s]how everything" } else { "" };
        let _ = write!(
            err,
            "{}{text}[y]es / [n]o{always}{show}: {}",
            render::WARN.render(),
            render::WARN.render_reset()
        );
        let _ = err.flush();
        let mut line = String::new();
        if std::io::stdin().lock().read_line(&mut line).is_err() {
            return Decision::No;
        }
        match line.trim().to_ascii_lowercase().as_str() {
            "y" | "yes" => return Decision::Yes,
            "a" | "always" if request.protected.is_none() => {
                return Decision::AlwaysThisSession;
            }
            "s" | "show" if cut => full = true,
            _ => return Decision::No,
        }
    }
}

async fn turn(
    session: &mut Session,
    question: &str,
    json_output: bool,
    cancel: &watch::Sender<bool>,
) -> Result<TurnOutcome> {
    cancel.send_replace(false);
    let mut terminal = Terminal::new();
    let outcome = session
        .ask(
            question,
            &mut |event| {
                if json_output {
                    print_json(&event_json(&event));
                } else {
                    terminal.show(event);
                }
            },
            cancel.subscribe(),
        )
        .await;
    terminal.end_text();
    let outcome = outcome?;
    if json_output {
        print_json(&json!({
            "type": "answer",
            "text": outcome.answer,
            "steps": outcome.steps,
            "prompt_tokens": outcome.usage.prompt_tokens,
            "completion_tokens": outcome.usage.completion_tokens,
            "stop": match outcome.stop { Stop::Answered => "answered", Stop::MaxSteps => "max_steps", Stop::Cancelled => "cancelled" },
        }));
    } else if outcome.stop != Stop::Answered {
        render::message(&render::terminal_safe(&outcome.answer))?;
    }
    Ok(outcome)
}

/// Where commands run: the flags, then the config file; on by default.
fn sandbox_for(
    args: &AskArgs,
    defaults: &crate::config::AskDefaults,
    root: &Path,
    temp_dir: &Path,
) -> Result<Sandbox> {
    let switch = args
        .sandbox
        .or(defaults.sandbox)
        .unwrap_or(SandboxSwitch::On);
    if switch == SandboxSwitch::Off {
        render::message(
            "the sandbox is off: commands run unconfined, with your permissions and network",
        )?;
        return Ok(Sandbox::Off);
    }
    let helper = std::env::current_exe().context("cannot find the mcursor binary")?;
    let mut policy = Policy::for_workspace(root, temp_dir, &crate::config::hidden_files());
    policy.allow_network = args.allow_network || defaults.allow_network.unwrap_or(false);
    for dir in args.sandbox_write.iter().chain(&defaults.sandbox_write) {
        let dir = std::fs::canonicalize(dir)
            .with_context(|| format!("--sandbox-write {}: no such directory", dir.display()))?;
        policy.writable.push(dir);
    }
    // For tests of the fail-closed path: act as if the kernel lacked a layer.
    if let Ok(name) = std::env::var("MCURSOR_SANDBOX_SIMULATE_MISSING") {
        policy.simulate_missing =
            Some(mcursor_sandbox::Layer::from_name(&name).with_context(|| {
                format!("MCURSOR_SANDBOX_SIMULATE_MISSING={name}: no such layer")
            })?);
    }
    Ok(Sandbox::Confined { helper, policy })
}

pub fn run(cwd: &Path, args: &AskArgs, json_output: bool) -> Result<bool> {
    let flags = Settings {
        preset: args.preset.clone(),
        base_url: args.base_url.clone(),
        api_key: None,
        model: args.model.clone(),
    };
    let defaults = crate::config::load()?;
    let mut config = ModelConfig::resolve(&[
        flags,
        Settings::from_env(|k| std::env::var(k).ok()),
        defaults.settings(),
    ])
    .map_err(|e| match e {
        // Say where the same settings can live for good.
        mcursor_llm::LlmError::NotConfigured(message) => {
            anyhow::anyhow!("{message}\n{}", crate::config::file_hint())
        }
        other => other.into(),
    })?;
    if let Some(seconds) = args.first_byte_timeout.or(defaults.first_byte_timeout) {
        config.first_byte_timeout = std::time::Duration::from_secs(seconds.max(1));
    }
    if let Some(seconds) = args.idle_timeout.or(defaults.idle_timeout) {
        config.idle_timeout = std::time::Duration::from_secs(seconds.max(1));
    }
    // MCURSOR_PASS_ENV=A,B adds to the config file's pass_env.
    let mut pass_env = defaults.pass_env.clone();
    if let Ok(extra) = std::env::var("MCURSOR_PASS_ENV") {
        pass_env.extend(
            extra
                .split(',')
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned),
        );
    }
    let tool_calls = tool_call_mode(args, &defaults)?;
    let client = Client::new(config)?;
    let root = mcursor_index::find_root(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let workspace = Workspace::new(&root).map_err(|e| anyhow::anyhow!("{e}"))?;
    // The commands' private temporary directory lives as long as the session.
    let temp_dir = tempfile::Builder::new()
        .prefix("mcursor-cmd-")
        .tempdir()
        .context("cannot create the commands' temporary directory")?;
    let sandbox = sandbox_for(args, &defaults, workspace.root(), temp_dir.path())?;
    let toolbox = Toolbox::new(
        workspace,
        CommandOptions {
            timeout: std::time::Duration::from_secs(
                args.command_timeout
                    .or(defaults.command_timeout)
                    .unwrap_or(120)
                    .max(1),
            ),
            pass_env,
            sandbox,
            ..CommandOptions::default()
        },
    );
    let toolbox = Arc::new(if args.no_index {
        toolbox.without_index()
    } else {
        toolbox
    });
    let interactive_terminal = std::io::stdin().is_terminal();
    let approval = Approval {
        auto: args.yes,
        person: interactive_terminal.then(|| Arc::new(ask_on_terminal) as mcursor_agent::Person),
        protected_writes: args.allow_protected_writes,
    };
    let options = AgentOptions {
        max_steps: args.max_steps.or(defaults.max_steps).unwrap_or(30).max(1),
        approval,
        context_window: args.context_window.or(defaults.context_window).unwrap_or(0),
        tool_calls,
        ..AgentOptions::default()
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let preset = preset_name(args, &defaults)
        .as_deref()
        .and_then(mcursor_llm::Preset::named);
    let preset_window = preset.and_then(|p| p.context_window);
    // A hosted preset's own endpoint says nothing about its window: not asked.
    let ask_server = !preset.is_some_and(|p| {
        p.context_window.is_some() && p.base_url.trim_end_matches('/') == client.config().base_url
    });
    runtime.block_on(async move {
        let mut options = options;
        // Nobody said: the server's own figure, else the preset's, else a small default
        // (sending more than fits fails or is cut silently; sending less only compacts).
        if options.context_window == 0 {
            let from_server = if ask_server {
                client.server_context_window().await
            } else {
                None
            };
            options.context_window =
                from_server.unwrap_or(preset_window.unwrap_or(DEFAULT_CONTEXT_WINDOW));
        }
        options.context_window = options.context_window.max(1_000);
        let mut session = Session::new(client, toolbox, options);
        let (cancel, _) = watch::channel(false);
        let interrupts = cancel.clone();
        // Ctrl-C stops the running turn; the session (and the process) goes on.
        tokio::spawn(async move {
            while tokio::signal::ctrl_c().await.is_ok() {
                interrupts.send_replace(true);
            }
        });
        if !args.question.is_empty() {
            let outcome =
                turn(&mut session, &args.question.join(" "), json_output, &cancel).await?;
            return Ok(outcome.stop == Stop::Answered);
        }
        let stdin = std::io::stdin();
        loop {
            if interactive_terminal {
                let mut err = anstream::stderr();
                let _ = write!(
                    err,
                    "{}> {}",
                    render::HEADER.render(),
                    render::HEADER.render_reset()
                );
                let _ = err.flush();
            }
            let mut line = String::new();
            if stdin.lock().read_line(&mut line)? == 0 {
                return Ok(true);
            }
            match line.trim() {
                "" => continue,
                "/exit" | "/quit" => return Ok(true),
                "/clear" => {
                    session.clear();
                    render::message("conversation cleared")?;
                }
                "/compact" => {
                    let mut terminal = Terminal::new();
                    session.compact(&mut |e| terminal.show(e)).await?;
                }
                question => {
                    if let Err(e) = turn(&mut session, question, json_output, &cancel).await {
                        render::message(&render::terminal_safe(&format!("error: {e:#}")))?;
                    }
                }
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partial_write_file_content_decodes_as_it_arrives() {
        let full = r#"{"path":"a.rs","content":"fn main() {\n    println!(\"hé\u00e9\");\n}\n"}"#;
        let mut shown = String::new();
        for end in 0..=full.len() {
            if !full.is_char_boundary(end) {
                continue;
            }
            let now = partial_string_field(&full[..end], "content");
            assert!(now.starts_with(&shown), "{now:?} does not extend {shown:?}");
            shown = now;
        }
        assert_eq!(shown, "fn main() {\n    println!(\"héé\");\n}\n");
        assert_eq!(
            key_arguments(r#"{"path":"src/a.rs","content":"x"}"#),
            "path=src/a.rs"
        );
    }

    fn request(arguments: serde_json::Value, protected: Option<&str>) -> ApprovalRequest {
        ApprovalRequest {
            tool: "execute_command".into(),
            arguments: arguments.to_string(),
            protected: protected.map(str::to_owned),
        }
    }

    #[test]
    fn approval_prompts_show_the_whole_call_with_controls_visible() {
        let padded = format!("echo harmless{}; touch pwned", " ".repeat(80));
        let (text, cut) = approval_prompt(&request(json!({ "command": padded }), None), false);
        assert_eq!(
            text,
            "allow execute_command?\n  command: echo harmless⟨80 spaces⟩; touch pwned\n"
        );
        assert!(!cut);
        let (text, _) = approval_prompt(
            &request(json!({"command": "rm -rf ~\r\u{1b}[2Kecho hi"}), None),
            false,
        );
        assert!(text.contains("rm -rf ~\\r\\x1b[2Kecho hi"), "{text}");
        assert!(!text.contains('\r') && !text.contains('\u{1b}'));
        // The one-line header is escaped and says it is cut.
        let header = key_arguments(&json!({ "command": padded }).to_string());
        assert_eq!(header, "command=echo harmless⟨80 spaces⟩; touch pwned");
        let long = key_arguments(&json!({ "command": "x".repeat(100) }).to_string());
        assert!(long.ends_with("x…(+20 chars)"), "{long}");
        assert!(!key_arguments(r#"{"command":"a\rb"}"#).contains('\r'));
    }

    #[test]
    fn long_arguments_are_cut_visibly_and_shown_on_request() {
        let content: String = (1..=100).map(|i| format!("line {i}\n")).collect();
        let call = request(
            json!({"path": ".git/hooks/pre-commit", "content": content}),
            Some(".git/hooks/pre-commit is a protected path: git runs hooks"),
        );
        let (short, cut) = approval_prompt(&call, false);
        assert!(cut);
        assert!(short.starts_with("allow execute_command? (.git/hooks/pre-commit is a protected path: git runs hooks)\n"), "{short}");
        assert!(
            short.contains("    │line 40\n") && !short.contains("line 41\n"),
            "{short}"
        );
        assert!(short.contains("… 61 more lines"), "{short}");
        let (full, cut) = approval_prompt(&call, true);
        assert!(!cut && full.contains("    │line 100\n"), "{full}");
    }

    #[test]
    fn output_pieces_never_split_a_character() {
        let mut stream = Utf8Stream::default();
        let bytes = "é€".as_bytes();
        let mut text = String::new();
        for byte in bytes {
            text.push_str(&stream.decode(std::slice::from_ref(byte)));
        }
        assert_eq!(text, "é€");
        assert_eq!(stream.decode(b"\xff!"), "\u{fffd}!");
    }
}
