"""conftest.py - helpers for the collector's functional tests.

The tests run the small programs of tests/programs (built by `make functional` into
$PROF_BUILD/tests/programs) and read the run files they leave with Python's csv module, an
independent reader of the format in docs/FORMAT.md.

Environment (set by the Makefile):
  PROF_BUILD  absolute build directory (libprofreport.so, tests/programs/...)
  PROF_SAN    the sanitizer the build uses ("", "address,undefined" or "thread")
"""

import csv
import io
import itertools
import os
import re
import struct
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("PROF_BUILD", ROOT / "build")).resolve()
SAN = os.environ.get("PROF_SAN", "")
PROGRAMS = BUILD / "tests" / "programs"
INCLUDE = ROOT / "include"

# profiling_YYYY.MM.DD_HH.MM.SS_<pid>_<token>.csv (token: 8 hex digits drawn once per process
# image), and -N before .csv for a process's later runs. Groups: date and time 1-6, pid 7, N 8.
RUN_NAME = re.compile(
    r"^profiling_(\d{4})\.(\d{2})\.(\d{2})_(\d{2})\.(\d{2})\.(\d{2})_(\d+)_[0-9a-f]{8}(?:-(\d+))?"
    r"\.csv$"
)
PART_NAME = re.compile(
    r"^profiling_\d{4}\.\d{2}\.\d{2}_\d{2}\.\d{2}\.\d{2}_\d+_[0-9a-f]{8}(?:-\d+)?\.\d+\.part$"
)

EVENT_COLUMNS = ["Region", "Ticks", "Thread", "Parent", "Depth", "Self", "Start", "Nested"]
SUMMARY_COLUMNS = [
    "Region", "Thread", "Calls", "Ticks", "Self", "Min", "Max", "SumSquares", "Outer", "Histogram",
    "Node", "Parent", "Samples", "Timed", "Wall",
]

MEMORY_COLUMNS = [
    "Kind", "Thread", "Region", "Site", "Count", "Bytes", "AllocKind", "FreeKind", "OtherThread",
    "OtherSite", "Function", "Stack",
]

_counter = itertools.count(1)


