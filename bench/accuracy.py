#!/usr/bin/python3
"""accuracy.py - how close libprofreport-auto's profile is to the program it measured.

Four real programs from Debian's sources (zstd, Lua 5.4, yaml-cpp's util/parse, SQLite's
speedtest1), each built plain, with empty -finstrument-functions hooks (in the program, and in a
shared library as libprofreport-auto is), with libprofreport-auto (gcc
-finstrument-functions and clang -finstrument-functions-after-inlining) in each profreport mode,
with gcc's -pg (gprof) and under uftrace; and gcc's build as the README recommends it: the
functions of headers left out at compile time, then the functions `profreport --suggest-exclude`
names after a run of that build left out too (ACC_SUGGEST_ROUNDS rounds, each run on the build
of the round before); and the same names left out at run time instead (PROFILER_EXCLUDE, whose
hook calls the collector patches out): gcc's first round on the headers-out build, and clang's
own rounds on its build, each run with the list `profreport --suggest-list` wrote in the rounds
before (PROFILER_EXCLUDE=@FILE, as the README says); and clang's build linked
with libprofreport-auto.a, with everything kept and after the last round. For each configuration it
prints the slowdown against
the plain build (min/median/max of alternated runs), the time per run the profile reports
against the plain build's wall time and against its main()'s (mainwall.c), and how far the top 15 self shares are from perf's
cpu-clock samples of the plain binary, and of the plain build compiled with
-fno-optimize-sibling-calls (a plain function that ends by calling another jumps to it, so perf
charges the callee to the caller's caller; an instrumented function cannot). bench/README.md
("Accuracy bench") explains the columns.

Usage: accuracy.py BUILD_DIR WORK_DIR
  ACC_REPS=5           timed runs of every configuration (alternated, one of each per round)
  ACC_MIN_SECONDS=1.5  then more rounds of the configurations whose timed runs took less
  ACC_MAX_ROUNDS=30    than this in all, up to this many rounds (short programs' medians)
  ACC_PROGRAMS=zstd,lua,yaml,sqlite   which programs
  ACC_SQLITE_SIZE=21   speedtest1's --size (its main test set, in memory)
  ACC_PERF_RUNS=10     runs of each plain binary under perf record, at least; more when
  ACC_PERF_SECONDS=3   the runs take less CPU time than this (sampled rows: untimed runs
                       after the rounds until the profile holds this much CPU time)
  ACC_ZSTD_ARGS="-9 -T1"   zstd's options ("-9 --single-thread --no-asyncio": one thread)
  ACC_SUGGEST_ROUNDS=2 rounds of run, --suggest-exclude, rebuild with gcc @FILE (0: none),
                       and of clang's rounds at run time
  ACC_FETCH_ONLY=1     fetch and build, measure nothing (used to prepare /work/accsrc)
Everything it downloads and builds stays under WORK_DIR/acc/; a second run reuses it.
"""

import concurrent.futures
import glob
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SUGGEST_ROUNDS = int(os.environ.get("ACC_SUGGEST_ROUNDS", "2"))

# Debian's mirror, as the system's own apt sources name it; the source entries live in a
# private apt configuration under WORK_DIR/acc/apt, so the system's is never changed.
MIRROR = "http://deb.debian.org/debian"
SECURITY = "http://deb.debian.org/debian-security"


def log(msg):
    """Progress on stderr, so stdout holds only the tables."""
    print("accuracy: " + msg, file=sys.stderr, flush=True)


def run(cmd, **kw):
    """Run a command; its failure stops the bench with the command's output."""
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, **kw)
    if res.returncode != 0:
        sys.exit("accuracy: failed (%d): %s\n%s" % (res.returncode, " ".join(cmd),
                                                   res.stdout[-4000:]))
    return res.stdout


def apt_suite():
    """The Debian release the system's apt sources use (bookworm here)."""
    for path in glob.glob("/etc/apt/sources.list.d/*.sources") + glob.glob("/etc/apt/sources.list"):
        with open(path) as f:
            m = re.search(r"^Suites:\s*(\S+)", f.read(), re.M)
            if m:
                return m.group(1)
    return subprocess.run(["sh", "-c", ". /etc/os-release && echo $VERSION_CODENAME"],
                          stdout=subprocess.PIPE, text=True).stdout.strip()


# Debian source package, the tree dpkg-source makes of it, and how the bench builds it: the
# sources each program's own Makefile or CMakeLists compiles, compiled with one command line per
# configuration, so that configurations differ in the instrumentation flag alone.
PROGRAMS = {
    "zstd": {
        "package": "libzstd",
        "lang": "c",
        "sources": ["lib/common/*.c", "lib/compress/*.c", "lib/decompress/*.c",
                    "lib/decompress/huf_decompress_amd64.S", "lib/dictBuilder/*.c", "programs/*.c"],
        "cppflags": ["-DXXH_NAMESPACE=ZSTD_", "-DZSTD_MULTITHREAD", "-DZSTD_LEGACY_SUPPORT=0",
                     "-DDEBUGLEVEL=0", "-Ilib", "-Ilib/common", "-Iprograms"],
        "libs": ["-pthread"],
        "binary": "zstd",
    },
    "lua": {
        "package": "lua5.4",
        "lang": "c",
        "sources": ["src/*.c"],
        "exclude": ["src/luac.c"],
        "cppflags": ["-DLUA_COMPAT_5_3", "-DLUA_USE_LINUX"],
        "libs": ["-lm", "-ldl"],
        "binary": "lua",
        # written by debian/rules before the build (Debian's luaconf.h patch includes it)
        "generated": {"src/lua5.4-deb-multiarch.h": "#define DEB_HOST_MULTIARCH \"%s\"\n"},
    },
    "yaml": {
        "package": "yaml-cpp",
        "lang": "c++",
        "sources": ["src/*.cpp", "src/contrib/*.cpp", "util/parse.cpp"],
        "cppflags": ["-Iinclude", "-Isrc"],
        "libs": [],
        "binary": "parse",
    },
    # A database engine: SQLite's own benchmark, speedtest1, on the amalgamation the source
    # tree's Makefile generates (its tools need tclsh), as SQLite's releases ship it.
    "sqlite": {
        "package": "sqlite3",
        "lang": "c",
        "prepare": ("mkdir -p bench-bld && cd bench-bld && ../configure --disable-tcl "
                    ">/dev/null && make sqlite3.c >/dev/null"),
        "prepared": "bench-bld/sqlite3.c",
        "sources": ["bench-bld/sqlite3.c", "test/speedtest1.c"],
        "cppflags": ["-DSQLITE_THREADSAFE=0", "-DSQLITE_OMIT_LOAD_EXTENSION", "-Ibench-bld"],
        "libs": ["-lm"],
        "binary": "speedtest1",
    },
}

# The programs whose C sources make zstd's input (the same 8 MB whichever programs run).
INPUT_TREES = ("zstd", "lua", "yaml")

