/*
 * thread.h - the recorder of one thread (thread.c): its event buffer, id table, stack of open
 * regions and part file, and the hot path's building blocks that the region API (regions.c) and
 * the function hooks (auto.c) share: the id table lookup and the event records.
 *
 * Ownership: a recorder owns its buffer, stack, tables and part path, and frees them in
 * prof_thread_free (its features' state through their thread_free hooks, hooks.h). Region id
 * texts and function descriptions are borrowed: they outlive the run.
 *
 * The core of struct prof_thread is what every event touches. Each feature keeps its own state:
 * summary mode's statistics (struct prof_summary, thread.c), the function hooks' counters
 * (struct prof_hooks_state, auto.c, here so that the hooks reach it without a pointer), the live
 * report's counters (live.c) and the memory checks' bytes per region (memcheck.c) behind
 * pointers of types only those files define.
 */
#ifndef PROF_THREAD_H
#define PROF_THREAD_H

#include "compiler.h"
#include "context.h"
#include "format.h"
#include "leftout.h"
#include "partwrite.h"
#include "status.h"
#include "symbols.h"
#include "timer.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

/* A recorder's stack of open frames starts with PROF_STACK_INITIAL and doubles when a region
   or call goes deeper, up to PROF_MAX_DEPTH (80 MiB of frames: deeper than an 8 MiB thread
   stack lets calls go). Beyond the stack, events mode still records regions (their records
   need no frame); a function call, and in summary mode a region, is folded into the deepest
   frame kept: its time stays in that frame's self time, and depth_limit counts it for the
   thread's depth-limit warning. */
#define PROF_STACK_INITIAL 4096u
#define PROF_MAX_DEPTH (1u << 20)
#define PROF_NAME_MAX 64
#define PROF_BUFFER_WORDS 65536u /* 256 KiB of event words per thread between writes */
#define PROF_PENDING 32          /* summary mode: histogram updates applied in batches */
/* PROFILER_MAX_EVENTS's default: region instances per run in the event stream (a run file of
   1.5 to 3 GB), beyond which each thread counts in summary mode */
#define PROF_MAX_EVENTS_DEFAULT 50000000u

enum prof_mode { PROF_MODE_EVENTS, PROF_MODE_SUMMARY };

/* An open region (or instrumented function call) on the recording thread. */
struct prof_frame {
    const void *id; /* the id table key: the id text pointer, or the function's address */
    uint32_t idx;
    uint32_t serial; /* which instance: lets PROFILER_SCOPE find its own region */
    uint64_t start, child;
    /* Summary mode: the frame's calling context; with its low bit set, the parent's node, into
       which the instance folds (no node was left: PROFILER_MAX_NODES) */
    struct prof_node *node;
    /* A function's frame (NULL for a region); read only at a timed call's stop, so left unset
       by the function hooks' paths that time nothing (events mode, the lean path) */
    const struct prof_fn *fn;
    union {
        /* Events mode, functions: where the enter record went, to fold a short call away */
        struct {
            uint32_t pos, epoch;
        };
        /* Summary mode, sampled timing, a timed call: the thread's sampler interrupts at its
           start (prof_sample_state.interrupts: what one costs is taken out of the call's time) */
        uint64_t interrupts0;
    };
    union {
        uint64_t last_before; /* events mode, functions: the clock before the enter record */
        unsigned *nesting;    /* a region of PROFILER_API: its module's nesting count */
    };
    /* Where on the stack the frame lives (see prof_unwound_check): a scoped region's token
       address, an instrumented function's stack pointer plus one (odd, so it never equals a
       token's address), or PROF_WHERE_NONE for a region placed by hand. */
    uintptr_t where;
    /* Which stack frame opened it (see prof_close_reused): a region's opener's stack pointer,
       an instrumented function's call site (its return address; an inlined function's is its
       container's, as gcc passes it). */
    uintptr_t origin;
    /* An instrumented function's enter hook's return address: the code that called the hook,
       in the function's prologue or, inlined, where its container's body inlines it. */
    uintptr_t hook;
};

/* A frame with no stack position: PROFILER_START regions, which may close in any function. */
#define PROF_WHERE_NONE UINTPTR_MAX

