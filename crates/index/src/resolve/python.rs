//! The Python resolver family: module names from the file tree (packages are directories
//! with `__init__.py`; a directory without one is a namespace package, and `src/`
//! layouts need nothing special), `import a.b`, `import a.b as c`, `from .x import y`
//! (relative to the importing file's directory), `from m import *`, names a package's
//! `__init__.py` re-exports, and what the built-in types say about their members.
//!
//! Python decides a bare name by its scopes: a local, a name of the enclosing
//! functions, a module-level definition or import, a star import, a built-in. Locals are
//! settled in `mcursor-syntax`; here a bare name that is none of the others is a built-in
//! (or outside the repository) and is dropped rather than matched by name.

use std::collections::HashSet;

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Family, Import, ImportTarget, SymbolKind};

use super::types::{Named, OutsideMember, OutsideStep, Spec, Step};
use super::{
    Chase, CompactFacts, FamilyResolver, Outcome, ParsedFile, PathHasher, Place, Tables, Use,
    compatible_kind, member_may_be,
};

/// Directory suffixes a module is also known by (namespace packages, scripts run from a
/// parent directory): at most this many segments.
const MAX_MODULE_ALIAS_DEPTH: usize = 6;

/// What a module offers under a name.
#[derive(Debug, PartialEq, Eq)]
enum Exported {
    Symbols(Vec<u32>),
    /// It imports the name from outside the repository.
    Outside,
    /// Nothing the tables can see (an attribute set at run time, a typo).
    Missing,
}

/// The Python family's tables.
pub(super) struct PythonTables {
    /// Directories holding an `__init__.py` (or `.pyi`): regular packages.
    package_dirs: HashSet<String>,
    /// Dotted module name → the files whose name from the package layout it is.
    modules: HashMap<String, Vec<u32>>,
    /// Dotted module name → files known by it only through a directory suffix.
    module_aliases: HashMap<String, Vec<u32>>,
    /// Per file: its dotted module name (empty for other families).
    module_names: Vec<String>,
    /// Per file: its module-level definitions by name.
    exports: Vec<HashMap<String, Vec<u32>>>,
}

/// A file's stem without its Python extension.
fn module_stem(file_name: &str) -> &str {
    [".py", ".pyi", ".pyw"]
        .iter()
        .find_map(|ext| file_name.strip_suffix(ext))
        .unwrap_or(file_name)
}

/// The dotted module name of `path` from the package layout: the file's stem (none for
/// `__init__`) after the directories above it that are packages.
pub(crate) fn python_module(path: &str, package_dirs: &HashSet<String>) -> String {
    let parts: Vec<&str> = path.split('/').collect();
    let Some((file, dirs)) = parts.split_last() else {
        return String::new();
    };
    let mut packages = 0;
    while packages < dirs.len() && package_dirs.contains(&dirs[..dirs.len() - packages].join("/")) {
        packages += 1;
    }
    let stem = module_stem(file);
    let mut names: Vec<&str> = dirs[dirs.len() - packages..].to_vec();
    if stem != "__init__" {
        names.push(stem);
    }
    names.join(".")
}

/// The parsed file of the module at `base` (a path without extension, empty for the
/// root): `base.py`, `base.pyi`, or the package `base/__init__.py(i)`.
fn module_file(t: &Tables, base: &str) -> Option<u32> {
    let package = if base.is_empty() {
        String::new()
    } else {
        format!("{base}/")
    };
    [
        format!("{base}.py"),
        format!("{base}.pyi"),
        format!("{package}__init__.py"),
        format!("{package}__init__.pyi"),
    ]
    .iter()
    .filter(|p| !p.starts_with('.'))
    .find_map(|p| t.file_ids.get(p.as_str()).copied())
    .filter(|&id| t.files[id as usize].facts.is_some())
}

impl PythonTables {
    pub fn new(files: &[ParsedFile]) -> Self {
        let package_dirs = files
            .iter()
            .filter_map(|f| {
                let path = f.row.path.as_str();
                let (dir, name) = path.rsplit_once('/').unwrap_or(("", path));
                matches!(name, "__init__.py" | "__init__.pyi").then(|| dir.to_owned())
            })
            .collect();
        Self {
            package_dirs,
            modules: HashMap::default(),
            module_aliases: HashMap::default(),
            module_names: vec![String::new(); files.len()],
            exports: vec![HashMap::default(); files.len()],
        }
    }

