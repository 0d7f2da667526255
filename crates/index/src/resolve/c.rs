//! The C resolver family: a file sees its own file-scope names and those of the headers
//! it includes, transitively (C's textual inclusion); `#include` paths lead to files of
//! the tree (next to the including file for `"..."`, then by the path's trailing
//! segments anywhere in the tree, the closest first, as an `-I` flag would); a name a
//! prototype or an `extern` declaration in that closure declares is the tree's
//! definition of it, wherever it is (the linker's rule), the one in the `.c` file named
//! like the declaring header when several files define it.
//!
//! What the closure does not explain is a guess: a name defined in the tree but neither
//! visible nor declared (an include the tree cannot resolve, a macro from the build's
//! `-D` flags, an implicit declaration) is a `heuristic` name match; a name the tree does
//! not define at all (the C library's) is dropped. Struct members go through the
//! receiver-type pass (`p->next`, `s.len`, pointers looked through); a `typedef` of a
//! struct is that struct to it.
//!
//! C++ files are this family's too, with what C lacks: a bare name in a method is first a
//! member of its class (with what the class inherits), and a name with a qualifier
//! (`ns::f`, `Cart::create`) is the definition whose namespaces and classes end with the
//! qualifier, else a member of the class the qualifier names. Namespaces are not scopes
//! of lookup otherwise: within a translation unit, names are matched as C's are.

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use mcursor_syntax::{Family, Import, ImportTarget, RefKind, SymbolKind};

use super::includes::IncludeGraph;
use super::types::{Lookup as MemberLookup, Named, OutsideMember, OutsideStep, Spec, Step, Ty};
use super::{FamilyResolver, Outcome, ParsedFile, Place, Tables, Use, member_may_be, name_may_be};

fn stem(path: &str) -> &str {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rsplit_once('.').map_or(name, |(stem, _)| stem)
}

/// The C family's tables.
pub(super) struct CTables {
    /// The `#include` graph.
    includes: IncludeGraph,
    /// Name → the files with a prototype or `extern` declaration of it.
    declared_in: HashMap<String, Vec<u32>>,
}

impl Default for CTables {
    fn default() -> CTables {
        CTables {
            includes: IncludeGraph::new(Family::C),
            declared_in: HashMap::default(),
        }
    }
}

impl CTables {
    /// Registers a C file (its path's suffixes, its declarations); its qualified names
    /// have no prefix (C has no modules).
    pub fn add_file(&mut self, fid: u32, path: &str, imports: &[Import]) -> String {
        self.includes.add_file(fid, path);
        for import in imports {
            if let ImportTarget::Path(path) = &import.target
                && let [name] = path.as_slice()
            {
                let files = self.declared_in.entry(name.clone()).or_default();
                if files.last() != Some(&fid) {
                    files.push(fid);
                }
            }
        }
        String::new()
    }

    /// Resolves every file's includes, once all files are known.
    pub fn finish(&mut self, files: &[ParsedFile], file_ids: &HashMap<&str, u32>) {
        self.includes.finish(files, file_ids);
    }

