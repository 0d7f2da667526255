//! The Rust resolver family: module paths from the Cargo layout (`src/a/b.rs` → `a::b`,
//! crate roots for tests, examples and binaries, crate names from `Cargo.toml`), `use`
//! paths with re-export chasing (bounded; cycles cut by the path being followed; parts
//! remembered per thread and reused only where they would be walked alike), glob imports,
//! `self`/`Self`/`super`/`crate` paths, and what the standard library's types say about
//! their members (for the receiver-type pass).

use std::collections::HashSet;

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{EXPRESSION_QUALIFIER, Family, Import, ImportTarget, RefKind, SymbolKind};

use super::types::{Named, OutsideMember, OutsideStep, Spec, Step};
use super::{
    Chase, ChaseRecord, CompactFacts, Def, FamilyResolver, Outcome, ParsedFile, PathHasher, Place,
    Tables, Use, member_may_be,
};

/// A path's chase as walked once: its symbols, and what decided them.
struct RememberedChase {
    found: Box<[u32]>,
    record: ChaseRecord,
}

/// How many differently-walked chases of one path are remembered (the path followed to
/// it and the steps left decide its walk; a few of those recur).
const CHASES_PER_PATH: usize = 4;

thread_local! {
    /// (resolution run, path key) → its remembered chases; entries of other runs are
    /// ignored.
    static CHASE_CACHE: std::cell::RefCell<(u64, HashMap<u64, Vec<RememberedChase>>)> =
        std::cell::RefCell::new((0, HashMap::default()));
}

/// Drops this thread's remembered chases.
pub(crate) fn forget_chases() {
    CHASE_CACHE.with(|c| *c.borrow_mut() = (0, HashMap::default()));
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

/// What a holder keeps of the Rust tables for the next resolution over the same files:
/// each file's module and the modules' scopes.
#[derive(Default)]
pub(super) struct KeptModules {
    scopes: ModuleScopes,
    modules: Vec<Option<RustModule>>,
    /// [`paths_hash`] of the files the modules were made for.
    paths_hash: u64,
}

/// A hash of every file's path, in order.
fn paths_hash(files: &[ParsedFile]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for file in files {
        hasher.update(file.row.path.as_bytes());
        hasher.update(&[0]);
    }
    hasher.digest()
}

/// The directories that hold a `Cargo.toml` ("" for the root).
fn cargo_dirs(files: &[ParsedFile]) -> HashSet<String> {
    files
        .iter()
        .filter_map(|f| {
            let path = f.row.path.as_str();
            if path == "Cargo.toml" {
                Some(String::new())
            } else {
                path.strip_suffix("/Cargo.toml").map(str::to_owned)
            }
        })
        .collect()
}

/// A parsed Rust file's module (`None` for other files and files without facts).
fn file_module(file: &ParsedFile, cargo_dirs: &HashSet<String>) -> Option<RustModule> {
    (file.facts.is_some() && file.family() == Some(Family::Rust))
        .then(|| rust_module(&file.row.path, cargo_dirs))
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

/// One `use` of the tree: the module it brings a name into (its [`rust_key`]), its local
/// name's [`local_key`] (`*` for a glob), and where it is written, the file and its
/// index among the file's imports (the name and the path are read from there). Ordered
/// by those fields: by module and name, then in file and source order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct ScopeImport {
    module: u64,
    local_key: u64,
    file: u32,
    import: u32,
}

/// The key a `use`'s local name is sorted and found by.
fn local_key(local: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(local.as_bytes())
}

/// What the `use` declarations of each module bring into scope: every `use` of the tree
/// in one array sorted by (module, local name's key), in file and source order within
/// each, with each module's run found by a map. Made in parallel from every Rust file (a
/// map per module of names to copied paths, filled file by file, was a serial tenth of
/// an interface patch on `rustreg`, and a tree of small allocations to free). It holds
/// no borrow of the files, so a process that keeps tables between updates keeps it too
/// and brings it up to date for the files whose `use`s changed: made again each time,
/// it took 37–47 ms of each watched edit on `rustreg` (in an hour when the edit's tables
/// took 128–220 ms).
#[derive(Debug, Default, PartialEq)]
pub(super) struct ModuleScopes {
    imports: Vec<ScopeImport>,
    /// Module key → its run of `imports`.
    runs: HashMap<u64, (u32, u32)>,
}

impl ModuleScopes {
    /// The scopes of every Rust file of `files`, `modules[fid]` its module.
    fn new(files: &[ParsedFile], modules: &[Option<RustModule>]) -> Self {
        let mut imports: Vec<ScopeImport> = (0..files.len() as u32)
            .into_par_iter()
            .flat_map_iter(|fid| file_scope_imports(files, modules, fid))
            .collect();
        imports.par_sort_unstable();
        Self::of_sorted(imports)
    }

    /// These scopes, made from the same files, brought up to date for the files
    /// `changed` (ascending), whose `use`s may differ now: the others' stay where they
    /// are, and the changed files' are merged in.
    fn updated(
        self,
        files: &[ParsedFile],
        modules: &[Option<RustModule>],
        changed: &[u32],
    ) -> Self {
        let mut kept = self.imports;
        kept.retain(|i| changed.binary_search(&i.file).is_err());
        let mut added: Vec<ScopeImport> = changed
            .iter()
            .flat_map(|&fid| file_scope_imports(files, modules, fid))
            .collect();
        added.sort_unstable();
        let mut imports = Vec::with_capacity(kept.len() + added.len());
        let (mut kept, mut added) = (kept.into_iter().peekable(), added.into_iter().peekable());
        while let (Some(k), Some(a)) = (kept.peek(), added.peek()) {
            let next = if k <= a { kept.next() } else { added.next() };
            imports.extend(next);
        }
        imports.extend(kept);
        imports.extend(added);
        Self::of_sorted(imports)
    }

    fn of_sorted(imports: Vec<ScopeImport>) -> Self {
        let mut runs = HashMap::default();
        let mut start = 0u32;
        for run in imports.chunk_by(|a, b| a.module == b.module) {
            let end = start + run.len() as u32;
            runs.insert(run[0].module, (start, end));
            start = end;
        }
        ModuleScopes { imports, runs }
    }

    /// The `use`s of module `module`, if it has any.
    fn of(&self, module: u64) -> Option<&[ScopeImport]> {
        let &(start, end) = self.runs.get(&module)?;
        self.imports.get(start as usize..end as usize)
    }

    fn has(&self, module: u64) -> bool {
        self.runs.contains_key(&module)
    }

    /// The paths `name` stands for in module `module`, in file and source order.
    fn named<'s, 'f: 's>(
        &'s self,
        files: &'f [ParsedFile],
        module: u64,
        name: &'s str,
    ) -> impl Iterator<Item = &'f [String]> + 's {
        let local = if name == GLOB { None } else { Some(name) };
        self.with_local(files, module, local)
    }

    /// The paths of module `module`'s `use path::*`, in file and source order.
    fn globs<'s, 'f: 's>(
        &'s self,
        files: &'f [ParsedFile],
        module: u64,
    ) -> impl Iterator<Item = &'f [String]> + 's {
        self.with_local(files, module, Some(GLOB))
    }

    /// The paths of module `module`'s `use`s whose local name is `local` (none for `None`).
    fn with_local<'s, 'f: 's>(
        &'s self,
        files: &'f [ParsedFile],
        module: u64,
        local: Option<&'s str>,
    ) -> impl Iterator<Item = &'f [String]> + 's {
        let run = local.and_then(|_| self.of(module)).unwrap_or(&[]);
        let local = local.unwrap_or(GLOB);
        let key = local_key(local);
        let first = run.partition_point(|i| i.local_key < key);
        run[first..]
            .iter()
            .take_while(move |i| i.local_key == key)
            .filter_map(move |i| {
                let facts = files.get(i.file as usize)?.facts.as_ref()?;
                let import = facts.imports.get(i.import as usize)?;
                match &import.target {
                    // Two names of one key: each keeps its own.
                    ImportTarget::Path(target) if import.local == local => Some(&target[..]),
                    _ => None,
                }
            })
    }
}

