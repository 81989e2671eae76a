/*
 * flame.h - flame.c: the layout of a flame graph (an icicle: callers above their callees) of
 * the calling-context tree, as rectangles for the flame chart.
 *
 * Ownership: a struct flame owns its rectangles (flame_release frees them); it borrows
 * nothing, but its node indexes refer to the tree it was laid out from.
 */
#ifndef PROFREPORT_FLAME_H
#define PROFREPORT_FLAME_H

#include "model/cct.h"

#include <stddef.h>
#include <stdint.h>

/* Nodes narrower than this fraction of the whole width are left out, with their subtrees:
   about one pixel of a 1000-pixel picture. */
#define FLAME_MIN_WIDTH 0.001
/* Levels drawn; deeper nodes are left out (a picture taller than 4000 pixels would be needed). */
#define FLAME_MAX_DEPTH 160

/* One calling context's rectangle: x0..x1 in fractions of all top-level time, one row per
   depth (0: a top-level region). */
struct flame_rect {
    uint32_t node; /* index into the tree's nodes */
    unsigned depth;
    double x0, x1;
};

/* A laid-out flame graph: rectangles in depth-first order, each node before its children,
   siblings by more inclusive time first, then by name. */
struct flame {
    struct flame_rect *rects;
    size_t n;
    size_t dropped;  /* nodes left out: too narrow or too deep (their subtrees included) */
    unsigned depth;  /* levels with a rectangle (the deepest depth + 1); 0 when n is 0 */
    double total_ns; /* the whole width: the top-level nodes' inclusive time */
};

/*
 * Lay out the tree below t->root: each top-level node as wide as its share of the top-level
 * nodes' inclusive time, each child as wide as its share of its parent's, children side by
 * side from their parent's left edge (what is left at the right is the parent's self time;
 * children whose times add up to more than their parent's are scaled down to fit it). Nodes
 * narrower than min_width or at depth max_depth or deeper are left out and counted.
 */
void flame_layout(const struct cct *t, double min_width, unsigned max_depth, struct flame *out);
void flame_release(struct flame *f);

#endif /* PROFREPORT_FLAME_H */
