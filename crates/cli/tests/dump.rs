//! `mcursor debug dump` is canonical: the same tree dumps the same whatever the worker
//! count, and an index brought up to date after edits, additions, deletions and renames
//! dumps the same as a fresh index of the edited tree. (The harness incremental updates
//! will be held to.)

mod common;

use std::path::Path;

use common::{copy_tree, fixture, mcursor, source_files, stderr, stdout};

fn index_with(dir: &Path, threads: &str) {
    let output = mcursor(dir, &["index", "-j", threads]);
    assert!(output.status.success(), "{}", stderr(&output));
}

fn dump(dir: &Path) -> String {
    let output = mcursor(dir, &["debug", "dump"]);
    assert!(output.status.success(), "{}", stderr(&output));
    stdout(&output)
}

#[test]
fn dumps_do_not_depend_on_threads_or_on_history() {
    for name in ["rust-basic", "ts-basic", "js-basic"] {
        let one = fixture(name);
        let two = fixture(name);
        index_with(one.path(), "1");
        index_with(two.path(), "2");
        let first = dump(one.path());
        assert_eq!(first, dump(two.path()), "{name}: -j1 and -j2 differ");
        for kind in ["file ", "def ", "ref ", "text "] {
            assert!(
                first.lines().any(|l| l.starts_with(kind)),
                "{name}: no `{kind}` lines"
            );
        }

        // Change the first index's tree in every way, and bring its index up to date.
        let root = one.path();
        let files: Vec<_> = source_files(root);
        let (edited, renamed, deleted) = (&files[0], &files[1], &files[2]);
        let text = std::fs::read_to_string(edited).expect("read");
        std::fs::write(edited, format!("{text}\n// edited\n")).expect("edit");
        let moved = renamed.with_file_name(format!(
            "moved_{}",
            renamed.file_name().and_then(|n| n.to_str()).unwrap_or("x")
        ));
        std::fs::rename(renamed, &moved).expect("rename");
        std::fs::remove_file(deleted).expect("delete");
        let added = root.join(match name {
            "rust-basic" => "src/added.rs",
            "ts-basic" => "src/added.ts",
            _ => "lib/added.js",
        });
        std::fs::write(
            &added,
            match name {
                "rust-basic" => "pub fn added_fn() { added_fn(); }\n",
                _ => "export function addedFn() { return addedFn(); }\n",
            },
        )
        .expect("add");
        index_with(root, "2");

        let fresh = tempfile::tempdir().expect("tempdir");
        copy_tree(root, fresh.path());
        index_with(fresh.path(), "2");
        assert_eq!(dump(root), dump(fresh.path()), "{name}: updated != fresh");
    }
}

/// `mcursor debug sizes` accounts for the store's sections, its compressed blocks, the
/// facts cache and the text index, and the files add up to no more than the whole.
#[test]
fn sizes_account_for_the_index_directory() {
    let tree = fixture("rust-basic");
    index_with(tree.path(), "2");
    let output = mcursor(tree.path(), &["debug", "sizes"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    // Each line: a name (indented for a file's parts), MB, bytes.
    let lines: Vec<(&str, u64)> = text
        .lines()
        .map(|l| {
            let bytes = l.split_whitespace().last().and_then(|b| b.parse().ok());
            (l.get(..28).unwrap_or(l).trim_end(), bytes.expect(l))
        })
        .collect();
    let bytes_of = |name: &str| lines.iter().find(|(n, _)| *n == name).map(|&(_, b)| b);
    for part in [
        "  symbols",
        "  strings",
        "  refs",
        "  compressed blocks",
        "facts.bin",
        "  declarations",
        "  outcomes",
        "  references",
        "  framing",
    ] {
        assert!(bytes_of(part).is_some_and(|b| b > 0), "no {part}:\n{text}");
    }
    // The facts cache's parts add up to the file.
    let facts_parts: u64 = ["  declarations", "  outcomes", "  references", "  framing"]
        .iter()
        .filter_map(|part| bytes_of(part))
        .sum();
    assert_eq!(Some(facts_parts), bytes_of("facts.bin"), "{text}");
    let files: u64 = lines
        .iter()
        .filter(|(name, _)| !name.starts_with(' ') && *name != "in all")
        .map(|&(_, bytes)| bytes)
        .sum();
    let total = bytes_of("in all").expect("the whole directory");
    assert!(files > 0 && files <= total, "{files} of {total}:\n{text}");
}
