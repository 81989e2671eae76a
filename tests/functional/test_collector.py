"""test_collector.py - functional tests of the collector library (libprofreport).

Each test runs a program of tests/programs and checks the run file it leaves against
docs/FORMAT.md and include/profreport.h. Expected numbers come from the programs' known
structure (see the comment at the top of each program), never from a previous output.
"""

import datetime
import os
import re
import select
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import (
    BUILD,
    INCLUDE,
    PART_NAME,
    ROOT,
    RUN_NAME,
    SUMMARY_COLUMNS,
    event_paths,
    summary_paths,
    summary_regions,
    check_events_structure,
    check_metadata,
    clean_env,
    count_exits,
    fresh_dir,
    hist_bucket,
    hist_lower,
    library_lines,
    parse_histogram,
    parse_run,
    parse_run_text,
    program,
    read_chunks,
    replay_part,
    run_command,
    run_files,
    run_once,
    run_program,
    scaled,
)

WARN = ["-Wall", "-Wextra", "-Wstrict-prototypes", "-Wmissing-prototypes", "-Wshadow",
        "-Wwrite-strings", "-Werror"]


def seconds(ticks, run):
    return int(ticks) / run.frequency


def thread_record(run, number):
    (t,) = [t for t in run.threads if t["number"] == number]
    return t


# ---- 1. structure of the events table ----


def test_loop_of_1000_regions_gives_1000_rows_with_right_tree(tmp_path):
    """A loop of exactly 1000 regions gives 1000 rows; nested regions have the right Parent and
    Depth; Self is Ticks minus the direct children's Ticks; children lie inside their parent."""
    proc, run = run_once(tmp_path, "nested")
    check_metadata(run, pid=proc.pid)
    trees = check_events_structure(run)
    counts = {}
    for row in run.rows:
        counts[row["Region"]] = counts.get(row["Region"], 0) + 1
    assert counts == {"loop": 1000, "inner": 100, "sleep": 1, "outer": 1,
                      "d0": 1, "d1": 1, "d2": 1, "d3": 1}
    expected = {  # region: (Depth, Parent)
        "outer": (0, ""), "loop": (1, "outer"), "inner": (2, "loop"), "sleep": (1, "outer"),
        "d0": (0, ""), "d1": (1, "d0"), "d2": (2, "d1"), "d3": (3, "d2"),
    }
    for row in run.rows:
        assert (int(row["Depth"]), row["Parent"]) == expected[row["Region"]], row
        assert row["Thread"] == "1"
        assert row["Nested"] == "0"
        assert row["Ticks"] != ""
    # Iteration i of the loop holds an "inner" exactly when i % 10 == 0.
    loops = [children for row, children in trees[1] if row["Region"] == "loop"]
    assert [len(c) for c in loops] == [1 if i % 10 == 0 else 0 for i in range(1000)]
    (outer_children,) = [c for row, c in trees[1] if row["Region"] == "outer"]
    assert [c["Region"] for c in outer_children] == ["loop"] * 1000 + ["sleep"]
    # Rows are in the order instances ended: outer's subtree, then d3, d2, d1, d0.
    assert [r["Region"] for r in run.rows[-5:]] == ["outer", "d3", "d2", "d1", "d0"]
    starts = [int(r["Start"]) for r in run.rows_of("loop")]
    assert starts == sorted(starts)


def test_sleeping_region_ticks_give_plausible_seconds(tmp_path):
    """Ticks divided by Frequency give seconds: a region around a 20 ms nanosleep lasts between
    15 and 500 ms (generous bounds: not a performance assertion)."""
    _, run = run_once(tmp_path, "nested")
    (sleep,) = run.rows_of("sleep")
    assert 0.015 <= seconds(sleep["Ticks"], run) <= 0.5
    (outer,) = run.rows_of("outer")
    assert int(outer["Ticks"]) >= int(sleep["Ticks"])
    assert seconds(run.value("Duration"), run) >= seconds(sleep["Ticks"], run)


def test_metadata_describes_the_process(tmp_path):
    """Format is the second record; Program, Command, Pid, Host, Start, Clock, Duration,
    Complete, Threads and the main thread's record describe the run (FORMAT.md 1.2)."""
    before = datetime.datetime.now(datetime.timezone.utc)
    proc, run = run_once(tmp_path, "nested", "first-arg", "second")
    after = datetime.datetime.now(datetime.timezone.utc)
    check_metadata(run, pid=proc.pid)
    assert run.records[1] == ["Format", "profreport-run", "4"]
    exe = os.path.realpath(program("nested"))
    assert run.value("Program") == exe
    assert run.value("Command") == f"{program('nested')} first-arg second"
    assert run.value("ParentPid") is None
    assert run.value("Host") == socket.gethostname()
    start = datetime.datetime.strptime(run.value("Start"), "%Y-%m-%dT%H:%M:%S.%fZ").replace(
        tzinfo=datetime.timezone.utc)
    assert before - datetime.timedelta(seconds=1) <= start <= after
    assert run.value("Complete") == "yes"
    elapsed = (after - before).total_seconds()
    assert 0.02 <= seconds(run.value("Duration"), run) <= elapsed + 1
    assert run.threads == [{"number": 1, "tid": proc.pid, "name": "main", "state": "exited"}]
    assert run.warnings == []


# ---- 2. file naming ----


def test_output_folder_defaults_to_profiler_runs_and_is_created(tmp_path):
    """Without PROFILER_DIR the run file goes to ./profiler-runs; a PROFILER_DIR several levels
    deep that does not exist is created."""
    proc, _ = run_program(tmp_path, "nested", env={"PROFILER_DIR": None})
    files = os.listdir(tmp_path / "profiler-runs")
    assert len(files) == 1 and RUN_NAME.match(files[0]), files
    deep = tmp_path / "a" / "b" / "c"
    _, files = run_program(tmp_path, "nested", profile_dir=deep)
    assert len(files) == 1 and files[0].parent == deep


def test_five_runs_leave_five_named_run_files_and_no_temporaries(tmp_path):
    """Five runs into one folder leave exactly five files named
    profiling_YYYY.MM.DD_HH.MM.SS_<pid>_<token>.csv (local start time, the process's pid), and no
    .part or hidden .tmp file."""
    folder = fresh_dir(tmp_path)
    pids = []
    for _ in range(5):
        proc, _ = run_program(tmp_path, "nested", profile_dir=folder)
        pids.append(proc.pid)
    names = sorted(os.listdir(folder))
    assert len(names) == 5, names
    assert {int(RUN_NAME.match(n).group(7)) for n in names if RUN_NAME.match(n)} == set(pids)
    for name in names:
        m = RUN_NAME.match(name)
        assert m and m.group(8) is None, name
        run = parse_run(folder / name)
        assert run.value("Pid") == m.group(7)
        # The name's local time is the Start record's UTC time, to the second.
        start = datetime.datetime.strptime(run.value("Start"), "%Y-%m-%dT%H:%M:%S.%fZ")
        local = start.replace(tzinfo=datetime.timezone.utc).astimezone()
        assert name[len("profiling_"):len("profiling_YYYY.MM.DD_HH.MM.SS")] == local.strftime(
            "%Y.%m.%d_%H.%M.%S")