/* One entry of a thread's id table: region id pointer or function address -> index. */
struct prof_idslot {
    const void *key;
    uint32_t idx; /* PROF_IDX_SKIP: a function the filters leave out */
};

/* Summary mode's state (thread.c): the calling-context tree, whose nodes ids of equal text
   share. */
struct prof_summary {
    struct prof_cct cct;
    /*
     * Histogram counts waiting to be added. A store whose address depends on a tick value
     * makes the next rdtsc wait for it (measured on AMD: +0.58x per region when each stop
     * counted its instance), so a stop queues the address of the counter, at sequential
     * addresses, and prof_summary_apply adds them PROF_PENDING at a time. lost: the counter of
     * an instance whose histogram block could not be allocated.
     */
    uint32_t npending;
    uint64_t *pending[PROF_PENDING];
    uint64_t lost;
    uint32_t *canon; /* index -> first index with the same text (shares nodes) */
    uint32_t *texts; /* open addressing over id texts, index + 1 (0 = empty) */
    uint32_t tmask;
    /*
     * Events mode past PROFILER_MAX_EVENTS (the recorder then counts in summary mode): the
     * regions open at the cap, the outermost stream_depth of the stack, still end in the event
     * stream. start_limit: prof_summary_start's slow path from this depth on, the stack's size,
     * or 0 until the first event after the cap gives those regions their statistics (one test
     * on the hot path for both).
     */
    uint32_t stream_depth;
    uint32_t start_limit;
    /*
     * PROFILER_TIMING=sampled (and a sampler armed on this thread): instrumented functions'
     * calls are counted, their time comes from CPU-time samples (sample.c), and a calling
     * context's calls are timed only while they last long: once a node has
     * PROF_TIMED_MIN_CALLS timed calls whose mean is below short_ticks, its later calls read
     * no clock (prof_node.untimed). Regions are always timed.
     */
    int sampled;
    uint64_t short_ticks;
    /* sampled, and no feature watches stops (on_stop): the function hooks may take their lean
       path (auto.c), set when the recorder begins a run */
    int lean;
};

/* A frame's start when its call reads no clock (sampled timing). */
#define PROF_UNTIMED UINT64_MAX
/* Timed calls of a calling context before it may be found short (sampled timing). */
#define PROF_TIMED_MIN_CALLS 16u

/* The sampler of one thread (sample.c; the signal handler writes the counts, on this thread
   only). Counts are in sample periods. */
struct prof_sample_state {
    int fd;       /* the perf event, or -1 */
    uint64_t id;  /* its PERF_EVENT_IOC_ID: the descriptor is still ours only while it says so */
    int timer_ok; /* timer is a POSIX timer of this process */
    timer_t timer;
    /* perf, PROFILER_SAMPLER unset: the thread's context switches at the last look at them,
       and its samples then (sample.c, switch_to_timer); ktimer: the kernel's id of the CPU-time
       timer that replaced the event on a thread that switched often (ktimer_ok) */
    uint64_t switches0, looked;
    int ktimer, ktimer_ok;
    /* the samples a CPU-time timer took (either kind), and its signals that took them: each
       signal one look at where the thread is, weighted by the periods since the last */
    uint64_t timer_samples, timer_draws;
    pid_t pid;          /* the process that made them: a fork child's copies are not its own */
    uint64_t period_ns; /* 0: not armed */
    uint64_t taken;     /* perf: periods of the event's count already charged */
    uint64_t samples;   /* every sample the thread took */
    /* the sampler's signals that interrupted the thread (perf: those that brought no period
       too, an overflow a little before its period's end): a timed call's stop takes what
       they cost out of its time (thread.c, prof_summary_stop_timed) */
    uint64_t interrupts;
    uint64_t overhead; /* those that landed in the collector's own code */
    uint64_t slow;     /* of those, in its slow paths (attach, describing a function, writes) */
    uint64_t outside;  /* those outside every region and instrumented function */
    /* perf: what taking the samples cost the thread, in ns of its CPU time (from each
       overflow to the handler's read of the count, sample_cost) and in ticks (the handler's
       own work after that read); lag_low: the lags' running lower 32nd (0: none yet) */
    uint64_t cost_ns, cost_ticks, lag_low;
    struct prof_leftout_hits leftout; /* those in functions the filters leave out */
};

