//! The fixture repositories indexed end to end, with expected `find`, `refs`, `callers`
//! and `search` answers as snapshots (`cargo insta review` after a deliberate change).

mod common;

use common::{fixture, index, query};

fn answers(fixture_name: &str, queries: &[&[&str]]) -> String {
    let dir = fixture(fixture_name);
    index(dir.path());
    let mut out = String::new();
    for args in queries {
        let (code, text) = query(dir.path(), args);
        out.push_str(&format!(
            "$ mcursor {}  (exit {code})\n{text}\n",
            args.join(" ")
        ));
    }
    out
}

#[test]
fn rust_fixture() {
    insta::assert_snapshot!(answers(
        "rust-basic",
        &[
            &["find", "parse_config"],
            &["find", "Session::run"],
            &["find", "run", "--kind", "method"],
            &["find", "defaults::TIMEOUT_MS"],
            &["find", "Config", "--prefix"],
            &["refs", "parse_config"],
            &["refs", "src/config.rs:31:12"],
            &["refs", "Client::new"],
            &["refs", "Client::run"],
            &["refs", "State"],
            &["callers", "backoff"],
            &["callers", "backoff", "--depth", "2"],
            &["callees", "start"],
            &["search", "retry backoff"],
            &["search", "--regex", r"fn \w+_config"],
        ]
    ));
}

#[test]
fn typescript_fixture() {
    insta::assert_snapshot!(answers(
        "ts-basic",
        &[
            &["find", "add"],
            &["find", "Store.add"],
            &["find", "Format.label"],
            &["find", "Status", "--lang", "typescript"],
            &["refs", "Store.add"],
            &["refs", "Cache.add"],
            &["refs", "Button"],
            &["refs", "Label"],
            &["refs", "createStore"],
            &["refs", "Item"],
            &["callers", "createStore"],
            &["search", "createStore", "--path", "src/*.ts"],
        ]
    ));
}

#[test]
fn javascript_fixture() {
    insta::assert_snapshot!(answers(
        "js-basic",
        &[
            &["find", "Calculator"],
            &["find", "Calculator.add"],
            &["refs", "add"],
            &["refs", "Calculator"],
            &["refs", "Panel"],
            &["callees", "Calculator.add"],
        ]
    ));
}

#[test]
fn python_fixture() {
    insta::assert_snapshot!(answers(
        "py-basic",
        &[
            &["find", "add"],
            &["find", "Cart.add"],
            &["find", "TAX_RATE"],
            &["refs", "Cart.add"],
            &["refs", "Store.add"],
            &["refs", "prices.add"],
            &["refs", "with_tax"],
            &["refs", "Cart"],
            &["refs", "Cart.total"],
            &["callers", "open_store"],
            &["callees", "Store.checkout"],
            &["search", "with_tax", "--path", "tests/*.py"],
        ]
    ));
}

#[test]
fn go_fixture() {
    insta::assert_snapshot!(answers(
        "go-basic",
        &[
            &["find", "Add"],
            &["find", "Cart.Add"],
            &["refs", "Cart.Add"],
            &["refs", "Store.Add"],
            &["refs", "store.add"],
            &["refs", "Cart.total"],
            &["refs", "Cart"],
            &["callers", "Cart.Total"],
            &["callees", "shop.main"],
        ]
    ));
}

#[test]
fn java_fixture() {
    insta::assert_snapshot!(answers(
        "java-basic",
        &[
            &["find", "add"],
            &["find", "Cart.add"],
            &["refs", "Cart.add"],
            &["refs", "Store.add"],
            &["refs", "Prices.add"],
            &["refs", "Cart.total"],
            &["refs", "Named.label"],
            &["refs", "Cart"],
            &["callers", "Store.checkout"],
            &["callees", "App.main"],
            &["impls", "Named"],
        ]
    ));
}

#[test]
fn csharp_fixture() {
    insta::assert_snapshot!(answers(
        "csharp-basic",
        &[
            &["find", "Add"],
            &["find", "Cart.Add"],
            &["refs", "Cart.Add"],
            &["refs", "Store.Add"],
            &["refs", "Prices.Add"],
            &["refs", "Cart.Total"],
            &["refs", "INamed.Label"],
            &["refs", "Cart"],
            &["refs", "Prices.WithTax"],
            &["callers", "Cart.Discount"],
            &["callees", "Program.Main"],
            &["impls", "INamed"],
        ]
    ));
}