# ---- 3. threads ----


def read_tids(path):
    """The tid file of tests/programs/threads.c: {name: tid}."""
    tids = {}
    for line in Path(path).read_text().splitlines():
        _, name, tid = line.split()
        tids[name] = int(tid)
    return tids


def test_named_threads_get_records_numbers_and_their_rows(tmp_path):
    """N named worker threads: one Thread record each with its name (set before or after
    recording), a distinct number (main, which records first, is 1), its kernel tid and state
    exited once joined; each thread's rows carry its number."""
    n, k = 8, 100
    tidfile = tmp_path / "tids"
    proc, run = run_once(tmp_path, "threads", n, k, tidfile)
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    tids = read_tids(tidfile)
    threads = run.threads
    assert len(threads) == n + 1
    assert sorted(t["number"] for t in threads) == list(range(1, n + 2))
    main = thread_record(run, 1)
    assert main["name"] == "main" and main["tid"] == proc.pid
    assert main["state"] == "exited"
    workers = [t for t in threads if t["number"] != 1]
    assert sorted(t["name"] for t in workers) == sorted(f"worker-{i}" for i in range(1, n + 1))
    assert len({t["tid"] for t in threads}) == n + 1
    for t in workers:
        assert t["tid"] == tids[t["name"]], t
        assert t["state"] == "exited", t
        rows = [r for r in run.rows if r["Thread"] == str(t["number"])]
        assert [r["Region"] for r in rows] == ["work"] * k
    main_rows = [r["Region"] for r in run.rows if r["Thread"] == "1"]
    assert main_rows == ["main-setup", "main-after"]
    # Start counts from the run's start on every thread: the workers ran after main-setup
    # ended and before main-after began.
    (setup,) = run.rows_of("main-setup")
    (after,) = run.rows_of("main-after")
    for r in run.rows_of("work"):
        assert int(setup["Start"]) + int(setup["Ticks"]) <= int(r["Start"])
        assert int(r["Start"]) + int(r["Ticks"]) <= int(after["Start"])


def test_64_threads_at_once_lose_no_row(tmp_path):
    """64 threads recording K regions each at the same time give exactly 64 * K rows (K per
    thread) and 65 Thread records (the main thread records too)."""
    n, k = 64, scaled(2000)
    proc, run = run_once(tmp_path, "threads", n, k)
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    assert len(run.rows_of("work")) == n * k
    assert len(run.threads) == n + 1
    per_thread = {}
    for r in run.rows_of("work"):
        per_thread[r["Thread"]] = per_thread.get(r["Thread"], 0) + 1
    assert sorted(per_thread.values()) == [k] * n
    assert "1" not in per_thread
    assert all(t["state"] == "exited" for t in run.threads)
    assert os.listdir(run.path.parent) == [run.path.name], "part files left behind"


def test_thread_still_running_at_exit_is_marked_running_in_summary_mode(tmp_path):
    """Summary mode: a thread still running at exit has state running, its finished regions
    counted and its open region reported as unterminated (a path with no call yet)."""
    proc, run = run_once(tmp_path, "running", env={"PROFILER_MODE": "summary"})
    check_metadata(run, pid=proc.pid)
    (lingerer,) = [t for t in run.threads if t["name"] == "lingerer"]
    assert lingerer["state"] == "running"
    got = sorted((r["Region"], int(r["Thread"]), int(r["Calls"])) for r in run.rows)
    assert got == [("main-work", 1, 1), ("open-at-exit", lingerer["number"], 0),
                   ("tick", lingerer["number"], 10)]
    assert [(w["kind"], w["thread"], w["count"]) for w in run.warnings] == [
        ("unterminated", lingerer["number"], 1)]


def test_thread_still_running_at_exit_is_marked_running(tmp_path):
    """A thread still running when the run file is written has state running, its rows up to
    that moment, and its open region as never stopped (empty Ticks, unterminated warning)."""
    proc, run = run_once(tmp_path, "running")
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    (lingerer,) = [t for t in run.threads if t["name"] == "lingerer"]
    assert lingerer["state"] == "running"
    assert thread_record(run, 1)["state"] == "exited"
    rows = [r for r in run.rows if r["Thread"] == str(lingerer["number"])]
    assert [r["Region"] for r in rows] == ["tick"] * 10 + ["open-at-exit"]
    assert rows[-1]["Ticks"] == "" and rows[-1]["Self"] == ""
    (warning,) = run.warnings
    assert (warning["kind"], warning["thread"], warning["count"]) == (
        "unterminated", lingerer["number"], 1)
    assert "open-at-exit" in warning["message"]


# ---- 4. thread exit ----


def test_thread_rows_are_written_when_the_thread_exits(tmp_path):
    """A thread that records less than a buffer and exits before main records anything has all
    its rows in the run file; main, which recorded nothing, and a thread that only named itself
    have no Thread record."""
    proc, run = run_once(tmp_path, "thread_exit")
    check_metadata(run, pid=proc.pid)
    trees = check_events_structure(run)
    assert [(t["number"], t["name"], t["state"]) for t in run.threads] == [
        (1, "short-lived", "exited")]
    assert len(run.rows_of("tw")) == 3000 and len(run.rows_of("tw-child")) == 1000
    tw = [children for row, children in trees[1] if row["Region"] == "tw"]
    assert [len(c) for c in tw] == [1 if i % 3 == 0 else 0 for i in range(3000)]


def test_thread_part_is_complete_when_process_ends_with__exit(tmp_path):
    """When main calls _exit after joining a thread, no run file is written, but the thread's
    part already holds all its rows and a clean end: recovering it gives every row, state
    exited and (every part having ended cleanly) Complete,yes."""
    folder = fresh_dir(tmp_path)
    proc, files = run_program(tmp_path, "thread_exit", "_exit", profile_dir=folder)
    assert files == []
    parts = sorted(folder.iterdir())
    assert len(parts) == 1 and PART_NAME.match(parts[0].name), parts
    chunks, end = read_chunks(parts[0].read_bytes())
    assert end == parts[0].stat().st_size
    assert chunks[0][1] == "PRFH" and chunks[-1][1] == "PRFZ"
    rec = run_command([program("recover"), parts[0]])
    assert rec.returncode == 0, rec.stderr
    run = parse_run_text(rec.stdout.decode())
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    assert [(t["name"], t["state"]) for t in run.threads] == [("short-lived", "exited")]
    assert len(run.rows_of("tw")) == 3000 and len(run.rows_of("tw-child")) == 1000
    assert all(r["Ticks"] != "" for r in run.rows)
    assert run.value("Complete") == "yes"


# ---- 5. fork ----


