#!/usr/bin/env python3
"""Indexing throughput against the parse ceiling, per project (issue 12's per-language
target: `index` within 20% of the parse ceiling, that is the ratio at 80% or more).

    benches/throughput.py MCURSOR RUNS DIR [DIR...]

For each DIR: one untimed `MCURSOR index --full` (warms the page cache), then RUNS rounds
of `MCURSOR debug parse-only .` and `MCURSOR index --full`, alternated so that drift hits
both alike, each timed as a whole process (wall clock, output discarded: `--json` is left
out because it is not what a user runs). Prints the medians and their ratio, with every
run, one line per DIR.
"""

import os
import shutil
import statistics
import subprocess
import sys
import time


def timed_ms(command, cwd):
    started = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return (time.perf_counter() - started) * 1000


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    mcursor, runs, dirs = os.path.realpath(sys.argv[1]), int(sys.argv[2]), sys.argv[3:]
    for directory in dirs:
        shutil.rmtree(os.path.join(directory, ".mcursor"), ignore_errors=True)
        subprocess.run([mcursor, "index", "--full"], cwd=directory,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
        parse, index = [], []
        for _ in range(runs):
            parse.append(timed_ms([mcursor, "debug", "parse-only", "."], directory))
            index.append(timed_ms([mcursor, "index", "--full"], directory))
        p, i = statistics.median(parse), statistics.median(index)
        print(f"{directory}: parse-only {p:.0f} ms, index {i:.0f} ms, {100 * p / i:.0f}% of the ceiling "
              f"(parse-only {[round(x) for x in parse]}, index {[round(x) for x in index]})", flush=True)


if __name__ == "__main__":
    main()
