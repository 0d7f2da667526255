//! Name resolution: every file's facts together → symbols with qualified names, and
//! references pointing at the definition they use.
//!
//! The driver here is shared; each language [`Family`] has a resolver module behind
//! [`FamilyResolver`] (`rust.rs`: module paths, `use`, re-exports, crates; `ecma.rs`:
//! relative imports, `export ... from`, CommonJS `require`), matched exhaustively so a new
//! family cannot fall into another's path. `types.rs` is the receiver-type pass over both:
//! it finds the type of the value before a member (`self.config.load()`) from declared
//! types and picks that type's member, its supertypes' or its traits'.
//!
//! What decides a reference, in order: local scope (done in `mcursor-syntax`), the
//! receiver's type for member uses, imports, module paths and re-exports, same-file
//! definitions, type-qualified paths. Those give `resolved` references. A member whose
//! receiver has a known type without that member is dropped (`s.len()` on a `String` is
//! not a use of the repository's `len`); what is left falls back to name matching among
//! definitions of a compatible kind in the same family (`heuristic`). A use that an import
//! ties to something outside the repository (`std::fmt::Result`, `react`) is dropped
//! rather than matched by name to an unrelated definition.

mod c;
mod classes;
mod ecma;
mod facts;
mod go;
mod includes;
mod kept;
mod lua;
mod names;
mod python;
mod rust;
mod shell;
mod types;
mod written;

use std::borrow::Cow;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Family, Import, ImportTarget, Lang, RefKind, SymbolKind};
use rayon::prelude::*;

use crate::store::{
    Confidence, FileRow, NONE, RefRow, RefShape, RowSource, StoreData, SymbolBounds, SymbolRow,
    SymbolRows,
};
use crate::trace::trace_phase;

pub(crate) use facts::{
    CompactFacts, ContainerRef, Declarations, DeclarationsRef, Def, LocalRef, NameSet, PackedRefs,
};
pub(crate) use go::go_module_path;
pub(crate) use kept::KeptTables;
pub(crate) use rust::{cargo_package_name, rust_module};
pub(crate) use types::{ContainerHead, KnownHeads};

/// Paths looked up while following one chain of re-exports and glob imports; bounds the
/// work when modules glob-import each other.
const MAX_CHAIN_STEPS: usize = 8;

static RESOLUTION_RUN: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);

/// One file after parsing: its row, and its facts if its language is supported.
#[derive(Debug)]
pub(crate) struct ParsedFile {
    pub row: FileRow,
    pub facts: Option<CompactFacts>,
    /// For a manifest: the name it declares (a `Cargo.toml`'s `[package] name`, a
    /// `go.mod`'s module path).
    pub package_name: Option<String>,
}

impl ParsedFile {
    pub(crate) fn family(&self) -> Option<Family> {
        self.row.lang.map(Lang::family)
    }

    /// A Rust file at `path` with `source`, parsed (for tests; content hash 7).
    #[cfg(test)]
    pub(crate) fn rust_for_test(path: &str, source: &str) -> ParsedFile {
        let facts = mcursor_syntax::parse_source(
            Lang::Rust,
            source.as_bytes(),
            &mcursor_syntax::ParseConfig::default(),
        );
        ParsedFile {
            row: FileRow {
                path: path.into(),
                lang: Some(Lang::Rust),
                size: source.len() as u64,
                mtime_ns: 1,
                hash: 7,
                syntax_errors: false,
                first_syntax_error: None,
                timed_out: false,
                symbols: (0, 0),
            },
            facts: Some(CompactFacts::from_facts(facts)),
            package_name: None,
        }
    }
}

/// The state of following one chain of re-exports: the keys on the path being followed,
/// how much was done, and what a remembered part of a chase must find the same before it
/// is reused ([`ChaseRecord`]).
#[derive(Default)]
struct Chase {
    steps: usize,
    /// The keys taken and not yet left, in order. A chase that `leave`s its keys holds
    /// only the path being followed, so only a cycle cuts it short; one that does not
    /// holds every key it took (at most `MAX_CHAIN_STEPS`).
    held: Vec<u64>,
    /// Every key taken (its fingerprint).
    taken: Vec<u32>,
    /// Every key found held already, and where it was held.
    cuts: Vec<(u64, usize)>,
    /// The step count of every visit, and whether it was within the budget.
    budget: Vec<(usize, bool)>,
}

/// Where a part of a chase began.
#[derive(Clone, Copy)]
struct ChaseMark {
    steps: usize,
    held: usize,
    taken: usize,
    cuts: usize,
    budget: usize,
}

/// What decided a part of a chase (from a key's visit to its leave). The tables are fixed
/// for a run, so the part's walk, and its answer, is the same wherever every visit in it
/// is answered the same: the keys it took are not held there, the keys held before it
/// that cut it short are held there, and the budget passes and runs out at the same
/// visits. Step counts are relative to where the part began.
#[derive(Debug)]
struct ChaseRecord {
    /// Fingerprints of the keys taken, sorted (two keys sharing one only make a reuse
    /// refused that would have been right).
    taken: Box<[u32]>,
    /// Keys held before the part began that cut it short.
    cuts: Box<[u64]>,
    /// The largest relative step count of a visit within the budget, and the smallest
    /// of one past it (0: no such visit; a visit counts a step before it is answered, and
    /// any count past 255 is past the budget wherever the part begins).
    within_up_to: u8,
    over_from: u8,
    steps_after: u32,
}

fn fingerprint(key: u64) -> u32 {
    (key ^ (key >> 32)) as u32
}

impl Chase {
    /// Whether `key` may be visited (budget left, not held already).
    fn visit(&mut self, key: u64) -> bool {
        self.steps += 1;
        let within = self.steps <= MAX_CHAIN_STEPS;
        self.budget.push((self.steps, within));
        if !within {
            return false;
        }
        if let Some(at) = self.held.iter().position(|&k| k == key) {
            self.cuts.push((key, at));
            return false;
        }
        self.held.push(key);
        self.taken.push(fingerprint(key));
        true
    }

    /// Done with a key `visit` took: later visits of it are not cycles.
    fn leave(&mut self, key: u64) {
        if let Some(at) = self.held.iter().rposition(|&k| k == key) {
            self.held.remove(at);
        }
    }

    fn mark(&self) -> ChaseMark {
        ChaseMark {
            steps: self.steps,
            held: self.held.len(),
            taken: self.taken.len(),
            cuts: self.cuts.len(),
            budget: self.budget.len(),
        }
    }

    /// What decided the part of the chase since `mark`, to be replayed by another chase.
    fn record(&self, mark: ChaseMark) -> ChaseRecord {
        let mut taken = self.taken[mark.taken..].to_vec();
        taken.sort_unstable();
        taken.dedup();
        let mut cuts: Vec<u64> = self.cuts[mark.cuts..]
            .iter()
            .filter(|&&(_, at)| at < mark.held)
            .map(|&(key, _)| key)
            .collect();
        cuts.sort_unstable();
        cuts.dedup();
        let relative = |within: bool| {
            self.budget[mark.budget..]
                .iter()
                .filter(move |&&(_, w)| w == within)
                .map(move |&(steps, _)| (steps - mark.steps).min(255) as u8)
        };
        ChaseRecord {
            taken: taken.into(),
            cuts: cuts.into(),
            within_up_to: relative(true).max().unwrap_or(0),
            over_from: relative(false).min().unwrap_or(0),
            steps_after: u32::try_from(self.steps - mark.steps).unwrap_or(u32::MAX),
        }
    }

    /// Takes a recorded part of a chase as if walked here, when every visit in it would
    /// be answered here as it was there; otherwise changes nothing and says so. A
    /// walk's result then cannot depend on what was remembered before it: a reused part
    /// is exactly what walking it again would do.
    fn replay(&mut self, record: &ChaseRecord) -> bool {
        let base = self.steps;
        let (within, over) = (record.within_up_to as usize, record.over_from as usize);
        let same = (within == 0 || base + within <= MAX_CHAIN_STEPS)
            && (over == 0 || base + over > MAX_CHAIN_STEPS)
            && self
                .held
                .iter()
                .all(|&k| record.taken.binary_search(&fingerprint(k)).is_err())
            && record.cuts.iter().all(|k| self.held.contains(k));
        if !same {
            return false;
        }
        self.taken.extend_from_slice(&record.taken);
        for &key in record.cuts.iter() {
            if let Some(at) = self.held.iter().position(|&k| k == key) {
                self.cuts.push((key, at));
            }
        }
        if within > 0 {
            self.budget.push((base + within, true));
        }
        if over > 0 {
            self.budget.push((base + over, false));
        }
        self.steps = base + record.steps_after as usize;
        true
    }
}

/// A definition as the tables see it; its name is in the name table
/// ([`names::NameTable::name_of_symbol`]), so that tables a caller keeps borrow nothing
/// from the files' facts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Symbol {
    kind: SymbolKind,
    family: Family,
    /// A member of a container (a method, field, variant, associated item): never in
    /// scope by its bare name.
    member: bool,
    /// The file that defines it and its index there.
    file: u32,
    index: u32,
}

impl Symbol {
    /// An id no definition has (a file's room to grow, [`kept`]).
    const NONE: Symbol = Symbol {
        kind: SymbolKind::Function,
        family: Family::Rust,
        member: false,
        file: NONE,
        index: NONE,
    };
}

