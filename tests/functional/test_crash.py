"""test_crash.py - a crash leaves the profile behind (collector/crash.c, README "When the program
crashes"): a program that ends by a fatal signal about 0.2 s in, before its first write, keeps
what every thread recorded, ends with the same status (and core dump) as without profreport,
and the report says which runs crashed, with the signal.

The program is tests/programs/crash (its comment says what it records and how it crashes): a
worker thread's 500 "w" regions and the main thread's 1000 "k" regions and one "sleep" region
are all still in their buffers when the signal comes.
"""

import os
import re
import resource
import signal

import pytest

from conftest import (
    PART_NAME,
    clean_env,
    fresh_dir,
    parse_run_text,
    program,
    read_chunks,
    run_command,
)
from reporter_helpers import Book, must_run, templates_args

# How crash ends, and the signal that must end it.
HOWS = {
    "abort": signal.SIGABRT,
    "assert": signal.SIGABRT,
    "segv": signal.SIGSEGV,
    "fpe": signal.SIGFPE,
    "bus": signal.SIGBUS,
    "ill": signal.SIGILL,
    "overflow": signal.SIGSEGV,
    "term": signal.SIGTERM,
    "int": signal.SIGINT,
    "hup": signal.SIGHUP,
    "pipe": signal.SIGPIPE,  # `prog | head` once head exits
}

# The sanitizers' own handlers of these signals would end the program their way, with and
# without profreport alike: what is tested here is ours.
SAN_OFF = "handle_segv=0:handle_sigbus=0:handle_sigfpe=0:handle_sigill=0:handle_abort=0"


def env_for(folder, extra=None):
    env = {"PROFILER_DIR": folder}
    for var in ("ASAN_OPTIONS", "UBSAN_OPTIONS", "TSAN_OPTIONS"):
        old = os.environ.get(var)
        env[var] = f"{old}:{SAN_OFF}" if old else SAN_OFF
    env.update(extra or {})
    return clean_env(env)


def run_raw(tmp_path, args, env, core=False):
    """Run crash with args; return (raw wait status, stderr text). The core size limit is 0,
    or with core the hard limit (cores go to tmp_path, the working folder)."""
    err_path = tmp_path / f"stderr{len(list(tmp_path.glob('stderr*')))}"
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    argv = [str(program("crash")), *args]
    pid = os.fork()
    if pid == 0:
        try:
            os.chdir(tmp_path)
            resource.setrlimit(resource.RLIMIT_CORE, (hard if core else 0, hard))
            # Python ignores SIGPIPE and an ignored signal stays ignored across exec: the
            # program gets the default action, as from a shell
            signal.signal(signal.SIGPIPE, signal.SIG_DFL)
            fd = os.open(err_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            os.dup2(fd, 2)
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, 0)
            os.dup2(null, 1)
            os.execve(argv[0], argv, env)
        finally:
            os._exit(127)
    _, status = os.waitpid(pid, 0)
    return status, err_path.read_text(errors="replace")


def parts_of(folder):
    return sorted(p for p in folder.iterdir() if PART_NAME.match(p.name))


def recover(folder):
    """The run file text that the library's writer makes of the parts in folder."""
    parts = parts_of(folder)
    assert parts, f"no part file in {folder}: {os.listdir(folder)}"
    rec = run_command([program("recover"), *parts])
    assert rec.returncode == 0, rec.stderr
    return parse_run_text(rec.stdout.decode())


def crash_chunks(folder):
    """The PRFX chunks of the parts in folder."""
    return [payload for p in parts_of(folder)
            for _, typ, payload in read_chunks(p.read_bytes())[0] if typ == "PRFX"]


def check_recorded(run, mode):
    """Everything the program recorded before it crashed is in the run, thread by thread."""
    if mode == "events":
        k, w, sleep = run.rows_of("k"), run.rows_of("w"), run.rows_of("sleep")
        assert len(k) == 1000 and {r["Thread"] for r in k} == {"1"}
        assert len(w) == 500 and {r["Thread"] for r in w} == {"2"}
        assert len(sleep) == 1 and sleep[0]["Ticks"] != ""
        (outer,) = run.rows_of("outer")
        assert outer["Ticks"] == ""  # open when the program crashed
    else:
        calls = {}
        for r in run.rows:
            calls[(r["Region"], r["Thread"])] = calls.get((r["Region"], r["Thread"]), 0) + int(
                r["Calls"])
        assert calls[("k", "1")] == 1000, calls
        assert calls[("w", "2")] == 500, calls
        assert calls[("sleep", "1")] == 1, calls


