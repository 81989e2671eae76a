/*
 * edges.h - edges.c: a caller -> callee edge's time with each instant counted once, whatever
 * the recursion, from the calling-context tree.
 */
#ifndef PROFREPORT_EDGES_H
#define PROFREPORT_EDGES_H

#include "model/model.h"

/*
 * Take from every edge's outer_ns the instances inside another instance of the same edge
 * (recursion: walk -> walk inside walk -> walk), so that it counts each instant once, as a
 * recursive region's Total counts its outermost calls only. The rows added every instance to
 * it; the calling-context tree (model_keep_paths) says which were inside another. Once, after
 * the last run is read (model_finish); nothing without the tree.
 */
void edges_count_once(struct model *m);

#endif /* PROFREPORT_EDGES_H */
