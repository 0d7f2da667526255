//! `mcursor index`: walk, read and parse in parallel, resolve, then commit the symbol store
//! and the text index together as one new generation.
//!
//! Commit protocol (what makes a killed build harmless):
//! 0. The text index's new segments are written (`prepare_commit`), unpublished.
//! 1. `graph-<g+1>.bin` is written under a temporary name, synced and renamed (with the
//!    facts cache; steps 0 and 1 run side by side and both end before step 2).
//! 2. The text index commits with `{"generation": g+1}` as its payload. Tantivy swaps its
//!    `meta.json` by rename, so this is the single commit point for both.
//! 3. Older graph files are removed, keeping the previous one for readers that opened it.
//!
//! The protocol is written once, in `commit_generation`: a patch and a full build differ
//! only in what they write before the commit point (a patch store over its base and the
//! patch's cache entries, or a whole store and cache).
//!
//! A reader takes the generation from the text index's committed payload and opens the
//! graph file of that generation, so it always sees a matching pair.

use std::borrow::Cow;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use mcursor_syntax::{Lang, ParseConfig, parse_source};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::cache;
use crate::error::{IndexError, IoContext, Result};
use crate::lock::{self, LockWait};
use crate::resident::{ResidentDeclarations, Stamp, TreeDeclarations};
use crate::resolve::{
    self, CompactFacts, FileMemo, Keep, KnownHeads, NameSet, ParsedFile, Texts, cargo_package_name,
    go_module_path, rows_from_memo,
};
use crate::store::{self, FileInfo, FileRow, RefRow, SymbolRow};
use crate::trace::{note, trace};
use crate::walk::{self, INDEX_DIR, SkipReason, Skipped, WalkOptions};
use crate::{FORMAT_FILE, TEXT_DIR, format_marker, text};
use mcursor_syntax::SymbolKind;

/// Options of one build.
#[derive(Debug, Clone)]
pub struct BuildOptions {
    /// Files larger than this are skipped. `None` (the default): the limit the existing
    /// index was built with, else [`DEFAULT_MAX_FILE_SIZE`].
    pub max_file_size: Option<u64>,
    /// Worker threads for walking and parsing (default: the machine's cores).
    pub threads: usize,
    /// Deadline for one file's parse and extraction.
    pub parse_timeout: Duration,
    /// Wait for another writer (default) or fail at once.
    pub lock_wait: LockWait,
    /// Rebuild even when no file changed since the last build.
    pub full: bool,
    /// Absolute paths of the files that may have changed since the last build, when the
    /// caller knows them (a file watcher, the agent after an edit): if all of them are
    /// indexed files and the update can be a patch, the tree is not walked. Otherwise the
    /// build walks the tree as usual.
    pub changed_paths: Option<Vec<PathBuf>>,
    /// Resolve every file again from the cached facts (parsing only what changed), even
    /// when nothing changed: the patches since the last full resolution fold into a new
    /// base, so later patches carry none of their files (`watch` does this when idle).
    pub compact: bool,
    /// Every file's declarations, kept between the updates of a long-running process
    /// (`watch`): an interface patch takes them from here instead of decoding the facts
    /// cache, and each commit brings them up to date. `None` (the default): read when
    /// needed, freed after.
    pub resident: Option<ResidentDeclarations>,
    /// Stops a full resolution (a compaction, a rebuild from cached facts) once set:
    /// checked after the facts are loaded, between files while resolving and before the
    /// writes, so the build returns [`IndexError::Cancelled`] soon after, without
    /// committing. `watch` cancels a compaction this way when files change.
    pub cancel: Option<Cancel>,
}

/// A flag that cancels a build (see [`BuildOptions::cancel`]); clones share it.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<std::sync::atomic::AtomicBool>);

impl Cancel {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn cancel(&self) {
        self.0.store(true, Ordering::Relaxed);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}

/// When a long-running process (`watch`, a [`crate::LiveIndex`] that edits) folds the
/// patches of one base into a fresh base ([`BuildOptions::compact`]): after `idle`
/// without a change, when they carry `after_files` files or more. Every later patch
/// carries those files again, so small edits grow slower until they are folded.
#[derive(Debug, Clone, Copy)]
pub struct FoldPolicy {
    pub idle: Duration,
    pub after_files: usize,
}

impl Default for FoldPolicy {
    fn default() -> Self {
        Self {
            idle: Duration::from_secs(10),
            after_files: 32,
        }
    }
}

impl FoldPolicy {
    /// How many files the patches of the index of `root` carry, when that is enough to
    /// fold them.
    pub(crate) fn due(&self, root: &Path) -> Option<usize> {
        let carried = crate::Index::open(root).map_or(0, |i| i.store().patched_files().len());
        (carried >= self.after_files.max(1)).then_some(carried)
    }
}

/// The size limit of a new index when none is given.
pub const DEFAULT_MAX_FILE_SIZE: u64 = 1024 * 1024;

impl Default for BuildOptions {
    fn default() -> Self {
        Self {
            max_file_size: None,
            threads: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(2),
            parse_timeout: ParseConfig::default().timeout,
            lock_wait: LockWait::Wait,
            full: false,
            changed_paths: None,
            compact: false,
            resident: None,
            cancel: None,
        }
    }
}

/// Progress reports of a build, for a progress bar.
#[derive(Debug, Clone)]
pub enum Progress {
    /// Another process is writing this index; the build waits for it.
    WaitingForLock { holder: String },
    /// The walk found this many candidate files.
    Walked { files: usize },
    /// Files read and parsed so far.
    Parsed { done: usize, total: usize },
    /// Resolving names and writing the index.
    Writing,
}

/// What a build did.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct BuildSummary {
    pub root: PathBuf,
    /// Files indexed (text search covers all of them).
    pub files: usize,
    /// Files parsed for symbols, per language.
    pub parsed: BTreeMap<String, usize>,
    /// Source files of languages mcursor reads as text only (no symbols), per language.
    pub text_only: BTreeMap<String, usize>,
    /// Files not indexed, by reason key.
    pub skipped: BTreeMap<String, usize>,
    /// Each skipped file with its reason (the first 1,000).
    pub skipped_files: Vec<SkippedFile>,
    pub symbols: usize,
    pub references: usize,
    /// Files with syntax errors (indexed from their valid parts).
    pub syntax_errors: usize,
    /// Files whose parse ran past its deadline (indexed for text search only).
    pub timed_out: Vec<String>,
    pub source_bytes: u64,
    pub index_bytes: u64,
    pub generation: u64,
    pub duration_ms: u64,
    /// Nothing changed since the last build, so the index was left as it was.
    pub unchanged: bool,
    /// The previous generation was updated (only changed files parsed), not rebuilt.
    pub incremental: bool,
    /// The update was written as a patch over the previous store: only the files its
    /// edits reach were written again.
    pub patched: bool,
    /// Files whose references this build resolved with the tables of the whole tree:
    /// every file in a full resolution, those interface edits reach in a patch (see
    /// `prepare_interface_patch`), none in a patch of edits that kept every interface.
    pub resolved_files: usize,
    /// What changed since the previous generation (empty for a full build).
    pub changes: Changes,
    /// Unchanged files an update parsed again because the facts cache lacked them: it
    /// was missing or damaged, or written by another version of mcursor (a new layout
    /// of the cache makes the first update after an upgrade parse every file). Absent
    /// from a summary of an older version (a running watcher's): 0.
    #[serde(default)]
    pub reparsed: usize,
}

/// What an incremental build found changed.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Changes {
    pub added: usize,
    pub modified: usize,
    pub deleted: usize,
    pub renamed: usize,
    /// The changed files, sorted by path (the first 1,000).
    pub files: Vec<ChangedFile>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ChangedFile {
    pub path: String,
    pub change: Change,
    /// The old path of a renamed file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Change {
    Added,
    Modified,
    Deleted,
    Renamed,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

/// Decoded text of a source file: UTF-8 as is, UTF-16 with a byte order mark transcoded,
/// invalid UTF-8 replaced. A NUL byte anywhere makes the file binary.
pub fn decode_source(bytes: Vec<u8>) -> std::result::Result<String, SkipReason> {
    if let Some(rest) = bytes.strip_prefix(&[0xEF, 0xBB, 0xBF]) {
        return decode_source(rest.to_vec());
    }
    let utf16 = |little: bool| {
        let units = bytes[2..].chunks_exact(2).map(|c| {
            if little {
                u16::from_le_bytes([c[0], c[1]])
            } else {
                u16::from_be_bytes([c[0], c[1]])
            }
        });
        let text: String = char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect();
        if text.contains('\0') {
            Err(SkipReason::Binary)
        } else {
            Ok(text)
        }
    };
    match bytes.get(..2) {
        Some([0xFF, 0xFE]) => return utf16(true),
        Some([0xFE, 0xFF]) => return utf16(false),
        _ => {}
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Err(SkipReason::Binary);
    }
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) => Ok(String::from_utf8_lossy(e.as_bytes()).into_owned()),
    }
}

/// Canonical root of a directory to index, with the errors a user can act on.
pub fn check_root(path: &Path) -> Result<PathBuf> {
    let metadata = std::fs::metadata(path).map_err(|e| IndexError::on_user_path(path, e))?;
    if !metadata.is_dir() {
        return Err(IndexError::NotADirectory(path.to_path_buf()));
    }
    std::fs::canonicalize(path).at(path)
}

/// Builds the index of `root` in `root/.mcursor/`, or updates it: when a previous
/// generation exists (and `full` is not set), files whose size and modification time are
/// unchanged keep their cached facts and text document, files that differ are hashed and
/// only those whose content changed are parsed again; the text index changes by exactly
/// those documents. Names are then resolved across all files and the new generation is
/// committed (see the module docs). An unchanged tree commits nothing.
pub fn build_index(
    root: &Path,
    options: &BuildOptions,
    progress: &(dyn Fn(Progress) + Sync),
) -> Result<BuildSummary> {
    let started = Instant::now();
    let root = check_root(root)?;
    let dir = root.join(INDEX_DIR);
    std::fs::create_dir_all(&dir).at(&dir)?;
    let _lock = lock::acquire(&dir, options.lock_wait, &|holder| {
        progress(Progress::WaitingForLock {
            holder: holder.to_owned(),
        })
    })?;
    prepare_format(&dir)?;
    ignore_in_git(&dir)?;
    // The existing index, opened once: it gives the size limit when none is asked for,
    // and is what an update starts from.
    let existing = crate::Index::open_root(&root).ok();
    let recorded_limit = existing
        .as_ref()
        .and_then(|index| index.store().meta().max_file_size);
    let limit = options
        .max_file_size
        .or(recorded_limit)
        .unwrap_or(DEFAULT_MAX_FILE_SIZE);
    let options = &BuildOptions {
        max_file_size: Some(limit),
        ..options.clone()
    };
    let previous = match existing {
        Some(index) if !options.full && can_update(&index, limit) => Some(index),
        _ => None,
    };
    if let (Some(paths), Some(index)) = (&options.changed_paths, &previous)
        && let Some(walked) = targeted_walk(index, &root, paths, limit)
        && let Some(summary) = update(&root, options, progress, started, Some(index), walked, None)?
    {
        return Ok(summary);
    }
    let walk_started =
        filesystem_now(&dir).unwrap_or_else(|| unix_ns().saturating_sub(1_000_000_000));
    let root_mtime = std::fs::metadata(&root).map(|m| walk::mtime_ns(&m)).ok();
    let (walked, skipped) = walk::walk(
        &root,
        &WalkOptions {
            max_file_size: limit,
            threads: options.threads.max(1),
        },
    );
    update(
        &root,
        options,
        progress,
        started,
        previous.as_ref(),
        walked,
        Some(WalkOutcome {
            skipped,
            started_unix_ns: walk_started,
            root_mtime_ns: root_mtime,
        }),
    )?
    .ok_or_else(|| IndexError::Corrupt {
        path: dir.clone(),
        detail: "an update over a walked tree gave up".into(),
    })
}

