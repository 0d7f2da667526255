#!/usr/bin/env python3
"""How soon a query sees a change: `mcursor index` reruns, `mcursor watch`, branch
switches, and how the rerun grows with the number of changed files.

    benches/freshness.py [CORPUS] [ROUNDS] [SECTION...]

SECTION: rerun, growth, watch, switch (default: all). Sections not run keep their
previous results in benches/results/freshness.json.

CORPUS defaults to the `rustreg` corpus of benches/corpora.sh (a one-commit git repo);
the script edits its files and restores them (git) at the end. Build first:
`cargo build --release -p mcursor -p mcursor-benches`. Writes
benches/results/freshness.{txt,json}.

Two kinds of edit, because mcursor updates them differently:
- a body edit (a comment line inserted at the top of a file: every definition below moves
  down a line, no definition is added or removed) is written as a patch over the
  previous store: no name resolution across files;
- an interface edit (a new function appended) changes what the file declares, so names
  are resolved across the whole tree again.
"To a query seeing it" means: until `mcursor find NAME --json` (a separate process)
reports the definition at its new line, checked, not assumed.
"""

import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
BIN = REPO / "target" / "release" / "mcursor"
CORPUS = Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/mcursor-corpus/rustreg").resolve()
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 20
SECTIONS = sys.argv[3:] or ["rerun", "growth", "watch", "switch"]
rng = random.Random(7)
RESULTS = Path(__file__).resolve().parent / "results" / "freshness.json"
results = json.loads(RESULTS.read_text()) if RESULTS.exists() else {}
report = {}
lines_out = []


def say(text):
    print(text, flush=True)
    lines_out.append(text)


