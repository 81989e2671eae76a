/*
 * test_replay.c - unit tests of format/replay.c: event words back into rows with parent, depth,
 * self time, start and recursion; stray stops and regions never stopped.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "replay.h"

#define ENTER(id, gap) (id), (gap)
#define EXIT(gap) (PROF_W_EXIT | (gap))

/* Rows collected from a replay. */
struct rows {
    struct prof_row r[32];
    int n;
};

static void collect(void *ctx, const struct prof_row *row)
{
    struct rows *rows = ctx;
    rows->r[rows->n++] = *row;
}

/* Replay words (with nids ids defined) and finish. */
static enum prof_error replay(const uint32_t *w, size_t n, uint32_t nids, struct rows *out,
                              struct prof_replay *r)
{
    memset(out, 0, sizeof *out);
    prof_replay_init(r, collect, out);
    r->nids = nids;
    enum prof_error e = prof_replay_words(r, w, n);
    if (e == PROF_OK)
        prof_replay_finish(r);
    return e;
}

/* A parent with two children: rows in end order, self = ticks minus the children. */
static void nesting_gives_parent_depth_and_self(void **state)
{
    (void)state;
    /* 0 opens at 10, 1 at 15 ends at 35, 1 at 40 ends at 45, 0 ends at 100. */
    uint32_t w[] = {ENTER(0, 10), ENTER(1, 5), EXIT(20), ENTER(1, 5), EXIT(5), EXIT(55)};
    struct rows rows;
    struct prof_replay r;
    assert_int_equal(replay(w, sizeof w / 4, 2, &rows, &r), PROF_OK);
    assert_int_equal(rows.n, 3);
    assert_int_equal(rows.r[0].id, 1);
    assert_int_equal(rows.r[0].parent, 0);
    assert_int_equal(rows.r[0].depth, 1);
    assert_int_equal(rows.r[0].ticks, 20);
    assert_int_equal(rows.r[0].self, 20);
    assert_int_equal(rows.r[0].start, 15);
    assert_int_equal(rows.r[1].ticks, 5);
    assert_int_equal(rows.r[1].start, 40);
    assert_int_equal(rows.r[2].id, 0);
    assert_int_equal(rows.r[2].depth, 0);
    assert_int_equal(rows.r[2].ticks, 90);
    assert_int_equal(rows.r[2].self, 90 - 20 - 5);
    assert_int_equal(rows.r[2].start, 10);
    assert_true(rows.r[2].stopped);
    assert_int_equal(r.instances, 3);
    prof_replay_release(&r);
}

/* Recursion: only the inner instances are marked nested. */
static void recursion_is_marked_nested(void **state)
{
    (void)state;
    uint32_t w[] = {ENTER(0, 1), ENTER(0, 1), ENTER(1, 1), ENTER(0, 1),
                    EXIT(1),     EXIT(1),     EXIT(1),     EXIT(1)};
    struct rows rows;
    struct prof_replay r;
    assert_int_equal(replay(w, sizeof w / 4, 2, &rows, &r), PROF_OK);
    assert_int_equal(rows.n, 4);
    assert_true(rows.r[0].nested);  /* 0 inside 1 inside 0 inside 0 */
    assert_false(rows.r[1].nested); /* 1 */
    assert_true(rows.r[2].nested);  /* second 0 */
    assert_false(rows.r[3].nested); /* outermost 0 */
    prof_replay_release(&r);
}

/* A stop with nothing open is counted, not fatal, and does not disturb later rows. */
static void stray_stops_are_counted(void **state)
{
    (void)state;
    uint32_t w[] = {PROF_W_STRAY, 3, ENTER(0, 2), EXIT(4), EXIT(1)};
    struct rows rows;
    struct prof_replay r;
    assert_int_equal(replay(w, sizeof w / 4, 1, &rows, &r), PROF_OK);
    assert_int_equal(r.stray, 2); /* the stray word, and an exit with nothing open */
    assert_int_equal(rows.n, 1);
    assert_int_equal(rows.r[0].start, 5);
    assert_int_equal(rows.r[0].ticks, 4);
    prof_replay_release(&r);
}

/* Regions open at the end are emitted innermost first, never stopped. */
static void open_regions_are_unterminated(void **state)
{
    (void)state;
    uint32_t w[] = {ENTER(0, 7), ENTER(1, 3), ENTER(2, 1), EXIT(1)};
    struct rows rows;
    struct prof_replay r;
    assert_int_equal(replay(w, sizeof w / 4, 3, &rows, &r), PROF_OK);
    assert_int_equal(rows.n, 3);
    assert_true(rows.r[0].stopped);
    assert_false(rows.r[1].stopped);
    assert_int_equal(rows.r[1].id, 1);
    assert_int_equal(rows.r[1].parent, 0);
    assert_int_equal(rows.r[1].start, 10);
    assert_false(rows.r[2].stopped);
    assert_int_equal(rows.r[2].id, 0);
    assert_int_equal(r.unterminated, 2);
    prof_replay_release(&r);
}

/* A long gap moves the clock by a 64-bit amount. */
static void long_gaps_move_the_clock(void **state)
{
    (void)state;
    uint32_t w[] = {PROF_W_LONG, 2, 5, ENTER(0, 0), PROF_W_LONG, 0, 0x90000000u, EXIT(0)};
    struct rows rows;
    struct prof_replay r;
    assert_int_equal(replay(w, sizeof w / 4, 1, &rows, &r), PROF_OK);
    assert_int_equal(rows.n, 1);
    assert_int_equal(rows.r[0].start, (2ull << 32) + 5);
    assert_int_equal(rows.r[0].ticks, 0x90000000u);
    prof_replay_release(&r);
}