/// The `use`s of file `fid` for [`ModuleScopes`], in source order (none for a file
/// that is not Rust).
fn file_scope_imports<'f>(
    files: &'f [ParsedFile],
    modules: &'f [Option<RustModule>],
    fid: u32,
) -> impl Iterator<Item = ScopeImport> + 'f {
    let facts = files.get(fid as usize).and_then(|f| f.facts.as_ref());
    let module = modules.get(fid as usize).and_then(Option::as_ref);
    let found = facts.zip(module);
    found.into_iter().flat_map(move |(facts, module)| {
        facts
            .imports
            .iter()
            .enumerate()
            .filter(|(_, import)| matches!(import.target, ImportTarget::Path(_)))
            .map(move |(i, import)| ScopeImport {
                module: rust_key_of(
                    &module.crate_key,
                    module
                        .path
                        .iter()
                        .chain(&import.modules)
                        .map(String::as_str),
                ),
                local_key: local_key(&import.local),
                file: fid,
                import: i as u32,
            })
    })
}

/// The local name of a glob import (`use path::*`).
const GLOB: &str = "*";

/// The lookup key of `crate_key|a::b::c`, as a 64-bit hash: the path tables hold a million
/// entries on large corpora, and string keys cost more memory than the rest of
/// resolution. (A collision would need two of those million paths to share 64 bits.)
fn rust_key<S: AsRef<str>>(crate_key: &str, path: &[S]) -> u64 {
    rust_key_of(crate_key, path.iter().map(AsRef::as_ref))
}

/// [`rust_key`] of a path given segment by segment (no vector built to look it up).
fn rust_key_of<'s>(crate_key: &str, segments: impl Iterator<Item = &'s str>) -> u64 {
    let mut hasher = PathHasher::new();
    hasher.write(crate_key);
    hasher.write("|");
    for (i, segment) in segments.enumerate() {
        if i > 0 {
            hasher.write("::");
        }
        hasher.write(segment);
    }
    hasher.finish()
}

/// Path keys of one file's definitions (see [`RustTables::definition_keys`]): the crate
/// and the current scope's prefix stay in the buffer, each name is appended and cut off
/// (the bytes hashed are those [`rust_key`] hashes for the joined path).
pub(super) struct DefinitionKeys {
    hasher: PathHasher,
    crate_len: usize,
    scope_len: usize,
}

impl DefinitionKeys {
    fn new(crate_key: &str) -> Self {
        let mut hasher = PathHasher::new();
        hasher.write(crate_key);
        hasher.write("|");
        let crate_len = hasher.0.len();
        DefinitionKeys {
            hasher,
            crate_len,
            scope_len: crate_len,
        }
    }

    /// The definitions that follow have qualified names `prefix` + their name.
    pub fn enter(&mut self, prefix: &str) {
        self.hasher.0.truncate(self.crate_len);
        self.hasher.write(prefix);
        self.scope_len = self.hasher.0.len();
    }

    /// The path key of the definition `name` in the current scope.
    pub fn key(&mut self, name: &str) -> u64 {
        self.hasher.0.truncate(self.scope_len);
        self.hasher.write(name);
        self.hasher.finish()
    }
}

/// The symbols of one path, ascending: nearly always one, kept without an allocation of
/// its own (a million paths on a large tree).
pub(super) enum PathSymbols {
    One(u32),
    Many(Vec<u32>),
}

impl PathSymbols {
    /// Adds `sid`, larger than every symbol here (definitions are added in id order).
    fn push(&mut self, sid: u32) {
        match self {
            PathSymbols::One(first) => *self = PathSymbols::Many(vec![*first, sid]),
            PathSymbols::Many(list) => list.push(sid),
        }
    }

    /// Adds `sid` where it sorts.
    fn insert(&mut self, sid: u32) {
        match self {
            PathSymbols::One(first) => {
                *self = PathSymbols::Many(if sid < *first {
                    vec![sid, *first]
                } else {
                    vec![*first, sid]
                })
            }
            PathSymbols::Many(list) => list.insert(list.partition_point(|&s| s < sid), sid),
        }
    }

    /// Removes `sid` if it is there; `false` when none is left.
    fn remove(&mut self, sid: u32) -> bool {
        match self {
            PathSymbols::One(only) => *only != sid,
            PathSymbols::Many(list) => {
                list.retain(|&s| s != sid);
                if let [only] = list[..] {
                    *self = PathSymbols::One(only);
                }
                !self.as_slice().is_empty()
            }
        }
    }

    pub(super) fn as_slice(&self) -> &[u32] {
        match self {
            PathSymbols::One(sid) => std::slice::from_ref(sid),
            PathSymbols::Many(list) => list,
        }
    }
}

/// The Rust path table: `crate_key|a::b::Name` → symbols.
type PathTable = HashMap<u64, PathSymbols>;

/// The Rust family's tables.
/// The Rust path table a holder keeps between resolutions, with the key each symbol id is
/// registered under (0 for most that are not), so that a changed file's ids leave it
/// without a pass over every key.
#[derive(Default)]
pub(super) struct KeptPaths {
    table: PathTable,
    key_of: Vec<u64>,
}

pub(super) struct RustTables<'a> {
    files: &'a [ParsedFile],
    /// [`paths_hash`] of `files`: what kept modules are made for.
    paths_hash: u64,
    /// Per file: its crate and module (Rust files only).
    modules: Vec<Option<RustModule>>,
    paths: PathTable,
    /// Each symbol id's path key, when the table was brought up to date from a kept one.
    path_keys: Option<Vec<u64>>,
    /// `crate_key|a::b` → what the `use`s inside that module bring into scope.
    scopes: ModuleScopes,
    /// Crate name (as written in paths) → its crate key.
    crate_names: HashMap<String, String>,
}