# gcc's -finstrument-functions as the README recommends it: no hooks in what headers define
# (the library's and the program's own inline helpers; gcc matches the list as substrings of
# the path of the file declaring each function, so ".h" also covers .hpp and .hh).
GCC_HEADERS_OUT = ["-finstrument-functions",
                   "-finstrument-functions-exclude-file-list=/usr/include,.h"]

# The compiled builds: compiler family and the flags beside -O2 -g. The plain-nosib builds
# are the second reference for the shares: a plain -O2 function that ends by calling another
# jumps to it (sibling call), so perf charges the callee's time (realloc in Lua's l_alloc) to
# the caller's caller; an instrumented function cannot (its exit hook runs after the call).
BUILDS = {
    "plain-gcc": ("gcc", []),
    "plain-clang": ("clang", []),
    "plain-nosib-gcc": ("gcc", ["-fno-optimize-sibling-calls"]),
    "plain-nosib-clang": ("clang", ["-fno-optimize-sibling-calls"]),
    "fi-gcc": ("gcc", ["-finstrument-functions"]),
    "fi-gcc-hdr": ("gcc", GCC_HEADERS_OUT),
    "fi-clang": ("clang", ["-finstrument-functions-after-inlining"]),
    "pg": ("gcc", ["-pg"]),
}


def compilers(family, lang):
    """The compiler driver for a family and language."""
    if family == "gcc":
        return "g++" if lang == "c++" else "gcc"
    return "clang++" if lang == "c++" else "clang"


def fetch(acc, names):
    """Download and unpack the Debian source packages once, through a private deb-src list:
    those of the programs named, and those zstd's input is made of."""
    src = os.path.join(acc, "src")
    os.makedirs(src, exist_ok=True)
    trees = {}
    missing = []
    wanted = set(names) | (set(INPUT_TREES) if "zstd" in names else set())
    for name, p in PROGRAMS.items():
        if name not in wanted:
            continue
        found = [d for d in glob.glob(os.path.join(src, p["package"] + "-*")) if os.path.isdir(d)]
        if found:
            trees[name] = found[0]
        else:
            missing.append(name)
    if not missing:
        return trees
    apt = os.path.join(acc, "apt")
    for d in ("lists/partial", "cache/archives/partial"):
        os.makedirs(os.path.join(apt, d), exist_ok=True)
    suite = apt_suite()
    with open(os.path.join(apt, "sources.list"), "w") as f:
        f.write("deb-src %s %s main\n" % (MIRROR, suite))
        f.write("deb-src %s %s-updates main\n" % (MIRROR, suite))
        f.write("deb-src %s %s-security main\n" % (SECURITY, suite))
    opts = ["-o", "Dir::Etc::SourceList=" + os.path.join(apt, "sources.list"),
            "-o", "Dir::Etc::SourceParts=" + os.path.join(apt, "none"),
            "-o", "Dir::State::Lists=" + os.path.join(apt, "lists"),
            "-o", "Dir::Cache=" + os.path.join(apt, "cache")]
    if os.getuid() == 0:
        opts += ["-o", "APT::Sandbox::User=root"]  # root writes the files itself, not _apt
    log("fetching Debian sources (%s) from %s, %s" % (", ".join(missing), MIRROR, suite))
    run(["apt-get", "-q"] + opts + ["update"])
    for name in missing:
        pkg = PROGRAMS[name]["package"]
        run(["apt-get", "-q"] + opts + ["source", "--download-only", pkg], cwd=src)
        dsc = sorted(glob.glob(os.path.join(src, pkg + "_*.dsc")))[-1]
        run(["dpkg-source", "--no-check", "-x", os.path.basename(dsc)], cwd=src)
        trees[name] = [d for d in glob.glob(os.path.join(src, pkg + "-*")) if os.path.isdir(d)][0]
    return trees


def compile_one(job):
    """Compile one source file unless its object is newer than the source and the flags match."""
    cmd, src, obj = job
    stamp = obj + ".cmd"
    line = "\0".join(cmd)
    for a in cmd:  # an options file (gcc @FILE) counts by its content
        if a.startswith("@"):
            with open(a[1:]) as f:
                line += "\0" + f.read()
    if os.path.exists(obj) and os.path.getmtime(obj) >= os.path.getmtime(src) \
            and os.path.exists(stamp) and open(stamp).read() == line:
        return None
    res = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if res.returncode != 0:
        return "%s\n%s" % (" ".join(cmd), res.stdout[-3000:])
    with open(stamp, "w") as f:
        f.write(line)
    return None


