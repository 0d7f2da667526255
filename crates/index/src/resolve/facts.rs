//! One parsed file's facts in the compact form the resolver keeps for every file of the
//! tree at once (and the facts cache stores): strings interned per file, definitions and
//! references as plain integers, types and value chains deduplicated per file.

use std::borrow::Cow;
use std::collections::BTreeSet;
use std::sync::Arc;

use rustc_hash::FxHashMap as HashMap;
use rustc_hash::FxHashSet as HashSet;

use mcursor_syntax::{Import, ImportTarget, Position, RefKind, SymbolKind, TypeRef, ValueChain};

use super::written::{ChainAt, EndsAsLengths, TypeAt, Written, WrittenBuilder, ends_of_lengths};
use crate::store::{NONE, SymbolRow};

/// The first paragraph of a doc comment, at most 400 characters: enough to say what a
/// symbol is; the full text is one `read_file` away.
fn doc_summary(doc: String) -> String {
    let paragraph = doc.split("\n\n").next().unwrap_or("").trim();
    match paragraph.char_indices().nth(400) {
        Some((cut, _)) => format!("{}…", &paragraph[..cut]),
        None => paragraph.to_owned(),
    }
}

/// Names asked about in every file of a tree (what an interface edit changed): a string
/// is looked up only when its length is one of theirs, which most strings' is not (the
/// scan hashed every string of every file; on `rustreg`'s interface edits it went from
/// 68 to 49 ms, median).
pub(crate) struct NameSet<'a> {
    names: HashSet<&'a str>,
    /// Bit `n`: some name is `n` bytes long (a length past 127 is always looked up).
    lengths: u128,
    /// Each name's hash, for the files' [`MentionFilter`]s.
    hashes: Vec<u64>,
}

impl<'a> NameSet<'a> {
    pub fn new(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: HashSet<&str> = names.into_iter().collect();
        let lengths = names
            .iter()
            .filter(|n| n.len() < 128)
            .fold(0u128, |bits, n| bits | 1 << n.len());
        let hashes = names.iter().map(|n| MentionFilter::hash(n)).collect();
        NameSet {
            names,
            lengths,
            hashes,
        }
    }

    pub fn contains(&self, name: &str) -> bool {
        (name.len() >= 128 || self.lengths >> name.len() & 1 == 1) && self.names.contains(name)
    }
}

/// The names a file mentions ([`CompactFacts::mentions`]) as a Bloom filter: about 10
/// bits a name and 3 probes (about 1% false positives). Made once for facts that are
/// held between updates (a watcher's), so that the scan of every file for an edit's
/// changed names reads a few words of most files instead of every name they hold.
pub(crate) struct MentionFilter {
    /// A power of two of bits.
    words: Vec<u64>,
}

impl MentionFilter {
    const BITS_PER_NAME: usize = 10;
    const PROBES: u64 = 3;

    fn hash(name: &str) -> u64 {
        xxhash_rust::xxh3::xxh3_64(name.as_bytes())
    }

    fn new(facts: &CompactFacts) -> Self {
        let mut hashes = Vec::new();
        facts.for_each_mentioned(&mut |name| hashes.push(Self::hash(name)));
        let bits = (hashes.len() * Self::BITS_PER_NAME)
            .next_power_of_two()
            .max(64);
        let mut filter = MentionFilter {
            words: vec![0; bits / 64],
        };
        for hash in hashes {
            for bit in filter.probes(hash) {
                filter.words[(bit / 64) as usize] |= 1 << (bit % 64);
            }
        }
        filter
    }

    /// The bits of a name's hash: double hashing from its two halves.
    fn probes(&self, hash: u64) -> impl Iterator<Item = u64> + use<> {
        let mask = (self.words.len() as u64 * 64) - 1;
        let (first, step) = (hash & 0xffff_ffff, (hash >> 32) | 1);
        (0..Self::PROBES).map(move |i| first.wrapping_add(i.wrapping_mul(step)) & mask)
    }

    fn may_contain(&self, hash: u64) -> bool {
        self.probes(hash)
            .all(|bit| self.words[(bit / 64) as usize] >> (bit % 64) & 1 == 1)
    }
}

/// A file's [`MentionFilter`] once made. Derived from the facts, so no part of what they
/// print: facts print alike whether or not their filter was made (tests compare facts
/// held by a watcher with facts read from the cache by their printed form).
#[derive(Default)]
struct MentionFilterOnce(std::sync::OnceLock<MentionFilter>);

impl std::fmt::Debug for MentionFilterOnce {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MentionFilterOnce")
    }
}

/// A reference as extracted, with file-local string ids (stored in [`RefColumns`]).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LocalRef {
    pub name: u32,
    pub qualifier: u32,
    pub receiver: bool,
    pub kind: RefKind,
    pub line: u32,
    pub column: u32,
    pub enclosing: u32,
    /// Index into [`CompactFacts::chains`] of the receiver's value chain, or `NONE`.
    pub chain: u32,
}

/// A definition as kept until resolution: integers into its file's tables, no
/// allocations of its own. Stored in [`DefColumns`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Def {
    pub name: u32,
    pub kind: SymbolKind,
    /// Index into [`CompactFacts::module_paths`].
    pub modules: u32,
    /// String id, or `NONE`.
    pub container: u32,
    /// Index into [`CompactFacts::containers`], or `NONE`.
    pub container_id: u32,
    pub parent: u32,
    pub line: u32,
    pub column: u32,
    pub end_line: u32,
    pub end_column: u32,
    pub default_export: bool,
    /// A type of [`CompactFacts::written`] (declared or return type), or `NONE`.
    pub type_ref: u32,
    /// A chain of [`CompactFacts::written`] (initial value), or `NONE`.
    pub value: u32,
    /// Where [`CompactFacts::type_lists`] lists the types of its positional fields and
    /// declared parameters (two counts, then the fields' type ids, then the
    /// parameters'), or `NONE` when it has neither.
    lists: u32,
    /// Where its signature starts in the file's texts, or `NONE` when it has neither a
    /// signature nor a doc (see [`PackedTexts`]).
    text: u32,
}

/// An id that is often `NONE` as the facts cache stores it: plus one, so that `NONE` is
/// 0, one byte as a varint where `u32::MAX` takes five. Every value round-trips (the
/// arithmetic wraps), so damage reads as some id, never a failure.
pub(super) fn stored_id(id: u32) -> u32 {
    id.wrapping_add(1)
}

/// An id [`stored_id`] stored, as it was.
pub(super) fn read_id(stored: u32) -> u32 {
    stored.wrapping_sub(1)
}

/// A file's [`Def`]s as the facts cache stores them: one column per field, so that a
/// field's values sit together where LZ4 finds their repeats, and the fields that grow
/// from one definition to the next (names and ids interned in source order, lines, text
/// offsets) as steps. On `rustreg` the definitions took 21.2 MB of the cache compressed
/// as rows (each file's alone), 8.8 MB as columns (throwaway counts; `facts.bin` fell
/// from 86.6 to 74.0 MB); every Rust definition has no initial value chain and 93% no
/// type lists, and two thirds have no container and no parent, so those columns are
/// mostly zeros. Read back, they decode as fast as the rows did (59–60 ms for every
/// definition of `rustreg` on one thread, LZ4 included, against 58–59 ms).
///
/// Each column is its values as LEB128 varints ([`crate::store::varint`]) in one byte
/// string: written as [`VarintColumn`]s ([`DefColumns::of`]), read back as slices of
/// the decompressed entry, side by side ([`DefColumns::definitions`]). Every value
/// round-trips (the steps wrap), so damage reads as some id, never a failure; columns
/// of different lengths, or a varint cut short, are refused.
#[derive(Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct DefColumns<C> {
    /// [`Steps::of`].
    name: C,
    /// Its place in [`SymbolKind::ALL`].
    kind: C,
    modules: C,
    /// [`Steps::of_optional`], as the other ids that are often `NONE`.
    container: C,
    container_id: C,
    /// 0 for none, else one more than the zigzag distance back to the parent.
    parent: C,
    line: C,
    column: C,
    /// From the start line (wrapping).
    end_line_step: C,
    end_column: C,
    default_export: C,
    type_ref: C,
    value: C,
    lists: C,
    text: C,
}

/// One column of [`DefColumns`] as it is written: varints back to back, stored as one
/// byte string (which reads back as a `&[u8]`).
#[derive(Default)]
pub(crate) struct VarintColumn(Vec<u8>);

impl VarintColumn {
    fn push(&mut self, value: u64) {
        self.0.extend_from_slice(&crate::store::varint(value));
    }
}

impl serde::Serialize for VarintColumn {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.0)
    }
}

/// The previous value of a column stored as steps.
#[derive(Default, Clone, Copy)]
struct Steps {
    previous: u32,
}

impl Steps {
    /// `value` as the zigzag step from the previous one.
    fn of(&mut self, value: u32) -> u64 {
        let step = value.wrapping_sub(self.previous) as i32;
        self.previous = value;
        u64::from(((step << 1) ^ (step >> 31)) as u32)
    }

    /// The value [`Steps::of`] stored as `stored`.
    fn value(&mut self, stored: u64) -> u32 {
        let zigzag = stored as u32;
        let step = (zigzag >> 1) ^ (zigzag & 1).wrapping_neg();
        self.previous = self.previous.wrapping_add(step);
        self.previous
    }

