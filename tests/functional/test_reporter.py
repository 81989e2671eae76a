"""test_reporter.py - functional tests of the profreport command (the reporter).

Each test writes run files (docs/FORMAT.md) or runs real programs, runs $PROF_BUILD/profreport,
and reads the workbook with openpyxl (and the zip with zipfile). Expected numbers are computed
here from the rows written, with Python's statistics module or by hand, following the About
sheet's definition of each column; they are never taken from the reporter's output.
"""

import math
import os
import random
import re
import shutil
import signal
import select
import statistics
import subprocess
import zipfile

import pytest

from conftest import (
    BUILD,
    PART_NAME,
    ROOT,
    clean_env,
    count_exits,
    fresh_dir,
    hist_bucket,
    program,
    read_chunks,
    replay_part,
    run_command,
    run_files,
)
from reporter_helpers import (
    T975,
    TEMPLATES,
    UNITS_NS,
    Book,
    EventRow,
    RunSpec,
    Thread,
    Tree,
    close,
    compare_cost_row,
    cost_headers,
    csv_bytes,
    expect_events,
    expected_cost_row,
    headers_by_name,
    lay_out,
    listing,
    must_run,
    percentile_inc,
    profreport,
    render_time,
    templates_args,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
CHART_NAMES = ["flame", "selftime", "callcost", "hitcount", "distribution", "trend"]


# ---- data sets ----


def statistics_runs(seed=20261122):
    """Three events-mode runs with Frequency 1 GHz, 2 GHz and 2.5 GHz (random ticks, seeded):
    "outer" (depth 0) holding "inner" (depth 1); "rec" recursing 1-3 levels (Nested 1 inside),
    its innermost call holding an "inner" too; "job:a"/"job:b" at top level; "rare" only in
    the second and third runs. Thread names repeat across runs with other thread numbers."""
    rng = random.Random(seed)
    layout = [
        ("profiling_2026.01.01_10.00.00_101.csv", 1_000_000_000,
         [Thread(1, 101, "main"), Thread(2, 102, "worker")]),
        ("profiling_2026.01.01_10.00.05_202.csv", 2_000_000_000,
         [Thread(1, 202, "main"), Thread(2, 203, "io"), Thread(3, 204, "worker")]),
        ("profiling_2026.01.01_10.00.09_303.csv", 2_500_000_000,
         [Thread(1, 303, "main"), Thread(2, 304, "worker")]),
    ]

    def outer():
        kids = [Tree("inner", rng.randint(100, 9000)) for _ in range(rng.randint(1, 3))]
        return Tree("outer", rng.randint(50, 3000), kids,
                    [rng.randint(0, 200) for _ in kids], rng.randint(0, 500))

    def rec(levels):
        node = Tree("rec", rng.randint(200, 4000), [Tree("inner", rng.randint(100, 9000))],
                    [rng.randint(0, 50)])
        for _ in range(levels):
            node = Tree("rec", rng.randint(200, 4000), [node], [rng.randint(0, 50)],
                        rng.randint(0, 300))
        return node

    runs = []
    for k, (name, freq, threads) in enumerate(layout):
        rows, end = [], 0
        for t in threads:
            trees = []
            if t.name in ("main", "worker"):
                trees += [outer() for _ in range(rng.randint(4, 9))]
                trees += [rec(rng.randint(1, 3)) for _ in range(rng.randint(2, 4))]
            if t.name == "worker":
                trees += [Tree(rng.choice(["job:a", "job:b"]), rng.randint(1000, 60000))
                          for _ in range(rng.randint(3, 6))]
            if t.name == "io" or (t.name == "worker" and k == 2):
                trees += [Tree("rare", rng.randint(10, 900)) for _ in range(rng.randint(2, 5))]
            rng.shuffle(trees)
            trows, tend = lay_out(t.number, trees, rng)
            rows += trows
            end = max(end, tend)
        runs.append(RunSpec(name, freq, threads, rows, duration=end + 12345, pid=threads[0].tid,
                            start=f"2026-01-01T10:00:0{2 * k}.000000Z",
                            program="/opt/app/bin/app", host=f"host{k}"))
    return runs


def write_runs(folder, runs):
    folder.mkdir(parents=True, exist_ok=True)
    return [r.write(folder) for r in runs]


def simple_run(name="profiling_2026.02.02_00.00.00_1.csv", regions=None, frequency=10**9,
               seed=7):
    """One small events run: top-level regions with random ticks (regions: {id: calls})."""
    rng = random.Random(seed)
    regions = regions or {"alpha": 5, "beta": 3}
    trees = []
    for rid, calls in regions.items():
        trees += [Tree(rid, rng.randint(1000, 100000)) for _ in range(calls)]
    rng.shuffle(trees)
    rows, end = lay_out(1, trees, rng)
    return RunSpec(name, frequency, [Thread(1, 1, "main")], rows, duration=end + 1)


def report(folder, tmp_path, *extra, out=None):
    """profreport FOLDER -o OUT --no-gnuplot --unit ns EXTRA...; returns (process, Book)."""
    out = out or tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out, "--no-gnuplot", "--unit", "ns", *extra)
    return p, Book(out)


# ---- 1. statistics ----


def test_call_cost_statistics_of_mixed_frequency_runs(tmp_path):
    """Every Call cost column of every region (Calls, Total over Nested = 0 rows, Total %,
    Self, Self %, Mean, Median, Std dev, Min, Max, P90, P99, Runs, Run mean/std dev/CV, 95% CI
    with Student's t, fastest/slowest run, Never stopped, 'exact' percentiles) equals the
    value computed from the rows with Python's statistics module, ticks of each run converted
    with its own Frequency (1, 2 and 2.5 GHz); headers are exact; rows are heaviest first."""
    runs = statistics_runs()
    folder = tmp_path / "runs"
    write_runs(folder, runs)
    _, book = report(folder, tmp_path)
    exp = expect_events(runs)

    headers, rows, order = book.cost()
    assert headers == cost_headers("ns", "ns")
    byname = headers_by_name(headers)
    assert set(rows) == set(exp.regions)
    assert order == sorted(exp.regions, key=lambda r: (-exp.regions[r].total, r))
    problems = []
    for rid, e in exp.regions.items():
        want = expected_cost_row(e, exp.busy, exp.self_all)
        problems += compare_cost_row(rows[rid], want, headers_by_name=byname, region=rid)
        assert rows[rid]["Percentiles"] == "exact"
    assert problems == [], "\n".join(problems)
    # The data cover what the columns are about.
    assert exp.regions["rec"].total < sum(exp.regions["rec"].costs)
    assert exp.regions["rare"].run_calls.keys() == {1, 2}
    assert rows["rare"]["Runs"] == 2
    assert rows["outer"]["Runs"] == 3
    close(sum(r["Self %"] for r in rows.values()), 1.0, what="Self % adds up to 100 %")


