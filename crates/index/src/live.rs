//! One freshness policy for long-running readers (the agent's index tools, the MCP
//! server): an opened index that follows the working tree.
//!
//! [`LiveIndex::get`] builds the index when there is none, and otherwise looks at the
//! tree at most once per [`LOOK_EVERY`]: an unchanged tree costs one walk and commits
//! nothing, a changed one is updated incrementally and the new generation opened; between
//! looks, a generation another process committed is opened at once. While
//! another process writes the index, a reader that has one answers from it rather than
//! wait (the next look picks the update up). [`LiveIndex::after_change`] is for a reader
//! that changed files itself: it queues the update for a catch-up thread and returns, and
//! the next lookup waits for that update (waiting for other writers), so it already sees
//! the change. While `mcursor watch` runs, the watcher does
//! both: a look opens its newest generation instead of walking, and an edit waits for
//! the watcher's update of it (the CLI's queries trust a watcher the same way).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::build::{BuildOptions, Cancel, FoldPolicy, Progress, build_index};
use crate::error::{IndexError, Result};
use crate::lock::LockWait;
use crate::query::Index;
use crate::resident::ResidentDeclarations;

/// Compiles, on a background thread, the queries of the languages `index` holds (most
/// files first), so that the first edit a long-running process indexes does not wait for
/// them: tree-sitter takes 10-800 ms per language (C++ the most), once per process.
/// Whoever needs a language meanwhile waits for that one compilation, never repeats it.
pub(crate) fn warm_languages(index: &Index) {
    let languages: Vec<mcursor_syntax::Lang> = index
        .languages()
        .into_iter()
        .map(|(lang, _)| lang)
        .collect();
    // Best effort: without the thread, the first edit compiles its language itself.
    let _ = std::thread::Builder::new()
        .name("mcursor-warm".into())
        .spawn(move || {
            for lang in languages {
                let _ = lang.support();
            }
        });
}

/// How often a live index looks at the tree for changes made by others.
pub const LOOK_EVERY: Duration = Duration::from_secs(1);

/// How long a reader that changed files waits for a running watcher to index them before
/// it updates the index itself (a watcher's update of a large tree takes a second or
/// two; one cancelling its quiet-spell fold first, a second more).
pub const WATCHER_WAIT: Duration = Duration::from_secs(10);

/// An index kept current for a long-running reader. Safe to share between threads.
pub struct LiveIndex {
    shared: Arc<Shared>,
}

/// What the reader and its catch-up thread share.
struct Shared {
    root: PathBuf,
    state: Mutex<LiveState>,
    /// Every file's declarations, once the reader's own changes needed them (an
    /// interface edit, or files it added): only its own updates keep them, so a reader
    /// that never edits (the MCP server) holds none. See [`ResidentDeclarations`].
    resident: ResidentDeclarations,
    /// The reader's own changes not indexed yet (see [`LiveIndex::after_change`]).
    catch_up: Mutex<CatchUp>,
    /// Signalled when the catch-up thread has indexed every queued change.
    caught_up: Condvar,
    /// Signalled when the reader changes files or goes away (a thread waiting for a
    /// quiet spell to fold the patches gives up) and when a fold ends.
    changed: Condvar,
    /// When the catch-up thread folds the patches of the reader's edits.
    fold: FoldPolicy,
}

struct LiveState {
    index: Option<Arc<Index>>,
    /// When the tree was last walked for changes.
    looked: Option<Instant>,
}

/// Changes the reader made that its catch-up thread has yet to index.
#[derive(Default)]
struct CatchUp {
    queued: Option<Queued>,
    /// A thread is indexing (it runs until nothing is queued).
    running: bool,
    /// How many changes the reader reported (a fold waits for a spell without one).
    changes: u64,
    /// The fold under way, cancelled by the reader's next change.
    folding: Option<Cancel>,
    /// The reader went away: no fold starts.
    closed: bool,
}

/// What the next catch-up update indexes.
enum Queued {
    /// These files (absolute paths, in the order they were reported, once each).
    Paths(Vec<PathBuf>),
    /// Anything may have changed (after a command): a walk.
    Walk,
}

