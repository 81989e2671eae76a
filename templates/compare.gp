# compare.gp - profreport chart: the biggest changes between baseline and new runs, with intervals.
#
# Interface (docs/TEMPLATES.md): gnuplot -d -c compare.gp DATA OUTPUT TERMINAL TITLE VALUELABEL
#   ARG1 data file: tab-separated, one row per region, top to bottom in the chart:
#        label  change  low  high  verdict
#        label is a double-quoted string; change is the change of the median in percent
#        (+100 = twice as slow); low and high bound its 95% interval (NaN when unknown: no error
#        bar); verdict is 1 (significantly slower), -1 (significantly faster) or 0 (neither).
#   ARG2 output file   ARG3 "png" or "svg"   ARG4 chart title   ARG5 value-axis label
# Labels come from the data file only and ARG1..ARG5 are used as string values, never
# expanded as macros or evaluated: region names are never read as gnuplot commands.

if (ARG3 ne "png" && ARG3 ne "svg") { print "compare.gp: ARG3 must be png or svg"; exit status 2 }
if (strlen(ARG2) == 0 || ARG2[1:1] eq "|") { print "compare.gp: refused output " . ARG2; exit status 2 }
if (strlen(ARG1) == 0 || ARG1[1:1] eq "<") { print "compare.gp: refused data " . ARG1; exit status 2 }

set datafile separator "\t"

# One row per region: the chart grows taller with many regions so labels never overlap.
stats ARG1 using 0 nooutput
rows = exists("STATS_records") ? STATS_records : 0
height = rows > 20 ? 120 + 24 * rows : 600
height = height > 4000 ? 4000 : height
# With no valid change at all autoscaling has nothing to work on: show an empty axis instead.
stats ARG1 using 2 nooutput
empty = !exists("STATS_max")

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

# Red for significantly slower, green for significantly faster, grey for no significant change.
color(v) = v > 0.5 ? 0xc44e52 : v < -0.5 ? 0x55a868 : 0x9a9a9a

set title ARG4 font ",13"
set xlabel ARG5
set format x "%+g%%"
set xtics add ("0" 0)
if (empty) { set xrange [-1:1] } else { set xrange [*:*] }
set offsets graph 0.15, graph 0.15, 0, 0
set yrange [rows - 0.5:-0.5]
set ytics scale 0
set xtics nomirror out
set border 3
set grid xtics lc rgb "#d0d0d0" lt 1
set arrow 1 from first 0, graph 0 to first 0, graph 1 nohead lc rgb "#303030" lw 1 front
set style fill solid 0.85 noborder
set key off

# Bars from zero to the change, then the intervals (a NaN bound draws no error bar), then the
# change as text past whichever end lies further out: right of growth, left of shrinkage.
plot ARG1 using (0):0:($2 < 0 ? $2 : 0):($2 > 0 ? $2 : 0):($0 - 0.38):($0 + 0.38):(color($5)):ytic(1) \
         with boxxyerror lc rgb variable, \
     ARG1 using (valid(3) && valid(4) ? $2 : NaN):0:3:4 with xerrorbars lc rgb "#303030" lw 1.5 pt 0 ps 0, \
     ARG1 using ($2 >= 0 ? ((valid(4) && $4 > $2) ? $4 : $2) : NaN):0:(sprintf(" %+.1f%%", $2)) \
         with labels left tc rgb "#303030", \
     ARG1 using ($2 < 0 ? ((valid(3) && $3 < $2) ? $3 : $2) : NaN):0:(sprintf("%+.1f%% ", $2)) \
         with labels right tc rgb "#303030"
