//! The symbol store: mcursor's own memory-mapped file of files, symbols and references.
//!
//! One file per generation (`graph-<generation>.bin`), written to a temporary file, synced
//! and renamed into place, never modified afterwards. Lookups binary-search sorted tables
//! in the mapping, so opening costs a header check and a query touches a few pages: no
//! deserialization on the query path, past decompressing the few blocks of records it
//! reads.
//!
//! Layout (all integers little-endian): a header (`MCURGRPH`, format version, section
//! count, generation), a section table, then the sections, each 8-byte aligned and in
//! any order (the table says where each one is):
//!
//! | section | content |
//! |---|---|
//! | strings | UTF-8 bytes that the other sections point into: names, paths, qualified-name prefixes |
//! | texts | the symbols' signatures and docs, a symbol's two as one entry, in LZ4 blocks of up to 4 KiB (see [`texts`](self::texts)) |
//! | names | sorted unique symbol names, `(offset, len)` each |
//! | files | [`FILE_RECORD`] bytes each, sorted by path |
//! | symbols | the records' layout, then a record each, grouped by file in source order: the prefix's and the texts' ids and the numbers packed in as few bits as the generation needs (see [`symbols`](self::symbols)) |
//! | symbols_by_name | symbol ids sorted by (name, file, line) |
//! | refs | [`REF_RECORD`] bytes each, sorted by (target name, file, line, column), in blocks |
//! | refs_by_file | ref ids sorted by (file, line, column), in blocks |
//! | ref_file_starts | per file id, where its ids start in refs_by_file; one entry more past the last file with references |
//! | overrides | `(member, overridden)` symbol id pairs sorted by member: a method that implements a trait's, an interface's or a base class's |
//! | overridden_by | the same pairs as `(overridden, member)`, sorted by overridden |
//! | implementations | one record per declared supertype: an `impl Trait for Type`, a blanket impl, a class's `extends`/`implements`, a supertrait; sorted by (supertype, file, line) |
//! | remap | in a patch, `(base id, id now)` pairs sorted by base id: where the symbols of files whose definitions changed went (`u32::MAX`: removed); empty otherwise |
//! | meta | JSON build summary |
//!
//! The references, the largest section, and their order by file are stored in blocks of
//! [`BLOCK_RECORDS`] records: the records' bytes shuffled into lanes (every record's
//! first byte, then every second byte, ...) and compressed as one LZ4 block. Neighbouring
//! references share most of their bytes lane by lane (the same target name, file, kind,
//! nearby lines), so a block is a fifth of its records' size (on `rustreg`, 112 MB of
//! references become 25 MB). A blocked section holds the record count, the record size
//! and per block its place and its first record's first four bytes (for the references,
//! the target name: a name's references are found from the table, without decompressing
//! the blocks a binary search would); the blocks themselves lie after the sections of
//! known length, where they are appended as they are made, then come the strings and
//! the texts. A reader decompresses a block the first time one of its records is read
//! and keeps it for the layer's life. The symbols stay records of one size (their numbers
//! packed in the bits the generation needs, see [`symbols`](self::symbols)): a name is defined
//! in files all over the tree, so a `find` of a common name reads thousands of symbols
//! from as many blocks (`find new` on `rustreg`, 4,669 symbols, took 45 ms instead of 26
//! with the symbols in blocks too). Their signatures and docs are in blocks of their own
//! (the texts section), read only for the symbols a query shows.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap};
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::{Arc, OnceLock};

use mcursor_syntax::{Lang, RefKind, SymbolKind};
use memmap2::Mmap;
use rayon::prelude::*;

use crate::error::{IndexError, IoContext, Result};

mod symbols;
mod texts;

pub(crate) use symbols::SymbolBounds;
use symbols::SymbolLayout;

const MAGIC: &[u8; 8] = b"MCURGRPH";
/// Bumped whenever the layout of any section changes.
pub const FORMAT_VERSION: u32 = 10;
const HEADER_BYTES: usize = 24;
const SECTION_ENTRY_BYTES: usize = 24;

pub(crate) const FILE_RECORD: usize = 48;
pub(crate) const REF_RECORD: usize = 28;
pub(crate) const IMPL_RECORD: usize = 40;
pub(crate) const NONE: u32 = u32::MAX;
/// References per compressed block (see the module docs): small blocks keep a scattered
/// read cheap (with the symbols in blocks of 64, `find new` paid about 4 µs for each of
/// 4,669 blocks of 3.5 KB, page faults included), and longer ones compress little better (`rustreg`'s references
/// take 25 MB in blocks of 64, 22 MB in blocks of 128, 40 MB in blocks of 16).
pub(crate) const BLOCK_RECORDS: usize = 64;
/// A blocked section's head (record count, record size), then per block its place in the
/// file (u64), its compressed length (u32) and its first record's first four bytes (the
/// key a sorted section is searched by, without decompressing the block).
const BLOCKED_HEAD: usize = 8;
const BLOCK_ENTRY: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u32)]
enum Section {
    Strings = 1,
    Names = 2,
    Files = 3,
    Symbols = 4,
    SymbolsByName = 5,
    Refs = 6,
    RefsByFile = 7,
    Meta = 8,
    Overrides = 9,
    OverriddenBy = 10,
    Implementations = 11,
    Remap = 12,
    RefFileStarts = 13,
    Texts = 14,
}

impl Section {
    /// The sections whose length is known only once the others are encoded: they are
    /// appended after them.
    fn written_last(self) -> bool {
        matches!(self, Section::Strings | Section::Texts)
    }

    fn name(self) -> &'static str {
        match self {
            Section::Strings => "strings",
            Section::Names => "names",
            Section::Files => "files",
            Section::Symbols => "symbols",
            Section::SymbolsByName => "symbols_by_name",
            Section::Refs => "refs",
            Section::RefsByFile => "refs_by_file",
            Section::Meta => "meta",
            Section::Overrides => "overrides",
            Section::OverriddenBy => "overridden_by",
            Section::Implementations => "implementations",
            Section::Remap => "remap",
            Section::RefFileStarts => "ref_file_starts",
            Section::Texts => "texts",
        }
    }
}

/// How one store file's bytes divide (`mcursor debug sizes`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileSizes {
    pub path: PathBuf,
    pub bytes: u64,
    /// Each section's own bytes (a blocked section's: its block table), in section order.
    pub sections: Vec<(&'static str, u64)>,
    /// The compressed blocks of the blocked sections.
    pub blocks: u64,
}

const SECTIONS: [Section; 14] = [
    Section::Strings,
    Section::Texts,
    Section::Names,
    Section::Files,
    Section::Symbols,
    Section::SymbolsByName,
    Section::Refs,
    Section::RefsByFile,
    Section::Meta,
    Section::Overrides,
    Section::OverriddenBy,
    Section::Implementations,
    Section::Remap,
    Section::RefFileStarts,
];

/// How a type came to implement or extend another.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ImplKind {
    /// `impl Trait for Type`.
    Impl,
    /// `impl<T: Bound> Trait for T`: every type its bounds allow.
    Blanket,
    /// Declared in the type's own header: `class C extends B implements I`,
    /// `interface I extends J`, `trait A: B`.
    Subtype,
}

impl ImplKind {
    pub const ALL: [ImplKind; 3] = [ImplKind::Impl, ImplKind::Blanket, ImplKind::Subtype];

    pub fn as_str(self) -> &'static str {
        match self {
            ImplKind::Impl => "impl",
            ImplKind::Blanket => "blanket",
            ImplKind::Subtype => "subtype",
        }
    }

    fn code(self) -> u8 {
        match self {
            ImplKind::Impl => 0,
            ImplKind::Blanket => 1,
            ImplKind::Subtype => 2,
        }
    }
}

/// How sure the index is about what a reference points to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Confidence {
    /// Decided by scope, an import or a path.
    Resolved,
    /// Matched by name only; it may point to another definition with that name.
    Heuristic,
}

impl Confidence {
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Resolved => "resolved",
            Confidence::Heuristic => "heuristic",
        }
    }
}

/// The language's code in file records (the language table's), 0 for files kept as
/// text only.
pub(crate) fn lang_code(lang: Option<Lang>) -> u8 {
    lang.map_or(0, Lang::store_code)
}

fn lang_from_code(code: u8) -> Option<Lang> {
    Lang::from_store_code(code)
}

fn kind_code(kind: SymbolKind) -> u8 {
    SymbolKind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u8
}

fn ref_kind_code(kind: RefKind) -> u8 {
    RefKind::ALL.iter().position(|&k| k == kind).unwrap_or(0) as u8
}

/// How a use is written, which limits what it can refer to when matched by name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum RefShape {
    /// `name`: a free function, type, constant..., not a method or field.
    Bare = 0,
    /// `value.name`: a method or field.
    Member = 1,
    /// `Path::name`: anything of a compatible kind, associated functions included.
    Path = 2,
}

/// A file as the builder hands it to the writer.
#[derive(Debug, Clone)]
pub(crate) struct FileRow {
    pub path: String,
    pub lang: Option<Lang>,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: u64,
    pub syntax_errors: bool,
    /// The line of the first syntax error, when known (see [`FileInfo::first_syntax_error`]).
    pub first_syntax_error: Option<u32>,
    pub timed_out: bool,
    pub symbols: (u32, u32),
}

/// A symbol as the builder hands it to the writer. A cold build holds one per definition
/// of the tree at once, so its texts are shared: the prefix among the symbols of one scope,
/// the signature and doc borrowed from the file's facts where the build still has them.
#[derive(Debug, Clone)]
pub(crate) struct SymbolRow<'a> {
    pub name: u32,
    pub file: u32,
    pub parent: u32,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub kind: SymbolKind,
    /// A member of a container (method, field, variant, associated item): never named
    /// by a bare name outside it.
    pub member: bool,
    /// The qualified name's part before the name (`config::` of `config::parse`); the name
    /// itself is in the names table.
    pub prefix: Arc<str>,
    pub signature: Cow<'a, str>,
    pub doc: Cow<'a, str>,
}

impl SymbolRow<'_> {
    /// The row with its texts copied, free of the facts it borrowed from.
    pub fn into_owned(self) -> SymbolRow<'static> {
        SymbolRow {
            signature: Cow::Owned(self.signature.into_owned()),
            doc: Cow::Owned(self.doc.into_owned()),
            ..self
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RefRow {
    pub name: u32,
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub target: u32,
    pub enclosing: u32,
    pub kind: RefKind,
    pub confidence: Confidence,
    pub shape: RefShape,
}

/// One declared supertype: as the resolver hands it to the writer, and as read back.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImplRecord {
    /// The trait, interface or class implemented or extended.
    pub supertype: u32,
    /// The implementing type's symbol; `None` for a blanket impl or a type outside the
    /// repository (`impl MyTrait for String`).
    pub implementor: Option<u32>,
    /// The implementing type as written (`Parser`, `Vec<T>`, `P: Source`).
    pub implementor_text: String,
    pub file: u32,
    /// The container's index among its file's containers (a patch moves its position).
    pub container: u32,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub kind: ImplKind,
}

impl ImplRecord {
    fn key(&self) -> (u32, u32, u32, u32, u32) {
        (
            self.supertype,
            self.file,
            self.line,
            self.column,
            self.container,
        )
    }
}

/// A generation's symbol rows, in id order.
pub(crate) enum SymbolRows<'a> {
    /// Made one by one: a patch's files, a test's store.
    Made(Vec<SymbolRow<'a>>),
    /// A whole resolution's, made a file at a time as the store is written: held for
    /// every definition of the tree at once (96 bytes each), they were 151 MiB of a cold
    /// build's peak on `rustreg`.
    PerFile(Box<dyn RowSource + 'a>),
}

impl SymbolRows<'_> {
    pub fn len(&self) -> usize {
        match self {
            SymbolRows::Made(rows) => rows.len(),
            SymbolRows::PerFile(source) => source.len(),
        }
    }

    /// The rows, when they are made (`None` for rows made as they are written).
    pub fn made(&self) -> Option<&[SymbolRow<'_>]> {
        match self {
            SymbolRows::Made(rows) => Some(rows),
            SymbolRows::PerFile(_) => None,
        }
    }
}

impl<'a> From<Vec<SymbolRow<'a>>> for SymbolRows<'a> {
    fn from(rows: Vec<SymbolRow<'a>>) -> Self {
        SymbolRows::Made(rows)
    }
}

/// Symbol rows made from something smaller than the rows, a file at a time (see
/// [`SymbolRows::PerFile`]). Symbol ids are `0..len()`; each file's are the ids after
/// the files before it.
pub(crate) trait RowSource: Send + Sync {
    fn len(&self) -> usize;
    fn file_count(&self) -> u32;
    /// Calls `each` with the rows of file `file`, in id order.
    fn for_each_row(&self, file: u32, each: &mut dyn FnMut(&SymbolRow<'_>));
    /// The name id of symbol `id`.
    fn name(&self, id: u32) -> u32;
    /// The file, line and column of symbol `id`.
    fn position(&self, id: u32) -> (u32, u32, u32);
    /// The largest numbers of the rows [`RowSource::for_each_row`] gives (which the store
    /// packs its records by), without making their texts.
    fn bounds(&self) -> SymbolBounds;
}

/// Everything one generation of the store holds, in memory, ready to write.
pub(crate) struct StoreData<'a> {
    /// Sorted, unique (a resolution's borrow its files' facts: half a million on a
    /// large tree, not copied).
    pub names: Vec<Cow<'a, str>>,
    /// Sorted by path.
    pub files: Vec<FileRow>,
    pub symbols: SymbolRows<'a>,
    pub refs: Vec<RefRow>,
    /// `(member, overridden)`: trait, interface and base-class members their
    /// implementations answer for. In a patch, every pair with a side in a patched file.
    pub overrides: Vec<(u32, u32)>,
    /// Declared supertypes. In a patch, every record whose file, supertype or
    /// implementor is a patched file's (the rest are the base's).
    pub implementations: Vec<ImplRecord>,
    /// In a patch, `(base id, id now or NONE)` sorted by base id, for the files whose
    /// symbols took fresh ids (see [`Store`]); empty otherwise.
    pub remap: Vec<(u32, u32)>,
    pub meta: IndexMeta,
}

/// What a generation records about the build that wrote it, kept as JSON in the store's
/// meta section. A field an older build did not write takes its default; the field names
/// are the JSON keys earlier builds wrote, so their stores read the same.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct IndexMeta {
    /// The indexed root directory.
    pub root: PathBuf,
    pub files: usize,
    /// Parsed files per language name.
    pub parsed: BTreeMap<String, usize>,
    /// Skipped files per reason key (`binary`, `too_large`, ...).
    pub skipped: BTreeMap<String, usize>,
    pub source_bytes: u64,
    /// The size limit the build read files under.
    pub max_file_size: Option<u64>,
    /// `mcursor_syntax::extraction_fingerprint()` of the rules the facts were extracted by.
    pub extraction: String,
    pub built_unix_ms: u64,
    /// When the last walk of the whole tree started (0: not recorded).
    pub walked_unix_ns: u64,
    /// The root directory's modification time when that walk started.
    pub root_mtime_ns: Option<i64>,
    /// This generation's number (the store writes it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub generation: Option<u64>,
    /// For a patch: the generation it patches...
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patch_of: Option<u64>,
    /// ... and the base's ids of the files whose records it replaces.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub patched_files: Vec<u32>,
}