def build_program(name, tree, acc, build_dir, pool, inputs):
    """Compile every build of one program and link its binaries, then the rounds of suggested
    exclusions; returns {config: binary path}."""
    p = PROGRAMS[name]
    if "prepare" in p and not os.path.exists(os.path.join(tree, p["prepared"])):
        log("preparing %s: %s" % (name, p["prepare"]))
        run(["sh", "-c", p["prepare"]], cwd=tree)
    srcs = []
    for pattern in p["sources"]:
        srcs += sorted(glob.glob(os.path.join(tree, pattern)))
    srcs = [s for s in srcs if os.path.relpath(s, tree) not in p.get("exclude", [])]
    for path, text in p.get("generated", {}).items():
        path = os.path.join(tree, path)
        if not os.path.exists(path):
            arch = run(["gcc", "-print-multiarch"]).strip()
            with open(path, "w") as f:
                f.write(text % arch)
    out = os.path.join(acc, "bin", name)
    cppflags = [("-I" + os.path.join(tree, f[2:])) if f.startswith("-I") else f
                for f in p["cppflags"]]

    def compile_builds(builds):
        """Compile the builds {name: (family, flags)}; {name: object files}."""
        jobs = []
        objs = {}
        for b, (family, flags) in builds.items():
            d = os.path.join(out, b)
            os.makedirs(d, exist_ok=True)
            cc = compilers(family, p["lang"])
            objs[b] = []
            for s in srcs:
                o = os.path.join(d, os.path.relpath(s, tree).replace("/", "_") + ".o")
                jobs.append(([cc, "-O2", "-g"] + flags + cppflags + ["-c", s, "-o", o], s, o))
                objs[b].append(o)
        log("building %s: %d compilations (cached ones skipped)" % (name, len(jobs)))
        errors = [e for e in pool.map(compile_one, jobs) if e]
        if errors:
            sys.exit("accuracy: compilation failed:\n" + errors[0])
        return objs

    def link(links, objs):
        """Link {config: (build, family, extra)}; {config: binary}."""
        bins = {}
        for config, (b, family, extra) in links.items():
            exe = os.path.join(out, config, p["binary"])
            os.makedirs(os.path.dirname(exe), exist_ok=True)
            run([compilers(family, p["lang"])] + objs[b] + extra + p["libs"] + ["-o", exe])
            bins[config] = exe
        return bins

    objs = compile_builds(BUILDS)
    hooks = {}
    hooks_so = {}
    for family in ("gcc", "clang"):
        o = os.path.join(acc, "bin", "empty_hooks-%s.o" % family)
        run([compilers(family, "c"), "-O2", "-c", os.path.join(HERE, "empty_hooks.c"), "-o", o])
        hooks[family] = o
        # the same hooks in a shared library: the program calls them through its PLT, as it
        # calls libprofreport-auto.so's
        d = os.path.join(acc, "bin", "empty_hooks-%s" % family)
        os.makedirs(d, exist_ok=True)
        run([compilers(family, "c"), "-O2", "-shared", "-fPIC", os.path.join(HERE, "empty_hooks.c"),
             "-o", os.path.join(d, "libempty_hooks.so")])
        hooks_so[family] = ["-L" + d, "-Wl,-rpath," + d, "-lempty_hooks"]
    auto = ["-L" + build_dir, "-Wl,-rpath," + build_dir, "-lprofreport-auto"]
    # the same library linked into the program (pkg-config profreport-auto-static): the
    # program calls the hooks directly, not through its PLT
    auto_static = [os.path.join(build_dir, "libprofreport-auto.a"), "-ldw", "-liberty",
                   "-pthread"]
    bins = link({
        "plain-gcc": ("plain-gcc", "gcc", []),
        "plain-clang": ("plain-clang", "clang", []),
        "plain-nosib-gcc": ("plain-nosib-gcc", "gcc", []),
        "plain-nosib-clang": ("plain-nosib-clang", "clang", []),
        "empty-gcc": ("fi-gcc", "gcc", [hooks["gcc"]]),
        "empty-clang": ("fi-clang", "clang", [hooks["clang"]]),
        "emptyso-gcc": ("fi-gcc", "gcc", hooks_so["gcc"]),
        "emptyso-clang": ("fi-clang", "clang", hooks_so["clang"]),
        "auto-static-clang": ("fi-clang", "clang", auto_static),
        "auto-gcc": ("fi-gcc", "gcc", auto),
        "auto-clang": ("fi-clang", "clang", auto),
        "empty-gcc-hdr": ("fi-gcc-hdr", "gcc", [hooks["gcc"]]),
        "auto-gcc-hdr": ("fi-gcc-hdr", "gcc", auto),
        "pg": ("pg", "gcc", ["-pg"]),
    }, objs)
    def suggest(label, exe, exclude, opt, option="--suggest-exclude"):
        """Run exe once with exclude left out at run time, and the reporter on that run with
        option (--suggest-exclude or --suggest-list) opt; what it said."""
        d = os.path.join(acc, "runs", name, label)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        env = dict(os.environ, PROFILER_DIR=os.path.join(d, "runs"), PROFILER_EXCLUDE=exclude)
        for key in ("PROFILER_MODE", "PROFILER_TIMING", "PROFILER_INCLUDE", "PROFILER_PATCH"):
            env.pop(key, None)
        res = subprocess.run(command(name, exe, inputs), env=env, cwd=d,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        if res.returncode != 0:
            sys.exit("accuracy: %s (%s) failed: %s" % (exe, label, res.stderr[-2000:]))
        said = run([os.path.join(build_dir, "profreport"), "--no-gnuplot",
                    os.path.join(d, "runs"), "-o", os.path.join(d, "report.xlsx"),
                    option, opt])
        log("%s: %s: %s" % (name, label, " ".join(
            l for l in said.splitlines() if l.startswith("suggest: ") and " functions " in l)))
        return said

    # The loop the README recommends for gcc: run the build, let the reporter suggest
    # exclusions, rebuild with them (gcc @FILE); each round runs the build of the round before.
    flags = list(GCC_HEADERS_OUT)
    prev = bins["auto-gcc-hdr"]
    for k in range(1, SUGGEST_ROUNDS + 1):
        opt = os.path.join(out, "suggest%d.opt" % k)
        if os.path.exists(opt):  # the reporter would keep an earlier bench run's names
            os.remove(opt)
        said = suggest("suggest%d" % k, prev, "", opt)
        save_exclude(out, "gcc%d" % k, said, exclude_of(out, "gcc%d" % (k - 1)))
        flags = flags + ["@" + opt]
        b = "fi-gcc-sug%d" % k
        objs.update(compile_builds({b: ("gcc", flags)}))
        bins.update(link({"empty-gcc-sug%d" % k: (b, "gcc", [hooks["gcc"]]),
                          "auto-gcc-sug%d" % k: (b, "gcc", auto)}, objs))
        prev = bins["auto-gcc-sug%d" % k]
    # The same loop without rebuilding, as a clang user has it (the README's): each round runs
    # the clang build with the list of the round before (PROFILER_EXCLUDE=@FILE: their hook
    # calls patched out), and the reporter adds the names it suggests next to that list
    # (--suggest-list), kept as this round's.
    for k in range(1, SUGGEST_ROUNDS + 1):
        before = exclude_of(out, "clang%d" % (k - 1))
        listing = os.path.join(out, "clang%d.list" % k)
        if k > 1:  # the round before's list, empty or not
            shutil.copyfile(os.path.join(out, "clang%d.list" % (k - 1)), listing)
        elif os.path.exists(listing):
            os.remove(listing)
        suggest("suggest-clang%d" % k, bins["auto-clang"], before, listing, "--suggest-list")
        with open(listing) as f:  # nothing suggested: no row of its own ("n/a")
            globs = [l for l in f.read().splitlines() if l.strip() and not l.startswith("#")]
        with open(exclude_file(out, "clang%d" % k), "w") as f:
            f.write(("@" + listing if globs else "") + "\n")
    return bins


def exclude_file(out, key):
    return os.path.join(out, "exclude-%s.txt" % key)


def exclude_of(out, key):
    """The PROFILER_EXCLUDE value of a round (round 0: empty)."""
    try:
        with open(exclude_file(out, key)) as f:
            return f.read().strip()
    except FileNotFoundError:
        return ""


def save_exclude(out, key, said, before):
    """Keep the names left out before and those the reporter's PROFILER_EXCLUDE line names."""
    names = [n for n in before.split(",") if n]
    m = re.search(r"PROFILER_EXCLUDE='([^']*)'", said)
    if m:
        names += [n for n in m.group(1).split(",") if n and n not in names]
    with open(exclude_file(out, key), "w") as f:
        f.write(",".join(names) + "\n")


def make_inputs(acc, trees):
    """The programs' inputs, written once: 8 MB of C source, a YAML file, the Lua script."""
    d = os.path.join(acc, "inputs")
    os.makedirs(d, exist_ok=True)
    csrc = os.path.join(d, "csource-8M.c")
    if not os.path.exists(csrc) and all(n in trees for n in INPUT_TREES):
        files = []
        for t in sorted(trees[n] for n in INPUT_TREES):
            for root, _, names in sorted(os.walk(t)):
                files += [os.path.join(root, n) for n in sorted(names) if n.endswith((".c", ".h"))]
        data = b"".join(open(f, "rb").read() for f in files)
        size = 8 << 20
        with open(csrc + ".tmp", "wb") as f:
            f.write((data * (size // len(data) + 1))[:size])
        os.rename(csrc + ".tmp", csrc)
    records = int(os.environ.get("ACC_YAML_RECORDS", "300"))
    yaml = os.path.join(d, "input-%d.yaml" % records)
    if not os.path.exists(yaml):
        with open(yaml + ".tmp", "w") as f:
            f.write(gen_yaml(records))
        os.rename(yaml + ".tmp", yaml)
    return {"zstd": csrc, "yaml": yaml, "lua": os.path.join(HERE, "accbench.lua"),
            "sqlite": os.environ.get("ACC_SQLITE_SIZE", "21")}


def gen_yaml(records):
    """A YAML document of the usual kinds: maps, block and flow sequences, quoted and plain
    scalars, anchors and aliases, a literal block; deterministic."""
    out = ["# generated by bench/accuracy.py", "defaults: &defaults", "  retries: 3",
           "  timeout: 2.5", "  tags: [alpha, beta, gamma]", "records:"]
    x = 12345
    for i in range(records):
        x = (x * 1103515245 + 12345) % 2147483648
        out += ["  - id: %d" % i,
                "    name: \"record number %d\"" % i,
                "    <<: *defaults",
                "    enabled: %s" % ("true" if x % 3 else "false"),
                "    score: %d.%02d" % (x % 1000, x % 100),
                "    owner: {name: user%d, email: 'user%d@example.org', uid: %d}" % (
                    x % 97, x % 97, x % 9973),
                "    path: /srv/data/%x/%x" % (x % 4096, i),
                "    values:"]
        out += ["      - %d" % ((x >> k) % 1000) for k in range(6)]
        out += ["    note: |", "      line one of record %d" % i, "      line two, with: a colon",
                "    labels: [\"a-%d\", b-%d, 'c-%d']" % (i % 7, i % 11, i % 13)]
    return "\n".join(out) + "\n"


def command(name, exe, inputs):
    """The command line of one program run (its output goes to /dev/null)."""
    if name == "zstd":
        args = os.environ.get("ACC_ZSTD_ARGS", "-9 -T1").split()
        return [exe] + args + ["-q", "-c", inputs["zstd"]]
    if name == "lua":
        return [exe, inputs["lua"], os.environ.get("ACC_LUA_SCALE", "1")]
    if name == "sqlite":
        return [exe, "--testset", "main", "--memdb", "--size", inputs["sqlite"]]
    return [exe, inputs["yaml"]]


def sampled_known(build_dir, exe_cmd, scratch):
    """Whether the library knows PROFILER_TIMING=sampled: it names the setting, and a run with
    it prints no warning about it (an unknown value is warned about)."""
    lib = os.path.join(build_dir, "libprofreport-auto.so")
    if b"PROFILER_TIMING" not in open(lib, "rb").read():
        return False
    shutil.rmtree(scratch, ignore_errors=True)
    os.makedirs(scratch)
    env = dict(os.environ, PROFILER_DIR=scratch, PROFILER_TIMING="sampled")
    res = subprocess.run(exe_cmd, env=env, cwd=scratch, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    shutil.rmtree(scratch, ignore_errors=True)
    return "PROFILER_TIMING" not in res.stderr and "sampled" not in res.stderr


# The rows of the table: label, binary, extra environment, the kind of profile it leaves
# (profreport run files, gprof's gmon.out, uftrace's data) and the plain build it is held to.
def configurations(sampled, excludes):
    rows = [
        ("plain gcc -O2 -g", "plain-gcc", {}, None, "gcc"),
        ("plain clang -O2 -g", "plain-clang", {}, None, "clang"),
        ("empty hooks, gcc -finstrument-functions", "empty-gcc", {}, None, "gcc"),
        ("empty hooks, clang -fi-after-inlining", "empty-clang", {}, None, "clang"),
        ("empty hooks in a .so, gcc -fi", "emptyso-gcc", {}, None, "gcc"),
        ("empty hooks in a .so, clang -fi-a.-i.", "emptyso-clang", {}, None, "clang"),
    ]
    for family, flag in (("gcc", "gcc -fi"), ("clang", "clang -fi-after-inl.")):
        rows.append(("auto %s, events" % flag, "auto-" + family, {"PROFILER_MODE": "events"},
                     "profreport", family))
        exact = {"PROFILER_MODE": "summary", "PROFILER_TIMING": "exact"}
        sampling = {"PROFILER_MODE": "summary", "PROFILER_TIMING": "sampled"}
        rows.append(("auto %s, summary exact" % flag, "auto-" + family, exact, "profreport",
                     family))
        rows.append(("auto %s, summary sampled" % flag, "auto-" + family,
                     sampling if sampled else None, "profreport", family))
    # gcc as the README recommends: headers out, then each round of suggested exclusions
    sampling = {"PROFILER_MODE": "summary", "PROFILER_TIMING": "sampled"} if sampled else None
    recipe = [("hdr", "headers out")] + [("sug%d" % k, "hdr+suggested x%d" % k)
                                         for k in range(1, SUGGEST_ROUNDS + 1)]
    for key, what in recipe:
        rows.append(("empty hooks, gcc -fi %s" % what, "empty-gcc-" + key, {}, None, "gcc"))
        rows.append(("auto gcc -fi %s, sampled" % what, "auto-gcc-" + key, sampling,
                     "profreport", "gcc"))
    # the same names left out at run time instead (their hook calls patched out): gcc's first
    # round on the headers-out build, and clang's rounds
    for key, binkey, what, family in (
            [("gcc1", "auto-gcc-hdr", "auto gcc -fi hdr, run-time suggested x1", "gcc")] +
            [("clang%d" % k, "auto-clang", "auto clang -fi-a.-i., run-time sugg. x%d" % k,
              "clang") for k in range(1, SUGGEST_ROUNDS + 1)]):
        env = dict(sampling, PROFILER_EXCLUDE=excludes[key]) if sampling and excludes.get(key) \
            else None
        rows.append((what, binkey, env, "profreport", family))
    # clang's build with the library linked statically: everything kept, and the last round
    rows.append(("auto clang -fi-a.-i., static library", "auto-static-clang", sampling,
                 "profreport", "clang"))
    last = "clang%d" % SUGGEST_ROUNDS
    rows.append(("auto clang static, run-time sugg. x%d" % SUGGEST_ROUNDS, "auto-static-clang",
                 dict(sampling, PROFILER_EXCLUDE=excludes[last])
                 if sampling and SUGGEST_ROUNDS and excludes.get(last) else None,
                 "profreport", "clang"))
    rows.append(("gprof: gcc -pg", "pg", {}, "gprof", "gcc"))
    rows.append(("uftrace record (-pg build)", "pg", {}, "uftrace", "gcc"))
    return rows


def run_once(label, cmd, env, d):
    """One run of a configuration in its folder D (profiles into D/runs, gprof's files into D):
    wall seconds from fork to wait, CPU seconds (user + system, children included) and what it
    said on stderr; a failure stops the bench."""
    e = dict(os.environ, PROFILER_DIR=os.path.join(d, "runs"),
             GMON_OUT_PREFIX=os.path.join(d, "gmon.out"), **env)
    errf = os.path.join(d, "stderr.txt")
    with open(errf, "w") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=e, cwd=d, stdout=subprocess.DEVNULL, stderr=err)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
    with open(errf) as err:
        stderr = err.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit("accuracy: %s failed (%d): %s" % (label, os.waitstatus_to_exitcode(status),
                                                  stderr[-2000:]))
    return wall, ru.ru_utime + ru.ru_stime, stderr


def time_runs(rows, cmds, workdir, reps):
    """Run every configuration once per round, REPS rounds; the wall and CPU time of each run.
    Then more rounds of the configurations whose runs so far took less than MIN_SECONDS in
    all, up to MAX_ROUNDS: a 36 ms program's slowdown read 1.78x-3.26x over 5 runs (the
    machine's other work, a page cache flush, land in one run whole), so a short run's median
    needs more of them; the configurations still short are alternated as before, plain among
    them. Profiles stay in each configuration's folder; an events run's file only from round 1."""
    times = [[] for _ in rows]
    cpu = [[] for _ in rows]
    notes = []
    for r in range(max(reps, MAX_ROUNDS)):
        for i, (label, binkey, env, kind, _) in enumerate(rows):
            if env is None or (r >= reps and sum(times[i]) >= MIN_SECONDS):
                continue
            d = os.path.join(workdir, "c%02d" % i)
            if r == 0:
                shutil.rmtree(d, ignore_errors=True)
                os.makedirs(d)
            cmd = cmds[binkey]
            if kind == "uftrace":
                shutil.rmtree(os.path.join(d, "uftrace.data"), ignore_errors=True)
                cmd = ["uftrace", "record", "-d", os.path.join(d, "uftrace.data")] + cmd
            keep = sorted(glob.glob(os.path.join(d, "runs", "*")))
            wall, c, stderr = run_once(label, cmd, env, d)
            times[i].append(wall)
            cpu[i].append(c)
            if r == 0 and stderr.strip():
                notes.append("%s: %s" % (label, stderr.strip().splitlines()[-1]))
            if env.get("PROFILER_MODE") == "events" and r > 0:
                for f in glob.glob(os.path.join(d, "runs", "*")):
                    if f not in keep:
                        os.remove(f)
    return times, cpu, notes


def time_references(cmds, workdir, n, mainwall):
    """N runs each of the plain and the no-sibling-call builds, alternated, after the rounds: the
    nosib builds are references for the shares, not rows, and this shows they run as fast as
    plain. In the same rounds, each plain build with MAINWALL preloaded (mainwall.c), which
    times its main(): a profile's time per run is main's, and the process also spends time before
    main (exec, the loader, constructors) that no instrumented function sees. Median wall
    seconds by build key, and main's share of its process by family (the median over those runs
    of main's time over the run's own wall: a ratio within one run, which the machine's drift
    over the rounds moves less than two medians)."""
    d = os.path.join(workdir, "nosib")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    keys = ["plain-gcc", "plain-nosib-gcc", "plain-clang", "plain-nosib-clang"]
    times = {k: [] for k in keys}
    share = {"gcc": [], "clang": []}
    out = os.path.join(d, "main.txt")
    for _ in range(n):
        for k in keys:
            times[k].append(run_once(k, cmds[k], {}, d)[0])
        for f in share:
            if os.path.exists(out):
                os.remove(out)
            wall = run_once("plain-" + f, cmds["plain-" + f],
                            {"LD_PRELOAD": mainwall, "PROF_BENCH_MAINWALL": out}, d)[0]
            with open(out) as fh:
                main = [float(x) for x in fh.read().split()]
            if len(main) != 1:
                sys.exit("accuracy: plain-%s under mainwall.so: %d main() times" % (f, len(main)))
            share[f].append(main[0] / wall)
    return ({k: statistics.median(t) for k, t in times.items()},
            {f: statistics.median(v) for f, v in share.items()})


def build_mainwall(acc):
    """mainwall.c built into ACC/mainwall.so (preloaded into the plain builds)."""
    so = os.path.join(acc, "mainwall.so")
    src = os.path.join(HERE, "mainwall.c")
    if not os.path.exists(so) or os.path.getmtime(so) < os.path.getmtime(src):
        run(["cc", "-O2", "-shared", "-fPIC", "-o", so, src])
    return so


def sample_runs(rows, cmds, bins, workdir, cpu, ours):
    """Untimed runs of every configuration whose profile is samples (PROFILER_TIMING=sampled),
    after the timed rounds, until the profile holds about PERF_SECONDS of CPU time, by the rule
    perf's runs follow (the configuration's median CPU seconds), and at least 3. 4000 samples a
    CPU second: 3 runs of an 80 ms program hold about 1000, and perf against itself at that
    count already differs by 0.75 points mean, 3.3 worst over the top 15, more than the
    profile is held to. They run under perf, into the folder perfruns beside runs, so that the
    profile of those very runs can be held to perf's samples of them (the collector's own
    left out): what separates the two is the sampler's attribution, not what instrumenting
    did to the program. Returns {row: (runs in its profile, perf's counts per process)}."""
    out = {}
    for i, (label, binkey, env, _, _) in enumerate(rows):
        if not env or env.get("PROFILER_TIMING") != "sampled":
            continue
        reps = len(cpu[i])  # its timed runs
        extra = max(3, int(PERF_SECONDS / max(statistics.median(cpu[i]), 1e-3)) + 1 - reps)
        log("%s: %d more runs (untimed, under perf) for %g s of samples" % (label, extra,
                                                                           PERF_SECONDS))
        d = os.path.join(workdir, "c%02d" % i)
        shutil.rmtree(os.path.join(d, "perfruns"), ignore_errors=True)
        e = dict(os.environ, PROFILER_DIR=os.path.join(d, "perfruns"), **env)
        static = "static" in binkey  # the collector linked into the program
        out[i] = (reps, extra, perf_shares(cmds[binkey], bins[binkey], os.path.join(d, "perf"),
                                            extra, env=e, ours=ours if static else frozenset()))
    return out


CLONE = re.compile(r"\.(isra|part|constprop|cold|lto_priv|localalias)(\.\d+)*")


def norm(name):
    """A function's name for matching across tools: gcc's clone suffixes (.isra.0, .part.1,
    .constprop.0, .cold) and the parameter list with what follows it (const, &, noexcept)
    removed, so `YAML::Scanner::peek() const` and `YAML::Scanner::peek` are one name. Overloads
    become one name too; their shares add up on both sides."""
    name = CLONE.sub("", name.strip())
    name = re.sub(r"\s*\[clone [^\]]*\]", "", name)
    name = re.sub(r"(\s*(const|volatile|noexcept|&|&&))+$", "", name)
    if name.endswith(")"):
        depth = 0
        for k in range(len(name) - 1, -1, -1):
            if name[k] == ")":
                depth += 1
            elif name[k] == "(":
                depth -= 1
                if depth == 0:
                    # "operator()(int)": the parameter list is the last group
                    if k > 0:
                        name = name[:k]
                    break
    return drop_return_type(name.strip())


def drop_return_type(name):
    """The name without the return type the demangler writes before a function template
    (`int YAML::RegEx::MatchUnchecked<...>`): perf leaves it out. The cut is at the last space
    outside brackets, before any `operator` (whose `<` would unbalance them)."""
    head = name.split("operator")[0]
    depth = 0
    cut = -1
    for k, ch in enumerate(head):
        if ch in "<([":
            depth += 1
        elif ch in ">)]":
            depth -= 1
        elif ch == " " and depth == 0:
            cut = k
    return name[cut + 1:] if cut >= 0 else name


def add(shares, key, v):
    shares[key] = shares.get(key, 0.0) + v


def percent(d):
    """Values to percentages of their sum."""
    tot = sum(d.values())
    return {k: 100.0 * v / tot for k, v in d.items()} if tot > 0 else {}


OUTSIDE = "(outside the program)"
PERF_SECONDS = float(os.environ.get("ACC_PERF_SECONDS", "3"))
MIN_SECONDS = float(os.environ.get("ACC_MIN_SECONDS", "1.5"))
MAX_ROUNDS = int(os.environ.get("ACC_MAX_ROUNDS", "30"))


def collector_functions(build_dir):
    """The functions libprofreport-auto.a defines (nm): in a program linked with it statically
    they are the program's symbols to perf, and its overhead to the profile."""
    nm = subprocess.run(["nm", "--defined-only", os.path.join(build_dir, "libprofreport-auto.a")],
                        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    return {f[2] for f in (line.split() for line in nm.splitlines())
            if len(f) == 3 and f[1] in "Tt"}


def perf_shares(cmd, exe, out, runs, env=None, ours=frozenset()):
    """perf's cpu-clock samples of one binary over RUNS runs: each sample goes to the
    innermost frame of its call chain (DWARF unwinding) that lies in the program itself, so
    time in libc or the kernel goes to the program function that called it, as an
    instrumenting profiler charges it; samples with no such frame are OUTSIDE. The counts are
    kept per process ({pid: {function: samples}}): every run is its own process, so the runs
    can be split into halves (perf_floor).
    The runs have address randomization off (setarch -R): with it on, perf (6.1, libunwind)
    failed to unwind out of libc in about half the processes of a run, chosen by the layout,
    so malloc's and free's samples, 10 % of Lua's, fell OUTSIDE in those and the shares of
    one perf run differed from the next by up to 5 points; with it off, OUTSIDE was 0.6 %.
    With ENV (the environment of runs with libprofreport-auto), samples in the collector (a
    frame of libprofreport, or a PLT stub of the hooks, or in a static link a function of OURS,
    before any program frame) are left out, as the profile leaves its overhead out."""
    data = out + ".perf.data"
    script = 'i=0; while [ $i -lt %d ]; do "$@" >/dev/null; i=$((i+1)); done' % runs
    run(["setarch", "-R", "perf", "record", "-q", "-e", "cpu-clock", "-F", "4000",
         "--call-graph", "dwarf", "-o", data, "--", "sh", "-c", script, "sh"] + cmd, env=env)
    txt = subprocess.run(["perf", "script", "--no-inline", "-i", data,
                          "-F", "comm,pid,ip,sym,dso"],
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    os.remove(data)
    comm = os.path.basename(exe)[:15]
    real = os.path.realpath(exe)
    per_pid = {}
    for block in txt.split("\n\n"):
        lines = block.strip("\n").split("\n")
        head = lines[0].rsplit(None, 1)
        if len(head) != 2 or head[0].strip() != comm:
            continue
        where = OUTSIDE
        for fr in lines[1:]:
            m = re.match(r"^\s*[0-9a-f]+\s+(.*)\s+\((.*)\)$", fr)
            if not m:
                continue
            if env is not None and ("libprofreport" in m.group(2) or
                                    m.group(1).startswith("__cyg_profile_func_") or
                                    (m.group(2) == real and m.group(1) in ours)):
                where = None
                break
            if m.group(2) == real and m.group(1) != "[unknown]":
                where = norm(m.group(1))
                break
        if where is not None:
            add(per_pid.setdefault(int(head[1]), {}), where, 1)
    return per_pid


def merged(per_pid, pids):
    """The samples of the processes PIDS added up: {function: samples}."""
    counts = {}
    for pid in pids:
        for k, v in per_pid[pid].items():
            add(counts, k, v)
    return counts


def program_shares(counts):
    """Percentages over the samples that have a program frame: a report holds no time outside
    the program (exec, the dynamic loader, exit; about 1 % of perf's samples), so a perf share over
    all samples would be smaller than the same function's report share by that factor."""
    return percent({k: v for k, v in counts.items() if k != OUTSIDE})


def perf_floor(per_pid):
    """perf against itself: the share error of one half of the runs (every other process, so a
    change of the machine's load over the runs falls on both halves) against the other half.
    Each half holds half the samples, so this is about 1.4 times the floor of two profiles of
    the whole sample count."""
    pids = sorted(per_pid)
    return share_error(program_shares(merged(per_pid, pids[0::2])),
                       program_shares(merged(per_pid, pids[1::2])))


def profreport_profile(build_dir, d, folders=("runs", "perfruns"), name="report", files=None):
    """The profile profreport reports for the runs in FOLDERS of folder D (those that exist):
    self shares by function and main()'s time per run (seconds); None when there are no runs. main's time is its `Wall (ns)`
    when the row has a positive one (sampled runs: main's wall time net of the collector's
    measured cost), else its `Total (ns)`: in a sampled run the total is main's CPU samples,
    which leave out the time main waits for a worker thread (zstd -T1)."""
    runs = files or [os.path.join(d, f) for f in folders if glob.glob(os.path.join(d, f, "*"))]
    if not runs:
        return None
    js = os.path.join(d, name + ".json")
    run([os.path.join(build_dir, "profreport"), "-q", "--no-gnuplot"] + runs +
        ["-o", os.path.join(d, name + ".xlsx"), "--json", js])
    with open(js) as f:
        rep = json.load(f)
    shares = {}
    main_total = None
    for row in rep["callcost"]:
        add(shares, norm(row["Region"]), row["Self (ns)"])
        if row["Region"] == "main":
            main_total = row["Wall (ns)"] if (row.get("Wall (ns)") or 0) > 0 else row["Total (ns)"]
    nruns = len(rep["runs"])
    if main_total is None:  # main not instrumented: the busiest thread's top-level time
        main_total = sum(max(t["Busy (ns)"] for t in rep["threads"] if t["Run"] == r["Run"])
                         for r in rep["runs"])
    return percent(shares), main_total / nruns / 1e9, sum(r["Events"] for r in rep["runs"]) / nruns


def main_time_median(build_dir, d):
    """main()'s time (as profreport_profile takes it) in each run file of D/runs, reported
    alone: the median over the runs, as the slowdown is a median (the mean, a profile's time
    per run, moved 20 % with one run the host slowed: zstd's 250-394 ms). None without runs."""
    times = [profreport_profile(build_dir, d, name="one", files=[f])[1]
             for f in sorted(glob.glob(os.path.join(d, "runs", "*.csv")))]
    for ext in (".json", ".xlsx"):
        if os.path.exists(os.path.join(d, "one" + ext)):
            os.remove(os.path.join(d, "one" + ext))
    return statistics.median(times) if times else None


UNIT = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def gprof_profile(exe, d):
    """gprof's flat profile over every run's gmon file: self shares and CPU seconds per run."""
    gm = sorted(glob.glob(os.path.join(d, "gmon.out.*")))
    if not gm:
        return None
    txt = run(["gprof", "-b", "-p", "-C", exe] + gm)
    shares = {}
    calls = 0
    for line in txt.splitlines():
        m = re.match(r"^\s*[\d.]+\s+[\d.]+\s+([\d.]+)\s+(?:(\d+)\s+[\d.]+\s+[\d.]+\s+)?(\S.*)$",
                     line)
        if m:
            add(shares, norm(m.group(3)), float(m.group(1)))
            calls += int(m.group(2) or 0)
    return percent(shares), sum(shares.values()) / len(gm), calls / len(gm)


def uftrace_profile(d):
    """uftrace's report of the last run: self shares and main()'s total time."""
    data = os.path.join(d, "uftrace.data")
    if not os.path.isdir(data):
        return None
    txt = run(["uftrace", "report", "-d", data, "--no-pager", "--demangle=full",
               "-f", "total,self,call"])
    shares = {}
    main_total = None
    calls = 0
    num = r"([\d.]+)\s+(ns|us|ms|s|m|h)"
    for line in txt.splitlines():
        m = re.match(r"^\s*" + num + r"\s+" + num + r"\s+(\d+)\s+(\S.*)$", line)
        if m:
            add(shares, norm(m.group(6)), float(m.group(3)) * UNIT[m.group(4)])
            calls += int(m.group(5))
            if norm(m.group(6)) == "main":
                main_total = float(m.group(1)) * UNIT[m.group(2)]
    return percent(shares), main_total, calls


def share_error(tool, perf):
    """Mean and worst absolute difference (points) over perf's 15 largest program functions,
    and the worst function's name."""
    top = [k for k, _ in sorted(perf.items(), key=lambda kv: -kv[1])][:15]
    errs = [(abs(tool.get(k, 0.0) - perf[k]), k) for k in top]
    worst, name = max(errs)
    return sum(e for e, _ in errs) / len(errs), worst, "%s (%.1f%% / %.1f%%)" % (
        name[:48], tool.get(name, 0.0), perf[name])


def loadavg():
    """The 1-minute load average: how busy the machine was around the figures."""
    with open("/proc/loadavg") as f:
        return f.read().split()[0]


def folder_bytes(d):
    return sum(os.path.getsize(f) for f in glob.glob(os.path.join(d, "*")))


def measure(name, tree, bins, build_dir, acc, inputs, reps, perf_runs):
    """Time, profile and compare every configuration of one program; print its table."""
    work = os.path.join(acc, "runs", name)
    os.makedirs(work, exist_ok=True)
    cmds = {k: command(name, exe, inputs) for k, exe in bins.items()}
    sampled = sampled_known(build_dir, cmds["auto-clang"], os.path.join(work, "probe"))
    out = os.path.join(acc, "bin", name)
    excludes = {key: exclude_of(out, key) for key in
                ["gcc1"] + ["clang%d" % k for k in range(1, SUGGEST_ROUNDS + 1)]}
    rows = configurations(sampled, excludes)
    load0 = loadavg()
    log("%s: %d rounds of %d configurations" % (name, reps, sum(r[2] is not None for r in rows)))
    times, cpu, notes = time_runs(rows, cmds, work, reps)
    ref_wall, main_share = time_references(cmds, work, max(reps, 5), build_mainwall(acc))
    sampled_runs = sample_runs(rows, cmds, bins, work, cpu, collector_functions(build_dir))
    perf = {}  # by build key: plain-FAMILY and plain-nosib-FAMILY
    nsamples = {}
    outside = {}
    floor = {}
    runs_of = {}
    for family in ("gcc", "clang"):
        # enough runs for about PERF_SECONDS of CPU: 4000 samples a second, so a 15 % share
        # is known to about 0.3 points; the nosib build runs as long as plain
        c = statistics.median(cpu[[r[1] for r in rows].index("plain-" + family)])
        runs_of[family] = max(perf_runs, int(PERF_SECONDS / max(c, 1e-3)) + 1)
        for key in ("plain-" + family, "plain-nosib-" + family):
            log("%s: perf record of %s, %d runs" % (name, key, runs_of[family]))
            per_pid = perf_shares(cmds[key], bins[key], os.path.join(work, key), runs_of[family])
            counts = merged(per_pid, per_pid)
            perf[key] = program_shares(counts)
            nsamples[key] = sum(counts.values())
            outside[key] = 100.0 * counts.get(OUTSIDE, 0) / max(nsamples[key], 1)
            floor[key] = perf_floor(per_pid)
    plain = {f: statistics.median(times[[r[1] for r in rows].index("plain-" + f)])
             for f in ("gcc", "clang")}
    events_max = float(os.environ.get("ACC_EVENTS_READ_MAX", 2e9))

    load1 = loadavg()
    src = os.path.basename(tree)
    print()
    print("%s (Debian %s): %s; %d rounds, configurations taken in turn, then up to %d for "
          "those whose runs took under %g s in all" %
          (name, src, " ".join(os.path.basename(a) for a in cmds["plain-gcc"]), reps,
           max(reps, MAX_ROUNDS), MIN_SECONDS))
    for ref, what in (("plain", "plain"), ("plain-nosib", "no-sibling-call")):
        print("perf: %d cpu-clock samples of %s gcc (%d runs), %d of %s clang (%d runs), "
              "4000 Hz; outside the program (no program frame): %.1f%% / %.1f%%" %
              (nsamples[ref + "-gcc"], what, runs_of["gcc"], nsamples[ref + "-clang"], what,
               runs_of["clang"], outside[ref + "-gcc"], outside[ref + "-clang"]))
    print("perf against itself (half of its runs against the other half): plain %s; "
          "no-sibling-call %s" % tuple(", ".join(
              "%s %.2f / %.2f" % (f, floor[ref + f][0], floor[ref + f][1])
              for f in ("gcc", "clang")) for ref in ("plain-", "plain-nosib-")))
    print("no-sibling-call builds (-fno-optimize-sibling-calls), median wall of %d runs "
          "alternated with plain: %s" % (max(reps, 5), ", ".join(
              "%s %.3f s / plain %.3f s (%+.1f%%)" % (
                  f, ref_wall["plain-nosib-" + f], ref_wall["plain-" + f],
                  100.0 * (ref_wall["plain-nosib-" + f] / ref_wall["plain-" + f] - 1))
              for f in ("gcc", "clang"))))
    print("plain builds' main() (mainwall.c preloaded, %d runs alternated with the above): "
          "median share of its process's wall %s" % (max(reps, 5), ", ".join(
              "%s %.1f%%" % (f, 100.0 * main_share[f]) for f in ("gcc", "clang"))))
    print("perf of plain against perf of the no-sibling-call build: %s" % ", ".join(
        "%s %.2f / %.2f, worst %s" % ((f,) + share_error(perf["plain-" + f],
                                                        perf["plain-nosib-" + f]))
        for f in ("gcc", "clang")))
    print("load average (1 min) when the rounds started / when perf ended: %s / %s on %d CPUs" %
          (load0, load1, os.cpu_count()))
    fmt = "%-40s %4s %7s %6s %13s %6s %6s %8s %6s %8s %13s %13s  %s"
    print(fmt % ("configuration", "", "wall", "slow-", "slowdown", "CPU", "CPU", "reported",
                 "", "calls", "error vs", "error vs", "worst function vs plain"))
    print(fmt % ("", "runs", "med s", "down", "min - max", "med s", "ratio", "/plain", "/main",
                 "per run", "plain", "no-sib.call", "(row % / perf %)"))
    print((fmt % ("", "", "", "", "", "", "", "", "", "", "mean  worst", "mean  worst",
                  "")).rstrip())
    pcpu = {f: statistics.median(cpu[[r[1] for r in rows].index("plain-" + f)])
            for f in ("gcc", "clang")}
    for i, (label, binkey, env, kind, family) in enumerate(rows):
        if env is None:
            print("%-40s %4s %7s  (%s)" % (label, "", "n/a", "the reporter suggested nothing"
                                       if "run-time" in label and sampled else
                                       "PROFILER_TIMING=sampled unknown to this libprofreport-auto"))
            continue
        t = times[i]
        med = statistics.median(t)
        cmed = statistics.median(cpu[i])
        cols = "%-40s %4d %7.3f %5.2fx %5.2fx-%5.2fx %6.3f %5.2fx" % (
            label, len(t), med, med / plain[family], min(t) / plain[family],
            max(t) / plain[family], cmed, cmed / pcpu[family])
        d = os.path.join(work, "c%02d" % i)
        prof = None
        note = ""
        if kind == "profreport":
            size = folder_bytes(os.path.join(d, "runs"))
            if size > events_max:
                note = "run file %.1f GB: not read (ACC_EVENTS_READ_MAX)" % (size / 1e9)
            else:
                prof = profreport_profile(build_dir, d)
                if prof:
                    # the time per run of the timed runs alone: perf's sampling slows the
                    # untimed ones (Lua's time per run read 1.30x with them, 1.1x without)
                    prof = (prof[0], main_time_median(build_dir, d), prof[2])
            if env.get("PROFILER_MODE") == "events":  # gigabytes: read once, not kept
                shutil.rmtree(os.path.join(d, "runs"), ignore_errors=True)
                for f in glob.glob(os.path.join(d, "report.*")):
                    os.remove(f)
        elif kind == "gprof":
            prof = gprof_profile(bins[binkey], d)
        elif kind == "uftrace":
            prof = uftrace_profile(d)
            shutil.rmtree(os.path.join(d, "uftrace.data"), ignore_errors=True)  # hundreds of MB
        if prof:
            shares, per_run, events = prof
            mean, worst, wname = share_error(shares, perf["plain-" + family])
            nmean, nworst, _ = share_error(shares, perf["plain-nosib-" + family])
            cols += " %7.2fx %5.2fx %8s %6.2f %6.2f %6.2f %6.2f  %s" % (
                per_run / plain[family] if per_run else float("nan"),
                per_run / (plain[family] * main_share[family]) if per_run else float("nan"),
                "%.3g M" % (events / 1e6) if events else "-", mean, worst, nmean, nworst, wname)
        elif note:
            cols += "  " + note
        print(cols)
        sys.stdout.flush()
    for n in notes:
        print("  said on stderr (first round): " + n)
    for i, (timed, untimed, per_pid) in sampled_runs.items():
        # the profile of the untimed runs alone against perf's samples of them
        d = os.path.join(work, "c%02d" % i)
        own = profreport_profile(build_dir, d, ("perfruns",), "perf-report")
        same = ""
        if own and per_pid:
            theirs = program_shares(merged(per_pid, per_pid))
            mean, worst, wname = share_error(own[0], theirs)
            same = "; against perf's samples of its %d untimed runs: %.2f / %.2f, worst %s" % (
                untimed, mean, worst, wname)
            # what instrumenting did to the program, whoever measures it: perf's samples of
            # these runs (the collector's left out) against perf's of the plain build
            mean, worst, wname = share_error(theirs, perf["plain-" + rows[i][4]])
            same += "; perf of them against perf of plain: %.2f / %.2f, worst %s" % (
                mean, worst, wname)
        print("  %s: profile of %d runs (%d timed, %d untimed for about %g s of CPU)%s" % (
            rows[i][0], timed + untimed, timed, untimed, PERF_SECONDS, same))


def main():
    build_dir = os.path.abspath(sys.argv[1])
    acc = os.path.join(os.path.abspath(sys.argv[2]), "acc")
    names = os.environ.get("ACC_PROGRAMS", "zstd,lua,yaml,sqlite").split(",")
    unknown = [n for n in names if n not in PROGRAMS]
    if unknown:
        sys.exit("accuracy: unknown program %s (ACC_PROGRAMS: %s)" % (
            ", ".join(unknown), ",".join(PROGRAMS)))
    reps = int(os.environ.get("ACC_REPS", "5"))
    perf_runs = int(os.environ.get("ACC_PERF_RUNS", "10"))
    if perf_runs < 2:  # perf's own floor compares two halves of them
        sys.exit("accuracy: ACC_PERF_RUNS=%d: at least 2" % perf_runs)
    trees = fetch(acc, names)
    inputs = make_inputs(acc, trees)
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        bins = {n: build_program(n, trees[n], acc, build_dir, pool, inputs) for n in names}
    if os.environ.get("ACC_FETCH_ONLY"):
        return
    for tool in ("perf", "uftrace", "gprof", "clang"):
        if not shutil.which(tool):
            sys.exit("accuracy: %s is not installed (scripts/deps.sh bench)" % tool)
    for n in names:
        measure(n, trees[n], bins[n], build_dir, acc, inputs, reps, perf_runs)


if __name__ == "__main__":
    main()
