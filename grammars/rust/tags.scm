; mcursor extraction query for Rust (tree-sitter-rust 0.24).
;
; Capture names are the contract with crates/syntax:
;   @definition.<kind>  the whole definition node; <kind> is a SymbolKind word
;   @name               the defined (or referenced) identifier inside the pattern
;   @reference.<kind>   a use of a name; <kind> is a RefKind word
;   @qualifier          the path before a referenced name (`Foo` in `Foo::new`)
;   @receiver           the value before a referenced member (`self` in `self.run()`)
;   @scope.container    a node whose name qualifies the definitions inside it
;   @scope.name         that container's name
;   @local.scope        a node that opens a scope for local bindings
;   @local.definition   a local binding (let, parameter, closure parameter, pattern)
; The first pattern that captures a node wins, so specific patterns come before generic ones.

; ---------------------------------------------------------------- containers
(mod_item name: (identifier) @scope.name) @scope.module
(trait_item name: (type_identifier) @scope.name) @scope.container
(impl_item type: [
  (type_identifier) @scope.name
  (generic_type type: (type_identifier) @scope.name)
  (scoped_type_identifier name: (type_identifier) @scope.name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @scope.name))
]) @scope.container
(enum_item name: (type_identifier) @scope.name) @scope.container
(struct_item name: (type_identifier) @scope.name) @scope.container
(union_item name: (type_identifier) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(impl_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_item name: (identifier) @name) @definition.method))
(trait_item body: (declaration_list (function_signature_item name: (identifier) @name) @definition.method))
(function_item name: (identifier) @name) @definition.function
(function_signature_item name: (identifier) @name) @definition.function
(struct_item name: (type_identifier) @name) @definition.struct
(union_item name: (type_identifier) @name) @definition.struct
(enum_item name: (type_identifier) @name) @definition.enum
(enum_variant name: (identifier) @name) @definition.enum_variant
(trait_item name: (type_identifier) @name) @definition.trait
(type_item name: (type_identifier) @name) @definition.type_alias
(associated_type name: (type_identifier) @name) @definition.type_alias
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.static
(mod_item name: (identifier) @name) @definition.module
(macro_definition name: (identifier) @name) @definition.macro
(field_declaration name: (field_identifier) @name) @definition.field

; ---------------------------------------------------------------- references
(macro_invocation macro: (identifier) @name) @reference.macro
(macro_invocation macro: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.macro

(call_expression function: (identifier) @name) @reference.call
(call_expression function: (scoped_identifier path: (_) @qualifier name: (identifier) @name)) @reference.call
(call_expression function: (field_expression value: (_) @receiver field: (field_identifier) @name)) @reference.call
(call_expression function: (generic_function function: (identifier) @name)) @reference.call
(call_expression function: (generic_function function: (scoped_identifier path: (_) @qualifier name: (identifier) @name))) @reference.call
(call_expression function: (generic_function function: (field_expression value: (_) @receiver field: (field_identifier) @name))) @reference.call

; Macro arguments (`format!("{}", w.get())`) are token trees, not expressions: a name
; directly followed by a parenthesized tree is a call, after `.` a method call, after `::`
; a path call.
(token_tree (_) @receiver . "." . (identifier) @name . (token_tree)) @reference.call
(token_tree (identifier) @qualifier . "::" . (identifier) @name . (token_tree)) @reference.call
(token_tree (identifier) @name . (token_tree)) @reference.call

(struct_expression name: (type_identifier) @name) @reference.type
(struct_expression name: (scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name)) @reference.type
(scoped_type_identifier path: (_) @qualifier name: (type_identifier) @name) @reference.type
(type_identifier) @name @reference.type

(scoped_identifier path: (_) @qualifier name: (identifier) @name) @reference.identifier
(field_expression value: (_) @receiver field: (field_identifier) @name) @reference.field
(field_initializer field: (field_identifier) @name) @reference.field
(shorthand_field_initializer (identifier) @name) @reference.identifier
(identifier) @name @reference.identifier

; -------------------------------------------------------------------- locals
(block) @local.scope
(function_item) @local.scope
(closure_expression) @local.scope
(match_arm) @local.scope
(for_expression) @local.scope
(if_expression) @local.scope
(while_expression) @local.scope

(let_declaration pattern: (identifier) @local.definition)
(let_declaration pattern: (_ (identifier) @local.definition))
(let_declaration pattern: (_ (_ (identifier) @local.definition)))
(let_condition pattern: (_ (identifier) @local.definition))
(parameter pattern: (identifier) @local.definition)
(parameter pattern: (_ (identifier) @local.definition))
(closure_parameters (identifier) @local.definition)
(closure_parameters (parameter pattern: (identifier) @local.definition))
(for_expression pattern: (identifier) @local.definition)
(for_expression pattern: (_ (identifier) @local.definition))
(match_pattern (identifier) @local.definition)
(match_pattern (_ (identifier) @local.definition))
(tuple_struct_pattern (identifier) @local.definition)
(field_pattern pattern: (identifier) @local.definition)
(field_pattern (shorthand_field_identifier) @local.definition)

; ------------------------------------------------------------------- imports
; Use trees are walked in code (crates/syntax/src/imports.rs); the query only finds them.
(use_declaration) @import
