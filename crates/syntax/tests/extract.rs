//! Extraction tests: small inline sources, their facts rendered as text.

use mcursor_syntax::{Lang, ParseConfig, describe_chain, describe_facts, parse_source};

fn facts(lang: Lang, src: &str) -> String {
    describe_facts(&parse_source(lang, src.as_bytes(), &ParseConfig::default()))
}

/// The receiver chain of each member use, as `name on chain`, in source order.
fn receivers(lang: Lang, src: &str) -> Vec<String> {
    parse_source(lang, src.as_bytes(), &ParseConfig::default())
        .references
        .iter()
        .filter_map(|r| {
            r.receiver_chain
                .as_ref()
                .map(|c| format!("{} on {}", r.name, describe_chain(c)))
        })
        .collect()
}

#[test]
fn rust_receiver_chains() {
    let got = receivers(
        Lang::Rust,
        r#"fn f(engine: &Engine, items: Vec<Item>, map: HashMap<K, V>) {
    let x = Engine::new()?;
    x.run();
    let x = x.clone();
    self.config.load().unwrap().start();
    for (k, v) in map.iter() { v.go(); }
    items.iter().find(|i| i.ok());
    if let Some(found) = lookup() { found.use_it(); }
    match kind { Kind::Pair(a, ref b) => b.second() }
    engine.run();
}"#,
    );
    assert_eq!(
        got,
        [
            "run on Engine::new()?",
            "clone on Engine::new()?",
            "config on self",
            "load on self.config",
            "unwrap on self.config.load()",
            "start on self.config.load().unwrap()",
            // Parameters are replaced by their declared types.
            "iter on <HashMap<K, V>>",
            "go on <HashMap<K, V>>.iter()[*].1",
            "iter on <Vec<Item>>",
            "find on <Vec<Item>>.iter()",
            "ok on <Vec<Item>>.iter().find(#0: |#0|)",
            "use_it on lookup()?",
            "second on <Kind::Pair>.1",
            "run on <Engine>",
        ]
    );
}

#[test]
fn typescript_receiver_chains() {
    let got = receivers(
        Lang::TypeScript,
        r#"function f(o: Observer | null, list: Item[]) {
  const s = new Subject<number>();
  s.next(1);
  o?.next(2);
  const { a } = this;
  list.forEach((x) => x.run());
  operate((source, subscriber) => subscriber.next(source));
  (o as Other).call();
}"#,
    );
    assert_eq!(
        got,
        [
            "next on <Subject>",
            "next on <Observer>",
            "a on self",
            "forEach on <[Item]>",
            "run on <[Item]>.forEach(#0: |#0|)",
            "next on operate(#0: |#1|)",
            "call on <Other>",
        ]
    );
}

#[test]
fn definitions_carry_their_types() {
    let got = facts(
        Lang::Rust,
        r#"struct Pair(u32, Word);
trait Parser { fn parse(&self, input: &str) -> Option<Self>; }
impl<P: Source> Parser for P { fn parse(&self, input: &str) -> Option<Self> { None } }
fn run<F>(f: F) -> Box<dyn Engine> where F: Fn(&mut Table) -> bool { todo!() }"#,
    );
    assert!(
        got.contains("def struct Pair @1:8 fields=(builtin u32, Word)"),
        "{got}"
    );
    assert!(
        got.contains("container #2 <P as Parser> for impl Source implements Parser blanket"),
        "{got}"
    );
    assert!(
        got.contains(
            "def method <P as Parser>::parse @3:35 in=#2 : Option<Self> params=(builtin str)"
        ),
        "{got}"
    );
    // A trait method without a body keeps its whole signature.
    assert!(
        got.contains(r#"sig="fn parse(&self, input: &str) -> Option<Self>""#),
        "{got}"
    );
    assert!(
        got.contains(
            "def function run @4:4 : Box<impl Engine> params=(impl fn(Table) -> builtin bool)"
        ),
        "{got}"
    );
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

#[test]
fn csharp_sample() {
    let src = r#"global using Acme.Core;
using System.Collections.Generic;
using static Acme.Util.Helpers;
using Clock = Acme.Util.Clock;

namespace Acme.Shop;

/// <summary>A cart.</summary>
[Cached]
public partial class Cart<T> : Base, INamed where T : IItem
{
    private readonly List<Item> items = new List<Item>();
    public int Count { get; set; }
    public Cart Add(Item item) { var copy = new Item(); this.items.Add(copy); return this; }
    public class Line { public int Qty; }
}

public static class CartExtensions
{
    public static int Doubled(this Cart cart) => cart.Count * 2;
}
"#;
    let got = facts(Lang::CSharp, src);
    println!("{got}");
    let expected = [
        // Namespaces qualify definitions; nested types are qualified by their outer type.
        "def class Acme.Shop::Cart",
        "def field Acme.Shop::Cart::items",
        "def field Acme.Shop::Cart::Count",
        "def method Acme.Shop::Cart::Add",
        "def class Acme.Shop::Cart::Line",
        // A field's type is on its definition; the doc comment on the type.
        ": List<Item>",
        r#"doc="<summary>A cart.</summary>""#,
        // An extension method is a function of its class.
        "def function Acme.Shop::CartExtensions::Doubled",
        // `[Cached]` names the attribute class; base types are type references.
        "ref type CachedAttribute",
        "ref type Base",
        "ref type INamed",
        "ref type IItem",
        // Members through `this` and locals typed by `var x = new T()`.
        "ref field items @14:62 on self",
        "ref call Add @14:68 on self.items",
        // Usings: global (re-exported to every file), on-demand, static, alias.
        r#"import * <- Module { source: "Acme.Core", imported: Some("*") } reexport=true"#,
        r#"import * <- Module { source: "System.Collections.Generic", imported: Some("*") } reexport=false"#,
        r#"import * <- Module { source: "Acme.Util.Helpers", imported: Some("*") } reexport=false"#,
        r#"import Clock <- Module { source: "Acme.Util", imported: Some("Clock") } reexport=false"#,
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // The type parameter is not a reference; neither is the namespace's name.
    assert!(!got.contains("ref identifier T "), "{got}");
    assert!(!got.contains("ref type T "), "{got}");
    assert!(!got.contains("ref identifier Shop"), "{got}");
    assert_eq!(
        receivers(Lang::CSharp, src)
            .iter()
            .filter(|r| r.starts_with("Count on"))
            .count(),
        1
    );
}