/// The walk of a tree where only `paths` may have changed since `index` was built: the
/// named files as they are now, by path (every other file is as the index records it).
/// `None` when a named path needs a real walk: a file the index lacks (new, deleted,
/// ignored), a directory, an ignore file, anything outside the root.
fn targeted_walk(
    index: &crate::Index,
    root: &Path,
    paths: &[PathBuf],
    max_file_size: u64,
) -> Option<Vec<walk::WalkedFile>> {
    let store = index.store();
    let mut named: HashMap<String, (u64, i64)> = HashMap::new();
    for path in paths {
        let relative = path.strip_prefix(root).ok()?;
        let parts: Vec<&str> = relative
            .components()
            .map(|c| c.as_os_str().to_str())
            .collect::<Option<_>>()?;
        match parts.first() {
            None => return None,
            Some(&first) if first == INDEX_DIR || first == ".git" => continue,
            Some(_) => {}
        }
        let name = parts.last().copied().unwrap_or("");
        if [".gitignore", ".ignore", walk::IGNORE_FILE].contains(&name) {
            return None;
        }
        // Hidden files are never indexed (an editor's swap or temporary file).
        if parts.iter().any(|p| p.starts_with('.')) {
            continue;
        }
        let relative = parts.join("/");
        store.file_id(&relative)?;
        let metadata = std::fs::symlink_metadata(path).ok()?;
        if !metadata.is_file() || metadata.len() > max_file_size {
            return None;
        }
        named.insert(relative, (metadata.len(), walk::mtime_ns(&metadata)));
    }
    let mut walked: Vec<walk::WalkedFile> = named
        .into_iter()
        .map(|(path, (size, mtime_ns))| walk::WalkedFile {
            absolute: root.join(&path),
            path,
            size,
            mtime_ns,
        })
        .collect();
    walked.sort_by(|a, b| a.path.cmp(&b.path));
    Some(walked)
}

/// Brings the index of `root` up to date with `walked`. `walk_skips` is what the walk
/// skipped, or `None` for a targeted walk (see [`targeted_walk`]), which gives up
/// (`Ok(None)`) unless nothing changed or the update can be a patch.
fn update(
    root: &Path,
    options: &BuildOptions,
    progress: &(dyn Fn(Progress) + Sync),
    started: Instant,
    previous: Option<&crate::Index>,
    walked: Vec<walk::WalkedFile>,
    walk: Option<WalkOutcome>,
) -> Result<Option<BuildSummary>> {
    let root = root.to_path_buf();
    let dir = root.join(INDEX_DIR);
    let targeted = walk.is_none();
    // A targeted update walked nothing: the tree is as current as the last walk.
    let walk_times = walk.as_ref().map(|w| (w.started_unix_ns, w.root_mtime_ns));
    let mut skipped = walk.map(|w| w.skipped).unwrap_or_default();
    let threads = options.threads.max(1);
    progress(Progress::Walked {
        files: match previous {
            Some(index) if targeted => index.store().file_count() as usize,
            _ => walked.len(),
        },
    });
    let pool = parse_pool(threads, &root)?;
    let parse_config = ParseConfig {
        timeout: options.parse_timeout,
    };
    let known = match previous {
        // A targeted walk names only files the index has, so none it knows as binary;
        // and it never writes what it knows (a whole-tree comparison does).
        Some(_) if targeted => Known {
            touched: cache::load_seen(&dir, cache::TOUCHED_FILE),
            ..Known::default()
        },
        Some(_) => Known::load(&dir),
        None => Known::default(),
    };
    // The files of the generation the walk is set against; after a targeted walk only
    // the named ones, since no other file changed (taking every file of the tree
    // through the comparison was most of a watched edit's serial start).
    let previous_files: HashMap<&str, FileInfo<'_>> = match &previous {
        Some(index) if targeted => walked
            .iter()
            .filter_map(|w| index.store().file(index.store().file_id(&w.path)?))
            .map(|f| (f.path, f))
            .collect(),
        Some(index) => (0..index.store().file_count())
            .filter_map(|i| index.store().file(i))
            .map(|f| (f.path, f))
            .collect(),
        None => HashMap::new(),
    };
    let incremental = previous.is_some();
    let diff = compare_tree(&previous_files, &walked, &known, incremental, &pool);
    let TreeDiff {
        kept,
        to_read,
        changed,
        mut binary,
        touched,
        skipped: found_skips,
        changes,
    } = diff;
    skipped.extend(found_skips);
    if let Some(index) = &previous
        && changes.is_empty()
        && !options.compact
    {
        if !targeted {
            known.write_if_changed(&dir, &binary, &touched)?;
        }
        let skipped = (!targeted).then_some(skipped);
        return Ok(Some(store_summary(
            index.store(),
            &root,
            started,
            skipped,
            None,
            0,
        )));
    }

    trace(&started, "compared");
    // The edited files a patch attempt parsed: a refused patch leaves them here for the
    // full build, which then parses none of them again.
    let mut parsed_edits: Vec<Option<ParsedFile>> = Vec::new();
    let mut patch = match &previous {
        Some(_) if options.compact => None,
        Some(index) => prepare_patch(
            index,
            &changes,
            &changed,
            &parse_config,
            &pool,
            &mut parsed_edits,
        )
        .or_else(|| {
            prepare_interface_patch(
                index,
                &changes,
                &changed,
                &pool,
                &mut parsed_edits,
                options.resident.as_ref(),
            )
        }),
        None => None,
    };
    if let (Some(patch), Some((started, root_mtime))) = (&mut patch, walk_times) {
        patch.data.meta.walked_unix_ns = started;
        patch.data.meta.root_mtime_ns = root_mtime;
    }
    trace(&started, "patch prepared");
    // A targeted update that cannot be a patch gives up before touching the text index.
    if targeted && patch.is_none() {
        return Ok(None);
    }

    let TextWriter {
        writer,
        fields,
        previous_generation,
    } = TextWriter::open(&dir, threads, incremental, &changes, &changed)?;

    if let (Some(patch), Some(index)) = (patch, &previous) {
        let resolved = patch.resolved;
        let generation = previous_generation + 1;
        let base = index.store().base_generation();
        let committed = commit_generation(writer, &dir, &started, generation, Some(base), || {
            let path = store::write_patch(&dir, patch.data, generation, base, &patch.ids)?;
            trace(&started, "patch written");
            let entries: Vec<cache::EntryToWrite<'_>> = patch
                .entries
                .iter()
                .map(|(f, m)| cache::EntryToWrite::Encode(f, Some(m)))
                .chain(patch.carried.iter().map(cache::EntryToWrite::Stored))
                .collect();
            cache::write_patch(&dir, &entries)?;
            if !targeted {
                known.write_if_changed(&dir, &binary, &touched)?;
            }
            Ok(path)
        })
        .and_then(|path| store::Store::open(&path));
        let written = match (committed, &options.resident) {
            (Ok(written), Some(resident)) => {
                resident.patched(
                    Stamp::of(index.store()),
                    Stamp::of(&written),
                    patch.declarations,
                    patch.entries,
                );
                written
            }
            (Ok(written), None) => written,
            (Err(e), resident) => {
                resident.iter().for_each(ResidentDeclarations::forget);
                return Err(e);
            }
        };
        skipped.sort();
        let skipped = (!targeted).then_some(skipped);
        return Ok(Some(store_summary(
            &written,
            &root,
            started,
            skipped,
            Some(&changes),
            resolved,
        )));
    }
    // What declarations a long-running process holds are stale once this resolution
    // commits; freed now, they do not add to its peak (it hands its own over after).
    if let Some(resident) = &options.resident {
        resident.forget();
    }
    // Facts of kept files come from the cache; a file it lacks is parsed again.
    let mut cached = if incremental {
        cache::load(&dir)
    } else {
        HashMap::new()
    };
    let renamed_from: HashMap<&str, &str> = changes
        .all
        .iter()
        .filter_map(|c| Some((c.path.as_str(), c.from.as_deref()?)))
        .collect();
    let mut parsed_files: Vec<ParsedFile> = Vec::with_capacity(walked.len());
    let mut reparse: Vec<&walk::WalkedFile> = Vec::new();
    for (file, info) in &kept {
        let row = FileRow {
            path: file.path.clone(),
            lang: info.lang,
            size: file.size,
            mtime_ns: file.mtime_ns,
            hash: info.hash,
            syntax_errors: info.syntax_errors,
            first_syntax_error: info.first_syntax_error,
            timed_out: info.timed_out,
            symbols: (0, 0),
        };
        match cached.remove(&file.path) {
            Some(entry) if entry.hash == info.hash && entry.fits(&info.symbols) => {
                parsed_files.push(entry.into_parsed(row))
            }
            _ => reparse.push(file),
        }
    }
    let previous_store = previous.map(crate::Index::store);
    // A renamed file keeps the facts of its old path when its language is the same (and
    // the texts of its rows, which the store has under that path, held with them); an
    // edited file that a refused patch parsed keeps what it parsed.
    let mut to_parse: Vec<ReadFile> = Vec::new();
    let edits = parsed_edits
        .into_iter()
        .chain(std::iter::repeat_with(|| None));
    for (file, edit) in changed.into_iter().zip(edits) {
        // A file the patch attempt parsed has its language decided (no second sniff).
        let lang = edit.as_ref().map_or_else(
            || Lang::of_file(Path::new(&file.walked.path), &file.content),
            |parsed| parsed.row.lang,
        );
        let old = renamed_from
            .get(file.walked.path.as_str())
            .filter(|old| Lang::of_file(Path::new(old), &file.content) == lang)
            .and_then(|old| Some((*old, cached.remove(*old)?)))
            .filter(|(_, entry)| entry.hash == file.hash)
            .and_then(|(old, mut entry)| {
                if let Some(facts) = &mut entry.facts {
                    facts.hold_texts(&resolve::stored_texts(previous_store?, old, facts)?);
                }
                Some(entry)
            });
        let parsed = match (old, edit) {
            (Some(entry), _) => entry.into_parsed(file.row(lang)),
            (None, Some(parsed)) => parsed,
            (None, None) => {
                to_parse.push(file);
                continue;
            }
        };
        parsed_files.push(parsed);
    }
    drop(cached);
    let reparsed = reparse.len();

    let done = AtomicUsize::new(0);
    let total = to_parse.len() + reparse.len() + if incremental { 0 } else { to_read.len() };
    let count = || {
        let n = done.fetch_add(1, Ordering::Relaxed) + 1;
        if n.is_multiple_of(64) || n == total {
            progress(Progress::Parsed { done: n, total });
        }
    };
    let with_text = |outcome: std::result::Result<(ParsedFile, String), Skipped>| {
        let (parsed, content) = outcome?;
        let lang = parsed.row.lang.map(Lang::as_str).unwrap_or("text");
        text::add_file(
            &writer,
            fields,
            &parsed.row.path,
            lang,
            &content,
            parsed.row.hash,
        )
        .map_err(|e| Skipped {
            path: parsed.row.path.clone(),
            reason: SkipReason::Unreadable(e.to_string()),
        })?;
        Ok(parsed)
    };
    let fresh: Vec<std::result::Result<ParsedFile, Skipped>> = pool.install(|| {
        // Changed files: their text went to the index when it was opened.
        let new_files = to_parse.into_par_iter().map(|file| {
            let lang = Lang::of_file(Path::new(&file.walked.path), &file.content);
            let facts = lang.map(|lang| parse_source(lang, file.content.as_bytes(), &parse_config));
            let parsed = parsed_file(file.row(lang), facts, &file.content);
            count();
            Ok(parsed)
        });
        let unindexed = (if incremental { &[][..] } else { &to_read[..] })
            .par_iter()
            .map(|file| {
                let outcome = with_text(read_and_parse(file, &parse_config));
                count();
                outcome
            });
        let cache_misses = reparse.par_iter().map(|file| {
            let outcome = read_and_parse(file, &parse_config).map(|(parsed, _)| parsed);
            count();
            outcome
        });
        new_files.chain(unindexed).chain(cache_misses).collect()
    });
    for outcome in fresh {
        match outcome {
            Ok(file) => parsed_files.push(file),
            Err(skip) => {
                note_binary(&skip, &walked, &mut binary);
                skipped.push(skip);
            }
        }
    }
    parsed_files.sort_by(|a, b| a.row.path.cmp(&b.row.path));
    skipped.sort();
    progress(Progress::Writing);

    let mut parsed = BTreeMap::new();
    let mut syntax_errors = 0;
    let mut timed_out = Vec::new();
    let mut source_bytes = 0;
    for f in &parsed_files {
        source_bytes += f.row.size;
        if let (Some(lang), Some(_)) = (f.row.lang, &f.facts) {
            *parsed.entry(lang.as_str().to_owned()).or_insert(0) += 1;
        }
        syntax_errors += usize::from(f.row.syntax_errors);
        if f.row.timed_out {
            timed_out.push(f.row.path.clone());
        }
    }
    let mut skipped_counts = BTreeMap::new();
    for s in &skipped {
        *skipped_counts.entry(s.reason.key().to_owned()).or_insert(0) += 1;
    }
    let file_count = parsed_files.len();
    let text_only = text_only_counts(
        parsed_files
            .iter()
            .map(|f| (f.row.path.as_str(), f.row.lang)),
    );
    let meta = store::IndexMeta {
        root: root.clone(),
        files: file_count,
        parsed: parsed.clone(),
        skipped: skipped_counts.clone(),
        source_bytes,
        max_file_size: Some(options.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE)),
        extraction: mcursor_syntax::extraction_fingerprint(),
        built_unix_ms: unix_ms(),
        walked_unix_ns: walk_times.map_or(0, |t| t.0),
        root_mtime_ns: walk_times.and_then(|t| t.1),
        ..store::IndexMeta::default()
    };
    trace(&started, "parsed");
    let cancelled = || options.cancel.as_ref().is_some_and(Cancel::is_cancelled);
    if cancelled() {
        return Err(IndexError::Cancelled);
    }
    let generation = previous_generation + 1;
    let stamp = Stamp::new(generation, meta.built_unix_ms);
    let resident = options.resident.clone();
    let (symbols, references) =
        commit_generation(writer, &dir, &started, generation, None, || {
            let texts = resolve::Texts {
                store: previous_store,
            };
            let (data, memos) =
                pool.install(|| resolve::resolve(&parsed_files, meta, texts, &cancelled));
            trace(&started, "resolved");
            if cancelled() {
                return Err(IndexError::Cancelled);
            }
            // The store is written by one thread, the cache by the others (it encodes
            // a chunk of entries at a time, so it adds little to the peak).
            let (graph, cache) = pool.install(|| {
                rayon::join(
                    || {
                        let written = store::write(&dir, &data, generation);
                        trace(&started, "graph written");
                        written
                    },
                    || cache::write(&dir, &parsed_files, &memos),
                )
            });
            graph?;
            cache?;
            let counts = (data.symbols.len(), data.refs.len());
            drop(data);
            known.write_if_changed(&dir, &binary, &touched)?;
            // Freeing a million small allocations takes a while; let it overlap the commit
            // (a resident holder keeps the declarations, tagged with the generation about
            // to be committed: if the commit fails, no index carries that stamp).
            std::thread::spawn(move || match resident {
                Some(resident) => resident.resolved(stamp, parsed_files, memos),
                None => drop((parsed_files, memos)),
            });
            trace(&started, "cache written");
            Ok(counts)
        })?;

    Ok(Some(BuildSummary {
        root: root.clone(),
        files: file_count,
        parsed,
        text_only,
        skipped: skipped_counts,
        skipped_files: skipped
            .iter()
            .take(1000)
            .map(|s| SkippedFile {
                path: s.path.clone(),
                reason: s.reason.to_string(),
            })
            .collect(),
        symbols,
        references,
        syntax_errors,
        timed_out,
        source_bytes,
        index_bytes: dir_size(&dir),
        generation,
        duration_ms: started.elapsed().as_millis() as u64,
        unchanged: false,
        incremental,
        patched: false,
        resolved_files: file_count,
        changes: changes.summary(),
        reparsed,
    }))
}

