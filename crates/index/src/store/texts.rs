//! The symbols' signatures and docs in LZ4 blocks: the store's texts section.
//!
//! On `rustreg` these texts were 35.6 of the strings section's 43 MB, and they compress
//! to about 40% in blocks of 4 KiB; a query reads a few of them, a whole resolution
//! from cached facts reads them all in file order. So they are kept apart from the
//! strings (names, paths, prefixes), which lookups binary-search and must read plain.
//!
//! A symbol's signature and doc are stored as one entry, each after its length as a
//! LEB128 varint, so a symbol record holds one id for both (on `rustreg`, 510 k distinct
//! pairs take 34.2 MB where the 551 k distinct texts alone took 33.0 MB; one id where two
//! took 6.6 MB of records). An entry is stored once (found again by its hash and
//! compared with the bytes stored), whole inside one block: a block holds up to
//! [`TEXT_BLOCK`] bytes, and a longer entry gets a block of its own. An entry's id is
//! its block's number above [`BLOCK_BITS`] and its place in the block below, so a reader
//! finds its block without a search; two empty texts are `NONE` and take no bytes.
//!
//! Layout (little-endian): the block count (u32), [`TEXT_BLOCK`] (u32), per block its
//! start among the compressed bytes (u64), its compressed and its uncompressed length
//! (u32 each); then the compressed blocks back to back.

use std::ops::Range;

use super::{
    LazyBlocks, NONE, counted_bytes, decompress_exact, le_u32, le_u64, put_u32, put_u64, varint,
};

/// The bits of an entry's id that say where in its block it starts.
const BLOCK_BITS: u32 = 12;
/// The uncompressed bytes a block holds (but for one longer entry alone). A query
/// decompresses a block for each symbol whose texts it shows: `find new --limit 100000` on `rustreg`
/// shows 4,669 symbols, and with blocks of 16 KiB took 9 ms longer than with the texts
/// uncompressed. Larger blocks compress a little better (`rustreg`'s 33 MB of distinct
/// texts: 13.4 MB in blocks of 4 KiB, 12.6 in 8 KiB, 11.9 in 16 KiB).
pub(super) const TEXT_BLOCK: usize = 1 << BLOCK_BITS;
/// Block numbers fit in the id's other bits: 4 GiB of entries.
const MAX_BLOCKS: usize = 1 << (32 - BLOCK_BITS);
const HEAD: usize = 8;
const ENTRY: usize = 16;
/// How many decompressed blocks a [`RecentBlocks`] keeps (4 MiB): an entry stored again
/// is mostly one of its file's (the block being filled), otherwise a common signature
/// first stored anywhere before. On `rustreg`, of 1.16 M texts stored again (each alone,
/// before the signature and doc shared an entry), those in none of the last 256 blocks
/// used were 20 k, of the last 1,024 13 k, each a block decompressed when the store is
/// written and again when it is read in order.
const RECENT: usize = 1024;

/// The id of the entry at `at` of block `block`.
fn text_id(block: usize, at: usize) -> u32 {
    ((block as u32) << BLOCK_BITS) | at as u32
}

/// The block of entry `id` and where in it the entry starts.
fn text_place(id: u32) -> (usize, usize) {
    (
        (id >> BLOCK_BITS) as usize,
        (id & ((1 << BLOCK_BITS) - 1)) as usize,
    )
}

/// The signature and doc of the entry at `at` of `block`; `None` where they run past
/// the block or are not UTF-8.
fn texts_in(block: &[u8], at: usize) -> Option<(&str, &str)> {
    let (signature, end) = counted_bytes(block, at)?;
    let (doc, _) = counted_bytes(block, end)?;
    Some((
        std::str::from_utf8(signature).ok()?,
        std::str::from_utf8(doc).ok()?,
    ))
}

/// Blocks decompressed once and kept while they are among the last [`RECENT`] used.
#[derive(Default)]
pub(super) struct RecentBlocks {
    /// Each kept block's slot, by its key (whose block it is).
    slots_by_key: rustc_hash::FxHashMap<u64, usize>,
    slots: Vec<RecentBlock>,
    /// Counts uses, to find the least recently used slot.
    clock: u64,
}

struct RecentBlock {
    key: u64,
    bytes: Box<[u8]>,
    used: u64,
}

