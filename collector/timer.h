/*
 * timer.h - the tick source (timer.c): rdtsc when the TSC is invariant, else CLOCK_MONOTONIC,
 * and the measurement of the tick rate. Pure functions and one process-wide flag; nothing here
 * allocates or is freed.
 */
#ifndef PROF_TIMER_H
#define PROF_TIMER_H

#include "compiler.h"

#include <stdint.h>

enum prof_clock { PROF_CLOCK_TSC, PROF_CLOCK_MONOTONIC };

/* Nonzero when ticks come from rdtsc; read on every event, written once at process init. */
extern PROF_INTERNAL int prof_use_tsc;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t prof_monotonic_ns(void);

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
/* The current tick count: the TSC when usable, else CLOCK_MONOTONIC nanoseconds. */
static inline uint64_t prof_ticks(void)
{
    if (PROF_LIKELY(prof_use_tsc))
        return __rdtsc();
    return prof_monotonic_ns();
}
#else
static inline uint64_t prof_ticks(void) { return prof_monotonic_ns(); }
#endif

/* A tick count and a CLOCK_MONOTONIC reading taken as close together as possible. */
void prof_clock_pair(uint64_t *ticks, uint64_t *ns);

/* Nonzero when this CPU has an invariant TSC (CPUID 0x80000007, EDX bit 8). */
int prof_tsc_invariant(void);

/* Ticks per second given ticks and nanoseconds elapsed over the same interval; 0 if undefined. */
uint64_t prof_frequency_from(uint64_t ticks, uint64_t ns);

/* How long the TSC's rate is measured at start, and the shortest run measured again over its
   whole length at its finish. */
#define PROF_CALIBRATE_NS 50000u
#define PROF_REMEASURE_NS 200000u

/*
 * Pick the clock (PROF_CLOCK_TSC only if requested and invariant) and measure its rate.
 * Sets prof_use_tsc. Returns the ticks per second.
 */
uint64_t prof_timer_setup(enum prof_clock wanted, enum prof_clock *chosen);

struct tm;
/* The calendar date and time (fields as gmtime_r's) of secs seconds after the epoch, taking no
   lock of the C library. */
void prof_civil_time(int64_t secs, struct tm *out);

#endif /* PROF_TIMER_H */
