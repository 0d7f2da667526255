//! Finding the files to index: `ignore`'s walker with git's rules plus `.mcursorignore`.
//!
//! Hidden files, `.git/` and `.mcursor/` are never entered, symlinks are never followed, and
//! every entry that is not indexed for a reason the user may care about is reported with
//! that reason. Nothing outside the root is read.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::UNIX_EPOCH;

use ignore::{WalkBuilder, WalkState};

/// The name of mcursor's own ignore file (gitignore syntax).
pub const IGNORE_FILE: &str = ".mcursorignore";
/// The directory holding the index, at the repository root.
pub const INDEX_DIR: &str = ".mcursor";

/// Why a file was not indexed.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum SkipReason {
    TooLarge,
    Binary,
    NotRegularFile,
    Symlink,
    NonUtf8Name,
    Unreadable(String),
}

impl SkipReason {
    /// A short, stable key for summaries and JSON.
    pub fn key(&self) -> &'static str {
        match self {
            SkipReason::TooLarge => "too_large",
            SkipReason::Binary => "binary",
            SkipReason::NotRegularFile => "not_regular_file",
            SkipReason::Symlink => "symlink",
            SkipReason::NonUtf8Name => "non_utf8_name",
            SkipReason::Unreadable(_) => "unreadable",
        }
    }
}

impl std::fmt::Display for SkipReason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SkipReason::TooLarge => f.write_str("larger than the size limit"),
            SkipReason::Binary => f.write_str("binary (contains a NUL byte)"),
            SkipReason::NotRegularFile => {
                f.write_str("not a regular file (FIFO, socket or device)")
            }
            SkipReason::Symlink => f.write_str("symbolic link (not followed)"),
            SkipReason::NonUtf8Name => f.write_str("file name is not valid UTF-8"),
            SkipReason::Unreadable(why) => write!(f, "unreadable: {why}"),
        }
    }
}

/// A file not indexed, with its reason. `path` is relative to the root, lossily decoded.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Skipped {
    pub path: String,
    pub reason: SkipReason,
}

/// A file to index.
#[derive(Debug, Clone)]
pub struct WalkedFile {
    /// Relative to the root, `/`-separated.
    pub path: String,
    pub absolute: PathBuf,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch (0 if unknown).
    pub mtime_ns: i64,
}

impl WalkedFile {
    /// The file's size and time, as a cache records them.
    pub(crate) fn seen(&self) -> crate::cache::SeenFile {
        crate::cache::SeenFile {
            path: self.path.clone(),
            size: self.size,
            mtime_ns: self.mtime_ns,
        }
    }
}

/// Walk options.
#[derive(Debug, Clone)]
pub struct WalkOptions {
    /// Files larger than this many bytes are skipped.
    pub max_file_size: u64,
    pub threads: usize,
}

/// Lists the files under `root` that are candidates for indexing, sorted by path.
pub fn walk(root: &Path, options: &WalkOptions) -> (Vec<WalkedFile>, Vec<Skipped>) {
    let mut builder = walker(root);
    builder.threads(options.threads.max(1));
    let files = Mutex::new(Vec::new());
    let skipped = Mutex::new(Vec::new());
    let max_size = options.max_file_size;
    builder.build_parallel().run(|| {
        let files = &files;
        let skipped = &skipped;
        Box::new(move |result| {
            let outcome = classify(root, result, max_size);
            match outcome {
                Some(Ok(file)) => lock(files).push(file),
                Some(Err(skip)) => lock(skipped).push(skip),
                None => {}
            }
            WalkState::Continue
        })
    });
    let mut files = files.into_inner().unwrap_or_else(|e| e.into_inner());
    let mut skipped = skipped.into_inner().unwrap_or_else(|e| e.into_inner());
    files.sort_by(|a: &WalkedFile, b| a.path.cmp(&b.path));
    skipped.sort();
    (files, skipped)
}

/// The walker with the index's rules, starting at `start` (the root, or a directory
/// below it whose parents' ignore files then apply too).
pub(crate) fn walker(start: &Path) -> WalkBuilder {
    let mut builder = WalkBuilder::new(start);
    builder
        .hidden(true)
        .parents(true)
        .ignore(true)
        .git_ignore(true)
        .git_global(true)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .add_custom_ignore_filename(IGNORE_FILE)
        .filter_entry(|entry| {
            let name = entry.file_name();
            !(entry.depth() > 0 && (name == INDEX_DIR || name == ".git"))
        });
    builder
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

pub(crate) fn relative(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).unwrap_or(path);
    let mut out = String::new();
    for (i, part) in rel.components().enumerate() {
        if i > 0 {
            out.push('/');
        }
        out.push_str(part.as_os_str().to_str()?);
    }
    Some(out)
}

