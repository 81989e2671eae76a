# trend.gp - profreport chart: mean cost per call of each region, run after run.
#
# Interface (docs/TEMPLATES.md): gnuplot -d -c trend.gp DATA OUTPUT TERMINAL TITLE VALUELABEL
#   ARG1 data file: tab-separated, one block per region (blocks are separated by two blank
#        lines), one row per run:
#        label  run  mean
#        label is a double-quoted string, the same on every row of a block; run is the run's
#        number (1, 2, ...); mean is the region's mean cost per call in that run (NaN: the
#        region was not seen in that run, which leaves a gap in its line).
#   ARG2 output file   ARG3 "png" or "svg"   ARG4 chart title   ARG5 value-axis label
# Labels come from the data file only and ARG1..ARG5 are used as string values, never
# expanded as macros or evaluated: region names are never read as gnuplot commands.

if (ARG3 ne "png" && ARG3 ne "svg") { print "trend.gp: ARG3 must be png or svg"; exit status 2 }
if (strlen(ARG2) == 0 || ARG2[1:1] eq "|") { print "trend.gp: refused output " . ARG2; exit status 2 }
if (strlen(ARG1) == 0 || ARG1[1:1] eq "<") { print "trend.gp: refused data " . ARG1; exit status 2 }

set datafile separator "\t"

stats ARG1 using 0 nooutput
blocks = exists("STATS_blocks") ? STATS_blocks : 0
# Each line's key title is its block's label, read as a string value from the data file by
# a stats pass per block (strcol(1) assigned to an array element, never parsed as a command).
array name[blocks > 0 ? blocks : 1]
do for [b = 1:blocks] {
    stats ARG1 index (b - 1) using (name[b] = strcol(1), 0) nooutput
}
stats ARG1 using 2 nooutput
first = exists("STATS_min") ? STATS_min : 1
last = exists("STATS_max") ? STATS_max : 1
# Means of different regions often span decades: log scale when max / min > 100.
# stats comes before any "set range": it drops points outside them.
stats ARG1 using 3 nooutput
low = exists("STATS_min") ? STATS_min : NaN
high = exists("STATS_max") ? STATS_max : NaN
empty = !(low == low && high == high)
logscale = !empty && low > 0 && high / low > 100
top = empty ? 0 : high
scale = top >= 1e12 ? 1e12 : top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1
unit = scale == 1e12 ? "T" : scale == 1e9 ? "G" : scale == 1e6 ? "M" : scale == 1e3 ? "k" : ""

if (ARG3 eq "svg") {
    set terminal svg size 1000, 600 noenhanced font "DejaVu Sans,12" background "white"
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 1000, 600 noenhanced font "DejaVu Sans,10" background "white"
    } else {
        set terminal png size 1000, 600 noenhanced font "DejaVuSans,10" background "white"
    }
}
set output ARG2

set title ARG4 font ",13"
set xlabel "run number"
set ylabel ARG5
# Runs are whole numbers: one tic per run while they fit, else gnuplot's own spacing.
set xrange [first - 0.3:last + 0.3]
if (last - first < 25) { set xtics 1 } else { set xtics }
set format x "%.0f"
if (logscale) {
    set logscale y 10
    set format y "%g"
    scale = 1
} else {
    set format y "%g" . unit
    set ytics add ("0" 0)
    # Room above the highest point, so that it does not sit on the frame (a log axis ends at
    # the next power of ten anyway).
    set offsets 0, 0, graph 0.05, 0
    if (empty) { set yrange [0:1] } else { set yrange [0:*] }
}
set xtics nomirror out
set ytics nomirror out
set border 3
set grid xtics ytics lc rgb "#e0e0e0" lt 1
set key outside below center horizontal Left reverse noenhanced height 1

# Ten colours that stay apart on white and for most colour-blind readers (gnuplot's default
# cycle has a pale yellow); past ten the cycle repeats with another point shape.
set linetype 1 lc rgb "#4c72b0" pt 7
set linetype 2 lc rgb "#dd8452" pt 7
set linetype 3 lc rgb "#55a868" pt 7
set linetype 4 lc rgb "#c44e52" pt 7
set linetype 5 lc rgb "#8172b3" pt 7
set linetype 6 lc rgb "#937860" pt 7
set linetype 7 lc rgb "#da8bc3" pt 7
set linetype 8 lc rgb "#8c8c8c" pt 7
set linetype 9 lc rgb "#ccb974" pt 7
set linetype 10 lc rgb "#64b5cd" pt 7
set linetype 11 lc rgb "#4c72b0" pt 5
set linetype 12 lc rgb "#dd8452" pt 5
set linetype 13 lc rgb "#55a868" pt 5
set linetype 14 lc rgb "#c44e52" pt 5
set linetype 15 lc rgb "#8172b3" pt 5
set linetype 16 lc rgb "#937860" pt 5
set linetype 17 lc rgb "#da8bc3" pt 5
set linetype 18 lc rgb "#8c8c8c" pt 5
set linetype 19 lc rgb "#ccb974" pt 5
set linetype 20 lc rgb "#64b5cd" pt 5
set linetype cycle 20
plot for [b = 1:blocks] ARG1 index (b - 1) using 2:($3 / scale) with linespoints lw 2 ps 0.8 \
    title name[b]
