/*
 * uncounted.c - a sampled run's Calls-0 summary rows: a function's samples whose calls were not
 * counted (FORMAT.md 1.4), counted as its time, or a context that never stopped, left alone.
 */
#include "model/uncounted.h"

#include "model/index.h"
#include "base/util.h"

#include "filter.h"
#include "format.h"

#include <stdlib.h>
#include <string.h>

/* The seventh field of the Function record of a function compiled without hooks (FORMAT.md
   1.2, format.h); any other seventh field, or none, is an instrumented function's. */
#define FUNCTION_FIELD_MARK PROF_FUNCTION_MARK_FIELD
#define FUNCTION_WORD_UNINSTRUMENTED PROF_FUNCTION_UNINSTRUMENTED

/* Order of marked names: by bytes, then length (qsort and bsearch). */
static int by_name(const void *a, const void *b)
{
    const struct uncounted_name *x = a, *y = b;
    int c = memcmp(x->s, y->s, x->n < y->n ? x->n : y->n);
    return c ? c : (x->n > y->n) - (x->n < y->n);
}

/* A Function record: its region marked when it was compiled without hooks. */
int uncounted_function_record(struct uncounted_run *u, const char *const *f, const size_t *lens,
                              size_t n)
{
    size_t w = strlen(FUNCTION_WORD_UNINSTRUMENTED);
    if (n <= FUNCTION_FIELD_MARK || lens[FUNCTION_FIELD_MARK] != w ||
        memcmp(f[FUNCTION_FIELD_MARK], FUNCTION_WORD_UNINSTRUMENTED, w) != 0)
        return 0;
    /* doubling: a program of a thousand functions without hooks marks a thousand */
    u->marked = xgrow_zeroed(u->marked, &u->marked_cap, u->nmarked, sizeof *u->marked);
    u->marked[u->nmarked++] = (struct uncounted_name){xstrndup(f[1], lens[1]), lens[1]};
    return 1;
}

/* Whether the run's Function records mark region r (the records read so far). */
static int marked(struct uncounted_run *u, const struct region *r)
{
    if (!u->nmarked)
        return 0;
    if (u->sorted != u->nmarked) {
        qsort(u->marked, u->nmarked, sizeof *u->marked, by_name);
        u->sorted = u->nmarked;
    }
    struct uncounted_name key = {r->name, r->len};
    return bsearch(&key, u->marked, u->nmarked, sizeof *u->marked, by_name) != NULL;
}

/*
 * Why the calls of region r were not counted in run `run`, where it has Calls-0 rows: the
 * run's Function record marks it compiled without hooks (LEFT_OUT_NO_HOOKS; then the filters
 * never saw its calls, whatever they say), or the run's Include or Exclude records leave it
 * out (LEFT_OUT_FILTERS); the collector charged it only the samples that landed in it. 0: a
 * context whose instances never stopped.
 */
static int row_why(struct uncounted_run *u, const struct run_rec *run, const struct region *r)
{
    if (marked(u, r))
        return LEFT_OUT_NO_HOOKS;
    if (!run->include && !run->exclude)
        return 0;
    return prof_filter_selected(r->name, run->include, run->exclude) ? 0 : LEFT_OUT_FILTERS;
}

/*
 * A function's row whose calls were not counted (why): its samples are its self time (Self =
 * Ticks = Outer), counted in the region's time per run and thread and on the edge from its
 * caller's context, as any function's time; its calls are in no count and its cost per call
 * is unknown.
 */
static void left_out_row(struct model *m, size_t run, const struct uncounted_row *x, int why)
{
    struct region *r = &m->regions[x->region];
    double period = m->runs[run].period_ns > 0 ? x->sample_ns : 0;
    r->left_out |= why;
    r->left_out_ns += x->self;
    r->self_ns += x->self;
    r->outer_ns += x->outer;
    if (period > 0) {
        r->sampled = 1;
        r->var_outer += x->outer * period * x->spread;
        r->var_self += x->self * period * x->spread;
    }
    struct columns c = index_region_grow(r, run, x->key);
    c.run_sum[run] += x->ticks;
    c.run_outer[run] += x->outer;
    c.key_sum[x->key] += x->outer;
    c.key_self[x->key] += x->self;
    if (!x->node || (x->caller != SIZE_MAX && m->regions[x->caller].excluded))
        return;
    struct edge *e = index_edge_get(m, x->caller, x->region);
    e->left_out |= why;
    e->total_ns += x->ticks;
    e->outer_ns += x->ticks;
    e->self_ns += x->self;
}

/* Count row x as a function's time whose calls were not counted (why), on its call-path node
   too. */
static void count_row(struct model *m, size_t run, const struct uncounted_row *x, int why)
{
    if (x->cct != CCT_NONE)
        m->paths->tree.nodes[x->cct].uncounted |= (uint32_t)why;
    if (!m->regions[x->region].excluded)
        left_out_row(m, run, x, why);
}

/* A Calls-0 row: a function's time whose calls were not counted, or kept for the run's end. */
void uncounted_row_add(struct uncounted_run *u, struct model *m, size_t run,
                       const struct uncounted_row *x)
{
    int why = row_why(u, &m->runs[run], &m->regions[x->region]);
    if (why) {
        count_row(m, run, x, why);
        return;
    }
    /* The collector writes its Function records (and filters) before the table, but a record
       after the row would still mark it: it is decided again at the run's end. */
    if (u->nrows == u->rows_cap) {
        u->rows_cap = u->rows_cap ? 2 * u->rows_cap : 16;
        u->rows = xrealloc(u->rows, u->rows_cap * sizeof *u->rows);
    }
    u->rows[u->nrows++] = *x;
}

/* The run is read: the rows kept that a later record marked are counted. */
void uncounted_run_end(struct uncounted_run *u, struct model *m, size_t run, int kept)
{
    for (size_t i = 0; kept && i < u->nrows; i++) {
        int why = row_why(u, &m->runs[run], &m->regions[u->rows[i].region]);
        if (why)
            count_row(m, run, &u->rows[i], why);
    }
    for (size_t i = 0; i < u->nmarked; i++)
        free(u->marked[i].s);
    free(u->marked);
    free(u->rows);
    memset(u, 0, sizeof *u);
}
