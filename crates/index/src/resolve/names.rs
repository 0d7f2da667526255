//! The repository's definitions grouped by name: each distinct name's id (its rank in
//! sorted order, as the store numbers names) and the symbols that bear it.
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

use rayon::prelude::*;

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

/// One distinct name.
struct Group<'a> {
    name: &'a str,
    id: u32,
    /// Its symbols are `symbols[start..next group's start]`.
    start: u32,
}

/// Where group `g`'s symbols lie in the symbols array (`len` entries long).
fn group_range(groups: &[Group], g: usize, len: usize) -> std::ops::Range<usize> {
    let end = groups.get(g + 1).map_or(len, |next| next.start as usize);
    groups[g].start as usize..end
}

/// Every definition's name, grouped (see the module doc).
pub(super) struct NameTable<'a> {
    /// Ordered by key.
    groups: Vec<Group<'a>>,
    /// The top 64 bits of each group's key.
    highs: Vec<u64>,
    /// The symbol ids of each group, ascending within a group, groups back to back.
    symbols: Vec<u32>,
    /// `radix[b]..radix[b + 1]`: the groups whose key's top `bits` bits are `b`.
    radix: Vec<u32>,
    bits: u32,
    /// Per symbol id: its name's id.
    symbol_name: Vec<u32>,
    /// Per name id: the group holding that name.
    by_id: Vec<u32>,
}

impl<'a> NameTable<'a> {
    /// The table of symbols `0..count`, symbol `sid` named `name_of(sid)`; `keyed` holds
    /// `key(name_of(sid), sid)` for each (sorted or not). The keys come back sorted with
    /// `keep_keys`.
    pub(super) fn build(
        mut keyed: Vec<u128>,
        count: u32,
        name_of: impl Fn(u32) -> &'a str + Sync,
        keep_keys: bool,
    ) -> (NameTable<'a>, Option<Vec<u128>>) {
        // The id in the low bits: each name's ids come out ascending.
        if !keyed.is_sorted() {
            keyed.par_sort_unstable();
        }
        let starts: Vec<u32> = (0..keyed.len())
            .into_par_iter()
            .filter(|&i| i == 0 || name_hash(keyed[i]) != name_hash(keyed[i - 1]))
            .map(|i| i as u32)
            .collect();
        let mut groups: Vec<Group<'a>> = starts
            .par_iter()
            .map(|&start| Group {
                name: name_of(symbol(keyed[start as usize])),
                id: 0,
                start,
            })
            .collect();
        let highs: Vec<u64> = starts
            .par_iter()
            .map(|&start| high(keyed[start as usize]))
            .collect();
        let symbols: Vec<u32> = keyed.par_iter().map(|&k| symbol(k)).collect();
        drop(starts);
        let kept = keep_keys.then_some(keyed);
        // Name ids are ranks in sorted order. Sorted by each name's first 8 bytes first,
        // kept beside its group: most comparisons then stay within the array instead of
        // reading two names from wherever their files' facts lie.
        let mut ranked: Vec<(u64, u32)> = groups
            .par_iter()
            .enumerate()
            .map(|(g, group)| (sort_prefix(group.name), g as u32))
            .collect();
        ranked.par_sort_unstable_by(|a, b| {
            a.0.cmp(&b.0)
                .then_with(|| groups[a.1 as usize].name.cmp(groups[b.1 as usize].name))
        });
        let by_id: Vec<u32> = ranked.into_iter().map(|(_, g)| g).collect();
        for (id, &group) in by_id.iter().enumerate() {
            groups[group as usize].id = id as u32;
        }
        let mut symbol_name = vec![0u32; count as usize];
        for (g, group) in groups.iter().enumerate() {
            for &sid in &symbols[group_range(&groups, g, symbols.len())] {
                if let Some(slot) = symbol_name.get_mut(sid as usize) {
                    *slot = group.id;
                }
            }
        }
        // About one group per radix slot.
        let bits = (usize::BITS - groups.len().leading_zeros()).clamp(1, 24);
        let mut radix = Vec::with_capacity((1usize << bits) + 1);
        let mut at = 0usize;
        for slot in 0..=(1u64 << bits) {
            while at < highs.len() && (highs[at] >> (64 - bits)) < slot {
                at += 1;
            }
            radix.push(at as u32);
        }
        let table = NameTable {
            groups,
            highs,
            symbols,
            radix,
            bits,
            symbol_name,
            by_id,
        };
        (table, kept)
    }

    fn group(&self, name: &str) -> Option<usize> {
        let high = high(key(name, 0));
        let slot = (high >> (64 - self.bits)) as usize;
        let (start, end) = (*self.radix.get(slot)?, *self.radix.get(slot + 1)?);
        (start as usize..end as usize)
            .find(|&g| self.highs[g] == high && self.groups[g].name == name)
    }

    fn group_symbols(&self, g: usize) -> &[u32] {
        &self.symbols[group_range(&self.groups, g, self.symbols.len())]
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

    /// The name id of symbol `sid`.
    pub(super) fn id_of_symbol(&self, sid: u32) -> Option<u32> {
        self.symbol_name.get(sid as usize).copied()
    }

    /// Every name, in id order.
    pub(super) fn sorted(&self) -> impl Iterator<Item = &'a str> + '_ {
        self.by_id.iter().map(|&g| self.groups[g as usize].name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table<'a>(names: &'a [&'a str]) -> NameTable<'a> {
        let keyed = (0..names.len()).map(|i| key(names[i], i as u32)).collect();
        NameTable::build(keyed, names.len() as u32, |sid| names[sid as usize], false).0
    }

    #[test]
    fn groups_symbols_by_name_with_ids_in_sorted_order() {
        let names = ["parse", "Value", "parse", "new", "Value", "parse"];
        let t = table(&names);
        assert_eq!(t.sorted().collect::<Vec<_>>(), ["Value", "new", "parse"]);
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
        assert!(t.sorted().eq(sorted.iter().copied()));
        for (id, name) in sorted.iter().enumerate() {
            assert_eq!(t.id(name), Some(id as u32), "{name:?}");
        }
    }

    #[test]
    fn an_empty_table_finds_nothing() {
        let t = table(&[]);
        assert_eq!(t.id(""), None);
        assert_eq!(t.sorted().count(), 0);
    }

    #[test]
    fn many_names_are_all_found() {
        // Enough names that radix slots hold several groups and some hold none.
        let owned: Vec<String> = (0..5000).map(|i| format!("name_{}", i % 1700)).collect();
        let names: Vec<&str> = owned.iter().map(String::as_str).collect();
        let t = table(&names);
        assert_eq!(t.sorted().count(), 1700);
        let mut sorted: Vec<&str> = names.clone();
        sorted.sort_unstable();
        sorted.dedup();
        assert!(t.sorted().eq(sorted.iter().copied()));
        for (sid, name) in names.iter().enumerate() {
            let list = t.symbols_named(name);
            assert!(list.contains(&(sid as u32)));
            assert!(list.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(t.id_of_symbol(sid as u32), t.id(name));
        }
    }
}
