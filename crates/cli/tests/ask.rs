//! `mcursor ask` end to end: the real binary against the scripted OpenAI-compatible server
//! (real HTTP and SSE on 127.0.0.1), on fixture repositories. Every test asserts on what
//! the model was sent back, not only on what was printed.

mod common;

use std::path::Path;
use std::process::Output;
use std::time::{Duration, Instant};

use common::{fixture, stderr, stdout};
use mcursor_testkit::{Recorded, Reply, ScriptedServer, chunk};
use serde_json::Value;

fn answer(text: &str) -> Reply {
    Reply::events(&[chunk::text(text), chunk::finish("stop"), chunk::done()])
}

fn calls(list: &[(&str, &str, &str)]) -> Reply {
    let mut events: Vec<String> = list
        .iter()
        .enumerate()
        .map(|(i, (id, name, args))| chunk::tool_call_start(i, id, name, args))
        .collect();
    events.push(chunk::finish("tool_calls"));
    events.push(chunk::done());
    Reply::events(&events)
}

async fn ask(dir: &Path, server: &ScriptedServer, args: &[&str]) -> Output {
    let mut command = common::ask_command(dir, &server.base_url);
    command.args(args);
    tokio::task::spawn_blocking(move || command.output().expect("run mcursor"))
        .await
        .expect("join")
}

