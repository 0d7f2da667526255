#!/usr/bin/env bash
# Reproduces the indexing and lookup figures in benches/README.md.
#
#   benches/index.sh [CORPUS_DIR] [RUNS]
#
# CORPUS_DIR defaults to the `rustreg` corpus of benches/corpora.sh (a `cargo vendor` of
# mcursor's dependency tree pinned by the Cargo.lock of commit 782f31d), created on first
# use. Needs: /usr/bin/time (GNU), hyperfine, ripgrep.
set -euo pipefail
cd "$(dirname "$0")/.."
corpus="${1:-${TMPDIR:-/tmp}/mcursor-corpus/rustreg}"
runs="${2:-3}"
bin="$(pwd)/target/release/mcursor"

cargo build --release --quiet
if [ ! -d "$corpus" ]; then
  benches/corpora.sh "$(dirname "$corpus")" rustreg
fi
echo "corpus: $corpus ($(du -sh --exclude=.mcursor --exclude=.git "$corpus/" | cut -f1), $(find "$corpus/" -name '*.rs' | wc -l) .rs files)"
echo "cpus: $(nproc)"

# Cold index next to the parse ceiling, alternated so drift hits both alike.
for i in $(seq "$runs"); do
  sync
  parse_ms=$("$bin" debug parse-only "$corpus" | sed -E 's/.*"duration_ms":([0-9]+).*/\1/')
  /usr/bin/time -f "%M" -o /tmp/mcursor-rss.txt "$bin" index --full --json --max-file-size 1048576 "$corpus" > /tmp/mcursor-index.json
  index_ms=$(sed -E 's/.*"duration_ms":([0-9]+).*/\1/' /tmp/mcursor-index.json)
  rss_kb=$(cat /tmp/mcursor-rss.txt)
  echo "run $i: parse-only ${parse_ms} ms, index ${index_ms} ms ($(( 100 * parse_ms / index_ms ))% of ceiling), peak RSS $(( rss_kb / 1024 )) MiB"
done
python3 - /tmp/mcursor-index.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
print(f"files {s['files']}, symbols {s['symbols']}, references {s['references']}")
print(f"source {s['source_bytes']/1e6:.1f} MB, index {s['index_bytes']/1e6:.1f} MB, ratio {s['index_bytes']/s['source_bytes']:.2f}")
PY

# Lookup as a whole process: mcursor find vs rg -w, alternated by hyperfine.
cd "$corpus"
for name in new parse_str Utf8Sequences; do
  hyperfine -N --warmup 3 --runs 30 --export-json "/tmp/mcursor-find-$name.json" \
    "$bin find $name" "rg -w --no-messages $name" | grep -E "Time|±|faster" || true
done
