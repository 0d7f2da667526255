//! The Java resolver family: packages from `package` declarations (every file of a
//! package sees its top-level types), single-type imports (`import a.b.C`), on-demand
//! imports (`import a.b.*`), static imports of members (`import static a.b.C.m`, `.*`),
//! nested types (`Outer.Inner`), and unqualified names that are members of the enclosing
//! classes (`run()` in a method is `this.run()` or an outer class's), looked up with
//! their supertypes by the receiver-type pass.
//!
//! A name none of these has is `java.lang`'s or another library's, and is dropped rather
//! than matched by name.

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Family, Import, ImportTarget, RefKind, SymbolKind};

use super::types::{Lookup, Named, OutsideMember, OutsideStep, Spec, Step, Ty};
use super::{CompactFacts, Def, FamilyResolver, Outcome, Place, Tables, Use, member_may_be};

fn is_type(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Class | SymbolKind::Interface | SymbolKind::Enum
    )
}

/// The Java family's tables.
#[derive(Default)]
pub(super) struct JavaTables {
    /// Package → its top-level types by simple name.
    packages: HashMap<String, HashMap<String, Vec<u32>>>,
    /// Fully qualified type name (`a.b.C`, `a.b.C.Inner`) → the types.
    types: HashMap<String, Vec<u32>>,
}

/// A file's package: the module every definition carries (the query makes the
/// `package` declaration the file's module scope); empty for the default package.
fn package_of(facts: &CompactFacts) -> &str {
    facts
        .definitions
        .first()
        .and_then(|d| facts.modules(d).first())
        .map_or("", String::as_str)
}

impl JavaTables {
    /// Registers a Java file's types; returns the prefix of its qualified names (none:
    /// the package is already their module).
    pub fn add_file(&mut self, facts: &CompactFacts, base: u32) -> String {
        let package = package_of(facts).to_owned();
        for (i, d) in facts.definitions.iter().enumerate() {
            if !is_type(d.kind) {
                continue;
            }
            let sid = base + i as u32;
            let name = facts.name(d);
            let mut qualified = package.clone();
            for part in facts.container(d).into_iter().chain([name]) {
                if !qualified.is_empty() {
                    qualified.push('.');
                }
                qualified.push_str(part);
            }
            self.types.entry(qualified).or_default().push(sid);
            if d.container == super::NONE && d.parent == super::NONE {
                self.packages
                    .entry(package.clone())
                    .or_default()
                    .entry(name.to_owned())
                    .or_default()
                    .push(sid);
            }
        }
        String::new()
    }

    fn package_type(&self, package: &str, name: &str) -> Vec<u32> {
        self.packages
            .get(package)
            .and_then(|types| types.get(name))
            .cloned()
            .unwrap_or_default()
    }

    /// Static members of the type `qualified` named `name` (`import static a.b.C.m`).
    fn static_member(&self, t: &Tables, qualified: &str, name: &str, kind: RefKind) -> Named {
        let Some(types) = self.types.get(qualified) else {
            return Named::Unknown;
        };
        for &sid in types {
            match t.lookup_member(Family::Java, &Ty::Repo(sid), name, kind) {
                Lookup::Found(found) | Lookup::Ambiguous(found) => {
                    return Named::Symbols(vec![found]);
                }
                Lookup::Absent | Lookup::Unknown => {}
            }
        }
        Named::Unknown
    }

    /// What an import names, for `name` (its local name, or the wanted name for `*`).
    fn import_named(&self, t: &Tables, import: &Import, name: &str, kind: RefKind) -> Named {
        let ImportTarget::Module { source, imported } = &import.target else {
            return Named::Unknown;
        };
        let wanted = match imported.as_deref() {
            Some("*") | None => name,
            Some(imported) => imported,
        };
        // A type of a package (`import a.b.C`, `import a.b.*`)...
        let types = self.package_type(source, wanted);
        if !types.is_empty() {
            return Named::Symbols(types);
        }
        // ... a nested type or a static member of a type (`import static a.b.C.m`)...
        if let Some(nested) = self.types.get(&format!("{source}.{wanted}")) {
            return Named::Symbols(nested.clone());
        }
        if self.types.contains_key(source.as_str()) {
            return self.static_member(t, source, wanted, kind);
        }
        // ... or nothing of the repository's.
        if self.packages.contains_key(source.as_str()) {
            Named::Unknown
        } else {
            Named::Outside(wanted.to_owned())
        }
    }

