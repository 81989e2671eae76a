/*
 * csvwrite.h - the run-file writer (csvwrite.c): the only code that writes run-file CSV
 * (docs/FORMAT.md 1), turning a run's part files into its run file (the collector, at exit)
 * and a run into its calling-context summary (profreport --compact, reporter/compact.c).
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

/* The run-file writer: the records of a run (assemble.h) in, CSV text out. The sink's
   callbacks write them in the order they come, which must be the run file's (assemble.h's
   prof_run_sink says which); fields of its own are the writer's. */
struct prof_csv_writer {
    FILE *out;
    struct prof_sbuf buf;
    struct prof_sbuf ids; /* every id of the current part as a field, back to back */
    size_t *id_off, *id_len;
    uint32_t nids, ids_cap;
    char thread[24]; /* the current part's thread number in decimal (FIELD_COPY bytes read) */
    size_t thread_len;
    int memory_started; /* the memory section's header is written */
    /* A version 2 part's rows have no node: numbered here per thread, each a top-level path
       (its callers are unknown) */
    uint32_t flat_thread, flat_node;
    int nomem;
};

/* Start a writer to out and fill sink with its callbacks (sink->ctx is w). */
void prof_csv_writer_init(struct prof_csv_writer *w, struct prof_run_sink *sink, FILE *out);
/* Write out what is buffered and free what w holds (out stays open, and flushed). PROF_OK,
   PROF_ERR_NOMEM when text could not be kept, PROF_ERR_IO when out could not be written. */
enum prof_error prof_csv_writer_finish(struct prof_csv_writer *w);

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
