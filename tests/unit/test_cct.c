/*
 * test_cct.c - unit tests of cct.c: the calling-context tree built from rows in end order,
 * merged by name, with orphans, unstopped instances and bounded memory. Expected trees are
 * worked out by hand from the rows given.
 */
#define _GNU_SOURCE /* open_memstream */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cct.h"
#include "util.h"

/* The child of parent with this name, or CCT_NONE (by walking the sibling list). */
static uint32_t child_named(const struct cct *t, uint32_t parent, const char *name)
{
    for (uint32_t c = t->nodes[parent].child; c != CCT_NONE; c = t->nodes[c].sibling)
        if (strcmp(t->names[t->nodes[c].name], name) == 0)
            return c;
    return CCT_NONE;
}

/* The node at a ';'-separated path below the root, or CCT_NONE. */
static uint32_t at(const struct cct *t, const char *path)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", path);
    uint32_t n = t->root;
    for (char *save, *p = strtok_r(buf, ";", &save); p && n != CCT_NONE;
         p = strtok_r(NULL, ";", &save))
        n = child_named(t, n, p);
    return n;
}

/* Nodes reachable from the root, the root excluded. */
static size_t reachable(const struct cct *t, uint32_t n)
{
    size_t k = 0;
    for (uint32_t c = t->nodes[n].child; c != CCT_NONE; c = t->nodes[c].sibling)
        k += 1 + reachable(t, c);
    return k;
}

/* One stopped row. */
static void row(struct cct_stream *s, const char *name, unsigned depth, double total, double self)
{
    cct_stream_row(s, name, strlen(name), depth, 1, total, self);
}

/* Children (end first) are adopted by the row at the depth above, merged by name. */
static void rows_in_end_order_build_the_tree(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    row(&s, "inner", 1, 10, 10);
    row(&s, "inner", 1, 20, 20);
    row(&s, "other", 1, 5, 5);
    row(&s, "outer", 0, 100, 65);
    cct_stream_end(&s);
    uint32_t outer = at(&t, "outer"), inner = at(&t, "outer;inner");
    assert_int_not_equal(outer, CCT_NONE);
    assert_int_not_equal(inner, CCT_NONE);
    assert_int_equal(t.nodes[outer].calls, 1);
    assert_true(t.nodes[outer].total_ns == 100 && t.nodes[outer].self_ns == 65);
    assert_int_equal(t.nodes[inner].calls, 2);
    assert_true(t.nodes[inner].total_ns == 30 && t.nodes[inner].self_ns == 30);
    assert_int_equal(t.nodes[at(&t, "outer;other")].calls, 1);
    assert_int_equal(reachable(&t, t.root), 3);
    cct_release(&t);
}

/* A million instances of one path take the memory of one path. */
static void repeated_paths_keep_memory_bounded(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    for (int i = 0; i < 1000000; i++) {
        row(&s, "leaf", 2, 1, 1);
        row(&s, "mid", 1, 3, 2);
        row(&s, "top", 0, 4, 1);
    }
    cct_stream_end(&s);
    assert_true(t.nnodes < 16);
    uint32_t leaf = at(&t, "top;mid;leaf");
    assert_int_equal(t.nodes[leaf].calls, 1000000);
    assert_true(t.nodes[leaf].total_ns == 1e6);
    assert_true(t.nodes[at(&t, "top")].total_ns == 4e6);
    assert_int_equal(reachable(&t, t.root), 3);
    cct_release(&t);
}

/* A recursive region gets one node per depth of recursion. */
static void recursion_is_one_node_per_level(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    row(&s, "rec", 2, 10, 10);
    row(&s, "rec", 1, 30, 20);
    row(&s, "rec", 0, 60, 30);
    row(&s, "rec", 1, 7, 7);
    row(&s, "rec", 0, 9, 2);
    cct_stream_end(&s);
    assert_int_equal(t.nodes[at(&t, "rec")].calls, 2);
    assert_true(t.nodes[at(&t, "rec")].total_ns == 69);
    assert_int_equal(t.nodes[at(&t, "rec;rec")].calls, 2);
    assert_true(t.nodes[at(&t, "rec;rec")].self_ns == 27);
    assert_int_equal(t.nodes[at(&t, "rec;rec;rec")].calls, 1);
    assert_int_equal(reachable(&t, t.root), 3);
    cct_release(&t);
}

