/*
 * internal.h - what every collector module shares and no one module owns: branch hints, the
 * relaxed atomics of fields read across threads, and the hidden-visibility marker; never
 * installed.
 *
 * Each module declares its own functions in the header beside it (thread.h, run.h, status.h,
 * ...): include those for the modules you call. The sections below, csvout.c to assemble.c,
 * are the run-file format's and move to the format module.
 *
 * The library is built with -fvisibility=hidden, so everything declared in these headers stays
 * inside libprofreport even though the names carry the prof_ prefix.
 */
#ifndef PROF_INTERNAL_H
#define PROF_INTERNAL_H

#include "profreport.h"

#include <stdint.h>
#include <stdio.h>

#define PROF_LIKELY(x) __builtin_expect(!!(x), 1)
#define PROF_UNLIKELY(x) __builtin_expect(!!(x), 0)

/*
 * Fields one thread writes and prof_finish reads from another thread use relaxed atomics: they
 * compile to plain moves on x86-64 and ARM64 but make the sharing well defined (and TSan-clean).
 */
#define PROF_LOAD(x) __atomic_load_n(&(x), __ATOMIC_RELAXED)
#define PROF_STORE(x, v) __atomic_store_n(&(x), (v), __ATOMIC_RELAXED)

/* Declarations of library-internal data: hidden, so PIC code reaches them without the GOT. */
#define PROF_INTERNAL __attribute__((visibility("hidden")))

/* ---- csvout.c: growable text buffers and RFC 4180 fields ---- */

/* A growable byte string; failed is set (and further appends ignored) when memory runs out. */
struct prof_sbuf {
    char *data;
    size_t len, cap;
    int failed;
};

void prof_sbuf_add(struct prof_sbuf *b, const char *s, size_t n);
void prof_sbuf_str(struct prof_sbuf *b, const char *s);
void prof_sbuf_char(struct prof_sbuf *b, char c);
void prof_sbuf_u64(struct prof_sbuf *b, uint64_t v);
/* Room for n more bytes: where to write them (then add n to len), or NULL when out of memory. */
char *prof_sbuf_grow(struct prof_sbuf *b, size_t n);
/* Write v in decimal at p (at most 20 bytes); returns the end. */
char *prof_u64_put(char *p, uint64_t v);
void prof_sbuf_double(struct prof_sbuf *b, double v);
/* Append s[0..n) as one CSV field, quoted when it holds a comma, quote, CR or LF. */
void prof_sbuf_field(struct prof_sbuf *b, const char *s, size_t n);
void prof_sbuf_release(struct prof_sbuf *b);

/* ---- hist.c: log-linear histogram and per-region summary statistics ---- */

#define PROF_HIST_BUCKETS 496

/* The histogram bucket of a tick value (docs/FORMAT.md, section 1.4). */
unsigned prof_hist_bucket(uint64_t v);
/* The smallest value that falls in bucket b. */
uint64_t prof_hist_lower(unsigned b);

/*
 * One region's statistics on one thread (summary mode). Written by the owning thread, read by
 * prof_finish from another thread, hence the relaxed atomics in prof_stats_add.
 */
struct prof_stats {
    uint64_t calls, ticks, self, min, max, outer;
    double sumsq;
    uint32_t active; /* instances open right now: recursion depth of this region */
    uint64_t hist[PROF_HIST_BUCKETS];
};

void prof_stats_reset(struct prof_stats *s);
/* Count one completed instance; outermost is nonzero when no enclosing instance has this id. */
void prof_stats_add(struct prof_stats *s, uint64_t ticks, uint64_t self, int outermost);
/* prof_stats_add in two halves: everything but the histogram, and the histogram alone. */
static inline void prof_stats_count(struct prof_stats *s, uint64_t ticks, uint64_t self,
                                    int outermost)
{
    /* Inline: it runs on every summary-mode stop. Only the owner writes (see prof_stats). */
    PROF_STORE(s->calls, s->calls + 1);
    PROF_STORE(s->ticks, s->ticks + ticks);
    PROF_STORE(s->self, s->self + self);
    if (ticks < s->min)
        PROF_STORE(s->min, ticks);
    if (ticks > s->max)
        PROF_STORE(s->max, ticks);
    if (outermost)
        PROF_STORE(s->outer, s->outer + ticks);
    double sq = s->sumsq + (double)ticks * (double)ticks;
    __atomic_store(&s->sumsq, &sq, __ATOMIC_RELAXED);
}
void prof_stats_hist(struct prof_stats *s, uint64_t ticks);
/* Append the summary-table row of s for region id on thread number thread (no newline). */
void prof_stats_format(struct prof_sbuf *b, const char *id, unsigned thread,
                       const struct prof_stats *s);

/* ---- part.c: chunks of the temporary files ---- */