def test_hit_count_runs_threads_call_tree_and_summary(tmp_path):
    """Hit count (total, per run, per thread name across runs), the Runs sheet (file, mode,
    frequency, threads, events, duration, complete), its region x run matrices of mean cost
    and calls, the Threads sheet, the Call tree edges (caller, callee, calls, total, self),
    the Summary counts and an empty Warnings sheet ('none') agree with the rows written."""
    runs = statistics_runs()
    folder = tmp_path / "runs"
    paths = write_runs(folder, runs)
    _, book = report(folder, tmp_path)
    exp = expect_events(runs)

    # Hit count.
    rows = book.rows("Hit count")
    head = rows[0]
    assert head[:5] == ["Region", "Calls", "Run 1", "Run 2", "Run 3"]
    names = {"main", "worker", "io"}
    assert sorted(h for h in head[5:] if h is not None) == sorted(f"Thread: {n}" for n in names)
    for r in rows[1:]:
        e = exp.regions[r[0]]
        assert r[1] == e.calls, r
        assert r[2:5] == [e.run_calls.get(k, 0) for k in range(3)], r
        for col, h in enumerate(head[5:], start=5):
            if h is not None:
                assert r[col] == e.key_calls.get(h[len("Thread: "):], 0), (r[0], h)
    assert sorted(r[0] for r in rows[1:]) == sorted(exp.regions)

    # Runs.
    headers, table = book.table("Runs")
    assert headers == ["Run", "File", "Start", "Program", "Pid", "Host", "Mode", "Clock",
                       "Frequency (Hz)", "Threads", "Duration (ns)", "Events", "Complete",
                       "Recovered", "Crash", "CPU wait %", "Check"]
    assert len(table) == 3
    for k, (run, path, row) in enumerate(zip(runs, paths, table)):
        assert row["Run"] == k + 1
        assert row["File"] == str(path)
        assert (row["Start"], row["Program"], row["Pid"], row["Host"]) == (
            run.start, run.program, str(run.pid), run.host)
        assert (row["Mode"], row["Clock"]) == ("events", "tsc")
        assert row["Frequency (Hz)"] == run.frequency
        assert row["Threads"] == len(run.threads)
        assert row["Events"] == len(run.rows)
        close(row["Duration (ns)"], run.duration * 1e9 / run.frequency, what="Duration")
        assert (row["Complete"], row["Recovered"], row["Crash"]) == ("yes", "no", None)

    title, mhead, means = book.matrix("Mean cost per call")
    assert "(ns)" in title
    assert mhead == ["Region", "Run 1", "Run 2", "Run 3"]
    _, chead, calls = book.matrix("Calls, region x run")
    assert chead == mhead
    assert set(means) == set(calls) == set(exp.regions)
    for rid, e in exp.regions.items():
        for k in range(3):
            n = e.run_calls.get(k, 0)
            assert calls[rid][k] == n, (rid, k)
            close(means[rid][k], e.run_sum[k] / n if n else None, what=f"{rid} run {k + 1}")

    # Threads.
    headers, table = book.table("Threads")
    assert headers == ["Run", "File", "Thread", "Tid", "Name", "Role", "State", "Events", "Busy (ns)",
                       "Wall (ns)", "CPU (ns)", "CPU %", "Waited on hooks (ns)", "Mostly idle"]
    # These run files have no ThreadCpu records: the CPU columns are empty, not 0.
    assert all(r[h] is None for r in table for h in headers[-5:])
    want = [(k + 1, str(paths[k]), t.number, str(t.tid), t.name, t.state)
            for k, run in enumerate(runs) for t in run.threads]
    assert [(r["Run"], r["File"], r["Thread"], r["Tid"], r["Name"], r["State"])
            for r in table] == want
    for r in table:
        key = (r["Run"] - 1, r["Thread"])
        assert r["Events"] == exp.thread_events.get(key, 0)
        close(r["Busy (ns)"], exp.thread_busy.get(key, 0.0), what=f"Busy {key}")

    # Call tree.
    headers, table = book.table("Call tree")
    assert headers == ["Caller", "Callee", "Calls", "Total (ns)", "Self (ns)", "Mean (ns)",
                       "Share of callee's calls", "Left out"]
    got = {}
    for r in table:
        caller = None if r["Caller"] == "(thread top level)" else r["Caller"]
        assert (caller, r["Callee"]) not in got, r
        got[(caller, r["Callee"])] = r
    assert set(got) == set(exp.edges)
    assert ("rec", "rec") in got and ("rec", "inner") in got and ("outer", "inner") in got
    # An edge's Total counts each instant once: ("rec", "rec") calls inside another
    # ("rec", "rec") call add nothing; its Mean is over every call.
    assert exp.edges[("rec", "rec")][3] < exp.edges[("rec", "rec")][1]
    for key, (n, total, self_ns, outer) in exp.edges.items():
        r = got[key]
        assert r["Calls"] == n, key
        assert r["Left out"] is None, key
        close(r["Total (ns)"], outer, what=f"edge {key} total")
        close(r["Self (ns)"], self_ns, what=f"edge {key} self")
        close(r["Mean (ns)"], total / n, what=f"edge {key} mean")
        close(r["Share of callee's calls"], n / exp.regions[key[1]].calls, what=f"edge {key}")

    # Summary and Warnings.
    s = book.summary()
    assert s["Runs"] == 3
    assert s["Threads"] == sum(len(r.threads) for r in runs)
    assert s["Events read"] == sum(len(r.rows) for r in runs)
    assert s["Regions"] == len(exp.regions)
    assert s["Warnings"] == 0
    assert s["Incomplete runs"] == 0
    assert s["Malformed rows skipped"] == 0
    assert s["Inputs (run files and killed runs)"] == 3
    assert s["Runs started (UTC)"] == f"{runs[0].start} .. {runs[-1].start}"
    for r in runs:
        assert f"{r.frequency} Hz" in s["Tick rates"]
    assert book.rows("Warnings")[1][0] == "none"
    assert book.warnings() == []


@pytest.mark.parametrize("means", [[100, 600], [100, 200, 600]])
def test_ci_uses_student_t_with_runs_minus_one_degrees_of_freedom(tmp_path, means):
    """With 2 or 3 runs of one call each (run means 100, 600 or 100, 200, 600 ns), Run std
    dev is the sample standard deviation of the run means, Run CV = std dev / mean, and the
    95% CI half-width is t(0.975, runs - 1) * sd / sqrt(runs) with the published t values
    (12.706204736174707 for df = 1, 4.302652729911275 for df = 2), within 1e-9."""
    folder = tmp_path / "runs"
    for k, ticks in enumerate(means):
        RunSpec(f"profiling_2026.03.03_00.00.0{k}_{k}.csv", 10**9, [Thread(1, 1, "main")],
                [EventRow("r", ticks, 1, "", 0, ticks, 0, 0)], duration=1000).write(folder)
    _, book = report(folder, tmp_path)
    _, rows, _ = book.cost()
    n = len(means)
    sd = statistics.stdev(means)
    r = rows["r"]
    assert r["Runs"] == n
    close(r["Run mean (ns)"], statistics.fmean(means), what="Run mean")
    close(r["Run std dev (ns)"], sd, what="Run std dev")
    close(r["Run CV"], sd / statistics.fmean(means), what="Run CV")
    close(r["95% CI +/- (ns)"], T975[n - 1] * sd / math.sqrt(n), what="95% CI")


# ---- 2. units ----


def unit_runs():
    """Per-call costs of 2-50 us and totals of 1-500 ms: the units 'us' and 'ms' fit."""
    rng = random.Random(99)
    trees = [Tree("a", rng.randint(4000, 6000)) for _ in range(1000)]
    trees += [Tree("b", rng.randint(15000, 25000)) for _ in range(200)]
    trees += [Tree("c", rng.randint(30000, 50000)) for _ in range(60)]
    rng.shuffle(trees)
    rows, end = lay_out(1, trees, rng)
    return [RunSpec("profiling_2026.04.04_00.00.00_1.csv", 10**9, [Thread(1, 1, "main")], rows,
                    duration=end)]


def unit_of(header):
    """The unit a header names ("Total (ms)"), or None."""
    m = re.fullmatch(r".* \((s|ms|us|ns)\)", header)
    return m.group(1) if m else None


def head(name, unit):
    return f"{name} ({unit})" if unit else name


@pytest.mark.parametrize("unit", ["s", "ms", "us", "ns", "auto"])
def test_unit_option_scales_values_and_headers(tmp_path, unit):
    """--unit s/ms/us/ns puts that unit in every time header (Call cost, Summary, Call tree,
    Runs, Threads, the mean-cost matrix), divides the values by it and shows every time in it;
    --unit auto (the default) stores numbers of ns under headers without a unit, each cell
    shown in its own unit by its number format: here, where every mean is 2-50 us and every
    total 1-500 ms, means in us and totals in ms."""
    runs = unit_runs()
    folder = tmp_path / "runs"
    write_runs(folder, runs)
    out = tmp_path / "out.xlsx"
    args = [folder, "-o", out, "--no-gnuplot"] + ([] if unit == "auto" else ["--unit", unit])
    must_run(*args)
    book = Book(out)
    exp = expect_events(runs)
    headers, rows, _ = book.cost()
    cost_unit = unit_of(headers[7])
    total_unit = unit_of(headers[3])
    want = None if unit == "auto" else unit
    assert cost_unit == total_unit == want
    assert headers == cost_headers(want, want)
    scale = UNITS_NS[want or "ns"]
    problems = []
    for rid, e in exp.regions.items():
        problems += compare_cost_row(rows[rid], expected_cost_row(e, exp.busy, exp.self_all),
                                     scale, scale, headers_by_name(headers), rid)
    assert problems == [], "\n".join(problems)
    # Every time cell shows its value in the unit asked for, or in its own: us for these
    # means and ms for these totals.
    ws = book.wb["Call cost"]
    for r in range(2, ws.max_row + 1):
        mean, total = ws.cell(r, 8), ws.cell(r, 4)  # Region, Short name, Calls, Total, ..., Mean
        assert render_time(mean.value, mean.number_format).endswith(f" {want or 'us'}")
        assert render_time(total.value, total.number_format).endswith(f" {want or 'ms'}")
    summary = book.rows("Summary")
    (top_head,) = [r for r in summary if r[0] == "Region"]
    assert top_head[:7] == ["Region", head("Self", want), "Self %", head("Total", want), "Total %",
                            "Calls", head("Mean", want)]
    assert book.rows("Call tree")[0][3:6] == [head("Total", want), head("Self", want),
                                              head("Mean", want)]
    assert book.rows("Runs")[0][10] == head("Duration", want)
    assert book.rows("Threads")[0][8] == head("Busy", want)
    title, _, means = book.matrix("Mean cost per call")
    assert (f"({want})" in title) == (want is not None)
    close(means["a"][0], statistics.fmean(exp.regions["a"].costs) / scale,
          what="matrix mean of a")
    busy = book.table("Threads")[1][0][head("Busy", want)]
    close(busy, exp.busy / scale, what="Busy")


