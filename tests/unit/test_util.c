/*
 * test_util.c - unit tests of reporter/base/util.c's array helpers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>

#include "base/util.h"

/* The lower bound is the first place not below the key: a match, a gap, either end. */
static void lower_bound_finds_the_first_place_not_below(void **state)
{
    (void)state;
    static const uint32_t a[] = {1, 3, 3, 7, 40};
    assert_int_equal(u32_lower_bound(a, 5, 0), 0);
    assert_int_equal(u32_lower_bound(a, 5, 1), 0);
    assert_int_equal(u32_lower_bound(a, 5, 3), 1);
    assert_int_equal(u32_lower_bound(a, 5, 4), 3);
    assert_int_equal(u32_lower_bound(a, 5, 40), 4);
    assert_int_equal(u32_lower_bound(a, 5, 41), 5);
    assert_int_equal(u32_lower_bound(a, 0, 7), 0);
}

/* Growing keeps the elements and zeroes the new ones, so index i fits. */
static void grow_keeps_and_zeroes(void **state)
{
    (void)state;
    size_t cap = 0;
    uint32_t *a = xgrow_zeroed(NULL, &cap, 0, sizeof *a);
    assert_true(cap >= 1);
    a[0] = 9;
    a = xgrow_zeroed(a, &cap, 1000, sizeof *a);
    assert_true(cap > 1000);
    assert_int_equal(a[0], 9);
    for (size_t i = 1; i < cap; i++)
        assert_int_equal(a[i], 0);
    free(a);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lower_bound_finds_the_first_place_not_below),
        cmocka_unit_test(grow_keeps_and_zeroes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
