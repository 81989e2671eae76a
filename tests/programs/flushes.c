/*
 * flushes.c - enough events to write the buffer several times during a normal run.
 *
 *   flushes [N]
 *
 * "all" holds N "m" regions (default 100000: 300002 event words, more than four 65536-word
 * buffers), each of which holds an "mm" every 1000th time; then the program exits normally.
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 100000;
    PROFILER_START("all");
    for (long i = 0; i < n; i++) {
        PROFILER_START("m");
        if (i % 1000 == 0) {
            PROFILER_START("mm");
            PROFILER_STOP();
        }
        PROFILER_STOP();
    }
    PROFILER_STOP();
    printf("flushes: %ld\n", n);
    return 0;
}