    /// Registers a Python file's module names and module-level definitions; returns its
    /// dotted module name, the prefix of its qualified names.
    pub fn add_file(&mut self, fid: u32, path: &str, facts: &CompactFacts, base: u32) -> String {
        let module = python_module(path, &self.package_dirs);
        self.modules.entry(module.clone()).or_default().push(fid);
        // Also known by every shorter directory suffix (`src/pkg/m.py` as `pkg.m` when
        // `src/pkg` has no `__init__.py`), as a fallback.
        let parts: Vec<&str> = path.split('/').collect();
        if let Some((file, dirs)) = parts.split_last() {
            let stem = module_stem(file);
            for start in dirs.len().saturating_sub(MAX_MODULE_ALIAS_DEPTH)..=dirs.len() {
                let mut names: Vec<&str> = dirs[start..].to_vec();
                if stem != "__init__" {
                    names.push(stem);
                }
                let alias = names.join(".");
                if !alias.is_empty() && alias != module {
                    self.module_aliases.entry(alias).or_default().push(fid);
                }
            }
        }
        let exports = &mut self.exports[fid as usize];
        for (i, d) in facts.definitions.iter().enumerate() {
            if d.parent == super::NONE && d.container == super::NONE {
                exports
                    .entry(facts.name(d).to_owned())
                    .or_default()
                    .push(base + i as u32);
            }
        }
        self.module_names[fid as usize] = module.clone();
        module
    }

    /// The file of a dotted module name as `fid` imports it: relative names from the
    /// importing file's directory, absolute ones by package layout first (the file
    /// sharing the most directories with the importer when several have that name), then
    /// by directory suffix. `None`: not in the repository.
    fn module(&self, t: &Tables, fid: u32, source: &str) -> Option<u32> {
        let from = t.files[fid as usize].row.path.as_str();
        let dots = source.chars().take_while(|&c| c == '.').count();
        if dots > 0 {
            let mut dir: Vec<&str> = from.split('/').collect();
            dir.pop();
            for _ in 1..dots {
                dir.pop()?;
            }
            let rest = &source[dots..];
            let base = dir
                .into_iter()
                .chain(rest.split('.').filter(|s| !s.is_empty()))
                .collect::<Vec<_>>()
                .join("/");
            return module_file(t, &base);
        }
        let nearest = |files: &Vec<u32>| {
            files.iter().copied().max_by_key(|&other| {
                let path = t.files[other as usize].row.path.as_str();
                let shared = from
                    .split('/')
                    .zip(path.split('/'))
                    .take_while(|(a, b)| a == b)
                    .count();
                // Prefer source over stubs on ties.
                (shared, !path.ends_with(".pyi"))
            })
        };
        self.modules
            .get(source)
            .and_then(nearest)
            .or_else(|| self.module_aliases.get(source).and_then(nearest))
    }

    /// The submodule `name` of the package module `fid` (`from pkg import sub`).
    fn submodule(&self, t: &Tables, fid: u32, name: &str) -> Option<u32> {
        let path = t.files[fid as usize].row.path.as_str();
        let (dir, file) = path.rsplit_once('/').unwrap_or(("", path));
        if module_stem(file) != "__init__" {
            return None;
        }
        if dir.is_empty() {
            module_file(t, name)
        } else {
            module_file(t, &format!("{dir}/{name}"))
        }
    }

