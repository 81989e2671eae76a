/*
 * charts.h - charts.c: gnuplot charts, drawn from a data file and a template, without a shell
 * and under a time limit.
 *
 * Ownership: a chart_table's arrays are borrowed for the call; errors are values (rep_error.h)
 * the caller provides.
 */
#ifndef PROFREPORT_CHARTS_H
#define PROFREPORT_CHARTS_H

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
int chart_render(const struct chart_env *env, const struct chart_request *req, struct rep_error *e);

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
