/*
 * summary.c - a known call structure for PROFILER_MODE=summary.
 *
 * "loop" (1 call) holds 300 "step" calls; every third step holds an "inner" (100 calls). Then
 * 20 calls of rec(4), a recursion five levels deep with PROFILER_SCOPE("rec"): 100 "rec" calls,
 * 20 of them outermost, each innermost call doing most of the work.
 */
#include <profreport.h>

#include <stdio.h>

static volatile unsigned long sink;

/* A little work, so that regions take some ticks. */
static void work(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        sink += i;
}

/* n + 1 nested "rec" regions; the innermost does the work. */
static void rec(int n)
{
    PROFILER_SCOPE("rec");
    if (n == 0)
        work(20000);
    else
        rec(n - 1);
}

int main(void)
{
    PROFILER_START("loop");
    for (int i = 0; i < 300; i++) {
        PROFILER_START("step");
        work(100);
        if (i % 3 == 0) {
            PROFILER_START("inner");
            work(50);
            PROFILER_STOP();
        }
        PROFILER_STOP();
    }
    PROFILER_STOP();
    for (int i = 0; i < 20; i++)
        rec(4);
    printf("summary: done\n");
    return 0;
}
