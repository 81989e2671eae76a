/*
 * test_context.c - unit tests of collector/context.c: summary mode's calling-context tree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "context.h"
#include "summary.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The id-table key of index i (a function's address, in the collector). */
#define KEY(i) ((const void *)(uintptr_t)(0x1000 + (i)))

/* The total of a node's histogram. */
static uint64_t hist_total(const struct prof_stats *s)
{
    uint64_t total = 0;
    for (unsigned b = 0; b < PROF_HIST_BUCKETS; b++)
        if (s->hist && s->hist[b / PROF_HIST_BLOCK])
            total += s->hist[b / PROF_HIST_BLOCK][b % PROF_HIST_BLOCK];
    return total;
}

/* Count one instance as a stop does. */
static void count(struct prof_cct *c, struct prof_node *n, uint64_t ticks, uint64_t self)
{
    prof_stats_count(&n->st, ticks, self);
    assert_int_equal(prof_stats_hist(c, &n->st, ticks, 0), 0);
}

/* Statistics of a known set: calls, sums, extremes, squares, histogram. */
static void stats_of_known_values(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0};
    struct prof_cct c;
    prof_cct_init(&c, 10, &lock);
    struct prof_node *n = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    uint64_t v[] = {5, 100, 17, 100000};
    for (int i = 0; i < 4; i++)
        count(&c, n, v[i], v[i] / 2);
    assert_int_equal(n->st.calls, 4);
    assert_int_equal(n->st.ticks, 5 + 100 + 17 + 100000);
    assert_int_equal(n->st.self, 2 + 50 + 8 + 50000);
    assert_int_equal(n->st.min, 5);
    assert_int_equal(n->st.max, 100000);
    assert_int_equal(prof_node_outer(n, n->st.ticks), n->st.ticks);
    assert_true(n->st.sumsq == 25.0 + 10000.0 + 289.0 + 1e10);
    assert_int_equal(hist_total(&n->st), 4);
    unsigned b = prof_hist_bucket(100000);
    assert_int_equal(n->st.hist[b / PROF_HIST_BLOCK][b % PROF_HIST_BLOCK], 1);
    prof_cct_free(&c);
}

/* One node per distinct path: the same region under two parents is two nodes, and finding a
   path again (by the cache or the table) gives the same node. */
static void one_node_per_path(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1, 2};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *main_ = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *parse = prof_cct_child(&c, main_, KEY(1), 1, canon);
    struct prof_node *tok1 = prof_cct_child(&c, parse, KEY(2), 2, canon);
    struct prof_node *tok2 = prof_cct_child(&c, main_, KEY(2), 2, canon);
    assert_ptr_not_equal(tok1, tok2);
    assert_int_equal(c.nnodes, 4);
    /* main's cache holds token now; parse is found through the table, token through the cache */
    assert_ptr_equal(prof_cct_child(&c, main_, KEY(1), 1, canon), parse);
    assert_ptr_equal(prof_cct_child(&c, parse, KEY(2), 2, canon), tok1);
    assert_ptr_equal(prof_cct_child(&c, main_, KEY(2), 2, canon), tok2);
    assert_int_equal(c.nnodes, 4);
    assert_int_equal(tok1->parent->number, parse->number);
    assert_int_equal(tok2->number, 4);
    prof_cct_free(&c);
}

/* Two id indexes with one text (canon) share the node; the cache is by index. */
static void ids_of_one_text_share_nodes(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 0};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *a = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    assert_ptr_equal(prof_cct_child(&c, &c.root, KEY(1), 1, canon), a);
    assert_ptr_equal(prof_cct_child(&c, &c.root, KEY(0), 0, canon), a);
    assert_int_equal(c.nnodes, 1);
    assert_int_equal(a->id, 0);
    prof_cct_free(&c);
}

/* A node below one of the same region is not outermost: its time is not in Outer again. */
static void recursion_is_not_outermost(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *a = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *b = prof_cct_child(&c, a, KEY(1), 1, canon);
    struct prof_node *a2 = prof_cct_child(&c, b, KEY(0), 0, canon);
    assert_true(a->outermost && b->outermost);
    assert_false(a2->outermost);
    count(&c, a2, 10, 10);
    assert_int_equal(prof_node_outer(a2, a2->st.ticks), 0);
    assert_int_equal(a2->st.ticks, 10);
    prof_cct_free(&c);
}

