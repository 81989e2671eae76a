/*
 * assemble.h - a run's part files read as the records of its run file (assemble.c): metadata,
 * the table's rows, the memory section, handed to a sink in the order the run file holds them.
 * The run-file writer (csvwrite.h) is one sink; the profreport command, reading a killed run's
 * parts without a run file, is another.
 *
 * Ownership: a prof_parts owns what it learned of the parts (prof_parts_free frees it); the
 * paths and the override are the caller's and must outlive it. Every pointer a sink receives is
 * valid during the call only.
 */
#ifndef PROF_ASSEMBLE_H
#define PROF_ASSEMBLE_H

#include "format.h"

#include <stddef.h>
#include <stdint.h>

/* One row of an events table (FORMAT.md 1.3). Text has a NUL at [len] (and may hold NULs
   before it). */
struct prof_event_rec {
    const char *region, *parent; /* parent: "" at depth 0 */
    size_t region_len, parent_len;
    uint32_t region_id, parent_id; /* indexes into the part's ids (parent_id: depth > 0) */
    uint32_t thread, depth;
    int stopped; /* 0: never stopped; ticks and self are unknown */
    int nested;
    uint64_t ticks, self, start;
};

/* One row of a summary table (FORMAT.md 1.4); hist holds nhist (bucket, count) pairs. */
struct prof_summary_rec {
    const char *region;
    size_t region_len;
    uint32_t region_id, thread;
    /* The row's calling-context node on its thread (from 1) and its parent's (0: top level);
       node 0: a version 1 or 2 row, the region's whole account with no path */
    uint32_t node, parent;
    uint64_t calls, ticks, self, min, max, outer;
    double sumsq;
    /* Version 4 (FORMAT.md 1.4): CPU-time samples charged to this context, the calls whose wall
       time was measured (Min, Max, SumSquares and Histogram describe those) and the sum of
       their wall ticks. An older row has 0, calls and ticks. */
    uint64_t samples, timed, wall;
    const uint32_t *hist_bucket;
    const uint64_t *hist_count;
    size_t nhist;
};

/* One row of the memory section (FORMAT.md 1.5). Text is NUL-terminated; NULL is empty. */
struct prof_memory_rec {
    int kind;                      /* enum prof_memory_kind */
    int alloc_kind, free_kind;     /* enum prof_mem_kind, or -1 (empty) */
    uint32_t thread, other_thread; /* 0: empty */
    const char *region;            /* region_len bytes */
    size_t region_len;
    const char *site, *other_site;
    const char *function, *stack; /* the site's function; the allocation's stack (leaks) */
    uint64_t count, bytes;
};

/* Where the records go, in the order of the run file: meta records, then table once, then for
   each part in thread order part, its ids and its rows, then the memory rows, then (events runs
   past PROFILER_MAX_EVENTS) section and the summary rows. Any may be NULL. */
struct prof_run_sink {
    void *ctx;
    /* A metadata record: fields[0] is the key (Frequency and Format first); each field has a
       NUL at [lens[i]]. */
    void (*meta)(void *ctx, const char *const *fields, const size_t *lens, size_t n);
    /* The table's header: summary or events rows follow. */
    void (*table)(void *ctx, int summary);
    /* The rows of thread number thread follow, with ids of their own. */
    void (*part)(void *ctx, uint32_t thread);
    /* The part's id index id is text[0..len). */
    void (*id)(void *ctx, uint32_t id, const char *text, size_t len);
    void (*event)(void *ctx, const struct prof_event_rec *e);
    void (*summary)(void *ctx, const struct prof_summary_rec *s);
    void (*memory)(void *ctx, const struct prof_memory_rec *m);
    /* Whether the sink failed (memory, output): checked after each part; NULL: never. */
    enum prof_error (*status)(void *ctx);
    /* A section follows the memory section: PROF_SUMMARY_SECTION, the instances of an events
       run past PROFILER_MAX_EVENTS, whose rows come through summary. */
    void (*section)(void *ctx, const char *name);
};

/* Run-level facts that the finishing process knows better than its parts. */
struct prof_run_override {
    uint64_t frequency; /* 0: keep the parts' */
    uint64_t duration;  /* ticks */
    int complete;
    const char *header; /* the run's header pairs (as in a PRFH chunk), used before the parts' */
    size_t header_len;
    const struct prof_memory_rec *memory; /* the run's memory findings, or NULL */
    size_t nmemory;
    /* One readable descriptor per path, the part read through it and never opened by name (so
       a part removed or swapped after the collector made it is read, or not at all), or NULL:
       open the paths. The descriptors stay the caller's, their offsets untouched. */
    const int *fds;
};

/* What the first pass over a run's parts learned. */
struct prof_parts;

/*
 * Read the parts (a run's, in any order) for what the metadata must say: threads, warnings,
 * completeness. With ov NULL (a killed run), the metadata comes from the first readable part
 * and the run is complete only if every part ended cleanly. PROF_ERR_FORMAT when paths name
 * parts but none is readable; PROF_ERR_NOMEM.
 */
enum prof_error prof_parts_open(const char *const *paths, size_t count,
                                const struct prof_run_override *ov, struct prof_parts **out);
/* Hand the run file's records to sink, threads in the order of their numbers (second pass).
   PROF_ERR_NOMEM, or the sink's status. */
enum prof_error prof_parts_emit(struct prof_parts *p, const struct prof_run_sink *sink);
void prof_parts_free(struct prof_parts *p);

/*
 * Pass two in two halves, for two threads. The events rows of the parts that came after
 * prof_parts_open's pass one are cut in two: at the start of a part, or at the place near its
 * middle where pass one kept the replay's state. The rows before the cut, and every other
 * record, come from prof_parts_emit_head; the rows after it from prof_parts_emit_tail, which
 * may run on another thread at the same time. Their records, the tail's put where the head
 * calls join, are those of prof_parts_emit, in the same order.
 */
struct prof_parts_cut {
    size_t at;              /* the part (in thread order) where the tail begins */
    uint64_t chunks;        /* its events chunks before the cut; 0: the cut is at its start */
    uint64_t before, after; /* the parts' bytes on each side */
};
/* Choose the cut nearest the middle of the parts' bytes: 1, or 0 when there is none (a summary
   run, one part with no place to cut, damage after every place). */
int prof_parts_cut(struct prof_parts *p, struct prof_parts_cut *cut);
/* The head: every record before the cut, then join(ctx) (its error ends the emission), then
   the memory and summary sections. PROF_ERR_NOMEM, the sink's status or join's error. */
enum prof_error prof_parts_emit_head(struct prof_parts *p, const struct prof_run_sink *sink,
                                     const struct prof_parts_cut *cut,
                                     enum prof_error (*join)(void *ctx), void *ctx);
/* The tail: for each part from the cut on, its part and id records and the events rows after
   the cut. PROF_ERR_NOMEM or the sink's status. */
enum prof_error prof_parts_emit_tail(struct prof_parts *p, const struct prof_run_sink *sink,
                                     const struct prof_parts_cut *cut);

#endif /* PROF_ASSEMBLE_H */
