"""test_auto.py - automatic function instrumentation (-finstrument-functions with
libprofreport-auto): real instrumented programs, their run files read with the csv module and
their workbooks with openpyxl, against counts known from the programs' own structure and, where
it is installed, against uftrace's counts for the same binary."""

import itertools
import os
import platform
import re
import shutil
import subprocess
import time
from collections import Counter
from pathlib import Path

import pytest

from conftest import (
    BUILD,
    ROOT,
    SAN,
    SUMMARY_COLUMNS,
    clean_env,
    compile_program,
    event_paths,
    library_lines,
    parse_run,
    program,
    run_command,
    run_once,
    run_program,
    summary_paths,
    summary_regions,
)
from reporter_helpers import Book, must_run, templates_args

SOURCE = ROOT / "tests" / "programs" / "auto"


def fib_calls(n):
    """Calls made by the recursive fib(n): 1 + calls(n-1) + calls(n-2), 1 below 2."""
    a, b = 1, 1  # calls(0), calls(1)
    for _ in range(n - 1):
        a, b = b, a + b + 1
    return b if n >= 1 else a


def parity_calls(n):
    """(is_even calls, is_odd calls) made by is_even(n) (mutual recursion down to 0)."""
    even = odd = 0
    fn = "even"
    for _ in range(n + 1):
        if fn == "even":
            even += 1
            fn = "odd"
        else:
            odd += 1
            fn = "even"
    return even, odd


def source_line(path, pattern):
    """1-based line of the first line of path matching the regex."""
    for i, line in enumerate(path.read_text().splitlines(), 1):
        if re.search(pattern, line):
            return i
    raise AssertionError(f"{pattern!r} not in {path}")


def sub(tmp_path, name):
    """A fresh subfolder of tmp_path, for one of several runs in a test."""
    d = tmp_path / name
    d.mkdir()
    return d


def counts(run):
    return Counter(r["Region"] for r in run.rows)


# libprofreport-auto records in summary mode unless told otherwise; the tests of the event rows
# ask for events mode.
EVENTS = {"PROFILER_MODE": "events"}


def run_auto(tmp_path, name, *args, env=None):
    """Run an instrumented program in events mode (or as env says)."""
    return run_once(tmp_path, name, *map(str, args), env={**EVENTS, **(env or {})})


def run_calls(tmp_path, *args, env=None):
    return run_auto(tmp_path, "auto/calls", *args, env=env)


def functions(run):
    """Function records: {region: (file, line, module, offset)}."""
    return {r[0]: tuple(r[1:5]) for r in run.values("Function")}


def test_c_call_counts_are_exact_and_named_from_debug_info(tmp_path):
    _, run = run_calls(tmp_path, 12, 9, 5)
    even, odd = parity_calls(9)
    assert counts(run) == {
        "main": 1, "fib": fib_calls(12), "is_even": even, "is_odd": odd,
        "helper": 5,  # a static function
        "shared_twice_square": 5, "shared_square": 10,  # from the instrumented shared library
        "manual loop": 1,  # a PROFILER_START region in the same run
    }
    assert fib_calls(12) == 465
    assert run.warnings == []
    # The tree: exact parents and depths.
    for r in run.rows:
        parent = {"main": "", "fib": None, "is_even": None, "is_odd": None,
                  "manual loop": "main", "helper": "manual loop",
                  "shared_twice_square": "manual loop",
                  "shared_square": "shared_twice_square"}[r["Region"]]
        if parent is not None:
            assert r["Parent"] == parent, r
    assert {r["Parent"] for r in run.rows_of("fib")} == {"main", "fib"}
    assert {r["Parent"] for r in run.rows_of("is_odd")} == {"is_even"}
    assert max(int(r["Depth"]) for r in run.rows_of("fib")) == 12  # main 0, fib(12) 1 ... fib(1) 12
    # Self is ticks minus the children's ticks on every row (FORMAT.md 1.3).
    for r in run.rows:
        assert int(r["Self"]) <= int(r["Ticks"])
    # Function records: module and offset, the source place left to the reporter; each
    # module's build id in a Module record, as binutils' readelf reads it.
    fn = functions(run)
    assert set(fn) == {"main", "fib", "is_even", "is_odd", "helper", "shared_twice_square",
                       "shared_square"}
    for name, (file, line, module, offset) in fn.items():
        assert (file, line) == ("", ""), (name, fn[name])
        assert offset.startswith("0x")
    assert fn["fib"][2] == str(program("auto/calls"))
    assert fn["shared_square"][2].endswith("libauto_shared.so")
    lib = fn["shared_square"][2]
    assert dict(run.values("Module")) == {str(program("auto/calls")): readelf_build_id(
        program("auto/calls")), lib: readelf_build_id(lib)}
    # profreport reads them from the modules' DWARF: the declaration's line.
    book_path = tmp_path / "calls.xlsx"
    must_run(run.path, "-o", book_path, "--no-gnuplot", "-q")
    _, cost, _ = Book(book_path).cost()
    assert declared_places(cost) == expected_places()
    assert Book(book_path).warnings() == []


def readelf_build_id(path):
    """A module's build id as binutils' readelf prints it."""
    out = subprocess.run(["readelf", "-n", str(path)], stdout=subprocess.PIPE, text=True,
                         check=True).stdout
    return re.search(r"Build ID: *([0-9a-f]+)", out).group(1)


def expected_places():
    """The declaration places of calls.c's functions, from the source text."""
    calls_c, lib_c = SOURCE / "calls.c", SOURCE / "shared_lib.c"
    return {"fib": (calls_c, source_line(calls_c, r"^long fib\(int n\) \{")),
            "is_even": (calls_c, source_line(calls_c, r"^int is_even.*\{")),
            "helper": (calls_c, source_line(calls_c, r"int helper\(int i\)")),
            "main": (calls_c, source_line(calls_c, r"^int main")),
            "shared_square": (lib_c, source_line(lib_c, r"^int shared_square.*\{"))}


def declared_places(cost):
    """{function: (source file, line)} of the Call cost rows expected_places names."""
    return {name: (Path(cost[name]["Source file"]).resolve(), cost[name]["Line"])
            for name in expected_places()}


def test_source_lines_are_read_at_run_time_when_asked(tmp_path):
    """PROFILER_SOURCE_LINES=run: the collector reads DWARF itself and the run file says each
    function's file and line (a report made where the program's files are not)."""
    _, run = run_auto(tmp_path, "auto/calls", "6", "4", "2",
                      env={"PROFILER_SOURCE_LINES": "run"})
    fn = functions(run)
    for name, (file, line) in expected_places().items():
        assert (Path(fn[name][0]).resolve(), int(fn[name][1])) == (file, line), name
    # An unknown value is said once, and the default kept.
    proc, run = run_auto(sub(tmp_path, "bad"), "auto/calls", "6", "4", "2",
                         env={"PROFILER_SOURCE_LINES": "always"})
    assert any("PROFILER_SOURCE_LINES='always'" in l for l in library_lines(proc.stderr))
    assert functions(run)["fib"][:2] == ("", "")