# ---- 3. many calls: histogram percentiles ----


def large_costs(kind, n, rng):
    if kind == "spread":
        # Log-uniform between 1 us and 1 ms, in 1 GHz ticks.
        return [int(math.exp(rng.uniform(math.log(1000), math.log(1_000_000))))
                for _ in range(n)]
    # Costs measured with a coarse clock repeat: 90 % of calls cost exactly 1024 ticks, the
    # rest are spread up to 4000.
    return [1024 if rng.random() < 0.9 else rng.randint(1025, 4000) for _ in range(n)]


@pytest.mark.parametrize("kind", ["spread", "repeated"])
def test_more_than_4096_calls_use_the_histogram_within_1_64(tmp_path, kind):
    """A region with 10000 calls (past the 4096 exact values) has Percentiles 'histogram';
    its median, P90 and P99 are within 1/64 (1.6 %, as the About sheet says) of the exact
    PERCENTILE.INC values, for costs spread out and for costs that repeat (as a coarse clock
    gives); Calls, Mean, Std dev, Min and Max stay exact."""
    rng = random.Random(4096)
    n = 10000
    ticks = large_costs(kind, n, rng)
    rows = []
    clock = 0
    for t in ticks:
        rows.append(EventRow("big", t, 1, "", 0, t, clock, 0))
        clock += t + 10
    folder = tmp_path / "runs"
    RunSpec("profiling_2026.05.05_00.00.00_1.csv", 10**9, [Thread(1, 1, "main")], rows,
            duration=clock).write(folder)
    _, book = report(folder, tmp_path)
    _, rows_, _ = book.cost()
    r = rows_["big"]
    assert r["Percentiles"] == "histogram"
    assert r["Calls"] == n
    costs = [float(t) for t in ticks]
    close(r["Mean (ns)"], statistics.fmean(costs), what="Mean")
    close(r["Std dev (ns)"], statistics.stdev(costs), what="Std dev")
    assert r["Min (ns)"] == min(costs) and r["Max (ns)"] == max(costs)
    errors = []
    for col, q in (("Median (ns)", 0.5), ("P90 (ns)", 0.9), ("P99 (ns)", 0.99)):
        exact = percentile_inc(costs, q)
        if abs(r[col] - exact) > exact / 64:
            errors.append(f"{col}: {r[col]} vs exact {exact} (error "
                          f"{abs(r[col] - exact) / exact:.4%}, limit 1/64 = 1.5625 %)")
    assert errors == [], "\n".join(errors)


# ---- 4. seed form ----


SEED_TEXT = b"Frequency,3579545\nCFoo::Foo,961486\nCFoo::Bar,\nCFoo::Foo,1000\nCFoo::Baz,35795\n"


def test_seed_form_gives_regions_and_never_stopped_without_call_tree(tmp_path):
    """A seed-form file (Frequency, then id,delta rows; FORMAT.md section 2) gives one region
    per id with its calls, total, mean, min and max from the deltas at its Frequency; the
    row with an empty delta counts as Never stopped = 1 and in no statistic; the run is
    mode 'seed'; with no Parent column there are no Call tree edges, only the note row."""
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "seed.csv"
    path.write_bytes(SEED_TEXT)
    _, book = report(folder, tmp_path)
    _, rows, order = book.cost()
    f = 3579545
    foo = [961486 * 1e9 / f, 1000 * 1e9 / f]
    baz = 35795 * 1e9 / f
    assert order == ["CFoo::Foo", "CFoo::Baz", "CFoo::Bar"]
    r = rows["CFoo::Foo"]
    assert r["Calls"] == 2 and r["Never stopped"] == 0
    close(r["Total (ns)"], sum(foo), what="Foo total")
    close(r["Mean (ns)"], statistics.fmean(foo), what="Foo mean")
    close(r["Median (ns)"], statistics.median(foo), what="Foo median")
    close(r["Std dev (ns)"], statistics.stdev(foo), what="Foo std dev")
    close(r["Min (ns)"], min(foo), what="Foo min")
    close(r["Max (ns)"], max(foo), what="Foo max")
    close(rows["CFoo::Baz"]["Total (ns)"], baz, what="Baz total")
    assert rows["CFoo::Baz"]["Calls"] == 1
    bar = rows["CFoo::Bar"]
    assert bar["Calls"] == 0 and bar["Never stopped"] == 1
    assert bar["Mean (ns)"] is None and bar["Min (ns)"] is None
    assert not bar["Total (ns)"]
    (run,) = book.table("Runs")[1]
    assert (run["File"], run["Mode"], run["Frequency (Hz)"], run["Events"]) == (
        str(path), "seed", f, 4)
    assert run["Complete"] == "yes"
    tree = book.rows("Call tree")
    assert len(tree) == 2, f"seed rows have no caller, yet the Call tree holds {tree[1:]}"
    assert tree[1][1] is None and isinstance(tree[1][0], str) and tree[1][0].startswith("no ")


