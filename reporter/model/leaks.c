/*
 * leaks.c - the memory findings of one kind grouped by site and stack, in O(n log n): the
 * findings sorted by site, stack and file order, then each group added up.
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/leaks.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* Findings by site, then stack, then file order; ctx is the model. */
static int by_site(const void *a, const void *b, void *ctx)
{
    const struct model *m = *(const struct model *const *)ctx;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    const struct mem_rec *x = &m->mem[i], *y = &m->mem[j];
    int c = strcmp(x->site, y->site);
    if (!c)
        c = strcmp(x->stack, y->stack);
    return c ? c : (i > j) - (i < j);
}

/* Order of leak sites: more bytes first, then more blocks, then by site and stack. */
static int by_leak(const void *a, const void *b)
{
    const struct leak_site *x = a, *y = b;
    if (x->bytes != y->bytes)
        return x->bytes < y->bytes ? 1 : -1;
    if (x->blocks != y->blocks)
        return x->blocks < y->blocks ? 1 : -1;
    int c = strcmp(x->site, y->site);
    return c ? c : strcmp(x->stack, y->stack);
}

/* The findings of one kind added up by site and stack, largest first. */
struct leak_site *leak_sites(const struct model *m, const char *kind, size_t *n)
{
    size_t *idx = xmalloc((m->nmem ? m->nmem : 1) * sizeof *idx), nidx = 0;
    for (size_t i = 0; i < m->nmem; i++)
        if (strcmp(m->mem[i].kind, kind) == 0)
            idx[nidx++] = i;
    qsort_r(idx, nidx, sizeof *idx, by_site, &m);
    struct leak_site *v = xmalloc((nidx ? nidx : 1) * sizeof *v);
    size_t k = 0, last_run = 0;
    for (size_t i = 0; i < nidx; i++) {
        const struct mem_rec *r = &m->mem[idx[i]];
        if (k == 0 || strcmp(v[k - 1].site, r->site) != 0 ||
            strcmp(v[k - 1].stack, r->stack) != 0) {
            v[k++] = (struct leak_site){r->site, r->function, r->stack, 1, r->count, r->bytes};
            last_run = r->run;
            continue;
        }
        /* A group's findings are in file order: a new run shows as a change of run. */
        if (r->run != last_run) {
            v[k - 1].runs++;
            last_run = r->run;
        }
        v[k - 1].blocks += r->count;
        v[k - 1].bytes += r->bytes;
    }
    free(idx);
    qsort(v, k, sizeof *v, by_leak);
    *n = k;
    return v;
}