def test_fork_child_writes_its_own_run_file(tmp_path):
    """After fork, parent and child each write a run file named with their pid. The child's
    has ParentPid, only its own regions plus those open at the fork (which start at the
    child's start); the parent's has all the parent's rows and none of the child's."""
    proc, files = run_program(tmp_path, "forker")
    assert proc.stdout == b"forker: start\nforker: child exited with 0\n"
    assert len(files) == 2, [f.name for f in files]
    runs = [parse_run(f) for f in files]
    (parent,) = [r for r in runs if r.value("Pid") == str(proc.pid)]
    (child,) = [r for r in runs if r.value("Pid") != str(proc.pid)]
    for run in runs:
        check_metadata(run)
        check_events_structure(run)
        assert RUN_NAME.match(run.path.name).group(7) == run.value("Pid")
        assert run.value("Complete") == "yes"
        assert run.warnings == []
    assert parent.value("ParentPid") is None
    assert child.value("ParentPid") == str(proc.pid)

    def shape(run):
        return [(r["Region"], int(r["Depth"]), r["Parent"]) for r in run.rows]

    assert shape(parent) == [("before", 0, ""), ("held", 1, "outer"), ("outer", 0, ""),
                             ("after", 0, "")]
    assert shape(child) == [("child-work", 2, "held")] * 3 + [
        ("held", 1, "outer"), ("outer", 0, ""), ("child-after", 0, "")]
    for region in ("held", "outer"):
        (row,) = child.rows_of(region)
        assert row["Start"] == "0", row
    (t,) = child.threads
    assert t["tid"] == int(child.value("Pid")) and t["number"] == 1 and t["state"] == "exited"


def test_fork_in_a_threaded_process_keeps_each_thread_in_its_process(tmp_path):
    """Fork while another thread records: the child's run file has only the forking thread
    (the other thread does not exist in the child); the parent's has both threads' rows."""
    proc, files = run_program(tmp_path, "forker", "threaded")
    assert proc.stdout == b"forker: start\nforker: child exited with 0\n", proc.stderr.decode()
    assert len(files) == 2, [f.name for f in files]
    runs = [parse_run(f) for f in files]
    (parent,) = [r for r in runs if r.value("Pid") == str(proc.pid)]
    (child,) = [r for r in runs if r.value("Pid") != str(proc.pid)]
    for run in runs:
        check_metadata(run)
        check_events_structure(run)
    assert child.value("ParentPid") == str(proc.pid)
    assert [(t["number"], t["tid"]) for t in child.threads] == [(1, int(child.value("Pid")))]
    assert [r["Region"] for r in child.rows] == ["child-work"] * 3 + [
        "held", "outer", "child-after"]
    (bystander,) = [t for t in parent.threads if t["name"] == "bystander"]
    assert len(parent.threads) == 2
    by_thread = {}
    for r in parent.rows:
        by_thread.setdefault(int(r["Thread"]), []).append(r["Region"])
    assert by_thread == {bystander["number"]: ["worker-before", "worker-after"],
                         3 - bystander["number"]: ["before", "held", "outer", "after"]}


def test_fork_child_that_records_nothing_leaves_the_parent_file_alone(tmp_path):
    """A fork child that records nothing and exits after the parent must not replace or
    damage the parent's run file: the file named with the parent's pid keeps the parent's
    rows, and any file the child writes carries its own pid."""
    proc, files = run_program(tmp_path, "forker", "quiet-child")
    names = [f.name for f in files]
    parent_files = [f for f in files if RUN_NAME.match(f.name).group(7) == str(proc.pid)]
    assert len(parent_files) == 1, names
    parent = parse_run(parent_files[0])
    assert [r["Region"] for r in parent.rows] == ["before", "held", "outer", "after"]
    check_metadata(parent, pid=proc.pid)
    for f in files:
        if f not in parent_files:
            other = parse_run(f)
            assert other.value("Pid") == RUN_NAME.match(f.name).group(7) != str(proc.pid)


# ---- 6. unwritable output folder ----


@pytest.mark.parametrize("where", ["under-a-file", "is-a-file"])
@pytest.mark.parametrize("prog,args", [("nested", []), ("threads", [8, 100])])
def test_unusable_output_folder_gives_one_warning_and_changes_nothing_else(tmp_path, where,
                                                                          prog, args):
    """With PROFILER_DIR unusable (a path under a regular file, or a regular file: tests run as
    root, so permissions would not stop them), stderr holds exactly one line, starting with
    'profreport:', and stdout and exit status are those of a run with profiling disabled."""
    afile = tmp_path / "afile"
    afile.write_text("not a folder\n")
    folder = afile / "sub" if where == "under-a-file" else afile
    off = run_command([program(prog), *args], env=clean_env({"PROFILER_ENABLE": "0"}),
                      cwd=tmp_path)
    on = run_command([program(prog), *args], env=clean_env({"PROFILER_DIR": folder}),
                     cwd=tmp_path)
    lines = on.stderr.decode(errors="replace").splitlines()
    assert len(lines) == 1 and lines[0].startswith("profreport:"), lines
    assert on.stdout == off.stdout
    assert on.returncode == off.returncode == 0
    assert sorted(os.listdir(tmp_path)) == ["afile"]
    assert afile.read_text() == "not a folder\n"


# ---- 7. killed runs and prof_recover ----