def test_functions_of_one_name_are_told_apart_and_copies_kept_one(tmp_path):
    """Two files' static helper() are two functions: the one called first keeps the name, the
    other is named for its declaration, and only its run record carries a file and line (the
    collector read DWARF for these alone). A header's static twice(), copied into both units
    (one includes it as sub/../shared.h), stays one function whose calls add up. gcc's static
    initializer helper of each C++ unit is named for its unit from the symbol table, without
    DWARF."""
    (tmp_path / "shared.h").write_text(
        "static __attribute__((noinline)) int twice(int x) { return 2 * x; }\n")
    (tmp_path / "a.c").write_text(
        '#include "shared.h"\n'
        "int in_a(int x);\n"
        "static __attribute__((noinline)) int helper(int x) { return x + 1; }\n"
        "int in_a(int x) { return helper(x) + twice(x); }\n")
    (tmp_path / "sub").mkdir()
    (tmp_path / "b.c").write_text(
        "#include <stdio.h>\n"
        '#include "sub/../shared.h"\n'  # the same header by another path
        "int in_a(int x);\n"
        "int in_b(int x);\n"
        "static __attribute__((noinline)) int helper(int x) { return x * 3; }\n"
        "__attribute__((noinline)) int in_b(int x) { return helper(x) + twice(x); }\n"
        "int main(void)\n"
        "{\n"
        "    int s = 0;\n"
        "    for (int i = 0; i < 5; i++)\n"
        "        s += in_a(i) + in_b(i);\n"
        '    printf("%d\\n", s);\n'
        "    return 0;\n"
        "}\n")
    exe = compile_program(tmp_path, [tmp_path / "a.c", tmp_path / "b.c"], auto=True)
    runs = sub(tmp_path, "runs")
    proc = run_command([exe], env=clean_env({"PROFILER_DIR": str(runs)}))
    assert proc.returncode == 0, proc.stderr
    (path,) = runs.iterdir()
    run = parse_run(path)
    fn = functions(run)
    b_helper = f"helper (b.c:{source_line(tmp_path / 'b.c', r'int helper')})"
    assert set(fn) == {"main", "in_a", "in_b", "helper", b_helper, "twice"}, sorted(fn)
    assert fn[b_helper][:2] == (str(tmp_path / "b.c"), str(source_line(tmp_path / "b.c",
                                                                        r"int helper")))
    assert all(fn[n][:2] == ("", "") for n in ("main", "in_a", "in_b", "helper"))
    calls = Counter()
    for r in run.rows:
        calls[r["Region"]] += int(r["Calls"])
    assert calls["twice"] == 10 and calls["helper"] == 5 and calls[b_helper] == 5
    # The report reads the rest from the program; twice is declared in the header.
    book_path = tmp_path / "names.xlsx"
    must_run(path, "-o", book_path, "--no-gnuplot", "-q")
    _, cost, _ = Book(book_path).cost()
    assert (cost["twice"]["Source file"], cost["twice"]["Line"]) == (str(tmp_path / "shared.h"), 1)
    assert cost["helper"]["Source file"] == str(tmp_path / "a.c")
    assert cost[b_helper]["Source file"] == str(tmp_path / "b.c")

    # C++: each unit's global std::string makes gcc's __static_initialization_and_destruction_0
    (tmp_path / "x.cpp").write_text(
        "#include <string>\n"
        "std::string gx = std::to_string(42);\n"
        "int from_x();\n"
        "int from_x() { return (int)gx.size(); }\n")
    (tmp_path / "y.cpp").write_text(
        "#include <cstdio>\n"
        "#include <string>\n"
        "std::string gy = std::to_string(7);\n"
        "int from_x();\n"
        'int main() { std::printf("%d\\n", from_x() + (int)gy.size()); }\n')
    exe = compile_program(tmp_path, [tmp_path / "x.cpp", tmp_path / "y.cpp"], lang="c++",
                          auto=True)
    runs = sub(tmp_path, "cxxruns")
    proc = run_command([exe], env=clean_env({"PROFILER_DIR": str(runs)}))
    assert proc.returncode == 0, proc.stderr
    (path,) = runs.iterdir()
    fn = functions(parse_run(path))
    init = "__static_initialization_and_destruction_0(int, int)"
    inits = sorted(n for n in fn if n.startswith(init))
    if len(inits) < 2:
        pytest.skip(f"this gcc made no static initializer helper per unit: {sorted(fn)}")
    assert len(inits) == 2 and inits[0] == init and inits[1] in (f"{init} (x.cpp)",
                                                                 f"{init} (y.cpp)"), inits
    assert all(fn[n][:2] == ("", "") for n in inits)


def test_a_module_gone_or_rebuilt_gives_no_source_lines_and_a_warning(tmp_path):
    """The reporter reads source lines only from the module that ran: a copy of the program
    replaced by another build (another build id) or removed gives no lines, and one warning
    that names the module; the counts are unchanged."""
    app = tmp_path / "calls"
    shutil.copy(program("auto/calls"), app)
    runs = sub(tmp_path, "runs")
    proc = run_command([str(app), "7", "3", "2"], env=clean_env({"PROFILER_DIR": str(runs),
                                                                 "PROFILER_MODE": "summary"}),
                       cwd=tmp_path)
    assert proc.returncode == 0
    book_path = tmp_path / "a.xlsx"
    must_run(runs, "-o", book_path, "--no-gnuplot", "-q")
    _, cost, _ = Book(book_path).cost()
    assert cost["fib"]["Line"] == expected_places()["fib"][1]
    calls = {name: row["Calls"] for name, row in cost.items()}
    # Another program in its place: its build id differs.
    shutil.copy(program("auto/deeprec"), app)
    must_run(runs, "-o", book_path, "--no-gnuplot", "-q")
    book = Book(book_path)
    _, cost, _ = book.cost()
    assert all(cost[n]["Source file"] is None and cost[n]["Line"] is None for n in ("fib", "main"))
    assert {name: row["Calls"] for name, row in cost.items()} == calls
    (w,) = [w for w in book.warnings() if w["Kind"] == "module changed"]
    assert w["Where"] == str(app) and "rebuilt since the run" in w["Message"]
    # main, fib, is_even, is_odd, helper, and any function without hooks of the module that a
    # sample landed in (a sanitizer's, once in CI): each Function record of the module.
    named = [line for f in runs.iterdir()
             for line in f.read_text(errors="replace").splitlines()
             if line.startswith("Function,") and line.split(",")[4] == str(app)]
    assert len(named) >= 5
    assert w["Count"] == len(named)
    # Gone: the module cannot be read.
    app.unlink()
    must_run(runs, "-o", book_path, "--no-gnuplot", "-q")
    (w,) = [w for w in Book(book_path).warnings() if w["Kind"] == "module not read"]
    assert w["Where"] == str(app) and "No such file or directory" in w["Message"]


def test_recursion_is_counted_once_in_total_and_exactly_in_self(tmp_path):
    _, run = run_calls(tmp_path, 14, 11, 3)
    fibs = run.rows_of("fib")
    outer = [r for r in fibs if r["Nested"] == "0"]
    assert len(outer) == 1 and len(fibs) == fib_calls(14)
    evens = run.rows_of("is_even")
    assert [r["Nested"] for r in evens].count("0") == 1  # mutual recursion: one outermost
    book_path = tmp_path / "r.xlsx"
    must_run(run.path, "-o", book_path, "--unit", "ns", "--no-gnuplot", "-q")
    _, cost, _ = Book(book_path).cost()
    ns = 1e9 / run.frequency
    for name, rows in [("fib", fibs), ("is_even", evens)]:
        outer_ticks = sum(int(r["Ticks"]) for r in rows if r["Nested"] == "0")
        self_ticks = sum(int(r["Self"]) for r in rows)
        assert cost[name]["Calls"] == len(rows)
        assert cost[name]["Total (ns)"] == pytest.approx(outer_ticks * ns, rel=1e-9)
        assert cost[name]["Self (ns)"] == pytest.approx(self_ticks * ns, rel=1e-9)
        # Summing every call's inclusive time would count the nested calls again.
        assert sum(int(r["Ticks"]) for r in rows) > outer_ticks
    line = source_line(SOURCE / "calls.c", r"^long fib\(int n\) \{")
    assert cost["fib"]["Source file"].endswith("calls.c") and cost["fib"]["Line"] == line
    assert cost["manual loop"]["Source file"] is None


