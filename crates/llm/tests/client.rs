//! The client against the scripted server: real HTTP and SSE on 127.0.0.1.

use std::time::{Duration, Instant};

use mcursor_llm::{
    ChatRequest, Client, Event, LlmError, Message, ModelConfig, RetryPolicy, ToolSpec,
};
use mcursor_testkit::{Reply, ScriptedServer, chunk};

fn client(base_url: &str) -> Client {
    Client::new(ModelConfig {
        base_url: base_url.to_owned(),
        api_key: Some("test-key".into()),
        model: "scripted-model".into(),
        connect_timeout: Duration::from_secs(2),
        first_byte_timeout: Duration::from_secs(10),
        idle_timeout: Duration::from_millis(300),
        response_timeout: Duration::from_secs(20),
        retry: RetryPolicy {
            max_attempts: 3,
            base_delay: Duration::from_millis(10),
            max_delay: Duration::from_secs(3),
        },
    })
    .expect("client")
}

fn request() -> ChatRequest {
    ChatRequest {
        messages: vec![
            Message::System {
                content: "be brief".into(),
            },
            Message::User {
                content: "where is parse_config?".into(),
            },
        ],
        tools: vec![ToolSpec {
            name: "find_symbol".into(),
            description: "Find definitions".into(),
            parameters: serde_json::json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        }],
        temperature: None,
    }
}

async fn run(client: &Client) -> (Vec<Event>, Result<mcursor_llm::Completion, LlmError>) {
    let mut events = Vec::new();
    let result = client.complete(&request(), &mut |e| events.push(e)).await;
    (events, result)
}

fn answer(text: &str) -> Vec<String> {
    vec![chunk::text(text), chunk::finish("stop"), chunk::done()]
}

