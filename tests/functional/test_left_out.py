"""test_left_out.py - a function's own rows of sampled time whose calls were not counted
(docs/FORMAT.md 1.4) through the reporter: a left-out function's, or one compiled without hooks.

A sampled run (format 4, Timing,sampled) charges the samples that land in such a function to
it, on rows of its own: Calls 0, its samples as its self time, under its caller's context. Two
kinds of function get them. A left-out one: the run's Exclude record leaves `tiny*` out. One
without hooks (gcc's -finstrument-functions-exclude-file-list, no_instrument_function): the run
has no filters, and its Function record says "uninstrumented" in a seventh field (1.2). Their
calls were never counted, so every sheet and export must say "not counted" where a count would
go, never 0 calls and never a cost per call, while their time counts as any function's; the
words say why ("left out", "not instrumented"), never that the filters left out a function
they never saw. A Calls-0 row of neither kind (a context that never stopped) keeps its old
meaning. The run files are written here by hand; every expected number is worked out below
from the rows written, in milliseconds of samples (1 ms period, ticks are ns).
"""

import csv
import json

import pytest

from reporter_helpers import Book, csv_bytes, must_run
from test_exports import callgrind_annotate, callgrind_costs, parse_callgrind_calls

MS = 1_000_000  # ns, and ticks: Frequency 1e9
HEADER = ["Region", "Thread", "Calls", "Ticks", "Self", "Min", "Max", "SumSquares", "Outer",
          "Histogram", "Node", "Parent", "Samples", "Timed", "Wall"]
FUNCTIONS = ("main", "work", "helper", "stuck", "tiny_add", "plain_burn", "step")

# The two kinds: the function, the run's Exclude record and Function records marked
# uninstrumented, and the words for it on each sheet.
CASES = {
    "left out": {
        "name": "tiny_add", "exclude": "tiny*", "marks": (),
        "note": "left out: calls not counted, time sampled",
        "some_runs": "left out in some runs: calls counted only where kept",
        "hits": "left out: not counted",
        "label": "Left-out function", "summary_note": "sampled self time; calls not counted",
        "filters": "tiny* (1 of 1 run): functions matching one were not counted",
        "more": "2 more left-out functions on Call cost (its Left out column)",
        # the next run's PROFILER_EXCLUDE starts with the patterns the runs had
        "suggested": "PROFILER_EXCLUDE='tiny*,step'"},
    "no hooks": {
        "name": "plain_burn", "exclude": None, "marks": ("plain_burn",),
        "note": "not instrumented: calls not counted, time sampled",
        "some_runs": "not instrumented in some runs: calls counted only where instrumented",
        "hits": "not instrumented: not counted",
        "label": "Uninstrumented function",
        "summary_note": "sampled self time; compiled without hooks, calls not counted",
        "filters": None,
        "more": "2 more uninstrumented functions on Call cost (its Left out column)",
        "suggested": "PROFILER_EXCLUDE='step'"},
}


def row(region, node, parent, calls, samples, below=0, timed=0):
    """A sampled summary row: samples of this path times the 1 ms period are its Self; below
    is the samples of the paths under it (in its Ticks and Outer only). No call timed."""
    ticks = (samples + below) * MS
    return [region, 1, calls, ticks, samples * MS, 0, 0, 0, ticks, "", node, parent, samples,
            timed, 0]


def rows_of(name):
    """main 10 ms of its own; work 100 calls, 20 ms; helper 50 calls, 5 ms; stuck never
    stopped (Calls 0, of neither kind), 2 ms; name, calls not counted: 30 ms under work, 4 ms
    under main."""
    return [
        row("main", 1, 0, 1, 10, below=30 + 20 + 5 + 2 + 4),
        row("work", 2, 1, 100, 20, below=30),
        row("helper", 3, 1, 50, 5),
        row("stuck", 4, 1, 0, 2),
        row(name, 5, 2, 0, 30),
        row(name, 6, 1, 0, 4),
    ]


