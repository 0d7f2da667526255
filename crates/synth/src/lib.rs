//! mcursor-synth writes synthetic Rust or TypeScript repositories of any size from a seed,
//! and returns the ground truth it planted: for every generated name, the lines that
//! define it and the lines that refer to it.
//!
//! The trees are built to be hard for text search and honest for an index: the same name
//! is defined in several modules, very common method names (`new`, `get`, `render`)
//! appear in every file, names are mentioned in comments and strings, local variables
//! shadow function names, and `get` is also called on standard containers (a use that no
//! definition in the tree answers). Truth is written from the generator's own knowledge,
//! never by analysing the output.
//!
//! The same seed and size always give byte-identical trees (the random source is our own
//! SplitMix64, not a crate whose stream may change between versions).
//!
//! ```no_run
//! use mcursor_synth::{SynthConfig, SynthLang, generate};
//! let config = SynthConfig { lang: SynthLang::Rust, files: 1000, seed: 7 };
//! let truth = generate(&config, std::path::Path::new("/tmp/synth-rs-1k"))?;
//! println!("{} names planted", truth.names.len());
//! # Ok::<(), mcursor_synth::SynthError>(())
//! ```

mod rng;
mod rust;
mod truth;
mod typescript;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

pub use rng::SplitMix64;
pub use truth::{NameClass, NameTruth, Truth};

#[derive(Debug, thiserror::Error)]
pub enum SynthError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} exists and is not an empty directory; choose a new output directory")]
    OutputNotEmpty(PathBuf),
    #[error("{path}: not a ground-truth file: {detail}")]
    BadTruth { path: PathBuf, detail: String },
    #[error("a corpus needs at least 2 files (asked for {0})")]
    TooFewFiles(usize),
}

pub type Result<T, E = SynthError> = std::result::Result<T, E>;

fn io_at(path: &Path) -> impl FnOnce(std::io::Error) -> SynthError + '_ {
    move |source| SynthError::Io {
        path: path.to_path_buf(),
        source,
    }
}

#[derive(
    Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum SynthLang {
    #[value(alias = "rs")]
    Rust,
    #[value(name = "typescript", alias = "ts")]
    TypeScript,
}

impl SynthLang {
    pub fn as_str(self) -> &'static str {
        match self {
            SynthLang::Rust => "rust",
            SynthLang::TypeScript => "typescript",
        }
    }
}

#[derive(Clone, Debug)]
pub struct SynthConfig {
    pub lang: SynthLang,
    pub files: usize,
    pub seed: u64,
}

/// Files per directory; a directory is a module (`src/d007/m00712.rs`).
const FILES_PER_DIR: usize = 100;

const VERBS: [&str; 40] = [
    "load",
    "parse",
    "fetch",
    "store",
    "build",
    "check",
    "render",
    "merge",
    "split",
    "apply",
    "open",
    "close",
    "read",
    "write",
    "send",
    "scan",
    "sort",
    "find",
    "count",
    "clear",
    "reset",
    "encode",
    "decode",
    "format",
    "update",
    "insert",
    "remove",
    "resolve",
    "compile",
    "emit",
    "collect",
    "filter",
    "visit",
    "spawn",
    "flush",
    "track",
    "verify",
    "normalize",
    "select",
    "compute",
];
const NOUNS: [&str; 40] = [
    "config", "table", "index", "buffer", "record", "header", "token", "stream", "cache",
    "request", "response", "session", "packet", "frame", "layout", "schema", "query", "column",
    "segment", "entry", "value", "handle", "cursor", "range", "path", "module", "symbol", "span",
    "batch", "queue", "event", "rule", "policy", "graph", "node", "edge", "block", "chunk",
    "field", "payload",
];

/// What the generator decided about one file before writing any of them.
#[derive(Clone, Debug)]
struct FilePlan {
    /// Module path segments: `["d000", "m00012"]`.
    dir: String,
    module: String,
    /// The file's widget type, unique in the tree.
    widget: String,
    /// A function defined only here.
    unique_fn: String,
    /// A function whose name other files also define.
    shared_fn: usize,
}

/// One file's choices of what to refer to, decided from the plans of other files.
#[derive(Clone, Debug)]
struct FileLinks {
    /// Imported by name, called, and its widget used.
    imported: usize,
    /// Called through its module path (Rust) or a namespace import (TypeScript).
    qualified: usize,
    /// A shared function imported from one of the files that define it.
    shared: Option<(usize, usize)>,
    /// A shared name used as a local variable here (a decoy).
    shadow: usize,
}

struct Plan {
    files: Vec<FilePlan>,
    shared_names: Vec<String>,
    links: Vec<FileLinks>,
}

fn words(rng: &mut SplitMix64) -> (&'static str, &'static str) {
    (VERBS[rng.below(VERBS.len())], NOUNS[rng.below(NOUNS.len())])
}

