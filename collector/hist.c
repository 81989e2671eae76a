/*
 * hist.c - summary mode's per-region statistics and their log-linear histogram
 * (8 buckets per power of two; docs/FORMAT.md, section 1.4).
 */
#include "internal.h"

#include <string.h>

/*
 * Only the owning thread writes a prof_stats; prof_finish may read it from another thread while
 * the owner still runs. Relaxed loads and stores make that well defined and cost nothing on
 * x86-64 and ARM64 (plain moves): the owner's read-modify-write needs no atomic RMW.
 */
#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* The histogram bucket of a tick value. */
unsigned prof_hist_bucket(uint64_t v)
{
    if (v < 8)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v);
    return 8u * (e - 2u) + (unsigned)(v >> (e - 3u)) - 8u;
}

/* The smallest value that falls in bucket b. */
uint64_t prof_hist_lower(unsigned b)
{
    if (b < 8)
        return b;
    unsigned e = b / 8u + 2u, s = b % 8u;
    return (uint64_t)(8u + s) << (e - 3u);
}

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

/* Append the summary-table row of s (Region..Histogram, no newline). */
void prof_stats_format(struct prof_sbuf *b, const char *id, unsigned thread,
                       const struct prof_stats *s)
{
    uint64_t calls = LOAD(s->calls), min = LOAD(s->min);
    double sq;
    __atomic_load(&s->sumsq, &sq, __ATOMIC_RELAXED);

    prof_sbuf_field(b, id, strlen(id));
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, thread);
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, calls);
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, LOAD(s->ticks));
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, LOAD(s->self));
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, calls ? min : 0);
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, LOAD(s->max));
    prof_sbuf_char(b, ',');
    prof_sbuf_double(b, sq);
    prof_sbuf_char(b, ',');
    prof_sbuf_u64(b, LOAD(s->outer));
    prof_sbuf_char(b, ',');
    int first = 1;
    for (unsigned i = 0; i < PROF_HIST_BUCKETS; i++) {
        uint64_t n = LOAD(s->hist[i]);
        if (!n)
            continue;
        if (!first)
            prof_sbuf_char(b, ';');
        first = 0;
        prof_sbuf_u64(b, i);
        prof_sbuf_char(b, ':');
        prof_sbuf_u64(b, n);
    }
}
