/*
 * test_sbuf.c - unit tests of format/sbuf.c: growable byte strings and decimal numbers.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "sbuf.h"

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
        cmocka_unit_test(integers_are_decimal),
        cmocka_unit_test(buffer_grows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
