/*
 * cpus.c - the number of CPUs profreport may use: what a taskset or a container allows, not
 * what the machine has, so that a job confined to one CPU does not fight itself.
 */
#include "base/cpus.h"
#include "cpuload.h"

#include <stdlib.h>

/* The number set in PROFREPORT_THREADS, or 0; see cpus.h. */
int rep_threads_asked(void)
{
    const char *s = getenv(REP_THREADS_ENV);
    /* strtol would skip leading blanks and take a sign: only digits count. */
    if (s && *s >= '0' && *s <= '9') {
        char *end;
        long n = strtol(s, &end, 10);
        if (*end == 0 && n >= 1 && n <= 1024)
            return (int)n;
    }
    return 0;
}

/* The number set in PROFREPORT_THREADS, or CPUs allowed; see cpus.h. */
int rep_threads(void)
{
    int n = rep_threads_asked();
    if (n)
        return n;
    return prof_cpus_allowed();
}
