//! `mcursor watch` end to end: editor save patterns, deletes, directory moves, new
//! directories, `.gitignore` edits and a `git checkout` between branches that differ in a
//! thousand files all end in an index equal to a fresh one; Ctrl-C exits cleanly.

mod common;

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

use common::{append, copy_tree, fixture, mcursor, mcursor_command, stderr, stdout};
use mcursor_index::{
    BuildOptions, FindQuery, FoldPolicy, Index, WatchEvent, WatchOptions, build_index,
};

struct Watcher {
    child: Child,
    lines: Receiver<serde_json::Value>,
}

impl Watcher {
    fn start(root: &Path) -> Watcher {
        let mut child = mcursor_command(root, &["--json", "watch", "--debounce-ms", "30"])
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn watch");
        let stdout = child.stdout.take().expect("stdout");
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if let Ok(value) = serde_json::from_str(&line) {
                    let _ = tx.send(value);
                }
            }
        });
        let watcher = Watcher { child, lines };
        let ready = watcher.next_event(Duration::from_secs(30));
        assert_eq!(ready["event"], "ready", "{ready}");
        watcher
    }

    fn next_event(&self, timeout: Duration) -> serde_json::Value {
        self.lines
            .recv_timeout(timeout)
            .expect("an event from mcursor watch")
    }

    /// Sends SIGINT and returns the exit status.
    fn interrupt(mut self) -> std::process::ExitStatus {
        let pid = rustix::process::Pid::from_child(&self.child);
        rustix::process::kill_process(pid, rustix::process::Signal::INT).expect("SIGINT");
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "watch did not exit after SIGINT");
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Watcher {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn defined(root: &Path, name: &str) -> bool {
    Index::open(root).is_ok_and(|index| !index.find(&FindQuery::exact(name)).is_empty())
}

/// Waits until `check` holds (the watcher has caught up), failing after a generous time.
fn eventually(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while !check() {
        assert!(Instant::now() < deadline, "timed out waiting for: {what}");
        std::thread::sleep(Duration::from_millis(25));
    }
}

fn fresh_dump(root: &Path) -> String {
    let copy = tempfile::tempdir().expect("tempdir");
    copy_tree(root, copy.path());
    let _ = std::fs::remove_dir_all(copy.path().join(".git"));
    let options = BuildOptions {
        full: true,
        ..BuildOptions::default()
    };
    build_index(copy.path(), &options, &|_| {}).expect("fresh build");
    Index::open(copy.path())
        .expect("open")
        .dump()
        .expect("dump")
}

fn current_dump(root: &Path) -> String {
    Index::open(root).expect("open").dump().expect("dump")
}

/// The index equals a fresh one once the watcher has caught up.
fn converges(root: &Path, what: &str) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let fresh = fresh_dump(root);
    while current_dump(root) != fresh {
        assert!(
            Instant::now() < deadline,
            "{what}: index never equalled a fresh one"
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn watch_follows_saves_moves_deletes_and_ignores_then_stops_cleanly() {
    let repo = fixture("rust-basic");
    let root = repo.path();
    let watcher = Watcher::start(root);
    let src = root.join("src");

    // Write-then-rename, as most editors save.
    let text = std::fs::read_to_string(src.join("config.rs")).expect("read");
    std::fs::write(
        src.join(".config.rs.tmp"),
        format!("{text}\npub fn saved_by_rename() {{}}\n"),
    )
    .expect("write temp");
    std::fs::rename(src.join(".config.rs.tmp"), src.join("config.rs")).expect("rename");
    eventually("write-then-rename save", || {
        defined(root, "saved_by_rename")
    });
    let updated = watcher.next_event(Duration::from_secs(10));
    assert_eq!(updated["event"], "updated", "{updated}");
    assert!(
        updated["summary"]["changes"]["files"]
            .as_array()
            .is_some_and(|files| files.iter().any(|f| f["path"] == "src/config.rs")),
        "{updated}"
    );

    // Truncate and write in place, with a swap file beside it (hidden: never indexed).
    std::fs::write(src.join(".session.rs.swp"), b"swap\0file").expect("swap");
    let mut file = std::fs::File::create(src.join("session.rs")).expect("truncate");
    file.write_all(b"pub fn rewritten_in_place() {}\n")
        .expect("write");
    drop(file);
    eventually("truncate-and-write", || defined(root, "rewritten_in_place"));

    // A new directory, then a directory move.
    std::fs::create_dir_all(src.join("extra/deeper")).expect("mkdir");
    std::fs::write(src.join("extra/deeper/new.rs"), "pub fn in_new_dir() {}\n").expect("add");
    eventually("new directory", || defined(root, "in_new_dir"));
    std::fs::rename(src.join("extra"), src.join("moved")).expect("move dir");
    eventually("directory move", || {
        Index::open(root).is_ok_and(|index| {
            index
                .find(&FindQuery::exact("in_new_dir"))
                .iter()
                .any(|hit| hit.path == "src/moved/deeper/new.rs")
        })
    });

    // Delete, and ignore through .gitignore.
    std::fs::remove_file(src.join("moved/deeper/new.rs")).expect("delete");
    eventually("delete", || !defined(root, "in_new_dir"));
    std::fs::write(root.join(".gitignore"), "src/session.rs\n").expect("ignore");
    eventually(".gitignore edit", || !defined(root, "rewritten_in_place"));
    converges(root, "after the edits");

    // A manual `mcursor index` while watch runs: one writer at a time, so it waits for an
    // update under way, then finds nothing left to do.
    std::fs::write(src.join("lib.rs"), "pub fn changed_under_both() {}\n").expect("edit");
    let manual = common::mcursor(root, &["index"]);
    assert!(manual.status.success(), "{}", stderr(&manual));
    eventually("the edit seen by both", || {
        defined(root, "changed_under_both")
    });
    converges(root, "after a manual index during watch");

    let status = watcher.interrupt();
    assert!(status.success(), "watch exited with {status}");
    assert_eq!(current_dump(root), fresh_dump(root));
}

fn git(root: &Path, args: &[&str]) {
    let output = Command::new("git")
        .arg("-C")
        .arg(root)
        .args(args)
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .expect("git runs (CI installs it)");
    assert!(output.status.success(), "git {args:?}: {}", stderr(&output));
}

#[test]
fn watch_converges_after_a_checkout_of_a_thousand_files() {
    let repo = fixture("rust-basic");
    let root = repo.path();
    git(root, &["init", "-q", "-b", "main"]);
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "base"]);
    git(root, &["checkout", "-qb", "storm"]);
    for i in 0..1000 {
        let dir = root.join(format!("src/gen/d{}", i / 100));
        std::fs::create_dir_all(&dir).expect("mkdir");
        std::fs::write(
            dir.join(format!("m{i}.rs")),
            format!("pub fn storm_{i}() {{ crate::config::load_config(); }}\n"),
        )
        .expect("write");
    }
    let config = root.join("src/config.rs");
    let text = std::fs::read_to_string(&config).expect("read");
    std::fs::write(&config, format!("{text}\npub fn on_storm_branch() {{}}\n")).expect("edit");
    git(root, &["add", "-A"]);
    git(root, &["commit", "-qm", "storm"]);
    git(root, &["checkout", "-q", "main"]);

    let watcher = Watcher::start(root);
    git(root, &["checkout", "-q", "storm"]);
    eventually("checkout of 1,000 added files", || {
        defined(root, "storm_999") && defined(root, "storm_0") && defined(root, "on_storm_branch")
    });
    converges(root, "after checking out the storm branch");
    git(root, &["checkout", "-q", "main"]);
    eventually("checkout back", || !defined(root, "storm_500"));
    converges(root, "after checking out main again");
    let status = watcher.interrupt();
    assert!(status.success(), "watch exited with {status}");
}

/// `mcursor --json index ARGS` in `root`, its output parsed.
fn index_json(root: &Path, args: &[&str]) -> serde_json::Value {
    let output = mcursor(root, &[&["--json", "index"], args].concat());
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_slice(&output.stdout).expect("index --json")
}

#[test]
fn an_index_beside_a_watch_is_made_by_the_watcher_and_here_without_one() {
    let repo = fixture("rust-basic");
    let root = repo.path();
    let socket = root.join(".mcursor").join("watch.sock");
    let watcher = Watcher::start(root);
    assert!(socket.exists(), "the watcher listens");
    let pid = watcher.child.id();
    let config = root.join("src/config.rs");
    let status_of = |args: &[&str]| stdout(&mcursor(root, &[args, &["status"]].concat()));
    let watched: serde_json::Value =
        serde_json::from_str(&status_of(&["--json"])).expect("status --json");
    assert_eq!(watched["watched"], true, "{watched}");
    assert_eq!(watched["watcher_pid"], pid, "{watched}");
    assert!(status_of(&[]).contains(&format!("watched: a running `mcursor watch` (pid {pid})")));

    // Once `index` returns, the edit is in the index, whichever update took it in.
    append(&config, "\npub fn handed_to_the_watcher() {}\n");
    let summary = index_json(root, &[]);
    assert_eq!(summary["updated_by_watcher"], pid, "{summary}");
    assert!(defined(root, "handed_to_the_watcher"));
    append(&config, "\npub fn named_to_the_watcher() {}\n");
    let summary = index_json(root, &["--changed", "src/config.rs"]);
    assert_eq!(summary["updated_by_watcher"], pid, "{summary}");
    assert!(defined(root, "named_to_the_watcher"));
    // A flag the watcher was not started with keeps the update in the process.
    append(&config, "\npub fn rebuilt_here() {}\n");
    let summary = index_json(root, &["--full"]);
    assert!(summary.get("updated_by_watcher").is_none(), "{summary}");
    assert!(defined(root, "rebuilt_here"));
    let text = stdout(&mcursor(root, &["index"]));
    assert!(text.contains("by the running `mcursor watch`"), "{text}");

    let status = watcher.interrupt();
    assert!(status.success(), "{status:?}");
    assert!(!socket.exists(), "the socket is removed on exit");
    assert!(!status_of(&[]).contains("watched:"), "{}", status_of(&[]));
    // A socket left by a watcher that was killed: nobody answers, the update runs here.
    drop(std::os::unix::net::UnixListener::bind(&socket).expect("a stale socket"));
    append(&config, "\npub fn after_the_watcher() {}\n");
    let summary = index_json(root, &[]);
    assert!(summary.get("updated_by_watcher").is_none(), "{summary}");
    assert!(defined(root, "after_the_watcher"));
    assert_eq!(current_dump(root), fresh_dump(root));
}

#[test]
fn a_running_watch_holds_the_mark_that_queries_trust_and_releases_it() {
    let repo = fixture("rust-basic");
    let root = repo.path();
    let mark = root.join(".mcursor/watch.lock");
    let watcher = Watcher::start(root);
    let held = std::fs::File::open(&mark).expect("the watch mark exists");
    assert!(
        matches!(
            held.try_lock_shared(),
            Err(std::fs::TryLockError::WouldBlock)
        ),
        "the watch holds its mark"
    );
    let pid = std::fs::read_to_string(&mark).expect("read mark");
    assert_eq!(pid.trim(), watcher.child.id().to_string());
    let status = watcher.interrupt();
    assert!(status.success(), "{status:?}");
    let released = std::fs::File::open(&mark).expect("open mark");
    assert!(released.try_lock_shared().is_ok(), "released on exit");
}

#[test]
fn a_quiet_watch_folds_the_patches_into_a_full_resolution() {
    quiet_spells_fold_the_patches(false);
}

/// `--poll`: no notifications asked for; a rescan finds an edit, and a quiet spell folds
/// the patches as when notified.
#[test]
fn a_polling_watch_finds_edits_and_folds_its_patches() {
    quiet_spells_fold_the_patches(true);
}

/// An interface edit before watching (a patch, which later patches carry until a full
/// resolution) and one while watching; after the second, a quiet spell folds them.
fn quiet_spells_fold_the_patches(poll: bool) {
    let repo = fixture("rust-basic");
    let root = repo.path().to_path_buf();
    build_index(&root, &BuildOptions::default(), &|_| {}).expect("first build");
    let config = root.join("src/config.rs");
    let append = |name: &str| {
        let text = std::fs::read_to_string(&config).expect("read");
        std::fs::write(&config, format!("{text}\npub fn {name}() {{}}\n")).expect("edit");
    };
    append("added_before_watching");
    let edited = build_index(&root, &BuildOptions::default(), &|_| {}).expect("update");
    assert!(edited.patched, "the edit was not a patch");

    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (tx, events) = channel();
    let watching = {
        let (root, stop) = (root.clone(), std::sync::Arc::clone(&stop));
        std::thread::spawn(move || {
            let options = WatchOptions {
                poll,
                poll_interval: Duration::from_millis(100),
                fold: FoldPolicy {
                    idle: Duration::from_millis(300),
                    after_files: 1,
                },
                // The polling run also goes without held declarations (`--low-memory`).
                hold_declarations: !poll,
                ..WatchOptions::default()
            };
            mcursor_index::watch(
                &root,
                &options,
                &|| stop.load(std::sync::atomic::Ordering::Relaxed),
                &mut |event| {
                    let _ = tx.send(event);
                },
            )
        })
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    let next = || {
        let left = deadline.saturating_duration_since(Instant::now());
        match events.recv_timeout(left) {
            Ok(WatchEvent::Failed(why)) => panic!("watch failed: {why}"),
            Ok(event) => event,
            Err(e) => panic!("watch went silent: {e}"),
        }
    };
    match next() {
        WatchEvent::Polling(why) if poll => assert!(why.contains("as asked"), "{why}"),
        WatchEvent::Ready(_) if !poll => {}
        other => panic!("unexpected first event {other:?}"),
    }
    if poll {
        assert!(matches!(next(), WatchEvent::Ready(_)));
    }
    append("added_while_watching");
    // The first quiet spell may fold the earlier patch before the edit is seen; the one
    // after the edit's update must fold that update's patch.
    loop {
        if let WatchEvent::Updated(summary) = next() {
            assert!(summary.patched, "the edit while watching was not a patch");
            break;
        }
    }
    let (carried, summary) = loop {
        if let WatchEvent::Compacted { carried, summary } = next() {
            break (carried, summary);
        }
    };
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    watching
        .join()
        .expect("the watch thread")
        .expect("watch ended");
    assert_eq!(carried, 1, "the patches carried the edited file");
    assert!(!summary.patched, "a compaction is a full resolution");
    assert!(!summary.unchanged);
    // Nothing is carried any more: a second quiet spell would fold nothing, and the
    // index is the one a fresh build makes.
    let next = build_index(&root, &BuildOptions::default(), &|_| {}).expect("rerun");
    assert!(next.unchanged);
    assert_eq!(current_dump(&root), fresh_dump(&root));
    assert!(defined(&root, "added_before_watching"));
    assert!(defined(&root, "added_while_watching"));
}
