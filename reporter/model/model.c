/*
 * model.c - the report's model: its life (init, finish, release, a skipped run's rollback),
 * the program pick, warnings, the calling-context tree's keeping, and the regions ranked with
 * their Call cost figures. Reading a run into it is ingest.c's; finding a region, index.c's.
 * Memory grows with regions, runs and threads, never with events.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/cct.h"
#include "model/edges.h"
#include "model/model.h"
#include "model/runcheck.h"
#include "model/shortname.h"
#include "model/wallbound.h"
#include "base/util.h"

#include <math.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* Empty model. */
void model_init(struct model *m) { memset(m, 0, sizeof *m); }

/* Free the strings of a memory row. */
static void mem_rec_release(struct mem_rec *r)
{
    free(r->kind);
    free(r->region);
    free(r->site);
    free(r->alloc_kind);
    free(r->free_kind);
    free(r->other_site);
    free(r->function);
    free(r->stack);
}

/* The model complete: each region's exact costs in order, recursive edges' time counted
   once, the short names, the runs' checks, the row sink detached. */
void model_finish(struct model *m)
{
    for (size_t i = 0; i < m->nregions; i++)
        dist_finish(&m->regions[i].cost);
    edges_count_once(m);
    model_short_names(m);
    runcheck_apply(m);
    m->sink = NULL;
}

/* Give every region its short name (shortname.h). */
void model_short_names(struct model *m)
{
    const char **names = xmalloc((m->nregions ? m->nregions : 1) * sizeof *names);
    for (size_t i = 0; i < m->nregions; i++)
        names[i] = m->regions[i].display;
    char **s = shortnames(names, m->nregions);
    for (size_t i = 0; i < m->nregions; i++) {
        free(m->regions[i].short_name);
        m->regions[i].short_name = s[i];
    }
    free(s);
    free(names);
}

/* The region's short name, or its display name before model_short_names. */
const char *model_short(const struct region *r)
{
    return r->short_name ? r->short_name : r->display;
}

/* Free the strings of a run. */
static void run_rec_release(struct run_rec *r)
{
    free(r->file);
    free(r->program);
    free(r->command);
    free(r->host);
    free(r->start);
    free(r->clock);
    free(r->pid);
    free(r->mode);
    free(r->include);
    free(r->exclude);
    free(r->sampling);
    free(r->crash);
}

/* Free the strings of a thread. */
static void thread_rec_release(struct thread_rec *t)
{
    free(t->tid);
    free(t->name);
    free(t->role);
    free(t->state);
}

/* Free the strings of a warning. */
static void warning_rec_release(struct warning_rec *w)
{
    free(w->where);
    free(w->kind);
    free(w->message);
}

/* Free what a region owns. */
static void region_release(struct region *r)
{
    if (r->display != r->name)
        free(r->display);
    free(r->name);
    free(r->short_name);
    free(r->file);
    dist_release(&r->cost);
    free(r->cols);
}

/* Free everything the model owns. */
void model_release(struct model *m)
{
    model_unlocated_clear(m); /* before the regions it marks go */
    for (size_t i = 0; i < m->nregions; i++)
        region_release(&m->regions[i]);
    free(m->regions);
    free(m->region_table);
    if (m->paths) {
        if (m->paths->streaming)
            cct_stream_end(&m->paths->stream);
        cct_release(&m->paths->tree);
        free(m->paths->name_of);
        free(m->paths);
    }
    struct model_mark none = {0};
    model_rollback(m, &none);
    free(m->runs);
    free(m->threads);
    free(m->keys);
    str_index_release(&m->key_index);
    free(m->edges);
    free(m->edge_table);
    free(m->warnings);
    free(m->mem);
    for (size_t i = 0; i < m->nprograms; i++)
        free(m->programs[i].name);
    free(m->programs);
    free(m->pick_name);
    model_init(m);
}

void model_unlocated_add(struct model *m, size_t r, const char *module, const char *build_id,
                         uint64_t offset)
{
    if (m->regions[r].file)
        return;
    if (m->regions[r].unlocated) {
        struct unlocated *u = &m->unlocated[m->regions[r].unlocated - 1];
        free(u->module);
        free(u->build_id);
        u->module = xstrdup(module);
        u->build_id = build_id ? xstrdup(build_id) : NULL;
        u->offset = offset;
        return;
    }
    if (m->nunlocated == m->unlocated_cap) {
        m->unlocated_cap = m->unlocated_cap ? m->unlocated_cap * 2 : 64;
        m->unlocated = xrealloc(m->unlocated, m->unlocated_cap * sizeof *m->unlocated);
    }
    m->unlocated[m->nunlocated++] =
        (struct unlocated){r, xstrdup(module), build_id ? xstrdup(build_id) : NULL, offset};
    m->regions[r].unlocated = (uint32_t)m->nunlocated;
}

