/*
 * cpuload.h - cpuload.c: how many CPUs this process may run on, and how busy the machine is
 * now: what decides whether a second thread would find a core of its own (the profreport
 * command's reader thread, the collector's second run-file writer).
 */
#ifndef PROF_CPULOAD_H
#define PROF_CPULOAD_H

/* The number of CPUs this process may run on (sched_getaffinity: a taskset or a container),
   at least 1. */
int prof_cpus_allowed(void);

/* The tasks running or ready to run on the machine now, the caller included (the fourth field
   of /proc/loadavg, "runnable/total"); 1 when it cannot be read. */
int prof_runnable_now(void);

#endif /* PROF_CPULOAD_H */
