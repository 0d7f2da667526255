#!/usr/bin/env bash
# Two mcursor binaries alternated on the write path: a traced cold index, one-shot
# interface edits and watched edits, so that a noisy host's drift hits both alike (for
# "before / after" figures on the issue-13 targets).
#
#   benches/alternate_updates.sh BASE NEW BASE_CORPUS NEW_CORPUS [ROUNDS] [COLD_EACH_ROUND]
#
# BASE_CORPUS and NEW_CORPUS are two copies of one git repository (benches/corpora.sh's
# rustreg), one per binary, since builds of other facts-cache layouts would each throw
# the other's cache away. Each round (default 2) runs, BASE then NEW:
#   - `index --full` under /usr/bin/time with MCURSOR_TRACE=1 (every round when
#     COLD_EACH_ROUND is 1, the default; only before the first round when 0);
#   - benches/interface_edit.sh BIN CORPUS 1 (an added, a removed and a renamed function);
#   - benches/watch_edit.sh BIN CORPUS 3 (three functions added under `mcursor watch`).
# Prints one line per measurement with the traced phases that the benches/README.md
# sections compare: the cold build's time, peak RSS, RSS once parsed, tables and
# references; each edit's time; the add's declarations load, tables, type index and
# peak; each watched edit's time, tables and type index. Logs stay in /tmp/alternate-*.
set -euo pipefail
if [ $# -lt 4 ]; then
  echo "usage: $0 BASE NEW BASE_CORPUS NEW_CORPUS [ROUNDS] [COLD_EACH_ROUND]" >&2
  exit 2
fi
here="$(cd "$(dirname "$0")" && pwd)"
base="$(realpath "$1")"
new="$(realpath "$2")"
base_corpus="$(realpath "$3")"
new_corpus="$(realpath "$4")"
rounds="${5:-2}"
cold_each_round="${6:-1}"
side_of() {
  if [ "$1" = base ]; then bin=$base; corpus=$base_corpus; else bin=$new; corpus=$new_corpus; fi
}
# The first match of a trace line's pattern in a log, or "-".
traced() { grep -o -m1 "$1" "$2" || echo "-"; }
cold() {
  side_of "$1"
  log=/tmp/alternate-$1-cold.log
  (cd "$corpus" && MCURSOR_TRACE=1 /usr/bin/time -f "TIME %e s, peak %M KB" "$bin" index --full) >"$log" 2>&1
  echo "$1 round $2 cold: $(traced 'TIME.*' "$log"); $(traced 'parsed at [0-9]* ms (RSS [0-9]* MiB' "$log"); $(traced 'tables built in [0-9]* ms' "$log"); $(traced 'references resolved in [0-9]* ms' "$log"); $(traced 'index [0-9.]* MB' "$log")"
}
for round in $(seq "$rounds"); do
  if [ "$round" = 1 ] || [ "$cold_each_round" = 1 ]; then
    for side in base new; do cold "$side" "$round"; done
  fi
  for side in base new; do
    side_of "$side"
    "$here/interface_edit.sh" "$bin" "$corpus" 1 | grep -v median | sed "s/^/$side round $round one-shot /"
    log=/tmp/interface-edit-add-1.log
    echo "$side round $round one-shot add traced: $(traced 'cache loaded at [0-9]* ms (RSS [0-9]* MiB' "$log"); $(traced 'tables built in [0-9]* ms' "$log"); $(traced 'types indexed in [0-9]* ms' "$log"); $(traced 'committed at [0-9]* ms (RSS [0-9]* MiB, peak [0-9]* MiB' "$log")"
  done
  for side in base new; do
    side_of "$side"
    "$here/watch_edit.sh" "$bin" "$corpus" 3 | sed "s/^/$side round $round watch /"
    log=/tmp/watch-edit.log
    echo "$side round $round watch traced: $(grep -o 'tables built in [0-9]* ms' "$log" | tr '\n' ' '); $(grep -o 'types indexed in [0-9]* ms' "$log" | tr '\n' ' ')"
  done
done
