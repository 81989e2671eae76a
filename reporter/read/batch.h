/*
 * batch.h - batch.c: a run_handler's calls recorded into batches of bytes (strings copied in)
 * and replayed later, in the same order and with the same arguments, into another run_handler:
 * how a parser on one thread feeds the model on another (pipeline.h).
 *
 * Ownership: a recorder writes into the batches its swap function hands it and never frees
 * them; a cursor reads the batches its next function hands it and gives each back through its
 * done function once read (or when released). The pointers a replayed call receives are valid
 * during the call.
 */
#ifndef PROFREPORT_BATCH_H
#define PROFREPORT_BATCH_H

#include "base/rep_error.h"
#include "read/runfile.h"

#include <stddef.h>
#include <stdint.h>

/* A batch of recorded calls: len bytes used of cap. Records never straddle two batches. */
struct run_batch {
    char *buf;
    size_t len, cap;
    struct run_batch *next; /* for the owner's queues */
};

/* A new empty batch of cap bytes (it grows for a record larger than that). */
struct run_batch *batch_new(size_t cap);
void batch_free(struct run_batch *b);

/*
 * Records the calls of one or more runs. h is the run_handler to give a run_reader; its stop
 * callback is recorded and answers 0, so the reader goes on reading: the replay asks the real
 * handler and, when it says stop, leaves out the rest of the run (batch_replay_run).
 */
struct batch_recorder {
    struct run_handler h;
    struct run_batch *cur;
    size_t limit; /* hand cur over once it holds this many bytes */
    /* Takes a full batch (the recorder no longer touches it) and returns an empty one. */
    struct run_batch *(*swap)(void *ctx, struct run_batch *full);
    void *ctx;
    /*
     * Set (after batch_recorder_init): events are replayed with region_id and parent_id
     * numbering their texts, the same number for the same bytes in every run this recorder
     * records (runfile.h: the model then looks each id up once), and each text is recorded
     * once. Clear: region_id and parent_id are replayed as they were given.
     */
    int number_ids;
    struct batch_ids {
        uint64_t *slots; /* open addressing: the number, the hash's high bits above it */
        size_t mask;
        char **text; /* number - 1 -> a copy of the text */
        size_t *len;
        uint32_t n, cap;
        uint32_t last; /* the number given last (0: none): rows often repeat a name */
    } ids;
};

/* Set up r to record into first, handing batches over through swap past limit bytes. */
void batch_recorder_init(struct batch_recorder *r, struct run_batch *first, size_t limit,
                         struct run_batch *(*swap)(void *ctx, struct run_batch *full), void *ctx);
/* Free what r keeps (the texts it numbered); not the batches. */
void batch_recorder_release(struct batch_recorder *r);
/* Record a mark: a word of the caller's between runs (how an input was opened, say). */
void batch_record_mark(struct batch_recorder *r, uint32_t code, int64_t value);
/* Record bytes read from a run file, for a progress bar (replayed through the cursor). */
void batch_record_progress(struct batch_recorder *r, uint64_t bytes);
/* Record the end of a run: what its run_reader returned (why may be NULL: no reason). */
void batch_record_end(struct batch_recorder *r, enum run_status st, const struct rep_error *why,
                      unsigned long line);
/* Hand the batch being written over through swap, if it holds anything. */
void batch_record_flush(struct batch_recorder *r);

/* Reads recorded calls back, batch after batch. */
struct batch_cursor {
    struct run_batch *b; /* the batch being read, or NULL before the first */
    size_t pos;
    /* The next batch in recorded order (it waits for one), and a batch read to its end. */
    struct run_batch *(*next)(void *ctx);
    void (*done)(void *ctx, struct run_batch *b);
    void *ctx;
    /* Told of recorded progress (NULL: ignored) and, when the handler stops a run, that the
       rest of it is not wanted (NULL: nobody to tell). */
    void (*progress)(void *ctx, uint64_t bytes);
    void (*stopped)(void *ctx);
    /* The texts of the recorder's numbers (number - 1 -> NUL-terminated copy). */
    char **ids;
    size_t *ids_len;
    size_t nids, ids_cap;
    /* Room for the pointers of a replayed call. */
    const char **fptr;
    size_t *flen;
    size_t fcap;
    uint32_t *hist_bucket;
    uint64_t *hist_count;
    size_t hist_cap;
};

/* Set up c to read the batches next hands it, giving each back to done. */
void batch_cursor_init(struct batch_cursor *c, struct run_batch *(*next)(void *ctx),
                       void (*done)(void *ctx, struct run_batch *b), void *ctx);
/* Give the batch being read back to done and free c's room. */
void batch_cursor_release(struct batch_cursor *c);
/* The next record, which must be a mark: its code, and its value in *value. */
uint32_t batch_take_mark(struct batch_cursor *c, int64_t *value);
/*
 * A run_reader (src: a struct batch_cursor): replay the next run's calls into h, up to its
 * end, and return what its reader returned. When h's stop callback says stop, the rest of the
 * run is left out and the run reads as runfile_parse reads a run its handler stopped:
 * RUNFILE_OK, why cleared, line 0.
 */
enum run_status batch_replay_run(void *src, const struct run_handler *h, struct rep_error *why,
                                 unsigned long *line);

#endif /* PROFREPORT_BATCH_H */
