//! A file's types and value chains as written ([`TypeRef`], [`ValueChain`]), kept for
//! resolution in one compact arena per file: each type and chain a small fixed record,
//! their parts (arguments, members, steps) as lists of ids, every name once in a table
//! of paths. The syntax crate's trees gave each path segment, argument list and step its
//! own allocation: on `rustreg` every file's types and chains took 68 MiB (by capacity)
//! of the 298 MiB the facts take once parsed; as records, a cold build allocates 40 MiB
//! less (benches/README.md, "Types and value chains in one arena per file"). Read
//! through views ([`TypeAt`], [`ChainAt`]) shaped as the trees.

use rustc_hash::FxHashMap as HashMap;

use mcursor_syntax::{Callee, TypeRef, ValueChain, ValueRoot, ValueStep};

use super::NONE;
use super::facts::{read_id, stored_id};

/// What a type record is; its two ids (`a`, `b`) mean what each variant says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
enum TypeShape {
    /// `a`: the path; `b`: the list of its arguments, or `NONE`.
    Named,
    SelfType,
    /// `a`: the list of bounds.
    Bounds,
    /// `a`: the element type.
    Array,
    /// `a`: the list of elements.
    Tuple,
    /// `a`: the list of members.
    Union,
    /// `a`: the list of parameters; `b`: the return type.
    Function,
    /// `a`: the name, a path of one segment.
    Builtin,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "StoredTypeRecord", from = "StoredTypeRecord")]
struct TypeRecord {
    shape: TypeShape,
    a: u32,
    b: u32,
}

/// A [`TypeRecord`] as the facts cache stores it (its ids as [`stored_id`]s).
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredTypeRecord(TypeShape, u32, u32);

impl From<TypeRecord> for StoredTypeRecord {
    fn from(t: TypeRecord) -> Self {
        StoredTypeRecord(t.shape, stored_id(t.a), stored_id(t.b))
    }
}

impl From<StoredTypeRecord> for TypeRecord {
    fn from(StoredTypeRecord(shape, a, b): StoredTypeRecord) -> Self {
        TypeRecord {
            shape,
            a: read_id(a),
            b: read_id(b),
        }
    }
}

/// Where a chain starts; its ids mean what each variant says.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
enum RootShape {
    SelfValue,
    Super,
    /// `a`: the type.
    Typed,
    /// `a`: the path.
    Path,
    /// `a`: the path called.
    Call,
    /// `a`: the receiver's chain, `b`: the method's name (a path of one segment).
    CallbackOfMethod,
    /// `a`: the path of the function.
    CallbackOfFunction,
    /// `a`: the type constructed.
    CallbackOfConstructor,
    Unknown,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "StoredChainRecord", from = "StoredChainRecord")]
struct ChainRecord {
    root: RootShape,
    a: u32,
    b: u32,
    /// A callback's argument and parameter (0 for other roots).
    argument: u32,
    parameter: u32,
    /// The list of its steps ([`Step`]s), or `NONE`.
    steps: u32,
}

/// A [`ChainRecord`] as the facts cache stores it (its ids as [`stored_id`]s).
#[derive(serde::Serialize, serde::Deserialize)]
struct StoredChainRecord(RootShape, u32, u32, u32, u32, u32);

impl From<ChainRecord> for StoredChainRecord {
    fn from(c: ChainRecord) -> Self {
        StoredChainRecord(
            c.root,
            stored_id(c.a),
            stored_id(c.b),
            c.argument,
            c.parameter,
            stored_id(c.steps),
        )
    }
}

impl From<StoredChainRecord> for ChainRecord {
    fn from(StoredChainRecord(root, a, b, argument, parameter, steps): StoredChainRecord) -> Self {
        ChainRecord {
            root,
            a: read_id(a),
            b: read_id(b),
            argument,
            parameter,
            steps: read_id(steps),
        }
    }
}

/// A step's kind: the low bits of its list entry, a field's or method's name (a path of
/// one segment) above them.
#[derive(Clone, Copy)]
enum StepKind {
    Field,
    Call,
    Unwrap,
    Index,
    Element,
    Await,
}

impl StepKind {
    const ALL: [StepKind; 6] = [
        StepKind::Field,
        StepKind::Call,
        StepKind::Unwrap,
        StepKind::Index,
        StepKind::Element,
        StepKind::Await,
    ];
    const BITS: u32 = 3;

    /// The list entry of a step of this kind (`name`: 0 for a kind without one; a file
    /// has far fewer than 2^29 distinct names).
    fn entry(self, name: u32) -> u32 {
        name << Self::BITS | self as u32
    }

