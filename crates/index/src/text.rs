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
    let mut ranges = Vec::new();
    sub_word_ranges(identifier, &mut ranges);
    ranges
        .into_iter()
        .map(|(start, end)| {
            let mut word = String::with_capacity(end - start);
            push_lowercase_word(&identifier[start..end], &mut word);
            word
        })
        .collect()
}

/// The byte ranges of an identifier's sub-words, in order, into `out` (cleared first):
/// `_` and `$` separate words, and an uppercase letter starts one after a lowercase
/// letter or a digit (`parseFile`, `v2Beta`), or ends an acronym before a lowercase
/// letter (`HTTPRequest` → `HTTP`, `Request`). The one statement of the rule, for the
/// indexed terms and the query side alike.
fn sub_word_ranges(identifier: &str, out: &mut Vec<(usize, usize)>) {
    out.clear();
    let bytes = identifier.as_bytes();
    // Most identifiers are one lowercase word (`self`, `return`, `value`): no split.
    if bytes
        .iter()
        .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
    {
        if !bytes.is_empty() {
            out.push((0, bytes.len()));
        }
        return;
    }
    // Nearly every other is ASCII: its bytes are its characters, with no decoding.
    if identifier.is_ascii() {
        let chars = identifier.bytes().map(char::from).enumerate();
        push_sub_word_ranges(chars, identifier.len(), out);
    } else {
        push_sub_word_ranges(identifier.char_indices(), identifier.len(), out);
    }
}

/// [`sub_word_ranges`]' rule over an identifier's characters and their byte offsets.
fn push_sub_word_ranges(
    chars: impl Iterator<Item = (usize, char)>,
    len: usize,
    out: &mut Vec<(usize, usize)>,
) {
    let mut start: Option<usize> = None;
    let mut prev: Option<char> = None;
    let mut chars = chars.peekable();
    while let Some((i, c)) = chars.next() {
        if c == '_' || c == '$' {
            if let Some(s) = start.take() {
                out.push((s, i));
            }
        } else {
            let boundary = c.is_uppercase()
                && prev.is_some_and(|p| {
                    p.is_lowercase()
                        || p.is_ascii_digit()
                        || (p.is_uppercase()
                            && chars.peek().is_some_and(|&(_, n)| n.is_lowercase()))
                });
            if boundary && let Some(s) = start.take() {
                out.push((s, i));
            }
            start.get_or_insert(i);
        }
        prev = Some(c);
    }
    if let Some(s) = start {
        out.push((s, len));
    }
}

/// Appends a sub-word lowercased letter by letter (`str::to_lowercase` would treat a
/// final `Σ` as the end of a word, which a sub-word is not).
fn push_lowercase_word(word: &str, out: &mut String) {
    if word.is_ascii() {
        push_ascii_lowercase(word, out);
    } else {
        for c in word.chars() {
            out.extend(c.to_lowercase());
        }
    }
}

/// Appends a whole identifier lowercased, as `str::to_lowercase` does.
fn push_lowercase_identifier(identifier: &str, out: &mut String) {
    if identifier.is_ascii() {
        push_ascii_lowercase(identifier, out);
    } else {
        out.push_str(&identifier.to_lowercase());
    }
}

/// Appends ASCII text lowercased in place (the caller has checked it is ASCII).
fn push_ascii_lowercase(ascii: &str, out: &mut String) {
    let start = out.len();
    out.push_str(ascii);
    out[start..].make_ascii_lowercase();
}

fn is_identifier_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// Identifier runs in `text` with their byte ranges.
pub(crate) fn identifier_runs(text: &str) -> IdentifierRuns<'_> {
    IdentifierRuns { text, next: 0 }
}

/// The iterator of [`identifier_runs`] (a named type, so a token stream can hold one).
pub(crate) struct IdentifierRuns<'a> {
    text: &'a str,
    /// Where the scan goes on: always a character boundary.
    next: usize,
}

/// How a byte starts a character, for the identifier scan: ASCII is decided on the byte
/// alone (a tree's text is tokenized whole, so this is the text index's innermost
/// loop); any other byte leads a character that is decoded.
#[derive(Clone, Copy, PartialEq, Eq)]
enum ByteClass {
    Separator,
    Identifier,
    NonAscii,
}

