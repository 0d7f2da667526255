#!/usr/bin/env bash
# Figures for the navigation commands (issue 17) on an indexed corpus: `impls`,
# `impact --depth 2`, `callers` (lines printed, and with an older binary the same
# `callers` question before grouping), and `export` (time, lines, bytes, peak RSS).
#
#   benches/navigation.sh BINARY CORPUS_DIR [OLD_BINARY]
#
# CORPUS_DIR must hold a current index built by BINARY (`BINARY index --full CORPUS_DIR`);
# OLD_BINARY, if given, needs its own indexed copy at CORPUS_DIR-old. Times are hyperfine
# medians of 10 runs (whole processes, 2 warm-ups); needs hyperfine and GNU /usr/bin/time.
set -euo pipefail
bin="$(realpath "$1")"
corpus="$(realpath "$2")"
old="${3:-}"
run() { hyperfine -N -w 2 -r 10 -i --export-json /tmp/nav.json "$1" >/dev/null 2>&1
        python3 -c 'import json; r=json.load(open("/tmp/nav.json"))["results"][0]; print("%.1f ms" % (r["median"] * 1000))'; }
lines() { "$@" 2>/dev/null | wc -l; }
echo "corpus: $corpus"
for target in ToTokens Parse Serialize 'syn::parse::Parse'; do
  echo "impls $target: $(run "$bin -C $corpus impls $target"), $(lines "$bin" -C "$corpus" impls "$target") lines"
done
for target in ToTokens 'ToTokens::to_tokens' parse_quote Regex; do
  summary=$("$bin" -C "$corpus" impact "$target" --depth 2 2>&1 >/dev/null | grep '^a change' || true)
  echo "impact $target --depth 2: $(run "$bin -C $corpus impact $target --depth 2")"
  echo "  $summary"
done
for target in 'Regex::is_match' 'Regex::new'; do
  echo "callers $target: $(run "$bin -C $corpus callers $target"), $(lines "$bin" -C "$corpus" callers "$target") lines"
  if [ -n "$old" ]; then
    echo "  before grouping: $(run "$old -C $corpus-old callers $target"), $(lines "$old" -C "$corpus-old" callers "$target") lines"
  fi
done
/usr/bin/time -f "%e s, peak RSS %M KB" -o /tmp/nav-time "$bin" -C "$corpus" export >/tmp/nav-export.jsonl
echo "export: $(cat /tmp/nav-time); $(wc -l </tmp/nav-export.jsonl) lines, $(du -m /tmp/nav-export.jsonl | cut -f1) MB"
for part in --symbols --edges; do
  /usr/bin/time -f "%e s, peak RSS %M KB" -o /tmp/nav-time "$bin" -C "$corpus" export "$part" >/dev/null
  echo "export $part: $(cat /tmp/nav-time)"
done
rm -f /tmp/nav-export.jsonl /tmp/nav.json /tmp/nav-time