    /// The file-scope C definitions named `name` (no struct fields).
    fn file_scope<'t>(t: &'t Tables, name: &str) -> impl Iterator<Item = u32> + 't {
        t.candidates(name).iter().copied().filter(|&s| {
            let symbol = &t.symbols[s as usize];
            symbol.family == Family::C && !symbol.member
        })
    }

    /// What `name` is at `fid`: definitions in the file or its include closure (the
    /// file's own first), else the definitions that a declaration in the closure makes
    /// visible. `None`: neither visible nor declared.
    fn lookup(&self, t: &Tables, fid: u32, name: &str) -> Option<Lookup> {
        let closure = self.includes.closure(t, fid);
        let mut visible: Vec<u32> = Self::file_scope(t, name)
            .filter(|&s| closure.contains(&t.symbols[s as usize].file))
            .collect();
        if !visible.is_empty() {
            visible.sort_by_key(|&s| t.symbols[s as usize].file != fid);
            return Some(Lookup::Visible(visible));
        }
        let declaring: Vec<u32> = self
            .declared_in
            .get(name)
            .into_iter()
            .flatten()
            .copied()
            .filter(|d| closure.contains(d))
            .collect();
        if declaring.is_empty() {
            return None;
        }
        Some(self.declared(t, name, &declaring))
    }

    /// The definitions a declaration of `name` in the files `declaring` refers to.
    fn declared(&self, t: &Tables, name: &str, declaring: &[u32]) -> Lookup {
        let defined: Vec<u32> = Self::file_scope(t, name)
            .filter(|&s| {
                matches!(
                    t.symbols[s as usize].kind,
                    SymbolKind::Function | SymbolKind::Variable
                )
            })
            .collect();
        if defined.len() <= 1 {
            return Lookup::Declared(defined);
        }
        // Several files define it (programs of one tree, alternatives for platforms): the
        // one named like the declaring header (`shop.h` → `shop.c`) if that settles it.
        let stems: HashSet<&str> = declaring
            .iter()
            .map(|&d| stem(&t.files[d as usize].row.path))
            .collect();
        let paired: Vec<u32> = defined
            .iter()
            .copied()
            .filter(|&s| {
                stems.contains(stem(&t.files[t.symbols[s as usize].file as usize].row.path))
            })
            .collect();
        match paired.as_slice() {
            [only] => Lookup::Declared(vec![*only]),
            _ => Lookup::Ambiguous(defined),
        }
    }

    /// The namespaces and classes a definition is in, outermost first (`shop`, `Cart`
    /// for `shop::Cart::total`; a method defined outside its class names its class).
    fn scope_segments<'f>(t: &'f Tables, sid: u32) -> Vec<&'f str> {
        let Some((_, facts, d)) = t.definition(sid) else {
            return Vec::new();
        };
        facts
            .modules(d)
            .iter()
            .map(String::as_str)
            .chain(facts.container(d))
            .flat_map(|scope| scope.split("::"))
            .filter(|s| !s.is_empty())
            .collect()
    }

    /// The definitions named `name` whose namespaces and classes end with `qualifier`
    /// (`detail::helper` for `shop::detail::helper`).
    fn qualified(t: &Tables, qualifier: &[&str], name: &str) -> Vec<u32> {
        t.candidates(name)
            .iter()
            .copied()
            .filter(|&s| {
                t.symbols[s as usize].family == Family::C
                    && Self::scope_segments(t, s).ends_with(qualifier)
            })
            .collect()
    }

    /// What `Q::name` is: a definition qualified so, else a member of the class `Q`
    /// names (inherited ones too). `None` when neither is known.
    fn resolve_qualified(
        &self,
        t: &Tables,
        at: Place,
        qualifier: &str,
        name: &str,
        kind: RefKind,
    ) -> Option<Outcome> {
        let segments: Vec<&str> = qualifier.split("::").filter(|s| !s.is_empty()).collect();
        let found = Self::qualified(t, &segments, name);
        if let Some(sid) = t.first_compatible(&found, kind) {
            return Some(Outcome::Resolved(sid));
        }
        let path: Vec<String> = segments.iter().map(|s| (*s).to_owned()).collect();
        if let Named::Symbols(types) = self.named(t, at, &path) {
            for sid in types {
                match t.lookup_member(Family::C, &Ty::Repo(sid), name, kind) {
                    MemberLookup::Found(found) => return Some(Outcome::Resolved(found)),
                    MemberLookup::Ambiguous(found) => return Some(Outcome::Guess(found)),
                    MemberLookup::Absent | MemberLookup::Unknown => {}
                }
            }
        }
        None
    }

    /// A bare name in a C++ method: a member of the method's class or of what it
    /// inherits (`total()`, `count_`).
    fn enclosing_member(t: &Tables, at: Place, name: &str, kind: RefKind) -> Option<Outcome> {
        // A type named in a method is not a member; the class's own name (a constructor's
        // too) is the class.
        if kind == RefKind::Type || at.enclosing.and_then(|d| at.facts.container(d)) == Some(name) {
            return None;
        }
        let sid = t.enclosing_sid(at)?;
        let class = t.container_type_of(sid);
        let lookup_kind = match kind {
            RefKind::Identifier => RefKind::Field,
            other => other,
        };
        match t.lookup_member(Family::C, &class, name, lookup_kind) {
            MemberLookup::Found(found) => Some(Outcome::Resolved(found)),
            MemberLookup::Ambiguous(found) => Some(Outcome::Guess(found)),
            MemberLookup::Absent | MemberLookup::Unknown => None,
        }
    }

    fn named(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        if let [qualifier @ .., name] = path
            && !qualifier.is_empty()
        {
            // C++'s `ns::Type`.
            let qualifier: Vec<&str> = qualifier.iter().map(String::as_str).collect();
            let found = Self::qualified(t, &qualifier, name);
            return if !found.is_empty() {
                Named::Symbols(found)
            } else if t.candidates(name).is_empty() {
                Named::Outside(name.clone())
            } else {
                Named::Unknown
            };
        }
        let [name] = path else {
            return Named::Unknown;
        };
        match self.lookup(t, at.fid, name) {
            Some(Lookup::Visible(found) | Lookup::Declared(found)) if !found.is_empty() => {
                Named::Symbols(found)
            }
            Some(Lookup::Ambiguous(_)) => Named::Unknown,
            Some(_) | None if Self::file_scope(t, name).next().is_some() => Named::Unknown,
            Some(_) | None => Named::Outside(name.clone()),
        }
    }

    fn resolve_c(&self, t: &Tables, reference: &Use<'_>) -> Outcome {
        let Use {
            at,
            name,
            kind,
            receiver,
            qualifier,
            candidates,
            ..
        } = *reference;
        match qualifier {
            Some(path) if !receiver => {
                // C++'s `ns::f`, `Cart::create`: what the tree defines so, else a name
                // match when the qualifier's first name is the tree's (not `std::`).
                if let Some(outcome) = self.resolve_qualified(t, at, path, name, kind) {
                    return outcome;
                }
                let first = path.split("::").find(|s| !s.is_empty()).unwrap_or("");
                return if t.candidates(first).is_empty() {
                    Outcome::Drop
                } else {
                    t.heuristic(candidates, Family::C, |s| {
                        name_may_be(kind, s.kind, s.family)
                    })
                };
            }
            Some(_) => {
                // A member of a value the receiver-type pass could not type.
                return t.heuristic(candidates, Family::C, |s| {
                    member_may_be(kind, s.kind, s.family)
                });
            }
            None => {}
        }
        if let Some(outcome) = Self::enclosing_member(t, at, name, kind) {
            return outcome;
        }
        let fits = |s: &u32| name_may_be(kind, t.symbols[*s as usize].kind, Family::C);
        match self.lookup(t, at.fid, name) {
            Some(Lookup::Visible(found) | Lookup::Declared(found)) if !found.is_empty() => {
                Outcome::Resolved(found.iter().copied().find(fits).unwrap_or(found[0]))
            }
            Some(Lookup::Ambiguous(found)) => match found.iter().copied().find(fits) {
                Some(sid) => Outcome::Guess(sid),
                None => Outcome::Drop,
            },
            // Declared in the closure, defined outside the tree.
            Some(_) => Outcome::Drop,
            None => t.heuristic(candidates, Family::C, |s| {
                !s.member && name_may_be(kind, s.kind, s.family)
            }),
        }
    }
}

