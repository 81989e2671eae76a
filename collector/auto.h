/*
 * auto.h - the -finstrument-functions hooks of libprofreport-auto (auto.c): the two functions
 * gcc and clang call around every instrumented function, the dlclose wrapper that makes
 * threads forget the addresses of an unloaded module, and the pthread_create wrapper that
 * starts a new thread's recording when the filters may have patched its hooks away.
 *
 * Their per-thread state is struct prof_hooks_state (thread.h), written only by auto.c.
 */
#ifndef PROF_AUTO_H
#define PROF_AUTO_H

/* The hooks gcc and clang call; they must never be instrumented themselves. */
#define PROF_HOOK __attribute__((visibility("default"), no_instrument_function))
PROF_HOOK void __cyg_profile_func_enter(void *fn, void *site);
PROF_HOOK void __cyg_profile_func_exit(void *fn, void *site);
/* dlclose wrapped, as uftrace's libmcount wraps dlopen: an unloaded module's addresses may be
   taken by the next one, so what they meant must be forgotten. */
PROF_HOOK int dlclose(void *handle);
/* pthread_create wrapped: with PROFILER_INCLUDE or PROFILER_EXCLUDE set, a thread whose
   functions are all left out, started after their hook calls were patched out, would never
   call a hook, so it would never record nor sample: it starts recording as it starts. */
#include <pthread.h>
PROF_HOOK int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *),
                             void *arg);

/* Read the hooks' settings from the environment, once per process (the first caller does;
   the function filters are then prof_run_include and prof_run_exclude, run.h). */
void prof_auto_configure(void);

#endif /* PROF_AUTO_H */
