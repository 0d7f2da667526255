//! Name resolution: every file's facts together → symbols with qualified names, and
//! references pointing at the definition they use.
//!
//! What decides a reference, in order: local scope (done in `mcursor-syntax`), Rust `use`
//! paths and `mod` files, JavaScript/TypeScript relative imports and re-exports,
//! same-file definitions, `self`/`this`/`Self` receivers, type-qualified paths. Those give
//! `resolved` references. What is left falls back to name matching among definitions of a
//! compatible kind in the same language family (`heuristic`). A use that an import ties to
//! something outside the repository (`std::fmt::Result`, `react`) is dropped rather than
//! matched by name to an unrelated definition.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{EXPRESSION_QUALIFIER, Import, ImportTarget, Lang, RefKind, SymbolKind};
use rayon::prelude::*;

use crate::store::{Confidence, FileRow, NONE, RefRow, RefShape, StoreData, SymbolRow};

/// Paths looked up while following one chain of re-exports and glob imports; bounds the
/// work when modules glob-import each other.
const MAX_CHAIN_STEPS: usize = 8;

thread_local! {
    /// (resolution run, path key) → symbols; entries of other runs are ignored.
    static CHASE_CACHE: std::cell::RefCell<(u64, HashMap<u64, Vec<u32>>)> =
        std::cell::RefCell::new((0, HashMap::default()));
}

static RESOLUTION_RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// The first paragraph of a doc comment, at most 400 characters: enough to say what a
/// symbol is; the full text is one `read_file` away.
fn doc_summary(doc: String) -> String {
    let paragraph = doc.split("\n\n").next().unwrap_or("").trim();
    match paragraph.char_indices().nth(400) {
        Some((cut, _)) => format!("{}…", &paragraph[..cut]),
        None => paragraph.to_owned(),
    }
}

/// What the `use` declarations of one module bring into scope.
#[derive(Default)]
struct ModuleScope {
    /// Local name → the paths it stands for.
    named: HashMap<String, Vec<Vec<String>>>,
    /// Paths of `use path::*`.
    globs: Vec<Vec<String>>,
}

/// The state of following one chain of re-exports: what was visited, how much was done.
#[derive(Default)]
struct Chase {
    steps: usize,
    seen: HashSet<u64>,
}

impl Chase {
    /// Whether `key` may be visited (not seen before, budget left).
    fn visit(&mut self, key: u64) -> bool {
        self.steps += 1;
        self.steps <= MAX_CHAIN_STEPS && self.seen.insert(key)
    }
}

/// A reference as extracted, with file-local string ids.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(crate) struct LocalRef {
    pub name: u32,
    pub qualifier: u32,
    pub receiver: bool,
    pub kind: RefKind,
    pub line: u32,
    pub column: u32,
    pub enclosing: u32,
}

/// A definition as kept until resolution: integers into its file's tables, no
/// allocations of its own.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(crate) struct Def {
    name: u32,
    kind: SymbolKind,
    /// Index into [`CompactFacts::module_paths`].
    modules: u32,
    /// String id, or `NONE`.
    container: u32,
    parent: u32,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    default_export: bool,
    /// Byte ranges in [`CompactFacts::texts`].
    signature: (u32, u32),
    doc: (u32, u32),
}

/// One parsed file's facts in a compact form. The builder keeps every file's facts until
/// resolution, so strings are interned per file and definitions are plain integers.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct CompactFacts {
    pub strings: Vec<String>,
    /// Distinct inline-module paths of this file's definitions.
    module_paths: Vec<Vec<String>>,
    /// Signatures and doc summaries, back to back.
    texts: String,
    definitions: Vec<Def>,
    pub references: Vec<LocalRef>,
    pub imports: Vec<Import>,
    pub default_export_name: Option<String>,
    /// String id → definitions with that name (rebuilt after loading from the cache).
    #[serde(skip)]
    definitions_by_name: HashMap<u32, Vec<u32>>,
    #[serde(skip)]
    imports_by_local: HashMap<String, Vec<u32>>,
}

impl CompactFacts {
    fn string(&self, id: u32) -> &str {
        self.strings.get(id as usize).map_or("", String::as_str)
    }

    fn name(&self, d: &Def) -> &str {
        self.string(d.name)
    }

    fn modules(&self, d: &Def) -> &[String] {
        self.module_paths
            .get(d.modules as usize)
            .map_or(&[], Vec::as_slice)
    }

    fn container(&self, d: &Def) -> Option<&str> {
        (d.container != NONE).then(|| self.string(d.container))
    }

    fn text(&self, (start, len): (u32, u32)) -> &str {
        self.texts
            .get(start as usize..(start + len) as usize)
            .unwrap_or("")
    }

    /// This file's definitions named by string id `name`, in source order.
    pub(crate) fn definitions_named(&self, name: u32) -> impl Iterator<Item = (u32, &Def)> {
        self.definitions_by_name
            .get(&name)
            .into_iter()
            .flatten()
            .map(|&i| (i, &self.definitions[i as usize]))
    }

