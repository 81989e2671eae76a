/*
 * change.c - a program to compare with itself: four regions that sleep a fixed time each
 * ("setup" 3 ms, "parse" 2 ms, "compute" 4 ms, "write" 2 ms, one call each), and an argument
 * that names one region to take twice as long, as a code change would.
 *
 *   change              every region at its usual length
 *   change compute      "compute" sleeps 8 ms instead of 4
 *
 * Sleeping rather than spinning keeps each region's length steady on a busy machine: a
 * sleeping thread is woken on time, where a spinning one is preempted for whole time slices.
 */
#include <profreport.h>

#include <string.h>
#include <time.h>

/* Sleep ms milliseconds. */
static void nap(long ms)
{
    struct timespec t = {0, ms * 1000000L};
    while (nanosleep(&t, &t) != 0)
        ;
}

int main(int argc, char **argv)
{
    const char *slow = argc > 1 ? argv[1] : NULL;
    static const struct {
        const char *name;
        long ms;
    } regions[] = {{"setup", 3}, {"parse", 2}, {"compute", 4}, {"write", 2}};
    for (size_t i = 0; i < sizeof regions / sizeof regions[0]; i++) {
        /* Decided before the region starts: only the sleep is timed. Under ThreadSanitizer the
           process's first strcmp costs a quarter of a millisecond, which made "setup" of the
           slowed build (the only one that compares) significantly slower. */
        long ms = regions[i].ms;
        if (slow && strcmp(regions[i].name, slow) == 0)
            ms *= 2;
        PROFILER_START(regions[i].name);
        nap(ms);
        PROFILER_STOP();
    }
    return 0;
}
