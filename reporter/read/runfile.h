/*
 * runfile.h - the profreport command's reader of run files (runfile.c): one run file (docs/
 * FORMAT.md sections 1 and 2) streamed through libcsv, its metadata and rows handed to a
 * run_handler (model/rows.h). The column names, versions and histogram buckets it checks come from
 * format/.
 *
 * Strings handed to a callback are the parser's, valid during the call only.
 */
#ifndef PROFREPORT_RUNFILE_H
#define PROFREPORT_RUNFILE_H

#include "base/rep_error.h"
#include "model/rows.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/*
 * Parse the run file in f (name is for messages) and feed h. On RUNFILE_SKIPPED or
 * RUNFILE_IO_ERROR, why (REP_ERR_NO_INPUT) says what is wrong and *line where (0: nowhere in
 * particular); otherwise why is cleared and *line is 0. why and line may be NULL.
 */
enum run_status runfile_parse(FILE *f, const char *name, const struct run_handler *h,
                              struct rep_error *why, unsigned long *line);

/* Set (to anything) in the environment, runfile_parse feeds every line to libcsv: the reader
   without its fast path (plainsplit.h), for benchmarks. */
#define RUNFILE_LIBCSV_ONLY_ENV "PROFREPORT_LIBCSV_ONLY"

/*
 * How runfile_parse_tuned reads, for tests and benchmarks: a zeroed struct reads as
 * runfile_parse does without the environment variable above.
 */
struct runfile_tuning {
    int libcsv_only; /* every line through libcsv, none through plain_split or rowscan */
    int no_rowscan;  /* no row through rowscan (lines without a quote go to plain_split) */
    size_t block;    /* bytes per fread; 0: the usual 64 KiB */
    /* Called, when not NULL, with every field and every record end (or line end between
       records) the reader's CSV layer gives, libcsv's or plain_split's: c is '\r', '\n' or -1
       (the end of the file). */
    void (*field)(void *ctx, const char *s, size_t len);
    void (*record)(void *ctx, int c);
    void *ctx;
};

/* runfile_parse, read as t says. */
enum run_status runfile_parse_tuned(FILE *f, const char *name, const struct run_handler *h,
                                    struct rep_error *why, unsigned long *line,
                                    const struct runfile_tuning *t);

#endif /* PROFREPORT_RUNFILE_H */
