//! The symbols' signatures and docs in LZ4 blocks: the store's texts section.
//!
//! On `rustreg` these texts were 35.6 of the strings section's 43 MB, and they compress
//! to about 40% in blocks of 4 KiB; a query reads a few of them, a whole resolution
//! from cached facts reads them all in file order. So they are kept apart from the
//! strings (names, paths, prefixes), which lookups binary-search and must read plain.
//!
//! A text is stored once (found again by its hash and compared with the bytes stored),
//! after its length as a LEB128 varint, whole inside one block: a block holds up to
//! [`TEXT_BLOCK`] bytes, and a longer text gets a block of its own. A text's id is its
//! block's number above [`BLOCK_BITS`] and its place in the block below, so a reader
//! finds its block without a search; the empty text is `NONE` and takes no bytes.
//!
//! Layout (little-endian): the block count (u32), [`TEXT_BLOCK`] (u32), per block its
//! start among the compressed bytes (u64), its compressed and its uncompressed length
//! (u32 each); then the compressed blocks back to back.

use std::ops::Range;

use super::{LazyBlocks, NONE, counted_bytes, le_u32, le_u64, put_u32, put_u64, varint};

/// The bits of a text's id that say where in its block it starts.
const BLOCK_BITS: u32 = 12;
/// The uncompressed bytes a block holds (but for one longer text alone). A query
/// decompresses a block for each text it shows: `find new --limit 100000` on `rustreg`
/// shows 4,669 symbols, and with blocks of 16 KiB took 9 ms longer than with the texts
/// uncompressed. Larger blocks compress a little better (`rustreg`'s 33 MB of distinct
/// texts: 13.4 MB in blocks of 4 KiB, 12.6 in 8 KiB, 11.9 in 16 KiB).
pub(super) const TEXT_BLOCK: usize = 1 << BLOCK_BITS;
/// Block numbers fit in the id's other bits: 4 GiB of texts.
const MAX_BLOCKS: usize = 1 << (32 - BLOCK_BITS);
const HEAD: usize = 8;
const ENTRY: usize = 16;
/// How many decompressed blocks a [`RecentBlocks`] keeps (4 MiB): a text stored again is
/// mostly one of its file's (the block being filled), otherwise a common signature first
/// stored anywhere before. On `rustreg`, of 1.16 M texts stored again, those in none of
/// the last 256 blocks used were 20 k, of the last 1,024 13 k, each a block
/// decompressed when the store is written and again when it is read in order.
const RECENT: usize = 1024;

/// The id of the text at `at` of block `block`.
fn text_id(block: usize, at: usize) -> u32 {
    ((block as u32) << BLOCK_BITS) | at as u32
}

/// The block of text `id` and where in it the text starts.
fn text_place(id: u32) -> (usize, usize) {
    (
        (id >> BLOCK_BITS) as usize,
        (id & ((1 << BLOCK_BITS) - 1)) as usize,
    )
}

/// The counted text at `at` of `block` as a string; `None` where it runs past the block or
/// is not UTF-8.
fn text_in(block: &[u8], at: usize) -> Option<&str> {
    counted_bytes(block, at).and_then(|(text, _)| std::str::from_utf8(text).ok())
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
    /// XXH3 of each text stored, to its id.
    seen: rustc_hash::FxHashMap<u64, u32>,
    /// Sealed blocks decompressed again to compare a text whose hash was seen.
    recent: RecentBlocks,
}

impl TextsBuilder {
    /// Stores `text` (once) and returns its id; `NONE` for the empty text. Fails only past
    /// 4 GiB of texts.
    pub(super) fn add(&mut self, text: &str) -> std::io::Result<u32> {
        if text.is_empty() {
            return Ok(NONE);
        }
        let hash = xxhash_rust::xxh3::xxh3_64(text.as_bytes());
        let seen = self.seen.get(&hash).copied();
        if let Some(id) = seen
            && self.holds(id, text)
        {
            return Ok(id);
        }
        // Without a match, a text whose hash was seen (a collision, about 10^-8 for a
        // large tree) is stored again, unshared.
        let length = varint(text.len() as u64);
        if !self.filling.is_empty() && self.filling.len() + length.len() + text.len() > TEXT_BLOCK {
            self.seal();
        }
        if self.sealed.len() >= MAX_BLOCKS {
            return Err(std::io::Error::other(
                "the symbols' signatures and docs outgrew the store (4 GiB)",
            ));
        }
        let id = text_id(self.sealed.len(), self.filling.len());
        self.filling.extend_from_slice(&length);
        self.filling.extend_from_slice(text.as_bytes());
        if self.filling.len() >= TEXT_BLOCK {
            self.seal();
        }
        if seen.is_none() {
            self.seen.insert(hash, id);
        }
        Ok(id)
    }

