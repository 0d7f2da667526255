; mcursor extraction query for Java (tree-sitter-java 0.23).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones. Import declarations are walked in code
; (crates/syntax/src/imports.rs).

; ---------------------------------------------------------------- containers
; The package qualifies every definition of the file: the whole program is its scope.
(program (package_declaration [(scoped_identifier) (identifier)] @scope.name)) @scope.module
(class_declaration name: (identifier) @scope.name) @scope.container
(interface_declaration name: (identifier) @scope.name) @scope.container
(enum_declaration name: (identifier) @scope.name) @scope.container
(record_declaration name: (identifier) @scope.name) @scope.container
(annotation_type_declaration name: (identifier) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(class_declaration name: (identifier) @name) @definition.class
(interface_declaration name: (identifier) @name) @definition.interface
(enum_declaration name: (identifier) @name) @definition.enum
(record_declaration name: (identifier) @name) @definition.class
(annotation_type_declaration name: (identifier) @name) @definition.interface
(method_declaration name: (identifier) @name) @definition.method
(constructor_declaration name: (identifier) @name) @definition.method
(compact_constructor_declaration name: (identifier) @name) @definition.method
(annotation_type_element_declaration name: (identifier) @name) @definition.method
(enum_constant name: (identifier) @name) @definition.enum_variant
(field_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(constant_declaration declarator: (variable_declarator name: (identifier) @name)) @definition.field
(record_declaration parameters: (formal_parameters (formal_parameter name: (identifier) @name) @definition.field))

; ---------------------------------------------------------------- references
(method_invocation object: (_) @receiver name: (identifier) @name) @reference.call
(method_invocation name: (identifier) @name) @reference.call
(object_creation_expression type: (type_identifier) @name) @reference.call
(object_creation_expression type: (generic_type (type_identifier) @name)) @reference.call
(object_creation_expression type: (scoped_type_identifier (_) @qualifier (type_identifier) @name)) @reference.call
(field_access object: (_) @receiver field: (identifier) @name) @reference.field
(method_reference (_) @receiver . (identifier) @name) @reference.call
(scoped_type_identifier (_) @qualifier (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type
(marker_annotation name: (identifier) @name) @reference.type
(annotation name: (identifier) @name) @reference.type
(package_declaration) @ignore.inside

; -------------------------------------------------------------------- locals
(method_declaration) @local.scope
(constructor_declaration) @local.scope
(lambda_expression) @local.scope
(block) @local.scope
(for_statement) @local.scope
(enhanced_for_statement) @local.scope
(catch_clause) @local.scope

(formal_parameter type: (_) @local.type name: (identifier) @local.definition)
(spread_parameter (_) @local.type (variable_declarator name: (identifier) @local.definition))
(local_variable_declaration type: (type_identifier) @_var declarator: (variable_declarator name: (identifier) @local.definition value: (_) @local.value) (#eq? @_var "var"))
(local_variable_declaration type: (_) @local.type declarator: (variable_declarator name: (identifier) @local.definition) (#not-eq? @local.type "var"))
(enhanced_for_statement type: (_) @local.type name: (identifier) @local.definition)
(catch_formal_parameter (catch_type) @local.type name: (identifier) @local.definition)
(lambda_expression parameters: (identifier) @local.definition)
(lambda_expression parameters: (inferred_parameters (identifier) @local.definition))
(resource name: (identifier) @local.definition value: (_) @local.value)

; ------------------------------------------------------------------- imports
(import_declaration) @import

; ------------------------------------------------------------------ fallback
(identifier) @name @reference.identifier
