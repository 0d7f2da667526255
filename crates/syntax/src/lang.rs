//! The language registry: file extension → grammar + extraction query.
//!
//! Queries are the files under `grammars/`, compiled into the binary. Adding a language
//! means: a variant here, its grammar crate, its query file, fixtures.

use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

use crate::{RefKind, SymbolKind};

/// A supported language.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    Rust,
    TypeScript,
    Tsx,
    JavaScript,
}

const RUST_QUERY: &str = include_str!("../../../grammars/rust/tags.scm");
const ECMA_QUERY: &str = include_str!("../../../grammars/javascript/tags.scm");
const JSX_QUERY: &str = include_str!("../../../grammars/javascript/jsx.scm");
const JS_ONLY_QUERY: &str = include_str!("../../../grammars/javascript/js-only.scm");
const ECMA_FALLBACK_QUERY: &str = include_str!("../../../grammars/javascript/fallback.scm");
const TS_QUERY: &str = include_str!("../../../grammars/typescript/tags.scm");
const TS_FALLBACK_QUERY: &str = include_str!("../../../grammars/typescript/fallback.scm");

impl Lang {
    pub const ALL: [Lang; 4] = [Lang::Rust, Lang::TypeScript, Lang::Tsx, Lang::JavaScript];

    /// The language of a path, by extension. `None` for files mcursor does not parse.
    pub fn from_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?;
        Self::from_extension(ext)
    }

    pub fn from_extension(ext: &str) -> Option<Lang> {
        match ext {
            "rs" => Some(Lang::Rust),
            "ts" | "mts" | "cts" => Some(Lang::TypeScript),
            "tsx" => Some(Lang::Tsx),
            "js" | "jsx" | "mjs" | "cjs" => Some(Lang::JavaScript),
            _ => None,
        }
    }

    /// The lowercase name used in JSON output and `--lang` filters.
    pub fn as_str(self) -> &'static str {
        match self {
            Lang::Rust => "rust",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::JavaScript => "javascript",
        }
    }

    /// Accepts the names of [`Lang::as_str`] and common short forms (`rs`, `ts`, `js`).
    pub fn parse(word: &str) -> Option<Lang> {
        match word.to_ascii_lowercase().as_str() {
            "rust" | "rs" => Some(Lang::Rust),
            "typescript" | "ts" => Some(Lang::TypeScript),
            "tsx" => Some(Lang::Tsx),
            "javascript" | "js" | "jsx" => Some(Lang::JavaScript),
            _ => None,
        }
    }

    /// Languages whose files can import each other's definitions.
    pub fn is_ecmascript(self) -> bool {
        !matches!(self, Lang::Rust)
    }

    fn grammar(self) -> Language {
        match self {
            Lang::Rust => tree_sitter_rust::LANGUAGE.into(),
            Lang::TypeScript => tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
            Lang::Tsx => tree_sitter_typescript::LANGUAGE_TSX.into(),
            Lang::JavaScript => tree_sitter_javascript::LANGUAGE.into(),
        }
    }

    fn query_source(self) -> String {
        match self {
            Lang::Rust => RUST_QUERY.to_owned(),
            // Order matters: the first pattern capturing a name wins, fallbacks go last.
            Lang::TypeScript => {
                [ECMA_QUERY, TS_QUERY, TS_FALLBACK_QUERY, ECMA_FALLBACK_QUERY].join("\n")
            }
            Lang::Tsx => [
                JSX_QUERY,
                ECMA_QUERY,
                TS_QUERY,
                TS_FALLBACK_QUERY,
                ECMA_FALLBACK_QUERY,
            ]
            .join("\n"),
            Lang::JavaScript => {
                [JSX_QUERY, ECMA_QUERY, JS_ONLY_QUERY, ECMA_FALLBACK_QUERY].join("\n")
            }
        }
    }

    /// The compiled grammar and query, built once per process.
    pub fn support(self) -> Result<&'static LanguageSupport, &'static QueryError> {
        static CELLS: [OnceLock<Result<LanguageSupport, QueryError>>; 4] = [
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
            OnceLock::new(),
        ];
        let slot = match self {
            Lang::Rust => 0,
            Lang::TypeScript => 1,
            Lang::Tsx => 2,
            Lang::JavaScript => 3,
        };
        CELLS[slot]
            .get_or_init(|| LanguageSupport::build(self))
            .as_ref()
    }
}

