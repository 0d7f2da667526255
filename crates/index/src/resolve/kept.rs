//! The parts of the resolver's tables that a process holding every file's declarations
//! between updates (`watch`, `mcp --watch`, the agent's catch-up) keeps from one
//! resolution to the next: every definition's name key, sorted, each name's id (its rank
//! in byte order, which the next table keeps for the names still there), the Rust path
//! table and the Rust modules' scopes (by file and import, with no ids to move: a patch
//! adds and removes no file, so a file keeps its index).
//!
//! An interface patch makes the tables again from every file of the tree, and only the
//! edited files' definitions differ from the last resolution's; the other files' keys are
//! the same, and only their symbol ids move, since ids are the files' definition counts
//! summed in file order. Kept tables are brought up to date by moving ids ([`IdMap`]),
//! dropping the changed files' entries and merging in their new ones: a pass over each
//! table where making them again hashes every definition and sorts the names (on
//! `rustreg`, a watched interface edit's tables took 171–230 ms with kept tables,
//! 378–524 ms without).
//!
//! Invariant: kept tables are those of the files they were made from, and are used only
//! for the same files (the resident declarations' generation, [`crate::resident`]) with
//! the files whose interface (definitions or imports) changed since named; a definition
//! count that disagrees with them makes the tables again from scratch. Debug builds
//! check every use against tables made from scratch.

use super::names;
use super::rust::{ModuleScopes, PathTable};

/// Tables kept from a resolution (see the module docs).
pub(crate) struct KeptTables {
    /// Definitions per file, in file order, when these were made.
    pub(super) counts: Vec<u32>,
    /// Every definition's [`super::names::key`], sorted.
    pub(super) name_keys: Vec<u128>,
    /// Each name's id (its rank in byte order), by name hash.
    pub(super) name_ranks: Vec<names::NameRank>,
    pub(super) rust_paths: PathTable,
    /// What the Rust files' `use`s bring into each module's scope.
    pub(super) rust_scopes: ModuleScopes,
}

/// Where the symbol ids of kept tables go now: a changed file's are dropped, every other
/// file's move by how many definitions the changed files before it gained or lost.
/// Order-preserving: ids kept stay in the order they had.
pub(super) struct IdMap {
    /// The old ids of each run of unchanged files, `start..end`, and what to add to them.
    runs: Vec<(u32, u32, i64)>,
}

impl IdMap {
    /// `old` and `new`: each file's definitions then and now; `changed`: the files whose
    /// definitions changed, ascending. `None` when an unchanged file's count differs (the
    /// kept tables are not of these files).
    pub(super) fn new(old: &[u32], new: &[u32], changed: &[u32]) -> Option<IdMap> {
        if old.len() != new.len() {
            return None;
        }
        let mut runs = Vec::with_capacity(changed.len() + 1);
        let (mut old_base, mut new_base) = (0u32, 0u32);
        let mut run: Option<(u32, i64)> = None;
        for (fid, (&before, &now)) in old.iter().zip(new).enumerate() {
            if changed.binary_search(&(fid as u32)).is_ok() {
                if let Some((start, delta)) = run.take() {
                    runs.push((start, old_base, delta));
                }
            } else if before != now {
                return None;
            } else if run.is_none() {
                run = Some((old_base, i64::from(new_base) - i64::from(old_base)));
            }
            old_base = old_base.checked_add(before)?;
            new_base = new_base.checked_add(now)?;
        }
        if let Some((start, delta)) = run {
            runs.push((start, old_base, delta));
        }
        Some(IdMap { runs })
    }

    /// Where the old id `sid` is now (`None`: its file's definitions changed).
    pub(super) fn get(&self, sid: u32) -> Option<u32> {
        let at = self.runs.partition_point(|&(_, end, _)| end <= sid);
        let &(start, _, delta) = self.runs.get(at)?;
        (start <= sid).then(|| (i64::from(sid) + delta) as u32)
    }
}

/// The sorted name keys of the kept tables brought up to date: each kept key with its
/// id moved (`map`; the dropped ones left out), merged with `added` (the changed files'
/// keys, any order). Equal to sorting every file's keys now.
pub(super) fn merge_name_keys(kept: Vec<u128>, map: &IdMap, mut added: Vec<u128>) -> Vec<u128> {
    added.sort_unstable();
    let mut out = Vec::with_capacity(kept.len() + added.len());
    let mut added = added.into_iter().peekable();
    for key in kept {
        let Some(sid) = map.get(names::symbol(key)) else {
            continue;
        };
        let moved = names::with_symbol(key, sid);
        while let Some(next) = added.next_if(|&next| next < moved) {
            out.push(next);
        }
        out.push(moved);
    }
    out.extend(added);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_move_by_what_the_changed_files_before_them_gained_or_lost() {
        // Files of 2, 3, 1, 4 definitions; file 1 now has 5, file 3 none.
        let map = IdMap::new(&[2, 3, 1, 4], &[2, 5, 1, 0], &[1, 3]).expect("same files");
        let moved: Vec<Option<u32>> = (0..10).map(|sid| map.get(sid)).collect();
        assert_eq!(
            moved,
            [
                Some(0),
                Some(1),
                None,
                None,
                None,
                Some(7),
                None,
                None,
                None,
                None
            ]
        );
        assert_eq!(map.get(10), None, "past every file");
    }

    #[test]
    fn a_count_that_changed_unannounced_refuses_the_map() {
        assert!(IdMap::new(&[2, 3], &[2, 4], &[]).is_none());
        assert!(IdMap::new(&[2, 3], &[2, 3, 1], &[]).is_none());
        assert!(IdMap::new(&[2, 3], &[2, 4], &[1]).is_some());
    }

    #[test]
    fn merged_keys_equal_the_keys_sorted_afresh() {
        let key = names::key;
        // Before: file 0 `a b`, file 1 `b c`, file 2 `a`. Now file 1 is `c d b`.
        let before = [
            key("a", 0),
            key("b", 1),
            key("b", 2),
            key("c", 3),
            key("a", 4),
        ];
        let mut kept = before.to_vec();
        kept.sort_unstable();
        let map = IdMap::new(&[2, 2, 1], &[2, 3, 1], &[1]).expect("same files");
        let added = vec![key("c", 2), key("d", 3), key("b", 4)];
        let mut fresh = vec![
            key("a", 0),
            key("b", 1),
            key("c", 2),
            key("d", 3),
            key("b", 4),
            key("a", 5),
        ];
        fresh.sort_unstable();
        assert_eq!(merge_name_keys(kept, &map, added), fresh);
    }
}
