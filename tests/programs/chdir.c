/*
 * chdir.c - the program changes its working folder while a run records.
 *
 *   chdir FOLDER
 *
 * Run with a relative PROFILER_DIR. The main thread records "before-chdir", changes to FOLDER,
 * then starts a thread that records "worker" (its part file is created after the chdir) and
 * joins it, and records "after-chdir". The run file and every part belong in PROFILER_DIR as
 * seen from the starting folder.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

static void *worker(void *arg)
{
    (void)arg;
    PROFILER_START("worker");
    PROFILER_STOP();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: chdir FOLDER\n");
        return 2;
    }
    PROFILER_START("before-chdir");
    PROFILER_STOP();
    if (chdir(argv[1]) != 0) {
        perror(argv[1]);
        return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) {
        fprintf(stderr, "chdir: cannot create thread\n");
        return 1;
    }
    pthread_join(t, NULL);
    PROFILER_START("after-chdir");
    PROFILER_STOP();
    printf("chdir: done\n");
    return 0;
}
