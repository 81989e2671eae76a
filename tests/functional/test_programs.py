"""test_programs.py - runs that don't belong together: a folder holding runs of several programs
is reported one program at a time (the one whose runs took the most time, then the one with the
most runs, unless --program names another,
or all together with --all-programs), and the terminal and the Summary sheet say so; runs of one
program from different hosts, clocks or tick rates are flagged.

The real test programs idle and threads give the runs of two programs; hand-written run files
(docs/FORMAT.md) give the cases a real run cannot (another host, two programs of one name).
"""

import os
import re

from conftest import program, run_program
from reporter_helpers import Book, csv_bytes, must_run, profreport


def summary_value(book, label):
    """The Summary sheet's value beside label, or None."""
    for row in book.rows("Summary"):
        if row and row[0] == label:
            return row[1]
    return None


def regions(book):
    """The region names of the Call cost sheet."""
    return {r["Region"] for r in book.table("Call cost")[1]}


def two_programs(tmp_path):
    """A folder with one run of idle, at least 160 ms (40 ms spinning, 120 ms asleep), and two
    short ones of threads (a few ms each, under a sanitizer too)."""
    folder = tmp_path / "runs"
    run_program(tmp_path, "idle", "40", profile_dir=folder)
    for _ in range(2):
        run_program(tmp_path, "threads", "2", "5", profile_dir=folder)
    return folder


# A program's runs and the time they took, as the terminal and the Summary name them.
TIME = r"\d+(\.\d+)? (us|ms|s)"


def test_the_program_whose_runs_took_longest_is_reported_and_the_others_named(tmp_path):
    """The one long run wins over two short ones of another program: a folder where ./configure
    left its conftest programs' runs beside the program's own reports the program."""
    folder = two_programs(tmp_path)
    idle, threads = os.path.realpath(program("idle")), os.path.realpath(program("threads"))
    out = tmp_path / "r.xlsx"
    p = must_run(folder, "-o", out, "--no-gnuplot")
    text = p.stdout.decode()
    assert re.search(f"2 programs in the input; this report is of {re.escape(idle)} "
                     f"\\(1 run, {TIME}\\)\n", text), text
    assert re.search(f"left out: {re.escape(threads)} \\(2 runs, {TIME}\\)\n", text), text
    assert "--program NAME" in text
    book = Book(out)
    assert regions(book) == {"main-setup", "spin", "wait"}
    assert [r["Program"] for r in book.table("Runs")[1]] == [idle]
    programs = summary_value(book, "Programs")
    assert re.match(f"2 programs in the input; reported: {re.escape(idle)} \\(1 run, {TIME}\\); "
                    f"left out: {re.escape(threads)} \\(2 runs, {TIME}\\)", programs), programs


def test_program_picks_another_by_its_name_or_path(tmp_path):
    folder = two_programs(tmp_path)
    idle, threads = os.path.realpath(program("idle")), os.path.realpath(program("threads"))
    for name in ("threads", threads):
        out = tmp_path / "r.xlsx"
        p = must_run(folder, "-o", out, "--no-gnuplot", "--program", name)
        assert f"this report is of {threads} (2 runs, " in p.stdout.decode()
        book = Book(out)
        assert regions(book) == {"main-setup", "work", "main-after"}
        assert re.match(f"2 programs in the input; reported: {re.escape(threads)} "
                        f"\\(2 runs, {TIME}\\); left out: {re.escape(idle)} \\(1 run, {TIME}\\)",
                        summary_value(book, "Programs"))


def test_unknown_program_is_an_error_naming_the_programs_present(tmp_path):
    folder = two_programs(tmp_path)
    out = tmp_path / "r.xlsx"
    p = profreport(folder, "-o", out, "--no-gnuplot", "--program", "lua")
    assert p.returncode == 3
    err = p.stderr.decode()
    assert "no run of program 'lua'" in err
    # the longer-running program first
    assert re.search(f"{re.escape(os.path.realpath(program('idle')))} \\(1 run, {TIME}\\), "
                     f"{re.escape(os.path.realpath(program('threads')))} \\(2 runs, {TIME}\\)",
                     err), err
    assert not out.exists()


def test_all_programs_merges_them_and_says_so(tmp_path):
    folder = two_programs(tmp_path)
    out = tmp_path / "r.xlsx"
    p = must_run(folder, "-o", out, "--no-gnuplot", "--all-programs")
    assert "2 programs merged (--all-programs)" in p.stdout.decode()
    book = Book(out)
    assert regions(book) == {"main-setup", "spin", "wait", "work", "main-after"}
    assert summary_value(book, "Programs").startswith("2 programs merged (--all-programs)")
    assert profreport(folder, "--program", "idle", "--all-programs").returncode == 2


