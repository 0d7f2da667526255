//! The facts cache (`.mcursor/facts.bin`): what extraction found in every file, keyed by
//! path and content hash, so an incremental build parses only the files that changed.
//!
//! The cache is an optimisation, never a source of truth: each entry is used only when
//! its content hash matches the file's, a cache written by other extraction rules or
//! another format is ignored as a whole, and a missing or damaged cache makes the build
//! parse the files it cannot find there. It is written (temporary file, then rename)
//! before the generation it belongs to is committed.
//!
//! Layout: `MCURFACT`, the store's format version (u32), the cache's own layout version
//! (u32), the extraction fingerprint (u32 length + bytes), the entry count (u64), then
//! each entry as a u32 length, an xxh3 checksum (u64) of its bytes and the bytes, then
//! the directory (each entry's path hash and offset, u64 each, by hash) and the trailer
//! (the directory's xxh3 checksum and offset, u64 each), so that a lookup of a few paths
//! reads only their entries. An entry's bytes are two
//! postcard messages, the file's record, declarations and container heads first (the
//! path its first field), then the outcomes of its uses; each message but the
//! path is compressed as an LZ4 block of its own, each block's length before it. Last come the file's references, packed as the facts hold them
//! ([`PackedRefs`]: their own LZ4 block, unpacked only when the file is resolved, and
//! written back as they are). Entries decode in parallel, a damaged one is noticed, a
//! lookup of a few paths decompresses only theirs, and a reader that wants only the
//! declarations decompresses and decodes only the first message (the uses are most of an
//! entry's bytes; one block for both made an interface patch decompress them all).
//! Compressed, the cache of a large Rust tree is half its size. A file's definitions are
//! stored as columns (`resolve::facts::DefColumns`), read back from the decompressed
//! message they borrow. The definitions'
//! signatures and docs are not here: the store of the generation the cache belongs to
//! has them, and a resolution from cached facts reads them there
//! (`resolve::Texts`). A patch that carries a
//! file unchanged writes its entry again as stored ([`load_stored`], its content hash
//! read from the start of the head's block), without decoding it.

use std::borrow::Cow;
use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::path::Path;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::error::{IndexError, IoContext, Result};
use crate::resolve::{
    CompactFacts, ContainerHead, Declarations, DeclarationsRef, FileMemo, Outcome, PackedRefs,
    ParsedFile,
};
use crate::store::{
    FORMAT_VERSION, FileRow, MAX_EXPANSION, counted_bytes, decompress_exact, u32_at, u64_at,
};

const MAGIC: &[u8; 8] = b"MCURFACT";
/// The layout of the entries (2: compressed; 3: with the first syntax error's line; 4:
/// strings as one text, definitions' name order stored, container heads in the memo, the
/// uses after everything else; 5: the uses compressed apart; 6: the references packed
/// apart, every block's length stored; 7: `NONE` ids and lines packed small; 8: the
/// definitions' texts packed apart, inside the uses; 9: a definition's texts and type
/// lists each found by one offset; 10: a directory of the entries by path hash; 11: the
/// outcomes of the uses without their keys, which the facts give again; 12: definitions'
/// ids that are often `NONE` stored plus one; 13: no definitions' texts, which the store
/// has; 14: types and value chains as one arena of records, `resolve::written`; 15: the
/// definitions as columns, `resolve::facts::DefColumns`; 16: a file's strings stored
/// with their lengths, not their ends; 17: the references as columns,
/// `resolve::facts::RefColumns`); a cache of another layout is ignored.
const LAYOUT_VERSION: u32 = 17;
pub(crate) const CACHE_FILE: &str = "facts.bin";
/// Entries of files that patches changed since `facts.bin` was written; they win over it.
pub(crate) const PATCH_CACHE_FILE: &str = "facts-patch.bin";

/// One file's cached extraction. An entry read by [`load_declarations`] has facts
/// without their uses ([`CompactFacts::has_uses`] is false) and a memo without outcomes
/// (only its container heads); a memo without outcomes redoes no reference
/// ([`crate::resolve::rows_from_memo`] finds every use unknown).
#[derive(Debug)]
pub(crate) struct CacheEntry {
    pub path: String,
    pub hash: u64,
    pub syntax_errors: bool,
    pub first_syntax_error: Option<u32>,
    pub timed_out: bool,
    pub facts: Option<CompactFacts>,
    pub package_name: Option<String>,
    /// How the file's references and container heads resolved, for patches (see
    /// [`FileMemo`]).
    pub memo: Option<FileMemo>,
}

/// The first part of an entry as written: the file's record, its declarations and the
/// container heads its resolution recorded (what every reader takes). `hash` stays the
/// first field after `path`: [`stored_hash`] reads it without decoding the rest.
#[derive(Serialize)]
struct EntryHeadRef<'a> {
    path: &'a str,
    hash: u64,
    syntax_errors: bool,
    first_syntax_error: Option<u32>,
    timed_out: bool,
    package_name: Option<&'a str>,
    declarations: Option<DeclarationsRef<'a>>,
    heads: Option<&'a [ContainerHead]>,
}

/// [`EntryHeadRef`] as read back (postcard encodes both alike), borrowing from the
/// entry's bytes.
#[derive(Deserialize)]
struct EntryHead<'a> {
    path: String,
    hash: u64,
    syntax_errors: bool,
    first_syntax_error: Option<u32>,
    timed_out: bool,
    package_name: Option<String>,
    #[serde(borrow)]
    declarations: Option<Declarations<'a>>,
    heads: Option<Vec<ContainerHead>>,
}

