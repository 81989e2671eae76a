/*
 * test_flame.c - unit tests of flame.c: the flame graph's layout of a calling-context tree.
 * Expected edges are worked out by hand from the times given.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/cct.h"
#include "model/flame.h"
#include "base/util.h"

/* Add a node named name below parent with this inclusive time (and self time 0). */
static uint32_t add(struct cct *t, uint32_t parent, const char *name, double total)
{
    return cct_add(t, parent, name, strlen(name), 1, total, 0);
}

/* The region name of rectangle i. */
static const char *name_of(const struct cct *t, const struct flame *f, size_t i)
{
    return t->names[t->nodes[f->rects[i].node].name];
}

/* Check rectangle i: its name, depth and edges (to 1e-12). */
static void check_rect(const struct cct *t, const struct flame *f, size_t i, const char *name,
                       unsigned depth, double x0, double x1)
{
    assert_true(i < f->n);
    assert_string_equal(name_of(t, f, i), name);
    assert_int_equal(f->rects[i].depth, depth);
    assert_true(fabs(f->rects[i].x0 - x0) < 1e-12);
    assert_true(fabs(f->rects[i].x1 - x1) < 1e-12);
}

/* Top-level regions share the whole width by inclusive time, the heavier on the left. */
static void top_level_regions_share_the_width(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    add(&t, t.root, "light", 25);
    add(&t, t.root, "heavy", 75);
    struct flame f;
    flame_layout(&t, FLAME_MIN_WIDTH, FLAME_MAX_DEPTH, &f);
    assert_int_equal(f.n, 2);
    assert_true(f.total_ns == 100);
    check_rect(&t, &f, 0, "heavy", 0, 0, 0.75);
    check_rect(&t, &f, 1, "light", 0, 0.75, 1);
    assert_int_equal(f.dropped, 0);
    assert_int_equal(f.depth, 1);
    flame_release(&f);
    cct_release(&t);
}

/* Each node comes before its children, which sit side by side from its left edge, heaviest
   first; what is left at the right is the parent's self time. With no self time the
   children's widths add up to the parent's. */
static void children_sit_under_their_parent_heaviest_first(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    uint32_t main = add(&t, t.root, "main", 100);
    uint32_t parse = add(&t, main, "parse", 30);
    uint32_t run = add(&t, main, "run", 50);
    add(&t, run, "step", 30);
    add(&t, run, "emit", 20);
    add(&t, parse, "lex", 15);
    struct flame f;
    flame_layout(&t, FLAME_MIN_WIDTH, FLAME_MAX_DEPTH, &f);
    assert_int_equal(f.n, 6);
    check_rect(&t, &f, 0, "main", 0, 0, 1);
    check_rect(&t, &f, 1, "run", 1, 0, 0.5);
    check_rect(&t, &f, 2, "step", 2, 0, 0.3);
    check_rect(&t, &f, 3, "emit", 2, 0.3, 0.5); /* step + emit = run: no self time */
    check_rect(&t, &f, 4, "parse", 1, 0.5, 0.8);
    check_rect(&t, &f, 5, "lex", 2, 0.5, 0.65);
    assert_int_equal(f.depth, 3);
    flame_release(&f);
    cct_release(&t);
}

/* Siblings with the same time are ordered by name, so the picture does not depend on the
   order rows came in. */
static void equal_siblings_are_ordered_by_name(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    uint32_t main = add(&t, t.root, "main", 40);
    add(&t, main, "zeta", 20);
    add(&t, main, "alpha", 20);
    struct flame f;
    flame_layout(&t, FLAME_MIN_WIDTH, FLAME_MAX_DEPTH, &f);
    assert_int_equal(f.n, 3);
    check_rect(&t, &f, 1, "alpha", 1, 0, 0.5);
    check_rect(&t, &f, 2, "zeta", 1, 0.5, 1);
    flame_release(&f);
    cct_release(&t);
}

/* Children whose times add up to more than their parent's (a never-stopped parent, rounding
   across runs) are scaled down to fit inside it. */
static void children_heavier_than_their_parent_are_scaled_to_fit(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    uint32_t main = add(&t, t.root, "main", 10);
    add(&t, main, "a", 12);
    add(&t, main, "b", 8);
    struct flame f;
    flame_layout(&t, FLAME_MIN_WIDTH, FLAME_MAX_DEPTH, &f);
    assert_int_equal(f.n, 3);
    check_rect(&t, &f, 1, "a", 1, 0, 0.6);
    check_rect(&t, &f, 2, "b", 1, 0.6, 1);
    flame_release(&f);
    cct_release(&t);
}

/* A node narrower than the threshold is left out with its whole subtree, and counted; the
   space it would take stays empty, so its siblings keep their places. */
static void narrow_nodes_are_left_out_with_their_subtrees(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    uint32_t main = add(&t, t.root, "main", 10000);
    uint32_t tiny = add(&t, main, "tiny", 5); /* 0.0005 of the width */
    uint32_t below = add(&t, tiny, "below", 5);
    add(&t, below, "deeper", 5);
    add(&t, main, "wide", 5000);
    struct flame f;
    flame_layout(&t, 0.001, FLAME_MAX_DEPTH, &f);
    assert_int_equal(f.n, 2);
    check_rect(&t, &f, 0, "main", 0, 0, 1);
    check_rect(&t, &f, 1, "wide", 1, 0, 0.5);
    assert_int_equal(f.dropped, 3);
    flame_release(&f);
    cct_release(&t);
}

