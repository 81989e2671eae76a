/*
 * uncounted.c - a sampled run's Calls-0 summary rows: a function's samples whose calls were not
 * counted (FORMAT.md 1.4), counted as its time, or a context that never stopped, left alone.
 */
#include "model/uncounted.h"

#include "model/index.h"

#include "filter.h"

/*
 * Whether a summary row of region r with Calls 0 is a left-out function's: the run's Include
 * or Exclude records are there and leave its region out, so the collector did not count its
 * calls and charged it only the samples that landed in it. A Calls-0 row the filters keep is
 * a context whose instances never stopped.
 */
static int row_left_out(const struct run_rec *run, const struct region *r)
{
    if (!run->include && !run->exclude)
        return 0;
    return !prof_filter_selected(r->name, run->include, run->exclude);
}

/*
 * A left-out function's row: its samples are its self time (Self = Ticks = Outer), counted
 * in the region's time per run and thread and on the edge from its caller's context, as any
 * function's time; its calls are in no count and its cost per call is unknown.
 */
static void left_out_row(struct model *m, size_t run, const struct uncounted_row *x)
{
    struct region *r = &m->regions[x->region];
    double period = m->runs[run].period_ns;
    r->left_out = 1;
    r->left_out_ns += x->self;
    r->self_ns += x->self;
    r->outer_ns += x->outer;
    if (period > 0) {
        r->sampled = 1;
        r->var_outer += x->outer * period;
        r->var_self += x->self * period;
    }
    struct columns c = index_region_grow(r, run, x->key);
    c.run_sum[run] += x->ticks;
    c.run_outer[run] += x->outer;
    c.key_sum[x->key] += x->outer;
    c.key_self[x->key] += x->self;
    if (!x->node || (x->caller != SIZE_MAX && m->regions[x->caller].excluded))
        return;
    struct edge *e = index_edge_get(m, x->caller, x->region);
    e->left_out = 1;
    e->total_ns += x->ticks;
    e->outer_ns += x->ticks;
    e->self_ns += x->self;
}

/* A Calls-0 row: a left-out function's time, or nothing (uncounted.h). */
void uncounted_row_add(struct model *m, size_t run, const struct uncounted_row *x)
{
    if (!row_left_out(&m->runs[run], &m->regions[x->region]))
        return;
    if (x->cct != CCT_NONE)
        m->paths->tree.nodes[x->cct].uncounted = 1;
    if (!m->regions[x->region].excluded)
        left_out_row(m, run, x);
}
