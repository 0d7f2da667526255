#!/usr/bin/env python3
"""Indexing throughput against the parse ceiling, per project or per language (issue 12's
per-language target: `index` within 20% of the parse ceiling, that is the ratio at 80% or
more).

    benches/throughput.py MCURSOR RUNS DIR [DIR...] [--baseline OLD_MCURSOR] [--by-language WORK]

For each DIR: one untimed `MCURSOR index --full` (warms the page cache), then RUNS rounds
of `MCURSOR debug parse-only .` and `MCURSOR index --full`, alternated so that drift hits
both alike, each timed as a whole process (wall clock, output discarded: `--json` is left
out because it is not what a user runs). With `--baseline`, OLD_MCURSOR's two commands run
in the same rounds, alternated with the new ones. Prints the medians and their ratio,
with every run, one line per DIR (and binary), and beside them the medians of the CPU
time (user + system) the processes took and their ratio: on a machine shared with other
work the wall clock of a run moves by 20% from one to the next, its CPU time much less.

A project's tree mixes languages with text that no parser reads (documentation,
translations, data): the parse ceiling reads such a file and stops, while `index`
tokenizes it for full-text search, so the whole tree's ratio says as much about the
project's share of plain text as about a language. With `--by-language WORK`, each DIR is
also split by the language the index gave each file (`mcursor debug dump`'s `file` lines):
the files of each language (at least 20 of them) are hard-linked, at their paths, into
WORK/DIRNAME.LANG, and that tree is measured the same way: the language's own throughput.
"""

import argparse
import collections
import os
import shutil
import statistics
import subprocess
import time

MIN_FILES_PER_LANGUAGE = 20


def timed_ms(command, cwd):
    """Wall-clock and CPU (user + system) milliseconds of one whole process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    wall = (time.perf_counter() - started) * 1000
    if os.waitstatus_to_exitcode(status) != 0:
        raise subprocess.CalledProcessError(os.waitstatus_to_exitcode(status), command)
    return wall, (usage.ru_utime + usage.ru_stime) * 1000


def measure(directory, binaries, runs, baseline):
    shutil.rmtree(os.path.join(directory, ".mcursor"), ignore_errors=True)
    subprocess.run([binaries[-1], "index", "--full"], cwd=directory,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    times = {binary: ([], []) for binary in binaries}
    for _ in range(runs):
        for binary in binaries:
            times[binary][0].append(timed_ms([binary, "debug", "parse-only", "."], directory))
        for binary in binaries:
            times[binary][1].append(timed_ms([binary, "index", "--full"], directory))
    for binary in binaries:
        parse, index = times[binary]
        p, i = (statistics.median(w for w, _ in parse), statistics.median(w for w, _ in index))
        pc, ic = (statistics.median(c for _, c in parse), statistics.median(c for _, c in index))
        label = f" [{os.path.basename(binary)}]" if baseline else ""
        print(f"{directory}{label}: parse-only {p:.0f} ms, index {i:.0f} ms, {100 * p / i:.0f}% of "
              f"the ceiling; CPU {pc:.0f} / {ic:.0f} ms, {100 * pc / ic:.0f}% "
              f"(parse-only {[round(w) for w, _ in parse]}, index {[round(w) for w, _ in index]})",
              flush=True)


def files_by_language(directory, binary):
    """The index's language of each file of DIR (already indexed): {lang: [path, ...]}."""
    dump = subprocess.run([binary, "debug", "dump"], cwd=directory, capture_output=True,
                          text=True, check=True).stdout
    languages = collections.defaultdict(list)
    for line in dump.splitlines():
        if not line.startswith("file "):
            continue
        # `file PATH lang=LANG size=...`: PATH may hold spaces, the fields after it do not.
        head, _, rest = line[len("file "):].partition(" lang=")
        lang = rest.split(" ", 1)[0]
        if lang != "text":
            languages[lang].append(head)
    return languages


def split_by_language(directory, binary, work):
    """Hard-links each language's files into WORK/DIRNAME.LANG; returns those trees."""
    trees = []
    for lang, paths in sorted(files_by_language(directory, binary).items()):
        if len(paths) < MIN_FILES_PER_LANGUAGE:
            continue
        tree = os.path.join(work, f"{os.path.basename(os.path.normpath(directory))}.{lang}")
        shutil.rmtree(tree, ignore_errors=True)
        for path in paths:
            target = os.path.join(tree, path)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.link(os.path.join(directory, path), target)
        trees.append(tree)
    return trees


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("mcursor")
    parser.add_argument("runs", type=int)
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--baseline")
    parser.add_argument("--by-language", metavar="WORK")
    args = parser.parse_args()
    binaries = [os.path.realpath(args.mcursor)]
    if args.baseline:
        binaries.insert(0, os.path.realpath(args.baseline))
    for directory in args.dirs:
        measure(directory, binaries, args.runs, args.baseline)
        if args.by_language:
            os.makedirs(args.by_language, exist_ok=True)
            for tree in split_by_language(directory, binaries[-1], args.by_language):
                measure(tree, binaries, args.runs, args.baseline)


if __name__ == "__main__":
    main()
