/*
 * memcheck.h - memory checks at run time (memcheck.c): the entry points that profreport's own
 * wrappers call besides the public prof_mem_ functions of profreport.h. Never installed:
 * preload/malloc.c (libprofreport-malloc.so) includes it, and the installed
 * <profreport_new.hpp> declares the two it calls. The symbols stay exported from libprofreport,
 * for those to link against.
 *
 * Everything else memcheck.c does it does through the hooks it registers at load (hooks.h):
 * the recorder and the run never call it by name. Its per-thread counters are its own.
 */
#ifndef PROF_MEMCHECK_H
#define PROF_MEMCHECK_H

#include "profreport.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * realloc(ptr, size) through real, recorded as a free of ptr and an allocation of the result,
 * the site being the return address caller. A double free is refused: NULL with errno set to
 * ENOMEM, and ptr is not passed to real.
 */
PROF_API void *prof_mem_realloc_at(void *ptr, size_t size, void *(*real)(void *, size_t),
                                   const void *caller);

/* For <profreport_new.hpp> (which declares them again, being installed): operator new as
   malloc(size) untracked as malloc, recorded as kind; operator delete as a free of ptr as kind,
   unless that is a double free (then refused). */
PROF_API void *prof_mem_new(size_t size, enum prof_mem_kind kind, const void *caller);
PROF_API void prof_mem_delete(void *ptr, enum prof_mem_kind kind, const void *caller);

/*
 * A symbolizer for the memory section's sites: the name of the function holding addr (a byte
 * inside a call instruction), and the source file and line of that instruction, written into
 * the buffers given (NUL-terminated, cut to their sizes). Returns 0 when it knows nothing of
 * addr. Called at the run's end, with the memory checks quiet.
 */
typedef int (*prof_mem_symbolizer)(const void *addr, char *function, size_t function_size,
                                   char *file, size_t file_size, unsigned *line);

/* Name sites through fn from now on (libprofreport-malloc.so sets libdw's), and prepare the
   stack walk while the caller knows no lock is held: backtrace's first call loads libgcc_s. */
PROF_API void prof_mem_set_symbolizer(prof_mem_symbolizer fn);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* PROF_MEMCHECK_H */
