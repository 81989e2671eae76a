/*
 * replay.c - turn a part's event words back into region instances: depth, parent, self time,
 * start and recursion are rebuilt here with a stack, so the hot path records none of them.
 */
#include "replay.h"

#include <stdlib.h>
#include <string.h>

/* Start a replay that hands each finished instance to emit(ctx, row). */
void prof_replay_init(struct prof_replay *r, prof_row_fn emit, void *ctx)
{
    memset(r, 0, sizeof *r);
    r->emit = emit;
    r->ctx = ctx;
}

/* Words in the record that starts with w, or 0 for a reserved word. */
static size_t record_words(uint32_t w)
{
    if (w & PROF_W_EXIT)
        return 1;
    if (w == PROF_W_LONG || w == PROF_W_HIDDEN)
        return 3;
    if (w == PROF_W_STRAY || w < PROF_W_MAX_ID)
        return 2;
    return 0;
}

/* Open region id at the current clock. */
static inline __attribute__((always_inline)) enum prof_error enter(struct prof_replay *r,
                                                                   uint32_t id)
{
    if (id >= r->nids)
        return PROF_ERR_FORMAT;
    if (r->depth == r->cap) {
        size_t cap = r->cap ? r->cap * 2 : 64;
        struct prof_replay_frame *s = realloc(r->stack, cap * sizeof *s);
        if (!s)
            return PROF_ERR_NOMEM;
        r->stack = s;
        r->cap = cap;
    }
    if (r->scan) {
        /* A scan needs the open regions' ids, for those never stopped, and nothing else. */
        struct prof_replay_frame *f = &r->stack[r->depth++];
        f->id = id;
        f->start = r->clock;
        f->child = 0;
        f->nested = 0;
        return PROF_OK;
    }
    if (id >= r->open_cap) {
        size_t cap = r->open_cap ? r->open_cap : 64;
        while (cap <= id)
            cap *= 2;
        uint32_t *o = realloc(r->open, cap * sizeof *o);
        if (!o)
            return PROF_ERR_NOMEM;
        memset(o + r->open_cap, 0, (cap - r->open_cap) * sizeof *o);
        r->open = o;
        r->open_cap = cap;
    }
    /* Ids with the same text are one region: count open instances by the first such id. */
    uint32_t key = r->canon ? r->canon[id] : id;
    struct prof_replay_frame *f = &r->stack[r->depth++];
    f->id = id;
    f->start = r->clock;
    f->child = 0;
    f->nested = r->open[key] > 0;
    r->open[key]++;
    return PROF_OK;
}

/* Close the innermost region at the current clock and emit it. */
static inline __attribute__((always_inline)) void leave(struct prof_replay *r)
{
    if (r->depth == 0) {
        /* The collector records a stop with nothing open as a stray word; count it the same. */
        r->stray++;
        return;
    }
    if (r->scan) {
        /* The parent's child time too: a mark (prof_replay_mark) hands it to the second half. */
        struct prof_replay_frame *f = &r->stack[--r->depth];
        if (r->depth > 0)
            r->stack[r->depth - 1].child += r->clock - f->start;
        r->instances++;
        return;
    }
    struct prof_replay_frame *f = &r->stack[--r->depth];
    struct prof_row row = {0};
    row.id = f->id;
    row.depth = (uint32_t)r->depth;
    row.stopped = 1;
    row.nested = f->nested;
    row.start = f->start;
    row.ticks = r->clock - f->start;
    row.self = row.ticks >= f->child ? row.ticks - f->child : 0;
    if (r->depth > 0) {
        struct prof_replay_frame *p = &r->stack[r->depth - 1];
        row.parent = p->id;
        p->child += row.ticks;
    }
    r->open[r->canon ? r->canon[f->id] : f->id]--;
    r->instances++;
    if (r->emit)
        r->emit(r->ctx, &row);
}

/* Apply one complete record. Forced inline, with enter and leave, into the word loop: left to
   itself gcc keeps it out of line, with five registers saved and restored per record. */
