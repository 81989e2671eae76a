"""test_left_out.py - a left-out function's own rows (docs/FORMAT.md 1.4) through the reporter.

A sampled run (format 4, Timing,sampled) whose Exclude record leaves `tiny*` out charges the
samples that land in a left-out function to that function, on rows of its own: Calls 0, its
samples as its self time. Its calls were never counted, so every sheet and export must say
"not counted" where a count would go, never 0 calls and never a cost per call, while its time
counts as any function's. A Calls-0 row the filters keep (a context that never stopped) keeps
its old meaning. The run file is written here by hand; every expected number is worked out
below from the rows written, in milliseconds of samples (1 ms period, ticks are ns).
"""

import csv
import json
import shutil

import pytest

from reporter_helpers import Book, csv_bytes, must_run
from test_exports import callgrind_annotate, callgrind_costs, parse_callgrind_calls

MS = 1_000_000  # ns, and ticks: Frequency 1e9
HEADER = ["Region", "Thread", "Calls", "Ticks", "Self", "Min", "Max", "SumSquares", "Outer",
          "Histogram", "Node", "Parent", "Samples", "Timed", "Wall"]
NOTE = "left out: calls not counted, time sampled"


def row(region, node, parent, calls, samples, below=0, timed=0):
    """A sampled summary row: samples of this path times the 1 ms period are its Self; below
    is the samples of the paths under it (in its Ticks and Outer only). No call timed."""
    ticks = (samples + below) * MS
    return [region, 1, calls, ticks, samples * MS, 0, 0, 0, ticks, "", node, parent, samples,
            timed, 0]


# main 10 ms of its own; work 100 calls, 20 ms; helper 50 calls, 5 ms; stuck never stopped
# (Calls 0, kept by the filters), 2 ms; tiny_add left out: 30 ms under work, 4 ms under main.
ROWS = [
    row("main", 1, 0, 1, 10, below=30 + 20 + 5 + 2 + 4),
    row("work", 2, 1, 100, 20, below=30),
    row("helper", 3, 1, 50, 5),
    row("stuck", 4, 1, 0, 2),
    row("tiny_add", 5, 2, 0, 30),
    row("tiny_add", 6, 1, 0, 4),
]
BUSY = 71 * MS  # every sample: the thread's self times add up to main's Ticks


def write_run(folder, rows=ROWS, exclude="tiny*", name="profiling_left_out.csv", pid=4242):
    recs = [["Frequency", 1_000_000_000], ["Format", "profreport-run", 4], ["Mode", "summary"],
            ["Program", "/opt/app/bin/app"], ["Command", "app"], ["Pid", pid],
            ["Host", "testhost"], ["Start", "2026-01-01T10:00:00.000000Z"],
            ["Clock", "monotonic"]]
    if exclude is not None:
        recs.append(["Exclude", exclude])
    recs += [["Timing", "sampled", "perf-task-clock", MS, 200, 20],
             ["Duration", BUSY], ["Complete", "yes"], ["Threads", 1],
             ["Thread", 1, 1000 + pid, "main", "exited"]]
    for name_ in ("main", "work", "helper", "stuck", "tiny_add", "step"):
        recs.append(["Function", name_, "", "", "/opt/app/bin/app", "0x1000"])
    recs.append(HEADER)
    recs += rows
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(csv_bytes(recs))
    return path


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("left_out")
    runs = tmp / "runs"
    write_run(runs)
    out = {"xlsx": tmp / "r.xlsx", "csv": tmp / "csv", "json": tmp / "r.json",
           "callgrind": tmp / "r.callgrind", "folded": tmp / "r.folded"}
    p = must_run("--no-gnuplot", runs, "-o", out["xlsx"], "--csv", out["csv"], "--json",
                 out["json"], "--callgrind", out["callgrind"], "--folded", out["folded"])
    out["stdout"] = p.stdout.decode()
    out["book"] = Book(out["xlsx"])
    return out


def close_ms(got, ms):
    assert got is not None and abs(got - ms * MS) < 1e-6 * MS, (got, ms)


