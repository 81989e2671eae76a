#!/bin/sh
# mkcorpus.sh - remake the seed corpus of tests/fuzz/corpus from real runs of the test programs
# (events, summary, memory checks, instrumented functions, a killed run's .part files, the
# seed form). Run from the top of the tree after `make all` and the programs it names are
# built (make build/tests/programs/killme ...). Files are cut to a few KiB at a line or chunk
# boundary, or mid-chunk where a cut is the point (a kill mid-write): small inputs fuzz faster.
# Files named regress-* are the inputs of bugs the fuzzers found; they are kept by hand.
set -eu

B=${BUILD:-build}
P=$B/tests/programs
C=tests/fuzz/corpus
SEP='==next=='
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT

for t in runfile seed part workbook; do
    mkdir -p "$C/$t"
done

# One run of a program into $W/<name>; prints the run file's path.
run() {
    name=$1
    shift
    mkdir -p "$W/$name"
    env PROFILER_DIR="$W/$name" "$@" > /dev/null
    ls "$W/$name"/*.csv
}

# killme (mode) name: start killme with two workers, SIGKILL it once it is ready.
killed() {
    mkdir -p "$W/$2"
    env PROFILER_DIR="$W/$2" PROFILER_MODE="$1" "$P/killme" 2 > "$W/$2.out" &
    pid=$!
    for _ in $(seq 100); do
        grep -q ready "$W/$2.out" && break
        sleep 0.1
    done
    kill -9 "$pid"
    wait "$pid" || true
}

# The first lines of a file, up to about n bytes (whole lines).
cut_lines() { head -c "$2" "$1" | sed '$d'; }

ev=$(run nested "$P/nested")
su=$(run summary env PROFILER_MODE=summary "$P/summary")
mem=$(run memcheck "$P/memcheck")
auto=$(run auto "$P/auto/calls")
names=$(run names "$P/names")
unt=$(run unterminated "$P/unterminated")
thr=$(run threads "$P/threads" 3 5)
thr2=$(run threads2 "$P/threads" 2 3)
rec=$(run recursion "$P/recursion")
ids=$(run ids "$P/ids" same-text)
killed events kill
killed summary killsu
k1=$(ls "$W"/kill/*.1.part)
k2=$(ls "$W"/kill/*.2.part)
k3=$(ls "$W"/kill/*.3.part)

# The killed main thread's part is 512 KiB of events: its first 4 KiB end mid-chunk, as a
# kill during a write leaves it.
head -c 4096 "$k1" > "$W/k1cut.part"
"$P/recover" "$W/k1cut.part" "$k2" "$k3" > "$W/recovered.csv"
"$P/recover" "$W"/killsu/*.part > "$W/recovered-summary.csv"

# runfile: whole small run files, long ones cut to their first lines.
cp "$names" "$C/runfile/events-names.csv"
cp "$thr" "$C/runfile/events-threads.csv"
cp "$rec" "$C/runfile/events-recursion.csv"
cp "$unt" "$C/runfile/events-unterminated.csv"
cp "$ids" "$C/runfile/events-same-text-ids.csv"
cut_lines "$ev" 2048 > "$C/runfile/events-nested-cut.csv"
cp "$su" "$C/runfile/summary.csv"
cp "$mem" "$C/runfile/memory.csv"
cut_lines "$auto" 3072 > "$C/runfile/auto-functions-cut.csv"
cut_lines "$W/recovered.csv" 2048 > "$C/runfile/recovered-killed-cut.csv"
cp "$W/recovered-summary.csv" "$C/runfile/recovered-killed-summary.csv"

# seed: rows only (the target writes the Frequency record), from real runs' ids and ticks.
seed_rows() {
    /usr/bin/python3 -c '
import csv, io, sys
rows = list(csv.reader(io.open(sys.argv[1], newline="", encoding="latin-1")))
start = [i for i, r in enumerate(rows) if r[:1] == ["Region"]][0] + 1
out = io.TextIOWrapper(sys.stdout.buffer, encoding="latin-1", newline="")
csv.writer(out, lineterminator="\n").writerows(r[:2] for r in rows[start:] if r)
out.flush()' "$1"
}
seed_rows "$rec" > "$C/seed/recursion-rows"
seed_rows "$unt" > "$C/seed/unterminated-rows"
seed_rows "$names" > "$C/seed/quoted-ids-rows"
cut_lines "$ev" 1024 > "$W/ev-cut.csv"
seed_rows "$W/ev-cut.csv" > "$C/seed/nested-rows"
printf 'CFoo::Foo,961486\r\nCFoo::Bar,\r\n' > "$C/seed/format-md-example-crlf"
sed 1d "$su" > "$C/seed/versioned-summary"

# part: a killed run's parts (joined by the separator), whole or one at a time.
{ cat "$W/k1cut.part"; printf '%s\n' "$SEP"; cat "$k2"; printf '%s\n' "$SEP"; cat "$k3"; } \
    > "$C/part/killed-events-3-parts"
cp "$k2" "$C/part/worker-part-ended"
cp "$W/k1cut.part" "$C/part/main-part-cut"
set -- "$W"/killsu/*.part
{ cat "$1"; printf '%s\n' "$SEP"; cat "$2"; printf '%s\n' "$SEP"; cat "$3"; } \
    > "$C/part/killed-summary-3-parts"

# workbook: the files of one report, joined by the separator.
join() {
    out=$1
    shift
    first=1
    for f in "$@"; do
        [ $first = 1 ] || printf '%s\n' "$SEP"
        first=0
        cat "$f"
    done > "$out"
}
join "$C/workbook/two-thread-runs" "$thr" "$thr2"
join "$C/workbook/summary-and-memory" "$su" "$mem"
join "$C/workbook/names-recursion-unterminated" "$names" "$rec" "$unt"
join "$C/workbook/killed-and-events" "$W/k1cut.part" "$k2" "$k3" "$ids"
join "$C/workbook/killed-summary" "$W"/killsu/*.part
cut_lines "$auto" 3072 > "$W/auto-cut.csv"
{ echo "Frequency,3579545"; seed_rows "$rec"; } > "$W/seed.csv"
join "$C/workbook/auto-and-seed" "$W/auto-cut.csv" "$W/seed.csv"

du -sh "$C"
