/*
 * auto.c - the -finstrument-functions hooks of libprofreport-auto: every call of an
 * instrumented function becomes a region named after the function.
 *
 * The hook path records an address and a timestamp: a lookup of the address in the thread's
 * id table (the same table and event records as PROFILER_START) and one rdtsc. A function's
 * first call on a thread takes the slow path, which describes it once per process
 * (functions.c) and hides the time that took from every open region.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include "auto.h"

#include "codemap.h"
#include "crash.h"
#include "fileutil.h"
#include "filter.h"
#include "functions.h"
#include "hookcode.h"
#include "hooks.h"
#include "leftout.h"
#include "live.h"
#include "patch.h"
#include "run.h"
#include "sample.h"
#include "status.h"
#include "thread.h"

#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <link.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static uint32_t max_depth = PROF_MAX_DEPTH; /* PROFILER_MAX_DEPTH */
static double min_ns;                       /* PROFILER_MIN_DURATION, in nanoseconds */

/* Inside attach() on this thread: a hook called from there records nothing. */
static __thread int attaching __attribute__((tls_model("initial-exec")));

/* Parse a duration such as "500ns", "2us", "1.5ms" or "3" (nanoseconds); -1 if malformed. */
static double parse_ns(const char *s)
{
    char *end;
    double v = prof_strtod_c(s, &end);
    if (end == s || v < 0)
        return -1;
    if (*end == 0 || __builtin_strcmp(end, "ns") == 0)
        return v;
    if (__builtin_strcmp(end, "us") == 0)
        return v * 1e3;
    if (__builtin_strcmp(end, "ms") == 0)
        return v * 1e6;
    if (__builtin_strcmp(end, "s") == 0)
        return v * 1e9;
    return -1;
}

/*
 * PROFILER_INCLUDE's or PROFILER_EXCLUDE's patterns: the value, or with "@FILE" the patterns
 * of that file (prof_filter_file: one or more a line, '#' comments), which *owned holds (the
 * caller frees it). NULL when unset, or when the file cannot be read (said once: no filter).
 */
static const char *filter_patterns(const char *name, char **owned)
{
    const char *v = prof_getenv(name);
    *owned = NULL;
    if (!v || v[0] != '@')
        return v;
    int err = 0;
    /* open and read are cancellation points: a thread cancelled in one would leave the file
       open, and a pending request takes effect at the host's own next one instead */
    struct prof_host host = prof_host_hold();
    prof_mem_quiet_begin();
    *owned = prof_filter_file(v + 1, &err);
    prof_mem_quiet_end();
    if (!*owned)
        prof_warn("ignoring %s='%s': %s", name, v,
                  err == EINVAL   ? "not a regular file"
                  : err == EFBIG  ? "larger than 1 MiB"
                  : err == EILSEQ ? "holds a NUL byte"
                                  : prof_errno_text(err));
    prof_host_release(host);
    return *owned;
}

/* Read the hooks' settings from the environment, once per process. */
static void configure(void)
{
    /* functions.c applies them (at a function's first call); the runs name them */
    char *incl, *excl;
    const char *include = filter_patterns("PROFILER_INCLUDE", &incl);
    const char *exclude = filter_patterns("PROFILER_EXCLUDE", &excl);
    prof_mem_quiet_begin();
    prof_run_filters(include, exclude);
    free(incl);
    free(excl);
    prof_mem_quiet_end();
    const char *v = prof_getenv("PROFILER_MAX_DEPTH");
    if (v && *v) {
        char *end;
        unsigned long d = strtoul(v, &end, 10);
        if (*end || d == 0)
            prof_warn("ignoring PROFILER_MAX_DEPTH='%s': not a positive integer", v);
        else
            max_depth = d < PROF_MAX_DEPTH ? (uint32_t)d : PROF_MAX_DEPTH;
    }
    v = prof_getenv("PROFILER_MIN_DURATION");
    if (v && *v) {
        double ns = parse_ns(v);
        if (ns < 0)
            prof_warn("ignoring PROFILER_MIN_DURATION='%s': expected a duration such as 500ns, "
                      "2us or 1ms",
                      v);
        else
            min_ns = ns;
    }
}

void prof_auto_configure(void) { pthread_once(&once, configure); }

/* Whether a hook comes from code the hooks' own slow path called (attaching, or describing a
   function): it records nothing, and is not a signal handler's dropped event. */
static int nested(void)
{
    struct prof_thread *t = prof_self;
    return attaching || (t && t->hooks.in_hook);
}

/* The calling thread's recorder for the current run, starting it if needed; NULL if off. */
static __attribute__((noinline, cold)) struct prof_thread *attach(void)
{
    if (nested())
        return NULL;
    attaching = 1;
    prof_auto_configure();
    struct prof_thread *t = prof_attach();
    if (t)
        t->hooks.fold_ticks = (uint64_t)(min_ns * (double)t->frequency / 1e9);
    attaching = 0;
    return t;
}