/// The walked tree set against the files of a generation.
struct TreeDiff<'w, 's> {
    /// Same content as indexed (same size and time, or touched with the same hash).
    kept: Vec<(&'w walk::WalkedFile, FileInfo<'s>)>,
    /// Files to read (all of them unread when `read` was false).
    to_read: Vec<&'w walk::WalkedFile>,
    /// Changed or new files, read and hashed.
    changed: Vec<ReadFile<'w>>,
    binary: Vec<cache::SeenFile>,
    /// Files kept although their size or time differ from the index's (content unchanged).
    touched: Vec<cache::SeenFile>,
    /// Files found binary or unreadable.
    skipped: Vec<Skipped>,
    changes: ChangeSet,
}

/// Compares the walked files with a generation's: same size and time means unchanged;
/// otherwise the file is read (when `read` is set) and its content hash decides. Files
/// the last build found binary are skipped unread while their size and time stay.
fn compare_tree<'w, 's>(
    previous: &HashMap<&'s str, FileInfo<'s>>,
    walked: &'w [walk::WalkedFile],
    known: &Known,
    read: bool,
    pool: &rayon::ThreadPool,
) -> TreeDiff<'w, 's> {
    let mut kept = Vec::new();
    let mut to_read = Vec::new();
    let mut binary = Vec::new();
    let mut touched = Vec::new();
    let mut skipped = Vec::new();
    for file in walked {
        match previous.get(file.path.as_str()) {
            Some(info) if info.size == file.size && info.mtime_ns == file.mtime_ns => {
                kept.push((file, info.clone()));
            }
            Some(info)
                if known
                    .touched
                    .get(&file.path)
                    .is_some_and(|t| t.matches(file.size, file.mtime_ns)) =>
            {
                touched.push(file.seen());
                kept.push((file, info.clone()));
            }
            Some(_) => to_read.push(file),
            None => match known.binary.get(&file.path) {
                Some(b) if b.matches(file.size, file.mtime_ns) => {
                    binary.push(b.clone());
                    skipped.push(Skipped {
                        path: file.path.clone(),
                        reason: SkipReason::Binary,
                    });
                }
                _ => to_read.push(file),
            },
        }
    }
    let mut changed = Vec::new();
    if read {
        let outcomes: Vec<std::result::Result<ReadFile<'w>, Skipped>> =
            pool.install(|| to_read.par_iter().map(|f| read_file(f)).collect());
        for outcome in outcomes {
            match outcome {
                Ok(file) => match previous.get(file.walked.path.as_str()) {
                    // Touched, not changed: keep what the index has.
                    Some(info) if info.hash == file.hash => {
                        touched.push(file.walked.seen());
                        kept.push((file.walked, info.clone()));
                    }
                    _ => changed.push(file),
                },
                Err(skip) => {
                    note_binary(&skip, walked, &mut binary);
                    skipped.push(skip);
                }
            }
        }
        to_read.clear();
    }
    kept.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    let changes = describe_changes(previous, &kept, &changed);
    TreeDiff {
        kept,
        to_read,
        changed,
        binary,
        touched,
        skipped,
        changes,
    }
}

/// What earlier builds learned about files without indexing them (see [`cache`]).
#[derive(Default)]
struct Known {
    binary: HashMap<String, cache::SeenFile>,
    touched: HashMap<String, cache::SeenFile>,
    /// Read from the index directory (a full build starts from nothing and overwrites).
    loaded: bool,
}

impl Known {
    fn load(dir: &Path) -> Known {
        Known {
            binary: cache::load_seen(dir, cache::BINARY_FILE),
            touched: cache::load_seen(dir, cache::TOUCHED_FILE),
            loaded: true,
        }
    }

    /// Records what a whole-tree comparison found, where it differs from what was known.
    fn write_if_changed(
        &self,
        dir: &Path,
        binary: &[cache::SeenFile],
        touched: &[cache::SeenFile],
    ) -> Result<()> {
        for (list, known, found) in [
            (cache::BINARY_FILE, &self.binary, binary),
            (cache::TOUCHED_FILE, &self.touched, touched),
        ] {
            let same = self.loaded
                && known.len() == found.len()
                && found.iter().all(|f| known.get(&f.path) == Some(f));
            if !same {
                cache::write_seen(dir, list, found)?;
            }
        }
        Ok(())
    }
}

/// What changed in the tree of `index` since it was built, hashing only files whose size
/// or time differ (for `mcursor status`).
pub(crate) fn changes_since(index: &crate::Index) -> Vec<ChangedFile> {
    let store = index.store();
    let max_file_size = store.meta().max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE);
    let (walked, _) = walk::walk(
        index.root(),
        &WalkOptions {
            max_file_size,
            threads: 2,
        },
    );
    let previous: HashMap<&str, FileInfo<'_>> = (0..store.file_count())
        .filter_map(|i| store.file(i))
        .map(|f| (f.path, f))
        .collect();
    let known = Known::load(&index.dir);
    let Ok(pool) = rayon::ThreadPoolBuilder::new().num_threads(2).build() else {
        return Vec::new();
    };
    compare_tree(&previous, &walked, &known, true, &pool)
        .changes
        .all
}

/// A changed or new file, read and hashed.
struct ReadFile<'a> {
    walked: &'a walk::WalkedFile,
    hash: u64,
    size: u64,
    content: String,
}

impl ReadFile<'_> {
    fn row(&self, lang: Option<Lang>) -> FileRow {
        FileRow {
            path: self.walked.path.clone(),
            lang,
            size: self.size,
            mtime_ns: self.walked.mtime_ns,
            hash: self.hash,
            syntax_errors: false,
            first_syntax_error: None,
            timed_out: false,
            symbols: (0, 0),
        }
    }
}

/// The text index's writer for one update, with the deletions and the changed files'
/// documents already given to it (the one place an update's changed files reach the
/// text index; the documents of files read afresh are added as they are parsed).
struct TextWriter {
    writer: tantivy::IndexWriter,
    fields: text::TextFields,
    previous_generation: u64,
}

