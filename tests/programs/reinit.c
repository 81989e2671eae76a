/*
 * reinit.c - two runs in one process.
 *
 *   reinit DIR1 DIR2 [--init-twice]
 *
 * prof_init(DIR1), three "first" regions (with --init-twice, prof_init(DIR2) is called again
 * between the first and the second, and must fail: a run is recording), prof_finish() twice; a
 * "between" region (not recorded: no run after a finish until the next init); PROFILER_INIT(DIR2),
 * four "second" regions, PROFILER_FINISH(); an "after-finish" region (not recorded). Prints on
 * stderr the codes of the first init, the two finishes and (with --init-twice) the second init:
 * "reinit: codes I F F [I2]".
 */
#include <profreport.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    int twice = argc == 4 && strcmp(argv[3], "--init-twice") == 0;
    if (argc != 3 && !twice) {
        fprintf(stderr, "usage: reinit DIR1 DIR2 [--init-twice]\n");
        return 2;
    }
    enum prof_error init1 = prof_init(argv[1]), init_again = PROF_OK;
    for (int i = 0; i < 3; i++) {
        PROFILER_START("first");
        PROFILER_STOP();
        if (twice && i == 0)
            init_again = prof_init(argv[2]);
    }
    enum prof_error finish1 = prof_finish();
    enum prof_error finish1b = prof_finish();

    PROFILER_START("between");
    PROFILER_STOP();

    PROFILER_INIT(argv[2]);
    for (int i = 0; i < 4; i++) {
        PROFILER_START("second");
        PROFILER_STOP();
    }
    PROFILER_FINISH();

    PROFILER_START("after-finish");
    PROFILER_STOP();

    if (twice)
        fprintf(stderr, "reinit: codes %d %d %d %d\n", (int)init1, (int)finish1, (int)finish1b,
                (int)init_again);
    else
        fprintf(stderr, "reinit: codes %d %d %d\n", (int)init1, (int)finish1, (int)finish1b);
    printf("reinit: done\n");
    return 0;
}
