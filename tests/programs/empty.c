/*
 * empty.c - a run that records nothing: PROFILER_INIT(NULL) (so the run starts and its folder
 * is created), then the program ends without opening a region.
 */
#include <profreport.h>

#include <stdio.h>

int main(void)
{
    PROFILER_INIT(NULL);
    printf("empty: done\n");
    return 0;
}
