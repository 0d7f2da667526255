//! The full-text index: one tantivy document per text file, tokenized for code.
//!
//! The code tokenizer keeps each identifier whole (lowercased) and adds its sub-words at the
//! same position: `parse_file`, `parseFile` and `ParseFile` all yield `parse` and `file`,
//! and `pm_resume` stays findable as one term. File contents are indexed without
//! positions and not stored: tantivy narrows the search to files, and matching lines
//! (phrases included) are found by reading those files, which keeps the index small.

use std::path::Path;

use tantivy::query::{BooleanQuery, Occur, Query, TermQuery};
use tantivy::schema::{
    Field, IndexRecordOption, STORED, STRING, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{Token, TokenStream, Tokenizer};
use tantivy::{Index, IndexWriter, TantivyDocument, Term};

use crate::error::Result;

pub(crate) const TOKENIZER: &str = "mcursor_code";
/// Longer runs are data (base64, minified blobs), not identifiers anyone searches for.
const MAX_TOKEN_BYTES: usize = 96;

/// The fields of the text index.
#[derive(Clone, Copy)]
pub(crate) struct TextFields {
    pub path: Field,
    pub lang: Field,
    pub content: Field,
    /// The content hash of the indexed text, so a dump can tell stale documents apart.
    pub hash: Field,
}

pub(crate) fn schema() -> (Schema, TextFields) {
    let mut builder = Schema::builder();
    let path = builder.add_text_field("path", STRING | STORED);
    let lang = builder.add_text_field("lang", STRING);
    let indexing = TextFieldIndexing::default()
        .set_tokenizer(TOKENIZER)
        // No positions: a phrase is looked up as all of its words, and adjacency is then
        // checked on the matching lines themselves. Positions would double the index.
        .set_index_option(IndexRecordOption::WithFreqs);
    let content = builder.add_text_field(
        "content",
        TextOptions::default().set_indexing_options(indexing),
    );
    let hash = builder.add_u64_field("hash", STORED);
    (
        builder.build(),
        TextFields {
            path,
            lang,
            content,
            hash,
        },
    )
}

pub(crate) fn register_tokenizer(index: &Index) {
    index.tokenizers().register(TOKENIZER, CodeTokenizer);
}

pub(crate) fn open_or_create(dir: &Path) -> Result<(Index, TextFields)> {
    let (schema, fields) = schema();
    let directory =
        tantivy::directory::MmapDirectory::open(dir).map_err(tantivy::TantivyError::from)?;
    let index = Index::open_or_create(directory, schema)?;
    register_tokenizer(&index);
    Ok((index, fields))
}

pub(crate) fn open(dir: &Path) -> Result<(Index, TextFields)> {
    let index = Index::open_in_dir(dir)?;
    register_tokenizer(&index);
    let schema = index.schema();
    let field = |name: &str| {
        schema.get_field(name).map_err(|_| {
            tantivy::TantivyError::SchemaError(format!("the text index has no field {name}"))
        })
    };
    let fields = TextFields {
        path: field("path")?,
        lang: field("lang")?,
        content: field("content")?,
        hash: field("hash")?,
    };
    Ok((index, fields))
}

pub(crate) fn add_file(
    writer: &IndexWriter,
    fields: TextFields,
    path: &str,
    lang: &str,
    content: &str,
    hash: u64,
) -> Result<()> {
    let mut doc = TantivyDocument::default();
    doc.add_text(fields.path, path);
    doc.add_u64(fields.hash, hash);
    doc.add_text(fields.lang, lang);
    doc.add_text(fields.content, content);
    writer.add_document(doc)?;
    Ok(())
}

/// Removes the document of `path` (part of the writer's next commit).
pub(crate) fn delete_file(writer: &IndexWriter, fields: TextFields, path: &str) {
    writer.delete_term(Term::from_field_text(fields.path, path));
}

/// Splits an identifier into its lowercase sub-words: `parseHTTPRequest_v2` →
/// `parse`, `http`, `request`, `v2`.
pub(crate) fn sub_words(identifier: &str) -> Vec<String> {
    let chars: Vec<char> = identifier.chars().collect();
    let mut words = Vec::new();
    let mut current = String::new();
    for (i, &c) in chars.iter().enumerate() {
        if c == '_' || c == '$' {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1).copied();
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(char::is_lowercase))
            });
        if boundary && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    words
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Identifier runs in `text` with their byte ranges.
pub(crate) fn identifier_runs(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut rest = text.char_indices().peekable();
    std::iter::from_fn(move || {
        loop {
            let (start, c) = rest.next()?;
            if !is_identifier_char(c) {
                continue;
            }
            let mut end = start + c.len_utf8();
            while let Some(&(i, c)) = rest.peek() {
                if !is_identifier_char(c) {
                    break;
                }
                end = i + c.len_utf8();
                rest.next();
            }
            return Some((start, &text[start..end]));
        }
    })
}

