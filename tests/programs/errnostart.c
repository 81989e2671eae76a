/*
 * errnostart.c - errno across the collector's start: main fails a close() (EBADF), then opens
 * its first region (the collector starts the run and the thread's recorder: it makes folders
 * and files, some of whose calls fail as a matter of course), stops it, and ends the run
 * (PROFILER_FINISH: the run file written); it reads errno after each.
 * Usage: errnostart     prints "start=N stop=N finish=N ebadf=N"
 */
#include <profreport.h>

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

int main(void)
{
    int at[3];
    close(-1);
    PROFILER_START("first");
    at[0] = errno;
    close(-1);
    PROFILER_STOP();
    at[1] = errno;
    close(-1);
    PROFILER_FINISH();
    at[2] = errno;
    printf("start=%d stop=%d finish=%d ebadf=%d\n", at[0], at[1], at[2], EBADF);
    return 0;
}