def test_seed_region_never_stopped_is_listed_in_warnings(tmp_path):
    """profreport(1): the Warnings sheet lists regions never stopped. A seed-form row with an
    empty delta is such a region ('a region that never stopped', FORMAT.md 2), and the seed
    form has no Warning records of its own, so the reporter names it there."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "seed.csv").write_bytes(SEED_TEXT)
    _, book = report(folder, tmp_path)
    warnings = book.warnings()
    assert any("CFoo::Bar" in (w["Message"] or "") for w in warnings), warnings


# ---- 5. summary mode ----


def summary_runs(seed=55):
    """Two summary-mode runs (1 GHz and 3 GHz), two threads each, with the instances each row
    sums up; "rec" has inner recursive instances (Outer < Ticks)."""
    rng = random.Random(seed)
    runs, instances = [], {}
    for k, freq in enumerate([10**9, 3 * 10**9]):
        rows = []
        for thread in (1, 2):
            for rid, calls in (("step", 300), ("rec", 40), ("io", 25)):
                ticks = [rng.randint(50, 20000) for _ in range(calls)]
                outer_flags = [rid != "rec" or i % 4 == 0 for i in range(calls)]
                selfs = [t - rng.randint(0, t // 3) for t in ticks]
                hist = {}
                for t in ticks:
                    hist[hist_bucket(t)] = hist.get(hist_bucket(t), 0) + 1
                rows.append({
                    "Region": rid, "Thread": thread, "Calls": calls, "Ticks": sum(ticks),
                    "Self": sum(selfs), "Min": min(ticks), "Max": max(ticks),
                    "SumSquares": "%.17g" % float(sum(t * t for t in ticks)),
                    "Outer": sum(t for t, o in zip(ticks, outer_flags) if o),
                    "Histogram": ";".join(f"{b}:{n}" for b, n in sorted(hist.items())),
                })
                instances.setdefault(rid, []).append((freq, ticks, selfs, outer_flags, k,
                                                      thread))
        runs.append(RunSpec(f"profiling_2026.06.06_00.00.0{k}_{k}.csv", freq,
                            [Thread(1, 10 + k, "main"), Thread(2, 20 + k, "pool")], rows,
                            mode="summary", duration=10**8))
    return runs, instances


def test_summary_mode_runs_give_moments_and_histogram_percentiles(tmp_path):
    """Summary-mode run files (FORMAT.md 1.4): Calls summed over threads and runs; Total from
    Outer (recursion counted once); Self; Mean = Ticks / Calls; Min and Max; Std dev from
    SumSquares (equal to the sample standard deviation of the instances); Self %; per-run
    means; Percentiles 'histogram' with the median within the histograms' resolution (1/8);
    the Runs sheet says 'summary' with Events = calls; the Call tree has only its note row."""
    runs, instances = summary_runs()
    folder = tmp_path / "runs"
    write_runs(folder, runs)
    _, book = report(folder, tmp_path)
    _, rows, _ = book.cost()
    assert set(rows) == set(instances)
    self_all = sum(sum(s) * 1e9 / f for parts in instances.values() for f, _, s, _, _, _ in parts)
    for rid, parts in instances.items():
        costs = [t * 1e9 / f for f, ticks, _, _, _, _ in parts for t in ticks]
        total = sum(t * 1e9 / f for f, ticks, _, o, _, _ in parts
                    for t, flag in zip(ticks, o) if flag)
        self_ns = sum(sum(s) * 1e9 / f for f, _, s, _, _, _ in parts)
        r = rows[rid]
        assert r["Calls"] == len(costs)
        close(r["Total (ns)"], total, what=f"{rid} Total")
        close(r["Self (ns)"], self_ns, what=f"{rid} Self")
        close(r["Self %"], self_ns / self_all, what=f"{rid} Self %")
        close(r["Mean (ns)"], statistics.fmean(costs), what=f"{rid} Mean")
        close(r["Std dev (ns)"], statistics.stdev(costs), rel=1e-7, what=f"{rid} Std dev")
        close(r["Min (ns)"], min(costs), what=f"{rid} Min")
        close(r["Max (ns)"], max(costs), what=f"{rid} Max")
        assert r["Percentiles"] == "histogram"
        exact = statistics.median(costs)
        assert abs(r["Median (ns)"] - exact) <= exact / 8, (rid, r["Median (ns)"], exact)
        means = []
        for k in range(2):
            c = [t * 1e9 / f for f, ticks, _, _, kk, _ in parts if kk == k for t in ticks]
            means.append(statistics.fmean(c))
        assert r["Runs"] == 2
        close(r["Run mean (ns)"], statistics.fmean(means), what=f"{rid} Run mean")
        close(r["Fastest run (ns)"], min(means), what=f"{rid} Fastest run")
        close(r["Slowest run (ns)"], max(means), what=f"{rid} Slowest run")
    table = book.table("Runs")[1]
    assert [r["Mode"] for r in table] == ["summary", "summary"]
    assert [r["Events"] for r in table] == [sum(x["Calls"] for x in run.rows) for run in runs]
    hit = {r[0]: r for r in book.rows("Hit count")[1:]}
    head = book.rows("Hit count")[0]
    for rid, parts in instances.items():
        for name, number in (("main", 1), ("pool", 2)):
            col = head.index(f"Thread: {name}")
            assert hit[rid][col] == sum(len(t) for _, t, _, _, _, th in parts if th == number)
    tree = book.rows("Call tree")
    assert len(tree) == 2 and tree[1][1] is None, tree
    assert book.warnings() == []


# ---- 6. robustness ----


GOOD = RunSpec("profiling_2026.07.07_00.00.00_9.csv", 10**9, [Thread(1, 9, "main")],
               [EventRow("good", 500, 1, "", 0, 500, 0, 0)], duration=1000)


def events_text(rows, threads=((1, 5, "main"),)):
    """An events-mode file's records up to the header, plus rows (lists of fields)."""
    recs = [["Frequency", 10**9], ["Format", "profreport-run", 1], ["Mode", "events"],
            ["Duration", 10**6], ["Complete", "yes"], ["Threads", len(threads)]]
    recs += [["Thread", *t, "exited"] for t in threads]
    recs.append(["Region", "Ticks", "Thread", "Parent", "Depth", "Self", "Start", "Nested"])
    return csv_bytes(recs + rows)


@pytest.mark.parametrize("filler", [0, 5000])
def test_malformed_row_is_skipped_and_reported_with_its_line(tmp_path, filler):
    """A row with a bad number is skipped and reported as 'path:line' with its exact line
    number, counted from the file's physical lines even after an id that holds line ends
    inside quotes (and, with 5000 rows of filler, across the reader's 64 KiB blocks); the
    other rows count, and the exit status is 0."""
    rows = [['multi\nline\nid', 100, 1, "", 0, 100, 0, 0], ["a", 200, 1, "", 0, 200, 200, 0]]
    rows += [["fill", 10, 1, "", 0, 10, 300 + i, 0] for i in range(filler)]
    rows += [["a", "12x", 1, "", 0, 300, 90000, 0], ["a", 400, 1, "", 0, 400, 100000, 0],
             ["b", 5, 1, "", 0, 5, 200000, 0]]
    data = events_text(rows)
    lines = data.split(b"\n")
    bad_line = next(i for i, l in enumerate(lines, start=1) if l.startswith(b"a,12x,"))
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "bad.csv"
    path.write_bytes(data)
    _, book = report(folder, tmp_path)
    warnings = book.warnings()
    assert [(w["Where"], w["Kind"]) for w in warnings] == [(f"{path}:{bad_line}", "malformed")]
    assert "Ticks" in warnings[0]["Message"]
    _, cost, _ = book.cost()
    assert cost["a"]["Calls"] == 2 and cost["a"]["Total (ns)"] == 600
    assert cost["multi\nline\nid"]["Calls"] == 1
    assert cost["b"]["Calls"] == 1
    if filler:
        assert cost["fill"]["Calls"] == filler
    assert book.summary()["Malformed rows skipped"] == 1
    (run,) = book.table("Runs")[1]
    assert run["Events"] == len(rows) - 1


@pytest.mark.parametrize("content,line,why", [
    (b"Region,Ticks\nfoo,12\n", 1, "Frequency"),
    (b"\n\nFormat,profreport-run,1\nMode,events\n", 3, "Frequency"),
    (b"Frequency,1000000000\nFormat,profreport-run,5\nMode,events\n", 2, "version"),
    (b"Frequency,1000000000\nFormat,profreport-run,x\nMode,events\n", 2, "version"),
    (b"Frequency,1000000000\nFormat,profreport-run,1\nMode,events\nThreads,1\n"
     b"Thread,1,6,ghost,exited\nWarning,unterminated,1,1,region b never stopped\n"
     b"Region,Tocks,Thread,Parent,Depth,Self,Start,Nested\nb,100,1,,0,100,0,0\n", 7, "Tocks"),
], ids=["no-frequency", "blank-lines-first", "version-4", "version-x", "wrong-header"])
def test_unreadable_file_is_skipped_with_a_warning(tmp_path, content, line, why):
    """A file without a Frequency record, of an unknown format version, or with a wrong
    table header, is skipped: a Warnings row of kind 'skipped' names it as 'path:line' and
    says why; nothing of it is reported (no run, thread, thread-name column or warning of
    its own); the other runs are reported and the exit status is 0."""
    folder = tmp_path / "runs"
    GOOD.write(folder)
    path = folder / "other.csv"
    path.write_bytes(content)
    _, book = report(folder, tmp_path)
    warnings = book.warnings()
    assert [(w["Where"], w["Kind"]) for w in warnings] == [(f"{path}:{line}", "skipped")]
    assert why in warnings[0]["Message"]
    assert book.summary()["Runs"] == 1
    assert [r["File"] for r in book.table("Runs")[1]] == [str(folder / GOOD.name)]
    assert [r["Name"] for r in book.table("Threads")[1]] == ["main"]
    assert book.rows("Hit count")[0] == ["Region", "Calls", "Run 1", "Thread: main"]
    assert book.summary()["Threads"] == 1


def test_bom_and_crlf_file_reads_like_the_plain_one(tmp_path):
    """A run file starting with a UTF-8 BOM and ending its records in CR LF gives the same
    report as the same file with LF endings, no warning; a malformed row in it is reported
    with its line number."""
    runs = statistics_runs(seed=3)[:1]
    plain = tmp_path / "plain"
    runs[0].write(plain)
    crlf = tmp_path / "crlf"
    runs[0].write(crlf, eol=b"\r\n", bom=True)
    _, a = report(plain, tmp_path, out=tmp_path / "a.xlsx")
    _, b = report(crlf, tmp_path, out=tmp_path / "b.xlsx")
    assert a.rows("Call cost") == b.rows("Call cost")
    assert a.rows("Hit count") == b.rows("Hit count")
    assert a.rows("Call tree") == b.rows("Call tree")
    assert b.warnings() == []
    (run,) = b.table("Runs")[1]
    assert run["Events"] == len(runs[0].rows) and run["Program"] == runs[0].program

    text = (crlf / runs[0].name).read_bytes()
    lines = text.split(b"\r\n")
    lines.insert(20, b"x,1,1,,0,z,0,0")  # line 21
    (crlf / runs[0].name).write_bytes(b"\r\n".join(lines))
    _, c = report(crlf, tmp_path, out=tmp_path / "c.xlsx")
    assert [(w["Where"], w["Kind"]) for w in c.warnings()] == [
        (f"{crlf / runs[0].name}:21", "malformed")]


