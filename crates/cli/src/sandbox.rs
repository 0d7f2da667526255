//! `mcursor sandbox doctor`: what the command sandbox can enforce on this machine, tried
//! for real on a scratch workspace, and what it protects in this one. Also the network
//! probe the doctor runs inside the sandbox.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result};
use mcursor_sandbox::{Layer, Policy, SETUP_FAILED};
use serde_json::json;

use crate::render::{self, Out};

/// One attack tried inside the sandbox: `script` (for `sh -c`) must exit 0 for the
/// sandbox to have held.
struct Check {
    what: &'static str,
    script: String,
}

/// What one check showed.
struct Outcome {
    what: &'static str,
    held: bool,
    detail: String,
}

/// A scratch workspace with protected files, a place outside, and a fake credential.
struct Scratch {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    temp: PathBuf,
    outside: PathBuf,
    secret_dir: PathBuf,
    secret_file: PathBuf,
}

fn scratch() -> Result<Scratch> {
    let dir = tempfile::Builder::new()
        .prefix("mcursor-doctor-")
        .tempdir()
        .context("cannot create a scratch directory")?;
    let root = std::fs::canonicalize(dir.path())?;
    let workspace = root.join("workspace");
    let temp = root.join("tmp");
    let outside = root.join("outside");
    let secret_dir = root.join("secrets");
    let secret_file = root.join("token");
    for d in [&workspace.join(".git/hooks"), &temp, &outside, &secret_dir] {
        std::fs::create_dir_all(d)?;
    }
    std::fs::write(workspace.join(".git/config"), "[core]\n")?;
    std::fs::write(workspace.join(".env"), "A=1\n")?;
    std::fs::write(secret_dir.join("key"), "hunter2\n")?;
    std::fs::write(&secret_file, "hunter2\n")?;
    Ok(Scratch {
        _dir: dir,
        workspace,
        temp,
        outside,
        secret_dir,
        secret_file,
    })
}

/// A marker no sandboxed process may read: it is in the environment of a decoy process
/// outside the sandbox, standing in for the agent.
const MARKER: &str = "MCURSOR_DOCTOR_MARKER";
/// A `sleep` argument that identifies processes a check left behind.
const LINGER: &str = "297.25";

fn checks(scratch: &Scratch, exe: &Path) -> Vec<Check> {
    let q = |p: &Path| format!("'{}'", p.display().to_string().replace('\'', r"'\''"));
    vec![
        Check {
            what: "writes the workspace and its private temporary directory",
            script: r#"echo ok > probe && rm probe && echo ok > "$TMPDIR/probe""#.into(),
        },
        Check {
            what: "cannot write outside them",
            script: format!("! (echo x > {}/file) 2>/dev/null", q(&scratch.outside)),
        },
        Check {
            what: "cannot change .git/config, .git/hooks or .env",
            script: "! (echo x >> .git/config) 2>/dev/null && ! (touch .git/hooks/pre-commit) 2>/dev/null && ! (echo x >> .env) 2>/dev/null".into(),
        },
        Check {
            what: "sees credentials as empty",
            script: format!(
                r#"test -z "$(cat {}/key {} 2>/dev/null)""#,
                q(&scratch.secret_dir),
                q(&scratch.secret_file)
            ),
        },
        Check {
            what: "cannot read the environment of processes outside (the agent's)",
            script: format!(
                "! (cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q {MARKER})"
            ),
        },
        Check {
            what: "cannot open an Internet socket",
            script: format!("{} debug probe-network", q(exe)),
        },
        Check {
            what: "leaves no process behind",
            script: format!("setsid sleep {LINGER} >/dev/null 2>&1 < /dev/null & exit 0"),
        },
    ]
}

/// Runs `script` in the sandbox, at most 20 s; (exit code, output).
fn run_confined(exe: &Path, policy: &Policy, cwd: &Path, script: &str) -> Result<(i32, String)> {
    let mut command = mcursor_sandbox::command(exe, policy, "sh", &["-c", script])?;
    let log = tempfile::tempfile()?;
    command
        .current_dir(cwd)
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("TMPDIR", &policy.temp_dir)
        .stdin(Stdio::null())
        .stdout(log.try_clone()?)
        .stderr(log.try_clone()?);
    let mut child = command.spawn().context("cannot start the sandbox helper")?;
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait()? {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            anyhow::bail!("the check did not end within 20 s");
        }
        std::thread::sleep(Duration::from_millis(10));
    };
    let mut log = log;
    use std::io::{Read, Seek};
    log.rewind()?;
    let mut output = String::new();
    log.take(4096).read_to_string(&mut output).ok();
    Ok((status.code().unwrap_or(128), output))
}

