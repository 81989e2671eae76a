"""test_collector_safety.py - the collector among other people's files and the host's limits.

A shared output folder where others may plant links, a file-size limit (ulimit -f), a shell
run under the preload library, fork + exec within one second, and two copies of the recorder
in one process: in each the host program runs exactly as it would without profreport, and the
collector either records or says once why it does not.
"""

import os
import re
import resource
import signal
import subprocess

import pytest

from conftest import (
    BUILD,
    PART_NAME,
    RUN_NAME,
    SAN,
    clean_env,
    fresh_dir,
    library_lines,
    parse_run,
    program,
    run_command,
    run_files,
    scaled,
)

PRELOAD = BUILD / "libprofreport-malloc.so"
needs_preload = pytest.mark.skipif(
    bool(SAN), reason="a sanitizer replaces malloc itself: the preload library cannot be used")


def victim(tmp_path, name="victim"):
    """A file of someone else's that must stay as it is."""
    path = tmp_path / name
    path.write_text("precious\n")
    return path


# ---- files in folders other people can write ----


def test_link_at_the_temporary_run_file_name_is_not_followed(tmp_path):
    """A link planted at the hidden temporary name of the run file (.RUN.csv.tmp) leaves its
    target untouched; the run file is written under its own name, complete, and the program's
    output and status are its own."""
    folder = fresh_dir(tmp_path)
    target = victim(tmp_path)
    proc = run_command([program("plant"), target, "tmp"],
                       env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path)
    assert proc.returncode == 3 and proc.stdout == b"planted 1\n", proc
    assert proc.stderr == b""
    assert target.read_text() == "precious\n"
    (run,) = [parse_run(f) for f in run_files(folder) if not f.is_symlink()]
    assert run.value("Complete") == "yes"
    assert {r["Region"] for r in run.rows} == {"first", "second"}


def test_link_at_the_run_file_name_is_kept_and_the_parts_too(tmp_path):
    """A link planted at the run file's own name is neither followed nor replaced: its target
    is untouched, one warning names the run file, the parts stay for profreport to recover,
    and the program's output and status are its own."""
    folder = fresh_dir(tmp_path)
    target = victim(tmp_path)
    proc = run_command([program("plant"), target, "final"],
                       env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path)
    assert proc.returncode == 3 and proc.stdout == b"planted 1\n", proc
    lines = library_lines(proc.stderr)
    assert len(lines) == 1 and "File exists" in lines[0], lines
    assert target.read_text() == "precious\n"
    names = os.listdir(folder)
    assert sorted(n for n in names if PART_NAME.match(n)) and not [
        n for n in names if n.startswith(".")], names
    (link,) = [folder / n for n in names if RUN_NAME.match(n)]
    assert link.is_symlink() and os.readlink(link) == str(target)


def test_link_at_a_part_name_is_not_followed(tmp_path):
    """A link planted at the part name of the run's next thread is not opened: its target is
    untouched, one warning says profiling is off, and the program's output and status are its
    own."""
    folder = fresh_dir(tmp_path)
    target = victim(tmp_path)
    proc = run_command([program("plant"), target, "part2"],
                       env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path)
    assert proc.returncode == 3 and proc.stdout == b"planted 1\n", proc
    lines = library_lines(proc.stderr)
    assert len(lines) == 1 and "profiling is off" in lines[0], lines
    assert target.read_text() == "precious\n"


# ---- file-size limits ----

LIMIT = 64 * 1024


# Sizes that do not depend on the timings' digits: a region's events are 12 bytes of its part
# (enter 2 words, exit 1; PROFILER_FLUSH_INTERVAL=0 adds no chunk), so 5000 make a part of
# about 60,000 bytes, under LIMIT; its run-file row ("r,T,1,,0,S,St,0") is at least 16 bytes,
# so the run file is at least 80,000, over it. 40000 regions make a part over it.
@pytest.mark.parametrize("regions,where", [(40000, ".part'"), (5000, ".csv'")])
def test_file_size_limit_stops_profiling_not_the_program(tmp_path, regions, where):
    """Under a file-size limit the collector's write that meets the limit (while the program
    runs: a part; at exit: the run file) gets one warning and profiling stops; the program
    never sees SIGXFSZ, exits with its own status and output, its signal mask and actions are
    its own, and its own write past the limit still gets EFBIG and its own handler."""
    folder = fresh_dir(tmp_path)
    mine = tmp_path / "mine.bin"
    with subprocess.Popen(
            [str(program("fsize")), str(regions), str(mine)],
            env=clean_env({"PROFILER_DIR": folder, "PROFILER_FLUSH_INTERVAL": "0"}),
            cwd=tmp_path, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (LIMIT, LIMIT))) as p:
        out, err = p.communicate(timeout=60)
    assert p.returncode == 5, (p.returncode, err)
    assert out == f"blocked 0 default 1 wrote {LIMIT} efbig 1 caught 1\n".encode(), out
    lines = library_lines(err)
    assert len(lines) == 1 and "File too large" in lines[0] and where in lines[0], lines
    assert err.decode().splitlines() == lines
    assert not run_files(folder) or all(
        parse_run(f).value("Complete") == "no" for f in run_files(folder))


