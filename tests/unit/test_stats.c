/*
 * test_stats.c - unit tests of stats.c: exact and histogram quantiles, moments, and the spread
 * of per-run values. Expected values are worked out by hand or from published t tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>

#include "model/stats.h"
#include "base/util.h"

#define assert_close(a, b, tol) assert_true(fabs((a) - (b)) <= (tol))

/* Quantiles of a few values interpolate like Excel's PERCENTILE.INC. */
static void exact_quantiles_interpolate(void **state)
{
    (void)state;
    struct dist d;
    dist_init(&d);
    double v[] = {4, 1, 3, 2};
    for (int i = 0; i < 4; i++)
        dist_add(&d, v[i]);
    assert_false(dist_approximate(&d));
    assert_close(dist_quantile(&d, 0.5), 2.5, 1e-12);
    assert_close(dist_quantile(&d, 0.9), 3.7, 1e-12); /* rank 2.7: 3 + 0.7 */
    assert_close(dist_quantile(&d, 0.99), 3.97, 1e-12);
    assert_close(dist_quantile(&d, 0), 1, 0);
    assert_close(dist_quantile(&d, 1), 4, 0);
    assert_close(dist_mean(&d), 2.5, 1e-12);
    assert_close(dist_stddev(&d), sqrt(5.0 / 3.0), 1e-12);
    assert_close(d.min, 1, 0);
    assert_close(d.max, 4, 0);
    dist_release(&d);
}

/* A quantile reads the dist without changing it: the values stay in the order added until
   dist_finish puts them in order, and the quantiles are the same before and after. */
static void quantiles_leave_the_dist_as_it_is_until_finished(void **state)
{
    (void)state;
    struct dist d;
    dist_init(&d);
    double v[] = {4, 1, 3, 2};
    for (int i = 0; i < 4; i++)
        dist_add(&d, v[i]);
    assert_close(dist_quantile(&d, 0.5), 2.5, 1e-12);
    for (int i = 0; i < 4; i++)
        assert_close(d.exact[i], v[i], 0);
    assert_false(d.sorted);
    dist_finish(&d);
    assert_true(d.sorted);
    for (int i = 0; i < 4; i++)
        assert_close(d.exact[i], i + 1, 0);
    assert_close(dist_quantile(&d, 0.5), 2.5, 1e-12);
    assert_close(dist_quantile(&d, 0.9), 3.7, 1e-12);
    dist_add(&d, 0); /* a value added after: out of order again, and still read right */
    assert_false(d.sorted);
    assert_close(dist_quantile(&d, 0.5), 2, 1e-12);
    dist_release(&d);
}

/* One value: its own quantiles; no standard deviation. */
static void single_value(void **state)
{
    (void)state;
    struct dist d;
    dist_init(&d);
    dist_add(&d, 7.5);
    assert_close(dist_quantile(&d, 0.5), 7.5, 0);
    assert_true(isnan(dist_stddev(&d)));
    dist_release(&d);
    dist_init(&d);
    assert_true(isnan(dist_mean(&d)));
    assert_true(isnan(dist_quantile(&d, 0.5)));
    dist_release(&d);
}

/* Past the exact limit quantiles come from the histogram, within its documented 1.6 %. */
static void histogram_quantiles_are_within_bound(void **state)
{
    (void)state;
    struct dist d;
    dist_init(&d);
    /* 1..100000 ns in a scrambled order. */
    for (uint64_t i = 0; i < 100000; i++)
        dist_add(&d, (double)((i * 7919) % 100000 + 1));
    assert_true(dist_approximate(&d));
    assert_int_equal(d.n, 100000);
    double want[] = {50000.5, 90000.1, 99000.01};
    double q[] = {0.5, 0.9, 0.99};
    for (int i = 0; i < 3; i++)
        assert_true(fabs(dist_quantile(&d, q[i]) - want[i]) <= want[i] / 64);
    assert_close(dist_mean(&d), 50000.5, 1e-6);
    /* Sample standard deviation of 1..N is sqrt(N (N + 1) / 12). */
    assert_close(dist_stddev(&d), sqrt(100000.0 * 100001.0 / 12.0), 1e-3);
    dist_release(&d);
}