impl RecentBlocks {
    /// Marks block `key` used, decompressed by `load` unless it is kept (in the slot of
    /// the least recently used once [`RECENT`] are); false when `load` cannot.
    fn load(&mut self, key: u64, load: impl FnOnce() -> Option<Box<[u8]>>) -> bool {
        self.clock += 1;
        if let Some(&slot) = self.slots_by_key.get(&key) {
            self.slots[slot].used = self.clock;
            return true;
        }
        let Some(bytes) = load() else {
            return false;
        };
        let block = RecentBlock {
            key,
            bytes,
            used: self.clock,
        };
        let slot = if self.slots.len() < RECENT {
            self.slots.push(block);
            self.slots.len() - 1
        } else {
            let oldest = (0..self.slots.len())
                .min_by_key(|&slot| self.slots[slot].used)
                .unwrap_or(0);
            self.slots_by_key.remove(&self.slots[oldest].key);
            self.slots[oldest] = block;
            oldest
        };
        self.slots_by_key.insert(key, slot);
        true
    }

    fn get(&self, key: u64) -> Option<&[u8]> {
        let &slot = self.slots_by_key.get(&key)?;
        Some(&self.slots.get(slot)?.bytes)
    }

    pub(super) fn clear(&mut self) {
        self.slots_by_key.clear();
        self.slots.clear();
    }
}

/// The texts section as the store writer builds it.
#[derive(Default)]
pub(super) struct TextsBuilder {
    /// The block being filled, as it will be decompressed.
    filling: Vec<u8>,
    /// The blocks before it, compressed, each with its uncompressed length.
    sealed: Vec<(Box<[u8]>, u32)>,
    /// XXH3 of each entry stored, to its id.
    seen: rustc_hash::FxHashMap<u64, u32>,
    /// Sealed blocks decompressed again to compare an entry whose hash was seen.
    recent: RecentBlocks,
    /// The entry being added, as it is stored.
    entry: Vec<u8>,
}

impl TextsBuilder {
    /// Stores a signature and a doc (once) and returns their entry's id; `NONE` for two
    /// empty texts. Fails only past 4 GiB of entries.
    pub(super) fn add(&mut self, signature: &str, doc: &str) -> std::io::Result<u32> {
        if signature.is_empty() && doc.is_empty() {
            return Ok(NONE);
        }
        let mut entry = std::mem::take(&mut self.entry);
        entry.clear();
        for text in [signature, doc] {
            entry.extend_from_slice(&varint(text.len() as u64));
            entry.extend_from_slice(text.as_bytes());
        }
        let added = self.add_entry(&entry);
        self.entry = entry;
        added
    }

    fn add_entry(&mut self, entry: &[u8]) -> std::io::Result<u32> {
        let hash = xxhash_rust::xxh3::xxh3_64(entry);
        let seen = self.seen.get(&hash).copied();
        if let Some(id) = seen
            && self.holds(id, entry)
        {
            return Ok(id);
        }
        // Without a match, an entry whose hash was seen (a collision, about 10^-8 for a
        // large tree) is stored again, unshared.
        if !self.filling.is_empty() && self.filling.len() + entry.len() > TEXT_BLOCK {
            self.seal();
        }
        if self.sealed.len() >= MAX_BLOCKS {
            return Err(std::io::Error::other(
                "the symbols' signatures and docs outgrew the store (4 GiB)",
            ));
        }
        let id = text_id(self.sealed.len(), self.filling.len());
        self.filling.extend_from_slice(entry);
        if self.filling.len() >= TEXT_BLOCK {
            self.seal();
        }
        if seen.is_none() {
            self.seen.insert(hash, id);
        }
        Ok(id)
    }

    /// Whether entry `id` is `entry`.
    fn holds(&mut self, id: u32, entry: &[u8]) -> bool {
        let (block, at) = text_place(id);
        let Self {
            filling,
            sealed,
            recent,
            ..
        } = self;
        let bytes = if block == sealed.len() {
            &filling[..]
        } else {
            let key = block as u64;
            let decompress = || {
                let (compressed, len) = sealed.get(block)?;
                decompress(compressed, *len as usize)
            };
            if !recent.load(key, decompress) {
                return false;
            }
            recent.get(key).unwrap_or_default()
        };
        bytes.get(at..at + entry.len()) == Some(entry)
    }

    /// Compresses the block being filled.
    fn seal(&mut self) {
        if self.filling.is_empty() {
            return;
        }
        let compressed = lz4_flex::block::compress(&self.filling).into_boxed_slice();
        self.sealed.push((compressed, self.filling.len() as u32));
        self.filling.clear();
    }

