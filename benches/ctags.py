#!/usr/bin/env python3
"""Definitions recall of mcursor against universal-ctags on a real project.

    benches/ctags.py MCURSOR DIR LANGUAGE [--kinds KINDS] [--misses N] [--json OUT]

Indexes DIR with `MCURSOR index --full`, reads every symbol with `MCURSOR export
--symbols`, runs `ctags --output-format=json --fields=+nKZ -R` on the same tree for
LANGUAGE (a ctags language name: Python, Go, Java...), and counts a ctags tag of one of
KINDS (ctags kind names, comma-separated; default: the definition kinds of the language
below) as found when mcursor has a symbol with the same name defined on the same line of
the same file. Prints recall overall and per kind, and the first N misses of each kind
(to read why); mcursor's symbols that ctags lacks are counted too (ctags is not complete
either: read them as a hint, not as errors).
"""

import argparse
import collections
import json
import os
import re
import subprocess
import sys

# ctags kinds that are definitions, per language (imports, locals and parameters are
# not: ctags lists `import x` as kind `namespace`/`unknown`, off by default or not
# definitions).
DEFAULT_KINDS = {
    "Python": ["class", "function", "member", "variable"],
    "Go": ["func", "struct", "interface", "type", "talias", "member", "methodSpec",
           "const", "var"],
    "Java": ["class", "interface", "enum", "enumConstant", "field", "method",
             "annotation"],
    "C#": ["class", "struct", "interface", "enum", "enumerator", "field", "method",
           "property", "event"],
    "C": ["macro", "enumerator", "function", "enum", "member", "struct", "typedef",
          "union", "variable"],
    # `function` is also a method, `define` a constant (`const`, class constants),
    # `variable` a property.
    "PHP": ["class", "interface", "trait", "function", "define", "variable"],
    # `accessor` is `attr_reader :x`; `alias` is left out (mcursor does not index
    # `alias`/`alias_method`).
    "Ruby": ["class", "module", "method", "singletonMethod", "constant", "accessor"],
    # `prototype` (a declaration) is left out: in a class mcursor indexes it as the
    # method, elsewhere as a declaration of a definition (an import), as for C.
    "C++": ["class", "struct", "union", "enum", "enumerator", "function", "member",
            "namespace", "typedef", "macro", "variable", "alias"],
    # `constant` is a `val`, `variable` a `var`; `package` is left out (not a definition).
    "Kotlin": ["class", "interface", "object", "method", "typealias", "constant",
               "variable"],
    # `heredoc` labels are no definitions; `alias` is left out (mcursor does not index
    # `alias ll='ls -l'`).
    "Sh": ["function"],
    "Lua": ["function"],
}

# Options that make ctags read the files mcursor reads as the language: ctags maps `.h`
# to C++ by default.
LANGUAGE_OPTIONS = {
    "C": ["--map-C=+.h"],
    # Scripts without an extension, known by their `#!` line or an Emacs mode line
    # (`-*- shell-script -*-`), as mcursor knows them; symbolic links are not followed
    # (mcursor indexes the file once, where it is).
    "Sh": ["-G", "--links=no"],
    "Lua": ["--links=no"],
}

# C prototypes ctags lists as variables (see ctags_tags), left out of the score.
PROTOTYPES_AS_VARIABLES = []

# mcursor's files of a language, by extension (ctags is told the language instead).
EXTENSIONS = {
    "Python": (".py", ".pyi", ".pyw"),
    "Go": (".go",),
    "Java": (".java",),
    "C#": (".cs",),
    "C": (".c", ".h"),
    "PHP": (".php", ".phtml"),
    "Ruby": (".rb", ".rake", ".gemspec", ".ru"),
    "C++": (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".h"),
    "Kotlin": (".kt", ".kts"),
    "Sh": (".sh", ".bash", ""),
    "Lua": (".lua",),
}


