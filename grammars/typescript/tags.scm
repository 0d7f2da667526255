; TypeScript-only extraction patterns, appended to grammars/javascript/tags.scm for
; TypeScript and TSX.

(interface_declaration name: (type_identifier) @scope.name) @scope.container
(abstract_class_declaration name: (type_identifier) @scope.name) @scope.container
(internal_module name: [(identifier) (nested_identifier)] @scope.name) @scope.module
(module name: [(identifier) (nested_identifier)] @scope.name) @scope.module
(enum_declaration name: (identifier) @scope.name) @scope.container

(interface_declaration name: (type_identifier) @name) @definition.interface
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(type_alias_declaration name: (type_identifier) @name) @definition.type_alias
(enum_declaration name: (identifier) @name) @definition.enum
(enum_body (property_identifier) @name @definition.enum_variant)
(enum_body (enum_assignment name: (property_identifier) @name) @definition.enum_variant)
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.module
(module name: [(identifier) (nested_identifier)] @name) @definition.module
(function_signature name: (identifier) @name) @definition.function
(interface_body (method_signature name: (property_identifier) @name) @definition.method)
; `declare class C { m(): void; }`: methods without bodies.
(class_body (method_signature name: (property_identifier) @name) @definition.method)
; Constructor parameter properties: `constructor(private x: T, readonly y: U)`.
(method_definition name: (property_identifier) @_constructor parameters: (formal_parameters (required_parameter (accessibility_modifier) pattern: (identifier) @name) @definition.field) (#eq? @_constructor "constructor"))
(method_definition name: (property_identifier) @_constructor parameters: (formal_parameters (optional_parameter (accessibility_modifier) pattern: (identifier) @name) @definition.field) (#eq? @_constructor "constructor"))
(method_definition name: (property_identifier) @_constructor parameters: (formal_parameters (required_parameter "readonly" pattern: (identifier) @name) @definition.field) (#eq? @_constructor "constructor"))
(method_definition name: (property_identifier) @_constructor parameters: (formal_parameters (optional_parameter "readonly" pattern: (identifier) @name) @definition.field) (#eq? @_constructor "constructor"))
(abstract_method_signature name: (property_identifier) @name) @definition.method
(public_field_definition name: (property_identifier) @name) @definition.field
(interface_body (property_signature name: (property_identifier) @name) @definition.field)
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.field))
(ambient_declaration (variable_declaration (variable_declarator name: (identifier) @name) @definition.variable))
(ambient_declaration (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))
(internal_module body: (statement_block (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant)))
(internal_module body: (statement_block (export_statement declaration: (lexical_declaration (variable_declarator name: (identifier) @name) @definition.constant))))

(extends_clause value: (identifier) @name) @reference.type
(nested_type_identifier module: (_) @qualifier name: (type_identifier) @name) @reference.type

; Members named by type: properties of an object literal given a declared type
; (`const c: Config = { onError: null }`) and indexed access types (`Options['delay']`).
(variable_declarator type: (type_annotation (_) @receiver) value: (object (pair key: (property_identifier) @name))) @reference.field
(variable_declarator type: (type_annotation (_) @receiver) value: (object (shorthand_property_identifier) @name)) @reference.field
(lookup_type (_) @receiver (literal_type (string (string_fragment) @name))) @reference.field

(call_expression function: (_) @local.callee arguments: (arguments [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local.definition))) (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local.definition)))]))
(new_expression constructor: (_) @local.constructed arguments: (arguments [(arrow_function parameters: (formal_parameters (required_parameter pattern: (identifier) @local.definition))) (function_expression parameters: (formal_parameters (required_parameter pattern: (identifier) @local.definition)))]))
(required_parameter pattern: (identifier) @local.definition type: (_)? @local.type)
(optional_parameter pattern: (identifier) @local.definition type: (_)? @local.type)
(variable_declarator name: (identifier) @local.definition type: (_) @local.type value: (_)? @local.value)
(required_parameter pattern: (_ (shorthand_property_identifier_pattern) @local.definition))

; Type parameter names (only these are looked up among enclosing items' parameters).
(type_parameter name: (_) @type.parameter)