void model_unlocated_clear(struct model *m)
{
    for (size_t i = 0; i < m->nunlocated; i++) {
        m->regions[m->unlocated[i].region].unlocated = 0;
        free(m->unlocated[i].module);
        free(m->unlocated[i].build_id);
    }
    free(m->unlocated);
    m->unlocated = NULL;
    m->nunlocated = m->unlocated_cap = 0;
}

/* The counts of the records a run adds. */
struct model_mark model_mark(const struct model *m)
{
    return (struct model_mark){m->nruns, m->nthreads, m->nwarnings, m->nkeys, m->nmem};
}

/* Free the records added since mark, the latest first. */
void model_rollback(struct model *m, const struct model_mark *mark)
{
    while (m->nthreads > mark->threads)
        thread_rec_release(&m->threads[--m->nthreads]);
    while (m->nmem > mark->mem)
        mem_rec_release(&m->mem[--m->nmem]);
    while (m->nkeys > mark->keys) {
        str_index_drop_last(&m->key_index, m->keys);
        free(m->keys[--m->nkeys]);
    }
    while (m->nruns > mark->runs)
        run_rec_release(&m->runs[--m->nruns]);
    while (m->nwarnings > mark->warnings)
        warning_rec_release(&m->warnings[--m->nwarnings]);
}

/* Keep only the runs of the program picked. */
void model_pick(struct model *m, enum program_pick pick, const char *name)
{
    free(m->pick_name);
    m->pick = pick;
    m->pick_name = name ? xstrdup(name) : NULL;
}

/* Whether program names name. */
int model_program_is(const char *program, const char *name)
{
    if (!program || !name)
        return 0;
    const char *slash = strrchr(program, '/');
    return strcmp(program, name) == 0 || (slash && strcmp(slash + 1, name) == 0);
}

/* The count of the runs of program (NULL: without a Program record), made on first sight. */
struct program_count *model_program_count(struct model *m, const char *program)
{
    for (size_t i = 0; i < m->nprograms; i++) {
        const char *n = m->programs[i].name;
        if (n == program || (n && program && strcmp(n, program) == 0))
            return &m->programs[i];
    }
    m->programs = xgrow_doubling(m->programs, m->nprograms, sizeof *m->programs);
    struct program_count *c = &m->programs[m->nprograms++];
    c->name = program ? xstrdup(program) : NULL;
    c->runs = c->kept = 0;
    c->ns = 0;
    return c;
}

/* Whether the model keeps a run of program, by its pick. A run without a Program record (the
   seed form) names no other program, so it goes with the one picked. */
int model_program_wanted(struct model *m, const char *program)
{
    if (m->pick == PICK_NONE)
        return 0;
    if (!program)
        return 1;
    switch (m->pick) {
    case PICK_ALL:
        return 1;
    case PICK_FIRST:
        model_pick(m, PICK_EXACT, program);
        return 1;
    case PICK_EXACT:
        return m->pick_name && strcmp(program, m->pick_name) == 0;
    default:
        return model_program_is(program, m->pick_name);
    }
}

/* Add a warning. */
void model_warn(struct model *m, const char *where, const char *kind, uint64_t count,
                const char *fmt, ...)
{
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    m->warnings = xgrow_zeroed(m->warnings, &m->warnings_cap, m->nwarnings, sizeof *m->warnings);
    struct warning_rec *w = &m->warnings[m->nwarnings++];
    w->where = utf8_repair(where, strlen(where));
    w->kind = utf8_repair(kind, strlen(kind));
    w->count = count;
    w->message = utf8_repair(msg, strlen(msg));
}

/* ---- the calling-context tree (model_keep_paths) ---- */

/* Keep the calling-context tree from now on. */
void model_keep_paths(struct model *m)
{
    if (m->paths)
        return;
    m->paths = xcalloc(1, sizeof *m->paths);
    cct_init(&m->paths->tree);
}

