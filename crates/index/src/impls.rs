//! `Index::implementors`: what implements a trait, interface or class (and which of its
//! methods answer for the asked-for members), or, for a member, the members that
//! implement or override it. Read from the store's `implementations` and `overrides`
//! tables, transitively: a type that implements a subtrait, or extends a class that
//! implements an interface, answers for it too (a larger `depth`).

use std::collections::HashSet;

use crate::query::{Index, Page, SymbolHit};
use crate::store::{ImplKind, ImplRecord};

/// Levels followed below the asked-for symbols (a subclass of a subclass is level 2).
const MAX_DEPTH: u32 = 8;
/// Implementations listed for one question, at most; past it the answer says it is cut.
const MAX_IMPLEMENTATIONS: usize = 5_000;

/// One implementation of a trait, interface or class (or of one of its members).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImplHit {
    /// 1: of an asked-for symbol; 2 and more: of an implementation one level up.
    pub depth: u32,
    /// Qualified name of what is implemented or extended.
    pub implements: String,
    /// How: an `impl`, a blanket impl, or declared in the type's header (`extends`,
    /// `implements`, a supertrait).
    pub kind: ImplKind,
    /// The implementing type, when it is defined in the repository.
    pub implementor: Option<SymbolHit>,
    /// The implementing type as written (`Parser`, `Vec<T>`; for a blanket impl its
    /// parameter and bounds, `P: Source`: every type with those bounds).
    pub implementor_text: String,
    /// Where the implementation (the `impl` block, the class) starts.
    pub path: String,
    pub line: u32,
    pub column: u32,
    /// Its methods that implement or override members of what it implements (for a
    /// member asked for: that member's implementation).
    pub methods: Vec<SymbolHit>,
}

impl Index {
    /// Implementations of `targets`: for a trait, interface or class, the types that
    /// implement or extend it (and, transitively, theirs); for a method or field, the
    /// members that implement or override it, with their types. Breadth first; the page
    /// is cut (`total_at_least`) past [`MAX_IMPLEMENTATIONS`] hits or [`MAX_DEPTH`]
    /// levels.
    pub fn implementors(&self, targets: &[SymbolHit]) -> Page<ImplHit> {
        let mut out = Cut::default();
        let mut seen_types: HashSet<u32> = targets.iter().map(|t| t.id).collect();
        let mut seen_members: HashSet<u32> = seen_types.clone();
        let mut level: Vec<(u32, String)> = targets
            .iter()
            .map(|t| (t.id, t.qualified_name.clone()))
            .collect();
        let mut depth = 1;
        while !level.is_empty() {
            if depth > MAX_DEPTH {
                out.truncated = true;
                break;
            }
            let mut next = Vec::new();
            for (id, name) in &level {
                for record in self.store.implementors(*id) {
                    if out.hits.len() >= MAX_IMPLEMENTATIONS {
                        out.truncated = true;
                        return out.page();
                    }
                    let hit = self.type_implementation(&record, name, depth);
                    if let Some(implementor) = &hit.implementor
                        && seen_types.insert(implementor.id)
                    {
                        next.push((implementor.id, implementor.qualified_name.clone()));
                    }
                    out.hits.push(hit);
                }
                for member in self.store.implementations_of(*id) {
                    if !seen_members.insert(member) || out.hits.len() >= MAX_IMPLEMENTATIONS {
                        out.truncated |= out.hits.len() >= MAX_IMPLEMENTATIONS;
                        continue;
                    }
                    let Some(hit) = self.member_implementation(member, *id, name, depth) else {
                        continue;
                    };
                    next.push((member, hit.methods[0].qualified_name.clone()));
                    out.hits.push(hit);
                }
            }
            level = next;
            depth += 1;
        }
        out.page()
    }

    fn type_implementation(&self, record: &ImplRecord, implements: &str, depth: u32) -> ImplHit {
        let path = self.store.file(record.file).map(|f| f.path.to_owned());
        // The block's methods that implement a member of the implemented type.
        let methods = self
            .store
            .file(record.file)
            .map(|f| f.symbols)
            .unwrap_or(0..0)
            .filter_map(|id| self.store.symbol(id))
            .filter(|s| s.member && (record.line..=record.end_line).contains(&s.line))
            .filter(|s| {
                self.store.overridden_by(s.id).iter().any(|&base| {
                    self.store
                        .symbol(base)
                        .is_some_and(|b| b.parent == Some(record.supertype))
                })
            })
            .map(|s| self.hit(&s))
            .collect();
        ImplHit {
            depth,
            implements: implements.to_owned(),
            kind: record.kind,
            implementor: record
                .implementor
                .and_then(|id| self.store.symbol(id))
                .map(|s| self.hit(&s)),
            implementor_text: record.implementor_text.clone(),
            path: path.unwrap_or_default(),
            line: record.line,
            column: record.column,
            methods,
        }
    }

    /// Member `member` implementing `base` (named `implements`): with the type and the
    /// block it is in, found among the implementations of `base`'s container.
    fn member_implementation(
        &self,
        member: u32,
        base: u32,
        implements: &str,
        depth: u32,
    ) -> Option<ImplHit> {
        let symbol = self.store.symbol(member)?;
        let method = self.hit(&symbol);
        let container = self.store.symbol(base).and_then(|b| b.parent);
        let block = container
            .into_iter()
            .flat_map(|container| self.store.implementors(container))
            .find(|r| r.file == symbol.file && (r.line..=r.end_line).contains(&symbol.line));
        let container_name = container.and_then(|c| self.store.symbol(c));
        Some(match (block, container_name) {
            (Some(record), Some(container)) => ImplHit {
                methods: vec![method],
                ..self.type_implementation(&record, &container.qualified_name, depth)
            },
            // A member whose block the table does not hold (an override through a
            // generic bound): the member alone.
            _ => ImplHit {
                depth,
                implements: implements.to_owned(),
                kind: ImplKind::Impl,
                implementor: None,
                implementor_text: symbol
                    .qualified_name
                    .strip_suffix(symbol.name)
                    .map(|p| p.trim_end_matches([':', '.']))
                    .unwrap_or_default()
                    .to_owned(),
                path: method.path.clone(),
                line: method.line,
                column: method.column,
                methods: vec![method],
            },
        })
    }
}

/// Hits gathered so far, and whether the walk stopped before the end.
#[derive(Default)]
struct Cut {
    hits: Vec<ImplHit>,
    truncated: bool,
}

impl Cut {
    fn page(self) -> Page<ImplHit> {
        Page {
            total: self.hits.len(),
            total_at_least: self.truncated,
            hits: self.hits,
        }
    }
}