fn lossy_relative(root: &Path, path: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .replace('\\', "/")
}

pub(crate) fn classify(
    root: &Path,
    result: Result<ignore::DirEntry, ignore::Error>,
    max_size: u64,
) -> Option<Result<WalkedFile, Skipped>> {
    let entry = match result {
        Ok(entry) => entry,
        Err(err) => {
            let path = error_path(&err)
                .map(|p| lossy_relative(root, p))
                .unwrap_or_default();
            return Some(Err(Skipped {
                path,
                reason: SkipReason::Unreadable(err.to_string()),
            }));
        }
    };
    let file_type = entry.file_type()?;
    if file_type.is_dir() {
        return None;
    }
    let path = entry.path();
    let Some(rel) = relative(root, path) else {
        return Some(Err(Skipped {
            path: lossy_relative(root, path),
            reason: SkipReason::NonUtf8Name,
        }));
    };
    if file_type.is_symlink() {
        return Some(Err(Skipped {
            path: rel,
            reason: SkipReason::Symlink,
        }));
    }
    if !file_type.is_file() {
        return Some(Err(Skipped {
            path: rel,
            reason: SkipReason::NotRegularFile,
        }));
    }
    let metadata = match entry.metadata() {
        Ok(m) => m,
        Err(err) => {
            return Some(Err(Skipped {
                path: rel,
                reason: SkipReason::Unreadable(err.to_string()),
            }));
        }
    };
    if metadata.len() > max_size {
        return Some(Err(Skipped {
            path: rel,
            reason: SkipReason::TooLarge,
        }));
    }
    Some(Ok(WalkedFile {
        path: rel,
        absolute: path.to_path_buf(),
        size: metadata.len(),
        mtime_ns: mtime_ns(&metadata),
    }))
}

pub(crate) fn mtime_ns(metadata: &std::fs::Metadata) -> i64 {
    metadata
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_nanos().min(i64::MAX as u128) as i64)
        .unwrap_or(0)
}

fn error_path(err: &ignore::Error) -> Option<&Path> {
    match err {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn walk_errors_become_skips_with_their_path() {
        // Root runs CI, and root reads every directory; so the permission error an
        // unreadable directory produces is fed in directly.
        let root = Path::new("/repo");
        let error = ignore::Error::WithPath {
            path: root.join("private"),
            err: Box::new(ignore::Error::Io(std::io::Error::from(
                std::io::ErrorKind::PermissionDenied,
            ))),
        };
        match classify(root, Err(error), 1024) {
            Some(Err(Skipped {
                path,
                reason: SkipReason::Unreadable(why),
            })) => {
                assert_eq!(path, "private");
                assert!(why.contains("ermission"), "{why}");
            }
            other => panic!("expected an unreadable skip, got {other:?}"),
        }
    }

    #[test]
    fn the_walk_reports_what_it_skips() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::write(root.join("a.rs"), "fn a() {}").expect("write");
        std::fs::write(root.join("big.rs"), vec![b'x'; 2048]).expect("write");
        std::fs::create_dir(root.join(INDEX_DIR)).expect("mkdir");
        std::fs::write(root.join(INDEX_DIR).join("x.rs"), "fn x() {}").expect("write");
        std::os::unix::fs::symlink(root.join("a.rs"), root.join("link.rs")).expect("symlink");
        let (files, skipped) = walk(
            root,
            &WalkOptions {
                max_file_size: 1024,
                threads: 2,
            },
        );
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, ["a.rs"]);
        let reasons: Vec<(&str, &str)> = skipped
            .iter()
            .map(|s| (s.path.as_str(), s.reason.key()))
            .collect();
        assert_eq!(reasons, [("big.rs", "too_large"), ("link.rs", "symlink")]);
    }
}

/// Opens `path` for reading only if it is, right now, a regular file and not a symbolic
/// link. Between the walk (or a query) and the read a file can be swapped: for a FIFO,
/// which would block the reader forever, for a device, or for a link to outside. The
/// open does not follow a final link and does not block (Unix), and the opened file is
/// checked again.
pub fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let not_regular = || {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("{} is not a regular file", path.display()),
        )
    };
    if !std::fs::symlink_metadata(path)?.file_type().is_file() {
        return Err(not_regular());
    }
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(
            (rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK).bits() as i32,
        );
    }
    let file = options.open(path)?;
    if !file.metadata()?.file_type().is_file() {
        return Err(not_regular());
    }
    Ok(file)
}