/// The second part: whether the file's facts had their uses (the references after this
/// part are theirs), and how its uses resolved (what only a resolution of the file
/// itself, or a patch of it, reads).
#[derive(Serialize)]
struct EntryUsesRef<'a> {
    uses: bool,
    outcomes: Option<OutcomesRef<'a>>,
}

/// How a file's uses and named imports resolved (its memo but the heads), as written.
#[derive(Serialize)]
struct OutcomesRef<'a> {
    uses: &'a [Outcome],
    imports: &'a [Outcome],
}

/// [`OutcomesRef`] as read back.
#[derive(Deserialize, Default)]
struct Outcomes {
    uses: Vec<Outcome>,
    imports: Vec<Outcome>,
}

/// [`EntryUsesRef`] as read back.
#[derive(Deserialize)]
struct EntryUses {
    uses: bool,
    outcomes: Option<Outcomes>,
}

impl CacheEntry {
    /// Whether the store's record of the file, of the same content, has a symbol for
    /// each of this entry's definitions (`symbols`: its ids): a resolution from these
    /// facts reads their rows' texts there (see [`crate::resolve::Texts`]).
    pub fn fits(&self, symbols: &std::ops::Range<u32>) -> bool {
        self.facts
            .as_ref()
            .is_none_or(|facts| facts.definitions.len() == symbols.len())
    }

    pub fn into_parsed(self, row: FileRow) -> ParsedFile {
        ParsedFile {
            row: FileRow {
                syntax_errors: self.syntax_errors,
                first_syntax_error: self.first_syntax_error,
                timed_out: self.timed_out,
                ..row
            },
            facts: self.facts,
            package_name: self.package_name,
        }
    }
}

/// Reads the cache of `dir`; anything unreadable, foreign or damaged reads as empty.
pub(crate) fn load(dir: &Path) -> HashMap<String, CacheEntry> {
    read_entries(dir, None, Part::Whole)
}

/// The entries of just `paths`, without decoding the rest of the cache.
pub(crate) fn load_some(dir: &Path, paths: &HashSet<&str>) -> HashMap<String, CacheEntry> {
    read_entries(dir, Some(paths), Part::Whole)
}

/// Every entry without its uses (see [`CacheEntry`]), by path: what resolving some
/// files again needs of all the others. A file with an entry in both files has its
/// patch entry's.
pub(crate) fn load_declarations(dir: &Path) -> Vec<CacheEntry> {
    let mut entries: Vec<CacheEntry> =
        read_both(dir, |bytes| decode(bytes, None, Part::Declarations)).collect();
    // Stable: of two entries of one path, the patch's stays after the cache's.
    entries.sort_by(|a, b| a.path.cmp(&b.path));
    let mut by_path: Vec<CacheEntry> = Vec::with_capacity(entries.len());
    for entry in entries {
        if by_path.last().is_some_and(|last| last.path == entry.path) {
            by_path.pop();
        }
        by_path.push(entry);
    }
    by_path
}

/// How much of each entry to decode.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Part {
    Whole,
    Declarations,
}

/// The entries of the cache and its patch entries (those of `only`, when given). The
/// files are mapped, not read: the cache is replaced by renaming, never written in place,
/// and a mapping spares a copy of it (a large tree's is 150 MB).
fn read_entries(
    dir: &Path,
    only: Option<&HashSet<&str>>,
    part: Part,
) -> HashMap<String, CacheEntry> {
    read_both(dir, |bytes| decode(bytes, only, part))
        .map(|entry| (entry.path.clone(), entry))
        .collect()
}

/// What `read` makes of the cache, then of its patch entries (which win over the
/// cache's: a map collected from them in this order keeps the patch's); a file that is
/// missing, foreign or damaged gives nothing.
fn read_both<T>(dir: &Path, read: impl Fn(&[u8]) -> Option<Vec<T>>) -> impl Iterator<Item = T> {
    let read_file = |name: &str| -> Vec<T> {
        let Ok(file) = std::fs::File::open(dir.join(name)) else {
            return Vec::new();
        };
        let Ok(map) = crate::store::map_file(&file) else {
            return Vec::new();
        };
        read(&map).unwrap_or_default()
    };
    read_file(CACHE_FILE)
        .into_iter()
        .chain(read_file(PATCH_CACHE_FILE))
}

/// The entries of `paths` as stored, checked but not decoded: what a patch that carries
/// them unchanged writes again (see [`EntryToWrite::Stored`]).
pub(crate) fn load_stored(dir: &Path, paths: &HashSet<&str>) -> HashMap<String, StoredEntry> {
    read_both(dir, |bytes| {
        entry_slices(bytes, Some(paths))?
            .par_iter()
            .map(|&(checksum, slice)| {
                if xxhash_rust::xxh3::xxh3_64(slice) != checksum {
                    return None;
                }
                let (path, hash) = stored_hash(slice)?;
                let entry = StoredEntry {
                    hash,
                    checksum,
                    bytes: slice.to_vec(),
                };
                Some((path.to_owned(), entry))
            })
            .collect()
    })
    .collect()
}

