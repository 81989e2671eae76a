/*
 * test_rowscan.c - unit tests of rowscan.c: a row in the collector's form is read whole, with
 * the values its fields hold; any other line is given back untouched, for the general path.
 * Each case is read twice: with the data ending at the line's end (byte by byte) and with room
 * after it (a word at a time). test_runfile.c checks that the reader gives the same rows
 * through rowscan as through libcsv, on the fuzz corpus and on tricky lines.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "read/rowscan.h"

/* A line in a buffer as the reader has it: text, then zeros; end is the line's end (tight) or
   the buffer's. */
struct buf {
    char data[256];
    const char *end;
};

/* Put text in b, with the data ending right after it or at the buffer's end. */
static char *place(struct buf *b, const char *text, int tight)
{
    memset(b->data, 0, sizeof b->data);
    size_t n = strlen(text);
    assert_true(n < sizeof b->data);
    memcpy(b->data, text, n);
    b->end = tight ? b->data + n : b->data + sizeof b->data;
    return b->data;
}

/* Each of lines[0..n), read as an events row (or a seed row), is refused and left as it was,
   with the data ending at the line's end and with room after it. */
static void given_back(const char *const *lines, size_t n, int seed)
{
    for (size_t i = 0; i < n; i++) {
        for (int tight = 0; tight <= 1; tight++) {
            struct buf b;
            char *line = place(&b, lines[i], tight);
            struct scanned_event e;
            const char *id;
            size_t len;
            uint64_t delta;
            size_t taken = seed ? rowscan_seed(line, b.end, &id, &len, &delta)
                                : rowscan_event(line, b.end, &e);
            if (taken != 0)
                fail_msg("taken: %s", lines[i]);
            assert_string_equal(line, lines[i]);
        }
    }
}

/* An events row gives every field; the commas after Region and Parent become NULs, and the
   row's bytes run through its line end (the next line is not touched). */
static void events_row_is_read_whole(void **state)
{
    (void)state;
    static const char row[] = "parse::token,1234,7,main,2,1000,9876543210987654321,1\n";
    for (int tight = 0; tight <= 1; tight++) {
        struct buf b;
        char *line = place(&b,
                           tight ? row
                                 : "parse::token,1234,7,main,2,1000,"
                                   "9876543210987654321,1\nnext,",
                           tight);
        struct scanned_event e;
        size_t n = rowscan_event(line, b.end, &e);
        assert_int_equal(n, sizeof row - 1);
        assert_string_equal(e.region, "parse::token");
        assert_int_equal(e.region_len, 12);
        assert_string_equal(e.parent, "main");
        assert_int_equal(e.parent_len, 4);
        assert_int_equal(e.ticks, 1234);
        assert_int_equal(e.thread, 7);
        assert_int_equal(e.depth, 2);
        assert_int_equal(e.self, 1000);
        assert_true(e.start == 9876543210987654321ull);
        assert_int_equal(e.nested, 1);
        if (!tight)
            assert_memory_equal(line + n, "next,", 5);
    }
}

/* A top-level row: empty Parent, depth 0, not nested; an empty Region is a name too. */
static void empty_texts_are_read(void **state)
{
    (void)state;
    for (int tight = 0; tight <= 1; tight++) {
        struct buf b;
        char *line = place(&b, ",5,1,,0,5,0,0\n", tight);
        struct scanned_event e;
        assert_int_equal(rowscan_event(line, b.end, &e), 14);
        assert_int_equal(e.region_len, 0);
        assert_int_equal(e.parent_len, 0);
        assert_string_equal(e.parent, "");
        assert_int_equal(e.nested, 0);
    }
}

/* Numbers of every length rowscan takes, across the words it reads them in: each the value
   printf wrote, at each offset of the line. */
static void numbers_of_every_length_are_exact(void **state)
{
    (void)state;
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (int len = 1; len <= 19; len++) {
        for (int pad = 0; pad < 9; pad++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            uint64_t big = len == 19 ? x % 9000000000000000000ull + 1000000000000000000ull
                                     : x % 10000000000000000000ull;
            uint64_t want = big, limit = 1;
            for (int i = 0; i < len; i++)
                limit *= 10;
            if (len < 19)
                want = big % limit;
            uint64_t small = want % 1000000000; /* Thread and Depth: at most 9 digits */
            char text[200];
            snprintf(text, sizeof text, "%.*s,%0*llu,%llu,p,%llu,%0*llu,%0*llu,0\n", pad,
                     "rrrrrrrrr", len, (unsigned long long)want, (unsigned long long)small,
                     (unsigned long long)small, len, (unsigned long long)want, len,
                     (unsigned long long)want);
            for (int tight = 0; tight <= 1; tight++) {
                struct buf b;
                char *line = place(&b, text, tight);
                struct scanned_event e;
                assert_int_equal(rowscan_event(line, b.end, &e), strlen(text));
                assert_true(e.ticks == want && e.self == want && e.start == want);
                assert_true(e.thread == small && e.depth == small);
            }
        }
    }
}

