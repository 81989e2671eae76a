/*
 * test_compare.c - unit tests of compare.c: the generator, the Mann-Whitney U test, the
 * Benjamini-Hochberg adjustment, medians, the bootstrap interval and whole comparisons.
 * Expected values come from published sources or were computed independently in Python by
 * enumeration (every arrangement or every resample), as each test's comment says.
 */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/compare.h"
#include "model/model.h"
#include "read/input.h"
#include "base/util.h"

#define assert_close(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))
#define assert_rel(a, b, rel) assert_true(fabs((a) - (b)) <= (rel)*fabs(b))

/* Seeding follows the reference splitmix64 and xoshiro256** (outputs from an independent
   Python transcription of the published C code: splitmix64's first output from 0 is the
   well-known 0xe220a8397b1dcdaf, the first state word). */
static void rng_matches_reference_outputs(void **state)
{
    (void)state;
    struct compare_rng g;
    compare_rng_seed(&g, 0);
    assert_true(g.s[0] == 0xe220a8397b1dcdafull);
    compare_rng_seed(&g, 42);
    static const uint64_t want42[] = {0x15780b2e0c2ec716ull, 0x6104d9866d113a7eull,
                                      0xae17533239e499a1ull, 0xecb8ad4703b360a1ull};
    for (int i = 0; i < 4; i++)
        assert_true(compare_rng_next(&g) == want42[i]);
    compare_rng_seed(&g, 1);
    assert_true(compare_rng_next(&g) == 0xb3f2af6d0fc710c5ull);
    assert_true(compare_rng_next(&g) == 0x853b559647364ceaull);
}

/* Draws below n stay below n and hit each value about as often (70000 draws of 7 values:
   each count is 10000 +- 4.5 standard deviations, sqrt(70000 * 1/7 * 6/7) = 92.6). */
static void rng_below_is_uniform(void **state)
{
    (void)state;
    struct compare_rng g;
    compare_rng_seed(&g, 7);
    unsigned counts[7] = {0};
    for (int i = 0; i < 70000; i++) {
        uint64_t v = compare_rng_below(&g, 7);
        assert_true(v < 7);
        counts[v]++;
    }
    for (int i = 0; i < 7; i++)
        assert_true(counts[i] > 10000 - 417 && counts[i] < 10000 + 417);
    /* n = 1 always gives 0; a huge n still stays below it. */
    assert_true(compare_rng_below(&g, 1) == 0);
    for (int i = 0; i < 1000; i++)
        assert_true(compare_rng_below(&g, UINT64_MAX - 3) < UINT64_MAX - 3);
}

/* The same seed gives the same stream; another seed another one. */
static void rng_is_reproducible(void **state)
{
    (void)state;
    struct compare_rng a, b, c;
    compare_rng_seed(&a, 123);
    compare_rng_seed(&b, 123);
    compare_rng_seed(&c, 124);
    int differ = 0;
    for (int i = 0; i < 100; i++) {
        uint64_t x = compare_rng_next(&a);
        assert_true(x == compare_rng_next(&b));
        differ |= x != compare_rng_next(&c);
    }
    assert_true(differ);
}

/* qsort order of doubles. */
static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* Medians of odd and even counts, and of shuffled values against a sorted copy. */
static void median_of_values(void **state)
{
    (void)state;
    double odd[] = {5, 1, 4, 2, 3};
    assert_close(compare_median(odd, 5), 3, 0);
    assert_close(odd[0], 5, 0); /* not reordered */
    double even[] = {8, 1, 4, 2};
    assert_close(compare_median(even, 4), 3, 0);
    double one[] = {7};
    assert_close(compare_median(one, 1), 7, 0);
    assert_true(isnan(compare_median(one, 0)));
    double ties[] = {2, 2, 2, 1, 2, 2};
    assert_close(compare_median(ties, 6), 2, 0);
    /* Permutations of 0..n-1 (i * 7919 mod n with n prime to 7919): median (n - 1) / 2. */
    for (size_t n = 1; n < 60; n++) {
        double v[60];
        for (size_t i = 0; i < n; i++)
            v[i] = (double)((i * 7919) % n);
        assert_close(compare_median(v, n), (double)(n - 1) / 2, 0);
    }
    /* Random values with many duplicates against the middle of a sorted copy. */
    struct compare_rng g;
    compare_rng_seed(&g, 3);
    for (size_t n = 1; n < 300; n++) {
        double v[300], s[300];
        for (size_t i = 0; i < n; i++)
            s[i] = v[i] = (double)compare_rng_below(&g, n % 7 + 1);
        qsort(s, n, sizeof *s, by_value);
        double want = n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
        assert_close(compare_median(v, n), want, 0);
    }
}

