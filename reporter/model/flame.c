/*
 * flame.c - the layout of a flame graph of the calling-context tree: a pure function from the
 * tree to rectangles, drawn by charts.c with templates/flame.gp.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/flame.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Children by more inclusive time first, then by name bytes; ctx is the tree. */
static int by_weight(const void *a, const void *b, void *ctx)
{
    const struct cct *t = ctx;
    const struct cct_node *x = &t->nodes[*(const uint32_t *)a];
    const struct cct_node *y = &t->nodes[*(const uint32_t *)b];
    if (x->total_ns != y->total_ns)
        return x->total_ns < y->total_ns ? 1 : -1;
    size_t lx = t->name_lens[x->name], ly = t->name_lens[y->name];
    int c = memcmp(t->names[x->name], t->names[y->name], lx < ly ? lx : ly);
    return c ? c : (lx > ly) - (lx < ly);
}

/* The children of node, heaviest first; *n of them; the caller frees it. */
static uint32_t *children(const struct cct *t, uint32_t node, size_t *n)
{
    uint32_t *kids = cct_children(t, node, n);
    qsort_r(kids, *n, sizeof *kids, by_weight, (void *)t);
    return kids;
}

/* The nodes of node's subtree, node included (without recursion: trees can be deep). */
static size_t subtree_size(const struct cct *t, uint32_t node)
{
    size_t cap = 64, top = 0, count = 0;
    uint32_t *stack = xmalloc(cap * sizeof *stack);
    stack[top++] = node;
    while (top > 0) {
        uint32_t v = stack[--top];
        count++;
        for (uint32_t c = t->nodes[v].child; c != CCT_NONE; c = t->nodes[c].sibling) {
            if (top == cap) {
                cap *= 2;
                stack = xrealloc(stack, cap * sizeof *stack);
            }
            stack[top++] = c;
        }
    }
    free(stack);
    return count;
}

/* Append a rectangle. */
static void add_rect(struct flame *f, size_t *cap, struct flame_rect r)
{
    if (f->n == *cap) {
        *cap = *cap ? *cap * 2 : 64;
        f->rects = xrealloc(f->rects, *cap * sizeof *f->rects);
    }
    f->rects[f->n++] = r;
    if (r.depth + 1 > f->depth)
        f->depth = r.depth + 1;
}

/*
 * Place node's children inside [x0, x1) at depth, each sized by its inclusive time over
 * parent_ns (or over the children's sum, when that is larger), and push the ones drawn on the
 * stack so that the heaviest is taken next.
 */
static void place_children(const struct cct *t, uint32_t node, double x0, double x1,
                           double parent_ns, unsigned depth, double min_width, unsigned max_depth,
                           struct flame *f, struct flame_rect **stack, size_t *top,
                           size_t *stack_cap)
{
    size_t n;
    uint32_t *kids = children(t, node, &n);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        if (t->nodes[kids[i]].total_ns > 0)
            sum += t->nodes[kids[i]].total_ns;
    double base = sum > parent_ns ? sum : parent_ns;
    double per_ns = base > 0 ? (x1 - x0) / base : 0;
    double cursor = x0;
    size_t first = *top;
    for (size_t i = 0; i < n; i++) {
        double ns = t->nodes[kids[i]].total_ns > 0 ? t->nodes[kids[i]].total_ns : 0;
        double w = ns * per_ns;
        if (depth >= max_depth || w < min_width) {
            f->dropped += subtree_size(t, kids[i]);
        } else {
            if (*top == *stack_cap) {
                *stack_cap = *stack_cap ? *stack_cap * 2 : 64;
                *stack = xrealloc(*stack, *stack_cap * sizeof **stack);
            }
            double end = cursor + w > x1 ? x1 : cursor + w;
            (*stack)[(*top)++] = (struct flame_rect){kids[i], depth, cursor, end};
        }
        cursor += w;
    }
    /* Reverse this level's entries: the stack pops the heaviest child first. */
    for (size_t a = first, b = *top; b > a + 1; a++, b--) {
        struct flame_rect tmp = (*stack)[a];
        (*stack)[a] = (*stack)[b - 1];
        (*stack)[b - 1] = tmp;
    }
    free(kids);
}

/* Lay the tree out (see flame.h). */
void flame_layout(const struct cct *t, double min_width, unsigned max_depth, struct flame *out)
{
    memset(out, 0, sizeof *out);
    for (uint32_t c = t->nodes[t->root].child; c != CCT_NONE; c = t->nodes[c].sibling)
        if (t->nodes[c].total_ns > 0)
            out->total_ns += t->nodes[c].total_ns;
    size_t cap = 0, stack_cap = 0, top = 0;
    struct flame_rect *stack = NULL;
    place_children(t, t->root, 0, 1, out->total_ns, 0, min_width, max_depth, out, &stack, &top,
                   &stack_cap);
    while (top > 0) {
        struct flame_rect r = stack[--top];
        add_rect(out, &cap, r);
        place_children(t, r.node, r.x0, r.x1, t->nodes[r.node].total_ns, r.depth + 1, min_width,
                       max_depth, out, &stack, &top, &stack_cap);
    }
    free(stack);
}

/* Free the rectangles. */
void flame_release(struct flame *f)
{
    free(f->rects);
    memset(f, 0, sizeof *f);
}
