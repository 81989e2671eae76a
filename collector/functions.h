/*
 * functions.h - the process-wide table of instrumented functions (functions.c): each distinct
 * address described once, at its first call on any thread, and filtered by PROFILER_INCLUDE and
 * PROFILER_EXCLUDE. In libprofreport-auto only.
 *
 * Ownership: the table owns every description and never frees one while the process lives
 * (recorders keep pointers to them).
 */
#ifndef PROF_FUNCTIONS_H
#define PROF_FUNCTIONS_H

#include "symbols.h"

/* The process-wide description of the function at addr (resolved at its first call, with the
   filters applied); NULL when it cannot be described. */
const struct prof_fn *prof_fn_get(const void *addr);
/* The description of the function without hooks that left-out range r was made for at a
   sample in its code (codemap.h), made at the first ask; NULL when memory runs out. */
const struct prof_fn *prof_fn_uninstrumented(uint32_t r);
/* Forget every address's description (a module was unloaded, another may take its addresses);
   the descriptions stay allocated, as recorders keep pointers to them. */
void prof_fn_forget(void);

#endif /* PROF_FUNCTIONS_H */
