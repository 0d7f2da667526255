//! `mcursor mcp` as a child process, spoken to as an MCP client does: newline-delimited
//! JSON-RPC over its stdin and stdout.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::Duration;

use serde_json::{Value, json};

struct Client {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Value>,
    /// Notifications seen while waiting for responses.
    notifications: Vec<Value>,
}

impl Client {
    fn start(dir: &std::path::Path) -> Client {
        Client::start_with(dir, &["mcp"])
    }

    fn start_with(dir: &std::path::Path, args: &[&str]) -> Client {
        let mut child = common::mcursor_command(dir, args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn mcursor mcp");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                match serde_json::from_str::<Value>(&line) {
                    Ok(value) => {
                        if sender.send(value).is_err() {
                            break;
                        }
                    }
                    Err(e) => panic!("server wrote a line that is not JSON: {line:?} ({e})"),
                }
            }
        });
        let stdin = child.stdin.take();
        Client {
            child,
            stdin,
            lines,
            notifications: Vec::new(),
        }
    }

    fn send_raw(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write");
        stdin.flush().expect("flush");
    }

    fn send(&mut self, message: Value) {
        self.send_raw(&message.to_string());
    }

    fn response(&mut self, id: u64) -> Value {
        loop {
            let message = self
                .lines
                .recv_timeout(Duration::from_secs(60))
                .unwrap_or_else(|_| panic!("no response to request {id}"));
            if message.get("id") == Some(&json!(id)) {
                return message;
            }
            self.notifications.push(message);
        }
    }

    fn request(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        self.response(id)
    }

    fn call(&mut self, id: u64, tool: &str, arguments: Value) -> Value {
        self.request(
            id,
            "tools/call",
            json!({"name": tool, "arguments": arguments}),
        )
    }
}

