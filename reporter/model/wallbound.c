/*
 * wallbound.c - the 95 % bound of a region's Wall in sampled runs (wallbound.h).
 */
#include "model/wallbound.h"
#include "base/util.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void wallbound_begin(struct wallbound *b, size_t thread)
{
    b->thread = thread;
    b->n = 0;
}

void wallbound_row(struct wallbound *b, size_t parent, uint64_t calls)
{
    if (b->n == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 64;
        b->parent = xrealloc(b->parent, b->cap * sizeof *b->parent);
        b->calls = xrealloc(b->calls, b->cap * sizeof *b->calls);
        b->region = xrealloc(b->region, b->cap * sizeof *b->region);
        b->scale = xrealloc(b->scale, b->cap * sizeof *b->scale);
        b->others = xrealloc(b->others, b->cap * sizeof *b->others);
        b->desc = xrealloc(b->desc, b->cap * sizeof *b->desc);
    }
    size_t i = b->n++;
    b->parent[i] = parent < i ? parent : SIZE_MAX;
    b->calls[i] = calls;
    b->region[i] = SIZE_MAX;
    b->scale[i] = 1;
    b->others[i] = 0;
}

void wallbound_wall(struct wallbound *b, size_t region, double scale, double others_ns)
{
    if (!b->n)
        return;
    b->region[b->n - 1] = region;
    b->scale[b->n - 1] = scale;
    b->others[b->n - 1] = others_ns;
}

/* Room for the model's regions in the per-region scratch (new ones at 0). */
static void scratch_fit(struct wallbound *b, size_t nregions)
{
    if (nregions <= b->nscratch)
        return;
    b->hooks_part = xrealloc(b->hooks_part, nregions * sizeof *b->hooks_part);
    b->others_part = xrealloc(b->others_part, nregions * sizeof *b->others_part);
    for (size_t r = b->nscratch; r < nregions; r++)
        b->hooks_part[r] = b->others_part[r] = 0;
    b->nscratch = nregions;
}

void wallbound_flush(struct wallbound *b, struct model *m)
{
    if (!b->n || b->thread >= m->nthreads) {
        b->n = 0;
        return;
    }
    const struct thread_rec *t = &m->threads[b->thread];
    /* The calls made inside each row's calls: its children's and theirs, children first
       (a row comes after its parent's). */
    for (size_t i = 0; i < b->n; i++)
        b->desc[i] = 0;
    for (size_t i = b->n; i-- > 0;)
        if (b->parent[i] != SIZE_MAX)
            b->desc[b->parent[i]] += (double)b->calls[i] + b->desc[i];
    double hook = isfinite(t->hook_ns) && t->hook_ns > 0 ? t->hook_ns : 0;
    scratch_fit(b, m->nregions);
    b->ntouched = 0;
    for (size_t i = 0; i < b->n; i++) {
        size_t r = b->region[i];
        if (r == SIZE_MAX || r >= m->nregions)
            continue;
        /* (clock - hooks) x scale: the hooks' part reaches the Wall scaled */
        double h = b->desc[i] * hook * b->scale[i], o = b->others[i];
        if (!(h > 0) && !(o > 0))
            continue;
        if (b->hooks_part[r] == 0 && b->others_part[r] == 0) {
            if (b->ntouched == b->touched_cap) {
                b->touched_cap = b->touched_cap ? 2 * b->touched_cap : 64;
                b->touched = xrealloc(b->touched, b->touched_cap * sizeof *b->touched);
            }
            b->touched[b->ntouched++] = r;
        }
        b->hooks_part[r] += h > 0 ? h : 0;
        b->others_part[r] += o > 0 ? o : 0;
    }
    /* one estimate each for the whole thread: relative spreads */
    double hook_rel = t->hook_samples > 0 ? 1 / sqrt(t->hook_samples) : NAN;
    double others_rel = t->others_ns > 0 ? t->others_sd_ns / t->others_ns : 0;
    int pooled = thread_hooks_pooled(t);
    for (size_t k = 0; k < b->ntouched; k++) {
        size_t r = b->touched[k];
        struct region *g = &m->regions[r];
        double h = b->hooks_part[r], o = b->others_part[r] * others_rel;
        if (h > 0 && !isfinite(hook_rel))
            g->wall_pm_unknown = 1;
        else if (pooled)
            g->wall_sd_pooled += h * hook_rel;
        else if (h > 0)
            g->var_wall += h * h * hook_rel * hook_rel;
        g->var_wall += o * o;
        b->hooks_part[r] = b->others_part[r] = 0;
    }
    b->ntouched = 0;
    b->n = 0;
}

void wallbound_release(struct wallbound *b)
{
    free(b->parent);
    free(b->calls);
    free(b->region);
    free(b->scale);
    free(b->others);
    free(b->desc);
    free(b->hooks_part);
    free(b->others_part);
    free(b->touched);
    memset(b, 0, sizeof *b);
}

double wallbound_pm(const struct region *r)
{
    if (r->wall_pm_unknown)
        return NAN;
    return 1.96 * sqrt(r->var_wall + r->wall_sd_pooled * r->wall_sd_pooled);
}