def test_call_cost_says_not_counted_and_keeps_the_time(report):
    _, rows, order = report["book"].cost()
    tiny = rows["tiny_add"]
    assert tiny["Calls"] == "not counted"
    for col in ("Mean", "Median", "Min", "Max", "P90", "P99", "Run mean", "Fastest run",
                "Slowest run", "Wall"):
        assert tiny[col] is None, (col, tiny[col])
    close_ms(tiny["Total"], 34)
    close_ms(tiny["Self"], 34)
    assert tiny["Total %"] == pytest.approx(34 / 71)
    assert tiny["Left out"] == NOTE
    # the kept ones as before: counted calls, a cost per call, no note
    assert rows["helper"]["Calls"] == 50 and rows["helper"]["Left out"] is None
    assert rows["helper"]["Mean"] == pytest.approx(5 * MS / 50)
    assert rows["work"]["Calls"] == 100 and rows["work"]["Left out"] is None
    close_ms(rows["work"]["Total"], 50)
    close_ms(rows["work"]["Self"], 20)
    # a context that never stopped, kept by the filters: no calls, not a left-out function,
    # and, as before, no row of its own (no completed call)
    assert "stuck" not in rows
    assert order[0] == "main" and order[1] == "work"


def test_hit_count_and_runs_show_no_zero_calls(report):
    book = report["book"]
    _, hits = book.table("Hit count")
    tiny = next(r for r in hits if r["Region"] == "tiny_add")
    assert tiny["Calls"] == "left out: not counted"
    assert tiny["Run 1"] is None and tiny["Thread: main"] is None
    assert next(r for r in hits if r["Region"] == "helper")["Run 1"] == 50
    _, _, calls = book.matrix("Calls, region x run")
    assert calls["tiny_add"] == [None] and calls["helper"] == [50]
    _, _, means = book.matrix("Mean cost per call")
    assert means["tiny_add"] == [None]


def test_call_tree_and_call_paths(report):
    book = report["book"]
    _, edges = book.table("Call tree")
    by = {(e["Caller"], e["Callee"]): e for e in edges}
    for caller, ms in (("work", 30), ("main", 4)):
        e = by[(caller, "tiny_add")]
        assert e["Calls"] == "not counted", e
        assert e["Mean"] is None and e["Share of callee's calls"] is None, e
        close_ms(e["Total"], ms)
        close_ms(e["Self"], ms)
        assert e["Left out"] == NOTE
    assert by[("main", "helper")]["Calls"] == 50
    assert by[("main", "helper")]["Left out"] is None
    _, paths = book.table("Call paths")
    got = {p["Call path"]: p for p in paths}
    tiny = next(p for k, p in got.items() if k.endswith("work > tiny_add"))
    assert tiny["Calls"] == "not counted"
    close_ms(tiny["Self"], 30)
    stuck = next(p for k, p in got.items() if k.endswith("stuck"))
    assert stuck["Calls"] == 0  # the old meaning, unchanged


def test_summary_lists_the_left_out_functions_time(report):
    book = report["book"]
    summary = book.summary()
    assert summary["Left out (PROFILER_EXCLUDE)"].startswith(
        "tiny* (1 of 1 run): functions matching one were not counted"), summary
    lines = [r for r in book.rows("Summary") if r and r[0] == "Left-out function"]
    assert len(lines) == 1, lines
    assert lines[0][1] == "tiny_add"
    close_ms(lines[0][2], 34)
    assert "calls not counted" in lines[0][3]
    # the top table: no number under Calls (its chart reads the column), the reason beside it
    rows = book.rows("Summary")
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Region")
    top = {r[0]: r for r in rows[head + 1:] if r and r[0]}
    assert top["tiny_add"][5] is None and top["tiny_add"][6] is None
    assert top["tiny_add"][7] == NOTE
    assert top["helper"][5] == 50


def test_terminal_profile_says_not_counted(report):
    line = next(l for l in report["stdout"].splitlines() if l.endswith("tiny_add"))
    fields = line.split()
    # total%, total, self, then the calls: the words in place of a count
    assert fields[5:7] == ["not", "counted"], line


