"""test_reporter_safety.py - functional tests of how profreport treats the files around it:
outputs appear whole or not at all and never replace a device or FIFO, planted symbolic links
are not followed, temporaries are removed on failure, on SIGINT/SIGTERM and past a file-size
limit, and inputs that are not regular files never block the command.

Each test builds its files here (run files byte for byte, FIFOs with os.mkfifo) and checks the
result with the file system, openpyxl and Python's json and csv modules.
"""

import os
import resource
import signal
import stat
import subprocess
import threading
import time

import pytest

from conftest import clean_env
from reporter_helpers import (
    PROFREPORT,
    Book,
    EventRow,
    RunSpec,
    Thread,
    listing,
    must_run,
    profreport,
    templates_args,
)


def small_run(folder, name="profiling_2026.08.08_00.00.00_5.csv"):
    """A one-thread events run with two regions, written into folder."""
    rows = [EventRow("inner", 300, 1, "outer", 1, 300, 100, 0),
            EventRow("outer", 1000, 1, "", 0, 700, 0, 0)]
    return RunSpec(name, 10**9, [Thread(1, 5, "main")], rows, duration=2000).write(folder)


def is_fifo(path):
    return stat.S_ISFIFO(os.lstat(path).st_mode)


# ---- outputs that are not regular files ----

EXPORT_OPTIONS = ["-o", "--trace", "--folded", "--callgrind", "--json"]


@pytest.mark.parametrize("option", EXPORT_OPTIONS)
def test_fifo_output_is_refused_with_exit_4_and_stays_a_fifo(tmp_path, option):
    """A FIFO where an output goes is not replaced by a regular file (a rename would):
    exit status 4, 'cannot write ...: not a regular file', the FIFO still a FIFO, and nothing
    else left in the folder."""
    small_run(tmp_path / "runs")
    out = tmp_path / "out"
    out.mkdir()
    fifo = out / "target"
    os.mkfifo(fifo)
    args = ["-o", out / "r.xlsx"] if option != "-o" else []
    p = profreport(tmp_path / "runs", "--no-gnuplot", *args, option, fifo, timeout=30)
    assert p.returncode == 4, p.stderr
    assert f"profreport: cannot write '{fifo}': not a regular file" in p.stderr.decode()
    assert is_fifo(fifo)
    assert listing(out) == ["target"]


def test_fifo_in_csv_folder_and_charts_folder_is_refused(tmp_path):
    """--csv DIR and the charts folder: a FIFO named like one of their files is refused in
    the same way, and the existing workbook is kept."""
    small_run(tmp_path / "runs")
    (tmp_path / "csv").mkdir()
    os.mkfifo(tmp_path / "csv" / "callcost.csv")
    (tmp_path / "old.xlsx").write_bytes(b"old")
    p = profreport(tmp_path / "runs", "-o", tmp_path / "old.xlsx", "--no-gnuplot", "--csv",
                   tmp_path / "csv", timeout=30)
    assert p.returncode == 4
    assert "callcost.csv': not a regular file" in p.stderr.decode()
    assert is_fifo(tmp_path / "csv" / "callcost.csv")
    assert listing(tmp_path / "csv") == ["callcost.csv"]
    assert (tmp_path / "old.xlsx").read_bytes() == b"old"

    (tmp_path / "charts").mkdir()
    os.mkfifo(tmp_path / "charts" / "callcost.png")
    p = profreport(tmp_path / "runs", "-o", tmp_path / "old.xlsx", "--charts-dir",
                   tmp_path / "charts", *templates_args(), timeout=60)
    assert p.returncode == 4, p.stderr
    assert "callcost.png': not a regular file" in p.stderr.decode()
    assert is_fifo(tmp_path / "charts" / "callcost.png")
    assert (tmp_path / "old.xlsx").read_bytes() == b"old"
    assert not [n for n in listing(tmp_path / "charts") if n.startswith(".")]


@pytest.mark.skipif(os.geteuid() != 0, reason="making a device file needs root")
def test_device_output_is_refused_and_stays_a_device(tmp_path):
    """-o at a character device (a copy of /dev/full made here): exit 4, still a device."""
    small_run(tmp_path / "runs")
    dev = tmp_path / "full"
    os.mknod(dev, 0o666 | stat.S_IFCHR, os.makedev(1, 7))
    p = profreport(tmp_path / "runs", "-o", dev, "--no-gnuplot")
    assert p.returncode == 4
    assert f"cannot write '{dev}': not a regular file" in p.stderr.decode()
    assert stat.S_ISCHR(os.lstat(dev).st_mode)


