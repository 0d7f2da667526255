//! The language table: every fact about a supported language in one row.
//!
//! A row names the language, its extensions, its grammar, its query files (from
//! `grammars/`, compiled into the binary), its resolver [`Family`] and its code in the
//! store. Everything else that depends on a language reads this table; code that must
//! treat families differently matches on [`Family`] exhaustively, so a new language can
//! never fall silently into another's path. Adding a language of an existing family is a
//! grammar crate, query files and a row here; a new family also adds a
//! [`crate::family::FamilySyntax`] and a resolver module in `mcursor-index`.

use std::borrow::Cow;
use std::path::Path;
use std::sync::OnceLock;

use tree_sitter::{Language, Query};

use crate::family::{FamilyKinds, FamilySyntax};
use crate::{RefKind, SymbolKind};

/// A supported language. Its facts are in its [`LangSpec`] row.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Lang {
    Rust,
    TypeScript,
    Tsx,
    JavaScript,
    Python,
    Go,
    Java,
    CSharp,
    C,
    Php,
    Ruby,
    Cpp,
    Kotlin,
    Shell,
    Lua,
}

/// Languages that resolve names the same way: their files can refer to each other's
/// definitions, and one resolver serves them all.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Family {
    Rust,
    /// JavaScript, TypeScript and TSX.
    Ecma,
    Python,
    Go,
    Java,
    CSharp,
    C,
    Php,
    Ruby,
    Kotlin,
    /// Shell scripts: functions and global variables, seen through `source`.
    Shell,
    /// Lua: functions, tables' functions, modules through `require`.
    Lua,
}

impl Family {
    pub const ALL: [Family; 12] = [
        Family::Rust,
        Family::Ecma,
        Family::Python,
        Family::Go,
        Family::Java,
        Family::CSharp,
        Family::C,
        Family::Php,
        Family::Ruby,
        Family::Kotlin,
        Family::Shell,
        Family::Lua,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Family::Rust => "rust",
            Family::Ecma => "ecmascript",
            Family::Python => "python",
            Family::Go => "go",
            Family::Java => "java",
            Family::CSharp => "csharp",
            Family::C => "c",
            Family::Php => "php",
            Family::Ruby => "ruby",
            Family::Kotlin => "kotlin",
            Family::Shell => "shell",
            Family::Lua => "lua",
        }
    }

    /// Whether one function can be declared several times with different signatures
    /// (TypeScript overloads, Python's `@overload` stubs before the implementation, or a
    /// `def` in each branch of an `if`): such declarations are one function to `refs`.
    pub fn has_overloads(self) -> bool {
        match self {
            // C has one definition per name (a prototype is not a definition here).
            // Ruby has one method per name in a class (a later `def` replaces it); so
            // has a shell script (a later definition replaces the function).
            // A Lua function assigned twice is replaced, as a shell function.
            Family::Rust | Family::Go | Family::C | Family::Ruby | Family::Shell | Family::Lua => {
                false
            }
            // Java and C# overloads are distinct methods, but uses are not told apart by
            // their argument types here, so all of them are one function to `refs`. PHP
            // has no overloads, but a function declared in each branch of an `if`
            // (`if (!function_exists('f')) { function f() {} }`) is one function. Kotlin
            // overloads as Java does.
            Family::Ecma
            | Family::Python
            | Family::Java
            | Family::CSharp
            | Family::Php
            | Family::Kotlin => true,
        }
    }

    /// Whether a file brings other files in as text (C's `#include`, a shell script's
    /// `source`): then what it sees changes with any of its imports, transitively, and no
    /// import's change can be followed by name.
    pub fn imports_are_textual(self) -> bool {
        match self {
            Family::C | Family::Shell => true,
            // `require` yields a module's table; it makes no names visible.
            Family::Lua => false,
            Family::Rust
            | Family::Ecma
            | Family::Python
            | Family::Go
            | Family::Java
            | Family::CSharp
            | Family::Php
            | Family::Ruby
            | Family::Kotlin => false,
        }
    }

    /// Node kinds of the family's grammars that extraction interprets.
    pub(crate) fn syntax(self) -> &'static FamilySyntax {
        match self {
            Family::Rust => &crate::family::RUST,
            Family::Ecma => &crate::family::ECMA,
            Family::Python => &crate::family::PYTHON,
            Family::Go => &crate::family::GO,
            Family::Java => &crate::family::JAVA,
            Family::CSharp => &crate::family::CSHARP,
            Family::C => &crate::family::C,
            Family::Php => &crate::family::PHP,
            Family::Ruby => &crate::family::RUBY,
            Family::Kotlin => &crate::family::KOTLIN,
            Family::Shell => &crate::family::SHELL,
            Family::Lua => &crate::family::LUA,
        }
    }
}

/// One query file of `grammars/`.
pub struct QueryFile {
    /// Path under `grammars/`, for messages.
    pub path: &'static str,
    pub text: &'static str,
}

macro_rules! query_file {
    ($path:literal) => {
        QueryFile {
            path: $path,
            text: include_str!(concat!("../../../grammars/", $path)),
        }
    };
}

const RUST_TAGS: QueryFile = query_file!("rust/tags.scm");
const ECMA_TAGS: QueryFile = query_file!("javascript/tags.scm");
const JSX: QueryFile = query_file!("javascript/jsx.scm");
const JS_ONLY: QueryFile = query_file!("javascript/js-only.scm");
const ECMA_FALLBACK: QueryFile = query_file!("javascript/fallback.scm");
const TS_TAGS: QueryFile = query_file!("typescript/tags.scm");
const TS_FALLBACK: QueryFile = query_file!("typescript/fallback.scm");
const PYTHON_TAGS: QueryFile = query_file!("python/tags.scm");
const GO_TAGS: QueryFile = query_file!("go/tags.scm");
const JAVA_TAGS: QueryFile = query_file!("java/tags.scm");
const CSHARP_TAGS: QueryFile = query_file!("csharp/tags.scm");
const C_TAGS: QueryFile = query_file!("c/tags.scm");
const PHP_TAGS: QueryFile = query_file!("php/tags.scm");
const RUBY_TAGS: QueryFile = query_file!("ruby/tags.scm");
const CPP_TAGS: QueryFile = query_file!("cpp/tags.scm");
const KOTLIN_TAGS: QueryFile = query_file!("kotlin/tags.scm");
const SHELL_TAGS: QueryFile = query_file!("shell/tags.scm");
const LUA_TAGS: QueryFile = query_file!("lua/tags.scm");