/* Records split across calls (chunks) replay as if whole. */
static void split_records_are_joined(void **state)
{
    (void)state;
    uint32_t w[] = {ENTER(0, 10), PROF_W_LONG, 1, 2, ENTER(0, 3), EXIT(4), EXIT(5)};
    size_t n = sizeof w / 4;
    struct rows whole;
    struct prof_replay r;
    assert_int_equal(replay(w, n, 1, &whole, &r), PROF_OK);
    prof_replay_release(&r);
    for (size_t cut = 1; cut < n; cut++) {
        struct rows rows = {0};
        prof_replay_init(&r, collect, &rows);
        r.nids = 1;
        assert_int_equal(prof_replay_words(&r, w, cut), PROF_OK);
        assert_int_equal(prof_replay_words(&r, w + cut, n - cut), PROF_OK);
        prof_replay_finish(&r);
        assert_int_equal(rows.n, whole.n);
        assert_memory_equal(rows.r, whole.r, sizeof whole.r[0] * (size_t)whole.n);
        prof_replay_release(&r);
    }
}

/* A hidden-time record (PROFILER_MAX_EVENTS) takes children not in the stream out of the
   innermost open region's self time, and moves no clock. */
static void hidden_time_is_not_self_time(void **state)
{
    (void)state;
    /* 0 opens at 10; 1 at 12 ends at 20; 8 + 2^32 ticks of children counted elsewhere; 0 ends
       at 2^32 + 100. */
    uint32_t w[] = {ENTER(0, 10), ENTER(1, 2), EXIT(8), PROF_W_HIDDEN, 1, 8,
                    PROF_W_LONG,  1,           0,       EXIT(80)};
    struct rows rows;
    struct prof_replay r;
    assert_int_equal(replay(w, sizeof w / 4, 2, &rows, &r), PROF_OK);
    assert_int_equal(rows.n, 2);
    assert_int_equal(rows.r[1].ticks, (1ull << 32) + 90);
    assert_int_equal(rows.r[1].self, (1ull << 32) + 90 - 8 - ((1ull << 32) + 8));
    assert_int_equal(r.instances, 2);
    prof_replay_release(&r);
}

/* Reserved words and undefined ids are malformed input. */
static void malformed_words_are_rejected(void **state)
{
    (void)state;
    struct rows rows;
    struct prof_replay r;
    uint32_t reserved[] = {0x7ffffff5u, 0};
    assert_int_equal(replay(reserved, 2, 1, &rows, &r), PROF_ERR_FORMAT);
    prof_replay_release(&r);
    uint32_t undefined[] = {ENTER(3, 0)};
    assert_int_equal(replay(undefined, 2, 3, &rows, &r), PROF_ERR_FORMAT);
    prof_replay_release(&r);
}

/* A scan counts what a replay counts and emits only the regions never stopped, same as the
   replay's own. */
static void scan_counts_as_a_replay_does(void **state)
{
    (void)state;
    uint32_t w[] = {EXIT(1), ENTER(0, 10), ENTER(1, 5), EXIT(20),     ENTER(1, 5), PROF_W_LONG, 0,
                    7,       ENTER(0, 2),  EXIT(3),     PROF_W_STRAY, 4,           ENTER(1, 1)};
    size_t n = sizeof w / 4;
    struct rows full, scanned = {0};
    struct prof_replay r, s;
    assert_int_equal(replay(w, n, 2, &full, &r), PROF_OK);
    prof_replay_init(&s, collect, &scanned);
    s.nids = 2;
    s.scan = 1;
    assert_int_equal(prof_replay_words(&s, w, 5), PROF_OK); /* a record split across calls */
    assert_int_equal(prof_replay_words(&s, w + 5, n - 5), PROF_OK);
    prof_replay_finish(&s);
    assert_int_equal(s.clock, r.clock);
    assert_int_equal(s.stray, 2);
    assert_int_equal(s.stray, r.stray);
    assert_int_equal(s.unterminated, 3);
    assert_int_equal(s.unterminated, r.unterminated);
    assert_int_equal(s.instances, r.instances);
    assert_int_equal(scanned.n, 3);
    for (int i = 0; i < 3; i++) {
        const struct prof_row *a = &scanned.r[i], *b = &full.r[full.n - 3 + i];
        assert_false(a->stopped);
        assert_int_equal(a->id, b->id);
        assert_int_equal(a->depth, b->depth);
        assert_int_equal(a->start, b->start);
        if (a->depth > 0)
            assert_int_equal(a->parent, b->parent);
    }
    prof_replay_release(&r);
    prof_replay_release(&s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(nesting_gives_parent_depth_and_self),
        cmocka_unit_test(recursion_is_marked_nested),
        cmocka_unit_test(stray_stops_are_counted),
        cmocka_unit_test(open_regions_are_unterminated),
        cmocka_unit_test(long_gaps_move_the_clock),
        cmocka_unit_test(split_records_are_joined),
        cmocka_unit_test(hidden_time_is_not_self_time),
        cmocka_unit_test(malformed_words_are_rejected),
        cmocka_unit_test(scan_counts_as_a_replay_does),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