/* Five against five, fully apart: U = 25 (every new value above every baseline value) and
   the exact two-sided p is 2 / C(10, 5) = 2 / 252; the smallest possible p for 5 and 5. */
static void mwu_exact_separated(void **state)
{
    (void)state;
    double a[] = {1, 2, 3, 4, 5}, b[] = {6, 7, 8, 9, 10};
    struct compare_mwu t = compare_mwu(a, 5, b, 5);
    assert_true(t.exact);
    assert_close(t.u, 25, 0);
    assert_close(t.p, 2.0 / 252, 1e-15);
    assert_close(compare_mwu_min_p(5, 5), 2.0 / 252, 1e-15);
    /* Swapping the sides mirrors U and keeps p. */
    t = compare_mwu(b, 5, a, 5);
    assert_close(t.u, 0, 0);
    assert_close(t.p, 2.0 / 252, 1e-15);
    /* Three against three can never go below 0.1 (the warning's premise). */
    double c[] = {1, 2, 3}, d[] = {4, 5, 6};
    t = compare_mwu(c, 3, d, 3);
    assert_close(t.p, 0.1, 1e-15);
    assert_close(compare_mwu_min_p(3, 3), 0.1, 1e-15);
    assert_close(compare_mwu_min_p(4, 4), 2.0 / 70, 1e-15);
}

/* Exact p-values counted by enumerating every arrangement in Python:
   {1,2,3,4,6} vs {5,7,8,9,10}: U = 24, p = 1/63; {1,2,3,5,6} vs {4,7,...}: U = 23, p = 2/63;
   {3.1,1.2,7.7} vs seven values: U = 16, p = 4/15; and scipy's documented example
   (mannwhitneyu(males, females, method="exact")): U = 17 for the males, p = 1/9. */
static void mwu_exact_enumerated(void **state)
{
    (void)state;
    double a1[] = {1, 2, 3, 4, 6}, b1[] = {5, 7, 8, 9, 10};
    struct compare_mwu t = compare_mwu(a1, 5, b1, 5);
    assert_close(t.u, 24, 0);
    assert_close(t.p, 1.0 / 63, 1e-15);
    double a2[] = {1, 2, 3, 5, 6}, b2[] = {4, 7, 8, 9, 10};
    t = compare_mwu(a2, 5, b2, 5);
    assert_close(t.u, 23, 0);
    assert_close(t.p, 2.0 / 63, 1e-15);
    double a3[] = {3.1, 1.2, 7.7}, b3[] = {2.5, 9.9, 8.8, 4.4, 6.0, 5.1, 10.5};
    t = compare_mwu(a3, 3, b3, 7);
    assert_true(t.exact);
    assert_close(t.u, 16, 0);
    assert_close(t.p, 4.0 / 15, 1e-15);
    double females[] = {20, 11, 17, 12}, males[] = {19, 22, 16, 29, 24};
    t = compare_mwu(females, 4, males, 5);
    assert_close(t.u, 17, 0);
    assert_close(t.p, 1.0 / 9, 1e-15);
}

/* With ties, the normal approximation with tie and continuity corrections; expected values
   from the formula in Python, which gives scipy's documented asymptotic p for its example
   (0.11134688653314041). Ties: {1,2,2,3,3,3,5} vs {3,4,4,5,6,7}: U = 37, p = 0.0241384637...;
   30 against 30 without ties (too many arrangements to count exactly): 0..29 against
   20.5..49.5, U = 855, p = 2.2272692640697906e-09. */
