"""test_suggest.py - the loop `profreport --suggest-exclude` closes for gcc: a program built with
gcc -finstrument-functions, where a tiny function inlined into a loop is called millions of
times, runs under libprofreport-auto; the reporter writes a gcc options file; the program
rebuilt with `gcc @FILE` no longer calls the hooks for that function (it vanishes from the run
file) while every other function keeps its exact count. The counts are known from the
program's loops, not from profreport's output."""

import os
import shlex
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from conftest import BUILD, INCLUDE, SAN, clean_env, parse_run, run_command, run_files
from reporter_helpers import Book, must_run, profreport

N = 2_000_000  # tiny's calls; step gets N // 2, medium 40, stepper 1, main 1

SOURCE = r"""
#include <stdio.h>
#include <stdlib.h>

/* hot and tiny, inlined into its loop: gcc hooks each inlined call */
static unsigned tiny(unsigned x) { return x * 2654435761u + 1; }
/* hot and tiny too, but its name is part of stepper's: gcc cannot be told of it alone */
__attribute__((noinline)) static unsigned step(unsigned x) { return x ^ (x >> 3); }
/* long calls */
__attribute__((noinline)) static unsigned stepper(unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s = s * 33 + (i ^ (s >> 5));
    return s;
}
__attribute__((noinline)) static unsigned medium(unsigned n)
{
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s = s * 31 + (i ^ (s >> 7));
    return s;
}

int main(int argc, char **argv)
{
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 1000;
    unsigned s = 0;
    for (unsigned i = 0; i < n; i++)
        s = tiny(s + i);
    for (unsigned i = 0; i < n / 2; i++)
        s = step(s + i);
    for (int i = 0; i < 40; i++)
        s += medium(400000);
    s += stepper(4000000);
    printf("%u\n", s);
    return 0;
}
"""


# Calls that wait (a lock, I/O) take few CPU samples, but their calls are long: not tiny.
WAIT_SOURCE = r"""
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) static unsigned tiny(unsigned x) { return x * 2654435761u + 1; }
__attribute__((noinline)) static void waits(void)
{
    struct timespec ts = {0, 50000};
    nanosleep(&ts, NULL);
}
/* CPU time of the program's own that does not hang on the kernel's cost of a sleep (6 to 32 us
   of CPU time each, seen on two machines), so that tiny's share stays near a tenth */
__attribute__((noinline)) static void burn(void)
{
    volatile unsigned v = 0;
    for (unsigned i = 0; i < 20000; i++)
        v += i;
}

int main(void)
{
    unsigned s = 0;
    for (unsigned i = 0; i < 800; i++) {
        waits();
        burn();
        for (unsigned k = 0; k < 1000; k++)
            s = tiny(s + k);
    }
    printf("%u\n", s);
    return 0;
}
"""


