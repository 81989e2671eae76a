/*
 * test_wallbound.c - unit tests of wallbound.c: the 95 % bound of a region's Wall in sampled
 * runs, on hand-made run files read from memory (1 tick = 1 ns, a sample per 1000 ns).
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
#include "model/wallbound.h"
#include "read/input.h"
#include "read/runfile.h"

#define HEAD                                                                                       \
    "Frequency,1000000000\nFormat,profreport-run,4\nMode,summary\n"                                \
    "Timing,sampled,perf-task-clock,1000,200,20\n"
#define ROWS                                                                                       \
    "Region,Thread,Calls,Ticks,Self,Min,Max,SumSquares,Outer,Histogram,Node,Parent,Samples,"       \
    "Timed,Wall\n"

static void read_run(struct model *m, const char *text)
{
    FILE *f = fmemopen((void *)(uintptr_t)text, strlen(text), "r");
    assert_non_null(f);
    assert_int_equal(input_add_run(m, f, "run.csv", 0), RUNFILE_OK);
    fclose(f);
}

/* Region s's Call cost figures. */
static struct cost_row cost_of(const struct model *m, const char *s)
{
    struct cost_row c;
    for (size_t r = 0; r < m->nregions; r++)
        if (strcmp(m->regions[r].name, s) == 0) {
            model_cost_row(m, r, model_busy(m), &c);
            return c;
        }
    fail_msg("no region %s", s);
    return c;
}

static void near(double got, double want)
{
    if (!(fabs(got - want) <= 1e-9 * fabs(want) + 1e-6))
        fail_msg("got %.9g, want %.9g", got, want);
}

/* One thread whose hooks cost 10 ns a call, measured by 25 samples: a Wall loses 10 ns for
   each call made inside its calls (its descendants' Calls), and its bound is 1.96 x that over
   sqrt(25). A context of short calls (tiny: not every call timed) has no Wall, and one with no
   calls inside its own loses nothing and has a bound of 0. */
static const char one_thread[] =
    HEAD "Thread,1,10,main,exited\nThreadCpu,1,130000,130000,,130,40,0,10000,0,0,0,25\n" ROWS
         "main,1,1,90000,20000,90000,90000,8.1e9,90000,,1,0,20,1,90000\n"
         "caller,1,10,60000,20000,6000,6000,3.6e8,60000,,2,1,20,10,60000\n"
         "tiny,1,1000,40000,40000,40,40,1.6e6,40000,,3,2,40,16,640\n"
         "leaf,1,5,10000,10000,1000,1000,5e6,10000,,4,1,10,5,5000\n";

static void the_hooks_of_the_calls_inside_bound_the_wall(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, one_thread);
    struct cost_row c = cost_of(&m, "main");
    near(c.wall, 90000);
    near(c.wall_pm, 1.96 * (10 + 1000 + 5) * 10 / 5);
    c = cost_of(&m, "caller");
    near(c.wall_pm, 1.96 * 1000 * 10 / 5);
    c = cost_of(&m, "leaf");
    near(c.wall, 5000);
    assert_true(c.wall_pm == 0);
    c = cost_of(&m, "tiny");
    assert_true(isnan(c.wall) && isnan(c.wall_pm));
    model_release(&m);
}

/* step on two paths of one thread: one hook-cost estimate serves both, so their parts (1000
   and 3000 ns) add before squaring: 1.96 x 4000 / 5, not 1.96 x sqrt(1000^2 + 3000^2) / 5. */
static const char two_paths[] =
    HEAD "Thread,1,10,main,exited\nThreadCpu,1,130000,130000,,130,40,0,10000,0,0,0,25\n" ROWS
         "main,1,1,90000,0,90000,90000,8.1e9,90000,,1,0,0,1,90000\n"
         "a,1,1,30000,0,30000,30000,9e8,30000,,2,1,0,1,30000\n"
         "step,1,1,30000,0,30000,30000,9e8,30000,,3,2,0,1,29000\n"
         "x,1,100,30000,30000,300,300,9e6,30000,,4,3,30,100,30000\n"
         "b,1,1,60000,0,60000,60000,3.6e9,60000,,5,1,0,1,60000\n"
         "step,1,1,60000,0,60000,60000,3.6e9,60000,,6,5,0,1,57000\n"
         "x,1,300,60000,60000,200,200,1.2e7,60000,,7,6,60,300,60000\n";