/// The strings section, and beside it the texts section (the symbols' signatures and
/// docs), both built by the one thread that writes the sections pointing into them.
/// Identical strings are stored once: qualified-name prefixes (`net::client::Client::`)
/// repeat across symbols. A text is found again by its hash and compared with the bytes
/// already written, so the texts added need not outlive the builder (rows made a file at
/// a time as they are written).
#[derive(Default)]
struct StringsBuilder {
    bytes: ChunkedBytes,
    texts: texts::TextsBuilder,
    /// XXH3 of each text stored, to its place.
    seen: rustc_hash::FxHashMap<u64, (u32, u32)>,
    /// The same for counted texts, to where their length starts.
    counted: rustc_hash::FxHashMap<u64, u32>,
}

impl StringsBuilder {
    fn add(&mut self, text: &str) -> (u32, u32) {
        self.add_hashed(text, xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
    }

    /// [`StringsBuilder::add`] of a text whose hash is `hash`.
    fn add_hashed(&mut self, text: &str, hash: u64) -> (u32, u32) {
        use std::collections::hash_map::Entry;

        let at = (self.bytes.len() as u32, text.len() as u32);
        match self.seen.entry(hash) {
            Entry::Occupied(seen) => {
                let (offset, len) = *seen.get();
                if len as usize == text.len()
                    && self.bytes.holds_at(offset as usize, text.as_bytes())
                {
                    return (offset, len);
                }
                // Two texts with one hash (about 10^-8 for a large tree): the second is
                // stored again, unshared.
            }
            Entry::Vacant(slot) => {
                slot.insert(at);
            }
        }
        self.bytes.extend(text.as_bytes());
        at
    }

    /// Stores `text` after its length (LEB128) and returns where the length starts, so a
    /// record points to it with one u32 (the symbols' prefixes, where an offset and a
    /// length took 8 bytes); `NONE` for an empty text, which takes no bytes (most
    /// docs). Counted texts are shared among themselves as [`StringsBuilder::add`]'s are.
    fn add_counted(&mut self, text: &str) -> u32 {
        self.add_counted_hashed(text, xxhash_rust::xxh3::xxh3_64(text.as_bytes()))
    }

    /// [`StringsBuilder::add_counted`] of a text whose hash is `hash`.
    fn add_counted_hashed(&mut self, text: &str, hash: u64) -> u32 {
        use std::collections::hash_map::Entry;

        if text.is_empty() {
            return NONE;
        }
        let at = self.bytes.len() as u32;
        match self.counted.entry(hash) {
            Entry::Occupied(seen) => {
                let offset = *seen.get();
                if self
                    .bytes
                    .holds_counted_at(offset as usize, text.as_bytes())
                {
                    return offset;
                }
                // A hash collision: stored again, unshared (as in `add_hashed`).
            }
            Entry::Vacant(slot) => {
                slot.insert(at);
            }
        }
        self.bytes.extend(&varint(text.len() as u64));
        self.bytes.extend(text.as_bytes());
        at
    }
}

/// How many bytes a chunk of [`ChunkedBytes`] holds.
const STRINGS_CHUNK: usize = 4 << 20;

/// The strings section's bytes as they are added, in chunks of [`STRINGS_CHUNK`] that are
/// never moved: one vector doubled from 32 to 64 MiB while the symbols were written,
/// copying its bytes at the store write's peak (on `rustreg`, benches/README.md, "Where
/// the peak is now"). Every chunk but the last is full, so byte `i` is in chunk
/// `i / STRINGS_CHUNK`.
#[derive(Default)]
struct ChunkedBytes {
    chunks: Vec<Vec<u8>>,
    len: usize,
}

impl ChunkedBytes {
    fn len(&self) -> usize {
        self.len
    }

    fn extend(&mut self, mut bytes: &[u8]) {
        while !bytes.is_empty() {
            let chunk = match self.chunks.last_mut() {
                Some(chunk) if chunk.len() < STRINGS_CHUNK => chunk,
                _ => {
                    self.chunks.push(Vec::with_capacity(STRINGS_CHUNK));
                    let last = self.chunks.len() - 1;
                    &mut self.chunks[last]
                }
            };
            let (now, rest) = bytes.split_at(bytes.len().min(STRINGS_CHUNK - chunk.len()));
            chunk.extend_from_slice(now);
            self.len += now.len();
            bytes = rest;
        }
    }

    fn byte_at(&self, at: usize) -> Option<u8> {
        self.chunks
            .get(at / STRINGS_CHUNK)?
            .get(at % STRINGS_CHUNK)
            .copied()
    }

    /// Whether the bytes from `start` on are `expected` (false where they run past the
    /// end).
    fn holds_at(&self, mut start: usize, mut expected: &[u8]) -> bool {
        while !expected.is_empty() {
            let Some(chunk) = self.chunks.get(start / STRINGS_CHUNK) else {
                return false;
            };
            let Some(here) = chunk.get(start % STRINGS_CHUNK..) else {
                return false;
            };
            let n = here.len().min(expected.len());
            if n == 0 || here[..n] != expected[..n] {
                return false;
            }
            (start, expected) = (start + n, &expected[n..]);
        }
        true
    }

    /// Whether a counted text ([`StringsBuilder::add_counted`]) at `offset` is `text`.
    fn holds_counted_at(&self, offset: usize, text: &[u8]) -> bool {
        varint_at(|i| self.byte_at(i), offset)
            .is_some_and(|(len, start)| len == text.len() && self.holds_at(start, text))
    }

    fn chunks(&self) -> impl Iterator<Item = &[u8]> {
        self.chunks.iter().map(Vec::as_slice)
    }
}

/// The counted text at `offset` of `strings` (see [`StringsBuilder::add_counted`]); empty
/// for `NONE`, `None` when the length or the text runs past the bytes.
fn counted_text(strings: &[u8], offset: u32) -> Option<&[u8]> {
    if offset == NONE {
        return Some(&[]);
    }
    counted_bytes(strings, offset as usize).map(|(text, _)| text)
}

/// The bytes at `at` of `bytes` after their length as a LEB128 varint (at most five
/// bytes: postcard's length prefix too), and where they end; `None` when the length or
/// the bytes run past the end.
pub(crate) fn counted_bytes(bytes: &[u8], at: usize) -> Option<(&[u8], usize)> {
    let (len, start) = varint_at(|i| bytes.get(i).copied(), at)?;
    let end = start.checked_add(len)?;
    Some((bytes.get(start..end)?, end))
}

/// `value` as a LEB128 varint: seven bits a byte, the lowest first, the high bit set on
/// every byte but the last. The one writer of the varints the store, its texts and the
/// facts cache's definitions lay out themselves; [`varint_at`] reads them.
pub(crate) fn varint(mut value: u64) -> Varint {
    let mut encoded = Varint {
        bytes: [0; 10],
        len: 0,
    };
    loop {
        let byte = value as u8 & 0x7F;
        value >>= 7;
        encoded.bytes[encoded.len] = if value == 0 { byte } else { byte | 0x80 };
        encoded.len += 1;
        if value == 0 {
            return encoded;
        }
    }
}

/// A varint's bytes (see [`varint`]).
pub(crate) struct Varint {
    bytes: [u8; 10],
    len: usize,
}

impl std::ops::Deref for Varint {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// The LEB128 varint at `at` (at most five bytes: any u32, and lengths; postcard's
/// length prefix too) and where it ends; `None` when it runs past the end or does not
/// end within five bytes.
pub(crate) fn varint_at(
    byte_at: impl Fn(usize) -> Option<u8>,
    mut at: usize,
) -> Option<(usize, usize)> {
    let mut value = 0usize;
    for shift in (0..32).step_by(7) {
        let byte = byte_at(at)?;
        at += 1;
        value |= usize::from(byte & 0x7F) << shift;
        if byte & 0x80 == 0 {
            return Some((value, at));
        }
    }
    None
}

fn put_u32(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

fn put_u64(out: &mut Vec<u8>, v: u64) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// The store file being written, shared by the sections' writers: each writes its bytes
/// at its own place, and the blocks of the blocked sections, then the strings, are
/// appended at `tail`, past every section of known length.
struct Output<'f> {
    file: &'f File,
    tail: u64,
}

impl Output<'_> {
    fn write_at(&mut self, at: u64, bytes: &[u8]) -> std::io::Result<()> {
        use std::io::{Seek, SeekFrom};

        let mut file = self.file;
        file.seek(SeekFrom::Start(at))?;
        file.write_all(bytes)
    }

    /// Writes `bytes` at the tail and returns where they start.
    fn append(&mut self, bytes: &[u8]) -> std::io::Result<u64> {
        self.append_parts(std::iter::once(bytes))
    }

    /// Writes `parts` back to back at the tail and returns where they start.
    fn append_parts<'b>(&mut self, parts: impl Iterator<Item = &'b [u8]>) -> std::io::Result<u64> {
        let at = self.tail.div_ceil(8) * 8;
        self.tail = at;
        for part in parts {
            self.write_at(self.tail, part)?;
            self.tail += part.len() as u64;
        }
        Ok(at)
    }
}

type SharedOutput<'f> = std::sync::Mutex<Output<'f>>;

/// Locks the output. A poisoned lock only means another section's writer panicked; the
/// file itself is whole (its writes are positioned), and that panic fails the write anyway.
fn lock<'a, 'f>(output: &'a SharedOutput<'f>) -> std::sync::MutexGuard<'a, Output<'f>> {
    output.lock().unwrap_or_else(|e| e.into_inner())
}

/// A section on its way into the store file: its bytes are written at the section's
/// place a chunk at a time, so no section is held whole (three sections are encoded at
/// once).
struct SectionOut<'o, 'f> {
    output: &'o SharedOutput<'f>,
    /// Where the buffered bytes go, and where the section's place ends.
    at: u64,
    end: u64,
    bytes: Vec<u8>,
}

/// What a section buffers before writing it.
const SECTION_CHUNK: usize = 1 << 20;

impl<'o, 'f> SectionOut<'o, 'f> {
    fn new(output: &'o SharedOutput<'f>, (at, len): (u64, u64)) -> Self {
        SectionOut {
            output,
            at,
            end: at + len,
            bytes: Vec::new(),
        }
    }

    /// Writes the buffered bytes once they are a chunk.
    fn chunk_done(&mut self) -> std::io::Result<()> {
        if self.bytes.len() >= SECTION_CHUNK {
            self.flush()
        } else {
            Ok(())
        }
    }

    fn flush(&mut self) -> std::io::Result<()> {
        if self.bytes.is_empty() {
            return Ok(());
        }
        let after = self.at + self.bytes.len() as u64;
        if after > self.end {
            return Err(std::io::Error::other("a store section outgrew its place"));
        }
        lock(self.output).write_at(self.at, &self.bytes)?;
        self.at = after;
        self.bytes.clear();
        Ok(())
    }

    /// Writes the rest; the section must have filled its place exactly.
    fn finish(mut self) -> std::io::Result<()> {
        self.flush()?;
        if self.at == self.end {
            Ok(())
        } else {
            Err(std::io::Error::other(
                "a store section fell short of its place",
            ))
        }
    }
}

/// A blocked section on its way into the store file (see the module docs): records are
/// gathered a block at a time, shuffled and compressed; compressed blocks are appended at
/// the file's tail a chunk at a time, and the block table, whose length the record count
/// gives, goes to the section's own place.
struct BlockedOut<'s, 'o, 'f> {
    table: &'s mut SectionOut<'o, 'f>,
    record: usize,
    /// The block being filled, its records as they are.
    raw: Vec<u8>,
    shuffled: Vec<u8>,
    /// Compressed blocks not yet written, and each one's start and length among them and
    /// first key (its first record's first four bytes).
    pending: Vec<u8>,
    pending_blocks: Vec<(usize, u32, u32)>,
}

impl<'s, 'o, 'f> BlockedOut<'s, 'o, 'f> {
    /// Starts the section in `table`, whose place holds the block table of `count`
    /// records of `record` bytes.
    fn new(table: &'s mut SectionOut<'o, 'f>, count: usize, record: usize) -> Self {
        put_u32(&mut table.bytes, count as u32);
        put_u32(&mut table.bytes, record as u32);
        BlockedOut {
            table,
            record,
            raw: Vec::with_capacity(BLOCK_RECORDS * record),
            shuffled: Vec::with_capacity(BLOCK_RECORDS * record),
            pending: Vec::new(),
            pending_blocks: Vec::new(),
        }
    }

    /// The bytes of the next record go into the returned buffer; the caller appends
    /// exactly one record's bytes, then calls [`BlockedOut::record_done`].
    fn bytes(&mut self) -> &mut Vec<u8> {
        &mut self.raw
    }

    fn record_done(&mut self) -> std::io::Result<()> {
        if self.raw.len() >= BLOCK_RECORDS * self.record {
            self.seal()?;
        }
        Ok(())
    }

    /// Compresses the block being filled.
    fn seal(&mut self) -> std::io::Result<()> {
        if self.raw.is_empty() {
            return Ok(());
        }
        if !self.raw.len().is_multiple_of(self.record) {
            return Err(std::io::Error::other("a store record has the wrong size"));
        }
        shuffle(&self.raw, self.record, &mut self.shuffled);
        let compressed = lz4_flex::block::compress(&self.shuffled);
        self.pending_blocks.push((
            self.pending.len(),
            compressed.len() as u32,
            le_u32(&self.raw, 0),
        ));
        self.pending.extend_from_slice(&compressed);
        self.raw.clear();
        if self.pending.len() >= SECTION_CHUNK {
            self.flush()?;
        }
        Ok(())
    }

