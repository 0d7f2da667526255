; mcursor extraction query for Python (tree-sitter-python 0.25).
; Capture names: see grammars/rust/tags.scm. The first pattern that captures a node wins,
; so specific patterns come before generic ones. Import statements are walked in code
; (crates/syntax/src/imports.rs).

; ---------------------------------------------------------------- containers
(class_definition name: (identifier) @scope.name) @scope.container

; --------------------------------------------------------------- definitions
(class_definition name: (identifier) @name) @definition.class
; A property (`@property`, `@cached_property`, `@functools.cached_property`) is read as a
; field: its value is what its getter returns. Its setter stays a method.
(class_definition body: (block (decorated_definition (decorator [(identifier) @_property (attribute attribute: (identifier) @_property)]) definition: (function_definition name: (identifier) @name) @definition.field) (#any-of? @_property "property" "cached_property")))
; A `def` directly in a class body (decorated or not) is a method.
(class_definition body: (block (function_definition name: (identifier) @name) @definition.method))
(class_definition body: (block (decorated_definition definition: (function_definition name: (identifier) @name) @definition.method)))
(function_definition name: (identifier) @name) @definition.function
; Class attributes (`x = 1`, `x: int`) and the attributes `__init__` assigns to `self`.
(class_definition body: (block (expression_statement (assignment left: (identifier) @name) @definition.field)))
(class_definition body: (block (expression_statement (assignment left: (pattern_list (identifier) @name)) @definition.field)))
(function_definition name: (identifier) @_init body: (block (expression_statement (assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)) @definition.field)) (#eq? @_init "__init__") (#eq? @_self "self"))
; Module-level variables, also inside module-level `if`/`try`/`with` blocks
; (`if TYPE_CHECKING:`, `try: ... except ImportError: x = None`).
(module (expression_statement (assignment left: (identifier) @name) @definition.variable))
(module (expression_statement (assignment left: (pattern_list (identifier) @name)) @definition.variable))
(module (expression_statement (assignment left: (tuple_pattern (identifier) @name)) @definition.variable))
(module (if_statement consequence: (block (expression_statement (assignment left: (identifier) @name) @definition.variable))))
(module (if_statement alternative: (else_clause body: (block (expression_statement (assignment left: (identifier) @name) @definition.variable)))))
(module (if_statement alternative: (elif_clause consequence: (block (expression_statement (assignment left: (identifier) @name) @definition.variable)))))
(module (try_statement body: (block (expression_statement (assignment left: (identifier) @name) @definition.variable))))
(module (try_statement (except_clause (block (expression_statement (assignment left: (identifier) @name) @definition.variable)))))
(module (with_statement body: (block (expression_statement (assignment left: (identifier) @name) @definition.variable))))
(type_alias_statement left: (type (identifier) @name)) @definition.type_alias

; ---------------------------------------------------------------- references
(decorator (identifier) @name) @reference.call
(decorator (call function: (identifier) @name)) @reference.call
(call function: (identifier) @name) @reference.call
(call function: (attribute object: (_) @receiver attribute: (identifier) @name)) @reference.call
(attribute object: (_) @receiver attribute: (identifier) @name) @reference.field
(class_definition superclasses: (argument_list (identifier) @name @reference.type))
(class_definition superclasses: (argument_list (attribute object: (_) @receiver attribute: (identifier) @name) @reference.type))
(type (identifier) @name) @reference.type
(generic_type (identifier) @name) @reference.type
; A keyword argument's name is the callee's parameter, not a use of anything.
(keyword_argument name: (identifier) @ignore.inside)

; -------------------------------------------------------------------- locals
(function_definition) @local.scope
(lambda) @local.scope
(list_comprehension) @local.scope
(set_comprehension) @local.scope
(dictionary_comprehension) @local.scope
(generator_expression) @local.scope

(parameters (identifier) @local.definition)
(parameters (typed_parameter (identifier) @local.definition type: (type) @local.type))
(parameters (default_parameter name: (identifier) @local.definition value: (_) @local.value))
(parameters (typed_default_parameter name: (identifier) @local.definition type: (type) @local.type))
(parameters (list_splat_pattern (identifier) @local.definition))
(parameters (dictionary_splat_pattern (identifier) @local.definition))
(parameters (typed_parameter (list_splat_pattern (identifier) @local.definition)))
(parameters (typed_parameter (dictionary_splat_pattern (identifier) @local.definition)))
(lambda_parameters (identifier) @local.definition)
(lambda_parameters (default_parameter name: (identifier) @local.definition))
(assignment left: (identifier) @local.definition type: (type) @local.type)
(assignment left: (identifier) @local.definition right: (_) @local.value)
(assignment left: (pattern_list (identifier) @local.definition) right: (_)? @local.opaque)
(assignment left: (tuple_pattern (identifier) @local.definition) right: (_)? @local.opaque)
(augmented_assignment left: (identifier) @local.definition)
(named_expression name: (identifier) @local.definition value: (_) @local.value)
(for_statement left: (identifier) @local.definition right: (_) @local.element)
(for_statement left: (_ (identifier) @local.definition))
; A comprehension's variables are visible in its whole expression, also before their `for`.
(list_comprehension (for_in_clause left: (identifier) @local.definition right: (_) @local.element)) @local.hoisted
(list_comprehension (for_in_clause left: (_ (identifier) @local.definition))) @local.hoisted
(set_comprehension (for_in_clause left: (identifier) @local.definition right: (_) @local.element)) @local.hoisted
(set_comprehension (for_in_clause left: (_ (identifier) @local.definition))) @local.hoisted
(dictionary_comprehension (for_in_clause left: (identifier) @local.definition right: (_) @local.element)) @local.hoisted
(dictionary_comprehension (for_in_clause left: (_ (identifier) @local.definition))) @local.hoisted
(generator_expression (for_in_clause left: (identifier) @local.definition right: (_) @local.element)) @local.hoisted
(generator_expression (for_in_clause left: (_ (identifier) @local.definition))) @local.hoisted
(with_item value: (as_pattern alias: (as_pattern_target (identifier) @local.definition)))
(except_clause (as_pattern alias: (as_pattern_target (identifier) @local.definition)))
; What a function returns, for the value of a call of it (crates/syntax/src/family.rs,
; `ReturnedValues`).
(return_statement) @function.return
(yield) @function.yield
(global_statement (identifier) @ignore.inside)
(nonlocal_statement (identifier) @ignore.inside)

; ------------------------------------------------------------------- imports
(import_statement) @import
(import_from_statement) @import
(future_import_statement) @import

; ------------------------------------------------------------------ fallback
(identifier) @name @reference.identifier
