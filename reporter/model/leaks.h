/*
 * leaks.h - leaks.c: the memory findings of every run as a table of sites: one row per
 * allocation site and stack, its blocks and bytes added up over the runs, largest first. The
 * workbook's Memory sheet shows it; any output may.
 *
 * Ownership: leak_sites' array is the caller's to free; its strings point into the model and
 * live as long as it.
 */
#ifndef PROFREPORT_LEAKS_H
#define PROFREPORT_LEAKS_H

#include "model/model.h"

#include <stddef.h>
#include <stdint.h>

/* One site and stack's findings of one kind over all runs. */
struct leak_site {
    const char *site, *function, *stack; /* function: that of the site's first finding */
    size_t runs;                         /* runs with findings at the site */
    uint64_t blocks, bytes;
};

/*
 * The findings of one kind (FORMAT.md 1.5: "leak", "runtime-reachable") of every run, added up
 * by site and stack, more bytes first, then more blocks, then by site and stack. *n gets their
 * number.
 */
struct leak_site *leak_sites(const struct model *m, const char *kind, size_t *n);

#endif /* PROFREPORT_LEAKS_H */
