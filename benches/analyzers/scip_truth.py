#!/usr/bin/env python3
"""Reads a SCIP index (what `rust-analyzer scip DIR` writes) and prints the ground truth
the comparison needs, as JSON on stdout:

    {"definitions": [{"path", "line", "column", "name", "symbol", "kind",
                      "refs": ["path:line", ...]}, ...],
     "outside_names": [names of symbols used but defined outside the project]}

one entry per definition inside the indexed project (locals left out), with every other
occurrence of its symbol in the project's files as a reference. Lines and columns are
1-based, columns in bytes of the line (as mcursor reports them).

SCIP is protobuf; the few messages needed are decoded by hand (no protobuf package):
Index.documents=2; Document.relative_path=1, occurrences=2, symbols=3;
Occurrence.range=1 (packed int32: line, char, [end line,] end char), symbol=2,
symbol_roles=3 (bit 0: definition); SymbolInformation.symbol=1, kind=5, display_name=6.

Usage: scip_truth.py INDEX.scip PROJECT_DIR
"""
import json
import os
import sys

DEFINITION = 0x1


def varint(buf, i):
    shift = result = 0
    while True:
        b = buf[i]
        i += 1
        result |= (b & 0x7F) << shift
        if not b & 0x80:
            return result, i
        shift += 7


def fields(buf):
    """Yields (field number, wire type, value) of one message; length-delimited values
    as memoryview slices."""
    i, n = 0, len(buf)
    while i < n:
        key, i = varint(buf, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = varint(buf, i)
        elif wire == 2:
            length, i = varint(buf, i)
            value = buf[i : i + length]
            i += length
        elif wire == 1:
            value = buf[i : i + 8]
            i += 8
        elif wire == 5:
            value = buf[i : i + 4]
            i += 4
        else:
            raise ValueError(f"unsupported wire type {wire}")
        yield number, wire, value


def packed_ints(buf):
    out, i = [], 0
    while i < len(buf):
        v, i = varint(buf, i)
        out.append(v)
    return out


def occurrence(buf):
    rng, symbol, roles = [], "", 0
    for number, wire, value in fields(buf):
        if number == 1:
            rng.extend(packed_ints(value) if wire == 2 else [value])
        elif number == 2:
            symbol = bytes(value).decode("utf-8", "replace")
        elif number == 3:
            roles = value
    return rng, symbol, roles


def symbol_information(buf):
    info = {"symbol": "", "kind": 0, "display_name": ""}
    for number, _, value in fields(buf):
        if number == 1:
            info["symbol"] = bytes(value).decode("utf-8", "replace")
        elif number == 5:
            info["kind"] = value
        elif number == 6:
            info["display_name"] = bytes(value).decode("utf-8", "replace")
    return info


def descriptor_name(symbol):
    """The last descriptor's name: `... Command#get_name().` -> get_name."""
    body = symbol.rstrip(".#/!")
    if body.endswith(")"):
        body = body[: body.rfind("(")]
    for sep in ("#", "/", ".", "]"):
        cut = body.rfind(sep)
        if cut >= 0:
            body = body[cut + 1 :] if sep != "]" else body[cut + 1 :]
    return body.strip("`")


# SymbolInformation.Kind values rust-analyzer sets that the descriptor cannot tell apart.
SCIP_ASSOCIATED_TYPE = 3
SCIP_ENUM_MEMBER = 12


def descriptor_kind(symbol):
    body = symbol.rstrip()
    if body.endswith(")."):
        # A method when another descriptor (a type or an impl) precedes it.
        head = body[: body.rfind("(")]
        return "method" if ("#" in head or "impl#" in head) else "function"
    if body.endswith("#"):
        # A type inside a type is an enum variant (Rust has no nested types).
        return "variant" if "#" in body[:-1].split("/")[-1] else "type"
    if body.endswith("!"):
        return "macro"
    if body.endswith("/"):
        return "module"
    if body.endswith("."):
        head = body[:-1]
        return "field" if "#" in head else "term"
    return "other"


def main():
    scip_path, project = sys.argv[1], sys.argv[2]
    data = memoryview(open(scip_path, "rb").read())
    lines_cache = {}

    def byte_column(path, line0, char0):
        # SCIP positions count UTF-8 code units for rust-analyzer (position encoding 1) and
        # UTF-16 for others; map to a byte column through the line's text.
        if path not in lines_cache:
            try:
                with open(os.path.join(project, path), "rb") as f:
                    lines_cache[path] = f.read().split(b"\n")
            except OSError:
                lines_cache[path] = []
        lines = lines_cache[path]
        if line0 < len(lines):
            text = lines[line0].decode("utf-8", "replace")
            return len(text[:char0].encode("utf-8")) + 1
        return char0 + 1

    definitions = {}
    references = {}
    infos = {}
    for number, _, doc in fields(data):
        if number != 2:
            continue
        path, occurrences = "", []
        for n, _, value in fields(doc):
            if n == 1:
                path = bytes(value).decode("utf-8", "replace")
            elif n == 2:
                occurrences.append(occurrence(value))
            elif n == 3:
                info = symbol_information(value)
                infos[info["symbol"]] = info
        if path.startswith("..") or os.path.isabs(path):
            continue
        for rng, symbol, roles in occurrences:
            if not symbol or symbol.startswith("local ") or len(rng) < 3:
                continue
            line = rng[0] + 1
            if roles & DEFINITION:
                definitions.setdefault(symbol, (path, line, byte_column(path, rng[0], rng[1])))
            else:
                references.setdefault(symbol, set()).add(f"{path}:{line}")
    out = []
    for symbol, (path, line, column) in sorted(definitions.items(), key=lambda kv: kv[1]):
        info = infos.get(symbol, {})
        name = info.get("display_name") or descriptor_name(symbol)
        kind = descriptor_kind(symbol)
        if info.get("kind") == SCIP_ASSOCIATED_TYPE:
            kind = "associated"
        elif info.get("kind") == SCIP_ENUM_MEMBER:
            kind = "variant"
        out.append(
            {
                "path": path,
                "line": line,
                "column": column,
                "name": name,
                "symbol": symbol,
                "kind": kind,
                "refs": sorted(references.get(symbol, set()) - {f"{path}:{line}"}),
            }
        )
    # Names of symbols the project uses but does not define (`len` of `Vec`, `to_owned`):
    # a member sharing one of them is as ambiguous to grep as one sharing a local name.
    outside = sorted(
        {descriptor_name(s) for s in references if s not in definitions and not s.startswith("local ")}
    )
    json.dump({"definitions": out, "outside_names": outside}, sys.stdout, indent=0)


if __name__ == "__main__":
    main()
