/*
 * timer.c - the tick source: rdtsc when the TSC is invariant, CLOCK_MONOTONIC otherwise,
 * and the measurement of the TSC's rate against CLOCK_MONOTONIC.
 */
#include "timer.h"

#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int prof_use_tsc;

/* Nanoseconds of CLOCK_MONOTONIC. */
uint64_t prof_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The calendar date and time secs seconds after the epoch, as gmtime_r gives it but without
 * the C library's time-zone lock (gmtime_r takes it, and the collector may be called from an
 * allocation made while localtime holds it). Days to civil date after Howard Hinnant's
 * "chrono-compatible low-level date algorithms".
 */
void prof_civil_time(int64_t secs, struct tm *out)
{
    int64_t days = secs / 86400, rem = secs % 86400;
    if (rem < 0) {
        rem += 86400;
        days--;
    }
    days += 719468; /* from 1970-01-01 to 0000-03-01 */
    int64_t era = (days >= 0 ? days : days - 146096) / 146097;
    unsigned doe = (unsigned)(days - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    unsigned month = mp < 10 ? mp + 3 : mp - 9;
    int64_t year = (int64_t)yoe + era * 400 + (month <= 2);
    *out = (struct tm){0};
    out->tm_year = (int)(year - 1900);
    out->tm_mon = (int)month - 1;
    out->tm_mday = (int)(doy - (153 * mp + 2) / 5 + 1);
    out->tm_hour = (int)(rem / 3600);
    out->tm_min = (int)(rem / 60 % 60);
    out->tm_sec = (int)(rem % 60);
}

/* Nonzero when the TSC ticks at a constant rate in every power state (invariant TSC). */
int prof_tsc_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
        return 0;
    __get_cpuid(0x80000007u, &a, &b, &c, &d);
    return (d >> 8) & 1u;
#else
    return 0;
#endif
}

/* Ticks per second from an interval measured in both units; 0 when ns is 0. */
uint64_t prof_frequency_from(uint64_t ticks, uint64_t ns)
{
    if (ns == 0)
        return 0;
    /* 128-bit product: ticks * 1e9 overflows 64 bits after about 6 s of a 3 GHz TSC. */
    unsigned __int128 f = (unsigned __int128)ticks * 1000000000u + ns / 2;
    return (uint64_t)(f / ns);
}

/* A (ticks, ns) pair read as close together as the machine allows: the tightest of three tries. */
void prof_clock_pair(uint64_t *ticks, uint64_t *ns)
{
    uint64_t best = UINT64_MAX;
    for (int i = 0; i < 3; i++) {
        uint64_t a = prof_ticks();
        uint64_t n = prof_monotonic_ns();
        uint64_t b = prof_ticks();
        if (b - a < best) {
            best = b - a;
            *ticks = a + (b - a) / 2;
            *ns = n;
        }
    }
}

/*
 * Pick the clock and measure its rate. The TSC is measured over 50 us of spinning on both
 * clocks: read within ~50 ns of each other, that is good to about one part in 10^3, enough for
 * the thresholds set from it, and the run's finish measures again over the whole run (from
 * 200 us on), which is the rate written. A sleep of 250 us (2 ms before that) was most of a
 * short program's cost of starting the collector: 0.3 ms of wall time with the timer's slack.
 * A spin a signal or the scheduler interrupts only lasts longer; the pair read after it is as
 * tight as ever.
 */
uint64_t prof_timer_setup(enum prof_clock wanted, enum prof_clock *chosen)
{
#if defined(__x86_64__) || defined(__i386__)
    if (wanted == PROF_CLOCK_TSC && prof_tsc_invariant()) {
        uint64_t t0, n0, t1, n1;
        prof_use_tsc = 1;
        prof_clock_pair(&t0, &n0);
        while (prof_monotonic_ns() - n0 < PROF_CALIBRATE_NS) {
        }
        prof_clock_pair(&t1, &n1);
        uint64_t f = prof_frequency_from(t1 - t0, n1 - n0);
        if (f >= 1000000u) {
            *chosen = PROF_CLOCK_TSC;
            return f;
        }
    }
#else
    (void)wanted;
#endif
    prof_use_tsc = 0;
    *chosen = PROF_CLOCK_MONOTONIC;
    return 1000000000u;
}
