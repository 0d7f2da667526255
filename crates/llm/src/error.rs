//! Errors of the model client. Each variant's doc says how an agent loop should react.

use std::time::Duration;

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// No model is configured. Stop and show the message (it says what to set).
    #[error("{0}")]
    NotConfigured(String),
    /// The server refused the request for good (400, 401, 403, 404, …): not retried.
    /// Stop the turn and show the server's message.
    #[error("{}", http_message(*status, message))]
    Http { status: u16, message: String },
    /// The server could not be reached or the connection broke. Retried; after the last
    /// attempt, stop the turn.
    #[error("cannot reach the model server: {0}")]
    Connection(String),
    /// Nothing that moves the response on (text, a tool call's piece, the end) arrived
    /// for the idle timeout: silence, keep-alives or empty deltas alike. Retried.
    #[error("the model server sent nothing new for {0:?}")]
    IdleTimeout(Duration),
    /// Nothing of the reply arrived within the first-byte timeout (a slow server still
    /// reading a long prompt, say). Not retried: the same request would wait as long
    /// again. Stop the turn; the message says which setting gives more time.
    #[error(
        "the model sent nothing within {0:?} of the request (the first-byte timeout; a slow local model may need more: --first-byte-timeout SECONDS or first_byte_timeout in the config)"
    )]
    FirstByteTimeout(Duration),
    /// The stream ended without a `finish_reason` or `[DONE]`: the message may be cut
    /// short, so the whole request is retried.
    #[error("the model's stream ended before the message was complete")]
    Incomplete,
    /// A stream chunk was not the JSON the protocol describes. Retried.
    #[error("malformed response from the model server: {0}")]
    Malformed(String),
    /// The server reported an error inside the stream. Retried.
    #[error("the model server reported an error mid-stream: {0}")]
    InStream(String),
    /// The response broke a limit (an event or a response too large, the response
    /// timeout): a server this broken is not retried. Stop the turn.
    #[error("the model's response was refused: {0}")]
    Limit(String),
    /// Retryable failures went on past the last attempt. Stop the turn.
    #[error("gave up after {attempts} attempts; the last error: {last}")]
    RetriesExhausted { attempts: u32, last: Box<LlmError> },
}

fn http_message(status: u16, message: &str) -> String {
    let hint = match status {
        401 => " (check MCURSOR_API_KEY)",
        403 => " (the key may not allow this model)",
        404 => " (check MCURSOR_BASE_URL and MCURSOR_MODEL)",
        _ => "",
    };
    format!("the model server answered {status}{hint}: {message}")
}

impl LlmError {
    /// Whether sending the same request again may succeed.
    pub fn is_retryable(&self) -> bool {
        match self {
            LlmError::Http { status, .. } => matches!(status, 408 | 409 | 429) || *status >= 500,
            LlmError::Connection(_)
            | LlmError::IdleTimeout(_)
            | LlmError::Incomplete
            | LlmError::Malformed(_)
            | LlmError::InStream(_) => true,
            LlmError::NotConfigured(_)
            | LlmError::FirstByteTimeout(_)
            | LlmError::Limit(_)
            | LlmError::RetriesExhausted { .. } => false,
        }
    }
}
