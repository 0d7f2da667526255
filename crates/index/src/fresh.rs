//! Is the index behind the working tree? Every query asks before it answers, so that an
//! answer from an old index says so instead of passing for the truth.
//!
//! The check is cheap and bounded rather than complete, in this order:
//! 1. A running `mcursor watch` holds a lock on `.mcursor/watch.lock`: it keeps the index
//!    current, so nothing else is checked (one `open` and one `flock`).
//! 2. Every indexed file is `stat`ed (from a descriptor of the root, in parallel on large
//!    trees): a different size or time is a modification unless an update already found
//!    the content unchanged (`touched.json`), or reading it now does; a missing file is
//!    a deletion.
//! 3. Every directory that holds indexed files is `stat`ed: one whose time is not older
//!    than the last whole-tree walk may have gained a file, so it alone is listed again
//!    with the walk's rules (ignore files, size limit, known binary files).
//!
//! A new file in a directory that holds no indexed file (nor is one's ancestor) is not
//! seen; `mcursor status` walks the whole tree and sees it. Past [`CHECK_BUDGET`] the
//! check stops and says how far it got.

use std::collections::HashSet;
use std::path::Path;
use std::time::{Duration, Instant};

use crate::build::{Change, ChangedFile};
use crate::cache;
use crate::store::IndexMeta;
use crate::store::Store;
use crate::walk::{self, INDEX_DIR};

/// The longest a query spends on checking freshness.
pub const CHECK_BUDGET: Duration = Duration::from_millis(300);
/// How many changed files a stale answer lists (the total is always given).
const LISTED: usize = 10;
/// Files on which the stat pass goes parallel.
const PARALLEL_FROM: usize = 4096;
/// The file a running `mcursor watch` holds locked.
pub(crate) const WATCH_LOCK: &str = "watch.lock";

/// How current the index is with the working tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Freshness {
    /// Every indexed file is as the index saw it, and no directory gained a file.
    Current,
    /// A running `mcursor watch` (this process id) keeps the index current.
    Watched { pid: Option<u32> },
    /// The tree changed since the index was built: the first changes, and how many.
    Stale {
        changes: Vec<ChangedFile>,
        total: usize,
    },
    /// The check ran out of time after `checked` of `files` files.
    Unchecked { checked: usize, files: usize },
}

impl Freshness {
    /// One line for a person, or `None` when there is nothing to say.
    pub fn warning(&self) -> Option<String> {
        match self {
            Freshness::Current | Freshness::Watched { .. } => None,
            Freshness::Stale { changes, total } => {
                let named: Vec<String> = changes
                    .iter()
                    .take(3)
                    .map(|c| {
                        format!(
                            "{} {}",
                            crate::escape_controls(&c.path),
                            change_word(c.change)
                        )
                    })
                    .collect();
                let more = if *total > named.len() {
                    format!(", and {} more", total - named.len())
                } else {
                    String::new()
                };
                Some(format!(
                    "the index is behind the tree: {total} file{} changed since it was built ({}{more}); this answer may be out of date: run `mcursor index` (or keep `mcursor watch` running)",
                    if *total == 1 { "" } else { "s" },
                    named.join(", ")
                ))
            }
            Freshness::Unchecked { checked, files } if checked < files => Some(format!(
                "freshness not checked: {checked} of {files} files compared before the time limit; `mcursor status` checks them all (a running `mcursor watch` keeps the index current)"
            )),
            Freshness::Unchecked { .. } => Some(
                "freshness not fully checked: the time limit passed before every directory changed since the last walk was listed for new files; `mcursor status` checks them all (a running `mcursor watch` keeps the index current)".to_owned()
            ),
        }
    }
}

fn change_word(change: Change) -> &'static str {
    match change {
        Change::Added => "added",
        Change::Modified => "modified",
        Change::Deleted => "deleted",
        Change::Renamed => "renamed",
    }
}

