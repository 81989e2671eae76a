/*
 * stats.c - pure statistics for the report: per-call cost distributions with bounded memory,
 * and the spread of per-run values (mean, standard deviation, 95% confidence interval).
 */
#include "model/stats.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Histogram positions are 1/16 ns units, so sub-nanosecond costs keep some resolution. */
#define UNITS_PER_NS 16.0

/* Empty distribution. */
void dist_init(struct dist *d)
{
    memset(d, 0, sizeof *d);
    d->min = INFINITY;
    d->max = -INFINITY;
}

/* Free the distribution's memory. */
void dist_release(struct dist *d)
{
    free(d->exact);
    free(d->hist);
    dist_init(d);
}

/* The bucket of a value in histogram units: exact below 2*STATS_SUB, then STATS_SUB per octave. */
static unsigned bucket_of(double ns)
{
    double u = ns * UNITS_PER_NS;
    if (!(u >= 0)) /* negative or NaN */
        return 0;
    if (u >= 9.2e18)
        return STATS_BUCKETS - 1;
    uint64_t v = (uint64_t)u;
    if (v < 2 * STATS_SUB)
        return (unsigned)v;
    unsigned e = 63u - (unsigned)__builtin_clzll(v); /* 2^e <= v, e >= 6 */
    unsigned b = STATS_SUB * (e - 4) + (unsigned)(v >> (e - 5)) - STATS_SUB;
    return b < STATS_BUCKETS ? b : STATS_BUCKETS - 1;
}

/* Lower bound (in ns) of bucket b. */
static double bucket_low(unsigned b)
{
    if (b < 2 * STATS_SUB)
        return b / UNITS_PER_NS;
    unsigned e = b / STATS_SUB + 4, s = b % STATS_SUB;
    return ldexp((double)(STATS_SUB + s), (int)e - 5) / UNITS_PER_NS;
}

/* Move the exact values into the histogram: from now on quantiles are approximate. */
static void to_histogram(struct dist *d)
{
    if (!d->hist)
        d->hist = xcalloc(STATS_BUCKETS, sizeof *d->hist);
    for (size_t i = 0; d->exact && i < d->nexact; i++)
        d->hist[bucket_of(d->exact[i])]++;
    d->nexact = 0;
    free(d->exact);
    d->exact = NULL;
    d->exact_cap = 0;
}

/* Count a value in the moments and extremes. */
static void add_moments1(struct dist *d, double ns)
{
    if (d->n == 0)
        d->shift = ns;
    d->n++;
    d->sum += ns;
    double x = ns - d->shift;
    d->sd1 += x;
    d->sd2 += x * x;
    if (ns < d->min)
        d->min = ns;
    if (ns > d->max)
        d->max = ns;
}

/* One call's cost. */
void dist_add(struct dist *d, double ns)
{
    int exact_mode = !d->hist;
    uint64_t before = d->n;
    add_moments1(d, ns);
    if (exact_mode && before < STATS_EXACT) {
        if (before == d->exact_cap) {
            d->exact_cap = d->exact_cap ? d->exact_cap * 2 : 16;
            d->exact = xrealloc(d->exact, d->exact_cap * sizeof *d->exact);
        }
        d->exact[before] = ns;
        d->nexact = before + 1;
        d->sorted = 0;
        return;
    }
    if (exact_mode)
        to_histogram(d); /* moves the first STATS_EXACT values */
    d->hist[bucket_of(ns)]++;
}

/* Calls known only by their moments (summary mode). */
void dist_add_moments(struct dist *d, uint64_t n, double sum, double sumsq, double min, double max)
{
    if (n == 0)
        return;
    if (!d->hist)
        to_histogram(d);
    if (d->n == 0)
        d->shift = sum / (double)n;
    /* Sums of (x - shift) and (x - shift)^2 from the sums of x and x^2. */
    double s = d->shift;
    d->sd1 += sum - (double)n * s;
    d->sd2 += sumsq - 2 * s * sum + (double)n * s * s;
    d->n += n;
    d->sum += sum;
    if (min < d->min)
        d->min = min;
    if (max > d->max)
        d->max = max;
}

/* count values in [lo, hi): credited to the bucket of the interval's middle. */
void dist_add_bin(struct dist *d, double lo, double hi, uint64_t count)
{
    if (!d->hist)
        to_histogram(d);
    d->hist[bucket_of((lo + hi) / 2)] += count;
}

/* Merge src into d. */
void dist_merge(struct dist *d, const struct dist *src)
{
    if (src->n == 0)
        return;
    if (!src->hist && !d->hist && d->n + src->n <= STATS_EXACT) {
        for (uint64_t i = 0; i < src->n; i++)
            dist_add(d, src->exact[i]);
        return;
    }
    double sumsq = src->sd2 + 2 * src->shift * src->sd1 + (double)src->n * src->shift * src->shift;
    if (!d->hist)
        to_histogram(d);
    if (src->hist)
        for (unsigned b = 0; b < STATS_BUCKETS; b++)
            d->hist[b] += src->hist[b];
    else
        for (uint64_t i = 0; i < src->n; i++)
            d->hist[bucket_of(src->exact[i])]++;
    dist_add_moments(d, src->n, src->sum, sumsq, src->min, src->max);
}

/* Whether quantiles come from the histogram. */
int dist_approximate(const struct dist *d) { return d->hist != NULL; }

/* Mean cost; NaN when empty. */
double dist_mean(const struct dist *d) { return d->n ? d->sum / (double)d->n : NAN; }

