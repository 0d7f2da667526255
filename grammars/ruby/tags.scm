; mcursor extraction query for Ruby (tree-sitter-ruby 0.23). Capture names: see
; grammars/rust/tags.scm. The first pattern that captures a node wins, so specific
; patterns come before generic ones. Ruby has no import statements the resolver needs:
; `require` loads a file, and what it defines is global.
;
; A bare identifier that is no local is a method of `self` (`total`, `items`), so it is a
; call; a constant is a class, a module or a constant. Classes and modules are containers:
; their constants, classes and methods are qualified by them (`Shop::Cart::total`).

; ---------------------------------------------------------------- containers
(class name: (_) @scope.name) @scope.container
(module name: (_) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(class name: (constant) @name) @definition.class
(class name: (scope_resolution name: (constant) @name)) @definition.class
(module name: (constant) @name) @definition.module
(module name: (scope_resolution name: (constant) @name)) @definition.module
; Class methods (`def self.create`, and every `def` or attribute in `class << self`) are
; functions of their class; instance methods are methods.
(singleton_method name: (_) @name) @definition.function
(singleton_class (body_statement (method name: (_) @name) @definition.function))
(singleton_class (body_statement (call !receiver method: (identifier) @_attr arguments: (argument_list (simple_symbol) @name) (#any-of? @_attr "attr_reader" "attr_writer" "attr_accessor")) @definition.function))
(method name: (_) @name) @definition.method
(assignment left: (constant) @name) @definition.constant
; `attr_reader :items` defines the method `items` (the name drops the symbol's `:`).
(call !receiver method: (identifier) @_attr arguments: (argument_list (simple_symbol) @name) (#any-of? @_attr "attr_reader" "attr_writer" "attr_accessor")) @definition.method
; Instance variables that `initialize` assigns are the fields of the class (`@clock`).
(method name: (identifier) @_init body: (body_statement (assignment left: (instance_variable) @name) @definition.field) (#eq? @_init "initialize"))

; ---------------------------------------------------------------- references
; Calls: `x.m`, `x.m(1)`, `Cart.create`, `m(1)` (a method of `self`).
(call receiver: (_) @receiver method: (identifier) @name) @reference.call
(call receiver: (_) @receiver method: (constant) @name) @reference.call
(call !receiver method: (identifier) @name (#not-any-of? @name "require" "require_relative" "include" "extend" "prepend" "attr_reader" "attr_writer" "attr_accessor" "private" "protected" "public" "module_function")) @reference.call
; Constants: `Shop::Cart`, superclasses and mixins as types.
(superclass (constant) @name @reference.type)
(superclass (scope_resolution scope: (_) @qualifier name: (constant) @name) @reference.type)
(scope_resolution scope: (_) @qualifier name: (constant) @name) @reference.identifier
(instance_variable) @name @reference.field
(call method: (identifier) @_mixin arguments: (argument_list (constant) @name @reference.type) (#any-of? @_mixin "include" "extend" "prepend"))
(call method: (identifier) @_require (#any-of? @_require "require" "require_relative")) @ignore.inside

; -------------------------------------------------------------------- locals
; What a method returns, for the value of a call of it (crates/syntax/src/family.rs,
; `ReturnedValues`): its `return`s and its last expression.
(return) @function.return
(method body: (body_statement (_) @function.result .))
(singleton_method body: (body_statement (_) @function.result .))

(method) @local.scope
(singleton_method) @local.scope
(block) @local.scope
(do_block) @local.scope
(lambda) @local.scope
(class) @local.scope
(module) @local.scope

(method_parameters (identifier) @local.definition)
(lambda_parameters (identifier) @local.definition)
(block_parameters (identifier) @local.definition)
(optional_parameter name: (identifier) @local.definition)
(keyword_parameter name: (identifier) @local.definition)
(splat_parameter name: (identifier) @local.definition)
(hash_splat_parameter name: (identifier) @local.definition)
(block_parameter name: (identifier) @local.definition)
(destructured_parameter (identifier) @local.definition)
(assignment left: (identifier) @local.definition right: (_) @local.value)
(operator_assignment left: (identifier) @local.definition)
(assignment left: (left_assignment_list (identifier) @local.definition))
(assignment left: (left_assignment_list (rest_assignment (identifier) @local.definition)))
(exception_variable (identifier) @local.definition)
(for pattern: (identifier) @local.definition)

; ------------------------------------------------------------------ fallback
(constant) @name @reference.identifier
(identifier) @name @reference.call
