#!/usr/bin/env python3
"""Ground truth from jedi for one Python project directory: every module-level class,
function and variable ("top") and every method and class attribute ("member") of the
project's .py files (not the names imports bind), each with the lines where jedi's `get_references` finds it used
(across the project, imports included).

Output (stdout): the JSON compare.py reads, {definitions: [{path, line, column, name,
kind, refs: ["path:line", ...]}]}, 1-based lines and columns.

Usage: jedi_truth.py PROJECT_DIR [--only-top]   (needs `pip install jedi`)
"""
import json
import os
import sys

import jedi


def source_files(root):
    for directory, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "__pycache__")
        for name in sorted(files):
            if name.endswith(".py"):
                yield os.path.join(directory, name)


def main():
    root = os.path.abspath(sys.argv[1])
    only_top = "--only-top" in sys.argv
    project = jedi.Project(root, added_sys_path=[os.path.join(root, "src")])
    definitions = []
    for path in source_files(root):
        rel = os.path.relpath(path, root)
        try:
            code = open(path, encoding="utf-8").read()
        except (OSError, UnicodeDecodeError):
            continue
        script = jedi.Script(code, path=path, project=project)
        for name in script.get_names(all_scopes=True, definitions=True, references=False):
            if name.type not in ("class", "function", "statement"):
                continue
            # Names an import binds are uses of another module's definition, not
            # declarations (jedi lists `from m import f` as a definition of `f`).
            tree_name = getattr(name, "_name", None)
            tree_name = getattr(tree_name, "tree_name", None)
            definition = tree_name.get_definition() if tree_name is not None else None
            if definition is not None and definition.type in ("import_from", "import_name"):
                continue
            parent = name.parent()
            if parent.type == "module":
                kind = "top"
            elif parent.type == "class" and not only_top:
                kind = "member"
            else:
                continue
            line, column = name.line, name.column
            refs = set()
            try:
                found = script.get_references(line, column, scope="project")
            except Exception as error:  # jedi raises on some inference corners
                print(f"{rel}:{line}: {error}", file=sys.stderr)
                continue
            for ref in found:
                if ref.module_path is None or ref.line is None:
                    continue
                ref_path = os.path.relpath(str(ref.module_path), root)
                if ref_path.startswith(".."):
                    continue
                refs.add(f"{ref_path}:{ref.line}")
            definitions.append({
                "path": rel,
                "line": line,
                "column": column + 1,
                "name": name.name,
                "kind": kind,
                "refs": sorted(refs),
            })
    json.dump({"definitions": definitions}, sys.stdout)


if __name__ == "__main__":
    main()