/// Read-only lookup tables shared by the per-file resolution workers.
struct Tables<'a> {
    /// Identifies this resolution run in per-thread caches.
    run: u64,
    files: &'a [ParsedFile],
    /// By id; ids without a definition (room, [`kept`]) hold [`Symbol::NONE`].
    symbols: Vec<Symbol>,
    /// First symbol id of each file, then one past the last file's ids (a file's room
    /// to grow lies between its definitions and the next file's first id).
    file_base: Vec<u32>,
    /// Each name's id and the symbols with that name.
    names: names::NameTable,
    file_ids: HashMap<&'a str, u32>,
    rust: rust::RustTables<'a>,
    ecma: ecma::EcmaTables,
    python: python::PythonTables,
    go: go::GoTables,
    java: classes::ClassTables,
    csharp: classes::ClassTables,
    php: classes::ClassTables,
    ruby: classes::ClassTables,
    kotlin: classes::ClassTables,
    c: c::CTables,
    shell: shell::ShellTables,
    lua: lua::LuaTables,
    types: types::TypeIndex,
}

/// A path's lookup key fed piecewise: hashing `a` then `b` equals hashing `ab`, so a key
/// can be built from segments or from an already joined path alike. The pieces are
/// joined in a buffer and hashed once with XXH3 (FNV-1a, a multiply per byte, was a
/// sixth of the time `perf` put in the Rust resolver's path lookups).
struct PathHasher(Vec<u8>);

impl PathHasher {
    fn new() -> Self {
        PathHasher(Vec::with_capacity(128))
    }

    fn write(&mut self, text: &str) {
        self.0.extend_from_slice(text.as_bytes());
    }

    fn finish(&self) -> u64 {
        xxhash_rust::xxh3::xxh3_64(&self.0)
    }
}

/// Where a name is written: the file, its facts, the definition around it.
#[derive(Clone, Copy)]
struct Place<'a> {
    fid: u32,
    facts: &'a CompactFacts,
    enclosing: Option<&'a Def>,
}

/// One name being resolved, with what its file knows around it.
struct Use<'a> {
    at: Place<'a>,
    name: &'a str,
    kind: RefKind,
    /// The qualifier is a value (`x.name`), not a path.
    receiver: bool,
    /// A local binding is the receiver (`s.flush()` with `s` a parameter or a variable):
    /// its qualifier names no global.
    local_receiver: bool,
    qualifier: Option<&'a str>,
    /// Every definition in the repository with this name.
    candidates: &'a [u32],
}

/// What a use resolved to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Outcome {
    /// This symbol id.
    Resolved(u32),
    /// Probably this symbol, among others the evidence cannot tell apart (a call of
    /// `Value::from` when `Value` has several `From` impls): stored as `heuristic`.
    Guess(u32),
    /// Matched by name only.
    Heuristic,
    /// Not a use of anything in the repository: no reference is stored.
    Drop,
}

/// What a resolver family contributes to the shared passes. Each family answers only for
/// its own files; the driver picks the resolver with an exhaustive match on [`Family`].
trait FamilyResolver: Sync {
    /// A use that the receiver-type pass did not settle: unqualified, qualified by a path,
    /// or a member of a receiver whose type is unknown.
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome;

    /// What an import refers to: `Some(symbols)` when it names something in the
    /// repository (empty when that could not be pinned down), `None` when it leaves the
    /// repository.
    fn import_targets(&self, t: &Tables, fid: u32, import: &Import) -> Option<Vec<u32>>;

    /// What a type path written at `at` names.
    fn type_path(&self, t: &Tables, at: Place, path: &[String]) -> types::Named;

    /// What module `fid` (a file of this family) offers as `name`, for `m.name` through a
    /// module value (`import * as m`, `import m`).
    fn module_member(&self, t: &Tables, fid: u32, name: &str) -> Vec<u32>;

    /// What a path used as a value names (a constant, a type used as a value, a module).
    fn value_path(&self, t: &Tables, at: Place, path: &[String]) -> types::Named;

    /// What calling a path gives: the function called (or the type it constructs).
    fn call_path(&self, t: &Tables, at: Place, path: &[String]) -> types::Named;

    /// What the family's standard library says about a member of one of its types.
    fn outside_member(&self, ty: &str, member: &str) -> types::OutsideMember;

    /// What unwrapping, indexing, iterating or awaiting a value of an outside type gives.
    fn outside_step(&self, ty: &str, step: types::Step) -> types::OutsideStep;

    /// What parameter `parameter` of a closure passed as argument `argument` to the
    /// outside type's method `method` receives (`Option::map`'s closure: the payload).
    /// (The default: the family's library says nothing about callbacks.)
    fn outside_callback(
        &self,
        _ty: &str,
        _method: &str,
        _argument: u32,
        _parameter: u32,
    ) -> Option<types::Spec> {
        None
    }

    /// The outside trait whose impl makes a type look through to its `Target` (Rust's
    /// `Deref`), if the family has one.
    fn deref_trait(&self) -> Option<&'static str> {
        None
    }

    /// Whether unwrapping leaves any type as it is (TypeScript's `x!`), rather than taking
    /// a payload out (Rust's `?`).
    fn unwrap_keeps_type(&self) -> bool;

    /// Whether a call `x.name()` that `x`'s type lacks may still be a repository function
    /// (C#'s extension methods): then it is a name match instead of dropped. (The
    /// default: no.)
    fn extension_method(&self, _name: &str) -> bool {
        false
    }

    /// What a member that no repository type declares gives on a repository type when
    /// the language derives it (Rust's `clone` of `#[derive(Clone)]`).
    fn derived_member(&self, _member: &str) -> Option<types::Spec> {
        None
    }

    /// Whether a function or method named without arguments is called (Ruby's
    /// `make_session.send`): its value is what it returns, not the function. (The
    /// default: no, it is a function value.)
    fn bare_name_calls(&self) -> bool {
        false
    }

    /// The field a method that declares and returns nothing readable stands for (Ruby's
    /// `attr_reader :clock` reads `@clock`). (The default: none.)
    fn accessor_field(&self, _method: &str) -> Option<String> {
        None
    }

    /// Members that answer for any name a type does not declare (Python's
    /// `__getattr__`): a type that has one lacks no member, so a use of a name it does not
    /// declare is a name match instead of dropped. (The default: none.)
    fn any_member_hooks(&self) -> &'static [&'static str] {
        &[]
    }
}

impl Tables<'_> {
    fn resolver(&self, family: Family) -> &dyn FamilyResolver {
        match family {
            Family::Rust => &self.rust,
            Family::Ecma => &self.ecma,
            Family::Python => &self.python,
            Family::Go => &self.go,
            Family::Java => &self.java,
            Family::CSharp => &self.csharp,
            Family::C => &self.c,
            Family::Php => &self.php,
            Family::Ruby => &self.ruby,
            Family::Kotlin => &self.kotlin,
            Family::Shell => &self.shell,
            Family::Lua => &self.lua,
        }
    }

    /// What module `fid` offers as `name`, by the family of its file.
    fn module_member(&self, fid: u32, name: &str) -> Vec<u32> {
        match self.files.get(fid as usize).and_then(ParsedFile::family) {
            Some(family) => self.resolver(family).module_member(self, fid, name),
            None => Vec::new(),
        }
    }

    fn place<'f>(&self, fid: u32, facts: &'f CompactFacts, enclosing: u32) -> Place<'f> {
        Place {
            fid,
            facts,
            enclosing: facts.definitions.get(enclosing as usize),
        }
    }

    /// The symbol id of the definition a place is in.
    fn enclosing_sid(&self, at: Place) -> Option<u32> {
        let d = at.enclosing?;
        let offset =
            (d as *const Def as usize).checked_sub(at.facts.definitions.as_ptr() as usize)?;
        let index = offset / std::mem::size_of::<Def>();
        (index < at.facts.definitions.len()).then(|| self.file_base[at.fid as usize] + index as u32)
    }

    /// Candidates for `name` of every family (empty when the repository defines no such
    /// name).
    fn candidates(&self, name: &str) -> &[u32] {
        self.names.symbols_named(name)
    }
}

/// A use's resolution context (name, qualifier, kind, receiver, the receiver's value
/// chain, and the modules and container of the enclosing definition) as a 64-bit hash:
/// within one file, uses with the same context resolve the same way (the resolver
/// memoizes on it), so the key outlives the file's parse: it matches the uses of a new
/// version of a file with those of the version its memo was made from. A hash rather
/// than the strings keeps the lookup cheap; two contexts of one file would have to
/// collide in 64 bits to be confused.
fn use_key(facts: &CompactFacts, owners: &[u32], r: &LocalRef) -> u64 {
    use std::hash::{Hash, Hasher};
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
        // The container by name and by which one of the file's it is: two classes of
        // one name (`A::SpellChecker`, `B::SpellChecker`) see different members.
        match facts.container(d) {
            Some(container) => field(format!("c{container}#{}", d.container_id).as_bytes()),
            None => field(b""),
        }
        // A class-level function of a container (Ruby's `def self.x`) sees other members
        // than its instance methods do (keys elsewhere stay as they were).
        if class_level(d) {
            field(b"class-level");
        }
        // Only where a function has nested definitions (keys elsewhere stay as they were).
        if let Some(&owner) = owners.get(r.enclosing as usize)
            && owner != NONE
        {
            field(format!("s{owner}").as_bytes());
        }
    }
    if let Some(chain) = facts.chain(r) {
        field(b"chain");
        chain.hash(&mut hasher);
    }
    hasher.finish()
}

/// Whether a definition is a function of a container rather than a method of its
/// instances (Ruby's class methods): part of the context its uses resolve in.
fn class_level(d: &Def) -> bool {
    d.kind == SymbolKind::Function && d.container != NONE
}

