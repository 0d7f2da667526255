//! The JSON shapes of index answers, one per kind of hit: what the CLI's `--json` prints
//! and what MCP's structured results hold. Kinds, languages and confidences are the
//! lowercase words of their enums (`function`, `rust`, `resolved`): part of the contract.

use mcursor_index::{
    CallEdge, EdgeKind, ExportEdge, ExportSymbol, Impact, ImpactSite, ImplHit, RefHit, SymbolHit,
};
use serde::Serialize;

/// A definition.
#[derive(Debug, Serialize)]
pub struct Definition<'a> {
    pub name: &'a str,
    pub qualified_name: &'a str,
    pub kind: &'static str,
    pub lang: &'static str,
    pub path: &'a str,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub signature: &'a str,
    #[serde(skip_serializing_if = "str::is_empty")]
    pub doc: &'a str,
}

impl<'a> From<&'a SymbolHit> for Definition<'a> {
    fn from(hit: &'a SymbolHit) -> Self {
        Definition {
            name: &hit.name,
            qualified_name: &hit.qualified_name,
            kind: hit.kind.as_str(),
            lang: hit.lang.map_or("text", mcursor_syntax::Lang::as_str),
            path: &hit.path,
            line: hit.line,
            column: hit.column,
            end_line: hit.end_line,
            signature: &hit.signature,
            doc: &hit.doc,
        }
    }
}

/// A reference.
#[derive(Debug, Serialize)]
pub struct Reference<'a> {
    pub path: &'a str,
    pub line: u32,
    pub column: u32,
    pub kind: &'static str,
    /// Qualified name of the definition the use sits in, if any.
    pub enclosing: Option<&'a str>,
    /// Qualified name of the definition it refers to (for a dispatch, the trait's,
    /// interface's or base class's member it names), or the bare name of a name match.
    pub target: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_path: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_line: Option<u32>,
    /// `resolved`, `dispatch` or `heuristic`.
    pub confidence: &'static str,
    pub text: &'a str,
}

impl<'a> From<&'a RefHit> for Reference<'a> {
    fn from(r: &'a RefHit) -> Self {
        Reference {
            path: &r.path,
            line: r.line,
            column: r.column,
            kind: r.kind.as_str(),
            enclosing: r.enclosing.as_deref(),
            target: &r.target,
            target_path: r.target_path.as_deref(),
            target_line: r.target_line,
            confidence: r.confidence.as_str(),
            text: &r.text,
        }
    }
}

/// An edge of a call graph.
#[derive(Debug, Serialize)]
pub struct Edge<'a> {
    pub depth: u32,
    pub caller: &'a str,
    pub callee: &'a str,
    /// The definitions the same sites may call, when a name match leaves several
    /// (`callee` first).
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub candidates: &'a [String],
    pub caller_path: &'a str,
    pub caller_line: u32,
    /// Call sites as `path:line:column`.
    pub sites: &'a [String],
    /// `resolved` when every site is, else `heuristic`.
    pub confidence: &'static str,
}

impl<'a> From<&'a CallEdge> for Edge<'a> {
    fn from(e: &'a CallEdge) -> Self {
        Edge {
            depth: e.depth,
            caller: &e.caller,
            callee: &e.callee,
            candidates: &e.candidates,
            caller_path: &e.caller_path,
            caller_line: e.caller_line,
            sites: &e.sites,
            confidence: e.confidence.as_str(),
        }
    }
}

/// An implementation of a trait, interface or class, or of one of its members.
#[derive(Debug, Serialize)]
pub struct Implementation<'a> {
    /// 1: of the asked-for symbol; more: of an implementation one level up.
    pub depth: u32,
    /// Qualified name of what is implemented or extended.
    pub implements: &'a str,
    /// `impl`, `blanket` (every type with the bounds in `implementor_text`) or `subtype`
    /// (declared in the type's header: `extends`, `implements`, a supertrait).
    pub kind: &'static str,
    /// The implementing type as written.
    pub implementor_text: &'a str,
    /// The implementing type's definition, when it is in the repository.
    pub implementor: Option<Definition<'a>>,
    pub path: &'a str,
    pub line: u32,
    pub column: u32,
    /// Its methods that implement members of what it implements.
    pub methods: Vec<Definition<'a>>,
}

impl<'a> From<&'a ImplHit> for Implementation<'a> {
    fn from(i: &'a ImplHit) -> Self {
        Implementation {
            depth: i.depth,
            implements: &i.implements,
            kind: i.kind.as_str(),
            implementor_text: &i.implementor_text,
            implementor: i.implementor.as_ref().map(Definition::from),
            path: &i.path,
            line: i.line,
            column: i.column,
            methods: all(&i.methods),
        }
    }
}

