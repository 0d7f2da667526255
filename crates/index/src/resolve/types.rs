//! The receiver-type pass: which `Type::member` a member use (`x.m()`, `self.f`,
//! `this.p`) refers to, from declared types only (no type checker).
//!
//! Before references are resolved, [`TypeIndex::build`] reads every container (`impl`
//! blocks, classes, traits, interfaces, structs): which type it defines members of, what
//! that type implements or extends, and which of its methods implement or override a
//! trait's, an interface's or a base class's (`overrides`, stored for `refs` and
//! `callers`). Then each member use's receiver chain (from `mcursor-syntax`, locals
//! already substituted) is evaluated: the root (`self`, a typed binding, a constant, a
//! call), then each step, with declared field and return types, generic bounds, and what
//! the family's standard library says about its own types (`Option::unwrap`, `Vec`
//! indexing, smart pointers looked through). The member is then looked up on the type,
//! its supertypes, its traits' default methods and blanket impls.
//!
//! The outcome is three-valued: found (`resolved`), absent (the type is known and has no
//! such member in the repository: `s.len()` on a `String` is not a use of the
//! repository's `len`, so the use is dropped), or unknown (the family's name-matching
//! fallback labels it `heuristic`). Absent is only said when every supertype on the way
//! is known. Evaluation is bounded in nesting ([`MAX_NESTING`]) against cycles through
//! definitions' types.

use std::cell::RefCell;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use mcursor_syntax::{Family, RefKind, SymbolKind, display_type};
use rayon::prelude::*;

use super::written::{CalleeView, ChainAt, RootView, StepView, TypeAt, TypeList, TypeView};
use super::{CompactFacts, ContainerRef, Def, Outcome, Place, Tables};
use crate::store::{ImplKind, ImplRecord, NONE};

/// Types visited while looking for a member among supertypes.
const MAX_SUPERTYPES: usize = 32;

/// What a path names, as a family resolver sees it.
#[derive(Debug, Clone)]
pub(super) enum Named {
    /// These repository symbols.
    Symbols(Vec<u32>),
    /// Something outside the repository (a standard or dependency type, a global), by
    /// the last segment of its name.
    Outside(String),
    /// A module of the repository used as a value (`import * as m`, `require('./m')`).
    Module(u32),
    /// Something in the repository that could not be pinned down.
    Unknown,
}

/// A value's type, as far as the pass knows it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(super) enum Ty {
    Unknown,
    /// A type of the repository: a struct, enum, union, class, interface, trait (or, in
    /// JavaScript, a constructor function or an object that has members).
    Repo(u32),
    /// Anything that implements these repository traits or interfaces (a type parameter,
    /// `impl Trait`, `dyn Trait`, `self` in a trait).
    Bounds(Vec<u32>),
    /// A type from outside the repository or built into the language, by name, with its
    /// type arguments.
    Outside(String, Vec<Ty>),
    /// An outside value of a type the pass cannot name: certainly not a repository type.
    Opaque,
    /// A module of the repository used as a value.
    Module(u32),
    /// One of these (TypeScript `A | B`).
    Union(Vec<Ty>),
}

impl Ty {
    /// Whether `f` holds for one of the repository symbol ids the type names.
    fn mentions(&self, f: &impl Fn(u32) -> bool) -> bool {
        match self {
            Ty::Repo(sid) => f(*sid),
            Ty::Bounds(sids) => sids.iter().any(|&s| f(s)),
            Ty::Outside(_, types) | Ty::Union(types) => types.iter().any(|t| t.mentions(f)),
            Ty::Unknown | Ty::Opaque | Ty::Module(_) => false,
        }
    }

    /// The type with every repository symbol id mapped by `f`; `None` when `f` maps one
    /// to nothing. (Module ids are file ids: a patch keeps them.)
    fn map_symbols(&self, f: &impl Fn(u32) -> Option<u32>) -> Option<Ty> {
        Some(match self {
            Ty::Repo(sid) => Ty::Repo(f(*sid)?),
            Ty::Bounds(sids) => Ty::Bounds(sids.iter().map(|&s| f(s)).collect::<Option<_>>()?),
            Ty::Outside(name, args) => Ty::Outside(
                name.clone(),
                args.iter()
                    .map(|a| a.map_symbols(f))
                    .collect::<Option<_>>()?,
            ),
            Ty::Union(types) => Ty::Union(
                types
                    .iter()
                    .map(|t| t.map_symbols(f))
                    .collect::<Option<_>>()?,
            ),
            Ty::Unknown => Ty::Unknown,
            Ty::Opaque => Ty::Opaque,
            Ty::Module(fid) => Ty::Module(*fid),
        })
    }
}

/// What a container's head evaluated to: the type it defines members of, the trait an
/// `impl Trait for Type` implements, its declared supertypes. Each file's memo records
/// its heads, so an interface patch evaluates again only the heads of the files the
/// changed names reach (evaluating every head of a large tree was most of the type
/// index's cost).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct ContainerHead {
    self_type: Ty,
    implements: Option<Ty>,
    supertypes: Vec<Ty>,
}

impl ContainerHead {
    /// The head with every repository symbol id mapped by `f`; `None` when `f` maps one
    /// to nothing.
    pub(crate) fn map_symbols(&self, f: &impl Fn(u32) -> Option<u32>) -> Option<ContainerHead> {
        Some(ContainerHead {
            self_type: self.self_type.map_symbols(f)?,
            implements: match &self.implements {
                Some(tr) => Some(tr.map_symbols(f)?),
                None => None,
            },
            supertypes: self
                .supertypes
                .iter()
                .map(|t| t.map_symbols(f))
                .collect::<Option<_>>()?,
        })
    }
}

/// Heads recorded by an earlier resolution, for files whose heads cannot have changed
/// (an interface patch's files that no changed name reaches).
pub(crate) struct KnownHeads<'a> {
    /// Per file id: the heads its memo recorded, in the ids of the generation that wrote
    /// the memo (`None`: evaluate the file's heads).
    pub heads: Vec<Option<&'a [ContainerHead]>>,
    /// Where a symbol id of a memo is now: its file and its index there; `None` when that
    /// file's definitions changed (the heads that name it are evaluated again).
    pub locate: &'a (dyn Fn(u32) -> Option<(u32, u32)> + Sync),
}

impl KnownHeads<'_> {
    /// File `fid`'s recorded heads in this resolution's ids, if they can be used.
    fn of_file(&self, t: &Tables, fid: u32) -> Option<Vec<ContainerHead>> {
        let heads = (*self.heads.get(fid as usize)?)?;
        let containers = t.files[fid as usize].facts.as_ref()?.container_count();
        if heads.len() != containers {
            return None;
        }
        let now = |sid: u32| {
            let (file, index) = (self.locate)(sid)?;
            let count = t
                .files
                .get(file as usize)?
                .facts
                .as_ref()?
                .definitions
                .len();
            ((index as usize) < count).then(|| t.file_base[file as usize] + index)
        };
        heads.iter().map(|h| h.map_symbols(&now)).collect()
    }
}

/// A step on a value that is not a member access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    Unwrap,
    Index,
    Element,
    Await,
}

/// How the result of a standard member or step relates to the receiver's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Spec {
    /// Its `n`th type argument (`Option<T>::unwrap` is `T`).
    Arg(usize),
    /// The receiver's own type (`clone`).
    Same,
    /// The named outside type around the `n`th argument (`Result<T>::ok` is `Option<T>`).
    Wrap(&'static str, usize),
    /// The pair of two arguments (a map's entries: `(K, V)`).
    Pair(usize, usize),
    /// The named outside type around the pair of two arguments (`HashMap::iter`).
    WrapPair(&'static str, usize, usize),
    /// An iterator of `(index, element)` (`Iterator::enumerate`).
    Enumerate,
    /// Some outside type.
    Opaque,
    /// Unknown (generic conversions).
    Unknown,
    /// Look through the `n`th argument first (a smart pointer), then take the step.
    DerefThen(usize),
}

/// What a family's standard library says about a member of one of its types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum OutsideMember {
    /// A member of the outside type, with its result.
    Known(Spec),
    /// Not the wrapper's own: look in its `n`th type argument (auto-deref).
    Deref(usize),
    /// The library says nothing.
    NotKnown,
}

pub(super) type OutsideStep = Option<Spec>;

/// Where a member lookup ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Lookup {
    Found(u32),
    /// One of several members the evidence cannot choose between (impls of one generic
    /// trait for several type arguments): the first, as a guess.
    Ambiguous(u32),
    /// The type is known and has no such member in the repository.
    Absent,
    Unknown,
}

/// Members and supertypes of the repository's types.
#[derive(Default)]
pub(super) struct TypeIndex {
    /// Where each type symbol's members start in `member_lists` (one more entry than
    /// symbols: type `ty`'s run ends where `ty + 1`'s starts), sorted by (name id,
    /// inherent ones first, id). Counted from one parallel sort of every member: a map
    /// from (type, name) to its run, filled key by key, was most of a watched interface
    /// edit's serial type index on `rustreg`.
    type_members: Vec<u32>,
    /// The members of every type back to back.
    member_lists: Vec<u32>,
    /// The name id of each member of `member_lists`.
    member_names: Vec<u32>,
    /// Runs made again by updates since the lists were made, in their order: each
    /// replaces its type's run in `member_lists` (folded in when they grow large).
    changed_runs: HashMap<u32, MemberRun>,
    /// Type symbol → the traits it implements, the classes it extends, its interfaces.
    supertypes: HashMap<u32, Vec<Ty>>,
    /// (outside type name, member name id) → members of repository impls for that type
    /// (`impl MyTrait for String`).
    outside_members: HashMap<(String, u32), Vec<u32>>,
    /// Member name ids of any outside impl (for opaque receivers).
    outside_member_names: HashMap<u32, u32>,
    /// Member name id → members of blanket impls (`impl<T: A> B for T`).
    blanket_members: HashMap<u32, Vec<u32>>,
    /// Per file, per container: what its head evaluated to (the type it defines members
    /// of, the trait an `impl Trait for Type` implements).
    pub heads: Vec<Vec<ContainerHead>>,
    /// Type symbol → its deref target's alias symbol (`impl Deref { type Target = U; }`).
    deref_targets: HashMap<u32, u32>,
    /// Members of trait impls (`impl Trait for Type`), sorted: of several same-named
    /// members of one type, an inherent one wins and trait impls' are ambiguous.
    trait_impl_members: Vec<u32>,
    /// (member, the trait, interface or base member it implements or overrides).
    pub overrides: Vec<(u32, u32)>,
    /// Every declared supertype of the repository's containers (for `mcursor impls`).
    pub implementations: Vec<ImplRecord>,
}