#[test]
fn c_fixture() {
    insta::assert_snapshot!(answers(
        "c-basic",
        &[
            &["find", "clamp"],
            &["find", "cart.count"],
            &["refs", "cart_total"],
            &["refs", "cart.count"],
            &["refs", "cart.on_change"],
            &["refs", "cart_t"],
            &["refs", "MAX_PRICE"],
            &["refs", "src/main.c:3"],
            &["refs", "helper_elsewhere"],
            &["callers", "cart_total"],
            &["callees", "main"],
        ],
    ));
}

#[test]
fn php_fixture() {
    insta::assert_snapshot!(answers(
        "php-basic",
        &[
            &["find", "Cart"],
            &["find", "Cart::total"],
            &["refs", "Cart::add"],
            &["refs", "Prices::withTax"],
            &["refs", "Prices::RATE"],
            &["refs", "Named::label"],
            &["refs", "Discounts::discount"],
            &["refs", "format_price"],
            &["refs", "LIMIT"],
            &["refs", "Item"],
            &["callers", "Cart::total"],
            &["callees", "App\\main"],
            &["impls", "Named"],
        ],
    ));
}

#[test]
fn ruby_fixture() {
    insta::assert_snapshot!(answers(
        "ruby-basic",
        &[
            &["find", "Cart"],
            &["find", "Cart#total"],
            &["refs", "Shop::Cart"],
            &["refs", "Cart::total"],
            &["refs", "Discounts::discount"],
            &["refs", "Prices::with_tax"],
            &["refs", "Item::price"],
            &["refs", "Cart::@items"],
            &["refs", "LIMIT"],
            &["callers", "Cart::add"],
            &["callees", "Shop::demo"],
            &["impls", "Discounts"],
        ],
    ));
}

#[test]
fn kotlin_fixture() {
    insta::assert_snapshot!(answers(
        "kotlin-basic",
        &[
            &["find", "Cart"],
            &["find", "Cart.total"],
            &["find", "isLarge"],
            &["refs", "com.acme.shop.model.Cart"],
            &["refs", "Cart.add"],
            &["refs", "Priced.total"],
            &["refs", "Discount.apply"],
            &["refs", "Item.price"],
            &["refs", "Cart.LIMIT"],
            &["refs", "isLarge"],
            &["callers", "Cart.add"],
            &["callees", "main"],
            &["impls", "Discount"],
        ],
    ));
}

#[test]
fn shell_fixture() {
    insta::assert_snapshot!(answers(
        "shell-basic",
        &[
            &["find", "log"],
            &["find", "build"],
            &["refs", "log"],
            &["refs", "die"],
            &["refs", "BUILD_DIR"],
            &["callers", "log"],
            &["callees", "run_tests"],
        ],
    ));
}

#[test]
fn lua_fixture() {
    insta::assert_snapshot!(answers(
        "lua-basic",
        &[
            &["find", "Cart.add"],
            &["refs", "Cart.new"],
            &["refs", "prices.with_tax"],
            &["refs", "round"],
            &["refs", "Cart.total"],
            &["callees", "Cart.total"],
        ],
    ));
}

#[test]
fn cpp_fixture() {
    insta::assert_snapshot!(answers(
        "cpp-basic",
        &[
            &["find", "Cart"],
            &["find", "Cart::total"],
            &["refs", "shop::Cart"],
            &["refs", "Cart::add"],
            &["refs", "Cart::total"],
            &["refs", "Priced::total"],
            &["refs", "prices::with_tax"],
            &["refs", "Item::price"],
            &["refs", "Cart::items_"],
            &["callers", "Cart::total"],
            &["callees", "main"],
            &["impls", "Priced"],
        ],
    ));
}

