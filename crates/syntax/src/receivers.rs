//! The receiver pass: syntax nodes → [`TypeRef`]s and [`ValueChain`]s, driven by the
//! family's node-kind tables ([`crate::family`]), so that the resolver can tell which
//! `Type::member` a use like `self.config.load()` refers to.
//!
//! Only declared things are read: parameter, field, variable and return types, generic
//! bounds, constructors, literals, casts. Local bindings are substituted by the caller
//! (the extractor's scope sweep), so a chain that leaves here names only repository-level
//! things. Value chains are followed in a loop; types nest, so their conversion recurses
//! with a small depth bound ([`MAX_TYPE_DEPTH`]), as do the ancestor walks that find a type
//! parameter's bounds ([`MAX_ANCESTORS`]).

use std::borrow::Cow;

use tree_sitter::Node;

use crate::family::{FamilyKinds, Inner, NodeRole};
use crate::{Callee, Container, Position, TypeRef, ValueChain, ValueRoot, ValueStep};

/// Types nested deeper than this read as unknown (real code nests three or four).
const MAX_TYPE_DEPTH: usize = 12;
/// Steps followed from a member back to its chain's root.
const MAX_CHAIN_STEPS: usize = 32;
/// Ancestors searched for the type parameter a name stands for.
const MAX_ANCESTORS: usize = 64;

pub(crate) struct Converter<'a> {
    pub kinds: &'a FamilyKinds,
    pub source: &'a [u8],
    /// Names declared as type parameters anywhere in the file: only these are looked up
    /// among enclosing items' parameters (the search climbs ancestors, which tree-sitter
    /// finds from the root each time).
    pub type_parameters: &'a std::collections::HashSet<String>,
}

fn field_child<'t>(node: Node<'t>, field: u16) -> Option<Node<'t>> {
    if field == 0 {
        node.named_child(0)
    } else {
        node.child_by_field_id(field)
    }
}

/// The name of a member access: its field, or without one the last named child (`x.f`
/// in grammars that name no fields there).
fn name_child<'t>(node: Node<'t>, field: u16) -> Option<Node<'t>> {
    if field == 0 {
        node.named_child(node.named_child_count().checked_sub(1)? as u32)
    } else {
        node.child_by_field_id(field)
    }
}

fn named_children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..node.named_child_count() as u32).filter_map(move |i| node.named_child(i))
}

/// A definition's type and value nodes as its query pattern captures them
/// (`@declared.type`, `@declared.value`), for grammars that name no field for them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Declared<'t> {
    pub ty: Option<Node<'t>>,
    pub value: Option<Node<'t>>,
}