    /// This file's imports that bring `local` into scope (`*` for glob imports).
    fn imports_named<'a>(&'a self, local: &str) -> impl Iterator<Item = &'a Import> {
        self.imports_by_local
            .get(local)
            .into_iter()
            .flatten()
            .map(|&i| &self.imports[i as usize])
    }

    pub fn from_facts(facts: mcursor_syntax::FileFacts) -> Self {
        let mut strings: Vec<String> = Vec::new();
        let mut ids: HashMap<String, u32> = HashMap::default();
        let mut intern = |s: String| -> u32 {
            if let Some(&id) = ids.get(&s) {
                return id;
            }
            let id = strings.len() as u32;
            strings.push(s.clone());
            ids.insert(s, id);
            id
        };
        let references = facts
            .references
            .into_iter()
            .map(|r| LocalRef {
                name: intern(r.name),
                qualifier: r.qualifier.map(&mut intern).unwrap_or(NONE),
                receiver: r.receiver,
                kind: r.kind,
                line: r.start.line,
                column: r.start.column,
                enclosing: r.enclosing.unwrap_or(NONE),
            })
            .collect();
        let mut module_paths: Vec<Vec<String>> = Vec::new();
        let mut module_ids: HashMap<Vec<String>, u32> = HashMap::default();
        let mut texts = String::new();
        let mut push_text = |text: &str| -> (u32, u32) {
            let start = texts.len() as u32;
            texts.push_str(text);
            (start, text.len() as u32)
        };
        let mut definitions = Vec::with_capacity(facts.definitions.len());
        for d in facts.definitions {
            let modules = match module_ids.get(&d.modules) {
                Some(&id) => id,
                None => {
                    let id = module_paths.len() as u32;
                    module_ids.insert(d.modules.clone(), id);
                    module_paths.push(d.modules);
                    id
                }
            };
            let name = intern(d.name);
            definitions.push(Def {
                name,
                kind: d.kind,
                modules,
                container: d.container.map(&mut intern).unwrap_or(NONE),
                parent: d.parent.unwrap_or(NONE),
                line: d.start.line,
                column: d.start.column,
                end_line: d.end.line,
                end_column: d.end.column,
                default_export: d.default_export,
                signature: push_text(&d.signature),
                doc: push_text(&d.doc.map(doc_summary).unwrap_or_default()),
            });
        }
        let mut compact = CompactFacts {
            strings,
            module_paths,
            texts,
            definitions,
            references,
            imports: facts.imports,
            default_export_name: facts.default_export_name,
            definitions_by_name: HashMap::default(),
            imports_by_local: HashMap::default(),
        };
        compact.build_lookups();
        compact
    }

    /// Whether two versions of a file declare the same things in the same order: the
    /// same definitions (name, kind, modules, container, parent, default export) and the
    /// same imports. Positions, bodies, signatures and docs may differ. Every table the
    /// resolver builds depends on files only through this interface.
    pub fn interface_eq(&self, other: &CompactFacts) -> bool {
        let definition = |f: &CompactFacts, d: &Def| {
            (
                f.name(d).to_owned(),
                d.kind,
                f.modules(d).to_vec(),
                f.container(d).map(str::to_owned),
                d.parent,
                d.default_export,
            )
        };
        let import = |i: &Import| {
            (
                i.local.clone(),
                i.target.clone(),
                i.reexport,
                i.modules.clone(),
            )
        };
        self.definitions.len() == other.definitions.len()
            && self.imports.len() == other.imports.len()
            && self.default_export_name == other.default_export_name
            && self
                .definitions
                .iter()
                .zip(&other.definitions)
                .all(|(a, b)| definition(self, a) == definition(other, b))
            && self
                .imports
                .iter()
                .zip(&other.imports)
                .all(|(a, b)| import(a) == import(b))
    }

    /// Symbol rows of this file for a patch: ids from `symbol_base` on, each keeping the
    /// qualified-name prefix the store holds for it (`prefix_of(i)`), which the interface
    /// fixes.
    pub fn symbol_rows(
        &self,
        fid: u32,
        symbol_base: u32,
        name_id: &dyn Fn(&str) -> Option<u32>,
        prefix_of: &dyn Fn(u32) -> Option<String>,
    ) -> Option<Vec<SymbolRow>> {
        self.definitions
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let qualified = prefix_of(symbol_base + i as u32)?;
                Some(self.symbol_row(d, name_id(self.name(d))?, fid, symbol_base, qualified))
            })
            .collect()
    }

    /// The store row of definition `d`, the file's symbols numbered from `symbol_base`.
    fn symbol_row(
        &self,
        d: &Def,
        name: u32,
        fid: u32,
        symbol_base: u32,
        qualified: String,
    ) -> SymbolRow {
        SymbolRow {
            name,
            file: fid,
            parent: if d.parent == NONE {
                NONE
            } else {
                symbol_base + d.parent
            },
            line: d.line,
            column: d.column,
            end_line: d.end_line,
            end_column: d.end_column,
            kind: d.kind,
            qualified,
            signature: self.text(d.signature).to_owned(),
            doc: self.text(d.doc).to_owned(),
        }
    }

    /// Fills the by-name lookups, which are derived data: the facts cache does not store
    /// them.
    pub fn build_lookups(&mut self) {
        self.definitions_by_name.clear();
        for (i, d) in self.definitions.iter().enumerate() {
            self.definitions_by_name
                .entry(d.name)
                .or_default()
                .push(i as u32);
        }
        self.imports_by_local.clear();
        for (i, import) in self.imports.iter().enumerate() {
            self.imports_by_local
                .entry(import.local.clone())
                .or_default()
                .push(i as u32);
        }
    }
}

/// One file after parsing: its row, and its facts if its language is supported.
pub(crate) struct ParsedFile {
    pub row: FileRow,
    pub facts: Option<CompactFacts>,
    /// For a `Cargo.toml`: its `[package] name`.
    pub cargo_package: Option<String>,
}

/// The `name` of a `Cargo.toml`'s `[package]` table (a line scan: only this one value is
/// needed, and a malformed manifest must not stop indexing).
pub(crate) fn cargo_package_name(manifest: &str) -> Option<String> {
    let mut in_package = false;
    for line in manifest.lines() {
        let line = line.trim();
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        if !in_package {
            continue;
        }
        if let Some(rest) = line.strip_prefix("name")
            && let Some(value) = rest.trim_start().strip_prefix('=')
        {
            let value = value.trim().trim_matches(|c| c == '"' || c == '\'');
            if !value.is_empty() {
                return Some(value.replace('-', "_"));
            }
        }
    }
    None
}

/// Where a Rust file sits: its crate and its module path inside the crate.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct RustModule {
    pub crate_key: String,
    pub path: Vec<String>,
}

fn strip_rs(name: &str) -> &str {
    name.strip_suffix(".rs").unwrap_or(name)
}

/// Module path from the file path: `src/a/b.rs` → `a::b`, `src/a/mod.rs` → `a`,
/// `src/lib.rs` → crate root; the crate is the nearest directory with a `Cargo.toml`.
/// Integration tests, examples, benches, binaries and build scripts are crate roots.
pub(crate) fn rust_module(path: &str, cargo_dirs: &HashSet<String>) -> RustModule {
    let parts: Vec<&str> = path.split('/').collect();
    let dirs = &parts[..parts.len().saturating_sub(1)];
    let crate_depth = (0..=dirs.len())
        .rev()
        .find(|&n| cargo_dirs.contains(&dirs[..n].join("/")));
    let (crate_dir, rel): (String, &[&str]) = match crate_depth {
        Some(n) => (dirs[..n].join("/"), &parts[n..]),
        None => match parts.iter().rposition(|p| *p == "src") {
            Some(i) => (parts[..i].join("/"), &parts[i..]),
            None => (String::new(), &parts[..]),
        },
    };
    let module_of = |segments: &[&str]| -> Vec<String> {
        let mut out: Vec<String> = segments.iter().map(|s| s.to_string()).collect();
        if let Some(last) = out.pop() {
            let stem = strip_rs(&last);
            let is_root = out.is_empty() && (stem == "lib" || stem == "main");
            if !is_root && stem != "mod" {
                out.push(stem.to_owned());
            }
        }
        out
    };
    match rel {
        ["src", "bin", rest @ ..] => RustModule {
            crate_key: format!("{crate_dir}#bin/{}", rest.first().copied().unwrap_or("")),
            path: Vec::new(),
        },
        ["src", rest @ ..] => RustModule {
            crate_key: crate_dir,
            path: module_of(rest),
        },
        _ if crate_depth.is_some() => RustModule {
            crate_key: format!("{crate_dir}#{}", rel.join("/")),
            path: Vec::new(),
        },
        _ => RustModule {
            crate_key: crate_dir,
            path: module_of(rel),
        },
    }
}