fn plan(config: &SynthConfig) -> Plan {
    let mut rng = SplitMix64::new(config.seed);
    let camel = config.lang == SynthLang::TypeScript;
    let join = |verb: &str, noun: &str, suffix: &str| {
        if camel {
            let mut noun_cap = noun.to_owned();
            noun_cap[..1].make_ascii_uppercase();
            format!("{verb}{noun_cap}{suffix}")
        } else if suffix.is_empty() {
            format!("{verb}_{noun}")
        } else {
            format!("{verb}_{noun}_{suffix}")
        }
    };
    let shared_count = (config.files / 10).max(1);
    let mut shared_names = Vec::with_capacity(shared_count);
    let mut seen = std::collections::HashSet::new();
    while shared_names.len() < shared_count {
        let (verb, noun) = words(&mut rng);
        let mut name = join(verb, noun, "");
        if !seen.insert(name.clone()) {
            let suffix = if camel {
                format!("S{}", shared_names.len())
            } else {
                format!("s{}", shared_names.len())
            };
            name = join(verb, noun, &suffix);
            seen.insert(name.clone());
        }
        shared_names.push(name);
    }
    let files: Vec<FilePlan> = (0..config.files)
        .map(|i| {
            let (verb, noun) = words(&mut rng);
            FilePlan {
                dir: format!("d{:03}", i / FILES_PER_DIR),
                module: format!("m{i:05}"),
                widget: format!("Widget{i}"),
                unique_fn: join(verb, noun, &i.to_string()),
                shared_fn: rng.below(shared_count),
            }
        })
        .collect();
    let mut definers: BTreeMap<usize, Vec<usize>> = BTreeMap::new();
    for (i, f) in files.iter().enumerate() {
        definers.entry(f.shared_fn).or_default().push(i);
    }
    let defined: Vec<usize> = definers.keys().copied().collect();
    let other = |rng: &mut SplitMix64, i: usize| {
        let j = rng.below(config.files - 1);
        if j >= i { j + 1 } else { j }
    };
    let links = (0..config.files)
        .map(|i| {
            let imported = other(&mut rng, i);
            let qualified = other(&mut rng, i);
            let own = files[i].shared_fn;
            let mut shared = None;
            for _ in 0..4 {
                let name = defined[rng.below(defined.len())];
                let holders = &definers[&name];
                let holder = holders[rng.below(holders.len())];
                if name != own && holder != i {
                    shared = Some((name, holder));
                    break;
                }
            }
            let mut shadow = rng.below(shared_count);
            while shared_count > 2 && (shadow == own || shared.is_some_and(|(s, _)| s == shadow)) {
                shadow = rng.below(shared_count);
            }
            FileLinks {
                imported,
                qualified,
                shared,
                shadow,
            }
        })
        .collect();
    Plan {
        files,
        shared_names,
        links,
    }
}

/// Text of one file under construction, with the truth it plants as lines are added.
struct FileWriter<'t> {
    path: String,
    text: String,
    line: u32,
    truth: &'t mut Truth,
}

impl<'t> FileWriter<'t> {
    fn new(path: String, truth: &'t mut Truth) -> Self {
        FileWriter {
            path,
            text: String::new(),
            line: 0,
            truth,
        }
    }

    /// Appends one line; `defines` and `refers` name what that line defines and uses.
    fn line(&mut self, text: &str, defines: &[&str], refers: &[&str]) {
        self.line += 1;
        self.text.push_str(text);
        self.text.push('\n');
        for name in defines {
            self.truth.define(name, &self.path, self.line);
        }
        for name in refers {
            self.truth.refer(name, &self.path, self.line);
        }
    }

    fn plain(&mut self, text: &str) {
        self.line(text, &[], &[]);
    }
}

/// What one module's template needs from the plan.
#[derive(Clone, Copy)]
struct ModuleLinks<'p> {
    file: &'p FilePlan,
    imported: &'p FilePlan,
    qualified: &'p FilePlan,
    shared: &'p str,
    shadow: &'p str,
    /// A shared function to import, and the module it is imported from.
    shared_import: Option<(&'p str, &'p FilePlan)>,
}

/// Writes every planned module as `src/<dir>/<module>.<extension>` with `template`.
fn write_modules(
    plan: &Plan,
    root: &Path,
    truth: &mut Truth,
    extension: &str,
    template: fn(&ModuleLinks<'_>, &mut FileWriter<'_>),
) -> Result<()> {
    for (file, links) in plan.files.iter().zip(&plan.links) {
        let module = ModuleLinks {
            file,
            imported: &plan.files[links.imported],
            qualified: &plan.files[links.qualified],
            shared: &plan.shared_names[file.shared_fn],
            shadow: &plan.shared_names[links.shadow],
            shared_import: links
                .shared
                .map(|(name, holder)| (plan.shared_names[name].as_str(), &plan.files[holder])),
        };
        let path = format!("src/{}/{}.{extension}", file.dir, file.module);
        let mut writer = FileWriter::new(path.clone(), truth);
        template(&module, &mut writer);
        write_file(root, &path, &writer.text)?;
    }
    Ok(())
}

