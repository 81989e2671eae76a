/*
 * test_error.c - unit tests of error.c: every error code has its own message.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include <profreport.h>

/* Each code has a message of its own, lowercase, not the out-of-range text. */
static void every_code_has_a_distinct_message(void **state)
{
    (void)state;
    for (int i = 0; i < PROF_ERR_LAST; i++) {
        const char *m = prof_strerror((enum prof_error)i);
        assert_non_null(m);
        assert_string_not_equal(m, "unknown error");
        assert_true(m[0] >= 'a' && m[0] <= 'z');
        for (int j = 0; j < i; j++)
            assert_string_not_equal(m, prof_strerror((enum prof_error)j));
    }
}

/* Values outside the enum get a fixed text, never NULL. */
static void out_of_range_codes_are_unknown(void **state)
{
    (void)state;
    assert_string_equal(prof_strerror(PROF_ERR_LAST), "unknown error");
    assert_string_equal(prof_strerror((enum prof_error) - 1), "unknown error");
}

/* The version string matches the header's numbers. */
static void version_matches_header(void **state)
{
    (void)state;
    assert_string_equal(prof_version(), PROF_VERSION_STRING);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_code_has_a_distinct_message),
        cmocka_unit_test(out_of_range_codes_are_unknown),
        cmocka_unit_test(version_matches_header),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
