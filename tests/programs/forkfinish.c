/*
 * forkfinish.c - fork in one thread while another ends and begins runs with memory checks on.
 *
 *   forkfinish DIR ROUNDS
 *
 * fork takes the collector's locks in its prepare handlers, and PROFILER_FINISH takes the
 * run's lock, then the memory table's: the two must agree on the order, or the program hangs.
 */
#include <profreport.h>

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *dir;
static int rounds;
static int done; /* atomic */
/* The main thread stopped forking: only then may the finisher end. A fork between its end and
   the join would give the child a finished thread nobody joins (ThreadSanitizer calls that a
   leak when the child exits). */
static int seen; /* atomic */

static void *finisher(void *arg)
{
    (void)arg;
    for (int i = 0; i < rounds; i++) {
        PROFILER_INIT(dir);
        PROFILER_START("round");
        void *p = malloc(16);
        PROFILER_MEM_ALLOC(p, 16, PROF_MEM_MALLOC);
        PROFILER_MEM_FREE(p, PROF_MEM_MALLOC);
        free(p);
        PROFILER_STOP();
        PROFILER_FINISH();
    }
    __atomic_store_n(&done, 1, __ATOMIC_RELEASE);
    while (!__atomic_load_n(&seen, __ATOMIC_ACQUIRE))
        sched_yield();
    return NULL;
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    dir = argv[1];
    rounds = atoi(argv[2]);
    pthread_t t;
    if (pthread_create(&t, NULL, finisher, NULL) != 0)
        return 1;
    while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
        pid_t pid = fork();
        if (pid == 0)
            _exit(0);
        if (pid > 0)
            waitpid(pid, NULL, 0);
    }
    __atomic_store_n(&seen, 1, __ATOMIC_RELEASE);
    pthread_join(t, NULL);
    return 0;
}