    /// A list entry's kind (`None`: damage) and name.
    fn of_entry(entry: u32) -> (Option<StepKind>, u32) {
        let kind = Self::ALL.get((entry & ((1 << Self::BITS) - 1)) as usize);
        (kind.copied(), entry >> Self::BITS)
    }
}

/// Distinct paths (and single names) as their segments back to back and where each
/// path's segments end: the segments stay `String`s, since the resolvers take paths as
/// `&[String]`, but a path written a hundred times in a file is held once.
#[derive(Debug, Default, Clone, serde::Deserialize)]
#[serde(from = "StoredPathTable")]
struct PathTable {
    segments: Vec<String>,
    ends: Vec<u32>,
}

/// A [`PathTable`] as the facts cache stores it: each path's segment count, one byte as a
/// varint where its end would take two or three.
#[derive(serde::Deserialize)]
struct StoredPathTable {
    segments: Vec<String>,
    counts: Vec<u32>,
}

/// The ends of consecutive runs (a path's segments, a string's bytes) serialized as the
/// runs' lengths, which are smaller varints; [`ends_of_lengths`] reads them back.
pub(super) struct EndsAsLengths<'a>(pub &'a [u32]);

impl serde::Serialize for EndsAsLengths<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let starts = std::iter::once(0).chain(self.0.iter().copied());
        serializer.collect_seq(
            starts
                .zip(self.0)
                .map(|(start, end)| end.wrapping_sub(start)),
        )
    }
}

/// The ends [`EndsAsLengths`] wrote, in place of the lengths read. Lengths that run past
/// what they count (damage) give ends that the readers take as empty runs.
pub(super) fn ends_of_lengths(mut lengths: Vec<u32>) -> Vec<u32> {
    let mut end = 0u32;
    for length in &mut lengths {
        end = end.wrapping_add(*length);
        *length = end;
    }
    lengths
}

/// Written as [`StoredPathTable`] is read, without a copy of the segments.
impl serde::Serialize for PathTable {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut stored = serializer.serialize_struct("StoredPathTable", 2)?;
        stored.serialize_field("segments", &self.segments)?;
        stored.serialize_field("counts", &EndsAsLengths(&self.ends))?;
        stored.end()
    }
}

impl From<StoredPathTable> for PathTable {
    fn from(stored: StoredPathTable) -> Self {
        PathTable {
            segments: stored.segments,
            ends: ends_of_lengths(stored.counts),
        }
    }
}

impl PathTable {
    /// Path `id`; empty when there is none (damage reads as an empty path).
    fn get(&self, id: u32) -> &[String] {
        let id = id as usize;
        let Some(&end) = self.ends.get(id) else {
            return &[];
        };
        let start = if id == 0 { 0 } else { self.ends[id - 1] };
        self.segments
            .get(start as usize..end as usize)
            .unwrap_or(&[])
    }

    /// Name `id` (a path of one segment).
    fn name(&self, id: u32) -> &str {
        self.get(id).first().map_or("", String::as_str)
    }
}

/// One file's types and value chains (see the module docs). Type and chain ids are
/// indices into its records; a record's parts always have smaller ids than it has (they
/// are added first), which [`Written::holds_together`] checks of a cache entry, so
/// following them always ends.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Written {
    types: Vec<TypeRecord>,
    chains: Vec<ChainRecord>,
    /// Lists of ids, each after its count.
    lists: Vec<u32>,
    paths: PathTable,
}

/// Deepest a type or chain is followed when made back into a tree (a guard against
/// damage that no checksum caught; written types are far shallower).
const MAX_DEPTH: usize = 128;