def test_truncated_file_is_an_incomplete_run_with_its_earlier_rows(tmp_path):
    """A file that ends inside a quoted field (a write cut short) is read up to there: its
    earlier rows count, the run is marked Complete 'no', and the Warnings sheet says
    'incomplete' for the file and names the cut record's line."""
    rows = [["r", 100 + i, 1, "", 0, 100 + i, 1000 * i, 0] for i in range(5)]
    data = events_text(rows) + b'"cut off in the mid'
    cut_line = data.count(b"\n") + 1
    folder = tmp_path / "runs"
    folder.mkdir()
    path = folder / "cut.csv"
    path.write_bytes(data)
    _, book = report(folder, tmp_path)
    _, cost, _ = book.cost()
    assert cost["r"]["Calls"] == 5
    assert cost["r"]["Total (ns)"] == sum(100 + i for i in range(5))
    (run,) = book.table("Runs")[1]
    assert run["Complete"] == "no" and run["Events"] == 5
    assert book.summary()["Incomplete runs"] == 1
    warnings = book.warnings()
    kinds = {(w["Where"].split(":")[0] if w["Where"] else None, w["Kind"]) for w in warnings}
    assert (str(path), "incomplete") in kinds, warnings
    assert any(w["Where"] == f"{path}:{cut_line}" for w in warnings), warnings


def test_empty_folder_exits_3_and_writes_nothing(tmp_path):
    """An empty folder: exit status 3, a message on stderr saying no run files were found,
    and no output file (nor temporary file) created."""
    folder = tmp_path / "empty"
    folder.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    p = profreport(folder, "-o", tmp_path / "out.xlsx", cwd=cwd)
    assert p.returncode == 3, p
    assert b"no run files" in p.stderr
    assert p.stdout == b""
    assert listing(tmp_path) == ["cwd", "empty"]


def test_only_unreadable_inputs_exit_3_and_write_nothing(tmp_path):
    """Inputs that are all unreadable (a dangling symlink, a folder named *.csv, a missing
    path, a file with no Frequency): exit status 3, stderr names each of them (the file
    with no Frequency as 'path:1') and says no run was readable; no output file."""
    folder = tmp_path / "runs"
    folder.mkdir()
    (folder / "dangling.csv").symlink_to(tmp_path / "nowhere")
    (folder / "dir.csv").mkdir()
    (folder / "junk.csv").write_bytes(b"hello,world\n")
    before = listing(tmp_path)
    p = profreport(folder, tmp_path / "missing.csv", "-o", tmp_path / "out.xlsx",
                   cwd=tmp_path)
    assert p.returncode == 3, p
    err = p.stderr.decode()
    assert "no readable run" in err
    for name in (f"{folder}/junk.csv:1", f"{folder}/dangling.csv", f"{folder}/dir.csv",
                 f"{tmp_path}/missing.csv"):
        assert name in err, (name, err)
    assert listing(tmp_path) == before


# ---- 7. hostile ids ----


def hostile_ids(tmp_path):
    return [
        '=HYPERLINK("http://example.com","x")',
        "+1+1",
        "-2+3",
        "@SUM(A1)",
        f"`touch {tmp_path}/MARKER1`",
        f"'.system(\"touch {tmp_path}/MARKER2\").'",
        f'system("touch {tmp_path}/MARKER3")',
        f"$(touch {tmp_path}/MARKER4)",
        f'"; ! touch {tmp_path}/MARKER5; "',
    ]


def test_hostile_ids_stay_text_and_run_nothing(tmp_path):
    """Ids that look like formulas or shell/gnuplot commands, after a run WITH gnuplot
    charts: no marker file is created; each id is in the workbook as the exact string with
    data_type 's' (no cell anywhere is a formula); an id with invalid UTF-8 bytes appears
    with U+FFFD; an id of 40000 characters is cut to 32767 and a Warnings row 'cut' exists."""
    ids = hostile_ids(tmp_path)
    bad_utf8 = b"bad\xff\xfeid\xc3"
    long_id = "L" * 40000
    rows, clock = [], 0
    for i, rid in enumerate(ids + [bad_utf8, long_id]):
        rows.append(EventRow(rid, 1000 + 100 * i, 1, "", 0, 1000 + 100 * i, clock, 0))
        clock += 5000
    folder = tmp_path / "runs"
    RunSpec("profiling_2026.08.08_00.00.00_1.csv", 10**9, [Thread(1, 1, "main")], rows,
            duration=clock).write(folder)
    out = tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out, "--unit", "ns", *templates_args())
    assert p.stderr == b"", p.stderr
    for png in CHART_NAMES:  # gnuplot ran on these labels
        assert (tmp_path / "out-charts" / f"{png}.png").exists()
    for k in range(1, 6):
        assert not (tmp_path / f"MARKER{k}").exists(), f"MARKER{k} was created"

    book = Book(out)
    want = ids + ["bad\ufffd\ufffdid\ufffd", "L" * 32767]
    _, cost, _ = book.cost()
    assert sorted(cost) == sorted(want)
    for sheet in ("Call cost", "Hit count", "Summary", "Call tree"):
        cells = {c.value: c for title, c in book.all_cells() if title == sheet}
        for rid in want:
            assert rid in cells, (sheet, rid[:50])
            assert cells[rid].data_type == "s", (sheet, rid[:50], cells[rid].data_type)
    formulas = [(t, c.coordinate, c.value) for t, c in book.all_cells() if c.data_type == "f"]
    assert formulas == []
    cut = [w for w in book.warnings() if w["Kind"] == "cut"]
    assert len(cut) == 1 and cut[0]["Count"] >= 1, book.warnings()


def test_long_non_ascii_id_is_cut_to_32767_characters(tmp_path):
    """Excel's cell limit is 32767 characters: an id of 40000 two-byte characters is cut to
    32767 characters (not bytes), with a Warnings row 'cut'."""
    folder = tmp_path / "runs"
    RunSpec("profiling_2026.08.08_00.00.00_2.csv", 10**9, [Thread(1, 1, "main")],
            [EventRow("\u00e9" * 40000, 10, 1, "", 0, 10, 0, 0)], duration=100).write(folder)
    _, book = report(folder, tmp_path)
    _, cost, _ = book.cost()
    (rid,) = cost
    assert rid == "\u00e9" * 32767, f"cut to {len(rid)} characters"
    assert [w["Kind"] for w in book.warnings()] == ["cut"]


def test_long_non_ascii_start_is_shown_whole_on_the_summary(tmp_path):
    """Runs started (UTC) on the Summary sheet holds the first and last Start records whole,
    however long: a Start of 400 two-byte characters is not cut inside a character (which made
    a workbook that cannot be opened). Found by the workbook fuzz target."""
    folder = tmp_path / "runs"
    start = "\u00e9" * 400
    RunSpec("profiling_2026.08.08_00.00.00_3.csv", 10**9, [Thread(1, 1, "main")],
            [EventRow("a", 10, 1, "", 0, 10, 0, 0)], duration=100, start=start).write(folder)
    _, book = report(folder, tmp_path)
    values = {row[0]: row[1] for row in book.rows("Summary") if row}
    assert values["Runs started (UTC)"] == start + " .. " + start


# ---- 8. output safety ----


@pytest.mark.parametrize("args", [["-o", "|cat"], ["-o", "<x"], ["-o", ">y"],
                                  ["-o", "ok.xlsx", "--charts-dir", "|cat"]],
                         ids=["pipe", "input", "redirect", "charts-dir-pipe"])
def test_output_names_like_pipes_are_refused(tmp_path, args):
    """-o '|cat', '<x' or '>y' (or such a --charts-dir): exit status 2 with a message,
    nothing created anywhere."""
    folder = tmp_path / "runs"
    GOOD.write(folder)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    before = listing(tmp_path)
    p = profreport(folder, *args, cwd=cwd)
    assert p.returncode == 2, p
    assert p.stderr.startswith(b"profreport: ")
    assert listing(tmp_path) == before