/// The terms one identifier contributes: itself lowercased, then its sub-words if it has
/// more than one.
pub(crate) fn identifier_terms(identifier: &str) -> Vec<String> {
    if identifier.len() > MAX_TOKEN_BYTES {
        return Vec::new();
    }
    let whole = identifier.to_lowercase();
    let parts = sub_words(identifier);
    let mut terms = vec![whole];
    if parts.len() > 1 {
        terms.extend(parts);
    }
    terms
}

#[derive(Clone)]
pub(crate) struct CodeTokenizer;

pub(crate) struct CodeTokenStream {
    tokens: std::vec::IntoIter<Token>,
    current: Token,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream {
        let mut tokens = Vec::new();
        for (position, (start, run)) in identifier_runs(text).enumerate() {
            for term in identifier_terms(run) {
                tokens.push(Token {
                    offset_from: start,
                    offset_to: start + run.len(),
                    position,
                    text: term,
                    position_length: 1,
                });
            }
        }
        CodeTokenStream {
            tokens: tokens.into_iter(),
            current: Token::default(),
        }
    }
}

impl TokenStream for CodeTokenStream {
    fn advance(&mut self) -> bool {
        match self.tokens.next() {
            Some(token) => {
                self.current = token;
                true
            }
            None => false,
        }
    }

    fn token(&self) -> &Token {
        &self.current
    }

    fn token_mut(&mut self) -> &mut Token {
        &mut self.current
    }
}

/// One part of a parsed search query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum QueryPart {
    /// A word: matches its whole lowercase form, or all of its sub-words.
    Word { whole: String, parts: Vec<String> },
    /// A quoted phrase: whole identifiers in sequence.
    Phrase(Vec<String>),
}

/// How well a line matches a query; greater is better. Compared in field order: lines
/// with more of the query's words first, then lines with one identifier made of the
/// words in order, then lines where more of them are whole identifiers (`request`, not
/// `request_url`), then lines where they stand closer together (a phrase, `def
/// request(`, before words far apart).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct LineScore {
    pub matched: usize,
    /// One identifier spells the query's words in order: 2 when it is exactly them
    /// (`try get matches` → `try_get_matches`, most often the definition being looked
    /// for), 1 when it holds them among others (`try_get_matches_from`).
    pub compound: u8,
    pub whole: usize,
    pub closeness: std::cmp::Reverse<usize>,
}

/// One identifier of a line: lowercased whole, and its sub-words.
struct Run<'a> {
    lower: std::borrow::Cow<'a, str>,
    /// Split only when the identifier holds a query word at all.
    sub_words: Vec<String>,
}

