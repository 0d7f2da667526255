//! The repository's definitions grouped by name: each distinct name's id and the symbols
//! that bear it. The table owns its names' text (one buffer), so a holder of the
//! resolver's tables keeps it from one resolution to the next and brings it up to date
//! ([`NameTable::update`]) instead of making it again.
//!
//! Built by sorting rather than by a hash map filled one symbol at a time: a large tree
//! has over a million definitions under about a fifth as many names, and inserting them
//! one by one (a probe, a string compare and, for each new name, a vector of its own)
//! was the longest serial step of building the resolver's tables. Instead each symbol's
//! name is hashed while the name is at hand (the per-file pass, in parallel) into one
//! 128-bit word: the top 96 bits of its XXH3-128 hash above the symbol id. Those words are
//! sorted in parallel, and each run of equal hashes becomes one name with its symbols
//! side by side in one array, ids ascending. Grouping compares hashes, not the strings
//! (which would cost a cache miss per symbol): two different names would have to collide
//! in 96 bits to share a group, about a 10^-17 chance for a million names. Lookups go
//! through a radix table on the hash's top bits to a short run of groups and then compare
//! the name itself.
//!
//! A table made afresh numbers its names in byte order, as the store does. An update
//! keeps every id and gives each new name the next one: a patch's names are looked up
//! in the store by their text anyway, and renumbering would touch every symbol.

use rayon::prelude::*;
use rustc_hash::FxHashMap as HashMap;

use crate::store::NONE;

const SYMBOL_BITS: u32 = 32;

/// The word symbol `sid` named `name` sorts by: the name's hash above the id.
pub(super) fn key(name: &str, sid: u32) -> u128 {
    with_symbol(xxhash_rust::xxh3::xxh3_128(name.as_bytes()), sid)
}

/// `key` with the symbol id `sid` in place of its own (the same name).
pub(super) fn with_symbol(key: u128, sid: u32) -> u128 {
    (key >> SYMBOL_BITS << SYMBOL_BITS) | u128::from(sid)
}

/// The hash part of a key.
fn name_hash(key: u128) -> u128 {
    key >> SYMBOL_BITS
}

/// The symbol id part of a key.
pub(super) fn symbol(key: u128) -> u32 {
    key as u32
}

/// The top 64 bits of a key: enough to tell groups apart on lookup before comparing the
/// name.
fn high(key: u128) -> u64 {
    (key >> 64) as u64
}

/// A name's first 8 bytes as a big-endian number, zero-padded: names ordered by it are in
/// byte order wherever it differs (a shorter name's padding sorts before any byte a
/// longer one has there, as the shorter name itself does).
fn sort_prefix(name: &str) -> u64 {
    let mut bytes = [0u8; 8];
    let len = name.len().min(8);
    bytes[..len].copy_from_slice(&name.as_bytes()[..len]);
    u64::from_be_bytes(bytes)
}

/// One distinct name: its id and where its symbols start in the table's `symbols`.
#[derive(Clone, Copy)]
struct Group {
    id: u32,
    start: u32,
}

/// The groups' order by name (each name's id is its place there): sorted by each name's
/// first 8 bytes first, kept beside its group, so that most comparisons stay within the
/// array instead of reading two names from wherever their files' facts lie.
fn by_id_sorted(names: &[&str]) -> Vec<u32> {
    let mut ranked: Vec<(u64, u32)> = names
        .par_iter()
        .enumerate()
        .map(|(g, name)| (sort_prefix(name), g as u32))
        .collect();
    ranked.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| names[a.1 as usize].cmp(names[b.1 as usize]))
    });
    ranked.into_iter().map(|(_, g)| g).collect()
}

/// Every definition's name, grouped (see the module doc).
pub(super) struct NameTable {
    /// The top 64 bits of each group's name hash; the groups are in this order.
    highs: Vec<u64>,
    groups: Vec<Group>,
    /// The symbol ids of each group, ascending within a group, groups back to back.
    symbols: Vec<u32>,
    /// `radix[b]..radix[b + 1]`: the groups whose key's top `bits` bits are `b`.
    radix: Vec<u32>,
    bits: u32,
    /// Per symbol id: its name's id (`NONE`: no definition has that id).
    symbol_name: Vec<u32>,
    /// Every name ever given an id, back to back, and per id its place there.
    text: String,
    spans: Vec<(u32, u32)>,
    /// Whether the ids are the names' byte order (a table made afresh).
    in_byte_order: bool,
    /// The arrays the last update replaced, written over by the next one: copying into
    /// new arrays of that size at each update paid for fresh memory (on `rustreg`, the
    /// update's samples in a profile of 12 watched edits went 139 → 75 with these).
    spare: Spare,
}