# ---- planted symbolic links ----


def test_links_planted_at_the_old_temporary_names_are_not_followed(tmp_path):
    """Chart images used to be copied through <charts>/<name>.png.tmp~ opened with O_TRUNC:
    a symbolic link planted there was followed and the file it names overwritten. Now every
    temporary is a fresh unique file: the victim stays as it was and the charts are written."""
    small_run(tmp_path / "runs")
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    charts = tmp_path / "out-charts"
    charts.mkdir()
    names = ["callcost", "hitcount", "distribution", "trend"]
    for n in names:
        for ext in ("png", "svg"):
            os.symlink(victim, charts / f"{n}.{ext}.tmp~")
    must_run(tmp_path / "runs", "-o", tmp_path / "out.xlsx", *templates_args())
    assert victim.read_bytes() == b"precious"
    for n in names:
        assert (charts / f"{n}.png").read_bytes().startswith(b"\x89PNG")
        assert not (charts / f"{n}.png").is_symlink()


def test_output_symlink_to_a_file_is_replaced_not_written_through(tmp_path):
    """-o naming a symbolic link to a regular file is accepted; the new workbook replaces the
    link (rename), and the file it pointed to is left alone."""
    small_run(tmp_path / "runs")
    victim = tmp_path / "victim.xlsx"
    victim.write_bytes(b"precious")
    os.symlink(victim, tmp_path / "out.xlsx")
    must_run(tmp_path / "runs", "-o", tmp_path / "out.xlsx", "--no-gnuplot")
    assert victim.read_bytes() == b"precious"
    assert not (tmp_path / "out.xlsx").is_symlink()
    Book(tmp_path / "out.xlsx")


def planted_folder_link(tmp_path, name, precious):
    """A run in tmp_path/runs, and in the folder tmp_path/shared a symbolic link `name` to the
    folder tmp_path/victim, which holds the file `precious`. (shared, victim)."""
    small_run(tmp_path / "runs")
    shared = tmp_path / "shared"
    shared.mkdir()
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / precious).write_bytes(b"precious")
    os.symlink(victim, shared / name)
    return shared, victim


def test_link_planted_at_the_default_charts_folder_is_not_followed(tmp_path):
    """In a shared folder, a symbolic link planted at <report>-charts (the default charts
    folder) must not lead the charts into its target: the command refuses the folder with
    exit 4, says why, writes nothing there, and the target's files stay as they were."""
    shared, victim = planted_folder_link(tmp_path, "report-charts", "callcost.png")
    p = profreport(tmp_path / "runs", "-o", shared / "report.xlsx", *templates_args(),
                   timeout=60)
    assert p.returncode == 4, p.stderr
    assert b"report-charts" in p.stderr and b"symbolic link" in p.stderr, p.stderr
    assert sorted(os.listdir(victim)) == ["callcost.png"]
    assert (victim / "callcost.png").read_bytes() == b"precious"
    assert (shared / "report-charts").is_symlink()
    assert not (shared / "report.xlsx").exists()
    assert sorted(os.listdir(shared)) == ["report-charts"]


@pytest.mark.parametrize("option", ["--csv", "--compact"])
def test_link_planted_at_an_export_folder_is_not_followed(tmp_path, option):
    """--csv DIR and --compact DIR are folders as the charts folder is: a symbolic link planted
    at the name given, pointing to another folder, is refused the same way (exit 4, a message
    naming the folder and the link), nothing is written into the link's target, no workbook
    replaces the old one and the link stays a link."""
    shared, victim = planted_folder_link(tmp_path, "out", "callcost.csv")
    (shared / "report.xlsx").write_bytes(b"old")
    p = profreport(tmp_path / "runs", "-o", shared / "report.xlsx", "--no-gnuplot", option,
                   shared / "out", timeout=60)
    assert p.returncode == 4, p.stderr
    err = p.stderr.decode()
    assert f"'{shared / 'out'}'" in err and "symbolic link" in err, err
    assert sorted(os.listdir(victim)) == ["callcost.csv"]
    assert (victim / "callcost.csv").read_bytes() == b"precious"
    assert (shared / "out").is_symlink()
    assert (shared / "report.xlsx").read_bytes() == b"old"
    assert sorted(os.listdir(shared)) == ["out", "report.xlsx"]


