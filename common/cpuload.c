/*
 * cpuload.c - the CPUs a process may use and the tasks runnable now, read from the kernel: a
 * second thread pays only when a core is idle.
 */
#define _GNU_SOURCE /* sched_getaffinity, CPU_COUNT */
#include "cpuload.h"

#include <fcntl.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CPUs in this process's affinity mask. */
int prof_cpus_allowed(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int n = CPU_COUNT(&set);
        if (n >= 1)
            return n;
    }
    return 1;
}

/* The runnable count of /proc/loadavg ("0.50 0.40 0.30 2/81 1234"). Read with open and read,
   not stdio: the collector calls it at exit, where it allocates as little as it can. */
static int runnable_once(void)
{
    char text[128];
    int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return 1;
    text[n] = 0;
    const char *p = text;
    for (int field = 0; field < 3; field++) {
        p = strchr(p, ' ');
        if (!p)
            return 1;
        p++;
    }
    char *end;
    long runnable = strtol(p, &end, 10);
    return end != p && *end == '/' && runnable >= 1 && runnable < 1000000 ? (int)runnable : 1;
}

/* The fewest runnable tasks of up to three looks 1 ms apart; see cpuload.h. */
int prof_runnable_fewest(int (*look)(void *ctx), void *ctx)
{
    int fewest = look(ctx);
    for (int n = 1; n < 3 && fewest > 1; n++) {
        nanosleep(&(struct timespec){.tv_nsec = 1000000}, NULL);
        int now = look(ctx);
        if (now < fewest)
            fewest = now;
    }
    return fewest;
}

/* /proc/loadavg's runnable count, as prof_runnable_fewest looks. */
static int look_loadavg(void *ctx)
{
    (void)ctx;
    return runnable_once();
}

/* The tasks runnable now; see cpuload.h. */
int prof_runnable_now(void) { return prof_runnable_fewest(look_loadavg, NULL); }
