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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(thread_record_text_is_repaired),
        cmocka_unit_test(warning_kind_is_repaired),
        cmocka_unit_test(thread_numbers_of_any_size_are_kept_apart),
        cmocka_unit_test(busy_time_of_a_killed_run_follows_threads_of_any_number),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
