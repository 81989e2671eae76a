/*
 * paths.h - paths.c: the heaviest call paths: the calling contexts of the tree (cct.h) with
 * time of their own, heaviest first, and a path's text. The workbook's Call paths sheet shows
 * them; any output may.
 *
 * Ownership: the arrays and strings returned are the caller's to free.
 */
#ifndef PROFREPORT_PATHS_H
#define PROFREPORT_PATHS_H

#include "model/cct.h"

#include <stddef.h>
#include <stdint.h>

/* Longest path text, in bytes, before outer frames are left out. */
#define PATH_TEXT_MAX 2000

/*
 * The nodes of t (NULL: none) with self time, most self time first, then the earlier node.
 * *n gets their number and *all_self_ns (when not NULL) the sum of their self times.
 */
uint32_t *paths_heaviest(const struct cct *t, size_t *n, double *all_self_ns);
/*
 * "main > run > fib" for node, outermost first, names repaired for display; a path longer than
 * PATH_TEXT_MAX keeps its innermost frames after "... > ". *depth gets its number of frames.
 */
char *paths_text(const struct cct *t, uint32_t node, size_t *depth);

#endif /* PROFREPORT_PATHS_H */