/* The function hooks' state (auto.c, the only writer; reset by its thread_begin hook). */
struct prof_hooks_state {
    uint32_t excess; /* calls open now and folded (deeper than PROFILER_MAX_DEPTH or the stack) */
    int in_hook;     /* inside the hooks' slow path: calls made from there record nothing */
    uint32_t max_depth;  /* PROFILER_MAX_DEPTH (0 without the hooks: no lean path) */
    uint64_t fold_ticks; /* PROFILER_MIN_DURATION in ticks; 0: no folding */
    uint64_t folded;     /* calls shorter than PROFILER_MIN_DURATION folded into their parent */
    uint64_t skipped;    /* calls of functions PROFILER_EXCLUDE or _INCLUDE leave out */
};

struct prof_live_state; /* live.c */
struct prof_mem_counts; /* memcheck.c */

/*
 * Per-thread recorder, reached through a thread-local pointer. While a run records, the run's
 * registry (run.c) lists it. When its thread ends, the pthread key destructor writes its part
 * and frees it: the run keeps only the part's path.
 */
struct prof_thread {
    /* hot: touched on every event, only by the owning thread */
    uint32_t *buf;
    uint32_t pos; /* words used; release-stored so prof_finish can read buf[flushed..pos) */
    uint32_t depth;
    /* The function hooks' lean path (auto.c) opens a frame at depth d, or closes the one at
       d - 1, only when d - 1 < lean_room: 0 unless the thread is lean (summary.lean) with no
       call folded beyond the depth limit, else the frames below the stack's room and
       PROFILER_MAX_DEPTH, less one (prof_lean_refresh) */
    uint32_t lean_room;
    uint32_t serial; /* regions opened so far */
    uint64_t last;   /* absolute ticks of the last record */
    /* ticks after which the next event writes what is buffered (PROFILER_FLUSH_INTERVAL);
       UINT64_MAX: only when full */
    uint64_t flush_at;
    /* summary mode: the snapshot deadline flush_at stands for when the sampler set it to 0
       early (sampled timing: to have left-out functions named, leftout.h) */
    uint64_t flush_due;
    unsigned gen; /* the prof_gen this recorder belongs to */
    enum prof_mode mode;
    struct prof_idslot *slots;
    uint32_t mask;
    uint32_t nslots; /* used slots: ids plus filtered-out functions */
    struct prof_frame *stack;
    uint32_t stack_cap; /* frames the stack has room for (prof_stack_grow) */
    int stack_stuck;    /* it could not grow: never again, so a frame folded stays folded */
    uint32_t epoch;     /* buffer writes so far: a folded call needs its enter record still there */
    /* Called on every stop (the frame at depth d still on the stack) when a feature watches
       stops: the live report (live.c). NULL: none. */
    void (*on_stop)(struct prof_thread *t, uint32_t d, uint64_t now);

    struct prof_summary summary;       /* summary mode */
    struct prof_hooks_state hooks;     /* function hooks */
    struct prof_sample_state sampling; /* CPU-time samples (sampled timing) */