pub fn doctor(cwd: &Path, out: &mut Out) -> Result<bool> {
    let exe = std::env::current_exe().context("cannot find the mcursor binary")?;
    let support = mcursor_sandbox::kernel_support();
    let scratch = scratch()?;
    let policy = Policy {
        workspace: scratch.workspace.clone(),
        temp_dir: scratch.temp.clone(),
        writable: Vec::new(),
        read_only: mcursor_sandbox::read_only_for_commands(&scratch.workspace),
        hidden: vec![scratch.secret_dir.clone(), scratch.secret_file.clone()],
        allow_network: false,
        simulate_missing: std::env::var("MCURSOR_SANDBOX_SIMULATE_MISSING")
            .ok()
            .and_then(|name| Layer::from_name(&name)),
    };
    let mut decoy = Command::new("sleep")
        .arg("30")
        .env(MARKER, "1")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .ok();
    let mut refusal = None;
    let mut outcomes = Vec::new();
    match run_confined(&exe, &policy, &scratch.workspace, "true") {
        Ok((0, _)) => {
            for check in checks(&scratch, &exe) {
                let before = mcursor_sandbox::processes_with_arg(LINGER);
                let (held, detail) =
                    match run_confined(&exe, &policy, &scratch.workspace, &check.script) {
                        Ok((0, _)) => (true, String::new()),
                        Ok((code, output)) => (false, format!("exit {code}: {}", output.trim())),
                        Err(e) => (false, format!("{e:#}")),
                    };
                let (held, detail) = if check.script.contains(LINGER) {
                    std::thread::sleep(Duration::from_millis(100));
                    let left = mcursor_sandbox::processes_with_arg(LINGER).saturating_sub(before);
                    if left == 0 {
                        (held, detail)
                    } else {
                        (false, format!("{left} process(es) still run"))
                    }
                } else {
                    (held, detail)
                };
                outcomes.push(Outcome {
                    what: check.what,
                    held,
                    detail,
                });
            }
        }
        Ok((code, output)) => {
            refusal = Some(if code == SETUP_FAILED {
                output.trim().to_owned()
            } else {
                format!("the sandbox helper exited with {code}: {}", output.trim())
            })
        }
        Err(e) => refusal = Some(format!("{e:#}")),
    }
    if let Some(decoy) = decoy.as_mut() {
        let _ = decoy.kill();
        let _ = decoy.wait();
    }
    let confined = refusal.is_none() && outcomes.iter().all(|o| o.held);
    let root = mcursor_index::find_root(cwd).unwrap_or_else(|_| cwd.to_path_buf());
    let here = Policy::for_workspace(&root, &std::env::temp_dir(), &crate::config::hidden_files());
    if out.json {
        out.json_value(&json!({
            "supported": mcursor_sandbox::supported(),
            "layers": support.iter().map(|l| json!({"layer": l.layer.name(), "available": l.available, "detail": l.detail})).collect::<Vec<_>>(),
            "refused": refusal,
            "checks": outcomes.iter().map(|o| json!({"check": o.what, "held": o.held, "detail": o.detail})).collect::<Vec<_>>(),
            "confined": confined,
            "workspace": {
                "root": root,
                "read_only": here.read_only,
                "hidden": here.hidden,
            },
        }))?;
        return Ok(confined);
    }
    let mut text = String::new();
    let mark = |ok: bool| if ok { "✓" } else { "✗" };
    text.push_str(&format!(
        "{} {}\n",
        std::env::consts::OS,
        std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .unwrap_or_default()
            .trim()
    ));
    for layer in &support {
        text.push_str(&format!(
            "  {} {:<11} {}\n",
            mark(layer.available),
            layer.layer.name(),
            layer.detail
        ));
    }
    text.push_str("\ntried in a scratch workspace:\n");
    if let Some(why) = &refusal {
        text.push_str(&format!("  ✗ a command cannot start: {why}\n"));
    }
    for outcome in &outcomes {
        text.push_str(&format!("  {} {}", mark(outcome.held), outcome.what));
        if !outcome.detail.is_empty() {
            text.push_str(&format!(" ({})", outcome.detail));
        }
        text.push('\n');
    }
    text.push_str(&format!(
        "\nin {}:\n  read-only for commands: {}\n  hidden from commands:   {}\n",
        root.display(),
        list(&here.read_only),
        list(&here.hidden)
    ));
    out.text(&text)?;
    let verdict = if confined {
        "commands run confined (mcursor ask --sandbox off runs them unconfined)".to_owned()
    } else if refusal.is_some() {
        "commands are refused on this machine: the sandbox cannot be set up; `mcursor ask --sandbox off` runs them unconfined".to_owned()
    } else {
        "the sandbox did not hold on this machine: commands are refused unless you choose `--sandbox off`".to_owned()
    };
    let mut err = anstream::stderr();
    let style = if confined { render::DIM } else { render::WARN };
    let _ = writeln!(err, "{}{verdict}{}", style.render(), style.render_reset());
    Ok(confined)
}

fn list(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        "(none)".into()
    } else {
        paths
            .iter()
            .map(|p| p.display().to_string())
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// `mcursor debug probe-network`: exit 0 when Internet sockets are refused (as inside
/// the sandbox), 1 with what happened when one opened.
pub fn probe_network() -> bool {
    let refused = |e: &std::io::Error| matches!(e.raw_os_error(), Some(code) if code == 1 || code == 13 || code == 97);
    let tcp = std::net::TcpStream::connect_timeout(
        &std::net::SocketAddr::from(([127, 0, 0, 1], 9)),
        Duration::from_millis(200),
    );
    let udp = std::net::UdpSocket::bind("127.0.0.1:0");
    let tcp_refused = tcp.as_ref().err().is_some_and(refused);
    let udp_refused = udp.as_ref().err().is_some_and(refused);
    if !tcp_refused {
        eprintln!("a TCP socket opened: {tcp:?}");
    }
    if !udp_refused {
        eprintln!("a UDP socket opened: {udp:?}");
    }
    tcp_refused && udp_refused
}
