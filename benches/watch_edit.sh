#!/usr/bin/env bash
# Interface edits under a running `mcursor watch`, timed by the watcher itself:
#
#   benches/watch_edit.sh MCURSOR CORPUS [EDITS] [FILE] [WATCH_FLAGS...]
#
# CORPUS is an indexed git repository (benches/corpora.sh's rustreg). Starts
# `MCURSOR_TRACE=1 MCURSOR watch WATCH_FLAGS` in CORPUS, waits until it reports ready and
# then 8 s more (its background work done), prints its resident memory, then appends a
# function to FILE (default: regex-syntax's lib.rs) EDITS times (default 3), each after
# the previous update is reported; prints each update's own `updated in` line (the
# watcher's time from the event to the commit). Then stops the watcher, restores FILE
# with `git checkout` and updates the index, untimed. Trace: /tmp/watch-edit.log.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$2"
edits="${3:-3}"
file="${4:-$(git ls-files '*regex-syntax-*/src/lib.rs' | head -1)}"
shift $(( $# < 4 ? $# : 4 ))
log=/tmp/watch-edit.log
MCURSOR_TRACE=1 "$mcursor" watch "$@" > "$log" 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true; git checkout -q -- "$file"' EXIT
for _ in $(seq 1 600); do grep -q watching "$log" && break; sleep 0.1; done
grep -q watching "$log" || { echo "watch did not get ready" >&2; exit 1; }
sleep 8
echo "idle RSS: $(( $(ps -o rss= -p $pid) / 1024 )) MiB"
for n in $(seq 1 "$edits"); do
  printf '\npub fn mcursor_watch_edit_%d() {}\n' "$n" >> "$file"
  for _ in $(seq 1 600); do
    [ "$(grep -c 'updated in' "$log")" -ge "$n" ] && break
    sleep 0.1
  done
  sleep 1
done
grep -o 'updated in [0-9.]*s[^:]*' "$log"
kill -INT $pid; wait $pid 2>/dev/null || true
trap - EXIT
git checkout -q -- "$file"
"$mcursor" index > /dev/null
