//! One writer at a time across processes: an OS file lock on `.mcursor/lock`.
//!
//! The kernel releases the lock when its holder exits or is killed, so a crashed
//! `mcursor index` never leaves a stale lock behind. The holder writes its pid into the
//! file so that a waiting process can say whom it waits for.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, Write};
use std::path::Path;

use crate::error::{IndexError, IoContext, Result};

/// Held while writing; released on drop.
pub struct WriterLock {
    _file: File,
}

/// What to do when another process holds the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockWait {
    /// Block until the other writer finishes.
    Wait,
    /// Fail at once with [`IndexError::Locked`].
    Fail,
}

/// Takes the writer lock of the index directory `dir`. `on_wait` is called once with the
/// holder's description before blocking.
pub fn acquire(dir: &Path, wait: LockWait, on_wait: &dyn Fn(&str)) -> Result<WriterLock> {
    let path = dir.join("lock");
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .at(&path)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = match holder.trim() {
                "" => "another mcursor process".to_owned(),
                pid => format!("pid {pid}"),
            };
            if wait == LockWait::Fail {
                return Err(IndexError::Locked {
                    path: dir.to_path_buf(),
                    holder,
                });
            }
            on_wait(&holder);
            file.lock().at(&path)?;
        }
        Err(TryLockError::Error(e)) => return Err(e).at(&path),
    }
    file.set_len(0).at(&path)?;
    file.rewind().at(&path)?;
    write!(file, "{}", std::process::id()).at(&path)?;
    Ok(WriterLock { _file: file })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_when_asked_not_to_wait() {
        let dir = tempfile::tempdir().expect("tempdir");
        let first = acquire(dir.path(), LockWait::Fail, &|_| {}).expect("first lock");
        match acquire(dir.path(), LockWait::Fail, &|_| {}) {
            Err(IndexError::Locked { holder, .. }) => {
                assert_eq!(holder, format!("pid {}", std::process::id()))
            }
            other => panic!("expected Locked, got {:?}", other.err()),
        }
        drop(first);
        acquire(dir.path(), LockWait::Fail, &|_| {}).expect("lock after release");
    }
}