/// The path and content hash of a stored entry: the hash is the first field after the
/// path, at the start of the head's block (only that block is decompressed).
fn stored_hash(stored: &[u8]) -> Option<(&str, u64)> {
    let (path, path_len) = path_prefix(stored)?;
    let (head, _) = length_prefixed(&stored[path_len..])?;
    let (hash, _): (u64, _) = postcard::take_from_bytes(&decompress_block(head)?).ok()?;
    Some((path, hash))
}

/// The path an encoded entry starts with (postcard: a varint length, then the bytes).
fn entry_path(bytes: &[u8]) -> Option<&str> {
    path_prefix(bytes).map(|(path, _)| path)
}

/// The path an encoded entry starts with and the length of its encoding.
fn path_prefix(bytes: &[u8]) -> Option<(&str, usize)> {
    let (path, end) = counted_bytes(bytes, 0)?;
    Some((std::str::from_utf8(path).ok()?, end))
}

/// An entry's two postcard messages (see the module docs), uncompressed, and its packed
/// references.
struct Encoded<'a> {
    head: Vec<u8>,
    uses: Vec<u8>,
    references: &'a [u8],
}

/// An entry as stored: the head message's path, then the head's block (the rest of the
/// head), the uses' block and the packed references, each with its length (u32) before
/// it; each block is LZ4 with its uncompressed size first.
fn compress_entry(encoded: &Encoded<'_>) -> Vec<u8> {
    let (_, path_len) = path_prefix(&encoded.head).unwrap_or(("", 0));
    let (path, rest) = encoded.head.split_at(path_len);
    let head = lz4_flex::block::compress_prepend_size(rest);
    let uses = lz4_flex::block::compress_prepend_size(&encoded.uses);
    let parts = [&head[..], &uses[..], encoded.references];
    let mut stored =
        Vec::with_capacity(path_len + parts.iter().map(|part| 4 + part.len()).sum::<usize>());
    stored.extend_from_slice(path);
    for part in parts {
        stored.extend_from_slice(&(part.len() as u32).to_le_bytes());
        stored.extend_from_slice(part);
    }
    stored
}

/// The uncompressed size a block claims; `None` past what LZ4 can expand the block to.
fn block_size(block: &[u8]) -> Option<usize> {
    let size = u32_at(block, 0)? as usize;
    (size <= block.len().saturating_mul(MAX_EXPANSION)).then_some(size)
}

/// One LZ4 block with its uncompressed size first, decompressed; `None` when damaged.
pub(crate) fn decompress_block(block: &[u8]) -> Option<Vec<u8>> {
    decompress_exact(block.get(4..)?, block_size(block)?)
}

/// The part of `bytes` that their first four bytes give the length of, and what follows.
fn length_prefixed(bytes: &[u8]) -> Option<(&[u8], &[u8])> {
    let len = u32_at(bytes, 0)? as usize;
    let part = bytes.get(4..4usize.checked_add(len)?)?;
    Some((part, &bytes[4 + len..]))
}

/// A stored entry's parts after its path (see [`compress_entry`]), each found by its
/// length. Only the head is always there: the uses and references are `None` unless the
/// three parts end where the entry does.
struct EntryParts<'a> {
    head: &'a [u8],
    uses: Option<&'a [u8]>,
    references: Option<&'a [u8]>,
}

/// A stored entry's path (its encoding: a length, then the bytes) and its parts; `None`
/// when not even the head is there whole.
fn entry_parts(stored: &[u8]) -> Option<(&[u8], EntryParts<'_>)> {
    let (_, path_len) = path_prefix(stored)?;
    let (path, after) = stored.split_at(path_len);
    let (head, rest) = length_prefixed(after)?;
    let rest = length_prefixed(rest).and_then(|(uses, rest)| {
        let (references, rest) = length_prefixed(rest)?;
        rest.is_empty().then_some((uses, references))
    });
    let parts = EntryParts {
        head,
        uses: rest.map(|(uses, _)| uses),
        references: rest.map(|(_, references)| references),
    };
    Some((path, parts))
}

/// The postcard bytes of a stored entry: the head message, and the uses after it when
/// `part` is [`Part::Whole`] (a reader of declarations decompresses only the head's
/// block), with the packed references (empty for [`Part::Declarations`]). `None` if a
/// block it reads is damaged or the entry does not end where its last part does.
fn decompress_entry(stored: &[u8], part: Part) -> Option<(Vec<u8>, &[u8])> {
    let (path, parts) = entry_parts(stored)?;
    let path_len = path.len();
    let head = parts.head;
    let head_size = block_size(head)?;
    let (uses, uses_size, references) = match part {
        Part::Whole => (parts.uses?, block_size(parts.uses?)?, parts.references?),
        Part::Declarations => (&[][..], 0, &[][..]),
    };
    // Decompressed in place after the path: one buffer per entry, no second copy.
    let mut encoded = vec![0u8; path_len + head_size + uses_size];
    encoded[..path_len].copy_from_slice(path);
    let (head_out, uses_out) = encoded[path_len..].split_at_mut(head_size);
    let written = lz4_flex::block::decompress_into(head.get(4..)?, head_out).ok()?;
    if written != head_size {
        return None;
    }
    if part == Part::Whole {
        let written = lz4_flex::block::decompress_into(uses.get(4..)?, uses_out).ok()?;
        if written != uses_size {
            return None;
        }
    }
    Some((encoded, references))
}

/// Bytes after the directory: its checksum and where it starts (u64 each).
const TRAILER: usize = 16;
/// Bytes of one directory record: an entry's path hash and where the entry starts.
const DIRECTORY_RECORD: usize = 16;