/// [`NameTable`]'s arrays of groups, their top hash bits and their symbols, for reuse.
#[derive(Default)]
struct Spare {
    groups: Vec<Group>,
    highs: Vec<u64>,
    symbols: Vec<u32>,
}

/// `list` emptied, with room for `len` entries: its own memory when it has that much,
/// else new memory with a sixteenth more. (Growing it copied what it held, and each of
/// the first updates of a watcher asked for a little more than the arrays it reuses
/// had: on `rustreg`, 110 of 262 profile samples of the name table's updates over 10
/// watched edits were those copies and the page faults of the memory grown into.)
fn reused<T>(mut list: Vec<T>, len: usize) -> Vec<T> {
    list.clear();
    if list.capacity() < len {
        list = Vec::with_capacity(len + len / 16);
    }
    list
}

/// The radix table's slot of a group whose name hashes to `high` (see [`high`]), when
/// the slots take `bits` top bits.
#[inline]
fn radix_slot(high: u64, bits: u32) -> usize {
    (high >> (64 - bits)) as usize
}

impl NameTable {
    /// The table of symbols `0..count`, symbol `sid` named `name_of(sid)`; `keyed` holds
    /// `key(name_of(sid), sid)` for each (sorted or not). Ids follow byte order.
    pub(super) fn build<'n>(
        mut keyed: Vec<u128>,
        count: u32,
        name_of: impl Fn(u32) -> &'n str + Sync,
    ) -> NameTable {
        // The id in the low bits: each name's ids come out ascending.
        if !keyed.is_sorted() {
            keyed.par_sort_unstable();
        }
        let starts: Vec<u32> = (0..keyed.len())
            .into_par_iter()
            .filter(|&i| i == 0 || name_hash(keyed[i]) != name_hash(keyed[i - 1]))
            .map(|i| i as u32)
            .collect();
        let names: Vec<&str> = starts
            .par_iter()
            .map(|&start| name_of(symbol(keyed[start as usize])))
            .collect();
        let highs: Vec<u64> = starts
            .par_iter()
            .map(|&start| high(keyed[start as usize]))
            .collect();
        let symbols: Vec<u32> = keyed.par_iter().map(|&k| symbol(k)).collect();
        drop(keyed);
        let mut groups: Vec<Group> = starts.iter().map(|&start| Group { id: 0, start }).collect();
        drop(starts);
        let by_id = by_id_sorted(&names);
        let mut text = String::with_capacity(names.iter().map(|n| n.len()).sum());
        let mut spans = Vec::with_capacity(names.len());
        for (id, &g) in by_id.iter().enumerate() {
            groups[g as usize].id = id as u32;
            let name = names[g as usize];
            spans.push((text.len() as u32, name.len() as u32));
            text.push_str(name);
        }
        let mut symbol_name = vec![NONE; count as usize];
        for (g, group) in groups.iter().enumerate() {
            for &sid in &symbols[run(&groups, g, symbols.len())] {
                if let Some(slot) = symbol_name.get_mut(sid as usize) {
                    *slot = group.id;
                }
            }
        }
        let mut table = NameTable {
            highs,
            groups,
            symbols,
            radix: Vec::new(),
            bits: 1,
            symbol_name,
            text,
            spans,
            in_byte_order: true,
            spare: Spare::default(),
        };
        table.index_radix();
        table
    }

    /// How many top hash bits the radix table's slots take: about one group per slot.
    fn radix_bits(&self) -> u32 {
        (usize::BITS - self.groups.len().leading_zeros()).clamp(1, 24)
    }

    /// The radix table over the groups' top hash bits, about one group per slot.
    fn index_radix(&mut self) {
        let bits = self.radix_bits();
        let mut radix = reused(std::mem::take(&mut self.radix), (1usize << bits) + 1);
        let mut at = 0usize;
        for slot in 0..=(1usize << bits) {
            while at < self.highs.len() && radix_slot(self.highs[at], bits) < slot {
                at += 1;
            }
            radix.push(at as u32);
        }
        self.radix = radix;
        self.bits = bits;
    }

    /// The radix table brought up to date in place after groups whose top hash bits are
    /// `inserted` were added and `removed` left: each slot after such a group's counts it
    /// one more or one less, a pass over the slots from the first change instead of a
    /// walk of every group (most of an update's time on a tree of 1.6 M definitions). As
    /// made afresh unless the slots' width changes with the count of groups.
    fn shift_radix(&mut self, inserted: &[u64], removed: &[u64]) {
        let bits = self.radix_bits();
        if bits != self.bits || self.radix.len() != (1usize << bits) + 1 {
            self.index_radix();
            return;
        }
        let mut changes: Vec<(usize, i64)> = inserted
            .iter()
            .map(|&h| (radix_slot(h, bits), 1))
            .chain(removed.iter().map(|&h| (radix_slot(h, bits), -1)))
            .collect();
        changes.sort_unstable();
        let Some(&(first, _)) = changes.first() else {
            return;
        };
        let mut changes = changes.into_iter().peekable();
        let mut delta = 0i64;
        for (slot, entry) in self.radix.iter_mut().enumerate().skip(first + 1) {
            while let Some((_, change)) = changes.next_if(|&(at, _)| at < slot) {
                delta += change;
            }
            *entry = (i64::from(*entry) + delta) as u32;
        }
        #[cfg(debug_assertions)]
        {
            let shifted = self.radix.clone();
            self.index_radix();
            assert_eq!(shifted, self.radix, "radix table shifted in place");
        }
    }

    /// Brings the table to symbols `0..count`: those in `gone` (sorted, disjoint ranges)
    /// lose their names and those of `added` (each `(key(name, sid), name)`, any order)
    /// join; a name no symbol bears any more keeps its id, a new name takes the next
    /// one. The same groups, symbols and names (by text) as a table made afresh from
    /// every symbol now; only the ids of names differ. A pass of copies over the
    /// groups and symbols, where making the table hashes, sorts and groups every
    /// definition.
    pub(super) fn update(
        &mut self,
        gone: &[std::ops::Range<u32>],
        added: &[(u128, &str)],
        count: u32,
    ) {
        let in_gone = |sid: u32| super::kept::in_ranges(gone, sid);
        // The groups that lose or gain symbols, by position, with what they gain.
        let mut touched: HashMap<u32, Vec<u32>> = HashMap::default();
        for range in gone {
            for sid in range.clone() {
                let Some(slot) = self.symbol_name.get_mut(sid as usize) else {
                    break;
                };
                let id = std::mem::replace(slot, NONE);
                if id == NONE {
                    continue;
                }
                let (at, len) = self.spans[id as usize];
                let name = &self.text[at as usize..(at + len) as usize];
                if let Some(g) = self.group(name) {
                    touched.entry(g as u32).or_default();
                }
            }
        }
        let mut added: Vec<(u128, &str)> = added.to_vec();
        added.sort_unstable_by_key(|&(key, _)| key);
        // New names: (top hash bits, id, symbols ascending), in hash order.
        let mut fresh: Vec<(u64, u32, Vec<u32>)> = Vec::new();
        // The top hash bits of the groups added and of those left empty.
        let mut removed: Vec<u64> = Vec::new();
        let mut last_fresh: Option<u128> = None;
        for &(key, name) in &added {
            let sid = symbol(key);
            match self.group(name) {
                Some(g) => touched.entry(g as u32).or_default().push(sid),
                None if last_fresh == Some(name_hash(key)) => {
                    if let Some((_, _, sids)) = fresh.last_mut() {
                        sids.push(sid);
                    }
                }
                None => {
                    let id = self.spans.len() as u32;
                    self.spans.push((self.text.len() as u32, name.len() as u32));
                    self.text.push_str(name);
                    fresh.push((high(key), id, vec![sid]));
                    last_fresh = Some(name_hash(key));
                }
            }
        }
        let named_anew = !fresh.is_empty();
        let inserted: Vec<u64> = fresh.iter().map(|f| f.0).collect();
        // Within one top-bits value the order does not matter (a lookup compares names).
        fresh.sort_by_key(|f| f.0);
        let mut touched: Vec<(u32, Vec<u32>)> = touched.into_iter().collect();
        touched.sort_unstable_by_key(|t| t.0);
        // The groups made again: untouched runs of groups are copied whole between the
        // touched ones and the new ones.
        let old_groups = std::mem::take(&mut self.groups);
        let old_highs = std::mem::take(&mut self.highs);
        let old_symbols = std::mem::take(&mut self.symbols);
        let spare = std::mem::take(&mut self.spare);
        let mut groups = reused(spare.groups, old_groups.len() + fresh.len());
        let mut highs = reused(spare.highs, old_groups.len() + fresh.len());
        let mut symbols = reused(spare.symbols, old_symbols.len() + added.len());
        let mut fresh = fresh.into_iter().peekable();
        let mut touched = touched.into_iter().peekable();
        let mut g = 0usize;
        while g < old_groups.len() {
            // The next place something changes: a touched group, or a new one going
            // before group `stop`.
            let next_touched = touched.peek().map_or(old_groups.len(), |t| t.0 as usize);
            let next_fresh = fresh.peek().map_or(old_groups.len(), |f| {
                g + old_highs[g..].partition_point(|&h| h <= f.0)
            });
            let stop = next_touched.min(next_fresh);
            if stop > g {
                let from = old_groups[g].start as usize;
                let to = old_groups
                    .get(stop)
                    .map_or(old_symbols.len(), |s| s.start as usize);
                let shift = symbols.len() as i64 - from as i64;
                groups.extend(old_groups[g..stop].iter().map(|group| Group {
                    id: group.id,
                    start: (i64::from(group.start) + shift) as u32,
                }));
                highs.extend_from_slice(&old_highs[g..stop]);
                symbols.extend_from_slice(&old_symbols[from..to]);
                g = stop;
                continue;
            }
            if next_fresh == g {
                if let Some((high, id, sids)) = fresh.next() {
                    groups.push(Group {
                        id,
                        start: symbols.len() as u32,
                    });
                    highs.push(high);
                    symbols.extend(sids);
                }
                continue;
            }
            let Some((_, gained)) = touched.next() else {
                break;
            };
            let start = symbols.len();
            let mut gained = gained.into_iter().peekable();
            for &sid in &old_symbols[run(&old_groups, g, old_symbols.len())] {
                if in_gone(sid) {
                    continue;
                }
                while let Some(next) = gained.next_if(|&next| next < sid) {
                    symbols.push(next);
                }
                symbols.push(sid);
            }
            symbols.extend(gained);
            if symbols.len() > start {
                groups.push(Group {
                    id: old_groups[g].id,
                    start: start as u32,
                });
                highs.push(old_highs[g]);
            } else {
                removed.push(old_highs[g]);
            }
            g += 1;
        }
        for (high, id, sids) in fresh {
            groups.push(Group {
                id,
                start: symbols.len() as u32,
            });
            highs.push(high);
            symbols.extend(sids);
        }
        self.groups = groups;
        self.highs = highs;
        self.symbols = symbols;
        self.spare = Spare {
            groups: old_groups,
            highs: old_highs,
            symbols: old_symbols,
        };
        self.shift_radix(&inserted, &removed);
        self.symbol_name.resize(count as usize, NONE);
        for &(key, name) in &added {
            if let Some(g) = self.group(name) {
                let id = self.groups[g].id;
                if let Some(slot) = self.symbol_name.get_mut(symbol(key) as usize) {
                    *slot = id;
                }
            }
        }
        // New names take ids past the others', and a name gone leaves its id unused.
        self.in_byte_order =
            self.in_byte_order && !named_anew && self.spans.len() == self.groups.len();
    }

    fn group(&self, name: &str) -> Option<usize> {
        let high = high(key(name, 0));
        let slot = radix_slot(high, self.bits);
        let (start, end) = (*self.radix.get(slot)?, *self.radix.get(slot + 1)?);
        (start as usize..end as usize)
            .find(|&g| self.highs[g] == high && self.name(self.groups[g].id) == name)
    }

    fn group_symbols(&self, g: usize) -> &[u32] {
        &self.symbols[run(&self.groups, g, self.symbols.len())]
    }

    /// The name whose id is `id` ("" for an id never given).
    pub(super) fn name(&self, id: u32) -> &str {
        self.spans
            .get(id as usize)
            .and_then(|&(at, len)| self.text.get(at as usize..(at + len) as usize))
            .unwrap_or("")
    }

    /// The id of `name`, if some definition bears it.
    pub(super) fn id(&self, name: &str) -> Option<u32> {
        self.group(name).map(|g| self.groups[g].id)
    }

    /// Whether some definition bears `name`.
    pub(super) fn contains(&self, name: &str) -> bool {
        self.group(name).is_some()
    }

    /// The definitions named `name`, ascending (empty when there are none).
    pub(super) fn symbols_named(&self, name: &str) -> &[u32] {
        self.group(name).map_or(&[], |g| self.group_symbols(g))
    }

    /// The name id of symbol `sid` (`None`: no definition has that id).
    pub(super) fn id_of_symbol(&self, sid: u32) -> Option<u32> {
        self.symbol_name
            .get(sid as usize)
            .copied()
            .filter(|&id| id != NONE)
    }

    /// The name of symbol `sid` ("" when no definition has that id).
    pub(super) fn name_of_symbol(&self, sid: u32) -> &str {
        self.id_of_symbol(sid).map_or("", |id| self.name(id))
    }

    /// Each symbol's name id, by symbol id, taken out of the table (which then has none).
    pub(super) fn take_symbol_names(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.symbol_name)
    }

    /// Every name in id order, when the ids are the names' byte order (a table made
    /// afresh; `None` after an update gave new names ids or left ids unused).
    pub(super) fn sorted(&self) -> Option<impl Iterator<Item = &str> + '_> {
        self.in_byte_order
            .then(|| (0..self.spans.len() as u32).map(|id| self.name(id)))
    }
}

