//! mcursor-llm owns the conversation with a model: an OpenAI-compatible
//! `/chat/completions` client that always streams (server-sent events parsed in one pass
//! over reqwest's byte stream), turns text and tool-call deltas into
//! [`Event`]s as they arrive, assembles tool calls by their `index`, and returns one
//! [`Completion`].
//!
//! Reliability: a request is retried as a whole (never resumed) on connection errors,
//! 408/409/429/5xx (no sooner than `Retry-After`, seconds or HTTP date), an idle stream, a
//! malformed chunk, an in-stream error, or a stream that ends without `finish_reason` or
//! `[DONE]`; exponential backoff with full jitter. 400/401/403/404 are not retried and
//! carry the server's message. The caller runs tools only with a finished
//! [`Completion`], so a retried request never re-runs a tool.
//!
//! Limits against a broken or hostile server: one event is at most [`MAX_EVENT_BYTES`],
//! one response at most [`MAX_RESPONSE_BYTES`] and [`ModelConfig::response_timeout`].
//! Until the reply's first *progress* (text, a tool call's piece, the end) the
//! first-byte timeout governs, with an [`Event::Waiting`] every few seconds (a slow server
//! reads the prompt first; not retried when it passes); after it, the idle timeout counts
//! from the last progress, so a stream of empty deltas or keep-alives is as idle as a
//! silent one. [`Client::server_context_window`] asks the server how large its window is.
//!
//! Boundaries: async (tokio); knows the wire format and nothing about tools, the index or
//! terminals.

mod config;
mod error;
mod retry;
mod sse;
mod stream;
mod types;

use std::time::SystemTime;

use futures_util::StreamExt;

pub use config::{ModelConfig, PRESETS, Preset, Settings};
pub use error::LlmError;
pub use retry::{RetryPolicy, parse_retry_after};
pub use types::{ChatRequest, Completion, Event, FunctionCall, Message, ToolCall, ToolSpec, Usage};

/// The largest server-sent event accepted (a chunk of a response: a few bytes normally).
pub const MAX_EVENT_BYTES: usize = 8 * 1024 * 1024;
/// The most bytes one response may stream.
pub const MAX_RESPONSE_BYTES: usize = 64 * 1024 * 1024;

/// A configured model client; cheap to clone and share.
#[derive(Clone, Debug)]
pub struct Client {
    http: reqwest::Client,
    config: ModelConfig,
}

/// One attempt's failure and how long the server asked us to wait.
struct Failure {
    error: LlmError,
    retry_after: Option<std::time::Duration>,
}

impl From<LlmError> for Failure {
    fn from(error: LlmError) -> Self {
        Failure {
            error,
            retry_after: None,
        }
    }
}

/// The server's own words from an error body (`{"error":{"message":…}}` or plain text).
fn server_message(body: &str) -> String {
    let parsed: Option<serde_json::Value> = serde_json::from_str(body).ok();
    let message = parsed.as_ref().and_then(|v| {
        v.pointer("/error/message")
            .or_else(|| v.get("error"))
            .or_else(|| v.get("message"))
            .and_then(|m| m.as_str().map(str::to_owned))
    });
    let text = message.unwrap_or_else(|| body.trim().to_owned());
    if text.is_empty() {
        "(no message)".to_owned()
    } else {
        text.chars().take(500).collect()
    }
}