    /// `value`, an id or `NONE`: 0 for `NONE`, else one more than [`Steps::of`] from the
    /// previous one that was not `NONE`.
    fn of_optional(&mut self, value: u32) -> u64 {
        if value == NONE { 0 } else { self.of(value) + 1 }
    }

    /// The value [`Steps::of_optional`] stored as `stored`.
    fn optional_value(&mut self, stored: u64) -> u32 {
        match stored.checked_sub(1) {
            None => NONE,
            Some(step) => self.value(step),
        }
    }
}

impl DefColumns<VarintColumn> {
    fn of(definitions: &[Def]) -> Self {
        let mut columns = Self::default();
        let [mut name, mut line, mut container, mut container_id] = [Steps::default(); 4];
        let [mut type_ref, mut value, mut lists, mut text] = [Steps::default(); 4];
        for (index, d) in definitions.iter().enumerate() {
            let kind = SymbolKind::ALL.iter().position(|&k| k == d.kind);
            columns.name.push(name.of(d.name));
            columns.kind.push(kind.unwrap_or(0) as u64);
            columns.modules.push(d.modules.into());
            columns.container.push(container.of_optional(d.container));
            columns
                .container_id
                .push(container_id.of_optional(d.container_id));
            // The distance back, from this definition as if it were the previous parent.
            let mut back = Steps {
                previous: index as u32,
            };
            columns.parent.push(back.of_optional(d.parent));
            columns.line.push(line.of(d.line));
            columns.column.push(d.column.into());
            columns
                .end_line_step
                .push(d.end_line.wrapping_sub(d.line).into());
            columns.end_column.push(d.end_column.into());
            columns.default_export.push(d.default_export.into());
            columns.type_ref.push(type_ref.of_optional(d.type_ref));
            columns.value.push(value.of_optional(d.value));
            columns.lists.push(lists.of_optional(d.lists));
            columns.text.push(text.of_optional(d.text));
        }
        columns
    }
}

/// The varints of a column, read in order.
struct Varints<'a>(&'a [u8]);

impl Varints<'_> {
    /// The next value; `None` past the end or where the last one is cut short.
    fn next(&mut self) -> Option<u64> {
        let (value, end) = crate::store::varint_at(|i| self.0.get(i).copied(), 0)?;
        self.0 = &self.0[end..];
        Some(value as u64)
    }
}

impl DefColumns<&[u8]> {
    /// The definitions, a row at a time from every column; `None` when the columns
    /// differ in length or a varint is cut short.
    fn definitions(&self) -> Option<Vec<Def>> {
        let count = self.name.iter().filter(|&&byte| byte & 0x80 == 0).count();
        let mut columns = [
            self.name,
            self.kind,
            self.modules,
            self.container,
            self.container_id,
            self.parent,
            self.line,
            self.column,
            self.end_line_step,
            self.end_column,
            self.default_export,
            self.type_ref,
            self.value,
            self.lists,
            self.text,
        ]
        .map(Varints);
        let [
            c_name,
            c_kind,
            c_modules,
            c_container,
            c_container_id,
            c_parent,
            c_line,
            c_column,
            c_end_line_step,
            c_end_column,
            c_default_export,
            c_type_ref,
            c_value,
            c_lists,
            c_text,
        ] = &mut columns;
        let [mut name, mut line, mut container, mut container_id] = [Steps::default(); 4];
        let [mut type_ref, mut value, mut lists, mut text] = [Steps::default(); 4];
        let mut definitions = Vec::with_capacity(count);
        for index in 0..count {
            // The distance back, from this definition as if it were the previous parent.
            let mut parent = Steps {
                previous: index as u32,
            };
            let start = line.value(c_line.next()?);
            definitions.push(Def {
                name: name.value(c_name.next()?),
                kind: SymbolKind::ALL
                    .get(c_kind.next()? as usize)
                    .copied()
                    .unwrap_or(SymbolKind::Function),
                modules: c_modules.next()? as u32,
                container: container.optional_value(c_container.next()?),
                container_id: container_id.optional_value(c_container_id.next()?),
                parent: parent.optional_value(c_parent.next()?),
                line: start,
                column: c_column.next()? as u32,
                end_line: start.wrapping_add(c_end_line_step.next()? as u32),
                end_column: c_end_column.next()? as u32,
                default_export: c_default_export.next()? != 0,
                type_ref: type_ref.optional_value(c_type_ref.next()?),
                value: value.optional_value(c_value.next()?),
                lists: lists.optional_value(c_lists.next()?),
                text: text.optional_value(c_text.next()?),
            });
        }
        columns
            .iter()
            .all(|column| column.0.is_empty())
            .then_some(definitions)
    }
}

/// A container (an `impl`, a class, a trait...) as kept until resolution: integers into
/// its file's tables, like [`Def`] (its types among the file's [`Written`] types).
/// Read through [`ContainerRef`]. A syntax [`mcursor_syntax::Container`] held its name
/// and types as strings and trees of its own: 168 bytes and several allocations each,
/// where a large Rust tree has about 180,000 containers.
#[derive(Debug, Clone, Copy, serde::Serialize, serde::Deserialize)]
pub(crate) struct CompactContainer {
    /// String id.
    name: u32,
    /// A type of [`CompactFacts::written`].
    self_type: u32,
    /// A type of [`CompactFacts::written`], or `NONE`.
    implements: u32,
    /// Where [`CompactFacts::type_lists`] lists its supertypes (a count, then their type
    /// ids), or `NONE` when it has none.
    supertypes: u32,
    is_abstract: bool,
    blanket: bool,
    start: Position,
    end: Position,
}

/// A container of a file's facts, read (see [`mcursor_syntax::Container`] for what each
/// part means).
#[derive(Clone, Copy)]
pub(crate) struct ContainerRef<'f> {
    pub name: &'f str,
    pub self_type: TypeAt<'f>,
    pub implements: Option<TypeAt<'f>>,
    supertype_ids: &'f [u32],
    written: &'f Written,
    pub is_abstract: bool,
    pub blanket: bool,
    pub start: Position,
    pub end: Position,
}

impl<'f> ContainerRef<'f> {
    /// Its supertypes (a type id that names no type, damage the cache's checksum missed,
    /// reads as unknown).
    pub fn supertypes(&self) -> impl Iterator<Item = TypeAt<'f>> + use<'f> {
        let written = self.written;
        self.supertype_ids
            .iter()
            .map(move |&id| written.type_or_unknown(id))
    }

    /// What two versions of a file's container are compared by: all but its position.
    fn key(&self) -> ContainerKey<'f> {
        ContainerKey {
            name: self.name,
            self_type: self.self_type.to_type_ref(),
            implements: self.implements.map(TypeAt::to_type_ref),
            supertypes: self.supertypes().map(TypeAt::to_type_ref).collect(),
            is_abstract: self.is_abstract,
            blanket: self.blanket,
        }
    }
}

/// A container but its position (see [`ContainerRef::key`]).
#[derive(Debug, PartialEq, Eq, Hash)]
struct ContainerKey<'f> {
    name: &'f str,
    self_type: TypeRef,
    implements: Option<TypeRef>,
    supertypes: Vec<TypeRef>,
    is_abstract: bool,
    blanket: bool,
}

/// One parsed file's facts in a compact form. The builder keeps every file's facts until
/// resolution, so strings are interned per file and definitions are plain integers.
///
/// The facts cache stores them in parts: [`Declarations`], which every resolution reads
/// of every file, and the uses (the references), which only a resolution of the file
/// itself reads. An interface patch decodes the uses of the files it resolves again only
/// (about 40% of a large tree's facts). The references stay packed ([`PackedRefs`])
/// until the file is resolved. The definitions' signatures and docs are held from the
/// parse only: the cache leaves them to the store, which has them too.
#[derive(Debug, Default)]
pub(crate) struct CompactFacts {
    strings: StringTable,
    /// Distinct inline-module paths of this file's definitions.
    pub module_paths: Vec<Vec<String>>,
    /// Signatures and doc summaries, back to back; `None` when read from the facts cache,
    /// which does not store them (see [`CompactFacts::texts`]).
    texts: Option<PackedTexts>,
    pub definitions: Vec<Def>,
    references: PackedRefs,
    pub imports: Vec<Import>,
    pub default_export_name: Option<String>,
    /// The types written (declared types, parameters, containers' types) and the value
    /// chains (receivers, initial values), each distinct one once.
    written: Written,
    /// Lists of type ids, each after its counts: a definition's positional fields and
    /// parameters (two counts), a container's supertypes (one).
    type_lists: Vec<u32>,
    containers: Vec<CompactContainer>,
    /// Definition indices sorted by name (stored: sorting them again on every load was a
    /// third of what loading the facts cache cost).
    by_name: Vec<u32>,
    /// Import indices sorted by their local name (rebuilt after loading from the cache).
    imports_by_local: Vec<u32>,
    /// Whether `references` and `texts` are here (see [`CompactFacts::has_uses`]).
    has_uses: bool,
    /// Made by the first [`CompactFacts::mentions`] that asks to keep it.
    mention_filter: MentionFilterOnce,
}

