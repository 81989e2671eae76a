"""test_maxevents.py - PROFILER_MAX_EVENTS: an events run stops its event stream at the cap and
counts the rest per region, so that the report still has every call (FORMAT.md 1.6).

tests/programs/maxevents.c has a known call structure; its counts are computed here from its
source, the run file is read with the csv module and the workbook with openpyxl.
"""

from conftest import event_paths, library_lines, run_once, summary_paths
from reporter_helpers import Book, must_run

STEPS = 20000  # the first recursion's steps: the cap falls among them
# By hand from maxevents.c: outer once; rec(4) is 5 rec regions, 21 times; steps of the first
# recursion and 10 per later one, each with 3 inner regions.
EXPECTED = {"outer": 1, "rec": 5 * 21, "step": STEPS + 20 * 10, "inner": 3 * (STEPS + 20 * 10)}
# Every buffer write counts what it holds, so the stream stops at the first full buffer: 65536
# words, at least 2 per instance (its enter), and the instance being entered at that write.
BUFFER_INSTANCES = 65536 // 2 + 1


def capped_run(tmp_path, cap=1000):
    """Run maxevents with a small cap, writing only full buffers (deterministic)."""
    return run_once(tmp_path, "maxevents", STEPS,
                    env={"PROFILER_MAX_EVENTS": cap, "PROFILER_FLUSH_INTERVAL": 0})


def test_the_cap_stops_the_event_stream_and_the_summary_section_counts_the_rest(tmp_path):
    """Past the cap, no more rows: every instance is either a row of the events table or
    counted in the summary section, a max-events warning counts those, and stderr says it once."""
    proc, run = capped_run(tmp_path)
    assert run.value("Mode") == "events"
    rows = run.rows
    assert 1000 <= len(rows) <= BUFFER_INSTANCES, len(rows)
    assert run.summary is not None, "no summary section"
    total = sum(EXPECTED.values())
    for region, calls in EXPECTED.items():
        listed = len(run.rows_of(region))
        counted = sum(int(s["Calls"]) for s in run.summary if s["Region"] == region)
        assert listed + counted == calls, (region, listed, counted)
    # Regions open at the cap end in the stream: no row is left unterminated.
    assert all(r["Ticks"] != "" for r in rows)
    assert len(run.rows_of("outer")) == 1 and len(run.rows_of("rec")) >= 5
    warned = [w for w in run.warnings if w["kind"] == "max-events"]
    assert len(warned) == 1 and warned[0]["count"] == total - len(rows), warned
    assert "PROFILER_MAX_EVENTS=1000" in warned[0]["message"]
    said = [l for l in library_lines(proc.stderr) if "PROFILER_MAX_EVENTS" in l]
    assert len(said) == 1, library_lines(proc.stderr)


def true_paths():
    """{path: instances} of maxevents.c, from its source."""
    rec = ("rec",) * 5
    first, later = ("outer",) + rec, rec
    return {("outer",): 1, **{("outer",) + rec[:k]: 1 for k in range(1, 6)},
            **{rec[:k]: 20 for k in range(1, 6)},
            first + ("step",): STEPS, first + ("step", "inner"): 3 * STEPS,
            later + ("step",): 200, later + ("step", "inner"): 600}


def test_instances_past_the_cap_keep_their_calling_context(tmp_path):
    """The summary section's rows are calling contexts (FORMAT.md 1.6): the regions open at the
    cap have nodes with no calls, so what they enclose keeps its whole path, and the table's
    paths plus the section's are the program's paths, call for call."""
    _, run = capped_run(tmp_path)
    section = summary_paths(run.summary)
    listed = event_paths(run.rows)
    merged = dict(listed)
    for (thread, path), r in section.items():
        merged[(thread, path)] = merged.get((thread, path), 0) + int(r["Calls"])
    assert {path: n for (_, path), n in merged.items() if n} == true_paths()
    # The regions open at the cap (outer and the first five rec) are Calls-0 nodes.
    open_at_cap = [path for (_, path), r in section.items() if r["Calls"] == "0"]
    assert ("outer",) + ("rec",) * 5 in open_at_cap