/// How one file's references resolved: per distinct use and per import. While every
/// file keeps its interface (see [`CompactFacts::interface_eq`]) and so the symbol
/// layout, these outcomes stay true, and a new version of the file whose uses all have
/// a known key ([`use_key`]) gets its references from the memo instead of the global
/// tables.
///
/// A memo belongs to the facts it was made from: `uses` holds no keys, only each
/// distinct use's outcome in the order [`DistinctUses`] numbers them, and the keys are
/// computed again from those facts when a new version of the file needs them
/// ([`rows_from_memo`]). The keys were 16.5 of the facts cache's 134 MB on `rustreg`
/// (a random 64-bit hash is ten bytes as a varint), and a whole resolution made one
/// for every distinct use though only a patch of that file reads them.
#[derive(Debug, Clone, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct FileMemo {
    pub uses: Vec<Outcome>,
    pub imports: Vec<Outcome>,
    /// What each of the file's container heads evaluated to (see [`ContainerHead`]).
    pub heads: Vec<ContainerHead>,
}

impl FileMemo {
    /// The memo with every symbol id mapped by `f`; `None` when `f` maps one to nothing.
    pub(crate) fn map_targets(&self, f: impl Fn(u32) -> Option<u32>) -> Option<FileMemo> {
        let map = |outcome: Outcome| {
            Some(match outcome {
                Outcome::Resolved(sid) => Outcome::Resolved(f(sid)?),
                Outcome::Guess(sid) => Outcome::Guess(f(sid)?),
                Outcome::Heuristic => Outcome::Heuristic,
                Outcome::Drop => Outcome::Drop,
            })
        };
        Some(FileMemo {
            uses: self
                .uses
                .iter()
                .map(|&outcome| map(outcome))
                .collect::<Option<_>>()?,
            imports: self
                .imports
                .iter()
                .map(|&outcome| map(outcome))
                .collect::<Option<_>>()?,
            heads: self
                .heads
                .iter()
                .map(|head| head.map_symbols(&f))
                .collect::<Option<_>>()?,
        })
    }
}

/// A file's uses told apart as the resolver remembers their outcomes: by name,
/// qualifier, kind, receiver, receiver chain and the context of the definition around
/// them (its modules, its container by identity, not by name, since two classes of one
/// name in a file see different members; the function with nested definitions around
/// it; whether it is class-level). Numbers them in the order the references first show
/// each, which is the order of a [`FileMemo`]'s outcomes.
struct DistinctUses {
    /// Each definition's context, numbered.
    context_of: Vec<u32>,
    seen: HashMap<(u32, u32, RefKind, bool, u32, u32), u32>,
}

impl DistinctUses {
    fn new(facts: &CompactFacts, owners: &[u32]) -> DistinctUses {
        let mut contexts: HashMap<(u32, u32, u32, u32, bool), u32> = HashMap::default();
        let context_of = facts
            .definitions
            .iter()
            .zip(owners)
            .map(|(d, &owner)| {
                let next = contexts.len() as u32;
                *contexts
                    .entry((
                        d.modules,
                        d.container,
                        d.container_id,
                        owner,
                        class_level(d),
                    ))
                    .or_insert(next)
            })
            .collect();
        DistinctUses {
            context_of,
            seen: HashMap::default(),
        }
    }

    /// The number of `r`'s distinct use, and whether `r` is its first reference.
    fn number(&mut self, r: &LocalRef) -> (usize, bool) {
        let context = self
            .context_of
            .get(r.enclosing as usize)
            .copied()
            .unwrap_or(NONE);
        let key = (r.name, r.qualifier, r.kind, r.receiver, r.chain, context);
        let next = self.seen.len() as u32;
        let number = *self.seen.entry(key).or_insert(next);
        (number as usize, number == next)
    }
}

/// The key ([`use_key`]) of each distinct use of `facts`, in [`DistinctUses`] order:
/// what a memo made from these facts holds the outcomes of. `None` when the packed
/// references do not unpack.
fn use_keys(facts: &CompactFacts) -> Option<Vec<u64>> {
    let owners = facts.scope_owners();
    let mut distinct = DistinctUses::new(facts, &owners);
    let mut keys = Vec::new();
    for r in &facts.references()? {
        if distinct.number(r).1 {
            keys.push(use_key(facts, &owners, r));
        }
    }
    Some(keys)
}

/// The reference rows of a file (`facts`) from the memo that `memo_facts`, an earlier
/// version with the same interface, was resolved into, and the memo of `facts` made from
/// it; `None` when a use has a key the memo lacks (resolve the whole tree then) or the
/// memo does not fit `memo_facts`.
pub(crate) fn rows_from_memo(
    facts: &CompactFacts,
    memo_facts: &CompactFacts,
    memo: &FileMemo,
    fid: u32,
    symbol_base: u32,
    target_name: &dyn Fn(u32) -> Option<u32>,
    name_id: &dyn Fn(&str) -> Option<u32>,
) -> Option<(Vec<RefRow>, FileMemo)> {
    let keys = use_keys(memo_facts)?;
    if keys.len() != memo.uses.len() {
        return None;
    }
    let known: HashMap<u64, Outcome> = keys.into_iter().zip(memo.uses.iter().copied()).collect();
    let owners = facts.scope_owners();
    let mut distinct = DistinctUses::new(facts, &owners);
    let mut uses: Vec<Outcome> = Vec::new();
    let complete = std::cell::Cell::new(true);
    let mut next_import = memo.imports.iter().copied();
    let rows = emit_refs(
        facts,
        fid,
        symbol_base,
        |r| {
            let (number, first) = distinct.number(r);
            if !first {
                return uses[number];
            }
            let outcome = match known.get(&use_key(facts, &owners, r)) {
                Some(&outcome) => outcome,
                None => {
                    complete.set(false);
                    Outcome::Drop
                }
            };
            uses.push(outcome);
            outcome
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
    )?;
    // Every named import consumed exactly one outcome (the interface fixes the imports).
    let memo = FileMemo {
        uses,
        imports: memo.imports.clone(),
        heads: memo.heads.clone(),
    };
    (complete.get() && next_import.next().is_none()).then_some((rows, memo))
}

/// The name a named import is recorded under (`None` for globs and namespaces).
fn import_name(import: &Import) -> Option<String> {
    match &import.target {
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
    }
}

/// Turns one file's uses and imports into reference rows, with outcomes from
/// `use_outcome` and `import_outcome` (the resolver, or a memo of it); `None` when its
/// packed references do not unpack.
fn emit_refs(
    facts: &CompactFacts,
    fid: u32,
    symbol_base: u32,
    mut use_outcome: impl FnMut(&LocalRef) -> Outcome,
    mut import_outcome: impl FnMut(&Import, &str) -> Outcome,
    target_name: &dyn Fn(u32) -> Option<u32>,
    name_id: &dyn Fn(&str) -> Option<u32>,
) -> Option<Vec<RefRow>> {
    let mut out = Vec::new();
    let mut emit =
        |name: &str, kind: RefKind, shape: RefShape, line, column, enclosing: u32, outcome| {
            let (target, confidence, name) = match outcome {
                Outcome::Resolved(sid) => (sid, Confidence::Resolved, target_name(sid)),
                Outcome::Guess(sid) => (sid, Confidence::Heuristic, target_name(sid)),
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
    for r in &facts.references()? {
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
        let Some(name) = import_name(import) else {
            continue;
        };
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
    Some(out)
}

/// What a file's family tables give its definitions: the prefix of their qualified
/// names and the separator between its parts.
struct FileHead {
    family: Family,
    prefix: String,
    separator: &'static str,
}

/// One file's share of the tables, made apart from the others' (see [`file_symbols`]).
struct FileSymbols<'a> {
    /// [`names::key`] of each symbol.
    name_keys: Vec<u128>,
    /// (path key, symbol) of each Rust definition.
    rust_paths: Vec<(u64, u32)>,
    /// The store rows of its symbols when it is among the files a patch resolves (a whole
    /// tree's are made as the store is written: `TreeRows`), and their ids.
    rows: Vec<SymbolRow<'a>>,
    row_symbols: Vec<u32>,
}

/// The file holding symbol `id`, given each file's first id: the last file whose ids start
/// at or before `id` (a file without symbols shares its base with the next one).
fn file_of(file_base: &[u32], id: u32) -> usize {
    file_base
        .partition_point(|&base| base <= id)
        .saturating_sub(1)
}

/// Every file's symbols, by id (file `fid`'s are `starts[fid]..starts[fid + 1]`, room
/// included), each file's made in parallel straight into its place: a vector per file
/// appended to the table was about half of what making the symbols cost.
fn every_symbol(files: &[ParsedFile], heads: &[Option<FileHead>], starts: &[u32]) -> Vec<Symbol> {
    let end = starts.last().copied().unwrap_or(0);
    let mut symbols = vec![Symbol::NONE; end as usize];
    let mut places: Vec<(usize, &mut [Symbol])> = Vec::with_capacity(files.len());
    let mut rest = symbols.as_mut_slice();
    for fid in 0..files.len() {
        let len = (starts[fid + 1].saturating_sub(starts[fid]) as usize).min(rest.len());
        let (place, after) = std::mem::take(&mut rest).split_at_mut(len);
        if !place.is_empty() {
            places.push((fid, place));
        }
        rest = after;
    }
    places
        .into_par_iter()
        .with_min_len(64)
        .for_each(|(fid, place)| file_symbols_into(fid, &files[fid], heads[fid].as_ref(), place));
    symbols
}

/// Where the rows of a resolution get their definitions' signatures and docs: from each
/// file's facts when it was parsed in this process, else from `store`, the store of the
/// generation the facts cache was written with (the cache keeps no texts: the store has
/// them, for the same content).
#[derive(Clone, Copy, Default)]
pub(crate) struct Texts<'s> {
    pub store: Option<&'s crate::store::Store>,
}

impl Texts<'_> {
    /// The texts of `file`, laid out as its definitions say (see
    /// [`CompactFacts::texts`]). Empty, with a trace note, when neither its facts nor the
    /// store have them; a build takes cached facts only for files the store has with the
    /// same content, so only damage that no checksum caught gets here.
    fn of(&self, file: &ParsedFile, facts: &CompactFacts) -> String {
        if let Some(texts) = facts.texts() {
            return texts;
        }
        self.store
            .and_then(|store| stored_texts(store, &file.row.path, facts))
            .unwrap_or_else(|| {
                crate::trace::note(format_args!(
                    "{}: rows without signatures or docs: the store has none that fit its facts",
                    file.row.path
                ));
                String::new()
            })
    }
}

/// The texts of `facts`, read from the cache, as `store` holds them for the file at
/// `path` (see [`CompactFacts::texts_from`]); `None` when it has none that fit.
pub(crate) fn stored_texts(
    store: &crate::store::Store,
    path: &str,
    facts: &CompactFacts,
) -> Option<String> {
    let mut symbols = store.file_symbols(store.file_id(path)?)?;
    facts.texts_from(symbols.len(), |signature, doc| {
        symbols
            .next()
            .is_some_and(|id| store.copy_symbol_texts(id, signature, doc))
    })
}

/// File `fid`'s symbols written over `place` (its ids; what its definitions leave
/// becomes room again).
fn file_symbols_into(fid: usize, file: &ParsedFile, head: Option<&FileHead>, place: &mut [Symbol]) {
    let mut written = 0;
    if let (Some(facts), Some(head)) = (&file.facts, head) {
        for ((slot, d), index) in place.iter_mut().zip(&facts.definitions).zip(0u32..) {
            *slot = Symbol {
                kind: d.kind,
                family: head.family,
                member: d.container != NONE,
                file: fid as u32,
                index,
            };
            written += 1;
        }
    }
    place[written..].fill(Symbol::NONE);
}

/// The name of `symbol`, read from its file's facts.
fn definition_name<'a>(files: &'a [ParsedFile], symbol: &Symbol) -> &'a str {
    files
        .get(symbol.file as usize)
        .and_then(|f| f.facts.as_ref())
        .and_then(|facts| Some(facts.name(facts.definitions.get(symbol.index as usize)?)))
        .unwrap_or("")
}