/// A site a change can affect.
#[derive(Debug, Serialize)]
pub struct Affected<'a> {
    /// 1: uses the asked-for definition; 2: uses a definition of level 1; ...
    pub depth: u32,
    pub path: &'a str,
    pub line: u32,
    pub column: u32,
    /// A reference kind (`call`, `type`, `import`...) or `implementation`.
    pub kind: &'static str,
    /// The definition the site is in (or the implementing type); absent at top level.
    pub affected: Option<&'a str>,
    /// What the site uses.
    pub uses: &'a str,
    /// `resolved`, `dispatch` or `heuristic` (heuristic uses are not followed further).
    pub confidence: &'static str,
}

impl<'a> From<&'a ImpactSite> for Affected<'a> {
    fn from(s: &'a ImpactSite) -> Self {
        Affected {
            depth: s.depth,
            path: &s.path,
            line: s.line,
            column: s.column,
            kind: s.kind.as_str(),
            affected: s.affected.as_deref(),
            uses: &s.uses,
            confidence: s.confidence.as_str(),
        }
    }
}

/// An impact answer: the asked-for definitions, the `sites` given (all, or a page of
/// them), the sites per file (most first), how many definitions are affected and how many
/// only heuristic uses reach (not followed).
pub fn impact(
    definitions: &[SymbolHit],
    impact: &Impact,
    sites: &[ImpactSite],
) -> serde_json::Value {
    let per_file: Vec<serde_json::Value> = impact
        .per_file
        .iter()
        .map(|(path, sites)| serde_json::json!({ "path": path, "sites": sites }))
        .collect();
    serde_json::json!({
        "found": true,
        "definitions": all::<_, Definition>(definitions),
        "sites": all::<_, Affected>(sites),
        "per_file": per_file,
        "affected_definitions": impact.definitions,
        "heuristic_not_followed": impact.heuristic_not_followed,
    })
}

/// The version of the export format (`mcursor export`): bumped when a field changes
/// meaning or goes away (new fields may appear without a bump).
pub const EXPORT_VERSION: u32 = 1;

/// The first line of an export.
#[derive(Debug, Serialize)]
pub struct ExportHeader {
    #[serde(rename = "type")]
    pub record: &'static str,
    pub format: &'static str,
    pub version: u32,
    /// The index generation exported (it moves with every update).
    pub generation: u64,
    /// The store's format version.
    pub index_format: u32,
    /// Whether the tree had changed since the index was built (`--allow-stale`).
    pub stale: bool,
    /// `symbols`, `edges` or both, in that order.
    pub contents: Vec<&'static str>,
    /// The `--kind` filter, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
}

impl ExportHeader {
    pub fn new(
        generation: u64,
        stale: bool,
        contents: Vec<&'static str>,
        kind: Option<String>,
    ) -> Self {
        ExportHeader {
            record: "header",
            format: "mcursor-export",
            version: EXPORT_VERSION,
            generation,
            index_format: mcursor_index::FORMAT_VERSION,
            stale,
            contents,
            kind,
        }
    }
}

/// One exported symbol; `id` is what edges' `from` and `to` name.
#[derive(Debug, Serialize)]
pub struct SymbolRecord<'a> {
    #[serde(rename = "type")]
    pub record: &'static str,
    pub id: u32,
    pub parent: Option<u32>,
    pub member: bool,
    pub end_column: u32,
    #[serde(flatten)]
    pub definition: Definition<'a>,
}

impl<'a> From<&'a ExportSymbol> for SymbolRecord<'a> {
    fn from(s: &'a ExportSymbol) -> Self {
        SymbolRecord {
            record: "symbol",
            id: s.symbol.id,
            parent: s.parent,
            member: s.symbol.member,
            end_column: s.end_column,
            definition: Definition::from(&s.symbol),
        }
    }
}

/// One exported edge.
#[derive(Debug, Serialize)]
pub struct EdgeRecord<'a> {
    #[serde(rename = "type")]
    pub record: &'static str,
    /// A reference kind (`call`, `type`, `import`, `macro`, `field`, `identifier`),
    /// `implements` or `overrides`.
    pub kind: &'static str,
    /// For `implements`: `impl`, `blanket` or `subtype`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub how: Option<&'static str>,
    pub from: Option<u32>,
    pub to: Option<u32>,
    pub name: &'a str,
    pub path: &'a str,
    pub line: u32,
    pub column: u32,
    /// `resolved` or `heuristic`.
    pub confidence: &'static str,
}

impl<'a> From<&'a ExportEdge> for EdgeRecord<'a> {
    fn from(e: &'a ExportEdge) -> Self {
        EdgeRecord {
            record: "edge",
            kind: e.kind.as_str(),
            how: match e.kind {
                EdgeKind::Implements(how) => Some(how.as_str()),
                EdgeKind::Reference(_) | EdgeKind::Overrides => None,
            },
            from: e.from,
            to: e.to,
            name: &e.name,
            path: &e.path,
            line: e.line,
            column: e.column,
            confidence: e.confidence.as_str(),
        }
    }
}

/// Each of `hits` in its JSON shape.
pub fn all<'a, H, W: From<&'a H>>(hits: &'a [H]) -> Vec<W> {
    hits.iter().map(W::from).collect()
}
