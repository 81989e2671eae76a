/*
 * rows.h - the row stream between the readers (read/) and the model: the kinds of table, the
 * rows of a run (format/'s records, and the memory section's), the run_handler that takes them,
 * and the run_reader that feeds one. The model's ingest (model.c) is a run_handler; a run file's
 * parser (read/runfile.c), a killed run's parts (read/partfile.c) and recorded batches
 * (read/batch.c) feed one.
 *
 * Strings handed to a callback are the reader's, valid during the call only.
 */
#ifndef PROFREPORT_ROWS_H
#define PROFREPORT_ROWS_H

#include "base/rep_error.h"

#include "assemble.h"

#include <stddef.h>
#include <stdint.h>

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
 * What reads one run into a run_handler: runfile_parse (read/runfile.h) for a run file, or a killed
 * run's parts (read/partfile.h). Returns, and fills why and line, as runfile_parse does.
 */
typedef enum run_status (*run_reader)(void *src, const struct run_handler *h, struct rep_error *why,
                                      unsigned long *line);

#endif /* PROFREPORT_ROWS_H */
