#!/usr/bin/env python3
"""Indexing throughput against the parse ceiling, per project (issue 12's per-language
target: `index` within 20% of the parse ceiling, that is the ratio at 80% or more).

    benches/throughput.py MCURSOR RUNS DIR [DIR...] [--baseline OLD_MCURSOR]

For each DIR: one untimed `MCURSOR index --full` (warms the page cache), then RUNS rounds
of `MCURSOR debug parse-only .` and `MCURSOR index --full`, alternated so that drift hits
both alike, each timed as a whole process (wall clock, output discarded: `--json` is left
out because it is not what a user runs). With `--baseline`, OLD_MCURSOR's two commands run
in the same rounds, alternated with the new ones. Prints the medians and their ratio,
with every run, one line per DIR (and binary).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import time


def timed_ms(command, cwd):
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000


def main():
    parser = argparse.ArgumentParser(usage=__doc__)
    parser.add_argument("mcursor")
    parser.add_argument("runs", type=int)
    parser.add_argument("dirs", nargs="+")
    parser.add_argument("--baseline")
    args = parser.parse_args()
    binaries = [os.path.realpath(args.mcursor)]
    if args.baseline:
        binaries.insert(0, os.path.realpath(args.baseline))
    for directory in args.dirs:
        shutil.rmtree(os.path.join(directory, ".mcursor"), ignore_errors=True)
        subprocess.run([binaries[-1], "index", "--full"], cwd=directory,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        times = {binary: ([], []) for binary in binaries}
        for _ in range(args.runs):
            for binary in binaries:
                times[binary][0].append(timed_ms([binary, "debug", "parse-only", "."], directory))
            for binary in binaries:
                times[binary][1].append(timed_ms([binary, "index", "--full"], directory))
        for binary in binaries:
            parse, index = times[binary]
            p, i = statistics.median(parse), statistics.median(index)
            label = f" [{os.path.basename(binary)}]" if args.baseline else ""
            print(f"{directory}{label}: parse-only {p:.0f} ms, index {i:.0f} ms, {100 * p / i:.0f}% of "
                  f"the ceiling (parse-only {[round(x) for x in parse]}, index {[round(x) for x in index]})",
                  flush=True)


if __name__ == "__main__":
    main()
