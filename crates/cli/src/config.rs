//! The user's defaults for `mcursor ask`, from a TOML file: `$MCURSOR_CONFIG`, else
//! `$XDG_CONFIG_HOME/mcursor/config.toml`, else `~/.config/mcursor/config.toml`. Flags
//! beat environment variables, which beat the file.

use std::path::PathBuf;

use anyhow::{Context, Result};
use serde::Deserialize;

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AskDefaults {
    pub preset: Option<String>,
    pub base_url: Option<String>,
    pub model: Option<String>,
    pub api_key: Option<String>,
    pub context_window: Option<usize>,
    pub max_steps: Option<usize>,
    pub command_timeout: Option<u64>,
    /// Variables commands may see besides PATH, HOME, USER, LANG, LC_*, TERM, TMPDIR,
    /// SHELL and PWD.
    #[serde(default)]
    pub pass_env: Vec<String>,
    /// `"off"` runs commands unconfined (default `"on"`).
    pub sandbox: Option<crate::ask::SandboxSwitch>,
    /// Whether sandboxed commands may open network sockets.
    pub allow_network: Option<bool>,
    /// More directories sandboxed commands may write.
    #[serde(default)]
    pub sandbox_write: Vec<PathBuf>,
    /// `native`, `text` or `auto`: where tool calls are taken from.
    pub tool_calls: Option<String>,
    /// Seconds to wait for a reply's first piece.
    pub first_byte_timeout: Option<u64>,
    /// Seconds a reply may stall once begun.
    pub idle_timeout: Option<u64>,
}

impl AskDefaults {
    pub fn settings(&self) -> mcursor_llm::Settings {
        mcursor_llm::Settings {
            preset: self.preset.clone(),
            base_url: self.base_url.clone(),
            api_key: self.api_key.clone(),
            model: self.model.clone(),
        }
    }
}

fn path() -> Option<PathBuf> {
    if let Some(explicit) = std::env::var_os("MCURSOR_CONFIG") {
        return Some(PathBuf::from(explicit));
    }
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("mcursor").join("config.toml"))
}

/// Where `ask` reads its defaults, and what they look like: for the "no model is
/// configured" message.
pub fn file_hint() -> String {
    let where_ = path().map_or_else(
        || "~/.config/mcursor/config.toml".to_owned(),
        |p| p.display().to_string(),
    );
    format!(
        "Or write them once in {where_} (read when present; flags and environment variables win):\n  \
         base_url = \"https://api.deepseek.com/v1\"\n  model = \"deepseek-chat\"\n  \
         api_key = \"...\"        # or preset = \"deepseek\"\n  \
         # also: context_window, max_steps, command_timeout, tool_calls, first_byte_timeout, idle_timeout, pass_env, sandbox, allow_network, sandbox_write"
    )
}

/// Files of mcursor's own that commands must not read (the config may hold an API key).
pub fn hidden_files() -> Vec<PathBuf> {
    path().into_iter().collect()
}

/// The defaults, or empty ones when there is no file. A file that exists but cannot be
/// read or parsed is an error that names it (a typo should not be silently ignored).
pub fn load() -> Result<AskDefaults> {
    let Some(path) = path() else {
        return Ok(AskDefaults::default());
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(AskDefaults::default()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    toml::from_str(&text)
        .with_context(|| format!("{} is not a valid mcursor config", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_known_keys_and_rejects_typos() {
        let parsed: AskDefaults = toml::from_str(
            "preset = \"ollama\"\nmodel = \"qwen2.5-coder:14b\"\ncontext_window = 32000\npass_env = [\"CARGO_REGISTRY_TOKEN\"]\n",
        )
        .expect("valid");
        assert_eq!(parsed.model.as_deref(), Some("qwen2.5-coder:14b"));
        assert_eq!(parsed.context_window, Some(32000));
        assert_eq!(parsed.pass_env, ["CARGO_REGISTRY_TOKEN"]);
        assert!(toml::from_str::<AskDefaults>("modle = \"x\"").is_err());
    }
}