impl CatchUp {
    /// Adds a change to what is queued: paths join paths; a walk covers everything.
    fn queue(&mut self, changed: Option<Vec<PathBuf>>) {
        self.queued = match (self.queued.take(), changed) {
            (Some(Queued::Walk), _) | (_, None) => Some(Queued::Walk),
            (Some(Queued::Paths(mut paths)), Some(more)) => {
                for path in more {
                    if !paths.contains(&path) {
                        paths.push(path);
                    }
                }
                Some(Queued::Paths(paths))
            }
            (None, Some(paths)) => Some(Queued::Paths(paths)),
        };
    }
}

impl LiveIndex {
    pub fn new(root: &Path) -> LiveIndex {
        Self::with_fold(root, FoldPolicy::default())
    }

    /// A live index whose own edits are folded into a fresh base by `fold`: after the
    /// catch-up thread has indexed them, it waits for `fold.idle` without another change
    /// and, when the patches then carry `fold.after_files` files or more, resolves the
    /// tree again from its cached facts ([`BuildOptions::compact`]); the reader's next
    /// change cancels it. A running `mcursor watch` folds on its own instead.
    pub fn with_fold(root: &Path, fold: FoldPolicy) -> LiveIndex {
        LiveIndex {
            shared: Arc::new(Shared {
                root: root.to_path_buf(),
                state: Mutex::new(LiveState {
                    index: None,
                    looked: None,
                }),
                resident: ResidentDeclarations::new(),
                catch_up: Mutex::new(CatchUp::default()),
                caught_up: Condvar::new(),
                changed: Condvar::new(),
                fold,
            }),
        }
    }

    /// The index, built first when missing and brought up to date with the tree when
    /// the last look is older than [`LOOK_EVERY`]. `progress` hears a build's progress.
    /// Waits first for the reader's own changes to be indexed (read-your-writes).
    pub fn get(&self, progress: &(dyn Fn(Progress) + Sync)) -> Result<Arc<Index>> {
        self.settle();
        self.shared.get(progress)
    }

    /// After the reader changed files: `changed` (absolute paths; `None` after a command,
    /// which may have changed anything: a walk). Returns at once: the update runs on a
    /// catch-up thread, and the next [`get`](Self::get) waits for it, so the reader still
    /// reads its writes, but an edit no longer waits for its index update (1-2 s on a tree
    /// of 16,000 files) before the agent hears back; the model's next turn overlaps it.
    /// Changes made while an update runs are indexed by the next one, together. Only when
    /// an index exists; a failure is left to the next `get`, which then looks at the tree.
    ///
    /// While `mcursor watch` keeps the index current, an edit of indexed files is left to
    /// it (it holds every file's declarations, so its update is the faster one, and two
    /// processes would otherwise do the same update one after the other): the catch-up
    /// waits, up to [`WATCHER_WAIT`], for a generation that holds the files as they are now.
    pub fn after_change(&self, changed: Option<Vec<PathBuf>>) {
        let mut catch_up = self.shared.lock_catch_up();
        catch_up.queue(changed);
        catch_up.changes += 1;
        // A fold under way stops (between files) rather than hold the lock this update
        // waits for; it is tried again after the next quiet spell.
        if let Some(folding) = &catch_up.folding {
            folding.cancel();
        }
        self.shared.changed.notify_all();
        if catch_up.running {
            return;
        }
        catch_up.running = true;
        drop(catch_up);
        let shared = Arc::clone(&self.shared);
        let spawned = std::thread::Builder::new()
            .name("mcursor-catch-up".into())
            .spawn(move || {
                shared.catch_up();
                shared.fold_when_quiet();
            });
        if spawned.is_err() {
            // No thread to be had: index the change here, as before the catch-up thread.
            self.shared.catch_up();
        }
    }

    /// Waits until the reader's own changes are indexed.
    pub fn settle(&self) {
        let mut catch_up = self.shared.lock_catch_up();
        while catch_up.running {
            catch_up = self
                .shared
                .caught_up
                .wait(catch_up)
                .unwrap_or_else(|e| e.into_inner());
        }
    }
}

impl Drop for LiveIndex {
    /// A reader that goes away (the agent's session ends) leaves its changes indexed,
    /// and stops a fold (the index stays correct without it).
    fn drop(&mut self) {
        self.settle();
        let mut catch_up = self.shared.lock_catch_up();
        catch_up.closed = true;
        if let Some(folding) = &catch_up.folding {
            folding.cancel();
        }
        self.shared.changed.notify_all();
    }
}