/* The tree, complete for every run read (each run's stream is closed when it ends). */
const struct cct *model_paths(const struct model *m) { return m->paths ? &m->paths->tree : NULL; }

const char *const model_sort_names[SORT_COUNT] = {"total", "self", "calls", "mean"};
const char *const model_sort_labels[SORT_COUNT] = {"total time", "self time", "calls",
                                                   "mean cost per call"};

/* The order named s, or -1. */
int model_sort_parse(const char *s)
{
    for (int i = 0; i < SORT_COUNT; i++)
        if (strcmp(s, model_sort_names[i]) == 0)
            return i;
    return -1;
}

/* Region r's value for the order: the larger, the higher it ranks; NaN (a mean without a
   finished call) ranks last. */
static double sort_key(const struct region *r, enum model_sort sort)
{
    switch (sort) {
    case SORT_SELF:
        return r->self_ns;
    case SORT_CALLS:
        return region_uncounted(r) ? NAN : (double)r->cost.n;
    case SORT_MEAN:
        return dist_mean(&r->cost);
    default:
        return r->outer_ns;
    }
}

/* What by_key compares: the model and the order. */
struct rank_ctx {
    const struct model *m;
    enum model_sort sort;
};

/* Order for model_ranked: the larger key first, then name. */
static int by_key(const void *a, const void *b, void *ctx)
{
    const struct rank_ctx *rc = ctx;
    const struct region *x = &rc->m->regions[*(const size_t *)a];
    const struct region *y = &rc->m->regions[*(const size_t *)b];
    double kx = sort_key(x, rc->sort), ky = sort_key(y, rc->sort);
    int nx = !(kx == kx), ny = !(ky == ky);
    if (nx != ny)
        return nx - ny;
    if (!nx && kx != ky)
        return kx < ky ? 1 : -1;
    return strcmp(x->display, y->display);
}

/* Reported regions in the order sort. */
size_t *model_ranked_by(const struct model *m, enum model_sort sort, size_t *n)
{
    size_t *idx = xmalloc((m->nregions ? m->nregions : 1) * sizeof *idx);
    size_t k = 0;
    for (size_t i = 0; i < m->nregions; i++)
        if (!m->regions[i].excluded &&
            (m->regions[i].cost.n || m->regions[i].unterminated || m->regions[i].left_out))
            idx[k++] = i;
    struct rank_ctx rc = {m, sort};
    qsort_r(idx, k, sizeof *idx, by_key, &rc);
    *n = k;
    return idx;
}

/* Reported regions in m->sort's order. */
size_t *model_ranked(const struct model *m, size_t *n) { return model_ranked_by(m, m->sort, n); }

/* Mean ns per call of region r in run k; NaN when it did not run there. */
double model_run_mean(const struct region *r, size_t k)
{
    struct region_col c = region_run(r, k);
    if (c.calls == 0)
        return NAN;
    return c.sum / (double)c.calls;
}

/* Whether thread t was mostly idle (model.h). */
int model_thread_idle(const struct thread_rec *t)
{
    if (!isfinite(t->cpu_ns) || !isfinite(t->wall_ns) || t->wall_ns < MODEL_IDLE_MIN_NS)
        return -1;
    return t->cpu_ns < MODEL_IDLE_SHARE * t->wall_ns;
}

/* Time in top-level regions over every thread of every run. */
double model_busy(const struct model *m)
{
    double t = 0;
    for (size_t i = 0; i < m->nthreads; i++)
        t += m->threads[i].busy_ns;
    return t;
}

/* What a left-out function's Calls say instead of a number: left out by the filters, or not
   instrumented (compiled without hooks), never claiming the filters did what the build did. */
const char *model_left_out_text(int left_out, int why)
{
    int no_hooks = left_out_no_hooks(why);
    if (left_out == 2)
        return no_hooks ? "not instrumented: calls not counted, time sampled"
                        : "left out: calls not counted, time sampled";
    if (left_out == 1)
        return no_hooks ? "not instrumented in some runs: calls counted only where instrumented"
                        : "left out in some runs: calls counted only where kept";
    return NULL;
}

const char *model_note_text(const struct region *r, int left_out)
{
    if (left_out)
        return model_left_out_text(left_out, r->left_out);
    return r->inlined ? MODEL_INLINED_TEXT : NULL;
}

