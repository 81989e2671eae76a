/*
 * basic.c - the smallest complete use of profreport: nested regions on one thread.
 *
 *   cc basic.c $(pkg-config --cflags --libs profreport) -o basic && ./basic
 *
 * leaves profiler-runs/profiling_<date>_<pid>_<token>.csv with rows for load, parse, step and
 * checksum.
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>

/* Some work that takes a little time, so the regions have something to measure. */
static unsigned long churn(unsigned long n)
{
    unsigned long x = n;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

static unsigned long parse(int i)
{
    PROFILER_SCOPE("parse");
    return churn(20000 + (unsigned long)i * 100);
}

static unsigned long load(void)
{
    unsigned long sum = 0;
    PROFILER_START("load");
    for (int i = 0; i < 20; i++)
        sum += parse(i);
    PROFILER_STOP();
    return sum;
}

int main(int argc, char **argv)
{
    int steps = argc > 1 ? atoi(argv[1]) : 200;
    unsigned long sum = load();
    for (int i = 0; i < steps; i++) {
        PROFILER_SCOPE("step");
        sum += churn(5000);
        if (i % 50 == 0) {
            PROFILER_SCOPE("checksum");
            sum ^= churn(30000);
        }
    }
    printf("basic: %d steps, checksum %lx\n", steps, sum);
    return 0;
}
