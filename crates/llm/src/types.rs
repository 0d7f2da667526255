//! The chat-completions vocabulary: messages, tools, streamed events, the finished
//! completion. Serialized exactly as OpenAI-compatible servers expect.

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
pub enum Message {
    System {
        content: String,
    },
    User {
        content: String,
    },
    Assistant {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        content: Option<String>,
        #[serde(default, skip_serializing_if = "Vec::is_empty")]
        tool_calls: Vec<ToolCall>,
    },
    Tool {
        tool_call_id: String,
        content: String,
    },
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub function: FunctionCall,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct FunctionCall {
    pub name: String,
    /// JSON text as the model wrote it: it may be invalid, and is checked by whoever runs
    /// the tool.
    pub arguments: String,
}

/// A tool the model may call: a name, what it does, and a JSON schema of its arguments.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

impl Serialize for ToolSpec {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serde_json::json!({
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            }
        })
        .serialize(serializer)
    }
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChatRequest {
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub temperature: Option<f32>,
}

/// What a streaming completion reports while it arrives.
#[derive(Clone, Debug, PartialEq)]
pub enum Event {
    /// More assistant text.
    TextDelta(String),
    /// Tool call `index` began; its arguments follow in [`Event::ToolCallArguments`].
    ToolCallStart {
        index: usize,
        id: String,
        name: String,
    },
    /// A piece of tool call `index`'s JSON arguments (not valid JSON on its own).
    ToolCallArguments { index: usize, delta: String },
    /// Nothing of the reply has arrived yet, `elapsed` after the request was sent (sent
    /// every few seconds until the first piece: a slow server is reading the prompt).
    Waiting { elapsed: Duration },
    /// The attempt failed and the whole request will be sent again after `delay`:
    /// discard the text and tool-call pieces received since the last `Retrying`.
    Retrying {
        attempt: u32,
        delay: Duration,
        reason: String,
    },
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub struct Usage {
    #[serde(default)]
    pub prompt_tokens: u64,
    #[serde(default)]
    pub completion_tokens: u64,
    #[serde(default)]
    pub total_tokens: u64,
}

/// A finished assistant message.
#[derive(Clone, Debug, PartialEq)]
pub struct Completion {
    pub content: Option<String>,
    pub tool_calls: Vec<ToolCall>,
    /// `stop`, `tool_calls`, `length`, … (`stop` when the server sent only `[DONE]`).
    pub finish_reason: String,
    pub usage: Option<Usage>,
}

impl Completion {
    /// The assistant message to append to the conversation.
    pub fn message(&self) -> Message {
        Message::Assistant {
            content: self.content.clone(),
            tool_calls: self.tool_calls.clone(),
        }
    }
}
