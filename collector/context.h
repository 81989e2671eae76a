/*
 * context.h - summary mode's calling-context tree of one thread (context.c): one node per
 * distinct path of enclosing regions (main > parse > token), each with the statistics of the
 * instances that ran on that path, written as format/summary.h's records (docs/FORMAT.md 1.4).
 *
 * Ownership: a prof_cct owns its nodes and their histogram blocks, which never move until
 * prof_cct_free: frames and the child caches point at nodes. Only the owning thread changes the
 * tree; another thread may encode it (prof_finish, a snapshot) while the owner runs, under the
 * recorder's lock, which the owner also takes to add nodes and blocks. Counts are read and
 * written with relaxed atomics (plain moves on x86-64 and ARM64).
 */
#ifndef PROF_CONTEXT_H
#define PROF_CONTEXT_H

#include "compiler.h"
#include "hist.h"
#include "leftout.h"
#include "strbuf.h"

#include <pthread.h>
#include <stdint.h>

/* Histogram buckets are counted in blocks of this many, each allocated when first needed: a
   path's instances usually span a few powers of two, not all 62. */
#define PROF_HIST_BLOCK 32u
#define PROF_HIST_BLOCKS ((PROF_HIST_BUCKETS + PROF_HIST_BLOCK - 1) / PROF_HIST_BLOCK)

/* PROFILER_MAX_NODES's default: calling contexts per thread. Nodes are allocated as the
   program reaches new paths (128 bytes each, plus their histogram blocks), so the limit only
   bounds a runaway tree: a large C++ program's whole tree (hundreds of thousands of paths)
   fits. */
#define PROF_MAX_NODES_DEFAULT 4194304u

/* The statistics of one path's instances (every column of FORMAT.md 1.4). */
struct prof_stats {
    /* Sampled timing (thread.h): calls counts every call, timed those whose wall time ticks,
       min, max, sumsq and the histogram describe, and self the calls made inside them (the
       self time comes from samples); exact timing leaves timed 0 (all are). */
    uint64_t calls, timed, ticks, self, min, max;
    double sumsq;
    /* The histogram's blocks (PROF_HIST_BLOCKS pointers, NULL: no instance in that block
       yet), or NULL before the first timed instance: most paths of a sampled run have none,
       and a small node keeps the hooks' working set small. */
    uint64_t **hist;
};

/* One calling context: a region (by its id text) reached through one path. What every call
   touches comes first, in the node's first cache line (nodes are 64-byte aligned). */
struct prof_node {
    /* The two children looked up last, the latest first: a loop's next start costs one
       compare, and a loop that calls two functions in turn two. &prof_cct_none (a node no key
       reaches) until there is one. */
    struct prof_node *last, *prev;
    /* The id-table key (a region's id text, a function's address) through which this node was
       last reached from its parent, and that key's index on the thread: a hit in the parent's
       cache gives the child and the index at once, with no id-table lookup (the function hooks'
       lean path). NULL after the id table was emptied (prof_cct_forget_keys). */
    const void *key;
    uint32_t key_idx;
    uint32_t id;       /* the first id index with this region's text */
    uint8_t untimed;   /* sampled timing: its calls proved short and read no clock */
    uint8_t outermost; /* no node above it has the same id: its time counts in Outer */
    uint32_t number;   /* 1, 2, … in order of creation; 0 for the root */
    uint64_t samples;  /* CPU-time samples taken while it was the innermost context */
    struct prof_stats st;
    struct prof_node *parent; /* NULL for the root */
    struct prof_node *next;   /* the next node of the same (parent, id) hash chain */
} __attribute__((aligned(64)));

/* The children caches' empty entry: its key matches no key. */
extern struct prof_node prof_cct_none;

/*
 * Beside each node's cache of its two latest children, a thread's tree keeps a direct-mapped
 * cache of (parent, key) -> child for the parents that call more than two functions in turn: a
 * parser's loop over its helpers misses the two-entry cache on most calls, and the hash chains
 * behind it cost an id-table lookup and a walk. PROF_CCT_EDGES entries (24 bytes each), made
 * after PROF_CCT_EDGE_AFTER misses; before that the tree points at an empty shared table no key
 * matches.
 */
