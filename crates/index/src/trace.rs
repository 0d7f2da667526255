//! `MCURSOR_TRACE`: the build's phases on stderr, with their time and the process's
//! memory, so a slow or large build shows which phase costs it.

use std::time::Instant;

/// "`phase` at N ms" since the build started.
pub(crate) fn trace(started: &Instant, phase: &str) {
    timed(phase, "at", *started);
}

/// "`what` in N ms": one phase's own duration.
pub(crate) fn trace_phase(what: &str, since: Instant) {
    timed(what, "in", since);
}

fn timed(what: &str, word: &str, since: Instant) {
    if enabled() {
        eprintln!(
            "[mcursor] {what} {word} {} ms{}",
            since.elapsed().as_millis(),
            memory_now()
        );
    }
}

/// A line of its own: why an update was not a patch, what a watcher is about to do.
pub(crate) fn note(what: std::fmt::Arguments<'_>) {
    if enabled() {
        eprintln!("[mcursor] {what}");
    }
}

fn enabled() -> bool {
    std::env::var_os("MCURSOR_TRACE").is_some()
}

/// The process's resident and peak resident memory where the OS says (Linux's
/// `/proc/self/status`); empty elsewhere.
fn memory_now() -> String {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else {
        return String::new();
    };
    let mebibytes = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|kib| kib.parse::<u64>().ok())
            .map(|kib| kib / 1024)
    };
    match (mebibytes("VmRSS:"), mebibytes("VmHWM:")) {
        (Some(rss), Some(peak)) => format!(" (RSS {rss} MiB, peak {peak} MiB)"),
        _ => String::new(),
    }
}
