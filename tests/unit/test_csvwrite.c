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

#include "context.h"
#include "csvwrite.h"

#include <pthread.h>
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
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The id-table key of index i (a function's address, in the collector). */
#define KEY(i) ((const void *)(uintptr_t)(0x1000 + (i)))

/* The run-file row of the tree's node number `node` for region id on thread: encoded as a
   thread writes it, decoded as the writer reads it, then formatted. */
static const char *row_of_sampled(struct prof_sbuf *out, const char *id, unsigned thread,
                                  const struct prof_cct *c, uint32_t node, double period_ticks,
                                  double hook_ticks)
{
    struct prof_sbuf rec = {0};
    prof_cct_encode(c, &rec, period_ticks, hook_ticks, &(struct prof_leftout_hits){0});
    struct prof_summary_counts k;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    size_t off = 0, nhist;
    do
        assert_int_equal(prof_summary_decode((const unsigned char *)rec.data, rec.len, &off,
                                             PROF_PART_VERSION, &k, bucket, count, &nhist),
                         PROF_OK);
    while (k.node != node);
    struct prof_summary_rec r = {.region = id,
                                 .region_len = strlen(id),
                                 .thread = thread,
                                 .node = k.node,
                                 .parent = k.parent,
                                 .calls = k.calls,
                                 .ticks = k.ticks,
                                 .self = k.self,
                                 .min = k.min,
                                 .max = k.max,
                                 .outer = k.outer,
                                 .sumsq = k.sumsq,
                                 .samples = k.samples,
                                 .timed = k.timed,
                                 .wall = k.wall,
                                 .hist_bucket = bucket,
                                 .hist_count = count,
                                 .nhist = nhist};
    prof_csv_summary_row(out, &r);
    prof_sbuf_release(&rec);
    return text(out);
}

/* The row of node `node` of an exactly timed tree. */
static const char *row_of(struct prof_sbuf *out, const char *id, unsigned thread,
                          const struct prof_cct *c, uint32_t node)
{
    return row_of_sampled(out, id, thread, c, node, 0, 0);
}

/* Count one instance in node n as a stop does. */
static void count(struct prof_cct *c, struct prof_node *n, uint64_t ticks, uint64_t self)
{
    prof_stats_count(&n->st, ticks, self);
    assert_int_equal(prof_stats_hist(c, &n->st, ticks, 0), 0);
}

/* The summary row has the columns of docs/FORMAT.md 1.4, histogram as bucket:count pairs, then
   the node and its parent's: a recursive call's time is not in Outer. */
static void stats_row_format(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *a = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *b = prof_cct_child(&c, a, KEY(1), 1, canon);
    struct prof_node *aa = prof_cct_child(&c, b, KEY(0), 0, canon);
    count(&c, a, 3, 3);
    count(&c, a, 3, 1);
    count(&c, aa, 20, 20);
    struct prof_sbuf out = {0};
    assert_string_equal(row_of(&out, "a,b", 2, &c, 1), "\"a,b\",2,2,6,4,3,3,18,6,3:2,1,0,0,2,6");
    out.len = 0;
    assert_string_equal(row_of(&out, "a,b", 2, &c, 3),
                        "\"a,b\",2,1,20,20,20,20,400,0,18:1,3,2,0,1,20");
    prof_sbuf_release(&out);
    prof_cct_free(&c);
}

/* A node never completed reports a minimum of 0, not the sentinel. */
static void empty_stats_report_zero_minimum(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    assert_non_null(prof_cct_child(&c, &c.root, KEY(0), 0, canon));
    struct prof_sbuf b = {0};
    assert_string_equal(row_of(&b, "x", 1, &c, 1), "x,1,0,0,0,0,0,0,0,,1,0,0,0,0");
    prof_sbuf_release(&b);
    prof_cct_free(&c);
}
/*
 * Sampled timing (FORMAT.md 1.4, version 4): Self is a node's own samples times the period,
 * Ticks the samples of its whole subtree, Outer that for the outermost call of a region only;
 * Timed and Wall (and Min, Max, the histogram) describe the calls that were timed, Calls all;
 * Wall is net of the hooks of the calls made inside the timed calls (GUPROF's compensation,
 * with the hooks' cost measured by the samples that landed in them).
 * Tree a > b > a (recursion) > c, samples 2, 3, 5, 7, period 10 ticks: worked out by hand.
 */
static void sampled_rows_take_time_from_samples(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1, 2};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *a = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *b = prof_cct_child(&c, a, KEY(1), 1, canon);
    struct prof_node *aa = prof_cct_child(&c, b, KEY(0), 0, canon);
    struct prof_node *cc = prof_cct_child(&c, aa, KEY(2), 2, canon);
    a->samples = 2;
    b->samples = 3;
    aa->samples = 5;
    cc->samples = 7;
    count(&c, a, 400, 10); /* one timed call of 400 ticks, with 10 calls inside it */
    a->st.timed = 1;
    for (int i = 0; i < 1000; i++) /* counted, never timed */
        cc->st.calls++;
    struct prof_sbuf out = {0};
    assert_string_equal(row_of_sampled(&out, "a", 1, &c, 1, 10, 0),
                        "a,1,1,170,20,400,400,160000,170,52:1,1,0,2,1,400");
    /* The hooks of the 10 calls inside, 5 ticks each, are taken out of its wall time, and of
       its extremes, square and histogram: 350 is in bucket 8 * (8 - 2) + (350 >> 5) - 8 = 50. */
    out.len = 0;
    assert_string_equal(row_of_sampled(&out, "a", 1, &c, 1, 10, 5),
                        "a,1,1,170,20,350,350,122500,170,50:1,1,0,2,1,350");
    out.len = 0;
    assert_string_equal(row_of_sampled(&out, "b", 1, &c, 2, 10, 5),
                        "b,1,0,150,30,0,0,0,150,,2,1,3,0,0");
    out.len = 0;
    assert_string_equal(row_of_sampled(&out, "a", 1, &c, 3, 10, 5),
                        "a,1,0,120,50,0,0,0,0,,3,2,5,0,0");
    out.len = 0;
    assert_string_equal(row_of_sampled(&out, "c", 1, &c, 4, 2.5, 5),
                        "c,1,1000,18,18,0,0,0,18,,4,3,7,0,0");
    prof_sbuf_release(&out);
    prof_cct_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(doubles_round_trip),
        cmocka_unit_test(stats_row_format),
        cmocka_unit_test(empty_stats_report_zero_minimum),
        cmocka_unit_test(sampled_rows_take_time_from_samples),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