/// A file's facts but its uses (references), as the facts cache stores them.
#[derive(serde::Serialize)]
pub(crate) struct DeclarationsRef<'a> {
    strings: &'a StringTable,
    module_paths: &'a [Vec<String>],
    definitions: DefColumns<VarintColumn>,
    imports: &'a [Import],
    default_export_name: &'a Option<String>,
    written: &'a Written,
    type_lists: &'a [u32],
    containers: &'a [CompactContainer],
    by_name: &'a [u32],
}

/// [`DeclarationsRef`] as read back (postcard encodes both alike).
#[derive(serde::Deserialize)]
pub(crate) struct Declarations<'a> {
    strings: StringTable,
    module_paths: Vec<Vec<String>>,
    #[serde(borrow)]
    definitions: DefColumns<&'a [u8]>,
    imports: Vec<Import>,
    default_export_name: Option<String>,
    written: Written,
    type_lists: Vec<u32>,
    containers: Vec<CompactContainer>,
    by_name: Vec<u32>,
}

/// A file's definitions' signatures and docs, back to back, each ended by a NUL, as one
/// LZ4 block (its size first), held so from the parse until the store is written, which
/// unpacks them a file at a time: on `rustreg` every file's texts are 113 MiB unpacked,
/// held through a whole cold build. The facts cache does not store them: the store has
/// them (see [`CompactFacts::texts_from`]). Empty: the file has none.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PackedTexts(Box<[u8]>);

impl PackedTexts {
    /// Appends a definition's signature and doc to a file's `texts`, each ended by a NUL
    /// (which no indexed text holds: a file with one is binary; any is dropped all the
    /// same), and returns where they start (`NONE` for two empty texts, which take no
    /// bytes). One offset a definition where a range for each took 16 bytes.
    fn push(texts: &mut String, signature: &str, doc: &str) -> u32 {
        if signature.is_empty() && doc.is_empty() {
            return NONE;
        }
        let start = texts.len() as u32;
        for text in [signature, doc] {
            if text.contains('\0') {
                texts.extend(text.chars().filter(|&c| c != '\0'));
            } else {
                texts.push_str(text);
            }
            texts.push('\0');
        }
        start
    }

    /// The signature and doc [`PackedTexts::push`] put at `start` of `texts`; empty ones
    /// where `start` is `NONE` or past the texts, or the texts are cut short.
    fn get(texts: &str, start: u32) -> (&str, &str) {
        let split = || {
            let (signature, rest) = texts.get(start as usize..)?.split_once('\0')?;
            let (doc, _) = rest.split_once('\0')?;
            Some((signature, doc))
        };
        match start {
            NONE => ("", ""),
            _ => split().unwrap_or(("", "")),
        }
    }

    fn pack(texts: &str) -> PackedTexts {
        if texts.is_empty() {
            return PackedTexts::default();
        }
        PackedTexts(lz4_flex::block::compress_prepend_size(texts.as_bytes()).into_boxed_slice())
    }

    /// The texts. Packed by this process and never read from a file, they unpack; were
    /// they not to, the rows would have none.
    fn unpack(&self) -> String {
        crate::cache::decompress_block(&self.0)
            .and_then(|bytes| String::from_utf8(bytes).ok())
            .unwrap_or_default()
    }
}

/// A file's references as the facts cache stores them: how many there are (u32), then
/// their [`RefColumns`] as one LZ4 block, its size first. Facts hold them so from the
/// parse (or the cache read) until the file is resolved, which unpacks them, and the
/// cache writes them back as they are: on `rustreg` every file's references are 153 MiB
/// unpacked, held through a whole cold build.
/// Empty: the file has no references, or its facts were read without their uses.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct PackedRefs(Box<[u8]>);

/// A file's [`LocalRef`]s as packed: one column of varints per field, as
/// [`DefColumns`]. They come in source order, so the line is a step from the one before
/// (mostly 0 or a few), and a reference mostly sits in the same definition and reads the
/// chain after the last one read: those are [`Steps`] too, 0 for `NONE`. Names and
/// qualifiers are stored as they are: as steps they took more (on `rustreg`, 17.8 and
/// 17.6 MB of references against 17.5).
#[derive(Default, serde::Serialize, serde::Deserialize)]
struct RefColumns<C> {
    name: C,
    /// [`stored_id`].
    qualifier: C,
    receiver: C,
    /// Its place in [`RefKind::ALL`].
    kind: C,
    line: C,
    column: C,
    enclosing: C,
    chain: C,
}

impl RefColumns<VarintColumn> {
    fn of(references: &[LocalRef]) -> Self {
        let mut columns = Self::default();
        let [mut line, mut enclosing, mut chain] = [Steps::default(); 3];
        for r in references {
            let kind = RefKind::ALL.iter().position(|&k| k == r.kind);
            columns.name.push(r.name.into());
            columns.qualifier.push(stored_id(r.qualifier).into());
            columns.receiver.push(r.receiver.into());
            columns.kind.push(kind.unwrap_or(0) as u64);
            columns.line.push(line.of(r.line));
            columns.column.push(r.column.into());
            columns.enclosing.push(enclosing.of_optional(r.enclosing));
            columns.chain.push(chain.of_optional(r.chain));
        }
        columns
    }
}

impl RefColumns<&[u8]> {
    /// The references, a row at a time from every column; `None` unless every column
    /// holds `count` values.
    fn references(&self, count: usize) -> Option<Vec<LocalRef>> {
        let mut columns = [
            self.name,
            self.qualifier,
            self.receiver,
            self.kind,
            self.line,
            self.column,
            self.enclosing,
            self.chain,
        ]
        .map(Varints);
        // Each value takes a byte at least: a count past that is a lie.
        if columns.iter().any(|c| c.0.len() < count) {
            return None;
        }
        let [
            name,
            qualifier,
            receiver,
            kind,
            c_line,
            column,
            c_enclosing,
            c_chain,
        ] = &mut columns;
        let [mut line, mut enclosing, mut chain] = [Steps::default(); 3];
        let mut references = Vec::with_capacity(count);
        for _ in 0..count {
            references.push(LocalRef {
                name: name.next()? as u32,
                qualifier: read_id(qualifier.next()? as u32),
                receiver: receiver.next()? != 0,
                kind: RefKind::ALL
                    .get(kind.next()? as usize)
                    .copied()
                    .unwrap_or(RefKind::Call),
                line: line.value(c_line.next()?),
                column: column.next()? as u32,
                enclosing: enclosing.optional_value(c_enclosing.next()?),
                chain: chain.optional_value(c_chain.next()?),
            });
        }
        columns
            .iter()
            .all(|column| column.0.is_empty())
            .then_some(references)
    }
}

impl PackedRefs {
    fn pack(references: &[LocalRef]) -> PackedRefs {
        if references.is_empty() {
            return PackedRefs::default();
        }
        // Byte strings: postcard cannot fail to encode them.
        let encoded = postcard::to_stdvec(&RefColumns::of(references)).unwrap_or_default();
        let mut packed = (references.len() as u32).to_le_bytes().to_vec();
        packed.extend_from_slice(&lz4_flex::block::compress_prepend_size(&encoded));
        PackedRefs(packed.into_boxed_slice())
    }

    /// How many references there are, without unpacking them (what a damaged count says
    /// is caught when they are unpacked).
    pub fn count(&self) -> usize {
        self.0
            .get(..4)
            .and_then(|count| count.try_into().ok())
            .map_or(0, |count| u32::from_le_bytes(count) as usize)
    }

    /// The bytes a cache entry stored (its checksum checked; they are unpacked when the
    /// file is resolved).
    pub fn from_stored(bytes: &[u8]) -> PackedRefs {
        PackedRefs(bytes.into())
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// The references; `None` when the bytes do not decode (damage that the cache entry's
    /// checksum did not catch).
    pub fn unpack(&self) -> Option<Vec<LocalRef>> {
        if self.0.is_empty() {
            return Some(Vec::new());
        }
        let block = crate::cache::decompress_block(self.0.get(4..)?)?;
        let (columns, rest) = postcard::take_from_bytes::<RefColumns<&[u8]>>(&block).ok()?;
        if !rest.is_empty() {
            return None;
        }
        columns.references(self.count())
    }
}

/// A file's distinct strings as one text and where each ends: two allocations per file
/// instead of one per string (a large tree has millions of them; allocating, faulting in
/// and freeing them one by one was most of what loading the facts cache cost).
#[derive(Debug, Default, Clone)]
struct StringTable {
    text: String,
    ends: Vec<u32>,
}

/// Stored as the text and each string's length, which take a byte where most ends take
/// two or three (on `rustreg`, 2.1 M strings: 4.8 MB of ends, 2.2 MB of lengths, and
/// the tables 22.3 → 19.6 MB compressed; a throwaway count).
impl serde::Serialize for StringTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        (&self.text, EndsAsLengths(&self.ends)).serialize(serializer)
    }
}

impl<'de> serde::Deserialize<'de> for StringTable {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let (text, lengths): (String, Vec<u32>) = serde::Deserialize::deserialize(deserializer)?;
        // Lengths that run past the text (damage) give ends that `get` reads as empty.
        Ok(StringTable {
            text,
            ends: ends_of_lengths(lengths),
        })
    }
}

