/*
 * idle.c - one thread that works and one that waits, for the CPU time of threads.
 *
 *   idle [MS]
 *
 * "busy" spins in a "spin" region until its own CPU clock has counted MS milliseconds (default
 * 60), so its CPU time is at least MS whatever the machine's load. "sleeper" holds a "wait"
 * region around a sleep of 3 * MS milliseconds: its CPU time is close to 0. The main thread
 * records "main-setup" first (it is thread 1), then joins both.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static long ms = 60;

/* The CPU time of the calling thread, ns. */
static long long thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* Work: spin until this thread has used ms of CPU time. */
static void *busy(void *arg)
{
    (void)arg;
    PROFILER_THREAD_NAME("busy");
    PROFILER_START("spin");
    long long until = thread_cpu_ns() + ms * 1000000LL;
    volatile unsigned long sink = 0;
    while (thread_cpu_ns() < until)
        for (int i = 0; i < 1000; i++)
            sink += (unsigned long)i;
    PROFILER_STOP();
    return NULL;
}

/* Wait: sleep 3 * ms inside a region. */
static void *sleeper(void *arg)
{
    (void)arg;
    PROFILER_THREAD_NAME("sleeper");
    PROFILER_START("wait");
    struct timespec ts = {(3 * ms) / 1000, ((3 * ms) % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ;
    PROFILER_STOP();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc > 1)
        ms = atol(argv[1]);
    if (ms < 1) {
        fprintf(stderr, "idle: bad arguments\n");
        return 2;
    }
    PROFILER_START("main-setup");
    PROFILER_STOP();
    pthread_t a, b;
    if (pthread_create(&a, NULL, busy, NULL) != 0 || pthread_create(&b, NULL, sleeper, NULL) != 0)
        return 1;
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    return 0;
}