#define PROF_CHUNK(a, b, c, d)                                                                     \
    ((uint32_t)(a) | (uint32_t)(b) << 8 | (uint32_t)(c) << 16 | (uint32_t)(d) << 24)
#define PROF_CHUNK_HEADER PROF_CHUNK('P', 'R', 'F', 'H')
#define PROF_CHUNK_IDS PROF_CHUNK('P', 'R', 'F', 'I')
#define PROF_CHUNK_EVENTS PROF_CHUNK('P', 'R', 'F', 'E')
#define PROF_CHUNK_NAME PROF_CHUNK('P', 'R', 'F', 'N')
#define PROF_CHUNK_WARNING PROF_CHUNK('P', 'R', 'F', 'W')
#define PROF_CHUNK_SUMMARY PROF_CHUNK('P', 'R', 'F', 'S')
#define PROF_CHUNK_SNAPSHOT PROF_CHUNK('P', 'R', 'F', 'P')
#define PROF_CHUNK_END PROF_CHUNK('P', 'R', 'F', 'Z')
#define PROF_CHUNK_LOCATIONS PROF_CHUNK('P', 'R', 'F', 'L')
#define PROF_CHUNK_MEMORY PROF_CHUNK('P', 'R', 'F', 'M')

/* Event words (docs/FORMAT.md, section 3). */
#define PROF_W_EXIT 0x80000000u
#define PROF_W_LONG 0x7fffffffu
#define PROF_W_STRAY 0x7ffffffeu
#define PROF_W_MAX_ID 0x7ffffff0u

/* Write one chunk with a single writev; returns 0 or an errno value. */
int prof_part_write(int fd, uint32_t type, const void *payload, size_t len);
/* Write two payload pieces as one chunk (one writev); returns 0 or an errno value. */
int prof_part_write2(int fd, uint32_t type, const void *a, size_t alen, const void *b, size_t blen);

/* Reads a part file chunk by chunk; the payload buffer is owned by the reader. */
struct prof_part_reader {
    FILE *f;
    unsigned char *payload;
    size_t cap;
    int truncated; /* set when the last chunk was cut short (killed run) */
};

/* Read the next chunk: 1 and type/payload/len set, 0 at the end, -1 on a read error. */
int prof_part_next(struct prof_part_reader *r, uint32_t *type, const unsigned char **payload,
                   size_t *len);
void prof_part_reader_release(struct prof_part_reader *r);

/* ---- replay.c: event words back into region instances ---- */

/* One region instance as the events table writes it (docs/FORMAT.md, section 1.3). */
struct prof_row {
    uint32_t id, parent; /* indexes into the part's ids; parent valid when depth > 0 */
    uint32_t depth;
    int stopped; /* 0: never stopped, ticks and self are unknown */
    int nested;
    uint64_t ticks, self, start;
};

typedef void (*prof_row_fn)(void *ctx, const struct prof_row *row);

struct prof_replay_frame {
    uint32_t id;
    uint64_t start, child;
    int nested;
};

/* The state of one thread's replay; feed words, then finish. */
struct prof_replay {
    uint64_t clock;
    struct prof_replay_frame *stack;
    size_t depth, cap;
    uint32_t *open; /* per id: instances open now, for the Nested column */
    size_t open_cap;
    uint64_t stray, unterminated, instances;
    uint32_t nids;         /* ids defined so far: an enter of a larger id is malformed */
    const uint32_t *canon; /* optional: id -> first id with the same text, for Nested */
    uint32_t pending[3];   /* a record split across chunks */
    size_t npending;
    prof_row_fn emit;
    void *ctx;
};

void prof_replay_init(struct prof_replay *r, prof_row_fn emit, void *ctx);
/* Replay n words; returns PROF_OK, PROF_ERR_FORMAT (bad word) or PROF_ERR_NOMEM. */
enum prof_error prof_replay_words(struct prof_replay *r, const uint32_t *w, size_t n);
/* Emit the regions still open as never stopped. */
void prof_replay_finish(struct prof_replay *r);
void prof_replay_release(struct prof_replay *r);

/* ---- assemble.c: part files into one run file ---- */

/* Run-level facts that the finishing process knows better than its parts. */
struct prof_run_override {
    uint64_t frequency; /* 0: keep the parts' */
    uint64_t duration;  /* ticks */
    int complete;
    const char *header; /* the run's header pairs (as in a PRFH chunk), used before the parts' */
    size_t header_len;
    const char *memory; /* memory findings: rows of the memory section (memcheck.c), or NULL */
    size_t memory_len;
};

/*
 * Write the run file for the given parts to out, threads in the order of their numbers. With
 * ov NULL (recovery), the metadata comes from the first readable part and the run is complete
 * only if every part ended cleanly.
 */
enum prof_error prof_assemble(const char *const *paths, size_t count, FILE *out,
                              const struct prof_run_override *ov);

#endif /* PROF_INTERNAL_H */