impl Shared {
    fn get(&self, progress: &(dyn Fn(Progress) + Sync)) -> Result<Arc<Index>> {
        let mut state = self.lock();
        let recent = state.looked.is_some_and(|t| t.elapsed() < LOOK_EVERY);
        // A running watcher keeps the index current: a look is not needed (it walks the
        // tree, about 100 ms on one of 16,000 files).
        let watched = !recent
            && state.index.is_some()
            && crate::fresh::live_watcher(&self.root.join(crate::walk::INDEX_DIR)).is_some();
        if watched {
            state.looked = Some(Instant::now());
        }
        if (recent || watched)
            && let Some(index) = &state.index
        {
            // Another process may have committed since (`mcursor index`, a `watch`): a
            // newer generation is opened, not built (one small file read to know).
            let index = self.newest(index)?;
            state.index = Some(index.clone());
            return Ok(index);
        }
        self.update(&mut state, None, false, progress)
    }

    /// The catch-up thread: indexes what is queued until nothing is. `running` is
    /// cleared, and waiting readers woken, however it ends (a panicking update too).
    fn catch_up(&self) {
        struct Finished<'a>(&'a Shared);
        impl Drop for Finished<'_> {
            fn drop(&mut self) {
                let mut catch_up = self.0.lock_catch_up();
                catch_up.running = false;
                if std::thread::panicking() {
                    // What was queued is left to the next look at the tree.
                    catch_up.queued = None;
                    self.0.lock().looked = None;
                }
                self.0.caught_up.notify_all();
            }
        }
        let _finished = Finished(self);
        loop {
            let queued = {
                let mut catch_up = self.lock_catch_up();
                match catch_up.queued.take() {
                    Some(queued) => queued,
                    None => return,
                }
            };
            self.index_change(match queued {
                Queued::Paths(paths) => Some(paths),
                Queued::Walk => None,
            });
        }
    }

    /// After the catch-up thread has indexed the reader's changes: waits for a spell of
    /// `fold.idle` without another, then folds the patches into a fresh base when they
    /// carry enough files (see [`LiveIndex::with_fold`]). A change during the wait ends
    /// it (its own catch-up thread waits again after it); a change during the fold
    /// cancels it.
    fn fold_when_quiet(&self) {
        let mut catch_up = self.lock_catch_up();
        let seen = catch_up.changes;
        let quiet_from = Instant::now();
        // A fold that a change cancelled may still be stopping: this one waits for it.
        loop {
            if catch_up.closed || catch_up.changes != seen {
                return;
            }
            let left = match self.fold.idle.checked_sub(quiet_from.elapsed()) {
                Some(left) if !left.is_zero() => left,
                _ if catch_up.folding.is_some() => Duration::from_millis(100),
                _ => break,
            };
            catch_up = match self.changed.wait_timeout(catch_up, left) {
                Ok((guard, _)) => guard,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        let dir = self.root.join(crate::walk::INDEX_DIR);
        if crate::fresh::live_watcher(&dir).is_some() {
            return;
        }
        let Some(carried) = self.fold.due(&self.root) else {
            return;
        };
        let cancel = Cancel::new();
        catch_up.folding = Some(cancel.clone());
        drop(catch_up);
        let options = BuildOptions {
            compact: true,
            cancel: Some(cancel),
            // Another writer means the tree is being indexed anyway: no fold this time.
            lock_wait: LockWait::Fail,
            // Declarations held for the reader's interface edits are made again by the
            // fold; a reader that holds none is not made to hold them.
            resident: self.resident.holds_any().then(|| self.resident.clone()),
            ..BuildOptions::default()
        };
        match build_index(&self.root, &options, &|_| {}) {
            Ok(_) => crate::trace::note(format_args!("folded {carried} carried files")),
            Err(IndexError::Cancelled) => {
                crate::trace::note(format_args!("fold cancelled by a change"))
            }
            Err(e) => crate::trace::note(format_args!("fold not done: {e}")),
        }
        self.lock_catch_up().folding = None;
        self.changed.notify_all();
    }

    /// Indexes one change of the reader's (see [`LiveIndex::after_change`]).
    fn index_change(&self, changed: Option<Vec<PathBuf>>) {
        let dir = self.root.join(crate::walk::INDEX_DIR);
        if !dir.is_dir() {
            return;
        }
        let mut state = self.lock();
        if let Some(paths) = &changed
            && crate::fresh::live_watcher(&dir).is_some()
            && let Some(index) = self.wait_for_watcher(state.index.as_ref(), paths)
        {
            state.index = Some(index);
            return;
        }
        if self.update(&mut state, changed, true, &|_| {}).is_err() {
            // The next `get` looks at the tree rather than trust the last look.
            state.looked = None;
        }
    }

    fn lock_catch_up(&self) -> std::sync::MutexGuard<'_, CatchUp> {
        self.catch_up.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// `index` if it is the generation committed last, else that generation, opened.
    fn newest(&self, index: &Arc<Index>) -> Result<Arc<Index>> {
        match crate::current_generation(&self.root) {
            Some(g) if g != index.generation() => Ok(Arc::new(Index::open_root(&self.root)?)),
            _ => Ok(index.clone()),
        }
    }

    /// The first generation a running watcher commits that holds `paths` with their
    /// contents now (`opened`, the reader's, when it does already); `None` when a path
    /// is not an indexed file (new, deleted, ignored: the caller updates itself), or
    /// after [`WATCHER_WAIT`] without one. The files are read again only when a new
    /// generation is there to compare them with.
    fn wait_for_watcher(
        &self,
        opened: Option<&Arc<Index>>,
        paths: &[PathBuf],
    ) -> Option<Arc<Index>> {
        let started = Instant::now();
        let mut index = match opened {
            Some(index) => self.newest(index).ok()?,
            None => Arc::new(Index::open_root(&self.root).ok()?),
        };
        let mut compared: Option<u64> = None;
        loop {
            if compared != Some(index.generation()) {
                compared = Some(index.generation());
                let store = index.store();
                let mut current = true;
                for path in paths {
                    let relative = crate::walk::relative(&self.root, path)?;
                    let recorded = store.file(store.file_id(&relative)?)?.hash;
                    // The content decides, as in an update: a save that left the bytes as
                    // they were needs no new generation.
                    let bytes = std::fs::read(path).ok()?;
                    current &= xxhash_rust::xxh3::xxh3_64(&bytes) == recorded;
                }
                if current {
                    return Some(index);
                }
            }
            if started.elapsed() >= WATCHER_WAIT {
                crate::trace::note(format_args!(
                    "the watcher did not index the change within {} s",
                    WATCHER_WAIT.as_secs()
                ));
                return None;
            }
            std::thread::sleep(Duration::from_millis(10));
            index = self.newest(&index).ok()?;
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, LiveState> {
        // A panic while updating leaves the state as it was: still usable.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn update(
        &self,
        state: &mut LiveState,
        changed: Option<Vec<PathBuf>>,
        wait: bool,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Arc<Index>> {
        let answer_from_current = !wait && state.index.is_some();
        let walks = changed.is_none();
        let options = BuildOptions {
            lock_wait: if answer_from_current {
                LockWait::Fail
            } else {
                LockWait::Wait
            },
            changed_paths: changed,
            // The reader's own changes (`wait`) keep the declarations their updates read.
            resident: wait.then(|| self.resident.clone()),
            ..BuildOptions::default()
        };
        let summary = match build_index(&self.root, &options, progress) {
            Err(IndexError::Locked { .. }) if answer_from_current => {
                if let Some(index) = &state.index {
                    return Ok(index.clone());
                }
                return Err(IndexError::Locked {
                    path: self.root.clone(),
                    holder: "another mcursor process".into(),
                });
            }
            other => other?,
        };
        if walks {
            state.looked = Some(Instant::now());
        }
        if let Some(index) = &state.index
            && index.generation() == summary.generation
        {
            return Ok(index.clone());
        }
        let index = Arc::new(Index::open_root(&self.root)?);
        if state.index.is_none() {
            warm_languages(&index);
        }
        state.index = Some(index.clone());
        Ok(index)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_live_index_follows_the_tree_and_its_readers_own_changes() {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn first() {}\n").expect("write");
        let live = LiveIndex::new(dir.path());
        let index = live.get(&|_| {}).expect("built on first use");
        assert!(found(&index, "first"));
        // The reader's own change is seen by its next lookup.
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn second() {}\n").expect("write");
        live.after_change(Some(vec![dir.path().join("src/lib.rs")]));
        assert!(found(&live.get(&|_| {}).expect("get"), "second"));
        // Someone else's change is seen once the next look is due.
        std::fs::write(dir.path().join("src/lib.rs"), "pub fn third() {}\n").expect("write");
        std::thread::sleep(LOOK_EVERY + Duration::from_millis(100));
        assert!(found(&live.get(&|_| {}).expect("get"), "third"));
    }

    fn found(index: &Index, name: &str) -> bool {
        !index.find(&crate::FindQuery::exact(name)).is_empty()
    }

    /// A tree whose `src/lib.rs` defines `first` and `src/other.rs` `other`: the guard
    /// of its directory, its root and `src/lib.rs`.
    fn lib_tree() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path().to_path_buf();
        std::fs::create_dir(root.join("src")).expect("mkdir");
        std::fs::write(root.join("src/other.rs"), "pub fn other() {}\n").expect("write");
        let lib = root.join("src/lib.rs");
        std::fs::write(&lib, "pub fn first() {}\n").expect("write");
        (dir, root, lib)
    }

    /// A reader's edit returns before it is indexed (here while another writer holds the
    /// lock, which its update waits for); edits made meanwhile join the queued update, and
    /// the next lookup waits for it and sees them all.
    #[test]
    fn a_readers_edits_are_indexed_behind_it_and_seen_by_its_next_lookup() {
        let (_dir, root, lib) = lib_tree();
        let live = Arc::new(LiveIndex::new(&root));
        live.get(&|_| {}).expect("built");
        let writer =
            crate::lock::acquire(&root.join(crate::walk::INDEX_DIR), LockWait::Fail, &|_| {})
                .expect("the writer lock");
        std::fs::write(&lib, "pub fn second() {}\n").expect("write");
        std::fs::write(root.join("src/other.rs"), "pub fn third() {}\n").expect("write");
        let (returned, heard) = std::sync::mpsc::channel();
        let reader = Arc::clone(&live);
        let (first, other) = (lib.clone(), root.join("src/other.rs"));
        std::thread::spawn(move || {
            reader.after_change(Some(vec![first]));
            reader.after_change(Some(vec![other]));
            let _ = returned.send(());
        });
        // Waiting for the update would wait for the lock, held until after this.
        heard
            .recv_timeout(Duration::from_secs(30))
            .expect("after_change returned while the update waits for the lock");
        drop(writer);
        let index = live.get(&|_| {}).expect("get");
        assert!(found(&index, "second") && found(&index, "third"));
        assert!(!found(&index, "first") && !found(&index, "other"));
    }

    /// With a watcher running, a reader's edit of an indexed file is indexed by the
    /// watcher (the reader waits for its generation and does not update itself), the
    /// reader's looks open the watcher's generations instead of walking the tree, and a
    /// new file, which the watcher may not index, the reader updates itself at once.
    #[test]
    fn a_reader_leaves_its_edits_to_a_running_watcher() {
        let (_dir, root, lib) = lib_tree();
        let live = LiveIndex::new(&root);
        live.get(&|_| {}).expect("built");
        let _watching =
            crate::fresh::mark_watched(&root.join(crate::walk::INDEX_DIR)).expect("mark watched");
        std::fs::write(&lib, "pub fn second() {}\n").expect("write");
        // The "watcher": its update comes a moment after the edit.
        let watcher = {
            let root = root.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                build_index(&root, &BuildOptions::default(), &|_| {}).expect("update")
            })
        };
        live.after_change(Some(vec![lib.clone()]));
        assert!(found(&live.get(&|_| {}).expect("get"), "second"));
        let by_watcher = watcher.join().expect("watcher");
        assert!(!by_watcher.unchanged, "the reader updated the index itself");
        // Between the reader's own edits, the watcher is trusted: a look does not walk
        // (this "watcher" does nothing until asked, so an edit stays unseen)...
        std::fs::write(&lib, "pub fn by_editor() {}\n").expect("write");
        std::thread::sleep(LOOK_EVERY + Duration::from_millis(100));
        assert!(!found(&live.get(&|_| {}).expect("get"), "by_editor"));
        // ... and the generation it commits is opened at the next look.
        build_index(&root, &BuildOptions::default(), &|_| {}).expect("watcher's update");
        std::thread::sleep(LOOK_EVERY + Duration::from_millis(100));
        assert!(found(&live.get(&|_| {}).expect("get"), "by_editor"));
        assert_eq!(
            live.shared.resident.held_files(&root),
            None,
            "a watcher's edits"
        );
        // A new file: updated by the reader, without waiting for the watcher.
        let new = root.join("src/new.rs");
        std::fs::write(&new, "pub fn third() {}\n").expect("write");
        let started = Instant::now();
        live.after_change(Some(vec![new]));
        assert!(started.elapsed() < WATCHER_WAIT);
        assert!(found(&live.get(&|_| {}).expect("get"), "third"));
    }

    /// The reader's own interface edit leaves every file's declarations held for its
    /// next one (which then takes them); reading and others' edits hold none.
    #[test]
    fn a_reader_holds_declarations_once_it_edits_an_interface() {
        let (_dir, root, lib) = lib_tree();
        let live = LiveIndex::new(&root);
        live.get(&|_| {}).expect("built");
        assert_eq!(
            live.shared.resident.held_files(&root),
            None,
            "after a first build"
        );
        std::fs::write(&lib, "pub fn first() {}\npub fn second() {}\n").expect("write");
        live.after_change(Some(vec![lib.clone()]));
        assert!(found(&live.get(&|_| {}).expect("get"), "second"));
        assert_eq!(live.shared.resident.held_files(&root), Some(2));
        std::fs::write(&lib, "pub fn first() {}\npub fn third() {}\n").expect("write");
        live.after_change(Some(vec![lib.clone()]));
        let index = live.get(&|_| {}).expect("get");
        assert!(found(&index, "third") && !found(&index, "second"));
        assert_eq!(live.shared.resident.held_files(&root), Some(2));
    }

    /// The reader's edits leave patches carrying files; after a quiet spell the
    /// catch-up thread folds them into a fresh base, which answers as the patches did.
    /// A change during the spell puts the fold off until a spell after it.
    #[test]
    fn a_readers_patches_are_folded_when_it_is_quiet() {
        let (_dir, root, lib) = lib_tree();
        let fold = FoldPolicy {
            idle: Duration::from_millis(400),
            after_files: 2,
        };
        let live = LiveIndex::with_fold(&root, fold);
        live.get(&|_| {}).expect("built");
        let carried = || {
            Index::open(&root)
                .expect("open")
                .store()
                .patched_files()
                .len()
        };
        let other = root.join("src/other.rs");
        std::fs::write(&lib, "pub fn first() { let _ = 1; }\n").expect("write");
        live.after_change(Some(vec![lib.clone()]));
        live.settle();
        assert_eq!(carried(), 1, "one file patched: below the fold's threshold");
        std::fs::write(&other, "pub fn other() { let _ = 2; }\n").expect("write");
        live.after_change(Some(vec![other.clone()]));
        live.settle();
        assert_eq!(carried(), 2, "folded before its quiet spell");
        let waited = Instant::now();
        while carried() != 0 {
            assert!(
                waited.elapsed() < Duration::from_secs(30),
                "the patches were never folded"
            );
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            waited.elapsed() >= Duration::from_millis(300),
            "no quiet spell"
        );
        let index = live.get(&|_| {}).expect("get");
        assert!(found(&index, "first") && found(&index, "other"));
        assert_eq!(index.store().base_generation(), index.generation());
    }

    /// A change while a fold runs cancels it (the update then takes the lock as soon as
    /// the fold stops), and so does the reader going away.
    #[test]
    fn a_change_or_the_readers_end_cancels_a_fold() {
        let (_dir, root, lib) = lib_tree();
        let live = LiveIndex::new(&root);
        live.get(&|_| {}).expect("built");
        let fold = Cancel::new();
        live.shared.lock_catch_up().folding = Some(fold.clone());
        std::fs::write(&lib, "pub fn second() {}\n").expect("write");
        live.after_change(Some(vec![lib.clone()]));
        assert!(fold.is_cancelled());
        assert!(found(&live.get(&|_| {}).expect("get"), "second"));
        let fold = Cancel::new();
        live.shared.lock_catch_up().folding = Some(fold.clone());
        drop(live);
        assert!(fold.is_cancelled());
    }

    /// What `warm_languages` compiles, and in which order.
    #[test]
    fn an_index_names_its_languages_most_files_first() {
        let dir = tempfile::tempdir().expect("tempdir");
        for (path, text) in [
            ("a.py", "x = 1\n"),
            ("b.py", "y = 2\n"),
            ("c.rs", "fn c() {}\n"),
            ("notes.txt", "text only\n"),
        ] {
            std::fs::write(dir.path().join(path), text).expect("write");
        }
        build_index(dir.path(), &BuildOptions::default(), &|_| {}).expect("build");
        let index = Index::open_root(dir.path()).expect("open");
        use mcursor_syntax::Lang;
        assert_eq!(index.languages(), [(Lang::Python, 2), (Lang::Rust, 1)]);
    }
}