/// One file's name and path keys and rows: reads only the file and its family's tables,
/// so files are made in parallel. Its name and path keys only with `keys` (kept tables
/// hold those of the files that did not change), its rows only when they are wanted,
/// with their texts from `rows`: a file with neither has nothing to make.
fn file_symbols<'a>(
    fid: u32,
    file: &'a ParsedFile,
    head: Option<&FileHead>,
    base: u32,
    rows: Option<Texts>,
    keys: bool,
    rust: &rust::RustTables,
) -> FileSymbols<'a> {
    let wanted = rows.is_some();
    let mut made = FileSymbols {
        name_keys: Vec::new(),
        rust_paths: Vec::new(),
        rows: Vec::new(),
        row_symbols: Vec::new(),
    };
    let (Some(facts), Some(head), true) = (&file.facts, head, wanted || keys) else {
        return made;
    };
    let family = head.family;
    if keys {
        made.name_keys.extend(
            facts
                .definitions
                .iter()
                .enumerate()
                .map(|(i, d)| names::key(facts.name(d), base + i as u32)),
        );
    }
    // Rust's tables need every qualified name (as path keys), the rows only the wanted
    // ones.
    let mut rust_keys = (keys && family == Family::Rust)
        .then(|| rust.definition_keys(fid))
        .flatten();
    if !wanted && rust_keys.is_none() {
        return made;
    }
    let mut prefixes = SharedPrefixes::default();
    let mut row_prefix: Option<Arc<str>> = None;
    // Only a patch's few files get rows here (texts from their facts, or the store's).
    let texts = rows.map_or_else(String::new, |texts| texts.of(file, facts));
    for_each_scoped(facts, head, |i, d, scope| {
        let sid = base + i;
        if let Some(scope) = scope {
            if let Some(keys) = &mut rust_keys {
                keys.enter(scope);
            }
            row_prefix = wanted.then(|| prefixes.get(scope));
        }
        if let Some(keys) = &mut rust_keys {
            made.rust_paths.push((keys.key(facts.name(d)), sid));
        }
        if let Some(prefix) = &row_prefix {
            // Name ids are assigned once every name is known.
            let row = facts.symbol_row(d, &texts, 0, fid, base, Arc::clone(prefix));
            made.rows.push(row.into_owned());
            made.row_symbols.push(sid);
        }
    });
    made
}

/// Calls `each` with every definition of a file, by index, and the prefix of the
/// qualified names of its scope when that is another than the definition before's
/// (neighbours mostly share one, and it is worked out once per scope).
fn for_each_scoped<'f>(
    facts: &'f CompactFacts,
    head: &FileHead,
    mut each: impl FnMut(u32, &'f Def, Option<&str>),
) {
    let mut scope: Option<ScopeKey> = None;
    let mut scope_prefix = String::with_capacity(64);
    for (i, d) in facts.definitions.iter().enumerate() {
        let key = scope_key(head.family, d);
        if scope == Some(key) {
            each(i as u32, d, None);
        } else {
            scope = Some(key);
            qualified_prefix(facts, d, head, &mut scope_prefix);
            each(i as u32, d, Some(&scope_prefix));
        }
    }
}

/// One file's qualified-name prefixes, each held once for the rows that share it.
#[derive(Default)]
struct SharedPrefixes(rustc_hash::FxHashSet<Arc<str>>);

impl SharedPrefixes {
    fn get(&mut self, prefix: &str) -> Arc<str> {
        match self.0.get(prefix) {
            Some(shared) => Arc::clone(shared),
            None => {
                let shared: Arc<str> = prefix.into();
                self.0.insert(Arc::clone(&shared));
                shared
            }
        }
    }
}

/// Files a whole resolution makes rows of between two [`Store::forget_read_pages`] of
/// the store it reads texts from: it reads the files in order, each page about once.
///
/// [`Store::forget_read_pages`]: crate::store::Store::forget_read_pages
const ROW_FILES_PER_PAGE_RELEASE: u32 = 1024;

/// The symbol rows of a whole resolution, made from the facts a file at a time as the
/// store is written (see [`SymbolRows::PerFile`]): the rows [`file_symbols`] makes for
/// a wanted file.
struct TreeRows<'a> {
    files: &'a [ParsedFile],
    texts: Texts<'a>,
    heads: Vec<Option<FileHead>>,
    /// First symbol id of each file.
    file_base: Vec<u32>,
    /// Per symbol id: its name's id.
    symbol_names: Vec<u32>,
}

impl RowSource for TreeRows<'_> {
    fn len(&self) -> usize {
        self.symbol_names.len()
    }

    fn file_count(&self) -> u32 {
        self.files.len() as u32
    }

    fn for_each_row(&self, file: u32, each: &mut dyn FnMut(&SymbolRow<'_>)) {
        if let Some(store) = self.texts.store
            && file.is_multiple_of(ROW_FILES_PER_PAGE_RELEASE)
        {
            store.forget_read_pages();
        }
        let fid = file as usize;
        let (Some(facts), Some(Some(head)), Some(&base)) = (
            self.files.get(fid).and_then(|f| f.facts.as_ref()),
            self.heads.get(fid),
            self.file_base.get(fid),
        ) else {
            return;
        };
        let texts = self.texts.of(&self.files[fid], facts);
        let mut prefixes = SharedPrefixes::default();
        let mut prefix: Arc<str> = Arc::from("");
        for_each_scoped(facts, head, |i, d, scope| {
            if let Some(scope) = scope {
                prefix = prefixes.get(scope);
            }
            let name = self.name(base + i);
            each(&facts.symbol_row(d, &texts, name, file, base, Arc::clone(&prefix)));
        });
    }

    fn name(&self, id: u32) -> u32 {
        self.symbol_names.get(id as usize).copied().unwrap_or(0)
    }

    fn bounds(&self) -> SymbolBounds {
        (0..self.files.len())
            .into_par_iter()
            .map(|fid| {
                let mut bounds = SymbolBounds::default();
                let no_prefix: Arc<str> = Arc::from("");
                // The files and definitions `for_each_row` makes rows of, as it makes them
                // but for the texts.
                if let (Some(facts), Some(Some(_)), Some(&base)) = (
                    self.files[fid].facts.as_ref(),
                    self.heads.get(fid),
                    self.file_base.get(fid),
                ) {
                    for (i, d) in facts.definitions.iter().enumerate() {
                        let name = self.name(base + i as u32);
                        let prefix = Arc::clone(&no_prefix);
                        bounds.include(&facts.symbol_row(d, "", name, fid as u32, base, prefix));
                    }
                }
                bounds
            })
            .reduce(SymbolBounds::default, SymbolBounds::merge)
    }

    fn position(&self, id: u32) -> (u32, u32, u32) {
        let file = file_of(&self.file_base, id);
        let definition = self.files.get(file).and_then(|f| {
            let facts = f.facts.as_ref()?;
            facts.definitions.get((id - self.file_base[file]) as usize)
        });
        definition.map_or((file as u32, 0, 0), |d| (file as u32, d.line, d.column))
    }
}

/// What decides a definition's qualified-name prefix besides its file (see
/// [`scope_key`]): definitions with equal keys share their prefix.
#[derive(Clone, Copy, PartialEq, Eq)]
struct ScopeKey {
    modules: u32,
    container: u32,
    parent: u32,
    field: bool,
}