/// The process id of a running `mcursor watch` on the index directory `dir`, if one runs.
/// `Some(None)`: one runs, its pid unreadable.
pub(crate) fn live_watcher(dir: &Path) -> Option<Option<u32>> {
    use std::io::Read;
    let mut file = std::fs::File::open(dir.join(WATCH_LOCK)).ok()?;
    match file.try_lock_shared() {
        Ok(()) => None,
        Err(std::fs::TryLockError::WouldBlock) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            Some(pid.trim().parse().ok())
        }
        Err(std::fs::TryLockError::Error(_)) => None,
    }
}

/// Held by `mcursor watch` while it keeps the index current; released on drop (and by
/// the kernel when the process dies).
pub(crate) struct WatchMark {
    _file: std::fs::File,
}

/// Marks the index of `dir` as watched, unless another watcher already does.
pub(crate) fn mark_watched(dir: &Path) -> Option<WatchMark> {
    use std::io::Write;
    let mut file = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(dir.join(WATCH_LOCK))
        .ok()?;
    file.try_lock().ok()?;
    file.set_len(0).ok()?;
    write!(file, "{}", std::process::id()).ok()?;
    Some(WatchMark { _file: file })
}

/// What an answer depends on, so what the check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// Definitions, references, calls: only files of parsed languages can change them.
    Symbols,
    /// Full-text search: every indexed file.
    Text,
}

impl Scope {
    fn covers(self, path: &str) -> bool {
        match self {
            Scope::Symbols => mcursor_syntax::Lang::from_path(Path::new(path)).is_some(),
            Scope::Text => true,
        }
    }
}

/// How one indexed file compares with what the index saw.
enum FileState {
    Same,
    Missing,
    Differs { size: u64, mtime_ns: i64 },
}

/// Checks the index of `root` (whose store is `store`) against the tree.
pub(crate) fn check(root: &Path, store: &Store, scope: Scope) -> Freshness {
    let dir = root.join(INDEX_DIR);
    if let Some(pid) = live_watcher(&dir) {
        return Freshness::Watched { pid };
    }
    let deadline = Instant::now() + CHECK_BUDGET;
    let files: Vec<crate::store::FileInfo<'_>> = (0..store.file_count())
        .filter_map(|i| store.file(i))
        .filter(|f| match scope {
            Scope::Symbols => f.lang.is_some(),
            Scope::Text => true,
        })
        .collect();
    let Some(base) = Base::open(root) else {
        return Freshness::Unchecked {
            checked: 0,
            files: files.len(),
        };
    };
    let directories = directories(files.iter().map(|f| f.path));
    let scan = match scan(&base, &files, &directories, deadline) {
        Ok(scan) => scan,
        Err(checked) => {
            return Freshness::Unchecked {
                checked,
                files: files.len(),
            };
        }
    };
    // Read only when needed: most checks find every file as the index saw it.
    let touched = std::cell::OnceCell::new();
    let mut changes = Vec::new();
    for (file, state) in files.iter().zip(scan.files) {
        let change = match state {
            FileState::Same => continue,
            FileState::Missing => Change::Deleted,
            FileState::Differs { size, mtime_ns } => {
                if touched
                    .get_or_init(|| cache::load_seen(&dir, cache::TOUCHED_FILE))
                    .get(file.path)
                    .is_some_and(|t| t.matches(size, mtime_ns))
                    || (size == file.size
                        && Instant::now() < deadline
                        && same_content(root, file.path, size, file.hash))
                {
                    continue;
                }
                Change::Modified
            }
        };
        changes.push(ChangedFile {
            path: file.path.to_owned(),
            change,
            from: None,
        });
    }
    // A directory changed since the last walk may hold a new file: list it again.
    let meta = store.meta();
    let walked = walked_since(&meta);
    let max_size = meta
        .max_file_size
        .unwrap_or(crate::build::DEFAULT_MAX_FILE_SIZE);
    let binary = std::cell::OnceCell::new();
    for (directory, time) in directories.iter().zip(&scan.directory_times) {
        let Some(mtime_ns) = *time else { continue };
        if !walked.may_have_changed(directory, mtime_ns) {
            continue;
        }
        if Instant::now() >= deadline {
            return Freshness::Unchecked {
                checked: files.len(),
                files: files.len(),
            };
        }
        NewFiles {
            root,
            store,
            scope,
            max_size,
            known_dirs: &directories,
            binary: binary.get_or_init(|| cache::load_seen(&dir, cache::BINARY_FILE)),
        }
        .in_directory(directory, &mut changes);
    }
    if changes.is_empty() {
        return Freshness::Current;
    }
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes.dedup_by(|a, b| a.path == b.path);
    let total = changes.len();
    changes.truncate(LISTED);
    Freshness::Stale { changes, total }
}

