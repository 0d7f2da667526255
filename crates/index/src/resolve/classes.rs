//! The class-based resolver families, Java, C#, PHP, Ruby and Kotlin (one [`Dialect`]
//! each): types grouped by package or namespace (every file of a package sees its
//! top-level types; C# also sees the enclosing namespaces' types), single-type imports
//! and aliases (`import a.b.C`, `using X = A.B.C`), on-demand imports (`import a.b.*`,
//! `using A.B`), static imports (`import static a.b.C.m`, `using static A.B.C`), C#'s
//! `global using`, nested types (`Outer.Inner`), and unqualified names that are members
//! of the enclosing classes (`run()` in a method is `this.run()` or an outer class's),
//! looked up with their supertypes by the receiver-type pass. A C# partial class is one
//! type: its parts share a qualified name, and every part's members are the first part's.
//!
//! A name none of these has is the platform's (`java.lang`, `System`) or another
//! library's, and is dropped rather than matched by name.
//!
//! PHP (namespaces written `A\B`): a namespace also holds functions and constants, and
//! an unqualified function or constant not in the current namespace is the global one; a
//! bare name is never a member (members are reached through `$this->`, `self::`,
//! `static::`, `parent::` or a class); `use` imports one class, function, constant or
//! namespace by its fully qualified name; `use Trait;` in a class takes the trait's
//! members in (the receiver pass treats the trait as a supertype).
//!
//! Ruby: classes and modules are types whose constants, classes and methods are their
//! members (`Shop::Cart::total`); a constant is looked up lexically (the enclosing
//! classes and modules, innermost first, with what they inherit and include), then at
//! the top level; a bare call is a method of `self` (the enclosing class and its
//! ancestors) or a top-level method; a class reopened in another file is one type (its
//! first definition stands for it, as a C# partial class); `Foo.new` is a `Foo`.
//!
//! Kotlin: packages as Java's, which also hold top-level functions and properties
//! (`import a.b.format` imports a function); a companion object's members are its
//! class's (`Cart.empty()`); `import a.b.C as D` renames; a name no package, import or
//! enclosing class has is the standard library's (`kotlin.*`, imported by default). An
//! extension function (`fun Cart.total()`) is a member of its receiver's type, and in
//! its body a bare name is a member of that type first.

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Family, Import, ImportTarget, RefKind, SymbolKind};

use super::types::{Lookup, Named, OutsideMember, OutsideStep, Spec, Step, Ty};
use super::{CompactFacts, Def, FamilyResolver, Outcome, Place, Tables, Use, member_may_be};

fn is_type(kind: SymbolKind) -> bool {
    matches!(
        kind,
        SymbolKind::Class
            | SymbolKind::Interface
            | SymbolKind::Enum
            | SymbolKind::Struct
            | SymbolKind::Trait
            | SymbolKind::Module
    )
}

/// The languages this module resolves; where they differ is a `match` on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Dialect {
    Java,
    CSharp,
    Php,
    Ruby,
    Kotlin,
}

impl Dialect {
    /// What separates a namespace from a type in a qualified type name.
    fn separator(self) -> &'static str {
        match self {
            Dialect::Java | Dialect::CSharp | Dialect::Kotlin => ".",
            Dialect::Php => "\\",
            Dialect::Ruby => "::",
        }
    }
}

/// A class-based family's tables.
pub(super) struct ClassTables {
    dialect: Dialect,
    /// Package or namespace → its top-level types by simple name.
    packages: HashMap<String, HashMap<String, Vec<u32>>>,
    /// Fully qualified type name (`a.b.C`, `a.b.C.Inner`) → the types (several: C#'s
    /// partial classes, or the same name declared twice).
    types: HashMap<String, Vec<u32>>,
    /// C#'s `global using` directives of every file.
    global_imports: Vec<Import>,
    /// Each later part of a type declared more than once (C#'s partial classes) → the
    /// first part, whose symbol stands for the type.
    first_part: HashMap<u32, u32>,
    /// Names of C# extension methods (`static void M(this T x)`, kind function): a call
    /// `x.M()` that `x`'s type lacks may be one of them.
    extension_methods: HashMap<String, ()>,
}

