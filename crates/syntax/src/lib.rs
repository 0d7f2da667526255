//! mcursor-syntax owns the step "one source file in, its facts out".
//!
//! It knows the supported languages (extension → tree-sitter grammar + the query files in
//! `grammars/`), and turns one file's bytes into [`FileFacts`]: definitions with their
//! containers, signatures and doc comments; references with their kind, qualifier and
//! enclosing definition; imports and re-exports; and diagnostics.
//!
//! Invariants:
//! - Parsing never fails: a broken, hostile or slow file yields partial facts plus
//!   [`Diagnostic`]s. Each parse and each query run is bounded by a deadline.
//! - One file at a time and no shared mutable state, so callers parallelize freely.
//! - No file system, no index, no async: callers hand in bytes.
//!
//! ```
//! use mcursor_syntax::{Lang, ParseConfig, parse_source};
//! let facts = parse_source(Lang::Rust, b"fn main() { helper(); }\nfn helper() {}", &ParseConfig::default());
//! assert_eq!(facts.definitions.len(), 2);
//! assert_eq!(facts.references[0].name, "helper");
//! ```

mod describe;
mod extract;
mod family;
mod imports;
mod lang;
mod receivers;

use std::time::Duration;

pub use describe::{describe_chain, describe_facts, describe_type, display_type};
pub use extract::{EXPRESSION_QUALIFIER, parse_source, syntax_error_lines};
pub use lang::{
    Family, LANGUAGES, Lang, LangSpec, LanguageSupport, QueryError, QueryFile, TEXT_ONLY_LANGUAGES,
    TextOnlyLanguage, check_all_queries, extraction_fingerprint,
};

/// What a definition is. The lowercase word is part of the CLI's JSON contract.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum SymbolKind {
    Function,
    Method,
    Struct,
    Class,
    Enum,
    EnumVariant,
    Interface,
    Trait,
    TypeAlias,
    Constant,
    Static,
    Variable,
    Field,
    Module,
    Macro,
}

impl SymbolKind {
    pub const ALL: [SymbolKind; 15] = [
        Self::Function,
        Self::Method,
        Self::Struct,
        Self::Class,
        Self::Enum,
        Self::EnumVariant,
        Self::Interface,
        Self::Trait,
        Self::TypeAlias,
        Self::Constant,
        Self::Static,
        Self::Variable,
        Self::Field,
        Self::Module,
        Self::Macro,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Function => "function",
            Self::Method => "method",
            Self::Struct => "struct",
            Self::Class => "class",
            Self::Enum => "enum",
            Self::EnumVariant => "enum_variant",
            Self::Interface => "interface",
            Self::Trait => "trait",
            Self::TypeAlias => "type_alias",
            Self::Constant => "constant",
            Self::Static => "static",
            Self::Variable => "variable",
            Self::Field => "field",
            Self::Module => "module",
            Self::Macro => "macro",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == word)
    }

    /// Types a name can stand for in a type position.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            Self::Struct
                | Self::Class
                | Self::Enum
                | Self::Interface
                | Self::Trait
                | Self::TypeAlias
        )
    }

    /// Definitions that have a body of code, so references inside them form call edges.
    pub fn is_callable(self) -> bool {
        matches!(self, Self::Function | Self::Method)
    }
}

/// How a name is used. The lowercase word is part of the CLI's JSON contract.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub enum RefKind {
    Call,
    Type,
    Import,
    Macro,
    Field,
    Identifier,
}