    /// Symbols module `fid` offers as `name`: its own definition, or a name it imports
    /// (Python re-exports every module-level import), following chains and star imports.
    fn export(&self, t: &Tables, fid: u32, name: &str, chase: &mut Chase) -> Exported {
        let mut key = PathHasher::new();
        key.write(&fid.to_string());
        key.write(":");
        key.write(name);
        if !chase.visit(key.finish()) {
            return Exported::Missing;
        }
        if let Some(found) = self.exports[fid as usize].get(name) {
            return Exported::Symbols(found.clone());
        }
        let Some(facts) = &t.files[fid as usize].facts else {
            return Exported::Missing;
        };
        let mut outside = false;
        for import in facts.imports.iter().filter(|i| i.reexport) {
            let ImportTarget::Module { source, imported } = &import.target else {
                continue;
            };
            let wanted = match imported.as_deref() {
                Some("*") => name,
                Some(imported) if import.local == name => imported,
                // `import a.b as name`: a module, not a symbol.
                None if import.local == name => return Exported::Missing,
                _ => continue,
            };
            let Some(target) = self.module(t, fid, source) else {
                // `from json import JSONDecodeError` (in a `try`, say): the name is
                // another package's, unless a star import of an outside module is all
                // that could have brought it.
                outside |= import.local == name;
                continue;
            };
            match self.export(t, target, wanted, chase) {
                Exported::Symbols(found) => return Exported::Symbols(found),
                Exported::Outside => outside = true,
                Exported::Missing => {}
            }
        }
        if outside {
            Exported::Outside
        } else {
            Exported::Missing
        }
    }

    /// What module `fid` offers as `name`, for the receiver-type pass.
    pub fn module_member(&self, t: &Tables, fid: u32, name: &str) -> Vec<u32> {
        match self.export(t, fid, name, &mut Chase::default()) {
            Exported::Symbols(found) => found,
            Exported::Outside | Exported::Missing => Vec::new(),
        }
    }

    /// What `import` names: `Named::Module` for a module (`import a.b`, `from pkg import
    /// submodule`), the symbols of `from m import name`, `Outside` when the module is not
    /// in the repository.
    fn import_named(&self, t: &Tables, fid: u32, import: &Import) -> Named {
        let ImportTarget::Module { source, imported } = &import.target else {
            return Named::Unknown;
        };
        let Some(module) = self.module(t, fid, source) else {
            return Named::Outside(import.local.clone());
        };
        match imported.as_deref() {
            None | Some("*") => Named::Module(module),
            Some(name) => match self.export(t, module, name, &mut Chase::default()) {
                Exported::Symbols(found) => Named::Symbols(found),
                other => match self.submodule(t, module, name) {
                    Some(sub) => Named::Module(sub),
                    None if other == Exported::Outside => Named::Outside(name.to_owned()),
                    None => Named::Unknown,
                },
            },
        }
    }

    /// A name at `at` the way Python looks it up (after locals): the enclosing
    /// functions' definitions, the module's definitions and imports, its star imports.
    /// `Outside` when none of them has it: a built-in, or a name of another package.
    fn lookup(&self, t: &Tables, at: Place, name: &str) -> Named {
        let facts = at.facts;
        let base = t.file_base[at.fid as usize];
        // Definitions of the enclosing functions (nested `def`s), innermost first; a
        // class body's names are not visible in its methods.
        let nested: Vec<(u32, &super::Def)> = facts
            .definitions_named(name)
            .filter(|(_, x)| x.parent != super::NONE)
            .collect();
        if !nested.is_empty() {
            let mut enclosing = at.enclosing;
            while let Some(d) = enclosing {
                if d.kind != SymbolKind::Class {
                    let found: Vec<u32> = nested
                        .iter()
                        .filter(|(_, x)| {
                            facts
                                .definitions
                                .get(x.parent as usize)
                                .is_some_and(|p| std::ptr::eq(p, d))
                        })
                        .map(|&(i, _)| base + i)
                        .collect();
                    if !found.is_empty() {
                        return Named::Symbols(found);
                    }
                }
                enclosing = facts.definitions.get(d.parent as usize);
            }
        }
        if let Some(import) = facts.imports_named(name).next() {
            return self.import_named(t, at.fid, import);
        }
        if let Some(found) = self.exports[at.fid as usize].get(name) {
            return Named::Symbols(found.clone());
        }
        let mut unresolved_star = false;
        for import in facts.imports.iter().filter(|i| i.local == "*") {
            let ImportTarget::Module { source, .. } = &import.target else {
                continue;
            };
            match self.module(t, at.fid, source) {
                Some(module) => {
                    let found = self.module_member(t, module, name);
                    if !found.is_empty() {
                        return Named::Symbols(found);
                    }
                }
                None => unresolved_star = true,
            }
        }
        if unresolved_star {
            Named::Unknown
        } else {
            Named::Outside(name.to_owned())
        }
    }