impl<'a> RustTables<'a> {
    /// The tables of `files` before any is added, with every module's `use`s: `kept`
    /// scopes, made from the same files, brought up to date for the files named beside
    /// them (ascending: those whose `use`s may have changed since), or made afresh.
    /// `size_paths`: the path table is sized for every Rust definition (not when a kept
    /// one will be adopted).
    pub fn new(
        files: &'a [ParsedFile],
        size_paths: bool,
        kept: Option<(KeptModules, &[u32])>,
    ) -> Self {
        let hash = paths_hash(files);
        let mut crate_names = HashMap::default();
        for file in files {
            if let Some(name) = &file.package_name {
                let dir = file.row.path.strip_suffix("Cargo.toml").unwrap_or("");
                crate_names.insert(name.clone(), dir.trim_end_matches('/').to_owned());
            }
        }
        // Sized once: every Rust definition gets a path, a million or more on a large
        // tree, and a growing map rehashes them all at each doubling.
        let rust_definitions: usize = files
            .iter()
            .filter(|f| size_paths && f.family() == Some(Family::Rust))
            .filter_map(|f| f.facts.as_ref())
            .map(|f| f.definitions.len())
            .sum();
        // Each Rust file's module, made in parallel (`add_file` registers it), or kept:
        // a module is a function of the file's path and of where the `Cargo.toml`s are,
        // so kept ones hold for the same paths (a changed file's is made again, as it
        // may have gained or lost its facts).
        let (modules, scopes) = match kept {
            Some((kept, changed))
                if kept.paths_hash == hash && kept.modules.len() == files.len() =>
            {
                let mut modules = kept.modules;
                if !changed.is_empty() {
                    let cargo_dirs = cargo_dirs(files);
                    for &fid in changed {
                        if let Some(f) = files.get(fid as usize) {
                            modules[fid as usize] = file_module(f, &cargo_dirs);
                        }
                    }
                }
                let scopes = kept.scopes.updated(files, &modules, changed);
                (modules, scopes)
            }
            _ => {
                let cargo_dirs = cargo_dirs(files);
                let modules: Vec<Option<RustModule>> = files
                    .par_iter()
                    .map(|f| file_module(f, &cargo_dirs))
                    .collect();
                let scopes = ModuleScopes::new(files, &modules);
                (modules, scopes)
            }
        };
        Self {
            files,
            paths_hash: hash,
            modules,
            paths: HashMap::with_capacity_and_hasher(rust_definitions, Default::default()),
            path_keys: None,
            scopes,
            crate_names,
        }
    }

    /// Registers a Rust file's module (made by [`Self::new`], with its `use`s); returns
    /// the module path that prefixes its definitions' qualified names.
    pub fn add_file(&mut self, fid: u32) -> String {
        let Some(module) = self.modules.get(fid as usize).and_then(Option::as_ref) else {
            return String::new();
        };
        if let Some(name) = crate_name(&module.crate_key) {
            self.crate_names
                .entry(name)
                .or_insert_with(|| module.crate_key.clone());
        }
        module.path.join("::")
    }

    /// The path keys ([`rust_key`] of the qualified name) of the definitions of file `fid`,
    /// one after the other, each scope's prefix written once; `None` for a file outside
    /// the Cargo layout.
    pub fn definition_keys(&self, fid: u32) -> Option<DefinitionKeys> {
        let module = self.modules.get(fid as usize)?.as_ref()?;
        Some(DefinitionKeys::new(&module.crate_key))
    }

    /// Registers a definition under its path key ([`Self::definition_keys`]); definitions
    /// come in id order.
    pub fn add_path(&mut self, key: u64, sid: u32) {
        match self.paths.entry(key) {
            std::collections::hash_map::Entry::Occupied(mut entry) => entry.get_mut().push(sid),
            std::collections::hash_map::Entry::Vacant(entry) => {
                entry.insert(PathSymbols::One(sid));
            }
        }
    }

    /// Takes up the path table `kept` of an earlier resolution over the same symbol ids:
    /// the symbols of `gone` (id ranges) leave it and the changed files' definitions
    /// `added` (any order) join it. The same table [`Self::add_path`] would make from
    /// every definition now.
    pub fn update_paths(
        &mut self,
        kept: KeptPaths,
        gone: &[std::ops::Range<u32>],
        added: Vec<(u64, u32)>,
    ) {
        let KeptPaths {
            table: mut paths,
            mut key_of,
        } = kept;
        for sid in gone.iter().flat_map(|ids| ids.clone()) {
            let Some(key) = key_of.get_mut(sid as usize) else {
                break;
            };
            // An id no key holds has 0, and removing it from a key changes nothing.
            if let std::collections::hash_map::Entry::Occupied(mut entry) =
                paths.entry(std::mem::take(key))
                && !entry.get_mut().remove(sid)
            {
                entry.remove();
            }
        }
        for (key, sid) in added {
            if let Some(slot) = key_of.get_mut(sid as usize) {
                *slot = key;
            }
            match paths.entry(key) {
                std::collections::hash_map::Entry::Occupied(mut entry) => {
                    entry.get_mut().insert(sid)
                }
                std::collections::hash_map::Entry::Vacant(entry) => {
                    entry.insert(PathSymbols::One(sid));
                }
            }
        }
        self.paths = paths;
        self.path_keys = Some(key_of);
    }

    /// Every (path key, symbol) pair of the path table, by key, each key's symbols in
    /// the order the table holds them (ascending when the table is right).
    #[cfg(debug_assertions)]
    pub fn path_pairs(&self) -> Vec<(u64, u32)> {
        let mut entries: Vec<(u64, &[u32])> = self
            .paths
            .iter()
            .map(|(&key, symbols)| (key, symbols.as_slice()))
            .collect();
        entries.sort_unstable_by_key(|&(key, _)| key);
        entries
            .into_iter()
            .flat_map(|(key, symbols)| symbols.iter().map(move |&sid| (key, sid)))
            .collect()
    }

    /// The path table, taken out for a caller that keeps it for the next resolution,
    /// with the key of each of the ids `0..id_end` (read from the table when it was made
    /// afresh).
    pub fn take_paths(&mut self, id_end: u32) -> KeptPaths {
        let table = std::mem::take(&mut self.paths);
        let key_of = self.path_keys.take().unwrap_or_else(|| {
            let mut key_of = vec![0; id_end as usize];
            for (&key, symbols) in &table {
                for &sid in symbols.as_slice() {
                    if let Some(slot) = key_of.get_mut(sid as usize) {
                        *slot = key;
                    }
                }
            }
            key_of
        });
        KeptPaths { table, key_of }
    }

