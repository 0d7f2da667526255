; mcursor extraction query for C++ (tree-sitter-cpp 0.23), read before the C query
; (grammars/c/tags.scm), whose patterns C++ shares: the first pattern that captures a name
; wins, so what C++ reads differently comes here.
;
; Namespaces are module scopes (`shop::detail::helper`); classes, and structs with their
; methods, are containers. A method defined outside its class (`int Cart::total() const
; {}`) is a member of the class its qualifier names (`@scope.receiver`: the definition's
; own node is its container). A method declared in the class and defined outside it is
; two definitions, the declaration and the body.

; ---------------------------------------------------------------- containers
(namespace_definition name: (_) @scope.name) @scope.module
(class_specifier name: (type_identifier) @scope.name body: (field_declaration_list)) @scope.container
(class_specifier name: (template_type name: (type_identifier) @scope.name) body: (field_declaration_list)) @scope.container
; A nested class defined outside its class (`struct TableBuilder::Rep { ... }`).
([(class_specifier name: (qualified_identifier) @scope.name body: (field_declaration_list)) (struct_specifier name: (qualified_identifier) @scope.name body: (field_declaration_list))]) @scope.container
(function_definition declarator: [
  (function_declarator declarator: (qualified_identifier scope: (_) @scope.name name: [(identifier) (destructor_name) (operator_name)]))
  (function_declarator declarator: (qualified_identifier name: (qualified_identifier scope: (_) @scope.name name: [(identifier) (destructor_name) (operator_name)])))
  (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier scope: (_) @scope.name name: [(identifier) (operator_name)])))
  (reference_declarator (function_declarator declarator: (qualified_identifier scope: (_) @scope.name name: [(identifier) (operator_name)])))
]) @scope.receiver

; --------------------------------------------------------------- definitions
(namespace_definition name: (namespace_identifier) @name) @definition.module
(class_specifier name: (type_identifier) @name body: (field_declaration_list)) @definition.class
(class_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.class
(struct_specifier name: (template_type name: (type_identifier) @name) body: (field_declaration_list)) @definition.struct
(class_specifier name: (qualified_identifier name: (type_identifier) @name) body: (field_declaration_list)) @definition.class
(struct_specifier name: (qualified_identifier name: (type_identifier) @name) body: (field_declaration_list)) @definition.struct
(alias_declaration name: (type_identifier) @name) @definition.type_alias
; Methods defined outside their class, constructors and destructors included.
(function_definition declarator: [
  (function_declarator declarator: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name))
  (function_declarator declarator: (qualified_identifier name: (qualified_identifier name: [(identifier) (destructor_name) (operator_name)] @name)))
  (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier name: [(identifier) (operator_name)] @name)))
  (reference_declarator (function_declarator declarator: (qualified_identifier name: [(identifier) (operator_name)] @name)))
]) @definition.method
; Methods defined or declared in their class.
(field_declaration_list (function_definition declarator: [
  (function_declarator declarator: [(field_identifier) (identifier) (destructor_name) (operator_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
]) @definition.method)
(field_declaration_list (template_declaration (function_definition declarator: [
  (function_declarator declarator: [(field_identifier) (identifier) (operator_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
]) @definition.method))
; A friend function defined in a class is a function of the enclosing namespace.
(friend_declaration (function_definition declarator: [
  (function_declarator declarator: [(identifier) (operator_name)] @name)
  (reference_declarator (function_declarator declarator: [(identifier) (operator_name)] @name))
]) @definition.function)
; Operators defined outside any class (`bool operator==(const A&, const A&)`).
(function_definition declarator: [
  (function_declarator declarator: (operator_name) @name)
  (reference_declarator (function_declarator declarator: (operator_name) @name))
  (pointer_declarator declarator: (function_declarator declarator: (operator_name) @name))
]) @definition.function
(field_declaration declarator: [
  (function_declarator declarator: [(field_identifier) (operator_name)] @name)
  (pointer_declarator declarator: (function_declarator declarator: [(field_identifier) (operator_name)] @name))
  (reference_declarator (function_declarator declarator: [(field_identifier) (operator_name)] @name))
]) @definition.method
; A constructor or destructor declared in its class.
(field_declaration_list (declaration declarator: (function_declarator declarator: [(identifier) (destructor_name)] @name)) @definition.method)

; ---------------------------------------------------------------- references
; `ns::f()`, `Cart::create()`, `f<int>()`, `ns::f<int>()`, `obj.f<T>()`.
(call_expression function: (qualified_identifier scope: (_) @qualifier name: (identifier) @name)) @reference.call
(call_expression function: (qualified_identifier name: (qualified_identifier scope: (_) @qualifier name: (identifier) @name))) @reference.call
(call_expression function: (qualified_identifier scope: (_) @qualifier name: (template_function name: (identifier) @name))) @reference.call
(call_expression function: (template_function name: (identifier) @name)) @reference.call
(call_expression function: (field_expression argument: (_) @receiver field: (template_method name: (field_identifier) @name))) @reference.call
(qualified_identifier scope: (_) @qualifier name: (identifier) @name) @reference.identifier
(qualified_identifier scope: (_) @qualifier name: (type_identifier) @name) @reference.type
(qualified_identifier scope: (_) @qualifier name: (template_type name: (type_identifier) @name)) @reference.type
(template_type name: (type_identifier) @name) @reference.type
; The base classes of a class.
(base_class_clause (type_identifier) @name @reference.type)
; The class or namespace before `::` (`Cart::create()`: a use of `Cart`).
(qualified_identifier scope: (namespace_identifier) @name @reference.type)
(using_declaration) @ignore.inside
(template_parameter_list) @ignore.inside
(destructor_name) @ignore.inside
(type_parameter_declaration (type_identifier) @type.parameter)
(optional_type_parameter_declaration name: (type_identifier) @type.parameter)
; Out-of-class definitions name their class and method: no references there.
(function_definition declarator: [
  (function_declarator declarator: (qualified_identifier) @ignore.inside)
  (pointer_declarator declarator: (function_declarator declarator: (qualified_identifier) @ignore.inside))
  (reference_declarator (function_declarator declarator: (qualified_identifier) @ignore.inside))
])

; -------------------------------------------------------------------- locals
(lambda_expression) @local.scope
(for_range_loop) @local.scope
(catch_clause) @local.scope

(parameter_declaration type: (_) @local.type declarator: (reference_declarator (identifier) @local.definition))
(optional_parameter_declaration type: (_) @local.type declarator: (identifier) @local.definition)
(declaration type: (placeholder_type_specifier) declarator: (init_declarator declarator: (identifier) @local.definition value: (_) @local.value))
(declaration type: (placeholder_type_specifier) declarator: (init_declarator declarator: (reference_declarator (identifier) @local.definition) value: (_) @local.value))
(declaration type: (_) @local.type declarator: (init_declarator declarator: (reference_declarator (identifier) @local.definition)))
(for_range_loop type: (placeholder_type_specifier) declarator: (identifier) @local.definition right: (_) @local.element)
(for_range_loop type: (placeholder_type_specifier) declarator: (reference_declarator (identifier) @local.definition) right: (_) @local.element)
(for_range_loop type: (_) @local.type declarator: (identifier) @local.definition)
(for_range_loop type: (_) @local.type declarator: (reference_declarator (identifier) @local.definition))
