//! The index as a stream of records for other tools (`mcursor export`): every symbol,
//! then every edge (references, implementations, overrides), read record by record from
//! the memory-mapped store, so exporting a tree of millions of references holds one
//! file's records at a time, never the whole graph.

use mcursor_syntax::RefKind;

use crate::query::{Index, SymbolHit};
use crate::store::{Confidence, ImplKind};

/// A symbol as exported: the definition, its id (what edges point at), its parent's id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportSymbol {
    pub symbol: SymbolHit,
    pub parent: Option<u32>,
    pub end_column: u32,
}

/// What an edge says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EdgeKind {
    /// A use (`from`: the definition it is in; `to`: what it refers to, when known).
    Reference(RefKind),
    /// `from` (a type, or none for a blanket impl or an outside type) implements or
    /// extends `to`.
    Implements(ImplKind),
    /// Member `from` implements or overrides member `to`.
    Overrides,
}

impl EdgeKind {
    /// Every word [`EdgeKind::as_str`] can say.
    pub fn words() -> impl Iterator<Item = &'static str> {
        RefKind::ALL
            .into_iter()
            .map(RefKind::as_str)
            .chain(["implements", "overrides"])
    }

    pub fn as_str(self) -> &'static str {
        match self {
            EdgeKind::Reference(kind) => kind.as_str(),
            EdgeKind::Implements(_) => "implements",
            EdgeKind::Overrides => "overrides",
        }
    }
}

/// One edge of the graph.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExportEdge {
    pub kind: EdgeKind,
    /// Symbol id; `None` for a use at a file's top level (or a blanket impl).
    pub from: Option<u32>,
    /// Symbol id; `None` when a name match did not pick one definition.
    pub to: Option<u32>,
    /// The name used (or, for an implementation, the implementing type as written).
    pub name: String,
    pub path: String,
    pub line: u32,
    pub column: u32,
    pub confidence: Confidence,
}

impl Index {
    /// Every symbol, by id.
    pub fn export_symbols(&self) -> impl Iterator<Item = ExportSymbol> + '_ {
        (0..self.store.symbol_id_end()).filter_map(|id| {
            let symbol = self.store.symbol(id)?;
            Some(ExportSymbol {
                parent: symbol.parent,
                end_column: symbol.end_column,
                symbol: self.hit(&symbol),
            })
        })
    }

    /// Every edge: references file by file (in position order), then implementations,
    /// then overrides.
    pub fn export_edges(&self) -> impl Iterator<Item = ExportEdge> + '_ {
        let store = &self.store;
        let references = (0..store.file_count()).flat_map(move |file| {
            let path = store
                .file(file)
                .map(|f| f.path.to_owned())
                .unwrap_or_default();
            store.refs_in_file(file).map(move |r| ExportEdge {
                kind: EdgeKind::Reference(r.kind),
                from: r.enclosing,
                to: r.target,
                name: store.name(r.name).to_owned(),
                path: path.clone(),
                line: r.line,
                column: r.column,
                confidence: r.confidence,
            })
        });
        let implementations = store
            .all_implementations()
            .into_iter()
            .map(move |i| ExportEdge {
                kind: EdgeKind::Implements(i.kind),
                from: i.implementor,
                to: Some(i.supertype),
                name: i.implementor_text,
                path: store
                    .file(i.file)
                    .map(|f| f.path.to_owned())
                    .unwrap_or_default(),
                line: i.line,
                column: i.column,
                confidence: Confidence::Resolved,
            });
        let overrides = (0..store.symbol_id_end()).flat_map(move |id| {
            let bases = store.overridden_by(id);
            let member = if bases.is_empty() {
                None
            } else {
                store.symbol(id)
            };
            bases.into_iter().filter_map(move |base| {
                let member = member.as_ref()?;
                Some(ExportEdge {
                    kind: EdgeKind::Overrides,
                    from: Some(id),
                    to: Some(base),
                    name: member.name.to_owned(),
                    path: store
                        .file(member.file)
                        .map(|f| f.path.to_owned())
                        .unwrap_or_default(),
                    line: member.line,
                    column: member.column,
                    confidence: Confidence::Resolved,
                })
            })
        });
        references.chain(implementations).chain(overrides)
    }
}
