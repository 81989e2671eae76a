#!/usr/bin/python3
"""scalegen.py - write the inputs of the reporter's scale figures (bench/README.md, "Reporter
at scale"): shapes that were once quadratic or took kilobytes a region.

    bench/scalegen.py threads FILE N   one events run of N threads, each named differently
    bench/scalegen.py regions FILE N   one events run of N distinct regions, one call each
    bench/scalegen.py deep FILE N      one events run of a chain N calls deep
    bench/scalegen.py runs FOLDER N    N one-row events runs in FOLDER

Then time profreport on them with /usr/bin/time -f "%e s %U user %M KB" (see the README).
"""

import os
import sys

HEAD = ("Frequency,1000000000\nFormat,profreport-run,1\nMode,events\nProgram,/bin/app\n"
        "Complete,yes\nThreads,{}\n")
TABLE = "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"


def threads(path, n):
    with open(path, "w") as f:
        f.write(HEAD.format(n))
        f.writelines(f"Thread,{i},{1000 + i},worker-{i},exited\n" for i in range(1, n + 1))
        f.write(TABLE)
        f.writelines(f"work,100,{i},,0,100,{i},0\n" for i in range(1, n + 1))


def regions(path, n):
    with open(path, "w") as f:
        f.write(HEAD.format(1) + "Thread,1,1000,main,exited\n" + TABLE)
        f.writelines(f"region_{i:08d},100,1,,0,100,{i * 200},0\n" for i in range(n))


def deep(path, n):
    """f0 calls f1 ... calls f(n-1), 1 tick of self time each; rows in end order."""
    with open(path, "w") as f:
        f.write(HEAD.format(1) + "Thread,1,1000,main,exited\n" + TABLE)
        f.writelines(f"f{k},{n - k},1,{f'f{k - 1}' if k else ''},{k},1,{k},0\n"
                     for k in range(n - 1, -1, -1))


def runs(folder, n):
    os.makedirs(folder, exist_ok=True)
    for i in range(n):
        with open(os.path.join(folder, f"run{i:06d}.csv"), "w") as f:
            f.write(HEAD.format(1) + "Thread,1,1000,main,exited\n" + TABLE +
                    "work,100,1,,0,100,0,0\n")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("threads", "regions", "deep", "runs"):
        sys.exit(__doc__)
    globals()[sys.argv[1]](sys.argv[2], int(sys.argv[3]))
