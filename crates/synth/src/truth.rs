//! The ground truth a generated corpus carries: which lines define and which lines use
//! each planted name.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::{Plan, Result, SynthConfig, SynthError, io_at};

/// How often a name occurs, which decides how hard it is for grep.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NameClass {
    /// Defined once, used from a handful of places.
    Rare,
    /// Defined in several modules.
    Medium,
    /// Defined in every file (`new`, `get`, `render`) and used everywhere.
    Common,
}

impl NameClass {
    pub const ALL: [NameClass; 3] = [NameClass::Rare, NameClass::Medium, NameClass::Common];

    pub fn as_str(self) -> &'static str {
        match self {
            NameClass::Rare => "rare",
            NameClass::Medium => "medium",
            NameClass::Common => "common",
        }
    }
}

/// Sites are `path:line`, path relative to the corpus root with `/`, line from 1: the
/// granularity grep answers at.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct NameTruth {
    pub class: NameClass,
    pub definitions: Vec<String>,
    pub references: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Truth {
    pub generator: String,
    pub lang: crate::SynthLang,
    pub files: usize,
    pub seed: u64,
    pub names: BTreeMap<String, NameTruth>,
}

impl Truth {
    pub(crate) fn new(config: &SynthConfig) -> Self {
        Truth {
            generator: format!("mcursor-synth {}", env!("CARGO_PKG_VERSION")),
            lang: config.lang,
            files: config.files,
            seed: config.seed,
            names: BTreeMap::new(),
        }
    }

    fn entry(&mut self, name: &str) -> &mut NameTruth {
        self.names
            .entry(name.to_owned())
            .or_insert_with(|| NameTruth {
                class: NameClass::Rare,
                definitions: Vec::new(),
                references: Vec::new(),
            })
    }

    pub(crate) fn define(&mut self, name: &str, path: &str, line: u32) {
        let site = format!("{path}:{line}");
        let entry = self.entry(name);
        if entry.definitions.last() != Some(&site) {
            entry.definitions.push(site);
        }
    }

    pub(crate) fn refer(&mut self, name: &str, path: &str, line: u32) {
        let site = format!("{path}:{line}");
        let entry = self.entry(name);
        if entry.references.last() != Some(&site) {
            entry.references.push(site);
        }
    }

    /// Marks shared function names medium and per-file method names common; drops names
    /// that ended up without a definition (shared names no file drew), and sorts sites.
    pub(crate) fn classify(&mut self, plan: &Plan) {
        let shared: std::collections::HashSet<&str> =
            plan.shared_names.iter().map(String::as_str).collect();
        let files = plan.files.len();
        self.names.retain(|_, n| !n.definitions.is_empty());
        for (name, facts) in self.names.iter_mut() {
            facts.class = if facts.definitions.len() == files {
                NameClass::Common
            } else if shared.contains(name.as_str()) {
                NameClass::Medium
            } else {
                NameClass::Rare
            };
            facts.definitions.sort();
            facts.definitions.dedup();
            facts.references.sort();
            facts.references.dedup();
        }
    }

    pub fn load(path: &Path) -> Result<Truth> {
        let bytes = std::fs::read(path).map_err(io_at(path))?;
        serde_json::from_slice(&bytes).map_err(|e| SynthError::BadTruth {
            path: path.to_path_buf(),
            detail: e.to_string(),
        })
    }

    /// Writes the truth as JSON via a temporary file, so a killed run leaves no half file.
    pub fn save(&self, path: &Path) -> Result<()> {
        let partial = path.with_extension("json.partial");
        let file = std::fs::File::create(&partial).map_err(io_at(&partial))?;
        let mut writer = std::io::BufWriter::new(file);
        serde_json::to_writer(&mut writer, self).map_err(|e| io_at(&partial)(e.into()))?;
        std::io::Write::flush(&mut writer).map_err(io_at(&partial))?;
        std::fs::rename(&partial, path).map_err(io_at(path))
    }
}
