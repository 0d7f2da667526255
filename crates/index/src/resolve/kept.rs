//! The resolver's tables that a process holding every file's declarations between
//! updates (`watch`, `mcp --watch`, the agent's catch-up) keeps from one resolution to
//! the next: every symbol, the name table, the Rust path table and the Rust modules'
//! scopes, the ECMAScript files' exports, each file's heads and contribution to the
//! type index, and the layout of symbol ids they are in.
//!
//! The ids of kept tables do not move. They are laid out in file order with room after
//! each file's definitions ([`with_room`]): an edit that leaves a file within its room
//! keeps every id of the tree, so an interface patch brings the tables up to date by
//! dropping the changed files' entries and adding their new ones (a copy of the name
//! table's arrays at most), where numbering the definitions back to back moved the ids
//! of every file after the first changed one and made every table pass over every
//! definition again. The type index takes each file's contribution as kept unless the
//! file changed, was edited since, is resolved again or has a head naming an id of a
//! changed file ([`super::types::KeptTypes`]); it still merges every file's
//! contribution. A file that outgrows its room makes the tables again in a fresh
//! layout. The resolution translates its ids to the store's (as a patch does anyway: the
//! store gives a changed file's definitions a fresh range).
//!
//! A resolution that writes a whole store numbers definitions back to back ([`packed`]),
//! as the store does, and keeps no tables.
//!
//! Invariant: kept tables are those of the files they were made from, and are used only
//! for the same files (the resident declarations' generation, [`crate::resident`]) with
//! the files whose interface (definitions or imports) changed since named; an unchanged
//! file whose definition count differs from theirs makes the tables again from scratch.
//! Debug builds compare every updated table with one made from scratch.

use super::Symbol;
use super::ecma::EcmaTables;
use super::names::NameTable;
use super::rust::{KeptModules, KeptPaths};
use super::types::KeptTypes;

/// Tables kept from a resolution (see the module docs).
pub(crate) struct KeptTables {
    /// File `f`'s ids are `starts[f]..starts[f + 1]`: its definitions, then its room.
    pub(super) starts: Vec<u32>,
    /// Definitions per file, in file order, when these were made.
    pub(super) counts: Vec<u32>,
    /// Every symbol, by id (room unused holds [`Symbol::NONE`]).
    pub(super) symbols: Vec<Symbol>,
    pub(super) names: NameTable,
    pub(super) rust_paths: KeptPaths,
    /// Each Rust file's module and what the files' `use`s bring into each module's scope.
    pub(super) rust_modules: KeptModules,
    /// Each file's heads and contribution to the type index.
    pub(super) types: KeptTypes,
    /// The ECMAScript files' exports.
    pub(super) ecma: EcmaTables,
}

impl KeptTables {
    /// File `fid` was edited within its interface (a patch that kept every interface
    /// carries these tables over): what in them holds its positions is made again.
    pub(crate) fn file_edited(&mut self, fid: u32) {
        self.types.file_edited(fid);
    }

    /// Why these tables cannot be brought up to files whose definitions number `counts`
    /// now, those of `changed` (ascending) having changed: `None` when they can. Files
    /// are named by `path`.
    pub(super) fn misfit<'p>(
        &self,
        counts: &[u32],
        changed: &[u32],
        path: impl Fn(usize) -> &'p str,
    ) -> Option<String> {
        if counts.len() != self.counts.len() || self.starts.len() != counts.len() + 1 {
            return Some("they are of other files".into());
        }
        for (fid, (&before, &now)) in self.counts.iter().zip(counts).enumerate() {
            let room = self.starts[fid + 1] - self.starts[fid];
            if changed.binary_search(&(fid as u32)).is_ok() {
                if now > room {
                    return Some(format!("{} outgrew its room of {room} ids", path(fid)));
                }
            } else if before != now {
                return Some(format!("{} changed unannounced", path(fid)));
            }
        }
        None
    }
}

/// Whether `id` lies in one of `ranges` (sorted and disjoint, as the ids of files in
/// file order are).
pub(super) fn in_ranges(ranges: &[std::ops::Range<u32>], id: u32) -> bool {
    let at = ranges.partition_point(|r| r.end <= id);
    ranges.get(at).is_some_and(|r| r.contains(&id))
}

/// The ids of a whole store: file `f`'s definitions `starts[f]..starts[f + 1]`, back to
/// back in file order.
pub(super) fn packed(counts: &[u32]) -> Vec<u32> {
    layout(counts, |_, count| count)
}

/// Ids for kept tables: each file of a language family (`roomy`) takes a quarter of its
/// definitions and eight more as room to grow into (on `rustreg`, 1.65 M definitions
/// take 2.16 M ids), and a file being edited that outgrew its room (`busy`, ascending)
/// half its definitions and 32 more (with an eighth and four, a file of 22 definitions
/// gaining a function per save made the tables again every seventh save).
pub(super) fn with_room(counts: &[u32], roomy: impl Fn(usize) -> bool, busy: &[u32]) -> Vec<u32> {
    layout(counts, |fid, count| {
        let room = if busy.binary_search(&(fid as u32)).is_ok() {
            count / 2 + 32
        } else if roomy(fid) {
            count / 4 + 8
        } else {
            0
        };
        count.saturating_add(room)
    })
}

fn layout(counts: &[u32], ids: impl Fn(usize, u32) -> u32) -> Vec<u32> {
    let mut starts = Vec::with_capacity(counts.len() + 1);
    let mut next = 0u32;
    starts.push(next);
    for (fid, &count) in counts.iter().enumerate() {
        next = next.saturating_add(ids(fid, count));
        starts.push(next);
    }
    starts
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kept(counts: &[u32], starts: Vec<u32>) -> KeptTables {
        KeptTables {
            starts,
            counts: counts.to_vec(),
            symbols: Vec::new(),
            names: NameTable::build(Vec::new(), 0, |_| ""),
            rust_paths: KeptPaths::default(),
            rust_modules: KeptModules::default(),
            types: KeptTypes::default(),
            ecma: EcmaTables::default(),
        }
    }

    #[test]
    fn layouts_give_room_only_where_asked() {
        assert_eq!(packed(&[2, 0, 3]), [0, 2, 2, 5]);
        // 16 definitions take 4 + 8 more; a file of none 8; one not roomy none.
        assert_eq!(with_room(&[16, 0, 3], |fid| fid != 2, &[]), [0, 28, 36, 39]);
        // A busy file takes half its definitions and 32 more.
        assert_eq!(with_room(&[16, 0, 3], |_| true, &[0]), [0, 56, 64, 75]);
    }

    #[test]
    fn kept_tables_fit_changes_within_room_only() {
        let counts = [16, 0, 3];
        let tables = kept(&counts, with_room(&counts, |_| true, &[]));
        let path = |fid: usize| ["a.rs", "b.rs", "c.rs"][fid];
        assert_eq!(tables.misfit(&[28, 8, 3], &[0, 1], path), None);
        assert_eq!(
            tables.misfit(&[29, 0, 3], &[0], path).as_deref(),
            Some("a.rs outgrew its room of 28 ids")
        );
        assert_eq!(
            tables.misfit(&[16, 1, 3], &[], path).as_deref(),
            Some("b.rs changed unannounced")
        );
        assert!(tables.misfit(&[16, 0], &[], path).is_some(), "other files");
    }
}