/* A chain deeper than the limit is cut at the limit, the rest counted; thousands of equal
   leaves too narrow to see are all left out. */
static void deep_and_wide_trees_are_cut(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    uint32_t n = add(&t, t.root, "main", 1000);
    for (int d = 1; d < 300; d++) {
        char name[16];
        snprintf(name, sizeof name, "f%d", d);
        n = add(&t, n, name, 1000);
    }
    uint32_t fan = add(&t, t.root, "fan", 1000);
    for (int i = 0; i < 5000; i++) {
        char name[16];
        snprintf(name, sizeof name, "leaf%d", i);
        add(&t, fan, name, 0.2);
    }
    struct flame f;
    flame_layout(&t, 0.001, 160, &f);
    assert_int_equal(f.n, 160 + 1); /* the chain's first 160 levels, and fan */
    assert_int_equal(f.depth, 160);
    assert_int_equal(f.dropped, 140 + 5000);
    check_rect(&t, &f, 0, "fan", 0, 0, 0.5); /* ties by name: "fan" < "main" */
    check_rect(&t, &f, 1, "main", 0, 0.5, 1);
    check_rect(&t, &f, 160, "f159", 159, 0.5, 1);
    flame_release(&f);
    cct_release(&t);
}

/* A random tree of depth 50 and a few thousand nodes: every rectangle is at least the
   threshold wide, inside its parent's edges one level down, after its parent and its earlier
   siblings, siblings do not overlap, and drawn plus left out is every node. */
static void random_trees_keep_the_layout_rules(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    uint64_t x = 88172645463325252ull;
    uint32_t *nodes = xmalloc(4000 * sizeof *nodes);
    double *left = xmalloc(4000 * sizeof *left); /* time not yet given to children */
    size_t nn = 0;
    nodes[nn] = add(&t, t.root, "main", 1e9);
    left[nn++] = 1e9;
    for (int d = 1; d < 50; d++) { /* a path 50 deep: each level 0.9 of the one above */
        left[nn - 1] *= 0.1;
        nodes[nn] = add(&t, nodes[nn - 1], d % 2 ? "odd" : "even", 1e9 * pow(0.9, d));
        left[nn] = 1e9 * pow(0.9, d);
        nn++;
    }
    while (nn < 4000) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        size_t p = x % nn;
        char name[16];
        snprintf(name, sizeof name, "r%u", (unsigned)(x >> 40) % 300);
        /* A share of what the parent has left: children never outweigh their parent. */
        double ns = left[p] * (double)((x >> 20) % 1000) / 2000;
        left[p] -= ns;
        left[nn] = ns;
        nodes[nn++] = add(&t, nodes[p], name, ns);
    }
    size_t live = 0;
    for (uint32_t i = 0; i < t.nnodes; i++)
        live += i != t.root && t.nodes[i].parent != CCT_NONE;
    struct flame f;
    flame_layout(&t, 0.001, FLAME_MAX_DEPTH, &f);
    assert_int_equal(f.n + f.dropped, live);
    long *at = xmalloc(t.nnodes * sizeof *at);
    for (size_t i = 0; i < t.nnodes; i++)
        at[i] = -1;
    for (size_t i = 0; i < f.n; i++) {
        const struct flame_rect *r = &f.rects[i];
        assert_true(r->x1 - r->x0 >= 0.001 - 1e-12);
        assert_true(r->x0 >= 0 && r->x1 <= 1 + 1e-12);
        uint32_t parent = t.nodes[r->node].parent;
        if (parent != t.root) {
            assert_true(at[parent] >= 0); /* the parent came first */
            const struct flame_rect *p = &f.rects[at[parent]];
            assert_int_equal(r->depth, p->depth + 1);
            assert_true(r->x0 >= p->x0 - 1e-12 && r->x1 <= p->x1 + 1e-12);
        } else {
            assert_int_equal(r->depth, 0);
        }
        at[r->node] = (long)i;
    }
    /* Siblings: in order left to right, without overlap. */
    for (size_t i = 0; i < f.n; i++)
        for (size_t j = i + 1; j < f.n; j++)
            if (t.nodes[f.rects[i].node].parent == t.nodes[f.rects[j].node].parent)
                assert_true(f.rects[j].x0 >= f.rects[i].x1 - 1e-12);
    assert_true(f.depth >= 50); /* the 50-deep path is drawn whole */
    assert_true(f.dropped > 0 && f.n > 100);
    free(at);
    free(left);
    free(nodes);
    flame_release(&f);
    cct_release(&t);
}

/* An empty tree has nothing to draw. */
static void empty_tree_has_no_rectangles(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    struct flame f;
    flame_layout(&t, FLAME_MIN_WIDTH, FLAME_MAX_DEPTH, &f);
    assert_int_equal(f.n, 0);
    assert_int_equal(f.depth, 0);
    assert_int_equal(f.dropped, 0);
    flame_release(&f);
    cct_release(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(top_level_regions_share_the_width),
        cmocka_unit_test(children_sit_under_their_parent_heaviest_first),
        cmocka_unit_test(equal_siblings_are_ordered_by_name),
        cmocka_unit_test(children_heavier_than_their_parent_are_scaled_to_fit),
        cmocka_unit_test(narrow_nodes_are_left_out_with_their_subtrees),
        cmocka_unit_test(deep_and_wide_trees_are_cut),
        cmocka_unit_test(random_trees_keep_the_layout_rules),
        cmocka_unit_test(empty_tree_has_no_rectangles),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
