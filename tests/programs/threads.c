/*
 * threads.c - N named worker threads, each recording K "work" regions at the same time.
 *
 *   threads N K [TIDFILE]
 *
 * The main thread records "main-setup" before starting the workers (so it is thread 1) and
 * "main-after" once they are joined. Worker i (1..N) is named "worker-i": odd workers name
 * themselves before their first region, even ones after their last. All workers wait at a
 * barrier before recording, so they all record at once. With TIDFILE, the program writes one
 * line "i name tid" per worker (tid from gettid) and "0 main <pid>" for the main thread.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

struct worker {
    pthread_t thread;
    int index;
    long tid;
    char name[32];
};

static pthread_barrier_t start_line;
static long regions;

/* One worker: name itself, wait for the others, record its regions. */
static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->tid = (long)syscall(SYS_gettid);
    snprintf(w->name, sizeof w->name, "worker-%d", w->index);
    if (w->index % 2 == 1)
        PROFILER_THREAD_NAME(w->name);
    pthread_barrier_wait(&start_line);
    for (long i = 0; i < regions; i++) {
        PROFILER_START("work");
        PROFILER_STOP();
    }
    if (w->index % 2 == 0)
        PROFILER_THREAD_NAME(w->name);
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: threads N K [TIDFILE]\n");
        return 2;
    }
    int n = atoi(argv[1]);
    regions = atol(argv[2]);
    if (n < 1 || regions < 0) {
        fprintf(stderr, "threads: bad arguments\n");
        return 2;
    }
    PROFILER_START("main-setup");
    PROFILER_STOP();

    struct worker *workers = calloc((size_t)n, sizeof *workers);
    if (!workers || pthread_barrier_init(&start_line, NULL, (unsigned)n) != 0) {
        fprintf(stderr, "threads: out of memory\n");
        return 1;
    }
    for (int i = 0; i < n; i++) {
        workers[i].index = i + 1;
        if (pthread_create(&workers[i].thread, NULL, worker_main, &workers[i]) != 0) {
            fprintf(stderr, "threads: cannot create thread %d\n", i + 1);
            return 1;
        }
    }
    for (int i = 0; i < n; i++)
        pthread_join(workers[i].thread, NULL);
    pthread_barrier_destroy(&start_line);

    PROFILER_START("main-after");
    PROFILER_STOP();

    if (argc > 3) {
        FILE *f = fopen(argv[3], "w");
        if (!f) {
            perror(argv[3]);
            return 1;
        }
        fprintf(f, "0 main %ld\n", (long)getpid());
        for (int i = 0; i < n; i++)
            fprintf(f, "%d %s %ld\n", workers[i].index, workers[i].name, workers[i].tid);
        fclose(f);
    }
    free(workers);
    printf("threads: %d workers, %ld regions each\n", n, regions);
    return 0;
}
