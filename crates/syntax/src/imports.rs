//! Imports and re-exports: Rust `use` trees, JavaScript/TypeScript `import`/`export ...
//! from` statements, Python `import`/`from ... import`, Go import specs, Java `import`
//! declarations, C# `using` directives, C's `#include`s and declarations of names
//! defined elsewhere, PHP `use` declarations, Kotlin `import` headers, shell `source`
//! commands and Lua `require` calls, turned into [`Import`] records.
//!
//! Use trees can nest (`use a::{b::{c, d}}`); the walk keeps an explicit work list with a
//! depth bound instead of recursing, so hostile nesting cannot overflow the stack.

use std::borrow::Cow;

use tree_sitter::Node;

use crate::{Family, Import, ImportTarget, Lang, Position};

/// Use trees nested deeper than this are not followed (real code nests two or three).
const MAX_USE_TREE_DEPTH: usize = 32;

pub(crate) fn collect_imports(lang: Lang, nodes: &[Node<'_>], source: &[u8]) -> Vec<Import> {
    let mut out = Vec::new();
    for &node in nodes {
        match lang.family() {
            Family::Rust => rust_use(node, source, &mut out),
            Family::Ecma if node.kind() == "variable_declarator" => {
                commonjs_require(node, source, &mut out)
            }
            Family::Ecma => ecma_import(node, source, &mut out),
            Family::Python => python_import(node, source, &mut out),
            Family::Go => go_import(node, source, &mut out),
            Family::Java => java_import(node, source, &mut out),
            Family::Kotlin => kotlin_import(node, source, &mut out),
            Family::Shell => shell_source(node, source, &mut out),
            Family::Lua => lua_require(node, source, &mut out),
            Family::CSharp => csharp_using(node, source, &mut out),
            Family::C => c_import(node, source, &mut out),
            Family::Php => php_use(node, source, &mut out),
            // `require` loads a file; what it defines is global, so it imports no name.
            Family::Ruby => {}
        }
    }
    out
}

fn text<'s>(node: Node<'_>, source: &'s [u8]) -> Cow<'s, str> {
    String::from_utf8_lossy(source.get(node.byte_range()).unwrap_or_default())
}

fn position(node: Node<'_>) -> Position {
    let p = node.start_position();
    Position {
        line: p.row as u32 + 1,
        column: p.column as u32 + 1,
    }
}

fn path_segments(node: Node<'_>, source: &[u8]) -> Vec<String> {
    text(node, source)
        .split("::")
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Inline `mod` names around a node, outermost first.
fn enclosing_modules(node: Node<'_>, source: &[u8]) -> Vec<String> {
    let mut modules = Vec::new();
    let mut current = node.parent();
    while let Some(n) = current {
        if matches!(n.kind(), "mod_item" | "internal_module" | "module")
            && let Some(name) = n.child_by_field_name("name")
        {
            modules.push(text(name, source).into_owned());
        }
        current = n.parent();
    }
    modules.reverse();
    modules
}

/// The last name node of a path (`c` in `a::b::c`), for the import's position.
fn last_name(node: Node<'_>) -> Node<'_> {
    node.child_by_field_name("name").unwrap_or(node)
}

fn rust_use(declaration: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let Some(argument) = declaration.child_by_field_name("argument") else {
        return;
    };
    let reexport = (0..declaration.named_child_count() as u32)
        .filter_map(|i| declaration.named_child(i))
        .any(|c| c.kind() == "visibility_modifier");
    let modules = enclosing_modules(declaration, source);
    let mut work: Vec<(Node, Vec<String>, usize)> = vec![(argument, Vec::new(), 0)];
    while let Some((node, prefix, depth)) = work.pop() {
        if depth > MAX_USE_TREE_DEPTH {
            continue;
        }
        let mut push = |local: String, path: Vec<String>, at: Node<'_>| {
            out.push(Import {
                local,
                target: ImportTarget::Path(path),
                reexport,
                modules: modules.clone(),
                start: position(at),
            });
        };
        match node.kind() {
            "identifier" | "scoped_identifier" | "crate" | "super" | "self" => {
                let mut path = prefix.clone();
                path.extend(path_segments(node, source));
                // `use a::b::{self}` imports `b` itself.
                if path.last().is_some_and(|s| s == "self") && path.len() > 1 {
                    path.pop();
                }
                if let Some(local) = path.last().cloned() {
                    push(local, path, last_name(node));
                }
            }
            "use_as_clause" => {
                let (Some(path_node), Some(alias)) = (
                    node.child_by_field_name("path"),
                    node.child_by_field_name("alias"),
                ) else {
                    continue;
                };
                let mut path = prefix.clone();
                path.extend(path_segments(path_node, source));
                let local = text(alias, source).into_owned();
                if local != "_" {
                    push(local, path, last_name(path_node));
                }
            }
            "use_wildcard" => {
                let mut path = prefix.clone();
                if let Some(inner) = node.named_child(0) {
                    path.extend(path_segments(inner, source));
                }
                push("*".to_owned(), path, node);
            }
            "use_list" => {
                for i in 0..node.named_child_count() as u32 {
                    if let Some(child) = node.named_child(i) {
                        work.push((child, prefix.clone(), depth + 1));
                    }
                }
            }
            "scoped_use_list" => {
                let mut path = prefix.clone();
                if let Some(p) = node.child_by_field_name("path") {
                    path.extend(path_segments(p, source));
                }
                if let Some(list) = node.child_by_field_name("list") {
                    work.push((list, path, depth + 1));
                }
            }
            _ => {}
        }
    }
}

fn string_value(node: Node<'_>, source: &[u8]) -> String {
    text(node, source)
        .trim_matches(|c| c == '"' || c == '\'' || c == '`')
        .to_owned()
}

fn ecma_import(statement: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let Some(source_node) = statement.child_by_field_name("source") else {
        return;
    };
    let module = string_value(source_node, source);
    let modules = enclosing_modules(statement, source);
    let reexport = statement.kind() == "export_statement";
    let mut push = |local: String, imported: Option<String>, at: Node<'_>| {
        out.push(Import {
            local,
            target: ImportTarget::Module {
                source: module.clone(),
                imported,
            },
            reexport,
            modules: modules.clone(),
            start: position(at),
        });
    };
    for i in 0..statement.named_child_count() as u32 {
        let Some(child) = statement.named_child(i) else {
            continue;
        };
        match child.kind() {
            "import_clause" => {
                for j in 0..child.named_child_count() as u32 {
                    let Some(part) = child.named_child(j) else {
                        continue;
                    };
                    match part.kind() {
                        "identifier" => push(
                            text(part, source).into_owned(),
                            Some("default".into()),
                            part,
                        ),
                        "namespace_import" => {
                            if let Some(id) = part.named_child(0) {
                                push(text(id, source).into_owned(), None, id);
                            }
                        }
                        "named_imports" => specifiers(part, source, &mut push),
                        _ => {}
                    }
                }
            }
            "export_clause" => specifiers(child, source, &mut push),
            "namespace_export" => {
                if let Some(id) = child.named_child(0) {
                    push(text(id, source).into_owned(), None, id);
                }
            }
            _ => {}
        }
    }
    // `export * from './x'`: no clause, a bare star.
    if reexport
        && (0..statement.child_count())
            .filter_map(|i| statement.child(i))
            .any(|c| c.kind() == "*")
        && !(0..statement.named_child_count() as u32)
            .filter_map(|i| statement.named_child(i))
            .any(|c| c.kind() == "namespace_export")
    {
        push("*".into(), Some("*".into()), statement);
    }
}

/// `const x = require('./x')` (the module's `module.exports`), `const { a, b: c } =
/// require('./x')` (named exports) and `const a = require('./x').a`.
fn commonjs_require(declarator: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let (Some(name), Some(value)) = (
        declarator.child_by_field_name("name"),
        declarator.child_by_field_name("value"),
    ) else {
        return;
    };
    let (call, property) = match value.kind() {
        "member_expression" => (
            value.child_by_field_name("object"),
            value.child_by_field_name("property"),
        ),
        _ => (Some(value), None),
    };
    let Some(specifier) = call
        .and_then(|c| c.child_by_field_name("arguments"))
        .and_then(|args| args.named_child(0))
        .filter(|s| s.kind() == "string")
    else {
        return;
    };
    let module = string_value(specifier, source);
    let modules = enclosing_modules(declarator, source);
    let mut push = |local: String, imported: Option<String>, at: Node<'_>| {
        out.push(Import {
            local,
            target: ImportTarget::Module {
                source: module.clone(),
                imported,
            },
            reexport: false,
            modules: modules.clone(),
            start: position(at),
        });
    };
    match (name.kind(), property) {
        ("identifier", Some(property)) => push(
            text(name, source).into_owned(),
            Some(text(property, source).into_owned()),
            property,
        ),
        ("identifier", None) => push(
            text(name, source).into_owned(),
            Some(crate::MODULE_EXPORTS.to_owned()),
            name,
        ),
        ("object_pattern", None) => {
            for i in 0..name.named_child_count() as u32 {
                let Some(part) = name.named_child(i) else {
                    continue;
                };
                match part.kind() {
                    "shorthand_property_identifier_pattern" => {
                        let local = text(part, source).into_owned();
                        push(local.clone(), Some(local), part)
                    }
                    "pair_pattern" => {
                        if let (Some(key), Some(value)) = (
                            part.child_by_field_name("key"),
                            part.child_by_field_name("value"),
                        ) && value.kind() == "identifier"
                        {
                            push(
                                text(value, source).into_owned(),
                                Some(text(key, source).into_owned()),
                                key,
                            )
                        }
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
}

/// `{ a, b as c }` in an import or export clause.
fn specifiers(
    clause: Node<'_>,
    source: &[u8],
    push: &mut impl FnMut(String, Option<String>, Node<'_>),
) {
    for k in 0..clause.named_child_count() as u32 {
        let Some(spec) = clause.named_child(k) else {
            continue;
        };
        let Some(name) = spec.child_by_field_name("name") else {
            continue;
        };
        let imported = string_value(name, source);
        let local = spec
            .child_by_field_name("alias")
            .map(|a| string_value(a, source))
            .unwrap_or_else(|| imported.clone());
        push(local, Some(imported), name);
    }
}

/// Dotted text without whitespace (`a . b` is `a.b`; a relative `..x` keeps its dots).
fn dotted(node: Node<'_>, source: &[u8]) -> String {
    text(node, source)
        .chars()
        .filter(|c| !c.is_whitespace() && *c != '\\')
        .collect()
}

/// `import a.b`, `import a.b as c`, `from .m import x`, `from m import x as y`,
/// `from m import *`. A module is recorded by its dotted name, relative ones with their
/// leading dots; `import a.b` is known in the file as `a.b`, the way uses write it. An
/// import outside any function is visible to importers of the module (Python has no
/// private imports), so it counts as a re-export.
fn python_import(statement: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    // `from __future__ import x` switches a language feature on; it imports nothing.
    if statement.kind() == "future_import_statement" {
        return;
    }
    let mut ancestor = statement.parent();
    let mut reexport = true;
    while let Some(n) = ancestor {
        if matches!(n.kind(), "function_definition" | "lambda") {
            reexport = false;
            break;
        }
        ancestor = n.parent();
    }
    let module_of_from = statement
        .child_by_field_name("module_name")
        .map(|m| dotted(m, source));
    for i in 0..statement.child_count() {
        let Some(child) = statement.child(i) else {
            continue;
        };
        let field = statement.field_name_for_child(i).unwrap_or("");
        let (name, alias) = match (child.kind(), field) {
            ("wildcard_import", _) => {
                if let Some(module) = &module_of_from {
                    out.push(Import {
                        local: "*".to_owned(),
                        target: ImportTarget::Module {
                            source: module.clone(),
                            imported: Some("*".to_owned()),
                        },
                        reexport,
                        modules: Vec::new(),
                        start: position(child),
                    });
                }
                continue;
            }
            ("aliased_import", "name") => (
                child.child_by_field_name("name"),
                child.child_by_field_name("alias"),
            ),
            ("dotted_name", "name") => (Some(child), None),
            _ => continue,
        };
        let Some(name) = name else { continue };
        let dotted_name = dotted(name, source);
        if dotted_name.is_empty() {
            continue;
        }
        let (local, target, at) = match &module_of_from {
            Some(module) => (
                alias.map_or_else(|| dotted_name.clone(), |a| dotted(a, source)),
                ImportTarget::Module {
                    source: module.clone(),
                    imported: Some(dotted_name),
                },
                name,
            ),
            None => (
                alias.map_or_else(|| dotted_name.clone(), |a| dotted(a, source)),
                ImportTarget::Module {
                    source: dotted_name,
                    imported: None,
                },
                name,
            ),
        };
        out.push(Import {
            local,
            target,
            reexport,
            modules: Vec::new(),
            start: position(at),
        });
    }
}

/// The package name an import path gives by default: its last segment, without a major
/// version suffix (`github.com/x/y/v2` → `y`, `gopkg.in/yaml.v3` → `yaml`).
fn go_package_name(path: &str) -> &str {
    let mut segments = path.rsplit('/');
    let last = segments.next().unwrap_or(path);
    let is_version = |s: &str| {
        s.strip_prefix('v')
            .is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
    };
    let last = if is_version(last) {
        segments.next().unwrap_or(last)
    } else {
        last
    };
    match last.rsplit_once(".v") {
        Some((name, version)) if is_version(&format!("v{version}")) => name,
        _ => last,
    }
}

/// `import "a/b"`, `import c "a/b"`, `import . "a/b"` (its names in scope: `*`), in one
/// declaration or a parenthesized list; `import _ "a/b"` binds nothing. The target is the
/// import path; the name is the one the file uses.
fn go_import(declaration: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let mut specs: Vec<Node<'_>> = Vec::new();
    for i in 0..declaration.named_child_count() as u32 {
        let Some(child) = declaration.named_child(i) else {
            continue;
        };
        match child.kind() {
            "import_spec" => specs.push(child),
            "import_spec_list" => specs.extend(
                (0..child.named_child_count() as u32)
                    .filter_map(|j| child.named_child(j))
                    .filter(|c| c.kind() == "import_spec"),
            ),
            _ => {}
        }
    }
    for spec in specs {
        let Some(path_node) = spec.child_by_field_name("path") else {
            continue;
        };
        let path = text(path_node, source)
            .trim_matches(|c| c == '"' || c == '`')
            .to_owned();
        if path.is_empty() {
            continue;
        }
        let local = match spec.child_by_field_name("name") {
            Some(name) if name.kind() == "blank_identifier" => continue,
            Some(name) if name.kind() == "dot" => "*".to_owned(),
            Some(name) => text(name, source).into_owned(),
            None => go_package_name(&path).to_owned(),
        };
        out.push(Import {
            local,
            target: ImportTarget::Module {
                source: path,
                imported: None,
            },
            reexport: false,
            modules: Vec::new(),
            start: position(path_node),
        });
    }
}

/// `import a.b.C;` (known as `C`), `import a.b.*;` (`*`), `import static a.b.C.m;` (`m`),
/// `import static a.b.C.*;`. The target's source is everything before the last name: a
/// package for type imports, a type for static ones (the resolver tells them apart).
fn java_import(declaration: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let mut path_node = None;
    let mut on_demand = false;
    for i in 0..declaration.named_child_count() as u32 {
        let Some(child) = declaration.named_child(i) else {
            continue;
        };
        match child.kind() {
            "scoped_identifier" | "identifier" => path_node = Some(child),
            "asterisk" => on_demand = true,
            _ => {}
        }
    }
    let Some(path_node) = path_node else { return };
    let path = dotted(path_node, source);
    let (module, local) = if on_demand {
        (path.clone(), "*".to_owned())
    } else {
        match path.rsplit_once('.') {
            Some((module, name)) => (module.to_owned(), name.to_owned()),
            None => return,
        }
    };
    out.push(Import {
        local: local.clone(),
        target: ImportTarget::Module {
            source: module,
            imported: Some(local),
        },
        reexport: false,
        modules: Vec::new(),
        start: position(last_name(path_node)),
    });
}

/// `import a.b.C` (known as `C`), `import a.b.C as D` (known as `D`), `import a.b.*`
/// (every top-level name of package `a.b`, known as `*`). What is imported may be a
/// type, a top-level function or property, or a member of an object.
fn kotlin_import(import: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let mut path_node = None;
    let mut alias = None;
    let mut on_demand = false;
    for i in 0..import.child_count() {
        let Some(child) = import.child(i) else {
            continue;
        };
        match child.kind() {
            "qualified_identifier" if child.is_named() => path_node = Some(child),
            "identifier" if child.is_named() && path_node.is_some() => alias = Some(child),
            "*" => on_demand = true,
            _ => {}
        }
    }
    let Some(path_node) = path_node else { return };
    let path = dotted(path_node, source);
    let (module, imported, local) = if on_demand {
        (path.clone(), "*".to_owned(), "*".to_owned())
    } else {
        let Some((module, name)) = path.rsplit_once('.') else {
            return;
        };
        let local = alias.map_or_else(|| name.to_owned(), |a| text(a, source).into_owned());
        (module.to_owned(), name.to_owned(), local)
    };
    out.push(Import {
        local,
        target: ImportTarget::Module {
            source: module,
            imported: Some(imported),
        },
        reexport: false,
        modules: Vec::new(),
        start: position(alias.unwrap_or_else(|| {
            let last = path_node.named_child_count().saturating_sub(1) as u32;
            path_node.named_child(last).unwrap_or(path_node)
        })),
    });
}

/// `source lib.sh`, `. ./lib.sh`: the sourced script's path, as a re-exported glob (what
/// it defines and sources is the sourcing script's too). A dynamic prefix is left out
/// (`"$DIR/lib/util.sh"` → `lib/util.sh`, found by its trailing segments); a path with no
/// literal tail names nothing to follow.
fn shell_source(command: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let Some(argument) = command.child_by_field_name("argument") else {
        return;
    };
    let written = text(argument, source);
    let unquoted: String = written
        .chars()
        .filter(|c| !matches!(c, '"' | '\''))
        .collect();
    let segments: Vec<&str> = unquoted.split('/').collect();
    let is_literal = |s: &&&str| !s.contains(['$', '(', ')', '{', '}', '`', '*', '?']);
    let literal_tail = segments.iter().rev().take_while(is_literal).count();
    let dynamic = literal_tail < segments.len();
    let path = segments[segments.len() - literal_tail..].join("/");
    if path.is_empty() || path.ends_with('/') {
        return;
    }
    out.push(Import {
        local: "*".to_owned(),
        target: ImportTarget::Module {
            // Found by its trailing segments only, like a system include, when its
            // prefix is not known here.
            source: if dynamic { format!("<{path}>") } else { path },
            imported: None,
        },
        reexport: true,
        modules: Vec::new(),
        start: position(argument),
    });
}

/// `local utils = require("pl.utils")` (the module known as `utils`), `require "x"`:
/// the module's path as Lua's `package.path` spells it (`pl/utils`, dots as
/// directories), found as `pl/utils.lua` or `pl/utils/init.lua`. A module whose name is
/// computed is not followed.
fn lua_require(call: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let Some(arguments) = call.child_by_field_name("arguments") else {
        return;
    };
    let string = if arguments.kind() == "string" {
        Some(arguments)
    } else {
        (0..arguments.named_child_count() as u32)
            .filter_map(|i| arguments.named_child(i))
            .find(|a| a.kind() == "string")
    };
    let Some(content) = string.and_then(|s| s.child_by_field_name("content")) else {
        return;
    };
    let module = text(content, source).replace('.', "/");
    if module.is_empty() {
        return;
    }
    // The local it is assigned to: `local x = require(...)`, `x = require(...)`.
    let local = call
        .parent()
        .filter(|p| p.kind() == "expression_list")
        .and_then(|list| list.parent())
        .filter(|a| a.kind() == "assignment_statement")
        .and_then(|a| {
            a.child_by_field_name("variables")
                .or_else(|| a.named_child(0))
        })
        .and_then(|vars| vars.named_child(0))
        .filter(|v| v.kind() == "identifier");
    out.push(Import {
        local: local.map_or_else(|| "*".to_owned(), |v| text(v, source).into_owned()),
        target: ImportTarget::Module {
            source: module,
            imported: None,
        },
        reexport: false,
        modules: Vec::new(),
        start: position(content),
    });
}

/// `using A.B;` (every type of namespace `A.B`, known as `*`), `using static A.B.C;` (the
/// static members and nested types of type `A.B.C`, also `*`: the resolver tells a type
/// from a namespace), `using X = A.B.C;` (known as `X`). A `global using` applies to every
/// file of the project, which the record says as a re-export.
fn csharp_using(directive: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let mut global = false;
    let mut target = None;
    for i in 0..directive.child_count() {
        let Some(child) = directive.child(i) else {
            continue;
        };
        match child.kind() {
            "global" if !child.is_named() => global = true,
            "identifier" | "qualified_name" | "generic_name" | "alias_qualified_name"
                if child.is_named() && directive.field_name_for_child(i) != Some("name") =>
            {
                target = Some(child)
            }
            _ => {}
        }
    }
    let Some(target) = target else { return };
    // `using L = System.Collections.Generic.List<int>;`: the type without its arguments;
    // `global::A.B`: the path without the global alias.
    let full = dotted(target, source);
    let path = full.split('<').next().unwrap_or_default();
    let path = path.strip_prefix("global::").unwrap_or(path);
    let start = position(last_name(target));
    let import = |local: String, source_path: &str, imported: String| Import {
        local,
        target: ImportTarget::Module {
            source: source_path.to_owned(),
            imported: Some(imported),
        },
        reexport: global,
        modules: Vec::new(),
        start,
    };
    match directive.child_by_field_name("name") {
        Some(alias) => {
            let Some((namespace, name)) = path.rsplit_once('.') else {
                return;
            };
            out.push(import(
                text(alias, source).into_owned(),
                namespace,
                name.to_owned(),
            ));
        }
        None => out.push(import("*".to_owned(), path, "*".to_owned())),
    }
}

/// C: the query captures an `#include`'s path (`"shop.h"`, `<stdio.h>`) and the name a
/// prototype or an `extern` declaration declares. An include brings every name of the
/// header into the file, and into the files that include this one (textual inclusion):
/// a re-exported glob whose source is the path as written, `<...>` kept for a system
/// include. A declaration is the import of that one name from wherever the program
/// defines it (`Path([name])`), visible to includers too when it is in a header.
fn c_import(node: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let (local, target) = match node.kind() {
        "string_literal" => {
            let path = text(node, source).trim_matches('"').trim().to_owned();
            ("*".to_owned(), path)
        }
        "system_lib_string" => ("*".to_owned(), text(node, source).trim().to_owned()),
        // A declared name; a type identifier where an export macro before a parenthesized
        // prototype name (`LUALIB_API void (luaL_addgsub) (...)`) misleads the grammar.
        "identifier" | "type_identifier" => {
            // In a C++ class body, a declaration is a member (a constructor), not a
            // prototype of something defined elsewhere.
            let mut ancestor = node.parent();
            while let Some(n) = ancestor {
                if n.kind() == "declaration" {
                    if n.parent()
                        .is_some_and(|p| p.kind() == "field_declaration_list")
                    {
                        return;
                    }
                    break;
                }
                ancestor = n.parent();
            }
            let name = text(node, source).into_owned();
            out.push(Import {
                local: name.clone(),
                target: ImportTarget::Path(vec![name]),
                reexport: true,
                modules: Vec::new(),
                start: position(node),
            });
            return;
        }
        // An include of a macro (`#include HEADER`): nothing to follow.
        _ => return,
    };
    if target.is_empty() || target == "<>" {
        return;
    }
    out.push(Import {
        local,
        target: ImportTarget::Module {
            source: target,
            imported: None,
        },
        reexport: true,
        modules: Vec::new(),
        start: position(node),
    });
}

/// PHP: `use A\B\C;` (known as `C`), `use A\B\C as D;` (`D`), `use function A\f;`, `use
/// const A\X;`, and groups `use A\B\{C, D as E};`. A `use` always names a fully qualified
/// name (a leading `\` changes nothing); the target's source is its namespace (`A\B`) and
/// the imported name its last segment, whether a class, a function, a constant or a
/// namespace (`use A\B;` then `B\C`).
fn php_use(declaration: Node<'_>, source: &[u8], out: &mut Vec<Import>) {
    let clean = |node: Node<'_>| -> String {
        text(node, source)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .trim_matches('\\')
            .to_owned()
    };
    let mut group_prefix = String::new();
    let mut clauses = Vec::new();
    for child in named_children(declaration) {
        match child.kind() {
            "namespace_name" => group_prefix = clean(child),
            "namespace_use_clause" => clauses.push(child),
            "namespace_use_group" => {
                clauses.extend(named_children(child).filter(|c| c.kind() == "namespace_use_clause"))
            }
            _ => {}
        }
    }
    for clause in clauses {
        let alias = clause.child_by_field_name("alias");
        let Some(path) = named_children(clause)
            .find(|c| matches!(c.kind(), "qualified_name" | "name") && Some(*c) != alias)
        else {
            continue;
        };
        let written = clean(path);
        let full = if group_prefix.is_empty() {
            written
        } else {
            format!("{group_prefix}\\{written}")
        };
        let (namespace, name) = full.rsplit_once('\\').unwrap_or(("", full.as_str()));
        if name.is_empty() {
            continue;
        }
        let local = alias.map_or_else(|| name.to_owned(), &clean);
        out.push(Import {
            local,
            target: ImportTarget::Module {
                source: namespace.to_owned(),
                imported: Some(name.to_owned()),
            },
            reexport: false,
            modules: Vec::new(),
            start: position(
                path.named_child(path.named_child_count().saturating_sub(1) as u32)
                    .unwrap_or(path),
            ),
        });
    }
}

fn named_children<'t>(node: Node<'t>) -> impl Iterator<Item = Node<'t>> {
    (0..node.named_child_count() as u32).filter_map(move |i| node.named_child(i))
}
