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
/* fn's enter hook returning to hook lies outside fn's code: mark fn inlined when hook is in
   another function's code (codemap.h, prof_codemap_inlined). Lock-free. */
void prof_fn_inlined_at(const struct prof_fn *fn, const void *hook);
/*
 * A general enter of fn whose hook returns to hook (sampled timing, auto.c): a copy that gcc
 * inlined into another function calls its hooks from that function's code, where its samples
 * go (sample.c), so its calls come with no time of their own; the run file says so (FORMAT.md
 * 1.2). In line, one comparison while the hook is in fn's own code or fn is marked already.
 */
static inline void prof_fn_hook_seen(const struct prof_fn *fn, const void *hook)
{
    if (PROF_UNLIKELY((uintptr_t)hook - (uintptr_t)fn->addr >= fn->size) && fn->size &&
        !PROF_LOAD(fn->inlined))
        prof_fn_inlined_at(fn, hook);
}
/* Forget every address's description (a module was unloaded, another may take its addresses);
   the descriptions stay allocated, as recorders keep pointers to them. */
void prof_fn_forget(void);

#endif /* PROF_FUNCTIONS_H */
