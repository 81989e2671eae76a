/*
 * altstack.c - regions recorded on another stack than the thread's own are not taken for
 * regions a longjmp left.
 *
 * A worker thread runs on a stack of its own in the program's data (low addresses) and has a
 * signal stack from mmap (high addresses). Inside PROFILER_SCOPE("worker") it raises SIGUSR1
 * three times; the handler, on the signal stack, records PROFILER_SCOPE("handler") each time.
 * The handler's events come from far above the worker's token, but from another stack: the
 * "worker" region must stay open around them.
 *
 * Expected: "worker" 1 (depth 0), "handler" 3 with parent "worker" (depth 1), no warning.
 */
#include <profreport.h>

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <sys/mman.h>

#define SIGNAL_STACK_SIZE (256 * 1024)
#define WORKER_STACK_SIZE (4 * 1024 * 1024) /* ThreadSanitizer wants about 1 MiB of it */

static char worker_stack[WORKER_STACK_SIZE] __attribute__((aligned(64)));
static volatile sig_atomic_t handled;

/* Record a region on the signal stack. */
static void on_signal(int sig)
{
    (void)sig;
    PROFILER_SCOPE("handler");
    handled++;
}

/* Open "worker" and raise the signal inside it. */
static void *worker(void *arg)
{
    (void)arg;
    stack_t ss = {0};
    ss.ss_size = SIGNAL_STACK_SIZE;
    ss.ss_sp =
        mmap(NULL, SIGNAL_STACK_SIZE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (ss.ss_sp == MAP_FAILED || sigaltstack(&ss, NULL) != 0)
        return NULL;
    struct sigaction sa = {0};
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_ONSTACK;
    sigaction(SIGUSR1, &sa, NULL);
    {
        PROFILER_SCOPE("worker");
        for (int i = 0; i < 3; i++)
            raise(SIGUSR1);
    }
    return NULL;
}

int main(void)
{
    pthread_attr_t attr;
    pthread_t th;
    pthread_attr_init(&attr);
    pthread_attr_setstack(&attr, worker_stack, sizeof worker_stack);
    if (pthread_create(&th, &attr, worker, NULL) != 0)
        return 1;
    pthread_join(th, NULL);
    printf("altstack: %d signals handled\n", (int)handled);
    return handled == 3 ? 0 : 1;
}
