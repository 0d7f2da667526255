#!/usr/bin/env bash
# Reproduces the lookup figures in benches/README.md: `mcursor bench` on every prepared
# corpus (see corpora.sh), with the ground truth for the synthetic ones.
#
#   benches/lookup.sh [CORPUS_DIR] [QUERIES] [RUNS] [CORPUS...]
#
# Writes benches/results/<corpus>.txt (the table), .json (the report) and .svg (the plot).
# Needs: ripgrep, git, GNU grep (a missing one is skipped by mcursor bench, with a note).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-${TMPDIR:-/tmp}/mcursor-corpus}"
queries="${2:-60}"
runs="${3:-3}"
shift 3 || shift $#
corpora="${*:-rustreg tsnpm synth-rs-1k synth-rs-10k synth-rs-100k synth-ts-1k synth-ts-10k synth-ts-100k}"
bin="$(pwd)/target/release/mcursor"
out="$(pwd)/benches/results"
mkdir -p "$out"
cargo build --release --quiet -p mcursor

for corpus in $corpora; do
  root="$dir/$corpus"
  [ -d "$root" ] || { echo "skip $corpus: $root does not exist (run benches/corpora.sh)"; continue; }
  # grep reads files of any size; so must the index, for the same question on the same
  # files (typescript.js is 9 MB, a few vendored .rs tables are over the 1 MiB default).
  "$bin" index --max-file-size 67108864 "$root" >/dev/null
  truth=()
  [ -f "$dir/$corpus.truth.json" ] && truth=(--truth "$dir/$corpus.truth.json")
  echo "== $corpus"
  "$bin" -C "$root" bench --queries "$queries" --runs "$runs" "${truth[@]}" \
    --plot "$out/$corpus.svg" --report "$out/$corpus.json" | tee "$out/$corpus.txt"
done
