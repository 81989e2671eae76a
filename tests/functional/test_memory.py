"""test_memory.py - memory-operation checks: the PROFILER_MEM_ macros, <profreport_new.hpp> and
the preload library libprofreport-malloc.so find exactly the leaks, double frees, unknown
frees, mismatches and cross-thread frees the test programs commit, at the right sites, and
count the bytes each region allocates; an unmodified program runs unchanged under the preload
library; the workbook's Memory sheet shows the same.

Expected sites come from the test programs' source (the @MARKER comments) and, for return
addresses, from addr2line; leak counts also from valgrind: never from the collector's own output.
"""

import os
import re
import shutil
import signal
import subprocess
import zipfile

import openpyxl
import pytest

from conftest import (BUILD, ROOT, SAN, clean_env, fresh_dir, parse_run, program, run_command,
                      run_files, run_once)
from reporter_helpers import PROFREPORT

PRELOAD = BUILD / "libprofreport-malloc.so"
PLAIN = BUILD / "tests" / "plain"

needs_preload = pytest.mark.skipif(
    bool(SAN), reason="a sanitizer replaces malloc itself: the preload library cannot be used "
    "with it (and the plain programs are built without one)")


def markers(source):
    """{MARKER: line number} of the '@MARKER' comments in a test program's source."""
    found = {}
    for n, line in enumerate((ROOT / source).read_text().splitlines(), start=1):
        for m in re.finditer(r"@([A-Z]+)", line):
            found[m.group(1)] = n
    return found


def addr2line(site):
    """'module+0xoff' -> 'file:line' of the source basename, through binutils' addr2line."""
    module, off = site.rsplit("+", 1)
    out = subprocess.run(["addr2line", "-e", module, off], capture_output=True, text=True,
                         check=True).stdout.strip()
    where = out.split(" ")[0]  # drops "(discriminator N)"
    file, line = where.rsplit(":", 1)
    return f"{os.path.basename(file)}:{line}"


def finding(kind, thread, region, site, count, nbytes, alloc, free, other_thread, other_site):
    """One memory-section row as the run file spells it."""
    return {"Kind": kind, "Thread": str(thread or ""), "Region": region, "Site": site,
            "Count": str(count), "Bytes": str(nbytes), "AllocKind": alloc, "FreeKind": free,
            "OtherThread": str(other_thread or ""), "OtherSite": other_site}


def findings_of(run):
    """The findings' rows without Function and Stack (the tests of sites check those)."""
    return [{k: v for k, v in r.items() if k not in ("Function", "Stack")}
            for r in run.memory if r["Kind"] != "region-bytes"]


def region_bytes(run):
    """{(thread, region): (allocations, bytes)} from the region-bytes rows."""
    return {(int(r["Thread"]), r["Region"]): (int(r["Count"]), int(r["Bytes"]))
            for r in run.memory if r["Kind"] == "region-bytes"}


def test_macros_find_exactly_one_of_each(tmp_path):
    """One leak, double free, unknown free, new/delete[] and malloc/delete mismatch and
    cross-thread free through PROFILER_MEM_ALLOC/FREE: exactly those rows, with their
    file:line sites, threads, regions and bytes; bytes per region as the program allocates."""
    _, run = run_once(tmp_path, "memcheck")
    src = "tests/programs/memcheck.c"
    at = {k: f"{src}:{v}" for k, v in markers(src).items()}
    want = [
        finding("leak", 1, "setup", at["LEAK"], 1, 100, "malloc", "", None, ""),
        finding("double-free", 1, "work", at["DOUBLE"], 1, 200, "malloc", "free", 1,
                at["FIRSTFREE"]),
        finding("unknown-free", 1, "work", at["UNKNOWN"], 1, 0, "", "free", None, ""),
        finding("mismatch", 1, "work", at["DELETE"], 1, 40, "malloc", "delete", 1, at["MALLOC"]),
        finding("mismatch", 1, "work", at["DELETEARRAY"], 1, 24, "new", "delete[]", 1,
                at["NEW"]),
        finding("cross-thread-free", 2, "worker", at["CROSS"], 1, 300, "malloc", "free", 1,
                at["SHARED"]),
    ]
    assert findings_of(run) == want
    # setup: 100 + 200; work: 24 + 40 + 300; outside any region: 50.
    assert region_bytes(run) == {(1, "setup"): (2, 300), (1, "work"): (3, 364), (1, ""): (1, 50)}


