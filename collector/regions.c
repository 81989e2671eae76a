/*
 * regions.c - the region API on the calling thread: PROFILER_START and PROFILER_STOP (the hot
 * path, inlined over the recorder's building blocks of thread.h), PROFILER_SCOPE and
 * PROFILER_API tokens, and thread names. The slow path of every event is the run's
 * (prof_attach, run.c).
 */
#include "regions.h"

#include "crash.h"
#include "hooks.h"
#include "live.h"
#include "run.h"
#include "thread.h"

#include <errno.h>
#include <stdint.h>

/* The live report counts the stops of regions, and a crash writes what they recorded:
   registered when regions are linked in. */
__attribute__((constructor(101))) static void register_live_report(void)
{
    prof_hooks_add(&prof_live_hooks);
    prof_hooks_add(&prof_crash_hooks);
}

/* The index of a region id text on this thread. */
static inline uint32_t id_index(struct prof_thread *t, const char *id)
{
    uint32_t slot, idx = prof_id_find(t, id, &slot);
    return PROF_LIKELY(idx != UINT32_MAX) ? idx : prof_id_add(t, id, NULL);
}

/* Open a region on the thread's current recorder (its generation marked busy), at stack
   position where (PROF_WHERE_NONE for a region placed by hand), for the stack frame whose
   stack pointer is origin. */
static inline __attribute__((always_inline)) void
start_region(struct prof_thread *t, const char *id, uintptr_t where, uintptr_t origin)
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
        uint32_t cap = t->stack_cap;
        if (PROF_LIKELY(d < cap))
            t->stack[d].origin = origin; /* before the clock is read */
        prof_summary_start(t, id, NULL, idx, d, where);
        if (PROF_UNLIKELY(d >= cap) && d < t->stack_cap) /* the stack grew (else folded) */
            t->stack[d].origin = origin;
        return;
    }
    prof_make_room(t);
    uint64_t now = prof_ticks();
    if (PROF_UNLIKELY(now < t->last))
        now = t->last; /* never let a clock step back make a negative gap */
    prof_put_enter(t, idx, now);
    if (PROF_LIKELY(d < t->stack_cap) || prof_stack_grow(t) == 0) {
        struct prof_frame *f = &t->stack[d];
        f->id = id;
        f->fn = NULL;
        f->idx = idx;
        f->serial = ++t->serial;
        f->where = where;
        f->origin = origin;
        f->start = now;
    }
}

/* Open a region. A signal handler that interrupts this on the same thread finds the
   generation busy and takes the slow path, which drops its event (status.h). Regions a
   longjmp left above the caller are closed first. */
