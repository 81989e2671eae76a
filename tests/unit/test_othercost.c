/*
 * test_othercost.c - unit tests of othercost.c: the collector's work on a run's other threads,
 * taken out of the wall time of a thread that waited for them, on hand-made thread records.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "model/othercost.h"

#define PERIOD 250000.0 /* ns per sample */

/* A thread of a sampled run: its CPU and wall time (ns) and overhead samples. */
static struct thread_rec thread(double cpu, double wall, double overhead)
{
    struct thread_rec t;
    memset(&t, 0, sizeof t);
    t.cpu_ns = cpu;
    t.wall_ns = wall;
    t.overhead = overhead;
    return t;
}

/* othercost_apply's figure for thread i of th[0..n). */
static double delay(struct thread_rec *th, size_t n, size_t i, double period)
{
    othercost_apply(th, n, period);
    return th[i].others_ns;
}

static void near(double got, double want)
{
    if (fabs(got - want) > 1e-6 * fabs(want) + 1e-9)
        fail_msg("got %.9g, want %.9g", got, want);
}

/* zstd -T1: main mostly waits for one worker, whose hooks took 200 samples (50 ms); main's
   own 4 samples do not count for it. */
static void a_waiter_is_charged_its_workers_overhead(void **state)
{
    (void)state;
    struct thread_rec th[] = {thread(12e6, 158e6, 4), thread(145e6, 150e6, 200)};
    near(delay(th, 2, 0, PERIOD), 200 * PERIOD);
    /* a count of 200 samples: the figure's standard deviation is sqrt(200) of them */
    near(th[0].others_sd_ns, sqrt(200) * PERIOD);
    /* the worker waited 5 ms: main's 1 ms of hooks at most */
    near(delay(th, 2, 1, PERIOD), 4 * PERIOD);
    near(th[1].others_sd_ns, 2 * PERIOD);
}

/* The worker's samples cost it 20 us each (ThreadCpu's tenth field: 580 samples, 11.6 ms):
   each of its 200 overhead samples stands for 230 us, and taking its samples delayed main too. */
static void a_waiter_is_charged_its_workers_sampling_too(void **state)
{
    (void)state;
    struct thread_rec th[] = {thread(12e6, 158e6, 4), thread(145e6, 150e6, 200)};
    th[0].sample_cost_ns = NAN; /* main's record does not say */
    th[1].samples = 580;
    th[1].sample_cost_ns = 580 * 20e3;
    near(delay(th, 2, 0, PERIOD), 200 * (PERIOD - 20e3) + 580 * 20e3);
    /* a cost of half a period or more is not believed: the period as it is */
    th[1].sample_cost_ns = 580 * PERIOD / 2;
    near(delay(th, 2, 0, PERIOD), 200 * PERIOD);
}

/* Two workers side by side for the whole of main's wait: their overhead delayed main once. */
static void workers_side_by_side_delay_once(void **state)
{
    (void)state;
    struct thread_rec th[] = {thread(1e6, 100e6, 0), thread(100e6, 100e6, 80),
                              thread(100e6, 100e6, 80)};
    near(delay(th, 3, 0, PERIOD), 160 * PERIOD / 2);
    near(th[0].others_sd_ns, sqrt(160) * PERIOD / 2);
    /* One after the other (each ran half of main's wall): the sum. */
    th[1] = thread(50e6, 50e6, 80);
    th[2] = thread(50e6, 50e6, 80);
    near(delay(th, 3, 0, PERIOD), 160 * PERIOD);
}

/* No more than the thread's own off-CPU time; nothing for a thread always on the CPU, one
   alone, or a run that does not say. */
