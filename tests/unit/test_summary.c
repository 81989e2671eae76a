/*
 * test_summary.c - unit tests of format/summary.c: the binary summary records of PRFS and PRFP
 * chunks, read back as written, and refused when they hold what no writer writes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include "summary.h"

/* Counts with a histogram of two buckets, encoded into b. */
static void encode_sample(struct prof_sbuf *b, uint32_t id, double sumsq)
{
    static uint64_t hist[PROF_HIST_BUCKETS];
    memset(hist, 0, sizeof hist);
    hist[3] = 2;
    hist[495] = 7;
    struct prof_summary_counts c = {id,    9,      100, 60, 3, 40, sumsq > 0 ? 90 : 0,
                                    sumsq, id + 1, id,  11, 2, 70};
    prof_summary_encode(b, &c, hist);
}

/* A record holds its counts, node and parent, samples, timed calls and wall ticks in 96 bytes
   and each non-empty bucket in 12 more. */
static void records_read_back_as_written(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    encode_sample(&b, 4, 1234.5);
    encode_sample(&b, 7, 0.25);
    assert_int_equal(b.len, 2 * (PROF_SUMMARY_HEAD + 2 * PROF_SUMMARY_PAIR));
    struct prof_summary_counts c;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    size_t off = 0, nhist;
    const unsigned char *p = (const unsigned char *)b.data;
    assert_int_equal(
        prof_summary_decode(p, b.len, &off, PROF_PART_VERSION, &c, bucket, count, &nhist), PROF_OK);
    assert_int_equal(c.id, 4);
    assert_int_equal(c.calls, 9);
    assert_int_equal(c.ticks, 100);
    assert_int_equal(c.self, 60);
    assert_int_equal(c.min, 3);
    assert_int_equal(c.max, 40);
    assert_int_equal(c.outer, 90);
    assert_true(c.sumsq == 1234.5);
    assert_int_equal(c.node, 5);
    assert_int_equal(c.parent, 4);
    assert_int_equal(c.samples, 11);
    assert_int_equal(c.timed, 2);
    assert_int_equal(c.wall, 70);
    assert_int_equal(nhist, 2);
    assert_int_equal(bucket[0], 3);
    assert_int_equal(count[0], 2);
    assert_int_equal(bucket[1], 495);
    assert_int_equal(count[1], 7);
    assert_int_equal(
        prof_summary_decode(p, b.len, &off, PROF_PART_VERSION, &c, bucket, count, &nhist), PROF_OK);
    assert_int_equal(c.id, 7);
    assert_true(c.sumsq == 0.25);
    assert_int_equal(off, b.len);
    prof_sbuf_release(&b);
}

/* A version 3 record has no samples, timed and wall: 24 bytes fewer, read as an exactly timed
   record's (0 samples, every call timed, wall = ticks). */
static void version_3_records_timed_every_call(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    encode_sample(&b, 4, 1234.5);
    memmove(b.data + PROF_SUMMARY_HEAD_V3, b.data + PROF_SUMMARY_HEAD, b.len - PROF_SUMMARY_HEAD);
    b.len -= PROF_SUMMARY_HEAD - PROF_SUMMARY_HEAD_V3;
    struct prof_summary_counts c;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    size_t off = 0, nhist;
    assert_int_equal(prof_summary_decode((const unsigned char *)b.data, b.len, &off, 3, &c, bucket,
                                         count, &nhist),
                     PROF_OK);
    assert_int_equal(off, b.len);
    assert_int_equal(c.node, 5);
    assert_int_equal(c.samples, 0);
    assert_int_equal(c.timed, 9);
    assert_int_equal(c.wall, 100);
    assert_int_equal(bucket[1], 495);
    prof_sbuf_release(&b);
}

/* A version 2 record (profreport 0.2) has no node and parent: 8 bytes fewer, read as 0. */
static void version_2_records_have_no_node(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    encode_sample(&b, 4, 1234.5);
    memmove(b.data + PROF_SUMMARY_HEAD_V2, b.data + PROF_SUMMARY_HEAD, b.len - PROF_SUMMARY_HEAD);
    b.len -= PROF_SUMMARY_HEAD - PROF_SUMMARY_HEAD_V2;
    struct prof_summary_counts c;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    size_t off = 0, nhist;
    assert_int_equal(prof_summary_decode((const unsigned char *)b.data, b.len, &off, 2, &c, bucket,
                                         count, &nhist),
                     PROF_OK);
    assert_int_equal(off, b.len);
    assert_int_equal(c.calls, 9);
    assert_int_equal(c.node, 0);
    assert_int_equal(c.parent, 0);
    assert_int_equal(bucket[1], 495);
    prof_sbuf_release(&b);
}

/* A record cut anywhere is refused, never read past the payload. */
static void cut_records_are_refused(void **state)
{
    (void)state;
    struct prof_sbuf b = {0};
    encode_sample(&b, 1, 1.0);
    struct prof_summary_counts c;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    size_t nhist;
    for (size_t len = 0; len < b.len; len++) {
        size_t off = 0;
        assert_int_equal(prof_summary_decode((const unsigned char *)b.data, len, &off,
                                             PROF_PART_VERSION, &c, bucket, count, &nhist),
                         PROF_ERR_FORMAT);
        assert_int_equal(off, 0);
    }
    prof_sbuf_release(&b);
}

/* A bucket past the last one, or a sum of squares no sum of squares can be, is refused. */
static void impossible_values_are_refused(void **state)
{
    (void)state;
    struct prof_summary_counts c;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    size_t off, nhist;
    const double bad[] = {-1.0, -0.0, INFINITY, NAN};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct prof_sbuf b = {0};
        encode_sample(&b, 1, bad[i]);
        off = 0;
        assert_int_equal(prof_summary_decode((const unsigned char *)b.data, b.len, &off,
                                             PROF_PART_VERSION, &c, bucket, count, &nhist),
                         PROF_ERR_FORMAT);
        prof_sbuf_release(&b);
    }
    struct prof_sbuf b = {0};
    encode_sample(&b, 1, 1.0);
    uint32_t past = PROF_HIST_BUCKETS;
    memcpy(b.data + PROF_SUMMARY_HEAD + PROF_SUMMARY_PAIR, &past, 4); /* the second bucket */
    off = 0;
    assert_int_equal(prof_summary_decode((const unsigned char *)b.data, b.len, &off,
                                         PROF_PART_VERSION, &c, bucket, count, &nhist),
                     PROF_ERR_FORMAT);
    uint32_t many = PROF_HIST_BUCKETS + 1;
    memcpy(b.data + 4, &many, 4); /* more buckets than exist */
    off = 0;
    assert_int_equal(prof_summary_decode((const unsigned char *)b.data, b.len, &off,
                                         PROF_PART_VERSION, &c, bucket, count, &nhist),
                     PROF_ERR_FORMAT);
    prof_sbuf_release(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(records_read_back_as_written),
        cmocka_unit_test(version_3_records_timed_every_call),
        cmocka_unit_test(version_2_records_have_no_node),
        cmocka_unit_test(cut_records_are_refused),
        cmocka_unit_test(impossible_values_are_refused),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