/// The parts of `d` that [`qualified_prefix`] reads, for its family.
fn scope_key(family: Family, d: &Def) -> ScopeKey {
    let key = |modules, container, parent, field| ScopeKey {
        modules,
        container,
        parent,
        field,
    };
    match family {
        // The inline modules and the container.
        Family::Rust | Family::Ecma | Family::Go | Family::C | Family::Shell | Family::Lua => {
            key(d.modules, d.container, NONE, false)
        }
        // A field: its class; anything else: the definitions around it.
        Family::Python if d.kind == SymbolKind::Field => key(NONE, d.container, NONE, true),
        Family::Python => key(NONE, NONE, d.parent, false),
        // The namespaces, the types around it, and (PHP's separator) whether it is a member.
        Family::Java | Family::CSharp | Family::Php | Family::Ruby | Family::Kotlin => {
            key(d.modules, u32::from(d.container != NONE), d.parent, false)
        }
    }
}

/// Writes into `out` the qualified name of `d` without the name itself: the file's
/// prefix, the scopes around `d`, and the separator before the name.
fn qualified_prefix(facts: &CompactFacts, d: &Def, head: &FileHead, out: &mut String) {
    let FileHead {
        family,
        ref prefix,
        separator,
    } = *head;
    let scopes: Vec<&str> = match family {
        Family::Rust | Family::Ecma | Family::Go | Family::C | Family::Shell | Family::Lua => facts
            .modules(d)
            .iter()
            .map(String::as_str)
            .chain(facts.container(d))
            .collect(),
        Family::Python => python::scopes(facts, d),
        Family::Java | Family::CSharp | Family::Php | Family::Ruby | Family::Kotlin => {
            classes::scopes(facts, d)
        }
    };
    // PHP writes a member as `App\Models\User::find`, a function or a class as
    // `App\helpers\format`.
    let member_separator = match family {
        Family::Php if d.container != NONE => "::",
        Family::Php
        | Family::Rust
        | Family::Ecma
        | Family::Python
        | Family::Go
        | Family::Java
        | Family::CSharp
        | Family::C
        | Family::Ruby
        | Family::Kotlin
        | Family::Shell
        | Family::Lua => separator,
    };
    out.clear();
    for part in std::iter::once(prefix.as_str())
        .filter(|p| !p.is_empty())
        .chain(scopes)
    {
        if !out.is_empty() {
            out.push_str(separator);
        }
        out.push_str(part);
    }
    if !out.is_empty() {
        out.push_str(member_separator);
    }
}

/// What a resolution does about [`KeptTables`], for a caller that holds every file's
/// declarations between resolutions. Only a resolution of some files (a patch) keeps
/// tables: their ids have room to grow ([`kept`]), a whole store's are back to back.
pub(crate) enum Keep {
    /// Nothing: the caller keeps no tables.
    No,
    /// Makes them, and gives them back.
    Fresh,
    /// Brings these up to date and gives them back: they were made from the same files,
    /// of which those listed (ascending) have other definitions or imports now.
    Update(Box<KeptTables>, Vec<u32>),
}

/// Resolves every file's references and assembles the store tables; also returns each
/// file's [`FileMemo`], in file order.
pub(crate) fn resolve<'a>(
    files: &'a [ParsedFile],
    meta: crate::store::IndexMeta,
    texts: Texts<'a>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> (StoreData<'a>, Vec<FileMemo>) {
    let (data, memos, _) = resolve_some(files, meta, None, None, Keep::No, texts, cancelled);
    (data, memos)
}