/// The bytes of the regular file at `path` (see [`open_regular`]), refusing one larger
/// than `limit` bytes without reading it.
pub fn read_regular(path: &Path, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let file = open_regular(path)?;
    let size = file.metadata()?.len();
    if size > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!(
                "{} has {size} bytes, over the limit of {limit}",
                path.display()
            ),
        ));
    }
    let mut bytes = Vec::with_capacity(size as usize);
    // `take`: a file growing while it is read stops at the limit too.
    file.take(limit + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::new(
            std::io::ErrorKind::FileTooLarge,
            format!("{} grew past {limit} bytes while read", path.display()),
        ));
    }
    Ok(bytes)
}

#[cfg(all(test, unix))]
mod open_tests {
    use super::*;

    #[test]
    fn only_regular_files_open() {
        let dir = tempfile::tempdir().expect("tempdir");
        let file = dir.path().join("a.rs");
        std::fs::write(&file, "fn a() {}").expect("write");
        assert_eq!(read_regular(&file, 100).expect("read"), b"fn a() {}");
        assert!(read_regular(&file, 3).is_err());
        std::os::unix::fs::symlink(&file, dir.path().join("link.rs")).expect("symlink");
        assert!(open_regular(&dir.path().join("link.rs")).is_err());
        let fifo = dir.path().join("fifo");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .expect("mkfifo");
        assert!(made.success());
        // Refused at once, not blocked waiting for a writer.
        assert!(open_regular(&fifo).is_err());
        assert!(open_regular(Path::new("/dev/zero")).is_err());
        assert!(open_regular(dir.path()).is_err());
    }

    #[test]
    fn query_time_reads_stay_below_the_root_without_links() {
        let root = tempfile::tempdir().expect("tempdir");
        let outside = tempfile::tempdir().expect("tempdir");
        std::fs::write(outside.path().join("secret.rs"), "secret").expect("write");
        std::fs::create_dir(root.path().join("src")).expect("mkdir");
        std::fs::write(root.path().join("src/a.rs"), "fn a() {}").expect("write");
        std::os::unix::fs::symlink(
            outside.path().join("secret.rs"),
            root.path().join("src/b.rs"),
        )
        .expect("symlink");
        std::os::unix::fs::symlink(outside.path(), root.path().join("linked")).expect("symlink");
        let mut sources = vec![SourceRoot::new(root.path())];
        // The portable way, as on kernels without openat2.
        #[cfg(target_os = "linux")]
        sources.push(SourceRoot {
            dir: None,
            ..SourceRoot::new(root.path())
        });
        for source in &sources {
            assert!(source.open("src/a.rs").is_some());
            assert!(
                source.open("src/b.rs").is_none(),
                "a link to a file outside"
            );
            assert!(
                source.open("linked/secret.rs").is_none(),
                "a linked directory"
            );
            assert!(source.open("../outside.rs").is_none());
            assert!(source.open("src").is_none(), "a directory");
        }
    }
}

/// The repository root as queries read indexed files from it. On Linux one `openat2`
/// below a descriptor of the root, refusing any symbolic link on the way and anything
/// that would leave the root; elsewhere (or on kernels before 5.6) the file's directory
/// is resolved and checked against the root. Either way the file must be regular.
pub(crate) struct SourceRoot {
    path: PathBuf,
    canonical: Option<PathBuf>,
    #[cfg(target_os = "linux")]
    dir: Option<std::os::fd::OwnedFd>,
}

impl SourceRoot {
    pub(crate) fn new(path: &Path) -> SourceRoot {
        SourceRoot {
            path: path.to_path_buf(),
            canonical: path.canonicalize().ok(),
            #[cfg(target_os = "linux")]
            dir: rustix::fs::open(
                path,
                rustix::fs::OFlags::RDONLY
                    | rustix::fs::OFlags::DIRECTORY
                    | rustix::fs::OFlags::CLOEXEC,
                rustix::fs::Mode::empty(),
            )
            .ok(),
        }
    }

    /// The indexed file `relative`, if it is still a regular file inside the root
    /// reached without a symbolic link (see [`open_regular`] for why it can be swapped).
    pub(crate) fn open(&self, relative: &str) -> Option<std::fs::File> {
        #[cfg(target_os = "linux")]
        if let Some(dir) = &self.dir {
            use rustix::fs::{Mode, OFlags, ResolveFlags};
            match rustix::fs::openat2(
                dir,
                relative,
                OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY,
                Mode::empty(),
                ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS,
            ) {
                Ok(fd) => {
                    let file = std::fs::File::from(fd);
                    return file.metadata().ok()?.file_type().is_file().then_some(file);
                }
                // A kernel without openat2 (before 5.6) takes the portable way.
                Err(rustix::io::Errno::NOSYS) => {}
                Err(_) => return None,
            }
        }
        let full = self.path.join(relative);
        let parent = full.parent()?.canonicalize().ok()?;
        if !parent.starts_with(self.canonical.as_ref()?) {
            return None;
        }
        open_regular(&full).ok()
    }
}