impl StringTable {
    fn new(strings: &[String]) -> Self {
        let mut table = StringTable {
            text: String::with_capacity(strings.iter().map(String::len).sum()),
            ends: Vec::with_capacity(strings.len()),
        };
        for s in strings {
            table.text.push_str(s);
            table.ends.push(table.text.len() as u32);
        }
        table
    }

    /// String `id`; empty when there is none (a damaged cache entry reads as empty
    /// strings, never a panic).
    fn get(&self, id: u32) -> &str {
        let id = id as usize;
        let Some(&end) = self.ends.get(id) else {
            return "";
        };
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        self.text.get(start as usize..end as usize).unwrap_or("")
    }

    fn iter(&self) -> impl Iterator<Item = &str> {
        (0..self.ends.len() as u32).map(|id| self.get(id))
    }
}

/// Interns values of one kind into a vector, returning each one's index.
struct Interner<T> {
    ids: HashMap<T, u32>,
    values: Vec<T>,
}

impl<T: Clone + Eq + std::hash::Hash> Interner<T> {
    fn new() -> Self {
        Self {
            ids: HashMap::default(),
            values: Vec::new(),
        }
    }

    fn add(&mut self, value: T) -> u32 {
        if let Some(&id) = self.ids.get(&value) {
            return id;
        }
        let id = self.values.len() as u32;
        self.values.push(value.clone());
        self.ids.insert(value, id);
        id
    }
}

impl CompactFacts {
    pub fn string(&self, id: u32) -> &str {
        self.strings.get(id)
    }

    /// Every string of the file, by id.
    pub fn strings(&self) -> impl Iterator<Item = &str> {
        self.strings.iter()
    }

    pub fn name(&self, d: &Def) -> &str {
        self.string(d.name)
    }

    pub fn modules(&self, d: &Def) -> &[String] {
        self.module_paths
            .get(d.modules as usize)
            .map_or(&[], Vec::as_slice)
    }

    pub fn container(&self, d: &Def) -> Option<&str> {
        (d.container != NONE).then(|| self.string(d.container))
    }

