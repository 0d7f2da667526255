#!/usr/bin/env python3
"""Compares two `mcursor export` outputs of the same tree (two builds, or before and after
a change): symbols by qualified name, edges by the positions of their two ends, so that
symbol ids and renamed qualified names do not count as differences.

    benches/export_diff.py OLD.jsonl NEW.jsonl [--names]

Prints the records only one side has (`-` old, `+` new) and a count of each. With
`--names`, edges are keyed by the qualified names of their ends instead of positions
(a renaming then shows as a difference).
"""
import json
import sys


def load(path, by_names):
    symbols, edges = {}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            record = json.loads(line)
            if record["type"] == "symbol":
                symbols[record["id"]] = record
            elif record["type"] == "edge":
                edges.append(record)

    def end(sid):
        if sid is None:
            return None
        s = symbols[sid]
        if by_names:
            return [s["qualified_name"], s["kind"]]
        return [s["path"], s["line"], s["column"], s["kind"]]

    symbol_keys = {
        json.dumps([s["qualified_name"], s["kind"], s["path"], s["line"]])
        for s in symbols.values()
    }
    edge_keys = {
        json.dumps(
            [e["kind"], end(e["from"]), end(e["to"]), e["name"], e["path"],
             e["line"], e["column"], e["confidence"]]
        )
        for e in edges
    }
    return symbol_keys, edge_keys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if len(args) != 2:
        sys.exit(__doc__)
    by_names = "--names" in sys.argv
    old_symbols, old_edges = load(args[0], by_names)
    new_symbols, new_edges = load(args[1], by_names)
    for label, old, new in (("symbols", old_symbols, new_symbols), ("edges", old_edges, new_edges)):
        gone, came = sorted(old - new), sorted(new - old)
        for key in gone:
            print("-", label[:-1], key)
        for key in came:
            print("+", label[:-1], key)
        print(f"{label}: {len(old)} old, {len(new)} new; {len(gone)} only old, {len(came)} only new")


if __name__ == "__main__":
    main()
