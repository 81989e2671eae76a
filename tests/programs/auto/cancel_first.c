/*
 * cancel_first.c - the main thread, with a cancellation request pending, makes the process's
 * first instrumented call: the hooks' first call reads their settings (PROFILER_EXCLUDE=@FILE
 * opens and reads a file, both cancellation points) and must not be where the request takes
 * effect. The call runs; pthread_testcancel then ends the thread, as the program asked, and
 * the process exits 0 when its last thread ends, printing "ran" if the call ran (at exit: a
 * write before the test would itself be a cancellation point).
 */
#include <pthread.h>
#include <stdlib.h>
#include <unistd.h>

static volatile int ran;

static __attribute__((noinline)) void first(void) { ran = 1; }

static __attribute__((no_instrument_function)) void say(void)
{
    if (ran && write(1, "ran\n", 4) != 4)
        _exit(3);
}

__attribute__((no_instrument_function)) int main(void)
{
    atexit(say);
    pthread_cancel(pthread_self()); /* deferred: pending until a cancellation point */
    first();
    pthread_testcancel();
    return 1; /* not cancelled */
}