static void mwu_normal_approximation(void **state)
{
    (void)state;
    double a[] = {1, 2, 2, 3, 3, 3, 5}, b[] = {3, 4, 4, 5, 6, 7};
    struct compare_mwu t = compare_mwu(a, 7, b, 6);
    assert_false(t.exact);
    assert_close(t.u, 37, 0);
    assert_rel(t.p, 0.024138463765364958, 1e-12);
    double x[30], y[30];
    for (int i = 0; i < 30; i++) {
        x[i] = i;
        y[i] = i + 20.5;
    }
    t = compare_mwu(x, 30, y, 30);
    assert_false(t.exact);
    assert_close(t.u, 855, 0);
    assert_rel(t.p, 2.2272692640697906e-09, 1e-9);
}

/* Identical sides, or all values equal: p = 1; an empty side: NaN. */
static void mwu_no_difference(void **state)
{
    (void)state;
    double a[] = {3, 1, 2, 5, 4};
    struct compare_mwu t = compare_mwu(a, 5, a, 5);
    assert_close(t.u, 12.5, 0);
    assert_close(t.p, 1, 1e-12);
    double same[] = {2, 2, 2};
    t = compare_mwu(same, 3, same, 3);
    assert_close(t.p, 1, 0);
    t = compare_mwu(a, 5, a, 0);
    assert_true(isnan(t.p));
}

/* Benjamini and Hochberg's own example (J. R. Stat. Soc. B 57, 1995, section 4.1): 15
   p-values, of which the first four are rejected at 0.05. Adjusted values by the definition
   min over j >= i of p(j) m / j, computed in Python; input given out of order, with a NaN. */
static void bh_paper_example(void **state)
{
    (void)state;
    static const double sorted_p[] = {0.0001, 0.0004, 0.0019, 0.0095, 0.0201,
                                      0.0278, 0.0298, 0.0344, 0.0459, 0.3240,
                                      0.4262, 0.5719, 0.6528, 0.7590, 1.000};
    static const double want[] = {0.0015,
                                  0.003,
                                  0.0095,
                                  0.035625,
                                  0.0603,
                                  0.06385714285714286,
                                  0.06385714285714286,
                                  0.0645,
                                  0.0765,
                                  0.486,
                                  0.5811818181818182,
                                  0.714875,
                                  0.7532307692307694,
                                  0.8132142857142857,
                                  1};
    /* Reverse order, then a NaN in the middle that must not count. */
    double p[16], q[16];
    for (int i = 0; i < 15; i++)
        p[i < 8 ? i : i + 1] = sorted_p[14 - i];
    p[8] = NAN;
    compare_bh(p, 16, q);
    assert_true(isnan(q[8]));
    int rejected = 0;
    for (int i = 0; i < 16; i++) {
        if (i == 8)
            continue;
        int k = 14 - (i < 8 ? i : i - 1);
        assert_close(q[i], want[k], 1e-12);
        rejected += q[i] < 0.05;
    }
    assert_int_equal(rejected, 4);
    compare_bh(p, 0, q); /* nothing to do, nothing touched */
}

/* Exact bootstrap distributions, enumerated in Python over every resample (27 x 27 for three
   values per side, 256 x 256 for four): with enough resamples the percentile interval lands on
   the enumerated 2.5 % and 97.5 % quantiles, which sit clear of a jump of the distribution:
   {10,11,13} -> {19,22,26}: [19/13, 26/10]; {10,12,13,17} -> {14,21,22,30}: [14/13, 30/12]. */
