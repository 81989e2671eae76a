/*
 * stats.h - stats.c: pure statistics (per-call cost distributions, spread over runs).
 *
 * Ownership: a struct dist owns its exact values and histogram; dist_release frees them.
 */
#ifndef PROFREPORT_STATS_H
#define PROFREPORT_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Distribution of per-call costs in nanoseconds: exact values while there are at most
 * STATS_EXACT of them, then a log-linear histogram over 1/16 ns units with STATS_SUB buckets
 * per power of two (bucket width 1/32 of its lower bound; a quantile read from it is the middle
 * of its bucket, within 1/64 = 1.6 % of the true value, or 1/32 ns below 4 ns). Memory is
 * bounded whatever the number of calls.
 */
#define STATS_EXACT 4096
#define STATS_SUB 32
#define STATS_BUCKETS (STATS_SUB * 61)

struct dist {
    uint64_t n;
    double sum, min, max;
    double shift, sd1, sd2; /* sums of (x - shift) and of its square: a stable variance */
    double *exact;          /* the values while exact mode lasts, else NULL */
    size_t nexact, exact_cap;
    int sorted;     /* exact[] is in order (dist_finish), until the next dist_add */
    uint64_t *hist; /* STATS_BUCKETS counts once exact values overflowed or bins were added */
};

void dist_init(struct dist *d);
void dist_release(struct dist *d);
/* One call's cost. */
void dist_add(struct dist *d, double ns);
/*
 * Calls known only by their count, sum, sum of squares and extremes (a summary-mode row); their
 * histogram follows through dist_add_bin, which adds to quantiles only.
 */
void dist_add_moments(struct dist *d, uint64_t n, double sum, double sumsq, double min, double max);
/* count values in [lo, hi) for the quantiles, from a summary-mode histogram bucket. */
void dist_add_bin(struct dist *d, double lo, double hi, uint64_t count);
/* Merge src into d (same units). */
void dist_merge(struct dist *d, const struct dist *src);
/* Nonzero when quantiles come from the histogram rather than exact values. */
int dist_approximate(const struct dist *d);
double dist_mean(const struct dist *d);
/* Sample standard deviation (n - 1); NaN when n < 2. */
double dist_stddev(const struct dist *d);
/* Put the exact values in order, once all are added, so that dist_quantile reads them as they
   are (the model's model_finish does it for every region). */
void dist_finish(struct dist *d);
/* Quantile q in [0,1], interpolating between order statistics as Excel's PERCENTILE.INC does;
   NaN when empty. d is not changed: exact values not put in order by dist_finish are read from
   a sorted copy. */
double dist_quantile(const struct dist *d, double q);

/* Mean, sample standard deviation and 95% confidence half-width (Student's t) of n values. */
struct spread {
    size_t n;
    double mean, stddev, cv, ci95, min, max;
};
struct spread spread_of(const double *v, size_t n);
/* Two-sided 97.5% quantile of Student's t with df degrees of freedom. */
double student_t975(size_t df);

#endif /* PROFREPORT_STATS_H */