impl Written {
    /// Type `id`; `None` when there is none (`NONE`, or out of range).
    pub fn type_at(&self, id: u32) -> Option<TypeAt<'_>> {
        ((id as usize) < self.types.len()).then_some(TypeAt { written: self, id })
    }

    /// Type `id`, which reads as unknown when there is none (damage the cache's checksum
    /// missed).
    pub fn type_or_unknown(&self, id: u32) -> TypeAt<'_> {
        TypeAt { written: self, id }
    }

    /// Chain `id`; `None` when there is none.
    pub fn chain_at(&self, id: u32) -> Option<ChainAt<'_>> {
        ((id as usize) < self.chains.len()).then_some(ChainAt { written: self, id })
    }

    /// The ids the list at `start` holds (after its count); empty for `NONE` or damage.
    fn list(&self, start: u32) -> &[u32] {
        if start == NONE {
            return &[];
        }
        let start = start as usize;
        let Some(&count) = self.lists.get(start) else {
            return &[];
        };
        start
            .checked_add(1 + count as usize)
            .and_then(|end| self.lists.get(start + 1..end))
            .unwrap_or(&[])
    }

    /// A type record's parts: its path or name (a path id), and the ids of the types it
    /// is made of (what [`TypeAt::view`] reads, for the passes over every record).
    fn type_parts(&self, t: &TypeRecord) -> (Option<u32>, impl Iterator<Item = u32> + '_) {
        let (path, list, single) = match t.shape {
            TypeShape::Named => (Some(t.a), t.b, None),
            TypeShape::Bounds | TypeShape::Tuple | TypeShape::Union => (None, t.a, None),
            TypeShape::Array => (None, NONE, Some(t.a)),
            TypeShape::Function => (None, t.a, Some(t.b)),
            TypeShape::Builtin => (Some(t.a), NONE, None),
            TypeShape::SelfType | TypeShape::Unknown => (None, NONE, None),
        };
        (path, self.list(list).iter().copied().chain(single))
    }

    /// The names (path ids) of the field and method steps the list at `start` holds.
    fn step_names(&self, start: u32) -> impl Iterator<Item = u32> + '_ {
        self.list(start)
            .iter()
            .filter_map(|&entry| match StepKind::of_entry(entry) {
                (Some(StepKind::Field | StepKind::Call), name) => Some(name),
                (
                    Some(StepKind::Unwrap | StepKind::Index | StepKind::Element | StepKind::Await)
                    | None,
                    _,
                ) => None,
            })
    }

    /// The steps the list at `start` holds.
    fn steps(&self, start: u32) -> impl Iterator<Item = StepView<'_>> {
        self.list(start).iter().map(|&entry| {
            let (kind, name) = StepKind::of_entry(entry);
            match kind {
                Some(StepKind::Field) => StepView::Field(self.paths.name(name)),
                Some(StepKind::Call) => StepView::Call(self.paths.name(name)),
                Some(StepKind::Unwrap) => StepView::Unwrap,
                Some(StepKind::Index) => StepView::Index,
                Some(StepKind::Element) => StepView::Element,
                Some(StepKind::Await) => StepView::Await,
                // Damage reads as a step through an unknown index.
                None => StepView::Index,
            }
        })
    }

    fn type_list(&self, start: u32) -> TypeList<'_> {
        TypeList {
            written: self,
            ids: self.list(start),
        }
    }

    /// Every name the types and chains are written with (path segments, built-in type
    /// names, fields and methods), each distinct path once.
    pub fn for_each_name(&self, f: &mut impl FnMut(&str)) {
        self.paths.segments.iter().for_each(|s| f(s));
    }

    /// Per type, then per chain: whether it is written with a name `wanted` accepts
    /// (its parts' names included).
    pub fn mentioning(&self, wanted: &mut impl FnMut(&str) -> bool) -> (Vec<bool>, Vec<bool>) {
        let mut path_has = |id: u32| self.paths.get(id).iter().any(|s| wanted(s));
        let mut typed = vec![false; self.types.len()];
        for (i, t) in self.types.iter().enumerate() {
            let (path, mut parts) = self.type_parts(t);
            typed[i] = path.is_some_and(&mut path_has)
                || parts.any(|id| typed.get(id as usize).copied().unwrap_or(false));
        }
        let mut valued = vec![false; self.chains.len()];
        for (i, c) in self.chains.iter().enumerate() {
            let type_part = |id: u32| typed.get(id as usize).copied().unwrap_or(false);
            let root = match c.root {
                RootShape::Typed | RootShape::CallbackOfConstructor => type_part(c.a),
                RootShape::Path | RootShape::Call | RootShape::CallbackOfFunction => path_has(c.a),
                RootShape::CallbackOfMethod => {
                    valued.get(c.a as usize).copied().unwrap_or(false) || path_has(c.b)
                }
                RootShape::SelfValue | RootShape::Super | RootShape::Unknown => false,
            };
            valued[i] = root || self.step_names(c.steps).any(&mut path_has);
        }
        (typed, valued)
    }

    /// Whether following the records' parts always ends: every part has a smaller id
    /// than its record (as [`WrittenBuilder`] adds them). A cache entry where this does
    /// not hold is refused.
    pub fn holds_together(&self) -> bool {
        let types_ok = self
            .types
            .iter()
            .enumerate()
            .all(|(i, t)| self.type_parts(t).1.all(|id| (id as usize) < i));
        types_ok
            && self
                .chains
                .iter()
                .enumerate()
                .all(|(i, c)| c.root != RootShape::CallbackOfMethod || (c.a as usize) < i)
    }
}