static void bootstrap_matches_enumeration(void **state)
{
    (void)state;
    struct compare_rng g;
    double lo, hi;
    double a[] = {10, 11, 13}, b[] = {19, 22, 26};
    compare_rng_seed(&g, 1);
    compare_bootstrap(a, 3, b, 3, 5000, &g, &lo, &hi);
    assert_close(lo, 19.0 / 13, 1e-12);
    assert_close(hi, 26.0 / 10, 1e-12);
    double c[] = {10, 12, 13, 17}, d[] = {14, 21, 22, 30};
    compare_rng_seed(&g, 2);
    compare_bootstrap(c, 4, d, 4, 200000, &g, &lo, &hi);
    assert_close(lo, 14.0 / 13, 1e-12);
    assert_close(hi, 30.0 / 12, 1e-12);
}

/*
 * The geometric mean's interval. Every resampled median lies between a side's smallest and
 * largest value, so each region's resampled ratio, and their geometric mean, lies between
 * min(new) / max(base) and max(new) / min(base) (by hand).
 *
 * Two regions, ten runs, the new runs the baseline's values again (in another order): the
 * interval holds 1. The new runs twice the baseline's: it lies within [200/109, 218/100],
 * so it leaves 1 out and holds 2. One region twice as slow and one twice as fast: the
 * geometric mean is 1, and so is the middle of its interval.
 */
static void geomean_bootstrap_holds_one_only_without_a_change(void **state)
{
    (void)state;
    double base1[10], base2[10], same1[10], same2[10], twice1[10], twice2[10], half[10];
    for (int i = 0; i < 10; i++) {
        base1[i] = 100 + i;
        base2[i] = 500 + 3 * i;
        same1[i] = 100 + (i * 7) % 10;
        same2[i] = 500 + 3 * ((i * 3) % 10);
        twice1[i] = 2 * same1[i];
        twice2[i] = 2 * same2[i];
        half[i] = same2[i] / 2;
    }
    const double *a[] = {base1, base2};
    double lo, hi, lo2, hi2;
    struct compare_rng g;

    const double *same[] = {same1, same2};
    compare_rng_seed(&g, 1);
    compare_geomean_bootstrap(a, 10, same, 10, 2, 5000, &g, &lo, &hi);
    assert_true(lo < 1 && 1 < hi);
    assert_true(lo >= 100.0 / 109 && hi <= 109.0 / 100);

    const double *twice[] = {twice1, twice2};
    compare_rng_seed(&g, 1);
    compare_geomean_bootstrap(a, 10, twice, 10, 2, 5000, &g, &lo, &hi);
    assert_true(lo > 1 && lo <= 2 && 2 <= hi);
    assert_true(lo >= 200.0 / 109 && hi <= 218.0 / 100);

    /* The same seed, the same interval. */
    compare_rng_seed(&g, 1);
    compare_geomean_bootstrap(a, 10, twice, 10, 2, 5000, &g, &lo2, &hi2);
    assert_true(lo == lo2 && hi == hi2);

    const double *mixed[] = {twice1, half};
    compare_rng_seed(&g, 3);
    compare_geomean_bootstrap(a, 10, mixed, 10, 2, 5000, &g, &lo, &hi);
    assert_true(lo < 1 && 1 < hi);
}

