"""test_install.py - `make install` with a prefix other than the one `make` was run with.

The build tree of this test run is copied (timestamps kept) so that only what depends on the
install paths is rebuilt, exactly as after a user's plain `make`.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from openpyxl import load_workbook

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PROF_BUILD", ROOT / "build"))
SAN = os.environ.get("PROF_SAN", "")

pytestmark = pytest.mark.skipif(SAN != "", reason="install is tested once, in the plain build")


def make(build, *args, env=None):
    """Run make in the project with build as BUILD, outside the jobserver of the calling make."""
    env = {k: v for k, v in (env or os.environ).items()
           if k not in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    done = subprocess.run(["make", "-s", "-C", str(ROOT), f"BUILD={build}", *args], env=env,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def copied_build(tmp_path):
    """This run's build tree without its sanitizer builds, modification times kept."""
    dest = tmp_path / "build"
    shutil.copytree(BUILD, dest, symlinks=True, ignore=shutil.ignore_patterns("san-*"))
    return dest


def readme_install_block():
    """The README's commands for a non-default prefix, one per line."""
    text = (ROOT / "README.md").read_text()
    match = re.search(r"```sh\n(make && make install PREFIX=\$HOME/\.local\n.*?)```", text, re.S)
    assert match, "README.md lost the example of installing under another prefix"
    return match.group(1).strip().splitlines()


def pc_vars(path):
    """The variables of a pkg-config file."""
    return dict(re.findall(r"^(\w+)=(.*)$", path.read_text(), re.M))


