/*
 * status.c - whether this process records: the generations every event checks, the thread's
 * busy and quiet marks and its dropped events, and failing quietly with one warning.
 */
#include "status.h"

#include "fileutil.h"

#include <stdarg.h>
#include <stdio.h>

unsigned prof_gen = 1;
unsigned prof_mod_gen = 1;

/* Nonzero while a slow path of the collector runs on this thread (status.h). */
__thread unsigned prof_busy __attribute__((tls_model("initial-exec")));
/* Nonzero while the collector's own allocations run on this thread (status.h). */
__thread unsigned prof_mem_quiet __attribute__((tls_model("initial-exec")));
/* Events this thread dropped because they came while the collector ran on it. Thread-local, so
   it counts from a signal handler even before the thread has a recorder. */
static __thread uint64_t dropped_events __attribute__((tls_model("initial-exec")));

/* Atomics: set by any thread, read by every slow path. */
static int failed, stopped, warned;

/* Count one event dropped because the collector was busy on this thread. */
__attribute__((noinline, cold)) void prof_dropped_event(void)
{
    /* One instruction on x86-64: a nested handler cannot tear it. Read by other threads. */
    __atomic_add_fetch(&dropped_events, 1, __ATOMIC_RELAXED);
}

/* The calling thread's dropped-event counter, for its recorder to report. */
const uint64_t *prof_dropped_counter(void) { return &dropped_events; }

/* One line on stderr with one write(), so lines from threads do not interleave. */
void prof_warn(const char *fmt, ...)
{
    char line[1024];
    int n = snprintf(line, sizeof line, "profreport: ");
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    n += m;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    prof_write_stderr(line, (size_t)n);
}

/* Stop all profiling in this process after an error; the first failure is reported. */
void prof_fail(const char *what, const char *path, int err)
{
    __atomic_store_n(&failed, 1, __ATOMIC_RELAXED);
    __atomic_store_n(&stopped, 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(&prof_gen, 1, __ATOMIC_RELEASE);
    if (__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        return;
    if (path)
        prof_warn("%s '%s': %s; profiling is off for the rest of this run", what, path,
                  prof_errno_text(err));
    else
        prof_warn("%s: %s; profiling is off for the rest of this run", what, prof_errno_text(err));
}

/* Whether a failure stopped profiling. */
int prof_failed(void) { return __atomic_load_n(&failed, __ATOMIC_RELAXED); }

/* Whether profiling stopped, by prof_finish or a failure. */
int prof_stopped(void) { return __atomic_load_n(&stopped, __ATOMIC_RELAXED); }

/* Stop profiling without a failure (prof_finish). */
void prof_stop_all(void) { __atomic_store_n(&stopped, 1, __ATOMIC_RELAXED); }

/* A run begins: clear the failure, the stop and the warning. */
void prof_status_restart(void)
{
    __atomic_store_n(&failed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&warned, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&stopped, 0, __ATOMIC_RELAXED);
}