    /// The section's head and block table, then its compressed blocks in order.
    pub(super) fn finish(mut self) -> (Vec<u8>, Vec<Box<[u8]>>) {
        self.seal();
        let mut head = Vec::with_capacity(HEAD + self.sealed.len() * ENTRY);
        put_u32(&mut head, self.sealed.len() as u32);
        put_u32(&mut head, TEXT_BLOCK as u32);
        let mut start = 0u64;
        for (compressed, len) in &self.sealed {
            put_u64(&mut head, start);
            put_u32(&mut head, compressed.len() as u32);
            put_u32(&mut head, *len);
            start += compressed.len() as u64;
        }
        (
            head,
            self.sealed.into_iter().map(|(block, _)| block).collect(),
        )
    }
}

/// `compressed` decompressed; `None` unless it gives exactly `len` bytes.
fn decompress(compressed: &[u8], len: usize) -> Option<Box<[u8]>> {
    decompress_exact(compressed, len).map(Vec::into_boxed_slice)
}

/// The texts section as read: its block table in the mapping, and each block once
/// decompressed by a query.
pub(super) struct TextBlocks {
    table: Range<usize>,
    data: Range<usize>,
    blocks: LazyBlocks,
}

impl TextBlocks {
    /// The texts section at `section` of `map`; `None` when its table runs past it.
    pub(super) fn open(map: &[u8], section: Range<usize>) -> Option<TextBlocks> {
        let head = map.get(section.clone())?;
        let count = le_u32(head, 0) as usize;
        let table_len = count.checked_mul(ENTRY)?.checked_add(HEAD)?;
        if head.len() < table_len || le_u32(head, 4) as usize != TEXT_BLOCK {
            return None;
        }
        Some(TextBlocks {
            table: section.start + HEAD..section.start + table_len,
            data: section.start + table_len..section.end,
            blocks: LazyBlocks::new(count),
        })
    }

    fn count(&self) -> usize {
        self.table.len() / ENTRY
    }

    /// Block `block` decompressed; `None` when it is out of range or damaged.
    fn decode(&self, map: &[u8], block: usize) -> Option<Box<[u8]>> {
        if block >= self.count() {
            return None;
        }
        let at = self.table.start + block * ENTRY;
        let start = usize::try_from(le_u64(map, at)).ok()?;
        let len = le_u32(map, at + 8) as usize;
        let data = map.get(self.data.clone())?;
        decompress(
            data.get(start..start.checked_add(len)?)?,
            le_u32(map, at + 12) as usize,
        )
    }

