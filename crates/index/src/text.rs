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

impl QueryPart {
    /// Whether a line's identifiers satisfy this part.
    pub fn matches_line(&self, line: &str) -> bool {
        match self {
            QueryPart::Word { whole, parts } => {
                let mut seen_parts = vec![false; parts.len()];
                for (_, run) in identifier_runs(line) {
                    let lower = run.to_lowercase();
                    if &lower == whole {
                        return true;
                    }
                    for word in sub_words(run) {
                        // A one-word query matches that word inside identifiers too
                        // (`config` finds `load_config`), as the text index does.
                        if parts.is_empty() && word == *whole {
                            return true;
                        }
                        for (i, p) in parts.iter().enumerate() {
                            if *p == word {
                                seen_parts[i] = true;
                            }
                        }
                    }
                }
                !parts.is_empty() && seen_parts.iter().all(|&s| s)
            }
            QueryPart::Phrase(words) => {
                let runs: Vec<String> = identifier_runs(line)
                    .map(|(_, r)| r.to_lowercase())
                    .collect();
                !words.is_empty() && runs.windows(words.len()).any(|w| w == words.as_slice())
            }
        }
    }
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

    #[test]
    fn query_words_match_lines_by_sub_word() {
        let parts = parse_query("parseFile");
        assert!(parts[0].matches_line("fn parse_file() {}"));
        assert!(parts[0].matches_line("ParseFile::new()"));
        assert!(!parts[0].matches_line("fn parse() {}"));
        let parts = parse_query("config");
        assert!(parts[0].matches_line("fn load_config() {}"));
        assert!(parts[0].matches_line("let c = parseConfig(x);"));
        assert!(!parts[0].matches_line("fn configure() {}"));
        let parts = parse_query("\"retry backoff\"");
        assert!(parts[0].matches_line("// retry backoff policy"));
        assert!(!parts[0].matches_line("// backoff retry"));
    }

    #[test]
    fn empty_and_huge_inputs_tokenize() {
        assert!(tokens("").is_empty());
        let long = "a".repeat(10_000);
        assert!(tokens(&long).is_empty());
        assert_eq!(tokens("日本語_名前").len(), 3);
    }
}
