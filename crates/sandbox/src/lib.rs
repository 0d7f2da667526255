//! mcursor-sandbox owns confining the agent's shell commands on the OS, and the tables of
//! paths the agent treats specially.
//!
//! A command runs through a helper, `mcursor sandbox-exec POLICY -- sh -c CMD` (the
//! binary re-executed, so nothing is set up in the multi-threaded agent). On Linux the
//! helper works in two stages:
//! 1. it creates a user, mount and PID namespace; makes the protected paths of the
//!    workspace read-only (`.git/config`, `.git/hooks`, `.mcursor`, ...) and the user's
//!    credentials empty (`~/.ssh`, `~/.aws`, the agent socket, ...) with bind mounts; then
//! 2. re-executed as PID 1 of the new PID namespace, it mounts a fresh `/proc` (so no
//!    process outside, the agent included, is visible), drops every capability, starts a
//!    new session (no controlling terminal), applies Landlock (read everywhere, write only
//!    the workspace, the private temporary directory, what the user added, `/dev/null`)
//!    and seccomp (no sockets but `AF_UNIX` unless the network is allowed, no `ptrace`,
//!    no mounts or namespaces, no `io_uring`), then runs the command and reaps orphans.
//!    When it exits, the kernel kills every process left in the namespace.
//!
//! Whatever cannot be enforced fails closed: the helper exits with
//! [`SETUP_FAILED`] and says why. Other systems have no sandbox yet ([`supported`]).

mod paths;

#[cfg(target_os = "linux")]
mod linux;
#[cfg(target_os = "linux")]
mod seccomp;

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

pub use paths::{
    ForCommands, HIDDEN_IN_HOME, HIDDEN_SYSTEM, PROTECTED, Pattern, Protected, hidden_paths,
    hooks_path, protected_reason, read_only_for_commands,
};

/// The helper's exit code when the sandbox could not be set up (the command did not run).
pub const SETUP_FAILED: i32 = 125;

/// The prefix of the helper's own messages on stderr.
pub const MESSAGE_PREFIX: &str = "mcursor sandbox:";

/// One mechanism of the sandbox, named in messages and in `mcursor sandbox doctor`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layer {
    /// User, mount and PID namespaces.
    Namespaces,
    /// Landlock file system (and, where the kernel has it, TCP) rules.
    Landlock,
    /// The seccomp system call filter.
    Seccomp,
}

impl Layer {
    pub const ALL: [Layer; 3] = [Layer::Namespaces, Layer::Landlock, Layer::Seccomp];

    pub fn name(self) -> &'static str {
        match self {
            Layer::Namespaces => "namespaces",
            Layer::Landlock => "landlock",
            Layer::Seccomp => "seccomp",
        }
    }

    pub fn from_name(name: &str) -> Option<Layer> {
        Layer::ALL.into_iter().find(|l| l.name() == name)
    }
}

/// What one sandboxed command may do.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Policy {
    /// The workspace root: readable and writable.
    pub workspace: PathBuf,
    /// The private temporary directory (the command's `TMPDIR`): readable and writable.
    pub temp_dir: PathBuf,
    /// More writable directories the user chose (`--sandbox-write`).
    pub writable: Vec<PathBuf>,
    /// Paths inside writable directories that stay read-only.
    pub read_only: Vec<PathBuf>,
    /// Paths that appear empty (directories) or as an empty file.
    pub hidden: Vec<PathBuf>,
    /// Whether sockets other than `AF_UNIX` (and TCP) are allowed.
    pub allow_network: bool,
    /// For tests: act as if the kernel lacked this layer (the fail-closed path).
    #[serde(default)]
    pub simulate_missing: Option<Layer>,
}

impl Policy {
    /// The default policy for `workspace`: its protected paths read-only, the user's
    /// credentials (and `extra_hidden`, e.g. the agent's own config) hidden, no network.
    pub fn for_workspace(workspace: &Path, temp_dir: &Path, extra_hidden: &[PathBuf]) -> Policy {
        let home = std::env::var_os("HOME").map(PathBuf::from);
        let hidden = hidden_paths(
            home.as_deref(),
            &|name| std::env::var(name).ok(),
            extra_hidden,
            &[workspace, temp_dir],
        );
        Policy {
            workspace: workspace.to_path_buf(),
            temp_dir: temp_dir.to_path_buf(),
            writable: Vec::new(),
            read_only: read_only_for_commands(workspace),
            hidden,
            allow_network: false,
            simulate_missing: None,
        }
    }

    /// Refreshes the read-only list (a protected path created since the last command).
    pub fn refresh_read_only(&mut self) {
        self.read_only = read_only_for_commands(&self.workspace);
    }

    fn writable_roots(&self) -> Vec<&Path> {
        let mut roots = vec![self.workspace.as_path(), self.temp_dir.as_path()];
        roots.extend(self.writable.iter().map(PathBuf::as_path));
        roots
    }
}

