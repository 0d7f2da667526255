#!/usr/bin/env bash
# A watcher's memory after edits, and once it has been quiet:
#
#   benches/watch_memory.sh MCURSOR CORPUS [EDITS]
#
# CORPUS is an indexed git repository (benches/corpora.sh's rustreg). Starts
# `MCURSOR_TRACE=1 MCURSOR watch` in CORPUS, waits until it is ready, prints the
# watcher's Rss, Anonymous and LazyFree (/proc/PID/smaps_rollup) 15 s later (past
# `watch`'s 10 s quiet spell), appends a function to regex-syntax's lib.rs EDITS times
# (default 3) 3 s apart, then prints the same at once and 15 s later, and each update's
# `updated in`. Then
# stops the watcher, restores the file and updates the index, untimed.
# Trace: /tmp/watch-memory.log.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$2"
edits="${3:-3}"
file="$(git ls-files '*regex-syntax-*/src/lib.rs' | head -1)"
log=/tmp/watch-memory.log
MCURSOR_TRACE=1 "$mcursor" watch > "$log" 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true; git checkout -q -- "$file"' EXIT
for _ in $(seq 1 600); do grep -q watching "$log" && break; sleep 0.1; done
grep -q watching "$log" || { echo "watch did not get ready" >&2; exit 1; }
rollup() { grep -E '^(Rss|Anonymous|LazyFree)' "/proc/$pid/smaps_rollup" | tr -s ' ' | tr '\n' ' '; }
sleep 15
echo "idle, 15 s after ready: $(rollup)"
for n in $(seq 1 "$edits"); do
  printf '\npub fn mcursor_watch_memory_%d() {}\n' "$n" >> "$file"
  sleep 3
done
for wait in 0 15; do
  sleep "$wait"
  echo "after the edits, +$wait s: $(rollup)"
done
grep -o 'updated in [0-9.]*s' "$log"
kill -INT $pid; wait $pid 2>/dev/null || true
trap - EXIT
git checkout -q -- "$file"
"$mcursor" index > /dev/null
