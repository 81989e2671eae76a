/*
 * test_regionstats.c - unit tests of collector/regionstats.c: summary mode's statistics.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "regionstats.h"

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
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stats_of_known_values),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
