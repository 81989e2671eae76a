/*
 * summary.h - the binary summary records of PRFS and PRFP chunks (docs/FORMAT.md 3; layout in
 * format.h): encoded by the recording thread, decoded when the run file is assembled or read.
 */
#ifndef PROF_SUMMARY_H
#define PROF_SUMMARY_H

#include "format.h"
#include "hist.h"
#include "strbuf.h"

#include <stddef.h>
#include <stdint.h>

/* One calling context's statistics on one thread: every column of FORMAT.md 1.4 but the
   histogram. */
struct prof_summary_counts {
    uint32_t id; /* index into the part's ids */
    uint64_t calls, ticks, self, min, max, outer;
    double sumsq;
    uint32_t node, parent; /* Node and Parent; both 0 in a version 2 record */
    /* Samples, Timed and Wall; a version 2 or 3 record reads as 0, calls and ticks */
    uint64_t samples, timed, wall;
};

/* Append the record of c and its histogram (PROF_HIST_BUCKETS counts, empty ones left out). */
void prof_summary_encode(struct prof_sbuf *b, const struct prof_summary_counts *c,
                         const uint64_t *hist);
/* The same record from its n non-empty buckets (ascending, none empty), as the decoder gives
   them back: for a writer that knows them without scanning all PROF_HIST_BUCKETS. */
void prof_summary_encode_pairs(struct prof_sbuf *b, const struct prof_summary_counts *c,
                               const uint32_t *bucket, const uint64_t *count, uint32_t n);

/*
 * Decode the record at *off of a chunk's payload p[0..len), of a part of the given version (2:
 * no node and parent, which read as 0; 3: no samples, timed and wall, which read as 0, calls
 * and ticks; 4), and move *off past it. Its non-empty
 * buckets go to bucket[] and count[] (room for PROF_HIST_BUCKETS each), their number to *nhist.
 * PROF_ERR_FORMAT when the record is cut short or holds what no writer writes: a bucket out of
 * range, or a SumSquares that is negative or not finite.
 */
enum prof_error prof_summary_decode(const unsigned char *p, size_t len, size_t *off,
                                    unsigned version, struct prof_summary_counts *c,
                                    uint32_t *bucket, uint64_t *count, size_t *nhist);

#endif /* PROF_SUMMARY_H */
