//! The workspace root and the rule every file tool follows: a path the model gives must
//! resolve, symbolic links included, to a place inside the root.

use std::path::{Component, Path, PathBuf};

use crate::ToolError;

#[derive(Clone, Debug)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// The workspace rooted at `root` (which must exist; it is canonicalized).
    pub fn new(root: &Path) -> Result<Workspace, ToolError> {
        let root = std::fs::canonicalize(root).map_err(|e| ToolError::Io {
            path: root.display().to_string(),
            detail: e.to_string(),
        })?;
        Ok(Workspace { root })
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// `path` relative to the root with `/`, for messages.
    pub fn display(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .to_string_lossy()
            .replace('\\', "/")
    }

    /// Where `path` (relative to the root, or absolute) really is, refusing anything
    /// outside the root: `..` that climbs out, absolute paths elsewhere, and symbolic
    /// links anywhere along the way that point out. The target need not exist yet.
    pub fn resolve(&self, path: &str) -> Result<PathBuf, ToolError> {
        let outside = || ToolError::OutsideWorkspace {
            path: path.to_owned(),
            root: self.root.display().to_string(),
        };
        if path.trim().is_empty() {
            return Err(ToolError::BadArguments("`path` is empty".into()));
        }
        let given = Path::new(path);
        let joined = if given.is_absolute() {
            given.to_path_buf()
        } else {
            self.root.join(given)
        };
        // Lexical normalization first, so `a/../../x` is judged as `../x`.
        let mut normal = PathBuf::new();
        for component in joined.components() {
            match component {
                Component::ParentDir => {
                    if !normal.pop() {
                        return Err(outside());
                    }
                }
                Component::CurDir => {}
                other => normal.push(other),
            }
        }
        if !normal.starts_with(&self.root) {
            return Err(outside());
        }
        // Then the real location of the longest part that exists (links followed).
        let mut existing = normal.clone();
        let mut tail = Vec::new();
        while !existing.exists() && existing.symlink_metadata().is_err() {
            match (existing.file_name(), existing.parent()) {
                (Some(name), Some(parent)) => {
                    tail.push(name.to_owned());
                    existing = parent.to_path_buf();
                }
                _ => return Err(outside()),
            }
        }
        // A dangling link resolves nowhere; refuse rather than guess where it would write.
        let mut real = std::fs::canonicalize(&existing).map_err(|_| outside())?;
        if !real.starts_with(&self.root) {
            return Err(outside());
        }
        for name in tail.into_iter().rev() {
            real.push(name);
        }
        Ok(real)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_inside_resolve_and_escapes_are_refused() {
        let dir = tempfile::tempdir().expect("tempdir");
        let outside_dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("src")).expect("mkdir");
        std::fs::write(dir.path().join("src/a.rs"), "fn a() {}").expect("write");
        let ws = Workspace::new(dir.path()).expect("workspace");

        let a = ws.resolve("src/a.rs").expect("inside");
        assert_eq!(ws.display(&a), "src/a.rs");
        assert_eq!(
            ws.display(&ws.resolve("./src/../src/new/b.rs").expect("new file")),
            "src/new/b.rs"
        );
        let absolute = a.to_string_lossy().into_owned();
        assert!(ws.resolve(&absolute).is_ok());

        for escape in ["../x", "src/../../x", "/etc/passwd", ""] {
            assert!(ws.resolve(escape).is_err(), "{escape:?} was allowed");
        }

        #[cfg(unix)]
        {
            std::os::unix::fs::symlink(outside_dir.path(), dir.path().join("link")).expect("link");
            assert!(matches!(
                ws.resolve("link/secret.txt"),
                Err(ToolError::OutsideWorkspace { .. })
            ));
            std::os::unix::fs::symlink("/nonexistent/target", dir.path().join("dangling"))
                .expect("link");
            assert!(ws.resolve("dangling").is_err());
            std::os::unix::fs::symlink(dir.path().join("src"), dir.path().join("inner"))
                .expect("link");
            assert_eq!(
                ws.display(&ws.resolve("inner/a.rs").expect("inner link")),
                "src/a.rs"
            );
        }
    }
}
