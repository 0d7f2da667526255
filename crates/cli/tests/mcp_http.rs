//! `mcursor mcp --http`: the server over streamable HTTP, as a raw HTTP client and as the
//! official Python SDK's client see it (the latter where CI provides it:
//! `MCURSOR_TEST_PYTHON` names a Python with the `mcp` package, see `.ci/run`).

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Stdio};
use std::time::Duration;

/// A running `mcursor mcp --http 127.0.0.1:0`, killed on drop.
struct Server {
    child: Child,
    address: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start(dir: &std::path::Path, token: Option<&str>) -> Server {
    let mut command = common::mcursor_command(dir, &["mcp", "--http", "127.0.0.1:0"]);
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    match token {
        Some(token) => command.env("MCURSOR_MCP_TOKEN", token),
        None => command.env_remove("MCURSOR_MCP_TOKEN"),
    };
    let mut child = command.spawn().expect("spawn mcursor mcp --http");
    let stderr = child.stderr.take().expect("stderr");
    let mut line = String::new();
    BufReader::new(stderr)
        .read_line(&mut line)
        .expect("first line");
    let address = line
        .split("http://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_owned();
    Server { child, address }
}

/// One HTTP/1.1 POST of `body` to `/mcp` (connection closed after it): (status, text).
fn post(address: &str, authorization: Option<&str>, body: &str) -> (u16, String) {
    let mut stream = TcpStream::connect(address).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(30)))
        .expect("timeout");
    let mut request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {address}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nConnection: close\r\n\
         Content-Length: {}\r\n",
        body.len()
    );
    if let Some(value) = authorization {
        request.push_str(&format!("Authorization: {value}\r\n"));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).expect("send");
    let mut response = Vec::new();
    // The reply is complete at the end of the stream, or (an SSE stream held open) once
    // the JSON-RPC result has arrived.
    let mut buffer = [0u8; 4096];
    loop {
        match stream.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => response.extend_from_slice(&buffer[..n]),
        }
        if String::from_utf8_lossy(&response).contains("\"result\"") {
            break;
        }
    }
    let text = String::from_utf8_lossy(&response).into_owned();
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(0);
    (status, text)
}

const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}"#;

#[test]
fn a_token_is_required_when_set_and_a_public_address_needs_one() {
    let dir = common::fixture("rust-basic");
    common::index(dir.path());
    let server = start(dir.path(), Some("s3cret-token"));
    let (status, text) = post(&server.address, None, INITIALIZE);
    assert_eq!(status, 401, "{text}");
    assert!(
        text.to_ascii_lowercase()
            .contains("www-authenticate: bearer"),
        "{text}"
    );
    let (status, _) = post(&server.address, Some("Bearer s3cret-tokeX"), INITIALIZE);
    assert_eq!(status, 401);
    let (status, _) = post(&server.address, Some("Basic s3cret-token"), INITIALIZE);
    assert_eq!(status, 401);
    let (status, text) = post(&server.address, Some("Bearer s3cret-token"), INITIALIZE);
    assert_eq!(status, 200, "{text}");
    assert!(
        text.contains("\"serverInfo\"") && text.contains("mcursor"),
        "{text}"
    );
    assert!(
        text.to_ascii_lowercase().contains("mcp-session-id:"),
        "{text}"
    );

    // Loopback without a token: served, to this machine only.
    let open = start(dir.path(), None);
    let (status, text) = post(&open.address, None, INITIALIZE);
    assert_eq!(status, 200, "{text}");

    let public = common::mcursor_command(dir.path(), &["mcp", "--http", "0.0.0.0:0"])
        .env_remove("MCURSOR_MCP_TOKEN")
        .output()
        .expect("run");
    assert_eq!(public.status.code(), Some(2));
    assert!(
        common::stderr(&public).contains("MCURSOR_MCP_TOKEN"),
        "{}",
        common::stderr(&public)
    );
}

/// The official Python SDK's streamable HTTP client: tools, a call, a subscription and
/// the update notification after another process re-indexes.
#[test]
fn the_python_sdk_client_works_over_http() {
    let Some(python) = std::env::var_os("MCURSOR_TEST_PYTHON") else {
        eprintln!(
            "skipped: set MCURSOR_TEST_PYTHON to a Python with the `mcp` package (.ci/run does)"
        );
        return;
    };
    let dir = common::fixture("rust-basic");
    common::index(dir.path());
    let server = start(dir.path(), Some("py-token"));
    let script = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/mcp-http/client.py");
    let output = std::process::Command::new(python)
        .arg(script)
        .arg(format!("http://{}/mcp", server.address))
        .arg("py-token")
        .arg(env!("CARGO_BIN_EXE_mcursor"))
        .arg(dir.path())
        .output()
        .expect("run the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let steps: Vec<serde_json::Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).expect("a JSON step"))
        .collect();
    let step = |name: &str| {
        steps
            .iter()
            .find(|s| s["step"] == name)
            .unwrap_or_else(|| panic!("no {name} step in {stdout}"))
    };
    assert_eq!(step("initialized")["server"], "mcursor");
    let tools = step("tools")["names"].as_array().expect("names").len();
    assert_eq!(tools, mcursor_tools::IndexTool::ALL.len());
    let implementations = step("implementations");
    assert_eq!(implementations["error"], false);
    assert!(
        implementations["text"]
            .as_str()
            .is_some_and(|t| t.contains("impl session::Runner for session::Session")),
        "{implementations}"
    );
    assert_eq!(step("notified")["uri"], "mcursor://index");
    assert!(
        step("found")["text"]
            .as_str()
            .is_some_and(|t| t.contains("added_over_http")),
        "{stdout}"
    );
}