def kill_when_ready(tmp_path, *args):
    """Run killme until it says ready, SIGKILL it; return (pid, folder)."""
    folder = fresh_dir(tmp_path)
    with subprocess.Popen([str(program("killme")), *map(str, args)],
                          env=clean_env({"PROFILER_DIR": folder}),
                          cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        ready, _, _ = select.select([p.stdout], [], [], 60)
        line = p.stdout.readline() if ready else b"(no output in 60 s)"
        if line != b"ready\n":
            p.kill()
            pytest.fail(f"killme did not get ready: {line!r} {p.stderr.read()!r}")
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        assert p.returncode == -signal.SIGKILL
        return p.pid, folder


def recover(*paths):
    return run_command([program("recover"), *paths])


def check_recovered_killme(run, pid, chunks):
    """A run recovered from (a cut copy of) killme's part, whose whole chunks are chunks:
    incomplete, with exactly the rows a replay of those chunks' event words gives: one
    stopped "k" per exit word, and "outer" (plus a "k" whose end was lost) never stopped."""
    check_metadata(run, pid=pid)
    check_events_structure(run)
    assert run.value("Complete") == "no"
    assert run.threads == [{"number": 1, "tid": pid, "name": "main", "state": "incomplete"}]
    expected = replay_part(chunks)
    assert run.rows == expected
    stopped = [r for r in run.rows if r["Ticks"] != ""]
    assert len(stopped) == count_exits(chunks)
    assert {(r["Region"], r["Depth"], r["Parent"]) for r in stopped} == {("k", "1", "outer")}
    (outer,) = run.rows_of("outer")
    assert outer["Ticks"] == "" and outer["Depth"] == "0"
    open_regions = [r["Region"] for r in run.rows if r["Ticks"] == ""]
    kinds = {w["kind"]: w for w in run.warnings}
    assert kinds["incomplete"]["thread"] == 1
    assert kinds["unterminated"]["count"] == len(open_regions)
    assert "outer" in kinds["unterminated"]["message"]


def test_killed_run_leaves_parts_that_recover_as_incomplete(tmp_path):
    """A run killed with SIGKILL after filling two buffers leaves its .part file (no run file);
    prof_recover turns it into a run file with Complete,no, state incomplete, and every
    instance whose end was written (counted from the part's own event words)."""
    pid, folder = kill_when_ready(tmp_path)
    names = os.listdir(folder)
    assert not [n for n in names if n.endswith(".csv")], names
    parts = [folder / n for n in names if PART_NAME.match(n)]
    assert len(parts) == 1 and len(names) == 1, names
    assert f"_{pid}_" in parts[0].name and parts[0].name.endswith(".1.part")
    data = parts[0].read_bytes()
    chunks, end = read_chunks(data)
    assert end == len(data), "a run killed while sleeping has only whole chunks"
    assert chunks[0][1] == "PRFH" and "PRFZ" not in [c[1] for c in chunks]
    exits = count_exits(chunks)
    assert 40000 <= exits <= 50000  # two full buffers at least: 3 words per region
    rec = recover(parts[0])
    assert rec.returncode == 0, rec.stderr
    assert rec.stderr == b""
    check_recovered_killme(parse_run_text(rec.stdout.decode()), pid, chunks)


def test_recover_merges_the_parts_of_many_threads_in_thread_order(tmp_path):
    """A killed run with 11 threads (main, killed, and 10 workers that ended) leaves 11 parts;
    prof_recover given them in the order a shell glob lists them (.1, .10, .11, .2, ...) writes
    the threads in thread order: the workers exited with all their rows, main is incomplete."""
    pid, folder = kill_when_ready(tmp_path, 10)
    parts = sorted(folder.iterdir(), key=lambda p: p.name)
    assert len(parts) == 11 and all(PART_NAME.match(p.name) for p in parts), parts
    rec = recover(*parts)
    assert rec.returncode == 0, rec.stderr
    run = parse_run_text(rec.stdout.decode())
    check_metadata(run, pid=pid)
    assert run.value("Complete") == "no"
    assert [t["number"] for t in run.threads] == list(range(1, 12))
    states = {t["number"]: t["state"] for t in run.threads}
    assert states == {1: "incomplete", **{n: "exited" for n in range(2, 12)}}
    check_events_structure(run)
    for n in range(2, 12):
        rows = [r["Region"] for r in run.rows if r["Thread"] == str(n)]
        assert rows == ["w"] * 100, n


@pytest.mark.parametrize("cut", ["mid-payload", "mid-chunk-header", "after-first-chunk"])
def test_recover_reads_a_part_cut_inside_a_chunk(tmp_path, cut):
    """prof_recover on a copy of a part cut in the middle of a chunk (payload or header) keeps
    every whole chunk before the cut and ignores the rest."""
    pid, folder = kill_when_ready(tmp_path)
    (part,) = list(folder.iterdir())
    data = part.read_bytes()
    chunks, _ = read_chunks(data)
    events = [i for i, c in enumerate(chunks) if c[1] == "PRFE"]
    if cut == "after-first-chunk":
        index = 1
        at = chunks[1][0] + 3
    else:
        index = events[-1]
        offset, _, payload = chunks[index]
        at = offset + 8 + len(payload) // 2 + 2 if cut == "mid-payload" else offset + 5
    copy = tmp_path / part.name
    copy.write_bytes(data[:at])
    rec = recover(copy)
    assert rec.returncode == 0, rec.stderr
    run = parse_run_text(rec.stdout.decode())
    if cut == "after-first-chunk":
        check_metadata(run, pid=pid)
        assert run.value("Complete") == "no"
        assert run.rows == []
        assert [t["state"] for t in run.threads] == ["incomplete"]
    else:
        check_recovered_killme(run, pid, chunks[:index])


@pytest.mark.parametrize("content", [b"this is not a part file\n" * 10, b"", None,
                                     b"PRFH\x04\x00\x00\x00abcd"])
def test_recover_refuses_what_is_not_a_part(tmp_path, content):
    """prof_recover on garbage, an empty file, a missing file or a header chunk without the
    part format returns an error: the program prints prof_strerror on stderr, exits nonzero and
    writes nothing on stdout."""
    path = tmp_path / "garbage.1.part"
    if content is not None:
        path.write_bytes(content)
    rec = recover(path)
    assert rec.returncode == 1
    assert rec.stdout == b""
    err = rec.stderr.decode()
    assert err.startswith("recover: ") and len(err.splitlines()) == 1, err


# ---- 8. CSV quoting ----

ODD_IDS = [
    "comma, inside", 'quote "q" and ""', "line\nbreak", "cr\r\nlf", "caf\u00e9 \u2603",
    '"', ",", " padded ", "plain",
]
ODD_NAME = '"quoted", with comma ' + "abcdefghijklmnopqrstuvwxyz" * 3


def test_region_ids_and_thread_names_round_trip_through_csv(tmp_path):
    """Region ids with commas, double quotes, CR/LF and UTF-8 come back exactly from the csv
    module, as Region and as Parent, and bytes that are not UTF-8 come back byte for byte; a
    thread name with a comma and quotes too, cut to its first 63 bytes."""
    _, run = run_once(tmp_path, "names")
    check_events_structure(run)
    n = len(ODD_IDS)
    chain = [("leaf", n, ODD_IDS[-1])] + [
        (ODD_IDS[i], i, ODD_IDS[i - 1] if i else "") for i in reversed(range(n))]
    flat = [(i, 0, "") for i in ODD_IDS]
    invalid = [("bad \udcff\udcfe utf8", 0, "")]  # bytes ff fe, as surrogateescape reads them
    assert [(r["Region"], int(r["Depth"]), r["Parent"]) for r in run.rows] == (
        chain + flat + invalid)
    assert run.threads[0]["name"] == ODD_NAME[:63]


# ---- 9. mistakes: unterminated regions and stray stops ----


@pytest.mark.parametrize("variant,open_regions", [("one", ["never-stopped"]),
                                                  ("nested", ["also-open", "never-stopped"]),
                                                  ("finish", ["never-stopped"])])
def test_unterminated_regions_and_stray_stops_are_reported(tmp_path, variant, open_regions):
    """A region never stopped (at exit, or at PROFILER_FINISH) has a row with empty Ticks and
    Self and a Warning,unterminated naming it; three stops with nothing open give
    Warning,stray-stop with count 3; the program still exits 0 and the library prints nothing."""
    proc, run = run_once(tmp_path, "unterminated", variant)
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    assert proc.stderr == b""
    message = f"unterminated: exiting with {len(open_regions)} region(s) open\n"
    assert proc.stdout == message.encode()
    assert [r["Region"] for r in run.rows] == ["done"] + open_regions
    for row in run.rows[1:]:
        assert row["Ticks"] == "" and row["Self"] == "", row
    if variant == "nested":
        assert (run.rows[1]["Depth"], run.rows[1]["Parent"]) == ("1", "never-stopped")
    warnings = {w["kind"]: w for w in run.warnings}
    assert sorted(warnings) == ["stray-stop", "unterminated"], run.warnings
    assert (warnings["stray-stop"]["thread"], warnings["stray-stop"]["count"]) == (1, 3)
    un = warnings["unterminated"]
    assert (un["thread"], un["count"]) == (1, len(open_regions))
    for region in open_regions:
        assert region in un["message"]
    assert run.value("Complete") == "yes"


def test_unterminated_regions_and_stray_stops_are_reported_in_summary_mode(tmp_path):
    """In summary mode the same mistakes give the same warnings and counts, and the finished
    region its row; the regions never stopped are paths with no call."""
    proc, run = run_once(tmp_path, "unterminated", "nested", env={"PROFILER_MODE": "summary"})
    check_metadata(run, pid=proc.pid)
    assert run.header == SUMMARY_COLUMNS
    paths = {path: r["Calls"] for (_, path), r in summary_paths(run.rows).items()}
    assert paths == {("done",): "1", ("never-stopped",): "0",
                     ("never-stopped", "also-open"): "0"}
    warnings = {w["kind"]: (w["thread"], w["count"]) for w in run.warnings}
    assert warnings == {"stray-stop": (1, 3), "unterminated": (1, 2)}


def test_scopes_that_do_not_match_close_only_their_own_regions(tmp_path):
    """A C scope whose region was stopped by hand stops nothing at its end (not the enclosing
    region, not another region opened at the same depth since); a scope with a region left
    open inside it stops that region and its own. Each case counts one scope-mismatch."""
    _, run = run_once(tmp_path, "mismatch")
    check_events_structure(run)
    assert [(r["Region"], r["Depth"], r["Parent"]) for r in run.rows] == [
        ("scoped", "1", "outer"), ("outer", "0", ""),
        ("left-open", "1", "scope2"), ("scope2", "0", ""),
        ("scope3", "0", ""), ("after-block", "1", "other"), ("other", "0", "")]
    assert all(r["Ticks"] != "" for r in run.rows)
    assert [(w["kind"], w["thread"], w["count"]) for w in run.warnings] == [
        ("scope-mismatch", 1, 3)]


def test_chdir_while_recording_keeps_files_in_the_first_folder(tmp_path):
    """A relative PROFILER_DIR names a folder of the starting working folder: after the program
    changes folder, a new thread's part and the run file still go there."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    proc, _ = run_program(tmp_path, "chdir", elsewhere, profile_dir="runs")
    files = run_files(tmp_path / "runs")
    assert len(files) == 1, os.listdir(tmp_path)
    run = parse_run(files[0])
    check_metadata(run, pid=proc.pid)
    assert sorted(r["Region"] for r in run.rows) == ["after-chdir", "before-chdir", "worker"]
    assert os.listdir(elsewhere) == []
    assert os.listdir(tmp_path / "runs") == [files[0].name]


# ---- 10. profiling turned off ----


def test_profiler_enable_0_creates_no_file_or_folder(tmp_path):
    """With PROFILER_ENABLE=0 nothing is written: the output folder (PROFILER_DIR or the
    default ./profiler-runs) is not even created."""
    folder = fresh_dir(tmp_path)
    proc, files = run_program(tmp_path, "nested", env={"PROFILER_ENABLE": "0"},
                              profile_dir=folder)
    assert proc.stdout == b"nested: done\n" and proc.stderr == b""
    assert not folder.exists()
    proc, files = run_program(tmp_path, "threads", 4, 10, env={"PROFILER_ENABLE": "0",
                                                               "PROFILER_DIR": None})
    assert os.listdir(tmp_path) == []


def test_profiler_disable_evaluates_no_argument_and_links_nothing(tmp_path):
    """Built normally, the side-effect arguments run (4 times) and a run file appears; built
    with -DPROFILER_DISABLE and without the library, no argument is evaluated, no prof_
    symbol is referenced and no file or folder is created."""
    proc, run = run_once(tmp_path, "disabled")
    assert proc.stdout == b"disabled: 4 argument evaluations\n"
    assert [(r["Region"], r["Depth"]) for r in run.rows] == [("side-effect", "1"),
                                                            ("side-effect", "0")]
    assert run.threads[0]["name"] == "side-effect"

    exe = tmp_path / "disabled_off"
    cc = os.environ.get("CC", "cc")
    build = subprocess.run([cc, "-std=gnu11", *WARN, "-O2", "-DPROFILER_DISABLE", f"-I{INCLUDE}",
                            ROOT / "tests/programs/disabled.c", "-o", exe],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    symbols = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    assert not re.search(r"\bprof_", symbols), symbols
    work = tmp_path / "work"
    work.mkdir()
    folder = tmp_path / "out"
    off = run_command([exe], env=clean_env({"PROFILER_DIR": folder}), cwd=work)
    assert off.returncode == 0 and off.stderr == b""
    assert off.stdout == b"disabled: 0 argument evaluations\n"
    assert not folder.exists() and os.listdir(work) == []


# ---- 11. summary mode ----


def check_summary_row(row):
    """The rules of FORMAT.md 1.4 that hold for any summary row; returns its numbers."""
    calls, ticks, mn, mx = (int(row[k]) for k in ("Calls", "Ticks", "Min", "Max"))
    sumsq = float(row["SumSquares"])
    assert calls > 0
    assert mn * calls <= ticks <= mx * calls, row
    assert 0 <= int(row["Self"]) <= ticks
    assert 0 <= int(row["Outer"]) <= ticks
    # Cauchy-Schwarz, with a little room for the double's rounding.
    assert sumsq >= ticks * ticks / calls * (1 - 1e-9), row
    assert calls * mn * mn * (1 - 1e-9) <= sumsq <= calls * mx * mx * (1 + 1e-9), row
    hist = parse_histogram(row["Histogram"])
    assert all(n > 0 for n in hist.values())
    assert sum(hist.values()) == calls
    assert min(hist) == hist_bucket(mn) and max(hist) == hist_bucket(mx), row
    # Ticks is the sum of the instances: between the sum of their buckets' bounds.
    low = sum(n * hist_lower(b) for b, n in hist.items())
    high = sum(n * (hist_lower(b + 1) - 1) for b, n in hist.items())
    assert low <= ticks <= high, row
    return calls, ticks


def test_summary_mode_gives_one_row_per_path_with_exact_counts(tmp_path):
    """PROFILER_MODE=summary: one row per (thread, calling context); Calls exact; Min <= mean <=
    Max; histogram counts add up to Calls, with Min's and Max's buckets at its ends; Self adds
    up like the call tree; Outer counts only outermost calls of a recursive region."""
    proc, run = run_once(tmp_path, "summary", env={"PROFILER_MODE": "summary"})
    check_metadata(run, pid=proc.pid)
    assert run.value("Mode") == "summary" and run.header == SUMMARY_COLUMNS
    paths = summary_paths(run.rows)
    assert {path: int(r["Calls"]) for (_, path), r in paths.items()} == {
        ("loop",): 1, ("loop", "step"): 300, ("loop", "step", "inner"): 100,
        ("rec",): 20, ("rec",) * 2: 20, ("rec",) * 3: 20, ("rec",) * 4: 20, ("rec",) * 5: 20}
    assert all(r["Thread"] == "1" for r in run.rows)
    for row in run.rows:
        check_summary_row(row)
    # Only the outermost rec path counts in Outer; inner ones are inside an instance of rec.
    assert [int(paths[("1", ("rec",) * k)]["Outer"]) == 0 for k in range(1, 6)] == [
        False, True, True, True, True]
    rows = summary_regions(run.rows)
    assert {k[1]: r["Calls"] for k, r in rows.items()} == {
        "loop": 1, "step": 300, "inner": 100, "rec": 100}
    num = {k[1]: r for k, r in rows.items()}
    # Children: loop > step > inner; each self is the ticks minus the direct children's.
    assert num["loop"]["Self"] == num["loop"]["Ticks"] - num["step"]["Ticks"]
    assert num["step"]["Self"] == num["step"]["Ticks"] - num["inner"]["Ticks"]
    assert num["inner"]["Self"] == num["inner"]["Ticks"]
    for region in ("loop", "step", "inner"):
        assert num[region]["Outer"] == num[region]["Ticks"]
    assert num["loop"]["Min"] == num["loop"]["Max"] == num["loop"]["Ticks"]
    # rec: 20 chains of 5 nested calls. The self times of a chain add up to its outermost
    # call's ticks, so Self == Outer; an outer call is the longest of its chain, so
    # Outer >= Ticks / 5; and the innermost call does the work, so Outer is far below Ticks.
    rec = num["rec"]
    assert rec["Self"] == rec["Outer"]
    assert rec["Ticks"] <= 5 * rec["Outer"]
    assert rec["Outer"] < rec["Ticks"] / 2


def test_summary_mode_counts_every_thread_separately(tmp_path):
    """Summary mode with 16 threads at once: one "work" row per thread, each with Calls == K."""
    n, k = 16, scaled(5000)
    proc, run = run_once(tmp_path, "threads", n, k, env={"PROFILER_MODE": "summary"})
    check_metadata(run, pid=proc.pid)
    summary_paths(run.rows)  # the tree rules, per thread
    keys = [(r["Region"], r["Thread"]) for r in run.rows]
    assert len(keys) == len(set(keys)), "more than one row for a (region, thread)"
    work = run.rows_of("work")
    assert sorted(r["Thread"] for r in work) == sorted(str(i) for i in range(2, n + 2))
    assert all(r["Calls"] == str(k) for r in work)
    for row in run.rows:
        check_summary_row(row)
    main_rows = sorted((r["Region"], r["Calls"]) for r in run.rows if r["Thread"] == "1")
    assert main_rows == [("main-after", "1"), ("main-setup", "1")]
    assert len(run.threads) == n + 1


# ---- 12. recursion in events mode ----


def expected_recursion_rows():
    """The rows of tests/programs/recursion.c: (Region, Depth, Parent, Nested) in end order."""
    stack, rows = [], []

    def enter(region):
        stack.append(region)

    def leave():
        region = stack.pop()
        rows.append((region, len(stack), stack[-1] if stack else "", int(region in stack)))

    def rec(n):
        enter("rec")
        if n:
            if n % 2 == 1:
                enter("mid")
                rec(n - 1)
                leave()
            else:
                rec(n - 1)
        leave()

    enter("top")
    for _ in range(3):
        rec(5)
    leave()
    enter("early")
    leave()
    enter("early")
    enter("late")
    leave()
    leave()
    return rows


def test_recursion_sets_nested_only_for_inner_calls(tmp_path):
    """A recursive PROFILER_SCOPE region: Nested is 1 exactly for the calls inside another
    call of the same region (also through another region), and C scopes left by an early
    return are closed."""
    _, run = run_once(tmp_path, "recursion")
    check_events_structure(run)
    got = [(r["Region"], int(r["Depth"]), r["Parent"], int(r["Nested"])) for r in run.rows]
    expected = expected_recursion_rows()
    assert got == expected
    assert sum(1 for r in got if r[0] == "rec" and r[3] == 0) == 3
    assert sum(1 for r in got if r[0] == "rec" and r[3] == 1) == 15
    assert run.warnings == []


# ---- 13. two runs in one process ----


@pytest.mark.parametrize("same_folder", [False, True])
def test_init_after_finish_starts_a_second_run_file(tmp_path, same_folder):
    """prof_init, regions, prof_finish, then PROFILER_INIT, regions, PROFILER_FINISH: two run
    files, the second named with a -2 suffix, each with its own rows; nothing is recorded
    between a finish and the next init."""
    dir1 = tmp_path / "one"
    dir2 = dir1 if same_folder else tmp_path / "two"
    env_dir = tmp_path / "from-env"
    proc, _ = run_program(tmp_path, "reinit", dir1, dir2, profile_dir=env_dir)
    assert proc.stdout == b"reinit: done\n"
    assert proc.stderr == b"reinit: codes 0 0 0\n"
    assert not env_dir.exists(), "prof_init(dir) must use dir, not $PROFILER_DIR"
    files = run_files(dir1) + ([] if same_folder else run_files(dir2))
    assert len(files) == 2, files
    (first,) = [f for f in files if f.parent == dir1 and RUN_NAME.match(f.name).group(8) is None]
    (second,) = [f for f in files if f.parent == dir2 and RUN_NAME.match(f.name).group(8) == "2"]
    assert RUN_NAME.match(first.name).group(7) == RUN_NAME.match(second.name).group(7) == str(
        proc.pid)
    # One process image: the same pid and token, the second run with -2.
    token = first.name[:-len(".csv")].rsplit("_", 1)[1]
    assert second.name.endswith(f"_{proc.pid}_{token}-2.csv")
    for path, region, count in ((first, "first", 3), (second, "second", 4)):
        run = parse_run(path)
        check_metadata(run, pid=proc.pid)
        check_events_structure(run)
        assert [r["Region"] for r in run.rows] == [region] * count
        assert run.value("Complete") == "yes"
    for folder in {dir1, dir2}:
        assert sorted(os.listdir(folder)) == sorted(f.name for f in files if f.parent == folder)


def test_init_while_recording_fails_and_keeps_the_run(tmp_path):
    """prof_init while a run is recording returns PROF_ERR_STATE and changes nothing: the
    first run keeps all its rows in its own folder."""
    dir1, dir2 = tmp_path / "one", tmp_path / "two"
    proc, _ = run_program(tmp_path, "reinit", dir1, dir2, "--init-twice")
    codes = [l for l in proc.stderr.decode().splitlines() if l.startswith("reinit:")]
    assert codes == ["reinit: codes 0 0 0 4"]
    (first,) = run_files(dir1)
    assert [r["Region"] for r in parse_run(first).rows] == ["first"] * 3
    (second,) = run_files(dir2)
    assert [r["Region"] for r in parse_run(second).rows] == ["second"] * 4


def test_init_with_profiling_disabled_returns_disabled(tmp_path):
    """With PROFILER_ENABLE=0, prof_init returns PROF_ERR_DISABLED and creates no folder;
    prof_finish returns PROF_OK, twice."""
    dir1, dir2 = tmp_path / "one", tmp_path / "two"
    proc, _ = run_program(tmp_path, "reinit", dir1, dir2, env={"PROFILER_ENABLE": "0"})
    assert proc.stderr == b"reinit: codes 3 0 0\n"
    assert os.listdir(tmp_path) == []


# ---- 14. C++ scopes and exceptions ----


def test_cxx_scopes_close_through_exceptions(tmp_path):
    """PROFILER_SCOPE in C++ closes its region in the destructor, also when an exception is
    thrown three frames down and caught above: every region stops, depths are right, and no
    warning is written."""
    proc, run = run_once(tmp_path, "scope_cxx")
    assert proc.stdout == b"scope_cxx: caught 2\n"
    check_events_structure(run)
    assert run.warnings == []
    expected = []
    for i in range(4):
        if i % 2 == 0:
            expected.append(("level3-tail", 5, "level3"))
        expected += [("level3", 4, "level2"), ("level2", 3, "level1"), ("level1", 2, "try"),
                     ("try", 1, "main"), ("after-catch", 1, "main")]
    expected.append(("main", 0, ""))
    assert [(r["Region"], int(r["Depth"]), r["Parent"]) for r in run.rows] == expected
    assert all(r["Ticks"] != "" for r in run.rows)


# ---- 15. exported symbols ----


def test_shared_library_exports_only_prof_names(tmp_path):
    """The shared library's dynamic symbol table defines only prof_ names (and the linker's
    own symbols), and every function of the public header among them."""
    nm = subprocess.run(["nm", "-D", "--defined-only", BUILD / "libprofreport.so"],
                        capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1].split("@")[0] for line in nm.splitlines() if line.strip()}
    linker = {"_init", "_fini", "_edata", "_end", "__bss_start"}
    assert sorted(n for n in names - linker if not n.startswith("prof_")) == []
    header = (INCLUDE / "profreport.h").read_text()
    api = set(re.findall(r"PROF_API [^;(]*?\b(prof_\w+)\(", header))
    assert len(api) >= 10 and api <= names, api - names


def test_auto_library_exports_only_its_hooks_and_wrappers_besides_prof_names(tmp_path):
    """libprofreport-auto adds the hooks the compilers call and the two libc functions it
    wraps (dlclose, pthread_create), nothing else: not the linker's bounds of its hooks'
    section, which a program's own symbols could collide with (collector/auto.map)."""
    nm = subprocess.run(["nm", "-D", "--defined-only", BUILD / "libprofreport-auto.so"],
                        capture_output=True, text=True, check=True).stdout
    names = {line.split()[-1].split("@")[0] for line in nm.splitlines() if line.strip()}
    linker = {"_init", "_fini", "_edata", "_end", "__bss_start"}
    other = sorted(n for n in names - linker if not n.startswith(("prof_", "PROFILER_")))
    assert other == ["__cyg_profile_func_enter", "__cyg_profile_func_exit", "dlclose",
                     "pthread_create"]