/// A query file that does not compile against its grammar.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryError {
    pub lang: Lang,
    pub message: String,
}

impl std::fmt::Display for QueryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the {} extraction query does not compile: {}",
            self.lang.as_str(),
            self.message
        )
    }
}

impl std::error::Error for QueryError {}

/// What a capture name means to the extractor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CaptureRole {
    Definition(SymbolKind),
    Reference(RefKind),
    Name,
    Qualifier,
    Receiver,
    ScopeContainer,
    ScopeModule,
    ScopeName,
    LocalScope,
    LocalDefinition,
    Import,
    ExportDefault,
    Ignored,
}

impl CaptureRole {
    fn from_capture_name(name: &str) -> Result<Self, String> {
        if let Some(kind) = name.strip_prefix("definition.") {
            return SymbolKind::parse(kind)
                .map(CaptureRole::Definition)
                .ok_or_else(|| format!("unknown definition kind in @{name}"));
        }
        if let Some(kind) = name.strip_prefix("reference.") {
            return RefKind::parse(kind)
                .map(CaptureRole::Reference)
                .ok_or_else(|| format!("unknown reference kind in @{name}"));
        }
        Ok(match name {
            "name" => CaptureRole::Name,
            "qualifier" => CaptureRole::Qualifier,
            "receiver" => CaptureRole::Receiver,
            "scope.container" => CaptureRole::ScopeContainer,
            "scope.module" => CaptureRole::ScopeModule,
            "scope.name" => CaptureRole::ScopeName,
            "local.scope" => CaptureRole::LocalScope,
            "local.definition" => CaptureRole::LocalDefinition,
            "import" => CaptureRole::Import,
            "export.default" => CaptureRole::ExportDefault,
            other if other.starts_with('_') => CaptureRole::Ignored,
            other => return Err(format!("unknown capture @{other}")),
        })
    }
}

/// A language's grammar with its compiled extraction query.
pub struct LanguageSupport {
    pub lang: Lang,
    pub(crate) language: Language,
    pub(crate) query: Query,
    pub(crate) roles: Vec<CaptureRole>,
}

impl LanguageSupport {
    fn build(lang: Lang) -> Result<Self, QueryError> {
        let language = lang.grammar();
        let query = Query::new(&language, &lang.query_source()).map_err(|e| QueryError {
            lang,
            message: format!("line {}: {}", e.row + 1, e.message),
        })?;
        let roles = query
            .capture_names()
            .iter()
            .map(|name| CaptureRole::from_capture_name(name))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|message| QueryError { lang, message })?;
        Ok(Self {
            lang,
            language,
            query,
            roles,
        })
    }
}

/// Compiles every query for every language; the first failure is returned.
/// Names the extraction rules this build applies: the crate version and a hash of every
/// query file. An index built under another fingerprint holds facts these rules would not
/// produce, so the indexer rebuilds it even when no source file changed.
pub fn extraction_fingerprint() -> String {
    // FNV-1a: stable across Rust releases, unlike `DefaultHasher`.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for query in [
        RUST_QUERY,
        ECMA_QUERY,
        JSX_QUERY,
        JS_ONLY_QUERY,
        ECMA_FALLBACK_QUERY,
        TS_QUERY,
        TS_FALLBACK_QUERY,
    ] {
        for byte in query.bytes().chain([0]) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{}-{hash:016x}", env!("CARGO_PKG_VERSION"))
}

pub fn check_all_queries() -> Result<(), QueryError> {
    for lang in Lang::ALL {
        lang.support().map_err(Clone::clone)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_query_compiles_for_every_language() {
        if let Err(e) = check_all_queries() {
            panic!("{e}");
        }
    }

    #[test]
    fn extensions_map_to_languages() {
        let cases = [
            ("a.rs", Some(Lang::Rust)),
            ("a.ts", Some(Lang::TypeScript)),
            ("a.mts", Some(Lang::TypeScript)),
            ("a.cts", Some(Lang::TypeScript)),
            ("a.tsx", Some(Lang::Tsx)),
            ("a.js", Some(Lang::JavaScript)),
            ("a.jsx", Some(Lang::JavaScript)),
            ("a.mjs", Some(Lang::JavaScript)),
            ("a.cjs", Some(Lang::JavaScript)),
            ("a.py", None),
            ("Makefile", None),
        ];
        for (path, want) in cases {
            assert_eq!(Lang::from_path(Path::new(path)), want, "{path}");
        }
    }
}
