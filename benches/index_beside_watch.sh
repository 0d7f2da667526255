#!/usr/bin/env bash
# `mcursor index` straight after an interface edit while `mcursor watch` runs:
#
#   benches/index_beside_watch.sh MCURSOR CORPUS [EDITS] [FILE]
#
# CORPUS is an indexed git repository (benches/corpora.sh's rustreg). Starts
# `MCURSOR_TRACE=1 MCURSOR watch` in CORPUS, waits until it reports ready and then 8 s
# more, then EDITS times (default 5): a function appended to FILE (default:
# regex-syntax's lib.rs), at once `MCURSOR index` (timed, wall clock), then `MCURSOR
# find` must see the function. Prints each edit's time and what `index` said (a build
# that hands the update to the watcher says so), then the median. FILE is restored on
# exit. Traces: /tmp/index-beside-watch.log (the watcher), /tmp/index-beside-watch-N.log.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$2"
edits="${3:-5}"
file="${4:-$(git ls-files '*regex-syntax-*/src/lib.rs' | head -1)}"
log=/tmp/index-beside-watch.log
MCURSOR_TRACE=1 "$mcursor" watch > "$log" 2>&1 &
pid=$!
trap 'kill -INT $pid 2>/dev/null || true; git checkout -q -- "$file"' EXIT
for _ in $(seq 1 600); do grep -q watching "$log" && break; sleep 0.1; done
grep -q watching "$log" || { echo "watch did not get ready" >&2; exit 1; }
sleep 8
times=()
for i in $(seq 1 "$edits"); do
  printf '\npub fn mcursor_beside_watch_%d() {}\n' "$i" >> "$file"
  start=$(date +%s%N)
  MCURSOR_TRACE=1 "$mcursor" index > "/tmp/index-beside-watch-$i.log" 2>&1
  end=$(date +%s%N)
  found=$("$mcursor" find "mcursor_beside_watch_$i" --json | grep -c "\"path\":\"$file\"" || true)
  [ "$found" -ge 1 ] || { echo "edit $i: find does not see it" >&2; exit 1; }
  ms=$(( (end - start) / 1000000 ))
  times+=("$ms")
  said=$(grep -E '^(updated in|index is current|  by the running)' "/tmp/index-beside-watch-$i.log" | cut -c1-90 | tr '\n' ' ')
  echo "edit $i: index $ms ms; $said"
  sleep 2
done
printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print "median " ((NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2) " ms over " NR " edits"}'
kill -INT $pid; wait $pid 2>/dev/null || true
trap - EXIT
git checkout -q -- "$file"