/// A language's row in the table.
pub struct LangSpec {
    pub lang: Lang,
    /// The lowercase name used in JSON output and `--lang` filters.
    pub name: &'static str,
    /// Other words `--lang` accepts.
    pub aliases: &'static [&'static str],
    /// File extensions, without the dot.
    pub extensions: &'static [&'static str],
    pub family: Family,
    /// The language's code in the store's file records (0 means "not parsed"). Never
    /// reused for another language: stores written earlier keep their meaning.
    pub store_code: u8,
    grammar: fn() -> Language,
    /// Query files in order: when several patterns capture one name, the first pattern of
    /// the combined query wins, so fallbacks go last.
    pub queries: &'static [QueryFile],
    /// The text the parser reads: the source as written, or with what the grammar cannot
    /// read blanked out. Byte offsets never move, so positions and texts are the
    /// source's.
    pub parse_view: fn(&[u8]) -> Cow<'_, [u8]>,
}

/// How many languages have a row: the length of [`LANGUAGES`], [`Lang::ALL`] and the
/// per-language caches, so a new row cannot leave one of them short.
const LANGUAGE_COUNT: usize = 15;

/// The table. [`Lang::spec`] finds a language's row; a test checks every row is found.
pub static LANGUAGES: [LangSpec; LANGUAGE_COUNT] = [
    LangSpec {
        lang: Lang::Rust,
        name: "rust",
        aliases: &["rs"],
        extensions: &["rs"],
        family: Family::Rust,
        store_code: 1,
        grammar: || tree_sitter_rust::LANGUAGE.into(),
        queries: &[RUST_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::TypeScript,
        name: "typescript",
        aliases: &["ts"],
        extensions: &["ts", "mts", "cts"],
        family: Family::Ecma,
        store_code: 2,
        grammar: || tree_sitter_typescript::LANGUAGE_TYPESCRIPT.into(),
        queries: &[ECMA_TAGS, TS_TAGS, TS_FALLBACK, ECMA_FALLBACK],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Tsx,
        name: "tsx",
        aliases: &[],
        extensions: &["tsx"],
        family: Family::Ecma,
        store_code: 3,
        grammar: || tree_sitter_typescript::LANGUAGE_TSX.into(),
        queries: &[JSX, ECMA_TAGS, TS_TAGS, TS_FALLBACK, ECMA_FALLBACK],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::JavaScript,
        name: "javascript",
        aliases: &["js", "jsx"],
        extensions: &["js", "jsx", "mjs", "cjs"],
        family: Family::Ecma,
        store_code: 4,
        grammar: || tree_sitter_javascript::LANGUAGE.into(),
        queries: &[JSX, ECMA_TAGS, JS_ONLY, ECMA_FALLBACK],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Python,
        name: "python",
        aliases: &["py"],
        extensions: &["py", "pyi", "pyw"],
        family: Family::Python,
        store_code: 5,
        grammar: || tree_sitter_python::LANGUAGE.into(),
        queries: &[PYTHON_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Go,
        name: "go",
        aliases: &["golang"],
        extensions: &["go"],
        family: Family::Go,
        store_code: 6,
        grammar: || tree_sitter_go::LANGUAGE.into(),
        queries: &[GO_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Java,
        name: "java",
        aliases: &[],
        extensions: &["java"],
        family: Family::Java,
        store_code: 7,
        grammar: || tree_sitter_java::LANGUAGE.into(),
        queries: &[JAVA_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::CSharp,
        name: "csharp",
        aliases: &["c#", "cs"],
        extensions: &["cs"],
        family: Family::CSharp,
        store_code: 8,
        grammar: || tree_sitter_c_sharp::LANGUAGE.into(),
        queries: &[CSHARP_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::C,
        name: "c",
        aliases: &[],
        // `.h` is C's unless its content is C++ (`Lang::of_file`).
        extensions: &["c", "h"],
        family: Family::C,
        store_code: 9,
        grammar: || tree_sitter_c::LANGUAGE.into(),
        queries: &[C_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Php,
        name: "php",
        aliases: &[],
        extensions: &["php", "phtml"],
        family: Family::Php,
        store_code: 10,
        // The grammar of whole files: HTML around `<?php ... ?>` is text.
        grammar: || tree_sitter_php::LANGUAGE_PHP.into(),
        queries: &[PHP_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Ruby,
        name: "ruby",
        aliases: &["rb"],
        extensions: &["rb", "rake", "gemspec", "ru"],
        family: Family::Ruby,
        store_code: 11,
        grammar: || tree_sitter_ruby::LANGUAGE.into(),
        queries: &[RUBY_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Cpp,
        name: "cpp",
        aliases: &["c++", "cxx"],
        // And `.h` headers written in C++ (`Lang::of_file`).
        extensions: &["cc", "cpp", "cxx", "hpp", "hh", "hxx"],
        // C++ resolves like C (includes, declarations, names), plus classes, methods
        // and namespaces, which the C family's tables and resolver know.
        family: Family::C,
        store_code: 12,
        grammar: || tree_sitter_cpp::LANGUAGE.into(),
        // C++'s own patterns first (they win over C's for the same name).
        queries: &[CPP_TAGS, C_TAGS],
        parse_view: blank_export_macros,
    },
    LangSpec {
        lang: Lang::Kotlin,
        name: "kotlin",
        aliases: &["kt"],
        // `.kts` scripts (Gradle build files) are Kotlin too.
        extensions: &["kt", "kts"],
        family: Family::Kotlin,
        store_code: 13,
        grammar: || tree_sitter_kotlin_ng::LANGUAGE.into(),
        queries: &[KOTLIN_TAGS],
        parse_view: as_written,
    },
    LangSpec {
        lang: Lang::Shell,
        name: "shell",
        aliases: &["bash", "sh"],
        // And scripts without an extension (or with one no language has) whose `#!` line
        // or mode line names a shell (`Lang::of_file`). Zsh is read as text only: its
        // syntax is not Bash's.
        extensions: &["sh", "bash"],
        family: Family::Shell,
        store_code: 14,
        grammar: || tree_sitter_bash::LANGUAGE.into(),
        queries: &[SHELL_TAGS],
        parse_view: blank_shell_patterns,
    },
    LangSpec {
        lang: Lang::Lua,
        name: "lua",
        aliases: &[],
        extensions: &["lua"],
        family: Family::Lua,
        store_code: 15,
        grammar: || tree_sitter_lua::LANGUAGE.into(),
        queries: &[LUA_TAGS],
        parse_view: as_written,
    },
];

/// A source language mcursor recognizes but does not parse yet: its files are indexed as
/// text (`search` finds them) and have no symbols, and answers say so instead of
/// "no such symbol". A language that gets a grammar moves from here to [`LANGUAGES`] (a
/// test checks that no name or extension is in both).
#[derive(Debug)]
pub struct TextOnlyLanguage {
    pub name: &'static str,
    pub aliases: &'static [&'static str],
    pub extensions: &'static [&'static str],
}

/// The languages read as text only.
pub static TEXT_ONLY_LANGUAGES: [TextOnlyLanguage; 11] = [
    text_only("swift", &[], &["swift"]),
    text_only("scala", &[], &["scala", "sc"]),
    text_only("zsh", &[], &["zsh"]),
    text_only("zig", &[], &["zig"]),
    text_only("elixir", &["ex"], &["ex", "exs"]),
    text_only("haskell", &["hs"], &["hs"]),
    text_only("ocaml", &["ml"], &["ml", "mli"]),
    text_only("dart", &[], &["dart"]),
    text_only("vue", &[], &["vue"]),
    text_only("svelte", &[], &["svelte"]),
    text_only("sql", &[], &["sql"]),
];

const fn text_only(
    name: &'static str,
    aliases: &'static [&'static str],
    extensions: &'static [&'static str],
) -> TextOnlyLanguage {
    TextOnlyLanguage {
        name,
        aliases,
        extensions,
    }
}

impl TextOnlyLanguage {
    /// The text-only language of a path, by extension.
    pub fn of_path(path: &str) -> Option<&'static TextOnlyLanguage> {
        let name = path.rsplit('/').next()?;
        let (_, ext) = name.rsplit_once('.')?;
        TEXT_ONLY_LANGUAGES
            .iter()
            .find(|l| l.extensions.iter().any(|e| e.eq_ignore_ascii_case(ext)))
    }

    /// The text-only language a word names (`python`, `py`), for `--lang` errors.
    pub fn named(word: &str) -> Option<&'static TextOnlyLanguage> {
        let word = word.to_ascii_lowercase();
        TEXT_ONLY_LANGUAGES
            .iter()
            .find(|l| l.name == word || l.aliases.contains(&word.as_str()))
    }
}

/// The source as written.
fn as_written(source: &[u8]) -> Cow<'_, [u8]> {
    Cow::Borrowed(source)
}

/// C++ with the export macro of a class blanked out: `class LEVELDB_EXPORT Cache {` and
/// `struct GTEST_API_ Options :` read as a function named `Cache` returning `class
/// LEVELDB_EXPORT` otherwise, with the whole class body as statements. The macro is a
/// word of capitals, digits and `_` between `class`/`struct` and the class name, when an
/// optional `final` and then `{` or `:` follow the name.
fn blank_export_macros(source: &[u8]) -> Cow<'_, [u8]> {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let skip_space = |mut i: usize| {
        while i < source.len() && source[i].is_ascii_whitespace() {
            i += 1;
        }
        i
    };
    let word_end = |mut i: usize| {
        while i < source.len() && is_word(source[i]) {
            i += 1;
        }
        i
    };
    let mut blanks: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i < source.len() {
        if !is_word(source[i]) || (i > 0 && is_word(source[i - 1])) {
            i += 1;
            continue;
        }
        let end = word_end(i);
        let keyword = &source[i..end];
        if keyword == b"class" || keyword == b"struct" {
            let macro_start = skip_space(end);
            let macro_end = word_end(macro_start);
            let macro_word = &source[macro_start..macro_end];
            let name_start = skip_space(macro_end);
            let name_end = word_end(name_start);
            let mut after = skip_space(name_end);
            // A specialization's arguments (`class EXPORT Matcher<const T&> {`).
            if source.get(after) == Some(&b'<') {
                let mut depth = 0usize;
                while after < source.len() && !matches!(source[after], b';' | b'{') {
                    match source[after] {
                        b'<' => depth += 1,
                        b'>' => depth = depth.saturating_sub(1),
                        _ => {}
                    }
                    after += 1;
                    if depth == 0 {
                        break;
                    }
                }
                after = skip_space(after);
            }
            if &source[name_start..name_end] != b"final"
                && source[after..].starts_with(b"final")
                && !source.get(after + 5).copied().is_some_and(is_word)
            {
                after = skip_space(after + 5);
            }
            let is_macro = macro_word.len() > 1
                && macro_word.iter().any(u8::is_ascii_uppercase)
                && macro_word
                    .iter()
                    .all(|&b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
            if is_macro
                && macro_end < name_start
                && name_start < name_end
                && matches!(source.get(after), Some(b'{' | b':'))
                && source.get(after + 1) != Some(&b':')
            {
                blanks.push((macro_start, macro_end));
            }
        }
        i = end;
    }
    if blanks.is_empty() {
        return Cow::Borrowed(source);
    }
    let mut view = source.to_vec();
    for (start, end) in blanks {
        view[start..end].fill(b' ');
    }
    Cow::Owned(view)
}