/* A zero median in every resample, an empty side or no region: no interval. */
static void geomean_bootstrap_edges(void **state)
{
    (void)state;
    double zeros[] = {0, 0, 0, 0, 0}, some[] = {1, 2, 3, 4, 5};
    const double *a[] = {zeros}, *b[] = {some};
    double lo, hi;
    struct compare_rng g;
    compare_rng_seed(&g, 1);
    compare_geomean_bootstrap(a, 5, b, 5, 1, 1000, &g, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
    compare_geomean_bootstrap(b, 0, b, 5, 1, 1000, &g, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
    compare_geomean_bootstrap(b, 5, b, 5, 0, 1000, &g, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
    /* Constant sides: every resample gives the same mean. */
    double two[] = {2, 2, 2}, six[] = {6, 6, 6};
    const double *c[] = {two}, *d[] = {six};
    compare_geomean_bootstrap(c, 3, d, 3, 1, 100, &g, &lo, &hi);
    assert_close(lo, 3, 1e-12);
    assert_close(hi, 3, 1e-12);
}

/* Constant sides give a point interval; the same seed the same interval; a zero baseline no
   finite upper bound; an empty side none at all. */
static void bootstrap_edges(void **state)
{
    (void)state;
    struct compare_rng g;
    double lo, hi, lo2, hi2;
    double two[] = {2, 2, 2, 2, 2}, four[] = {4, 4, 4, 4, 4};
    compare_rng_seed(&g, 9);
    compare_bootstrap(two, 5, four, 5, 1000, &g, &lo, &hi);
    assert_close(lo, 2, 0);
    assert_close(hi, 2, 0);
    double a[] = {9, 10, 11, 12, 30}, b[] = {15, 18, 19, 20, 21};
    compare_rng_seed(&g, 5);
    compare_bootstrap(a, 5, b, 5, 2000, &g, &lo, &hi);
    compare_rng_seed(&g, 5);
    compare_bootstrap(a, 5, b, 5, 2000, &g, &lo2, &hi2);
    assert_true(lo == lo2 && hi == hi2);
    /* Bounds lie between the smallest and largest ratio any resample can give. */
    assert_true(lo >= 15.0 / 30 && hi <= 21.0 / 9 && lo <= hi);
    double zero[] = {0, 0, 0, 0, 1};
    compare_rng_seed(&g, 5);
    compare_bootstrap(zero, 5, b, 5, 2000, &g, &lo, &hi);
    assert_true(isnan(hi));
    compare_bootstrap(zero, 0, b, 5, 2000, &g, &lo, &hi);
    assert_true(isnan(lo) && isnan(hi));
}

/* --noise accepts percentages and fractions, and nothing else. */
static void noise_parsing(void **state)
{
    (void)state;
    double v;
    assert_int_equal(compare_parse_noise("1%", &v), 0);
    assert_close(v, 0.01, 1e-15);
    assert_int_equal(compare_parse_noise("2.5%", &v), 0);
    assert_close(v, 0.025, 1e-15);
    assert_int_equal(compare_parse_noise("0.05", &v), 0);
    assert_close(v, 0.05, 0);
    assert_int_equal(compare_parse_noise("0", &v), 0);
    assert_close(v, 0, 0);
    static const char *const bad[] = {"", "%", "abc", "-1%", "1%%", "5 %", "nan", "inf", "2000%"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(compare_parse_noise(bad[i], &v), -1);
}

/* Read seed-form runs (FORMAT.md 2: a Frequency record, then id,delta rows) into m. */
static void add_runs(struct model *m, const char *const *texts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        FILE *f = fmemopen((void *)(uintptr_t)texts[i], strlen(texts[i]), "r");
        assert_non_null(f);
        assert_int_equal(input_add_run(m, f, "mem.csv", 0), RUNFILE_OK);
        fclose(f);
    }
}

/* The row of a region, or NULL. */
static const struct compare_row *row_named(const struct comparison *c, const char *name)
{
    for (size_t i = 0; i < c->nrows; i++)
        if (strcmp(c->rows[i].display, name) == 0)
            return &c->rows[i];
    return NULL;
}

/*
 * Five runs per side at 1 GHz (1 tick = 1 ns). "work" doubles (100..104 -> 200..208: every
 * new value above every old one, p = 2/252; of the two regions tested it has the smallest p, so BH
 * gives q = 2/252 * 2 / 1), "steady" interleaves (no change), "old" is only in the baseline,
 * "fresh" only in the new runs. Medians, means and the geometric mean by hand.
 */
static void build_finds_the_changed_region(void **state)
{
    (void)state;
    static const char *const base_runs[] = {
        "Frequency,1000000000\nwork,100\nsteady,50\nold,7\n",
        "Frequency,1000000000\nwork,101\nsteady,52\nold,7\n",
        "Frequency,1000000000\nwork,102\nsteady,54\nold,7\n",
        "Frequency,1000000000\nwork,103\nsteady,56\nold,7\n",
        "Frequency,1000000000\nwork,60\nwork,44\nsteady,58\nold,7\n", /* two calls: 104 */
    };
    static const char *const new_runs[] = {
        "Frequency,1000000000\nwork,200\nsteady,51\nfresh,3\n",
        "Frequency,1000000000\nwork,202\nsteady,53\nfresh,3\n",
        "Frequency,1000000000\nwork,204\nsteady,55\n", /* fresh did not run */
        "Frequency,1000000000\nwork,206\nsteady,57\nfresh,3\n",
        "Frequency,1000000000\nwork,208\nsteady,59\nfresh,3\n",
    };
    struct model base, new;
    model_init(&base);
    model_init(&new);
    add_runs(&base, base_runs, 5);
    add_runs(&new, new_runs, 5);
    struct compare_options opt = {COMPARE_NOISE, COMPARE_ALPHA, COMPARE_SEED, 2000};
    struct comparison c;
    compare_build(&base, &new, &opt, &c);
    assert_int_equal(c.nbase, 5);
    assert_int_equal(c.nnew, 5);
    assert_int_equal(c.nrows, 4);
    assert_int_equal(c.nboth, 2);
    assert_int_equal(c.slower, 1);
    assert_int_equal(c.faster, 0);
    assert_int_equal(c.added, 1);
    assert_int_equal(c.removed, 1);
    assert_null(c.warning);

    /* Order: both sides by change (work first), then added, then removed. */
    assert_string_equal(c.rows[0].display, "work");
    assert_string_equal(c.rows[1].display, "steady");
    assert_string_equal(c.rows[2].display, "fresh");
    assert_string_equal(c.rows[3].display, "old");

    const struct compare_row *w = row_named(&c, "work");
    assert_int_equal(w->verdict, VERDICT_SLOWER);
    assert_close(w->base_median, 102, 1e-9);
    assert_close(w->new_median, 204, 1e-9);
    assert_close(w->base_mean, 102, 1e-9);
    assert_close(w->new_mean, 204, 1e-9);
    assert_close(w->ratio, 2, 1e-12);
    assert_close(w->change, 1, 1e-12);
    assert_close(w->test.u, 25, 0);
    assert_close(w->test.p, 2.0 / 252, 1e-15);
    assert_close(w->q, 2.0 / 252 * 2 / 1, 1e-15); /* rank 1 of 2 */
    assert_true(w->ratio_low <= 2 && w->ratio_high >= 2);
    assert_true(w->ratio_low >= 200.0 / 104 && w->ratio_high <= 208.0 / 100);
    assert_int_equal(w->base_runs, 5);

    const struct compare_row *s = row_named(&c, "steady");
    assert_int_equal(s->verdict, VERDICT_SAME);
    assert_close(s->base_median, 54, 1e-9);
    assert_close(s->new_median, 55, 1e-9);
    assert_close(s->ratio, 55.0 / 54, 1e-12);
    /* 50 52 54 56 58 | 51 53 55 57 59: U of the new side = 5+4+3+2+1 = 15. */
    assert_close(s->test.u, 15, 0);
    assert_true(s->q > 0.05);

    const struct compare_row *f = row_named(&c, "fresh");
    assert_int_equal(f->verdict, VERDICT_ADDED);
    assert_int_equal(f->new_runs, 4);
    assert_close(f->new_median, 3, 0); /* 3 3 0 3 3 */
    assert_close(f->new_mean, 2.4, 1e-12);
    assert_null(f->base);
    assert_true(isnan(f->test.p) && isnan(f->ratio));
    const struct compare_row *o = row_named(&c, "old");
    assert_int_equal(o->verdict, VERDICT_REMOVED);
    assert_close(o->base_median, 7, 0);
    assert_null(o->new);

    assert_int_equal(c.ngeomean, 2);
    assert_close(c.geomean, sqrt(2.0 * 55 / 54), 1e-12);
    /* work's ratios lie in [200/104, 208/100], steady's in [51/58, 59/50]: the mean's lowest
       is sqrt(200/104 * 51/58) = 1.30, above 1. */
    assert_true(c.geomean_low >= sqrt(200.0 / 104 * 51 / 58) - 1e-12);
    assert_true(c.geomean_low <= c.geomean && c.geomean <= c.geomean_high);
    assert_int_equal(c.geomean_verdict, VERDICT_SLOWER);
    compare_release(&c);

    /* A side against itself: nothing significant, ratio 1, geometric mean 1. */
    compare_build(&new, &new, &opt, &c);
    assert_int_equal(c.slower + c.faster + c.added + c.removed, 0);
    for (size_t i = 0; i < c.nrows; i++) {
        assert_int_equal(c.rows[i].verdict, VERDICT_SAME);
        assert_close(c.rows[i].test.p, 1, 1e-12);
    }
    assert_close(c.geomean, 1, 1e-12);
    assert_true(c.geomean_low < 1 && 1 < c.geomean_high);
    assert_int_equal(c.geomean_verdict, VERDICT_SAME);
    compare_release(&c);
    model_release(&base);
    model_release(&new);
}

/* A change smaller than the noise threshold is not reported, however significant; fewer than
   five runs per side bring the warning, which names the smallest possible p. */
static void build_noise_threshold_and_few_runs(void **state)
{
    (void)state;
    static const char *const base_runs[] = {
        "Frequency,1000000000\nr,1000\n", "Frequency,1000000000\nr,1001\n",
        "Frequency,1000000000\nr,1002\n", "Frequency,1000000000\nr,1003\n",
        "Frequency,1000000000\nr,1004\n"};
    static const char *const new_runs[] = {
        "Frequency,1000000000\nr,1010\n", "Frequency,1000000000\nr,1011\n",
        "Frequency,1000000000\nr,1012\n", "Frequency,1000000000\nr,1013\n",
        "Frequency,1000000000\nr,1014\n"};
    struct model base, new;
    model_init(&base);
    model_init(&new);
    add_runs(&base, base_runs, 5);
    add_runs(&new, new_runs, 5);
    struct compare_options opt = {COMPARE_NOISE, COMPARE_ALPHA, COMPARE_SEED, 1000};
    struct comparison c;
    /* 1002 -> 1012: +0.998 %, below 1 %: significant but not a change. */
    compare_build(&base, &new, &opt, &c);
    assert_close(c.rows[0].q, 2.0 / 252, 1e-15);
    assert_int_equal(c.rows[0].verdict, VERDICT_SAME);
    compare_release(&c);
    opt.noise = 0.005;
    compare_build(&base, &new, &opt, &c);
    assert_int_equal(c.rows[0].verdict, VERDICT_SLOWER);
    compare_release(&c);
    /* Swapped: faster. */
    compare_build(&new, &base, &opt, &c);
    assert_int_equal(c.rows[0].verdict, VERDICT_FASTER);
    assert_int_equal(c.faster, 1);
    compare_release(&c);
    model_release(&base);
    model_release(&new);

    model_init(&base);
    model_init(&new);
    add_runs(&base, base_runs, 3);
    add_runs(&new, new_runs, 3);
    compare_build(&base, &new, &opt, &c);
    assert_non_null(c.warning);
    assert_non_null(strstr(c.warning, "fewer runs than the test needs"));
    assert_non_null(strstr(c.warning, "0.1,"));
    assert_non_null(strstr(c.warning, "no change can be significant"));
    assert_int_equal(c.rows[0].verdict, VERDICT_SAME);
    compare_release(&c);
    model_release(&base);
    model_release(&new);
}

/* A region that stops running in most new runs (median 0, ratio 0) is the biggest change,
   ahead of a doubling; one whose baseline median is 0 has no ratio and comes last of the
   regions on both sides. */
static void build_orders_vanishing_regions_first(void **state)
{
    (void)state;
    static const char *const base_runs[] = {
        "Frequency,1000000000\nvanish,100\ndouble,10\nappear,9\n",
        "Frequency,1000000000\nvanish,101\ndouble,11\n",
        "Frequency,1000000000\nvanish,102\ndouble,12\n",
        "Frequency,1000000000\nvanish,103\ndouble,13\n",
        "Frequency,1000000000\nvanish,104\ndouble,14\n"};
    static const char *const new_runs[] = {"Frequency,1000000000\nvanish,5\ndouble,20\nappear,50\n",
                                           "Frequency,1000000000\nvanish,5\ndouble,22\nappear,51\n",
                                           "Frequency,1000000000\ndouble,24\nappear,52\n",
                                           "Frequency,1000000000\ndouble,26\nappear,53\n",
                                           "Frequency,1000000000\ndouble,28\nappear,54\n"};
    struct model base, new;
    model_init(&base);
    model_init(&new);
    add_runs(&base, base_runs, 5);
    add_runs(&new, new_runs, 5);
    struct compare_options opt = {COMPARE_NOISE, COMPARE_ALPHA, COMPARE_SEED, 500};
    struct comparison c;
    compare_build(&base, &new, &opt, &c);
    assert_int_equal(c.nrows, 3);
    assert_string_equal(c.rows[0].display, "vanish");
    assert_close(c.rows[0].ratio, 0, 0); /* new values 5 5 0 0 0: median 0 */
    assert_int_equal(c.rows[0].verdict, VERDICT_FASTER);
    assert_string_equal(c.rows[1].display, "double");
    assert_string_equal(c.rows[2].display, "appear"); /* baseline 9 0 0 0 0: median 0 */
    assert_true(isnan(c.rows[2].ratio));
    /* The means give its direction: 1.8 -> 52, all new values above all old ones. */
    assert_int_equal(c.rows[2].verdict, VERDICT_SLOWER);
    /* Only "double" has a positive, finite ratio for the geometric mean. */
    assert_int_equal(c.ngeomean, 1);
    assert_close(c.geomean, 2, 1e-12);
    compare_release(&c);
    model_release(&base);
    model_release(&new);
}

/* A side with more runs than the workbook's region x run matrix has columns for is said, with
   both sides' counts; nothing when every run has its column. */
static void matrix_note_only_past_its_columns(void **state)
{
    (void)state;
    struct comparison c;
    memset(&c, 0, sizeof c);
    char buf[256] = "untouched";
    c.nbase = COMPARE_MATRIX_RUNS;
    c.nnew = 3;
    assert_int_equal(compare_matrix_note(&c, buf, sizeof buf), 0);
    assert_string_equal(buf, "untouched");
    c.nnew = COMPARE_MATRIX_RUNS + 1;
    assert_int_equal(compare_matrix_note(&c, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "first 8000 runs of each side only (8000 baseline and 8001 new"));
    c.nbase = 9000;
    c.nnew = 1;
    assert_int_equal(compare_matrix_note(&c, buf, sizeof buf), 1);
    assert_non_null(strstr(buf, "(9000 baseline and 1 new runs"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rng_matches_reference_outputs),
        cmocka_unit_test(rng_below_is_uniform),
        cmocka_unit_test(rng_is_reproducible),
        cmocka_unit_test(median_of_values),
        cmocka_unit_test(mwu_exact_separated),
        cmocka_unit_test(mwu_exact_enumerated),
        cmocka_unit_test(mwu_normal_approximation),
        cmocka_unit_test(mwu_no_difference),
        cmocka_unit_test(bh_paper_example),
        cmocka_unit_test(bootstrap_matches_enumeration),
        cmocka_unit_test(bootstrap_edges),
        cmocka_unit_test(geomean_bootstrap_holds_one_only_without_a_change),
        cmocka_unit_test(geomean_bootstrap_edges),
        cmocka_unit_test(noise_parsing),
        cmocka_unit_test(build_finds_the_changed_region),
        cmocka_unit_test(build_noise_threshold_and_few_runs),
        cmocka_unit_test(build_orders_vanishing_regions_first),
        cmocka_unit_test(matrix_note_only_past_its_columns),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
