/*
 * test_flat.c - unit tests of flat.c: the terminal's flat profile and comparison summary,
 * printed into memory from models read from run files in memory. Expected lines are worked
 * out by hand from the runs below.
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

#include "model/compare.h"
#include "out/flat.h"
#include "model/model.h"
#include "read/input.h"

/* Read text as one run file into m. */
static void read_run(struct model *m, const char *text)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

/* What flat_print writes for m with --top top and --unit unit (caller frees). */
static char *flat_text(struct model *m, size_t top, const char *unit)
{
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    assert_non_null(out);
    struct report_info ri = {0};
    ri.unit = unit;
    ri.top = top;
    flat_print(out, m, &ri);
    fclose(out);
    return text;
}

/* 1 tick = 1 ns, one thread: main (100 ns, 40 of them its own) calls a twice (20 and 40). */
static const char two_regions[] = "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                                  "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                                  "a,20,1,main,1,20,0,0\n"
                                  "a,40,1,main,1,40,30,0\n"
                                  "main,100,1,,0,40,0,0\n";

/* Each region's line: share of the busy time, total and self, calls, then mean, median and
   p99 of one call (a's p99 lies 99 % of the way from 20 to 40), each time with its unit. */
static void profile_lines_hold_the_call_cost_figures(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, two_regions);
    char *text = flat_text(&m, 15, "auto");
    const char *want = "1 run, 1 thread, 3 events, 2 regions\n"
                       "\n"
                       "  total%       total        self       calls        mean      median"
                       "         p99  region\n"
                       "  100.00      100 ns     40.0 ns           1      100 ns      100 ns"
                       "      100 ns  main\n"
                       "   60.00     60.0 ns     60.0 ns           2     30.0 ns     30.0 ns"
                       "     39.8 ns  a\n";
    assert_string_equal(text, want);
    free(text);
    model_release(&m);
}

/* 1 tick = 1 ns: "slow" runs once for 1.092010972 s; "fast" runs 1000 times for 19 ns each
   inside it. */
static const char wide_range[] = "Frequency,1000000000\nFormat,profreport-run,2\nMode,summary\n"
                                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,"
                                 "Histogram\n"
                                 "slow,1,1,1092010972,1091991972,1092010972,1092010972,"
                                 "1192487956646384784,1092010972,\n"
                                 "fast,1,1000,19000,19000,19,19,361000,19000,\n";

/* A 19 ns call and a 1.09 s one on the same screen: each time in its own unit with three
   significant digits, never 0.000 ms or 1092010.972 us. */
static void times_far_apart_each_keep_three_digits(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, wide_range);
    char *text = flat_text(&m, 15, "auto");
    assert_non_null(strstr(text, "      1.09 s      1.09 s           1      1.09 s"));
    assert_non_null(strstr(text, "     19.0 us     19.0 us        1000     19.0 ns"));
    free(text);
    model_release(&m);
}

/* --top cuts the list and says how many regions the workbook has besides; --unit shows every
   time in that unit, with three significant digits. */
static void top_cuts_the_list_and_unit_rescales(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, two_regions);
    char *text = flat_text(&m, 1, "us");
    assert_non_null(strstr(text, "  100.00    0.100 us   0.0400 us           1    0.100 us"));
    assert_null(strstr(text, "  a\n"));
    assert_non_null(strstr(text, "  ... 1 more regions in the workbook\n"));
    free(text);
    model_release(&m);
}

/* A control character in a region id reaches the terminal escaped, never as itself. */
static void control_characters_are_escaped(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "\"x\x1b[2Jy\",10,1,,0,10,0,0\n");
    char *text = flat_text(&m, 15, "auto");
    assert_null(strchr(text, '\x1b'));
    assert_non_null(strstr(text, "  x\\x1b[2Jy\n"));
    free(text);
    model_release(&m);
}

/* A function its Function record marks inlined (FORMAT.md 1.2) has a star after its name, and
   a footnote under the list says what its figures mean; none when it is not listed. */
static void an_inlined_function_is_starred_and_explained(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                 "Function,main,a.c,1,/bin/app,0x10\nFunction,a,a.c,9,/bin/app,0x40,inlined\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,20,1,main,1,20,0,0\n"
                 "main,100,1,,0,80,0,0\n");
    char *text = flat_text(&m, 15, "auto");
    assert_non_null(strstr(text, "  main\n"));
    assert_non_null(strstr(text, "  a *\n  * inlined by the compiler: calls counted, time in the "
                                 "self time of the functions it was inlined into\n"));
    free(text);
    text = flat_text(&m, 1, "auto");
    assert_null(strchr(text, '*'));
    free(text);
    model_release(&m);
}

/* No region: the counts line alone. */
static void an_empty_model_prints_its_counts_only(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    char *text = flat_text(&m, 15, "auto");
    assert_string_equal(text, "0 runs, 0 threads, 0 events, 0 regions\n");
    free(text);
    model_release(&m);
}

/* A comparison without significant changes says so, with its rule, and lists the regions
   found on one side only. */
static void comparison_without_changes_lists_added_regions(void **state)
{
    (void)state;
    struct model base, now;
    model_init(&base);
    model_init(&now);
    read_run(&base, two_regions);
    read_run(&now, two_regions);
    read_run(&now, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                   "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                   "fresh,10,1,,0,10,0,0\n");
    struct compare_options o = {0.01, 0.05, 1, 200};
    struct comparison c;
    compare_build(&base, &now, &o, &c);
    char *text = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&text, &len);
    struct report_info ri = {0};
    ri.unit = "auto";
    ri.top = 15;
    flat_print_compare(out, &c, &ri);
    fclose(out);
    assert_non_null(strstr(text, "baseline: 1 run, new: 2 runs; 2 regions in both, 1 added, "
                                 "0 removed\n"));
    assert_non_null(strstr(text, "\nno region changed significantly\n(Benjamini-Hochberg "
                                 "adjusted p < 0.05, and the median total time per run moved "
                                 "by more than 1%)\n"));
    assert_non_null(strstr(text, "\nadded (1): fresh\n"));
    free(text);
    compare_release(&c);
    model_release(&base);
    model_release(&now);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(profile_lines_hold_the_call_cost_figures),
        cmocka_unit_test(times_far_apart_each_keep_three_digits),
        cmocka_unit_test(top_cuts_the_list_and_unit_rescales),
        cmocka_unit_test(control_characters_are_escaped),
        cmocka_unit_test(an_empty_model_prints_its_counts_only),
        cmocka_unit_test(an_inlined_function_is_starred_and_explained),
        cmocka_unit_test(comparison_without_changes_lists_added_regions),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
