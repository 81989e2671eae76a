/*
 * disabled.c - every PROFILER_ macro with an argument that has a side effect (it counts its
 * calls). Built normally by the Makefile: 4 evaluations and a run file with two "side-effect"
 * rows. The tests also build it with -DPROFILER_DISABLE and without the library: then no
 * argument is evaluated, nothing refers to the library and no file is written.
 */
#include <profreport.h>

#include <stdio.h>

int evaluations;

const char *next_id(void);
const char *next_dir(void);

/* A region id, counted. */
const char *next_id(void)
{
    evaluations++;
    return "side-effect";
}

/* A folder for PROFILER_INIT, counted: NULL means $PROFILER_DIR. */
const char *next_dir(void)
{
    evaluations++;
    return NULL;
}

int main(void)
{
    PROFILER_INIT(next_dir());
    PROFILER_START(next_id());
    {
        PROFILER_SCOPE(next_id());
    }
    PROFILER_STOP();
    PROFILER_THREAD_NAME(next_id());
    PROFILER_FINISH();
    printf("disabled: %d argument evaluations\n", evaluations);
    return 0;
}