# ---- 16. static linking ----


def test_statically_linked_program_writes_a_valid_run_file(tmp_path):
    """examples/basic.c linked with libprofreport.a writes a valid run file with the rows its
    structure gives (load 1, parse 20, step 200, checksum 4) and needs no shared libprofreport."""
    dynamic = subprocess.run(["readelf", "-d", program("static_basic")], capture_output=True,
                             text=True).stdout
    assert "libprofreport" not in dynamic
    proc, run = run_once(tmp_path, "static_basic")
    check_metadata(run, pid=proc.pid)
    check_events_structure(run)
    counts = {}
    for row in run.rows:
        counts[(row["Region"], row["Parent"])] = counts.get((row["Region"], row["Parent"]), 0) + 1
    assert counts == {("load", ""): 1, ("parse", "load"): 20, ("step", ""): 200,
                      ("checksum", "step"): 4}


# ---- 17. clocks ----


def test_monotonic_clock_counts_nanoseconds(tmp_path):
    """PROFILER_CLOCK=monotonic: Frequency 1000000000 and Clock,monotonic; a 20 ms sleep then
    lasts 15 to 500 million ticks."""
    _, run = run_once(tmp_path, "nested", env={"PROFILER_CLOCK": "monotonic"})
    assert run.records[0] == ["Frequency", "1000000000"]
    assert run.value("Clock") == "monotonic"
    (sleep,) = run.rows_of("sleep")
    assert 15_000_000 <= int(sleep["Ticks"]) <= 500_000_000


