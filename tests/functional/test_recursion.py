"""Recursion counted once everywhere (issue 25): on programs that recurse directly (walk calls
walk 10 deep) and mutually (ping and pong call each other 8 deep), with manual regions and
with every function instrumented, in events and summary mode, every table that shows a time
counts each instant once: the Threads sheet's region x thread totals add up to Call cost's
Total, no Call tree edge or call path exceeds the region that contains it, and the CSV exports
say what the sheets say."""

import csv

import pytest

from conftest import SAN, run_program
from reporter_helpers import Book, must_run

REL = 1e-9

# (program, regions of the recursion, edges that recurse)
PROGRAMS = {
    "recurse_spin": (["walk", "ping", "pong"], [("walk", "walk"), ("ping", "pong"),
                                                 ("pong", "ping")]),
    "auto/recurse_calls": (["walk", "ping", "pong"], [("walk", "walk"), ("ping", "pong"),
                                                       ("pong", "ping")]),
}


def block(rows, title):
    """A region x thread block of the Threads sheet: {region: [values per thread]}."""
    for i, r in enumerate(rows):
        if isinstance(r[0], str) and r[0].startswith(title):
            head = [h for h in rows[i + 1] if h is not None]
            out = {}
            for rr in rows[i + 2:]:
                if rr[0] is None:
                    break
                out[rr[0]] = [v or 0 for v in rr[1:len(head)]]
            return head, out
    raise AssertionError(f"no block titled {title!r} on the Threads sheet")


def short(name):
    """A function's region name as the test names it: 'walk' for 'walk' or 'walk(int)'."""
    return name.split("(")[0]


def at_most(value, limit, what):
    assert value <= limit * (1 + REL) + 1e-6, f"{what}: {value} exceeds {limit}"


@pytest.mark.parametrize("mode", ["events", "summary"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_every_table_counts_an_instant_once(tmp_path, name, mode):
    regions, recursive_edges = PROGRAMS[name]
    _, files = run_program(tmp_path, name, "20", "5", env={"PROFILER_MODE": mode})
    assert files
    out = tmp_path / "report.xlsx"
    must_run(files[0].parent, "-o", out, "--csv", tmp_path / "csv", "--no-gnuplot", "-q")
    book = Book(out)
    _, cost, _ = book.cost()
    total = {short(k): v["Total"] for k, v in cost.items()}
    full = {short(k): k for k in cost}
    for r in regions:
        assert r in total, (r, sorted(total))

    # Threads: each region's totals over the threads add up to its Call cost Total.
    head, totals = block(book.rows("Threads"), "Total time, region x thread")
    assert len(head) >= 2
    for region, values in totals.items():
        want = cost[region]["Total"]
        assert abs(sum(values) - want) <= want * REL + 1e-6, (region, values, want)

    # Call tree: no edge exceeds its caller's or its callee's Total, and a recursive edge is
    # strictly less than the region (its outermost calls are inside the region's).
    _, edges = book.table("Call tree")
    seen = set()
    for e in edges:
        caller, callee = e["Caller"], e["Callee"]
        if caller == "(thread top level)":
            continue
        at_most(e["Total"], cost[caller]["Total"], f"edge {caller} -> {callee} vs caller")
        at_most(e["Total"], cost[callee]["Total"], f"edge {caller} -> {callee} vs callee")
        seen.add((short(caller), short(callee)))
    for a, b in recursive_edges:
        assert (a, b) in seen, (a, b, sorted(seen))

    # Call paths: no path's total exceeds its region's.
    _, paths = book.table("Call paths")
    assert paths
    for p in paths:
        at_most(p["Total"], cost[p["Region"]]["Total"], f"path {p['Call path']}")

    # The CSV exports say what the sheets say.
    with open(tmp_path / "csv" / "calltree.csv", newline="") as f:
        rows = {(r["Caller"], r["Callee"]): float(r["Total (ns)"]) for r in csv.DictReader(f)}
    for e in edges:
        got = rows[(e["Caller"], e["Callee"])]
        assert abs(got - e["Total"]) <= abs(e["Total"]) * REL + 1e-6, (e, got)
    with open(tmp_path / "csv" / "callcost.csv", newline="") as f:
        for r in csv.DictReader(f):
            assert abs(float(r["Total (ns)"]) - cost[r["Region"]]["Total"]) <= \
                cost[r["Region"]]["Total"] * REL + 1e-6
    assert full
