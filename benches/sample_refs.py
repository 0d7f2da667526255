#!/usr/bin/env python3
"""A random sample of resolved references to check by hand, where no analyzer runs.

    benches/sample_refs.py MCURSOR DIR EXTENSION [--count 50] [--seed 7]

Exports DIR's index (`MCURSOR export --edges` and `--symbols`; index DIR first), keeps
the reference edges from files ending in EXTENSION that name a target (calls, types,
fields, identifiers, imports: not `implements`/`overrides`), prints how many of all
such references are `heuristic` name matches, then draws COUNT of the resolved ones
(`random.seed(SEED)`) and prints each with its source line and its target's qualified
name and place, to read side by side.
"""

import argparse
import collections
import json
import random
import subprocess
import sys


def export(mcursor, root, what):
    out = subprocess.run([mcursor, "export", what], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    return [json.loads(line) for line in out.splitlines()]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mcursor")
    parser.add_argument("root")
    parser.add_argument("extension")
    parser.add_argument("--count", type=int, default=50)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()
    symbols = {r["id"]: r for r in export(args.mcursor, args.root, "--symbols")
               if r.get("type") == "symbol"}
    edges = [e for e in export(args.mcursor, args.root, "--edges")
             if e.get("type") == "edge" and e["path"].endswith(args.extension)
             and e["kind"] not in ("implements", "overrides")]
    confidence = collections.Counter(e["confidence"] for e in edges)
    total = sum(confidence.values())
    print(f"# {total} references from *{args.extension} files: "
          f"{confidence['resolved']} resolved, {confidence['heuristic']} heuristic "
          f"({confidence['heuristic'] / max(1, total):.1%})")
    resolved = [e for e in edges if e["confidence"] == "resolved" and e["to"] is not None]
    random.seed(args.seed)
    lines = {}
    for e in random.sample(resolved, min(args.count, len(resolved))):
        target = symbols[e["to"]]
        if e["path"] not in lines:
            with open(f"{args.root}/{e['path']}", encoding="utf-8", errors="replace") as f:
                lines[e["path"]] = f.read().split("\n")
        source = lines[e["path"]][e["line"] - 1].strip()[:140]
        print(f"{e['kind']:10} {e['name']:24} {e['path']}:{e['line']}:{e['column']}\n"
              f"    | {source}\n"
              f"    -> {target['qualified_name']} ({target['kind']}) "
              f"{target['path']}:{target['line']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
