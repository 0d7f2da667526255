; JavaScript-only patterns (TypeScript names these node types differently).
(field_definition property: (property_identifier) @name) @definition.field
(class_heritage (identifier) @name) @reference.type
(call_expression function: (_) @local.callee arguments: (arguments [(arrow_function parameters: (formal_parameters (identifier) @local.definition)) (function_expression parameters: (formal_parameters (identifier) @local.definition))]))
(new_expression constructor: (_) @local.constructed arguments: (arguments [(arrow_function parameters: (formal_parameters (identifier) @local.definition)) (function_expression parameters: (formal_parameters (identifier) @local.definition))]))
(formal_parameters (identifier) @local.definition)
(formal_parameters (assignment_pattern left: (identifier) @local.definition))
(formal_parameters (_ (shorthand_property_identifier_pattern) @local.definition))
