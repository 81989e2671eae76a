/*
 * test_hist.c - unit tests of format/hist.c: the log-linear buckets of summary mode.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

#include <math.h>

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

/* The double bounds are the integer ones, and the last bucket ends at 2^64. */
static void bounds_span_every_value(void **state)
{
    (void)state;
    for (unsigned b = 0; b < PROF_HIST_BUCKETS; b++)
        assert_true(prof_hist_bound(b) == (double)prof_hist_lower(b));
    assert_true(prof_hist_bound(PROF_HIST_BUCKETS) == ldexp(1.0, 64));
    assert_int_equal(prof_hist_bucket(UINT64_MAX), PROF_HIST_BUCKETS - 1);
    assert_true(prof_hist_bound(PROF_HIST_BUCKETS - 1) <= (double)UINT64_MAX);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(small_values_have_their_own_bucket),
        cmocka_unit_test(eight_buckets_per_octave),
        cmocka_unit_test(lower_bounds_agree_with_buckets),
        cmocka_unit_test(bucket_width_bounds_the_error),
        cmocka_unit_test(bounds_span_every_value),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
