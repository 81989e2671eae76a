/*
 * running.c - a worker thread that is still running when the process exits.
 *
 * The worker (named "lingerer") records 10 "tick" regions, opens "open-at-exit", tells the main
 * thread, and blocks for good. The main thread records "main-work" and returns from main, so the
 * run file is written while the worker still runs with its region open.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int ready;

/* Record, signal readiness, then wait forever (nobody signals again). */
static void *lingerer(void *arg)
{
    (void)arg;
    PROFILER_THREAD_NAME("lingerer");
    for (int i = 0; i < 10; i++) {
        PROFILER_START("tick");
        PROFILER_STOP();
    }
    PROFILER_START("open-at-exit");
    pthread_mutex_lock(&lock);
    ready = 1;
    pthread_cond_broadcast(&changed);
    for (;;)
        pthread_cond_wait(&changed, &lock);
    return NULL;
}

int main(void)
{
    PROFILER_START("main-work");
    PROFILER_STOP();
    pthread_t t;
    if (pthread_create(&t, NULL, lingerer, NULL) != 0) {
        fprintf(stderr, "running: cannot create thread\n");
        return 1;
    }
    pthread_mutex_lock(&lock);
    while (!ready)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
    printf("running: exiting with the worker still running\n");
    return 0;
}
