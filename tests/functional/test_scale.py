"""test_scale.py - the reporter on inputs with many of something: thread names, run files,
call-path depth, columns. Each input is written here in well under a second, byte for byte
(docs/FORMAT.md), and each test checks what the outputs hold, never how long they took: the
speed of these cases (once quadratic) is measured in bench/README.md, not asserted.
"""

import random
import re
import zipfile

import openpyxl
from openpyxl.utils import get_column_letter

from conftest import parse_run
from reporter_helpers import must_run

EVENT_HEADER = "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"


def events_run(path, threads, rows):
    """An events run: threads is [(number, name)], rows the table's lines (text)."""
    head = ["Frequency,1000000000", "Format,profreport-run,1", "Mode,events",
            "Program,/opt/app/bin/app", "Complete,yes", f"Threads,{len(threads)}"]
    head += [f"Thread,{n},{1000 + n},{name},exited" for n, name in threads]
    path.write_text("\n".join(head) + "\n" + EVENT_HEADER + "".join(rows))
    return path


def many_threads(path, n, name_of, seed=7):
    """A run of n threads (numbered 1..n, listed and recorded in a shuffled order), thread t
    named name_of(t), each running "work" (100 + t ns) with "step" (t ns) inside it."""
    order = list(range(1, n + 1))
    random.Random(seed).shuffle(order)
    rows = []
    for t in order:
        rows.append(f"step,{t},{t},work,1,{t},{t},0\n")
        rows.append(f"work,{100 + t},{t},,0,100,{t},0\n")
    return events_run(path, [(t, name_of(t)) for t in order], rows)