def scaled(n, tsan_divisor=10):
    """n, or n / tsan_divisor under ThreadSanitizer (which is 5-10 times slower)."""
    return max(1, n // tsan_divisor) if "thread" in SAN else n


def program(name):
    """Path of a built test program."""
    path = PROGRAMS / name
    if not path.exists():
        pytest.fail(f"{path} is not built: run `make functional`")
    return path


# ---- run files ----


@dataclass
class Run:
    """One run file, as the csv module reads it."""

    path: Path
    frequency: int
    meta: list  # metadata records (lists of fields), in file order, Frequency excluded
    header: list
    rows: list  # dicts keyed by the header, values as strings
    records: list = field(default_factory=list)  # every record, Frequency included
    memory: list = None  # the memory section's rows as dicts (FORMAT.md 1.5), None when absent
    summary: list = None  # the summary section's rows as dicts (FORMAT.md 1.6), None when absent

    def values(self, key):
        """All metadata records with this key, without the key."""
        return [r[1:] for r in self.meta if r and r[0] == key]

    def value(self, key):
        """The one value of a single-valued metadata key (None when absent)."""
        found = self.values(key)
        assert len(found) <= 1, f"{key} appears {len(found)} times in {self.path}"
        if not found:
            return None
        assert len(found[0]) == 1, f"{key} record has {len(found[0])} values: {found[0]}"
        return found[0][0]

    @property
    def threads(self):
        """Thread records as dicts: number, tid, name, state."""
        return [
            {"number": int(r[0]), "tid": int(r[1]), "name": r[2], "state": r[3]}
            for r in self.values("Thread")
        ]

    @property
    def warnings(self):
        """Warning records as dicts: kind, thread, count, message."""
        return [
            {"kind": r[0], "thread": int(r[1]), "count": int(r[2]), "message": r[3]}
            for r in self.values("Warning")
        ]

    def rows_of(self, region):
        return [r for r in self.rows if r["Region"] == region]


def parse_run(path):
    """Parse a run file: Frequency first, metadata up to the header record, then rows."""
    path = Path(path)
    with open(path, newline="", encoding="utf-8", errors="surrogateescape") as f:
        text = f.read()
    return parse_run_text(text, path)


def parse_run_text(text, path=None):
    """Parse the text of a run file (see parse_run)."""
    assert text.endswith("\n"), f"{path}: the last record does not end in a newline"
    records = list(csv.reader(io.StringIO(text, newline=""), strict=True))
    assert records, f"{path}: empty run file"
    first = records[0]
    assert len(first) == 2 and first[0] == "Frequency", f"{path}: first record is {first}"
    assert re.fullmatch(r"[1-9][0-9]*", first[1]), f"{path}: bad frequency {first[1]!r}"
    meta, header, rows = [], None, []
    memory, memory_header = None, None
    summary, summary_header = None, None
    for i, rec in enumerate(records[1:], start=1):
        if header is None:
            if rec and rec[0] == "Region":
                header = rec
            else:
                meta.append(rec)
            continue
        if summary is None and rec == ["Table", "summary"]:
            summary = []
            continue
        if summary is not None:
            if summary_header is None:
                assert rec == SUMMARY_COLUMNS, f"{path}: summary section header {rec}"
                summary_header = rec
                continue
            assert len(rec) == len(SUMMARY_COLUMNS), f"{path}: record {i} has {len(rec)} fields"
            summary.append(dict(zip(SUMMARY_COLUMNS, rec)))
            continue
        if memory is None and rec == ["Table", "memory"]:
            memory = []
            continue
        if memory is not None:
            if memory_header is None:
                assert rec == MEMORY_COLUMNS, f"{path}: memory header {rec}"
                memory_header = rec
                continue
            assert len(rec) == len(MEMORY_COLUMNS), f"{path}: record {i} has {len(rec)} fields"
            memory.append(dict(zip(MEMORY_COLUMNS, rec)))
            continue
        assert len(rec) == len(header), f"{path}: record {i} has {len(rec)} fields: {rec}"
        rows.append(dict(zip(header, rec)))
    assert header is not None, f"{path}: no header record"
    return Run(path, int(first[1]), meta, header, rows, records, memory, summary)


def run_files(folder):
    """Run files (profiling_*.csv) in a folder, oldest name first."""
    folder = Path(folder)
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.name.startswith("profiling_")
                  and p.name.endswith(".csv"))


def clean_env(extra=None):
    """The environment for a test program: no PROFILER_ variable from outside, plus extra."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PROFILER_")}
    if extra:
        for k, v in extra.items():
            if v is None:
                env.pop(k, None)
            else:
                env[k] = str(v)
    return env


def fresh_dir(tmp_path):
    """A path under tmp_path that does not exist yet, for PROFILER_DIR."""
    return Path(tmp_path) / f"runs{next(_counter)}"


def run_command(argv, env=None, cwd=None, timeout=120, stdin=subprocess.DEVNULL, preexec=None):
    """Run a command, capturing stdout and stderr; the result also carries the pid. preexec
    runs in the child before the command (a CPU affinity, say)."""
    with subprocess.Popen([str(a) for a in argv], env=env, cwd=cwd, stdin=stdin,
                          stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          preexec_fn=preexec) as p:
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            raise
    result = subprocess.CompletedProcess(p.args, p.returncode, out, err)
    result.pid = p.pid
    return result


def run_program(tmp_path, name, *args, env=None, profile_dir=None, timeout=120, cwd=None,
                check=True, preexec=None):
    """Run tests/programs/NAME with a fresh PROFILER_DIR; return (process, run files).

    profile_dir: use this folder instead of a fresh one. env: extra variables (None removes).
    check: fail the test when the program exits nonzero.
    """
    folder = Path(profile_dir) if profile_dir is not None else fresh_dir(tmp_path)
    extra = {"PROFILER_DIR": str(folder)}
    extra.update(env or {})
    proc = run_command([program(name), *args], env=clean_env(extra), cwd=cwd or tmp_path,
                       timeout=timeout, preexec=preexec)
    if check:
        assert proc.returncode == 0, (
            f"{name} exited with {proc.returncode}\nstdout: {proc.stdout!r}\n"
            f"stderr: {proc.stderr.decode(errors='replace')}"
        )
    return proc, run_files(folder)


def compile_program(tmp_path, source, lang="c", opt="-O2", auto=False):
    """source (a path, or a list of them) built as lang ("c" or "c++") at opt, linked with this
    build's libprofreport (and its sanitizer, if any); with auto, under -finstrument-functions
    with libprofreport-auto. For a test that needs a program at another optimisation level
    than the Makefile's, or one of several files."""
    sources = [str(s) for s in source] if isinstance(source, (list, tuple)) else [str(source)]
    exe = Path(tmp_path) / f"{Path(sources[0]).stem}-{lang}{opt}{'-auto' if auto else ''}"
    san = [f"-fsanitize={SAN}"] if SAN else []
    flags = ["-finstrument-functions"] if auto else []
    build = subprocess.run(["c++" if lang == "c++" else "cc", "-x", lang, opt, "-g", "-Wall",
                            "-Wextra", "-Werror", *flags, *san, f"-I{INCLUDE}", *sources,
                            "-x", "none", "-o", str(exe), f"-L{BUILD}", f"-Wl,-rpath,{BUILD}",
                            "-lprofreport-auto" if auto else "-lprofreport", "-pthread"],
                           capture_output=True, text=True)
    assert build.returncode == 0, build.stderr
    return exe


