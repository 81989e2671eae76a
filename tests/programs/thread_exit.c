/*
 * thread_exit.c - a thread records and exits before the main thread records anything.
 *
 *   thread_exit [exit|_exit]
 *
 * First a thread named "name-only" names itself and exits without recording (naming alone makes
 * no thread record). Then the worker, named "short-lived", records 3000 "tw" regions; every third
 * holds a "tw-child" (1000 in all): about 15000 event words, less than one buffer, so nothing is
 * written before the thread ends. The main thread joins it and, without recording, returns from
 * main ("exit", the default) or calls _exit(0) ("_exit": no exit handlers, so the worker's part
 * file is all that is left, and it must hold every row).
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The worker: all its rows are in memory until it exits. */
static void *worker(void *arg)
{
    (void)arg;
    PROFILER_THREAD_NAME("short-lived");
    for (int i = 0; i < 3000; i++) {
        PROFILER_START("tw");
        if (i % 3 == 0) {
            PROFILER_START("tw-child");
            PROFILER_STOP();
        }
        PROFILER_STOP();
    }
    return NULL;
}

/* A thread that only names itself. */
static void *name_only(void *arg)
{
    (void)arg;
    PROFILER_THREAD_NAME("name-only");
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t t;
    if (pthread_create(&t, NULL, name_only, NULL) != 0) {
        fprintf(stderr, "thread_exit: cannot create thread\n");
        return 1;
    }
    pthread_join(t, NULL);
    if (pthread_create(&t, NULL, worker, NULL) != 0) {
        fprintf(stderr, "thread_exit: cannot create thread\n");
        return 1;
    }
    pthread_join(t, NULL);
    printf("thread_exit: worker joined\n");
    if (argc > 1 && strcmp(argv[1], "_exit") == 0) {
        fflush(stdout);
        _exit(0);
    }
    return 0;
}
