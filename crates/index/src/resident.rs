//! Every file's declarations kept in memory between the updates of a long-running
//! process (`watch`), so that an interface patch does not decode them from the facts
//! cache each time (about half a second on a tree of 16,000 files).
//!
//! Invariant: what is held for a generation is exactly what [`TreeDeclarations::load`]
//! would read for it. The held declarations are tagged with the generation they belong
//! to ([`Stamp`]: its number and build time, so an index rebuilt from scratch that
//! reaches the same number does not match), and are only used when the index opened for
//! an update carries that stamp. Every commit made with them either brings them up to
//! date (a patch: its files' declarations replace theirs, stripped as the cache reads
//! them back) or drops them (anything else); a commit by another process changes the
//! stamp, and the next patch loads the cache again.
//!
//! With the declarations it keeps the resolver's [`KeptTables`] of the same generation
//! when the last resolution made them (a full resolution or an interface patch run with
//! this holder) or [`ResidentDeclarations::warm`] did, so the next interface patch brings
//! them up to date instead of making them again; a patch that keeps every interface
//! keeps them as they are.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};

use rayon::prelude::*;

use crate::cache;
use crate::resolve::{FileMemo, KeptTables, ParsedFile};
use crate::store::{FileInfo, FileRow, Store};
use crate::trace::note;
use crate::walk::INDEX_DIR;

/// Which generation held declarations belong to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    generation: u64,
    built_unix_ms: u64,
}

impl Stamp {
    /// The stamp a generation will carry once committed.
    pub(crate) fn new(generation: u64, built_unix_ms: u64) -> Stamp {
        Stamp {
            generation,
            built_unix_ms,
        }
    }

    pub(crate) fn of(store: &crate::store::Store) -> Stamp {
        Stamp {
            generation: store.generation(),
            built_unix_ms: store.meta().built_unix_ms,
        }
    }
}

struct Held {
    stamp: Stamp,
    tree: TreeDeclarations,
}

/// Every file's declarations of one generation in the store's file order (by path),
/// and the tables kept from its last resolution if there are any: what an interface
/// patch takes and gives back. In file order, a patch resolves over `files` as they are
/// and finds a file by its id; held by path, each patch moved every file out of a map
/// and back (on `rustreg`, a tenth of a watched interface edit's CPU, most of it serial).
pub(crate) struct TreeDeclarations {
    /// Each file of the store: its row as the store records it but without a range of
    /// symbol ids (a resolution numbers them itself), its facts without their uses.
    pub files: Vec<ParsedFile>,
    /// Beside each file, its memo with its container heads only.
    pub memos: Vec<Option<FileMemo>>,
    pub tables: Option<KeptTables>,
}

impl TreeDeclarations {
    /// The declarations of every file of `store` as the cache in `dir` holds them; the
    /// reason when the cache lacks a file or disagrees with the store about one.
    pub(crate) fn load(dir: &Path, store: &Store) -> Result<TreeDeclarations, String> {
        let mut entries = cache::load_declarations(dir).into_iter().peekable();
        let count = store.file_count() as usize;
        let mut files = Vec::with_capacity(count);
        let mut memos = Vec::with_capacity(count);
        for fid in 0..store.file_count() {
            let info = store
                .file(fid)
                .ok_or_else(|| format!("file {fid} of the store does not read"))?;
            // Entries of files the store does not have are passed over (both are by path).
            while entries.next_if(|e| e.path.as_str() < info.path).is_some() {}
            let mut entry = entries
                .next_if(|e| e.path == info.path)
                .ok_or_else(|| format!("{}: no cached facts", info.path))?;
            memos.push(entry.memo.take());
            // The entry's own hash, for the check to set against the store's.
            let row = FileRow {
                hash: entry.hash,
                symbols: (0, 0),
                ..crate::build::file_row(&info)
            };
            let file = entry.into_parsed(row);
            check(&file, &info)?;
            files.push(file);
        }
        Ok(TreeDeclarations {
            files,
            memos,
            tables: None,
        })
    }

