/*
 * paths.c - the heaviest call paths of the calling-context tree, and their text.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/paths.h"
#include "base/util.h"
#include "strbuf.h"

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

/* Frames a repeat may span: a recursion through up to this many functions folds. */
#define REPEAT_SPAN 4

/* Append " > " (unless out is empty) and a frame's text to out. */
static void put_frame(struct prof_sbuf *out, const char *text)
{
    if (out->len)
        prof_sbuf_str(out, " > ");
    prof_sbuf_str(out, text);
}

/*
 * The path's frames[0..n) as text, a run of the same frames repeated (recursion) folded to
 * "walk ×9" or "[a > b] ×4": at each frame the span of 1 to REPEAT_SPAN frames whose back-to-back
 * repeats cover the most frames.
 */
static void fold_frames(struct prof_sbuf *out, char *const *frames, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t best_span = 1, best_times = 1;
        for (size_t span = 1; span <= REPEAT_SPAN && i + 2 * span <= n; span++) {
            size_t times = 1;
            for (;;) {
                size_t at = i + times * span, k = 0;
                if (at + span > n)
                    break;
                while (k < span && strcmp(frames[i + k], frames[at + k]) == 0)
                    k++;
                if (k < span)
                    break;
                times++;
            }
            if (times >= 2 && span * times > best_span * best_times) {
                best_span = span;
                best_times = times;
            }
        }
        if (best_times < 2) {
            put_frame(out, frames[i++]);
            continue;
        }
        struct prof_sbuf group = {0};
        for (size_t k = 0; k < best_span; k++)
            put_frame(&group, frames[i + k]);
        char times[32];
        snprintf(times, sizeof times, " \xc3\x97%zu", best_times); /* U+00D7 */
        if (out->len)
            prof_sbuf_str(out, " > ");
        if (best_span > 1)
            prof_sbuf_str(out, "[");
        prof_sbuf_str(out, sbuf_text(&group));
        if (best_span > 1)
            prof_sbuf_str(out, "]");
        prof_sbuf_str(out, times);
        prof_sbuf_release(&group);
        i += best_span * best_times;
    }
}

/*
 * "main > parse > walk ×9" for node, outermost first: each frame's name from name_of (a tree
 * name index to the text to show; NULL: the name repaired for display), recursion folded. A
 * text longer than PATH_TEXT_MAX keeps its innermost part after "... ". *depth gets the number
 * of frames.
 */
char *paths_text(const struct cct *t, uint32_t node, const char *const *name_of, size_t *depth)
{
    size_t n = 0;
    for (uint32_t k = node; k != t->root && k != CCT_NONE; k = t->nodes[k].parent)
        n++;
    *depth = n;
    char **frames = xmalloc((n ? n : 1) * sizeof *frames);
    size_t i = n;
    for (uint32_t k = node; k != t->root && k != CCT_NONE; k = t->nodes[k].parent) {
        uint32_t name = t->nodes[k].name;
        frames[--i] = name_of && name_of[name] ? xstrdup(name_of[name])
                                               : region_display(t->names[name], t->name_lens[name]);
    }
    struct prof_sbuf out = {0};
    fold_frames(&out, frames, n);
    for (size_t j = 0; j < n; j++)
        free(frames[j]);
    free(frames);
    char *text = sbuf_take(&out);
    size_t len = strlen(text);
    if (len <= PATH_TEXT_MAX)
        return text;
    /* The innermost part, from a frame's start. */
    const char *tail = text + len - PATH_TEXT_MAX;
    const char *cut = strstr(tail, " > ");
    tail = cut ? cut + 3 : tail;
    char *kept = xmalloc(strlen(tail) + 8);
    sprintf(kept, "... > %s", tail);
    free(text);
    return kept;
}
