/*
 * test_leaks.c - unit tests of leaks.c: memory findings added up by site and stack over the
 * runs, in the order the Memory sheet shows them. Expected rows are worked out by hand.
 */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/leaks.h"
#include "runtext.h"

/* A site and stack's leaks add up over runs (a run counted once however many rows it has);
   the same site with another stack is another row; other kinds are left out; the heaviest
   in bytes comes first, equal bytes go by blocks, then by site. */
static void leaks_add_up_by_site_and_stack(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    runtext_read(&m,
                 RUNTEXT_HEAD RUNTEXT_MEM_HEAD "leak,1,,a.c:3,2,64,malloc,,,,make,s1\n"
                                               "leak,1,,a.c:3,1,32,malloc,,,,make,s1\n"
                                               "leak,1,,a.c:3,1,8,malloc,,,,make,s2\n"
                                               "leak,1,,b.c:9,4,10,malloc,,,,keep,\n"
                                               "runtime-reachable,1,,dl.c:4,1,320,malloc,,,,,\n");
    runtext_read(&m, RUNTEXT_HEAD RUNTEXT_MEM_HEAD "leak,1,,a.c:3,3,96,malloc,,,,other,s1\n"
                                                   "leak,1,,c.c:1,1,10,malloc,,,,tiny,\n");
    size_t n;
    struct leak_site *v = leak_sites(&m, "leak", &n);
    assert_int_equal(n, 4);
    /* a.c:3 s1: 64 + 32 + 96 bytes, 2 + 1 + 3 blocks, in 2 runs; its first row's function */
    assert_string_equal(v[0].site, "a.c:3");
    assert_string_equal(v[0].stack, "s1");
    assert_string_equal(v[0].function, "make");
    assert_int_equal(v[0].bytes, 192);
    assert_int_equal(v[0].blocks, 6);
    assert_int_equal(v[0].runs, 2);
    /* 10 bytes each: b.c:9 has more blocks than c.c:1 */
    assert_string_equal(v[1].site, "b.c:9");
    assert_int_equal(v[1].blocks, 4);
    assert_int_equal(v[1].runs, 1);
    assert_string_equal(v[2].site, "c.c:1");
    assert_string_equal(v[3].site, "a.c:3");
    assert_string_equal(v[3].stack, "s2");
    assert_int_equal(v[3].bytes, 8);
    free(v);
    v = leak_sites(&m, "runtime-reachable", &n);
    assert_int_equal(n, 1);
    assert_int_equal(v[0].bytes, 320);
    free(v);
    v = leak_sites(&m, "double-free", &n);
    assert_int_equal(n, 0);
    free(v);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(leaks_add_up_by_site_and_stack),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
