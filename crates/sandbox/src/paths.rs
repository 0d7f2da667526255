//! The paths the agent treats specially, in one table each: the workspace's protected
//! paths (a change there runs code later, or changes the agent itself) and the user's
//! credentials (hidden from commands).

use std::path::{Component, Path, PathBuf};

/// How a protected path is named.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Pattern {
    /// This path relative to the workspace root, and everything under it.
    Path(&'static str),
    /// Any file or directory whose name starts with this, at any depth (`.env`,
    /// `.env.local`, `.envrc`), and everything under it.
    NamePrefix(&'static str),
}

/// What a sandboxed command may do to a protected path.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ForCommands {
    /// Mounted read-only inside the sandbox (where it exists when the command starts).
    ReadOnly,
    /// Writable by commands (so `git commit` works); the file tools still always ask.
    Writable,
}

/// One row of the protected-path table.
#[derive(Clone, Copy, Debug)]
pub struct Protected {
    pub pattern: Pattern,
    /// Why a write here needs a person's explicit yes, for the approval prompt.
    pub why: &'static str,
    pub for_commands: ForCommands,
}

/// Writes the file tools always ask about (never under "always" or `--yes`), and what
/// sandboxed commands may not change. More specific rows first: the first match is the
/// reason shown.
pub const PROTECTED: &[Protected] = &[
    Protected {
        pattern: Pattern::Path(".git/config"),
        why: "git runs the programs its config names (core.fsmonitor, core.pager, aliases, filters)",
        for_commands: ForCommands::ReadOnly,
    },
    Protected {
        pattern: Pattern::Path(".git/hooks"),
        why: "git runs hooks on commit, checkout, merge and push",
        for_commands: ForCommands::ReadOnly,
    },
    Protected {
        pattern: Pattern::Path(".git"),
        why: "it is git's own data (history, refs, config)",
        for_commands: ForCommands::Writable,
    },
    Protected {
        pattern: Pattern::Path(".mcursor"),
        why: "it is mcursor's index",
        for_commands: ForCommands::ReadOnly,
    },
    Protected {
        pattern: Pattern::Path(".mcp.json"),
        why: "MCP clients start the servers it lists",
        for_commands: ForCommands::ReadOnly,
    },
    Protected {
        pattern: Pattern::Path(".cursor"),
        why: "Cursor runs the rules and MCP servers it configures",
        for_commands: ForCommands::ReadOnly,
    },
    Protected {
        pattern: Pattern::Path(".vscode"),
        why: "VS Code runs its tasks and settings (some when the folder opens)",
        for_commands: ForCommands::ReadOnly,
    },
    Protected {
        pattern: Pattern::NamePrefix(".env"),
        why: "environment files feed settings and secrets to tools (direnv runs .envrc)",
        for_commands: ForCommands::ReadOnly,
    },
];

/// Why git hooks in a custom hooks directory are protected.
const HOOKS_PATH_WHY: &str = "git runs the hooks in it (core.hooksPath in .git/config)";

/// Why writing `rel` (a path relative to the workspace root) needs a person's explicit
/// yes, or `None` when it does not. `hooks_path` is the repository's `core.hooksPath`
/// relative to the root, when it has one inside the workspace.
pub fn protected_reason(rel: &Path, hooks_path: Option<&Path>) -> Option<&'static str> {
    if hooks_path.is_some_and(|hooks| rel.starts_with(hooks)) {
        return Some(HOOKS_PATH_WHY);
    }
    // Case-insensitive file systems (macOS, Windows) open `.GIT/config` as `.git/config`.
    let lower = PathBuf::from(rel.to_string_lossy().to_ascii_lowercase());
    let rel = lower.as_path();
    PROTECTED.iter().find_map(|row| {
        let hit = match row.pattern {
            Pattern::Path(path) => rel.starts_with(path),
            Pattern::NamePrefix(prefix) => rel.components().any(|c| match c {
                Component::Normal(name) => name.to_string_lossy().starts_with(prefix),
                _ => false,
            }),
        };
        hit.then_some(row.why)
    })
}

