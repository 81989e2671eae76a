"""test_integration.py - profreport used from other builds, as an installed library.

A DESTDIR-staged install, whose prefix does not exist, serves the small projects of
tests/integration: CMake (find_package with each imported target, pkg_check_modules with the
shared and the static pkg-config file) and Meson (dependency()). Every program they build runs,
leaves a run file, and the staged profreport reads it. The README's "Using profreport in your
build" lines run against an install under a temporary $HOME, and a copy of profreport.h alone
builds the examples with recording off.
"""
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import INCLUDE, clean_env, run_files
from reporter_helpers import Book
from test_install import copied_build, make

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PROF_BUILD", ROOT / "build"))
SAN = os.environ.get("PROF_SAN", "")
PROJECTS = ROOT / "tests" / "integration"
STAGED_PREFIX = "/opt/profreport-integration-test"

pytestmark = pytest.mark.skipif(SAN != "", reason="installs are tested once, in the plain build")


def header_version():
    """PROF_VERSION_STRING and the soname's number (0.MINOR while the major is 0)."""
    text = (INCLUDE / "profreport.h").read_text()
    version = re.search(r'^#define PROF_VERSION_STRING "(.*)"$', text, re.M).group(1)
    major, minor = version.split(".")[:2]
    return version, (f"0.{minor}" if major == "0" else major)


def run(argv, env=None, cwd=None, timeout=300):
    """Run a build command; its output is the failure message."""
    done = subprocess.run([str(a) for a in argv], env=env, cwd=cwd, capture_output=True,
                          text=True, timeout=timeout)
    assert done.returncode == 0, f"{argv}:\n{done.stdout}\n{done.stderr}"
    return done.stdout


def needed(binary):
    """The shared libraries a program names (DT_NEEDED) and its run paths."""
    dyn = run(["readelf", "-d", binary])
    return (re.findall(r"Shared library: \[(.*?)\]", dyn),
            re.findall(r"R(?:UN)?PATH.*\[(.*?)\]", dyn))


def run_and_report(binary, profreport, tmp, env=None):
    """Run a program without LD_LIBRARY_PATH; it leaves one run file, which profreport reads.
    Returns the Call cost rows by region."""
    runs = tmp / f"runs-{binary.parent.name}-{binary.name}"
    env = clean_env({"PROFILER_DIR": runs, "LD_LIBRARY_PATH": None, **(env or {})})
    done = subprocess.run([str(binary)], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "", f"{binary}: {done.stderr}"
    assert len(run_files(runs)) == 1, f"{binary} left {run_files(runs)}"
    out = runs.with_suffix(".xlsx")
    run([profreport, runs, "-o", out, "--no-gnuplot"])
    return Book(out).cost()[1]


def check_program(binary, profreport, tmp, library, automatic):
    """One integration program: it needs the shared library it was linked with (and finds it
    through its run path) or none at all, and its run reports the hand-made region and, when
    every function is timed, work() called three times."""
    libs, _ = needed(binary)
    ours = [n for n in libs if n.startswith("libprofreport")]
    _, somajor = header_version()
    assert ours == ([f"{library}.so.{somajor}"] if library else []), (binary, libs)
    cost = run_and_report(binary, profreport, tmp)
    assert cost["integration"]["Calls"] == 1, (binary, cost)
    if automatic:
        assert cost["work"]["Calls"] == 3 and "main" in cost, (binary, cost)
    else:
        assert "work" not in cost, (binary, cost)


@pytest.fixture(scope="module")
def staged(tmp_path_factory):
    """make install PREFIX=STAGED_PREFIX DESTDIR=stage; returns (stage, the prefix in it)."""
    tmp = tmp_path_factory.mktemp("staged")
    assert not Path(STAGED_PREFIX).exists()
    make(copied_build(tmp), "install", f"PREFIX={STAGED_PREFIX}", f"DESTDIR={tmp / 'stage'}")
    return tmp / "stage", tmp / "stage" / STAGED_PREFIX.lstrip("/")


def staged_pkg_config_env(stage, prefix):
    """pkg-config pointed at the staged files; the sysroot turns the .pc files' /opt/... paths
    into the stage's."""
    return dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"),
                PKG_CONFIG_SYSROOT_DIR=str(stage))


