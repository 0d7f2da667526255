#!/usr/bin/env bash
# The agent's `edit_file` of an interface (a function added), timed by the agent itself:
#
#   benches/agent_edit.sh MCURSOR SCRIPTED_SERVER CORPUS watch|nowatch [RUN]
#
# SCRIPTED_SERVER is crates/testkit's `scripted-server` (`cargo build --release -p
# mcursor-testkit`); CORPUS an indexed git repository holding regex-syntax 0.8.12
# (benches/corpora.sh's rustreg). With `watch`, `MCURSOR watch` runs in CORPUS first
# (8 s after it is ready). A scripted model asks for one `edit_file` that adds
# `agent_probe_RUN` before `is_word_byte` in regex-syntax's lib.rs, then a `find_symbol` of it;
# `MCURSOR ask --yes --json` runs the conversation. Prints the edit's `duration_ms` (the
# edit and the index update before the result goes back), the whole `ask`, how many
# updates the agent committed itself (MCURSOR_TRACE), and what `find_symbol` found. Then
# restores the file and updates the index, untimed.
set -euo pipefail
mcursor="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
server="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"
cd "$3"
mode="$4"
run="${5:-1}"
file=$(git ls-files '*regex-syntax-0.8.12/src/lib.rs' | head -1)
work=$(mktemp -d)
cleanup() {
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
python3 - "$file" "$run" > "$work/script.json" <<'PY'
import json, sys
path, run = sys.argv[1], sys.argv[2]
old = "pub fn is_word_byte(c: u8) -> bool {"
edit = {"path": path, "old_text": old, "new_text": f"pub fn agent_probe_{run}() {{}}\n\n{old}"}
print(json.dumps([
    {"tool_calls": [{"id": "c1", "name": "edit_file", "arguments": json.dumps(edit)}]},
    {"tool_calls": [{"id": "c2", "name": "find_symbol", "arguments": json.dumps({"name": f"agent_probe_{run}"})}]},
    {"text": "done"},
]))
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
edit = next(e for e in events if e.get("type") == "tool_finished" and e.get("id") == "c1")
find = next(e for e in events if e.get("type") == "tool_finished" and e.get("id") == "c2")
updates = sum("committed at" in l for l in open(sys.argv[2]))
print(f"edit_file {edit['duration_ms']} ms; ask {float(sys.argv[4]) - float(sys.argv[3]):.2f} s; "
      f"updates by the agent: {updates}; find: {find['output'].splitlines()[0] if find['output'] else '(nothing)'}")
PY
