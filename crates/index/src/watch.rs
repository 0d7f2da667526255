//! `mcursor watch`: keep an index current while files change.
//!
//! File-system events (notify, through its full debouncer) are only triggers: every
//! update is an incremental [`build_index`], which walks the tree and compares it with the
//! index. So an event the watcher merged, reordered or lost cannot leave the index wrong;
//! a queue overflow, a watcher error or a rescan flag simply trigger the same update.
//! Editor save patterns, renames, directory moves, new directories, `.gitignore` edits and
//! branch switches all come out as "walk and compare". Events inside `.mcursor/` (our own
//! writes) and `.git/` are ignored; a branch switch shows up through the working files it
//! rewrites. When the OS refuses more watches, the loop says so and what to do, and falls
//! back to rescanning on an interval.

use std::path::{Path, PathBuf};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::Duration;

use notify_debouncer_full::notify::{self, RecursiveMode};
use notify_debouncer_full::{DebounceEventResult, DebouncedEvent, new_debouncer};

use crate::build::{BuildOptions, BuildSummary, Cancel, FoldPolicy, build_index};
use crate::error::{IndexError, Result};
use crate::handoff::{Listener, UpdateRequest};
use crate::resident::ResidentDeclarations;
use crate::walk::INDEX_DIR;

/// How `watch` runs.
#[derive(Debug, Clone)]
pub struct WatchOptions {
    pub build: BuildOptions,
    /// Quiet time after the last event of a burst before updating.
    pub debounce: Duration,
    /// Rescan interval when polling.
    pub poll_interval: Duration,
    /// Rescan every `poll_interval` instead of asking the OS for change notifications:
    /// network file systems (NFS, SMB, sshfs) and some container mounts send none. The
    /// loop also polls when the OS refuses to watch the tree.
    pub poll: bool,
    /// When the patches are folded into a new base, on a thread beside the loop.
    pub fold: FoldPolicy,
    /// Keep every file's declarations in memory between updates
    /// ([`BuildOptions::resident`]): an edit that changes an interface then skips
    /// decoding them from the facts cache (about 0.5 s on a tree of 16,000 files), for
    /// the memory they take decoded (there, an idle watcher's RSS 40 → 420 MiB).
    pub hold_declarations: bool,
    /// Called once per quiet spell of `fold.idle` with no compaction running: gives
    /// the memory the updates freed back to the OS. The binary owns the allocator; it
    /// may keep freed memory between updates (reused, it costs no page faults) and
    /// release it here.
    pub release_memory: Option<fn()>,
}

impl Default for WatchOptions {
    fn default() -> Self {
        Self {
            build: BuildOptions::default(),
            debounce: Duration::from_millis(20),
            poll_interval: Duration::from_secs(2),
            poll: false,
            fold: FoldPolicy::default(),
            hold_declarations: true,
            release_memory: None,
        }
    }
}

/// What the watch loop reports.
#[derive(Debug)]
pub enum WatchEvent {
    /// The first update is done and the tree is being watched.
    Ready(BuildSummary),
    /// Files changed and the index was updated (never sent for an unchanged tree).
    Updated(BuildSummary),
    /// The watcher lost track (queue overflow, error); the tree is rescanned.
    Rescan(String),
    /// The loop rescans every `poll_interval` instead of being told of changes: because
    /// it was asked to, or because the OS will not watch the whole tree (then why, and
    /// what to do).
    Polling(String),
    /// The tree was quiet and the patches since the last full resolution carried
    /// `carried` files: everything was resolved again from the cached facts.
    Compacted {
        carried: usize,
        summary: BuildSummary,
    },
    /// An update failed; the index is still the previous generation. Watching goes on.
    Failed(String),
}

