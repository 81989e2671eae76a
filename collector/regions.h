/*
 * regions.h - the region API on the calling thread (regions.c): PROFILER_START, PROFILER_STOP,
 * PROFILER_SCOPE, PROFILER_API and thread names, as declared in profreport.h.
 *
 * regions.c defines only public functions (profreport.h declares them) and registers the live
 * report's hooks at load; it has nothing else to declare. Ownership as in profreport.h: every
 * string stays the caller's.
 */
#ifndef PROF_REGIONS_H
#define PROF_REGIONS_H

#include "profreport.h"

#endif /* PROF_REGIONS_H */
