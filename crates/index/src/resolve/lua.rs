//! The Lua resolver family. Lua has no declarations of types or modules: a module is a
//! file whose functions are a table's (`function M.add()`, `function M:run()`, members of
//! `M`), and `local utils = require("pl.utils")` names the module's file (`pl/utils.lua`
//! or `pl/utils/init.lua`, found by its trailing path, the closest directory first).
//!
//! A member use is resolved by what its receiver names: a required module (its file's
//! table functions), a table the file itself defines functions of (`M.add(1)` in the file
//! of `function M.add`), or `self` in a method (its table). A bare name is a function of
//! the file first (a `local function`, a global one); one another file defines is a
//! labeled name match (a global is visible once its file has run). Everything else a
//! name matches among the tree's functions is labeled too; a name none defines (`print`,
//! `string.format`) is dropped.

use mcursor_syntax::{Family, Import, ImportTarget, RefKind, SymbolKind};

use super::includes::IncludeGraph;
use super::types::{Named, OutsideMember, OutsideStep, Step};
use super::{FamilyResolver, Outcome, Place, Tables, Use};

/// The Lua family's tables: its files by their trailing paths (the include graph's
/// lookup; Lua files include nothing).
pub(super) struct LuaTables {
    files: IncludeGraph,
}

impl Default for LuaTables {
    fn default() -> LuaTables {
        LuaTables {
            files: IncludeGraph::new(Family::Lua),
        }
    }
}

/// What a use of `kind` may name among Lua's symbols.
fn names(kind: RefKind, symbol: SymbolKind) -> bool {
    match kind {
        RefKind::Call => matches!(symbol, SymbolKind::Function | SymbolKind::Method),
        _ => kind.can_refer_to(symbol),
    }
}

impl LuaTables {
    /// Registers a Lua file by its module paths; its qualified names have no prefix.
    pub fn add_file(&mut self, fid: u32, path: &str) -> String {
        self.files.add_file(fid, path);
        String::new()
    }

    /// The file of the module `name` (`pl/utils`) required from the file at `from`:
    /// `pl/utils.lua`, else the package `pl/utils/init.lua`, by trailing path (Lua looks
    /// modules up along `package.path`, not beside the requiring file).
    fn module_file(&self, t: &Tables, from: &str, name: &str) -> Option<u32> {
        let find = |path: String| self.files.find(t.files, &t.file_ids, from, &path);
        find(format!("<{name}.lua>")).or_else(|| find(format!("<{name}/init.lua>")))
    }

    /// The file a module import (`local m = require("m")`) names, if the tree has it.
    fn imported_file(&self, t: &Tables, at: Place, local: &str) -> Option<Option<u32>> {
        let import = at.facts.imports_named(local).next()?;
        let ImportTarget::Module { source, .. } = &import.target else {
            return Some(None);
        };
        let from = t.files[at.fid as usize].row.path.as_str();
        Some(self.module_file(t, from, source))
    }

    /// The table the method around `at` belongs to (`M` in `function M:run()`).
    fn enclosing_table<'f>(at: Place<'f>) -> Option<&'f str> {
        let mut current = at.enclosing;
        for _ in 0..32 {
            let d = current?;
            if let Some(table) = at.facts.container(d) {
                return Some(table);
            }
            current = at.facts.definitions.get(d.parent as usize);
        }
        None
    }

    /// Lua candidates of `u`'s kind, member or not as asked, with their files.
    fn candidates<'t>(t: &'t Tables, u: &'t Use, member: bool) -> impl Iterator<Item = u32> + 't {
        u.candidates.iter().copied().filter(move |&s| {
            let symbol = &t.symbols[s as usize];
            symbol.family == Family::Lua && symbol.member == member && names(u.kind, symbol.kind)
        })
    }

    /// The first of the `table`'s members in `fid` among the candidates.
    fn member_in(t: &Tables, u: &Use, fid: u32, table: Option<&str>) -> Option<u32> {
        Self::candidates(t, u, true).find(|&s| {
            t.symbols[s as usize].file == fid
                && table.is_none_or(|table| {
                    t.definition(s).and_then(|(_, facts, d)| facts.container(d)) == Some(table)
                })
        })
    }

    fn guess(t: &Tables, u: &Use, member: bool) -> Outcome {
        if Self::candidates(t, u, member).next().is_some() {
            Outcome::Heuristic
        } else {
            Outcome::Drop
        }
    }
}

impl FamilyResolver for LuaTables {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        let fid = u.at.fid;
        let Some(receiver) = u.qualifier else {
            // A function of this file first, else another file's global.
            if let Some(own) =
                Self::candidates(t, u, false).find(|&s| t.symbols[s as usize].file == fid)
            {
                return Outcome::Resolved(own);
            }
            return Self::guess(t, u, false);
        };
        // `self` in a method: its table's member.
        if receiver == "self" {
            let table = Self::enclosing_table(u.at);
            if table.is_some()
                && let Some(found) = Self::member_in(t, u, fid, table)
            {
                return Outcome::Resolved(found);
            }
            return Self::guess(t, u, true);
        }
        // A required module: its file's table functions.
        match self.imported_file(t, u.at, receiver) {
            Some(Some(module)) => {
                return Self::member_in(t, u, module, None)
                    .map_or_else(|| Self::guess(t, u, true), Outcome::Resolved);
            }
            // A module outside the tree (a library's).
            Some(None) => return Outcome::Drop,
            None => {}
        }
        // A table this file defines functions of.
        if let Some(found) = Self::member_in(t, u, fid, Some(receiver)) {
            return Outcome::Resolved(found);
        }
        Self::guess(t, u, true)
    }

    fn import_targets(&self, t: &Tables, fid: u32, import: &Import) -> Option<Vec<u32>> {
        // A required module is a file, not a symbol.
        let ImportTarget::Module { source, .. } = &import.target else {
            return None;
        };
        let from = t.files[fid as usize].row.path.as_str();
        self.module_file(t, from, source).map(|_| Vec::new())
    }

    fn type_path(&self, _t: &Tables, _at: Place, _path: &[String]) -> Named {
        Named::Unknown
    }

    fn module_member(&self, _t: &Tables, _fid: u32, _name: &str) -> Vec<u32> {
        Vec::new()
    }

    fn value_path(&self, _t: &Tables, _at: Place, _path: &[String]) -> Named {
        // Receivers are resolved by name in `resolve_use`, not through value types.
        Named::Unknown
    }

    fn call_path(&self, _t: &Tables, _at: Place, _path: &[String]) -> Named {
        Named::Unknown
    }

    fn outside_member(&self, _ty: &str, _member: &str) -> OutsideMember {
        OutsideMember::NotKnown
    }

    fn outside_step(&self, _ty: &str, _step: Step) -> OutsideStep {
        None
    }

    fn unwrap_keeps_type(&self) -> bool {
        true
    }
}
