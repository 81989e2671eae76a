"""test_compare.py - functional tests of profreport --baseline OLD... -- NEW... (comparisons).

Two kinds of input: run files written here with known per-run totals, where every number of the
Comparison sheet is recomputed with Python's statistics module, an exact Mann-Whitney
distribution enumerated with itertools and the Benjamini-Hochberg rule written out; and real
runs of tests/programs/change, which can make one region twice as slow, where the comparison
must name exactly that region.
"""

import itertools
import math
import re
import statistics

import pytest

from conftest import clean_env, program, run_command
from reporter_helpers import (
    UNITS_NS,
    Book,
    EventRow,
    RunSpec,
    Thread,
    must_run,
    profreport,
    templates_args,
)

COLUMNS = ["Region", "Verdict", "Baseline median", "New median", "Baseline mean", "New mean",
           "Change", "Ratio", "Ratio 95% low", "Ratio 95% high", "U", "p-value", "Adjusted p",
           "Test", "Baseline runs with it", "New runs with it"]


# ---- reading the Comparison sheets ----


def comparison(book):
    """The Comparison sheet: ({key: value} of the block above the table, unit in ns,
    {region: row dict keyed by column name without unit}, region order)."""
    rows = book.rows("Comparison")
    head = next(i for i, r in enumerate(rows) if r and r[0] == "Region")
    info = {r[0]: r[1] for r in rows[1:head] if r and isinstance(r[0], str)}
    headers = [h for h in rows[head] if h is not None]
    names = [h.rsplit(" (", 1)[0] if h.endswith(")") else h for h in headers]
    assert names == COLUMNS
    # Without --unit, times are numbers of ns under headers without a unit.
    units = {h.rsplit(" (", 1)[1][:-1] for h in headers if h.endswith(")")} or {"ns"}
    assert len(units) == 1, units
    table, order = {}, []
    for r in rows[head + 1:]:
        if r[0] is None:
            break
        table[r[0]] = dict(zip(names, r))
        order.append(r[0])
    return info, UNITS_NS[units.pop()], table, order


def run_matrix(book):
    """Comparison runs: the region x run matrix as {region: (baseline values, new values)},
    and its unit in ns."""
    rows = book.rows("Comparison runs")
    at = next(i for i, r in enumerate(rows) if isinstance(r[0], str) and r[0].startswith(
        "Total time per run"))
    named = re.match(r"Total time per run \((s|ms|us|ns)\)", rows[at][0])
    unit = UNITS_NS[named.group(1) if named else "ns"]
    headers = [h for h in rows[at + 1] if h is not None]
    nb = sum(h.startswith("Baseline ") for h in headers)
    out = {}
    for r in rows[at + 2:]:
        if r[0] is None:
            break
        out[r[0]] = (list(r[1:1 + nb]), list(r[1 + nb:len(headers)]))
    return out, unit


# ---- independent statistics ----


def exact_mwu(base, new):
    """(U of the new side, exact two-sided p) by enumerating every way to split the pooled
    values (no ties)."""
    pooled = sorted(base + new)
    assert len(set(pooled)) == len(pooled)
    u = sum(1 for y in new for x in base if y > x)
    n, k = len(pooled), len(new)
    counts = []
    for pos in itertools.combinations(range(n), k):
        chosen = set(pos)
        counts.append(sum(1 for i in pos for j in range(n) if j not in chosen and i > j))
    low = sum(c <= u for c in counts)
    high = sum(c >= u for c in counts)
    return u, min(1.0, 2 * min(low, high) / len(counts))


def bh(pvalues):
    """Benjamini-Hochberg adjusted p-values, by the definition min_{j >= i} p(j) m / j."""
    m = len(pvalues)
    order = sorted(range(m), key=lambda i: pvalues[i])
    out = [0.0] * m
    for rank, i in enumerate(order):
        out[i] = min(1.0, min(pvalues[order[j]] * m / (j + 1) for j in range(rank, m)))
    return out