BUSY = 71 * MS  # every sample: the thread's self times add up to main's Ticks


def write_run(folder, rows, exclude=None, marks=(), name="profiling_left_out.csv", pid=4242,
              functions=FUNCTIONS):
    """The run file of rows; a Function record per name in functions, with the seventh field
    "uninstrumented" (compiled without hooks) for those in marks."""
    recs = [["Frequency", 1_000_000_000], ["Format", "profreport-run", 4], ["Mode", "summary"],
            ["Program", "/opt/app/bin/app"], ["Command", "app"], ["Pid", pid],
            ["Host", "testhost"], ["Start", "2026-01-01T10:00:00.000000Z"],
            ["Clock", "monotonic"]]
    if exclude is not None:
        recs.append(["Exclude", exclude])
    recs += [["Timing", "sampled", "perf-task-clock", MS, 200, 20],
             ["Duration", BUSY], ["Complete", "yes"], ["Threads", 1],
             ["Thread", 1, 1000 + pid, "main", "exited"]]
    for name_ in functions:
        recs.append(["Function", name_, "", "", "/opt/app/bin/app", "0x1000"]
                    + (["uninstrumented"] if name_ in marks else []))
    recs.append(HEADER)
    recs += rows
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_bytes(csv_bytes(recs))
    return path


def write_case(folder, case, **kw):
    """The run of one kind: its function's rows, with its run's filters and marks."""
    return write_run(folder, rows_of(case["name"]), case["exclude"], case["marks"], **kw)


@pytest.fixture(scope="module", params=list(CASES))
def report(request, tmp_path_factory):
    case = CASES[request.param]
    tmp = tmp_path_factory.mktemp("left_out")
    runs = tmp / "runs"
    write_case(runs, case)
    out = {"case": case, "runs": runs, "xlsx": tmp / "r.xlsx", "csv": tmp / "csv",
           "json": tmp / "r.json", "callgrind": tmp / "r.callgrind", "folded": tmp / "r.folded"}
    p = must_run("--no-gnuplot", runs, "-o", out["xlsx"], "--csv", out["csv"], "--json",
                 out["json"], "--callgrind", out["callgrind"], "--folded", out["folded"])
    out["stdout"] = p.stdout.decode()
    out["book"] = Book(out["xlsx"])
    return out


def close_ms(got, ms):
    assert got is not None and abs(got - ms * MS) < 1e-6 * MS, (got, ms)


def check_call_cost(book, case):
    """Call cost: the function has no count, no cost per call, its samples as its time and
    the words that say why; the others as in any run."""
    _, rows, order = book.cost()
    fn = rows[case["name"]]
    assert fn["Calls"] == "not counted"
    for col in ("Mean", "Median", "Min", "Max", "P90", "P99", "Run mean", "Fastest run",
                "Slowest run", "Wall"):
        assert fn[col] is None, (col, fn[col])
    close_ms(fn["Total"], 34)
    close_ms(fn["Self"], 34)
    assert fn["Total %"] == pytest.approx(34 / 71)
    assert fn["Left out"] == case["note"]
    # the counted ones as before: counted calls, a cost per call, no note
    assert rows["helper"]["Calls"] == 50 and rows["helper"]["Left out"] is None
    assert rows["helper"]["Mean"] == pytest.approx(5 * MS / 50)
    assert rows["work"]["Calls"] == 100 and rows["work"]["Left out"] is None
    close_ms(rows["work"]["Total"], 50)
    close_ms(rows["work"]["Self"], 20)
    # a context that never stopped, of neither kind: no calls, no note, and, as before, no
    # row of its own (no completed call)
    assert "stuck" not in rows
    assert order[0] == "main" and order[1] == "work"


def test_call_cost_says_not_counted_and_keeps_the_time(report):
    check_call_cost(report["book"], report["case"])


