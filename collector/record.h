/*
 * record.h - the hot path's building blocks, shared by the region API (thread.c) and the
 * function hooks (auto.c): the thread's recorder, its id table lookup and the event records.
 */
#ifndef PROF_RECORD_H
#define PROF_RECORD_H

#include "internal.h"

/* The calling thread's recorder; initial-exec: one instruction to reach it. */
extern __thread struct prof_thread *prof_self __attribute__((tls_model("initial-exec")))
PROF_INTERNAL;

/* Slot index of the id table meaning "filtered out: record nothing" (function hooks only). */
#define PROF_IDX_SKIP 0xfffffffeu

/* thread.c: a key seen for the first time on this thread; fn is NULL for a region id text. */
uint32_t prof_id_add(struct prof_thread *t, const void *key, const struct prof_fn *fn);
/* thread.c, summary mode: push a region or function at depth d (counted when it stops). */
void prof_summary_start(struct prof_thread *t, const void *id, const struct prof_fn *fn,
                        uint32_t idx, uint32_t d);
/* thread.c, summary mode: close the frame at depth d at time now. */
void prof_summary_stop(struct prof_thread *t, uint32_t d, uint64_t now);
/* thread.c: write the buffer (full, or its flush deadline passed) and start it again. */
void prof_thread_flush(struct prof_thread *t);
/* thread.c, summary mode: write a snapshot of the statistics (the flush deadline passed). */
void prof_thread_snapshot(struct prof_thread *t, uint64_t now);

/* Summary mode, after a stop at time now: a snapshot when the flush deadline has passed. In
   the callers, where now is in a register already, not in prof_summary_stop. */
static inline void prof_summary_due(struct prof_thread *t, uint64_t now)
{
    if (PROF_UNLIKELY(now >= t->flush_at))
        prof_thread_snapshot(t, now);
}

/* Slot of key in a table of mask + 1 entries: pointer bits mixed by a Fibonacci multiplier. */
static inline uint32_t prof_slot_of(const void *key, uint32_t mask)
{
    return (uint32_t)(((uintptr_t)key * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

/* The index of key on this thread (UINT32_MAX when out of memory): usually one probe. */
static inline uint32_t prof_id_find(struct prof_thread *t, const void *key, uint32_t *slot)
{
    for (uint32_t h = prof_slot_of(key, t->mask);; h = (h + 1) & t->mask) {
        const struct prof_idslot *s = &t->slots[h];
        if (PROF_LIKELY(s->key == key))
            return s->idx;
        if (!s->key) {
            *slot = h;
            return UINT32_MAX;
        }
    }
}

/* Events mode: append an enter record at time now. */
static inline void prof_put_enter(struct prof_thread *t, uint32_t idx, uint64_t now)
{
    uint64_t gap = now - t->last;
    t->last = now;
    uint32_t *w = t->buf + t->pos, n = 2;
    if (PROF_UNLIKELY(gap > UINT32_MAX)) {
        w[0] = PROF_W_LONG;
        w[1] = (uint32_t)(gap >> 32);
        w[2] = (uint32_t)gap;
        w += 3;
        n += 3;
        gap = 0;
    }
    w[0] = idx;
    w[1] = (uint32_t)gap;
    __atomic_store_n(&t->pos, t->pos + n, __ATOMIC_RELEASE);
}

/* Events mode: append an exit (or stray-stop) record at time now. */
static inline void prof_put_exit(struct prof_thread *t, uint64_t now, int stray)
{
    uint64_t gap = now - t->last;
    t->last = now;
    uint32_t *w = t->buf + t->pos, n = 0;
    if (PROF_UNLIKELY(gap > (stray ? UINT32_MAX : 0x7fffffffu))) {
        w[0] = PROF_W_LONG;
        w[1] = (uint32_t)(gap >> 32);
        w[2] = (uint32_t)gap;
        n = 3;
        gap = 0;
    }
    if (stray) {
        w[n++] = PROF_W_STRAY;
        w[n++] = (uint32_t)gap;
    } else {
        w[n++] = PROF_W_EXIT | (uint32_t)gap;
    }
    __atomic_store_n(&t->pos, t->pos + n, __ATOMIC_RELEASE);
}

/*
 * Events mode, before an enter record: write the buffer when it has no room for the largest
 * record, or when the last event came after the flush deadline (PROFILER_FLUSH_INTERVAL). Both
 * are tested before the clock is read, so the write is not counted inside the new region.
 */
static inline void prof_make_room(struct prof_thread *t)
{
    if (PROF_UNLIKELY(t->pos + 5 > PROF_BUFFER_WORDS || t->last >= t->flush_at))
        prof_thread_flush(t);
}

/* Events mode: close the innermost region at time now, writing the buffer first if full, and
   after the record when the flush deadline has passed (so the stop itself is written too). */
static inline void prof_record_exit(struct prof_thread *t, uint64_t now)
{
    if (PROF_UNLIKELY(now < t->last))
        now = t->last; /* never let a clock step back make a negative gap */
    if (PROF_UNLIKELY(t->pos + 4 > PROF_BUFFER_WORDS))
        prof_thread_flush(t);
    prof_put_exit(t, now, 0);
    if (PROF_UNLIKELY(now >= t->flush_at))
        prof_thread_flush(t);
}

#endif /* PROF_RECORD_H */