fn crate_name(crate_key: &str) -> Option<String> {
    if crate_key.contains('#') {
        return None;
    }
    let last = crate_key.rsplit('/').next().filter(|s| !s.is_empty())?;
    Some(last.replace('-', "_"))
}

struct Symbol {
    name: String,
    kind: SymbolKind,
    ecma: bool,
}

/// Read-only lookup tables shared by the per-file resolution workers.
struct Tables<'a> {
    /// Identifies this resolution run in per-thread caches.
    run: u64,
    files: &'a [ParsedFile],
    symbols: Vec<Symbol>,
    /// First symbol id of each file.
    file_base: Vec<u32>,
    /// Name → (its id in the store's name table, the symbols with that name).
    by_name: HashMap<String, (u32, Vec<u32>)>,
    /// `Container::name` → symbols with that container (impl target, class, trait, enum).
    by_member: HashMap<String, Vec<u32>>,
    rust_modules: Vec<Option<RustModule>>,
    /// `crate_key|a::b::Name` → symbols.
    rust_paths: HashMap<u64, Vec<u32>>,
    /// `crate_key|a::b` → what the `use`s inside that module bring into scope.
    rust_imports: HashMap<u64, ModuleScope>,
    /// Per crate, hashes of every name defined or imported in it: a path whose last
    /// segment is not among them cannot resolve there, which settles most lookups
    /// without chasing re-exports.
    crate_vocabulary: HashMap<String, HashSet<u64>>,
    crate_names: HashMap<String, String>,
    ecma_exports: Vec<HashMap<String, Vec<u32>>>,
    ecma_default: Vec<Option<u32>>,
    file_ids: HashMap<&'a str, u32>,
}

/// A phase's duration on stderr when `MCURSOR_TRACE` is set.
fn trace_phase(what: &str, since: std::time::Instant) {
    if std::env::var_os("MCURSOR_TRACE").is_some() {
        eprintln!("[mcursor] {what} in {} ms", since.elapsed().as_millis());
    }
}

fn name_hash(name: &str) -> u64 {
    use std::hash::{BuildHasher, BuildHasherDefault};
    BuildHasherDefault::<rustc_hash::FxHasher>::default().hash_one(name)
}

/// FNV-1a, fed piecewise: hashing `a` then `b` equals hashing `ab`, so a key can be built
/// from segments or from an already joined path alike.
struct PathHasher(u64);

impl PathHasher {
    fn new() -> Self {
        PathHasher(0xcbf2_9ce4_8422_2325)
    }

    fn write(&mut self, text: &str) {
        for byte in text.bytes() {
            self.0 ^= u64::from(byte);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

/// The lookup key of `crate_key|a::b::c`, as a 64-bit hash: the path tables hold a million
/// entries on large corpora, and string keys cost more memory than the rest of
/// resolution. (A collision would need two of those million paths to share 64 bits.)
fn rust_key(crate_key: &str, path: &[String]) -> u64 {
    let mut hasher = PathHasher::new();
    hasher.write(crate_key);
    hasher.write("|");
    for (i, segment) in path.iter().enumerate() {
        if i > 0 {
            hasher.write("::");
        }
        hasher.write(segment);
    }
    hasher.0
}

/// [`rust_key`] of an already `::`-joined path.
fn rust_key_joined(crate_key: &str, joined: &str) -> u64 {
    let mut hasher = PathHasher::new();
    hasher.write(crate_key);
    hasher.write("|");
    hasher.write(joined);
    hasher.0
}

/// One reference being resolved, with what its file knows around it.
struct Use<'a> {
    fid: u32,
    facts: &'a CompactFacts,
    name: &'a str,
    r: &'a LocalRef,
    qualifier: Option<&'a str>,
    enclosing: Option<&'a Def>,
    /// Every definition in the repository with this name.
    candidates: &'a [u32],
}

/// What a use resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Outcome {
    /// This symbol id.
    Resolved(u32),
    /// Matched by name only.
    Heuristic,
    /// Not a use of anything in the repository: no reference is stored.
    Drop,
}

/// A use's resolution context (name, qualifier, kind, receiver, and the modules and
/// container of the enclosing definition) as a 64-bit hash: within one file, uses with
/// the same context resolve the same way (the resolver memoizes on it), so the key
/// outlives the file's parse. A hash rather than the strings keeps memos small (they are
/// held for every file during resolution and stored in the facts cache); two contexts of
/// one file would have to collide in 64 bits to be confused.
fn use_key(facts: &CompactFacts, r: &LocalRef) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    // Every field length-prefixed, so the encoding is unambiguous.
    let mut field = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u32).to_le_bytes());
        hasher.update(bytes);
    };
    field(facts.string(r.name).as_bytes());
    match r.qualifier {
        NONE => field(b""),
        q => field(format!("q{}", facts.string(q)).as_bytes()),
    }
    field(&[r.kind as u8, u8::from(r.receiver)]);
    if let Some(d) = facts.definitions.get(r.enclosing as usize) {
        field(b"enclosed");
        for module in facts.modules(d) {
            field(module.as_bytes());
        }
        match facts.container(d) {
            Some(container) => field(format!("c{container}").as_bytes()),
            None => field(b""),
        }
    }
    hasher.digest()
}

/// How one file's references resolved: per use key and per import. While every file
/// keeps its interface (see [`CompactFacts::interface_eq`]) and so the symbol layout,
/// these outcomes stay true, and a new version of the file whose uses all have known
/// keys gets its references from the memo instead of the global tables.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct FileMemo {
    pub uses: Vec<(u64, Outcome)>,
    pub imports: Vec<Outcome>,
}