/// Where a query part first matches a line (an identifier index) and whether it matched
/// a whole identifier (or a phrase) rather than sub-words.
fn part_position(part: &QueryPart, runs: &[Run<'_>]) -> Option<(usize, bool)> {
    match part {
        QueryPart::Word { whole, parts } => {
            if let Some(i) = runs.iter().position(|r| &r.lower == whole) {
                return Some((i, true));
            }
            if parts.is_empty() {
                return runs
                    .iter()
                    .position(|r| r.sub_words.iter().any(|w| w == whole))
                    .map(|i| (i, false));
            }
            let mut first = None;
            for p in parts {
                let i = runs
                    .iter()
                    .position(|r| r.sub_words.iter().any(|w| w == p))?;
                first = Some(first.map_or(i, |f: usize| f.min(i)));
            }
            first.map(|i| (i, false))
        }
        QueryPart::Phrase(words) => {
            if words.is_empty() || runs.len() < words.len() {
                return None;
            }
            runs.windows(words.len())
                .position(|w| w.iter().zip(words).all(|(r, word)| &r.lower == word))
                .map(|i| (i, true))
        }
    }
}

/// The score of `line` for `parts`, or `None` when no part matches it: a word matches a
/// whole identifier or its sub-words (all of a compound word's), a phrase matches whole
/// identifiers in sequence. Lines that cannot match are ruled out by a substring test
/// before any identifier is split.
#[cfg(test)]
pub(crate) fn score_line(parts: &[QueryPart], line: &str) -> Option<LineScore> {
    score_lowered_line(parts, line, &line.to_ascii_lowercase())
}

/// [`score_line`] with the line's ASCII-lowercased copy (`lower`, the same length), so a
/// file is lowercased once rather than line by line.
pub(crate) fn score_lowered_line(
    parts: &[QueryPart],
    line: &str,
    lower: &str,
) -> Option<LineScore> {
    // A word with non-ASCII letters may differ from `lower` in case: never ruled out.
    let holds = |term: &str| !term.is_ascii() || lower.contains(term);
    let may_match = parts.iter().any(|part| match part {
        QueryPart::Word { whole, parts } => {
            holds(whole) || (!parts.is_empty() && parts.iter().all(|p| holds(p)))
        }
        QueryPart::Phrase(words) => words.iter().all(|w| holds(w)),
    });
    if !may_match {
        return None;
    }
    let terms: Vec<&str> = parts
        .iter()
        .flat_map(|part| match part {
            QueryPart::Word { whole, parts } => std::iter::once(whole.as_str())
                .chain(parts.iter().map(String::as_str))
                .collect::<Vec<_>>(),
            QueryPart::Phrase(words) => words.iter().map(String::as_str).collect(),
        })
        .collect();
    let runs: Vec<Run<'_>> = identifier_runs(line)
        .map(|(start, run)| {
            let lower: std::borrow::Cow<'_, str> = if run.is_ascii() {
                std::borrow::Cow::Borrowed(&lower[start..start + run.len()])
            } else {
                std::borrow::Cow::Owned(run.to_lowercase())
            };
            let sub_words = if terms.iter().any(|t| lower.contains(t)) {
                sub_words(run)
            } else {
                Vec::new()
            };
            Run { lower, sub_words }
        })
        .collect();
    let positions: Vec<(usize, bool)> = parts
        .iter()
        .filter_map(|p| part_position(p, &runs))
        .collect();
    if positions.is_empty() {
        return None;
    }
    let first = positions.iter().map(|p| p.0).min().unwrap_or(0);
    let last = positions.iter().map(|p| p.0).max().unwrap_or(0);
    let words: Vec<&String> = parts
        .iter()
        .filter_map(|p| match p {
            QueryPart::Word { whole, parts } if parts.is_empty() => Some(whole),
            _ => None,
        })
        .collect();
    let spells = |w: &[String]| w.iter().zip(&words).all(|(a, b)| a == *b);
    let compound = if words.len() < 2 {
        0
    } else if runs
        .iter()
        .any(|r| r.sub_words.len() == words.len() && spells(&r.sub_words))
    {
        2
    } else if runs
        .iter()
        .any(|r| r.sub_words.windows(words.len()).any(spells))
    {
        1
    } else {
        0
    };
    Some(LineScore {
        matched: positions.len(),
        compound,
        whole: positions.iter().filter(|p| p.1).count(),
        closeness: std::cmp::Reverse(last - first),
    })
}

/// Parses a user's query: words and `"quoted phrases"`; punctuation separates words.
pub(crate) fn parse_query(query: &str) -> Vec<QueryPart> {
    let mut parts = Vec::new();
    for (i, chunk) in query.split('"').enumerate() {
        let in_quotes = i % 2 == 1;
        if in_quotes {
            let words: Vec<String> = identifier_runs(chunk)
                .map(|(_, r)| r.to_lowercase())
                .collect();
            match words.len() {
                0 => {}
                1 => parts.push(word_part(&words[0])),
                _ => parts.push(QueryPart::Phrase(words)),
            }
        } else {
            for (_, run) in identifier_runs(chunk) {
                parts.push(word_part(run));
            }
        }
    }
    parts
}

fn word_part(run: &str) -> QueryPart {
    let parts = sub_words(run);
    QueryPart::Word {
        whole: run.to_lowercase(),
        parts: if parts.len() > 1 { parts } else { Vec::new() },
    }
}