impl RefKind {
    pub const ALL: [RefKind; 6] = [
        Self::Call,
        Self::Type,
        Self::Import,
        Self::Macro,
        Self::Field,
        Self::Identifier,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Call => "call",
            Self::Type => "type",
            Self::Import => "import",
            Self::Macro => "macro",
            Self::Field => "field",
            Self::Identifier => "identifier",
        }
    }

    pub fn parse(word: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.as_str() == word)
    }

    /// Whether a definition of `kind` can be what this use refers to. Used to keep a call
    /// from resolving to a struct field of the same name, for example.
    pub fn can_refer_to(self, kind: SymbolKind) -> bool {
        use SymbolKind as K;
        match self {
            // A variable can hold a function (`const log = debug('app'); log(..)`).
            RefKind::Call => matches!(
                kind,
                K::Function
                    | K::Method
                    | K::Struct
                    | K::Class
                    | K::EnumVariant
                    | K::Variable
                    | K::Constant
                    | K::Static
            ),
            RefKind::Type => kind.is_type() || matches!(kind, K::Module | K::EnumVariant),
            RefKind::Macro => kind == K::Macro,
            RefKind::Field => matches!(kind, K::Field | K::Method | K::EnumVariant | K::Constant),
            RefKind::Import => true,
            RefKind::Identifier => !matches!(kind, K::Field | K::Macro),
        }
    }
}

/// A 1-based position: line, and column counted in bytes (as ripgrep's `--column`).
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Default,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Position {
    pub line: u32,
    pub column: u32,
}

/// A type as written in source, reduced to what finding a member on it needs. Names are
/// not resolved here (that needs the whole repository); generic parameters are replaced by
/// their bounds, references and parentheses are looked through.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum TypeRef {
    /// A named type with its type arguments: `Vec<Foo>` is `["Vec"]` with `[Foo]`,
    /// `crate::a::B` is `["crate", "a", "B"]`, `ns.Foo` is `["ns", "Foo"]`.
    Named {
        path: Vec<String>,
        args: Vec<TypeRef>,
    },
    /// `Self` or `this`: the type the enclosing container defines members of.
    SelfType,
    /// A type known only by what it implements: `impl A + B`, `dyn A`, a type parameter
    /// `T: A` or `T extends A`.
    Bounds(Vec<TypeRef>),
    /// `[T]`, `[T; n]`, `T[]`.
    Array(Box<TypeRef>),
    /// `(A, B)`, `[A, B]`: a tuple, by its elements.
    Tuple(Vec<TypeRef>),
    /// `A | B` (without `null` and `undefined`): a member is looked up on each.
    Union(Vec<TypeRef>),
    /// A function type: `Fn(A, B) -> R`, `fn(A) -> R`, `(a: A, b: B) => R`.
    Function {
        params: Vec<TypeRef>,
        ret: Box<TypeRef>,
    },
    /// A type the language itself defines: `str`, `u32`, `string`, tuples, function types,
    /// literal types. Never a type of the repository.
    Builtin(String),
    /// Nothing is known (`any`, `_`, a form mcursor does not read).
    Unknown,
}

/// Where a value chain starts.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ValueRoot {
    /// `self`, `this`.
    SelfValue,
    /// `super`.
    Super,
    /// A value of a known type: a binding with a declared type, a literal, `new T()`,
    /// `T { .. }`, `x as T`.
    Typed(TypeRef),
    /// A name or path not bound locally: a constant, a static, a global, a namespace, a
    /// type used as a value (`Foo.create()`).
    Path(Vec<String>),
    /// What calling a path returns: `f()`, `Foo::new()`, `a::b::f()`.
    Call(Vec<String>),
    /// Parameter `parameter` of a closure passed as argument `argument` to a call: its
    /// type comes from the callee's declared parameter (`items.find(|a| ..)`,
    /// `new Observable((subscriber) => ..)`).
    Callback {
        callee: Callee,
        argument: u32,
        parameter: u32,
    },
    /// Nothing is known (a closure parameter, an untyped parameter, an unsupported form).
    Unknown,
}

/// What a call with a closure argument calls.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Callee {
    /// `receiver.name(..)`.
    Method {
        receiver: Box<ValueChain>,
        name: String,
    },
    /// `path(..)`.
    Function(Vec<String>),
    /// `new Type(..)`.
    Constructor(TypeRef),
}

/// One step of a value chain.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ValueStep {
    /// `.name`: a field or property.
    Field(String),
    /// `.name(..)`: what a method returns.
    Call(String),
    /// `?`, `!`, and the payload of `Some(x)` / `Ok(x)` patterns.
    Unwrap,
    /// `[i]`.
    Index,
    /// An element of the collection (`for x in xs`, `for (const x of xs)`).
    Element,
    /// `await x`, `x.await`.
    Await,
}

