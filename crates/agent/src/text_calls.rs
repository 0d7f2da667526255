//! Tool calls a model wrote as text instead of as native tool calls: small local models
//! (Qwen2.5-Coder-1.5B behind llama.cpp) answer "where is X defined?" with
//! `<tool_call>{"name": "find_symbol", "arguments": {...}}</tool_call>`, a fenced JSON
//! block, `<tools>...</tools>` or a bare JSON object, and a reply like that is a request,
//! not an answer.
//!
//! A candidate becomes a call only when its tool exists and its arguments satisfy the
//! tool's schema (required properties present, declared types right, no unknown
//! properties where the schema forbids them); anything else stays text. Parsing never
//! fails: a reply that holds no valid call is simply an answer.

use mcursor_llm::{FunctionCall, ToolCall, ToolSpec};
use serde_json::Value;

/// How a session takes tool calls from a model's replies.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ToolCallMode {
    /// Only the server's native tool calls.
    Native,
    /// Only calls written in the reply's text (a server whose native calls are broken).
    Text,
    /// Native calls; when a reply has none, calls written in its text.
    #[default]
    Auto,
}

impl ToolCallMode {
    pub fn parse(word: &str) -> Option<ToolCallMode> {
        match word.trim().to_ascii_lowercase().as_str() {
            "native" => Some(ToolCallMode::Native),
            "text" => Some(ToolCallMode::Text),
            "auto" => Some(ToolCallMode::Auto),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ToolCallMode::Native => "native",
            ToolCallMode::Text => "text",
            ToolCallMode::Auto => "auto",
        }
    }

    /// Whether a reply with `native` calls is read for calls written as text.
    pub fn reads_text(self, native: usize) -> bool {
        match self {
            ToolCallMode::Native => false,
            ToolCallMode::Text => true,
            ToolCallMode::Auto => native == 0,
        }
    }

    /// Whether the server's native calls are taken.
    pub fn takes_native(self) -> bool {
        match self {
            ToolCallMode::Native | ToolCallMode::Auto => true,
            ToolCallMode::Text => false,
        }
    }
}

/// Most calls taken from one reply (the session's per-message limit applies after).
const MAX_TEXT_CALLS: usize = 32;

/// The valid tool calls written in `text`, in order, with ids `text-call-<step>-<n>`. A
/// call written twice (a plan, then the same calls again as "the final answer") runs once.
pub fn extract(text: &str, tools: &[ToolSpec], step: usize) -> Vec<ToolCall> {
    let mut calls: Vec<(String, Value)> = Vec::new();
    for call in candidates(text)
        .into_iter()
        .filter_map(|value| as_call(&value, tools))
    {
        if !calls.contains(&call) {
            calls.push(call);
        }
    }
    calls
        .into_iter()
        .take(MAX_TEXT_CALLS)
        .enumerate()
        .map(|(n, (name, arguments))| ToolCall {
            id: format!("text-call-{step}-{n}"),
            kind: "function".into(),
            function: FunctionCall {
                name,
                arguments: arguments.to_string(),
            },
        })
        .collect()
}

/// JSON values the text offers as calls: inside `<tool_call>`/`<tools>` tags, inside
/// fenced code blocks, or the whole reply when it is JSON. An array counts as its items.
fn candidates(text: &str) -> Vec<Value> {
    let mut found = Vec::new();
    for (open, close) in [
        ("<tool_call>", "</tool_call>"),
        ("<tools>", "</tools>"),
        ("<function_call>", "</function_call>"),
    ] {
        let mut rest = text;
        while let Some(start) = rest.find(open) {
            let after = &rest[start + open.len()..];
            let (inside, next) = match after.find(close) {
                Some(end) => (&after[..end], &after[end + close.len()..]),
                // A reply cut off before its closing tag still holds the call.
                None => (after, ""),
            };
            found.extend(json_values(inside));
            rest = next;
        }
    }
    if found.is_empty() {
        let mut rest = text;
        while let Some(start) = rest.find("```") {
            let after = &rest[start + 3..];
            // The info string (`json`, `tool_call`) ends at the first line break.
            let body_start = after.find('\n').map_or(after.len(), |i| i + 1);
            let body = &after[body_start..];
            let (inside, next) = match body.find("```") {
                Some(end) => (&body[..end], &body[end + 3..]),
                None => (body, ""),
            };
            found.extend(json_values(inside));
            rest = next;
        }
    }
    if found.is_empty() {
        found.extend(json_values(text));
    }
    found
}