    /// Whether these are the declarations of `store`'s files, as [`Self::load`] checks
    /// what it reads. Held ones are those of the generation they are tagged with (see
    /// the module docs), so only debug builds check them file by file: on `rustreg`
    /// that took 11–20 ms of each watched edit, a third of what holding them in the
    /// store's order saved.
    fn check(&self, store: &Store) -> Result<(), String> {
        if self.files.len() != store.file_count() as usize {
            return Err("the held declarations are of another tree".to_owned());
        }
        if !cfg!(debug_assertions) {
            return Ok(());
        }
        for (fid, file) in self.files.iter().enumerate() {
            let info = store
                .file(fid as u32)
                .ok_or_else(|| format!("file {fid} of the store does not read"))?;
            if file.row.path != info.path {
                return Err(format!("{}: no held declarations", info.path));
            }
            check(file, &info)?;
        }
        Ok(())
    }

    /// Puts `file` and its `memo` in the place of the file of its path, as [`Self::load`]
    /// would read them back once written: its facts without their uses, the memo's
    /// container heads only; the kept tables learn that it was edited. False when no file
    /// has its path.
    fn replace(&mut self, file: ParsedFile, memo: Option<FileMemo>) -> bool {
        let Ok(at) = self
            .files
            .binary_search_by(|f| f.row.path.as_str().cmp(&file.row.path))
        else {
            return false;
        };
        let (file, memo) = declarations_of(file, memo);
        self.files[at] = file;
        self.memos[at] = memo;
        if let Some(tables) = &mut self.tables {
            tables.file_edited(at as u32);
        }
        true
    }
}

/// Whether `file`'s declarations are those of the store's file `info`: the same content
/// and as many definitions as it has symbols.
fn check(file: &ParsedFile, info: &FileInfo<'_>) -> Result<(), String> {
    if file.row.hash != info.hash {
        return Err(format!("{}: no cached facts", info.path));
    }
    if file.facts.as_ref().map_or(0, |f| f.definitions.len()) != info.symbols.len() {
        return Err(format!(
            "{}: cached facts disagree with the store",
            info.path
        ));
    }
    Ok(())
}

/// What the cache reads back of `file` written with `memo` (see [`TreeDeclarations`]).
fn declarations_of(file: ParsedFile, memo: Option<FileMemo>) -> (ParsedFile, Option<FileMemo>) {
    let ParsedFile {
        mut row,
        mut facts,
        package_name,
    } = file;
    if let Some(facts) = &mut facts {
        facts.drop_uses();
    }
    row.symbols = (0, 0);
    let memo = memo.map(|memo| FileMemo {
        uses: Vec::new(),
        imports: Vec::new(),
        heads: memo.heads,
    });
    let file = ParsedFile {
        row,
        facts,
        package_name,
    };
    (file, memo)
}

/// Declarations kept between updates (see the module docs). Clones share them; an
/// update given one ([`crate::BuildOptions::resident`]) takes them, and gives them back
/// brought up to date when it commits a patch.
#[derive(Clone, Default)]
pub struct ResidentDeclarations {
    held: Arc<Mutex<Option<Held>>>,
}

impl std::fmt::Debug for ResidentDeclarations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never waits: a background read or hand-over may hold the lock for a second.
        let files = match self.held.try_lock() {
            Ok(held) => format!("{:?}", held.as_ref().map(|h| h.tree.files.len())),
            Err(_) => "(busy)".to_owned(),
        };
        f.debug_struct("ResidentDeclarations")
            .field("files", &files)
            .finish()
    }
}

impl ResidentDeclarations {
    pub fn new() -> Self {
        Self::default()
    }

    fn lock(&self) -> MutexGuard<'_, Option<Held>> {
        // A panic while held leaves at worst stale entries, which the stamp refuses.
        self.held.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Every file's declarations for the generation `stamp` names, taken out of this
    /// holder: the held ones when they are that generation's, else read from the cache
    /// in `dir`. The caller holds the index's write lock, so the cache is that
    /// generation's.
    pub(crate) fn take_or_load(
        &self,
        dir: &Path,
        store: &Store,
    ) -> Result<TreeDeclarations, String> {
        if let Some(h) = self.lock().take_if(|h| h.stamp == Stamp::of(store)) {
            note(format_args!(
                "declarations of {} files held{}",
                h.tree.files.len(),
                if h.tree.tables.is_some() {
                    ", with tables"
                } else {
                    ""
                }
            ));
            if let Err(reason) = h.tree.check(store) {
                free_in_background(Some(h));
                return Err(reason);
            }
            return Ok(h.tree);
        }
        self.forget();
        TreeDeclarations::load(dir, store)
    }

