"""reporter_helpers.py - helpers for the functional tests of the profreport command.

They write run files (docs/FORMAT.md) byte for byte, run $PROF_BUILD/profreport, read the
workbook it writes with openpyxl, and compute the numbers a report must hold straight from the
rows that were written, with Python's statistics module: nothing here reads the reporter's
code or output to decide what is expected.
"""

import math
import re
import statistics
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import openpyxl

from conftest import BUILD, ROOT, clean_env

PROFREPORT = BUILD / "profreport"
TEMPLATES = ROOT / "templates"

# Two-sided 95 % critical values of Student's t, t(0.975, df), as published (e.g.
# scipy.stats.t.ppf(0.975, df)): df = runs - 1.
T975 = {1: 12.706204736174707, 2: 4.302652729911275}
T975_DF2 = T975[2]

EVENT_HEADER = ["Region", "Ticks", "Thread", "Parent", "Depth", "Self", "Start", "Nested"]
SUMMARY_HEADER = ["Region", "Thread", "Calls", "Ticks", "Self", "Min", "Max", "SumSquares",
                  "Outer", "Histogram"]

# The Call cost sheet's columns, in order, without their unit (FORMAT: "Name (unit)").
COST_COLUMNS = [
    ("Region", None), ("Short name", None), ("Calls", None), ("Total", "total"), ("Total %", None), ("Self", "total"),
    ("Self %", None), ("Mean", "cost"), ("Median", "cost"), ("Source file", None),
    ("Line", None), ("Std dev", "cost"),
    ("Min", "cost"), ("Max", "cost"), ("P90", "cost"), ("P99", "cost"), ("Runs", None),
    ("Run mean", "cost"), ("Run std dev", "cost"), ("Run CV", None), ("95% CI +/-", "cost"),
    ("Fastest run", "cost"), ("Slowest run", "cost"), ("Never stopped", None),
    ("Percentiles", None),
    ("Total +/-", "total"), ("Self +/-", "total"), ("Wall", "total"), ("Wall +/-", "total"),
    ("Off-CPU", "total"),
    ("Left out", None),
]

UNITS_NS = {"s": 1e9, "ms": 1e6, "us": 1e3, "ns": 1.0}


def cost_headers(cost_unit, total_unit):
    """The exact header row of the Call cost sheet for the two units (None: the default, each
    cell showing its own unit, headers without one)."""
    out = []
    for name, kind in COST_COLUMNS:
        if kind == "cost" and cost_unit:
            out.append(f"{name} ({cost_unit})")
        elif kind == "total" and total_unit:
            out.append(f"{name} ({total_unit})")
        else:
            out.append(name)
    return out


def render_time(value, number_format):
    """The text a spreadsheet shows for a number in one of profreport's time formats
    ('#,##0.00,," ms"': decimals, a division by 1000 per trailing comma, the unit)."""
    m = re.fullmatch(r'#,##0(?:\.(0+))?(,*)" (s|ms|us|ns)"', number_format)
    assert m, f"not a time format: {number_format!r}"
    decimals = len(m.group(1) or "")
    return f"{value / 1000 ** len(m.group(2)):,.{decimals}f} {m.group(3)}"


# ---- writing run files ----


def csv_field(value):
    """One CSV field as bytes (RFC 4180): quoted when it holds a comma, quote, CR or LF."""
    if value is None:
        value = ""
    b = value if isinstance(value, bytes) else str(value).encode("utf-8")
    if any(c in b for c in (b",", b'"', b"\r", b"\n")):
        return b'"' + b.replace(b'"', b'""') + b'"'
    return b


def csv_bytes(records, eol=b"\n"):
    """Records (lists of str, bytes or numbers) as CSV bytes, each ended by eol."""
    return b"".join(b",".join(csv_field(v) for v in rec) + eol for rec in records)


@dataclass
class Thread:
    number: int
    tid: int
    name: str
    state: str = "exited"


@dataclass
class EventRow:
    """One events-table row; ticks None is a region that never stopped."""

    region: object  # str or bytes
    ticks: object
    thread: int
    parent: object
    depth: int
    self_ticks: object
    start: int
    nested: int

    def record(self):
        return [self.region, "" if self.ticks is None else self.ticks, self.thread,
                self.parent, self.depth, "" if self.self_ticks is None else self.self_ticks,
                self.start, self.nested]


