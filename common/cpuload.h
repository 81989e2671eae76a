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
   of /proc/loadavg, "runnable/total"), the fewest of up to three looks 1 ms apart (a look
   often catches a task that runs for a moment); 1 when it cannot be read. */
int prof_runnable_now(void);

/* The fewest of up to three counts from look, 1 ms apart, stopping at 1 (only the caller). One
   look often counts a kernel worker or a short-lived process gone a moment later: on an idle
   machine that sent the 1.5 GB bench run to one reading thread (9 s instead of 5). */
int prof_runnable_fewest(int (*look)(void *ctx), void *ctx);

#endif /* PROF_CPULOAD_H */
