/*
 * status.h - whether this process records, as every collector module checks it (status.c): the
 * generation counters read on every event, the per-thread marks that keep a signal handler (or
 * the collector's own allocations) out of the collector, and failing quietly with one warning.
 *
 * Nothing here allocates; the thread-local marks live as long as their thread.
 */
#ifndef PROF_STATUS_H
#define PROF_STATUS_H

#include "compiler.h"

#include <stdint.h>

/* Bumped whenever recorders must re-check the run (finish, failure, fork, dlclose): read per
   event. */
extern PROF_INTERNAL unsigned prof_gen;
/* Bumped (before prof_gen) when a module was unloaded: code addresses may now mean other
   functions, so each thread empties its id table at its next event (run.c, prof_attach). */
extern PROF_INTERNAL unsigned prof_mod_gen;
/* Bumped when a function is first found to have copies inlined into other functions
   (functions.c, prof_fn_inlined_at): each thread's next write of its part names its inlined
   functions again (thread.c). */
extern PROF_INTERNAL unsigned prof_inlined_gen;

/*
 * Re-entry from signal handlers. While an event runs on a thread, its recorder's gen has the
 * PROF_GEN_BUSY bit set (thread.h, prof_busy_mark: the hot path's generation check, already
 * there, then fails for a handler; prof_gen never counts that high), and while a slow path runs
 * without a current recorder (attach, finish, the thread's end), prof_busy is set. An event
 * that finds either comes from a signal handler that interrupted the collector (or from code
 * the collector itself called): prof_attach and prof_resync drop it and count it
 * (prof_dropped_event), so no lock is taken twice and no record is written by two hands.
 */
#define PROF_GEN_BUSY 0x80000000u
extern __thread unsigned prof_busy __attribute__((tls_model("initial-exec")));
/* Mark a slow path of the collector on this thread; compiler barriers keep every change of
   collector state between the two marks, where a signal handler sees them. They nest. */
static inline void prof_busy_begin(void)
{
    prof_busy++;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void prof_busy_end(void)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    prof_busy--;
}

/* Count one event dropped because the collector was busy on this thread. */
void prof_dropped_event(void);
/* The calling thread's count of dropped events: it lives as long as the thread. */
const uint64_t *prof_dropped_counter(void);

/*
 * Nonzero while the collector itself works on this thread: its own allocations and frees (and
 * those of the libc functions it calls) are not tracked by the memory checks. Every collector
 * path that allocates runs between prof_mem_quiet_begin and prof_mem_quiet_end.
 */
extern __thread unsigned prof_mem_quiet __attribute__((tls_model("initial-exec")));
static inline void prof_mem_quiet_begin(void) { prof_mem_quiet++; }
static inline void prof_mem_quiet_end(void) { prof_mem_quiet--; }

/* Stop the whole process's profiling after an error; the first failure is warned about.
   Takes no lock. */
void prof_fail(const char *what, const char *path, int err);
/* One line on stderr, prefixed "profreport: ". */
void prof_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Nonzero once a failure stopped profiling (until the next run begins). */
int prof_failed(void);
/* Nonzero once profiling stopped (prof_finish or a failure): no run starts lazily. */
int prof_stopped(void);
/* prof_finish: stop, without a failure. */
void prof_stop_all(void);
/* A run begins: no failure, not stopped, and the next failure is warned about again. */
void prof_status_restart(void);

/*
 * Which process is this? The collector's state belongs to one process. A child made by fork()
 * is told by fork's handler (prof_process_forked); one made by _Fork() or clone() is found by
 * prof_process_check on the slow paths (an attach, a buffer write, the end), which then calls
 * the handler given to prof_process_setup before anything is written. A child that shares its
 * parent's memory (vfork, CLONE_VM) must change nothing: it records nothing.
 */
enum { PROF_PROCESS_SAME, PROF_PROCESS_FORKED, PROF_PROCESS_SHARED };
void prof_process_setup(void (*new_process)(void));
void prof_process_forked(void);
int prof_process_check(void);

/* Nonzero when the program runs with changed credentials (setuid, setgid: AT_SECURE). */
int prof_secure(void);
/* getenv for PROFILER_* variables: secure_getenv, so NULL when prof_secure(). */
const char *prof_getenv(const char *name);

#endif /* PROF_STATUS_H */
