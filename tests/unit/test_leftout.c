/*
 * test_leftout.c - unit tests of collector/leftout.c: the left-out functions' code ranges and
 * a thread's samples charged to them per calling context.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "leftout.h"

static int fa, fb; /* two "functions" (leftout.c keeps them as opaque pointers) */

/* A range answers for every address from its entry up to, not including, its end; ranges
   added after a forget answer, those before do not; a function of unknown size is not
   added. */
static void ranges_answer_for_their_code_only(void **state)
{
    (void)state;
    uint32_t a = prof_leftout_add(&fa, 0x1000, 0x40);
    uint32_t b = prof_leftout_add(&fb, 0x2000, 0x10);
    assert_int_not_equal(a, 0);
    assert_int_equal(b, a + 1);
    assert_int_equal(prof_leftout_add(&fb, 0x3000, 0), 0);
    assert_int_equal(prof_leftout_at(0x1000), a);
    assert_int_equal(prof_leftout_at(0x103f), a);
    assert_int_equal(prof_leftout_at(0x1040), 0);
    assert_int_equal(prof_leftout_at(0xfff), 0);
    assert_int_equal(prof_leftout_at(0x2008), b);
    assert_ptr_equal(prof_leftout_fn(a), &fa);
    assert_ptr_equal(prof_leftout_fn(b), &fb);
    assert_null(prof_leftout_fn(0));
    assert_null(prof_leftout_fn(b + 1));

    /* a module unloaded: its addresses may be another's */
    prof_leftout_forget();
    assert_int_equal(prof_leftout_at(0x1000), 0);
    uint32_t c = prof_leftout_add(&fa, 0x1000, 0x20);
    assert_int_equal(c, b + 1);
    assert_int_equal(prof_leftout_at(0x1010), c);
    assert_int_equal(prof_leftout_at(0x1030), 0);
}

static int described; /* what the describer was asked for */

static const void *describer(uint32_t r)
{
    described = (int)r;
    prof_leftout_set_fn(r, &fb);
    return &fb;
}

/* A range added without its function (a sample in a function without hooks) gets it later:
   from the describer at the first ask, once; a dropped range answers for no address but keeps
   its number and entry. */
static void ranges_get_their_function_later_and_may_be_dropped(void **state)
{
    (void)state;
    prof_leftout_forget();
    uint32_t a = prof_leftout_add(NULL, 0x5000, 0x100);
    assert_int_not_equal(a, 0);
    assert_null(prof_leftout_fn(a));
    assert_null(prof_leftout_describe(a)); /* no describer: the plain library */
    assert_int_equal(prof_leftout_entry(a), 0x5000);
    prof_leftout_set_describer(describer);
    assert_ptr_equal(prof_leftout_describe(a), &fb);
    assert_int_equal(described, (int)a);
    described = 0;
    assert_ptr_equal(prof_leftout_describe(a), &fb);
    assert_int_equal(described, 0);
    assert_null(prof_leftout_describe(a + 1)); /* no such range: nothing asked */
    assert_int_equal(described, 0);
    prof_leftout_set_describer(NULL);

    assert_int_equal(prof_leftout_at(0x5080), a);
    prof_leftout_drop(a);
    assert_int_equal(prof_leftout_at(0x5080), 0);
    assert_int_equal(prof_leftout_at(0x5000), 0);
    assert_int_equal(prof_leftout_entry(a), 0x5000);
    assert_ptr_equal(prof_leftout_fn(a), &fb);
    assert_int_equal(prof_leftout_entry(0), 0);

    /* a range dropped before its description (its function proved to have hooks) is never
       described: its samples stay their context's */
    uint32_t b = prof_leftout_add(NULL, 0x6000, 0x10);
    prof_leftout_drop(b);
    prof_leftout_set_describer(describer);
    described = 0;
    assert_null(prof_leftout_describe(b));
    assert_int_equal(described, 0);
    prof_leftout_set_describer(NULL);
}

/* The table holds PROF_LEFTOUT_MAX ranges; an add past them fails, however many try. */
static void a_full_range_table_refuses_more(void **state)
{
    (void)state;
    uint32_t last = 0, r;
    while ((r = prof_leftout_add(&fa, 0x100000 + (uintptr_t)last * 16, 16)) != 0)
        last = r;
    assert_int_equal(last, PROF_LEFTOUT_MAX);
    assert_int_equal(prof_leftout_add(&fa, 0x900000, 16), 0);
    assert_int_equal(prof_leftout_add(&fa, 0x900000, 16), 0);
    assert_ptr_equal(prof_leftout_fn(PROF_LEFTOUT_MAX), &fa);
    assert_null(prof_leftout_fn(PROF_LEFTOUT_MAX + 1));
}