def test_csv_and_json_leave_the_calls_empty(report):
    with open(report["csv"] / "callcost.csv", newline="", encoding="utf-8") as f:
        rows = {r["Region"]: r for r in csv.DictReader(f)}
    assert rows["tiny_add"]["Calls"] == ""
    assert rows["tiny_add"]["Mean (ns)"] == ""
    assert float(rows["tiny_add"]["Self (ns)"]) == 34 * MS
    assert rows["tiny_add"]["Left out"] == NOTE
    assert rows["helper"]["Calls"] == "50" and rows["helper"]["Left out"] == ""
    with open(report["csv"] / "calltree.csv", newline="", encoding="utf-8") as f:
        edges = {(r["Caller"], r["Callee"]): r for r in csv.DictReader(f)}
    assert edges[("work", "tiny_add")]["Calls"] == ""
    assert edges[("work", "tiny_add")]["Left out"] == NOTE
    data = json.loads(report["json"].read_text(encoding="utf-8"))
    tiny = next(r for r in data["callcost"] if r["Region"] == "tiny_add")
    assert tiny["Calls"] is None and tiny["Mean (ns)"] is None
    assert tiny["Total (ns)"] == 34 * MS and tiny["Left out"] == NOTE
    helper = next(r for r in data["callcost"] if r["Region"] == "helper")
    assert helper["Calls"] == 50 and helper["Left out"] is None
    edge = next(r for r in data["calltree"] if (r["Caller"], r["Callee"]) == ("work", "tiny_add"))
    assert edge["Calls"] is None and edge["Mean (ns)"] is None


def test_callgrind_and_folded_keep_the_time_where_it_was_spent(report):
    """callgrind has no unknown call count: a left-out function's arc says calls=0 (with a
    comment why), so that its cost stays the call's inclusive cost, not its caller's own."""
    path = report["callgrind"]
    text = path.read_text(encoding="utf-8")
    assert text.count("# left out: calls not counted, time sampled") == 2
    calls = parse_callgrind_calls(path)
    assert calls[("work", "tiny_add")] == 0 and calls[("main", "tiny_add")] == 0
    assert calls[("main", "work")] == 100 and calls[("main", "helper")] == 50
    own, incl, totals = callgrind_costs(path)
    assert totals == 71 * MS == sum(own.values())
    assert own == {"main": 10 * MS, "work": 20 * MS, "helper": 5 * MS, "stuck": 2 * MS,
                   "tiny_add": 34 * MS}
    assert incl["main"] == 71 * MS and incl["work"] == 50 * MS
    if shutil.which("callgrind_annotate") is not None:
        # valgrind's own reader agrees on the totals and on the left-out function's cost
        total, by_fn = callgrind_annotate(path)
        assert total == 71 * MS and by_fn["tiny_add"] == 34 * MS
    folded = dict(l.rsplit(" ", 1) for l in report["folded"].read_text().splitlines())
    assert int(folded["main;work;tiny_add"]) == 30 * MS
    assert int(folded["main;tiny_add"]) == 4 * MS


def test_a_run_without_filters_keeps_calls_0_rows_as_never_stopped(tmp_path):
    """The same rows without an Exclude record: nothing is left out, tiny_add's rows are
    contexts that never stopped (the old meaning), so it has no row of its own."""
    write_run(tmp_path / "runs", exclude=None)
    must_run("--no-gnuplot", tmp_path / "runs", "-o", tmp_path / "r.xlsx")
    book = Book(tmp_path / "r.xlsx")
    headers, rows, _ = book.cost()
    assert "tiny_add" not in rows
    assert all(r["Left out"] is None for r in rows.values())
    assert not [r for r in book.rows("Summary") if r and r[0] == "Left-out function"]


def test_suggest_never_offers_a_function_already_left_out(tmp_path):
    """Two runs: one left tiny_add out, one kept it with ten million calls of 0.3 ns each (3
    ms of samples). Hot and tiny as it is, it is not suggested again; step, as hot and tiny
    and kept everywhere, is."""
    runs = tmp_path / "runs"
    write_run(runs)
    kept = [row("main", 1, 0, 1, 10, below=20 + 3 + 3), row("work", 2, 1, 100, 20),
            row("tiny_add", 3, 1, 10_000_000, 3), row("step", 4, 1, 10_000_000, 3)]
    write_run(runs, rows=kept, exclude=None, name="profiling_kept.csv", pid=4343)
    p = must_run("--no-gnuplot", runs, "-o", tmp_path / "r.xlsx", "--suggest-exclude",
                 tmp_path / "next.opt")
    text = p.stdout.decode()
    line = next(l for l in text.splitlines() if "PROFILER_EXCLUDE=" in l)
    assert line.endswith("PROFILER_EXCLUDE='tiny*,step'"), line
    _, rows, _ = Book(tmp_path / "r.xlsx").cost()
    # counted where kept only: its calls, with the note that one run did not count them
    assert rows["tiny_add"]["Calls"] == 10_000_000
    assert rows["tiny_add"]["Left out"] == "left out in some runs: calls counted only where kept"
    close_ms(rows["tiny_add"]["Self"], 34 + 3)
