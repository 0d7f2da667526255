#!/usr/bin/env python3
"""Does the index help the agent? Runs the questions of questions.json against a real
repository nobody here wrote (the `similar` crate from crates.io), in four arms:

  index         `mcursor ask` with its index tools, on a real model
  grep          `mcursor ask --no-index`: read_file, list_directory, execute_command
  oracle-index  a fixed strategy through the index tools, no model (a scripted server
                plays the calls of each question's `oracle.index`)
  oracle-grep   a fixed strategy through the shell, no model (`oracle.grep` commands)

A model arm is right when its final answer matches every `expect` pattern; an oracle arm
when the tool results it read do (the facts were delivered). Per run: tool calls, bytes
of tool results read, prompt and completion tokens (as the server reported them), wall
time. One JSON line per run goes to --out; a table per arm is printed at the end.

usage: benches/agent/run.py --mcursor BIN --scripted-server BIN [--base-url URL
       --model NAME] [--arms index,grep,oracle-index,oracle-grep] [--only q01,q02]
       [--timeout 300] [--max-steps 8] --out results.jsonl
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.request
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTEXT_WINDOW = "32768"  # the local model's; every arm sizes index answers from it


def fetch_repository(spec, cache):
    """The crate's sources from crates.io, unpacked once into `cache`."""
    name, version = spec["crate"], spec["version"]
    target = cache / f"{name}-{version}"
    if not target.is_dir():
        cache.mkdir(parents=True, exist_ok=True)
        url = f"https://static.crates.io/crates/{name}/{name}-{version}.crate"
        with urllib.request.urlopen(url, timeout=60) as response:
            data = response.read()
        with tempfile.TemporaryDirectory() as tmp:
            archive = Path(tmp) / "crate.tar.gz"
            archive.write_bytes(data)
            with tarfile.open(archive) as tar:
                tar.extractall(cache, filter="data")
    return target


def fresh_copy(source, where):
    """A copy of the repository with no index in it (each arm gets its own)."""
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(source, where, ignore=shutil.ignore_patterns(".mcursor"))
    return where


def events_of(stdout):
    events = []
    for line in stdout.splitlines():
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError:
            pass
    return events


def measure(events):
    """Tool calls, bytes of results, tokens, the answer, and the results' text."""
    results = [e for e in events if e.get("type") == "tool_finished"]
    answer = next((e for e in reversed(events) if e.get("type") == "answer"), {})
    return {
        "tool_calls": len(results),
        "tools": [e.get("name") for e in results],
        "result_bytes": sum(len(e.get("output", "").encode()) for e in results),
        "prompt_tokens": answer.get("prompt_tokens", 0),
        "completion_tokens": answer.get("completion_tokens", 0),
        "stop": answer.get("stop", "none"),
        "answer": answer.get("text", ""),
        "results_text": "\n".join(e.get("output", "") for e in results),
    }


def matches(text, expect):
    return all(re.search(p, text, re.IGNORECASE) for p in expect)


def ask(args, repo, question, extra, base_url, model):
    command = [
        args.mcursor, "ask", "--json", "-C", str(repo), "--yes",
        "--base-url", base_url, "--model", model,
        "--context-window", CONTEXT_WINDOW,
        "--max-steps", str(args.max_steps),
        *extra, question,
    ]
    env = dict(os.environ, MCURSOR_API_KEY="unused")
    started = time.monotonic()
    try:
        done = subprocess.run(command, capture_output=True, text=True, env=env,
                              timeout=args.timeout)
        stdout, timed_out = done.stdout, False
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
        timed_out = True
    wall = time.monotonic() - started
    measured = measure(events_of(stdout))
    measured["wall_s"] = round(wall, 1)
    if timed_out:
        measured["stop"] = "timeout"
    return measured