/// The JSON value(s) of a snippet: one object, an array of them, or several objects one
/// after another (one per line, as small models write several calls).
fn json_values(snippet: &str) -> Vec<Value> {
    let trimmed = snippet.trim();
    if !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return Vec::new();
    }
    let mut values = Vec::new();
    for value in serde_json::Deserializer::from_str(trimmed).into_iter::<Value>() {
        match value {
            Ok(Value::Array(items)) => values.extend(items),
            Ok(value) => values.push(value),
            Err(_) => break,
        }
    }
    values
}

/// `(name, arguments)` of a candidate that names an existing tool with arguments its
/// schema accepts. Accepts `{"name", "arguments"}` (arguments as an object or as JSON
/// text), `"parameters"` for `"arguments"`, and the OpenAI shape `{"function": {...}}`.
fn as_call(value: &Value, tools: &[ToolSpec]) -> Option<(String, Value)> {
    let object = value.as_object()?;
    if let Some(function) = object.get("function").filter(|f| f.is_object()) {
        return as_call(function, tools);
    }
    // `{"function": "find_symbol", "arguments": {...}}`, as Qwen2.5-Coder-1.5B writes.
    let name = object
        .get("name")
        .or_else(|| object.get("function"))?
        .as_str()?;
    let arguments = match object.get("arguments").or_else(|| object.get("parameters")) {
        Some(Value::String(text)) => serde_json::from_str(text).ok()?,
        Some(value) => value.clone(),
        None => Value::Object(serde_json::Map::new()),
    };
    let tool = tools.iter().find(|t| t.name == name)?;
    satisfies(&arguments, &tool.parameters).then(|| (name.to_owned(), arguments))
}

/// Whether `arguments` satisfies the parts of JSON Schema the tools' schemas use: an
/// object, its `required` properties, each property's `type` (or list of types),
/// `additionalProperties: false`.
fn satisfies(arguments: &Value, schema: &Value) -> bool {
    let Some(given) = arguments.as_object() else {
        return false;
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let required = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect::<Vec<_>>())
        .unwrap_or_default();
    if required.iter().any(|r| !given.contains_key(*r)) {
        return false;
    }
    let closed = schema.get("additionalProperties") == Some(&Value::Bool(false));
    given
        .iter()
        .all(|(key, value)| match properties.and_then(|p| p.get(key)) {
            Some(property) => has_type(value, property.get("type")),
            None => !closed,
        })
}

