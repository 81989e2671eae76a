/*
 * internal.h - what every collector module shares and no one module owns: branch hints, the
 * relaxed atomics of fields read across threads, and the hidden-visibility marker; never
 * installed.
 *
 * Each module declares its own functions in the header beside it (thread.h, run.h, status.h,
 * ...): include those for the modules you call. The formats are format/'s (format.h and the
 * headers beside it).
 *
 * The library is built with -fvisibility=hidden, so everything declared in these headers stays
 * inside libprofreport even though the names carry the prof_ prefix.
 */
#ifndef PROF_INTERNAL_H
#define PROF_INTERNAL_H

#include "profreport.h"

#include <stdint.h>
#include <stdio.h>

#define PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Fields one thread writes and prof_finish reads from another thread use relaxed atomics: they
 * compile to plain moves on x86-64 and ARM64 but make the sharing well defined (and TSan-clean).
 */
#define PROF_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PROF_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Declarations of library-internal data: hidden, so PIC code reaches them without the GOT. */
#define PROF_INTERNAL __attribute__((visibility("hidden")))

/* ---- the formats (format/) and the collector's part of them ---- */

/* format.h: chunk ids, event words, records; sbuf.h: the chunk buffers; csvwrite.h: the run
   file, written at finish (prof_assemble); regionstats.h: summary mode's statistics;
   partwrite.h: the chunks of a thread's part. */
#include "csvwrite.h"
#include "format.h"
#include "partwrite.h"
#include "regionstats.h"
#include "sbuf.h"

#endif /* PROF_INTERNAL_H */
