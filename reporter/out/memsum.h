/*
 * memsum.h - memsum.c: the memory checks' findings of every run added up by kind, for the
 * terminal's one line per kind.
 */
#ifndef PROFREPORT_MEMSUM_H
#define PROFREPORT_MEMSUM_H

#include "format.h"
#include "model/model.h"

#include <stdint.h>
#include <stdio.h>

/* One kind of finding over every run: operations (blocks, for leaks), bytes, distinct sites. */
struct memsum {
    uint64_t count, bytes;
    size_t sites;
};

/* The findings of m's memory rows added up per kind (enum prof_memory_kind; region-bytes
   rows are left out). Returns whether any run had memory checks. */
int memsum_count(const struct model *m, struct memsum out[PROF_MK_N]);
/* One "memory:" line per kind found on out, or one saying nothing was found; nothing at all
   when no run had memory checks. */
void memsum_print(FILE *out, const struct model *m);

#endif /* PROFREPORT_MEMSUM_H */
