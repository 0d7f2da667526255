//! Hot paths, in process: parse + extract per language, definition and reference lookups
//! on a 2,000-file index, full-text search, and a one-file change followed by
//! `mcursor index` (which rebuilds the whole index today; see README.md).
//!
//! Run: `cargo bench -p mcursor-benches` (figures in benches/README.md).

#![allow(clippy::expect_used)]

use std::sync::LazyLock;
use std::time::Duration;

use divan::Bencher;
use divan::counter::BytesCount;
use mcursor_benches::{IndexedCorpus, indexed_corpus, sample_source};
use mcursor_index::{BuildOptions, FindQuery, RefTarget, RefsQuery, SearchQuery, build_index};
use mcursor_syntax::{Lang, ParseConfig, parse_source};
use mcursor_synth::{NameClass, SynthLang};

fn main() {
    divan::main();
}

static RUST: LazyLock<IndexedCorpus> = LazyLock::new(|| indexed_corpus(SynthLang::Rust, 2_000));

/// Real sources: this repository's largest Rust module, and generated TypeScript.
static RUST_SOURCE: &[u8] = include_bytes!("../crates/index/src/build.rs");
static TS_CORPUS: LazyLock<IndexedCorpus> =
    LazyLock::new(|| indexed_corpus(SynthLang::TypeScript, 50));

#[divan::bench]
fn parse_extract_rust(bencher: Bencher) {
    let config = ParseConfig::default();
    bencher
        .counter(BytesCount::of_slice(RUST_SOURCE))
        .bench(|| parse_source(Lang::Rust, divan::black_box(RUST_SOURCE), &config));
}

#[divan::bench]
fn parse_extract_typescript(bencher: Bencher) {
    let config = ParseConfig::default();
    let source = sample_source(&TS_CORPUS.root, "src/d000/m00007.ts");
    bencher
        .counter(BytesCount::of_slice(&source))
        .bench(|| parse_source(Lang::TypeScript, divan::black_box(&source), &config));
}

#[divan::bench]
fn parse_extract_javascript(bencher: Bencher) {
    let config = ParseConfig::default();
    // The fixture's module, repeated to a size where per-call set-up does not dominate.
    let module = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/js-basic/lib/math.js"
    ))
    .expect("fixture");
    let source = module.repeat(20);
    bencher
        .counter(BytesCount::of_slice(&source))
        .bench(|| parse_source(Lang::JavaScript, divan::black_box(&source), &config));
}

const CLASSES: [NameClass; 3] = [NameClass::Rare, NameClass::Medium, NameClass::Common];

/// `find` for the most-used rare, medium (shared) and very common (`get`) name.
#[divan::bench(args = CLASSES)]
fn find_symbol(bencher: Bencher, class: NameClass) {
    let index = &RUST.index;
    let name = RUST.name(class);
    bencher.bench(|| index.find(&FindQuery::exact(divan::black_box(name))));
}

#[divan::bench(args = CLASSES)]
fn find_references(bencher: Bencher, class: NameClass) {
    let index = &RUST.index;
    let name = RUST.name(class);
    bencher.bench(|| {
        let targets = index
            .targets(&RefTarget::Name(name.to_owned()))
            .expect("name target");
        index.references(&targets, &RefsQuery::default())
    });
}

#[divan::bench(args = ["widget", "render value"])]
fn search_code(bencher: Bencher, query: &str) {
    let index = &RUST.index;
    bencher.bench(|| {
        index.search(&SearchQuery {
            query: query.to_owned(),
            regex: false,
            path_glob: None,
            lang: None,
            limit: 20,
        })
    });
}

/// One file gains a function, then `build_index` brings the index up to date: the
/// file's interface changed, so names are resolved across the corpus again.
#[divan::bench(sample_count = 10, sample_size = 1, max_time = Duration::from_secs(30))]
fn one_file_interface_edit(bencher: Bencher) {
    let corpus = &*RUST;
    let file = corpus.root.join("src/d003/m00321.rs");
    let original = std::fs::read_to_string(&file).expect("generated file");
    let round = std::sync::atomic::AtomicU64::new(0);
    bencher
        .with_inputs(|| {
            let n = round.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            std::fs::write(&file, format!("{original}\npub fn edited_{n}() {{}}\n"))
                .expect("edit file");
        })
        .bench_values(|()| {
            build_index(&corpus.root, &BuildOptions::default(), &|_| {}).expect("update")
        });
}

/// One file's body edited (a comment line on top moves every definition down), then
/// `build_index` brings the index up to date: written as a patch.
#[divan::bench(sample_count = 20, sample_size = 1, max_time = Duration::from_secs(30))]
fn one_file_body_edit(bencher: Bencher) {
    let corpus = &*RUST;
    let file = corpus.root.join("src/d004/m00421.rs");
    let original = std::fs::read_to_string(&file).expect("generated file");
    let round = std::sync::atomic::AtomicU64::new(0);
    bencher
        .with_inputs(|| {
            let n = round.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let comments = "// edited\n".repeat(1 + (n % 2) as usize);
            std::fs::write(&file, format!("{comments}{original}")).expect("edit file");
        })
        .bench_values(|()| {
            let summary =
                build_index(&corpus.root, &BuildOptions::default(), &|_| {}).expect("update");
            assert!(summary.patched, "a body edit should be a patch");
            summary
        });
}