/// The ASCII half of [`is_identifier_char`], by byte (the tokenizer's unit test holds
/// the two to the same runs).
const BYTE_CLASSES: [ByteClass; 256] = {
    let mut classes = [ByteClass::NonAscii; 256];
    let mut byte = 0;
    while byte < 128 {
        let b = byte as u8;
        classes[byte] = if b.is_ascii_alphanumeric() || b == b'_' || b == b'$' {
            ByteClass::Identifier
        } else {
            ByteClass::Separator
        };
        byte += 1;
    }
    classes
};

/// Whether the character that starts at byte `at` of `text` (a character boundary) is
/// an identifier's, and its length in bytes: for a character that is not ASCII.
fn decoded_char_at(text: &str, at: usize) -> (bool, usize) {
    match text.get(at..).and_then(|rest| rest.chars().next()) {
        Some(c) => (is_identifier_char(c), c.len_utf8()),
        None => (false, 1),
    }
}

/// The class of the byte at `at` (`None` past the end).
fn class_at(bytes: &[u8], at: usize) -> Option<ByteClass> {
    bytes.get(at).map(|&b| BYTE_CLASSES[usize::from(b)])
}

impl<'a> Iterator for IdentifierRuns<'a> {
    type Item = (usize, &'a str);

    // Two plain loops over byte classes: a version with one helper returning
    // `Option<(bool, usize)>` for both was 15–20% slower.
    fn next(&mut self) -> Option<(usize, &'a str)> {
        let text = self.text;
        let bytes = text.as_bytes();
        let mut at = self.next;
        let start = loop {
            match class_at(bytes, at) {
                None => {
                    self.next = at;
                    return None;
                }
                Some(ByteClass::Separator) => at += 1,
                Some(ByteClass::Identifier) => break at,
                Some(ByteClass::NonAscii) => match decoded_char_at(text, at) {
                    (true, _) => break at,
                    (false, width) => at += width,
                },
            }
        };
        loop {
            match class_at(bytes, at) {
                None | Some(ByteClass::Separator) => break,
                Some(ByteClass::Identifier) => at += 1,
                Some(ByteClass::NonAscii) => match decoded_char_at(text, at) {
                    (true, width) => at += width,
                    (false, _) => break,
                },
            }
        }
        self.next = at;
        Some((start, &text[start..at]))
    }
}

#[derive(Clone)]
pub(crate) struct CodeTokenizer;

/// Each identifier run's terms: the identifier lowercased, then its sub-words when it
/// has more than one, all at the run's position; made one at a time into the one token
/// tantivy reads: indexing a large tree tokenizes every byte of it, and a
/// string per term was a fifth of the text index's cost.
pub(crate) struct CodeTokenStream<'a> {
    runs: IdentifierRuns<'a>,
    /// The position of the next run (every run counts, also those too long to index).
    next_position: usize,
    /// The run whose sub-words are being given, and where it starts.
    run: &'a str,
    run_start: usize,
    /// Byte ranges in `run` of the sub-words still to give, last first.
    pending: Vec<(usize, usize)>,
    current: Token,
}

impl Tokenizer for CodeTokenizer {
    type TokenStream<'a> = CodeTokenStream<'a>;

    fn token_stream<'a>(&'a mut self, text: &'a str) -> CodeTokenStream<'a> {
        CodeTokenStream {
            runs: identifier_runs(text),
            next_position: 0,
            run: "",
            run_start: 0,
            pending: Vec::new(),
            current: Token::default(),
        }
    }
}

impl CodeTokenStream<'_> {
    fn set_current(&mut self, position: usize) {
        self.current.offset_from = self.run_start;
        self.current.offset_to = self.run_start + self.run.len();
        self.current.position = position;
        self.current.position_length = 1;
    }
}