def test_long_gaps_between_events_keep_their_length(tmp_path):
    """A region lasting 1 s and a 1.8 s pause before the next region (more than 2^31 and 2^32
    ticks of a GHz clock: the long-gap records of FORMAT.md 3) keep their length in the run
    file."""
    _, run = run_once(tmp_path, "longgap", 1000, 1800)
    check_events_structure(run)
    (long,) = run.rows_of("long")
    (short,) = run.rows_of("short")
    assert 0.95 <= seconds(long["Ticks"], run) <= 2.0
    gap = seconds(int(short["Start"]) - int(long["Start"]) - int(long["Ticks"]), run)
    assert 1.75 <= gap <= 3.0


# ---- more: buffers, depth, ids ----


def test_runs_longer_than_a_buffer_keep_every_row(tmp_path):
    """A run of 100000 regions (several 256 KiB buffers written while it runs, with "all" open
    across every write) keeps every row and the whole tree."""
    _, run = run_once(tmp_path, "flushes", 100000)
    trees = check_events_structure(run)
    assert len(run.rows_of("m")) == 100000
    assert len(run.rows_of("mm")) == 100
    assert run.rows[-1]["Region"] == "all"
    (all_children,) = [c for row, c in trees[1] if row["Region"] == "all"]
    assert len(all_children) == 100000