#define PROF_CCT_EDGE_BITS 12u
#define PROF_CCT_EDGE_AFTER 256u /* misses of the children caches before the table is made */
#define PROF_CCT_EDGES (1u << PROF_CCT_EDGE_BITS)
struct prof_edge {
    const struct prof_node *parent;
    const void *key;
    struct prof_node *child;
};
extern const struct prof_edge prof_cct_no_edges[PROF_CCT_EDGES];
/* The edge cache's child for a function PROFILER_EXCLUDE or _INCLUDE leaves out: the hooks'
   lean path then skips its call as cheaply as it counts a kept one. Never a real node. */
extern struct prof_node prof_cct_skip;

/* The cache entry of (parent, key). */
static inline const struct prof_edge *prof_cct_edge(const struct prof_edge *edges,
                                                    const struct prof_node *parent, const void *key)
{
    uint64_t h = ((uint64_t)(uintptr_t)parent ^ (uint64_t)(uintptr_t)key) * 0x9E3779B97F4A7C15ull;
    return &edges[h >> (64u - PROF_CCT_EDGE_BITS)];
}

/* A thread's tree: the root (no region, never written) and the nodes below it. */
struct prof_cct {
    struct prof_node root;
    struct prof_node **slabs; /* nodes in order of creation, PROF_CCT_SLAB per slab */
    uint32_t nslabs, slabs_cap;
    uint32_t nnodes, max_nodes;
    struct prof_node **table; /* (parent, id) -> chain of nodes */
    uint32_t tmask;
    char *blocks; /* the current chunk of histogram blocks, and the bytes left in it */
    size_t blocks_left;
    void *chunks; /* every chunk, chained through its first word */
    pthread_mutex_t *lock;
    uint64_t folded; /* instances folded into their parent: no node left (max_nodes) */
    /* (parent, key) -> child (see prof_edge): prof_cct_no_edges until the first miss; the
       owner thread's only */
    const struct prof_edge *edges;
    uint32_t misses; /* lookups the children caches missed, until the edge cache is made */
};

/* An empty tree of at most max_nodes nodes whose growth takes lock. */
void prof_cct_init(struct prof_cct *c, uint32_t max_nodes, pthread_mutex_t *lock);
/* Free every node and block; the tree is empty again (prof_cct_init to reuse it). */
void prof_cct_free(struct prof_cct *c);

/*
 * The child of parent for key (id index idx, whose text's first index is canon): found, or
 * added (under the lock), and made parent's cached child. NULL when the tree has max_nodes
 * nodes already, or memory ran out: the caller folds the instance into parent. The cold half of
 * prof_cct_child.
 */
struct prof_node *prof_cct_child_slow(struct prof_cct *c, struct prof_node *parent, const void *key,
                                      uint32_t idx, uint32_t canon);

/* The child of parent for key, id index idx (canon: each index's first index with the same
   text); NULL as in _slow. */
static inline __attribute__((always_inline)) struct prof_node *
prof_cct_child(struct prof_cct *c, struct prof_node *parent, const void *key, uint32_t idx,
               const uint32_t *canon)
{
    struct prof_node *n = parent->last;
    if (PROF_LIKELY(n->key == key))
        return n;
    n = parent->prev;
    if (n->key == key) {
        parent->prev = parent->last;
        parent->last = n;
        return n;
    }
    return prof_cct_child_slow(c, parent, key, idx, canon[idx]);
}

/* Note in the edge cache that key, called below parent, is left out by the filters (owner
   thread; nothing when the tree has no edge cache yet and has not missed often). */
void prof_cct_note_skip(struct prof_cct *c, const struct prof_node *parent, const void *key);

/*
 * The child of parent whose key (a function's entry address) is the nearest at or below pc,
 * at most reach bytes below it, among those parent's caches hold (the two latest children and
 * the edge cache); NULL when none. The sampler's way to the function a sample interrupted in
 * its prologue, before its enter hook made it the thread's context (owner thread, from its
 * signal handler while no hook runs: nothing changes the caches then).
 */
struct prof_node *prof_cct_child_at(const struct prof_cct *c, const struct prof_node *parent,
                                    uintptr_t pc, unsigned reach);