impl TokenStream for CodeTokenStream<'_> {
    fn advance(&mut self) -> bool {
        if let Some((start, end)) = self.pending.pop() {
            self.current.text.clear();
            push_lowercase_word(&self.run[start..end], &mut self.current.text);
            // Sub-words stand at their identifier's position.
            self.set_current(self.current.position);
            return true;
        }
        loop {
            let Some((start, run)) = self.runs.next() else {
                return false;
            };
            let position = self.next_position;
            self.next_position += 1;
            if run.len() > MAX_TOKEN_BYTES {
                continue;
            }
            self.run = run;
            self.run_start = start;
            sub_word_ranges(run, &mut self.pending);
            if self.pending.len() > 1 {
                self.pending.reverse();
            } else {
                self.pending.clear();
            }
            self.current.text.clear();
            push_lowercase_identifier(run, &mut self.current.text);
            self.set_current(position);
            return true;
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
        let mut tokenizer = CodeTokenizer;
        let mut stream = tokenizer.token_stream(text);
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

    /// The tokenizer as first written (a string per term, a vector per run, characters
    /// decoded one by one), kept as the reference the streaming one must agree with.
    fn reference_tokens(text: &str) -> Vec<(String, usize, usize, usize)> {
        fn reference_sub_words(identifier: &str) -> Vec<String> {
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
        fn reference_runs(text: &str) -> Vec<(usize, &str)> {
            let mut runs = Vec::new();
            let mut start = None;
            for (i, c) in text.char_indices() {
                match (is_identifier_char(c), start) {
                    (true, None) => start = Some(i),
                    (false, Some(s)) => {
                        runs.push((s, &text[s..i]));
                        start = None;
                    }
                    _ => {}
                }
            }
            if let Some(s) = start {
                runs.push((s, &text[s..]));
            }
            runs
        }
        let mut out = Vec::new();
        for (position, (start, run)) in reference_runs(text).into_iter().enumerate() {
            if run.len() > MAX_TOKEN_BYTES {
                continue;
            }
            let end = start + run.len();
            out.push((run.to_lowercase(), position, start, end));
            let parts = reference_sub_words(run);
            if parts.len() > 1 {
                out.extend(parts.into_iter().map(|p| (p, position, start, end)));
            }
        }
        out
    }

    fn all_tokens(text: &str) -> Vec<(String, usize, usize, usize)> {
        let mut tokenizer = CodeTokenizer;
        let mut stream = tokenizer.token_stream(text);
        let mut out = Vec::new();
        while stream.advance() {
            let t = stream.token();
            out.push((t.text.clone(), t.position, t.offset_from, t.offset_to));
        }
        out
    }

    #[test]
    fn the_streaming_tokenizer_gives_the_reference_terms() {
        let fixed = [
            "fn parseHTTPRequest_v2(x: &MyType) -> Σίσυφος { ΣΑΣ_ΌΝΟΜΑ }",
            "$jquery__init__ __proto__ ABCdef aBC A1B2c3 İstanbul ǅemal ﬃx ẞig",
            "a_ _a _ $ $$ x$Y v2Beta HTTP2Server OAuth2Token",
        ];
        for text in fixed {
            assert_eq!(all_tokens(text), reference_tokens(text), "{text}");
        }
        // Pseudo-random text over letters of both cases, digits, separators, spaces and a
        // few non-ASCII letters (deterministic: a linear congruential generator).
        let alphabet: Vec<char> = "aZbYcX09_$ .(\nÉéΣσßİı日".chars().collect();
        let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
        for _ in 0..2_000 {
            let mut text = String::new();
            for _ in 0..40 {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                text.push(alphabet[(seed >> 33) as usize % alphabet.len()]);
            }
            assert_eq!(all_tokens(&text), reference_tokens(&text), "{text:?}");
        }
        let long = format!("short {} tail", "x".repeat(MAX_TOKEN_BYTES + 1));
        assert_eq!(all_tokens(&long), reference_tokens(&long));
        assert_eq!(
            all_tokens(&long)[1].1,
            2,
            "a run too long still takes a position"
        );
    }

    #[test]
    fn empty_and_huge_inputs_tokenize() {
        assert!(tokens("").is_empty());
        let long = "a".repeat(10_000);
        assert!(tokens(&long).is_empty());
        assert_eq!(tokens("日本語_名前").len(), 3);
    }
}