/// A type of a file's [`Written`] arena.
#[derive(Clone, Copy)]
pub(crate) struct TypeAt<'f> {
    written: &'f Written,
    id: u32,
}

/// A type read, shaped as [`TypeRef`] (see it for what each variant means).
pub(crate) enum TypeView<'f> {
    Named {
        path: &'f [String],
        args: TypeList<'f>,
    },
    SelfType,
    Bounds(TypeList<'f>),
    Array(TypeAt<'f>),
    Tuple(TypeList<'f>),
    Union(TypeList<'f>),
    Function {
        params: TypeList<'f>,
        ret: TypeAt<'f>,
    },
    Builtin(&'f str),
    Unknown,
}

/// Types listed in a [`Written`] arena (a type's arguments, bounds, members...).
#[derive(Clone, Copy)]
pub(crate) struct TypeList<'f> {
    written: &'f Written,
    ids: &'f [u32],
}

impl<'f> TypeList<'f> {
    pub fn iter(self) -> impl Iterator<Item = TypeAt<'f>> + use<'f> {
        let written = self.written;
        self.ids.iter().map(move |&id| TypeAt { written, id })
    }

    pub fn get(self, index: usize) -> Option<TypeAt<'f>> {
        let id = *self.ids.get(index)?;
        Some(TypeAt {
            written: self.written,
            id,
        })
    }

    pub fn first(self) -> Option<TypeAt<'f>> {
        self.get(0)
    }
}

/// A type id that names no type (damage the cache's checksum missed) reads as unknown.
const UNKNOWN_TYPE: TypeRecord = TypeRecord {
    shape: TypeShape::Unknown,
    a: NONE,
    b: NONE,
};

impl<'f> TypeAt<'f> {
    pub fn view(self) -> TypeView<'f> {
        let w = self.written;
        let t = w.types.get(self.id as usize).unwrap_or(&UNKNOWN_TYPE);
        let at = |id: u32| TypeAt { written: w, id };
        match t.shape {
            TypeShape::Named => TypeView::Named {
                path: w.paths.get(t.a),
                args: w.type_list(t.b),
            },
            TypeShape::SelfType => TypeView::SelfType,
            TypeShape::Bounds => TypeView::Bounds(w.type_list(t.a)),
            TypeShape::Array => TypeView::Array(at(t.a)),
            TypeShape::Tuple => TypeView::Tuple(w.type_list(t.a)),
            TypeShape::Union => TypeView::Union(w.type_list(t.a)),
            TypeShape::Function => TypeView::Function {
                params: w.type_list(t.a),
                ret: at(t.b),
            },
            TypeShape::Builtin => TypeView::Builtin(w.paths.name(t.a)),
            TypeShape::Unknown => TypeView::Unknown,
        }
    }

    /// The last segment of a named type's path.
    pub fn named_last(self) -> Option<&'f String> {
        match self.view() {
            TypeView::Named { path, .. } => path.last(),
            _ => None,
        }
    }

    /// The type as a tree (for comparing two versions of a file's interface).
    pub fn to_type_ref(self) -> TypeRef {
        self.tree(0)
    }

    fn tree(self, depth: usize) -> TypeRef {
        if depth > MAX_DEPTH {
            return TypeRef::Unknown;
        }
        let list = |l: TypeList| l.iter().map(|t| t.tree(depth + 1)).collect();
        match self.view() {
            TypeView::Named { path, args } => TypeRef::Named {
                path: path.to_vec(),
                args: list(args),
            },
            TypeView::SelfType => TypeRef::SelfType,
            TypeView::Bounds(l) => TypeRef::Bounds(list(l)),
            TypeView::Array(element) => TypeRef::Array(Box::new(element.tree(depth + 1))),
            TypeView::Tuple(l) => TypeRef::Tuple(list(l)),
            TypeView::Union(l) => TypeRef::Union(list(l)),
            TypeView::Function { params, ret } => TypeRef::Function {
                params: list(params),
                ret: Box::new(ret.tree(depth + 1)),
            },
            TypeView::Builtin(name) => TypeRef::Builtin(name.to_owned()),
            TypeView::Unknown => TypeRef::Unknown,
        }
    }
}

/// Hashes what the type is, not its id: the same type written in two versions of a file
/// hashes alike (a use's memo key, `use_key`, holds its receiver's chain).
impl std::hash::Hash for TypeAt<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.hash_at(state, 0);
    }
}

