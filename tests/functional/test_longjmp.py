"""test_longjmp.py - regions left by longjmp (docs/FORMAT.md's unwound warning): an
interpreter's protected call (Lua's pcall) that longjmps out of scoped regions and instrumented
functions 1000 times gives call paths as deep as the real nesting and no deeper, exact counts,
and an unwound warning counting the frames closed; a region placed by hand and closed in another
function stays intact. Run files are read with the csv module (conftest.py), workbooks with
openpyxl (reporter_helpers.py)."""

import re
from collections import Counter

import pytest

from conftest import (ROOT, check_events_structure, clean_env, compile_program, event_paths,
                      parse_run, run_command, run_files, run_once, scaled, summary_paths,
                      summary_regions)
from reporter_helpers import Book, must_run, templates_args

N = 1000


def counts(run):
    return Counter(r["Region"] for r in run.rows)


def warnings_by_kind(run):
    return {w["kind"]: w["count"] for w in run.warnings}


def paths_of(run):
    """{call path: calls} rebuilt from the events table's rows in end order (FORMAT.md 1.3): a
    row's parents are the rows that end after it at each lower depth."""
    trees = check_events_structure(run)
    paths = Counter()
    for rows in trees.values():
        # Walk each top-level row's subtree, passing the path down.
        kids = {id(row): children for row, children in rows}

        def walk(row, prefix):
            path = prefix + [row["Region"]]
            paths[" > ".join(path)] += 1
            for child in kids[id(row)]:
                walk(child, path)

        for row, _ in rows:
            if row["Depth"] == "0":
                walk(row, [])
    return paths


def uninstrumented(run):
    """The functions without hooks that took samples (their Function records' mark, FORMAT.md
    1.2): rows of their sampled time, whose calls are not counted."""
    return {r[0] for r in run.values("Function") if r[5:] == ["uninstrumented"]}


def summary_paths_of(run):
    """{call path: calls} of a summary run's calling-context rows (FORMAT.md 1.4), without the
    rows of functions without hooks (the programs' helpers such as pcall_plain may take a
    sample)."""
    plain = uninstrumented(run)
    return {" > ".join(path): int(r["Calls"]) for (_, path), r in summary_paths(run.rows).items()
            if path[-1] not in plain}


def unfold(path):
    """A Call paths sheet's path with its folded recursion ("level ×3") written out again."""
    out = []
    for frame in path.split(" > "):
        name, times = re.fullmatch(r"(.*?)(?: \u00d7(\d+))?", frame).groups()
        out += [name] * int(times or 1)
    return " > ".join(out)


def report(run, tmp_path):
    """The workbook of one run: (Call paths {path: calls}, Call tree {(caller, callee): calls})."""
    out = tmp_path / "report.xlsx"
    must_run(run.path, "-o", out, "-q", *templates_args())
    book = Book(out)
    _, paths = book.table("Call paths")
    _, tree = book.table("Call tree")
    return ({unfold(r["Call path"]): r["Calls"] for r in paths},
            {(r["Caller"], r["Callee"]): r["Calls"] for r in tree})


def scope_paths(n):
    """The call paths longjmp.c really makes, with their calls, for n protected calls of each
    kind (see its header)."""
    top = "main > hand"
    paths = {"main": 1, top: 1, f"{top} > bare": 1, f"{top} > pcall": n, f"{top} > modules": 1,
             f"{top} > modules > mod": n}
    for base in (f"{top} > bare", f"{top} > pcall"):
        for depth in range(1, 5):
            paths[base + " > level" * depth] = n
    return paths


def scope_counts(n):
    """Instances of each region of longjmp.c for n protected calls of each kind."""
    return {"main": 1, "hand": 1, "bare": 1, "pcall": n, "level": 8 * n, "modules": 1, "mod": n}


