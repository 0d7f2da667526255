#!/usr/bin/env python3
"""Asks jedi about the answers its own `get_references` truth does not list.

jedi's `get_references` (jedi_truth.py) does not follow every alias: after `from
.decorators import command as command` in a package's `__init__.py`, a call
`click.command(...)` is listed as a use of the alias, not of the function, although it
runs that function. For each answer compare.py scored wrong (its `--details` file), this
asks jedi's `goto` (imports followed) at every identifier on the answer's line (the
declaration's name first): the answer is **confirmed** when one of them lands on the
declaration itself, or, for a declaration that is an `@overload` stub, on the function of
that name in the same module the stub describes (mcursor answers for the stubs and the
implementation alike: PEP 484 makes them one function). Nothing else changes: an answer
jedi cannot place stays wrong.

Output: per class, the answers compare.py scored wrong, how many jedi's `goto` confirms,
and the precision as scored and with the confirmed answers counted right (needs the
matching `--json` rows of compare.py for the totals); the unconfirmed answers are written
to OUT.json for reading by hand.

Usage: jedi_adjudicate.py PROJECT_DIR DETAILS.json ROWS.json OUT.json   (needs jedi)
"""
import collections
import json
import os
import re
import sys

import jedi


def main():
    root, details_path, rows_path, out_path = (os.path.abspath(a) for a in sys.argv[1:5])
    project = jedi.Project(root, added_sys_path=[os.path.join(root, "src")])
    details = json.load(open(details_path))
    rows = {row["class"]: row for row in json.load(open(rows_path))}
    scripts = {}

    def script(rel):
        if rel not in scripts:
            path = os.path.join(root, rel)
            try:
                code = open(path, encoding="utf-8").read()
            except (OSError, UnicodeDecodeError):
                code = None
            scripts[rel] = (jedi.Script(code, path=path, project=project), code.splitlines()) if code else None
        return scripts[rel]

    def is_overload_stub(rel, line):
        """Whether the `def` at `line` is decorated `@overload` (`@t.overload`, ...)."""
        opened = script(rel)
        if opened is None:
            return False
        lines = opened[1]
        at = line - 2
        while at >= 0 and lines[at].lstrip().startswith("@"):
            if re.match(r"\s*@\s*(\w+\.)*overload\s*$", lines[at]):
                return True
            at -= 1
        return False

    def lands_on_declaration(site, name, declaration):
        rel, line = site.rsplit(":", 1)
        line = int(line)
        opened = script(rel)
        if opened is None or line > len(opened[1]):
            return False
        source, lines = opened
        decl_path, decl_line, _ = declaration.rsplit(":", 2)
        decl_line = int(decl_line)
        # `@overload` stubs and the function they describe are one function (PEP 484):
        # a use jedi places on the implementation is a use of every stub.
        stub = is_overload_stub(decl_path, decl_line)
        # The declaration's name first; then every other identifier on the line (a use
        # through an alias of another name: `from .exceptions import SSLError as
        # RequestsSSLError`).
        text = lines[line - 1]
        words = sorted(re.finditer(r"[^\W\d]\w*", text), key=lambda m: m.group() != name)
        for match in words:
            try:
                found = source.goto(line, match.start(), follow_imports=True)
            except Exception:  # jedi raises on some inference corners
                continue
            for definition in found:
                if definition.module_path is None or definition.line is None:
                    continue
                if os.path.relpath(str(definition.module_path), root) != decl_path:
                    continue
                if definition.line == decl_line or (stub and definition.name == name):
                    return True
        return False

    wrong = collections.Counter()
    confirmed = collections.Counter()
    unconfirmed = []
    for entry in details:
        for site in entry["wrong"]:
            wrong[entry["class"]] += 1
            if lands_on_declaration(site, entry["name"], entry["declaration"]):
                confirmed[entry["class"]] += 1
            else:
                unconfirmed.append({"class": entry["class"], "declaration": entry["declaration"],
                                    "name": entry["name"], "site": site})
    print(f"{'class':<14} {'answers':>8} {'wrong':>6} {'goto ok':>8} {'P scored':>9} {'P goto':>7}")
    for klass, row in rows.items():
        answers = row["mcursor_answers"]
        if not answers:
            continue
        hits = round(row["mcursor_precision"] * answers)
        print(f"{klass:<14} {answers:>8} {wrong[klass]:>6} {confirmed[klass]:>8} "
              f"{hits / answers:>9.3f} {(hits + confirmed[klass]) / answers:>7.3f}")
    with open(out_path, "w") as out:
        json.dump(unconfirmed, out, indent=1)


if __name__ == "__main__":
    main()