def test_cxx_header_finds_exactly_one_of_each(tmp_path):
    """The same through <profreport_new.hpp>: sites are return addresses that addr2line maps
    to the lines of new and delete; a double delete is refused (the program exits 0)."""
    _, run = run_once(tmp_path, "memcheck_cxx")
    src = "tests/programs/memcheck_cxx.cpp"
    line = markers(src)
    at = {k: f"memcheck_cxx.cpp:{v}" for k, v in line.items()}
    got = findings_of(run)
    exe = os.path.realpath(program("memcheck_cxx"))
    for r in got:
        assert r["Site"].startswith(exe + "+0x"), r
        r["Site"] = addr2line(r["Site"])
        if r["OtherSite"].startswith(exe + "+0x"):
            r["OtherSite"] = addr2line(r["OtherSite"])
    want = [
        finding("leak", 1, "setup", at["LEAK"], 1, 100, "new[]", "", None, ""),
        finding("double-free", 1, "setup", at["DOUBLE"], 1, 4, "new", "delete", 1,
                at["FIRSTFREE"]),
        finding("unknown-free", 1, "work", at["UNKNOWN"], 1, 0, "", "delete", None, ""),
        finding("mismatch", 1, "work", at["DELETE"], 1, 56, "malloc", "delete", 1,
                f"{src}:{line['MALLOC']}"),
        finding("mismatch", 1, "work", at["DELETEARRAY"], 1, 24, "new", "delete[]", 1,
                at["NEW"]),
        finding("cross-thread-free", 2, "", at["CROSS"], 1, 300, "new[]", "delete[]", 1,
                at["SHARED"]),
    ]
    assert got == want
    # setup: new int[25] and new int; work: operator new(24), malloc(56), new char[300].
    assert region_bytes(run) == {(1, "setup"): (2, 104), (1, "work"): (3, 380)}


def test_no_memory_section_without_memory_checks(tmp_path):
    """A program that uses none of the three ways in writes no memory section."""
    _, run = run_once(tmp_path, "memregions")
    assert run.memory is None
    assert run.meta[0] == ["Format", "profreport-run", "4"]


def run_preloaded(tmp_path, argv, env=None):
    """Run argv with the preload library; return (process, run files)."""
    folder = fresh_dir(tmp_path)
    extra = {"PROFILER_DIR": str(folder), "LD_PRELOAD": str(PRELOAD)}
    extra.update(env or {})
    proc = run_command(argv, env=clean_env(extra), cwd=tmp_path)
    return proc, run_files(folder)


@needs_preload
def test_preload_checks_an_unmodified_program(tmp_path):
    """memplain knows nothing of profreport: under the preload library its leak, double free
    (refused: without the library glibc aborts the program), free of a block malloc never
    returned and cross-thread free are its only findings at its own sites; it runs to its end
    with its own output and exit status."""
    exe = PLAIN / "memplain"
    plain = run_command([exe, "7"], env=clean_env(), cwd=tmp_path)
    assert plain.returncode == -signal.SIGABRT  # glibc catches the double free
    proc, files = run_preloaded(tmp_path, [exe, "7"])
    assert (proc.returncode, proc.stdout, proc.stderr) == (7, b"memplain 2 1\n", b"")
    (run,) = [parse_run(f) for f in files]
    line = markers("tests/plain/memplain.c")
    at = {k: f"memplain.c:{v}" for k, v in line.items()}
    got = []
    for r in findings_of(run):
        if r["Kind"] == "runtime-reachable":
            continue  # the loader's thread data, kept for the process's life (test below)
        for col in ("Site", "OtherSite"):
            assert r[col] == "" or r[col].startswith("tests/plain/memplain.c:"), r
            r[col] = os.path.basename(r[col])
        got.append(r)
    assert got == [
        finding("leak", 1, "", at["LEAK"], 1, 100, "malloc", "", None, ""),
        finding("double-free", 1, "", at["DOUBLE"], 1, 200, "malloc", "free", 1,
                at["FIRSTFREE"]),
        finding("unknown-free", 1, "", at["UNKNOWN"], 1, 0, "", "free", None, ""),
        finding("cross-thread-free", 2, "", at["CROSS"], 1, 300, "malloc", "free", 1,
                at["SHARED"]),
    ]
    # The program's 100 + 200 + 300 bytes, and whatever the C library allocated for it.
    ((key, (count, nbytes)),) = region_bytes(run).items()
    assert key == (1, "") and count >= 3 and nbytes >= 600


