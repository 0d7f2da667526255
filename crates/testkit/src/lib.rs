//! mcursor-testkit: a scripted OpenAI-compatible chat server for tests. It listens on
//! 127.0.0.1 (a free port), answers `POST …/chat/completions` with the next scripted
//! [`Reply`] (real HTTP/1.1, real server-sent events, pieces written separately and paused
//! between, or cut off mid-stream), and records every request for assertions.
//!
//! Dev-only: no crate depends on it outside `[dev-dependencies]`.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::stream;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;

/// One scripted answer.
#[derive(Clone, Debug)]
pub enum Reply {
    /// `200 text/event-stream`: the bytes of `pieces` written one by one, `pause` apart.
    /// With `cut_after: Some(n)`, the connection is dropped after `n` pieces, mid-body.
    Stream {
        pieces: Vec<Vec<u8>>,
        pause: Duration,
        cut_after: Option<usize>,
    },
    /// Any status with headers and a body (errors, `Retry-After`).
    Status {
        status: u16,
        headers: Vec<(String, String)>,
        body: String,
    },
}

impl Reply {
    /// A stream of SSE events, each event its own piece.
    pub fn events(events: &[String]) -> Reply {
        Reply::Stream {
            pieces: events.iter().map(|e| sse(e).into_bytes()).collect(),
            pause: Duration::ZERO,
            cut_after: None,
        }
    }

    /// The same events as one byte string split every `size` bytes, across event, line and
    /// UTF-8 character boundaries alike.
    pub fn events_in_pieces(events: &[String], size: usize) -> Reply {
        let all: Vec<u8> = events.iter().flat_map(|e| sse(e).into_bytes()).collect();
        Reply::Stream {
            pieces: all.chunks(size.max(1)).map(<[u8]>::to_vec).collect(),
            pause: Duration::ZERO,
            cut_after: None,
        }
    }

    /// Raw bytes, written piece by piece (for streams that break the protocol).
    pub fn raw(pieces: Vec<Vec<u8>>) -> Reply {
        Reply::Stream {
            pieces,
            pause: Duration::ZERO,
            cut_after: None,
        }
    }

    /// The events, with the connection dropped after the first `keep` of them.
    pub fn cut(events: &[String], keep: usize) -> Reply {
        match Reply::events(events) {
            Reply::Stream { pieces, pause, .. } => Reply::Stream {
                pieces,
                pause,
                cut_after: Some(keep),
            },
            other => other,
        }
    }

    pub fn status(status: u16, body: &str) -> Reply {
        Reply::Status {
            status,
            headers: Vec::new(),
            body: body.to_owned(),
        }
    }

    pub fn with_header(self, name: &str, value: &str) -> Reply {
        match self {
            Reply::Status {
                status,
                mut headers,
                body,
            } => {
                headers.push((name.to_owned(), value.to_owned()));
                Reply::Status {
                    status,
                    headers,
                    body,
                }
            }
            other => other,
        }
    }

    pub fn with_pause(self, pause: Duration) -> Reply {
        match self {
            Reply::Stream {
                pieces, cut_after, ..
            } => Reply::Stream {
                pieces,
                pause,
                cut_after,
            },
            other => other,
        }
    }
}

fn sse(data: &str) -> String {
    format!("data: {data}\n\n")
}

/// The chunk JSON of an OpenAI-compatible stream.
pub mod chunk {
    use super::{Value, json};

    fn choice(delta: Value, finish: Option<&str>) -> String {
        json!({
            "id": "chatcmpl-test",
            "object": "chat.completion.chunk",
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }]
        })
        .to_string()
    }

    pub fn text(content: &str) -> String {
        choice(json!({ "role": "assistant", "content": content }), None)
    }

    /// The first piece of tool call `index`: its id and name, and maybe some arguments.
    pub fn tool_call_start(index: usize, id: &str, name: &str, arguments: &str) -> String {
        choice(
            json!({ "tool_calls": [{
                "index": index, "id": id, "type": "function",
                "function": { "name": name, "arguments": arguments }
            }]}),
            None,
        )
    }

    /// A later piece of tool call `index`'s arguments.
    pub fn tool_call_arguments(index: usize, arguments: &str) -> String {
        choice(
            json!({ "tool_calls": [{ "index": index, "function": { "arguments": arguments } }] }),
            None,
        )
    }

    pub fn finish(reason: &str) -> String {
        choice(json!({}), Some(reason))
    }

    pub fn done() -> String {
        "[DONE]".to_owned()
    }
}

/// A request the server received.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub path: String,
    pub authorization: Option<String>,
    /// The JSON body (`Value::Null` if it was not JSON).
    pub body: Value,
}