/* A function's first call on this thread: describe it and give it an index (or SKIP). */
static __attribute__((noinline, cold)) uint32_t fn_add(struct prof_thread *t, void *addr)
{
    uint64_t t0 = prof_ticks();
    t->hooks.in_hook = 1;
    struct prof_host host = prof_host_hold(); /* libdw opens and reads files, under its own lock */
    prof_mem_quiet_begin(); /* libdw's allocations are the collector's, not the program's */
    const struct prof_fn *fn = prof_fn_get(addr);
    prof_mem_quiet_end();
    prof_host_release(host);
    uint32_t idx = fn ? prof_id_add(t, addr, fn) : UINT32_MAX;
    t->hooks.in_hook = 0;
    if (idx == UINT32_MAX)
        prof_fail("out of memory for function names", NULL, 12 /* ENOMEM */);
    uint64_t t1 = prof_ticks();
    prof_thread_hide(t, t1 > t0 ? t1 - t0 : 0);
    return idx;
}

/*
 * An exit hook whose recorder is not current: the run ended (nothing to close), a dlclose
 * moved the generation while the thread still records (catch up), or the collector is busy on
 * this thread (a signal handler's event, dropped by prof_resync; or a call from the hooks' own
 * slow path, which records nothing).
 */
static __attribute__((noinline, cold)) struct prof_thread *exit_resync(void)
{
    return nested() ? NULL : prof_resync();
}

/* A call at depth d, beyond the stack's room or PROFILER_MAX_DEPTH, or inside such a call:
   nonzero when it is folded into the deepest call kept (counted for the depth-limit warning),
   0 when the stack grew to hold it. */
static __attribute__((noinline, cold)) int too_deep(struct prof_thread *t, uint32_t d)
{
    if (!t->hooks.excess && d < max_depth && (d < t->stack_cap || prof_stack_grow(t) == 0))
        return 0;
    t->hooks.excess++;
    prof_lean_refresh(t);
    PROF_STORE(t->depth_limit, t->depth_limit + 1);
    return 1;
}

/* The cold half of left_before_call: frames below here, then those of here's own stack frame
   that a call from site whose hook returns to hook shows were left (prof_close_reused). */
static __attribute__((noinline, cold)) uint32_t
close_before_call(struct prof_thread *t, uintptr_t here, const void *site, const void *hook)
{
    return prof_close_unwound(t, here, 0) + prof_close_reused(t, here, 0, site, hook);
}

/*
 * Before a function is entered from site at stack position here, its enter hook returning to
 * hook: close the frames a longjmp left. Those below here, and those at here itself that
 * cannot be live: a frame at here may be the caller's (gcc instruments the functions it
 * inlines, and their hooks run on their caller's stack pointer, with its call site), but not
 * one with another call site or entered by the same code. Looked into only when the innermost
 * frame is below here or of here's stack frame. Returns the frames closed.
 */
static inline __attribute__((always_inline)) uint32_t
left_before_call(struct prof_thread *t, uintptr_t here, const void *site, const void *hook)
{
    uint32_t k = t->depth - 1;
    if (PROF_LIKELY(k >= t->stack_cap))
        return 0;
    const struct prof_frame *f = &t->stack[k];
    if (PROF_LIKELY(f->where > (here | 1) && f->origin != here))
        return 0;
    return close_before_call(t, here, site, hook);
}

/*
 * A call of a function the filters leave out, whose enter hook returns to hook: nothing
 * recorded (frames a longjmp left are closed by the next recorded event). Its hooks' calls are
 * patched out (patch.h) as each is first seen. One that stays costs (hook_ticks, thread.c), and
 * in summary mode the edge cache notes it under its caller's node, so that the lean paths skip
 * its next calls from there without the id table.
 */
static __attribute__((noinline, cold)) void skipped(struct prof_thread *t, const void *fn,
                                                    const void *hook)
{
    PROF_STORE(t->hooks.skipped, t->hooks.skipped + 1);
    uint64_t before = prof_patch_ticks();
    int patched = prof_patch_call((uintptr_t)hook, (const void *)__cyg_profile_func_enter);
    uint64_t spent = prof_patch_ticks() - before;
    if (spent)
        prof_thread_hide(t, spent);
    if (patched)
        return; /* and its exit hooks' calls at their first returns (leave) */
    uint32_t d = t->depth;
    if (t->mode == PROF_MODE_SUMMARY && d > 0 && d <= t->stack_cap &&
        !((uintptr_t)t->stack[d - 1].node & 1))
        prof_cct_note_skip(&t->summary.cct, t->stack[d - 1].node, fn);
}

