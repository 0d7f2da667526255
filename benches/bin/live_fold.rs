//! What a large change made by the agent's commands costs its later edits, before and
//! after the live index folds the patches when quiet: the `LiveIndex` the agent's index
//! tools use, in process, on an indexed git repository.
//!
//! ```text
//! cargo run --release -p mcursor-benches --bin live-fold -- REPO FILE [FILES]
//! ```
//! Appends a new public function to FILES `.rs` files (default 1,000: every 12th of `git
//! ls-files`) and reports it as a command's change (a walk), then appends a comment line
//! to FILE twice, each reported as an edit and looked up; waits for the fold (at most 60
//! s), then edits FILE twice more. Prints each step's time until the next lookup answers
//! and the generation and base the index is at. The tree is restored with `git checkout`
//! at the end (FILE and the edited files must be committed).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use mcursor_index::{Index, LiveIndex};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, file, rest @ ..] = args.as_slice() else {
        return Err("usage: live-fold REPO FILE [FILES]".into());
    };
    let count: usize = rest.first().map_or(Ok(1000), |n| n.parse())?;
    let root = PathBuf::from(root).canonicalize()?;
    let file = root.join(file);
    let original = std::fs::read_to_string(&file)?;
    let live = LiveIndex::new(&root);
    let at = |root: &Path| -> String {
        Index::open(root).map_or_else(
            |e| format!("({e})"),
            |i| {
                format!(
                    "generation {}, base {}",
                    i.generation(),
                    i.store().base_generation()
                )
            },
        )
    };
    let timed =
        |what: &str, change: Option<Vec<PathBuf>>| -> Result<(), Box<dyn std::error::Error>> {
            let started = Instant::now();
            live.after_change(change);
            live.get(&|_| {})?;
            println!(
                "{what}: {:.3} s ({})",
                started.elapsed().as_secs_f64(),
                at(&root)
            );
            Ok(())
        };
    live.get(&|_| {})?;
    println!("opened ({})", at(&root));

    let listed = std::process::Command::new("git")
        .args(["ls-files", "*.rs"])
        .current_dir(&root)
        .output()?;
    let files: Vec<PathBuf> = String::from_utf8_lossy(&listed.stdout)
        .lines()
        .enumerate()
        .filter(|(i, _)| (i + 1) % 12 == 0)
        .map(|(_, path)| root.join(path))
        .filter(|path| *path != file)
        .take(count)
        .collect();
    for path in &files {
        let mut text = std::fs::read_to_string(path)?;
        text.push_str("\npub fn mcursor_bench_live_fold() {}\n");
        std::fs::write(path, text)?;
    }
    timed(
        &format!("a command that edited {} files", files.len()),
        None,
    )?;
    let mut edits = 0;
    let mut edit = |when: &str| {
        edits += 1;
        std::fs::write(
            &file,
            format!("{original}\n// mcursor bench edit {edits}\n"),
        )?;
        timed(&format!("comment edit {when}"), Some(vec![file.clone()]))
    };
    edit("before the fold")?;
    edit("before the fold")?;
    let waited = Instant::now();
    while waited.elapsed() < Duration::from_secs(60) {
        if Index::open(&root).is_ok_and(|i| i.generation() == i.store().base_generation()) {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    println!(
        "waited {:.1} s for the fold ({})",
        waited.elapsed().as_secs_f64(),
        at(&root)
    );
    edit("after the fold")?;
    edit("after the fold")?;

    std::fs::write(&file, &original)?;
    live.after_change(Some(vec![file.clone()]));
    live.settle();
    std::process::Command::new("git")
        .args(["checkout", "-q", "--"])
        .args(&files)
        .current_dir(&root)
        .status()?;
    Ok(())
}