    /// The files' modules and the module scopes, taken out (for a caller that keeps them
    /// for the next resolution).
    pub fn take_modules(&mut self) -> KeptModules {
        KeptModules {
            scopes: std::mem::take(&mut self.scopes),
            modules: std::mem::take(&mut self.modules),
            paths_hash: self.paths_hash,
        }
    }

    /// Debug builds: the modules and scopes as made from every file (what kept ones must
    /// equal).
    #[cfg(debug_assertions)]
    pub fn modules_are_fresh(&self) -> bool {
        let cargo_dirs = cargo_dirs(self.files);
        let fresh = self.files.iter().map(|f| file_module(f, &cargo_dirs));
        self.modules.iter().cloned().eq(fresh)
            && self.scopes == ModuleScopes::new(self.files, &self.modules)
    }

    /// Absolute candidates for a path written in module `context` of crate `crate_key`.
    /// `None` means it names something outside the repository. The paths borrow their
    /// segments (a chase builds thousands of them per file).
    fn absolute<'k, C: AsRef<str>, P: AsRef<str>>(
        &'k self,
        crate_key: &'k str,
        context: &'k [C],
        path: &'k [P],
    ) -> Option<Vec<(&'k str, Vec<&'k str>)>> {
        let first = path.first()?.as_ref();
        let context = || context.iter().map(AsRef::as_ref);
        let from = |start: usize| path[start..].iter().map(AsRef::as_ref);
        match first {
            "crate" | "$crate" => Some(vec![(crate_key, from(1).collect())]),
            "self" => Some(vec![(crate_key, context().chain(from(1)).collect())]),
            "super" => {
                let supers = path.iter().take_while(|s| s.as_ref() == "super").count();
                let kept = context().count().saturating_sub(supers);
                Some(vec![(
                    crate_key,
                    context().take(kept).chain(from(supers)).collect(),
                )])
            }
            "std" | "core" | "alloc" => None,
            _ => {
                // A crate name is the likeliest reading of `name::...` (2018 paths), then a
                // name relative to the current module, then one from the crate root.
                let mut candidates = Vec::new();
                if let Some(other) = self.crate_names.get(first) {
                    candidates.push((other.as_str(), from(1).collect()));
                }
                // `first` must name something here: an item or module of the current module
                // or of the crate root, or a name imported into one of them. Otherwise the
                // path leaves the repository (an external crate).
                let names_something = |module: &mut dyn Iterator<Item = &str>| {
                    let module: Vec<&str> = module.collect();
                    let item = rust_key_of(crate_key, module.iter().copied().chain([first]));
                    self.paths.contains_key(&item)
                        || self.scopes.has(item)
                        || self
                            .scopes
                            .named(self.files, rust_key(crate_key, &module), first)
                            .next()
                            .is_some()
                };
                if names_something(&mut context()) {
                    candidates.push((crate_key, context().chain(from(0)).collect()));
                }
                if context().next().is_some() && names_something(&mut std::iter::empty()) {
                    candidates.push((crate_key, from(0).collect()));
                }
                (!candidates.is_empty()).then_some(candidates)
            }
        }
    }

    /// Resolves a `use` path (or a path expression) to symbols, following re-exports.
    fn resolve_use_path<C: AsRef<str>, P: AsRef<str>>(
        &self,
        t: &Tables,
        crate_key: &str,
        context: &[C],
        path: &[P],
        chase: &mut Chase,
    ) -> Option<Vec<u32>> {
        let candidates = self.absolute(crate_key, context, path)?;
        // Each reading gets the same budget; the keys held (the path followed here) cut
        // cycles.
        let budget_start = chase.steps;
        for (krate, absolute) in &candidates {
            chase.steps = budget_start;
            let found = self.resolve_absolute(t, krate, absolute, chase);
            if !found.is_empty() {
                return Some(found);
            }
        }
        Some(Vec::new())
    }

    fn resolve_absolute(
        &self,
        t: &Tables,
        crate_key: &str,
        path: &[&str],
        chase: &mut Chase,
    ) -> Vec<u32> {
        let key = rust_key(crate_key, path);
        if let Some(found) = self.paths.get(&key) {
            return found.as_slice().to_vec();
        }
        if path.is_empty() {
            return Vec::new();
        }
        // Chases are remembered per thread: the same paths are looked up over and over in
        // a crate, and most of them lead nowhere. A remembered chase is reused only where
        // walking it again would make the same turns (`Chase::replay`), so what a file
        // resolves to never depends on the files resolved before it on its thread: a
        // patch resolving one file answers as the full build did.
        if let Some(found) = CHASE_CACHE.with(|c| {
            let cache = c.borrow();
            if cache.0 != t.run {
                return None;
            }
            cache
                .1
                .get(&key)?
                .iter()
                .find(|remembered| chase.replay(&remembered.record))
                .map(|remembered| remembered.found.to_vec())
        }) {
            return found;
        }
        let mark = chase.mark();
        if !chase.visit(key) {
            return Vec::new();
        }
        let found = self.chase_reexports(t, crate_key, path, chase);
        chase.leave(key);
        let remembered = RememberedChase {
            found: found.as_slice().into(),
            record: chase.record(mark),
        };
        CHASE_CACHE.with(|c| {
            let mut cache = c.borrow_mut();
            if cache.0 != t.run || cache.1.len() > 200_000 {
                cache.1.clear();
                cache.0 = t.run;
            }
            let walks = cache.1.entry(key).or_default();
            if walks.len() == CHASES_PER_PATH {
                walks.remove(0);
            }
            // Most paths are walked one way only: no room for more until needed.
            walks.reserve_exact(1);
            walks.push(remembered);
        });
        found
    }

    fn chase_reexports(
        &self,
        t: &Tables,
        crate_key: &str,
        path: &[&str],
        chase: &mut Chase,
    ) -> Vec<u32> {
        // Re-exports: `pub use` (or any `use`) inside a module on the path.
        for split in (0..path.len()).rev() {
            let module = &path[..split];
            let scope = rust_key(crate_key, module);
            if !self.scopes.has(scope) {
                continue;
            }
            let named = self
                .scopes
                .named(self.files, scope, path[split])
                .map(|target| (target, split + 1));
            let globs = self
                .scopes
                .globs(self.files, scope)
                .map(|target| (target, split));
            for (target, rest) in named.chain(globs) {
                let through: Vec<&str> = target
                    .iter()
                    .map(String::as_str)
                    .chain(path[rest..].iter().copied())
                    .collect();
                if through.as_slice() == path {
                    continue;
                }
                if let Some(found) = self.resolve_use_path(t, crate_key, module, &through, chase)
                    && !found.is_empty()
                {
                    return found;
                }
            }
        }
        Vec::new()
    }

    /// The module path of the type the enclosing definition is a member of.
    fn enclosing_type_path(&self, at: Place) -> Option<(String, Vec<String>)> {
        let module = self.modules[at.fid as usize].as_ref()?;
        let definition = at.enclosing?;
        let container = at.facts.container(definition)?;
        let mut path = module.path.clone();
        path.extend(at.facts.modules(definition).iter().cloned());
        path.push(container.to_owned());
        Some((module.crate_key.clone(), path))
    }

    /// The module context of a place: the file's module and its inline modules.
    fn context(
        &self,
        module: &RustModule,
        enclosing: Option<&Def>,
        facts: &CompactFacts,
    ) -> Vec<String> {
        let mut context = module.path.clone();
        if let Some(d) = enclosing {
            context.extend(facts.modules(d).iter().cloned());
        }
        context
    }

    fn resolve_rust(&self, t: &Tables, reference: &Use<'_>) -> Outcome {
        let Use {
            at,
            name,
            kind,
            receiver,
            qualifier,
            candidates,
            ..
        } = *reference;
        let facts = at.facts;
        let Some(module) = self.modules[at.fid as usize].as_ref() else {
            return Outcome::Drop;
        };
        let compatible = |s: &super::Symbol| kind.can_refer_to(s.kind);
        let resolved = |found: &[u32]| t.first_compatible(found, kind).map(Outcome::Resolved);

        if receiver {
            // The receiver-type pass did not know the receiver's type.
            return t.heuristic(candidates, Family::Rust, |s| {
                member_may_be(kind, s.kind, s.family)
            });
        }

        let context = self.context(module, at.enclosing, facts);

        if let Some(q) = qualifier {
            if q == EXPRESSION_QUALIFIER {
                return t.heuristic(candidates, Family::Rust, compatible);
            }
            let mut segments: Vec<String> = q
                .split("::")
                .map(|s| s.split('<').next().unwrap_or("").trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect();
            let through_self = segments.first().is_some_and(|s| s == "Self");
            if through_self {
                match self.enclosing_type_path(at) {
                    Some((_, path)) => {
                        segments.splice(0..1, ["crate".to_owned()].into_iter().chain(path));
                    }
                    None => return t.heuristic(candidates, Family::Rust, compatible),
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
            let found =
                self.resolve_use_path(t, &module.crate_key, &context, &full, &mut Chase::default());
            match &found {
                Some(found) => {
                    if let Some(outcome) = resolved(found) {
                        // `Self::Output` in `impl Trait for Type` names the trait's
                        // associated type (rust-analyzer reads it so too), not this impl's.
                        if let (true, Outcome::Resolved(sid)) = (through_self, outcome)
                            && t.symbols[sid as usize].kind == SymbolKind::TypeAlias
                            && let Some(implemented) = t.implemented_trait(sid)
                        {
                            return match implemented {
                                super::types::Ty::Repo(_) | super::types::Ty::Bounds(_) => {
                                    match t.lookup_member(Family::Rust, implemented, name, kind) {
                                        super::types::Lookup::Found(found)
                                        | super::types::Lookup::Ambiguous(found) => {
                                            Outcome::Resolved(found)
                                        }
                                        _ => outcome,
                                    }
                                }
                                _ => Outcome::Drop,
                            };
                        }
                        return outcome;
                    }
                }
                None => {
                    // Outside the repository, unless a glob import brings the first
                    // segment in (`use super::*; Doc::new()`).
                    if let Some(outcome) =
                        self.through_globs(t, module, &context, facts, &full, kind)
                    {
                        return outcome;
                    }
                    return Outcome::Drop;
                }
            }
            if let Some(outcome) = self.through_globs(t, module, &context, facts, &full, kind) {
                return outcome;
            }
            // `Type::method` where the impl lives in another module than the type: the
            // member of the type the qualifier names.
            let type_name = segments.last().cloned().unwrap_or_default();
            let owner = self.type_path(t, at, &segments);
            let ty = t.named_type(Family::Rust, &owner);
            match t.lookup_member(Family::Rust, &ty, name, kind) {
                super::types::Lookup::Found(sid) => return Outcome::Resolved(sid),
                super::types::Lookup::Ambiguous(sid) => return Outcome::Guess(sid),
                super::types::Lookup::Absent => return Outcome::Drop,
                super::types::Lookup::Unknown => {}
            }
            let type_known = t.names.contains(&type_name);
            return if type_known {
                t.heuristic(candidates, Family::Rust, compatible)
            } else {
                Outcome::Drop
            };
        }

        // Unqualified: imports first, then this file, then glob imports, then by name.
        for import in facts.imports_named(name) {
            let ImportTarget::Path(path) = &import.target else {
                continue;
            };
            let mut import_context = module.path.clone();
            import_context.extend(import.modules.iter().cloned());
            match self.resolve_use_path(
                t,
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
        let base = t.file_base[at.fid as usize];
        // Prefer definitions in the same inline module as the use (top level: none).
        let same_modules = at.enclosing.map_or_else(
            || {
                facts
                    .module_paths
                    .iter()
                    .position(Vec::is_empty)
                    .map_or(super::NONE, |i| i as u32)
            },
            |d| d.modules,
        );
        let mut local: Vec<u32> = facts
            .definitions_named(name)
            .filter(|(_, d)| {
                // Members (methods, fields, variants, associated items) are in scope only
                // through a path.
                kind.can_refer_to(d.kind) && d.container == super::NONE
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
        if let Some(outcome) =
            self.through_globs(t, module, &context, facts, &[name.to_owned()], kind)
        {
            return outcome;
        }
        t.heuristic(candidates, Family::Rust, |s| {
            // A bare name is never a member elsewhere (`None` is the prelude's, not some
            // enum's variant), and a bare type is a type (or the prelude's `String`).
            compatible(s) && !s.member && (kind != RefKind::Type || s.kind.is_type())
        })
    }

    /// `path` read through the file's glob imports (`use super::*;`).
    fn through_globs(
        &self,
        t: &Tables,
        module: &RustModule,
        context: &[String],
        facts: &CompactFacts,
        path: &[String],
        kind: RefKind,
    ) -> Option<Outcome> {
        for import in facts.imports_named("*") {
            let ImportTarget::Path(glob) = &import.target else {
                continue;
            };
            let mut full = glob.clone();
            full.extend(path.iter().cloned());
            if let Some(found) =
                self.resolve_use_path(t, &module.crate_key, context, &full, &mut Chase::default())
                && let Some(sid) = t.first_compatible(&found, kind)
            {
                return Some(Outcome::Resolved(sid));
            }
        }
        None
    }

    /// A path resolved as a use of `kind`, for the receiver-type pass.
    fn named(&self, t: &Tables, at: Place, path: &[String], kind: RefKind) -> Named {
        let Some((name, qualifier)) = path.split_last() else {
            return Named::Unknown;
        };
        // Resolving a path can ask for its qualifier's type, which an import can expand
        // again (`use anyhow::anyhow;` then `anyhow::Error`): bounded.
        let Some(_nested) = super::types::Nested::enter() else {
            return Named::Unknown;
        };
        let candidates = t.candidates(name);
        if candidates.is_empty() && at.facts.imports_named(name).next().is_none() {
            return Named::Outside(name.clone());
        }
        let qualifier = (!qualifier.is_empty()).then(|| qualifier.join("::"));
        let reference = Use {
            at,
            name,
            kind,
            receiver: false,
            local_receiver: false,
            qualifier: qualifier.as_deref(),
            candidates,
        };
        match self.resolve_rust(t, &reference) {
            Outcome::Resolved(sid) | Outcome::Guess(sid) => Named::Symbols(vec![sid]),
            Outcome::Drop => Named::Outside(name.clone()),
            Outcome::Heuristic => Named::Unknown,
        }
    }
}

impl FamilyResolver for RustTables<'_> {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        self.resolve_rust(t, u)
    }

    fn import_targets(&self, t: &Tables, fid: u32, import: &Import) -> Option<Vec<u32>> {
        let ImportTarget::Path(path) = &import.target else {
            return None;
        };
        let module = self.modules[fid as usize].as_ref()?;
        let mut context = module.path.clone();
        context.extend(import.modules.iter().cloned());
        self.resolve_use_path(t, &module.crate_key, &context, path, &mut Chase::default())
    }

    fn type_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path, RefKind::Type)
    }

    fn value_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path, RefKind::Identifier)
    }

    fn module_member(&self, _t: &Tables, _fid: u32, _name: &str) -> Vec<u32> {
        // Rust paths name modules by path (`a::b::f`), never through a module value.
        Vec::new()
    }

    fn call_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path, RefKind::Call)
    }

    fn outside_member(&self, ty: &str, member: &str) -> OutsideMember {
        rust_std_member(ty, member)
    }

    fn outside_step(&self, ty: &str, step: Step) -> OutsideStep {
        rust_std_step(ty, step)
    }

    fn outside_callback(
        &self,
        ty: &str,
        method: &str,
        argument: u32,
        parameter: u32,
    ) -> Option<Spec> {
        rust_std_callback(ty, method, argument, parameter)
    }

    fn unwrap_keeps_type(&self) -> bool {
        false
    }

    fn deref_trait(&self) -> Option<&'static str> {
        Some("Deref")
    }

    fn derived_member(&self, member: &str) -> Option<Spec> {
        // `#[derive(Clone)]` and blanket `ToOwned`: a copy of the receiver.
        matches!(member, "clone" | "to_owned" | "cloned").then_some(Spec::Same)
    }
}