/// The reference rows of a file from a memo of an earlier version with the same
/// interface; `None` when a use has a key the memo lacks (resolve the whole tree then).
pub(crate) fn rows_from_memo(
    facts: &CompactFacts,
    memo: &FileMemo,
    fid: u32,
    symbol_base: u32,
    target_name: &dyn Fn(u32) -> Option<u32>,
    name_id: &dyn Fn(&str) -> Option<u32>,
) -> Option<Vec<RefRow>> {
    let known: HashMap<u64, Outcome> = memo.uses.iter().copied().collect();
    let complete = std::cell::Cell::new(true);
    let mut next_import = memo.imports.iter().copied();
    let rows = emit_refs(
        facts,
        fid,
        symbol_base,
        |r| match known.get(&use_key(facts, r)) {
            Some(&outcome) => outcome,
            None => {
                complete.set(false);
                Outcome::Drop
            }
        },
        |_, _| match next_import.next() {
            Some(outcome) => outcome,
            None => {
                complete.set(false);
                Outcome::Drop
            }
        },
        target_name,
        name_id,
    );
    // Every named import consumed exactly one outcome (the interface fixes the imports).
    (complete.get() && next_import.next().is_none()).then_some(rows)
}

/// Turns one file's uses and imports into reference rows, with outcomes from
/// `use_outcome` and `import_outcome` (the resolver, or a memo of it).
fn emit_refs(
    facts: &CompactFacts,
    fid: u32,
    symbol_base: u32,
    mut use_outcome: impl FnMut(&LocalRef) -> Outcome,
    mut import_outcome: impl FnMut(&Import, &str) -> Outcome,
    target_name: &dyn Fn(u32) -> Option<u32>,
    name_id: &dyn Fn(&str) -> Option<u32>,
) -> Vec<RefRow> {
    let mut out = Vec::new();
    let mut emit =
        |name: &str, kind: RefKind, shape: RefShape, line, column, enclosing: u32, outcome| {
            let (target, confidence, name) = match outcome {
                Outcome::Resolved(sid) => (sid, Confidence::Resolved, target_name(sid)),
                Outcome::Heuristic => (NONE, Confidence::Heuristic, name_id(name)),
                Outcome::Drop => return,
            };
            let Some(name) = name else { return };
            out.push(RefRow {
                name,
                file: fid,
                line,
                column,
                target,
                enclosing,
                kind,
                confidence,
                shape,
            });
        };
    for r in &facts.references {
        let outcome = use_outcome(r);
        let enclosing = if r.enclosing == NONE {
            NONE
        } else {
            symbol_base + r.enclosing
        };
        let shape = match (r.qualifier != NONE, r.receiver) {
            (false, _) => RefShape::Bare,
            (true, true) => RefShape::Member,
            (true, false) => RefShape::Path,
        };
        emit(
            facts.string(r.name),
            r.kind,
            shape,
            r.line,
            r.column,
            enclosing,
            outcome,
        );
    }
    for import in &facts.imports {
        let name = match &import.target {
            ImportTarget::Path(path) if import.local != "*" => path.last().cloned(),
            ImportTarget::Module {
                imported: Some(imported),
                ..
            } if imported != "*" => Some(if imported == "default" {
                import.local.clone()
            } else {
                imported.clone()
            }),
            _ => None,
        };
        let Some(name) = name else { continue };
        let outcome = import_outcome(import, &name);
        emit(
            &name,
            RefKind::Import,
            RefShape::Path,
            import.start.line,
            import.start.column,
            NONE,
            outcome,
        );
    }
    out
}

