/*
 * regionstats.h - summary mode's per-region statistics on one thread (regionstats.c), counted
 * into format/hist.h's buckets and written as format/summary.h's binary records.
 *
 * A prof_stats is owned by its thread's recorder.
 */
#ifndef PROF_REGIONSTATS_H
#define PROF_REGIONSTATS_H

#include "hist.h"
#include "strbuf.h"

#include <stdint.h>

/*
 * One region's statistics on one thread (summary mode). Written by the owning thread, read by
 * prof_finish from another thread, hence the relaxed atomics in prof_stats_add.
 */
struct prof_stats {
    uint64_t calls, ticks, self, min, max, outer;
    double sumsq;
    uint32_t active; /* instances open right now: recursion depth of this region */
    uint64_t hist[PROF_HIST_BUCKETS];
};

void prof_stats_reset(struct prof_stats *s);
/* Count one completed instance; outermost is nonzero when no enclosing instance has this id. */
void prof_stats_add(struct prof_stats *s, uint64_t ticks, uint64_t self, int outermost);
/* prof_stats_add in two halves: everything but the histogram, and the histogram alone. */
static inline void prof_stats_count(struct prof_stats *s, uint64_t ticks, uint64_t self,
                                    int outermost)
{
    /* Inline: it runs on every summary-mode stop. Only the owner writes (see prof_stats), so
       relaxed stores suffice. */
    __atomic_store_n(&s->calls, s->calls + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->ticks, s->ticks + ticks, __ATOMIC_RELAXED);
    __atomic_store_n(&s->self, s->self + self, __ATOMIC_RELAXED);
    if (ticks < s->min)
        __atomic_store_n(&s->min, ticks, __ATOMIC_RELAXED);
    if (ticks > s->max)
        __atomic_store_n(&s->max, ticks, __ATOMIC_RELAXED);
    if (outermost)
        __atomic_store_n(&s->outer, s->outer + ticks, __ATOMIC_RELAXED);
    double sq = s->sumsq + (double)ticks * (double)ticks;
    __atomic_store(&s->sumsq, &sq, __ATOMIC_RELAXED);
}
void prof_stats_hist(struct prof_stats *s, uint64_t ticks);
/* Append the summary record of s for the region with id index id (format/summary.h). */
void prof_stats_encode(struct prof_sbuf *b, uint32_t id, const struct prof_stats *s);

#endif /* PROF_REGIONSTATS_H */
