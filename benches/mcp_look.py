#!/usr/bin/env python3
"""Index tool calls through `mcursor mcp`, spaced past the live index's look interval.

    python3 benches/mcp_look.py MCURSOR ROOT [CALLS] [NAME] [--watch]

Starts `MCURSOR mcp` in ROOT (an indexed repository; arguments starting with `--` are
passed to it, as `--watch`), then calls `find_symbol NAME`
(default `is_word_byte`) CALLS times (default 6), 1.2 s apart, so that every call after
the first is due to look at the tree again (`LiveIndex::get`, `LOOK_EVERY` = 1 s). Prints
each call's round trip in ms and the server's resident memory at the end. Run it with
and without a `mcursor watch` in ROOT, or with `--watch`.
"""
import json
import subprocess
import sys
import time

flags = [a for a in sys.argv[3:] if a.startswith("--")]
args = [a for a in sys.argv if not a.startswith("--")]
binary, root = args[1], args[2]
calls = int(args[3]) if len(args) > 3 else 6
name = args[4] if len(args) > 4 else "is_word_byte"
server = subprocess.Popen([binary, "mcp", *flags], cwd=root, stdin=subprocess.PIPE,
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
rss = next((line.split()[1] for line in open(f"/proc/{server.pid}/status")
            if line.startswith("VmRSS:")), "0")
server.stdin.close()
server.wait()
print("first %.0f ms; later calls: %s ms; server RSS %d MiB"
      % (times[0], " ".join("%.0f" % t for t in times[1:]), int(rss) // 1024))