    pub fn container_of(&self, d: &Def) -> Option<ContainerRef<'_>> {
        self.container_at(d.container_id)
    }

    /// Container `index` of this file.
    pub fn container_at(&self, index: u32) -> Option<ContainerRef<'_>> {
        let c = self.containers.get(index as usize)?;
        let written = &self.written;
        let ty = |id: u32| written.type_or_unknown(id);
        Some(ContainerRef {
            name: self.string(c.name),
            self_type: ty(c.self_type),
            implements: (c.implements != NONE).then(|| ty(c.implements)),
            supertype_ids: self.listed(c.supertypes, 1).map_or(&[], |(ids, _)| ids),
            written,
            is_abstract: c.is_abstract,
            blanket: c.blanket,
            start: c.start,
            end: c.end,
        })
    }

    /// This file's containers, in order.
    pub fn containers(&self) -> impl Iterator<Item = ContainerRef<'_>> {
        (0..self.containers.len() as u32).filter_map(|i| self.container_at(i))
    }

    pub fn container_count(&self) -> usize {
        self.containers.len()
    }

    /// The ids [`CompactFacts::type_lists`] lists at `start` after `counts` counts, split
    /// after the first count's; `None` where `start` is `NONE` or the lists are damaged.
    fn listed(&self, start: u32, counts: usize) -> Option<(&[u32], &[u32])> {
        if start == NONE {
            return None;
        }
        let start = start as usize;
        let ids_start = start.checked_add(counts)?;
        let header = self.type_lists.get(start..ids_start)?;
        let total = header
            .iter()
            .try_fold(0usize, |sum, &n| sum.checked_add(n as usize))?;
        let ids = self
            .type_lists
            .get(ids_start..ids_start.checked_add(total)?)?;
        Some(ids.split_at(header[0] as usize))
    }

    pub fn type_of(&self, d: &Def) -> Option<TypeAt<'_>> {
        self.written.type_at(d.type_ref)
    }

    pub fn value_of(&self, d: &Def) -> Option<ChainAt<'_>> {
        self.written.chain_at(d.value)
    }

    /// The type ids of definition `d`'s positional fields and of its declared
    /// parameters; empty when it has none (or the lists are damaged).
    fn lists(&self, d: &Def) -> (&[u32], &[u32]) {
        self.listed(d.lists, 2).unwrap_or((&[], &[]))
    }

    /// The type of positional field `index` of definition `d` (`.0` of a tuple struct).
    pub fn tuple_field(&self, d: &Def, index: usize) -> Option<TypeAt<'_>> {
        self.written.type_at(*self.lists(d).0.get(index)?)
    }

    /// The declared type of parameter `index` of function `d`.
    pub fn param(&self, d: &Def, index: usize) -> Option<TypeAt<'_>> {
        self.written.type_at(*self.lists(d).1.get(index)?)
    }

    /// The declared types of `d`'s positional fields and of its parameters, for
    /// comparing two versions of a file.
    fn listed_types(&self, d: &Def) -> [Vec<Option<TypeRef>>; 2] {
        let (fields, params) = self.lists(d);
        [fields, params].map(|ids| {
            ids.iter()
                .map(|&id| self.written.type_at(id).map(TypeAt::to_type_ref))
                .collect()
        })
    }

    pub fn chain(&self, r: &LocalRef) -> Option<ChainAt<'_>> {
        self.written.chain_at(r.chain)
    }

    /// The definitions' signatures and docs, unpacked (see [`CompactFacts::symbol_row`]),
    /// where these facts hold them: facts parsed in this process do, facts read from the
    /// cache do not (`None`: lay them out from the store with
    /// [`CompactFacts::texts_from`]).
    pub fn texts(&self) -> Option<String> {
        self.texts.as_ref().map(PackedTexts::unpack)
    }

    /// The texts [`CompactFacts::texts`] gives, laid out again from the `count` that the
    /// store holds: `next_stored` copies each definition's signature and doc, in order,
    /// into the two strings it is given (false for one it cannot read). `None` when they
    /// do not fit these facts: another count, or a definition whose texts would start
    /// elsewhere than it says.
    pub fn texts_from(
        &self,
        count: usize,
        mut next_stored: impl FnMut(&mut String, &mut String) -> bool,
    ) -> Option<String> {
        if count != self.definitions.len() {
            return None;
        }
        let mut texts = String::new();
        let (mut signature, mut doc) = (String::new(), String::new());
        for d in &self.definitions {
            if !next_stored(&mut signature, &mut doc)
                || PackedTexts::push(&mut texts, &signature, &doc) != d.text
            {
                return None;
            }
        }
        Some(texts)
    }

    /// Holds `texts` (as [`CompactFacts::texts_from`] lays them out) as if parsed here:
    /// for facts that the store will not give them to (a renamed file's, cached under
    /// its old path).
    pub fn hold_texts(&mut self, texts: &str) {
        self.texts = Some(PackedTexts::pack(texts));
    }

    /// This file's definitions named `name`, in source order.
    pub fn definitions_named(&self, name: &str) -> impl Iterator<Item = (u32, &Def)> {
        let first = self
            .by_name
            .partition_point(|&i| self.name(&self.definitions[i as usize]) < name);
        self.by_name[first..]
            .iter()
            .take_while(move |&&i| self.name(&self.definitions[i as usize]) == name)
            .map(|&i| (i, &self.definitions[i as usize]))
    }

    /// Per definition: the innermost function around it (itself included) that has
    /// definitions nested in it, or `NONE`. A bare name can mean different things inside
    /// and outside such a function (a nested `def` shadows a module-level one), so it is
    /// part of a use's resolution context.
    pub fn scope_owners(&self) -> Vec<u32> {
        let mut has_nested = vec![false; self.definitions.len()];
        for d in &self.definitions {
            if let Some(flag) = has_nested.get_mut(d.parent as usize) {
                *flag = true;
            }
        }
        let mut owners = vec![super::NONE; self.definitions.len()];
        // Parents come before their children (definitions are in source order).
        for (i, d) in self.definitions.iter().enumerate() {
            let function = matches!(d.kind, SymbolKind::Function | SymbolKind::Method);
            owners[i] = if function && has_nested[i] {
                i as u32
            } else {
                owners
                    .get(d.parent as usize)
                    .copied()
                    .unwrap_or(super::NONE)
            };
        }
        owners
    }

    /// This file's imports that bring `local` into scope (`*` for glob imports).
    pub fn imports_named<'a>(&'a self, local: &str) -> impl Iterator<Item = &'a Import> {
        let first = self
            .imports_by_local
            .partition_point(|&i| self.imports[i as usize].local.as_str() < local);
        self.imports_by_local[first..]
            .iter()
            .map(|&i| &self.imports[i as usize])
            .take_while(move |import| import.local == local)
    }

    pub fn from_facts(facts: mcursor_syntax::FileFacts) -> Self {
        let mut strings: Interner<String> = Interner::new();
        let mut written = WrittenBuilder::default();
        let references: Vec<LocalRef> = facts
            .references
            .into_iter()
            .map(|r| LocalRef {
                name: strings.add(r.name),
                qualifier: r.qualifier.map(|q| strings.add(q)).unwrap_or(NONE),
                receiver: r.receiver,
                kind: r.kind,
                line: r.start.line,
                column: r.start.column,
                enclosing: r.enclosing.unwrap_or(NONE),
                chain: r
                    .receiver_chain
                    .map(|c| written.add_chain(c))
                    .unwrap_or(NONE),
            })
            .collect();
        let mut module_paths: Interner<Vec<String>> = Interner::new();
        let mut texts = String::new();
        let mut definitions = Vec::with_capacity(facts.definitions.len());
        let mut type_lists: Vec<u32> = Vec::new();
        // Lists `lists`' types after their counts (see `type_lists`); `NONE` for none.
        let mut list = |written: &mut WrittenBuilder, lists: &mut [Vec<TypeRef>]| {
            if lists.iter().all(Vec::is_empty) {
                return NONE;
            }
            let start = type_lists.len() as u32;
            type_lists.extend(lists.iter().map(|list| list.len() as u32));
            for ty in lists.iter_mut().flat_map(std::mem::take) {
                type_lists.push(written.add_type(ty));
            }
            start
        };
        for d in facts.definitions {
            let lists = list(&mut written, &mut [d.tuple_fields, d.params]);
            let doc = d.doc.map(doc_summary).unwrap_or_default();
            definitions.push(Def {
                name: strings.add(d.name),
                kind: d.kind,
                modules: module_paths.add(d.modules),
                container: d.container.map(|c| strings.add(c)).unwrap_or(NONE),
                container_id: d.container_id.unwrap_or(NONE),
                parent: d.parent.unwrap_or(NONE),
                line: d.start.line,
                column: d.start.column,
                end_line: d.end.line,
                end_column: d.end.column,
                default_export: d.default_export,
                type_ref: d.type_ref.map(|t| written.add_type(t)).unwrap_or(NONE),
                value: d.value.map(|v| written.add_chain(v)).unwrap_or(NONE),
                lists,
                text: PackedTexts::push(&mut texts, &d.signature, &doc),
            });
        }
        let containers = facts
            .containers
            .into_iter()
            .map(|c| CompactContainer {
                name: strings.add(c.name),
                self_type: written.add_type(c.self_type),
                implements: c.implements.map(|t| written.add_type(t)).unwrap_or(NONE),
                supertypes: list(&mut written, &mut [c.supertypes]),
                is_abstract: c.is_abstract,
                blanket: c.blanket,
                start: c.start,
                end: c.end,
            })
            .collect();
        let mut compact = CompactFacts {
            strings: StringTable::new(&strings.values),
            module_paths: module_paths.values,
            texts: Some(PackedTexts::pack(&texts)),
            definitions,
            references: PackedRefs::pack(&references),
            imports: facts.imports,
            default_export_name: facts.default_export_name,
            written: written.finish(),
            type_lists,
            containers,
            by_name: Vec::new(),
            imports_by_local: Vec::new(),
            has_uses: true,
            mention_filter: MentionFilterOnce::default(),
        };
        let mut by_name: Vec<u32> = (0..compact.definitions.len() as u32).collect();
        by_name.sort_by(|&a, &b| {
            compact
                .name(&compact.definitions[a as usize])
                .cmp(compact.name(&compact.definitions[b as usize]))
                .then(a.cmp(&b))
        });
        compact.by_name = by_name;
        compact.build_lookups();
        compact
    }

    /// The part of the facts every resolution reads, for the cache.
    pub fn declarations(&self) -> DeclarationsRef<'_> {
        DeclarationsRef {
            strings: &self.strings,
            module_paths: &self.module_paths,
            definitions: DefColumns::of(&self.definitions),
            imports: &self.imports,
            default_export_name: &self.default_export_name,
            written: &self.written,
            type_lists: &self.type_lists,
            containers: &self.containers,
            by_name: &self.by_name,
        }
    }

    /// The references as the cache stores them (empty without the uses).
    pub fn packed_references(&self) -> &PackedRefs {
        &self.references
    }

    /// The references, unpacked; `None` when they do not decode (see
    /// [`PackedRefs::unpack`]).
    pub fn references(&self) -> Option<Vec<LocalRef>> {
        self.references.unpack()
    }

    /// The most reference rows the file can give: one per reference and per import (as
    /// the packed count says: see [`PackedRefs::count`]).
    pub fn most_reference_rows(&self) -> usize {
        self.references.count() + self.imports.len()
    }

    /// Facts as the cache stored them (without their uses when `references` is `None`);
    /// `None` when they do not hold together (a definition index out of range, columns
    /// of definitions that differ in length), so the entry is refused rather than
    /// trusted.
    pub fn from_parts(
        declarations: Declarations<'_>,
        references: Option<PackedRefs>,
    ) -> Option<Self> {
        let Declarations {
            strings,
            module_paths,
            definitions,
            imports,
            default_export_name,
            written,
            type_lists,
            containers,
            by_name,
        } = declarations;
        let has_uses = references.is_some();
        let mut facts = CompactFacts {
            strings,
            module_paths,
            texts: None,
            definitions: definitions.definitions()?,
            references: references.unwrap_or_default(),
            imports,
            default_export_name,
            written,
            type_lists,
            containers,
            by_name,
            imports_by_local: Vec::new(),
            has_uses,
            mention_filter: MentionFilterOnce::default(),
        };
        facts.build_lookups().then_some(facts)
    }

    /// Whether the references are here: facts read from the cache without them serve
    /// other files' resolution (their declarations), never their own.
    pub fn has_uses(&self) -> bool {
        self.has_uses
    }

    /// These facts as the cache reads them without their uses (see
    /// [`CompactFacts::from_parts`]).
    pub fn drop_uses(&mut self) {
        self.references = PackedRefs::default();
        self.texts = None;
        self.has_uses = false;
    }

    /// Whether two versions of a file declare the same things in the same order: the
    /// same definitions (name, kind, modules, container, parent, default export, declared
    /// type, initial value), the same containers and the same imports. Positions (of
    /// containers too: a patch moves its implementations' positions), bodies,
    /// signatures and docs may differ. Every table the resolver builds depends on files
    /// only through this interface.
    pub fn interface_eq(&self, other: &CompactFacts) -> bool {
        let definition = |f: &CompactFacts, d: &Def| {
            (
                f.name(d).to_owned(),
                d.kind,
                f.modules(d).to_vec(),
                f.container(d).map(str::to_owned),
                d.container_id,
                d.parent,
                d.default_export,
                f.type_of(d).map(TypeAt::to_type_ref),
                f.value_of(d).map(ChainAt::to_chain),
                f.listed_types(d),
            )
        };
        let import = |i: &Import| {
            (
                i.local.clone(),
                i.target.clone(),
                i.reexport,
                i.modules.clone(),
            )
        };
        self.definitions.len() == other.definitions.len()
            && self.imports.len() == other.imports.len()
            && self.default_export_name == other.default_export_name
            && self.containers.len() == other.containers.len()
            && self
                .containers()
                .zip(other.containers())
                .all(|(a, b)| a.key() == b.key())
            && self
                .definitions
                .iter()
                .zip(&other.definitions)
                .all(|(a, b)| definition(self, a) == definition(other, b))
            && self
                .imports
                .iter()
                .zip(&other.imports)
                .all(|(a, b)| import(a) == import(b))
    }

    /// The names whose meaning an edit from `old` to `self` may change in other files:
    /// those of definitions added, removed or changed (kind, scope, container, parent,
    /// declared type, initial value, parameters), of containers added or removed, and of
    /// imports added or removed (any import may be seen through this file: a re-export, a
    /// Python module's attribute); and the supertypes a type gained or lost, whose
    /// members the caller finds by name in the whole tree. `Err` says why the edit
    /// reaches further than names can follow: a module added or removed, the default
    /// export, a glob import, a blanket impl, or (`includes_leak`, C's `#include` and a
    /// shell script's `source`: `Family::imports_are_textual`) any import.
    pub fn changed_names(
        &self,
        old: &CompactFacts,
        includes_leak: bool,
    ) -> Result<InterfaceChange, &'static str> {
        let mut changed = BTreeSet::new();
        let container_key = |c: ContainerRef| (c.name.to_owned(), c.self_type.to_type_ref());
        fn containers(f: &CompactFacts) -> HashMap<ContainerKey<'_>, i32> {
            let mut counts = HashMap::default();
            for c in f.containers() {
                *counts.entry(c.key()).or_insert(0) += 1;
            }
            counts
        }
        let mut supertypes = BTreeSet::new();
        for (c, count) in multiset_difference(containers(self), containers(old)) {
            debug_assert!(count != 0);
            // A blanket impl gives its members to every type its bounds allow.
            if c.blanket {
                return Err("a blanket impl changed");
            }
            // What the type implements or extends: its supertypes' members (found by
            // name in the whole tree) are the names this reaches.
            for t in c.implements.into_iter().chain(c.supertypes) {
                match t {
                    TypeRef::Named { path, .. } => supertypes.extend(path.last().cloned()),
                    _ => return Err("a type's supertypes changed"),
                }
            }
            changed.insert(c.name.to_owned());
            c.self_type.for_each_name(&mut |n| {
                changed.insert(n.to_owned());
            });
        }
        type DefKey = (
            String,
            SymbolKind,
            Vec<String>,
            Option<(String, TypeRef)>,
            Option<(String, SymbolKind)>,
            bool,
            Option<TypeRef>,
            Option<ValueChain>,
            [Vec<Option<TypeRef>>; 2],
        );
        let definitions = |f: &CompactFacts| -> HashMap<DefKey, i32> {
            let mut counts = HashMap::default();
            for d in &f.definitions {
                let parent = f
                    .definitions
                    .get(d.parent as usize)
                    .map(|p| (f.name(p).to_owned(), p.kind));
                let key: DefKey = (
                    f.name(d).to_owned(),
                    d.kind,
                    f.modules(d).to_vec(),
                    f.container_of(d).map(container_key),
                    parent,
                    d.default_export,
                    f.type_of(d).map(TypeAt::to_type_ref),
                    f.value_of(d).map(ChainAt::to_chain),
                    f.listed_types(d),
                );
                *counts.entry(key).or_insert(0) += 1;
            }
            counts
        };
        for (key, _) in multiset_difference(definitions(self), definitions(old)) {
            if key.1 == SymbolKind::Module {
                return Err("a module was added or removed");
            }
            changed.insert(key.0);
        }
        type ImportKey<'f> = (&'f str, &'f ImportTarget, bool, &'f [String]);
        fn imports(f: &CompactFacts) -> HashMap<ImportKey<'_>, i32> {
            let mut counts = HashMap::default();
            for i in &f.imports {
                *counts
                    .entry((
                        i.local.as_str(),
                        &i.target,
                        i.reexport,
                        i.modules.as_slice(),
                    ))
                    .or_insert(0) += 1;
            }
            counts
        }
        let changed_imports = multiset_difference(imports(self), imports(old));
        if !changed_imports.is_empty() && includes_leak {
            return Err("an include changed");
        }
        for ((local, _, _, _), _) in changed_imports {
            if local == "*" {
                return Err("a glob import changed");
            }
            changed.insert(local.to_owned());
        }
        for i in self.imports.iter().chain(&old.imports) {
            if let Some(name) = super::import_name(i)
                && changed.contains(&i.local)
            {
                changed.insert(name);
            }
        }
        // A default import names the module, not the definition: any change to which
        // definition is the default, or to that definition, reaches files the names do
        // not.
        let default = self.default_export();
        if default != old.default_export()
            || default.is_some_and(|(name, _)| changed.contains(name))
        {
            return Err("its default export changed");
        }
        Ok(InterfaceChange {
            names: changed,
            supertypes,
        })
    }

    /// For each container whose type is named by one of `types` (its name or its type's
    /// last segment): the names of its members, and the last segments of what it
    /// implements or extends.
    pub fn members_of_types(&self, types: &HashSet<&str>) -> (Vec<String>, Vec<String>) {
        let (mut members, mut supertypes) = (Vec::new(), Vec::new());
        for (i, c) in self.containers().enumerate() {
            let named = types.contains(c.name)
                || c.self_type
                    .named_last()
                    .is_some_and(|n| types.contains(n.as_str()));
            if !named {
                continue;
            }
            members.extend(
                self.definitions
                    .iter()
                    .filter(|d| d.container_id == i as u32)
                    .map(|d| self.name(d).to_owned()),
            );
            for t in c.implements.into_iter().chain(c.supertypes()) {
                supertypes.extend(t.named_last().cloned());
            }
        }
        (members, supertypes)
    }

    /// The definition `export default` (or `module.exports =`) makes the module's default,
    /// as the ECMAScript resolver picks it: the last top-level definition marked default,
    /// else the top-level definition the default's name names.
    fn default_export(&self) -> Option<(&str, SymbolKind)> {
        let top_level =
            |d: &&Def| d.parent == NONE && d.container == NONE && self.modules(d).is_empty();
        let marked = self
            .definitions
            .iter()
            .filter(top_level)
            .rfind(|d| d.default_export);
        let named = || {
            let name = self.default_export_name.as_deref()?;
            self.definitions
                .iter()
                .filter(top_level)
                .find(|d| self.name(d) == name)
        };
        marked.or_else(named).map(|d| (self.name(d), d.kind))
    }

    /// Whether this file is written with any of `names`: a use, a definition, an import,
    /// a type or a value chain. (A superset of the files whose resolution the names
    /// decide.) With `keep_filter`, facts held between updates keep a
    /// [`MentionFilter`] that answers most files without reading their names.
    pub fn mentions(&self, names: &NameSet, keep_filter: bool) -> bool {
        if keep_filter {
            self.kept_mention_filter();
        }
        if self.filter_rules_out(names) {
            return false;
        }
        let mut found = false;
        self.for_each_mentioned(&mut |n| found |= names.contains(n));
        found
    }

    /// Whether this file's [`MentionFilter`], if it has one, says it mentions none of
    /// `names` (no false answer: then it does not).
    fn filter_rules_out(&self, names: &NameSet) -> bool {
        self.mention_filter
            .0
            .get()
            .is_some_and(|filter| !names.hashes.iter().any(|&hash| filter.may_contain(hash)))
    }

    /// The [`MentionFilter`] these facts keep, made on first use (facts held between
    /// updates; a watcher makes them ahead of its first edit).
    pub(crate) fn kept_mention_filter(&self) -> &MentionFilter {
        self.mention_filter
            .0
            .get_or_init(|| MentionFilter::new(self))
    }

    /// Every name [`Self::mentions`] looks at (some more than once).
    fn for_each_mentioned(&self, check: &mut impl FnMut(&str)) {
        self.strings().for_each(&mut *check);
        self.module_paths.iter().flatten().for_each(|s| check(s));
        // Containers' names and types are among the strings and types above.
        for i in &self.imports {
            check(&i.local);
            match &i.target {
                ImportTarget::Path(path) => path.iter().for_each(|s| check(s)),
                ImportTarget::Module { source, imported } => {
                    check(source);
                    imported.iter().for_each(|s| check(s));
                }
            }
        }
        self.written.for_each_name(&mut *check);
    }

    /// The names of this file's definitions whose type may follow from `names`: their
    /// declared type, initial value, parameters or positional fields mention one, or
    /// their container's type does.
    pub fn definitions_typed_by(&self, names: &NameSet) -> Vec<String> {
        // Every name looked at below is one the filter holds.
        if self.filter_rules_out(names) {
            return Vec::new();
        }
        let (typed, valued) = self.written.mentioning(&mut |n| names.contains(n));
        let at = |flags: &[bool], i: u32| flags.get(i as usize).copied().unwrap_or(false);
        let containers: Vec<bool> = self
            .containers
            .iter()
            .map(|c| at(&typed, c.self_type))
            .collect();
        let listed = |d: &Def| {
            let (fields, params) = self.lists(d);
            fields.iter().chain(params).any(|&t| at(&typed, t))
        };
        self.definitions
            .iter()
            .filter(|d| {
                at(&typed, d.type_ref)
                    || at(&valued, d.value)
                    || at(&containers, d.container_id)
                    || listed(d)
            })
            .map(|d| self.name(d).to_owned())
            .collect()
    }

    /// Symbol rows of this file for a patch: ids from `symbol_base` on, each keeping the
    /// qualified-name prefix the store holds for it (`prefix_of(i)`), which the interface
    /// fixes. `None` when a name or prefix is missing, or for facts that do not hold
    /// their texts (read from the cache: a patch parses the files it makes rows of).
    pub fn symbol_rows(
        &self,
        fid: u32,
        symbol_base: u32,
        name_id: &dyn Fn(&str) -> Option<u32>,
        prefix_of: &dyn Fn(u32) -> Option<Arc<str>>,
    ) -> Option<Vec<SymbolRow<'static>>> {
        let texts = self.texts()?;
        self.definitions
            .iter()
            .enumerate()
            .map(|(i, d)| {
                let prefix = prefix_of(symbol_base + i as u32)?;
                let name = name_id(self.name(d))?;
                let row = self.symbol_row(d, &texts, name, fid, symbol_base, prefix);
                Some(row.into_owned())
            })
            .collect()
    }

    /// The store row of definition `d`, the file's symbols numbered from `symbol_base`,
    /// its signature and doc borrowed from `texts` (the file's, [`CompactFacts::texts`]).
    pub fn symbol_row<'t>(
        &self,
        d: &Def,
        texts: &'t str,
        name: u32,
        fid: u32,
        symbol_base: u32,
        prefix: Arc<str>,
    ) -> SymbolRow<'t> {
        let (signature, doc) = PackedTexts::get(texts, d.text);
        SymbolRow {
            name,
            file: fid,
            parent: if d.parent == NONE {
                NONE
            } else {
                symbol_base + d.parent
            },
            line: d.line,
            column: d.column,
            end_line: d.end_line,
            end_column: d.end_column,
            kind: d.kind,
            member: d.container != NONE,
            prefix,
            signature: Cow::Borrowed(signature),
            doc: Cow::Borrowed(doc),
        }
    }

    /// Rebuilds what the cache does not store, after loading; `false` when the stored
    /// facts do not hold together (a definition index out of range).
    fn build_lookups(&mut self) -> bool {
        let definitions = self.definitions.len();
        if self.by_name.len() != definitions
            || self.by_name.iter().any(|&i| i as usize >= definitions)
            || !self.written.holds_together()
        {
            return false;
        }
        let mut by_local: Vec<u32> = (0..self.imports.len() as u32).collect();
        by_local.sort_by(|&a, &b| {
            self.imports[a as usize]
                .local
                .cmp(&self.imports[b as usize].local)
                .then(a.cmp(&b))
        });
        self.imports_by_local = by_local;
        true
    }
}