/// The repository's `core.hooksPath`, relative to `workspace`, when `.git/config` sets
/// one inside the workspace (husky and friends put hooks in `.husky/`).
pub fn hooks_path(workspace: &Path) -> Option<PathBuf> {
    let config = std::fs::read(workspace.join(".git/config")).ok()?;
    let config = String::from_utf8_lossy(&config);
    let mut in_core = false;
    let mut found = None;
    for line in config.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_core = line.to_ascii_lowercase().starts_with("[core");
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_core && key.trim().eq_ignore_ascii_case("hookspath") {
            found = Some(value.trim().trim_matches('"').to_owned());
        }
    }
    let value = PathBuf::from(found?);
    let absolute = if value.is_absolute() {
        value
    } else {
        workspace.join(value)
    };
    let relative = absolute.strip_prefix(workspace).ok()?;
    // `..` would leave the workspace; such a directory is outside what commands can write.
    (!relative
        .components()
        .any(|c| matches!(c, Component::ParentDir)))
    .then(|| relative.to_path_buf())
}

/// The protected paths of `workspace` that exist now and that commands may only read:
/// the top level's `.env*` files, the rows of [`PROTECTED`], and `core.hooksPath`.
pub fn read_only_for_commands(workspace: &Path) -> Vec<PathBuf> {
    let mut paths = Vec::new();
    for row in PROTECTED {
        if row.for_commands != ForCommands::ReadOnly {
            continue;
        }
        match row.pattern {
            Pattern::Path(path) => paths.push(workspace.join(path)),
            // Only the top level: walking the tree for every command would cost too much.
            Pattern::NamePrefix(prefix) => {
                if let Ok(entries) = std::fs::read_dir(workspace) {
                    paths.extend(
                        entries
                            .flatten()
                            .filter(|e| e.file_name().to_string_lossy().starts_with(prefix))
                            .map(|e| e.path()),
                    );
                }
            }
        }
    }
    if let Some(hooks) = hooks_path(workspace) {
        paths.push(workspace.join(hooks));
    }
    // A symbolic link is judged by where it points: a link to outside needs no mount.
    paths.retain(|p| {
        p.symlink_metadata()
            .is_ok_and(|m| !m.file_type().is_symlink())
    });
    paths.sort();
    paths.dedup();
    paths
}

/// Credentials under the home directory that commands never see (they appear empty).
pub const HIDDEN_IN_HOME: &[&str] = &[
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker",
    ".netrc",
    ".git-credentials",
    ".npmrc",
    ".yarnrc.yml",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/gh",
    ".config/hub",
    ".config/mcursor",
    ".terraform.d",
    ".vault-token",
    ".password-store",
    ".local/share/keyrings",
    ".mozilla",
    ".config/google-chrome",
    ".config/chromium",
];

/// System files and sockets that hold or grant secrets: password hashes, the user's
/// session bus and keyrings (`/run/user`), container engines (root-equivalent).
pub const HIDDEN_SYSTEM: &[&str] = &[
    "/etc/shadow",
    "/etc/gshadow",
    "/etc/shadow-",
    "/etc/gshadow-",
    "/run/user",
    "/run/docker.sock",
    "/var/run/docker.sock",
    "/run/containerd/containerd.sock",
    "/run/podman/podman.sock",
];

