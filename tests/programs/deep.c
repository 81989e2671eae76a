/*
 * deep.c - regions nested D deep (default 5000, beyond summary mode's limit of 4096): D
 * "deep" regions, each inside the previous one, then D stops.
 */
#include <profreport.h>

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
    int depth = argc > 1 ? atoi(argv[1]) : 5000;
    for (int i = 0; i < depth; i++)
        PROFILER_START("deep");
    for (int i = 0; i < depth; i++)
        PROFILER_STOP();
    printf("deep: %d\n", depth);
    return 0;
}
