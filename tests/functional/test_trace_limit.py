"""test_trace_limit.py - profreport --trace-limit: the trace keeps whole runs while they fit,
leaves out (and warns about) a run that would pass the limit, and is refused when no run fits.

The expected events are the rows of the run files, read with the csv module; the trace is read
with the json module and the workbook with openpyxl.
"""

import json

from conftest import run_once
from reporter_helpers import Book, must_run, profreport

SMALL, LARGE = 100, 2000  # maxevents steps: about 1300 and 8900 region instances


def two_runs(tmp_path):
    """A small run and a large one of maxevents, each in a folder of its own."""
    _, small = run_once(tmp_path, "maxevents", SMALL)
    _, large = run_once(tmp_path, "maxevents", LARGE)
    return small, large


def trace_of(path):
    """The trace's events: complete ("X") events per pid, and process names per pid."""
    events = json.loads(path.read_text(encoding="utf-8"))["traceEvents"]
    complete = {}
    for e in events:
        if e["ph"] == "X":
            complete[e["pid"]] = complete.get(e["pid"], 0) + 1
    names = {e["pid"]: e["args"]["name"] for e in events if e["name"] == "process_name"}
    return complete, names


def test_a_run_that_would_pass_the_limit_is_left_out_whole(tmp_path):
    """With a limit between the two runs' traces, the small run is in the trace whole, in
    whichever order the runs come, and the large one is left out whole: its process says so,
    and so do the Warnings sheet and stderr."""
    small, large = two_runs(tmp_path)
    for order in ((small, large), (large, small)):
        out, trace = tmp_path / "report.xlsx", tmp_path / "trace.json"
        p = must_run(*(r.path for r in order), "-o", out, "--trace", trace,
                     "--trace-limit", "600k", "--no-gnuplot")
        complete, names = trace_of(trace)
        kept = 1 if order[0] is small else 2
        assert complete == {kept: len(small.rows)}
        assert names[3 - kept].endswith("(left out: --trace-limit)"), names
        assert not names[kept].endswith("(left out: --trace-limit)"), names
        warned = [w for w in Book(out).warnings() if w["Kind"] == "trace-limit"]
        assert [w["Where"] for w in warned] == [str(large.path)]
        assert "--trace-limit (600 kB)" in warned[0]["Message"]
        assert f"{large.path}: left out of the trace" in p.stderr.decode()


def test_no_limit_keeps_every_run(tmp_path):
    """--trace-limit 0 sets no limit: both runs are in the trace, one event per row."""
    small, large = two_runs(tmp_path)
    trace = tmp_path / "trace.json"
    must_run(small.path, large.path, "-o", tmp_path / "r.xlsx", "--trace", trace,
             "--trace-limit", "0", "--no-gnuplot")
    complete, _ = trace_of(trace)
    assert complete == {1: len(small.rows), 2: len(large.rows)}


def test_a_trace_no_run_fits_in_is_refused(tmp_path):
    """When no run fits, nothing is written: exit status 4 and a message naming the limit and
    what to do."""
    small, _ = two_runs(tmp_path)
    out, trace = tmp_path / "report.xlsx", tmp_path / "trace.json"
    p = profreport(small.path, "-o", out, "--trace", trace, "--trace-limit", "10kB", "--no-gnuplot")
    assert p.returncode == 4
    err = p.stderr.decode()
    assert f"trace '{trace}' not written" in err and "--trace-limit (10 kB)" in err, err
    assert not trace.exists() and not out.exists()


def test_a_bad_limit_is_a_usage_error(tmp_path):
    """A size that is not digits with an optional k, M, G or T is refused as bad usage."""
    for bad in ("lots", "-1", "5X", "1.5G"):
        p = profreport(tmp_path, "--trace", tmp_path / "t.json", "--trace-limit", bad)
        assert p.returncode == 2, bad
        assert "--trace-limit needs a size" in p.stderr.decode()