    /// The signature and doc of entry `id` (empty for `NONE`, and where it is damaged),
    /// its block decompressed once and kept with the store.
    pub(super) fn texts<'a>(&'a self, map: &[u8], id: u32) -> (&'a str, &'a str) {
        if id == NONE {
            return ("", "");
        }
        let (block, at) = text_place(id);
        self.blocks
            .get_or_init(block, || self.decode(map, block).unwrap_or_default())
            .and_then(|bytes| texts_in(bytes, at))
            .unwrap_or(("", ""))
    }

    /// The signature and doc of entry `id` copied into `into` (emptied first; empty for
    /// `NONE`) through `recent`, where `key` tells this section's blocks from others':
    /// for a reader of every entry, which should not keep every block. False where the
    /// entry is damaged.
    pub(super) fn copy_texts(
        &self,
        map: &[u8],
        key: u64,
        recent: &mut RecentBlocks,
        id: u32,
        into: [&mut String; 2],
    ) -> bool {
        let [signature, doc] = into;
        signature.clear();
        doc.clear();
        if id == NONE {
            return true;
        }
        let (block, at) = text_place(id);
        let key = (key << 32) | block as u64;
        if !recent.load(key, || self.decode(map, block)) {
            return false;
        }
        match recent.get(key).and_then(|bytes| texts_in(bytes, at)) {
            Some((stored_signature, stored_doc)) => {
                signature.push_str(stored_signature);
                doc.push_str(stored_doc);
                true
            }
            None => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A builder's section as a store file would hold it, opened again.
    fn written(builder: TextsBuilder) -> (Vec<u8>, TextBlocks) {
        let (head, blocks) = builder.finish();
        let mut bytes = head;
        for block in blocks {
            bytes.extend_from_slice(&block);
        }
        let section = TextBlocks::open(&bytes, 0..bytes.len()).expect("a whole section opens");
        (bytes, section)
    }

    #[test]
    fn entries_are_stored_once_whole_in_a_block_and_read_back() {
        let mut builder = TextsBuilder::default();
        assert_eq!(builder.add("", "").ok(), Some(NONE));
        let long = "x".repeat(3 * TEXT_BLOCK);
        let mut added = Vec::new();
        for i in 0..3000 {
            let signature = format!("fn f{i}(a: u32) -> u32");
            let doc = if i % 3 == 0 {
                String::new()
            } else {
                format!("Adds {i}.")
            };
            let id = builder.add(&signature, &doc).expect("fits");
            added.push((id, signature, doc));
            if i == 1000 {
                let id = builder.add("", &long).expect("fits");
                added.push((id, String::new(), long.clone()));
            }
        }
        // The same entries again, long after their blocks were sealed: the same ids; a
        // signature with another doc is another entry.
        for (id, signature, doc) in &added {
            assert_eq!(builder.add(signature, doc).ok(), Some(*id), "{signature}");
        }
        let other = builder.add(&added[0].1, "Another doc.").expect("fits");
        assert_ne!(other, added[0].0);
        let (bytes, section) = written(builder);
        assert!(section.count() > 3, "several blocks");
        for (id, signature, doc) in &added {
            let (_, at) = text_place(*id);
            assert!(at < TEXT_BLOCK);
            assert_eq!(
                section.texts(&bytes, *id),
                (signature.as_str(), doc.as_str())
            );
        }
        assert_eq!(
            section.texts(&bytes, other),
            (added[0].1.as_str(), "Another doc.")
        );
        assert_eq!(section.texts(&bytes, NONE), ("", ""));
        let mut recent = RecentBlocks::default();
        let (mut a, mut b) = ("stale".to_owned(), "stale".to_owned());
        assert!(section.copy_texts(&bytes, 1, &mut recent, added[1].0, [&mut a, &mut b]));
        assert_eq!(
            (a.as_str(), b.as_str()),
            (added[1].1.as_str(), added[1].2.as_str())
        );
        assert!(section.copy_texts(&bytes, 1, &mut recent, NONE, [&mut a, &mut b]));
        assert_eq!((a.as_str(), b.as_str()), ("", ""));
    }

    #[test]
    fn recent_blocks_keep_the_most_recently_used() {
        let mut recent = RecentBlocks::default();
        let block = |key: u64| Some(Box::from(key.to_le_bytes()));
        let bytes = |key: u64| key.to_le_bytes();
        for key in 0..RECENT as u64 {
            assert!(recent.load(key, || block(key)));
        }
        // Block 0 used again; the next one loaded takes block 1's slot, the least recent.
        assert!(recent.load(0, || panic!("kept")));
        assert!(recent.load(RECENT as u64, || block(RECENT as u64)));
        assert_eq!(recent.get(0), Some(&bytes(0)[..]));
        assert_eq!(recent.get(1), None);
        assert_eq!(recent.get(RECENT as u64), Some(&bytes(RECENT as u64)[..]));
        // A block that cannot be loaded is not kept.
        assert!(!recent.load(1, || None));
        assert_eq!(recent.get(1), None);
        recent.clear();
        assert_eq!(recent.get(0), None);
    }

    #[test]
    fn a_hash_shared_by_two_entries_stores_both() {
        let mut builder = TextsBuilder::default();
        let first = builder.add("fn a()", "").expect("fits");
        // Another entry entered under the first one's hash, as a collision would.
        let hash = xxhash_rust::xxh3::xxh3_64(b"\x06fn b()\x00");
        builder.seen.insert(hash, first);
        let second = builder.add("fn b()", "").expect("fits");
        assert_ne!(first, second);
        let (bytes, section) = written(builder);
        assert_eq!(section.texts(&bytes, first), ("fn a()", ""));
        assert_eq!(section.texts(&bytes, second), ("fn b()", ""));
    }

    #[test]
    fn damaged_sections_read_as_empty_never_panic() {
        let mut builder = TextsBuilder::default();
        let id = builder.add("fn a()", "A.").expect("fits");
        let (mut bytes, _) = written(builder);
        // A block table longer than the section is refused.
        let mut longer = bytes.clone();
        longer[0] = 200;
        assert!(TextBlocks::open(&longer, 0..longer.len()).is_none());
        // A damaged block, an id past the blocks, a length asking for too much.
        let last = bytes.len() - 1;
        bytes[last] ^= 0xFF;
        let section = TextBlocks::open(&bytes, 0..bytes.len()).expect("the table is whole");
        let _ = section.texts(&bytes, id);
        assert_eq!(section.texts(&bytes, text_id(7, 0)), ("", ""));
        assert_eq!(section.texts(&bytes, id + 3), ("", ""));
        bytes[HEAD + 12..HEAD + 16].copy_from_slice(&u32::MAX.to_le_bytes());
        let section = TextBlocks::open(&bytes, 0..bytes.len()).expect("the table is whole");
        assert_eq!(section.texts(&bytes, id), ("", ""));
    }
}