/* One region's Call cost figures. */
void model_cost_row(const struct model *m, size_t ri, double busy, struct cost_row *out)
{
    struct region *r = &m->regions[ri];
    double *v = xmalloc((m->nruns ? m->nruns : 1) * sizeof *v);
    size_t n = 0;
    for (size_t k = 0; k < m->nruns; k++) {
        double x = model_run_mean(r, k);
        if (isfinite(x))
            v[n++] = x;
    }
    struct spread s = spread_of(v, n);
    free(v);
    struct dist *d = &r->cost;
    out->calls = d->n;
    out->never = r->unterminated;
    out->total = r->outer_ns;
    out->total_share = busy > 0 ? r->outer_ns / busy : NAN;
    out->self = r->self_ns;
    out->self_share = m->self_total_ns > 0 ? r->self_ns / m->self_total_ns : NAN;
    out->mean = dist_mean(d);
    out->median = dist_quantile(d, 0.5);
    out->stddev = dist_stddev(d);
    out->min = d->n ? d->min : NAN;
    out->max = d->n ? d->max : NAN;
    out->p90 = dist_quantile(d, 0.9);
    out->p99 = dist_quantile(d, 0.99);
    out->runs = s.n;
    out->run_mean = s.mean;
    out->run_stddev = s.stddev;
    out->run_cv = s.cv;
    out->ci95 = s.ci95;
    out->fastest = s.min;
    out->slowest = s.max;
    out->approximate = dist_approximate(d);
    if (r->counted_only) {
        /* Calls only counted: each one's time is unknown, their context's mean stands for
           it (a point at 0 for a context no sample found): no distribution to read. */
        out->median = out->p90 = out->p99 = out->min = out->max = out->stddev = NAN;
        out->approximate = 2;
    } else if (r->sampled && d->n && !(r->wall_ns > 0)) {
        /* Timed calls whose wall time was all the collector's (the hooks of the calls inside
           them and the samples taken there, taken out: FORMAT.md's Wall), as the calls of a
           sanitized build's hooks can be: no time of their own to spread or average. */
        out->mean = out->median = out->p90 = out->p99 = out->min = out->max = out->stddev = NAN;
        out->approximate = 3;
    }
    out->left_out = r->left_out ? (d->n ? 1 : 2) : 0;
    int sampled = r->sampled;
    out->total_pm = sampled ? 1.96 * sqrt(r->var_outer) : NAN;
    out->self_pm = sampled ? 1.96 * sqrt(r->var_self) : NAN;
    out->wall = r->wall_ns > 0 ? r->wall_ns : NAN;
    out->wall_pm = r->wall_ns > 0 ? wallbound_pm(r) : NAN;
    out->offcpu = r->wall_ns > 0 ? fmax(0, r->wall_ns - r->wall_cpu_ns) : NAN;
    /* Wall less the sampled CPU time says nothing while it lies within the 95 % bound of
       that time (a call much shorter than the period has one sample or none: pigz's
       multmodp, pure arithmetic, read all of its 1.15 us Wall as Off-CPU) and of the Wall. */
    double period = 0;
    for (size_t k = 0; k < m->nruns; k++)
        period = fmax(period, m->runs[k].period_ns);
    double cpu_pm = 1.96 * sqrt(r->wall_cpu_ns / period + 1) * period;
    double pm = isfinite(out->wall_pm) ? hypot(cpu_pm, out->wall_pm) : cpu_pm;
    if (period > 0 && out->offcpu < pm)
        out->offcpu = NAN;
}

/* The runs that crashed. */
size_t model_crashed_runs(const struct model *m)
{
    size_t n = 0;
    for (size_t k = 0; k < m->nruns; k++)
        n += m->runs[k].crash != NULL;
    return n;
}

/* Run k's crash in words. */
void model_run_crash_text(const struct model *m, size_t k, char *buf, size_t size)
{
    const struct run_rec *r = &m->runs[k];
    int n = snprintf(buf, size, "run %zu: %s", k + 1, r->crash ? r->crash : "no crash");
    if (n < 0 || (size_t)n >= size || !r->crash_thread)
        return;
    const char *name = "";
    for (size_t i = 0; i < m->nthreads; i++)
        if (m->threads[i].run == k && m->threads[i].number == r->crash_thread)
            name = m->threads[i].name ? m->threads[i].name : "";
    snprintf(buf + n, size - (size_t)n, name[0] ? " in thread %u (%s)" : " in thread %u%s",
             r->crash_thread, name);
}
