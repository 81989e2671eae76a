/*
 * membench.c - the cost of one recorded allocation: malloc(32) + free pairs, plain or reported
 * through PROFILER_MEM_ALLOC/FREE. Run it plain, with --macros, and plain under LD_PRELOAD=
 * libprofreport-malloc.so (bench/Makefile does all three); prints ns per pair, best of reps.
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Every block passes through here, so the compiler cannot drop a malloc and its free. */
static void *volatile sink;

/* Nanoseconds of CLOCK_MONOTONIC. */
static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* n malloc + free pairs, 64 blocks live at a time; returns ns per pair. */
static double pairs(long n, int macros)
{
    void *live[64] = {0};
    double t0 = now_ns();
    for (long i = 0; i < n; i++) {
        int k = (int)(i & 63);
        if (live[k]) {
            if (macros)
                PROFILER_MEM_FREE(live[k], PROF_MEM_MALLOC);
            free(live[k]);
        }
        live[k] = malloc(32);
        if (macros)
            PROFILER_MEM_ALLOC(live[k], 32, PROF_MEM_MALLOC);
        sink = live[k];
    }
    double t = now_ns() - t0;
    for (int k = 0; k < 64; k++) {
        if (live[k] && macros)
            PROFILER_MEM_FREE(live[k], PROF_MEM_MALLOC);
        free(live[k]);
    }
    return t / (double)n;
}

int main(int argc, char **argv)
{
    long n = 2000000;
    int reps = 5, macros = 0;
    const char *label = "plain malloc+free";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--macros") == 0) {
            macros = 1;
            label = "PROFILER_MEM_ macros";
        } else if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc) {
            n = atol(argv[++i]);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            label = argv[++i];
        } else {
            fprintf(stderr, "usage: membench [--macros] [--pairs N] [--reps N] [--label TEXT]\n");
            return 2;
        }
    }
    PROFILER_START("bench"); /* allocations inside a region, as in a profiled program */
    double best = pairs(n / 10 > 0 ? n / 10 : 1, macros); /* warm-up */
    for (int r = 0; r < reps; r++) {
        double t = pairs(n, macros);
        if (r == 0 || t < best)
            best = t;
    }
    PROFILER_STOP();
    printf("%-34s %8.1f ns per malloc+free pair (best of %d x %ld)\n", label, best, reps, n);
    return 0;
}