impl TextWriter {
    fn open(
        dir: &Path,
        threads: usize,
        incremental: bool,
        changes: &ChangeSet,
        changed: &[ReadFile<'_>],
    ) -> Result<TextWriter> {
        let text_dir = dir.join(TEXT_DIR);
        std::fs::create_dir_all(&text_dir).at(&text_dir)?;
        let (text_index, fields) = match text::open_or_create(&text_dir) {
            Ok(opened) => opened,
            Err(_) => {
                // A damaged or foreign text index: start it afresh (the build rewrites it
                // all).
                std::fs::remove_dir_all(&text_dir).at(&text_dir)?;
                std::fs::create_dir_all(&text_dir).at(&text_dir)?;
                text::open_or_create(&text_dir)?
            }
        };
        let previous_generation = crate::committed_generation(&text_index).unwrap_or(0);
        let indexing_threads = (threads / 2).max(1);
        let writer = text_index.writer_with_num_threads::<tantivy::TantivyDocument>(
            indexing_threads,
            64 * 1024 * 1024 * indexing_threads,
        )?;
        // Each update adds a small segment: merge those among themselves, never into the
        // large segments of the last full build (which would rewrite most of the text
        // index during an update). tantivy's default puts everything under 10,000
        // documents in one layer.
        let mut merge_policy = tantivy::merge_policy::LogMergePolicy::default();
        merge_policy.set_min_layer_size(1);
        writer.set_merge_policy(Box::new(merge_policy));
        // A writer killed before its commit can leave files the next commit would write
        // again under the same names (deletes of a segment at the same opstamp): collect
        // them.
        writer.garbage_collect_files().wait()?;
        if !incremental {
            writer.delete_all_documents()?;
        }
        // Deletions first: a deletion applies to the documents added before it.
        for change in &changes.all {
            match (change.change, &change.from) {
                (Change::Added, _) => {}
                (Change::Renamed, Some(from)) => text::delete_file(&writer, fields, from),
                _ => text::delete_file(&writer, fields, &change.path),
            }
        }
        // A changed file's language is decided by its path and content alone, as its
        // parse decides it.
        for file in changed {
            let lang = Lang::of_file(Path::new(&file.walked.path), &file.content);
            text::add_file(
                &writer,
                fields,
                &file.walked.path,
                lang.map(Lang::as_str).unwrap_or("text"),
                &file.content,
                file.hash,
            )?;
        }
        Ok(TextWriter {
            writer,
            fields,
            previous_generation,
        })
    }
}

fn read_file(file: &walk::WalkedFile) -> std::result::Result<ReadFile<'_>, Skipped> {
    let skip = |reason| Skipped {
        path: file.path.clone(),
        reason,
    };
    // The walk saw the size; a file swapped or grown since is refused, not read whole.
    let limit = file.size.saturating_mul(2).max(1 << 20);
    let bytes = walk::read_regular(&file.absolute, limit)
        .map_err(|e| skip(SkipReason::Unreadable(e.to_string())))?;
    let hash = xxhash_rust::xxh3::xxh3_64(&bytes);
    let size = bytes.len() as u64;
    let content = decode_source(bytes).map_err(skip)?;
    Ok(ReadFile {
        walked: file,
        hash,
        size,
        content,
    })
}

/// Remembers a file skipped as binary, so the next build skips it unread.
fn note_binary(skip: &Skipped, walked: &[walk::WalkedFile], binary: &mut Vec<cache::SeenFile>) {
    if skip.reason != SkipReason::Binary {
        return;
    }
    if let Ok(i) = walked.binary_search_by(|w| w.path.as_str().cmp(&skip.path)) {
        binary.push(cache::SeenFile {
            path: skip.path.clone(),
            size: walked[i].size,
            mtime_ns: walked[i].mtime_ns,
        });
    }
}

/// Whether `index` can be updated in place of a rebuild: it was built with size limit
/// `limit` and the same extraction rules, and its text index is the one committed with it.
fn can_update(index: &crate::Index, limit: u64) -> bool {
    let meta = index.store().meta();
    // Facts extracted under other rules (an upgraded mcursor) are rebuilt.
    if meta.max_file_size != Some(limit)
        || meta.extraction != mcursor_syntax::extraction_fingerprint()
    {
        return false;
    }
    text::open(&index.dir.join(TEXT_DIR)).is_ok_and(|(text_index, _)| {
        crate::committed_generation(&text_index) == Some(index.generation())
    })
}

