//! How long after an agent's edit its next `find_symbol` sees the change: the agent's
//! own tools, in process, on an indexed repository.
//!
//! ```text
//! cargo run --release -p mcursor-benches --bin agent-edit -- REPO FILE NAME [EDITS]
//! ```
//! Each round inserts a comment line above the first line of FILE that defines `fn NAME`
//! (an `edit_file` call, which reindexes before it returns), then asks `find_symbol
//! NAME` and checks that the answer has the definition's new line. Prints the median and
//! p99 of edit + lookup, and of the edit alone. The comment lines stay in FILE (use a
//! scratch copy or `git checkout` the file afterwards).

use std::path::PathBuf;
use std::time::{Duration, Instant};

use mcursor_agent::{CommandOptions, Toolbox, Workspace};

fn percentile(sorted: &[Duration], p: f64) -> f64 {
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(i).map_or(0.0, |d| d.as_secs_f64() * 1000.0)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [root, file, name, rest @ ..] = args.as_slice() else {
        return Err("usage: agent-edit REPO FILE NAME [EDITS]".into());
    };
    let edits: usize = rest.first().map_or(Ok(30), |n| n.parse())?;
    let root = PathBuf::from(root).canonicalize()?;
    let toolbox = Toolbox::new(Workspace::new(&root)?, CommandOptions::default());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let call = |tool: &str, arguments: serde_json::Value| {
        runtime.block_on(toolbox.call(
            tool,
            &arguments.to_string(),
            &mut |_| {},
            std::future::pending(),
        ))
    };
    // Warm: the index is opened and brought up to date once.
    let first = call("find_symbol", serde_json::json!({ "name": name }));
    println!("{}", first.text.lines().next().unwrap_or(""));
    let (mut total, mut edit_only) = (Vec::new(), Vec::new());
    for round in 0..edits {
        let text = std::fs::read_to_string(root.join(file))?;
        let (number, line) = text
            .lines()
            .enumerate()
            .find(|(_, l)| l.contains(&format!("fn {name}")))
            .ok_or("no `fn NAME` line in FILE")?;
        let started = Instant::now();
        let edited = call(
            "edit_file",
            serde_json::json!({
                "path": file,
                "old_text": line,
                "new_text": format!("// agent edit {round}\n{line}"),
            }),
        );
        let edited_at = started.elapsed();
        let found = call("find_symbol", serde_json::json!({ "name": name }));
        let seen_at = started.elapsed();
        if edited.is_error {
            return Err(format!("edit failed: {}", edited.text).into());
        }
        let expected = format!("{file}:{}:", number + 2);
        if !found.text.contains(&expected) {
            return Err(format!("find_symbol missed the edit: {}", found.text).into());
        }
        total.push(seen_at);
        edit_only.push(edited_at);
    }
    total.sort();
    edit_only.sort();
    println!(
        "{edits} edits of {file}: edit + find_symbol p50 {:.1} ms, p99 {:.1} ms; edit (with reindex) p50 {:.1} ms, p99 {:.1} ms",
        percentile(&total, 0.5),
        percentile(&total, 0.99),
        percentile(&edit_only, 0.5),
        percentile(&edit_only, 0.99),
    );
    Ok(())
}
