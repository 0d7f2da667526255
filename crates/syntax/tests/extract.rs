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

#[test]
fn c_sample() {
    let src = r#"#include "shop/cart.h"
#include <stdio.h>
#define LIMIT 10
#define MAX(a, b) ((a) > (b) ? (a) : (b))

/* A cart. */
typedef struct cart {
    int count;
    int (*on_change)(struct cart *);
} cart_t;

typedef struct { int x : 3; } packed_t;
enum color { RED, GREEN = 2 };
static int counter = 0;
extern int shared;
int total(const cart_t *c);

int *total_ptr(cart_t *c) {
    int n = MAX(c->count, LIMIT);
    c->on_change(c);
    return &c->count + n + RED + counter;
}
"#;
    let got = facts(Lang::C, src);
    println!("{got}");
    let expected = [
        "def macro LIMIT",
        "def macro MAX",
        // Struct fields are members; the typedef is an alias of the struct.
        "def struct cart",
        "def field cart::count",
        "def field cart::on_change",
        "def type_alias cart_t",
        r#"doc="A cart.""#,
        // An anonymous struct is named by its typedef.
        "def struct packed_t",
        "def field packed_t::x",
        // Enumerators are file-scope names, not members of their enum.
        "def enum color",
        "def enum_variant RED",
        "def variable counter",
        "def function total_ptr",
        // Members through pointer parameters typed by their declaration.
        "ref field count @19:20 on <cart_t>",
        "ref call on_change @20:8 on <cart_t>",
        "ref call MAX",
        // Includes are re-exported globs; a prototype and an `extern` declaration import
        // their name.
        r#"import * <- Module { source: "shop/cart.h", imported: None } reexport=true"#,
        r#"import * <- Module { source: "<stdio.h>", imported: None } reexport=true"#,
        r#"import total <- Path(["total"]) reexport=true"#,
        r#"import shared <- Path(["shared"]) reexport=true"#,
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // Declarations are not definitions; macro parameters are not references.
    assert!(!got.contains("def variable shared"), "{got}");
    assert!(!got.contains("def function total "), "{got}");
    assert!(!got.contains("ref identifier a "), "{got}");
}

/// What export macros and conditional compilation do to C declarations.
#[test]
fn c_macros_and_conditional_compilation() {
    let src = r#"LUA_API lua_Unsigned lua_rawlen (lua_State *L, int idx) {
#ifdef DEBUG
    int checked = 0;
#endif
    return 0;
}
LUALIB_API void (luaL_addgsub) (luaL_Buffer *b, const char *s);
LUA_API const char *(lua_pushfstring) (lua_State *L, const char *fmt, ...);
typedef void * (*lua_Alloc) (void *ud, void *ptr, size_t osize, size_t nsize);
typedef struct S { TString *tmname[TM_N]; int *(*hook)(int); } S;
#ifdef W
#  if W == 8
static const unsigned long table[] = { 0 };
#  else
local once_t made = ONCE_INIT;
#  endif
#endif
ZEXTERN int ZEXPORT deflate(z_streamp strm, int flush);
local const z_word_t FAR crc_table[][256] = { { 0 } };
int deflateParams(z_streamp strm) {
    if (strm->state->wrap == 1) {
        strm->adler = 1;
    }
#ifdef GZIP
    else if (strm->state->wrap == 2) {
        strm->adler = 0;
    }
#endif
    return 0;
}
"#;
    let got = facts(Lang::C, src);
    println!("{got}");
    let expected = [
        // The macro pushes the name into an error node; the return type is a reference.
        "def function lua_rawlen",
        "ref identifier lua_Unsigned",
        r#"import luaL_addgsub <- Path(["luaL_addgsub"]) reexport=true"#,
        r#"import lua_pushfstring <- Path(["lua_pushfstring"]) reexport=true"#,
        "def type_alias lua_Alloc",
        "def field S::tmname",
        "def field S::hook",
        // File-scope variables two conditional blocks deep, also after a macro.
        "def variable table",
        "def variable made",
        "def variable crc_table",
        r#"import deflate <- Path(["deflate"]) reexport=true"#,
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // A declaration in a function is a local, also inside conditional compilation.
    assert!(!got.contains("def variable checked"), "{got}");
    assert!(!got.contains("def function lua_Unsigned"), "{got}");
    assert!(!got.contains("def variable once_t"), "{got}");
    // The grammar completes `ZEXTERN int` and `local const z_word_t` with a missing `;`.
    assert!(!got.contains("def variable int"), "{got}");
    assert!(!got.contains("def variable z_word_t"), "{got}");
    // Conditional compilation inside a function body makes the grammar read a function.
    assert!(!got.contains("def function if"), "{got}");
}

/// Definitions sharing one node are siblings in source order, whatever the order the
/// query's matches arrive in; a name the grammar inserted while recovering is none.
#[test]
fn definitions_of_one_node_are_siblings() {
    let got = facts(Lang::Python, "release, version = get_version(\"x\")\n");
    let lines: Vec<&str> = got.lines().filter(|l| l.starts_with("def ")).collect();
    assert_eq!(lines.len(), 2, "{got}");
    assert!(lines[0].starts_with("def variable release @1:1"), "{got}");
    assert!(lines[1].starts_with("def variable version @1:10"), "{got}");
    assert!(lines.iter().all(|l| !l.contains("parent=")), "{got}");

    // C++ read as C: the grammar ends the last declaration with an empty identifier.
    let src = "static int first, second;\nextern \"C\" struct JPConversionInfo;\n";
    let got = facts(Lang::C, src);
    assert!(got.contains("def variable first @1:12 :"), "{got}");
    assert!(got.contains("def variable second @1:19 :"), "{got}");
    assert!(!got.contains("parent="), "{got}");
    assert!(!got.contains("  @"), "{got}");
}

#[test]
fn php_sample() {
    let src = r#"<html><?php
namespace App\Models;

use App\Contracts\Named;
use App\Support\{Clock, Log as Logger};
use function App\Support\format_price;

const LIMIT = 10;

/** A user. */
final class User extends Model implements Named
{
    use HasName;
    public const TABLE = 'users';
    private static int $count = 0;
    public function __construct(private ?Clock $clock = null) {}
    public static function create(): static
    {
        self::$count++;
        $user = new static();
        $user->clock->now();
        Logger::info(format_price(LIMIT));
        return $user;
    }
}
?></html>
"#;
    let got = facts(Lang::Php, src);
    println!("{got}");
    let expected = [
        // The namespace qualifies definitions; properties are named without their `$`.
        "def class App\\Models::User",
        "def constant App\\Models::LIMIT",
        "def constant App\\Models::User::TABLE",
        "def field App\\Models::User::count",
        // A promoted constructor parameter is a property, with its type.
        "def field App\\Models::User::clock",
        ": Clock",
        "doc=\"A user.\"",
        // Supertypes, the used trait among them.
        "container #0 User for User extends Model, Named, HasName",
        // Static members are written as paths; `$x->` members have receiver chains.
        "ref field count @19:16 q=self",
        "ref call now @21:23 on <static>.clock",
        "ref type Logger",
        "ref call info @22:17 q=Logger",
        "ref call format_price",
        "ref identifier LIMIT",
        // `use` declarations, grouped and aliased too.
        r#"import Named <- Module { source: "App\\Contracts", imported: Some("Named") }"#,
        r#"import Clock <- Module { source: "App\\Support", imported: Some("Clock") }"#,
        r#"import Logger <- Module { source: "App\\Support", imported: Some("Log") }"#,
        r#"import format_price <- Module { source: "App\\Support", imported: Some("format_price") }"#,
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // Variables are locals, never references; namespace names are none either.
    assert!(!got.contains("ref identifier user"), "{got}");
    assert!(!got.contains("ref identifier App"), "{got}");
    assert!(!got.contains("ref call static"), "{got}");
}

#[test]
fn ruby_sample() {
    let src = r#"require_relative 'base'

module Shop
  LIMIT = 10

  # A cart.
  class Cart < Base
    include Enumerable
    attr_reader :items, :owner

    def initialize(owner)
      @clock = Clock.new
    end

    def total
      items.sum { |i| i.price } + tax(LIMIT)
    end

    def self.create
      c = Shop::Cart.new
      c.total
      @clock.now
      first, *rest = [1, 2]
      rest.size + first
    end
  end
end
"#;
    let got = facts(Lang::Ruby, src);
    println!("{got}");
    let expected = [
        // Modules and classes qualify what they hold.
        "def module Shop",
        "def constant Shop::LIMIT",
        "def class Shop::Cart",
        r#"doc="A cart.""#,
        // `attr_reader :items` defines `items`; `initialize`'s instance variables are
        // fields, with the value they are assigned.
        "def method Cart::items",
        "def method Cart::owner",
        "def field Cart::@clock",
        "= Clock.new()",
        // A class method is a function of its class.
        "def function Cart::create",
        // The superclass and the mixin are supertypes.
        "container #1 Cart for Cart extends Base, Enumerable",
        // A bare name that is no local is a call of a method of `self`.
        "ref call items @16:7",
        "ref call tax @16:35",
        "ref identifier LIMIT",
        // Receivers: a local assigned `X.new`, an instance variable.
        "ref call total @21:9 on Shop::Cart.new()",
        "ref call now @22:14 on @clock",
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // Block parameters and locals (a splat in a multiple assignment too) are no
    // references; `require_relative`'s path is none.
    assert!(!got.contains("ref call i "), "{got}");
    assert!(!got.contains("ref call c "), "{got}");
    assert!(!got.contains("ref call rest "), "{got}");
    assert!(!got.contains("ref call first "), "{got}");
}

#[test]
fn kotlin_sample() {
    let src = r#"package com.acme.shop

import com.acme.util.Money
import com.acme.util.*
import com.acme.util.format as fmt

/** A cart. */
class Cart(val owner: String, private var items: MutableList<Item>) : Base(), Priced {
    private var total = 0

    fun add(item: Item): Cart {
        items.add(item)
        this.total += item.price
        val m = Money(3)
        m.plus(fmt(1, count = 2))
        return this
    }

    companion object {
        const val LIMIT = 10
        fun empty(): Map.Entry<String, Cart>? = null
    }
}

fun Cart.isLarge(): Boolean = total > LIMIT

enum class Kind { SMALL, LARGE }
"#;
    let got = facts(Lang::Kotlin, src);
    println!("{got}");
    let expected = [
        // The package qualifies every definition; constructor `val`s are fields.
        "def class com.acme.shop::Cart",
        r#"doc="A cart.""#,
        "def field com.acme.shop::Cart::owner @8:16 parent=0 in=#0 : String",
        "def field com.acme.shop::Cart::items @8:43 parent=0 in=#0 : MutableList<Item>",
        // A property's type from its value; a method's return type after its parameters.
        "def field com.acme.shop::Cart::total @9:17 parent=0 in=#0 = <builtin Int>",
        "def method com.acme.shop::Cart::add @11:9 parent=0 in=#0 : Cart",
        // A companion object's members are its class's; a qualified type is one name.
        "def field com.acme.shop::Cart::LIMIT",
        "def method com.acme.shop::Cart::empty @21:13 parent=0 in=#0 : Map::Entry<String, Cart>",
        // The superclass and the interface are supertypes.
        "container #0 Cart for Cart extends Base, Priced",
        // An extension function is a member of its receiver's type.
        "container #1 Cart for Cart",
        "def function com.acme.shop::Cart::isLarge @25:10 in=#1 : Boolean",
        "def enum com.acme.shop::Kind",
        "def enum_variant com.acme.shop::Kind::SMALL",
        // Receivers: `this`, a parameter's type, a local assigned a call.
        "ref field total @13:14 on self",
        "ref field price @13:28 on <Item>",
        "ref call plus @15:11 on Money()",
        // Imports, the alias under its own name.
        "import Money <- Module { source: \"com.acme.util\", imported: Some(\"Money\") }",
        "import * <- Module { source: \"com.acme.util\", imported: Some(\"*\") }",
        "import fmt <- Module { source: \"com.acme.util\", imported: Some(\"format\") }",
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // A named argument's name and a local are no references.
    assert!(!got.contains("ref identifier count"), "{got}");
    assert!(!got.contains("ref identifier m "), "{got}");
    assert!(!got.contains("ref identifier null"), "{got}");
}

#[test]
fn shell_sample() {
    let src = r#"#!/bin/bash
source ./lib/common.sh
. "$(dirname "$0")/lib/log.sh"
VERSION=1.2
export PREFIX=/usr

# Installs the files.
install_all() {
    local dest="$PREFIX/bin"
    for f in "$@"; do
        copy_one "$f" "$dest"
    done
    COUNT=$((COUNT + 1))
}

install_all "${VERSION}" | tee log.txt
"#;
    let got = facts(Lang::Shell, src);
    println!("{got}");
    let expected = [
        // Functions (with the comment above as doc) and top-level variables.
        r#"def function install_all @8:1 sig="install_all()" doc="Installs the files.""#,
        "def variable VERSION @4:1",
        "def variable PREFIX @5:8",
        // Commands call, expansions and assignments in functions name variables.
        "ref call copy_one @11:9 in=2",
        "ref identifier PREFIX @9:18 in=2",
        "ref identifier COUNT @13:5 in=2",
        "ref identifier COUNT @13:14 in=2",
        "ref call install_all @16:1",
        "ref identifier VERSION @16:16",
        // `source` and `.`: a literal path, and a dynamic one by its literal tail.
        r#"import * <- Module { source: "./lib/common.sh", imported: None } reexport=true @2:8"#,
        r#"import * <- Module { source: "<lib/log.sh>", imported: None } reexport=true @3:3"#,
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // Locals and loop variables are no references.
    assert!(!got.contains("ref identifier dest"), "{got}");
    assert!(!got.contains("ref identifier f "), "{got}");
}

#[test]
fn lua_sample() {
    let src = r#"local utils = require("pl.utils")
local M = {}

--- Adds things.
function M.add(a, b)
  local sum = a + b
  return utils.round(sum)
end

function M:run(x)
  return self:add(x, 1)
end

local function helper() return M.add(1, 2) end
M.sub = function(a, b) return a - b end
return M
"#;
    let got = facts(Lang::Lua, src);
    println!("{got}");
    let expected = [
        // A table's functions are members of the table; `:` makes a method.
        r#"def function M::add @5:12 in=#0 sig="function M.add(a, b)" doc="Adds things.""#,
        "def method M::run @10:12 in=#1",
        "def function helper @14:16",
        "def function M::sub @15:3 in=#2",
        // Member uses keep their receiver as written.
        "ref call round @7:16 on utils",
        "ref call add @11:15 on self",
        "ref call add @14:34 on M",
        r#"import utils <- Module { source: "pl/utils", imported: None } reexport=false @1:24"#,
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // Parameters and locals are no references.
    assert!(!got.contains("ref identifier sum"), "{got}");
    assert!(!got.contains("ref identifier a "), "{got}");
}

#[test]
fn cpp_sample() {
    let src = r#"#include "shop/cart.h"
namespace shop {
class Cart : public Base {
public:
    Cart(int n);
    int total() const;
    static Cart create();
private:
    int count_;
};

int Cart::total() const { return count_ + detail::helper(1) + area(); }
Cart Cart::create() { return Cart(1); }

template <typename T> T maxof(T a, T b) { return a > b ? a : b; }
using Money = long;
}

int main() {
    auto c = shop::Cart::create();
    std::unique_ptr<shop::Cart> p;
    return c.total() + p->total();
}
"#;
    let got = facts(Lang::Cpp, src);
    println!("{got}");
    let expected = [
        // Namespaces qualify; classes hold their methods, constructors and fields.
        "def class shop::Cart",
        "def method shop::Cart::Cart",
        "def method shop::Cart::total @6:9",
        "def field shop::Cart::count_",
        // A method defined outside its class is a member of the class it names.
        "def method shop::Cart::total @12:11",
        "def method shop::Cart::create @13:12",
        "def function shop::maxof",
        "def type_alias shop::Money",
        "container #0 Cart for Cart extends Base",
        // Qualified names, bare members, `auto` from the value, a smart pointer's value.
        "ref call helper @12:51 q=detail",
        "ref call area @12:63",
        "ref call create @20:26 q=Cart",
        "ref call total @22:14 on shop::Cart::create()",
        "ref call total @22:27 on <unique_ptr<shop::Cart>>",
    ];
    for want in expected {
        assert!(got.contains(want), "missing {want:?} in\n{got}");
    }
    // A constructor declared in its class is no prototype of something elsewhere.
    assert!(!got.contains("import Cart"), "{got}");
}