/// The `tool` messages of a recorded request, as (tool_call_id, content).
fn tool_results(request: &Recorded) -> Vec<(String, String)> {
    request.body["messages"]
        .as_array()
        .map(|messages| {
            messages
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| {
                    (
                        m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                        m["content"].as_str().unwrap_or_default().to_owned(),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

fn tool_names(request: &Recorded) -> Vec<String> {
    request.body["tools"]
        .as_array()
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t["function"]["name"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread")]
async fn find_symbol_then_read_file_then_answer() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[("call_1", "find_symbol", r#"{"name":"parse_config"}"#)]),
        calls(&[(
            "call_2",
            "read_file",
            r#"{"path":"src/config.rs","start_line":11,"end_line":13}"#,
        )]),
        answer("`parse_config` is defined in src/config.rs:11."),
    ])
    .await;
    let output = ask(repo.path(), &server, &["where is parse_config defined?"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output).trim(),
        "`parse_config` is defined in src/config.rs:11."
    );
    assert!(
        stderr(&output).contains("▶ find_symbol name=parse_config"),
        "{}",
        stderr(&output)
    );

    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(
        requests[0].body["messages"][1]["content"],
        "where is parse_config defined?"
    );
    assert!(tool_names(&requests[0]).contains(&"find_symbol".to_owned()));
    let first = tool_results(&requests[1]);
    assert_eq!(first.len(), 1);
    assert_eq!(first[0].0, "call_1");
    assert!(
        first[0]
            .1
            .starts_with("src/config.rs:11:8 function config::parse_config"),
        "{}",
        first[0].1
    );
    let second = tool_results(&requests[2]);
    assert_eq!(second[1].0, "call_2");
    assert!(
        second[1].1.starts_with("src/config.rs: lines 11-13 of"),
        "{}",
        second[1].1
    );
    assert!(
        second[1].1.contains("    11│pub fn parse_config"),
        "{}",
        second[1].1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn two_calls_in_one_message_both_answered_in_order() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[
            ("a", "find_symbol", r#"{"name":"Session"}"#),
            ("b", "list_directory", r#"{"path":"src"}"#),
        ]),
        answer("done"),
    ])
    .await;
    let output = ask(repo.path(), &server, &["look around"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let results = tool_results(&server.requests()[1]);
    let ids: Vec<&str> = results.iter().map(|(id, _)| id.as_str()).collect();
    assert_eq!(ids, ["a", "b"]);
    assert!(results[0].1.contains("struct"), "{}", results[0].1);
    assert!(results[1].1.starts_with("src ("), "{}", results[1].1);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_the_index_the_model_gets_files_and_commands_only() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[("a", "find_symbol", r#"{"name": "parse_config"}"#)]),
        answer("grep it is"),
    ])
    .await;
    let output = ask(
        repo.path(),
        &server,
        &["--no-index", "where is parse_config?"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = server.requests();
    let offered = tool_names(&requests[0]);
    assert!(
        offered.iter().all(|t| !matches!(
            t.as_str(),
            "find_symbol" | "find_references" | "callers" | "callees" | "search_code"
        )),
        "{offered:?}"
    );
    assert!(
        offered.contains(&"execute_command".to_owned()),
        "{offered:?}"
    );
    let system = requests[0].body["messages"][0]["content"]
        .as_str()
        .unwrap_or_default();
    assert!(
        system.contains("grep -rn") && !system.contains("find_symbol"),
        "{system}"
    );
    let results = tool_results(&requests[1]);
    assert!(
        results[0].1.contains("unknown tool `find_symbol`"),
        "{}",
        results[0].1
    );
    // With the index (the default) the agent offers callers and callees too.
    let server = ScriptedServer::start(vec![answer("ok")]).await;
    let output = ask(repo.path(), &server, &["hi"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let offered = tool_names(&server.requests()[0]);
    for tool in [
        "find_symbol",
        "find_references",
        "callers",
        "callees",
        "search_code",
    ] {
        assert!(offered.contains(&tool.to_owned()), "{tool}: {offered:?}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn bad_arguments_and_unknown_tools_go_back_to_the_model() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[
            ("a", "read_file", r#"{"path": "src/lib.rs""#),
            ("b", "delete_everything", "{}"),
            ("c", "read_file", r#"{"path": "../../../etc/passwd"}"#),
        ]),
        answer("sorry"),
    ])
    .await;
    let output = ask(repo.path(), &server, &["break things"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let results = tool_results(&server.requests()[1]);
    assert!(results[0].1.contains("not valid JSON"), "{}", results[0].1);
    assert!(
        results[1].1.contains("unknown tool `delete_everything`"),
        "{}",
        results[1].1
    );
    assert!(
        results[2].1.contains("outside the workspace"),
        "{}",
        results[2].1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn retried_requests_never_run_a_tool_twice() {
    let repo = fixture("rust-basic");
    let write = r#"{"path":"notes/todo.md","content":"one line\n"}"#;
    let server = ScriptedServer::start(vec![
        Reply::status(429, r#"{"error":{"message":"rate limited"}}"#)
            .with_header("Retry-After", "0"),
        // The call arrives whole but the stream is cut before it finishes: not run.
        Reply::cut(
            &[
                chunk::tool_call_start(0, "w0", "write_file", write),
                chunk::finish("tool_calls"),
            ],
            1,
        ),
        Reply::status(500, "upstream"),
        calls(&[("w1", "write_file", write)]),
        answer("written"),
    ])
    .await;
    let output = ask(repo.path(), &server, &["--yes", "write the note"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(repo.path().join("notes/todo.md")).expect("written"),
        "one line\n"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 5);
    let results = tool_results(&requests[4]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].0, "w1");
    assert!(
        results[0].1.starts_with("created notes/todo.md"),
        "{}",
        results[0].1
    );
    assert!(stderr(&output).contains("retry 1"), "{}", stderr(&output));
    // The content was previewed while the arguments streamed in.
    assert!(stderr(&output).contains("one line"), "{}", stderr(&output));
}

#[tokio::test(flavor = "multi_thread")]
async fn unauthorized_stops_with_the_servers_message() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![Reply::status(
        401,
        r#"{"error":{"message":"Incorrect API key provided"}}"#,
    )])
    .await;
    let output = ask(repo.path(), &server, &["hello"]).await;
    assert_eq!(output.status.code(), Some(2));
    let text = stderr(&output);
    assert!(
        text.contains("401")
            && text.contains("Incorrect API key provided")
            && text.contains("MCURSOR_API_KEY"),
        "{text}"
    );
    assert_eq!(server.requests().len(), 1);
}

#[tokio::test(flavor = "multi_thread")]
async fn the_step_limit_ends_the_turn() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[("a", "find_symbol", r#"{"name":"run"}"#)]),
        calls(&[("b", "find_symbol", r#"{"name":"run"}"#)]),
        calls(&[("c", "find_symbol", r#"{"name":"run"}"#)]),
    ])
    .await;
    let output = ask(repo.path(), &server, &["--max-steps", "2", "loop forever"]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("Stopped after 2 steps"),
        "{}",
        stderr(&output)
    );
    assert_eq!(server.requests().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn without_a_terminal_or_yes_mutations_are_refused() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[
            ("w", "write_file", r#"{"path":"new.rs","content":"x"}"#),
            ("x", "execute_command", r#"{"command":"touch ran.txt"}"#),
        ]),
        answer("I would have written new.rs"),
    ])
    .await;
    let output = ask(repo.path(), &server, &["write it"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let results = tool_results(&server.requests()[1]);
    for (_, text) in &results {
        assert!(
            text.starts_with("refused:") && text.contains("--yes"),
            "{text}"
        );
    }
    assert!(!repo.path().join("new.rs").exists());
    assert!(!repo.path().join("ran.txt").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn protected_writes_are_never_covered_by_yes() {
    let repo = fixture("rust-basic");
    let root = repo.path();
    std::fs::create_dir_all(root.join(".git/hooks")).expect("mkdir");
    std::fs::write(root.join(".git/config"), "[core]\n").expect("write");
    std::fs::write(root.join(".env"), "A=1\n").expect("write");
    #[cfg(unix)]
    std::os::unix::fs::symlink(".git/config", root.join("notes.txt")).expect("symlink");
    let writes = [
        (
            "a",
            "write_file",
            r#"{"path":".git/config","content":"[core]\n\tfsmonitor = touch pwned\n"}"#,
        ),
        (
            "b",
            "write_file",
            r#"{"path":".git/hooks/pre-commit","content":"touch pwned"}"#,
        ),
        (
            "c",
            "edit_file",
            r#"{"path":".env","old_text":"A=1","new_text":"A=2"}"#,
        ),
        ("d", "write_file", r#"{"path":".mcp.json","content":"{}"}"#),
        (
            "e",
            "write_file",
            r#"{"path":".vscode/tasks.json","content":"{}"}"#,
        ),
        ("f", "write_file", r#"{"path":"notes.txt","content":"x"}"#),
        ("g", "write_file", r#"{"path":"src/ok.rs","content":"x"}"#),
    ];
    let server = ScriptedServer::start(vec![calls(&writes), answer("done")]).await;
    let output = ask(root, &server, &["--yes", "write them"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let results = tool_results(&server.requests()[1]);
    assert_eq!(results.len(), 7);
    for (id, text) in &results[..6] {
        assert!(
            text.starts_with("refused:")
                && text.contains("is a protected path")
                && text.contains("--allow-protected-writes"),
            "{id}: {text}"
        );
    }
    assert!(results[0].1.contains("fsmonitor"), "{}", results[0].1);
    assert!(results[5].1.contains(".git/config"), "{}", results[5].1);
    assert!(!results[6].1.starts_with("refused"), "{}", results[6].1);
    assert_eq!(
        std::fs::read_to_string(root.join(".git/config")).expect("read"),
        "[core]\n"
    );
    assert!(!root.join(".git/hooks/pre-commit").exists());
    assert!(!root.join(".mcp.json").exists() && !root.join(".vscode").exists());

    // The explicit flag allows them.
    let server = ScriptedServer::start(vec![calls(&writes[2..3]), answer("done")]).await;
    let output = ask(
        root,
        &server,
        &["--yes", "--allow-protected-writes", "edit .env"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        std::fs::read_to_string(root.join(".env")).expect("read"),
        "A=2\n"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn terminal_control_sequences_in_model_text_never_reach_the_terminal() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![answer(
        "safe\u{1b}]52;c;cm0gLXJmIH4=\u{7} text\r\u{1b}[2Kfake",
    )])
    .await;
    let output = ask(repo.path(), &server, &["hi"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output), "safe textfake\n");
}

#[tokio::test(flavor = "multi_thread")]
async fn a_flood_of_calls_is_cut_to_the_limit_and_the_next_request_stays_small() {
    let repo = fixture("rust-basic");
    let ids: Vec<String> = (0..1000).map(|i| format!("c{i}")).collect();
    // Each call padded to 8 KB of arguments: the 976 that do not run are not sent back.
    let padded = serde_json::json!({"path": "src/lib.rs", "pad": "p".repeat(8000)}).to_string();
    let flood: Vec<(&str, &str, &str)> = ids
        .iter()
        .map(|id| (id.as_str(), "read_file", padded.as_str()))
        .collect();
    let huge = serde_json::json!({"path": "big.rs", "content": "x".repeat(2 << 20)}).to_string();
    let server = ScriptedServer::start(vec![
        calls(&flood),
        calls(&[("w", "write_file", &huge)]),
        answer("done"),
    ])
    .await;
    let output = ask(repo.path(), &server, &["--yes", "read everything"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = server.requests();
    let results = tool_results(&requests[1]);
    assert_eq!(results.len(), 24, "the first 24 run; the rest are dropped");
    assert!(
        results[23].1.contains(
            "asked for 1000 tool calls; only the first 24 ran and the other 976 were dropped"
        ),
        "{}",
        results[23].1
    );
    // The calls that did not run are not sent back (8 MB of arguments), and the results
    // share half the window (64k tokens by default).
    let second = serde_json::to_string(&requests[1].body).expect("json");
    assert!(second.len() < 300_000, "{} bytes", second.len());
    // A 2 MiB argument is refused, and not sent again with the next request.
    let third = serde_json::to_string(&requests[2].body).expect("json");
    assert!(third.len() < second.len() + 20_000, "{} bytes", third.len());
    let refused = tool_results(&requests[2]);
    assert!(
        refused.last().is_some_and(
            |(_, t)| t.contains("the arguments are 2097") && t.contains("at most 1048576")
        ),
        "{refused:?}"
    );
    assert!(!repo.path().join("big.rs").exists());
}

#[tokio::test(flavor = "multi_thread")]
async fn sub_agents_spend_the_turns_step_budget() {
    let repo = fixture("rust-basic");
    let ids: Vec<String> = (0..200).map(|i| format!("t{i}")).collect();
    let tasks: Vec<(&str, &str, &str)> = ids
        .iter()
        .map(|id| (id.as_str(), "task", r#"{"prompt":"look around"}"#))
        .collect();
    let mut script = vec![calls(&tasks)];
    // Each sub-agent asks for a directory listing forever, if it is allowed to.
    for _ in 0..60 {
        script.push(calls(&[("l", "list_directory", "{}")]));
    }
    let server = ScriptedServer::start(script).await;
    let output = ask(repo.path(), &server, &["--max-steps", "8", "explore"]).await;
    let requests = server.requests();
    assert!(requests.len() <= 8, "{} model requests", requests.len());
    assert!(
        stderr(&output).contains("counts sub-agents' steps too"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_command_that_never_ends_is_killed_on_timeout() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[(
            "s",
            "execute_command",
            r#"{"command":"echo begin; sleep 60"}"#,
        )]),
        answer("it hung"),
    ])
    .await;
    let started = Instant::now();
    let output = ask(
        repo.path(),
        &server,
        &["--yes", "--command-timeout", "1", "run it"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    let results = tool_results(&server.requests()[1]);
    assert!(
        results[0].1.starts_with("timed out after"),
        "{}",
        results[0].1
    );
    assert!(results[0].1.contains("begin"), "{}", results[0].1);
    assert!(
        stderr(&output).contains("begin"),
        "live output: {}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_long_conversation_is_compacted_by_a_summary() {
    let repo = fixture("rust-basic");
    let big: String = (0..100)
        .map(|i| format!("line {i} of a long file\n"))
        .collect();
    std::fs::write(repo.path().join("big.txt"), &big).expect("write");
    let server = ScriptedServer::start(vec![
        calls(&[("r", "read_file", r#"{"path":"big.txt"}"#)]),
        calls(&[("l", "list_directory", "{}")]),
        calls(&[("f", "find_symbol", r#"{"name":"parse_config"}"#)]),
        answer("big.txt has 100 numbered lines"),
        answer("the file has 100 lines"),
    ])
    .await;
    let output = ask(
        repo.path(),
        &server,
        &["--context-window", "1675", "how long is big.txt?"],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(stdout(&output).trim(), "the file has 100 lines");
    let requests = server.requests();
    assert_eq!(requests.len(), 5);
    // Before the 4th step: the read is older than the last two steps, so it is summarized.
    let summary_request = &requests[3];
    let summary_messages = summary_request.body["messages"]
        .as_array()
        .expect("messages");
    assert!(
        summary_messages[0]["content"]
            .as_str()
            .unwrap_or_default()
            .starts_with("Summarize the earlier part"),
        "{}",
        summary_request.body
    );
    assert!(
        summary_messages[1]["content"]
            .as_str()
            .unwrap_or_default()
            .contains("line 99 of a long file")
    );
    assert!(summary_request.body.get("tools").is_none());
    let after = requests[4].body["messages"]
        .as_array()
        .expect("messages")
        .clone();
    let text = serde_json::to_string(&after).expect("json");
    assert!(
        after[1]["content"]
            .as_str()
            .unwrap_or_default()
            .starts_with(
                "[summary of earlier work in this session]\nbig.txt has 100 numbered lines"
            ),
        "{text}"
    );
    assert_eq!(
        after[2]["content"], "how long is big.txt?",
        "the question stays verbatim"
    );
    assert!(
        !text.contains("line 99 of a long file"),
        "the old tool result was kept"
    );
    assert!(
        text.contains("\"tool_call_id\":\"l\"") && text.contains("\"tool_call_id\":\"f\""),
        "the last two steps stay: {text}"
    );
    assert!(
        stderr(&output).contains("context compacted"),
        "{}",
        stderr(&output)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_task_runs_in_a_fresh_read_only_context() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[("t", "task", r#"{"prompt":"Which files define run?"}"#)]),
        // The sub-agent tries to delegate again, which it is not offered.
        calls(&[("t2", "task", r#"{"prompt":"and again"}"#)]),
        answer("src/session.rs and src/worker.rs"),
        answer("Two files define run."),
    ])
    .await;
    let output = ask(repo.path(), &server, &["explore"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let requests = server.requests();
    let sub = &requests[1];
    let messages = sub.body["messages"].as_array().expect("messages");
    assert_eq!(messages.len(), 2, "fresh context: {messages:?}");
    assert_eq!(messages[1]["content"], "Which files define run?");
    let tools = tool_names(sub);
    assert!(tools.contains(&"find_symbol".to_owned()));
    for absent in ["task", "write_file", "edit_file", "execute_command"] {
        assert!(
            !tools.contains(&absent.to_owned()),
            "{absent} offered to the sub-agent"
        );
    }
    let nested = tool_results(&requests[2]);
    assert!(
        nested[0].1.contains("task tool is not available"),
        "{}",
        nested[0].1
    );
    assert_eq!(requests.len(), 4, "no nested sub-agent ran");
    let results = tool_results(&requests[3]);
    assert_eq!(results[0].1, "src/session.rs and src/worker.rs");
}

#[tokio::test(flavor = "multi_thread")]
async fn json_events_and_a_clear_message_when_nothing_is_configured() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[("a", "search_code", r#"{"query":"parse config"}"#)]),
        answer("found"),
    ])
    .await;
    let output = ask(repo.path(), &server, &["hi"]).await;
    assert!(output.status.success());
    let mut json = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
    // The server's token counts (a last chunk, when asked for) are the turn's usage.
    let usage = r#"{"id":"c","object":"chat.completion.chunk","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}"#;
    let server2 = ScriptedServer::start(vec![Reply::events(&[
        chunk::text("plain"),
        chunk::finish("stop"),
        usage.to_owned(),
        chunk::done(),
    ])])
    .await;
    json.arg("-C")
        .arg(repo.path())
        .args([
            "--json",
            "ask",
            "--base-url",
            &server2.base_url,
            "--model",
            "m",
            "hi",
        ])
        .stdin(std::process::Stdio::null());
    let out = tokio::task::spawn_blocking(move || json.output().expect("run"))
        .await
        .expect("join");
    let events: Vec<Value> = stdout(&out)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(
        events.first().map(|e| e["type"].clone()),
        Some(Value::from("step"))
    );
    let last = events.last().expect("events");
    assert_eq!(last["type"], "answer");
    assert_eq!(last["text"], "plain");
    assert_eq!(last["prompt_tokens"], 12, "{last}");
    assert_eq!(last["completion_tokens"], 3, "{last}");
    assert_eq!(
        server2.requests()[0].body["stream_options"]["include_usage"],
        true
    );

    let mut bare = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
    bare.arg("-C")
        .arg(repo.path())
        .args(["ask", "hi"])
        .env_remove("MCURSOR_PRESET")
        .env_remove("MCURSOR_BASE_URL")
        .env_remove("MCURSOR_MODEL")
        .env("MCURSOR_CONFIG", repo.path().join("absent-config.toml"))
        .stdin(std::process::Stdio::null());
    let out = tokio::task::spawn_blocking(move || bare.output().expect("run"))
        .await
        .expect("join");
    assert_eq!(out.status.code(), Some(2));
    let said = stderr(&out);
    assert!(said.contains("MCURSOR_BASE_URL"), "{said}");
    // Where the same settings can be written for good, and how.
    assert!(said.contains("absent-config.toml"), "{said}");
    assert!(
        said.contains("base_url = ") && said.contains("model = "),
        "{said}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_edit_shows_its_diff_and_the_next_lookup_sees_it() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        calls(&[(
            "e",
            "edit_file",
            r#"{"path":"src/config.rs","old_text":"pub fn parse_config(path: &str)","new_text":"pub fn load_config(path: &str)"}"#,
        )]),
        calls(&[("f", "find_symbol", r#"{"name":"load_config"}"#)]),
        answer("renamed"),
    ])
    .await;
    let output = ask(repo.path(), &server, &["--yes", "rename it"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    let err = stderr(&output);
    assert!(err.contains("-pub fn parse_config(path: &str)"), "{err}");
    assert!(err.contains("+pub fn load_config(path: &str)"), "{err}");
    let results = tool_results(&server.requests()[2]);
    assert!(
        results[0].1.starts_with("edited src/config.rs"),
        "{}",
        results[0].1
    );
    // Read-your-writes: the index was refreshed before the lookup.
    assert!(
        results[1]
            .1
            .starts_with("src/config.rs:11:8 function config::load_config"),
        "{}",
        results[1].1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_config_file_supplies_defaults_and_a_broken_one_is_named() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![answer("from the config")]).await;
    let config_dir = tempfile::tempdir().expect("tempdir");
    let config = config_dir.path().join("config.toml");
    std::fs::write(
        &config,
        format!(
            "base_url = \"{}\"\nmodel = \"from-file\"\n",
            server.base_url
        ),
    )
    .expect("write");
    let run = |config: std::path::PathBuf| {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
        command
            .arg("-C")
            .arg(repo.path())
            .args(["ask", "hi"])
            .env("MCURSOR_CONFIG", config)
            .env_remove("MCURSOR_PRESET")
            .env_remove("MCURSOR_BASE_URL")
            .env_remove("MCURSOR_MODEL")
            .stdin(std::process::Stdio::null());
        command
    };
    let mut good = run(config.clone());
    let out = tokio::task::spawn_blocking(move || good.output().expect("run"))
        .await
        .expect("join");
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "from the config");
    assert_eq!(server.requests()[0].body["model"], "from-file");

    std::fs::write(&config, "modle = \"typo\"\n").expect("write");
    let mut broken = run(config.clone());
    let out = tokio::task::spawn_blocking(move || broken.output().expect("run"))
        .await
        .expect("join");
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("config.toml is not a valid mcursor config"),
        "{}",
        stderr(&out)
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_interactive_session_remembers_until_cleared() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        answer("first answer"),
        answer("second answer"),
        answer("after clear"),
    ])
    .await;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
    command
        .arg("-C")
        .arg(repo.path())
        .args(["ask", "--base-url", &server.base_url, "--model", "m"])
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let output = tokio::task::spawn_blocking(move || {
        let mut child = command.spawn().expect("spawn");
        {
            use std::io::Write as _;
            let mut stdin = child.stdin.take().expect("stdin");
            stdin
                .write_all(b"one\ntwo\n/clear\nthree\n/exit\nnever asked\n")
                .expect("write");
        }
        child.wait_with_output().expect("wait")
    })
    .await
    .expect("join");
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(
        stdout(&output),
        "first answer\nsecond answer\nafter clear\n"
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 3);
    let count = |r: &Recorded| r.body["messages"].as_array().map_or(0, Vec::len);
    // system + one; + answer + two; after /clear: system + three.
    assert_eq!(
        [
            count(&requests[0]),
            count(&requests[1]),
            count(&requests[2])
        ],
        [2, 4, 2]
    );
    assert_eq!(requests[1].body["messages"][2]["content"], "first answer");
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread")]
async fn ctrl_c_stops_the_turn_and_kills_the_command() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![calls(&[
        (
            "s",
            "execute_command",
            r#"{"command":"touch started; sleep 60.125"}"#,
        ),
        ("t", "write_file", r#"{"path":"after.txt","content":"x"}"#),
    ])])
    .await;
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
    command
        .arg("-C")
        .arg(repo.path())
        .args([
            "ask",
            "--yes",
            "--base-url",
            &server.base_url,
            "--model",
            "m",
            "run",
        ])
        .env("NO_COLOR", "1")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    let pid_file = repo.path().join("started");
    let started = Instant::now();
    let output = tokio::task::spawn_blocking(move || {
        let child = command.spawn().expect("spawn");
        while !pid_file.exists() && started.elapsed() < Duration::from_secs(20) {
            std::thread::sleep(Duration::from_millis(50));
        }
        std::thread::sleep(Duration::from_millis(200));
        if let Some(pid) = rustix::process::Pid::from_raw(child.id() as i32) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::INT);
        }
        child.wait_with_output().expect("wait")
    })
    .await
    .expect("join");
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("cancelled after"),
        "{}",
        stderr(&output)
    );
    assert!(
        !repo.path().join("after.txt").exists(),
        "a call after Ctrl-C ran"
    );
    std::thread::sleep(Duration::from_millis(200));
    // The command's PID is its namespace's: look for it by its arguments instead.
    assert_eq!(
        mcursor_sandbox::processes_with_arg("60.125"),
        0,
        "the command survived"
    );
}

/// A reply of Qwen2.5-Coder-1.5B as recorded (`fixtures/model-replies/`): the call is
/// written as a fenced JSON block, not as a native tool call.
fn recorded_reply(case: &str) -> String {
    std::fs::read_to_string(
        common::fixtures_dir().join(format!("model-replies/qwen2.5-coder-1.5b/{case}.txt")),
    )
    .expect("recorded reply")
}

#[tokio::test]
async fn tool_calls_written_as_text_run_and_their_results_go_back() {
    let repo = fixture("rust-basic");
    let server = ScriptedServer::start(vec![
        answer(&recorded_reply("one-fenced-call")),
        answer("backoff is defined in src/net/client.rs:17."),
    ])
    .await;
    let output = ask(repo.path(), &server, &["Find the definition of backoff."]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("the model wrote find_symbol as text: run as tool calls"),
        "{}",
        stderr(&output)
    );
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    let results = tool_results(&requests[1]);
    assert_eq!(results.len(), 1, "{results:?}");
    assert!(
        results[0].1.contains("src/net/client.rs:17:4"),
        "{results:?}"
    );
    // The conversation holds the call as a call, not the text a second time.
    let assistant = &requests[1].body["messages"][2];
    assert_eq!(assistant["role"], "assistant");
    assert_eq!(
        assistant["tool_calls"][0]["function"]["name"],
        "find_symbol"
    );
    assert!(assistant.get("content").is_none(), "{assistant}");
    assert!(stdout(&output).contains("src/net/client.rs:17"));
}

#[tokio::test]
async fn native_mode_leaves_calls_written_as_text_as_the_answer() {
    let repo = fixture("rust-basic");
    let reply = recorded_reply("one-fenced-call");
    let server = ScriptedServer::start(vec![answer(&reply)]).await;
    let output = ask(
        repo.path(),
        &server,
        &["--tool-calls", "native", "Find the definition of backoff."],
    )
    .await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert_eq!(server.requests().len(), 1);
    assert!(stdout(&output).contains("\"name\": \"find_symbol\""));
    let refused = ask(repo.path(), &server, &["--tool-calls", "sometimes", "hi"]).await;
    assert_eq!(refused.status.code(), Some(2));
}

#[tokio::test]
async fn a_slow_first_byte_has_its_own_timeout_and_says_which_setting() {
    let repo = fixture("rust-basic");
    // Nothing for 2 s after the request (a model still reading the prompt).
    let server = ScriptedServer::start(vec![
        answer("late").with_pause(Duration::from_secs(2)),
        answer("late").with_pause(Duration::from_secs(2)),
    ])
    .await;
    let started = Instant::now();
    let output = ask(
        repo.path(),
        &server,
        &["--first-byte-timeout", "1", "--idle-timeout", "60", "hi"],
    )
    .await;
    assert_eq!(output.status.code(), Some(2), "{}", stdout(&output));
    assert!(
        stderr(&output).contains("first-byte timeout"),
        "{}",
        stderr(&output)
    );
    assert!(started.elapsed() < Duration::from_secs(20), "not retried");
    assert_eq!(
        server.requests().len(),
        1,
        "a first-byte timeout is not retried"
    );
    // With time enough, the same slow reply is an answer.
    let output = ask(repo.path(), &server, &["--first-byte-timeout", "30", "hi"]).await;
    assert!(output.status.success(), "{}", stderr(&output));
    assert!(stdout(&output).contains("late"));
}

/// Against a real model, only when `MCURSOR_TEST_BASE_URL` is set (CI has none):
/// `MCURSOR_TEST_BASE_URL=http://127.0.0.1:18080/v1 MCURSOR_TEST_MODEL=qwen2.5-coder-1.5b-instruct
/// cargo test -p mcursor --test ask real_model -- --nocapture` after
/// `../shared/local-model/serve.sh 18080`. The model must reach the index (natively or
/// by text) and answer with the definition's file.
#[tokio::test]
async fn real_model_answers_the_fixture_question_through_the_index() {
    let Ok(base_url) = std::env::var("MCURSOR_TEST_BASE_URL") else {
        eprintln!("skipped: set MCURSOR_TEST_BASE_URL to run against a real model");
        return;
    };
    let model = std::env::var("MCURSOR_TEST_MODEL").unwrap_or_else(|_| "local".into());
    let repo = fixture("rust-basic");
    let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_mcursor"));
    command
        .arg("-C")
        .arg(repo.path())
        .args(["--json", "ask", "--base-url", &base_url, "--model", &model])
        .args(["--max-steps", "6"])
        .arg("where is parse_config defined, and who calls it?")
        .env("MCURSOR_API_KEY", "none")
        .stdin(std::process::Stdio::null());
    let output = tokio::task::spawn_blocking(move || command.output().expect("run"))
        .await
        .expect("join");
    assert!(output.status.success(), "{}", stderr(&output));
    let events: Vec<Value> = stdout(&output)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let looked_up = events.iter().any(|e| {
        e["type"] == "tool_finished"
            && matches!(e["name"].as_str(), Some("find_symbol" | "find_references"))
            && e["output"]
                .as_str()
                .is_some_and(|o| o.contains("src/config.rs:11"))
    });
    assert!(looked_up, "no index lookup found parse_config: {events:?}");
    let answer = events
        .iter()
        .rev()
        .find(|e| e["type"] == "answer")
        .and_then(|e| e["text"].as_str())
        .unwrap_or_default();
    assert!(answer.contains("config.rs"), "{answer}");
}