/// Resolves every file's references and assembles the store tables; also returns each
/// file's [`FileMemo`], in file order.
pub(crate) fn resolve(files: &[ParsedFile], meta: serde_json::Value) -> (StoreData, Vec<FileMemo>) {
    let started = std::time::Instant::now();
    let cargo_dirs: HashSet<String> = files
        .iter()
        .filter_map(|f| {
            let path = f.row.path.as_str();
            if path == "Cargo.toml" {
                Some(String::new())
            } else {
                path.strip_suffix("/Cargo.toml").map(str::to_owned)
            }
        })
        .collect();
    let mut tables = Tables {
        run: RESOLUTION_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        files,
        symbols: Vec::new(),
        file_base: Vec::with_capacity(files.len()),
        by_name: HashMap::default(),
        by_member: HashMap::default(),
        rust_modules: Vec::with_capacity(files.len()),
        rust_paths: HashMap::default(),
        rust_imports: HashMap::default(),
        crate_vocabulary: HashMap::default(),
        crate_names: HashMap::default(),
        ecma_exports: vec![HashMap::default(); files.len()],
        ecma_default: vec![None; files.len()],
        file_ids: files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.row.path.as_str(), i as u32))
            .collect(),
    };
    for file in files {
        if let Some(name) = &file.cargo_package {
            let dir = file.row.path.strip_suffix("Cargo.toml").unwrap_or("");
            tables
                .crate_names
                .insert(name.clone(), dir.trim_end_matches('/').to_owned());
        }
    }
    let mut rows: Vec<SymbolRow> = Vec::new();
    let mut file_rows: Vec<FileRow> = Vec::with_capacity(files.len());
    for (fid, file) in files.iter().enumerate() {
        let fid = fid as u32;
        let base = tables.symbols.len() as u32;
        tables.file_base.push(base);
        let mut row = file.row.clone();
        let module = match (&file.facts, file.row.lang) {
            (Some(_), Some(Lang::Rust)) => Some(rust_module(&file.row.path, &cargo_dirs)),
            _ => None,
        };
        if let Some(m) = &module
            && let Some(name) = crate_name(&m.crate_key)
        {
            tables
                .crate_names
                .entry(name)
                .or_insert_with(|| m.crate_key.clone());
        }
        if let Some(facts) = &file.facts {
            let ecma = file.row.lang.is_some_and(Lang::is_ecmascript);
            let separator = if ecma { "." } else { "::" };
            let file_prefix = module
                .as_ref()
                .map(|m| m.path.join("::"))
                .unwrap_or_default();
            let mut vocabulary: Vec<u64> = Vec::new();
            for (i, d) in facts.definitions.iter().enumerate() {
                let sid = base + i as u32;
                let name = facts.name(d);
                let container = facts.container(d);
                let modules = facts.modules(d);
                let mut qualified = String::with_capacity(64);
                for part in std::iter::once(file_prefix.as_str())
                    .filter(|p| !p.is_empty())
                    .chain(modules.iter().map(String::as_str))
                    .chain(container)
                    .chain(std::iter::once(name))
                {
                    if !qualified.is_empty() {
                        qualified.push_str(separator);
                    }
                    qualified.push_str(part);
                }
                if let Some(m) = &module {
                    tables
                        .rust_paths
                        .entry(rust_key_joined(&m.crate_key, &qualified))
                        .or_default()
                        .push(sid);
                    vocabulary.push(name_hash(name));
                }
                if ecma && d.parent == NONE && container.is_none() && modules.is_empty() {
                    tables.ecma_exports[fid as usize]
                        .entry(name.to_owned())
                        .or_default()
                        .push(sid);
                    if d.default_export {
                        tables.ecma_default[fid as usize] = Some(sid);
                    }
                }
                match tables.by_name.get_mut(name) {
                    Some(entry) => entry.1.push(sid),
                    None => {
                        tables.by_name.insert(name.to_owned(), (0, vec![sid]));
                    }
                }
                if let Some(container) = container {
                    tables
                        .by_member
                        .entry(member_key(container, name))
                        .or_default()
                        .push(sid);
                }
                tables.symbols.push(Symbol {
                    name: name.to_owned(),
                    kind: d.kind,
                    ecma,
                });
                // Name ids are assigned once every name is known (below).
                rows.push(facts.symbol_row(d, 0, fid, base, qualified));
            }
            if let Some(name) = &facts.default_export_name
                && tables.ecma_default[fid as usize].is_none()
            {
                tables.ecma_default[fid as usize] = tables.ecma_exports[fid as usize]
                    .get(name)
                    .and_then(|s| s.first().copied());
            }
            if let Some(m) = &module {
                for import in &facts.imports {
                    let ImportTarget::Path(target) = &import.target else {
                        continue;
                    };
                    let mut path = m.path.clone();
                    path.extend(import.modules.iter().cloned());
                    let scope = tables
                        .rust_imports
                        .entry(rust_key(&m.crate_key, &path))
                        .or_default();
                    if import.local == "*" {
                        scope.globs.push(target.clone());
                    } else {
                        vocabulary.push(name_hash(&import.local));
                        scope
                            .named
                            .entry(import.local.clone())
                            .or_default()
                            .push(target.clone());
                    }
                }
            }
            if let Some(m) = &module {
                tables
                    .crate_vocabulary
                    .entry(m.crate_key.clone())
                    .or_default()
                    .extend(vocabulary);
            }
        }
        row.symbols = (base, tables.symbols.len() as u32);
        file_rows.push(row);
        tables.rust_modules.push(module);
    }

    let mut names: Vec<String> = tables.by_name.keys().cloned().collect();
    names.sort_unstable();
    for (i, name) in names.iter().enumerate() {
        if let Some(entry) = tables.by_name.get_mut(name) {
            entry.0 = i as u32;
        }
    }
    for (row, symbol) in rows.iter_mut().zip(&tables.symbols) {
        row.name = tables.by_name.get(symbol.name.as_str()).map_or(0, |e| e.0);
    }
    let phase = std::time::Instant::now();
    trace_phase("tables built", started);
    let (per_file, memos): (Vec<Vec<RefRow>>, Vec<FileMemo>) = (0..files.len() as u32)
        .into_par_iter()
        .map(|fid| tables.resolve_file(fid))
        .unzip();
    trace_phase("references resolved", phase);
    let phase = std::time::Instant::now();
    let mut refs: Vec<RefRow> = per_file.into_iter().flatten().collect();
    refs.par_sort_unstable_by_key(|r| (r.name, r.file, r.line, r.column));
    refs.dedup_by_key(|r| (r.name, r.file, r.line, r.column));
    trace_phase("references sorted", phase);
    // Freeing a few million small allocations takes half a second on a large tree: let
    // it overlap the store write (only the borrowed fields stay behind).
    let owned = (
        tables.symbols,
        tables.by_name,
        tables.by_member,
        tables.rust_modules,
        tables.rust_paths,
        tables.rust_imports,
        tables.crate_vocabulary,
        tables.ecma_exports,
    );
    std::thread::spawn(move || drop(owned));
    let data = StoreData {
        names,
        files: file_rows,
        symbols: rows,
        refs,
        meta,
    };
    (data, memos)
}

fn member_key(container: &str, name: &str) -> String {
    format!("{container}::{name}")
}

