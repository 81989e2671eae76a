/*
 * test_hist.c - unit tests of hist.c: log-linear buckets and summary statistics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* Values below 16 have a bucket each: exact. */
static void small_values_have_their_own_bucket(void **state)
{
    (void)state;
    for (uint64_t v = 0; v < 16; v++)
        assert_int_equal(prof_hist_bucket(v), v);
}

/* Eight buckets per power of two: 16..17 share one, 18 starts the next. */
static void eight_buckets_per_octave(void **state)
{
    (void)state;
    assert_int_equal(prof_hist_bucket(16), 16);
    assert_int_equal(prof_hist_bucket(17), 16);
    assert_int_equal(prof_hist_bucket(18), 17);
    assert_int_equal(prof_hist_bucket(31), 23);
    assert_int_equal(prof_hist_bucket(32), 24);
    assert_int_equal(prof_hist_bucket(1000), 8 * (9 - 2) + (1000 >> 6) - 8);
    assert_int_equal(prof_hist_bucket(UINT64_MAX), PROF_HIST_BUCKETS - 1);
}

/* Every bucket's lower bound falls in it, and the value just below falls in the one before. */
static void lower_bounds_agree_with_buckets(void **state)
{
    (void)state;
    for (unsigned b = 0; b < PROF_HIST_BUCKETS; b++) {
        uint64_t lo = prof_hist_lower(b);
        assert_int_equal(prof_hist_bucket(lo), b);
        if (b > 0)
            assert_int_equal(prof_hist_bucket(lo - 1), b - 1);
    }
}

/* A bucket is at most 1/8 of its lower bound wide, so the midpoint is within 6.25 %. */
static void bucket_width_bounds_the_error(void **state)
{
    (void)state;
    for (unsigned b = 16; b + 1 < PROF_HIST_BUCKETS; b++) {
        uint64_t lo = prof_hist_lower(b), hi = prof_hist_lower(b + 1);
        assert_true((hi - lo) * 8 <= lo);
    }
}

/* Statistics of a known set: calls, sums, extremes, squares, histogram. */
static void stats_of_known_values(void **state)
{
    (void)state;
    struct prof_stats *s = malloc(sizeof *s);
    prof_stats_reset(s);
    uint64_t v[] = {5, 100, 17, 100000};
    for (int i = 0; i < 4; i++)
        prof_stats_add(s, v[i], v[i] / 2, i != 1);
    assert_int_equal(s->calls, 4);
    assert_int_equal(s->ticks, 5 + 100 + 17 + 100000);
    assert_int_equal(s->self, 2 + 50 + 8 + 50000);
    assert_int_equal(s->min, 5);
    assert_int_equal(s->max, 100000);
    assert_int_equal(s->outer, 5 + 17 + 100000);
    assert_true(s->sumsq == 25.0 + 10000.0 + 289.0 + 1e10);
    uint64_t total = 0;
    for (unsigned b = 0; b < PROF_HIST_BUCKETS; b++)
        total += s->hist[b];
    assert_int_equal(total, 4);
    assert_int_equal(s->hist[prof_hist_bucket(100000)], 1);
    free(s);
}

/* The summary row has the columns of docs/FORMAT.md 1.4, histogram as bucket:count pairs. */
static void stats_row_format(void **state)
{
    (void)state;
    struct prof_stats *s = malloc(sizeof *s);
    prof_stats_reset(s);
    prof_stats_add(s, 3, 3, 1);
    prof_stats_add(s, 3, 1, 1);
    prof_stats_add(s, 20, 20, 0);
    struct prof_sbuf b = {0};
    prof_stats_format(&b, "a,b", 2, s);
    prof_sbuf_char(&b, 0);
    assert_string_equal(b.data, "\"a,b\",2,3,26,24,3,20,418,6,3:2;18:1");
    prof_sbuf_release(&b);
    free(s);
}

/* A region never completed reports a minimum of 0, not the sentinel. */
static void empty_stats_report_zero_minimum(void **state)
{
    (void)state;
    struct prof_stats *s = malloc(sizeof *s);
    prof_stats_reset(s);
    struct prof_sbuf b = {0};
    prof_stats_format(&b, "x", 1, s);
    prof_sbuf_char(&b, 0);
    assert_string_equal(b.data, "x,1,0,0,0,0,0,0,0,");
    prof_sbuf_release(&b);
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_values_have_their_own_bucket),
        cmocka_unit_test(eight_buckets_per_octave),
        cmocka_unit_test(lower_bounds_agree_with_buckets),
        cmocka_unit_test(bucket_width_bounds_the_error),
        cmocka_unit_test(stats_of_known_values),
        cmocka_unit_test(stats_row_format),
        cmocka_unit_test(empty_stats_report_zero_minimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
