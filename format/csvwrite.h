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
    /* errno of out's first failed write: what the run's warning says, whatever the cleanup
       after it leaves in errno (a TSan build's said 'Bad file descriptor' for 'File too
       large') */
    int write_errno;
};

/* Start a writer to out and fill sink with its callbacks (sink->ctx is w). */
void prof_csv_writer_init(struct prof_csv_writer *w, struct prof_run_sink *sink, FILE *out);
/* Write out what is buffered and free what w holds (out stays open, and flushed). PROF_OK,
   PROF_ERR_NOMEM when text could not be kept, PROF_ERR_IO when out could not be written (errno
   then the first failed write's). */
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

/* Whether prof_assemble_split writes the run file on two threads. */
enum prof_split_mode {
    PROF_SPLIT_AUTO,  /* when the parts are large and a CPU is idle (cpuload.h) */
    PROF_SPLIT_NEVER, /* one thread, as prof_assemble */
    PROF_SPLIT_ALWAYS /* whenever the rows can be cut (assemble.h): tests and benchmarks */
};

/* Failures a test injects into the split (bits of prof_split_opts.faults): each must leave the
   same run file, written by the fallback. */
#define PROF_SPLIT_FAULT_THREAD 1u      /* the second thread cannot be started */
#define PROF_SPLIT_FAULT_KERNEL_COPY 2u /* copy_file_range is missing: read and write */
#define PROF_SPLIT_FAULT_APPEND 4u      /* the second thread's text cannot be appended */

struct prof_split_opts {
    enum prof_split_mode mode;
    /* The folder of the second thread's temporary file: out's, so that the kernel copies it
       within one file system. The file is removed as soon as it is created. */
    const char *dir;
    /* Called by the second thread first (1) and last (0): the collector marks it as its own. */
    void (*thread_hook)(int begin);
    unsigned faults; /* PROF_SPLIT_FAULT_*: tests only, 0 otherwise */
    /* dir, open (the collector's run folder): the temporary file is made relative to it, so
       the folder swapped for a link leads nowhere. NULL: dir by its path. */
    const int *dirfd;
};

/*
 * prof_assemble, with the events rows formatted on two threads when opts allow: the calling
 * thread writes the rows before a cut near the middle of the parts' bytes straight to out,
 * a second thread those after it to a temporary file in opts->dir, which is then appended to
 * out (copy_file_range) and closed. The run file is byte for byte the one prof_assemble writes.
 * Any failure of the split (thread, temporary file, copy) falls back to the calling thread,
 * which then writes the rest itself. out must be a regular file for the split (anything else
 * gets one thread). opts NULL: as prof_assemble. Returns as prof_assemble.
 */
enum prof_error prof_assemble_split(const char *const *paths, size_t count, FILE *out,
                                    const struct prof_run_override *ov,
                                    const struct prof_split_opts *opts);

#endif /* PROF_CSVWRITE_H */