/// How deep the evaluation functions may nest on one thread, whatever depth their
/// callers pass: a cycle through definitions' types (an alias of itself, a `Deref` to
/// itself, mutually recursive initializers) ends here instead of overflowing the stack.
const MAX_NESTING: u32 = 32;

thread_local! {
    static NESTING: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
}

/// One level of evaluation; `None` past [`MAX_NESTING`].
pub(super) struct Nested;

impl Nested {
    pub(super) fn enter() -> Option<Nested> {
        NESTING.with(|n| {
            let depth = n.get();
            (depth < MAX_NESTING).then(|| {
                n.set(depth + 1);
                Nested
            })
        })
    }
}

impl Drop for Nested {
    fn drop(&mut self) {
        NESTING.with(|n| n.set(n.get().saturating_sub(1)));
    }
}

thread_local! {
    /// (resolution run, symbol) → the type of the symbol's value; entries of other runs
    /// are ignored.
    static DEFINITION_TYPES: RefCell<(u64, HashMap<u32, Ty>)> =
        RefCell::new((0, HashMap::default()));
}

/// An entry of a type's run of members: (name id, a trait impl's member, member).
type RunEntry = (u32, bool, u32);

/// One type's members in the order of a run of [`TypeIndex::member_lists`] (name id, a
/// trait impl's member, id), made again by an update.
#[derive(Debug)]
struct MemberRun {
    names: Vec<u32>,
    members: Vec<u32>,
}

/// A file whose part an update takes in: its old part (the new one is among the parts)
/// and whether its definitions were written again (its ids may be other members now).
struct PartChange {
    fid: u32,
    old: FileTypes,
    rewritten: bool,
}

impl PartChange {
    /// Whether the entries `of` gives may have changed: they differ, or the file's
    /// definitions were written again and it has some (the same ids, maybe other
    /// members' names and kinds).
    fn changed<T: PartialEq>(
        &self,
        of: impl Fn(&FileTypes) -> &Vec<T>,
        parts: &[FileTypes],
    ) -> bool {
        let (old, new) = (of(&self.old), of(&parts[self.fid as usize]));
        old != new || (self.rewritten && !old.is_empty())
    }
}

/// Lists of members kept in file order (a file's are one block, found by its ids): each
/// loses its members in `ranges` (sorted; `dropped` hears its key and how many left),
/// lists left empty go, and each of `blocks` (a file's first id and its `(key, member)`
/// entries, in order) joins its key's list at its file's place.
fn replace_file_blocks<K: std::hash::Hash + Eq>(
    lists: &mut HashMap<K, Vec<u32>>,
    ranges: &[std::ops::Range<u32>],
    blocks: Vec<(u32, Vec<(K, u32)>)>,
    mut dropped: impl FnMut(&K, u32),
) {
    if ranges.is_empty() {
        return;
    }
    lists.retain(|key, list| {
        let before = list.len();
        list.retain(|&m| !super::kept::in_ranges(ranges, m));
        let left = (before - list.len()) as u32;
        if left > 0 {
            dropped(key, left);
        }
        !list.is_empty()
    });
    for (start, entries) in blocks {
        let mut block: HashMap<K, Vec<u32>> = HashMap::default();
        for (key, member) in entries {
            block.entry(key).or_default().push(member);
        }
        for (key, members) in block {
            let list = lists.entry(key).or_default();
            let at = list.partition_point(|&m| m < start);
            list.splice(at..at, members);
        }
    }
}

/// Adds `fid` to a list of files kept ascending.
fn add_file(files: &mut Vec<u32>, fid: u32) {
    if let Err(at) = files.binary_search(&fid) {
        files.insert(at, fid);
    }
}

/// One file's contribution to the index, computed in parallel and merged in file order.
/// A function of the file's facts, its own symbols and its heads only, so one whose heads
/// name no id that changed is the same at the next resolution in ids that do not move
/// ([`KeptTypes`]).
#[derive(Default, Debug, PartialEq, Clone)]
pub(super) struct FileTypes {
    /// Its containers' heads (moved to the index's `heads` before the parts are kept).
    heads: Vec<ContainerHead>,
    /// (type, member, inherent).
    members: Vec<(u32, u32, bool)>,
    supertypes: Vec<(u32, Ty)>,
    outside_members: Vec<(String, u32)>,
    blanket_members: Vec<u32>,
    deref_targets: Vec<(u32, u32)>,
    /// (member, trait type) pairs to find overrides in once members are known.
    implements: Vec<(u32, Ty)>,
    implementations: Vec<ImplRecord>,
}

/// Calls `each` with every entry of `list`: a copy when the list is kept, else the entry
/// itself (the list is taken and freed).
fn each_taken<T: Clone>(list: &mut Vec<T>, keep: bool, each: impl FnMut(T)) {
    if keep {
        list.iter().cloned().for_each(each);
    } else {
        std::mem::take(list).into_iter().for_each(each);
    }
}

/// Each file's contribution to the type index and its heads, in the ids of kept tables
/// ([`super::kept`]): a resolution over the same ids takes them as they are for the
/// files whose contribution cannot have changed instead of evaluating them again.
#[derive(Default)]
pub(crate) struct KeptTypes {
    /// Each file's heads (the index's own, taken back once references are resolved).
    pub(super) heads: Vec<Vec<ContainerHead>>,
    parts: Vec<FileTypes>,
    /// Files edited since (ascending): a part holds its containers' positions.
    edited: Vec<u32>,
    /// The index merged from the parts (its heads are `heads`), brought up to date by
    /// the next resolution over the same ids instead of merged again.
    pub(super) index: Option<TypeIndex>,
    /// Type symbol → the files whose parts give it supertypes or a deref target
    /// (ascending): where an update finds a type's others.
    type_files: HashMap<u32, Vec<u32>>,
}

impl KeptTypes {
    /// File `fid` was edited since these were made (an edit that kept its interface
    /// keeps every kept table but this one's part: its positions moved).
    pub(crate) fn file_edited(&mut self, fid: u32) {
        if let Err(at) = self.edited.binary_search(&fid) {
            self.edited.insert(at, fid);
        }
    }

    /// Whether file `fid`'s heads name a symbol of `gone` (sorted, disjoint id ranges).
    fn names_gone(&self, fid: usize, gone: &[std::ops::Range<u32>]) -> bool {
        let is_gone = |sid: u32| super::kept::in_ranges(gone, sid);
        self.heads.get(fid).is_none_or(|heads| {
            heads.iter().any(|head| {
                head.self_type.mentions(&is_gone)
                    || head
                        .implements
                        .as_ref()
                        .is_some_and(|t| t.mentions(&is_gone))
                    || head.supertypes.iter().any(|t| t.mentions(&is_gone))
            })
        })
    }
}

/// What a resolution over kept tables gives [`TypeIndex::build`]: the kept parts, the
/// ids of the changed files (their definitions changed: ids in these ranges may be
/// other definitions now) and the files resolved again (their heads are evaluated).
pub(super) struct TypesUpdate<'k> {
    pub kept: KeptTypes,
    pub gone: &'k [std::ops::Range<u32>],
    pub resolved: &'k [u32],
}

impl TypeIndex {
    /// The index of every file's containers; the heads of `known`'s files are taken from
    /// it instead of evaluated, and with `update` the contribution of each file that did
    /// not change, is not resolved again and whose heads name no changed id is taken
    /// from the kept parts. The parts come back to be kept when `keep` says so (the
    /// index's `heads` are then the kept heads: the caller takes them back, and the
    /// index itself with them, see [`KeptTypes::index`]). With kept parts and a kept
    /// index, the index is brought up to date by the parts that changed
    /// ([`TypeIndex::update`]) instead of merged again from every part.
    pub fn build(
        t: &Tables,
        known: Option<&KnownHeads>,
        update: Option<TypesUpdate>,
        keep: bool,
    ) -> (TypeIndex, Option<KeptTypes>) {
        let (mut kept, gone, resolved) = match update {
            Some(u) if u.kept.parts.len() == t.files.len() => (u.kept, u.gone, u.resolved),
            _ => (KeptTypes::default(), &[][..], &[][..]),
        };
        let reuse = |fid: usize| {
            kept.parts.len() == t.files.len()
                && resolved.binary_search(&(fid as u32)).is_err()
                && kept.edited.binary_search(&(fid as u32)).is_err()
                && known.is_some_and(|k| k.heads.get(fid).is_some_and(Option::is_some))
                && !kept.names_gone(fid, gone)
        };
        let made: Vec<Option<FileTypes>> = (0..t.files.len())
            .into_par_iter()
            .map(|fid| {
                (!reuse(fid))
                    .then(|| t.file_types(fid as u32, known.and_then(|k| k.of_file(t, fid as u32))))
            })
            .collect();
        #[cfg(debug_assertions)]
        for (fid, part) in made.iter().enumerate() {
            if part.is_none() {
                let mut fresh =
                    t.file_types(fid as u32, known.and_then(|k| k.of_file(t, fid as u32)));
                let heads = std::mem::take(&mut fresh.heads);
                assert_eq!(heads, kept.heads[fid], "kept heads of file {fid}");
                assert_eq!(fresh, kept.parts[fid], "kept type index part of file {fid}");
            }
        }
        // The kept index is brought up to date only over the same ids and parts.
        let kept_index = kept.index.take().filter(|index| {
            keep && kept.parts.len() == t.files.len()
                && index.type_members.len() == t.symbols.len() + 1
        });
        let mut heads = std::mem::take(&mut kept.heads);
        heads.resize_with(t.files.len(), Vec::new);
        let mut parts = std::mem::take(&mut kept.parts);
        parts.resize_with(t.files.len(), FileTypes::default);
        // A changed file's ids may be other definitions now.
        let rewritten = |fid: usize| {
            let start = t.file_base[fid];
            gone.binary_search_by_key(&start, |r| r.start).is_ok()
        };
        // A deref target's alias is evaluated where overrides are looked up: a file
        // evaluated again that has one may change them in ways its part does not show.
        let deref_evaluated = made
            .iter()
            .flatten()
            .any(|part| !part.deref_targets.is_empty());
        let mut changes: Vec<PartChange> = Vec::new();
        for (fid, part) in made.into_iter().enumerate() {
            if let Some(mut part) = part {
                heads[fid] = std::mem::take(&mut part.heads);
                let old = std::mem::replace(&mut parts[fid], part);
                if kept_index.is_some() && (rewritten(fid) || old != parts[fid]) {
                    changes.push(PartChange {
                        fid: fid as u32,
                        old,
                        rewritten: rewritten(fid),
                    });
                }
            }
        }
        let (mut index, type_files) = match kept_index {
            Some(mut index) => {
                let mut type_files = std::mem::take(&mut kept.type_files);
                index.update(t, &parts, &changes, deref_evaluated, &mut type_files);
                #[cfg(debug_assertions)]
                index.assert_same(&TypeIndex::merge(t, &mut parts.clone(), true).0, t);
                (index, type_files)
            }
            None => TypeIndex::merge(t, &mut parts, keep),
        };
        index.heads = heads;
        let kept = keep.then_some(KeptTypes {
            heads: Vec::new(),
            parts,
            edited: Vec::new(),
            index: None,
            type_files,
        });
        (index, kept)
    }

