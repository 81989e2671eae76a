/*
 * errnokeep.c - errno across the collector's slow paths. main (no hooks of its own) fails a
 * close() (EBADF), then calls described() (the thread's first hook: its recorder starts, and
 * the function is described at its first call), then left_out() (left out by PROFILER_EXCLUDE:
 * its hook calls are patched out at its first call), then a region's first start. Each reads
 * errno at its start and main reads it after each; every one must be EBADF.
 * Usage: errnokeep     prints "described=N left_out=N region=N after=N ebadf=N"
 */
#include "profreport.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

static int seen; /* errno as a function's body first saw it */

void described(void);
void left_out(void);

__attribute__((noinline)) void described(void) { seen = errno; }
__attribute__((noinline)) void left_out(void) { seen = errno; }

__attribute__((no_instrument_function)) int main(void)
{
    int at[4];
    close(-1);
    described();
    at[0] = seen == errno ? errno : -1;
    close(-1);
    left_out();
    at[1] = seen == errno ? errno : -1;
    close(-1);
    PROFILER_START("region");
    at[2] = errno;
    close(-1);
    PROFILER_STOP();
    at[3] = errno;
    printf("described=%d left_out=%d region=%d after=%d ebadf=%d\n", at[0], at[1], at[2], at[3],
           EBADF);
    return 0;
}
