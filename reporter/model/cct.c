/*
 * cct.c - the calling-context tree: every distinct path of nested regions with its calls,
 * inclusive and self time, built while a thread's rows stream in (in end order, FORMAT.md 1.3)
 * with memory bounded by the distinct paths, not by the rows. Used by the Call paths sheet,
 * the flame graph, the folded-stack and callgrind exports, and --compact.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/cct.h"
#include "hash.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Hash of a (parent, name) pair. */
static size_t pair_hash(uint32_t parent, uint32_t name)
{
    uint64_t h = ((uint64_t)parent << 32 | name) * 0x9E3779B97F4A7C15ull;
    return (size_t)(h ^ h >> 29);
}

/* An empty tree: just its root. */
void cct_init(struct cct *t)
{
    memset(t, 0, sizeof *t);
    t->free_list = CCT_NONE;
    t->cap = 64;
    t->nodes = xmalloc(t->cap * sizeof *t->nodes);
    t->bucket_mask = 255;
    t->buckets = xmalloc((t->bucket_mask + 1) * sizeof *t->buckets);
    memset(t->buckets, 0xff, (t->bucket_mask + 1) * sizeof *t->buckets);
    t->root = 0;
    t->nnodes = 1;
    t->nodes[0] = (struct cct_node){.name = CCT_NONE,
                                    .parent = CCT_NONE,
                                    .child = CCT_NONE,
                                    .sibling = CCT_NONE,
                                    .hnext = CCT_NONE,
                                    .last = CCT_NONE};
}

/* Free everything the tree owns. */
void cct_release(struct cct *t)
{
    for (size_t i = 0; i < t->nnames; i++)
        free(t->names[i]);
    free(t->names);
    free(t->name_lens);
    free(t->name_table);
    free(t->name_last);
    free(t->nodes);
    free(t->buckets);
    free(t->merging);
    memset(t, 0, sizeof *t);
}

/* The index of the name s[0..n), interned on first sight. */
uint32_t cct_intern(struct cct *t, const char *s, size_t n)
{
    if ((t->nnames + 1) * 2 > t->name_mask + 1) {
        size_t size = t->name_mask ? (t->name_mask + 1) * 2 : 64;
        free(t->name_table);
        t->name_table = xcalloc(size, sizeof *t->name_table);
        t->name_mask = size - 1;
        for (size_t i = 0; i < t->nnames; i++) {
            size_t h = prof_hash(t->names[i], t->name_lens[i]) & t->name_mask;
            while (t->name_table[h])
                h = (h + 1) & t->name_mask;
            t->name_table[h] = (uint32_t)(i + 1);
        }
        t->names = xrealloc(t->names, size / 2 * sizeof *t->names);
        t->name_lens = xrealloc(t->name_lens, size / 2 * sizeof *t->name_lens);
        t->name_last = xrealloc(t->name_last, size / 2 * sizeof *t->name_last);
    }
    size_t h = prof_hash(s, n) & t->name_mask;
    for (; t->name_table[h]; h = (h + 1) & t->name_mask) {
        uint32_t i = t->name_table[h] - 1;
        if (t->name_lens[i] == n && memcmp(t->names[i], s, n) == 0)
            return i;
    }
    t->names[t->nnames] = xstrndup(s, n);
    t->name_lens[t->nnames] = n;
    t->name_last[t->nnames] = CCT_NONE;
    t->name_table[h] = (uint32_t)(t->nnames + 1);
    return (uint32_t)t->nnames++;
}

/* A fresh node with no time and no links. */
static uint32_t node_new(struct cct *t, uint32_t name)
{
    uint32_t i;
    if (t->free_list != CCT_NONE) {
        i = t->free_list;
        t->free_list = t->nodes[i].sibling;
    } else {
        if (t->nnodes == t->cap) {
            if (t->cap >= CCT_NONE / 3 * 2)
                die_nomem("too many call paths");
            /* By half again, not double: a tree of a million paths (64 bytes each) is a large
               share of a report's memory, and doubling leaves up to half of it unused. */
            t->cap += t->cap / 2;
            t->nodes = xrealloc(t->nodes, t->cap * sizeof *t->nodes);
        }
        i = (uint32_t)t->nnodes++;
    }
    /* Field by field: a whole-struct copy through the stack stalls on store forwarding, and
       a node is made for most rows. */
    struct cct_node *x = &t->nodes[i];
    x->name = name;
    x->parent = x->child = x->sibling = x->hnext = x->last = CCT_NONE;
    x->nkids = x->uncounted = 0;
    x->calls = x->never = 0;
    x->total_ns = x->self_ns = 0;
    return i;
}