    /// The index merged from every file's part (taken when `keep` is false: a cold build
    /// would otherwise hold every part twice), with the files that give each type its
    /// supertypes and deref targets when `keep` says so (for [`TypeIndex::update`]).
    fn merge(
        t: &Tables,
        parts: &mut [FileTypes],
        keep: bool,
    ) -> (TypeIndex, HashMap<u32, Vec<u32>>) {
        let mut index = TypeIndex::default();
        let mut type_files: HashMap<u32, Vec<u32>> = HashMap::default();
        let mut implements = Vec::new();
        let mut trait_impl_members: Vec<u32> = Vec::new();
        // (type, member name id, a trait impl's member, member).
        let mut members: Vec<(u32, u32, bool, u32)> =
            Vec::with_capacity(parts.iter().map(|f| f.members.len()).sum());
        for (fid, file) in parts.iter_mut().enumerate() {
            if keep {
                for &(ty, _) in &file.supertypes {
                    add_file(type_files.entry(ty).or_default(), fid as u32);
                }
                for &(ty, _) in &file.deref_targets {
                    add_file(type_files.entry(ty).or_default(), fid as u32);
                }
            }
            each_taken(&mut file.members, keep, |(ty, member, inherent)| {
                // Each member is in one container, so this is whether it is in
                // `trait_impl_members`.
                members.push((ty, t.name_id_of(member), !inherent, member));
                if !inherent {
                    trait_impl_members.push(member);
                }
            });
            each_taken(&mut file.supertypes, keep, |(ty, supertype)| {
                let list = index.supertypes.entry(ty).or_default();
                if !list.contains(&supertype) {
                    list.push(supertype);
                }
            });
            each_taken(&mut file.outside_members, keep, |(name, member)| {
                let id = t.name_id_of(member);
                index
                    .outside_members
                    .entry((name, id))
                    .or_default()
                    .push(member);
                *index.outside_member_names.entry(id).or_default() += 1;
            });
            each_taken(&mut file.blanket_members, keep, |member| {
                index
                    .blanket_members
                    .entry(t.name_id_of(member))
                    .or_default()
                    .push(member);
            });
            each_taken(&mut file.deref_targets, keep, |(ty, alias)| {
                index.deref_targets.insert(ty, alias);
            });
            each_taken(&mut file.implements, keep, |pair| implements.push(pair));
            each_taken(&mut file.implementations, keep, |record| {
                index.implementations.push(record)
            });
        }
        trait_impl_members.sort_unstable();
        // Grouped by type with a counting sort (each type's run starts where the counts
        // of the types before it end), then each run sorted by (name id, a trait impl's
        // member, id): inherent members first, as Rust picks an inherent method over a
        // trait's. (One parallel sort of every member, after a binary search per member
        // for its trait-impl flag, took a third of a watched interface edit's type index
        // on `rustreg`; its median is 88 -> 80 ms with this.) A member's type is a symbol
        // of this tree (the check keeps the counts in range).
        let types = t.symbols.len();
        members.retain(|&(ty, ..)| (ty as usize) < types);
        let mut type_members = vec![0u32; types + 1];
        for &(ty, ..) in &members {
            type_members[ty as usize + 1] += 1;
        }
        let mut total = 0u32;
        for start in &mut type_members {
            total += *start;
            *start = total;
        }
        let mut next = type_members.clone();
        let mut grouped: Vec<RunEntry> = vec![(0, false, 0); total as usize];
        for &(ty, name, trait_impl, member) in &members {
            let at = &mut next[ty as usize];
            grouped[*at as usize] = (name, trait_impl, member);
            *at += 1;
        }
        drop((members, next));
        let mut runs: Vec<&mut [RunEntry]> = Vec::new();
        let mut rest = grouped.as_mut_slice();
        for window in type_members.windows(2) {
            let (run, after) =
                std::mem::take(&mut rest).split_at_mut((window[1] - window[0]) as usize);
            if run.len() > 1 {
                runs.push(run);
            }
            rest = after;
        }
        runs.par_iter_mut().for_each(|run| run.sort_unstable());
        index.type_members = type_members;
        index.member_names = grouped.par_iter().map(|m| m.0).collect();
        index.member_lists = grouped.into_par_iter().map(|m| m.2).collect();
        index.trait_impl_members = trait_impl_members;
        let mut overrides = index.overrides_of(t, &implements);
        overrides.sort_unstable();
        overrides.dedup();
        index.overrides = overrides;
        (index, type_files)
    }

    /// Which trait, interface or base member each of `pairs` (member, supertype)
    /// implements or overrides: the first member of that name found among the
    /// supertype's members (unsorted).
    fn overrides_of(&self, t: &Tables, pairs: &[(u32, Ty)]) -> Vec<(u32, u32)> {
        pairs
            .par_iter()
            .filter_map(|(member, supertype)| {
                let symbol = &t.symbols[*member as usize];
                let kind = match symbol.kind {
                    SymbolKind::Method | SymbolKind::Function => RefKind::Call,
                    _ => RefKind::Field,
                };
                match self.find_member(
                    t,
                    symbol.family,
                    supertype,
                    t.names.name_of_symbol(*member),
                    kind,
                ) {
                    Lookup::Found(base) | Lookup::Ambiguous(base) if base != *member => {
                        Some((*member, base))
                    }
                    _ => None,
                }
            })
            .collect()
    }

