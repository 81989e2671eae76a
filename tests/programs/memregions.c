/*
 * memregions.c - regions around plain malloc-family calls (no PROFILER_MEM_ macros), for the
 * preload library: known bytes per region, every allocator entry point, and no finding at all.
 */
#define _GNU_SOURCE /* reallocarray, valloc, memalign */
#include <profreport.h>

#include <malloc.h>
#include <stdlib.h>

/* Every block passes through here, so the compiler cannot drop an allocation and its free. */
static void *volatile sink;

/* Keep p alive as far as the compiler knows, and give it back. */
static void *use(void *p)
{
    sink = p;
    return sink;
}

int main(void)
{
    PROFILER_START("outer");
    char *a = use(malloc(1000));
    PROFILER_START("inner");
    char *b = use(calloc(10, 10));
    b = use(realloc(b, 300)); /* a free of the 100 bytes and an allocation of 300 */
    PROFILER_STOP();
    free(b);
    free(a);
    PROFILER_STOP();

    /* Outside any region: 128 + 64 + 16 + 10 + 40 bytes in 5 allocations. */
    void *p = NULL;
    if (posix_memalign(&p, 64, 128) != 0)
        return 1;
    free(use(p));
    free(use(aligned_alloc(32, 64)));
    free(use(memalign(16, 16)));
    free(use(valloc(10)));
    int *v = use(reallocarray(NULL, 10, 4));
    v = use(realloc(v, 0)); /* frees it: glibc returns NULL */
    return v == NULL ? 0 : 1;
}