def run_once(tmp_path, name, *args, **kw):
    """Run a program that must leave exactly one run file; return (process, parsed run)."""
    proc, files = run_program(tmp_path, name, *args, **kw)
    assert len(files) == 1, f"expected one run file, got {[f.name for f in files]}"
    return proc, parse_run(files[0])


def library_lines(stderr):
    """The lines a program's stderr holds from the library (they start with 'profreport:')."""
    return [l for l in stderr.decode(errors="replace").splitlines() if l.startswith("profreport:")]


# ---- events-table structure ----


def as_int(value):
    return None if value == "" else int(value)


def check_events_structure(run):
    """Check every events-table rule of FORMAT.md 1.3 that holds for any run; return per-thread
    lists of (row, children) in file order.

    Rules: rows grouped by thread in thread order; Depth 0 <=> empty Parent; the direct
    children of a row are the rows at Depth + 1 that ended since the previous row at depth
    <= Depth (on the same thread), and their Parent is this row's Region; Self == Ticks minus
    the children's Ticks; a child lies inside its parent in time; empty Ticks <=> empty Self;
    Nested is 0 or 1; Start + Ticks <= Duration.
    """
    assert run.header == EVENT_COLUMNS, run.header
    assert run.value("Mode") == "events"
    numbers = [t["number"] for t in run.threads]
    duration = int(run.value("Duration"))
    seen_threads = []
    trees = {}
    pending = {}  # depth -> rows waiting for their parent, for the current thread
    current = None
    for i, row in enumerate(run.rows):
        thread = int(row["Thread"])
        assert thread in numbers, f"row {i}: thread {thread} has no Thread record"
        if thread != current:
            assert thread not in seen_threads, f"row {i}: rows of thread {thread} not grouped"
            if current is not None:
                _end_thread(pending, current)
            seen_threads.append(thread)
            current = thread
            pending = {}
            trees[thread] = []
        depth = int(row["Depth"])
        ticks, self_ = as_int(row["Ticks"]), as_int(row["Self"])
        start = int(row["Start"])
        assert depth >= 0
        assert (depth == 0) == (row["Parent"] == ""), f"row {i}: depth {depth}, parent {row}"
        assert (ticks is None) == (self_ is None), f"row {i}: Ticks/Self {row}"
        assert row["Nested"] in ("0", "1"), f"row {i}: Nested {row['Nested']!r}"
        for deeper in [d for d in pending if d > depth + 1]:
            assert not pending[deeper], f"row {i}: rows at depth {deeper} have no parent"
        children = pending.pop(depth + 1, [])
        for child in children:
            assert child["Parent"] == row["Region"], f"row {i}: child {child} of {row}"
            assert int(child["Start"]) >= start, f"child {child} starts before parent {row}"
            if ticks is not None:
                assert child["Ticks"] != "", f"stopped {row} has an unstopped child {child}"
                assert int(child["Start"]) + int(child["Ticks"]) <= start + ticks, (
                    f"child {child} ends after parent {row}"
                )
        if ticks is not None:
            assert self_ == ticks - sum(int(c["Ticks"]) for c in children), (
                f"row {i}: Self {self_} != Ticks {ticks} - children "
                f"{[c['Ticks'] for c in children]}"
            )
            assert start + ticks <= duration, f"row {i} ends after Duration {duration}"
        pending.setdefault(depth, []).append(row)
        trees[thread].append((row, children))
    if current is not None:
        _end_thread(pending, current)
    assert seen_threads == sorted(seen_threads), f"threads not in order: {seen_threads}"
    return trees