/* Samples add up per (context, function); a function gets an id only when the owner gives
   it one; clearing empties the table; a table never made charges nothing. */
static void samples_add_up_per_context_and_function(void **state)
{
    (void)state;
    struct prof_node *p = (struct prof_node *)(uintptr_t)0x100;
    struct prof_node *q = (struct prof_node *)(uintptr_t)0x200;
    struct prof_leftout_hits h = {0};
    assert_int_equal(prof_leftout_charge(&h, p, 1, 1), 0);
    assert_int_equal(prof_leftout_hits_make(&h), 0);
    assert_int_equal(prof_leftout_charge(&h, p, 1, 2), 1);
    assert_int_equal(prof_leftout_charge(&h, p, 1, 3), 1);
    assert_int_equal(prof_leftout_charge(&h, q, 1, 4), 1);
    assert_int_equal(prof_leftout_charge(&h, p, 2, 5), 1);
    uint64_t got[3] = {0};
    unsigned used = 0;
    for (uint32_t i = 0; i < PROF_LEFTOUT_HITS; i++) {
        const struct prof_leftout_hit *e = &h.hits[i];
        if (!e->parent)
            continue;
        used++;
        got[e->parent == p && e->fn == 1 ? 0 : e->parent == q ? 1 : 2] += e->samples;
    }
    assert_int_equal(used, 3);
    assert_int_equal(got[0], 5);
    assert_int_equal(got[1], 4);
    assert_int_equal(got[2], 5);
    assert_int_equal(prof_leftout_id(&h, 1), 0);
    h.ids[0] = 7 + 1;
    assert_int_equal(prof_leftout_id(&h, 1), 8);
    assert_int_equal(prof_leftout_id(&h, 0), 0);
    assert_int_equal(prof_leftout_id(&h, PROF_LEFTOUT_MAX + 1), 0);

    prof_leftout_hits_clear(&h);
    for (uint32_t i = 0; i < PROF_LEFTOUT_HITS; i++)
        assert_null(h.hits[i].parent);
    assert_int_equal(prof_leftout_id(&h, 1), 0);
    prof_leftout_hits_free(&h);
    assert_null(h.hits);
}

/* A full table refuses a new pair (its samples go to the context) and counts them lost,
   but still adds to the pairs it holds, each found within the longest probe it took. */
static void a_full_table_refuses_new_pairs(void **state)
{
    (void)state;
    struct prof_leftout_hits h = {0};
    assert_int_equal(prof_leftout_hits_make(&h), 0);
    for (uintptr_t i = 1; i <= PROF_LEFTOUT_PAIRS; i++)
        assert_int_equal(prof_leftout_charge(&h, (struct prof_node *)(i * 64), 1, 1), 1);
    assert_int_equal(prof_leftout_charge(&h, (struct prof_node *)(uintptr_t)64, 2, 3), 0);
    assert_int_equal(h.lost, 3);
    assert_int_equal(prof_leftout_charge(&h, (struct prof_node *)(uintptr_t)128, 1, 1), 1);
    /* Every pair is still found within the longest probe taken: a miss searches no further
       (a sample's handler never scans the whole table) */
    assert_int_equal(h.used, PROF_LEFTOUT_PAIRS);
    assert_true(h.reach < PROF_LEFTOUT_PROBES);
    for (uintptr_t i = 1; i <= PROF_LEFTOUT_PAIRS; i++)
        assert_int_equal(prof_leftout_charge(&h, (struct prof_node *)(i * 64), 1, 1), 1);
    assert_int_equal(h.lost, 3);
    uint64_t all = 0;
    for (uint32_t i = 0; i < PROF_LEFTOUT_HITS; i++)
        all += h.hits[i].samples;
    assert_int_equal(all, 2 * PROF_LEFTOUT_PAIRS + 1);
    /* Cleared, it holds pairs again from the start */
    prof_leftout_hits_clear(&h);
    assert_int_equal(h.used, 0);
    assert_int_equal(h.reach, 0);
    assert_int_equal(prof_leftout_charge(&h, (struct prof_node *)(uintptr_t)64, 2, 3), 1);
    prof_leftout_hits_free(&h);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranges_answer_for_their_code_only),
        cmocka_unit_test(samples_add_up_per_context_and_function),
        cmocka_unit_test(a_full_table_refuses_new_pairs),
        cmocka_unit_test(ranges_get_their_function_later_and_may_be_dropped),
        cmocka_unit_test(a_full_range_table_refuses_more),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
