/*
 * ids.c - region ids that are not string literals.
 *
 *   ids many N     N distinct ids "id-0".."id-(N-1)" built at run time: one region of each at
 *                  depth 0, then "wrap" holding one region of each; the run is finished before
 *                  the ids are freed.
 *   ids same-text  two different arrays that both hold the text "dup": a region with the first
 *                  holds a region with the second; then 3 regions with the first and 2 with the
 *                  second at depth 0. Region ids are strings: both arrays name the same region.
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char dup_a[] = "dup";
static char dup_b[] = "dup";

int main(int argc, char **argv)
{
    if (argc > 2 && strcmp(argv[1], "many") == 0) {
        int n = atoi(argv[2]);
        char **ids = calloc((size_t)n, sizeof *ids);
        if (!ids)
            return 1;
        for (int i = 0; i < n; i++) {
            ids[i] = malloc(16);
            if (!ids[i])
                return 1;
            snprintf(ids[i], 16, "id-%d", i);
        }
        for (int i = 0; i < n; i++) {
            PROFILER_START(ids[i]);
            PROFILER_STOP();
        }
        PROFILER_START("wrap");
        for (int i = 0; i < n; i++) {
            PROFILER_START(ids[i]);
            PROFILER_STOP();
        }
        PROFILER_STOP();
        /* The ids must outlive the run: write it before freeing them. */
        PROFILER_FINISH();
        for (int i = 0; i < n; i++)
            free(ids[i]);
        free(ids);
        printf("ids: %d\n", n);
        return 0;
    }
    if (argc > 1 && strcmp(argv[1], "same-text") == 0) {
        PROFILER_START(dup_a);
        PROFILER_START(dup_b);
        PROFILER_STOP();
        PROFILER_STOP();
        for (int i = 0; i < 3; i++) {
            PROFILER_START(dup_a);
            PROFILER_STOP();
        }
        for (int i = 0; i < 2; i++) {
            PROFILER_START(dup_b);
            PROFILER_STOP();
        }
        printf("ids: same text\n");
        return 0;
    }
    fprintf(stderr, "usage: ids many N | ids same-text\n");
    return 2;
}