/// The hash a path is found by in a cache file's directory.
fn path_hash(path: &str) -> u64 {
    xxhash_rust::xxh3::xxh3_64(path.as_bytes())
}

/// The stored entries of a cache file (only those of `only`, when given), each with its
/// checksum; `None` for a file of another format or layout, one cut short, or one whose
/// directory is damaged. Entries of `only` are found through the directory, reading
/// those entries' bytes alone: a scan of every entry's path touched the whole mapped
/// file (on `rustreg`, 134 MB: 28 ms to find one entry under `watch`).
fn entry_slices<'a>(bytes: &'a [u8], only: Option<&HashSet<&str>>) -> Option<Vec<(u64, &'a [u8])>> {
    // The header: magic, format, layout, the extraction fingerprint after its length,
    // the entry count.
    if bytes.get(..8)? != MAGIC {
        return None;
    }
    let (version, layout) = (u32_at(bytes, 8)?, u32_at(bytes, 12)?);
    let fingerprint_len = u32_at(bytes, 16)? as usize;
    let count_at = 20usize.checked_add(fingerprint_len)?;
    let fingerprint = bytes.get(20..count_at)?;
    if version != FORMAT_VERSION
        || layout != LAYOUT_VERSION
        || fingerprint != mcursor_syntax::extraction_fingerprint().as_bytes()
    {
        return None;
    }
    let count = u64_at(bytes, count_at)?;
    let entries_start = count_at + 8;
    let directory = directory(bytes, entries_start, count)?;
    let entries_end = bytes.len() - TRAILER - directory.len();
    let entry_at = |offset: usize| -> Option<(u64, &'a [u8], usize)> {
        let len = u32_at(bytes, offset)? as usize;
        let checksum = u64_at(bytes, offset.checked_add(4)?)?;
        let start = offset.checked_add(12)?;
        let end = start.checked_add(len).filter(|&end| end <= entries_end)?;
        Some((checksum, &bytes[start..end], end))
    };
    let Some(paths) = only else {
        let mut slices = Vec::with_capacity(count.min(1 << 20) as usize);
        let mut offset = entries_start;
        for _ in 0..count {
            let (checksum, slice, end) = entry_at(offset)?;
            slices.push((checksum, slice));
            offset = end;
        }
        return (offset == entries_end).then_some(slices);
    };
    let (records, _) = directory.as_chunks::<DIRECTORY_RECORD>();
    let hash_of = |record: &[u8; DIRECTORY_RECORD]| u64_at(record, 0).unwrap_or(0);
    let mut slices = Vec::with_capacity(paths.len());
    for &path in paths {
        let hash = path_hash(path);
        let first = records.partition_point(|record| hash_of(record) < hash);
        for record in records[first..].iter().take_while(|r| hash_of(r) == hash) {
            let offset = usize::try_from(u64_at(record, 8)?).ok()?;
            if offset < entries_start {
                return None;
            }
            let (checksum, slice, _) = entry_at(offset)?;
            if entry_path(slice) == Some(path) {
                slices.push((checksum, slice));
            }
        }
    }
    Some(slices)
}

/// A cache file's directory (after the entries: each entry's path hash and offset, by
/// hash), checked against the checksum after it; `None` when it is not there whole.
fn directory(bytes: &[u8], entries_start: usize, count: u64) -> Option<&[u8]> {
    let trailer_at = bytes.len().checked_sub(TRAILER)?;
    let checksum = u64_at(bytes, trailer_at)?;
    let start = usize::try_from(u64_at(bytes, trailer_at + 8)?).ok()?;
    let len = usize::try_from(count).ok()?.checked_mul(DIRECTORY_RECORD)?;
    if start < entries_start || start.checked_add(len)? != trailer_at {
        return None;
    }
    let directory = &bytes[start..trailer_at];
    (xxhash_rust::xxh3::xxh3_64(directory) == checksum).then_some(directory)
}

/// Where a cache file's bytes go, by part of its entries (as stored: compressed).
pub(crate) struct PartSizes {
    /// The entries' paths, lengths and checksums, the header, the directory.
    pub framing: u64,
    /// The head blocks: each file's record, declarations and container heads.
    pub declarations: u64,
    /// The uses blocks: how the uses resolved.
    pub outcomes: u64,
    /// The packed references.
    pub references: u64,
}

/// The parts of the cache file at `path`, for `mcursor debug sizes`; `None` for a file
/// that is missing, foreign or damaged.
pub(crate) fn part_sizes(path: &Path) -> Option<PartSizes> {
    let file = std::fs::File::open(path).ok()?;
    let bytes = crate::store::map_file(&file).ok()?;
    let mut sizes = PartSizes {
        framing: 0,
        declarations: 0,
        outcomes: 0,
        references: 0,
    };
    for (_, slice) in entry_slices(&bytes, None)? {
        let (_, parts) = entry_parts(slice)?;
        sizes.declarations += parts.head.len() as u64;
        sizes.outcomes += parts.uses?.len() as u64;
        sizes.references += parts.references?.len() as u64;
    }
    let parts = sizes.declarations + sizes.outcomes + sizes.references;
    sizes.framing = (bytes.len() as u64).saturating_sub(parts);
    Some(sizes)
}