/// Where group `g`'s symbols lie in the symbols array (`len` entries long).
fn run(groups: &[Group], g: usize, len: usize) -> std::ops::Range<usize> {
    let end = groups.get(g + 1).map_or(len, |next| next.start as usize);
    groups[g].start as usize..end
}
#[cfg(test)]
mod tests {
    use super::*;

    fn table(names: &[&str]) -> NameTable {
        let keyed = (0..names.len()).map(|i| key(names[i], i as u32)).collect();
        NameTable::build(keyed, names.len() as u32, |sid| names[sid as usize])
    }

    #[test]
    fn groups_symbols_by_name_with_ids_in_sorted_order() {
        let names = ["parse", "Value", "parse", "new", "Value", "parse"];
        let t = table(&names);
        assert!(t.sorted().expect("afresh").eq(["Value", "new", "parse"]));
        assert_eq!(t.id("Value"), Some(0));
        assert_eq!(t.id("new"), Some(1));
        assert_eq!(t.id("parse"), Some(2));
        assert_eq!(t.symbols_named("parse"), [0, 2, 5]);
        assert_eq!(t.symbols_named("Value"), [1, 4]);
        assert_eq!(t.symbols_named("absent"), [] as [u32; 0]);
        assert!(t.contains("new"));
        assert!(!t.contains("ne"));
        assert_eq!(
            (0..6).map(|s| t.id_of_symbol(s)).collect::<Vec<_>>(),
            [2, 0, 2, 1, 0, 2].map(Some)
        );
        assert_eq!(t.id_of_symbol(6), None);
        assert_eq!(t.name_of_symbol(3), "new");
    }