/// The longest parameter expansion or `[[ ]]` operand the shell view looks at, in bytes.
const MAX_SHELL_PATTERN: usize = 512;

/// A shell script with the patterns Bash's grammar cannot read overwritten: the operation
/// of a parameter expansion (`${line//[$'\t']/ }`, `${x,,}`, `${a:-"b"}` read as
/// `${line}xx..`, `${x}xx`, `${a}xxxx`), the right operand of `=~` (a regular expression)
/// or of `==`/`!=` when it is an extended glob (`*.@(tar|zip)`) in `[[ ]]`, and extended
/// globs elsewhere (`-!(-*)c)` in a `case`), each read as one word of `x`s. Without this
/// one such pattern turns the rest of the file into an error, and the functions after it
/// are lost. Newlines and line continuations stay, so positions do not move; what is
/// overwritten holds no definitions (its variable uses are lost).
fn blank_shell_patterns(source: &[u8]) -> Cow<'_, [u8]> {
    let mut view: Option<Vec<u8>> = None;
    let is_name = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    // Overwrites `start..end` with `x`, one word as the pattern was (newlines and the
    // backslashes before them stay), its first byte `first`.
    let blank = |view: &mut Option<Vec<u8>>, start: usize, end: usize, first: u8| {
        let view = view.get_or_insert_with(|| source.to_vec());
        for i in start..end {
            let keep = view[i] == b'\n' || (view[i] == b'\\' && view.get(i + 1) == Some(&b'\n'));
            if !keep {
                view[i] = if i == start { first } else { b'x' };
            }
        }
    };
    // `${NAME<operation>}`: the operation, up to the matching brace on the same line.
    let mut i = 0;
    while let Some(at) = find(source, i, b"${") {
        let name_end = (at + 2..source.len())
            .find(|&j| !is_name(source[j]))
            .unwrap_or(source.len());
        i = name_end;
        if name_end == at + 2 || source.get(name_end).is_none_or(|&b| b == b'}') {
            continue;
        }
        let mut depth = 1usize;
        let mut close = None;
        let mut j = name_end;
        while j < source.len() && j - name_end < MAX_SHELL_PATTERN && source[j] != b'\n' {
            if source[j..].starts_with(b"${") {
                depth += 1;
                j += 2;
                continue;
            }
            if source[j] == b'}' {
                depth -= 1;
                if depth == 0 {
                    close = Some(j);
                    break;
                }
            }
            j += 1;
        }
        if let Some(close) = close {
            // `${NAME` then `}`, the rest of the word `x`s.
            blank(&mut view, name_end, close + 1, b'}');
            i = close + 1;
        }
    }
    // `[[ a =~ re ]]`, `[[ a == *.@(x|y) ]]`: the operand, up to `]]`, `&&` or `||`
    // (Bash wants spaces inside the brackets; a bracket expression `[[:space:]]` has none).
    let mut i = 0;
    while let Some(at) = find(source, i, b"[[ ") {
        i = at + 2;
        // Looked for nearby only: a file of unclosed `[[` stays linear.
        let window = &source[..source.len().min(i + MAX_SHELL_PATTERN)];
        let Some(end) = find(window, i, b" ]]").map(|e| e + 1) else {
            continue;
        };
        let mut k = i;
        while k < end {
            let operator = [&b"=~"[..], b"==", b"!="]
                .into_iter()
                .find(|op| source[k..end].starts_with(op));
            let Some(operator) = operator else {
                k += 1;
                continue;
            };
            let start = k + 2;
            let stop = [&b"&&"[..], b"||"]
                .into_iter()
                .filter_map(|op| find(&source[..end], start, op))
                .min()
                .unwrap_or(end);
            let operand = &source[start..stop];
            let extended_glob = operand
                .windows(2)
                .any(|w| matches!(w, [b'@' | b'!' | b'+' | b'?' | b'*', b'(']) || w == b"\\ ");
            // The operand's text starts after spaces and line continuations.
            let mut text_start = start;
            while text_start < stop
                && (source[text_start].is_ascii_whitespace()
                    || source[text_start..].starts_with(b"\\\n"))
            {
                text_start += 1;
            }
            let text_end = stop
                - operand
                    .iter()
                    .rev()
                    .take_while(|b| b.is_ascii_whitespace())
                    .count();
            if (operator == b"=~" || extended_glob) && text_start < text_end {
                blank(&mut view, text_start, text_end, b'x');
            }
            k = stop.max(start);
        }
        i = end + 2;
    }
    // An extended glob elsewhere (a `case` pattern `-!(-*)[pD])`): `@(..)`, `!(..)`, and
    // `+(..)`, `?(..)` after a character no operand ends with, read as `_`. Found in the
    // view so far (an operand blanked above is not read again).
    let current: &[u8] = view.as_deref().unwrap_or(source);
    let mut globs = Vec::new();
    let mut i = 0;
    while let Some(at) = (i..current.len().saturating_sub(1)).find(|&j| {
        let before = j.checked_sub(1).map(|b| current[b]);
        current[j + 1] == b'('
            && match current[j] {
                b'@' | b'!' => before != Some(b'$'),
                b'+' | b'?' => before.is_none_or(|b| !is_name(b) && !matches!(b, b')' | b'$')),
                _ => false,
            }
    }) {
        let close = (at + 2..current.len().min(at + MAX_SHELL_PATTERN))
            .take_while(|&j| current[j] != b'\n')
            .find(|&j| current[j] == b')');
        i = close.map_or(at + 2, |c| c + 1);
        globs.extend(close.map(|c| (at, c + 1)));
    }
    for (start, end) in globs {
        // Not a letter first: `-x` would read as a test operator.
        blank(&mut view, start, end, b'_');
    }
    view.map_or(Cow::Borrowed(source), Cow::Owned)
}

