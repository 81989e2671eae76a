/*
 * test_memsum.c - unit tests of memsum.c: the terminal's memory lines, from models read from run
 * files in memory. Expected lines are worked out by hand from the rows below.
 */
#define _GNU_SOURCE /* fmemopen, open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "out/memsum.h"
#include "runtext.h"

/* What memsum_print writes for m (caller frees). */
static char *memsum_text(const struct model *m)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    memsum_print(out, m);
    fclose(out);
    return text;
}

/* Two runs: leaks add up over runs, a site counts once per kind, runtime blocks and region
   bytes are not leaks, and each kind found has its line in the section's order. */
static void one_line_per_kind_over_all_runs(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    runtext_read(&m,
                 RUNTEXT_HEAD RUNTEXT_MEM_HEAD "leak,1,,a.c:3,2,64,malloc,,,,make,\n"
                                               "leak,1,,b.c:9,1,10,malloc,,,,keep,\n"
                                               "runtime-reachable,1,,dl.c:4,1,320,malloc,,,,,\n"
                                               "double-free,1,,a.c:7,1,32,malloc,free,1,a.c:6,,\n"
                                               "region-bytes,1,,,9,999,,,,,,\n");
    runtext_read(&m, RUNTEXT_HEAD RUNTEXT_MEM_HEAD
                 "leak,1,,a.c:3,3,96,malloc,,,,make,\n"
                 "cross-thread-free,2,,c.c:1,2,16,malloc,free,1,c.c:2,,\n");
    char *text = memsum_text(&m);
    assert_string_equal(text,
                        "memory:   leaks: 6 blocks, 170 bytes at 2 sites\n"
                        "memory:   runtime, still reachable at exit: 1 block, 320 bytes at "
                        "1 site (the loader's and C/C++ libraries' own: not leaks)\n"
                        "memory:   double frees: 1 free, 32 bytes at 1 site (refused: the "
                        "program ran on)\n"
                        "memory:   cross-thread frees: 2 frees, 16 bytes at 1 site (legal)\n");
    free(text);
    model_release(&m);
}

/* Memory checks with nothing found say so; runs without them print nothing. */
static void nothing_found_and_no_checks(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    runtext_read(&m, RUNTEXT_HEAD);
    char *text = memsum_text(&m);
    assert_string_equal(text, "");
    free(text);
    runtext_read(&m, RUNTEXT_HEAD RUNTEXT_MEM_HEAD "region-bytes,1,,,9,999,,,,,,\n");
    text = memsum_text(&m);
    assert_string_equal(text, "memory:   no leaks and no bad frees\n");
    free(text);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(one_line_per_kind_over_all_runs),
        cmocka_unit_test(nothing_found_and_no_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
