; mcursor extraction query shared by JavaScript, TypeScript and TSX.
; Capture names: see grammars/rust/tags.scm. TypeScript-only node types live in
; grammars/typescript/tags.scm, JSX ones in grammars/javascript/jsx.scm.

; ---------------------------------------------------------------- containers
(class_declaration name: (_) @scope.name) @scope.container
(class name: (_) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; Top-level variables only: a `const` inside a function is a local.
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(program (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)))

; ---------------------------------------------------------------- references
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(member_expression object: (_) @receiver property: (property_identifier) @name) @reference.field

; -------------------------------------------------------------------- locals
(statement_block) @local.scope
(function_declaration) @local.scope
(generator_function_declaration) @local.scope
(function_expression) @local.scope
(generator_function) @local.scope
(arrow_function) @local.scope
(method_definition) @local.scope
(for_statement) @local.scope
(for_in_statement) @local.scope
(catch_clause) @local.scope

(variable_declarator name: (identifier) @local.definition)
(variable_declarator name: (_ (identifier) @local.definition))
(variable_declarator name: (_ (shorthand_property_identifier_pattern) @local.definition))
(arrow_function parameter: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(for_in_statement left: (identifier) @local.definition)

; ------------------------------------------------------------------- imports
; Import and re-export statements are walked in code (crates/syntax/src/imports.rs).
(import_statement) @import
(export_statement source: (_)) @import
(export_statement value: (identifier) @export.default)