/// The first `needle` in `haystack` at or after `from`.
fn find(haystack: &[u8], from: usize, needle: &[u8]) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| from + p)
}

/// Whether a path is a header C and C++ both use (`.h`; `.hpp`, `.hh`, `.hxx` are C++'s).
fn is_shared_header(path: &Path) -> bool {
    path.extension()
        .and_then(|e| e.to_str())
        .is_some_and(|e| e.eq_ignore_ascii_case("h"))
}

/// Bytes of a header read to tell C++ from C: declarations of a class or namespace come
/// early, and a generated table of megabytes needs no full scan.
const HEADER_SNIFF_BYTES: usize = 256 * 1024;

/// Whether a header's code (comments and strings aside, line by line) uses C++: a line
/// that opens a class, a namespace or a template, an access specifier, `using
/// namespace`, or a `::` scope operator. `extern "C"` and `__cplusplus` guards are C
/// headers made includable from C++, so they do not count.
fn looks_like_cpp(content: &str) -> bool {
    let mut end = content.len().min(HEADER_SNIFF_BYTES);
    while !content.is_char_boundary(end) {
        end -= 1;
    }
    #[derive(PartialEq)]
    enum State {
        Code,
        LineComment,
        BlockComment,
        Quoted(char),
    }
    let mut state = State::Code;
    let mut code = String::new();
    let mut chars = content[..end].chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\n' && state != State::BlockComment {
            if line_is_cpp(&code) {
                return true;
            }
            code.clear();
            state = State::Code;
            continue;
        }
        match state {
            State::Code => match c {
                '/' if chars.peek() == Some(&'/') => state = State::LineComment,
                '/' if chars.peek() == Some(&'*') => {
                    chars.next();
                    state = State::BlockComment;
                }
                '"' | '\'' => state = State::Quoted(c),
                _ => code.push(c),
            },
            State::LineComment => {}
            State::BlockComment => {
                if c == '*' && chars.peek() == Some(&'/') {
                    chars.next();
                    state = State::Code;
                }
            }
            State::Quoted(quote) => {
                if c == '\\' {
                    chars.next();
                } else if c == quote {
                    state = State::Code;
                }
            }
        }
    }
    line_is_cpp(&code)
}