    /// After a commit that was a patch of `before`'s generation, now `after`: the
    /// declarations of the patch's files (`patched`, as written to the cache) replace
    /// theirs, in `given` (what an interface patch took and gives back, with the tables
    /// it brought up to date) or else in the held ones if they are `before`'s (a patch
    /// that kept every interface: their tables still hold). Anything else drops them.
    pub(crate) fn patched(
        &self,
        before: Stamp,
        after: Stamp,
        given: Option<TreeDeclarations>,
        patched: Vec<(ParsedFile, FileMemo)>,
    ) {
        let mut held = self.lock();
        let kept = match (given, held.take()) {
            (Some(given), stale) => {
                free_in_background(stale);
                Some(given)
            }
            (None, Some(h)) if h.stamp == before => Some(h.tree),
            (None, stale) => {
                free_in_background(stale);
                None
            }
        };
        let Some(mut tree) = kept else {
            return;
        };
        for (file, memo) in patched {
            // A patch edits files the tree has; one it lacks leaves nothing to hold.
            if !tree.replace(file, Some(memo)) {
                free_in_background(Some(Held { stamp: after, tree }));
                return;
            }
        }
        *held = Some(Held { stamp: after, tree });
    }

    /// After a full resolution committed as `stamp`: its files and memos, stripped as the
    /// cache reads them back, and the tables an interface patch keeps made from them (a
    /// whole store's resolution numbers its symbols without the room kept tables have).
    /// Meant for a background thread (it frees every file's uses).
    pub(crate) fn resolved(&self, stamp: Stamp, files: Vec<ParsedFile>, memos: Vec<FileMemo>) {
        let mut held = self.lock();
        let (files, memos): (Vec<ParsedFile>, Vec<Option<FileMemo>>) = files
            .into_iter()
            .zip(
                memos
                    .into_iter()
                    .map(Some)
                    .chain(std::iter::repeat_with(|| None)),
            )
            .map(|(file, memo)| declarations_of(file, memo))
            .unzip();
        let tables = crate::build::kept_tables_of(&files);
        *held = Some(Held {
            stamp,
            tree: TreeDeclarations {
                files,
                memos,
                tables,
            },
        });
    }

    /// Drops what is held (a commit that is neither a patch nor a full resolution with
    /// its files at hand, or one that failed).
    pub(crate) fn forget(&self) {
        let stale = self.lock().take();
        free_in_background(stale);
    }

    /// Reads the declarations of the index of `root` on a background thread, unless they
    /// are held already, and makes from them what an interface patch keeps between
    /// updates (the kept tables, each file's mention filter): an update that needs them
    /// meanwhile waits for this instead of making its own. Best effort: a read that a
    /// commit overtook is not kept. (On `rustreg` this took about a third off the
    /// watcher's first interface patch, for about 145 MiB more held while idle; see
    /// `benches/README.md`.)
    pub fn warm(&self, root: &Path) {
        let this = self.clone();
        let root: PathBuf = root.to_path_buf();
        let _ = std::thread::Builder::new()
            .name("mcursor-resident".into())
            .spawn(move || {
                let mut held = this.lock();
                let Ok(index) = crate::Index::open(&root) else {
                    return;
                };
                let stamp = Stamp::of(index.store());
                if held.as_ref().is_some_and(|h| h.stamp == stamp) {
                    return;
                }
                let Ok(mut tree) = TreeDeclarations::load(&root.join(INDEX_DIR), index.store())
                else {
                    return;
                };
                tree.files.par_iter().for_each(|file| {
                    if let Some(facts) = &file.facts {
                        facts.kept_mention_filter();
                    }
                });
                tree.tables = crate::build::kept_tables_of(&tree.files);
                // A commit between the two looks may have replaced the cache under the
                // read; then what was read is not known to be either generation's.
                let stamp_now = crate::Index::open(&root).ok().map(|i| Stamp::of(i.store()));
                if stamp_now == Some(stamp) {
                    *held = Some(Held { stamp, tree });
                }
            });
    }

