"""test_lifecycle.py - the collector over a program's life: threads that come and go, events
that must survive a kill or an _exit, and regions recorded in signal handlers.

Each test runs a program of tests/programs (the comment at its top says what it does) and
checks the run file, or what prof_recover makes of the part files a killed run leaves,
against docs/FORMAT.md and the README.
"""

import os
import re
import resource
import select
import signal
import subprocess
import time

import pytest

from conftest import (
    PART_NAME,
    SAN,
    check_events_structure,
    check_metadata,
    clean_env,
    fresh_dir,
    library_lines,
    parse_run_text,
    program,
    run_command,
    run_once,
    run_program,
    scaled,
)
from reporter_helpers import Book, must_run, templates_args


def recover(folder):
    """The run prof_recover makes of the part files in folder."""
    parts = sorted(p for p in folder.iterdir() if PART_NAME.match(p.name))
    assert parts, f"no part file in {folder}: {os.listdir(folder)}"
    rec = run_command([program("recover"), *parts])
    assert rec.returncode == 0, rec.stderr
    return parse_run_text(rec.stdout.decode())


# ---- threads that come and go ----


def memory_lines(stdout):
    """churn's "before" and "after" lines: {label: (VmSize kB, VmRSS kB)}."""
    out = {}
    for line in stdout.decode().splitlines():
        m = re.fullmatch(r"(before|after) (\d+) (\d+)", line)
        if m:
            out[m[1]] = (int(m[2]), int(m[3]))
    return out


