//! What extraction needs to know about a family's grammars, as data: comment syntax, the
//! nodes that wrap declarations, and the node kinds of values and types that the receiver
//! pass ([`crate::receivers`]) interprets.
//!
//! Each [`crate::Family`] has one [`FamilySyntax`]; languages of a family share it (a
//! TypeScript-only node kind simply never occurs in a JavaScript tree). The code that
//! reads these tables knows no language: a new family is a new table here (and a resolver
//! module in `mcursor-index`), not a new branch in the extractor.

use tree_sitter::Language;

/// A node kind with the field that holds its object and the field that holds its name:
/// `field_expression` / `value` / `field`.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Access {
    pub kind: &'static str,
    /// Field of the object (empty: the first named child).
    pub object: &'static str,
    /// Field of the name (empty: the last named child).
    pub name: &'static str,
}

/// A node kind and the field holding the part that matters (empty: the first named child).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Inner {
    pub kind: &'static str,
    pub field: &'static str,
}

const fn inner(kind: &'static str, field: &'static str) -> Inner {
    Inner { kind, field }
}

const fn access(kind: &'static str, object: &'static str, name: &'static str) -> Access {
    Access { kind, object, name }
}

/// A container that defines members of its own type and declares no supertypes.
const fn own_members(kind: &'static str) -> ContainerSyntax {
    ContainerSyntax {
        kind,
        self_type: "",
        implements: "",
        supertype_clauses: &[],
        abstract_type: false,
        embedded: &[],
    }
}

/// Where a class names what it extends and implements.
const CLASS_HERITAGE: &[Inner] = &[
    inner("class_heritage", ""),
    inner("extends_clause", "value"),
    inner("implements_clause", ""),
];

/// A JavaScript or TypeScript class of some kind.
const fn class(kind: &'static str) -> ContainerSyntax {
    ContainerSyntax {
        kind,
        self_type: "",
        implements: "",
        supertype_clauses: CLASS_HERITAGE,
        abstract_type: false,
        embedded: &[],
    }
}

pub(crate) struct FamilySyntax {
    /// Separator of path segments in source (`a::b::C`, `ns.C`).
    pub path_separator: &'static str,
    /// A prefix a captured name drops: Ruby's `:` of `attr_reader :items`, whose method
    /// is `items`.
    pub name_prefix: &'static str,
    /// Comment node kinds.
    pub comments: &'static [&'static str],
    /// Line-comment prefixes that start a doc comment (`///`); a line starting with
    /// `not_doc_prefix` is not one (`////`).
    pub doc_line_prefixes: &'static [&'static str],
    pub not_doc_prefix: &'static str,
    /// Block-comment delimiters of doc comments (`/**`, `*/`).
    pub doc_block: (&'static str, &'static str),
    /// The statement kind whose string, first in a definition's body, is its doc
    /// (Python docstrings); empty where docs are comments only.
    pub docstring_statement: &'static str,
    /// String literal kinds a docstring can be.
    pub docstring_kinds: &'static [&'static str],
    /// Nodes between a doc comment and its item that do not break the attachment.
    pub attributes: &'static [&'static str],
    /// Statements that wrap a declaration (`export const f = ...`): the doc comment and
    /// the `export` keyword attach to the outermost one.
    pub declaration_wrappers: &'static [&'static str],
    /// The statement kind of `export`, whose `default` child marks a default export.
    pub export_statement: &'static str,

    // ----------------------------------------------------------------- values
    /// `x.f`: member access.
    pub member_access: &'static [Access],
    /// `f(...)`, `x.m(...)`: the field holding the callee.
    pub calls: &'static [Inner],
    /// Calls that name the method themselves (Java's `x.m(...)`, `m(...)` is one node):
    /// the field of the object (absent: the enclosing instance) and of the name.
    pub method_calls: &'static [Access],
    /// `f::<T>` / generic callee wrappers, looked through to the callee.
    pub generic_callees: &'static [Inner],
    /// `x?`, `x!`: the value unwrapped.
    pub unwraps: &'static [Inner],
    /// `x.await`, `await x`.
    pub awaits: &'static [Inner],
    /// Wrappers that keep the value's type: parentheses, `&x`, `*x`.
    pub transparent: &'static [Inner],
    /// `x[i]`.
    pub indexes: &'static [Inner],
    /// `x as T`: the field holding the type.
    pub casts: &'static [Inner],
    /// `new T(...)`, `T { ... }`: the field holding the type.
    pub constructions: &'static [Inner],
    /// `self`, `this`.
    pub self_values: &'static [&'static str],
    /// Identifiers that stand for the instance a method runs on, where the language
    /// makes it a parameter by convention (Python's `self`) rather than a keyword.
    pub self_names: &'static [&'static str],
    /// Identifiers that stand for the class a method runs on, by convention (Python's
    /// `cls` in a class method): calling one makes an instance of it, so `cls(...)` is
    /// what `self` is, and `cls.create()` a member of the class.
    pub class_names: &'static [&'static str],
    /// `super`.
    pub super_values: &'static [&'static str],
    /// Functions whose call stands for `super` (Python's `super()`).
    pub super_calls: &'static [&'static str],
    /// Plain names.
    pub identifiers: &'static [&'static str],
    /// Paths written with the separator (`a::b`), as values.
    pub value_paths: &'static [&'static str],
    /// Literals, each with the built-in type it has.
    pub literals: &'static [(&'static str, &'static str)],
    /// Macro calls (`format!(...)`): the field of the macro name; `literal_macros` maps a
    /// macro name to the built-in type of its value.
    pub macro_calls: &'static [Inner],
    pub literal_macros: &'static [(&'static str, &'static str)],

    // ------------------------------------------------------------------ types
    /// Wrappers whose inner type is the type: `&T`, `(T)`, `: T`, `readonly T`.
    pub type_wrappers: &'static [Inner],
    /// `Name<Args>`: the base's field and the arguments' field.
    pub generic_types: &'static [Access],
    /// Type arguments that are not types (`'a`).
    pub ignored_type_arguments: &'static [&'static str],
    /// Type arguments that bind an associated type (`Item = T`): the field of the type.
    pub type_bindings: &'static [Inner],
    /// Named types and type paths.
    pub type_names: &'static [&'static str],
    /// `[T]`, `T[]`: the element's field.
    pub array_types: &'static [Inner],
    /// `impl A`, `dyn A`, `A + B`: types known by their bounds.
    pub bound_types: &'static [&'static str],
    /// `A | B | null`.
    pub union_types: &'static [&'static str],
    /// `(A, B)`: tuple types, whose named children are the elements.
    pub tuple_types: &'static [&'static str],
    /// Types the language defines: primitives, tuples, literal types.
    pub builtin_types: &'static [&'static str],
    /// Function types: their parameter list's field and their return type's field.
    pub function_types: &'static [Access],
    /// Built-in type names that say nothing about the value (`any`, `unknown`).
    pub unknown_type_names: &'static [&'static str],
    /// Built-in type names a union drops (`null`, `undefined`).
    pub nullish_type_names: &'static [&'static str],
    /// Names of the enclosing type (`Self`; PHP's `self` and `static`), and node kinds that
    /// stand for it (`this`).
    pub self_type_names: &'static [&'static str],
    pub self_types: &'static [&'static str],
    /// Nodes that declare type parameters: the field of the parameter list.
    pub generic_scopes: &'static str,
    /// One type parameter: its kind, the field of its bounds (`object`), the field of its
    /// name.
    pub type_parameters: &'static [Access],
    /// `where` clauses (children of the item they constrain) and their predicates: the
    /// predicate's kind, the field of its bounds, the field of the constrained type.
    pub where_clauses: &'static [&'static str],
    pub where_predicates: &'static [Access],

    // ------------------------------------------------------------- declarations
    /// Where a definition keeps its type: `(definition node kind, field)`. For functions
    /// and methods, the return type.
    pub definition_types: &'static [Inner],
    /// Where a definition keeps its initial value, when it declares no type.
    pub definition_values: &'static [Inner],
    /// Function values (`() => ...`): the field of their return type, for variables
    /// initialized with one.
    pub function_values: &'static [Inner],
    /// Functions that declare no return type but return one value: its type is what a
    /// call of them gives (`def make(): return Session()`).
    pub returned_values: ReturnedValues,
    /// Functions and methods: the field of their parameter list.
    pub parameter_lists: &'static [Inner],
    /// Parameter lists of closures and callbacks (`|a, b|`, `(a, b) =>`).
    pub closure_parameter_lists: &'static [&'static str],
    /// Patterns that take a tuple apart by position (`(a, b)`, `[a, b]`).
    pub tuple_patterns: &'static [&'static str],
    /// Patterns around a name that keep its value's type (`ref x`, `mut x`, `&x`).
    pub transparent_patterns: &'static [&'static str],
    /// Parameters in such lists: the field of their type. A parameter whose `pattern` is
    /// a self value (`this: T`) is left out; list children of other kinds are types (the
    /// parameters of a function type `Fn(A, B)`).
    pub parameters: &'static [Inner],
    /// Parameter kinds that declare no type (Python's `x`, `x=1`, `*args`): their type is
    /// unknown, and they keep their place among the parameters.
    pub untyped_parameters: &'static [&'static str],
    /// Definitions with positional fields (`struct P(u32, u32)`, `V(String)`): the field
    /// of the field list; the list's children in its `type` field are the fields' types.
    pub tuple_fields: &'static [Inner],
    /// Containers: `impl T`, `class C`, `trait T`, `interface I`.
    pub containers: &'static [ContainerSyntax],
    /// Calls without a receiver, directly in a container's body, whose arguments become
    /// its supertypes (Ruby's `include Comparable`): the called names. The call is one
    /// of `method_calls`' kinds; its arguments are in its `arguments` field.
    pub mixin_calls: &'static [&'static str],
}

