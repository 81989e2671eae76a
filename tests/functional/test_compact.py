"""test_compact.py - profreport --compact: each run written as a calling-context summary run
file (docs/FORMAT.md 1.4) of the same name, and a report from the compacts that equals the
report from the runs: counts exactly, times to the last bits of a double, percentiles within
the summary histogram's bucket (8 per power of two, FORMAT.md 1.4).

The runs are recorded by the test programs (events mode with nesting, recursion and threads; a
killed run's parts; summary mode) plus a seed-form file written here; both reports are read
back with Python's json module, the compacts with the csv module.
"""

import json
import os
import signal
import subprocess

import pytest

from conftest import SUMMARY_COLUMNS, clean_env, program, parse_run, run_program
from reporter_helpers import must_run, profreport

# Compacts keep the runs' metadata, threads and paths; a compact's percentiles come from its
# histogram: within one bucket (1/8 of the value past 16 ticks) of the exact value, plus the
# reporter's own histogram (1/64) on either side.
PERCENTILE_BOUND = 1 / 8 + 2 / 64
SEED = "Frequency,1000\nparse,300\nload,\nparse,100\nsave,50\n"


def kill_ready(folder):
    """Run killme until it says ready and SIGKILL it: its parts stay in folder."""
    with subprocess.Popen([str(program("killme"))], env=clean_env({"PROFILER_DIR": folder}),
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as p:
        line = p.stdout.readline()
        assert line.strip() == "ready", (line, p.stderr.read())
        p.send_signal(signal.SIGKILL)
        p.wait()


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    """A folder of runs of every kind: events (nesting, recursion, threads), a killed run's
    parts, summary mode, and the seed form."""
    base = tmp_path_factory.mktemp("compact")
    folder = base / "runs"
    folder.mkdir()
    run_program(base, "nested", profile_dir=folder)
    run_program(base, "recursion", profile_dir=folder)
    run_program(base, "threads", "3", "2000", profile_dir=folder)
    run_program(base, "summary", profile_dir=folder, env={"PROFILER_MODE": "summary"})
    kill_ready(folder)
    (folder / "seed.csv").write_text(SEED)
    return folder


def compact(src, dst, *extra):
    """profreport SRC --compact DST, which must succeed."""
    return must_run(src, "--compact", dst, *extra)


def report(folder, tmp_path, name):
    """The --json report of every run in folder."""
    out = tmp_path / f"{name}.json"
    must_run(folder, "-q", "--all-programs", "--no-gnuplot", "-o", tmp_path / f"{name}.xlsx",
             "--json", out)
    return json.loads(out.read_text())


def close(a, b, rel):
    """a and b equal within rel of the larger (None for both: no value)."""
    if a is None or b is None:
        return a is None and b is None
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-9


def test_report_from_compacts_equals_report_from_runs(runs, tmp_path):
    """Call cost, call paths, Runs and Threads from the compacts are those from the runs:
    counts exactly, times within a double's rounding, percentiles within the histogram's bound.
    Only the file names and the mode (summary) differ."""
    out = tmp_path / "out"
    compact(runs, out)
    want, got = report(runs, tmp_path, "runs"), report(out, tmp_path, "compacts")

    # A region whose every instance never stopped (a killed run's "outer", the seed's "load")
    # has no row with calls in a compact: compacts count such instances per thread only, in
    # their Warning records (README, "Compacting runs from many hosts").
    cost_want = {r["Region"]: r for r in want["callcost"] if r["Calls"]}
    cost_got = {r["Region"]: r for r in got["callcost"]}
    assert cost_got.keys() == cost_want.keys()
    assert {"loop", "rec", "work", "parse", "k"} <= cost_want.keys()
    for region, w in cost_want.items():
        g = cost_got[region]
        for col, value in w.items():
            if col in ("Calls", "Runs", "Region"):
                assert g[col] == value, (region, col)
            elif col.startswith(("Median", "P90", "P99")):
                assert close(g[col], value, PERCENTILE_BOUND), (region, col, g[col], value)
            elif col == "Never stopped":
                continue  # per-region counts of instances that never stopped (below)
            elif isinstance(value, (int, float)) and value is not None:
                assert close(g[col], value, 1e-9), (region, col, g[col], value)

    key = lambda r: (r["Caller"], r["Callee"])  # noqa: E731
    tree_want = {key(r): r for r in want["calltree"]}
    # The seed form knows no callers; its compact's rows are top-level calls of thread 1.
    seed_regions = {line.split(",")[0] for line in SEED.splitlines()[1:]}
    tree_got = {key(r): r for r in got["calltree"] if r["Callee"] not in seed_regions}
    assert sorted(tree_got) == sorted(tree_want)
    for k, w in tree_want.items():
        assert tree_got[k]["Calls"] == w["Calls"], k
        for col in ("Total (ns)", "Self (ns)"):
            assert close(tree_got[k][col], w[col], 1e-9), (k, col)

    def strip(r):
        return {k: v for k, v in r.items() if k not in ("File", "Mode", "Run")}
    runs_want = sorted((strip(r) for r in want["runs"]), key=lambda r: (r["Pid"] or "", r["Start"] or ""))
    runs_got = sorted((strip(r) for r in got["runs"]), key=lambda r: (r["Pid"] or "", r["Start"] or ""))
    assert len(runs_got) == len(runs_want) == 6
    for g, w in zip(runs_got, runs_want):
        for col, value in w.items():
            if col == "Events" and (w["Complete"] == "no" or not w["Pid"]):
                continue  # the killed run's and the seed's count instances that never stopped
            if col == "Recovered":
                continue  # the compact is a run file, written from the recovered run
            if isinstance(value, float):
                assert close(g[col], value, 1e-9), col
            else:
                assert g[col] == value, col

    threads_want = sorted((strip(r) for r in want["threads"]),
                          key=lambda r: (r["Tid"] or "", r["Thread"]))
    threads_got = sorted((strip(r) for r in got["threads"]), key=lambda r: (r["Tid"] or "", r["Thread"]))
    assert len(threads_got) == len(threads_want)
    for g, w in zip(threads_got, threads_want):
        for col, value in w.items():
            if isinstance(value, float):
                assert close(g[col], value, 1e-9), col
            elif col == "Events" and (not w["Tid"] or w["State"] == "incomplete"):
                continue  # counts instances that never stopped, as for Runs
            elif w["Tid"] or col != "Thread":
                assert g[col] == value, col  # the seed's thread (no Tid) is thread 1 there


def test_compacts_keep_names_metadata_and_are_much_smaller(runs, tmp_path):
    """One compact per run, named as the run file (a killed run's as its run file would have
    been), with the run's metadata records in their order and Mode summary; an events run's
    compact is a small fraction of it."""
    out = tmp_path / "out"
    compact(runs, out)
    names = sorted(p.name for p in out.iterdir())
    inputs = sorted(p.name for p in runs.iterdir() if p.name.endswith(".csv"))
    killed = sorted({p.name.rsplit(".", 2)[0] + ".csv" for p in runs.iterdir()
                     if p.name.endswith(".part")})
    assert len(killed) == 1
    assert names == sorted(inputs + killed)
    for name in inputs:
        if name == "seed.csv":
            continue
        src, dst = parse_run(runs / name), parse_run(out / name)
        assert dst.header == SUMMARY_COLUMNS
        assert dst.frequency == src.frequency
        assert dst.meta == [["Mode", "summary"] if m[0] == "Mode" else m for m in src.meta]
        if ["Mode", "events"] in src.meta and len(src.rows) >= 1000:
            assert (out / name).stat().st_size * 10 < (runs / name).stat().st_size, name
    recovered = parse_run(out / killed[0])
    assert ["Complete", "no"] in recovered.meta
    assert [(r["Region"], r["Calls"], r["Parent"]) for r in recovered.rows][0] == ("outer", "0", "0")
    assert sum(int(r["Calls"]) for r in recovered.rows if r["Region"] == "k") > 0


def test_summary_run_compacts_to_itself(runs, tmp_path):
    """A summary run is a summary already: its compact is the same file, byte for byte."""
    out = tmp_path / "out"
    compact(runs, out)
    summary = [p for p in runs.iterdir() if p.name.startswith("profiling_")
               and p.name.endswith(".csv") and ["Mode", "summary"] in parse_run(p).meta]
    assert len(summary) == 1
    assert (out / summary[0].name).read_bytes() == summary[0].read_bytes()


def test_seed_rows_become_top_level_paths_of_thread_1(runs, tmp_path):
    """A seed-form run (no threads, no nesting) compacts to one top-level row per region on
    thread 1, its unstopped rows counted in a Warning record."""
    out = tmp_path / "out"
    compact(runs / "seed.csv", out)
    run = parse_run(out / "seed.csv")
    assert run.frequency == 1000
    rows = {r["Region"]: r for r in run.rows}
    assert rows["parse"]["Calls"] == "2" and rows["parse"]["Ticks"] == "400"
    assert rows["parse"]["Self"] == "400" and rows["parse"]["Outer"] == "400"
    assert (rows["parse"]["Min"], rows["parse"]["Max"]) == ("100", "300")
    assert rows["load"]["Calls"] == "0"
    assert all(r["Thread"] == "1" and r["Parent"] == "0" for r in run.rows)
    assert [r["Region"] for r in run.rows] == ["parse", "load", "save"]  # in order of first row
    assert any(m[:4] == ["Warning", "unterminated", "1", "1"] for m in run.meta)


def test_compacting_compacts_changes_nothing(runs, tmp_path):
    """--compact of the compacts gives the same files, byte for byte."""
    first, second = tmp_path / "first", tmp_path / "second"
    compact(runs, first)
    compact(first, second)
    for p in first.iterdir():
        assert (second / p.name).read_bytes() == p.read_bytes(), p.name


def test_existing_target_is_refused_and_nothing_is_written(runs, tmp_path):
    """A file already at a compact's name is not replaced: exit 4, a clear message, the file
    as it was, and no other compact written."""
    out = tmp_path / "out"
    out.mkdir()
    name = next(p.name for p in runs.iterdir() if p.name.startswith("profiling_")
                and p.name.endswith(".csv"))
    (out / name).write_text("mine\n")
    p = profreport(runs, "--compact", out)
    assert p.returncode == 4
    assert f"cannot write '{out / name}': it exists" in p.stderr.decode()
    assert (out / name).read_text() == "mine\n"
    assert sorted(os.listdir(out)) == [name]


def test_unwritable_folder_is_an_error(runs, tmp_path):
    """A folder that cannot be made (under a regular file): exit 4 and what went wrong."""
    blocker = tmp_path / "file"
    blocker.write_text("")
    p = profreport(runs, "--compact", blocker / "out")
    assert p.returncode == 4
    assert f"cannot write to '{blocker / 'out'}': Not a directory" in p.stderr.decode()


def test_compact_writes_no_report_unless_o_names_one(runs, tmp_path):
    """--compact alone writes the compacts only; with -o the report is written too."""
    compact(runs, tmp_path / "a", "--no-gnuplot")
    assert not (tmp_path / "report.xlsx").exists() and not os.path.exists("report.xlsx")
    compact(runs, tmp_path / "b", "--no-gnuplot", "-q", "-o", tmp_path / "r.xlsx")
    assert (tmp_path / "r.xlsx").exists()
    p = profreport(runs, "--compact", tmp_path / "c", "--json", tmp_path / "x.json")
    assert p.returncode == 2 and b"-o" in p.stderr
