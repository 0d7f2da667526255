; mcursor extraction query for shell scripts (tree-sitter-bash 0.25).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones. `source`/`.` commands are walked in code
; (crates/syntax/src/imports.rs).

; --------------------------------------------------------------- definitions
(function_definition name: (word) @name) @definition.function
; Global variables: assignments at the top level of the script, and `export`,
; `readonly`, `declare` there.
(program (variable_assignment name: (variable_name) @name) @definition.variable)
(program (declaration_command (variable_assignment name: (variable_name) @name) @definition.variable))

; ---------------------------------------------------------------- references
; A command's name calls a function (or a program, which no definition has).
(command name: (command_name (word) @name)) @reference.call
(simple_expansion (variable_name) @name) @reference.identifier
(expansion (variable_name) @name) @reference.identifier
; An assignment inside a function sets the global of that name (unless a `local`).
(function_definition body: (_ (variable_assignment name: (variable_name) @name) @reference.identifier))

; A variable anywhere else (in `$(( ))` arithmetic, `unset x`, `[[ -v x ]]`).
(variable_name) @name @reference.identifier

; -------------------------------------------------------------------- locals
(function_definition) @local.scope
; `local x=1`, `local x`, `declare x` in a function body; loop variables.
(declaration_command ["local" "declare" "typeset"] (variable_assignment name: (variable_name) @local.definition))
(declaration_command ["local" "declare" "typeset"] (variable_name) @local.definition)
(for_statement variable: (variable_name) @local.definition)

; ------------------------------------------------------------------- imports
(command name: (command_name (word) @_source) (#any-of? @_source "source" ".")) @import
