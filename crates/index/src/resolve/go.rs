//! The Go resolver family: a package is a directory, and every file of it sees the
//! package-level names of all the others; import paths lead to directories through the
//! `go.mod` module paths of the tree (or, without one, through the directory whose path
//! ends with the import path: GOPATH, vendor and distribution source trees); `pkg.Name`
//! through an import; dot imports; methods are members of their receiver's type (see the
//! query), embedded fields and interfaces supertypes (the receiver-type pass promotes
//! their members).
//!
//! A bare name that is no local, no package-level name and no dot import's is one of
//! Go's predeclared identifiers (`len`, `string`, `nil`) and is dropped, not matched by
//! name.

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Family, Import, ImportTarget};

use super::includes::directory;
use super::types::{Named, OutsideMember, OutsideStep, Spec, Step};
use super::{CompactFacts, FamilyResolver, Outcome, ParsedFile, Place, Tables, Use, member_may_be};

/// The `module` path a `go.mod` declares (a line scan: only this one value is needed,
/// and a malformed file must not stop indexing).
pub(crate) fn go_module_path(manifest: &str) -> Option<String> {
    manifest.lines().find_map(|line| {
        let rest = line.trim().strip_prefix("module")?;
        if !rest.starts_with(|c: char| c.is_whitespace()) {
            return None;
        }
        let path = rest.split("//").next()?.trim().trim_matches('"');
        (!path.is_empty()).then(|| path.to_owned())
    })
}

/// The Go family's tables.
pub(super) struct GoTables {
    /// Each `go.mod`'s directory and module path.
    modules: Vec<(String, String)>,
    /// Package directory → its parsed Go files.
    packages: HashMap<String, Vec<u32>>,
    /// Package directory → package-level definitions by name.
    scopes: HashMap<String, HashMap<String, Vec<u32>>>,
    /// Every trailing run of a package directory's segments (`spf13/cobra` of
    /// `src/github.com/spf13/cobra`) → those directories: import paths without a
    /// `go.mod` to place them.
    suffixes: HashMap<String, Vec<String>>,
}

impl GoTables {
    pub fn new(files: &[ParsedFile]) -> Self {
        let modules = files
            .iter()
            .filter(|f| f.row.path == "go.mod" || f.row.path.ends_with("/go.mod"))
            .filter_map(|f| {
                let path = f.package_name.clone()?;
                Some((directory(&f.row.path).to_owned(), path))
            })
            .collect();
        Self {
            modules,
            packages: HashMap::default(),
            scopes: HashMap::default(),
            suffixes: HashMap::default(),
        }
    }

    /// Registers a Go file's package-level definitions; returns the prefix of its
    /// qualified names (the package's directory name).
    pub fn add_file(&mut self, fid: u32, path: &str, facts: &CompactFacts, base: u32) -> String {
        let dir = directory(path);
        let files = self.packages.entry(dir.to_owned()).or_default();
        if files.is_empty() {
            let segments: Vec<&str> = dir.split('/').filter(|s| !s.is_empty()).collect();
            for start in 0..segments.len() {
                self.suffixes
                    .entry(segments[start..].join("/"))
                    .or_default()
                    .push(dir.to_owned());
            }
        }
        files.push(fid);
        let scope = self.scopes.entry(dir.to_owned()).or_default();
        for (i, d) in facts.definitions.iter().enumerate() {
            if d.parent == super::NONE && d.container == super::NONE {
                scope
                    .entry(facts.name(d).to_owned())
                    .or_default()
                    .push(base + i as u32);
            }
        }
        dir.rsplit('/').next().unwrap_or("").to_owned()
    }

    /// The package directory an import path names; `None`: not in the repository.
    fn package(&self, import_path: &str) -> Option<&str> {
        for (dir, module) in &self.modules {
            let rest = match import_path.strip_prefix(module.as_str()) {
                Some("") => "",
                Some(rest) if rest.starts_with('/') => &rest[1..],
                _ => continue,
            };
            let candidate = match (dir.is_empty(), rest.is_empty()) {
                (_, true) => dir.clone(),
                (true, false) => rest.to_owned(),
                (false, false) => format!("{dir}/{rest}"),
            };
            if let Some((key, _)) = self.packages.get_key_value(&candidate) {
                return Some(key.as_str());
            }
        }
        match self.suffixes.get(import_path)?.as_slice() {
            [only] => Some(only.as_str()),
            // Several copies (vendored twice): the shortest path, deterministically.
            several => several
                .iter()
                .min_by_key(|d| (d.len(), *d))
                .map(String::as_str),
        }
    }

    fn package_member(&self, dir: &str, name: &str) -> Vec<u32> {
        self.scopes
            .get(dir)
            .and_then(|scope| scope.get(name))
            .cloned()
            .unwrap_or_default()
    }

