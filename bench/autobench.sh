#!/bin/sh
# autobench.sh - overhead per instrumented function call, side by side on one call-heavy
# program (callheavy.c, a recursive Fibonacci): built plain, with empty -finstrument-functions
# hooks, with libprofreport-auto (shared as pkg-config links it, and static; events mode,
# summary mode, and with the function filtered out), with gcc's -pg, and the -pg build under
# `uftrace record`. Each program times its own fib(N) call; the figure is the median over REPS
# runs of (time - plain time) / calls. Peers that are not installed are skipped and said so.
#
# Usage: autobench.sh BUILD_DIR WORK_DIR [N] [REPS]
set -eu

BUILD=$1
WORK=$2
N=${3:-32}
REPS=${4:-5}
CC=${CC:-cc}
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$WORK"
WORK=$(cd "$WORK" && pwd)
RUNS="$WORK/auto-runs"

$CC -O2 "$HERE/callheavy.c" -o "$WORK/ch-plain"
$CC -O2 -c "$HERE/empty_hooks.c" -o "$WORK/empty_hooks.o"
$CC -O2 -finstrument-functions "$HERE/callheavy.c" "$WORK/empty_hooks.o" -o "$WORK/ch-empty"
$CC -O2 -finstrument-functions "$HERE/callheavy.c" -o "$WORK/ch-auto" -L"$BUILD" \
    -Wl,-rpath,"$BUILD" -lprofreport-auto
$CC -O2 -finstrument-functions "$HERE/callheavy.c" -o "$WORK/ch-auto-static" \
    "$BUILD/libprofreport-auto.a" -ldw -liberty -pthread
$CC -O2 -pg "$HERE/callheavy.c" -o "$WORK/ch-pg"

# median NS of REPS runs of a command line (the program prints "calls=C ns=T ...")
median_ns() {
    i=0
    : > "$WORK/times"
    while [ $i -lt "$REPS" ]; do
        rm -rf "$RUNS" "$WORK/uftrace.data"
        out=$(cd "$WORK" && env PROFILER_DIR="$RUNS" "$@" 2>/dev/null | grep '^calls=')
        echo "$out" | sed 's/.*ns=\([0-9]*\).*/\1/' >> "$WORK/times"
        i=$((i + 1))
    done
    sort -n "$WORK/times" | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'
}

CALLS=$("$WORK/ch-plain" "$N" | sed 's/calls=\([0-9]*\).*/\1/')
PLAIN=$(median_ns "$WORK/ch-plain" "$N")
echo "function-call overhead: fib($N) = $CALLS calls, median of $REPS runs each"
echo "plain build: $(awk -v t="$PLAIN" -v c="$CALLS" 'BEGIN {printf "%.1f ms, %.2f ns per call", t/1e6, t/c}')"
printf '%-44s %12s %16s\n' "configuration" "time (ms)" "overhead/call"

report() { # name, median ns
    awk -v name="$1" -v t="$2" -v p="$PLAIN" -v c="$CALLS" \
        'BEGIN {printf "%-44s %12.1f %13.2f ns\n", name, t/1e6, (t-p)/c}'
}

EMPTY=$(median_ns "$WORK/ch-empty" "$N"); report "empty hooks" "$EMPTY"
PG=$(median_ns "$WORK/ch-pg" "$N"); report "gcc -pg (mcount)" "$PG"
OURS=$(median_ns "$WORK/ch-auto" "$N"); report "profreport-auto, events (shared)" "$OURS"
OURS_S=$(median_ns "$WORK/ch-auto-static" "$N"); report "profreport-auto, events (static)" "$OURS_S"
SUMM=$(median_ns env PROFILER_MODE=summary "$WORK/ch-auto" "$N")
report "profreport-auto, summary (shared)" "$SUMM"
SKIP=$(median_ns env PROFILER_EXCLUDE=fib "$WORK/ch-auto" "$N")
report "profreport-auto, fib filtered out (shared)" "$SKIP"
SKIP_S=$(median_ns env PROFILER_EXCLUDE=fib "$WORK/ch-auto-static" "$N")
report "profreport-auto, fib filtered out (static)" "$SKIP_S"

# Whole process, events mode: recording plus the merge into the run file at exit.
start=$(date +%s%N)
(cd "$WORK" && PROFILER_DIR="$RUNS" "$WORK/ch-auto" "$N" >/dev/null)
end=$(date +%s%N)
awk -v w="$((end - start))" -v c="$CALLS" -v s="$(du -sb "$RUNS" | cut -f1)" \
    'BEGIN {printf "events mode, whole process: %.0f ms wall for %d calls (run file %.0f MB)\n", w/1e6, c, s/1e6}'
rm -rf "$RUNS"

if command -v uftrace >/dev/null 2>&1; then
    UF=$(median_ns uftrace record -d "$WORK/uftrace.data" "$WORK/ch-pg" "$N")
    report "uftrace record (-pg build)" "$UF"
    awk -v o="$OURS" -v u="$UF" -v p="$PLAIN" -v so="$OURS_S" 'BEGIN {
        r = (o - p) / (u - p); rs = (so - p) / (u - p);
        printf "ours / uftrace overhead: %.2fx shared, %.2fx static (target <= 0.25x): %s\n", r, rs,
            (r <= 0.25 ? "PASS" : "FAIL") }'
else
    echo "uftrace record: not installed (apt-get install uftrace), ratio not measured"
fi
rm -rf "$WORK/uftrace.data"
