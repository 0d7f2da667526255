; mcursor extraction query shared by JavaScript, TypeScript and TSX.
; Capture names: see grammars/rust/tags.scm. TypeScript-only node types live in
; grammars/typescript/tags.scm, JSX ones in grammars/javascript/jsx.scm.

; ---------------------------------------------------------------- containers
(class_declaration name: (_) @scope.name) @scope.container
(class name: (_) @scope.name) @scope.container
; `X.prototype.m = function () {}` defines a method of X; `app.m = function () {}` one of
; the object `app` (CommonJS modules build their API this way).
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @scope.name property: (property_identifier) @_prototype)) right: [(function_expression) (arrow_function)]) @scope.container) (#eq? @_prototype "prototype"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @scope.name) right: [(function_expression) (arrow_function)]) @scope.container) (#not-any-of? @scope.name "exports" "module" "window" "global" "globalThis"))

; --------------------------------------------------------------- definitions
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(class_declaration name: (_) @name) @definition.class
; A getter is read as a field: its value is its declared or returned type. (Its setter
; stays a method.)
(method_definition "get" name: [(property_identifier) (private_property_identifier)] @name) @definition.field
(method_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.method

; CommonJS: `X.prototype.m = function`, `obj.m = function`, `exports.f = function`,
; `module.exports.f = ...`.
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression property: (property_identifier) @_prototype) property: (property_identifier) @name) right: [(function_expression) (arrow_function)] @definition.method)) (#eq? @_prototype "prototype"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name) right: [(function_expression) (arrow_function)] @definition.function)) (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) property: (property_identifier) @name) right: [(function_expression) (arrow_function)] @definition.function)) (#eq? @_module "module") (#eq? @_exports "exports"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_exports property: (property_identifier) @name) right: (_) @_value) @definition.variable) (#eq? @_exports "exports") (#not-match? @_value "^require\\s*\\(\\s*[\"'][^\"']*[\"']\\s*\\)(\\s*\\.\\s*[A-Za-z_$][A-Za-z0-9_$]*)?$"))
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_object property: (property_identifier) @name) right: [(function_expression) (arrow_function)] @definition.method)) (#not-any-of? @_object "exports" "module" "window" "global" "globalThis"))
; `module.exports = { f: function () {}, g }`: functions defined in the exported object.
(program (expression_statement (assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (object (pair key: (property_identifier) @name value: [(function_expression) (arrow_function)]) @definition.function))) (#eq? @_module "module") (#eq? @_exports "exports"))

; Top-level variables only: a `const` inside a function is a local. A binding of
; `require(...)` is an import (see imports below), not a definition.
(program (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (variable_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function)))
(program (lexical_declaration (variable_declarator name: (identifier) @name value: (_)? @_value) @definition.constant) (#not-match? @_value "^require\\s*\\(\\s*[\"'][^\"']*[\"']\\s*\\)(\\s*\\.\\s*[A-Za-z_$][A-Za-z0-9_$]*)?$"))
(program (variable_declaration (variable_declarator name: (identifier) @name value: (_)? @_value) @definition.variable) (#not-match? @_value "^require\\s*\\(\\s*[\"'][^\"']*[\"']\\s*\\)(\\s*\\.\\s*[A-Za-z_$][A-Za-z0-9_$]*)?$"))
(program (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)))
(program (export_statement declaration: (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable)))

; ---------------------------------------------------------------- references
(call_expression function: (identifier) @name) @reference.call
(call_expression function: (member_expression object: (_) @receiver property: [(property_identifier) (private_property_identifier)] @name)) @reference.call
(new_expression constructor: (identifier) @name) @reference.call
(new_expression constructor: (member_expression object: (_) @receiver property: (property_identifier) @name)) @reference.call
(member_expression object: (_) @receiver property: (property_identifier) @name) @reference.field

; Properties taken out of a value by destructuring (`const { a, b: c } = this`) are uses of
; the value's members.
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @name) value: (_) @receiver) @reference.field
(variable_declarator name: (object_pattern (pair_pattern key: (property_identifier) @name)) value: (_) @receiver) @reference.field

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

(variable_declarator name: (identifier) @local.definition value: (_)? @local.value)
(variable_declarator name: (object_pattern (shorthand_property_identifier_pattern) @local.definition) value: (_) @local.destructure)
(variable_declarator name: (object_pattern (object_assignment_pattern left: (shorthand_property_identifier_pattern) @local.definition)) value: (_) @local.destructure)
(variable_declarator name: (array_pattern (identifier) @local.definition) value: (_) @local.value)
(variable_declarator name: (_ (identifier) @local.definition) value: (_)? @local.opaque)
(variable_declarator name: (_ (shorthand_property_identifier_pattern) @local.definition) value: (_)? @local.opaque)
; A callback's parameters take their types from what it is passed to: the callee's
; declared parameter, or for built-in types their element (`xs.map(x => ..)`).
(call_expression function: (_) @local.callee arguments: (arguments (arrow_function parameter: (identifier) @local.definition)))
(new_expression constructor: (_) @local.constructed arguments: (arguments (arrow_function parameter: (identifier) @local.definition)))
(arrow_function parameter: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(for_in_statement left: (identifier) @local.definition operator: "of" right: (_) @local.element)
(for_in_statement left: (identifier) @local.definition)

; What a function returns, for the value of a call of it (crates/syntax/src/family.rs,
; `ReturnedValues`).
(return_statement) @function.return
(yield_expression) @function.yield

; A function expression's own name is a binding inside it, not a use.
(function_expression name: (identifier) @ignore.inside)

; ------------------------------------------------------------------- imports
; Import and re-export statements are walked in code (crates/syntax/src/imports.rs).
(import_statement) @import
(export_statement source: (_)) @import
(export_statement value: (identifier) @export.default)
; CommonJS: `const x = require('./x')`, `const { a } = require('./x')`,
; `const a = require('./x').a`; `module.exports = X` names the default export.
(variable_declarator value: (call_expression function: (identifier) @_require arguments: (arguments . (string))) (#eq? @_require "require")) @import
(variable_declarator value: (member_expression object: (call_expression function: (identifier) @_require arguments: (arguments . (string))) property: (property_identifier)) (#eq? @_require "require")) @import
(assignment_expression left: (member_expression object: (identifier) @_module property: (property_identifier) @_exports) right: (identifier) @export.default (#eq? @_module "module") (#eq? @_exports "exports"))
