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
 * "main > parse > walk ×9" for node, outermost first: each frame's name from name_of[tree
 * name index] (the short names; NULL, or a NULL entry: the name repaired for display), a run
 * of the same frames repeated back to back (recursion, through up to 4 functions) folded to
 * "walk ×9" or "[a > b] ×4". A text longer than PATH_TEXT_MAX keeps its innermost part after
 * "... > ". *depth gets the number of frames.
 */
char *paths_text(const struct cct *t, uint32_t node, const char *const *name_of, size_t *depth);

#endif /* PROFREPORT_PATHS_H */
