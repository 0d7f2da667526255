//! `execute_command`: a shell command in a directory of the workspace, its output streamed
//! live to the user and returned to the model capped (head and tail kept), the whole
//! process group killed on timeout or cancellation, and secrets kept out of its
//! environment.

use std::future::Future;
use std::path::PathBuf;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tokio::io::{AsyncRead, AsyncReadExt};

use mcursor_sandbox::Policy;

use crate::workspace::Workspace;
use crate::{ToolError, ToolSpec, nonempty_arg, string_arg};

/// Where commands run.
#[derive(Clone, Debug)]
pub enum Sandbox {
    /// Confined by the OS sandbox: `helper` (the mcursor binary) runs `sandbox-exec`.
    Confined { helper: PathBuf, policy: Policy },
    /// `--sandbox off`: unconfined; every result says so.
    Off,
}

#[derive(Clone, Debug)]
pub struct CommandOptions {
    /// Longest run before the process group is killed (the model may ask for less).
    pub timeout: Duration,
    /// Bytes of output returned to the model: the first and last halves are kept.
    pub max_output: usize,
    /// Variables passed through besides [`PASSED_ENV`] (the user's `pass_env`).
    pub pass_env: Vec<String>,
    /// The environment the command's variables are taken from (default: this process's).
    pub base_env: Option<Vec<(String, String)>>,
    pub sandbox: Sandbox,
}

impl Default for CommandOptions {
    fn default() -> Self {
        CommandOptions {
            timeout: Duration::from_secs(120),
            max_output: 16 * 1024,
            pass_env: Vec::new(),
            base_env: None,
            sandbox: Sandbox::Off,
        }
    }
}

/// The variables a command sees, by name; `LC_*` too. Everything else (API keys, cloud
/// credentials, database URLs, agent sockets) stays out unless the user passes it.
pub const PASSED_ENV: [&str; 8] = [
    "PATH", "HOME", "USER", "LANG", "TERM", "TMPDIR", "SHELL", "PWD",
];

/// The command's environment: the allowlisted variables of `base`, then `pass` by name,
/// then `set` (which wins).
pub fn command_env(
    base: impl IntoIterator<Item = (String, String)>,
    pass: &[String],
    set: &[(&str, String)],
) -> Vec<(String, String)> {
    let mut env: Vec<(String, String)> = base
        .into_iter()
        .filter(|(name, _)| {
            PASSED_ENV.contains(&name.as_str())
                || name.starts_with("LC_")
                || pass.iter().any(|p| p == name)
        })
        .filter(|(name, _)| !set.iter().any(|(s, _)| s == name))
        .collect();
    env.extend(set.iter().map(|(k, v)| ((*k).to_owned(), v.clone())));
    env.sort();
    env
}

/// Output kept for the model: the head, and a rolling tail once the head is full.
struct Capped {
    head: Vec<u8>,
    tail: std::collections::VecDeque<u8>,
    half: usize,
    dropped: usize,
}

impl Capped {
    fn new(max: usize) -> Self {
        Capped {
            head: Vec::new(),
            tail: std::collections::VecDeque::new(),
            half: (max / 2).max(1),
            dropped: 0,
        }
    }

    fn push(&mut self, mut bytes: &[u8]) {
        let room = self.half.saturating_sub(self.head.len());
        let take = room.min(bytes.len());
        self.head.extend_from_slice(&bytes[..take]);
        bytes = &bytes[take..];
        self.tail.extend(bytes);
        while self.tail.len() > self.half {
            self.tail.pop_front();
            self.dropped += 1;
        }
    }

    fn text(&self) -> String {
        let head = String::from_utf8_lossy(&self.head);
        let tail: Vec<u8> = self.tail.iter().copied().collect();
        let tail = String::from_utf8_lossy(&tail);
        if self.dropped == 0 {
            format!("{head}{tail}")
        } else {
            format!(
                "{head}\n… {} bytes of output left out (rerun with a filter such as `| grep` or `| tail` to see them) …\n{tail}",
                self.dropped
            )
        }
    }
}

pub fn execute_command_spec() -> ToolSpec {
    ToolSpec {
        name: "execute_command".into(),
        description: "Run a shell command; use working_directory, not cd.".into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "working_directory": {"type": "string"},
                "timeout_seconds": {"type": "integer", "minimum": 1}
            },
            "required": ["command"]
        }),
    }
}