def test_many_thread_names_each_keep_their_calls(tmp_path):
    """20,000 threads under 10,000 names (two threads each): every name is one column of Hit
    count with the calls of its two threads."""
    n = 20000
    run = many_threads(tmp_path / "threads.csv", n, lambda t: f"worker-{(t - 1) % (n // 2)}")
    must_run(run, "-o", tmp_path / "r.xlsx", "--no-gnuplot", "-q")
    wb = openpyxl.load_workbook(tmp_path / "r.xlsx", read_only=True)
    rows = {r[0]: r for r in wb["Hit count"].iter_rows(values_only=True)}
    head = rows["Region"]
    assert head[:3] == ("Region", "Calls", "Run 1")
    names = head[3:]
    assert sorted(names) == sorted(f"Thread: worker-{k}" for k in range(n // 2))
    for region in ("work", "step"):
        assert rows[region][1] == n
        assert rows[region][2] == n
        assert all(v == 2 for v in rows[region][3:]), region


def test_compact_of_many_threads_keeps_every_thread_in_order(tmp_path):
    """The compact of a run of 20,000 threads has both paths of every thread, threads in their
    numbers' order, each with its own call and times."""
    n = 20000
    run = many_threads(tmp_path / "threads.csv", n, lambda t: f"worker-{t}")
    must_run(run, "--compact", tmp_path / "c", "-q")
    compact = parse_run(tmp_path / "c" / "threads.csv")
    rows = compact.rows
    assert len(rows) == 2 * n
    assert [int(r["Thread"]) for r in rows] == [t for t in range(1, n + 1) for _ in (0, 1)]
    for k in range(n):
        work, step = rows[2 * k], rows[2 * k + 1]
        t = k + 1
        assert (work["Region"], work["Calls"], work["Ticks"], work["Self"]) == (
            "work", "1", str(100 + t), "100")
        assert (step["Region"], step["Calls"], step["Ticks"], step["Parent"]) == (
            "step", "1", str(t), work["Node"])


def test_compact_of_many_run_files_writes_each_one(tmp_path):
    """2,000 run files in a folder: a compact of the same name for each, with its own time."""
    n = 2000
    runs = tmp_path / "runs"
    runs.mkdir()
    for k in range(n):
        events_run(runs / f"run{k:05d}.csv", [(1, "main")], [f"work,{k + 1},1,,0,{k + 1},0,0\n"])
    must_run(runs, "--compact", tmp_path / "c", "-q")
    written = sorted(p.name for p in (tmp_path / "c").iterdir())
    assert written == [f"run{k:05d}.csv" for k in range(n)]
    for k in range(0, n, 97):
        (row,) = parse_run(tmp_path / "c" / f"run{k:05d}.csv").rows
        assert (row["Region"], row["Calls"], row["Ticks"]) == ("work", "1", str(k + 1))


def test_folded_stacks_of_a_deep_chain_are_capped_and_keep_the_time(tmp_path):
    """A chain 20,000 calls deep, 1 ns of self time in each: the folded stacks stay within
    1,024 frames a line (about 0.5 M frames in all, where the full paths would be 200 M), keep
    every nanosecond, and stderr says how many paths were folded."""
    depth = 20000
    rows = [f"f{d},{depth - d},1,{f'f{d - 1}' if d else ''},{d},1,{d},0\n"
            for d in range(depth - 1, -1, -1)]
    run = events_run(tmp_path / "deep.csv", [(1, "main")], rows)
    p = must_run(run, "-o", tmp_path / "r.xlsx", "--no-gnuplot", "--folded",
                 tmp_path / "out.folded")
    lines = (tmp_path / "out.folded").read_text().splitlines()
    assert len(lines) == 1024 + 1
    frames = [line.rsplit(" ", 1)[0].split(";") for line in lines]
    assert max(len(f) for f in frames) == 1025
    assert sum(int(line.rsplit(" ", 1)[1]) for line in lines) == depth
    folded = [f for f in frames if f[-1] == "[deeper frames folded]"]
    assert len(folded) == 1 and folded[0][:-1] == [f"f{d}" for d in range(1024)]
    assert f"folded stacks: {depth - 1024} call paths deeper than 1024 frames".encode() in p.stderr


def blocks(ws):
    """The tables of a sheet read with openpyxl: {title: {region: {column head: value}}}, a
    table being a row whose first cell is "Region" (its heads) and the rows below it up to an
    empty one; its title is the text of the row above it up to ", continued" ("" for none).
    The blocks a wide table continues in merge into their table's entry."""
    rows = [r for r in ws.iter_rows(values_only=True)]
    out = {}
    for i, r in enumerate(rows):
        if not r or r[0] != "Region":
            continue
        above = rows[i - 1][0] if i > 0 and rows[i - 1] and rows[i - 1][0] else ""
        title = str(above).split(", continued")[0]
        table = out.setdefault(title, {})
        heads = [h for h in r[1:] if h is not None]
        for row in rows[i + 1:]:
            if not row or row[0] is None:
                break
            cells = table.setdefault(row[0], {})
            for h, v in zip(heads, row[1:]):
                assert h not in cells, (title, row[0], h)
                cells[h] = v
    return out


def test_more_thread_names_than_excel_columns_are_all_in_hit_count(tmp_path):
    """17,000 thread names (more than Excel's 16,384 columns, with Region, Calls and the run's
    column): Hit count continues in a block below, and every thread's calls are there; nothing
    is reported cut. (The Threads sheet's matrices continue as the Runs sheet's do.)"""
    n = 17000
    run = many_threads(tmp_path / "threads.csv", n, lambda t: f"w{t}")
    p = must_run(run, "-o", tmp_path / "r.xlsx", "--no-gnuplot")
    wb = openpyxl.load_workbook(tmp_path / "r.xlsx", read_only=True)
    hits = blocks(wb["Hit count"])
    everything = {**hits[""]["work"], **hits["Calls"]["work"]}
    assert everything["Calls"] == n and everything["Run 1"] == n
    assert {h: v for h, v in everything.items() if h.startswith("Thread: ")} == {
        f"Thread: w{t}": 1 for t in range(1, n + 1)}
    assert b"left out" not in p.stderr
    assert not any(r[0] == "workbook" for r in wb["Warnings"].iter_rows(values_only=True))


def test_more_runs_than_excel_columns_are_all_in_the_runs_matrices(tmp_path):
    """16,500 runs: the Runs sheet's region x run matrices and Hit count continue in blocks
    below, and every run's calls and mean cost are there."""
    n = 16500
    runs = tmp_path / "runs"
    runs.mkdir()
    for k in range(n):
        events_run(runs / f"run{k:05d}.csv", [(1, "main")], [f"work,{k + 1},1,,0,{k + 1},0,0\n"])
    must_run(runs, "-o", tmp_path / "r.xlsx", "--no-gnuplot", "-q", "--unit", "ns")
    wb = openpyxl.load_workbook(tmp_path / "r.xlsx", read_only=True)
    matrices = blocks(wb["Runs"])
    calls = matrices["Calls, region x run"]["work"]
    mean = next(v for k, v in matrices.items() if k.startswith("Mean cost per call"))["work"]
    # Runs are numbered in the order read: file name order.
    assert calls == {f"Run {k + 1}": 1 for k in range(n)}
    assert mean == {f"Run {k + 1}": k + 1 for k in range(n)}
    hits = blocks(wb["Hit count"])
    everything = {**hits[""]["work"], **hits["Calls"]["work"]}
    assert everything == {"Calls": n, "Thread: main": n, **{f"Run {k + 1}": 1 for k in range(n)}}


def test_many_regions_stream_their_sheets_with_every_value(tmp_path):
    """16,000 distinct regions (a report past the size where the per-region sheets are written
    row by row to keep memory flat): Call cost and Hit count hold every region's calls and
    time, Call cost has its headers and an autofilter, and the row of a long name that wraps
    is as tall as its lines (set while streaming, as the row cannot be changed later)."""
    n = 16000
    long_name = "long " * 60  # 300 characters, wraps in the 60-character Region column
    rows = [f"r{k:05d},{k + 1},1,,0,{k + 1},{10 * k},0\n" for k in range(n)]
    rows.append(f"{long_name},1000000000,1,,0,1000000000,{10 * n},0\n")
    run = events_run(tmp_path / "regions.csv", [(1, "main")], rows)
    must_run(run, "-o", tmp_path / "r.xlsx", "--no-gnuplot", "-q", "--unit", "ns")
    wb = openpyxl.load_workbook(tmp_path / "r.xlsx", read_only=True)
    cost = list(wb["Call cost"].iter_rows(values_only=True))
    head = cost[0]
    calls, total = head.index("Calls"), head.index("Total (ns)")
    assert head[0] == "Region"
    got = {r[0]: (r[calls], r[total]) for r in cost[1:]}
    want = {f"r{k:05d}": (1, k + 1) for k in range(n)}
    want[long_name] = (1, 10**9)
    assert got == want
    assert cost[1][0] == long_name  # the heaviest first
    hits = blocks(wb["Hit count"])[""]
    assert {k: v for k, v in hits.items()} == {
        r: {"Calls": 1, "Run 1": 1, "Thread: main": 1} for r in want}
    # The sheet's XML: an autofilter over the whole table, and the long name's row (row 2)
    # taller than one line.
    with zipfile.ZipFile(tmp_path / "r.xlsx") as z:
        sheets = {m.group(1): m.group(2) for m in re.finditer(
            r'<sheet name="([^"]+)" sheetId="\d+" r:id="rId(\d+)"',
            z.read("xl/workbook.xml").decode())}
        xml = z.read(f"xl/worksheets/sheet{sheets['Call cost']}.xml").decode()
    last = get_column_letter(len([h for h in head if h is not None]))
    assert f'<autoFilter ref="A1:{last}{n + 2}"/>' in xml
    row2 = re.search(r'<row r="2"[^>]*>', xml).group(0)
    height = float(re.search(r'ht="([0-9.]+)"', row2).group(1))
    assert height >= 15 * 5, row2