# ---- temporaries on failure ----


def test_file_size_limit_is_an_error_and_leaves_no_temporary(tmp_path):
    """Under RLIMIT_FSIZE the writes fail with EFBIG (SIGXFSZ no longer kills the command):
    exit 4, a message naming the workbook, and no temporary left in the output folder."""
    small_run(tmp_path / "runs")
    out = tmp_path / "out"
    out.mkdir()

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (16384, 16384))

    p = subprocess.run([str(PROFREPORT), str(tmp_path / "runs"), "-o", str(out / "r.xlsx"),
                        "--no-gnuplot", "--trace", str(out / "t.json"), "--json",
                        str(out / "s.json")], env=clean_env(), preexec_fn=limit,
                       stdin=subprocess.DEVNULL, capture_output=True, timeout=60)
    assert p.returncode == 4, (p.returncode, p.stderr)
    assert f"profreport: cannot write '{out / 'r.xlsx'}'" in p.stderr.decode()
    assert listing(out) == []


def default_disposition(sig):
    """In a child before exec: sig's default action, unblocked. A command started with a signal
    ignored keeps it ignored (as a shell's background job or nohup starts it), so a test that
    sends one sets the disposition it depends on instead of inheriting the caller's."""
    signal.signal(sig, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [sig])


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_removes_the_temporaries(tmp_path, sig):
    """SIGTERM or SIGINT while the command reads its input (here a pipe that nobody writes
    yet, so it waits reliably): it dies of that signal, and the temporaries of the workbook
    and of the exports, made before reading, are gone."""
    out = tmp_path / "out"
    out.mkdir()
    fifo = tmp_path / "input.csv"
    os.mkfifo(fifo)
    p = subprocess.Popen([str(PROFREPORT), str(fifo), "-o", str(out / "r.xlsx"),
                          "--no-gnuplot", "--trace", str(out / "t.json"), "--json",
                          str(out / "s.json")], env=clean_env(), stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         preexec_fn=lambda: default_disposition(sig))
    try:
        deadline = time.monotonic() + 20
        while len(listing(out)) < 3 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert len(listing(out)) == 3, listing(out)
        p.send_signal(sig)
        p.communicate(timeout=20)
    finally:
        p.kill()
        p.wait()
    assert p.returncode == -sig
    assert listing(out) == []


# ---- inputs that are not regular files ----


def test_fifo_in_a_folder_is_skipped_with_a_warning(tmp_path):
    """A FIFO named like a run file (or a part) in a folder is skipped with a warning that
    names it and says why, instead of blocking the command for ever; the other runs are
    read."""
    folder = tmp_path / "runs"
    small_run(folder)
    os.mkfifo(folder / "stuck.csv")
    os.mkfifo(folder / "profiling_2026.08.08_00.00.00_9.1.part")
    p = must_run(folder, "-o", tmp_path / "r.xlsx", "--no-gnuplot", timeout=30)
    err = p.stderr.decode()
    assert f"skipping '{folder / 'stuck.csv'}': not a regular file (a FIFO)" in err
    assert "_9.1.part': not a regular file (a FIFO)" in err
    book = Book(tmp_path / "r.xlsx")
    where = {w["Where"] for w in book.warnings() if w["Kind"] == "skipped"}
    assert str(folder / "stuck.csv") in where
    assert book.summary()["Runs"] == 1


def test_pipe_named_on_the_command_line_is_read(tmp_path):
    """A FIFO named on the command line is read as it comes (profreport <(zcat run.csv.gz));
    a character device named there is skipped with a warning."""
    src = small_run(tmp_path / "src")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(src.read_bytes()))
    writer.start()
    try:
        must_run(fifo, "-o", tmp_path / "r.xlsx", "--no-gnuplot", timeout=30)
    finally:
        writer.join(timeout=30)
    _, cost, _ = Book(tmp_path / "r.xlsx").cost()
    assert set(cost) == {"outer", "inner"}
    p = profreport("/dev/null", "-o", tmp_path / "n.xlsx", "--no-gnuplot")
    assert p.returncode == 3
    assert "skipping '/dev/null': not a regular file (a character device)" in p.stderr.decode()
