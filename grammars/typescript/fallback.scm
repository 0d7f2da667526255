; Catch-all type uses for TypeScript and TSX, appended after the specific patterns.
(type_identifier) @name @reference.type