    /// Appends the compressed blocks at the tail and enters their places in the table.
    fn flush(&mut self) -> std::io::Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let at = lock(self.table.output).append(&self.pending)?;
        for &(start, len, first_key) in &self.pending_blocks {
            put_u64(&mut self.table.bytes, at + start as u64);
            put_u32(&mut self.table.bytes, len);
            put_u32(&mut self.table.bytes, first_key);
        }
        self.pending.clear();
        self.pending_blocks.clear();
        self.table.chunk_done()
    }

    /// Seals the last block and writes what is left; the table's `finish` then checks
    /// that the blocks filled it.
    fn finish(mut self) -> std::io::Result<()> {
        self.seal()?;
        self.flush()
    }
}

/// `raw`, records of `record` bytes, with their bytes in lanes: every record's first byte,
/// then every record's second byte, and so on.
fn shuffle(raw: &[u8], record: usize, out: &mut Vec<u8>) {
    let count = raw.len() / record;
    out.clear();
    out.resize(raw.len(), 0);
    for (i, bytes) in raw.chunks_exact(record).enumerate() {
        for (lane, &byte) in bytes.iter().enumerate() {
            out[lane * count + i] = byte;
        }
    }
}

/// The records [`shuffle`] put in lanes, back in their own bytes.
fn unshuffle(lanes: &[u8], record: usize) -> Box<[u8]> {
    let count = lanes.len() / record;
    let mut out = vec![0u8; lanes.len()];
    for (lane, bytes) in lanes.chunks_exact(count.max(1)).enumerate().take(record) {
        for (slot, &byte) in out[lane..].iter_mut().step_by(record).zip(bytes) {
            *slot = byte;
        }
    }
    out.into_boxed_slice()
}

/// The number of blocks that hold `count` records.
fn block_count(count: usize) -> usize {
    count.div_ceil(BLOCK_RECORDS)
}

/// The ids `0..count` ordered by `group` (ascending), then by `key` within a group, then by
/// id: a counting pass places each id in its group, and only the groups are sorted. (A
/// sort of one key per id held every key at once: 64 MB for `rustreg`'s references by
/// file, beside the other sections being written.)
fn ordered_by_group<K: Ord + Send>(
    count: usize,
    group: impl Fn(usize) -> usize + Sync,
    key: impl Fn(usize) -> K + Sync,
) -> Vec<u32> {
    let groups = (0..count).map(&group).max().map_or(0, |last| last + 1);
    // Groups far more than ids (a name id of `NONE` in a patch's copied rows): a table
    // per group would be mostly empty, so the ids are sorted whole.
    if groups > count.saturating_mul(2).saturating_add(1024) {
        let mut ordered: Vec<u32> = (0..count as u32).collect();
        ordered.par_sort_unstable_by_key(|&i| (group(i as usize), key(i as usize), i));
        return ordered;
    }
    // Where each group starts, then (as ids are placed) where its next id goes.
    let mut next = vec![0usize; groups + 1];
    for i in 0..count {
        next[group(i) + 1] += 1;
    }
    for g in 1..next.len() {
        next[g] += next[g - 1];
    }
    let mut ordered = vec![0u32; count];
    for i in 0..count {
        let at = &mut next[group(i)];
        ordered[*at] = i as u32;
        *at += 1;
    }
    // Each id's key made once (a key can take a lookup: rows made as they are written).
    ordered
        .par_chunk_by_mut(|&a, &b| group(a as usize) == group(b as usize))
        .filter(|ids| ids.len() > 1)
        .for_each(|ids| {
            let mut keyed: Vec<(K, u32)> = ids.iter().map(|&i| (key(i as usize), i)).collect();
            keyed.sort_unstable();
            for (slot, (_, i)) in ids.iter_mut().zip(keyed) {
                *slot = i;
            }
        });
    ordered
}

/// The length of a section before it is encoded: every section but the strings and the
/// texts holds records of one size (the symbols' after their layout), a table of blocks
/// (the blocked ones), or is the meta (`meta_len`, encoded first).
fn section_len(
    section: Section,
    data: &StoreData<'_>,
    layout: &SymbolLayout,
    meta_len: usize,
) -> u64 {
    let (count, record) = match section {
        // Written last, their length known only then.
        Section::Strings | Section::Texts => (0, 0),
        Section::Names => (data.names.len(), 8),
        Section::Files => (data.files.len(), FILE_RECORD),
        Section::Symbols => {
            return (symbols::LAYOUT_HEAD + data.symbols.len() * layout.record_len()) as u64;
        }
        Section::SymbolsByName => (data.symbols.len(), 4),
        Section::Refs => return blocked_len(data.refs.len()),
        Section::RefsByFile => return blocked_len(data.refs.len()),
        Section::RefFileStarts => (ref_file_starts_len(data), 4),
        Section::Meta => (meta_len, 1),
        Section::Overrides | Section::OverriddenBy => (data.overrides.len(), 8),
        Section::Implementations => (data.implementations.len(), IMPL_RECORD),
        Section::Remap => (data.remap.len(), 8),
    };
    (count * record) as u64
}

/// Entries of the ref_file_starts section: one per file id up to the largest that has
/// references, and one more.
fn ref_file_starts_len(data: &StoreData<'_>) -> usize {
    data.refs
        .iter()
        .map(|r| r.file)
        .max()
        .map_or(0, |last| last as usize + 2)
}

/// The length of a blocked section (its block table) of `count` records.
fn blocked_len(count: usize) -> u64 {
    (BLOCKED_HEAD + block_count(count) * BLOCK_ENTRY) as u64
}

/// Encodes one section into `out` (all but the strings, which accumulate across sections
/// in `strings`; the meta is given encoded).
fn encode_section(
    section: Section,
    data: &StoreData<'_>,
    layout: &SymbolLayout,
    strings: &mut StringsBuilder,
    meta: &[u8],
    out: &mut SectionOut<'_, '_>,
) -> std::io::Result<()> {
    match section {
        Section::Names => {
            for name in &data.names {
                let (o, l) = strings.add(name);
                put_u32(&mut out.bytes, o);
                put_u32(&mut out.bytes, l);
                out.chunk_done()?;
            }
        }
        Section::Files => {
            for f in &data.files {
                let bytes = &mut out.bytes;
                let (o, l) = strings.add(&f.path);
                put_u32(bytes, o);
                put_u32(bytes, l);
                bytes.push(lang_code(f.lang));
                bytes.push(u8::from(f.syntax_errors) | (u8::from(f.timed_out) << 1));
                bytes.extend_from_slice(&[0, 0]);
                put_u32(bytes, f.symbols.0);
                put_u32(bytes, f.symbols.1);
                // 0: no error, or a store written before the line was recorded.
                put_u32(bytes, f.first_syntax_error.unwrap_or(0));
                put_u64(bytes, f.size);
                put_u64(bytes, f.mtime_ns as u64);
                put_u64(bytes, f.hash);
                out.chunk_done()?;
            }
        }
        Section::Symbols => {
            out.bytes.extend_from_slice(&layout.head());
            match &data.symbols {
                SymbolRows::Made(rows) => {
                    for s in rows {
                        encode_symbol(s, layout, strings, out)?;
                    }
                }
                SymbolRows::PerFile(source) => {
                    for file in 0..source.file_count() {
                        let mut written = Ok(());
                        source.for_each_row(file, &mut |s| {
                            if written.is_ok() {
                                written = encode_symbol(s, layout, strings, out);
                            }
                        });
                        written?;
                    }
                }
            }
        }
        Section::SymbolsByName => {
            let by_name = match &data.symbols {
                SymbolRows::Made(symbols) => ordered_by_group(
                    symbols.len(),
                    |i| symbols[i].name as usize,
                    |i| (symbols[i].file, symbols[i].line, symbols[i].column),
                ),
                SymbolRows::PerFile(source) => ordered_by_group(
                    source.len(),
                    |i| source.name(i as u32) as usize,
                    |i| source.position(i as u32),
                ),
            };
            for id in by_name {
                put_u32(&mut out.bytes, id);
                out.chunk_done()?;
            }
        }
        Section::Refs => {
            let mut blocks = BlockedOut::new(out, data.refs.len(), REF_RECORD);
            for r in &data.refs {
                let bytes = blocks.bytes();
                for v in [r.name, r.file, r.line, r.column, r.target, r.enclosing] {
                    put_u32(bytes, v);
                }
                bytes.extend_from_slice(&[
                    ref_kind_code(r.kind),
                    u8::from(r.confidence == Confidence::Heuristic),
                    r.shape as u8,
                    0,
                ]);
                blocks.record_done()?;
            }
            blocks.finish()?;
        }
        Section::RefsByFile => {
            let refs = &data.refs;
            let by_file = ordered_by_group(
                refs.len(),
                |i| refs[i].file as usize,
                |i| (refs[i].line, refs[i].column),
            );
            let mut blocks = BlockedOut::new(out, by_file.len(), 4);
            for id in by_file {
                put_u32(blocks.bytes(), id);
                blocks.record_done()?;
            }
            blocks.finish()?;
        }
        Section::RefFileStarts => {
            let mut starts = vec![0u32; ref_file_starts_len(data)];
            for r in &data.refs {
                starts[r.file as usize + 1] += 1;
            }
            let mut total = 0;
            for start in starts {
                total += start;
                put_u32(&mut out.bytes, total);
                out.chunk_done()?;
            }
        }
        Section::Remap => {
            for &(old, new) in &data.remap {
                put_u32(&mut out.bytes, old);
                put_u32(&mut out.bytes, new);
                out.chunk_done()?;
            }
        }
        Section::Overrides | Section::OverriddenBy => {
            let mut pairs: Vec<(u32, u32)> = if section == Section::Overrides {
                data.overrides.clone()
            } else {
                data.overrides.iter().map(|&(a, b)| (b, a)).collect()
            };
            pairs.sort_unstable();
            for (a, b) in pairs {
                put_u32(&mut out.bytes, a);
                put_u32(&mut out.bytes, b);
                out.chunk_done()?;
            }
        }
        Section::Implementations => {
            let mut rows: Vec<&ImplRecord> = data.implementations.iter().collect();
            rows.sort_by_key(|r| r.key());
            for r in rows {
                let (o, l) = strings.add(&r.implementor_text);
                for v in [
                    r.supertype,
                    r.implementor.unwrap_or(NONE),
                    r.file,
                    r.container,
                    r.line,
                    r.column,
                    r.end_line,
                    o,
                    l,
                ] {
                    put_u32(&mut out.bytes, v);
                }
                out.bytes.extend_from_slice(&[r.kind.code(), 0, 0, 0]);
                out.chunk_done()?;
            }
        }
        Section::Meta => out.bytes.extend_from_slice(meta),
        // Written last, from the builder.
        Section::Strings | Section::Texts => {}
    }
    Ok(())
}

/// Appends one symbol record to `out`, its texts to `strings`.
fn encode_symbol(
    s: &SymbolRow<'_>,
    layout: &SymbolLayout,
    strings: &mut StringsBuilder,
    out: &mut SectionOut<'_, '_>,
) -> std::io::Result<()> {
    let texts = [
        strings.add_counted(&s.prefix),
        strings.texts.add(&s.signature, &s.doc)?,
    ];
    layout.encode(s, texts, &mut out.bytes)?;
    out.chunk_done()
}

/// The layout that fits every symbol row of `data`.
fn symbol_layout(data: &StoreData<'_>) -> SymbolLayout {
    let bounds = match &data.symbols {
        SymbolRows::Made(rows) => rows.iter().fold(SymbolBounds::default(), |mut b, row| {
            b.include(row);
            b
        }),
        SymbolRows::PerFile(source) => source.bounds(),
    };
    SymbolLayout::of(bounds)
}

/// Writes generation `generation` of the store into `dir` atomically and returns its path.
///
/// Every section but the strings and the texts has its length known before it is encoded (see
/// [`section_len`]), so each gets its place in the file up front and is written there as
/// it is encoded ([`SectionOut`]); the blocked sections' blocks ([`BlockedOut`]) and then
/// the strings and the texts, which the other sections add to, are appended after them. Those without
/// strings are encoded in parallel with the others (on rayon; the strings builder is
/// sequential). The header, its section table in section order, is written at the end.
pub(crate) fn write(dir: &Path, data: &StoreData<'_>, generation: u64) -> Result<PathBuf> {
    let path = dir.join(graph_file_name(generation));
    let tmp = tempfile::Builder::new()
        .prefix(".graph-")
        .suffix(".tmp")
        .tempfile_in(dir)
        .at(dir)?;
    let tmp_path = tmp.path().to_path_buf();
    let meta = serde_json::to_vec(&IndexMeta {
        generation: Some(generation),
        ..data.meta.clone()
    })
    .unwrap_or_default();
    let header_len = HEADER_BYTES + SECTION_ENTRY_BYTES * SECTIONS.len();
    let layout = symbol_layout(data);
    let mut table: Vec<(Section, u64, u64)> = Vec::with_capacity(SECTIONS.len());
    let mut end = header_len as u64;
    for &section in SECTIONS.iter().filter(|&&s| !s.written_last()) {
        let at = end.div_ceil(8) * 8;
        let len = section_len(section, data, &layout, meta.len());
        table.push((section, at, len));
        end = at + len;
    }
    let place = |section: Section| -> (u64, u64) {
        table
            .iter()
            .find(|(s, _, _)| *s == section)
            .map_or((end, 0), |&(_, at, len)| (at, len))
    };
    const PLAIN: [Section; 8] = [
        Section::Remap,
        Section::SymbolsByName,
        Section::Refs,
        Section::RefsByFile,
        Section::RefFileStarts,
        Section::Meta,
        Section::Overrides,
        Section::OverriddenBy,
    ];
    let output = std::sync::Mutex::new(Output {
        file: tmp.as_file(),
        tail: end,
    });
    let written_last = std::thread::scope(|scope| -> std::io::Result<[(Section, u64, u64); 2]> {
        let plain = scope.spawn(|| {
            PLAIN.par_iter().try_for_each(|&s| {
                let mut out = SectionOut::new(&output, place(s));
                let mut strings = StringsBuilder::default();
                encode_section(s, data, &layout, &mut strings, &meta, &mut out)?;
                out.finish()
            })
        });
        let mut strings = StringsBuilder::default();
        let mut written = Ok(());
        for &s in SECTIONS
            .iter()
            .filter(|s| !s.written_last() && !PLAIN.contains(s))
        {
            let mut out = SectionOut::new(&output, place(s));
            written = encode_section(s, data, &layout, &mut strings, &meta, &mut out)
                .and_then(|()| out.finish());
            if written.is_err() {
                break;
            }
        }
        // The strings and the texts go last, after every block of the plain sections too.
        let plain = plain
            .join()
            .unwrap_or_else(|_| Err(std::io::Error::other("a store section's writer panicked")));
        written?;
        plain?;
        let mut output = lock(&output);
        let strings_at = output.append_parts(strings.bytes.chunks())?;
        let (head, blocks) = strings.texts.finish();
        let texts_len = head.len() + blocks.iter().map(|b| b.len()).sum::<usize>();
        let texts_at =
            output.append_parts(std::iter::once(&head[..]).chain(blocks.iter().map(|b| &b[..])))?;
        Ok([
            (Section::Strings, strings_at, strings.bytes.len() as u64),
            (Section::Texts, texts_at, texts_len as u64),
        ])
    })
    .at(&tmp_path)?;
    table.extend(written_last);
    table.sort_unstable_by_key(|&(section, _, _)| section as u32);
    let mut header = Vec::with_capacity(header_len);
    header.extend_from_slice(MAGIC);
    put_u32(&mut header, FORMAT_VERSION);
    put_u32(&mut header, table.len() as u32);
    put_u64(&mut header, generation);
    for (section, at, len) in table {
        put_u32(&mut header, section as u32);
        put_u32(&mut header, 0);
        put_u64(&mut header, at);
        put_u64(&mut header, len);
    }
    lock(&output).write_at(0, &header).at(&tmp_path)?;
    tmp.as_file().sync_all().at(&tmp_path)?;
    tmp.persist(&path).map_err(|e| IndexError::Io {
        path: path.clone(),
        source: e.error,
    })?;
    Ok(path)
}

