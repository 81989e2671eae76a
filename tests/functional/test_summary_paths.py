"""test_summary_paths.py - version 3 summary run files (docs/FORMAT.md 1.4): rows per calling
context, placed by Node and Parent, read by the real profreport command.

The instances are described once, as trees of region instances per thread. From them the tests
write a summary run file by hand (one row per distinct path, in the order each thread first
entered it) and, for comparison, the events run file of the same instances; the expected
numbers are counted from the trees, never from the reporter's output.
"""

import json
from collections import defaultdict

from conftest import hist_bucket
from reporter_helpers import Book, EventRow, Tree, csv_bytes, lay_out, must_run
from test_exports import parse_callgrind_calls, read_folded

FREQUENCY = 10**9  # 1 tick = 1 ns: every time below is in ticks and in ns alike

SUMMARY_V3_HEADER = ["Region", "Thread", "Calls", "Ticks", "Self", "Min", "Max", "SumSquares",
                     "Outer", "Histogram", "Node", "Parent"]
EVENT_HEADER = ["Region", "Ticks", "Thread", "Parent", "Depth", "Self", "Start", "Nested"]
THREADS = [(1, 101, "main"), (2, 102, "pool")]


def workload():
    """{thread number: [top-level Tree]}: main > parse > token, main > token, and the
    recursion a > b > a on thread 1; parse > token and token on thread 2."""
    t = Tree
    return {
        1: [t("main", 100, [t("parse", 30, [t("token", 4), t("token", 6)], gaps=[2, 3]),
                            t("token", 5),
                            t("a", 7, [t("b", 11, [t("a", 13)])])],
              gaps=[1, 1, 1], post=9),
            t("main", 50, [t("parse", 20, [t("token", 8)]), t("a", 17)]),
            t("token", 3)],
        2: [t("parse", 40, [t("token", 2), t("token", 9)]), t("token", 12)],
    }


def instances(trees):
    """Every instance of a thread's trees in start order: (path tuple, ticks, self ticks),
    the times as lay_out computes them (its own time, children, gaps, post)."""
    out = []

    def walk(node, ancestors):
        me = len(out)
        out.append(None)
        child_ticks = 0
        for child, gap in zip(node.children, node.gaps):
            child_ticks += walk(child, ancestors + (node.name,))
        ticks = node.pre + child_ticks + sum(node.gaps) + node.post
        out[me] = (ancestors + (node.name,), ticks, ticks - child_ticks)
        return ticks

    for tree in trees:
        walk(tree, ())
    return out


def summary_rows(thread, trees):
    """The version 3 summary rows of one thread: one per path, numbered in the order the
    thread first entered it, each the account of the path's instances."""
    nodes = {}  # path -> row
    for path, ticks, self_ticks in instances(trees):
        if path not in nodes:
            nodes[path] = {"Region": path[-1], "Thread": thread, "ticks": [], "selfs": [],
                           "Node": len(nodes) + 1,
                           "Parent": nodes[path[:-1]]["Node"] if len(path) > 1 else 0,
                           "nested": path[-1] in path[:-1]}
        nodes[path]["ticks"].append(ticks)
        nodes[path]["selfs"].append(self_ticks)
    rows = []
    for r in nodes.values():
        hist = defaultdict(int)
        for v in r["ticks"]:
            hist[hist_bucket(v)] += 1
        rows.append([r["Region"], r["Thread"], len(r["ticks"]), sum(r["ticks"]), sum(r["selfs"]),
                     min(r["ticks"]), max(r["ticks"]), sum(v * v for v in r["ticks"]),
                     0 if r["nested"] else sum(r["ticks"]),
                     ";".join(f"{b}:{n}" for b, n in sorted(hist.items())), r["Node"],
                     r["Parent"]])
    return rows


def run_records(mode, header, rows, duration):
    """A version 3 run file's records around a table."""
    recs = [["Frequency", FREQUENCY], ["Format", "profreport-run", 3], ["Mode", mode],
            ["Program", "/opt/app"], ["Command", "app"], ["Pid", 7], ["Host", "h"],
            ["Start", "2026-01-01T00:00:00.000000Z"], ["Clock", "tsc"],
            ["Duration", duration], ["Complete", "yes"], ["Threads", len(THREADS)]]
    recs += [["Thread", n, tid, name, "exited"] for n, tid, name in THREADS]
    return recs + [header] + rows


