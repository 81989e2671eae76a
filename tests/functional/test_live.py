"""test_live.py - the live per-thread report (PROFILER_REPORT_INTERVAL) and module API
profiling (PROFILER_API), with a program whose time split is known: half of its busy threads'
time is in the region "half"."""
import re

from conftest import run_program

LINE = re.compile(r'^TID 0x([0-9a-f]+) time spent in "(.*)": (\d+)/(\d+) ms (\d+\.\d)% (\d+)x$')


def live_run(tmp_path, interval):
    """Run the live program for 1.6 s; returns (process, parsed report lines, run files)."""
    env = {"PROFILER_REPORT_INTERVAL": interval} if interval else {}
    done, files = run_program(tmp_path, "live", "1.6", env=env)
    done.stdout, done.stderr = done.stdout.decode(), done.stderr.decode()
    lines = done.stderr.splitlines()
    parsed = []
    for line in lines:
        m = LINE.match(line)
        assert m, f"report line not in the documented shape: {line!r}"
        tid, region, ms, total, pct, calls = m.groups()
        parsed.append((int(tid, 16), region, int(ms), int(total), float(pct), int(calls)))
    return done, parsed, files


def test_live_report_shows_the_known_share_per_thread(tmp_path):
    """With a 0.5 s interval, each busy thread reports 'half' at about 50 % of its time, at
    least twice, in the seed's line shape, and the quiet thread prints nothing."""
    done, lines, _ = live_run(tmp_path, "0.5")
    quiet = int(re.search(r"^quiet (\d+)$", done.stdout, re.M).group(1))
    half = [l for l in lines if l[1] == "half"]
    tids = {l[0] for l in half}
    assert len(tids) == 2
    assert quiet not in {l[0] for l in lines}
    for tid in tids:
        mine = [l for l in half if l[0] == tid]
        assert len(mine) >= 2
        for _, _, ms, total, pct, calls in mine:
            assert total >= 400  # at least most of an interval
            assert 25.0 <= pct <= 75.0, f"expected about 50 %, got {pct}"
            assert abs(pct - 100.0 * ms / total) < 1.0
            assert calls > 0


def test_module_region_counts_outermost_entries_once(tmp_path):
    """The module's public functions call each other, yet each thread's report counts one
    'alloc' call per loop (the outermost entry), like 'half'; the run file agrees."""
    done, lines, files = live_run(tmp_path, "0.5")
    by_key = {}
    for tid, region, _, total, _, calls in lines:
        by_key.setdefault((tid, total), {})[region] = calls
    compared = 0
    for regions in by_key.values():
        if "half" in regions and "alloc" in regions:
            assert abs(regions["alloc"] - regions["half"]) <= 1
            compared += 1
    assert compared >= 2
    loops = sum(int(n) for n in re.findall(r"^loops (\d+)$", done.stdout, re.M))
    text = files[0].read_text()
    assert sum(1 for row in text.splitlines() if row.startswith("alloc,")) == loops
    assert sum(1 for row in text.splitlines() if row.startswith("half,")) == loops


def test_no_live_report_unless_asked(tmp_path):
    """Without PROFILER_REPORT_INTERVAL the program's stderr stays empty."""
    done, lines, _ = live_run(tmp_path, None)
    assert lines == [] and done.stderr == ""


def test_bad_interval_is_one_warning(tmp_path):
    """A value that is not a number of seconds gives one warning and no report."""
    done, _ = run_program(tmp_path, "live", "0.3", env={"PROFILER_REPORT_INTERVAL": "soon"})
    err = done.stderr.decode()
    assert err.count("profreport:") == 1
    assert "PROFILER_REPORT_INTERVAL" in err


def test_module_api_in_cxx_survives_exceptions(tmp_path):
    """C++ PROFILER_API: 21 outermost entries (20 store_sum, 1 store_get) give 21 'store' rows,
    none nested in another 'store', and the 10 exceptions thrown from the nested call leave
    nothing open (no warnings)."""
    done, files = run_program(tmp_path, "api_cxx")
    assert done.stdout.decode().strip().endswith("caught 10")
    text = files[0].read_text()
    rows = [r for r in text.splitlines() if r.startswith("store,")]
    assert len(rows) == 21
    assert sum(1 for r in rows if r.split(",")[3] == "caller") == 20
    assert "Warning" not in text


def test_module_api_compiles_out(tmp_path):
    """With -DPROFILER_DISABLE the module macros vanish: the C and C++ programs build without
    the library and reference no prof_ symbol."""
    import os
    import subprocess
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    for src, compiler in (("live.c", "cc"), ("api_cxx.cpp", "c++")):
        exe = tmp_path / src.split(".")[0]
        subprocess.run([compiler, "-Wall", "-Wextra", "-Werror", "-DPROFILER_DISABLE",
                        "-I", str(root / "include"), str(root / "tests/programs" / src),
                        "-o", str(exe), "-pthread"], check=True)
        symbols = subprocess.run(["nm", str(exe)], capture_output=True, text=True,
                                 check=True).stdout
        assert "prof_" not in symbols
        assert os.path.getsize(exe) > 0