@needs_preload
def test_preload_counts_regions_and_every_entry_point(tmp_path):
    """An instrumented program's plain malloc, calloc, realloc, posix_memalign, aligned_alloc,
    memalign, valloc and reallocarray through the preload library: bytes per region as
    allocated, and no finding at all (the collector's own allocations are not tracked)."""
    proc, files = run_preloaded(tmp_path, [program("memregions")])
    assert proc.returncode == 0 and proc.stderr == b""
    (run,) = [parse_run(f) for f in files]
    assert findings_of(run) == []
    assert region_bytes(run) == {(1, "outer"): (1, 1000), (1, "inner"): (2, 100 + 300),
                                 (1, ""): (5, 128 + 64 + 16 + 10 + 40)}


@needs_preload
@pytest.mark.parametrize("args,status", [(["-la"], 0), (["-la", "no-such-file"], 2)],
                         ids=["listing", "failing"])
def test_ls_runs_unchanged_under_preload(tmp_path, args, status):
    """/bin/ls under the preload library: byte-identical stdout and stderr, the same exit
    status, a run file, and no double free or unknown free in it."""
    ls = shutil.which("ls")
    listed = tmp_path / "box" / "listed"  # its ".." is not where the run folder is made
    listed.mkdir(parents=True)
    for i in range(20):
        (listed / f"file-{i:02d}.txt").write_text("x" * i)
    argv = [ls, *args, str(listed), "/usr/bin"]
    plain = run_command(argv, env=clean_env({"LC_ALL": "C"}), cwd=tmp_path)
    proc, files = run_preloaded(tmp_path, argv, env={"LC_ALL": "C"})
    assert plain.returncode == status
    assert (proc.returncode, proc.stdout, proc.stderr) == (status, plain.stdout, plain.stderr)
    (run,) = [parse_run(f) for f in files]
    kinds = {r["Kind"] for r in run.memory}
    assert "region-bytes" in kinds
    assert not kinds & {"double-free", "unknown-free", "mismatch"}


@needs_preload
def test_preload_does_nothing_when_disabled(tmp_path):
    """PROFILER_ENABLE=0: the program runs as without the library (even its double free is
    then glibc's to catch, so memregions, which has none, is used) and no file is written."""
    proc, files = run_preloaded(tmp_path, [program("memregions")], env={"PROFILER_ENABLE": "0"})
    assert (proc.returncode, proc.stderr, files) == (0, b"", [])


# The header of the Memory sheet's tables of leak sites.
LEAK_HEADS = ("Site", "Function", "Runs", "Blocks", "Bytes", "Stack (allocation < caller < ...)")


def memory_sheet(path):
    """The Memory sheet's non-empty rows, as tuples."""
    ws = openpyxl.load_workbook(path)["Memory"]
    return [tuple(row) for row in ws.iter_rows(values_only=True)
            if any(v is not None for v in row)]