def test_hit_count_and_runs_show_no_zero_calls(report):
    book, name = report["book"], report["case"]["name"]
    _, hits = book.table("Hit count")
    fn = next(r for r in hits if r["Region"] == name)
    assert fn["Calls"] == report["case"]["hits"]
    assert fn["Run 1"] is None and fn["Thread: main"] is None
    assert next(r for r in hits if r["Region"] == "helper")["Run 1"] == 50
    _, _, calls = book.matrix("Calls, region x run")
    assert calls[name] == [None] and calls["helper"] == [50]
    _, _, means = book.matrix("Mean cost per call")
    assert means[name] == [None]


def test_call_tree_and_call_paths(report):
    book, name = report["book"], report["case"]["name"]
    _, edges = book.table("Call tree")
    by = {(e["Caller"], e["Callee"]): e for e in edges}
    for caller, ms in (("work", 30), ("main", 4)):
        e = by[(caller, name)]
        assert e["Calls"] == "not counted", e
        assert e["Mean"] is None and e["Share of callee's calls"] is None, e
        close_ms(e["Total"], ms)
        close_ms(e["Self"], ms)
        assert e["Left out"] == report["case"]["note"]
    assert by[("main", "helper")]["Calls"] == 50
    assert by[("main", "helper")]["Left out"] is None
    _, paths = book.table("Call paths")
    got = {p["Call path"]: p for p in paths}
    fn = next(p for k, p in got.items() if k.endswith(f"work > {name}"))
    assert fn["Calls"] == "not counted"
    close_ms(fn["Self"], 30)
    stuck = next(p for k, p in got.items() if k.endswith("stuck"))
    assert stuck["Calls"] == 0  # the old meaning, unchanged


def test_summary_lists_the_functions_time_and_why(report):
    book, case = report["book"], report["case"]
    rows = book.rows("Summary")
    filters = book.summary().get("Left out (PROFILER_EXCLUDE)")
    if case["filters"] is None:  # nothing was left out: no filter line
        assert filters is None and "Only (PROFILER_INCLUDE)" not in book.summary()
    else:
        assert filters.startswith(case["filters"]), filters
    lines = [r for r in rows if r and r[0] in ("Left-out function", "Uninstrumented function")]
    assert len(lines) == 1, lines
    assert lines[0][:2] == [case["label"], case["name"]]
    close_ms(lines[0][2], 34)
    assert lines[0][3] == case["summary_note"]
    # the top table: no number under Calls (its chart reads the column), a word beside it (the
    # line above says why; the whole reason there made the printed page a third wider)
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Region")
    top = {r[0]: r for r in rows[head + 1:] if r and r[0]}
    assert top[case["name"]][5] is None and top[case["name"]][6] is None
    assert top[case["name"]][7] == "not counted"
    assert top["helper"][5] == 50


def test_terminal_profile_says_not_counted(report):
    line = next(l for l in report["stdout"].splitlines() if l.endswith(report["case"]["name"]))
    fields = line.split()
    # total%, total, self, then the calls: the words in place of a count
    assert fields[5:7] == ["not", "counted"], line


def test_csv_and_json_leave_the_calls_empty(report):
    name, note = report["case"]["name"], report["case"]["note"]
    with open(report["csv"] / "callcost.csv", newline="", encoding="utf-8") as f:
        rows = {r["Region"]: r for r in csv.DictReader(f)}
    assert rows[name]["Calls"] == ""
    assert rows[name]["Mean (ns)"] == ""
    assert float(rows[name]["Self (ns)"]) == 34 * MS
    assert rows[name]["Left out"] == note
    assert rows["helper"]["Calls"] == "50" and rows["helper"]["Left out"] == ""
    with open(report["csv"] / "calltree.csv", newline="", encoding="utf-8") as f:
        edges = {(r["Caller"], r["Callee"]): r for r in csv.DictReader(f)}
    assert edges[("work", name)]["Calls"] == ""
    assert edges[("work", name)]["Left out"] == note
    data = json.loads(report["json"].read_text(encoding="utf-8"))
    fn = next(r for r in data["callcost"] if r["Region"] == name)
    assert fn["Calls"] is None and fn["Mean (ns)"] is None
    assert fn["Total (ns)"] == 34 * MS and fn["Left out"] == note
    helper = next(r for r in data["callcost"] if r["Region"] == "helper")
    assert helper["Calls"] == 50 and helper["Left out"] is None
    edge = next(r for r in data["calltree"] if (r["Caller"], r["Callee"]) == ("work", name))
    assert edge["Calls"] is None and edge["Mean (ns)"] is None