@dataclass
class RunSpec:
    """Everything a run file says, and the rows to compute expectations from."""

    name: str
    frequency: int
    threads: list
    rows: list = field(default_factory=list)  # EventRow (events) or dicts (summary)
    mode: str = "events"
    duration: int = 0
    complete: str = "yes"
    program: str = "/opt/app/bin/app"
    command: str = "app --fast"
    pid: int = 4242
    host: str = "testhost"
    start: str = "2026-01-01T10:00:00.000000Z"
    clock: str = "tsc"
    extra: list = field(default_factory=list)  # records after the Thread records (ThreadCpu)

    def records(self):
        recs = [["Frequency", self.frequency], ["Format", "profreport-run", 1],
                ["Mode", self.mode], ["Program", self.program], ["Command", self.command],
                ["Pid", self.pid], ["Host", self.host], ["Start", self.start],
                ["Clock", self.clock], ["Duration", self.duration],
                ["Complete", self.complete], ["Threads", len(self.threads)]]
        for t in self.threads:
            recs.append(["Thread", t.number, t.tid, t.name, t.state])
        recs.extend(self.extra)
        if self.mode == "events":
            recs.append(EVENT_HEADER)
            recs.extend(r.record() for r in self.rows)
        else:
            recs.append(SUMMARY_HEADER)
            recs.extend([r[k] for k in SUMMARY_HEADER] for r in self.rows)
        return recs

    def write(self, folder, eol=b"\n", bom=False):
        path = Path(folder) / self.name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + csv_bytes(self.records(), eol))
        return path


class Tree:
    """A region instance to lay out as events rows: its own time and its children."""

    def __init__(self, name, pre, children=(), gaps=None, post=0):
        self.name, self.pre, self.children, self.post = name, pre, list(children), post
        self.gaps = gaps if gaps is not None else [0] * len(self.children)


def lay_out(thread, trees, rng=None, first_start=0):
    """Rows for top-level instances run one after the other on a thread: each instance is
    its own time `pre`, then its children (a gap after each), then `post`; rows in end order.
    Returns (rows, clock at the end)."""
    rows = []

    def emit(node, start, ancestors):
        clock = start + node.pre
        child_ticks = 0
        for child, gap in zip(node.children, node.gaps):
            t = emit(child, clock, ancestors + [node.name])
            child_ticks += t
            clock += t + gap
        end = clock + node.post
        ticks = end - start
        rows.append(EventRow(node.name, ticks, thread, ancestors[-1] if ancestors else "",
                             len(ancestors), ticks - child_ticks, start,
                             1 if node.name in ancestors else 0))
        return ticks

    clock = first_start
    for tree in trees:
        clock += rng.randint(1, 500) if rng else 1
        clock += emit(tree, clock, [])
    return rows, clock


# ---- running the reporter ----


def profreport(*args, env=None, cwd=None, timeout=300):
    """Run the reporter; returns CompletedProcess with bytes stdout and stderr."""
    full_env = clean_env(env)
    return subprocess.run([str(PROFREPORT), *[str(a) for a in args]], env=full_env, cwd=cwd,
                          stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, timeout=timeout)


def must_run(*args, **kw):
    """Run the reporter and insist on exit status 0."""
    p = profreport(*args, **kw)
    assert p.returncode == 0, (
        f"profreport {' '.join(map(str, args))} exited {p.returncode}\n"
        f"stdout: {p.stdout.decode(errors='replace')}\nstderr: {p.stderr.decode(errors='replace')}")
    return p


def templates_args():
    """--templates for builds whose binary does not sit in build/ beside ../templates (the
    sanitizer builds, build/san-*: their ../templates is build/templates, which is not made);
    a test of the default lookup itself runs only with the main build."""
    if (PROFREPORT.parent.parent / "templates" / "callcost.gp").exists():
        return []
    return ["--templates", str(TEMPLATES)]


# ---- reading the workbook ----


