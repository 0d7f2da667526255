; mcursor extraction query for Go (tree-sitter-go 0.25).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones. Import specs are walked in code
; (crates/syntax/src/imports.rs).

; ---------------------------------------------------------------- containers
(type_spec name: (type_identifier) @scope.name type: [(struct_type) (interface_type)]) @scope.container
; `func (s *Server) Run()`: the method is a member of its receiver's type. The declaration
; is both the container and the method's definition node.
(method_declaration receiver: (parameter_list (parameter_declaration type: [
  (type_identifier) @scope.name
  (pointer_type (type_identifier) @scope.name)
  (generic_type type: (type_identifier) @scope.name)
  (pointer_type (generic_type type: (type_identifier) @scope.name))
]))) @scope.receiver

; --------------------------------------------------------------- definitions
(method_declaration name: (field_identifier) @name) @definition.method
(function_declaration name: (identifier) @name) @definition.function
(type_spec name: (type_identifier) @name type: (struct_type)) @definition.struct
(type_spec name: (type_identifier) @name type: (interface_type)) @definition.interface
(type_spec name: (type_identifier) @name) @definition.type_alias
(type_alias name: (type_identifier) @name) @definition.type_alias
(field_declaration name: (field_identifier) @name) @definition.field
(method_elem name: (field_identifier) @name) @definition.method
(source_file (const_declaration (const_spec name: (identifier) @name) @definition.constant) (#not-eq? @name "_"))
(source_file (var_declaration (var_spec name: (identifier) @name) @definition.variable) (#not-eq? @name "_"))
(source_file (var_declaration (var_spec_list (var_spec name: (identifier) @name) @definition.variable)) (#not-eq? @name "_"))

; ---------------------------------------------------------------- references
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (selector_expression operand: (_) @receiver field: (field_identifier) @name)) @reference.call
(selector_expression operand: (_) @receiver field: (field_identifier) @name) @reference.field
(qualified_type package: (package_identifier) @qualifier name: (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type
; A struct literal's keys (`Server{name: n}`) name the type's fields.
(composite_literal type: (_) @receiver body: (literal_value (keyed_element key: (literal_element (identifier) @name)))) @reference.field
(labeled_statement label: (label_name) @ignore.inside)

; -------------------------------------------------------------------- locals
(function_declaration) @local.scope
(method_declaration) @local.scope
(func_literal) @local.scope
(block) @local.scope
(for_statement) @local.scope
(if_statement) @local.scope
(type_switch_statement) @local.scope

(parameter_declaration name: (identifier) @local.definition type: (_) @local.type)
(variadic_parameter_declaration name: (identifier) @local.definition type: (_) @local.type)
(short_var_declaration left: (expression_list . (identifier) @local.definition .) right: (expression_list . (_) @local.value .))
(short_var_declaration left: (expression_list (identifier) @local.definition) right: (_) @local.opaque)
(var_spec name: (identifier) @local.definition type: (_) @local.type)
(var_spec name: (identifier) @local.definition value: (expression_list . (_) @local.value .))
(var_spec name: (identifier) @local.definition)
(const_spec name: (identifier) @local.definition)
(range_clause left: (expression_list (identifier) @local.definition) right: (_) @local.opaque)
(type_switch_statement alias: (expression_list (identifier) @local.definition))

; ------------------------------------------------------------------- imports
(import_declaration) @import
(package_clause) @ignore.inside

; ------------------------------------------------------------------ fallback
(identifier) @name @reference.identifier
