#!/usr/bin/env bash
# One update after an interface edit of many files, timed:
#
#   benches/interface_edits.sh MCURSOR CORPUS [FILES] [LABEL]
#
# CORPUS is an indexed git repository (benches/corpora.sh's rustreg): every 12th `.rs`
# file of `git ls-files`, FILES of them (default 1000), gets one new public function;
# `MCURSOR index` runs with MCURSOR_TRACE=1 (its phases in /tmp/interface-edits-LABEL.log);
# the files are restored with `git checkout` and the index updated again, untimed.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$2"
files="${3:-1000}"
label="${4:-run}"
git ls-files '*.rs' | awk -v n="$files" 'NR % 12 == 0 && ++c <= n' > /tmp/interface-edits.list
i=0
while read -r f; do
  i=$((i + 1))
  printf '\npub fn mcursor_bench_edit_%d() {}\n' "$i" >> "$f"
done < /tmp/interface-edits.list
start=$(date +%s.%N)
MCURSOR_TRACE=1 "$mcursor" index > "/tmp/interface-edits-$label.log" 2>&1
end=$(date +%s.%N)
echo "$label: $i files edited, index $(echo "$end - $start" | bc) s"
git checkout -q .
"$mcursor" index > /dev/null 2>&1
