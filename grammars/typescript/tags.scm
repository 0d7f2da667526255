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

(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)
(required_parameter pattern: (_ (shorthand_property_identifier_pattern) @local.definition))