def _end_thread(pending, thread):
    for depth, rows in pending.items():
        assert depth == 0 or not rows, f"thread {thread}: rows at depth {depth} without parent"


def check_metadata(run, pid=None):
    """The metadata every run file has (FORMAT.md 1.2)."""
    assert run.meta[0] == ["Format", "profreport-run", "4"], run.meta[0]
    assert run.value("Mode") in ("events", "summary")
    assert run.value("Clock") in ("tsc", "monotonic")
    assert re.fullmatch(r"\d+", run.value("Duration"))
    assert run.value("Complete") in ("yes", "no")
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z", run.value("Start"))
    threads = run.threads
    assert int(run.value("Threads")) == len(threads)
    assert sorted(t["number"] for t in threads) == list(range(1, len(threads) + 1))
    for t in threads:
        assert t["state"] in ("exited", "running", "incomplete"), t
    if pid is not None:
        assert run.value("Pid") == str(pid)


# ---- summary histograms ----


def hist_bucket(v):
    """The histogram bucket of a tick value (FORMAT.md 1.4)."""
    if v < 8:
        return v
    e = v.bit_length() - 1
    return 8 * (e - 2) + (v >> (e - 3)) - 8


def hist_lower(b):
    """The smallest value of bucket b (FORMAT.md 1.4)."""
    if b < 8:
        return b
    e, s = b // 8 + 2, b % 8
    return (8 + s) << (e - 3)


def parse_histogram(text):
    """'b:n;b:n' -> {bucket: count}."""
    if text == "":
        return {}
    out = {}
    for pair in text.split(";"):
        b, n = pair.split(":")
        assert int(b) not in out, f"bucket {b} twice in {text}"
        out[int(b)] = int(n)
    return out


# ---- part files (FORMAT.md section 3) ----


def read_chunks(data):
    """Split a part's bytes into (offset, type name, payload) for whole chunks, and return the
    offset where the complete chunks end."""
    chunks, off = [], 0
    while off + 8 <= len(data):
        typ, length = struct.unpack_from("<II", data, off)
        if off + 8 + length > len(data):
            break
        name = struct.pack("<I", typ).decode("latin-1")
        chunks.append((off, name, data[off + 8:off + 8 + length]))
        off += 8 + length
    return chunks, off


def part_ids(chunks):
    """The region ids a part defines in its PRFI chunks: {index: id}."""
    ids = {}
    for _, typ, payload in chunks:
        if typ != "PRFI":
            continue
        off = 0
        while off < len(payload):
            index, length = struct.unpack_from("<II", payload, off)
            off += 8
            ids[index] = payload[off:off + length].decode("utf-8", errors="surrogateescape")
            off += length
    return ids


def replay_part(chunks, thread="1"):
    """Replay the event words of a part's whole chunks (FORMAT.md 3) into the events-table rows
    a reader must produce (dicts keyed like the run file's columns, values as strings)."""
    ids = part_ids(chunks)
    words = []
    for _, typ, payload in chunks:
        if typ == "PRFE":
            words.extend(struct.unpack(f"<{len(payload) // 4}I", payload))
    clock, stack, rows = 0, [], []  # stack entries: [id, start, children's ticks]

    def row(frame, ticks):
        parent = ids[stack[-1][0]] if stack else ""
        return {
            "Region": ids[frame[0]], "Ticks": "" if ticks is None else str(ticks),
            "Thread": thread, "Parent": parent, "Depth": str(len(stack)),
            "Self": "" if ticks is None else str(ticks - frame[2]), "Start": str(frame[1]),
            "Nested": "1" if any(f[0] == frame[0] for f in stack) else "0",
        }

    i = 0
    while i < len(words):
        w = words[i]
        if w & 0x80000000:
            clock += w & 0x7FFFFFFF
            frame = stack.pop()
            ticks = clock - frame[1]
            rows.append(row(frame, ticks))
            if stack:
                stack[-1][2] += ticks
            i += 1
        elif w == 0x7FFFFFFF:
            clock += words[i + 1] << 32 | words[i + 2]
            i += 3
        elif w == 0x7FFFFFFE:
            clock += words[i + 1]
            i += 2
        else:
            assert w < 0x7FFFFFF0, f"reserved word {w:#x}"
            clock += words[i + 1]
            stack.append([w, clock, 0])
            i += 2
    while stack:
        frame = stack.pop()
        rows.append(row(frame, None))
    return rows


