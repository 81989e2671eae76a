/*
 * test_runcheck.c - unit tests of runcheck.c: a run measured on a busy machine (its threads
 * waited for a CPU) and an outlier run (busy time far from the median by a modified z-score),
 * on models read from run files in memory.
 */
#define _GNU_SOURCE /* fmemopen */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/model.h"
#include "model/runcheck.h"
#include "read/input.h"

/* Add one run: a top-level region of busy ns on one thread, whose ThreadCpu record says cpu
   and wait ns (wait < 0: the record without a wait). */
static void add_run(struct model *m, unsigned long busy, unsigned long cpu, long wait)
{
    char text[512];
    char waitf[32] = "";
    if (wait >= 0)
        snprintf(waitf, sizeof waitf, ",%ld", wait);
    snprintf(text, sizeof text,
             "Frequency,1000000000\nFormat,profreport-run,2\nMode,events\nThreads,1\n"
             "Thread,1,7,main,exited\nThreadCpu,1,%lu,%lu%s\n"
             "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\nwork,%lu,1,,0,%lu,0,0\n",
             cpu, 2 * cpu, waitf, busy, busy);
    FILE *f = fmemopen(text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

/* A run whose thread waited over 10 % of the time it wanted a CPU is a busy machine's; one
   that waited less, or over less than 1 ms, or whose run does not say, is not. */
static void waiting_for_a_cpu_flags_a_busy_machine(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    add_run(&m, 100, 9000000, 1000000); /* 10 %: not over */
    add_run(&m, 100, 9000000, 1100000); /* 10.9 % */
    add_run(&m, 100, 500000, 400000);   /* 44 %, but under 1 ms in all */
    add_run(&m, 100, 9000000, -1);      /* unknown */
    runcheck_apply(&m);
    assert_false(m.runs[0].busy_machine);
    assert_true(m.runs[1].busy_machine);
    assert_true(fabs(m.runs[1].wait_share - 1.1 / 10.1) < 1e-12);
    assert_false(m.runs[2].busy_machine);
    assert_false(m.runs[3].busy_machine);
    assert_true(isnan(m.runs[3].wait_share));
    assert_int_equal(runcheck_busy_runs(&m), 1);
    char buf[256];
    assert_string_equal(runcheck_text(&m, 1, buf, sizeof buf),
                        "busy machine: waited for a CPU 11 % of the time");
    assert_string_equal(runcheck_text(&m, 0, buf, sizeof buf), "");
    assert_string_equal(runcheck_busy_summary(&m, buf, sizeof buf),
                        "1 of 3 (run 2: waited for a CPU 11 %; see Runs)");
    model_release(&m);
}

/* The modified z-score: one run far from four alike is an outlier; when most runs are equal
   (MAD 0), a run 5 % off is one and a run 1 % off is not; two runs are too few to tell. */
static void an_outlier_stands_far_from_the_median(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    unsigned long busy[] = {1000, 1020, 980, 1010, 1500};
    for (size_t k = 0; k < 5; k++)
        add_run(&m, busy[k], 1, 0);
    runcheck_apply(&m);
    for (size_t k = 0; k < 4; k++)
        assert_false(m.runs[k].outlier);
    assert_true(m.runs[4].outlier);
    assert_true(fabs(m.runs[4].busy_ratio - 1500.0 / 1010) < 1e-12);
    model_release(&m);

    model_init(&m);
    unsigned long alike[] = {1000, 1000, 1000, 1010, 1060};
    for (size_t k = 0; k < 5; k++)
        add_run(&m, alike[k], 1, 0);
    runcheck_apply(&m);
    assert_false(m.runs[3].outlier);
    assert_true(m.runs[4].outlier);
    char buf[256];
    assert_string_equal(runcheck_outlier_summary(&m, buf, sizeof buf),
                        "1 of 5 (busy time far from the median run's: run 5: 1.06x the median; "
                        "see Runs)");
    model_release(&m);

    model_init(&m);
    add_run(&m, 1000, 1, 0);
    add_run(&m, 3000, 1, 0);
    runcheck_apply(&m);
    assert_false(m.runs[0].outlier || m.runs[1].outlier);
    assert_string_equal(runcheck_outlier_summary(&m, buf, sizeof buf),
                        "cannot tell from 2 complete runs (at least 3)");
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(waiting_for_a_cpu_flags_a_busy_machine),
        cmocka_unit_test(an_outlier_stands_far_from_the_median),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