def run_file(folder, name, prog, host="h1", clock="tsc", frequency=1000000000, region="work"):
    """A hand-written run file of one events row."""
    records = [["Frequency", frequency], ["Format", "profreport-run", 3], ["Mode", "events"],
               ["Program", prog], ["Host", host], ["Clock", clock], ["Threads", 1],
               ["Thread", 1, 7, "main", "exited"],
               ["Region", "Ticks", "Thread", "Parent", "Depth", "Self", "Start", "Nested"],
               [region, 5000, 1, "", 0, 5000, 0, 0]]
    path = folder / name
    path.write_bytes(csv_bytes(records))
    return path


def test_one_name_for_two_programs_needs_the_whole_path(tmp_path):
    run_file(tmp_path, "profiling_1.csv", "/build-a/app", region="a")
    run_file(tmp_path, "profiling_2.csv", "/build-b/app", region="b")
    p = profreport(tmp_path, "--program", "app", "-o", tmp_path / "r.xlsx")
    assert p.returncode == 2
    assert "'/build-a/app', '/build-b/app'" in p.stderr.decode()
    out = tmp_path / "r.xlsx"
    must_run(tmp_path, "--program", "/build-b/app", "-o", out, "--no-gnuplot")
    assert regions(Book(out)) == {"b"}
    # A tie between two programs: the first met (in name order) is reported.
    must_run(tmp_path, "-o", out, "--no-gnuplot")
    assert regions(Book(out)) == {"a"}


def test_runs_from_other_hosts_clocks_and_tick_rates_are_flagged(tmp_path):
    run_file(tmp_path, "profiling_1.csv", "/bin/app", frequency=2000000000)
    run_file(tmp_path, "profiling_2.csv", "/bin/app", frequency=2001000000)
    out = tmp_path / "r.xlsx"
    p = must_run(tmp_path, "-o", out, "--no-gnuplot")
    # Alike: one host, one clock, rates 0.05 % apart: nothing to say.
    assert "note:" not in p.stdout.decode()
    assert summary_value(Book(out), "Runs unlike each other") is None
    assert summary_value(Book(out), "Program") == "/bin/app (2 runs)"

    run_file(tmp_path, "profiling_3.csv", "/bin/app", host="h2", frequency=3000000000)
    run_file(tmp_path, "profiling_4.csv", "/bin/app", clock="monotonic")
    p = must_run(tmp_path, "-o", out, "--no-gnuplot")
    text = p.stdout.decode()
    want = ("runs from different hosts: h1 (3 runs), h2 (1 run); different clocks: tsc (3 runs), "
            "monotonic (1 run); tick rates of the tsc clock differ by 50.0 % "
            "(2000000000 to 3000000000 Hz)")
    assert f"note: {want}\n" in text
    assert summary_value(Book(out), "Runs unlike each other") == want


def test_seed_form_runs_go_with_the_program_reported(tmp_path):
    run_file(tmp_path, "profiling_1.csv", "/bin/app", region="a")
    run_file(tmp_path, "profiling_2.csv", "/bin/app", region="a")
    run_file(tmp_path, "profiling_3.csv", "/bin/other", region="b")
    (tmp_path / "seed.csv").write_bytes(b"Frequency,1000000\ncold,250\n")
    out = tmp_path / "r.xlsx"
    must_run(tmp_path, "-o", out, "--no-gnuplot")
    book = Book(out)
    assert regions(book) == {"a", "cold"}
    assert summary_value(book, "Programs").endswith(
        "; with 1 run that names no program (seed form)")


def test_program_picks_on_each_side_of_a_comparison(tmp_path):
    base, new = tmp_path / "base", tmp_path / "new"
    base.mkdir()
    new.mkdir()
    for k in range(2):
        run_file(base, f"profiling_a{k}.csv", "/old/a", region="x")
        run_file(new, f"profiling_a{k}.csv", "/new/a", region="x")
    for k in range(3):
        run_file(base, f"profiling_b{k}.csv", "/old/b", region="y")
    out = tmp_path / "r.xlsx"
    # The last path component names the same program in two builds.
    p = must_run("--program", "a", "-o", out, "--no-gnuplot", "--baseline", base, "--", new)
    assert "baseline: 2 runs, new: 2 runs; 1 region in both" in p.stdout.decode()
    p = profreport("--program", "b", "-o", out, "--no-gnuplot", "--baseline", base, "--", new)
    assert p.returncode == 3
    assert "no run of program 'b'" in p.stderr.decode()
