; Catch-all uses for JavaScript, TypeScript and TSX. Appended after every other pattern:
; when several patterns capture one name, the first one in the combined query wins, so
; these only apply where nothing more specific matched.
(shorthand_property_identifier) @name @reference.identifier
(identifier) @name @reference.identifier
