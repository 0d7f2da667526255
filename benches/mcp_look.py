#!/usr/bin/env python3
"""Index tool calls through `mcursor mcp`, spaced past the live index's look interval.

    python3 benches/mcp_look.py MCURSOR ROOT [CALLS] [NAME]

Starts `MCURSOR mcp` in ROOT (an indexed repository), then calls `find_symbol NAME`
(default `is_word_byte`) CALLS times (default 6), 1.2 s apart, so that every call after
the first is due to look at the tree again (`LiveIndex::get`, `LOOK_EVERY` = 1 s). Prints
each call's round trip in ms. Run it with and without a `mcursor watch` in ROOT.
"""
import json
import subprocess
import sys
import time

binary, root = sys.argv[1], sys.argv[2]
calls = int(sys.argv[3]) if len(sys.argv) > 3 else 6
name = sys.argv[4] if len(sys.argv) > 4 else "is_word_byte"
server = subprocess.Popen([binary, "mcp"], cwd=root, stdin=subprocess.PIPE,
                          stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
next_id = 0


def request(method, params, notify=False):
    global next_id
    message = {"jsonrpc": "2.0", "method": method, "params": params}
    if not notify:
        next_id += 1
        message["id"] = next_id
    server.stdin.write(json.dumps(message) + "\n")
    server.stdin.flush()
    if notify:
        return None
    while True:
        line = server.stdout.readline()
        if not line:
            sys.exit("the server closed its output")
        reply = json.loads(line)
        if reply.get("id") == next_id:
            return reply


request("initialize", {"protocolVersion": "2024-11-05", "capabilities": {},
                       "clientInfo": {"name": "mcp_look", "version": "0"}})
request("notifications/initialized", {}, notify=True)
times = []
for _ in range(calls):
    started = time.time()
    reply = request("tools/call", {"name": "find_symbol", "arguments": {"name": name}})
    times.append((time.time() - started) * 1000)
    if "error" in reply:
        sys.exit(f"find_symbol failed: {reply['error']}")
    time.sleep(1.2)
server.stdin.close()
server.wait()
print("first %.0f ms; later calls: %s ms" % (times[0], " ".join("%.0f" % t for t in times[1:])))
