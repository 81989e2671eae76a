/*
 * memcheck.c - exactly one of each memory finding, reported through the PROFILER_MEM_ macros,
 * with known bytes per region. The markers in comments name the lines test_memory.py expects
 * as sites; nothing is printed.
 */
#include <profreport.h>

#include <pthread.h>
#include <stdlib.h>

static void *shared;
/* The leak stays reachable from here: never freed for profreport, not lost for LeakSanitizer. */
static char *volatile kept;

/* Free on another thread what main allocated. */
static void *worker(void *arg)
{
    (void)arg;
    PROFILER_START("worker");
    PROFILER_MEM_FREE(shared, PROF_MEM_MALLOC); /* @CROSS */
    free(shared);
    PROFILER_STOP();
    return NULL;
}

int main(void)
{
    static char not_heap[16];
    PROFILER_START("setup");
    char *leak = malloc(100);
    PROFILER_MEM_ALLOC(leak, 100, PROF_MEM_MALLOC); /* @LEAK */
    kept = leak;
    char *twice = malloc(200);
    PROFILER_MEM_ALLOC(twice, 200, PROF_MEM_MALLOC);
    PROFILER_STOP();

    PROFILER_START("work");
    PROFILER_MEM_FREE(twice, PROF_MEM_MALLOC); /* @FIRSTFREE */
    char *volatile freed = twice;              /* hides the second free from -Wuse-after-free */
    free(twice);
    PROFILER_MEM_FREE(freed, PROF_MEM_MALLOC);    /* @DOUBLE */
    PROFILER_MEM_FREE(not_heap, PROF_MEM_MALLOC); /* @UNKNOWN */
    void *obj = malloc(24);
    PROFILER_MEM_ALLOC(obj, 24, PROF_MEM_NEW);  /* @NEW */
    PROFILER_MEM_FREE(obj, PROF_MEM_NEW_ARRAY); /* @DELETEARRAY */
    free(obj);
    void *m = malloc(40);
    PROFILER_MEM_ALLOC(m, 40, PROF_MEM_MALLOC); /* @MALLOC */
    PROFILER_MEM_FREE(m, PROF_MEM_NEW);         /* @DELETE */
    free(m);
    shared = malloc(300);
    PROFILER_MEM_ALLOC(shared, 300, PROF_MEM_MALLOC); /* @SHARED */
    PROFILER_STOP();

    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0 || pthread_join(th, NULL) != 0)
        return 1;

    void *outside = malloc(50);
    PROFILER_MEM_ALLOC(outside, 50, PROF_MEM_MALLOC);
    PROFILER_MEM_FREE(outside, PROF_MEM_MALLOC);
    free(outside);
    return kept ? 0 : 1;
}
