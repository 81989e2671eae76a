#!/usr/bin/python3
"""largebench.py - how long profreport takes on one large events-mode run, alone and with every
export (bench/README.md, "Large-run bench").

    bench/largebench.py BUILD WORK [FIB_N] [REPS]

The run is real: bench/callheavy.c (a recursive Fibonacci, nothing but calls) built with
-finstrument-functions and libprofreport-auto from BUILD, run once with PROFILER_MODE=events on
fib(FIB_N) (default 36: 48.3 million calls, about 1.5 GB). The run file is kept in
WORK/large-run/ and reused while WORK/large-run.stamp matches FIB_N and the library's size and
time. Then, REPS times (default 3), alternating:

  report        profreport WORK/large-run -o WORK/large-out/report.xlsx -q
  all exports   the same with --json, --csv, --folded and --callgrind
  --trace       the report with --trace: this run passes --trace-limit, so profreport
                refuses after its first 1 GB of trace (exit status 4, nothing written),
                which the bench accepts

Each is a child process timed around fork and wait4; its peak is wait4's ru_maxrss (gnuplot
included). The JSON export is read back: its calls of fib must be
the calls the program counted. Prints one table; exit status 0 unless a measurement cannot be made.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

TARGET_SECONDS = 5.0
TARGET_EXPORT_RATIO = 1.5


def build_program(build, work):
    """ch-auto: callheavy.c with -finstrument-functions and libprofreport-auto (rebuilt when
    callheavy.c or the library is newer)."""
    here = Path(__file__).resolve().parent
    exe = work / "ch-auto"
    src = here / "callheavy.c"
    lib = build / "libprofreport-auto.so"
    if not lib.exists():
        sys.exit(f"largebench: {lib} is missing (run `make lib` first)")
    if exe.exists() and exe.stat().st_mtime > max(src.stat().st_mtime, lib.stat().st_mtime):
        return exe
    cc = os.environ.get("CC", "cc")
    subprocess.run([cc, "-O2", "-finstrument-functions", str(src), "-o", str(exe),
                    f"-L{build}", f"-Wl,-rpath,{build}", "-lprofreport-auto"], check=True)
    return exe


def record_run(exe, build, work, n):
    """The run folder, recorded anew unless the stamp matches; returns (folder, calls)."""
    folder = work / "large-run"
    stamp = work / "large-run.stamp"
    lib = (build / "libprofreport-auto.so").resolve().stat()
    want = f"fib {n} lib {lib.st_size} {int(lib.st_mtime)}\n"
    files = sorted(folder.glob("*.csv")) if folder.exists() else []
    if len(files) == 1 and stamp.exists() and stamp.read_text().startswith(want):
        return folder, int(stamp.read_text().split("calls ")[1])
    shutil.rmtree(folder, ignore_errors=True)
    stamp.unlink(missing_ok=True)
    env = dict(os.environ, PROFILER_MODE="events", PROFILER_DIR=str(folder),
               PROFILER_MAX_EVENTS="200000000")
    t0 = time.monotonic()
    out = subprocess.run([str(exe), str(n)], env=env, check=True, capture_output=True, text=True)
    calls = int(out.stdout.split("calls=")[1].split()[0])  # fib's calls
    print(f"recorded fib({n}) with PROFILER_MODE=events in {time.monotonic() - t0:.1f} s")
    stamp.write_text(f"{want}calls {calls}\n")
    return folder, calls


def timed(argv):
    """Run argv (stdout and stderr discarded); returns (seconds, peak MiB, exit status)."""
    t0 = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            fd = os.open(os.devnull, os.O_RDWR)
            for k in (0, 1, 2):
                os.dup2(fd, k)
            os.execv(argv[0], argv)
        finally:
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    return time.monotonic() - t0, usage.ru_maxrss / 1024.0, os.waitstatus_to_exitcode(status)


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    build = Path(sys.argv[1]).resolve()
    work = Path(sys.argv[2]).resolve()
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 36
    reps = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    work.mkdir(parents=True, exist_ok=True)
    profreport = str(build / "profreport")
    folder, calls = record_run(build_program(build, work), build, work, n)
    run_file = next(folder.glob("*.csv"))
    size = run_file.stat().st_size
    with open(run_file, "rb") as f:  # into the page cache, as for every tool of the benches
        while f.read(1 << 24):
            pass

    out = work / "large-out"
    shutil.rmtree(out, ignore_errors=True)
    out.mkdir()
    tools = {
        "report": [profreport, str(folder), "-o", str(out / "report.xlsx"), "-q"],
        "all exports": [profreport, str(folder), "-o", str(out / "exports.xlsx"), "-q",
                        "--json", str(out / "r.json"), "--csv", str(out / "csv"),
                        "--folded", str(out / "r.folded"), "--callgrind", str(out / "r.cg")],
        "--trace": [profreport, str(folder), "-o", str(out / "trace.xlsx"), "-q",
                    "--trace", str(out / "r.trace.json")],
    }
    print(f"Large-run bench: {run_file.name}, {size / 1e6:.1f} MB, {calls} calls "
          f"of fib({n}) (instrumented, events mode); {reps} repetitions")
    times = {k: [] for k in tools}
    peaks = {k: 0.0 for k in tools}
    for r in range(reps):
        for name, argv in tools.items():
            secs, peak, status = timed(argv)
            # 4, output not written: the trace of a run that passes --trace-limit.
            refused = status == 4 and name == "--trace" and not (out / "r.trace.json").exists()
            if status != 0 and not refused:
                sys.exit(f"largebench: {' '.join(argv)} exited with status {status}")
            times[name].append(secs)
            peaks[name] = max(peaks[name], peak)
        print(f"  repetition {r + 1}: " + ", ".join(f"{k} {v[-1]:.2f} s" for k, v in times.items()))

    got = json.loads((out / "r.json").read_text())
    counted = sum(r["Calls"] for r in got["callcost"] if r["Region"] == "fib")
    check = "ok" if counted == calls else "WRONG"
    trace = out / "r.trace.json"
    print(f"\n{'':14} {'seconds':>16} {'MB/s':>7} {'peak MiB':>9}")
    for name, v in times.items():
        med = statistics.median(v)
        print(f"{name:14} {med:8.2f} ({min(v):5.2f}) {size / 1e6 / med:7.0f} {peaks[name]:9.1f}")
    print(f"\nCheck: the JSON export counts {counted} calls of fib, the program made {calls}: "
          f"{check}")
    print("--trace: " + (f"{trace.stat().st_size / 1e6:.0f} MB written" if trace.exists() else
                         "refused (exit status 4, nothing written): the run passes --trace-limit "
                         "(1G by default, what Perfetto's UI loads); the time is that of "
                         "finding out"))
    rep, exp = statistics.median(times["report"]), statistics.median(times["all exports"])
    print("\nTargets (informational):")
    print(f"  {'a 1.5 GB event run reported':44} {'< 5 s':>10} {rep:9.2f}s "
          f"{'PASS' if rep < TARGET_SECONDS else 'MISS'}")
    print(f"  {'all exports / report alone':44} {'<= 1.5x':>10} {exp / rep:9.2f}x "
          f"{'PASS' if exp / rep <= TARGET_EXPORT_RATIO else 'MISS'}")
    shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