    /* cold */
    pthread_mutex_t lock;    /* guards fd, flushed, ids; order: run lock, then this */
    uint64_t flush_interval; /* PROFILER_FLUSH_INTERVAL in ticks; 0: write only when full */
    uint64_t frequency;      /* the run's ticks per second */
    unsigned mod_gen;        /* the prof_mod_gen its id table was filled under */
    /* events dropped because they came while the collector ran on this thread (a signal
       handler): the owner's thread-local counter, and how much of it earlier runs reported */
    const uint64_t *dropped;
    uint64_t dropped_seen;
    int fd;
    struct prof_part_id part_id; /* the file fd was opened on: checked before each write */
    /* Summary mode: where the part's last snapshot (PRFP) begins and where what the snapshot
       wrote ends; 0 when none. The next one is written over it when nothing came after. */
    off_t snap_at, snap_end;
    uint32_t flushed;           /* words of buf already written */
    const char **ids;           /* index -> id text (a function's name for a function) */
    const struct prof_fn **fns; /* index -> the function, or NULL for a region id */
    uint32_t nids, ids_cap, ids_written;
    /* The functions among the ids marked inlined (PRFJ) when the part last named them: their
       count, and the prof_inlined_gen and nids it looked at */
    uint32_t inlined_written, inlined_nids;
    unsigned inlined_gen;
    unsigned number;
    pid_t tid;
    /* The owning thread, whose CPU clock another thread reads at the run's end, and the CPU
       time (its clock) and CLOCK_MONOTONIC time when it began recording the run, in ns:
       ThreadCpu (FORMAT.md 1.2) costs two clock reads per thread and run, none per event */
    pthread_t owner;
    uint64_t cpu_begin_ns, wall_begin_ns, wait_begin_ns;
    int cpu_known;  /* cpu_begin_ns was read */
    int wait_known; /* wait_begin_ns was read (the kernel's schedstat: run-queue wait) */
    char name[PROF_NAME_MAX];
    int registered, fork_pending;
    int hooks_pooled; /* its hooks' samples and calls are in the run's pool (hook_ticks) */
    uint64_t stray, mismatch, depth_limit;
    /* PROFILER_MAX_EVENTS: the run's cap (0: none) and its count of region instances, added to
       at each buffer write; serial_counted: this thread's instances counted so far */
    uint64_t max_events;
    uint64_t *events_total;
    uint32_t serial_counted;
    int capped;            /* the cap was reached: the thread counts in summary mode */
    uint64_t stray_at_cap; /* stray stops before the cap, in the event stream */
    uint64_t unwound; /* frames closed because their stack frame was gone (prof_unwound_check) */
    /* The thread's own stack: positions on another one (sigaltstack, a coroutine's) are never
       compared with it */
    uintptr_t stack_lo, stack_hi;
    char *path;
    struct prof_live_state *live;    /* live.c's, or NULL */
    struct prof_mem_counts *mem;     /* memcheck.c's, or NULL */
    struct prof_thread *next, *prev; /* the run's registry of live threads (run.c) */
};

/* Run-level facts a recorder needs to start its part file. */
struct prof_run_info {
    const char *dir, *runname, *header; /* header: NUL-separated key/value pairs, run-level */
    int dirfd; /* dir, open: parts are made relative to it (AT_FDCWD: by path) */
    size_t header_len;
    uint64_t base_ticks;
    enum prof_mode mode;
    uint64_t frequency;
    uint64_t live_interval;  /* PROFILER_REPORT_INTERVAL in ticks; 0: no live report */
    uint64_t flush_interval; /* PROFILER_FLUSH_INTERVAL in ticks; 0: write when full */
    uint64_t max_events;     /* PROFILER_MAX_EVENTS; 0: no cap */
    uint64_t *events_total;  /* the run's region instances written so far (atomic) */
    uint32_t max_nodes;      /* PROFILER_MAX_NODES: calling contexts per thread */
    /* PROFILER_TIMING=sampled with a working sampler: its method (sample.h; 0: exact timing),
       period and signal, and the mean wall time below which a context's calls stop being
       timed, in ticks */
    int sample_method;
    uint64_t sample_period_ns;
    uint64_t short_ticks;
};

/* Mark the thread's current recorder busy (status.h); compiler barriers keep every change of
   collector state between the two marks, where a signal handler sees them. */
static inline void prof_busy_mark(struct prof_thread *t)
{
    t->gen |= PROF_GEN_BUSY;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
}
static inline void prof_busy_unmark(struct prof_thread *t)
{
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    t->gen &= ~PROF_GEN_BUSY;
}

/* Recompute lean_room after any of its inputs changed: summary.lean, hooks.excess,
   summary.start_limit (the stack's room while lean), hooks.max_depth. */
static inline void prof_lean_refresh(struct prof_thread *t)
{
    uint32_t limit =
        t->summary.start_limit < t->hooks.max_depth ? t->summary.start_limit : t->hooks.max_depth;
    t->lean_room = t->summary.lean && !t->hooks.excess && limit > 0 ? limit - 1 : 0;
}

