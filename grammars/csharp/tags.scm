; mcursor extraction query for C# (tree-sitter-c-sharp 0.23).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones. Using directives are walked in code
; (crates/syntax/src/imports.rs).
;
; C# writes type names and value names with the same `identifier` node: a name in a type
; position (a declaration's `type`, a base list, `new T()`, a cast, a type argument) is a
; type reference; any other name is an identifier reference.

; ---------------------------------------------------------------- containers
; A file-scoped namespace (`namespace A.B;`) qualifies every definition of the file; a
; block namespace the definitions inside it.
(compilation_unit (file_scoped_namespace_declaration name: (_) @scope.name)) @scope.module
(namespace_declaration name: (_) @scope.name) @scope.module
(class_declaration name: (identifier) @scope.name) @scope.container
(struct_declaration name: (identifier) @scope.name) @scope.container
(record_declaration name: (identifier) @scope.name) @scope.container
(interface_declaration name: (identifier) @scope.name) @scope.container
(enum_declaration name: (identifier) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(class_declaration name: (identifier) @name) @definition.class
(struct_declaration name: (identifier) @name) @definition.struct
(record_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(delegate_declaration name: (identifier) @name) @definition.type_alias
; An extension method (`static void M(this T x)`) is called like a method of `T` but is a
; static function of its class: kind function, which the resolver knows it by.
(method_declaration name: (identifier) @name parameters: (parameter_list . (parameter (modifier) @_this) (#eq? @_this "this"))) @definition.function
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(destructor_declaration name: (identifier) @name) @definition.method
(local_function_statement name: (identifier) @name) @definition.function
(property_declaration name: (identifier) @name) @definition.field
(event_declaration name: (identifier) @name) @definition.field
(enum_member_declaration name: (identifier) @name) @definition.enum_variant
; A field's definition node is its declaration of one type, so that its type is at hand;
; the doc comment and modifiers belong to the whole `field_declaration` (a wrapper).
(field_declaration (variable_declaration (variable_declarator name: (identifier) @name)) @definition.field)
(event_field_declaration (variable_declaration (variable_declarator name: (identifier) @name)) @definition.field)
(record_declaration (parameter_list (parameter name: (identifier) @name) @definition.field))

; ---------------------------------------------------------------- references
; Calls: `f()`, `x.M()`, `x.M<T>()`, `M<T>()`, `x?.M()`, `new T()`.
(invocation_expression function: (member_access_expression expression: _ @receiver name: (identifier) @name)) @reference.call
(invocation_expression function: (member_access_expression expression: _ @receiver name: (generic_name (identifier) @name))) @reference.call
(invocation_expression function: (conditional_access_expression condition: (_) @receiver (member_binding_expression name: (identifier) @name))) @reference.call
(invocation_expression function: (identifier) @name) @reference.call
(invocation_expression function: (generic_name (identifier) @name)) @reference.call
(object_creation_expression type: (identifier) @name) @reference.call
(object_creation_expression type: (generic_name (identifier) @name)) @reference.call
(object_creation_expression type: (qualified_name qualifier: (_) @qualifier name: (identifier) @name)) @reference.call
(object_creation_expression type: (qualified_name qualifier: (_) @qualifier name: (generic_name (identifier) @name))) @reference.call
; Member access that is not called: fields, properties, events, nested types.
(member_access_expression expression: _ @receiver name: (identifier) @name) @reference.field
(member_access_expression expression: _ @receiver name: (generic_name (identifier) @name)) @reference.field
(conditional_access_expression condition: (_) @receiver (member_binding_expression name: (identifier) @name)) @reference.field
; Names in type positions.
(qualified_name qualifier: (_) @qualifier name: (identifier) @name) @reference.type
(qualified_name qualifier: (_) @qualifier name: (generic_name (identifier) @name)) @reference.type
(generic_name (identifier) @name) @reference.type
(base_list (identifier) @name @reference.type)
(type_argument_list (identifier) @name @reference.type)
(type_parameter_constraint (type (identifier) @name @reference.type))
; `[Cached]` names the class `CachedAttribute` (C# adds the suffix when it is left out).
(attribute name: (identifier) @name (#set! name.suffix "Attribute")) @reference.type
(attribute name: (qualified_name name: (identifier) @name) (#set! name.suffix "Attribute")) @reference.type
(_ type: (identifier) @name @reference.type)
(_ returns: (identifier) @name @reference.type)
(as_expression right: (identifier) @name @reference.type)
(is_expression right: (identifier) @name @reference.type)
(explicit_interface_specifier (identifier) @name @reference.type)
(using_directive) @ignore.inside
; Type parameters are not the repository's types (`class Box<T> where T : IShape`: `IShape`
; is a reference, `T` is not).
(type_parameter name: (identifier) @ignore.inside)
(type_parameter_constraints_clause . (identifier) @ignore.inside)
(namespace_declaration name: (_) @ignore.inside)
(file_scoped_namespace_declaration name: (_) @ignore.inside)

; -------------------------------------------------------------------- locals
(method_declaration) @local.scope
(constructor_declaration) @local.scope
(local_function_statement) @local.scope
(lambda_expression) @local.scope
(anonymous_method_expression) @local.scope
(accessor_declaration) @local.scope
(block) @local.scope
(for_statement) @local.scope
(foreach_statement) @local.scope
(catch_clause) @local.scope
(using_statement) @local.scope
(switch_section) @local.scope
(indexer_declaration) @local.scope
(operator_declaration) @local.scope
(conversion_operator_declaration) @local.scope

(parameter type: (_) @local.type name: (identifier) @local.definition)
(parameter name: (identifier) @local.definition)
(lambda_expression parameters: (implicit_parameter) @local.definition)
(local_declaration_statement (variable_declaration type: (implicit_type) (variable_declarator name: (identifier) @local.definition "=" . (_) @local.value)))
(local_declaration_statement (variable_declaration type: (_) @local.type (variable_declarator name: (identifier) @local.definition)) (#not-eq? @local.type "var"))
(using_statement (variable_declaration type: (implicit_type) (variable_declarator name: (identifier) @local.definition "=" . (_) @local.value)))
(using_statement (variable_declaration type: (_) @local.type (variable_declarator name: (identifier) @local.definition)) (#not-eq? @local.type "var"))
(for_statement (variable_declaration type: (_) @local.type (variable_declarator name: (identifier) @local.definition)) (#not-eq? @local.type "var"))
(foreach_statement type: (implicit_type) left: (identifier) @local.definition right: (_) @local.element)
(foreach_statement type: (_) @local.type left: (identifier) @local.definition (#not-eq? @local.type "var"))
(catch_declaration type: (_) @local.type name: (identifier) @local.definition)
(declaration_pattern type: (_) @local.type name: (identifier) @local.definition)
(declaration_expression type: (implicit_type) name: (identifier) @local.definition)
(declaration_expression type: (_) @local.type name: (identifier) @local.definition (#not-eq? @local.type "var"))

; ------------------------------------------------------------------- imports
(using_directive) @import

; ------------------------------------------------------------------ fallback
(identifier) @name @reference.identifier
