/*
 * tables.c - the model as ordered tables with their column schemas, for every output that
 * lists statistics (workbook.c's sheets, export.c's CSV and JSON).
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/tables.h"
#include "model/compare.h"
#include "base/util.h"
#include "model/runcheck.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const table_names[TABLE_COUNT] = {"callcost", "calltree", "runs", "threads"};

static const struct column callcost_cols[] = {
    {"Region", COL_TEXT},         {"Short name", COL_TEXT},     {"Calls", COL_COUNT},
    {"Total", COL_TOTAL_NS},      {"Total %", COL_SHARE},       {"Self", COL_TOTAL_NS},
    {"Self %", COL_SHARE},        {"Mean", COL_COST_NS},        {"Median", COL_COST_NS},
    {"Source file", COL_TEXT},    {"Line", COL_NUMBER},         {"Std dev", COL_COST_NS},
    {"Min", COL_COST_NS},         {"Max", COL_COST_NS},         {"P90", COL_COST_NS},
    {"P99", COL_COST_NS},         {"Runs", COL_COUNT},          {"Run mean", COL_COST_NS},
    {"Run std dev", COL_COST_NS}, {"Run CV", COL_SHARE},        {"95% CI +/-", COL_COST_NS},
    {"Fastest run", COL_COST_NS}, {"Slowest run", COL_COST_NS}, {"Never stopped", COL_COUNT},
    {"Percentiles", COL_TEXT},    {"Total +/-", COL_TOTAL_NS},  {"Self +/-", COL_TOTAL_NS},
    {"Wall", COL_TOTAL_NS},       {"Wall +/-", COL_TOTAL_NS},   {"Off-CPU", COL_TOTAL_NS},
    {"Left out", COL_TEXT}};
_Static_assert(sizeof callcost_cols / sizeof *callcost_cols == CC_NCOLS,
               "enum callcost_col names every Call cost column");
static const struct column calltree_cols[] = {{"Caller", COL_TEXT},
                                              {"Callee", COL_TEXT},
                                              {"Calls", COL_COUNT},
                                              {"Total", COL_TOTAL_NS},
                                              {"Self", COL_TOTAL_NS},
                                              {"Mean", COL_COST_NS},
                                              {"Share of callee's calls", COL_SHARE},
                                              {"Left out", COL_TEXT}};
static const struct column runs_cols[] = {
    {"Run", COL_COUNT},        {"File", COL_TEXT},         {"Start", COL_TEXT},
    {"Program", COL_TEXT},     {"Pid", COL_TEXT},          {"Host", COL_TEXT},
    {"Mode", COL_TEXT},        {"Clock", COL_TEXT},        {"Frequency (Hz)", COL_COUNT},
    {"Threads", COL_COUNT},    {"Duration", COL_TOTAL_NS}, {"Events", COL_COUNT},
    {"Complete", COL_TEXT},    {"Recovered", COL_TEXT},    {"Crash", COL_TEXT},
    {"CPU wait %", COL_SHARE}, {"Check", COL_TEXT}};
static const struct column threads_cols[] = {{"Run", COL_COUNT},
                                             {"File", COL_TEXT},
                                             {"Thread", COL_COUNT},
                                             {"Tid", COL_TEXT},
                                             {"Name", COL_TEXT},
                                             {"Role", COL_TEXT},
                                             {"State", COL_TEXT},
                                             {"Events", COL_COUNT},
                                             {"Busy", COL_TOTAL_NS},
                                             {"Wall", COL_TOTAL_NS},
                                             {"CPU", COL_TOTAL_NS},
                                             {"CPU %", COL_SHARE},
                                             {"Waited on hooks", COL_TOTAL_NS},
                                             {"Mostly idle", COL_TEXT}};

/* Edges heavier first, then by callee; ctx points to the model pointer. */
static int by_edge_total(const void *a, const void *b, void *ctx)
{
    const struct model *m = *(const struct model *const *)ctx;
    const struct edge *x = &m->edges[*(const size_t *)a];
    const struct edge *y = &m->edges[*(const size_t *)b];
    if (x->outer_ns != y->outer_ns)
        return x->outer_ns < y->outer_ns ? 1 : -1;
    return (x->callee > y->callee) - (x->callee < y->callee);
}