def test_memory_sheet_shows_each_runs_findings(tmp_path):
    """profreport's Memory sheet: the leak sites of both runs with a native chart of them, then
    each run's findings and bytes per region, equal to the run files' memory sections."""
    folder = fresh_dir(tmp_path)
    for name in ("memcheck", "memcheck_cxx"):
        proc = run_command([program(name)], env=clean_env({"PROFILER_DIR": str(folder)}),
                           cwd=tmp_path)
        assert proc.returncode == 0
    runs = [parse_run(f) for f in run_files(folder)]
    out = tmp_path / "report.xlsx"
    # Two programs: reported together on purpose.
    p = run_command([PROFREPORT, folder, "-o", out, "--no-gnuplot", "--all-programs"],
                    env=clean_env(), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    rows = memory_sheet(out)
    i = rows.index(LEAK_HEADS + (None,) * 6)
    leaks = [r for run in runs for r in run.memory if r["Kind"] == "leak"]
    want = sorted(((r["Site"], r["Function"] or None, 1, int(r["Count"]), int(r["Bytes"]),
                    r["Stack"] or None) for r in leaks),
                  key=lambda t: (-t[4], -t[3], t[0]))
    assert [r[:6] for r in rows[i + 1:i + 1 + len(want)]] == want
    for k, run in enumerate(runs, start=1):
        start = next(j for j, r in enumerate(rows) if str(r[0]).startswith(f"Run {k}: "))
        found = [r for r in run.memory if r["Kind"] != "region-bytes"]
        body = rows[start + 2:start + 2 + len(found)]
        for got, r in zip(body, found):
            assert got == (r["Kind"], int(r["Thread"]), r["Region"] or None, r["Site"],
                           int(r["Count"]), int(r["Bytes"]), r["AllocKind"] or None,
                           r["FreeKind"] or None, int(r["OtherThread"]) if r["OtherThread"]
                           else None, r["OtherSite"] or None, r["Function"] or None,
                           r["Stack"] or None)
        j = rows.index((f"Allocations per region, run {k}",) + (None,) * 11)
        per_region = {(r[0], r[1]): (r[2], r[3]) for r in rows[j + 2:j + 2 + 3]
                      if isinstance(r[2], int)}
        want_regions = {(reg or "(no region)", t): v
                        for (t, reg), v in region_bytes(run).items()}
        assert {k2: v for k2, v in per_region.items() if k2 in want_regions} == want_regions
    with zipfile.ZipFile(out) as z:
        charts = [z.read(n).decode() for n in z.namelist() if n.startswith("xl/charts/chart")]
    assert any("Memory!$E$" in c and "Largest leak sites" in c for c in charts)


def test_version_1_files_have_no_memory_sheet(tmp_path):
    """A run without a memory section (version 1, or no checks used) adds no Memory sheet."""
    _, run = run_once(tmp_path, "memregions")
    out = tmp_path / "r.xlsx"
    p = run_command([PROFREPORT, run.path, "-o", out, "--no-gnuplot"], env=clean_env(),
                    cwd=tmp_path)
    assert p.returncode == 0
    assert "Memory" not in openpyxl.load_workbook(out).sheetnames


def test_mem_free_result_lets_the_caller_skip_a_double_free(tmp_path):
    """PROFILER_MEM_FREE evaluates to prof_mem_free's answer: 0 for the first free, nonzero for
    the second, which the program then keeps from free() (glibc would abort on it); the run
    file has the double free. Built with -DPROFILER_DISABLE and without the library, the same
    source compiles without a warning, the macro is 0 and evaluates no argument."""
    proc, run = run_once(tmp_path, "memfree_result")
    assert proc.stdout == b"memfree_result: first 0 second 1 evaluations 2\n"
    src = "tests/programs/memfree_result.c"
    assert [(f["Kind"], f["Count"], f["Bytes"]) for f in findings_of(run)] == [
        ("double-free", "1", "32")]
    assert findings_of(run)[0]["Site"].startswith(src + ":")

    exe = tmp_path / "memfree_off"
    cc = os.environ.get("CC", "cc")
    build = subprocess.run([cc, "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2",
                            "-DPROFILER_DISABLE", f"-I{ROOT / 'include'}", ROOT / src, "-o",
                            exe], capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    symbols = subprocess.run(["nm", exe], capture_output=True, text=True, check=True).stdout
    assert not re.search(r"\bprof_", symbols), symbols
    off = run_command([exe], env=clean_env({}), cwd=tmp_path)
    assert off.returncode == 0 and off.stderr == b""
    assert off.stdout == b"memfree_result: first 0 second -1 evaluations 0\n"


def memsites(tmp_path, mode, env=None):
    """memsites MODE under the preload library, then profreport on its run: (run, terminal
    output, Memory sheet rows)."""
    proc, files = run_preloaded(tmp_path, [PLAIN / "memsites", mode], env=env)
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    (path,) = files
    out = tmp_path / "report.xlsx"
    p = run_command([PROFREPORT, path, "-o", out, "--no-gnuplot"], env=clean_env(), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    return parse_run(path), p.stdout.decode(), memory_sheet(out)


def table_after(rows, title_start):
    """The rows of the table of leak sites under the title starting with title_start."""
    i = next(k for k, r in enumerate(rows) if str(r[0]).startswith(title_start))
    assert rows[i + 1][:6] == LEAK_HEADS
    body = []
    for r in rows[i + 2:]:
        if r[0] is None or r[1:6] == (None,) * 5:
            break
        body.append(r[:6])
    return body


@needs_preload
def test_preload_names_a_leak_by_function_line_and_stack(tmp_path):
    """A block leaked three calls deep: the Memory sheet names its function and file:line and
    shows the stack to main; a copy strdup made is the leak of strdup's caller, at the line of
    the call. Lines come from the program's @markers."""
    run, _, rows = memsites(tmp_path, "leak")
    at = markers("tests/plain/memsites.c")
    top = table_after(rows, "Largest leak sites")
    assert [(os.path.basename(r[0]), r[1], r[2], r[3], r[4], r[5]) for r in top] == [
        (f"memsites.c:{at['ALLOC']}", "make_block", 1, 1, 48,
         f"make_block (memsites.c:{at['ALLOC']}) < build_table (memsites.c:{at['BUILD']}) "
         f"< main (memsites.c:{at['MAIN']})"),
        (f"memsites.c:{at['DUP']}", "keep_name", 1, 1, len("memsites") + 1,
         f"keep_name (memsites.c:{at['DUP']}) < main (memsites.c:{at['MAIN'] + 1})"),
    ]
    # The run file's Site is the source path as compiled, so it names the file uniquely.
    assert {r["Site"] for r in run.memory if r["Kind"] == "leak"} == {
        f"tests/plain/memsites.c:{at['ALLOC']}", f"tests/plain/memsites.c:{at['DUP']}"}


@needs_preload
@pytest.mark.parametrize("depth,frames", [("2", 2), ("0", 0)])
def test_preload_stack_depth_follows_profiler_mem_stack(tmp_path, depth, frames):
    """PROFILER_MEM_STACK=N keeps N return addresses per allocation; 0 keeps none (the site
    keeps its function and line)."""
    run, _, _ = memsites(tmp_path, "leak", env={"PROFILER_MEM_STACK": depth})
    at = markers("tests/plain/memsites.c")
    (leak,) = [r for r in run.memory if r["Kind"] == "leak" and r["Function"] == "make_block"]
    assert leak["Site"] == f"tests/plain/memsites.c:{at['ALLOC']}"
    want = [f"make_block (memsites.c:{at['ALLOC']})", f"build_table (memsites.c:{at['BUILD']})"]
    assert (leak["Stack"].split(" < ") if leak["Stack"] else []) == want[:frames]


@needs_preload
def test_runtime_blocks_are_not_the_programs_leaks(tmp_path):
    """memsites clean frees all it allocates but writes through stdio from two threads: the
    C library's stdio buffers and the loader's thread data stay to the end. They are
    runtime-reachable, apart from the leaks: none in the totals, the chart or the terminal's
    leak line (valgrind calls the same program clean: see the test below)."""
    run, out, rows = memsites(tmp_path, "clean")
    kinds = [r["Kind"] for r in run.memory if r["Kind"] != "region-bytes"]
    assert "leak" not in kinds and "runtime-reachable" in kinds
    assert set(kinds) == {"runtime-reachable"}
    functions = {r["Function"] for r in run.memory if r["Kind"] == "runtime-reachable"}
    assert "_IO_file_doallocate" in functions  # stdout's buffer
    assert table_after(rows, "Largest leak sites") == []
    i = next(k for k, r in enumerate(rows) if str(r[0]).startswith("Largest leak sites"))
    assert rows[i][0].endswith("(top 0 of 0)") and rows[i + 2][0] == "no leaks"
    runtime = table_after(rows, "Runtime, still reachable at exit")
    assert {r[1] for r in runtime} == functions
    lines = [l for l in out.splitlines() if l.startswith("memory:")]
    nblocks = sum(int(r["Count"]) for r in run.memory if r["Kind"] == "runtime-reachable")
    nbytes = sum(int(r["Bytes"]) for r in run.memory if r["Kind"] == "runtime-reachable")
    assert lines == [
        f"memory:   runtime, still reachable at exit: {nblocks} block{'s' * (nblocks != 1)}, "
        f"{nbytes} bytes at {len(runtime)} site{'s' * (len(runtime) != 1)} (the loader's and "
        "C/C++ libraries' own: not leaks)"]


@needs_preload
def test_terminal_has_one_line_per_kind_of_finding(tmp_path):
    """memplain's findings on the terminal, one line each, with the numbers the program
    commits (by hand: a leak of 100 bytes, a double free of 200, one unknown free, a
    cross-thread free of 3 * 100), and the loader's thread data apart."""
    proc, files = run_preloaded(tmp_path, [PLAIN / "memplain", "0"])
    p = run_command([PROFREPORT, *files, "-o", tmp_path / "r.xlsx", "--no-gnuplot"],
                    env=clean_env(), cwd=tmp_path)
    assert p.returncode == 0, p.stderr
    lines = [l for l in p.stdout.decode().splitlines() if l.startswith("memory:")]
    assert lines[0] == "memory:   leaks: 1 block, 100 bytes at 1 site"
    assert lines[1].startswith("memory:   runtime, still reachable at exit: 1 block, ")
    assert lines[2:] == [
        "memory:   double frees: 1 free, 200 bytes at 1 site (refused: the program ran on)",
        "memory:   frees of unknown pointers: 1 free, 0 bytes at 1 site",
        "memory:   cross-thread frees: 1 free, 300 bytes at 1 site (legal)",
    ]


@needs_preload
@pytest.mark.skipif(shutil.which("valgrind") is None, reason="valgrind is not installed")
@pytest.mark.parametrize("mode", ["leak", "clean"])
def test_leaks_agree_with_valgrind(tmp_path, mode):
    """valgrind --leak-check=full's definitely lost blocks and bytes are our leaks' (memsites
    leak: two; memsites clean: none, though the runtime keeps blocks to the end)."""
    vg = subprocess.run(["valgrind", "--leak-check=full", PLAIN / "memsites", mode],
                        capture_output=True, text=True, env=clean_env(), cwd=tmp_path)
    assert vg.returncode == 0, vg.stderr
    m = re.search(r"definitely lost: ([\d,]+) bytes in ([\d,]+) blocks", vg.stderr)
    lost = (int(m.group(2).replace(",", "")), int(m.group(1).replace(",", ""))) if m else (0, 0)
    if not m:
        assert "no leaks are possible" in vg.stderr, vg.stderr
    run, _, _ = memsites(tmp_path, mode)
    leaks = [r for r in run.memory if r["Kind"] == "leak"]
    assert (sum(int(r["Count"]) for r in leaks), sum(int(r["Bytes"]) for r in leaks)) == lost