/* Past max_nodes no node is added: the caller folds (NULL), counted; known paths still work. */
static void full_tree_folds_new_paths(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1, 2};
    struct prof_cct c;
    prof_cct_init(&c, 2, &lock);
    struct prof_node *a = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *b = prof_cct_child(&c, a, KEY(1), 1, canon);
    assert_non_null(b);
    assert_null(prof_cct_child(&c, b, KEY(2), 2, canon));
    assert_null(prof_cct_child(&c, &c.root, KEY(2), 2, canon));
    assert_int_equal(c.folded, 2);
    assert_ptr_equal(prof_cct_child(&c, a, KEY(1), 1, canon), b);
    assert_int_equal(c.nnodes, 2);
    prof_cct_free(&c);
}

/* Many paths: the table grows and every node is found again; the records come out in node
   order with each parent's number. */
static void many_paths_encode_in_order(void **state)
{
    (void)state;
    enum { N = 3000 };
    uint32_t *canon = malloc(N * sizeof *canon);
    for (uint32_t i = 0; i < N; i++)
        canon[i] = i;
    struct prof_cct c;
    prof_cct_init(&c, N + 10, &lock);
    struct prof_node *top = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node **kids = malloc(N * sizeof *kids);
    for (uint32_t i = 1; i < N; i++) {
        kids[i] = prof_cct_child(&c, top, KEY(i), i, canon);
        count(&c, kids[i], i, i);
    }
    for (uint32_t i = 1; i < N; i++)
        assert_ptr_equal(prof_cct_child(&c, top, KEY(i), i, canon), kids[i]);
    assert_int_equal(prof_cct_calls(&c), N - 1);
    struct prof_sbuf b = {0};
    prof_cct_encode(&c, &b, 0, 0, &(struct prof_leftout_hits){0});
    size_t off = 0, nhist;
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t cnt[PROF_HIST_BUCKETS];
    for (uint32_t k = 1; k <= N; k++) {
        struct prof_summary_counts r;
        assert_int_equal(prof_summary_decode((const unsigned char *)b.data, b.len, &off,
                                             PROF_PART_VERSION, &r, bucket, cnt, &nhist),
                         PROF_OK);
        assert_int_equal(r.node, k);
        assert_int_equal(r.parent, k == 1 ? 0 : 1);
        assert_int_equal(r.id, k - 1);
        assert_int_equal(r.calls, k == 1 ? 0 : 1);
        assert_int_equal(r.min, k == 1 ? 0 : k - 1);
    }
    assert_int_equal(off, b.len);
    prof_sbuf_release(&b);
    free(kids);
    free(canon);
    prof_cct_free(&c);
}

/* The buckets of a node's record: where each count was counted, or, sampled, where the count
   moves once the hooks' time is taken out of its calls (each to the bucket of its bucket's
   lower bound times the node's compensated share of its wall time). */
static void encoded_histogram_is_each_count_moved_by_the_compensation(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0};
    static const uint64_t v[] = {5, 17, 17, 100, 1000, 5000, 100000, (1u << 20) + 3, 1u << 30};
    enum { NV = sizeof v / sizeof v[0] };
    for (int sampled = 0; sampled < 2; sampled++) {
        struct prof_cct c;
        prof_cct_init(&c, 10, &lock);
        struct prof_node *n = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
        uint64_t wall = 0, self = 0;
        for (int i = 0; i < NV; i++) {
            count(&c, n, v[i], v[i] / 2);
            wall += v[i];
            self += v[i] / 2;
        }
        const double hook = 0.2;
        double scale = 1;
        if (sampled)
            scale = (double)(wall - (uint64_t)((double)self * hook)) / (double)wall;
        /* the expected buckets, value by value */
        uint64_t expect[PROF_HIST_BUCKETS] = {0};
        for (int i = 0; i < NV; i++) {
            unsigned b = prof_hist_bucket(v[i]);
            if (sampled)
                b = prof_hist_bucket((uint64_t)(prof_hist_bound(b) * scale));
            expect[b]++;
        }
        struct prof_sbuf buf = {0};
        prof_cct_encode(&c, &buf, sampled ? 1000.0 : 0, sampled ? hook : 0,
                        &(struct prof_leftout_hits){0});
        size_t off = 0, nhist;
        uint32_t bucket[PROF_HIST_BUCKETS];
        uint64_t cnt[PROF_HIST_BUCKETS];
        struct prof_summary_counts r;
        assert_int_equal(prof_summary_decode((const unsigned char *)buf.data, buf.len, &off,
                                             PROF_PART_VERSION, &r, bucket, cnt, &nhist),
                         PROF_OK);
        size_t k = 0;
        for (unsigned b = 0; b < PROF_HIST_BUCKETS; b++) {
            if (!expect[b])
                continue;
            assert_true(k < nhist);
            assert_int_equal(bucket[k], b);
            assert_int_equal(cnt[k], expect[b]);
            k++;
        }
        assert_int_equal(k, nhist);
        assert_true(nhist >= (sampled ? 2u : 7u)); /* several blocks of buckets */
        prof_sbuf_release(&buf);
        prof_cct_free(&c);
    }
}