def test_callgrind_and_folded_keep_the_time_where_it_was_spent(report):
    """callgrind has no unknown call count, and every count says something false: calls=0
    makes callgrind_annotate add the call's cost to the caller's own cost, calls=1 claims a
    call nobody counted. So the function gets no call record, only a comment in its caller's
    block (with the words why), and its time is its own cost: each caller's own cost is its
    self time as the workbook shows it, in callgrind_annotate too. A context that never
    stopped (stuck, Calls 0 of neither kind) is written the same way."""
    path, name = report["callgrind"], report["case"]["name"]
    text = path.read_text(encoding="utf-8")
    note = report["case"]["note"]
    assert text.count(f"# not a call record: {name}, 30000000 ns inclusive, {note}\n") == 1
    assert text.count(f"# not a call record: {name}, 4000000 ns inclusive, {note}\n") == 1
    assert text.count("calls not counted") == 2  # not the other kind's words
    assert text.count("# not a call record: stuck, 2000000 ns inclusive, its instances never "
                      "stopped: no count\n") == 1
    assert "calls=0" not in text
    calls = parse_callgrind_calls(path)
    assert ("work", name) not in calls and ("main", name) not in calls
    assert ("main", "stuck") not in calls
    assert calls[("main", "work")] == 100 and calls[("main", "helper")] == 50
    own, incl, totals = callgrind_costs(path)
    assert totals == 71 * MS == sum(own.values())
    expected = {"main": 10 * MS, "work": 20 * MS, "helper": 5 * MS, "stuck": 2 * MS,
                name: 34 * MS}
    assert own == expected
    # a call record's inclusive cost is still the callee's whole time, left-out part and all
    assert incl["work"] == 20 * MS and incl["main"] == (10 + 50 + 5) * MS
    _, rows, _ = report["book"].cost()
    for fn in ("main", "work", "helper"):
        close_ms(rows[fn]["Self"], expected[fn] / MS)
    # valgrind's own reader: the same own costs, the workbook's self times
    total, by_fn = callgrind_annotate(path)
    assert total == 71 * MS and by_fn == expected
    folded = dict(l.rsplit(" ", 1) for l in report["folded"].read_text().splitlines())
    assert int(folded[f"main;work;{name}"]) == 30 * MS
    assert int(folded[f"main;{name}"]) == 4 * MS


def test_compact_keeps_what_tells_the_rows(report, tmp_path):
    """--compact copies the run's records, the Exclude record and the Function records'
    marks with them: its compact reads as the run does."""
    must_run(report["runs"], "--compact", tmp_path / "c")
    (compact,) = [p for p in (tmp_path / "c").iterdir() if p.suffix == ".csv"]
    text = compact.read_text()
    name = report["case"]["name"]
    marked = f"Function,{name},,,/opt/app/bin/app,0x1000,uninstrumented\n" in text
    assert marked == (name in report["case"]["marks"])
    must_run("--no-gnuplot", compact, "-o", tmp_path / "c.xlsx")
    check_call_cost(Book(tmp_path / "c.xlsx"), report["case"])


