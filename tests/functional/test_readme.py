"""test_readme.py - the README's example compiles and does what the README says."""
import csv
import os
import re
import subprocess
from pathlib import Path

import pytest

from conftest import run_once, summary_paths
from reporter_helpers import Book

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PROF_BUILD", ROOT / "build"))
SAN = os.environ.get("PROF_SAN", "")


def readme_c_example():
    """The first ```c block of README.md."""
    text = (ROOT / "README.md").read_text()
    match = re.search(r"```c\n(.*?)```", text, re.S)
    assert match, "README.md has no C example"
    return match.group(1)


def test_readme_example_leaves_one_run_file_per_run(tmp_path):
    """Built as the README says (against the tree), three runs leave three run files, each with
    one 'load' row and 100 'step' rows."""
    src = tmp_path / "app.c"
    src.write_text(readme_c_example())
    exe = tmp_path / "app"
    flags = ["-fsanitize=" + SAN] if SAN else []
    subprocess.run(["cc", *flags, str(src), "-I", str(ROOT / "include"),
                    str(BUILD / "libprofreport.a"), "-pthread", "-o", str(exe)], check=True)
    runs = tmp_path / "runs"
    env = dict(os.environ, PROFILER_DIR=str(runs))
    for _ in range(3):
        done = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=120)
        assert done.returncode == 0
        assert done.stdout == "" and done.stderr == ""
    files = sorted(runs.iterdir())
    assert len(files) == 3
    for f in files:
        assert re.fullmatch(r"profiling_\d{4}\.\d\d\.\d\d_\d\d\.\d\d\.\d\d_\d+_[0-9a-f]{8}\.csv", f.name)
        records = list(csv.reader(f.open(newline="")))
        header = next(i for i, r in enumerate(records) if r and r[0] == "Region")
        rows = records[header + 1:]
        assert sum(r[0] == "load" for r in rows) == 1
        assert sum(r[0] == "step" for r in rows) == 100


def test_readme_auto_instrumentation_command_times_every_function(tmp_path):
    """The README's uninstalled command for libprofreport-auto, applied to the README's example,
    gives a summary run (libprofreport-auto's default) whose calling contexts include main (a
    function) beside the manual regions."""
    text = (ROOT / "README.md").read_text()
    match = re.search(r"Before `make install`:\n`(cc -g -finstrument-functions app\.c [^`]*)`", text)
    assert match, "README.md lost the uninstalled libprofreport-auto command"
    src = tmp_path / "app.c"
    src.write_text(readme_c_example())
    exe = tmp_path / "app"
    argv = []
    for word in match.group(1).split():
        if word == "app.c":
            word = str(src)
        elif word.startswith("build/"):
            word = str(BUILD / word[len("build/"):])
        elif word == "-Iinclude":
            word = "-I" + str(ROOT / "include")
        argv.append(word)
    flags = ["-fsanitize=" + SAN] if SAN else []
    subprocess.run([argv[0], *flags, *argv[1:], "-o", str(exe)], check=True, cwd=ROOT)
    runs = tmp_path / "runs"
    env = dict(os.environ, PROFILER_DIR=str(runs))
    done = subprocess.run([str(exe)], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and done.stderr == ""
    (run,) = runs.iterdir()
    records = list(csv.reader(run.open(newline="")))
    assert ["Mode", "summary"] in records
    header = next(r for r in records if r[:1] == ["Region"])
    rows = [dict(zip(header, r)) for r in records[records.index(header) + 1:]]
    paths = {path: int(r["Calls"]) for (_, path), r in summary_paths(rows).items()}
    # The manual region "load" and the function load() inside it: one name, two paths.
    assert paths[("main",)] == 1
    assert sum(n for path, n in paths.items() if path[-1] == "load") == 2
    assert ("main", "load", "load") in paths
    assert sum(n for path, n in paths.items() if path[-1] == "step") == 200
    assert ["Function", "main"] == [r[:2] for r in records if r[:2] == ["Function", "main"]][0]


def test_docs_name_the_format_version_runs_are_written_in(tmp_path):
    """The README's run-file example, docs/FORMAT.md, profreport(1), profreport(3),
    profreport.h and `profreport --version` all name the run-file format version that a real
    run writes in its Format record."""
    _, run = run_once(tmp_path, "nested")
    (written,) = [rec[2] for rec in csv.reader(run.path.open(newline=""))
                  if rec[:2] == ["Format", "profreport-run"]]
    readme = (ROOT / "README.md").read_text()
    example = readme.split("## Reading a run file", 1)[1].split("```", 2)[1]
    assert re.findall(r"^Format,profreport-run,(\d+)$", example, re.M) == [written]
    fmt = (ROOT / "docs" / "FORMAT.md").read_text()
    assert re.findall(r"^Format version: \*\*(\d+)\*\*", fmt, re.M) == [written]
    assert re.findall(r"`Format,profreport-run,(\d+)`", fmt) == [written]
    man3 = (ROOT / "man" / "profreport.3").read_text()
    assert re.findall(r'"#define PROF_FORMAT_VERSION" "\s*(\d+)"', man3) == [written]
    man1 = (ROOT / "man" / "profreport.1").read_text()
    versions = re.search(r"Run files of format versions ([\d, and]+) \(see", man1).group(1)
    assert re.findall(r"\d+", versions)[-1] == written
    header = (ROOT / "include" / "profreport.h").read_text()
    assert re.findall(r"^#define PROF_FORMAT_VERSION (\d+)$", header, re.M) == [written]
    p = subprocess.run([str(BUILD / "profreport"), "--version"], capture_output=True, text=True)
    assert p.returncode == 0 and f"(run-file format {written})" in p.stdout


def test_make_demo_writes_the_report_the_readme_names_for_every_example(tmp_path):
    """`make demo` (into a folder of the test, 2 runs each) writes one workbook per example
    program, the ones the README's "Two commands" names, each of its own program's runs only:
    nothing left out, nothing merged."""
    if SAN:
        pytest.skip("the demo is the plain build's")
    block = (ROOT / "README.md").read_text().split("## Two commands", 1)[1].split("```", 2)[1]
    named = re.findall(r"demo/(\w+)\.xlsx", block)
    examples = sorted(p.stem for p in (ROOT / "examples").iterdir() if p.suffix in (".c", ".cpp"))
    assert sorted(named) == examples, (named, examples)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    demo = tmp_path / "demo"
    done = subprocess.run(["make", "-s", "-C", str(ROOT), f"BUILD={BUILD}", f"DEMO_DIR={demo}",
                           "DEMO_RUNS=2", "demo"], env=env, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "left out" not in done.stdout, done.stdout
    assert sorted(p.stem for p in demo.glob("*.xlsx")) == examples
    for name in examples:
        summary = Book(demo / f"{name}.xlsx").summary()
        assert summary["Runs"] == 2, (name, summary)
        assert summary["Program"].startswith(f"{BUILD / 'examples' / name} (2 runs, "), (name,
                                                                                    summary)
        assert list((demo / f"{name}-charts").glob("*.png")), name
