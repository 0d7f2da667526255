; JavaScript-only patterns (TypeScript names these node types differently).
(field_definition property: (property_identifier) @name) @definition.field
(class_heritage (identifier) @name) @reference.type
(formal_parameters (identifier) @local.definition)
(formal_parameters (assignment_pattern left: (identifier) @local.definition))
(formal_parameters (_ (shorthand_property_identifier_pattern) @local.definition))
