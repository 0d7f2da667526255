//! Files that bring other files in as text (C's `#include`, a shell script's `source`):
//! where an included path leads in the tree, and the files one file reaches through them.
//!
//! A path is found relative to the including file first, then, as an include directory
//! (`-I`) would find it, by its trailing segments anywhere in the tree among the family's
//! files, the one sharing the most directories with the including file first. A path as
//! written in `<...>` (a C system include, a Lua module by its `package.path` name) is
//! only searched the second way.

use std::cell::RefCell;
use std::rc::Rc;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use mcursor_syntax::{Family, ImportTarget};

use super::{ParsedFile, Tables};

/// Files followed from one file, at most (a bound on hostile or generated include
/// graphs; real translation units include tens to a few hundred).
const MAX_CLOSURE_FILES: usize = 4096;
/// Closures kept per worker thread: a file's uses are resolved together, and the
/// receiver-type pass looks up from a few files at a time.
const CLOSURE_CACHE_ENTRIES: usize = 16;

/// The directory part of a path (`""` at the root).
pub(super) fn directory(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(dir, _)| dir)
}

/// `dir` joined with a relative `path`, `.` and `..` applied; `None` when it leaves the
/// tree.
fn join(dir: &str, path: &str) -> Option<String> {
    let mut parts: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            name => parts.push(name),
        }
    }
    Some(parts.join("/"))
}

/// Directory segments two paths share from the root.
fn shared_segments(a: &str, b: &str) -> usize {
    directory(a)
        .split('/')
        .zip(directory(b).split('/'))
        .take_while(|(x, y)| x == y && !x.is_empty())
        .count()
}

/// The files one file's includes reach, itself included.
pub(super) type Closure = Rc<HashSet<u32>>;

thread_local! {
    /// (run, family, file) → its closure.
    static CLOSURES: RefCell<Vec<(u64, Family, u32, Closure)>> = const { RefCell::new(Vec::new()) };
}

/// One family's include graph.
pub(super) struct IncludeGraph {
    family: Family,
    /// Every trailing run of a file's path segments (`net/http.h`, `http.h` for
    /// `src/net/http.h`) → those files.
    suffixes: HashMap<String, Vec<u32>>,
    /// Per file: the files of the tree its includes name, in order.
    edges: HashMap<u32, Vec<u32>>,
}

impl IncludeGraph {
    pub fn new(family: Family) -> IncludeGraph {
        IncludeGraph {
            family,
            suffixes: HashMap::default(),
            edges: HashMap::default(),
        }
    }

    /// Registers a file of the family by its path.
    pub fn add_file(&mut self, fid: u32, path: &str) {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        for start in 0..segments.len() {
            self.suffixes
                .entry(segments[start..].join("/"))
                .or_default()
                .push(fid);
        }
    }

    /// Resolves every file's includes (its imports of a module: the path as written),
    /// once all files are known.
    pub fn finish(&mut self, files: &[ParsedFile], file_ids: &HashMap<&str, u32>) {
        for (fid, file) in files.iter().enumerate() {
            let Some(facts) = file
                .facts
                .as_ref()
                .filter(|_| file.family() == Some(self.family))
            else {
                continue;
            };
            let targets: Vec<u32> = facts
                .imports
                .iter()
                .filter_map(|import| match &import.target {
                    ImportTarget::Module { source, .. } => {
                        self.find(files, file_ids, &file.row.path, source)
                    }
                    ImportTarget::Path(_) => None,
                })
                .collect();
            if !targets.is_empty() {
                self.edges.insert(fid as u32, targets);
            }
        }
    }

    /// Whether file `fid` includes a file of the tree.
    pub fn includes_any(&self, fid: u32) -> bool {
        self.edges.contains_key(&fid)
    }

    /// The file an include written in the file at `from` names, if the tree has it.
    pub fn find(
        &self,
        files: &[ParsedFile],
        file_ids: &HashMap<&str, u32>,
        from: &str,
        written: &str,
    ) -> Option<u32> {
        let (system, path) = match written.strip_prefix('<').and_then(|p| p.strip_suffix('>')) {
            Some(path) => (true, path.trim()),
            None => (false, written),
        };
        let of_family = |fid: &u32| {
            files
                .get(*fid as usize)
                .is_some_and(|f| f.family() == Some(self.family))
        };
        if !system
            && let Some(joined) = join(directory(from), path)
            && let Some(&fid) = file_ids.get(joined.as_str())
            && of_family(&fid)
        {
            return Some(fid);
        }
        // Searched like an include directory: by what follows the last `..`.
        let tail = path
            .rsplit("../")
            .next()
            .unwrap_or(path)
            .trim_start_matches("./");
        self.suffixes
            .get(tail)?
            .iter()
            .filter(|fid| of_family(fid))
            .min_by_key(|&&fid| {
                let candidate = files[fid as usize].row.path.as_str();
                (
                    std::cmp::Reverse(shared_segments(from, candidate)),
                    candidate.len(),
                    candidate,
                )
            })
            .copied()
    }

    /// The files visible from `fid`: itself and what its includes reach.
    pub fn closure(&self, t: &Tables, fid: u32) -> Closure {
        let family = self.family;
        let cached = CLOSURES.with(|c| {
            c.borrow()
                .iter()
                .find(|(run, f, file, _)| *run == t.run && *f == family && *file == fid)
                .map(|(_, _, _, set)| Rc::clone(set))
        });
        if let Some(set) = cached {
            return set;
        }
        let mut seen: HashSet<u32> = HashSet::default();
        seen.insert(fid);
        let mut work = vec![fid];
        while let Some(file) = work.pop() {
            for &next in self.edges.get(&file).into_iter().flatten() {
                if seen.len() < MAX_CLOSURE_FILES && seen.insert(next) {
                    work.push(next);
                }
            }
        }
        let set = Rc::new(seen);
        CLOSURES.with(|c| {
            let mut c = c.borrow_mut();
            if c.len() >= CLOSURE_CACHE_ENTRIES {
                c.remove(0);
            }
            c.push((t.run, family, fid, Rc::clone(&set)));
        });
        set
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_paths_join_and_leave_the_tree_as_none() {
        assert_eq!(join("src/net", "http.h").as_deref(), Some("src/net/http.h"));
        assert_eq!(
            join("src/net", "../util/a.h").as_deref(),
            Some("src/util/a.h")
        );
        assert_eq!(join("src", "./a.h").as_deref(), Some("src/a.h"));
        assert_eq!(join("", "../a.h"), None);
        assert_eq!(shared_segments("src/a/x.c", "src/a/b/y.h"), 2);
        assert_eq!(shared_segments("x.c", "y.h"), 0);
    }
}