/// Functions whose value is what they return. A function qualifies when its one
/// `return` with a value (`@function.return` in the query, outside nested functions) is
/// the only one, and it is neither a generator (`@function.yield`) nor asynchronous: a
/// call of it then gives that value. Several returns may disagree (`if a: return A()`
/// ... `return B()`), and a generator's or coroutine's call gives something else, so
/// those stay unknown.
pub(crate) struct ReturnedValues {
    /// Function node kinds whose value may be their returned value.
    pub functions: &'static [&'static str],
    /// Other nodes whose `return`s and `yield`s are their own (lambdas, arrow functions,
    /// generator functions): they belong to no function above them. These and the
    /// functions must be `@local.scope`s of the family's queries, where extraction finds
    /// them.
    pub scopes: &'static [&'static str],
    /// The keyword child that makes a function asynchronous (`async`).
    pub async_keyword: &'static str,
}

/// For families whose functions declare their types or return nothing the receiver
/// pass reads: no function's value is taken from its returns.
pub(crate) const NO_RETURNED_VALUES: ReturnedValues = ReturnedValues {
    functions: &[],
    scopes: &[],
    async_keyword: "",
};

/// How one kind of container names its type and its supertypes.
pub(crate) struct ContainerSyntax {
    pub kind: &'static str,
    /// The field holding the type whose members the container defines (empty: the
    /// container's own name).
    pub self_type: &'static str,
    /// `impl Trait for Type`: the field holding the trait.
    pub implements: &'static str,
    /// Node kinds (anywhere among the children, one level down into these clauses) whose
    /// named children are supertypes: `extends_clause`, `implements_clause`, trait bounds.
    pub supertype_clauses: &'static [Inner],
    /// A trait or interface: `self` in it is anything that implements it.
    pub abstract_type: bool,
    /// Member declarations that, without a name, embed a type whose members become the
    /// container's (Go's embedded fields and interfaces, PHP's `use Trait;`): the kind
    /// and the field holding the type (empty: every named child, `use A, B;`).
    pub embedded: &'static [Inner],
}