/* Enter an instrumented function called from site on the thread's current recorder (marked
   busy), from stack position here (the function's stack pointer), its hook returning to
   hook. */
static inline __attribute__((always_inline)) void enter(struct prof_thread *t, void *fn, void *site,
                                                        void *hook, uintptr_t here)
{
    /* Calls past PROFILER_MAX_DEPTH were deeper than any frame a longjmp left. */
    uint32_t slot, idx = prof_id_find(t, fn, &slot);
    if (PROF_UNLIKELY(idx >= PROF_IDX_SKIP)) {
        if (idx == PROF_IDX_SKIP) {
            skipped(t, fn, hook);
            return;
        }
        idx = fn_add(t, fn);
        if (idx >= PROF_IDX_SKIP) {
            if (idx == PROF_IDX_SKIP)
                skipped(t, fn, hook);
            return;
        }
    }
    if (PROF_UNLIKELY(left_before_call(t, here, site, hook))) {
        t->hooks.excess = 0;
        prof_lean_refresh(t);
    }
    uint32_t d = t->depth;
    if (PROF_UNLIKELY(t->hooks.excess || d >= t->stack_cap || d >= max_depth) && too_deep(t, d))
        return;
    PROF_STORE(t->depth, d + 1);
    if (t->mode == PROF_MODE_SUMMARY) {
        t->stack[d].origin = (uintptr_t)site; /* before the clock is read: d < stack_cap */
        t->stack[d].hook = (uintptr_t)hook;
        if (t->summary.sampled) /* a copy inlined elsewhere, whose time is not its own? */
            prof_fn_hook_seen(t->fns[idx], hook);
        prof_summary_start(t, fn, t->fns[idx], idx, d, here | 1);
        return;
    }
    prof_make_room(t);
    struct prof_frame *f = &t->stack[d];
    f->pos = t->pos;
    f->epoch = t->epoch;
    f->last_before = t->last;
    uint64_t now = prof_ticks();
    if (PROF_UNLIKELY(now < t->last))
        now = t->last;
    prof_put_enter(t, idx, now);
    f->id = fn; /* f->fn is filled in only when a fork child needs it (prof_thread_begin) */
    f->idx = idx;
    f->serial = ++t->serial;
    f->where = here | 1;
    f->origin = (uintptr_t)site;
    f->hook = (uintptr_t)hook;
    f->start = now;
}

/*
 * The lean paths' busy marks (prof_busy_mark): gen is the recorder's generation, read and found
 * current (not busy) at the hook's start, so the marks are plain stores of it, not an or and an
 * and on t->gen (each a load and a store). A signal handler that moved gen in between has its
 * change undone: the next hook finds gen stale and resyncs again.
 */
static inline __attribute__((always_inline)) void lean_mark(struct prof_thread *t, unsigned gen)
{
    t->gen = gen | PROF_GEN_BUSY;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline __attribute__((always_inline)) void lean_unmark(struct prof_thread *t, unsigned gen)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->gen = gen;
}

/* The thread's recorder when a lean path may take the hook's call: attached, and recording
   for the current run, its generation (not busy) in *gen; else NULL. */
static inline __attribute__((always_inline)) struct prof_thread *lean_thread(unsigned *gen)
{
    struct prof_thread *t = prof_self;
    return PROF_LIKELY(t != NULL) && PROF_LIKELY((*gen = t->gen) == PROF_LOAD(prof_gen)) ? t : NULL;
}

/*
 * Whether a call entered at stack position here (frame position w = here | 1) from site, its
 * enter hook returning to hook, is a copy gcc inlined into the innermost frame's function:
 * gcc hooks the copies it inlines, and their hooks run on their container's stack pointer and
 * pass its call site. So the innermost frames at w (the container and the copies open in it)
 * must each have this call's site and have been entered by other code, and the frame below
 * them be live (above w; a region's opened elsewhere): exactly the frames left_before_call
 * keeps (prof_close_reused), so the lean path takes such a call as the general path would.
 */
static inline __attribute__((always_inline)) int inlined_call(const struct prof_thread *t,
                                                              uint32_t d, uintptr_t here,
                                                              const void *site, const void *hook)
{
    uintptr_t w = here | 1;
    uint32_t k = d;
    for (; k > 0 && t->stack[k - 1].where == w; k--)
        if (t->stack[k - 1].origin != (uintptr_t)site || t->stack[k - 1].hook == (uintptr_t)hook)
            return 0;
    if (k == d)
        return 0;
    return k == 0 || (t->stack[k - 1].where > w && t->stack[k - 1].origin != here);
}

