/*
 * memsum.c - the terminal's account of the memory checks: one line per kind of finding, with
 * its blocks (or operations), bytes and sites over every run, so that a leak is seen without
 * opening the Memory sheet.
 */
#include "out/memsum.h"

#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/* The kind's index in prof_memory_kinds, or PROF_MK_N. */
static size_t kind_of(const char *word)
{
    size_t k = 0;
    while (k < PROF_MK_N && strcmp(prof_memory_kinds[k], word) != 0)
        k++;
    return k;
}

/* Order of rows: by kind, then site. */
static int by_kind_site(const void *a, const void *b)
{
    const struct mem_rec *x = *(const struct mem_rec *const *)a;
    const struct mem_rec *y = *(const struct mem_rec *const *)b;
    int c = strcmp(x->kind, y->kind);
    return c ? c : strcmp(x->site, y->site);
}

/* Add up the findings per kind; sites are counted once each, over the rows sorted by them. */
int memsum_count(const struct model *m, struct memsum out[PROF_MK_N])
{
    memset(out, 0, PROF_MK_N * sizeof *out);
    int any = 0;
    for (size_t k = 0; k < m->nruns; k++)
        any |= m->runs[k].has_memory;
    const struct mem_rec **v = xmalloc((m->nmem ? m->nmem : 1) * sizeof *v);
    for (size_t i = 0; i < m->nmem; i++)
        v[i] = &m->mem[i];
    qsort(v, m->nmem, sizeof *v, by_kind_site);
    for (size_t i = 0; i < m->nmem; i++) {
        size_t k = kind_of(v[i]->kind);
        if (k >= PROF_MK_N || k == PROF_MK_REGION_BYTES)
            continue;
        out[k].count += v[i]->count;
        out[k].bytes += v[i]->bytes;
        if (i == 0 || by_kind_site(&v[i - 1], &v[i]) != 0)
            out[k].sites++;
    }
    free(v);
    return any;
}

/* "s" after a count other than 1. */
static const char *plural(uint64_t n) { return n == 1 ? "" : "s"; }

/* Print the memory lines. */
void memsum_print(FILE *out, const struct model *m)
{
    struct memsum s[PROF_MK_N];
    if (!memsum_count(m, s))
        return;
    /* What each kind is called on the terminal, and what it means for the program. */
    static const struct {
        int kind;
        const char *what, *unit, *note;
    } lines[] = {
        {PROF_MK_LEAK, "leaks", "block", ""},
        {PROF_MK_RUNTIME, "runtime, still reachable at exit", "block",
         " (the loader's and C/C++ libraries' own: not leaks)"},
        {PROF_MK_DOUBLE_FREE, "double frees", "free", " (refused: the program ran on)"},
        {PROF_MK_UNKNOWN_FREE, "frees of unknown pointers", "free", ""},
        {PROF_MK_MISMATCH, "mismatched deallocations", "free", ""},
        {PROF_MK_CROSS_THREAD, "cross-thread frees", "free", " (legal)"},
    };
    int printed = 0;
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        const struct memsum *k = &s[lines[i].kind];
        if (!k->count)
            continue;
        fprintf(out, "memory:   %s: %llu %s%s, %llu bytes at %zu site%s%s\n", lines[i].what,
                (unsigned long long)k->count, lines[i].unit, plural(k->count),
                (unsigned long long)k->bytes, k->sites, plural(k->sites), lines[i].note);
        printed = 1;
    }
    if (!printed)
        fprintf(out, "memory:   no leaks and no bad frees\n");
}