def oracle(args, repo, q, arm):
    """Plays the question's fixed strategy through the agent's own tools."""
    steps = []
    if arm == "oracle-index":
        for i, (tool, arguments) in enumerate(q["oracle"]["index"]):
            steps.append({"tool_calls": [{"id": f"c{i}", "name": tool,
                                          "arguments": json.dumps(arguments)}]})
        extra = []
    else:
        for i, command in enumerate(q["oracle"]["grep"]):
            steps.append({"tool_calls": [{"id": f"c{i}", "name": "execute_command",
                                          "arguments": json.dumps({"command": command})}]})
        extra = ["--no-index"]
    steps.append({"text": "done"})
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as script:
        json.dump(steps, script)
    server = subprocess.Popen([args.scripted_server, script.name], stdout=subprocess.PIPE,
                              text=True)
    try:
        base_url = server.stdout.readline().strip()
        measured = ask(args, repo, q["question"], extra, base_url, "scripted")
    finally:
        server.kill()
        server.wait()
        os.unlink(script.name)
    measured["correct"] = matches(measured["results_text"], q["expect"])
    return measured


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--mcursor", required=True)
    parser.add_argument("--scripted-server", required=True)
    parser.add_argument("--base-url")
    parser.add_argument("--model", default="qwen2.5-coder-1.5b-instruct")
    parser.add_argument("--arms", default="oracle-index,oracle-grep,index,grep")
    parser.add_argument("--only", default="")
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--max-steps", type=int, default=8)
    parser.add_argument("--work", default=str(Path(tempfile.gettempdir()) / "mcursor-agent-bench"))
    parser.add_argument("--out", required=True)
    args = parser.parse_args()

    spec = json.loads((HERE / "questions.json").read_text())
    questions = spec["questions"]
    if args.only:
        wanted = set(args.only.split(","))
        questions = [q for q in questions if q["id"] in wanted]
    arms = args.arms.split(",")
    if any(a in ("index", "grep") for a in arms) and not args.base_url:
        sys.exit("--base-url is needed for the model arms (index, grep)")
    work = Path(args.work)
    source = fetch_repository(spec["repository"], work / "cache")
    repos = {arm: fresh_copy(source, work / arm / source.name) for arm in arms}

    with open(args.out, "a") as out:
        for q in questions:
            for arm in arms:
                if arm.startswith("oracle-"):
                    measured = oracle(args, repos[arm], q, arm)
                else:
                    extra = [] if arm == "index" else ["--no-index"]
                    measured = ask(args, repos[arm], q["question"], extra, args.base_url,
                                   args.model)
                    measured["correct"] = matches(measured["answer"], q["expect"])
                measured.pop("results_text")
                record = {"question": q["id"], "kind": q["kind"], "arm": arm, **measured}
                out.write(json.dumps(record) + "\n")
                out.flush()
                print(f'{q["id"]} {arm:13} {"right" if measured["correct"] else "wrong":5} '
                      f'{measured["tool_calls"]} calls {measured["result_bytes"]:6} B '
                      f'{measured["wall_s"]:6.1f} s {measured["stop"]}', flush=True)
    summarize(args.out)


def summarize(path):
    runs = [json.loads(line) for line in open(path)]
    print("| arm | right | tool calls | result bytes (sum) | median bytes | prompt tokens | "
          "completion tokens | wall s (sum) |")
    print("|---|---|---|---|---|---|---|---|")
    for arm in dict.fromkeys(r["arm"] for r in runs):
        mine = [r for r in runs if r["arm"] == arm]
        print(f'| {arm} | {sum(r["correct"] for r in mine)} of {len(mine)} | '
              f'{sum(r["tool_calls"] for r in mine)} | {sum(r["result_bytes"] for r in mine):,} | '
              f'{statistics.median(r["result_bytes"] for r in mine):,.0f} | '
              f'{sum(r["prompt_tokens"] for r in mine):,} | '
              f'{sum(r["completion_tokens"] for r in mine):,} | '
              f'{sum(r["wall_s"] for r in mine):,.0f} |')


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--summarize":
        summarize(sys.argv[2])
    else:
        main()
