/*
 * patchtime.c - the time the collector spends patching hook calls out is no call's time. Run
 * with PROFILER_EXCLUDE=step and PROFILER_TIMING=exact.
 *
 * step() is inlined, with its hooks (gcc's -finstrument-functions hooks every inlined copy),
 * 300 times into sweep(): 600 hook calls, each patched out at its first call (two mprotects
 * and, with other threads possible, three membarriers: microseconds each). main calls sweep()
 * twice and prints the wall time of each call as it measured it, "first=NS second=NS": the
 * first holds the patches, the second none; the report's sweep() must not.
 */
#include <stdio.h>
#include <time.h>

static inline __attribute__((always_inline)) unsigned long step(unsigned long x)
{
    return x * 3 + 1;
}

#define S5                                                                                         \
    x = step(x);                                                                                   \
    x = step(x);                                                                                   \
    x = step(x);                                                                                   \
    x = step(x);                                                                                   \
    x = step(x);
#define S50 S5 S5 S5 S5 S5 S5 S5 S5 S5 S5
#define S300 S50 S50 S50 S50 S50 S50

unsigned long sweep(unsigned long x);
__attribute__((noinline)) unsigned long sweep(unsigned long x) { S300 return x; }

static __attribute__((no_instrument_function)) long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(void)
{
    long long a = now_ns();
    unsigned long x = sweep(1);
    long long b = now_ns();
    x = sweep(x);
    long long c = now_ns();
    printf("first=%lld second=%lld sum=%lu\n", b - a, c - b, x);
    return 0;
}