    /// Brings the index from the kept parts to `parts`, given the files whose part
    /// changed or whose definitions were written again (`changes`, with their old
    /// parts): each entry of theirs leaves and the new ones join where a merge of every
    /// part puts them, and the overrides are looked up again for the members whose
    /// names those entries bear (every lookup of another name walks the same runs),
    /// or for every member when a type's supertypes or deref target changed or a file
    /// with a deref target was evaluated again (`deref_evaluated`). Debug builds compare
    /// the outcome with a merge of every part.
    fn update(
        &mut self,
        t: &Tables,
        parts: &[FileTypes],
        changes: &[PartChange],
        deref_evaluated: bool,
        type_files: &mut HashMap<u32, Vec<u32>>,
    ) {
        let ids = |fid: u32| t.file_base[fid as usize]..t.file_base[fid as usize + 1];
        // The names whose lookups may answer otherwise now.
        let mut touched: HashSet<u32> = HashSet::default();
        // Member runs: each type's run loses the old members and gains the new ones.
        let member_changes: Vec<&PartChange> = changes
            .iter()
            .filter(|c| c.changed(|p| &p.members, parts))
            .collect();
        // Type → (members that leave its run, entries that join it).
        let mut runs: HashMap<u32, (Vec<u32>, Vec<RunEntry>)> = HashMap::default();
        let types = t.symbols.len() as u32;
        for change in &member_changes {
            for &(ty, member, _) in change.old.members.iter().filter(|m| m.0 < types) {
                runs.entry(ty).or_default().0.push(member);
            }
            for &(ty, member, inherent) in &parts[change.fid as usize].members {
                if ty < types {
                    let name = t.name_id_of(member);
                    touched.insert(name);
                    runs.entry(ty)
                        .or_default()
                        .1
                        .push((name, !inherent, member));
                }
            }
        }
        for (ty, (gone, added)) in runs {
            let (names, members) = self.run(ty);
            let mut run: Vec<RunEntry> = Vec::with_capacity(members.len() + added.len());
            for (&name, &member) in names.iter().zip(members) {
                if gone.contains(&member) {
                    touched.insert(name);
                } else {
                    let trait_impl = self.trait_impl_members.binary_search(&member).is_ok();
                    run.push((name, trait_impl, member));
                }
            }
            run.extend(added);
            run.sort_unstable();
            self.changed_runs.insert(
                ty,
                MemberRun {
                    names: run.iter().map(|m| m.0).collect(),
                    members: run.iter().map(|m| m.2).collect(),
                },
            );
        }
        if !member_changes.is_empty() {
            let mut gone: Vec<u32> = member_changes
                .iter()
                .flat_map(|c| c.old.members.iter().filter(|m| !m.2).map(|m| m.1))
                .collect();
            gone.sort_unstable();
            self.trait_impl_members
                .retain(|m| gone.binary_search(m).is_err());
            self.trait_impl_members.extend(
                member_changes
                    .iter()
                    .flat_map(|c| parts[c.fid as usize].members.iter())
                    .filter(|m| !m.2)
                    .map(|m| m.1),
            );
            self.trait_impl_members.sort_unstable();
        }
        self.fold_runs_when_many();
        // Outside and blanket members: lists in file order, so a file's entries are one
        // block, which its ids' range finds (`changes` are in file order).
        let outside: Vec<&PartChange> = changes
            .iter()
            .filter(|c| c.changed(|p| &p.outside_members, parts))
            .collect();
        let names = &mut self.outside_member_names;
        let blocks = outside.iter().map(|change| {
            let members = parts[change.fid as usize].outside_members.iter();
            let block = members.map(|(name, member)| {
                let id = t.name_id_of(*member);
                touched.insert(id);
                *names.entry(id).or_default() += 1;
                ((name.clone(), id), *member)
            });
            (t.file_base[change.fid as usize], block.collect::<Vec<_>>())
        });
        let blocks: Vec<_> = blocks.collect();
        let ranges: Vec<std::ops::Range<u32>> = outside.iter().map(|c| ids(c.fid)).collect();
        replace_file_blocks(
            &mut self.outside_members,
            &ranges,
            blocks,
            |(_, name), left| {
                touched.insert(*name);
                if let Some(count) = names.get_mut(name) {
                    *count -= left.min(*count);
                }
            },
        );
        names.retain(|_, count| *count > 0);
        let blanket: Vec<&PartChange> = changes
            .iter()
            .filter(|c| c.changed(|p| &p.blanket_members, parts))
            .collect();
        let blocks: Vec<_> = blanket
            .iter()
            .map(|change| {
                let members = parts[change.fid as usize].blanket_members.iter();
                let block = members.map(|&member| {
                    let id = t.name_id_of(member);
                    touched.insert(id);
                    (id, member)
                });
                (t.file_base[change.fid as usize], block.collect::<Vec<_>>())
            })
            .collect();
        let ranges: Vec<std::ops::Range<u32>> = blanket.iter().map(|c| ids(c.fid)).collect();
        replace_file_blocks(&mut self.blanket_members, &ranges, blocks, |name, _| {
            touched.insert(*name);
        });
        // Supertypes and deref targets: each type's are made again from the files that
        // give it any.
        let mut structure_changed = deref_evaluated;
        let mut retyped: Vec<u32> = Vec::new();
        for change in changes {
            let new = &parts[change.fid as usize];
            if change.old.supertypes == new.supertypes
                && change.old.deref_targets == new.deref_targets
            {
                continue;
            }
            let tys = |part: &FileTypes| -> Vec<u32> {
                let mut tys: Vec<u32> = part
                    .supertypes
                    .iter()
                    .map(|s| s.0)
                    .chain(part.deref_targets.iter().map(|d| d.0))
                    .collect();
                tys.sort_unstable();
                tys.dedup();
                tys
            };
            for ty in tys(&change.old) {
                if let Some(files) = type_files.get_mut(&ty) {
                    files.retain(|&f| f != change.fid);
                }
                retyped.push(ty);
            }
            for ty in tys(new) {
                add_file(type_files.entry(ty).or_default(), change.fid);
                retyped.push(ty);
            }
        }
        retyped.sort_unstable();
        retyped.dedup();
        for ty in retyped {
            let files = type_files.get(&ty).map_or(&[][..], Vec::as_slice);
            let mut supertypes: Vec<Ty> = Vec::new();
            let mut deref = None;
            for &fid in files {
                for (_, supertype) in parts[fid as usize].supertypes.iter().filter(|s| s.0 == ty) {
                    if !supertypes.contains(supertype) {
                        supertypes.push(supertype.clone());
                    }
                }
                if let Some(&(_, alias)) = parts[fid as usize]
                    .deref_targets
                    .iter()
                    .rfind(|d| d.0 == ty)
                {
                    deref = Some(alias);
                }
            }
            if files.is_empty() {
                type_files.remove(&ty);
            }
            let old_supertypes = match supertypes.is_empty() {
                true => self.supertypes.remove(&ty),
                false => self.supertypes.insert(ty, supertypes.clone()),
            };
            let old_deref = match deref {
                Some(alias) => self.deref_targets.insert(ty, alias),
                None => self.deref_targets.remove(&ty),
            };
            structure_changed |=
                old_supertypes.unwrap_or_default() != supertypes || old_deref != deref;
        }
        // Implementation records: a file's are one block, in file order.
        for change in changes {
            if !change.changed(|p| &p.implementations, parts) {
                continue;
            }
            let new = &parts[change.fid as usize].implementations;
            let list = &mut self.implementations;
            let start = list.partition_point(|r| r.file < change.fid);
            let end = list.partition_point(|r| r.file <= change.fid);
            list.splice(start..end, new.iter().cloned());
        }
        // Overrides: every one again when the types' shape changed; else those of the
        // changed files' members and of every member whose name a changed entry bears.
        crate::trace::note(format_args!(
            "type index updated by {} parts ({} names touched{})",
            changes.len(),
            touched.len(),
            if structure_changed {
                ", every override looked up again"
            } else {
                ""
            }
        ));
        if structure_changed {
            let pairs: Vec<(u32, Ty)> = parts
                .iter()
                .flat_map(|p| p.implements.iter().cloned())
                .collect();
            self.overrides = self.overrides_of(t, &pairs);
        } else {
            let mut again: Vec<std::ops::Range<u32>> = changes
                .iter()
                .filter(|c| c.changed(|p| &p.implements, parts))
                .map(|c| ids(c.fid))
                .collect();
            again.sort_unstable_by_key(|r| r.start);
            let redo = |member: u32| {
                super::kept::in_ranges(&again, member) || touched.contains(&t.name_id_of(member))
            };
            if again.is_empty() && touched.is_empty() {
                return;
            }
            let pairs: Vec<(u32, Ty)> = parts
                .par_iter()
                .flat_map_iter(|p| p.implements.iter().filter(|(m, _)| redo(*m)).cloned())
                .collect();
            self.overrides.retain(|&(member, _)| !redo(member));
            self.overrides.extend(self.overrides_of(t, &pairs));
        }
        self.overrides.sort_unstable();
        self.overrides.dedup();
    }

    /// Type `ty`'s run: the name ids and the members.
    fn run(&self, ty: u32) -> (&[u32], &[u32]) {
        if let Some(run) = self.changed_runs.get(&ty) {
            return (&run.names, &run.members);
        }
        let (Some(&start), Some(&end)) = (
            self.type_members.get(ty as usize),
            self.type_members.get(ty as usize + 1),
        ) else {
            return (&[], &[]);
        };
        let range = start as usize..end as usize;
        (
            self.member_names.get(range.clone()).unwrap_or(&[]),
            self.member_lists.get(range).unwrap_or(&[]),
        )
    }

    /// Folds the changed runs into the lists once they hold more than a sixteenth of
    /// the members (each lookup of a type first asks them).
    fn fold_runs_when_many(&mut self) {
        let held: usize = self.changed_runs.values().map(|r| r.members.len()).sum();
        if self.changed_runs.len() < 64 || held < self.member_lists.len() / 16 {
            return;
        }
        let types = self.type_members.len().saturating_sub(1);
        let mut type_members = Vec::with_capacity(types + 1);
        let mut member_names = Vec::with_capacity(self.member_names.len() + held);
        let mut member_lists = Vec::with_capacity(self.member_lists.len() + held);
        type_members.push(0);
        for ty in 0..types as u32 {
            let (names, members) = self.run(ty);
            member_names.extend_from_slice(names);
            member_lists.extend_from_slice(members);
            type_members.push(member_lists.len() as u32);
        }
        self.type_members = type_members;
        self.member_names = member_names;
        self.member_lists = member_lists;
        self.changed_runs.clear();
    }

    /// Debug builds: an index brought up to date answers as one merged afresh.
    #[cfg(debug_assertions)]
    fn assert_same(&self, fresh: &TypeIndex, t: &Tables) {
        for ty in 0..t.symbols.len() as u32 {
            assert_eq!(self.run(ty), fresh.run(ty), "members of type {ty}");
        }
        assert_eq!(self.supertypes, fresh.supertypes, "supertypes");
        assert_eq!(
            self.outside_members, fresh.outside_members,
            "outside members"
        );
        assert_eq!(
            self.outside_member_names, fresh.outside_member_names,
            "outside member names"
        );
        assert_eq!(
            self.blanket_members, fresh.blanket_members,
            "blanket members"
        );
        assert_eq!(self.deref_targets, fresh.deref_targets, "deref targets");
        assert_eq!(
            self.trait_impl_members, fresh.trait_impl_members,
            "trait impl members"
        );
        assert_eq!(self.overrides, fresh.overrides, "overrides");
        assert_eq!(
            self.implementations, fresh.implementations,
            "implementations"
        );
    }

    fn members_named(&self, ty: u32, name_id: u32) -> &[u32] {
        let (names, members) = self.run(ty);
        let first = names.partition_point(|&n| n < name_id);
        let last = names.partition_point(|&n| n <= name_id);
        members.get(first..last).unwrap_or(&[])
    }