def test_output_folder_that_cannot_be_made_exits_4_and_leaves_nothing(tmp_path):
    """-o under a regular file (a folder that cannot exist): exit status 4, a message, and
    no temporary file left in the output's folder, in the working folder or beside the
    regular file."""
    folder = tmp_path / "runs"
    GOOD.write(folder)
    afile = tmp_path / "afile"
    afile.write_text("not a folder\n")
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    before = listing(tmp_path)
    p = profreport(folder, "-o", afile / "out.xlsx", cwd=cwd)
    assert p.returncode == 4, p
    assert b"out.xlsx" in p.stderr
    assert listing(tmp_path) == before
    assert afile.read_text() == "not a folder\n"


def test_existing_output_is_replaced_atomically_or_left_alone(tmp_path):
    """An existing output file is replaced by rename on success (a hard link to the old file
    keeps the old bytes: the file was never rewritten in place) and left byte-identical when
    the run fails (no readable input: exit 3); no temporary file is left either way."""
    folder = tmp_path / "runs"
    GOOD.write(folder)
    out = tmp_path / "out" / "report.xlsx"
    out.parent.mkdir()
    out.write_bytes(b"old report\n")
    os.link(out, tmp_path / "old-link")
    must_run(folder, "-o", out, "--no-gnuplot", "-q")
    assert (tmp_path / "old-link").read_bytes() == b"old report\n"
    assert out.read_bytes()[:2] == b"PK"
    assert Book(out).summary()["Runs"] == 1
    assert os.listdir(out.parent) == ["report.xlsx"]

    good = out.read_bytes()
    empty = tmp_path / "empty"
    empty.mkdir()
    p = profreport(empty, "-o", out, "--no-gnuplot")
    assert p.returncode == 3
    junk = tmp_path / "junk"
    junk.mkdir()
    (junk / "x.csv").write_bytes(b"not a run\n")
    p = profreport(junk, "-o", out, "--no-gnuplot")
    assert p.returncode == 3
    assert out.read_bytes() == good
    assert os.listdir(out.parent) == ["report.xlsx"]


def test_failed_charts_folder_exits_4_and_keeps_the_old_workbook(tmp_path):
    """profreport(1): the workbook is renamed over an existing file only when complete, so a
    failed run leaves it untouched. A charts folder that cannot be made (under a regular
    file) fails the run with exit status 4: the old workbook is still there, byte for byte,
    and no temporary file is left (in the output's folder or TMPDIR)."""
    folder = tmp_path / "runs"
    GOOD.write(folder)
    afile = tmp_path / "afile"
    afile.write_text("x\n")
    out = tmp_path / "report.xlsx"
    out.write_bytes(b"old report\n")
    work = tmp_path / "tmpdir"
    work.mkdir()
    before = listing(tmp_path)
    p = profreport(folder, "-o", out, "--charts-dir", afile / "charts", *templates_args(),
                   cwd=tmp_path, env={"TMPDIR": work})
    assert p.returncode == 4, p
    assert b"charts" in p.stderr
    assert listing(tmp_path) == before
    assert out.read_bytes() == b"old report\n"


# ---- 9. charts ----


def chart_run(folder):
    return simple_run(regions={"alpha": 4, "beta": 3, "gamma": 2, "delta": 1}).write(folder)


def media_and_charts(path):
    with zipfile.ZipFile(path) as z:
        names = z.namelist()
        media = [n for n in names if n.startswith("xl/media/")]
        charts = [n for n in names if re.fullmatch(r"xl/charts/chart\d+\.xml", n)]
        return media, charts, {n: z.read(n) for n in media + charts}


def check_chart_files(folder):
    assert sorted(os.listdir(folder)) == sorted(f"{n}.{e}" for n in CHART_NAMES
                                                for e in ("png", "svg"))
    for n in CHART_NAMES:
        assert (folder / f"{n}.png").read_bytes()[:8] == PNG_SIGNATURE
        svg = (folder / f"{n}.svg").read_text()
        assert "<svg" in svg and svg.rstrip().endswith("</svg>")


def test_gnuplot_charts_are_embedded_and_saved(tmp_path):
    """With gnuplot: the workbook zip holds 6 PNG pictures (xl/media) and 4 native charts
    (Summary: two; Call paths: one; Charts: self time);
    --charts-dir (made with its parents) gets flame/selftime/callcost/hitcount/distribution/
    trend as PNG
    (PNG signature) and SVG; the private work folder under TMPDIR is removed."""
    folder = tmp_path / "runs"
    chart_run(folder)
    out = tmp_path / "out.xlsx"
    charts = tmp_path / "pictures" / "here"
    work = tmp_path / "tmpdir"
    work.mkdir()
    must_run(folder, "-o", out, "--charts-dir", charts, *templates_args(),
             env={"TMPDIR": work})
    assert os.listdir(work) == [], "the private work folder in TMPDIR was left behind"
    media, native, data = media_and_charts(out)
    assert len(media) == 6 and all(n.endswith(".png") for n in media), media
    assert all(data[n][:8] == PNG_SIGNATURE for n in media)
    assert len(native) == 5, native
    check_chart_files(charts)
    assert not (tmp_path / "out-charts").exists()


def test_default_charts_folder_is_beside_the_output(tmp_path):
    """Without --charts-dir the pictures go to '<output without .xlsx>-charts' beside the
    output, whatever the working folder."""
    folder = tmp_path / "runs"
    chart_run(folder)
    out = tmp_path / "sub" / "my.report.xlsx"
    out.parent.mkdir()
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    must_run(folder, "-o", out, *templates_args(), cwd=cwd)
    check_chart_files(tmp_path / "sub" / "my.report-charts")
    assert sorted(os.listdir(tmp_path / "sub")) == ["my.report-charts", "my.report.xlsx"]
    assert os.listdir(cwd) == []


@pytest.mark.skipif(BUILD != (ROOT / "build").resolve(),
                    reason="the build tree's ../templates lookup applies to build/profreport")
def test_templates_are_found_from_the_build_tree(tmp_path):
    """build/profreport finds the templates in the source tree's templates/ (beside the
    build folder) with no --templates: all four charts are drawn, no warning."""
    folder = tmp_path / "runs"
    chart_run(folder)
    out = tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out)
    assert p.stderr == b""
    check_chart_files(tmp_path / "out-charts")
    assert Book(out).warnings() == []


def test_no_gnuplot_keeps_native_charts_and_makes_no_pictures(tmp_path):
    """--no-gnuplot: no pictures in the workbook, no charts folder created, the 4 native
    charts are still there, and no warning about charts."""
    folder = tmp_path / "runs"
    chart_run(folder)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, "--no-gnuplot")
    media, native, _ = media_and_charts(out)
    assert media == [] and len(native) == 5
    assert sorted(os.listdir(tmp_path)) == ["out.xlsx", "runs"]
    assert Book(out).warnings() == []


def test_missing_gnuplot_is_a_warning_not_a_failure(tmp_path):
    """With no gnuplot on PATH: exit status 0, the native charts are there, no pictures and
    no charts folder, a Warnings row explains that gnuplot was not found, and a warning is
    printed on stderr."""
    folder = tmp_path / "runs"
    chart_run(folder)
    bindir = tmp_path / "bin"  # a PATH with no gnuplot (profreport needs nothing else)
    bindir.mkdir()
    out = tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out, *templates_args(), env={"PATH": str(bindir)})
    assert b"gnuplot" in p.stderr
    media, native, _ = media_and_charts(out)
    assert media == [] and len(native) == 5
    assert not (tmp_path / "out-charts").exists()
    warnings = Book(out).warnings()
    assert len(warnings) == 1, warnings
    assert "gnuplot" in warnings[0]["Message"] and "not found" in warnings[0]["Message"]
    assert Book(out).summary()["Warnings"] == 1


def counting_gnuplot(tmp_path):
    """A bin folder whose gnuplot logs its arguments, one line per run, to the returned log
    file, then runs the real gnuplot; with PATH set to it profreport finds nothing else."""
    real = shutil.which("gnuplot")
    assert real, "gnuplot is needed for the charts tests"
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "gnuplot-runs.log"
    script = bindir / "gnuplot"
    script.write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    script.chmod(0o755)
    return bindir, log


@pytest.mark.parametrize("threads", [1, 2, 3])
def test_one_gnuplot_per_thread_draws_every_chart(tmp_path, threads):
    """A report's charts, both pictures of each, are drawn by one gnuplot run per thread
    profreport may use (PROFREPORT_THREADS), each its own share of the charts, with no
    `gnuplot --version` probe before; every picture is there and embedded."""
    folder = tmp_path / "runs"
    chart_run(folder)
    bindir, log = counting_gnuplot(tmp_path)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, *templates_args(),
             env={"PATH": f"{bindir}:/usr/bin:/bin", "PROFREPORT_THREADS": str(threads)})
    runs = log.read_text().splitlines()
    assert len(runs) == threads, runs
    assert not any("--version" in r for r in runs)
    check_chart_files(tmp_path / "out-charts")
    media, _, _ = media_and_charts(out)
    assert len(media) == len(CHART_NAMES)
    assert Book(out).warnings() == []