impl Client {
    pub fn new(config: ModelConfig) -> Result<Client, LlmError> {
        let http = reqwest::Client::builder()
            .connect_timeout(config.connect_timeout)
            .user_agent(concat!("mcursor/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| LlmError::Connection(e.to_string()))?;
        Ok(Client { http, config })
    }

    pub fn config(&self) -> &ModelConfig {
        &self.config
    }

    fn body(&self, request: &ChatRequest) -> serde_json::Value {
        let mut body = serde_json::json!({
            "model": self.config.model,
            "messages": request.messages,
            "stream": true,
            // The token counts come in a last chunk only when asked for.
            "stream_options": {"include_usage": true},
        });
        if !request.tools.is_empty() {
            body["tools"] = serde_json::json!(request.tools);
        }
        if let Some(t) = request.temperature {
            body["temperature"] = serde_json::json!(t);
        }
        body
    }

    /// Streams one completion, calling `on_event` as pieces arrive, retrying the whole
    /// request on retryable failures (announced by [`Event::Retrying`]).
    pub async fn complete(
        &self,
        request: &ChatRequest,
        on_event: &mut (dyn FnMut(Event) + Send),
    ) -> Result<Completion, LlmError> {
        let body = self.body(request);
        let policy = &self.config.retry;
        let mut attempt = 1;
        loop {
            let failure = match self.attempt(&body, on_event).await {
                Ok(completion) => return Ok(completion),
                Err(failure) => failure,
            };
            if !failure.error.is_retryable() {
                return Err(failure.error);
            }
            if attempt >= policy.max_attempts.max(1) {
                return Err(LlmError::RetriesExhausted {
                    attempts: attempt,
                    last: Box::new(failure.error),
                });
            }
            let delay = policy.delay(attempt, failure.retry_after);
            on_event(Event::Retrying {
                attempt,
                delay,
                reason: failure.error.to_string(),
            });
            tokio::time::sleep(delay).await;
            attempt += 1;
        }
    }

    async fn attempt(
        &self,
        body: &serde_json::Value,
        on_event: &mut (dyn FnMut(Event) + Send),
    ) -> Result<Completion, Failure> {
        let url = format!("{}/chat/completions", self.config.base_url);
        let mut request = self.http.post(&url).json(body);
        if let Some(key) = &self.config.api_key {
            request = request.bearer_auth(key);
        }
        // Until the reply's first piece: the first-byte timeout, and a `Waiting` event
        // every few seconds so a person sees that the model is still reading.
        let sent = tokio::time::Instant::now();
        let first_byte_deadline = sent + self.config.first_byte_timeout;
        let mut ticks = tokio::time::interval_at(sent + WAITING_EVERY, WAITING_EVERY);
        let send = request.send();
        tokio::pin!(send);
        let response = loop {
            tokio::select! {
                response = &mut send => break response,
                _ = ticks.tick() => on_event(Event::Waiting { elapsed: sent.elapsed() }),
                () = tokio::time::sleep_until(first_byte_deadline) => {
                    return Err(LlmError::FirstByteTimeout(self.config.first_byte_timeout).into());
                }
            }
        }
        .map_err(|e| LlmError::Connection(describe(&e)))?;
        let status = response.status();
        if !status.is_success() {
            let retry_after = response
                .headers()
                .get(reqwest::header::RETRY_AFTER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| parse_retry_after(v, SystemTime::now()));
            let text = response.text().await.unwrap_or_default();
            return Err(Failure {
                error: LlmError::Http {
                    status: status.as_u16(),
                    message: server_message(&text),
                },
                retry_after,
            });
        }
        let idle = self.config.idle_timeout;
        let deadline = tokio::time::Instant::now() + self.config.response_timeout;
        let mut bytes = response.bytes_stream();
        let mut parser = sse::SseParser::new(MAX_EVENT_BYTES);
        let mut assembler = stream::Assembler::default();
        let mut received = 0usize;
        let mut last_progress: Option<tokio::time::Instant> = None;
        let mut events = Vec::new();
        let mut ended = false;
        while !assembler.done() && !ended {
            // Before the first progress the first-byte timeout governs, then idleness.
            let silence_limit = match last_progress {
                Some(at) => at + idle,
                None => first_byte_deadline,
            };
            let piece = tokio::select! {
                piece = bytes.next() => piece,
                _ = ticks.tick(), if last_progress.is_none() => {
                    on_event(Event::Waiting { elapsed: sent.elapsed() });
                    continue;
                }
                () = tokio::time::sleep_until(silence_limit) => {
                    return Err(match last_progress {
                        Some(_) => LlmError::IdleTimeout(idle),
                        None => LlmError::FirstByteTimeout(self.config.first_byte_timeout),
                    }
                    .into());
                }
                () = tokio::time::sleep_until(deadline) => {
                    return Err(LlmError::Limit(format!(
                        "the response took longer than {:?} (the response timeout)",
                        self.config.response_timeout
                    ))
                    .into());
                }
            };
            match piece {
                None => {
                    parser.finish(&mut events);
                    ended = true;
                }
                Some(Err(e)) => return Err(LlmError::Connection(describe(&e)).into()),
                Some(Ok(piece)) => {
                    received += piece.len();
                    if received > MAX_RESPONSE_BYTES {
                        return Err(LlmError::Limit(format!(
                            "the response passed {MAX_RESPONSE_BYTES} bytes"
                        ))
                        .into());
                    }
                    parser.push(&piece, &mut events).map_err(|e| {
                        LlmError::Limit(format!(
                            "the server sent an event of more than {} bytes",
                            e.limit
                        ))
                    })?;
                }
            }
            for data in events.drain(..) {
                if assembler.feed(&data, on_event)? {
                    last_progress = Some(tokio::time::Instant::now());
                }
            }
        }
        Ok(assembler.finish()?)
    }
}

impl Client {
    /// The context window the server says it runs with, in tokens: llama.cpp's `/props`
    /// (`n_ctx`), or Ollama's `/api/show` (`num_ctx` among its parameters, else the
    /// model's `context_length`). `None` when the server says nothing (hosted APIs).
    pub async fn server_context_window(&self) -> Option<usize> {
        let root = self
            .config
            .base_url
            .trim_end_matches('/')
            .trim_end_matches("/v1")
            .to_owned();
        let get = |request: reqwest::RequestBuilder| async move {
            let response = request
                .timeout(std::time::Duration::from_secs(3))
                .send()
                .await
                .ok()?;
            if !response.status().is_success() {
                return None;
            }
            response.json::<serde_json::Value>().await.ok()
        };
        if let Some(props) = get(self.http.get(format!("{root}/props"))).await
            && let Some(n) = props
                .get("default_generation_settings")
                .and_then(|s| s.get("n_ctx"))
                .or_else(|| props.get("n_ctx"))
                .and_then(serde_json::Value::as_u64)
        {
            return usize::try_from(n).ok().filter(|&n| n > 0);
        }
        let show = self
            .http
            .post(format!("{root}/api/show"))
            .json(&serde_json::json!({ "model": self.config.model }));
        let show = get(show).await?;
        let from_parameters = show
            .get("parameters")
            .and_then(serde_json::Value::as_str)
            .and_then(|p| {
                p.lines().find_map(|line| {
                    let mut words = line.split_whitespace();
                    (words.next() == Some("num_ctx"))
                        .then(|| words.next()?.parse::<usize>().ok())?
                })
            });
        let from_model = show
            .get("model_info")
            .and_then(serde_json::Value::as_object)
            .and_then(|info| {
                info.iter()
                    .find(|(key, _)| key.ends_with(".context_length"))
                    .and_then(|(_, v)| v.as_u64())
            })
            .and_then(|n| usize::try_from(n).ok());
        from_parameters.or(from_model).filter(|&n| n > 0)
    }
}

/// How often a request still waiting for its first piece says so.
const WAITING_EVERY: std::time::Duration = std::time::Duration::from_secs(5);

/// reqwest's error with its causes, which say what actually failed (refused, DNS, TLS).
fn describe(error: &reqwest::Error) -> String {
    let mut text = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}
