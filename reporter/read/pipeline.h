/*
 * pipeline.h - pipeline.c: read the inputs into the model on two cores. A reader thread parses
 * the run files, one after the other, into batches of recorded calls (batch.h); the calling
 * thread replays them into the model in order, so the model sees the calls, problems and
 * warnings a one-thread reading gives, in the same order, and the report is the same.
 */
#ifndef PROFREPORT_PIPELINE_H
#define PROFREPORT_PIPELINE_H

#include "read/input.h"
#include "model/model.h"

#include <stddef.h>

/*
 * PROFREPORT_THREADS (cpus.h) "1": read on one thread; 2 or more: on two, whatever the inputs'
 * size and the CPUs. Unset (or not a number): on two when the inputs are large enough to pay
 * for the thread (PIPELINE_MIN_BYTES), more than one CPU is available to the process and one of
 * them is idle as the reading starts (fewer tasks runnable than CPUs, /proc/loadavg): a reader
 * thread that has to share its core with another program makes the reading slower, not faster
 * (bench/README.md has the figures).
 */
/* Run files smaller than this in all are read on one thread: starting the reader thread and
   handing batches over would cost more than it saves. */
#define PIPELINE_MIN_BYTES (4u << 20)
/* Bytes of recorded calls per batch handed over, and the most batches allocated at once. */
#define PIPELINE_BATCH_BYTES (1u << 20)
#define PIPELINE_BATCHES 4

/* Whether pipeline_read would read in[0..n) on two threads. */
int pipeline_wanted(const struct input *in, size_t n);
/* Read in[0..n) into m in order, as input_read_counted does one by one (p may be NULL). */
void pipeline_read(const struct input *in, size_t n, struct model *m,
                   const struct input_progress *p);

#endif /* PROFREPORT_PIPELINE_H */