static inline __attribute__((always_inline)) enum prof_error apply(struct prof_replay *r,
                                                                   const uint32_t *w)
{
    if (w[0] & PROF_W_EXIT) {
        r->clock += w[0] & ~PROF_W_EXIT;
        leave(r);
        return PROF_OK;
    }
    if (w[0] == PROF_W_LONG) {
        r->clock += (uint64_t)w[1] << 32 | w[2];
        return PROF_OK;
    }
    if (w[0] == PROF_W_HIDDEN) {
        /* Children not in the stream (PROFILER_MAX_EVENTS): their time is not self time. */
        if (r->depth > 0)
            r->stack[r->depth - 1].child += (uint64_t)w[1] << 32 | w[2];
        return PROF_OK;
    }
    r->clock += w[1];
    if (w[0] == PROF_W_STRAY) {
        r->stray++;
        return PROF_OK;
    }
    return enter(r, w[0]);
}

/* Replay n words; a record cut at the end is kept for the next call. */
enum prof_error prof_replay_words(struct prof_replay *r, const uint32_t *w, size_t n)
{
    size_t i = 0;
    while (r->npending > 0 && i < n) {
        r->pending[r->npending++] = w[i++];
        size_t need = record_words(r->pending[0]);
        if (need == 0)
            return PROF_ERR_FORMAT;
        if (r->npending == need) {
            r->npending = 0;
            enum prof_error e = apply(r, r->pending);
            if (e != PROF_OK)
                return e;
        }
    }
    while (i < n) {
        size_t need = record_words(w[i]);
        if (need == 0)
            return PROF_ERR_FORMAT;
        if (i + need > n) {
            while (i < n)
                r->pending[r->npending++] = w[i++];
            break;
        }
        enum prof_error e = apply(r, w + i);
        if (e != PROF_OK)
            return e;
        i += need;
    }
    return PROF_OK;
}

/* Emit the regions still open, innermost first, as never stopped. */
void prof_replay_finish(struct prof_replay *r)
{
    while (r->depth > 0) {
        struct prof_replay_frame *f = &r->stack[--r->depth];
        struct prof_row row = {0};
        row.id = f->id;
        row.depth = (uint32_t)r->depth;
        row.nested = f->nested;
        row.start = f->start;
        if (r->depth > 0)
            row.parent = r->stack[r->depth - 1].id;
        if (!r->scan)
            r->open[r->canon ? r->canon[f->id] : f->id]--;
        r->unterminated++;
        if (r->emit)
            r->emit(r->ctx, &row);
    }
    r->npending = 0;
}

/* Copy what a replay between two chunks needs to resume there. */
enum prof_error prof_replay_mark(const struct prof_replay *r, struct prof_replay_mark *m)
{
    memset(m, 0, sizeof *m);
    m->stack = malloc((r->depth ? r->depth : 1) * sizeof *m->stack);
    if (!m->stack)
        return PROF_ERR_NOMEM;
    if (r->depth)
        memcpy(m->stack, r->stack, r->depth * sizeof *m->stack);
    m->depth = r->depth;
    m->clock = r->clock;
    memcpy(m->pending, r->pending, sizeof m->pending);
    m->npending = r->npending;
    return PROF_OK;
}

/* Resume at a mark. The Nested counts are those of the open regions: an instance is nested
   when one with the same text (canon) is open below it, which the stack alone tells. */
enum prof_error prof_replay_resume(struct prof_replay *r, const struct prof_replay_mark *m)
{
    if (r->depth != 0 || r->npending != 0)
        return PROF_ERR_ARGUMENT;
    r->clock = m->clock;
    memcpy(r->pending, m->pending, sizeof r->pending);
    r->npending = m->npending;
    for (size_t i = 0; i < m->depth; i++) {
        enum prof_error e = enter(r, m->stack[i].id);
        if (e != PROF_OK)
            return e;
        r->stack[i].start = m->stack[i].start;
        r->stack[i].child = m->stack[i].child;
    }
    return PROF_OK;
}

/* Free a mark's copy of the stack. */
void prof_replay_mark_release(struct prof_replay_mark *m)
{
    free(m->stack);
    memset(m, 0, sizeof *m);
}

/* Free the replay's memory. */
void prof_replay_release(struct prof_replay *r)
{
    free(r->stack);
    free(r->open);
    r->stack = NULL;
    r->open = NULL;
    r->depth = r->cap = r->open_cap = 0;
}