    #[test]
    fn ids_follow_byte_order_across_the_first_eight_bytes() {
        // Names equal in their first 8 bytes, shorter than 8, a NUL, bytes past ASCII.
        let names = [
            "abcdefghj",
            "abcdefgh",
            "abcdefghi",
            "ab",
            "ab\0",
            "a",
            "",
            "abcdefgg",
            "é",
            "zz",
            "abcdefgh\u{1}",
            "Ab",
        ];
        let t = table(&names);
        let mut sorted = names.to_vec();
        sorted.sort_unstable();
        assert!(t.sorted().expect("afresh").eq(sorted.iter().copied()));
        for (id, name) in sorted.iter().enumerate() {
            assert_eq!(t.id(name), Some(id as u32), "{name:?}");
        }
    }

    /// Symbol `sid` of `names` is `names[sid]`; `None`: no definition has that id.
    fn assert_same_groups(updated: &NameTable, names: &[Option<&str>]) {
        let present: Vec<&str> = names.iter().flatten().copied().collect();
        for name in &present {
            let expected: Vec<u32> = (0..names.len() as u32)
                .filter(|&sid| names[sid as usize] == Some(*name))
                .collect();
            assert_eq!(updated.symbols_named(name), expected, "{name:?}");
        }
        for (sid, name) in names.iter().enumerate() {
            assert_eq!(
                updated.name_of_symbol(sid as u32),
                name.unwrap_or(""),
                "{sid}"
            );
        }
        let distinct: std::collections::BTreeSet<&str> = present.iter().copied().collect();
        assert_eq!(updated.groups.len(), distinct.len());
    }

