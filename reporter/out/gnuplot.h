/*
 * gnuplot.h - gnuplot.c: charts drawn by gnuplot from a data file and a template, without a
 * shell and under a time limit; a report's charts drawn together by one gnuplot per CPU.
 *
 * Ownership: a chart_table's arrays are borrowed for the call; a gnuplot_chart owns its paths
 * and texts until gnuplot_release; errors are values (rep_error.h) the caller provides.
 */
#ifndef PROFREPORT_GNUPLOT_H
#define PROFREPORT_GNUPLOT_H

#include "base/rep_error.h"

#include <stddef.h>

/*
 * The data of one chart: nrows rows of a label and ncols numbers. Labels are untrusted (region
 * ids): they reach gnuplot only inside the data file, never in script text. A NaN value is
 * written as missing data. Rows may be split into blocks (gnuplot's index / blank lines).
 */
struct chart_table {
    size_t nrows, ncols;
    const char *const *labels;  /* nrows labels */
    const double *values;       /* nrows * ncols, row by row */
    const char *const *columns; /* ncols column names (trusted: ours), for the header line */
    const size_t *block_ends;   /* nblocks exclusive ends ({3, 6}: rows 0-2, 3-5; the last
                                   equals nrows); NULL: one block */
    size_t nblocks;
};

/* One chart to render with a template (docs/TEMPLATES.md describes each template's data). */
struct chart_request {
    const char *template_name; /* e.g. "callcost" -> <templates_dir>/callcost.gp */
    const char *output_base;   /* path without extension: .png and .svg are written */
    const char *title;         /* trusted: ours or the user's --title */
    const char *ylabel;        /* trusted */
    const struct chart_table *data;
};

struct chart_env {
    const char *templates_dir; /* where <name>.gp live */
    const char *gnuplot;       /* the gnuplot program; NULL: "gnuplot" from PATH */
    const char *work_dir;      /* where data files are written (a private temporary folder) */
    int timeout_s;             /* gnuplot is killed after this long */
};

/*
 * Render one chart as output_base.png and output_base.svg, both in one gnuplot run. Returns
 * 0, or -1 with e set when the data file cannot be written or gnuplot is missing, fails or
 * times out.
 */
int gnuplot_render(const struct chart_env *env, const struct chart_request *req,
                   struct rep_error *e);

/* A chart ready to draw: its request checked and its data file written. */
struct gnuplot_chart {
    char *template_path, *data_path, *base;
    char *title, *ylabel; /* as shown: control characters made visible */
};

/*
 * Check req (paths, template, table) and write its data file into env->work_dir. Returns 0
 * with *p filled (gnuplot_release frees it), or -1 with e set.
 */
int gnuplot_prepare(const struct chart_env *env, const struct chart_request *req,
                    struct gnuplot_chart *p, struct rep_error *e);
/* Remove the data file and free what p holds. */
void gnuplot_release(struct gnuplot_chart *p);
/*
 * Draw the n prepared charts p, each as base.png and base.svg, by one gnuplot per CPU (at most
 * a few). ret[i] is 0, or -1 with e[i] set. Returns nonzero when gnuplot could not be used at
 * all (missing, or not gnuplot): every chart then failed with that error.
 */
int gnuplot_draw(const struct chart_env *env, const struct gnuplot_chart *p, size_t n, int *ret,
                 struct rep_error *e);

#endif /* PROFREPORT_GNUPLOT_H */