/// What a name is at a place in a C file.
enum Lookup {
    /// Defined in the file or a header it includes (the file's own first).
    Visible(Vec<u32>),
    /// Declared there and defined by these (none: outside the tree).
    Declared(Vec<u32>),
    /// Declared there and defined by several files the declaration does not choose from.
    Ambiguous(Vec<u32>),
}

impl FamilyResolver for CTables {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        self.resolve_c(t, u)
    }

    fn import_targets(&self, t: &Tables, fid: u32, import: &Import) -> Option<Vec<u32>> {
        match &import.target {
            // A declaration: the definition it declares (a forward declaration of a
            // function of the same file included).
            ImportTarget::Path(path) => {
                let [name] = path.as_slice() else {
                    return None;
                };
                let own: Vec<u32> = CTables::file_scope(t, name)
                    .filter(|&s| t.symbols[s as usize].file == fid)
                    .collect();
                if !own.is_empty() {
                    return Some(own);
                }
                match self.declared(t, name, &[fid]) {
                    Lookup::Declared(found) if found.is_empty() => None,
                    Lookup::Visible(found) | Lookup::Declared(found) => Some(found),
                    Lookup::Ambiguous(_) => Some(Vec::new()),
                }
            }
            ImportTarget::Module { .. } => self.includes.includes_any(fid).then(Vec::new),
        }
    }

    fn type_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        // A struct tag and a typedef may share a name (`typedef struct cart cart;`): the
        // struct is the type.
        match self.named(t, at, path) {
            Named::Symbols(mut found) => {
                found.sort_by_key(|&s| t.symbols[s as usize].kind == SymbolKind::TypeAlias);
                Named::Symbols(found)
            }
            other => other,
        }
    }

    fn value_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path)
    }

    fn call_path(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        self.named(t, at, path)
    }

    fn module_member(&self, _t: &Tables, _fid: u32, _name: &str) -> Vec<u32> {
        // C has no module values.
        Vec::new()
    }

    fn outside_member(&self, ty: &str, _member: &str) -> OutsideMember {
        match ty {
            // Arithmetic and character types have no members.
            "char" | "int" | "bool" | "short" | "long" | "float" | "double" | "void" | "signed"
            | "unsigned" | "size_t" | "int8_t" | "int16_t" | "int32_t" | "int64_t" | "uint8_t"
            | "uint16_t" | "uint32_t" | "uint64_t" => OutsideMember::Known(Spec::Opaque),
            // C++'s smart pointers and `optional` reach their value's members (`p->f()`).
            "unique_ptr" | "shared_ptr" | "weak_ptr" | "optional" => OutsideMember::Deref(0),
            // C++'s standard containers and strings: their members are the library's.
            "string" | "string_view" | "vector" | "map" | "unordered_map" | "set"
            | "unordered_set" | "list" | "deque" | "array" | "pair" | "tuple" | "function" => {
                OutsideMember::Known(Spec::Opaque)
            }
            _ => OutsideMember::NotKnown,
        }
    }

    fn outside_step(&self, ty: &str, step: Step) -> OutsideStep {
        match (ty, step) {
            // `v[i]`, `for (auto& x : v)`: an element; `m[k]`: a value.
            ("vector" | "array" | "deque" | "list" | "set" | "unordered_set", _) => {
                Some(Spec::Arg(0))
            }
            ("map" | "unordered_map", Step::Index) => Some(Spec::Arg(1)),
            _ => None,
        }
    }

    fn unwrap_keeps_type(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_file_stem_is_its_name_without_extension() {
        assert_eq!(stem("src/shop.h"), "shop");
        assert_eq!(stem("Makefile"), "Makefile");
    }
}
