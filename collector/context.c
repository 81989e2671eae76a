/*
 * context.c - summary mode's calling-context tree of one thread: nodes found by (parent, id)
 * through each parent's cache of its last child and a hash table, their statistics, and their
 * records (docs/FORMAT.md 1.4 and 3).
 */
#include "context.h"

#include "hash.h"
#include "status.h" /* prof_mem_quiet_begin: the collector's allocations are not the program's */
#include "summary.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Nodes per slab: slabs never move, so frames and caches keep pointing at their nodes. */
#define PROF_CCT_SLAB 256u
/* Bytes per chunk of histogram blocks. */
#define PROF_CCT_CHUNK (64u * 1024u)

_Static_assert(sizeof(struct prof_node) == 128, "a node is two cache lines (context.h)");
_Static_assert(offsetof(struct prof_node, st.calls) < 64, "a call's counter is in the first line");

/* Never reached by a key: the children caches' empty entry. */
struct prof_node prof_cct_none;
/* The child the edge cache gives for a key the filters leave out. */
struct prof_node prof_cct_skip;
/* No parent is NULL: the edge cache of a tree that has missed no child yet. */
const struct prof_edge prof_cct_no_edges[PROF_CCT_EDGES];

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Empty statistics. */
static void stats_reset(struct prof_stats *s)
{
    memset(s, 0, sizeof *s);
    s->min = UINT64_MAX;
}

/* An empty tree. */
void prof_cct_init(struct prof_cct *c, uint32_t max_nodes, pthread_mutex_t *lock)
{
    memset(c, 0, sizeof *c);
    c->edges = prof_cct_no_edges;
    c->root.last = c->root.prev = &prof_cct_none;
    c->root.outermost = 1;
    stats_reset(&c->root.st);
    c->max_nodes = max_nodes;
    c->lock = lock;
}

/* Free everything the tree holds. */
void prof_cct_free(struct prof_cct *c)
{
    for (uint32_t i = 0; i < c->nslabs; i++)
        free(c->slabs[i]);
    free(c->slabs);
    free(c->table);
    if (c->edges != prof_cct_no_edges)
        free((void *)c->edges);
    for (void *k = c->chunks; k;) {
        void *next = *(void **)k;
        free(k);
        k = next;
    }
    prof_cct_init(c, c->max_nodes, c->lock);
}

/* The hash chain of (parent, id): a multiplicative hash of both (the byte-wise string hash
   took a third of the time of a lookup that missed the children cache, on yaml-cpp). */
static uint32_t chain_of(const struct prof_cct *c, const struct prof_node *parent, uint32_t id)
{
    uint64_t k = ((uint64_t)(uintptr_t)parent ^ ((uint64_t)id << 40 | id)) * 0x9E3779B97F4A7C15ull;
    return (uint32_t)(k >> 32) & c->tmask;
}

/* Twice the chains (or the first 1024), every node moved to its new chain; -1: no memory. */
static int table_grow(struct prof_cct *c)
{
    uint32_t size = c->table ? (c->tmask + 1) * 2 : 1024;
    struct prof_node **t = calloc(size, sizeof *t);
    if (!t)
        return -1;
    free(c->table);
    c->table = t;
    c->tmask = size - 1;
    for (uint32_t i = 0; i < c->nnodes; i++) {
        struct prof_node *n = &c->slabs[i / PROF_CCT_SLAB][i % PROF_CCT_SLAB];
        uint32_t h = chain_of(c, n->parent, n->id);
        n->next = c->table[h];
        c->table[h] = n;
    }
    return 0;
}

/* A new node for id under parent (lock held); NULL when the tree is full or memory ran out. */
static struct prof_node *node_add(struct prof_cct *c, struct prof_node *parent, uint32_t id)
{
    if (c->nnodes >= c->max_nodes)
        return NULL;
    if ((c->nnodes + 1) * 2 > (c->table ? c->tmask + 1 : 0) && table_grow(c) != 0)
        return NULL;
    uint32_t slab = c->nnodes / PROF_CCT_SLAB;
    if (slab == c->nslabs) {
        if (c->nslabs == c->slabs_cap) {
            uint32_t cap = c->slabs_cap ? c->slabs_cap * 2 : 16;
            struct prof_node **s = realloc(c->slabs, cap * sizeof *s);
            if (!s)
                return NULL;
            c->slabs = s;
            c->slabs_cap = cap;
        }
        /* Aligned: a node's first cache line holds what every call touches. */
        c->slabs[slab] = aligned_alloc(64, PROF_CCT_SLAB * sizeof **c->slabs);
        if (!c->slabs[slab])
            return NULL;
        c->nslabs++;
    }
    struct prof_node *n = &c->slabs[slab][c->nnodes % PROF_CCT_SLAB];
    memset(n, 0, sizeof *n);
    stats_reset(&n->st);
    n->last = n->prev = &prof_cct_none;
    n->id = id;
    n->parent = parent;
    n->number = c->nnodes + 1;
    n->outermost = 1;
    for (const struct prof_node *p = parent; p && p != &c->root; p = p->parent)
        if (p->id == id) {
            n->outermost = 0; /* recursion: the enclosing instance's time holds this one's */
            break;
        }
    uint32_t h = chain_of(c, parent, id);
    n->next = c->table[h];
    c->table[h] = n;
    /* Published last: an encoder under the lock sees whole nodes only. */
    c->nnodes++;
    return n;
}

