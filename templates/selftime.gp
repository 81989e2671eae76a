# selftime.gp - profreport chart: self time of the regions with the most of it.
#
# Interface (docs/TEMPLATES.md): gnuplot -d -c selftime.gp DATA OUTPUT TERMINAL TITLE VALUELABEL
#   ARG1 data file: tab-separated, one row per region, top to bottom in the chart:
#        label  self  share
#        label is a double-quoted string; self is the time spent in the region itself, not in
#        the regions it called; share is that time as a fraction of all self time (NaN when
#        unknown: no percentage is written).
#   ARG2 output file   ARG3 "png" or "svg"   ARG4 chart title   ARG5 value-axis label
# Labels come from the data file only and ARG1..ARG5 are used as string values, never
# expanded as macros or evaluated: region names are never read as gnuplot commands.

if (ARG3 ne "png" && ARG3 ne "svg") { print "selftime.gp: ARG3 must be png or svg"; exit status 2 }
if (strlen(ARG2) == 0 || ARG2[1:1] eq "|") { print "selftime.gp: refused output " . ARG2; exit status 2 }
if (strlen(ARG1) == 0 || ARG1[1:1] eq "<") { print "selftime.gp: refused data " . ARG1; exit status 2 }

set datafile separator "\t"

# One row per region: the chart grows taller with many regions so labels never overlap.
stats ARG1 using 0 nooutput
rows = exists("STATS_records") ? STATS_records : 0
height = rows > 20 ? 120 + 24 * rows : 600
height = height > 4000 ? 4000 : height
# With no valid value at all autoscaling has nothing to work on: show an empty axis instead.
# (stats comes before any "set range": it drops points outside the current ranges.)
stats ARG1 using 2 nooutput
empty = !exists("STATS_max")
# The value axis counts in units of k, M, G or T of the largest value: "20M", not "2e+07".
top = empty ? 0 : STATS_max
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

# 3 significant digits with a k/M/G suffix: "12.3k" reads faster than "12345.678".
si(x) = abs(x) >= 999.5e9 ? sprintf("%.3gT", x / 1e12) : abs(x) >= 999.5e6 ? sprintf("%.3gG", x / 1e9) : \
        abs(x) >= 999.5e3 ? sprintf("%.3gM", x / 1e6) : abs(x) >= 999.5 ? sprintf("%.3gk", x / 1e3) : \
        sprintf("%.3g", x)
# The share of all self time, when known: read as text, since a NaN column would make gnuplot
# drop the whole label.
pct(s) = (s eq "NaN" || s eq "") ? "" : sprintf(" (%.3g%%)", 100 * (s + 0))

set title ARG4 font ",13"
set xlabel ARG5
set format x "%g" . unit
# A plain "0" rather than "0M" (a manual tic replaces the automatic one there).
set xtics add ("0" 0)
if (empty) { set xrange [0:1] } else { set xrange [0:*] }
set offsets 0, graph 0.2, 0, 0
set yrange [rows - 0.5:-0.5]
set ytics scale 0
set xtics nomirror out
set border 3
set grid xtics lc rgb "#d0d0d0" lt 1
set style fill solid 0.85 noborder
set key off

# Bars, then the value and its share just past each bar.
plot ARG1 using (0):0:(0):($2 / scale):($0 - 0.38):($0 + 0.38):ytic(1) with boxxyerror \
         lc rgb "#c44e52", \
     ARG1 using ($2 / scale):0:(" " . si($2) . pct(strcol(3))) with labels left tc rgb "#303030"
