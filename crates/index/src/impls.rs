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
        self.implementors_to(targets, MAX_DEPTH)
    }

    /// [`Index::implementors`], `max_depth` levels deep (1: the targets' own).
    pub(crate) fn implementors_to(&self, targets: &[SymbolHit], max_depth: u32) -> Page<ImplHit> {
        let mut out = Cut::default();
        let mut seen_types: HashSet<u32> = targets.iter().map(|t| t.id).collect();
        let mut seen_members: HashSet<u32> = seen_types.clone();
        let mut level: Vec<(u32, String)> = targets
            .iter()
            .map(|t| (t.id, t.qualified_name.clone()))
            .collect();
        let mut depth = 1;
        while !level.is_empty() {
            if depth > max_depth {
                // Deeper levels were not looked at: only the full walk's limit is a cut.
                out.truncated |= max_depth == MAX_DEPTH;
                break;
            }
            let mut next = Vec::new();
            for (id, name) in &level {
                for record in self.store.implementors(*id) {
                    if out.hits.len() >= MAX_IMPLEMENTATIONS {
                        out.truncated = true;
                        return out.page();
                    }
                    let methods = self.overriding_methods(&record);
                    let hit = self.block_hit(&record, name, depth, methods);
                    if let Some(implementor) = &hit.implementor
                        && seen_types.insert(implementor.id)
                    {
                        next.push((implementor.id, implementor.qualified_name.clone()));
                    }
                    out.hits.push(hit);
                }
                let members = self.store.implementations_of(*id);
                if members.is_empty() {
                    continue;
                }
                // The blocks of the member's container, read once for all its members.
                let container = self.store.symbol(*id).and_then(|b| b.parent);
                let container_name = container.and_then(|c| self.store.symbol(c));
                let blocks = container
                    .map(|c| self.store.implementors(c))
                    .unwrap_or_default();
                for member in members {
                    if !seen_members.insert(member) || out.hits.len() >= MAX_IMPLEMENTATIONS {
                        out.truncated |= out.hits.len() >= MAX_IMPLEMENTATIONS;
                        continue;
                    }
                    let Some(symbol) = self.store.symbol(member) else {
                        continue;
                    };
                    let method = self.hit(&symbol);
                    next.push((member, method.qualified_name.clone()));
                    let block = blocks.iter().find(|r| {
                        r.file == symbol.file && (r.line..=r.end_line).contains(&symbol.line)
                    });
                    out.hits.push(match (block, &container_name) {
                        (Some(record), Some(container)) => {
                            self.block_hit(record, &container.qualified_name, depth, vec![method])
                        }
                        // A member whose block the table does not hold (an override through
                        // a generic bound): the member alone.
                        _ => ImplHit {
                            depth,
                            implements: name.clone(),
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
                    });
                }
            }
            level = next;
            depth += 1;
        }
        out.page()
    }

    /// The members of `record`'s block that implement a member of the implemented type.
    fn overriding_methods(&self, record: &ImplRecord) -> Vec<SymbolHit> {
        self.store
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
            .collect()
    }

    /// The hit for `record`'s block, implementing `implements`, with `methods`.
    fn block_hit(
        &self,
        record: &ImplRecord,
        implements: &str,
        depth: u32,
        methods: Vec<SymbolHit>,
    ) -> ImplHit {
        ImplHit {
            depth,
            implements: implements.to_owned(),
            kind: record.kind,
            implementor: record
                .implementor
                .and_then(|id| self.store.symbol(id))
                .map(|s| self.hit(&s)),
            implementor_text: record.implementor_text.clone(),
            path: self
                .store
                .file(record.file)
                .map(|f| f.path.to_owned())
                .unwrap_or_default(),
            line: record.line,
            column: record.column,
            methods,
        }
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