fn write_file(root: &Path, relative: &str, text: &str) -> Result<()> {
    let path = root.join(relative);
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).map_err(io_at(parent))?;
    }
    std::fs::write(&path, text).map_err(io_at(&path))
}

/// Writes the corpus into `out` (created; must not hold anything yet) and returns its
/// ground truth.
pub fn generate(config: &SynthConfig, out: &Path) -> Result<Truth> {
    if config.files < 2 {
        return Err(SynthError::TooFewFiles(config.files));
    }
    match std::fs::read_dir(out) {
        Ok(mut entries) => {
            if entries.next().is_some() {
                return Err(SynthError::OutputNotEmpty(out.to_path_buf()));
            }
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            std::fs::create_dir_all(out).map_err(io_at(out))?;
        }
        Err(e) => return Err(io_at(out)(e)),
    }
    let plan = plan(config);
    let mut truth = Truth::new(config);
    match config.lang {
        SynthLang::Rust => rust::write(&plan, out, &mut truth)?,
        SynthLang::TypeScript => typescript::write(&plan, out, &mut truth)?,
    }
    truth.classify(&plan);
    Ok(truth)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn corpus(lang: SynthLang, files: usize, seed: u64) -> (tempfile::TempDir, Truth) {
        let dir = tempfile::tempdir().expect("temp dir");
        let out = dir.path().join("corpus");
        let truth = generate(&SynthConfig { lang, files, seed }, &out).expect("generate");
        (dir, truth)
    }

    fn read_line(root: &Path, site: &str) -> String {
        let (path, line) = site.rsplit_once(':').expect("site has a line");
        let line: usize = line.parse().expect("line number");
        let text = std::fs::read_to_string(root.join(path)).expect("file exists");
        text.lines().nth(line - 1).expect("line exists").to_owned()
    }

    #[test]
    fn same_seed_same_tree_other_seed_other_tree() {
        for lang in [SynthLang::Rust, SynthLang::TypeScript] {
            let (a, ta) = corpus(lang, 30, 1);
            let (b, tb) = corpus(lang, 30, 1);
            let (_c, tc) = corpus(lang, 30, 2);
            assert_eq!(ta, tb);
            assert_ne!(ta, tc);
            let file = match lang {
                SynthLang::Rust => "corpus/src/d000/m00007.rs",
                SynthLang::TypeScript => "corpus/src/d000/m00007.ts",
            };
            assert_eq!(
                std::fs::read(a.path().join(file)).expect("read"),
                std::fs::read(b.path().join(file)).expect("read")
            );
        }
    }

    #[test]
    fn every_planted_site_names_its_word_on_that_line() {
        for lang in [SynthLang::Rust, SynthLang::TypeScript] {
            let (dir, truth) = corpus(lang, 250, 9);
            let root = dir.path().join("corpus");
            for (name, facts) in &truth.names {
                assert!(!facts.definitions.is_empty(), "{name} has no definition");
                for site in facts.definitions.iter().chain(&facts.references) {
                    let line = read_line(&root, site);
                    let whole_word = line
                        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                        .any(|w| w == name);
                    assert!(whole_word, "{name} not on {site}: {line}");
                }
            }
            for class in [NameClass::Rare, NameClass::Medium, NameClass::Common] {
                assert!(
                    truth.names.values().any(|n| n.class == class),
                    "no {class:?} names"
                );
            }
        }
    }

    #[test]
    fn decoys_are_not_truth() {
        let (dir, truth) = corpus(SynthLang::Rust, 50, 3);
        let root = dir.path().join("corpus");
        let get = &truth.names["get"];
        // `items.get(0)` calls Vec::get, which no file defines.
        for site in &get.references {
            assert!(!read_line(&root, site).contains("items.get"), "{site}");
        }
        // Mentions in comments and strings are never sites.
        for (name, facts) in &truth.names {
            for site in facts.references.iter().chain(&facts.definitions) {
                let line = read_line(&root, site);
                let trimmed = line.trim_start();
                assert!(!trimmed.starts_with("//"), "{name} at {site}: {line}");
                assert!(
                    !trimmed.starts_with("let label"),
                    "{name} at {site}: {line}"
                );
            }
        }
    }

    #[test]
    fn refuses_a_directory_with_files_and_tiny_corpora() {
        let dir = tempfile::tempdir().expect("temp dir");
        std::fs::write(dir.path().join("keep.txt"), "mine").expect("write");
        let config = SynthConfig {
            lang: SynthLang::Rust,
            files: 10,
            seed: 1,
        };
        assert!(matches!(
            generate(&config, dir.path()),
            Err(SynthError::OutputNotEmpty(_))
        ));
        let config = SynthConfig { files: 1, ..config };
        assert!(matches!(
            generate(&config, &dir.path().join("new")),
            Err(SynthError::TooFewFiles(1))
        ));
    }
}
