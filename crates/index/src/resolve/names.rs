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

/// A name's id in a table, by its hash (in [`KeptNames`]): what the next table of
/// nearly the same names takes its order from instead of sorting every name again.
/// (The 96-bit hash in two fields: 16 bytes a name where a `u128` would align it to 32.)
#[derive(Clone, Copy)]
pub(super) struct NameRank {
    hash_high: u64,
    hash_low: u32,
    id: u32,
}

impl NameRank {
    fn new(hash: u128, id: u32) -> Self {
        NameRank {
            hash_high: (hash >> 32) as u64,
            hash_low: hash as u32,
            id,
        }
    }

    fn hash(&self) -> u128 {
        u128::from(self.hash_high) << 32 | u128::from(self.hash_low)
    }
}

/// What a table keeps for the next one ([`NameTable::build`] with `keep`).
pub(super) struct KeptNames {
    /// Every symbol's key, sorted.
    pub keys: Vec<u128>,
    /// Each name's id, by hash ascending.
    pub ranks: Vec<NameRank>,
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

/// The groups in name order (each name's id is its place there): sorted by each name's
/// first 8 bytes first, kept beside its group, so that most comparisons stay within the
/// array instead of reading two names from wherever their files' facts lie.
fn by_id_sorted(groups: &[Group]) -> Vec<u32> {
    let mut ranked: Vec<(u64, u32)> = groups
        .par_iter()
        .enumerate()
        .map(|(g, group)| (sort_prefix(group.name), g as u32))
        .collect();
    ranked.par_sort_unstable_by(|a, b| {
        a.0.cmp(&b.0)
            .then_with(|| groups[a.1 as usize].name.cmp(groups[b.1 as usize].name))
    });
    ranked.into_iter().map(|(_, g)| g).collect()
}

/// [`by_id_sorted`] from an earlier table's `ranks` (by hash ascending, as `hashes`, the
/// groups' own hashes, are): the names still there keep their order, and each new name
/// is placed among them by a binary search. A pass over both lists where sorting took
/// 23 ms on `rustreg`'s 330,000 names.
fn by_id_from_ranks(groups: &[Group], hashes: &[u128], ranks: &[NameRank]) -> Vec<u32> {
    // The groups still there at their old ids; the new ones apart.
    let mut at_old_id: Vec<u32> = vec![u32::MAX; ranks.len()];
    let mut new: Vec<u32> = Vec::new();
    let mut old = ranks.iter().peekable();
    for (g, &hash) in hashes.iter().enumerate() {
        while old.next_if(|r| r.hash() < hash).is_some() {}
        match old.next_if(|r| r.hash() == hash) {
            Some(rank) => match at_old_id.get_mut(rank.id as usize) {
                Some(slot) => *slot = g as u32,
                // Ranks of another table: every name sorted instead.
                None => return by_id_sorted(groups),
            },
            None => new.push(g as u32),
        }
    }
    let kept: Vec<u32> = at_old_id.into_iter().filter(|&g| g != u32::MAX).collect();
    let name = |g: u32| groups[g as usize].name;
    new.sort_unstable_by(|&a, &b| name(a).cmp(name(b)));
    let mut by_id = Vec::with_capacity(groups.len());
    let mut rest = &kept[..];
    for g in new {
        let before = rest.partition_point(|&k| name(k) < name(g));
        by_id.extend_from_slice(&rest[..before]);
        by_id.push(g);
        rest = &rest[before..];
    }
    by_id.extend_from_slice(rest);
    by_id
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
    /// `key(name_of(sid), sid)` for each (sorted or not). `ranks`: the names' ids in an
    /// earlier table of mostly the same names, whose order the names still there keep
    /// (the new ones are placed among them) instead of every name being sorted again.
    /// With `keep`, the sorted keys and the ranks come back for the next table.
    pub(super) fn build(
        mut keyed: Vec<u128>,
        count: u32,
        name_of: impl Fn(u32) -> &'a str + Sync,
        ranks: Option<Vec<NameRank>>,
        keep: bool,
    ) -> (NameTable<'a>, Option<KeptNames>) {
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
        let hashes: Vec<u128> = starts
            .par_iter()
            .map(|&start| name_hash(keyed[start as usize]))
            .collect();
        drop(starts);
        let by_id = match ranks {
            Some(ranks) => {
                let by_id = by_id_from_ranks(&groups, &hashes, &ranks);
                debug_assert!(
                    by_id == by_id_sorted(&groups),
                    "names ordered by kept ranks"
                );
                by_id
            }
            None => by_id_sorted(&groups),
        };
        for (id, &group) in by_id.iter().enumerate() {
            groups[group as usize].id = id as u32;
        }
        let kept = keep.then(|| KeptNames {
            keys: keyed,
            ranks: hashes
                .iter()
                .zip(&groups)
                .map(|(&hash, group)| NameRank::new(hash, group.id))
                .collect(),
        });
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

    /// Each symbol's name id, by symbol id, taken out of the table (which then has none).
    pub(super) fn take_symbol_names(&mut self) -> Vec<u32> {
        std::mem::take(&mut self.symbol_name)
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
        NameTable::build(
            keyed,
            names.len() as u32,
            |sid| names[sid as usize],
            None,
            false,
        )
        .0
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

    /// A table of `names` ordered by the ranks kept from `earlier`'s table.
    fn table_after<'a>(earlier: &[&str], names: &'a [&'a str]) -> NameTable<'a> {
        let keys = (0..earlier.len())
            .map(|i| key(earlier[i], i as u32))
            .collect();
        let (_, kept) = NameTable::build(
            keys,
            earlier.len() as u32,
            |s| earlier[s as usize],
            None,
            true,
        );
        let ranks = kept.expect("kept").ranks;
        let keyed = (0..names.len()).map(|i| key(names[i], i as u32)).collect();
        NameTable::build(
            keyed,
            names.len() as u32,
            |sid| names[sid as usize],
            Some(ranks),
            false,
        )
        .0
    }

    #[test]
    fn kept_ranks_order_the_next_table_as_sorting_does() {
        let earlier = [
            "parse",
            "new",
            "Value",
            "abcdefgh",
            "abcdefghj",
            "zz",
            "gone",
        ];
        // Names removed (`gone`), kept, and added before, between and after them
        // (some equal to a kept one in their first 8 bytes).
        let names = [
            "parse",
            "AAA",
            "new",
            "abcdefghi",
            "Value",
            "zzz",
            "abcdefgh",
            "neww",
            "",
            "abcdefghj",
            "zz",
            "parse",
        ];
        let t = table_after(&earlier, &names);
        let mut sorted = names.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert!(
            t.sorted().eq(sorted.iter().copied()),
            "{:?}",
            t.sorted().collect::<Vec<_>>()
        );
        for (id, name) in sorted.iter().enumerate() {
            assert_eq!(t.id(name), Some(id as u32), "{name:?}");
        }
        // Ranks of a larger, unrelated table order a small one all the same.
        let many: Vec<String> = (0..50).map(|i| format!("n{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        let t = table_after(&many, &["n7", "b", "a"]);
        assert!(t.sorted().eq(["a", "b", "n7"]));
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