/*
 * What a collector slow path keeps of the program's thread state (prof_host_hold): its
 * cancellation state and its errno.
 */
struct prof_host {
    int cancel, err;
};

/*
 * The collector's slow paths make calls that are cancellation points of the C library (open,
 * write, and what libdw and stdio call): a host thread cancelled inside one would unwind with
 * the run's or its recorder's lock held. They also make calls that fail as a matter of course
 * and set errno (a folder that exists, a debug file that is not installed, a perf event the
 * kernel refuses), where the program may read errno after a call of its own with a region's
 * first start, or an instrumented function's first call, in between. Each slow path that may
 * reach one holds the thread's cancellation off (not itself a cancellation point) and keeps
 * errno, and gives both back after, with no lock held: a pending request then takes effect at
 * the host's next cancellation point, and errno is what the program left.
 */
static inline struct prof_host prof_host_hold(void)
{
    struct prof_host h = {PTHREAD_CANCEL_ENABLE, errno};
    pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &h.cancel);
    return h;
}
static inline void prof_host_release(struct prof_host h)
{
    if (h.cancel != PTHREAD_CANCEL_DISABLE)
        pthread_setcancelstate(h.cancel, &h.cancel);
    errno = h.err;
}

/* The calling thread's recorder; initial-exec: one instruction to reach it. */
extern __thread struct prof_thread *prof_self __attribute__((tls_model("initial-exec")))
PROF_INTERNAL;

/* The calling thread's recorder for the current run, NULL when nothing is to be recorded: on the
   thread's first event or after the run changed (prof_gen), what slow gives (the entry point's
   slow path, prof_attach or the function hooks' own). Inlined with slow known, the hot path
   stays one load and one compare. */
static inline __attribute__((always_inline)) struct prof_thread *
prof_current(struct prof_thread *(*slow)(void))
{
    struct prof_thread *t = prof_self;
    if (PROF_UNLIKELY(!t || t->gen != PROF_LOAD(prof_gen)))
        t = slow();
    return t;
}

/* The calling thread's recorder, or NULL. */
struct prof_thread *prof_thread_self(void);
void prof_thread_set_self(struct prof_thread *t);
/* Make room for twice as many frames (at most PROF_MAX_DEPTH): 0, or -1 when the stack is at
   PROF_MAX_DEPTH or memory ran out (the caller folds the frame: depth_limit). */
int prof_stack_grow(struct prof_thread *t);
/* Allocate an empty recorder; NULL when memory runs out. */
struct prof_thread *prof_thread_new(void);
/* Start recording the current run into a new part file (under the run lock). */
enum prof_error prof_thread_begin(struct prof_thread *t, const struct prof_run_info *run,
                                  unsigned number, int keep_stack);
/* Write everything still in memory and the end chunk, then close (takes t->lock). */
void prof_thread_end(struct prof_thread *t, const char *state);

/* Sampled timing: put the hooks' samples and calls of t (t->lock held, or t the caller's own)
   into the run's pool, once, which a thread whose own samples are too few to measure its
   hooks' cost takes instead (thread.c, hook_ticks). prof_thread_pool_reset empties it (a fork
   child's new run; async-signal-safe). */
void prof_thread_pool_hooks(struct prof_thread *t);
void prof_thread_pool_reset(void);
/* Free a recorder. */
void prof_thread_free(struct prof_thread *t);
/* Empty the id table, so every key is looked up again (a module was unloaded). */
void prof_thread_forget_keys(struct prof_thread *t);
/* Forget the parent's file and buffer in a fork child (async-signal-safe). */
void prof_thread_forked(struct prof_thread *t);
/* Name the recording thread now: in its part at once (t->gen current, marked busy here). */
void prof_thread_rename(struct prof_thread *t, const char *name);
/* Name the calling thread when it next begins recording; t (its stale recorder) or NULL. */
void prof_thread_name_later(struct prof_thread *t, const char *name);
/* The program crashed: write what the part lacks and the crash chunk (mark, len bytes), from a
   signal handler that holds t->lock (crash.c); 0 or an errno value. */