/*
 * The lean enter path's push, once the child node n (reached under fn) is known: everything
 * enter() would do then, and nothing else: no id-table lookup (the node's key_idx is the
 * address's index), no call. A node proved short reads no clock; one still timed (its calls
 * long, or not yet 16 of them) reads it last, as prof_summary_start does, after noting where
 * the hook was called from as enter() does (an inlined copy's).
 */
static inline __attribute__((always_inline)) void
lean_push(struct prof_thread *t, unsigned gen, struct prof_frame *top, uint32_t d,
          struct prof_node *n, void *fn, void *site, void *hook, uintptr_t here, int timed)
{
    lean_mark(t, gen);
    struct prof_frame *f = top + 1; /* &t->stack[d] */
    uint32_t idx = n->key_idx;
    f->node = n;
    f->id = fn;
    f->idx = idx; /* f->fn is set only for a timed call, whose stop reads it; a fork child
                     fills it in from idx (prof_thread_begin) */
    f->serial = ++t->serial;
    f->child = 0;
    f->where = here | 1;
    f->origin = (uintptr_t)site;
    f->hook = (uintptr_t)hook;
    PROF_STORE(t->depth, d + 1);
    if (!timed || PROF_LIKELY(n->untimed)) {
        f->start = PROF_UNTIMED;
    } else {
        const struct prof_fn *desc = t->fns[idx];
        prof_fn_hook_seen(desc, hook);
        f->fn = desc;
        f->interrupts0 = t->sampling.interrupts;
        f->start = prof_ticks();
    }
    lean_unmark(t, gen);
}

/*
 * The lean path of an enter hook: sampled timing, a call below an instrumented function or
 * region whose frame is live (no longjmp left frames at here), or a copy inlined into it, whose
 * calling context is in the parent node's cache of its last two children, or the tree's edge
 * cache, under this very address. Copies inlined, and contexts not yet proved short (timed),
 * only when inlined is nonzero: the hook itself leaves both to enter_rest, so that it needs
 * no register it would have to save. 0 when the call needs the general path.
 */
static inline __attribute__((always_inline)) int enter_lean(struct prof_thread *t, unsigned gen,
                                                            void *fn, void *site, void *hook,
                                                            uintptr_t here, int inlined)
{
    uint32_t d = t->depth;
    /* lean, nothing folded beyond the depth limit, below the stack's room and
       PROFILER_MAX_DEPTH: lean_room says all of it */
    if (PROF_UNLIKELY(d - 1u >= t->lean_room))
        return 0;
    struct prof_frame *top = &t->stack[d - 1];
    struct prof_node *parent = top->node;
    if (PROF_UNLIKELY(top->where <= (here | 1) || top->origin == here || ((uintptr_t)parent & 1)) &&
        (!inlined || ((uintptr_t)parent & 1) || !inlined_call(t, d, here, site, hook)))
        return 0;
    /* The parent's two latest children, then the tree's edge cache (a parent calling more
       than two functions in turn). The child's key must be fn too, for key_idx to be fn's
       index. */
    struct prof_node *n = parent->last;
    int other = n->key != fn;
    if (PROF_UNLIKELY(other)) {
        n = parent->prev;
        if (n->key != fn) {
            const struct prof_edge *e = prof_cct_edge(t->summary.cct.edges, parent, fn);
            if (e->parent != parent || e->key != fn)
                return 0;
            n = e->child;
            if (n == &prof_cct_skip) { /* left out by the filters: counted, not recorded */
                PROF_STORE(t->hooks.skipped, t->hooks.skipped + 1);
                return 1;
            }
            if (n->key != fn)
                return 0;
        }
    }
    if (!inlined && PROF_UNLIKELY(!n->untimed))
        return 0;
    if (other) {
        parent->prev = parent->last;
        parent->last = n;
    }
    lean_push(t, gen, top, d, n, fn, site, hook, here, inlined);
    return 1;
}

/* The general enter hook: a call the lean path leaves, on the thread's current recorder. */
static PROF_HOOK_TEXT void enter_general(void *fn, void *site, void *hook, uintptr_t here)
{
    struct prof_thread *t = PROF_UNLIKELY(prof_disabled()) ? NULL : prof_current(attach);
    if (PROF_UNLIKELY(!t)) {
        /* PROFILER_ENABLE=0: the call's hooks are patched out once it proves frequent, as a
           left-out function's are, so that an instrumented build run with recording off
           costs about what the plain one does (with every call on this path instead, more
           than recording with sampled timing: yaml-cpp's clang build ran 4.2x plain) */
        if (prof_disabled())
            prof_patch_call_hot((uintptr_t)hook, (const void *)__cyg_profile_func_enter);
        return;
    }
    prof_busy_mark(t);
    if (t->summary.sampled) /* where the program calls this hook, for the sampler */
        prof_hookcode_learn((uintptr_t)hook, PROF_HOOKCODE_ENTER);
    enter(t, fn, site, hook, here);
    prof_busy_unmark(t);
}