#[tokio::test]
async fn text_split_inside_utf8_characters_arrives_whole() {
    let text = "héllo → 世界, ça va? 🦀";
    let server = ScriptedServer::start(vec![Reply::events_in_pieces(&answer(text), 3)]).await;
    let (events, result) = run(&client(&server.base_url)).await;
    let completion = result.expect("completion");
    assert_eq!(completion.content.as_deref(), Some(text));
    assert_eq!(completion.finish_reason, "stop");
    let streamed: String = events
        .iter()
        .map(|e| match e {
            Event::TextDelta(t) => t.as_str(),
            _ => "",
        })
        .collect();
    assert_eq!(streamed, text);

    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(
        requests[0].authorization.as_deref(),
        Some("Bearer test-key")
    );
    let body = &requests[0].body;
    assert_eq!(body["model"], "scripted-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["messages"][1]["role"], "user");
    assert_eq!(body["tools"][0]["function"]["name"], "find_symbol");
}

#[tokio::test]
async fn parallel_tool_calls_assemble_from_one_character_pieces() {
    let first = r#"{"name":"parse_config","kind":"function"}"#;
    let second = r#"{"path":"src/config.rs","start_line":10}"#;
    let mut events = vec![
        chunk::tool_call_start(0, "call_a", "find_symbol", ""),
        chunk::tool_call_start(1, "call_b", "read_file", ""),
    ];
    for (a, b) in first
        .chars()
        .zip(second.chars().chain(std::iter::repeat(' ')))
    {
        events.push(chunk::tool_call_arguments(0, &a.to_string()));
        if b != ' ' {
            events.push(chunk::tool_call_arguments(1, &b.to_string()));
        }
    }
    for b in second.chars().skip(first.len()) {
        events.push(chunk::tool_call_arguments(1, &b.to_string()));
    }
    events.push(chunk::finish("tool_calls"));
    events.push(chunk::done());
    let server = ScriptedServer::start(vec![Reply::events_in_pieces(&events, 7)]).await;
    let (seen, result) = run(&client(&server.base_url)).await;
    let completion = result.expect("completion");
    assert_eq!(completion.finish_reason, "tool_calls");
    let calls: Vec<(&str, &str, &str)> = completion
        .tool_calls
        .iter()
        .map(|c| {
            (
                c.id.as_str(),
                c.function.name.as_str(),
                c.function.arguments.as_str(),
            )
        })
        .collect();
    assert_eq!(
        calls,
        [
            ("call_a", "find_symbol", first),
            ("call_b", "read_file", second)
        ]
    );
    let starts = seen
        .iter()
        .filter(|e| matches!(e, Event::ToolCallStart { .. }))
        .count();
    assert_eq!(starts, 2);
}

#[tokio::test]
async fn rate_limit_waits_for_retry_after() {
    let server = ScriptedServer::start(vec![
        Reply::status(429, r#"{"error":{"message":"slow down"}}"#).with_header("Retry-After", "1"),
        Reply::events(&answer("ok")),
    ])
    .await;
    let started = Instant::now();
    let (events, result) = run(&client(&server.base_url)).await;
    assert_eq!(
        result.expect("second attempt").content.as_deref(),
        Some("ok")
    );
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    assert!(matches!(
        &events[0],
        Event::Retrying { attempt: 1, delay, reason } if *delay >= Duration::from_secs(1) && reason.contains("429")
    ));
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test]
async fn server_errors_and_cut_streams_are_retried_as_a_whole() {
    let server = ScriptedServer::start(vec![
        Reply::status(500, "upstream exploded"),
        // Half a tool call, then the connection drops.
        Reply::cut(
            &[
                chunk::text("Let me look"),
                chunk::tool_call_start(0, "call_1", "find_symbol", r#"{"na"#),
                chunk::finish("tool_calls"),
            ],
            2,
        ),
        Reply::events(&[
            chunk::tool_call_start(0, "call_2", "find_symbol", r#"{"name":"x"}"#),
            chunk::finish("tool_calls"),
            chunk::done(),
        ]),
    ])
    .await;
    let (events, result) = run(&client(&server.base_url)).await;
    let completion = result.expect("third attempt");
    // Only the last attempt's message: nothing from the cut one survives.
    assert_eq!(completion.content, None);
    assert_eq!(completion.tool_calls.len(), 1);
    assert_eq!(completion.tool_calls[0].id, "call_2");
    assert_eq!(
        completion.tool_calls[0].function.arguments,
        r#"{"name":"x"}"#
    );
    let retries: Vec<u32> = events
        .iter()
        .filter_map(|e| match e {
            Event::Retrying { attempt, .. } => Some(*attempt),
            _ => None,
        })
        .collect();
    assert_eq!(retries, [1, 2]);
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn a_stream_without_an_end_or_that_goes_silent_is_retried() {
    let server = ScriptedServer::start(vec![
        Reply::events(&[chunk::text("never finished")]),
        Reply::events(&answer("late")).with_pause(Duration::from_secs(2)),
        Reply::events(&answer("done")),
    ])
    .await;
    let (events, result) = run(&client(&server.base_url)).await;
    assert_eq!(
        result.expect("third attempt").content.as_deref(),
        Some("done")
    );
    let reasons: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Retrying { reason, .. } => Some(reason.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(reasons.len(), 2, "{reasons:?}");
    assert!(
        reasons[0].contains("before the message was complete"),
        "{reasons:?}"
    );
    assert!(reasons[1].contains("sent nothing"), "{reasons:?}");
}

#[tokio::test]
async fn unauthorized_is_not_retried_and_says_what_to_check() {
    let server = ScriptedServer::start(vec![Reply::status(
        401,
        r#"{"error":{"message":"Incorrect API key provided","type":"invalid_request_error"}}"#,
    )])
    .await;
    let (events, result) = run(&client(&server.base_url)).await;
    let error = result.expect_err("401");
    assert!(matches!(error, LlmError::Http { status: 401, .. }));
    let text = error.to_string();
    assert!(
        text.contains("Incorrect API key provided") && text.contains("MCURSOR_API_KEY"),
        "{text}"
    );
    assert!(events.is_empty());
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn retries_end_after_the_last_attempt() {
    let server = ScriptedServer::start(vec![
        Reply::status(503, "busy"),
        Reply::status(503, "busy"),
        Reply::status(503, "still busy"),
        Reply::events(&answer("too late")),
    ])
    .await;
    let (_, result) = run(&client(&server.base_url)).await;
    match result {
        Err(LlmError::RetriesExhausted { attempts: 3, last }) => {
            assert!(last.to_string().contains("still busy"), "{last}");
        }
        other => panic!("expected exhaustion, got {other:?}"),
    }
    assert_eq!(server.requests().len(), 3);
}

#[tokio::test]
async fn an_unreachable_server_is_a_connection_error() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("free port")
        .port();
    let (_, result) = run(&client(&format!("http://127.0.0.1:{port}/v1"))).await;
    match result {
        Err(LlmError::RetriesExhausted { last, .. }) => {
            assert!(matches!(*last, LlmError::Connection(_)), "{last}");
        }
        other => panic!("expected a connection failure, got {other:?}"),
    }
}

#[tokio::test]
async fn an_endless_event_is_refused_in_linear_time_and_not_retried() {
    // 24 MB of `data:` without a line end, in 64 KiB pieces.
    let mut pieces = vec![b"data: ".to_vec()];
    pieces.extend(std::iter::repeat_n(vec![b'x'; 64 * 1024], 384));
    let server = ScriptedServer::start(vec![Reply::raw(pieces)]).await;
    let started = Instant::now();
    let (_, result) = run(&client(&server.base_url)).await;
    assert!(
        matches!(&result, Err(LlmError::Limit(m)) if m.contains("event of more than")),
        "{result:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_of_empty_deltas_is_idle() {
    let empty = r#"{"choices":[{"index":0,"delta":{}}]}"#.to_owned();
    let keepalive = Reply::events(&vec![empty.clone(); 200]).with_pause(Duration::from_millis(50));
    // Empty deltas before anything else: the reply has not begun (first-byte timeout,
    // not retried).
    let server = ScriptedServer::start(vec![keepalive.clone(), keepalive]).await;
    let mut config = client(&server.base_url).config().clone();
    config.first_byte_timeout = Duration::from_millis(300);
    let started = Instant::now();
    let (_, result) = run(&Client::new(config.clone()).expect("client")).await;
    assert!(
        matches!(result, Err(LlmError::FirstByteTimeout(_))),
        "{result:?}"
    );
    assert_eq!(server.requests().len(), 1);
    // Empty deltas after the reply began: idle, retried.
    let mut events = vec![chunk::text("begun")];
    events.extend(vec![empty; 200]);
    let stalled = Reply::events(&events).with_pause(Duration::from_millis(50));
    let server = ScriptedServer::start(vec![stalled.clone(), stalled.clone(), stalled]).await;
    config.base_url = server.base_url.clone();
    let (_, result) = run(&Client::new(config).expect("client")).await;
    assert!(
        matches!(&result, Err(LlmError::RetriesExhausted { last, .. }) if matches!(**last, LlmError::IdleTimeout(_))),
        "{result:?}"
    );
    // Attempts of 300 ms each, not 200 × 50 ms each.
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_response_that_never_ends_stops_at_the_response_timeout() {
    let text: Vec<String> = (0..100).map(|_| chunk::text("word ")).collect();
    let server = ScriptedServer::start(vec![
        Reply::events(&text).with_pause(Duration::from_millis(50)),
    ])
    .await;
    let mut config = client(&server.base_url).config().clone();
    config.response_timeout = Duration::from_millis(600);
    let client = Client::new(config).expect("client");
    let started = Instant::now();
    let (_, result) = run(&client).await;
    assert!(
        matches!(&result, Err(LlmError::Limit(m)) if m.contains("response timeout")),
        "{result:?}"
    );
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test]
async fn the_context_window_is_asked_from_the_server_where_it_says() {
    let server = ScriptedServer::start(vec![]).await;
    let client = client(&server.base_url);
    // A hosted API says nothing.
    assert_eq!(client.server_context_window().await, None);
    // Ollama: the running num_ctx before the model's own length.
    server.serve_json(
        "/api/show",
        serde_json::json!({"model_info": {"qwen2.context_length": 32768}}),
    );
    assert_eq!(client.server_context_window().await, Some(32768));
    server.serve_json(
        "/api/show",
        serde_json::json!({
            "parameters": "stop \"<|im_end|>\"\nnum_ctx 8192",
            "model_info": {"qwen2.context_length": 32768}
        }),
    );
    assert_eq!(client.server_context_window().await, Some(8192));
    // llama.cpp's /props wins where it answers.
    server.serve_json(
        "/props",
        serde_json::json!({"default_generation_settings": {"n_ctx": 4096}}),
    );
    assert_eq!(client.server_context_window().await, Some(4096));
    assert!(server.requests().is_empty(), "no chat request was made");
}

#[tokio::test]
async fn a_reply_that_has_not_begun_says_so_while_it_waits() {
    // One piece, 5.6 s after the request.
    let server = ScriptedServer::start(vec![
        Reply::events_in_pieces(
            &[chunk::text("ok"), chunk::finish("stop"), chunk::done()],
            1 << 20,
        )
        .with_pause(Duration::from_millis(5_600)),
    ])
    .await;
    let client = client(&server.base_url);
    let (events, result) = run(&client).await;
    assert_eq!(result.expect("answer").content.as_deref(), Some("ok"));
    let waited: Vec<Duration> = events
        .iter()
        .filter_map(|e| match e {
            Event::Waiting { elapsed } => Some(*elapsed),
            _ => None,
        })
        .collect();
    assert_eq!(waited.len(), 1, "{events:?}");
    assert!(waited[0] >= Duration::from_secs(5));
}
