/*
 * csvwrite.h - the run-file writer (csvwrite.c): the only code that writes run-file CSV
 * (docs/FORMAT.md 1), turning a run's part files into its run file.
 *
 * The FILE and the paths are the caller's; nothing here closes or frees them.
 */
#ifndef PROF_CSVWRITE_H
#define PROF_CSVWRITE_H

#include "assemble.h"
#include "strbuf.h"

#include <stdio.h>

/* Append v with 17 significant digits (C locale), enough to read back the same double. */
void prof_csv_double(struct prof_sbuf *b, double v);

/* Append the summary-table row of s (docs/FORMAT.md 1.4), without its line end. */
void prof_csv_summary_row(struct prof_sbuf *b, const struct prof_summary_rec *s);

/*
 * Write the run file of the given parts to out, threads in the order of their numbers (the
 * records of assemble.h, as CSV). With ov NULL (a killed run), the metadata comes from the
 * first readable part and the run is complete only if every part ended cleanly. Returns
 * PROF_ERR_FORMAT when paths name parts but none is readable (out is then untouched),
 * PROF_ERR_IO when out cannot be written, PROF_ERR_NOMEM.
 */
enum prof_error prof_assemble(const char *const *paths, size_t count, FILE *out,
                              const struct prof_run_override *ov);

#endif /* PROF_CSVWRITE_H */