def write_summary(folder, work):
    """The hand-made version 3 summary run file of the workload."""
    rows = [row for thread, trees in work.items() for row in summary_rows(thread, trees)]
    path = folder / "profiling_2026.01.01_00.00.00_7.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(csv_bytes(run_records("summary", SUMMARY_V3_HEADER, rows, 10**6)))
    return path


def write_events(folder, work):
    """The events run file of the same instances (FORMAT.md 1.3)."""
    rows, clock = [], 0
    for thread, trees in work.items():
        r, clock = lay_out(thread, trees, first_start=clock)
        rows += r
    path = folder / "profiling_2026.01.01_00.00.00_8.csv"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(csv_bytes(run_records("events", EVENT_HEADER,
                                           [r.record() for r in rows], 10**6)))
    return path


def report(folder, out):
    """profreport with the workbook and the exports the paths feed; (Book, {kind: path})."""
    out.mkdir(parents=True, exist_ok=True)
    files = {"xlsx": out / "r.xlsx", "folded": out / "stacks.folded",
             "callgrind": out / "callgrind.out", "json": out / "stats.json"}
    must_run(folder, "-o", files["xlsx"], "--no-gnuplot", "--unit", "ns", "--folded",
             files["folded"], "--callgrind", files["callgrind"], "--json", files["json"])
    return Book(files["xlsx"]), files


def expected(work):
    """From the trees: per region [calls, total (outermost instances), self]; per path
    [calls, self]; per (caller, callee) [calls, total, self], caller None at the top level."""
    regions = defaultdict(lambda: [0, 0, 0])
    paths = defaultdict(lambda: [0, 0])
    edges = defaultdict(lambda: [0, 0, 0])
    for trees in work.values():
        for path, ticks, self_ticks in instances(trees):
            r = regions[path[-1]]
            r[0] += 1
            r[1] += 0 if path[-1] in path[:-1] else ticks
            r[2] += self_ticks
            paths[path][0] += 1
            paths[path][1] += self_ticks
            e = edges[(path[-2] if len(path) > 1 else None, path[-1])]
            e[0] += 1
            e[1] += ticks
            e[2] += self_ticks
    return regions, paths, edges


def test_summary_v3_gives_regions_paths_callers_and_exports(tmp_path):
    """A hand-made version 3 summary run: Call cost calls, total and self per region (a
    region's rows add up, recursion counted once); Call paths one row per path with its exact
    calls; Call tree one edge per caller and callee; folded stacks one line per path; callgrind
    calls= per edge of the tree; the JSON export's callcost and calltree."""
    work = workload()
    write_summary(tmp_path / "runs", work)
    book, files = report(tmp_path / "runs", tmp_path / "out")
    regions, paths, edges = expected(work)

    _, cost, _ = book.cost()
    assert set(cost) == set(regions)
    for name, (calls, total, self_ticks) in regions.items():
        got = cost[name]
        assert (got["Calls"], got["Total (ns)"], got["Self (ns)"]) == (calls, total, self_ticks)
    # a: 7+11+13 and 17 outermost, 13 again inside b: counted once in Total.
    assert cost["a"]["Calls"] == 3 and cost["a"]["Total (ns)"] == 31 + 17

    _, rows = book.table("Call paths")
    got_paths = {r["Call path"]: (r["Calls"], r["Self (ns)"]) for r in rows}
    assert got_paths == {" > ".join(p): (c, s) for p, (c, s) in paths.items()}
    assert got_paths["main > parse > token"] == (3, 18)
    assert got_paths["main > a > b > a"] == (1, 13)

    _, tree = book.table("Call tree")
    got_edges = {(r["Caller"], r["Callee"]): (r["Calls"], r["Total (ns)"], r["Self (ns)"])
                 for r in tree}
    want_edges = {("(thread top level)" if a is None else a, b): tuple(v)
                  for (a, b), v in edges.items()}
    assert got_edges == want_edges
    assert got_edges[("b", "a")] == (1, 13, 13)

    assert read_folded(files["folded"]) == {p: s for p, (c, s) in paths.items()}
    want_calls = defaultdict(int)
    for p, (c, _) in paths.items():
        if len(p) > 1:
            want_calls[(p[-2], p[-1])] += c
    assert dict(parse_callgrind_calls(files["callgrind"])) == want_calls

    data = json.loads(files["json"].read_text(encoding="utf-8"))
    assert {r["Region"]: (r["Calls"], r["Total (ns)"], r["Self (ns)"])
            for r in data["callcost"]} == {k: tuple(v) for k, v in regions.items()}
    assert {(r["Caller"], r["Callee"]): (r["Calls"], r["Total (ns)"], r["Self (ns)"])
            for r in data["calltree"]} == want_edges
    assert book.warnings() == []


