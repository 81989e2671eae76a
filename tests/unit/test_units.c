/*
 * test_units.c - unit tests of units.c: how a time is shown on the terminal and in the
 * workbook (a unit per value, three significant digits, or the unit --unit forces), and the
 * number format that shows a stored number the same way.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "model/units.h"

/* time_text of ns with the unit forced (NULL: auto), checked against want. */
static void shows(double ns, const char *forced, const char *want)
{
    char buf[64];
    assert_string_equal(time_text(buf, sizeof buf, ns, forced), want);
}

/* Units step at 1 us, 1 ms and 1 s, and a forced unit wins over the values. */
static void units_step_by_thousands_unless_forced(void **state)
{
    (void)state;
    assert_string_equal(unit_for(999, "auto").name, "ns");
    assert_string_equal(unit_for(1000, "auto").name, "us");
    assert_string_equal(unit_for(2.5e6, NULL).name, "ms");
    assert_string_equal(unit_for(3e9, "auto").name, "s");
    struct unit u = unit_for(3e9, "us");
    assert_string_equal(u.name, "us");
    assert_true(u.ns == 1e3);
}

/* The figures: a 19 ns call, a 1.09 s call and a 10.8 s total each get their own
   unit and three significant digits. */
static void each_time_gets_its_own_unit_and_three_digits(void **state)
{
    (void)state;
    shows(19, NULL, "19.0 ns");
    shows(1092010972, NULL, "1.09 s");
    shows(10788886607.0, "auto", "10.8 s");
    shows(312.4e6, NULL, "312 ms");
    shows(1500, NULL, "1.50 us");
    shows(25.46, NULL, "25.5 ns");
    shows(999.4, NULL, "999 ns");
}

/* A value that rounds up to 1000 of a unit is shown in the next one. */
static void rounding_up_to_a_thousand_moves_to_the_next_unit(void **state)
{
    (void)state;
    shows(999.6, NULL, "1.00 us");
    shows(999999, NULL, "1.00 ms");
    shows(999.5e6, NULL, "1.00 s");
    shows(99.96, NULL, "100 ns");
}

/* Below 1 ns and above 1000 s there is no other unit: the digits say it. */
static void the_ends_of_the_scale_keep_three_digits(void **state)
{
    (void)state;
    shows(0.5, NULL, "0.500 ns");
    shows(0.0123, NULL, "0.0123 ns");
    shows(1.5e12, NULL, "1,500 s");
    shows(0, NULL, "0 ns");
}

/* --unit shows every time in its unit, with the decimals three significant digits take (at
   most TIME_DECIMALS_MAX), thousands separated. */
static void a_forced_unit_keeps_three_digits_in_that_unit(void **state)
{
    (void)state;
    shows(19, "ms", "0.0000190 ms");
    shows(1092010972, "us", "1,092,011 us");
    shows(1092010972, "s", "1.09 s");
    shows(1, "s", "0.000000001 s");
    shows(0.1, "s", "0.000000000 s");
    struct time_shown s = time_shown(1, "s");
    assert_int_equal(s.unit, 0);
    assert_int_equal(s.decimals, TIME_DECIMALS_MAX);
}

/* Negative values keep their sign; unknown ones show as "-". */
static void signs_and_unknown_values(void **state)
{
    (void)state;
    shows(-19, NULL, "-19.0 ns");
    shows(-1234567, NULL, "-1.23 ms");
    shows(-1092010972, "us", "-1,092,011 us");
    shows(NAN, NULL, "-");
    shows(INFINITY, "ms", "-");
}

/* The number format divides the stored number by 1000 per trailing comma and names the unit;
   it cannot multiply, so a unit below the stored one has none. */
static void number_formats_scale_the_stored_number(void **state)
{
    (void)state;
    const struct unit ns = units[3], ms = units[1];
    char buf[64];
    assert_string_equal(time_format(buf, sizeof buf, (struct time_shown){1, 2}, ns),
                        "#,##0.00,,\" ms\"");
    assert_string_equal(time_format(buf, sizeof buf, (struct time_shown){0, 0}, ns),
                        "#,##0,,,\" s\"");
    assert_string_equal(time_format(buf, sizeof buf, (struct time_shown){2, 1}, ns),
                        "#,##0.0,\" us\"");
    assert_string_equal(time_format(buf, sizeof buf, (struct time_shown){3, 1}, ns),
                        "#,##0.0\" ns\"");
    assert_string_equal(time_format(buf, sizeof buf, (struct time_shown){1, 7}, ms),
                        "#,##0.0000000\" ms\"");
    assert_null(time_format(buf, sizeof buf, (struct time_shown){3, 0}, ms));
}

/* The format of a value's time_shown names the unit and decimals its text has. */
static void the_format_matches_the_text(void **state)
{
    (void)state;
    static const double values[] = {0.5, 19, 999.6, 1500, 75260, 9.478e6, 1092010972, 1.5e12};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        char text[64], code[64];
        struct time_shown s = time_shown(values[i], NULL);
        time_text(text, sizeof text, values[i], NULL);
        time_format(code, sizeof code, s, units[3]);
        /* "1.09 s" and "#,##0.00,,,\" s\"": the same unit, the same decimals. */
        const char *unit = strrchr(text, ' ') + 1, *dot = strchr(text, '.');
        size_t decimals = dot ? strcspn(dot + 1, " ") : 0;
        char tail[16];
        snprintf(tail, sizeof tail, "\" %s\"", unit);
        assert_non_null(strstr(code, tail));
        const char *cdot = strchr(code, '.');
        assert_int_equal(cdot ? strspn(cdot + 1, "0") : 0, decimals);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(units_step_by_thousands_unless_forced),
        cmocka_unit_test(each_time_gets_its_own_unit_and_three_digits),
        cmocka_unit_test(rounding_up_to_a_thousand_moves_to_the_next_unit),
        cmocka_unit_test(the_ends_of_the_scale_keep_three_digits),
        cmocka_unit_test(a_forced_unit_keeps_three_digits_in_that_unit),
        cmocka_unit_test(signs_and_unknown_values),
        cmocka_unit_test(number_formats_scale_the_stored_number),
        cmocka_unit_test(the_format_matches_the_text),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
