/*
 * edges.c - a caller -> callee edge's time with each instant counted once (edges.h).
 */
#include "model/edges.h"
#include "model/cct.h"
#include "model/index.h"
#include "base/util.h"

#include <stdint.h>
#include <stdlib.h>

/* What edges_count_once keeps while it walks the calling-context tree. */
struct edge_walk {
    struct model *m;
    size_t *region_of; /* tree name index -> region index (SIZE_MAX: none) */
    uint32_t *on_path; /* edge index -> instances of it on the path walked */
    size_t *edge_of;   /* tree node -> edge index + 1 (0: none), while on the path */
};

/* The edge of the node at the end of path (its caller is the node above it), or SIZE_MAX. */
static size_t path_edge(struct edge_walk *w, const struct cct *t, const uint32_t *path, size_t len)
{
    if (len < 2)
        return SIZE_MAX; /* a top-level call is never inside another top-level call */
    size_t caller = w->region_of[t->nodes[path[len - 2]].name];
    size_t callee = w->region_of[t->nodes[path[len - 1]].name];
    if (caller == SIZE_MAX || callee == SIZE_MAX)
        return SIZE_MAX;
    struct edge *x = index_edge_find(w->m, caller, callee);
    return x ? (size_t)(x - w->m->edges) : SIZE_MAX;
}

/* Before a node's children: an instance of an edge already on the path is inside one of its
   own, and its time is that instance's already. */
static void edge_enter(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct edge_walk *w = ctx;
    size_t e = path_edge(w, t, path, len);
    w->edge_of[path[len - 1]] = e + 1;
    if (e == SIZE_MAX)
        return;
    if (w->on_path[e]++) {
        struct edge *x = &w->m->edges[e];
        x->outer_ns -= t->nodes[path[len - 1]].total_ns;
        if (x->outer_ns < 0)
            x->outer_ns = 0;
    }
}

/* After a node's children: its edge leaves the path. */
static void edge_leave(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct edge_walk *w = ctx;
    (void)t;
    size_t e = w->edge_of[path[len - 1]];
    if (e)
        w->on_path[e - 1]--;
}

void edges_count_once(struct model *m)
{
    const struct cct *t = model_paths(m);
    if (!t || !m->nedges)
        return;
    struct edge_walk w = {m, xmalloc((t->nnames ? t->nnames : 1) * sizeof *w.region_of),
                          xcalloc(m->nedges, sizeof *w.on_path),
                          xcalloc(t->nnodes ? t->nnodes : 1, sizeof *w.edge_of)};
    for (size_t i = 0; i < t->nnames; i++)
        w.region_of[i] = model_find(m, t->names[i], t->name_lens[i]);
    cct_walk(t, t->root, edge_enter, edge_leave, &w);
    free(w.region_of);
    free(w.on_path);
    free(w.edge_of);
}
