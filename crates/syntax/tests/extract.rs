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