struct State {
    script: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
    /// Answers to other paths (`/props`, `/api/show`): JSON by path.
    pages: Mutex<std::collections::HashMap<String, Value>>,
}

/// A running scripted server; it stops when dropped.
pub struct ScriptedServer {
    /// Base URL to give a client, e.g. `http://127.0.0.1:41234/v1`.
    pub base_url: String,
    state: Arc<State>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for ScriptedServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

type Body = BoxBody<Bytes, std::io::Error>;

fn respond(reply: Reply) -> Response<Body> {
    match reply {
        Reply::Status {
            status,
            headers,
            body,
        } => {
            let mut response = Response::new(
                Full::new(Bytes::from(body))
                    .map_err(|never: Infallible| match never {})
                    .boxed(),
            );
            *response.status_mut() =
                StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
            for (name, value) in headers {
                if let (Ok(name), Ok(value)) = (
                    hyper::header::HeaderName::from_bytes(name.as_bytes()),
                    hyper::header::HeaderValue::from_str(&value),
                ) {
                    response.headers_mut().insert(name, value);
                }
            }
            response
        }
        Reply::Stream {
            pieces,
            pause,
            cut_after,
        } => {
            let limit = cut_after.unwrap_or(pieces.len());
            let cut = cut_after.is_some();
            let frames = stream::unfold(
                (pieces.into_iter(), 0usize),
                move |(mut rest, sent)| async move {
                    if sent == limit {
                        // An error frame makes hyper drop the connection mid-body.
                        return cut.then(|| {
                            (Err(std::io::Error::other("scripted cut")), (rest, sent + 1))
                        });
                    }
                    let piece = rest.next()?;
                    if !pause.is_zero() {
                        tokio::time::sleep(pause).await;
                    }
                    Some((Ok(Frame::data(Bytes::from(piece))), (rest, sent + 1)))
                },
            );
            let mut response = Response::new(StreamBody::new(frames).boxed());
            response.headers_mut().insert(
                hyper::header::CONTENT_TYPE,
                hyper::header::HeaderValue::from_static("text/event-stream"),
            );
            response
        }
    }
}

async fn handle(
    request: Request<Incoming>,
    state: Arc<State>,
) -> Result<Response<Body>, Infallible> {
    let path = request.uri().path().to_owned();
    // The script answers chat completions, and only those are recorded; anything else
    // (a client asking `/props` for the context window) finds a server that does not
    // know the path.
    if !path.ends_with("/chat/completions") {
        let page = state.pages.lock().ok().and_then(|p| p.get(&path).cloned());
        return Ok(respond(match page {
            Some(json) => Reply::status(200, &json.to_string()),
            None => Reply::status(404, r#"{"error":{"message":"not found"}}"#),
        }));
    }
    let authorization = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let bytes = match request.into_body().collect().await {
        Ok(collected) => collected.to_bytes(),
        Err(_) => Bytes::new(),
    };
    let body = serde_json::from_slice(&bytes).unwrap_or(Value::Null);
    if let Ok(mut requests) = state.requests.lock() {
        requests.push(Recorded {
            path,
            authorization,
            body,
        });
    }
    let next = state.script.lock().ok().and_then(|mut s| s.pop_front());
    Ok(respond(next.unwrap_or_else(|| {
        Reply::status(
            500,
            r#"{"error":{"message":"the test script has no more replies"}}"#,
        )
    })))
}

impl ScriptedServer {
    /// Starts serving `script` on 127.0.0.1 (one reply per request, in order).
    ///
    /// # Panics
    /// When no local port can be bound: a test cannot run without one.
    #[allow(clippy::expect_used)]
    pub async fn start(script: Vec<Reply>) -> ScriptedServer {
        let listener = TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind 127.0.0.1");
        let address = listener.local_addr().expect("local address");
        let state = Arc::new(State {
            script: Mutex::new(script.into()),
            requests: Mutex::new(Vec::new()),
            pages: Mutex::new(std::collections::HashMap::new()),
        });
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = shared.clone();
                tokio::spawn(async move {
                    let service = service_fn(move |request| handle(request, state.clone()));
                    let _ = http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service)
                        .await;
                });
            }
        });
        ScriptedServer {
            base_url: format!("http://{address}/v1"),
            state,
            task,
        }
    }

    /// Answers `path` (`/props`, `/api/show`) with `json` from now on, as llama.cpp or
    /// Ollama describe themselves.
    pub fn serve_json(&self, path: &str, json: Value) {
        if let Ok(mut pages) = self.state.pages.lock() {
            pages.insert(path.to_owned(), json);
        }
    }

    /// Every chat-completion request received so far, in order.
    pub fn requests(&self) -> Vec<Recorded> {
        self.state
            .requests
            .lock()
            .map(|r| r.clone())
            .unwrap_or_default()
    }
}
