/*
 * index.h - index.c: the model's index, for the model's own modules (ingest.c): a region found
 * or made from its id text, its columns grown, caller -> callee edges and thread keys, each
 * made on first sight. Outputs look regions up with model_find (model.h).
 */
#ifndef PROFREPORT_INDEX_H
#define PROFREPORT_INDEX_H

#include "model/model.h"

#include <stddef.h>

/* The index of the region with id s[0..n), created on first sight (--include and --exclude
   decide its excluded mark then). */
size_t index_region_get(struct model *m, const char *s, size_t n);
/* The index of the region with id s[0..n), or SIZE_MAX when there is none. */
size_t index_region_find(const struct model *m, const char *s, size_t n);
/* Make room in region r's per-run and per-thread-key columns for run and key. */
void index_region_grow(struct region *r, size_t run, size_t key);
/* The edge caller -> callee, created on first sight. */
struct edge *index_edge_get(struct model *m, size_t caller, size_t callee);
/* The edge caller -> callee, or NULL when no row made it. */
struct edge *index_edge_find(const struct model *m, size_t caller, size_t callee);
/* The thread key (for per-thread columns) of a thread name, created on first sight. */
size_t index_key_get(struct model *m, const char *name);

#endif /* PROFREPORT_INDEX_H */