# Each integration program: (the shared library it needs or None, every function timed).
CMAKE_PROGRAMS = {
    "app_shared": ("libprofreport", False),
    "app_static": (None, False),
    "app_auto": ("libprofreport-auto", True),
    "app_auto_static": (None, True),
    "app_pkg_shared": ("libprofreport", False),
    "app_pkg_static": (None, False),
}
MESON_PROGRAMS = {
    "app_shared": ("libprofreport", False),
    "app_static": (None, False),
    "app_pkg_static": (None, False),
    "app_auto": ("libprofreport-auto", True),
    "app_auto_static": (None, True),
}


@pytest.mark.parametrize("compiler", ["gcc", "clang"])
def test_cmake_project_finds_the_staged_package_and_every_target_runs(staged, tmp_path, compiler):
    """tests/integration/cmake, configured with CMAKE_PREFIX_PATH at the staged prefix: the
    package found is the staged one (its paths computed from its own folder), profreport::auto
    compiles with the compiler's own instrumentation option, and each program, shared or
    static, by find_package or by pkg-config, runs and leaves a run file profreport reads."""
    if shutil.which(compiler) is None:
        pytest.skip(f"{compiler} is not installed")
    stage, prefix = staged
    build = tmp_path / "build"
    env = dict(staged_pkg_config_env(stage, prefix), CC=compiler)
    run(["cmake", "-S", PROJECTS / "cmake", "-B", build, f"-DCMAKE_PREFIX_PATH={prefix}",
         "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], env=env)
    cache = (build / "CMakeCache.txt").read_text()
    assert f"profreport_DIR:PATH={prefix}/lib/cmake/profreport" in cache
    run(["cmake", "--build", build, "-j2"], env=env)

    commands = (build / "compile_commands.json").read_text()
    option = ("-finstrument-functions-after-inlining" if compiler == "clang"
              else "-finstrument-functions")
    # gcc hooks the copies it inlines: the package leaves out what headers define, as the
    # README's gcc recipe does (ninja: 10.5x slower than plain without it, 1.6x with it)
    headers = "-finstrument-functions-exclude-file-list=/usr/include,.h"
    for target, (_, automatic) in CMAKE_PROGRAMS.items():
        line = next(c for c in commands.splitlines() if f"/{target}.dir/" in c)
        assert (f" {option} " in line) == automatic, line
        assert "-finstrument-functions" in line if automatic else "instrument" not in line
        assert (headers in line) == (automatic and compiler == "gcc"), line
    for target, (library, automatic) in CMAKE_PROGRAMS.items():
        check_program(build / target, prefix / "bin" / "profreport", tmp_path, library, automatic)


def test_cmake_package_refuses_another_minor_version(staged, tmp_path):
    """While the major is 0 only the same minor is compatible (as with the soname):
    find_package(profreport 0.MINOR+1) does not take this install, and 0.MINOR does."""
    stage, prefix = staged
    version, _ = header_version()
    major, minor = (int(v) for v in version.split(".")[:2])
    for asked, found in ((f"{major}.{minor}", True), (f"{major}.{minor + 1}", False)):
        src = tmp_path / asked
        src.mkdir()
        (src / "CMakeLists.txt").write_text(
            "cmake_minimum_required(VERSION 3.15)\nproject(v C)\n"
            f"find_package(profreport {asked})\n"
            'message(STATUS "found=${profreport_FOUND} version=${profreport_VERSION}")\n')
        out = run(["cmake", "-S", src, "-B", src / "build", f"-DCMAKE_PREFIX_PATH={prefix}"])
        want = f"found=1 version={version}" if found else "found=0"
        assert want in out, out


def test_meson_project_builds_with_dependency_and_every_program_runs(staged, tmp_path):
    """tests/integration/meson, set up with pkg-config pointed at the stage: dependency() of
    profreport (shared, and static: true), profreport-static, profreport-auto and
    profreport-auto-static each give a program that runs and leaves a run file."""
    stage, prefix = staged
    build = tmp_path / "build"
    env = staged_pkg_config_env(stage, prefix)
    run(["meson", "setup", build, PROJECTS / "meson"], env=env)
    run(["ninja", "-C", build], env=env)
    for target, (library, automatic) in MESON_PROGRAMS.items():
        check_program(build / target, prefix / "bin" / "profreport", tmp_path, library, automatic)


def test_static_pkg_config_names_the_archive_with_what_it_needs(staged):
    """`pkg-config --libs` of the static files, with or without --static, names the archive
    itself (the linker would take the .so for -lprofreport), and -pthread; the automatic one
    also libdw and libiberty, and its cflags the instrumentation option."""
    stage, prefix = staged
    env = staged_pkg_config_env(stage, prefix)
    for name, archive, extra in (("profreport-static", "libprofreport.a", []),
                                 ("profreport-auto-static", "libprofreport-auto.a",
                                  ["-ldw", "-liberty"])):
        for flags in ([], ["--static"]):
            words = run(["pkg-config", *flags, "--libs", name], env=env).split()
            assert f"-l:{archive}" in words and "-pthread" in words, words
            assert not any(w.startswith("-lprofreport") for w in words), words
            assert all(w in words for w in extra), words
    cflags = run(["pkg-config", "--cflags", "profreport-auto-static"], env=env).split()
    assert "-finstrument-functions" in cflags


# ---- the README's lines ----


def readme_section():
    """The fenced blocks of README.md's "Using profreport in your build": [(language, text)]."""
    text = (ROOT / "README.md").read_text()
    assert "\n## Using profreport in your build\n" in text
    section = text.split("\n## Using profreport in your build\n", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```(\w+)\n(.*?)```", section, re.S)


def readme_example():
    """The README's app.c."""
    return re.search(r"```c\n(.*?)```", (ROOT / "README.md").read_text(), re.S).group(1)


@pytest.fixture(scope="module")
def home_install(tmp_path_factory):
    """make install PREFIX=$HOME/.local, with $HOME a folder of the test; returns $HOME."""
    tmp = tmp_path_factory.mktemp("home")
    home = tmp / "home"
    make(copied_build(tmp), "install", f"PREFIX={home / '.local'}")
    return home


def run_shell_lines(block, cwd, env):
    """Run a README sh block line by line, `export` lines setting the environment."""
    for line in block.strip().splitlines():
        if line.startswith("export "):
            key, value = line[len("export "):].split("=", 1)
            env[key] = value.replace("$HOME", env["HOME"])
        else:
            done = subprocess.run(line, shell=True, cwd=cwd, env=env, capture_output=True,
                                  text=True, timeout=300)
            assert done.returncode == 0, f"{line}:\n{done.stdout}\n{done.stderr}"


def built_programs(folder):
    """The executables a README block built: files named app* (build folders included)."""
    return sorted(p for p in folder.rglob("app*") if p.is_file() and os.access(p, os.X_OK)
                  and p.suffix == "")


def test_readme_build_lines_each_build_a_program_that_runs(home_install, tmp_path):
    """Every block of "Using profreport in your build", in a folder with the README's app.c
    (a CMakeLists.txt or meson.build block starts a project, and the sh block after it builds
    it): each program built runs without LD_LIBRARY_PATH and leaves a run file that the
    installed profreport reads, with the example's 100 steps (200 when every function is
    timed: the region and the function step()); built with -DPROFILER_DISABLE it links nothing
    and leaves none."""
    blocks = readme_section()
    langs = [lang for lang, _ in blocks]
    assert langs.count("cmake") == 1 and langs.count("meson") == 1, langs
    env = dict(os.environ, HOME=str(home_install))
    env.pop("LD_LIBRARY_PATH", None)
    env.pop("PKG_CONFIG_PATH", None)
    programs, project = {}, None
    for i, (lang, text) in enumerate(blocks):
        if lang in ("cmake", "meson"):
            project = tmp_path / f"block{i}"
            project.mkdir()
            (project / ("CMakeLists.txt" if lang == "cmake" else "meson.build")).write_text(text)
            continue
        assert lang == "sh", lang
        folder, project = project or tmp_path / f"block{i}", None
        folder.mkdir(exist_ok=True)
        (folder / "app.c").write_text(readme_example())
        if "-Ithird_party" in text:
            (folder / "third_party").mkdir()
            shutil.copy(INCLUDE / "profreport.h", folder / "third_party")
        run_shell_lines(text, folder, env)
        built = built_programs(folder)
        assert built, f"block {i} built nothing:\n{text}"
        programs.update({p: "-DPROFILER_DISABLE" in text for p in built})
    names = {p.name for p in programs}
    assert {"app", "app-static", "app-auto", "app-off"} <= names, names
    assert "app-auto-clang" in names or shutil.which("clang") is None, names
    profreport = home_install / ".local" / "bin" / "profreport"
    for binary, disabled in programs.items():
        libs, _ = needed(binary)
        ours = [n for n in libs if n.startswith("libprofreport")]
        if disabled:
            assert ours == [], (binary, libs)
            runs = tmp_path / "off-runs"
            done = subprocess.run([str(binary)], env=clean_env({"PROFILER_DIR": runs}),
                                  capture_output=True, text=True, timeout=60)
            assert done.returncode == 0 and not runs.exists(), binary
            continue
        assert bool(ours) != binary.name.endswith("-static"), (binary, libs)
        cost = run_and_report(binary, profreport, tmp_path)
        timed = binary.name.startswith("app-auto")
        assert cost["step"]["Calls"] == (200 if timed else 100), (binary, cost)


INLINED = r"""#include <profreport.h>
static int sq(int x) { return x * x; }
__attribute__((noinline)) int sum(int n)
{
    int s = 0;
    for (int i = 0; i < n; i++)
        s += sq(i);
    return s;
}
int main(int argc, char **argv)
{
    (void)argv;
    return sum(argc * 1000) == 1;
}
"""


def test_readme_clang_recipe_hooks_only_what_clang_left_after_inlining(home_install, tmp_path):
    """The README's clang line ("Timing every function"), with the installed package: a static
    helper clang inlines at -O2 gets no hooks, and the function it was inlined into does. The
    package's Cflags carry gcc's -finstrument-functions, and clang given both options hooks
    every inlined copy too (jq 1.6 ran 20x slower than plain that way, 4x without)."""
    if shutil.which("clang") is None:
        pytest.skip("clang is not installed")
    text = (ROOT / "README.md").read_text()
    section = text.split("\n## Timing every function\n", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```\n(.*?)```", section, re.S).group(1).replace("\\\n", " ")
    line = next(l for l in block.splitlines() if l.startswith("clang "))
    assert "-finstrument-functions-after-inlining" in line and "-O2" in line, line
    (tmp_path / "app.c").write_text(INLINED)
    lib = home_install / ".local" / "lib"
    env = dict(os.environ, HOME=str(home_install), PKG_CONFIG_PATH=str(lib / "pkgconfig"))
    run_shell_lines(line, tmp_path, env)
    cost = run_and_report(tmp_path / "app", home_install / ".local" / "bin" / "profreport",
                          tmp_path, env={"LD_LIBRARY_PATH": str(lib)})
    assert cost["sum"]["Calls"] == 1 and cost["main"]["Calls"] == 1, cost
    assert "sq" not in cost, sorted(cost)


def test_the_header_alone_builds_the_examples_with_recording_off(tmp_path):
    """A copy of profreport.h and nothing else of profreport: every example compiles with
    -DPROFILER_DISABLE and warnings as errors, links no library, names no prof_ symbol, runs,
    and records nothing."""
    include = tmp_path / "include"
    include.mkdir()
    shutil.copy(INCLUDE / "profreport.h", include)
    examples = sorted((ROOT / "examples").glob("*.c")) + sorted((ROOT / "examples").glob("*.cpp"))
    assert len(examples) >= 3
    for src in examples:
        exe = tmp_path / src.stem
        compiler = ["c++", "-std=c++17"] if src.suffix == ".cpp" else ["cc", "-std=c11"]
        run([*compiler, "-Wall", "-Wextra", "-Werror", "-DPROFILER_DISABLE", f"-I{include}",
             src, "-o", exe, "-pthread"], cwd=tmp_path)
        undefined = run(["nm", "-u", exe])
        assert "prof_" not in undefined, undefined
        runs = tmp_path / f"runs-{src.stem}"
        done = subprocess.run([str(exe)], env=clean_env({"PROFILER_DIR": runs}),
                              capture_output=True, timeout=120, cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert not runs.exists() and not (tmp_path / "profiler-runs").exists(), src