@pytest.mark.parametrize("mode", ["events", "summary"])
@pytest.mark.parametrize("how", list(HOWS))
def test_a_crash_keeps_every_threads_buffered_data_and_ends_with_its_signal(tmp_path, how, mode):
    """Each fatal signal, 0.2 s in, in both modes: the shell sees the status it sees without
    profreport (killed by that signal, 128 + signo), and the parts hold every region that ran
    on both threads, the open "outer" as never stopped, and a Crash record with the signal."""
    sig = HOWS[how]
    plain, _ = run_raw(tmp_path, [how], env_for(fresh_dir(tmp_path), {"PROFILER_ENABLE": "0"}))
    folder = fresh_dir(tmp_path)
    status, err = run_raw(tmp_path, [how], env_for(folder, {"PROFILER_MODE": mode}))
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == sig, (status, err)
    assert status == plain, (status, plain)
    assert "profreport:" not in err, err
    run = recover(folder)
    assert run.value("Complete") == "no"
    assert run.values("Crash") == [[str(int(sig)), sig.name, "1"]]
    check_recorded(run, mode)
    kinds = {w[0]: w[3] for w in run.values("Warning") if w[0] == "incomplete"}
    assert kinds == {"incomplete": "the thread's data ends where the program crashed"}


@pytest.mark.parametrize("how, handler", [("segv", "oneshot"), ("segv", "reset"),
                                          ("abort", "oneshot"), ("abort", "reset"),
                                          ("assert", "reset"), ("fpe", "oneshot"),
                                          ("bus", "reset"), ("ill", "oneshot")])
def test_a_handler_the_program_installed_first_runs_once_and_the_status_stays_the_signals(
        tmp_path, how, handler):
    """A handler installed before the first region is chained to: it runs once (a one-shot
    handler that returns, or one that resets the action and raises the signal again), the
    status is what it is without profreport, and the data is still written."""
    sig = HOWS[how]
    plain, plain_err = run_raw(tmp_path, [how, handler],
                               env_for(fresh_dir(tmp_path), {"PROFILER_ENABLE": "0"}))
    folder = fresh_dir(tmp_path)
    status, err = run_raw(tmp_path, [how, handler], env_for(folder))
    assert plain_err.count("handler ran") == 1, plain_err
    assert err.count("handler ran") == 1, err
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == sig, (status, err)
    assert status == plain
    run = recover(folder)
    assert run.values("Crash") == [[str(int(sig)), sig.name, "1"]]
    check_recorded(run, "events")


@pytest.mark.parametrize("how", ["overflow", "segv", "term"])
def test_a_threads_own_alternate_stack_is_kept_and_used(tmp_path, how):
    """The main thread sets its own alternate signal stack before its first region: it is still
    its own when the program crashes (profreport gives one only to a thread that has none), and
    the crash is written from it, a stack overflow too."""
    folder = fresh_dir(tmp_path)
    status, err = run_raw(tmp_path, [how, "altstack"], env_for(folder))
    assert "own alternate stack kept" in err, err
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == HOWS[how]
    run = recover(folder)
    assert run.values("Crash") == [[str(int(HOWS[how])), HOWS[how].name, "1"]]
    check_recorded(run, "events")


@pytest.mark.parametrize("mode", ["events", "summary"])
@pytest.mark.parametrize("how", ["segv", "term"])
def test_a_crash_while_another_thread_records_writes_both(tmp_path, how, mode):
    """The worker goes on recording "spin" regions while the main thread crashes, writing its
    part every millisecond (PROFILER_FLUSH_INTERVAL=0.001): the crash handler takes the
    worker's part between two of its writes, and the run has both threads' regions (the
    worker's 500 "w" among them) and ends by the signal."""
    folder = fresh_dir(tmp_path)
    status, err = run_raw(tmp_path, [how, "busy"],
                          env_for(folder, {"PROFILER_MODE": mode,
                                           "PROFILER_FLUSH_INTERVAL": "0.001"}))
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == HOWS[how], (status, err)
    run = recover(folder)
    assert run.values("Crash") == [[str(int(HOWS[how])), HOWS[how].name, "1"]]
    check_recorded(run, mode)