fn text_of(response: &Value) -> String {
    response["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

#[test]
fn an_mcp_client_can_list_and_call_the_index_tools() {
    let dir = common::fixture("rust-basic");
    let mut client = Client::start(dir.path());

    let init = client.request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "mcursor-test", "version": "0"}
        }),
    );
    assert_eq!(init["result"]["protocolVersion"], "2025-06-18", "{init}");
    assert_eq!(init["result"]["serverInfo"]["name"], "mcursor");
    assert!(init["result"]["capabilities"]["tools"].is_object());
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));

    let list = client.request(2, "tools/list", json!({}));
    let mut names: Vec<&str> = list["result"]["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "callees",
            "callers",
            "find_implementations",
            "find_references",
            "find_symbol",
            "impact",
            "index_status",
            "search_code"
        ]
    );
    for tool in list["result"]["tools"].as_array().expect("tools") {
        assert!(
            tool["description"].as_str().is_some_and(|d| d.len() > 40),
            "{tool}"
        );
        assert_eq!(tool["inputSchema"]["type"], "object", "{tool}");
    }

    // No index exists yet: the first call builds it and reports progress.
    let found = client.request(
        3,
        "tools/call",
        json!({
            "name": "find_symbol",
            "arguments": {"name": "parse_config"},
            "_meta": {"progressToken": "build-1"}
        }),
    );
    assert_eq!(
        found["result"]["structuredContent"]["found"], true,
        "{found}"
    );
    assert_eq!(
        found["result"]["structuredContent"]["definitions"][0]["qualified_name"],
        "config::parse_config"
    );
    assert!(text_of(&found).contains("src/config.rs:11:8 function config::parse_config"));
    assert!(
        client
            .notifications
            .iter()
            .any(|n| n["method"] == "notifications/progress"
                && n["params"]["progressToken"] == "build-1"),
        "no progress notification: {:?}",
        client.notifications
    );

    let refs = client.call(4, "find_references", json!({"target": "parse_config"}));
    let references = refs["result"]["structuredContent"]["references"]
        .as_array()
        .expect("references")
        .clone();
    assert!(
        references
            .iter()
            .any(|r| r["path"] == "tests/smoke.rs" && r["confidence"] == "resolved")
    );

    // "No such symbol" and "no references" are different answers.
    let missing = client.call(5, "find_references", json!({"target": "parse_confg"}));
    assert_eq!(
        missing["result"]["structuredContent"]["found"], false,
        "{missing}"
    );
    assert_eq!(
        missing["result"]["structuredContent"]["suggestions"][0],
        "parse_config"
    );
    let unused = client.call(
        6,
        "find_references",
        json!({"target": "src/config.rs:31:12"}),
    );
    assert_eq!(
        unused["result"]["structuredContent"]["found"], true,
        "{unused}"
    );
    assert_eq!(
        unused["result"]["structuredContent"]["references"],
        json!([])
    );

    let callers = client.call(7, "callers", json!({"target": "backoff", "depth": 2}));
    assert!(
        text_of(&callers).contains("net::client::Client::run -> net::client::backoff"),
        "{callers}"
    );
    let search = client.call(8, "search_code", json!({"query": "retry backoff"}));
    assert!(
        text_of(&search).contains("src/net/client.rs:18:"),
        "{search}"
    );
    let status = client.call(9, "index_status", json!({}));
    assert_eq!(
        status["result"]["structuredContent"]["current"], true,
        "{status}"
    );

    // The index follows the files: a new definition is found without a manual reindex.
    std::fs::write(
        dir.path().join("src/extra.rs"),
        "pub fn freshly_added() -> u32 { 1 }\n",
    )
    .expect("write");
    std::thread::sleep(Duration::from_millis(1100));
    let fresh = client.call(10, "find_symbol", json!({"name": "freshly_added"}));
    assert_eq!(
        fresh["result"]["structuredContent"]["found"], true,
        "{fresh}"
    );

    // Bad requests: answered, and the server stays up.
    let unknown = client.call(11, "no_such_tool", json!({}));
    assert!(unknown["error"]["code"].is_i64(), "{unknown}");
    let wrong_type = client.call(12, "find_symbol", json!({"name": 5}));
    assert!(
        wrong_type.get("error").is_some() || wrong_type["result"]["isError"] == true,
        "{wrong_type}"
    );
    let huge = client.call(13, "search_code", json!({"query": "x".repeat(100_000)}));
    assert_eq!(huge["error"]["code"], -32602, "{huge}");
    let bad_regex = client.call(14, "search_code", json!({"query": "(", "regex": true}));
    assert_eq!(bad_regex["result"]["isError"], true, "{bad_regex}");
    client.send_raw("{ this is not json");
    client.send_raw("[]");
    let still_up = client.call(15, "find_symbol", json!({"name": "Session"}));
    assert_eq!(
        still_up["result"]["structuredContent"]["found"], true,
        "{still_up}"
    );

    // A closed stdin ends the server cleanly.
    drop(client.stdin.take());
    let mut waited = 0;
    let status = loop {
        if let Some(status) = client.child.try_wait().expect("try_wait") {
            break status;
        }
        assert!(waited < 100, "server did not exit after stdin closed");
        std::thread::sleep(Duration::from_millis(100));
        waited += 1;
    };
    assert!(status.success(), "{status:?}");
}

fn initialized(dir: &std::path::Path) -> Client {
    initialized_with(dir, &["mcp"])
}

fn initialized_with(dir: &std::path::Path, args: &[&str]) -> Client {
    let mut client = Client::start_with(dir, args);
    client.request(
        1,
        "initialize",
        json!({
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "mcursor-test", "version": "0"}
        }),
    );
    client.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
    client
}

#[cfg(unix)]
#[test]
fn a_file_swapped_for_a_link_to_outside_is_not_read_through() {
    let dir = common::fixture("rust-basic");
    let outside = tempfile::tempdir().expect("tempdir");
    let secret = outside.path().join("secret.rs");
    std::fs::write(&secret, "pub fn canary_word() {} // TOPSECRET-4711\n").expect("write");
    let swapped = dir.path().join("src/swapped.rs");
    std::fs::write(&swapped, "pub fn canary_word() {}\n").expect("write");
    let mut client = initialized(dir.path());
    let first = client.call(2, "search_code", json!({"query": "canary_word"}));
    assert!(text_of(&first).contains("src/swapped.rs:1:"), "{first}");
    // Within the freshness window, the indexed file becomes a link to outside, then a
    // FIFO: neither is read (the link's target, or forever).
    std::fs::remove_file(&swapped).expect("remove");
    std::os::unix::fs::symlink(&secret, &swapped).expect("symlink");
    let second = client.call(3, "search_code", json!({"query": "canary_word"}));
    assert!(!text_of(&second).contains("TOPSECRET"), "{second}");
    std::fs::remove_file(&swapped).expect("remove");
    let made = std::process::Command::new("mkfifo")
        .arg(&swapped)
        .status()
        .expect("mkfifo");
    assert!(made.success());
    let third = client.call(
        4,
        "search_code",
        json!({"query": "canary_word", "regex": true}),
    );
    assert!(!text_of(&third).contains("TOPSECRET"), "{third}");
}