/* An enter hook's call that the hook's own lean path leaves: the lean path with gcc's inlined
   copies and timed contexts too, else the general one. */
static PROF_HOOK_TEXT void enter_rest(void *fn, void *site, void *hook, uintptr_t here)
{
    unsigned gen;
    struct prof_thread *t = lean_thread(&gen);
    if (t && PROF_LIKELY(enter_lean(t, gen, fn, site, hook, here, 1)))
        return;
    enter_general(fn, site, hook, here);
}

/*
 * Enter an instrumented function: the lean path, without gcc's inlined copies (inlined_call's
 * loop) or a clock read, so that the hook needs no register it would have to save; the rest
 * is a tail call.
 */
PROF_HOOK_TEXT void __cyg_profile_func_enter(void *fn, void *site)
{
    uintptr_t here = PROF_CALLER_SP();
    void *hook = __builtin_return_address(0);
    unsigned gen;
    struct prof_thread *t = lean_thread(&gen);
    if (t && PROF_LIKELY(enter_lean(t, gen, fn, site, hook, here, 0)))
        return;
    enter_rest(fn, site, hook, here);
}

/* Close the innermost frame at time now; a short function call may be folded away. */
static inline __attribute__((always_inline)) void pop(struct prof_thread *t, uint64_t now,
                                                      int may_fold)
{
    uint32_t d = t->depth - 1;
    PROF_STORE(t->depth, d);
    if (PROF_UNLIKELY(t->on_stop))
        t->on_stop(t, d, now);
    struct prof_frame *f = &t->stack[d];
    /* Folding drops the call's records, so its time stays in the parent's self time. A call
       that read no clock (sampled timing) is never folded: it costs no record. */
    int fold = may_fold && t->hooks.fold_ticks && f->start != PROF_UNTIMED &&
               now - f->start < t->hooks.fold_ticks;
    if (t->mode == PROF_MODE_SUMMARY) {
        /* A call open at PROFILER_MAX_EVENTS ends in the event stream: never folded there. */
        if (PROF_UNLIKELY(fold) && d >= t->summary.stream_depth) {
            PROF_STORE(t->hooks.folded, t->hooks.folded + 1);
            return;
        }
        prof_summary_stop(t, d, now);
        prof_summary_due(t, now);
        return;
    }
    if (PROF_UNLIKELY(fold) && f->epoch == t->epoch && f->pos >= PROF_LOAD(t->flushed)) {
        t->last = f->last_before;
        __atomic_store_n(&t->pos, f->pos, __ATOMIC_RELEASE);
        PROF_STORE(t->hooks.folded, t->hooks.folded + 1);
        return;
    }
    prof_record_exit(t, now);
}

/*
 * The returning function is not the innermost frame: regions left open inside it (a missing
 * stop, or a longjmp past instrumented frames) close with it. Returns 0 when the function has
 * no frame at all (it was entered before this run started recording).
 */
static __attribute__((noinline, cold)) int unwind_to(struct prof_thread *t, const void *fn,
                                                     uint64_t now)
{
    uint32_t open = t->depth < t->stack_cap ? t->depth : t->stack_cap;
    if (t->depth > open)
        return 0;
    uint32_t k = open;
    while (k > 0 && t->stack[k - 1].id != fn)
        k--;
    if (k == 0)
        return 0;
    while (t->depth > k) {
        pop(t, now, 0);
        PROF_STORE(t->unwound, t->unwound + 1);
    }
    return 1;
}

/*
 * Before fn returns from stack position here, close the frames a longjmp left below it. When
 * the compiler made the exit hook a tail call (tail), fn's own frame was freed already and here
 * is its caller's stack pointer: fn's frame, the outermost of those below here, stays for the
 * pop, and only those deeper than it close. Returns the frames closed.
 */
static __attribute__((noinline, cold)) uint32_t close_left(struct prof_thread *t, const void *fn,
                                                           uintptr_t here, int tail)
{
    uintptr_t below = here;
    if (tail) {
        uint32_t k = t->depth < t->stack_cap ? t->depth : t->stack_cap;
        while (k > 0 && t->stack[k - 1].where < here)
            k--;
        if (k < t->depth && t->stack[k].id == fn)
            below = t->stack[k].where; /* the deeper frames' positions are all lower */
    }
    return prof_close_unwound(t, below, 0);
}

/* Leave an instrumented function on the thread's current recorder (marked busy), from stack
   position here (the function's stack pointer; its caller's when the hook is a tail call), the
   hook returning to ret. */
