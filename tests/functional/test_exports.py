"""test_exports.py - functional tests of profreport's exports: --trace, --folded, --callgrind,
--csv and --json.

Each export is read back by an independent reader (Python's json and csv modules, a folded-stack
parser written here, and valgrind's callgrind_annotate, a real consumer of the callgrind
format) and its totals are compared with the workbook's (openpyxl) and with numbers computed
here from the rows written to the run files. No flame-graph tool is packaged by Debian, so the
folded file is checked by the parser below, which follows flamegraph.pl's reading of a line
(the stack, then whitespace, then the count).
"""

import csv
import json
import math
import random
import re
import shlex
import shutil
import subprocess
import zipfile
from collections import defaultdict
from xml.etree import ElementTree

import pytest

from conftest import BUILD, ROOT, clean_env, run_command, run_files
from reporter_helpers import (
    Book,
    EventRow,
    RunSpec,
    Thread,
    Tree,
    close,
    expect_events,
    headers_by_name,
    lay_out,
    listing,
    must_run,
    profreport,
    templates_args,
)

EXPORT_NAMES = ("callcost", "calltree", "runs", "threads")


# ---- data ----


def mixed_runs(seed=61):
    """Two events-mode runs (1 GHz and 2.5 GHz) with nested regions, recursion ("rec" inside
    "rec") and named threads, and the same thread names in both runs."""
    rng = random.Random(seed)

    def outer():
        kids = [Tree("inner", rng.randint(100, 9000)) for _ in range(rng.randint(1, 3))]
        if rng.random() < 0.5:
            kids.append(Tree("io wait", rng.randint(10, 500), [Tree("inner", 77)]))
        return Tree("outer", rng.randint(50, 3000), kids, [rng.randint(0, 200) for _ in kids])

    def rec(levels):
        node = Tree("rec", rng.randint(200, 4000), [Tree("leaf", rng.randint(100, 900))])
        for _ in range(levels):
            node = Tree("rec", rng.randint(200, 4000), [node], [rng.randint(0, 50)])
        return node

    runs = []
    for k, freq in enumerate((1_000_000_000, 2_500_000_000)):
        threads = [Thread(1, 500 + k, "main"), Thread(2, 600 + k, "worker")]
        rows, end = [], 0
        for t in threads:
            trees = [outer() for _ in range(rng.randint(3, 6))]
            trees += [rec(rng.randint(1, 3)) for _ in range(rng.randint(1, 3))]
            if t.name == "worker":
                trees += [Tree("job", rng.randint(1000, 9000)) for _ in range(3)]
            rng.shuffle(trees)
            trows, tend = lay_out(t.number, trees, rng)
            rows += trows
            end = max(end, tend)
        runs.append(RunSpec(f"profiling_2026.03.0{k + 1}_10.00.00_{500 + k}.csv", freq, threads,
                            rows, duration=end + 100, pid=500 + k, program="/opt/app",
                            host="h", start=f"2026-03-0{k + 1}T10:00:00.000000Z"))
    return runs


def row_paths(rows):
    """The call path (tuple of ids, outermost first) of every row of one run, worked out from
    Depth and the end order (FORMAT.md 1.3): a row adopts the rows waiting one level deeper."""
    paths = [None] * len(rows)
    parent = [None] * len(rows)
    by_thread = defaultdict(list)
    for i, r in enumerate(rows):
        by_thread[r.thread].append(i)
    for idx in by_thread.values():
        pending = defaultdict(list)
        for i in idx:
            d = rows[i].depth
            for c in pending.pop(d + 1, []):
                parent[c] = i
            pending[d].append(i)
    for i in range(len(rows)):
        path, j = [], i
        while j is not None:
            path.append(rows[j].region)
            j = parent[j]
        paths[i] = tuple(reversed(path))
    return paths


def expected_paths(runs):
    """{path: [calls, self ns]} over every run, for the folded and callgrind exports."""
    out = defaultdict(lambda: [0, 0.0])
    for run in runs:
        for row, path in zip(run.rows, row_paths(run.rows)):
            if row.ticks is None:
                continue
            out[path][0] += 1
            out[path][1] += row.self_ticks * 1e9 / run.frequency
    return out


