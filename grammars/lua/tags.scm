; mcursor extraction query for Lua (tree-sitter-lua 0.5).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones. `require` calls are walked in code
; (crates/syntax/src/imports.rs).

; ---------------------------------------------------------------- containers
; `function M.add()` and `function M:run()` define members of the table `M`: the
; declaration is both the container and the function's definition node.
(function_declaration name: (dot_index_expression table: (identifier) @scope.name)) @scope.receiver
(function_declaration name: (method_index_expression table: (identifier) @scope.name)) @scope.receiver
(chunk (assignment_statement (variable_list name: (dot_index_expression table: (identifier) @scope.name)) (expression_list value: (function_definition))) @scope.receiver)

; --------------------------------------------------------------- definitions
(function_declaration name: (method_index_expression method: (identifier) @name)) @definition.method
(function_declaration name: (dot_index_expression field: (identifier) @name)) @definition.function
(function_declaration name: (identifier) @name) @definition.function
; Functions assigned: `local f = function() end`, `M.add = function(a, b) end` (a
; member of `M` at the top level), `f = function() end`, and a table constructor's
; `{ __call = function() end }`.
(variable_declaration (assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition)))) @definition.function
(assignment_statement (variable_list name: (dot_index_expression field: (identifier) @name)) (expression_list value: (function_definition))) @definition.function
(assignment_statement (variable_list name: (identifier) @name) (expression_list value: (function_definition))) @definition.function
(field name: (identifier) @name value: (function_definition)) @definition.function

; ---------------------------------------------------------------- references
(function_call name: (method_index_expression table: (_) @receiver method: (identifier) @name)) @reference.call
(function_call name: (dot_index_expression table: (_) @receiver field: (identifier) @name)) @reference.call
(function_call name: (identifier) @name) @reference.call
(dot_index_expression table: (_) @receiver field: (identifier) @name) @reference.field
; A table constructor's keys (`{ name = 1 }`) name no variable.
(field name: (identifier) @ignore.inside)

; -------------------------------------------------------------------- locals
(function_declaration) @local.scope
(function_definition) @local.scope
(for_statement) @local.scope
(parameters name: (identifier) @local.definition)
(for_generic_clause (variable_list name: (identifier) @local.definition))
(for_numeric_clause name: (identifier) @local.definition)
; `local x = ...`, in a function or at the top level (a file's locals: `local M = {}`,
; `local utils = require("pl.utils")`, whose members are resolved by that name).
(block (variable_declaration (assignment_statement (variable_list name: (identifier) @local.definition))))
(chunk (variable_declaration (assignment_statement (variable_list name: (identifier) @local.definition))))
(block (variable_declaration (variable_list name: (identifier) @local.definition)))
(chunk (variable_declaration (variable_list name: (identifier) @local.definition)))

; ------------------------------------------------------------------- imports
(function_call name: (identifier) @_require (#eq? @_require "require")) @import

; ------------------------------------------------------------------ fallback
((identifier) @name @reference.identifier (#not-any-of? @name "self" "_"))