/// [`resolve`] with the tables of every file but the references of only the files `only`
/// (ascending file indices), when given: the store tables then hold every file (with its
/// range of the resolution's symbol ids, which have room between files when tables are
/// kept: the caller translates them to the store's) and the names the rows and
/// references use (numbered from 0 in byte order), every override and implementation,
/// and the symbol rows and references of those files only (their rows back to back, in
/// that order); the memos are theirs, in that order. The heads of `known`'s files are
/// taken from it. Once `cancelled` says so, the files left are not resolved (their
/// references and memos come out empty): the caller, which asked for the cancellation,
/// discards the result. The tables `keep` asks for come back last (only with `only`).
pub(crate) fn resolve_some<'a>(
    files: &'a [ParsedFile],
    meta: crate::store::IndexMeta,
    only: Option<&[u32]>,
    known: Option<&KnownHeads>,
    keep: Keep,
    texts: Texts<'a>,
    cancelled: &(dyn Fn() -> bool + Sync),
) -> (StoreData<'a>, Vec<FileMemo>, Option<KeptTables>) {
    let started = std::time::Instant::now();
    // A file's definitions are symbols when it has facts and a language family.
    let has_symbols = |fid: usize| files[fid].facts.is_some() && files[fid].family().is_some();
    let definitions = |fid: usize| {
        if has_symbols(fid) {
            files[fid].facts.as_ref().map_or(0, |f| f.definitions.len())
        } else {
            0
        }
    };
    let counts: Vec<u32> = (0..files.len())
        .map(|fid| definitions(fid) as u32)
        .collect();
    let keep_tables = only.is_some() && !matches!(keep, Keep::No);
    // Kept tables to bring up to date and the files that changed; when they cannot be,
    // the files that outgrew their room (made again with more).
    let mut outgrown: Vec<u32> = Vec::new();
    let mut update: Option<(KeptTables, Vec<u32>)> = match keep {
        Keep::Update(kept, changed) if keep_tables => {
            match kept.misfit(&counts, &changed, |fid| files[fid].row.path.as_str()) {
                None => Some((*kept, changed)),
                Some(reason) => {
                    crate::trace::note(format_args!("kept tables made again: {reason}"));
                    outgrown = changed;
                    None
                }
            }
        }
        Keep::No | Keep::Fresh | Keep::Update(..) => None,
    };
    let starts = match &update {
        Some((kept, _)) => kept.starts.clone(),
        None if keep_tables => kept::with_room(&counts, has_symbols, &outgrown),
        None => kept::packed(&counts),
    };
    let id_end = starts.last().copied().unwrap_or(0);
    if keep_tables && update.is_none() {
        let total: u32 = counts.iter().sum();
        crate::trace::note(format_args!(
            "tables made: {total} definitions in {id_end} ids"
        ));
    }
    // A path table is sized for every Rust definition only when none is kept to adopt.
    let size_paths = update.is_none();
    let kept_modules = update
        .as_mut()
        .map(|(kept, changed)| (std::mem::take(&mut kept.rust_modules), &changed[..]));
    let mut tables = Tables {
        run: RESOLUTION_RUN.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        files,
        symbols: Vec::new(),
        file_base: starts,
        names: names::NameTable::build(Vec::new(), 0, |_| ""),
        file_ids: files
            .iter()
            .enumerate()
            .map(|(i, f)| (f.row.path.as_str(), i as u32))
            .collect(),
        rust: rust::RustTables::new(files, size_paths, kept_modules),
        // Kept exports are written again for the changed files only.
        ecma: match &mut update {
            Some((kept, changed)) => {
                let mut ecma = std::mem::take(&mut kept.ecma);
                for &fid in changed.iter() {
                    ecma.clear_file(fid);
                }
                ecma
            }
            None => ecma::EcmaTables::new(files.len()),
        },
        python: python::PythonTables::new(files),
        go: go::GoTables::new(files),
        java: classes::ClassTables::new(classes::Dialect::Java),
        csharp: classes::ClassTables::new(classes::Dialect::CSharp),
        php: classes::ClassTables::new(classes::Dialect::Php),
        ruby: classes::ClassTables::new(classes::Dialect::Ruby),
        kotlin: classes::ClassTables::new(classes::Dialect::Kotlin),
        c: c::CTables::default(),
        shell: shell::ShellTables::default(),
        lua: lua::LuaTables::default(),
        types: types::TypeIndex::default(),
    };
    // Rows are made here for the files `only` names; a whole tree's as the store is
    // written (`TreeRows`).
    let wanted_definitions = match only {
        Some(only) => only.iter().map(|&fid| definitions(fid as usize)).sum(),
        None => 0,
    };
    let mut rows: Vec<SymbolRow> = Vec::with_capacity(wanted_definitions);
    // The symbol id of each row.
    let mut row_symbols: Vec<u32> = Vec::with_capacity(wanted_definitions);
    let mut file_rows: Vec<FileRow> = Vec::with_capacity(files.len());
    // In file order: each file's family tables (its module, imports, exports), which
    // give the prefix of its qualified names.
    let mut heads: Vec<Option<FileHead>> = Vec::with_capacity(files.len());
    // The files whose entries are made: every file, or with kept tables (which hold the
    // others' keys and ECMAScript exports) the changed ones.
    let changed_files: Option<Vec<u32>> = update.as_ref().map(|(_, changed)| changed.clone());
    let made_anew = |fid: usize| {
        changed_files
            .as_ref()
            .is_none_or(|changed| changed.binary_search(&(fid as u32)).is_ok())
    };
    for (fid, file) in files.iter().enumerate() {
        let base = tables.file_base[fid];
        let fid = fid as u32;
        let (Some(facts), Some(family)) = (&file.facts, file.family()) else {
            heads.push(None);
            continue;
        };
        let (prefix, separator) = match family {
            Family::Rust => (tables.rust.add_file(fid), "::"),
            Family::Ecma if !made_anew(fid as usize) => (String::new(), "."),
            Family::Ecma => (tables.ecma.add_file(fid, facts, base), "."),
            Family::Python => (
                tables.python.add_file(fid, &file.row.path, facts, base),
                ".",
            ),
            Family::Go => (tables.go.add_file(fid, &file.row.path, facts, base), "."),
            Family::Java => (tables.java.add_file(facts, base), "."),
            Family::CSharp => (tables.csharp.add_file(facts, base), "."),
            // C writes a struct's field `cart.count`, C++ `shop::Cart::total`.
            Family::C => (
                tables.c.add_file(fid, &file.row.path, &facts.imports),
                if file.row.lang == Some(Lang::Cpp) {
                    "::"
                } else {
                    "."
                },
            ),
            Family::Php => (tables.php.add_file(facts, base), "\\"),
            Family::Ruby => (tables.ruby.add_file(facts, base), "::"),
            Family::Kotlin => (tables.kotlin.add_file(facts, base), "."),
            Family::Shell => (tables.shell.add_file(fid, &file.row.path), "."),
            Family::Lua => (tables.lua.add_file(fid, &file.row.path), "."),
        };
        heads.push(Some(FileHead {
            family,
            prefix,
            separator,
        }));
    }
    // Kept symbols keep their places; only the changed files' are written again.
    tables.symbols = match &mut update {
        Some((kept, changed)) => {
            let mut symbols = std::mem::take(&mut kept.symbols);
            for &fid in changed.iter() {
                let fid = fid as usize;
                let ids = tables.file_base[fid] as usize..tables.file_base[fid + 1] as usize;
                if let Some(place) = symbols.get_mut(ids) {
                    file_symbols_into(fid, &files[fid], heads[fid].as_ref(), place);
                }
            }
            symbols
        }
        None => every_symbol(files, &heads, &tables.file_base),
    };
    match &update {
        Some((_, changed)) => {
            for &fid in changed.iter() {
                tables.ecma.finish_file(files, fid as usize);
            }
        }
        None => tables.ecma.finish(files),
    }
    tables.c.finish(files, &tables.file_ids);
    tables.shell.finish(files, &tables.file_ids);
    // Each file's keys and rows are made in parallel, a batch of files at a time (so a
    // batch's vectors are all that is held twice), and merged into the tables in file
    // order: the same ids and the same lists as one pass would make.
    const BATCH: usize = 1024;
    // (path key, symbol) of every Rust definition and (name key, symbol) of every
    // definition whose keys are made, made into tables once every symbol is known.
    let (mut keyed, mut rust_keyed) = (0, 0);
    for fid in (0..files.len()).filter(|&fid| made_anew(fid)) {
        keyed += definitions(fid);
        if files[fid].family() == Some(Family::Rust) {
            rust_keyed += definitions(fid);
        }
    }
    let mut rust_paths: Vec<(u64, u32)> = Vec::with_capacity(rust_keyed);
    let mut name_keys: Vec<u128> = Vec::with_capacity(keyed);
    for batch in (0..files.len()).step_by(BATCH) {
        let end = (batch + BATCH).min(files.len());
        let made: Vec<FileSymbols> = (batch..end)
            .into_par_iter()
            .map(|fid| {
                let wanted = only.is_some_and(|only| only.binary_search(&(fid as u32)).is_ok());
                file_symbols(
                    fid as u32,
                    &files[fid],
                    heads[fid].as_ref(),
                    tables.file_base[fid],
                    wanted.then_some(texts),
                    made_anew(fid),
                    &tables.rust,
                )
            })
            .collect();
        for (fid, made) in (batch..end).zip(made) {
            let base = tables.file_base[fid];
            rows.extend(made.rows);
            row_symbols.extend(made.row_symbols);
            let mut row = files[fid].row.clone();
            row.symbols = (base, base + counts[fid]);
            file_rows.push(row);
            rust_paths.extend(made.rust_paths);
            name_keys.extend(made.name_keys);
        }
    }
    // The names and the Rust paths are separate tables: made side by side.
    let (symbols, rust) = (&tables.symbols, &mut tables.rust);
    let name_of = |sid: u32| {
        symbols
            .get(sid as usize)
            .map_or("", |s| definition_name(files, s))
    };
    #[cfg(debug_assertions)]
    let updated = update.is_some();
    // The ids of the changed files (their definitions may be others now) and the kept
    // type index's parts.
    let gone: Vec<std::ops::Range<u32>> = update.as_ref().map_or_else(Vec::new, |(_, changed)| {
        changed
            .iter()
            .map(|&fid| tables.file_base[fid as usize]..tables.file_base[fid as usize + 1])
            .collect()
    });
    let kept_types = update
        .as_mut()
        .map(|(kept, _)| std::mem::take(&mut kept.types));
    let names = match update {
        Some((kept, _)) => {
            let added: Vec<(u128, &str)> = name_keys
                .iter()
                .map(|&key| (key, name_of(names::symbol(key))))
                .collect();
            let KeptTables {
                names: mut kept_names,
                rust_paths: kept_paths,
                ..
            } = kept;
            rayon::join(
                || {
                    kept_names.update(&gone, &added, id_end);
                    kept_names
                },
                || rust.update_paths(kept_paths, &gone, rust_paths),
            )
            .0
        }
        None => {
            rayon::join(
                || names::NameTable::build(name_keys, id_end, name_of),
                || {
                    for (key, sid) in rust_paths {
                        rust.add_path(key, sid);
                    }
                },
            )
            .0
        }
    };
    tables.names = names;
    #[cfg(debug_assertions)]
    if updated {
        check_kept_tables(&tables, &heads);
    }
    for (row, &sid) in rows.iter_mut().zip(&row_symbols) {
        row.name = tables.names.id_of_symbol(sid).unwrap_or(0);
    }
    trace_phase("tables built", started);
    let phase = std::time::Instant::now();
    let types_update = kept_types.map(|kept| types::TypesUpdate {
        kept,
        gone: &gone,
        resolved: only.unwrap_or(&[]),
    });
    let (type_index, mut kept_types) =
        types::TypeIndex::build(&tables, known, types_update, keep_tables);
    tables.types = type_index;
    trace_phase("types indexed", phase);
    let phase = std::time::Instant::now();
    let every: Vec<u32>;
    let selected = match only {
        Some(only) => only,
        None => {
            every = (0..files.len() as u32).collect();
            &every
        }
    };
    // Sized once for every row the files can give (a use or a named import gives at most
    // one; capacity never written to takes no memory), and each file's rows copied in as
    // soon as they are made: gathering every file's rows before copying them into one
    // vector held all of them twice (on `rustreg`, 107 MiB more at the peak of a cold
    // build), and resolving a batch of files at a time left threads idle at the end of
    // each batch (0.5 s more). Their order is the sort's below.
    let most_rows = selected
        .iter()
        .filter_map(|&fid| files[fid as usize].facts.as_ref())
        .map(CompactFacts::most_reference_rows)
        .sum();
    // A damaged cache entry that its checksum missed could claim any count: a capacity
    // that cannot be had is left to grow instead.
    let mut refs: Vec<RefRow> = Vec::new();
    if refs.try_reserve_exact(most_rows).is_err() {
        crate::trace::note(format_args!("no room reserved for {most_rows} references"));
    }
    let refs = std::sync::Mutex::new(refs);
    let mut memos: Vec<FileMemo> = selected
        .par_iter()
        .map(|&fid| {
            if cancelled() {
                return FileMemo::default();
            }
            let (rows, memo) = tables.resolve_file(fid);
            // Only a panic elsewhere poisons the lock, and it ends the build anyway.
            refs.lock().unwrap_or_else(|e| e.into_inner()).extend(rows);
            memo
        })
        .collect();
    let mut refs = refs.into_inner().unwrap_or_else(|e| e.into_inner());
    // The remembered chases are of no use to the next run, and hold memory the rest of
    // this one needs.
    rayon::broadcast(|_| rust::forget_chases());
    // Each memo keeps its file's container heads (the type index is done with them;
    // kept tables keep them too).
    for (memo, &fid) in memos.iter_mut().zip(selected) {
        if let Some(heads) = tables.types.heads.get_mut(fid as usize) {
            memo.heads = if keep_tables {
                heads.clone()
            } else {
                std::mem::take(heads)
            };
        }
    }
    trace_phase("references resolved", phase);
    let phase = std::time::Instant::now();
    // Every field in the key: the rows come in the order files finished, and of two rows
    // at one place the same one must be kept whatever that order was.
    refs.par_sort_unstable_by_key(|r| {
        (
            (r.name, r.file, r.line, r.column),
            (r.target, r.enclosing, r.kind, r.confidence, r.shape as u8),
        )
    });
    refs.dedup_by_key(|r| (r.name, r.file, r.line, r.column));
    trace_phase("references sorted", phase);
    // A kept type index keeps its overrides and records (the next update changes them).
    let (overrides, implementations) = if keep_tables {
        (
            tables.types.overrides.clone(),
            tables.types.implementations.clone(),
        )
    } else {
        (
            std::mem::take(&mut tables.types.overrides),
            std::mem::take(&mut tables.types.implementations),
        )
    };
    let (names, symbols) = match only {
        // The names the rows and references use, in byte order and numbered from 0
        // (kept tables number new names after the others).
        Some(_) => {
            let mut used: Vec<u32> = rows
                .iter()
                .map(|row| row.name)
                .chain(refs.iter().map(|r| r.name))
                .collect();
            used.sort_unstable_by(|&a, &b| tables.names.name(a).cmp(tables.names.name(b)));
            used.dedup();
            let mut renumber: HashMap<u32, u32> = HashMap::default();
            renumber.reserve(used.len());
            for (at, &id) in used.iter().enumerate() {
                renumber.insert(id, at as u32);
            }
            for row in &mut rows {
                row.name = renumber.get(&row.name).copied().unwrap_or(0);
            }
            for r in &mut refs {
                r.name = renumber.get(&r.name).copied().unwrap_or(0);
            }
            let names: Vec<Cow<str>> = used
                .iter()
                .map(|&id| Cow::Owned(tables.names.name(id).to_owned()))
                .collect();
            (names, SymbolRows::Made(rows))
        }
        // A whole tree's table is made afresh: its ids are the names' byte order.
        None => {
            let names: Vec<Cow<str>> = tables
                .names
                .sorted()
                .into_iter()
                .flatten()
                .map(|name| Cow::Owned(name.to_owned()))
                .collect();
            let rows = SymbolRows::PerFile(Box::new(TreeRows {
                files,
                texts,
                heads,
                file_base: std::mem::take(&mut tables.file_base),
                symbol_names: tables.names.take_symbol_names(),
            }));
            (names, rows)
        }
    };
    let kept = keep_tables.then(|| KeptTables {
        starts: std::mem::take(&mut tables.file_base),
        counts,
        symbols: std::mem::take(&mut tables.symbols),
        names: std::mem::replace(
            &mut tables.names,
            names::NameTable::build(Vec::new(), 0, |_| ""),
        ),
        rust_paths: tables.rust.take_paths(id_end),
        rust_modules: tables.rust.take_modules(),
        ecma: std::mem::take(&mut tables.ecma),
        types: kept_types
            .take()
            .map(|mut kept| {
                kept.heads = std::mem::take(&mut tables.types.heads);
                kept.index = Some(std::mem::take(&mut tables.types));
                kept
            })
            .unwrap_or_default(),
    });
    // Freed before the caller writes the store, so that the allocator gives their memory
    // to the store's sections (freed on another thread while the store was written, they
    // added to its peak; with mimalloc freeing them takes 5 ms on `rustreg`, where glibc
    // took half a second).
    drop(tables);
    let data = StoreData {
        names,
        files: file_rows,
        symbols,
        refs,
        overrides,
        implementations,
        remap: Vec::new(),
        meta,
    };
    (data, memos, kept)
}