    /// Looks `name` up on `ty`, its supertypes and blanket impls (read-only tables, so
    /// the override pass can use it before references are resolved).
    fn find_member(
        &self,
        t: &Tables,
        family: Family,
        ty: &Ty,
        name: &str,
        kind: RefKind,
    ) -> Lookup {
        let Some(name_id) = t.names.id(name) else {
            return Lookup::Absent;
        };
        let Some(_nested) = Nested::enter() else {
            return Lookup::Unknown;
        };
        let fits = |sid: u32| member_fits(kind, t.symbols[sid as usize].kind, family);
        // Of several members with the name, the one of the kind the use asks for: a field
        // access takes the field over a same-named method.
        let best = |list: &[u32]| -> Option<Lookup> {
            let rank = |m: u32| member_rank(kind, t.symbols[m as usize].kind);
            let first = list
                .iter()
                .copied()
                .filter(|&m| fits(m))
                .min_by_key(|&m| rank(m))?;
            // Several trait impls' members of the same rank (`From<A>` and `From<B>`):
            // which one depends on argument types the pass does not know.
            let trait_impl = |m: u32| self.trait_impl_members.binary_search(&m).is_ok();
            let rivals = list
                .iter()
                .filter(|&&m| m != first && fits(m) && rank(m) == rank(first))
                .count();
            Some(if trait_impl(first) && rivals > 0 {
                Lookup::Ambiguous(first)
            } else {
                Lookup::Found(first)
            })
        };
        match ty {
            Ty::Unknown => Lookup::Unknown,
            Ty::Opaque => {
                if self.outside_member_names.contains_key(&name_id)
                    || self.blanket_members.contains_key(&name_id)
                {
                    Lookup::Unknown
                } else {
                    Lookup::Absent
                }
            }
            Ty::Module(_) => Lookup::Unknown,
            // Valid code reaches a member of a union only where a constituent has it (the
            // others narrowed away): the one constituent that has it.
            Ty::Union(members) => {
                let mut found = None;
                let mut unknown = false;
                for member in members {
                    match self.find_member(t, family, member, name, kind) {
                        Lookup::Found(sid) if found.is_none_or(|f| f == sid) => found = Some(sid),
                        Lookup::Found(_) | Lookup::Ambiguous(_) => return Lookup::Unknown,
                        Lookup::Absent => {}
                        Lookup::Unknown => unknown = true,
                    }
                }
                match (found, unknown) {
                    (Some(sid), _) => Lookup::Found(sid),
                    (None, false) => Lookup::Absent,
                    (None, true) => Lookup::Unknown,
                }
            }
            Ty::Repo(_) | Ty::Bounds(_) => {
                let mut work: Vec<Ty> = vec![ty.clone()];
                let mut seen: Vec<u32> = Vec::new();
                let mut complete = true;
                while let Some(current) = work.pop() {
                    if seen.len() > MAX_SUPERTYPES {
                        complete = false;
                        break;
                    }
                    let types: Vec<u32> = match current {
                        Ty::Repo(sid) => vec![sid],
                        Ty::Bounds(list) => list,
                        Ty::Unknown | Ty::Module(_) | Ty::Union(_) => {
                            complete = false;
                            continue;
                        }
                        Ty::Outside(..) | Ty::Opaque => continue,
                    };
                    // Breadth first: a type's own members before its supertypes'.
                    let mut next = Vec::new();
                    for sid in types {
                        if seen.contains(&sid) {
                            continue;
                        }
                        seen.push(sid);
                        if let Some(found) = best(self.members_named(sid, name_id)) {
                            return found;
                        }
                        if let Some(list) = self.supertypes.get(&sid) {
                            next.extend(list.iter().cloned());
                        }
                        if t.symbols[sid as usize].kind == SymbolKind::EnumVariant {
                            next.push(t.container_type_of(sid));
                        }
                        if let Some(&target) = self.deref_targets.get(&sid) {
                            next.push(t.symbol_value_type(family, target, None));
                        }
                    }
                    // Keep breadth-first order with a stack: push in reverse.
                    work.extend(next.into_iter().rev());
                }
                if let Some(found) = self.blanket_members.get(&name_id).and_then(|l| best(l)) {
                    return found;
                }
                // A type that answers any name (`__getattr__`) lacks no member.
                let answers_any = || {
                    t.resolver(family).any_member_hooks().iter().any(|hook| {
                        t.names.id(hook).is_some_and(|hook_id| {
                            seen.iter()
                                .any(|&sid| !self.members_named(sid, hook_id).is_empty())
                        })
                    })
                };
                if complete && !answers_any() {
                    Lookup::Absent
                } else {
                    Lookup::Unknown
                }
            }
            Ty::Outside(outside, args) => {
                if let Some(found) = self
                    .outside_members
                    .get(&(outside.clone(), name_id))
                    .and_then(|l| best(l))
                {
                    return found;
                }
                if let Some(found) = self.blanket_members.get(&name_id).and_then(|l| best(l)) {
                    return found;
                }
                match t.resolver(family).outside_member(outside, name) {
                    OutsideMember::Deref(n) => match args.get(n) {
                        Some(inner) => self.find_member(t, family, inner, name, kind),
                        None => Lookup::Unknown,
                    },
                    OutsideMember::Known(_) => Lookup::Absent,
                    OutsideMember::NotKnown => Lookup::Absent,
                }
            }
        }
    }
}

/// Whether a member of `symbol` kind can be what a use of `kind` names.
fn member_fits(kind: RefKind, symbol: SymbolKind, family: Family) -> bool {
    match kind {
        RefKind::Call => match family {
            Family::Rust => matches!(symbol, SymbolKind::Method | SymbolKind::Function),
            // A property holding a function is called like a method; Python calls a
            // class attribute holding a callable the same way.
            Family::Ecma
            | Family::Python
            | Family::Go
            | Family::Java
            | Family::CSharp
            | Family::Kotlin => {
                matches!(
                    symbol,
                    SymbolKind::Method | SymbolKind::Function | SymbolKind::Field
                )
            }
            // A function pointer field, or a C++ method.
            Family::C => matches!(symbol, SymbolKind::Field | SymbolKind::Method),
            // `$x->f()` calls a method; a property holding a closure is called as
            // `($x->f)()`.
            Family::Php => symbol == SymbolKind::Method,
            // A Ruby call is an instance method's or a class method's (`Cart.create`, a
            // function of its class); `attr_reader`s are methods.
            Family::Ruby => matches!(symbol, SymbolKind::Method | SymbolKind::Function),
            Family::Shell => false,
            Family::Lua => matches!(symbol, SymbolKind::Method | SymbolKind::Function),
        },
        _ => matches!(
            symbol,
            SymbolKind::Field
                | SymbolKind::Method
                | SymbolKind::Constant
                | SymbolKind::EnumVariant
                | SymbolKind::Function
                | SymbolKind::TypeAlias
        ),
    }
}

/// Lower is better: the kinds a use of `kind` most likely names.
fn member_rank(kind: RefKind, symbol: SymbolKind) -> u8 {
    match (kind, symbol) {
        (RefKind::Call, SymbolKind::Method | SymbolKind::Function) => 0,
        (RefKind::Call, _) => 1,
        (_, SymbolKind::Field | SymbolKind::Constant | SymbolKind::EnumVariant) => 0,
        (_, SymbolKind::TypeAlias) => 1,
        _ => 2,
    }
}

fn spec_result(spec: Spec, receiver: &Ty, args: &[Ty]) -> Ty {
    match spec {
        Spec::Arg(n) => args.get(n).cloned().unwrap_or(Ty::Unknown),
        Spec::Same => receiver.clone(),
        Spec::Wrap(name, n) => Ty::Outside(
            name.to_owned(),
            vec![args.get(n).cloned().unwrap_or(Ty::Unknown)],
        ),
        Spec::Pair(a, b) => pair(args, a, b),
        Spec::WrapPair(name, a, b) => Ty::Outside(name.to_owned(), vec![pair(args, a, b)]),
        Spec::Enumerate => Ty::Outside(
            "Iterator".to_owned(),
            vec![Ty::Outside(
                TUPLE.to_owned(),
                vec![
                    Ty::Outside("usize".to_owned(), Vec::new()),
                    args.first().cloned().unwrap_or(Ty::Unknown),
                ],
            )],
        ),
        Spec::Opaque => Ty::Opaque,
        Spec::Unknown | Spec::DerefThen(_) => Ty::Unknown,
    }
}

fn pair(args: &[Ty], a: usize, b: usize) -> Ty {
    let arg = |i: usize| args.get(i).cloned().unwrap_or(Ty::Unknown);
    Ty::Outside(TUPLE.to_owned(), vec![arg(a), arg(b)])
}

/// The name tuples go by among outside types; `.0`, `.1` are their elements.
const TUPLE: &str = "(tuple)";

