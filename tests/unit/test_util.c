/*
 * test_util.c - unit tests of reporter/base/util.c's array helpers and string index.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* An array grown by xgrow_doubling one element at a time keeps them all (ASan sees any write
   past its room), and is reallocated only when its count is 0 or a power of two. */
static void doubling_holds_every_element(void **state)
{
    (void)state;
    uint32_t *a = NULL;
    size_t grown = 0;
    for (uint32_t n = 0; n < 5000; n++) {
        uint32_t *b = xgrow_doubling(a, n, sizeof *a);
        if (n & (n - 1))
            assert_ptr_equal(b, a); /* room left from the last doubling */
        else
            grown++;
        a = b;
        a[n] = n * 7;
    }
    assert_int_equal(grown, 14); /* 0, 1, 2, 4, ..., 4096 */
    for (uint32_t n = 0; n < 5000; n++)
        assert_int_equal(a[n], n * 7);
    free(a);
}

/* The index finds every string entered at its position, and nothing else, across the table's
   growth; an entry dropped (the last one) is gone and the others stay. */
static void str_index_finds_every_entry(void **state)
{
    (void)state;
    enum { N = 5000 };
    char **v = calloc(N, sizeof *v);
    struct str_index x = {0};
    assert_int_equal(str_index_find(&x, v, "thread 1"), SIZE_MAX);
    for (size_t i = 0; i < N; i++) {
        char buf[32];
        snprintf(buf, sizeof buf, "thread %zu", i);
        v[i] = strdup(buf);
        assert_int_equal(str_index_find(&x, v, buf), SIZE_MAX);
        str_index_add(&x, v);
    }
    for (size_t i = 0; i < N; i++)
        assert_int_equal(str_index_find(&x, v, v[i]), i);
    assert_int_equal(str_index_find(&x, v, "thread 5000"), SIZE_MAX);
    assert_int_equal(str_index_find(&x, v, ""), SIZE_MAX);
    /* Drop the last ones (a run read and then skipped): they are gone, the rest remain, and
       they can be entered again. */
    for (size_t i = N; i-- > N - 700;) {
        str_index_drop_last(&x, v);
        assert_int_equal(str_index_find(&x, v, v[i]), SIZE_MAX);
    }
    for (size_t i = 0; i < N - 700; i++)
        assert_int_equal(str_index_find(&x, v, v[i]), i);
    for (size_t i = N - 700; i < N; i++)
        str_index_add(&x, v);
    for (size_t i = 0; i < N; i++)
        assert_int_equal(str_index_find(&x, v, v[i]), i);
    for (size_t i = 0; i < N; i++)
        free(v[i]);
    free(v);
    str_index_release(&x);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(lower_bound_finds_the_first_place_not_below),
        cmocka_unit_test(grow_keeps_and_zeroes),
        cmocka_unit_test(doubling_holds_every_element),
        cmocka_unit_test(str_index_finds_every_entry),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