/// Standard types whose first type argument is what they hold: what iterating them, and
/// what their methods' closures, see.
const ELEMENT_CONTAINERS: &[&str] = &[
    "Vec",
    "VecDeque",
    "[]",
    "array",
    "BTreeSet",
    "HashSet",
    "IndexSet",
    "BinaryHeap",
    "LinkedList",
    "Option",
    "Result",
];

/// What a closure passed to a standard type's method receives: for iterators, slices,
/// sets, `Option` and `Result`, the element (or `Result`'s error for `map_err`).
fn rust_std_callback(ty: &str, method: &str, argument: u32, parameter: u32) -> Option<Spec> {
    if DEREF_WRAPPERS.contains(&ty) {
        return Some(Spec::DerefThen(0));
    }
    if !ELEMENT_CONTAINERS.contains(&ty) && !ITERATORS.contains(&ty) {
        return None;
    }
    match (ty, method, argument, parameter) {
        (
            "Result",
            "map_err" | "unwrap_or_else" | "or_else" | "is_err_and" | "inspect_err",
            0,
            0,
        ) => Some(Spec::Arg(1)),
        // `fold(init, |acc, x| ..)`, `map_or(default, |x| ..)`.
        (_, "fold" | "try_fold" | "rfold", 1, 1) => Some(Spec::Arg(0)),
        (_, "map_or" | "map_or_else" | "is_some_and" | "is_none_or" | "is_ok_and", 1, 0) => {
            Some(Spec::Arg(0))
        }
        // Comparators take two elements.
        (
            _,
            "sort_by" | "sort_unstable_by" | "max_by" | "min_by" | "dedup_by" | "is_sorted_by",
            0,
            0 | 1,
        ) => Some(Spec::Arg(0)),
        (
            _,
            "map"
            | "filter"
            | "find"
            | "any"
            | "all"
            | "for_each"
            | "position"
            | "rposition"
            | "filter_map"
            | "flat_map"
            | "take_while"
            | "skip_while"
            | "map_while"
            | "inspect"
            | "max_by_key"
            | "min_by_key"
            | "find_map"
            | "and_then"
            | "is_some_and"
            | "is_none_or"
            | "is_ok_and"
            | "try_for_each"
            | "partition"
            | "sort_by_key"
            | "sort_unstable_by_key"
            | "sort_by_cached_key"
            | "retain"
            | "retain_mut"
            | "dedup_by_key"
            | "binary_search_by_key"
            | "binary_search_by"
            | "chunk_by"
            | "group_by"
            | "take_if"
            | "is_sorted_by_key"
            | "inspect_ok"
            | "unwrap_or_else"
            | "split"
            | "rsplit"
            | "splitn"
            | "scan"
            | "skip_until"
            | "count_by",
            0,
            0,
        ) => Some(Spec::Arg(0)),
        _ => None,
    }
}