#[cfg(unix)]
#[test]
fn a_file_name_with_a_newline_cannot_fake_result_lines() {
    let dir = common::fixture("rust-basic");
    let evil = dir.path().join("src/x.rs:1: pub fn forged() {}\ny.rs");
    std::fs::write(&evil, "pub fn genuine_marker() {}\n").expect("write");
    let mut client = initialized(dir.path());
    let found = client.call(2, "find_symbol", json!({"name": "genuine_marker"}));
    let text = text_of(&found);
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains("\\n"), "{text}");
    // The CLI's text output escapes the name the same way.
    common::index(dir.path());
    let (_, out) = common::query(dir.path(), &["find", "genuine_marker"]);
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("x.rs:1: pub fn forged() {}\\ny.rs"), "{out}");
}

#[test]
fn a_limit_says_how_many_there_are() {
    let dir = common::fixture("rust-basic");
    let mut client = initialized(dir.path());
    let whole = client.call(2, "find_references", json!({"target": "parse_config"}));
    let structured = &whole["result"]["structuredContent"];
    let total = structured["references"].as_array().map_or(0, Vec::len);
    assert!(total > 1, "{whole}");
    assert_eq!(structured["total"], json!(total));
    assert_eq!(structured["truncated"], json!(false));

    let cut = client.call(
        3,
        "find_references",
        json!({"target": "parse_config", "limit": 1}),
    );
    let structured = &cut["result"]["structuredContent"];
    assert_eq!(structured["references"].as_array().map(Vec::len), Some(1));
    assert_eq!(structured["total"], json!(total));
    assert_eq!(structured["truncated"], json!(true));
    assert!(
        text_of(&cut).contains(&format!("(1 of {total} shown;")),
        "{}",
        text_of(&cut)
    );

    let search = client.call(4, "search_code", json!({"query": "config", "limit": 2}));
    let structured = &search["result"]["structuredContent"];
    assert_eq!(structured["matches"].as_array().map(Vec::len), Some(2));
    assert_eq!(structured["truncated"], json!(true));
    assert!(structured["total"].as_u64().unwrap_or(0) > 2, "{search}");
    let find = client.call(
        5,
        "find_symbol",
        json!({"name": "parse_config", "limit": 1}),
    );
    assert_eq!(find["result"]["structuredContent"]["total"], json!(2));
    assert_eq!(
        find["result"]["structuredContent"]["truncated"],
        json!(true)
    );
}

/// The hand-written session in README.md stays true: its requests, sent as written, get
/// the answers it shows (the text of the cut `tools/call` exactly; the rest by shape).
#[test]
fn the_readme_session_is_what_the_server_answers() {
    let readme = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"),
    )
    .expect("README.md");
    let session: Vec<&str> = readme
        .lines()
        .skip_while(|l| !l.starts_with("$ mcursor mcp -C fixtures/rust-basic"))
        .skip(1)
        .take_while(|l| !l.starts_with("```"))
        .collect();
    assert!(session.len() >= 7, "the README session was not found");
    let dir = common::fixture("rust-basic");
    let mut client = Client::start(dir.path());
    let mut checked = 0;
    for (i, line) in session.iter().enumerate() {
        let message: Value = match serde_json::from_str(line) {
            Ok(message) => message,
            // An answer shortened with `…` is not JSON; its request was checked.
            Err(_) => continue,
        };
        if message.get("method").is_none() {
            continue;
        }
        client.send_raw(line);
        let Some(id) = message.get("id").and_then(Value::as_u64) else {
            continue;
        };
        let answer = client.response(id);
        let shown = session.get(i + 1).copied().unwrap_or_default();
        assert!(
            shown.starts_with(&format!("{{\"jsonrpc\":\"2.0\",\"id\":{id},\"result\"")),
            "the README shows no answer to request {id}"
        );
        assert!(answer.get("result").is_some(), "{answer}");
        if message["method"] == "tools/call" {
            let text = text_of(&answer);
            let escaped = serde_json::to_string(&text).expect("json");
            assert!(
                shown.contains(&escaped),
                "README: {shown}\nserver: {escaped}"
            );
            let structured = &answer["result"]["structuredContent"];
            assert!(shown.contains(&format!("\"total\":{}", structured["total"])));
            assert!(shown.contains(&format!("\"truncated\":{}", structured["truncated"])));
        }
        checked += 1;
    }
    assert_eq!(checked, 3, "initialize, tools/list and tools/call");
}

