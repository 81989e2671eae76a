"""test_threads.py - a thread's CPU time beside its wall time: the collector's ThreadCpu records
(docs/FORMAT.md 1.2), the Threads sheet's Wall, CPU, CPU % and Mostly idle columns, and the
terminal's list of mostly idle threads.

tests/programs/idle.c runs one thread that spins until its own CPU clock has counted MS
milliseconds and one that sleeps 3 * MS inside a region. Nothing here asserts on how long
anything took, only on what the CPU clock must show whatever the load: the spinner used at
least MS of CPU and never more CPU than wall time, the sleeper used a small part of its wall
time.
"""

import select
import signal
import subprocess

import pytest

from conftest import (check_events_structure, clean_env, fresh_dir, parse_run, program,
                      run_program)
from reporter_helpers import UNITS_NS, Book, csv_bytes, must_run

MS = 60


def time_column(headers, name):
    """(header, ns per unit) of the time column called name: "CPU", whose cells hold ns, or
    "CPU (ms)" under --unit."""
    for h in headers:
        if h == name:
            return h, 1
        if h.startswith(name + " ("):
            return h, UNITS_NS[h[len(name) + 2:-1]]
    raise AssertionError(f"no {name} column in {headers}")


def threads_by_name(book):
    """The Threads table's rows by thread name, times in ns under 'wall', 'cpu' and 'busy'."""
    headers, rows = book.table("Threads")
    cols = {key: time_column(headers, name)
            for key, name in (("wall", "Wall"), ("cpu", "CPU"), ("busy", "Busy"))}
    out = {}
    for r in rows:
        r = dict(r)
        for key, (h, ns) in cols.items():
            r[key] = None if r[h] is None else r[h] * ns
        out[r["Name"]] = r
    return out


def summary_value(book, label):
    """The Summary sheet's value beside label."""
    for row in book.rows("Summary"):
        if row and row[0] == label:
            return row[1]
    raise AssertionError(f"no {label!r} line in Summary")


def test_collector_writes_each_threads_cpu_and_wall_time(tmp_path):
    _, files = run_program(tmp_path, "idle", str(MS))
    assert len(files) == 1
    run = parse_run(files[0])
    names = {r[1]: r[3] for r in run.meta if r[0] == "Thread"}
    cpu = {names[r[1]]: (int(r[2]), int(r[3])) for r in run.meta if r[0] == "ThreadCpu"}
    assert set(cpu) == {"main", "busy", "sleeper"}
    # After every Thread record, as FORMAT.md 1.2 puts them.
    keys = [r[0] for r in run.meta]
    assert max(i for i, k in enumerate(keys) if k == "Thread") < keys.index("ThreadCpu")
    busy_cpu, busy_wall = cpu["busy"]
    assert busy_cpu >= MS * 1_000_000 * 0.99  # it spun until its CPU clock said so
    assert busy_cpu <= busy_wall + 1_000_000  # one thread: CPU never outruns the wall clock
    sleep_cpu, sleep_wall = cpu["sleeper"]
    assert sleep_wall >= 3 * MS * 1_000_000 * 0.99
    assert sleep_cpu < 0.1 * sleep_wall


def test_threads_sheet_and_terminal_flag_the_idle_thread_not_the_busy_one(tmp_path):
    _, files = run_program(tmp_path, "idle", str(MS))
    out = tmp_path / "r.xlsx"
    p = must_run(files[0], "-o", out, "--no-gnuplot")
    book = Book(out)
    headers, _ = book.table("Threads")
    assert headers[-5:-2] == [time_column(headers, "Wall")[0], time_column(headers, "CPU")[0],
                              "CPU %"]
    assert headers[-1] == "Mostly idle"
    t = threads_by_name(book)
    busy, sleeper = t["busy"], t["sleeper"]
    assert busy["Mostly idle"] == "no"
    assert sleeper["Mostly idle"] == "yes"
    assert busy["cpu"] >= MS * 1e6 * 0.99
    assert busy["cpu"] <= busy["wall"] + 1e6
    # The spin region is most of the thread's life: Busy (from the rows) is within its Wall.
    assert busy["busy"] <= busy["wall"] + 1e6
    assert abs(busy["CPU %"] - busy["cpu"] / busy["wall"]) < 1e-6
    assert sleeper["cpu"] < 0.1 * sleeper["wall"]
    assert sleeper["wall"] >= sleeper["busy"] - 1e6 >= 3 * MS * 1e6 * 0.99 - 1e6

    text = p.stdout.decode()
    flagged = [l for l in text.splitlines() if l.startswith("  run 1, thread ")]
    assert "mostly idle: " in text
    assert any("(sleeper)" in l for l in flagged)
    assert not any("(busy)" in l for l in flagged)
    idle = sum(1 for r in t.values() if r["Mostly idle"] == "yes")
    assert summary_value(book, "Mostly idle threads").startswith(f"{idle} of 3 ")