/// Every credential path that exists on this machine, given the home directory, the
/// environment (`SSH_AUTH_SOCK`, `XDG_RUNTIME_DIR`, `GNUPGHOME`) and files the caller
/// adds (its own config file). Paths that contain one of `keep` (the workspace, the
/// temporary directory) are left out: hiding them would hide the work.
pub fn hidden_paths(
    home: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
    extra: &[PathBuf],
    keep: &[&Path],
) -> Vec<PathBuf> {
    let mut paths: Vec<PathBuf> = HIDDEN_SYSTEM.iter().map(PathBuf::from).collect();
    if let Some(home) = home {
        paths.extend(HIDDEN_IN_HOME.iter().map(|p| home.join(p)));
    }
    for variable in ["SSH_AUTH_SOCK", "XDG_RUNTIME_DIR", "GNUPGHOME"] {
        if let Some(value) = env(variable).filter(|v| Path::new(v).is_absolute()) {
            paths.push(PathBuf::from(value));
        }
    }
    // The machine's private SSH host keys.
    if let Ok(entries) = std::fs::read_dir("/etc/ssh") {
        paths.extend(
            entries
                .flatten()
                .filter(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.starts_with("ssh_host_") && name.ends_with("_key")
                })
                .map(|e| e.path()),
        );
    }
    paths.extend(extra.iter().cloned());
    paths.retain(|p| {
        p.symlink_metadata().is_ok() && !keep.iter().any(|k| k.starts_with(p) || p == k)
    });
    paths.sort();
    paths.dedup();
    paths
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn protected_paths_give_the_most_specific_reason() {
        let why = |p: &str| protected_reason(Path::new(p), Some(Path::new(".husky")));
        assert!(why(".git/config").is_some_and(|w| w.contains("fsmonitor")));
        assert!(why(".git/hooks/pre-commit").is_some_and(|w| w.contains("hooks")));
        assert!(why(".git/HEAD").is_some_and(|w| w.contains("git's own data")));
        assert!(why(".vscode/tasks.json").is_some());
        assert!(why(".mcp.json").is_some());
        assert!(why(".env").is_some() && why("api/.env.local").is_some());
        assert!(why(".envrc").is_some());
        assert!(why(".GIT/Config").is_some_and(|w| w.contains("fsmonitor")));
        assert!(why(".husky/pre-commit").is_some_and(|w| w.contains("hooksPath")));
        assert_eq!(why("src/environment.rs"), None);
        assert_eq!(why(".gitignore"), None);
        assert_eq!(why(".github/workflows/ci.yml"), None);
        assert_eq!(why("docs/.mcp.json.md"), None);
    }

    #[test]
    fn hooks_path_is_read_from_the_core_section_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join(".git")).expect("mkdir");
        let config = dir.path().join(".git/config");
        std::fs::write(&config, "[core]\n\tbare = false\n").expect("write");
        assert_eq!(hooks_path(dir.path()), None);
        std::fs::write(
            &config,
            "[alias]\n\thooksPath = nope\n[core]\n\thooksPath = .husky/_\n",
        )
        .expect("write");
        assert_eq!(hooks_path(dir.path()), Some(PathBuf::from(".husky/_")));
        std::fs::write(&config, "[core]\n\thooksPath = ../elsewhere\n").expect("write");
        assert_eq!(hooks_path(dir.path()), None);
    }

    #[test]
    fn read_only_paths_are_the_existing_protected_ones() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join(".git/hooks")).expect("mkdir");
        std::fs::write(root.join(".git/config"), "[core]\n").expect("write");
        std::fs::write(root.join(".env.local"), "A=1").expect("write");
        std::fs::write(root.join("main.rs"), "").expect("write");
        let paths = read_only_for_commands(root);
        assert_eq!(
            paths,
            vec![
                root.join(".env.local"),
                root.join(".git/config"),
                root.join(".git/hooks")
            ]
        );
    }

    #[test]
    fn hidden_paths_keep_the_workspace_visible() {
        let dir = tempfile::tempdir().expect("tempdir");
        let home = dir.path();
        std::fs::create_dir_all(home.join(".ssh")).expect("mkdir");
        std::fs::create_dir_all(home.join(".aws/project")).expect("mkdir");
        let env = |name: &str| (name == "SSH_AUTH_SOCK").then(|| "relative/sock".to_owned());
        let workspace = home.join(".aws/project");
        let paths = hidden_paths(Some(home), &env, &[], &[&workspace]);
        assert!(paths.contains(&home.join(".ssh")), "{paths:?}");
        assert!(!paths.contains(&home.join(".aws")), "{paths:?}");
        assert!(!paths.iter().any(|p| p.ends_with("relative/sock")));
    }
}
