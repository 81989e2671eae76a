/*
 * test_csvwrite.c - unit tests of format/csvwrite.c: numbers and the rows of the run file (its
 * fields are strbuf.c's, tested in test_strbuf.c).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "csvwrite.h"
#include "regionstats.h"
#include "summary.h"

/* The buffer's text as a NUL-terminated string (the buffer keeps no terminator). */
static const char *text(struct prof_sbuf *b)
{
    prof_sbuf_char(b, 0);
    b->len--;
    return b->data;
}

/* Doubles read back to the same value. */
static void doubles_round_trip(void **state)
{
    (void)state;
    double values[] = {0.0, 1.5, 2.75e9, 1.0 / 3.0, 1.2345678901234567e300};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        struct prof_sbuf b = {0};
        prof_csv_double(&b, values[i]);
        assert_true(strtod(text(&b), NULL) == values[i]);
        prof_sbuf_release(&b);
    }
}
/* The run-file row of s for region id on thread: encoded as a thread writes it, decoded as the
   writer reads it, then formatted. */
static const char *row_of(struct prof_sbuf *out, const char *id, unsigned thread,
                          const struct prof_stats *s)
{
    struct prof_sbuf rec = {0};
    prof_stats_encode(&rec, 0, s);
    struct prof_summary_counts c;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    size_t off = 0, nhist;
    assert_int_equal(prof_summary_decode((const unsigned char *)rec.data, rec.len, &off, 3, &c,
                                         bucket, count, &nhist),
                     PROF_OK);
    assert_int_equal(off, rec.len);
    struct prof_summary_rec r = {id,    strlen(id), 0,       thread,  c.calls, c.ticks, c.self,
                                 c.min, c.max,      c.outer, c.sumsq, bucket,  count,   nhist};
    prof_csv_summary_row(out, &r);
    prof_sbuf_release(&rec);
    return text(out);
}

/* The summary row has the columns of docs/FORMAT.md 1.4, histogram as bucket:count pairs. */
static void stats_row_format(void **state)
{
    (void)state;
    struct prof_stats *s = malloc(sizeof *s);
    prof_stats_reset(s);
    prof_stats_add(s, 3, 3, 1);
    prof_stats_add(s, 3, 1, 1);
    prof_stats_add(s, 20, 20, 0);
    struct prof_sbuf b = {0};
    assert_string_equal(row_of(&b, "a,b", 2, s), "\"a,b\",2,3,26,24,3,20,418,6,3:2;18:1");
    prof_sbuf_release(&b);
    free(s);
}
/* A region never completed reports a minimum of 0, not the sentinel. */
static void empty_stats_report_zero_minimum(void **state)
{
    (void)state;
    struct prof_stats *s = malloc(sizeof *s);
    prof_stats_reset(s);
    struct prof_sbuf b = {0};
    assert_string_equal(row_of(&b, "x", 1, s), "x,1,0,0,0,0,0,0,0,");
    prof_sbuf_release(&b);
    free(s);
}
int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doubles_round_trip),
        cmocka_unit_test(stats_row_format),
        cmocka_unit_test(empty_stats_report_zero_minimum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
