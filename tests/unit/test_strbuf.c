/*
 * test_strbuf.c - unit tests of common/strbuf.c: growable byte strings, decimal numbers,
 * printf, RFC 4180 fields and the NUL-terminated view.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* The buffer's text as a NUL-terminated string (the buffer keeps no terminator). */
static const char *text(struct prof_sbuf *b)
{
    prof_sbuf_char(b, 0);
    b->len--;
    return b->data;
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
/* Every count of digits is written whole: each power of ten, and the number before it. */
static void integers_at_every_digit_count(void **state)
{
    (void)state;
    uint64_t p = 1;
    for (int digits = 1; digits <= 20; digits++) {
        char expect[32], got[32];
        snprintf(expect, sizeof expect, "%llu", (unsigned long long)p);
        *prof_u64_put(got, p) = 0;
        assert_string_equal(got, expect);
        snprintf(expect, sizeof expect, "%llu", (unsigned long long)(p - 1));
        *prof_u64_put(got, p - 1) = 0;
        assert_string_equal(got, expect);
        if (digits < 20)
            p *= 10;
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
/* Write one field and compare the result. */
static void check_field(const char *in, const char *want)
{
    struct prof_sbuf b = {0};
    prof_sbuf_csv(&b, in, strlen(in));
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
/* Formatted text is appended, however long, after what is there. */
static void printf_appends(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    prof_sbuf_str(&b, "x=");
    prof_sbuf_addf(&b, "%d %s", 42, "ok");
    assert_string_equal(text(&b), "x=42 ok");
    char big[1000];
    memset(big, 'y', sizeof big - 1);
    big[sizeof big - 1] = 0;
    prof_sbuf_addf(&b, "[%s]", big);
    assert_int_equal(b.len, 7 + 2 + 999);
    assert_int_equal(b.data[b.len - 1], ']');
    assert_int_equal(b.data[b.len - 2], 'y');
    prof_sbuf_release(&b);
}
/* The C-string view ends at len, is "" for an empty buffer and NULL for a failed one. */
static void cstr_view(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    assert_string_equal(prof_sbuf_cstr(&b), "");
    prof_sbuf_add(&b, "abcdef", 3);
    assert_string_equal(prof_sbuf_cstr(&b), "abc");
    assert_int_equal(b.len, 3);
    prof_sbuf_str(&b, "d");
    assert_string_equal(prof_sbuf_cstr(&b), "abcd");
    b.failed = 1;
    assert_null(prof_sbuf_cstr(&b));
    prof_sbuf_release(&b);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_are_decimal),
        cmocka_unit_test(integers_at_every_digit_count),
        cmocka_unit_test(buffer_grows),
        cmocka_unit_test(plain_field_is_not_quoted),
        cmocka_unit_test(separators_are_quoted),
        cmocka_unit_test(quotes_are_doubled),
        cmocka_unit_test(non_utf8_bytes_pass_through),
        cmocka_unit_test(printf_appends),
        cmocka_unit_test(cstr_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