/*
 * Note (parent, key) -> child in the edge cache. Only a tree that misses its children caches
 * often gets the table: a thread with a few regions (thousands of threads may each have some)
 * never pays its 96 KiB.
 */
static void edge_note(struct prof_cct *c, const struct prof_node *parent, const void *key,
                      struct prof_node *child)
{
    if (c->edges == prof_cct_no_edges) {
        if (++c->misses < PROF_CCT_EDGE_AFTER)
            return;
        prof_mem_quiet_begin();
        struct prof_edge *edges = calloc(PROF_CCT_EDGES, sizeof *edges);
        prof_mem_quiet_end();
        if (!edges)
            return;
        c->edges = edges;
    }
    struct prof_edge *e = (struct prof_edge *)prof_cct_edge(c->edges, parent, key);
    e->parent = parent;
    e->key = key;
    e->child = child;
}

/* A function the filters leave out was called below parent. */
void prof_cct_note_skip(struct prof_cct *c, const struct prof_node *parent, const void *key)
{
    edge_note(c, parent, key, &prof_cct_skip);
}

struct prof_node *prof_cct_child_at(const struct prof_cct *c, const struct prof_node *parent,
                                    uintptr_t pc, unsigned reach)
{
    const struct prof_edge *edges = __atomic_load_n(&c->edges, __ATOMIC_RELAXED);
    for (uintptr_t key = pc; key + reach >= pc && key; key--) {
        const void *k = (const void *)key;
        if (parent->last->key == k)
            return parent->last;
        if (parent->prev->key == k)
            return parent->prev;
        const struct prof_edge *e = prof_cct_edge(edges, parent, k);
        if (e->parent == parent && e->key == k && e->child != &prof_cct_skip)
            return e->child;
    }
    return NULL;
}

/* Find or add the child, and make it parent's cached one. */
struct prof_node *prof_cct_child_slow(struct prof_cct *c, struct prof_node *parent, const void *key,
                                      uint32_t idx, uint32_t canon)
{
    const struct prof_edge *e = prof_cct_edge(c->edges, parent, key);
    struct prof_node *n =
        e->parent == parent && e->key == key && e->child != &prof_cct_skip ? e->child : NULL;
    if (!n && c->table)
        for (n = c->table[chain_of(c, parent, canon)]; n; n = n->next)
            if (n->parent == parent && n->id == canon)
                break;
    if (!n) {
        prof_mem_quiet_begin();
        pthread_mutex_lock(c->lock);
        n = node_add(c, parent, canon);
        pthread_mutex_unlock(c->lock);
        prof_mem_quiet_end();
        if (!n) {
            STORE(c->folded, c->folded + 1);
            return NULL;
        }
    }
    edge_note(c, parent, key, n);
    n->key = key;
    n->key_idx = idx;
    if (parent->last != n) {
        parent->prev = parent->last;
        parent->last = n;
    }
    return n;
}

/* Forget every node's key, and the edge cache's. */
void prof_cct_forget_keys(struct prof_cct *c)
{
    for (uint32_t i = 0; i < c->nnodes; i++)
        c->slabs[i / PROF_CCT_SLAB][i % PROF_CCT_SLAB].key = NULL;
    if (c->edges && c->edges != prof_cct_no_edges)
        memset((void *)c->edges, 0, PROF_CCT_EDGES * sizeof *c->edges);
}

/* size zeroed bytes (a multiple of 64, at most a histogram block) from the current chunk, or
   a new chunk (lock held). */
static void *block_new(struct prof_cct *c, size_t size)
{
    if (c->blocks_left < size) {
        char *k = calloc(1, PROF_CCT_CHUNK);
        if (!k)
            return NULL;
        *(void **)k = c->chunks;
        c->chunks = k;
        c->blocks = k + 64; /* the first word chains the chunks; blocks stay 64-byte aligned */
        c->blocks_left = PROF_CCT_CHUNK - 64;
    }
    void *b = c->blocks;
    c->blocks += size;
    c->blocks_left -= size;
    return b;
}