/* The widest numbers rowscan takes: 19 nines, and 9 for Thread and Depth. */
static void widest_numbers_are_exact(void **state)
{
    (void)state;
    for (int tight = 0; tight <= 1; tight++) {
        struct buf b;
        char *line = place(&b,
                           "r,9999999999999999999,999999999,p,999999999,9999999999999999999,"
                           "9999999999999999999,0\n",
                           tight);
        struct scanned_event e;
        assert_int_not_equal(rowscan_event(line, b.end, &e), 0);
        assert_true(e.ticks == 9999999999999999999ull && e.self == e.ticks && e.start == e.ticks);
        assert_int_equal(e.thread, 999999999);
        assert_int_equal(e.depth, 999999999);
    }
}

/* Every line that is not exactly a row in the collector's form is given back as it was. */
static void other_lines_are_given_back_untouched(void **state)
{
    (void)state;
    static const char *const lines[] = {
        "r,,1,,0,,5,0\n",                      /* never stopped: the checks' case */
        "r,12345678901234567890,1,,0,1,5,0\n", /* 20 digits: may overflow */
        "r,5,1,,0,1,123456789012345678901234,0\n",
        "r,5,1234567890,,0,5,5,0\n", /* a Thread of 10 digits */
        "r,5,1,,1234567890,5,5,0\n", /* a Depth of 10 digits */
        "r,5,1,,0,5,5,2\n",          /* Nested not 0 or 1 */
        "r,5,1,,0,5,5,01\n",
        "r,5,1,,0,5,5,0\r\n", /* CRLF: libcsv ends the record at the CR */
        "r\r,5,1,,0,5,5,0\n",
        "region_with_a_long_name\r,5,1,,0,5,5,0\n",
        "r,5,1,p\rq,0,5,5,0\n",
        "r,5,1,,0,5,5\n",     /* a field short */
        "r,5,1,,0,5,5,0,x\n", /* a field over */
        "r,+5,1,,0,5,5,0\n",
        "r,5,1,,0, 5,5,0\n",
        "r,5,1,,0,5,5a,0\n",
        "r,5,1,,0,5,12345678/,0\n",
        "r,5,1,,0,5,12345678:,0\n",
        "r,5,1,,0,5,1234567:8,0\n",
        "\n",
        "Table,memory\n",
    };
    given_back(lines, sizeof lines / sizeof *lines, 0);
}

/* A seed row: id, delta and its line end; the comma becomes a NUL. */
static void seed_row_is_read_whole(void **state)
{
    (void)state;
    for (int tight = 0; tight <= 1; tight++) {
        struct buf b;
        char *line = place(&b, "render::frame,1234567890123456789\n", tight);
        const char *id;
        size_t len;
        uint64_t delta;
        assert_int_equal(rowscan_seed(line, b.end, &id, &len, &delta), 34);
        assert_string_equal(id, "render::frame");
        assert_int_equal(len, 13);
        assert_true(delta == 1234567890123456789ull);
    }
}

/* Seed lines rowscan does not take are given back as they were. */
static void other_seed_lines_are_given_back_untouched(void **state)
{
    (void)state;
    static const char *const lines[] = {
        ",5\n", /* an empty id */
        "r,\n", /* no delta: a region never stopped */
        "r,12345678901234567890\n",
        "r,5\r\n",
        "r,5,6\n",
        "r,-5\n",
        "r\n",
        "r,123456789x\n",
    };
    given_back(lines, sizeof lines / sizeof *lines, 1);
}

/* Run every test of rowscan.c. */
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(events_row_is_read_whole),
        cmocka_unit_test(empty_texts_are_read),
        cmocka_unit_test(numbers_of_every_length_are_exact),
        cmocka_unit_test(widest_numbers_are_exact),
        cmocka_unit_test(other_lines_are_given_back_untouched),
        cmocka_unit_test(seed_row_is_read_whole),
        cmocka_unit_test(other_seed_lines_are_given_back_untouched),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