def test_cxx_names_are_demangled_and_exceptions_keep_the_stack(tmp_path):
    _, run = run_auto(tmp_path, "auto/cxx_calls", "5")
    c = counts(run)
    assert c["main"] == 1
    assert c["shapes::Square::area() const"] == 3
    assert c["double shapes::total_area<shapes::Square>(std::vector<shapes::Square, "
             "std::allocator<shapes::Square> > const&)"] == 1
    # Each of 5 iterations throws from thrower through middle and outer into catcher.
    for name, parent, depth in [("catcher(int)", "main", 1), ("outer(int)", "catcher(int)", 2),
                                ("middle(int)", "outer(int)", 3),
                                ("thrower(int)", "middle(int)", 4)]:
        rows = run.rows_of(name)
        assert len(rows) == 5, name
        assert all(r["Parent"] == parent and int(r["Depth"]) == depth and r["Ticks"] != ""
                   for r in rows), rows
    assert all(r["Ticks"] != "" for r in run.rows)
    assert run.warnings == []
    assert not any(n.startswith("_Z") for n in c)


# PROFILER_SHORT_CALL far above any call: every calling context untimed after its first 16
# calls; far below: every call timed. Either way nearly every call takes the hooks' lean path.
LEAN = {"untimed": "100s", "timed": "1ns"}


@pytest.mark.parametrize("timing", sorted(LEAN))
def test_exceptions_close_frames_the_lean_path_opened(tmp_path, timing):
    """Summary mode with every call after a context's first on the hooks' lean path, only
    counted or timed: 2000 throws from thrower through middle and outer into catcher leave
    exact counts on paths as deep as the real nesting, and timed, every call's time."""
    n = 2000
    _, run = run_once(tmp_path, "auto/cxx_calls", str(n),
                      env={"PROFILER_MODE": "summary", "PROFILER_SHORT_CALL": LEAN[timing]})
    rows = {" > ".join(p): r for (_, p), r in summary_paths(run.rows).items()}
    paths = {p: int(r["Calls"]) for p, r in rows.items()}
    chain = ["main", "catcher(int)", "outer(int)", "middle(int)", "thrower(int)"]
    for depth in range(2, len(chain) + 1):
        assert paths[" > ".join(chain[:depth])] == n, chain[:depth]
    assert paths["main"] == 1
    assert not any(p.startswith("main > catcher(int) > outer(int) > middle(int) > thrower(int) >")
                   for p in paths), paths
    timed = {p: int(r["Timed"]) for p, r in rows.items() if int(r["Calls"])}
    if timing == "timed":
        assert all(timed[p] == paths[p] for p in timed), timed
    else:
        assert all(timed[p] <= 16 for p in timed), timed
    assert run.warnings == []


@pytest.mark.parametrize("timing", sorted(LEAN))
def test_left_out_functions_keep_the_kept_counts_on_the_lean_path(tmp_path, timing):
    """Summary mode with nearly every call on the hooks' lean path (LEAN), which also skips
    the calls of functions the filters leave out (the edge cache notes them under their
    caller): with is_even and is_odd left out (their 2,001 calls, all below main once left
    out), every other path keeps its count."""
    lean = {"PROFILER_MODE": "summary", "PROFILER_SHORT_CALL": LEAN[timing]}

    def paths(run):
        return {p: int(r["Calls"]) for (_, p), r in summary_paths(run.rows).items()}

    _, full = run_once(sub(tmp_path, "a"), "auto/calls", "20", "2000", "3", env=lean)
    _, left = run_once(sub(tmp_path, "b"), "auto/calls", "20", "2000", "3",
                       env={**lean, "PROFILER_EXCLUDE": "is_*"})
    kept = {p: c for p, c in paths(full).items() if not any(f.startswith("is_") for f in p)}
    # rows of is_* hold only samples that landed in their code: their calls are not counted
    assert {p: c for p, c in paths(left).items() if not p[-1].startswith("is_")} == kept
    assert all(c == 0 for p, c in paths(left).items() if p[-1].startswith("is_"))
    assert sum(c for p, c in paths(full).items() if p[-1] == "fib") == fib_calls(20)
    assert sum(c for p, c in paths(full).items() if p[-1].startswith("is_")) == 2001
    assert left.warnings == []


def test_exclude_and_include_filter_by_glob(tmp_path):
    _, full = run_auto(sub(tmp_path, "a"), "auto/cxx_calls", "2")
    _, run = run_auto(sub(tmp_path, "b"), "auto/cxx_calls", "2",
                      env={"PROFILER_EXCLUDE": "std::*, __gnu_cxx::*,*::area"})
    names = set(counts(run))
    assert not any(n.startswith(("std::", "__gnu_cxx::")) or "::area" in n for n in names)
    assert any(n.startswith("std::") for n in counts(full))
    # What stays is untouched, and the tree closes over the holes.
    for n in ["main", "catcher(int)", "thrower(int)"]:
        assert counts(run)[n] == counts(full)[n]
    total = next(n for n in names if n.startswith("double shapes::total_area"))
    assert {r["Parent"] for r in run.rows_of(total)} == {"main"}

    _, only = run_calls(sub(tmp_path, "c"), 10, 4, 3, env={"PROFILER_INCLUDE": "fib,is_*"})
    even, odd = parity_calls(4)
    assert counts(only) == {"fib": fib_calls(10), "is_even": even, "is_odd": odd,
                            "manual loop": 1}  # manual regions are never filtered
    assert {r["Parent"] for r in only.rows_of("fib") if r["Depth"] == "0"} == {""}
    # A comma inside a pattern is written \, and a C++ name matches without its parameters.
    _, one = run_auto(sub(tmp_path, "d"), "auto/cxx_calls", "1",
                      env={"PROFILER_INCLUDE": r"shapes::Square::area,nothing\,else"})
    assert counts(one) == {"shapes::Square::area() const": 3}


def test_filters_read_from_a_file(tmp_path):
    """PROFILER_EXCLUDE=@FILE and PROFILER_INCLUDE=@FILE read the patterns from a file, one or
    more a line, '#' comments skipped: the same run as the patterns given inline, whose Exclude
    record names them. A file that cannot be read is said on stderr, and nothing is left out."""
    listing = tmp_path / "hot.list"
    listing.write_text("# the parity helpers\nis_even\n\n  is_odd  \n")
    _, inline = run_calls(sub(tmp_path, "a"), 10, 4, 3, env={"PROFILER_EXCLUDE": "is_even,is_odd"})
    proc, filed = run_calls(sub(tmp_path, "b"), 10, 4, 3,
                            env={"PROFILER_EXCLUDE": "@" + str(listing)})
    assert counts(filed) == counts(inline) and "is_even" not in counts(filed)
    assert filed.values("Exclude") == inline.values("Exclude") == [["is_even,is_odd"]]
    assert library_lines(proc.stderr) == []
    only = tmp_path / "only.list"
    only.write_text("fib\r\nis_*\r\n")
    _, kept = run_calls(sub(tmp_path, "c"), 10, 4, 3, env={"PROFILER_INCLUDE": "@" + str(only)})
    even, odd = parity_calls(4)
    assert counts(kept) == {"fib": fib_calls(10), "is_even": even, "is_odd": odd,
                            "manual loop": 1}
    missing = tmp_path / "missing.list"
    proc, full = run_calls(sub(tmp_path, "d"), 10, 4, 3,
                           env={"PROFILER_EXCLUDE": "@" + str(missing)})
    assert "is_even" in counts(full) and full.values("Exclude") == []
    assert library_lines(proc.stderr) == [
        f"profreport: ignoring PROFILER_EXCLUDE='@{missing}': No such file or directory"]
    proc, _ = run_calls(sub(tmp_path, "e"), 10, 4, 3, env={"PROFILER_EXCLUDE": "@" + str(tmp_path)})
    assert library_lines(proc.stderr) == [
        f"profreport: ignoring PROFILER_EXCLUDE='@{tmp_path}': not a regular file"]


