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

use crate::workspace::Workspace;
use crate::{ToolError, ToolSpec, nonempty_arg, string_arg};

#[derive(Clone, Debug)]
pub struct CommandOptions {
    /// Longest run before the process group is killed (the model may ask for less).
    pub timeout: Duration,
    /// Bytes of output returned to the model: the first and last halves are kept.
    pub max_output: usize,
    /// Variable names passed through even though they look like secrets.
    pub allow_env: Vec<String>,
    /// The environment the command starts from (default: this process's).
    pub base_env: Option<Vec<(String, String)>>,
}

impl Default for CommandOptions {
    fn default() -> Self {
        CommandOptions {
            timeout: Duration::from_secs(120),
            max_output: 16 * 1024,
            allow_env: Vec::new(),
            base_env: None,
        }
    }
}

const SECRET_MARKERS: [&str; 4] = ["KEY", "TOKEN", "SECRET", "PASSWORD"];

/// The variables a child may see: everything except names that look like credentials
/// (`*KEY*`, `*TOKEN*`, `*SECRET*`, `*PASSWORD*`, any case) unless allowed by name.
pub fn filtered_env(
    vars: impl IntoIterator<Item = (String, String)>,
    allow: &[String],
) -> Vec<(String, String)> {
    vars.into_iter()
        .filter(|(name, _)| {
            let upper = name.to_ascii_uppercase();
            allow.iter().any(|a| a == name) || !SECRET_MARKERS.iter().any(|m| upper.contains(m))
        })
        .collect()
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
        description: "Run a shell command (sh -c) and get its exit code and output (stdout and \
                      stderr together, long output cut in the middle). Set working_directory \
                      instead of using cd. Optional timeout_seconds."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "command": {"type": "string"},
                "working_directory": {"type": "string", "description": "Relative to the workspace root (default: the root)"},
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

/// Runs the command. `on_output` sees output as it arrives; `cancel` resolving (Ctrl-C)
/// kills the process group like a timeout does.
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
    let mut child = tokio::process::Command::new("sh");
    child
        .arg("-c")
        .arg(&command)
        .current_dir(&dir)
        .env_clear()
        .envs(filtered_env(base, &options.allow_env))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    child.process_group(0);
    let started = Instant::now();
    let mut child = child.spawn().map_err(|e| ToolError::Io {
        path: ws.display(&dir),
        detail: format!("cannot start sh: {e}"),
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
    let mut stopped: Option<&str> = None;
    let mut status = None;
    let mut streams_open = true;
    while status.is_none() || streams_open {
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
            },
            () = &mut deadline, if stopped.is_none() => {
                stopped = Some("timed out");
                kill_group(pid);
            },
            () = &mut cancel, if stopped.is_none() => {
                stopped = Some("cancelled");
                kill_group(pid);
            },
        }
    }
    let elapsed = started.elapsed();
    let code = status.and_then(|s| s.code());
    let summary = match (stopped, code) {
        (Some(why), _) => format!(
            "{why} after {:.1}s; the command and its children were killed",
            elapsed.as_secs_f64()
        ),
        (None, Some(code)) => format!("exit code {code} in {:.1}s", elapsed.as_secs_f64()),
        (None, None) => format!("killed by a signal after {:.1}s", elapsed.as_secs_f64()),
    };
    let text = output.text();
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
        assert!(text.starts_with("exit code 3 in"), "{text}");
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
            text.starts_with("timed out after") && text.contains("started"),
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
    async fn secrets_stay_out_of_the_environment_unless_allowed() {
        let (_dir, ws) = workspace();
        let options = CommandOptions {
            base_env: Some(vec![
                ("PATH".into(), std::env::var("PATH").unwrap_or_default()),
                ("OPENAI_API_KEY".into(), "sk-1".into()),
                ("github_token".into(), "t".into()),
                ("DB_PASSWORD".into(), "p".into()),
                ("MY_SECRET_SAUCE".into(), "s".into()),
                ("ALLOWED_TOKEN".into(), "ok".into()),
                ("HOME_DIR".into(), "/h".into()),
            ]),
            allow_env: vec!["ALLOWED_TOKEN".into()],
            ..CommandOptions::default()
        };
        let (result, _) = run(&ws, json!({"command": "env | sort"}), &options).await;
        let text = result.expect("ran");
        assert!(
            text.contains("ALLOWED_TOKEN=ok") && text.contains("HOME_DIR=/h"),
            "{text}"
        );
        for secret in [
            "OPENAI_API_KEY",
            "github_token",
            "DB_PASSWORD",
            "MY_SECRET_SAUCE",
        ] {
            assert!(!text.contains(secret), "{secret} leaked: {text}");
        }
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
        assert!(result.expect("ran").starts_with("cancelled after"));
    }
}
