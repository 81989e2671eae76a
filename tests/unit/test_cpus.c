/*
 * test_cpus.c - unit tests of cpus.c: PROFREPORT_THREADS when it is a sensible number, else
 * the CPUs the process may run on.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sched.h>
#include <stdlib.h>

#include "base/cpus.h"

/* The CPUs this process may run on now. */
static int allowed(void)
{
    cpu_set_t set;
    assert_int_equal(sched_getaffinity(0, sizeof set, &set), 0);
    return CPU_COUNT(&set);
}

/* A whole number from 1 to 1024 is taken as it is. */
static void a_number_in_the_environment_is_used(void **state)
{
    (void)state;
    setenv(REP_THREADS_ENV, "1", 1);
    assert_int_equal(rep_threads(), 1);
    setenv(REP_THREADS_ENV, "3", 1);
    assert_int_equal(rep_threads(), 3);
    setenv(REP_THREADS_ENV, "1024", 1);
    assert_int_equal(rep_threads(), 1024);
    unsetenv(REP_THREADS_ENV);
}

/* Anything else (empty, zero, negative, too big, not a number) falls back to the CPUs. */
static void other_values_fall_back_to_the_cpus(void **state)
{
    (void)state;
    static const char *const bad[] = {"",   "0",  "-2", "1025",          "two",
                                      "2x", " 2", "+2", "99999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv(REP_THREADS_ENV, bad[i], 1);
        assert_int_equal(rep_threads(), allowed());
    }
    unsetenv(REP_THREADS_ENV);
    assert_int_equal(rep_threads(), allowed());
}

/* Confined to one CPU (taskset), the process counts one, whatever the machine has. */
static void the_affinity_mask_is_what_counts(void **state)
{
    (void)state;
    cpu_set_t old, one;
    assert_int_equal(sched_getaffinity(0, sizeof old, &old), 0);
    int first = 0;
    while (!CPU_ISSET(first, &old))
        first++;
    CPU_ZERO(&one);
    CPU_SET(first, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    unsetenv(REP_THREADS_ENV);
    assert_int_equal(rep_threads(), 1);
    assert_int_equal(sched_setaffinity(0, sizeof old, &old), 0);
}

/* Run every test of cpus.c. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_number_in_the_environment_is_used),
        cmocka_unit_test(other_values_fall_back_to_the_cpus),
        cmocka_unit_test(the_affinity_mask_is_what_counts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