fn has_type(value: &Value, declared: Option<&Value>) -> bool {
    let one = |t: &str| match t {
        "string" => value.is_string(),
        "integer" => value.is_i64() || value.is_u64(),
        "number" => value.is_number(),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => true,
    };
    match declared {
        None => true,
        Some(Value::String(t)) => one(t),
        Some(Value::Array(types)) => types.iter().filter_map(Value::as_str).any(one),
        Some(_) => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn tools() -> Vec<ToolSpec> {
        vec![
            ToolSpec {
                name: "find_symbol".into(),
                description: String::new(),
                parameters: json!({
                    "type": "object",
                    "properties": {"name": {"type": "string"}, "limit": {"type": ["integer", "null"]}},
                    "required": ["name"],
                    "additionalProperties": false
                }),
            },
            ToolSpec {
                name: "read_file".into(),
                description: String::new(),
                parameters: json!({
                    "type": "object",
                    "properties": {"path": {"type": "string"}},
                    "required": ["path"]
                }),
            },
        ]
    }

    fn names(text: &str) -> Vec<(String, String)> {
        extract(text, &tools(), 1)
            .into_iter()
            .map(|c| (c.function.name, c.function.arguments))
            .collect()
    }

    #[test]
    fn every_written_form_is_recognized() {
        let want = vec![(
            "find_symbol".to_owned(),
            r#"{"name":"parse_config"}"#.to_owned(),
        )];
        for text in [
            "<tool_call>\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"parse_config\"}}\n</tool_call>",
            "<tools>{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"parse_config\"}}</tools>",
            "I'll look it up.\n```json\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"parse_config\"}}\n```",
            "{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"parse_config\"}}",
            "{\"name\": \"find_symbol\", \"arguments\": \"{\\\"name\\\": \\\"parse_config\\\"}\"}",
            "{\"function\": {\"name\": \"find_symbol\", \"parameters\": {\"name\": \"parse_config\"}}}",
            // Cut off before the closing tag.
            "<tool_call>{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"parse_config\"}}",
        ] {
            assert_eq!(names(text), want, "{text}");
        }
    }

    #[test]
    fn several_calls_in_one_reply_keep_their_order() {
        let text = "```json\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"a\"}}\n```\nand\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"src/lib.rs\"}}\n```";
        let calls = extract(text, &tools(), 3);
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].function.name, "find_symbol");
        assert_eq!(calls[1].function.name, "read_file");
        assert_eq!(calls[1].id, "text-call-3-1");
        let lines = "{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"a\"}}\n{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"b\"}}";
        assert_eq!(names(lines).len(), 2);
        let array = "[{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"a\"}}, {\"name\": \"read_file\", \"arguments\": {\"path\": \"x\"}}]";
        assert_eq!(names(array).len(), 2);
    }

    #[test]
    fn what_is_not_a_valid_call_stays_text() {
        for text in [
            "parse_config is defined in src/config.rs:11.",
            "```rust\nfn main() {}\n```",
            "```json\n{\"name\": \"Cargo\", \"version\": \"1\"}\n```",
            // Unknown tool, missing required argument, wrong type, unknown property.
            "{\"name\": \"delete_everything\", \"arguments\": {}}",
            "{\"name\": \"find_symbol\", \"arguments\": {}}",
            "{\"name\": \"find_symbol\", \"arguments\": {\"name\": 5}}",
            "{\"name\": \"find_symbol\", \"arguments\": {\"name\": \"a\", \"force\": true}}",
            "{\"name\": \"find_symbol\", \"arguments\": \"not json\"}",
            "<tool_call>{broken</tool_call>",
            "",
        ] {
            assert!(names(text).is_empty(), "{text}");
        }
    }

    /// Replies of a real model, recorded: `fixtures/model-replies/<model>/<case>.txt`,
    /// with the calls they must yield in `<case>.calls.json` (`[]`: the reply is text).
    #[test]
    fn recorded_replies_of_real_models() {
        let root =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/model-replies");
        let mut specs = crate::toolbox::index_tool_specs();
        specs.extend(crate::file_tool_specs());
        specs.push(crate::execute_command_spec());
        let mut cases = 0;
        for model in std::fs::read_dir(&root).expect("fixtures/model-replies") {
            let model = model.expect("entry").path();
            if !model.is_dir() {
                continue;
            }
            for entry in std::fs::read_dir(&model).expect("model dir") {
                let reply = entry.expect("entry").path();
                if reply.extension().and_then(|e| e.to_str()) != Some("txt") {
                    continue;
                }
                let text = std::fs::read_to_string(&reply).expect("reply");
                let expected: Value = serde_json::from_str(
                    &std::fs::read_to_string(reply.with_extension("calls.json"))
                        .expect("expected calls next to the reply"),
                )
                .expect("expected calls are JSON");
                let got: Vec<Value> = extract(&text, &specs, 1)
                    .into_iter()
                    .map(|c| {
                        json!({
                            "name": c.function.name,
                            "arguments": serde_json::from_str::<Value>(&c.function.arguments)
                                .expect("arguments are JSON"),
                        })
                    })
                    .collect();
                assert_eq!(Value::Array(got), expected, "{}", reply.display());
                cases += 1;
            }
        }
        assert!(cases >= 3, "recorded replies found: {cases}");
    }

    #[test]
    fn modes_decide_which_calls_are_taken() {
        assert!(ToolCallMode::Auto.reads_text(0) && !ToolCallMode::Auto.reads_text(1));
        assert!(ToolCallMode::Text.reads_text(1) && !ToolCallMode::Text.takes_native());
        assert!(!ToolCallMode::Native.reads_text(0));
        for mode in [ToolCallMode::Native, ToolCallMode::Text, ToolCallMode::Auto] {
            assert_eq!(ToolCallMode::parse(mode.as_str()), Some(mode));
        }
        assert_eq!(ToolCallMode::parse("sometimes"), None);
    }
}