    /// The types and methods around a place, innermost first (their symbol ids).
    fn enclosing_types(t: &Tables, at: Place) -> Vec<u32> {
        let facts = at.facts;
        let base = t.file_base[at.fid as usize];
        let mut out = Vec::new();
        let index_of = |d: &Def| -> Option<u32> {
            let offset =
                (d as *const Def as usize).checked_sub(facts.definitions.as_ptr() as usize)?;
            let index = offset / std::mem::size_of::<Def>();
            (index < facts.definitions.len()).then_some(index as u32)
        };
        let mut current = at.enclosing.and_then(index_of);
        while let Some(i) = current {
            let Some(d) = facts.definitions.get(i as usize) else {
                break;
            };
            if is_type(d.kind) {
                out.push(base + i);
            }
            current = (d.parent != super::NONE).then_some(d.parent);
            if out.len() > 32 {
                break;
            }
        }
        out
    }

    /// A simple name at `at`, the way Java looks it up after locals: members of the
    /// enclosing classes (with what they inherit), the file's and the package's types,
    /// single-type and static imports, on-demand imports.
    fn lookup(&self, t: &Tables, at: Place, name: &str, kind: RefKind) -> Named {
        let mut unknown = false;
        if !matches!(kind, RefKind::Type) {
            for class in Self::enclosing_types(t, at) {
                match t.lookup_member(Family::Java, &Ty::Repo(class), name, kind) {
                    Lookup::Found(sid) | Lookup::Ambiguous(sid) => {
                        return Named::Symbols(vec![sid]);
                    }
                    Lookup::Unknown => unknown = true,
                    Lookup::Absent => {}
                }
            }
        }
        // Nested types of the enclosing classes, then the package's types.
        for class in Self::enclosing_types(t, at) {
            let symbol = &t.symbols[class as usize];
            if let Some((_, facts, d)) = t.definition(class) {
                let prefix: Vec<&str> = facts
                    .modules(d)
                    .iter()
                    .map(String::as_str)
                    .chain(facts.container(d))
                    .chain([symbol.name.as_str(), name])
                    .collect();
                if let Some(nested) = self.types.get(&prefix.join(".")) {
                    return Named::Symbols(nested.clone());
                }
            }
        }
        let found = self.package_type(package_of(at.facts), name);
        if !found.is_empty() {
            return Named::Symbols(found);
        }
        for import in at.facts.imports_named(name) {
            match self.import_named(t, import, name, kind) {
                Named::Unknown => unknown = true,
                named => return named,
            }
        }
        for import in at.facts.imports.iter().filter(|i| i.local == "*") {
            match self.import_named(t, import, name, kind) {
                Named::Symbols(found) => return Named::Symbols(found),
                Named::Unknown => unknown = true,
                Named::Outside(_) | Named::Module(_) => {}
            }
        }
        if unknown {
            Named::Unknown
        } else {
            Named::Outside(name.to_owned())
        }
    }

    /// `Type`, `Outer.Inner`, `a.b.Type` for the receiver-type pass.
    fn named(&self, t: &Tables, at: Place, path: &[String], kind: RefKind) -> Named {
        let Some(first) = path.first() else {
            return Named::Unknown;
        };
        if path.len() > 1
            && let Some(found) = self.types.get(&path.join("."))
        {
            return Named::Symbols(found.clone());
        }
        let mut named = self.lookup(t, at, first, kind);
        for segment in &path[1..] {
            named = match named {
                Named::Symbols(types) => {
                    let nested: Vec<u32> = types
                        .iter()
                        .filter_map(|&sid| {
                            let (_, facts, d) = t.definition(sid)?;
                            let mut parts: Vec<&str> =
                                facts.modules(d).iter().map(String::as_str).collect();
                            parts.extend(facts.container(d));
                            parts.push(facts.name(d));
                            parts.push(segment);
                            self.types.get(&parts.join("."))
                        })
                        .flatten()
                        .copied()
                        .collect();
                    if nested.is_empty() {
                        Named::Unknown
                    } else {
                        Named::Symbols(nested)
                    }
                }
                Named::Outside(name) => Named::Outside(name),
                Named::Module(_) | Named::Unknown => Named::Unknown,
            };
        }
        named
    }

