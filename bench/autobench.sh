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

BUILD=$(cd "$1" && pwd) # absolute: the programs run in WORK, and their rpath names it
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

# One timed run of a command line (the program prints "calls=C ns=T ..."): T. A run that
# prints no figure ends the bench with its error, rather than leave a configuration at 0.
once_ns() {
    rm -rf "$RUNS" "$WORK/uftrace.data"
    t=$( (cd "$WORK" && env PROFILER_DIR="$RUNS" "$@" 2>"$WORK/stderr") |
        sed -n 's/^calls=[0-9]* ns=\([0-9]*\).*/\1/p')
    if [ -z "$t" ]; then
        echo "autobench: no figure from: $*" >&2
        cat "$WORK/stderr" >&2
        exit 1
    fi
    echo "$t"
}

median() { sort -n | awk '{v[NR]=$1} END {print (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2}'; }

CALLS=$("$WORK/ch-plain" "$N" | sed 's/calls=\([0-9]*\).*/\1/')
HAVE_UFTRACE=0
command -v uftrace >/dev/null 2>&1 && HAVE_UFTRACE=1
# Round robin: every configuration once per round, so a slow spell of the machine hits all
# of them alike (this matters for the ratio to uftrace).
CONFIGS="plain empty pg ours ours_static summary summary_static skip skip_static"
[ $HAVE_UFTRACE = 1 ] && CONFIGS="$CONFIGS uftrace"
for c in $CONFIGS; do : > "$WORK/t-$c"; done
round=0
while [ $round -lt "$REPS" ]; do
    once_ns "$WORK/ch-plain" "$N" >> "$WORK/t-plain"
    once_ns "$WORK/ch-empty" "$N" >> "$WORK/t-empty"
    once_ns "$WORK/ch-pg" "$N" >> "$WORK/t-pg"
    once_ns env PROFILER_MODE=events "$WORK/ch-auto" "$N" >> "$WORK/t-ours"
    once_ns env PROFILER_MODE=events "$WORK/ch-auto-static" "$N" >> "$WORK/t-ours_static"
    once_ns "$WORK/ch-auto" "$N" >> "$WORK/t-summary" # libprofreport-auto's default
    once_ns "$WORK/ch-auto-static" "$N" >> "$WORK/t-summary_static"
    once_ns env PROFILER_EXCLUDE=fib "$WORK/ch-auto" "$N" >> "$WORK/t-skip"
    once_ns env PROFILER_EXCLUDE=fib "$WORK/ch-auto-static" "$N" >> "$WORK/t-skip_static"
    [ $HAVE_UFTRACE = 1 ] &&
        once_ns uftrace record -d "$WORK/uftrace.data" "$WORK/ch-pg" "$N" >> "$WORK/t-uftrace"
    round=$((round + 1))
done
med() { median < "$WORK/t-$1"; }

PLAIN=$(med plain)
echo "function-call overhead: fib($N) = $CALLS calls; median of $REPS rounds, configurations taken in turn"
echo "plain build: $(awk -v t="$PLAIN" -v c="$CALLS" 'BEGIN {printf "%.1f ms, %.2f ns per call", t/1e6, t/c}')"
printf '%-44s %12s %16s\n' "configuration" "time (ms)" "overhead/call"

report() { # name, median ns
    awk -v name="$1" -v t="$2" -v p="$PLAIN" -v c="$CALLS" \
        'BEGIN {printf "%-44s %12.1f %13.2f ns\n", name, t/1e6, (t-p)/c}'
}

report "empty hooks" "$(med empty)"
report "gcc -pg (mcount)" "$(med pg)"
OURS=$(med ours)
OURS_S=$(med ours_static)
report "profreport-auto, events (shared)" "$OURS"
report "profreport-auto, events (static)" "$OURS_S"
SUMMARY=$(med summary)
report "profreport-auto, summary (shared, default)" "$SUMMARY"
report "profreport-auto, summary (static)" "$(med summary_static)"
report "profreport-auto, fib filtered out (shared)" "$(med skip)"
report "profreport-auto, fib filtered out (static)" "$(med skip_static)"

awk -v s="$SUMMARY" -v e="$OURS" -v p="$PLAIN" 'BEGIN {
    r = (s - p) / (e - p);
    printf "summary / events overhead per call: %.2fx (target <= 1.00x): %s\n", r,
        (r <= 1.0 ? "PASS" : "MISS") }'

# Whole process in each mode: recording plus the run file at exit.
for mode in events summary; do
    start=$(date +%s%N)
    (cd "$WORK" && PROFILER_MODE=$mode PROFILER_DIR="$RUNS" "$WORK/ch-auto" "$N" >/dev/null)
    end=$(date +%s%N)
    awk -v m="$mode" -v w="$((end - start))" -v c="$CALLS" -v s="$(du -sb "$RUNS" | cut -f1)" \
        'BEGIN {printf "%s mode, whole process: %.0f ms wall for %d calls (run file %.3g MB)\n", m, w/1e6, c, s/1e6}'
    rm -rf "$RUNS"
done

if [ $HAVE_UFTRACE = 1 ]; then
    UF=$(med uftrace)
    report "uftrace record (-pg build)" "$UF"
    awk -v o="$OURS" -v u="$UF" -v p="$PLAIN" -v so="$OURS_S" 'BEGIN {
        r = (o - p) / (u - p); rs = (so - p) / (u - p);
        printf "ours / uftrace overhead: %.2fx shared, %.2fx static (target <= 0.25x): %s\n", r, rs,
            (r <= 0.25 ? "PASS" : "FAIL") }'
else
    echo "uftrace record: not installed (apt-get install uftrace), ratio not measured"
fi
rm -rf "$WORK/uftrace.data" "$WORK"/t-*