def test_summary_file_size_does_not_depend_on_calls(tmp_path):
    """Summary mode after 100000 regions: three rows with the exact call counts, and no part
    file left behind."""
    _, run = run_once(tmp_path, "flushes", 100000, env={"PROFILER_MODE": "summary"})
    assert sorted((r["Region"], r["Calls"]) for r in run.rows) == [
        ("all", "1"), ("m", "100000"), ("mm", "100")]
    for row in run.rows:
        check_summary_row(row)
    assert os.listdir(run.path.parent) == [run.path.name]


def test_run_that_records_nothing_has_full_metadata(tmp_path):
    """A run started by PROFILER_INIT that records no region still leaves one run file with the
    metadata of FORMAT.md 1.2 (Program, Pid, Host, Start, Clock...), no Thread record and no
    row, and a Frequency that matches its clock (the same TSC rate another run measures)."""
    proc, run = run_once(tmp_path, "empty")
    assert run.rows == [] and run.threads == []
    check_metadata(run, pid=proc.pid)
    assert run.value("Program") == os.path.realpath(program("empty"))
    assert run.value("Host") == socket.gethostname()
    _, other = run_once(tmp_path, "nested")
    assert run.value("Clock") == other.value("Clock")
    assert abs(run.frequency - other.frequency) <= other.frequency / 100