/// Smart pointers and guards: a member they do not have is looked up on what they point
/// to (auto-deref).
const DEREF_WRAPPERS: &[&str] = &[
    "Box",
    "Rc",
    "Arc",
    "Cow",
    "Ref",
    "RefMut",
    "MutexGuard",
    "RwLockReadGuard",
    "RwLockWriteGuard",
    "Pin",
    "ManuallyDrop",
    "Weak",
];

/// Standard types whose every member returns something of a known, outside type (or a
/// generic the caller names): a member on them is never the repository's.
const PLAIN_OUTSIDE: &[&str] = &[
    "str",
    "String",
    "char",
    "bool",
    "u8",
    "u16",
    "u32",
    "u64",
    "u128",
    "usize",
    "i8",
    "i16",
    "i32",
    "i64",
    "i128",
    "isize",
    "f32",
    "f64",
    "Path",
    "PathBuf",
    "OsStr",
    "OsString",
    "Duration",
    "Instant",
    "SystemTime",
    "File",
    "tuple",
    "closure",
    "Range",
    "primitive_type",
    "tuple_type",
    "unit_type",
    "never_type",
    "function_type",
    "Formatter",
    "Arguments",
];

/// Standard iterator types: with one type argument, their element.
const ITERATORS: &[&str] = &[
    "Iterator",
    "IntoIterator",
    "DoubleEndedIterator",
    "ExactSizeIterator",
    "Iter",
    "IterMut",
    "IntoIter",
    "Drain",
    "Peekable",
    "Rev",
    "Skip",
    "Take",
    "Cloned",
    "Copied",
    "Fuse",
    "StepBy",
    "Chain",
    "Cycle",
    "Flatten",
    "Filter",
    "SkipWhile",
    "TakeWhile",
];

