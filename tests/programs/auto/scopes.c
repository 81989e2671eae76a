/*
 * scopes.c - PROFILER_SCOPE and PROFILER_API in an instrumented program: the header's own
 * functions (C++'s guard classes) must be invisible to the -finstrument-functions hooks, or a
 * guard's constructor closes the region it just opened. Built as C and as C++ (-x c++), at
 * -O0 and -O2, by tests/functional/test_auto.py.
 *
 * main opens PROFILER_SCOPE("scoped") around pause_ms(10), then calls store_put(), a function
 * of the module "store" (PROFILER_API) that calls pause_ms(10). Expected paths: main > scoped >
 * pause_ms and main > store_put > store > pause_ms, each region at least as long as the
 * pause_ms call inside it.
 */
#include <profreport.h>

#include <stdio.h>
#include <time.h>

PROFILER_API_DECLARE(store);
PROFILER_API_DEFINE(store);

#ifdef __cplusplus
extern "C" {
#endif
void pause_ms(long ms);
void store_put(void);
#ifdef __cplusplus
}
#endif

/* Sleep ms milliseconds: the work the regions measure. */
__attribute__((noinline)) void pause_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    nanosleep(&ts, NULL);
}

/* A public function of the module "store". */
__attribute__((noinline)) void store_put(void)
{
    PROFILER_API(store);
    pause_ms(10);
}

int main(void)
{
    {
        PROFILER_SCOPE("scoped");
        pause_ms(10);
    }
    store_put();
    printf("scopes: done\n");
    return 0;
}
