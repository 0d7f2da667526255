//! The ECMAScript resolver family (JavaScript, TypeScript, TSX): relative module
//! specifiers to files, named, default and namespace imports, `export ... from` chains,
//! CommonJS `require`, and what the language's built-in types say about their members
//! (for the receiver-type pass).

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Family, Import, ImportTarget, MODULE_EXPORTS, RefKind, SymbolKind};

use super::types::{Named, OutsideMember, OutsideStep, Spec, Step};
use super::{
    Chase, CompactFacts, FamilyResolver, Outcome, ParsedFile, PathHasher, Place, Tables, Use,
    compatible_kind, member_may_be,
};

/// The ECMAScript family's tables: each file's entry depends on its own facts and first
/// symbol id only, so kept tables ([`super::kept`]) make again only the changed files'.
#[derive(Default, PartialEq, Debug)]
pub(super) struct EcmaTables {
    /// Per file: its top-level definitions by name (what it exports).
    exports: Vec<HashMap<String, Vec<u32>>>,
    /// Per file: its default export.
    default: Vec<Option<u32>>,
}

impl EcmaTables {
    pub fn new(files: usize) -> Self {
        Self {
            exports: vec![HashMap::default(); files],
            default: vec![None; files],
        }
    }

    /// Registers a file's top-level definitions as its exports; returns the prefix of its
    /// qualified names (none: ECMAScript names are qualified by container only).
    pub fn add_file(&mut self, fid: u32, facts: &CompactFacts, base: u32) -> String {
        let exports = &mut self.exports[fid as usize];
        for (i, d) in facts.definitions.iter().enumerate() {
            let sid = base + i as u32;
            if d.parent == super::NONE && d.container == super::NONE && facts.modules(d).is_empty()
            {
                exports
                    .entry(facts.name(d).to_owned())
                    .or_default()
                    .push(sid);
                if d.default_export {
                    self.default[fid as usize] = Some(sid);
                }
            }
        }
        String::new()
    }

    /// Forgets file `fid`'s entry (its definitions changed: [`Self::add_file`] and
    /// [`Self::finish_file`] make it again).
    pub fn clear_file(&mut self, fid: u32) {
        if let Some(exports) = self.exports.get_mut(fid as usize) {
            exports.clear();
        }
        if let Some(default) = self.default.get_mut(fid as usize) {
            *default = None;
        }
    }

    /// `export default name;` / `module.exports = name`, once every export is known.
    pub fn finish(&mut self, files: &[ParsedFile]) {
        for fid in 0..files.len() {
            self.finish_file(files, fid);
        }
    }

    /// [`Self::finish`] for file `fid` alone.
    pub fn finish_file(&mut self, files: &[ParsedFile], fid: usize) {
        let Some(facts) = files.get(fid).and_then(|f| f.facts.as_ref()) else {
            return;
        };
        if let Some(name) = &facts.default_export_name
            && self.default[fid].is_none()
        {
            self.default[fid] = self.exports[fid].get(name).and_then(|s| s.first().copied());
        }
    }

    /// The file a relative module specifier points to; `None` for packages.
    fn module(&self, t: &Tables, fid: u32, source: &str) -> Option<u32> {
        if !(source.starts_with("./")
            || source.starts_with("../")
            || source == "."
            || source == "..")
        {
            return None;
        }
        let from = t.files[fid as usize].row.path.as_str();
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
            .find_map(|p| t.file_ids.get(p.as_str()).copied())
            .filter(|&id| t.files[id as usize].facts.is_some())
    }

    /// Symbols that module `fid` exports as `name`, following re-exports.
    fn export(&self, t: &Tables, fid: u32, name: &str, chase: &mut Chase) -> Vec<u32> {
        let mut key = PathHasher::new();
        key.write(&fid.to_string());
        key.write(":");
        key.write(name);
        if !chase.visit(key.finish()) {
            return Vec::new();
        }
        if name == "default" || name == MODULE_EXPORTS {
            return self.default[fid as usize].into_iter().collect();
        }
        if let Some(found) = self.exports[fid as usize].get(name) {
            return found.clone();
        }
        let Some(facts) = &t.files[fid as usize].facts else {
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
            let (Some(target), Some(wanted)) = (self.module(t, fid, source), wanted) else {
                continue;
            };
            let found = self.export(t, target, &wanted, chase);
            if !found.is_empty() {
                return found;
            }
        }
        Vec::new()
    }

    /// Exports of module `fid` named `name`, for the receiver-type pass.
    pub fn module_member(&self, t: &Tables, fid: u32, name: &str) -> Vec<u32> {
        self.export(t, fid, name, &mut Chase::default())
    }