    #[test]
    fn an_update_groups_as_a_table_made_afresh_does() {
        // Ids 0..8; the file of ids 2..5 changes (its room runs to 5), and the one of
        // 7..8 goes empty; ids 8..10 are new room.
        let before = [
            "parse", "new", "gone", "Value", "parse", "zz", "new", "only",
        ];
        let mut t = table(&before);
        let added = [
            (2, "parse"),
            (3, "AAA"),
            (4, "new"),
            (8, "fresh"),
            (9, "AAA"),
        ];
        let keyed: Vec<(u128, &str)> = added.iter().map(|&(sid, n)| (key(n, sid), n)).collect();
        t.update(&[2..5, 7..8], &keyed, 10);
        let now = [
            Some("parse"),
            Some("new"),
            Some("parse"),
            Some("AAA"),
            Some("new"),
            Some("zz"),
            Some("new"),
            None,
            Some("fresh"),
            Some("AAA"),
        ];
        assert_same_groups(&t, &now);
        // Ids kept; new names after every earlier one; gone names' ids unused.
        assert_eq!(t.id("parse"), Some(4));
        assert_eq!(t.id("gone"), None);
        assert_eq!(t.id("only"), None);
        assert!(t.id("AAA").is_some_and(|id| id >= 6));
        assert!(t.sorted().is_none(), "ids are no longer byte order");
        // A second update over the first: a name gone and back, a file emptied.
        t.update(&[0..2, 8..10], &[(key("gone", 0), "gone")], 10);
        let later = [
            Some("gone"),
            None,
            Some("parse"),
            Some("AAA"),
            Some("new"),
            Some("zz"),
            Some("new"),
            None,
            None,
            None,
        ];
        assert_same_groups(&t, &later);
    }