/* Allocate the block of bucket b (under the lock); its counter, or NULL. */
__attribute__((noinline, cold)) uint64_t *
prof_stats_slot_new(struct prof_cct *c, struct prof_stats *s, unsigned b, int locked)
{
    prof_mem_quiet_begin();
    if (!locked)
        pthread_mutex_lock(c->lock);
    uint64_t *blk = NULL;
    if (!s->hist)
        s->hist = block_new(c, PROF_HIST_BLOCKS * sizeof *s->hist);
    if (s->hist) {
        blk = block_new(c, PROF_HIST_BLOCK * sizeof *blk);
        s->hist[b / PROF_HIST_BLOCK] = blk;
    }
    if (!locked)
        pthread_mutex_unlock(c->lock);
    prof_mem_quiet_end();
    return blk ? blk + b % PROF_HIST_BLOCK : NULL;
}

/* Append the record of one node: a copy read with relaxed loads (the owner may still write).
   incl: the samples of the node and every node below it, when the thread was sampled; own:
   samples of its own besides n->samples (left-out functions' that have no row). */
static void node_encode(struct prof_sbuf *b, const struct prof_node *n, double period_ticks,
                        double hook_ticks, uint64_t incl, uint64_t own)
{
    const struct prof_stats *s = &n->st;
    struct prof_summary_counts k = {.id = n->id,
                                    .calls = LOAD(s->calls),
                                    .ticks = LOAD(s->ticks),
                                    .self = LOAD(s->self),
                                    .min = LOAD(s->min),
                                    .max = LOAD(s->max),
                                    .node = n->number,
                                    .parent = n->parent ? n->parent->number : 0};
    __atomic_load(&s->sumsq, &k.sumsq, __ATOMIC_RELAXED);
    k.samples = LOAD(n->samples) + own;
    k.timed = k.calls;
    k.wall = k.ticks;
    double scale = 1; /* the timed calls' compensated wall time over their measured one */
    if (period_ticks > 0) {
        /* The hooks of the calls inside the timed calls ran on the wall clock too. (What the
           samples taken inside a timed call cost left its time at its stop: thread.c,
           prof_summary_stop_timed.) */
        double hooks = (double)LOAD(s->self) * hook_ticks;
        uint64_t timed = LOAD(s->timed);
        uint64_t net = hooks < (double)k.wall ? k.wall - (uint64_t)hooks : 0;
        if (k.wall)
            scale = (double)net / (double)k.wall;
        k.wall = net;
        k.timed = timed;
        k.ticks = (uint64_t)((double)incl * period_ticks + 0.5);
        k.self = (uint64_t)((double)k.samples * period_ticks + 0.5);
        if (!k.timed)
            k.min = k.max = 0;
        /* Each call's own share of that is unknown: the calls are taken to have lost the same
           fraction, exact for a context of one call. */
        k.min = (uint64_t)((double)k.min * scale);
        k.max = (uint64_t)((double)k.max * scale);
        k.sumsq *= scale * scale;
    }
    k.outer = prof_node_outer(n, k.ticks);
    if (!k.calls || k.min == UINT64_MAX)
        k.min = 0; /* the row of a node never counted (or timed) says 0, not UINT64_MAX */
    /* The non-empty buckets, read from the blocks that exist only (most nodes have one or two
       of PROF_HIST_BLOCKS). Below a scale of 1 each count moves to the bucket of its bucket's
       lower bound times scale: a bucket never moves up, and a higher bucket never to a lower
       place than a lower one, so the pairs stay in ascending order with equal targets next
       to each other. */
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    uint32_t nh = 0;
    uint64_t *const *dir = s->hist;
    for (unsigned j = 0; dir && j < PROF_HIST_BLOCKS; j++) {
        const uint64_t *blk = dir[j];
        if (!blk)
            continue;
        /* The block's non-empty buckets as bits first, without a branch on each: most are
           empty, at random, and a branch per bucket mispredicted half the time (1.7 ms of
           yaml-cpp's exit, 3,300 paths). */
        unsigned used = PROF_HIST_BUCKETS - j * PROF_HIST_BLOCK;
        uint32_t set = 0;
        for (unsigned i = 0; i < PROF_HIST_BLOCK && i < used; i++)
            set |= (uint32_t)(LOAD(blk[i]) != 0) << i;
        for (; set; set &= set - 1) {
            unsigned i = j * PROF_HIST_BLOCK + (unsigned)__builtin_ctz(set);
            uint64_t v = LOAD(blk[i % PROF_HIST_BLOCK]); /* counts only grow: still not 0 */
            unsigned to = scale < 1 ? prof_hist_bucket((uint64_t)(prof_hist_bound(i) * scale)) : i;
            if (nh && bucket[nh - 1] == to) {
                count[nh - 1] += v;
            } else {
                bucket[nh] = to;
                count[nh++] = v;
            }
        }
    }
    prof_summary_encode_pairs(b, &k, bucket, count, nh);
}

