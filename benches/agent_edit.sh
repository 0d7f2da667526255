#!/usr/bin/env bash
# The agent's `edit_file` of an interface (a function added), timed by the agent itself:
#
#   benches/agent_edit.sh MCURSOR SCRIPTED_SERVER CORPUS watch|nowatch [RUN] [EDITS] [THINK_MS]
#
# SCRIPTED_SERVER is crates/testkit's `scripted-server` (`cargo build --release -p
# mcursor-testkit`); CORPUS an indexed git repository holding regex-syntax 0.8.12
# (benches/corpora.sh's rustreg). With `watch`, `MCURSOR watch` runs in CORPUS first
# (8 s after it is ready). A scripted model asks for EDITS (default 1) `edit_file`s, one
# after the other, each adding `agent_probe_RUN_K` before `is_word_byte` in
# regex-syntax's lib.rs, then a `find_symbol` of the last, each request answered
# THINK_MS (default 0) after it is made, as a model would; `MCURSOR ask --yes --json`
# runs the conversation. Prints each edit's `duration_ms` (until its result goes back to
# the model), the `find_symbol`'s (which waits for the index to hold the edits), the
# whole `ask`, how many
# updates the agent committed itself (MCURSOR_TRACE), and what `find_symbol` found. Then
# restores the file and updates the index, untimed. The agent's trace: /tmp/agent-edit.err.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
server="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
cd "$3"
mode="$4"
run="${5:-1}"
edits="${6:-1}"
think="${7:-0}"
file=$(git ls-files '*regex-syntax-0.8.12/src/lib.rs' | head -1)
work=$(mktemp -d)
cleanup() {
  cp "$work/ask.err" /tmp/agent-edit.err 2>/dev/null || true
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null || true
  [ -n "${watch_pid:-}" ] && { kill -INT "$watch_pid" 2>/dev/null; wait "$watch_pid" 2>/dev/null || true; }
  git checkout -q -- "$file"
  "$mcursor" index > /dev/null
  rm -rf "$work"
}
trap cleanup EXIT
if [ "$mode" = watch ]; then
  "$mcursor" watch > "$work/watch.log" 2>&1 &
  watch_pid=$!
  for _ in $(seq 1 600); do grep -q watching "$work/watch.log" && break; sleep 0.1; done
  sleep 8
fi
python3 - "$file" "$run" "$edits" "$think" > "$work/script.json" <<'PY'
import json, sys
path, run, edits, think = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
old = "pub fn is_word_byte(c: u8) -> bool {"
steps = []
for k in range(1, edits + 1):
    edit = {"path": path, "old_text": old,
            "new_text": f"pub fn agent_probe_{run}_{k}() {{}}\n\n{old}"}
    steps.append({"tool_calls": [{"id": f"e{k}", "name": "edit_file", "arguments": json.dumps(edit)}],
                  "think_ms": think})
steps.append({"tool_calls": [{"id": "find", "name": "find_symbol",
                              "arguments": json.dumps({"name": f"agent_probe_{run}_{edits}"})}],
              "think_ms": think})
steps.append({"text": "done"})
print(json.dumps(steps))
PY
"$server" "$work/script.json" > "$work/server.out" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do [ -s "$work/server.out" ] && break; sleep 0.05; done
url=$(head -1 "$work/server.out")
start=$(date +%s.%N)
MCURSOR_TRACE=1 "$mcursor" ask --yes --json --sandbox off --base-url "$url" --model scripted \
  "add a function" > "$work/ask.out" 2> "$work/ask.err"
end=$(date +%s.%N)
python3 - "$work/ask.out" "$work/ask.err" "$start" "$end" <<'PY'
import json, sys
events = [json.loads(l) for l in open(sys.argv[1]) if l.startswith("{")]
finished = [e for e in events if e.get("type") == "tool_finished"]
edits = [str(e["duration_ms"]) for e in finished if e["id"].startswith("e")]
find = next(e for e in finished if e["id"] == "find")
updates = sum("committed at" in l for l in open(sys.argv[2]))
print(f"edit_file {' '.join(edits)} ms; find_symbol {find['duration_ms']} ms; "
      f"ask {float(sys.argv[4]) - float(sys.argv[3]):.2f} s; "
      f"updates by the agent: {updates}; find: {find['output'].splitlines()[0] if find['output'] else '(nothing)'}")
PY