class Book:
    """A workbook written by profreport, read with openpyxl."""

    def __init__(self, path):
        self.path = Path(path)
        self.wb = openpyxl.load_workbook(self.path)

    def rows(self, sheet):
        """All rows of a sheet as lists of values (trailing empty rows dropped)."""
        rows = [list(r) for r in self.wb[sheet].iter_rows(values_only=True)]
        while rows and all(v is None for v in rows[-1]):
            rows.pop()
        return rows

    def table(self, sheet):
        """(headers, list of row dicts) for a sheet whose first row is its headers, up to the
        first empty row."""
        rows = self.rows(sheet)
        headers = [h for h in rows[0] if h is not None]
        out = []
        for r in rows[1:]:
            if all(v is None for v in r):
                break
            out.append(dict(zip(headers, r)))
        return headers, out

    def cost(self):
        """Call cost: (headers, {region: row dict}, region order)."""
        headers, rows = self.table("Call cost")
        return headers, {r["Region"]: r for r in rows}, [r["Region"] for r in rows]

    def summary(self):
        """Summary sheet key/value lines: {key: value} (first column -> second)."""
        out = {}
        for r in self.rows("Summary"):
            if r and isinstance(r[0], str) and r[0] not in out:
                out[r[0]] = r[1] if len(r) > 1 else None
        return out

    def warnings(self):
        """Warnings as dicts (Where, Kind, Count, Message); [] when the sheet says 'none'."""
        _, rows = self.table("Warnings")
        if len(rows) == 1 and rows[0]["Where"] == "none" and rows[0]["Kind"] is None:
            return []
        return rows

    def matrix(self, title_start):
        """A region x run matrix of the Runs sheet: the block whose title starts with
        title_start. Returns (title, headers, {region: [values per run]})."""
        rows = self.rows("Runs")
        for i, r in enumerate(rows):
            if isinstance(r[0], str) and r[0].startswith(title_start):
                headers = [h for h in rows[i + 1] if h is not None]
                out = {}
                for rr in rows[i + 2:]:
                    if rr[0] is None:
                        break
                    out[rr[0]] = rr[1:len(headers)]
                return r[0], headers, out
        raise AssertionError(f"no matrix titled {title_start!r} in the Runs sheet")

    def all_cells(self):
        for ws in self.wb.worksheets:
            for row in ws.iter_rows():
                for c in row:
                    if c.value is not None:
                        yield ws.title, c


# ---- expected numbers, computed from the rows written ----


def percentile_inc(values, q):
    """Excel's PERCENTILE.INC: rank (n - 1) * q, interpolated between order statistics."""
    v = sorted(values)
    h = (len(v) - 1) * q
    lo = math.floor(h)
    if lo + 1 >= len(v):
        return v[-1]
    return v[lo] + (h - lo) * (v[lo + 1] - v[lo])


@dataclass
class Expect:
    """What the report must say about one region (ns)."""

    calls: int = 0
    costs: list = field(default_factory=list)  # ns per completed call
    total: float = 0.0  # Nested = 0 calls only
    self_ns: float = 0.0
    never: int = 0
    run_calls: dict = field(default_factory=dict)  # run index -> calls
    run_sum: dict = field(default_factory=dict)  # run index -> ns
    key_calls: dict = field(default_factory=dict)  # thread name -> calls

    def run_means(self):
        return [self.run_sum[k] / self.run_calls[k] for k in sorted(self.run_calls)
                if self.run_calls[k]]


@dataclass
class Expected:
    regions: dict  # id -> Expect
    busy: float  # ns in depth-0 regions, all threads of all runs
    self_all: float  # self ns of every region
    edges: dict  # (caller or None, callee) -> [calls, total ns, self ns, outer ns]
    thread_busy: dict  # (run index, thread number) -> ns
    thread_events: dict  # (run index, thread number) -> rows


def inside_same_edge(run, row):
    """Whether a stopped row runs inside another stopped row of its thread along the same
    caller -> callee edge (an enclosing call: shallower, and its time span covers the row's),
    so that the edge's Total must not count it again."""
    if not row.depth:
        return False
    end = row.start + row.ticks
    return any(o is not row and o.thread == row.thread and o.ticks is not None
               and o.depth < row.depth and o.region == row.region and o.parent == row.parent
               and o.start <= row.start and o.start + o.ticks >= end for o in run.rows)


def expect_events(runs):
    """Expected per-region figures for events-mode RunSpecs, read in this order."""
    regions, edges, tbusy, tevents = {}, {}, {}, {}
    busy = self_all = 0.0
    for k, run in enumerate(runs):
        names = {t.number: t.name for t in run.threads}
        for row in run.rows:
            e = regions.setdefault(row.region, Expect())
            tevents[(k, row.thread)] = tevents.get((k, row.thread), 0) + 1
            if row.ticks is None:
                e.never += 1
                continue
            ns = row.ticks * 1e9 / run.frequency
            self_ns = row.self_ticks * 1e9 / run.frequency
            e.calls += 1
            e.costs.append(ns)
            e.self_ns += self_ns
            self_all += self_ns
            if row.nested == 0:
                e.total += ns
            if row.depth == 0:
                busy += ns
                tbusy[(k, row.thread)] = tbusy.get((k, row.thread), 0.0) + ns
            e.run_calls[k] = e.run_calls.get(k, 0) + 1
            e.run_sum[k] = e.run_sum.get(k, 0.0) + ns
            key = names[row.thread]
            e.key_calls[key] = e.key_calls.get(key, 0) + 1
            edge = edges.setdefault((row.parent if row.depth else None, row.region),
                                    [0, 0.0, 0.0, 0.0])
            edge[0] += 1
            edge[1] += ns
            edge[2] += self_ns
            if not inside_same_edge(run, row):
                edge[3] += ns
    return Expected(regions, busy, self_all, edges, tbusy, tevents)