    fn resolve_java(&self, t: &Tables, reference: &Use<'_>) -> Outcome {
        let Use {
            at,
            name,
            kind,
            receiver: _,
            local_receiver,
            qualifier,
            candidates,
        } = *reference;
        // A qualifier that is a name or a dotted path may name a type; a local's or an
        // expression's (`carts.get(key).total()`) does not.
        let path_qualifier =
            qualifier.filter(|q| !local_receiver && *q != mcursor_syntax::EXPRESSION_QUALIFIER);
        if let Some(q) = path_qualifier {
            // `Type.member` and `a.b.Type` through what the path names; other receivers
            // are the receiver-type pass's, and what it could not settle is a name match.
            let path: Vec<String> = q.split('.').map(str::to_owned).collect();
            match self.named(t, at, &path, RefKind::Type) {
                Named::Symbols(types) => {
                    for sid in types {
                        match t.lookup_member(Family::Java, &Ty::Repo(sid), name, kind) {
                            Lookup::Found(found) => return Outcome::Resolved(found),
                            Lookup::Ambiguous(found) => return Outcome::Guess(found),
                            Lookup::Absent | Lookup::Unknown => {}
                        }
                    }
                }
                Named::Outside(_) => return Outcome::Drop,
                Named::Module(_) | Named::Unknown => {}
            }
            return t.heuristic(candidates, Family::Java, |s| member_may_be(kind, s.kind));
        }
        if qualifier.is_some() {
            // A member of a local whose type the receiver-type pass did not know.
            return t.heuristic(candidates, Family::Java, |s| member_may_be(kind, s.kind));
        }
        match self.lookup(t, at, name, kind) {
            Named::Symbols(found) => t
                .first_compatible(&found, kind)
                .map_or(Outcome::Drop, Outcome::Resolved),
            Named::Module(_) | Named::Outside(_) => Outcome::Drop,
            Named::Unknown => t.heuristic(candidates, Family::Java, |s| {
                super::compatible_kind(kind, s.kind)
            }),
        }
    }
}

impl FamilyResolver for JavaTables {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        self.resolve_java(t, u)
    }

    fn import_targets(&self, t: &Tables, _fid: u32, import: &Import) -> Option<Vec<u32>> {
        match self.import_named(t, import, &import.local, RefKind::Import) {
            Named::Symbols(found) => Some(found),
            Named::Module(_) | Named::Unknown => Some(Vec::new()),
            Named::Outside(_) => None,
        }
    }

    fn type_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path, RefKind::Type)
    }

    fn value_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        // A value path's first segment is a field of the enclosing classes or a type
        // (`Config.DEFAULT`).
        self.named(t, at, path, RefKind::Identifier)
    }

    fn call_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path, RefKind::Call)
    }

    fn module_member(&self, _t: &Tables, _fid: u32, _name: &str) -> Vec<u32> {
        // Java has no module values: packages are reached through types.
        Vec::new()
    }

    fn outside_member(&self, ty: &str, member: &str) -> OutsideMember {
        match (ty, member) {
            ("List" | "ArrayList" | "LinkedList", "get" | "remove" | "getFirst" | "getLast")
            | ("Optional", "get" | "orElse" | "orElseThrow")
            | ("Iterator", "next")
            | ("Supplier", "get") => return OutsideMember::Known(Spec::Arg(0)),
            (
                "Map" | "HashMap" | "TreeMap" | "LinkedHashMap" | "ConcurrentHashMap",
                "get" | "remove" | "getOrDefault" | "put",
            ) => {
                return OutsideMember::Known(Spec::Arg(1));
            }
            _ => {}
        }
        match ty {
            // Primitive and `java.lang` value types: their members are the library's.
            "int" | "long" | "short" | "byte" | "char" | "boolean" | "float" | "double"
            | "String" | "Integer" | "Long" | "Boolean" | "Double" | "Object" | "function" => {
                OutsideMember::Known(Spec::Opaque)
            }
            _ => OutsideMember::NotKnown,
        }
    }

    fn outside_step(&self, ty: &str, step: Step) -> OutsideStep {
        match (ty, step) {
            (
                "List" | "ArrayList" | "Set" | "HashSet" | "Collection" | "Iterable" | "[]",
                Step::Element,
            ) => Some(Spec::Arg(0)),
            ("[]", Step::Index) => Some(Spec::Arg(0)),
            _ => None,
        }
    }

    fn unwrap_keeps_type(&self) -> bool {
        true
    }
}
