//! `mcursor index` beside a running `mcursor watch`: the one-shot process hands its
//! update to the watcher instead of doing it.
//!
//! The watcher holds every file's declarations and the resolver's tables between updates;
//! a one-shot process loads them from the facts cache and makes the tables again (on
//! `rustreg`, about 1 s of an interface edit's 1.0–1.4 s). Worse, the two raced: the
//! one-shot update took the writer lock first, the watcher then found nothing to do, and
//! its held declarations were of a generation it had not written, so the next watched
//! edit loaded them again. So the watcher (the holder of the watch mark, `fresh.rs`)
//! listens on a Unix socket in the index directory; `mcursor index` connects, asks for an
//! update (of the whole tree, or of the files it names) and prints the summary the
//! watcher's loop sends back, the same update its loop makes for a file-system event.
//!
//! The exchange is one line of JSON each way. Anything short of a reply (no socket, a
//! socket left by a watcher that was killed, a watcher that stops or fails mid-update,
//! no reply within [`REPLY_WAIT`]) leaves the caller to update the index itself, as
//! before; the writer lock keeps the two from writing at once either way.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::build::BuildSummary;

/// The watcher's socket, in the index directory.
pub(crate) const SOCKET: &str = "watch.sock";

/// How long a caller waits for the watcher's reply (a full resolution of a large tree
/// takes about a minute; this is for a watcher that hangs).
const REPLY_WAIT: Duration = Duration::from_secs(300);

/// How long the watcher waits for a caller's request line.
const REQUEST_WAIT: Duration = Duration::from_secs(2);

/// The longest request line read (a list of changed paths).
const REQUEST_LIMIT: u64 = 1 << 20;

/// The longest reply read (a summary lists at most 1,000 changed and 1,000 skipped files).
const REPLY_LIMIT: u64 = 16 << 20;

/// What a caller asks for.
#[derive(Debug, Serialize, Deserialize)]
struct Request {
    /// The files the caller knows changed (`mcursor index --changed`), else the whole
    /// tree is compared.
    changed: Option<Vec<PathBuf>>,
}

/// What the watcher answers.
#[derive(Debug, Serialize, Deserialize)]
enum Reply {
    Updated {
        summary: Box<BuildSummary>,
        pid: u32,
    },
    Failed(String),
}

/// An update the watcher's loop is asked for, and where its outcome goes.
pub(crate) struct UpdateRequest {
    pub changed: Option<Vec<PathBuf>>,
    pub reply: mpsc::Sender<std::result::Result<BuildSummary, String>>,
}

/// An update made by the running watcher for this process.
#[derive(Debug)]
pub struct HandedOff {
    pub summary: BuildSummary,
    /// The watcher's process id.
    pub watcher_pid: u32,
}

/// Asks the watcher of the index in `dir` to bring it up to date (the files in
/// `changed`, or the whole tree) and waits for its summary. `None` when no watcher
/// answers with one: the caller updates the index itself. Never blocks longer than
/// [`REPLY_WAIT`].
pub fn update_by_watcher(dir: &Path, changed: Option<Vec<PathBuf>>) -> Option<HandedOff> {
    let outcome = ask(dir, &Request { changed });
    if let Err(why) = &outcome {
        crate::trace::note(format_args!("not handed to a watcher: {why}"));
    }
    outcome.ok()
}

fn ask(dir: &Path, request: &Request) -> std::result::Result<HandedOff, String> {
    let mut stream = connect(&dir.join(SOCKET)).map_err(|e| format!("no watcher ({e})"))?;
    let line = serde_json::to_string(request).map_err(|e| e.to_string())?;
    stream
        .set_read_timeout(Some(REPLY_WAIT))
        .and_then(|()| writeln!(stream, "{line}"))
        .map_err(|e| format!("the watcher took no request ({e})"))?;
    let mut reply = String::new();
    BufReader::new(stream.take(REPLY_LIMIT))
        .read_line(&mut reply)
        .map_err(|e| format!("no reply from the watcher ({e})"))?;
    match serde_json::from_str(&reply) {
        Ok(Reply::Updated { summary, pid }) => Ok(HandedOff {
            summary: *summary,
            watcher_pid: pid,
        }),
        Ok(Reply::Failed(why)) => Err(format!("the watcher's update failed: {why}")),
        Err(_) if reply.is_empty() => Err("the watcher stopped before replying".into()),
        Err(e) => Err(format!("an unreadable reply from the watcher ({e})")),
    }
}

#[cfg(unix)]
fn connect(path: &Path) -> std::io::Result<std::os::unix::net::UnixStream> {
    std::os::unix::net::UnixStream::connect(path)
}

#[cfg(not(unix))]
fn connect(_: &Path) -> std::io::Result<std::fs::File> {
    Err(std::io::Error::new(
        std::io::ErrorKind::Unsupported,
        "only on Unix",
    ))
}

/// The watcher's side: a thread that takes requests on the socket and passes each to the
/// loop through `send`. Stopped, and its socket removed, when dropped (without waiting
/// for the thread: it may be waiting for an update the loop will never make, and ends
/// when the loop's channel is gone).
pub(crate) struct Listener {
    path: PathBuf,
    stopping: Arc<AtomicBool>,
}

