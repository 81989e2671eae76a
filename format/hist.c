/*
 * hist.c - the arithmetic of summary mode's log-linear histogram buckets (docs/FORMAT.md 1.4).
 */
#include "hist.h"

#include <math.h>

/* The smallest value that falls in bucket b. */
uint64_t prof_hist_lower(unsigned b)
{
    if (b < 8)
        return b;
    unsigned e = b / 8u + 2u, s = b % 8u;
    return (uint64_t)(8u + s) << (e - 3u);
}

/* A bucket's lower bound as a double; past the last bucket, 2^64 (which no uint64_t holds). */
double prof_hist_bound(unsigned b)
{
    /* Every bound has at most 4 significant bits, so the double is exact. */
    return b < PROF_HIST_BUCKETS ? (double)prof_hist_lower(b) : ldexp(1.0, 64);
}
