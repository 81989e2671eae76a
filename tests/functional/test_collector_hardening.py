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
    RUN_NAME,
    SAN,
    clean_env,
    fresh_dir,
    library_lines,
    parse_run,
    program,
    run_command,
    run_program,
    run_files,
    run_once,
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


# ---- folders: never 0777; a setuid program ignores PROFILER_* ----


def test_folders_made_for_a_run_are_not_writable_by_others(tmp_path):
    """With umask 000 the output folder and its missing parents are made 0755, never 0777: a
    folder the collector makes is never a place others can write."""
    folder = tmp_path / "a" / "b" / "runs"
    proc = subprocess.run([str(program("nested"))], env=clean_env({"PROFILER_DIR": folder}),
                          cwd=tmp_path, capture_output=True, preexec_fn=lambda: os.umask(0))
    assert proc.returncode == 0, proc
    for d in (tmp_path / "a", tmp_path / "a" / "b", folder):
        assert (d.stat().st_mode & 0o777) == 0o755, (d, oct(d.stat().st_mode))
    assert len(run_files(folder)) == 1


def as_nobody():
    """argv prefix that runs a command as the user nobody (and group nogroup), or skip."""
    import shutil
    if os.geteuid() != 0:
        pytest.skip("needs root: a setuid-root copy of a program, run by another user")
    if SAN:
        pytest.skip("a sanitizer's runtime refuses to run setuid")
    setpriv = shutil.which("setpriv")
    if not setpriv:
        pytest.skip("needs setpriv (util-linux) to run as another user")
    import pwd
    import grp
    try:
        uid, gid = pwd.getpwnam("nobody").pw_uid, grp.getgrnam("nogroup").gr_gid
    except KeyError:
        pytest.skip("needs the user nobody and the group nogroup")
    return [setpriv, f"--reuid={uid}", f"--regid={gid}", "--clear-groups"]


def setuid_copy(name, bits):
    """A root-owned copy of a test program with the given mode bits (u+s or g+s), in a fresh
    folder every user can read and only root (user or group) can write."""
    import shutil
    import tempfile
    base = tempfile.mkdtemp(prefix="profreport-setuid-")
    # root's group may write it too: a setgid-root program could, its user could not
    os.chmod(base, 0o775)
    exe = os.path.join(base, name)
    shutil.copy(program(name), exe)
    os.chown(exe, 0, 0)
    os.chmod(exe, 0o755 | bits)
    return base, exe


@pytest.mark.parametrize("bits", [0o4000, 0o2000], ids=["setuid", "setgid"])
@pytest.mark.parametrize("where", ["PROFILER_DIR", "working folder"])
def test_setuid_program_run_by_another_user_makes_nothing_where_the_user_says(tmp_path, bits,
                                                                              where):
    """A setuid (setgid) root program, run by nobody with umask 000 and PROFILER_DIR naming a
    folder only root may write (or with that folder as the working folder and no PROFILER_DIR):
    no folder and no file appears there, PROFILER_* is ignored, the program runs as it would,
    and one warning says why nothing is recorded."""
    import shutil
    prefix = as_nobody()
    base, exe = setuid_copy("credentials", bits)
    try:
        env = clean_env({"PROFILER_ENABLE": "1", "PROFILER_MODE": "summary"})
        if where == "PROFILER_DIR":
            env["PROFILER_DIR"] = os.path.join(base, "x", "sub")
        proc = subprocess.run(prefix + [exe], env=env, cwd=base, capture_output=True,
                              preexec_fn=lambda: os.umask(0), timeout=60)
        assert proc.returncode == 0 and proc.stdout == b"credentials: done\n", proc
        assert sorted(os.listdir(base)) == ["credentials"]
        lines = library_lines(proc.stderr)
        assert len(lines) == 1 and "setuid" in lines[0], lines
    finally:
        shutil.rmtree(base)


def test_setuid_program_records_into_the_absolute_folder_it_names(tmp_path):
    """The one place a setuid program records: an absolute folder the program itself names in
    PROFILER_INIT. PROFILER_DIR is ignored there too."""
    import shutil
    prefix = as_nobody()
    base, exe = setuid_copy("credentials", 0o4000)
    try:
        own = os.path.join(base, "own-runs")
        env = clean_env({"PROFILER_DIR": os.path.join(base, "elsewhere")})
        proc = subprocess.run(prefix + [exe, own], env=env, cwd=base, capture_output=True,
                              preexec_fn=lambda: os.umask(0), timeout=60)
        assert proc.returncode == 0 and proc.stderr == b"", proc
        assert sorted(os.listdir(base)) == ["credentials", "own-runs"]
        assert (os.stat(own).st_mode & 0o777) == 0o755
        (run,) = [parse_run(f) for f in run_files(own)]
        assert run.value("Complete") == "yes" and run.rows_of("work")
    finally:
        shutil.rmtree(base)


