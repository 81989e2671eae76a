/*
 * snapshots.c - the time the collector spends writing a snapshot of its statistics (summary
 * mode, at each PROFILER_FLUSH_INTERVAL) is no call's time.
 *
 * Usage: snapshots DEPTH CALLS
 * left() and right() each call both down to DEPTH: 2^(DEPTH+1) - 2 calling contexts, which
 * every snapshot writes. Then spin() calls tiny() CALLS times, and prints its wall time as it
 * measured it, "spin=NS": with a short flush interval it holds many snapshots; the report's
 * spin() must not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

unsigned long left(unsigned depth);
unsigned long right(unsigned depth);
unsigned long tiny(unsigned long x);
unsigned long spin(unsigned long calls);

__attribute__((noinline)) unsigned long left(unsigned depth)
{
    return depth ? 1 + left(depth - 1) + right(depth - 1) : 1;
}

__attribute__((noinline)) unsigned long right(unsigned depth)
{
    return depth ? 2 + left(depth - 1) + right(depth - 1) : 2;
}

__attribute__((noinline)) unsigned long tiny(unsigned long x) { return x * 3 + 1; }

__attribute__((noinline)) unsigned long spin(unsigned long calls)
{
    unsigned long x = 0;
    for (unsigned long i = 0; i < calls; i++)
        x = tiny(x);
    return x;
}

static __attribute__((no_instrument_function)) long long now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
    unsigned depth = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 12;
    unsigned long calls = argc > 2 ? strtoul(argv[2], NULL, 10) : 1000000;
    unsigned long sum = left(depth);
    long long a = now_ns();
    sum += spin(calls);
    long long b = now_ns();
    printf("spin=%lld sum=%lu\n", b - a, sum);
    return 0;
}