    fn resolve_ecma(&self, t: &Tables, reference: &Use<'_>) -> Outcome {
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
        let fid = at.fid;
        let compatible = |s: &super::Symbol| kind.can_refer_to(s.kind);
        let base = t.file_base[fid as usize];
        if let Some(q) = qualifier {
            if receiver && q == "this" {
                // The receiver-type pass found no class around this `this`.
            } else if let Some(import) = facts.imports_named(q).next() {
                match self.import_targets(t, fid, import) {
                    None => return Outcome::Drop,
                    Some(targets) if targets.is_empty() => {
                        // `ns.name` through `import * as ns` or `require`.
                        if let ImportTarget::Module { source, imported } = &import.target
                            && is_namespace(imported)
                            && let Some(module) = self.module(t, fid, source)
                            && let Some(outcome) = t
                                .first_compatible(
                                    &self.export(t, module, name, &mut Chase::default()),
                                    kind,
                                )
                                .map(Outcome::Resolved)
                        {
                            return outcome;
                        }
                    }
                    Some(_) => {}
                }
            } else if let Some((i, _)) = facts
                .definitions_named(name)
                .find(|(_, d)| facts.container(d) == Some(q) && compatible_kind(kind, d.kind))
            {
                return Outcome::Resolved(base + i);
            }
            return t.heuristic(candidates, Family::Ecma, |s| {
                member_may_be(kind, s.kind, s.family)
            });
        }
        for import in facts.imports_named(name) {
            match self.import_targets(t, fid, import) {
                None => return Outcome::Drop,
                Some(found) => {
                    if let Some(s) = t.first_compatible(&found, kind) {
                        return Outcome::Resolved(s);
                    }
                }
            }
        }
        if let Some((i, _)) = facts.definitions_named(name).find(|(_, d)| {
            kind.can_refer_to(d.kind) && !matches!(d.kind, SymbolKind::Method | SymbolKind::Field)
        }) {
            return Outcome::Resolved(base + i);
        }
        // A bare name is never a member (a method, a property, an enum member).
        t.heuristic(candidates, Family::Ecma, |s| compatible(s) && !s.member)
    }

    /// A name or path for the receiver-type pass: imports, then this file's top-level
    /// definitions, then the only definition of that name in the family; a name nothing
    /// in the repository defines is outside it (a global such as `console` or `Map`).
    fn named(
        &self,
        t: &Tables,
        at: Place,
        path: &[String],
        accept: fn(SymbolKind) -> bool,
    ) -> Named {
        let Some(first) = path.first() else {
            return Named::Unknown;
        };
        let facts = at.facts;
        let mut named = None;
        if let Some(import) = facts.imports_named(first).next() {
            named = Some(match self.import_targets(t, at.fid, import) {
                None => Named::Outside(first.clone()),
                Some(found) if !found.is_empty() => Named::Symbols(found),
                // A namespace: the module itself (its members are its exports).
                Some(_) => match &import.target {
                    ImportTarget::Module { source, imported } if is_namespace(imported) => self
                        .module(t, at.fid, source)
                        .map_or(Named::Unknown, Named::Module),
                    _ => Named::Unknown,
                },
            });
        }
        let named = named.unwrap_or_else(|| {
            let base = t.file_base[at.fid as usize];
            let local: Vec<u32> = facts
                .definitions_named(first)
                .filter(|(_, d)| {
                    d.container == super::NONE && d.parent == super::NONE && accept(d.kind)
                })
                .map(|(i, _)| base + i)
                .collect();
            if !local.is_empty() {
                return Named::Symbols(local);
            }
            let family: Vec<u32> = t
                .candidates(first)
                .iter()
                .copied()
                .filter(|&s| {
                    let symbol = &t.symbols[s as usize];
                    symbol.family == Family::Ecma && accept(symbol.kind)
                })
                .collect();
            match family.as_slice() {
                [] if t.candidates(first).is_empty() => Named::Outside(first.clone()),
                [] => Named::Unknown,
                [only] => Named::Symbols(vec![*only]),
                _ => Named::Unknown,
            }
        });
        // `ns.Type`: the rest of the path inside a module.
        match (named, &path[1..]) {
            (named, []) => named,
            (Named::Module(fid), [name]) => {
                let found = self.module_member(t, fid, name);
                if found.is_empty() {
                    Named::Unknown
                } else {
                    Named::Symbols(found)
                }
            }
            (Named::Outside(name), _) => Named::Outside(name),
            _ => Named::Unknown,
        }
    }
}

/// `import * as ns` and a `require` of a module that assigns no `module.exports`.
fn is_namespace(imported: &Option<String>) -> bool {
    imported.as_deref().is_none_or(|i| i == MODULE_EXPORTS)
}

