/*
 * test_status.c - unit tests of status.c: a failure stops profiling, moves the generation and
 * warns once until the next run begins; dropped events count on their own thread only; children
 * made without fork's handlers are told apart.
 */
#define _GNU_SOURCE /* vfork */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "status.h"

extern pid_t _Fork(void);

/* Run f with stderr going to a file; return what it wrote (the caller frees). */
static char *stderr_of(void (*f)(void))
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    int saved = dup(2);
    dup2(fileno(tmp), 2);
    f();
    dup2(saved, 2);
    close(saved);
    fseek(tmp, 0, SEEK_END); /* written through the descriptor: the stream's size is there */
    long n = ftell(tmp);
    rewind(tmp);
    char *text = calloc(1, (size_t)n + 1);
    assert_int_equal(fread(text, 1, (size_t)n, tmp), (size_t)n);
    fclose(tmp);
    return text;
}

static void fail_twice(void)
{
    prof_fail("cannot write", "runs/a.part", ENOSPC);
    prof_fail("cannot create", NULL, ENOMEM);
}

static void fail_once_more(void) { prof_fail("cannot create", NULL, ENOMEM); }

static void a_failure_stops_profiling_and_is_warned_about_once(void **state)
{
    (void)state;
    unsigned gen = prof_gen;
    assert_false(prof_failed());
    assert_false(prof_stopped());
    char *text = stderr_of(fail_twice);
    assert_string_equal(text, "profreport: cannot write 'runs/a.part': No space left on device; "
                              "profiling is off for the rest of this run\n");
    free(text);
    assert_true(prof_failed());
    assert_true(prof_stopped());
    assert_int_equal(prof_gen, gen + 2); /* every failure sends recorders to the slow path */

    prof_status_restart(); /* a new run: clean, and the next failure is warned about again */
    assert_false(prof_failed());
    assert_false(prof_stopped());
    text = stderr_of(fail_once_more);
    assert_string_equal(text, "profreport: cannot create: Cannot allocate memory; profiling is "
                              "off for the rest of this run\n");
    free(text);
    prof_status_restart();
}

static void finishing_stops_without_a_failure(void **state)
{
    (void)state;
    prof_stop_all();
    assert_true(prof_stopped());
    assert_false(prof_failed());
    prof_status_restart();
}

static void *drop_three(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++)
        prof_dropped_event();
    return (void *)(uintptr_t)*prof_dropped_counter();
}

static void dropped_events_count_on_their_own_thread(void **state)
{
    (void)state;
    uint64_t before = *prof_dropped_counter();
    prof_dropped_event();
    pthread_t th;
    void *other;
    assert_int_equal(pthread_create(&th, NULL, drop_three, NULL), 0);
    assert_int_equal(pthread_join(th, &other), 0);
    assert_int_equal((uintptr_t)other, 3);
    assert_int_equal(*prof_dropped_counter(), before + 1);
}

static void busy_and_quiet_marks_nest(void **state)
{
    (void)state;
    prof_busy_begin();
    prof_busy_begin();
    prof_mem_quiet_begin();
    assert_int_equal(prof_busy, 2);
    assert_int_equal(prof_mem_quiet, 1);
    prof_mem_quiet_end();
    prof_busy_end();
    prof_busy_end();
    assert_int_equal(prof_busy, 0);
    assert_int_equal(prof_mem_quiet, 0);
}

/* Calls made back in a child found late. */
static int new_process_calls;
static void count_new_process(void) { new_process_calls++; }

/* The process the state belongs to: the same one; a child of _Fork (no fork handlers) found
   once, handled once; a vfork child, which shares the parent's memory, changes nothing. */
static void children_without_fork_handlers_are_told_apart(void **state)
{
    (void)state;
    prof_process_setup(count_new_process);
    assert_int_equal(prof_process_check(), PROF_PROCESS_SAME);
    pid_t pid = _Fork();
    if (pid == 0) {
        int first = prof_process_check(), second = prof_process_check();
        _exit(first == PROF_PROCESS_FORKED && second == PROF_PROCESS_SAME && new_process_calls == 1
                  ? 0
                  : 1);
    }
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);

#ifndef __SANITIZE_THREAD__ /* ThreadSanitizer makes vfork a fork */
    volatile int seen = -1;
    pid = vfork();
    if (pid == 0) {
        seen = prof_process_check();
        _exit(0);
    }
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_int_equal(seen, PROF_PROCESS_SHARED);
#endif
    assert_int_equal(new_process_calls, 0);
    assert_int_equal(prof_process_check(), PROF_PROCESS_SAME);
}

/* secure_getenv: an ordinary process reads PROFILER_ variables. */
static void an_ordinary_process_reads_its_environment(void **state)
{
    (void)state;
    assert_int_equal(prof_secure(), 0);
    setenv("PROFILER_TEST_VALUE", "yes", 1);
    assert_string_equal(prof_getenv("PROFILER_TEST_VALUE"), "yes");
    unsetenv("PROFILER_TEST_VALUE");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_failure_stops_profiling_and_is_warned_about_once),
        cmocka_unit_test(finishing_stops_without_a_failure),
        cmocka_unit_test(dropped_events_count_on_their_own_thread),
        cmocka_unit_test(busy_and_quiet_marks_nest),
        cmocka_unit_test(children_without_fork_handlers_are_told_apart),
        cmocka_unit_test(an_ordinary_process_reads_its_environment),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
