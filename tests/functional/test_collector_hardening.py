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


# ---- no network from the profiled program ----


def test_symbol_lookup_never_asks_a_debuginfod_server(tmp_path):
    """libprofreport-auto names the functions of a module without DWARF (strip -g) while
    DEBUGINFOD_URLS names a server that accepts connections and never answers: nobody connects
    to it, debuginfod's cache folder is not made, and the run names the functions from the
    symbol table."""
    import shutil
    import socket

    exe = tmp_path / "calls"
    shutil.copy(BUILD / "tests" / "programs" / "auto" / "calls", exe)
    subprocess.run(["strip", "-g", str(exe)], check=True)
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        server.bind(("127.0.0.1", 0))
        server.listen(16)
        server.setblocking(False)
        port = server.getsockname()[1]
        folder = fresh_dir(tmp_path)
        cache = tmp_path / "debuginfod-cache"
        proc = run_command([exe, "10", "10", "1"], env=clean_env({
            "PROFILER_DIR": folder,
            "DEBUGINFOD_URLS": f"http://127.0.0.1:{port}/",
            "DEBUGINFOD_TIMEOUT": "1",
            "DEBUGINFOD_CACHE_PATH": cache,
        }), cwd=tmp_path)
        assert proc.returncode == 0, proc
        with pytest.raises(BlockingIOError):
            conn, _ = server.accept()
            conn.close()
    finally:
        server.close()
    assert not cache.exists()
    (run,) = [parse_run(f) for f in run_files(folder)]
    assert "fib" in {r["Region"] for r in run.rows}


# ---- the preload library ----

PRELOAD = BUILD / "libprofreport-malloc.so"
needs_preload = pytest.mark.skipif(
    bool(SAN), reason="a sanitizer replaces malloc itself: the preload library cannot be used")


@needs_preload
def test_preload_aligned_alloc_answers_as_the_c_library_does(tmp_path):
    """aligned_alloc under the preload library succeeds and fails exactly where the C library's
    own does (glibc 2.36 rounds an alignment of 3 up; 2.38 refuses it)."""
    exe = BUILD / "tests" / "plain" / "alignedalloc"
    alone = run_command([exe], env=clean_env(), cwd=tmp_path)
    folder = fresh_dir(tmp_path)
    loaded = run_command([exe], env=clean_env({"LD_PRELOAD": PRELOAD, "PROFILER_DIR": folder}),
                         cwd=tmp_path)
    assert alone.returncode == 0 and loaded.returncode == 0
    assert loaded.stdout == alone.stdout, (alone.stdout, loaded.stdout)
    assert loaded.stderr == b""
