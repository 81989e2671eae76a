/*
 * test_hooks.c - unit tests of hooks.c: the features' hooks run in the order registered, a
 * missing member is skipped, the write hooks stop at the first error, and a hook set is
 * registered once.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "hooks.h"

/* What the hooks saw, in order: one letter per call. */
static char seen[64];
static size_t nseen;
static int write_error_b; /* what b's thread_write returns */

static void note(char c)
{
    if (nseen + 1 < sizeof seen)
        seen[nseen++] = c;
    seen[nseen] = 0;
}

static void a_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    (void)t;
    (void)run;
    note('a');
}
static int a_write(struct prof_thread *t)
{
    (void)t;
    note('A');
    return 0;
}
static void a_free(struct prof_thread *t)
{
    (void)t;
    note('1');
}
static void b_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    (void)t;
    (void)run;
    note('b');
}
static int b_write(struct prof_thread *t)
{
    (void)t;
    note('B');
    return write_error_b;
}
static void b_exit(struct prof_thread *t)
{
    (void)t;
    note('x');
}
static void b_run_end(struct prof_mem_report *memory)
{
    (void)memory;
    note('r');
}
static int c_write(struct prof_thread *t)
{
    (void)t;
    note('C');
    return 0;
}
static void a_exiting(struct prof_thread *t)
{
    (void)t;
    note('e');
}
static void c_exiting(struct prof_thread *t)
{
    (void)t;
    note('E');
}

static const struct prof_hooks a = {"a", a_begin, a_write, NULL, a_free, NULL, a_exiting};
static const struct prof_hooks b = {"b", b_begin, b_write, b_exit, NULL, b_run_end, NULL};
static const struct prof_hooks c = {"c", NULL, c_write, NULL, NULL, NULL, c_exiting};

/* A recorder the hooks only pass on; never dereferenced by hooks.c. */
static struct prof_thread *const some_thread = (struct prof_thread *)&seen;

static void clear(void)
{
    nseen = 0;
    seen[0] = 0;
}

/* Registered in order a, b, c (the table is process-wide: the tests run in this order). */
static void hooks_run_in_registration_order_skipping_missing_members(void **state)
{
    (void)state;
    assert_int_equal(prof_hooks_add(&a), 0);
    assert_int_equal(prof_hooks_add(&b), 0);
    assert_int_equal(prof_hooks_add(&c), 0);
    clear();
    prof_hooks_thread_begin(some_thread, NULL);
    prof_hooks_thread_exit(some_thread);
    prof_hooks_thread_free(some_thread);
    struct prof_mem_report memory = {.n = 99};
    prof_hooks_run_end(&memory);
    assert_string_equal(seen, "abx1r");
    assert_int_equal(memory.n, 0); /* emptied before the hooks fill it */
    prof_mem_report_release(&memory);
    clear();
    assert_int_equal(prof_hooks_thread_write(some_thread), 0);
    assert_string_equal(seen, "ABC");
    /* the process exits: the sets that close anything at exit (the function hooks) */
    clear();
    prof_hooks_exiting(some_thread);
    assert_string_equal(seen, "eE");
}

static void write_hooks_stop_at_the_first_error(void **state)
{
    (void)state;
    write_error_b = ENOSPC;
    clear();
    assert_int_equal(prof_hooks_thread_write(some_thread), ENOSPC);
    assert_string_equal(seen, "AB"); /* c's chunk is not written after b's failed */
    write_error_b = 0;
}

static void a_hook_set_is_registered_once_and_the_table_has_a_limit(void **state)
{
    (void)state;
    assert_int_equal(prof_hooks_add(&b), 1);
    clear();
    struct prof_mem_report memory;
    prof_hooks_run_end(&memory);
    assert_string_equal(seen, "r"); /* still one run_end */
    prof_mem_report_release(&memory);
    static struct prof_hooks more[PROF_HOOKS_MAX];
    int added = 0, refused = 0;
    for (int i = 0; i < PROF_HOOKS_MAX; i++) {
        int r = prof_hooks_add(&more[i]);
        added += r == 0;
        refused += r == -1;
    }
    assert_int_equal(added, PROF_HOOKS_MAX - 3);
    assert_int_equal(refused, 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(hooks_run_in_registration_order_skipping_missing_members),
        cmocka_unit_test(write_hooks_stop_at_the_first_error),
        cmocka_unit_test(a_hook_set_is_registered_once_and_the_table_has_a_limit),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
