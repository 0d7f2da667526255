#!/usr/bin/env bash
# Cold index time, peak memory and lookup time of two mcursor binaries on one corpus,
# alternated run by run so that drift hits both alike (for "before / after" figures).
#
#   benches/compare-index.sh OLD_BINARY NEW_BINARY [CORPUS_DIR] [RUNS]
#
# CORPUS_DIR defaults to the `rustreg` corpus of benches/corpora.sh. Each binary indexes
# a copy of its own (`--full`, `--max-file-size 1048576` as benches/index.sh), so the
# two never share an index. Prints each run and the medians. Needs GNU /usr/bin/time.
set -euo pipefail
old="$(realpath "$1")"
new="$(realpath "$2")"
corpus="${3:-${TMPDIR:-/tmp}/mcursor-corpus/rustreg}"
runs="${4:-3}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
for side in old new; do
  mkdir -p "$work/$side"
  cp -r "$corpus" "$work/$side/corpus"
  rm -rf "$work/$side/corpus/.mcursor"
done
declare -A times rss
for i in $(seq "$runs"); do
  for side in old new; do
    bin="${!side}"
    /usr/bin/time -f "%M" -o "$work/rss" "$bin" index --full --json --max-file-size 1048576 \
      "$work/$side/corpus" >"$work/$side.json"
    ms=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["duration_ms"])' "$work/$side.json")
    kb=$(cat "$work/rss")
    times[$side]+="$ms "
    rss[$side]+="$((kb / 1024)) "
    echo "run $i $side: index ${ms} ms, peak RSS $((kb / 1024)) MiB"
  done
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
for side in old new; do
  echo "$side: median index $(echo "${times[$side]}" | median) ms, median peak RSS $(echo "${rss[$side]}" | median) MiB"
  python3 - "$work/$side.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"  {s['files']} files, {s['symbols']} symbols, {s['references']} references, index {s['index_bytes']/1e6:.1f} MB")
PY
done
# Lookups as whole processes, alternated: `find` and `refs` of a few names.
for name in new parse_str Utf8Sequences; do
  for cmd in find refs; do
    for side in old new; do
      bin="${!side}"
      start=$(date +%s%N)
      for _ in $(seq 20); do "$bin" -C "$work/$side/corpus" "$cmd" "$name" --limit 50 >/dev/null 2>&1 || true; done
      end=$(date +%s%N)
      echo "$cmd $name $side: $(( (end - start) / 20000 )) us per process (mean of 20)"
    done
  done
done