/// What an edit changed in a file's interface (see [`CompactFacts::changed_names`]).
#[derive(Debug, Default)]
pub(crate) struct InterfaceChange {
    /// Names whose meaning may change in other files.
    pub names: BTreeSet<String>,
    /// Last segments of the supertypes a type of the file gained or lost: the members of
    /// those types (and of theirs) may now be found on it, or no longer.
    pub supertypes: BTreeSet<String>,
}

/// The keys whose counts differ between two multisets, with `a`'s count minus `b`'s.
fn multiset_difference<K: std::hash::Hash + Eq>(
    a: HashMap<K, i32>,
    mut b: HashMap<K, i32>,
) -> Vec<(K, i32)> {
    let mut out = Vec::new();
    for (key, count) in a {
        let other = b.remove(&key).unwrap_or(0);
        if count != other {
            out.push((key, count - other));
        }
    }
    out.extend(b.into_iter().map(|(key, count)| (key, -count)));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn till_facts() -> CompactFacts {
        let parsed = mcursor_syntax::parse_source(
            mcursor_syntax::Lang::Rust,
            b"use crate::shop::{Cart, pricing::*};\nmod inner { pub fn deep() {} }\n\
              struct Till { cart: Cart }\nimpl Checkout for Till {\n\
              fn total(&self) -> Money { self.cart.sum().round() }\n}\n",
            &mcursor_syntax::ParseConfig::default(),
        );
        CompactFacts::from_facts(parsed)
    }

    #[test]
    fn definitions_are_stored_small_and_read_back_as_they_were() {
        let facts = till_facts();
        let mut defs = facts.definitions.clone();
        let none_of_them = Def {
            container: NONE,
            container_id: NONE,
            parent: NONE,
            type_ref: NONE,
            value: NONE,
            lists: NONE,
            text: NONE,
            ..defs[0]
        };
        // Whatever a damaged or odd file gives round-trips too: an end before the start,
        // the largest ids that are not `NONE`, steps of half the id space, a parent
        // after the definition, ids that fall.
        let extremes = Def {
            line: 9,
            end_line: 3,
            container: NONE - 1,
            container_id: 0x8000_0000,
            parent: 0,
            name: u32::MAX,
            ..defs[0]
        };
        let later_parent = Def {
            parent: 40,
            container: 0,
            container_id: 0,
            type_ref: 0x7FFF_FFFF,
            text: NONE - 1,
            ..defs[0]
        };
        defs.extend([none_of_them, extremes, later_parent, none_of_them]);
        let bytes = postcard::to_stdvec(&DefColumns::of(&defs)).expect("encode");
        let read: DefColumns<&[u8]> = postcard::from_bytes(&bytes).expect("decode");
        assert_eq!(read.definitions(), Some(defs.clone()));
        // A definition with no container, parent, type, value, lists or texts takes a
        // byte for each of those where u32::MAX took five (and a byte for each column's
        // length).
        let alone = postcard::to_stdvec(&DefColumns::of(&[none_of_them])).expect("encode");
        assert!(alone.len() <= 2 * 15 + 4, "{} bytes", alone.len());
        // Columns of different lengths (damage no checksum caught) are refused.
        let mut short = DefColumns::of(&defs);
        short.text.0.pop();
        let refused = |columns: &DefColumns<VarintColumn>| {
            let bytes = postcard::to_stdvec(columns).expect("encode");
            postcard::from_bytes::<DefColumns<&[u8]>>(&bytes)
                .ok()
                .and_then(|read| read.definitions())
                .is_none()
        };
        assert!(refused(&short));
        // So are a column longer than the others, a varint cut short, a column missing.
        let mut long = DefColumns::of(&defs);
        long.kind.push(1);
        assert!(refused(&long));
        let mut cut = DefColumns::of(&defs);
        cut.kind.0.push(0x80);
        assert!(refused(&cut));
        let whole = postcard::to_stdvec(&DefColumns::of(&defs)).expect("encode");
        let last = 1 + DefColumns::of(&defs).text.0.len();
        assert!(postcard::from_bytes::<DefColumns<&[u8]>>(&whole[..whole.len() - last]).is_err());
    }

    #[test]
    fn string_tables_are_stored_as_lengths_and_read_back() {
        let strings = ["Cart", "", "total", "é"].map(String::from);
        let table = StringTable::new(&strings);
        let bytes = postcard::to_stdvec(&table).expect("encode");
        let read: StringTable = postcard::from_bytes(&bytes).expect("decode");
        assert_eq!(read.ends, table.ends);
        assert_eq!(read.iter().collect::<Vec<_>>(), ["Cart", "", "total", "é"]);
        // Lengths past the text, or splitting a character, read as empty strings.
        let damaged = ("Cart", vec![2u32, 9, u32::MAX, 1]);
        let bytes = postcard::to_stdvec(&damaged).expect("encode");
        let read: StringTable = postcard::from_bytes(&bytes).expect("decode");
        assert_eq!(read.iter().collect::<Vec<_>>(), ["Ca", "", "", ""]);
    }

    #[test]
    fn references_are_held_packed_and_unpack_as_extracted() {
        let source = b"fn total(c: &Cart) -> u32 { c.sum() + helper(c.items) }\n";
        let parsed = mcursor_syntax::parse_source(
            mcursor_syntax::Lang::Rust,
            source,
            &mcursor_syntax::ParseConfig::default(),
        );
        let extracted: Vec<(String, u32, u32)> = parsed
            .references
            .iter()
            .map(|r| (r.name.clone(), r.start.line, r.start.column))
            .collect();
        assert!(extracted.len() >= 3, "{extracted:?}");
        let facts = CompactFacts::from_facts(parsed);
        let unpacked = facts.references().expect("packed by this process");
        let read: Vec<(String, u32, u32)> = unpacked
            .iter()
            .map(|r| (facts.string(r.name).to_owned(), r.line, r.column))
            .collect();
        assert_eq!(read, extracted);
        assert_eq!(facts.packed_references().count(), extracted.len());
        // Packed smaller than held unpacked, and what the cache stores is what it holds.
        let packed = facts.packed_references();
        assert!(packed.as_bytes().len() < unpacked.len() * std::mem::size_of::<LocalRef>());
        assert_eq!(PackedRefs::from_stored(packed.as_bytes()), *packed);
        let bytes = packed.as_bytes();
        // Ids that are `NONE` and lines that go back or reach the top come back as they were.
        let edge = |line, qualifier, chain| LocalRef {
            name: 3,
            qualifier,
            receiver: true,
            kind: RefKind::Call,
            line,
            column: 7,
            enclosing: NONE,
            chain,
        };
        let edges = [
            edge(9, NONE, 0),
            edge(2, 0, NONE),
            edge(u32::MAX, 5, NONE - 1),
        ];
        let round = PackedRefs::pack(&edges)
            .unpack()
            .expect("packed by this process");
        assert_eq!(format!("{round:?}"), format!("{edges:?}"));
        // Columns of different lengths are refused, not read short.
        let [whole, short] = [&edges[..], &edges[..2]].map(|refs| {
            let columns = RefColumns::of(refs);
            [columns.name.0, columns.chain.0]
        });
        let uneven = RefColumns {
            name: &whole[0][..],
            qualifier: &[1, 1, 6][..],
            receiver: &[1, 1, 1][..],
            kind: &[0, 0, 0][..],
            line: &[2, 2, 2][..],
            column: &[7, 7, 7][..],
            enclosing: &[0, 0, 0][..],
            chain: &short[1][..],
        };
        assert!(uneven.references(3).is_none());
        assert!(uneven.references(2).is_none());
        let even = RefColumns {
            chain: &whole[1][..],
            ..uneven
        };
        assert_eq!(even.references(3).map(|r| r.len()), Some(3));
        // A count that lies (a hostile cache's, under a valid checksum) unpacks to nothing.
        let mut lying = bytes.to_vec();
        lying[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let lying = PackedRefs::from_stored(&lying);
        assert_eq!(lying.count(), u32::MAX as usize);
        assert!(lying.unpack().is_none());
        // A cut block unpacks to nothing rather than to fewer references.
        for cut in 1..bytes.len() {
            let damaged = PackedRefs::from_stored(&bytes[..cut]);
            assert!(damaged.unpack().is_none(), "cut at {cut}");
        }
        let mut facts = facts;
        facts.drop_uses();
        assert_eq!(facts.references().map(|r| r.len()), Some(0));
    }

    #[test]
    fn texts_are_held_packed_give_each_row_its_signature_and_doc_and_lay_out_again_from_the_store()
    {
        let source = b"/// Adds up a cart.\npub fn total(c: &Cart) -> u32 { 0 }\n\n/// A cart.\npub struct Cart { items: u32 }\n";
        let parsed = mcursor_syntax::parse_source(
            mcursor_syntax::Lang::Rust,
            source,
            &mcursor_syntax::ParseConfig::default(),
        );
        let extracted: Vec<(String, String)> = parsed
            .definitions
            .iter()
            .map(|d| {
                (
                    d.signature.clone(),
                    d.doc.clone().map(doc_summary).unwrap_or_default(),
                )
            })
            .collect();
        assert!(
            extracted.iter().any(|(_, doc)| doc == "A cart."),
            "{extracted:?}"
        );
        let facts = CompactFacts::from_facts(parsed);
        let texts = facts.texts().expect("parsed here: held");
        let rows: Vec<(String, String)> = facts
            .definitions
            .iter()
            .map(|d| {
                let row = facts.symbol_row(d, &texts, 0, 0, 0, "".into());
                (row.signature.into_owned(), row.doc.into_owned())
            })
            .collect();
        assert_eq!(rows, extracted);
        // The store's texts, in order, lay out the same texts again. `changed` gives
        // the texts of one row otherwise: `None` unreadable, else the signature.
        let from_rows = |rows: &[(String, String)], changed: Option<(usize, Option<&str>)>| {
            let mut next = 0;
            facts.texts_from(rows.len(), |signature, doc| {
                let Some((sig, stored_doc)) = rows.get(next) else {
                    return false;
                };
                let sig = match changed {
                    Some((i, Some(other))) if i == next => other,
                    Some((i, None)) if i == next => return false,
                    _ => sig.as_str(),
                };
                next += 1;
                *signature = sig.to_owned();
                *doc = stored_doc.clone();
                true
            })
        };
        assert_eq!(from_rows(&rows, None).as_deref(), Some(texts.as_str()));
        // Texts that do not fit the definitions give none, rather than another file's or
        // shifted ones: one too few, one unreadable, one longer than it was.
        assert_eq!(from_rows(&rows[1..], None), None);
        assert_eq!(from_rows(&rows, Some((0, None))), None);
        assert_eq!(from_rows(&rows, Some((0, Some("fn longer()")))), None);
        // Facts as the cache reads them hold no texts; held again, they give them.
        let mut facts = facts;
        facts.drop_uses();
        assert_eq!(facts.texts(), None);
        facts.hold_texts(&texts);
        assert_eq!(facts.texts().as_deref(), Some(texts.as_str()));
        assert_eq!(PackedTexts::pack("").unpack(), "");
    }

    #[test]
    fn definitions_and_containers_keep_their_types_by_offset_and_read_back_as_extracted() {
        let source = b"pub struct Pair(Left, Right);\n\
            pub fn join(a: Left, b: &Right) -> Pair { todo!() }\n\
            pub trait Shape: Area + Draw {}\n\
            impl Shape for Pair {}\n\
            impl<T: Area> Draw for T {}\n\
            pub fn bare() {}\n";
        let parsed = mcursor_syntax::parse_source(
            mcursor_syntax::Lang::Rust,
            source,
            &mcursor_syntax::ParseConfig::default(),
        );
        let facts = CompactFacts::from_facts(parsed.clone());
        // What was extracted, read back through the offsets.
        for (d, extracted) in facts.definitions.iter().zip(&parsed.definitions) {
            let fields: Vec<Option<TypeRef>> = (0..extracted.tuple_fields.len() + 1)
                .map(|i| facts.tuple_field(d, i).map(TypeAt::to_type_ref))
                .collect();
            let mut expected: Vec<Option<TypeRef>> =
                extracted.tuple_fields.iter().cloned().map(Some).collect();
            expected.push(None);
            assert_eq!(fields, expected, "{}", extracted.name);
            let params: Vec<Option<TypeRef>> = (0..extracted.params.len() + 1)
                .map(|i| facts.param(d, i).map(TypeAt::to_type_ref))
                .collect();
            let mut expected: Vec<Option<TypeRef>> =
                extracted.params.iter().cloned().map(Some).collect();
            expected.push(None);
            assert_eq!(params, expected, "{}", extracted.name);
        }
        let pair = facts.definitions.iter().find(|d| facts.name(d) == "Pair");
        assert!(pair.is_some_and(|d| facts.tuple_field(d, 1).is_some()));
        let join = facts.definitions.iter().find(|d| facts.name(d) == "join");
        assert!(join.is_some_and(|d| facts.param(d, 1).is_some()));
        let bare = facts.definitions.iter().find(|d| facts.name(d) == "bare");
        assert!(bare.is_some_and(|d| d.lists == NONE), "no lists, no bytes");
        assert_eq!(facts.container_count(), parsed.containers.len());
        assert!(parsed.containers.iter().any(|c| !c.supertypes.is_empty()));
        assert!(parsed.containers.iter().any(|c| c.blanket));
        for (read, extracted) in facts.containers().zip(&parsed.containers) {
            assert_eq!(read.name, extracted.name);
            assert_eq!(read.self_type.to_type_ref(), extracted.self_type);
            assert_eq!(
                read.implements.map(TypeAt::to_type_ref),
                extracted.implements
            );
            assert_eq!(
                read.supertypes()
                    .map(TypeAt::to_type_ref)
                    .collect::<Vec<_>>(),
                extracted.supertypes
            );
            assert_eq!(
                (read.is_abstract, read.blanket, read.start, read.end),
                (
                    extracted.is_abstract,
                    extracted.blanket,
                    extracted.start,
                    extracted.end
                )
            );
        }
        // Offsets that point past the lists (damage a checksum missed) read as nothing.
        let mut damaged = facts;
        for d in &mut damaged.definitions {
            d.lists = u32::MAX - 1;
        }
        for c in &mut damaged.containers {
            (c.self_type, c.implements, c.supertypes) = (u32::MAX - 1, 7_000, 7_000);
        }
        for d in &damaged.definitions {
            assert!(damaged.tuple_field(d, 0).is_none() && damaged.param(d, 0).is_none());
        }
        for c in damaged.containers() {
            assert_eq!(
                (
                    c.self_type.to_type_ref(),
                    c.implements.map(TypeAt::to_type_ref),
                    c.supertypes().count()
                ),
                (TypeRef::Unknown, Some(TypeRef::Unknown), 0)
            );
        }
    }

    #[test]
    fn a_definition_s_texts_end_at_a_nul_and_a_nul_inside_them_is_dropped() {
        let mut texts = String::new();
        let first = PackedTexts::push(&mut texts, "fn a()", "Does a.");
        let none = PackedTexts::push(&mut texts, "", "");
        let second = PackedTexts::push(&mut texts, "fn b(\0)", "");
        let third = PackedTexts::push(&mut texts, "", "Only a doc.");
        assert_eq!(none, NONE);
        assert_eq!(PackedTexts::get(&texts, first), ("fn a()", "Does a."));
        assert_eq!(PackedTexts::get(&texts, none), ("", ""));
        assert_eq!(PackedTexts::get(&texts, second), ("fn b()", ""));
        assert_eq!(PackedTexts::get(&texts, third), ("", "Only a doc."));
        // Past the texts, or cut inside them: nothing, never a neighbour's text.
        assert_eq!(PackedTexts::get(&texts, texts.len() as u32 + 5), ("", ""));
        assert_eq!(PackedTexts::get(&texts[..texts.len() - 1], third), ("", ""));
    }

    #[test]
    fn a_kept_mention_filter_answers_as_reading_every_name() {
        let facts = till_facts();
        let mut mentioned = Vec::new();
        facts.for_each_mentioned(&mut |name| mentioned.push(name.to_owned()));
        assert!(mentioned.len() > 10, "{mentioned:?}");
        let absent: Vec<String> = (0..2000).map(|i| format!("absent_{i}")).collect();
        for name in mentioned.iter().chain(&absent) {
            let set = NameSet::new([name.as_str()]);
            let read = facts.mentions(&set, false);
            assert_eq!(read, mentioned.contains(name), "{name}");
            assert_eq!(
                facts.mentions(&set, true),
                read,
                "{name}: the filter disagrees"
            );
        }
        // The filter answered most absent names alone: about 1% pass it.
        let filter = facts.mention_filter.0.get().expect("kept");
        let passed = absent
            .iter()
            .filter(|n| filter.may_contain(MentionFilter::hash(n)))
            .count();
        assert!(
            passed < 100,
            "{passed} of 2000 absent names pass the filter"
        );
        // The definitions a name types are found alike with the filter and without.
        let unfiltered = till_facts();
        for name in mentioned.iter().chain(&absent) {
            let set = NameSet::new([name.as_str()]);
            assert_eq!(
                facts.definitions_typed_by(&set),
                unfiltered.definitions_typed_by(&set),
                "{name}"
            );
        }
        assert_eq!(
            facts.definitions_typed_by(&NameSet::new(["Cart"])),
            ["cart"],
            "the field typed by `Cart`"
        );
    }

    #[test]
    fn a_name_set_finds_its_names_of_any_length() {
        let long = "x".repeat(200);
        let set = NameSet::new(["", "a", "total", long.as_str()]);
        for name in ["", "a", "total", long.as_str()] {
            assert!(set.contains(name), "{name:?}");
        }
        for name in ["b", "totals", "tota", &long[1..], "ab"] {
            assert!(!set.contains(name), "{name:?}");
        }
    }
}
