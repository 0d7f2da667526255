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
;   @local.definition   a local binding (let, parameter, closure parameter, pattern), with
;                       where its value comes from (the receiver pass reads it):
;     @local.type         its declared type
;     @local.value        its initializer
;     @local.element      the collection it iterates (`for x in xs`)
;     @local.unwrap       the value whose `Some(x)` / `Ok(x)` payload it binds
;     @local.opaque       a value it comes from in a way not read (visible only after it)
;     @local.positional   the tuple struct or variant whose positional field it binds
;     @local.callee       the function of the call a closure declaring it is passed to
;   @ignore.inside      nothing inside this node is a reference (attributes)
;   @type.parameter     a type parameter's name (where the receiver pass looks for bounds)
;   @function.return    a `return` statement, @function.yield a `yield`, and
;   @function.result    a value returned without `return` (Ruby's last expression): a
;                       function whose only returned value is one (and that yields
;                       nothing) has it as its value (crates/syntax/src/family.rs)
; The first pattern that captures a node wins, so specific patterns come before generic ones.

; ---------------------------------------------------------------- containers
(mod_item name: (identifier) @scope.name) @scope.module
(trait_item name: (type_identifier) @scope.name) @scope.container
(impl_item type: [
  (type_identifier) @scope.name
  (generic_type type: (type_identifier) @scope.name)
  (scoped_type_identifier name: (type_identifier) @scope.name)
  (generic_type type: (scoped_type_identifier name: (type_identifier) @scope.name))
  (reference_type type: (type_identifier) @scope.name)
  (reference_type type: (generic_type type: (type_identifier) @scope.name))
  (reference_type type: (scoped_type_identifier name: (type_identifier) @scope.name))
  (primitive_type) @scope.name
  (reference_type type: (primitive_type) @scope.name)
  (array_type) @scope.name
  (reference_type type: (array_type) @scope.name)
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

; Fields named in struct literals and struct patterns: members of the named type.
(struct_expression name: (_) @receiver body: (field_initializer_list (field_initializer field: (field_identifier) @name))) @reference.field
(struct_expression name: (_) @receiver body: (field_initializer_list (shorthand_field_initializer (identifier) @name))) @reference.field
(struct_pattern type: (_) @receiver (field_pattern name: (field_identifier) @name)) @reference.field
(struct_pattern type: (_) @receiver (field_pattern name: (shorthand_field_identifier) @name)) @reference.field

; Macro arguments (`format!("{}", w.get())`) are token trees, not expressions: a name
; directly followed by a parenthesized tree is a call, after `.` a method call, after `::`
; a path call.
(token_tree (_) @receiver . "." . (identifier) @name . (token_tree)) @reference.call
(token_tree (identifier) @qualifier . "::" . (identifier) @name . (token_tree)) @reference.call
(token_tree (identifier) @name . (token_tree)) @reference.call
(token_tree (identifier) @qualifier . "::" . (identifier) @name) @reference.identifier

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

; A binding becomes visible after its whole match: `let x = x(..)` uses the outer `x`.
(let_declaration pattern: (identifier) @local.definition type: (_)? @local.type value: (_)? @local.value)
(let_declaration pattern: (tuple_struct_pattern type: (identifier) @_some (identifier) @local.definition) value: (_) @local.unwrap (#any-of? @_some "Some" "Ok"))
; Names in tuple patterns are elements of what the whole pattern binds (`(k, v)`).
(let_declaration pattern: (tuple_pattern (identifier) @local.definition) value: (_) @local.value)
(let_declaration pattern: (tuple_pattern (identifier) @local.definition) type: (_) @local.type)
(let_declaration pattern: (tuple_struct_pattern type: (identifier) @_some (tuple_pattern (identifier) @local.definition)) value: (_) @local.unwrap (#any-of? @_some "Some" "Ok"))
(let_condition pattern: (tuple_struct_pattern type: (identifier) @_some (tuple_pattern (identifier) @local.definition)) value: (_) @local.unwrap (#any-of? @_some "Some" "Ok"))
(for_expression pattern: (tuple_pattern (identifier) @local.definition) value: (_) @local.element)
(for_expression pattern: (tuple_pattern (tuple_pattern (identifier) @local.definition)) value: (_) @local.element)
(call_expression function: (_) @local.callee arguments: (arguments (closure_expression parameters: (closure_parameters (tuple_pattern (identifier) @local.definition)))))
(call_expression function: (_) @local.callee arguments: (arguments (closure_expression parameters: (closure_parameters (tuple_pattern (tuple_pattern (identifier) @local.definition))))))
(match_expression value: (_) @local.unwrap body: (match_block (match_arm pattern: (match_pattern (tuple_struct_pattern type: (identifier) @_some (tuple_pattern (identifier) @local.definition))))) (#any-of? @_some "Some" "Ok"))
(let_condition pattern: (tuple_struct_pattern type: (identifier) @_some (identifier) @local.definition) value: (_) @local.unwrap (#any-of? @_some "Some" "Ok"))
(parameter pattern: (identifier) @local.definition type: (_) @local.type)
; A closure's parameters take their types from what the closure is passed to: the
; callee's declared parameter, or for standard types their element (`xs.iter().find(|a| ..)`).
(call_expression function: (_) @local.callee arguments: (arguments (closure_expression parameters: (closure_parameters (identifier) @local.definition))))
(call_expression function: (_) @local.callee arguments: (arguments (closure_expression parameters: (closure_parameters (reference_pattern (identifier) @local.definition)))))
(closure_parameters (identifier) @local.definition)
(closure_parameters (parameter pattern: (identifier) @local.definition type: (_)? @local.type))
(for_expression pattern: (identifier) @local.definition value: (_) @local.element)
(match_expression value: (_) @local.unwrap body: (match_block (match_arm pattern: (match_pattern (tuple_struct_pattern type: (identifier) @_some (identifier) @local.definition)))) (#any-of? @_some "Some" "Ok"))
(match_pattern (identifier) @local.definition)
; Names bound inside patterns. Only these positions bind: a path in a pattern
; (`Kind::V(x)`, `Kind::Unit`) names a variant or a constant, never a new local.
(tuple_struct_pattern type: (_) @local.positional (identifier) @local.definition)
(tuple_struct_pattern type: (_) @local.positional [(ref_pattern (identifier) @local.definition) (mut_pattern (identifier) @local.definition) (reference_pattern (identifier) @local.definition)])
(tuple_pattern (identifier) @local.definition)
(slice_pattern (identifier) @local.definition)
(reference_pattern (identifier) @local.definition)
(ref_pattern (identifier) @local.definition)
(mut_pattern (identifier) @local.definition)
(captured_pattern (identifier) @local.definition)
(or_pattern (identifier) @local.definition)
(field_pattern pattern: (identifier) @local.definition)
(field_pattern name: (shorthand_field_identifier) @local.definition)

; Attributes (`#[test]`, `#[derive(Debug)]`) name no item of the repository; the name of an
; associated type bound (`Iterator<Item = T>`) is the trait's, not a type in scope.
(attribute_item) @ignore.inside
(type_binding name: (_) @ignore.inside)

; ------------------------------------------------------------------- imports
; Use trees are walked in code (crates/syntax/src/imports.rs); the query only finds them.
(use_declaration) @import

; Type parameter names (only these are looked up among enclosing items' parameters).
(type_parameter name: (_) @type.parameter)
