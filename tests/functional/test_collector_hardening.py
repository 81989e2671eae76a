"""test_collector_hardening.py - the collector in hostile surroundings, round two (issue 22).

Programs run with credentials changed (setuid), a run folder swapped for a link, debuginfod
pointing at a server that never answers, descriptors the program closes or reuses, stderr a
pipe nobody reads, processes made without fork's handlers (_Fork, clone, vfork) and a shell
under the preload library. In each the host program runs as it would without profreport, and
the collector records, or says once why it does not.
"""

import os
import signal
import subprocess

import pytest

from conftest import (
    BUILD,
    PART_NAME,
    SAN,
    clean_env,
    fresh_dir,
    library_lines,
    parse_run,
    program,
    run_command,
    run_files,
)


# ---- SIGPIPE: stderr a pipe whose reader is gone ----


def run_with_closed_stderr(argv, env, cwd):
    """Run argv with stderr the write end of a pipe whose read end is already closed (as in
    `app 2>&1 | head` once head has gone); the program's stdout is captured."""
    rd, wr = os.pipe()
    os.close(rd)
    try:
        # restore_signals (the default) gives the child SIGPIPE's default action: death.
        with subprocess.Popen([str(a) for a in argv], env=env, cwd=cwd, stdin=subprocess.DEVNULL,
                              stdout=subprocess.PIPE, stderr=wr) as p:
            out, _ = p.communicate(timeout=120)
    finally:
        os.close(wr)
    return p.returncode, out


@pytest.mark.parametrize("case", ["bad mode", "unusable folder", "live report"])
def test_warnings_on_a_closed_stderr_never_raise_sigpipe(tmp_path, case):
    """Every write of the collector to stderr (a warning about the environment, the warning that
    the folder cannot be used, the live report) into a pipe whose reader is gone fails quietly:
    the program ends with its own status and output, not killed by SIGPIPE."""
    folder = fresh_dir(tmp_path)
    env = {"PROFILER_DIR": folder}
    argv = [program("nested")]
    expect = 0
    if case == "bad mode":
        env["PROFILER_MODE"] = "bogus"
    elif case == "unusable folder":
        (tmp_path / "file").write_text("")
        env["PROFILER_DIR"] = tmp_path / "file" / "sub"
    else:
        env["PROFILER_REPORT_INTERVAL"] = "0.02"
        argv = [program("live"), "0.3"]
    code, out = run_with_closed_stderr(argv, clean_env(env), tmp_path)
    assert code == expect, (code, -code == signal.SIGPIPE)
    assert out, "the program's own output is missing"
    if case == "bad mode":
        (run,) = [parse_run(f) for f in run_files(folder)]
        assert run.value("Complete") == "yes"