static inline __attribute__((always_inline)) void leave(struct prof_thread *t, void *fn,
                                                        uintptr_t here, int tail, void *ret)
{
    /* Frames a longjmp left below this function's are closed first: then a recursive
       function's frame found innermost is its own call's, not a deeper one's. A tail-called
       hook whose innermost frame is fn's, with a live frame under it, has nothing to close. */
    uint32_t d = t->depth, k = d - 1;
    if (PROF_UNLIKELY(k < t->stack_cap && t->stack[k].where < here) &&
        !(tail && t->stack[k].id == fn && (k == 0 || t->stack[k - 1].where >= here)) &&
        close_left(t, fn, here, tail)) {
        t->hooks.excess = 0;
        prof_lean_refresh(t);
    }
    /* The usual case: the innermost frame is this function's. A filtered-out function never
       has a frame, and a call beyond PROFILER_MAX_DEPTH only counts in excess. */
    d = t->depth;
    if (PROF_LIKELY(d - 1 < t->stack_cap && !t->hooks.excess && t->stack[d - 1].id == fn)) {
        pop(t, prof_stop_ticks(t, d - 1), 1);
        return;
    }
    uint32_t slot, idx = prof_id_find(t, fn, &slot);
    if (PROF_UNLIKELY(idx >= PROF_IDX_SKIP)) {
        /* filtered out (no clock read: close to an empty hook; a hook the compiler jumped to
           returns into the caller, and stays), or not in this run */
        if (idx == PROF_IDX_SKIP && !tail) {
            uint64_t before = prof_patch_ticks();
            prof_patch_call((uintptr_t)ret, (const void *)__cyg_profile_func_exit);
            uint64_t spent = prof_patch_ticks() - before;
            if (spent)
                prof_thread_hide(t, spent);
        }
        return;
    }
    uint64_t now = prof_ticks();
    if (PROF_UNLIKELY(t->hooks.excess)) {
        t->hooks.excess--;
        prof_lean_refresh(t);
        return;
    }
    if (PROF_UNLIKELY(d == 0 || d > t->stack_cap || t->stack[d - 1].id != fn) &&
        !unwind_to(t, fn, now))
        return;
    pop(t, now, 1);
}

/*
 * The lean path of an exit hook: sampled timing, the innermost frame is fn's, has its own
 * node, and no longjmp left frames below here. Everything leave() would do then: count the
 * call, or, when timed is nonzero, time it if it read the clock at its start (the hook
 * returning to ret). 0 when the return needs the general path, or timing and timed is 0 (a
 * snapshot is due too: the sampler sets flush_at to 0).
 */
static inline __attribute__((always_inline)) int leave_lean(struct prof_thread *t, unsigned gen,
                                                            void *fn, uintptr_t here, int tail,
                                                            void *ret, int timed)
{
    uint32_t k = t->depth - 1;
    if (PROF_UNLIKELY(k >= t->lean_room || t->flush_at == 0))
        return 0;
    struct prof_frame *f = &t->stack[k];
    struct prof_node *n = f->node;
    if (PROF_UNLIKELY((uintptr_t)n & 1))
        return 0;
    if (PROF_UNLIKELY(f->id != fn)) {
        /* The return of a function the filters leave out, called from f's function (f is
           live: its frame is above here), which the edge cache noted at its enter. */
        const struct prof_edge *e = prof_cct_edge(t->summary.cct.edges, n, fn);
        return e->child == &prof_cct_skip && e->parent == n && e->key == fn && f->where > here;
    }
    /* As leave(): a tail-called hook's here is the caller's stack pointer, above fn's frame. */
    if (PROF_UNLIKELY(f->where < here) && !(tail && (k == 0 || f[-1].where >= here)))
        return 0;
    if (PROF_LIKELY(f->start == PROF_UNTIMED)) {
        lean_mark(t, gen);
        PROF_STORE(t->depth, k);
        PROF_STORE(n->st.calls, n->st.calls + 1);
        lean_unmark(t, gen);
        return 1;
    }
    /* A timed call (a function's: a region's frame has no fn), unless PROFILER_MIN_DURATION
       may fold it or its end is a snapshot's deadline: its time, read first, goes to its
       node's statistics as pop() would. */
    if (!timed || PROF_UNLIKELY(!f->fn || t->hooks.fold_ticks))
        return 0;
    uint64_t now = prof_ticks();
    if (PROF_UNLIKELY(now >= t->flush_at))
        return 0;
    lean_mark(t, gen);
    PROF_STORE(t->depth, k);
    /* where the program calls this hook, for the sampler, as leave_general learns it: at a
       context's first timed calls (a program whose every call is timed may return only here) */
    if (PROF_UNLIKELY(n->st.timed < PROF_TIMED_MIN_CALLS) && !tail)
        prof_hookcode_learn((uintptr_t)ret, PROF_HOOKCODE_EXIT);
    prof_summary_stop_timed(t, f, now);
    lean_unmark(t, gen);
    return 1;
}