/// Writes generation `generation` as a patch over the full store of `base`: `data` holds
/// the records of the files in `patched` (their ids in the base, ascending) and the
/// records that mention them (see [`Store`]) with ids as they are now, the names the base
/// lacks (sorted; their ids follow the base's), the remap, and each symbol's `qualified`
/// holding only the prefix before its name.
pub(crate) fn write_patch(
    dir: &Path,
    mut data: StoreData<'_>,
    generation: u64,
    base: u64,
    patched: &[u32],
) -> Result<PathBuf> {
    data.meta.patch_of = Some(base);
    data.meta.patched_files = patched.to_vec();
    write(dir, &data, generation)
}

pub(crate) fn graph_file_name(generation: u64) -> String {
    format!("graph-{generation:010}.bin")
}

/// A decoded file record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo<'a> {
    pub path: &'a str,
    pub lang: Option<Lang>,
    pub size: u64,
    pub mtime_ns: i64,
    pub hash: u64,
    pub syntax_errors: bool,
    /// The line (1-based) where the file's first syntax error starts. `None` without
    /// errors, when the parser did not place the error, and in stores written before the
    /// line was recorded (where `Index::syntax_errors` parses the file again).
    pub first_syntax_error: Option<u32>,
    pub timed_out: bool,
    pub symbols: std::ops::Range<u32>,
}

/// A decoded symbol record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SymbolInfo<'a> {
    pub id: u32,
    pub name: &'a str,
    pub qualified_name: String,
    pub kind: SymbolKind,
    /// A member of a container (see [`SymbolRow::member`]).
    pub member: bool,
    pub file: u32,
    pub parent: Option<u32>,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    /// Its signature and doc, read when asked for ([`SymbolInfo::signature`],
    /// [`SymbolInfo::doc`]): they are in compressed blocks, and most symbols a query looks
    /// at are not shown.
    texts: SymbolTexts<'a>,
}

impl<'a> SymbolInfo<'a> {
    /// Its signature and doc, read together (one entry of the texts section).
    pub fn texts(&self) -> (&'a str, &'a str) {
        self.texts.texts()
    }

    pub fn signature(&self) -> &'a str {
        self.texts().0
    }

    pub fn doc(&self) -> &'a str {
        self.texts().1
    }
}

/// A symbol's signature and doc: their entry's id in the texts of the layer that has
/// them.
#[derive(Clone, Copy)]
struct SymbolTexts<'a> {
    layer: &'a Layer,
    id: u32,
}

impl<'a> SymbolTexts<'a> {
    fn texts(&self) -> (&'a str, &'a str) {
        self.layer.texts.texts(&self.layer.map, self.id)
    }
}

impl std::fmt::Debug for SymbolTexts<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (signature, doc) = self.texts();
        f.debug_struct("SymbolTexts")
            .field("signature", &signature)
            .field("doc", &doc)
            .finish()
    }
}

impl PartialEq for SymbolTexts<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.texts() == other.texts()
    }
}

impl Eq for SymbolTexts<'_> {}

/// A decoded reference record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RefInfo {
    pub id: u32,
    pub name: u32,
    pub file: u32,
    pub line: u32,
    pub column: u32,
    pub target: Option<u32>,
    pub enclosing: Option<u32>,
    pub kind: RefKind,
    pub confidence: Confidence,
    pub shape: RefShape,
}

/// One mapped store file: a whole generation, or the patch of one over its base.
struct Layer {
    path: PathBuf,
    map: Mmap,
    generation: u64,
    sections: HashMap<u32, std::ops::Range<usize>>,
    refs: Blocked,
    refs_by_file: Blocked,
    texts: texts::TextBlocks,
    symbols: SymbolLayout,
}

/// A blocked section as read (see the module docs): where its block table is, and each
/// block once decompressed.
struct Blocked {
    count: u32,
    record: usize,
    /// The block table's entries in the mapping.
    table: std::ops::Range<usize>,
    blocks: LazyBlocks,
}

/// A section's blocks, each decompressed on first use and kept (empty when damaged), in
/// groups of [`BLOCK_GROUP`] allocated as they are first needed: opening a store
/// allocates nothing per block (every query opens it).
struct LazyBlocks {
    groups: Box<[OnceLock<BlockGroup>]>,
}

type BlockGroup = Box<[OnceLock<Box<[u8]>>]>;

/// Blocks per group of [`LazyBlocks`].
const BLOCK_GROUP: usize = 256;

impl LazyBlocks {
    fn new(blocks: usize) -> LazyBlocks {
        LazyBlocks {
            groups: (0..blocks.div_ceil(BLOCK_GROUP))
                .map(|_| OnceLock::new())
                .collect(),
        }
    }

    /// Block `block`, decompressed by `decode` the first time; `None` past the blocks.
    fn get_or_init(&self, block: usize, decode: impl FnOnce() -> Box<[u8]>) -> Option<&[u8]> {
        let group = self.groups.get(block / BLOCK_GROUP)?.get_or_init(|| {
            (0..BLOCK_GROUP)
                .map(|_| OnceLock::new())
                .collect::<Vec<_>>()
                .into_boxed_slice()
        });
        Some(group.get(block % BLOCK_GROUP)?.get_or_init(decode))
    }
}

impl Blocked {
    /// The blocked section `section` of `map` holding records of `record` bytes; `None`
    /// when its table disagrees with itself.
    fn open(map: &[u8], section: std::ops::Range<usize>, record: usize) -> Option<Blocked> {
        let head = map.get(section.clone())?;
        let count = le_u32(head, 0);
        let blocks = block_count(count as usize);
        if head.len() != BLOCKED_HEAD + blocks * BLOCK_ENTRY || le_u32(head, 4) as usize != record {
            return None;
        }
        Some(Blocked {
            count,
            record,
            table: section.start + BLOCKED_HEAD..section.end,
            blocks: LazyBlocks::new(blocks),
        })
    }

    fn blocks(&self) -> u32 {
        block_count(self.count as usize) as u32
    }

    /// Block `block`'s table entry: its place in the file, its compressed length and its
    /// first record's first four bytes (see [`BLOCKED_HEAD`]).
    fn entry(&self, map: &[u8], block: usize) -> (u64, u32, u32) {
        let at = self.table.start + block * BLOCK_ENTRY;
        (le_u64(map, at), le_u32(map, at + 8), le_u32(map, at + 12))
    }

    /// The first four bytes of block `block`'s first record, as its table entry keeps them
    /// (a sorted section's key: the references' target name).
    fn first_key(&self, map: &[u8], block: u32) -> u32 {
        self.entry(map, block as usize).2
    }

    /// Record `index`'s bytes; `None` out of range or in a damaged block.
    fn record<'a>(&'a self, map: &[u8], index: u32) -> Option<&'a [u8]> {
        if index >= self.count {
            return None;
        }
        let block = index as usize / BLOCK_RECORDS;
        let bytes = self
            .blocks
            .get_or_init(block, || self.decode(map, block).unwrap_or_default())?;
        let at = index as usize % BLOCK_RECORDS * self.record;
        bytes.get(at..at + self.record)
    }

    /// Block `block` decompressed, its records' bytes back in place.
    fn decode(&self, map: &[u8], block: usize) -> Option<Box<[u8]>> {
        let (at, len, _) = self.entry(map, block);
        let at = usize::try_from(at).ok()?;
        let compressed = map.get(at..at.checked_add(len as usize)?)?;
        let records = (self.count as usize - block * BLOCK_RECORDS).min(BLOCK_RECORDS);
        let mut lanes = vec![0u8; records * self.record];
        match lz4_flex::block::decompress_into(compressed, &mut lanes) {
            Ok(n) if n == lanes.len() => Some(unshuffle(&lanes, self.record)),
            _ => None,
        }
    }
}

/// LZ4 expands at most 255 to 1: a block that claims more is damaged, not allocated.
pub(crate) const MAX_EXPANSION: usize = 255;

/// `compressed`, one LZ4 block, decompressed into exactly `size` bytes; `None` when it
/// claims more than LZ4 can expand it to or gives another length (damage). The store's
/// texts and the facts cache's blocks read through it.
pub(crate) fn decompress_exact(compressed: &[u8], size: usize) -> Option<Vec<u8>> {
    if size > compressed.len().saturating_mul(MAX_EXPANSION) {
        return None;
    }
    let mut out = vec![0u8; size];
    let written = lz4_flex::block::decompress_into(compressed, &mut out).ok()?;
    (written == size).then_some(out)
}

/// The little-endian u32 at `at`; `None` past the end.
pub(crate) fn u32_at(bytes: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(
        bytes.get(at..at.checked_add(4)?)?.try_into().ok()?,
    ))
}

/// The little-endian u64 at `at`; `None` past the end.
pub(crate) fn u64_at(bytes: &[u8], at: usize) -> Option<u64> {
    Some(u64::from_le_bytes(
        bytes.get(at..at.checked_add(8)?)?.try_into().ok()?,
    ))
}

/// Reads are total: out of range (only in a damaged file) reads as 0, never a panic.
fn le_u32(bytes: &[u8], at: usize) -> u32 {
    u32_at(bytes, at).unwrap_or(0)
}

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    u64_at(bytes, at).unwrap_or(0)
}

impl Layer {
    /// Maps and validates a store file. Every section bound is checked here, so record
    /// accessors cannot read outside the mapping.
    fn open(path: &Path) -> Result<Layer> {
        let file = File::open(path).at(path)?;
        let map = map_file(&file).at(path)?;
        let corrupt = |detail: &str| IndexError::Corrupt {
            path: path.to_path_buf(),
            detail: detail.to_owned(),
        };
        if map.len() < HEADER_BYTES || &map[..8] != MAGIC {
            return Err(corrupt("graph file has no valid header"));
        }
        let version = le_u32(&map, 8);
        if version != FORMAT_VERSION {
            return Err(IndexError::FormatMismatch {
                path: path.to_path_buf(),
                found: version.to_string(),
                expected: FORMAT_VERSION,
            });
        }
        let count = le_u32(&map, 12) as usize;
        let generation = le_u64(&map, 16);
        if count > 64 || HEADER_BYTES + count * SECTION_ENTRY_BYTES > map.len() {
            return Err(corrupt("section table out of range"));
        }
        let mut sections = HashMap::new();
        for i in 0..count {
            let at = HEADER_BYTES + i * SECTION_ENTRY_BYTES;
            let kind = le_u32(&map, at);
            let offset = le_u64(&map, at + 8) as usize;
            let len = le_u64(&map, at + 16) as usize;
            match offset.checked_add(len) {
                Some(end) if end <= map.len() => {
                    sections.insert(kind, offset..end);
                }
                _ => return Err(corrupt("section out of range")),
            }
        }
        let blocked = |section: Section, record: usize| {
            let range = sections.get(&(section as u32))?.clone();
            Blocked::open(&map, range, record)
        };
        let (Some(refs), Some(refs_by_file)) = (
            blocked(Section::Refs, REF_RECORD),
            blocked(Section::RefsByFile, 4),
        ) else {
            return Err(corrupt("a block table is missing or truncated"));
        };
        let Some(texts) = sections
            .get(&(Section::Texts as u32))
            .and_then(|range| texts::TextBlocks::open(&map, range.clone()))
        else {
            return Err(corrupt("the texts' block table is missing or truncated"));
        };
        let symbols_section = sections
            .get(&(Section::Symbols as u32))
            .and_then(|range| map.get(range.clone()))
            .unwrap_or_default();
        let Some(symbols) = SymbolLayout::read(symbols_section).filter(|l| {
            (symbols_section.len() - symbols::LAYOUT_HEAD).is_multiple_of(l.record_len())
        }) else {
            return Err(corrupt(
                "the symbols' layout is missing, or they are truncated",
            ));
        };
        let store = Layer {
            path: path.to_path_buf(),
            map,
            generation,
            sections,
            refs,
            refs_by_file,
            texts,
            symbols,
        };
        for (section, record) in [
            (Section::Names, 8),
            (Section::Files, FILE_RECORD),
            (Section::SymbolsByName, 4),
            (Section::RefFileStarts, 4),
            (Section::Overrides, 8),
            (Section::OverriddenBy, 8),
            (Section::Implementations, IMPL_RECORD),
            (Section::Remap, 8),
        ] {
            if !store.sections.contains_key(&(section as u32))
                || !store.section(section).len().is_multiple_of(record)
            {
                return Err(corrupt("a section is missing or truncated"));
            }
        }
        if store.section(Section::SymbolsByName).len() / 4 != store.symbol_count() as usize
            || store.refs_by_file.count != store.ref_count()
        {
            return Err(corrupt("index tables disagree in length"));
        }
        Ok(store)
    }

    fn section(&self, section: Section) -> &[u8] {
        match self.sections.get(&(section as u32)) {
            Some(range) => &self.map[range.clone()],
            None => &[],
        }
    }

