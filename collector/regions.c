/*
 * regions.c - the region API on the calling thread: PROFILER_START and PROFILER_STOP (the hot
 * path, inlined over the recorder's building blocks of thread.h), PROFILER_SCOPE and
 * PROFILER_API tokens, and thread names. The slow path of every event is the run's
 * (prof_attach, run.c).
 */
#include "regions.h"

#include "hooks.h"
#include "live.h"
#include "run.h"
#include "thread.h"

#include <errno.h>
#include <stdint.h>

/* The live report counts the stops of regions: registered when regions are linked in. */
__attribute__((constructor(101))) static void register_live_report(void)
{
    prof_hooks_add(&prof_live_hooks);
}

/* The index of a region id text on this thread. */
static inline uint32_t id_index(struct prof_thread *t, const char *id)
{
    uint32_t slot, idx = prof_id_find(t, id, &slot);
    return PROF_LIKELY(idx != UINT32_MAX) ? idx : prof_id_add(t, id, NULL);
}

/* Open a region on the thread's current recorder (its generation marked busy). */
static inline __attribute__((always_inline)) void start_region(struct prof_thread *t,
                                                               const char *id)
{
    if (PROF_UNLIKELY(!id))
        id = "(null)";
    uint32_t idx = id_index(t, id);
    if (PROF_UNLIKELY(idx == UINT32_MAX)) {
        prof_fail("out of memory for region ids", NULL, ENOMEM);
        return;
    }
    uint32_t d = t->depth;
    PROF_STORE(t->depth, d + 1);
    if (t->mode == PROF_MODE_SUMMARY) {
        prof_summary_start(t, id, NULL, idx, d);
        return;
    }
    prof_make_room(t);
    uint64_t now = prof_ticks();
    if (PROF_UNLIKELY(now < t->last))
        now = t->last; /* never let a clock step back make a negative gap */
    prof_put_enter(t, idx, now);
    if (PROF_LIKELY(d < PROF_MAX_DEPTH)) {
        struct prof_frame *f = &t->stack[d];
        f->id = id;
        f->fn = NULL;
        f->idx = idx;
        f->serial = ++t->serial;
        f->start = now;
    }
}

/* Open a region. A signal handler that interrupts this on the same thread finds the
   generation busy and takes the slow path, which drops its event (status.h). */
void prof_start(const char *id)
{
    struct prof_thread *t = prof_current(prof_attach);
    if (PROF_UNLIKELY(!t))
        return;
    prof_busy_mark(t);
    start_region(t, id);
    prof_busy_unmark(t);
}

/* Close the innermost open region of the thread's current recorder (marked busy). */
static inline __attribute__((always_inline)) void stop_region(struct prof_thread *t)
{
    uint64_t now = prof_ticks();
    uint32_t d = t->depth;
    if (PROF_UNLIKELY(d == 0)) {
        PROF_STORE(t->stray, t->stray + 1);
        if (t->mode == PROF_MODE_EVENTS) {
            if (t->pos + 5 > PROF_BUFFER_WORDS)
                prof_thread_flush(t);
            prof_put_exit(t, now < t->last ? t->last : now, 1);
        }
        return;
    }
    PROF_STORE(t->depth, d - 1);
    if (PROF_UNLIKELY(t->on_stop))
        t->on_stop(t, d - 1, now);
    if (t->mode == PROF_MODE_SUMMARY) {
        prof_summary_stop(t, d - 1, now);
        prof_summary_due(t, now);
        return;
    }
    prof_record_exit(t, now);
}

/* Close the innermost open region (a handler interrupting it is dropped, as in prof_start). */
void prof_stop(void)
{
    struct prof_thread *t = prof_current(prof_attach);
    if (PROF_UNLIKELY(!t))
        return;
    prof_busy_mark(t);
    stop_region(t);
    prof_busy_unmark(t);
}

/* A scope token whose start was dropped (a signal handler interrupted the collector). */
#define PROF_SCOPE_DROPPED (~0u - 1)

/* Open a region for PROFILER_SCOPE and name it by depth and instance. */
struct prof_scope prof_scope_begin(const char *id)
{
    struct prof_scope tok = {~0u, 0, {NULL, NULL}};
    prof_start(id);
    struct prof_thread *t = prof_self;
    if (PROF_UNLIKELY(!t || t->gen != PROF_LOAD(prof_gen) || t->depth == 0)) {
        if (t && (t->gen & PROF_GEN_BUSY))
            tok.depth = PROF_SCOPE_DROPPED; /* its end is dropped too */
        return tok;
    }
    tok.depth = t->depth - 1;
    if (tok.depth < PROF_MAX_DEPTH)
        tok.serial = t->stack[tok.depth].serial;
    return tok;
}

/* Close a PROFILER_SCOPE region and whatever was left open inside it (see profreport.h). */
void prof_scope_end(const struct prof_scope *tok)
{
    struct prof_thread *t = prof_self;
    if (tok && tok->depth == PROF_SCOPE_DROPPED) {
        prof_dropped_event();
        return;
    }
    if (!tok || tok->depth == ~0u || !t)
        return;
    if (t->gen != PROF_LOAD(prof_gen) && !(t = prof_resync()))
        return; /* the run it was opened in has ended */
    /* Still open: at its depth, the same instance (beyond the stack, trust the depth alone). */
    int open = t->depth > tok->depth &&
               (tok->depth >= PROF_MAX_DEPTH || t->stack[tok->depth].serial == tok->serial);
    if (!open || t->depth > tok->depth + 1)
        PROF_STORE(t->mismatch, t->mismatch + 1);
    if (!open)
        return;
    while (t->depth > tok->depth)
        prof_stop();
}

/* Enter a profiled module: its region opens only at the thread's outermost entry. */
struct prof_api_scope prof_api_enter(const struct prof_api *api, unsigned *nesting)
{
    struct prof_api_scope s = {nesting, {~0u, 0, {NULL, NULL}}, {NULL}};
    if (!api || !nesting)
        return s;
    if ((*nesting)++ == 0)
        s.scope = prof_scope_begin(api->name);
    return s;
}

/* Leave a profiled module: the outermost exit closes its region. */
void prof_api_leave(const struct prof_api_scope *s)
{
    if (!s || !s->nesting)
        return;
    (*s->nesting)--;
    prof_scope_end(&s->scope);
}

/* Name the calling thread: at once in its part when it records, else at its first region. */
void prof_thread_name(const char *name)
{
    struct prof_thread *t = prof_self;
    /* A signal handler must not take the lock the collector may hold. */
    if (!name || prof_busy || (t && (t->gen & PROF_GEN_BUSY)))
        return;
    if (t && t->gen != PROF_LOAD(prof_gen))
        prof_resync(); /* still in the run after a dlclose: the name goes to the part now */
    if (!t || t->gen != PROF_LOAD(prof_gen))
        prof_thread_name_later(t, name);
    else
        prof_thread_rename(t, name);
}