impl Tables<'_> {
    fn members(&self, container: &str, name: &str) -> &[u32] {
        self.by_member
            .get(&member_key(container, name))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// One file's reference rows, and the memo that can redo them without these tables.
    fn resolve_file(&self, fid: u32) -> (Vec<RefRow>, FileMemo) {
        let file = &self.files[fid as usize];
        let mut memo = FileMemo::default();
        let Some(facts) = &file.facts else {
            return (Vec::new(), memo);
        };
        let ecma = file.row.lang.is_some_and(Lang::is_ecmascript);
        // The same use in the same context resolves the same way: remember outcomes by
        // (name, qualifier, kind, receiver, enclosing container and modules).
        let mut contexts: HashMap<(u32, u32), u32> = HashMap::default();
        let context_of: Vec<u32> = facts
            .definitions
            .iter()
            .map(|d| {
                let next = contexts.len() as u32;
                *contexts.entry((d.modules, d.container)).or_insert(next)
            })
            .collect();
        let mut outcomes: HashMap<(u32, u32, RefKind, bool, u32), Outcome> = HashMap::default();
        let use_outcome = |r: &LocalRef| {
            let context = context_of
                .get(r.enclosing as usize)
                .copied()
                .unwrap_or(NONE);
            let key = (r.name, r.qualifier, r.kind, r.receiver, context);
            if let Some(&outcome) = outcomes.get(&key) {
                return outcome;
            }
            let name = facts.string(r.name);
            let outcome = match self.by_name.get(name) {
                None => Outcome::Drop,
                Some((_, candidates)) => {
                    let reference = Use {
                        fid,
                        facts,
                        name,
                        r,
                        qualifier: (r.qualifier != NONE).then(|| facts.string(r.qualifier)),
                        enclosing: (r.enclosing != NONE)
                            .then(|| &facts.definitions[r.enclosing as usize]),
                        candidates,
                    };
                    if ecma {
                        self.resolve_ecma(&reference)
                    } else {
                        self.resolve_rust(&reference)
                    }
                }
            };
            outcomes.insert(key, outcome);
            memo.uses.push((use_key(facts, r), outcome));
            outcome
        };
        let mut imports = Vec::with_capacity(facts.imports.len());
        let import_outcome = |import: &Import, name: &str| {
            let outcome = if !self.by_name.contains_key(name) {
                Outcome::Drop
            } else {
                match self.import_targets(fid, import) {
                    Some(targets) if !targets.is_empty() => Outcome::Resolved(targets[0]),
                    Some(_) => Outcome::Heuristic,
                    None => Outcome::Drop,
                }
            };
            imports.push(outcome);
            outcome
        };
        let rows = emit_refs(
            facts,
            fid,
            self.file_base[fid as usize],
            use_outcome,
            import_outcome,
            &|sid| {
                self.by_name
                    .get(&self.symbols[sid as usize].name)
                    .map(|e| e.0)
            },
            &|name| self.by_name.get(name).map(|e| e.0),
        );
        memo.imports = imports;
        (rows, memo)
    }

    /// Name matching among compatible definitions of the same language family.
    fn heuristic(
        &self,
        candidates: &[u32],
        ecma: bool,
        accept: impl Fn(&Symbol) -> bool,
    ) -> Outcome {
        if candidates
            .iter()
            .any(|&s| self.symbols[s as usize].ecma == ecma && accept(&self.symbols[s as usize]))
        {
            Outcome::Heuristic
        } else {
            Outcome::Drop
        }
    }

    fn first_compatible(&self, sids: &[u32], kind: RefKind) -> Option<u32> {
        sids.iter()
            .copied()
            .find(|&s| kind.can_refer_to(self.symbols[s as usize].kind))
            .or_else(|| sids.first().copied())
    }

    /// What an import refers to: `Some(symbols)` when it names something in the repository
    /// (empty when that could not be pinned down), `None` when it leaves the repository.
    fn import_targets(&self, fid: u32, import: &Import) -> Option<Vec<u32>> {
        match &import.target {
            ImportTarget::Path(path) => {
                let module = self.rust_modules[fid as usize].as_ref()?;
                let mut context = module.path.clone();
                context.extend(import.modules.iter().cloned());
                self.resolve_rust_use(&module.crate_key, &context, path, &mut Chase::default())
            }
            ImportTarget::Module { source, imported } => {
                let target = self.ecma_module(fid, source)?;
                match imported {
                    Some(name) => Some(self.ecma_export(target, name, &mut Chase::default())),
                    None => Some(Vec::new()),
                }
            }
        }
    }

    // ------------------------------------------------------------------------ Rust

    /// Absolute candidates for a path written in module `context` of crate `crate_key`.
    /// `None` means it names something outside the repository.
    fn rust_absolute(
        &self,
        crate_key: &str,
        context: &[String],
        path: &[String],
    ) -> Option<Vec<(String, Vec<String>)>> {
        let first = path.first()?.as_str();
        let rest = || path[1..].to_vec();
        match first {
            "crate" | "$crate" => Some(vec![(crate_key.to_owned(), rest())]),
            "self" => {
                let mut p = context.to_vec();
                p.extend(rest());
                Some(vec![(crate_key.to_owned(), p)])
            }
            "super" => {
                let supers = path.iter().take_while(|s| *s == "super").count();
                let mut p = context[..context.len().saturating_sub(supers)].to_vec();
                p.extend(path[supers..].iter().cloned());
                Some(vec![(crate_key.to_owned(), p)])
            }
            "std" | "core" | "alloc" => None,
            _ => {
                // A crate name is the likeliest reading of `name::...` (2018 paths), then a
                // name relative to the current module, then one from the crate root.
                let mut candidates = Vec::new();
                if let Some(other) = self.crate_names.get(first) {
                    candidates.push((other.clone(), rest()));
                }
                // `first` must name something here: an item or module of the current module
                // or of the crate root, or a name imported into one of them. Otherwise the
                // path leaves the repository (an external crate).
                let names_something = |module: &[String]| {
                    let mut item = module.to_vec();
                    item.push(first.to_owned());
                    self.rust_paths.contains_key(&rust_key(crate_key, &item))
                        || self.rust_imports.contains_key(&rust_key(crate_key, &item))
                        || self
                            .rust_imports
                            .get(&rust_key(crate_key, module))
                            .is_some_and(|scope| scope.named.contains_key(first))
                };
                if names_something(context) {
                    let mut relative = context.to_vec();
                    relative.extend(path.iter().cloned());
                    candidates.push((crate_key.to_owned(), relative));
                }
                if !context.is_empty() && names_something(&[]) {
                    candidates.push((crate_key.to_owned(), path.to_vec()));
                }
                (!candidates.is_empty()).then_some(candidates)
            }
        }
    }

    /// Resolves a `use` path (or a path expression) to symbols, following re-exports.
    fn resolve_rust_use(
        &self,
        crate_key: &str,
        context: &[String],
        path: &[String],
        chase: &mut Chase,
    ) -> Option<Vec<u32>> {
        let candidates = self.rust_absolute(crate_key, context, path)?;
        // Each reading gets the same budget; the visited set stays shared against cycles.
        let budget_start = chase.steps;
        for (krate, absolute) in &candidates {
            chase.steps = budget_start;
            let found = self.resolve_rust_absolute(krate, absolute, chase);
            if !found.is_empty() {
                return Some(found);
            }
        }
        Some(Vec::new())
    }

    fn resolve_rust_absolute(
        &self,
        crate_key: &str,
        path: &[String],
        chase: &mut Chase,
    ) -> Vec<u32> {
        let key = rust_key(crate_key, path);
        if let Some(found) = self.rust_paths.get(&key) {
            return found.clone();
        }
        if path.is_empty() {
            return Vec::new();
        }
        // Chase results are remembered per thread: the same paths are looked up over and
        // over in a crate, and most of them lead nowhere. (A chase cut short by its budget
        // may remember a miss; that costs a resolved reference, never a wrong one.)
        if let Some(found) = CHASE_CACHE.with(|c| {
            let cache = c.borrow();
            (cache.0 == self.run)
                .then(|| cache.1.get(&key).cloned())
                .flatten()
        }) {
            return found;
        }
        if !chase.visit(key) {
            return Vec::new();
        }
        let found = self.chase_reexports(crate_key, path, chase);
        CHASE_CACHE.with(|c| {
            let mut cache = c.borrow_mut();
            if cache.0 != self.run || cache.1.len() > 200_000 {
                cache.1.clear();
                cache.0 = self.run;
            }
            cache.1.insert(key, found.clone());
        });
        found
    }

    fn chase_reexports(&self, crate_key: &str, path: &[String], chase: &mut Chase) -> Vec<u32> {
        // Re-exports: `pub use` (or any `use`) inside a module on the path.
        for split in (0..path.len()).rev() {
            let module = &path[..split];
            let Some(scope) = self.rust_imports.get(&rust_key(crate_key, module)) else {
                continue;
            };
            let named = scope
                .named
                .get(&path[split])
                .into_iter()
                .flatten()
                .map(|target| (target, split + 1));
            let globs = scope.globs.iter().map(|target| (target, split));
            for (target, rest) in named.chain(globs) {
                let mut through = target.clone();
                through.extend(path[rest..].iter().cloned());
                if through.as_slice() == path {
                    continue;
                }
                if let Some(found) = self.resolve_rust_use(crate_key, module, &through, chase)
                    && !found.is_empty()
                {
                    return found;
                }
            }
        }
        Vec::new()
    }

    fn enclosing_type_path(
        &self,
        fid: u32,
        facts: &CompactFacts,
        enclosing: Option<&Def>,
    ) -> Option<(String, Vec<String>)> {
        let module = self.rust_modules[fid as usize].as_ref()?;
        let definition = enclosing?;
        let container = facts.container(definition)?;
        let mut path = module.path.clone();
        path.extend(facts.modules(definition).iter().cloned());
        path.push(container.to_owned());
        Some((module.crate_key.clone(), path))
    }

    fn resolve_rust(&self, reference: &Use<'_>) -> Outcome {
        let Use {
            fid,
            facts,
            name,
            r,
            qualifier,
            enclosing,
            candidates,
        } = *reference;
        let Some(module) = self.rust_modules[fid as usize].as_ref() else {
            return Outcome::Drop;
        };
        let kind = r.kind;
        let compatible = |s: &Symbol| kind.can_refer_to(s.kind);
        let resolved = |found: &[u32]| self.first_compatible(found, kind).map(Outcome::Resolved);

        if r.receiver {
            let Some(q) = qualifier else {
                return Outcome::Drop;
            };
            if q == "self"
                && let Some((krate, mut path)) = self.enclosing_type_path(fid, facts, enclosing)
            {
                path.push(name.to_owned());
                if let Some(outcome) =
                    resolved(&self.resolve_rust_absolute(&krate, &path, &mut Chase::default()))
                {
                    return outcome;
                }
                let container = enclosing.and_then(|d| facts.container(d)).unwrap_or("");
                let same_type: Vec<u32> = self
                    .members(container, name)
                    .iter()
                    .copied()
                    .filter(|&s| !self.symbols[s as usize].ecma)
                    .collect();
                if same_type.len() == 1 {
                    return Outcome::Resolved(same_type[0]);
                }
            }
            return self.heuristic(candidates, false, |s| member_may_be(kind, s.kind));
        }

        let mut context = module.path.clone();
        if let Some(d) = enclosing {
            context.extend(facts.modules(d).iter().cloned());
        }

        if let Some(q) = qualifier {
            if q == EXPRESSION_QUALIFIER {
                return self.heuristic(candidates, false, compatible);
            }
            let mut segments: Vec<String> = q
                .split("::")
                .map(|s| s.split('<').next().unwrap_or("").trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect();
            if segments.first().is_some_and(|s| s == "Self") {
                match self.enclosing_type_path(fid, facts, enclosing) {
                    Some((_, path)) => {
                        segments.splice(0..1, ["crate".to_owned()].into_iter().chain(path));
                    }
                    None => return self.heuristic(candidates, false, compatible),
                }
            } else if let Some(import) = segments
                .first()
                .and_then(|first| facts.imports_named(first).next())
                && let ImportTarget::Path(target) = &import.target
            {
                let mut t = target.clone();
                t.extend(segments[1..].iter().cloned());
                segments = t;
            }
            let mut full = segments.clone();
            full.push(name.to_owned());
            match self.resolve_rust_use(&module.crate_key, &context, &full, &mut Chase::default()) {
                Some(found) => {
                    if let Some(outcome) = resolved(&found) {
                        return outcome;
                    }
                }
                None => return Outcome::Drop,
            }
            // `Type::method` where the impl lives in another module than the type.
            let type_name = segments.last().cloned().unwrap_or_default();
            let methods: Vec<u32> = self
                .members(&type_name, name)
                .iter()
                .copied()
                .filter(|&s| {
                    let sym = &self.symbols[s as usize];
                    !sym.ecma && compatible(sym)
                })
                .collect();
            let type_known = self.by_name.contains_key(&type_name);
            return match methods.as_slice() {
                [only] => Outcome::Resolved(*only),
                [] if !type_known => Outcome::Drop,
                [] => self.heuristic(candidates, false, compatible),
                _ => Outcome::Heuristic,
            };
        }

        // Unqualified: imports first, then this file, then glob imports, then by name.
        for import in facts.imports_named(name) {
            let ImportTarget::Path(path) = &import.target else {
                continue;
            };
            let mut import_context = module.path.clone();
            import_context.extend(import.modules.iter().cloned());
            match self.resolve_rust_use(
                &module.crate_key,
                &import_context,
                path,
                &mut Chase::default(),
            ) {
                None => return Outcome::Drop,
                Some(found) => {
                    if let Some(outcome) = resolved(&found) {
                        return outcome;
                    }
                }
            }
        }
        let base = self.file_base[fid as usize];
        // Prefer definitions in the same inline module as the use (top level: none).
        let same_modules = enclosing.map_or_else(
            || {
                facts
                    .module_paths
                    .iter()
                    .position(Vec::is_empty)
                    .map_or(NONE, |i| i as u32)
            },
            |d| d.modules,
        );
        let mut local: Vec<u32> = facts
            .definitions_named(r.name)
            .filter(|(_, d)| {
                kind.can_refer_to(d.kind)
                    && !matches!(d.kind, SymbolKind::Method | SymbolKind::Field)
                    && (d.kind != SymbolKind::EnumVariant || kind == RefKind::Import)
            })
            .map(|(i, _)| base + i)
            .collect();
        local.sort_by_key(|&s| {
            facts
                .definitions
                .get((s - base) as usize)
                .is_none_or(|d| d.modules != same_modules)
        });
        if let Some(&first) = local.first() {
            return Outcome::Resolved(first);
        }
        for import in facts.imports_named("*") {
            let ImportTarget::Path(path) = &import.target else {
                continue;
            };
            let mut full = path.clone();
            full.push(name.to_owned());
            if let Some(found) =
                self.resolve_rust_use(&module.crate_key, &context, &full, &mut Chase::default())
                && let Some(outcome) = resolved(&found)
            {
                return outcome;
            }
        }
        self.heuristic(candidates, false, |s| {
            compatible(s) && !matches!(s.kind, SymbolKind::Method | SymbolKind::Field)
        })
    }

    // ---------------------------------------------------------- JavaScript family

    /// The file a relative module specifier points to; `None` for packages.
    fn ecma_module(&self, fid: u32, source: &str) -> Option<u32> {
        if !(source.starts_with("./")
            || source.starts_with("../")
            || source == "."
            || source == "..")
        {
            return None;
        }
        let from = self.files[fid as usize].row.path.as_str();
        let mut parts: Vec<&str> = from.split('/').collect();
        parts.pop();
        for piece in source.split('/') {
            match piece {
                "." | "" => {}
                ".." => {
                    parts.pop()?;
                }
                other => parts.push(other),
            }
        }
        let base = parts.join("/");
        let stem = [".js", ".jsx", ".mjs", ".cjs"]
            .iter()
            .find_map(|ext| base.strip_suffix(ext))
            .unwrap_or(&base);
        const EXTENSIONS: [&str; 9] = [
            ".ts", ".tsx", ".d.ts", ".js", ".jsx", ".mjs", ".cjs", ".mts", ".cts",
        ];
        let mut tries = vec![base.clone()];
        for ext in EXTENSIONS {
            tries.push(format!("{stem}{ext}"));
        }
        for ext in EXTENSIONS {
            tries.push(format!("{base}/index{ext}"));
        }
        tries
            .iter()
            .find_map(|p| self.file_ids.get(p.as_str()).copied())
            .filter(|&id| self.files[id as usize].facts.is_some())
    }

    /// Symbols that module `fid` exports as `name`, following re-exports.
    fn ecma_export(&self, fid: u32, name: &str, chase: &mut Chase) -> Vec<u32> {
        let mut key = PathHasher::new();
        key.write(&fid.to_string());
        key.write(":");
        key.write(name);
        if !chase.visit(key.0) {
            return Vec::new();
        }
        if name == "default" {
            return self.ecma_default[fid as usize].into_iter().collect();
        }
        if let Some(found) = self.ecma_exports[fid as usize].get(name) {
            return found.clone();
        }
        let Some(facts) = &self.files[fid as usize].facts else {
            return Vec::new();
        };
        for import in &facts.imports {
            let ImportTarget::Module { source, imported } = &import.target else {
                continue;
            };
            if !import.reexport {
                continue;
            }
            let wanted = if import.local == name {
                imported.clone()
            } else if import.local == "*" {
                Some(name.to_owned())
            } else {
                continue;
            };
            let (Some(target), Some(wanted)) = (self.ecma_module(fid, source), wanted) else {
                continue;
            };
            let found = self.ecma_export(target, &wanted, chase);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    fn resolve_ecma(&self, reference: &Use<'_>) -> Outcome {
        let Use {
            fid,
            facts,
            name,
            r,
            qualifier,
            enclosing,
            candidates,
        } = *reference;
        let kind = r.kind;
        let compatible = |s: &Symbol| kind.can_refer_to(s.kind);
        let base = self.file_base[fid as usize];
        if let Some(q) = qualifier {
            if r.receiver && q == "this" {
                let container = enclosing.map_or(NONE, |d| d.container);
                if let Some((i, _)) = facts
                    .definitions_named(r.name)
                    .find(|(_, d)| container != NONE && d.container == container)
                {
                    return Outcome::Resolved(base + i);
                }
            } else if let Some(import) = facts.imports_named(q).next() {
                match self.import_targets(fid, import) {
                    None => return Outcome::Drop,
                    Some(targets) if targets.is_empty() => {
                        // `ns.name` through `import * as ns`.
                        if let ImportTarget::Module {
                            source,
                            imported: None,
                        } = &import.target
                            && let Some(module) = self.ecma_module(fid, source)
                            && let Some(outcome) = self
                                .first_compatible(
                                    &self.ecma_export(module, name, &mut Chase::default()),
                                    kind,
                                )
                                .map(Outcome::Resolved)
                        {
                            return outcome;
                        }
                    }
                    Some(targets) => {
                        let class = &self.symbols[targets[0] as usize].name;
                        if let Some(&m) = self.members(class, name).first() {
                            return Outcome::Resolved(m);
                        }
                    }
                }
            } else if let Some((i, _)) = facts
                .definitions_named(r.name)
                .find(|(_, d)| facts.container(d) == Some(q) && compatible_kind(kind, d.kind))
            {
                return Outcome::Resolved(base + i);
            }
            return self.heuristic(candidates, true, |s| member_may_be(kind, s.kind));
        }
        for import in facts.imports_named(name) {
            match self.import_targets(fid, import) {
                None => return Outcome::Drop,
                Some(found) => {
                    if let Some(s) = self.first_compatible(&found, kind) {
                        return Outcome::Resolved(s);
                    }
                }
            }
        }
        if let Some((i, _)) = facts.definitions_named(r.name).find(|(_, d)| {
            kind.can_refer_to(d.kind) && !matches!(d.kind, SymbolKind::Method | SymbolKind::Field)
        }) {
            return Outcome::Resolved(base + i);
        }
        self.heuristic(candidates, true, |s| {
            compatible(s) && !matches!(s.kind, SymbolKind::Method | SymbolKind::Field)
        })
    }
}

/// What a member use (`x.name`, `x.name()`) of unknown receiver type may refer to.
pub(crate) fn member_may_be(kind: RefKind, symbol: SymbolKind) -> bool {
    match kind {
        RefKind::Call => symbol == SymbolKind::Method,
        _ => matches!(symbol, SymbolKind::Field | SymbolKind::Method),
    }
}

fn compatible_kind(kind: RefKind, symbol: SymbolKind) -> bool {
    kind.can_refer_to(symbol) || kind == RefKind::Field
}

#[cfg(test)]
mod tests {
    use super::*;

    fn module(path: &str, cargo: &[&str]) -> (String, String) {
        let dirs: HashSet<String> = cargo.iter().map(|s| s.to_string()).collect();
        let m = rust_module(path, &dirs);
        (m.crate_key, m.path.join("::"))
    }

    #[test]
    fn rust_module_paths_follow_cargo_layout() {
        assert_eq!(module("src/lib.rs", &[""]), ("".into(), "".into()));
        assert_eq!(module("src/a/b.rs", &[""]), ("".into(), "a::b".into()));
        assert_eq!(module("src/a/mod.rs", &[""]), ("".into(), "a".into()));
        assert_eq!(
            module("crates/x-y/src/q.rs", &["", "crates/x-y"]),
            ("crates/x-y".into(), "q".into())
        );
        assert_eq!(
            module("crates/x/tests/t.rs", &["crates/x"]),
            ("crates/x#tests/t.rs".into(), "".into())
        );
        assert_eq!(module("lib/util.rs", &[]), ("".into(), "lib::util".into()));
        assert_eq!(crate_name("crates/x-y").as_deref(), Some("x_y"));
        assert_eq!(
            cargo_package_name("[workspace]\nname = \"no\"\n[package]\nname = \"my-crate\"\n")
                .as_deref(),
            Some("my_crate")
        );
        assert_eq!(cargo_package_name("[dependencies]\nname = 1"), None);
    }
}
