/*
 * paths.c - the heaviest call paths of the calling-context tree, and their text.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/paths.h"
#include "base/util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Call paths: every calling context of the tree, for the heaviest-paths table. */
struct path_pick {
    uint32_t *nodes;
    size_t n, cap;
};

/* cct_walk visitor: note every node that has time of its own. */
static void pick_path(void *ctx, const struct cct *t, const uint32_t *path, size_t len)
{
    struct path_pick *p = ctx;
    uint32_t node = path[len - 1];
    if (!(t->nodes[node].self_ns > 0))
        return;
    if (p->n == p->cap) {
        p->cap = p->cap ? p->cap * 2 : 256;
        p->nodes = xrealloc(p->nodes, p->cap * sizeof *p->nodes);
    }
    p->nodes[p->n++] = node;
}

/* Heaviest self time first, then the earlier node (a stable order for equal times); ctx points
   to the tree's pointer. */
static int by_path_self(const void *a, const void *b, void *ctx)
{
    const struct cct *t = *(const struct cct *const *)ctx;
    const struct cct_node *x = &t->nodes[*(const uint32_t *)a];
    const struct cct_node *y = &t->nodes[*(const uint32_t *)b];
    if (x->self_ns != y->self_ns)
        return x->self_ns < y->self_ns ? 1 : -1;
    return *(const uint32_t *)a < *(const uint32_t *)b ? -1 : 1;
}

/* The nodes with self time, heaviest first. */
uint32_t *paths_heaviest(const struct cct *t, size_t *n, double *all_self_ns)
{
    struct path_pick p = {0};
    if (t)
        cct_walk(t, t->root, pick_path, NULL, &p);
    double all = 0;
    for (size_t i = 0; i < p.n; i++)
        all += t->nodes[p.nodes[i]].self_ns;
    if (p.n)
        qsort_r(p.nodes, p.n, sizeof *p.nodes, by_path_self, &t);
    if (all_self_ns)
        *all_self_ns = all;
    *n = p.n;
    return p.nodes;
}

/* "main > run > fib" for a node, outermost first; long paths keep their innermost frames. */
char *paths_text(const struct cct *t, uint32_t node, size_t *depth)
{
    size_t n = 0;
    for (uint32_t k = node; k != t->root && k != CCT_NONE; k = t->nodes[k].parent)
        n++;
    *depth = n;
    char **parts = xmalloc((n ? n : 1) * sizeof *parts);
    size_t i = n, total = 0;
    for (uint32_t k = node; k != t->root && k != CCT_NONE; k = t->nodes[k].parent) {
        uint32_t name = t->nodes[k].name;
        parts[--i] = region_display(t->names[name], t->name_lens[name]);
    }
    size_t first = 0;
    for (size_t j = n; j-- > 0;) { /* drop outer frames until the rest fits */
        total += strlen(parts[j]) + 3;
        if (total > PATH_TEXT_MAX) {
            first = j + 1;
            break;
        }
    }
    size_t len = 8;
    for (size_t j = first; j < n; j++)
        len += strlen(parts[j]) + 3;
    char *out = xmalloc(len), *o = out;
    if (first > 0)
        o += sprintf(o, "... > ");
    for (size_t j = first; j < n; j++)
        o += sprintf(o, "%s%s", j > first ? " > " : "", parts[j]);
    for (size_t j = 0; j < n; j++)
        free(parts[j]);
    free(parts);
    return out;
}
