# flame.gp - profreport chart: a flame graph (icicle) of the call paths.
#
# Interface (docs/TEMPLATES.md): gnuplot -d -c flame.gp DATA OUTPUT TERMINAL TITLE VALUELABEL
#   ARG1 data file: tab-separated, one row per calling context, each before its callees:
#        label  x0  x1  depth  colour
#        label is a double-quoted string (the region); x0 and x1 are the left and right edges
#        as fractions of all the time in top-level regions (a context is as wide as its
#        inclusive time); depth is 0 for a top-level region, 1 for the regions it calls...;
#        colour is the rectangle's colour as a number, 0xRRGGBB.
#   ARG2 output file   ARG3 "png" or "svg"   ARG4 chart title   ARG5 horizontal-axis label
# Labels come from the data file only and ARG1..ARG5 are used as string values, never
# expanded as macros or evaluated: region names are never read as gnuplot commands.

if (ARG3 ne "png" && ARG3 ne "svg") { print "flame.gp: ARG3 must be png or svg"; exit status 2 }
if (strlen(ARG2) == 0 || ARG2[1:1] eq "|") { print "flame.gp: refused output " . ARG2; exit status 2 }
if (strlen(ARG1) == 0 || ARG1[1:1] eq "<") { print "flame.gp: refused data " . ARG1; exit status 2 }

set datafile separator "\t"
# strlen and substrings count characters, not bytes: a label is never cut inside a character.
set encoding utf8

# One row of 20 pixels per depth (at least 6 rows), the top-level regions on top.
stats ARG1 using 4 nooutput
levels = exists("STATS_max") ? STATS_max + 1 : 1
levels = levels < 6 ? 6 : levels
height = 110 + 20 * levels
height = height > 4000 ? 4000 : height
width = 1000

if (ARG3 eq "svg") {
    set terminal svg size width, height noenhanced font "DejaVu Sans,12" background "white"
    charpx = 7.5
} else {
    if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
        set terminal pngcairo size width, height noenhanced font "DejaVu Sans,9" background "white"
    } else {
        set terminal png size width, height noenhanced font "DejaVuSans,9" background "white"
    }
    charpx = 6.5
}
set output ARG2

# The plot spans 96 % of the picture's width: a label fits when its characters do.
plotpx = 0.96 * width
set lmargin at screen 0.02
set rmargin at screen 0.98
# The label that fits in a rectangle w wide (a fraction of the whole): the name, the name cut
# with an ellipsis, or nothing when not even three characters fit.
fits(w) = int(w * plotpx / charpx) - 1
fit(s, w) = strlen(s) <= fits(w) ? s : fits(w) >= 4 ? s[1:fits(w) - 1] . "…" : ""

set title ARG4 font ",13"
set xlabel ARG5
set xrange [0:100]
set format x "%g%%"
set xtics 10 nomirror out
set yrange [levels - 0.5:-0.5]
unset ytics
set border 1
set key off
set style fill solid 1.0 border lc rgb "white"

# Rectangles, then the labels that fit, from a little past each left edge.
plot ARG1 using (50 * ($2 + $3)):4:(100 * $2):(100 * $3):($4 - 0.5):($4 + 0.5):5 \
         with boxxyerror lc rgb variable, \
     ARG1 using (100 * $2 + 300 / plotpx):4:(fit(strcol(1), $3 - $2)) with labels left \
         tc rgb "#202020"