/// Debug builds: the tables brought up to date are those made from scratch.
#[cfg(debug_assertions)]
fn check_kept_tables(tables: &Tables, heads: &[Option<FileHead>]) {
    let fresh = every_symbol(tables.files, heads, &tables.file_base);
    if let Some(sid) = (0..fresh.len()).find(|&i| tables.symbols.get(i) != Some(&fresh[i])) {
        panic!(
            "kept symbol {sid} of {}: {:?}, made afresh {:?}",
            tables.symbols.len(),
            tables.symbols.get(sid),
            fresh[sid]
        );
    }
    let made: Vec<FileSymbols> = (0..tables.files.len())
        .map(|fid| {
            let (file, head) = (&tables.files[fid], heads[fid].as_ref());
            file_symbols(
                fid as u32,
                file,
                head,
                tables.file_base[fid],
                None,
                true,
                &tables.rust,
            )
        })
        .collect();
    let name_keys: Vec<u128> = made.iter().flat_map(|m| m.name_keys.clone()).collect();
    let id_end = fresh.len() as u32;
    let names = names::NameTable::build(name_keys, id_end, |sid| {
        definition_name(tables.files, &fresh[sid as usize])
    });
    for sid in 0..id_end {
        assert_eq!(
            tables.names.name_of_symbol(sid),
            names.name_of_symbol(sid),
            "kept name of symbol {sid}"
        );
    }
    for name in names.sorted().into_iter().flatten() {
        assert_eq!(
            tables.names.symbols_named(name),
            names.symbols_named(name),
            "kept symbols named {name:?}"
        );
    }
    let mut paths: Vec<(u64, u32)> = made.iter().flat_map(|m| m.rust_paths.clone()).collect();
    paths.sort_unstable();
    assert_eq!(tables.rust.path_pairs(), paths, "kept Rust paths");
    assert!(
        tables.rust.modules_are_fresh(),
        "kept Rust modules and scopes"
    );
    let mut ecma = ecma::EcmaTables::new(tables.files.len());
    for (fid, file) in tables.files.iter().enumerate() {
        if let (Some(facts), Some(Family::Ecma)) = (&file.facts, file.family()) {
            ecma.add_file(fid as u32, facts, tables.file_base[fid]);
        }
    }
    ecma.finish(tables.files);
    assert!(tables.ecma == ecma, "kept ECMAScript exports");
}