@pytest.mark.parametrize("how", ["term", "int", "hup", "pipe"])
@pytest.mark.parametrize("handler", ["ignore", "oneshot"])
def test_a_termination_signal_the_program_ignores_or_handles_is_left_alone(tmp_path, how,
                                                                           handler):
    """SIGTERM, SIGINT, SIGHUP and SIGPIPE are caught only at their default action: ignored, or
    handled by the program (its handler returns), the program runs on and exits with 3, and its
    run file is complete and says nothing of a crash."""
    folder = fresh_dir(tmp_path)
    status, err = run_raw(tmp_path, [how, handler], env_for(folder))
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 3, (status, err)
    (csv,) = [p for p in folder.iterdir() if p.suffix == ".csv"]
    run = parse_run_text(csv.read_text())
    assert run.value("Complete") == "yes"
    assert run.values("Crash") == []


def test_a_handler_installed_after_the_first_region_replaces_ours(tmp_path):
    """The program installs its one-shot SIGSEGV handler after profreport's: it wins. It runs,
    the fault comes again and ends the program by SIGSEGV, and nothing says the run crashed
    (profreport's handler never ran)."""
    folder = fresh_dir(tmp_path)
    status, err = run_raw(tmp_path, ["segv", "late"], env_for(folder))
    assert err.count("handler ran") == 1, err
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV
    assert crash_chunks(folder) == []


def test_profiler_crash_0_installs_no_handler(tmp_path):
    """PROFILER_CRASH=0: the signal ends the program as without profreport, and no part has a
    crash chunk."""
    folder = fresh_dir(tmp_path)
    status, _ = run_raw(tmp_path, ["segv"], env_for(folder, {"PROFILER_CRASH": "0"}))
    assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGSEGV
    assert parts_of(folder) and crash_chunks(folder) == []


@pytest.mark.parametrize("how", ["segv", "abort"])
def test_the_core_dump_is_made_as_without_profreport(tmp_path, how):
    """With the core size limit raised to its hard limit, the status's core-dump flag is the
    same with profreport as without it (set, where the system writes core dumps)."""
    _, hard = resource.getrlimit(resource.RLIMIT_CORE)
    if hard == 0:
        pytest.skip("core dumps are not allowed here (hard RLIMIT_CORE 0)")
    plain, _ = run_raw(tmp_path, [how], env_for(fresh_dir(tmp_path), {"PROFILER_ENABLE": "0"}),
                       core=True)
    status, _ = run_raw(tmp_path, [how], env_for(fresh_dir(tmp_path)), core=True)
    for core in tmp_path.glob("core*"):  # where the system writes them to the working folder
        core.unlink()
    assert os.WCOREDUMP(status) == os.WCOREDUMP(plain)
    assert status == plain


@pytest.mark.parametrize("mode", ["events", "summary"])
def test_the_report_says_which_runs_crashed_and_with_which_signal(tmp_path, mode):
    """Three runs of one program in one folder: one ends by SIGSEGV, one by abort(), one
    normally (its SIGTERM ignored). The terminal, the Summary sheet and the Runs sheet's Crash
    column name the two crashed runs' signals; the Call cost sheet counts every region of all
    three runs (3000 "k", 1500 "w")."""
    folder = fresh_dir(tmp_path)
    env = env_for(folder, {"PROFILER_MODE": mode})
    for args in (["segv"], ["abort"], ["term", "ignore"]):
        run_raw(tmp_path, args, env)
    out = tmp_path / "report.xlsx"
    p = must_run("-o", out, "--no-gnuplot", *templates_args(), folder)
    text = p.stdout.decode()
    assert "crashed: 2 of 3 runs ended by a fatal signal" in text, text
    want = ["SIGABRT (signal 6) in thread 1 (main)", "SIGSEGV (signal 11) in thread 1 (main)"]
    assert sorted(re.findall(r"^  run \d+: (.*)$", text, re.M)) == want, text

    book = Book(out)
    assert book.summary()["Crashed runs"] == 2
    lines = [r[1] for r in book.rows("Summary")
             if len(r) > 1 and r[0] in ("Crashes", None) and isinstance(r[1], str)]
    assert sorted(m[1] for m in (re.fullmatch(r"run \d+: (.*)", v) for v in lines) if m) == want
    headers, runs = book.table("Runs")
    assert "Crash" in headers
    crashes = [r["Crash"] for r in runs]
    assert sorted(c for c in crashes if c) == ["SIGABRT (signal 6)", "SIGSEGV (signal 11)"]
    assert crashes.count(None) == 1
    for r in runs:
        if r["Crash"]:
            assert f"run {r['Run']}: {r['Crash']} in thread 1 (main)" in lines
    _, cost, _ = book.cost()
    assert cost["k"]["Calls"] == 3000
    assert cost["w"]["Calls"] == 1500
    kinds = [w["Kind"] for w in book.warnings()]
    assert kinds.count("crashed") == 2