/// Decodes the entries (only those of `only`, when given), in the order they are stored.
fn decode(bytes: &[u8], only: Option<&HashSet<&str>>, part: Part) -> Option<Vec<CacheEntry>> {
    entry_slices(bytes, only)?
        .par_iter()
        .map(|&(checksum, slice)| {
            if xxhash_rust::xxh3::xxh3_64(slice) != checksum {
                return None;
            }
            let (encoded, references) = decompress_entry(slice, part)?;
            decode_entry(&encoded, references, part)
        })
        .collect()
}

/// One decompressed entry with its packed references; `None` if it does not decode or
/// does not hold together.
fn decode_entry(encoded: &[u8], references: &[u8], part: Part) -> Option<CacheEntry> {
    let (head, rest): (EntryHead, &[u8]) = postcard::take_from_bytes(encoded).ok()?;
    let uses = match part {
        Part::Whole => Some(postcard::from_bytes::<EntryUses>(rest).ok()?),
        Part::Declarations => None,
    };
    let (facts_uses, outcomes) = match uses {
        Some(EntryUses { uses, outcomes }) => (uses, outcomes),
        None => (false, None),
    };
    let facts = match head.declarations {
        // Facts written whole are read whole unless only their declarations are asked for.
        Some(declarations) => {
            if part == Part::Whole && !facts_uses {
                return None;
            }
            let references = facts_uses.then(|| PackedRefs::from_stored(references));
            Some(CompactFacts::from_parts(declarations, references)?)
        }
        None => None,
    };
    let memo = head.heads.map(|heads| {
        let Outcomes { uses, imports } = outcomes.unwrap_or_default();
        FileMemo {
            uses,
            imports,
            heads,
        }
    });
    Some(CacheEntry {
        path: head.path,
        hash: head.hash,
        syntax_errors: head.syntax_errors,
        first_syntax_error: head.first_syntax_error,
        timed_out: head.timed_out,
        facts,
        package_name: head.package_name,
        memo,
    })
}

/// One entry's two messages, uncompressed, and its packed references.
fn encode_entry<'a>(file: &'a ParsedFile, memo: Option<&FileMemo>) -> Encoded<'a> {
    // Only facts read whole are written (an entry read without its uses belongs to a file
    // no one resolved again, and is not rewritten).
    debug_assert!(file.facts.as_ref().is_none_or(CompactFacts::has_uses));
    let head = EntryHeadRef {
        path: &file.row.path,
        hash: file.row.hash,
        syntax_errors: file.row.syntax_errors,
        first_syntax_error: file.row.first_syntax_error,
        timed_out: file.row.timed_out,
        package_name: file.package_name.as_deref(),
        declarations: file.facts.as_ref().map(CompactFacts::declarations),
        heads: memo.map(|m| m.heads.as_slice()),
    };
    let uses = EntryUsesRef {
        uses: file.facts.as_ref().is_some_and(CompactFacts::has_uses),
        outcomes: memo.map(|m| OutcomesRef {
            uses: &m.uses,
            imports: &m.imports,
        }),
    };
    Encoded {
        head: postcard::to_stdvec(&head).unwrap_or_default(),
        uses: postcard::to_stdvec(&uses).unwrap_or_default(),
        references: file
            .facts
            .as_ref()
            .map_or(&[][..], |f| f.packed_references().as_bytes()),
    }
}

/// One file's entry as a cache file is written: encoded from its facts and memo, or
/// carried unchanged from the cache it was read from.
pub(crate) enum EntryToWrite<'a> {
    Encode(&'a ParsedFile, Option<&'a FileMemo>),
    Stored(&'a StoredEntry),
}

/// An entry as the cache stores it (compressed, with its checksum), read by
/// [`load_stored`] without being decoded.
#[derive(Debug)]
pub(crate) struct StoredEntry {
    /// The content hash of the file it was made from.
    pub hash: u64,
    checksum: u64,
    bytes: Vec<u8>,
}

/// Writes the cache of `dir` for a full resolution: every file with its memo (in the
/// same order), replacing any patch entries.
pub(crate) fn write(dir: &Path, files: &[ParsedFile], memos: &[FileMemo]) -> Result<()> {
    let entries: Vec<EntryToWrite<'_>> = files
        .iter()
        .enumerate()
        .map(|(i, f)| EntryToWrite::Encode(f, memos.get(i)))
        .collect();
    write_file(dir, CACHE_FILE, &entries)?;
    match std::fs::remove_file(dir.join(PATCH_CACHE_FILE)) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(IndexError::Io {
            path: dir.join(PATCH_CACHE_FILE),
            source: e,
        }),
        _ => Ok(()),
    }
}