# ---- the run folder and its parts changed while the program runs ----


def run_swapdir(tmp_path, change):
    """Run swapdir with a fresh folder; when it is ready, call change(folder, run name); return
    (process stdout, stderr, folder)."""
    folder = fresh_dir(tmp_path)
    with subprocess.Popen([str(program("swapdir"))], env=clean_env({"PROFILER_DIR": folder}),
                          cwd=tmp_path, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE) as p:
        assert p.stdout.readline() == b"ready\n"
        (part1,) = [n for n in os.listdir(folder) if n.endswith(".1.part")]
        change(folder, part1[:-len(".1.part")])
        try:
            out, err = p.communicate(b"go\n", timeout=60)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise
    assert p.returncode == 0 and out == b"swapdir: done\n", (p.returncode, out, err)
    return err, folder


def test_run_folder_swapped_for_a_link_leads_nowhere(tmp_path):
    """The run folder renamed away and a link to another folder put at its name while the
    program runs: the parts of threads that start later and the run file go to the folder the
    run opened, nothing appears in the link's target, and the run is whole."""
    target = tmp_path / "target"
    target.mkdir()

    def swap(folder, run):
        folder.rename(tmp_path / "moved")
        folder.symlink_to(target)

    err, folder = run_swapdir(tmp_path, swap)
    assert library_lines(err) == []
    assert os.listdir(target) == []
    (run,) = [parse_run(f) for f in run_files(tmp_path / "moved")]
    assert run.value("Complete") == "yes"
    assert {r["Region"] for r in run.rows} == {"first", "second", "third", "fourth"}
    assert [n for n in os.listdir(tmp_path / "moved") if not RUN_NAME.match(n)] == []


def test_part_removed_while_the_program_runs_is_still_read(tmp_path):
    """The main thread's part removed while it runs (a /tmp cleaner): the run file still has
    every region the main thread recorded, before and after, read through the descriptor the
    collector holds."""
    def remove(folder, run):
        os.unlink(folder / f"{run}.1.part")

    err, folder = run_swapdir(tmp_path, remove)
    assert library_lines(err) == []
    (run,) = [parse_run(f) for f in run_files(folder)]
    assert run.value("Complete") == "yes"
    assert {r["Region"] for r in run.rows} == {"first", "second", "third", "fourth"}


@pytest.mark.parametrize("what", ["fifo", "file", "removed"])
def test_ended_threads_part_replaced_is_not_read_and_the_run_says_so(tmp_path, what):
    """An ended thread's part replaced by a FIFO or another file, or removed: the program ends
    without waiting, the planted file is neither read nor removed, one warning names the
    part, and the run says it is not complete; every other thread's regions are there."""
    def replace(folder, run):
        part = folder / f"{run}.2.part"
        os.unlink(part)
        if what == "fifo":
            os.mkfifo(part)
        elif what == "file":
            part.write_bytes(b"not a part\n")

    err, folder = run_swapdir(tmp_path, replace)
    lines = library_lines(err)
    assert len(lines) == 1 and ".2.part" in lines[0] and "removed or replaced" in lines[0], lines
    (run,) = [parse_run(f) for f in run_files(folder)]
    assert run.value("Complete") == "no"
    assert {r["Region"] for r in run.rows} == {"first", "third", "fourth"}
    planted = [n for n in os.listdir(folder) if n.endswith(".2.part")]
    assert planted == ([] if what == "removed" else [planted[0]])


# ---- descriptors the program takes back ----


