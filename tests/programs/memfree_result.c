/*
 * memfree_result.c - PROFILER_MEM_FREE is the double-free answer the caller acts on: the block
 * is freed once through `if (!PROFILER_MEM_FREE(p, kind)) free(p);` and the same line run again
 * is refused, so glibc never sees the second free. Also stands alone as a statement. Prints
 * what the macro gave. Built with -DPROFILER_DISABLE (by the tests), both forms still compile
 * and the macro is 0, evaluating no argument; only the first free then runs.
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>

int evaluations;

void *counted(void *p);

/* The pointer argument, counted. */
void *counted(void *p)
{
    evaluations++;
    return p;
}

/* Free p as the header says a caller should; returns what PROFILER_MEM_FREE gave. */
static int release(char *p)
{
    int refused = PROFILER_MEM_FREE(counted(p), PROF_MEM_MALLOC);
    if (!refused)
        free(p);
    return refused;
}

int main(void)
{
    PROFILER_START("main");
    char *p = malloc(32);
    PROFILER_MEM_ALLOC(p, 32, PROF_MEM_MALLOC);
    int first = release(p);
#ifndef PROFILER_DISABLE
    int second = release(p); /* a double free: refused, p is not freed again */
#else
    int second = -1; /* without the checks nothing would refuse it: not tried */
#endif
    char *q = malloc(8);
    PROFILER_MEM_ALLOC(q, 8, PROF_MEM_MALLOC);
    PROFILER_MEM_FREE(q, PROF_MEM_MALLOC); /* the result may also be ignored */
    free(q);
    PROFILER_STOP();
    printf("memfree_result: first %d second %d evaluations %d\n", first, second, evaluations);
    return 0;
}