pub(crate) fn build_query(
    fields: TextFields,
    parts: &[QueryPart],
    lang: Option<&str>,
) -> Box<dyn Query> {
    let term = |text: &str| Term::from_field_text(fields.content, text);
    let term_query = |text: &str| -> Box<dyn Query> {
        Box::new(TermQuery::new(term(text), IndexRecordOption::WithFreqs))
    };
    let mut clauses: Vec<(Occur, Box<dyn Query>)> = Vec::new();
    for part in parts {
        let query: Box<dyn Query> = match part {
            QueryPart::Word { whole, parts } if parts.is_empty() => term_query(whole),
            QueryPart::Word { whole, parts } => {
                let all_parts: Vec<(Occur, Box<dyn Query>)> =
                    parts.iter().map(|p| (Occur::Must, term_query(p))).collect();
                Box::new(BooleanQuery::new(vec![
                    (Occur::Should, term_query(whole)),
                    (Occur::Should, Box::new(BooleanQuery::new(all_parts))),
                ]))
            }
            QueryPart::Phrase(words) => Box::new(BooleanQuery::new(
                words.iter().map(|w| (Occur::Must, term_query(w))).collect(),
            )),
        };
        clauses.push((Occur::Must, query));
    }
    if let Some(lang) = lang {
        clauses.push((
            Occur::Must,
            Box::new(TermQuery::new(
                Term::from_field_text(fields.lang, lang),
                IndexRecordOption::Basic,
            )),
        ));
    }
    Box::new(BooleanQuery::new(clauses))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Vec<(String, usize)> {
        let mut stream = CodeTokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.position));
        }
        out
    }

    #[test]
    fn identifiers_stay_whole_and_split_into_sub_words() {
        assert_eq!(sub_words("parse_file"), ["parse", "file"]);
        assert_eq!(sub_words("parseFile"), ["parse", "file"]);
        assert_eq!(sub_words("ParseFile"), ["parse", "file"]);
        assert_eq!(
            sub_words("parseHTTPRequest_v2"),
            ["parse", "http", "request", "v2"]
        );
        assert_eq!(sub_words("PM_RESUME"), ["pm", "resume"]);
        assert_eq!(
            tokens("let pm_resume = x;"),
            [
                ("let".to_owned(), 0),
                ("pm_resume".to_owned(), 1),
                ("pm".to_owned(), 1),
                ("resume".to_owned(), 1),
                ("x".to_owned(), 2)
            ]
        );
    }

    fn matches(parts: &[QueryPart], line: &str) -> bool {
        score_line(parts, line).is_some()
    }

    #[test]
    fn query_words_match_lines_by_sub_word() {
        let parts = parse_query("parseFile");
        assert!(matches(&parts, "fn parse_file() {}"));
        assert!(matches(&parts, "ParseFile::new()"));
        assert!(!matches(&parts, "fn parse() {}"));
        let parts = parse_query("config");
        assert!(matches(&parts, "fn load_config() {}"));
        assert!(matches(&parts, "let c = parseConfig(x);"));
        assert!(!matches(&parts, "fn configure() {}"));
        let parts = parse_query("\"retry backoff\"");
        assert!(matches(&parts, "// retry backoff policy"));
        assert!(!matches(&parts, "// backoff retry"));
    }

    #[test]
    fn lines_with_every_word_whole_and_close_rank_first() {
        let parts = parse_query("render help");
        let score = |line: &str| score_line(&parts, line);
        let both = score("fn render_help(&self) -> String {").expect("match");
        let whole_both = score("// render the help text").expect("match");
        let adjacent = score("render help").expect("match");
        let only_help = score("let help = self.help.clone();").expect("match");
        assert!(
            both > whole_both,
            "one identifier spelling the query comes first"
        );
        let apart = score("// render it, then help").expect("match");
        assert!(whole_both > apart, "closer words beat words apart");
        assert!(adjacent > whole_both, "adjacent words beat words apart");
        let longer = score("x.render_help_now();").expect("match");
        assert!(both > longer, "the exact identifier beats a longer one");
        assert!(longer > whole_both);
        let sub_words_apart = score("let h = render_x(help_y);").expect("match");
        assert!(
            whole_both > sub_words_apart,
            "whole identifiers beat sub-words"
        );
        assert!(both > only_help, "every word beats some words");
        assert_eq!(score("nothing to see"), None);
        // Sub-word-only candidates are confirmed on identifiers, not substrings.
        assert_eq!(score("the renderer helps"), None);

        let parts = parse_query("def request");
        let definition = score_line(&parts, "    def request(self, method, url):").expect("match");
        let other = score_line(&parts, "    def request_url(self, request):").expect("match");
        assert!(definition > other);
    }

    #[test]
    fn empty_and_huge_inputs_tokenize() {
        assert!(tokens("").is_empty());
        let long = "a".repeat(10_000);
        assert!(tokens(&long).is_empty());
        assert_eq!(tokens("日本語_名前").len(), 3);
    }
}