/* Give a node (already unlinked, its children moved away) back to the pool. */
static void node_free(struct cct *t, uint32_t i)
{
    t->nodes[i].name = CCT_NONE;
    t->nodes[i].parent = CCT_NONE;
    t->nodes[i].child = CCT_NONE;
    t->nodes[i].nkids = 0;
    t->nodes[i].sibling = t->free_list;
    t->free_list = i;
}

/* Whether node i's children are in the (parent, name) hash: only a node with many are. */
static int hashed(const struct cct *t, uint32_t i) { return t->nodes[i].nkids > CCT_FEW_KIDS; }

/*
 * The child of parent with this name, or CCT_NONE. Two hints come before the search: the child
 * the parent gave last (a loop), and the node the name gave last (most names have one caller).
 * A linked node with this parent and name is the only one (same-name siblings are merged), and
 * a stale hint (moved, freed or reused since) fails the same test, so a hint costs a compare,
 * never a wrong answer. A parent with few children is searched along its sibling list.
 */
static uint32_t find(struct cct *t, uint32_t parent, uint32_t name)
{
    uint32_t i = t->nodes[parent].last;
    if (i != CCT_NONE && t->nodes[i].parent == parent && t->nodes[i].name == name)
        return i;
    i = t->name_last[name];
    if (i == CCT_NONE || t->nodes[i].parent != parent || t->nodes[i].name != name) {
        if (hashed(t, parent)) {
            i = t->buckets[pair_hash(parent, name) & t->bucket_mask];
            while (i != CCT_NONE && (t->nodes[i].parent != parent || t->nodes[i].name != name))
                i = t->nodes[i].hnext;
        } else {
            i = t->nodes[parent].child;
            while (i != CCT_NONE && t->nodes[i].name != name)
                i = t->nodes[i].sibling;
        }
        if (i == CCT_NONE)
            return i;
        t->name_last[name] = i;
    }
    t->nodes[parent].last = i;
    return i;
}

/* Put a linked node into its hash chain. */
static void chain_insert(struct cct *t, uint32_t i)
{
    size_t h = pair_hash(t->nodes[i].parent, t->nodes[i].name) & t->bucket_mask;
    t->nodes[i].hnext = t->buckets[h];
    t->buckets[h] = i;
    t->linked++;
}

/* Make room for more hashed nodes; when the table grows, every node whose parent is hashed
   (as the nkids counts now say) is put into it. 1 when it grew, else 0. */
static int hash_grow(struct cct *t, size_t more)
{
    size_t size = t->bucket_mask + 1;
    if (t->linked + more <= size)
        return 0;
    while (t->linked + more > size)
        size *= 2;
    t->buckets = xrealloc(t->buckets, size * sizeof *t->buckets);
    memset(t->buckets, 0xff, size * sizeof *t->buckets);
    t->bucket_mask = size - 1;
    t->linked = 0;
    for (size_t k = 0; k < t->nnodes; k++) {
        uint32_t p = t->nodes[k].parent;
        if (p != CCT_NONE && hashed(t, p))
            chain_insert(t, (uint32_t)k);
    }
    return 1;
}

/* Take a node out of its hash chain (it is about to move or disappear). */
static void hash_remove(struct cct *t, uint32_t i)
{
    uint32_t *p = &t->buckets[pair_hash(t->nodes[i].parent, t->nodes[i].name) & t->bucket_mask];
    while (*p != i)
        p = &t->nodes[*p].hnext;
    *p = t->nodes[i].hnext;
    t->linked--;
}

/* Make node i (with no parent) a child of parent. The children of a parent with more than
   CCT_FEW_KIDS go into the hash, all at once when it gets its first one too many. */
static void link_under(struct cct *t, uint32_t parent, uint32_t i)
{
    struct cct_node *p = &t->nodes[parent];
    t->nodes[i].parent = parent;
    t->nodes[i].sibling = p->child;
    p->child = i;
    p->last = i;
    p->nkids++;
    t->name_last[t->nodes[i].name] = i;
    if (p->nkids == CCT_FEW_KIDS + 1) {
        if (!hash_grow(t, p->nkids))
            for (uint32_t c = p->child; c != CCT_NONE; c = t->nodes[c].sibling)
                chain_insert(t, c);
    } else if (p->nkids > CCT_FEW_KIDS + 1) {
        if (!hash_grow(t, 1))
            chain_insert(t, i);
    }
}

/* Note that the unlinked subtree src is to be merged into dst (done by merge_pending). */
static void merge_later(struct cct *t, uint32_t src, uint32_t dst)
{
    if (t->nmerging == t->merging_cap) {
        t->merging_cap = t->merging_cap ? t->merging_cap * 2 : 16;
        t->merging = xrealloc(t->merging, t->merging_cap * 2 * sizeof *t->merging);
    }
    t->merging[t->nmerging * 2] = src;
    t->merging[t->nmerging * 2 + 1] = dst;
    t->nmerging++;
}

