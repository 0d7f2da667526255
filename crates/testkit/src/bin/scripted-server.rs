//! `scripted-server SCRIPT.json`: serves a scripted conversation on 127.0.0.1 for demos
//! and manual checks of `mcursor ask` (the tests use the library directly).
//!
//! The script is a JSON array, one element per model request:
//! `{"text": "..."}` (streamed word by word), `{"tool_calls": [{"id", "name",
//! "arguments"}], "think_ms": 2000}` (`think_ms`, optional: the reply starts that late,
//! as a real model's would), `{"status": 429, "body": "...", "retry_after": "1"}`, or
//! `{"endless_event": BYTES}` (one `data:` line of BYTES bytes that never ends: a broken
//! or hostile server).

use std::time::Duration;

use mcursor_testkit::{Reply, ScriptedServer, chunk};
use serde_json::Value;

fn reply(step: &Value) -> Result<Reply, String> {
    if let Some(text) = step.get("text").and_then(Value::as_str) {
        let mut events: Vec<String> = text.split_inclusive(' ').map(chunk::text).collect();
        events.push(chunk::finish("stop"));
        events.push(chunk::done());
        return Ok(Reply::events(&events).with_pause(Duration::from_millis(20)));
    }
    if let Some(calls) = step.get("tool_calls").and_then(Value::as_array) {
        let mut events = Vec::new();
        for (index, call) in calls.iter().enumerate() {
            let field = |name: &str| call.get(name).and_then(Value::as_str).unwrap_or_default();
            let arguments = field("arguments");
            let split = arguments.len() / 2;
            let split = (split..=arguments.len())
                .find(|i| arguments.is_char_boundary(*i))
                .unwrap_or(arguments.len());
            events.push(chunk::tool_call_start(
                index,
                field("id"),
                field("name"),
                &arguments[..split],
            ));
            events.push(chunk::tool_call_arguments(index, &arguments[split..]));
        }
        events.push(chunk::finish("tool_calls"));
        events.push(chunk::done());
        // A model's time to answer: the whole reply, in one piece, after it.
        if let Some(think) = step.get("think_ms").and_then(Value::as_u64) {
            return Ok(Reply::events_in_pieces(&events, usize::MAX)
                .with_pause(Duration::from_millis(think)));
        }
        return Ok(Reply::events(&events));
    }
    if let Some(bytes) = step.get("endless_event").and_then(Value::as_u64) {
        let mut pieces = vec![b"data: ".to_vec()];
        let piece = vec![b'x'; 64 * 1024];
        pieces.extend(std::iter::repeat_n(
            piece,
            (bytes as usize).div_ceil(64 * 1024),
        ));
        return Ok(Reply::raw(pieces));
    }
    if let Some(status) = step.get("status").and_then(Value::as_u64) {
        let body = step.get("body").and_then(Value::as_str).unwrap_or_default();
        let mut reply = Reply::status(status as u16, body);
        if let Some(after) = step.get("retry_after").and_then(Value::as_str) {
            reply = reply.with_header("Retry-After", after);
        }
        return Ok(reply);
    }
    Err(format!(
        "a script step needs text, tool_calls, status or endless_event: {step}"
    ))
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: scripted-server SCRIPT.json");
        return std::process::ExitCode::from(2);
    };
    let script = std::fs::read_to_string(&path)
        .map_err(|e| format!("{path}: {e}"))
        .and_then(|text| {
            serde_json::from_str::<Vec<Value>>(&text).map_err(|e| format!("{path}: {e}"))
        })
        .and_then(|steps| steps.iter().map(reply).collect::<Result<Vec<_>, _>>());
    let script = match script {
        Ok(script) => script,
        Err(e) => {
            eprintln!("error: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let server = ScriptedServer::start(script).await;
    println!("{}", server.base_url);
    let _ = tokio::signal::ctrl_c().await;
    std::process::ExitCode::SUCCESS
}
