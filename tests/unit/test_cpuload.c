/*
 * test_cpuload.c - unit tests of cpuload.c: how busy the machine is counts the tasks that stay
 * runnable, not one that ran for a moment.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "cpuload.h"

/* Counts a look gives, one per call, and the calls made. */
struct looks {
    int counts[4];
    int calls;
};

/* The next count. */
static int next_look(void *ctx)
{
    struct looks *l = ctx;
    assert_true(l->calls < 4);
    return l->counts[l->calls++];
}

/* A task seen once and gone at the next look does not count. */
static void a_passing_task_is_not_counted(void **state)
{
    (void)state;
    struct looks l = {{2, 1, 2, 2}, 0};
    assert_int_equal(prof_runnable_fewest(next_look, &l), 1);
    assert_int_equal(l.calls, 2); /* nothing below the caller alone: no third look */
}

/* Tasks that stay runnable count: the fewest of three looks. */
static void tasks_that_stay_count(void **state)
{
    (void)state;
    struct looks l = {{3, 2, 4, 1}, 0};
    assert_int_equal(prof_runnable_fewest(next_look, &l), 2);
    assert_int_equal(l.calls, 3);
}

/* The caller alone at the first look: one look is enough. */
static void an_idle_machine_is_seen_at_once(void **state)
{
    (void)state;
    struct looks l = {{1, 5, 5, 5}, 0};
    assert_int_equal(prof_runnable_fewest(next_look, &l), 1);
    assert_int_equal(l.calls, 1);
}

/* The real count: at least this process; the CPUs allowed: at least 1. */
static void the_kernel_counts_are_sensible(void **state)
{
    (void)state;
    assert_true(prof_runnable_now() >= 1);
    assert_true(prof_cpus_allowed() >= 1);
}

/* Run every test of cpuload.c. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_passing_task_is_not_counted),
        cmocka_unit_test(tasks_that_stay_count),
        cmocka_unit_test(an_idle_machine_is_seen_at_once),
        cmocka_unit_test(the_kernel_counts_are_sensible),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