    fn sizes(&self) -> FileSizes {
        let sections: Vec<(&'static str, u64)> = SECTIONS
            .iter()
            .map(|&s| (s.name(), self.section(s).len() as u64))
            .collect();
        let blocks = [&self.refs, &self.refs_by_file]
            .iter()
            .flat_map(|blocked| {
                (0..blocked.blocks() as usize).map(|b| u64::from(blocked.entry(&self.map, b).1))
            })
            .sum();
        FileSizes {
            path: self.path.clone(),
            bytes: self.map.len() as u64,
            sections,
            blocks,
        }
    }

    /// The counted text at `offset` of the strings (see [`StringsBuilder::add_counted`]);
    /// empty where it is damaged.
    fn counted_string(&self, offset: u32) -> &str {
        counted_text(self.section(Section::Strings), offset)
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    fn string(&self, offset: u32, len: u32) -> &str {
        let strings = self.section(Section::Strings);
        let start = offset as usize;
        strings
            .get(start..start.saturating_add(len as usize))
            .and_then(|b| std::str::from_utf8(b).ok())
            .unwrap_or("")
    }

    /// The build's record (defaults where the section is unreadable).
    pub fn meta(&self) -> IndexMeta {
        serde_json::from_slice(self.section(Section::Meta)).unwrap_or_default()
    }

    pub fn name_count(&self) -> u32 {
        (self.section(Section::Names).len() / 8) as u32
    }

    pub fn name(&self, id: u32) -> &str {
        let names = self.section(Section::Names);
        let at = id as usize * 8;
        if at + 8 > names.len() {
            return "";
        }
        self.string(le_u32(names, at), le_u32(names, at + 4))
    }

    /// The id of an exact name, by binary search.
    pub fn name_id(&self, name: &str) -> Option<u32> {
        let count = self.name_count();
        let index = partition_point(count, |i| self.name(i) < name);
        (index < count && self.name(index) == name).then_some(index)
    }

    /// Ids of the names starting with `prefix`, in sorted order.
    pub fn names_with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = u32> + 'a {
        let count = self.name_count();
        let first = partition_point(count, |i| self.name(i) < prefix);
        (first..count).take_while(move |&i| self.name(i).starts_with(prefix))
    }

    /// All names, in sorted order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        (0..self.name_count()).map(|i| self.name(i))
    }

    pub fn file_count(&self) -> u32 {
        (self.section(Section::Files).len() / FILE_RECORD) as u32
    }

    fn file(&self, id: u32, symbol_limit: u32) -> Option<FileInfo<'_>> {
        let files = self.section(Section::Files);
        let at = id as usize * FILE_RECORD;
        if at + FILE_RECORD > files.len() {
            return None;
        }
        Some(FileInfo {
            path: self.string(le_u32(files, at), le_u32(files, at + 4)),
            lang: lang_from_code(files[at + 8]),
            syntax_errors: files[at + 9] & 1 != 0,
            first_syntax_error: Some(le_u32(files, at + 20)).filter(|&line| line > 0),
            timed_out: files[at + 9] & 2 != 0,
            symbols: self.file_symbols(id, symbol_limit)?,
            size: le_u64(files, at + 24),
            mtime_ns: le_u64(files, at + 32) as i64,
            hash: le_u64(files, at + 40),
        })
    }

    /// File `id`'s symbol ids alone ([`Self::file`] without decoding its path).
    fn file_symbols(&self, id: u32, symbol_limit: u32) -> Option<std::ops::Range<u32>> {
        let files = self.section(Section::Files);
        let at = id as usize * FILE_RECORD;
        if at + FILE_RECORD > files.len() {
            return None;
        }
        let (start, end) = (le_u32(files, at + 12), le_u32(files, at + 16));
        Some(start..end.max(start).min(symbol_limit))
    }

    /// The id of the file at `path`, by binary search.
    pub fn file_id(&self, path: &str) -> Option<u32> {
        let count = self.file_count();
        let path_of = |i: u32| self.file(i, 0).map(|f| f.path);
        let index = partition_point(count, |i| path_of(i).is_some_and(|p| p < path));
        (index < count && path_of(index) == Some(path)).then_some(index)
    }

    pub fn symbol_count(&self) -> u32 {
        let records = self.section(Section::Symbols).len() - symbols::LAYOUT_HEAD;
        (records / self.symbols.record_len()) as u32
    }

    /// The bytes of symbol record `index`.
    fn symbol_record(&self, index: u32) -> Option<&[u8]> {
        let len = self.symbols.record_len();
        let at = symbols::LAYOUT_HEAD + index as usize * len;
        self.section(Section::Symbols).get(at..at + len)
    }

    /// The bytes of reference record `index`.
    fn ref_record(&self, index: u32) -> Option<&[u8]> {
        self.refs.record(&self.map, index)
    }

    /// Record `index` of this layer as symbol `id`, its name by `name_of`.
    fn symbol<'a>(
        &'a self,
        index: u32,
        id: u32,
        name_of: impl Fn(u32) -> &'a str,
    ) -> Option<SymbolInfo<'a>> {
        let record = self.symbol_record(index)?;
        let layout = &self.symbols;
        let name = name_of(layout.name(record));
        let [prefix, texts] = layout.texts(record);
        let prefix = self.counted_string(prefix);
        let [line, column, end_line, end_column] = layout.span(record);
        Some(SymbolInfo {
            id,
            name,
            qualified_name: format!("{prefix}{name}"),
            file: layout.file(record),
            parent: layout.parent(record),
            line,
            column,
            end_line,
            end_column,
            kind: layout.kind(record),
            member: layout.member(record),
            texts: SymbolTexts {
                layer: self,
                id: texts,
            },
        })
    }

    /// See [`Store::forget_read_pages`].
    #[allow(unsafe_code)]
    fn forget_read_pages(&self) {
        // SAFETY: a read-only shared mapping of a file no one writes (see `map_file`):
        // dropping its page table entries leaves every byte as it was, and a later read
        // maps the same bytes in again from the page cache, so borrows of the mapping
        // stay valid and unchanged. Advice that fails changes nothing.
        #[cfg(unix)]
        let _ = unsafe {
            self.map
                .unchecked_advise(memmap2::UncheckedAdvice::DontNeed)
        };
    }

    /// The signature and doc of symbol record `index` copied into `into` through `recent`
    /// (see [`Store::copy_symbol_texts`]); false where the record or a text is damaged.
    fn copy_symbol_texts(
        &self,
        index: u32,
        key: u64,
        recent: &mut texts::RecentBlocks,
        into: [&mut String; 2],
    ) -> bool {
        let Some(record) = self.symbol_record(index) else {
            return false;
        };
        let [_, texts] = self.symbols.texts(record);
        self.texts.copy_texts(&self.map, key, recent, texts, into)
    }

    /// The name id of symbol `id`; `u32::MAX` (no name) for an id out of range, which only
    /// a damaged file can hold.
    fn symbol_name_id(&self, id: u32) -> u32 {
        self.symbol_record(id)
            .map_or(NONE, |record| self.symbols.name(record))
    }

    /// The file of symbol record `id` (`u32::MAX` out of range).
    fn symbol_file(&self, id: u32) -> u32 {
        self.symbol_record(id)
            .map_or(NONE, |record| self.symbols.file(record))
    }

    /// The symbol records named `name_id`, ordered by file and line.
    fn symbols_with_name(&self, name_id: u32) -> Vec<u32> {
        let index = self.section(Section::SymbolsByName);
        let count = (index.len() / 4) as u32;
        let at = |i: u32| le_u32(index, i as usize * 4);
        let first = partition_point(count, |i| self.symbol_name_id(at(i)) < name_id);
        (first..count)
            .map(at)
            .take_while(|&s| self.symbol_name_id(s) == name_id)
            .collect()
    }

    pub fn ref_count(&self) -> u32 {
        self.refs.count
    }

    fn reference(&self, id: u32) -> Option<RefInfo> {
        let refs = self.ref_record(id)?;
        let u = |i: usize| le_u32(refs, i * 4);
        let (target, enclosing) = (u(4), u(5));
        Some(RefInfo {
            id,
            name: u(0),
            file: u(1),
            line: u(2),
            column: u(3),
            target: (target != NONE).then_some(target),
            enclosing: (enclosing != NONE).then_some(enclosing),
            kind: RefKind::ALL
                .get(refs[24] as usize)
                .copied()
                .unwrap_or(RefKind::Identifier),
            confidence: if refs[25] == 0 {
                Confidence::Resolved
            } else {
                Confidence::Heuristic
            },
            shape: match refs[26] {
                1 => RefShape::Member,
                2 => RefShape::Path,
                _ => RefShape::Bare,
            },
        })
    }

    /// References whose target name is `name_id`, ordered by file and position.
    pub fn refs_named(&self, name_id: u32) -> impl Iterator<Item = RefInfo> + '_ {
        let count = self.ref_count();
        let name_at = |i: u32| self.ref_record(i).map_or(0, |r| le_u32(r, 0));
        // The blocks' first names narrow the search to the block before the first one
        // that starts at or past the name, and that one: two blocks decompressed.
        let blocks = self.refs.blocks();
        let after = partition_point(blocks, |b| self.refs.first_key(&self.map, b) < name_id);
        let low = after.saturating_sub(1) * BLOCK_RECORDS as u32;
        let high = (after as usize * BLOCK_RECORDS).min(count as usize) as u32;
        let first = low + partition_point(high.saturating_sub(low), |i| name_at(low + i) < name_id);
        (first..count)
            .take_while(move |&i| name_at(i) == name_id)
            .filter_map(|i| self.reference(i))
    }

    /// Every pair of a pairs section, in order.
    fn pairs(&self, section: Section) -> Vec<(u32, u32)> {
        self.section(section)
            .chunks_exact(8)
            .map(|pair| (le_u32(pair, 0), le_u32(pair, 4)))
            .collect()
    }

    /// The second ids of the pairs in `section` whose first id is `first`.
    fn paired(&self, section: Section, first: u32) -> Vec<u32> {
        let pairs = self.section(section);
        let count = (pairs.len() / 8) as u32;
        let first_of = |i: u32| le_u32(pairs, i as usize * 8);
        let start = partition_point(count, |i| first_of(i) < first);
        (start..count)
            .take_while(|&i| first_of(i) == first)
            .map(|i| le_u32(pairs, i as usize * 8 + 4))
            .collect()
    }

    fn implementation(&self, index: u32) -> Option<ImplRecord> {
        let records = self.section(Section::Implementations);
        let at = index as usize * IMPL_RECORD;
        if at + IMPL_RECORD > records.len() {
            return None;
        }
        let u = |i: usize| le_u32(records, at + i * 4);
        let implementor = u(1);
        Some(ImplRecord {
            supertype: u(0),
            implementor: (implementor != NONE).then_some(implementor),
            implementor_text: self.string(u(7), u(8)).to_owned(),
            file: u(2),
            container: u(3),
            line: u(4),
            column: u(5),
            end_line: u(6),
            kind: ImplKind::ALL
                .into_iter()
                .find(|k| k.code() == records[at + 36])
                .unwrap_or(ImplKind::Impl),
        })
    }

    fn implementation_count(&self) -> u32 {
        (self.section(Section::Implementations).len() / IMPL_RECORD) as u32
    }

    /// The records whose supertype is `supertype`, ordered by file and line.
    fn implementations_of_type(&self, supertype: u32) -> impl Iterator<Item = ImplRecord> + '_ {
        let records = self.section(Section::Implementations);
        let supertype_of = |i: u32| le_u32(records, i as usize * IMPL_RECORD);
        let start = partition_point(self.implementation_count(), |i| supertype_of(i) < supertype);
        (start..self.implementation_count())
            .take_while(move |&i| supertype_of(i) == supertype)
            .filter_map(|i| self.implementation(i))
    }

    /// References in file `file`, ordered by position.
    pub fn refs_in_file(&self, file: u32) -> impl Iterator<Item = RefInfo> + '_ {
        let count = self.refs_by_file.count;
        let starts = self.section(Section::RefFileStarts);
        let start = |f: u32| le_u32(starts, f as usize * 4);
        // A file past the table has no references; a range out of order or past the
        // index (only in a damaged file) reads as none.
        let range = match file.checked_add(1) {
            Some(next) if (next as usize) < starts.len() / 4 => start(file)..start(next),
            _ => 0..0,
        };
        let range = if range.start <= range.end && range.end <= count {
            range
        } else {
            0..0
        };
        range
            .filter_map(move |i| self.refs_by_file.record(&self.map, i))
            .filter_map(move |id| self.reference(le_u32(id, 0)))
    }
}

/// A file whose records a patch replaces.
#[derive(Debug, Clone)]
struct Patched {
    /// Its id, the same in the base and the patch.
    file: u32,
    /// Its record in the patch's files section.
    record: u32,
    /// Its symbols' ids now: the base's when the patches kept its definitions, a range
    /// past the base's ids (see [`Store`]) when they changed.
    symbols: std::ops::Range<u32>,
    /// Where its symbols start in the patch's symbols section.
    first_symbol_record: u32,
}

/// A read-only, memory-mapped generation of the store.
///
/// A generation is one store file, or a patch over a base generation. The patch holds
/// new records for some files (same paths and file ids) and every record that mentions
/// one of them or one of their symbols (overrides, implementations), except references
/// from other files; the base holds everything else. Lookups answer from the patch for
/// patched files and from the base for the rest, so callers see one generation either
/// way.
///
/// A patched file whose definitions changed gets a fresh range of symbol ids past the
/// base's; the patch's remap section says which of its base ids live on under which new
/// id, and which are gone. Base records of other files (their references, mostly) are
/// translated through it as they are read, so ids of untouched symbols never change and
/// no untouched file is rewritten.
pub struct Store {
    top: Layer,
    base: Option<Layer>,
    /// Sorted by file id and so by record.
    patched: Vec<Patched>,
    /// Indices into `patched` of the files with symbols, sorted by their symbol ranges.
    by_symbol: Vec<usize>,
    /// `(base id, id now or NONE)`, sorted.
    remap: Vec<(u32, u32)>,
    /// Names of the base; a patch's own names get the ids after them.
    base_names: u32,
    /// One past the largest symbol id.
    symbol_end: u32,
    live_symbols: u32,
    /// Text blocks decompressed by [`Store::copy_symbol_texts`].
    recent_texts: std::sync::Mutex<texts::RecentBlocks>,
}

