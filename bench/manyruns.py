#!/usr/bin/python3
"""manyruns.py - how long profreport's gnuplot charts take for a report of many runs.

    bench/manyruns.py PROFREPORT [RUNS] [REPS]

Writes RUNS (default 1000) small events-mode run files (15 regions: main calling 14 others,
whose costs drift slowly from run to run, with noise) into a temporary folder, then times
`profreport FOLDER` with and without --no-gnuplot, REPS times each (default 3), alternating.
The chart phase is the difference of the medians. Prints one line per figure; exit status 0
unless a run of profreport fails. A fixed seed makes the files the same every time.
"""

import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REGIONS = 14


def write_runs(folder, runs):
    """RUNS run files, each: main once on one thread, calling each region a few times."""
    rng = random.Random(20261123)
    for k in range(runs):
        rows, clock = [], 0
        main_start = clock
        for r in range(REGIONS):
            base = 1000 * (r + 1) * (1 + 0.3 * (k / runs))  # a slow drift over the runs
            for _ in range(3):
                ticks = max(1, int(rng.gauss(base, base * 0.1)))
                rows.append(f"region{r:02d},{ticks},1,main,1,{ticks},{clock},0")
                clock += ticks + 5
        rows.append(f"main,{clock - main_start},1,,0,{REGIONS * 3 * 5},{main_start},0")
        head = ["Frequency,1000000000", "Format,profreport-run,1", "Mode,events",
                "Program,/opt/bench/app", f"Pid,{1000 + k}", "Host,bench",
                f"Start,2026-01-01T00:00:{k % 60:02d}.000000Z", "Clock,tsc",
                f"Duration,{clock + 10}", "Complete,yes", "Threads,1", "Thread,1,1,main,exited",
                "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested"]
        (folder / f"profiling_2026.01.01_00.00.00_{k + 1:04d}.csv").write_text(
            "\n".join(head + rows) + "\n")


def timed(cmd):
    """Seconds one run of cmd takes; stops the bench when it fails."""
    t = time.monotonic()
    p = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        sys.exit(f"manyruns: {' '.join(cmd)} failed: {p.stderr.decode(errors='replace')}")
    return time.monotonic() - t


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    prog = sys.argv[1]
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 1000
    reps = int(sys.argv[3]) if len(sys.argv) > 3 else 3
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "runs"
        folder.mkdir()
        write_runs(folder, runs)
        out = str(Path(tmp) / "report.xlsx")
        plain, charts = [], []
        for _ in range(reps):
            plain.append(timed([prog, str(folder), "-o", out, "-q", "--no-gnuplot"]))
            charts.append(timed([prog, str(folder), "-o", out, "-q"]))
        p, c = statistics.median(plain), statistics.median(charts)
        print(f"runs: {runs}, repetitions: {reps}")
        print(f"report without charts (--no-gnuplot): {p:.3f} s (median)")
        print(f"report with gnuplot charts:           {c:.3f} s (median)")
        print(f"chart phase:                          {c - p:.3f} s")


if __name__ == "__main__":
    main()