def count_exits(chunks):
    """Count the exit records in the PRFE chunks: the instances that ended."""
    words = []
    for _, typ, payload in chunks:
        if typ == "PRFE":
            assert len(payload) % 4 == 0
            words.extend(struct.unpack(f"<{len(payload) // 4}I", payload))
    exits, i = 0, 0
    while i < len(words):
        w = words[i]
        if w & 0x80000000:
            exits += 1
            i += 1
        elif w == 0x7FFFFFFF:
            i += 3
        else:
            i += 2
    return exits


def summary_paths(rows):
    """Summary rows (FORMAT.md 1.4, version 3) checked for their tree rules (Node 1, 2, ... per
    thread, Parent below Node) and keyed by (thread, path): path is the tuple of regions from
    the top level down to the row's. Returns {(thread, path): row}."""
    out, nodes = {}, {}
    for r in rows:
        th, node, parent = r["Thread"], int(r["Node"]), int(r["Parent"])
        known = nodes.setdefault(th, {})
        assert node == len(known) + 1, f"thread {th}: node {node} after {len(known)}"
        assert 0 <= parent < node, f"thread {th}: node {node} has parent {parent}"
        path = (known[parent] if parent else ()) + (r["Region"],)
        known[node] = path
        assert (th, path) not in out, f"thread {th}: path {path} twice"
        out[(th, path)] = r
    return out


def summary_regions(rows):
    """Summary rows added up per (thread, region) as FORMAT.md 1.4 says: the region's account,
    as a version 2 row had it. Returns {(thread, region): dict of ints (and SumSquares a float,
    Histogram a {bucket: count})}."""
    out = {}
    for r in rows:
        a = out.setdefault((r["Thread"], r["Region"]), {
            "Calls": 0, "Ticks": 0, "Self": 0, "Outer": 0, "SumSquares": 0.0,
            "Min": None, "Max": None, "Histogram": {}})
        calls = int(r["Calls"])
        for k in ("Calls", "Ticks", "Self", "Outer"):
            a[k] += int(r[k])
        a["SumSquares"] += float(r["SumSquares"])
        if calls:
            a["Min"] = int(r["Min"]) if a["Min"] is None else min(a["Min"], int(r["Min"]))
            a["Max"] = int(r["Max"]) if a["Max"] is None else max(a["Max"], int(r["Max"]))
        for b, c in parse_histogram(r["Histogram"]).items():
            a["Histogram"][b] = a["Histogram"].get(b, 0) + c
    return out


def event_paths(rows):
    """Events rows (FORMAT.md 1.3) counted per (thread, path) the way summary mode keeps them:
    {(thread, path): completed instances}. Rows come in end order, so an instance's enclosing
    instances end after it: each row's path is found by replaying the end order per thread."""
    counts = {}
    by_thread = {}
    for r in rows:
        by_thread.setdefault(r["Thread"], []).append(r)
    for th, rs in by_thread.items():
        # The enclosing instance of a row at depth d is the first later row at depth d - 1.
        parent_of = [None] * len(rs)
        waiting = {}
        for i in range(len(rs) - 1, -1, -1):
            d = int(rs[i]["Depth"])
            parent_of[i] = waiting.get(d - 1)
            waiting[d] = i
        path_of = [None] * len(rs)
        for i in range(len(rs) - 1, -1, -1):
            p = parent_of[i]
            path_of[i] = (path_of[p] if p is not None else ()) + (rs[i]["Region"],)
        for i, r in enumerate(rs):
            if r["Ticks"] != "":
                key = (th, path_of[i])
                counts[key] = counts.get(key, 0) + 1
    return counts
