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
#include <math.h>
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
/* A buffer over the caller's memory never grows: what does not fit marks it failed and
   changes nothing past cap, and release empties it without freeing the memory. */
static void fixed_buffer_never_grows(void **state)
{
    (void)state;
    char mem[28];
    memset(mem, '#', sizeof mem);
    struct prof_sbuf b;
    prof_sbuf_fixed(&b, mem, 24);
    prof_sbuf_str(&b, "abc");
    prof_sbuf_u64(&b, 42); /* needs room for any u64: 20 bytes */
    assert_false(b.failed);
    assert_int_equal(b.len, 5);
    assert_memory_equal(mem, "abc42", 5);
    prof_sbuf_str(&b, "0123456789012345678"); /* 24 bytes in all: fits */
    assert_false(b.failed);
    prof_sbuf_char(&b, 'x'); /* one too many */
    assert_true(b.failed);
    assert_int_equal(b.len, 24);
    assert_memory_equal(mem + 24, "####", 4);
    assert_ptr_equal(b.data, mem);
    prof_sbuf_release(&b);
    assert_ptr_equal(b.data, mem);
    assert_int_equal(b.len, 0);
    assert_false(b.failed);
    prof_sbuf_str(&b, "12345678");
    assert_false(b.failed);
    assert_memory_equal(mem, "12345678", 8);
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
    check_field("\"\"", "\"\"\"\"\"\"");
    check_field("\"first", "\"\"\"first\"");
    check_field("last\"", "\"last\"\"\"");
}

/* A long field is quoted for a separator or quote wherever it is, the first byte or the last. */
static void long_fields_are_quoted_for_any_byte(void **state)
{
    (void)state;
    static const char special[] = {',', '\n', '\r', '"'};
    char in[300], want[700];
    for (size_t k = 0; k < sizeof special; k++)
        for (size_t at = 0; at < 200; at += 199) {
            memset(in, 'x', 200);
            in[200] = 0;
            in[at] = special[k];
            size_t w = 0;
            want[w++] = '"';
            for (size_t i = 0; i < 200; i++) {
                if (in[i] == '"')
                    want[w++] = '"';
                want[w++] = in[i];
            }
            want[w++] = '"';
            want[w] = 0;
            check_field(in, want);
        }
    memset(in, 'x', 299);
    in[299] = 0;
    check_field(in, in); /* nothing to quote */
}

/* Only the field's n bytes count: a separator after them does not quote it. */
static void bytes_past_the_field_do_not_count(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    prof_sbuf_csv(&b, "abc,\"def", 3);
    assert_string_equal(text(&b), "abc");
    prof_sbuf_csv(&b, "x\"y,\"z", 3);
    assert_string_equal(text(&b), "abc\"x\"\"y\"");
    prof_sbuf_release(&b);
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
/* prof_snprintf_c writes a decimal point and returns the length snprintf would, cutting to
   the room given (the comma locale itself: test_collector_hardening.py, which makes one). */
static void c_locale_formatting(void **state)
{
    (void)state;
    char buf[32];
    assert_int_equal(prof_snprintf_c(buf, sizeof buf, "%.17g", 1.2141822287664207e+18), 22);
    assert_string_equal(buf, "1.2141822287664207e+18");
    assert_int_equal(prof_snprintf_c(buf, 4, "%.1f", 12.5), 4);
    assert_string_equal(buf, "12.");
    struct prof_sbuf b = {0};
    prof_sbuf_addf(&b, "%.1f,%.3f", 706.75, 0.5);
    assert_int_equal(b.len, strlen("706.8,0.500"));
    assert_memory_equal(b.data, "706.8,0.500", b.len);
    prof_sbuf_release(&b);
}

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
/* v through prof_sbuf_fixed3 is what snprintf's "%.3f" makes of it. */
static void check_fixed3(double v)
{
    char want[400];
    snprintf(want, sizeof want, "%.3f", v);
    struct prof_sbuf b = {0};
    prof_sbuf_fixed3(&b, v);
    if (strcmp(text(&b), want) != 0)
        fail_msg("%a: fixed3 gave '%s', printf '%s'", v, text(&b), want);
    prof_sbuf_release(&b);
}

/* Three decimals as printf writes them: zeros, ties (k/16 are exact halves of a thousandth,
   which printf rounds to even), near-ties, every magnitude, and what only printf handles. */
static void fixed3_is_printfs_three_decimals(void **state)
{
    (void)state;
    static const double edges[] = {0.0,        -0.0,        0.0005,   0.0625,    0.1875,
                                   0.3125,     2.5625,      1.0005,   999.9995,  0.9995,
                                   0.99949999, 123456.7895, 1e-300,   5e-324,    4.9999999e-4,
                                   8.9999e12,  9.0e12,      1e15,     1e300,     -1.5,
                                   -0.0004,    NAN,         INFINITY, -INFINITY, 1099511627.776};
    for (size_t i = 0; i < sizeof edges / sizeof *edges; i++)
        check_fixed3(edges[i]);
    for (int k = 0; k < 100000; k++)
        check_fixed3(k / 16.0);
    /* Trace times: ticks of a 2.1 GHz or 3 GHz clock in microseconds, and random doubles of
       every size (a fixed seed). */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int i = 0; i < 2000000; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        uint64_t ticks = x >> (24 + i % 40);
        check_fixed3((double)ticks * (1e6 / 2096008000.0) / 1e3);
        check_fixed3((double)ticks / 3e3);
        double r;
        uint64_t bits = (x & 0x800fffffffffffffull) | ((uint64_t)(1003 + i % 60) << 52);
        memcpy(&r, &bits, sizeof r);
        check_fixed3(fabs(r));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(integers_are_decimal),
        cmocka_unit_test(c_locale_formatting),
        cmocka_unit_test(integers_at_every_digit_count),
        cmocka_unit_test(buffer_grows),
        cmocka_unit_test(fixed_buffer_never_grows),
        cmocka_unit_test(plain_field_is_not_quoted),
        cmocka_unit_test(separators_are_quoted),
        cmocka_unit_test(quotes_are_doubled),
        cmocka_unit_test(long_fields_are_quoted_for_any_byte),
        cmocka_unit_test(bytes_past_the_field_do_not_count),
        cmocka_unit_test(non_utf8_bytes_pass_through),
        cmocka_unit_test(printf_appends),
        cmocka_unit_test(cstr_view),
        cmocka_unit_test(fixed3_is_printfs_three_decimals),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
