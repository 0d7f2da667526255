//! Shared set-up for the divan benchmarks in `hot_paths.rs`: synthetic corpora written
//! and indexed once per benchmark process. The benchmarks themselves live beside this
//! file; the figures and the commands that produce them are in `README.md`.

use std::path::{Path, PathBuf};

use mcursor_index::{BuildOptions, Index, build_index};
use mcursor_synth::{NameClass, SynthConfig, SynthLang, Truth, generate};

/// A generated, indexed corpus that lives as long as the benchmark process.
pub struct IndexedCorpus {
    _dir: tempfile::TempDir,
    pub root: PathBuf,
    pub index: Index,
    pub truth: Truth,
}

impl IndexedCorpus {
    /// A planted name of `class` with the most references (a stable, non-trivial choice).
    ///
    /// # Panics
    /// When the corpus has no name of that class (every generated corpus has all three).
    #[allow(clippy::expect_used)]
    pub fn name(&self, class: NameClass) -> &str {
        self.truth
            .names
            .iter()
            .filter(|(_, n)| n.class == class)
            .max_by_key(|(name, n)| (n.references.len(), std::cmp::Reverse(name.as_str())))
            .map(|(name, _)| name.as_str())
            .expect("every class is planted")
    }
}

/// Writes a seeded synthetic corpus of `files` files and indexes it.
///
/// # Panics
/// When the temporary directory cannot be written: a benchmark cannot run without it.
#[allow(clippy::expect_used)]
pub fn indexed_corpus(lang: SynthLang, files: usize) -> IndexedCorpus {
    let dir = tempfile::tempdir().expect("temporary directory");
    let root = dir.path().join("corpus");
    let truth = generate(
        &SynthConfig {
            lang,
            files,
            seed: 1,
        },
        &root,
    )
    .expect("generate corpus");
    build_index(&root, &BuildOptions::default(), &|_| {}).expect("index corpus");
    let index = Index::open_root(&root).expect("open index");
    IndexedCorpus {
        _dir: dir,
        root,
        index,
        truth,
    }
}

/// The text of one generated file, for parse benchmarks.
#[allow(clippy::expect_used)]
pub fn sample_source(corpus: &Path, relative: &str) -> Vec<u8> {
    std::fs::read(corpus.join(relative)).expect("generated file")
}