int prof_thread_crash_write(struct prof_thread *t, const void *mark, size_t len);
/* Write one warning chunk (kind, count, message) into the part (t->lock held, a feature's
   thread_write hook); 0 or an errno value. */
int prof_thread_write_warning(struct prof_thread *t, const char *kind, uint64_t count,
                              const char *message);

/* Slot index of the id table meaning "filtered out: record nothing" (function hooks only). */
#define PROF_IDX_SKIP 0xfffffffeu

/* A key seen for the first time on this thread; fn is NULL for a region id text. */
uint32_t prof_id_add(struct prof_thread *t, const void *key, const struct prof_fn *fn);
/* The cold halves of prof_summary_start and prof_summary_stop (thread.c), and the batch of
   histogram updates (owner thread). */
void prof_summary_start_slow(struct prof_thread *t, const void *id, const struct prof_fn *fn,
                             uint32_t idx, uint32_t d, uintptr_t where);
void prof_summary_stop_slow(struct prof_thread *t, uint32_t d, uint64_t now);
void prof_summary_apply(struct prof_thread *t);

/* The node of the frame at depth d - 1, or the root at depth 0, without the fold mark: the
   node a child at depth d hangs under. */
static inline struct prof_node *prof_node_above(struct prof_thread *t, uint32_t d)
{
    struct prof_node *p = d ? t->stack[d - 1].node : &t->summary.cct.root;
    return (struct prof_node *)((uintptr_t)p & ~(uintptr_t)1);
}

/* The calling context of a region at depth d with id-table key key (index idx): the node found
   or added below the frame above, or that frame's own node, marked, to fold into when none is
   left. */
static inline __attribute__((always_inline)) struct prof_node *
prof_node_for(struct prof_thread *t, uint32_t d, const void *key, uint32_t idx)
{
    struct prof_node *parent = prof_node_above(t, d);
    struct prof_node *n = prof_cct_child(&t->summary.cct, parent, key, idx, t->summary.canon);
    return PROF_LIKELY(n != NULL) ? n : (struct prof_node *)((uintptr_t)parent | 1);
}

/* Summary mode: push a region or function at depth d in its calling context (counted when it
   stops). Inline, as the events mode's records are: the hot path makes no call. */
static inline __attribute__((always_inline)) void
prof_summary_start(struct prof_thread *t, const void *id, const struct prof_fn *fn, uint32_t idx,
                   uint32_t d, uintptr_t where)
{
    if (PROF_UNLIKELY(d >= t->summary.start_limit)) {
        prof_summary_start_slow(t, id, fn, idx, d, where);
        return;
    }
    struct prof_frame *f = &t->stack[d];
    struct prof_node *n = prof_node_for(t, d, id, idx);
    f->node = n;
    f->id = id;
    f->fn = fn;
    f->idx = idx;
    f->serial = ++t->serial;
    f->child = 0;
    f->where = where;
    /* Sampled timing: a function whose context proved short (or that folds) is only counted. */
    if (t->summary.sampled && fn && (((uintptr_t)n & 1) || n->untimed)) {
        f->start = PROF_UNTIMED;
        return;
    }
    f->interrupts0 = t->sampling.interrupts;
    f->start = prof_ticks(); /* last: the region's time starts after our bookkeeping */
}

/* The time a stop at depth d needs: none (0) for a call that read no clock at its start,
   unless the live report watches stops. */
static inline __attribute__((always_inline)) uint64_t prof_stop_ticks(const struct prof_thread *t,
                                                                      uint32_t d)
{
    if (t->stack[d].start == PROF_UNTIMED && !t->on_stop)
        return 0;
    return prof_ticks();
}

/* The sampled-timing half of prof_summary_stop: a timed call (now its end) counted in its
   node's wall statistics, after which the node may stop being timed. */
void prof_summary_stop_timed(struct prof_thread *t, struct prof_frame *f, uint64_t now);

