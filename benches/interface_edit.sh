#!/usr/bin/env bash
# One interface edit of one file, then `mcursor index`, timed as whole processes:
#
#   benches/interface_edit.sh MCURSOR CORPUS [ROUNDS] [FILE] [FUNCTION]
#
# CORPUS is an indexed git repository (benches/corpora.sh's rustreg). Three edits of FILE
# (default: regex-syntax's lib.rs), each ROUNDS times (default 3): a function appended
# (`add`), FUNCTION's definition removed (`remove`, default `is_word_byte`), FUNCTION
# renamed at its definition (`rename`). Each edit is followed by `MCURSOR index`
# (timed; MCURSOR_TRACE=1 output in /tmp/interface-edit-KIND-ROUND.log) and by
# `MCURSOR find` of the new or old name (timed, and its answer checked: the edit must be
# visible); then the file is restored with `git checkout` and the index updated again,
# untimed. Prints each run and the median per edit.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$2"
rounds="${3:-3}"
file="${4:-$(git ls-files '*regex-syntax-*/src/lib.rs' | head -1)}"
function="${5:-is_word_byte}"
now() { date +%s.%N; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
for kind in add remove rename; do
  : > "/tmp/interface-edit-$kind.times"
  for round in $(seq 1 "$rounds"); do
    case "$kind" in
      add)
        printf '\npub fn mcursor_edit_added_%d() {}\n' "$round" >> "$file"
        query="mcursor_edit_added_$round"; expect=1 ;;
      remove)
        # The definition line and its body up to the first line that is only `}`.
        awk -v f="pub fn $function(" 'index($0, f) == 1 {skip = 1} !skip {print} skip && /^}$/ {skip = 0}' "$file" > "$file.tmp"
        mv "$file.tmp" "$file"
        query="$function"; expect=0 ;;
      rename)
        sed -i "s/^pub fn $function(/pub fn ${function}_renamed(/" "$file"
        query="${function}_renamed"; expect=1 ;;
    esac
    start=$(now)
    MCURSOR_TRACE=1 "$mcursor" index > "/tmp/interface-edit-$kind-$round.log" 2>&1
    mid=$(now)
    found=$("$mcursor" find "$query" --json | grep -c "\"path\":\"$file\"" || true)
    end=$(now)
    index_s=$(echo "$mid - $start" | bc)
    find_ms=$(echo "($end - $mid) * 1000" | bc)
    if [ "$expect" -gt 0 ]; then visible=$((found >= 1)); else visible=$((found == 0)); fi
    if [ "$visible" -ne 1 ]; then
      echo "$kind round $round: find $query saw $found definitions in $file, expected $expect" >&2
      exit 1
    fi
    echo "$kind $round: index $index_s s, then find $query $find_ms ms ($(grep -o 'updated in [^:]*' "/tmp/interface-edit-$kind-$round.log" | head -1))"
    echo "$index_s" >> "/tmp/interface-edit-$kind.times"
    git checkout -q -- "$file"
    "$mcursor" index > /dev/null 2>&1
  done
  echo "$kind: median $(median < "/tmp/interface-edit-$kind.times") s over $rounds runs"
done
