; mcursor extraction query for C (tree-sitter-c 0.24).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones.
;
; C has no modules: every file-scope name is a top-level definition. Structs and unions
; qualify their fields (`cart.items`); enumerators are file-scope constants, not members
; of their enum. What crosses files is written as imports, walked in code
; (crates/syntax/src/imports.rs): an `#include` (its path) and a declaration of a name
; defined elsewhere (a prototype's or an `extern` variable's name), which the resolver
; ties to the definition.

; ---------------------------------------------------------------- containers
(struct_specifier name: (type_identifier) @scope.name body: (field_declaration_list)) @scope.container
(union_specifier name: (type_identifier) @scope.name body: (field_declaration_list)) @scope.container
; `typedef struct { ... } cart_t;`: the fields are members of `cart_t`.
(type_definition type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_))] declarator: (type_identifier) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(preproc_def name: (identifier) @name) @definition.macro
(preproc_function_def name: (identifier) @name) @definition.macro
; An export macro before the return type (`LUA_API lua_Unsigned lua_rawlen (...) {`) makes
; the grammar read the return type as the name and the name as an error; this pattern
; comes first so the name wins.
(function_definition declarator: [
  (function_declarator declarator: (identifier) . (ERROR . (identifier) @name .) . parameters: (parameter_list))
  (pointer_declarator declarator: (function_declarator declarator: (identifier) . (ERROR . (identifier) @name .) . parameters: (parameter_list)))
]) @definition.function
; A function returning a pointer has its name one or two pointer declarators down; a name
; in parentheses (`int (lua_gettop) (lua_State *L)`) keeps macros of the same name away.
((function_definition declarator: [
  (function_declarator declarator: (identifier) @name . parameters: (parameter_list))
  (function_declarator declarator: (parenthesized_declarator (identifier) @name))
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @name . parameters: (parameter_list)))
  (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (identifier) @name)))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @name . parameters: (parameter_list))))
]) @definition.function
  ; `#ifdef GZIP` between `}` and `else if (...) {` reads as a function named `if`.
  (#not-any-of? @name "if" "while" "for" "switch" "return" "else" "do" "sizeof"))
(struct_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(union_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.struct
(enum_specifier name: (type_identifier) @name body: (enumerator_list)) @definition.enum
(enumerator name: (identifier) @name) @definition.enum_variant
; An anonymous struct named by its typedef is that struct.
(type_definition type: [(struct_specifier !name body: (_)) (union_specifier !name body: (_))] declarator: (type_identifier) @name) @definition.struct
; A declarator nests pointers, arrays and parentheses around the name (`typedef void *
; (*lua_Alloc) (...)` is a pointer to a function returning a pointer); only names are
; type identifiers or field identifiers there, so any declarator node may lead to it.
(type_definition declarator: [
  (type_identifier) @name
  (_ declarator: (type_identifier) @name)
  (_ declarator: (_ declarator: (type_identifier) @name))
  (_ declarator: (_ declarator: (_ declarator: (type_identifier) @name)))
  (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name)))
  (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (type_identifier) @name))))
]) @definition.type_alias
(field_declaration declarator: [
  (field_identifier) @name
  (_ declarator: (field_identifier) @name)
  (_ declarator: (_ declarator: (field_identifier) @name))
  (_ declarator: (_ declarator: (_ declarator: (field_identifier) @name)))
  (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name)))
  (_ declarator: (_ declarator: (parenthesized_declarator (_ declarator: (field_identifier) @name))))
]) @definition.field
; File-scope variables (not `extern` declarations, which are imports), at the top level or
; in conditional compilation at any depth there; a declaration in a function is a local.
; An export macro before the type can push the name into an error node, as in functions.
((declaration (storage_class_specifier)? @_storage declarator: [
  (identifier) @name
  (pointer_declarator declarator: (identifier) @name)
  (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
  (array_declarator declarator: (array_declarator declarator: (identifier) @name))
  (array_declarator declarator: (identifier) @name . size: (_))
  (array_declarator declarator: (identifier) @name . "]")
  (array_declarator declarator: (identifier) . (ERROR . (identifier) @name .))
  (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
  (init_declarator declarator: (identifier) @name . value: (_))
  (init_declarator declarator: [
    (pointer_declarator declarator: (identifier) @name)
    (pointer_declarator declarator: (array_declarator declarator: (identifier) @name))
    (array_declarator declarator: (array_declarator declarator: (identifier) @name))
    (array_declarator declarator: (identifier) @name . size: (_))
    (array_declarator declarator: (identifier) @name . "]")
    (array_declarator declarator: (identifier) . (ERROR . (identifier) @name .))
    (function_declarator declarator: (parenthesized_declarator (pointer_declarator declarator: (identifier) @name)))
  ])
  (init_declarator declarator: (identifier) . (ERROR . (identifier) @name .))
] ";" @_end) @definition.variable
  (#not-eq? @_storage "extern")
  ; `ZEXTERN int ZEXPORT deflate (...);` reads as `ZEXTERN int` with a missing `;` (an
  ; empty node) and more: a declaration the grammar had to complete names nothing.
  (#not-eq? @_end "")
  (#set! definition.file_scope))

; ------------------------------------------------------------------- imports
(preproc_include path: (_) @import)
; A prototype declares a function defined elsewhere; only its name is the import, so the
; types in its parameter list stay references.
(declaration declarator: [
  (function_declarator declarator: (identifier) @import)
  (function_declarator declarator: (parenthesized_declarator (identifier) @import))
  (pointer_declarator declarator: (function_declarator declarator: (identifier) @import))
  (pointer_declarator declarator: (function_declarator declarator: (parenthesized_declarator (identifier) @import)))
  (pointer_declarator declarator: (pointer_declarator declarator: (function_declarator declarator: (identifier) @import)))
])
; `LUALIB_API void (luaL_addgsub) (...)`: the export macro makes the grammar read a call
; of `void` with the name as its one parameter type.
(declaration declarator: (function_declarator declarator: (function_declarator
  declarator: (identifier)
  parameters: (parameter_list . (parameter_declaration type: (type_identifier) @import !declarator) .))))
(declaration (storage_class_specifier) @_storage declarator: [
  (identifier) @import
  (pointer_declarator declarator: (identifier) @import)
  (array_declarator declarator: (identifier) @import)
] (#eq? @_storage "extern"))

; ---------------------------------------------------------------- references
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (field_identifier) @name)) @reference.call
(field_expression argument: (_) @receiver field: (field_identifier) @name) @reference.field
(type_identifier) @name @reference.type
(preproc_params) @ignore.inside
(labeled_statement label: (statement_identifier) @ignore.inside)

; -------------------------------------------------------------------- locals
(function_definition) @local.scope
; A function body the grammar could not read (macros that look like statements) is an
; error node: its declarations are locals still, not file-scope variables.
(ERROR) @local.scope
(compound_statement) @local.scope
(for_statement) @local.scope

(parameter_declaration type: (_) @local.type declarator: [
  (identifier) @local.definition
  (pointer_declarator declarator: (identifier) @local.definition)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
  (array_declarator declarator: (identifier) @local.definition)
])
; (C++'s `auto x = ...` takes the value's type: grammars/cpp/tags.scm.)
((declaration type: (_) @local.type declarator: [
  (identifier) @local.definition
  (init_declarator declarator: (identifier) @local.definition)
  (pointer_declarator declarator: (identifier) @local.definition)
  (pointer_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
  (array_declarator declarator: (identifier) @local.definition)
  (init_declarator declarator: (pointer_declarator declarator: (identifier) @local.definition))
  (init_declarator declarator: (array_declarator declarator: (identifier) @local.definition))
]) (#not-eq? @local.type "auto"))

; ------------------------------------------------------------------ fallback
(identifier) @name @reference.identifier