static void the_delay_is_at_most_the_time_off_the_cpu(void **state)
{
    (void)state;
    struct thread_rec th[] = {thread(90e6, 100e6, 0), thread(100e6, 100e6, 200)};
    near(delay(th, 2, 0, PERIOD), 10e6);
    /* a fifth of the 50 ms kept: a fifth of its spread */
    near(th[0].others_sd_ns, sqrt(200) * PERIOD / 5);
    th[0] = thread(100e6, 100e6, 0);
    near(delay(th, 2, 0, PERIOD), 0);
    near(th[0].others_sd_ns, 0);
    th[0] = thread(1e6, 100e6, 0);
    near(delay(th, 1, 0, PERIOD), 0);
    near(delay(th, 2, 0, 0), 0); /* an exact-timing run */
    th[1].overhead = NAN;        /* a ThreadCpu record without samples */
    near(delay(th, 2, 0, PERIOD), 0);
    th[0].cpu_ns = NAN;
    th[1].overhead = 200;
    near(delay(th, 2, 0, PERIOD), 0);
}

/* A context's share of the delay is its off-CPU time's share of the thread's. */
static void a_context_loses_its_share_of_the_delay(void **state)
{
    (void)state;
    /* main: 158 ms wall, 12 ms CPU (146 off); delay 50 ms: all of it */
    near(othercost_scale(158e6, 12e6, 50e6, 146e6), 108.0 / 158);
    /* a context waiting half of that: half the delay */
    near(othercost_scale(80e6, 7e6, 50e6, 146e6), (80 - 25) / 80.0);
    /* one always on the CPU, or with nothing to take out: unchanged */
    near(othercost_scale(10e6, 10e6, 50e6, 146e6), 1);
    near(othercost_scale(10e6, 12e6, 50e6, 146e6), 1);
    near(othercost_scale(158e6, 12e6, 0, 146e6), 1);
    near(othercost_scale(0, 0, 50e6, 146e6), 1);
    near(othercost_scale(158e6, 12e6, 50e6, 0), 1);
    /* a context more off the CPU than its thread (sampling): at most the whole delay */
    near(othercost_scale(200e6, 0, 50e6, 146e6), 150.0 / 200);
}

/* A context is no longer off the CPU than its thread was, give or take a sample for each of
   its calls and one. */
static void a_context_is_off_the_cpu_at_most_as_long_as_its_thread(void **state)
{
    (void)state;
    /* jq's main: one call, 629 ms wall, 604 ms of samples at 250 us, its thread off the CPU
       8 ms: 604 + 2 * 0.25 + 8 = 612.5 ms */
    near(othercost_offcpu_cap(629e6, 604e6, 1, 250e3, 8e6), 612.5 / 629);
    /* within that: unchanged */
    near(othercost_offcpu_cap(612e6, 604e6, 1, 250e3, 8e6), 1);
    /* 20 calls: each may hold a sample more than its time, 21 samples of slack (5.25 ms) */
    near(othercost_offcpu_cap(20e6, 10e6, 20, 250e3, 1e6), 16.25 / 20);
    near(othercost_offcpu_cap(16e6, 10e6, 20, 250e3, 1e6), 1);
    /* a sleeper: off the CPU as long as its thread, not capped */
    near(othercost_offcpu_cap(100e6, 0, 1, 250e3, 100e6), 1);
    /* unknown: the thread's figures, or not a sampled run */
    near(othercost_offcpu_cap(629e6, 604e6, 1, 250e3, NAN), 1);
    near(othercost_offcpu_cap(629e6, 604e6, 1, 0, 8e6), 1);
    near(othercost_offcpu_cap(0, 0, 1, 250e3, 8e6), 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(a_waiter_is_charged_its_workers_overhead),
        cmocka_unit_test(a_waiter_is_charged_its_workers_sampling_too),
        cmocka_unit_test(workers_side_by_side_delay_once),
        cmocka_unit_test(the_delay_is_at_most_the_time_off_the_cpu),
        cmocka_unit_test(a_context_loses_its_share_of_the_delay),
        cmocka_unit_test(a_context_is_off_the_cpu_at_most_as_long_as_its_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
