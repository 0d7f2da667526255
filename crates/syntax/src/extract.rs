//! One file's bytes → [`FileFacts`], driven by the language's extraction query.
//!
//! The query finds candidate definitions, references, containers and local bindings; this
//! module decides between overlapping candidates (the first pattern in the query file
//! wins), attaches containers and enclosing definitions with one position-ordered sweep,
//! and drops uses of local bindings with a second sweep. Nothing here recurses on the
//! syntax tree, so deep nesting cannot exhaust the stack.

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::ops::ControlFlow;
use std::time::Instant;

use streaming_iterator::StreamingIterator;
use tree_sitter::{Node, ParseOptions, ParseState, Parser, QueryCursor, QueryCursorOptions};

use crate::imports::collect_imports;
use crate::lang::{CaptureRole, LanguageSupport};
use crate::{
    Definition, Diagnostic, FileFacts, Lang, ParseConfig, Position, RefKind, Reference, SymbolKind,
};

/// Longest signature kept, in characters.
const MAX_SIGNATURE_CHARS: usize = 240;
/// Longest doc comment kept, in characters.
const MAX_DOC_CHARS: usize = 2000;
/// Longest qualifier kept verbatim, in bytes; longer receivers are expressions whose type
/// mcursor cannot know anyway.
const MAX_QUALIFIER_BYTES: usize = 160;
/// Marks a qualifier that was an expression too long to keep.
pub const EXPRESSION_QUALIFIER: &str = "(expr)";

thread_local! {
    static PARSER: RefCell<Parser> = RefCell::new(Parser::new());
}

/// Parses one file and extracts its facts. Never fails: problems become diagnostics.
pub fn parse_source(lang: Lang, source: &[u8], config: &ParseConfig) -> FileFacts {
    let mut facts = FileFacts::default();
    let support = match lang.support() {
        Ok(support) => support,
        Err(e) => {
            facts.diagnostics.push(Diagnostic {
                line: 0,
                message: e.to_string(),
            });
            return facts;
        }
    };
    let deadline = Instant::now() + config.timeout;
    let tree = PARSER.with(|cell| {
        let mut parser = cell.borrow_mut();
        if parser.set_language(&support.language).is_err() {
            return None;
        }
        let mut progress = |_: &ParseState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = ParseOptions::new().progress_callback(&mut progress);
        let len = source.len();
        let tree = parser.parse_with_options(
            &mut |offset, _| {
                if offset < len {
                    &source[offset..]
                } else {
                    &[][..]
                }
            },
            None,
            Some(options),
        );
        if tree.is_none() {
            // An aborted parse leaves state behind that would resume on the next call.
            parser.reset();
        }
        tree
    });
    let Some(tree) = tree else {
        facts.timed_out = true;
        facts.diagnostics.push(Diagnostic {
            line: 0,
            message: format!(
                "parse stopped after {:?}; the file is indexed for text search only",
                config.timeout
            ),
        });
        return facts;
    };
    let root = tree.root_node();
    facts.has_syntax_errors = root.has_error();
    Extractor {
        support,
        source,
        deadline,
        facts: &mut facts,
    }
    .run(root);
    facts
}

struct Candidate<'tree> {
    pattern: usize,
    role: CaptureRole,
    node: Node<'tree>,
    name: Node<'tree>,
    /// The qualifier node, and whether it is a value receiver (`x.f`) rather than a path.
    qualifier: Option<(Node<'tree>, bool)>,
}

struct Scope {
    start: usize,
    end: usize,
    name: String,
    is_module: bool,
}

struct Extractor<'a> {
    support: &'static LanguageSupport,
    source: &'a [u8],
    deadline: Instant,
    facts: &'a mut FileFacts,
}

