/*
 * membench.c - the cost of one recorded allocation: malloc(32) + free pairs, plain or reported
 * through PROFILER_MEM_ALLOC/FREE, beside --live N blocks allocated first and freed last (a
 * program's working set: the checks' table holds them all). Run it plain, with --macros, and
 * plain under LD_PRELOAD=libprofreport-malloc.so (bench/Makefile does each, with 0 and 100 000
 * live blocks); prints ns per pair, best of reps.
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
    long n = 2000000, nlive = 0;
    int reps = 5, macros = 0;
    const char *label = "plain malloc+free";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--macros") == 0) {
            macros = 1;
            label = "PROFILER_MEM_ macros";
        } else if (strcmp(argv[i], "--pairs") == 0 && i + 1 < argc) {
            n = atol(argv[++i]);
        } else if (strcmp(argv[i], "--live") == 0 && i + 1 < argc) {
            nlive = atol(argv[++i]);
        } else if (strcmp(argv[i], "--reps") == 0 && i + 1 < argc) {
            reps = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--label") == 0 && i + 1 < argc) {
            label = argv[++i];
        } else {
            fprintf(stderr, "usage: membench [--macros] [--pairs N] [--live N] [--reps N] "
                            "[--label TEXT]\n");
            return 2;
        }
    }
    PROFILER_START("bench"); /* allocations inside a region, as in a profiled program */
    /* The working set: sizes from 16 to 256 bytes, live through every measurement. */
    void **live = nlive > 0 ? malloc((size_t)nlive * sizeof *live) : NULL;
    for (long i = 0; i < nlive && live; i++) {
        size_t size = 16 + (size_t)(i % 16) * 16;
        live[i] = malloc(size);
        if (macros)
            PROFILER_MEM_ALLOC(live[i], size, PROF_MEM_MALLOC);
    }
    double best = pairs(n / 10 > 0 ? n / 10 : 1, macros); /* warm-up */
    for (int r = 0; r < reps; r++) {
        double t = pairs(n, macros);
        if (r == 0 || t < best)
            best = t;
    }
    for (long i = 0; i < nlive && live; i++) {
        if (macros)
            PROFILER_MEM_FREE(live[i], PROF_MEM_MALLOC);
        free(live[i]);
    }
    free(live);
    PROFILER_STOP();
    printf("%-44s %8.1f ns per malloc+free pair, %6ld live (best of %d x %ld)\n", label, best,
           nlive, reps, n);
    return 0;
}
