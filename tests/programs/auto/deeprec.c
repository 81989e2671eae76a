/*
 * deeprec.c - deep recursion of instrumented functions.
 *
 *   deeprec [depth] [times]   (default 10000 and 3)
 *
 * main calls descend(depth) times times; descend(k) calls descend(k - 1) down to descend(1),
 * so each is depth calls nested depth deep, far beyond the stack of frames a recorder starts
 * with (4096). Expected: main 1, descend depth * times, each path main > descend > ... once per
 * time, as uftrace counts them; no warning, unless PROFILER_MAX_DEPTH folds the deeper calls.
 */
#include <stdio.h>
#include <stdlib.h>

void descend(int k);

static volatile int sink;

/* One call per level, down to 1. */
__attribute__((noinline)) void descend(int k)
{
    sink++;
    if (k > 1)
        descend(k - 1);
    sink--; /* after the call: not a tail call, each level keeps its frame */
}

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 10000;
    int times = argc > 2 ? atoi(argv[2]) : 3;
    for (int i = 0; i < times; i++)
        descend(depth);
    printf("deeprec: %d calls %d deep\n", depth * times, depth);
    return 0;
}
