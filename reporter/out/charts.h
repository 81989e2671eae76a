/*
 * charts.h - charts.c: the report's gnuplot charts: which ones, their data from the model, and
 * where their pictures go. The drawing is gnuplot.h's.
 *
 * Ownership: a chart_table's arrays are borrowed for the call; errors are values (rep_error.h)
 * the caller provides.
 */
#ifndef PROFREPORT_CHARTS_H
#define PROFREPORT_CHARTS_H

#include "base/rep_error.h"
#include "out/gnuplot.h"

#include <stddef.h>

/* ---- the report's charts ---- */

/* What the charts show: the --title, --unit and --top options. */
struct chart_options {
    const char *title; /* NULL: "profreport" */
    const char *unit;  /* "auto", "s", "ms", "us" or "ns" */
    size_t top;
};

/* The charts of one report, rendered in a private work folder: PNG paths for the workbook,
   titles, and base names (name.png and name.svg are in work). */
#define CHARTS_MAX 8
struct chart_set {
    char *work;
    char *pngs[CHARTS_MAX], *titles[CHARTS_MAX], *bases[CHARTS_MAX];
    size_t n;
    char *note; /* why charts are missing (no gnuplot, one failed...), or NULL */
};

struct model;
struct comparison;
/*
 * Compute each chart's data from the model (and the comparison c, when not NULL: its chart
 * comes first) and render it with the templates in templates_dir: the flame graph of the call
 * paths, self time by region, the mean cost per call of the top regions with its 95 % interval
 * across runs, their calls, the distribution of the cost of one call, and the mean run by run
 * (past 30 runs, its median and p10-p90 band per window of runs). Every chart's data file is
 * written first, then one gnuplot per CPU (PROFREPORT_THREADS, cpus.h) draws its share of them,
 * one after the other. A chart that fails is left out, the first failure said in ch->note; the
 * others stay (a new gnuplot draws the rest of a share after a failure).
 */
void charts_make(struct chart_set *ch, const char *templates_dir, const struct model *m,
                 const struct comparison *c, const struct chart_options *o);
/* Remove the work folder and its pictures and free the set. */
void charts_release(struct chart_set *ch);
/*
 * The templates folder: opt (--templates) when not NULL, else beside the program (a build
 * tree), else the folder of the PREFIX it was built for, else <bin>/../share/profreport/
 * templates (an installed tree moved or staged under DESTDIR). The caller frees it.
 */
char *charts_templates(const char *opt);
/* The charts folder of the workbook output: <output without .xlsx>-charts (the caller frees
   it). */
char *charts_dir_for(const char *output);
/* Copy each chart's PNG and SVG from the work folder into dir (created if missing), counting
   the files in *copied. 0, or -1 with e (REP_ERR_OUTPUT). */
int charts_commit(const struct chart_set *ch, const char *dir, size_t *copied, struct rep_error *e);

#endif /* PROFREPORT_CHARTS_H */