/// What the last whole-tree walk saw of directory times.
struct Walked {
    /// When it started, in nanoseconds since the epoch.
    started_ns: u64,
    /// The root's time just before it (the index directory lives in the root: creating
    /// it must not count as a change).
    root_mtime_ns: Option<i64>,
}

impl Walked {
    /// Whether a directory with this time may have gained an entry since the walk.
    fn may_have_changed(&self, directory: &str, mtime_ns: i64) -> bool {
        if directory.is_empty()
            && let Some(root) = self.root_mtime_ns
        {
            return mtime_ns != root;
        }
        // The walk's start comes from the file system's own clock (see `build`): a
        // directory changed after it has a time at least as late (the same tick counts).
        mtime_ns.max(0) as u64 >= self.started_ns
    }
}

/// The last walk's times. An index written before walks were timed gives its build time
/// less ten minutes (more directories are listed again, none missed that changed since).
fn walked_since(meta: &IndexMeta) -> Walked {
    if meta.walked_unix_ns > 0 {
        return Walked {
            started_ns: meta.walked_unix_ns,
            root_mtime_ns: meta.root_mtime_ns,
        };
    }
    let built_ms = meta.built_unix_ms;
    Walked {
        started_ns: built_ms.saturating_sub(600_000).saturating_mul(1_000_000),
        root_mtime_ns: None,
    }
}

/// The directories holding indexed files, and their ancestors (`""` is the root).
fn directories<'a>(paths: impl Iterator<Item = &'a str>) -> Vec<&'a str> {
    let mut seen: HashSet<&'a str> = HashSet::new();
    let mut last_parent = None;
    for path in paths {
        let parent = path.rsplit_once('/').map_or("", |(p, _)| p);
        if last_parent == Some(parent) {
            continue;
        }
        last_parent = Some(parent);
        let mut dir = parent;
        while seen.insert(dir) {
            match dir.rsplit_once('/') {
                Some((up, _)) => dir = up,
                None if !dir.is_empty() => dir = "",
                None => break,
            }
        }
    }
    seen.insert("");
    let mut dirs: Vec<&str> = seen.into_iter().collect();
    dirs.sort_unstable();
    dirs
}

/// Looks for files the walk would index now that the index does not hold.
struct NewFiles<'a> {
    root: &'a Path,
    store: &'a Store,
    scope: Scope,
    max_size: u64,
    /// The directories the index knows, sorted.
    known_dirs: &'a [&'a str],
    binary: &'a std::collections::HashMap<String, cache::SeenFile>,
}

