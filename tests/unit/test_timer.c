/*
 * test_timer.c - unit tests of timer.c: the tick rate arithmetic and the choice of clock.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <time.h>

#include "timer.h"

/* The rate is ticks per second, rounded to the nearest integer. */
static void frequency_is_ticks_per_second(void **state)
{
    (void)state;
    assert_int_equal(prof_frequency_from(3000000, 1000000), 3000000000u);
    assert_int_equal(prof_frequency_from(1, 3), 333333333u);
    assert_int_equal(prof_frequency_from(2, 3), 666666667u);
}

/* Long runs do not overflow: an hour of a 4 GHz counter. */
static void frequency_survives_long_intervals(void **state)
{
    (void)state;
    uint64_t ns = 3600ull * 1000000000u;
    assert_int_equal(prof_frequency_from(4000000000ull * 3600u, ns), 4000000000u);
}

/* No time elapsed gives no rate rather than a division by zero. */
static void frequency_of_empty_interval_is_zero(void **state)
{
    (void)state;
    assert_int_equal(prof_frequency_from(12345, 0), 0);
}

/* Asking for the monotonic clock gets nanoseconds. */
static void monotonic_clock_counts_nanoseconds(void **state)
{
    (void)state;
    enum prof_clock c;
    assert_int_equal(prof_timer_setup(PROF_CLOCK_MONOTONIC, &c), 1000000000u);
    assert_int_equal(c, PROF_CLOCK_MONOTONIC);
    assert_int_equal(prof_use_tsc, 0);
    uint64_t a = prof_ticks(), n = prof_monotonic_ns(), b = prof_ticks();
    assert_true(a <= n && n <= b);
}

/* The TSC is used only when invariant, and then its measured rate is plausible. */
static void tsc_is_chosen_only_when_invariant(void **state)
{
    (void)state;
    enum prof_clock c;
    uint64_t f = prof_timer_setup(PROF_CLOCK_TSC, &c);
    if (prof_tsc_invariant()) {
        assert_int_equal(c, PROF_CLOCK_TSC);
        assert_int_equal(prof_use_tsc, 1);
        assert_in_range(f, 10000000u, 100000000000ull); /* 10 MHz .. 100 GHz */
    } else {
        assert_int_equal(c, PROF_CLOCK_MONOTONIC);
        assert_int_equal(f, 1000000000u);
    }
}

/* Ticks never go backwards on one thread, whichever clock is in use. */
static void ticks_do_not_go_backwards(void **state)
{
    (void)state;
    enum prof_clock c;
    prof_timer_setup(PROF_CLOCK_TSC, &c);
    uint64_t prev = prof_ticks();
    for (int i = 0; i < 100000; i++) {
        uint64_t now = prof_ticks();
        assert_true(now >= prev);
        prev = now;
    }
}

/* The measured rate converts a known sleep into about the right time (loose: a correctness
   check of the calibration, not a timing test). */
static void calibrated_rate_converts_a_sleep(void **state)
{
    (void)state;
    enum prof_clock c;
    uint64_t f = prof_timer_setup(PROF_CLOCK_TSC, &c);
    uint64_t t0, n0, t1, n1;
    prof_clock_pair(&t0, &n0);
    struct timespec ts = {0, 30000000};
    nanosleep(&ts, NULL);
    prof_clock_pair(&t1, &n1);
    double by_ticks = (double)(t1 - t0) / (double)f;
    double by_ns = (double)(n1 - n0) / 1e9;
    assert_true(by_ticks > by_ns * 0.98 && by_ticks < by_ns * 1.02);
}

/* The civil date and time agree with gmtime_r's, across leap years, centuries and before 1970. */
static void civil_time_agrees_with_gmtime(void **state)
{
    (void)state;
    for (int64_t secs = -4102444800ll; secs < 7258118400ll; secs += 86400 * 7 + 3671) {
        time_t t = (time_t)secs;
        struct tm want, got;
        assert_non_null(gmtime_r(&t, &want));
        prof_civil_time(secs, &got);
        assert_int_equal(got.tm_year, want.tm_year);
        assert_int_equal(got.tm_mon, want.tm_mon);
        assert_int_equal(got.tm_mday, want.tm_mday);
        assert_int_equal(got.tm_hour, want.tm_hour);
        assert_int_equal(got.tm_min, want.tm_min);
        assert_int_equal(got.tm_sec, want.tm_sec);
    }
}

/* Leap days by hand: 2000-02-29 (a leap century), 2100-03-01 (not one), 1969-12-31 23:59:59. */
static void civil_time_of_known_dates(void **state)
{
    (void)state;
    struct tm t;
    prof_civil_time(951782400, &t);
    assert_int_equal(t.tm_year, 100);
    assert_int_equal(t.tm_mon, 1);
    assert_int_equal(t.tm_mday, 29);
    prof_civil_time(4107542400ll, &t);
    assert_int_equal(t.tm_year, 200);
    assert_int_equal(t.tm_mon, 2);
    assert_int_equal(t.tm_mday, 1);
    prof_civil_time(-1, &t);
    assert_int_equal(t.tm_year, 69);
    assert_int_equal(t.tm_mon, 11);
    assert_int_equal(t.tm_mday, 31);
    assert_int_equal(t.tm_hour, 23);
    assert_int_equal(t.tm_min, 59);
    assert_int_equal(t.tm_sec, 59);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(civil_time_agrees_with_gmtime),
        cmocka_unit_test(civil_time_of_known_dates),
        cmocka_unit_test(frequency_is_ticks_per_second),
        cmocka_unit_test(frequency_survives_long_intervals),
        cmocka_unit_test(frequency_of_empty_interval_is_zero),
        cmocka_unit_test(monotonic_clock_counts_nanoseconds),
        cmocka_unit_test(tsc_is_chosen_only_when_invariant),
        cmocka_unit_test(ticks_do_not_go_backwards),
        cmocka_unit_test(calibrated_rate_converts_a_sleep),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