def test_summary_v3_and_events_runs_of_the_same_instances_report_alike(tmp_path):
    """The events run and the version 3 summary run of the same instances give the same
    calls, times and busy time in every sheet that both can fill: Call cost (but for the
    percentiles, exact from events and from histograms in summary), Hit count, Threads, Call
    tree and Call paths, and the same folded stacks and callgrind calls."""
    work = workload()
    write_summary(tmp_path / "summary", work)
    write_events(tmp_path / "events", work)
    sbook, sfiles = report(tmp_path / "summary", tmp_path / "sout")
    ebook, efiles = report(tmp_path / "events", tmp_path / "eout")

    _, scost, sorder = sbook.cost()
    _, ecost, eorder = ebook.cost()
    assert sorder == eorder
    differ = {"Median (ns)", "P90 (ns)", "P99 (ns)", "Percentiles", "Std dev (ns)"}
    for name in eorder:
        for col, value in ecost[name].items():
            if col in differ:
                continue
            assert scost[name][col] == value, (name, col)
        # The sums of squares give the same standard deviation, to rounding.
        s, e = scost[name]["Std dev (ns)"], ecost[name]["Std dev (ns)"]
        assert (s is None and e is None) or abs(s - e) <= 1e-9 * max(1.0, abs(e)), name
    assert sbook.rows("Hit count") == ebook.rows("Hit count")
    for sheet in ("Call tree", "Call paths"):
        assert sbook.table(sheet) == ebook.table(sheet), sheet
    _, sthreads = sbook.table("Threads")
    _, ethreads = ebook.table("Threads")
    keep = ("Thread", "Tid", "Name", "Events", "Busy (ns)")
    assert [{k: t[k] for k in keep} for t in sthreads] == [{k: t[k] for k in keep}
                                                             for t in ethreads]
    assert read_folded(sfiles["folded"]) == read_folded(efiles["folded"])
    assert parse_callgrind_calls(sfiles["callgrind"]) == parse_callgrind_calls(efiles["callgrind"])


def test_events_run_summary_section_continues_its_paths(tmp_path):
    """An events run past PROFILER_MAX_EVENTS (FORMAT.md 1.6) whose section has a Calls-0 node
    for the region open at the cap: the instances counted there are under that region's path
    in Call paths and Call tree, merged with the listed ones, never a second top-level path."""
    events = [EventRow("token", 4, 1, "main", 1, 4, 10, 0),
              EventRow("main", 100, 1, "", 0, 76, 0, 0)]
    section = [["main", 1, 0, 0, 0, 0, 0, 0, 0, "", 1, 0],
               ["token", 1, 4, 20, 20, 5, 5, 100, 20, "5:4", 2, 1]]
    recs = run_records("events", EVENT_HEADER, [r.record() for r in events], 10**6)
    recs += [["Table", "summary"], SUMMARY_V3_HEADER] + section
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "profiling_2026.01.01_00.00.00_9.csv").write_bytes(csv_bytes(recs))
    book, files = report(folder, tmp_path / "out")
    _, rows = book.table("Call paths")
    assert {r["Call path"]: (r["Calls"], r["Self (ns)"]) for r in rows} == {
        "main": (1, 76), "main > token": (5, 24)}
    _, tree = book.table("Call tree")
    assert {(r["Caller"], r["Callee"]): r["Calls"] for r in tree} == {
        ("(thread top level)", "main"): 1, ("main", "token"): 5}
    assert read_folded(files["folded"]) == {("main",): 76, ("main", "token"): 24}
    assert dict(parse_callgrind_calls(files["callgrind"])) == {("main", "token"): 5}
    _, cost, _ = book.cost()
    assert cost["token"]["Calls"] == 5 and cost["main"]["Calls"] == 1
