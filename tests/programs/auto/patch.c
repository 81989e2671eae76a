/*
 * patch.c - the hook calls of a function the filters leave out, patched out by the collector
 * (collector/patch.c) while several threads run them. Run with PROFILER_EXCLUDE=tiny.
 *
 * Usage: patch THREADS CALLS
 * THREADS threads, released together, each call tiny() CALLS times and kept() once; then a
 * forked child calls tiny() CALLS times and kept() once. Prints each sum (a patched call that
 * went wrong shows there), then "patched=N changed=M": of tiny()'s code bytes, copied before
 * its first call and compared after, N call instructions that became no-ops of their length
 * (5 bytes for `call rel32`, 6 for -fno-plt's `call *slot(%rip)`) and M bytes that changed
 * otherwise (0: nothing else may change).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

unsigned long tiny(unsigned long x);
unsigned long kept(unsigned long x);

/* More than tiny()'s code: the bytes after it are kept functions', which never change. */
#define CODE_BYTES 96

__attribute__((noinline)) unsigned long tiny(unsigned long x) { return x + 1; }
__attribute__((noinline)) unsigned long kept(unsigned long x) { return x * 2; }

static unsigned long calls;
static pthread_barrier_t start;

static void *worker(void *arg)
{
    unsigned long *sum = arg;
    pthread_barrier_wait(&start);
    unsigned long t = 0;
    for (unsigned long i = 0; i < calls; i++)
        t = tiny(t);
    *sum = kept(t);
    return NULL;
}

/* Count the call instructions of before that are no-ops of their length in after. */
static void compare(const unsigned char *before, const unsigned char *after, int *patched,
                    int *changed)
{
    static const unsigned char nop5[] = {0x0f, 0x1f, 0x44, 0x00, 0x00};
    static const unsigned char nop6[] = {0x66, 0x0f, 0x1f, 0x44, 0x00, 0x00};
    *patched = *changed = 0;
    for (int i = 0; i < CODE_BYTES;) {
        if (before[i] == 0xe8 && i + 5 <= CODE_BYTES && memcmp(after + i, nop5, 5) == 0) {
            ++*patched;
            i += 5;
        } else if (before[i] == 0xff && i + 6 <= CODE_BYTES && before[i + 1] == 0x15 &&
                   memcmp(after + i, nop6, 6) == 0) {
            ++*patched;
            i += 6;
        } else {
            *changed += before[i] != after[i];
            i++;
        }
    }
}

int main(int argc, char **argv)
{
    int threads = argc > 1 ? atoi(argv[1]) : 4;
    calls = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000;
    if (threads < 1 || threads > 64)
        return 2;
    unsigned char before[CODE_BYTES], after[CODE_BYTES];
    memcpy(before, (const void *)(unsigned long)tiny, CODE_BYTES);

    pthread_t tid[64];
    unsigned long sum[64];
    pthread_barrier_init(&start, NULL, (unsigned)threads);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&tid[i], NULL, worker, &sum[i]) != 0)
            return 1;
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        printf("thread %d: %lu\n", i, sum[i]);
    }

    fflush(stdout);
    pid_t child = fork();
    if (child == 0) {
        unsigned long t = 0;
        for (unsigned long i = 0; i < calls; i++)
            t = tiny(t);
        printf("child: %lu\n", kept(t));
        return 0;
    }
    int status = 0;
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        return 1;

    memcpy(after, (const void *)(unsigned long)tiny, CODE_BYTES);
    int patched, changed;
    compare(before, after, &patched, &changed);
    printf("patched=%d changed=%d\n", patched, changed);
    return 0;
}