/// Whether a file's `#!` line runs a shell whose syntax is Bash's (`#!/bin/sh`,
/// `#!/usr/bin/env bash`), or its first lines carry an Emacs mode line naming one (`#
/// -*- shell-script -*-`, what sourced files such as bash-completion's use): how a script
/// without an extension (`bin/setup`) is known.
fn is_shell_script(content: &str) -> bool {
    let mut lines = content.lines();
    let Some(first) = lines.next() else {
        return false;
    };
    if [Some(first), lines.next()]
        .into_iter()
        .flatten()
        .any(names_shell_mode)
    {
        return true;
    }
    let Some(command) = first.strip_prefix("#!") else {
        return false;
    };
    let mut words = command.split_whitespace();
    let program = match words.next() {
        Some(env) if env.ends_with("/env") => words.find(|w| !w.starts_with('-')),
        program => program,
    };
    let name = program.map_or("", |p| p.rsplit('/').next().unwrap_or(p));
    matches!(name, "sh" | "bash" | "dash" | "ash" | "ksh")
}

/// Whether a comment line is an Emacs mode line for a shell (`-*- shell-script -*-`,
/// `-*- mode: sh; -*-`).
fn names_shell_mode(line: &str) -> bool {
    let Some(comment) = line.trim_start().strip_prefix('#') else {
        return false;
    };
    let Some((_, rest)) = comment.split_once("-*-") else {
        return false;
    };
    let Some((mode, _)) = rest.split_once("-*-") else {
        return false;
    };
    mode.split(';').any(|part| {
        let value = part.trim();
        let value = value.strip_prefix("mode:").map_or(value, str::trim);
        matches!(value, "shell-script" | "sh" | "bash")
    })
}

/// One line's code (comments and literals removed) in C++ only.
fn line_is_cpp(code: &str) -> bool {
    let code = code.trim_start();
    let opens = |word: &str| {
        code.strip_prefix(word)
            .is_some_and(|after| after.is_empty() || after.starts_with([' ', '\t', '<', '{']))
    };
    opens("class")
        || opens("namespace")
        || opens("template")
        || code.starts_with("public:")
        || code.starts_with("private:")
        || code.starts_with("protected:")
        || code.starts_with("using namespace")
        || code.contains("::")
}

/// Bumped whenever extraction code (not a query file) changes what it produces, so
/// indexes built by older rules are rebuilt (see [`extraction_fingerprint`]).
const EXTRACTION_REVISION: u32 = 4;

impl Lang {
    pub const ALL: [Lang; LANGUAGE_COUNT] = [
        Lang::Rust,
        Lang::TypeScript,
        Lang::Tsx,
        Lang::JavaScript,
        Lang::Python,
        Lang::Go,
        Lang::Java,
        Lang::CSharp,
        Lang::C,
        Lang::Php,
        Lang::Ruby,
        Lang::Cpp,
        Lang::Kotlin,
        Lang::Shell,
        Lang::Lua,
    ];

