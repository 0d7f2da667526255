#!/usr/bin/env bash
# The three interface edits of `interface_edit.sh` under a running `mcursor watch`, each
# timed by the watcher and checked by a separate `mcursor find`:
#
#   benches/watch_interface_edits.sh MCURSOR CORPUS [ROUNDS] [FILE] [FUNCTION]
#
# CORPUS is an indexed git repository (benches/corpora.sh's rustreg). Starts
# `MCURSOR_TRACE=1 MCURSOR watch` in CORPUS, waits until it reports ready and then 8 s
# more (its background work done), then ROUNDS times (default 3): a function appended
# to FILE (default: regex-syntax's lib.rs), FUNCTION's definition removed (default
# `is_word_byte`) and FUNCTION renamed at its definition, each after `git checkout` of
# FILE (also an update, timed as `restore`). After each update the watcher reports,
# `MCURSOR find` must see the edit. Prints each update's `updated in` line and the median
# per edit kind. Trace: /tmp/watch-interface-edits.log.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$2"
rounds="${3:-3}"
file="${4:-$(git ls-files '*regex-syntax-*/src/lib.rs' | head -1)}"
function="${5:-is_word_byte}"
log=/tmp/watch-interface-edits.log
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
MCURSOR_TRACE=1 "$mcursor" watch > "$log" 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true; git checkout -q -- "$file"' EXIT
for _ in $(seq 1 600); do grep -q watching "$log" && break; sleep 0.1; done
grep -q watching "$log" || { echo "watch did not get ready" >&2; exit 1; }
sleep 8
updates=0
# Waits for the next update, prints its time and checks that `find QUERY` sees EXPECT
# (1: a definition in FILE, 0: none).
settle() {
  local kind=$1 query=$2 expect=$3
  updates=$((updates + 1))
  for _ in $(seq 1 600); do
    [ "$(grep -c 'updated in' "$log")" -ge "$updates" ] && break
    sleep 0.05
  done
  local line
  line=$(grep -o 'updated in [0-9.]*s[^:]*' "$log" | sed -n "${updates}p")
  local found
  found=$("$mcursor" find "$query" --json | grep -c "\"path\":\"$file\"" || true)
  if [ "$expect" -gt 0 ] && [ "$found" -lt 1 ] || [ "$expect" -eq 0 ] && [ "$found" -ne 0 ]; then
    echo "$kind: find $query saw $found definitions in $file, expected $expect" >&2
    exit 1
  fi
  echo "$kind: $line"
  echo "$line" | awk '{print $3}' | tr -d s >> "/tmp/watch-interface-edits-$kind.times"
  sleep 1
}
for kind in add remove rename restore; do : > "/tmp/watch-interface-edits-$kind.times"; done
for round in $(seq 1 "$rounds"); do
  printf '\npub fn mcursor_watch_added_%d() {}\n' "$round" >> "$file"
  settle add "mcursor_watch_added_$round" 1
  git checkout -q -- "$file"; settle restore "$function" 1
  awk -v f="pub fn $function(" 'index($0, f) == 1 {skip = 1} !skip {print} skip && /^}$/ {skip = 0}' "$file" > "$file.tmp"
  cat "$file.tmp" > "$file"; rm "$file.tmp"
  settle remove "$function" 0
  git checkout -q -- "$file"; settle restore "$function" 1
  sed -i "s/^pub fn $function(/pub fn ${function}_renamed(/" "$file"
  settle rename "${function}_renamed" 1
  git checkout -q -- "$file"; settle restore "$function" 1
done
for kind in add remove rename restore; do
  echo "$kind: median $(median < "/tmp/watch-interface-edits-$kind.times") s over $(wc -l < "/tmp/watch-interface-edits-$kind.times") updates"
done
kill -INT $pid; wait $pid 2>/dev/null || true
trap - EXIT
