//! Which model to talk to: settings from flags, the environment and presets, layered.

use std::time::Duration;

use crate::error::LlmError;
use crate::retry::RetryPolicy;

/// A known provider: where it listens, a sensible default model, and where its models'
/// tool calls come from.
#[derive(Clone, Copy, Debug)]
pub struct Preset {
    pub name: &'static str,
    pub base_url: &'static str,
    pub model: &'static str,
    pub needs_key: bool,
    /// `native`, `text` or `auto` (the agent's tool-call modes): hosted models call tools
    /// natively; small local ones often write their calls as text.
    pub tool_calls: &'static str,
    /// The default model's context window in tokens; `None`: ask the server.
    pub context_window: Option<usize>,
}

pub const PRESETS: [Preset; 4] = [
    Preset {
        name: "openai",
        base_url: "https://api.openai.com/v1",
        model: "gpt-4o-mini",
        needs_key: true,
        tool_calls: "native",
        context_window: Some(128_000),
    },
    Preset {
        name: "deepseek",
        base_url: "https://api.deepseek.com/v1",
        model: "deepseek-chat",
        needs_key: true,
        tool_calls: "native",
        context_window: Some(64_000),
    },
    Preset {
        name: "ollama",
        base_url: "http://localhost:11434/v1",
        model: "qwen2.5-coder",
        needs_key: false,
        tool_calls: "auto",
        context_window: None,
    },
    Preset {
        name: "llamacpp",
        base_url: "http://127.0.0.1:8080/v1",
        model: "local",
        needs_key: false,
        tool_calls: "auto",
        context_window: None,
    },
];

impl Preset {
    pub fn named(name: &str) -> Option<&'static Preset> {
        PRESETS
            .iter()
            .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
    }
}

/// One layer of settings (command-line flags, environment, a config file); unset fields
/// fall through to the next layer.
#[derive(Clone, Debug, Default)]
pub struct Settings {
    pub preset: Option<String>,
    pub base_url: Option<String>,
    pub api_key: Option<String>,
    pub model: Option<String>,
}

impl Settings {
    /// `MCURSOR_PRESET`, `MCURSOR_BASE_URL`, `MCURSOR_API_KEY`, `MCURSOR_MODEL`.
    pub fn from_env(get: impl Fn(&str) -> Option<String>) -> Settings {
        let var = |name: &str| get(name).filter(|v| !v.trim().is_empty());
        Settings {
            preset: var("MCURSOR_PRESET"),
            base_url: var("MCURSOR_BASE_URL"),
            api_key: var("MCURSOR_API_KEY"),
            model: var("MCURSOR_MODEL"),
        }
    }
}

#[derive(Clone, Debug)]
pub struct ModelConfig {
    /// Up to and including the version segment: `https://api.deepseek.com/v1`.
    pub base_url: String,
    pub api_key: Option<String>,
    pub model: String,
    pub connect_timeout: Duration,
    /// The longest wait from sending a request to the reply's first piece (a slow
    /// server reads the whole prompt first).
    pub first_byte_timeout: Duration,
    /// The longest time without progress inside a streamed response, once it began.
    pub idle_timeout: Duration,
    /// The longest one response may stream, however steadily.
    pub response_timeout: Duration,
    pub retry: RetryPolicy,
}

const NOT_CONFIGURED: &str = "no model is configured. Set MCURSOR_BASE_URL (an OpenAI-compatible \
endpoint such as https://api.openai.com/v1, https://api.deepseek.com/v1 or a local Ollama at \
http://localhost:11434/v1), MCURSOR_MODEL (e.g. gpt-4o-mini, deepseek-chat, qwen2.5-coder) and, \
for hosted services, MCURSOR_API_KEY; or pick a preset with MCURSOR_PRESET=openai|deepseek|ollama|llamacpp \
(the same as --base-url, --model and --preset).";

impl ModelConfig {
    /// The first layer that sets a field wins; a preset (from any layer) fills what no
    /// layer set.
    pub fn resolve(layers: &[Settings]) -> Result<ModelConfig, LlmError> {
        let pick = |field: fn(&Settings) -> &Option<String>| {
            layers.iter().find_map(|layer| field(layer).clone())
        };
        let preset = match pick(|s| &s.preset) {
            Some(name) => Some(Preset::named(&name).ok_or_else(|| {
                LlmError::NotConfigured(format!(
                    "unknown preset `{name}`; one of: {}",
                    PRESETS.map(|p| p.name).join(", ")
                ))
            })?),
            None => None,
        };
        let base_url = pick(|s| &s.base_url).or_else(|| preset.map(|p| p.base_url.to_owned()));
        let model = pick(|s| &s.model).or_else(|| preset.map(|p| p.model.to_owned()));
        let (Some(base_url), Some(model)) = (base_url, model) else {
            return Err(LlmError::NotConfigured(NOT_CONFIGURED.to_owned()));
        };
        let api_key = pick(|s| &s.api_key);
        if api_key.is_none() && preset.is_some_and(|p| p.needs_key) {
            return Err(LlmError::NotConfigured(format!(
                "the {} preset needs an API key: set MCURSOR_API_KEY",
                preset.map_or("", |p| p.name)
            )));
        }
        Ok(ModelConfig {
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key,
            model,
            connect_timeout: Duration::from_secs(10),
            first_byte_timeout: Duration::from_secs(600),
            idle_timeout: Duration::from_secs(120),
            response_timeout: Duration::from_secs(15 * 60),
            retry: RetryPolicy::default(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(pairs: &[(&str, &str)]) -> Settings {
        let pairs: Vec<(String, String)> = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Settings::from_env(|name| {
            pairs
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.clone())
        })
    }

    #[test]
    fn layers_presets_and_the_unconfigured_message() {
        let err = ModelConfig::resolve(&[Settings::default()]).expect_err("nothing set");
        assert!(err.to_string().contains("MCURSOR_BASE_URL"), "{err}");

        let ollama =
            ModelConfig::resolve(&[layer(&[("MCURSOR_PRESET", "ollama")])]).expect("preset");
        assert_eq!(ollama.base_url, "http://localhost:11434/v1");
        assert_eq!(ollama.model, "qwen2.5-coder");

        let flags = Settings {
            model: Some("deepseek-reasoner".into()),
            ..Settings::default()
        };
        let env = layer(&[
            ("MCURSOR_PRESET", "deepseek"),
            ("MCURSOR_API_KEY", "k"),
            ("MCURSOR_MODEL", "x"),
        ]);
        let config = ModelConfig::resolve(&[flags, env]).expect("layered");
        assert_eq!(config.model, "deepseek-reasoner");
        assert_eq!(config.base_url, "https://api.deepseek.com/v1");

        let keyless = ModelConfig::resolve(&[layer(&[("MCURSOR_PRESET", "openai")])]);
        assert!(
            keyless
                .expect_err("needs a key")
                .to_string()
                .contains("MCURSOR_API_KEY")
        );
        let unknown = ModelConfig::resolve(&[layer(&[("MCURSOR_PRESET", "nope")])]);
        assert!(
            unknown
                .expect_err("unknown")
                .to_string()
                .contains("openai, deepseek, ollama")
        );
    }
}