def test_scopes_left_by_longjmp_are_closed_and_paths_keep_their_real_depth(tmp_path):
    n = scaled(N)
    _, run = run_once(tmp_path, "longjmp", str(n))
    assert counts(run) == scope_counts(n)
    # Four "level" frames left per call in each of the two loops, one "mod" per module call.
    assert warnings_by_kind(run) == {"unwound": 9 * n}
    assert max(int(r["Depth"]) for r in run.rows) == 6
    assert paths_of(run) == scope_paths(n)
    # "hand" was opened in open_hand() and closed in close_hand(): one instance, around
    # everything the three loops did.
    hand = run.rows_of("hand")[0]
    assert hand["Parent"] == "main" and hand["Depth"] == "1"
    inside = [r for r in run.rows if r["Depth"] == "2"]
    assert len(inside) == n + 2
    assert int(hand["Ticks"]) - int(hand["Self"]) == sum(int(r["Ticks"]) for r in inside)

    paths, tree = report(run, tmp_path)
    assert paths == scope_paths(n)
    assert tree == {
        ("(thread top level)", "main"): 1, ("main", "hand"): 1, ("hand", "bare"): 1,
        ("bare", "level"): n, ("hand", "pcall"): n, ("pcall", "level"): n,
        ("level", "level"): 6 * n, ("hand", "modules"): 1, ("modules", "mod"): n,
    }


def test_summary_mode_counts_the_same_calls_and_frames(tmp_path):
    n = scaled(N)
    _, run = run_once(tmp_path, "longjmp", str(n), env={"PROFILER_MODE": "summary"})
    calls = {k[1]: r["Calls"] for k, r in summary_regions(run.rows).items()}
    assert calls == scope_counts(n)
    assert warnings_by_kind(run) == {"unwound": 9 * n}
    # The paths are as deep as the real nesting, no deeper: the left frames were closed.
    assert summary_paths_of(run) == scope_paths(n)
    # "level" recursion is counted once in Outer: its outermost instances end (a region left
    # open would keep every later one nested, and Outer at 0).
    level = summary_regions(run.rows)[("1", "level")]
    assert 0 < level["Outer"] < level["Ticks"]


def function_paths(n):
    """The call paths longjmp_calls.c really makes (see its header)."""
    paths = {"main": 1, "main > protect": n}
    for base, name in (("main", "rec"), ("main > protect", "down")):
        for depth in range(1, 5):
            paths[base + f" > {name}" * depth] = n
    return paths


# Summary mode, and summary mode with every calling context untimed after its first 16 calls
# (PROFILER_SHORT_CALL far above any call): then nearly every call takes the hooks' lean path
# (auto.c), whose frames the longjmp leaves.
MODES = {"events": {"PROFILER_MODE": "events"}, "summary": {"PROFILER_MODE": "summary"},
         "summary-lean": {"PROFILER_MODE": "summary", "PROFILER_SHORT_CALL": "100s"}}


@pytest.mark.parametrize("mode", sorted(MODES))
def test_instrumented_functions_left_by_longjmp_are_closed(tmp_path, mode):
    n = scaled(N)
    _, run = run_once(tmp_path, "auto/longjmp_calls", str(n), env=MODES[mode])
    # Three rec frames closed before each rec(3, 3) returns, four down frames before each
    # protect() returns.
    assert warnings_by_kind(run) == {"unwound": 7 * n}
    want = {"main": 1, "rec": 4 * n, "protect": n, "down": 4 * n}
    if mode != "events":
        plain = uninstrumented(run)
        assert {k[1]: r["Calls"] for k, r in summary_regions(run.rows).items()
                if k[1] not in plain} == want
        assert summary_paths_of(run) == function_paths(n)
        return
    assert counts(run) == want
    assert max(int(r["Depth"]) for r in run.rows) == 5
    assert paths_of(run) == function_paths(n)
    paths, tree = report(run, tmp_path)
    assert paths == function_paths(n)
    assert tree == {("(thread top level)", "main"): 1, ("main", "rec"): n, ("rec", "rec"): 3 * n,
                    ("main", "protect"): n, ("protect", "down"): n, ("down", "down"): 3 * n}


