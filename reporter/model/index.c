/*
 * index.c - the model's index: regions found by their id text (an open-addressing table of
 * hashes), --include and --exclude applied to each new region, per-run and per-thread columns
 * grown on demand, caller -> callee edges and thread keys.
 */
#include "model/index.h"
#include "base/util.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* Whether a region id is reported, given --include and --exclude. */
static int region_wanted(const struct model *m, const char *name)
{
    if (m->ninclude) {
        size_t i;
        for (i = 0; i < m->ninclude; i++)
            if (fnmatch(m->include[i], name, 0) == 0)
                break;
        if (i == m->ninclude)
            return 0;
    }
    for (size_t i = 0; i < m->nexclude; i++)
        if (fnmatch(m->exclude[i], name, 0) == 0)
            return 0;
    return 1;
}

/* A table entry is the region's index + 1 in its low bits and its hash's high bits above them,
   so that a probe compares ids only when their hashes agree there. */
#define SLOT_INDEX_BITS 40
#define SLOT_INDEX_MASK ((1ull << SLOT_INDEX_BITS) - 1)

/* The table entry of region i, whose id has this hash. */
static uint64_t slot_entry(uint64_t hash, size_t i)
{
    return (hash >> SLOT_INDEX_BITS) << SLOT_INDEX_BITS | (uint64_t)(i + 1);
}

/* Double the region table and re-enter every region. */
static void regions_rehash(struct model *m)
{
    size_t size = m->region_mask ? (m->region_mask + 1) * 2 : 256;
    free(m->region_table);
    m->region_table = xcalloc(size, sizeof *m->region_table);
    m->region_mask = size - 1;
    for (size_t i = 0; i < m->nregions; i++) {
        uint64_t hash = id_hash(m->regions[i].name, m->regions[i].len);
        size_t h = hash & m->region_mask;
        while (m->region_table[h])
            h = (h + 1) & m->region_mask;
        m->region_table[h] = slot_entry(hash, i);
    }
}

/* The region of table entry e (0: an empty slot) if its id is s[0..n) with this hash. */
static int slot_holds(const struct model *m, uint64_t e, uint64_t hash, const char *s, size_t n)
{
    if ((e >> SLOT_INDEX_BITS) != (hash >> SLOT_INDEX_BITS))
        return 0;
    const struct region *r = &m->regions[(e & SLOT_INDEX_MASK) - 1];
    return r->len == n && id_same(r->name, s, n);
}

/* The index of the region with id s[0..n), created on first sight. */
size_t index_region_get(struct model *m, const char *s, size_t n)
{
    if ((m->nregions + 1) * 2 > m->region_mask + 1)
        regions_rehash(m);
    uint64_t hash = id_hash(s, n);
    size_t h = hash & m->region_mask;
    for (;; h = (h + 1) & m->region_mask) {
        uint64_t e = m->region_table[h];
        if (!e)
            break;
        if (slot_holds(m, e, hash, s, n))
            return (size_t)(e & SLOT_INDEX_MASK) - 1;
    }
    if (m->nregions == m->regions_cap) {
        m->regions_cap = m->regions_cap ? m->regions_cap * 2 : 64;
        m->regions = xrealloc(m->regions, m->regions_cap * sizeof *m->regions);
    }
    struct region *r = &m->regions[m->nregions];
    memset(r, 0, sizeof *r);
    r->name = xstrndup(s, n);
    r->len = n;
    r->display = region_display(s, n);
    if (strcmp(r->display, r->name) == 0 && strlen(r->name) == n) {
        /* Shown as it is (the common case): one copy serves both. */
        free(r->display);
        r->display = r->name;
    }
    r->excluded = !region_wanted(m, r->display);
    dist_init(&r->cost);
    m->region_table[h] = slot_entry(hash, m->nregions++);
    return m->nregions - 1;
}

/* The index of the region with id s[0..n), or SIZE_MAX when there is none. */
size_t index_region_find(const struct model *m, const char *s, size_t n)
{
    if (!m->region_mask)
        return SIZE_MAX;
    uint64_t hash = id_hash(s, n);
    for (size_t h = hash & m->region_mask; m->region_table[h]; h = (h + 1) & m->region_mask)
        if (slot_holds(m, m->region_table[h], hash, s, n))
            return (size_t)(m->region_table[h] & SLOT_INDEX_MASK) - 1;
    return SIZE_MAX;
}

/* The region with id s[0..n), for outputs that meet ids elsewhere (the call-path tree). */
size_t model_find(const struct model *m, const char *s, size_t n)
{
    return index_region_find(m, s, n);
}

/* The arrays of a block of columns laid out for rc runs and kc keys. */
static struct columns columns_of(void *cols, size_t rc, size_t kc)
{
    struct columns c = {0};
    if (!cols)
        return c; /* no column yet (no pointer arithmetic on NULL) */
    c.run_sum = cols;
    c.run_outer = c.run_sum + rc;
    c.run_calls = (uint64_t *)(void *)(c.run_outer + rc);
    c.key_sum = (double *)(void *)(c.run_calls + rc);
    c.key_self = c.key_sum + kc;
    c.key_calls = (uint64_t *)(void *)(c.key_self + kc);
    return c;
}