    /// Whether text `id` is `text`.
    fn holds(&mut self, id: u32, text: &str) -> bool {
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
        text_in(bytes, at) == Some(text)
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
    // LZ4 cannot expand more than 255 times: a damaged length asks for no more than that.
    if len > compressed.len().saturating_mul(255).max(TEXT_BLOCK) {
        return None;
    }
    let mut out = vec![0u8; len];
    match lz4_flex::block::decompress_into(compressed, &mut out) {
        Ok(n) if n == len => Some(out.into_boxed_slice()),
        _ => None,
    }
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

    /// Text `id` (empty for `NONE`, and where it is damaged), its block decompressed
    /// once and kept with the store.
    pub(super) fn text<'a>(&'a self, map: &[u8], id: u32) -> &'a str {
        if id == NONE {
            return "";
        }
        let (block, at) = text_place(id);
        self.blocks
            .get_or_init(block, || self.decode(map, block).unwrap_or_default())
            .and_then(|bytes| text_in(bytes, at))
            .unwrap_or("")
    }

    /// Texts `ids` copied into `into` (emptied first; empty for `NONE`) through `recent`,
    /// where `key` tells this section's blocks from others': for a reader of every text,
    /// which should not keep every block. False where one is damaged.
    pub(super) fn copy_texts(
        &self,
        map: &[u8],
        key: u64,
        recent: &mut RecentBlocks,
        ids: [u32; 2],
        into: [&mut String; 2],
    ) -> bool {
        let key_of = |block: usize| (key << 32) | block as u64;
        for (id, text) in ids.into_iter().zip(into) {
            text.clear();
            if id == NONE {
                continue;
            }
            let (block, at) = text_place(id);
            if !recent.load(key_of(block), || self.decode(map, block)) {
                return false;
            }
            match recent
                .get(key_of(block))
                .and_then(|bytes| text_in(bytes, at))
            {
                Some(stored) => text.push_str(stored),
                None => return false,
            }
        }
        true
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
    fn texts_are_stored_once_whole_in_a_block_and_read_back() {
        let mut builder = TextsBuilder::default();
        assert_eq!(builder.add("").ok(), Some(NONE));
        let long = "x".repeat(3 * TEXT_BLOCK);
        let mut added = Vec::new();
        for i in 0..3000 {
            let text = format!("fn f{i}(a: u32) -> u32");
            added.push((builder.add(&text).expect("fits"), text));
            if i == 1000 {
                added.push((builder.add(&long).expect("fits"), long.clone()));
            }
        }
        // The same texts again, long after their blocks were sealed: the same ids.
        for (id, text) in &added {
            assert_eq!(builder.add(text).ok(), Some(*id), "{text}");
        }
        let (bytes, section) = written(builder);
        assert!(section.count() > 3, "several blocks");
        for (id, text) in &added {
            let (_, at) = text_place(*id);
            assert!(at < TEXT_BLOCK);
            assert_eq!(section.text(&bytes, *id), text);
        }
        assert_eq!(section.text(&bytes, NONE), "");
        let mut recent = RecentBlocks::default();
        let (mut a, mut b) = (String::new(), "stale".to_owned());
        let ids = [added[0].0, NONE];
        assert!(section.copy_texts(&bytes, 1, &mut recent, ids, [&mut a, &mut b]));
        assert_eq!((a.as_str(), b.as_str()), (added[0].1.as_str(), ""));
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
    fn a_hash_shared_by_two_texts_stores_both() {
        let mut builder = TextsBuilder::default();
        let first = builder.add("fn a()").expect("fits");
        // Another text entered under the first one's hash, as a collision would.
        let hash = xxhash_rust::xxh3::xxh3_64(b"fn b()");
        builder.seen.insert(hash, first);
        let second = builder.add("fn b()").expect("fits");
        assert_ne!(first, second);
        let (bytes, section) = written(builder);
        assert_eq!(section.text(&bytes, first), "fn a()");
        assert_eq!(section.text(&bytes, second), "fn b()");
    }

    #[test]
    fn damaged_sections_read_as_empty_never_panic() {
        let mut builder = TextsBuilder::default();
        let id = builder.add("fn a()").expect("fits");
        let (mut bytes, _) = written(builder);
        // A block table longer than the section is refused.
        let mut longer = bytes.clone();
        longer[0] = 200;
        assert!(TextBlocks::open(&longer, 0..longer.len()).is_none());
        // A damaged block, an id past the blocks, a length asking for too much.
        let last = bytes.len() - 1;
        bytes[last] ^= 0xFF;
        let section = TextBlocks::open(&bytes, 0..bytes.len()).expect("the table is whole");
        let _ = section.text(&bytes, id);
        assert_eq!(section.text(&bytes, text_id(7, 0)), "");
        assert_eq!(section.text(&bytes, id + 3), "");
        bytes[HEAD + 12..HEAD + 16].copy_from_slice(&u32::MAX.to_le_bytes());
        let section = TextBlocks::open(&bytes, 0..bytes.len()).expect("the table is whole");
        assert_eq!(section.text(&bytes, id), "");
    }
}