/* Sample standard deviation; NaN below two values. */
double dist_stddev(const struct dist *d)
{
    if (d->n < 2)
        return NAN;
    double n = (double)d->n;
    double var = (d->sd2 - d->sd1 * d->sd1 / n) / (n - 1);
    return var > 0 ? sqrt(var) : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/*
 * The value of 0-based rank r read from the histogram: the middle of its bucket, which is
 * within half a bucket (1/64 of the value) of the true one whatever the values inside are.
 */
static double hist_rank(const struct dist *d, double r)
{
    uint64_t cum = 0;
    for (unsigned b = 0; b < STATS_BUCKETS; b++) {
        uint64_t c = d->hist[b];
        if (c == 0)
            continue;
        if (r < (double)(cum + c)) {
            double v = (bucket_low(b) + bucket_low(b + 1)) / 2;
            if (v < d->min)
                v = d->min;
            if (v > d->max)
                v = d->max;
            return v;
        }
        cum += c;
    }
    return d->max;
}

/* The exact values in order. */
void dist_finish(struct dist *d)
{
    if (!d->hist && !d->sorted && d->nexact > 1)
        qsort(d->exact, d->nexact, sizeof *d->exact, cmp_double);
    d->sorted = 1;
}

/* Quantile q of n sorted values, as PERCENTILE.INC: rank (n - 1) * q between them. */
static double sorted_quantile(const double *v, uint64_t n, double q)
{
    double h = (double)(n - 1) * q;
    size_t lo = (size_t)h;
    if (lo + 1 >= n)
        return v[n - 1];
    return v[lo] + (h - (double)lo) * (v[lo + 1] - v[lo]);
}

/* Quantile q, as PERCENTILE.INC: rank (n - 1) * q between the order statistics. */
double dist_quantile(const struct dist *d, double q)
{
    if (d->n == 0 || !(q >= 0 && q <= 1))
        return NAN;
    if (!d->hist) {
        if (d->sorted || d->n == 1)
            return sorted_quantile(d->exact, d->n, q);
        double *v = xmalloc(d->n * sizeof *v);
        memcpy(v, d->exact, d->n * sizeof *v);
        qsort(v, d->n, sizeof *v, cmp_double);
        double x = sorted_quantile(v, d->n, q);
        free(v);
        return x;
    }
    uint64_t total = 0;
    for (unsigned b = 0; b < STATS_BUCKETS; b++)
        total += d->hist[b];
    if (total == 0)
        return NAN;
    double h = (double)(total - 1) * q;
    double lo = hist_rank(d, floor(h)), hi = hist_rank(d, ceil(h));
    return lo + (h - floor(h)) * (hi - lo);
}

/* Continued fraction of the regularized incomplete beta function (modified Lentz). */
static double beta_cf(double a, double b, double x)
{
    const double tiny = 1e-300;
    double c = 1, d = 1 - (a + b) * x / (a + 1);
    if (fabs(d) < tiny)
        d = tiny;
    d = 1 / d;
    double h = d;
    for (int m = 1; m <= 300; m++) {
        double m2 = 2.0 * m;
        double aa = m * (b - m) * x / ((a + m2 - 1) * (a + m2));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        h *= d * c;
        aa = -(a + m) * (a + b + m) * x / ((a + m2) * (a + m2 + 1));
        d = 1 + aa * d;
        d = fabs(d) < tiny ? 1 / tiny : 1 / d;
        c = 1 + aa / c;
        if (fabs(c) < tiny)
            c = tiny;
        double del = d * c;
        h *= del;
        if (fabs(del - 1) < 1e-16)
            break;
    }
    return h;
}

/* Regularized incomplete beta function I_x(a, b). */
static double beta_inc(double a, double b, double x)
{
    if (x <= 0)
        return 0;
    if (x >= 1)
        return 1;
    double lbt = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
    if (x < (a + 1) / (a + b + 2))
        return exp(lbt) * beta_cf(a, b, x) / a;
    return 1 - exp(lbt) * beta_cf(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with df degrees of freedom, t >= 0. */
static double student_cdf(double t, double df)
{
    return 1 - 0.5 * beta_inc(df / 2, 0.5, df / (df + t * t));
}

/* The 97.5 % quantile of Student's t (the 95 % two-sided critical value), to ~1e-13. */
double student_t975(size_t df)
{
    if (df == 0)
        return NAN;
    double lo = 1.9, hi = 13; /* t(0.975) lies between these for every df >= 1 */
    for (int i = 0; i < 200 && hi - lo > 1e-14 * hi; i++) {
        double mid = (lo + hi) / 2;
        if (student_cdf(mid, (double)df) < 0.975)
            lo = mid;
        else
            hi = mid;
    }
    return (lo + hi) / 2;
}

/* Spread of n per-run values; fields are NaN where they need more values. */
struct spread spread_of(const double *v, size_t n)
{
    struct spread s = {n, NAN, NAN, NAN, NAN, NAN, NAN};
    if (n == 0)
        return s;
    double sum = 0;
    s.min = s.max = v[0];
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        if (v[i] < s.min)
            s.min = v[i];
        if (v[i] > s.max)
            s.max = v[i];
    }
    s.mean = sum / (double)n;
    if (n < 2)
        return s;
    double ss = 0;
    for (size_t i = 0; i < n; i++)
        ss += (v[i] - s.mean) * (v[i] - s.mean);
    s.stddev = sqrt(ss / (double)(n - 1));
    s.cv = s.mean != 0 ? s.stddev / s.mean : NAN;
    s.ci95 = student_t975(n - 1) * s.stddev / sqrt((double)n);
    return s;
}
