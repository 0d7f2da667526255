//! The index crate's one error type.

use std::path::PathBuf;

/// Everything that can go wrong opening, building or querying an index.
///
/// Problems with single source files are never errors: they are counted as skipped files
/// or diagnostics in the build summary.
#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    /// The path to index or query does not exist.
    #[error("{0}: no such file or directory")]
    MissingPath(PathBuf),
    /// `mcursor index` was pointed at a file.
    #[error("{0}: not a directory (mcursor indexes a directory; pass the repository root)")]
    NotADirectory(PathBuf),
    /// No `.mcursor/` in this directory or any parent.
    #[error(
        "no mcursor index found in {0} or any parent directory; run `mcursor index` in the repository root first"
    )]
    NoIndex(PathBuf),
    /// The index was written by a different on-disk format version.
    #[error(
        "the index in {path} was written by format {found}, this mcursor reads format {expected}; run `mcursor index --full` to rebuild it"
    )]
    FormatMismatch {
        path: PathBuf,
        found: String,
        expected: u32,
    },
    /// The index files are damaged; a rebuild repairs them.
    #[error("the index in {path} is damaged ({detail}); run `mcursor index --full` to rebuild it")]
    Corrupt { path: PathBuf, detail: String },
    /// Another process holds the writer lock and the caller asked not to wait.
    #[error("the index in {path} is locked by another mcursor process ({holder})")]
    Locked { path: PathBuf, holder: String },
    /// An I/O error with the path it happened on.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The full-text index reported an error.
    #[error("text index: {0}")]
    Text(#[from] tantivy::TantivyError),
    /// A user-supplied pattern (regex, glob) does not compile.
    #[error("invalid pattern: {0}")]
    Pattern(String),
    /// A `PATH:LINE[:COL]` location that names nothing indexed.
    #[error("{0}")]
    BadLocation(String),
    /// The build was cancelled ([`crate::BuildOptions::cancel`]) before it committed.
    #[error("the update was cancelled before it committed; the index is as it was")]
    Cancelled,
}

pub type Result<T, E = IndexError> = std::result::Result<T, E>;

impl IndexError {
    /// An I/O error on a path the user named: "not found" becomes [`IndexError::MissingPath`].
    pub(crate) fn on_user_path(path: &std::path::Path, source: std::io::Error) -> IndexError {
        match source.kind() {
            std::io::ErrorKind::NotFound => IndexError::MissingPath(path.to_path_buf()),
            _ => IndexError::Io {
                path: path.to_path_buf(),
                source,
            },
        }
    }
}

pub(crate) trait IoContext<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> IoContext<T> for std::io::Result<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|source| IndexError::Io {
            path: path.into(),
            source,
        })
    }
}