# ---- hand-written runs ----

FREQ = 2_000_000_000  # 2 ticks per ns


def spec(name, regions):
    """A run file with one thread whose rows are regions: a list of (id, [ns per call]) done
    one after the other, or (id, outer_ns, inner_ns) for a call holding a recursive call of
    itself."""
    rows, clock = [], 1000
    for item in regions:
        if len(item) == 3:
            rid, outer, inner = item
            t_outer, t_inner = outer * 2, inner * 2
            rows.append(EventRow(rid, t_inner, 1, rid, 1, t_inner, clock + 10, 1))
            rows.append(EventRow(rid, t_outer, 1, "", 0, t_outer - t_inner, clock, 0))
            clock += t_outer + 10
            continue
        rid, calls = item
        for ns in calls:
            rows.append(EventRow(rid, ns * 2, 1, "", 0, ns * 2, clock, 0))
            clock += ns * 2 + 10
    return RunSpec(name, FREQ, [Thread(1, 100, "main")], rows, duration=clock)


K = 1000  # values below are in us: times 1000 ns

BASE = {
    "compute": [[1000 * K], [1010 * K], [990 * K], [1020 * K], [1005 * K]],
    "parse": [[(300 + 10 * k) * K, (200 + 5 * k) * K] for k in range(5)],
    "steady": [[v * K] for v in (700, 710, 720, 730, 740)],
    "rec": [(v * K, v * K // 2) for v in (400, 410, 420, 430, 440)],
    "=1+2": [[v * K] for v in (50, 52, 54, 56, 58)],
    "gone": [[30 * K]] * 5,
}
NEW = {
    "compute": [[2000 * K], [2030 * K], [1980 * K], [2050 * K], [2010 * K]],
    "parse": [[(150 + 7 * k) * K, (100 + 3 * k) * K] for k in range(5)],
    "steady": [[v * K] for v in (705, 715, 725, 735, 745)],
    "rec": [(v * K, v * K // 2) for v in (401, 411, 421, 431, 441)],
    "=1+2": [[v * K] for v in (51, 53, 55, 57, 59)],
    "fresh": [[20 * K], [21 * K], None, [22 * K], [23 * K]],  # absent from the third run
}


def write_side(folder, side):
    """Five run files for one side; returns {region: [total ns per run]}."""
    totals = {rid: [] for rid in side}
    for k in range(5):
        regions = []
        for rid, per_run in side.items():
            item = per_run[k]
            if item is None:
                totals[rid].append(0.0)
            elif isinstance(item, tuple):
                regions.append((rid, *item))
                totals[rid].append(float(item[0]))  # recursion counted once
            else:
                regions.append((rid, item))
                totals[rid].append(float(sum(item)))
        spec(f"run{k}.csv", regions).write(folder)
    return totals


def test_known_values_fill_every_column(tmp_path):
    """Medians, means, change, ratio, U, exact p, adjusted p, verdicts, added and removed
    regions, the geometric mean and the per-run matrix, recomputed from the rows written."""
    base = write_side(tmp_path / "base", BASE)
    new = write_side(tmp_path / "new", NEW)
    out = tmp_path / "diff.xlsx"
    p = must_run("--baseline", tmp_path / "base", "--", tmp_path / "new", "-o", out,
                 "--no-gnuplot")
    book = Book(out)
    assert book.wb.sheetnames[:3] == ["Comparison", "Comparison runs", "Summary"]
    info, unit, table, order = comparison(book)

    both = [r for r in BASE if r in NEW]
    expect = {}
    for rid in both:
        b, n = base[rid], new[rid]
        u, pv = exact_mwu(b, n)
        ratio = statistics.median(n) / statistics.median(b)
        expect[rid] = dict(bm=statistics.median(b), nm=statistics.median(n),
                           bmean=statistics.fmean(b), nmean=statistics.fmean(n), ratio=ratio,
                           u=u, p=pv)
    q = bh([expect[r]["p"] for r in both])
    for rid, qv in zip(both, q):
        e = expect[rid]
        e["q"] = qv
        significant = qv < 0.05 and abs(e["ratio"] - 1) > 0.01
        e["verdict"] = (("slower" if e["ratio"] > 1 else "faster") if significant
                        else "no significant change")
    # Worked by hand: compute doubles and parse halves (both fully apart: p = 2/252), the
    # rest interleave. A check of the expectations themselves.
    assert expect["compute"]["verdict"] == "slower" and expect["compute"]["ratio"] == 2
    assert expect["parse"]["verdict"] == "faster"
    assert math.isclose(expect["compute"]["p"], 2 / 252)
    assert expect["rec"]["bm"] == 420 * K  # the outer calls only

    for rid in both:
        e, got = expect[rid], table[rid]
        assert got["Verdict"] == e["verdict"], rid
        for col, key in (("Baseline median", "bm"), ("New median", "nm"),
                         ("Baseline mean", "bmean"), ("New mean", "nmean")):
            assert math.isclose(got[col] * unit, e[key], rel_tol=1e-9), (rid, col)
        assert math.isclose(got["Ratio"], e["ratio"], rel_tol=1e-12), rid
        assert math.isclose(got["Change"], e["ratio"] - 1, rel_tol=1e-9, abs_tol=1e-15), rid
        assert got["U"] == e["u"], rid
        assert math.isclose(got["p-value"], e["p"], rel_tol=1e-12), rid
        assert math.isclose(got["Adjusted p"], e["q"], rel_tol=1e-12), rid
        assert got["Test"] == "exact"
        assert got["Baseline runs with it"] == 5 and got["New runs with it"] == 5
        # A percentile bootstrap interval: ordered, and within the ratios resampling can make.
        lo, hi = got["Ratio 95% low"], got["Ratio 95% high"]
        assert lo <= hi
        assert min(new[rid]) / max(base[rid]) <= lo and hi <= max(new[rid]) / min(base[rid])

    # Biggest change first among regions on both sides, then added, then removed.
    assert order[:len(both)] == sorted(both, key=lambda r: -abs(math.log(expect[r]["ratio"])))
    assert order[len(both):] == ["fresh", "gone"]
    fresh, gone = table["fresh"], table["gone"]
    assert fresh["Verdict"] == "added" and gone["Verdict"] == "removed"
    assert math.isclose(fresh["New median"] * unit, 21 * K)
    assert math.isclose(fresh["New mean"] * unit, statistics.fmean([20 * K, 21 * K, 0, 22 * K,
                                                                    23 * K]))
    assert fresh["New runs with it"] == 4 and fresh["Baseline runs with it"] is None
    assert fresh["Ratio"] is None and fresh["p-value"] is None and fresh["Test"] is None
    assert math.isclose(gone["Baseline median"] * unit, 30 * K) and gone["New median"] is None

    geomean = math.exp(statistics.fmean(math.log(expect[r]["ratio"]) for r in both))
    assert math.isclose(info["Geometric-mean ratio (new / baseline)"], geomean, rel_tol=1e-12)
    assert info["Regions in the geometric mean"] == len(both)
    assert (info["Baseline runs"], info["New runs"]) == (5, 5)
    assert (info["Slower"], info["Faster"], info["Added"], info["Removed"]) == (1, 1, 1, 1)
    assert info["Noise threshold"] == 0.01 and info["Warning"] == "none"
    assert math.isclose(info["Smallest p-value possible"], 2 / 252)

    matrix, munit = run_matrix(book)
    for rid in both:
        assert [v * munit for v in matrix[rid][0]] == pytest.approx(base[rid], rel=1e-9)
        assert [v * munit for v in matrix[rid][1]] == pytest.approx(new[rid], rel=1e-9)
    assert matrix["gone"][1] == [None] * 5

    # Region ids stay text: "=1+2" is a string cell, and no cell anywhere is a formula.
    cells = [c for t, c in book.all_cells() if c.value == "=1+2"]
    assert cells and all(c.data_type == "s" for c in cells)
    assert [c.coordinate for t, c in book.all_cells() if c.data_type == "f"] == []

    # The terminal names the two changes, with their direction, and the added and removed.
    text = p.stdout.decode()
    changed = [line.split() for line in text.splitlines() if line.startswith("  slower")
               or line.startswith("  faster")]
    assert sorted((w[0], w[-1]) for w in changed) == [("faster", "parse"), ("slower", "compute")]
    assert "2 regions changed significantly" in text
    assert "added (1): fresh" in text and "removed (1): gone" in text
    assert f"geometric-mean ratio (new / baseline): {geomean:.4f}" in text


def test_noise_threshold_and_seed(tmp_path):
    """--noise 150% hides even a doubling; the same --seed gives the same intervals, and the
    seed is shown."""
    write_side(tmp_path / "base", BASE)
    write_side(tmp_path / "new", NEW)
    books = []
    for i, extra in enumerate((["--noise", "150%"], ["--seed", "77"], ["--seed", "77"])):
        out = tmp_path / f"d{i}.xlsx"
        must_run("--baseline", tmp_path / "base", "--", tmp_path / "new", "-o", out,
                 "--no-gnuplot", *extra)
        books.append(comparison(Book(out)))
    info, _, table, _ = books[0]
    assert info["Noise threshold"] == 1.5
    assert {r["Verdict"] for r in table.values()} == {"no significant change", "added",
                                                      "removed"}
    (info1, _, t1, _), (_, _, t2, _) = books[1], books[2]
    assert info1["Bootstrap seed"] == "77"
    for rid in t1:
        assert t1[rid]["Ratio 95% low"] == t2[rid]["Ratio 95% low"]
        assert t1[rid]["Ratio 95% high"] == t2[rid]["Ratio 95% high"]


def test_three_runs_per_side_warn_and_find_nothing(tmp_path):
    """With 3 runs a side the smallest possible p is 0.1: a doubling is not significant, and
    the sheet, the Warnings sheet and stderr say why."""
    for side, scale in (("base", 1), ("new", 2)):
        for k in range(3):
            spec(f"r{k}.csv", [("work", [(100 + k) * K * scale])]).write(tmp_path / side)
    out = tmp_path / "d.xlsx"
    p = must_run("--baseline", tmp_path / "base", "--", tmp_path / "new", "-o", out,
                 "--no-gnuplot")
    book = Book(out)
    info, _, table, _ = comparison(book)
    assert table["work"]["Verdict"] == "no significant change"
    assert math.isclose(table["work"]["p-value"], 0.1)
    assert "fewer runs than the test needs" in info["Warning"]
    assert "no change can be significant" in info["Warning"]
    assert any("fewer runs than the test needs" in w["Message"] for w in book.warnings())
    assert b"fewer runs than the test needs" in p.stderr
    assert b"no region changed significantly" in p.stdout


def test_runs_past_the_matrix_columns_are_said_not_dropped_silently(tmp_path):
    """8,001 new runs: a sheet has 16,384 columns, so the region x run matrix has a column for
    the first 8,000 of a side only. The sheet, the Warnings sheet and stderr say so; the runs
    table lists all 8,001 and the statistics use them all."""
    for k in range(5):
        spec(f"r{k}.csv", [("work", [(100 + k) * K])]).write(tmp_path / "base")
    n = 8001
    for k in range(n):
        spec(f"r{k:05d}.csv", [("work", [(200 + k % 7) * K])]).write(tmp_path / "new")
    out = tmp_path / "d.xlsx"
    p = must_run("--baseline", tmp_path / "base", "--", tmp_path / "new", "-o", out,
                 "--no-gnuplot")
    said = "has a column for the first 8000 runs of each side only (5 baseline and 8001 new runs"
    assert said.encode() in p.stderr
    book = Book(out)
    assert any(said in w["Message"] for w in book.warnings())
    # The sheet is 8,000 columns wide: read its first column, then the matrix's rows only.
    ws = book.wb["Comparison runs"]
    first = [r[0] for r in ws.iter_rows(min_col=1, max_col=1, values_only=True)]
    assert first.count("new") == n and first.count("baseline") == 5
    note = next(i for i, v in enumerate(first) if isinstance(v, str) and said in v)
    assert first[note + 1].startswith("Total time per run")
    head, work = (list(r) for r in ws.iter_rows(min_row=note + 3, max_row=note + 4,
                                                   values_only=True))
    assert head[0] == "Region" and work[0] == "work"
    assert sum(1 for h in head if h and h.startswith("Baseline ")) == 5
    assert [h for h in head if h and h.startswith("New ")][-1] == "New 8000"
    assert ws.max_column == 1 + 5 + 8000
    assert all(v is not None for v in work[1:])
    _, _, table, _ = comparison(book)
    assert table["work"]["New runs with it"] == n


def test_command_line_errors(tmp_path):
    """Malformed comparisons stop with exit status 2 (usage) or 3 (no baseline run), and say
    why."""
    spec("r.csv", [("a", [1000])]).write(tmp_path / "runs")
    runs = tmp_path / "runs"
    (tmp_path / "empty").mkdir()
    cases = [
        (["--baseline", runs, runs], 2, b"then '--'"),
        (["--baseline", "--", runs], 2, b"at least one path"),
        (["--baseline", runs, "-o", "x.xlsx", "--", runs], 2, b"options go before"),
        (["--baseline", runs, "--"], 2, b"no new runs"),
        (["--noise", "5%", runs], 2, b"--baseline"),
        (["--baseline", runs, "--", runs, "--noise", "x"], 2, b"--noise"),
        (["--baseline", runs, "--", runs, "--seed", "-1"], 2, b"--seed"),
        (["--baseline", runs, "--", runs, "--baseline", runs], 2, b"given once"),
        (["--baseline", tmp_path / "empty", "--", runs, "-o", tmp_path / "o.xlsx"], 3,
         b"no readable baseline run"),
    ]
    for args, status, message in cases:
        p = profreport(*args, cwd=tmp_path)
        assert p.returncode == status, (args, p.stderr)
        assert message in p.stderr, (args, p.stderr)
    assert not (tmp_path / "o.xlsx").exists() and not (tmp_path / "x.xlsx").exists()


# ---- real runs ----


def run_sets(tmp_path, sets, runs=8):
    """Run tests/programs/change `runs` times per set, the sets taking turns so that a change
    in the machine's load falls on every set alike. sets: {folder name: argument or None}."""
    exe = program("change")
    for _ in range(runs):
        for name, arg in sets.items():
            env = clean_env({"PROFILER_DIR": tmp_path / name})
            done = run_command([exe] + ([arg] if arg else []), env=env)
            assert done.returncode == 0, done.stderr
    return {name: tmp_path / name for name in sets}


def verdicts(path):
    """{region: verdict} of a comparison workbook."""
    return {r: row["Verdict"] for r, row in comparison(Book(path))[2].items()}


def test_program_with_one_region_twice_as_slow(tmp_path):
    """Eight runs per side of a program whose "compute" region sleeps twice as long in the
    new build: the comparison finds exactly that region slower (faster when the sides are
    swapped), and nothing in two sets of the same build or in one set against itself.

    The noise threshold is 5 % here: on a machine shared with other work, regions that do
    not change still move by a percent or so between two sets of runs, which is what the
    threshold is for; the doubled region moves by 100 %."""
    d = run_sets(tmp_path, {"old": None, "new": "compute", "again": None})
    regions = {"setup", "parse", "compute", "write"}

    out = tmp_path / "slower.xlsx"
    p = must_run("--baseline", d["old"], "--", d["new"], "-o", out, "--noise", "5%",
                 *templates_args())
    got = verdicts(out)
    assert set(got) == regions
    assert got == {r: "slower" if r == "compute" else "no significant change" for r in regions}
    info, _, table, _ = comparison(Book(out))
    assert 1.7 < table["compute"]["Ratio"] < 2.3  # 4 ms + overhead -> 8 ms + overhead
    assert table["compute"]["Adjusted p"] < 0.05
    lines = [line for line in p.stdout.decode().splitlines() if line.startswith("  slower")
             or line.startswith("  faster")]
    assert len(lines) == 1 and lines[0].split()[0] == "slower" and lines[0].endswith("compute")
    charts = tmp_path / "slower-charts"
    assert (charts / "compare.png").stat().st_size > 0 and (charts / "compare.svg").exists()
    assert "Comparison" in Book(out).wb.sheetnames

    out = tmp_path / "faster.xlsx"
    must_run("--baseline", d["new"], "--", d["old"], "-o", out, "--noise", "5%", "--no-gnuplot")
    assert verdicts(out) == {r: "faster" if r == "compute" else "no significant change"
                             for r in regions}

    out = tmp_path / "same-build.xlsx"
    p = must_run("--baseline", d["old"], "--", d["again"], "-o", out, "--noise", "5%",
                 "--no-gnuplot")
    assert set(verdicts(out).values()) == {"no significant change"}
    assert b"no region changed significantly" in p.stdout

    # One set against itself, at the default threshold: every value ties, p = 1.
    out = tmp_path / "itself.xlsx"
    must_run("--baseline", d["old"], "--", d["old"], "-o", out, "--no-gnuplot")
    info, _, table, _ = comparison(Book(out))
    assert {r["Verdict"] for r in table.values()} == {"no significant change"}
    assert all(r["p-value"] == 1 and r["Ratio"] == 1 for r in table.values())
    assert info["Geometric-mean ratio (new / baseline)"] == 1


def headline(stdout):
    """The terminal's geometric-mean line."""
    (line,) = [x for x in stdout.decode().splitlines() if x.startswith("geometric-mean ratio")]
    return line


def test_fail_on_regression_gates_ci(tmp_path):
    """Six runs per side of tests/programs/change. With --fail-on-regression, a build whose
    "compute" region sleeps twice as long exits with status 6 (documented in profreport(1))
    and says why on stderr, with the workbook still written; two sets of the same build exit
    0; without the option the slower build exits 0 too. The headline of the geometric mean
    and the sheet agree for the slower build and say "no significant change" for the same
    build. --noise 25 %: the doubled region moves by 100 %, two sets of one build on a
    machine busy with other work by far less (see the test above), so the status does not
    depend on the machine's load."""
    d = run_sets(tmp_path, {"old": None, "new": "compute", "again": None}, runs=6)
    noise = ["--noise", "25%", "--no-gnuplot"]

    out = tmp_path / "slower.xlsx"
    p = profreport("--baseline", d["old"], "--", d["new"], "-o", out, "--fail-on-regression",
                   *noise)
    assert p.returncode == 6, p.stderr
    assert b"1 region significantly slower than the baseline (--fail-on-regression)" in p.stderr
    assert verdicts(out)["compute"] == "slower"
    # One region of four doubled: whether the geometric mean's interval leaves 1 out depends
    # on how noisy the other three were (test_geometric_mean_headline_follows_its_interval
    # checks the rule on known values); the headline and the sheet must agree.
    info, _, _, _ = comparison(Book(out))
    low, high = info["Geometric-mean ratio 95% low"], info["Geometric-mean ratio 95% high"]
    assert low <= info["Geometric-mean ratio (new / baseline)"] <= high
    assert f"95% interval [{low:.4f}, {high:.4f}]: " in headline(p.stdout)
    assert headline(p.stdout).split("]: ")[1].split(" (")[0] == info["Overall (geometric mean)"]

    # -q keeps the status and its reason.
    p = profreport("--baseline", d["old"], "--", d["new"], "-o", out, "--fail-on-regression",
                   "-q", *noise)
    assert p.returncode == 6 and b"significantly slower" in p.stderr and p.stdout == b""

    p = must_run("--baseline", d["old"], "--", d["new"], "-o", tmp_path / "plain.xlsx", *noise)
    assert b"--fail-on-regression" not in p.stderr

    # Faster is no regression.
    must_run("--baseline", d["new"], "--", d["old"], "-o", tmp_path / "faster.xlsx",
             "--fail-on-regression", *noise)

    out = tmp_path / "same.xlsx"
    p = must_run("--baseline", d["old"], "--", d["again"], "-o", out, "--fail-on-regression",
                 *noise)
    assert headline(p.stdout).endswith(": no significant change"), headline(p.stdout)
    info, _, _, _ = comparison(Book(out))
    assert info["Overall (geometric mean)"] == "no significant change"
    # The same build: its interval holds 1, or (a machine busy in one set's runs and not the
    # other's) leaves it out by less than the 25 % noise threshold, which is no change either.
    low, high = info["Geometric-mean ratio 95% low"], info["Geometric-mean ratio 95% high"]
    ratio = info["Geometric-mean ratio (new / baseline)"]
    assert low <= 1 <= high or abs(ratio - 1) <= 0.25, (low, ratio, high)


def test_geometric_mean_headline_follows_its_interval(tmp_path):
    """Five runs a side, known values. Every region twice as slow: each resampled ratio lies
    within [min new / max base, max new / min base], so the interval of the geometric mean
    lies within [sqrt(200/104 * 100/54), sqrt(208/100 * 108/50)] = [1.89, 2.12]: it leaves 1
    out and the headline says slower, +100 %. The same values again, in another order: the
    interval holds 1 and the headline says no significant change, though the point estimate
    is exactly 1 only by construction."""
    runs = {"base": {"a": [100, 101, 102, 103, 104], "b": [50, 51, 52, 53, 54]},
            "twice": {"a": [208, 200, 206, 202, 204], "b": [108, 100, 106, 102, 104]},
            "again": {"a": [103, 101, 104, 100, 102], "b": [51, 53, 50, 54, 52]}}
    for side, regions in runs.items():
        for k in range(5):
            spec(f"r{k}.csv", [(rid, [v[k] * K]) for rid, v in regions.items()]).write(
                tmp_path / side)
    out = tmp_path / "twice.xlsx"
    p = must_run("--baseline", tmp_path / "base", "--", tmp_path / "twice", "-o", out,
                 "--no-gnuplot")
    info, _, _, _ = comparison(Book(out))
    low, high = info["Geometric-mean ratio 95% low"], info["Geometric-mean ratio 95% high"]
    assert math.sqrt(200 / 104 * 100 / 54) - 1e-12 <= low <= 2 <= high
    assert high <= math.sqrt(208 / 100 * 108 / 50) + 1e-12
    assert info["Overall (geometric mean)"] == "slower"
    assert headline(p.stdout) == (
        f"geometric-mean ratio (new / baseline): 2.0000 over 2 regions, 95% interval "
        f"[{low:.4f}, {high:.4f}]: slower (+100.00%)")

    out = tmp_path / "again.xlsx"
    p = must_run("--baseline", tmp_path / "base", "--", tmp_path / "again", "-o", out,
                 "--no-gnuplot")
    info, _, _, _ = comparison(Book(out))
    low, high = info["Geometric-mean ratio 95% low"], info["Geometric-mean ratio 95% high"]
    assert low < 1 < high and info["Geometric-mean ratio (new / baseline)"] == 1
    assert info["Overall (geometric mean)"] == "no significant change"
    assert headline(p.stdout).endswith(f"[{low:.4f}, {high:.4f}]: no significant change")


def test_fail_on_regression_needs_a_baseline(tmp_path):
    """--fail-on-regression without --baseline is a usage error (status 2)."""
    spec("r.csv", [("a", [1000])]).write(tmp_path / "runs")
    p = profreport("--fail-on-regression", tmp_path / "runs", "-o", tmp_path / "o.xlsx")
    assert p.returncode == 2 and b"--fail-on-regression is for comparisons" in p.stderr


def test_json_and_csv_exports_hold_the_comparison(tmp_path):
    """--json holds a "comparison" member and --csv two more files, comparison.csv and
    comparison_summary.csv: the Comparison sheet's table (its columns, rows in its order, times
    in ns) and the block above it, value for value as openpyxl reads the sheet."""
    import csv
    import json
    write_side(tmp_path / "base", BASE)
    write_side(tmp_path / "new", NEW)
    out = tmp_path / "diff.xlsx"
    p = must_run("--baseline", tmp_path / "base", "--", tmp_path / "new", "-o", out,
                 "--no-gnuplot", "--json", tmp_path / "d.json", "--csv", tmp_path / "csv")
    assert b"(6 files)" in p.stdout
    info, unit, table, order = comparison(Book(out))
    data = json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))["comparison"]
    with open(tmp_path / "csv" / "comparison.csv", newline="", encoding="utf-8") as f:
        records = list(csv.reader(f, strict=True))
    with open(tmp_path / "csv" / "comparison_summary.csv", newline="", encoding="utf-8") as f:
        summary = list(csv.reader(f, strict=True))

    def unguarded(text):
        """A CSV text field without the ' that keeps a spreadsheet from reading a formula."""
        return text[1:] if text[:1] == "'" and text[1:2] in ("=", "+", "-", "@") else text

    # The table: same columns (times in ns), same rows in the same order.
    timed = {"Baseline median", "New median", "Baseline mean", "New mean"}
    assert records[0] == [f"{c} (ns)" if c in timed else c for c in COLUMNS]
    assert "'=1+2" in [r[0] for r in records]  # a formula's look stays text in CSV
    assert [unguarded(r[0]) for r in records[1:]] == order == [r["Region"] for r in
                                                               data["regions"]]
    for rec, obj in zip(records[1:], data["regions"]):
        want = table[unguarded(rec[0])]
        assert list(obj) == records[0]
        for head, text in zip(records[0], rec):
            name = head[:-len(" (ns)")] if head.endswith(" (ns)") else head
            scale = unit if name in timed else 1
            value = obj[head]
            if want[name] is None:
                assert text == "" and value is None, (rec[0], name)
            elif isinstance(want[name], str):
                assert unguarded(text) == want[name] == value, (rec[0], name)
            else:
                assert math.isclose(float(text), want[name] * scale, rel_tol=1e-12), (rec[0], name)
                assert math.isclose(value, want[name] * scale, rel_tol=1e-12), (rec[0], name)
    assert table["compute"]["Verdict"] == "slower" and table["fresh"]["Verdict"] == "added"

    # The summary: the block above the table, under the same names.
    assert summary[0] == ["Key", "Value"]
    assert [k for k, _ in summary[1:]] == list(data["summary"])
    for key, text in summary[1:]:
        want, value = info[key], data["summary"][key]
        if key == "Warning":
            assert want == "none" and text == "" and value is None
        elif key == "Bootstrap seed":
            assert want == text == str(value) == "1"
        elif isinstance(want, str):
            assert want == text == value, key
        else:
            assert math.isclose(float(text), want, rel_tol=1e-12), key
            assert math.isclose(value, want, rel_tol=1e-12), key
    assert data["summary"]["Slower"] == 1 and data["summary"]["Overall (geometric mean)"] in (
        "slower", "faster", "no significant change")


def test_exports_without_a_comparison_have_no_comparison(tmp_path):
    """A report without --baseline writes neither comparison file nor member."""
    import json
    write_side(tmp_path / "new", NEW)
    must_run(tmp_path / "new", "-o", tmp_path / "r.xlsx", "--no-gnuplot", "--json",
             tmp_path / "d.json", "--csv", tmp_path / "csv")
    assert "comparison" not in json.loads((tmp_path / "d.json").read_text(encoding="utf-8"))
    assert not list((tmp_path / "csv").glob("comparison*"))