pub(crate) static RUST: FamilySyntax = FamilySyntax {
    path_separator: "::",
    name_prefix: "",
    comments: &["line_comment", "block_comment"],
    doc_line_prefixes: &["///"],
    not_doc_prefix: "////",
    doc_block: ("/**", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &["attribute_item"],
    declaration_wrappers: &[],
    export_statement: "",

    member_access: &[access("field_expression", "value", "field")],
    calls: &[inner("call_expression", "function")],
    method_calls: &[],
    generic_callees: &[inner("generic_function", "function")],
    unwraps: &[inner("try_expression", "")],
    awaits: &[inner("await_expression", "")],
    transparent: &[
        inner("parenthesized_expression", ""),
        inner("reference_expression", "value"),
        inner("unary_expression", ""),
    ],
    indexes: &[inner("index_expression", "")],
    casts: &[inner("type_cast_expression", "type")],
    constructions: &[inner("struct_expression", "name")],
    self_values: &["self"],
    self_names: &[],
    class_names: &[],
    super_values: &[],
    super_calls: &[],
    identifiers: &["identifier"],
    value_paths: &["scoped_identifier"],
    literals: &[
        ("string_literal", "str"),
        ("raw_string_literal", "str"),
        ("char_literal", "char"),
        ("integer_literal", "i32"),
        ("float_literal", "f64"),
        ("boolean_literal", "bool"),
        ("array_expression", "array"),
        ("tuple_expression", "tuple"),
        ("closure_expression", "closure"),
        ("range_expression", "Range"),
    ],
    macro_calls: &[inner("macro_invocation", "macro")],
    literal_macros: &[("format", "String"), ("vec", "Vec")],

    type_wrappers: &[
        inner("reference_type", "type"),
        inner("pointer_type", "type"),
    ],
    generic_types: &[access("generic_type", "type", "type_arguments")],
    ignored_type_arguments: &["lifetime"],
    type_bindings: &[inner("type_binding", "type")],
    type_names: &["type_identifier", "scoped_type_identifier"],
    array_types: &[inner("array_type", "element")],
    bound_types: &["abstract_type", "dynamic_type", "bounded_type"],
    union_types: &[],
    tuple_types: &["tuple_type"],
    builtin_types: &["primitive_type", "unit_type", "never_type"],
    function_types: &[access("function_type", "parameters", "return_type")],
    unknown_type_names: &["_"],
    nullish_type_names: &[],
    self_type_names: &["Self"],
    self_types: &[],
    generic_scopes: "type_parameters",
    type_parameters: &[access("type_parameter", "bounds", "name")],
    where_clauses: &["where_clause"],
    where_predicates: &[access("where_predicate", "bounds", "left")],

    definition_types: &[
        inner("field_declaration", "type"),
        inner("function_item", "return_type"),
        inner("function_signature_item", "return_type"),
        inner("const_item", "type"),
        inner("static_item", "type"),
        inner("type_item", "type"),
    ],
    definition_values: &[],
    function_values: &[],
    returned_values: NO_RETURNED_VALUES,
    parameter_lists: &[
        inner("function_item", "parameters"),
        inner("function_signature_item", "parameters"),
    ],
    parameters: &[inner("parameter", "type")],
    untyped_parameters: &[],
    closure_parameter_lists: &["closure_parameters"],
    tuple_patterns: &["tuple_pattern"],
    transparent_patterns: &["ref_pattern", "mut_pattern", "reference_pattern"],
    tuple_fields: &[inner("struct_item", "body"), inner("enum_variant", "body")],
    containers: &[
        ContainerSyntax {
            kind: "impl_item",
            self_type: "type",
            implements: "trait",
            supertype_clauses: &[],
            abstract_type: false,
            embedded: &[],
        },
        ContainerSyntax {
            kind: "trait_item",
            self_type: "",
            implements: "",
            supertype_clauses: &[inner("trait_bounds", "")],
            abstract_type: true,
            embedded: &[],
        },
        own_members("struct_item"),
        own_members("enum_item"),
        own_members("union_item"),
    ],
    mixin_calls: &[],
};

pub(crate) static ECMA: FamilySyntax = FamilySyntax {
    path_separator: ".",
    name_prefix: "",
    comments: &["comment"],
    doc_line_prefixes: &[],
    not_doc_prefix: "",
    doc_block: ("/**", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &["decorator"],
    declaration_wrappers: &[
        "lexical_declaration",
        "variable_declaration",
        "export_statement",
        "ambient_declaration",
    ],
    export_statement: "export_statement",

    member_access: &[access("member_expression", "object", "property")],
    calls: &[inner("call_expression", "function")],
    method_calls: &[],
    generic_callees: &[],
    unwraps: &[inner("non_null_expression", "")],
    awaits: &[inner("await_expression", "")],
    transparent: &[inner("parenthesized_expression", "")],
    indexes: &[inner("subscript_expression", "object")],
    casts: &[
        inner("as_expression", ""),
        inner("satisfies_expression", ""),
        inner("type_assertion", ""),
    ],
    constructions: &[inner("new_expression", "constructor")],
    self_values: &["this"],
    self_names: &[],
    class_names: &[],
    super_values: &["super"],
    super_calls: &[],
    identifiers: &["identifier"],
    value_paths: &[],
    literals: &[
        ("string", "string"),
        ("template_string", "string"),
        ("number", "number"),
        ("true", "boolean"),
        ("false", "boolean"),
        ("regex", "RegExp"),
        ("array", "array"),
        ("arrow_function", "function"),
        ("function_expression", "function"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[
        inner("type_annotation", ""),
        inner("parenthesized_type", ""),
        inner("readonly_type", ""),
        inner("opting_type_annotation", ""),
        inner("omitting_type_annotation", ""),
    ],
    generic_types: &[access("generic_type", "name", "type_arguments")],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &["type_identifier", "nested_type_identifier", "identifier"],
    array_types: &[inner("array_type", "")],
    bound_types: &[],
    union_types: &["union_type"],
    tuple_types: &["tuple_type"],
    builtin_types: &[
        "predefined_type",
        "literal_type",
        "template_literal_type",
        "object_type",
    ],
    function_types: &[access("function_type", "parameters", "return_type")],
    unknown_type_names: &["any", "unknown"],
    nullish_type_names: &["null", "undefined", "void"],
    self_type_names: &[],
    self_types: &["this_type"],
    generic_scopes: "type_parameters",
    type_parameters: &[access("type_parameter", "constraint", "name")],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[
        inner("public_field_definition", "type"),
        inner("property_signature", "type"),
        inner("required_parameter", "type"),
        inner("optional_parameter", "type"),
        inner("method_definition", "return_type"),
        inner("method_signature", "return_type"),
        inner("abstract_method_signature", "return_type"),
        inner("function_declaration", "return_type"),
        inner("function_signature", "return_type"),
        inner("variable_declarator", "type"),
        inner("type_alias_declaration", "value"),
    ],
    definition_values: &[
        inner("variable_declarator", "value"),
        inner("public_field_definition", "value"),
        inner("field_definition", "value"),
        inner("assignment_expression", "right"),
    ],
    function_values: &[
        inner("arrow_function", "return_type"),
        inner("function_expression", "return_type"),
    ],
    // JavaScript's functions, and TypeScript's that declare no return type.
    returned_values: ReturnedValues {
        functions: &[
            "function_declaration",
            "function_expression",
            "method_definition",
        ],
        scopes: &[
            "generator_function_declaration",
            "generator_function",
            "arrow_function",
        ],
        async_keyword: "async",
    },
    parameter_lists: &[
        inner("function_declaration", "parameters"),
        inner("generator_function_declaration", "parameters"),
        inner("function_signature", "parameters"),
        inner("method_definition", "parameters"),
        inner("method_signature", "parameters"),
        inner("abstract_method_signature", "parameters"),
        inner("arrow_function", "parameters"),
        inner("function_expression", "parameters"),
    ],
    parameters: &[
        inner("required_parameter", "type"),
        inner("optional_parameter", "type"),
    ],
    untyped_parameters: &[],
    closure_parameter_lists: &["formal_parameters"],
    tuple_patterns: &["array_pattern"],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        class("class_declaration"),
        class("class"),
        class("abstract_class_declaration"),
        ContainerSyntax {
            kind: "interface_declaration",
            self_type: "",
            implements: "",
            supertype_clauses: &[inner("extends_type_clause", "")],
            abstract_type: true,
            embedded: &[],
        },
        own_members("enum_declaration"),
        // `X.prototype.m = function ...` and `obj.m = function ...` (CommonJS): the
        // assignment is the container of the method it defines.
        own_members("assignment_expression"),
    ],
    mixin_calls: &[],
};

/// What one node kind is to the receiver pass, resolved per grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeRole {
    None,
    /// Field ids of the object and the name.
    MemberAccess(u16, u16),
    /// A call naming its method: field ids of the object (which may be absent) and the
    /// name.
    MethodCall(u16, u16),
    Call(u16),
    GenericCallee(u16),
    Unwrap(u16),
    Await(u16),
    Transparent(u16),
    Index(u16),
    Cast(u16),
    Construction(u16),
    SelfValue,
    SuperValue,
    Identifier,
    ValuePath,
    Literal(u16),
    MacroCall(u16),
    TypeWrapper(u16),
    /// Field ids of the base type and the arguments.
    GenericType(u16, u16),
    TypeName,
    ArrayType(u16),
    BoundType,
    UnionType,
    TupleType,
    BuiltinType,
    SelfType,
    /// Field ids of the parameter list and the return type.
    FunctionType(u16, u16),
}

/// A [`FamilySyntax`] resolved against one grammar: node kind id → role, field names →
/// field ids. Built once per language.
pub(crate) struct FamilyKinds {
    pub syntax: &'static FamilySyntax,
    roles: Vec<NodeRole>,
    /// Interned field ids of every field name the tables use (0: none).
    fields: Vec<(&'static str, u16)>,
    pub returns: ReturnKinds,
}

/// [`ReturnedValues`]' node kinds as this grammar's ids (0: the family has none).
pub(crate) struct ReturnKinds {
    pub functions: Vec<u16>,
    pub scopes: Vec<u16>,
    /// An anonymous keyword token.
    pub async_keyword: u16,
}

impl ReturnKinds {
    /// A function or a lambda: a node whose `return`s are its own.
    pub fn is_function_like(&self, kind: u16) -> bool {
        self.functions.contains(&kind) || self.scopes.contains(&kind)
    }

    fn new(returns: &ReturnedValues, language: &Language) -> Self {
        let named = |kinds: &[&str]| {
            kinds
                .iter()
                .map(|kind| language.id_for_node_kind(kind, true))
                .filter(|&id| id != 0)
                .collect()
        };
        Self {
            functions: named(returns.functions),
            scopes: named(returns.scopes),
            async_keyword: match returns.async_keyword {
                "" => 0,
                keyword => language.id_for_node_kind(keyword, false),
            },
        }
    }
}

impl FamilyKinds {
    pub fn new(syntax: &'static FamilySyntax, language: &Language) -> Self {
        let mut roles = vec![NodeRole::None; language.node_kind_count()];
        let mut fields: Vec<(&'static str, u16)> = Vec::new();
        let mut field = |name: &'static str| -> u16 {
            if name.is_empty() {
                return 0;
            }
            if let Some(&(_, id)) = fields.iter().find(|(n, _)| *n == name) {
                return id;
            }
            let id = language.field_id_for_name(name).map_or(0, |id| id.get());
            fields.push((name, id));
            id
        };
        // `this` and `base` are anonymous keyword nodes in some grammars (C#): these two
        // lists take the keyword's id where the grammar has no named node of the kind.
        for (kinds, role) in [
            (syntax.self_values, NodeRole::SelfValue),
            (syntax.super_values, NodeRole::SuperValue),
        ] {
            for kind in kinds {
                let id = match language.id_for_node_kind(kind, true) {
                    0 => language.id_for_node_kind(kind, false),
                    named => named,
                };
                if let Some(slot) = roles.get_mut(id as usize)
                    && id != 0
                {
                    *slot = role;
                }
            }
        }
        let mut set = |kind: &str, role: NodeRole| {
            // A kind name can have a named and an anonymous id; only named nodes matter.
            let id = language.id_for_node_kind(kind, true);
            if id != 0
                && let Some(slot) = roles.get_mut(id as usize)
                && *slot == NodeRole::None
            {
                *slot = role;
            }
        };
        for a in syntax.member_access {
            let (object, name) = (field(a.object), field(a.name));
            set(a.kind, NodeRole::MemberAccess(object, name));
        }
        for a in syntax.method_calls {
            let (object, name) = (field(a.object), field(a.name));
            set(a.kind, NodeRole::MethodCall(object, name));
        }
        // Each list of (kind, field) and the role its kinds get, given the field's id.
        type InnerRole = (&'static [Inner], fn(u16) -> NodeRole);
        let inner_sets: [InnerRole; 11] = [
            (syntax.calls, NodeRole::Call),
            (syntax.generic_callees, NodeRole::GenericCallee),
            (syntax.unwraps, NodeRole::Unwrap),
            (syntax.awaits, NodeRole::Await),
            (syntax.transparent, NodeRole::Transparent),
            (syntax.indexes, NodeRole::Index),
            (syntax.casts, NodeRole::Cast),
            (syntax.constructions, NodeRole::Construction),
            (syntax.macro_calls, NodeRole::MacroCall),
            (syntax.type_wrappers, NodeRole::TypeWrapper),
            (syntax.array_types, NodeRole::ArrayType),
        ];
        for (list, role) in inner_sets {
            for inner in list {
                let id = field(inner.field);
                set(inner.kind, role(id));
            }
        }
        for f in syntax.function_types {
            let (params, ret) = (field(f.object), field(f.name));
            set(f.kind, NodeRole::FunctionType(params, ret));
        }
        for g in syntax.generic_types {
            let (base, args) = (field(g.object), field(g.name));
            set(g.kind, NodeRole::GenericType(base, args));
        }
        for (i, (kind, _)) in syntax.literals.iter().enumerate() {
            set(kind, NodeRole::Literal(i as u16));
        }
        for (kinds, role) in [
            (syntax.identifiers, NodeRole::Identifier),
            (syntax.value_paths, NodeRole::ValuePath),
            (syntax.type_names, NodeRole::TypeName),
            (syntax.bound_types, NodeRole::BoundType),
            (syntax.union_types, NodeRole::UnionType),
            (syntax.tuple_types, NodeRole::TupleType),
            (syntax.builtin_types, NodeRole::BuiltinType),
            (syntax.self_types, NodeRole::SelfType),
        ] {
            for kind in kinds {
                set(kind, role);
            }
        }
        for a in syntax.type_parameters.iter().chain(syntax.where_predicates) {
            field(a.object);
            field(a.name);
        }
        for inner in syntax
            .definition_types
            .iter()
            .chain(syntax.definition_values)
            .chain(syntax.function_values)
            .chain(syntax.tuple_fields)
            .chain(syntax.parameter_lists)
            .chain(syntax.parameters)
            .chain(syntax.type_bindings)
        {
            field(inner.field);
        }
        for c in syntax.containers {
            field(c.self_type);
            field(c.implements);
            for clause in c.supertype_clauses.iter().chain(c.embedded) {
                field(clause.field);
            }
        }
        field(syntax.generic_scopes);
        field("name");
        field("body");
        field("type");
        field("pattern");
        field("parameter");
        field("arguments");
        Self {
            syntax,
            roles,
            fields,
            returns: ReturnKinds::new(&syntax.returned_values, language),
        }
    }

    pub fn role(&self, kind_id: u16) -> NodeRole {
        self.roles
            .get(kind_id as usize)
            .copied()
            .unwrap_or(NodeRole::None)
    }

    /// The id of a field name the tables use; 0 for an empty name or one the grammar
    /// does not have.
    pub fn field(&self, name: &str) -> u16 {
        self.fields
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(0, |&(_, id)| id)
    }
}

pub(crate) static PYTHON: FamilySyntax = FamilySyntax {
    path_separator: ".",
    name_prefix: "",
    comments: &["comment"],
    doc_line_prefixes: &[],
    not_doc_prefix: "",
    doc_block: ("", ""),
    docstring_statement: "expression_statement",
    docstring_kinds: &["string", "concatenated_string"],
    attributes: &["decorator"],
    // A decorated definition's docs and position belong to the whole decorated statement.
    declaration_wrappers: &["decorated_definition"],
    export_statement: "",

    member_access: &[access("attribute", "object", "attribute")],
    calls: &[inner("call", "function")],
    method_calls: &[],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[inner("await", "")],
    transparent: &[inner("parenthesized_expression", "")],
    indexes: &[inner("subscript", "value")],
    casts: &[],
    // `Foo(...)` is a call; what calling a class gives is the resolver's business.
    constructions: &[],
    self_values: &[],
    self_names: &["self"],
    class_names: &["cls"],
    super_values: &[],
    super_calls: &["super"],
    identifiers: &["identifier"],
    value_paths: &[],
    literals: &[
        ("string", "str"),
        ("concatenated_string", "str"),
        ("integer", "int"),
        ("float", "float"),
        ("true", "bool"),
        ("false", "bool"),
        ("none", "None"),
        ("list", "list"),
        ("list_comprehension", "list"),
        ("dictionary", "dict"),
        ("dictionary_comprehension", "dict"),
        ("set", "set"),
        ("set_comprehension", "set"),
        ("tuple", "tuple"),
        ("lambda", "function"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[inner("type", "")],
    generic_types: &[access("generic_type", "", "")],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &[],
    array_types: &[],
    bound_types: &[],
    union_types: &["union_type"],
    tuple_types: &[],
    builtin_types: &[],
    function_types: &[],
    unknown_type_names: &["Any", "object"],
    nullish_type_names: &["None"],
    self_type_names: &["Self"],
    self_types: &[],
    generic_scopes: "",
    type_parameters: &[],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[
        inner("function_definition", "return_type"),
        inner("assignment", "type"),
    ],
    definition_values: &[inner("assignment", "right")],
    function_values: &[],
    returned_values: ReturnedValues {
        functions: &["function_definition"],
        scopes: &["lambda"],
        async_keyword: "async",
    },
    parameter_lists: &[inner("function_definition", "parameters")],
    parameters: &[
        inner("typed_parameter", "type"),
        inner("typed_default_parameter", "type"),
    ],
    untyped_parameters: &[
        "identifier",
        "default_parameter",
        "list_splat_pattern",
        "dictionary_splat_pattern",
    ],
    closure_parameter_lists: &["lambda_parameters"],
    tuple_patterns: &["pattern_list", "tuple_pattern"],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[ContainerSyntax {
        kind: "class_definition",
        self_type: "",
        implements: "",
        supertype_clauses: &[inner("argument_list", "")],
        abstract_type: false,
        embedded: &[],
    }],
    mixin_calls: &[],
};

pub(crate) static GO: FamilySyntax = FamilySyntax {
    path_separator: ".",
    name_prefix: "",
    comments: &["comment"],
    doc_line_prefixes: &["//"],
    not_doc_prefix: "",
    doc_block: ("/*", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &[],
    // `type X struct` is a type_spec in a type_declaration: the comment is above the latter.
    declaration_wrappers: &["type_declaration", "const_declaration", "var_declaration"],
    export_statement: "",

    member_access: &[access("selector_expression", "operand", "field")],
    calls: &[inner("call_expression", "function")],
    method_calls: &[],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[],
    // `&x`, `*x`, `(x)` and a one-value list keep the value's type (pointers are looked
    // through, as Go's selectors do).
    transparent: &[
        inner("parenthesized_expression", ""),
        inner("unary_expression", "operand"),
        inner("expression_list", ""),
    ],
    indexes: &[inner("index_expression", "operand")],
    casts: &[
        inner("type_assertion_expression", "type"),
        inner("type_conversion_expression", "type"),
    ],
    constructions: &[inner("composite_literal", "type")],
    self_values: &[],
    self_names: &[],
    class_names: &[],
    super_values: &[],
    super_calls: &[],
    identifiers: &["identifier"],
    value_paths: &[],
    literals: &[
        ("interpreted_string_literal", "string"),
        ("raw_string_literal", "string"),
        ("int_literal", "int"),
        ("float_literal", "float64"),
        ("rune_literal", "rune"),
        ("true", "bool"),
        ("false", "bool"),
        ("func_literal", "func"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[inner("pointer_type", ""), inner("parenthesized_type", "")],
    generic_types: &[access("generic_type", "type", "type_arguments")],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &["type_identifier", "qualified_type"],
    array_types: &[
        inner("slice_type", "element"),
        inner("array_type", "element"),
    ],
    bound_types: &[],
    union_types: &[],
    tuple_types: &[],
    builtin_types: &[],
    function_types: &[access("function_type", "parameters", "result")],
    unknown_type_names: &["any"],
    nullish_type_names: &["nil"],
    self_type_names: &[],
    self_types: &[],
    generic_scopes: "type_parameters",
    type_parameters: &[access("type_parameter_declaration", "type", "name")],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[
        inner("function_declaration", "result"),
        inner("method_declaration", "result"),
        inner("method_elem", "result"),
        inner("field_declaration", "type"),
        inner("var_spec", "type"),
        inner("const_spec", "type"),
        inner("type_alias", "type"),
    ],
    definition_values: &[inner("var_spec", "value"), inner("const_spec", "value")],
    function_values: &[],
    returned_values: NO_RETURNED_VALUES,
    parameter_lists: &[
        inner("function_declaration", "parameters"),
        inner("method_declaration", "parameters"),
        inner("func_literal", "parameters"),
    ],
    parameters: &[
        inner("parameter_declaration", "type"),
        inner("variadic_parameter_declaration", "type"),
    ],
    untyped_parameters: &[],
    closure_parameter_lists: &[],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        ContainerSyntax {
            kind: "type_spec",
            self_type: "",
            implements: "",
            supertype_clauses: &[],
            abstract_type: false,
            embedded: &[inner("field_declaration", "type"), inner("type_elem", "")],
        },
        // `func (s *Server) Run()`: named after its receiver's type (see the query).
        own_members("method_declaration"),
    ],
    mixin_calls: &[],
};

/// Where a Java class names what it extends and implements (and an interface what it
/// extends).
const JAVA_HERITAGE: &[Inner] = &[
    inner("superclass", ""),
    inner("super_interfaces", ""),
    inner("extends_interfaces", ""),
    inner("type_list", ""),
];

/// A Java class-like declaration.
const fn java_class(kind: &'static str, abstract_type: bool) -> ContainerSyntax {
    ContainerSyntax {
        kind,
        self_type: "",
        implements: "",
        supertype_clauses: JAVA_HERITAGE,
        abstract_type,
        embedded: &[],
    }
}

pub(crate) static JAVA: FamilySyntax = FamilySyntax {
    path_separator: ".",
    name_prefix: "",
    comments: &["line_comment", "block_comment"],
    doc_line_prefixes: &[],
    not_doc_prefix: "",
    doc_block: ("/**", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &[],
    declaration_wrappers: &[],
    export_statement: "",

    member_access: &[access("field_access", "object", "field")],
    calls: &[],
    method_calls: &[access("method_invocation", "object", "name")],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[],
    transparent: &[inner("parenthesized_expression", "")],
    indexes: &[inner("array_access", "array")],
    casts: &[inner("cast_expression", "type")],
    constructions: &[inner("object_creation_expression", "type")],
    self_values: &["this"],
    self_names: &[],
    class_names: &[],
    super_values: &["super"],
    super_calls: &[],
    identifiers: &["identifier"],
    value_paths: &[],
    literals: &[
        ("string_literal", "String"),
        ("decimal_integer_literal", "int"),
        ("hex_integer_literal", "int"),
        ("decimal_floating_point_literal", "double"),
        ("character_literal", "char"),
        ("true", "boolean"),
        ("false", "boolean"),
        ("lambda_expression", "function"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[],
    generic_types: &[access("generic_type", "", "")],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &["type_identifier", "scoped_type_identifier"],
    array_types: &[inner("array_type", "element")],
    bound_types: &[],
    union_types: &[],
    tuple_types: &[],
    builtin_types: &[
        "integral_type",
        "floating_point_type",
        "boolean_type",
        "void_type",
    ],
    function_types: &[],
    unknown_type_names: &["var", "Object"],
    nullish_type_names: &[],
    self_type_names: &[],
    self_types: &[],
    generic_scopes: "",
    type_parameters: &[],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[
        inner("method_declaration", "type"),
        inner("field_declaration", "type"),
        inner("constant_declaration", "type"),
        inner("formal_parameter", "type"),
    ],
    definition_values: &[],
    function_values: &[],
    returned_values: NO_RETURNED_VALUES,
    parameter_lists: &[
        inner("method_declaration", "parameters"),
        inner("constructor_declaration", "parameters"),
    ],
    parameters: &[inner("formal_parameter", "type")],
    untyped_parameters: &[],
    closure_parameter_lists: &["inferred_parameters"],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        java_class("class_declaration", false),
        java_class("interface_declaration", true),
        java_class("enum_declaration", false),
        java_class("record_declaration", false),
        own_members("annotation_type_declaration"),
    ],
    mixin_calls: &[],
};

/// Where a C# type names its base class and interfaces.
const CSHARP_HERITAGE: &[Inner] = &[inner("base_list", "")];

/// A C# type declaration.
const fn csharp_type(kind: &'static str, abstract_type: bool) -> ContainerSyntax {
    ContainerSyntax {
        kind,
        self_type: "",
        implements: "",
        supertype_clauses: CSHARP_HERITAGE,
        abstract_type,
        embedded: &[],
    }
}

pub(crate) static CSHARP: FamilySyntax = FamilySyntax {
    path_separator: ".",
    name_prefix: "",
    comments: &["comment"],
    doc_line_prefixes: &["///"],
    not_doc_prefix: "////",
    doc_block: ("/**", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &["attribute_list"],
    // A field's definition node is its `variable_declaration` (where the type is); the
    // doc comment sits before the whole declaration.
    declaration_wrappers: &["field_declaration", "event_field_declaration"],
    export_statement: "",

    member_access: &[access("member_access_expression", "expression", "name")],
    calls: &[inner("invocation_expression", "function")],
    method_calls: &[],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[inner("await_expression", "")],
    transparent: &[
        inner("parenthesized_expression", ""),
        inner("ref_expression", ""),
        inner("checked_expression", ""),
    ],
    indexes: &[inner("element_access_expression", "expression")],
    casts: &[
        inner("cast_expression", "type"),
        inner("as_expression", "right"),
    ],
    constructions: &[
        inner("object_creation_expression", "type"),
        inner("array_creation_expression", "type"),
    ],
    self_values: &["this"],
    self_names: &[],
    class_names: &[],
    super_values: &["base"],
    super_calls: &[],
    identifiers: &["identifier"],
    value_paths: &[],
    literals: &[
        ("string_literal", "string"),
        ("verbatim_string_literal", "string"),
        ("raw_string_literal", "string"),
        ("interpolated_string_expression", "string"),
        ("integer_literal", "int"),
        ("real_literal", "double"),
        ("character_literal", "char"),
        ("boolean_literal", "bool"),
        ("lambda_expression", "function"),
        ("anonymous_method_expression", "function"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[
        inner("nullable_type", "type"),
        inner("ref_type", "type"),
        inner("scoped_type", "type"),
    ],
    generic_types: &[access("generic_name", "", "")],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &["qualified_name", "alias_qualified_name"],
    array_types: &[inner("array_type", "type")],
    bound_types: &[],
    union_types: &[],
    tuple_types: &["tuple_type"],
    builtin_types: &["predefined_type", "pointer_type", "function_pointer_type"],
    function_types: &[],
    unknown_type_names: &["dynamic"],
    nullish_type_names: &[],
    self_type_names: &[],
    self_types: &[],
    generic_scopes: "",
    type_parameters: &[],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[
        inner("method_declaration", "returns"),
        inner("local_function_statement", "type"),
        inner("property_declaration", "type"),
        inner("event_declaration", "type"),
        inner("variable_declaration", "type"),
        inner("parameter", "type"),
    ],
    definition_values: &[],
    function_values: &[],
    returned_values: NO_RETURNED_VALUES,
    parameter_lists: &[
        inner("method_declaration", "parameters"),
        inner("constructor_declaration", "parameters"),
        inner("local_function_statement", "parameters"),
    ],
    parameters: &[inner("parameter", "type")],
    untyped_parameters: &[],
    closure_parameter_lists: &[],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        csharp_type("class_declaration", false),
        csharp_type("struct_declaration", false),
        csharp_type("record_declaration", false),
        csharp_type("interface_declaration", true),
        own_members("enum_declaration"),
    ],
    mixin_calls: &[],
};

/// Where a C++ struct or class names its base classes (`: public Base`).
const CPP_BASES: &[Inner] = &[inner("base_class_clause", "")];

/// A C struct, or a C++ struct or class with its base classes.
const fn c_record(kind: &'static str) -> ContainerSyntax {
    ContainerSyntax {
        kind,
        self_type: "",
        implements: "",
        supertype_clauses: CPP_BASES,
        abstract_type: false,
        embedded: &[],
    }
}

/// C and C++ (whose node kinds are C's and more: classes with base classes, `this`, `new`,
/// `ns::name` paths, templates): structs, unions and classes hold fields (and, in C++,
/// methods); `p->f` and `s.f` are one member access (pointers are looked through: a
/// declared type is read without its `*`s and `[]`s, so `p[i]` keeps `p`'s type).
pub(crate) static C: FamilySyntax = FamilySyntax {
    path_separator: "::",
    name_prefix: "",
    comments: &["comment"],
    // Any comment right above a definition is its doc (`/** ... */`, `/* ... */`, `//`).
    doc_line_prefixes: &["//"],
    not_doc_prefix: "",
    doc_block: ("/*", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &[],
    // `typedef struct { ... } T;`: the comment is above the typedef.
    declaration_wrappers: &["type_definition"],
    export_statement: "",

    member_access: &[access("field_expression", "argument", "field")],
    calls: &[inner("call_expression", "function")],
    method_calls: &[],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[],
    transparent: &[
        inner("parenthesized_expression", ""),
        inner("pointer_expression", "argument"),
        inner("subscript_expression", "argument"),
    ],
    indexes: &[],
    casts: &[inner("cast_expression", "type")],
    constructions: &[
        inner("compound_literal_expression", "type"),
        inner("new_expression", "type"),
    ],
    self_values: &["this"],
    self_names: &[],
    class_names: &[],
    super_values: &[],
    super_calls: &[],
    identifiers: &["identifier"],
    value_paths: &["qualified_identifier"],
    literals: &[
        ("string_literal", "char"),
        ("concatenated_string", "char"),
        ("char_literal", "char"),
        ("number_literal", "int"),
        ("true", "bool"),
        ("false", "bool"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[
        inner("type_descriptor", "type"),
        inner("struct_specifier", "name"),
        inner("union_specifier", "name"),
        inner("enum_specifier", "name"),
    ],
    generic_types: &[access("template_type", "name", "arguments")],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &["type_identifier", "qualified_identifier"],
    array_types: &[],
    bound_types: &[],
    union_types: &[],
    tuple_types: &[],
    builtin_types: &[
        "primitive_type",
        "sized_type_specifier",
        "placeholder_type_specifier",
    ],
    function_types: &[],
    unknown_type_names: &[],
    nullish_type_names: &[],
    self_type_names: &[],
    self_types: &[],
    // C++ templates: `template <typename T>` declares `T` (no bounds).
    generic_scopes: "parameters",
    type_parameters: &[
        access("type_parameter_declaration", "", ""),
        access("optional_type_parameter_declaration", "", "name"),
    ],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[
        inner("function_definition", "type"),
        inner("field_declaration", "type"),
        inner("declaration", "type"),
        inner("type_definition", "type"),
    ],
    definition_values: &[],
    function_values: &[],
    returned_values: NO_RETURNED_VALUES,
    parameter_lists: &[],
    parameters: &[inner("parameter_declaration", "type")],
    untyped_parameters: &[],
    closure_parameter_lists: &[],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        c_record("struct_specifier"),
        own_members("union_specifier"),
        // `typedef struct { ... } T;`
        own_members("type_definition"),
        c_record("class_specifier"),
    ],
    mixin_calls: &[],
};

/// Where a PHP class names what it extends and implements.
const PHP_HERITAGE: &[Inner] = &[
    inner("base_clause", ""),
    inner("class_interface_clause", ""),
];

/// `use Trait;` in a PHP class body takes the trait's members in.
const PHP_TRAIT_USE: &[Inner] = &[inner("use_declaration", "")];

/// A PHP class-like declaration.
const fn php_type(kind: &'static str, abstract_type: bool) -> ContainerSyntax {
    ContainerSyntax {
        kind,
        self_type: "",
        implements: "",
        supertype_clauses: PHP_HERITAGE,
        abstract_type,
        embedded: PHP_TRAIT_USE,
    }
}

/// PHP: variables are `variable_name` nodes whose text keeps the `$` (`$this` is the
/// instance), so locals never collide with a function or constant name; `->` and `?->`
/// reach members, `::` static members (written as paths with a `self`, `static`,
/// `parent` or class qualifier, which the resolver reads). Namespaces are written with
/// `\`.
pub(crate) static PHP: FamilySyntax = FamilySyntax {
    path_separator: "\\",
    name_prefix: "",
    comments: &["comment"],
    doc_line_prefixes: &[],
    not_doc_prefix: "",
    doc_block: ("/**", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &["attribute_list"],
    declaration_wrappers: &[],
    export_statement: "",

    member_access: &[
        access("member_access_expression", "object", "name"),
        access("nullsafe_member_access_expression", "object", "name"),
    ],
    calls: &[inner("function_call_expression", "function")],
    method_calls: &[
        access("member_call_expression", "object", "name"),
        access("nullsafe_member_call_expression", "object", "name"),
        access("scoped_call_expression", "scope", "name"),
    ],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[],
    transparent: &[
        inner("parenthesized_expression", ""),
        inner("clone_expression", ""),
        inner("error_suppression_expression", ""),
    ],
    indexes: &[inner("subscript_expression", "")],
    casts: &[inner("cast_expression", "type")],
    constructions: &[inner("object_creation_expression", "")],
    self_values: &[],
    self_names: &["$this"],
    class_names: &[],
    super_values: &[],
    super_calls: &[],
    identifiers: &["variable_name", "name"],
    value_paths: &["qualified_name"],
    literals: &[
        ("string", "string"),
        ("encapsed_string", "string"),
        ("heredoc", "string"),
        ("nowdoc", "string"),
        ("integer", "int"),
        ("float", "float"),
        ("boolean", "bool"),
        ("array_creation_expression", "array"),
        ("anonymous_function", "Closure"),
        ("arrow_function", "Closure"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[inner("optional_type", "")],
    generic_types: &[],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &["named_type", "qualified_name", "name"],
    array_types: &[],
    bound_types: &["intersection_type"],
    union_types: &["union_type"],
    tuple_types: &[],
    builtin_types: &["primitive_type", "cast_type"],
    function_types: &[],
    unknown_type_names: &["mixed"],
    nullish_type_names: &["null"],
    self_type_names: &["self", "static"],
    self_types: &[],
    generic_scopes: "",
    type_parameters: &[],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[
        inner("method_declaration", "return_type"),
        inner("function_definition", "return_type"),
        inner("property_declaration", "type"),
        inner("property_promotion_parameter", "type"),
        inner("simple_parameter", "type"),
    ],
    definition_values: &[],
    function_values: &[],
    // Functions and methods without a return type (older code declares none).
    returned_values: ReturnedValues {
        functions: &["function_definition", "method_declaration"],
        scopes: &["anonymous_function", "arrow_function"],
        async_keyword: "",
    },
    parameter_lists: &[
        inner("method_declaration", "parameters"),
        inner("function_definition", "parameters"),
    ],
    parameters: &[
        inner("simple_parameter", "type"),
        inner("property_promotion_parameter", "type"),
        inner("variadic_parameter", "type"),
    ],
    untyped_parameters: &[],
    closure_parameter_lists: &[],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        php_type("class_declaration", false),
        php_type("interface_declaration", true),
        // `$this` in a trait is whatever class uses it.
        php_type("trait_declaration", true),
        php_type("enum_declaration", false),
    ],
    mixin_calls: &[],
};

/// Where a Ruby class names its superclass (`class Cart < Base`).
const RUBY_HERITAGE: &[Inner] = &[inner("superclass", "")];

/// Ruby: no declared types, so receiver types come from `Foo.new` (the resolver's
/// `new` gives the receiver's type), `self`, constants used as values (`Cart.create`),
/// and instance variables (`@clock`), which are fields of the class whose values come
/// from `initialize`. A call with no receiver (`total`, `tax(1)`) is a method of the
/// enclosing instance. Names of `attr_reader :items` drop the symbol's `:`.
pub(crate) static RUBY: FamilySyntax = FamilySyntax {
    path_separator: "::",
    name_prefix: ":",
    comments: &["comment"],
    // Any comment right above a definition is its doc (Ruby has no doc marker).
    doc_line_prefixes: &["#"],
    not_doc_prefix: "#!",
    doc_block: ("=begin", "=end"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &[],
    declaration_wrappers: &[],
    export_statement: "",

    member_access: &[],
    calls: &[],
    method_calls: &[access("call", "receiver", "method")],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[],
    transparent: &[inner("parenthesized_statements", ""), inner("begin", "")],
    indexes: &[inner("element_reference", "object")],
    casts: &[],
    constructions: &[],
    self_values: &["self"],
    self_names: &[],
    class_names: &[],
    super_values: &["super"],
    super_calls: &[],
    identifiers: &["identifier", "constant", "instance_variable"],
    value_paths: &["scope_resolution"],
    literals: &[
        ("string", "String"),
        ("integer", "Integer"),
        ("float", "Float"),
        ("array", "Array"),
        ("hash", "Hash"),
        ("simple_symbol", "Symbol"),
        ("true", "TrueClass"),
        ("false", "FalseClass"),
        ("lambda", "Proc"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[],
    generic_types: &[],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &["constant", "scope_resolution"],
    array_types: &[],
    bound_types: &[],
    union_types: &[],
    tuple_types: &[],
    builtin_types: &[],
    function_types: &[],
    unknown_type_names: &[],
    nullish_type_names: &[],
    self_type_names: &[],
    self_types: &[],
    generic_scopes: "",
    type_parameters: &[],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[],
    definition_values: &[inner("assignment", "right")],
    function_values: &[],
    // A method's last expression is its value (a block's `return` leaves the method; a
    // lambda's is its own). Ruby's `yield` calls a block: no generator.
    returned_values: ReturnedValues {
        functions: &["method", "singleton_method"],
        scopes: &["lambda"],
        async_keyword: "",
    },
    parameter_lists: &[],
    parameters: &[],
    untyped_parameters: &[],
    closure_parameter_lists: &[],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        ContainerSyntax {
            kind: "class",
            self_type: "",
            implements: "",
            supertype_clauses: RUBY_HERITAGE,
            abstract_type: false,
            embedded: &[],
        },
        ContainerSyntax {
            kind: "module",
            self_type: "",
            implements: "",
            supertype_clauses: &[],
            // `self` in a module's instance methods is whatever includes it.
            abstract_type: true,
            embedded: &[],
        },
    ],
    mixin_calls: &["include", "extend", "prepend"],
};

/// Where a Kotlin class or object names its superclass and interfaces (`: Base(), I`).
const KOTLIN_HERITAGE: &[Inner] = &[inner("delegation_specifiers", "")];

/// A Kotlin class, interface or object.
const fn kotlin_class(kind: &'static str) -> ContainerSyntax {
    ContainerSyntax {
        kind,
        self_type: "",
        implements: "",
        supertype_clauses: KOTLIN_HERITAGE,
        abstract_type: false,
        embedded: &[],
    }
}

/// Kotlin's grammar names few fields: definitions' types and values are captured by the
/// query (`@declared.type`, `@declared.value`), and types, calls and member accesses
/// are read by position (the first named child is the callee, the object, the base).
pub(crate) static KOTLIN: FamilySyntax = FamilySyntax {
    path_separator: ".",
    name_prefix: "",
    comments: &["line_comment", "block_comment"],
    doc_line_prefixes: &[],
    not_doc_prefix: "",
    doc_block: ("/**", "*/"),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &["file_annotation"],
    declaration_wrappers: &[],
    export_statement: "",

    member_access: &[access("navigation_expression", "", "")],
    calls: &[inner("call_expression", "")],
    method_calls: &[],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[],
    // `x!!` and `-x` keep the value's type (a nullable type is its type here).
    transparent: &[
        inner("parenthesized_expression", ""),
        inner("unary_expression", "argument"),
        inner("annotated_expression", ""),
        inner("labeled_expression", ""),
    ],
    indexes: &[inner("index_expression", "")],
    casts: &[inner("as_expression", "right")],
    // `Cart(...)` is a call; what calling a class gives is the resolver's business.
    constructions: &[],
    self_values: &["this_expression"],
    self_names: &[],
    class_names: &[],
    super_values: &["super_expression"],
    super_calls: &[],
    identifiers: &["identifier"],
    value_paths: &[],
    literals: &[
        ("string_literal", "String"),
        ("multiline_string_literal", "String"),
        ("number_literal", "Int"),
        ("float_literal", "Double"),
        ("character_literal", "Char"),
        ("lambda_literal", "function"),
        ("anonymous_function", "function"),
    ],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[
        inner("nullable_type", ""),
        inner("non_nullable_type", ""),
        inner("parenthesized_type", ""),
        inner("type_projection", ""),
        inner("delegation_specifier", ""),
        inner("constructor_invocation", ""),
        inner("explicit_delegation", ""),
    ],
    // `List<Item>`, `Map.Entry<K, V>`: the names, then the arguments, without fields.
    generic_types: &[access("user_type", "", "")],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &[],
    array_types: &[],
    bound_types: &[],
    union_types: &[],
    tuple_types: &[],
    builtin_types: &[],
    function_types: &[access("function_type", "", "")],
    unknown_type_names: &["Any", "dynamic"],
    nullish_type_names: &["Nothing"],
    self_type_names: &[],
    self_types: &[],
    generic_scopes: "",
    type_parameters: &[],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[],
    definition_values: &[],
    function_values: &[],
    returned_values: NO_RETURNED_VALUES,
    parameter_lists: &[],
    parameters: &[],
    untyped_parameters: &[],
    closure_parameter_lists: &["lambda_parameters"],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[
        kotlin_class("class_declaration"),
        kotlin_class("object_declaration"),
        kotlin_class("object_literal"),
        // An extension function, a member of its receiver's type (the scope's name).
        kotlin_class("function_declaration"),
    ],
    mixin_calls: &[],
};

/// A family whose values have no types or members the receiver pass reads (shell, Lua):
/// every table empty. Such a family states its comments and names and takes the rest
/// from here.
const UNTYPED: FamilySyntax = FamilySyntax {
    path_separator: "",
    name_prefix: "",
    comments: &[],
    doc_line_prefixes: &[],
    not_doc_prefix: "",
    doc_block: ("", ""),
    docstring_statement: "",
    docstring_kinds: &[],
    attributes: &[],
    declaration_wrappers: &[],
    export_statement: "",

    member_access: &[],
    calls: &[],
    method_calls: &[],
    generic_callees: &[],
    unwraps: &[],
    awaits: &[],
    transparent: &[],
    indexes: &[],
    casts: &[],
    constructions: &[],
    self_values: &[],
    self_names: &[],
    class_names: &[],
    super_values: &[],
    super_calls: &[],
    identifiers: &[],
    value_paths: &[],
    literals: &[],
    macro_calls: &[],
    literal_macros: &[],

    type_wrappers: &[],
    generic_types: &[],
    ignored_type_arguments: &[],
    type_bindings: &[],
    type_names: &[],
    array_types: &[],
    bound_types: &[],
    union_types: &[],
    tuple_types: &[],
    builtin_types: &[],
    function_types: &[],
    unknown_type_names: &[],
    nullish_type_names: &[],
    self_type_names: &[],
    self_types: &[],
    generic_scopes: "",
    type_parameters: &[],
    where_clauses: &[],
    where_predicates: &[],

    definition_types: &[],
    definition_values: &[],
    function_values: &[],
    returned_values: NO_RETURNED_VALUES,
    parameter_lists: &[],
    parameters: &[],
    untyped_parameters: &[],
    closure_parameter_lists: &[],
    tuple_patterns: &[],
    transparent_patterns: &[],
    tuple_fields: &[],
    containers: &[],
    mixin_calls: &[],
};

/// Shell scripts have no types or members: a command names a function, an expansion a
/// variable; only comments and names matter here.
pub(crate) static SHELL: FamilySyntax = FamilySyntax {
    path_separator: "/",
    comments: &["comment"],
    // Any comment right above a function is its doc (shell has no doc marker).
    doc_line_prefixes: &["#"],
    not_doc_prefix: "#!",
    identifiers: &["word", "variable_name"],
    ..UNTYPED
};

/// Lua's values are tables without declared types: a member use (`M.add`, `obj:run()`)
/// is resolved by what its receiver names (a module, a table a file defines functions
/// of), in `mcursor-index`; only comments and names matter here.
pub(crate) static LUA: FamilySyntax = FamilySyntax {
    path_separator: ".",
    comments: &["comment"],
    // `--- Adds things.` (LDoc), and any `--` comment right above a function.
    doc_line_prefixes: &["---", "--"],
    doc_block: ("--[[", "]]"),
    identifiers: &["identifier"],
    ..UNTYPED
};