/// The package or namespace a definition is declared in (the query makes `package`
/// and `namespace` declarations module scopes); empty for the default package or the
/// global namespace.
fn namespace_of(facts: &CompactFacts, d: &Def) -> String {
    facts.modules(d).join(".")
}

/// The names a definition is qualified by: its package or namespace, then the types it
/// is nested in, outermost first (`a.b`, `Outer`, `Inner` for a member of `Outer.Inner`).
pub(super) fn scopes<'f>(facts: &'f CompactFacts, d: &Def) -> Vec<&'f str> {
    let mut types = Vec::new();
    let mut parent = d.parent;
    while let Some(p) = facts.definitions.get(parent as usize) {
        if is_type(p.kind) {
            types.push(facts.name(p));
        }
        if types.len() > 32 {
            break;
        }
        parent = p.parent;
    }
    facts
        .modules(d)
        .iter()
        .map(String::as_str)
        .chain(types.into_iter().rev())
        .collect()
}

/// A type's fully qualified name (`a.b.Outer.Inner`, PHP's `App\Models\User`).
fn qualified_type_name(dialect: Dialect, facts: &CompactFacts, d: &Def) -> String {
    let mut parts = scopes(facts, d);
    parts.push(facts.name(d));
    parts.join(dialect.separator())
}

/// The namespace at a place: the enclosing definition's, else the file's first one's.
fn namespace_at(at: Place) -> String {
    match at.enclosing.or_else(|| at.facts.definitions.first()) {
        Some(d) => namespace_of(at.facts, d),
        None => String::new(),
    }
}

impl ClassTables {
    pub fn new(dialect: Dialect) -> ClassTables {
        ClassTables {
            dialect,
            packages: HashMap::default(),
            types: HashMap::default(),
            global_imports: Vec::new(),
            first_part: HashMap::default(),
            extension_methods: HashMap::default(),
        }
    }

    fn family(&self) -> Family {
        match self.dialect {
            Dialect::Java => Family::Java,
            Dialect::CSharp => Family::CSharp,
            Dialect::Php => Family::Php,
            Dialect::Ruby => Family::Ruby,
            Dialect::Kotlin => Family::Kotlin,
        }
    }