/* The general exit hook: a return the lean path leaves (the hook returning to ret). */
static PROF_HOOK_TEXT void leave_general(void *fn, uintptr_t here, int tail, void *ret)
{
    struct prof_thread *t = PROF_UNLIKELY(prof_disabled()) ? NULL : prof_current(exit_resync);
    if (PROF_UNLIKELY(!t)) {
        if (prof_disabled() && !tail) /* as enter_general */
            prof_patch_call_hot((uintptr_t)ret, (const void *)__cyg_profile_func_exit);
        return;
    }
    prof_busy_mark(t);
    if (t->summary.sampled && !tail) /* a tail-called hook returns into the caller */
        prof_hookcode_learn((uintptr_t)ret, PROF_HOOKCODE_EXIT);
    leave(t, fn, here, tail, ret);
    prof_busy_unmark(t);
}

/* An exit hook's return that the hook's own lean path leaves: the lean path with timed calls
   too, else the general one. */
static PROF_HOOK_TEXT void leave_rest(void *fn, uintptr_t here, int tail, void *ret)
{
    unsigned gen;
    struct prof_thread *t = lean_thread(&gen);
    if (t && PROF_LIKELY(leave_lean(t, gen, fn, here, tail, ret, 1)))
        return;
    leave_general(fn, here, tail, ret);
}

/* Leave an instrumented function (also called while an exception unwinds through it). The
   compiler may jump to this hook after freeing the function's frame: then the hook returns
   straight to the function's caller, at site. The lean path without timed calls, so that the
   hook needs no register it would have to save; the rest is a tail call. */
PROF_HOOK_TEXT void __cyg_profile_func_exit(void *fn, void *site)
{
    uintptr_t here = PROF_CALLER_SP();
    void *ret = __builtin_return_address(0);
    int tail = ret == site;
    unsigned gen;
    struct prof_thread *t = lean_thread(&gen);
    if (t && PROF_LIKELY(leave_lean(t, gen, fn, here, tail, ret, 0)))
        return;
    leave_rest(fn, here, tail, ret);
}

/* dl_iterate_phdr callback: the loader's count of modules unloaded so far. */
static int unloads(struct dl_phdr_info *info, size_t size, void *data)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        *(unsigned long long *)data = info->dlpi_subs;
    return 1;
}

/*
 * Close a module with the loader's dlclose. When that unloaded one, the descriptions of code
 * addresses are forgotten and every thread empties its id table at its next event (prof_gen),
 * so a module loaded later at the same addresses is named for what it is.
 */
int dlclose(void *handle)
{
    static int (*real)(void *);
    int (*fn)(void *) = __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (!fn) {
        fn = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
        if (!fn)
            return -1;
        __atomic_store_n(&real, fn, __ATOMIC_RELAXED);
    }
    unsigned long long before = 0, after = 0;
    dl_iterate_phdr(unloads, &before);
    int r = fn(handle);
    dl_iterate_phdr(unloads, &after);
    if (after != before) {
        prof_busy_begin();
        prof_mem_quiet_begin();
        prof_fn_forget();
        prof_patch_forget();
        prof_leftout_forget();
        prof_codemap_forget();
        prof_mem_quiet_end();
        prof_busy_end();
        __atomic_add_fetch(&prof_mod_gen, 1, __ATOMIC_RELEASE);
        __atomic_add_fetch(&prof_gen, 1, __ATOMIC_RELEASE);
    }
    return r;
}

/* A thread started by the pthread_create wrapper: its routine and argument. */
struct thread_start {
    void *(*start)(void *);
    void *arg;
};

/* A new thread's first code: its recorder, then the program's routine. */
static __attribute__((no_instrument_function)) void *thread_started(void *p)
{
    struct thread_start s = *(struct thread_start *)p;
    prof_mem_quiet_begin();
    free(p);
    prof_mem_quiet_end();
    if (!prof_self)
        (void)prof_current(attach);
    return s.start(s.arg);
}

/*
 * Whether a sanitizer's runtime is in the process. Its own pthread_create interceptor runs
 * first and calls this one as the real function, with a start routine of its own that sets
 * up the thread's sanitizer state: no code may run in the thread before it (ThreadSanitizer
 * crashed in free), so the new thread is left to its first hook there.
 */
