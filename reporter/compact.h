/*
 * compact.h - compact.c: profreport --compact. Each run is read on its own into its calling-
 * context tree, with each path's calls, times, extremes, sum of squares and histogram, and
 * written as a summary run file (docs/FORMAT.md 1.4) that keeps the run's metadata: one small
 * file per run, which a report reads as it reads the run.
 *
 * Ownership: a struct compact_run owns its tree, its statistics, the metadata and memory rows
 * it kept (compact_run_release frees them). The paths given to compact_runs are the caller's.
 */
#ifndef PROFREPORT_COMPACT_H
#define PROFREPORT_COMPACT_H

#include "model/cct.h"
#include "base/rep_error.h"
#include "read/runfile.h"

#include <profreport.h>

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct compact_stat;
struct compact_meta;
struct compact_mem;

/* One run on its way to its compact: compact_run_handler's callbacks fill it as the run is
   read, compact_run_write writes it. */
struct compact_run {
    struct cct tree;            /* one child of the root per thread, named by its number */
    struct cct_hooks hooks;     /* keep stats in step with the tree's nodes */
    struct compact_stat *stats; /* per tree node */
    size_t nstats;
    struct cct_stream stream; /* the events rows of thread stream_thread */
    int streaming;
    uint32_t stream_thread;
    const struct prof_event_rec *row; /* the events row being streamed, for the row hook */
    uint64_t row_first, row_second;   /* and its first-entry key */
    /* The version 3 summary rows' nodes of the thread being read, in increasing order, and
       their tree nodes, for their children's Parent */
    uint32_t map_thread, *map_node, *map_tree;
    size_t map_n, map_cap;
    int map_open;
    uint64_t seq; /* rows read: the first-entry key of rows without a place in time */
    enum run_kind kind;
    uint64_t frequency;
    int began; /* the table was reached */
    struct compact_meta *meta;
    size_t nmeta, meta_cap;
    struct compact_mem *mem;
    size_t nmem, mem_cap;
    uint64_t never;        /* seed rows that never stopped */
    uint64_t seed_end;     /* the seed rows' latest end: the longest, as they all start at 0 */
    char never_names[256]; /* ... the first of their ids */
    unsigned long problems, problem_line;
    char problem[256]; /* the first malformed row's message */
};

void compact_run_init(struct compact_run *c);
void compact_run_release(struct compact_run *c);
/* The callbacks that read a run into c (runfile_parse or partfile_read call them). */
void compact_run_handler(struct compact_run *c, struct run_handler *h);
/*
 * Write the compact of the run read into c to out: Frequency, Format (this version), the run's
 * metadata records in their order with Mode summary (and Complete no when truncated: the
 * run's rows ended early), one summary row per thread and calling context, threads in their
 * numbers' order and each thread's nodes numbered in the order the thread first entered
 * them, then the memory section. PROF_OK, PROF_ERR_IO, PROF_ERR_NOMEM.
 */
enum prof_error compact_run_write(struct compact_run *c, FILE *out, int truncated);

/* What compact_runs did. */
struct compact_totals {
    size_t runs, skipped;         /* compacts written; inputs that are not readable runs */
    uint64_t in_bytes, out_bytes; /* the compacted inputs' files (parts for a killed run); the
                                      compacts' */
};

/*
 * Write the compact of every run the paths name (files, folders' run files, killed runs'
 * parts, as a report reads them) into outdir, created if missing: outdir/<the run file's
 * name>, for a killed run the name its run file would have had. Nothing is written when a
 * target exists or two runs would have the same one (-1, REP_ERR_OUTPUT); each compact is
 * written to a temporary file and renamed, never over a file. Inputs that are not readable
 * runs are skipped with a warning. 0, or -1 with e: REP_ERR_OUTPUT (a compact could not be
 * written; those before it are in place), REP_ERR_NO_INPUT (no readable run).
 */
int compact_runs(const char *const *paths, size_t npaths, const char *outdir,
                 struct compact_totals *tot, struct rep_error *e);

#endif /* PROFREPORT_COMPACT_H */