/*
 * Make room in a region's per-run and per-key columns for run and key, and return them. The
 * six columns share one allocation: per column, a region of a million costs its malloc
 * overhead six times over. Each grows to the index needed, then doubles; new entries are zero.
 */
struct columns index_region_grow(struct region *r, size_t run, size_t key)
{
    if (run < r->run_cap && key < r->key_cap)
        return columns_of(r->cols, r->run_cap, r->key_cap);
    size_t rc = r->run_cap, kc = r->key_cap;
    if (run >= rc)
        rc = run + 1 > 2 * rc ? run + 1 : 2 * rc;
    if (key >= kc)
        kc = key + 1 > 2 * kc ? key + 1 : 2 * kc;
    if (rc > UINT32_MAX || kc > UINT32_MAX)
        die_nomem("too many runs or thread names");
    void *block = xcalloc(rc + kc, sizeof(double) * 2 + sizeof(uint64_t));
    struct columns to = columns_of(block, rc, kc);
    struct columns from = columns_of(r->cols, r->run_cap, r->key_cap);
    if (r->run_cap) {
        memcpy(to.run_sum, from.run_sum, r->run_cap * sizeof *to.run_sum);
        memcpy(to.run_outer, from.run_outer, r->run_cap * sizeof *to.run_outer);
        memcpy(to.run_calls, from.run_calls, r->run_cap * sizeof *to.run_calls);
    }
    if (r->key_cap) {
        memcpy(to.key_sum, from.key_sum, r->key_cap * sizeof *to.key_sum);
        memcpy(to.key_self, from.key_self, r->key_cap * sizeof *to.key_self);
        memcpy(to.key_calls, from.key_calls, r->key_cap * sizeof *to.key_calls);
    }
    free(r->cols);
    r->cols = block;
    r->run_cap = (uint32_t)rc;
    r->key_cap = (uint32_t)kc;
    return to;
}

/* Hash of an edge's two ends. */
static size_t caller_hash(size_t caller, size_t callee)
{
    uint64_t h = (uint64_t)caller * 0x9E3779B97F4A7C15ull ^ (uint64_t)callee;
    return (size_t)(h * 0xBF58476D1CE4E5B9ull >> 17);
}

/* The edge caller -> callee, created on first sight. */
struct edge *index_edge_get(struct model *m, size_t caller, size_t callee)
{
    if ((m->nedges + 1) * 2 > m->edge_mask + 1) {
        size_t size = m->edge_mask ? (m->edge_mask + 1) * 2 : 256;
        free(m->edge_table);
        m->edge_table = xcalloc(size, sizeof *m->edge_table);
        m->edge_mask = size - 1;
        for (size_t i = 0; i < m->nedges; i++) {
            size_t h = (caller_hash(m->edges[i].caller, m->edges[i].callee)) & m->edge_mask;
            while (m->edge_table[h])
                h = (h + 1) & m->edge_mask;
            m->edge_table[h] = i + 1;
        }
    }
    size_t h = caller_hash(caller, callee) & m->edge_mask;
    for (;; h = (h + 1) & m->edge_mask) {
        size_t e = m->edge_table[h];
        if (!e)
            break;
        struct edge *x = &m->edges[e - 1];
        if (x->caller == caller && x->callee == callee)
            return x;
    }
    if (m->nedges == m->edges_cap) {
        m->edges_cap = m->edges_cap ? m->edges_cap * 2 : 64;
        m->edges = xrealloc(m->edges, m->edges_cap * sizeof *m->edges);
    }
    struct edge *x = &m->edges[m->nedges];
    memset(x, 0, sizeof *x);
    x->caller = caller;
    x->callee = callee;
    m->edge_table[h] = ++m->nedges;
    return x;
}

/* The edge caller -> callee, or NULL when no row made it. */
struct edge *index_edge_find(const struct model *m, size_t caller, size_t callee)
{
    if (!m->edge_mask)
        return NULL;
    for (size_t h = caller_hash(caller, callee) & m->edge_mask;; h = (h + 1) & m->edge_mask) {
        size_t e = m->edge_table[h];
        if (!e)
            return NULL;
        struct edge *x = &m->edges[e - 1];
        if (x->caller == caller && x->callee == callee)
            return x;
    }
}

/* The thread key (for per-thread columns) of a thread name. */
size_t index_key_get(struct model *m, const char *name)
{
    /* Found in the keys' index: a run may name every one of its many threads differently. */
    size_t i = str_index_find(&m->key_index, m->keys, name);
    if (i != SIZE_MAX)
        return i;
    if ((m->nkeys & (m->nkeys - 1)) == 0) /* a power of two (or 0): double */
        m->keys = xrealloc(m->keys, (m->nkeys ? 2 * m->nkeys : 1) * sizeof *m->keys);
    m->keys[m->nkeys] = xstrdup(name);
    str_index_add(&m->key_index, m->keys);
    return m->nkeys++;
}
