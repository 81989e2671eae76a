/*
 * test_plainsplit.c - unit tests of plainsplit.c: on quote-free lines, plain_split gives the
 * very fields and records libcsv gives with the run-file reader's options, byte for byte.
 */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "corpus.h"
#include "read/plainsplit.h"
#include "strbuf.h"

/* The space function of the reader: no byte is a space. */
static int no_space(unsigned char c)
{
    (void)c;
    return 0;
}

/* Record a field in a trace: its length, then its bytes. */
static void trace_field(const char *s, size_t len, void *ctx)
{
    prof_sbuf_addf(ctx, "F%zu:", len);
    prof_sbuf_add(ctx, s, len);
}

/* libcsv's field callback, into the same trace. */
static void csv_field(void *s, size_t len, void *ctx) { trace_field(s, len, ctx); }

/* Record a record end and the byte that ended it. */
static void trace_record(int c, void *ctx) { prof_sbuf_addf(ctx, "R%d;", c); }

/* The two traces are equal (shown readably when they are not). */
static void check_same(struct prof_sbuf *want, struct prof_sbuf *got, const char *what)
{
    assert_false(want->failed || got->failed);
    /* An empty trace has no buffer: memcmp must not be handed its NULL. */
    if (want->len != got->len || (want->len && memcmp(want->data, got->data, want->len) != 0)) {
        size_t at = 0;
        while (at < want->len && at < got->len && want->data[at] == got->data[at])
            at++;
        fprintf(stderr, "%s: traces differ at byte %zu of %zu/%zu\n", what, at, want->len,
                got->len);
        fail();
    }
}

/* Split text[0..len) both ways and check that the traces agree; returns what plain_split used. */
static size_t check_split(const char *text, size_t len, const char *what)
{
    struct prof_sbuf want = {0}, got = {0};
    size_t used = plain_split(text, len, trace_field, trace_record, &got);
    /* plain_split stops after the last record end; libcsv is given the same bytes. */
    size_t last = 0;
    for (size_t i = 0; i < len; i++)
        if (text[i] == '\r' || text[i] == '\n')
            last = i + 1;
    assert_int_equal(used, last);
    struct csv_parser p;
    assert_int_equal(csv_init(&p, PLAIN_CSV_OPTS), 0);
    csv_set_space_func(&p, no_space);
    assert_int_equal(csv_parse(&p, text, used, csv_field, trace_record, &want), used);
    csv_free(&p);
    check_same(&want, &got, what);
    prof_sbuf_release(&want);
    prof_sbuf_release(&got);
    return used;
}

/* Line ends: LF, CRLF and a lone CR each end a record; CRLF adds an empty line end record. */
static void line_ends_are_libcsvs(void **state)
{
    (void)state;
    static const char *const cases[] = {
        "a,b\n", "a,b\r\n", "a\rb\n", "\n", "\r\n", "\n\n\r\n\r\r\n", "x\n\r\n\ny\r\r\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_split(cases[i], strlen(cases[i]), cases[i]);
}

/* Empty fields at the start, the middle and the end, and lines of commas only. */
static void empty_fields_are_libcsvs(void **state)
{
    (void)state;
    static const char *const cases[] = {
        ",\n", "a,\n", ",a\n", ",,,\n", "a,,b\r\n", ",\r\n,,\n", "Frequency,1000\nr,\nr,5\n",
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_split(cases[i], strlen(cases[i]), cases[i]);
}

/* Spaces and tabs are bytes of their fields: nothing is trimmed. */
static void spaces_are_kept(void **state)
{
    (void)state;
    static const char *const cases[] = {" a , b \n", "\ta\t,\t\n", " \n", "  ,  \r\n"};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_split(cases[i], strlen(cases[i]), cases[i]);
}

/* NUL bytes are ordinary bytes of a field. */
static void nul_bytes_are_kept(void **state)
{
    (void)state;
    static const char text[] = "a\0b,\0\n\0\n,\0,\r\n";
    check_split(text, sizeof text - 1, "NULs");
}

/* A last record without its line end is left to the caller. */
static void a_record_without_its_end_is_not_used(void **state)
{
    (void)state;
    assert_int_equal(check_split("a,b\nc,d", 7, "tail"), 4);
    assert_int_equal(check_split("a,b\rc", 5, "CR tail"), 4);
    assert_int_equal(check_split("no end", 6, "no end"), 0);
    assert_int_equal(check_split("", 0, "empty"), 0);
}

/* A line far longer than libcsv's buffer block, with long and many fields. */
static void very_long_lines_are_libcsvs(void **state)
{
    (void)state;
    size_t len = 300000;
    char *text = malloc(len);
    assert_non_null(text);
    for (size_t i = 0; i < len; i++)
        text[i] = i % 1000 == 999 ? ',' : (char)('a' + i % 26);
    text[len / 2] = '\r';
    text[len - 1] = '\n';
    check_split(text, len, "long line");
    free(text);
}

/* Random strings over the bytes that matter agree with libcsv (a fixed seed: reproducible). */
static void random_lines_are_libcsvs(void **state)
{
    (void)state;
    static const char alphabet[] = {'a', 'b', ',', ',', '\r', '\n', ' ', '\t', '\0', '7'};
    uint64_t x = 88172645463325252ull;
    char text[64];
    for (int n = 0; n < 20000; n++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        size_t len = 1 + x % (sizeof text - 1);
        uint64_t y = x;
        for (size_t i = 0; i < len; i++) {
            y = y * 6364136223846793005ull + 1442695040888963407ull;
            text[i] = alphabet[(y >> 33) % sizeof alphabet];
        }
        check_split(text, len, "random");
    }
}

/* Each line of a corpus file that holds no quote, joined, splits as libcsv splits it; lines
   with a quote are dropped (quote-free lines are independent of each other: after a line end
   libcsv is between records, whatever came before). */
static void check_corpus_file(const char *path, const char *text, size_t len, void *ctx)
{
    (void)ctx;
    struct prof_sbuf plain = {0};
    for (size_t at = 0; at < len;) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl ? (size_t)(nl - text) + 1 : len;
        if (!memchr(text + at, '"', end - at))
            prof_sbuf_add(&plain, text + at, end - at);
        at = end;
    }
    assert_true(plain.len > 0);
    check_split(plain.data, plain.len, path);
    prof_sbuf_release(&plain);
}

/* Every quote-free line of the fuzz corpus of run files and seed files agrees with libcsv. */
static void corpus_lines_are_libcsvs(void **state)
{
    (void)state;
    static const char *const dirs[] = {"tests/fuzz/corpus/runfile", "tests/fuzz/corpus/seed"};
    assert_true(corpus_each(dirs, 2, check_corpus_file, NULL) >= 10);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(line_ends_are_libcsvs),
        cmocka_unit_test(empty_fields_are_libcsvs),
        cmocka_unit_test(spaces_are_kept),
        cmocka_unit_test(nul_bytes_are_kept),
        cmocka_unit_test(a_record_without_its_end_is_not_used),
        cmocka_unit_test(very_long_lines_are_libcsvs),
        cmocka_unit_test(random_lines_are_libcsvs),
        cmocka_unit_test(corpus_lines_are_libcsvs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