/* Set up one table. */
void table_open(struct table *t, const struct model *m, enum table_id id)
{
    memset(t, 0, sizeof *t);
    t->m = m;
    t->id = id;
    switch (id) {
    case TABLE_CALLCOST:
        t->cols = callcost_cols;
        t->ncols = sizeof callcost_cols / sizeof *callcost_cols;
        t->order = model_ranked(m, &t->nrows);
        t->busy = model_busy(m);
        break;
    case TABLE_CALLTREE:
        t->cols = calltree_cols;
        t->ncols = sizeof calltree_cols / sizeof *calltree_cols;
        t->order = xmalloc((m->nedges ? m->nedges : 1) * sizeof *t->order);
        for (size_t i = 0; i < m->nedges; i++)
            if (!m->regions[m->edges[i].callee].excluded)
                t->order[t->nrows++] = i;
        qsort_r(t->order, t->nrows, sizeof *t->order, by_edge_total, &m);
        break;
    case TABLE_RUNS:
        t->cols = runs_cols;
        t->ncols = sizeof runs_cols / sizeof *runs_cols;
        t->nrows = m->nruns;
        /* Each run's Check text, for its row's cell to point at. */
        t->notes = xmalloc((m->nruns ? m->nruns : 1) * sizeof *t->notes);
        for (size_t k = 0; k < m->nruns; k++) {
            char buf[160];
            t->notes[k] = xstrdup(runcheck_text(m, k, buf, sizeof buf));
        }
        break;
    default:
        t->cols = threads_cols;
        t->ncols = sizeof threads_cols / sizeof *threads_cols;
        t->nrows = m->nthreads;
        break;
    }
}

/* Free the row order and the rows' texts. */
void table_close(struct table *t)
{
    free(t->order);
    t->order = NULL;
    for (size_t i = 0; t->notes && i < t->nrows; i++)
        free(t->notes[i]);
    free(t->notes);
    t->notes = NULL;
}

static struct cell text(const char *s)
{
    return (struct cell){s ? CELL_TEXT : CELL_NONE, s, 0, 0, 0};
}
static struct cell num(double v)
{
    return (struct cell){isfinite(v) ? CELL_NUM : CELL_NONE, 0, v, 0, 0};
}
static struct cell count(uint64_t i) { return (struct cell){CELL_INT, 0, 0, i, 0}; }
/* The Calls of a left-out function: unknown, not 0 (FORMAT.md 1.4). */
static struct cell uncounted(void) { return (struct cell){CELL_NONE, "not counted", 0, 0, 1}; }