# ---- run names: one per process image ----


def test_exec_in_a_fork_child_gives_the_new_image_a_run_of_its_own(tmp_path):
    """A fork child that records and then execs keeps its pid, and the new image starts within
    the same second: the new image still writes a complete run file of its own, and nothing is
    printed. The child's part from before exec stays as a run of its own (exec, like a kill,
    skips the exit that would have merged it)."""
    folder = fresh_dir(tmp_path)
    proc = run_command([program("execself")], env=clean_env({"PROFILER_DIR": folder}),
                       cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b"", proc
    runs = {frozenset(r["Region"] for r in run.rows): run
            for run in map(parse_run, run_files(folder))}
    assert set(runs) == {frozenset({"parent", "parent-after"}), frozenset({"after-exec"})}
    assert all(run.value("Complete") == "yes" for run in runs.values())
    parent, child = runs[frozenset({"parent", "parent-after"})], runs[frozenset({"after-exec"})]
    assert parent.value("Pid") == str(proc.pid) != child.value("Pid")
    names = os.listdir(folder)
    (part,) = [n for n in names if PART_NAME.match(n)]
    assert f"_{child.value('Pid')}_" in part
    assert part.split(".1.part")[0] != child.path.name[:-len(".csv")]
    assert all(RUN_NAME.match(f.name) for f in run_files(folder))


@needs_preload
def test_preload_on_a_program_with_its_own_static_recorder(tmp_path):
    """The preload library on a program linked with libprofreport.a: two recorders in one
    process, each writes its own complete run file under its own name (the program's with its
    regions, the preload library's with its memory section), and neither prints anything or
    leaves a part behind."""
    folder = fresh_dir(tmp_path)
    proc = run_command([program("static_basic")],
                       env=clean_env({"PROFILER_DIR": folder, "LD_PRELOAD": PRELOAD}),
                       cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b"", proc
    assert proc.stdout.startswith(b"basic: ")
    assert sorted(n for n in os.listdir(folder) if not RUN_NAME.match(n)) == []
    runs = [parse_run(f) for f in run_files(folder)]
    assert len(runs) == 2
    assert all(r.value("Complete") == "yes" and r.value("Pid") == str(proc.pid) for r in runs)
    (regions,) = [r for r in runs if r.rows]
    (memory,) = [r for r in runs if not r.rows]
    assert {r["Region"] for r in regions.rows} == {"load", "parse", "step", "checksum"}
    assert memory.memory is not None


# ---- the preload library in programs that allocate under the C library's own locks ----


def unusable_dir(tmp_path):
    """An output folder that cannot be created: a path under a regular file."""
    plain = tmp_path / "plain-file"
    plain.write_text("")
    return plain / "runs"


PRELOADED = [
    (["bash", "-c", "echo hi"], b"hi\n"),
    (["sh", "-c", "echo hi"], b"hi\n"),
    (["ls", "-d", "/"], b"/\n"),
    ([None], b"year ok\nlocale ok\n"),
]


@needs_preload
@pytest.mark.parametrize("usable", [True, False], ids=["good-dir", "unusable-dir"])
@pytest.mark.parametrize("argv,expected", PRELOADED, ids=["bash", "sh", "ls", "localefirst"])
def test_preload_in_shells_and_locale_programs_never_hangs(tmp_path, argv, expected, usable):
    """Shells, ls, and a program whose first allocations happen inside localtime and
    setlocale, under the preload library with a good and with an unusable PROFILER_DIR: each
    prints what it prints without profreport and exits 0, well within the timeout; with the
    unusable folder one warning says so, with the good one a run file is written (dash may
    allocate nothing for a builtin, and then has none)."""
    argv = [str(BUILD / "tests" / "plain" / "localefirst") if a is None else a for a in argv]
    folder = fresh_dir(tmp_path) if usable else unusable_dir(tmp_path)
    env = clean_env({"PROFILER_DIR": folder, "LD_PRELOAD": PRELOAD, "LANG": "C.UTF-8"})
    proc = run_command(argv, env=env, cwd=tmp_path, timeout=10)
    assert proc.returncode == 0 and proc.stdout == expected, proc
    lines = library_lines(proc.stderr)
    if usable:
        assert proc.stderr == b""
        runs = [parse_run(f) for f in run_files(folder)]
        assert runs or argv[0] == "sh"
        assert all(r.value("Complete") == "yes" for r in runs)
    else:
        assert len(lines) == 1 and "Not a directory" in lines[0], lines


def test_fork_racing_with_finish_takes_the_locks_in_one_order(tmp_path):
    """One thread forks in a loop while another ends and begins runs with memory checks on.
    fork's prepare handlers took the memory table's locks before the run's lock, the reverse of
    PROFILER_FINISH: the program hung within a few hundred rounds. Now every round's run file is
    written and the program ends."""
    rounds = scaled(2000)
    out = fresh_dir(tmp_path)
    result = run_command([program("forkfinish"), out, rounds], env=clean_env(), timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""
    files = run_files(out)
    assert len(files) == rounds
    for f in files[:: max(1, rounds // 20)]:
        assert len(parse_run(f).rows_of("round")) == 1


# ---- cancelled threads ----


@pytest.mark.parametrize("mode", ["events", "summary"])
def test_threads_cancelled_at_the_collectors_io_end_where_the_host_said(tmp_path, mode):
    """Threads with a cancellation pending (cancel.c) record their first region (the part's
    open and write), buffer writes or snapshots, and a name: the collector's I/O is no
    cancellation point, so each ends at its own pthread_testcancel with every region recorded,
    and nothing hangs. Three runs, each with its complete run file."""
    n = 2
    for i in range(3):
        folder = fresh_dir(tmp_path)
        env = {"PROFILER_DIR": folder, "PROFILER_MODE": mode}
        if mode == "summary":
            env["PROFILER_FLUSH_INTERVAL"] = "0.000001"  # a snapshot at almost every stop
        proc = run_command([program("cancel"), str(n)], env=clean_env(env), cwd=tmp_path,
                           timeout=60)
        assert proc.returncode == 0 and proc.stderr == b"", proc
        assert proc.stdout == f"cancel: {n} {n} {n} cancelled\n".encode()
        (path,) = run_files(folder)
        run = parse_run(path)
        assert run.value("Complete") == "yes" and run.warnings == []
        assert sorted(os.listdir(folder)) == [path.name]
        threads = run.threads
        assert len(threads) == 3 * n + 1 and len({t["tid"] for t in threads}) == 3 * n + 1
        assert all(t["state"] == "exited" for t in threads)
        assert sorted(t["name"] for t in threads if t["name"]) == ["main"] + ["named"] * n
        if mode == "events":
            calls = {}
            for r in run.rows:
                calls[r["Region"]] = calls.get(r["Region"], 0) + 1
        else:
            calls = {}
            for r in run.rows:
                calls[r["Region"]] = calls.get(r["Region"], 0) + int(r["Calls"])
        assert calls == {"first": n, "rec": 50000 * n, "named": 2 * n, "main": 1}


def test_a_key_destructor_that_records_after_the_librarys_keeps_its_thread(tmp_path):
    """keydtor.c: the program's key destructor, which runs after the library's in each of four
    rounds, records: its regions of the first two rounds are the worker's, those after the
    library ended the worker's recorder (in the third) are dropped, and the worker is one
    thread (one tid, one thread record), never registered again."""
    folder = fresh_dir(tmp_path)
    proc = run_command([program("keydtor")], env=clean_env({"PROFILER_DIR": folder}),
                       cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b"", proc
    assert proc.stdout == b"keydtor: 4 rounds\n"
    (path,) = run_files(folder)
    run = parse_run(path)
    assert run.value("Complete") == "yes" and run.warnings == []
    threads = run.threads
    assert [t["state"] for t in threads] == ["exited", "exited"]
    assert len({t["tid"] for t in threads}) == 2
    worker = next(str(t["number"]) for t in threads if t["name"] != "main")
    assert sorted(r["Region"] for r in run.rows if r["Thread"] == worker) == [
        "in-destructor"] * 2 + ["work"]
