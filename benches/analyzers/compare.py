#!/usr/bin/env python3
"""Scores `mcursor refs` and `grep -rnw` against a language analyzer's ground truth.

The truth is what scip_truth.py (rust-analyzer) or ts_truth.js (the TypeScript language
service) wrote: every declaration of a project with the lines that use it. For each
declaration, mcursor is asked `mcursor refs PATH:LINE:COLUMN --json` (the declaration by
its position, so same-named symbols are never confused; `--direct`: calls through a trait
method an impl method implements are the trait method's, as rust-analyzer and the
TypeScript language service count them) and grep is asked
`grep -rnwF NAME` over the project's source files; both are scored at path:line against
the truth. The declaration's own line is left out of every answer and of the truth. Rust file modules
(rust-analyzer's declarations at 1:1 of each file) are left out: their `mod` items count.

Declarations fall into classes:
  member-shared  methods, fields, properties whose name another declaration shares
                 (in the project, or an outside one the project uses: `len`, `next`)
  member-unique  the other members
  top-level      functions, types, constants, variables, modules, macros
  variant        enum variants / members
  associated     associated types of traits and impls (Rust)
Precision and recall are pooled per class (sum of hits over sum of answers / of truth),
over every answer and, beside it, over the `resolved` answers alone (`res P`, `res R`).

Usage: compare.py --mcursor BIN --truth TRUTH.json --project DIR --label NAME
                  [--ext rs] [--details FILE] [--json FILE]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

CLASSES = ["member-shared", "member-unique", "top-level", "variant", "associated"]
KIND_CLASS = {
    # scip_truth.py kinds
    "method": "member",
    "field": "member",
    "variant": "variant",
    "associated": "associated",
    "function": "top-level",
    "type": "top-level",
    "term": "top-level",
    "module": "top-level",
    "macro": "top-level",
    # ts_truth.js kinds
    "member": "member",
    "top": "top-level",
}


def supports_direct(binary):
    """Whether this mcursor has `refs --direct` (builds before it answer only directly)."""
    help_text = subprocess.run([binary, "refs", "--help"], capture_output=True, text=True)
    return "--direct" in help_text.stdout


def mcursor_answers(binary, project, d, direct):
    target = f"{d['path']}:{d['line']}:{d['column']}"
    flags = ["--direct"] if direct else []
    proc = subprocess.run(
        [binary, "-C", project, "refs", target, "--json", *flags, "--limit", "1000000"],
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 1):
        return None, proc.stderr.strip()
    try:
        hits = json.loads(proc.stdout or "[]")
    except json.JSONDecodeError:
        return None, "unreadable JSON"
    return hits, None


def grep_answers(project, name, exts):
    includes = [f"--include=*.{e}" for e in exts]
    proc = subprocess.run(
        ["grep", "-rnwIF", *includes, "--exclude-dir=.mcursor", "--", name, "."],
        cwd=project,
        capture_output=True,
        text=True,
        errors="replace",
    )
    out = set()
    for line in proc.stdout.splitlines():
        parts = line.split(":", 2)
        if len(parts) >= 2 and parts[1].isdigit():
            out.add(f"{parts[0].removeprefix('./')}:{parts[1]}")
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--mcursor", required=True)
    ap.add_argument("--truth", required=True)
    ap.add_argument("--project", required=True)
    ap.add_argument("--label", required=True)
    ap.add_argument("--ext", action="append", default=[])
    ap.add_argument("--details")
    ap.add_argument("--json")
    ap.add_argument("--jobs", type=int, default=4)
    args = ap.parse_args()

    truth = json.load(open(args.truth))
    definitions = truth["definitions"] if isinstance(truth, dict) else truth
    # A Rust file's own module is declared by its `mod` item in the parent, which mcursor
    # indexes; rust-analyzer also names the file itself (at 1:1, `crate` for the root).
    # Those have no position mcursor could be asked about, so they are left out.
    definitions = [
        d for d in definitions
        if not (d["kind"] == "module" and d["line"] == 1 and d["column"] == 1)
    ]
    outside = set(truth.get("outside_names", [])) if isinstance(truth, dict) else set()
    exts = args.ext or ["rs", "ts", "tsx", "js", "jsx", "mjs", "cjs", "mts", "cts"]

    index = subprocess.run(
        [args.mcursor, "-C", args.project, "index", "--full", "--json"],
        capture_output=True,
        text=True,
    )
    if index.returncode != 0:
        sys.exit(f"mcursor index failed: {index.stderr}")
    summary = json.loads(index.stdout)

    name_count = collections.Counter(d["name"] for d in definitions)
    direct = supports_direct(args.mcursor)

    def klass(d):
        base = KIND_CLASS.get(d["kind"], "top-level")
        if base != "member":
            return base
        shared = name_count[d["name"]] > 1 or d["name"] in outside
        return "member-shared" if shared else "member-unique"

    def score(d):
        own = f"{d['path']}:{d['line']}"
        want = set(d["refs"]) - {own}
        hits, error = mcursor_answers(args.mcursor, args.project, d, direct)
        if hits is None:
            got, labels, err = set(), {}, error
        else:
            got = {f"{h['path']}:{h['line']}" for h in hits} - {own}
            labels = {f"{h['path']}:{h['line']}": h.get("confidence", "") for h in hits}
            err = None
        grep = grep_answers(args.project, d["name"], exts) - {own}
        return d, want, got, labels, grep, err

    with ThreadPoolExecutor(args.jobs) as pool:
        results = list(pool.map(score, definitions))

    tally = {c: collections.Counter() for c in CLASSES}
    details = []
    errors = collections.Counter()
    for d, want, got, labels, grep, err in results:
        c = klass(d)
        t = tally[c]
        t["declarations"] += 1
        t["truth"] += len(want)
        t["mcursor_answers"] += len(got)
        t["mcursor_hits"] += len(got & want)
        t["grep_answers"] += len(grep)
        t["grep_hits"] += len(grep & want)
        heuristic = {k for k, v in labels.items() if v == "heuristic"} & got
        t["mcursor_heuristic"] += len(heuristic)
        t["mcursor_heuristic_hits"] += len(heuristic & want)
        resolved = got - heuristic
        t["mcursor_resolved"] += len(resolved)
        t["mcursor_resolved_hits"] += len(resolved & want)
        if err:
            errors[err.splitlines()[0][:80] if err else ""] += 1
        details.append(
            {
                "class": c,
                "declaration": f"{d['path']}:{d['line']}:{d['column']}",
                "name": d["name"],
                "wrong": sorted(got - want),
                "wrong_labels": [labels.get(k, "") for k in sorted(got - want)],
                "missed": sorted(want - got),
                "error": err,
            }
        )

    def ratio(a, b):
        return a / b if b else float("nan")

    rows = []
    for c in CLASSES:
        t = tally[c]
        rows.append(
            {
                "project": args.label,
                "class": c,
                "declarations": t["declarations"],
                "truth_refs": t["truth"],
                "mcursor_precision": ratio(t["mcursor_hits"], t["mcursor_answers"]),
                "mcursor_recall": ratio(t["mcursor_hits"], t["truth"]),
                "mcursor_answers": t["mcursor_answers"],
                "heuristic_share": ratio(t["mcursor_heuristic"], t["mcursor_answers"]),
                "resolved_precision": ratio(t["mcursor_resolved_hits"], t["mcursor_resolved"]),
                "resolved_recall": ratio(t["mcursor_resolved_hits"], t["truth"]),
                "grep_precision": ratio(t["grep_hits"], t["grep_answers"]),
                "grep_recall": ratio(t["grep_hits"], t["truth"]),
            }
        )
    print(
        f"{args.label}: {summary.get('files')} files, {summary.get('symbols')} symbols indexed; "
        f"{len(definitions)} declarations in the truth"
    )
    print(
        f"{'class':<14} {'decls':>6} {'truth':>6} {'mc P':>6} {'mc R':>6} {'answers':>8} "
        f"{'heur%':>6} {'res P':>6} {'res R':>6} {'grep P':>7} {'grep R':>7}"
    )
    for r in rows:
        print(
            f"{r['class']:<14} {r['declarations']:>6} {r['truth_refs']:>6} "
            f"{r['mcursor_precision']:>6.3f} {r['mcursor_recall']:>6.3f} {r['mcursor_answers']:>8} "
            f"{r['heuristic_share']:>6.2f} {r['resolved_precision']:>6.3f} {r['resolved_recall']:>6.3f} "
            f"{r['grep_precision']:>7.3f} {r['grep_recall']:>7.3f}"
        )
    if errors:
        print("mcursor errors:", dict(errors.most_common(5)))
    if args.details:
        with open(args.details, "w") as f:
            json.dump(details, f, indent=1)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
