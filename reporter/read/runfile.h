/*
 * runfile.h - the profreport command's reader of run files (runfile.c): one run file (docs/
 * FORMAT.md sections 1 and 2) streamed through libcsv, its metadata and rows handed to a
 * run_handler. The column names, versions and histogram buckets it checks come from format/.
 *
 * Strings handed to a callback are the parser's, valid during the call only.
 */
#ifndef PROFREPORT_RUNFILE_H
#define PROFREPORT_RUNFILE_H

#include "rep_error.h"

#include "assemble.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* What kind of table a run file holds. */
enum run_kind {
    RUN_EVENTS,  /* docs/FORMAT.md 1.3 */
    RUN_SUMMARY, /* docs/FORMAT.md 1.4 */
    RUN_SEED     /* docs/FORMAT.md 2: Frequency, then id,delta rows */
};

/*
 * The rows of the events and summary tables are format/'s records (assemble.h), the same ones a
 * killed run's parts give: struct prof_event_rec (or the seed form, where only region, stopped
 * and ticks are known and thread is 0) and struct prof_summary_rec (hist: nhist (bucket, count)
 * pairs of FORMAT.md 1.4). From a run file, region_id and parent_id are 0 and ticks and self
 * are 0 when the region never stopped. Another reader may hand events over with region_id and
 * parent_id set to numbers of their texts (batch.h): nonzero, a number stands for the same
 * bytes throughout the run, so a handler may look a text up once per number. Strings point into the
 * parser's buffers, valid during the callback, and have a NUL at [len] (they may also hold NULs
 * before it).
 *
 * A version 3 summary row (node >= 1) is handed on only when it fits its thread's tree: its
 * thread's rows come together, its node is above the thread's previous one, and its parent is
 * 0 or a node handed on before it for the same thread and table (a part's records always fit).
 * Version 1 and 2 rows have node and parent 0.
 */

/*
 * One row of a version 2 run file's memory section (FORMAT.md 1.5). Strings point into the
 * parser's buffers, valid during the callback, NUL-terminated; empty when the field is.
 * Threads are 0 when empty.
 */
struct run_memory {
    const char *kind; /* leak, runtime-reachable, double-free, unknown-free, mismatch,
                         cross-thread-free, region-bytes */
    unsigned thread, other_thread;
    const char *region, *site, *alloc_kind, *free_kind, *other_site, *function, *stack;
    size_t region_len, site_len, other_site_len, function_len, stack_len;
    uint64_t count, bytes;
};

/*
 * Callbacks for runfile_parse. meta is called for each metadata record (fields[0] is the key;
 * Frequency and Format are handled by the parser) before begin; begin once the table's kind is
 * known; then event or summary per row. Any callback may be NULL.
 */
struct run_handler {
    void *ctx;
    void (*meta)(void *ctx, const char *const *fields, const size_t *lens, size_t n);
    void (*begin)(void *ctx, enum run_kind kind, uint64_t frequency);
    void (*event)(void *ctx, const struct prof_event_rec *e);
    void (*summary)(void *ctx, const struct prof_summary_rec *s);
    /* A problem at a line of the file: malformed row (skipped) or the like. */
    void (*problem)(void *ctx, unsigned long line, const char *message);
    /* A row of the memory section, after the table (version 2). */
    void (*memory)(void *ctx, const struct run_memory *m);
    /* Asked right after begin: nonzero ends the reading there, with RUNFILE_OK (the handler
       wants the run's metadata only). NULL: never. */
    int (*stop)(void *ctx);
};

enum run_status {
    RUNFILE_OK,       /* read to the end (problems, if any, were reported per line) */
    RUNFILE_SKIPPED,  /* not a run file we can read: no Frequency record, unknown version... */
    RUNFILE_IO_ERROR, /* could not be read */
    RUNFILE_TRUNCATED /* ended inside a quoted field or record: the rows before it were read */
};

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

/*
 * What reads one run into a run_handler: runfile_parse for a run file, or a killed run's parts
 * (partfile.h). Returns, and fills why and line, as runfile_parse does.
 */
typedef enum run_status (*run_reader)(void *src, const struct run_handler *h, struct rep_error *why,
                                      unsigned long *line);

#endif /* PROFREPORT_RUNFILE_H */
