/*
 * killme.c - a run meant to be killed.
 *
 *   killme [WORKERS]
 *
 * "outer" holds 50000 "k" regions (150002 event words, so at least two 256 KiB buffers are
 * written to the part file). Then WORKERS threads (default 0) each record 100 "w" regions and
 * end (joined): their parts end cleanly. Then the program prints "ready" and sleeps until it is
 * killed, with "outer" still open.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *worker(void *arg)
{
    (void)arg;
    for (int i = 0; i < 100; i++) {
        PROFILER_START("w");
        PROFILER_STOP();
    }
    return NULL;
}

int main(int argc, char **argv)
{
    int workers = argc > 1 ? atoi(argv[1]) : 0;
    PROFILER_START("outer");
    for (int i = 0; i < 50000; i++) {
        PROFILER_START("k");
        PROFILER_STOP();
    }
    for (int i = 0; i < workers; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0) {
            fprintf(stderr, "killme: cannot create thread\n");
            return 1;
        }
        pthread_join(t, NULL);
    }
    printf("ready\n");
    fflush(stdout);
    for (;;)
        pause();
}