def test_runs_without_cpu_times_leave_the_cells_empty(tmp_path):
    # A run file of an older profreport: no ThreadCpu records.
    records = [["Frequency", "1000000000"], ["Format", "profreport-run", "3"],
               ["Mode", "events"], ["Program", "/bin/old"], ["Threads", "1"],
               ["Thread", "1", "7", "main", "exited"],
               ["Region", "Ticks", "Thread", "Parent", "Depth", "Self", "Start", "Nested"],
               ["work", "5000000", "1", "", "0", "5000000", "0", "0"]]
    run = tmp_path / "profiling_old.csv"
    run.write_bytes(csv_bytes(records))
    out = tmp_path / "r.xlsx"
    p = must_run(run, "-o", out, "--no-gnuplot")
    t = threads_by_name(Book(out))["main"]
    assert t["wall"] is None and t["cpu"] is None
    assert t["CPU %"] is None and t["Mostly idle"] is None
    assert summary_value(Book(out), "Mostly idle threads").startswith("unknown")
    assert "mostly idle" not in p.stdout.decode()


def test_a_killed_runs_threads_keep_their_cpu_time_up_to_their_last_write(tmp_path):
    # killme fills two buffers on its main thread (each write records the CPU time so far),
    # runs a worker to its end, then sleeps until it is killed.
    folder = fresh_dir(tmp_path)
    with subprocess.Popen([str(program("killme")), "1"], env=clean_env({"PROFILER_DIR": folder}),
                          cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        ready, _, _ = select.select([p.stdout], [], [], 60)
        assert ready and p.stdout.readline() == b"ready\n"
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
    out = tmp_path / "r.xlsx"
    must_run(folder, "-o", out, "--no-gnuplot")
    t = threads_by_name(Book(out))
    assert t["main"]["State"] == "incomplete"
    for r in t.values():
        assert r["cpu"] is not None and 0 < r["cpu"] <= r["wall"] + 1e6


def test_two_writer_threads_leave_one_complete_run_file_and_nothing_else(tmp_path):
    # PROFILER_WRITE_THREADS=2: the run file is cut in two at exit even though it is small; the
    # second thread's temporary file is gone, and every row is there once, in order.
    folder = fresh_dir(tmp_path)
    proc, files = run_program(tmp_path, "threads", "3", "20000", profile_dir=folder,
                              env={"PROFILER_WRITE_THREADS": "2"})
    assert not proc.stderr, proc.stderr
    assert [p.name for p in folder.iterdir()] == [files[0].name]
    run = parse_run(files[0])
    check_events_structure(run)
    assert len(run.rows_of("work")) == 3 * 20000
    threads = [int(r["Thread"]) for r in run.rows]
    assert threads == sorted(threads)


@pytest.mark.parametrize("value", ["3", "two", "1 "])
def test_a_bad_writer_thread_count_is_named_and_the_run_file_is_still_whole(tmp_path, value):
    # PROFILER_WRITE_THREADS other than 1 or 2: one warning naming the value, then the choice is
    # made at exit as if it were unset; the program's rows are all written.
    folder = fresh_dir(tmp_path)
    proc, files = run_program(tmp_path, "threads", "2", "1000", profile_dir=folder,
                              env={"PROFILER_WRITE_THREADS": value})
    assert f"PROFILER_WRITE_THREADS='{value}' is not 1 or 2".encode() in proc.stderr
    assert [p.name for p in folder.iterdir()] == [files[0].name]
    run = parse_run(files[0])
    check_events_structure(run)
    assert len(run.rows_of("work")) == 2 * 1000