def test_filter_file_read_is_not_where_a_pending_cancellation_acts(tmp_path):
    """The main thread makes the first instrumented call with a cancellation request pending:
    reading PROFILER_EXCLUDE's file (open and read are cancellation points) holds it off, so
    the program's function runs and the request acts at the program's own pthread_testcancel;
    the process ends when its last thread does, and the run is written."""
    listing = tmp_path / "hot.list"
    listing.write_text("nothing_here\n")
    for env in ({"PROFILER_EXCLUDE": "@" + str(listing)}, {}):
        proc, files = run_program(sub(tmp_path, "x" if env else "plain"), "auto/cancel_first",
                                  env=env)
        assert proc.stdout == b"ran\n" and library_lines(proc.stderr) == []
        assert len(files) == 1
        run = parse_run(files[0])
        assert run.values("Exclude") == ([["nothing_here"]] if env else [])
        assert counts(run)["first"] == 1


def test_max_depth_folds_the_calls_below_it_with_a_warning(tmp_path):
    _, run = run_calls(tmp_path, 12, 9, 5, env={"PROFILER_MAX_DEPTH": "3"})
    assert max(int(r["Depth"]) for r in run.rows) == 2
    c = counts(run)
    assert c["fib"] == 3  # fib(12) at depth 1 and its two children at depth 2
    assert c["shared_twice_square"] == 5 and "shared_square" not in c  # depth 3: folded
    assert c["is_even"] == 1 and c["is_odd"] == 1
    # Every call is a row or counted in the depth-limit warning (as in the folding test below).
    even, odd = parity_calls(9)
    every = fib_calls(12) + even + odd + 5 + 5 + 10 + 1
    (deep,) = run.warnings
    assert deep["kind"] == "depth-limit"
    assert sum(n for name, n in c.items() if name != "manual loop") + deep["count"] == every


def test_min_duration_folds_short_calls_into_their_parent(tmp_path):
    _, run = run_calls(tmp_path, 16, 9, 5, env={"PROFILER_MIN_DURATION": "20us"})
    min_ticks = 20e-6 * run.frequency
    c = counts(run)
    even, odd = parity_calls(9)
    every = fib_calls(16) + even + odd + 5 + 5 + 10 + 1  # all function calls
    folded = [w for w in run.warnings if w["kind"] == "folded"]
    assert len(folded) == 1
    kept = sum(n for name, n in c.items() if name != "manual loop")
    assert kept + folded[0]["count"] == every  # every call is either a row or folded
    assert 0 < c["fib"] < fib_calls(16)
    for r in run.rows:
        if r["Region"] != "manual loop":
            assert int(r["Ticks"]) >= min_ticks * 0.999, r
    # The folded time stays in the parents: self + kept children = ticks, for every row.
    main = run.rows_of("main")[0]
    children = sum(int(r["Ticks"]) for r in run.rows if r["Parent"] == "main")
    assert int(main["Self"]) == int(main["Ticks"]) - children


def test_summary_mode_is_the_default_and_counts_every_path_as_events_mode_does(tmp_path):
    """Without PROFILER_MODE, libprofreport-auto keeps a calling-context tree (summary mode):
    one row per path, whose calls are exactly those of the same path in an events run."""
    proc, run = run_once(sub(tmp_path, "s"), "auto/calls", "12", "9", "5")
    assert run.value("Mode") == "summary" and run.header == SUMMARY_COLUMNS
    _, ev = run_calls(sub(tmp_path, "e"), 12, 9, 5)
    # Rows of no calls are a function without hooks where samples landed (FORMAT.md 1.4): time,
    # not counts, and an events run has none (CI's TSan run once charged one to _start).
    paths = {k: int(r["Calls"]) for k, r in summary_paths(run.rows).items() if int(r["Calls"])}
    assert paths == event_paths(ev.rows)
    calls = {k[1]: r["Calls"] for k, r in summary_regions(run.rows).items() if r["Calls"]}
    even, odd = parity_calls(9)
    assert calls == {"main": 1, "fib": fib_calls(12), "is_even": even, "is_odd": odd,
                     "helper": 5, "shared_twice_square": 5, "shared_square": 10,
                     "manual loop": 1}
    fib = summary_regions(run.rows)[("1", "fib")]
    # Sampled timing (the default): Ticks and Outer are samples, recursion counted once in
    # Outer; a run this short may have taken none in fib.
    assert run.values("Timing")[0][0] == "sampled"
    assert fib["Outer"] <= fib["Ticks"]
    assert "fib" in functions(run)
    # fib(12) nests 12 deep below main: one path per depth, no deeper
    fib_paths = [p for _, p in paths if p[-1] == "fib"]
    assert max(len(p) for p in fib_paths) == 1 + 12


@pytest.mark.parametrize("mode", ["summary", "events"])
def test_functions_open_when_the_program_calls_exit_end_there(tmp_path, mode):
    """A program that calls exit() below main (ninja's real_main) left main and its callers
    never stopped: no row on Call cost, the shares over the regions that did stop, and an
    "unterminated" warning in every run. They end at the exit now, as uftrace ends them; a
    region started by hand and left open still stops that and is warned of."""
    env = {"PROFILER_MODE": mode}
    proc, files = run_program(sub(tmp_path, "plain"), "auto/exits", env=env, check=False)
    assert proc.returncode == 3 and library_lines(proc.stderr) == []
    run = parse_run(files[0])
    assert run.warnings == []
    calls = ({k[1]: int(r["Calls"]) for k, r in summary_regions(run.rows).items()}
             if mode == "summary" else dict(counts(run)))
    assert calls == {"main": 1, "real_main": 1, "run": 1, "work": 20}
    out = tmp_path / "r.xlsx"
    must_run(files[0], "-o", out, "--no-gnuplot")
    _, cost, _ = Book(out).cost()
    assert cost["main"]["Calls"] == 1 and cost["real_main"]["Calls"] == 1
    # main holds everything: the top of the profile, as when it returns
    assert cost["main"]["Total %"] == pytest.approx(1.0, abs=1e-9)
    if mode == "summary":  # 42 calls: their hooks took no sample, and the Timing line says so
        timing = Book(out).summary()["Timing"]
        assert "The hooks took too few samples to measure what a call's cost" in timing, timing
        assert "hooks cost 0 ns" not in timing

    proc, files = run_program(sub(tmp_path, "open"), "auto/exits", "open", env=env, check=False)
    assert proc.returncode == 3
    run = parse_run(files[0])
    (warning,) = run.warnings
    assert (warning["kind"], warning["count"]) == ("unterminated", 3), warning
    assert warning["message"].endswith("left open, real_main, main"), warning
    calls = ({k[1]: int(r["Calls"]) for k, r in summary_regions(run.rows).items()}
             if mode == "summary" else dict(counts(run)))
    assert calls["run"] == 1 and calls["work"] == 20


