"""test_pipeline.py - reading on two threads (issue 14): a reader thread parses the run files
and the model replays its recorded calls in order, so the report must be the one a reading on
one thread gives, byte for byte: every export, the terminal output, warnings and line numbers
of bad files, killed runs' parts read between run files, runs of another program left out,
and --baseline.

PROFREPORT_THREADS=1 reads on one thread, PROFREPORT_THREADS=2 on two whatever the size, and
the default takes two threads for inputs over a few MiB when two CPUs are available (a seed
file of a few hundred thousand rows here, so that the default takes them too).
"""

import os
import random
import select
import shutil
import signal
import subprocess

import pytest

from conftest import ROOT, clean_env, fresh_dir, program, run_program
from reporter_helpers import profreport

openpyxl = pytest.importorskip("openpyxl")

MODES = {"one": {"PROFREPORT_THREADS": "1"}, "two": {"PROFREPORT_THREADS": "2"},
         "default": {"PROFREPORT_THREADS": None}}


def killed_run(tmp_path, folder):
    """Run killme until it is ready and SIGKILL it, its .part files left in folder."""
    with subprocess.Popen([str(program("killme"))], env=clean_env({"PROFILER_DIR": folder}),
                          cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        ready, _, _ = select.select([p.stdout], [], [], 60)
        line = p.stdout.readline() if ready else b"(no output in 60 s)"
        if line != b"ready\n":
            p.kill()
            pytest.fail(f"killme did not get ready: {line!r}")
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)


def large_seed_file(path, rows, seed):
    """A seed-form run file (FORMAT.md 2) of rows id,delta rows over 50 ids, some unterminated."""
    rng = random.Random(seed)
    ids = [f"mod{k % 7}::fn_{k:02d}" for k in range(50)]
    lines = ["Frequency,3000000000"]
    for _ in range(rows):
        delta = "" if rng.random() < 0.0001 else str(int(rng.lognormvariate(8, 1.5)))
        lines.append(f"{rng.choice(ids)},{delta}")
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def inputs(tmp_path_factory):
    """Folders of varied runs: the fuzz corpus of run files, runs of test programs (events,
    summary mode, memory checks, threads, capped events), a killed run's parts, bad files
    (not a run file, truncated, malformed rows, empty), and a large seed file."""
    tmp_path = tmp_path_factory.mktemp("pipeline")
    runs = tmp_path / "runs"
    runs.mkdir()
    for i, f in enumerate(sorted((ROOT / "tests" / "fuzz" / "corpus" / "runfile").iterdir())):
        shutil.copy(f, runs / f"c{i:03d}-{f.stem}.csv")
    programs = (("nested", (), {}), ("recursion", (), {}), ("threads", ("3", "50"), {}),
                ("threads", ("2", "20"), {"PROFILER_MODE": "summary"}),
                ("memcheck", (), {}), ("maxevents", (), {"PROFILER_MAX_EVENTS": 5}))
    for name, args, env in programs:
        run_program(tmp_path, name, *args, env=env, profile_dir=runs)
    killed_run(tmp_path, runs)
    (runs / "x-not-a-run.csv").write_text("hello,world\n")
    (runs / "x-empty.csv").write_bytes(b"")
    (runs / "x-truncated.csv").write_text(
        "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
        "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\na,10,1,,0,10,5,0\nb,12")
    (runs / "x-malformed.csv").write_text(
        "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
        "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
        + "".join(f"r{i},x,1,,0,1,1,0\n" for i in range(60)) + "ok,5,1,,0,5,0,0\n")
    large = tmp_path / "large"
    large.mkdir()
    large_seed_file(large / "seed-big.csv", 300000, 1)
    large_seed_file(large / "seed-small.csv", 2000, 2)
    return runs, large


