/*
 * test_model.c - unit tests of model.c: what it keeps of a run file's metadata and threads.
 * Run files are read from memory.
 */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "model.h"
#include "util.h"

/* Read text as one run file into m. */
static void read_run(struct model *m, const char *text)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(model_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

/* Bytes that are not UTF-8 in a Thread record's tid, name and state reach the workbook as
   U+FFFD, never as they are (libxlsxwriter would write them into the XML, which Excel refuses). */
static void thread_record_text_is_repaired(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Thread,1,12\xff"
                 "3,wo\xfek,ex\xc3ited\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,5,1,,0,5,0,0\n");
    assert_int_equal(m.nthreads, 1);
    assert_string_equal(m.threads[0].tid, "12\xef\xbf\xbd"
                                          "3");
    assert_string_equal(m.threads[0].name, "wo\xef\xbf\xbdk");
    assert_string_equal(m.threads[0].state, "ex\xef\xbf\xbdited");
    model_release(&m);
}

/* A Warning record's kind is text from the file too: repaired like its message. */
static void warning_kind_is_repaired(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Warning,odd\xff,1,2,bad \xfe text\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n");
    assert_int_equal(m.nwarnings, 1);
    assert_string_equal(m.warnings[0].kind, "odd\xef\xbf\xbd");
    assert_string_equal(m.warnings[0].message, "thread 1: bad \xef\xbf\xbd text");
    model_release(&m);
}

/* Thread numbers are keys, not sizes: a row of thread 4000000000 makes one thread (it made the
   model ask for 32 GiB and the command stop), and numbers that share a hash slot stay apart. */
static void thread_numbers_of_any_size_are_kept_apart(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,5,4000000000,,0,5,0,0\n"
                 "a,5,1,,0,5,0,0\n"
                 "a,5,17,,0,5,0,0\n"
                 "a,5,33,,0,5,0,0\n"
                 "a,5,1,,0,5,0,0\n"
                 "a,5,4294967295,,0,5,0,0\n");
    static const unsigned number[] = {4000000000u, 1, 17, 33, 4294967295u};
    static const uint64_t events[] = {1, 2, 1, 1, 1};
    assert_int_equal(m.nthreads, 5);
    assert_int_equal(m.runs[0].threads, 5);
    for (size_t i = 0; i < 5; i++) {
        assert_int_equal(m.threads[i].number, number[i]);
        assert_int_equal(m.threads[i].events, events[i]);
    }
    model_release(&m);
}

/* Busy time (the base of Total %) is kept per thread of the run, whatever the thread's number:
   the time seen inside an outer region that never stopped counts for its own thread. */
static void busy_time_of_a_killed_run_follows_threads_of_any_number(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "b,30,4000000000,a,1,30,1,0\n"
                 "c,7,5,,0,7,0,0\n"
                 "b,20,4000000000,a,1,20,40,0\n"
                 "a,,4000000000,,0,,0,0\n");
    assert_int_equal(m.nthreads, 2);
    assert_int_equal(m.threads[0].number, 4000000000u);
    assert_true(m.threads[0].busy_ns == 50e6); /* 50 ticks at 1000 per second */
    assert_int_equal(m.threads[1].number, 5);
    assert_true(m.threads[1].busy_ns == 7e6);
    model_release(&m);
}

/* The child of parent named s, or CCT_NONE. */
static uint32_t child_named(const struct cct *t, uint32_t parent, const char *s)
{
    for (uint32_t c = t->nodes[parent].child; c != CCT_NONE; c = t->nodes[c].sibling)
        if (strcmp(t->names[t->nodes[c].name], s) == 0)
            return c;
    return CCT_NONE;
}

/* A model keeps no calling-context tree unless an output asked for one before reading. */
static void call_paths_are_kept_only_when_asked(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "a,5,1,,0,5,0,0\n");
    assert_null(model_paths(&m));
    model_release(&m);
}

/* The model's tree merges every thread and run by path: rows arrive in end order, a row at
   depth d adopting the subtrees read at depth d + 1; a summary row is a top-level path. */
static void call_paths_merge_threads_and_runs(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    model_keep_paths(&m);
    /* 1 tick = 1 ns, each thread's rows together (as the collector writes them). Thread 1:
       main(10) > {b(2), b(3)}; thread 2: main(4) > b(1). */
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\n"
                 "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                 "b,2,1,main,1,2,1,0\n"
                 "b,3,1,main,1,3,4,0\n"
                 "main,10,1,,0,5,0,0\n"
                 "b,1,2,main,1,1,1,0\n"
                 "main,4,2,,0,3,0,0\n");
    read_run(&m, "Frequency,1000000000\nFormat,profreport-run,1\nMode,summary\n"
                 "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram\n"
                 "s,1,4,40,30,10,10,400,40,\n");
    const struct cct *t = model_paths(&m);
    assert_non_null(t);
    uint32_t main_ = child_named(t, t->root, "main");
    assert_int_not_equal(main_, CCT_NONE);
    assert_int_equal(t->nodes[main_].calls, 2);
    assert_true(t->nodes[main_].total_ns == 14 && t->nodes[main_].self_ns == 8);
    uint32_t b = child_named(t, main_, "b");
    assert_int_not_equal(b, CCT_NONE);
    assert_int_equal(t->nodes[b].calls, 3);
    assert_true(t->nodes[b].total_ns == 6 && t->nodes[b].self_ns == 6);
    assert_int_equal(child_named(t, t->root, "b"), CCT_NONE);
    uint32_t s = child_named(t, t->root, "s");
    assert_int_not_equal(s, CCT_NONE);
    assert_int_equal(t->nodes[s].calls, 4);
    assert_true(t->nodes[s].total_ns == 40 && t->nodes[s].self_ns == 30);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_record_text_is_repaired),
        cmocka_unit_test(call_paths_are_kept_only_when_asked),
        cmocka_unit_test(call_paths_merge_threads_and_runs),
        cmocka_unit_test(warning_kind_is_repaired),
        cmocka_unit_test(thread_numbers_of_any_size_are_kept_apart),
        cmocka_unit_test(busy_time_of_a_killed_run_follows_threads_of_any_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
