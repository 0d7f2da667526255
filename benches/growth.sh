#!/usr/bin/env bash
# The cold index's growth curve on synthetic trees: time, peak memory and index size.
#
#   benches/growth.sh MCURSOR MCURSOR_SYNTH [DIR] [SIZES] [LANGS]
#
# For each language (default: "rs ts") and size in files (default: "100000 300000"),
# `MCURSOR_SYNTH --seed 1` writes DIR/growth-LANG-SIZE (default DIR: /tmp/mcursor-growth;
# kept between runs, generated only when missing), then `MCURSOR index --full` runs once
# under GNU /usr/bin/time with MCURSOR_TRACE=1 (its phases in DIR/growth-LANG-SIZE.log).
# Prints one line per tree: files, source bytes, seconds, peak RSS, `.mcursor/` size.
set -euo pipefail
mcursor="$(realpath "$1")"
synth="$(realpath "$2")"
dir="${3:-${TMPDIR:-/tmp}/mcursor-growth}"
sizes="${4:-100000 300000}"
langs="${5:-rs ts}"
mkdir -p "$dir"
for lang in $langs; do
  for size in $sizes; do
    tree="$dir/growth-$lang-$size"
    if [ ! -d "$tree" ]; then
      "$synth" --lang "$lang" --files "$size" --seed 1 --out "$tree" > /dev/null
    fi
    rm -rf "$tree/.mcursor"
    source_bytes=$(du -sb --exclude=.mcursor "$tree" | cut -f1)
    MCURSOR_TRACE=1 /usr/bin/time -f "%e %M" -o "$dir/time" \
      "$mcursor" index --full "$tree" > "$dir/growth-$lang-$size.log" 2>&1
    read -r seconds kib < "$dir/time"
    index_bytes=$(du -sb "$tree/.mcursor" | cut -f1)
    echo "$lang $size files: source $((source_bytes / 1000000)) MB, index ${seconds} s," \
      "peak RSS $((kib / 1024)) MiB, .mcursor $((index_bytes / 1000000)) MB"
  done
done
