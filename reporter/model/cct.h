/*
 * cct.h - cct.c: the calling-context tree, built while rows stream in (the Call paths sheet,
 * folded stacks and callgrind read it).
 *
 * Ownership: a struct cct owns its nodes and interned names (cct_release frees them); a
 * struct cct_stream borrows its tree and owns its pending array (freed by cct_stream_end).
 */
#ifndef PROFREPORT_CCT_H
#define PROFREPORT_CCT_H

#include <stddef.h>
#include <stdint.h>

#define CCT_NONE UINT32_MAX
/* A node with at most this many children is searched along its sibling list (cheaper than
   hashing, for the few children most nodes have); one with more, in the tree's hash. */
#define CCT_FEW_KIDS 8

/*
 * One calling context: a region reached through one path of enclosing regions. calls counts
 * the instances that stopped, never those that did not (they add their children's time to
 * total_ns but nothing to self_ns). Times are nanoseconds. Nodes are linked by index.
 */
struct cct_node {
    uint32_t name;                   /* index into cct.names; CCT_NONE for the root */
    uint32_t parent, child, sibling; /* CCT_NONE when none */
    uint32_t hnext;                  /* next node in the same (parent, name) hash chain */
    uint32_t nkids;     /* children; they are in the tree's hash when more than CCT_FEW_KIDS */
    uint32_t last;      /* the child found or linked last (a hint, checked before use): a loop's
                           next lookup costs one compare, not a hash probe */
    uint32_t uncounted; /* nonzero: some of its time is a left-out function's (FORMAT.md
                           1.4), whose calls were not counted; calls has only counted ones.
                           The model's bits say why (enum left_out_why, model.h) */
    uint64_t calls, never;
    double total_ns, self_ns;
};

/*
 * Told of what happens to nodes, for a caller that keeps more per node than calls and times
 * (profreport --compact keeps each path's histogram, compact.c) in arrays of its own indexed
 * by node. row: the node a streamed row was just added to; fresh when the node was made for it
 * (its index may be a freed node's, reused: whatever the caller kept there is stale), else the
 * row joined a node already in the tree. merged: node src merged into dst, right before src is
 * freed.
 */
struct cct_hooks {
    void *ctx;
    void (*row)(void *ctx, uint32_t node, int fresh);
    void (*merged)(void *ctx, uint32_t dst, uint32_t src);
};

/*
 * A forest of calling contexts under one root node (index cct.root, which holds no time).
 * Memory grows with the distinct call paths (and, while a thread's rows stream in, with the
 * distinct paths still waiting for their caller's row), never with rows. The tree owns the
 * interned names (raw bytes, NUL-ended) and the nodes.
 */
struct cct {
    struct cct_node *nodes;
    size_t nnodes, cap;
    uint32_t free_list; /* freed nodes, chained through sibling */
    uint32_t root;
    uint32_t *buckets; /* (parent, name) -> chain heads, for children of nodes with many */
    size_t bucket_mask, linked;
    char **names;
    size_t *name_lens;
    size_t nnames;
    uint32_t *name_table; /* name hash -> name index + 1 */
    size_t name_mask;
    uint32_t *name_last; /* name index -> the node of that name found or linked last (a hint,
                            checked before use: most names sit under one parent) */
    uint32_t *merging;   /* (source, destination) pairs still to merge: scratch, kept for reuse */
    size_t nmerging, merging_cap;
    const struct cct_hooks *hooks; /* NULL (cct_init), or set by the caller; not owned */
};

/*
 * One thread's rows on their way into the tree. Rows arrive in end order (FORMAT.md 1.3):
 * pending[d] is a placeholder node whose children are the merged subtrees at depth d still
 * waiting for their caller; a row at depth d adopts pending[d + 1].
 */
struct cct_stream {
    struct cct *tree;
    uint32_t under; /* where depth-0 rows go: the root, or a node chosen by the caller */
    uint32_t *pending;
    size_t npending; /* pending[0..npending) exist; pending[0] is under */
    size_t top;      /* no subtree waits at a depth above this */
};

/* Rows deeper than this are taken as depth-0 rows (a sane run never nests this deep). */
#define CCT_MAX_DEPTH (1u << 20)

void cct_init(struct cct *t);
void cct_release(struct cct *t);
/* The index of the name s[0..n), interned on first sight. */
uint32_t cct_intern(struct cct *t, const char *s, size_t n);
/* The child of parent named s[0..n), created (with no time) on first sight. */
uint32_t cct_child(struct cct *t, uint32_t parent, const char *s, size_t n);
/* Start a thread's rows; depth-0 rows become children of under (t->root for the forest). */
void cct_stream_begin(struct cct_stream *s, struct cct *t, uint32_t under);
/*
 * One row: region s[0..n) at depth, with inclusive and self ns; stopped 0 for an instance
 * that never stopped (its times are ignored).
 */
void cct_stream_row(struct cct_stream *s, const char *name, size_t n, unsigned depth, int stopped,
                    double total_ns, double self_ns);
/* cct_stream_row for a name already interned (its index from cct_intern). */
void cct_stream_row_interned(struct cct_stream *s, uint32_t id, unsigned depth, int stopped,
                             double total_ns, double self_ns);
/* End the thread: subtrees whose caller's row never came become children of under. */
void cct_stream_end(struct cct_stream *s);
/* Account calls and times to the child of parent named s[0..n) (summary-mode rows), created
   on first sight; returns that child. */
uint32_t cct_add(struct cct *t, uint32_t parent, const char *name, size_t n, uint64_t calls,
                 double total_ns, double self_ns);

/* A node's children in the tree's order (*n of them; the caller frees the array). */
uint32_t *cct_children(const struct cct *t, uint32_t node, size_t *n);
/* The children of node in byte order of their names; *n of them; the caller frees it. */
uint32_t *cct_sorted_children(const struct cct *t, uint32_t node, size_t *n);

/*
 * Visit the nodes below from (not from itself) depth first, siblings in byte order of their
 * names. pre is called before a node's children, post after them; path[0..len) holds the
 * node indexes from the first level below from down to the node. Either may be NULL.
 */
typedef void (*cct_visit)(void *ctx, const struct cct *t, const uint32_t *path, size_t len);
void cct_walk(const struct cct *t, uint32_t from, cct_visit pre, cct_visit post, void *ctx);

#endif /* PROFREPORT_CCT_H */