/* The cells of row i. */
void table_row(const struct table *t, size_t i, struct cell *c)
{
    const struct model *m = t->m;
    switch (t->id) {
    case TABLE_CALLCOST: {
        struct cost_row x;
        const struct region *r = &m->regions[t->order[i]];
        model_cost_row(m, t->order[i], t->busy, &x);
        struct cell row[] = {text(r->display),
                             text(model_short(r)),
                             x.left_out == 2 ? uncounted() : count(x.calls),
                             num(x.total),
                             num(x.total_share),
                             num(x.self),
                             num(x.self_share),
                             num(x.mean),
                             num(x.median),
                             text(r->file),
                             r->line ? count(r->line) : text(NULL),
                             num(x.stddev),
                             num(x.min),
                             num(x.max),
                             num(x.p90),
                             num(x.p99),
                             count(x.runs),
                             num(x.run_mean),
                             num(x.run_stddev),
                             num(x.run_cv),
                             num(x.ci95),
                             num(x.fastest),
                             num(x.slowest),
                             count(x.never),
                             text(x.approximate == 2   ? "none: short calls only counted"
                                  : x.approximate == 3 ? "none: wall time all the collector's"
                                  : x.approximate      ? "histogram"
                                                       : "exact"),
                             num(x.total_pm),
                             num(x.self_pm),
                             num(x.wall),
                             num(x.wall_pm),
                             num(x.offcpu),
                             text(model_note_text(r, x.left_out))};
        memcpy(c, row, sizeof row);
        break;
    }
    case TABLE_CALLTREE: {
        const struct edge *e = &m->edges[t->order[i]];
        uint64_t all = m->regions[e->callee].cost.n;
        /* A left-out callee's edge: time without counted calls, or (left out in some runs)
           calls counted where it was kept only */
        int left_out = e->left_out ? (e->calls ? 1 : 2) : 0;
        struct cell row[] = {
            text(e->caller == SIZE_MAX ? "(thread top level)" : m->regions[e->caller].display),
            text(m->regions[e->callee].display),
            left_out == 2 ? uncounted() : count(e->calls),
            num(e->outer_ns),
            num(e->self_ns),
            num(e->calls && !left_out ? e->total_ns / (double)e->calls : NAN),
            num(all && left_out != 2 ? (double)e->calls / (double)all : NAN),
            text(model_left_out_text(left_out, e->left_out))};
        row[0].note = e->caller == SIZE_MAX;
        memcpy(c, row, sizeof row);
        break;
    }
    case TABLE_RUNS: {
        const struct run_rec *r = &m->runs[i];
        struct cell row[] = {count(i + 1),
                             text(r->file),
                             text(r->start),
                             text(r->program),
                             text(r->pid),
                             text(r->host),
                             text(r->mode),
                             text(r->clock),
                             count(r->frequency),
                             count(r->threads),
                             num(r->duration_ns),
                             count(r->events),
                             text(r->complete ? "yes" : "no"),
                             text(r->recovered ? "yes" : "no"),
                             text(r->crash),
                             num(r->wait_share),
                             text(t->notes[i][0] ? t->notes[i] : NULL)};
        memcpy(c, row, sizeof row);
        break;
    }
    default: {
        const struct thread_rec *th = &m->threads[i];
        int idle = model_thread_idle(th);
        struct cell row[] = {count(th->run + 1),
                             text(m->runs[th->run].file),
                             count(th->number),
                             text(th->tid),
                             text(th->name),
                             text(th->role),
                             text(th->state),
                             count(th->events),
                             num(th->busy_ns),
                             num(th->wall_ns),
                             num(th->cpu_ns),
                             num(th->wall_ns > 0 ? th->cpu_ns / th->wall_ns : NAN),
                             num(m->runs[th->run].period_ns > 0 ? th->others_ns : NAN),
                             text(idle < 0 ? NULL
                                  : idle   ? "yes"
                                           : "no")};
        memcpy(c, row, sizeof row);
        break;
    }
    }
}

/* The cell's number, or NaN. */
double cell_number(const struct cell *c)
{
    return c->kind == CELL_NUM ? c->v : c->kind == CELL_INT ? (double)c->i : NAN;
}

/* Quantile q of Call cost row i's per-call costs. */
double table_cost_quantile(const struct table *t, size_t i, double q)
{
    const struct region *r = &t->m->regions[t->order[i]];
    return r->counted_only ? NAN : dist_quantile(&r->cost, q);
}

/* Call cost row i's mean cost per call in run k. */
double table_run_mean(const struct table *t, size_t i, size_t run)
{
    return model_run_mean(&t->m->regions[t->order[i]], run);
}