impl Listener {
    /// Listens in the index directory `dir`; called by the holder of the watch mark only
    /// (so a socket already there was left by a watcher that is gone). `None` when it
    /// cannot (a path too long for a socket, not Unix): callers then update by
    /// themselves, as without a watcher.
    #[cfg(unix)]
    pub(crate) fn start(
        dir: &Path,
        send: impl Fn(UpdateRequest) -> bool + Send + 'static,
    ) -> Option<Listener> {
        use std::os::unix::net::UnixListener;
        let path = dir.join(SOCKET);
        let bound = match std::fs::remove_file(&path) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => UnixListener::bind(&path),
        };
        let listener = bound
            .map_err(|e| crate::trace::note(format_args!("no handoff socket: {e}")))
            .ok()?;
        let stopping = Arc::new(AtomicBool::new(false));
        let stop = stopping.clone();
        let thread = std::thread::Builder::new()
            .name("mcursor-handoff".into())
            .spawn(move || {
                for stream in listener.incoming() {
                    if stop.load(Ordering::Acquire) {
                        break;
                    }
                    if let Ok(stream) = stream {
                        serve(stream, &send);
                    }
                }
            });
        match thread {
            Ok(_) => Some(Listener { path, stopping }),
            Err(e) => {
                crate::trace::note(format_args!("no handoff thread: {e}"));
                let _ = std::fs::remove_file(&path);
                None
            }
        }
    }

    #[cfg(not(unix))]
    pub(crate) fn start(
        _: &Path,
        _: impl Fn(UpdateRequest) -> bool + Send + 'static,
    ) -> Option<Listener> {
        None
    }
}

impl Drop for Listener {
    fn drop(&mut self) {
        self.stopping.store(true, Ordering::Release);
        // The thread waits in `accept`: a connection of our own wakes it to see the flag.
        let _ = connect(&self.path);
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Answers one connection: reads its request, has the loop make the update and writes
/// the outcome back. A caller that went away meanwhile only loses its reply.
#[cfg(unix)]
fn serve(stream: std::os::unix::net::UnixStream, send: &dyn Fn(UpdateRequest) -> bool) {
    let reply = match read_request(&stream) {
        Ok(request) => {
            let (reply, outcome) = mpsc::channel();
            let sent = send(UpdateRequest {
                changed: request.changed,
                reply,
            });
            match outcome.recv() {
                Ok(Ok(summary)) => Reply::Updated {
                    summary: Box::new(summary),
                    pid: std::process::id(),
                },
                Ok(Err(why)) => Reply::Failed(why),
                Err(_) if !sent => Reply::Failed("the watcher is stopping".into()),
                Err(_) => Reply::Failed("the watcher stopped during the update".into()),
            }
        }
        Err(why) => Reply::Failed(why),
    };
    if let Ok(line) = serde_json::to_string(&reply) {
        let _ = stream.set_write_timeout(Some(REQUEST_WAIT));
        let _ = writeln!(&stream, "{line}");
    }
}

#[cfg(unix)]
fn read_request(stream: &std::os::unix::net::UnixStream) -> std::result::Result<Request, String> {
    let mut line = String::new();
    stream
        .set_read_timeout(Some(REQUEST_WAIT))
        .and_then(|()| BufReader::new(stream.take(REQUEST_LIMIT)).read_line(&mut line))
        .map_err(|e| format!("no request ({e})"))?;
    serde_json::from_str(&line).map_err(|e| format!("an unreadable request ({e})"))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::net::UnixStream;

    /// One raw exchange: `line` sent, the reply line read.
    fn exchange(dir: &Path, line: &str) -> Reply {
        let mut stream = UnixStream::connect(dir.join(SOCKET)).expect("connect");
        writeln!(stream, "{line}").expect("send");
        let mut reply = String::new();
        BufReader::new(stream).read_line(&mut reply).expect("reply");
        serde_json::from_str(&reply).expect("a reply")
    }

    fn failed(reply: Reply) -> String {
        match reply {
            Reply::Failed(why) => why,
            Reply::Updated { .. } => panic!("an update where a failure was due"),
        }
    }

    #[test]
    fn the_listener_answers_with_the_loops_outcome_and_survives_bad_requests() {
        let dir = tempfile::tempdir().expect("tempdir");
        let listener = Listener::start(dir.path(), |request: UpdateRequest| {
            let names = request.changed.map_or(0, |paths| paths.len());
            request.reply.send(Err(format!("{names} paths"))).is_ok()
        })
        .expect("listening");
        assert!(failed(exchange(dir.path(), "not json")).contains("unreadable request"));
        assert!(failed(exchange(dir.path(), "")).contains("unreadable request"));
        // Served after the bad ones, with what it named.
        assert_eq!(
            failed(exchange(dir.path(), r#"{"changed":["a","b"]}"#)),
            "2 paths"
        );
        assert_eq!(
            failed(exchange(dir.path(), r#"{"changed":null}"#)),
            "0 paths"
        );
        // A failed update is no handoff: the caller updates by itself.
        assert!(update_by_watcher(dir.path(), None).is_none());
        drop(listener);
        assert!(!dir.path().join(SOCKET).exists(), "the socket goes with it");
        assert!(update_by_watcher(dir.path(), None).is_none(), "no watcher");
    }

    #[test]
    fn a_loop_that_is_gone_or_a_stale_socket_leave_the_update_to_the_caller() {
        let dir = tempfile::tempdir().expect("tempdir");
        let listener = Listener::start(dir.path(), |_| false).expect("listening");
        assert_eq!(
            failed(exchange(dir.path(), r#"{"changed":null}"#)),
            "the watcher is stopping"
        );
        drop(listener);
        // A socket file no one listens on (its watcher was killed).
        drop(std::os::unix::net::UnixListener::bind(dir.path().join(SOCKET)).expect("bind"));
        assert!(dir.path().join(SOCKET).exists());
        assert!(update_by_watcher(dir.path(), None).is_none());
        // The next watcher replaces it.
        let listener = Listener::start(dir.path(), |request: UpdateRequest| {
            request.reply.send(Err("served".into())).is_ok()
        })
        .expect("listening over a stale socket");
        assert_eq!(
            failed(exchange(dir.path(), r#"{"changed":null}"#)),
            "served"
        );
        drop(listener);
    }
}