@pytest.mark.parametrize("threads", [1, 2])
def test_a_failing_chart_leaves_the_others(tmp_path, threads):
    """A template that fails halfway through the charts (hitcount.gp, fourth of six), drawn
    by one gnuplot per thread: the warning names that chart and gnuplot's message, every
    other chart is drawn (the rest of hitcount's share by one more gnuplot, started after the
    failure: with two threads, charts 1, 3 and 5 are one share), and no hitcount picture is
    left."""
    folder = tmp_path / "runs"
    chart_run(folder)
    mine = tmp_path / "mytemplates"
    shutil.copytree(TEMPLATES, mine)
    gp = mine / "hitcount.gp"
    gp.write_text(gp.read_text() + "\nplot undefined_variable_4711 notitle\n")
    bindir, log = counting_gnuplot(tmp_path)
    out = tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out, "--templates", mine,
                 env={"PATH": f"{bindir}:/usr/bin:/bin", "PROFREPORT_THREADS": str(threads)})
    assert b"hitcount" in p.stderr and b"undefined_variable_4711" in p.stderr
    assert len(log.read_text().splitlines()) == threads + 1
    drawn = sorted(os.listdir(tmp_path / "out-charts"))
    assert drawn == sorted(f"{n}.{e}" for n in CHART_NAMES if n != "hitcount"
                           for e in ("png", "svg"))
    media, _, _ = media_and_charts(out)
    assert len(media) == len(CHART_NAMES) - 1
    warnings = Book(out).warnings()
    assert len(warnings) == 1, warnings
    assert "'hitcount' not drawn" in warnings[0]["Message"]
    assert "undefined_variable_4711" in warnings[0]["Message"]


def test_program_that_is_not_gnuplot_is_one_warning(tmp_path):
    """A `gnuplot` on PATH that is something else (it exits 1 with a usage line): run once per
    thread (two here), one warning that says it does not work like gnuplot, no pictures, the report written."""
    folder = tmp_path / "runs"
    chart_run(folder)
    bindir = tmp_path / "bin"
    bindir.mkdir()
    log = tmp_path / "runs.log"
    fake = bindir / "gnuplot"
    fake.write_text(f'#!/bin/sh\necho run >> "{log}"\necho "usage: plotter FILE"\nexit 1\n')
    fake.chmod(0o755)
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, *templates_args(),
             env={"PATH": f"{bindir}:/usr/bin:/bin", "PROFREPORT_THREADS": "2"})
    assert log.read_text().splitlines() == ["run", "run"]
    media, native, _ = media_and_charts(out)
    assert media == [] and len(native) == 5
    assert not (tmp_path / "out-charts").exists()
    warnings = Book(out).warnings()
    assert len(warnings) == 1, warnings
    assert "does not work like gnuplot" in warnings[0]["Message"]
    assert "usage: plotter FILE" in warnings[0]["Message"]


def test_user_templates_are_used(tmp_path):
    """--templates DIR: a copy of the templates with the callcost title changed draws that
    title (seen in the SVG); the other charts are drawn from the copy as usual."""
    folder = tmp_path / "runs"
    chart_run(folder)
    mine = tmp_path / "mytemplates"
    shutil.copytree(TEMPLATES, mine)
    gp = mine / "callcost.gp"
    text = gp.read_text()
    assert 'set title ARG4 font ",13"' in text
    gp.write_text(text.replace('set title ARG4 font ",13"',
                               'set title "My very own title 4711" font ",13"'))
    out = tmp_path / "out.xlsx"
    must_run(folder, "-o", out, "--templates", mine)
    check_chart_files(tmp_path / "out-charts")
    assert "My very own title 4711" in (tmp_path / "out-charts" / "callcost.svg").read_text()
    assert "My very own title 4711" not in (tmp_path / "out-charts" / "hitcount.svg").read_text()


# ---- 10. filters ----


def filter_run():
    return simple_run(regions={"job:load": 6, "job:save": 4, "jobless": 5, "io:read": 3,
                               "job:skip": 2}, seed=11)


@pytest.mark.parametrize("args,kept", [
    (["--include", "job:*"], {"job:load", "job:save", "job:skip"}),
    (["--exclude", "job:*"], {"jobless", "io:read"}),
    (["--include", "job:*", "--exclude", "*skip"], {"job:load", "job:save"}),
    (["--include", "io:*", "--include", "job:l*"], {"io:read", "job:load"}),
])
def test_include_and_exclude_choose_regions_without_changing_numbers(tmp_path, args, kept):
    """--include keeps only regions matching a glob (any of several), --exclude leaves out
    matching ones, both together combine; the regions kept have the same numbers as in the
    unfiltered report (profreport(1): filters choose what is shown)."""
    folder = tmp_path / "runs"
    filter_run().write(folder)
    _, full = report(folder, tmp_path, out=tmp_path / "full.xlsx")
    _, book = report(folder, tmp_path, *args, out=tmp_path / "filtered.xlsx")
    _, rows, _ = book.cost()
    _, all_rows, _ = full.cost()
    assert set(rows) == kept
    for rid in kept:
        assert rows[rid] == all_rows[rid], rid
    hit = {r[0] for r in book.rows("Hit count")[1:]}
    assert hit == kept
    assert set(book.matrix("Calls, region x run")[2]) == kept
    assert {r["Callee"] for r in book.table("Call tree")[1]} == kept
    assert book.summary()["Regions"] == len(kept)


# ---- 11. --top and the terminal summary ----


def flat_rows(stdout, names):
    """The terminal summary's region lines: [(name, tokens)] in printed order."""
    out = []
    for line in stdout.decode().splitlines():
        tokens = line.split()
        if tokens and tokens[-1] in names:
            out.append((tokens[-1], tokens))
    return out


def test_top_limits_terminal_summary_and_charts(tmp_path):
    """--top 3: the terminal summary lists exactly the 3 regions with the most total time,
    in that order, with their calls, and says how many more are in the workbook; the Summary
    sheet's top table, its native charts and the gnuplot charts show those 3 only."""
    folder = tmp_path / "runs"
    run = simple_run(regions={"aaa": 9, "bbb": 7, "ccc": 5, "ddd": 3, "eee": 1}, seed=5)
    run.write(folder)
    exp = expect_events([run])
    order = sorted(exp.regions, key=lambda r: -exp.regions[r].total)
    out = tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out, "--top", "3", *templates_args())
    lines = flat_rows(p.stdout, set(exp.regions))
    assert [n for n, _ in lines] == order[:3]
    for name, tokens in lines:
        assert str(exp.regions[name].calls) in tokens, (name, tokens)
    assert b"2 more regions" in p.stdout
    summary = Book(out).rows("Summary")
    i = [r[0] for r in summary].index("Top regions by total time")
    assert [r[0] for r in summary[i + 2:i + 5]] == order[:3]
    assert not [r for r in summary[i + 5:] if r[0] in exp.regions]
    _, native, data = media_and_charts(out)
    for name in native:
        assert b'<c:ptCount val="3"/>' in data[name], name
    svg = (tmp_path / "out-charts" / "callcost.svg").read_text()
    assert all(n in svg for n in order[:3]) and not any(n in svg for n in order[3:])


def test_terminal_summary_lists_regions_by_total_and_quiet_prints_nothing(tmp_path):
    """Without --top the terminal summary lists every region (fewer than 15) in order of
    total time with the right calls and names the workbook; -q prints nothing on stdout or
    stderr and still writes the workbook."""
    folder = tmp_path / "runs"
    runs = statistics_runs()
    write_runs(folder, runs)
    exp = expect_events(runs)
    out = tmp_path / "out.xlsx"
    p = must_run(folder, "-o", out, "--no-gnuplot")
    lines = flat_rows(p.stdout, set(exp.regions))
    assert [n for n, _ in lines] == sorted(exp.regions, key=lambda r: -exp.regions[r].total)
    for name, tokens in lines:
        # "total%  9.48 ms  9.48 ms  calls ...": each time is a number and its unit.
        assert tokens[5] == str(exp.regions[name].calls), (name, tokens)
    assert str(out).encode() in p.stdout
    out.unlink()
    q = must_run(folder, "-o", out, "--no-gnuplot", "-q")
    assert q.stdout == b"" and q.stderr == b""
    assert out.exists()


