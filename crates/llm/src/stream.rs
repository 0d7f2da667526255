//! Folding an OpenAI-compatible SSE stream into events and one [`Completion`]: text
//! deltas appended, tool calls assembled by their `index` from pieces.

use std::collections::BTreeMap;

use serde::Deserialize;

use crate::error::LlmError;
use crate::types::{Completion, Event, FunctionCall, ToolCall, Usage};

#[derive(Deserialize)]
struct Chunk {
    #[serde(default)]
    choices: Vec<Choice>,
    #[serde(default)]
    usage: Option<Usage>,
    /// Some servers report a failure inside the stream.
    #[serde(default)]
    error: Option<serde_json::Value>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    index: usize,
    #[serde(default)]
    delta: Delta,
    #[serde(default)]
    finish_reason: Option<String>,
}

#[derive(Default, Deserialize)]
struct Delta {
    #[serde(default)]
    content: Option<String>,
    /// A reasoning model's thinking (DeepSeek): not shown, but progress.
    #[serde(default)]
    reasoning_content: Option<String>,
    #[serde(default)]
    tool_calls: Vec<ToolCallDelta>,
}

#[derive(Deserialize)]
struct ToolCallDelta {
    #[serde(default)]
    index: usize,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    function: Option<FunctionDelta>,
}

#[derive(Deserialize)]
struct FunctionDelta {
    #[serde(default)]
    name: Option<String>,
    #[serde(default)]
    arguments: Option<String>,
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
    announced: bool,
}

/// The state of one attempt's stream.
#[derive(Default)]
pub(crate) struct Assembler {
    content: String,
    calls: BTreeMap<usize, PartialCall>,
    finish_reason: Option<String>,
    usage: Option<Usage>,
    done: bool,
}

impl Assembler {
    /// Whether the server said the stream is over (`[DONE]`).
    pub(crate) fn done(&self) -> bool {
        self.done
    }

    /// Takes one event's `data`; returns whether it moved the response on (text, a tool
    /// call's piece, a finish reason, the end), which empty deltas do not.
    pub(crate) fn feed(
        &mut self,
        data: &str,
        emit: &mut dyn FnMut(Event),
    ) -> Result<bool, LlmError> {
        let data = data.trim();
        if data == "[DONE]" {
            self.done = true;
            return Ok(true);
        }
        if data.is_empty() {
            return Ok(false);
        }
        let mut progress = false;
        let chunk: Chunk = serde_json::from_str(data).map_err(|e| {
            LlmError::Malformed(format!(
                "a stream chunk is not the expected JSON ({e}): {}",
                clip(data)
            ))
        })?;
        if let Some(error) = chunk.error {
            let message = error
                .get("message")
                .and_then(|m| m.as_str())
                .map_or_else(|| error.to_string(), str::to_owned);
            return Err(LlmError::InStream(message));
        }
        if chunk.usage.is_some() {
            self.usage = chunk.usage;
        }
        // Only the first choice is asked for (`n` is never set).
        for choice in chunk.choices.into_iter().filter(|c| c.index == 0) {
            if choice
                .delta
                .reasoning_content
                .is_some_and(|t| !t.is_empty())
            {
                progress = true;
            }
            if let Some(text) = choice.delta.content.filter(|t| !t.is_empty()) {
                progress = true;
                self.content.push_str(&text);
                emit(Event::TextDelta(text));
            }
            for piece in choice.delta.tool_calls {
                let call = self.calls.entry(piece.index).or_default();
                if let Some(id) = piece.id.filter(|id| !id.is_empty()) {
                    call.id = id;
                }
                let (name, arguments) = piece
                    .function
                    .map_or((None, None), |f| (f.name, f.arguments));
                if let Some(name) = name.filter(|n| !n.is_empty()) {
                    progress = true;
                    call.name.push_str(&name);
                }
                if !call.announced && !call.name.is_empty() {
                    call.announced = true;
                    if call.id.is_empty() {
                        // Some local servers send no ids; the conversation still needs one.
                        call.id = format!("call_{}", piece.index);
                    }
                    emit(Event::ToolCallStart {
                        index: piece.index,
                        id: call.id.clone(),
                        name: call.name.clone(),
                    });
                }
                if let Some(arguments) = arguments.filter(|a| !a.is_empty()) {
                    progress = true;
                    call.arguments.push_str(&arguments);
                    emit(Event::ToolCallArguments {
                        index: piece.index,
                        delta: arguments,
                    });
                }
            }
            if let Some(reason) = choice.finish_reason {
                progress = true;
                self.finish_reason = Some(reason);
            }
        }
        Ok(progress)
    }

    /// The completion, if the stream ended properly (a `finish_reason` or `[DONE]`).
    pub(crate) fn finish(self) -> Result<Completion, LlmError> {
        if self.finish_reason.is_none() && !self.done {
            return Err(LlmError::Incomplete);
        }
        let tool_calls = self
            .calls
            .into_iter()
            .map(|(index, call)| ToolCall {
                id: if call.id.is_empty() {
                    format!("call_{index}")
                } else {
                    call.id
                },
                kind: "function".to_owned(),
                function: FunctionCall {
                    name: call.name,
                    arguments: call.arguments,
                },
            })
            .collect();
        Ok(Completion {
            content: (!self.content.is_empty()).then_some(self.content),
            tool_calls,
            finish_reason: self.finish_reason.unwrap_or_else(|| "stop".to_owned()),
            usage: self.usage,
        })
    }
}

fn clip(text: &str) -> String {
    match text.char_indices().nth(200) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn feed_all(chunks: &[&str]) -> (Vec<Event>, Result<Completion, LlmError>) {
        let mut events = Vec::new();
        let mut assembler = Assembler::default();
        for chunk in chunks {
            if let Err(e) = assembler.feed(chunk, &mut |e| events.push(e)) {
                return (events, Err(e));
            }
        }
        (events, assembler.finish())
    }

    #[test]
    fn tool_calls_assemble_by_index_from_pieces() {
        let (events, completion) = feed_all(&[
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"b","function":{"name":"read_file","arguments":"{\"pa"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"a","function":{"name":"find_symbol","arguments":""}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"th\":\"x\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
        ]);
        let completion = completion.expect("complete");
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
                ("a", "find_symbol", "{}"),
                ("b", "read_file", r#"{"path":"x"}"#)
            ]
        );
        assert!(
            matches!(&events[0], Event::ToolCallStart { index: 1, name, .. } if name == "read_file")
        );
    }

    #[test]
    fn a_stream_without_an_end_is_incomplete_and_garbage_is_malformed() {
        let (_, completion) = feed_all(&[r#"{"choices":[{"index":0,"delta":{"content":"hi"}}]}"#]);
        assert!(matches!(completion, Err(LlmError::Incomplete)));
        let (_, completion) = feed_all(&["{not json"]);
        assert!(matches!(completion, Err(LlmError::Malformed(_))));
        let (_, completion) = feed_all(&[r#"{"error":{"message":"overloaded"}}"#]);
        assert!(matches!(completion, Err(LlmError::InStream(m)) if m == "overloaded"));
        let (_, completion) = feed_all(&[
            r#"{"choices":[{"index":0,"delta":{"content":"hi"}}]}"#,
            "[DONE]",
        ]);
        assert_eq!(completion.expect("done").content.as_deref(), Some("hi"));
    }
}