def mcursor_symbols(mcursor, root):
    subprocess.run([mcursor, "index", "--full", root], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    out = subprocess.run([mcursor, "export", "--symbols"], cwd=root, check=True,
                         capture_output=True, text=True).stdout
    symbols = set()
    for line in out.splitlines():
        record = json.loads(line)
        if record.get("type") == "symbol":
            symbols.add((record["path"], record["line"], record["name"]))
    return symbols


def ctags_tags(root, language, kinds):
    out = subprocess.run(
        ["ctags", "--output-format=json", "--fields=+nKZ", f"--languages={language}",
         *LANGUAGE_OPTIONS.get(language, []), "--exclude=.mcursor", "-R", "-f", "-", "."],
        cwd=root, check=True, capture_output=True, text=True).stdout
    tags = []
    for line in out.splitlines():
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag.get("kind") not in kinds:
            continue
        path = tag["path"].removeprefix("./")
        name = tag["name"]
        if language in ("C", "C++"):
            if not path.endswith(EXTENSIONS[language]):
                # Told that `.h` is C, ctags also reads templates such as zlib-ng's
                # `zconf.h.in`, which mcursor does not parse.
                continue
            if name.startswith("__anon"):
                # ctags' invented name for an anonymous struct, union or enum: not a
                # name anyone can search for.
                continue
            if tag["kind"] == "variable" and re.search(
                    rf"\(\s*{re.escape(name)}\s*\)\s*\(", tag.get("pattern", "")):
                # `LUA_API int (lua_gettop) (lua_State *L);` is a prototype (a
                # declaration, which mcursor records as an import) that ctags reads as a
                # variable; counted apart so the figure says how many.
                PROTOTYPES_AS_VARIABLES.append(f"{path}:{tag['line']} {name}")
                continue
        if language == "C#":
            # An explicit interface implementation (`IEnumerable.GetEnumerator`) is
            # named by ctags with its interface; mcursor names the method.
            # A destructor (`~Finalizer`) is named by its class's name.
            name = name.rsplit(".", 1)[-1].removeprefix("~")
        if language == "C++" and name.startswith("operator"):
            # ctags writes `operator ==`; the source (and mcursor) `operator==`.
            name = name.replace(" ", "")
        if language == "Ruby" and tag["kind"] == "accessor":
            # `attr_accessor :body` is listed as `body` and `body=`; mcursor indexes the
            # attribute once, as `body`, which `x.body = 1` also refers to.
            name = name.removesuffix("=")
        if language == "Lua":
            # ctags names a table's function with its table (`M.add`, `Date.Format:US_order`);
            # mcursor names the function, the table is its container.
            name = re.split(r"[.:]", name)[-1]
        if language == "Kotlin" and (name.startswith("<")
                                     or tag.get("scopeKind") == "method"):
            # `<lambda>` is ctags' name for a lambda; a `val`, `var` or `fun` inside a
            # function is a local, which mcursor does not index as a definition.
            continue
        tags.append((path, tag["line"], name, tag["kind"]))
    return tags


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("mcursor")
    parser.add_argument("root")
    parser.add_argument("language")
    parser.add_argument("--kinds")
    parser.add_argument("--misses", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    mcursor = os.path.abspath(args.mcursor)
    kinds = args.kinds.split(",") if args.kinds else DEFAULT_KINDS[args.language]
    symbols = mcursor_symbols(mcursor, root)
    tags = ctags_tags(root, args.language, kinds)
    found = collections.Counter()
    total = collections.Counter()
    misses = collections.defaultdict(list)
    for path, line, name, kind in tags:
        total[kind] += 1
        if (path, line, name) in symbols:
            found[kind] += 1
        else:
            misses[kind].append(f"{path}:{line} {name}")
    tagged = {(p, l, n) for p, l, n, _ in tags}
    extensions = EXTENSIONS.get(args.language, ())
    extra = sorted(s for s in symbols
                   if s not in tagged and s[0].endswith(extensions))
    recall = sum(found.values()) / max(1, sum(total.values()))
    name = os.path.basename(root.rstrip("/"))
    print(f"{name}: {args.language} definitions, ctags kinds {','.join(kinds)}")
    print(f"  recall {recall:.4f} ({sum(found.values())} of {sum(total.values())} ctags tags)")
    for kind in kinds:
        if total[kind]:
            print(f"    {kind:<10} {found[kind] / total[kind]:.4f} ({found[kind]} of {total[kind]})")
            for miss in misses[kind][:args.misses]:
                print(f"      missed {miss}")
    if PROTOTYPES_AS_VARIABLES:
        print(f"  left out: {len(PROTOTYPES_AS_VARIABLES)} prototypes ctags lists as "
              f"variables, e.g. {PROTOTYPES_AS_VARIABLES[0]}")
    print(f"  mcursor symbols ctags does not list: {len(extra)}")
    for path, line, name in extra[:args.misses]:
        print(f"      {path}:{line} {name}")
    if args.json:
        with open(args.json, "w") as out:
            json.dump({"project": name, "language": args.language, "recall": recall,
                       "found": dict(found), "total": dict(total),
                       "extra": len(extra),
                       "prototypes_left_out": len(PROTOTYPES_AS_VARIABLES)}, out, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
