; mcursor extraction query for Kotlin (tree-sitter-kotlin-ng 1.1).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones. Imports are walked in code
; (crates/syntax/src/imports.rs). The grammar names few fields: a definition's type and
; value are captured here (@declared.type, @declared.value), by position.

; ---------------------------------------------------------------- containers
; The package qualifies every definition of the file: the whole file is its scope.
(source_file (package_header (qualified_identifier) @scope.name)) @scope.module
(class_declaration name: (identifier) @scope.name) @scope.container
(object_declaration name: (identifier) @scope.name) @scope.container
; A companion object is not a scope: its members are its class's (`Cart.empty()`).
; An anonymous object (`object : Runnable { override fun run() }`) is one, named by its
; keyword: its members are no members of the class it is written in.
(object_literal "object" @scope.name) @scope.container
; An extension function (`fun Cart.total()`) is a member of its receiver's type: the
; declaration is both the container and the function's definition node.
(function_declaration (user_type . (identifier) @scope.name) . name: (identifier)) @scope.receiver

; --------------------------------------------------------------- definitions
(class_declaration "interface" name: (identifier) @name) @definition.interface
(class_declaration (modifiers (class_modifier) @_enum) name: (identifier) @name (#eq? @_enum "enum")) @definition.enum
(class_declaration name: (identifier) @name) @definition.class
(object_declaration name: (identifier) @name) @definition.class
(enum_entry . (identifier) @name) @definition.enum_variant
(type_alias type: (identifier) @name) @definition.type_alias

; Functions in a class, object, companion object or enum body are methods; the return
; type follows the parameters.
(class_body (function_declaration name: (identifier) @name (function_value_parameters) . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @declared.type) @definition.method)
(enum_class_body (function_declaration name: (identifier) @name (function_value_parameters) . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @declared.type) @definition.method)
; A function whose body is an expression (`fun make() = Session()`) without a declared
; type has that expression's value.
(class_body (function_declaration name: (identifier) @name (function_body (expression) @declared.value)) @definition.method)
(enum_class_body (function_declaration name: (identifier) @name (function_body (expression) @declared.value)) @definition.method)
(class_body (function_declaration name: (identifier) @name) @definition.method)
(enum_class_body (function_declaration name: (identifier) @name) @definition.method)
(function_declaration name: (identifier) @name (function_value_parameters) . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @declared.type) @definition.function
(function_declaration name: (identifier) @name (function_body (expression) @declared.value)) @definition.function
(function_declaration name: (identifier) @name) @definition.function

; Properties of a class or object, and constructor parameters declared `val`/`var`.
(class_body (property_declaration (variable_declaration (identifier) @name . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @declared.type)) @definition.field)
(enum_class_body (property_declaration (variable_declaration (identifier) @name . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @declared.type)) @definition.field)
(class_body (property_declaration (variable_declaration (identifier) @name) . (_) @declared.value) @definition.field)
(enum_class_body (property_declaration (variable_declaration (identifier) @name) . (_) @declared.value) @definition.field)
(class_body (property_declaration (variable_declaration (identifier) @name)) @definition.field)
(enum_class_body (property_declaration (variable_declaration (identifier) @name)) @definition.field)
(class_parameter ["val" "var"] (identifier) @name . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @declared.type) @definition.field

; Top-level properties (`const val` ones are constants).
(source_file (property_declaration (modifiers (property_modifier) @_const) (variable_declaration (identifier) @name) (#eq? @_const "const")) @definition.constant)
(source_file (property_declaration (variable_declaration (identifier) @name . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)] @declared.type)) @definition.variable)
(source_file (property_declaration (variable_declaration (identifier) @name) . (_) @declared.value) @definition.variable)
(source_file (property_declaration (variable_declaration (identifier) @name)) @definition.variable)

; ---------------------------------------------------------------- references
(call_expression . (navigation_expression (_) @receiver . (identifier) @name .)) @reference.call
(call_expression . (identifier) @name) @reference.call
(navigation_expression (_) @receiver . (identifier) @name .) @reference.field
(callable_reference (_) @receiver . (identifier) @name .) @reference.call
(callable_reference . (identifier) @name .) @reference.call
(user_type (identifier) @qualifier . (identifier) @name) @reference.type
(user_type . (identifier) @name) @reference.type
(annotation (user_type . (identifier) @name)) @reference.type
(annotation (constructor_invocation (user_type . (identifier) @name))) @reference.type
; A named argument's name (`f(count = 1)`) names a parameter, not a value.
(value_argument (identifier) @ignore.inside "=")
; A constructor parameter's name declares it (a `val`/`var` one is a property above).
(class_parameter (identifier) @ignore.inside . [(user_type) (nullable_type) (function_type) (parenthesized_type) (non_nullable_type)])
(package_header) @ignore.inside
(label) @ignore.inside

; -------------------------------------------------------------------- locals
(function_declaration) @local.scope
(secondary_constructor) @local.scope
(lambda_literal) @local.scope
(anonymous_function) @local.scope
(block) @local.scope
(for_statement) @local.scope
(catch_block) @local.scope

(parameter (identifier) @local.definition . (_) @local.type)
(block (property_declaration (variable_declaration (identifier) @local.definition . (_) @local.type)))
(lambda_literal (property_declaration (variable_declaration (identifier) @local.definition . (_) @local.type)))
(block (property_declaration (variable_declaration (identifier) @local.definition) . (_) @local.value))
(lambda_literal (property_declaration (variable_declaration (identifier) @local.definition) . (_) @local.value))
(block (property_declaration (variable_declaration (identifier) @local.definition)))
(lambda_literal (property_declaration (variable_declaration (identifier) @local.definition)))
(block (property_declaration (multi_variable_declaration (variable_declaration (identifier) @local.definition)) . (_) @local.opaque))
(lambda_literal (property_declaration (multi_variable_declaration (variable_declaration (identifier) @local.definition)) . (_) @local.opaque))
(for_statement (variable_declaration (identifier) @local.definition) . (_) @local.element)
(for_statement (multi_variable_declaration (variable_declaration (identifier) @local.definition)))
(lambda_parameters (variable_declaration (identifier) @local.definition . (_) @local.type))
(lambda_parameters (variable_declaration (identifier) @local.definition))
(catch_block (identifier) @local.definition . (_) @local.type)

; ------------------------------------------------------------------- imports
(import) @import

; ------------------------------------------------------------------ fallback
; `null`, `true`, `false` and a lambda's `it` are no names of the repository's.
((identifier) @name @reference.identifier (#not-any-of? @name "null" "true" "false" "it"))