/* Move every child of from under to: those whose name to has already wait in t->merging to
   be merged with it, the others are linked. */
static void move_children(struct cct *t, uint32_t from, uint32_t to)
{
    /* from keeps its count until all have left: a table rebuilt meanwhile (hash_grow) must
       still hold the children not moved yet, for their hash_remove. */
    int in_hash = hashed(t, from);
    for (uint32_t c = t->nodes[from].child, next; c != CCT_NONE; c = next) {
        next = t->nodes[c].sibling;
        if (in_hash)
            hash_remove(t, c);
        t->nodes[c].parent = CCT_NONE;
        uint32_t e = find(t, to, t->nodes[c].name);
        if (e == CCT_NONE)
            link_under(t, to, c);
        else
            merge_later(t, c, e);
    }
    t->nodes[from].child = CCT_NONE;
    t->nodes[from].nkids = 0;
}

/*
 * Merge each waiting (src, dst) pair: times add up, children with the same name merge, the
 * others move under dst; src's nodes are freed. Iterative, with the stack kept in the tree:
 * subtrees can be as deep as the deepest recursion, and a merge happens for most rows.
 */
static void merge_pending(struct cct *t)
{
    while (t->nmerging > 0) {
        t->nmerging--;
        uint32_t s = t->merging[t->nmerging * 2], d = t->merging[t->nmerging * 2 + 1];
        t->nodes[d].calls += t->nodes[s].calls;
        t->nodes[d].never += t->nodes[s].never;
        t->nodes[d].uncounted |= t->nodes[s].uncounted;
        t->nodes[d].total_ns += t->nodes[s].total_ns;
        t->nodes[d].self_ns += t->nodes[s].self_ns;
        if (t->hooks && t->hooks->merged)
            t->hooks->merged(t->hooks->ctx, d, s);
        move_children(t, s, d);
        node_free(t, s);
    }
}

/* Move every child of from under to (merging by name). */
static void adopt_children(struct cct *t, uint32_t from, uint32_t to)
{
    move_children(t, from, to);
    merge_pending(t);
}

/* The child of parent named s[0..n), created on first sight. */
uint32_t cct_child(struct cct *t, uint32_t parent, const char *s, size_t n)
{
    uint32_t name = cct_intern(t, s, n);
    uint32_t i = find(t, parent, name);
    if (i == CCT_NONE) {
        i = node_new(t, name);
        link_under(t, parent, i);
    }
    return i;
}

/* Account calls and times to a child of parent; returns the child. */
uint32_t cct_add(struct cct *t, uint32_t parent, const char *name, size_t n, uint64_t calls,
                 double total_ns, double self_ns)
{
    uint32_t i = cct_child(t, parent, name, n);
    t->nodes[i].calls += calls;
    t->nodes[i].total_ns += total_ns;
    t->nodes[i].self_ns += self_ns;
    return i;
}

/* Start a thread's rows. */
void cct_stream_begin(struct cct_stream *s, struct cct *t, uint32_t under)
{
    memset(s, 0, sizeof *s);
    s->tree = t;
    s->under = under;
    s->pending = xmalloc(16 * sizeof *s->pending);
    s->pending[0] = under;
    s->npending = 1;
}

/* The placeholder of depth d, made (with those above it) on first need. */
static uint32_t placeholder(struct cct_stream *s, size_t d)
{
    while (s->npending <= d) {
        if ((s->npending & (s->npending - 1)) == 0 && s->npending >= 16)
            s->pending = xrealloc(s->pending, s->npending * 2 * sizeof *s->pending);
        s->pending[s->npending++] = node_new(s->tree, CCT_NONE);
    }
    return s->pending[d];
}

/* One row of the thread. */
void cct_stream_row(struct cct_stream *s, const char *name, size_t n, unsigned depth, int stopped,
                    double total_ns, double self_ns)
{
    cct_stream_row_interned(s, cct_intern(s->tree, name, n), depth, stopped, total_ns, self_ns);
}

/*
 * One row whose name is interned already: the reporter knows it by region, not by text. The
 * row's calling context under placeholder(d) usually exists (a loop, a repeated call): then the
 * row's times and its waiting children go straight into that node, and no node is made.
 */
