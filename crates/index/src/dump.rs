//! A canonical dump of an index: every fact a query can observe (files with their
//! content hashes, definitions, references with what they resolve to, overrides,
//! implementations, text documents),
//! one per line, sorted, with no generation numbers, times or record ids. Two indexes of
//! the same tree dump the same, however they were built; that is what tests compare.
//! Also where an index's bytes go (`Index::sizes`), for `mcursor debug sizes`.

use std::fmt::Write as _;

use tantivy::collector::DocSetCollector;
use tantivy::query::AllQuery;
use tantivy::schema::Value as _;

use crate::query::Index;
use crate::{IndexError, Result, TEXT_DIR, text};

impl Index {
    /// Where the index's bytes go: each store file by section (largest first) and its
    /// compressed blocks, the facts cache by part of its entries and the text index, one
    /// line each (the name, then MB, then bytes; a file's parts indented under it), then
    /// the whole directory.
    pub fn sizes(&self) -> String {
        let mut out = String::new();
        let mut line = |name: &str, bytes: u64| {
            let mb = bytes as f64 / 1e6;
            let _ = writeln!(out, "{name:<28} {mb:>9.1} MB {bytes:>13}");
        };
        for file in self.store.sizes() {
            let name = file.path.file_name().map(|n| n.to_string_lossy());
            line(name.as_deref().unwrap_or("?"), file.bytes);
            let mut sections = file.sections.clone();
            sections.sort_by_key(|&(name, bytes)| (std::cmp::Reverse(bytes), name));
            for (name, bytes) in sections.into_iter().filter(|&(_, bytes)| bytes > 0) {
                line(&format!("  {name}"), bytes);
            }
            line("  compressed blocks", file.blocks);
        }
        for name in [crate::cache::CACHE_FILE, crate::cache::PATCH_CACHE_FILE] {
            let path = self.dir.join(name);
            if let Ok(meta) = std::fs::metadata(&path) {
                line(name, meta.len());
            }
            if let Some(parts) = crate::cache::part_sizes(&path) {
                line("  declarations", parts.declarations);
                line("  outcomes", parts.outcomes);
                line("  references", parts.references);
                line("  framing", parts.framing);
            }
        }
        line(
            &format!("{TEXT_DIR}/"),
            crate::build::dir_size(&self.dir.join(TEXT_DIR)),
        );
        line("in all", crate::build::dir_size(&self.dir));
        out
    }

    /// The canonical dump (see the module docs).
    pub fn dump(&self) -> Result<String> {
        let store = &self.store;
        let place = |id: u32| -> String {
            match store.symbol(id) {
                Some(s) => {
                    let path = store.file(s.file).map(|f| f.path).unwrap_or("?");
                    format!("{}@{path}:{}", s.qualified_name, s.line)
                }
                None => "?".to_owned(),
            }
        };
        let mut lines = Vec::new();
        for file_id in 0..store.file_count() {
            let Some(file) = store.file(file_id) else {
                continue;
            };
            lines.push(format!(
                "file {} lang={} size={} hash={:016x} errors={} timeout={}",
                file.path,
                file.lang.map_or("text", |l| l.as_str()),
                file.size,
                file.hash,
                file.syntax_errors,
                file.timed_out
            ));
            for id in file.symbols.clone() {
                let Some(s) = store.symbol(id) else {
                    continue;
                };
                let (signature, doc) = s.texts();
                lines.push(format!(
                    "def {}:{}:{}-{}:{} {} {} parent={} sig={:?} doc={:?}",
                    file.path,
                    s.line,
                    s.column,
                    s.end_line,
                    s.end_column,
                    s.kind.as_str(),
                    s.qualified_name,
                    s.parent.map_or_else(|| "-".to_owned(), place),
                    signature,
                    doc
                ));
            }
            for id in file.symbols.clone() {
                for overridden in store.overridden_by(id) {
                    lines.push(format!("override {} -> {}", place(id), place(overridden)));
                }
            }
            for r in store.refs_in_file(file_id) {
                lines.push(format!(
                    "ref {}:{}:{} {} {} -> {} {} {:?} in={}",
                    file.path,
                    r.line,
                    r.column,
                    r.kind.as_str(),
                    store.name(r.name),
                    r.target.map_or_else(|| "?".to_owned(), place),
                    r.confidence.as_str(),
                    r.shape,
                    r.enclosing.map_or_else(|| "-".to_owned(), place),
                ));
            }
        }
        for i in store.all_implementations() {
            lines.push(format!(
                "impl {}:{}:{}-{} {} {} #{} for {}",
                store.file(i.file).map_or("?", |f| f.path),
                i.line,
                i.column,
                i.end_line,
                i.kind.as_str(),
                i.implementor
                    .map_or_else(|| i.implementor_text.to_owned(), place),
                i.container,
                place(i.supertype),
            ));
        }
        let (text_index, fields) = text::open(&self.dir.join(TEXT_DIR))?;
        let reader = text_index
            .reader_builder()
            .reload_policy(tantivy::ReloadPolicy::Manual)
            .try_into()
            .map_err(IndexError::from)?;
        let searcher = reader.searcher();
        let docs = searcher
            .search(&AllQuery, &DocSetCollector)
            .map_err(IndexError::from)?;
        for address in docs {
            let doc: tantivy::TantivyDocument = searcher.doc(address).map_err(IndexError::from)?;
            if let Some(path) = doc.get_first(fields.path).and_then(|v| v.as_str()) {
                let hash = doc.get_first(fields.hash).and_then(|v| v.as_u64());
                lines.push(format!("text {path} hash={:016x}", hash.unwrap_or(0)));
            }
        }
        lines.sort();
        let mut out = String::new();
        for line in lines {
            let _ = writeln!(out, "{line}");
        }
        Ok(out)
    }
}