impl Tables<'_> {
    /// One file's reference rows, and the memo that can redo them without these tables.
    fn resolve_file(&self, fid: u32) -> (Vec<RefRow>, FileMemo) {
        let file = &self.files[fid as usize];
        // The memo's heads are moved in by the caller, once every file is resolved.
        let mut memo = FileMemo::default();
        let (Some(facts), Some(family)) = (&file.facts, file.family()) else {
            return (Vec::new(), memo);
        };
        // A file is resolved from facts read whole (the caller's promise: facts read
        // without their uses would give it no references).
        debug_assert!(
            facts.has_uses(),
            "{} resolved without its uses",
            file.row.path
        );
        let resolver = self.resolver(family);
        // The same use in the same context resolves the same way: each distinct use
        // (see `DistinctUses`) is resolved once, its outcome remembered in the memo.
        let mut distinct = DistinctUses::new(facts, &facts.scope_owners());
        let use_outcome = |r: &LocalRef| {
            let (number, first) = distinct.number(r);
            if !first {
                return memo.uses[number];
            }
            let name = facts.string(r.name);
            let at = self.place(fid, facts, r.enclosing);
            let reference = Use {
                at,
                name,
                kind: r.kind,
                receiver: r.receiver,
                // A receiver chain whose root is not a path went through a local (or is an
                // expression): `Path` roots are the only unbound names. A root path that
                // the receiver as written does not start with went through a local too
                // (`w = xs; w.f`).
                local_receiver: facts.chain(r).is_some_and(|c| match c.root() {
                    written::RootView::Path(path) => {
                        r.qualifier == NONE || !written_from_path(path, facts.string(r.qualifier))
                    }
                    _ => true,
                }),
                qualifier: (r.qualifier != NONE).then(|| facts.string(r.qualifier)),
                candidates: self.candidates(name),
            };
            // Most names are locals or outside names no definition has: nothing to resolve,
            // unless an import renames something (`use a::Doc as D`).
            let outcome =
                if reference.candidates.is_empty() && facts.imports_named(name).next().is_none() {
                    Outcome::Drop
                } else {
                    let typed = facts
                        .chain(r)
                        .and_then(|chain| self.member_of_chain(family, at, chain, name, r.kind));
                    match typed {
                        Some(outcome) => outcome,
                        None => resolver.resolve_use(self, &reference),
                    }
                };
            memo.uses.push(outcome);
            outcome
        };
        let mut imports = Vec::with_capacity(facts.imports.len());
        let import_outcome = |import: &Import, name: &str| {
            let outcome = if !self.names.contains(name) {
                Outcome::Drop
            } else {
                match resolver.import_targets(self, fid, import) {
                    Some(targets) if !targets.is_empty() => Outcome::Resolved(targets[0]),
                    Some(_) => Outcome::Heuristic,
                    None => Outcome::Drop,
                }
            };
            imports.push(outcome);
            outcome
        };
        // Checked by the cache entry's checksum, or packed by this process: only a damaged
        // entry the checksum missed does not unpack, and its file then has no references.
        let rows = emit_refs(
            facts,
            fid,
            self.file_base[fid as usize],
            use_outcome,
            import_outcome,
            &|sid| self.names.id_of_symbol(sid),
            &|name| self.names.id(name),
        )
        .unwrap_or_else(|| {
            crate::trace::note(format_args!(
                "{}: cached references do not decode",
                file.row.path
            ));
            Vec::new()
        });
        memo.imports = imports;
        (rows, memo)
    }

    /// Name matching among compatible definitions of the same language family.
    fn heuristic(
        &self,
        candidates: &[u32],
        family: Family,
        accept: impl Fn(&Symbol) -> bool,
    ) -> Outcome {
        if candidates.iter().any(|&s| {
            let symbol = &self.symbols[s as usize];
            symbol.family == family && accept(symbol)
        }) {
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

    /// The facts and definition of symbol `sid`.
    fn definition(&self, sid: u32) -> Option<(u32, &CompactFacts, &Def)> {
        let symbol = self.symbols.get(sid as usize)?;
        let facts = self.files.get(symbol.file as usize)?.facts.as_ref()?;
        Some((
            symbol.file,
            facts,
            facts.definitions.get(symbol.index as usize)?,
        ))
    }
}

/// Whether the receiver as written starts with a path's segments (`a.b` of `a.b.c`,
/// `a::b`, `A\\B`), whatever the separator: then it names that path, not a local.
fn written_from_path(path: &[String], written: &str) -> bool {
    const SEPARATORS: [&str; 3] = [".", "::", "\\"];
    let mut rest = written;
    for (i, segment) in path.iter().enumerate() {
        if i > 0 {
            let Some(after) = SEPARATORS.iter().find_map(|s| rest.strip_prefix(s)) else {
                return false;
            };
            rest = after;
        }
        let Some(after) = rest.strip_prefix(segment.as_str()) else {
            return false;
        };
        rest = after;
    }
    rest.is_empty() || SEPARATORS.iter().any(|s| rest.starts_with(s))
}

/// What a member use (`x.name`, `x.name()`) of unknown receiver type may refer to.
pub(crate) fn member_may_be(kind: RefKind, symbol: SymbolKind, family: Family) -> bool {
    match kind {
        RefKind::Call => match family {
            // A C# extension method (kind function) is called like a method; so is a
            // Kotlin extension function (`fun Cart.total()`).
            Family::CSharp | Family::Kotlin => {
                matches!(symbol, SymbolKind::Method | SymbolKind::Function)
            }
            // A call through a member calls a function pointer field or a C++ method.
            Family::C => matches!(symbol, SymbolKind::Field | SymbolKind::Method),
            Family::Rust
            | Family::Ecma
            | Family::Python
            | Family::Go
            | Family::Java
            | Family::Php => symbol == SymbolKind::Method,
            Family::Ruby => matches!(symbol, SymbolKind::Method | SymbolKind::Function),
            // Shell values have no members.
            Family::Shell => false,
            // A table's function, called `M.f()` or `obj:f()`.
            Family::Lua => matches!(symbol, SymbolKind::Method | SymbolKind::Function),
        },
        _ => matches!(symbol, SymbolKind::Field | SymbolKind::Method),
    }
}

/// What a use written as a name or a path may refer to: what its kind can refer to, and
/// in C a macro too (called like a function, used like a constant or a type).
pub(crate) fn name_may_be(kind: RefKind, symbol: SymbolKind, family: Family) -> bool {
    kind.can_refer_to(symbol)
        || match family {
            Family::C => symbol == SymbolKind::Macro,
            Family::Rust
            | Family::Ecma
            | Family::Python
            | Family::Go
            | Family::Java
            | Family::CSharp
            | Family::Php
            | Family::Ruby
            | Family::Kotlin
            | Family::Shell
            | Family::Lua => false,
        }
}

/// Whether a bare name may call a method of `self` that the resolver could not pin down
/// (Ruby's `total` in a module is a method of whatever includes it). Elsewhere a bare
/// name that is not resolved is never a member.
pub(crate) fn bare_call_is_method(family: Family) -> bool {
    match family {
        Family::Ruby => true,
        Family::Rust
        | Family::Ecma
        | Family::Python
        | Family::Go
        | Family::Java
        | Family::CSharp
        | Family::C
        | Family::Php
        | Family::Kotlin
        | Family::Shell
        | Family::Lua => false,
    }
}

fn compatible_kind(kind: RefKind, symbol: SymbolKind) -> bool {
    kind.can_refer_to(symbol) || kind == RefKind::Field
}

#[cfg(test)]
mod tests {
    use super::{
        Chase, ChaseRecord, CompactFacts, MAX_CHAIN_STEPS, Outcome, ParsedFile, RefRow, Texts,
        fingerprint, resolve, rows_from_memo,
    };

    const DEFINED: &str = "pub struct S;\nimpl S { pub fn m(&self) {} }\npub fn helper() {}\n";
    const USING: &str = "use crate::a::{helper, S};\n\
        fn f() { helper(); let s = S; s.m(); helper(); }\n\
        fn g() { other(); }\n";

    /// What a whole resolution of `a.rs` (`DEFINED`) and `b.rs` (`using`) gives.
    struct Resolved {
        files: Vec<ParsedFile>,
        /// `b.rs`'s, by place.
        refs: Vec<RefRow>,
        memos: Vec<super::FileMemo>,
        /// By name id.
        names: Vec<String>,
    }

    fn resolved(using: &str) -> Resolved {
        let files = vec![
            ParsedFile::rust_for_test("a.rs", DEFINED),
            ParsedFile::rust_for_test("b.rs", using),
        ];
        let (data, memos) = resolve(
            &files,
            crate::store::IndexMeta::default(),
            Texts::default(),
            &|| false,
        );
        let mut refs: Vec<RefRow> = data.refs.iter().copied().filter(|r| r.file == 1).collect();
        refs.sort_by_key(|r| (r.line, r.column, r.name));
        let names = data.names.iter().map(|n| n.to_string()).collect();
        drop(data);
        Resolved {
            files,
            refs,
            memos,
            names,
        }
    }

    fn facts(files: &[ParsedFile]) -> &CompactFacts {
        files[1].facts.as_ref().expect("b.rs has facts")
    }

    /// `b.rs`'s rows redone from the memo of the version `USING` for the version `using`,
    /// with the memo made for it; and what a whole resolution of `using` gives.
    fn redone(using: &str) -> (Option<(Vec<RefRow>, super::FileMemo)>, Resolved) {
        let before = resolved(USING);
        let after = resolved(using);
        // Names as the whole resolution of the new version numbers them; a target's
        // name as its rows give it (a target they lack drops the row: a difference).
        let fresh = &after.refs;
        let target_name = |sid: u32| fresh.iter().find(|r| r.target == sid).map(|r| r.name);
        let name_id = |name: &str| {
            let at = after.names.binary_search_by(|n| n.as_str().cmp(name));
            at.ok().map(|at| at as u32)
        };
        let from_memo = rows_from_memo(
            facts(&after.files),
            facts(&before.files),
            &before.memos[1],
            1,
            // `b.rs`'s symbols come after `a.rs`'s.
            after.files[0]
                .facts
                .as_ref()
                .map_or(0, |a| a.definitions.len() as u32),
            &target_name,
            &name_id,
        )
        .map(|(mut rows, memo)| {
            rows.sort_by_key(|r| (r.line, r.column, r.name));
            (rows, memo)
        });
        (from_memo, after)
    }

    #[test]
    fn a_memo_holds_one_outcome_per_distinct_use_in_the_order_they_first_show() {
        let memos = resolved(USING).memos;
        // helper, S, s.m and other: the second helper() is the first one's use again.
        let uses = &memos[1].uses;
        assert_eq!(uses.len(), 4, "{uses:?}");
        assert!(matches!(uses[0], Outcome::Resolved(_)), "{uses:?}");
        assert_eq!(uses[3], Outcome::Drop, "other() is nothing of the tree");
    }

    #[test]
    fn a_memo_redoes_a_new_version_of_its_file_and_is_made_again_for_it() {
        // The uses moved, one repeated more, one gone: every use the new version has is
        // one the memo knows.
        let using = "use crate::a::{helper, S};\n\
            fn f() { let s = S; s.m(); s.m();\n helper(); }\n\
            fn g() { }\n";
        let (from_memo, fresh) = redone(using);
        let (rows, memo) = from_memo.expect("every use known");
        assert_eq!(rows, fresh.refs);
        let fresh_memo = &fresh.memos[1];
        assert_eq!(memo.uses, fresh_memo.uses, "the memo fits the new version");
        assert_eq!(memo.imports, fresh_memo.imports);
    }

    #[test]
    fn a_memo_does_not_redo_a_use_it_does_not_know() {
        let using = "use crate::a::{helper, S};\n\
            fn f() { helper(); let s = S; s.m(); helper(); }\n\
            fn g() { other(); unheard(); }\n";
        assert!(redone(using).0.is_none());
    }

    #[test]
    fn a_memo_made_from_other_facts_is_not_used() {
        let before = resolved(USING);
        let mut memo = before.memos[1].clone();
        memo.uses.pop();
        let b = facts(&before.files);
        let redo =
            |memo: &super::FileMemo| rows_from_memo(b, b, memo, 1, 0, &|_| Some(0), &|_| Some(0));
        assert!(redo(&before.memos[1]).is_some());
        assert!(redo(&memo).is_none(), "one outcome short");
    }

    /// `key` visited, `inner` run inside it, `key` left; what decided it, recorded.
    fn part(chase: &mut Chase, key: u64, inner: impl FnOnce(&mut Chase)) -> ChaseRecord {
        let mark = chase.mark();
        assert!(chase.visit(key), "{key} not taken");
        inner(chase);
        chase.leave(key);
        chase.record(mark)
    }

    /// A fresh chase's part: key 1, and key 2 followed from it.
    fn one_then_two() -> ChaseRecord {
        part(&mut Chase::default(), 1, |c| {
            assert!(c.visit(2));
            c.leave(2);
        })
    }

    #[test]
    fn a_part_is_replayed_where_its_visits_are_answered_alike() {
        let record = one_then_two();
        let mut elsewhere = Chase::default();
        assert!(elsewhere.visit(7));
        assert!(elsewhere.replay(&record));
        assert_eq!(elsewhere.steps, 3, "the part's two steps counted");
        assert_eq!(elsewhere.held, [7], "the part's keys left again");
    }

    #[test]
    fn a_part_that_took_a_key_held_here_is_not_replayed() {
        let record = one_then_two();
        let mut elsewhere = Chase::default();
        assert!(elsewhere.visit(2));
        let before = (elsewhere.steps, elsewhere.taken.len());
        assert!(!elsewhere.replay(&record));
        assert_eq!((elsewhere.steps, elsewhere.taken.len()), before);
    }

    #[test]
    fn a_part_cut_by_a_key_held_before_it_is_replayed_only_where_it_is_held() {
        let mut first = Chase::default();
        assert!(first.visit(9));
        // 9 is followed already: coming back to it is a cycle.
        let record = part(&mut first, 1, |c| assert!(!c.visit(9)));
        assert_eq!(&*record.cuts, [9]);
        assert!(!Chase::default().replay(&record));
        let mut holding = Chase::default();
        assert!(holding.visit(9));
        assert!(holding.replay(&record));
    }

    #[test]
    fn a_part_cut_by_the_budget_is_replayed_only_where_the_budget_runs_out_alike() {
        let mut first = Chase::default();
        for key in 0..MAX_CHAIN_STEPS as u64 - 1 {
            assert!(first.visit(key));
        }
        let record = part(&mut first, 100, |c| assert!(!c.visit(101)));
        assert_eq!((record.within_up_to, record.over_from), (1, 2));
        // With the whole budget left, 101 would be taken: not the same walk.
        assert!(!Chase::default().replay(&record));
        let mut late = Chase::default();
        for key in 0..MAX_CHAIN_STEPS as u64 - 1 {
            assert!(late.visit(key + 1000));
        }
        assert!(late.replay(&record));
    }

    #[test]
    fn a_replayed_part_is_part_of_the_record_around_it() {
        let inner = one_then_two();
        let mut chase = Chase::default();
        let outer = part(&mut chase, 50, |c| assert!(c.replay(&inner)));
        for key in [50, 1, 2] {
            assert!(
                outer.taken.binary_search(&fingerprint(key)).is_ok(),
                "{key}"
            );
        }
        assert_eq!(outer.steps_after, 3);
        // Replaying the outer part where 2 is held is refused, as walking it would be cut.
        let mut holding = Chase::default();
        assert!(holding.visit(2));
        assert!(!holding.replay(&outer));
    }
}
