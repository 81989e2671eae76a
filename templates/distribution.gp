# distribution.gp - profreport chart: distribution of the per-call cost of each region (box plot).
#
# Interface (docs/TEMPLATES.md): gnuplot -d -c distribution.gp DATA OUTPUT TERMINAL TITLE VALUELABEL
#   ARG1 data file: tab-separated, one row per region, top to bottom in the chart:
#        label  min  p25  median  p75  max
#        label is a double-quoted string; the numbers are quantiles of the per-call cost
#        (NaN: the parts of the box that need that quantile are left out).
#   ARG2 output file   ARG3 "png" or "svg"   ARG4 chart title   ARG5 value-axis label
# Labels come from the data file only and ARG1..ARG5 are used as string values, never
# expanded as macros or evaluated: region names are never read as gnuplot commands.

if (ARG3 ne "png" && ARG3 ne "svg") { print "distribution.gp: ARG3 must be png or svg"; exit status 2 }
if (strlen(ARG2) == 0 || ARG2[1:1] eq "|") { print "distribution.gp: refused output " . ARG2; exit status 2 }
if (strlen(ARG1) == 0 || ARG1[1:1] eq "<") { print "distribution.gp: refused data " . ARG1; exit status 2 }

set datafile separator "\t"

# One box per region: the chart grows taller with many regions so labels never overlap.
stats ARG1 using 0 nooutput
rows = exists("STATS_records") ? STATS_records : 0
height = rows > 20 ? 120 + 24 * rows : 600
height = height > 4000 ? 4000 : height
# Costs often span several decades (a lock at 50 ns, a file read at 5 ms): use a log scale
# when max / min > 100. stats comes before any "set range": it drops points outside them.
stats ARG1 using 2 nooutput
low = exists("STATS_min") ? STATS_min : NaN
stats ARG1 using 6 nooutput
high = exists("STATS_max") ? STATS_max : NaN
empty = !(low == low && high == high)
# A minimum of 0 (a call whose time, less the collector's cost, came to nothing) must not take
# the log scale away from every other region: the smallest value above 0 of the minimums,
# first quartiles and medians decides, and a value below it is drawn at it (stats of no valid
# point would stop the script, so each column's values above 0 are counted first).
if (!empty && !(low > 0)) {
    low = NaN
    do for [c = 2:4] {
        stats ARG1 using (column(c) > 0 ? 1 : 0) nooutput
        if (STATS_sum > 0) {
            stats ARG1 using (column(c) > 0 ? column(c) : NaN) nooutput
            if (!(low > 0) || STATS_min < low) { low = STATS_min }
        }
    }
}
logscale = !empty && low > 0 && high / low > 100
at_least(x) = logscale && x < low ? low : x
top = empty ? 0 : high
scale = top >= 1e12 ? 1e12 : top >= 1e9 ? 1e9 : top >= 1e6 ? 1e6 : top >= 1e3 ? 1e3 : 1
unit = scale == 1e12 ? "T" : scale == 1e9 ? "G" : scale == 1e6 ? "M" : scale == 1e3 ? "k" : ""

if (ARG3 eq "svg") {
    set terminal svg size 1000, height noenhanced font "DejaVu Sans,12" background "white"
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size 1000, height noenhanced font "DejaVu Sans,10" background "white"
    } else {
        set terminal png size 1000, height noenhanced font "DejaVuSans,10" background "white"
    }
}
set output ARG2

set title ARG4 font ",13"
set xlabel ARG5
set yrange [rows - 0.5:-0.5]
if (logscale) {
    set logscale x 10
    set format x "%g"
    scale = 1
} else {
    set format x "%g" . unit
    set xtics add ("0" 0)
    # Room past the longest whisker, so that its end does not sit on the frame.
    set offsets 0, graph 0.03, 0, 0
    if (empty) { set xrange [0:1] } else { set xrange [0:*] }
}
set ytics scale 0
set xtics nomirror out
set border 3
set grid xtics lc rgb "#d0d0d0" lt 1
set style fill solid 1.0 border lc rgb "#303030"
set key off

# Horizontal boxes, like the bar charts, so that long region names stay readable: a whisker
# line from min to max, the box from p25 to p75 over it, then the median as a bold tick.
plot ARG1 using (at_least($4) / scale):0:(at_least($2) / scale):(at_least($6) / scale):ytic(1) \
         with xerrorbars lc rgb "#303030" lw 1.2 pt 0 ps 0, \
     ARG1 using (at_least($4) / scale):0:(at_least($3) / scale):(at_least($5) / scale):($0 - 0.3):($0 + 0.3) \
         with boxxyerror lc rgb "#b9b1dc", \
     ARG1 using (at_least($4) / scale):($0 - 0.3):(0):(0.6) with vectors nohead lc rgb "#202020" lw 3