/// Writes the entries of every patched file (cumulative since the last full write).
pub(crate) fn write_patch(dir: &Path, entries: &[EntryToWrite<'_>]) -> Result<()> {
    write_file(dir, PATCH_CACHE_FILE, entries)
}

fn write_file(dir: &Path, name: &str, files: &[EntryToWrite<'_>]) -> Result<()> {
    let path = dir.join(name);
    let tmp = tempfile::NamedTempFile::new_in(dir).at(dir)?;
    let mut out = std::io::BufWriter::with_capacity(1 << 20, tmp);
    let fingerprint = mcursor_syntax::extraction_fingerprint();
    let mut header = Vec::with_capacity(32 + fingerprint.len());
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    header.extend_from_slice(&LAYOUT_VERSION.to_le_bytes());
    header.extend_from_slice(&(fingerprint.len() as u32).to_le_bytes());
    header.extend_from_slice(fingerprint.as_bytes());
    header.extend_from_slice(&(files.len() as u64).to_le_bytes());
    out.write_all(&header).at(&path)?;
    let mut offset = header.len() as u64;
    // Each entry's path hash and offset, for the directory.
    let mut directory: Vec<(u64, u64)> = Vec::with_capacity(files.len());
    // Encoded in parallel a chunk at a time, so only one chunk's bytes are in memory.
    for chunk in files.chunks(256) {
        let encoded: Vec<(u64, Cow<'_, [u8]>)> = chunk
            .par_iter()
            .map(|entry| match entry {
                EntryToWrite::Encode(file, memo) => {
                    let bytes = compress_entry(&encode_entry(file, *memo));
                    (xxhash_rust::xxh3::xxh3_64(&bytes), Cow::Owned(bytes))
                }
                EntryToWrite::Stored(stored) => (stored.checksum, Cow::Borrowed(&stored.bytes[..])),
            })
            .collect();
        for (checksum, bytes) in &encoded {
            directory.push((entry_path(bytes).map_or(0, path_hash), offset));
            out.write_all(&(bytes.len() as u32).to_le_bytes())
                .at(&path)?;
            out.write_all(&checksum.to_le_bytes()).at(&path)?;
            out.write_all(bytes).at(&path)?;
            offset += 12 + bytes.len() as u64;
        }
    }
    directory.sort_unstable();
    let directory: Vec<u8> = directory
        .iter()
        .flat_map(|&(hash, at)| [hash.to_le_bytes(), at.to_le_bytes()])
        .flatten()
        .collect();
    out.write_all(&directory).at(&path)?;
    out.write_all(&xxhash_rust::xxh3::xxh3_64(&directory).to_le_bytes())
        .at(&path)?;
    out.write_all(&offset.to_le_bytes()).at(&path)?;
    let tmp = out.into_inner().map_err(|e| IndexError::Io {
        path: path.clone(),
        source: e.into_error(),
    })?;
    tmp.persist(&path).map_err(|e| IndexError::Io {
        path: path.clone(),
        source: e.error,
    })?;
    Ok(())
}

/// Files skipped for holding a NUL byte, as they were when read: while a file's size and
/// time stay, it is skipped again without being read.
pub(crate) const BINARY_FILE: &str = "binary.json";
/// Files whose size or time changed since their generation was written but whose content
/// did not (a branch switched away and back, a `touch`): while a file's size and time stay
/// as recorded here, neither an update nor a freshness check reads it again.
pub(crate) const TOUCHED_FILE: &str = "touched.json";

/// A file as it was seen when read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct SeenFile {
    pub path: String,
    pub size: u64,
    pub mtime_ns: i64,
}

impl SeenFile {
    /// Whether the file still has the size and time it had when seen.
    pub(crate) fn matches(&self, size: u64, mtime_ns: i64) -> bool {
        self.size == size && self.mtime_ns == mtime_ns
    }
}

/// The files of one of the lists above, by path (empty when unreadable).
pub(crate) fn load_seen(dir: &Path, list: &str) -> HashMap<String, SeenFile> {
    std::fs::read(dir.join(list))
        .ok()
        .and_then(|bytes| serde_json::from_slice::<Vec<SeenFile>>(&bytes).ok())
        .unwrap_or_default()
        .into_iter()
        .map(|b| (b.path.clone(), b))
        .collect()
}

pub(crate) fn write_seen(dir: &Path, list: &str, files: &[SeenFile]) -> Result<()> {
    let path = dir.join(list);
    let mut tmp = tempfile::NamedTempFile::new_in(dir).at(dir)?;
    let bytes = serde_json::to_vec(files).unwrap_or_default();
    tmp.write_all(&bytes).at(&path)?;
    tmp.persist(&path).map_err(|e| IndexError::Io {
        path: path.clone(),
        source: e.error,
    })?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(path: &str) -> ParsedFile {
        ParsedFile::rust_for_test(path, "use crate::a::b;\nfn f() { b(); }\nstruct S;\n")
    }

    #[test]
    fn entries_round_trip_with_their_lookups() {
        let dir = tempfile::tempdir().expect("tempdir");
        let written = [parsed("a.rs"), parsed("b/c.rs")];
        let memo = FileMemo {
            uses: vec![Outcome::Heuristic, Outcome::Resolved(3)],
            imports: vec![Outcome::Drop],
            heads: Vec::new(),
        };
        write(dir.path(), &written, &[memo.clone(), memo]).expect("write");
        let read = load(dir.path());
        assert_eq!(read.len(), 2);
        let a = &read["a.rs"];
        assert_eq!(a.hash, 7);
        let outcomes = |memo: &Option<FileMemo>| {
            memo.as_ref()
                .map(|m| (m.uses.clone(), m.imports.clone(), m.heads.len()))
        };
        assert_eq!(
            outcomes(&a.memo),
            Some((
                vec![Outcome::Heuristic, Outcome::Resolved(3)],
                vec![Outcome::Drop],
                0
            ))
        );
        // Read for its declarations: the same declarations, no uses, no outcomes.
        let declared = load_declarations(dir.path());
        let declared = declared.iter().find(|e| e.path == "a.rs").expect("a.rs");
        let d = declared.facts.as_ref().expect("facts");
        assert!(!d.has_uses() && d.references().is_some_and(|r| r.is_empty()));
        assert!(a.facts.as_ref().is_some_and(CompactFacts::has_uses));
        assert_eq!(d.definitions_named("S").count(), 1);
        assert_eq!(outcomes(&declared.memo), Some((vec![], vec![], 0)));
        let summary = |facts: &Option<CompactFacts>| {
            facts.as_ref().map(|f| {
                (
                    f.strings().map(str::to_owned).collect::<Vec<_>>(),
                    f.references().map(|r| r.len()),
                    f.imports.clone(),
                    f.definitions_named("S").count(),
                    f.imports_named("b").count(),
                )
            })
        };
        assert_eq!(summary(&a.facts), summary(&written[0].facts));
        assert_eq!(summary(&a.facts).map(|s| (s.3, s.4)), Some((1, 1)));
    }

    #[test]
    fn stored_entries_are_carried_into_a_patch_unchanged() {
        let dir = tempfile::tempdir().expect("tempdir");
        let memo = FileMemo {
            uses: vec![Outcome::Resolved(3)],
            imports: Vec::new(),
            heads: Vec::new(),
        };
        let (a, b) = (parsed("a.rs"), parsed("b.rs"));
        write(
            dir.path(),
            std::slice::from_ref(&a),
            std::slice::from_ref(&memo),
        )
        .expect("write");
        let stored = load_stored(dir.path(), &HashSet::from(["a.rs", "missing.rs"]));
        assert_eq!(stored.len(), 1, "only what the cache holds");
        assert_eq!(stored["a.rs"].hash, a.row.hash);
        let before = std::fs::read(dir.path().join(CACHE_FILE)).expect("read");
        let entries = [
            EntryToWrite::Stored(&stored["a.rs"]),
            EntryToWrite::Encode(&b, Some(&memo)),
        ];
        write_patch(dir.path(), &entries).expect("write patch");
        let after = std::fs::read(dir.path().join(PATCH_CACHE_FILE)).expect("read");
        // The carried entry is written byte for byte as the cache held it.
        let a_bytes = &stored["a.rs"].bytes;
        assert!(before.windows(a_bytes.len()).any(|w| w == &a_bytes[..]));
        assert!(after.windows(a_bytes.len()).any(|w| w == &a_bytes[..]));
        let read = load(dir.path());
        assert_eq!(read.len(), 2);
        assert_eq!(
            read["a.rs"].memo.as_ref().map(|m| m.uses.clone()),
            Some(memo.uses)
        );
        assert!(
            read["b.rs"]
                .facts
                .as_ref()
                .is_some_and(CompactFacts::has_uses)
        );
        // A damaged stored entry is not carried.
        let mut damaged = before.clone();
        let last = damaged.len() - 1;
        damaged[last] ^= 0x5A;
        std::fs::write(dir.path().join(CACHE_FILE), &damaged).expect("write");
        std::fs::remove_file(dir.path().join(PATCH_CACHE_FILE)).expect("remove");
        assert!(load_stored(dir.path(), &HashSet::from(["a.rs"])).is_empty());
    }

    /// Declarations come back by path whatever order the files were written in, a file
    /// in both the cache and its patch entries once, with the patch's facts.
    #[test]
    fn declarations_are_read_by_path_with_patch_entries_winning() {
        let dir = tempfile::tempdir().expect("tempdir");
        let written = [parsed("z.rs"), parsed("a.rs"), parsed("m/b.rs")];
        write(dir.path(), &written, &[]).expect("write");
        let edited = ParsedFile::rust_for_test("m/b.rs", "fn g() {}\nfn h() {}\n");
        write_patch(dir.path(), &[EntryToWrite::Encode(&edited, None)]).expect("patch");
        let read = load_declarations(dir.path());
        let paths: Vec<&str> = read.iter().map(|e| e.path.as_str()).collect();
        assert_eq!(paths, ["a.rs", "m/b.rs", "z.rs"]);
        let names = |entry: &CacheEntry| -> Vec<String> {
            let facts = entry.facts.as_ref().expect("facts");
            let names = facts.definitions.iter().map(|d| facts.name(d).to_owned());
            names.collect()
        };
        assert_eq!(names(&read[1]), ["g", "h"]);
        assert_eq!(names(&read[0]), ["f", "S"]);
    }

    #[test]
    fn a_few_entries_are_found_through_the_directory_as_a_whole_read_finds_them() {
        let dir = tempfile::tempdir().expect("tempdir");
        let files: Vec<ParsedFile> = (0..300)
            .map(|i| parsed(&format!("d{}/f{i}.rs", i % 7)))
            .collect();
        write(dir.path(), &files, &[]).expect("write");
        let whole = load(dir.path());
        assert_eq!(whole.len(), 300);
        let wanted = HashSet::from(["d0/f0.rs", "d3/f150.rs", "d5/f299.rs", "missing.rs", ""]);
        let some = load_some(dir.path(), &wanted);
        let mut found: Vec<&str> = some.keys().map(String::as_str).collect();
        found.sort_unstable();
        assert_eq!(found, ["d0/f0.rs", "d3/f150.rs", "d5/f299.rs"]);
        for (path, entry) in &some {
            assert_eq!(
                format!("{:?}", entry.facts),
                format!("{:?}", whole[path].facts)
            );
        }
        let path = dir.path().join(CACHE_FILE);
        let good = std::fs::read(&path).expect("read");
        // A directory record that points elsewhere, under a checksum made to match (a
        // hostile cache): the entry there is not the path's, so it is not found, and an
        // offset outside the entries refuses the lookup; never a panic.
        let trailer_at = good.len() - TRAILER;
        let start = u64_at(&good, trailer_at + 8).expect("offset") as usize;
        // The cache with every directory record pointing at `offset`, its checksum made
        // to match.
        let pointing_at = |offset: u64| {
            let mut bytes = good.clone();
            for record in bytes[start..trailer_at].chunks_exact_mut(DIRECTORY_RECORD) {
                record[8..].copy_from_slice(&offset.to_le_bytes());
            }
            let checksum = xxhash_rust::xxh3::xxh3_64(&bytes[start..trailer_at]);
            bytes[trailer_at..trailer_at + 8].copy_from_slice(&checksum.to_le_bytes());
            bytes
        };
        for lie in [0u64, start as u64 - 1, u64::MAX, 1 << 40] {
            let bytes = pointing_at(lie);
            let slices = entry_slices(&bytes, Some(&wanted));
            assert!(slices.is_none_or(|s| s.is_empty()), "offset {lie}");
            assert_eq!(entry_slices(&bytes, None).map(|s| s.len()), Some(300));
        }
        // Every record pointing at the first entry: only that entry's own path finds it.
        let fingerprint = mcursor_syntax::extraction_fingerprint();
        let first_entry = 8 + 4 + 4 + 4 + fingerprint.len() + 8;
        let bytes = pointing_at(first_entry as u64);
        let slices = entry_slices(&bytes, Some(&wanted)).expect("entries in range");
        let paths: Vec<Option<&str>> = slices.iter().map(|(_, s)| entry_path(s)).collect();
        assert_eq!(paths, [Some("d0/f0.rs")]);
        // A damaged directory refuses the lookup and the whole read alike.
        let mut bytes = good.clone();
        bytes[start + 3] ^= 0x5A;
        assert!(entry_slices(&bytes, Some(&wanted)).is_none());
        assert!(entry_slices(&bytes, None).is_none());
    }

    #[test]
    fn damaged_or_foreign_caches_read_as_empty() {
        let dir = tempfile::tempdir().expect("tempdir");
        write(dir.path(), &[parsed("a.rs")], &[]).expect("write");
        let path = dir.path().join(CACHE_FILE);
        let good = std::fs::read(&path).expect("read");
        for cut in [0, 5, 12, good.len() / 2, good.len() - 1] {
            std::fs::write(&path, &good[..cut]).expect("write");
            assert!(load(dir.path()).is_empty(), "cut at {cut}");
        }
        let mut flipped = good.clone();
        flipped[9] ^= 0xFF; // the format version
        std::fs::write(&path, &flipped).expect("write");
        assert!(load(dir.path()).is_empty());
        // A flipped byte anywhere is caught by the header or the entry's checksum.
        for i in 0..good.len() {
            let mut bytes = good.clone();
            bytes[i] ^= 0x5A;
            assert!(
                decode(&bytes, None, Part::Whole).is_none(),
                "flip at {i} went unnoticed"
            );
        }
    }

    #[test]
    fn entries_are_compressed_and_a_damaged_block_is_refused() {
        let file = parsed("src/a.rs");
        let encoded = encode_entry(&file, None);
        let stored = compress_entry(&encoded);
        assert_eq!(
            entry_path(&stored),
            Some("src/a.rs"),
            "the path stays readable"
        );
        let whole: Vec<u8> = [&encoded.head[..], &encoded.uses[..]].concat();
        assert!(!encoded.references.is_empty(), "the file has references");
        assert_eq!(
            decompress_entry(&stored, Part::Whole),
            Some((whole, encoded.references))
        );
        assert_eq!(
            decompress_entry(&stored, Part::Declarations),
            Some((encoded.head.clone(), &[][..])),
            "only the head's block"
        );
        let path_end = 1 + "src/a.rs".len();
        let head_at = path_end + 4;
        let head_len = u32::from_le_bytes(stored[path_end..head_at].try_into().expect("4 bytes"));
        let head_end = head_at + head_len as usize;
        let uses_at = head_end + 4;
        // A block that claims more than LZ4 can expand to is refused before allocating.
        for (at, part) in [(head_at, Part::Declarations), (uses_at, Part::Whole)] {
            let mut huge = stored.clone();
            huge[at..at + 4].copy_from_slice(&u32::MAX.to_le_bytes());
            assert_eq!(decompress_entry(&huge, part), None);
        }
        // A head that claims to run past the entry.
        let mut long = stored.clone();
        long[path_end..head_at].copy_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(decompress_entry(&long, Part::Declarations), None);
        // Cut or scrambled blocks (as a hostile cache with valid checksums would hold).
        for cut in path_end..stored.len() {
            assert_eq!(
                decompress_entry(&stored[..cut], Part::Whole),
                None,
                "cut at {cut}"
            );
            if cut < head_end {
                let head = decompress_entry(&stored[..cut], Part::Declarations);
                assert_eq!(head, None, "cut at {cut}");
            }
        }
        for i in path_end..stored.len() {
            let mut bytes = stored.clone();
            bytes[i] ^= 0xA5;
            // Either refused or decoded to other bytes: never a panic.
            for part in [Part::Whole, Part::Declarations] {
                if let Some((other, references)) = decompress_entry(&bytes, part) {
                    let decoded = decode_entry(&other, references, part);
                    let _ = decoded.and_then(|entry| entry.facts?.references());
                }
            }
        }
    }
}