impl NewFiles<'_> {
    /// Whether a new file that no extension makes a source file is one by its first
    /// line (a shell script's `#!`): read only for symbol answers, and only its start.
    fn is_new_script(&self, path: &str) -> bool {
        use std::io::Read;
        if self.scope != Scope::Symbols {
            return false;
        }
        let mut start = [0u8; 256];
        let read = std::fs::File::open(self.root.join(path))
            .and_then(|mut f| f.read(&mut start))
            .unwrap_or(0);
        let head = String::from_utf8_lossy(&start[..read]);
        mcursor_syntax::Lang::of_file(Path::new(path), &head).is_some()
    }

    /// A walked file that the index lacks and the answer depends on, as a change.
    fn added(&self, file: walk::WalkedFile) -> Option<ChangedFile> {
        // The file's start is read last, only for a file nothing else settles.
        let new = self.store.file_id(&file.path).is_none()
            && !self
                .binary
                .get(&file.path)
                .is_some_and(|b| b.matches(file.size, file.mtime_ns))
            && (self.scope.covers(&file.path) || self.is_new_script(&file.path));
        new.then_some(ChangedFile {
            path: file.path,
            change: Change::Added,
            from: None,
        })
    }

    /// The new files in `directory` itself, and the first one below each directory in
    /// it that the index does not know.
    fn in_directory(&self, directory: &str, changes: &mut Vec<ChangedFile>) {
        let start = if directory.is_empty() {
            self.root.to_path_buf()
        } else {
            self.root.join(directory)
        };
        for entry in walk::walker(&start).max_depth(Some(1)).build() {
            let Ok(entry) = entry else { continue };
            if entry.depth() == 0 {
                continue;
            }
            if entry.file_type().is_some_and(|t| t.is_dir()) {
                let unknown = walk::relative(self.root, entry.path())
                    .is_some_and(|r| self.known_dirs.binary_search(&r.as_str()).is_err());
                if unknown && let Some(first) = self.first_below(entry.path()) {
                    changes.push(first);
                }
                continue;
            }
            if let Some(Ok(file)) = walk::classify(self.root, Ok(entry), self.max_size)
                && let Some(added) = self.added(file)
            {
                changes.push(added);
            }
        }
    }

    /// The first new file below a directory the index does not know.
    fn first_below(&self, directory: &Path) -> Option<ChangedFile> {
        walk::walker(directory).build().find_map(|entry| {
            match walk::classify(self.root, entry, self.max_size) {
                Some(Ok(file)) => self.added(file),
                _ => None,
            }
        })
    }
}

/// Whether the file still holds the content the index hashed (a `touch`, a branch
/// switched away and back).
fn same_content(root: &Path, path: &str, size: u64, hash: u64) -> bool {
    walk::read_regular(&root.join(path), size.saturating_add(1))
        .is_ok_and(|bytes| xxhash_rust::xxh3::xxh3_64(&bytes) == hash)
}

/// What one pass of `stat`s found: each file's state and each directory's time (in
/// the orders given).
struct Scan {
    files: Vec<FileState>,
    directory_times: Vec<Option<i64>>,
}

/// `stat`s every file and directory, in parallel on large trees, or says how many files
/// were done when the deadline passed.
fn scan(
    base: &Base,
    files: &[crate::store::FileInfo<'_>],
    directories: &[&str],
    deadline: Instant,
) -> Result<Scan, usize> {
    let state = |f: &crate::store::FileInfo<'_>| match base.stat(f.path) {
        None => FileState::Missing,
        Some((size, mtime_ns)) if size == f.size && mtime_ns == f.mtime_ns => FileState::Same,
        Some((size, mtime_ns)) => FileState::Differs { size, mtime_ns },
    };
    // One worker's share: a run of files and a run of directories.
    let share = |files: &[crate::store::FileInfo<'_>], directories: &[&str]| {
        let mut states = Vec::with_capacity(files.len());
        for (i, f) in files.iter().enumerate() {
            if i % 256 == 255 && Instant::now() >= deadline {
                return Err(i);
            }
            states.push(state(f));
        }
        let times: Vec<Option<i64>> = directories.iter().map(|d| base.mtime_ns(d)).collect();
        Ok(Scan {
            files: states,
            directory_times: times,
        })
    };
    let workers = if files.len() < PARALLEL_FROM {
        1
    } else {
        std::thread::available_parallelism()
            .map_or(2, |n| n.get())
            .clamp(2, 8)
    };
    if workers == 1 {
        return share(files, directories);
    }
    let file_chunk = files.len().div_ceil(workers).max(1);
    let directory_chunk = directories.len().div_ceil(workers).max(1);
    let parts: Vec<Result<Scan, usize>> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..workers)
            .map(|w| {
                let files = files.get(w * file_chunk..).unwrap_or(&[]);
                let files = &files[..files.len().min(file_chunk)];
                let directories = directories.get(w * directory_chunk..).unwrap_or(&[]);
                let directories = &directories[..directories.len().min(directory_chunk)];
                scope.spawn(move || share(files, directories))
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().unwrap_or(Err(0)))
            .collect()
    });
    let mut whole = Scan {
        files: Vec::with_capacity(files.len()),
        directory_times: Vec::with_capacity(directories.len()),
    };
    let (mut done, mut out_of_time) = (0, false);
    for part in parts {
        match part {
            Ok(part) => {
                done += part.files.len();
                whole.files.extend(part.files);
                whole.directory_times.extend(part.directory_times);
            }
            Err(partial) => {
                done += partial;
                out_of_time = true;
            }
        }
    }
    if out_of_time { Err(done) } else { Ok(whole) }
}