fn any_top_level(kind: SymbolKind) -> bool {
    !matches!(
        kind,
        SymbolKind::Method | SymbolKind::Field | SymbolKind::EnumVariant
    )
}

impl FamilyResolver for EcmaTables {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        self.resolve_ecma(t, u)
    }

    fn import_targets(&self, t: &Tables, fid: u32, import: &Import) -> Option<Vec<u32>> {
        let ImportTarget::Module { source, imported } = &import.target else {
            return None;
        };
        let target = self.module(t, fid, source)?;
        match imported {
            Some(name) => Some(self.export(t, target, name, &mut Chase::default())),
            None => Some(Vec::new()),
        }
    }

    fn type_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        // A JavaScript constructor function or a CommonJS object is as much a type as a
        // class: whatever the name defines.
        self.named(t, at, path, any_top_level)
    }

    fn value_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path, any_top_level)
    }

    fn module_member(&self, t: &Tables, fid: u32, name: &str) -> Vec<u32> {
        EcmaTables::module_member(self, t, fid, name)
    }

    fn call_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path, |k| {
            RefKind::Call.can_refer_to(k) && any_top_level(k)
        })
    }

    fn outside_member(&self, ty: &str, member: &str) -> OutsideMember {
        ecma_builtin_member(ty, member)
    }

    fn outside_step(&self, ty: &str, step: Step) -> OutsideStep {
        match (ty, step) {
            ("Promise" | "PromiseLike", Step::Await) => Some(Spec::Arg(0)),
            ("Array" | "ReadonlyArray" | "[]" | "Set" | "ReadonlySet", Step::Element) => {
                Some(Spec::Arg(0))
            }
            ("Array" | "ReadonlyArray" | "[]", Step::Index) => Some(Spec::Arg(0)),
            ("Map" | "ReadonlyMap" | "Record", Step::Index) => Some(Spec::Arg(1)),
            (_, Step::Await | Step::Unwrap) => Some(Spec::Same),
            _ => None,
        }
    }

    fn outside_callback(
        &self,
        ty: &str,
        method: &str,
        argument: u32,
        parameter: u32,
    ) -> Option<Spec> {
        match (ty, method, argument, parameter) {
            (
                "Array" | "ReadonlyArray" | "[]" | "Set" | "ReadonlySet",
                "map" | "forEach" | "filter" | "find" | "findLast" | "some" | "every" | "findIndex"
                | "findLastIndex" | "flatMap",
                0,
                0,
            ) => Some(Spec::Arg(0)),
            ("Array" | "ReadonlyArray" | "[]", "sort" | "toSorted", 0, 0 | 1) => Some(Spec::Arg(0)),
            ("Array" | "ReadonlyArray" | "[]", "reduce" | "reduceRight", 0, 1) => {
                Some(Spec::Arg(0))
            }
            ("Map" | "ReadonlyMap", "forEach", 0, 0) => Some(Spec::Arg(1)),
            ("Map" | "ReadonlyMap", "forEach", 0, 1) => Some(Spec::Arg(0)),
            ("Promise" | "PromiseLike", "then", 0, 0) => Some(Spec::Arg(0)),
            _ => None,
        }
    }

    fn unwrap_keeps_type(&self) -> bool {
        true
    }
}

/// What the built-in types say about `ty.member`.
fn ecma_builtin_member(ty: &str, member: &str) -> OutsideMember {
    use OutsideMember::{Known, NotKnown};
    match (ty, member) {
        ("Array" | "ReadonlyArray" | "[]", "find" | "at" | "pop" | "shift" | "findLast") => {
            Known(Spec::Arg(0))
        }
        (
            "Array" | "ReadonlyArray" | "[]",
            "filter" | "slice" | "concat" | "reverse" | "sort" | "splice" | "toSorted"
            | "toReversed",
        ) => Known(Spec::Same),
        ("Map" | "ReadonlyMap" | "WeakMap", "get") => Known(Spec::Arg(1)),
        ("Promise" | "PromiseLike", _) => Known(Spec::Unknown),
        (
            "string"
            | "number"
            | "boolean"
            | "bigint"
            | "symbol"
            | "String"
            | "Number"
            | "Boolean"
            | "RegExp"
            | "Date"
            | "Math"
            | "JSON"
            | "console"
            | "Object"
            | "Error"
            | "function"
            | "Function"
            | "array"
            | "literal_type"
            | "tuple_type"
            | "function_type"
            | "template_literal_type"
            | "null"
            | "undefined"
            | "void",
            _,
        ) => Known(Spec::Opaque),
        (
            "Array" | "ReadonlyArray" | "[]" | "Map" | "ReadonlyMap" | "Set" | "ReadonlySet"
            | "WeakMap" | "WeakSet",
            _,
        ) => Known(Spec::Unknown),
        _ => NotKnown,
    }
}
