/*
 * cancel.c - threads cancelled (pthread_cancel, deferred) while the collector does I/O: the
 * library's open and write are cancellation points of the C library, and a thread cancelled
 * inside one with a lock held would hang in its key destructor.
 *
 *   cancel N
 *
 * Each thread asks for its own cancellation (pending until a cancellation point), then:
 * - N "first" threads open and close one region "first": the thread's first event creates
 *   and writes its part;
 * - N "recording" threads record 50,000 regions "rec" (the buffer is written on the way; in
 *   summary mode with a short PROFILER_FLUSH_INTERVAL, snapshots are);
 * - N "named" threads record a region "named", name themselves (the name is written to the
 *   part at once) and record one more.
 * Then each calls pthread_testcancel(), where it must end: the collector was no cancellation
 * point on the way. main joins them all (each must end as cancelled), records "main" and prints
 * "cancel: F R M cancelled" (the threads of each kind that ended cancelled, N each).
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#define RECORDED 50000

/* The first event of the thread after its cancellation was asked for. */
static void *first(void *arg)
{
    (void)arg;
    pthread_cancel(pthread_self());
    PROFILER_START("first");
    PROFILER_STOP();
    pthread_testcancel();
    return NULL;
}

/* Buffer writes (events mode) or snapshots (summary mode) after the request. */
static void *recording(void *arg)
{
    (void)arg;
    PROFILER_START("rec");
    PROFILER_STOP();
    pthread_cancel(pthread_self());
    for (int i = 1; i < RECORDED; i++) {
        PROFILER_START("rec");
        PROFILER_STOP();
    }
    pthread_testcancel();
    return NULL;
}

/* A name written to the part after the request. */
static void *named(void *arg)
{
    (void)arg;
    PROFILER_START("named");
    PROFILER_STOP();
    pthread_cancel(pthread_self());
    PROFILER_THREAD_NAME("named");
    PROFILER_START("named");
    PROFILER_STOP();
    pthread_testcancel();
    return NULL;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 4;
    void *(*kinds[3])(void *) = {first, recording, named};
    int cancelled[3] = {0, 0, 0};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < n; i++) {
            pthread_t th;
            void *ret = NULL;
            if (pthread_create(&th, NULL, kinds[k], NULL) != 0)
                return 1;
            pthread_join(th, &ret);
            cancelled[k] += ret == PTHREAD_CANCELED;
        }
    }
    PROFILER_START("main");
    PROFILER_STOP();
    printf("cancel: %d %d %d cancelled\n", cancelled[0], cancelled[1], cancelled[2]);
    return 0;
}