/// What changed since the previous generation: files it had that are gone or now
/// differ, files it lacked; a deleted and an added file with the same content are one
/// rename.
fn describe_changes(
    previous: &HashMap<&str, FileInfo<'_>>,
    kept: &[(&walk::WalkedFile, FileInfo<'_>)],
    changed: &[ReadFile<'_>],
) -> ChangeSet {
    let present: HashSet<&str> = kept
        .iter()
        .map(|(f, _)| f.path.as_str())
        .chain(changed.iter().map(|f| f.walked.path.as_str()))
        .collect();
    let mut deleted_by_hash: HashMap<u64, Vec<&str>> = HashMap::new();
    let mut deleted: Vec<&str> = previous
        .keys()
        .copied()
        .filter(|p| !present.contains(p))
        .collect();
    deleted.sort_unstable();
    for path in deleted.iter().rev() {
        deleted_by_hash
            .entry(previous[path].hash)
            .or_default()
            .push(path);
    }
    let mut all = Vec::new();
    let mut renamed_away = HashSet::new();
    for file in changed {
        let path = file.walked.path.clone();
        if previous.contains_key(path.as_str()) {
            all.push(ChangedFile {
                path,
                change: Change::Modified,
                from: None,
            });
        } else if let Some(from) = deleted_by_hash.get_mut(&file.hash).and_then(Vec::pop) {
            renamed_away.insert(from);
            all.push(ChangedFile {
                path,
                change: Change::Renamed,
                from: Some(from.to_owned()),
            });
        } else {
            all.push(ChangedFile {
                path,
                change: Change::Added,
                from: None,
            });
        }
    }
    for path in deleted {
        if !renamed_away.contains(path) {
            all.push(ChangedFile {
                path: path.to_owned(),
                change: Change::Deleted,
                from: None,
            });
        }
    }
    all.sort_by(|a, b| a.path.cmp(&b.path));
    ChangeSet { all }
}

/// Every change of one build.
struct ChangeSet {
    all: Vec<ChangedFile>,
}

impl ChangeSet {
    fn is_empty(&self) -> bool {
        self.all.is_empty()
    }

    fn summary(&self) -> Changes {
        let count = |kind| self.all.iter().filter(|c| c.change == kind).count();
        Changes {
            added: count(Change::Added),
            modified: count(Change::Modified),
            deleted: count(Change::Deleted),
            renamed: count(Change::Renamed),
            files: self.all.iter().take(1000).cloned().collect(),
        }
    }
}

/// The summary of a build whose result is `store`: an unchanged tree (the previous
/// generation) or a patch, counted from the store itself.
fn store_summary(
    store: &store::Store,
    root: &Path,
    started: Instant,
    skipped: Option<Vec<Skipped>>,
    changes: Option<&ChangeSet>,
    resolved_files: usize,
) -> BuildSummary {
    let meta = store.meta();
    let files: Vec<_> = (0..store.file_count())
        .filter_map(|i| store.file(i))
        .collect();
    // Without a walk, what the last walk skipped.
    let skipped_counts = match skipped {
        Some(skipped) => {
            let mut by_reason = BTreeMap::new();
            for s in &skipped {
                *by_reason.entry(s.reason.key().to_owned()).or_insert(0) += 1;
            }
            by_reason
        }
        None => meta.skipped,
    };
    BuildSummary {
        root: root.to_path_buf(),
        files: files.len(),
        parsed: meta.parsed,
        text_only: text_only_counts(files.iter().map(|f| (f.path, f.lang))),
        skipped: skipped_counts,
        skipped_files: Vec::new(),
        symbols: store.symbol_count() as usize,
        references: store.ref_count() as usize,
        syntax_errors: files.iter().filter(|f| f.syntax_errors).count(),
        timed_out: files
            .iter()
            .filter(|f| f.timed_out)
            .map(|f| f.path.to_owned())
            .collect(),
        source_bytes: files.iter().map(|f| f.size).sum(),
        index_bytes: dir_size(&root.join(INDEX_DIR)),
        generation: store.generation(),
        duration_ms: started.elapsed().as_millis() as u64,
        unchanged: changes.is_none(),
        incremental: true,
        patched: changes.is_some(),
        resolved_files,
        changes: changes.map(ChangeSet::summary).unwrap_or_default(),
        reparsed: 0,
    }
}

/// How many files of each text-only language (see [`TextOnlyLanguage`]) are among
/// `files` (path, parsed language).
///
/// [`TextOnlyLanguage`]: mcursor_syntax::TextOnlyLanguage
pub(crate) fn text_only_counts<'a>(
    files: impl Iterator<Item = (&'a str, Option<Lang>)>,
) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for (path, lang) in files {
        if lang.is_none()
            && let Some(text_only) = mcursor_syntax::TextOnlyLanguage::of_path(path)
        {
            *counts.entry(text_only.name.to_owned()).or_insert(0) += 1;
        }
    }
    counts
}

/// The most files one patch resolves again for what changed (this update's edits and,
/// for an interface edit, the files its changed names reach): past it, the update
/// resolves the whole tree and writes a fresh base. (An interface patch also resolves
/// the carried files whose records point into a file whose ids it moves: at most
/// [`MAX_CARRIED_FILES`] more.)
const MAX_RESOLVED_FILES: usize = 1000;

/// The most files earlier patches of the same base replaced that one patch carries along
/// (it replaces them again, their records copied from the store, not resolved): past it,
/// the update resolves the whole tree and writes a fresh base. Counted apart from
/// [`MAX_RESOLVED_FILES`] because a carried file costs a small part of a resolved one
/// (on `rustreg`, 0.25 ms to a comment edit, 0.4 ms to an interface edit, against a full
/// resolution's 5 s): at this bound they add about 0.45 s to a comment edit and 0.7 s to
/// an interface edit. `mcursor watch` and the agent fold them into a fresh base when
/// idle ([`FoldPolicy`]).
const MAX_CARRIED_FILES: usize = 2000;

/// A patch ready to commit: new records of the files it replaces (this update's edits and
/// the files earlier patches of the same base replaced), and their cache entries.
struct Patch {
    data: store::StoreData<'static>,
    /// Files whose references it resolved with the whole tree's tables.
    resolved: usize,
    ids: Vec<u32>,
    /// The cache entries of the files it resolved again.
    entries: Vec<(ParsedFile, FileMemo)>,
    /// The cache entries of the files it carries unchanged, as stored.
    carried: Vec<cache::StoredEntry>,
    /// The declarations of every file not in the patch, as the cache holds them, when an
    /// interface patch took them from [`BuildOptions::resident`] (given back on commit,
    /// with the tables it kept).
    declarations: Option<TreeDeclarations>,
}

/// Prepares this update as a patch over the previous generation's store, when it can be
/// one: every change is an edit (nothing added, deleted or renamed), each edited file keeps
/// its interface (so no other file's references can change and symbol ids stay), and each
/// of its uses has a key its memo resolved before. `None` sends the build down the full
/// resolution; the edited files it parsed are then in `parsed` (in the order of
/// `changed`), for the full build to take.
fn prepare_patch(
    index: &crate::Index,
    changes: &ChangeSet,
    changed: &[ReadFile<'_>],
    config: &ParseConfig,
    pool: &rayon::ThreadPool,
    parsed: &mut Vec<Option<ParsedFile>>,
) -> Option<Patch> {
    if changes.all.iter().any(|c| c.change != Change::Modified) {
        return None;
    }
    let store = index.store();
    let earlier = store.patched_files();
    let paths: HashSet<&str> = changed.iter().map(|f| f.walked.path.as_str()).collect();
    // A patch carries every file patched since the last full resolution and not edited
    // now, so its cost grows with them: past this many, resolve in full and start a
    // fresh base.
    let carried_ids: Vec<u32> = earlier
        .iter()
        .copied()
        .filter(|&id| store.file(id).is_some_and(|f| !paths.contains(f.path)))
        .collect();
    if changed.len() > MAX_RESOLVED_FILES || carried_ids.len() > MAX_CARRIED_FILES {
        note(format_args!(
            "not a patch: {} edited and {} carried files",
            changed.len(),
            carried_ids.len()
        ));
        return None;
    }
    let timer = Instant::now();
    *parsed = pool.install(|| {
        changed
            .par_iter()
            .map(|file| {
                let lang = Lang::of_file(Path::new(&file.walked.path), &file.content);
                let facts = lang.map(|l| parse_source(l, file.content.as_bytes(), config));
                Some(parsed_file(file.row(lang), facts, &file.content))
            })
            .collect()
    });
    trace(&timer, "edited files parsed");
    let cached = cache::load_some(&index.dir, &paths);
    trace(&timer, "cache entries loaded");
    let name_id = |name: &str| store.name_id(name);
    let target_name = |sid: u32| Some(store.symbol_name(sid)).filter(|&n| n != store::NONE);
    let prefix_of = |sid: u32| Some(stored_prefix(&store.symbol(sid)?));
    type Rebuilt = (ParsedFile, FileMemo, Vec<SymbolRow<'static>>, Vec<RefRow>);
    // Per edited file: its memo, rows and symbol range (the parsed file stays in
    // `parsed` until every file is known to fit).
    type Fitted = (FileMemo, Vec<SymbolRow<'static>>, Vec<RefRow>, (u32, u32));
    let fitted: std::result::Result<Vec<Fitted>, String> = pool.install(|| {
        changed
            .par_iter()
            .zip(parsed.par_iter())
            .map(|(file, parsed)| {
                let path = file.walked.path.as_str();
                let why = |reason: &str| format!("{path}: {reason}");
                let fid = store.file_id(path).ok_or_else(|| why("not indexed"))?;
                let info = store.file(fid).ok_or_else(|| why("not indexed"))?;
                let old = cached
                    .get(path)
                    .filter(|e| e.hash == info.hash)
                    .ok_or_else(|| why("no cached facts"))?;
                // A memo holds the ids of the generation that wrote it: a patch since may
                // have moved the symbols it points to.
                let memo = old
                    .memo
                    .as_ref()
                    .and_then(|m| m.map_targets(|sid| store.current(sid)))
                    .ok_or_else(|| why("no memo"))?;
                let parsed = parsed.as_ref().ok_or_else(|| why("not parsed"))?;
                if parsed.row.lang != info.lang || parsed.package_name != old.package_name {
                    return Err(why("language or package name changed"));
                }
                let start = info.symbols.start;
                let (symbols, refs, memo) = match (&parsed.facts, &old.facts) {
                    (None, None) => (Vec::new(), Vec::new(), memo),
                    (Some(new), Some(previous)) if new.interface_eq(previous) => {
                        let symbols = new
                            .symbol_rows(fid, start, &name_id, &prefix_of)
                            .ok_or_else(|| why("a symbol without its name"))?;
                        let (refs, memo) = rows_from_memo(
                            new,
                            previous,
                            &memo,
                            fid,
                            start,
                            &target_name,
                            &name_id,
                        )
                        .ok_or_else(|| why("a use the memo does not know"))?;
                        (symbols, refs, memo)
                    }
                    _ => return Err(why("its interface changed")),
                };
                if symbols.len() != info.symbols.len() {
                    return Err(why("symbol count changed"));
                }
                let range = (info.symbols.start, info.symbols.end);
                Ok((memo, symbols, refs, range))
            })
            .collect()
    });
    trace(&timer, "edited files resolved");
    let rebuilt: Vec<Rebuilt> = match fitted {
        Ok(fitted) => fitted
            .into_iter()
            .zip(parsed.iter_mut())
            .map(|((memo, symbols, refs, range), parsed)| {
                let mut parsed = parsed.take()?;
                parsed.row.symbols = range;
                Some((parsed, memo, symbols, refs))
            })
            .collect::<Option<_>>()?,
        Err(reason) => {
            note(format_args!("not a patch: {reason}"));
            return None;
        }
    };
    // Files earlier patches replaced keep their records (from the store) and their cache
    // entries as stored (their ids and memos hold: this patch moves no symbol), read only
    // now that every edit fits (an interface edit does not wait for them).
    let carried_paths: HashSet<&str> = carried_ids
        .iter()
        .filter_map(|&id| Some(store.file(id)?.path))
        .collect();
    let mut stored = cache::load_stored(&index.dir, &carried_paths);
    trace(&timer, "carried entries loaded");
    let carried_records: Vec<(FileRow, Vec<SymbolRow<'static>>, Vec<RefRow>)> =
        pool.install(|| {
            carried_ids
                .par_iter()
                .map(|&id| {
                    let (symbols, refs) = stored_records(store, id)?;
                    Some((file_row(&store.file(id)?), symbols, refs))
                })
                .collect::<Option<_>>()
        })?;
    trace(&timer, "carried records read");
    // Every replaced file's records in path order (so in id order), with the stored
    // cache entry of each carried one; the edited files' entries are made anew.
    let mut replaced: Vec<(FileRow, Vec<SymbolRow<'static>>, Vec<RefRow>, Option<_>)> =
        Vec::with_capacity(rebuilt.len() + carried_records.len());
    let mut entries = Vec::with_capacity(rebuilt.len());
    for (parsed, memo, symbols, refs) in rebuilt {
        replaced.push((parsed.row.clone(), symbols, refs, None));
        entries.push((parsed, memo));
    }
    for (row, symbols, refs) in carried_records {
        let entry = stored.remove(&row.path).filter(|e| e.hash == row.hash)?;
        replaced.push((row, symbols, refs, Some(entry)));
    }
    replaced.sort_by(|a, b| a.0.path.cmp(&b.0.path));
    let mut ids = Vec::with_capacity(replaced.len());
    let mut files = Vec::with_capacity(replaced.len());
    let mut symbols = Vec::new();
    let mut refs = Vec::new();
    let mut carried = Vec::with_capacity(carried_ids.len());
    for (row, file_symbols, file_refs, stored) in replaced {
        ids.push(store.file_id(&row.path)?);
        files.push(row);
        symbols.extend(file_symbols);
        refs.extend(file_refs);
        carried.extend(stored);
    }
    refs.sort_unstable_by_key(|r| (r.name, r.file, r.line, r.column));
    refs.dedup_by_key(|r| (r.name, r.file, r.line, r.column));
    trace(&timer, "patch records sorted");
    // The edited files keep their containers (their interface), but not necessarily
    // where they are: their implementation records move with them. A carried file's
    // records stand as the store holds them.
    let facts_of: HashMap<u32, Option<&CompactFacts>> = entries
        .iter()
        .filter_map(|(parsed, _)| Some((store.file_id(&parsed.row.path)?, parsed.facts.as_ref())))
        .collect();
    let patched_symbol = |sid: u32| {
        store
            .symbol(sid)
            .is_some_and(|s| ids.binary_search(&s.file).is_ok())
    };
    let mut implementations = Vec::new();
    for record in store.all_implementations() {
        if ids.binary_search(&record.file).is_err() {
            // Another file's record that names a patched symbol: the patch answers for it.
            if patched_symbol(record.supertype) || record.implementor.is_some_and(patched_symbol) {
                implementations.push(record);
            }
            continue;
        }
        let Some(facts) = facts_of.get(&record.file) else {
            implementations.push(record);
            continue;
        };
        let container = facts.as_ref()?.container_at(record.container)?;
        implementations.push(store::ImplRecord {
            line: container.start.line,
            column: container.start.column,
            end_line: container.end.line,
            ..record
        });
    }
    // Override pairs with a side in a patched file: the patch answers for them.
    let mut overrides: Vec<(u32, u32)> = Vec::new();
    for &id in &ids {
        for sid in store.file(id)?.symbols {
            overrides.extend(store.overridden_by(sid).into_iter().map(|o| (sid, o)));
            overrides.extend(store.implementations_of(sid).into_iter().map(|m| (m, sid)));
        }
    }
    overrides.sort_unstable();
    overrides.dedup();
    trace(&timer, "implementations and overrides");
    let meta = patch_meta(store, changed);
    Some(Patch {
        // The names and remap of the generation it replaces, unchanged: this patch keeps
        // every interface.
        data: store::StoreData {
            names: store.patch_names(),
            files,
            symbols: symbols.into(),
            refs,
            overrides,
            implementations,
            remap: store.remap().to_vec(),
            meta,
        },
        ids,
        entries,
        carried,
        resolved: 0,
        declarations: None,
    })
}

/// The update as a patch when edits changed interfaces (definitions added, removed,
/// renamed or retyped; imports added or removed): name resolution runs with the tables
/// of the whole tree, but only for the files whose references those changes can reach
/// (see [`CompactFacts::changed_names`]: the edited files, every file written with a
/// changed name, closed over definitions typed by one) and the files earlier patches
/// replaced. Untouched files keep their records and their symbols' ids; an edited file
/// whose definitions changed takes fresh ids, remapped from its old ones. `None` (with
/// the edits left in `parsed` for the full build) past [`MAX_RESOLVED_FILES`] or
/// [`MAX_CARRIED_FILES`], or when an edit reaches further than names can follow.
fn prepare_interface_patch(
    index: &crate::Index,
    changes: &ChangeSet,
    changed: &[ReadFile<'_>],
    pool: &rayon::ThreadPool,
    parsed: &mut [Option<ParsedFile>],
    resident: Option<&ResidentDeclarations>,
) -> Option<Patch> {
    let refuse = |reason: &str| note(format_args!("not an interface patch: {reason}"));
    if changes.all.iter().any(|c| c.change != Change::Modified) {
        return None;
    }
    // The edits come parsed from `prepare_patch`, one per changed file; it stops before
    // parsing when its own limit is passed, and then there is nothing to patch with
    // (zipping the edits with nothing would patch none of them).
    if parsed.len() != changed.len() || parsed.iter().any(Option::is_none) {
        refuse("the edited files were not parsed (too many files for a patch)");
        return None;
    }
    let timer = Instant::now();
    let store = index.store();
    let file_count = store.file_count();
    // Every file's declarations; the uses only of the files resolved again, below.
    let declarations = match resident {
        Some(resident) => resident.take_or_load(&index.dir, store),
        None => TreeDeclarations::load(&index.dir, store),
    };
    let TreeDeclarations {
        mut files,
        mut memos,
        tables: kept_tables,
    } = match declarations {
        Ok(declarations) => declarations,
        Err(reason) => {
            refuse(&reason);
            return None;
        }
    };
    trace(&timer, "cache loaded");
    // The edited files (id → index in `changed`), the names and supertypes their edits
    // changed, and those whose interface changed (they take fresh symbol ids; the others
    // keep theirs).
    let mut edited: HashMap<u32, usize> = HashMap::new();
    let mut names: HashSet<String> = HashSet::new();
    let mut supertypes: HashSet<String> = HashSet::new();
    let mut remapped: Vec<u32> = Vec::new();
    for (i, (file, parsed)) in changed.iter().zip(parsed.iter()).enumerate() {
        let parsed = parsed.as_ref()?;
        let path = file.walked.path.as_str();
        let fid = store.file_id(path)?;
        let info = store.file(fid)?;
        let old = files.get(fid as usize)?;
        if parsed.row.lang != info.lang || parsed.package_name != old.package_name {
            refuse(&format!("{path}: language or package name changed"));
            return None;
        }
        edited.insert(fid, i);
        match (&parsed.facts, &old.facts) {
            (None, None) => {}
            (Some(new), Some(previous)) if new.interface_eq(previous) => {}
            (Some(new), Some(previous)) => {
                let includes_leak = parsed
                    .family()
                    .is_some_and(mcursor_syntax::Family::imports_are_textual);
                match new.changed_names(previous, includes_leak) {
                    Ok(found) => {
                        names.extend(found.names);
                        supertypes.extend(found.supertypes);
                    }
                    Err(reason) => {
                        refuse(&format!("{path}: {reason}"));
                        return None;
                    }
                }
                remapped.push(fid);
            }
            _ => {
                refuse(&format!("{path}: facts appeared or vanished"));
                return None;
            }
        }
    }
    let facts_of = |fid: u32| -> Option<&CompactFacts> {
        match edited.get(&fid) {
            Some(&i) => parsed[i].as_ref()?.facts.as_ref(),
            None => files.get(fid as usize)?.facts.as_ref(),
        }
    };
    // A type that gained or lost a supertype gained or lost its members (and those of
    // the supertype's supertypes): their names are changed names.
    let mut expanded: HashSet<String> = HashSet::new();
    for round in 0..=MAX_TYPE_ROUNDS {
        let frontier: rustc_hash::FxHashSet<&str> = supertypes
            .iter()
            .filter(|t| !expanded.contains(*t))
            .map(String::as_str)
            .collect();
        if frontier.is_empty() {
            break;
        }
        if round == MAX_TYPE_ROUNDS {
            refuse("supertypes reach too far");
            return None;
        }
        let found: Vec<(Vec<String>, Vec<String>)> = pool.install(|| {
            (0..file_count)
                .into_par_iter()
                .filter_map(facts_of)
                .map(|f| f.members_of_types(&frontier))
                .collect()
        });
        let frontier: Vec<String> = frontier.into_iter().map(str::to_owned).collect();
        names.extend(frontier.iter().cloned());
        expanded.extend(frontier);
        for (members, next) in found {
            names.extend(members);
            supertypes.extend(next);
        }
    }
    // Close the names over definitions whose type follows from one.
    for round in 0..=MAX_TYPE_ROUNDS {
        let set = NameSet::new(names.iter().map(String::as_str));
        let found: Vec<String> = pool.install(|| {
            (0..file_count)
                .into_par_iter()
                .filter_map(facts_of)
                .flat_map_iter(|f| f.definitions_typed_by(&set))
                .collect()
        });
        let before = names.len();
        names.extend(found);
        if names.len() == before {
            break;
        }
        if round == MAX_TYPE_ROUNDS {
            refuse("types follow the changed names too far");
            return None;
        }
    }
    let set = NameSet::new(names.iter().map(String::as_str));
    let earlier: HashSet<u32> = store.patched_files().into_iter().collect();
    // The files the changed names reach, and the other files earlier patches replaced
    // (the patch carries them: it replaces the earlier ones).
    let (reached, carried): (Vec<u32>, Vec<u32>) = pool.install(|| {
        (0..file_count)
            .into_par_iter()
            .filter_map(|fid| {
                let reached = edited.contains_key(&fid)
                    || facts_of(fid).is_some_and(|f| f.mentions(&set, resident.is_some()));
                if reached {
                    Some(rayon::iter::Either::Left(fid))
                } else {
                    earlier
                        .contains(&fid)
                        .then_some(rayon::iter::Either::Right(fid))
                }
            })
            .partition_map(|side| side)
    });
    trace(&timer, "reached files found");
    if reached.len() > MAX_RESOLVED_FILES || carried.len() > MAX_CARRIED_FILES {
        refuse(&format!(
            "{} changed names reach {} files, {} carried",
            names.len(),
            reached.len(),
            carried.len()
        ));
        return None;
    }
    // The files the patch writes, read whole (their uses too); an edited file is
    // parsed already.
    let whole_ids: Vec<u32> = reached
        .iter()
        .chain(&carried)
        .copied()
        .filter(|fid| !edited.contains_key(fid))
        .collect();
    let whole_paths: HashSet<&str> = whole_ids
        .iter()
        .filter_map(|&fid| Some(files.get(fid as usize)?.row.path.as_str()))
        .collect();
    let mut whole = cache::load_some(&index.dir, &whole_paths);
    for &fid in &whole_ids {
        let Some(file) = files.get_mut(fid as usize) else {
            continue;
        };
        // Its rows' texts are read from the store: its symbols must fit the facts.
        let fits = |e: &cache::CacheEntry| store.file_symbols(fid).is_some_and(|ids| e.fits(&ids));
        match whole
            .remove(file.row.path.as_str())
            .filter(|e| e.hash == file.row.hash && fits(e))
        {
            Some(mut read) => {
                memos[fid as usize] = read.memo.take();
                file.facts = read.facts;
            }
            None => {
                refuse(&format!(
                    "{}: no cached facts that fit the store",
                    file.row.path
                ));
                return None;
            }
        }
    }
    drop(whole);
    trace(&timer, "reached files read");
    // A carried file no changed name reaches keeps its records: they are copied from the
    // store, not resolved again, unless one of its references or remembered outcomes
    // points into a file whose definitions change now (those ids move). Its memo is
    // taken to today's ids, as it is written again.
    let remapped_now: HashSet<u32> = remapped.iter().copied().collect();
    let moving: Vec<std::ops::Range<u32>> = remapped
        .iter()
        .filter_map(|&fid| store.file_symbols(fid))
        .collect();
    let stays = |sid: u32| sid == store::NONE || !moving.iter().any(|ids| ids.contains(&sid));
    let copies: Vec<Option<CopiedFile>> = pool.install(|| {
        carried
            .par_iter()
            .map(|&fid| {
                let memo = memos.get(fid as usize)?.as_ref()?;
                let memo = memo.map_targets(|sid| store.current(sid).filter(|&now| stays(now)))?;
                let (symbols, refs) = stored_records(store, fid)?;
                let refs_stay = refs.iter().all(|r| stays(r.target) && stays(r.enclosing));
                refs_stay.then_some(CopiedFile {
                    fid,
                    memo,
                    symbols,
                    refs,
                })
            })
            .collect()
    });
    let mut copied: Vec<CopiedFile> = Vec::new();
    let mut resolved_ids = reached;
    for (fid, copy) in carried.into_iter().zip(copies) {
        match copy {
            Some(copy) => copied.push(copy),
            None => resolved_ids.push(fid),
        }
    }
    resolved_ids.sort_unstable();
    note(format_args!(
        "{} carried files copied, {} files resolved again",
        copied.len(),
        resolved_ids.len()
    ));
    trace(&timer, "carried files copied");
    // From here on nothing refuses: the edits move into the tree's files.
    for (&fid, &i) in &edited {
        files[fid as usize] = parsed[i].take()?;
        memos[fid as usize] = None;
    }
    let memos_before = memos;
    // The container heads of the files no changed name reaches evaluate as their memos
    // recorded. A memo holds the ids of the generation that wrote it: the store's remap
    // takes them to now, and the file an id is in now to this resolution's id, unless
    // that file's definitions change in this patch (its heads are evaluated again).
    let mut ranges: Vec<(u32, u32, u32)> = (0..file_count)
        .filter(|fid| !remapped_now.contains(fid))
        .filter_map(|fid| store.file_symbols(fid).map(|ids| (ids.start, ids.end, fid)))
        .filter(|&(start, end, _)| start < end)
        .collect();
    ranges.sort_unstable();
    let locate = |sid: u32| -> Option<(u32, u32)> {
        let now = store.current(sid)?;
        let &(start, end, fid) = ranges.get(ranges.partition_point(|r| r.1 <= now))?;
        (start <= now && now < end).then(|| (fid, now - start))
    };
    let reached: HashSet<u32> = resolved_ids.iter().copied().collect();
    let known = KnownHeads {
        heads: memos_before
            .iter()
            .enumerate()
            .map(|(fid, memo)| match memo {
                Some(memo) if !reached.contains(&(fid as u32)) => Some(memo.heads.as_slice()),
                _ => None,
            })
            .collect(),
        locate: &locate,
    };
    // A holder of declarations keeps the tables too: those of its generation are brought
    // up to date (the files whose definitions changed are those remapped).
    let keep = match (resident, kept_tables) {
        (None, _) => Keep::No,
        (Some(_), None) => Keep::Fresh,
        (Some(_), Some(tables)) => {
            let mut changed = remapped.clone();
            changed.sort_unstable();
            Keep::Update(Box::new(tables), changed)
        }
    };
    let (data, memos, tables) = pool.install(|| {
        crate::resolve::resolve_some(
            &files,
            store::IndexMeta::default(),
            Some(&resolved_ids),
            Some(&known),
            keep,
            Texts { store: Some(store) },
            &|| false,
        )
    });
    trace(&timer, "reached files resolved");

    // Table ids to ids now: untouched files keep theirs, files whose definitions changed
    // take fresh ranges after every id in use.
    let remapped_files: HashSet<u32> = remapped.iter().copied().collect();
    let mut next = store.symbol_id_end();
    let mut start_of: Vec<u32> = Vec::with_capacity(files.len());
    for (fid, file) in data.files.iter().enumerate() {
        let fid = fid as u32;
        if remapped_files.contains(&fid) {
            start_of.push(next);
            next += file.symbols.1 - file.symbols.0;
        } else {
            start_of.push(store.file_symbols(fid)?.start);
        }
    }
    let file_of = |sid: u32| {
        let file = data.files.partition_point(|f| f.symbols.1 <= sid);
        data.files
            .get(file)
            .filter(|f| f.symbols.0 <= sid)
            .map(|_| file as u32)
    };
    let to_store = |sid: u32| -> u32 {
        match file_of(sid) {
            Some(file) => start_of[file as usize] + (sid - data.files[file as usize].symbols.0),
            None => store::NONE,
        }
    };
    // The rows of the patch's files, back to back in `data.symbols`.
    let mut rows_of: HashMap<u32, &[SymbolRow]> = HashMap::new();
    let mut at = 0usize;
    for &fid in &resolved_ids {
        let (start, end) = data.files[fid as usize].symbols;
        let len = (end - start) as usize;
        rows_of.insert(fid, data.symbols.made()?.get(at..at + len)?);
        at += len;
    }
    // Every file the patch writes, in file order: those resolved and those copied.
    let mut patched: Vec<u32> = resolved_ids
        .iter()
        .copied()
        .chain(copied.iter().map(|c| c.fid))
        .collect();
    patched.sort_unstable();
    let patch_set: HashSet<u32> = patched.iter().copied().collect();
    // The patch's files' ids, in order (asked of every override and implementation of
    // the tree: a search of these few ranges, not of every file's).
    let patch_ids: Vec<(u32, u32)> = patched
        .iter()
        .map(|&fid| data.files[fid as usize].symbols)
        .filter(|&(start, end)| start < end)
        .collect();
    let in_patch = |sid: u32| {
        let at = patch_ids.partition_point(|&(_, end)| end <= sid);
        patch_ids.get(at).is_some_and(|&(start, _)| start <= sid)
    };
    let name_of = |id: u32| data.names.get(id as usize).map_or("", |name| name.as_ref());
    // The names the patch's rows and references use, each looked up in the base once
    // (a lookup per row and reference was 0.4 s of a 1,000-file patch on `rustreg`).
    // Names the base lacks get ids after the base's, in sorted order: those of the
    // resolved files' records, and those earlier patches added that the copied files'
    // records use (store ids past the base's).
    let mut used: Vec<u32> = rows_of
        .values()
        .flat_map(|rows| rows.iter().map(|row| row.name))
        .chain(data.refs.iter().map(|r| r.name))
        .collect();
    used.sort_unstable();
    used.dedup();
    let base_names = store.base_name_count();
    let in_base: Vec<Option<u32>> = used
        .iter()
        .map(|&id| store.base_name_id(name_of(id)))
        .collect();
    let mut new_names: Vec<Cow<'static, str>> = used
        .iter()
        .zip(&in_base)
        .filter(|(_, base)| base.is_none())
        .map(|(&id, _)| Cow::Owned(name_of(id).to_owned()))
        .chain(copied.iter().flat_map(|c| {
            let names = c.symbols.iter().map(|row| row.name);
            names
                .chain(c.refs.iter().map(|r| r.name))
                .filter(|&n| n >= base_names && n != store::NONE)
                .map(|n| Cow::Owned(store.name(n).to_owned()))
        }))
        .collect();
    new_names.sort_unstable();
    new_names.dedup();
    let added_id = |name: &str| -> Option<u32> {
        let at = new_names.binary_search_by(|n| n.as_ref().cmp(name)).ok()?;
        Some(base_names + at as u32)
    };
    let store_ids: Vec<u32> = used
        .iter()
        .zip(&in_base)
        .map(|(&id, base)| base.or_else(|| added_id(name_of(id))))
        .collect::<Option<_>>()?;
    let name_id = |id: u32| -> Option<u32> {
        let at = used.binary_search(&id).ok()?;
        store_ids.get(at).copied()
    };
    // A copied record's name: a base id stays, an earlier patch's is this patch's.
    let copied_name_id = |n: u32| -> Option<u32> {
        if n < base_names || n == store::NONE {
            Some(n)
        } else {
            added_id(store.name(n))
        }
    };
    let translate = |sid: u32| {
        if sid == store::NONE {
            sid
        } else {
            to_store(sid)
        }
    };

    // The remap: files whose definitions changed now, by qualified name and kind (the
    // n-th of a kind keeps the id of the n-th before); other files' entries as they were.
    let mut remap: Vec<(u32, u32)> = Vec::new();
    for &fid in &remapped {
        let mut now: HashMap<(String, SymbolKind), Vec<u32>> = HashMap::new();
        let first = start_of[fid as usize];
        for (i, row) in rows_of.get(&fid)?.iter().enumerate().rev() {
            now.entry((format!("{}{}", row.prefix, name_of(row.name)), row.kind))
                .or_default()
                .push(first + i as u32);
        }
        let mut moved: HashMap<u32, u32> = HashMap::new();
        for old in store.file(fid)?.symbols {
            if let Some(s) = store.symbol(old)
                && let Some(new) = now.get_mut(&(s.qualified_name, s.kind)).and_then(Vec::pop)
            {
                moved.insert(old, new);
            }
        }
        for base_id in store.base_symbols(fid) {
            let new = store
                .current(base_id)
                .and_then(|id| moved.get(&id).copied())
                .unwrap_or(store::NONE);
            remap.push((base_id, new));
        }
    }
    let remapped_base: Vec<std::ops::Range<u32>> = remapped
        .iter()
        .map(|&fid| store.base_symbols(fid))
        .collect();
    remap.extend(
        store
            .remap()
            .iter()
            .filter(|(old, _)| !remapped_base.iter().any(|r| r.contains(old))),
    );
    remap.sort_unstable();

    // The patch's records.
    let mut copied_of: HashMap<u32, CopiedFile> = copied.into_iter().map(|c| (c.fid, c)).collect();
    let mut file_rows = Vec::with_capacity(patched.len());
    let mut symbols = Vec::new();
    let mut copied_refs: Vec<RefRow> = Vec::new();
    let mut copied_memos: Vec<(u32, FileMemo)> = Vec::new();
    for &fid in &patched {
        let (start, end) = data.files[fid as usize].symbols;
        let first = start_of[fid as usize];
        let mut row = files[fid as usize].row.clone();
        row.symbols = (first, first + (end - start));
        file_rows.push(row);
        if let Some(copy) = copied_of.remove(&fid) {
            for s in copy.symbols {
                symbols.push(SymbolRow {
                    name: copied_name_id(s.name)?,
                    ..s
                });
            }
            for r in copy.refs {
                copied_refs.push(RefRow {
                    name: copied_name_id(r.name)?,
                    ..r
                });
            }
            copied_memos.push((fid, copy.memo));
            continue;
        }
        for s in rows_of.get(&fid)?.iter() {
            symbols.push(
                SymbolRow {
                    name: name_id(s.name)?,
                    parent: translate(s.parent),
                    ..s.clone()
                }
                .into_owned(),
            );
        }
    }
    let mut refs: Vec<RefRow> = data
        .refs
        .iter()
        .map(|r| {
            Some(RefRow {
                name: name_id(r.name)?,
                target: translate(r.target),
                enclosing: translate(r.enclosing),
                ..*r
            })
        })
        .collect::<Option<_>>()?;
    refs.extend(copied_refs);
    refs.sort_unstable_by_key(|r| (r.name, r.file, r.line, r.column));
    let overrides: Vec<(u32, u32)> = data
        .overrides
        .iter()
        .filter(|&&(member, overridden)| in_patch(member) || in_patch(overridden))
        .map(|&(member, overridden)| (to_store(member), to_store(overridden)))
        .collect();
    let implementations: Vec<store::ImplRecord> = data
        .implementations
        .iter()
        .filter(|r| {
            patch_set.contains(&r.file)
                || in_patch(r.supertype)
                || r.implementor.is_some_and(in_patch)
        })
        .map(|r| store::ImplRecord {
            supertype: to_store(r.supertype),
            implementor: r.implementor.map(to_store),
            ..r.clone()
        })
        .collect();
    let mut memo_of: HashMap<u32, FileMemo> = resolved_ids
        .iter()
        .zip(memos)
        .map(|(&fid, memo)| Some((fid, memo.map_targets(|sid| Some(to_store(sid)))?)))
        .chain(copied_memos.into_iter().map(Some))
        .collect::<Option<_>>()?;
    // The resolution's records (only the patched files' rows, borrowing from `files`).
    drop(rows_of);
    drop(data);
    // The patch's files move out of the tree into its cache entries; each leaves its
    // row behind, and its declarations come back when the patch commits.
    let mut entries = Vec::with_capacity(patched.len());
    for (&fid, row) in patched.iter().zip(&file_rows) {
        let file = files.get_mut(fid as usize)?;
        let left = ParsedFile {
            row: file.row.clone(),
            facts: None,
            package_name: None,
        };
        let mut parsed = std::mem::replace(file, left);
        parsed.row.symbols = row.symbols;
        entries.push((parsed, memo_of.remove(&fid)?));
    }
    // The untouched files' declarations go back to the resident holder, or are freed
    // off the critical path (about a second on a large tree).
    let declarations = match resident {
        Some(_) => Some(TreeDeclarations {
            files,
            memos: memos_before,
            tables,
        }),
        None => {
            std::thread::spawn(move || drop((files, memos_before)));
            None
        }
    };
    let meta = patch_meta(store, changed);
    trace(&timer, "interface patch prepared");
    Some(Patch {
        data: store::StoreData {
            names: new_names,
            files: file_rows,
            symbols: symbols.into(),
            refs,
            overrides,
            implementations,
            remap,
            meta,
        },
        resolved: resolved_ids.len(),
        ids: patched,
        entries,
        carried: Vec::new(),
        declarations,
    })
}

/// A file an interface patch carries from an earlier patch without resolving it again:
/// its records as the store holds them and its memo in today's ids.
struct CopiedFile {
    fid: u32,
    memo: FileMemo,
    symbols: Vec<SymbolRow<'static>>,
    refs: Vec<RefRow>,
}

/// A stored symbol's qualified name without its own name.
fn stored_prefix(s: &store::SymbolInfo<'_>) -> Arc<str> {
    Arc::from(
        s.qualified_name
            .strip_suffix(s.name)
            .unwrap_or(&s.qualified_name),
    )
}

/// File `fid`'s symbol and reference rows as the store holds them (store ids, names
/// included), for a patch that carries the file without resolving it again.
fn stored_records(
    store: &store::Store,
    fid: u32,
) -> Option<(Vec<SymbolRow<'static>>, Vec<RefRow>)> {
    let symbols = store
        .file(fid)?
        .symbols
        .map(|sid| {
            let s = store.symbol(sid)?;
            let (signature, doc) = s.texts();
            Some(SymbolRow {
                name: store.symbol_name(sid),
                file: fid,
                parent: s.parent.unwrap_or(store::NONE),
                line: s.line,
                column: s.column,
                end_line: s.end_line,
                end_column: s.end_column,
                kind: s.kind,
                member: s.member,
                prefix: stored_prefix(&s),
                signature: Cow::Owned(signature.to_owned()),
                doc: Cow::Owned(doc.to_owned()),
            })
        })
        .collect::<Option<Vec<_>>>()?;
    let refs = store
        .refs_in_file(fid)
        .map(|r| RefRow {
            name: r.name,
            file: r.file,
            line: r.line,
            column: r.column,
            target: r.target.unwrap_or(store::NONE),
            enclosing: r.enclosing.unwrap_or(store::NONE),
            kind: r.kind,
            confidence: r.confidence,
            shape: r.shape,
        })
        .collect();
    Some((symbols, refs))
}

/// A patch's build record: the base's with this build's time and source size (the store
/// writes the patch's own generation, base and files).
fn patch_meta(store: &store::Store, changed: &[ReadFile<'_>]) -> store::IndexMeta {
    let base_meta = store.meta();
    let grown: i64 = changed
        .iter()
        .filter_map(|f| {
            Some(f.size as i64 - store.file(store.file_id(&f.walked.path)?)?.size as i64)
        })
        .sum();
    store::IndexMeta {
        built_unix_ms: unix_ms(),
        source_bytes: base_meta.source_bytes.saturating_add_signed(grown),
        generation: None,
        patch_of: None,
        patched_files: Vec::new(),
        ..base_meta
    }
}

/// Rounds of following changed names into the definitions typed by them (a type alias
/// of a type alias ...) and of following supertypes into theirs: what still grows after
/// them reaches too far to patch.
const MAX_TYPE_ROUNDS: usize = 4;

/// The tables an interface patch keeps between updates (see [`Keep`]), made from every
/// file's declarations `files` (a [`TreeDeclarations`]' files, in the store's order, as
/// a patch orders them: the ids the tables hold are those a patch's resolution gives):
/// what a watcher's first interface patch would otherwise make on its own critical path
/// (on `rustreg`, about 0.2 s of its 0.55 s with the tree in the page cache).
pub(crate) fn kept_tables_of(files: &[ParsedFile]) -> Option<crate::resolve::KeptTables> {
    crate::resolve::resolve_some(
        files,
        store::IndexMeta::default(),
        Some(&[]),
        None,
        Keep::Fresh,
        Texts::default(),
        &|| false,
    )
    .2
}

/// The row of a file as the store records it.
pub(crate) fn file_row(info: &FileInfo<'_>) -> FileRow {
    FileRow {
        path: info.path.to_owned(),
        lang: info.lang,
        size: info.size,
        mtime_ns: info.mtime_ns,
        hash: info.hash,
        syntax_errors: info.syntax_errors,
        first_syntax_error: info.first_syntax_error,
        timed_out: info.timed_out,
        symbols: (info.symbols.start, info.symbols.end),
    }
}

/// Writes `.mcursor/.gitignore` (`*`) unless it exists, so the index never shows up in
/// `git status` of the repository it indexes.
fn ignore_in_git(dir: &Path) -> Result<()> {
    let path = dir.join(".gitignore");
    if path.symlink_metadata().is_err() {
        std::fs::write(&path, "# written by mcursor: the index is not source\n*\n").at(&path)?;
    }
    Ok(())
}

/// A walk of the whole tree: what it skipped, and when it started (what a later
/// freshness check compares directory times with).
struct WalkOutcome {
    skipped: Vec<Skipped>,
    started_unix_ns: u64,
    root_mtime_ns: Option<i64>,
}

/// The file system's clock now, read from a file written in the index directory: the
/// same (coarse) clock that stamps directory times, so "changed after the walk started"
/// is a comparison of like with like.
fn filesystem_now(dir: &Path) -> Option<u64> {
    let stamp = dir.join("walk-stamp");
    std::fs::write(&stamp, b"").ok()?;
    let modified = std::fs::metadata(&stamp).ok()?;
    u64::try_from(walk::mtime_ns(&modified))
        .ok()
        .filter(|&ns| ns > 0)
}

fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos().min(u64::MAX as u128) as u64)
        .unwrap_or(0)
}

fn unix_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// What [`parse_only`] measured.
#[derive(Debug, Clone, Serialize)]
pub struct ParseOnlyReport {
    pub files: usize,
    pub parsed: usize,
    pub bytes: u64,
    pub duration_ms: u64,
}

/// The parse ceiling: walk, read, decode and parse every file exactly as [`build_index`]
/// does, with the same threads, but extract nothing into an index. Benchmarks compare a
/// build against this pass over the same files.
pub fn parse_only(root: &Path, options: &BuildOptions) -> Result<ParseOnlyReport> {
    let started = Instant::now();
    let root = check_root(root)?;
    let threads = options.threads.max(1);
    let (walked, _) = walk::walk(
        &root,
        &WalkOptions {
            max_file_size: options.max_file_size.unwrap_or(DEFAULT_MAX_FILE_SIZE),
            threads,
        },
    );
    let pool = parse_pool(threads, &root)?;
    let config = ParseConfig {
        timeout: options.parse_timeout,
    };
    let results: Vec<(u64, bool)> = pool.install(|| {
        walked
            .par_iter()
            .filter_map(|file| read_and_parse(file, &config).ok())
            .map(|(parsed, _)| (parsed.row.size, parsed.facts.is_some()))
            .collect()
    });
    Ok(ParseOnlyReport {
        files: results.len(),
        parsed: results.iter().filter(|(_, parsed)| *parsed).count(),
        bytes: results.iter().map(|(size, _)| size).sum(),
        duration_ms: started.elapsed().as_millis() as u64,
    })
}

fn parse_pool(threads: usize, root: &Path) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        // Generous stacks: tree-sitter and our own code are iterative, but a deep tree
        // must never be able to overflow a worker.
        .stack_size(64 * 1024 * 1024)
        .thread_name(|i| format!("mcursor-parse-{i}"))
        .build()
        .map_err(|e| IndexError::Io {
            path: root.to_path_buf(),
            source: std::io::Error::other(e.to_string()),
        })
}

fn read_and_parse(
    file: &walk::WalkedFile,
    config: &ParseConfig,
) -> std::result::Result<(ParsedFile, String), Skipped> {
    let read = read_file(file)?;
    let lang = Lang::of_file(Path::new(&file.path), &read.content);
    let facts = lang.map(|lang| parse_source(lang, read.content.as_bytes(), config));
    let parsed = parsed_file(read.row(lang), facts, &read.content);
    Ok((parsed, read.content))
}

/// A file's row and facts as the resolver takes them.
fn parsed_file(
    mut row: FileRow,
    facts: Option<mcursor_syntax::FileFacts>,
    content: &str,
) -> ParsedFile {
    row.syntax_errors = facts.as_ref().is_some_and(|f| f.has_syntax_errors);
    row.first_syntax_error = facts.as_ref().and_then(|f| f.first_syntax_error);
    row.timed_out = facts.as_ref().is_some_and(|f| f.timed_out);
    let manifest = row.path.rsplit('/').next().unwrap_or(&row.path);
    let package_name = match manifest {
        "Cargo.toml" => cargo_package_name(content),
        "go.mod" => go_module_path(content),
        _ => None,
    };
    ParsedFile {
        row,
        facts: facts.map(CompactFacts::from_facts),
        package_name,
    }
}

/// Writes the format marker, wiping an index of another format first.
fn prepare_format(dir: &Path) -> Result<()> {
    let marker = dir.join(FORMAT_FILE);
    let current = std::fs::read_to_string(&marker).ok();
    if current.as_deref() == Some(format_marker().as_str()) {
        return Ok(());
    }
    if current.is_some() {
        let entries = std::fs::read_dir(dir).at(dir)?;
        for entry in entries.flatten() {
            let path = entry.path();
            // Locks held by other processes stay (a running watch's included), and so does
            // the running watch's socket.
            let name = entry.file_name();
            if name == "lock" || name == crate::fresh::WATCH_LOCK || name == crate::handoff::SOCKET
            {
                continue;
            }
            let removed = if path.is_dir() {
                std::fs::remove_dir_all(&path)
            } else {
                std::fs::remove_file(&path)
            };
            removed.at(&path)?;
        }
    }
    let mut tmp = tempfile::NamedTempFile::new_in(dir).at(dir)?;
    std::io::Write::write_all(&mut tmp, format_marker().as_bytes()).at(&marker)?;
    tmp.persist(&marker).map_err(|e| IndexError::Io {
        path: marker.clone(),
        source: e.error,
    })?;
    Ok(())
}

/// The commit protocol (see the module doc), the one place it is written: the text
/// index's new segments are written unpublished, `write_generation` writes the store and
/// the facts cache of `generation`, the text index commits with `generation` as its
/// payload (the single commit point), and the graph files no reader can open any more
/// are removed (all but `generation` and, for a patch, its `base`).
fn commit_generation<T>(
    mut writer: tantivy::IndexWriter,
    dir: &Path,
    started: &Instant,
    generation: u64,
    base: Option<u64>,
    write_generation: impl FnOnce() -> Result<T>,
) -> Result<T> {
    // Steps 0 and 1 touch different files and are both needed before the commit point:
    // the text segments are written on their own thread while the caller resolves and
    // writes the store (serializing segments is mostly one thread's work).
    let (prepared, written) = std::thread::scope(|scope| {
        let segments = scope.spawn(|| {
            let prepared = writer.prepare_commit();
            trace(started, "text segments written");
            prepared
        });
        let written = write_generation();
        let prepared = segments
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        (prepared, written)
    });
    let mut prepared = prepared?;
    let written = written?;
    prepared.set_payload(&crate::CommitPayload { generation }.to_json());
    prepared.commit()?;
    writer.wait_merging_threads()?;
    let keep: Vec<u64> = std::iter::once(generation).chain(base).collect();
    remove_old_generations(dir, &keep);
    trace(started, "committed");
    Ok(written)
}

/// Removes graph files of generations not in `keep` (the current one and, for a patch,
/// its base) and leftovers of interrupted writes.
fn remove_old_generations(dir: &Path, keep: &[u64]) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        // Readers that mapped an older file keep their mapping; a reader that read the
        // generation just before it changed retries (see `Index::open_root`).
        let keep = keep.iter().any(|&g| name == store::graph_file_name(g));
        let stale_graph = name.starts_with("graph-") && name.ends_with(".bin") && !keep;
        let stale_temp = name.starts_with(".graph-") || name.starts_with(".tmp");
        if stale_graph || stale_temp {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

pub(crate) fn dir_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else {
            continue;
        };
        for entry in entries.flatten() {
            match entry.metadata() {
                Ok(m) if m.is_dir() => stack.push(entry.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoding_handles_boms_binary_and_invalid_utf8() {
        assert_eq!(
            decode_source(b"fn a() {}".to_vec()).ok().as_deref(),
            Some("fn a() {}")
        );
        assert_eq!(
            decode_source(b"\xEF\xBB\xBFfn a".to_vec()).ok().as_deref(),
            Some("fn a")
        );
        let utf16: Vec<u8> = [0xFF, 0xFE]
            .into_iter()
            .chain("fn é()".encode_utf16().flat_map(|u| u.to_le_bytes()))
            .collect();
        assert_eq!(decode_source(utf16).ok().as_deref(), Some("fn é()"));
        let utf16be: Vec<u8> = [0xFE, 0xFF]
            .into_iter()
            .chain("x".encode_utf16().flat_map(|u| u.to_be_bytes()))
            .collect();
        assert_eq!(decode_source(utf16be).ok().as_deref(), Some("x"));
        assert_eq!(decode_source(b"a\0b".to_vec()), Err(SkipReason::Binary));
        assert_eq!(
            decode_source(b"fn \xFF()".to_vec()).ok().as_deref(),
            Some("fn \u{FFFD}()")
        );
        // An odd trailing byte in UTF-16 must not panic.
        assert!(decode_source(vec![0xFF, 0xFE, 0x41]).is_ok());
    }

    /// A compaction cancelled before it commits leaves the generation it started from
    /// (its patches still carried); the same compaction not cancelled folds them.
    #[test]
    fn a_cancelled_compaction_commits_nothing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).expect("mkdir");
        std::fs::write(root.join("Cargo.toml"), "[package]\nname = \"a\"\n").expect("write");
        std::fs::write(root.join("src/lib.rs"), "pub fn a() {}\n").expect("write");
        build_index(root, &BuildOptions::default(), &|_| {}).expect("build");
        std::fs::write(
            root.join("src/lib.rs"),
            "pub fn a() {}\npub fn b() { a() }\n",
        )
        .expect("edit");
        let patched = build_index(root, &BuildOptions::default(), &|_| {}).expect("update");
        assert!(patched.patched);
        let cancel = Cancel::new();
        cancel.cancel();
        let compact = |cancel: Option<Cancel>| BuildOptions {
            compact: true,
            cancel,
            ..BuildOptions::default()
        };
        match build_index(root, &compact(Some(cancel)), &|_| {}) {
            Err(IndexError::Cancelled) => {}
            other => panic!("not cancelled: {other:?}"),
        }
        let index = crate::Index::open(root).expect("open");
        assert_eq!(index.generation(), patched.generation);
        assert!(!index.store().patched_files().is_empty());
        let folded = build_index(root, &compact(Some(Cancel::new())), &|_| {}).expect("fold");
        assert!(folded.generation > patched.generation);
        let index = crate::Index::open(root).expect("open");
        assert!(index.store().patched_files().is_empty());
    }

    #[test]
    fn a_file_deleted_after_the_walk_is_skipped_not_fatal() {
        let dir = tempfile::tempdir().expect("tempdir");
        let gone = walk::WalkedFile {
            path: "gone.rs".into(),
            absolute: dir.path().join("gone.rs"),
            size: 10,
            mtime_ns: 0,
        };
        match read_and_parse(&gone, &ParseConfig::default()) {
            Err(Skipped {
                path,
                reason: SkipReason::Unreadable(_),
            }) => assert_eq!(path, "gone.rs"),
            Err(other) => panic!("unexpected skip {other:?}"),
            Ok(_) => panic!("a missing file was read"),
        }
    }
}