def report_outputs(tmp_path, mode, *paths, extra=()):
    """Run profreport over paths in a mode with every export; its exports and terminal output
    (the mode's folder name replaced)."""
    d = tmp_path / mode
    d.mkdir(parents=True)
    p = profreport(*paths, "-o", d / "r.xlsx", "--no-gnuplot", "--json", d / "r.json",
                   "--csv", d / "csv", "--folded", d / "r.folded", "--callgrind",
                   d / "r.callgrind", "--trace", d / "r.trace.json", *extra, env=MODES[mode])
    files = {f.relative_to(d).as_posix(): f.read_bytes().replace(str(d).encode(), b"DIR")
             for f in sorted(d.rglob("*")) if f.is_file() and f.suffix != ".xlsx"}
    if p.returncode < 0:
        # Once, in a full run, every mode died of SIGSEGV on the varied inputs and never again
        # in hundreds of runs: keep what it read, for a replay under a sanitizer.
        kept = tmp_path / "crashed-inputs"
        for k, path in enumerate(x for x in paths if os.path.exists(x)):
            dest = kept / f"{k}-{os.path.basename(path)}"
            if os.path.isdir(path):
                shutil.copytree(path, dest, dirs_exist_ok=True)
            else:
                kept.mkdir(parents=True, exist_ok=True)
                shutil.copy(path, dest)
        pytest.fail(f"profreport died of signal {-p.returncode} in mode {mode}; its inputs are "
                    f"in {kept}; stderr: {p.stderr.decode(errors='replace')[-2000:]}")
    terminal = (p.stdout + p.stderr).replace(str(d).encode(), b"DIR")
    return p.returncode, files, terminal, workbook_values(d / "r.xlsx")


def workbook_values(path):
    """Every sheet's cell values (openpyxl), but the command line and the time of making."""
    if not path.exists():
        return None
    book = openpyxl.load_workbook(path, read_only=True)
    sheets = {ws.title: [row for row in ws.iter_rows(values_only=True)
                         if row and row[0] not in ("Command", "Made at")]
              for ws in book.worksheets}
    book.close()
    return sheets


def check_same_in_every_mode(tmp_path, *paths, extra=(), modes=("two", "default")):
    """Each mode gives the one-thread reading's exit status, exports, terminal output and
    workbook."""
    want = report_outputs(tmp_path, "one", *paths, extra=extra)
    assert len(want[1]) >= 5
    for mode in modes:
        got = report_outputs(tmp_path, mode, *paths, extra=extra)
        assert got[0] == want[0], mode
        assert sorted(got[1]) == sorted(want[1]), mode
        for name in want[1]:
            assert got[1][name] == want[1][name], (mode, name)
        assert got[2] == want[2], mode
        assert got[3] == want[3], mode
    return want


def test_two_threads_give_the_report_of_one_over_varied_runs(tmp_path, inputs):
    """The varied runs with every program's runs kept: same exports, same warnings (bad files
    skipped with their reason, problems at their lines, the killed run recovered)."""
    runs, large = inputs
    status, _, _, book = check_same_in_every_mode(tmp_path, runs, large,
                                                  extra=("--all-programs",))
    assert status == 0
    warnings = {(where.rsplit("/", 1)[-1], kind) for where, kind, *_ in book["Warnings"][1:]}
    assert ("x-not-a-run.csv:1", "skipped") in warnings
    assert ("x-malformed.csv:5", "malformed") in warnings
    assert ("x-truncated.csv:6", "malformed") in warnings
    assert any(kind == "incomplete" and "killed run" in where for where, kind in warnings)


def test_runs_of_another_program_are_left_out_alike(tmp_path, inputs):
    """Without --all-programs the runs of the program whose runs took the most time are kept:
    the others are stopped after their metadata, which the two-thread reading decides on
    replay."""
    runs, _ = inputs
    check_same_in_every_mode(tmp_path, runs, modes=("two",))
    check_same_in_every_mode(tmp_path / "p", runs, extra=("--program", str(program("threads"))),
                             modes=("two",))


def test_baseline_reads_alike(tmp_path, inputs):
    """--baseline: two sets of inputs, each read on two threads, compared as on one."""
    runs, large = inputs
    status, *_ = check_same_in_every_mode(
        tmp_path, "--baseline", large / "seed-small.csv", runs, "--", runs,
        extra=("--all-programs", "--seed", "3"), modes=("two",))
    assert status == 0