def test_summary_and_events_runs_of_one_program_report_the_same_counts(tmp_path):
    """The same instrumented program run in both modes and reported: every sheet that counts
    calls has the same counts (Call cost and Hit count per region, Call tree per caller and
    callee, Call paths per path); only times differ, as two runs' times do."""
    books = {}
    for mode, timing in (("events", "exact"), ("summary", "exact"), ("summary", "sampled")):
        _, run = run_calls(sub(tmp_path, mode + timing), 11, 8, 4,
                           env={"PROFILER_MODE": mode, "PROFILER_TIMING": timing})
        assert run.value("Mode") == mode
        out = tmp_path / f"{mode}{timing}.xlsx"
        must_run(run.path, "-o", out, "-q", "--no-gnuplot")
        books[mode + timing] = Book(out)
    ev, su, sa = books["eventsexact"], books["summaryexact"], books["summarysampled"]
    # Sampled timing counts the same calls on the same paths.
    _, sacost, _ = sa.cost()
    _, satree = sa.table("Call tree")
    _, sahits = sa.table("Hit count")
    _, ecost, eorder = ev.cost()
    _, scost, sorder = su.cost()
    assert sorted(eorder) == sorted(sorder)
    assert {k: r["Calls"] for k, r in ecost.items()} == {k: r["Calls"] for k, r in scost.items()}
    assert {k: r["Calls"] for k, r in ecost.items()} == {k: r["Calls"] for k, r in sacost.items()}
    _, etree = ev.table("Call tree")
    _, stree = su.table("Call tree")
    edges = lambda t: sorted((r["Caller"], r["Callee"], r["Calls"]) for r in t)
    assert edges(etree) == edges(stree) == edges(satree)
    _, epaths = ev.table("Call paths")
    _, spaths = su.table("Call paths")
    # The sheet lists the paths with the most self time, which two runs may order apart.
    calls = lambda t: {r["Call path"]: r["Calls"] for r in t if r["Call path"]}
    both = calls(epaths).keys() & calls(spaths).keys()
    assert len(both) >= 10 and all(calls(epaths)[p] == calls(spaths)[p] for p in both)
    _, ehits = ev.table("Hit count")
    _, shits = su.table("Hit count")
    hits = lambda t: {r["Region"]: (r["Calls"], r["Thread: main"]) for r in t}
    assert hits(ehits) == hits(shits) == hits(sahits)


def uftrace_calls(tmp_path, binary, args, *opts):
    """{function: calls} that uftrace records of binary run with args, given record options."""
    data = tmp_path / f"uftrace-{next(_uftrace_runs)}.data"
    rec = run_command(["uftrace", "record", "--no-libcall", *opts, "-d", data, binary, *args],
                      env=clean_env(), cwd=tmp_path, timeout=120)
    assert rec.returncode == 0, rec.stderr
    rep = run_command(["uftrace", "report", "-d", data, "-s", "call"], env=clean_env(),
                      cwd=tmp_path)
    assert rep.returncode == 0, rep.stderr
    theirs = {}
    for line in rep.stdout.decode().splitlines():
        m = re.match(r"\s*[\d.]+ \S+\s+[\d.]+ \S+\s+(\d+)\s+(\S+)\s*$", line)
        if m:
            theirs[m.group(2)] = int(m.group(1))
    return theirs


_uftrace_runs = itertools.count(1)


@pytest.mark.skipif(shutil.which("uftrace") is None, reason="uftrace is not installed")
@pytest.mark.skipif(SAN != "", reason="uftrace's preloaded runtime does not mix with sanitizers")
def test_counts_match_uftrace_for_the_same_binary(tmp_path):
    from conftest import program
    binary = program("auto/calls")
    args = ["13", "7", "6"]
    _, ours = run_calls(sub(tmp_path, "events"), *args)
    _, summary = run_once(sub(tmp_path, "summary"), "auto/calls", *args)
    theirs = uftrace_calls(tmp_path, binary, args)
    mine = counts(ours)
    by_path = {k[1]: r["Calls"] for k, r in summary_regions(summary.rows).items()}
    for name in ["main", "fib", "is_even", "is_odd", "helper", "shared_twice_square",
                 "shared_square"]:
        assert mine[name] == theirs[name], (name, mine[name], theirs.get(name))
        assert by_path[name] == theirs[name], (name, by_path[name], theirs.get(name))


def interpreter(exe):
    """The dynamic loader a program names (its PT_INTERP), from readelf."""
    out = subprocess.run(["readelf", "-lW", str(exe)], capture_output=True, text=True).stdout
    m = re.search(r"Requesting program interpreter: ([^\]]+)\]", out)
    assert m, out
    return m.group(1)


def test_a_program_started_through_the_loader_is_named_from_its_own_file(tmp_path):
    """`ld.so ./calls` runs the loader as the process's executable, so /proc/self/exe names
    the loader: the program's functions must still be named, placed and attributed from the
    program's own file (before, they came out as the loader's symbols), from the path the
    loader was given relative to the folder the program started in."""
    exe = Path(program("auto/calls"))
    _, direct = run_calls(sub(tmp_path, "direct"), 12, 9, 5)
    for name, argv, cwd in [("absolute", [exe], tmp_path), ("relative", ["./" + exe.name], exe.parent)]:
        folder = sub(tmp_path, name)
        proc = run_command([interpreter(exe), *argv, 12, 9, 5],
                           env=clean_env({"PROFILER_DIR": str(folder), **EVENTS}), cwd=cwd)
        assert proc.returncode == 0, proc.stderr
        (path,) = folder.iterdir()
        run = parse_run(path)
        assert run.value("Program") == os.path.realpath(exe)
        assert counts(run) == counts(direct)
        assert functions(run) == functions(direct)