def test_ended_threads_give_their_memory_back(tmp_path):
    """3000 threads started and joined one after the other, each recording one region, under
    a 1 GiB address-space limit (ulimit -v): the recorders used to keep 512 KiB per thread
    (1.5 GB here), so recording stopped and no run file was written. Now the address space
    grows by far less (the bound allows glibc's 64 MiB malloc arenas and a thread stack), the
    fork after the threads works, nothing is said on stderr, and the run file has every
    thread's row. The sanitizers reserve terabytes: under them, no limit and no bound."""
    threads = scaled(3000)
    folder = fresh_dir(tmp_path)

    def limit():
        if not SAN:
            resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))

    proc = subprocess.run([str(program("churn")), str(threads)],
                          env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, preexec_fn=limit,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert library_lines(proc.stderr) == []
    assert proc.stdout.decode().splitlines()[-1] == "child 0"
    files = list(folder.iterdir())
    assert len(files) == 1 and files[0].name.endswith(".csv"), files
    run = parse_run_text(files[0].read_text())
    check_metadata(run)
    check_events_structure(run)
    assert run.value("Complete") == "yes"
    assert len(run.threads) == threads
    assert {t["state"] for t in run.threads} == {"exited"}
    rows = run.rows_of("churn")
    assert len(rows) == threads == len(run.rows)
    assert sorted(int(r["Thread"]) for r in rows) == list(range(1, threads + 1))
    if not SAN:
        mem = memory_lines(proc.stdout)
        assert mem["after"][0] - mem["before"][0] < 256 * 1024, mem


# ---- events that survive a kill or an _exit ----


def run_and_kill(tmp_path, seconds, env=None):
    """Start `durable loop`, SIGKILL it `seconds` after it says ready; return the folder."""
    folder = fresh_dir(tmp_path)
    extra = {"PROFILER_DIR": folder}
    extra.update(env or {})
    with subprocess.Popen([str(program("durable")), "loop"], env=clean_env(extra), cwd=tmp_path,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        ready, _, _ = select.select([p.stdout], [], [], 60)
        line = p.stdout.readline() if ready else b"(no output in 60 s)"
        if line != b"ready\n":
            p.kill()
            pytest.fail(f"durable did not get ready: {line!r} {p.stderr.read()!r}")
        time.sleep(seconds)
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        assert p.returncode == -signal.SIGKILL
    return folder


def test_killed_run_keeps_the_events_older_than_the_flush_interval(tmp_path):
    """A thread that records 200-microsecond regions fills its buffer in more than 4 s, so a
    kill after 2.5 s used to leave no event at all. With the default PROFILER_FLUSH_INTERVAL
    of 1 s its events are written at least every second: the recovered run has rows, and they
    reach past its first second."""
    run = recover(run_and_kill(tmp_path, 2.5))
    check_events_structure(run)
    assert run.value("Complete") == "no"
    ticks = [r for r in run.rows_of("tick") if r["Ticks"] != ""]
    assert ticks, "no event survived the kill"
    last_end = max(int(r["Start"]) + int(r["Ticks"]) for r in ticks) / run.frequency
    assert last_end >= 1.0, last_end


def test_killed_summary_run_keeps_a_snapshot_of_its_statistics(tmp_path):
    """Summary mode writes its statistics only at thread end, so a killed run used to recover
    no row. Now a snapshot of every row is written each PROFILER_FLUSH_INTERVAL, and the
    recovery takes the last one. With PROFILER_FLUSH_INTERVAL=0.3 and a kill after 1.2 s: one
    "tick" row whose calls add up to at least 0.3 s, and whose counts agree with each other."""
    run = recover(run_and_kill(tmp_path, 1.2, {"PROFILER_MODE": "summary",
                                               "PROFILER_FLUSH_INTERVAL": "0.3"}))
    assert run.value("Mode") == "summary"
    (row,) = run.rows_of("tick")
    calls = int(row["Calls"])
    assert calls >= 2 and int(row["Ticks"]) / run.frequency >= 0.3, row
    assert int(row["Min"]) <= int(row["Ticks"]) // calls <= int(row["Max"])


@pytest.mark.parametrize("interval, nap", [(None, "1.1"), ("0.2", "0.3")])
def test_events_before_a_long_region_survive__exit(tmp_path, interval, nap):
    """A program that records 100 regions, then a region around a sleep longer than the flush
    interval (the default 1 s, or 0.2 s), then calls _exit: no run file, but its part holds
    all 101 rows, the long one stopped, because the stop after the flush interval wrote the
    buffer (before, the part held only its header)."""
    folder = fresh_dir(tmp_path)
    proc, files = run_program(tmp_path, "durable", "nap", nap, profile_dir=folder,
                              env={"PROFILER_FLUSH_INTERVAL": interval})
    assert files == []
    run = recover(folder)
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    assert len(run.rows_of("step")) == 100
    (row,) = run.rows_of("nap")
    # The tick rate of a run that ends by _exit is the one measured at its start, over 50 us
    # (FORMAT.md 1.1): within about 0.01 % (a 1.1 s nap read 1.09996 s once in CI)
    assert int(row["Ticks"]) / run.frequency >= float(nap) * 0.999


def test_flush_interval_0_writes_only_full_buffers(tmp_path):
    """PROFILER_FLUSH_INTERVAL=0 turns the time bound off: the same _exit leaves a part with
    no row."""
    folder = fresh_dir(tmp_path)
    run_program(tmp_path, "durable", "nap", "0.3", profile_dir=folder,
                env={"PROFILER_FLUSH_INTERVAL": "0"})
    assert recover(folder).rows == []


def test_malformed_flush_interval_warns_and_keeps_one_second(tmp_path):
    """A PROFILER_FLUSH_INTERVAL that is not a number of seconds is named in one warning, and
    the default of one second applies."""
    folder = fresh_dir(tmp_path)
    proc, _ = run_program(tmp_path, "durable", "nap", "1.1", profile_dir=folder,
                          env={"PROFILER_FLUSH_INTERVAL": "soon"})
    assert library_lines(proc.stderr) == [
        "profreport: PROFILER_FLUSH_INTERVAL='soon' is not a number of seconds; using 1 second"]
    assert len(recover(folder).rows) == 101


# ---- signal handlers ----


@pytest.mark.parametrize("variant", ["cold", "warm"])
def test_regions_in_a_signal_handler_never_deadlock_and_are_all_accounted(tmp_path, variant):
    """A SIGALRM handler records a region every 20 us while the main thread records 100000.
    "cold": the first signals land in the collector's start-up (which used to deadlock in
    pthread_once); "warm": they land while the thread writes its buffer (which used to lock
    the thread's mutex twice) or appends a record. The program ends (timeout), the run file
    is valid, every main region has its row, and every handler run is either a row or a
    dropped pair counted by the `signal` warning; the report's Warnings sheet shows it."""
    env = {"TSAN_OPTIONS": "report_signal_unsafe=0"} if "thread" in SAN else None
    # A sanitizer's handler can take longer than 20 us: signals would then starve the loop.
    interval = 100 if SAN else 20
    # Under ASan the loop is about 10 times slower too: 30000 iterations still take thousands
    # of signals (and keep make check's three builds within its time).
    loops = 30000 if "address" in SAN else scaled(100000)
    proc, run = run_once(tmp_path, "signals", variant, loops, interval, env=env,
                         timeout=30)
    m = re.fullmatch(rb"main (\d+) handled (\d+)\n", proc.stdout)
    assert m, proc.stdout
    iterations, handled = int(m[1]), int(m[2])
    assert handled > 0
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    assert run.value("Complete") == "yes"
    assert len(run.rows_of("main")) == iterations
    warnings = {w["kind"]: w for w in run.warnings}
    assert set(warnings) <= {"signal"}, warnings
    dropped = warnings["signal"]["count"] if warnings else 0
    assert dropped % 2 == 0  # a handler's start and stop are dropped together
    own = 1 if variant == "warm" else 0  # the region main records before the timer starts
    assert len(run.rows_of("handler")) - own + dropped // 2 == handled
    for r in run.rows_of("handler"):
        assert r["Parent"] in ("", "main") and r["Ticks"] != ""
    if not SAN:
        assert dropped > 0  # the handler did interrupt the collector
    if dropped and variant == "warm":
        report = tmp_path / "signals.xlsx"
        must_run(run.path, "-o", report, *templates_args())
        shown = [w for w in Book(report).warnings() if w["Kind"] == "signal"]
        assert [w["Count"] for w in shown] == [dropped]