impl TypeAt<'_> {
    fn hash_at<H: std::hash::Hasher>(self, state: &mut H, depth: usize) {
        use std::hash::Hash;
        if depth > MAX_DEPTH {
            return;
        }
        let list = |l: TypeList, state: &mut H| {
            l.ids.len().hash(state);
            l.iter().for_each(|t| t.hash_at(state, depth + 1));
        };
        let t = self
            .written
            .types
            .get(self.id as usize)
            .unwrap_or(&UNKNOWN_TYPE);
        t.shape.hash(state);
        match self.view() {
            TypeView::Named { path, args } => {
                path.hash(state);
                list(args, state);
            }
            TypeView::Bounds(l) | TypeView::Tuple(l) | TypeView::Union(l) => list(l, state),
            TypeView::Array(element) => element.hash_at(state, depth + 1),
            TypeView::Function { params, ret } => {
                list(params, state);
                ret.hash_at(state, depth + 1);
            }
            TypeView::Builtin(name) => name.hash(state),
            TypeView::SelfType | TypeView::Unknown => {}
        }
    }
}

/// A value chain of a file's [`Written`] arena.
#[derive(Clone, Copy)]
pub(crate) struct ChainAt<'f> {
    written: &'f Written,
    id: u32,
}

/// Hashes what the chain is, not its id (see [`TypeAt`]'s hash).
impl std::hash::Hash for ChainAt<'_> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.hash_at(state, 0);
    }
}

