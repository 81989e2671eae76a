/*
 * test_compact.c - unit tests of compact.c: a run read on its own and written as calling-
 * context summary rows (docs/FORMAT.md 1.4). Each test gives a run file's text and the whole
 * compact expected, worked out by hand: histogram buckets from FORMAT.md 1.4 (below 16 ticks
 * the value itself; 20 -> 18, 50 -> 28, 90 -> 35), self times and sums of squares by arithmetic.
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

#include "compact.h"
#include "read/runfile.h"

#define HEAD_EVENTS                                                                                \
    "Frequency,1000\nFormat,profreport-run,3\nMode,events\n"                                       \
    "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
#define HEAD_SUMMARY                                                                               \
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent\n"
/* A compact is written in the current version: its rows say every call was timed. */
#define OUT_SUMMARY                                                                                \
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"       \
    "Timed,Wall\n"
#define OUT_HEAD "Frequency,1000\nFormat,profreport-run,4\nMode,summary\n"

/* The compact of the run file text, as text (the caller frees it); truncated as the writer
   is told. */
static char *compact_of(const char *text, int truncated)
{
    FILE *in = fmemopen((void *)text, strlen(text), "r");
    assert_non_null(in);
    struct compact_run c;
    compact_run_init(&c);
    struct run_handler h;
    compact_run_handler(&c, &h);
    assert_int_equal(runfile_parse(in, "test", &h, NULL, NULL), RUNFILE_OK);
    fclose(in);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    assert_int_equal(compact_run_write(&c, f, truncated), PROF_OK);
    fclose(f);
    compact_run_release(&c);
    return out;
}

/* Check the compact of text against want. */
static void expect_compact(const char *text, int truncated, const char *want)
{
    char *got = compact_of(text, truncated);
    assert_string_equal(got, want);
    free(got);
}

static void loop_instances_become_one_row_with_their_histogram(void **state)
{
    (void)state;
    expect_compact(HEAD_EVENTS "step,10,1,main,1,10,1,0\n"
                               "step,20,1,main,1,20,12,0\n"
                               "main,50,1,,0,20,0,0\n",
                   0,
                   OUT_HEAD OUT_SUMMARY "main,1,1,50,20,50,50,2500,50,28:1,1,0,0,1,50\n"
                                        "step,1,2,30,30,10,20,500,30,10:1;18:1,2,1,0,2,30\n");
}

static void recursion_counts_outer_time_for_the_outermost_call_only(void **state)
{
    (void)state;
    expect_compact(HEAD_EVENTS "rec,5,1,rec,1,5,3,1\n"
                               "rec,12,1,,0,7,0,0\n",
                   0,
                   OUT_HEAD OUT_SUMMARY "rec,1,1,12,7,12,12,144,12,12:1,1,0,0,1,12\n"
                                        "rec,1,1,5,5,5,5,25,0,5:1,2,1,0,1,5\n");
}

static void paths_are_numbered_in_the_order_first_entered(void **state)
{
    (void)state;
    /* End order: y (entered at 5) ends before x (entered at 2); z is entered last; a second
       x > y instance merges into the first paths. */
    expect_compact(HEAD_EVENTS "y,1,1,x,2,1,5,0\n"
                               "x,4,1,main,1,3,2,0\n"
                               "z,2,1,main,1,2,8,0\n"
                               "y,3,1,x,2,3,12,0\n"
                               "x,6,1,main,1,3,11,0\n"
                               "main,20,1,,0,8,0,0\n",
                   0,
                   OUT_HEAD OUT_SUMMARY "main,1,1,20,8,20,20,400,20,18:1,1,0,0,1,20\n"
                                        "x,1,2,10,6,4,6,52,10,4:1;6:1,2,1,0,2,10\n"
                                        "y,1,2,4,4,1,3,10,4,1:1;3:1,3,2,0,2,4\n"
                                        "z,1,1,2,2,2,2,4,2,2:1,4,1,0,1,2\n");
}

static void threads_keep_their_rows_apart_in_thread_order(void **state)
{
    (void)state;
    expect_compact(HEAD_EVENTS "w,3,2,,0,3,1,0\n"
                               "w,4,1,,0,4,0,0\n",
                   0,
                   OUT_HEAD OUT_SUMMARY "w,1,1,4,4,4,4,16,4,4:1,1,0,0,1,4\n"
                                        "w,2,1,3,3,3,3,9,3,3:1,1,0,0,1,3\n");
}

static void an_instance_that_never_stopped_is_a_node_without_calls(void **state)
{
    (void)state;
    expect_compact(HEAD_EVENTS "k,2,1,outer,1,2,1,0\n"
                               "outer,,1,,0,,0,0\n",
                   0,
                   OUT_HEAD OUT_SUMMARY "outer,1,0,0,0,0,0,0,0,,1,0,0,0,0\n"
                                        "k,1,1,2,2,2,2,4,2,2:1,2,1,0,1,2\n");
}

