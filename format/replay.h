/*
 * replay.h - a part's event words (format.h's PROF_W_*) back into region instances (replay.c).
 *
 * A prof_replay owns its stack and counters (prof_replay_release frees them); canon is the
 * caller's and must outlive the replay.
 */
#ifndef PROF_REPLAY_H
#define PROF_REPLAY_H

#include "format.h"

#include <stddef.h>
#include <stdint.h>

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
    int scan; /* set after init: count only; rows are emitted by finish alone, Nested unknown */
    uint32_t pending[3]; /* a record split across chunks */
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

/* A replay's state between two chunks: enough for a second replay to go on from there and emit
   the rows the first would have emitted next (assemble.c's cut of a part in two). A scan's
   marks are as good as a full replay's. The mark owns its copy of the stack. */
struct prof_replay_mark {
    uint64_t clock;
    struct prof_replay_frame *stack; /* bottom first; nested is not kept */
    size_t depth;
    uint32_t pending[3];
    size_t npending;
};

/* Copy r's state into m (PROF_ERR_NOMEM). */
enum prof_error prof_replay_mark(const struct prof_replay *r, struct prof_replay_mark *m);
/* Give a replay that has read no words the state of m; its nids and canon must already cover
   the ids of m's open regions. PROF_ERR_FORMAT (an id it does not know), PROF_ERR_NOMEM. */
enum prof_error prof_replay_resume(struct prof_replay *r, const struct prof_replay_mark *m);
void prof_replay_mark_release(struct prof_replay_mark *m);

#endif /* PROF_REPLAY_H */
