/*
 * test_index.c - unit tests of index.c: regions found by their id bytes, --include and
 * --exclude applied to new regions, edges and thread keys made once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "model/index.h"
#include "model/model.h"

/* The same bytes give the same region, other bytes (a NUL inside too) another; a region is
   found only once made. */
static void regions_are_their_id_bytes(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    assert_int_equal(index_region_find(&m, "a", 1), SIZE_MAX);
    size_t a = index_region_get(&m, "a", 1);
    size_t a0 = index_region_get(&m, "a\0b", 3);
    assert_int_not_equal(a, a0);
    assert_int_equal(index_region_get(&m, "a", 1), a);
    assert_int_equal(index_region_find(&m, "a\0b", 3), a0);
    assert_int_equal(model_find(&m, "a", 1), a);
    /* past the first table size, every region is still found */
    char id[16];
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "r%d", i);
        index_region_get(&m, id, strlen(id));
    }
    assert_int_equal(m.nregions, 1002);
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "r%d", i);
        assert_int_equal(index_region_find(&m, id, strlen(id)), (size_t)i + 2);
    }
    model_release(&m);
}

/* A new region is excluded unless an --include glob matches it, or when an --exclude does. */
static void filters_mark_new_regions(void **state)
{
    (void)state;
    const char *const include[] = {"w*"}, *const exclude[] = {"*x"};
    struct model m;
    model_init(&m);
    m.include = include;
    m.ninclude = 1;
    m.exclude = exclude;
    m.nexclude = 1;
    size_t work = index_region_get(&m, "work", 4), wax = index_region_get(&m, "wax", 3);
    size_t load = index_region_get(&m, "load", 4);
    assert_false(m.regions[work].excluded);
    assert_true(m.regions[wax].excluded);
    assert_true(m.regions[load].excluded);
    model_release(&m);
}

/* An edge and a thread key are made on first sight and found after. */
static void edges_and_keys_are_made_once(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    struct edge *e = index_edge_get(&m, 1, 2);
    e->calls = 3;
    assert_int_equal(index_edge_get(&m, 2, 1)->calls, 0);
    assert_int_equal(index_edge_get(&m, 1, 2)->calls, 3);
    assert_int_equal(m.nedges, 2);
    assert_int_equal(index_key_get(&m, "main"), 0);
    assert_int_equal(index_key_get(&m, "worker"), 1);
    assert_int_equal(index_key_get(&m, "main"), 0);
    assert_int_equal(m.nkeys, 2);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(regions_are_their_id_bytes),
        cmocka_unit_test(filters_mark_new_regions),
        cmocka_unit_test(edges_and_keys_are_made_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
