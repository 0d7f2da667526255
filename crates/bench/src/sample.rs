//! Choosing the names to look up: rare, medium and very common ones, from the index or
//! from a synthetic corpus's ground truth, reproducibly from a seed.

use mcursor_index::Index;
use mcursor_synth::{NameClass, SplitMix64, Truth};

#[derive(Clone, Debug, serde::Serialize)]
pub struct Query {
    pub name: String,
    pub class: NameClass,
}

/// How many names of each class a run asks for `total` queries.
pub fn per_class(total: usize) -> usize {
    total.div_ceil(NameClass::ALL.len()).max(1)
}

/// Most-referenced names that count as very common, at most.
const COMMON_POOL: usize = 100;
/// A name with at most this many references is rare.
const RARE_MAX_REFS: usize = 3;
/// Shorter names (`i`, `T`, `id`) are mostly noise for "where is X defined".
const MIN_NAME_LEN: usize = 3;

fn take(mut pool: Vec<(String, usize)>, count: usize, rng: &mut SplitMix64) -> Vec<String> {
    rng.shuffle(&mut pool);
    pool.truncate(count);
    pool.into_iter().map(|(name, _)| name).collect()
}

/// Names that have at least one definition, classed by how many references the index
/// holds for them: very common (the most referenced: the top 5%, at most 100, at least
/// `per_class`), rare (1 to 3), medium (the rest).
pub fn from_index(index: &Index, per_class: usize, seed: u64) -> Vec<Query> {
    let store = index.store();
    let mut counted: Vec<(String, usize)> = Vec::new();
    for name_id in 0..store.name_count() {
        let name = store.name(name_id);
        if name.chars().count() < MIN_NAME_LEN || store.symbols_named(name).is_empty() {
            continue;
        }
        let references = store.refs_named(name_id).count();
        if references > 0 {
            counted.push((name.to_owned(), references));
        }
    }
    // Most referenced first; ties by name so the order does not depend on the store.
    counted.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let common_len = (counted.len() / 20)
        .min(COMMON_POOL)
        .max(per_class)
        .min(counted.len());
    let rest = counted.split_off(common_len);
    let common = counted;
    let (rare, medium): (Vec<_>, Vec<_>) = rest
        .into_iter()
        .partition(|(_, refs)| *refs <= RARE_MAX_REFS);
    let mut rng = SplitMix64::new(seed);
    let mut queries = Vec::new();
    for (class, pool) in [
        (NameClass::Rare, rare),
        (NameClass::Medium, medium),
        (NameClass::Common, common),
    ] {
        for name in take(pool, per_class, &mut rng) {
            queries.push(Query { name, class });
        }
    }
    queries
}

/// Names planted by the generator, `per_class` of each class (fewer where the corpus has
/// fewer, as with the three common method names).
pub fn from_truth(truth: &Truth, per_class: usize, seed: u64) -> Vec<Query> {
    let mut rng = SplitMix64::new(seed);
    let mut queries = Vec::new();
    for class in NameClass::ALL {
        let pool: Vec<(String, usize)> = truth
            .names
            .iter()
            .filter(|(_, n)| n.class == class)
            .map(|(name, n)| (name.clone(), n.references.len()))
            .collect();
        for name in take(pool, per_class, &mut rng) {
            queries.push(Query { name, class });
        }
    }
    queries
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcursor_synth::{SynthConfig, SynthLang, generate};

    #[test]
    fn truth_sampling_is_seeded_and_per_class() {
        let dir = tempfile::tempdir().expect("tempdir");
        let truth = generate(
            &SynthConfig {
                lang: SynthLang::Rust,
                files: 80,
                seed: 4,
            },
            &dir.path().join("c"),
        )
        .expect("generate");
        let a = from_truth(&truth, 5, 1);
        let b = from_truth(&truth, 5, 1);
        let c = from_truth(&truth, 5, 2);
        let names = |q: &[Query]| q.iter().map(|q| q.name.clone()).collect::<Vec<_>>();
        assert_eq!(names(&a), names(&b));
        assert_ne!(names(&a), names(&c));
        let count = |class| a.iter().filter(|q| q.class == class).count();
        // Three common names exist (`new`, `get`, `render`): fewer than asked is fine.
        assert_eq!(
            (
                count(NameClass::Rare),
                count(NameClass::Medium),
                count(NameClass::Common)
            ),
            (5, 5, 3)
        );
        assert_eq!(per_class(60), 20);
        assert_eq!(per_class(1), 1);
    }
}