    /// This language's row of [`LANGUAGES`].
    pub fn spec(self) -> &'static LangSpec {
        let slot = match self {
            Lang::Rust => 0,
            Lang::TypeScript => 1,
            Lang::Tsx => 2,
            Lang::JavaScript => 3,
            Lang::Python => 4,
            Lang::Go => 5,
            Lang::Java => 6,
            Lang::CSharp => 7,
            Lang::C => 8,
            Lang::Php => 9,
            Lang::Ruby => 10,
            Lang::Cpp => 11,
            Lang::Kotlin => 12,
            Lang::Shell => 13,
            Lang::Lua => 14,
        };
        &LANGUAGES[slot]
    }

    /// The language of a path, by extension. `None` for files mcursor does not parse.
    pub fn from_path(path: &Path) -> Option<Lang> {
        let ext = path.extension()?.to_str()?;
        Self::from_extension(ext)
    }

    /// The language of a file, by extension and, for a header both C and C++ use (`.h`),
    /// by its content: a header written in C++ (`class`, `namespace`, `template`, access
    /// specifiers, `::`) is C++'s, not C with errors.
    pub fn of_file(path: &Path, content: &str) -> Option<Lang> {
        // A script's extension may be none, or one no language has (`mount.linux`,
        // `invoke-rc.d`, `setup.sh.in`).
        if Self::from_path(path).is_none()
            && TextOnlyLanguage::of_path(&path.to_string_lossy()).is_none()
            && is_shell_script(content)
        {
            return Some(Lang::Shell);
        }
        match Self::from_path(path)? {
            Lang::C if is_shared_header(path) && looks_like_cpp(content) => Some(Lang::Cpp),
            lang => Some(lang),
        }
    }

    pub fn from_extension(ext: &str) -> Option<Lang> {
        LANGUAGES
            .iter()
            .find(|spec| spec.extensions.contains(&ext))
            .map(|spec| spec.lang)
    }

    /// The lowercase name used in JSON output and `--lang` filters.
    pub fn as_str(self) -> &'static str {
        self.spec().name
    }

    /// Accepts the names of [`Lang::as_str`] and the aliases of each row (`rs`, `ts`, `js`).
    pub fn parse(word: &str) -> Option<Lang> {
        let word = word.to_ascii_lowercase();
        LANGUAGES
            .iter()
            .find(|spec| spec.name == word || spec.aliases.contains(&word.as_str()))
            .map(|spec| spec.lang)
    }

    /// The names `--lang` accepts, for help texts and error messages.
    pub fn names() -> impl Iterator<Item = &'static str> {
        LANGUAGES.iter().map(|spec| spec.name)
    }

    pub fn family(self) -> Family {
        self.spec().family
    }

    /// The language stored under `code` (see [`LangSpec::store_code`]).
    pub fn from_store_code(code: u8) -> Option<Lang> {
        LANGUAGES
            .iter()
            .find(|spec| spec.store_code == code)
            .map(|spec| spec.lang)
    }

    pub fn store_code(self) -> u8 {
        self.spec().store_code
    }

    fn query_source(self) -> String {
        self.spec()
            .queries
            .iter()
            .map(|q| q.text)
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// The compiled grammar and query, built once per process.
    pub fn support(self) -> Result<&'static LanguageSupport, &'static QueryError> {
        static CELLS: [OnceLock<Result<LanguageSupport, QueryError>>; LANGUAGE_COUNT] =
            [const { OnceLock::new() }; LANGUAGE_COUNT];
        let slot = LANGUAGES
            .iter()
            .position(|spec| spec.lang == self)
            .unwrap_or(0);
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
    /// A container whose node is also its one member's definition node (Go's method
    /// declaration, a member of its receiver's type).
    ScopeReceiver,
    ScopeName,
    /// A definition's declared type (its return type, for a function), in a pattern of
    /// the definition: for grammars that name no field for it (the family table's
    /// `definition_types` reads fields).
    DeclaredType,
    /// Likewise for the value a definition is initialized with (`definition_values`).
    DeclaredValue,
    LocalScope,
    LocalDefinition,
    /// The declared type of a local binding.
    LocalType,
    /// The value a local binding is initialized with.
    LocalValue,
    /// The collection a loop binding takes its elements from.
    LocalElement,
    /// The value a pattern like `Some(x)` / `Ok(x)` unwraps into the binding.
    LocalUnwrap,
    /// The value a destructuring pattern (`{ a, b } = value`) takes the binding from.
    LocalDestructure,
    /// The tuple struct or variant a pattern binding is a positional field of
    /// (`Kind::V(x)`).
    LocalPositional,
    /// The function of a call whose closure argument declares the binding as a
    /// parameter (`xs.find(|x| ..)`: `xs.find`).
    LocalCallee,
    /// Likewise for `new T(..)`: the constructed type.
    LocalConstructed,
    /// Something the binding comes from in a way extraction does not read: the binding is
    /// visible only after it (`let (a, b) = f(a)` uses the outer `a`).
    LocalOpaque,
    /// The binding is visible from the start of this node, before the binding itself
    /// (a Python comprehension's variables, used in the expression before their `for`).
    LocalHoisted,
    /// Nothing inside this node is a reference (Rust attributes).
    IgnoreInside,
    /// A `return` statement: its function's value, when it is the function's only one
    /// (see [`crate::family::ReturnedValues`]).
    FunctionReturn,
    /// A `yield`: its function is a generator, whose call gives no returned value.
    FunctionYield,
    /// A value the function returns without a `return` (Ruby's last expression).
    FunctionResult,
    /// The name of a type parameter declared somewhere in the file: only such names are
    /// looked up among the enclosing items' type parameters.
    TypeParameter,
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
            "scope.receiver" => CaptureRole::ScopeReceiver,
            "scope.module" => CaptureRole::ScopeModule,
            "scope.name" => CaptureRole::ScopeName,
            "declared.type" => CaptureRole::DeclaredType,
            "declared.value" => CaptureRole::DeclaredValue,
            "local.scope" => CaptureRole::LocalScope,
            "local.definition" => CaptureRole::LocalDefinition,
            "local.type" => CaptureRole::LocalType,
            "local.value" => CaptureRole::LocalValue,
            "local.element" => CaptureRole::LocalElement,
            "local.unwrap" => CaptureRole::LocalUnwrap,
            "local.destructure" => CaptureRole::LocalDestructure,
            "local.opaque" => CaptureRole::LocalOpaque,
            "local.hoisted" => CaptureRole::LocalHoisted,
            "local.positional" => CaptureRole::LocalPositional,
            "local.callee" => CaptureRole::LocalCallee,
            "local.constructed" => CaptureRole::LocalConstructed,
            "ignore.inside" => CaptureRole::IgnoreInside,
            "function.return" => CaptureRole::FunctionReturn,
            "function.yield" => CaptureRole::FunctionYield,
            "function.result" => CaptureRole::FunctionResult,
            "type.parameter" => CaptureRole::TypeParameter,
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
    /// The family's node kinds, resolved to this grammar's ids.
    pub(crate) kinds: FamilyKinds,
    /// Per pattern: a suffix its reference's name takes when the source leaves it out
    /// (`(#set! name.suffix "Attribute")`: C#'s `[Cached]` names `CachedAttribute`).
    pub(crate) name_suffixes: Vec<Option<Box<str>>>,
    /// Per pattern: whether its definition counts only outside every `@local.scope`
    /// (`(#set! definition.file_scope)`: a C declaration is a file-scope variable at the
    /// top level or inside any conditional compilation there, and a local in a function).
    pub(crate) file_scope_only: Vec<bool>,
}

impl LanguageSupport {
    fn build(lang: Lang) -> Result<Self, QueryError> {
        let language = (lang.spec().grammar)();
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
        let kinds = FamilyKinds::new(lang.family().syntax(), &language);
        let name_suffixes = (0..query.pattern_count())
            .map(|pattern| {
                query
                    .property_settings(pattern)
                    .iter()
                    .find(|p| &*p.key == "name.suffix")
                    .and_then(|p| p.value.clone())
            })
            .collect();
        let file_scope_only = (0..query.pattern_count())
            .map(|pattern| {
                query
                    .property_settings(pattern)
                    .iter()
                    .any(|p| &*p.key == "definition.file_scope")
            })
            .collect();
        Ok(Self {
            lang,
            language,
            query,
            roles,
            kinds,
            name_suffixes,
            file_scope_only,
        })
    }
}

/// Names the extraction rules this build applies: the crate version, the extraction
/// code's revision and a hash of every query file. An index built under another
/// fingerprint holds facts these rules would not produce, so the indexer rebuilds it even
/// when no source file changed.
pub fn extraction_fingerprint() -> String {
    // FNV-1a: stable across Rust releases, unlike `DefaultHasher`.
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut seen: Vec<&str> = Vec::new();
    for spec in &LANGUAGES {
        for query in spec.queries {
            if seen.contains(&query.path) {
                continue;
            }
            seen.push(query.path);
            for byte in query.text.bytes().chain([0]) {
                hash ^= u64::from(byte);
                hash = hash.wrapping_mul(0x0100_0000_01b3);
            }
        }
    }
    format!(
        "{}-r{EXTRACTION_REVISION}-{hash:016x}",
        env!("CARGO_PKG_VERSION")
    )
}

/// Compiles every query for every language; the first failure is returned.
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
    fn the_table_is_consistent() {
        for lang in Lang::ALL {
            assert_eq!(lang.spec().lang, lang, "{lang:?} finds another row");
            assert_eq!(Lang::parse(lang.as_str()), Some(lang));
            assert_eq!(Lang::from_store_code(lang.store_code()), Some(lang));
            assert_ne!(lang.store_code(), 0, "0 means not parsed");
            for ext in lang.spec().extensions {
                assert_eq!(Lang::from_extension(ext), Some(lang), "{ext}");
            }
        }
        let mut codes: Vec<u8> = LANGUAGES.iter().map(|s| s.store_code).collect();
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), LANGUAGES.len(), "store codes must be unique");
        assert_eq!(Lang::ALL.len(), LANGUAGES.len());
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
            ("a.py", Some(Lang::Python)),
            ("a.pyi", Some(Lang::Python)),
            ("a.go", Some(Lang::Go)),
            ("a.java", Some(Lang::Java)),
            ("a.cs", Some(Lang::CSharp)),
            ("a.c", Some(Lang::C)),
            ("a.h", Some(Lang::C)),
            ("a.cpp", Some(Lang::Cpp)),
            ("a.kt", Some(Lang::Kotlin)),
            ("a.sh", Some(Lang::Shell)),
            ("init.lua", Some(Lang::Lua)),
            ("a.zsh", None),
            ("build.gradle.kts", Some(Lang::Kotlin)),
            ("Makefile", None),
        ];
        for (path, want) in cases {
            assert_eq!(Lang::from_path(Path::new(path)), want, "{path}");
        }
    }

    #[test]
    fn shell_patterns_the_grammar_cannot_read_are_blanked_in_place() {
        let cases: [(&str, &str); 9] = [
            ("x=${line//[$'\t']/ }\n", "x=${line}xxxxxxxxxx\n"),
            (
                "[[ ${COMP_LINE,,} == *.@(a|b)\\ * ]] && f\n",
                "[[ ${COMP_LINE}xx == xxxxxxxxxxx ]] && f\n",
            ),
            ("[[ $cur =~ ^-[a-z]+$ ]]\n", "[[ $cur =~ xxxxxxxxx ]]\n"),
            ("[[ $a =~ \\\n  ^x ]] || g\n", "[[ $a =~ \\\n  xx ]] || g\n"),
            // Plain expansions and globs are read as written.
            (
                "echo ${x} ${#a} $y [[ $a == -* ]]\n",
                "echo ${x} ${#a} $y [[ $a == -* ]]\n",
            ),
            ("v=${a:-${b}}\n", "v=${a}xxxxxx\n"),
            (
                "[[ $l =~ <(a|b)[[:space:]].* ]]\n",
                "[[ $l =~ xxxxxxxxxxxxxxxxxxx ]]\n",
            ),
            (
                "case $1 in\n-!(-*)[pD]) f ;;\nesac\n",
                "case $1 in\n-_xxxx[pD]) f ;;\nesac\n",
            ),
            ("n=$((a+(b*2)))\n", "n=$((a+(b*2)))\n"),
        ];
        for (source, want) in cases {
            let view = blank_shell_patterns(source.as_bytes());
            assert_eq!(view.len(), source.len(), "{source:?}");
            assert_eq!(String::from_utf8_lossy(&view), want, "{source:?}");
        }
    }

    #[test]
    fn text_only_languages_are_not_parsed_languages() {
        for text_only in &TEXT_ONLY_LANGUAGES {
            assert_eq!(Lang::parse(text_only.name), None, "{}", text_only.name);
            for alias in text_only.aliases {
                assert_eq!(Lang::parse(alias), None, "{alias}");
            }
            for ext in text_only.extensions {
                assert_eq!(Lang::from_extension(ext), None, "{ext}");
            }
        }
        assert!(TextOnlyLanguage::of_path("src/session.cpp").is_none());
        assert_eq!(
            TextOnlyLanguage::of_path("src/App.swift").map(|l| l.name),
            Some("swift")
        );
        assert!(TextOnlyLanguage::of_path("src/App.kt").is_none());
        assert!(TextOnlyLanguage::of_path("src/lib.rs").is_none());
        assert!(TextOnlyLanguage::of_path("Makefile").is_none());
        assert_eq!(TextOnlyLanguage::named("zsh").map(|l| l.name), Some("zsh"));
        assert!(TextOnlyLanguage::of_path("bin/setup.sh").is_none());
        assert!(TextOnlyLanguage::of_path("pkg/session.py").is_none());
        assert!(TextOnlyLanguage::of_path("pkg/session.go").is_none());
        assert!(TextOnlyLanguage::of_path("pkg/Session.java").is_none());
        assert!(TextOnlyLanguage::of_path("pkg/Session.cs").is_none());
        assert!(TextOnlyLanguage::of_path("src/session.c").is_none());
    }

    #[test]
    fn export_macros_of_cpp_classes_are_blanked_for_the_parser() {
        let view = |s: &str| String::from_utf8(blank_export_macros(s.as_bytes()).into_owned());
        assert_eq!(
            view("class LEVELDB_EXPORT Cache {").ok().as_deref(),
            Some("class                Cache {")
        );
        assert_eq!(
            view("class GTEST_API_ Matcher<const std::string&> : public Base {")
                .ok()
                .as_deref(),
            Some("class            Matcher<const std::string&> : public Base {")
        );
        assert_eq!(
            view("struct GTEST_API_ Options final : Base {")
                .ok()
                .as_deref(),
            Some("struct            Options final : Base {")
        );
        // A forward declaration, a variable of a struct type, a lowercase word, a
        // qualified name: as written.
        for unchanged in [
            "class FOO;",
            "struct STAT buf;",
            "struct STAT buf = {0};",
            "class detail Foo {",
            "class A::B {",
            "struct X Y::Z {",
            "class",
        ] {
            assert!(
                matches!(blank_export_macros(unchanged.as_bytes()), Cow::Borrowed(_)),
                "{unchanged}"
            );
        }
    }

    #[test]
    fn a_header_is_c_unless_written_in_cpp() {
        let c = [
            "#ifndef A_H\n#define A_H\nstruct cart { int n; };\nint total(struct cart *);\n#endif\n",
            // Guards that make a C header includable from C++ are C.
            "#ifdef __cplusplus\nextern \"C\" {\n#endif\nint f(void);\n",
            // C++ words in comments and strings, and `class` as a name, are not C++.
            "/* class Foo; a::b */\n// namespace x\nconst char *s = \"std::string\";\nint classify(int class_id);\n",
            "char c = ':'; char d = ':';\n",
            "",
        ];
        for content in c {
            assert_eq!(
                Lang::of_file(Path::new("a.h"), content),
                Some(Lang::C),
                "{content}"
            );
        }
        let cpp = [
            "class JPContext;\n",
            "namespace acme {\nint f();\n}\n",
            "template <typename T> T max(T a, T b);\n",
            "struct S {\npublic:\n  int x;\n};\n",
            "int f(std::string s);\n",
            "/* a comment\n spanning lines */ class X {};\n",
        ];
        for content in cpp {
            assert_eq!(
                Lang::of_file(Path::new("a.h"), content),
                Some(Lang::Cpp),
                "{content}"
            );
        }
        // Only `.h` is decided by content.
        assert_eq!(Lang::of_file(Path::new("a.c"), "class X;\n"), Some(Lang::C));
        // A script without an extension is known by its `#!` line.
        for (content, want) in [
            ("#!/bin/sh\necho\n", Some(Lang::Shell)),
            ("#!/usr/bin/env bash\n", Some(Lang::Shell)),
            ("#! /bin/bash -e\n", Some(Lang::Shell)),
            ("#!/usr/bin/env -S bash -e\n", Some(Lang::Shell)),
            ("#!/usr/bin/env python3\n", None),
            ("#!/bin/zsh\n", None),
            (
                "# ssh(1) completion    -*- shell-script -*-\n",
                Some(Lang::Shell),
            ),
            (
                "#!/bin/false\n# -*- mode: sh; indent-tabs-mode: nil -*-\n",
                Some(Lang::Shell),
            ),
            ("# -*- coding: utf-8 -*-\n", None),
            ("echo hi\n", None),
        ] {
            assert_eq!(
                Lang::of_file(Path::new("bin/setup"), content),
                want,
                "{content}"
            );
        }
        assert_eq!(
            Lang::of_file(Path::new("completions/invoke-rc.d"), "#!/bin/sh\n"),
            Some(Lang::Shell)
        );
        assert_eq!(Lang::of_file(Path::new("a.zsh"), "#!/bin/sh\n"), None);
        assert_eq!(
            Lang::of_file(Path::new("run.py"), "#!/bin/sh\n"),
            Some(Lang::Python)
        );
        assert_eq!(
            Lang::of_file(Path::new("a.rs"), "a::b();\n"),
            Some(Lang::Rust)
        );
    }
}