void cct_stream_row_interned(struct cct_stream *s, uint32_t id, unsigned depth, int stopped,
                             double total_ns, double self_ns)
{
    struct cct *t = s->tree;
    size_t d = depth > CCT_MAX_DEPTH ? 0 : depth;
    /* Subtrees waiting deeper than d + 1 lost their caller (a malformed or cut file). */
    for (size_t k = s->top; k > d + 1; k--)
        if (k < s->npending)
            adopt_children(t, s->pending[k], s->under);
    s->top = d;
    uint32_t up = placeholder(s, d);
    uint32_t kids = d + 1 < s->npending ? s->pending[d + 1] : CCT_NONE;
    if (kids != CCT_NONE && t->nodes[kids].child == CCT_NONE)
        kids = CCT_NONE;
    if (!stopped) {
        /* Never stopped: its own time is unknown, its children's time is not. */
        self_ns = 0;
        total_ns = 0;
        if (kids != CCT_NONE)
            for (uint32_t c = t->nodes[kids].child; c != CCT_NONE; c = t->nodes[c].sibling)
                total_ns += t->nodes[c].total_ns;
    }
    uint32_t node = find(t, up, id);
    int fresh = node == CCT_NONE;
    if (fresh) {
        if (kids != CCT_NONE) {
            /* The placeholder holding this row's children becomes the row's node. */
            node = kids;
            t->nodes[node].name = id;
            s->pending[d + 1] = node_new(t, CCT_NONE);
        } else {
            node = node_new(t, id);
        }
        link_under(t, up, node);
    } else if (kids != CCT_NONE) {
        move_children(t, kids, node);
        merge_pending(t);
    }
    struct cct_node *x = &t->nodes[node];
    x->calls += stopped != 0;
    x->never += stopped == 0;
    x->total_ns += total_ns;
    x->self_ns += self_ns;
    if (t->hooks && t->hooks->row)
        t->hooks->row(t->hooks->ctx, node, fresh);
}

/* End the thread's rows. */
void cct_stream_end(struct cct_stream *s)
{
    for (size_t k = 1; k < s->npending; k++) {
        adopt_children(s->tree, s->pending[k], s->under);
        node_free(s->tree, s->pending[k]);
    }
    free(s->pending);
    memset(s, 0, sizeof *s);
}

/* Order of siblings: by name bytes, shorter first on a common prefix. */
static int by_name(const void *a, const void *b, void *ctx)
{
    const struct cct *t = ctx;
    uint32_t x = t->nodes[*(const uint32_t *)a].name, y = t->nodes[*(const uint32_t *)b].name;
    size_t lx = t->name_lens[x], ly = t->name_lens[y];
    int c = memcmp(t->names[x], t->names[y], lx < ly ? lx : ly);
    return c ? c : (lx > ly) - (lx < ly);
}

/* A node's children in the tree's order (*n of them; the caller frees the array). */
uint32_t *cct_children(const struct cct *t, uint32_t node, size_t *n)
{
    size_t k = 0;
    for (uint32_t c = t->nodes[node].child; c != CCT_NONE; c = t->nodes[c].sibling)
        k++;
    uint32_t *kids = xmalloc((k ? k : 1) * sizeof *kids);
    k = 0;
    for (uint32_t c = t->nodes[node].child; c != CCT_NONE; c = t->nodes[c].sibling)
        kids[k++] = c;
    *n = k;
    return kids;
}

/* A node's children, sorted by name (*n of them; the caller frees the array). */
uint32_t *cct_sorted_children(const struct cct *t, uint32_t node, size_t *n)
{
    uint32_t *kids = cct_children(t, node, n);
    qsort_r(kids, *n, sizeof *kids, by_name, (void *)(uintptr_t)t);
    return kids;
}

/* Visit the nodes below from, depth first. */
void cct_walk(const struct cct *t, uint32_t from, cct_visit pre, cct_visit post, void *ctx)
{
    struct frame {
        uint32_t *kids;
        size_t n, i;
    };
    size_t cap = 16, nframes = 1, len = 0;
    struct frame *st = xmalloc(cap * sizeof *st);
    uint32_t *path = xmalloc(cap * sizeof *path);
    st[0].kids = cct_sorted_children(t, from, &st[0].n);
    st[0].i = 0;
    while (nframes > 0) {
        struct frame *f = &st[nframes - 1];
        if (f->i < f->n) {
            uint32_t node = f->kids[f->i++];
            if (nframes == cap) {
                cap *= 2;
                st = xrealloc(st, cap * sizeof *st);
                path = xrealloc(path, cap * sizeof *path);
            }
            path[len++] = node;
            if (pre)
                pre(ctx, t, path, len);
            st[nframes].kids = cct_sorted_children(t, node, &st[nframes].n);
            st[nframes].i = 0;
            nframes++;
            continue;
        }
        free(f->kids);
        nframes--;
        if (nframes > 0) {
            if (post)
                post(ctx, t, path, len);
            len--;
        }
    }
    free(st);
    free(path);
}