/* An instance that never stopped counts in never; its children's time is its total. */
static void unstopped_instance_keeps_its_children(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    row(&s, "child", 1, 40, 40);
    row(&s, "child", 1, 2, 2);
    cct_stream_row(&s, "open", 4, 0, 0, 0, 0);
    cct_stream_end(&s);
    uint32_t open = at(&t, "open");
    assert_int_equal(t.nodes[open].calls, 0);
    assert_int_equal(t.nodes[open].never, 1);
    assert_true(t.nodes[open].total_ns == 42 && t.nodes[open].self_ns == 0);
    assert_int_equal(t.nodes[at(&t, "open;child")].calls, 2);
    cct_release(&t);
}

/* Rows whose caller's row never comes become roots, at the end or when skipped over. */
static void orphans_become_roots(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    row(&s, "lost", 2, 5, 5); /* depth 1 never comes: a depth-0 row follows */
    row(&s, "a", 0, 10, 10);
    row(&s, "left", 1, 3, 3); /* the thread ends before its caller's row */
    cct_stream_end(&s);
    assert_int_equal(t.nodes[at(&t, "lost")].calls, 1);
    assert_int_equal(t.nodes[at(&t, "a")].child, CCT_NONE);
    assert_int_equal(t.nodes[at(&t, "left")].calls, 1);
    assert_int_equal(reachable(&t, t.root), 3);
    cct_release(&t);
}

/* Threads merge into one forest, or each under a node of the caller's choice. */
static void threads_merge_or_stay_apart(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    for (int k = 0; k < 2; k++) {
        cct_stream_begin(&s, &t, t.root);
        row(&s, "b", 1, 1, 1);
        row(&s, "a", 0, 2, 1);
        cct_stream_end(&s);
    }
    uint32_t w = cct_child(&t, t.root, "worker", 6);
    cct_stream_begin(&s, &t, w);
    row(&s, "a", 0, 8, 8);
    cct_stream_end(&s);
    assert_int_equal(t.nodes[at(&t, "a;b")].calls, 2);
    assert_int_equal(t.nodes[at(&t, "a")].calls, 2);
    assert_int_equal(t.nodes[at(&t, "worker;a")].calls, 1);
    assert_true(t.nodes[at(&t, "worker;a")].total_ns == 8);
    cct_add(&t, t.root, "a", 1, 5, 50, 20);
    assert_int_equal(t.nodes[at(&t, "a")].calls, 7);
    assert_true(t.nodes[at(&t, "a")].self_ns == 22);
    cct_release(&t);
}

/* What the walk saw, as text: "+a;b" before children, "-a;b" after. */
struct trail {
    char *text;
    size_t len;
    FILE *f;
};

static void trail_visit(void *ctx, const struct cct *t, const uint32_t *path, size_t len, char c)
{
    struct trail *x = ctx;
    fputc(c, x->f);
    for (size_t i = 0; i < len; i++)
        fprintf(x->f, "%s%s", i ? ";" : "", t->names[t->nodes[path[i]].name]);
    fputc(' ', x->f);
}
static void trail_pre(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    trail_visit(ctx, t, path, len, '+');
}
static void trail_post(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    trail_visit(ctx, t, path, len, '-');
}

/* The walk goes depth first, siblings in byte order, with the whole path each time. */
static void walk_is_depth_first_in_name_order(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    row(&s, "z", 1, 1, 1);
    row(&s, "b", 1, 1, 1);
    row(&s, "m", 0, 3, 1);
    row(&s, "ab", 0, 1, 1);
    row(&s, "a", 0, 1, 1);
    cct_stream_end(&s);
    struct trail x = {0};
    x.f = open_memstream(&x.text, &x.len);
    cct_walk(&t, t.root, trail_pre, trail_post, &x);
    fclose(x.f);
    assert_string_equal(x.text, "+a -a +ab -ab +m +m;b -m;b +m;z -m;z -m ");
    free(x.text);
    cct_release(&t);
}

/* Rows deeper than the limit are taken as top-level rows, not as a reason to allocate. */
static void absurd_depth_is_a_root(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    row(&s, "deep", 4000000000u, 1, 1);
    cct_stream_end(&s);
    assert_int_equal(t.nodes[at(&t, "deep")].calls, 1);
    cct_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(rows_in_end_order_build_the_tree),
        cmocka_unit_test(repeated_paths_keep_memory_bounded),
        cmocka_unit_test(recursion_is_one_node_per_level),
        cmocka_unit_test(unstopped_instance_keeps_its_children),
        cmocka_unit_test(orphans_become_roots),
        cmocka_unit_test(threads_merge_or_stay_apart),
        cmocka_unit_test(walk_is_depth_first_in_name_order),
        cmocka_unit_test(absurd_depth_is_a_root),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
