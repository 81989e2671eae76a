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

#include "model/cct.h"
#include "base/util.h"

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

/* cct_child finds the same node again however many siblings were added between the lookups,
   below and above the count at which a node's children go into the hash. */
static void lookups_survive_siblings_added_between_them(void **state)
{
    (void)state;
    struct cct t;
    cct_init(&t);
    uint32_t first[64];
    char name[16];
    for (int k = 0; k < 64; k++) {
        snprintf(name, sizeof name, "f%d", k);
        first[k] = cct_child(&t, t.root, name, strlen(name));
        /* every earlier child is found again, and is still the only one of its name */
        for (int j = 0; j <= k; j++) {
            snprintf(name, sizeof name, "f%d", j);
            assert_int_equal(cct_child(&t, t.root, name, strlen(name)), first[j]);
        }
        assert_int_equal(reachable(&t, t.root), (size_t)k + 1);
    }
    /* the same under a node of the tree, interleaved with lookups under the root */
    uint32_t a = first[3];
    uint32_t x = cct_child(&t, a, "x", 1);
    for (int k = 0; k < 40; k++) {
        snprintf(name, sizeof name, "g%d", k);
        uint32_t g = cct_child(&t, a, name, strlen(name));
        assert_int_equal(cct_child(&t, a, name, strlen(name)), g);
        assert_int_equal(cct_child(&t, a, "x", 1), x);
        assert_int_equal(cct_child(&t, t.root, "f3", 2), a);
        assert_int_equal(t.nodes[g].parent, a);
    }
    assert_int_equal(reachable(&t, a), 41);
    cct_release(&t);
}

/* Names are compared as bytes with their length: text that is equal is one name (whether
   given as text or interned), text that differs in a byte or in length is another. */
static void names_equal_in_text_are_one_node(void **state)
{
    (void)state;
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    uint32_t f = cct_intern(&t, "f", 1);
    cct_stream_row(&s, "f", 1, 0, 1, 1, 1);
    cct_stream_row_interned(&s, f, 0, 1, 2, 2);
    cct_stream_row(&s, "f\0g", 3, 0, 1, 4, 4); /* longer, with a NUL inside */
    cct_stream_row(&s, "ff", 2, 0, 1, 8, 8);
    cct_stream_row(&s, "F", 1, 0, 1, 16, 16);
    cct_stream_row(&s, "f", 1, 0, 1, 32, 32);
    cct_stream_end(&s);
    assert_int_equal(reachable(&t, t.root), 4);
    uint32_t node = CCT_NONE, nul = CCT_NONE; /* at() compares C strings: "f\0g" reads "f" */
    for (uint32_t c = t.nodes[t.root].child; c != CCT_NONE; c = t.nodes[c].sibling) {
        if (t.nodes[c].name == f)
            node = c;
        else if (t.name_lens[t.nodes[c].name] == 3)
            nul = c;
    }
    assert_int_not_equal(node, CCT_NONE);
    assert_int_equal(t.nodes[node].calls, 3);
    assert_true(t.nodes[node].total_ns == 35);
    assert_int_not_equal(nul, CCT_NONE);
    assert_memory_equal(t.names[t.nodes[nul].name], "f\0g", 3);
    assert_true(t.nodes[nul].total_ns == 4);
    assert_int_equal(t.nodes[at(&t, "ff")].calls, 1);
    assert_int_equal(t.nodes[at(&t, "F")].calls, 1);
    cct_release(&t);
}

/* Deep recursion, instance after instance: one node per level, each level's calls counted. */
static void deep_recursion_repeated_is_one_chain(void **state)
{
    (void)state;
    enum { DEPTH = 3000, TIMES = 4 };
    struct cct t;
    struct cct_stream s;
    cct_init(&t);
    cct_stream_begin(&s, &t, t.root);
    for (int k = 0; k < TIMES; k++)
        for (int d = DEPTH - 1; d >= 0; d--)
            row(&s, "rec", (unsigned)d, (double)(DEPTH - d), 1);
    cct_stream_end(&s);
    assert_int_equal(reachable(&t, t.root), DEPTH);
    uint32_t n = t.root;
    for (int d = 0; d < DEPTH; d++) {
        n = child_named(&t, n, "rec");
        assert_int_not_equal(n, CCT_NONE);
        assert_int_equal(t.nodes[n].calls, TIMES);
        assert_true(t.nodes[n].total_ns == (double)TIMES * (DEPTH - d));
    }
    assert_int_equal(t.nodes[n].child, CCT_NONE);
    cct_release(&t);
}