def export_all(folder, tmp_path, *extra):
    """profreport with every export; returns (process, Book, {kind: path})."""
    out = {"xlsx": tmp_path / "out.xlsx", "trace": tmp_path / "trace.json",
           "folded": tmp_path / "stacks.folded", "callgrind": tmp_path / "callgrind.out",
           "csv": tmp_path / "csv", "json": tmp_path / "stats.json"}
    p = must_run(folder, "-o", out["xlsx"], "--no-gnuplot", "--unit", "ns", "--trace",
                 out["trace"], "--folded", out["folded"], "--callgrind", out["callgrind"],
                 "--csv", out["csv"], "--json", out["json"], *extra)
    return p, Book(out["xlsx"]), out


# ---- readers ----


def read_folded(path):
    """{tuple of frames: count} of a folded-stacks file; every line must parse."""
    out = {}
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        m = re.fullmatch(r"(.*\S)\s+(\d+)", line)
        assert m, f"{path}:{n}: not a folded-stack line: {line!r}"
        key = tuple(m.group(1).split(";"))
        assert key not in out, f"{path}:{n}: stack {key} twice"
        out[key] = int(m.group(2))
    return out


def callgrind_annotate(path, inclusive=False):
    """Run valgrind's callgrind_annotate; returns (program total, {function: cost})."""
    tool = shutil.which("callgrind_annotate")
    if tool is None:
        pytest.fail("callgrind_annotate is missing: install valgrind (scripts/deps.sh)")
    p = subprocess.run([tool, "--auto=no", "--threshold=100",
                        f"--inclusive={'yes' if inclusive else 'no'}", str(path)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stderr == b"", p.stderr.decode(errors="replace")
    total, funcs = None, {}
    for line in p.stdout.decode("utf-8").splitlines():
        m = re.match(r"^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
        if not m:
            continue
        cost = int(m.group(1).replace(",", ""))
        what = m.group(2)
        if what.startswith("PROGRAM TOTALS"):
            total = cost
        else:
            assert what.startswith("regions:"), line
            funcs[what[len("regions:"):]] = cost
    assert total is not None, p.stdout.decode()
    return total, funcs


def callgrind_lines(path):
    """The lines of a callgrind file other than fn=/cfn= ones, each with the current function
    and called function (names decompressed): [(fn, cfn, line)]."""
    names, fn, cfn, out = {}, None, None, []
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^(c?fn)=\((\d+)\)(?: (.*))?$", line)
        if not m:
            out.append((fn, cfn, line))
            continue
        if m.group(3) is not None:
            names[m.group(2)] = m.group(3)
        if m.group(1) == "fn":
            fn = names[m.group(2)]
        else:
            cfn = names[m.group(2)]
    return out


def parse_callgrind_calls(path):
    """{(caller, callee): calls} from the fn=/cfn=/calls= lines."""
    calls = defaultdict(int)
    for fn, cfn, line in callgrind_lines(path):
        m = re.match(r"^calls=(\d+) ", line)
        if m:
            calls[(fn, cfn)] += int(m.group(1))
    return calls


def callgrind_costs(path):
    """The callgrind file read by its format's rules, as kcachegrind reads it: a cost line
    after calls= is that call's inclusive cost, any other is the current function's own.
    Returns ({function: own cost}, {function: own cost + its calls' inclusive costs}, totals)."""
    own, incl, call, totals = {}, {}, False, None
    for fn, _, line in callgrind_lines(path):
        if line.startswith("calls="):
            call = True
            continue
        if line.startswith("totals:"):
            totals = int(line.split()[1])
        m = re.match(r"^\d+ (\d+)$", line)
        if m:
            cost = int(m.group(1))
            if not call:
                own[fn] = own.get(fn, 0) + cost
            incl[fn] = incl.get(fn, 0) + cost
            call = False
    return own, incl, totals


def check_nesting(events):
    """Complete events of one track nest: each lies inside the enclosing one (by time)."""
    stack = []
    for e in sorted(events, key=lambda e: (e["ts"], -e["dur"])):
        while stack and e["ts"] >= stack[-1]["ts"] + stack[-1]["dur"] - 1.5e-3:
            stack.pop()
        assert len(stack) == e["args"]["depth"], (e, stack[-1:] or None)
        if stack:
            assert e["ts"] + e["dur"] <= stack[-1]["ts"] + stack[-1]["dur"] + 2e-3, (e, stack[-1])
        stack.append(e)


# ---- tests ----


def test_every_export_agrees_with_the_workbook_and_the_rows(tmp_path):
    """On two runs of nested and recursive regions at 1 and 2.5 GHz: the JSON and CSV
    statistics equal the workbook's Call cost, Call tree, Runs and Threads sheets; the folded
    stacks are exactly the rows' call paths with their self time (to the ns); callgrind_annotate
    reads the callgrind file with a program total equal to all self time and, per region, the
    workbook's Self (and its Total, inclusive, for regions that do not recurse); the trace has
    one complete event per instance with the Calls, Total and per-thread Busy of the workbook,
    named threads, one process per run and the run metadata."""
    runs = mixed_runs()
    folder = tmp_path / "runs"
    for r in runs:
        r.write(folder)
    p, book, out = export_all(folder, tmp_path)
    stdout = p.stdout.decode()
    for kind in ("trace", "folded", "callgrind", "json"):
        assert str(out[kind]) in stdout
    exp = expect_events(runs)
    headers, cost, _ = book.cost()
    assert set(cost) == set(exp.regions)

    # JSON and CSV: the workbook's sheets, value for value, in ns (the workbook uses ns too).
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert data["unit"] == "ns"
    assert sorted(p.name for p in out["csv"].iterdir()) == sorted(f"{n}.csv" for n in EXPORT_NAMES)
    sheets = {"callcost": "Call cost", "calltree": "Call tree", "runs": "Runs",
              "threads": "Threads"}
    for name, sheet in sheets.items():
        wb_headers, wb_rows = book.table(sheet)
        with open(out["csv"] / f"{name}.csv", newline="", encoding="utf-8") as f:
            records = list(csv.reader(f, strict=True))
        assert records[0] == wb_headers, name
        assert list(data[name][0].keys()) == wb_headers, name
        assert len(records) - 1 == len(wb_rows) == len(data[name]), name
        for rec, obj, wb in zip(records[1:], data[name], wb_rows):
            for h, text in zip(records[0], rec):
                want = wb[h]
                if isinstance(want, (int, float)):
                    close(float(text), want, rel=1e-12, what=f"{name}.csv {h}")
                    close(obj[h], want, rel=1e-12, what=f"{name}.json {h}")
                elif want is None:
                    assert text == "" and obj[h] is None, (name, h, text, obj[h])
                else:
                    assert text == want and obj[h] == want, (name, h, text, obj[h], want)

    # Folded stacks: the call paths of the rows, self time in whole ns.
    paths = expected_paths(runs)
    folded = read_folded(out["folded"])
    want = {k: round(v[1]) for k, v in paths.items() if round(v[1]) >= 1}
    assert folded == want
    by = headers_by_name(headers)
    for rid, e in exp.regions.items():
        got = sum(n for k, n in folded.items() if k[-1] == rid)
        lines = sum(1 for k in folded if k[-1] == rid)
        assert abs(got - e.self_ns) <= 0.5 * lines + 1e-6, (rid, got, e.self_ns)
        assert abs(got - cost[rid][by["Self"]]) <= 0.5 * lines + 1e-6

    # Callgrind, through callgrind_annotate: self per region, all self time in total.
    total, self_cost = callgrind_annotate(out["callgrind"])
    assert total == sum(self_cost.values())
    assert abs(total - exp.self_all) <= 0.5 * len(paths)
    assert set(self_cost) == set(exp.regions)
    for rid, e in exp.regions.items():
        n = sum(1 for k in paths if k[-1] == rid)
        assert abs(self_cost[rid] - cost[rid][by["Self"]]) <= 0.5 * n + 1e-6, rid
    _, incl = callgrind_annotate(out["callgrind"], inclusive=True)
    for rid in ("outer", "inner", "io wait", "job", "leaf"):
        n = sum(1 for k in paths if rid in k)
        assert abs(incl[rid] - cost[rid][by["Total"]]) <= 0.5 * n + 1e-6, rid
    # Recursion counts inner calls again in callgrind's inclusive cost (documented).
    assert incl["rec"] > cost["rec"][by["Total"]]
    calls = parse_callgrind_calls(out["callgrind"])
    edges = {(r["Caller"], r["Callee"]): r["Calls"] for r in book.table("Call tree")[1]}
    for (caller, callee), n in calls.items():
        assert edges[(caller, callee)] == n, (caller, callee)
    assert sum(calls.values()) == sum(n for (a, _), n in edges.items()
                                      if a != "(thread top level)")

    # Trace: every instance, per thread track, in microseconds.
    trace = json.loads(out["trace"].read_text(encoding="utf-8"))
    events = trace["traceEvents"]
    xs = [e for e in events if e["ph"] == "X"]
    assert len(xs) == sum(len(r.rows) for r in runs)
    assert {e["pid"] for e in xs} == {1, 2}
    for rid, e in exp.regions.items():
        mine = [x for x in xs if x["name"] == rid]
        assert len(mine) == cost[rid]["Calls"] == e.calls
        dur = sum(x["dur"] for x in mine if not x["args"].get("nested")) * 1e3
        assert abs(dur - cost[rid][by["Total"]]) <= 0.5 * len(mine) + 1e-6, rid
        self_ns = sum(x["args"]["self_us"] for x in mine) * 1e3
        assert abs(self_ns - cost[rid][by["Self"]]) <= 0.5 * len(mine) + 1e-6, rid
    _, threads = book.table("Threads")
    for t in threads:
        track = [x for x in xs if x["pid"] == t["Run"] and x["tid"] == t["Thread"]]
        top = [x for x in track if x["args"]["depth"] == 0]
        busy = sum(x["dur"] for x in top) * 1e3
        assert abs(busy - t["Busy (ns)"]) <= 0.5 * len(top) + 1e-6
        check_nesting(track)
    meta = {(e["name"], e["pid"], e["tid"]): e["args"] for e in events if e["ph"] == "M"}
    for k, run in enumerate(runs, 1):
        assert meta[("process_name", k, 0)]["name"] == f"run {k}: {run.program}"
        for t in run.threads:
            assert meta[("thread_name", k, t.number)]["name"] == t.name
        other = trace["otherData"]
        assert other[f"run {k} file"].endswith(run.name)
        assert other[f"run {k} host"] == run.host
        assert other[f"run {k} frequency"] == f"{run.frequency} Hz"
    assert trace["otherData"]["runs"] == "2"
    assert listing(tmp_path) == sorted(
        ["callgrind.out", "csv", "out.xlsx", "runs", "stacks.folded", "stats.json",
         "trace.json"] + [f"csv/{n}.csv" for n in EXPORT_NAMES]
        + [f"runs/{r.name}" for r in runs])


HOSTILE = ["=HYPERLINK(\"http://x\",\"y\")", "+1", "-2", "@sum", "\tTab", "\rCR",
           "semi;colon", "new\nline", "plain, comma", "quote\"d", "back\\slash"]


def test_hostile_ids_stay_text_in_every_export(tmp_path):
    """Region ids that look like formulas, hold separators, controls or invalid UTF-8: CSV
    cells starting with = + - @ TAB CR get a leading ' (OWASP) and read back with the csv
    module; JSON and the trace parse, with invalid bytes as U+FFFD; folded stacks keep one
    stack per line with ';' inside an id written as ':'; callgrind_annotate reads every
    function."""
    ids = HOSTILE + [b"bad\xffbyte"]
    rows, start = [], 0
    for i, rid in enumerate(ids):
        rows.append(EventRow(rid, 100 + i, 1, "", 0, 100 + i, start, 0))
        start += 1000
    run = RunSpec("profiling_2026.04.04_00.00.00_7.csv", 10**9, [Thread(1, 7, "ma\tin")], rows,
                  duration=start)
    run.write(tmp_path / "runs")
    _, book, out = export_all(tmp_path / "runs", tmp_path)
    display = [r if isinstance(r, str) else "bad\ufffdbyte" for r in ids]
    with open(out["csv"] / "callcost.csv", newline="", encoding="utf-8") as f:
        got = [r[0] for r in list(csv.reader(f, strict=True))[1:]]
    want = [("'" + d if d[0] in "=+-@\t\r" else d) for d in display]
    assert sorted(got) == sorted(want)
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert sorted(r["Region"] for r in data["callcost"]) == sorted(display)
    _, cost, _ = book.cost()
    # openpyxl reads a CR in a cell as the escape the XLSX format uses for it.
    assert sorted(c.replace("_x000D_", "\r") for c in cost) == sorted(display)
    trace = json.loads(out["trace"].read_text(encoding="utf-8"))
    assert sorted(e["name"] for e in trace["traceEvents"] if e["ph"] == "X") == sorted(display)
    names = [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "thread_name"]
    assert names == ["ma\tin"]
    folded = read_folded(out["folded"])
    # Line breaks and tabs are shown as C escapes, as everywhere names show.
    flat = {d.replace(";", ":").replace("\n", "\\n").replace("\t", "\\t")
            .replace("\r", "\\r") for d in display}
    assert {k[0] for k in folded} == flat and all(len(k) == 1 for k in folded)
    total, funcs = callgrind_annotate(out["callgrind"])
    assert total == sum(100 + i for i in range(len(ids)))
    assert len(funcs) == len(ids)


# Ids with what XML 1.0 refuses or a terminal would obey: C0 controls, ESC, DEL, an invalid
# byte, a UTF-16 surrogate encoded in UTF-8 (ED A0 80, invalid UTF-8) and U+FFFE; then how
# the workbook, charts, terminal, folded stacks and callgrind show each, and how the exact
# exports (CSV, JSON) keep it: worked out by hand from profreport(1).
XML_HOSTILE = [
    (b"a\x01", "a\\x01", "a\x01"),
    (b"b\x1b[31m", "b\\x1b[31m", "b\x1b[31m"),
    (b"c\x7f", "c\\x7f", "c\x7f"),
    (b"d\xff", "d\ufffd", "d\ufffd"),
    (b"e\xed\xa0\x80", "e\ufffd\ufffd\ufffd", "e\ufffd\ufffd\ufffd"),
    (b"f\xef\xbf\xbe", "f\ufffd", "f\ufffe"),
]


def test_control_characters_in_ids_keep_every_xml_part_valid(tmp_path):
    """Region ids with control characters, invalid UTF-8, an encoded surrogate and U+FFFE:
    every XML part of the workbook (cells, native charts' cached categories, properties) and
    every SVG chart parses; openpyxl opens the workbook; the ids are shown with visible,
    distinct stand-ins (C escapes such as \\x01, U+FFFD) there and on the terminal, in the
    folded stacks and callgrind; CSV and JSON keep the exact text (valid UTF-8)."""
    rows, start = [], 0
    for i, (rid, _, _) in enumerate(XML_HOSTILE):
        rows.append(EventRow(rid, 1000 * (i + 1), 1, "", 0, 1000 * (i + 1), start, 0))
        start += 10000
    run = RunSpec("profiling_2026.04.06_00.00.00_6.csv", 10**9, [Thread(1, 6, "ma\x01in")], rows,
                  duration=start)
    run.write(tmp_path / "runs")
    out = tmp_path / "out.xlsx"
    p = must_run(tmp_path / "runs", "-o", out, "--unit", "ns", "--title", "t\x02itle",
                 "--folded", tmp_path / "f", "--callgrind", tmp_path / "cg", "--csv",
                 tmp_path / "csv", "--json", tmp_path / "j.json", *templates_args())
    shown = sorted(v for _, v, _ in XML_HOSTILE)
    exact = sorted(e for _, _, e in XML_HOSTILE)
    assert len(set(shown)) == len(shown)
    with zipfile.ZipFile(out) as z:
        parts = [n for n in z.namelist() if n.endswith((".xml", ".rels"))]
        assert any(re.fullmatch(r"xl/charts/chart\d+\.xml", n) for n in parts)
        for name in parts:
            ElementTree.fromstring(z.read(name))  # raises on a character XML forbids
        cats = set(re.findall(r"<c:v>([^<]*)</c:v>", z.read("xl/charts/chart1.xml").decode()))
    assert set(shown) <= cats
    for svg in (tmp_path / "out-charts").glob("*.svg"):
        ElementTree.parse(svg)
    book = Book(out)
    _, cost, _ = book.cost()
    assert sorted(cost) == shown
    assert book.wb.properties.title == "t\\x02itle"
    threads = book.table("Threads")[1]
    assert [t["Name"] for t in threads] == ["ma\\x01in"]
    terminal = p.stdout.decode()
    assert "\x1b" not in terminal and all(v in terminal for v in shown)
    assert sorted(k[0] for k in read_folded(tmp_path / "f")) == shown
    _, funcs = callgrind_annotate(tmp_path / "cg")
    assert sorted(funcs) == shown
    data = json.loads((tmp_path / "j.json").read_text(encoding="utf-8"))
    assert sorted(r["Region"] for r in data["callcost"]) == exact
    with open(tmp_path / "csv" / "callcost.csv", newline="", encoding="utf-8") as f:
        assert sorted(r[0] for r in list(csv.reader(f, strict=True))[1:]) == exact


def test_empty_region_id_is_shown_as_empty_everywhere(tmp_path):
    """An empty region id is shown as "(empty)" in the workbook, on the terminal and in every
    export (it used to give a folded line " 500" and a callgrind "fn=" with no name); a region
    really named "(empty)" stays a region of its own."""
    rows = [EventRow("", 500, 1, "outer", 1, 500, 100, 0),
            EventRow("outer", 1000, 1, "", 0, 500, 0, 0),
            EventRow("", 200, 1, "", 0, 200, 2000, 0)]
    run = RunSpec("profiling_2026.04.05_00.00.00_8.csv", 10**9, [Thread(1, 8, "main")], rows,
                  duration=3000)
    run.write(tmp_path / "runs")
    p, book, out = export_all(tmp_path / "runs", tmp_path)
    assert re.search(r"\(empty\)\n", p.stdout.decode())  # the terminal's flat profile
    _, cost, _ = book.cost()
    assert set(cost) == {"outer", "(empty)"} and cost["(empty)"]["Calls"] == 2
    _, tree = book.table("Call tree")
    assert {(r["Caller"], r["Callee"]) for r in tree} == {
        ("outer", "(empty)"), ("(thread top level)", "outer"), ("(thread top level)", "(empty)")}
    _, paths = book.table("Call paths")
    assert {r["Call path"]: r["Region"] for r in paths} == {
        "outer > (empty)": "(empty)", "outer": "outer", "(empty)": "(empty)"}
    assert read_folded(out["folded"]) == {("outer", "(empty)"): 500, ("outer",): 500,
                                          ("(empty)",): 200}
    total, funcs = callgrind_annotate(out["callgrind"])
    assert funcs == {"outer": 500, "(empty)": 700} and total == 1200
    assert parse_callgrind_calls(out["callgrind"]) == {("outer", "(empty)"): 1}
    trace = json.loads(out["trace"].read_text(encoding="utf-8"))
    assert sorted(e["name"] for e in trace["traceEvents"] if e["ph"] == "X") == [
        "(empty)", "(empty)", "outer"]
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    assert {r["Region"] for r in data["callcost"]} == {"outer", "(empty)"}
    with open(out["csv"] / "calltree.csv", newline="", encoding="utf-8") as f:
        assert ["outer", "(empty)"] in [r[:2] for r in csv.reader(f)]

    rows.append(EventRow("(empty)", 50, 1, "", 0, 50, 2500, 0))
    run.write(tmp_path / "runs")
    _, book, _ = export_all(tmp_path / "runs", tmp_path)
    _, _, order = book.cost()
    assert sorted(order) == ["(empty)", "(empty)", "outer"]


def test_summary_and_seed_runs_export_regions_as_roots(tmp_path):
    """Summary-mode and seed-form runs have no call paths: folded stacks and callgrind list
    each region as a root with its self time (summary) or its whole time (seed); the trace
    names their processes, has no instance of the summary run and lays the seed run's
    instances end to end (test_seed_form_trace_lays_instances_end_to_end); CSV and JSON have
    their statistics."""
    folder = tmp_path / "runs"
    summary = RunSpec("profiling_2026.05.05_00.00.00_1.csv", 2 * 10**9, [Thread(1, 1, "main")],
                      [{"Region": "hot", "Thread": 1, "Calls": 4, "Ticks": 8000, "Self": 6000,
                        "Min": 1000, "Max": 4000, "SumSquares": "2.2e7", "Outer": 8000,
                        "Histogram": "63:2;71:1;79:1"}],
                      mode="summary", duration=10**6)
    summary.write(folder)
    (folder / "seed.csv").write_bytes(b"Frequency,1000000\ncold,250\ncold,750\nopen,\n")
    _, book, out = export_all(folder, tmp_path)
    folded = read_folded(out["folded"])
    assert folded == {("hot",): 3000, ("cold",): 1_000_000}
    total, funcs = callgrind_annotate(out["callgrind"])
    assert funcs == {"hot": 3000, "cold": 1_000_000} and total == 1_003_000
    trace = json.loads(out["trace"].read_text(encoding="utf-8"))
    assert {e["pid"] for e in trace["traceEvents"] if e["ph"] in "XB"} == {2}  # the seed run
    assert {e["pid"] for e in trace["traceEvents"] if e["name"] == "process_name"} == {1, 2}
    data = json.loads(out["json"].read_text(encoding="utf-8"))
    calls = {r["Region"]: (r["Calls"], r["Never stopped"]) for r in data["callcost"]}
    assert calls == {"hot": (4, 0), "cold": (2, 0), "open": (0, 1)}
    _, cost, _ = book.cost()
    assert cost["hot"]["Self (ns)"] == 3000


def test_unstopped_instance_is_a_begin_event(tmp_path):
    """A region that never stopped is a 'B' event at its start (Perfetto shows it as not
    ended); its stopped child still counts under it in the folded stacks."""
    rows = [EventRow("child", 300, 1, "open", 1, 300, 100, 0),
            EventRow("open", None, 1, "", 0, None, 50, 0)]
    run = RunSpec("profiling_2026.06.06_00.00.00_3.csv", 10**9, [Thread(1, 3, "main")], rows,
                  duration=1000, complete="no")
    run.write(tmp_path / "runs")
    _, _, out = export_all(tmp_path / "runs", tmp_path)
    events = json.loads(out["trace"].read_text(encoding="utf-8"))["traceEvents"]
    (b,) = [e for e in events if e["ph"] == "B"]
    assert b["name"] == "open" and b["ts"] == 0.05 and b["args"]["never_stopped"] == 1
    (x,) = [e for e in events if e["ph"] == "X"]
    assert x["name"] == "child" and x["ts"] == 0.1 and x["dur"] == 0.3
    assert read_folded(out["folded"]) == {("open", "child"): 300}
    assert parse_callgrind_calls(out["callgrind"]) == {("open", "child"): 1}


def test_unwritable_export_exits_4_and_writes_nothing(tmp_path):
    """An export into a folder that does not exist fails before any work with exit status 4
    and names the file; no workbook, no other export and no temporary file is left; an
    existing workbook is kept."""
    run = RunSpec("profiling_2026.07.07_00.00.00_9.csv", 10**9, [Thread(1, 9, "main")],
                  [EventRow("good", 500, 1, "", 0, 500, 0, 0)], duration=1000)
    run.write(tmp_path / "runs")
    (tmp_path / "old.xlsx").write_bytes(b"old")
    p = profreport(tmp_path / "runs", "-o", tmp_path / "old.xlsx", "--no-gnuplot", "--json",
                   tmp_path / "j.json", "--trace", tmp_path / "missing" / "t.json")
    assert p.returncode == 4
    assert f"cannot write '{tmp_path / 'missing' / 't.json'}'" in p.stderr.decode()
    assert (tmp_path / "old.xlsx").read_bytes() == b"old"
    assert listing(tmp_path) == ["old.xlsx", "runs", f"runs/{run.name}"]
    p = profreport(tmp_path / "runs", "-o", tmp_path / "old.xlsx", "--no-gnuplot", "--csv",
                   tmp_path / "old.xlsx")
    assert p.returncode == 4 and "not a folder" in p.stderr.decode()
    assert (tmp_path / "old.xlsx").read_bytes() == b"old"
    assert listing(tmp_path) == ["old.xlsx", "runs", f"runs/{run.name}"]


def test_worker_pool_example_trace_has_its_thread_names(tmp_path):
    """examples/worker_pool run for real: its trace names the threads as the run file does,
    has one complete event per row, and callgrind_annotate's total equals the workbook's
    self time."""
    folder = tmp_path / "runs"
    p = run_command([BUILD / "examples" / "worker_pool"], env=clean_env({"PROFILER_DIR": folder}),
                    cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    (path,) = run_files(folder)
    records = list(csv.reader(path.read_text(encoding="utf-8").splitlines()))
    thread_names = {int(r[1]): r[3] for r in records if r and r[0] == "Thread"}
    nrows = len(records) - 1 - next(i for i, r in enumerate(records) if r and r[0] == "Region")
    _, book, out = export_all(folder, tmp_path)
    events = json.loads(out["trace"].read_text(encoding="utf-8"))["traceEvents"]
    named = {e["tid"]: e["args"]["name"] for e in events if e["name"] == "thread_name"}
    assert named == {n: (name or f"thread {n}") for n, name in thread_names.items()}
    assert len([e for e in events if e["ph"] == "X"]) == nrows
    total, _ = callgrind_annotate(out["callgrind"])
    headers, cost, _ = book.cost()
    self_col = headers_by_name(headers)["Self"]
    assert math.isclose(total, sum(r[self_col] for r in cost.values()), abs_tol=0.5 * nrows)


def test_readme_exports_command_works_as_written(tmp_path):
    """The README's exports command, run as written (with the built profreport) on the basic
    example's run files, writes the workbook and every export it names."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = re.search(r"## Exports for other tools\n.*?```sh\n(.*?)```", text, re.S).group(1)
    args = shlex.split(block.replace("\\\n", " "))
    assert args[0] == "profreport"
    p = run_command([BUILD / "examples" / "basic"],
                    env=clean_env({"PROFILER_DIR": tmp_path / "profiler-runs"}), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    must_run(*args[1:], "--no-gnuplot", cwd=tmp_path)
    for name in ("report.xlsx", "trace.json", "app.folded", "callgrind.out", "stats.json"):
        assert (tmp_path / name).stat().st_size > 0, name
    assert sorted(p.name for p in (tmp_path / "stats").iterdir()) == sorted(
        f"{n}.csv" for n in EXPORT_NAMES)
    folded = read_folded(tmp_path / "app.folded")
    assert {k for k in folded if k[0] == "load"} <= {("load",), ("load", "parse")}
    assert ("load", "parse") in folded


def test_seed_form_trace_lays_instances_end_to_end(tmp_path):
    """A seed-form run (FORMAT.md 2) has no start times. Its trace is not empty: the instances
    are laid end to end in file order, each at the sum of the durations before it, those that
    never stopped last as begin events; the process name and otherData say so, and so do a
    warning on stderr and the Warnings sheet."""
    folder = tmp_path / "runs"
    folder.mkdir()
    # 1 MHz: ticks are microseconds.
    (folder / "seed.csv").write_bytes(b"Frequency,1000000\nload,250\nopen,\nstep,100\n"
                                      b"step,150\n")
    p, book, out = export_all(folder, tmp_path)
    assert b"seed-form run has no start times" in p.stderr
    assert any(w["Message"].startswith("a seed-form run has no start times")
               for w in book.warnings())
    trace = json.loads(out["trace"].read_text(encoding="utf-8"))
    events = [e for e in trace["traceEvents"] if e["ph"] in "XB"]
    assert [(e["ph"], e["name"], e["ts"], e.get("dur")) for e in events] == [
        ("X", "load", 0, 250), ("X", "step", 250, 100), ("X", "step", 350, 150),
        ("B", "open", 500, None)]
    assert events[3]["args"]["never_stopped"] == 1
    (name,) = [e["args"]["name"] for e in trace["traceEvents"] if e["name"] == "process_name"]
    assert name.endswith("(seed form: laid end to end, no start times)")
    assert "laid end to end" in trace["otherData"]["run 1 note"]


def test_fast_path_and_libcsv_give_the_same_report(tmp_path):
    """The reader splits quote-free lines itself and gives the rest to libcsv (issue 14);
    PROFREPORT_LIBCSV_ONLY=1 gives every line to libcsv. Over the fuzz corpus of run files
    (events, summary, memory, recovered and cut files; quoted names), each also with CRLF
    line ends, both give byte-identical JSON, CSV, folded and callgrind exports
    and the same terminal output, warnings included."""
    folder = tmp_path / "runs"
    folder.mkdir()
    for i, f in enumerate(sorted((ROOT / "tests" / "fuzz" / "corpus" / "runfile").iterdir())):
        shutil.copy(f, folder / f"{i:03d}-{f.stem}.csv")
        # The same file with CRLF line ends (quoted line ends left alone).
        if b'"' not in f.read_bytes():
            crlf = f.read_bytes().replace(b"\n", b"\r\n")
            (folder / f"{i:03d}-{f.stem}-crlf.csv").write_bytes(crlf)
    outputs = {}
    for mode, env in (("fast", None), ("libcsv", {"PROFREPORT_LIBCSV_ONLY": "1"})):
        d = tmp_path / mode
        d.mkdir()
        p = profreport(folder, "-o", d / "r.xlsx", "--no-gnuplot", "--all-programs",
                       "--json", d / "r.json", "--csv", d / "csv", "--folded", d / "r.folded",
                       "--callgrind", d / "r.callgrind", env=env)
        assert p.returncode == 0, p.stderr.decode(errors="replace")
        files = {f.relative_to(d).as_posix(): f.read_bytes()
                 for f in sorted(d.rglob("*")) if f.is_file() and f.suffix != ".xlsx"}
        terminal = (p.stdout + p.stderr).replace(str(d).encode(), b"DIR")
        outputs[mode] = (files, terminal)
    fast, slow = outputs["fast"], outputs["libcsv"]
    assert sorted(fast[0]) == sorted(slow[0])
    assert len(fast[0]) >= 4
    for name in fast[0]:
        same = fast[0][name].replace(b"/fast/", b"/X/")
        assert same == slow[0][name].replace(b"/libcsv/", b"/X/"), name
    assert fast[1] == slow[1]