#[test]
fn same_name_different_symbols_are_not_confused() {
    let dir = fixture("rust-basic");
    index(dir.path());
    // `parse_config` in lib.rs is the `pub use` of config::parse_config, never the
    // unrelated config::defaults::parse_config.
    let (_, top) = query(dir.path(), &["refs", "src/config.rs:11:8", "--json"]);
    let (_, nested) = query(dir.path(), &["refs", "src/config.rs:31:12", "--json"]);
    let top: serde_json::Value = serde_json::from_str(&top).expect("json");
    let nested: serde_json::Value = serde_json::from_str(&nested).expect("json");
    let paths = |v: &serde_json::Value| -> Vec<String> {
        v.as_array()
            .expect("array")
            .iter()
            .map(|r| format!("{}:{}", r["path"].as_str().unwrap_or(""), r["line"]))
            .collect()
    };
    assert!(paths(&top).contains(&"src/lib.rs:12".to_owned()), "{top}");
    assert!(
        paths(&top).contains(&"tests/smoke.rs:5".to_owned()),
        "{top}"
    );
    assert!(
        !paths(&nested).contains(&"src/lib.rs:12".to_owned()),
        "{nested}"
    );
    // The local `let parse_config = 1;` in Session::run shadows the function.
    assert!(
        !paths(&top).iter().any(|p| p.starts_with("src/session.rs")),
        "{top}"
    );
}

#[test]
fn json_shapes_follow_the_contract() {
    let dir = fixture("rust-basic");
    index(dir.path());
    let (code, find) = query(dir.path(), &["find", "parse_config", "--json"]);
    assert_eq!(code, 0);
    let find: serde_json::Value = serde_json::from_str(&find).expect("find json");
    for key in [
        "name",
        "qualified_name",
        "kind",
        "lang",
        "path",
        "line",
        "column",
        "end_line",
        "signature",
    ] {
        assert!(find[0].get(key).is_some(), "find lacks {key}: {find}");
    }
    let (_, refs) = query(dir.path(), &["refs", "parse_config", "--json"]);
    let refs: serde_json::Value = serde_json::from_str(&refs).expect("refs json");
    for key in [
        "path",
        "line",
        "column",
        "kind",
        "enclosing",
        "target",
        "confidence",
        "text",
    ] {
        assert!(refs[0].get(key).is_some(), "refs lacks {key}: {refs}");
    }
    let (_, search) = query(dir.path(), &["search", "backoff", "--json"]);
    let search: serde_json::Value = serde_json::from_str(&search).expect("search json");
    for key in ["path", "line", "text", "score"] {
        assert!(search[0].get(key).is_some(), "search lacks {key}: {search}");
    }
    let output = common::mcursor(dir.path(), &["index", "--json"]);
    let summary: serde_json::Value = serde_json::from_slice(&output.stdout).expect("index json");
    for key in ["files", "skipped", "symbols", "references", "duration_ms"] {
        assert!(summary.get(key).is_some(), "index lacks {key}: {summary}");
    }
}

#[test]
fn a_missing_name_exits_1_and_labels_suggestions() {
    let dir = fixture("rust-basic");
    index(dir.path());
    let output = common::mcursor(dir.path(), &["find", "parse_confg"]);
    assert_eq!(output.status.code(), Some(1));
    assert!(
        output.stdout.is_empty(),
        "suggestions must not look like answers"
    );
    let err = common::stderr(&output);
    assert!(err.contains("no symbol named parse_confg"), "{err}");
    assert!(
        err.contains("suggestions (not matches): parse_config"),
        "{err}"
    );
    let output = common::mcursor(dir.path(), &["find", "parse_confg", "--json"]);
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(common::stdout(&output).trim(), "[]");
}

#[test]
fn an_unchanged_tree_is_not_rebuilt_and_a_changed_one_is() {
    let dir = fixture("rust-basic");
    let run = |args: &[&str]| -> serde_json::Value {
        let output = common::mcursor(dir.path(), args);
        assert!(output.status.success(), "{}", common::stderr(&output));
        serde_json::from_slice(&output.stdout).expect("index json")
    };
    let first = run(&["index", "--json"]);
    assert_eq!(first["unchanged"], false);
    let second = run(&["index", "--json"]);
    assert_eq!(second["unchanged"], true, "{second}");
    assert_eq!(second["generation"], first["generation"]);
    assert_eq!(second["symbols"], first["symbols"]);
    let forced = run(&["index", "--json", "--full"]);
    assert_eq!(forced["unchanged"], false);
    std::fs::write(
        dir.path().join("src/config.rs"),
        "pub fn renamed_config() {}\n",
    )
    .expect("write");
    let third = run(&["index", "--json"]);
    assert_eq!(third["unchanged"], false, "{third}");
    assert_eq!(query(dir.path(), &["find", "renamed_config"]).0, 0);
    assert_eq!(query(dir.path(), &["find", "default_retries"]).0, 1);
}