    #[test]
    fn an_update_that_names_nothing_anew_keeps_byte_order() {
        let mut t = table(&["b", "a", "c"]);
        let first = 0..1;
        t.update(std::slice::from_ref(&first), &[(key("c", 0), "c")], 3);
        assert_eq!(t.symbols_named("c"), [0, 2]);
        assert_eq!(t.id("b"), None);
        assert!(t.sorted().is_none(), "b's id is unused");
        let mut t = table(&["b", "a", "c"]);
        t.update(std::slice::from_ref(&first), &[(key("b", 0), "b")], 3);
        assert!(t.sorted().expect("same names").eq(["a", "b", "c"]));
    }

    #[test]
    fn many_names_updated_are_all_found() {
        // Enough names that radix slots hold several groups and some hold none.
        let owned: Vec<String> = (0..5000).map(|i| format!("name_{}", i % 1700)).collect();
        let names: Vec<&str> = owned.iter().map(String::as_str).collect();
        let mut t = table(&names);
        let renamed: Vec<String> = (1000..1500).map(|i| format!("other_{}", i % 300)).collect();
        let added: Vec<(u128, &str)> = renamed
            .iter()
            .enumerate()
            .map(|(i, n)| (key(n, 1000 + i as u32), n.as_str()))
            .collect();
        let renamed_ids = 1000..1500;
        t.update(std::slice::from_ref(&renamed_ids), &added, 5000);
        let mut now: Vec<Option<&str>> = names.iter().copied().map(Some).collect();
        for (i, n) in renamed.iter().enumerate() {
            now[1000 + i] = Some(n);
        }
        assert_same_groups(&t, &now);
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let t = table(&[]);
        assert_eq!(t.id(""), None);
        assert_eq!(t.sorted().expect("afresh").count(), 0);
    }

    #[test]
    fn many_names_are_all_found() {
        // Enough names that radix slots hold several groups and some hold none.
        let owned: Vec<String> = (0..5000).map(|i| format!("name_{}", i % 1700)).collect();
        let names: Vec<&str> = owned.iter().map(String::as_str).collect();
        let t = table(&names);
        let mut sorted: Vec<&str> = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert!(t.sorted().expect("afresh").eq(sorted.iter().copied()));
        for (sid, name) in names.iter().enumerate() {
            let list = t.symbols_named(name);
            assert!(list.contains(&(sid as u32)));
            assert!(list.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(t.id_of_symbol(sid as u32), t.id(name));
        }
    }
}
