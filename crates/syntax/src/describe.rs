//! A compact, stable text rendering of [`FileFacts`], for `mcursor debug facts` and for
//! tests that hold extraction to expected output.

use std::fmt::Write;

use crate::{Callee, FileFacts, TypeRef, ValueChain, ValueRoot, ValueStep};

/// `Vec<Foo>`, `Self`, `impl A + B`, `[T]`, `builtin str`, `?` (unknown): the facts'
/// view, which marks built-in types.
pub fn describe_type(ty: &TypeRef) -> String {
    render_type(ty, true)
}

/// A type as a reader writes it: [`describe_type`] without the `builtin` marks
/// (`Vec<u8>`, `[u8]`, `str`).
pub fn display_type(ty: &TypeRef) -> String {
    render_type(ty, false)
}

fn render_type(ty: &TypeRef, mark_builtins: bool) -> String {
    let describe_type = |t: &TypeRef| render_type(t, mark_builtins);
    match ty {
        TypeRef::Named { path, args } if args.is_empty() => path.join("::"),
        TypeRef::Named { path, args } => format!(
            "{}<{}>",
            path.join("::"),
            args.iter()
                .map(&describe_type)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TypeRef::SelfType => "Self".to_owned(),
        TypeRef::Bounds(bounds) => format!(
            "impl {}",
            bounds
                .iter()
                .map(&describe_type)
                .collect::<Vec<_>>()
                .join(" + ")
        ),
        TypeRef::Array(element) => format!("[{}]", describe_type(element)),
        TypeRef::Tuple(elements) => format!(
            "({})",
            elements
                .iter()
                .map(&describe_type)
                .collect::<Vec<_>>()
                .join(", ")
        ),
        TypeRef::Union(members) => members
            .iter()
            .map(&describe_type)
            .collect::<Vec<_>>()
            .join(" | "),
        TypeRef::Function { params, ret } => format!(
            "fn({}) -> {}",
            params
                .iter()
                .map(&describe_type)
                .collect::<Vec<_>>()
                .join(", "),
            describe_type(ret)
        ),
        TypeRef::Builtin(name) if mark_builtins => format!("builtin {name}"),
        TypeRef::Builtin(name) => name.clone(),
        TypeRef::Unknown => "?".to_owned(),
    }
}

/// `self.config.load()?`, `<Foo>.run()`, `make().items[*]`, `?.x` (unknown root).
pub fn describe_chain(chain: &ValueChain) -> String {
    let mut out = match &chain.root {
        ValueRoot::SelfValue => "self".to_owned(),
        ValueRoot::Super => "super".to_owned(),
        ValueRoot::Typed(ty) => format!("<{}>", describe_type(ty)),
        ValueRoot::Path(path) => path.join("::"),
        ValueRoot::Call(path) => format!("{}()", path.join("::")),
        ValueRoot::Callback {
            callee,
            argument,
            parameter,
        } => {
            let callee = match callee {
                Callee::Method { receiver, name } => {
                    format!("{}.{name}", describe_chain(receiver))
                }
                Callee::Function(path) => path.join("::"),
                Callee::Constructor(ty) => format!("new {}", describe_type(ty)),
            };
            format!("{callee}(#{argument}: |#{parameter}|)")
        }
        ValueRoot::Unknown => "?".to_owned(),
    };
    for step in &chain.steps {
        match step {
            ValueStep::Field(name) => {
                let _ = write!(out, ".{name}");
            }
            ValueStep::Call(name) => {
                let _ = write!(out, ".{name}()");
            }
            ValueStep::Unwrap => out.push('?'),
            ValueStep::Index => out.push_str("[]"),
            ValueStep::Element => out.push_str("[*]"),
            ValueStep::Await => out.push_str(".await"),
        }
    }
    out
}

/// Every fact of one file, a line each: containers, definitions (with their types),
/// references (with receivers), imports, diagnostics.
pub fn describe_facts(facts: &FileFacts) -> String {
    let mut out = String::new();
    for (i, c) in facts.containers.iter().enumerate() {
        let _ = write!(
            out,
            "container #{i} {} for {}",
            c.name,
            describe_type(&c.self_type)
        );
        if let Some(implements) = &c.implements {
            let _ = write!(out, " implements {}", describe_type(implements));
        }
        if !c.supertypes.is_empty() {
            let supertypes: Vec<String> = c.supertypes.iter().map(describe_type).collect();
            let _ = write!(out, " extends {}", supertypes.join(", "));
        }
        if c.is_abstract {
            out.push_str(" abstract");
        }
        if c.blanket {
            out.push_str(" blanket");
        }
        out.push('\n');
    }
    for d in &facts.definitions {
        let mut qualified: Vec<&str> = d.modules.iter().map(String::as_str).collect();
        if let Some(c) = &d.container {
            qualified.push(c);
        }
        qualified.push(&d.name);
        let _ = write!(
            out,
            "def {} {} @{}:{}",
            d.kind.as_str(),
            qualified.join("::"),
            d.start.line,
            d.start.column
        );
        if let Some(parent) = d.parent {
            let _ = write!(out, " parent={parent}");
        }
        if let Some(container) = d.container_id {
            let _ = write!(out, " in=#{container}");
        }
        if let Some(ty) = &d.type_ref {
            let _ = write!(out, " : {}", describe_type(ty));
        }
        if let Some(value) = &d.value {
            let _ = write!(out, " = {}", describe_chain(value));
        }
        if !d.params.is_empty() {
            let params: Vec<String> = d.params.iter().map(describe_type).collect();
            let _ = write!(out, " params=({})", params.join(", "));
        }
        if !d.tuple_fields.is_empty() {
            let fields: Vec<String> = d.tuple_fields.iter().map(describe_type).collect();
            let _ = write!(out, " fields=({})", fields.join(", "));
        }
        let _ = write!(out, " sig={:?}", d.signature);
        if let Some(doc) = &d.doc {
            let _ = write!(out, " doc={doc:?}");
        }
        if d.default_export {
            out.push_str(" default");
        }
        out.push('\n');
    }
    for r in &facts.references {
        let _ = write!(
            out,
            "ref {} {} @{}:{}",
            r.kind.as_str(),
            r.name,
            r.start.line,
            r.start.column
        );
        match (&r.receiver_chain, &r.qualifier) {
            (Some(chain), _) => {
                let _ = write!(out, " on {}", describe_chain(chain));
            }
            (None, Some(q)) => {
                let _ = write!(out, " q={q}");
            }
            (None, None) => {}
        }
        if let Some(enclosing) = r.enclosing {
            let _ = write!(out, " in={enclosing}");
        }
        out.push('\n');
    }
    for i in &facts.imports {
        let _ = writeln!(
            out,
            "import {} <- {:?} reexport={} @{}:{}",
            i.local, i.target, i.reexport, i.start.line, i.start.column
        );
    }
    for d in &facts.diagnostics {
        let _ = writeln!(out, "diag {} {}", d.line, d.message);
    }
    if let Some(name) = &facts.default_export_name {
        let _ = writeln!(out, "export default {name}");
    }
    out
}
