#!/usr/bin/env python3
"""Hostile inputs against `mcursor ask`, before and after: wall time and peak memory of
the whole process, each case run against a scripted model server.

    python3 benches/hostile.py BASELINE NEW SCRIPTED_SERVER [--runs N] [--only TEXT]

BASELINE and NEW are mcursor binaries; SCRIPTED_SERVER is
`target/release/scripted-server` (crates/testkit). Every case has a 90 s limit: a run
that reaches it is reported as "> 90 s (killed)". The medians of N runs are printed as a
Markdown table, then the command overhead of the sandbox (NEW only). `--only TEXT` runs
the cases whose title contains TEXT.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

LIMIT = 90


def start_server(server, steps, workdir):
    script = os.path.join(workdir, "script.json")
    with open(script, "w") as f:
        json.dump(steps, f)
    proc = subprocess.Popen([server, script], stdout=subprocess.PIPE, text=True)
    url = proc.stdout.readline().strip()
    return proc, url


def run_case(binary, server, repo, steps, extra=()):
    """(seconds, peak RSS in MiB, killed) of one `mcursor ask` against `steps`."""
    work = tempfile.mkdtemp(prefix="hostile-")
    proc, url = start_server(server, steps, work)
    try:
        cmd = ["/usr/bin/time", "-f", "%e %M", "-o", os.path.join(work, "time"),
               binary, "-C", repo, "ask", "--yes", "--base-url", url, "--model", "m",
               *extra, "go"]
        started = time.monotonic()
        killed = False
        try:
            subprocess.run(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=LIMIT,
                           env={**os.environ, "MCURSOR_API_KEY": "k"})
        except subprocess.TimeoutExpired:
            killed = True
            subprocess.run(["pkill", "-f", "--", f"--base-url {url}"])
        wall = time.monotonic() - started
        rss = 0.0
        try:
            with open(os.path.join(work, "time")) as f:
                fields = f.read().split()
                rss = int(fields[-1]) / 1024
        except (OSError, ValueError, IndexError):
            pass
        return wall, rss, killed
    finally:
        proc.kill()
        shutil.rmtree(work, ignore_errors=True)


def calls(*pairs):
    return {"tool_calls": [{"id": f"c{i}", "name": name, "arguments": json.dumps(args)}
                           for i, (name, args) in enumerate(pairs)]}


def main():
    args = sys.argv[1:]
    runs = 3
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i:i + 2]
    only = None
    if "--only" in args:
        i = args.index("--only")
        only = args[i + 1]
        del args[i:i + 2]
    baseline, new, server = args
    root = tempfile.mkdtemp(prefix="hostile-repos-")
    big = os.path.join(root, "big.log")
    line = b"2026-12-01 12:00:00 INFO a line of an application log\n"
    with open(big, "wb") as f:
        block = line * (1 << 14)
        while f.tell() < 1_100_000_000:
            f.write(block)
    repos = {}
    for name in ("baseline", "new"):
        repo = os.path.join(root, name)
        shutil.copytree(os.path.join(os.path.dirname(__file__), "..", "crates"), repo)
        os.link(big, os.path.join(repo, "big.log"))
        os.mkfifo(os.path.join(repo, "pipe"))
        repos[name] = repo
    done = {"text": "done"}
    cases = [
        ("three parallel read_file of a 1.1 GB log",
         [calls(*[("read_file", {"path": "big.log"})] * 3), done]),
        ("read_file of a FIFO", [calls(("read_file", {"path": "pipe"})), done]),
        ("search_code with a 100 KB query",
         [calls(("search_code", {"query": "load config " * 8534})), done]),
        ("search_code with a 12 KB query (under the argument limit)",
         [calls(("search_code", {"query": "load config " * 1000})), done]),
        ("a 20 MB SSE event without a line end", [{"endless_event": 20_000_000}] * 3),
    ]
    print("| case | baseline: wall, peak RSS | new: wall, peak RSS |")
    print("|---|---|---|")
    for title, steps in cases:
        if only and only not in title:
            continue
        cells = []
        for name, binary in (("baseline", baseline), ("new", new)):
            results = [run_case(binary, server, repos[name], steps) for _ in range(runs)]
            wall = statistics.median(r[0] for r in results)
            rss = statistics.median(r[1] for r in results)
            if any(r[2] for r in results):
                cells.append(f"> {LIMIT} s (killed)")
            else:
                cells.append(f"{wall:.2f} s, {rss:.0f} MiB")
        print(f"| {title} | {cells[0]} | {cells[1]} |", flush=True)

    # The sandbox's cost per command: the helper around `true`, against `sh -c true`.
    work = tempfile.mkdtemp(prefix="hostile-sandbox-")
    policy = json.dumps({"workspace": repos["new"], "temp_dir": work, "writable": [],
                         "read_only": [], "hidden": [], "allow_network": False})
    def median_ms(cmd, n=50):
        times = []
        for _ in range(n):
            started = time.perf_counter()
            subprocess.run(cmd, cwd=repos["new"], check=True)
            times.append((time.perf_counter() - started) * 1000)
        return statistics.median(times)
    plain = median_ms(["sh", "-c", "true"])
    confined = median_ms([new, "sandbox-exec", policy, "--", "sh", "-c", "true"])
    print(f"\nsh -c true: median {plain:.2f} ms; through `mcursor sandbox-exec`: "
          f"median {confined:.2f} ms (+{confined - plain:.2f} ms per command), 50 runs each")
    shutil.rmtree(work, ignore_errors=True)
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