/* A parent that calls five functions in turn: every lookup finds the node it made, the last
   two are in the parent's cache, each is in the edge cache under its key with its key's index
   (what the hooks' lean path reads). */
static void children_called_in_turn_stay_cached(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1, 2, 3, 4, 5};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    assert_ptr_equal(c.edges, prof_cct_no_edges);
    struct prof_node *top = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *kid[6];
    for (uint32_t i = 1; i <= 5; i++)
        kid[i] = prof_cct_child(&c, top, KEY(i), i, canon);
    /* the edge cache comes once the two-entry caches have missed often */
    for (uint32_t m = c.misses; m < PROF_CCT_EDGE_AFTER; m += 5) {
        assert_ptr_equal(c.edges, prof_cct_no_edges);
        for (uint32_t i = 1; i <= 5; i++)
            assert_ptr_equal(prof_cct_child(&c, top, KEY(i), i, canon), kid[i]);
    }
    assert_ptr_not_equal(c.edges, prof_cct_no_edges);
    for (int round = 0; round < 3; round++)
        for (uint32_t i = 1; i <= 5; i++) {
            assert_ptr_equal(prof_cct_child(&c, top, KEY(i), i, canon), kid[i]);
            assert_ptr_equal(top->last, kid[i]);
            const struct prof_edge *e = prof_cct_edge(c.edges, top, KEY(i));
            assert_ptr_equal(e->parent, top);
            assert_ptr_equal(e->key, KEY(i));
            assert_ptr_equal(e->child, kid[i]);
            assert_ptr_equal(kid[i]->key, KEY(i));
            assert_int_equal(kid[i]->key_idx, i);
        }
    assert_ptr_equal(top->prev, kid[4]);
    assert_int_equal(c.nnodes, 6);
    prof_cct_free(&c);
}

/* Two keys of one text share a node, whose key and index follow the key it was reached by
   last; after the keys are forgotten (a module was unloaded) no cache answers by key, and the
   same key with a new index still finds its node. */
static void keys_follow_the_last_lookup_and_are_forgotten(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1, 1, 1};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *top = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *a = prof_cct_child(&c, top, KEY(1), 1, canon);
    assert_ptr_equal(prof_cct_child(&c, top, KEY(2), 2, canon), a);
    assert_ptr_equal(a->key, KEY(2));
    assert_int_equal(a->key_idx, 2);
    assert_ptr_equal(prof_cct_child(&c, top, KEY(1), 1, canon), a);
    assert_ptr_equal(a->key, KEY(1));
    assert_int_equal(a->key_idx, 1);
    prof_cct_forget_keys(&c);
    assert_null(a->key);
    assert_null(top->key);
    const struct prof_edge *e = prof_cct_edge(c.edges, top, KEY(1));
    assert_null(e->parent);
    assert_null(e->key);
    /* KEY(1) is now index 3 (same text): the same node, with the new index */
    assert_ptr_equal(prof_cct_child(&c, top, KEY(1), 3, canon), a);
    assert_int_equal(a->key_idx, 3);
    assert_int_equal(c.nnodes, 2);
    prof_cct_free(&c);
}

/* A key the filters leave out is noted under its caller in the edge cache (the hooks' lean
   path skips its calls from there), and is never taken for a child: a lookup of it makes a
   real node, which then replaces the note. */
static void skipped_keys_are_noted_and_never_children(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1, 2, 3, 4, 5, 6};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *top = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    prof_cct_note_skip(&c, top, KEY(6)); /* no table yet: nothing noted, nothing breaks */
    assert_ptr_equal(c.edges, prof_cct_no_edges);
    while (c.edges == prof_cct_no_edges)
        for (uint32_t i = 1; i <= 5; i++)
            prof_cct_child(&c, top, KEY(i), i, canon);
    prof_cct_note_skip(&c, top, KEY(6));
    const struct prof_edge *e = prof_cct_edge(c.edges, top, KEY(6));
    assert_ptr_equal(e->parent, top);
    assert_ptr_equal(e->key, KEY(6));
    assert_ptr_equal(e->child, &prof_cct_skip);
    struct prof_node *n = prof_cct_child(&c, top, KEY(6), 6, canon);
    assert_ptr_not_equal(n, &prof_cct_skip);
    assert_ptr_equal(n->parent, top);
    assert_ptr_equal(e->child, n);
    prof_cct_free(&c);
}

