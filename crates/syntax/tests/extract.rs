//! Extraction tests: small inline sources, their facts rendered as text.

use mcursor_syntax::{FileFacts, Lang, ParseConfig, parse_source};

fn render(facts: &FileFacts) -> String {
    let mut out = String::new();
    for d in &facts.definitions {
        let mut qualified: Vec<&str> = d.modules.iter().map(String::as_str).collect();
        if let Some(c) = &d.container {
            qualified.push(c);
        }
        qualified.push(&d.name);
        out.push_str(&format!(
            "def {} {} @{}:{} parent={:?} sig={:?}{}{}\n",
            d.kind.as_str(),
            qualified.join("::"),
            d.start.line,
            d.start.column,
            d.parent,
            d.signature,
            d.doc
                .as_ref()
                .map(|doc| format!(" doc={doc:?}"))
                .unwrap_or_default(),
            if d.default_export { " default" } else { "" },
        ));
    }
    for r in &facts.references {
        out.push_str(&format!(
            "ref {} {} @{}:{} q={:?} in={:?}\n",
            r.kind.as_str(),
            r.name,
            r.start.line,
            r.start.column,
            r.qualifier,
            r.enclosing
        ));
    }
    for i in &facts.imports {
        out.push_str(&format!(
            "import {} <- {:?} reexport={} @{}:{}\n",
            i.local, i.target, i.reexport, i.start.line, i.start.column
        ));
    }
    for d in &facts.diagnostics {
        out.push_str(&format!("diag {} {}\n", d.line, d.message));
    }
    if let Some(name) = &facts.default_export_name {
        out.push_str(&format!("export default {name}\n"));
    }
    out
}

fn facts(lang: Lang, src: &str) -> String {
    render(&parse_source(lang, src.as_bytes(), &ParseConfig::default()))
}

#[test]
fn rust_sample() {
    let got = facts(
        Lang::Rust,
        r#"use crate::config::{load as load_config, Config};
use std::fmt::*;

/// A session.
#[derive(Debug)]
pub struct Session { config: Config }

impl Session {
    /// Runs it.
    pub fn run(&self, n: u32) -> u32 {
        let helper = 3;
        self.step(helper);
        Self::new();
        helper(n)
    }
}

impl Display for Session {
    fn fmt(&self) {}
}

mod inner {
    pub fn helper() {}
    macro_rules! m { () => {} }
}

fn helper(x: u32) -> u32 { inner::helper(); println!("{}", x); x }
"#,
    );
    println!("{got}");
    assert!(got.contains("def method Session::run"));
}

#[test]
fn typescript_sample() {
    let got = facts(
        Lang::Tsx,
        r#"import React, { useState as useS } from 'react';
import * as util from './util';
export { helper } from './helper';
export * from './all';

/** A button. */
export default function Button(props: Props) {
  const count = useS(0);
  return <Label text={util.format(count)} />;
}

export class Store<T> extends Base implements IStore {
  items: T[] = [];
  add(item: T): void { this.items.push(item); this.notify(); }
}

interface Props { label: string }
type Id = string;
enum Color { Red, Green = 2 }
namespace NS { export const x = 1; }
export const make = (id: Id) => new Store<Id>();
"#,
    );
    println!("{got}");
    assert!(got.contains("def method Store::add"));
}

/// Macro arguments are token trees to tree-sitter; calls inside them are still uses.
#[test]
fn rust_calls_inside_macro_arguments() {
    let facts = parse_source(
        Lang::Rust,
        br#"fn show(w: W, items: Vec<u32>) -> String {
    format!("{} {} {}", w.get(), Widget::new(1), helper(2));
    assert_eq!(compute(a, b), 3);
    format!("get helper")
}"#,
        &ParseConfig::default(),
    );
    let refs: Vec<String> = facts
        .references
        .iter()
        .filter(|r| r.kind.as_str() == "call")
        .map(|r| {
            format!(
                "{}{}",
                if r.receiver { "." } else { "" },
                match &r.qualifier {
                    Some(q) => format!("{q}::{}", r.name),
                    None => r.name.clone(),
                }
            )
        })
        .collect();
    assert_eq!(refs, [".w::get", "Widget::new", "helper", "compute"]);
    // `a` and `b` are plain identifiers, not calls; names inside strings are not uses.
    let on_line_4: Vec<&str> = facts
        .references
        .iter()
        .filter(|r| r.start.line == 4)
        .map(|r| r.name.as_str())
        .collect();
    assert_eq!(on_line_4, ["format"]);
}
