/*
 * recurse_calls.c - recursion whose time is real, every function instrumented: walk() recurses
 * 10 deep (direct recursion) and ping()/pong() call each other 8 deep (mutual recursion), each
 * level spinning on the clock for a few microseconds. Every table of the report must count
 * each instant once (issue 25).
 * Usage: recurse_calls [calls] [spin_us]
 */
#include <stdlib.h>
#include <time.h>

static long spin_ns = 5000;

/* Burn the CPU for spin_ns of wall time (not instrumented: with sampled timing its samples
   are its own rows under its caller, whose calls are not counted). */
static __attribute__((no_instrument_function)) void spin(void)
{
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do
        clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < spin_ns);
}

void walk(int depth);
void ping(int depth);
void pong(int depth);

/* Direct recursion. */
__attribute__((noinline)) void walk(int depth)
{
    spin();
    if (depth > 1)
        walk(depth - 1);
}

/* Mutual recursion. */
__attribute__((noinline)) void ping(int depth)
{
    spin();
    if (depth > 1)
        pong(depth - 1);
}

__attribute__((noinline)) void pong(int depth)
{
    spin();
    if (depth > 1)
        ping(depth - 1);
}

int main(int argc, char **argv)
{
    int calls = argc > 1 ? atoi(argv[1]) : 20;
    if (argc > 2)
        spin_ns = atol(argv[2]) * 1000;
    for (int i = 0; i < calls; i++) {
        walk(10);
        ping(8);
    }
    return 0;
}