/// A value as a chain from a root: `self.config.load()?` is `SelfValue`, then
/// `Field(config)`, `Call(load)`, `Unwrap`. Local bindings are already replaced by what
/// they were bound to, so a chain needs only the repository's definitions to evaluate.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct ValueChain {
    pub root: ValueRoot,
    pub steps: Vec<ValueStep>,
}

impl TypeRef {
    /// Calls `f` with every name the type is written with (path segments, built-in type
    /// names), nested types included.
    pub fn for_each_name(&self, f: &mut impl FnMut(&str)) {
        match self {
            TypeRef::Named { path, args } => {
                path.iter().for_each(|segment| f(segment));
                args.iter().for_each(|arg| arg.for_each_name(f));
            }
            TypeRef::Bounds(types) | TypeRef::Tuple(types) | TypeRef::Union(types) => {
                types.iter().for_each(|t| t.for_each_name(f));
            }
            TypeRef::Array(element) => element.for_each_name(f),
            TypeRef::Function { params, ret } => {
                params.iter().for_each(|t| t.for_each_name(f));
                ret.for_each_name(f);
            }
            TypeRef::Builtin(name) => f(name),
            TypeRef::SelfType | TypeRef::Unknown => {}
        }
    }
}

impl ValueChain {
    /// Calls `f` with every name the chain is written with: its root's path or type,
    /// the callee of a callback's call, the fields and methods of its steps.
    pub fn for_each_name(&self, f: &mut impl FnMut(&str)) {
        match &self.root {
            ValueRoot::Typed(t) => t.for_each_name(f),
            ValueRoot::Path(path) | ValueRoot::Call(path) => path.iter().for_each(|s| f(s)),
            ValueRoot::Callback { callee, .. } => match callee {
                Callee::Method { receiver, name } => {
                    receiver.for_each_name(f);
                    f(name);
                }
                Callee::Function(path) => path.iter().for_each(|s| f(s)),
                Callee::Constructor(t) => t.for_each_name(f),
            },
            ValueRoot::SelfValue | ValueRoot::Super | ValueRoot::Unknown => {}
        }
        for step in &self.steps {
            match step {
                ValueStep::Field(name) | ValueStep::Call(name) => f(name),
                ValueStep::Unwrap | ValueStep::Index | ValueStep::Element | ValueStep::Await => {}
            }
        }
    }

    pub fn unknown() -> Self {
        ValueChain {
            root: ValueRoot::Unknown,
            steps: Vec::new(),
        }
    }
}

/// A node whose name qualifies the definitions inside it (an `impl` block, a class, a
/// trait, an interface, a struct or enum), with what the resolver needs to find members:
/// the type it defines members of, and what that type implements or extends.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Container {
    /// The name definitions inside it carry as their container.
    pub name: String,
    /// The type whose members are defined inside: the `impl` target, or the class,
    /// trait or struct itself.
    pub self_type: TypeRef,
    /// `impl Trait for Type`: the trait.
    pub implements: Option<TypeRef>,
    /// Supertraits, `extends`, `implements`.
    pub supertypes: Vec<TypeRef>,
    /// A trait or interface: `self` inside it is whatever implements it.
    pub is_abstract: bool,
    /// `impl<T: Bound> Trait for T`: the impl is for every type its bounds allow.
    pub blanket: bool,
    /// Where the container's node starts (`impl`, `class`...) and ends: where
    /// `mcursor impls` shows an implementation. Not part of a file's interface.
    pub start: Position,
    pub end: Position,
}

