/*
 * nested.c - one thread, a known tree of regions: "outer" holds 1000 "loop" regions (every tenth
 * holds an "inner"), then "sleep" (a 20 ms nanosleep); after it, "d0" > "d1" > "d2" > "d3".
 *
 * Expected rows: loop 1000, inner 100, sleep 1, outer 1, d0..d3 1 each. Arguments are ignored
 * (the tests pass some to check the Command record).
 */
#include <profreport.h>

#include <stdio.h>
#include <time.h>

static volatile unsigned long sink;

/* A little work, so that regions take some ticks. */
static void work(unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        sink += i;
}

int main(void)
{
    PROFILER_START("outer");
    for (int i = 0; i < 1000; i++) {
        PROFILER_START("loop");
        work(50);
        if (i % 10 == 0) {
            PROFILER_START("inner");
            work(20);
            PROFILER_STOP();
        }
        PROFILER_STOP();
    }
    PROFILER_START("sleep");
    struct timespec pause = {0, 20000000};
    while (nanosleep(&pause, &pause) != 0) {
    }
    PROFILER_STOP();
    PROFILER_STOP(); /* outer */

    PROFILER_START("d0");
    PROFILER_START("d1");
    PROFILER_START("d2");
    PROFILER_START("d3");
    work(10);
    PROFILER_STOP();
    PROFILER_STOP();
    PROFILER_STOP();
    PROFILER_STOP();

    printf("nested: done\n");
    return 0;
}