impl<'a> Converter<'a> {
    fn text(&self, node: Node<'_>) -> Cow<'a, str> {
        String::from_utf8_lossy(self.source.get(node.byte_range()).unwrap_or_default())
    }

    fn role(&self, node: Node<'_>) -> NodeRole {
        self.kinds.role(node.kind_id())
    }

    fn field(&self, name: &str) -> u16 {
        self.kinds.field(name)
    }

    /// The segments of a path as written: `crate::a::B`, `Vec::<u8>::new`, `ns.Foo`.
    /// Generic arguments are left out.
    pub fn path_of(&self, node: Node<'_>) -> Vec<String> {
        let text = self.text(node);
        let mut out = Vec::new();
        let mut depth = 0usize;
        let mut segment = String::new();
        let separator = self.kinds.syntax.path_separator;
        let mut rest = text.as_ref();
        while let Some(c) = rest.chars().next() {
            if depth == 0 && rest.starts_with(separator) {
                out.push(std::mem::take(&mut segment));
                rest = &rest[separator.len()..];
                continue;
            }
            match c {
                '<' => depth += 1,
                '>' => depth = depth.saturating_sub(1),
                c if depth == 0 && !c.is_whitespace() => segment.push(c),
                _ => {}
            }
            rest = &rest[c.len_utf8()..];
        }
        out.push(segment);
        out.retain(|s| !s.is_empty());
        out
    }

    // ------------------------------------------------------------------ types

    pub fn type_ref(&self, node: Node<'_>) -> TypeRef {
        self.type_at_depth(node, 0)
    }

    fn type_at_depth(&self, node: Node<'_>, depth: usize) -> TypeRef {
        if depth > MAX_TYPE_DEPTH {
            return TypeRef::Unknown;
        }
        let syntax = self.kinds.syntax;
        match self.role(node) {
            NodeRole::TypeWrapper(field) => field_child(node, field)
                .map_or(TypeRef::Unknown, |inner| {
                    self.type_at_depth(inner, depth + 1)
                }),
            NodeRole::GenericType(base_field, args) => {
                let Some(base) = field_child(node, base_field) else {
                    return TypeRef::Unknown;
                };
                // Without a field, the arguments are the last named child (`List[Foo]`,
                // `Map<K, V>` in grammars that name no fields there), a list rather than
                // a name.
                let args = if args == 0 {
                    node.named_child(node.named_child_count().saturating_sub(1) as u32)
                        .filter(|last| {
                            last.id() != base.id() && matches!(self.role(*last), NodeRole::None)
                        })
                } else {
                    node.child_by_field_id(args)
                };
                // Without a field, several names before the arguments are one qualified
                // name (Kotlin's `Map.Entry<K, V>` is one `user_type` of three children).
                let names_before_args = node.named_child_count() - usize::from(args.is_some());
                let named = if base_field == 0 && names_before_args > 1 {
                    TypeRef::Named {
                        path: self.path_of(node),
                        args: Vec::new(),
                    }
                } else {
                    self.type_at_depth(base, depth + 1)
                };
                let TypeRef::Named { path, .. } = named else {
                    // A type parameter or `Self` with arguments: the arguments say nothing.
                    return named;
                };
                let args = args
                    .map(|list| {
                        named_children(list)
                            .filter(|arg| !syntax.ignored_type_arguments.contains(&arg.kind()))
                            .map(|arg| {
                                // `Iterator<Item = T>`: the bound type stands as the argument.
                                let arg = syntax
                                    .type_bindings
                                    .iter()
                                    .find(|b| b.kind == arg.kind())
                                    .and_then(|b| arg.child_by_field_id(self.field(b.field)))
                                    .unwrap_or(arg);
                                self.type_at_depth(arg, depth + 1)
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                TypeRef::Named { path, args }
            }
            // A value path names a type in patterns (`Kind::V(x)`); a member access in a
            // type position is a dotted type name (`module.Type`).
            // A qualified generic type (C++'s `std::unique_ptr<Cart>`): its generic part.
            NodeRole::TypeName | NodeRole::ValuePath
                if node
                    .child_by_field_id(self.field("name"))
                    .is_some_and(|n| matches!(self.role(n), NodeRole::GenericType(..))) =>
            {
                node.child_by_field_id(self.field("name"))
                    .map_or(TypeRef::Unknown, |n| self.type_at_depth(n, depth + 1))
            }
            NodeRole::TypeName
            | NodeRole::Identifier
            | NodeRole::ValuePath
            | NodeRole::MemberAccess(..) => {
                let path = self.path_of(node);
                match path.as_slice() {
                    [] => TypeRef::Unknown,
                    [only] if syntax.self_type_names.contains(&only.as_str()) => TypeRef::SelfType,
                    [only] if syntax.unknown_type_names.contains(&only.as_str()) => {
                        TypeRef::Unknown
                    }
                    [only] => match self.type_parameter_bounds(node, only, depth) {
                        Some(bounds) if bounds.is_empty() => TypeRef::Unknown,
                        Some(bounds) => TypeRef::Bounds(bounds),
                        None => TypeRef::Named {
                            path,
                            args: Vec::new(),
                        },
                    },
                    _ => TypeRef::Named {
                        path,
                        args: Vec::new(),
                    },
                }
            }
            NodeRole::ArrayType(field) => field_child(node, field).map_or(TypeRef::Unknown, |e| {
                TypeRef::Array(Box::new(self.type_at_depth(e, depth + 1)))
            }),
            NodeRole::BoundType => {
                let mut bounds = Vec::new();
                let mut work = vec![node];
                while let Some(n) = work.pop() {
                    for child in named_children(n) {
                        if self.role(child) == NodeRole::BoundType {
                            if work.len() < MAX_TYPE_DEPTH {
                                work.push(child);
                            }
                            continue;
                        }
                        match self.type_at_depth(child, depth + 1) {
                            t @ (TypeRef::Named { .. } | TypeRef::Function { .. }) => {
                                bounds.push(t)
                            }
                            TypeRef::Bounds(inner) => bounds.extend(inner),
                            _ => {}
                        }
                    }
                }
                if bounds.is_empty() {
                    TypeRef::Unknown
                } else {
                    TypeRef::Bounds(bounds)
                }
            }
            NodeRole::UnionType => {
                let mut members = Vec::new();
                let mut work = vec![node];
                while let Some(n) = work.pop() {
                    for child in named_children(n) {
                        if self.role(child) == NodeRole::UnionType && work.len() < MAX_TYPE_DEPTH {
                            work.push(child);
                        } else {
                            members.push(self.type_at_depth(child, depth + 1));
                        }
                    }
                }
                members.retain(|t| {
                    !matches!(t, TypeRef::Builtin(name) if syntax.nullish_type_names.contains(&name.as_str()))
                });
                match members.as_slice() {
                    [] => TypeRef::Unknown,
                    [only] => only.clone(),
                    _ => TypeRef::Union(members),
                }
            }
            NodeRole::BuiltinType => {
                let text = self.text(node);
                let name = text.trim();
                if syntax.unknown_type_names.contains(&name) {
                    TypeRef::Unknown
                } else if node.named_child_count() == 0 || syntax.nullish_type_names.contains(&name)
                {
                    // A keyword type (`u32`, `string`, `null`): its name.
                    TypeRef::Builtin(name.to_owned())
                } else {
                    // A tuple, function or literal type: its kind is all that matters.
                    TypeRef::Builtin(node.kind().to_owned())
                }
            }
            NodeRole::SelfType => TypeRef::SelfType,
            NodeRole::TupleType => TypeRef::Tuple(
                named_children(node)
                    .map(|element| self.type_at_depth(element, depth + 1))
                    .collect(),
            ),
            NodeRole::FunctionType(params, ret) => TypeRef::Function {
                params: field_child(node, params)
                    .map(|list| self.parameter_types(list, depth + 1))
                    .unwrap_or_default(),
                ret: Box::new(
                    node.child_by_field_id(ret)
                        .map_or(TypeRef::Unknown, |r| self.type_at_depth(r, depth + 1)),
                ),
            },
            _ => TypeRef::Unknown,
        }
    }

    /// The types of a parameter list, in order: declared parameters' types (`self` and
    /// `this` left out), or the list's types themselves (`Fn(A, B)`).
    fn parameter_types(&self, list: Node<'_>, depth: usize) -> Vec<TypeRef> {
        let syntax = self.kinds.syntax;
        let pattern = self.field("pattern");
        named_children(list)
            .filter(|p| {
                // `this: T` in TypeScript says what `this` is, not a parameter; nor is
                // Python's `self`.
                p.child_by_field_id(pattern)
                    .is_none_or(|pat| !syntax.self_values.contains(&pat.kind()))
                    && !syntax.self_names.contains(&&*self.text(*p))
            })
            .filter_map(
                |p| match syntax.parameters.iter().find(|k| k.kind == p.kind()) {
                    Some(spec) => Some(
                        p.child_by_field_id(self.field(spec.field))
                            .map_or(TypeRef::Unknown, |t| self.type_at_depth(t, depth)),
                    ),
                    None if syntax.untyped_parameters.contains(&p.kind()) => Some(TypeRef::Unknown),
                    // A `self` parameter or an attribute: not a parameter type.
                    None if matches!(self.role(p), NodeRole::None) => None,
                    None => Some(self.type_at_depth(p, depth)),
                },
            )
            .collect()
    }

    /// A function's or method's declared parameter types (a variable holding a function
    /// value: that function's).
    pub fn definition_params(&self, node: Node<'_>) -> Vec<TypeRef> {
        let syntax = self.kinds.syntax;
        let function = self
            .field_of(node, syntax.definition_values)
            .unwrap_or(node);
        let list = [node, function]
            .into_iter()
            .find_map(|n| self.field_of(n, syntax.parameter_lists));
        list.map(|l| self.parameter_types(l, 0)).unwrap_or_default()
    }

    /// What a call's function node calls, for closures passed to it.
    pub fn callee(
        &self,
        node: Node<'_>,
        constructor: bool,
        local: &dyn Fn(&str) -> Option<ValueChain>,
    ) -> Option<Callee> {
        if constructor {
            return Some(Callee::Constructor(self.named_type(node)));
        }
        let mut node = node;
        if let NodeRole::GenericCallee(inner) = self.role(node) {
            node = field_child(node, inner)?;
        }
        match self.role(node) {
            NodeRole::MemberAccess(object, name) => Some(Callee::Method {
                receiver: Box::new(self.value_chain(field_child(node, object)?, local)),
                name: self.text(name_child(node, name)?).into_owned(),
            }),
            NodeRole::Identifier if local(&self.text(node)).is_none() => {
                Some(Callee::Function(vec![self.text(node).into_owned()]))
            }
            NodeRole::ValuePath => Some(Callee::Function(self.path_of(node))),
            _ => None,
        }
    }

    /// If `name` (used at `node`) is a type parameter of an enclosing item, its bounds
    /// (empty when it has none); `None` when it is not a type parameter.
    fn type_parameter_bounds(
        &self,
        node: Node<'_>,
        name: &str,
        depth: usize,
    ) -> Option<Vec<TypeRef>> {
        if !self.type_parameters.contains(name) {
            return None;
        }
        let syntax = self.kinds.syntax;
        let scopes = self.field(syntax.generic_scopes);
        let mut current = node.parent();
        let mut found: Option<Vec<TypeRef>> = None;
        for _ in 0..MAX_ANCESTORS {
            let Some(ancestor) = current else { break };
            let parameters = if scopes == 0 {
                None
            } else {
                ancestor.child_by_field_id(scopes)
            };
            for parameter in parameters.into_iter().flat_map(named_children) {
                let Some(spec) = syntax
                    .type_parameters
                    .iter()
                    .find(|p| p.kind == parameter.kind())
                else {
                    continue;
                };
                let declared = field_child(parameter, self.field(spec.name)).map(|n| self.text(n));
                if declared.as_deref() != Some(name) {
                    continue;
                }
                let bounds = found.get_or_insert_with(Vec::new);
                if let Some(b) = parameter.child_by_field_id(self.field(spec.object)) {
                    self.collect_bounds(b, depth, bounds);
                }
            }
            // `where T: A + B` clauses of the same item (only items with type parameters:
            // scanning every ancestor's children would cost a file's item count per type).
            let clauses = parameters
                .is_some()
                .then(|| named_children(ancestor))
                .into_iter()
                .flatten();
            for clause in clauses {
                if !syntax.where_clauses.contains(&clause.kind()) {
                    continue;
                }
                for predicate in named_children(clause) {
                    let Some(spec) = syntax
                        .where_predicates
                        .iter()
                        .find(|p| p.kind == predicate.kind())
                    else {
                        continue;
                    };
                    let left = predicate
                        .child_by_field_id(self.field(spec.name))
                        .map(|n| self.text(n));
                    if left.as_deref() != Some(name) {
                        continue;
                    }
                    let bounds = found.get_or_insert_with(Vec::new);
                    if let Some(b) = predicate.child_by_field_id(self.field(spec.object)) {
                        self.collect_bounds(b, depth, bounds);
                    }
                }
            }
            if found.is_some() {
                return found;
            }
            current = ancestor.parent();
        }
        found
    }

    /// The named types of a bounds list (`A + B<C> + 'a`) or of one bound.
    fn collect_bounds(&self, node: Node<'_>, depth: usize, out: &mut Vec<TypeRef>) {
        let candidates: Vec<Node> = match self.role(node) {
            NodeRole::TypeName
            | NodeRole::GenericType(..)
            | NodeRole::Identifier
            | NodeRole::FunctionType(..) => vec![node],
            _ => named_children(node).collect(),
        };
        for candidate in candidates {
            // A bound never refers to the parameter it bounds, but it may name another one:
            // read its path directly instead of asking for that parameter's bounds again.
            match self.role(candidate) {
                NodeRole::TypeName | NodeRole::Identifier => out.push(TypeRef::Named {
                    path: self.path_of(candidate),
                    args: Vec::new(),
                }),
                NodeRole::GenericType(base, _) => {
                    if let Some(base) = field_child(candidate, base) {
                        out.push(TypeRef::Named {
                            path: self.path_of(base),
                            args: Vec::new(),
                        })
                    }
                }
                _ => {
                    if let t @ (TypeRef::Named { .. } | TypeRef::Function { .. }) =
                        self.type_at_depth(candidate, depth + 1)
                    {
                        out.push(t)
                    }
                }
            }
        }
    }

    // ----------------------------------------------------------------- values

    /// The chain of a value expression. `local` finds what a local binding visible at a
    /// position was bound to.
    pub fn value_chain(
        &self,
        node: Node<'_>,
        local: &dyn Fn(&str) -> Option<ValueChain>,
    ) -> ValueChain {
        let syntax = self.kinds.syntax;
        // `cls` is the class where nothing else bound it (a class method's parameter says
        // nothing; `cls = SimpleView` does).
        let names_class = |name: &str| {
            syntax.class_names.contains(&name)
                && local(name).is_none_or(|bound| {
                    matches!(bound.root, ValueRoot::Unknown) && bound.steps.is_empty()
                })
        };
        let mut reversed: Vec<ValueStep> = Vec::new();
        let mut node = node;
        let root = loop {
            if reversed.len() > MAX_CHAIN_STEPS {
                return ValueChain::unknown();
            }
            match self.role(node) {
                NodeRole::MemberAccess(object, name) => {
                    let (Some(object), Some(name)) =
                        (field_child(node, object), name_child(node, name))
                    else {
                        break ValueRoot::Unknown;
                    };
                    reversed.push(ValueStep::Field(self.text(name).into_owned()));
                    node = object;
                }
                NodeRole::MethodCall(object, name) => {
                    let Some(name) = name_child(node, name) else {
                        break ValueRoot::Unknown;
                    };
                    reversed.push(ValueStep::Call(self.text(name).into_owned()));
                    // Without an object, the method is the enclosing instance's.
                    match (object != 0)
                        .then(|| node.child_by_field_id(object))
                        .flatten()
                    {
                        Some(object) => node = object,
                        None => break ValueRoot::SelfValue,
                    }
                }
                NodeRole::Call(function) => {
                    let Some(mut callee) = field_child(node, function) else {
                        break ValueRoot::Unknown;
                    };
                    if let NodeRole::GenericCallee(inner) = self.role(callee)
                        && let Some(inner) = field_child(callee, inner)
                    {
                        callee = inner;
                    }
                    match self.role(callee) {
                        NodeRole::MemberAccess(object, name) => {
                            let (Some(object), Some(name)) =
                                (field_child(callee, object), name_child(callee, name))
                            else {
                                break ValueRoot::Unknown;
                            };
                            reversed.push(ValueStep::Call(self.text(name).into_owned()));
                            node = object;
                        }
                        NodeRole::Identifier
                            if syntax.super_calls.contains(&&*self.text(callee)) =>
                        {
                            break ValueRoot::Super;
                        }
                        // `cls(...)`: an instance of the class, what `self` is.
                        NodeRole::Identifier if names_class(&self.text(callee)) => {
                            break ValueRoot::SelfValue;
                        }
                        NodeRole::Identifier => {
                            let name = self.text(callee);
                            // Calling a local (a closure) says nothing about the result.
                            if local(&name).is_some() {
                                break ValueRoot::Unknown;
                            }
                            break ValueRoot::Call(vec![name.into_owned()]);
                        }
                        NodeRole::ValuePath => break ValueRoot::Call(self.path_of(callee)),
                        _ => break ValueRoot::Unknown,
                    }
                }
                NodeRole::Unwrap(inner) => {
                    reversed.push(ValueStep::Unwrap);
                    match field_child(node, inner) {
                        Some(inner) => node = inner,
                        None => break ValueRoot::Unknown,
                    }
                }
                NodeRole::Await(inner) => {
                    reversed.push(ValueStep::Await);
                    match field_child(node, inner) {
                        Some(inner) => node = inner,
                        None => break ValueRoot::Unknown,
                    }
                }
                NodeRole::Transparent(inner) => match field_child(node, inner) {
                    Some(inner) => node = inner,
                    None => break ValueRoot::Unknown,
                },
                NodeRole::Index(inner) => {
                    reversed.push(ValueStep::Index);
                    match field_child(node, inner) {
                        Some(inner) => node = inner,
                        None => break ValueRoot::Unknown,
                    }
                }
                NodeRole::Cast(field) => {
                    // `x as T`: the type is the field, or the last named child.
                    let ty = if field == 0 {
                        node.named_child(node.named_child_count().saturating_sub(1) as u32)
                    } else {
                        node.child_by_field_id(field)
                    };
                    break ty.map_or(ValueRoot::Unknown, |t| ValueRoot::Typed(self.type_ref(t)));
                }
                NodeRole::Construction(field) => {
                    let Some(ty) = field_child(node, field) else {
                        break ValueRoot::Unknown;
                    };
                    break ValueRoot::Typed(self.named_type(ty));
                }
                NodeRole::SelfValue => break ValueRoot::SelfValue,
                NodeRole::SuperValue => break ValueRoot::Super,
                NodeRole::Identifier
                    if syntax.self_names.contains(&&*self.text(node))
                        || names_class(&self.text(node)) =>
                {
                    break ValueRoot::SelfValue;
                }
                NodeRole::Identifier => {
                    let name = self.text(node);
                    if let Some(bound) = local(&name) {
                        let mut steps = bound.steps;
                        steps.extend(reversed.into_iter().rev());
                        if steps.len() > MAX_CHAIN_STEPS {
                            return ValueChain::unknown();
                        }
                        return ValueChain {
                            root: bound.root,
                            steps,
                        };
                    }
                    break ValueRoot::Path(vec![name.into_owned()]);
                }
                NodeRole::ValuePath => break ValueRoot::Path(self.path_of(node)),
                NodeRole::Literal(i) => {
                    let builtin = syntax.literals.get(i as usize).map_or("", |l| l.1);
                    break ValueRoot::Typed(TypeRef::Builtin(builtin.to_owned()));
                }
                NodeRole::MacroCall(field) => {
                    let name = field_child(node, field).map(|n| self.text(n));
                    break match syntax
                        .literal_macros
                        .iter()
                        .find(|(m, _)| Some(*m) == name.as_deref())
                    {
                        Some((_, ty)) => ValueRoot::Typed(TypeRef::Builtin((*ty).to_owned())),
                        None => ValueRoot::Unknown,
                    };
                }
                NodeRole::TypeName
                | NodeRole::GenericType(..)
                | NodeRole::TypeWrapper(_)
                | NodeRole::ArrayType(_)
                | NodeRole::UnionType
                | NodeRole::TupleType
                | NodeRole::FunctionType(..)
                | NodeRole::SelfType => break ValueRoot::Typed(self.type_ref(node)),
                NodeRole::GenericCallee(_)
                | NodeRole::BoundType
                | NodeRole::BuiltinType
                | NodeRole::None => break ValueRoot::Unknown,
            }
        };
        reversed.reverse();
        ValueChain {
            root,
            steps: reversed,
        }
    }

    /// The type a constructor names: a type node, or a value naming a class (`new ns.Foo()`).
    fn named_type(&self, node: Node<'_>) -> TypeRef {
        match self.role(node) {
            NodeRole::Identifier | NodeRole::MemberAccess(..) | NodeRole::ValuePath => {
                TypeRef::Named {
                    path: self.path_of(node),
                    args: Vec::new(),
                }
            }
            _ => self.type_ref(node),
        }
    }

    // ------------------------------------------------------- declarations

    /// A container's facts; `name` is what its scope capture named it.
    pub fn container(&self, node: Node<'_>, name: &str) -> Container {
        let syntax = self.kinds.syntax;
        let own = || TypeRef::Named {
            path: vec![name.to_owned()],
            args: Vec::new(),
        };
        let Some(spec) = syntax.containers.iter().find(|c| c.kind == node.kind()) else {
            return Container {
                name: name.to_owned(),
                self_type: own(),
                implements: None,
                supertypes: Vec::new(),
                is_abstract: false,
                blanket: false,
                start: Position::default(),
                end: Position::default(),
            };
        };
        let self_type = if spec.self_type.is_empty() {
            own()
        } else {
            node.child_by_field_id(self.field(spec.self_type))
                .map_or(TypeRef::Unknown, |t| self.type_ref(t))
        };
        let implements = if spec.implements.is_empty() {
            None
        } else {
            node.child_by_field_id(self.field(spec.implements))
                .map(|t| self.type_ref(t))
        };
        let mut supertypes = Vec::new();
        let mut work: Vec<(Node, usize)> = vec![(node, 0)];
        while let Some((n, level)) = work.pop() {
            for child in named_children(n) {
                let Some(clause) = spec
                    .supertype_clauses
                    .iter()
                    .find(|c| c.kind == child.kind())
                else {
                    continue;
                };
                if !clause.field.is_empty() {
                    if let Some(t) = child.child_by_field_id(self.field(clause.field)) {
                        supertypes.push(self.type_ref(t));
                    }
                    continue;
                }
                let mut nested = false;
                for inner in named_children(child) {
                    if spec
                        .supertype_clauses
                        .iter()
                        .any(|c| c.kind == inner.kind())
                    {
                        nested = true;
                    }
                }
                if nested && level < 2 {
                    work.push((child, level + 1));
                } else {
                    for inner in named_children(child) {
                        supertypes.push(self.type_ref(inner));
                    }
                }
            }
        }
        // Embedded fields and interfaces (`struct { Logger }`): a member declaration
        // without a name, a few levels down (struct type, field list, field).
        if !spec.embedded.is_empty() {
            let mut work: Vec<(Node, usize)> = vec![(node, 0)];
            while let Some((n, depth)) = work.pop() {
                for child in named_children(n) {
                    match spec.embedded.iter().find(|e| e.kind == child.kind()) {
                        Some(e) if child.child_by_field_id(self.field("name")).is_none() => {
                            if e.field.is_empty() {
                                for t in named_children(child) {
                                    supertypes.push(self.type_ref(t));
                                }
                            } else if let Some(t) = child.child_by_field_id(self.field(e.field)) {
                                supertypes.push(self.type_ref(t));
                            }
                        }
                        Some(_) => {}
                        None if depth < 3 => work.push((child, depth + 1)),
                        None => {}
                    }
                }
            }
        }
        // Mixins (`include Comparable` in the body).
        if !syntax.mixin_calls.is_empty() {
            for body in named_children(node) {
                for call in named_children(body) {
                    let Some(access) = syntax.method_calls.iter().find(|a| a.kind == call.kind())
                    else {
                        continue;
                    };
                    let mixin = call.child_by_field_id(self.field(access.object)).is_none()
                        && call
                            .child_by_field_id(self.field(access.name))
                            .is_some_and(|n| syntax.mixin_calls.contains(&&*self.text(n)));
                    if let (true, Some(arguments)) =
                        (mixin, call.child_by_field_id(self.field("arguments")))
                    {
                        supertypes.extend(named_children(arguments).map(|t| self.type_ref(t)));
                    }
                }
            }
        }
        supertypes.retain(|t| matches!(t, TypeRef::Named { .. }));
        // `impl<T: Bound> Trait for T`: the target is one of the impl's own parameters.
        let blanket = implements.is_some()
            && matches!(self_type, TypeRef::Bounds(_) | TypeRef::Unknown)
            && node
                .child_by_field_id(self.field(spec.self_type))
                .is_some_and(|t| matches!(self.role(t), NodeRole::TypeName));
        Container {
            name: name.to_owned(),
            self_type,
            implements,
            supertypes,
            is_abstract: spec.abstract_type,
            blanket,
            start: Position::default(),
            end: Position::default(),
        }
    }

    /// What a definition node declares: its type (the return type for functions), and
    /// its initial value when it declares no type.
    pub fn definition_type(
        &self,
        node: Node<'_>,
        captured: Declared<'_>,
    ) -> (Option<TypeRef>, Option<ValueChain>) {
        if let Some(declared) = self.declared_type_node(node, captured) {
            return (Some(self.type_ref(declared)), None);
        }
        let syntax = self.kinds.syntax;
        let Some(value) = self.declared_value_node(node, captured) else {
            // A function value defined directly (`X.prototype.m = function () {}` captures
            // the function itself): its return type.
            return (self.function_return(node), None);
        };
        if let Some(returns) = self.function_return(value) {
            return (Some(returns), None);
        }
        if syntax
            .function_values
            .iter()
            .any(|f| f.kind == value.kind())
        {
            return (None, None);
        }
        (None, Some(self.value_chain(value, &|_| None)))
    }

    /// The node whose value chain [`Self::definition_type`] takes as the definition's
    /// value, if it takes one: extraction evaluates it again with the local bindings
    /// visible there (`self.store = store` in a constructor: the parameter `store`).
    pub fn definition_value<'t>(&self, node: Node<'t>, captured: Declared<'t>) -> Option<Node<'t>> {
        if self.declared_type_node(node, captured).is_some() {
            return None;
        }
        let syntax = self.kinds.syntax;
        let value = self.declared_value_node(node, captured)?;
        let is_function = self.function_return(value).is_some()
            || syntax
                .function_values
                .iter()
                .any(|f| f.kind == value.kind());
        (!is_function).then_some(value)
    }

    /// A definition's declared type: the pattern's capture, else the family's field.
    fn declared_type_node<'t>(&self, node: Node<'t>, captured: Declared<'t>) -> Option<Node<'t>> {
        captured
            .ty
            .or_else(|| self.field_of(node, self.kinds.syntax.definition_types))
    }

    /// A definition's initial value: the pattern's capture, else the family's field.
    fn declared_value_node<'t>(&self, node: Node<'t>, captured: Declared<'t>) -> Option<Node<'t>> {
        captured
            .value
            .or_else(|| self.field_of(node, self.kinds.syntax.definition_values))
    }

    /// The child of `node` in the field a table names for its kind.
    fn field_of<'t>(&self, node: Node<'t>, table: &[Inner]) -> Option<Node<'t>> {
        table
            .iter()
            .filter(|d| d.kind == node.kind())
            .find_map(|d| node.child_by_field_id(self.field(d.field)))
    }

    /// The types of a definition's positional fields, in order (empty when it has none).
    pub fn tuple_fields(&self, node: Node<'_>) -> Vec<TypeRef> {
        let Some(type_field) = std::num::NonZeroU16::new(self.field("type")) else {
            return Vec::new();
        };
        let Some(list) = self.field_of(node, self.kinds.syntax.tuple_fields) else {
            return Vec::new();
        };
        let mut cursor = list.walk();
        list.children_by_field_id(type_field, &mut cursor)
            .map(|t| self.type_ref(t))
            .collect()
    }

    fn function_return(&self, node: Node<'_>) -> Option<TypeRef> {
        self.field_of(node, self.kinds.syntax.function_values)
            .map(|t| self.type_ref(t))
    }
}