/// Why the sandbox cannot run a command.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    #[error("the sandbox policy is not valid: {0}")]
    BadPolicy(String),
    #[error("{layer} is not available: {detail}", layer = .layer.name())]
    Unavailable { layer: Layer, detail: String },
    #[error("cannot {action}: {detail}")]
    Setup { action: String, detail: String },
}

/// Whether this build has a sandbox for this operating system at all.
pub const fn supported() -> bool {
    cfg!(target_os = "linux")
}

/// The process that runs `program args` confined by `policy`: `helper` (the mcursor
/// binary) with `sandbox-exec`. The caller sets the environment, directory and pipes.
pub fn command(
    helper: &Path,
    policy: &Policy,
    program: &str,
    args: &[&str],
) -> Result<std::process::Command, SandboxError> {
    let encoded =
        serde_json::to_string(policy).map_err(|e| SandboxError::BadPolicy(e.to_string()))?;
    let mut command = std::process::Command::new(helper);
    command
        .arg("sandbox-exec")
        .arg(encoded)
        .arg("--")
        .arg(program)
        .args(args);
    Ok(command)
}

/// The entry point of `mcursor sandbox-exec POLICY [--inner] -- PROGRAM ARGS...`:
/// returns the exit code to exit with (the command's, or [`SETUP_FAILED`] with a message
/// on stderr). Must run in a single-threaded process.
pub fn exec_main(policy: &str, inner: bool, argv: &[OsString]) -> i32 {
    let policy: Policy = match serde_json::from_str(policy) {
        Ok(policy) => policy,
        Err(e) => return setup_failed(&SandboxError::BadPolicy(e.to_string())),
    };
    if argv.is_empty() {
        return setup_failed(&SandboxError::BadPolicy("no command to run".into()));
    }
    run_stage(&policy, inner, argv)
}

#[cfg(target_os = "linux")]
fn run_stage(policy: &Policy, inner: bool, argv: &[OsString]) -> i32 {
    let result = if inner {
        linux::inner(policy, argv)
    } else {
        linux::outer(policy, argv)
    };
    result.unwrap_or_else(|e| setup_failed(&e))
}

#[cfg(not(target_os = "linux"))]
fn run_stage(_policy: &Policy, _inner: bool, _argv: &[OsString]) -> i32 {
    setup_failed(&SandboxError::Unavailable {
        layer: Layer::Namespaces,
        detail: format!("mcursor has no sandbox for {} yet", std::env::consts::OS),
    })
}

fn setup_failed(error: &SandboxError) -> i32 {
    eprintln!("{MESSAGE_PREFIX} {error}; the command did not run");
    SETUP_FAILED
}

/// Processes on this machine with an argument equal to `arg`. A command's PID inside the
/// sandbox is its namespace's, so whether something outlived a command is checked by a
/// unique argument (the doctor and the tests do).
pub fn processes_with_arg(arg: &str) -> usize {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .filter(|cmdline| cmdline.split(|b| *b == 0).any(|a| a == arg.as_bytes()))
        .count()
}

/// What this machine offers each layer, for `mcursor sandbox doctor`.
#[derive(Clone, Debug)]
pub struct LayerReport {
    pub layer: Layer,
    /// Whether the layer can be enforced.
    pub available: bool,
    pub detail: String,
}

/// The kernel's support for each layer, read without starting a sandbox.
pub fn kernel_support() -> Vec<LayerReport> {
    #[cfg(target_os = "linux")]
    {
        linux::kernel_support()
    }
    #[cfg(not(target_os = "linux"))]
    {
        Layer::ALL
            .into_iter()
            .map(|layer| LayerReport {
                layer,
                available: false,
                detail: format!("not implemented on {}", std::env::consts::OS),
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_helper_command_carries_the_policy_and_the_program() {
        let policy = Policy {
            workspace: "/w".into(),
            temp_dir: "/t".into(),
            writable: vec![],
            read_only: vec!["/w/.git/config".into()],
            hidden: vec![],
            allow_network: false,
            simulate_missing: None,
        };
        let command =
            command(Path::new("/bin/mcursor"), &policy, "sh", &["-c", "ls"]).expect("command");
        let args: Vec<String> = command
            .get_args()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(args[0], "sandbox-exec");
        assert_eq!(args[2..], ["--", "sh", "-c", "ls"]);
        let decoded: Policy = serde_json::from_str(&args[1]).expect("policy");
        assert_eq!(decoded, policy);
        assert_eq!(policy.writable_roots(), [Path::new("/w"), Path::new("/t")]);
    }

    #[test]
    fn a_bad_policy_fails_closed() {
        assert_eq!(exec_main("{", false, &["true".into()]), SETUP_FAILED);
        assert_eq!(
            exec_main(
                r#"{"workspace":"/","temp_dir":"/tmp","writable":[],"read_only":[],"hidden":[],"allow_network":false}"#,
                false,
                &[]
            ),
            SETUP_FAILED
        );
    }
}