def close(actual, expected, rel=1e-9, what=""):
    """Assert actual == expected within rel (relative), treating None as 'no value'."""
    if expected is None:
        assert actual is None, f"{what}: expected an empty cell, got {actual!r}"
        return
    assert actual is not None, f"{what}: expected {expected!r}, got an empty cell"
    assert isinstance(actual, (int, float)), f"{what}: {actual!r} is not a number"
    assert math.isclose(actual, expected, rel_tol=rel, abs_tol=1e-300), (
        f"{what}: got {actual!r}, expected {expected!r} (relative error "
        f"{abs(actual - expected) / abs(expected) if expected else float('inf'):.3g})")


def expected_cost_row(e, busy, self_all):
    """The Call cost values (ns, fractions) of one region, keyed by column name without unit."""
    c = e.costs
    means = e.run_means()
    row = {
        "Calls": e.calls,
        "Total": e.total,
        "Total %": e.total / busy,
        "Self": e.self_ns,
        "Self %": e.self_ns / self_all,
        "Mean": statistics.fmean(c) if c else None,
        "Median": statistics.median(c) if c else None,
        "Std dev": statistics.stdev(c) if len(c) >= 2 else None,
        "Min": min(c) if c else None,
        "Max": max(c) if c else None,
        "P90": percentile_inc(c, 0.9) if c else None,
        "P99": percentile_inc(c, 0.99) if c else None,
        "Runs": len(means),
        "Run mean": statistics.fmean(means) if means else None,
        "Run std dev": statistics.stdev(means) if len(means) >= 2 else None,
        "Run CV": statistics.stdev(means) / statistics.fmean(means) if len(means) >= 2 else None,
        "95% CI +/-": (T975[len(means) - 1] * statistics.stdev(means) / math.sqrt(len(means))
                       if len(means) >= 2 else None),
        "Fastest run": min(means) if means else None,
        "Slowest run": max(means) if means else None,
        "Never stopped": e.never,
        # Events runs and exactly timed summary runs: nothing is sampled.
        "Total +/-": None,
        "Self +/-": None,
        "Wall": None,
        "Wall +/-": None,
        "Off-CPU": None,
        # Nothing here is a left-out function's own rows (FORMAT.md 1.4).
        "Left out": None,
    }
    if len(c) >= 2:
        # The module's own quantiles agree with PERCENTILE.INC: a check of percentile_inc.
        q = statistics.quantiles(c, n=100, method="inclusive")
        assert math.isclose(q[89], row["P90"], rel_tol=1e-12)
        assert math.isclose(q[98], row["P99"], rel_tol=1e-12)
        assert math.isclose(q[49], row["Median"], rel_tol=1e-12)
    return row


def compare_cost_row(got, want, cost_unit_ns=1.0, total_unit_ns=1.0, headers_by_name=None,
                     region="", skip=()):
    """Compare one Call cost row (dict keyed by the sheet's headers) with expected_cost_row;
    returns the list of mismatches (empty when all columns agree)."""
    problems = []
    for name, kind in COST_COLUMNS[1:]:
        if name in skip or name in ("Percentiles", "Source file", "Line", "Short name"):
            continue
        header = headers_by_name[name]
        value = want[name]
        if value is not None and kind == "cost":
            value = value / cost_unit_ns
        elif value is not None and kind == "total":
            value = value / total_unit_ns
        try:
            if name in ("Calls", "Runs", "Never stopped"):
                assert got[header] == value, f"{region}: {header} is {got[header]!r}, want {value}"
            else:
                close(got[header], value, what=f"{region}: {header}")
        except AssertionError as e:
            problems.append(str(e).split("\n")[0])
    return problems


def headers_by_name(headers):
    """{column name without unit: header as written}."""
    out = {}
    for h in headers:
        base = h.rsplit(" (", 1)[0] if h.endswith(")") and " (" in h else h
        out[base] = h
    return out


def listing(folder):
    """Every path under folder, relative, sorted (to show nothing stray was left)."""
    folder = Path(folder)
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