/* A sampled summary run (format 4) keeps its Timing record, samples and timed calls. */
static void a_summary_run_is_rewritten_as_it_is(void **state)
{
    (void)state;
    const char *run = "Frequency,1000\nFormat,profreport-run,4\nMode,summary\nHost,h\n"
                      "Timing,sampled,perf-task-clock,250000,500.0,9.0\n"
                      "Threads,1\nThread,1,7,main,exited\n" OUT_SUMMARY
                      "main,1,1,90,10,90,90,8100,90,29:1,1,0,4,1,90\n"
                      "step,1,3,30,30,10,10,300,30,10:3,2,1,12,3,30\n"
                      "load,1,1,50,50,50,50,2500,50,28:1,3,1,20,1,50\n"
                      "step,1,2,0,0,0,0,0,0,,4,3,0,0,0\n";
    expect_compact(run, 0, run);
}

static void summary_section_rows_join_the_tables_paths(void **state)
{
    (void)state;
    /* Past PROFILER_MAX_EVENTS (FORMAT.md 1.6): main was open when listing stopped (Calls 0
       in the section), step ran twice in the table and three times after it. */
    expect_compact(HEAD_EVENTS "step,10,1,main,1,10,1,0\n"
                               "step,10,1,main,1,10,12,0\n"
                               "main,90,1,,0,40,0,0\n"
                               "Table,summary\n" HEAD_SUMMARY "main,1,0,0,0,0,0,0,0,,1,0\n"
                               "step,1,3,30,30,10,10,300,30,10:3,2,1\n"
                               "other,1,1,5,5,5,5,25,5,5:1,3,2\n",
                   0,
                   OUT_HEAD OUT_SUMMARY "main,1,1,90,40,90,90,8100,90,35:1,1,0,0,1,90\n"
                                        "step,1,5,50,50,10,10,500,50,10:5,2,1,0,5,50\n"
                                        "other,1,1,5,5,5,5,25,5,5:1,3,2,0,1,5\n");
}

static void seed_rows_are_top_level_calls_of_thread_1(void **state)
{
    (void)state;
    expect_compact("Frequency,1000\nA,5\nB,\nA,7\n", 0,
                   OUT_HEAD "Duration,7\n"
                            "Warning,unterminated,1,1,region never stopped: B\n" OUT_SUMMARY
                            "A,1,2,12,12,5,7,74,12,5:1;7:1,1,0,0,2,12\n"
                            "B,1,0,0,0,0,0,0,0,,2,0,0,0,0\n");
}

static void a_run_cut_short_is_marked_incomplete(void **state)
{
    (void)state;
    expect_compact("Frequency,1000\nFormat,profreport-run,3\nMode,events\nComplete,yes\n"
                   "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n",
                   1, OUT_HEAD "Complete,no\n" OUT_SUMMARY);
}

static void memory_rows_are_kept(void **state)
{
    (void)state;
    const char *mem = "Table,memory\n"
                      "Kind,Thread,Region,Site,Count,Bytes,AllocKind,FreeKind,OtherThread,"
                      "OtherSite,Function,Stack\n"
                      "leak,1,load,app.c:42,3,300,malloc,,,,,\n"
                      "double-free,1,,app+0x1a,1,64,new,delete,2,app+0x19,f,\n"
                      "region-bytes,2,,,5,160,,,,,,\n";
    char *in = NULL, *want = NULL;
    assert_true(asprintf(&in, HEAD_EVENTS "w,4,1,,0,4,0,0\n%s", mem) > 0);
    assert_true(asprintf(&want, OUT_HEAD OUT_SUMMARY "w,1,1,4,4,4,4,16,4,4:1,1,0,0,1,4\n%s", mem) >
                0);
    expect_compact(in, 0, want);
    free(in);
    free(want);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(loop_instances_become_one_row_with_their_histogram),
        cmocka_unit_test(recursion_counts_outer_time_for_the_outermost_call_only),
        cmocka_unit_test(paths_are_numbered_in_the_order_first_entered),
        cmocka_unit_test(threads_keep_their_rows_apart_in_thread_order),
        cmocka_unit_test(an_instance_that_never_stopped_is_a_node_without_calls),
        cmocka_unit_test(a_summary_run_is_rewritten_as_it_is),
        cmocka_unit_test(summary_section_rows_join_the_tables_paths),
        cmocka_unit_test(seed_rows_are_top_level_calls_of_thread_1),
        cmocka_unit_test(a_run_cut_short_is_marked_incomplete),
        cmocka_unit_test(memory_rows_are_kept),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