static int sanitized(void)
{
    static int known; /* 0: not looked yet; 1: no; 2: yes */
    int k = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (!k) {
        static const char *const inits[] = {"__tsan_init", "__lsan_do_leak_check", "__msan_init",
                                            "__hwasan_init"};
        k = 1;
        for (size_t i = 0; i < sizeof inits / sizeof inits[0]; i++)
            if (dlsym(RTLD_DEFAULT, inits[i]))
                k = 2;
        __atomic_store_n(&known, k, __ATOMIC_RELAXED);
    }
    return k == 2;
}

int pthread_create(pthread_t *thread, const pthread_attr_t *attr, void *(*start)(void *), void *arg)
{
    static int (*real)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
    int (*fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *) =
        __atomic_load_n(&real, __ATOMIC_RELAXED);
    if (!fn) {
        fn = (int (*)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *))dlsym(
            RTLD_NEXT, "pthread_create");
        if (!fn)
            return EAGAIN;
        __atomic_store_n(&real, fn, __ATOMIC_RELAXED);
    }
    /* Only a run whose filters may patch hooks away: otherwise a thread's first hook starts
       its recording, and a thread that runs no instrumented code records nothing. */
    prof_auto_configure();
    if (!prof_run_filtered() || nested() || sanitized())
        return fn(thread, attr, start, arg);
    prof_mem_quiet_begin();
    struct thread_start *s = malloc(sizeof *s);
    prof_mem_quiet_end();
    if (!s)
        return fn(thread, attr, start, arg);
    s->start = start;
    s->arg = arg;
    int r = fn(thread, attr, thread_started, s);
    if (r != 0) {
        prof_mem_quiet_begin();
        free(s);
        prof_mem_quiet_end();
    }
    return r;
}

/* A recorder begins a run: no call is open beyond the depth limit, nothing folded yet. */
static void hooks_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    (void)run;
    t->hooks.excess = 0;
    t->hooks.folded = 0;
    t->hooks.skipped = 0;
    t->hooks.max_depth = max_depth; /* prof_thread_begin then computes lean_room */
}

/* The hooks' warnings, before the part's end chunk (t->lock held). */
static int hooks_write(struct prof_thread *t)
{
    uint64_t folded = PROF_LOAD(t->hooks.folded);
    int err = 0;
    if (folded) {
        char msg[96];
        snprintf(msg, sizeof msg,
                 "calls shorter than %" PRIu64 " ticks were folded into their caller",
                 t->hooks.fold_ticks);
        err = prof_thread_write_warning(t, "folded", folded, msg);
    }
    return err;
}

/*
 * At exit() on the thread of t: the instrumented functions still open there end now, as their
 * exit hooks would have ended them, innermost first. A program that calls exit() below main
 * (ninja's real_main, a usage() that exits, an error path) otherwise left main and its callers
 * never stopped: no row on Call cost, every share taken over the regions that did stop, main's
 * Wall unknown, and an "unterminated" warning in every run, where uftrace ends them at exit. A
 * region placed by hand (PROFILER_START) still open stops the closing: it was never stopped,
 * and the warning says so. Frames past PROFILER_MAX_DEPTH (excess) are not on the stack.
 */
static void hooks_exiting(struct prof_thread *t)
{
    if (t->gen & PROF_GEN_BUSY)
        return; /* exit() from a signal handler that interrupted the collector */
    prof_busy_mark(t);
    uint32_t d;
    while ((d = t->depth) > 0 && d <= t->stack_cap && !t->hooks.excess) {
        uintptr_t where = t->stack[d - 1].where;
        if (!(where & 1) || where == PROF_WHERE_NONE)
            break;
        pop(t, prof_stop_ticks(t, d - 1), 0);
    }
    prof_busy_unmark(t);
}

static const struct prof_hooks hooks = {
    .name = "function hooks",
    .thread_begin = hooks_begin,
    .thread_write = hooks_write,
    .exiting = hooks_exiting,
};

/* leftout.h's describer: the plain library's part writer asks for a description. */
static const void *describe_uninstrumented(uint32_t r) { return prof_fn_uninstrumented(r); }

/* At load: the hooks' state follows the recorder's runs, and the live report counts the
   instrumented functions' stops too. */
__attribute__((constructor(101))) static void register_hooks(void)
{
    /* Every call of every function: an event stream would flood the disk (issue 12), while
       the calling-context tree stays as small as the program's distinct paths. */
    prof_run_default_mode(PROF_MODE_SUMMARY);
    /* Counting calls costs a few ns; timing each one costs two clock reads, more than most
       functions take (issue 24): time comes from CPU-time samples instead. */
    prof_run_default_timing(PROF_TIMING_SAMPLED);
    prof_hooks_add(&hooks);
    /* A sample in a function without hooks names it (codemap.h) */
    prof_leftout_set_describer(describe_uninstrumented);
    prof_hooks_add(&prof_live_hooks);
    prof_hooks_add(&prof_crash_hooks);
}