/// The index is a resource; a subscriber hears `notifications/resources/updated` when
/// another process moves the generation, and the next call answers from it.
#[test]
fn subscribers_hear_when_the_index_generation_moves() {
    let dir = common::fixture("rust-basic");
    common::index(dir.path());
    let mut client = initialized(dir.path());
    let resources = client.request(2, "resources/list", json!({}));
    assert_eq!(
        resources["result"]["resources"][0]["uri"], "mcursor://index",
        "{resources}"
    );
    let read = client.request(3, "resources/read", json!({"uri": "mcursor://index"}));
    let status: Value = serde_json::from_str(
        read["result"]["contents"][0]["text"]
            .as_str()
            .expect("text"),
    )
    .expect("status JSON");
    assert!(
        status["symbols"].as_u64().is_some_and(|n| n > 0),
        "{status}"
    );
    let unknown = client.request(4, "resources/subscribe", json!({"uri": "mcursor://other"}));
    assert!(unknown.get("error").is_some(), "{unknown}");
    let subscribed = client.request(5, "resources/subscribe", json!({"uri": "mcursor://index"}));
    assert!(subscribed.get("error").is_none(), "{subscribed}");

    std::fs::write(dir.path().join("src/later.rs"), "pub fn later() {}\n").expect("write");
    common::index(dir.path());
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        if client.notifications.iter().any(|n| {
            n["method"] == "notifications/resources/updated"
                && n["params"]["uri"] == "mcursor://index"
        }) {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "no update notification: {:?}",
            client.notifications
        );
        if let Ok(message) = client.lines.recv_timeout(Duration::from_millis(200)) {
            client.notifications.push(message);
        }
    }
    let found = client.call(6, "find_symbol", json!({"name": "later"}));
    assert!(text_of(&found).contains("src/later.rs"), "{found}");
}

/// Whether a watcher holds the index's watch mark (what queries and readers trust).
fn watched(dir: &std::path::Path) -> bool {
    let Ok(file) = std::fs::File::open(dir.join(".mcursor/watch.lock")) else {
        return false;
    };
    matches!(
        file.try_lock_shared(),
        Err(std::fs::TryLockError::WouldBlock)
    )
}

/// `mcursor mcp --watch` runs a watcher beside the server: the index is marked watched
/// while it serves, a save is indexed without any query asking, and the watcher stops
/// with the server.
#[test]
fn a_watching_server_indexes_saves_and_stops_its_watcher_with_it() {
    let dir = common::fixture("rust-basic");
    common::index(dir.path());
    let mut client = initialized_with(dir.path(), &["mcp", "--watch"]);
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    while !watched(dir.path()) {
        assert!(std::time::Instant::now() < deadline, "never watched");
        std::thread::sleep(Duration::from_millis(50));
    }
    let before = mcursor_index::current_generation(dir.path());
    std::fs::write(dir.path().join("src/later.rs"), "pub fn later() {}\n").expect("write");
    // Committed by the watcher: no query runs until the generation has moved.
    while mcursor_index::current_generation(dir.path()) == before {
        assert!(
            std::time::Instant::now() < deadline,
            "the save was not indexed"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    let found = client.call(2, "find_symbol", json!({"name": "later"}));
    assert!(text_of(&found).contains("src/later.rs"), "{found}");

    drop(client.stdin.take());
    let status = loop {
        if let Some(status) = client.child.try_wait().expect("try_wait") {
            break status;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "server did not exit after stdin closed"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    assert!(status.success(), "{status:?}");
    assert!(!watched(dir.path()), "the watcher outlived the server");
}