def test_time_is_counted_once_across_the_cap(tmp_path):
    """Self time adds up to the outermost regions' time exactly (in ticks): a region open at the
    cap loses its children's time counted after it (the stream's hidden-time record). Recursion
    across the cap is counted once: rec's outermost time fits in outer's and in its own total."""
    _, run = capped_run(tmp_path)
    top = sum(int(r["Ticks"]) for r in run.rows if r["Depth"] == "0")
    self_all = sum(int(r["Self"]) for r in run.rows) + sum(int(s["Self"]) for s in run.summary)
    # The later rec(4) calls are top-level instances too, counted after the cap.
    later_rec = sum(int(s["Outer"]) for s in run.summary if s["Region"] == "rec")
    assert self_all == top + later_rec
    outer = int(run.rows_of("outer")[0]["Ticks"])
    first_rec = sum(int(r["Ticks"]) for r in run.rows_of("rec") if r["Nested"] == "0")
    assert first_rec <= outer
    rec_ticks = sum(int(r["Ticks"]) for r in run.rows_of("rec")) + sum(
        int(s["Ticks"]) for s in run.summary if s["Region"] == "rec")
    assert first_rec + later_rec <= rec_ticks


def test_the_report_has_every_call_of_a_capped_run(tmp_path):
    """The workbook's Call cost gives the exact calls of the whole run and Total % over the
    whole run's top-level time, and its Warnings sheet shows the cap."""
    _, run = capped_run(tmp_path)
    out = tmp_path / "report.xlsx"
    must_run(run.path, "-o", out, "-q", "--no-gnuplot")
    book = Book(out)
    _, cost, _ = book.cost()
    for region, calls in EXPECTED.items():
        assert cost[region]["Calls"] == calls, (region, cost[region]["Calls"])
    # Total % is over the time in top-level regions, those counted past the cap included.
    outer = int(run.rows_of("outer")[0]["Ticks"])
    later_rec = sum(int(s["Outer"]) for s in run.summary if s["Region"] == "rec")
    first_rec = sum(int(r["Ticks"]) for r in run.rows_of("rec") if r["Nested"] == "0")
    busy = outer + later_rec
    assert abs(cost["rec"]["Total %"] - (first_rec + later_rec) / busy) < 1e-9
    assert abs(cost["outer"]["Total %"] - outer / busy) < 1e-9
    kinds = [w["Kind"] for w in book.warnings()]
    assert "max-events" in kinds, kinds


def test_no_cap_below_the_limit_and_zero_turns_it_off(tmp_path):
    """A run under the cap, or with PROFILER_MAX_EVENTS=0, lists every instance and has no
    summary section."""
    for cap in (10 ** 9, 0):
        _, run = run_once(tmp_path, "maxevents", 2000, env={"PROFILER_MAX_EVENTS": cap})
        assert run.summary is None
        assert len(run.rows) == 1 + 105 + 2200 + 6600
        assert not [w for w in run.warnings if w["kind"] == "max-events"]


def test_each_thread_stops_listing_at_its_own_next_write(tmp_path):
    """Four workers of 50000 regions: the run's count passes the cap at the first buffer
    written, and each worker stops listing at its own next write. Every worker's regions are
    all there, listed or counted, and each capped thread's warning counts what it did not list.
    The main thread, which never filled a buffer, lists its two regions."""
    per_worker = 50000
    _, run = run_once(tmp_path, "threads", 4, per_worker,
                      env={"PROFILER_MAX_EVENTS": 1000, "PROFILER_FLUSH_INTERVAL": 0})
    warned = {w["thread"]: w["count"] for w in run.warnings if w["kind"] == "max-events"}
    workers = [t["number"] for t in run.threads if t["name"].startswith("worker-")]
    assert len(workers) == 4 and sorted(warned) == sorted(workers)
    for n in workers:
        listed = sum(1 for r in run.rows if r["Thread"] == str(n))
        counted = sum(int(s["Calls"]) for s in run.summary if s["Thread"] == str(n))
        assert listed <= 65536 // 2 + 1 and listed + counted == per_worker, (n, listed, counted)
        assert warned[n] == counted
    assert sorted(r["Region"] for r in run.rows if r["Thread"] == "1") == ["main-after",
                                                                           "main-setup"]


def test_a_malformed_cap_is_warned_about_and_the_default_used(tmp_path):
    """PROFILER_MAX_EVENTS that is not a count is said once on stderr; the default (far above
    this run) applies, so every instance is listed."""
    for bad in ("lots", "-5", "1e6"):
        proc, run = run_once(tmp_path, "maxevents", 100, env={"PROFILER_MAX_EVENTS": bad})
        said = library_lines(proc.stderr)
        assert said == [f"profreport: PROFILER_MAX_EVENTS='{bad}' is not a count; using 50000000"]
        assert run.summary is None and len(run.rows) == 1 + 105 + 300 + 900