/* The sampler's way to a function whose prologue a sample interrupted: the child whose key (its
   entry address) is the nearest at or below pc within reach, found in the two-entry caches and
   in the edge cache, never a left-out function's note, never beyond reach. */
static void children_by_address(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1, 2, 3, 4, 5, 6};
#define AT(a) ((const void *)(uintptr_t)(a))
    static const uintptr_t entry[] = {0x10000, 0x20000, 0x20100, 0x20120,
                                      0x20200, 0x20300, 0x20400};
    struct prof_cct c;
    prof_cct_init(&c, 100, &lock);
    struct prof_node *top = prof_cct_child(&c, &c.root, AT(entry[0]), 0, canon);
    struct prof_node *kid[6];
    kid[1] = prof_cct_child(&c, top, AT(entry[1]), 1, canon);
    kid[2] = prof_cct_child(&c, top, AT(entry[2]), 2, canon);
    /* the two-entry caches */
    assert_ptr_equal(prof_cct_child_at(&c, top, entry[1] + 10, 64), kid[1]);
    assert_ptr_equal(prof_cct_child_at(&c, top, entry[2], 64), kid[2]);
    assert_ptr_equal(prof_cct_child_at(&c, top, entry[2] + 64, 64), kid[2]);
    assert_null(prof_cct_child_at(&c, top, entry[2] + 65, 64));
    assert_null(prof_cct_child_at(&c, top, entry[1] - 1, 64));
    /* top is not its own child, the root's child is top */
    assert_null(prof_cct_child_at(&c, top, entry[0] + 5, 64));
    assert_ptr_equal(prof_cct_child_at(&c, &c.root, entry[0] + 5, 64), top);
    /* the edge cache, once made; the nearest entry wins */
    while (c.edges == prof_cct_no_edges)
        for (uint32_t i = 1; i <= 5; i++)
            kid[i] = prof_cct_child(&c, top, AT(entry[i]), i, canon);
    for (uint32_t i = 1; i <= 5; i++) /* a round with the table: each miss notes its child */
        prof_cct_child(&c, top, AT(entry[i]), i, canon);
    prof_cct_note_skip(&c, top, AT(entry[6]));
    prof_cct_child(&c, top, AT(entry[5]), 5, canon);
    prof_cct_child(&c, top, AT(entry[4]), 4, canon); /* 1 to 3 only in the edge cache */
    for (uint32_t i = 1; i <= 5; i++)
        assert_ptr_equal(prof_cct_child_at(&c, top, entry[i] + 3, 64), kid[i]);
    assert_ptr_equal(prof_cct_child_at(&c, top, entry[3] + 1, 64), kid[3]);
    assert_ptr_equal(prof_cct_child_at(&c, top, entry[3] - 1, 64), kid[2]);
    assert_null(prof_cct_child_at(&c, top, entry[6] + 3, 64)); /* left out: no child */
    /* keys forgotten (a module unloaded): no child by address */
    prof_cct_forget_keys(&c);
    assert_null(prof_cct_child_at(&c, top, entry[1] + 3, 64));
#undef AT
    prof_cct_free(&c);
}

/* Decode the next record of buf at *off into r. */
static void next_record(const struct prof_sbuf *buf, size_t *off, struct prof_summary_counts *r)
{
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t cnt[PROF_HIST_BUCKETS];
    size_t nhist;
    assert_int_equal(prof_summary_decode((const unsigned char *)buf->data, buf->len, off,
                                         PROF_PART_VERSION, r, bucket, cnt, &nhist),
                     PROF_OK);
}

/* Sampled: the samples charged to a left-out function under a context are a row of their own
   after the nodes' (numbered on, calls not counted, all of its time its own) and in the
   context's inclusive time; those of a function the thread has not named yet stay in the
   context's own samples. */
