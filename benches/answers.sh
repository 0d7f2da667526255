#!/usr/bin/env bash
# What answering honestly costs (issue 16): lookups as whole processes with the
# freshness check, without it (a running `mcursor watch`), and against the build before.
#
#   benches/answers.sh BASELINE NEW [CORPUS] [RUNS]
#
# CORPUS defaults to benches/corpora.sh's rustreg (indexed by NEW first). Medians of RUNS
# (default 30) with hyperfine, alternating the binaries. The "watched" rows hold
# .mcursor/watch.lock the way `mcursor watch` does. Also `refs` on clap_builder (a 1 MB
# crate) on a quiet machine and with two busy loops competing for the two cores.
set -euo pipefail
base="$1"; new="$2"
corpus="${3:-/tmp/mcursor-corpus/rustreg}"
runs="${4:-30}"
median() { python3 -c "import json,sys,statistics; d=json.load(open(sys.argv[1])); [print(f\"{r['command']}: {statistics.median(r['times'])*1000:.2f} ms\") for r in d['results']]" "$1"; }
"$new" -C "$corpus" index > /dev/null
echo "== $corpus ($(find "$corpus" -name '*.rs' -not -path '*/.mcursor/*' | wc -l) .rs files)"
hyperfine -N --warmup 3 --runs "$runs" --export-json /tmp/answers-1.json \
  "$base -C $corpus find parse_str" "$new -C $corpus find parse_str" \
  "$base -C $corpus refs parse_str" "$new -C $corpus refs parse_str" \
  "$base -C $corpus search 'parse config'" "$new -C $corpus search 'parse config'" > /dev/null
median /tmp/answers-1.json
echo "== the same, watched"
python3 -c "
import fcntl, os, sys, time
f = open(os.path.join(sys.argv[1], '.mcursor/watch.lock'), 'a+')
fcntl.flock(f, fcntl.LOCK_EX); f.truncate(0); f.write(str(os.getpid())); f.flush()
time.sleep(600)" "$corpus" &
holder=$!
sleep 0.5
hyperfine -N --warmup 3 --runs "$runs" --export-json /tmp/answers-2.json \
  "$new -C $corpus find parse_str" "$new -C $corpus refs parse_str" \
  "$new -C $corpus search 'parse config'" > /dev/null
kill "$holder"
median /tmp/answers-2.json
crate="$(mktemp -d)/clap_builder"
cp -r "$corpus"/clap_builder-* "$crate"
"$new" -C "$crate" index > /dev/null
echo "== refs on clap_builder (quiet, then two busy loops on the cores)"
for load in quiet busy; do
  if [ "$load" = busy ]; then yes > /dev/null & y1=$!; yes > /dev/null & y2=$!; sleep 0.5; fi
  hyperfine -N --warmup 3 --runs "$runs" --export-json "/tmp/answers-$load.json" \
    "$base -C $crate refs get_about" "$new -C $crate refs get_about" \
    "$base -C $crate find get_about" "grep -rw get_about $crate" > /dev/null
  if [ "$load" = busy ]; then kill "$y1" "$y2"; fi
  echo "-- $load"; median "/tmp/answers-$load.json"
done
