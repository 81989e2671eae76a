/*
 * hist.h - the histogram buckets of summary mode (docs/FORMAT.md 1.4): 8 log-linear buckets per
 * power of two, 496 in all. The collector counts ticks into them; the reporter reads them back
 * as ranges of ticks. Pure functions (hist.c).
 */
#ifndef PROF_HIST_H
#define PROF_HIST_H

#include <stdint.h>

#define PROF_HIST_BUCKETS 496

/* The histogram bucket of a tick value. Inline and without a branch: summary mode counts every
   instance. Below 16 the bucket is the value itself, which v | 8 gives as well (e = 3). */
static inline unsigned prof_hist_bucket(uint64_t v)
{
    unsigned e = 63u - (unsigned)__builtin_clzll(v | 8u);
    return 8u * (e - 2u) + (unsigned)(v >> (e - 3u)) - 8u;
}
/* The smallest value that falls in bucket b (b < PROF_HIST_BUCKETS). */
uint64_t prof_hist_lower(unsigned b);
/* The lower bound of bucket b as a double, for b up to PROF_HIST_BUCKETS: bucket b spans
   [prof_hist_bound(b), prof_hist_bound(b + 1)), and the last bucket ends at 2^64. */
double prof_hist_bound(unsigned b);

#endif /* PROF_HIST_H */
