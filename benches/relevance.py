#!/usr/bin/env python3
"""Search relevance: where the line a person wants first lands in `mcursor search`.

    benches/relevance.py [DIR] [BIN...]

DIR (default /tmp/mcursor-relevance) gets two real projects nobody here wrote, from the
package registries: `requests` 2.32.3 (the sdist from PyPI) and `clap_builder` 4.6.7
(from crates.io through `cargo vendor` of benches/corpora.sh's rustreg, or downloaded
here). Each BIN (default: target/release/mcursor) indexes a fresh copy of each and
answers every query with `search QUERY --json` (the default limit, 50 lines).

A query's score is the rank (1 = first line shown) of the first line matching its
expected pattern: the definition a person typing those words is after; a wanted line
not among the 50 shown scores 0. Reported per
query and as the mean reciprocal rank (MRR; 1.0 = every wanted line first) and how many
wanted lines are in the first 10. Writes benches/results/relevance.{txt,json}.
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import urllib.request

# (project, query, pattern of a wanted line's text)
QUERIES = [
    ("requests", "def request", r"^\s*def request\("),
    ("requests", "class Session", r"^class Session\b"),
    ("requests", "def send", r"^\s*def send\("),
    ("requests", "raise for status", r"def raise_for_status\("),
    ("requests", "merge setting", r"^def merge_setting\("),
    ("requests", "get auth from url", r"^def get_auth_from_url\("),
    ("requests", "prepare body", r"def prepare_body\("),
    ("requests", "HTTPAdapter", r"^class HTTPAdapter\b"),
    ("clap_builder", "render help", r"fn render_help\("),
    ("clap_builder", "get about", r"pub fn get_about\("),
    ("clap_builder", "enum ArgAction", r"pub enum ArgAction\b"),
    ("clap_builder", "struct ValueParser", r"pub struct ValueParser\b"),
    ("clap_builder", "try get matches", r"pub fn try_get_matches\("),
    ("clap_builder", "enum ErrorKind", r"pub enum ErrorKind\b"),
    ("clap_builder", "fn arg required", r"pub fn required\("),
    ("clap_builder", "possible values", r"fn get_possible_values\("),
]


def fetch(url, dest):
    with urllib.request.urlopen(url, timeout=60) as response, open(dest, "wb") as out:
        shutil.copyfileobj(response, out)


def prepare(base):
    os.makedirs(base, exist_ok=True)
    requests_dir = os.path.join(base, "requests")
    if not os.path.isdir(requests_dir):
        tmp = tempfile.mkdtemp()
        subprocess.run(
            ["pip", "download", "requests==2.32.3", "--no-binary", ":all:", "--no-deps",
             "-d", tmp, "-q"],
            check=True,
        )
        with tarfile.open(os.path.join(tmp, "requests-2.32.3.tar.gz")) as archive:
            archive.extractall(tmp, filter="data")
        shutil.move(os.path.join(tmp, "requests-2.32.3"), requests_dir)
    clap_dir = os.path.join(base, "clap_builder")
    if not os.path.isdir(clap_dir):
        vendored = "/tmp/mcursor-corpus/rustreg/clap_builder-4.6.7"
        if os.path.isdir(vendored):
            shutil.copytree(vendored, clap_dir)
        else:
            tmp = tempfile.mkdtemp()
            crate = os.path.join(tmp, "clap_builder.tar.gz")
            fetch("https://static.crates.io/crates/clap_builder/clap_builder-4.6.7.crate", crate)
            with tarfile.open(crate) as archive:
                archive.extractall(tmp, filter="data")
            shutil.move(os.path.join(tmp, "clap_builder-4.6.7"), clap_dir)
    return {"requests": requests_dir, "clap_builder": clap_dir}


def ranks(binary, projects):
    out = []
    for project, query, pattern in QUERIES:
        work = tempfile.mkdtemp()
        tree = os.path.join(work, project)
        shutil.copytree(projects[project], tree, ignore=shutil.ignore_patterns(".mcursor"))
        subprocess.run([binary, "index"], cwd=tree, check=True, capture_output=True)
        result = subprocess.run(
            [binary, "search", query, "--json"],
            cwd=tree, capture_output=True, text=True,
        )
        hits = json.loads(result.stdout or "[]")
        wanted = re.compile(pattern)
        rank = next((i + 1 for i, h in enumerate(hits) if wanted.search(h["text"])), None)
        out.append({"project": project, "query": query, "rank": rank, "lines": len(hits)})
        shutil.rmtree(work)
    return out


def summary(rows):
    reciprocal = [1 / r["rank"] if r["rank"] else 0 for r in rows]
    return {
        "mrr": round(sum(reciprocal) / len(rows), 3),
        "top1": sum(1 for r in rows if r["rank"] == 1),
        "top10": sum(1 for r in rows if r["rank"] and r["rank"] <= 10),
        "queries": len(rows),
    }


def main():
    args = sys.argv[1:]
    base = args[0] if args else "/tmp/mcursor-relevance"
    binaries = args[1:] or ["target/release/mcursor"]
    projects = prepare(base)
    results = {b: ranks(b, projects) for b in binaries}
    lines = ["| project | query | " + " | ".join(f"rank ({b})" for b in binaries) + " |",
             "|---|---|" + "---|" * len(binaries)]
    for i, (project, query, _) in enumerate(QUERIES):
        cells = []
        for b in binaries:
            row = results[b][i]
            cells.append(f"{row['rank'] or 'not shown'} of {row['lines']}")
        lines.append(f"| {project} | `{query}` | " + " | ".join(cells) + " |")
    totals = {b: summary(results[b]) for b in binaries}
    lines.append("")
    for b in binaries:
        t = totals[b]
        lines.append(f"{b}: MRR {t['mrr']}, first {t['top1']} of {t['queries']}, "
                     f"in the first 10 {t['top10']} of {t['queries']}")
    text = "\n".join(lines)
    print(text)
    os.makedirs("benches/results", exist_ok=True)
    with open("benches/results/relevance.txt", "w") as f:
        f.write(text + "\n")
    with open("benches/results/relevance.json", "w") as f:
        json.dump({"results": results, "summary": totals}, f, indent=1)


if __name__ == "__main__":
    main()
