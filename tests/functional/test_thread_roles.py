"""test_thread_roles.py - an unnamed thread's role (docs/FORMAT.md 1.2): what it runs below the
trampoline that starts it, written in its Thread record, shown on the Threads sheet and used to
key its per-thread columns, so that runs whose threads started in another order still agree.

tests/programs/auto/roles.c starts a reader and a writer through one trampoline, start(), in
the order its first argument gives, each joined before the next starts: the reader calls
step() 1,000 times and note() 250 times, the writer step() and note() 2,000 times each.
"""

from conftest import clean_env, fresh_dir, parse_run, run_program
from reporter_helpers import Book, must_run


def thread_records(run):
    """{thread number: (name, role or None)} from a run's Thread records."""
    return {r[0]: (r[2], r[4] if len(r) > 4 else None) for r in run.values("Thread")}


def test_each_unnamed_thread_is_keyed_by_what_it_runs(tmp_path):
    folder = fresh_dir(tmp_path)
    runs = {}
    for order in ("rw", "wr"):
        _, files = run_program(tmp_path, "auto/roles", order, profile_dir=folder)
        new = [f for f in files if f.name not in runs.values()]
        assert len(new) == 1
        runs[order] = new[0].name
    threads = {o: thread_records(parse_run(folder / f)) for o, f in runs.items()}
    # thread numbers follow the start order; the role follows the job: below start(), whose
    # only child is the job, which calls two functions that call none; a named thread (main)
    # has its name, and no role
    assert threads["rw"] == {"1": ("main", None), "2": ("", "reader"), "3": ("", "writer")}
    assert threads["wr"] == {"1": ("main", None), "2": ("", "writer"), "3": ("", "reader")}

    out = tmp_path / "roles.xlsx"
    must_run(folder, "-o", out, "--no-gnuplot", env=clean_env())
    book = Book(out)
    _, rows = book.table("Threads")
    assert sorted((r["Name"] or "", r["Role"] or "") for r in rows) == sorted(
        [("main", "")] * 2 + [("", "reader")] * 2 + [("", "writer")] * 2)
    head, hits = book.table("Hit count")
    assert {h for h in head if h.startswith("Thread: ")} == {
        "Thread: main", "Thread: in reader", "Thread: in writer"}
    by = {r["Region"]: r for r in hits}
    # each thread's calls over both runs, whichever number it had in each
    assert by["step"]["Thread: in reader"] == 2 * 1000
    assert by["step"]["Thread: in writer"] == 2 * 2000
    assert by["note"]["Thread: in reader"] == 2 * 250
    assert by["note"]["Thread: in writer"] == 2 * 2000
    assert by["reader"]["Thread: in writer"] in (None, 0)


def test_the_role_is_the_last_function_that_calls_others(tmp_path):
    # the writer without note(): start() -> writer() -> step(), each the only child; step()
    # calls nothing, so the chain ends at writer()
    _, files = run_program(tmp_path, "auto/roles", "w", "s")
    assert len(files) == 1
    assert thread_records(parse_run(files[0]))["2"] == ("", "writer")


def test_events_mode_threads_have_no_role(tmp_path):
    _, files = run_program(tmp_path, "auto/roles", "rw", env={"PROFILER_MODE": "events"})
    assert len(files) == 1
    assert all(role is None for _, role in thread_records(parse_run(files[0])).values())
