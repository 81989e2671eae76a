"""Runs measured on a busy machine, and runs far from the others, are flagged (issue 25): the
collector records how long each thread waited for a CPU (the kernel's run-queue delay, the
fifth field of ThreadCpu), and the report says which runs waited long and which runs' busy
time is an outlier by a robust rule, on the Summary sheet, on the Runs sheet and in the
terminal."""

import os
import subprocess
import sys

from conftest import SAN, clean_env, program, run_program
from reporter_helpers import Book, EventRow, RunSpec, Thread, must_run


def runs_rows(book):
    _, rows = book.table("Runs")
    return rows


def write_runs(folder, busy_ticks, waits=None):
    """One events run per busy time (ticks at 1 GHz: ns), each a single top-level region, with
    a ThreadCpu record whose CPU time is the busy time and whose wait is waits[k] (None: a
    record of the older form, without a wait)."""
    for k, ticks in enumerate(busy_ticks):
        extra = []
        if waits is not None:
            cpu = [1, ticks, ticks * 2] + ([] if waits[k] is None else [waits[k]])
            extra = [["ThreadCpu", *cpu]]
        RunSpec(f"profiling_2026.03.03_00.00.{k:02d}_{k}.csv", 10**9, [Thread(1, 1, "main")],
                [EventRow("work", ticks, 1, "", 0, ticks, 0, 0)], duration=ticks * 2,
                extra=extra).write(folder)


def test_an_outlier_run_is_flagged_by_a_robust_rule(tmp_path):
    """Five runs of 100, 102, 98, 101 and 150 ms: the last is 1.5x the median and flagged; the
    others are not; five runs within 2 % of each other flag none; two runs are too few."""
    folder = tmp_path / "far"
    write_runs(folder, [100_000_000, 102_000_000, 98_000_000, 101_000_000, 150_000_000])
    out = tmp_path / "far.xlsx"
    p = must_run(folder, "-o", out, "--no-gnuplot")
    rows = runs_rows(Book(out))
    assert [r["Check"] for r in rows[:4]] == [None] * 4
    assert rows[4]["Check"] == "outlier: 1.49x the median busy time"
    s = Book(out).summary()
    assert s["Outlier runs"].startswith("1 of 5 (busy time far from the median run's: run 5:")
    text = p.stdout.decode()
    assert "outliers: 1 of 5 runs" in text and "run 5 took 1.49x the median" in text

    near = tmp_path / "near"
    write_runs(near, [100_000_000, 102_000_000, 98_000_000, 101_000_000, 99_000_000])
    out = tmp_path / "near.xlsx"
    p = must_run(near, "-o", out, "--no-gnuplot")
    assert all(r["Check"] is None for r in runs_rows(Book(out)))
    assert Book(out).summary()["Outlier runs"].startswith("none of 5")
    assert "outliers" not in p.stdout.decode()

    two = tmp_path / "two"
    write_runs(two, [100_000_000, 300_000_000])
    out = tmp_path / "two.xlsx"
    must_run(two, "-o", out, "--no-gnuplot")
    assert Book(out).summary()["Outlier runs"] == "cannot tell from 2 complete runs (at least 3)"


def test_a_run_whose_threads_waited_for_a_cpu_is_flagged(tmp_path):
    """ThreadCpu's wait: a run whose thread waited 40 ms for a CPU while it used 100 ms (29 %
    of the time it wanted one) is flagged; 5 ms (5 %) is not; a record without a wait (older
    files) leaves the run unknown, and none at all says it cannot tell."""
    folder = tmp_path / "runs"
    write_runs(folder, [100_000_000, 100_000_000, 100_000_000], [40_000_000, 5_000_000, None])
    out = tmp_path / "r.xlsx"
    p = must_run(folder, "-o", out, "--no-gnuplot")
    rows = runs_rows(Book(out))
    assert abs(rows[0]["CPU wait %"] - 40 / 140) < 1e-9
    assert rows[0]["Check"] == "busy machine: waited for a CPU 29 % of the time"
    assert abs(rows[1]["CPU wait %"] - 5 / 105) < 1e-9 and rows[1]["Check"] is None
    assert rows[2]["CPU wait %"] is None and rows[2]["Check"] is None
    assert Book(out).summary()["Runs on a busy machine"] == (
        "1 of 2 (run 1: waited for a CPU 29 %; see Runs)")
    text = p.stdout.decode()
    assert "busy machine: in 1 of 3 runs" in text and "run 1 waited 28.6% of the time" in text

    old = tmp_path / "old"
    write_runs(old, [100_000_000])
    out = tmp_path / "old.xlsx"
    must_run(old, "-o", out, "--no-gnuplot")
    assert Book(out).summary()["Runs on a busy machine"].startswith("unknown")


def test_a_run_beside_a_cpu_hog_is_flagged(tmp_path):
    """A single-threaded program that works for about 0.3 s, run on CPU 0 beside three
    processes that spin on CPU 0 too, waits for the CPU most of the time: the collector's
    ThreadCpu wait says so, and the report flags the run as measured on a busy machine."""
    hogs = [subprocess.Popen([sys.executable, "-c", "import os\nos.sched_setaffinity(0, {0})\n"
                              "print('spinning', flush=True)\nwhile True: pass"],
                             stdout=subprocess.PIPE) for _ in range(3)]
    try:
        # every hog on CPU 0 before the program starts (a hog still starting on a busy machine
        # left the program CPU 0 to itself: no wait at all in 274 ms)
        for h in hogs:
            assert h.stdout.readline() == b"spinning\n"
        _, files = run_program(tmp_path, "recurse_spin", "1000", "15", "1",
                               env={"PROFILER_MODE": "summary"}, preexec=lambda:
                               os.sched_setaffinity(0, {0}))
    finally:
        for h in hogs:
            h.kill()
            h.wait()
            h.stdout.close()
    assert len(files) == 1
    text = files[0].read_text()
    cpu = [line.split(",") for line in text.splitlines() if line.startswith("ThreadCpu,")]
    assert len(cpu) == 1 and len(cpu[0]) == 5, cpu
    used, wall, wait = int(cpu[0][2]), int(cpu[0][3]), int(cpu[0][4])
    assert wait > used, (used, wall, wait)  # four tasks on one CPU: it waited more than it ran
    out = tmp_path / "r.xlsx"
    p = must_run(files[0].parent, "-o", out, "--no-gnuplot")
    rows = runs_rows(Book(out))
    assert rows[0]["CPU wait %"] > 0.5
    assert rows[0]["Check"].startswith("busy machine: waited for a CPU")
    assert Book(out).summary()["Runs on a busy machine"].startswith("1 of 1 (run 1: waited")
    assert "busy machine: in 1 of 1 run" in p.stdout.decode()