    /// Registers a file's types; returns the prefix of its qualified names (none: the
    /// package or namespace is already their module).
    pub fn add_file(&mut self, facts: &CompactFacts, base: u32) -> String {
        match self.dialect {
            Dialect::Java | Dialect::Php | Dialect::Ruby | Dialect::Kotlin => {}
            Dialect::CSharp => {
                self.global_imports
                    .extend(facts.imports.iter().filter(|i| i.reexport).cloned());
                for d in &facts.definitions {
                    let in_type = facts
                        .definitions
                        .get(d.parent as usize)
                        .is_some_and(|p| is_type(p.kind));
                    if d.kind == SymbolKind::Function && in_type {
                        self.extension_methods.insert(facts.name(d).to_owned(), ());
                    }
                }
            }
        }
        for (i, d) in facts.definitions.iter().enumerate() {
            let sid = base + i as u32;
            let name = facts.name(d);
            let top_level = d.container == super::NONE && d.parent == super::NONE;
            // A PHP namespace holds functions and constants beside its types.
            let namespace_member = match self.dialect {
                Dialect::Php => {
                    top_level && matches!(d.kind, SymbolKind::Function | SymbolKind::Constant)
                }
                // A top-level `def` is callable everywhere; a top-level constant too.
                Dialect::Ruby => {
                    top_level
                        && matches!(
                            d.kind,
                            SymbolKind::Function | SymbolKind::Method | SymbolKind::Constant
                        )
                }
                // A package holds top-level functions (extension functions too, which
                // are members of their receiver's type as well) and properties.
                Dialect::Kotlin => {
                    d.parent == super::NONE
                        && matches!(
                            d.kind,
                            SymbolKind::Function
                                | SymbolKind::Constant
                                | SymbolKind::Variable
                                | SymbolKind::TypeAlias
                        )
                }
                Dialect::Java | Dialect::CSharp => false,
            };
            if namespace_member {
                self.packages
                    .entry(namespace_of(facts, d))
                    .or_default()
                    .entry(name.to_owned())
                    .or_default()
                    .push(sid);
            }
            if !is_type(d.kind) {
                continue;
            }
            let package = namespace_of(facts, d);
            let parts = self
                .types
                .entry(qualified_type_name(self.dialect, facts, d))
                .or_default();
            // Later parts of a C# partial class stand for the first.
            if let Some(&first) = parts.first() {
                self.first_part.insert(sid, first);
            }
            parts.push(sid);
            if top_level {
                self.packages
                    .entry(package)
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
            match t.lookup_member(self.family(), &Ty::Repo(sid), name, kind) {
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
        let separator = self.dialect.separator();
        if let Some(nested) = self.types.get(&format!("{source}{separator}{wanted}")) {
            return Named::Symbols(nested.clone());
        }
        if self.types.contains_key(source.as_str()) {
            return self.static_member(t, source, wanted, kind);
        }
        // ... or nothing of the repository's.
        match self.dialect {
            // A repository package that lacks the name: unknown (as first measured).
            Dialect::Java | Dialect::Kotlin if self.packages.contains_key(source.as_str()) => {
                Named::Unknown
            }
            // C# namespaces are open: the platform adds types to namespaces a repository
            // also declares (`System.Runtime.CompilerServices` polyfills), and every type
            // the repository declares there is in the tables.
            // PHP: `use` names a fully qualified name the repository does not define.
            Dialect::Java | Dialect::Kotlin | Dialect::CSharp | Dialect::Php | Dialect::Ruby => {
                Named::Outside(wanted.to_owned())
            }
        }
    }

    /// The types named `name` nested in type `sid`.
    fn nested_types(&self, t: &Tables, sid: u32, name: &str) -> Vec<u32> {
        let Some((_, facts, d)) = t.definition(sid) else {
            return Vec::new();
        };
        let qualified = format!(
            "{}{}{name}",
            qualified_type_name(self.dialect, facts, d),
            self.dialect.separator()
        );
        self.types.get(&qualified).cloned().unwrap_or_default()
    }

    /// The types around a place, innermost first (their symbol ids; a part of a partial
    /// class as the type's first part).
    fn enclosing_types(&self, t: &Tables, at: Place) -> Vec<u32> {
        let facts = at.facts;
        let base = t.file_base[at.fid as usize];
        let mut out = Vec::new();
        let mut current = t.enclosing_sid(at).map(|sid| sid - base);
        while let Some(i) = current {
            let Some(d) = facts.definitions.get(i as usize) else {
                break;
            };
            if is_type(d.kind) {
                let sid = base + i;
                out.push(self.first_part.get(&sid).copied().unwrap_or(sid));
            } else if self.dialect == Dialect::Kotlin
                && d.parent == super::NONE
                && d.container != super::NONE
                && let Ty::Repo(receiver) = t.container_type_of(base + i)
            {
                // An extension function's body sees its receiver's members.
                out.push(receiver);
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
        // `it`, a Kotlin lambda's implicit parameter (no local declares it), is a value
        // of unknown type.
        if self.dialect == Dialect::Kotlin && name == "it" {
            return Named::Unknown;
        }
        let mut unknown = false;
        // A bare PHP name is never a member of the enclosing class.
        if !matches!(kind, RefKind::Type) && self.dialect != Dialect::Php {
            for class in self.enclosing_types(t, at) {
                // `new Cart()` inside `Cart` names the type, not its constructor (a member
                // named like the class).
                if t.names.name_of_symbol(class) == name {
                    continue;
                }
                match t.lookup_member(self.family(), &Ty::Repo(class), name, kind) {
                    // In a Ruby instance method, a bare call is an instance method: a
                    // class method of that name (`class << self`) is not it, and what is
                    // meant may come from a mixin added at run time.
                    Lookup::Found(sid) | Lookup::Ambiguous(sid)
                        if self.dialect == Dialect::Ruby
                            && t.symbols[sid as usize].kind == SymbolKind::Function
                            && at.enclosing.is_some_and(|d| d.kind == SymbolKind::Method) =>
                    {
                        unknown = true
                    }
                    Lookup::Found(sid) | Lookup::Ambiguous(sid) => {
                        return Named::Symbols(vec![sid]);
                    }
                    Lookup::Unknown => unknown = true,
                    // A Ruby module's `self` is whatever includes it: a method the
                    // module lacks may be the includer's.
                    Lookup::Absent
                        if self.dialect == Dialect::Ruby
                            && t.symbols[class as usize].kind == SymbolKind::Module =>
                    {
                        unknown = true
                    }
                    Lookup::Absent => {}
                }
            }
        }
        // Nested types of the enclosing classes, then the package's types.
        for class in self.enclosing_types(t, at) {
            let nested = self.nested_types(t, class, name);
            if !nested.is_empty() {
                return Named::Symbols(nested);
            }
        }
        // The namespace's types; in C#, then the enclosing namespaces' (`A.B`, `A`, the
        // global one).
        let mut namespace = namespace_at(at);
        loop {
            let found = self.package_type(&namespace, name);
            if !found.is_empty() {
                return Named::Symbols(found);
            }
            match (self.dialect, namespace.rsplit_once('.')) {
                (Dialect::Java | Dialect::Kotlin, _) => break,
                (Dialect::CSharp, Some((outer, _))) => namespace = outer.to_owned(),
                (Dialect::CSharp, None) if !namespace.is_empty() => namespace.clear(),
                (Dialect::CSharp, None) => break,
                // An unqualified function or constant falls back to the global namespace.
                // A class does not, but the grammar drops the `\` of `\Helper`, so a
                // global class is the reading left (code that runs never relies on the
                // fallback for a class).
                (Dialect::Php, _) if !namespace.is_empty() => namespace.clear(),
                (Dialect::Php, _) | (Dialect::Ruby, _) => break,
            }
        }
        let global = self.global_imports.iter();
        for import in at
            .facts
            .imports_named(name)
            .chain(global.clone().filter(|i| i.local == name))
        {
            match self.import_named(t, import, name, kind) {
                Named::Unknown => unknown = true,
                named => return named,
            }
        }
        for import in at
            .facts
            .imports
            .iter()
            .chain(global)
            .filter(|i| i.local == "*")
        {
            match self.import_named(t, import, name, kind) {
                Named::Symbols(found) => return Named::Symbols(found),
                Named::Unknown => unknown = true,
                Named::Outside(_) | Named::Module(_) => {}
            }
        }
        if unknown {
            return Named::Unknown;
        }
        match self.dialect {
            // `[Serializable]` names the class `SerializableAttribute`.
            Dialect::CSharp if kind == RefKind::Type && !name.ends_with("Attribute") => {
                match self.lookup(t, at, &format!("{name}Attribute"), kind) {
                    Named::Symbols(found) => Named::Symbols(found),
                    Named::Outside(_) | Named::Module(_) | Named::Unknown => {
                        Named::Outside(name.to_owned())
                    }
                }
            }
            Dialect::Java | Dialect::CSharp | Dialect::Php | Dialect::Ruby | Dialect::Kotlin => {
                Named::Outside(name.to_owned())
            }
        }
    }

    /// `Type`, `Outer.Inner`, `a.b.Type` for the receiver-type pass.
    fn named(&self, t: &Tables, at: Place, path: &[String], kind: RefKind) -> Named {
        let Some(first) = path.first() else {
            return Named::Unknown;
        };
        if self.dialect == Dialect::Php && path.len() > 1 {
            return self.php_qualified(at, path);
        }
        if path.len() > 1
            && let Some(found) = self.types.get(&path.join(self.dialect.separator()))
        {
            return Named::Symbols(found.clone());
        }
        let mut named = self.lookup(t, at, first, kind);
        for segment in &path[1..] {
            named = match named {
                Named::Symbols(types) => {
                    let nested: Vec<u32> = types
                        .iter()
                        .flat_map(|&sid| self.nested_types(t, sid, segment))
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

    /// The fully qualified names a PHP name qualified by a namespace (`A\B`) may mean,
    /// first to last: through a `use` of its first segment, relative to the current
    /// namespace, as written (PHP reads `A\f` relative, `\A\f` absolute; the grammar
    /// drops the leading `\`, so both are tried).
    fn php_readings(at: Place, path: &[String]) -> Vec<String> {
        let Some(first) = path.first() else {
            return Vec::new();
        };
        let joined = path.join("\\");
        let mut readings = Vec::new();
        for import in at.facts.imports_named(first) {
            if let ImportTarget::Module {
                source,
                imported: Some(imported),
            } = &import.target
            {
                let mut expanded: Vec<&str> = Vec::new();
                expanded.extend(Some(source.as_str()).filter(|s| !s.is_empty()));
                expanded.push(imported);
                expanded.extend(path[1..].iter().map(String::as_str));
                readings.push(expanded.join("\\"));
            }
        }
        let namespace = namespace_at(at);
        if !namespace.is_empty() {
            readings.push(format!("{namespace}\\{joined}"));
        }
        readings.push(joined);
        readings
    }

    /// A PHP name written with its namespace (`Models\User`, `\App\Models\User`,
    /// `Support\format_price`): a class, or a function or constant of the namespace.
    fn php_qualified(&self, at: Place, path: &[String]) -> Named {
        for reading in Self::php_readings(at, path) {
            if let Some(found) = self.types.get(&reading) {
                return Named::Symbols(found.clone());
            }
        }
        let Some((last, namespace)) = path.split_last() else {
            return Named::Unknown;
        };
        for reading in Self::php_readings(at, namespace) {
            let found = self.package_type(&reading, last);
            if !found.is_empty() {
                return Named::Symbols(found);
            }
        }
        Named::Outside(last.clone())
    }

    /// A PHP use: a bare name (a function, constant or class of the namespace, an
    /// imported one, a global function or constant), a name qualified by a namespace
    /// (`A\f()`, `new A\B()`), or a static member (`self::m()`, `static::X`,
    /// `parent::__construct()`, `User::find()`). `$x->m()` reaches here only when the
    /// receiver pass did not know `$x`'s type: a name match among methods and properties.
    fn resolve_php_use(&self, t: &Tables, u: &Use<'_>) -> Outcome {
        let member_guess = || {
            t.heuristic(u.candidates, Family::Php, |s| {
                member_may_be(u.kind, s.kind, s.family)
            })
        };
        if u.receiver {
            return member_guess();
        }
        let Some(qualifier) = u.qualifier else {
            return match self.lookup(t, u.at, u.name, u.kind) {
                Named::Symbols(found) => t
                    .first_compatible(&found, u.kind)
                    .map_or(Outcome::Drop, Outcome::Resolved),
                Named::Module(_) | Named::Outside(_) => Outcome::Drop,
                Named::Unknown => t.heuristic(u.candidates, Family::Php, |s| {
                    super::compatible_kind(u.kind, s.kind)
                }),
            };
        };
        let enclosing = || self.enclosing_types(t, u.at).first().copied();
        let classes: Vec<Ty> = match qualifier {
            "self" | "static" => enclosing().map(Ty::Repo).into_iter().collect(),
            "parent" => enclosing().map_or_else(Vec::new, |sid| t.supertypes_of(sid).to_vec()),
            _ => {
                let path: Vec<String> = qualifier
                    .split('\\')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect();
                // A function, constant or class of a namespace (`A\f()`, `new A\B()`).
                let mut written = path.clone();
                written.push(u.name.to_owned());
                if let Named::Symbols(found) = self.php_qualified(u.at, &written)
                    && let Some(sid) = t.first_compatible(&found, u.kind)
                {
                    return Outcome::Resolved(sid);
                }
                match self.named(t, u.at, &path, RefKind::Type) {
                    Named::Symbols(types) => types
                        .into_iter()
                        .map(|sid| Ty::Repo(self.first_part.get(&sid).copied().unwrap_or(sid)))
                        .collect(),
                    // A namespace or class outside the repository.
                    Named::Outside(_) => return Outcome::Drop,
                    Named::Module(_) | Named::Unknown => return member_guess(),
                }
            }
        };
        let mut unknown = classes.is_empty();
        for ty in &classes {
            match t.lookup_member(Family::Php, ty, u.name, u.kind) {
                Lookup::Found(found) => return Outcome::Resolved(found),
                Lookup::Ambiguous(found) => return Outcome::Guess(found),
                Lookup::Unknown => unknown = true,
                Lookup::Absent => {}
            }
        }
        if unknown {
            member_guess()
        } else {
            Outcome::Drop
        }
    }

    fn resolve_class_use(&self, t: &Tables, reference: &Use<'_>) -> Outcome {
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
        // expression's (`carts.get(key).total()`) does not, nor in Ruby a lowercase name
        // (a method's result: only constants name classes).
        let path_qualifier = qualifier.filter(|q| {
            !local_receiver
                && *q != mcursor_syntax::EXPRESSION_QUALIFIER
                && match self.dialect {
                    // A constant path (`Shop::Cart`), not a call's result.
                    Dialect::Ruby => {
                        q.trim_start_matches(':')
                            .starts_with(|c: char| c.is_ascii_uppercase())
                            && q.chars()
                                .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
                    }
                    Dialect::Java | Dialect::CSharp | Dialect::Php | Dialect::Kotlin => true,
                }
        });
        if let Some(q) = path_qualifier {
            // `Type.member` and `a.b.Type` through what the path names; other receivers
            // are the receiver-type pass's, and what it could not settle is a name match.
            let path: Vec<String> = q
                .split(self.dialect.separator())
                .filter(|s| !s.is_empty())
                .map(str::to_owned)
                .collect();
            // A Kotlin property whose type is inferred (`val xs = load()`) is a value,
            // not a type path: what the receiver pass could not settle is a name match.
            if self.dialect == Dialect::Kotlin
                && let Some(first) = path.first()
                && let Named::Symbols(found) = self.lookup(t, at, first, RefKind::Identifier)
                && found
                    .iter()
                    .all(|&sid| !is_type(t.symbols[sid as usize].kind))
            {
                return t.heuristic(candidates, self.family(), |s| {
                    member_may_be(kind, s.kind, s.family)
                });
            }
            match self.named(t, at, &path, RefKind::Type) {
                Named::Symbols(types) => {
                    for sid in types {
                        // `new Outer.Inner()`, `Outer.Kind.Large`: a nested type.
                        if let Some(&nested) = self.nested_types(t, sid, name).first() {
                            return Outcome::Resolved(nested);
                        }
                        match t.lookup_member(self.family(), &Ty::Repo(sid), name, kind) {
                            Lookup::Found(found) => return Outcome::Resolved(found),
                            Lookup::Ambiguous(found) => return Outcome::Guess(found),
                            Lookup::Absent | Lookup::Unknown => {}
                        }
                    }
                }
                Named::Outside(_) => return Outcome::Drop,
                Named::Module(_) | Named::Unknown => {}
            }
            return t.heuristic(candidates, self.family(), |s| {
                member_may_be(kind, s.kind, s.family)
            });
        }
        if qualifier.is_some() {
            // A member of a local whose type the receiver-type pass did not know.
            return t.heuristic(candidates, self.family(), |s| {
                member_may_be(kind, s.kind, s.family)
            });
        }
        match self.lookup(t, at, name, kind) {
            Named::Symbols(found) => t
                .first_compatible(&found, kind)
                .map_or(Outcome::Drop, Outcome::Resolved),
            Named::Module(_) | Named::Outside(_) => Outcome::Drop,
            Named::Unknown => t.heuristic(candidates, self.family(), |s| {
                super::compatible_kind(kind, s.kind)
            }),
        }
    }
}

impl FamilyResolver for ClassTables {
    fn bare_name_calls(&self) -> bool {
        match self.dialect {
            Dialect::Ruby => true,
            Dialect::Java | Dialect::CSharp | Dialect::Php | Dialect::Kotlin => false,
        }
    }

    fn accessor_field(&self, method: &str) -> Option<String> {
        match self.dialect {
            Dialect::Ruby => Some(format!("@{method}")),
            Dialect::Java | Dialect::CSharp | Dialect::Php | Dialect::Kotlin => None,
        }
    }

    fn resolve_use(&self, t: &Tables, u: &Use) -> Outcome {
        match self.dialect {
            Dialect::Java | Dialect::CSharp | Dialect::Ruby | Dialect::Kotlin => {
                self.resolve_class_use(t, u)
            }
            Dialect::Php => self.resolve_php_use(t, u),
        }
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
        // Neither language has module values: packages and namespaces are reached
        // through types.
        Vec::new()
    }

    fn extension_method(&self, name: &str) -> bool {
        self.extension_methods.contains_key(name)
    }

    fn outside_member(&self, ty: &str, member: &str) -> OutsideMember {
        match self.dialect {
            Dialect::Java => java_outside_member(ty, member),
            Dialect::CSharp => csharp_outside_member(ty, member),
            Dialect::Php => php_outside_member(ty, member),
            Dialect::Ruby => ruby_outside_member(ty, member),
            Dialect::Kotlin => kotlin_outside_member(ty, member),
        }
    }

    fn outside_step(&self, ty: &str, step: Step) -> OutsideStep {
        match self.dialect {
            Dialect::Java => java_outside_step(ty, step),
            Dialect::CSharp => csharp_outside_step(ty, step),
            Dialect::Kotlin => kotlin_outside_step(ty, step),
            Dialect::Php | Dialect::Ruby => None,
        }
    }

    fn unwrap_keeps_type(&self) -> bool {
        true
    }

    fn derived_member(&self, member: &str) -> Option<Spec> {
        match self.dialect {
            // `Cart.new` is a `Cart`; copies are of the same class.
            Dialect::Ruby => match member {
                "new" | "dup" | "clone" | "tap" | "freeze" => Some(Spec::Same),
                // A `Class`: its `name`, `ancestors` are Ruby's.
                "class" => Some(Spec::Opaque),
                _ => None,
            },
            Dialect::Java | Dialect::CSharp | Dialect::Php | Dialect::Kotlin => None,
        }
    }
}

/// What the Java library's types give: element types of collections, and the types whose
/// members are all the library's.
fn java_outside_member(ty: &str, member: &str) -> OutsideMember {
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
        "int" | "long" | "short" | "byte" | "char" | "boolean" | "float" | "double" | "String"
        | "Integer" | "Long" | "Boolean" | "Double" | "Object" | "function" => {
            OutsideMember::Known(Spec::Opaque)
        }
        _ => OutsideMember::NotKnown,
    }
}

fn java_outside_step(ty: &str, step: Step) -> OutsideStep {
    match (ty, step) {
        (
            "List" | "ArrayList" | "Set" | "HashSet" | "Collection" | "Iterable" | "[]",
            Step::Element,
        ) => Some(Spec::Arg(0)),
        ("[]", Step::Index) => Some(Spec::Arg(0)),
        _ => None,
    }
}

/// The same for .NET's types.
fn csharp_outside_member(ty: &str, member: &str) -> OutsideMember {
    match (ty, member) {
        (
            "List" | "IList" | "IReadOnlyList" | "Queue" | "Stack" | "HashSet" | "ISet"
            | "IEnumerable" | "ICollection" | "LinkedList",
            "First" | "FirstOrDefault" | "Last" | "LastOrDefault" | "Single" | "SingleOrDefault"
            | "ElementAt" | "Dequeue" | "Peek" | "Pop",
        )
        | ("Lazy" | "Task" | "ValueTask" | "Nullable", "Value" | "Result")
        | ("IEnumerator", "Current") => return OutsideMember::Known(Spec::Arg(0)),
        (
            "Dictionary"
            | "IDictionary"
            | "IReadOnlyDictionary"
            | "ConcurrentDictionary"
            | "SortedDictionary",
            "GetValueOrDefault",
        ) => return OutsideMember::Known(Spec::Arg(1)),
        _ => {}
    }
    match ty {
        // Built-in value types and `System`'s: their members are the library's.
        "int" | "long" | "short" | "byte" | "sbyte" | "uint" | "ulong" | "ushort" | "char"
        | "bool" | "float" | "double" | "decimal" | "string" | "object" | "String" | "Object"
        | "Int32" | "Int64" | "Boolean" | "Type" | "function" => OutsideMember::Known(Spec::Opaque),
        _ => OutsideMember::NotKnown,
    }
}

fn csharp_outside_step(ty: &str, step: Step) -> OutsideStep {
    match (ty, step) {
        (
            "List" | "IList" | "IReadOnlyList" | "IEnumerable" | "ICollection" | "HashSet" | "ISet"
            | "Queue" | "Stack" | "LinkedList" | "[]",
            Step::Element | Step::Index,
        ) => Some(Spec::Arg(0)),
        (
            "Dictionary"
            | "IDictionary"
            | "IReadOnlyDictionary"
            | "ConcurrentDictionary"
            | "SortedDictionary",
            Step::Index,
        ) => Some(Spec::Arg(1)),
        ("Task" | "ValueTask", Step::Await) => Some(Spec::Arg(0)),
        _ => None,
    }
}

/// PHP's built-in types have no members (`string`, `int`, `array` are not objects);
/// a `Closure` has the library's.
fn php_outside_member(ty: &str, _member: &str) -> OutsideMember {
    match ty {
        "string" | "int" | "float" | "bool" | "array" | "Closure" | "function" => {
            OutsideMember::Known(Spec::Opaque)
        }
        _ => OutsideMember::NotKnown,
    }
}

/// Ruby's core classes of literals: their methods are the library's (a repository that
/// reopens `String` is not modeled).
fn ruby_outside_member(ty: &str, _member: &str) -> OutsideMember {
    match ty {
        "String" | "Integer" | "Float" | "Array" | "Hash" | "Symbol" | "TrueClass"
        | "FalseClass" | "Proc" => OutsideMember::Known(Spec::Opaque),
        _ => OutsideMember::NotKnown,
    }
}

/// What Kotlin's standard library gives: element types of collections and a `Lazy`'s
/// value. No type's members are all the library's: an extension function the
/// repository defines can be called on any of them (`fun String.slug()`).
fn kotlin_outside_member(ty: &str, member: &str) -> OutsideMember {
    match (ty, member) {
        (
            "List" | "MutableList" | "ArrayList" | "Set" | "MutableSet" | "Collection" | "Iterable"
            | "Sequence" | "Array",
            "get" | "first" | "last" | "firstOrNull" | "lastOrNull" | "single" | "singleOrNull"
            | "getOrNull" | "elementAt" | "random" | "find" | "removeAt" | "removeFirst"
            | "removeLast",
        )
        | ("Lazy", "value")
        | ("Iterator", "next") => OutsideMember::Known(Spec::Arg(0)),
        (
            "Map" | "MutableMap" | "HashMap" | "LinkedHashMap",
            "get" | "getValue" | "getOrDefault" | "remove" | "getOrPut" | "put",
        ) => OutsideMember::Known(Spec::Arg(1)),
        _ => OutsideMember::NotKnown,
    }
}

fn kotlin_outside_step(ty: &str, step: Step) -> OutsideStep {
    match (ty, step) {
        (
            "List" | "MutableList" | "ArrayList" | "Set" | "MutableSet" | "HashSet" | "Collection"
            | "Iterable" | "Sequence" | "Array",
            Step::Element,
        )
        | ("List" | "MutableList" | "ArrayList" | "Array", Step::Index) => Some(Spec::Arg(0)),
        ("Map" | "MutableMap" | "HashMap" | "LinkedHashMap", Step::Index) => Some(Spec::Arg(1)),
        _ => None,
    }
}