# ---- 12. killed runs ----


def kill_when_ready(tmp_path):
    """Run killme until it says ready, SIGKILL it; return (pid, folder with its .part)."""
    folder = fresh_dir(tmp_path)
    with subprocess.Popen([str(program("killme"))], env=clean_env({"PROFILER_DIR": folder}),
                          cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE) as p:
        ready, _, _ = select.select([p.stdout], [], [], 60)
        line = p.stdout.readline() if ready else b"(no output in 60 s)"
        if line != b"ready\n":
            p.kill()
            pytest.fail(f"killme did not get ready: {line!r}")
        p.send_signal(signal.SIGKILL)
        p.wait(timeout=30)
        return p.pid, folder


def test_killed_run_is_read_from_its_parts(tmp_path):
    """A run killed with SIGKILL leaves .part files; profreport on the folder reads them as
    one run: Runs sheet Recovered 'yes', Complete 'no', a Warnings row 'incomplete', and
    every instance whose end was written counted ('k' calls = the part's exit records;
    'outer' never stopped)."""
    pid, folder = kill_when_ready(tmp_path)
    (part,) = [folder / n for n in os.listdir(folder)]
    assert PART_NAME.match(part.name)
    chunks, _ = read_chunks(part.read_bytes())
    exits = count_exits(chunks)
    replay = replay_part(chunks)
    _, book = report(folder, tmp_path)
    (run,) = book.table("Runs")[1]
    assert (run["Recovered"], run["Complete"], run["Pid"]) == ("yes", "no", str(pid))
    assert run["Events"] == len(replay)
    assert str(folder) in run["File"]
    _, cost, _ = book.cost()
    assert cost["k"]["Calls"] == exits
    assert cost["k"]["Never stopped"] == sum(1 for r in replay
                                             if r["Region"] == "k" and r["Ticks"] == "")
    assert cost["outer"]["Calls"] == 0 and cost["outer"]["Never stopped"] == 1
    assert "incomplete" in [w["Kind"] for w in book.warnings()]
    s = book.summary()
    assert s["Runs recovered from killed processes"] == 1 and s["Incomplete runs"] == 1
    (edge,) = [r for r in book.table("Call tree")[1] if r["Callee"] == "k"]
    assert edge["Caller"] == "outer" and edge["Calls"] == exits


def test_shares_of_a_run_whose_outer_region_never_stopped_stay_within_100_percent(tmp_path):
    """A killed run: 'main' (top level) never stopped, so its time is unknown. Total % is
    over the time of the top-level instances, and for 'main' the time of what was seen inside
    it (5000 + 3000 for work, 1000 for step), plus 30 ns of 'tiny' on another thread: 9030 ns.
    The base used to leave 'main' out (30 ns), giving 'work' a share of 26667 %."""
    rows = [EventRow("work", 5000, 1, "main", 1, 5000, 100, 0),
            EventRow("work", 3000, 1, "main", 1, 3000, 6000, 0),
            EventRow("inner", 200, 1, "step", 2, 200, 9100, 0),
            EventRow("step", 1000, 1, "main", 1, 800, 9000, 0),
            EventRow("tiny", 30, 2, "", 0, 30, 20000, 0),
            EventRow("main", None, 1, "", 0, None, 0, 0)]
    run = RunSpec("profiling_2026.09.09_00.00.00_4.csv", 10**9,
                  [Thread(1, 4, "main"), Thread(2, 5, "worker")], rows, duration=20030,
                  complete="no")
    run.write(tmp_path / "runs")
    p, book = report(tmp_path / "runs", tmp_path)
    _, cost, _ = book.cost()
    busy = 9030
    for region, total in [("work", 8000), ("step", 1000), ("inner", 200), ("tiny", 30)]:
        close(cost[region]["Total %"], total / busy, what=region)
    assert cost["main"]["Never stopped"] == 1 and not cost["main"]["Total %"]
    assert all(0 <= (r["Total %"] or 0) <= 1 for r in cost.values())
    busy_of = {t["Name"]: t["Busy (ns)"] for t in book.table("Threads")[1]}
    assert busy_of == {"main": 9000, "worker": 30}
    # The terminal's total% column has the same base.
    line = [ln for ln in p.stdout.decode().splitlines() if ln.rstrip().endswith(" work")]
    assert line and float(line[0].split()[0]) == pytest.approx(100 * 8000 / busy, abs=0.01)


# ---- 13. end to end ----


def test_basic_example_three_runs_end_to_end(tmp_path):
    """examples/basic run 3 times (PROFILER_DIR): Calls are load 3, parse 60 (20 per run),
    step 600 (200 per run), checksum 12 (steps 0, 50, 100, 150); the Call tree has load ->
    parse with 60 calls and step -> checksum with 12; Runs sheet lists 3 complete runs."""
    folder = tmp_path / "runs"
    for _ in range(3):
        p = run_command([BUILD / "examples" / "basic"],
                        env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path)
        assert p.returncode == 0, p.stderr
    assert len(run_files(folder)) == 3
    _, book = report(folder, tmp_path)
    _, cost, order = book.cost()
    calls = {r: cost[r]["Calls"] for r in cost}
    assert calls == {"load": 3, "parse": 60, "step": 600, "checksum": 12}
    edges = {(r["Caller"], r["Callee"]): r["Calls"] for r in book.table("Call tree")[1]}
    assert edges[("load", "parse")] == 60
    assert edges[("step", "checksum")] == 12
    assert edges[("(thread top level)", "load")] == 3
    assert edges[("(thread top level)", "step")] == 600
    assert [(r["Complete"], r["Mode"], r["Events"]) for r in book.table("Runs")[1]] == [
        ("yes", "events", 225)] * 3
    assert cost["load"]["Runs"] == 3
    assert cost["parse"]["Total (ns)"] <= cost["load"]["Total (ns)"]
    assert book.warnings() == []


# ---- 14. command line ----


def test_help_and_version(tmp_path):
    """--help and -h print the usage on stdout and exit 0; --version prints the version
    and exits 0."""
    for opt in ("--help", "-h"):
        p = profreport(opt, cwd=tmp_path)
        assert p.returncode == 0 and p.stdout.startswith(b"usage: profreport"), p
        for word in (b"--output", b"--unit", b"--top", b"--include", b"--no-gnuplot"):
            assert word in p.stdout
    p = profreport("--version", cwd=tmp_path)
    assert p.returncode == 0
    assert re.match(rb"profreport \d+\.\d+\.\d+", p.stdout), p.stdout
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("args,message", [
    (["--bogus", "x"], b"--bogus"),
    (["x", "-o"], b"-o"),
    (["--top"], b"--top"),
    (["--top", "0", "x"], b"--top"),
    (["--top", "-3", "x"], b"--top"),
    (["--top", "ten", "x"], b"--top"),
    (["--unit", "bogus", "x"], b"--unit"),
    (["--unit", "min", "x"], b"--unit"),
    ([], b"PATH"),
])
def test_bad_usage_exits_2_with_a_message(tmp_path, args, message):
    """Unknown option, missing argument, --top 0 (or not a positive number), --unit bogus,
    or no path: exit status 2, a message naming the problem on stderr, nothing written."""
    p = profreport(*args, cwd=tmp_path)
    assert p.returncode == 2, p
    assert p.stderr.startswith(b"profreport: ") and message in p.stderr, p.stderr
    assert p.stdout == b""
    assert os.listdir(tmp_path) == []


def test_a_minimum_of_0_ns_keeps_the_distribution_on_a_log_scale(tmp_path):
    """A region whose fastest call came to 0 ns (its time less the collector's cost) made the
    distribution chart linear, and every region whose calls took nanoseconds a flat line at 0
    beside one of milliseconds (pigz's crc32z). The smallest time above 0 now decides the
    scale, and what lies below it is drawn at it."""
    gnuplot = shutil.which("gnuplot")
    if not gnuplot:
        pytest.skip("gnuplot is not installed")
    data = tmp_path / "d.tsv"
    data.write_text('"crc32z"\t0\t10\t20\t30\t40\n"deflate"\t100\t2000\t5000\t8000\t100000\n')
    out = tmp_path / "d.svg"
    done = subprocess.run([gnuplot, "-d", "-c", str(ROOT / "templates" / "distribution.gp"),
                           str(data), str(out), "svg", "cost", "ns"], capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    ticks = re.findall(r">\s*(\d+)\s*</text>", out.read_text())
    assert {"10", "100", "1000", "10000", "100000"} <= set(ticks), ticks