/* Costs below a nanosecond keep their resolution in the histogram. */
static void small_costs_in_histogram(void **state)
{
    (void)state;
    struct dist d;
    dist_init(&d);
    for (int i = 0; i < 10000; i++)
        dist_add(&d, 2.5);
    assert_true(dist_approximate(&d));
    assert_close(dist_quantile(&d, 0.5), 2.5, 2.5 / 64);
    dist_release(&d);
}

/* Moments of a summary row combine with individual calls. */
static void moments_combine(void **state)
{
    (void)state;
    struct dist d;
    dist_init(&d);
    dist_add(&d, 10);
    dist_add(&d, 20);
    /* 3 calls of 30, 40, 50: sum 120, sum of squares 5000. */
    dist_add_moments(&d, 3, 120, 5000, 30, 50);
    assert_int_equal(d.n, 5);
    assert_close(dist_mean(&d), 30, 1e-12);
    assert_close(dist_stddev(&d), sqrt(250.0), 1e-9); /* 10..50: squares of deviations 1000/4 */
    assert_close(d.min, 10, 0);
    assert_close(d.max, 50, 0);
    dist_release(&d);
}

/* Bins from a summary histogram give approximate quantiles. */
static void bins_give_quantiles(void **state)
{
    (void)state;
    struct dist d;
    dist_init(&d);
    dist_add_moments(&d, 100, 100 * 1000.0, 100 * 1e6, 900, 1100);
    dist_add_bin(&d, 900, 1100, 100);
    assert_true(dist_approximate(&d));
    assert_close(dist_quantile(&d, 0.5), 1000, 1000.0 / 32);
    dist_release(&d);
}

/* Merging two distributions equals adding all values to one. */
static void merge_equals_adding(void **state)
{
    (void)state;
    struct dist a, b, all;
    dist_init(&a);
    dist_init(&b);
    dist_init(&all);
    for (int i = 1; i <= 3000; i++) {
        dist_add(i % 2 ? &a : &b, i);
        dist_add(&all, i);
    }
    dist_merge(&a, &b);
    assert_int_equal(a.n, all.n);
    assert_close(dist_mean(&a), dist_mean(&all), 1e-9);
    assert_close(dist_stddev(&a), dist_stddev(&all), 1e-6);
    assert_close(dist_quantile(&a, 0.5), dist_quantile(&all, 0.5), 1e-9);
    dist_release(&a);
    dist_release(&b);
    dist_release(&all);
}

/* Student's t critical values match published tables. */
static void student_t_matches_tables(void **state)
{
    (void)state;
    assert_close(student_t975(1), 12.7062, 1e-4);
    assert_close(student_t975(10), 2.2281, 1e-4);
    assert_close(student_t975(30), 2.0423, 1e-4);
    assert_close(student_t975(40), 2.0211, 2e-4);
    assert_close(student_t975(60), 2.0003, 2e-4);
    assert_close(student_t975(120), 1.9799, 2e-4);
    assert_close(student_t975(100000), 1.9600, 2e-4);
    assert_true(isnan(student_t975(0)));
}

/* The spread of per-run values: mean, sample sd, CV, 95 % CI half-width. */
static void spread_of_runs(void **state)
{
    (void)state;
    double v[] = {10, 12, 14};
    struct spread s = spread_of(v, 3);
    assert_int_equal(s.n, 3);
    assert_close(s.mean, 12, 1e-12);
    assert_close(s.stddev, 2, 1e-12);
    assert_close(s.cv, 2.0 / 12.0, 1e-12);
    assert_close(s.ci95, 4.3027 * 2 / sqrt(3), 1e-3);
    assert_close(s.min, 10, 0);
    assert_close(s.max, 14, 0);
    struct spread one = spread_of(v, 1);
    assert_close(one.mean, 10, 0);
    assert_true(isnan(one.stddev) && isnan(one.ci95) && isnan(one.cv));
    struct spread none = spread_of(v, 0);
    assert_true(isnan(none.mean));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(exact_quantiles_interpolate),
        cmocka_unit_test(quantiles_leave_the_dist_as_it_is_until_finished),
        cmocka_unit_test(single_value),
        cmocka_unit_test(histogram_quantiles_are_within_bound),
        cmocka_unit_test(small_costs_in_histogram),
        cmocka_unit_test(moments_combine),
        cmocka_unit_test(bins_give_quantiles),
        cmocka_unit_test(merge_equals_adding),
        cmocka_unit_test(student_t_matches_tables),
        cmocka_unit_test(spread_of_runs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