static void left_out_functions_samples_are_rows_of_their_own(void **state)
{
    (void)state;
    static const uint32_t canon[] = {0, 1};
    struct prof_cct c;
    prof_cct_init(&c, 10, &lock);
    struct prof_node *a = prof_cct_child(&c, &c.root, KEY(0), 0, canon);
    struct prof_node *b = prof_cct_child(&c, a, KEY(1), 1, canon);
    a->samples = 10;
    b->samples = 5;
    struct prof_leftout_hits h = {0};
    assert_int_equal(prof_leftout_hits_make(&h), 0);
    assert_int_equal(prof_leftout_charge(&h, a, 1, 7), 1);
    assert_int_equal(prof_leftout_charge(&h, b, 2, 4), 1);       /* not named: b's own */
    assert_int_equal(prof_leftout_charge(&h, &c.root, 1, 2), 1); /* outside every context */
    h.ids[0] = 3 + 1; /* function 1 is id 3 on the thread */
    const double period = 1000.0;
    struct prof_sbuf buf = {0};
    prof_cct_encode(&c, &buf, period, 0, &h);
    size_t off = 0;
    struct prof_summary_counts r;
    next_record(&buf, &off, &r);
    assert_int_equal(r.node, 1);
    assert_int_equal(r.samples, 10);
    assert_int_equal(r.ticks, (10 + 5 + 4 + 7) * 1000);
    next_record(&buf, &off, &r);
    assert_int_equal(r.node, 2);
    assert_int_equal(r.samples, 5 + 4);
    assert_int_equal(r.self, 9000);
    assert_int_equal(r.ticks, 9000);
    /* the left-out function under a, then under the root (a top-level row) */
    int seen_a = 0, seen_root = 0;
    for (uint32_t node = 3; node <= 4; node++) {
        next_record(&buf, &off, &r);
        assert_int_equal(r.node, node);
        assert_int_equal(r.id, 3);
        assert_int_equal(r.calls, 0);
        assert_int_equal(r.timed, 0);
        assert_int_equal(r.wall, 0);
        assert_int_equal(r.min, 0);
        assert_int_equal(r.max, 0);
        assert_true(r.ticks == r.self && r.self == r.outer && r.ticks == r.samples * 1000);
        if (r.parent == 1 && r.samples == 7)
            seen_a++;
        else if (r.parent == 0 && r.samples == 2)
            seen_root++;
    }
    assert_int_equal(seen_a, 1);
    assert_int_equal(seen_root, 1);
    assert_int_equal(off, buf.len);
    prof_sbuf_release(&buf);

    /* Exact timing: no samples, no such rows. */
    buf = (struct prof_sbuf){0};
    prof_cct_encode(&c, &buf, 0, 0, &h);
    off = 0;
    next_record(&buf, &off, &r);
    next_record(&buf, &off, &r);
    assert_int_equal(off, buf.len);
    prof_sbuf_release(&buf);
    prof_cct_free(&c);

    /* A thread that ran left-out functions only (PROFILER_INCLUDE=main, a worker): no node,
       its samples still rows. */
    prof_cct_init(&c, 10, &lock);
    prof_leftout_hits_clear(&h); /* with the tree: its pairs name the old nodes */
    assert_int_equal(prof_leftout_charge(&h, &c.root, 1, 2), 1);
    h.ids[0] = 3 + 1;
    buf = (struct prof_sbuf){0};
    prof_cct_encode(&c, &buf, period, 0, &h);
    off = 0;
    next_record(&buf, &off, &r);
    assert_int_equal(r.node, 1);
    assert_int_equal(r.id, 3);
    assert_int_equal(r.parent, 0);
    assert_int_equal(r.samples, 2);
    assert_int_equal(off, buf.len);
    prof_sbuf_release(&buf);
    prof_leftout_hits_free(&h);
    prof_cct_free(&c);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(stats_of_known_values),
        cmocka_unit_test(one_node_per_path),
        cmocka_unit_test(ids_of_one_text_share_nodes),
        cmocka_unit_test(recursion_is_not_outermost),
        cmocka_unit_test(full_tree_folds_new_paths),
        cmocka_unit_test(many_paths_encode_in_order),
        cmocka_unit_test(encoded_histogram_is_each_count_moved_by_the_compensation),
        cmocka_unit_test(children_called_in_turn_stay_cached),
        cmocka_unit_test(keys_follow_the_last_lookup_and_are_forgotten),
        cmocka_unit_test(skipped_keys_are_noted_and_never_children),
        cmocka_unit_test(children_by_address),
        cmocka_unit_test(left_out_functions_samples_are_rows_of_their_own),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