    /// What a dotted path names when it starts with an import (`import a.b.c` is known
    /// by its whole dotted name: the longest prefix that is one); `None` otherwise.
    fn through_import(&self, t: &Tables, at: Place, path: &[String]) -> Option<Named> {
        let exact = (1..=path.len()).rev().find_map(|split| {
            let dotted = path[..split].join(".");
            let import = at.facts.imports_named(&dotted).next()?;
            Some(self.walk(t, self.import_named(t, at.fid, import), &path[split..]))
        });
        if exact.is_some() {
            return exact;
        }
        // `import a.b` also binds the package `a` (`a.f()` then works).
        let first = path.first()?;
        let binds_package = at.facts.imports.iter().any(|i| match &i.target {
            ImportTarget::Module {
                source,
                imported: None,
            } => {
                i.local == *source
                    && source
                        .strip_prefix(first.as_str())
                        .is_some_and(|rest| rest.starts_with('.'))
            }
            _ => false,
        });
        if !binds_package {
            return None;
        }
        let package = match self.module(t, at.fid, first) {
            Some(fid) => Named::Module(fid),
            None => Named::Outside(first.clone()),
        };
        Some(self.walk(t, package, &path[1..]))
    }

    /// A dotted path (`m.Foo`, `pkg.sub.f`, `Foo`) for the receiver-type pass.
    fn named(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        if let Some(named) = self.through_import(t, at, path) {
            return named;
        }
        let Some(first) = path.first() else {
            return Named::Unknown;
        };
        self.walk(t, self.lookup(t, at, first), &path[1..])
    }

    /// Follows `rest` from what its first part names: module members and submodules.
    fn walk(&self, t: &Tables, mut named: Named, rest: &[String]) -> Named {
        for segment in rest {
            named = match named {
                Named::Module(fid) => {
                    let found = self.module_member(t, fid, segment);
                    if !found.is_empty() {
                        Named::Symbols(found)
                    } else if let Some(sub) = self.submodule(t, fid, segment) {
                        Named::Module(sub)
                    } else {
                        Named::Unknown
                    }
                }
                Named::Outside(name) => Named::Outside(name),
                // A class's members are the receiver-type pass's business.
                Named::Symbols(_) | Named::Unknown => Named::Unknown,
            };
        }
        named
    }

    fn resolve_python(&self, t: &Tables, reference: &Use<'_>) -> Outcome {
        let Use {
            at,
            name,
            kind,
            receiver: _,
            qualifier,
            candidates,
            ..
        } = *reference;
        let compatible = |s: &super::Symbol| compatible_kind(kind, s.kind);
        if let Some(q) = qualifier {
            // `m.f`, `pkg.sub.f` through an import. Other receivers (locals, parameters,
            // classes) are the receiver-type pass's; what it could not settle is matched
            // by name.
            let path: Vec<String> = q.split('.').map(str::to_owned).collect();
            match self.through_import(t, at, &path) {
                Some(Named::Module(fid)) => {
                    return t
                        .first_compatible(&self.module_member(t, fid, name), kind)
                        .map(Outcome::Resolved)
                        .or_else(|| self.submodule(t, fid, name).map(|_| Outcome::Drop))
                        .unwrap_or(Outcome::Heuristic);
                }
                Some(Named::Outside(_)) => return Outcome::Drop,
                Some(Named::Symbols(_) | Named::Unknown) | None => {}
            }
            return t.heuristic(candidates, Family::Python, |s| {
                member_may_be(kind, s.kind, s.family)
            });
        }
        match self.lookup(t, at, name) {
            Named::Symbols(found) => match t.first_compatible(&found, kind) {
                Some(sid) => Outcome::Resolved(sid),
                None => Outcome::Drop,
            },
            // A module used by name (`import m` then `m` passed along): not a symbol.
            Named::Module(_) | Named::Outside(_) => Outcome::Drop,
            Named::Unknown => {
                t.heuristic(candidates, Family::Python, |s| compatible(s) && !s.member)
            }
        }
    }
}