void prof_start(const char *id)
{
    uintptr_t here = PROF_CALLER_SP();
    struct prof_thread *t = prof_current(prof_attach);
    if (PROF_UNLIKELY(!t))
        return;
    prof_busy_mark(t);
    prof_unwound_check(t, here);
    start_region(t, id, PROF_WHERE_NONE, here);
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

/* Close the innermost open region (a handler interrupting it is dropped, as in prof_start),
   after those a longjmp left. */
void prof_stop(void)
{
    uintptr_t here = PROF_CALLER_SP();
    struct prof_thread *t = prof_current(prof_attach);
    if (PROF_UNLIKELY(!t))
        return;
    prof_busy_mark(t);
    prof_unwound_check(t, here);
    stop_region(t);
    prof_busy_unmark(t);
}

/* The cold half of unwound_check_at. */
static __attribute__((noinline, cold)) void close_left_at(struct prof_thread *t, uintptr_t here,
                                                          uintptr_t where)
{
    prof_close_unwound(t, here, where == PROF_WHERE_NONE ? 0 : where);
    if (where != PROF_WHERE_NONE)
        prof_close_reused(t, here, where, NULL, NULL);
}

/*
 * Before a scope whose token lives at where opens, from stack position here: close the
 * innermost frames a longjmp left (prof_unwound_check), and a region whose token was where the
 * new one is, with the regions opened after it (the same block entered again after a longjmp
 * out of it: its token shares the stack frame with others when the compiler inlined it,
 * prof_close_reused). Only when the innermost frame is below here or of here's stack frame.
 */
static inline __attribute__((always_inline)) void unwound_check_at(struct prof_thread *t,
                                                                   uintptr_t here, uintptr_t where)
{
    uint32_t k = t->depth - 1;
    if (k >= t->stack_cap)
        return;
    const struct prof_frame *f = &t->stack[k];
    if (f->where < here || (where != PROF_WHERE_NONE &&
                            (f->where == where || f->origin == here || f->where == (here | 1))))
        close_left_at(t, here, where);
}

/* A scope token whose start was dropped (a signal handler interrupted the collector). */
#define PROF_SCOPE_DROPPED (~0u - 1)

/*
 * Open a scoped region whose token lives at where (PROF_WHERE_NONE: unknown), called from
 * stack position here; nesting is a module's count (PROFILER_API) or NULL. Regions a longjmp
 * left are closed first (unwound_check_at).
 */
static inline __attribute__((always_inline)) struct prof_scope
scope_begin(const char *id, uintptr_t where, uintptr_t here, unsigned *nesting)
{
    struct prof_scope tok = {~0u, 0, where == PROF_WHERE_NONE ? NULL : (const void *)where, {NULL}};
    struct prof_thread *t = prof_current(prof_attach);
    if (PROF_UNLIKELY(!t)) {
        t = prof_self;
        if (t && (t->gen & PROF_GEN_BUSY))
            tok.depth = PROF_SCOPE_DROPPED; /* its end is dropped too */
        return tok;
    }
    prof_busy_mark(t);
    unwound_check_at(t, here, where);
    uint32_t d = t->depth;
    start_region(t, id, where, here);
    if (PROF_LIKELY(t->depth > d)) { /* else out of memory: nothing opened */
        if (d < t->stack_cap) {
            t->stack[d].nesting = nesting;
            tok.serial = t->stack[d].serial;
        }
        tok.depth = d;
    }
    prof_busy_unmark(t);
    return tok;
}

/* Open a region for PROFILER_SCOPE and name it by depth and instance (a token built by a
   0.2.0 header, whose address is unknown: the region is never closed as unwound). */
struct prof_scope prof_scope_begin(const char *id)
{
    return scope_begin(id, PROF_WHERE_NONE, PROF_CALLER_SP(), NULL);
}

/* Open a region for PROFILER_SCOPE whose token lives at where, and name it. */
struct prof_scope prof_scope_begin_at(const char *id, const void *where)
{
    return scope_begin(id, where ? (uintptr_t)where : PROF_WHERE_NONE, PROF_CALLER_SP(), NULL);
}

/* Close a PROFILER_SCOPE region and whatever was left open inside it (see profreport.h). */
void prof_scope_end(const struct prof_scope *tok)
{
    uintptr_t here = PROF_CALLER_SP();
    struct prof_thread *t = prof_self;
    if (tok && tok->depth == PROF_SCOPE_DROPPED) {
        prof_dropped_event();
        return;
    }
    if (!tok || tok->depth == ~0u || !t)
        return;
    if (t->gen != PROF_LOAD(prof_gen) && !(t = prof_resync()))
        return; /* the run it was opened in has ended */
    prof_busy_mark(t);
    prof_unwound_check(t, here);
    prof_busy_unmark(t);
    /* Still open: at its depth, the same instance (beyond the stack, trust the depth alone). */
    int open = t->depth > tok->depth &&
               (tok->depth >= t->stack_cap || t->stack[tok->depth].serial == tok->serial);
    if (!open || t->depth > tok->depth + 1)
        PROF_STORE(t->mismatch, t->mismatch + 1);
    if (!open)
        return;
    while (t->depth > tok->depth)
        prof_stop();
}

/* Enter a profiled module: its region opens only at the thread's outermost entry. */
static inline __attribute__((always_inline)) struct prof_api_scope
api_enter(const struct prof_api *api, unsigned *nesting, uintptr_t where, uintptr_t here)
{
    struct prof_api_scope s = {nesting, {~0u, 0, NULL, {NULL}}, {NULL}};
    if (!api || !nesting)
        return s;
    if (where != PROF_WHERE_NONE && *nesting) {
        /* The module's open region may be one a longjmp left: closing it zeroes the count. */
        struct prof_thread *t = prof_self;
        if (t && t->gen == PROF_LOAD(prof_gen)) {
            prof_busy_mark(t);
            unwound_check_at(t, here, where);
            prof_busy_unmark(t);
        }
    }
    if ((*nesting)++ == 0)
        s.scope = scope_begin(api->name, where, here, where != PROF_WHERE_NONE ? nesting : NULL);
    return s;
}

/* Enter a profiled module (a token built by a 0.2.0 header, whose address is unknown). */
struct prof_api_scope prof_api_enter(const struct prof_api *api, unsigned *nesting)
{
    return api_enter(api, nesting, PROF_WHERE_NONE, PROF_CALLER_SP());
}

/* Enter a profiled module whose token lives at where. */
struct prof_api_scope prof_api_enter_at(const struct prof_api *api, unsigned *nesting,
                                        const void *where)
{
    return api_enter(api, nesting, where ? (uintptr_t)where : PROF_WHERE_NONE, PROF_CALLER_SP());
}

/* Leave a profiled module: the outermost exit closes its region. */
void prof_api_leave(const struct prof_api_scope *s)
{
    if (!s || !s->nesting)
        return;
    /* The outermost exit (its token has an address): entries a longjmp left inside the module
       never left, so the count starts again from zero. */
    if (s->scope.where)
        *s->nesting = 0;
    else
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