async fn pump(
    mut reader: impl AsyncRead + Unpin,
    sender: tokio::sync::mpsc::UnboundedSender<Vec<u8>>,
) {
    let mut buffer = vec![0u8; 8192];
    while let Ok(n) = reader.read(&mut buffer).await {
        if n == 0 || sender.send(buffer[..n].to_vec()).is_err() {
            break;
        }
    }
}

fn kill_group(pid: Option<u32>) {
    #[cfg(unix)]
    if let Some(pid) = pid.and_then(|p| rustix::process::Pid::from_raw(p as i32)) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    #[cfg(not(unix))]
    let _ = pid;
}

/// How long output may still arrive after the command ended or was killed: a process
/// that escaped the kill (possible only with `--sandbox off`) may hold the pipe forever.
const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// The process that runs `command`, and the policy it runs under (`None`: unconfined).
fn spawn_command(
    command: &str,
    options: &CommandOptions,
) -> Result<(tokio::process::Command, Option<Policy>), ToolError> {
    Ok(match &options.sandbox {
        Sandbox::Confined { helper, policy } => {
            let mut policy = policy.clone();
            // A protected file created by an earlier command is protected from now on.
            policy.refresh_read_only();
            let process = mcursor_sandbox::command(helper, &policy, "sh", &["-c", command])
                .map_err(|e| ToolError::SandboxRefused(e.to_string()))?;
            (tokio::process::Command::from(process), Some(policy))
        }
        Sandbox::Off => {
            let mut process = tokio::process::Command::new("sh");
            process.arg("-c").arg(command);
            (process, None)
        }
    })
}