/// What the standard library says about `ty.member(..)`.
fn rust_std_member(ty: &str, member: &str) -> OutsideMember {
    use OutsideMember::{Known, NotKnown};
    // Members whose result the caller decides (generic conversions): unknown.
    const GENERIC: &[&str] = &[
        "into",
        "try_into",
        "parse",
        "as_ref",
        "as_mut",
        "borrow",
        "borrow_mut",
        "collect",
        "into_iter",
        "iter",
        "iter_mut",
        "map",
        "and_then",
        "fold",
        "sum",
        "product",
        "downcast",
        "downcast_ref",
        "downcast_mut",
        "get",
        "get_mut",
    ];
    const MAPS: &[&str] = &["HashMap", "BTreeMap", "IndexMap"];
    match (ty, member) {
        // Iterators, by their element type (`Iterator<T>` here, whatever the real type).
        (c, "iter" | "iter_mut" | "into_iter" | "drain") if ELEMENT_CONTAINERS.contains(&c) => {
            Known(Spec::Wrap("Iterator", 0))
        }
        (m, "iter" | "iter_mut" | "into_iter" | "drain") if MAPS.contains(&m) => {
            Known(Spec::WrapPair("Iterator", 0, 1))
        }
        (m, "values" | "values_mut" | "into_values") if MAPS.contains(&m) => {
            Known(Spec::Wrap("Iterator", 1))
        }
        (m, "keys" | "into_keys") if MAPS.contains(&m) => Known(Spec::Wrap("Iterator", 0)),
        (
            i,
            "filter" | "skip" | "take" | "rev" | "peekable" | "chain" | "cloned" | "copied"
            | "by_ref" | "fuse" | "step_by" | "skip_while" | "take_while" | "inspect" | "cycle"
            | "into_iter",
        ) if ITERATORS.contains(&i) => Known(Spec::Same),
        (
            i,
            "next" | "last" | "nth" | "find" | "max_by_key" | "min_by_key" | "max_by" | "min_by"
            | "max" | "min" | "next_back" | "nth_back" | "rfind" | "peek",
        ) if ITERATORS.contains(&i) => Known(Spec::Wrap("Option", 0)),
        (i, "enumerate") if ITERATORS.contains(&i) => Known(Spec::Enumerate),
        (i, "count" | "any" | "all" | "position" | "rposition" | "for_each" | "len")
            if ITERATORS.contains(&i) =>
        {
            Known(Spec::Opaque)
        }
        (
            "Option",
            "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default" | "unwrap_or_else"
            | "unwrap_unchecked" | "get_or_insert" | "get_or_insert_with" | "insert",
        ) => Known(Spec::Arg(0)),
        (
            "Option",
            "as_ref" | "as_mut" | "as_deref" | "as_deref_mut" | "cloned" | "copied" | "take" | "or"
            | "or_else" | "filter" | "clone" | "replace" | "xor",
        ) => Known(Spec::Same),
        ("Option", "ok_or" | "ok_or_else") => Known(Spec::Wrap("Result", 0)),
        (
            "Result",
            "unwrap" | "expect" | "unwrap_or" | "unwrap_or_default" | "unwrap_or_else"
            | "unwrap_unchecked",
        ) => Known(Spec::Arg(0)),
        ("Result", "unwrap_err" | "expect_err") => Known(Spec::Arg(1)),
        (
            "Result",
            "as_ref" | "as_mut" | "clone" | "map_err" | "or_else" | "context" | "with_context"
            | "as_deref",
        ) => Known(Spec::Same),
        ("Result", "ok") => Known(Spec::Wrap("Option", 0)),
        ("Result", "err") => Known(Spec::Wrap("Option", 1)),
        ("Box" | "Rc" | "Arc" | "Weak", "clone") => Known(Spec::Same),
        ("Rc" | "Arc", "as_ref") | ("Box", "as_ref" | "as_mut") => Known(Spec::Arg(0)),
        ("Weak", "upgrade") => Known(Spec::Wrap("Option", 0)),
        ("RefCell", "borrow" | "borrow_mut" | "get_mut" | "into_inner") => Known(Spec::Arg(0)),
        ("Cell", "get" | "take" | "into_inner") => Known(Spec::Arg(0)),
        ("Mutex" | "RwLock", "lock" | "read" | "write" | "try_lock" | "into_inner" | "get_mut") => {
            Known(Spec::Wrap("Result", 0))
        }
        ("OnceCell" | "OnceLock" | "LazyCell" | "LazyLock", "get" | "get_mut") => {
            Known(Spec::Wrap("Option", 0))
        }
        ("OnceCell" | "OnceLock", "get_or_init") => Known(Spec::Arg(0)),
        ("Cow", "into_owned" | "to_mut") => Known(Spec::Arg(0)),
        (
            "Vec" | "VecDeque" | "[]" | "array" | "BTreeSet" | "HashSet" | "IndexSet"
            | "BinaryHeap" | "LinkedList",
            "get" | "first" | "last" | "get_mut" | "first_mut" | "last_mut" | "pop" | "pop_front"
            | "pop_back" | "front" | "back" | "front_mut" | "back_mut" | "peek",
        ) => Known(Spec::Wrap("Option", 0)),
        ("Vec" | "VecDeque", "remove" | "swap_remove") => Known(Spec::Arg(0)),
        ("Vec" | "VecDeque" | "[]" | "BTreeSet" | "HashSet" | "IndexSet", "clone") => {
            Known(Spec::Same)
        }
        ("HashMap" | "BTreeMap" | "IndexMap", "get" | "get_mut" | "remove") => {
            Known(Spec::Wrap("Option", 1))
        }
        ("HashMap" | "BTreeMap" | "IndexMap", "clone") => Known(Spec::Same),
        (wrapper, "clone") if DEREF_WRAPPERS.contains(&wrapper) => Known(Spec::Same),
        (wrapper, _) if DEREF_WRAPPERS.contains(&wrapper) => OutsideMember::Deref(0),
        (_, member) if GENERIC.contains(&member) => Known(Spec::Unknown),
        (plain, _) if PLAIN_OUTSIDE.contains(&plain) => Known(Spec::Opaque),
        _ => NotKnown,
    }
}

