/*
 * auto.h - the -finstrument-functions hooks of libprofreport-auto (auto.c): the two functions
 * gcc and clang call around every instrumented function, and the dlclose wrapper that makes
 * threads forget the addresses of an unloaded module.
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

#endif /* PROF_AUTO_H */
