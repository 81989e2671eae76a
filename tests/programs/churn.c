/*
 * churn.c - many short threads, one after the other, then a fork.
 *
 *   churn [THREADS]
 *
 * Prints "before VMSIZE_KB VMRSS_KB" (from /proc/self/status) before the first thread, starts
 * and joins THREADS threads (default 3000) that each record one "churn" region, prints "after
 * VMSIZE_KB VMRSS_KB", then forks a child that records nothing and exits at once, and waits
 * for it. The main thread records nothing.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* One short-lived thread: a single region. */
static void *worker(void *arg)
{
    (void)arg;
    PROFILER_START("churn");
    PROFILER_STOP();
    return NULL;
}

/* Print VmSize and VmRSS of this process, in kB, after a label. */
static void print_memory(const char *label)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long size = -1, rss = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (strncmp(line, "VmSize:", 7) == 0)
            size = atol(line + 7);
        else if (strncmp(line, "VmRSS:", 6) == 0)
            rss = atol(line + 6);
    }
    if (f)
        fclose(f);
    printf("%s %ld %ld\n", label, size, rss);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3000;
    print_memory("before");
    for (int i = 0; i < n; i++) {
        pthread_t t;
        if (pthread_create(&t, NULL, worker, NULL) != 0) {
            fprintf(stderr, "churn: cannot create thread %d\n", i);
            return 1;
        }
        pthread_join(t, NULL);
    }
    print_memory("after");
    pid_t child = fork();
    if (child < 0) {
        perror("churn: fork");
        return 1;
    }
    if (child == 0)
        _exit(0);
    int status = 0;
    waitpid(child, &status, 0);
    printf("child %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