def build(tmp_path, name, *flags, source=SOURCE):
    """The program built with gcc -O2 -g -finstrument-functions and flags, linked with
    libprofreport-auto. In a sanitizer run the collector is sanitized but the program's own code
    is not: a sanitizer's per-function instrumentation (TSan's entry and exit calls) would make
    tiny as long as medium's loop iterations, and the thresholds judge the program's times."""
    src = tmp_path / ("hot.c" if source is SOURCE else f"{name}.c")
    src.write_text(source)
    exe = tmp_path / name
    obj = tmp_path / f"{name}.o"
    res = subprocess.run(["gcc", "-O2", "-g", "-finstrument-functions", *flags, f"-I{INCLUDE}",
                          "-c", str(src), "-o", str(obj)],
                         capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    san = [f"-fsanitize={SAN}"] if SAN else []
    res = subprocess.run(["gcc", *san, str(obj), "-o", str(exe), f"-L{BUILD}",
                          f"-Wl,-rpath,{BUILD}", "-lprofreport-auto", "-pthread"],
                         capture_output=True, text=True, cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    return exe


def calls(exe, folder):
    """Run exe (summary mode, the default) and add up its run file's calls per region."""
    proc = run_command([exe, N], env=clean_env({"PROFILER_DIR": str(folder)}))
    assert proc.returncode == 0, proc.stderr
    files = run_files(folder)
    assert len(files) == 1
    run = parse_run(files[0])
    out = Counter()
    for r in run.rows:
        out[r["Region"]] += int(r["Calls"])
    return out, proc.stdout


# The thread-sanitized hooks call TSan's runtime, which is outside the hooks' code: its samples
# land in the program's functions (tiny takes 48 ns a call there) and move the time shares the
# thresholds judge. The address-sanitized run keeps them.
TIMES_KEPT = pytest.mark.skipif(SAN == "thread", reason="TSan's runtime time lands in functions")


@TIMES_KEPT
def test_the_suggested_options_take_the_tiny_function_out_of_a_rebuild(tmp_path):
    exe = build(tmp_path, "first")
    first, out1 = calls(exe, tmp_path / "runs1")
    assert first == {"main": 1, "tiny": N, "step": N // 2, "medium": 40, "stepper": 1}

    # Without the option, one line says what the option would do.
    p = must_run("--no-gnuplot", tmp_path / "runs1", "-o", tmp_path / "r1.xlsx")
    hint = [l for l in p.stdout.decode().splitlines() if "--suggest-exclude" in l]
    assert len(hint) == 1 and "2 tiny functions" in hint[0], p.stdout.decode()

    opts = tmp_path / "exclude.opt"
    p = must_run("--no-gnuplot", tmp_path / "runs1", "-o", tmp_path / "r1.xlsx",
                 "--suggest-exclude", opts)
    text = p.stdout.decode()
    # gcc is told of tiny alone: "step" would also match stepper, which is kept.
    assert opts.read_text() == "-finstrument-functions-exclude-function-list=tiny\n"
    assert "PROFILER_EXCLUDE='tiny,step'" in text, text
    assert "'step' would also leave out stepper" in text, text

    exe2 = build(tmp_path, "second", f"@{opts}")
    second, out2 = calls(exe2, tmp_path / "runs2")
    assert out2 == out1  # the same program
    assert "tiny" not in second
    assert second == {k: v for k, v in first.items() if k != "tiny"}

    # The next round with the same file keeps tiny (it ran without hooks, so this run cannot
    # judge it) and adds nothing: step still cannot be named alone.
    p = must_run("--no-gnuplot", tmp_path / "runs2", "-o", tmp_path / "r2.xlsx",
                 "--suggest-exclude", opts)
    assert opts.read_text() == "-finstrument-functions-exclude-function-list=tiny\n"
    assert "keeps the 1 name it listed" in p.stdout.decode(), p.stdout.decode()

    # At run time instead: the PROFILER_EXCLUDE line the reporter printed leaves out both.
    line = next(l for l in text.splitlines() if "PROFILER_EXCLUDE=" in l)
    value = shlex.split(line[line.index("PROFILER_EXCLUDE="):])[0].split("=", 1)[1]
    proc = run_command([exe, N], env=clean_env({"PROFILER_DIR": str(tmp_path / "runs3"),
                                                 "PROFILER_EXCLUDE": value}))
    assert proc.returncode == 0
    run = parse_run(run_files(tmp_path / "runs3")[0])
    third = Counter()
    for r in run.rows:
        third[r["Region"]] += int(r["Calls"])
    # tiny and step have rows only for the samples that landed in their code: no calls
    assert +third == {"main": 1, "medium": 40, "stepper": 1}


@TIMES_KEPT
def test_a_run_without_tiny_hot_functions_suggests_nothing(tmp_path):
    exe = build(tmp_path, "first")
    # Few calls: the hooks cost nothing worth a line, though tiny and step are still short.
    proc = run_command([exe, 10], env=clean_env({"PROFILER_DIR": str(tmp_path / "few")}))
    assert proc.returncode == 0
    p = must_run("--no-gnuplot", tmp_path / "few", "-o", tmp_path / "r.xlsx")
    assert "--suggest-exclude" not in p.stdout.decode()
    # The tiny functions left out at run time: only long ones remain, nothing to suggest.
    proc = run_command([exe, N], env=clean_env({"PROFILER_DIR": str(tmp_path / "long"),
                                                 "PROFILER_EXCLUDE": "tiny,step"}))
    assert proc.returncode == 0
    opts = tmp_path / "exclude.opt"
    p = must_run("--no-gnuplot", tmp_path / "long", "-o", tmp_path / "r.xlsx")
    assert "--suggest-exclude" not in p.stdout.decode()
    p = must_run("--no-gnuplot", tmp_path / "long", "-o", tmp_path / "r.xlsx",
                 "--suggest-exclude", opts)
    assert opts.read_text() == ""
    assert "nothing to leave out" in p.stdout.decode()


@TIMES_KEPT
def test_functions_that_wait_or_cost_their_hooks_nothing_are_not_suggested(tmp_path):
    """pigz's lock and I/O functions were suggested as tiny (no CPU sample landed in them)
    though their timed calls took microseconds, and so were functions whose hooks cost the
    program under 1 % of its time: a round gained nothing and hid them."""
    exe = build(tmp_path, "waits", source=WAIT_SOURCE)
    # the perf event named: its 800 sleeps are a switch per 10-20 us of CPU time, for which the
    # chosen sampler trades the event for the CPU-time timer, whose few looks in a short run
    # could miss tiny altogether (test_sampling); tiny makes about a tenth of the CPU time or
    # less (burn's work keeps it there where a sleep costs the kernel little CPU: alone with
    # waits it read 29 % on CI's machine), well below the quarter past which a function is no
    # longer suggested
    proc = run_command([exe], env=clean_env({"PROFILER_DIR": str(tmp_path / "w"),
                                             "PROFILER_SAMPLER": "perf"}))
    assert proc.returncode == 0
    opts = tmp_path / "w.opt"
    p = must_run("--no-gnuplot", tmp_path / "w", "-o", tmp_path / "w.xlsx",
                 "--suggest-exclude", opts)
    assert opts.read_text() == "-finstrument-functions-exclude-function-list=tiny\n", (
        p.stdout.decode())
    # Few calls of the tiny functions (2,000 and 1,000: enough that most are only counted, at
    # their sampled time, and not the first ones' timed cost), whose hooks cost about 0.2 % of
    # the program's time: nothing worth a round.
    exe = build(tmp_path, "first")
    proc = run_command([exe, 2000], env=clean_env({"PROFILER_DIR": str(tmp_path / "few")}))
    assert proc.returncode == 0
    opts = tmp_path / "few.opt"
    p = must_run("--no-gnuplot", tmp_path / "few", "-o", tmp_path / "r.xlsx",
                 "--suggest-exclude", opts)
    assert opts.read_text() == ""
    text = p.stdout.decode()
    assert "but their hooks cost under 1% of the program's own time: nothing worth leaving out" \
        in text, text
    # a threshold given is the user's judgement: the list is made however little they cost
    p = must_run("--no-gnuplot", tmp_path / "few", "-o", tmp_path / "r.xlsx",
                 "--suggest-exclude", opts, "--suggest-max-cost", "100000")
    assert opts.read_text().startswith("-finstrument-functions-exclude-function-list="), (
        p.stdout.decode())
    assert "nothing worth leaving out" not in p.stdout.decode()


def test_a_file_that_is_not_a_suggestion_is_not_replaced(tmp_path):
    exe = build(tmp_path, "first")
    proc = run_command([exe, N], env=clean_env({"PROFILER_DIR": str(tmp_path / "runs")}))
    assert proc.returncode == 0
    mine = tmp_path / "flags.opt"
    mine.write_text("-O2 -g\n")
    p = profreport("--no-gnuplot", tmp_path / "runs", "-o", tmp_path / "r.xlsx",
                   "--suggest-exclude", mine)
    assert p.returncode == 4, p.stderr
    assert "is not a --suggest-exclude file" in p.stderr.decode()
    assert mine.read_text() == "-O2 -g\n"
    assert not (tmp_path / "r.xlsx").exists()  # refused before any work


@TIMES_KEPT
def test_the_next_round_at_run_time_keeps_what_this_one_left_out(tmp_path):
    """The loop without rebuilding (clang's way): a run with PROFILER_EXCLUDE=tiny names it in
    its Exclude record; the report says so on the Summary sheet, and the PROFILER_EXCLUDE line
    it suggests for the next run keeps tiny before adding step, so each round's line can be
    pasted as it is. The names left out at run time cost no hooks (patched out): they are in
    no row."""
    exe = build(tmp_path, "first")
    folder = tmp_path / "runs"
    proc = run_command([exe, N], env=clean_env({"PROFILER_DIR": str(folder),
                                                "PROFILER_EXCLUDE": " tiny"}))
    assert proc.returncode == 0, proc.stderr
    (path,) = run_files(folder)
    run = parse_run(path)
    assert run.value("Exclude") == " tiny"
    assert {r["Region"] for r in run.rows if int(r["Calls"])} == {"main", "step", "medium",
                                                                   "stepper"}
    p = must_run("--no-gnuplot", folder, "-o", tmp_path / "r.xlsx", "--suggest-exclude",
                 tmp_path / "next.opt")
    text = p.stdout.decode()
    line = next(l for l in text.splitlines() if "PROFILER_EXCLUDE=" in l)
    assert "with what these runs left out" in line, line
    # What leaving step out does to the profile: sampled, its time stays step's, left out
    # at build time or at run time.
    cost = next(l for l in text.splitlines() if "their hooks cost about" in l)
    assert ("time stays theirs (calls not counted) when gcc or PROFILER_EXCLUDE leaves them out"
            in cost), cost
    assert line.endswith("PROFILER_EXCLUDE='tiny,step'"), line
    summary = Book(tmp_path / "r.xlsx").summary()
    assert summary["Left out (PROFILER_EXCLUDE)"].startswith("tiny (1 of 1 run): "), summary
    assert "Only (PROFILER_INCLUDE)" not in summary


@TIMES_KEPT
def test_the_suggested_list_leaves_the_tiny_functions_out_at_run_time(tmp_path):
    """--suggest-list FILE: the same functions as a list for PROFILER_EXCLUDE=@FILE, for either
    compiler and no rebuild. The next run with it counts neither tiny nor step, every other
    function exactly as its loops say, and names them in its Exclude record; a second round
    keeps the list's globs and has nothing to add; a file that is not such a list is refused
    before any work and left as it was."""
    exe = build(tmp_path, "first")
    listing = tmp_path / "hot.list"
    p = must_run("--no-gnuplot", *_runs(exe, tmp_path / "runs"), "-o", tmp_path / "r.xlsx",
                 "--suggest-list", listing)
    text = p.stdout.decode()
    assert f"suggest: {listing}: for either compiler, without rebuilding" in text, text
    assert f"PROFILER_EXCLUDE=@{listing}" in text
    assert "PROFILER_EXCLUDE='" not in text  # the list replaces the line to paste
    lines = listing.read_text().splitlines()
    assert lines[0].startswith("# profreport --suggest-list: PROFILER_EXCLUDE=@FILE")
    globs = [l for l in lines if not l.startswith("#")]
    assert sorted(globs) == ["step", "tiny"], lines
    # the next round, with the list
    folder = tmp_path / "next"
    proc = run_command([exe, N], env=clean_env({"PROFILER_DIR": str(folder),
                                                "PROFILER_EXCLUDE": f"@{listing}"}))
    assert proc.returncode == 0 and proc.stderr == b"", proc.stderr
    (path,) = run_files(folder)
    run = parse_run(path)
    assert sorted(run.value("Exclude").split(",")) == ["step", "tiny"]
    counted = Counter()
    for r in run.rows:
        counted[r["Region"]] += int(r["Calls"])
    assert {k: v for k, v in counted.items() if v} == {"main": 1, "medium": 40, "stepper": 1}
    before = listing.read_text()
    p = must_run("--no-gnuplot", folder, "-o", tmp_path / "r2.xlsx", "--suggest-list", listing)
    text = p.stdout.decode()
    assert f"suggest: {listing}: keeps the 2 globs it listed" in text, text
    assert f"suggest: {listing}: nothing more to leave out" in text, text
    assert listing.read_text() == before
    # not a list of ours
    mine = tmp_path / "mine.list"
    mine.write_text("# my own\ntiny\n")
    p = profreport("--no-gnuplot", folder, "-o", tmp_path / "r3.xlsx", "--suggest-list", mine)
    assert p.returncode == 4, p.stderr
    assert "is not a --suggest-list file" in p.stderr.decode()
    assert mine.read_text() == "# my own\ntiny\n"
    assert not (tmp_path / "r3.xlsx").exists()
    p = profreport("--no-gnuplot", folder, "-o", tmp_path / "r3.xlsx", "--suggest-list", mine,
                   "--suggest-exclude", mine)
    assert p.returncode == 2 and b"need two files" in p.stderr, p.stderr


def _runs(exe, folder):
    """Run exe once into folder; [folder]."""
    proc = run_command([exe, N], env=clean_env({"PROFILER_DIR": str(folder)}))
    assert proc.returncode == 0, proc.stderr
    return [folder]


@pytest.mark.parametrize("option", ["--suggest-exclude", "--suggest-list"])
def test_a_suggestion_file_that_cannot_be_written_stops_before_the_report(tmp_path, option):
    """A suggestion file in a folder that does not exist: said before any work (its temporary
    is made with the other outputs'), status 4, and no workbook, no charts, no temporary left;
    before, the workbook was written and then the suggestion failed."""
    exe = build(tmp_path, "first")
    folder = _runs(exe, tmp_path / "runs")[0]
    out = tmp_path / "r.xlsx"
    p = profreport(folder, "-o", out, option, tmp_path / "none" / "hot.txt")
    assert p.returncode == 4, p.stderr
    assert p.stderr.decode() == f"profreport: cannot write '{tmp_path / 'none' / 'hot.txt'}': " \
                                "No such file or directory\n"
    assert sorted(os.listdir(tmp_path)) == ["first", "first.o", "hot.c", "runs"]