/* The node numbered i + 1. */
static const struct prof_node *node_at(const struct prof_cct *c, uint32_t i)
{
    return &c->slabs[i / PROF_CCT_SLAB][i % PROF_CCT_SLAB];
}

/* The node number of a left-out function's context (0: the root). */
static uint32_t hit_parent(const struct prof_leftout_hit *e)
{
    return __atomic_load_n(&e->parent, __ATOMIC_ACQUIRE)->number;
}

/*
 * Append the rows of the left-out functions' samples (h), numbered on from the last node's:
 * calls not counted, all time their own (FORMAT.md 1.4). A function the owner has not named yet
 * has no row: its samples stayed in own[] of its context.
 */
static void hits_encode(struct prof_sbuf *b, uint32_t nodes, const struct prof_leftout_hits *h,
                        double period_ticks)
{
    uint32_t number = nodes;
    const struct prof_leftout_hit *hits = __atomic_load_n(&h->hits, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; hits && i < PROF_LEFTOUT_HITS; i++) {
        const struct prof_leftout_hit *e = &hits[i];
        uint32_t id = __atomic_load_n(&e->parent, __ATOMIC_ACQUIRE) ? prof_leftout_id(h, e->fn) : 0;
        uint32_t parent = id ? hit_parent(e) : 0;
        if (!id || parent > nodes)
            continue;
        struct prof_summary_counts k = {.id = id - 1, .node = ++number, .parent = parent};
        k.samples = LOAD(e->samples);
        k.ticks = k.self = k.outer = (uint64_t)((double)k.samples * period_ticks + 0.5);
        prof_summary_encode_pairs(b, &k, NULL, NULL, 0);
    }
}

/* Append every node's record; sampled, with each node's inclusive samples added up from the
   leaves (children are numbered after their parents), then the left-out functions' (h). */
void prof_cct_encode(const struct prof_cct *c, struct prof_sbuf *b, double period_ticks,
                     double hook_ticks, const struct prof_leftout_hits *h)
{
    uint32_t n = c->nnodes;
    uint64_t *incl = NULL, *own = NULL;
    size_t size = (size_t)n * 2 * sizeof *incl;
    if (period_ticks > 0 && n) {
        /* Straight from the kernel: the crash handler encodes too, where malloc may not run. */
        void *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) {
            b->failed = 1;
            return;
        }
        incl = m;
        own = incl + n;
        const struct prof_leftout_hit *hits = __atomic_load_n(&h->hits, __ATOMIC_ACQUIRE);
        for (uint32_t i = 0; hits && i < PROF_LEFTOUT_HITS; i++) {
            const struct prof_leftout_hit *e = &hits[i];
            uint32_t p = __atomic_load_n(&e->parent, __ATOMIC_ACQUIRE) ? hit_parent(e) : 0;
            if (!p || p > n)
                continue; /* outside every context: in no row; in ThreadCpu's outside unless named
                           */
            uint64_t w = LOAD(e->samples);
            incl[p - 1] += w;
            if (!prof_leftout_id(h, e->fn))
                own[p - 1] += w;
        }
        for (uint32_t i = n; i-- > 0;) {
            const struct prof_node *x = node_at(c, i);
            incl[i] += LOAD(x->samples);
            if (x->parent && x->parent != &c->root)
                incl[x->parent->number - 1] += incl[i];
        }
    }
    for (uint32_t i = 0; i < n; i++)
        node_encode(b, node_at(c, i), period_ticks, hook_ticks, incl ? incl[i] : 0,
                    own ? own[i] : 0);
    if (period_ticks > 0)
        hits_encode(b, n, h, period_ticks);
    if (incl)
        munmap(incl, size);
}

/* Sum the calls of every node. */
uint64_t prof_cct_calls(const struct prof_cct *c)
{
    uint64_t calls = 0;
    for (uint32_t i = 0; i < c->nnodes; i++)
        calls += LOAD(node_at(c, i)->st.calls);
    return calls;
}