@pytest.mark.parametrize("name", ["tiny_add", "plain_burn"])
def test_a_run_without_filters_or_marks_keeps_calls_0_rows_as_never_stopped(tmp_path, name):
    """The same rows without an Exclude record, and every Function record of six fields:
    nothing is left out or without hooks, the function's rows are contexts that never stopped
    (the old meaning), so it has no row of its own."""
    write_run(tmp_path / "runs", rows_of(name))
    must_run("--no-gnuplot", tmp_path / "runs", "-o", tmp_path / "r.xlsx", "--callgrind",
             tmp_path / "r.callgrind")
    book = Book(tmp_path / "r.xlsx")
    headers, rows, _ = book.cost()
    assert name not in rows
    assert all(r["Left out"] is None for r in rows.values())
    assert not [r for r in book.rows("Summary")
                if r and r[0] in ("Left-out function", "Uninstrumented function")]
    assert "calls not counted" not in (tmp_path / "r.callgrind").read_text()


@pytest.mark.parametrize("kind", list(CASES))
def test_suggest_never_offers_a_function_whose_calls_were_not_counted(tmp_path, kind):
    """One run: the function is not one the run kept (main, work, helper and stuck are). Two
    runs: the first left it out or had no hooks for it, the second counted ten million calls
    of 0.3 ns (3 ms of samples). Hot and tiny as it is there, it is not suggested; step, as hot
    and tiny and counted everywhere, is."""
    case, runs = CASES[kind], tmp_path / "runs"
    write_case(runs, case)
    p = must_run("--no-gnuplot", runs, "-o", tmp_path / "one.xlsx", "--suggest-exclude",
                 tmp_path / "one.opt")
    assert "suggest: 0 of 4 functions make" in p.stdout.decode(), p.stdout.decode()
    name = case["name"]
    kept = [row("main", 1, 0, 1, 10, below=20 + 3 + 3), row("work", 2, 1, 100, 20),
            row(name, 3, 1, 10_000_000, 3), row("step", 4, 1, 10_000_000, 3)]
    write_run(runs, kept, name="profiling_kept.csv", pid=4343)
    p = must_run("--no-gnuplot", runs, "-o", tmp_path / "r.xlsx", "--suggest-exclude",
                 tmp_path / "next.opt")
    text = p.stdout.decode()
    line = next(l for l in text.splitlines() if "PROFILER_EXCLUDE=" in l)
    assert line.endswith(case["suggested"]), line
    _, rows, _ = Book(tmp_path / "r.xlsx").cost()
    # counted where it was: its calls, with the note that one run did not count them
    assert rows[name]["Calls"] == 10_000_000
    assert rows[name]["Left out"] == case["some_runs"]
    close_ms(rows[name]["Self"], 34 + 3)


@pytest.mark.parametrize("kind", list(CASES))
def test_summary_shows_the_ten_heaviest_and_counts_the_rest(tmp_path, kind):
    """Twelve such functions, each under main, burn_01 with 1 ms up to burn_12 with 12 ms: the
    Summary lists the ten heaviest, heaviest first, and counts the other two."""
    case = CASES[kind]
    names = [f"burn_{i:02d}" for i in range(1, 13)]
    rows = [row("main", 1, 0, 1, 1, below=sum(range(1, 13)))]
    rows += [row(n, 2 + i, 1, 0, i + 1) for i, n in enumerate(names)]
    write_run(tmp_path / "runs", rows, exclude="burn_*" if case["exclude"] else None,
              marks=names if case["marks"] else (), functions=["main", *names])
    must_run("--no-gnuplot", tmp_path / "runs", "-o", tmp_path / "r.xlsx")
    summary = Book(tmp_path / "r.xlsx").rows("Summary")
    listed = [r[1] for r in summary if r and r[0] == case["label"]]
    assert listed == names[::-1][:10], listed
    more = [r[1] for r in summary if r and isinstance(r[1], str) and " more " in r[1]]
    assert more == [case["more"]], more
