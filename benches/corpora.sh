#!/usr/bin/env bash
# Prepares the standard benchmark corpora, reproducibly and with no network beyond the
# package registries:
#
#   benches/corpora.sh [DIR] [WHICH...]     WHICH: rustreg tsnpm synth (default: all)
#
#   DIR/rustreg/   `cargo vendor --locked --versioned-dirs` of mcursor's dependency tree
#                  as pinned by the Cargo.lock of commit 782f31d (186 crates, 349 MB)
#   DIR/tsnpm/     `npm pack typescript@5.9.3 @types/node@22.20.7 rxjs@7.8.1`, unpacked
#                  (the compiler's .js/.d.ts, Node's declarations, rxjs's .ts sources)
#   DIR/synth-{rs,ts}-{1k,10k,100k}/ and DIR/synth-*.truth.json
#                  mcursor-synth, seed 1: planted ground truth for precision and recall
#
# Every corpus is made a git repository (one commit; `.mcursor/` excluded), so that
# `git grep` takes part in `mcursor bench`. Existing corpora are left as they are
# (delete one to rebuild it).
set -euo pipefail
cd "$(dirname "$0")/.."
dir="${1:-${TMPDIR:-/tmp}/mcursor-corpus}"
shift || true
which="${*:-rustreg tsnpm synth}"
mkdir -p "$dir"
dir="$(cd "$dir" && pwd)"

# Makes $1 a one-commit git repository unless it is one.
commit_tree() {
  [ -d "$1/.git" ] && return 0
  git -C "$1" init -q
  echo ".mcursor/" >> "$1/.git/info/exclude"
  git -C "$1" add -A
  git -C "$1" -c user.name=corpus -c user.email=corpus@localhost commit -q -m corpus
}

for corpus in $which; do
  case "$corpus" in
    rustreg)
      if [ ! -d "$dir/rustreg" ]; then
        pin="$(mktemp -d)"
        git archive 782f31d | tar -x -C "$pin"
        (cd "$pin" && cargo vendor --locked --versioned-dirs --quiet "$dir/rustreg" >/dev/null)
        rm -rf "$pin"
      fi
      commit_tree "$dir/rustreg"
      echo "rustreg: $(find "$dir/rustreg/" -name '*.rs' | wc -l) .rs files, $(du -sh --exclude=.mcursor --exclude=.git "$dir/rustreg/" | cut -f1)"
      ;;
    tsnpm)
      if [ ! -d "$dir/tsnpm" ]; then
        tmp="$(mktemp -d)"
        (cd "$tmp" && npm pack --silent typescript@5.9.3 @types/node@22.20.7 rxjs@7.8.1 >/dev/null)
        for package in typescript-5.9.3 types-node-22.20.7 rxjs-7.8.1; do
          mkdir -p "$dir/tsnpm/$package"
          tar -xzf "$tmp/$package.tgz" -C "$dir/tsnpm/$package"
        done
        rm -rf "$tmp"
      fi
      commit_tree "$dir/tsnpm"
      echo "tsnpm: $(find "$dir/tsnpm/" -name '*.ts' | wc -l) .ts files, $(du -sh --exclude=.mcursor --exclude=.git "$dir/tsnpm/" | cut -f1)"
      ;;
    synth)
      cargo build --release --quiet -p mcursor-synth
      for lang in rs ts; do
        for size in 1k 10k 100k; do
          out="$dir/synth-$lang-$size"
          if [ ! -d "$out" ]; then
            ./target/release/mcursor-synth --lang "$lang" --files "${size%k}000" --seed 1 --out "$out"
          fi
          commit_tree "$out"
        done
      done
      ;;
    *)
      echo "unknown corpus: $corpus (one of: rustreg tsnpm synth)" >&2
      exit 2
      ;;
  esac
done