@pytest.mark.parametrize("how", ["closefrom", "dup2"])
def test_descriptor_the_program_reuses_is_never_written(tmp_path, how):
    """The program closes every descriptor from 3 (closefrom) and opens its own files, or puts
    its log over the part's descriptor (dup2), and exits with them open: its files hold exactly
    what it wrote, one warning says recording stopped, and the run file says it is not
    complete."""
    folder = fresh_dir(tmp_path)
    log, results = tmp_path / "app.log", tmp_path / "results.txt"
    proc = run_command([program("reusefd"), how, log, results],
                       env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == b"reusefd: done\n", proc
    assert log.read_bytes() == b"log\n"
    assert results.read_bytes() == b"results\n"
    lines = library_lines(proc.stderr)
    assert len(lines) == 1 and "descriptor" in lines[0], lines
    (run,) = [parse_run(f) for f in run_files(folder)]
    assert run.value("Complete") == "no"


# ---- children made without fork's handlers ----


@pytest.mark.parametrize("how", ["_Fork", "clone"])
def test_child_of_fork_without_handlers_leaves_the_parents_run_alone(tmp_path, how):
    """A child made by _Fork() or clone(SIGCHLD), which skip pthread_atfork, records and exits:
    the parent's run file is the parent's (its pid, its regions, complete), the child writes
    no run under the parent's name and removes none of its parts, and nobody warns."""
    folder = fresh_dir(tmp_path)
    proc = run_command([program("rawfork"), how], env=clean_env({"PROFILER_DIR": folder}),
                       cwd=tmp_path)
    assert proc.returncode == 0, proc
    assert proc.stderr == b""
    runs = [parse_run(f) for f in run_files(folder)]
    mine = [r for r in runs if r.value("Pid") == str(proc.pid)]
    assert len(mine) == 1, [r.path.name for r in runs]
    assert mine[0].value("Complete") == "yes"
    assert {r["Region"] for r in mine[0].rows} == {"before", "after"}
    assert all(r.value("ParentPid") == str(proc.pid) for r in runs if r is not mine[0])
    assert [n for n in os.listdir(folder) if not RUN_NAME.match(n)] == []


def test_region_opened_in_a_vfork_child_leaves_no_state_in_the_parent(tmp_path):
    """The first region of the process opened in a vfork child before exec: the child records
    nothing, the parent's own file later given the same descriptor number holds only what the
    parent wrote, and the parent's run is its own, complete, without the child's region."""
    folder = fresh_dir(tmp_path)
    results = tmp_path / "results.txt"
    proc = run_command([program("rawfork"), "vfork", results],
                       env=clean_env({"PROFILER_DIR": folder}), cwd=tmp_path)
    assert proc.returncode == 0, proc
    assert proc.stderr == b""
    assert results.read_bytes() == b"results\n"
    (run,) = [parse_run(f) for f in run_files(folder)]
    assert run.value("Pid") == str(proc.pid) and run.value("Complete") == "yes"
    assert {r["Region"] for r in run.rows} == {"after"}


@needs_preload
@pytest.mark.parametrize("shell", ["bash", "sh"])
def test_preload_shell_commands_leave_no_orphan_parts(tmp_path, shell):
    """A shell loop under the preload library: each fork child that execs a command writes its
    image's run before the exec, so no command leaves a part behind and every run is complete;
    a command that cannot be executed changes nothing for the shell. (dash itself ends with
    _exit, which runs no destructor: its own part, and only that, may stay.)"""
    folder = fresh_dir(tmp_path)
    env = clean_env({"PROFILER_DIR": folder, "LD_PRELOAD": PRELOAD})
    proc = run_command([shell, "-c", "for i in 1 2 3 4; do /bin/true; done; "
                        "/nonexistent/command 2>/dev/null; echo done $?"], env=env,
                       cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == b"done 127\n", proc
    assert library_lines(proc.stderr) == []
    names = os.listdir(folder)
    left = [n for n in names if not RUN_NAME.match(n)]
    own = [n for n in left if PART_NAME.match(n) and f"_{proc.pid}_" in n]
    assert left == ([] if shell == "bash" else own), names
    runs = [parse_run(f) for f in run_files(folder)]
    if shell == "bash":  # its children allocate before they exec; dash's may not
        assert len([r for r in runs if r.value("Pid") != str(proc.pid)]) >= 5
    assert all(r.value("Complete") == "yes" for r in runs)


@needs_preload
def test_preload_failed_exec_records_on_in_a_new_run(tmp_path):
    """An exec that fails: the image's first run was written before it, the program goes on
    with the exec's errno, and what it does afterwards is recorded in a second run of the same
    process (-2), both complete, with no part left."""
    folder = fresh_dir(tmp_path)
    env = clean_env({"PROFILER_DIR": folder, "LD_PRELOAD": PRELOAD})
    proc = run_command([BUILD / "tests" / "plain" / "execfail"], env=env, cwd=tmp_path)
    assert proc.returncode == 0 and proc.stdout == b"execfail: errno 2\n", proc
    names = os.listdir(folder)
    assert [n for n in names if not RUN_NAME.match(n)] == [], names
    runs = {RUN_NAME.match(f.name).group(8): parse_run(f) for f in run_files(folder)}
    assert set(runs) == {None, "2"}, names
    assert all(r.value("Pid") == str(proc.pid) and r.value("Complete") == "yes"
               for r in runs.values())


# ---- a locale whose decimal point is a comma ----


def test_a_comma_decimal_locale_leaves_the_run_files_numbers_alone(tmp_path):
    """locale.c sets de_DE.UTF-8 (made here with localedef, from the locales package's
    definitions) before it records, as a program calling setlocale(LC_ALL, "") does: its own
    printf writes 1,5, but PROFILER_FLUSH_INTERVAL=0.5 still reads as half a second, and the
    run file's SumSquares of two 300 ms calls (above 1e17 ticks
    squared, so written with an exponent) keeps a decimal point: the row has its 15 fields,
    its value is Min^2 + Max^2, and the reporter reads it without a skipped row."""
    loc = tmp_path / "locales"
    loc.mkdir()
    made = subprocess.run(["localedef", "-i", "de_DE", "-f", "UTF-8", str(loc / "de_DE.UTF-8")],
                          capture_output=True, text=True)
    assert made.returncode in (0, 1) and (loc / "de_DE.UTF-8").is_dir(), made.stderr
    out = tmp_path / "out"
    out.mkdir()
    proc, files = run_program(out, "locale", "de_DE.UTF-8",
                              env={"LOCPATH": str(loc), "PROFILER_MODE": "summary",
                                   "PROFILER_FLUSH_INTERVAL": "0.5"})
    assert proc.stdout.decode().strip() == "1,5"  # the locale took effect in the program
    # The settings, read at the first region (after setlocale), keep their decimal point too.
    assert proc.stderr == b"", proc.stderr
    (path,) = files
    lines = path.read_text().splitlines()
    head = lines.index(next(x for x in lines if x.startswith("Region,Thread,Calls")))
    names = lines[head].split(",")
    row = lines[head + 1].split(",")
    assert len(row) == len(names), row
    rec = dict(zip(names, row))
    assert rec["Region"] == "wait" and rec["Calls"] == "2"
    lo, hi, sumsq = int(rec["Min"]), int(rec["Max"]), float(rec["SumSquares"])
    assert sumsq > 1e17 and "e+" in rec["SumSquares"]
    assert abs(sumsq - (lo * lo + hi * hi)) <= 1e-12 * sumsq
    report = run_command([str(BUILD / "profreport"), str(path), "-o", str(tmp_path / "r.xlsx"),
                          "--no-gnuplot"], cwd=tmp_path)
    assert report.returncode == 0, report.stderr
    assert b"skipped" not in report.stderr and b"warnings:" not in report.stdout


def _errno_values(proc):
    """The program's "name=value" words: errno where it read it, and EBADF's value."""
    values = dict(word.split("=") for word in proc.stdout.decode().split())
    assert "ebadf" in values, proc.stdout
    return values


def test_errno_the_program_set_survives_a_regions_start_and_the_runs_end(tmp_path):
    """A program that reads errno after a failed call of its own, with its first region's start
    (the collector starts the run and the thread's recorder: folders, files, a perf event, some
    of whose calls fail as a matter of course), a stop or PROFILER_FINISH in between, reads its
    own EBADF. The first start used to leave EINVAL there (and TSan, in CI, found a handler's
    region spoiling the errno of the code it interrupted)."""
    proc, run = run_once(tmp_path, "errnostart")
    values = _errno_values(proc)
    assert all(v == values["ebadf"] for v in values.values()), values
    assert run.values("Complete") == [["yes"]]


@pytest.mark.parametrize("timing", ["sampled", "exact"])
def test_errno_the_program_set_survives_the_hooks_slow_paths(tmp_path, timing):
    """The same through the function hooks: the thread's first hook (its recorder starts), a
    function's first call (described: libdw reads files), a left-out function's first call (its
    hook calls patched: mprotect) and a region's first start: each function's body, and main
    after it, read main's EBADF."""
    proc, run = run_once(tmp_path, "auto/errnokeep",
                         env={"PROFILER_EXCLUDE": "left_out", "PROFILER_TIMING": timing})
    values = _errno_values(proc)
    assert all(v == values["ebadf"] for v in values.values()), values
    names = {r[0] for r in run.values("Function")}
    assert "described" in names and "left_out" not in names, names
