/*
 * roles.c - unnamed threads that one trampoline starts, as a thread pool or std::thread does:
 * each runs a job, reader() or writer(), through start(). argv[1] gives the order, 'r' for a
 * reader and 'w' for a writer ("rw", "wr"); each thread is joined before the next starts, so the
 * threads' numbers in the run follow that order, and a thread's role (what it runs) does not.
 * argv[2] ('s' or nothing): the writer leaves out its second callee, so that its tree is a
 * chain of only children down to step().
 */
#include <pthread.h>
#include <string.h>

static volatile unsigned long sink;
static int single;

static __attribute__((noinline)) void step(unsigned long i) { sink += i; }
static __attribute__((noinline)) void note(unsigned long i) { sink ^= i; }

/* 1,000 calls of step() and 250 of note() */
static __attribute__((noinline)) void reader(void)
{
    for (unsigned long i = 0; i < 1000; i++) {
        step(i);
        if (i % 4 == 0)
            note(i);
    }
}

/* 2,000 calls of note() (none with single) and of step() */
static __attribute__((noinline)) void writer(void)
{
    for (unsigned long i = 0; i < 2000; i++) {
        if (!single)
            note(i);
        step(i);
    }
}

/* The trampoline every thread starts in. */
static __attribute__((noinline)) void *start(void *job)
{
    ((void (*)(void))job)();
    return NULL;
}

int main(int argc, char **argv)
{
    const char *order = argc > 1 ? argv[1] : "rw";
    single = argc > 2 && strcmp(argv[2], "s") == 0;
    for (const char *c = order; *c; c++) {
        pthread_t t;
        if (pthread_create(&t, NULL, start, (void *)(*c == 'r' ? reader : writer)) != 0)
            return 1;
        pthread_join(t, NULL);
    }
    return 0;
}