def test_clang_functions_have_their_declarations_without_debug_aranges(tmp_path):
    """clang writes no .debug_aranges unless asked (-gdwarf-aranges), and elfutils 0.188 then
    finds no compile unit for an address: a clang program's functions came out with no file
    and no line (where gcc's had them). Each must now name its declaration: methods defined in
    a class, templates in a namespace, static functions, main."""
    if shutil.which("clang++") is None:
        pytest.skip("clang++ is not installed")
    if SAN:
        pytest.skip("clang's sanitizer runtime is not the one this build links")
    source = SOURCE / "cxx_calls.cpp"
    exe = tmp_path / "cxx_calls-clang"
    build = subprocess.run(["clang++", "-O2", "-fno-inline", "-g",
                            "-finstrument-functions-after-inlining",
                            f"-I{ROOT / 'include'}", str(source), "-o", str(exe), f"-L{BUILD}",
                            f"-Wl,-rpath,{BUILD}", "-lprofreport-auto"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    sections = subprocess.run(["readelf", "-SW", str(exe)], capture_output=True, text=True).stdout
    assert ".debug_info" in sections and ".debug_aranges" not in sections
    want = {"main": r"^int main", "thrower(int)": r"^static void thrower",
            "catcher(int)": r"^static int catcher",
            "shapes::Square::area() const": r"double area\(\) const",
            "double shapes::total_area<shapes::Square>(std::vector<shapes::Square, "
            "std::allocator<shapes::Square> > const&)": r"double total_area"}
    # Read by the collector at run time (PROFILER_SOURCE_LINES=run) and by the reporter (the
    # default): both find the units without .debug_aranges.
    runs = sub(tmp_path, "runs")
    proc = run_command([exe, "2"], env=clean_env({"PROFILER_DIR": str(runs),
                                                  "PROFILER_SOURCE_LINES": "run"}))
    assert proc.returncode == 0, proc.stderr
    (path,) = runs.iterdir()
    fn = functions(parse_run(path))
    for name, pattern in want.items():
        assert name in fn, sorted(fn)
        file, line, module, _ = fn[name]
        assert file == str(source), (name, fn[name])
        assert int(line) == source_line(source, pattern), (name, fn[name])
        assert module == str(exe)
    path.unlink()
    proc = run_command([exe, "2"], env=clean_env({"PROFILER_DIR": str(runs)}))
    assert proc.returncode == 0, proc.stderr
    (path,) = runs.iterdir()
    assert all(fn[:2] == ("", "") for fn in functions(parse_run(path)).values())
    book_path = tmp_path / "clang.xlsx"
    must_run(path, "-o", book_path, "--no-gnuplot", "-q")
    _, cost, _ = Book(book_path).cost()
    for name, pattern in want.items():
        assert cost[name]["Source file"] == str(source), (name, cost[name])
        assert cost[name]["Line"] == source_line(source, pattern), name


def test_report_has_function_locations_and_call_tree(tmp_path):
    _, run = run_calls(tmp_path, 10, 5, 4)
    out = tmp_path / "auto.xlsx"
    must_run(run.path, "-o", out, "-q", *templates_args())
    book = Book(out)
    _, cost, _ = book.cost()
    assert cost["shared_square"]["Source file"].endswith("shared_lib.c")
    assert cost["fib"]["Calls"] == fib_calls(10)
    # Call paths: whole calling contexts, with exact calls and self time per path.
    headers, paths = book.table("Call paths")
    by_path = {r["Call path"]: r for r in paths}
    sq = by_path["main > manual loop > shared_twice_square > shared_square"]
    assert sq["Calls"] == 8 and sq["Depth"] == 3 and sq["Region"] == "shared_square"
    # Times are numbers of ns (each cell shows its own unit).
    assert headers[3] == "Self"
    scale = run.frequency / 1e9
    want = sum(int(r["Self"]) for r in run.rows_of("shared_square")) / scale
    assert sq["Self"] == pytest.approx(want, rel=1e-9)
    leaf_fibs = [r for r in paths if r["Region"] == "fib"]
    assert len({r["Depth"] for r in leaf_fibs}) == len(leaf_fibs)  # one row per fib depth
    selfs = [r["Self"] for r in paths]
    assert selfs == sorted(selfs, reverse=True)
    assert sum(r["Self %"] for r in paths) <= 1 + 1e-9
    assert len(book.wb["Call paths"]._charts) == 1
    tree = book.rows("Call tree")
    text = "\n".join(" | ".join("" if v is None else str(v) for v in r) for r in tree)
    assert "shared_twice_square" in text and "shared_square" in text


def test_a_library_loaded_where_an_unloaded_one_was_is_named_for_itself(tmp_path):
    """dlreuse loads libauto_plugin_a.so, calls plugin_a 3 times, dlcloses it, loads
    libauto_plugin_b.so (same shape) and calls plugin_b 2 times. When the loader puts plugin_b
    at plugin_a's old address (the test is skipped otherwise), its calls used to be recorded as
    plugin_a's. Now each function has its own rows and Function record, from its own module,
    and the functions that stayed loaded keep their one name."""
    # Source lines read at run time: the symbolizer's DWARF must follow the new module too.
    proc, run = run_auto(tmp_path, "auto/dlreuse", BUILD / "tests" / "programs" / "auto",
                         env={"PROFILER_SOURCE_LINES": "run"})
    addresses = dict(line.split()[:2] for line in proc.stdout.decode().splitlines())
    if addresses["a"] != addresses["b"]:
        pytest.skip(f"the loader put plugin_b elsewhere: {addresses}")
    assert counts(run) == {"main": 1, "call": 2, "plugin_a": 3, "plugin_b": 2}
    fns = functions(run)
    assert set(fns) == {"main", "call", "plugin_a", "plugin_b"}
    for name in ("plugin_a", "plugin_b"):
        file, _, module, _ = fns[name]
        assert file.endswith(f"{name}_lib.c") and module.endswith(f"libauto_{name}.so")
        # each module's own build id
        assert dict(run.values("Module"))[module] == readelf_build_id(module)
    assert [r["Parent"] for r in run.rows_of("plugin_b")] == ["call", "call"]


def callgrind_functions(path):
    """{function: (source file, line of its self cost)} from a callgrind file: fl=, fn= and
    cfi= with their compressed names expanded (files and functions are numbered apart)."""
    files, names, out = {}, {}, {}
    current_file, current_fn, want_cost = None, None, False
    for line in path.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^(fl|fi|fe|cfi|cfl|fn|cfn)=\((\d+)\)(?: (.*))?$", line)
        if m:
            kind, key, text = m.groups()
            table = names if kind in ("fn", "cfn") else files
            if text is not None:
                assert key not in table or table[key] == text, line
                table[key] = text
            if kind == "fl":
                current_file = table[key]
            elif kind == "fn":
                current_fn, want_cost = table[key], True
            continue
        m = re.match(r"^(\d+) (\d+)$", line)
        if m and want_cost:
            where = (current_file, int(m.group(1)))
            assert out.setdefault(current_fn, where) == where, (current_fn, where)
            want_cost = False
        elif line.startswith("calls="):
            want_cost = False  # the next cost line is the call's, not the function's
    return out


def test_callgrind_export_names_source_files_and_lines(tmp_path):
    """The callgrind export of an instrumented program puts each function in its source file
    (fl=) at the line of its Function record, as DWARF and the source say; the manual region
    stays in the pseudo file "regions"; callgrind_annotate reads it and shows the files."""
    _, run = run_calls(tmp_path, 10, 5, 4)
    out = tmp_path / "callgrind.out"
    must_run(run.path, "-o", tmp_path / "r.xlsx", "-q", "--no-gnuplot", "--callgrind", out)
    got = callgrind_functions(out)
    calls_c = SOURCE / "calls.c"
    for name, pattern in [("fib", r"^long fib\(int n\) \{"), ("is_even", r"^int is_even.*\{"),
                          ("helper", r"int helper\(int i\)"), ("main", r"^int main")]:
        file, line = got[name]
        assert file.endswith("tests/programs/auto/calls.c"), (name, file)
        assert line == source_line(calls_c, pattern), (name, line)
    file, line = got["shared_square"]
    assert file.endswith("shared_lib.c")
    assert line == source_line(SOURCE / "shared_lib.c", r"^int shared_square.*\{")
    assert got["manual loop"] == ("regions", 0)

    tool = shutil.which("callgrind_annotate")
    if tool is None:
        pytest.fail("callgrind_annotate is missing: install valgrind (scripts/deps.sh)")
    p = subprocess.run([tool, "--auto=no", "--threshold=100", str(out)], capture_output=True,
                       timeout=120)
    assert p.returncode == 0 and p.stderr == b"", p.stderr
    text = p.stdout.decode()
    assert re.search(r"tests/programs/auto/calls\.c:fib$", text, re.M), text
    assert re.search(r"shared_lib\.c:shared_square$", text, re.M), text
    assert re.search(r" regions:manual loop$", text, re.M), text


@pytest.mark.parametrize("lang", ["c", "c++"])
@pytest.mark.parametrize("opt", ["-O0", "-O2"])
def test_scopes_and_module_regions_measure_the_work_inside_them_when_instrumented(
        tmp_path, lang, opt):
    """PROFILER_SCOPE and PROFILER_API in an instrumented program (scopes.c): the header's own
    functions (C++'s guard classes) are invisible to the hooks, so each region holds the
    pause_ms call made inside it, and no function of the header is a row."""
    exe = compile_program(tmp_path, SOURCE / "scopes.c", lang, opt, auto=True)
    folder = tmp_path / "runs"
    proc = run_command([exe], env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    files = list(folder.glob("profiling_*.csv"))
    assert len(files) == 1
    run = parse_run(files[0])
    paths = summary_paths(run.rows)
    cpu = [r for r in run.values("ThreadCpu") if len(r) >= 9 and int(r[4])]
    sample_cost = int(cpu[0][8]) / int(cpu[0][4]) * run.frequency / 1e9 if cpu else 0
    overhead = int(cpu[0][5]) if cpu else 0  # samples that landed in the collector's code
    assert {path: int(r["Calls"]) for (_, path), r in paths.items()} == {
        ("main",): 1, ("main", "scoped"): 1, ("main", "scoped", "pause_ms"): 1,
        ("main", "store_put"): 1, ("main", "store_put", "store"): 1,
        ("main", "store_put", "store", "pause_ms"): 1}
    for region in ("scoped", "store"):
        outer = next(r for (_, p), r in paths.items() if p[-1] == region)
        inner = next(r for (_, p), r in paths.items() if p[-2:] == (region, "pause_ms"))
        # Sampled timing (the default): pause_ms sleeps, so its time is wall time (Wall, its
        # one call timed), not CPU samples; the samples still add up along the path. Each
        # Wall is net of what the signals during it cost to take, at the thread's mean cost a
        # sample: a signal in the region but not in pause_ms that cost less than the mean may
        # take it below pause_ms. Its sample is the region's own, or the collector's when it
        # came in the hooks or the region's stop (under ThreadSanitizer, 22 of a run's 24
        # samples: the region lost 25 us more than pause_ms once, with none of its own).
        slack = (int(outer["Samples"]) + overhead) * sample_cost
        assert int(outer["Wall"]) >= int(inner["Wall"]) - slack > 0
        assert int(outer["Ticks"]) - int(outer["Self"]) == int(inner["Ticks"])


def deeprec_counts(run):
    """{function: calls} of a deeprec run in either mode."""
    if run.value("Mode") == "events":
        return dict(counts(run))
    return {k[1]: r["Calls"] for k, r in summary_regions(run.rows).items()}


@pytest.mark.parametrize("mode", ["events", "summary"])
def test_recursion_10000_deep_counts_every_call(tmp_path, mode):
    """deeprec.c: 3 recursions 10,000 deep, beyond the 4096 frames a recorder starts with: every
    call is counted (30,000, as the program's structure says), the paths are 10,001 deep, and
    there is no warning."""
    _, run = run_auto(tmp_path, "auto/deeprec", 10000, 3, env={"PROFILER_MODE": mode})
    assert deeprec_counts(run) == {"main": 1, "descend": 30000}
    assert run.warnings == []
    if mode == "events":
        assert max(int(r["Depth"]) for r in run.rows) == 10000
    else:
        paths = summary_paths(run.rows)
        assert max(len(p) for _, p in paths) == 10001
        assert all(r["Calls"] == "3" for (_, p), r in paths.items() if p[-1] == "descend")


@pytest.mark.skipif(shutil.which("uftrace") is None, reason="uftrace is not installed")
@pytest.mark.skipif(SAN != "", reason="uftrace's preloaded runtime does not mix with sanitizers")
@pytest.mark.parametrize("mode", ["events", "summary"])
def test_depth_limit_folds_deeper_calls_as_uftrace_counts_them(tmp_path, mode):
    """deeprec 1000 deep, 3 times, against uftrace on the same binary: without a limit both
    count every call; with PROFILER_MAX_DEPTH=100 (uftrace -D 100) the calls kept are those
    uftrace records at that depth, and the depth-limit warning counts the rest, so kept plus
    folded is uftrace's total. The workbook's Warnings sheet shows it."""
    from conftest import program
    binary = program("auto/deeprec")

    args = ["1000", "3"]
    names = ("main", "descend")
    every = {k: v for k, v in uftrace_calls(tmp_path, binary, args).items() if k in names}
    at_100 = {k: v for k, v in uftrace_calls(tmp_path, binary, args, "-D", "100").items()
              if k in names}
    _, run = run_auto(sub(tmp_path, "all"), "auto/deeprec", 1000, 3, env={"PROFILER_MODE": mode})
    assert deeprec_counts(run) == every and run.warnings == []
    _, run = run_auto(sub(tmp_path, "limited"), "auto/deeprec", 1000, 3,
                      env={"PROFILER_MODE": mode, "PROFILER_MAX_DEPTH": "100"})
    kept = deeprec_counts(run)
    assert kept == at_100 and kept["descend"] < every["descend"]
    (deep,) = run.warnings
    assert deep["kind"] == "depth-limit"
    assert kept["descend"] + deep["count"] == every["descend"]
    out = tmp_path / f"{mode}.xlsx"
    must_run(run.path, "-o", out, "-q", "--no-gnuplot")
    assert [(w["Kind"], w["Count"]) for w in Book(out).warnings()] == [
        ("depth-limit", deep["count"])]


def patch_run(tmp_path, exe, env):
    """Run auto/patch (or exe, built from its source) with 4 threads of 200,000 calls of tiny
    left out: (its "patched=N changed=M" numbers, the parent's run, the child's run)."""
    folder = tmp_path / "runs"
    proc = run_command([exe, "4", "200000"],
                       env=clean_env({"PROFILER_DIR": str(folder), "PROFILER_EXCLUDE": "tiny",
                                      **env}), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.decode().splitlines()
    assert out[:5] == [f"thread {i}: 400000" for i in range(4)] + ["child: 400000"], out
    numbers = dict(kv.split("=") for kv in out[5].split())
    runs = {parse_run(p).value("Pid"): parse_run(p) for p in folder.iterdir()}
    parent = runs.pop(str(proc.pid))
    (child,) = runs.values()
    return {k: int(v) for k, v in numbers.items()}, parent, child


@pytest.mark.parametrize("patch", ["1", "0"])
def test_left_out_functions_lose_their_hook_calls_while_threads_run_them(tmp_path, patch):
    """PROFILER_EXCLUDE=tiny: tiny's calls of the enter and exit hooks are overwritten with
    no-ops of their length at their first calls (so its 1,000,000 calls cost what they cost
    unprofiled), while four threads released together run them; a forked child runs the
    patched code. Every call still computes what it should, no other byte of tiny changes,
    and what is recorded is what the hooks recorded with tiny left out before: kept() once per
    thread, no call of tiny (its rows, if any, hold only the samples that landed in its code).
    PROFILER_PATCH=0 leaves the code alone."""
    numbers, parent, child = patch_run(tmp_path, program("auto/patch"),
                                       {"PROFILER_PATCH": patch})
    assert numbers == {"patched": 2 if patch == "1" else 0, "changed": 0}
    assert counts(parent)["kept"] == 4
    assert sum(int(r["Calls"]) for r in parent.rows_of("kept")) == 4
    assert sum(int(r["Calls"]) for r in child.rows_of("kept")) == 1
    for run in (parent, child):
        assert all(int(r["Calls"]) == 0 and int(r["Samples"]) > 0 for r in run.rows_of("tiny"))
    assert parent.warnings == [] and child.warnings == []


@pytest.mark.skipif(platform.machine() != "x86_64", reason="hook calls are patched on x86-64")
def test_patching_a_hook_call_out_is_no_calls_time(tmp_path):
    """auto/patchtime's sweep() holds 300 copies of step(), inlined with their hooks, and
    PROFILER_EXCLUDE=step has their 600 hook calls patched out at their first calls: the
    program's first call of sweep() took milliseconds more than its second (two mprotects a
    patch, and membarriers), all of it the collector's. Those are taken out of the calls open
    meanwhile, as describing a function is: sweep()'s longest call is its first less at
    least half of that (before, it held all of it: 3.70 ms against the program's 3.74)."""
    proc, run = run_once(tmp_path, "auto/patchtime",
                         env={"PROFILER_EXCLUDE": "step", "PROFILER_TIMING": "exact"})
    assert proc.returncode == 0, proc.stderr
    m = re.search(rb"first=(\d+) second=(\d+)", proc.stdout)
    first, second = int(m[1]), int(m[2])
    (sweep,) = run.rows_of("sweep")
    assert int(sweep["Calls"]) == 2 and not run.rows_of("step")
    ns = 1e9 / run.frequency
    shortest, longest = int(sweep["Min"]) * ns, int(sweep["Max"]) * ns
    assert shortest <= second + 1000, (shortest, second)
    # the patches cost the program's first call at least 200 us here (600 of them)
    patches = first - second
    assert patches > 200_000, (first, second)
    assert longest < second + patches / 2, (longest, first, second)


def test_a_snapshot_is_no_calls_time(tmp_path):
    """auto/snapshots builds 4,094 calling contexts, then spin() makes 100,000 calls, with a
    snapshot of them all due every 100 us (PROFILER_FLUSH_INTERVAL=0.0001): writing one takes
    far longer than that, so most of spin()'s wall time by the program's own clock is
    snapshots. Writing them is the collector's time, taken out of the calls open meanwhile:
    the report's spin() is under half of what the program saw (it held all of it: 3.16 s, of
    which 2.2 s were snapshots, in a longer run). One run: two would differ by more than the
    snapshots (CI read one spin() 64 ms and the next 96)."""
    proc, files = run_program(tmp_path, "auto/snapshots", "11", "100000",
                              env={"PROFILER_TIMING": "exact", "PROFILER_FLUSH_INTERVAL": "0.0001"})
    (run,) = [parse_run(f) for f in files]
    (row,) = run.rows_of("spin")
    seen = int(re.search(rb"spin=(\d+)", proc.stdout)[1])
    reported = int(row["Ticks"]) * 1e9 / run.frequency
    assert 0 < reported < seen / 2, (reported, seen)


def test_a_snapshot_is_written_over_the_one_before(tmp_path):
    """A snapshot replaces the ones before it (FORMAT.md 3), and is written over the last one
    when nothing came after that: a part that appended each grew by the whole tree every
    flush interval (4,094 contexts every millisecond, 77 GB within minutes at 16,382). Killed
    after a second of them, the part holds about one, and the killed run's statistics are
    still read from it: every call of left() and right() made before the spin."""
    folder = tmp_path / "runs"
    proc = subprocess.Popen([program("auto/snapshots"), "11", "4000000000"],
                            env=clean_env({"PROFILER_DIR": str(folder),
                                           "PROFILER_FLUSH_INTERVAL": "0.001"}),
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        parts = []
        for _ in range(200):  # until the part exists and has had a second of snapshots
            parts = list(folder.glob("*.part")) if folder.exists() else []
            if parts and parts[0].stat().st_size > 0:
                break
            time.sleep(0.05)
        time.sleep(1)
        assert proc.poll() is None, proc.stderr.read()
        (part,) = folder.glob("*.part")
        first = part.stat().st_size
        time.sleep(0.5)
        later = part.stat().st_size
    finally:
        proc.kill()
        proc.wait()
        proc.stderr.close()
    # one snapshot of 4,094 contexts is about 200 KB; a second of them appended, hundreds of MB
    assert later < 2_000_000 and later < first + 100_000, (first, later)
    out = tmp_path / "r.xlsx"
    must_run(folder, "-o", out, "-q", "--no-gnuplot")
    _, cost, _ = Book(out).cost()
    assert (cost["left"]["Calls"], cost["right"]["Calls"]) == (2048, 2047), cost.get("left")


@pytest.mark.parametrize("patch", ["1", "0"])
def test_recording_off_takes_the_hook_calls_out_once_they_prove_frequent(tmp_path, patch):
    """PROFILER_ENABLE=0 records nothing, and an instrumented build run so should cost about
    what the plain one does: a hook call is patched out at its 2,048th call, as a left-out
    function's is at its first (tiny's two, called 200,000 times by each of four threads at
    once), and one made seldom is left as it is rather than pay a patch (kept's, called once
    by each thread). Before, every call took the hooks' slow path (yaml-cpp's clang build:
    4.2x plain, more than recording). Every call still computes what it should, nothing else
    changes, and no folder or file is made. PROFILER_PATCH=0 leaves the code alone."""
    folder = tmp_path / "runs"
    proc = run_command([program("auto/patch"), "4", "200000"],
                       env=clean_env({"PROFILER_DIR": str(folder), "PROFILER_ENABLE": "0",
                                      "PROFILER_PATCH": patch}), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    out = proc.stdout.decode().splitlines()
    assert out[:5] == [f"thread {i}: 400000" for i in range(4)] + ["child: 400000"], out
    numbers = {k: int(v) for k, v in (kv.split("=") for kv in out[5].split())}
    assert numbers == {"patched": 2 if patch == "1" else 0, "changed": 0}, numbers
    assert not folder.exists() and sorted(p.name for p in tmp_path.iterdir()) == [], \
        list(tmp_path.iterdir())


@pytest.mark.parametrize("compiler", ["gcc -fno-plt", "clang"])
def test_left_out_functions_lose_their_hook_calls_in_other_builds(tmp_path, compiler):
    """The same with the hooks called through the GOT (gcc -fno-plt: `call *slot(%rip)`, 6
    bytes) and from clang's build after inlining (its own prologue and register choices)."""
    if SAN:
        pytest.skip("built here without the build's sanitizer runtime")
    cc, *flags = compiler.split()
    if shutil.which(cc) is None:
        pytest.skip(f"{cc} is not installed")
    hook = "-finstrument-functions-after-inlining" if cc == "clang" else "-finstrument-functions"
    exe = tmp_path / "patch-built"
    build = subprocess.run([cc, "-O2", "-g", hook, *flags, str(SOURCE / "patch.c"), "-o",
                            str(exe), f"-L{BUILD}", f"-Wl,-rpath,{BUILD}", "-lprofreport-auto",
                            "-pthread"], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    if "-fno-plt" in flags:
        code = subprocess.run(["objdump", "-d", str(exe)], capture_output=True, text=True).stdout
        assert re.search(r"ff 15 .*call.*__cyg_profile_func_enter", code), "not a GOT call"
    numbers, parent, child = patch_run(tmp_path, exe, {})
    assert numbers == {"patched": 2, "changed": 0}
    assert sum(int(r["Calls"]) for r in parent.rows_of("kept")) == 4
    assert sum(int(r["Calls"]) for r in child.rows_of("kept")) == 1