/*
 * The oracle for random_trees_match_their_paths: every call path (names joined by ';') with
 * the sums of its instances, kept in a plain list and searched by string comparison, nothing
 * shared with cct.c.
 */
struct oracle {
    char (*path)[128];
    uint64_t *calls, *never;
    double *total, *self;
    size_t n;
};

/* The entry of path p, added on first sight. */
static size_t oracle_at(struct oracle *o, const char *p)
{
    for (size_t i = 0; i < o->n; i++)
        if (strcmp(o->path[i], p) == 0)
            return i;
    assert_true(o->n < 16384);
    snprintf(o->path[o->n], sizeof o->path[o->n], "%s", p);
    o->calls[o->n] = o->never[o->n] = 0;
    o->total[o->n] = o->self[o->n] = 0;
    return o->n++;
}

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

/* A small deterministic generator (xorshift64), so that a failure can be replayed. */
static unsigned rnd(unsigned n)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (unsigned)(rng_state % n);
}

/*
 * One random instance at depth d below path: its children first (their rows come first, in
 * end order), then its own row, stopped or (now and then) not. Returns its inclusive time as
 * the tree should count it. Names come from a small set, so paths repeat and merge; some
 * nodes get many children, more than CCT_FEW_KIDS.
 */
static double emit(struct cct_stream *s, struct oracle *o, const char *path, unsigned d)
{
    static const char *const names[] = {"a",  "b",  "c",  "rec", "loop", "io", "x1",  "x2",  "x3",
                                        "x4", "x5", "x6", "x7",  "x8",   "x9", "x10", "x11", "x12"};
    const char *name = names[rnd(sizeof names / sizeof *names)];
    char here[128];
    snprintf(here, sizeof here, "%s%s%s", path, *path ? ";" : "", name);
    double children = 0;
    unsigned kids = d >= 5 ? 0 : rnd(d == 0 ? 24 : 3);
    for (unsigned k = 0; k < kids; k++)
        children += emit(s, o, here, d + 1);
    int stopped = rnd(16) != 0;
    double self = 1 + rnd(100), total = children + self;
    cct_stream_row(s, name, strlen(name), d, stopped, total, self);
    size_t i = oracle_at(o, here);
    if (!stopped) {
        o->never[i]++;
        o->total[i] += children;
        return children;
    }
    o->calls[i]++;
    o->total[i] += total;
    o->self[i] += self;
    return total;
}

/* cct_walk visitor: the node's path as text, checked against the oracle, then marked seen. */
static void check_against_oracle(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct oracle *o = ctx;
    char p[128] = "";
    for (size_t k = 0; k < len; k++) {
        size_t used = strlen(p);
        snprintf(p + used, sizeof p - used, "%s%s", k ? ";" : "", t->names[t->nodes[path[k]].name]);
    }
    size_t i = 0;
    while (i < o->n && strcmp(o->path[i], p) != 0)
        i++;
    assert_true(i < o->n);
    const struct cct_node *x = &t->nodes[path[len - 1]];
    assert_int_equal(x->calls, o->calls[i]);
    assert_int_equal(x->never, o->never[i]);
    assert_true(x->total_ns == o->total[i]);
    assert_true(x->self_ns == o->self[i]);
    o->path[i][0] = '\0'; /* seen: a second node with this path would not find it */
}

/* Random well-formed trees, rows in end order: the tree holds exactly the oracle's paths, with
   its sums (times are small integers, so the sums are exact in any order). */
static void random_trees_match_their_paths(void **state)
{
    (void)state;
    struct oracle o = {0};
    o.path = calloc(16384, sizeof *o.path);
    o.calls = calloc(16384, sizeof *o.calls);
    o.never = calloc(16384, sizeof *o.never);
    o.total = calloc(16384, sizeof *o.total);
    o.self = calloc(16384, sizeof *o.self);
    for (int round = 0; round < 20; round++) {
        struct cct t;
        struct cct_stream s;
        cct_init(&t);
        cct_stream_begin(&s, &t, t.root);
        o.n = 0;
        for (int top = 0; top < 6; top++)
            emit(&s, &o, "", 0);
        cct_stream_end(&s);
        size_t paths = o.n;
        assert_int_equal(reachable(&t, t.root), paths);
        cct_walk(&t, t.root, check_against_oracle, NULL, &o);
        cct_release(&t);
    }
    free(o.path);
    free(o.calls);
    free(o.never);
    free(o.total);
    free(o.self);
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
        cmocka_unit_test(lookups_survive_siblings_added_between_them),
        cmocka_unit_test(names_equal_in_text_are_one_node),
        cmocka_unit_test(deep_recursion_repeated_is_one_chain),
        cmocka_unit_test(random_trees_match_their_paths),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
