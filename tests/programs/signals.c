/*
 * signals.c - regions recorded in a signal handler while the interrupted thread records too.
 *
 *   signals cold|warm [ITERATIONS [INTERVAL_US]]
 *
 * An interval timer sends SIGALRM every INTERVAL_US microseconds (default 20); the handler
 * records one "handler" region and counts itself. The main thread, the only one, records ITERATIONS
 * "main" regions (default 300000: about 14 full buffers), and goes on until the handler has run at
 * least 1000 times (or 20 times ITERATIONS regions). "cold": the timer starts just before the main
 * thread's first region, so signals land in the collector's start-up; "warm": the main thread
 * records one "handler" region itself first (the id is known before any signal), then the timer
 * starts. At the end the program stops the timer, blocks SIGALRM and prints "main I handled H": I
 * "main" regions recorded, H handler runs.
 */
#include <profreport.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

static long handled; /* atomic: handler runs */

/* The handler: one region, then count. */
static void on_signal(int sig)
{
    (void)sig;
    PROFILER_START("handler");
    PROFILER_STOP();
    __atomic_add_fetch(&handled, 1, __ATOMIC_RELAXED);
}

/* Send SIGALRM every us microseconds; 0 stops. */
static void timer(long us)
{
    struct itimerval it = {{0, us}, {0, us}};
    setitimer(ITIMER_REAL, &it, NULL);
}

int main(int argc, char **argv)
{
    int warm = argc > 1 && strcmp(argv[1], "warm") == 0;
    long iterations = argc > 2 ? atol(argv[2]) : 300000;
    long interval = argc > 3 ? atol(argv[3]) : 20;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    if (warm) {
        PROFILER_START("handler");
        PROFILER_STOP();
    }
    timer(interval);
    long i = 0;
    while (i < iterations ||
           (__atomic_load_n(&handled, __ATOMIC_RELAXED) < 1000 && i < 20 * iterations)) {
        PROFILER_START("main");
        PROFILER_STOP();
        i++;
    }
    timer(0);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    printf("main %ld handled %ld\n", i, __atomic_load_n(&handled, __ATOMIC_RELAXED));
    return 0;
}
