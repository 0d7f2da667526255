#!/usr/bin/env bash
# What files carried by patches cost the next updates, timed:
#
#   benches/carried_files.sh MCURSOR CORPUS [ROUNDS]
#
# CORPUS is a git repository (benches/corpora.sh's rustreg). After `MCURSOR index --full`,
# each round (default 4) edits 1,000 `.rs` files (a new public function each: a checkout
# with interface edits; round k takes every 12th file of `git ls-files` from the k-th),
# updates, restores them with `git checkout` and updates again: each round leaves about
# 1,000 more files carried by the patches of one base. Then one comment line and one new
# function are appended to `regex-syntax`'s lib.rs, each updated and restored. Printed
# per update: the wall time and mcursor's own summary; the traces are kept in
# /tmp/carried-files-ROUND-STEP.log.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
cd "$2"
rounds="${3:-4}"
lib="$(git ls-files | awk '/^regex-syntax-[^/]*\/src\/lib\.rs$/ && !found { print; found = 1 }')"

update() { # ROUND STEP
  local log="/tmp/carried-files-$1-$2.log" start end
  start=$(date +%s.%N)
  MCURSOR_TRACE=1 "$mcursor" index > "$log" 2>&1
  end=$(date +%s.%N)
  printf 'round %s %-12s %6.2f s  %s %s\n' "$1" "$2" "$(echo "$end - $start" | bc)" \
    "$(grep -m1 '^updated' "$log" | cut -d';' -f1)" \
    "$(grep -o '[0-9][0-9]* carried files copied' "$log" || true)"
}

"$mcursor" index --full > /dev/null 2>&1
for ((round = 0; round < rounds; round++)); do
  git ls-files '*.rs' | awk -v o="$round" 'NR % 12 == o && ++c <= 1000' > /tmp/carried-files.list
  while read -r f; do
    printf '\npub fn mcursor_bench_checkout_%d() {}\n' "$round" >> "$f"
  done < /tmp/carried-files.list
  update "$round" checkout
  git checkout -q .
  update "$round" restore
  printf '\n// a comment\n' >> "$lib"
  update "$round" comment
  git checkout -q -- "$lib"
  update "$round" comment-back
  printf '\npub fn mcursor_bench_added() {}\n' >> "$lib"
  update "$round" interface
  git checkout -q -- "$lib"
  update "$round" iface-back
done