def test_regions_recorded_on_another_stack_do_not_close_the_threads_own(tmp_path):
    """A signal handler on sigaltstack records far above the worker's token (its stack is in
    the program's data, the signal stack from mmap): its events are on another stack, so the
    worker's scope stays open around them."""
    _, run = run_once(tmp_path, "altstack")
    assert run.warnings == []
    assert [(r["Parent"], r["Depth"]) for r in run.rows_of("handler")] == [("worker", "1")] * 3
    assert [(r["Parent"], r["Depth"]) for r in run.rows_of("worker")] == [("", "0")]


def run_built(tmp_path, exe, n, mode):
    """Run a program built by the test with n calls in mode; its one run file, parsed."""
    folder = tmp_path / f"runs-{exe.name}-{mode}"
    proc = run_command([exe, str(n)], env=clean_env({"PROFILER_DIR": folder, "PROFILER_MODE": mode}),
                       cwd=tmp_path, timeout=300)
    assert proc.returncode == 0 and proc.stderr == b"", proc
    (path,) = run_files(folder)
    return parse_run(path)


def deepest(run):
    """The deepest nesting of a run in either mode (1: top level only), found without building
    the paths (a run whose depth grew with every jump would make them quadratic)."""
    if run.value("Mode") == "events":
        return 1 + max(int(r["Depth"]) for r in run.rows)
    depth = {}
    for r in run.rows:  # parents come before their children (FORMAT.md 1.4)
        depth[(r["Thread"], r["Node"])] = 1 + depth.get((r["Thread"], r["Parent"]), 0)
    return max(depth.values())


def any_paths(run):
    """{call path: calls} of a run in either mode (events: replayed in end order, FORMAT.md
    1.3, as summary mode keeps them)."""
    if run.value("Mode") == "summary":
        return summary_paths_of(run)
    return {" > ".join(path): n for (_, path), n in event_paths(run.rows).items()}


@pytest.mark.parametrize("mode", ["events", "summary"])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_inlined_scopes_left_by_longjmp_are_closed_when_their_block_opens_again(
        tmp_path, opt, mode):
    """longjmp_inline.c: two scopes inlined into main's loop, left by longjmp in every other of
    200,000 calls, their tokens in main's own stack frame. The outer scope's token, where an
    abandoned one was, closes both abandoned regions: every call is counted, the paths are never
    deeper than work > inner, and the unwound warning counts the regions closed."""
    n = scaled(200000)
    exe = compile_program(tmp_path, ROOT / "tests/programs/longjmp_inline.c", "c", opt)
    run = run_built(tmp_path, exe, n, mode)
    assert deepest(run) == 2
    assert any_paths(run) == {"work": n, "work > inner": n}
    assert warnings_by_kind(run) == {"unwound": n}


@pytest.mark.parametrize("mode", ["events", "summary"])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_a_call_from_an_abandoned_frames_position_leaves_it(tmp_path, opt, mode):
    """longjmp_pcall.c (instrumented functions only, the pcall pattern): after each longjmp,
    main calls the next function from the position of the two frames the jump abandoned (the
    function and the check inlined into it, which share one stack frame): the same function
    from the same call site, or its twin from another one, in a new frame at the abandoned
    one's address. Each call closes the abandoned frames, so depth never grows: 200,000 of
    200,000 calls are counted, on their real paths."""
    n = scaled(200000)
    exe = compile_program(tmp_path, ROOT / "tests/programs/auto/longjmp_pcall.c", "c", opt,
                          auto=True)
    run = run_built(tmp_path, exe, n, mode)
    assert deepest(run) == 3
    assert any_paths(run) == {"main": 1, "main > work": 3 * n // 4,
                              "main > work > check": 3 * n // 4, "main > work_again": n // 4,
                              "main > work_again > check": n // 4}
    assert warnings_by_kind(run) == {"unwound": n}