/// Where a chain starts, shaped as [`ValueRoot`].
pub(crate) enum RootView<'f> {
    SelfValue,
    Super,
    Typed(TypeAt<'f>),
    Path(&'f [String]),
    Call(&'f [String]),
    Callback {
        callee: CalleeView<'f>,
        argument: u32,
        parameter: u32,
    },
    Unknown,
}

/// What a callback's call calls, shaped as [`Callee`].
pub(crate) enum CalleeView<'f> {
    Method {
        receiver: ChainAt<'f>,
        name: &'f str,
    },
    Function(&'f [String]),
    Constructor(TypeAt<'f>),
}

/// A step of a chain, shaped as [`ValueStep`].
pub(crate) enum StepView<'f> {
    Field(&'f str),
    Call(&'f str),
    Unwrap,
    Index,
    Element,
    Await,
}

const UNKNOWN_CHAIN: ChainRecord = ChainRecord {
    root: RootShape::Unknown,
    a: NONE,
    b: NONE,
    argument: 0,
    parameter: 0,
    steps: NONE,
};

impl<'f> ChainAt<'f> {
    fn record(self) -> &'f ChainRecord {
        self.written
            .chains
            .get(self.id as usize)
            .unwrap_or(&UNKNOWN_CHAIN)
    }

    pub fn root(self) -> RootView<'f> {
        let w = self.written;
        let c = self.record();
        let ty = |id: u32| TypeAt { written: w, id };
        let callback = |callee| RootView::Callback {
            callee,
            argument: c.argument,
            parameter: c.parameter,
        };
        match c.root {
            RootShape::SelfValue => RootView::SelfValue,
            RootShape::Super => RootView::Super,
            RootShape::Typed => RootView::Typed(ty(c.a)),
            RootShape::Path => RootView::Path(w.paths.get(c.a)),
            RootShape::Call => RootView::Call(w.paths.get(c.a)),
            RootShape::CallbackOfMethod => callback(CalleeView::Method {
                receiver: ChainAt {
                    written: w,
                    id: c.a,
                },
                name: w.paths.name(c.b),
            }),
            RootShape::CallbackOfFunction => callback(CalleeView::Function(w.paths.get(c.a))),
            RootShape::CallbackOfConstructor => callback(CalleeView::Constructor(ty(c.a))),
            RootShape::Unknown => RootView::Unknown,
        }
    }

    pub fn steps(self) -> impl Iterator<Item = StepView<'f>> + use<'f> {
        self.written.steps(self.record().steps)
    }

    fn hash_at<H: std::hash::Hasher>(self, state: &mut H, depth: usize) {
        use std::hash::Hash;
        if depth > MAX_DEPTH {
            return;
        }
        let c = self.record();
        c.root.hash(state);
        match self.root() {
            RootView::Typed(t) => t.hash(state),
            RootView::Path(path) | RootView::Call(path) => path.hash(state),
            RootView::Callback {
                callee,
                argument,
                parameter,
            } => {
                match callee {
                    CalleeView::Method { receiver, name } => {
                        receiver.hash_at(state, depth + 1);
                        name.hash(state);
                    }
                    CalleeView::Function(path) => path.hash(state),
                    CalleeView::Constructor(t) => t.hash(state),
                }
                (argument, parameter).hash(state);
            }
            RootView::SelfValue | RootView::Super | RootView::Unknown => {}
        }
        for step in self.steps() {
            std::mem::discriminant(&step).hash(state);
            if let StepView::Field(name) | StepView::Call(name) = step {
                name.hash(state);
            }
        }
    }

    /// The chain as a tree (for comparing two versions of a file's interface).
    pub fn to_chain(self) -> ValueChain {
        self.tree(0)
    }

    fn tree(self, depth: usize) -> ValueChain {
        if depth > MAX_DEPTH {
            return ValueChain::unknown();
        }
        let callback = |callee, argument, parameter| ValueRoot::Callback {
            callee,
            argument,
            parameter,
        };
        let root = match self.root() {
            RootView::SelfValue => ValueRoot::SelfValue,
            RootView::Super => ValueRoot::Super,
            RootView::Typed(t) => ValueRoot::Typed(t.to_type_ref()),
            RootView::Path(path) => ValueRoot::Path(path.to_vec()),
            RootView::Call(path) => ValueRoot::Call(path.to_vec()),
            RootView::Callback {
                callee,
                argument,
                parameter,
            } => {
                let callee = match callee {
                    CalleeView::Method { receiver, name } => Callee::Method {
                        receiver: Box::new(receiver.tree(depth + 1)),
                        name: name.to_owned(),
                    },
                    CalleeView::Function(path) => Callee::Function(path.to_vec()),
                    CalleeView::Constructor(t) => Callee::Constructor(t.to_type_ref()),
                };
                callback(callee, argument, parameter)
            }
            RootView::Unknown => ValueRoot::Unknown,
        };
        let steps = self
            .steps()
            .map(|step| match step {
                StepView::Field(name) => ValueStep::Field(name.to_owned()),
                StepView::Call(name) => ValueStep::Call(name.to_owned()),
                StepView::Unwrap => ValueStep::Unwrap,
                StepView::Index => ValueStep::Index,
                StepView::Element => ValueStep::Element,
                StepView::Await => ValueStep::Await,
            })
            .collect();
        ValueChain { root, steps }
    }
}

/// Makes a file's [`Written`] arena from its trees, each distinct type, chain, list and
/// path once.
#[derive(Default)]
pub(crate) struct WrittenBuilder {
    written: Written,
    type_ids: HashMap<TypeRecord, u32>,
    chain_ids: HashMap<ChainRecord, u32>,
    list_ids: HashMap<Vec<u32>, u32>,
    path_ids: HashMap<Vec<String>, u32>,
}

impl WrittenBuilder {
    pub fn finish(self) -> Written {
        self.written
    }

    fn path(&mut self, path: Vec<String>) -> u32 {
        if let Some(&id) = self.path_ids.get(path.as_slice()) {
            return id;
        }
        let table = &mut self.written.paths;
        let id = table.ends.len() as u32;
        table.segments.extend(path.iter().cloned());
        table.ends.push(table.segments.len() as u32);
        self.path_ids.insert(path, id);
        id
    }

    fn name(&mut self, name: String) -> u32 {
        self.path(vec![name])
    }

    /// The list of `ids`; `NONE` for none.
    fn list(&mut self, ids: Vec<u32>) -> u32 {
        if ids.is_empty() {
            return NONE;
        }
        if let Some(&start) = self.list_ids.get(&ids) {
            return start;
        }
        let lists = &mut self.written.lists;
        let start = lists.len() as u32;
        lists.push(ids.len() as u32);
        lists.extend_from_slice(&ids);
        self.list_ids.insert(ids, start);
        start
    }

    fn types(&mut self, types: Vec<TypeRef>) -> u32 {
        let ids = types.into_iter().map(|t| self.add_type(t)).collect();
        self.list(ids)
    }

    /// Type `t`'s id (its parts added first).
    pub fn add_type(&mut self, t: TypeRef) -> u32 {
        let (shape, a, b) = match t {
            TypeRef::Named { path, args } => (TypeShape::Named, self.path(path), self.types(args)),
            TypeRef::SelfType => (TypeShape::SelfType, NONE, NONE),
            TypeRef::Bounds(list) => (TypeShape::Bounds, self.types(list), NONE),
            TypeRef::Array(element) => (TypeShape::Array, self.add_type(*element), NONE),
            TypeRef::Tuple(list) => (TypeShape::Tuple, self.types(list), NONE),
            TypeRef::Union(list) => (TypeShape::Union, self.types(list), NONE),
            TypeRef::Function { params, ret } => {
                let params = self.types(params);
                (TypeShape::Function, params, self.add_type(*ret))
            }
            TypeRef::Builtin(name) => (TypeShape::Builtin, self.name(name), NONE),
            TypeRef::Unknown => (TypeShape::Unknown, NONE, NONE),
        };
        let record = TypeRecord { shape, a, b };
        if let Some(&id) = self.type_ids.get(&record) {
            return id;
        }
        let id = self.written.types.len() as u32;
        self.written.types.push(record);
        self.type_ids.insert(record, id);
        id
    }

    /// Chain `c`'s id (its parts added first).
    pub fn add_chain(&mut self, c: ValueChain) -> u32 {
        let (root, a, b, argument, parameter) = match c.root {
            ValueRoot::SelfValue => (RootShape::SelfValue, NONE, NONE, 0, 0),
            ValueRoot::Super => (RootShape::Super, NONE, NONE, 0, 0),
            ValueRoot::Typed(t) => (RootShape::Typed, self.add_type(t), NONE, 0, 0),
            ValueRoot::Path(path) => (RootShape::Path, self.path(path), NONE, 0, 0),
            ValueRoot::Call(path) => (RootShape::Call, self.path(path), NONE, 0, 0),
            ValueRoot::Callback {
                callee,
                argument,
                parameter,
            } => {
                let (shape, a, b) = match callee {
                    Callee::Method { receiver, name } => {
                        let receiver = self.add_chain(*receiver);
                        (RootShape::CallbackOfMethod, receiver, self.name(name))
                    }
                    Callee::Function(path) => {
                        (RootShape::CallbackOfFunction, self.path(path), NONE)
                    }
                    Callee::Constructor(t) => {
                        (RootShape::CallbackOfConstructor, self.add_type(t), NONE)
                    }
                };
                (shape, a, b, argument, parameter)
            }
            ValueRoot::Unknown => (RootShape::Unknown, NONE, NONE, 0, 0),
        };
        let steps = c
            .steps
            .into_iter()
            .map(|step| match step {
                ValueStep::Field(name) => StepKind::Field.entry(self.name(name)),
                ValueStep::Call(name) => StepKind::Call.entry(self.name(name)),
                ValueStep::Unwrap => StepKind::Unwrap.entry(0),
                ValueStep::Index => StepKind::Index.entry(0),
                ValueStep::Element => StepKind::Element.entry(0),
                ValueStep::Await => StepKind::Await.entry(0),
            })
            .collect();
        let record = ChainRecord {
            root,
            a,
            b,
            argument,
            parameter,
            steps: self.list(steps),
        };
        if let Some(&id) = self.chain_ids.get(&record) {
            return id;
        }
        let id = self.written.chains.len() as u32;
        self.written.chains.push(record);
        self.chain_ids.insert(record, id);
        id
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn named(path: &[&str], args: Vec<TypeRef>) -> TypeRef {
        TypeRef::Named {
            path: path.iter().map(|s| s.to_string()).collect(),
            args,
        }
    }

    #[test]
    fn types_and_chains_read_back_as_written_each_distinct_one_once() {
        let option_cart = named(&["Option"], vec![named(&["Cart"], vec![])]);
        let types = [
            option_cart.clone(),
            TypeRef::SelfType,
            TypeRef::Bounds(vec![named(&["a", "Read"], vec![]), TypeRef::Unknown]),
            TypeRef::Array(Box::new(TypeRef::Builtin("u8".into()))),
            TypeRef::Tuple(vec![TypeRef::Builtin("str".into()), option_cart.clone()]),
            TypeRef::Union(vec![named(&["Cart"], vec![]), TypeRef::SelfType]),
            TypeRef::Function {
                params: vec![named(&["Cart"], vec![])],
                ret: Box::new(option_cart.clone()),
            },
            option_cart.clone(),
        ];
        let chains = [
            ValueChain {
                root: ValueRoot::SelfValue,
                steps: vec![
                    ValueStep::Field("config".into()),
                    ValueStep::Call("load".into()),
                    ValueStep::Unwrap,
                    ValueStep::Index,
                    ValueStep::Element,
                    ValueStep::Await,
                ],
            },
            ValueChain {
                root: ValueRoot::Typed(option_cart.clone()),
                steps: vec![],
            },
            ValueChain {
                root: ValueRoot::Callback {
                    callee: Callee::Method {
                        receiver: Box::new(ValueChain {
                            root: ValueRoot::Path(vec!["items".into()]),
                            steps: vec![ValueStep::Call("iter".into())],
                        }),
                        name: "find".into(),
                    },
                    argument: 1,
                    parameter: 2,
                },
                steps: vec![],
            },
            ValueChain {
                root: ValueRoot::Callback {
                    callee: Callee::Function(vec!["spawn".into()]),
                    argument: 0,
                    parameter: 0,
                },
                steps: vec![],
            },
            ValueChain {
                root: ValueRoot::Callback {
                    callee: Callee::Constructor(named(&["Observable"], vec![])),
                    argument: 0,
                    parameter: 1,
                },
                steps: vec![],
            },
            ValueChain {
                root: ValueRoot::Call(vec!["Foo".into(), "new".into()]),
                steps: vec![],
            },
            ValueChain::unknown(),
            ValueChain {
                root: ValueRoot::Super,
                steps: vec![],
            },
        ];
        let mut builder = WrittenBuilder::default();
        let type_ids: Vec<u32> = types.iter().cloned().map(|t| builder.add_type(t)).collect();
        let chain_ids: Vec<u32> = chains
            .iter()
            .cloned()
            .map(|c| builder.add_chain(c))
            .collect();
        let written = builder.finish();
        assert!(written.holds_together());
        // As the facts cache stores and reads it (ids that are often `NONE` plus one).
        let stored = postcard::to_stdvec(&written).expect("encodes");
        let read: Written = postcard::from_bytes(&stored).expect("decodes");
        assert_eq!(format!("{read:?}"), format!("{written:?}"));
        let written = read;
        for (t, id) in types.iter().zip(&type_ids) {
            let read = written.type_at(*id).expect("a type");
            assert_eq!(&read.to_type_ref(), t);
        }
        for (c, id) in chains.iter().zip(&chain_ids) {
            assert_eq!(&written.chain_at(*id).expect("a chain").to_chain(), c);
        }
        assert_eq!(
            type_ids[0], type_ids[7],
            "a type written twice is held once"
        );
        // Option, Cart, a::Read, u8, str, items, iter, find, spawn, Observable, Foo::new,
        // config, load: each path once.
        assert_eq!(written.paths.ends.len(), 13);
        assert!(written.type_at(written.types.len() as u32).is_none());
        assert!(written.chain_at(NONE).is_none());

        let (typed, valued) = written.mentioning(&mut |n| n == "Cart");
        assert!(typed[type_ids[0] as usize] && typed[type_ids[6] as usize]);
        assert!(!typed[type_ids[2] as usize] && !typed[type_ids[3] as usize]);
        assert!(valued[chain_ids[1] as usize] && !valued[chain_ids[0] as usize]);
        let (_, valued) = written.mentioning(&mut |n| n == "iter");
        assert!(
            valued[chain_ids[2] as usize],
            "a callback's receiver's names count"
        );
        let (_, valued) = written.mentioning(&mut |n| n == "load");
        assert!(valued[chain_ids[0] as usize], "a step's name counts");
    }

    #[test]
    fn records_whose_parts_do_not_come_first_are_refused_and_damage_reads_as_unknown() {
        let mut builder = WrittenBuilder::default();
        let id = builder.add_type(TypeRef::Array(Box::new(TypeRef::Unknown)));
        let mut written = builder.finish();
        assert!(written.holds_together());
        // The array's element made the array itself: a cycle.
        written.types[id as usize].a = id;
        assert!(!written.holds_together());
        // Read anyway, it ends (the depth guard) and an id past the records is unknown.
        assert!(matches!(
            TypeAt {
                written: &written,
                id: 99
            }
            .view(),
            TypeView::Unknown
        ));
        let mut depth = 0;
        let mut t = written.type_at(id).expect("a type").to_type_ref();
        while let TypeRef::Array(inner) = t {
            depth += 1;
            t = *inner;
        }
        assert_eq!(depth, MAX_DEPTH + 1);

        let mut builder = WrittenBuilder::default();
        let receiver = builder.add_chain(ValueChain::unknown());
        let id = builder.add_chain(ValueChain {
            root: ValueRoot::Callback {
                callee: Callee::Method {
                    receiver: Box::new(ValueChain::unknown()),
                    name: "map".into(),
                },
                argument: 0,
                parameter: 0,
            },
            steps: vec![],
        });
        let mut written = builder.finish();
        assert!(written.holds_together());
        written.chains[id as usize].a = id;
        assert!(!written.holds_together());
        written.chains[id as usize].a = receiver;
        written.chains[id as usize].steps = 7_000;
        assert_eq!(written.chain_at(id).expect("a chain").steps().count(), 0);
    }
}
