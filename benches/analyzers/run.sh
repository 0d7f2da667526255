#!/usr/bin/env bash
# Scores `mcursor refs` (and `grep -rnw` beside it) against each language's own analyzer on
# real projects from the package registries, at path:line.
#
#   benches/analyzers/run.sh [WORK_DIR] [PROJECT...]
#
# WORK_DIR (default /tmp/mcursor-analyzers) receives the downloaded projects, the
# analyzers' outputs and the per-declaration details; the tables are printed and written
# to benches/results/analyzers-<project>.{txt,json}.
#
# Projects (pinned): clap_builder 4.5.20 and toml_edit 0.22.22 (crates.io; truth from
# `rust-analyzer scip`), rxjs 7.8.1 (its TypeScript sources) and express 4.21.2 (CommonJS
# JavaScript) from npm (truth from the TypeScript language service, `findReferences`),
# requests 2.32.3 and click 8.1.7 from PyPI (sdists; truth from jedi's `get_references`,
# jedi_truth.py; the answers its truth lacks are then put to jedi's own `goto`,
# jedi_adjudicate.py).
# Needs: rust-analyzer and rust-src (`rustup component add rust-analyzer rust-src`), node
# and npm, python3 with pip (jedi is installed into WORK_DIR/pyenv), curl. The downloads happen once; later runs need no network (the
# crates' dependencies come from cargo's cache after the first run).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
repo="$(cd "$here/../.." && pwd)"
work="${1:-/tmp/mcursor-analyzers}"
shift || true
projects=("$@")
[ ${#projects[@]} -gt 0 ] || projects=(clap_builder toml_edit rxjs express requests click)
mkdir -p "$work" "$repo/benches/results"

mcursor="${MCURSOR:-}"
if [ -z "$mcursor" ]; then
  (cd "$repo" && cargo build --release -q -p mcursor)
  mcursor="$(cd "$repo" && cargo metadata --format-version 1 --no-deps | python3 -c 'import json,sys; print(json.load(sys.stdin)["target_directory"])')/release/mcursor"
fi

crate() { # name version
  local dir="$work/$1-$2"
  if [ ! -d "$dir" ]; then
    curl -sSfL "https://static.crates.io/crates/$1/$1-$2.crate" | tar xz -C "$work"
  fi
  if [ ! -f "$work/$1.truth.json" ]; then
    # All features on: code behind `#[cfg(feature = ..)]` is code mcursor indexes too.
    echo '{"cargo": {"features": "all"}}' >"$work/ra-config.json"
    (cd "$dir" && rust-analyzer scip . --config-path "$work/ra-config.json" \
      --output "$work/$1.scip" >"$work/$1.scip.log" 2>&1)
    python3 "$here/scip_truth.py" "$work/$1.scip" "$dir" >"$work/$1.truth.json"
  fi
  echo "$dir"
}

npm_package() { # name version [subdirectory to keep]
  local dir="$work/$1"
  if [ ! -d "$dir" ]; then
    mkdir -p "$dir"
    (cd "$work" && npm pack --silent "$1@$2" >/dev/null)
    tar xzf "$work/$1-$2.tgz" -C "$dir" --strip-components=1
    rm -f "$work/$1-$2.tgz"
    if [ -n "${3:-}" ]; then
      # Keep the sources only: the package's built copies would double every symbol.
      find "$dir" -mindepth 1 -maxdepth 1 ! -name "$3" ! -name package.json -exec rm -rf {} +
    fi
  fi
  if [ ! -d "$work/tools/node_modules/typescript" ]; then
    mkdir -p "$work/tools"
    (cd "$work/tools" && npm init -y >/dev/null && npm install --silent typescript@5.9.3)
  fi
  if [ ! -f "$work/$1.truth.json" ]; then
    NODE_PATH="$work/tools/node_modules" node "$here/ts_truth.js" "$dir" >"$work/$1.truth.json"
  fi
  echo "$dir"
}

pypi_sdist() { # name version
  local dir="$work/$1-$2"
  if [ ! -d "$work/pyenv" ]; then
    python3 -m venv "$work/pyenv"
    "$work/pyenv/bin/pip" install -q jedi==0.20.0
  fi
  if [ ! -d "$dir" ]; then
    (cd "$work" && "$work/pyenv/bin/pip" download -q --no-deps --no-binary :all: "$1==$2" \
      && tar xzf "$1-$2.tar.gz" && rm -f "$1-$2.tar.gz")
  fi
  if [ ! -f "$work/$1.truth.json" ]; then
    "$work/pyenv/bin/python" "$here/jedi_truth.py" "$dir" >"$work/$1.truth.json" 2>"$work/$1.jedi.log"
  fi
  echo "$dir"
}

for project in "${projects[@]}"; do
  case "$project" in
    clap_builder) dir=$(crate clap_builder 4.5.20); ext=(--ext rs) ;;
    toml_edit) dir=$(crate toml_edit 0.22.22); ext=(--ext rs) ;;
    rxjs) dir=$(npm_package rxjs 7.8.1 src); ext=(--ext ts --ext js) ;;
    express) dir=$(npm_package express 4.21.2); ext=(--ext js) ;;
    requests) dir=$(pypi_sdist requests 2.32.3); ext=(--ext py) ;;
    click) dir=$(pypi_sdist click 8.1.7); ext=(--ext py) ;;
    *) echo "unknown project $project" >&2; exit 2 ;;
  esac
  python3 "$here/compare.py" --mcursor "$mcursor" --truth "$work/$project.truth.json" \
    --project "$dir" --label "$project" "${ext[@]}" \
    --details "$work/$project.details.json" --json "$repo/benches/results/analyzers-$project.json" \
    | tee "$repo/benches/results/analyzers-$project.txt"
  case "$project" in
    requests | click)
      # jedi's truth misses uses through aliases; its own `goto` is asked about each
      # answer the truth lacks (jedi_adjudicate.py).
      echo "answers the truth lacks, asked of jedi's goto:" | tee -a "$repo/benches/results/analyzers-$project.txt"
      "$work/pyenv/bin/python" "$here/jedi_adjudicate.py" "$dir" "$work/$project.details.json" \
        "$repo/benches/results/analyzers-$project.json" "$work/$project.unconfirmed.json" \
        | tee -a "$repo/benches/results/analyzers-$project.txt"
      ;;
    *) ;;
  esac
done
