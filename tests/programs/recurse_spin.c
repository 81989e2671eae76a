/*
 * recurse_spin.c - recursion whose time is real: a PROFILER_SCOPE("walk") in a function that
 * recurses 10 deep (direct recursion), and PROFILER_SCOPE("ping") / PROFILER_SCOPE("pong") in
 * two functions that call each other 8 deep (mutual recursion), each level spinning on the
 * clock for a few microseconds, inside a "main" region; a second thread, "worker", does the
 * same. Every table of the report must count each instant once (issue 25).
 * Usage: recurse_spin [calls] [spin_us] [threads: 1 or 2]
 */
#include <profreport.h>

#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long spin_ns = 5000;

/* Burn the CPU for spin_ns of wall time. */
static void spin(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < spin_ns);
}

/* Direct recursion: depth levels of "walk". */
static void walk(int depth)
{
    PROFILER_SCOPE("walk");
    spin();
    if (depth > 1)
        walk(depth - 1);
}

static void pong(int depth);

/* Mutual recursion: ping calls pong calls ping ... depth levels in all. */
static void ping(int depth)
{
    PROFILER_SCOPE("ping");
    spin();
    if (depth > 1)
        pong(depth - 1);
}

static void pong(int depth)
{
    PROFILER_SCOPE("pong");
    spin();
    if (depth > 1)
        ping(depth - 1);
}

/* The work of one thread: calls of walk(10) and ping(8). */
static void *work(void *arg)
{
    int calls = *(int *)arg;
    PROFILER_START("main");
    for (int i = 0; i < calls; i++) {
        walk(10);
        ping(8);
    }
    PROFILER_STOP();
    return NULL;
}

/* The second thread, named "worker". */
static void *worker(void *arg)
{
    PROFILER_THREAD_NAME("worker");
    return work(arg);
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 20;
    if (argc > 2)
        spin_ns = atol(argv[2]) * 1000;
    int threads = argc > 3 ? atoi(argv[3]) : 2;
    pthread_t t;
    if (threads > 1 && pthread_create(&t, NULL, worker, &calls) != 0)
        return 1;
    PROFILER_THREAD_NAME("main");
    work(&calls);
    if (threads > 1)
        pthread_join(t, NULL);
    return 0;
}