/// The root, for `stat`s of paths below it.
struct Base {
    #[cfg(unix)]
    dir: std::os::fd::OwnedFd,
    #[cfg(not(unix))]
    dir: std::path::PathBuf,
}

impl Base {
    fn open(root: &Path) -> Option<Base> {
        #[cfg(unix)]
        {
            use rustix::fs::{Mode, OFlags};
            let dir = rustix::fs::open(
                root,
                OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC,
                Mode::empty(),
            )
            .ok()?;
            Some(Base { dir })
        }
        #[cfg(not(unix))]
        {
            Some(Base {
                dir: root.to_path_buf(),
            })
        }
    }

    /// Size and modification time (nanoseconds) of `relative`, without following a
    /// final symbolic link; `None` when it is gone or not a regular file.
    fn stat(&self, relative: &str) -> Option<(u64, i64)> {
        #[cfg(unix)]
        {
            use rustix::fs::{AtFlags, FileType};
            let st = rustix::fs::statat(&self.dir, relative, AtFlags::SYMLINK_NOFOLLOW).ok()?;
            if FileType::from_raw_mode(st.st_mode) != FileType::RegularFile {
                return None;
            }
            Some((
                st.st_size as u64,
                timestamp_ns(st.st_mtime, st.st_mtime_nsec),
            ))
        }
        #[cfg(not(unix))]
        {
            let metadata = std::fs::symlink_metadata(self.dir.join(relative)).ok()?;
            metadata
                .is_file()
                .then(|| (metadata.len(), walk::mtime_ns(&metadata)))
        }
    }

    /// The modification time of the directory `relative` (`""`: the root).
    fn mtime_ns(&self, relative: &str) -> Option<i64> {
        #[cfg(unix)]
        {
            use rustix::fs::AtFlags;
            let path = if relative.is_empty() { "." } else { relative };
            let st = rustix::fs::statat(&self.dir, path, AtFlags::SYMLINK_NOFOLLOW).ok()?;
            Some(timestamp_ns(st.st_mtime, st.st_mtime_nsec))
        }
        #[cfg(not(unix))]
        {
            let metadata = std::fs::symlink_metadata(self.dir.join(relative)).ok()?;
            Some(walk::mtime_ns(&metadata))
        }
    }
}

#[cfg(unix)]
fn timestamp_ns(seconds: i64, nanoseconds: impl TryInto<i64>) -> i64 {
    let nanoseconds: i64 = nanoseconds.try_into().unwrap_or(0);
    seconds
        .saturating_mul(1_000_000_000)
        .saturating_add(nanoseconds)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directories_are_the_parents_of_files_and_their_ancestors() {
        let paths = ["a/b/c.rs", "a/b/d.rs", "a/e.rs", "f.rs", "g/h/i/j.rs"];
        let dirs = directories(paths.into_iter());
        assert_eq!(dirs, vec!["", "a", "a/b", "g", "g/h", "g/h/i"]);
    }

    #[test]
    fn a_stale_warning_names_the_changes_and_the_total() {
        let stale = Freshness::Stale {
            changes: vec![ChangedFile {
                path: "src/lib.rs".into(),
                change: Change::Modified,
                from: None,
            }],
            total: 4,
        };
        let warning = stale.warning().expect("a warning");
        assert!(warning.contains("4 files changed"), "{warning}");
        assert!(
            warning.contains("src/lib.rs modified, and 3 more"),
            "{warning}"
        );
        assert_eq!(Freshness::Current.warning(), None);
        assert_eq!(Freshness::Watched { pid: Some(7) }.warning(), None);
    }
}