impl Store {
    /// Maps and validates a generation file (and its base, for a patch).
    pub fn open(path: &Path) -> Result<Store> {
        let top = Layer::open(path)?;
        let meta = top.meta();
        let Some(base_generation) = meta.patch_of else {
            let count = top.symbol_count();
            return Ok(Store {
                base_names: top.name_count(),
                top,
                base: None,
                patched: Vec::new(),
                by_symbol: Vec::new(),
                remap: Vec::new(),
                symbol_end: count,
                live_symbols: count,
                recent_texts: Default::default(),
            });
        };
        let corrupt = |detail: &str| IndexError::Corrupt {
            path: path.to_path_buf(),
            detail: detail.to_owned(),
        };
        let dir = path.parent().unwrap_or(Path::new("."));
        let base = Layer::open(&dir.join(graph_file_name(base_generation)))?;
        if base.meta().patch_of.is_some() {
            return Err(corrupt("a patch's base is itself a patch"));
        }
        let ids = meta.patched_files;
        if ids.is_empty() {
            return Err(corrupt("a patch without its file list"));
        }
        if ids.len() != top.file_count() as usize || !ids.is_sorted_by(|a, b| a < b) {
            return Err(corrupt("a patch's file list disagrees with its records"));
        }
        let base_count = base.symbol_count();
        let remap = top.pairs(Section::Remap);
        if !remap.is_sorted_by(|a, b| a.0 < b.0) || remap.iter().any(|&(old, _)| old >= base_count)
        {
            return Err(corrupt("a patch's remap is out of order"));
        }
        let mut patched = Vec::with_capacity(ids.len());
        let mut first_symbol_record = 0;
        let removed = remap.len() as u32;
        let mut added = 0u32;
        for (record, &file) in ids.iter().enumerate() {
            let (Some(new), Some(old)) = (
                top.file(record as u32, u32::MAX),
                base.file(file, base_count),
            ) else {
                return Err(corrupt("a patched file is missing"));
            };
            // A file keeps its base ids, or takes fresh ones and remaps all of its old ones
            // (an empty range starts where the next file's does: only its own record
            // tells).
            let remapped = if old.symbols.is_empty() {
                new.symbols != old.symbols
            } else {
                remap
                    .binary_search_by_key(&old.symbols.start, |p| p.0)
                    .is_ok()
            };
            let fits = if remapped {
                new.symbols.start >= base_count && new.symbols.start <= new.symbols.end
            } else {
                new.symbols == old.symbols
            };
            if new.path != old.path || !fits {
                return Err(corrupt("a patched file does not match its base"));
            }
            if remapped {
                added += new.symbols.len() as u32;
            }
            patched.push(Patched {
                file,
                record: record as u32,
                symbols: new.symbols.clone(),
                first_symbol_record,
            });
            first_symbol_record += new.symbols.len() as u32;
        }
        if first_symbol_record != top.symbol_count() {
            return Err(corrupt("a patch's symbols disagree with its files"));
        }
        // A file left with no symbols owns no id: its empty range, carried from an
        // earlier patch over the same base, may start inside another file's fresh range,
        // and would break the order lookups rely on.
        let mut by_symbol: Vec<usize> = (0..patched.len())
            .filter(|&i| !patched[i].symbols.is_empty())
            .collect();
        by_symbol.sort_by_key(|&i| patched[i].symbols.start);
        let overlap = by_symbol
            .windows(2)
            .any(|w| patched[w[0]].symbols.end > patched[w[1]].symbols.start);
        if overlap {
            return Err(corrupt("a patch's symbol ranges overlap"));
        }
        let symbol_end = by_symbol
            .last()
            .map_or(base_count, |&i| patched[i].symbols.end.max(base_count));
        Ok(Store {
            base_names: base.name_count(),
            top,
            base: Some(base),
            patched,
            by_symbol,
            remap,
            symbol_end,
            live_symbols: (base_count + added).saturating_sub(removed),
            recent_texts: Default::default(),
        })
    }

    /// How the generation's store files divide: the patch's, then its base's.
    pub fn sizes(&self) -> Vec<FileSizes> {
        std::iter::once(&self.top)
            .chain(&self.base)
            .map(Layer::sizes)
            .collect()
    }

    /// The layer holding every unpatched record.
    fn whole(&self) -> &Layer {
        self.base.as_ref().unwrap_or(&self.top)
    }

    fn patch_of_file(&self, file: u32) -> Option<&Patched> {
        // A full store patches nothing.
        self.base.as_ref()?;
        let i = self.patched.partition_point(|p| p.file < file);
        self.patched.get(i).filter(|p| p.file == file)
    }

    /// The patched file whose symbols (ids now) include `id`.
    fn patch_of_symbol(&self, id: u32) -> Option<&Patched> {
        let i = self
            .by_symbol
            .partition_point(|&p| self.patched[p].symbols.end <= id);
        let p = &self.patched[*self.by_symbol.get(i)?];
        p.symbols.contains(&id).then_some(p)
    }

    /// Whether symbol id `id` of the base belongs to a file this generation patches.
    fn base_symbol_patched(&self, id: u32) -> bool {
        self.base.is_some() && self.patch_of_file(self.whole().symbol_file(id)).is_some()
    }

    /// The id now of an id a base record holds: itself, its new id when a patch moved its
    /// file's symbols, `None` when the patch removed it. Ids already current pass
    /// through unchanged (no remapped base id is ever an id now).
    pub(crate) fn current(&self, id: u32) -> Option<u32> {
        match self.remap.binary_search_by_key(&id, |p| p.0) {
            Ok(i) => Some(self.remap[i].1).filter(|&new| new != NONE),
            Err(_) => Some(id),
        }
    }

    /// The id of `name` among the base's names (a patch's own names are not).
    pub(crate) fn base_name_id(&self, name: &str) -> Option<u32> {
        self.whole().name_id(name)
    }

    pub(crate) fn base_name_count(&self) -> u32 {
        self.base_names
    }

    /// File `file`'s symbol ids in the base.
    pub(crate) fn base_symbols(&self, file: u32) -> std::ops::Range<u32> {
        let whole = self.whole();
        whole
            .file(file, whole.symbol_count())
            .map_or(0..0, |f| f.symbols)
    }

    /// The patch's remap, `(base id, id now or NONE)` sorted (empty for a full store).
    pub(crate) fn remap(&self) -> &[(u32, u32)] {
        &self.remap
    }

    /// Ids of the files this generation's patch replaces (empty when it is not a patch).
    pub(crate) fn patched_files(&self) -> Vec<u32> {
        self.patched.iter().map(|p| p.file).collect()
    }

    /// The names this generation's patch adds to its base's, sorted (their ids follow
    /// the base's); empty for a full store.
    pub(crate) fn patch_names(&self) -> Vec<Cow<'static, str>> {
        match &self.base {
            Some(_) => self.top.names().map(|n| Cow::Owned(n.to_owned())).collect(),
            None => Vec::new(),
        }
    }

    /// The generation whose full store this one builds on (itself when not a patch).
    pub fn base_generation(&self) -> u64 {
        self.whole().generation
    }

    pub fn generation(&self) -> u64 {
        self.top.generation
    }

    pub fn path(&self) -> &Path {
        &self.top.path
    }

    pub fn meta(&self) -> IndexMeta {
        self.top.meta()
    }

    /// The layer holding a patch's own names (`None` for a full store).
    fn added_names(&self) -> Option<&Layer> {
        self.base.as_ref().map(|_| &self.top)
    }

    pub fn name_count(&self) -> u32 {
        self.base_names + self.added_names().map_or(0, Layer::name_count)
    }

    pub fn name(&self, id: u32) -> &str {
        match (id.checked_sub(self.base_names), self.added_names()) {
            (Some(local), Some(added)) => added.name(local),
            _ => self.whole().name(id),
        }
    }

    /// The id of an exact name, by binary search.
    pub fn name_id(&self, name: &str) -> Option<u32> {
        self.whole().name_id(name).or_else(|| {
            let local = self.added_names()?.name_id(name)?;
            Some(self.base_names + local)
        })
    }

    /// Ids of the names starting with `prefix`, in sorted order.
    pub fn names_with_prefix<'a>(&'a self, prefix: &'a str) -> impl Iterator<Item = u32> + 'a {
        let base = self.whole().names_with_prefix(prefix);
        let added = self
            .added_names()
            .into_iter()
            .flat_map(move |layer| layer.names_with_prefix(prefix))
            .map(move |local| self.base_names + local);
        merge_sorted(base, added, move |&id| self.name(id))
    }

    /// All names, in sorted order.
    pub fn names(&self) -> impl Iterator<Item = &str> {
        let added = self.added_names().map_or(0, Layer::name_count);
        merge_sorted(
            0..self.base_names,
            (0..added).map(|local| self.base_names + local),
            |&id| self.name(id),
        )
        .map(|id| self.name(id))
    }

    pub fn file_count(&self) -> u32 {
        self.whole().file_count()
    }

    pub fn file(&self, id: u32) -> Option<FileInfo<'_>> {
        match self.patch_of_file(id) {
            Some(p) => self.top.file(p.record, self.symbol_end),
            None => self.whole().file(id, self.whole().symbol_count()),
        }
    }

    /// File `id`'s symbol ids now: [`Self::file`]'s `symbols` without reading the rest of
    /// its record (a patch asks this of every file).
    pub fn file_symbols(&self, id: u32) -> Option<std::ops::Range<u32>> {
        match self.patch_of_file(id) {
            Some(p) => self.top.file_symbols(p.record, self.symbol_end),
            None => self.whole().file_symbols(id, self.whole().symbol_count()),
        }
    }

    /// The id of the file at `path`, by binary search.
    pub fn file_id(&self, path: &str) -> Option<u32> {
        self.whole().file_id(path)
    }

    /// How many symbols this generation has.
    pub fn symbol_count(&self) -> u32 {
        self.live_symbols
    }

    /// One past the largest symbol id (ids below it that a patch removed read as `None`).
    pub fn symbol_id_end(&self) -> u32 {
        self.symbol_end
    }

    pub fn symbol(&self, id: u32) -> Option<SymbolInfo<'_>> {
        let (layer, record) = self.symbol_place(id)?;
        layer.symbol(record, id, |name| self.name(name))
    }

    /// The signature and doc of symbol `id` ([`Self::symbol`]'s, without the rest)
    /// copied into `signature` and `doc`: what a resolution from cached facts gives their
    /// rows (the facts cache keeps none). It reads every symbol's in file order, so the
    /// blocks it decompresses are kept only while they are recent, and dropped by
    /// [`Self::forget_read_pages`]. False for an id with no symbol or damaged texts.
    pub(crate) fn copy_symbol_texts(
        &self,
        id: u32,
        signature: &mut String,
        doc: &mut String,
    ) -> bool {
        let Some((layer, record)) = self.symbol_place(id) else {
            return false;
        };
        // The two layers' blocks told apart in the cache.
        let key = u64::from(std::ptr::eq(layer, &self.top));
        let mut recent = self.recent_texts.lock().unwrap_or_else(|e| e.into_inner());
        layer.copy_symbol_texts(record, key, &mut recent, [signature, doc])
    }

    /// The layer that holds symbol `id` and its record there; `None` for a base id a
    /// patch moved.
    fn symbol_place(&self, id: u32) -> Option<(&Layer, u32)> {
        match self.patch_of_symbol(id) {
            Some(p) => Some((&self.top, p.first_symbol_record + (id - p.symbols.start))),
            None if self.remapped_away(id) => None,
            None => Some((self.whole(), id)),
        }
    }

    /// Lets the OS take back the pages of this store's files that reads mapped in, and
    /// drops the text blocks [`Self::copy_symbol_texts`] keeps: a whole resolution from
    /// cached facts reads every symbol's texts here (on `rustreg` the symbols' 38 MB and
    /// the texts' 14 MB, 34 MB decompressed), whose pages would otherwise count in the
    /// process's resident memory until it ends. Pages read again are mapped in again
    /// from the page cache.
    pub(crate) fn forget_read_pages(&self) {
        self.recent_texts
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        self.top.forget_read_pages();
        if let Some(base) = &self.base {
            base.forget_read_pages();
        }
    }

    /// A base id of a file whose symbols a patch moved (never an id now).
    fn remapped_away(&self, id: u32) -> bool {
        self.remap.binary_search_by_key(&id, |p| p.0).is_ok()
    }

    /// The name id of symbol `id` (`u32::MAX` when there is none).
    pub(crate) fn symbol_name(&self, id: u32) -> u32 {
        self.symbol_place(id)
            .map_or(NONE, |(layer, record)| layer.symbol_name_id(record))
    }

    /// Ids of the symbols named exactly `name`, ordered by file and line.
    pub fn symbols_named(&self, name: &str) -> Vec<u32> {
        let Some(name_id) = self.name_id(name) else {
            return Vec::new();
        };
        let Some(base) = &self.base else {
            return self.top.symbols_with_name(name_id);
        };
        let mut out: Vec<u32> = base
            .symbols_with_name(name_id)
            .into_iter()
            .filter(|&id| !self.base_symbol_patched(id))
            .collect();
        let patched = self.top.symbols_with_name(name_id);
        if patched.is_empty() {
            return out;
        }
        for record in patched {
            let i = self
                .patched
                .partition_point(|p| p.first_symbol_record <= record)
                .saturating_sub(1);
            if let Some(p) = self.patched.get(i) {
                out.push(p.symbols.start + (record - p.first_symbol_record));
            }
        }
        out.sort_by_key(|&id| self.symbol(id).map(|s| (s.file, s.line, s.column)));
        out
    }

    /// Counted on demand (it walks the patched files' base references), not on open:
    /// every query opens the store.
    pub fn ref_count(&self) -> u32 {
        let Some(base) = &self.base else {
            return self.top.ref_count();
        };
        let replaced: u32 = self
            .patched
            .iter()
            .map(|p| base.refs_in_file(p.file).count() as u32)
            .sum();
        base.ref_count().saturating_sub(replaced) + self.top.ref_count()
    }

    /// A base reference with its ids as they are now (a removed target reads as none).
    fn current_ref(&self, mut r: RefInfo) -> RefInfo {
        if !self.remap.is_empty() {
            r.target = r.target.and_then(|t| self.current(t));
            r.enclosing = r.enclosing.and_then(|e| self.current(e));
        }
        r
    }

    /// References whose target name is `name_id`, ordered by file and position.
    pub fn refs_named(&self, name_id: u32) -> Box<dyn Iterator<Item = RefInfo> + '_> {
        let Some(base) = &self.base else {
            return Box::new(self.top.refs_named(name_id));
        };
        let kept = base
            .refs_named(name_id)
            .filter(|r| self.patch_of_file(r.file).is_none())
            .map(|r| self.current_ref(r));
        let mut kept = kept.peekable();
        let mut patched = self.top.refs_named(name_id).peekable();
        let position = |r: &RefInfo| (r.file, r.line, r.column);
        Box::new(std::iter::from_fn(move || {
            match (kept.peek(), patched.peek()) {
                (Some(a), Some(b)) if position(a) <= position(b) => kept.next(),
                (Some(_), Some(_)) | (None, _) => patched.next(),
                (Some(_), None) => kept.next(),
            }
        }))
    }

    /// The second ids of the pairs in `section` whose first id is `first`: the patch's
    /// for a patched symbol, else the base's whose other side is not patched, and the
    /// patch's.
    fn paired(&self, section: Section, first: u32) -> Vec<u32> {
        let Some(base) = &self.base else {
            return self.top.paired(section, first);
        };
        let mut out = self.top.paired(section, first);
        if self.patch_of_symbol(first).is_none() && !self.remapped_away(first) {
            out.extend(
                base.paired(section, first)
                    .into_iter()
                    .filter(|&other| !self.base_symbol_patched(other)),
            );
        }
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The trait, interface or base-class members symbol `id` implements or overrides.
    pub fn overridden_by(&self, id: u32) -> Vec<u32> {
        self.paired(Section::Overrides, id)
    }

    /// The members that implement or override symbol `id` (a trait's, an interface's or a
    /// base class's member).
    pub fn implementations_of(&self, id: u32) -> Vec<u32> {
        self.paired(Section::OverriddenBy, id)
    }

    /// Whether a base implementation record is the base's to answer: its file, its
    /// supertype and its implementor are all unpatched.
    fn base_answers(&self, r: &ImplRecord) -> bool {
        self.patch_of_file(r.file).is_none()
            && !self.base_symbol_patched(r.supertype)
            && r.implementor.is_none_or(|i| !self.base_symbol_patched(i))
    }

    /// The declared implementations of type `supertype` (a trait, interface or class):
    /// `impl`s, blanket impls, subclasses, subtraits. Ordered by file and line.
    pub fn implementors(&self, supertype: u32) -> Vec<ImplRecord> {
        let Some(base) = &self.base else {
            return self.top.implementations_of_type(supertype).collect();
        };
        let mut out: Vec<ImplRecord> = self.top.implementations_of_type(supertype).collect();
        if self.patch_of_symbol(supertype).is_none() && !self.remapped_away(supertype) {
            out.extend(
                base.implementations_of_type(supertype)
                    .filter(|r| self.base_answers(r)),
            );
        }
        out.sort_by_key(|r| (r.file, r.line, r.column, r.container));
        out
    }

    /// Every implementation record, the patch's replacing the base's for patched files,
    /// ordered by (supertype, file, line).
    pub fn all_implementations(&self) -> Vec<ImplRecord> {
        let whole = self.whole();
        let mut out: Vec<ImplRecord> = (0..whole.implementation_count())
            .filter_map(|i| whole.implementation(i))
            .filter(|r| self.base.is_none() || self.base_answers(r))
            .collect();
        if self.base.is_some() {
            out.extend(
                (0..self.top.implementation_count()).filter_map(|i| self.top.implementation(i)),
            );
            out.sort_by_key(|r| (r.supertype, r.file, r.line, r.column, r.container));
        }
        out
    }

    /// References in file `file`, ordered by position.
    pub fn refs_in_file(&self, file: u32) -> Box<dyn Iterator<Item = RefInfo> + '_> {
        match self.patch_of_file(file) {
            Some(_) => Box::new(self.top.refs_in_file(file)),
            None => Box::new(self.whole().refs_in_file(file).map(|r| self.current_ref(r))),
        }
    }
}

