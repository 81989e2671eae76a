/*
 * keydtor.c - a thread whose own key destructor records: the program's key is made after the
 * library's (the library makes its key at the first event), so at the thread's exit the
 * library's destructor runs first in each round, and the program's records after it.
 *
 * The worker records "work", sets its own key, and returns; the key's destructor records
 * "in-destructor" and, for the first three rounds, sets the key again (glibc runs up to
 * PTHREAD_DESTRUCTOR_ITERATIONS, 4, rounds while values are set). main joins it, records
 * "main" and prints "keydtor: R rounds" (the rounds of the program's destructor, 4).
 * Expected: two threads, the worker's with "work" once and "in-destructor" twice: the
 * library ends the worker's recorder in the third round, before the program's destructor runs
 * in it, and drops what comes after.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdio.h>

static pthread_key_t key;
/* Atomic: its last round runs after ThreadSanitizer ends the thread, so the join's ordering is
   not seen. */
static int rounds;

/* The program's own destructor: records a region, and asks for another round three times. */
static void destructor(void *p)
{
    PROFILER_START("in-destructor");
    PROFILER_STOP();
    if (__atomic_add_fetch(&rounds, 1, __ATOMIC_SEQ_CST) < 4)
        pthread_setspecific(key, p);
}

static void *worker(void *arg)
{
    (void)arg;
    PROFILER_START("work");
    PROFILER_STOP();
    pthread_key_create(&key, destructor);
    pthread_setspecific(key, &rounds);
    return NULL;
}

int main(void)
{
    PROFILER_START("main");
    PROFILER_STOP();
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0)
        return 1;
    pthread_join(th, NULL);
    printf("keydtor: %d rounds\n", __atomic_load_n(&rounds, __ATOMIC_SEQ_CST));
    return 0;
}
