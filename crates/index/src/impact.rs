//! `Index::impact`: what a change to a definition can affect. Level 1 is every use of it
//! (calls, type uses, imports, fields...) and every implementation of it; level 2 the
//! uses of the definitions those sit in (and of the implementations), and so on to the
//! asked depth. Each site is listed once, at the first level that reaches it, with the
//! confidence of its use.
//!
//! Only sure edges are followed: a use matched by name only (`heuristic`) is listed, but
//! the definition it sits in is not expanded (that would be guessing that it uses this
//! definition at all); the answer counts the uses it did not follow, so a reader knows the
//! graph was cut there.

use std::collections::{BTreeMap, HashSet};

use mcursor_syntax::RefKind;

use crate::query::{Index, RefConfidence, RefsQuery, SymbolHit};
use crate::store::ImplKind;

/// Sites listed for one question, at most (the rest are counted as cut).
const MAX_SITES: usize = 20_000;
/// Definitions expanded on one level, at most.
const MAX_FRONTIER: usize = 2_000;

/// How a site depends on what it uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ImpactKind {
    /// A reference of this kind (a call, a type use, an import...).
    Reference(RefKind),
    /// A type or member that implements it (a trait's `impl`, a subclass, an override).
    Implementation(ImplKind),
}

impl ImpactKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ImpactKind::Reference(kind) => kind.as_str(),
            ImpactKind::Implementation(_) => "implementation",
        }
    }
}

/// One affected site.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpactSite {
    /// 1: uses the asked-for definition; 2: uses a definition of level 1; ...
    pub depth: u32,
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub kind: ImpactKind,
    /// The definition the site is in (what the change affects), or for an
    /// implementation the implementing type or member; `None` at a file's top level.
    pub affected: Option<String>,
    /// What the site uses: the asked-for definition or one of an earlier level.
    pub uses: String,
    /// How sure the use is; `heuristic` uses are not followed further.
    pub confidence: RefConfidence,
}

/// The answer of [`Index::impact`].
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Impact {
    /// Ordered by depth, kind, path and position.
    pub sites: Vec<ImpactSite>,
    /// Sites per file, most first.
    pub per_file: Vec<(String, usize)>,
    /// Definitions affected (distinct `affected` names).
    pub definitions: usize,
    /// Definitions that only heuristic uses reach, not expanded further.
    pub heuristic_not_followed: usize,
    /// The walk stopped at [`MAX_SITES`] or [`MAX_FRONTIER`] before `depth`.
    pub truncated: bool,
}

impl Index {
    /// What a change to `targets` can affect, `depth` levels out (1: direct uses).
    pub fn impact(&self, targets: &[SymbolHit], depth: u32) -> Impact {
        let mut out = Impact::default();
        let mut seen_sites: HashSet<(String, u32, u32)> = HashSet::new();
        let mut expanded: HashSet<u32> = targets.iter().map(|t| t.id).collect();
        let mut frontier: Vec<SymbolHit> = targets.to_vec();
        let mut affected: HashSet<String> = HashSet::new();
        for level in 1..=depth.max(1) {
            if frontier.is_empty() {
                break;
            }
            // Definitions to expand on the next level, and the ones only heuristic uses
            // reach (not expanded unless a sure use reaches them too).
            let mut to_follow: Vec<u32> = Vec::new();
            let mut guessed: Vec<u32> = Vec::new();
            // Each frontier definition on its own: `uses` names it.
            for definition in &frontier {
                let found =
                    self.found_references(std::slice::from_ref(definition), &RefsQuery::default());
                for hit in found.into_values() {
                    let path = self
                        .store
                        .file(hit.r.file)
                        .map(|f| f.path.to_owned())
                        .unwrap_or_default();
                    if !seen_sites.insert((path.clone(), hit.r.line, hit.r.column)) {
                        continue;
                    }
                    if out.sites.len() >= MAX_SITES {
                        out.truncated = true;
                        break;
                    }
                    let confidence = if hit.dispatch {
                        RefConfidence::Dispatch
                    } else {
                        hit.r.confidence.into()
                    };
                    let enclosing = hit.r.enclosing.and_then(|e| self.store.symbol(e));
                    if let Some(e) = &enclosing {
                        affected.insert(e.qualified_name.clone());
                        if confidence == RefConfidence::Heuristic {
                            guessed.push(e.id);
                        } else {
                            to_follow.push(e.id);
                        }
                    }
                    out.sites.push(ImpactSite {
                        depth: level,
                        path,
                        line: hit.r.line,
                        column: hit.r.column,
                        kind: ImpactKind::Reference(hit.r.kind),
                        affected: enclosing.map(|e| e.qualified_name),
                        uses: definition.qualified_name.clone(),
                        confidence,
                    });
                }
                for implementation in self
                    .implementors_to(std::slice::from_ref(definition), 1)
                    .hits
                {
                    // A member's implementations are the implementing members; a type's
                    // are the implementing types and their methods.
                    let followed: Vec<&SymbolHit> = if definition.member {
                        implementation.methods.iter().collect()
                    } else {
                        implementation
                            .methods
                            .iter()
                            .chain(implementation.implementor.as_ref())
                            .collect()
                    };
                    to_follow.extend(followed.iter().map(|s| s.id));
                    // Where and who: the implementing member, or the implementation's
                    // block and type.
                    let member = definition
                        .member
                        .then(|| implementation.methods.first())
                        .flatten();
                    let (path, line, column, name) = match member {
                        Some(method) => (
                            method.path.clone(),
                            method.line,
                            method.column,
                            method.qualified_name.clone(),
                        ),
                        None => (
                            implementation.path.clone(),
                            implementation.line,
                            implementation.column,
                            implementation
                                .implementor
                                .as_ref()
                                .map_or(implementation.implementor_text.clone(), |s| {
                                    s.qualified_name.clone()
                                }),
                        ),
                    };
                    if !seen_sites.insert((path.clone(), line, column)) {
                        continue;
                    }
                    affected.insert(name.clone());
                    out.sites.push(ImpactSite {
                        depth: level,
                        path,
                        line,
                        column,
                        kind: ImpactKind::Implementation(implementation.kind),
                        affected: Some(name),
                        uses: definition.qualified_name.clone(),
                        confidence: RefConfidence::Resolved,
                    });
                }
            }
            let mut next: Vec<SymbolHit> = Vec::new();
            if level < depth {
                for id in to_follow {
                    if !expanded.insert(id) {
                        continue;
                    }
                    if next.len() >= MAX_FRONTIER {
                        out.truncated = true;
                        break;
                    }
                    if let Some(symbol) = self.store.symbol(id) {
                        next.push(self.hit(&symbol));
                    }
                }
                guessed.sort_unstable();
                guessed.dedup();
                out.heuristic_not_followed +=
                    guessed.iter().filter(|id| !expanded.contains(id)).count();
            }
            frontier = next;
        }
        out.sites.sort_by(|a, b| {
            (a.depth, a.kind, &a.path, a.line, a.column)
                .cmp(&(b.depth, b.kind, &b.path, b.line, b.column))
        });
        let mut per_file: BTreeMap<&str, usize> = BTreeMap::new();
        for site in &out.sites {
            *per_file.entry(&site.path).or_default() += 1;
        }
        let mut per_file: Vec<(String, usize)> = per_file
            .into_iter()
            .map(|(path, n)| (path.to_owned(), n))
            .collect();
        per_file.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        out.per_file = per_file;
        out.definitions = affected.len();
        out
    }
}
