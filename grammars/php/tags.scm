; mcursor extraction query for PHP (tree-sitter-php 0.25, LANGUAGE_PHP: HTML around
; `<?php ... ?>` is text). Capture names: see grammars/rust/tags.scm. The first pattern that
; captures a node wins, so specific patterns come before generic ones. `use` declarations
; are walked in code (crates/syntax/src/imports.rs).
;
; Variables (`$x`) are never references: they are locals, parameters or properties reached
; through `->`. A property is defined and used by its name without the `$` (`$this->name`
; uses `private $name`), the way `->` writes it; a static property (`self::$count`) too.

; ---------------------------------------------------------------- containers
; `namespace A\B;` qualifies every definition of the file after it; `namespace A\B { }`
; the definitions inside its block.
(program (namespace_definition name: (_) @scope.name !body)) @scope.module
(namespace_definition name: (_) @scope.name body: (_)) @scope.module
(class_declaration name: (name) @scope.name) @scope.container
(interface_declaration name: (name) @scope.name) @scope.container
(trait_declaration name: (name) @scope.name) @scope.container
(enum_declaration name: (name) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(class_declaration name: (name) @name) @definition.class
(interface_declaration name: (name) @name) @definition.interface
(trait_declaration name: (name) @name) @definition.trait
(enum_declaration name: (name) @name) @definition.enum
(enum_case name: (name) @name) @definition.enum_variant
(method_declaration name: (name) @name) @definition.method
(function_definition name: (name) @name) @definition.function
(property_declaration (property_element name: (variable_name (name) @name))) @definition.field
; Constructor promotion (`public function __construct(private Clock $clock)`) declares a
; property of the class.
(property_promotion_parameter name: (variable_name (name) @name)) @definition.field
(const_declaration (const_element (name) @name) @definition.constant)

; ---------------------------------------------------------------- references
; Calls: `f()`, `A\f()`, `$x->m()`, `$x?->m()`, `A::m()`, `self::m()`, `new A()`.
(function_call_expression function: (name) @name) @reference.call
(function_call_expression function: (qualified_name prefix: (namespace_name) @qualifier (name) @name)) @reference.call
(function_call_expression function: (qualified_name (name) @name)) @reference.call
(member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(nullsafe_member_call_expression object: (_) @receiver name: (name) @name) @reference.call
(scoped_call_expression scope: (variable_name) @receiver name: (name) @name) @reference.call
(scoped_call_expression scope: (qualified_name) @qualifier name: (name) @name) @reference.call
(scoped_call_expression scope: [(name) (relative_scope)] @qualifier name: (name) @name) @reference.call
(object_creation_expression (name) @name (#not-any-of? @name "static" "self" "parent")) @reference.call
(object_creation_expression (qualified_name prefix: (namespace_name) @qualifier (name) @name)) @reference.call
(object_creation_expression (qualified_name (name) @name)) @reference.call
; Members that are not called: properties, class constants, enum cases.
(member_access_expression object: (_) @receiver name: (name) @name) @reference.field
(nullsafe_member_access_expression object: (_) @receiver name: (name) @name) @reference.field
(scoped_property_access_expression scope: (variable_name) @receiver name: (variable_name (name) @name)) @reference.field
(scoped_property_access_expression scope: (_) @qualifier name: (variable_name (name) @name)) @reference.field
; `A::X`, `self::X`, `Status::Active` (`A::class` names the class, not a member).
(class_constant_access_expression (variable_name) @receiver (name) @name . (#not-eq? @name "class")) @reference.field
(class_constant_access_expression . (_) @qualifier (name) @name . (#not-eq? @name "class")) @reference.field
; Names in type positions: declared types, `extends`, `implements`, `use Trait;`,
; `instanceof`, `catch`, attributes, and the class of a static member (`User::find()`).
(scoped_call_expression scope: (name) @name @reference.type)
(scoped_call_expression scope: (qualified_name prefix: (namespace_name) @qualifier (name) @name) @reference.type)
(scoped_call_expression scope: (qualified_name (name) @name) @reference.type)
(scoped_property_access_expression scope: (name) @name @reference.type)
(class_constant_access_expression . (name) @name @reference.type)
(class_constant_access_expression . (qualified_name prefix: (namespace_name) @qualifier (name) @name) @reference.type)
(named_type (name) @name) @reference.type
(named_type (qualified_name prefix: (namespace_name) @qualifier (name) @name)) @reference.type
(named_type (qualified_name (name) @name)) @reference.type
(base_clause (name) @name @reference.type)
(base_clause (qualified_name prefix: (namespace_name) @qualifier (name) @name) @reference.type)
(base_clause (qualified_name (name) @name) @reference.type)
(class_interface_clause (name) @name @reference.type)
(class_interface_clause (qualified_name prefix: (namespace_name) @qualifier (name) @name) @reference.type)
(class_interface_clause (qualified_name (name) @name) @reference.type)
(use_declaration (name) @name @reference.type)
(use_declaration (qualified_name prefix: (namespace_name) @qualifier (name) @name) @reference.type)
(use_declaration (qualified_name (name) @name) @reference.type)
(binary_expression operator: "instanceof" right: (name) @name @reference.type)
(binary_expression operator: "instanceof" right: (qualified_name prefix: (namespace_name) @qualifier (name) @name) @reference.type)
(binary_expression operator: "instanceof" right: (qualified_name (name) @name) @reference.type)
(type_list (named_type (name) @name) @reference.type)
(attribute (name) @name @reference.type)
(attribute (qualified_name prefix: (namespace_name) @qualifier (name) @name) @reference.type)
(attribute (qualified_name (name) @name) @reference.type)
(namespace_use_declaration) @ignore.inside
(namespace_definition name: (_) @ignore.inside)
(relative_scope) @ignore.inside
(named_type (name) @_builtin (#any-of? @_builtin "self" "static" "parent")) @ignore.inside

; -------------------------------------------------------------------- locals
; What a function returns, for the value of a call of it (crates/syntax/src/family.rs,
; `ReturnedValues`).
(return_statement) @function.return
(yield_expression) @function.yield

; PHP variables live for the whole function (blocks are no scopes); top-level code is the
; file's scope.
(function_definition) @local.scope
(method_declaration) @local.scope
(anonymous_function) @local.scope
(arrow_function) @local.scope

(simple_parameter type: (_) @local.type name: (variable_name) @local.definition)
(simple_parameter name: (variable_name) @local.definition)
(property_promotion_parameter type: (_) @local.type name: (variable_name) @local.definition)
(property_promotion_parameter name: (variable_name) @local.definition)
(variadic_parameter name: (variable_name) @local.definition)
(assignment_expression left: (variable_name) @local.definition right: (_) @local.value)
(foreach_statement . (_) @local.element . (variable_name) @local.definition)
(foreach_statement . (_) @local.element . (pair (_) . (variable_name) @local.definition))
(foreach_statement (pair . (variable_name) @local.definition))
(catch_clause type: (type_list . (named_type) @local.type) name: (variable_name) @local.definition)
(anonymous_function_use_clause (variable_name) @local.definition)

; ------------------------------------------------------------------- imports
(namespace_use_declaration) @import

; ------------------------------------------------------------------ fallback
; A bare name where an expression goes is a constant (`LIMIT`, `PHP_EOL`); the supertype
; pattern leaves out the `name` inside `$x` and every declaration's name.
(primary_expression/name) @name @reference.identifier
