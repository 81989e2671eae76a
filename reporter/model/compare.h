/*
 * compare.h - compare.c: baseline runs against new runs, region by region (pure statistics
 * over two models: Mann-Whitney U, Benjamini-Hochberg, bootstrap intervals, verdicts).
 *
 * Ownership: a struct comparison owns its rows and their per-run values (compare_release
 * frees them); region names and the two models are borrowed and must outlive it.
 */
#ifndef PROFREPORT_COMPARE_H
#define PROFREPORT_COMPARE_H

#include <stddef.h>
#include <stdint.h>

/* xoshiro256** (Blackman and Vigna), seeded through splitmix64: the bootstrap's own generator,
   so a comparison is the same on every machine and libc for the same seed. */
struct compare_rng {
    uint64_t s[4];
};
void compare_rng_seed(struct compare_rng *g, uint64_t seed);
uint64_t compare_rng_next(struct compare_rng *g);
/* Uniform in [0, n) for n > 0, without modulo bias (Lemire's method). */
uint64_t compare_rng_below(struct compare_rng *g, uint64_t n);

/* A two-sided Mann-Whitney U test of a (baseline) against b (new). */
struct compare_mwu {
    double u;  /* U of b: pairs with b > a, plus half the pairs that tie */
    double p;  /* two-sided p-value; NaN when a side is empty */
    int exact; /* 1: exact distribution (no ties, few values); 0: normal approximation */
};
struct compare_mwu compare_mwu(const double *a, size_t na, const double *b, size_t nb);
/* The smallest two-sided p-value the exact test can give for na and nb values:
   2 / C(na + nb, na) (capped at 1). */
double compare_mwu_min_p(size_t na, size_t nb);
/* Benjamini-Hochberg adjusted p-values of p[0..n) into q (NaN stays NaN, not counted). */
void compare_bh(const double *p, size_t n, double *q);
/* Median of v[0..n) (v is not changed); NaN when n is 0. */
double compare_median(const double *v, size_t n);
/* Percentile bootstrap 95 % interval of median(b) / median(a) with `resamples` resamples
   drawn from g. Bounds are NaN when undefined (an empty side, or a zero baseline median in
   more than 2.5 % of the resamples on the low side). */
void compare_bootstrap(const double *a, size_t na, const double *b, size_t nb, unsigned resamples,
                       struct compare_rng *g, double *low, double *high);
/* Percentile bootstrap 95 % interval of the geometric mean over k regions of
   median(b[i]) / median(a[i]). a[i] holds region i's value in each of the na baseline runs,
   b[i] in each of the nb new runs. A run is one draw: each resample draws na baseline runs
   and nb new runs with replacement and takes every region's values from the runs drawn, so
   regions that move together in a run stay together. A resample in which a region's ratio is
   0 or undefined (a zero median) is left out; bounds are NaN when none is left. */
void compare_geomean_bootstrap(const double *const *a, size_t na, const double *const *b, size_t nb,
                               size_t k, unsigned resamples, struct compare_rng *g, double *low,
                               double *high);

enum compare_verdict {
    VERDICT_SAME,   /* no significant change */
    VERDICT_FASTER, /* significant and smaller by more than the noise threshold */
    VERDICT_SLOWER,
    VERDICT_ADDED,  /* in the new runs only */
    VERDICT_REMOVED /* in the baseline runs only */
};
/* "faster", "slower", "no significant change", "added", "removed". */
const char *compare_verdict_name(enum compare_verdict v);

/* One region of a comparison. Values are the region's total time per run (ns). */
struct compare_row {
    const char *display; /* the region's name, not owned (points into one of the models) */
    size_t base_runs;    /* baseline runs in which it ran */
    size_t new_runs;     /* new runs in which it ran */
    double *base, *new;  /* per-run totals: nbase and nnew values (0 where it did not run);
                            NULL for the side it is missing from */
    double base_median, new_median, base_mean, new_mean;
    double ratio;                 /* new_median / base_median */
    double ratio_low, ratio_high; /* bootstrap 95 % interval of the ratio */
    double change;                /* ratio - 1 */
    struct compare_mwu test;
    double q; /* Benjamini-Hochberg adjusted p */
    enum compare_verdict verdict;
};

/* What to compare with: the knobs of --noise, --seed. */
struct compare_options {
    double noise;       /* fraction: 0.01 = 1 % */
    double alpha;       /* significance level of the adjusted p (0.05) */
    uint64_t seed;      /* bootstrap seed */
    unsigned resamples; /* bootstrap resamples per region */
};
#define COMPARE_NOISE 0.01
#define COMPARE_ALPHA 0.05
#define COMPARE_SEED 1
#define COMPARE_RESAMPLES 5000
/* Mixed into --seed for the geometric mean's bootstrap ("geomean" in ASCII). */
#define COMPARE_GEOMEAN_STREAM 0x67656f6d65616eull
/* Runs per side the report recommends (below this the warning is shown). */
#define COMPARE_MIN_RUNS 5
/* Runs per side that get a column in the workbook's region x run matrix (Comparison runs):
   a sheet has 16,384 columns. The statistics use every run all the same. */
#define COMPARE_MATRIX_RUNS 8000

/* A whole comparison. rows: regions on both sides, biggest change first (|log ratio|), then
   added, then removed regions, each group by time. */
struct comparison {
    struct compare_options opt;
    size_t nbase, nnew; /* runs per side */
    struct compare_row *rows;
    size_t nrows, nboth;
    size_t faster, slower, added, removed;
    double geomean;  /* geometric mean of the ratios over the regions on both sides */
    size_t ngeomean; /* regions in it (a ratio must be finite and positive) */
    double geomean_low, geomean_high; /* its bootstrap 95 % interval (NaN: undefined) */
    /* VERDICT_SLOWER or VERDICT_FASTER when the interval lies above or below 1 and the mean
       moved by more than opt.noise, else VERDICT_SAME: an interval holding 1 (or undefined)
       is no significant change. */
    enum compare_verdict geomean_verdict;
    double min_p;                               /* compare_mwu_min_p(nbase, nnew) */
    char *warning;                              /* too few runs for the test, or NULL */
    const struct model *base_model, *new_model; /* the two sides, not owned */
};

struct model;
/* Compare the regions of two models (excluded regions are left out). c owns its rows and
   their per-run values; region names point into the models, which must outlive c. */
void compare_build(const struct model *base, const struct model *new,
                   const struct compare_options *opt, struct comparison *c);
void compare_release(struct comparison *c);
/* Whether a side has more runs than the workbook's matrix has columns for (COMPARE_MATRIX_RUNS),
   and if so the sentence that says so, in buf; 0 and buf untouched when none has. */
int compare_matrix_note(const struct comparison *c, char *buf, size_t size);
/* Parse --noise: "1%", "0.5%" or a fraction "0.01". 0 on success, -1 when malformed. */
int compare_parse_noise(const char *s, double *noise);

#endif /* PROFREPORT_COMPARE_H */