static void one_threads_paths_share_its_estimate(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, two_paths);
    struct cost_row c = cost_of(&m, "step");
    near(c.wall, 29000 + 57000);
    near(c.wall_pm, 1.96 * (1000 + 3000) / 5);
    model_release(&m);
}

/* Two threads that took the run's pooled hook cost (50 samples measured it, more than their
   own 10 overhead samples): one estimate for both, whose parts add unsquared. */
static const char pooled[] = HEAD "Thread,1,10,,exited\nThread,2,11,,exited\n"
                                  "ThreadCpu,1,30000,30000,,30,10,0,10000,0,0,0,50\n"
                                  "ThreadCpu,2,30000,30000,,30,10,0,10000,0,0,0,50\n" ROWS
                                  "work,1,1,20000,10000,19000,19000,3.61e8,20000,,1,0,10,1,19000\n"
                                  "x,1,100,10000,10000,100,100,1e6,10000,,2,1,10,16,1600\n"
                                  "work,2,1,20000,10000,19000,19000,3.61e8,20000,,1,0,10,1,19000\n"
                                  "x,2,100,10000,10000,100,100,1e6,10000,,2,1,10,16,1600\n";

static void threads_on_the_pooled_cost_share_its_estimate(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, pooled);
    struct cost_row c = cost_of(&m, "work");
    near(c.wall, 2 * 19000);
    near(c.wall_pm, 1.96 * 2 * 100 * 10 / sqrt(50));
    model_release(&m);
}

/* An older file's hook cost comes without the count that measured it (a twelve-field
   ThreadCpu record): no bound to give where the hooks were taken out, 0 where they were not. */
static const char no_count[] =
    HEAD "Thread,1,10,main,exited\nThreadCpu,1,100000,100000,,100,40,0,10000,0,0,0\n" ROWS
         "main,1,1,95000,5000,90000,90000,8.1e9,95000,,1,0,5,1,90000\n"
         "leaf,1,5,90000,90000,18000,18000,1.62e9,90000,,2,1,90,5,90000\n";

static void no_count_no_bound(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, no_count);
    assert_true(isnan(cost_of(&m, "main").wall_pm));
    assert_true(cost_of(&m, "leaf").wall_pm == 0);
    model_release(&m);
}

/* main waits 290 us for a worker whose overhead samples (200: the collector's 200 us) the
   report takes out of main's wait (othercost.h), in full: the worker ran alone, and main was
   off the CPU longer. main's Wall loses them, with a bound of 1.96 x sqrt(200) x 1000 ns. */
static const char waiter[] =
    HEAD "Thread,1,10,main,exited\nThread,2,11,,exited\n"
         "ThreadCpu,1,10000,300000,,10,0,0,0,0,0,0,0\n"
         "ThreadCpu,2,300000,300000,,300,200,0,10000,0,0,0,200\n" ROWS
         "main,1,1,10000,10000,300000,300000,9e10,10000,,1,0,10,1,300000\n"
         "work,2,1,100000,100000,300000,300000,9e10,100000,,1,0,100,1,300000\n";

static void a_waiters_bound_holds_the_others_estimate(void **state)
{
    (void)state;
    struct model m;
    model_init(&m);
    read_run(&m, waiter);
    assert_true(m.nthreads == 2);
    near(m.threads[0].others_ns, 200000);
    near(m.threads[0].others_sd_ns, sqrt(200) * 1000);
    struct cost_row c = cost_of(&m, "main");
    near(c.wall, 100000);
    near(c.wall_pm, 1.96 * sqrt(200) * 1000);
    /* the worker waited for nothing: no others' part, and no calls inside its own */
    assert_true(cost_of(&m, "work").wall_pm == 0);
    model_release(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(the_hooks_of_the_calls_inside_bound_the_wall),
        cmocka_unit_test(one_threads_paths_share_its_estimate),
        cmocka_unit_test(threads_on_the_pooled_cost_share_its_estimate),
        cmocka_unit_test(no_count_no_bound),
        cmocka_unit_test(a_waiters_bound_holds_the_others_estimate),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