/* Forget every node's key (the thread's id table was emptied: a key may now name another
   function), so each is looked up again; owner thread. */
void prof_cct_forget_keys(struct prof_cct *c);

/* Count one completed instance of ticks (self of them its own) in everything but the
   histogram. Inline: it runs on every summary-mode stop. */
static inline void prof_stats_count(struct prof_stats *s, uint64_t ticks, uint64_t self)
{
    /* Only the owner writes (see prof_cct), so relaxed stores suffice. */
    __atomic_store_n(&s->calls, s->calls + 1, __ATOMIC_RELAXED);
    __atomic_store_n(&s->ticks, s->ticks + ticks, __ATOMIC_RELAXED);
    __atomic_store_n(&s->self, s->self + self, __ATOMIC_RELAXED);
    if (ticks < s->min)
        __atomic_store_n(&s->min, ticks, __ATOMIC_RELAXED);
    if (ticks > s->max)
        __atomic_store_n(&s->max, ticks, __ATOMIC_RELAXED);
    /* A signed conversion is one instruction (an unsigned one, several on x86-64); ticks of one
       instance stay far below 2^63. */
    double t = (double)(int64_t)ticks;
    double sq = s->sumsq + t * t;
    __atomic_store(&s->sumsq, &sq, __ATOMIC_RELAXED);
}

/* The cold half of prof_stats_slot: allocate the block of bucket b, and the list of blocks
   if it is the first (taking the lock unless locked says the caller holds it); the bucket's
   counter, or NULL when memory ran out. */
uint64_t *prof_stats_slot_new(struct prof_cct *c, struct prof_stats *s, unsigned b, int locked);

/* The histogram counter of s (a node's of c) that an instance of ticks counts in, or NULL when
   memory for its block ran out (the instance is then missing from the histogram only). */
static inline __attribute__((always_inline)) uint64_t *
prof_stats_slot(struct prof_cct *c, struct prof_stats *s, uint64_t ticks, int locked)
{
    unsigned b = prof_hist_bucket(ticks);
    uint64_t **dir = s->hist;
    uint64_t *blk = dir ? dir[b / PROF_HIST_BLOCK] : NULL;
    if (PROF_UNLIKELY(!blk))
        return prof_stats_slot_new(c, s, b, locked);
    return blk + b % PROF_HIST_BLOCK;
}

/* Add n to a histogram counter (the owner thread only, see prof_cct). */
static inline void prof_stats_slot_add(uint64_t *slot, uint64_t n)
{
    __atomic_store_n(slot, *slot + n, __ATOMIC_RELAXED);
}

/* Count one instance's ticks in the histogram of s at once, as prof_stats_slot; -1 when memory
   ran out. */
static inline int prof_stats_hist(struct prof_cct *c, struct prof_stats *s, uint64_t ticks,
                                  int locked)
{
    uint64_t *slot = prof_stats_slot(c, s, ticks, locked);
    if (!slot)
        return -1;
    prof_stats_slot_add(slot, 1);
    return 0;
}

/* A node's Outer (FORMAT.md 1.4): all its ticks when no node above it has its region, else
   none. Whether a node is outermost never changes, so no stop needs to add it up. */
static inline uint64_t prof_node_outer(const struct prof_node *n, uint64_t ticks)
{
    return n->outermost ? ticks : 0;
}

/* The instances counted in every node. */
uint64_t prof_cct_calls(const struct prof_cct *c);

/* Append one record per node, in order of creation, so parents first (format/summary.h);
   with the lock held. With period_ticks above 0 (sampled timing, FORMAT.md 1.4) Ticks, Self
   and Outer are the node's CPU-time samples (inclusive, its own) times period_ticks, and
   Timed and Wall its timed calls', Wall less hook_ticks for each call made inside them (the
   hooks' cost, st.self); else every call was timed. Sampled, the samples h charged to left-out
   functions (leftout.h) follow as rows of their own, each under its context. */
void prof_cct_encode(const struct prof_cct *c, struct prof_sbuf *b, double period_ticks,
                     double hook_ticks, const struct prof_leftout_hits *h);

#endif /* PROF_CONTEXT_H */