    fn dir_of<'t>(t: &'t Tables, fid: u32) -> &'t str {
        directory(&t.files[fid as usize].row.path)
    }

    /// What an import names: the package (as one of its files), or `Outside`.
    fn import_named(&self, import: &Import) -> Named {
        let ImportTarget::Module { source, .. } = &import.target else {
            return Named::Unknown;
        };
        match self
            .package(source)
            .and_then(|dir| self.packages.get(dir))
            .and_then(|files| files.first())
        {
            Some(&fid) => Named::Module(fid),
            None => Named::Outside(import.local.clone()),
        }
    }

    /// A bare name at `at`: the package's names, then dot imports; `Outside` when none
    /// has it (a predeclared identifier, or a name of a package outside the tree).
    fn lookup(&self, t: &Tables, at: Place, name: &str) -> Named {
        let found = self.package_member(Self::dir_of(t, at.fid), name);
        if !found.is_empty() {
            return Named::Symbols(found);
        }
        let mut unresolved_dot = false;
        for import in at.facts.imports.iter().filter(|i| i.local == "*") {
            match self.import_named(import) {
                Named::Module(fid) => {
                    let found = self.package_member(Self::dir_of(t, fid), name);
                    if !found.is_empty() {
                        return Named::Symbols(found);
                    }
                }
                _ => unresolved_dot = true,
            }
        }
        if unresolved_dot {
            Named::Unknown
        } else {
            Named::Outside(name.to_owned())
        }
    }

    /// `pkg.Name` or `Name` for the receiver-type pass.
    fn named(&self, t: &Tables, at: Place, path: &[String]) -> Named {
        let Some(first) = path.first() else {
            return Named::Unknown;
        };
        let named = match at.facts.imports_named(first).next() {
            Some(import) if first != "*" => self.import_named(import),
            _ => self.lookup(t, at, first),
        };
        match (named, &path[1..]) {
            (named, []) => named,
            (Named::Module(fid), [name]) => {
                let found = self.package_member(Self::dir_of(t, fid), name);
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

    fn resolve_go(&self, t: &Tables, reference: &Use<'_>) -> Outcome {
        let Use {
            at,
            name,
            kind,
            receiver: _,
            qualifier,
            candidates,
            ..
        } = *reference;
        if let Some(q) = qualifier {
            // `pkg.Name` through an import; other selectors are the receiver-type pass's,
            // and what it could not settle is matched by name.
            if let Some(import) = at.facts.imports_named(q).next()
                && q != "*"
            {
                return match self.import_named(import) {
                    Named::Module(fid) => t
                        .first_compatible(&self.package_member(Self::dir_of(t, fid), name), kind)
                        .map_or(Outcome::Drop, Outcome::Resolved),
                    _ => Outcome::Drop,
                };
            }
            return t.heuristic(candidates, Family::Go, |s| {
                member_may_be(kind, s.kind, s.family)
            });
        }
        match self.lookup(t, at, name) {
            Named::Symbols(found) => t
                .first_compatible(&found, kind)
                .map_or(Outcome::Drop, Outcome::Resolved),
            Named::Module(_) | Named::Outside(_) => Outcome::Drop,
            Named::Unknown => t.heuristic(candidates, Family::Go, |s| {
                super::compatible_kind(kind, s.kind) && !s.member
            }),
        }
    }
}

impl FamilyResolver for GoTables {
    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        self.resolve_go(t, u)
    }

    fn import_targets(&self, _t: &Tables, _fid: u32, import: &Import) -> Option<Vec<u32>> {
        match self.import_named(import) {
            Named::Outside(_) => None,
            _ => Some(Vec::new()),
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
        self.package_member(Self::dir_of(t, fid), name)
    }

    fn outside_member(&self, ty: &str, _member: &str) -> OutsideMember {
        match ty {
            // Predeclared types: their methods (`error.Error`) are not the repository's.
            "string" | "bool" | "byte" | "rune" | "int" | "int8" | "int16" | "int32" | "int64"
            | "uint" | "uint8" | "uint16" | "uint32" | "uint64" | "uintptr" | "float32"
            | "float64" | "complex64" | "complex128" | "error" | "func" => {
                OutsideMember::Known(Spec::Opaque)
            }
            _ => OutsideMember::NotKnown,
        }
    }

    fn outside_step(&self, ty: &str, step: Step) -> OutsideStep {
        match (ty, step) {
            ("[]", Step::Index | Step::Element) => Some(Spec::Arg(0)),
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
    fn module_paths_come_from_the_module_line() {
        assert_eq!(
            go_module_path("// comment\nmodule example.com/app // trailing\n\ngo 1.22\n")
                .as_deref(),
            Some("example.com/app")
        );
        assert_eq!(go_module_path("modules x\n"), None);
        assert_eq!(go_module_path("go 1.21\n"), None);
        assert_eq!(
            go_module_path("module \"quoted/path\"\n").as_deref(),
            Some("quoted/path")
        );
    }
}