    /// Whether any declarations are held (for whichever generation).
    pub(crate) fn holds_any(&self) -> bool {
        self.lock().is_some()
    }

    /// How many files' declarations are held for the index of `root` as it is now
    /// (`None`: none held, or not for its current generation).
    pub fn held_files(&self, root: &Path) -> Option<usize> {
        let stamp = crate::Index::open(root)
            .ok()
            .map(|i| Stamp::of(i.store()))?;
        let held = self.lock();
        held.as_ref()
            .filter(|h| h.stamp == stamp)
            .map(|h| h.tree.files.len())
    }
}

/// Frees stale declarations off the caller's thread: they may be a whole tree's (a few
/// hundred milliseconds of frees on a large one).
fn free_in_background(stale: Option<Held>) {
    if let Some(stale) = stale {
        std::thread::spawn(move || drop(stale));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build::{BuildOptions, build_index};

    /// What is held, each entry as its debug text, in path order; `None` when nothing is
    /// held for the index's current generation.
    fn held_text(resident: &ResidentDeclarations, root: &Path) -> Option<Vec<String>> {
        let stamp = Stamp::of(crate::Index::open(root).ok()?.store());
        let held = resident.lock();
        let held = held.as_ref().filter(|h| h.stamp == stamp)?;
        Some(text(&held.tree))
    }

    fn text(tree: &TreeDeclarations) -> Vec<String> {
        let files = tree.files.iter().zip(&tree.memos);
        files.map(|file| format!("{file:?}")).collect()
    }

    /// What the cache of the index of `root` reads back, as [`held_text`] gives it.
    fn disk(root: &Path) -> Vec<String> {
        let index = crate::Index::open(root).expect("open");
        text(&TreeDeclarations::load(&root.join(INDEX_DIR), index.store()).expect("load"))
    }

    fn write(root: &Path, path: &str, text: &str) {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
    }

    /// The declarations are the store's files in its order, or the reason they cannot be
    /// had: a cache that lacks a file, or holds another version of it.
    #[test]
    fn declarations_load_in_store_order_or_say_what_is_missing() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "src/b.rs", "pub fn b() {}\n");
        write(root, "src/a.rs", "pub fn a() {}\npub fn a2() {}\n");
        write(root, "notes.txt", "text only\n");
        build_index(root, &BuildOptions::default(), &|_| {}).expect("build");
        let index = crate::Index::open(root).expect("open");
        let store = index.store();
        let tree = TreeDeclarations::load(&root.join(INDEX_DIR), store).expect("load");
        let paths: Vec<&str> = tree.files.iter().map(|f| f.row.path.as_str()).collect();
        let stored: Vec<String> = (0..store.file_count())
            .map(|fid| store.file(fid).expect("file").path.to_owned())
            .collect();
        assert_eq!(paths, stored);
        let definitions: Vec<usize> = tree
            .files
            .iter()
            .map(|f| f.facts.as_ref().map_or(0, |f| f.definitions.len()))
            .collect();
        assert_eq!(definitions, [0, 2, 1], "{paths:?}");
        // Another version of a file in the cache: refused, with its path.
        let other = crate::resolve::ParsedFile::rust_for_test("src/b.rs", "pub fn c() {}\n");
        cache::write_patch(
            &root.join(INDEX_DIR),
            &[cache::EntryToWrite::Encode(&other, None)],
        )
        .expect("patch");
        let refused = TreeDeclarations::load(&root.join(INDEX_DIR), store).err();
        assert_eq!(refused.as_deref(), Some("src/b.rs: no cached facts"));
        // No cache at all.
        std::fs::remove_file(root.join(INDEX_DIR).join(cache::CACHE_FILE)).expect("remove");
        let refused = TreeDeclarations::load(&root.join(INDEX_DIR), store).err();
        assert_eq!(refused.as_deref(), Some("notes.txt: no cached facts"));
    }

    /// Builds with `resident` after writing each step's files; after every commit, what is
    /// held is exactly what the cache reads back, and it is held after every kind of
    /// commit that keeps it: a full build, an edit within an interface, an interface edit.
    #[test]
    fn held_declarations_are_what_the_cache_reads_back() {
        let dir = tempfile::tempdir().expect("tempdir");
        let root = dir.path();
        write(root, "Cargo.toml", "[package]\nname = \"shop\"\n");
        write(
            root,
            "src/lib.rs",
            "pub mod cart;\npub use cart::Cart;\npub fn total(c: &Cart) -> u32 { c.sum() }\n",
        );
        write(
            root,
            "src/cart.rs",
            "pub struct Cart { items: Vec<u32> }\nimpl Cart {\n    pub fn sum(&self) -> u32 { self.items.iter().sum() }\n}\n",
        );
        write(
            root,
            "src/use.rs",
            "use crate::cart::Cart;\nfn f(c: Cart) -> u32 { c.sum() }\n",
        );
        let resident = ResidentDeclarations::new();
        let options = BuildOptions {
            resident: Some(resident.clone()),
            ..BuildOptions::default()
        };
        let steps: [(&str, &str, bool); 4] = [
            // A body edit: a patch that keeps every interface.
            (
                "src/use.rs",
                "use crate::cart::Cart;\nfn f(c: Cart) -> u32 { c.sum() + 1 }\n",
                true,
            ),
            // A method added: an interface patch.
            (
                "src/cart.rs",
                "pub struct Cart { items: Vec<u32> }\nimpl Cart {\n    pub fn sum(&self) -> u32 { self.items.iter().sum() }\n    pub fn len(&self) -> usize { self.items.len() }\n}\n",
                true,
            ),
            // A function renamed, used elsewhere: another interface patch.
            (
                "src/lib.rs",
                "pub mod cart;\npub use cart::Cart;\npub fn grand_total(c: &Cart) -> u32 { c.sum() }\n",
                true,
            ),
            // A file added: not a patch (a full resolution).
            ("src/extra.rs", "pub fn extra() {}\n", false),
        ];
        let first = build_index(root, &options, &|_| {}).expect("build");
        assert!(!first.patched);
        assert_eq!(
            held_text(&resident, root),
            Some(disk(root)),
            "after the first build"
        );
        for (path, text, patch) in steps {
            write(root, path, text);
            let summary = build_index(root, &options, &|_| {}).expect("update");
            assert_eq!(summary.patched, patch, "{path}");
            assert_eq!(held_text(&resident, root), Some(disk(root)), "after {path}");
        }
        // Another process's commit: what is held is no longer this generation's.
        write(root, "src/extra.rs", "pub fn extra2() {}\n");
        build_index(root, &BuildOptions::default(), &|_| {}).expect("update");
        assert_eq!(held_text(&resident, root), None);
        assert_eq!(resident.held_files(root), None);
        // Read again in the background when asked.
        resident.warm(root);
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
        while resident.held_files(root).is_none() && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        assert_eq!(
            held_text(&resident, root),
            Some(disk(root)),
            "after warming"
        );
        let holds_tables = resident
            .lock()
            .as_ref()
            .is_some_and(|h| h.tree.tables.is_some());
        assert!(holds_tables, "warming makes the tables a patch keeps");
        // An interface patch brings the warmed tables up to date (debug builds compare
        // them with tables made from scratch).
        write(
            root,
            "src/cart.rs",
            "pub struct Cart { items: Vec<u32> }\nimpl Cart {\n    pub fn sum(&self) -> u32 { self.items.iter().sum() }\n    pub fn first(&self) -> u32 { self.items[0] }\n}\n",
        );
        let summary = build_index(root, &options, &|_| {}).expect("update");
        assert!(summary.patched, "an interface patch");
        assert_eq!(
            held_text(&resident, root),
            Some(disk(root)),
            "after a patch from warmed tables"
        );
    }
}