/// What `?`, indexing, iterating and `.await` give on a standard type.
fn rust_std_step(ty: &str, step: Step) -> OutsideStep {
    match (ty, step) {
        ("Option" | "Result" | "Poll", Step::Unwrap) => Some(Spec::Arg(0)),
        ("Vec" | "VecDeque" | "[]" | "array", Step::Index | Step::Element) => Some(Spec::Arg(0)),
        (
            "BTreeSet" | "HashSet" | "IndexSet" | "Option" | "Result" | "BinaryHeap" | "LinkedList",
            Step::Element,
        ) => Some(Spec::Arg(0)),
        (i, Step::Element) if ITERATORS.contains(&i) => Some(Spec::Arg(0)),
        ("HashMap" | "BTreeMap" | "IndexMap", Step::Index) => Some(Spec::Arg(1)),
        ("HashMap" | "BTreeMap" | "IndexMap", Step::Element) => Some(Spec::Pair(0, 1)),
        (wrapper, Step::Index | Step::Element) if DEREF_WRAPPERS.contains(&wrapper) => {
            Some(Spec::DerefThen(0))
        }
        (_, Step::Await) => Some(Spec::Same),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definition_keys_are_the_keys_of_the_joined_paths() {
        let mut keys = DefinitionKeys::new("vendor/serde");
        keys.enter("");
        assert_eq!(
            keys.key("Serialize"),
            rust_key("vendor/serde", &["Serialize"])
        );
        keys.enter("de::value::");
        assert_eq!(
            keys.key("Error"),
            rust_key("vendor/serde", &["de", "value", "Error"])
        );
        assert_eq!(
            keys.key("Deserializer"),
            rust_key("vendor/serde", &["de", "value", "Deserializer"])
        );
        keys.enter("ser::");
        assert_eq!(
            keys.key("Impossible"),
            rust_key("vendor/serde", &["ser", "Impossible"])
        );
        assert_ne!(
            keys.key("Impossible"),
            rust_key("vendor/other", &["ser", "Impossible"])
        );
    }

    #[test]
    fn module_scopes_keep_each_name_s_paths_in_file_order_and_globs_apart() {
        // Two files of one module (`a.rs` and `a/mod.rs` both say `crate::a`) and one of
        // another, with an inline module.
        let files = [
            ParsedFile::rust_for_test("Cargo.toml", ""),
            ParsedFile::rust_for_test("src/a.rs", "use crate::x::Thing;\nuse crate::g::*;\n"),
            ParsedFile::rust_for_test(
                "src/a/mod.rs",
                "use crate::y::Thing;\nuse crate::h::*;\nuse crate::z::Other;\n",
            ),
            ParsedFile::rust_for_test("src/b.rs", "mod inner { use crate::w::Thing; }\n"),
        ];
        let tables = RustTables::new(&files, false, None);
        let scopes = &tables.scopes;
        let a = rust_key("", &["a"]);
        let joined =
            |paths: Vec<&[String]>| -> Vec<String> { paths.iter().map(|p| p.join("::")).collect() };
        assert_eq!(
            joined(scopes.named(&files, a, "Thing").collect()),
            ["crate::x::Thing", "crate::y::Thing"]
        );
        assert_eq!(
            joined(scopes.named(&files, a, "Other").collect()),
            ["crate::z::Other"]
        );
        assert_eq!(
            joined(scopes.globs(&files, a).collect()),
            ["crate::g", "crate::h"]
        );
        assert_eq!(
            scopes.named(&files, a, GLOB).count(),
            0,
            "a glob is no name"
        );
        assert_eq!(scopes.named(&files, a, "Missing").count(), 0);
        let inner = rust_key("", &["b", "inner"]);
        assert!(scopes.has(inner));
        assert_eq!(
            joined(scopes.named(&files, inner, "Thing").collect()),
            ["crate::w::Thing"]
        );
        assert!(
            !scopes.has(rust_key("", &["b"])),
            "b's own scope imports nothing"
        );
        assert_eq!(scopes.globs(&files, rust_key("", &["b"])).count(), 0);
    }

    /// Scopes brought up to date for the files whose `use`s changed are the scopes made
    /// afresh from the files as they are now, whatever the change: a `use` added,
    /// removed, renamed, moved into an inline module, or a file's last one gone.
    #[test]
    fn module_scopes_brought_up_to_date_are_those_made_afresh() {
        let before = [
            ParsedFile::rust_for_test("Cargo.toml", ""),
            ParsedFile::rust_for_test("src/a.rs", "use crate::x::Thing;\nuse crate::g::*;\n"),
            ParsedFile::rust_for_test("src/a/mod.rs", "use crate::y::Thing;\n"),
            ParsedFile::rust_for_test("src/b.rs", "use crate::w::Only;\n"),
            ParsedFile::rust_for_test("src/c.rs", "use crate::v::Stays;\n"),
        ];
        let after = [
            ParsedFile::rust_for_test("Cargo.toml", ""),
            ParsedFile::rust_for_test(
                "src/a.rs",
                "use crate::g::*;\nuse crate::x::Renamed;\nmod m { use crate::y::Thing; }\n",
            ),
            ParsedFile::rust_for_test("src/a/mod.rs", "use crate::y::Thing;\n"),
            ParsedFile::rust_for_test("src/b.rs", "fn no_uses() {}\n"),
            ParsedFile::rust_for_test("src/c.rs", "use crate::v::Stays;\n"),
        ];
        let mut kept = RustTables::new(&before, false, None).take_modules();
        for changed in [&[1u32, 3][..], &[][..]] {
            let tables = RustTables::new(&after, false, Some((kept, changed)));
            let fresh = ModuleScopes::new(&after, &tables.modules);
            assert_eq!(tables.scopes, fresh, "changed {changed:?}");
            let a = rust_key("", &["a"]);
            let joined = |paths: Vec<&[String]>| -> Vec<String> {
                paths.iter().map(|p| p.join("::")).collect()
            };
            let scopes = &tables.scopes;
            assert_eq!(
                joined(scopes.named(&after, a, "Thing").collect()),
                ["crate::y::Thing"]
            );
            assert_eq!(
                joined(scopes.named(&after, a, "Renamed").collect()),
                ["crate::x::Renamed"]
            );
            assert!(!scopes.has(rust_key("", &["b"])));
            kept = RustTables::new(&after, false, None).take_modules();
        }
    }

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

    #[test]
    fn standard_types_answer_for_their_members() {
        assert!(matches!(
            rust_std_member("Option", "unwrap"),
            OutsideMember::Known(Spec::Arg(0))
        ));
        assert!(matches!(
            rust_std_member("Arc", "run"),
            OutsideMember::Deref(0)
        ));
        assert!(matches!(
            rust_std_member("String", "to_owned"),
            OutsideMember::Known(Spec::Opaque)
        ));
        assert!(matches!(
            rust_std_member("SomeCrateType", "run"),
            OutsideMember::NotKnown
        ));
        assert_eq!(rust_std_step("Result", Step::Unwrap), Some(Spec::Arg(0)));
    }
}
