/*
 * longgap.c - gaps too long for one event word.
 *
 *   longgap REGION_MS GAP_MS
 *
 * "long" is a region that sleeps REGION_MS; then nothing is recorded for GAP_MS; then "short"
 * (no sleep) is recorded. With a TSC of a few GHz, 1000 ms is more than 2^31 ticks (the largest
 * gap an exit word holds) and 1800 ms more than 2^32 ticks (the largest in an enter record).
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* Sleep ms milliseconds. */
static void sleep_ms(long ms)
{
    struct timespec pause = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&pause, &pause) != 0) {
    }
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: longgap REGION_MS GAP_MS\n");
        return 2;
    }
    PROFILER_START("long");
    sleep_ms(atol(argv[1]));
    PROFILER_STOP();
    sleep_ms(atol(argv[2]));
    PROFILER_START("short");
    PROFILER_STOP();
    printf("longgap: done\n");
    return 0;
}
