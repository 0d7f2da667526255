//! The shell resolver family: a script sees the functions and global variables it defines
//! and those of the scripts it sources (`source lib.sh`, `. "$DIR/lib/util.sh"`),
//! transitively, as Bash runs them. A sourced path is found beside the script first, then
//! by its literal trailing segments anywhere in the tree (the closest directory first):
//! a dynamic prefix (`$DIR/`, `$(dirname "$0")/`) is left out by extraction.
//!
//! A name the tree defines that no sourced script makes visible is a `heuristic` name
//! match (a script sourced by another that defines it, a completion loaded by
//! bash-completion); a command no script defines (`ls`, `git`) and a variable no script
//! assigns at its top level (`$HOME`, `$1`) are dropped.

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Family, Import, RefKind, SymbolKind};

use super::includes::IncludeGraph;
use super::types::{Named, OutsideMember, OutsideStep, Step};
use super::{FamilyResolver, Outcome, ParsedFile, Place, Symbol, Tables, Use};

/// The shell family's tables: the `source` graph.
pub(super) struct ShellTables {
    sources: IncludeGraph,
}

impl Default for ShellTables {
    fn default() -> ShellTables {
        ShellTables {
            sources: IncludeGraph::new(Family::Shell),
        }
    }
}

/// Whether a use of `kind` can name `symbol`: a command a function, an expansion or an
/// assignment a variable.
fn names(kind: RefKind, symbol: &Symbol) -> bool {
    symbol.family == Family::Shell
        && match kind {
            RefKind::Call => symbol.kind == SymbolKind::Function,
            _ => symbol.kind == SymbolKind::Variable,
        }
}

impl ShellTables {
    /// Registers a script by its path; its qualified names have no prefix.
    pub fn add_file(&mut self, fid: u32, path: &str) -> String {
        self.sources.add_file(fid, path);
        String::new()
    }

    /// Resolves every script's `source` commands, once all files are known.
    pub fn finish(&mut self, files: &[ParsedFile], file_ids: &HashMap<&str, u32>) {
        self.sources.finish(files, file_ids);
    }
}

impl FamilyResolver for ShellTables {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        let defined: Vec<u32> = u
            .candidates
            .iter()
            .copied()
            .filter(|&s| names(u.kind, &t.symbols[s as usize]))
            .collect();
        if defined.is_empty() {
            return Outcome::Drop;
        }
        let file_of = |s: u32| t.symbols[s as usize].file;
        // The script's own definition first (a later one replaces an earlier one when
        // both run; the first is the one a reader finds), then a sourced script's.
        if let Some(&own) = defined.iter().find(|&&s| file_of(s) == u.at.fid) {
            return Outcome::Resolved(own);
        }
        let visible = self.sources.closure(t, u.at.fid);
        if let Some(&sourced) = defined.iter().find(|&&s| visible.contains(&file_of(s))) {
            return Outcome::Resolved(sourced);
        }
        t.heuristic(u.candidates, Family::Shell, |s| names(u.kind, s))
    }

    fn import_targets(&self, _t: &Tables, fid: u32, _import: &Import) -> Option<Vec<u32>> {
        // A sourced script is a file, not a symbol.
        self.sources.includes_any(fid).then(Vec::new)
    }

    fn type_path(&self, _t: &Tables, _at: Place, _path: &[String]) -> Named {
        Named::Unknown
    }

    fn module_member(&self, _t: &Tables, _fid: u32, _name: &str) -> Vec<u32> {
        Vec::new()
    }

    fn value_path(&self, _t: &Tables, _at: Place, _path: &[String]) -> Named {
        // Shell values have no members: no receiver chain starts at a path.
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
