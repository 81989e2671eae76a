/*
 * app.c - the program the integration projects (cmake/, meson/) build against an installed
 * profreport: one region by hand around three calls of work(), which the automatic variants
 * time as a function too.
 */
#include <profreport.h>

#include <stdio.h>

/* A little arithmetic; kept out of line so that every compiler's instrumentation sees it. */
__attribute__((noinline)) static unsigned long work(unsigned long n)
{
    unsigned long x = n;
    for (unsigned long i = 0; i < n; i++)
        x = x * 6364136223846793005ul + 1442695040888963407ul;
    return x;
}

int main(void)
{
    unsigned long sum = 0;
    PROFILER_START("integration");
    for (unsigned long i = 0; i < 3; i++)
        sum += work(10000 + i);
    PROFILER_STOP();
    printf("%lu\n", sum & 1);
    return 0;
}
