/*
 * cpus.h - cpus.c: how many threads or processes the profreport command may keep busy at
 * once.
 */
#ifndef PROFREPORT_CPUS_H
#define PROFREPORT_CPUS_H

/* The environment variable that sets rep_threads (a number from 1 up), for tests and
   benchmarks, and for users who share a machine. */
#define REP_THREADS_ENV "PROFREPORT_THREADS"

/* The number PROFREPORT_THREADS holds when it is a whole number from 1 to 1024, else 0: the
   user's choice, which overrides the reporter's own guesses. */
int rep_threads_asked(void);
/* rep_threads_asked when the user asked, else the number of CPUs this process may run on
   (sched_getaffinity), at least 1. */
int rep_threads(void);

#endif /* PROFREPORT_CPUS_H */