GIT_ENV = {**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "bench@localhost",
           "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "bench@localhost"}


def run(*args, check=True):
    result = subprocess.run(args, cwd=CORPUS, capture_output=True, text=True, env=GIT_ENV)
    if check and result.returncode != 0:
        raise SystemExit(f"{' '.join(map(str, args))} failed: {result.stderr}")
    return result


def timed(*args):
    started = time.perf_counter()
    result = run(*args)
    return (time.perf_counter() - started) * 1000, result


def git(*args):
    return run("git", *args)


def ms(values):
    values = sorted(values)
    p = lambda q: values[min(len(values) - 1, round((len(values) - 1) * q))]
    return {"p50": round(statistics.median(values), 1), "p99": round(p(0.99), 1),
            "min": round(values[0], 1), "max": round(values[-1], 1), "n": len(values)}


DEF = re.compile(r"^\s*pub fn ([a-z_][a-z0-9_]*)\b")


def candidates():
    """Rust files with a `pub fn` whose name is defined nowhere else (one clear answer)."""
    files = [f for f in git("ls-files", "*.rs").stdout.split() if "/tests/" not in f]
    rng.shuffle(files)
    found = []
    for path in files:
        try:
            text = (CORPUS / path).read_text()
        except (UnicodeDecodeError, OSError):
            continue
        for number, line in enumerate(text.splitlines(), 1):
            m = DEF.match(line)
            if not m:
                continue
            hits = json.loads(run(BIN, "find", m.group(1), "--json", check=False).stdout or "[]")
            if len(hits) == 1 and hits[0]["path"] == path and hits[0]["line"] == number:
                found.append((path, m.group(1)))
            break
        if len(found) >= 40:
            break
    return found


def line_of(name, path):
    hits = json.loads(run(BIN, "find", name, "--json", check=False).stdout or "[]")
    return next((h["line"] for h in hits if h["path"] == path), None)


def body_edit(path, tag):
    file = CORPUS / path
    file.write_text(f"// {tag}\n" + file.read_text())


def interface_edit(path, name):
    file = CORPUS / path
    file.write_text(file.read_text() + f"\npub fn {name}() {{}}\n")


def all_rust_files():
    return [f for f in git("ls-files", "*.rs").stdout.split()]


def start_watch():
    """`mcursor watch` with its events going to a file (a pipe nobody drains would fill up
    and stall it), once it reports ready."""
    events = open("/tmp/mcursor-freshness-watch.jsonl", "w+")
    watcher = subprocess.Popen([BIN, "--json", "watch"], cwd=CORPUS, stdout=events,
                               stderr=subprocess.DEVNULL, text=True)
    deadline = time.time() + 120
    while '"ready"' not in open(events.name).read():
        if time.time() > deadline or watcher.poll() is not None:
            raise SystemExit("mcursor watch did not start")
        time.sleep(0.05)
    return watcher


def restore():
    git("checkout", "-q", "-f", "master")
    git("checkout", "-q", "--", ".")
    for branch in ("bench-body", "bench-interface"):
        run("git", "branch", "-q", "-D", branch, check=False)


def main():
    restore()
    run(BIN, "index")
    print(f"corpus {CORPUS}, {os.cpu_count()} cpus, rounds {ROUNDS}")
    targets = candidates()
    print(f"{len(targets)} probe definitions")

    if "rerun" in SECTIONS:
        section_rerun(targets)
    if "growth" in SECTIONS:
        section_growth()
    if "watch" in SECTIONS:
        section_watch(targets)
    if "switch" in SECTIONS:
        section_switch(targets)


def section_rerun(targets):
    """Rerun after a body edit, alternated with a rerun that finds nothing changed."""
    noop, body, body_index, hinted = [], [], [], []
    for i in range(ROUNDS):
        path, name = targets[i % len(targets)]
        noop.append(timed(BIN, "index")[0])
        before = line_of(name, path)
        started = time.perf_counter()
        body_edit(path, f"rerun {i}")
        index_ms, _ = timed(BIN, "index")
        seen = line_of(name, path)
        body.append((time.perf_counter() - started) * 1000)
        body_index.append(index_ms)
        assert seen == before + 1, (path, name, before, seen)
        # The same with the changed file named (an editor hook: no walk).
        path, name = targets[(i + 1) % len(targets)]
        before = line_of(name, path)
        started = time.perf_counter()
        body_edit(path, f"hinted {i}")
        timed(BIN, "index", "--changed", path)
        seen = line_of(name, path)
        hinted.append((time.perf_counter() - started) * 1000)
        assert seen == before + 1, (path, name, before, seen)
    report["rerun_noop_ms"] = ms(noop)
    report["rerun_body_edit_to_query_ms"] = ms(body)
    report["rerun_body_edit_index_ms"] = ms(body_index)
    report["rerun_changed_hint_to_query_ms"] = ms(hinted)
    say(f"rerun, nothing changed: {ms(noop)}")
    say(f"rerun after a body edit, edit -> query sees it: {ms(body)} (index alone {ms(body_index)})")
    say(f"`index --changed FILE` after a body edit, edit -> query sees it: {ms(hinted)}")

    # 2. Rerun after an interface edit (a full resolution).
    interface = []
    for i in range(3):
        path, _ = targets[i]
        name = f"fresh_bench_{i}"
        started = time.perf_counter()
        interface_edit(path, name)
        run(BIN, "index")
        seen = line_of(name, path)
        interface.append((time.perf_counter() - started) * 1000)
        assert seen is not None
    report["rerun_interface_edit_to_query_ms"] = ms(interface)
    say(f"rerun after an interface edit, edit -> query sees it: {ms(interface)}")
    restore()
    run(BIN, "index")
    finish("rerun")


def section_growth():
    """Growth with the number of changed files."""
    files = all_rust_files()
    growth = {}
    for kind in ("body", "interface"):
        for count in ((1, 10, 100, 1000) if kind == "body" else (1, 10, 1000)):
            times = []
            for r in range(3 if kind == "body" else 1):
                for j, path in enumerate(rng.sample(files, count)):
                    if kind == "body":
                        body_edit(path, f"growth {count} {r}")
                    else:
                        interface_edit(path, f"grown_{count}_{r}_{j}")
                index_ms, result = timed(BIN, "index", "--json")
                summary = json.loads(result.stdout)
                times.append(index_ms)
                restore()
                run(BIN, "index")
            growth[f"{kind}_{count}"] = {**ms(times), "patched": summary["patched"]}
            say(f"rerun after {kind} edits of {count} files: {ms(times)} patched={summary['patched']}")
    report["growth_ms"] = growth
    finish("growth")


ABSENT = "absent"


def seen_after(change, probes, limit=90.0):
    """Applies `change`, then polls until every (name, path, line) probe holds: the
    definition at that line, anywhere in the file (None), or gone (ABSENT)."""
    started = time.perf_counter()
    change()
    pending = list(probes)
    while pending:
        name, path, line = pending[0]
        found = line_of(name, path)
        elapsed = time.perf_counter() - started
        if (line == ABSENT and found is None) or (found is not None and line in (None, found)):
            pending.pop(0)
        elif elapsed > limit:
            raise SystemExit(f"watch never showed {name} at {path}:{line}")
        else:
            # Polling without a pause would take a core from the update it waits for;
            # pause a twentieth of the time waited so far (at most 50 ms).
            time.sleep(min(0.05, elapsed / 20))
    return (time.perf_counter() - started) * 1000


def section_watch(targets):
    """Watch: edit -> query sees it, one edit at a time."""
    watcher = start_watch()
    watch = []
    for i in range(ROUNDS * 2):
        path, name = targets[i % len(targets)]
        before = line_of(name, path)
        watch.append(seen_after(lambda: body_edit(path, f"watch {i}"), [(name, path, before + 1)]))
        time.sleep(0.2)
    report["watch_body_edit_to_query_ms"] = ms(watch)
    say(f"watch, body edit -> query sees it: {ms(watch)}")
    watch_interface = []
    for i in range(3):
        path, _ = targets[i]
        name = f"watched_{i}"
        watch_interface.append(seen_after(lambda: interface_edit(path, name), [(name, path, None)]))
    report["watch_interface_edit_to_query_ms"] = ms(watch_interface)
    say(f"watch, interface edit -> query sees it: {ms(watch_interface)}")
    watcher.terminate()
    watcher.wait()
    restore()
    run(BIN, "index")
    finish("watch")


def section_switch(targets):
    """Branch switches touching 1,000 files (body edits, then interface edits)."""
    files = all_rust_files()
    storm = rng.sample([t for t in files if t not in {p for p, _ in targets}], 1000)
    probes = targets[:5]
    for kind in ("body", "interface"):
        git("checkout", "-q", "-b", f"bench-{kind}")
        for j, path in enumerate(storm + [p for p, _ in probes]):
            if kind == "body":
                body_edit(path, "storm")
            else:
                interface_edit(path, f"storm_{j}")
        git("commit", "-qam", f"{kind} storm")
        git("checkout", "-q", "master")
        run(BIN, "index")
    expected = {(path, name): line_of(name, path) for path, name in probes}
    # What each branch must show: moved definitions, or the functions it added.
    after = {
        "body": [(n, p, expected[(p, n)] + 1) for p, n in probes],
        "interface": [(f"storm_{len(storm) + k}", p, None) for k, (p, _) in enumerate(probes)],
    }
    back = {
        "body": [(n, p, expected[(p, n)]) for p, n in probes],
        "interface": [(f"storm_{len(storm) + k}", p, ABSENT) for k, (p, _) in enumerate(probes)],
    }
    switch = {}
    for kind in ("body", "interface"):
        rerun = []
        for _ in range(3):
            started = time.perf_counter()
            git("checkout", "-q", f"bench-{kind}")
            run(BIN, "index")
            name, path, line = after[kind][0]
            found = line_of(name, path)
            assert found is not None and line in (None, found), (kind, name, found)
            rerun.append((time.perf_counter() - started) * 1000)
            git("checkout", "-q", "master")
            run(BIN, "index")
        watcher = start_watch()
        watched = []
        for _ in range(3):
            watched.append(seen_after(lambda: git("checkout", "-q", f"bench-{kind}"), after[kind]))
            seen_after(lambda: git("checkout", "-q", "master"), back[kind])
        watcher.terminate()
        watcher.wait()
        switch[kind] = {"rerun_ms": ms(rerun), "watch_ms": ms(watched)}
        say(f"branch switch, 1,000 files, {kind} edits: checkout + index + query {ms(rerun)}; "
            f"with watch running, checkout -> query sees all probes {ms(watched)}")
    report["branch_switch_1000_files"] = switch
    restore()
    run(BIN, "index")
    finish("switch")


def finish(section):
    """Records one section's figures and lines, and rewrites the result files."""
    global report, lines_out
    results[section] = {"figures": report, "lines": lines_out}
    results["corpus"], results["cpus"], results["rounds"] = str(CORPUS), os.cpu_count(), ROUNDS
    RESULTS.write_text(json.dumps(results, indent=2) + "\n")
    text = [f"corpus {CORPUS}, {os.cpu_count()} cpus, rounds {ROUNDS}"]
    for name in ("rerun", "growth", "watch", "switch"):
        text += results.get(name, {}).get("lines", [])
    RESULTS.with_suffix(".txt").write_text("\n".join(text) + "\n")
    report, lines_out = {}, []


try:
    main()
finally:
    restore()