impl Tables<'_> {
    /// The name id (in the store's name table) of symbol `sid`'s name.
    fn name_id_of(&self, sid: u32) -> u32 {
        self.names.id_of_symbol(sid).unwrap_or(NONE)
    }

    /// One file's containers: their heads, members, supertypes and trait impls; `known`:
    /// its heads as recorded before.
    fn file_types(&self, fid: u32, known: Option<Vec<ContainerHead>>) -> FileTypes {
        let mut out = FileTypes::default();
        let file = &self.files[fid as usize];
        let (Some(facts), Some(family)) = (&file.facts, file.family()) else {
            return out;
        };
        if facts.container_count() == 0 {
            return out;
        }
        let base = self.file_base[fid as usize];
        // (container, member) pairs sorted, so each container finds its members by a
        // binary search (a pass over the file's definitions per container was quadratic
        // in generated files with thousands of impls).
        let mut members_of: Vec<(u32, u32)> = facts
            .definitions
            .iter()
            .enumerate()
            .filter(|(_, d)| (d.container_id as usize) < facts.container_count())
            .map(|(i, d)| (d.container_id, base + i as u32))
            .collect();
        members_of.sort_unstable();
        out.heads.reserve_exact(facts.container_count());
        let mut known = known.map(Vec::into_iter);
        for (ci, container) in facts.containers().enumerate() {
            let first = members_of.partition_point(|&(c, _)| c < ci as u32);
            let head = match known.as_mut().and_then(Iterator::next) {
                Some(head) => head,
                None => {
                    // Paths in the container's head resolve where its members are
                    // written (the same inline modules): at its first member.
                    let member = members_of
                        .get(first)
                        .filter(|&&(c, _)| c == ci as u32)
                        .map_or(NONE, |&(_, member)| member - base);
                    let at = self.place(fid, facts, member);
                    ContainerHead {
                        self_type: self.eval_type(family, at, container.self_type, None),
                        implements: container
                            .implements
                            .map(|tr| self.eval_type(family, at, tr, None)),
                        supertypes: container
                            .supertypes()
                            .map(|supertype| self.eval_type(family, at, supertype, None))
                            .collect(),
                    }
                }
            };
            let ContainerHead {
                self_type: ty,
                implements,
                supertypes,
            } = &head;
            let is_deref = implements.is_some()
                && container.implements.is_some_and(|tr| {
                    tr.named_last().is_some_and(|last| {
                        Some(last.as_str()) == self.resolver(family).deref_trait()
                    })
                });
            let members = members_of[first..]
                .iter()
                .take_while(|&&(c, _)| c == ci as u32)
                .map(|&(_, member)| member);
            for member in members {
                match ty {
                    Ty::Repo(sid) => {
                        out.members.push((*sid, member, implements.is_none()));
                        if is_deref
                            && self.symbols[member as usize].kind == SymbolKind::TypeAlias
                            && self.names.name_of_symbol(member) == "Target"
                        {
                            out.deref_targets.push((*sid, member));
                        }
                    }
                    Ty::Outside(name, _) => out.outside_members.push((name.clone(), member)),
                    Ty::Bounds(_) | Ty::Unknown if container.blanket => {
                        out.blanket_members.push(member)
                    }
                    _ => {}
                }
                if let Some(tr @ (Ty::Repo(_) | Ty::Bounds(_))) = implements {
                    out.implements.push((member, tr.clone()));
                }
                for st in supertypes {
                    if matches!(st, Ty::Repo(_)) {
                        out.implements.push((member, st.clone()));
                    }
                }
            }
            // What `mcursor impls` lists: each repository trait, interface or class this
            // container implements or extends, whatever type implements it.
            let declared = implements
                .iter()
                .map(|tr| {
                    let kind = if container.blanket {
                        ImplKind::Blanket
                    } else {
                        ImplKind::Impl
                    };
                    (tr, kind)
                })
                .chain(supertypes.iter().map(|st| (st, ImplKind::Subtype)));
            for (supertype, kind) in declared {
                let Ty::Repo(supertype) = supertype else {
                    continue;
                };
                out.implementations.push(ImplRecord {
                    supertype: *supertype,
                    implementor: match ty {
                        Ty::Repo(sid) => Some(*sid),
                        _ => None,
                    },
                    implementor_text: implementor_text(&container),
                    file: fid,
                    container: ci as u32,
                    line: container.start.line,
                    column: container.start.column,
                    end_line: container.end.line,
                    kind,
                });
            }
            if let Ty::Repo(sid) = *ty {
                if let Some(tr @ (Ty::Repo(_) | Ty::Bounds(_))) = implements {
                    out.supertypes.push((sid, tr.clone()));
                }
                out.supertypes
                    .extend(supertypes.iter().map(|st| (sid, st.clone())));
            }
            out.heads.push(head);
        }
        out
    }

    /// The type a [`Named`] type path stands for.
    pub(super) fn named_type(&self, family: Family, named: &Named) -> Ty {
        match named {
            Named::Symbols(sids) => {
                let Some(&sid) = sids.first() else {
                    return Ty::Unknown;
                };
                self.symbol_as_type(family, sid)
            }
            Named::Outside(name) => Ty::Outside(name.clone(), Vec::new()),
            Named::Module(fid) => Ty::Module(*fid),
            Named::Unknown => Ty::Unknown,
        }
    }

    /// Symbol `sid` used as a type: itself, what an alias stands for, the enum of a
    /// variant.
    fn symbol_as_type(&self, family: Family, sid: u32) -> Ty {
        let Some(symbol) = self.symbols.get(sid as usize) else {
            return Ty::Unknown;
        };
        match symbol.kind {
            SymbolKind::TypeAlias => self.symbol_value_type(family, sid, None),
            // A variant stays itself (its positional fields are its own); its members are
            // its enum's.
            _ => Ty::Repo(sid),
        }
    }

    /// The type of the container symbol `sid` is a member of.
    pub(super) fn container_type_of(&self, sid: u32) -> Ty {
        let Some((fid, facts, d)) = self.definition(sid) else {
            return Ty::Unknown;
        };
        self.container_ty(fid, facts, d)
    }

    /// The type `self` stands for at `at`: the container of the enclosing definition.
    fn enclosing_type(&self, at: Place) -> Ty {
        at.enclosing
            .map_or(Ty::Unknown, |d| self.container_ty(at.fid, at.facts, d))
    }

    fn container_ty(&self, fid: u32, facts: &CompactFacts, d: &Def) -> Ty {
        let Some(container) = facts.container_of(d) else {
            return Ty::Unknown;
        };
        let ty = self
            .types
            .heads
            .get(fid as usize)
            .and_then(|c| c.get(d.container_id as usize))
            .map_or(Ty::Unknown, |head| head.self_type.clone());
        match ty {
            // `self` in a trait or an interface is whatever implements it.
            Ty::Repo(sid) if container.is_abstract => Ty::Bounds(vec![sid]),
            ty => ty,
        }
    }

    /// Evaluates a written type at `at`; `self_ty` is what `Self` stands for (the
    /// receiver of a method, when known).
    fn eval_type(&self, family: Family, at: Place, ty: TypeAt, self_ty: Option<&Ty>) -> Ty {
        let Some(_nested) = Nested::enter() else {
            return Ty::Unknown;
        };
        match ty.view() {
            TypeView::Named { path, args } => {
                match self.resolver(family).type_path(self, at, path) {
                    Named::Outside(name) => Ty::Outside(
                        name,
                        args.iter()
                            .map(|a| self.eval_type(family, at, a, self_ty))
                            .collect(),
                    ),
                    // An alias keeps the arguments it was written with.
                    named => self.named_type(family, &named),
                }
            }
            TypeView::SelfType => match self_ty {
                Some(ty) => ty.clone(),
                None => self.enclosing_type(at),
            },
            TypeView::Bounds(bounds) => {
                let mut repo = Vec::new();
                let mut outside = None;
                let mut unknown = false;
                for bound in bounds.iter() {
                    match self.eval_type(family, at, bound, self_ty) {
                        Ty::Repo(sid) => repo.push(sid),
                        Ty::Bounds(list) => repo.extend(list),
                        ty @ Ty::Outside(..) => {
                            outside.get_or_insert(ty);
                        }
                        _ => unknown = true,
                    }
                }
                match (repo.is_empty(), outside) {
                    (false, _) => Ty::Bounds(repo),
                    // Bounded by outside traits only (`impl IntoIterator<Item = T>`): its
                    // members are those traits', never the repository's own.
                    (true, Some(outside)) if !unknown => outside,
                    _ => Ty::Unknown,
                }
            }
            TypeView::Array(element) => Ty::Outside(
                "[]".to_owned(),
                vec![self.eval_type(family, at, element, self_ty)],
            ),
            TypeView::Builtin(name) => Ty::Outside(name.to_owned(), Vec::new()),
            TypeView::Tuple(elements) => Ty::Outside(
                TUPLE.to_owned(),
                elements
                    .iter()
                    .map(|e| self.eval_type(family, at, e, self_ty))
                    .collect(),
            ),
            TypeView::Union(members) => Ty::Union(
                members
                    .iter()
                    .map(|m| self.eval_type(family, at, m, self_ty))
                    .collect(),
            ),
            // A function value: calling it is not a member use.
            TypeView::Function { .. } => Ty::Outside("function".to_owned(), Vec::new()),
            TypeView::Unknown => Ty::Unknown,
        }
    }

    /// The type parameter `parameter` of a closure receives when passed as argument
    /// `argument` to function or method `sid` (called on `receiver`).
    fn callback_param_type(
        &self,
        family: Family,
        sid: u32,
        argument: u32,
        parameter: u32,
        receiver: Option<&Ty>,
    ) -> Ty {
        let Some((fid, facts, d)) = self.definition(sid) else {
            return Ty::Unknown;
        };
        let at = self.place(fid, facts, self.symbols[sid as usize].index);
        let Some(declared) = facts.param(d, argument as usize) else {
            return Ty::Unknown;
        };
        match self.function_params(family, at, declared) {
            Some((at, params)) => match params.get(parameter as usize) {
                Some(param) => self.eval_type(family, at, param, receiver),
                None => Ty::Unknown,
            },
            None => Ty::Unknown,
        }
    }

    /// The parameter types of a function type as written at `at`: `Fn(A) -> R`, a type
    /// parameter bounded by one, an alias of one (resolved where the alias is written),
    /// a box of one.
    fn function_params<'f>(
        &'f self,
        family: Family,
        at: Place<'f>,
        ty: TypeAt<'f>,
    ) -> Option<(Place<'f>, TypeList<'f>)> {
        match ty.view() {
            TypeView::Function { params, .. } => Some((at, params)),
            TypeView::Bounds(bounds) => bounds
                .iter()
                .find_map(|b| self.function_params(family, at, b)),
            TypeView::Named { path, args } => {
                match self.resolver(family).type_path(self, at, path) {
                    Named::Symbols(sids) => {
                        let sid = *sids.first()?;
                        if self.symbols[sid as usize].kind != SymbolKind::TypeAlias {
                            return None;
                        }
                        let (fid, facts, d) = self.definition(sid)?;
                        let alias_at = self.place(fid, facts, self.symbols[sid as usize].index);
                        self.function_params(family, alias_at, facts.type_of(d)?)
                    }
                    // `Box<dyn Fn(A)>`, `Rc<..>`, `Arc<..>`.
                    Named::Outside(_) => args
                        .first()
                        .and_then(|a| self.function_params(family, at, a)),
                    Named::Module(_) | Named::Unknown => None,
                }
            }
            TypeView::Union(members) => members
                .iter()
                .find_map(|m| self.function_params(family, at, m)),
            TypeView::Tuple(_) => None,
            TypeView::SelfType | TypeView::Array(_) | TypeView::Builtin(_) | TypeView::Unknown => {
                None
            }
        }
    }

    /// The type a closure parameter receives when the closure is passed to method `name`
    /// of `receiver`.
    fn method_callback_type(
        &self,
        family: Family,
        receiver: &Ty,
        name: &str,
        argument: u32,
        parameter: u32,
    ) -> Ty {
        match receiver {
            Ty::Outside(outside, args) => {
                match self
                    .resolver(family)
                    .outside_callback(outside, name, argument, parameter)
                {
                    Some(Spec::DerefThen(n)) => match args.get(n) {
                        Some(inner) => {
                            self.method_callback_type(family, inner, name, argument, parameter)
                        }
                        None => Ty::Unknown,
                    },
                    Some(spec) => spec_result(spec, receiver, args),
                    None => Ty::Unknown,
                }
            }
            Ty::Repo(_) | Ty::Bounds(_) => {
                match self
                    .types
                    .find_member(self, family, receiver, name, RefKind::Call)
                {
                    Lookup::Found(sid) | Lookup::Ambiguous(sid) => {
                        self.callback_param_type(family, sid, argument, parameter, Some(receiver))
                    }
                    Lookup::Absent | Lookup::Unknown => Ty::Unknown,
                }
            }
            Ty::Module(fid) => match self.module_member(*fid, name).first() {
                Some(&sid) => self.callback_param_type(family, sid, argument, parameter, None),
                None => Ty::Unknown,
            },
            Ty::Union(_) => {
                match self
                    .types
                    .find_member(self, family, receiver, name, RefKind::Call)
                {
                    Lookup::Found(sid) | Lookup::Ambiguous(sid) => {
                        self.callback_param_type(family, sid, argument, parameter, None)
                    }
                    Lookup::Absent | Lookup::Unknown => Ty::Unknown,
                }
            }
            Ty::Unknown | Ty::Opaque => Ty::Unknown,
        }
    }

    /// The type a closure parameter receives from what the closure is passed to.
    fn callback_type(
        &self,
        family: Family,
        at: Place,
        callee: CalleeView,
        argument: u32,
        parameter: u32,
    ) -> Ty {
        let resolver = self.resolver(family);
        match callee {
            CalleeView::Method { receiver, name } => {
                let receiver = self.eval_chain(family, at, receiver);
                self.method_callback_type(family, &receiver, name, argument, parameter)
            }
            CalleeView::Function(path) => match resolver.call_path(self, at, path) {
                Named::Symbols(sids) => match sids.first() {
                    Some(&sid) => self.callback_param_type(family, sid, argument, parameter, None),
                    None => Ty::Unknown,
                },
                Named::Outside(_) | Named::Module(_) | Named::Unknown => Ty::Unknown,
            },
            CalleeView::Constructor(ty) => {
                let class = self.eval_type(family, at, ty, None);
                match self
                    .types
                    .find_member(self, family, &class, "constructor", RefKind::Call)
                {
                    Lookup::Found(sid) | Lookup::Ambiguous(sid) => {
                        self.callback_param_type(family, sid, argument, parameter, Some(&class))
                    }
                    Lookup::Absent | Lookup::Unknown => Ty::Unknown,
                }
            }
        }
    }

    /// The type of symbol `sid`'s value: a field's or constant's declared type, a
    /// function's return type, an alias's target, a variable's initial value. `self_ty`
    /// is the receiver a method is called on (what its `Self` means).
    fn symbol_value_type(&self, family: Family, sid: u32, self_ty: Option<&Ty>) -> Ty {
        let Some(_nested) = Nested::enter() else {
            return Ty::Unknown;
        };
        let Some((fid, facts, d)) = self.definition(sid) else {
            return Ty::Unknown;
        };
        let index = self.symbols[sid as usize].index;
        let at = self.place(fid, facts, index);
        // The definition's own place: paths in its type resolve where it is written,
        // inside its modules (its parent's place for the modules, itself for `Self`).
        let declared = facts.type_of(d);
        // Only a declared type mentioning `Self`, asked for a given receiver, depends on
        // more than the symbol.
        let cacheable = !(self_ty.is_some() && declared.is_some_and(mentions_self));
        if cacheable
            && let Some(ty) = DEFINITION_TYPES.with(|c| {
                let cache = c.borrow();
                (cache.0 == self.run)
                    .then(|| cache.1.get(&sid).cloned())
                    .flatten()
            })
        {
            return ty;
        }
        let ty = match (declared, facts.value_of(d)) {
            (Some(declared), _) => self.eval_type(family, at, declared, self_ty),
            (None, Some(value)) => self.eval_chain(family, at, value),
            (None, None) => match d.kind {
                // A class or struct named as a value (`Foo.create()`), an enum variant.
                SymbolKind::Class
                | SymbolKind::Struct
                | SymbolKind::Enum
                | SymbolKind::Interface
                | SymbolKind::Trait => Ty::Repo(sid),
                SymbolKind::EnumVariant => self.container_ty(fid, facts, d),
                // An attribute reader (Ruby's `attr_reader :clock`): its field's value.
                SymbolKind::Function | SymbolKind::Method => {
                    match self.resolver(family).accessor_field(facts.name(d)) {
                        Some(field) => {
                            let owner = self.container_ty(fid, facts, d);
                            self.member_type(family, &owner, &field, RefKind::Field)
                        }
                        None => Ty::Unknown,
                    }
                }
                _ => Ty::Unknown,
            },
        };
        if cacheable {
            DEFINITION_TYPES.with(|c| {
                let mut cache = c.borrow_mut();
                if cache.0 != self.run || cache.1.len() > 200_000 {
                    cache.1.clear();
                    cache.0 = self.run;
                }
                cache.1.insert(sid, ty.clone());
            });
        }
        ty
    }

    /// Evaluates a value chain at `at`.
    fn eval_chain(&self, family: Family, at: Place, chain: ChainAt) -> Ty {
        let Some(_nested) = Nested::enter() else {
            return Ty::Unknown;
        };
        let resolver = self.resolver(family);
        let mut ty = match chain.root() {
            RootView::SelfValue => self.enclosing_type(at),
            RootView::Super => match self.enclosing_type(at) {
                Ty::Repo(sid) => self
                    .types
                    .supertypes
                    .get(&sid)
                    .and_then(|list| list.iter().find(|t| matches!(t, Ty::Repo(_))))
                    .cloned()
                    .unwrap_or(Ty::Unknown),
                _ => Ty::Unknown,
            },
            RootView::Typed(ty) => self.eval_type(family, at, ty, None),
            RootView::Path(path) => match resolver.value_path(self, at, path) {
                Named::Symbols(sids) => match sids.first() {
                    Some(&sid) => match self.symbols[sid as usize].kind {
                        // Ruby calls a method it names without arguments.
                        SymbolKind::Function | SymbolKind::Method if resolver.bare_name_calls() => {
                            self.symbol_value_type(family, sid, None)
                        }
                        // A function used as a value (`ws.span()`, a parser combinator):
                        // its members are outside traits' (blanket impls for functions).
                        SymbolKind::Function | SymbolKind::Method => {
                            Ty::Outside("function".to_owned(), Vec::new())
                        }
                        SymbolKind::Module => Ty::Unknown,
                        SymbolKind::TypeAlias => self.symbol_as_type(family, sid),
                        _ => self.symbol_value_type(family, sid, None),
                    },
                    None => Ty::Unknown,
                },
                Named::Outside(name) => Ty::Outside(name, Vec::new()),
                Named::Module(fid) => Ty::Module(fid),
                // Ruby's bare `make` in a method is `self.make`.
                Named::Unknown if resolver.bare_name_calls() && path.len() == 1 => {
                    self.member_type(family, &self.enclosing_type(at), &path[0], RefKind::Call)
                }
                Named::Unknown => Ty::Unknown,
            },
            RootView::Call(path) => match resolver.call_path(self, at, path) {
                Named::Symbols(sids) => match sids.first() {
                    Some(&sid) => match self.symbols[sid as usize].kind {
                        SymbolKind::Function | SymbolKind::Method => {
                            // `Foo::new()`: `Self` is the type the path names.
                            let owner = (path.len() > 1).then(|| {
                                let named = resolver.type_path(self, at, &path[..path.len() - 1]);
                                self.named_type(family, &named)
                            });
                            self.symbol_value_type(family, sid, owner.as_ref())
                        }
                        SymbolKind::Struct | SymbolKind::Class => Ty::Repo(sid),
                        SymbolKind::EnumVariant => self.container_type_of(sid),
                        _ => Ty::Unknown,
                    },
                    None => Ty::Unknown,
                },
                Named::Outside(name) => match path.len() {
                    // `Vec::new()`, `String::from(..)`: the outside type, when the
                    // function is one of its constructors.
                    n if n >= 2 && is_constructor(&name) => {
                        Ty::Outside(path[n - 2].clone(), Vec::new())
                    }
                    _ => Ty::Unknown,
                },
                Named::Module(_) | Named::Unknown => {
                    // `Foo::default()` from a derive: the repository type, when the
                    // function is a constructor nobody wrote down.
                    match path.split_last() {
                        Some((last, owner)) if !owner.is_empty() && is_constructor(last) => {
                            let named = resolver.type_path(self, at, owner);
                            match self.named_type(family, &named) {
                                ty @ Ty::Repo(_) => ty,
                                _ => Ty::Unknown,
                            }
                        }
                        _ => Ty::Unknown,
                    }
                }
            },
            RootView::Callback {
                callee,
                argument,
                parameter,
            } => self.callback_type(family, at, callee, argument, parameter),
            RootView::Unknown => Ty::Unknown,
        };
        for step in chain.steps() {
            if matches!(ty, Ty::Unknown) {
                return Ty::Unknown;
            }
            ty = match step {
                StepView::Field(name) => self.member_type(family, &ty, name, RefKind::Field),
                StepView::Call(name) => self.member_type(family, &ty, name, RefKind::Call),
                StepView::Unwrap => self.step_type(family, &ty, Step::Unwrap),
                StepView::Index => self.step_type(family, &ty, Step::Index),
                StepView::Element => self.step_type(family, &ty, Step::Element),
                StepView::Await => self.step_type(family, &ty, Step::Await),
            };
        }
        ty
    }

    /// The type of `receiver.name` (a field) or `receiver.name(..)` (a call's result).
    fn member_type(&self, family: Family, receiver: &Ty, name: &str, kind: RefKind) -> Ty {
        let Some(_nested) = Nested::enter() else {
            return Ty::Unknown;
        };
        if let Ty::Module(fid) = receiver {
            let found = self.module_member(*fid, name);
            return match found.first() {
                Some(&sid) => match (kind, self.symbols[sid as usize].kind) {
                    // `m.Foo` used as a value: the class; `m.f()`: what f returns; `m.f`
                    // not called: a function value, as a function named by its path.
                    (
                        RefKind::Field,
                        SymbolKind::Class | SymbolKind::Interface | SymbolKind::Enum,
                    ) => Ty::Repo(sid),
                    (RefKind::Field, SymbolKind::Function | SymbolKind::Method) => {
                        Ty::Outside("function".to_owned(), Vec::new())
                    }
                    _ => self.symbol_value_type(family, sid, None),
                },
                None => Ty::Unknown,
            };
        }
        // `.0` of a tuple (or an element taken out of an array by position).
        if let (Ty::Outside(outside, args), Ok(index)) = (receiver, name.parse::<usize>()) {
            return match outside.as_str() {
                TUPLE => args.get(index).cloned().unwrap_or(Ty::Unknown),
                _ => match self.resolver(family).outside_step(outside, Step::Index) {
                    Some(spec) => spec_result(spec, receiver, args),
                    None => Ty::Unknown,
                },
            };
        }
        // `.0` of a tuple struct or variant: its positional field.
        if let (Ty::Repo(owner), Ok(index)) = (receiver, name.parse::<usize>()) {
            return match self.definition(*owner) {
                Some((fid, facts, d)) => match facts.tuple_field(d, index) {
                    Some(field) => {
                        let at = self.place(fid, facts, self.symbols[*owner as usize].index);
                        self.eval_type(family, at, field, Some(receiver))
                    }
                    None => Ty::Unknown,
                },
                None => Ty::Unknown,
            };
        }
        match self.types.find_member(self, family, receiver, name, kind) {
            Lookup::Found(sid) | Lookup::Ambiguous(sid) => {
                let member_kind = self.symbols[sid as usize].kind;
                if kind == RefKind::Field && matches!(member_kind, SymbolKind::Method) {
                    // A method named without calling it: a function value.
                    return Ty::Unknown;
                }
                // Static members in JavaScript sit on the class; instance receivers too.
                self.symbol_value_type(family, sid, Some(receiver))
            }
            Lookup::Unknown => Ty::Unknown,
            Lookup::Absent => match receiver {
                Ty::Outside(outside, args) => {
                    self.outside_member_type(family, receiver, outside, args, name)
                }
                Ty::Repo(_) | Ty::Bounds(_) => match self.resolver(family).derived_member(name) {
                    Some(spec) => spec_result(spec, receiver, &[]),
                    None => Ty::Unknown,
                },
                // What an outside value's own members give is outside too.
                Ty::Opaque => Ty::Opaque,
                _ => Ty::Unknown,
            },
        }
    }

    fn outside_member_type(
        &self,
        family: Family,
        receiver: &Ty,
        outside: &str,
        args: &[Ty],
        name: &str,
    ) -> Ty {
        match self.resolver(family).outside_member(outside, name) {
            OutsideMember::Known(spec) => spec_result(spec, receiver, args),
            OutsideMember::Deref(n) => match args.get(n) {
                Some(inner) => self.member_type(family, inner, name, RefKind::Call),
                _ => Ty::Unknown,
            },
            OutsideMember::NotKnown => Ty::Unknown,
        }
    }

    /// The type after unwrapping, indexing, iterating or awaiting.
    fn step_type(&self, family: Family, ty: &Ty, step: Step) -> Ty {
        let Some(_nested) = Nested::enter() else {
            return Ty::Unknown;
        };
        match ty {
            Ty::Outside(name, args) => match self.resolver(family).outside_step(name, step) {
                Some(Spec::DerefThen(n)) => match args.get(n) {
                    Some(inner) => self.step_type(family, inner, step),
                    None => Ty::Unknown,
                },
                Some(spec) => spec_result(spec, ty, args),
                None => Ty::Unknown,
            },
            // A repository type awaited keeps its type (an `async fn`'s declared return
            // type is already what `.await` gives); so does TypeScript's `x!`.
            Ty::Repo(_) | Ty::Bounds(_) | Ty::Union(_)
                if step == Step::Await
                    || (step == Step::Unwrap && self.resolver(family).unwrap_keeps_type()) =>
            {
                ty.clone()
            }
            // Indexing and iterating a repository type: its `Index` impl's `Output`, its
            // `IntoIterator`/`Iterator` impl's `Item`.
            Ty::Repo(_) | Ty::Bounds(_) if matches!(step, Step::Index | Step::Element) => {
                let associated = if step == Step::Index {
                    "Output"
                } else {
                    "Item"
                };
                match self
                    .types
                    .find_member(self, family, ty, associated, RefKind::Type)
                {
                    Lookup::Found(sid) | Lookup::Ambiguous(sid)
                        if self.symbols[sid as usize].kind == SymbolKind::TypeAlias =>
                    {
                        self.symbol_value_type(family, sid, Some(ty))
                    }
                    _ => Ty::Unknown,
                }
            }
            Ty::Opaque => Ty::Opaque,
            _ => Ty::Unknown,
        }
    }

    /// The trait the container of symbol `sid` implements (`impl Trait for Type`), if any.
    pub(super) fn implemented_trait(&self, sid: u32) -> Option<&Ty> {
        let (fid, _, d) = self.definition(sid)?;
        self.types
            .heads
            .get(fid as usize)?
            .get(d.container_id as usize)?
            .implements
            .as_ref()
    }

    /// What type `sid` extends and implements, as declared (PHP's `parent::`).
    pub(super) fn supertypes_of(&self, sid: u32) -> &[Ty] {
        self.types.supertypes.get(&sid).map_or(&[], Vec::as_slice)
    }

    /// Looks a member up for the family resolvers (`Type::method` paths).
    pub(super) fn lookup_member(
        &self,
        family: Family,
        ty: &Ty,
        name: &str,
        kind: RefKind,
    ) -> Lookup {
        self.types.find_member(self, family, ty, name, kind)
    }

    /// A member use's outcome from its receiver's type: `Some` when the type settles it
    /// (found, or known to lack the member), `None` when the type is unknown.
    pub(super) fn member_of_chain(
        &self,
        family: Family,
        at: Place,
        chain: ChainAt,
        name: &str,
        kind: RefKind,
    ) -> Option<Outcome> {
        if self.candidates(name).is_empty() {
            return Some(Outcome::Drop);
        }
        let receiver = self.eval_chain(family, at, chain);
        if traced(name) {
            eprintln!(
                "[receiver] {} (in the definition at line {}): {name} on {} is {receiver:?}",
                self.files[at.fid as usize].row.path,
                at.enclosing.map_or(0, |d| d.line),
                mcursor_syntax::describe_chain(&chain.to_chain())
            );
        }
        if let Ty::Module(fid) = receiver {
            return self
                .first_compatible(&self.module_member(fid, name), kind)
                .map(Outcome::Resolved);
        }
        match self.types.find_member(self, family, &receiver, name, kind) {
            Lookup::Found(sid) => Some(Outcome::Resolved(sid)),
            Lookup::Ambiguous(sid) => Some(Outcome::Guess(sid)),
            // An extension method of that name may be what the call reaches.
            Lookup::Absent
                if kind == RefKind::Call && self.resolver(family).extension_method(name) =>
            {
                None
            }
            Lookup::Absent => Some(Outcome::Drop),
            Lookup::Unknown => None,
        }
    }
}

