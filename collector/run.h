/*
 * run.h - the process side of recording (run.c): configuration from the environment, the run
 * and its registry of recorders, the run file at exit or prof_finish, and fork.
 *
 * Ownership: the run owns every registered recorder's place in its registry and the paths of
 * ended threads' parts; a recorder is freed by its thread's key destructor (or, in a fork
 * child, with the parent's other threads').
 */
#ifndef PROF_RUN_H
#define PROF_RUN_H

#include "profreport.h"
#include "thread.h"

/* The slow path of every event; returns the caller's recorder or NULL when not recording. */
struct prof_thread *prof_attach(void);
/* Bring a recorder whose generation is stale up to date when its thread still records in the
   current run (a module was unloaded); NULL otherwise. Starts no run and no part. */
struct prof_thread *prof_resync(void);
/* Nonzero once PROFILER_ENABLE=0 was seen (valid after prof_attach returned). */
int prof_disabled(void);
/* The mode used when PROFILER_MODE is unset: events, unless a library that records every
   function call (libprofreport-auto) asks for summary mode at load, before the first event. */
void prof_run_default_mode(enum prof_mode mode);

/* How a summary run times calls (PROFILER_TIMING): a clock read at every start and stop, or
   calls counted and time taken from CPU-time samples (sample.h). */
enum prof_timing { PROF_TIMING_EXACT, PROF_TIMING_SAMPLED };
/* The timing used when PROFILER_TIMING is unset: exact, unless libprofreport-auto asks for
   sampled timing at load. */
void prof_run_default_timing(enum prof_timing timing);
/* The function filters (PROFILER_INCLUDE, PROFILER_EXCLUDE; NULL: none), named in the header of
   every run begun after (the Include and Exclude records): libprofreport-auto sets them before
   its first run, since only its hooks apply them. */
void prof_run_filters(const char *include, const char *exclude);
/* Whether the runs have a function filter. */
int prof_run_filtered(void);
/* The function filters prof_run_filters set (NULL: none). */
const char *prof_run_include(void);
const char *prof_run_exclude(void);
/* For the crash handler (crash.c): try the run lock without waiting; when *held is set, the
   registry's first recorder (NULL when no run records), and the lock stays held until
   prof_run_crash_release. Async-signal-safe in practice (a trylock is one atomic exchange). */
struct prof_thread *prof_run_crash_hold(int *held);
void prof_run_crash_release(void);
/*
 * exec ends a process image as exit does: the preload library (preload/exec.c) calls
 * prof_exec_begin before it, which writes the run file of this image now (nothing in a vfork
 * child: the run is its parent's), and prof_exec_failed with what it returned when the exec
 * came back, so the image records on in a run of its own. Exported for that library only.
 */
PROF_API int prof_exec_begin(void);
PROF_API void prof_exec_failed(int finished);

#endif /* PROF_RUN_H */