/// Runs the command. `on_output` sees output as it arrives; `cancel` resolving (Ctrl-C)
/// kills the command and everything it started, like a timeout does.
pub async fn execute_command(
    ws: &Workspace,
    args: &Value,
    options: &CommandOptions,
    on_output: &mut (dyn FnMut(&[u8]) + Send),
    cancel: impl Future<Output = ()>,
) -> Result<String, ToolError> {
    let command = nonempty_arg(args, "command")?.to_owned();
    let dir: PathBuf = match args.get("working_directory") {
        None | Some(Value::Null) => ws.root().to_path_buf(),
        Some(_) => ws.resolve(string_arg(args, "working_directory")?)?,
    };
    if !dir.is_dir() {
        return Err(ToolError::NotFound(ws.display(&dir)));
    }
    let timeout = match args.get("timeout_seconds").and_then(Value::as_u64) {
        Some(s) => Duration::from_secs(s).min(options.timeout),
        None => options.timeout,
    };
    let base = options
        .base_env
        .clone()
        .unwrap_or_else(|| std::env::vars().collect());
    let (mut child, policy) = spawn_command(&command, options)?;
    let mut set = vec![("PWD", dir.display().to_string())];
    if let Some(policy) = &policy {
        set.push(("TMPDIR", policy.temp_dir.display().to_string()));
    }
    child
        .current_dir(&dir)
        .env_clear()
        .envs(command_env(base, &options.pass_env, &set))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    child.process_group(0);
    let protected_before = mcursor_sandbox::read_only_for_commands(ws.root());
    let started = Instant::now();
    let mut child = child.spawn().map_err(|e| ToolError::Io {
        path: ws.display(&dir),
        detail: format!("cannot start the command: {e}"),
    })?;
    let pid = child.id();
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    if let Some(stdout) = child.stdout.take() {
        tokio::spawn(pump(stdout, sender.clone()));
    }
    if let Some(stderr) = child.stderr.take() {
        tokio::spawn(pump(stderr, sender.clone()));
    }
    drop(sender);
    let mut output = Capped::new(options.max_output);
    let deadline = tokio::time::sleep(timeout);
    tokio::pin!(deadline);
    tokio::pin!(cancel);
    // Armed once the command ended or was killed: the output gets this long to drain.
    let drain = tokio::time::sleep(Duration::from_secs(86_400 * 365));
    tokio::pin!(drain);
    let mut draining = false;
    let mut abandoned = false;
    let mut stopped: Option<&str> = None;
    let mut status = None;
    let mut streams_open = true;
    while status.is_none() || streams_open {
        let mut start_draining = false;
        tokio::select! {
            piece = receiver.recv(), if streams_open => match piece {
                Some(bytes) => {
                    on_output(&bytes);
                    output.push(&bytes);
                }
                None => streams_open = false,
            },
            exit = child.wait(), if status.is_none() => {
                status = Some(exit.map_err(|e| ToolError::Io { path: command.clone(), detail: e.to_string() })?);
                // Background children holding the pipes open must not keep us here.
                kill_group(pid);
                start_draining = true;
            },
            () = &mut deadline, if stopped.is_none() => {
                stopped = Some("timed out");
                kill_group(pid);
                start_draining = true;
            },
            () = &mut cancel, if stopped.is_none() => {
                stopped = Some("cancelled");
                kill_group(pid);
                start_draining = true;
            },
            () = &mut drain, if draining => {
                abandoned = true;
                break;
            },
        }
        if start_draining && !draining {
            draining = true;
            drain
                .as_mut()
                .reset(tokio::time::Instant::now() + DRAIN_GRACE);
        }
    }
    let elapsed = started.elapsed();
    let code = status.and_then(|s| s.code());
    let text = output.text();
    if policy.is_some()
        && code == Some(mcursor_sandbox::SETUP_FAILED)
        && text.starts_with(mcursor_sandbox::MESSAGE_PREFIX)
    {
        return Err(ToolError::SandboxRefused(
            text.lines().next().unwrap_or_default().to_owned(),
        ));
    }
    let mut summary = match (stopped, code) {
        (Some(why), _) => format!(
            "{why} after {:.1}s; the command and its children were killed",
            elapsed.as_secs_f64()
        ),
        (None, Some(code)) => format!("exit code {code} in {:.1}s", elapsed.as_secs_f64()),
        (None, None) => format!("killed by a signal after {:.1}s", elapsed.as_secs_f64()),
    };
    if policy.is_none() {
        summary = format!("ran unconfined (--sandbox off); {summary}");
    }
    if abandoned {
        summary.push_str(
            "; a process it started outside its process group still holds the output open \
             and was left running (only --sandbox off allows that)",
        );
    }
    let created: Vec<String> = mcursor_sandbox::read_only_for_commands(ws.root())
        .into_iter()
        .filter(|p| !protected_before.contains(p))
        .map(|p| ws.display(&p))
        .collect();
    if !created.is_empty() {
        summary.push_str(&format!(
            "\nnote: the command created protected path(s) {}: tools may run code from them \
             (git hooks, editor tasks); the user should review them",
            created.join(", ")
        ));
    }
    Ok(if text.trim().is_empty() {
        format!("{summary}; no output")
    } else {
        format!("{summary}\n{text}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn workspace() -> (tempfile::TempDir, Workspace) {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("sub")).expect("mkdir");
        let ws = Workspace::new(dir.path()).expect("workspace");
        (dir, ws)
    }

    async fn run(
        ws: &Workspace,
        args: Value,
        options: &CommandOptions,
    ) -> (Result<String, ToolError>, Vec<u8>) {
        let mut live = Vec::new();
        let result = execute_command(
            ws,
            &args,
            options,
            &mut |b| live.extend_from_slice(b),
            std::future::pending(),
        )
        .await;
        (result, live)
    }

    #[tokio::test]
    async fn output_exit_code_and_working_directory() {
        let (_dir, ws) = workspace();
        let (result, live) = run(
            &ws,
            json!({"command": "pwd; echo oops >&2; exit 3", "working_directory": "sub"}),
            &CommandOptions::default(),
        )
        .await;
        let text = result.expect("ran");
        assert!(
            text.starts_with("ran unconfined (--sandbox off); exit code 3 in"),
            "{text}"
        );
        assert!(text.contains("/sub\n") && text.contains("oops"), "{text}");
        assert_eq!(String::from_utf8_lossy(&live).lines().count(), 2);
        let (outside, _) = run(
            &ws,
            json!({"command": "ls", "working_directory": "../.."}),
            &CommandOptions::default(),
        )
        .await;
        assert!(matches!(outside, Err(ToolError::OutsideWorkspace { .. })));
    }

    #[tokio::test]
    async fn a_command_that_never_ends_is_killed_with_its_children() {
        let (dir, ws) = workspace();
        let options = CommandOptions {
            timeout: Duration::from_millis(500),
            ..CommandOptions::default()
        };
        let started = Instant::now();
        let (result, _) = run(
            &ws,
            json!({"command": "sleep 30 & echo $! > child.pid; echo started; wait"}),
            &options,
        )
        .await;
        let text = result.expect("ran");
        assert!(
            started.elapsed() < Duration::from_secs(10),
            "{:?}",
            started.elapsed()
        );
        assert!(
            text.contains("; timed out after") && text.contains("started"),
            "{text}"
        );
        let child: u32 = std::fs::read_to_string(dir.path().join("child.pid"))
            .expect("pid")
            .trim()
            .parse()
            .expect("number");
        // The background `sleep` was in the killed group.
        std::thread::sleep(Duration::from_millis(200));
        let status = std::fs::read_to_string(format!("/proc/{child}/status")).unwrap_or_default();
        assert!(
            status.is_empty() || status.contains("State:\tZ"),
            "child {child} still runs: {status}"
        );
    }

    #[tokio::test]
    async fn long_output_keeps_head_and_tail() {
        let (_dir, ws) = workspace();
        let options = CommandOptions {
            max_output: 200,
            ..CommandOptions::default()
        };
        let (result, live) = run(&ws, json!({"command": "seq 1 10000"}), &options).await;
        let text = result.expect("ran");
        assert!(
            text.contains("\n1\n2\n3\n") && text.ends_with("9999\n10000\n"),
            "{text}"
        );
        assert!(text.contains("bytes of output left out"), "{text}");
        assert!(live.len() > 40_000, "the user sees everything live");
    }

    #[tokio::test]
    async fn the_environment_is_an_allowlist() {
        let (dir, ws) = workspace();
        let options = CommandOptions {
            base_env: Some(vec![
                ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
                ("HOME".into(), "/home/u".into()),
                ("LC_ALL".into(), "C.UTF-8".into()),
                ("MCURSOR_API_KEY".into(), "sk-1".into()),
                ("AWS_SECRET_ACCESS_KEY".into(), "aws".into()),
                ("GITHUB_PAT".into(), "ghp".into()),
                ("DATABASE_URL".into(), "postgres://u:pw@h/db".into()),
                ("NPM_CONFIG__AUTH".into(), "npm".into()),
                ("SSH_AUTH_SOCK".into(), "/tmp/ssh/agent".into()),
                ("CARGO_REGISTRY_TOKEN".into(), "passed".into()),
                ("PWD".into(), "/elsewhere".into()),
            ]),
            pass_env: vec!["CARGO_REGISTRY_TOKEN".into()],
            ..CommandOptions::default()
        };
        let (result, _) = run(&ws, json!({"command": "env | sort"}), &options).await;
        let text = result.expect("ran");
        let names: Vec<&str> = text
            .lines()
            .skip(1)
            .filter_map(|l| l.split_once('=').map(|(name, _)| name))
            .filter(|name| *name != "OLDPWD" && *name != "SHLVL" && *name != "_")
            .collect();
        assert_eq!(
            names,
            ["CARGO_REGISTRY_TOKEN", "HOME", "LC_ALL", "PATH", "PWD"],
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "PWD={}",
                dir.path().canonicalize().expect("dir").display()
            )),
            "{text}"
        );
    }

    #[tokio::test]
    async fn a_process_that_holds_the_output_does_not_hold_the_tool() {
        // Unconfined, `setsid` escapes the process group; the tool still returns.
        let (_dir, ws) = workspace();
        let options = CommandOptions {
            timeout: Duration::from_secs(3),
            ..CommandOptions::default()
        };
        let started = Instant::now();
        let (result, _) = run(
            &ws,
            json!({"command": "setsid sleep 41.75 & sleep 0.2; echo started"}),
            &options,
        )
        .await;
        let text = result.expect("ran");
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        assert!(
            text.contains("still holds the output open") && text.contains("started"),
            "{text}"
        );
        let _ = std::process::Command::new("pkill")
            .args(["-f", "sleep 41.75"])
            .status();
    }

    #[tokio::test]
    async fn cancellation_kills_like_a_timeout() {
        let (_dir, ws) = workspace();
        let mut live = Vec::new();
        let result = execute_command(
            &ws,
            &json!({"command": "sleep 30"}),
            &CommandOptions::default(),
            &mut |b| live.extend_from_slice(b),
            tokio::time::sleep(Duration::from_millis(200)),
        )
        .await;
        let text = result.expect("ran");
        assert!(text.contains("; cancelled after"), "{text}");
    }
}