/// Whether member uses named `name` are traced: `MCURSOR_TRACE_RECEIVERS=name` (or `*`)
/// prints each distinct receiver chain and the type it evaluated to, the way to see why a
/// use ended up `heuristic`. Read once per process.
fn traced(name: &str) -> bool {
    static TRACE: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();
    TRACE
        .get_or_init(|| std::env::var("MCURSOR_TRACE_RECEIVERS").ok())
        .as_deref()
        .is_some_and(|t| t == name || t == "*")
}

/// Functions that make a value of the type they are called on.
fn is_constructor(name: &str) -> bool {
    matches!(
        name,
        "new" | "default" | "from" | "with_capacity" | "new_in" | "from_str" | "builder" | "create"
    )
}

fn mentions_self(ty: TypeAt) -> bool {
    match ty.view() {
        TypeView::SelfType => true,
        TypeView::Named { args: list, .. }
        | TypeView::Bounds(list)
        | TypeView::Union(list)
        | TypeView::Tuple(list) => list.iter().any(mentions_self),
        TypeView::Array(inner) => mentions_self(inner),
        TypeView::Function { params, ret } => {
            params.iter().any(mentions_self) || mentions_self(ret)
        }
        TypeView::Builtin(_) | TypeView::Unknown => false,
    }
}

/// The implementing type as written: `Engine`, `Vec<T>`; for a blanket impl its
/// parameter with the bounds (`P: Source`; extraction names the container
/// `<P as Parser>`).
fn implementor_text(container: &ContainerRef) -> String {
    match container.self_type.view() {
        TypeView::Bounds(bounds) if container.blanket => {
            let parameter = container
                .name
                .strip_prefix('<')
                .and_then(|n| n.split(" as ").next())
                .unwrap_or("T");
            let bounds: Vec<String> = bounds
                .iter()
                .map(|bound| display_type(&bound.to_type_ref()))
                .collect();
            format!("{parameter}: {}", bounds.join(" + "))
        }
        _ => display_type(&container.self_type.to_type_ref()),
    }
}
