/*
 * regionstats.c - summary mode's per-region statistics and their log-linear histogram
 * (format/hist.h's buckets; docs/FORMAT.md, section 1.4).
 */
#include "regionstats.h"

#include "summary.h"

#include <string.h>

/*
 * Only the owning thread writes a prof_stats; prof_finish may read it from another thread while
 * the owner still runs. Relaxed loads and stores make that well defined and cost nothing on
 * x86-64 and ARM64 (plain moves): the owner's read-modify-write needs no atomic RMW.
 */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Empty the statistics. */
void prof_stats_reset(struct prof_stats *s)
{
    memset(s, 0, sizeof *s);
    s->min = UINT64_MAX;
}

/* Count one instance's ticks in the histogram. */
void prof_stats_hist(struct prof_stats *s, uint64_t ticks)
{
    unsigned b = prof_hist_bucket(ticks);
    STORE(s->hist[b], s->hist[b] + 1);
}

/* Count one completed instance. */
void prof_stats_add(struct prof_stats *s, uint64_t ticks, uint64_t self, int outermost)
{
    prof_stats_count(s, ticks, self, outermost);
    prof_stats_hist(s, ticks);
}

/* Append the summary record of s: a copy read with relaxed loads (the owner may still write). */
void prof_stats_encode(struct prof_sbuf *b, uint32_t id, const struct prof_stats *s)
{
    struct prof_summary_counts c = {id,           LOAD(s->calls), LOAD(s->ticks), LOAD(s->self),
                                    LOAD(s->min), LOAD(s->max),   LOAD(s->outer), 0};
    __atomic_load(&s->sumsq, &c.sumsq, __ATOMIC_RELAXED);
    if (!c.calls)
        c.min = 0; /* the row of a region never counted says 0, not UINT64_MAX */
    uint64_t hist[PROF_HIST_BUCKETS];
    for (unsigned i = 0; i < PROF_HIST_BUCKETS; i++)
        hist[i] = LOAD(s->hist[i]);
    prof_summary_encode(b, &c, hist);
}