/// One definition found in a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Definition {
    pub name: String,
    pub kind: SymbolKind,
    /// Inline modules / namespaces around the definition, outermost first.
    pub modules: Vec<String>,
    /// The innermost type-like container (impl target, trait, class, enum, struct).
    pub container: Option<String>,
    /// Where the name starts.
    pub start: Position,
    /// Where the whole definition ends.
    pub end: Position,
    pub start_byte: u32,
    pub end_byte: u32,
    /// The definition's head, whitespace collapsed: `pub fn load(path: &Path) -> Result<Config>`.
    pub signature: String,
    pub doc: Option<String>,
    /// `export default` in JavaScript/TypeScript.
    pub default_export: bool,
    /// Index of the innermost definition containing this one.
    pub parent: Option<u32>,
    /// Index into [`FileFacts::containers`] of the container the definition is a member of.
    pub container_id: Option<u32>,
    /// The declared type of a field, constant, static or variable; the return type of a
    /// function or method; the aliased type of a type alias.
    pub type_ref: Option<TypeRef>,
    /// A variable's initial value, when it declares no type (`const x = new Foo()`).
    pub value: Option<ValueChain>,
    /// The types of a tuple struct's or tuple variant's fields, in order (`.0`, `.1`).
    pub tuple_fields: Vec<TypeRef>,
    /// A function's or method's declared parameter types, in order (`self` and `this`
    /// left out), for closures passed to it.
    pub params: Vec<TypeRef>,
}

/// One use of a name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reference {
    pub name: String,
    pub kind: RefKind,
    pub start: Position,
    pub start_byte: u32,
    /// Source text of the path or receiver before the name: `Foo` in `Foo::new()`, `self`
    /// in `self.run()`, `crate::config` in `crate::config::load()`.
    pub qualifier: Option<String>,
    /// The qualifier is a value (`self.run()`, `user.name`) rather than a path or namespace.
    pub receiver: bool,
    /// For a member use, the receiver as a value chain (locals already substituted).
    pub receiver_chain: Option<ValueChain>,
    /// Index of the innermost definition containing this use.
    pub enclosing: Option<u32>,
}

/// What an import brings into scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum ImportTarget {
    /// A Rust `use` path, e.g. `["crate", "config", "load"]`. For a glob import the path
    /// names the module and `local` is `*`. A C prototype or `extern` declaration is the
    /// one-segment path of the name it declares.
    Path(Vec<String>),
    /// A JavaScript/TypeScript module specifier and the exported name taken from it:
    /// `Some("default")` for a default import, `None` for `* as ns`, `Some("*")` for
    /// `export * from`, `Some(MODULE_EXPORTS)` for a CommonJS `require` of the whole
    /// module (its `module.exports`: the default export if it assigns one, else the
    /// module as a namespace). A C `#include` is a re-exported glob of its path as
    /// written, `<stdio.h>` with its angle brackets, `"x.h"` without its quotes.
    Module {
        source: String,
        imported: Option<String>,
    },
}

/// The imported name of a CommonJS `const x = require('./x')` (see [`ImportTarget`]).
pub const MODULE_EXPORTS: &str = "module.exports";

/// One name brought into a file's scope by `use`, `import` or a re-export.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Import {
    /// The name as it is known in this file (`*` for glob imports).
    pub local: String,
    pub target: ImportTarget,
    /// `pub use` or `export ... from`: the name is visible to importers of this file.
    /// (C#'s `global using`: visible in every file of the project.)
    pub reexport: bool,
    /// Inline modules the import sits in, outermost first.
    pub modules: Vec<String>,
    /// Position of the imported name (for the import's own reference entry).
    pub start: Position,
}

/// Something worth telling the user about one file; never fatal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub line: u32,
    pub message: String,
}

/// Everything mcursor learns from one file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct FileFacts {
    pub definitions: Vec<Definition>,
    pub containers: Vec<Container>,
    pub references: Vec<Reference>,
    pub imports: Vec<Import>,
    /// `export default someName;` names an existing binding as the default export.
    pub default_export_name: Option<String>,
    pub diagnostics: Vec<Diagnostic>,
    /// The tree had syntax errors (facts are still extracted from the valid parts).
    pub has_syntax_errors: bool,
    /// The line (1-based) where the first of them starts, when the tree places it.
    pub first_syntax_error: Option<u32>,
    /// The parse or the query ran past its deadline; facts are partial or empty.
    pub timed_out: bool,
}

/// Bounds for one file's parse.
#[derive(Debug, Clone)]
pub struct ParseConfig {
    /// Deadline for parsing plus extraction of one file.
    pub timeout: Duration,
}

impl Default for ParseConfig {
    fn default() -> Self {
        Self {
            timeout: Duration::from_secs(5),
        }
    }
}
