/*
 * crash.h - a crash leaves the profile behind (crash.c): on a fatal signal every thread's
 * buffered data and a crash chunk go to the parts, then the signal does what it would have
 * done without profreport (the program's own handler first, or the default action).
 *
 * Nothing here allocates; the saved actions are static data that live as long as the process.
 */
#ifndef PROF_CRASH_H
#define PROF_CRASH_H

#include "compiler.h"
#include "hooks.h"

/* The hook set that installs the handlers when the process's first recorder begins a run
   (registered by regions.c and auto.c, as the live report's). */
extern PROF_INTERNAL const struct prof_hooks prof_crash_hooks;

#endif /* PROF_CRASH_H */
