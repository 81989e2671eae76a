/*
 * maxevents.c - a known call structure larger than a small PROFILER_MAX_EVENTS.
 *
 * "outer" (1 call) holds rec(4), a recursion five levels deep with PROFILER_SCOPE("rec") whose
 * innermost call runs argv[1] "step" regions, each holding three "inner" regions. Then 20 more
 * rec(4) calls whose innermost call runs 10 steps. The event stream's cap falls inside the
 * first recursion, so regions open at the cap (outer and five rec) end after it.
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>

static volatile unsigned long sink;

/* n + 1 nested "rec" regions; the innermost runs steps steps. */
static void rec(int n, long steps)
{
    PROFILER_SCOPE("rec");
    if (n > 0) {
        rec(n - 1, steps);
        return;
    }
    for (long i = 0; i < steps; i++) {
        PROFILER_START("step");
        for (int k = 0; k < 3; k++) {
            PROFILER_START("inner");
            sink += (unsigned long)k;
            PROFILER_STOP();
        }
        PROFILER_STOP();
    }
}

int main(int argc, char **argv)
{
    long steps = argc > 1 ? atol(argv[1]) : 20000;
    PROFILER_START("outer");
    rec(4, steps);
    PROFILER_STOP();
    for (int i = 0; i < 20; i++)
        rec(4, 10);
    printf("maxevents: done\n");
    return 0;
}
