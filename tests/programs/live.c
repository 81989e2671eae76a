/*
 * live.c - two threads that spend half their time in a region (and call a profiled module
 * whose public functions call each other), and one thread that records once and goes quiet:
 * for the live report (PROFILER_REPORT_INTERVAL) and module API tests.
 *
 *   live SECONDS   prints "quiet <tid>" and "loops <n>" for each busy thread on stdout
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

PROFILER_API_DECLARE(alloc);
PROFILER_API_DEFINE(alloc);

static double seconds;
static __thread volatile unsigned long sink; /* per thread: no race */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Busy for s seconds (the same work inside and outside the region). */
static void spin(double s)
{
    double end = now() + s;
    while (now() < end)
        sink++;
}

/* Public functions of the "alloc" module: the outer one calls the inner one twice. */
static void alloc_inner(void) { PROFILER_API(alloc); }
static void alloc_outer(void)
{
    PROFILER_API(alloc);
    alloc_inner();
    alloc_inner();
}

/* Half of every 10 ms in "half", once in the module. */
static void *busy(void *arg)
{
    (void)arg;
    unsigned long loops = 0;
    double end = now() + seconds;
    while (now() < end) {
        PROFILER_START("half");
        spin(0.005);
        PROFILER_STOP();
        alloc_outer();
        spin(0.005);
        loops++;
    }
    printf("loops %lu\n", loops);
    return NULL;
}

/* Records at once, then stays quiet: it must print no report. */
static void *quiet(void *arg)
{
    (void)arg;
    PROFILER_START("once");
    PROFILER_STOP();
    printf("quiet %ld\n", (long)syscall(SYS_gettid));
    fflush(stdout);
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    return NULL;
}

int main(int argc, char **argv)
{
    seconds = argc > 1 ? atof(argv[1]) : 1.6;
    pthread_t t[3];
    pthread_create(&t[0], NULL, quiet, NULL);
    pthread_create(&t[1], NULL, busy, NULL);
    pthread_create(&t[2], NULL, busy, NULL);
    for (int i = 0; i < 3; i++)
        pthread_join(t[i], NULL);
    return 0;
}