impl FamilyResolver for PythonTables {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        self.resolve_python(t, u)
    }

    fn import_targets(&self, t: &Tables, fid: u32, import: &Import) -> Option<Vec<u32>> {
        match self.import_named(t, fid, import) {
            Named::Symbols(found) => Some(found),
            Named::Module(_) | Named::Unknown => Some(Vec::new()),
            Named::Outside(_) => None,
        }
    }

    fn type_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path)
    }

    fn value_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path)
    }

    fn call_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path)
    }

    fn module_member(&self, t: &Tables, fid: u32, name: &str) -> Vec<u32> {
        PythonTables::module_member(self, t, fid, name)
    }

    fn any_member_hooks(&self) -> &'static [&'static str] {
        &["__getattr__", "__getattribute__"]
    }

    fn outside_member(&self, ty: &str, member: &str) -> OutsideMember {
        use OutsideMember::{Known, NotKnown};
        match (ty, member) {
            ("list" | "List" | "Sequence", "pop") => Known(Spec::Arg(0)),
            ("list" | "List", "copy") | ("dict" | "Dict", "copy") => Known(Spec::Same),
            ("dict" | "Dict" | "Mapping", "get" | "pop" | "setdefault") => Known(Spec::Arg(1)),
            (
                "str" | "bytes" | "int" | "float" | "bool" | "complex" | "None" | "function"
                | "object",
                _,
            ) => Known(Spec::Opaque),
            (
                "list" | "List" | "dict" | "Dict" | "set" | "Set" | "frozenset" | "tuple" | "Tuple"
                | "Sequence" | "Mapping" | "Iterable" | "Iterator",
                _,
            ) => Known(Spec::Unknown),
            // `Optional[T]`: the members of `T`.
            ("Optional", _) => OutsideMember::Deref(0),
            _ => NotKnown,
        }
    }

    fn outside_step(&self, ty: &str, step: Step) -> OutsideStep {
        match (ty, step) {
            (
                "list" | "List" | "Sequence" | "set" | "Set" | "frozenset" | "Iterable"
                | "Iterator" | "Generator",
                Step::Element,
            ) => Some(Spec::Arg(0)),
            ("list" | "List" | "Sequence", Step::Index) => Some(Spec::Arg(0)),
            ("dict" | "Dict" | "Mapping", Step::Index) => Some(Spec::Arg(1)),
            ("dict" | "Dict" | "Mapping", Step::Element) => Some(Spec::Arg(0)),
            ("Awaitable" | "Coroutine", Step::Await) => Some(Spec::Arg(0)),
            _ => None,
        }
    }

    fn unwrap_keeps_type(&self) -> bool {
        true
    }
}

/// The scopes that qualify a definition's name, outermost first: the classes and
/// functions it is defined in (`m.outer.helper` for a nested `def`, `m.C.run` for a
/// method); an attribute `__init__` assigns is its class's (`m.C.x`).
pub(super) fn scopes<'f>(facts: &'f CompactFacts, d: &super::Def) -> Vec<&'f str> {
    if d.kind == SymbolKind::Field {
        return facts.container(d).into_iter().collect();
    }
    let mut out = Vec::new();
    let mut parent = facts.definitions.get(d.parent as usize);
    while let Some(p) = parent {
        if out.len() > 64 {
            break;
        }
        out.push(facts.name(p));
        parent = facts.definitions.get(p.parent as usize);
    }
    out.reverse();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn module_names_follow_the_package_layout() {
        let packages: HashSet<String> = ["src/pkg", "src/pkg/sub", "tools"]
            .into_iter()
            .map(str::to_owned)
            .collect();
        assert_eq!(python_module("src/pkg/__init__.py", &packages), "pkg");
        assert_eq!(python_module("src/pkg/api.py", &packages), "pkg.api");
        assert_eq!(python_module("src/pkg/sub/m.pyi", &packages), "pkg.sub.m");
        // Not in a package: a top-level module (a script, or a namespace package's part).
        assert_eq!(python_module("scripts/run.py", &packages), "run");
        assert_eq!(python_module("setup.py", &packages), "setup");
        assert_eq!(python_module("tools/__init__.py", &packages), "tools");
    }
}