/// Two ascending sequences of ids merged by `key`.
fn merge_sorted<'a, K: Ord + 'a>(
    a: impl Iterator<Item = u32> + 'a,
    b: impl Iterator<Item = u32> + 'a,
    key: impl Fn(&u32) -> K + 'a,
) -> impl Iterator<Item = u32> + 'a {
    let (mut a, mut b) = (a.peekable(), b.peekable());
    std::iter::from_fn(move || match (a.peek(), b.peek()) {
        (Some(x), Some(y)) if key(x) <= key(y) => a.next(),
        (Some(_), Some(_)) | (None, _) => b.next(),
        (Some(_), None) => a.next(),
    })
}

/// The first index in `0..count` where `is_before` is false (it must be monotone).
fn partition_point(count: u32, is_before: impl Fn(u32) -> bool) -> u32 {
    let (mut low, mut high) = (0u32, count);
    while low < high {
        let mid = low + (high - low) / 2;
        if is_before(mid) {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

#[allow(unsafe_code)]
pub(crate) fn map_file(file: &File) -> std::io::Result<Mmap> {
    // SAFETY: store files are written once under a temporary name and renamed into place;
    // mcursor never writes to a published generation, and removal of an old generation
    // keeps an existing mapping valid on the platforms we support. Every access through the
    // mapping is bounds-checked against section ranges validated in `Store::open`.
    unsafe { Mmap::map(file) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_ordered_by_group_come_as_one_sort_of_every_key_would_give() {
        // Groups and keys with ties, out of order, a group with no ids and one id alone.
        let groups = [3usize, 0, 3, 1, 0, 3, 5, 1, 0, 3];
        let keys = [
            (2u32, 1u32),
            (1, 1),
            (0, 9),
            (4, 4),
            (1, 1),
            (2, 0),
            (7, 7),
            (0, 0),
            (0, 5),
            (2, 1),
        ];
        let ordered = ordered_by_group(groups.len(), |i| groups[i], |i| keys[i]);
        let mut expected: Vec<u32> = (0..groups.len() as u32).collect();
        expected.sort_by_key(|&i| (groups[i as usize], keys[i as usize], i));
        assert_eq!(ordered, expected);
        assert_eq!(ordered_by_group(0, |i| i, |i| i), Vec::<u32>::new());
        // Sparse groups (one far past the others) come out the same way.
        let sparse = [7usize, u32::MAX as usize, 7, 0];
        assert_eq!(
            ordered_by_group(sparse.len(), |i| sparse[i], |i| 3 - i),
            [3, 2, 0, 1]
        );
    }

    #[test]
    fn strings_are_stored_once_and_two_texts_with_one_hash_both_kept() {
        let mut strings = StringsBuilder::default();
        let prefix = strings.add("net::");
        assert_eq!(strings.add("fn a()"), (5, 6));
        assert_eq!(strings.add("net::"), prefix);
        // Another text under the first one's hash is stored apart, not given its place.
        let other = strings.add_hashed("zzzzz", xxhash_rust::xxh3::xxh3_64(b"net::"));
        assert_eq!(other, (11, 5));
        assert!(strings.bytes.holds_at(11, b"zzzzz"));
        assert_eq!(strings.add("net::"), prefix);
    }

    #[test]
    fn texts_across_a_chunk_boundary_are_found_again_and_written_whole() {
        let mut strings = StringsBuilder::default();
        let filler = "f".repeat(STRINGS_CHUNK - 3);
        assert_eq!(strings.add(&filler), (0, filler.len() as u32));
        // Starts three bytes before the first chunk ends.
        let across = strings.add("crosses::");
        assert_eq!(across, (STRINGS_CHUNK as u32 - 3, 9));
        assert_eq!(strings.add("crosses::"), across);
        // A counted text whose length and bytes straddle the second chunk's end.
        strings.add(&"g".repeat(STRINGS_CHUNK - 7));
        let long = "h".repeat(300);
        let counted = strings.add_counted(&long);
        assert_eq!(counted as usize, 2 * STRINGS_CHUNK - 1);
        assert_eq!(strings.add_counted(&long), counted);
        assert_ne!(strings.add_counted(&"h".repeat(299)), counted);
        assert!(!strings.bytes.holds_at(strings.bytes.len() - 2, b"hhh"));
        let all: Vec<u8> = strings.bytes.chunks().flatten().copied().collect();
        assert_eq!(all.len(), strings.bytes.len());
        assert_eq!(&all[across.0 as usize..][..9], b"crosses::");
        assert_eq!(counted_text(&all, counted), Some(long.as_bytes()));
    }

    #[test]
    fn counted_texts_are_stored_once_and_read_back_whatever_their_length() {
        let mut strings = StringsBuilder::default();
        assert_eq!(strings.add_counted(""), NONE);
        let long = "x".repeat(300);
        let short = strings.add_counted("fn a()");
        let at = strings.add_counted(&long);
        assert_eq!(strings.add_counted("fn a()"), short);
        assert_eq!(strings.add_counted(&long), at);
        // A plain text and a counted one with the same words are stored apart.
        let (plain, _) = strings.add("fn a()");
        assert_ne!(plain, short);
        let other = strings.add_counted_hashed("zz", xxhash_rust::xxh3::xxh3_64(b"fn a()"));
        assert_ne!(other, short);
        for (offset, text) in [
            (short, "fn a()"),
            (at, &long[..]),
            (other, "zz"),
            (NONE, ""),
        ] {
            let all: Vec<u8> = strings.bytes.chunks().flatten().copied().collect();
            assert_eq!(counted_text(&all, offset), Some(text.as_bytes()));
        }
        // A length that runs past the bytes, or never ends, reads as nothing.
        assert_eq!(counted_text(&[5, b'a'], 0), None);
        assert_eq!(counted_text(&[0xFF; 8], 0), None);
    }

    /// Rows held per file, given as a whole resolution's [`RowSource`] gives them.
    struct RowsByFile(Vec<Vec<SymbolRow<'static>>>);

    impl RowsByFile {
        fn row(&self, id: u32) -> &SymbolRow<'static> {
            self.0
                .iter()
                .flatten()
                .nth(id as usize)
                .expect("an id in range")
        }
    }

    impl RowSource for RowsByFile {
        fn len(&self) -> usize {
            self.0.iter().map(Vec::len).sum()
        }

        fn file_count(&self) -> u32 {
            self.0.len() as u32
        }

        fn for_each_row(&self, file: u32, each: &mut dyn FnMut(&SymbolRow<'_>)) {
            self.0[file as usize].iter().for_each(each);
        }

        fn name(&self, id: u32) -> u32 {
            self.row(id).name
        }

        fn bounds(&self) -> SymbolBounds {
            let mut bounds = SymbolBounds::default();
            self.0.iter().flatten().for_each(|row| bounds.include(row));
            bounds
        }

        fn position(&self, id: u32) -> (u32, u32, u32) {
            let row = self.row(id);
            (row.file, row.line, row.column)
        }
    }

    #[test]
    fn rows_made_as_they_are_written_give_the_store_that_made_rows_give() {
        // Three files, the middle one empty; names shared across files and within one,
        // out of line order; prefixes and docs shared and not.
        let row = |name: u32, file: u32, line: u32, prefix: &str, doc: &str| SymbolRow {
            name,
            file,
            parent: NONE,
            line,
            column: line * 2,
            end_line: line + 1,
            end_column: 1,
            kind: SymbolKind::Function,
            member: false,
            prefix: prefix.into(),
            signature: format!("fn f{line}()").into(),
            doc: doc.to_owned().into(),
        };
        let by_file = vec![
            vec![
                row(1, 0, 9, "a::", "Doc."),
                row(1, 0, 3, "a::", ""),
                row(0, 0, 5, "a::b::", "Doc."),
            ],
            vec![],
            vec![row(1, 2, 1, "c::", ""), row(0, 2, 2, "c::", "Other.")],
        ];
        let file = |path: &str, symbols: (u32, u32)| FileRow {
            path: path.into(),
            lang: Some(Lang::Rust),
            size: 1,
            mtime_ns: 1,
            hash: 1,
            syntax_errors: false,
            first_syntax_error: None,
            timed_out: false,
            symbols,
        };
        let data = |symbols: SymbolRows<'static>| StoreData {
            names: vec!["alpha".into(), "beta".into()],
            files: vec![
                file("a.rs", (0, 3)),
                file("b.rs", (3, 3)),
                file("c.rs", (3, 5)),
            ],
            symbols,
            refs: Vec::new(),
            overrides: Vec::new(),
            implementations: Vec::new(),
            remap: Vec::new(),
            meta: IndexMeta::default(),
        };
        let (made_dir, per_file_dir) = (
            tempfile::tempdir().expect("tempdir"),
            tempfile::tempdir().expect("tempdir"),
        );
        let made = write(made_dir.path(), &data(by_file.concat().into()), 1).expect("made");
        let per_file = SymbolRows::PerFile(Box::new(RowsByFile(by_file)));
        let per_file = write(per_file_dir.path(), &data(per_file), 1).expect("per file");
        assert_eq!(
            std::fs::read(&made).expect("read"),
            std::fs::read(&per_file).expect("read")
        );
        let store = Store::open(&per_file).expect("open");
        assert_eq!(store.symbols_named("beta"), [1, 0, 3]);
        let doc = |id| {
            store
                .symbol(id)
                .map(|s| (s.qualified_name.clone(), s.doc().to_owned()))
        };
        assert_eq!(doc(2), Some(("a::b::alpha".to_owned(), "Doc.".to_owned())));
        assert_eq!(doc(4), Some(("c::alpha".to_owned(), "Other.".to_owned())));
    }

    #[test]
    fn the_build_record_reads_what_earlier_builds_wrote() {
        // A meta section as the JSON-valued builds wrote it, with a key this build does
        // not know.
        let old = br#"{"root":"/r","files":3,"parsed":{"rust":2},"skipped":{"binary":1},
            "source_bytes":10,"max_file_size":1048576,"extraction":"x","built_unix_ms":5,
            "walked_unix_ns":7,"root_mtime_ns":null,"generation":4,"patch_of":2,
            "patched_files":[0,2],"someday":true}"#;
        let meta: IndexMeta = serde_json::from_slice(old).expect("old meta reads");
        assert_eq!(meta.files, 3);
        assert_eq!(meta.parsed.get("rust"), Some(&2));
        assert_eq!(meta.max_file_size, Some(1_048_576));
        assert_eq!(meta.walked_unix_ns, 7);
        assert_eq!((meta.generation, meta.patch_of), (Some(4), Some(2)));
        assert_eq!(meta.patched_files, vec![0, 2]);
        // Written back, a full build's record has no patch keys; the keys are the old ones.
        let full = IndexMeta {
            patch_of: None,
            patched_files: Vec::new(),
            ..meta
        };
        let written = serde_json::to_string(&full).expect("writes");
        assert!(!written.contains("patch"), "{written}");
        assert!(written.contains("\"walked_unix_ns\":7"), "{written}");
        // An empty or damaged section reads as defaults.
        assert_eq!(
            serde_json::from_slice::<IndexMeta>(b"{}").ok(),
            Some(IndexMeta::default())
        );
    }

    fn sample() -> StoreData<'static> {
        StoreData {
            names: vec!["alpha".into(), "beta".into()],
            files: vec![FileRow {
                path: "src/lib.rs".into(),
                lang: Some(Lang::Rust),
                size: 10,
                mtime_ns: 5,
                hash: 7,
                syntax_errors: false,
                first_syntax_error: None,
                timed_out: true,
                symbols: (0, 2),
            }],
            symbols: vec![
                SymbolRow {
                    name: 1,
                    file: 0,
                    parent: NONE,
                    line: 1,
                    column: 4,
                    end_line: 3,
                    end_column: 2,
                    kind: SymbolKind::Function,
                    member: false,
                    prefix: "".into(),
                    signature: "fn beta()".into(),
                    doc: "".into(),
                },
                SymbolRow {
                    name: 0,
                    file: 0,
                    parent: 0,
                    line: 2,
                    column: 8,
                    end_line: 2,
                    end_column: 20,
                    kind: SymbolKind::Struct,
                    member: false,
                    prefix: "beta::".into(),
                    signature: "struct alpha".into(),
                    doc: "Docs.".into(),
                },
            ]
            .into(),
            refs: vec![RefRow {
                name: 1,
                file: 0,
                line: 2,
                column: 3,
                target: 0,
                enclosing: NONE,
                kind: RefKind::Call,
                confidence: Confidence::Resolved,
                shape: RefShape::Bare,
            }],
            overrides: vec![(1, 0)],
            implementations: vec![ImplRecord {
                supertype: 0,
                implementor: Some(1),
                implementor_text: "alpha".into(),
                file: 0,
                container: 0,
                line: 2,
                column: 1,
                end_line: 3,
                kind: ImplKind::Blanket,
            }],
            remap: Vec::new(),
            meta: IndexMeta {
                files: 1,
                ..IndexMeta::default()
            },
        }
    }

    #[test]
    fn a_patch_moves_a_files_symbols_and_other_files_follow_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        // The base: lib.rs defines `beta` and `alpha`; main.rs calls `beta`; a.rs and
        // main.rs define nothing (a.rs's empty range starts where lib.rs's does).
        let mut base = sample();
        let SymbolRows::Made(rows) = &mut base.symbols else {
            unreachable!("the sample's rows are made")
        };
        rows.iter_mut().for_each(|s| s.file = 1);
        let first_row = rows[0].clone();
        base.refs[0].file = 1;
        base.implementations[0].file = 1;
        let lib = base.files[0].clone();
        let empty = |path: &str, at: u32| FileRow {
            path: path.into(),
            symbols: (at, at),
            ..lib.clone()
        };
        base.files.insert(0, empty("src/a.rs", 0));
        base.files.push(empty("src/main.rs", 2));
        base.refs.push(RefRow {
            file: 2,
            line: 9,
            ..base.refs[0]
        });
        write(dir.path(), &base, 1).expect("base");
        // The patch: lib.rs now defines `gamma` then `beta` (fresh ids 2 and 3); `alpha` is
        // gone; `gamma` is a name the base lacks.
        let row = |name: u32, line: u32| SymbolRow {
            name,
            line,
            prefix: "".into(),
            ..first_row.clone()
        };
        let patch = StoreData {
            names: vec!["gamma".into()],
            // a.rs is patched too and keeps its (empty) range.
            files: vec![
                base.files[0].clone(),
                FileRow {
                    symbols: (2, 4),
                    ..base.files[1].clone()
                },
            ],
            symbols: vec![row(2, 1), row(1, 5)].into(),
            refs: vec![RefRow {
                name: 2,
                target: 2,
                ..base.refs[0]
            }],
            overrides: Vec::new(),
            implementations: Vec::new(),
            remap: vec![(0, 3), (1, NONE)],
            meta: IndexMeta::default(),
        };
        let path = write_patch(dir.path(), patch, 2, 1, &[0, 1]).expect("patch");
        let store = Store::open(&path).expect("open");
        assert_eq!((store.symbol_count(), store.symbol_id_end()), (2, 4));
        assert!(store.symbol(0).is_none() && store.symbol(1).is_none());
        assert_eq!(store.symbol(2).map(|s| s.name), Some("gamma"));
        assert_eq!(store.symbol(3).map(|s| (s.name, s.line)), Some(("beta", 5)));
        assert_eq!(store.name_id("gamma"), Some(2));
        assert_eq!(
            store.names().collect::<Vec<_>>(),
            vec!["alpha", "beta", "gamma"]
        );
        assert_eq!(store.names_with_prefix("g").collect::<Vec<_>>(), vec![2]);
        assert_eq!(store.symbols_named("beta"), vec![3]);
        assert!(store.symbols_named("alpha").is_empty());
        // main.rs's call follows `beta` to its new id; lib.rs's references are the patch's.
        let main: Vec<Option<u32>> = store.refs_in_file(2).map(|r| r.target).collect();
        assert_eq!(main, vec![Some(3)]);
        let named: Vec<(u32, Option<u32>)> =
            store.refs_named(1).map(|r| (r.file, r.target)).collect();
        assert_eq!(named, vec![(2, Some(3))]);
        assert_eq!(store.file(0).map(|f| f.symbols), Some(0..0));
        assert_eq!(
            store.refs_named(2).map(|r| r.target).collect::<Vec<_>>(),
            vec![Some(2)]
        );
        // The base's pair and implementation record name lib.rs's old symbols: gone.
        assert!(store.overridden_by(3).is_empty() && store.all_implementations().is_empty());
        assert_eq!(store.current(0), Some(3));
        assert_eq!(store.current(1), None);
        // A file's ids alone, patched or not, are those of its whole record.
        for file in 0..=store.file_count() {
            assert_eq!(
                store.file_symbols(file),
                store.file(file).map(|f| f.symbols),
                "file {file}"
            );
        }
    }

    #[test]
    fn round_trips_through_the_file() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = write(dir.path(), &sample(), 3).expect("write");
        let store = Store::open(&path).expect("open");
        assert_eq!(store.generation(), 3);
        assert_eq!(store.symbols_named("alpha"), [1]);
        assert_eq!(store.symbols_named("beta"), [0]);
        assert!(store.symbols_named("gamma").is_empty());
        let alpha = store.symbol(1).expect("symbol");
        assert_eq!(alpha.qualified_name, "beta::alpha");
        assert_eq!(alpha.parent, Some(0));
        assert_eq!(alpha.doc(), "Docs.");
        let file = store.file(0).expect("file");
        assert_eq!(file.path, "src/lib.rs");
        assert!(file.timed_out && !file.syntax_errors);
        assert_eq!(store.file_id("src/lib.rs"), Some(0));
        let refs: Vec<_> = store.refs_named(1).collect();
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].target, Some(0));
        assert_eq!(store.refs_in_file(0).count(), 1);
        assert_eq!(store.meta().generation, Some(3));
        assert_eq!(store.meta().files, 1);
        let implementations = store.implementors(0);
        assert_eq!(implementations.len(), 1);
        assert_eq!(implementations[0].implementor, Some(1));
        assert_eq!(implementations[0].implementor_text, "alpha");
        assert_eq!(implementations[0].kind, ImplKind::Blanket);
        assert_eq!(implementations[0].end_line, 3);
        assert!(store.implementors(1).is_empty());
    }

    /// `sample()` with `symbols` symbols and `refs` references in one file, every field
    /// of each record telling which record it is.
    fn many_records(symbols: u32, refs: u32) -> StoreData<'static> {
        let mut data = sample();
        data.names = (0..symbols).map(|i| format!("name{i:05}").into()).collect();
        data.files[0].symbols = (0, symbols);
        data.symbols = (0..symbols)
            .map(|i| SymbolRow {
                name: i,
                file: 0,
                parent: i.checked_sub(1).unwrap_or(NONE),
                line: i * 3,
                column: i % 7,
                end_line: i * 3 + 2,
                end_column: i % 11,
                kind: SymbolKind::ALL[i as usize % SymbolKind::ALL.len()],
                member: i % 2 == 1,
                prefix: format!("m{}::", i % 5).into(),
                signature: format!("fn name{i:05}()").into(),
                doc: if i % 3 == 0 {
                    "".into()
                } else {
                    format!("Doc {i}.").into()
                },
            })
            .collect::<Vec<_>>()
            .into();
        data.refs = (0..refs)
            .map(|i| RefRow {
                name: i * symbols / refs,
                file: 0,
                line: 100_000 + i,
                column: i % 13,
                target: if i % 4 == 0 { NONE } else { i % symbols },
                enclosing: i % symbols,
                kind: RefKind::ALL[i as usize % RefKind::ALL.len()],
                confidence: if i % 5 == 0 {
                    Confidence::Heuristic
                } else {
                    Confidence::Resolved
                },
                shape: [RefShape::Bare, RefShape::Member, RefShape::Path][i as usize % 3],
            })
            .collect();
        data.overrides.clear();
        data.implementations.clear();
        data
    }

    #[test]
    fn records_in_many_blocks_read_back_each_as_written() {
        let dir = tempfile::tempdir().expect("tempdir");
        // Block boundaries inside and at the end: 3 blocks and a part, then exactly 5.
        let (symbol_count, ref_count) = (BLOCK_RECORDS as u32 * 3 + 5, BLOCK_RECORDS as u32 * 5);
        let data = many_records(symbol_count, ref_count);
        let path = write(dir.path(), &data, 2).expect("write");
        let store = Store::open(&path).expect("open");
        assert_eq!(store.symbol_count(), symbol_count);
        assert_eq!(store.ref_count(), ref_count);
        let rows = data.symbols.made().expect("made rows");
        for (id, row) in rows.iter().enumerate() {
            let s = store.symbol(id as u32).expect("symbol");
            assert_eq!(store.symbol_name(id as u32), row.name);
            assert_eq!(
                s.qualified_name,
                format!("{}{}", row.prefix, data.names[id])
            );
            assert_eq!(s.parent, Some(row.parent).filter(|&p| p != NONE));
            assert_eq!((s.line, s.column), (row.line, row.column));
            assert_eq!((s.end_line, s.end_column), (row.end_line, row.end_column));
            assert_eq!((s.kind, s.member), (row.kind, row.member));
            assert_eq!((s.signature(), s.doc()), (&*row.signature, &*row.doc));
        }
        assert!(store.symbol(symbol_count).is_none());
        let read: Vec<RefRow> = store
            .refs_in_file(0)
            .map(|r| RefRow {
                name: r.name,
                file: r.file,
                line: r.line,
                column: r.column,
                target: r.target.unwrap_or(NONE),
                enclosing: r.enclosing.unwrap_or(NONE),
                kind: r.kind,
                confidence: r.confidence,
                shape: r.shape,
            })
            .collect();
        assert_eq!(read, data.refs);
        assert_eq!(store.symbols_named("name00100"), [100]);
        let sizes = store.sizes();
        assert_eq!(sizes.len(), 1);
        let listed: u64 = sizes[0].sections.iter().map(|(_, bytes)| bytes).sum();
        assert!(sizes[0].blocks > 0 && listed + sizes[0].blocks <= sizes[0].bytes);
        let symbols = sizes[0]
            .sections
            .iter()
            .find(|(name, _)| *name == "symbols");
        assert_eq!(
            symbols,
            Some(&(
                "symbols",
                (symbols::LAYOUT_HEAD + symbol_count as usize * store.top.symbols.record_len())
                    as u64
            ))
        );
        // Runs of one name inside a block, across blocks, and names with none.
        for (symbols, refs) in [(symbol_count, ref_count), (3, ref_count + 7)] {
            let data = many_records(symbols, refs);
            let path = write(dir.path(), &data, 3).expect("write");
            let store = Store::open(&path).expect("open");
            for name in 0..=symbols {
                let named: Vec<u32> = store.refs_named(name).map(|r| r.line).collect();
                let expected: Vec<u32> = data
                    .refs
                    .iter()
                    .filter(|r| r.name == name)
                    .map(|r| r.line)
                    .collect();
                assert_eq!(named, expected, "name {name} of {symbols}");
            }
        }
    }

    #[test]
    fn a_damaged_block_loses_its_own_references_only() {
        let dir = tempfile::tempdir().expect("tempdir");
        let blocks = BLOCK_RECORDS as u32;
        let data = many_records(10, blocks * 3);
        let path = write(dir.path(), &data, 2).expect("write");
        let layer = Layer::open(&path).expect("open");
        // The second block of references, from its table entry.
        let (at, len, _) = layer.refs.entry(&layer.map, 1);
        let at = at as usize;
        drop(layer);
        let mut bytes = std::fs::read(&path).expect("read");
        for byte in &mut bytes[at..at + len as usize] {
            *byte = 0xFF;
        }
        std::fs::write(&path, &bytes).expect("write");
        let store = Store::open(&path).expect("open");
        assert!(store.top.reference(blocks - 1).is_some());
        assert!((blocks..blocks * 2).all(|id| store.top.reference(id).is_none()));
        assert!(store.top.reference(blocks * 2).is_some());
        assert_eq!(store.refs_in_file(0).count() as u32, blocks * 2);
    }

    #[test]
    fn shuffled_records_come_back_unshuffled() {
        let raw: Vec<u8> = (0..=255u8).cycle().take(28 * 37).collect();
        let mut lanes = Vec::new();
        shuffle(&raw, 28, &mut lanes);
        assert_ne!(lanes, raw);
        assert_eq!(&*unshuffle(&lanes, 28), &raw[..]);
    }

    #[test]
    fn damaged_tables_do_not_panic_lookups() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = write(dir.path(), &sample(), 1).expect("write");
        let clean = std::fs::read(&path).expect("read");
        // Flip every byte after the header, one at a time: opening either fails cleanly
        // or every lookup answers without panicking.
        for at in HEADER_BYTES..clean.len() {
            let mut bytes = clean.clone();
            bytes[at] ^= 0xFF;
            std::fs::write(&path, &bytes).expect("write");
            if let Ok(store) = Store::open(&path) {
                let _ = store.symbols_named("alpha");
                let _ = store.symbols_named("beta");
                let _ = store.refs_named(1).count();
                let _ = store.refs_in_file(0).count();
                let _ = store.file_id("src/lib.rs");
                for id in 0..3 {
                    let _ = store.symbol(id);
                    let _ = store.top.reference(id);
                    let _ = store.file(id);
                }
                let _ = store.meta();
                let _ = store.names().count();
                let _ = store.implementors(0);
                let _ = store.all_implementations();
            }
        }
    }

    #[test]
    fn truncated_or_foreign_files_are_reported_not_read() {
        let dir = tempfile::tempdir().expect("tempdir");
        let path = write(dir.path(), &sample(), 1).expect("write");
        let bytes = std::fs::read(&path).expect("read");
        for cut in [0, 7, 30, bytes.len() / 2, bytes.len() - 1] {
            std::fs::write(&path, &bytes[..cut]).expect("write");
            assert!(Store::open(&path).is_err(), "cut at {cut}");
        }
        let mut other = bytes.clone();
        other[8] = 99;
        std::fs::write(&path, &other).expect("write");
        assert!(matches!(
            Store::open(&path),
            Err(IndexError::FormatMismatch { .. })
        ));
    }
}