def report_has_charts(profreport, runs, out):
    """Run an installed profreport on runs; its charts are there only if it found the templates."""
    done = subprocess.run([str(profreport), str(runs), "-o", str(out)], capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "template" not in done.stderr, done.stderr
    pngs = list(out.with_name(out.stem + "-charts").glob("*.png"))
    assert pngs, f"no chart images next to {out}: {done.stderr}"
    assert "Charts" in load_workbook(out, read_only=True).sheetnames


def test_readme_install_under_another_prefix_after_plain_make(tmp_path):
    """The README's commands, with $HOME/.local replaced by a folder of the test: the .pc files
    name that prefix, the README's compile line builds a program that runs without
    LD_LIBRARY_PATH, and the installed profreport finds its own templates."""
    build = copied_build(tmp_path)
    home = tmp_path / "home"
    prefix = home / ".local"
    lines = readme_install_block()
    assert lines[0] == "make && make install PREFIX=$HOME/.local"
    make(build, "install", f"PREFIX={prefix}")
    for name in ("profreport.pc", "profreport-auto.pc"):
        v = pc_vars(prefix / "lib" / "pkgconfig" / name)
        assert v["prefix"] == str(prefix), name
        assert v["libdir"] == str(prefix / "lib"), name

    src = tmp_path / "app.c"
    src.write_text(re.search(r"```c\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1))
    env = dict(os.environ, HOME=str(home))
    env.pop("LD_LIBRARY_PATH", None)
    for line in lines[1:]:
        if line.startswith("export "):
            key, value = line[len("export "):].split("=", 1)
            env[key] = value.replace("$HOME", str(home))
        else:
            subprocess.run(line, shell=True, cwd=tmp_path, env=env, check=True)
    app = tmp_path / "app"
    ldd = subprocess.run(["ldd", str(app)], capture_output=True, text=True).stdout
    assert str(prefix / "lib" / "libprofreport.so") in ldd, ldd
    runs = tmp_path / "runs"
    done = subprocess.run([str(app)], env=dict(env, PROFILER_DIR=str(runs)), capture_output=True,
                          text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    report_has_charts(prefix / "bin" / "profreport", runs, tmp_path / "report.xlsx")

    # The same tree, built again for yet another prefix without installing: the .pc file follows.
    make(build, "all", f"PREFIX={tmp_path / 'other'}")
    assert pc_vars(build / "profreport.pc")["prefix"] == str(tmp_path / "other")


def test_destdir_stages_the_prefix_and_a_moved_tree_still_finds_its_templates(tmp_path):
    """DESTDIR puts the files under stage/PREFIX while the .pc files name PREFIX itself; the
    staged profreport, whose PREFIX does not exist, finds the templates beside itself."""
    build = copied_build(tmp_path)
    stage = tmp_path / "stage"
    prefix = "/opt/profreport-test-prefix"
    assert not Path(prefix).exists()
    make(build, "install", f"PREFIX={prefix}", f"DESTDIR={stage}")
    staged = stage / prefix.lstrip("/")
    assert (staged / "include" / "profreport.h").is_file()
    assert (staged / "share" / "profreport" / "templates" / "callcost.gp").is_file()
    assert pc_vars(staged / "lib" / "pkgconfig" / "profreport.pc")["prefix"] == prefix
    # The version has one source, the header: the installed man pages and the command say it,
    # and so do the pages in the tree (read with man -l).
    version = re.search(r'^#define PROF_VERSION_STRING "(.*)"$',
                        (ROOT / "include" / "profreport.h").read_text(), re.M).group(1)
    for page in ("man1/profreport.1", "man3/profreport.3"):
        for text in ((staged / "share" / "man" / page).read_text(),
                     (ROOT / "man" / Path(page).name).read_text()):
            title = next(line for line in text.splitlines() if line.startswith(".TH "))
            assert re.search(rf'^\.TH PROFREPORT \d \S+ "profreport {re.escape(version)}"', title), title
    said = subprocess.run([str(staged / "bin" / "profreport"), "--version"], capture_output=True,
                          text=True).stdout
    assert said.startswith(f"profreport {version} "), said
    runs = tmp_path / "runs"
    subprocess.run([str(BUILD / "examples" / "basic")], env=dict(os.environ, PROFILER_DIR=str(runs)),
                   check=True, capture_output=True, timeout=60)
    report_has_charts(staged / "bin" / "profreport", runs, tmp_path / "report.xlsx")


def test_soname_carries_the_minor_while_the_major_is_zero():
    """A 0.x minor may change the binary interface, so a program built against one minor must
    not load another: the soname is libprofreport.so.0.MINOR, read from the header's version
    here, and every built program and the preload library need exactly that name."""
    header = (ROOT / "include" / "profreport.h").read_text()
    major, minor, patch = (int(re.search(rf"#define PROF_VERSION_{k} (\d+)", header).group(1))
                           for k in ("MAJOR", "MINOR", "PATCH"))
    want = f"0.{minor}" if major == 0 else f"{major}"
    for lib in ("libprofreport", "libprofreport-auto"):
        real = BUILD / f"{lib}.so.{major}.{minor}.{patch}"
        dyn = subprocess.run(["readelf", "-d", str(real)], capture_output=True, text=True).stdout
        assert f"Library soname: [{lib}.so.{want}]" in dyn, dyn
    for user in (BUILD / "examples" / "basic", BUILD / "libprofreport-malloc.so"):
        dyn = subprocess.run(["readelf", "-d", str(user)], capture_output=True, text=True).stdout
        assert f"Shared library: [libprofreport.so.{want}]" in dyn, dyn


@pytest.mark.skipif(os.geteuid() != 0, reason="only root's install may run ldconfig")
def test_install_runs_ldconfig_only_for_a_folder_the_loader_searches_without_destdir(tmp_path):
    """As root, `make install` renews the loader's cache for a prefix whose lib folder the
    loader's configuration (LD_SO_CONF) lists, and for nothing else: not for a private prefix,
    not for a staged install of a listed one. An ldconfig first on PATH records its calls."""
    build = copied_build(tmp_path)
    bin_dir, calls = tmp_path / "bin", tmp_path / "ldconfig-calls"
    bin_dir.mkdir()
    (bin_dir / "ldconfig").write_text(f"#!/bin/sh\necho called >> '{calls}'\n")
    (bin_dir / "ldconfig").chmod(0o755)
    listed = tmp_path / "listed"
    conf = tmp_path / "ld.so.conf"
    conf.write_text(f"# the loader's folders\n{listed / 'lib'}\n")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}")
    common = [f"LD_SO_CONF={conf}"]
    make(build, "install", f"PREFIX={tmp_path / 'private'}", *common, env=env)
    make(build, "install", f"PREFIX={listed}", f"DESTDIR={tmp_path / 'stage'}", *common, env=env)
    assert not calls.exists()
    make(build, "install", f"PREFIX={listed}", *common, env=env)
    assert calls.read_text() == "called\n"
