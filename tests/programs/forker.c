/*
 * forker.c - regions around fork().
 *
 *   forker [normal|quiet-child|threaded]
 *
 * The parent records "before", then opens "outer" and inside it "held", and forks.
 *
 * normal: the child records three "child-work" regions (inside the inherited "held"), stops
 * "held" and "outer", records "child-after" and exits normally. The parent waits for it, stops
 * "held" and "outer", and records "after".
 *
 * threaded: as normal, but before "before" the parent starts a thread named "bystander" that
 * records "worker-before", and while the child runs it waits; after the child has exited it
 * records "worker-after" and ends (joined before "after"). The bystander does not exist in the
 * child.
 *
 * quiet-child: the child records nothing: it waits until the parent has exited (end of file on
 * a pipe) and exits normally. The parent does not wait: it stops "held" and "outer", records
 * "after" and exits, so the child exits last.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static int stage; /* 1: the bystander has recorded; 2: the child has exited */

/* Wait until stage reaches at least want. */
static void wait_stage(int want)
{
    pthread_mutex_lock(&lock);
    while (stage < want)
        pthread_cond_wait(&changed, &lock);
    pthread_mutex_unlock(&lock);
}

static void set_stage(int s)
{
    pthread_mutex_lock(&lock);
    stage = s;
    pthread_cond_broadcast(&changed);
    pthread_mutex_unlock(&lock);
}

/* The thread that is running in the parent while it forks. */
static void *bystander(void *arg)
{
    (void)arg;
    PROFILER_THREAD_NAME("bystander");
    PROFILER_START("worker-before");
    PROFILER_STOP();
    set_stage(1);
    wait_stage(2);
    PROFILER_START("worker-after");
    PROFILER_STOP();
    return NULL;
}

int main(int argc, char **argv)
{
    int quiet = argc > 1 && strcmp(argv[1], "quiet-child") == 0;
    int threaded = argc > 1 && strcmp(argv[1], "threaded") == 0;
    int fds[2];
    if (pipe(fds) != 0) {
        perror("pipe");
        return 1;
    }
    printf("forker: start\n");
    fflush(stdout);

    pthread_t worker;
    if (threaded) {
        if (pthread_create(&worker, NULL, bystander, NULL) != 0) {
            fprintf(stderr, "forker: cannot create thread\n");
            return 1;
        }
        wait_stage(1);
    }
    PROFILER_START("before");
    PROFILER_STOP();
    PROFILER_START("outer");
    PROFILER_START("held");
    pid_t pid = fork();
    if (pid < 0) {
        perror("fork");
        return 1;
    }
    if (pid == 0) {
        close(fds[1]);
        if (quiet) {
            char c;
            while (read(fds[0], &c, 1) > 0) {
            }
            exit(0);
        }
        for (int i = 0; i < 3; i++) {
            PROFILER_START("child-work");
            PROFILER_STOP();
        }
        PROFILER_STOP(); /* held */
        PROFILER_STOP(); /* outer */
        PROFILER_START("child-after");
        PROFILER_STOP();
        exit(0);
    }
    close(fds[0]);
    int status = 0;
    if (!quiet && waitpid(pid, &status, 0) != pid) {
        perror("waitpid");
        return 1;
    }
    if (threaded) {
        set_stage(2);
        pthread_join(worker, NULL);
    }
    PROFILER_STOP(); /* held */
    PROFILER_STOP(); /* outer */
    PROFILER_START("after");
    PROFILER_STOP();
    if (!quiet)
        printf("forker: child exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    return 0;
}
