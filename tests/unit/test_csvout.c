/*
 * test_csvout.c - unit tests of csvout.c: text buffers and RFC 4180 quoting.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* The buffer's text as a NUL-terminated string (the buffer keeps no terminator). */
static const char *text(struct prof_sbuf *b)
{
    prof_sbuf_char(b, 0);
    b->len--;
    return b->data;
}

/* Write one field and compare the result. */
static void check_field(const char *in, const char *want)
{
    struct prof_sbuf b = {0};
    prof_sbuf_field(&b, in, strlen(in));
    assert_string_equal(text(&b), want);
    prof_sbuf_release(&b);
}

/* Plain ids are written as they are. */
static void plain_field_is_not_quoted(void **state)
{
    (void)state;
    check_field("load", "load");
    check_field("std::vector<int>::push_back", "std::vector<int>::push_back");
    check_field("with space", "with space");
    check_field("", "");
}

/* Commas, CR and LF force quotes. */
static void separators_are_quoted(void **state)
{
    (void)state;
    check_field("a,b", "\"a,b\"");
    check_field("line\nbreak", "\"line\nbreak\"");
    check_field("cr\rhere", "\"cr\rhere\"");
}

/* A quote is doubled inside a quoted field. */
static void quotes_are_doubled(void **state)
{
    (void)state;
    check_field("say \"hi\"", "\"say \"\"hi\"\"\"");
    check_field("\"", "\"\"\"\"");
}

/* Bytes that are not UTF-8 pass through unchanged: the reporter repairs them. */
static void non_utf8_bytes_pass_through(void **state)
{
    (void)state;
    check_field("caf\xc3\xa9", "caf\xc3\xa9");
    check_field("\xff\xfe", "\xff\xfe");
}

/* Integers in decimal, from 0 to the largest u64. */
static void integers_are_decimal(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    prof_sbuf_u64(&b, 0);
    prof_sbuf_char(&b, ' ');
    prof_sbuf_u64(&b, 1234567890);
    prof_sbuf_char(&b, ' ');
    prof_sbuf_u64(&b, UINT64_MAX);
    assert_string_equal(text(&b), "0 1234567890 18446744073709551615");
    prof_sbuf_release(&b);
}

/* Doubles read back to the same value. */
static void doubles_round_trip(void **state)
{
    (void)state;
    double values[] = {0.0, 1.5, 2.75e9, 1.0 / 3.0, 1.2345678901234567e300};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        struct prof_sbuf b = {0};
        prof_sbuf_double(&b, values[i]);
        assert_true(strtod(text(&b), NULL) == values[i]);
        prof_sbuf_release(&b);
    }
}

/* The buffer grows to hold large text and keeps every byte. */
static void buffer_grows(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    for (int i = 0; i < 100000; i++)
        prof_sbuf_str(&b, "0123456789");
    assert_false(b.failed);
    assert_int_equal(b.len, 1000000);
    assert_memory_equal(b.data + 999990, "0123456789", 10);
    prof_sbuf_release(&b);
    assert_null(b.data);
    assert_int_equal(b.len, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(plain_field_is_not_quoted),
        cmocka_unit_test(separators_are_quoted),
        cmocka_unit_test(quotes_are_doubled),
        cmocka_unit_test(non_utf8_bytes_pass_through),
        cmocka_unit_test(integers_are_decimal),
        cmocka_unit_test(doubles_round_trip),
        cmocka_unit_test(buffer_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