impl Extractor<'_> {
    fn text(&self, node: Node<'_>) -> Cow<'_, str> {
        let range = node.byte_range();
        String::from_utf8_lossy(self.source.get(range).unwrap_or_default())
    }

    fn run(self, root: Node<'_>) {
        let mut definitions: HashMap<usize, Candidate> = HashMap::new();
        let mut references: HashMap<usize, Candidate> = HashMap::new();
        let mut scopes: Vec<Scope> = Vec::new();
        let mut local_scopes: Vec<(usize, usize)> = Vec::new();
        let mut local_definitions: Vec<(usize, String)> = Vec::new();
        let mut import_nodes: Vec<Node> = Vec::new();

        let mut cursor = QueryCursor::new();
        // Bounds the memory of in-progress matches on pathological inputs.
        cursor.set_match_limit(4096);
        let deadline = self.deadline;
        let mut timed_out = false;
        let mut progress = |_: &tree_sitter::QueryCursorState| {
            if Instant::now() > deadline {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let options = QueryCursorOptions::new().progress_callback(&mut progress);
        let query = &self.support.query;
        let mut matches = cursor.matches_with_options(query, root, self.source, options);
        while let Some(m) = matches.next() {
            let mut main: Option<(CaptureRole, Node)> = None;
            let mut name = None;
            let mut qualifier = None;
            let mut scope_name = None;
            for capture in m.captures() {
                let role = self.support.roles[capture.index as usize];
                match role {
                    CaptureRole::Name => name = Some(capture.node),
                    CaptureRole::Qualifier => qualifier = Some((capture.node, false)),
                    CaptureRole::Receiver => qualifier = Some((capture.node, true)),
                    CaptureRole::ScopeName => scope_name = Some(capture.node),
                    CaptureRole::LocalScope => {
                        local_scopes.push((capture.node.start_byte(), capture.node.end_byte()))
                    }
                    CaptureRole::LocalDefinition => local_definitions.push((
                        capture.node.start_byte(),
                        self.text(capture.node).into_owned(),
                    )),
                    CaptureRole::Import => import_nodes.push(capture.node),
                    CaptureRole::ExportDefault => {
                        self.facts.default_export_name = Some(self.text(capture.node).into_owned())
                    }
                    CaptureRole::Ignored => {}
                    CaptureRole::Definition(_)
                    | CaptureRole::Reference(_)
                    | CaptureRole::ScopeContainer
                    | CaptureRole::ScopeModule => main = Some((role, capture.node)),
                }
            }
            let Some((role, node)) = main else { continue };
            match role {
                CaptureRole::ScopeContainer | CaptureRole::ScopeModule => {
                    if let Some(scope_name) = scope_name {
                        scopes.push(Scope {
                            start: node.start_byte(),
                            end: node.end_byte(),
                            name: self.text(scope_name).into_owned(),
                            is_module: role == CaptureRole::ScopeModule,
                        });
                    }
                }
                CaptureRole::Definition(_) | CaptureRole::Reference(_) => {
                    let Some(name) = name else { continue };
                    let table = if matches!(role, CaptureRole::Definition(_)) {
                        &mut definitions
                    } else {
                        &mut references
                    };
                    let candidate = Candidate {
                        pattern: m.pattern_index,
                        role,
                        node,
                        name,
                        qualifier,
                    };
                    match table.get(&name.start_byte()) {
                        Some(existing) if existing.pattern <= m.pattern_index => {}
                        _ => {
                            table.insert(name.start_byte(), candidate);
                        }
                    }
                }
                _ => {}
            }
        }
        drop(matches);
        if Instant::now() > deadline {
            timed_out = true;
        }

        let lang = self.support.lang;
        self.facts.imports = collect_imports(lang, &import_nodes, self.source);

        let mut definitions: Vec<Candidate> = definitions.into_values().collect();
        definitions.sort_by_key(|d| (d.node.start_byte(), std::cmp::Reverse(d.node.end_byte())));
        let definition_names: HashSet<usize> =
            definitions.iter().map(|d| d.name.start_byte()).collect();

        let mut import_ranges: Vec<(usize, usize)> = import_nodes
            .iter()
            .map(|n| (n.start_byte(), n.end_byte()))
            .collect();
        import_ranges.sort_unstable();
        let inside_import = |pos: usize| {
            let i = import_ranges.partition_point(|&(start, _)| start <= pos);
            i > 0 && import_ranges[i - 1].1 > pos
        };

        let mut references: Vec<Candidate> = references
            .into_values()
            .filter(|r| {
                let pos = r.name.start_byte();
                !definition_names.contains(&pos) && !inside_import(pos)
            })
            .collect();
        references.sort_by_key(|r| r.name.start_byte());
        let references = self.drop_local_uses(references, &local_scopes, &local_definitions);

        if timed_out {
            self.facts.timed_out = true;
            self.facts.diagnostics.push(Diagnostic {
                line: 0,
                message: "extraction stopped at its deadline; facts are partial".into(),
            });
        }
        self.attach_structure(definitions, references, scopes);
    }

    /// Removes references that name a local binding (a `let`, a parameter) visible at the
    /// use: they are not uses of a global symbol with the same name.
    fn drop_local_uses<'t>(
        &self,
        references: Vec<Candidate<'t>>,
        local_scopes: &[(usize, usize)],
        local_definitions: &[(usize, String)],
    ) -> Vec<Candidate<'t>> {
        if local_definitions.is_empty() {
            return references;
        }
        // Events in source order; at one position a scope opens before a binding, and a
        // binding is recorded before a use (so a binding's own name is not a use).
        #[derive(Clone, Copy)]
        enum Event {
            Open(usize),
            Bind(usize),
            Use(usize),
        }
        let mut events: Vec<(usize, u8, Event)> =
            Vec::with_capacity(local_scopes.len() + local_definitions.len() + references.len());
        let mut sorted_scopes: Vec<(usize, usize)> = local_scopes.to_vec();
        sorted_scopes.sort_unstable_by_key(|&(s, e)| (s, std::cmp::Reverse(e)));
        sorted_scopes.dedup();
        for (i, &(start, _)) in sorted_scopes.iter().enumerate() {
            events.push((start, 0, Event::Open(i)));
        }
        for (i, (pos, _)) in local_definitions.iter().enumerate() {
            events.push((*pos, 1, Event::Bind(i)));
        }
        for (i, r) in references.iter().enumerate() {
            events.push((r.name.start_byte(), 2, Event::Use(i)));
        }
        events.sort_by_key(|&(pos, order, _)| (pos, order));

        let mut active: HashMap<&str, u32> = HashMap::new();
        // Each open scope: its end, and the names bound in it.
        let mut stack: Vec<(usize, Vec<&str>)> = Vec::new();
        let mut keep = vec![true; references.len()];
        for (pos, _, event) in events {
            while stack.last().is_some_and(|(end, _)| *end <= pos) {
                if let Some((_, names)) = stack.pop() {
                    for name in names {
                        if let Some(count) = active.get_mut(name) {
                            *count -= 1;
                        }
                    }
                }
            }
            match event {
                Event::Open(i) => stack.push((sorted_scopes[i].1, Vec::new())),
                Event::Bind(i) => {
                    if let Some((_, names)) = stack.last_mut() {
                        let name = local_definitions[i].1.as_str();
                        names.push(name);
                        *active.entry(name).or_insert(0) += 1;
                    }
                }
                Event::Use(i) => {
                    let r = &references[i];
                    let unqualified = r.qualifier.is_none();
                    if unqualified
                        && matches!(
                            r.role,
                            CaptureRole::Reference(RefKind::Identifier | RefKind::Call)
                        )
                    {
                        let name = self.text(r.name);
                        if active.get(name.as_ref()).is_some_and(|&c| c > 0) {
                            keep[i] = false;
                        }
                    }
                }
            }
        }
        references
            .into_iter()
            .zip(keep)
            .filter_map(|(r, keep)| keep.then_some(r))
            .collect()
    }

    /// One sweep in source order gives every definition its modules, container and parent,
    /// and every reference its enclosing definition.
    fn attach_structure(
        self,
        definitions: Vec<Candidate<'_>>,
        references: Vec<Candidate<'_>>,
        mut scopes: Vec<Scope>,
    ) {
        scopes.sort_by_key(|s| (s.start, std::cmp::Reverse(s.end)));
        enum Item {
            Definition(usize),
            Scope(usize),
            Reference(usize),
        }
        let mut items: Vec<(usize, std::cmp::Reverse<usize>, u8, Item)> = Vec::new();
        for (i, d) in definitions.iter().enumerate() {
            items.push((
                d.node.start_byte(),
                std::cmp::Reverse(d.node.end_byte()),
                0,
                Item::Definition(i),
            ));
        }
        for (i, s) in scopes.iter().enumerate() {
            items.push((s.start, std::cmp::Reverse(s.end), 1, Item::Scope(i)));
        }
        for (i, r) in references.iter().enumerate() {
            let pos = r.name.start_byte();
            items.push((pos, std::cmp::Reverse(pos), 2, Item::Reference(i)));
        }
        items.sort_by_key(|(start, end, order, _)| (*start, *end, *order));

        let mut scope_stack: Vec<usize> = Vec::new();
        // (end byte, index in facts.definitions)
        let mut definition_stack: Vec<(usize, u32)> = Vec::new();
        let mut out_definitions = Vec::with_capacity(definitions.len());
        let mut out_references = Vec::with_capacity(references.len());
        for (start, _, _, item) in items {
            while scope_stack.last().is_some_and(|&i| scopes[i].end <= start) {
                scope_stack.pop();
            }
            while definition_stack
                .last()
                .is_some_and(|&(end, _)| end <= start)
            {
                definition_stack.pop();
            }
            match item {
                Item::Scope(i) => scope_stack.push(i),
                Item::Definition(i) => {
                    let d = &definitions[i];
                    let CaptureRole::Definition(kind) = d.role else {
                        continue;
                    };
                    let modules = scope_stack
                        .iter()
                        .filter(|&&s| scopes[s].is_module)
                        .map(|&s| scopes[s].name.clone())
                        .collect();
                    let container = scope_stack
                        .iter()
                        .rev()
                        .take_while(|&&s| !scopes[s].is_module)
                        .map(|&s| scopes[s].name.clone())
                        .next();
                    let index = out_definitions.len() as u32;
                    out_definitions.push(self.definition(
                        d,
                        kind,
                        modules,
                        container,
                        definition_stack.last().map(|&(_, i)| i),
                    ));
                    definition_stack.push((d.node.end_byte(), index));
                }
                Item::Reference(i) => {
                    let r = &references[i];
                    let CaptureRole::Reference(kind) = r.role else {
                        continue;
                    };
                    out_references.push(Reference {
                        name: self.text(r.name).into_owned(),
                        kind,
                        start: position(r.name.start_position()),
                        start_byte: r.name.start_byte() as u32,
                        qualifier: r.qualifier.map(|(q, _)| self.qualifier_text(q)),
                        receiver: r.qualifier.is_some_and(|(_, receiver)| receiver),
                        enclosing: definition_stack.last().map(|&(_, i)| i),
                    });
                }
            }
        }
        self.facts.definitions = out_definitions;
        self.facts.references = out_references;
    }

    fn qualifier_text(&self, node: Node<'_>) -> String {
        if node.byte_range().len() > MAX_QUALIFIER_BYTES {
            return EXPRESSION_QUALIFIER.to_owned();
        }
        let text = self.text(node);
        if text.contains('\n') || text.contains('(') {
            EXPRESSION_QUALIFIER.to_owned()
        } else {
            text.into_owned()
        }
    }

    fn definition(
        &self,
        candidate: &Candidate<'_>,
        kind: SymbolKind,
        modules: Vec<String>,
        container: Option<String>,
        parent: Option<u32>,
    ) -> Definition {
        let node = candidate.node;
        let outer = declaration_root(node);
        Definition {
            name: self.text(candidate.name).into_owned(),
            kind,
            modules,
            container,
            start: position(candidate.name.start_position()),
            end: position(node.end_position()),
            start_byte: node.start_byte() as u32,
            end_byte: node.end_byte() as u32,
            signature: self.signature(node),
            doc: self.doc_comment(outer),
            default_export: outer.kind() == "export_statement"
                && (0..outer.child_count())
                    .filter_map(|i| outer.child(i))
                    .any(|c| c.kind() == "default"),
            parent,
        }
    }

    fn signature(&self, node: Node<'_>) -> String {
        let end = match node.child_by_field_name("body") {
            Some(body) => body.start_byte(),
            None => node.end_byte(),
        };
        let bytes = self.source.get(node.start_byte()..end).unwrap_or_default();
        let text = String::from_utf8_lossy(bytes);
        let text = if node.child_by_field_name("body").is_some() {
            text
        } else {
            Cow::Borrowed(text.lines().next().unwrap_or_default())
        };
        let mut signature = String::new();
        for word in text.split_whitespace() {
            if !signature.is_empty() {
                signature.push(' ');
            }
            signature.push_str(word);
            if signature.len() > MAX_SIGNATURE_CHARS * 4 {
                break;
            }
        }
        let signature = signature.trim_end_matches(['{', ' ']).to_owned();
        truncate_chars(signature, MAX_SIGNATURE_CHARS)
    }

    /// Doc comments directly above the definition: Rust `///` and `/** */`, JSDoc `/** */`.
    /// Attributes between the comment and the item are skipped.
    fn doc_comment(&self, node: Node<'_>) -> Option<String> {
        let mut lines: Vec<String> = Vec::new();
        let mut next_row = node.start_position().row;
        let mut sibling = node.prev_sibling();
        while let Some(s) = sibling {
            if s.end_position().row + 1 < next_row {
                break;
            }
            match s.kind() {
                "attribute_item" | "decorator" => {}
                "line_comment" | "block_comment" | "comment" => {
                    let text = self.text(s);
                    let text = text.trim_end();
                    if let Some(rest) = text.strip_prefix("///") {
                        if rest.starts_with('/') {
                            break;
                        }
                        lines.push(rest.strip_prefix(' ').unwrap_or(rest).to_owned());
                    } else if let Some(rest) = text.strip_prefix("/**") {
                        let body = rest.strip_suffix("*/").unwrap_or(rest);
                        let block: Vec<String> = body
                            .lines()
                            .map(|l| {
                                let l = l.trim();
                                let l = l.strip_prefix('*').unwrap_or(l);
                                l.strip_prefix(' ').unwrap_or(l).to_owned()
                            })
                            .collect();
                        for line in block.into_iter().rev() {
                            lines.push(line);
                        }
                    } else {
                        break;
                    }
                }
                _ => break,
            }
            next_row = s.start_position().row;
            if lines.len() > 200 {
                break;
            }
            sibling = s.prev_sibling();
        }
        if lines.is_empty() {
            return None;
        }
        lines.reverse();
        let doc = lines.join("\n").trim().to_owned();
        (!doc.is_empty()).then(|| truncate_chars(doc, MAX_DOC_CHARS))
    }
}

/// The statement a definition's comments and `export` keyword attach to: `export const f =
/// () => {}` is a variable_declarator inside a lexical_declaration inside an export_statement.
fn declaration_root(node: Node<'_>) -> Node<'_> {
    let mut current = node;
    for _ in 0..3 {
        match current.parent() {
            Some(parent)
                if matches!(
                    parent.kind(),
                    "lexical_declaration"
                        | "variable_declaration"
                        | "export_statement"
                        | "ambient_declaration"
                ) =>
            {
                current = parent
            }
            _ => break,
        }
    }
    current
}

fn position(point: tree_sitter::Point) -> Position {
    Position {
        line: point.row as u32 + 1,
        column: point.column as u32 + 1,
    }
}

fn truncate_chars(mut text: String, max: usize) -> String {
    if let Some((cut, _)) = text.char_indices().nth(max) {
        text.truncate(cut);
        text.push('…');
    }
    text
}