/* Summary mode: close the frame at depth d at time now. */
static inline __attribute__((always_inline)) void prof_summary_stop(struct prof_thread *t,
                                                                    uint32_t d, uint64_t now)
{
    struct prof_frame *f = &t->stack[d];
    if (PROF_UNLIKELY(d < t->summary.stream_depth || d >= t->stack_cap ||
                      ((uintptr_t)f->node & 1))) {
        prof_summary_stop_slow(t, d, now);
        return;
    }
    struct prof_node *n = f->node;
    if (t->summary.sampled) {
        if (PROF_LIKELY(f->start == PROF_UNTIMED)) {
            PROF_STORE(n->st.calls, n->st.calls + 1);
            return;
        }
        prof_summary_stop_timed(t, f, now);
        return;
    }
    uint64_t ticks = now > f->start ? now - f->start : 0;
    uint64_t self_ticks = ticks > f->child ? ticks - f->child : 0;
    if (d > 0)
        t->stack[d - 1].child += ticks;
    prof_stats_count(&n->st, ticks, self_ticks);
    uint64_t *slot = prof_stats_slot(&t->summary.cct, &n->st, ticks, 0);
    uint32_t k = t->summary.npending;
    t->summary.pending[k] = PROF_LIKELY(slot != NULL) ? slot : &t->summary.lost;
    t->summary.npending = k + 1;
    if (PROF_UNLIKELY(k + 1 == PROF_PENDING))
        prof_summary_apply(t);
}
/* Write the buffer (full, or its flush deadline passed) and start it again. */
void prof_thread_flush(struct prof_thread *t);
/* Summary mode: write a snapshot of the statistics (the flush deadline passed). */
void prof_thread_snapshot(struct prof_thread *t, uint64_t now);
/* The collector's own slow path took spent ticks on t's thread (describing a function,
   patching a call out, writing a snapshot): no call's time (owner thread). */
void prof_thread_hide(struct prof_thread *t, uint64_t spent);

/* Summary mode, after a stop at time now: a snapshot when the flush deadline has passed. In
   the callers, where now is in a register already, not in prof_summary_stop. */
static inline void prof_summary_due(struct prof_thread *t, uint64_t now)
{
    /* Sampled timing: now is 0 after a call that read no clock, and the sampler sets flush_at
       to 0 once the deadline passed. */
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

/* Close the innermost frames while their stack position is below `below` or equal to `same`
   (0: none), counting them unwound; returns how many. The cold half of prof_unwound_check. */
uint32_t prof_close_unwound(struct prof_thread *t, uintptr_t below, uintptr_t same);

/*
 * Before an event from stack position here: close the innermost frames that belong to here's
 * own stack frame (regions opened from here, function frames at here, as gcc's hooks of
 * inlined functions are) and cannot be live, with every frame opened after them. For a scope
 * whose token lives at token (nonzero): a region whose token was there (the same block entered
 * again after a longjmp out of it). For a function called from site whose enter hook returns to
 * hook (token 0): a function frame at here with another call site (a frame a longjmp left,
 * whose address a new call reuses), or with the same hook return address (the same code
 * entered again: an inlined function shares its container's position and call site, but each
 * inlined copy calls the hook from its own place, and never nests in itself, even when gcc
 * inlines a recursive function into itself). Returns the frames closed.
 */
uint32_t prof_close_reused(struct prof_thread *t, uintptr_t here, uintptr_t token, const void *site,
                           const void *hook);

/*
 * Before an event from stack position `below` (the caller's stack pointer, which every live
 * frame's position is at or above: stacks grow down), close the innermost frames that a
 * longjmp left: their position is lower, so the stack frame holding their token, or the
 * instrumented function itself, is gone. One compare while nothing was left; a region placed
 * by hand (PROF_WHERE_NONE) stops the search. Returns the frames closed.
 */
static inline __attribute__((always_inline)) uint32_t prof_unwound_check(struct prof_thread *t,
                                                                         uintptr_t below)
{
    uint32_t k = t->depth - 1;
    if (PROF_LIKELY(k >= t->stack_cap || t->stack[k].where >= below))
        return 0;
    return prof_close_unwound(t, below, 0);
}

/* The caller's stack pointer at the call into the collector, in an exported entry point. */
#define PROF_CALLER_SP() ((uintptr_t)__builtin_dwarf_cfa())

#endif /* PROF_THREAD_H */