/* "Total (ms)" for a time column, the name alone otherwise. */
const char *column_header(char *buf, size_t size, const struct column *c, struct unit cost,
                          struct unit total)
{
    if (c->kind == COL_TOTAL_NS || c->kind == COL_COST_NS)
        snprintf(buf, size, "%s (%s)", c->name, c->kind == COL_COST_NS ? cost.name : total.name);
    else
        snprintf(buf, size, "%s", c->name);
    return buf;
}

/* ---- a comparison ---- */

const struct column compare_columns[] = {
    {"Region", COL_TEXT},
    {"Verdict", COL_TEXT},
    {"Baseline median", COL_TOTAL_NS},
    {"New median", COL_TOTAL_NS},
    {"Baseline mean", COL_TOTAL_NS},
    {"New mean", COL_TOTAL_NS},
    {"Change", COL_SHARE},
    {"Ratio", COL_RATIO},
    {"Ratio 95% low", COL_RATIO},
    {"Ratio 95% high", COL_RATIO},
    {"U", COL_RATIO},
    {"p-value", COL_RATIO},
    {"Adjusted p", COL_RATIO},
    {"Test", COL_TEXT},
    {"Baseline runs with it", COL_COUNT},
    {"New runs with it", COL_COUNT},
};
_Static_assert(sizeof compare_columns / sizeof *compare_columns == COMPARE_NCOLS,
               "COMPARE_NCOLS counts the comparison's columns");

/* One region of the comparison: what the Comparison sheet's row holds, times in ns. */
void table_compare_row(const struct comparison *c, size_t i, struct cell *cells)
{
    const struct compare_row *r = &c->rows[i];
    const double v[] = {r->base_median, r->new_median, r->base_mean, r->new_mean,
                        r->change,      r->ratio,      r->ratio_low, r->ratio_high,
                        r->test.u,      r->test.p,     r->q};
    cells[0] = text(r->display);
    cells[1] = text(compare_verdict_name(r->verdict));
    for (size_t k = 0; k < sizeof v / sizeof *v; k++)
        cells[2 + k] = num(v[k]);
    cells[13] =
        isfinite(r->test.p) ? text(r->test.exact ? "exact" : "normal approximation") : text(NULL);
    cells[14] = r->base ? count(r->base_runs) : text(NULL);
    cells[15] = r->new ? count(r->new_runs) : text(NULL);
}

const char *const compare_summary_names[] = {
    "Baseline runs",
    "New runs",
    "Regions in both",
    "Slower",
    "Faster",
    "Added",
    "Removed",
    "Geometric-mean ratio (new / baseline)",
    "Geometric-mean ratio 95% low",
    "Geometric-mean ratio 95% high",
    "Overall (geometric mean)",
    "Regions in the geometric mean",
    "Noise threshold",
    "Significance level (adjusted p)",
    "Smallest p-value possible",
    "Bootstrap resamples",
    "Bootstrap seed",
    "Warning",
};
_Static_assert(sizeof compare_summary_names / sizeof *compare_summary_names == COMPARE_NSUMMARY,
               "COMPARE_NSUMMARY counts the comparison's summary");

/* The comparison's summary, in the order of compare_summary_names. */
void table_compare_summary(const struct comparison *c, struct cell *cells)
{
    struct cell *p = cells;
    *p++ = count(c->nbase);
    *p++ = count(c->nnew);
    *p++ = count(c->nboth);
    *p++ = count(c->slower);
    *p++ = count(c->faster);
    *p++ = count(c->added);
    *p++ = count(c->removed);
    *p++ = num(c->geomean);
    *p++ = num(c->geomean_low);
    *p++ = num(c->geomean_high);
    *p++ = text(compare_verdict_name(c->geomean_verdict));
    *p++ = count(c->ngeomean);
    *p++ = num(c->opt.noise);
    *p++ = num(c->opt.alpha);
    *p++ = num(c->min_p);
    *p++ = count(c->opt.resamples);
    *p++ = count(c->opt.seed);
    *p++ = c->warning ? text(c->warning) : text(NULL);
}