def test_regions_nested_5000_deep_in_events_mode(tmp_path):
    """Events mode has no depth limit: 5000 nested regions give 5000 rows with Depth 4999..0,
    Nested 1 for all but the outermost, and no warning."""
    _, run = run_once(tmp_path, "deep", 5000)
    check_events_structure(run)
    assert [int(r["Depth"]) for r in run.rows] == list(reversed(range(5000)))
    assert [r["Nested"] for r in run.rows] == ["1"] * 4999 + ["0"]
    assert run.warnings == []


def test_summary_mode_counts_regions_nested_5000_deep(tmp_path):
    """Summary mode counts regions nested deeper than the 4096 frames a recorder starts with
    (its stack grows): 5000 nested regions are 5000 calls, each level a path of its own, and no
    warning."""
    _, run = run_once(tmp_path, "deep", 5000, env={"PROFILER_MODE": "summary"})
    paths = summary_paths(run.rows)
    assert sorted(len(path) for _, path in paths) == list(range(1, 5001))
    for row in run.rows:
        check_summary_row(row)
    (row,) = summary_regions(run.rows).values()
    assert row["Calls"] == 5000
    assert row["Self"] == row["Outer"]
    assert run.warnings == []


def test_summary_mode_past_max_nodes_folds_new_paths_into_their_parent(tmp_path):
    """PROFILER_MAX_NODES=100 with 300 nested regions: 100 paths are counted, the 200 deeper
    instances fold into the 100th path's node (one max-nodes warning counts them), and no time
    is lost: the self times still add up to the outermost instance's ticks."""
    _, run = run_once(tmp_path, "deep", 300,
                      env={"PROFILER_MODE": "summary", "PROFILER_MAX_NODES": "100"})
    paths = summary_paths(run.rows)
    assert sorted(len(path) for _, path in paths) == list(range(1, 101))
    assert all(r["Calls"] == "1" for r in run.rows)
    assert [(w["kind"], w["thread"], w["count"]) for w in run.warnings] == [
        ("max-nodes", 1, 200)]
    assert "PROFILER_MAX_NODES=100" in run.warnings[0]["message"]
    (top_row,) = [r for r in run.rows if r["Parent"] == "0"]
    assert sum(int(r["Self"]) for r in run.rows) == int(top_row["Ticks"])


@pytest.mark.parametrize("mode", ["events", "summary"])
def test_a_thousand_distinct_ids(tmp_path, mode):
    """1000 distinct ids built at run time are all kept apart, in both modes."""
    n = 1000
    _, run = run_once(tmp_path, "ids", "many", n, env={"PROFILER_MODE": mode})
    names = [f"id-{i}" for i in range(n)]
    if mode == "events":
        check_events_structure(run)
        assert [(r["Region"], r["Parent"]) for r in run.rows] == (
            [(x, "") for x in names] + [(x, "wrap") for x in names] + [("wrap", "")])
    else:
        paths = {path: r["Calls"] for (_, path), r in summary_paths(run.rows).items()}
        assert paths == dict([((x,), "1") for x in names] + [(("wrap", x), "1") for x in names]
                             + [(("wrap",), "1")])


def test_ids_with_the_same_text_are_one_region_in_events_mode(tmp_path):
    """Region ids are strings: two arrays holding the same text "dup" name one region, so an
    inner "dup" inside an outer "dup" has Nested 1 (an enclosing region has the same id)."""
    _, run = run_once(tmp_path, "ids", "same-text")
    check_events_structure(run)
    assert [(r["Region"], r["Depth"], r["Nested"]) for r in run.rows] == [
        ("dup", "1", "1"), ("dup", "0", "0")] + [("dup", "0", "0")] * 5


def test_ids_with_the_same_text_are_one_region_in_summary_mode(tmp_path):
    """Summary mode has one record per thread and path: two arrays holding the same text "dup"
    share their nodes, so "dup" has 6 calls at the top and 1 inside itself, which is not
    counted in Outer."""
    _, run = run_once(tmp_path, "ids", "same-text", env={"PROFILER_MODE": "summary"})
    assert [(r["Region"], r["Thread"], r["Calls"], r["Node"], r["Parent"]) for r in run.rows] == [
        ("dup", "1", "6", "1", "0"), ("dup", "1", "1", "2", "1")]
    for row in run.rows:
        check_summary_row(row)
    assert run.rows[1]["Outer"] == "0" and run.rows[0]["Outer"] == run.rows[0]["Ticks"]


# ---- 18. the library writes nothing on stdout ----

QUIET_CASES = [
    ("nested", [], {}),
    ("nested", [], {"PROFILER_MODE": "summary"}),
    ("threads", [4, 50], {}),
    ("running", [], {}),
    ("thread_exit", [], {}),
    ("forker", [], {}),
    ("forker", ["threaded"], {}),
    ("mismatch", [], {}),
    ("chdir", ["/"], {}),
    ("flushes", [], {}),
    ("deep", [], {"PROFILER_MODE": "summary"}),
    ("ids", ["many", 100], {}),
    ("empty", [], {}),
    ("names", [], {}),
    ("unterminated", ["nested"], {}),
    ("disabled", [], {}),
    ("summary", [], {"PROFILER_MODE": "summary"}),
    ("recursion", [], {}),
    ("reinit", ["@one", "@two"], {}),
    ("scope_cxx", [], {}),
    ("static_basic", [], {}),
]


@pytest.mark.parametrize("prog,args,env", QUIET_CASES,
                         ids=["-".join([c[0], *map(str, c[1]), *c[2].values()]).replace("@", "")
                              for c in QUIET_CASES])
def test_library_prints_nothing_on_stdout(tmp_path, prog, args, env):
    """A program's stdout and exit status are the same with profiling on as with
    PROFILER_ENABLE=0, and the library writes no line on stderr."""
    outputs = []
    for enabled in (True, False):
        base = tmp_path / ("on" if enabled else "off")
        base.mkdir()
        argv = [base / a[1:] if isinstance(a, str) and a.startswith("@") else a for a in args]
        extra = dict(env, PROFILER_DIR=base / "runs")
        if not enabled:
            extra["PROFILER_ENABLE"] = "0"
        result = run_command([program(prog), *argv], env=clean_env(extra), cwd=base)
        assert library_lines(result.stderr) == []
        outputs.append((result.stdout, result.returncode))
        if not enabled:
            assert os.listdir(base) == []
    assert outputs[0] == outputs[1]