/// A watch loop on a thread of its own, beside a long-running reader that wants one
/// (`mcursor mcp --watch`): its [`LiveIndex`](crate::LiveIndex) then trusts the watcher
/// instead of walking the tree to look for changes. Stopped and joined when dropped
/// (between updates: the index is left committed).
pub struct BackgroundWatch {
    stop: Cancel,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl BackgroundWatch {
    /// Starts [`watch`] on `root`, unless a watcher already keeps its index current
    /// (then `None`: that one serves). `report` hears the loop's events on its thread;
    /// `ended` hears how the loop ended when it ends before it is stopped (it could not
    /// start, for instance).
    pub fn start(
        root: &Path,
        options: WatchOptions,
        mut report: impl FnMut(WatchEvent) + Send + 'static,
        ended: impl FnOnce(Result<()>) + Send + 'static,
    ) -> std::io::Result<Option<BackgroundWatch>> {
        if crate::fresh::live_watcher(&root.join(INDEX_DIR)).is_some() {
            return Ok(None);
        }
        let stop = Cancel::new();
        let flag = stop.clone();
        let root = root.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("mcursor-watch".into())
            .spawn(move || {
                let result = watch(&root, &options, &|| flag.is_cancelled(), &mut report);
                if !flag.is_cancelled() {
                    ended(result);
                }
            })?;
        Ok(Some(BackgroundWatch {
            stop,
            thread: Some(thread),
        }))
    }
}

impl Drop for BackgroundWatch {
    fn drop(&mut self) {
        self.stop.cancel();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Updates the index of `root` now and after every change until `stop` returns true
/// (checked at least every 200 ms, and never in the middle of an update).
pub fn watch(
    root: &Path,
    options: &WatchOptions,
    stop: &dyn Fn() -> bool,
    report: &mut dyn FnMut(WatchEvent),
) -> Result<()> {
    let root = crate::build::check_root(root)?;
    let resident = options.hold_declarations.then(ResidentDeclarations::new);
    let options = &WatchOptions {
        build: BuildOptions {
            resident: resident.clone(),
            ..options.build.clone()
        },
        ..options.clone()
    };
    // What the update did, also reported unless nothing changed.
    let update = |report: &mut dyn FnMut(WatchEvent), paths: Option<Vec<PathBuf>>| {
        let build = BuildOptions {
            changed_paths: paths,
            ..options.build.clone()
        };
        match build_index(&root, &build, &|_| {}) {
            Ok(summary) => {
                if !summary.unchanged {
                    report(WatchEvent::Updated(summary.clone()));
                }
                Ok(summary)
            }
            Err(e) => {
                report(WatchEvent::Failed(e.to_string()));
                Err(e.to_string())
            }
        }
    };
    // Whether an update's outcome changed anything (a failed update counts: the tree did
    // change).
    let changed = |outcome: &std::result::Result<BuildSummary, String>| {
        outcome.as_ref().map_or(true, |summary| !summary.unchanged)
    };
    let mut compaction = Compaction::default();
    let (tx, rx) = channel::<Wake>();
    let events = tx.clone();
    // Watch before the first update, so nothing changed during it goes unnoticed.
    let notified = if options.poll {
        report(WatchEvent::Polling(format!(
            "rescanning every {} s, as asked",
            options.poll_interval.as_secs_f64()
        )));
        None
    } else {
        let forward = move |result| {
            let _ = events.send(Wake::Events(result));
        };
        let watcher = new_debouncer(options.debounce, None, forward).and_then(|mut debouncer| {
            debouncer.watch(&root, RecursiveMode::Recursive)?;
            Ok(debouncer)
        });
        match watcher {
            Ok(debouncer) => Some(debouncer),
            Err(e) => {
                report(WatchEvent::Polling(limit_advice(&e, options.poll_interval)));
                None
            }
        }
    };
    // The first update, then the mark (from here on the index is kept current: queries
    // see it and skip their own freshness check; another watcher may hold it already,
    // and either keeps the index current), then `Ready`.
    let first = build_index(&root, &options.build, &|_| {});
    let watching = crate::fresh::mark_watched(&root.join(INDEX_DIR));
    // The holder of the mark takes other processes' updates (`mcursor index`).
    let _handoff = watching.as_ref().and_then(|_| {
        Listener::start(&root.join(INDEX_DIR), move |request| {
            tx.send(Wake::Update(request)).is_ok()
        })
    });
    if let Ok(index) = crate::Index::open(&root) {
        crate::live::warm_languages(&index);
    }
    // An index that was current already was not resolved here: its declarations are
    // read now, off the loop, rather than by the first edit that needs them.
    if let Some(resident) = &resident {
        resident.warm(&root);
    }
    match first {
        Ok(summary) => report(WatchEvent::Ready(summary)),
        Err(e) => report(WatchEvent::Failed(e.to_string())),
    }
    let mut quiet = Quiet::new(options.fold.idle, options.release_memory);
    let Some(debouncer) = notified else {
        let mut last_scan = std::time::Instant::now();
        while !stop() {
            // Only callers' requests come here (there is no file watcher to send events),
            // and none when nothing listens for them.
            let woken = match rx.recv_timeout(POLL_TICK) {
                Ok(wake) => Some(wake),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => {
                    std::thread::sleep(POLL_TICK);
                    None
                }
            };
            if compaction.poll(report) {
                quiet.compacted();
            }
            if let Some(first) = woken {
                let Woken { requests, .. } = Woken::take(first, &rx);
                compaction.interrupt(report);
                let outcome = update(report, requested_paths(&requests, Some(Vec::new())));
                if changed(&outcome) {
                    quiet.changed();
                }
                answer(requests, &outcome);
                last_scan = std::time::Instant::now();
            }
            // A rescan cannot tell whether anything changed before it walks, so it waits
            // for a running compaction instead of cancelling it every interval.
            if last_scan.elapsed() >= options.poll_interval && !compaction.running() {
                last_scan = std::time::Instant::now();
                if changed(&update(report, None)) {
                    quiet.changed();
                }
            }
            if quiet.fold_now() {
                compaction.start(&root, options);
            }
            quiet.release_memory(compaction.running());
        }
        compaction.interrupt(report);
        return Ok(());
    };
    let index_dir = root.join(INDEX_DIR);
    let git_dir = root.join(".git");
    while !stop() {
        let first = match rx.recv_timeout(Duration::from_millis(200)) {
            Ok(result) => result,
            Err(RecvTimeoutError::Timeout) => {
                if compaction.poll(report) {
                    quiet.compacted();
                }
                if quiet.fold_now() {
                    compaction.start(&root, options);
                }
                quiet.release_memory(compaction.running());
                continue;
            }
            Err(RecvTimeoutError::Disconnected) => break,
        };
        // Everything already queued belongs to the same update; so does the rest of a
        // storm (a branch switch, a build writing many files): after a large batch, wait
        // for a quiet spell so it becomes one update instead of many.
        let mut woken = Woken::take(first, &rx);
        let storm_started = std::time::Instant::now();
        while batch_size(&woken.events) >= STORM_PATHS && storm_started.elapsed() < STORM_WAIT_MAX {
            match rx.recv_timeout(STORM_QUIET) {
                Ok(more) => woken.add(more, &rx),
                Err(_) => break,
            }
        }
        let Woken {
            events: pending,
            requests,
        } = woken;
        // The paths events named, as a hint; a rescan walks the whole tree instead.
        let mut relevant = false;
        let mut paths = Some(Vec::new());
        for result in pending {
            match result {
                Ok(events) => {
                    if let Some(why) = events.iter().find_map(rescan_reason) {
                        report(WatchEvent::Rescan(why));
                        relevant = true;
                        paths = None;
                    }
                    let touching = events
                        .iter()
                        .filter(|e| touches_tree(e, &index_dir, &git_dir));
                    for event in touching {
                        relevant = true;
                        if let Some(paths) = &mut paths {
                            paths.extend(event.paths.iter().cloned());
                        }
                    }
                }
                Err(errors) => {
                    let why: Vec<String> = errors.iter().map(ToString::to_string).collect();
                    report(WatchEvent::Rescan(why.join("; ")));
                    relevant = true;
                    paths = None;
                }
            }
        }
        // A caller's request is an update too, of what it names or else the whole tree.
        let relevant = relevant || !requests.is_empty();
        let paths = requested_paths(&requests, paths);
        if relevant {
            match &paths {
                Some(p) => crate::trace::note(format_args!(
                    "update for {} paths: {:?}",
                    p.len(),
                    p.first()
                )),
                None => crate::trace::note(format_args!("update with a walk")),
            }
            // The change goes first: a compaction under way is cancelled (and tried
            // again at the next quiet spell) rather than waited for.
            compaction.interrupt(report);
            let outcome = update(report, paths);
            quiet.changed();
            answer(requests, &outcome);
        }
    }
    compaction.interrupt(report);
    debouncer.stop();
    Ok(())
}

/// What wakes the loop: the file watcher's events, or another process's request for an
/// update (`handoff.rs`).
enum Wake {
    Events(DebounceEventResult),
    Update(UpdateRequest),
}

/// What woke the loop, and everything queued behind it: one update serves them all.
struct Woken {
    events: Vec<DebounceEventResult>,
    requests: Vec<UpdateRequest>,
}

impl Woken {
    fn take(first: Wake, rx: &Receiver<Wake>) -> Woken {
        let mut woken = Woken {
            events: Vec::new(),
            requests: Vec::new(),
        };
        woken.add(first, rx);
        woken
    }

    /// Adds `wake` and whatever is queued behind it.
    fn add(&mut self, wake: Wake, rx: &Receiver<Wake>) {
        for wake in std::iter::once(wake).chain(rx.try_iter()) {
            match wake {
                Wake::Events(events) => self.events.push(events),
                Wake::Update(request) => self.requests.push(request),
            }
        }
    }
}

/// The paths an update for the events' `paths` (`None`: a walk) and `requests` looks at:
/// those and what every request names, or the whole tree when one names none.
fn requested_paths(
    requests: &[UpdateRequest],
    paths: Option<Vec<PathBuf>>,
) -> Option<Vec<PathBuf>> {
    let mut paths = paths?;
    for request in requests {
        paths.extend(request.changed.as_ref()?.iter().cloned());
    }
    Some(paths)
}

/// Sends each request the update's outcome.
fn answer(requests: Vec<UpdateRequest>, outcome: &std::result::Result<BuildSummary, String>) {
    for request in requests {
        let _ = request.reply.send(outcome.clone());
    }
}

/// A compaction running beside the loop (see [`WatchOptions::fold`]): the patches
/// folded into a new base on a thread of its own, so that a change made meanwhile
/// cancels it instead of waiting for it (on a tree of 16,000 files it takes about 9 s).
#[derive(Default)]
struct Compaction {
    running: Option<Running>,
}

struct Running {
    thread: std::thread::JoinHandle<Result<BuildSummary>>,
    cancel: Cancel,
    carried: usize,
}

impl Compaction {
    fn running(&self) -> bool {
        self.running.is_some()
    }

    /// Starts folding the patches when they carry enough files and none is under way.
    fn start(&mut self, root: &Path, options: &WatchOptions) {
        if self.running.is_some() {
            return;
        }
        let Some(carried) = options.fold.due(root) else {
            return;
        };
        let cancel = Cancel::new();
        let build = BuildOptions {
            compact: true,
            cancel: Some(cancel.clone()),
            ..options.build.clone()
        };
        let root = root.to_path_buf();
        let thread = std::thread::Builder::new()
            .name("mcursor-compact".into())
            .spawn(move || build_index(&root, &build, &|_| {}));
        match thread {
            Ok(thread) => {
                self.running = Some(Running {
                    thread,
                    cancel,
                    carried,
                })
            }
            // No thread to spare: the patches stay as they are, the index correct.
            Err(e) => crate::trace::note(format_args!("compaction not started: {e}")),
        }
    }

    /// Reports a compaction that has finished; whether one had.
    fn poll(&mut self, report: &mut dyn FnMut(WatchEvent)) -> bool {
        let finished = self
            .running
            .as_ref()
            .is_some_and(|r| r.thread.is_finished());
        if finished {
            self.finish(report);
        }
        finished
    }

    /// Cancels a compaction under way and waits for it to stop (it checks between files
    /// and phases), reporting it if it committed first.
    fn interrupt(&mut self, report: &mut dyn FnMut(WatchEvent)) {
        if let Some(running) = &self.running {
            running.cancel.cancel();
        }
        self.finish(report);
    }

    fn finish(&mut self, report: &mut dyn FnMut(WatchEvent)) {
        let Some(Running {
            thread, carried, ..
        }) = self.running.take()
        else {
            return;
        };
        match thread.join() {
            Ok(Ok(summary)) => report(WatchEvent::Compacted { carried, summary }),
            Ok(Err(IndexError::Cancelled)) => {
                crate::trace::note(format_args!("compaction cancelled by a change"))
            }
            Ok(Err(e)) => report(WatchEvent::Failed(e.to_string())),
            Err(_) => report(WatchEvent::Failed("the compaction thread panicked".into())),
        }
    }
}

/// When the tree last changed, whether the patches since may need folding, and whether
/// memory was freed since it was last released: once per quiet spell of `idle`, the loop
/// looks at what the patches carry (`compact`) and releases memory.
struct Quiet {
    idle: Duration,
    since: std::time::Instant,
    fold_due: bool,
    /// [`WatchOptions::release_memory`].
    release: Option<fn()>,
    release_due: bool,
}

impl Quiet {
    fn new(idle: Duration, release: Option<fn()>) -> Self {
        Self {
            idle,
            since: std::time::Instant::now(),
            fold_due: true,
            release,
            release_due: true,
        }
    }

    fn changed(&mut self) {
        self.since = std::time::Instant::now();
        self.fold_due = true;
        self.release_due = true;
    }

    /// A compaction ended: what it freed is released once nothing runs.
    fn compacted(&mut self) {
        self.release_due = true;
    }

    /// Calls `release` (if any) once the spell is quiet long enough and no compaction runs, once
    /// per spell (and once after each compaction).
    fn release_memory(&mut self, compacting: bool) {
        let Some(release) = self.release else {
            return;
        };
        if self.release_due && !compacting && self.since.elapsed() >= self.idle {
            self.release_due = false;
            let started = std::time::Instant::now();
            release();
            crate::trace::trace_phase("memory released", started);
        }
    }

    /// Whether the quiet spell is long enough and its fold not yet tried.
    fn fold_now(&mut self) -> bool {
        let now = self.fold_due && self.since.elapsed() >= self.idle;
        if now {
            self.fold_due = false;
        }
        now
    }
}

/// How often a polling loop looks at the time, its compaction and its stop flag.
const POLL_TICK: Duration = Duration::from_millis(100);

/// A batch naming this many paths is taken as the start of a storm.
const STORM_PATHS: usize = 64;
/// How long a storm must stay quiet before the update starts, and the longest wait.
const STORM_QUIET: Duration = Duration::from_millis(150);
const STORM_WAIT_MAX: Duration = Duration::from_secs(3);

fn batch_size(pending: &[DebounceEventResult]) -> usize {
    pending
        .iter()
        .map(|r| {
            r.as_ref()
                .map_or(1, |events| events.iter().map(|e| e.paths.len()).sum())
        })
        .sum()
}

/// Why an event asks for a rescan (the kernel's queue overflowed), if it does.
fn rescan_reason(event: &DebouncedEvent) -> Option<String> {
    event
        .need_rescan()
        .then(|| "the file watcher's event queue overflowed".to_owned())
}

/// Whether an event may change what the index holds: not a read (every walk, ours
/// included, opens every directory: counting those would make each update trigger the
/// next), and not only our own writes in `.mcursor/` or git's bookkeeping in `.git/`.
fn touches_tree(event: &DebouncedEvent, index_dir: &Path, git_dir: &Path) -> bool {
    event.need_rescan()
        || (!event.kind.is_access()
            && event
                .paths
                .iter()
                .any(|p| !(p.starts_with(index_dir) || p.starts_with(git_dir))))
}

/// The message for a watcher that could not start, with the fix for the usual cause.
fn limit_advice(error: &notify::Error, poll: Duration) -> String {
    let fallback = format!("rescanning every {} s instead", poll.as_secs_f64());
    match error.kind {
        notify::ErrorKind::MaxFilesWatch => {
            let limit = std::fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
                .map(|s| format!(" (fs.inotify.max_user_watches = {})", s.trim()))
                .unwrap_or_default();
            format!(
                "the OS limit on watched directories is reached{limit}; raise it with `sudo sysctl fs.inotify.max_user_watches=524288` (or add .mcursorignore entries for large directories); {fallback}"
            )
        }
        _ => format!("cannot watch the tree ({error}); {fallback}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify_debouncer_full::notify::event::{
        AccessKind, AccessMode, CreateKind, Event, EventKind, Flag,
    };
    use std::time::Instant;

    fn event(path: &str) -> DebouncedEvent {
        DebouncedEvent::new(
            Event::new(EventKind::Create(CreateKind::File)).add_path(PathBuf::from(path)),
            Instant::now(),
        )
    }

    #[test]
    fn own_writes_and_git_internals_are_not_changes_but_overflows_are() {
        let (index, git) = (Path::new("/r/.mcursor"), Path::new("/r/.git"));
        assert!(!touches_tree(&event("/r/.mcursor/graph-1.bin"), index, git));
        assert!(!touches_tree(&event("/r/.git/index"), index, git));
        assert!(touches_tree(&event("/r/src/a.rs"), index, git));
        assert!(touches_tree(&event("/r/.gitignore"), index, git));
        // Reads, such as our own walk opening directories, are not changes.
        let read = DebouncedEvent::new(
            Event::new(EventKind::Access(AccessKind::Open(AccessMode::Any)))
                .add_path(PathBuf::from("/r/src")),
            Instant::now(),
        );
        assert!(!touches_tree(&read, index, git));
        let mut overflow = event("/r/.mcursor/lock");
        overflow.event = overflow.event.clone().set_flag(Flag::Rescan);
        assert!(touches_tree(&overflow, index, git));
        assert!(rescan_reason(&overflow).is_some());
        assert!(rescan_reason(&event("/r/src/a.rs")).is_none());
    }

    static RELEASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

    fn count_release() {
        RELEASES.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    #[test]
    fn memory_is_released_once_per_quiet_spell_and_never_beside_a_compaction() {
        let releases = || RELEASES.load(std::sync::atomic::Ordering::SeqCst);
        let mut quiet = Quiet::new(Duration::from_millis(30), Some(count_release));
        quiet.release_memory(false);
        assert_eq!(releases(), 0, "the spell is not quiet long enough yet");
        std::thread::sleep(Duration::from_millis(40));
        quiet.release_memory(true);
        assert_eq!(releases(), 0, "a compaction runs");
        quiet.release_memory(false);
        quiet.release_memory(false);
        assert_eq!(releases(), 1, "once per spell");
        quiet.compacted();
        quiet.release_memory(false);
        assert_eq!(releases(), 2, "again after a compaction");
        quiet.changed();
        quiet.release_memory(false);
        assert_eq!(releases(), 2, "a change starts a new spell");
        std::thread::sleep(Duration::from_millis(40));
        quiet.release_memory(false);
        assert_eq!(releases(), 3);
        let mut without = Quiet::new(Duration::ZERO, None);
        without.release_memory(false);
    }

    #[test]
    fn the_watch_limit_message_says_what_to_do() {
        let message = limit_advice(
            &notify::Error::new(notify::ErrorKind::MaxFilesWatch),
            Duration::from_secs(2),
        );
        assert!(message.contains("max_user_watches"), "{message}");
        assert!(message.contains("rescanning every 2 s"), "{message}");
    }
}
