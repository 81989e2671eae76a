/*
 * thread.c - the recorder of one thread: it appends small event words to a buffer it owns and
 * writes the buffer to its own part file when it fills. No lock and no allocation per event.
 */
#define _GNU_SOURCE /* pthread_getattr_np */
#include "thread.h"

#include "csvwrite.h"
#include "fileutil.h"
#include "hash.h"
#include "hooks.h"
#include "leftout.h"
#include "memtab.h" /* prof_mem_map: buffers straight from the kernel */
#include "partwrite.h"
#include "strbuf.h"
#include "summary.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/* initial-exec: one instruction to reach the pointer, instead of a __tls_get_addr call. */
__thread struct prof_thread *prof_self __attribute__((tls_model("initial-exec")));
/* A name given before the thread's first region: naming alone creates no part file. */
static __thread char pending_name[PROF_NAME_MAX] __attribute__((tls_model("initial-exec")));

struct prof_thread *prof_thread_self(void) { return prof_self; }
void prof_thread_set_self(struct prof_thread *t) { prof_self = t; }

/* Where the calling thread's stack lies; the whole address space when that is unknown. */
static void stack_bounds(struct prof_thread *t)
{
    t->stack_lo = 0;
    t->stack_hi = UINTPTR_MAX;
    pthread_attr_t attr;
    void *lo;
    size_t size;
    prof_mem_quiet_begin(); /* the main thread's bounds come from /proc/self/maps, via stdio */
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &lo, &size) == 0 && size) {
            t->stack_lo = (uintptr_t)lo;
            t->stack_hi = (uintptr_t)lo + size;
        }
        pthread_attr_destroy(&attr);
    }
    prof_mem_quiet_end();
}

/* Allocate an empty recorder (on the thread it records). */
struct prof_thread *prof_thread_new(void)
{
    struct prof_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    t->fd = -1;
    t->sampling.fd = -1;
    t->dropped = prof_dropped_counter(); /* prof_attach makes the recorder on its own thread */
    stack_bounds(t);
    pthread_mutex_init(&t->lock, NULL);
    prof_cct_init(&t->summary.cct, PROF_MAX_NODES_DEFAULT, &t->lock);
    return t;
}

/* Free summary mode's tree and text tables. */
static void stats_free(struct prof_thread *t)
{
    struct prof_summary *s = &t->summary;
    prof_cct_free(&s->cct);
    free(s->canon);
    free(s->texts);
    s->canon = s->texts = NULL;
    s->tmask = 0;
}

/* Free a recorder and everything it owns. */
void prof_thread_free(struct prof_thread *t)
{
    if (!t)
        return;
    prof_part_close(&t->fd, &t->part_id); /* a fork child's copy may have another's number */
    stats_free(t);
    if (t->buf)
        prof_mem_unmap(t->buf, PROF_BUFFER_WORDS * sizeof *t->buf);
    if (t->stack)
        prof_mem_unmap(t->stack, t->stack_cap * sizeof *t->stack);
    free(t->slots);
    free(t->ids);
    free(t->fns);
    prof_hooks_thread_free(t);
    free(t->path);
    pthread_mutex_destroy(&t->lock);
    free(t);
}

/* Append a NUL-ended string (NULL as an empty one). */
static void add_cstr(struct prof_sbuf *b, const char *s)
{
    if (s)
        prof_sbuf_str(b, s);
    prof_sbuf_char(b, 0);
}

/* Append v in hexadecimal with a 0x prefix ("0x1470"), without printf: the crash path builds
   its chunks here too (prof_thread_crash_write). */
static void add_hex(struct prof_sbuf *b, uint64_t v)
{
    char num[19], *p = num + sizeof num;
    do {
        *--p = "0123456789abcdef"[v & 15];
        v >>= 4;
    } while (v);
    *--p = 'x';
    *--p = '0';
    prof_sbuf_add(b, p, (size_t)(num + sizeof num - p));
}

/* Write where the functions among the new ids come from, as one PRFL chunk built in b (t->lock
   held). */
static int write_locations(struct prof_thread *t, struct prof_sbuf *b)
{
    b->len = 0;
    for (uint32_t i = t->ids_written; i < t->nids; i++) {
        const struct prof_fn *fn = t->fns[i];
        if (!fn)
            continue;
        prof_sbuf_add(b, (const char *)&i, sizeof i);
        add_cstr(b, fn->file);
        if (fn->file)
            prof_sbuf_u64(b, fn->line);
        prof_sbuf_char(b, 0);
        add_cstr(b, fn->module);
        add_hex(b, fn->offset);
        prof_sbuf_char(b, 0);
    }
    int err = b->failed ? ENOMEM : 0;
    if (!err && b->len)
        err = prof_part_write(t->fd, PROF_CHUNK_LOCATIONS, b->data, b->len);
    /* Their modules' build ids, each module once per chunk: the reporter reads the functions'
       source lines from a module only if it is still the one that ran */
    b->len = 0;
    for (uint32_t i = t->ids_written; !err && i < t->nids; i++) {
        const struct prof_fn *fn = t->fns[i];
        if (!fn || !fn->build_id || !fn->module)
            continue;
        uint32_t k = t->ids_written;
        while (k < i && !(t->fns[k] && t->fns[k]->build_id && t->fns[k]->module &&
                          strcmp(t->fns[k]->module, fn->module) == 0))
            k++;
        if (k < i)
            continue;
        add_cstr(b, fn->module);
        add_cstr(b, fn->build_id);
    }
    if (!err && b->failed)
        err = ENOMEM;
    if (!err && b->len)
        err = prof_part_write(t->fd, PROF_CHUNK_BUILD_IDS, b->data, b->len);
    /* The functions among them that have no hooks (their rows' calls are not counted) */
    b->len = 0;
    for (uint32_t i = t->ids_written; !err && i < t->nids; i++)
        if (t->fns[i] && t->fns[i]->uninstrumented)
            prof_sbuf_add(b, (const char *)&i, sizeof i);
    if (!err && b->failed)
        err = ENOMEM;
    if (!err && b->len)
        err = prof_part_write(t->fd, PROF_CHUNK_UNINSTRUMENTED, b->data, b->len);
    return err;
}

/*
 * Write which functions among the ids have copies inlined into other functions, as one PRFJ
 * chunk built in b, when a function was marked since the part last said (t->lock held): all of
 * them again, as a mark may come after the function's id was written (a first call out of
 * line, a later one inlined).
 */
static int write_inlined(struct prof_thread *t, struct prof_sbuf *b)
{
    unsigned gen = __atomic_load_n(&prof_inlined_gen, __ATOMIC_ACQUIRE);
    if (gen == t->inlined_gen && t->nids == t->inlined_nids)
        return 0;
    b->len = 0;
    uint32_t n = 0;
    for (uint32_t i = 0; i < t->nids; i++)
        if (t->fns[i] && __atomic_load_n(&t->fns[i]->inlined, __ATOMIC_ACQUIRE)) {
            prof_sbuf_add(b, (const char *)&i, sizeof i);
            n++;
        }
    if (b->failed)
        return ENOMEM;
    int err =
        n > t->inlined_written ? prof_part_write(t->fd, PROF_CHUNK_INLINED, b->data, b->len) : 0;
    if (!err) {
        t->inlined_gen = gen;
        t->inlined_nids = t->nids;
        if (n > t->inlined_written)
            t->inlined_written = n;
    }
    return err;
}

/* Write the ids defined since the last write as one PRFI chunk, and their functions'
   locations, built in b (t->lock held); then the inlined functions if that changed. */
static int write_ids(struct prof_thread *t, struct prof_sbuf *b)
{
    if (t->ids_written == t->nids)
        return t->fns ? write_inlined(t, b) : 0;
    b->len = 0;
    for (uint32_t i = t->ids_written; i < t->nids; i++) {
        uint32_t hdr[2] = {i, (uint32_t)strlen(t->ids[i])};
        prof_sbuf_add(b, (const char *)hdr, sizeof hdr);
        prof_sbuf_add(b, t->ids[i], hdr[1]);
    }
    int err = b->failed ? ENOMEM : prof_part_write(t->fd, PROF_CHUNK_IDS, b->data, b->len);
    if (!err)
        err = write_locations(t, b);
    if (!err)
        t->ids_written = t->nids;
    if (!err && t->fns)
        err = write_inlined(t, b);
    return err;
}

/* Write the buffered event words from t->flushed to pos (t->lock held). */
static int write_events(struct prof_thread *t, uint32_t pos)
{
    int err = 0;
    if (pos > t->flushed)
        err = prof_part_write(t->fd, PROF_CHUNK_EVENTS, t->buf + t->flushed,
                              (size_t)(pos - t->flushed) * 4);
    if (!err)
        t->flushed = pos;
    return err;
}

/*
 * Whether the part may be written (t->lock held): its descriptor is still the file the
 * collector made. The program may have closed it (closefrom) and got the number back for a
 * file of its own, or put another file there (dup2): then recording stops with one warning, and
 * the descriptor, no longer ours, is neither written nor closed.
 */
static int part_writable(struct prof_thread *t)
{
    if (t->fd < 0)
        return 0;
    if (prof_part_is(t->fd, &t->part_id))
        return 1;
    t->fd = -1;
    prof_fail("the program closed or reused the descriptor of", t->path, EBADF);
    return 0;
}

/* Write new ids and the unwritten event words (t->lock held); 0 or an errno value. */
static int write_pending(struct prof_thread *t)
{
    if (t->fd < 0)
        return 0;
    uint32_t pos = __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE);
    struct prof_sbuf b = {0};
    int err = write_ids(t, &b);
    prof_sbuf_release(&b);
    if (!err)
        err = write_events(t, pos);
    return err;
}

/* The overhead samples a thread needs before their cost per call is taken out of Wall: the
   estimate's relative error is about 1 / sqrt(samples), 18 % here. */
#define PROF_HOOK_SAMPLES 30u

/* Sampled timing: what taking the thread's samples cost it so far, in ns (sample.c's
   sample_cost, and the handler's work after it). */
static double sample_cost_ns(const struct prof_thread *t)
{
    const struct prof_sample_state *s = &t->sampling;
    double ticks = (double)PROF_LOAD(s->cost_ticks);
    return (double)PROF_LOAD(s->cost_ns) + (t->frequency ? ticks * 1e9 / (double)t->frequency : 0);
}

static int64_t thread_cpu_ns(const struct prof_thread *t);

/*
 * Sampled timing: the program's CPU time a sample stands for, in ticks; 0 for a thread that
 * times every call. That is the period, less what taking a sample cost the thread on average
 * (measured at each sample, sample.c): the period's count holds that cost, which would
 * otherwise land on whatever the next sample charges, inflating every time by the same share
 * (5 to 8 % at the default 250 us on a virtual machine).
 *
 * A thread that a CPU-time timer sampled (PROFILER_SAMPLER=timer, or a trade of the perf
 * event) has its samples stand for its CPU time so far, less that measured cost, over their
 * number: the scheduler's tick checks the timer only while the thread runs, and the periods
 * that passed since its last expiry went unsampled (all of the thread's last ones; a thread
 * that ran in short bursts on a busy machine, woken 3,000 times, had 40 to 60 % of its CPU
 * time unsampled). Its samples are taken to be a fair draw of its time.
 */
static double sample_period_ticks(const struct prof_thread *t)
{
    if (!t->summary.sampled)
        return 0;
    double ns = (double)t->sampling.period_ns;
    uint64_t samples = PROF_LOAD(t->sampling.samples);
    int64_t cpu =
        samples && PROF_LOAD(t->sampling.timer_samples) && t->cpu_known ? thread_cpu_ns(t) : -1;
    if (cpu > 0 && (uint64_t)cpu > t->cpu_begin_ns) {
        double net =
            ((double)((uint64_t)cpu - t->cpu_begin_ns) - sample_cost_ns(t)) / (double)samples;
        if (net > 0)
            ns = net;
    } else if (samples) {
        double cost = sample_cost_ns(t) / (double)samples;
        if (cost < ns / 2)
            ns -= cost;
    }
    /* A whole number of ticks, so that times made of samples add up exactly: a path's Ticks
       equals its own and its children's rows summed (a fraction rounded per row made the rows
       of a recursion's callees exceed their caller's by a tick each). Off by half a tick a
       period at most: a millionth of a 250 us period. */
    uint64_t p = (uint64_t)(ns * (double)t->frequency / 1e9 + 0.5);
    return p ? (double)p : 1;
}

/* Sampled timing: the thread's samples that landed in the hooks' fast path (overhead outside
   the slow paths), which measure what a call's hooks cost (hook_ticks). */
static uint64_t hook_samples(const struct prof_thread *t)
{
    return PROF_LOAD(t->sampling.overhead) - PROF_LOAD(t->sampling.slow);
}

/* The calls a thread's hooks saw: those counted and those the filters left out (their hooks
   run too). */
static uint64_t hook_calls(const struct prof_thread *t)
{
    return prof_cct_calls(&t->summary.cct) + PROF_LOAD(t->hooks.skipped);
}

/* The hooks' samples and calls of the run's sampled threads that put theirs in (prof_thread_
   pool_hooks): a thread whose own samples are too few to measure its hooks' cost takes the
   pooled figure (hook_ticks). A thread's hooks run the same code as the others'. */
static uint64_t pool_hot, pool_calls;

void prof_thread_pool_hooks(struct prof_thread *t)
{
    if (!t->summary.sampled || t->hooks_pooled)
        return;
    t->hooks_pooled = 1;
    __atomic_add_fetch(&pool_hot, hook_samples(t), __ATOMIC_RELAXED);
    __atomic_add_fetch(&pool_calls, hook_calls(t), __ATOMIC_RELAXED);
}

void prof_thread_pool_reset(void)
{
    __atomic_store_n(&pool_hot, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&pool_calls, 0, __ATOMIC_RELAXED);
}

/*
 * Sampled timing: what the hooks of one call cost this thread, in ticks, measured rather than
 * calibrated: *hot, the samples that landed in the hooks' fast path (hook_samples), times the
 * period, over the calls the hooks saw (hook_calls). Too few samples say too little (one
 * sample over a handful of calls would take a period off each): below PROF_HOOK_SAMPLES the
 * run's pooled samples and calls (with the thread's own, when not yet in), when they are
 * enough, and *hot becomes their count; else 0, nothing taken out.
 */
static double hook_ticks(const struct prof_thread *t, double period_ticks, uint64_t *hot)
{
    uint64_t calls = hook_calls(t);
    if (*hot < PROF_HOOK_SAMPLES) {
        uint64_t h = __atomic_load_n(&pool_hot, __ATOMIC_RELAXED);
        uint64_t c = __atomic_load_n(&pool_calls, __ATOMIC_RELAXED);
        if (!t->hooks_pooled) {
            h += *hot;
            c += calls;
        }
        if (h < PROF_HOOK_SAMPLES || !calls || !c || period_ticks <= 0)
            return 0;
        *hot = h;
        return (double)h * period_ticks / (double)c;
    }
    if (!calls || period_ticks <= 0)
        return 0;
    return (double)*hot * period_ticks / (double)calls;
}

/* The CPU time the thread of t has used, in ns; -1 when it cannot be read. Its own clock on
   its own thread, else through pthread_getcpuclockid: a registered thread is alive. */
static int64_t thread_cpu_ns(const struct prof_thread *t)
{
    clockid_t id = CLOCK_THREAD_CPUTIME_ID;
    if (t != prof_self && pthread_getcpuclockid(t->owner, &id) != 0)
        return -1;
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0)
        return -1;
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/*
 * The time the thread of t has spent runnable but waiting for a CPU, in ns: the second field
 * of the kernel's schedstat (its run-queue delay), which grows when other tasks compete for
 * the CPUs. -1 when the kernel does not say (no /proc, no schedstat).
 */
static int64_t thread_wait_ns(const struct prof_thread *t)
{
    char path[64], text[96];
    if (t == prof_self)
        snprintf(path, sizeof path, "/proc/thread-self/schedstat");
    else
        snprintf(path, sizeof path, "/proc/self/task/%ld/schedstat", (long)t->tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    if (n <= 0)
        return -1;
    text[n] = 0;
    /* "<ns on a CPU> <ns waiting on a run queue> <timeslices>" */
    char *p = text, *end;
    strtoull(p, &end, 10);
    if (end == p || *end != ' ')
        return -1;
    p = end + 1;
    unsigned long long wait = strtoull(p, &end, 10);
    if (end == p)
        return -1;
    return (int64_t)wait;
}

/* Write the thread's CPU, wall and run-queue wait time since it began recording the run, as a
   PRFC chunk (t->lock held, t->fd open); nothing when its CPU clock cannot be read, and no wait
   when the kernel does not say it. At each buffer write and snapshot, so a killed run's threads
   keep theirs up to their last write, and at the end. */
static int write_cpu(struct prof_thread *t)
{
    int64_t cpu = thread_cpu_ns(t);
    if (!t->cpu_known || cpu < 0)
        return 0;
    int64_t wait = t->wait_known ? thread_wait_ns(t) : -1;
    uint64_t wait_ns =
        wait >= 0 && (uint64_t)wait > t->wait_begin_ns ? (uint64_t)wait - t->wait_begin_ns : 0;
    /* the period the rows were written with (write_summary_rows); the hooks' samples read once
       for the cost and the count that measured it */
    uint64_t hot = hook_samples(t);
    double hook_ps = t->summary.sampled && t->frequency
                         ? hook_ticks(t, sample_period_ticks(t), &hot) * 1e12 / (double)t->frequency
                         : 0;
    uint64_t wall = prof_monotonic_ns() - t->wall_begin_ns;
    /* The sample counts with no call between their reads (a sanitizer hands a deferred signal
       to the thread in a call it intercepts, such as clock_gettime): the timer's signals, then
       its samples, then all samples, so that a sample between two reads leaves each at most
       the next, as they are. Samples, overhead and outside must add up: a sample counted
       between the reads of the first and the others (the handler adds to samples first) made
       the three read one more than samples under TSan, so they are read again, a few times
       at most, until samples did not move across them. */
    uint64_t draws, timer, samples, overhead, outside;
    for (int tries = 0;; tries++) {
        draws = PROF_LOAD(t->sampling.timer_draws);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        timer = PROF_LOAD(t->sampling.timer_samples);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        samples = PROF_LOAD(t->sampling.samples);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        overhead = PROF_LOAD(t->sampling.overhead);
        outside = PROF_LOAD(t->sampling.outside);
        __atomic_signal_fence(__ATOMIC_SEQ_CST);
        if (PROF_LOAD(t->sampling.samples) == samples || tries == 7)
            break;
    }
    /* A sampled thread's record always has the wait: UINT64_MAX when the kernel does not say
       it (format.h). */
    uint64_t rec[11] = {(uint64_t)cpu > t->cpu_begin_ns ? (uint64_t)cpu - t->cpu_begin_ns : 0,
                        wall,
                        wait >= 0 ? wait_ns : UINT64_MAX,
                        samples,
                        overhead,
                        outside +
                            prof_leftout_unnamed_under(&t->sampling.leftout, &t->summary.cct.root),
                        (uint64_t)(hook_ps + 0.5),
                        (uint64_t)(sample_cost_ns(t) + 0.5),
                        timer,
                        draws,
                        hot};
    size_t len = t->summary.sampled ? PROF_CPU_RECORD_SAMPLED_HOOK
                 : wait >= 0        ? PROF_CPU_RECORD_WAIT
                                    : PROF_CPU_RECORD;
    return prof_part_write(t->fd, PROF_CHUNK_CPU, rec, len);
}

static int summary_alloc(struct prof_thread *t, uint32_t cap);
static uint32_t text_find_or_add(struct prof_thread *t, uint32_t i);

/*
 * PROFILER_MAX_EVENTS reached (t->lock held, owner thread): from now on the thread counts in
 * summary mode. Every id gets its text's first index; the regions open now still end in the
 * event stream (prof_summary_stop), so each instance is either a row of the events table (it
 * started before the cap) or counted in the summary section (after it). On failure (memory)
 * the thread stays in events mode and tries again at its next write.
 */
static __attribute__((cold)) void cap_events(struct prof_thread *t)
{
    if (summary_alloc(t, t->ids_cap ? t->ids_cap : 64) != 0)
        return;
    for (uint32_t i = 0; i < t->nids; i++)
        t->summary.canon[i] = text_find_or_add(t, i);
    t->summary.npending = 0;
    t->summary.stream_depth = t->depth;
    /* The frame being entered, if any, is filled in after this: its statistics wait for the
       first event counted in summary mode. */
    t->summary.start_limit = 0;
    prof_lean_refresh(t);
    t->stray_at_cap = t->stray;
    t->capped = 1;
    t->mode = PROF_MODE_SUMMARY;
    static int warned;
    if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
        prof_warn("PROFILER_MAX_EVENTS=%llu reached: region instances after it are counted "
                  "per region, not listed (see Warning,max-events)",
                  (unsigned long long)t->max_events);
}

/* Events mode, at a buffer write: add the region instances started since the last one to the
   run's count, and stop the event stream when it reaches PROFILER_MAX_EVENTS (t->lock held). */
static void count_events(struct prof_thread *t)
{
    uint32_t n = t->serial - t->serial_counted;
    t->serial_counted = t->serial;
    if (__atomic_add_fetch(t->events_total, n, __ATOMIC_RELAXED) >= t->max_events &&
        t->mode == PROF_MODE_EVENTS)
        cap_events(t);
}

/* The buffer is full, or its flush deadline passed: write it and start again at its
   beginning. */
__attribute__((noinline)) void prof_thread_flush(struct prof_thread *t)
{
    struct prof_host host = prof_host_hold();
    prof_mem_quiet_begin(); /* the collector's allocations are not the program's */
    prof_process_check();   /* a child of _Fork drops the parent's buffer and part here */
    pthread_mutex_lock(&t->lock);
    part_writable(t);
    int err = write_pending(t);
    if (!err && t->fd >= 0)
        err = write_cpu(t);
    if (err) {
        close(t->fd);
        t->fd = -1;
        prof_fail("cannot write", t->path, err);
    }
    if (t->max_events && !t->capped)
        count_events(t);
    t->flushed = 0;
    t->epoch++;
    __atomic_store_n(&t->pos, 0, __ATOMIC_RELEASE);
    /* Everything up to the last record is written: the next deadline counts from it. */
    if (t->flush_interval)
        t->flush_at = t->last + t->flush_interval;
    pthread_mutex_unlock(&t->lock);
    prof_mem_quiet_end();
    prof_host_release(host);
}

/* Grow the id table to twice its size (owner thread). */
static int slots_grow(struct prof_thread *t)
{
    uint32_t n = (t->mask + 1) * 2;
    struct prof_idslot *s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (uint32_t i = 0; i <= t->mask; i++) {
        if (!t->slots[i].key)
            continue;
        uint32_t h = prof_slot_of(t->slots[i].key, n - 1);
        while (s[h].key)
            h = (h + 1) & (n - 1);
        s[h] = t->slots[i];
    }
    free(t->slots);
    t->slots = s;
    t->mask = n - 1;
    return 0;
}

/* Summary mode: the first index whose id text equals that of index i (entering i if new). */
static uint32_t text_find_or_add(struct prof_thread *t, uint32_t i)
{
    for (uint32_t h = (uint32_t)prof_hash_str(t->ids[i]) & t->summary.tmask;;
         h = (h + 1) & t->summary.tmask) {
        uint32_t e = t->summary.texts[h];
        if (e == 0) {
            t->summary.texts[h] = i + 1;
            return i;
        }
        if (strcmp(t->ids[e - 1], t->ids[i]) == 0)
            return e - 1;
    }
}

/* Summary mode: rebuild the text table with size slots (a power of two). */
static int texts_grow(struct prof_thread *t, uint32_t size)
{
    uint32_t *x = calloc(size, sizeof *x);
    if (!x)
        return -1;
    free(t->summary.texts);
    t->summary.texts = x;
    t->summary.tmask = size - 1;
    for (uint32_t i = 0; i < t->nids; i++)
        if (t->summary.canon[i] == i)
            text_find_or_add(t, i);
    return 0;
}

/* Summary mode's tables, empty, with room for cap ids (at the cap of the event stream):
   canon and text table; -1 when memory runs out (nothing kept). */
static int summary_alloc(struct prof_thread *t, uint32_t cap)
{
    t->summary.canon = calloc(cap, sizeof *t->summary.canon);
    if (!t->summary.canon || texts_grow(t, cap * 2) != 0) {
        stats_free(t);
        return -1;
    }
    return 0;
}

/* The next index, for a region id text (fn NULL) or a function's address (fn its
   description), or UINT32_MAX when memory runs out (t->lock held). */
static uint32_t id_append(struct prof_thread *t, const void *key, const struct prof_fn *fn)
{
    uint32_t idx = UINT32_MAX;
    if (t->nids >= PROF_W_MAX_ID)
        return UINT32_MAX;
    if (t->nids == t->ids_cap) {
        uint32_t cap = t->ids_cap ? t->ids_cap * 2 : 64;
        const char **ids = realloc(t->ids, cap * sizeof *ids);
        if (!ids)
            goto out;
        t->ids = ids;
        const struct prof_fn **fns = realloc(t->fns, cap * sizeof *fns);
        if (!fns)
            goto out;
        t->fns = fns;
        if (t->mode == PROF_MODE_SUMMARY) {
            uint32_t *cn = realloc(t->summary.canon, cap * sizeof *cn);
            if (cn)
                t->summary.canon = cn;
            if (!cn || texts_grow(t, cap * 2) != 0)
                goto out;
        }
        t->ids_cap = cap;
    }
    idx = t->nids;
    t->ids[idx] = fn ? fn->name : (const char *)key;
    t->fns[idx] = fn;
    if (t->mode == PROF_MODE_SUMMARY) {
        /* A new pointer with the text of an earlier id is the same region: its nodes are the
           earlier id's, so recursion through either pointer is seen (Outer) and one row per
           path is written. */
        t->summary.canon[idx] = text_find_or_add(t, idx);
    }
    t->nids++;
out:
    return idx;
}

/*
 * A key seen for the first time on this thread: a region id text (fn NULL) or a function's
 * address (fn its description). Gives it the next index, or PROF_IDX_SKIP for a function the
 * filters leave out; UINT32_MAX when memory runs out.
 */
static uint32_t id_add_locked(struct prof_thread *t, const void *key, const struct prof_fn *fn)
{
    if (t->nids >= PROF_W_MAX_ID)
        return UINT32_MAX;
    if ((t->nslots + 1) * 2 > t->mask + 1 && slots_grow(t) != 0)
        return UINT32_MAX;
    pthread_mutex_lock(&t->lock); /* prof_finish may read ids from another thread */
    uint32_t idx = fn && fn->skip ? PROF_IDX_SKIP : id_append(t, key, fn);
    if (idx != UINT32_MAX) {
        uint32_t h = prof_slot_of(key, t->mask);
        while (t->slots[h].key)
            h = (h + 1) & t->mask;
        t->slots[h].key = key;
        t->slots[h].idx = idx;
        t->nslots++;
    }
    pthread_mutex_unlock(&t->lock);
    return idx;
}

/*
 * Give an index to each left-out function the sampler charged samples to on this thread and
 * that has none yet, so that the part names it (owner thread, t->lock held; its signal handler
 * cannot allocate). A function another thread left out by patching its calls never passes
 * this thread's hooks: its samples are the first this thread hears of it.
 */
static void name_leftout(struct prof_thread *t)
{
    struct prof_leftout_hits *h = &t->sampling.leftout;
    for (uint32_t i = 0; h->hits && i < PROF_LEFTOUT_HITS; i++) {
        const struct prof_leftout_hit *e = &h->hits[i];
        if (!__atomic_load_n(&e->parent, __ATOMIC_ACQUIRE) || prof_leftout_id(h, e->fn))
            continue;
        const struct prof_fn *fn = prof_leftout_fn(e->fn);
        uint32_t idx = fn ? id_append(t, fn->addr, fn) : UINT32_MAX;
        if (idx != UINT32_MAX)
            __atomic_store_n(&h->ids[e->fn - 1], idx + 1, __ATOMIC_RELEASE);
    }
}

/*
 * Describe the functions without hooks the sampler charged samples to on this thread (their
 * ranges have no description until one thread makes it: codemap.h), for name_leftout (owner
 * thread, no lock held: describing takes the functions' lock, which a fork takes before the
 * run's, and the run's end holds the run's lock while it takes t->lock). What the end of the
 * thread finds undescribed stays in its context's time.
 */
static void describe_leftout(struct prof_thread *t)
{
    struct prof_leftout_hits *h = &t->sampling.leftout;
    for (uint32_t i = 0; h->hits && i < PROF_LEFTOUT_HITS; i++) {
        const struct prof_leftout_hit *e = &h->hits[i];
        if (__atomic_load_n(&e->parent, __ATOMIC_ACQUIRE) && !prof_leftout_id(h, e->fn))
            prof_leftout_describe(e->fn);
    }
}

/* id_add_locked with the collector's allocations untracked by memory checks. */
__attribute__((noinline)) uint32_t prof_id_add(struct prof_thread *t, const void *key,
                                               const struct prof_fn *fn)
{
    prof_mem_quiet_begin();
    uint32_t idx = id_add_locked(t, key, fn);
    prof_mem_quiet_end();
    return idx;
}

/* Past PROFILER_MAX_EVENTS, the first event: the regions open at the cap get their nodes, so
   the instances counted from now on keep their paths; their own instances are in the event
   stream. */
static __attribute__((noinline, cold)) void stream_setup(struct prof_thread *t)
{
    uint32_t n = t->summary.stream_depth < t->stack_cap ? t->summary.stream_depth : t->stack_cap;
    for (uint32_t d = 0; d < n; d++) {
        struct prof_frame *f = &t->stack[d];
        f->node = prof_node_for(t, d, f->id, f->idx);
        f->child = 0; /* from now on: the time of its children counted in summary mode */
    }
    t->summary.start_limit = t->stack_cap;
    prof_lean_refresh(t);
}

/*
 * Past PROFILER_MAX_EVENTS: a region open at the cap ends (the frame at depth d), in the event
 * stream, where it started. Its children counted in summary mode are not in the stream: a
 * hidden-time record tells the reader to take their time out of its self time.
 */
static __attribute__((noinline, cold)) void stream_stop(struct prof_thread *t, uint32_t d,
                                                        uint64_t now)
{
    if (t->summary.start_limit == 0)
        stream_setup(t);
    t->summary.stream_depth = d;
    uint64_t hidden = d < t->stack_cap ? t->stack[d].child : 0;
    if (t->pos + 7 > PROF_BUFFER_WORDS)
        prof_thread_flush(t);
    if (hidden) {
        uint32_t *w = t->buf + t->pos;
        w[0] = PROF_W_HIDDEN;
        w[1] = (uint32_t)(hidden >> 32);
        w[2] = (uint32_t)hidden;
        __atomic_store_n(&t->pos, t->pos + 3, __ATOMIC_RELEASE);
    }
    prof_record_exit(t, now);
}

/* Summary mode's start at a depth from start_limit on: past PROFILER_MAX_EVENTS, its first
   event (the regions open at the cap get their nodes), or beyond the stack's room (it grows,
   or past PROF_MAX_DEPTH the region is folded into the deepest one kept). */
__attribute__((noinline, cold)) void prof_summary_start_slow(struct prof_thread *t, const void *id,
                                                             const struct prof_fn *fn, uint32_t idx,
                                                             uint32_t d, uintptr_t where)
{
    if (t->summary.start_limit == 0)
        stream_setup(t);
    if (d >= t->stack_cap && prof_stack_grow(t) != 0) {
        PROF_STORE(t->depth_limit, t->depth_limit + 1);
        return;
    }
    prof_summary_start(t, id, fn, idx, d, where);
}

/* Summary mode: add the queued histogram counts (owner thread). */
__attribute__((noinline)) void prof_summary_apply(struct prof_thread *t)
{
    /* Equal neighbours (a loop's instances of one path, mostly in one bucket) become one
       addition: a chain of increments of one counter costs a store-to-load round trip each. */
    uint32_t n = t->summary.npending;
    if (n == 0)
        return;
    uint64_t *run = t->summary.pending[0], count = 1;
    for (uint32_t i = 1; i < n; i++) {
        uint64_t *slot = t->summary.pending[i];
        if (slot == run) {
            count++;
            continue;
        }
        prof_stats_slot_add(run, count);
        run = slot;
        count = 1;
    }
    prof_stats_slot_add(run, count);
    t->summary.npending = 0;
}

/*
 * Sampled timing: what one of the sampler's signals costs the wall time of the call it
 * interrupts, in ticks: the thread's mean CPU cost of a sample so far (sample_cost_ns: at least
 * the calibrated overflow's, with the handler's work), 0 before its first sample. Summed over a
 * call's signals it is what the signals cost the thread in all, in proportion, so a caller's
 * Wall loses what its samples took and no more: a guess per signal (its lag's excess over the
 * least recent, plus an offset learnt from short calls) took about 30 us too many a signal
 * out of yaml-cpp's main (Wall 0.66x of the plain run's). One signal's own cost varies (on this
 * project's virtual machine one overflow cost 42 us, the next 55 or 113), and what the host
 * spends on it unseen by the thread's clock (0 to 40 us a signal there, varying over hours)
 * stays in the call it interrupted, as the host's own interrupts do in a run without samples.
 */
static double interrupt_cost(const struct prof_thread *t)
{
    uint64_t samples = PROF_LOAD(t->sampling.samples);
    if (!samples || !t->frequency)
        return 0;
    return sample_cost_ns(t) / (double)samples * (double)t->frequency / 1e9;
}

/*
 * Sampled timing: a call that read the clock at its start ends at now. Its wall time goes to
 * its node's statistics (calls, timed calls, wall ticks, extremes, histogram); once the node
 * has PROF_TIMED_MIN_CALLS timed calls of a mean below short_ticks, its later calls are only
 * counted (their time comes from samples). A region is timed whatever its length.
 *
 * A sample taken during a call adds what it cost to the call's wall time: tens of
 * microseconds under some hypervisors, and more under a sanitizer. A context whose timed calls
 * are short would then average (1 + cost / period) times their length, and could stay timed
 * for ever (a 0.2 us call averaged 1 us under TSan at a 100 us period). So a function's call
 * interrupted by a sample, in a context whose timed calls so far average below short_ticks,
 * is counted but not timed: its time was mostly the sample's. The context's longest timed call
 * is left out of that mean: its first call may have been interrupted too, or have faulted its
 * pages in, and would keep every later interrupted call timed. Calls of contexts that look
 * long (and a context's first two calls) stay timed, interrupted or not, less what the samples
 * cost.
 */
__attribute__((noinline)) void prof_summary_stop_timed(struct prof_thread *t, struct prof_frame *f,
                                                       uint64_t now)
{
    struct prof_node *n = f->node;
    uint64_t ticks = now > f->start ? now - f->start : 0;
    uint64_t taken = t->sampling.interrupts - f->interrupts0;
    if (PROF_UNLIKELY(taken != 0)) {
        if (f->fn && n->st.timed >= 2 &&
            n->st.ticks - n->st.max < (n->st.timed - 1) * t->summary.short_ticks) {
            PROF_STORE(n->st.calls, n->st.calls + 1);
            return;
        }
        /* What the signals cost is taken out of this call's time, so that the extremes, the
           squares and the histogram hold the call's own time: taken out in proportion when
           the node was written, it left the 1 % of calls a sample interrupted as the tail
           (ninja's RealDiskInterface::Stat read a p99 of 44.5 us, one perf overflow on a
           virtual machine, where its calls last 2 us). A call no longer than that has no time
           of its own to tell: it is given its context's mean so far, 0 for a first call,
           rather than be left untimed (a context with an untimed call has no distribution in
           the report). */
        uint64_t c = (uint64_t)((double)taken * interrupt_cost(t) + 0.5);
        if (c < ticks)
            ticks -= c;
        else
            ticks = n->st.timed ? n->st.ticks / n->st.timed : 0;
    }
    /* self holds the calls made inside the timed calls (their hooks' cost is taken out of Wall
       when the node is written): the starts since this one's. */
    prof_stats_count(&n->st, ticks, (uint32_t)(t->serial - f->serial));
    uint64_t timed = n->st.timed + 1;
    PROF_STORE(n->st.timed, timed);
    if (f->fn && timed >= PROF_TIMED_MIN_CALLS && n->st.ticks < timed * t->summary.short_ticks)
        n->untimed = 1;
    if (prof_stats_hist(&t->summary.cct, &n->st, ticks, 0) != 0)
        t->summary.lost++;
}

/* Summary mode's stop of a frame beyond the stack (folded: its time stays in the deepest
   frame's self time), of one open at
   PROFILER_MAX_EVENTS (it ends in the event stream), or of an instance folded into its parent's
   node (PROFILER_MAX_NODES: its own time stays in the parent's self time, its children's goes
   to the parent's children). */
__attribute__((noinline, cold)) void prof_summary_stop_slow(struct prof_thread *t, uint32_t d,
                                                            uint64_t now)
{
    if (d < t->summary.stream_depth)
        stream_stop(t, d, now);
    else if (d < t->stack_cap && d > 0)
        t->stack[d - 1].child += t->stack[d].child;
}

/* Double the stack's room, up to PROF_MAX_DEPTH (owner thread, marked busy: a signal handler
   drops its event rather than use the stack being moved). */
__attribute__((noinline, cold)) int prof_stack_grow(struct prof_thread *t)
{
    if (t->stack_cap >= PROF_MAX_DEPTH || t->stack_stuck)
        return -1;
    uint32_t cap = t->stack_cap * 2 < PROF_MAX_DEPTH ? t->stack_cap * 2 : PROF_MAX_DEPTH;
    int err = errno; /* a refused mapping is not the program's */
    struct prof_frame *s = prof_mem_map(cap * sizeof *s);
    errno = err;
    if (!s) {
        t->stack_stuck = 1;
        return -1;
    }
    memcpy(s, t->stack, t->stack_cap * sizeof *s);
    prof_mem_unmap(t->stack, t->stack_cap * sizeof *s);
    t->stack = s;
    t->stack_cap = cap;
    if (t->summary.start_limit) /* else the first event past PROFILER_MAX_EVENTS sets it */
        t->summary.start_limit = cap;
    prof_lean_refresh(t);
    return 0;
}

/* Close the n innermost frames (all on the stack) at one time, counted unwound. */
static void close_innermost(struct prof_thread *t, uint32_t n)
{
    uint64_t now = prof_ticks();
    for (uint32_t d = t->depth, k = 0; k < n; d--, k++) {
        struct prof_frame *f = &t->stack[d - 1];
        /* A module's region: the entries it counted were left with it. */
        if (!(f->where & 1) && f->nesting)
            *f->nesting = 0;
        PROF_STORE(t->depth, d - 1);
        if (PROF_UNLIKELY(t->on_stop))
            t->on_stop(t, d - 1, now);
        if (t->mode == PROF_MODE_SUMMARY)
            prof_summary_stop(t, d - 1, now);
        else
            prof_record_exit(t, now);
    }
    if (t->mode == PROF_MODE_SUMMARY)
        prof_summary_due(t, now);
    PROF_STORE(t->unwound, t->unwound + n);
}

/* Close the innermost frames a longjmp left behind (see prof_unwound_check), at one time. */
__attribute__((noinline, cold)) uint32_t prof_close_unwound(struct prof_thread *t, uintptr_t below,
                                                            uintptr_t same)
{
    if (below <= t->stack_lo || below > t->stack_hi)
        return 0; /* an event on another stack (a handler on sigaltstack, a coroutine) */
    uint32_t n = 0;
    for (uint32_t d = t->depth; d - 1 < t->stack_cap; d--, n++) {
        const struct prof_frame *f = &t->stack[d - 1];
        if ((f->where >= below && f->where != same) || f->where < t->stack_lo)
            break;
    }
    if (n)
        close_innermost(t, n);
    return n;
}

/* Close the frames of here's own stack frame that cannot be live (see thread.h). */
__attribute__((noinline, cold)) uint32_t prof_close_reused(struct prof_thread *t, uintptr_t here,
                                                           uintptr_t token, const void *site,
                                                           const void *hook)
{
    uint32_t top = t->depth, cut = top;
    if (here <= t->stack_lo || here > t->stack_hi || top > t->stack_cap)
        return 0; /* another stack, or calls beyond the stack innermost: nothing to compare */
    /* The frames of here's stack frame are innermost, above those of its callers. */
    for (uint32_t k = top; k-- > 0;) {
        const struct prof_frame *f = &t->stack[k];
        if (f->where == PROF_WHERE_NONE)
            break; /* a region placed by hand may close anywhere: never passed */
        if (f->where & 1) {
            if (f->where != (here | 1))
                break;
            if (!token && (f->origin != (uintptr_t)site || f->hook == (uintptr_t)hook))
                cut = k;
        } else {
            if (f->origin != here)
                break;
            if (token && f->where == token)
                cut = k;
        }
    }
    if (cut < top)
        close_innermost(t, top - cut);
    return top - cut;
}

/* Write one warning chunk (t->lock held). */
int prof_thread_write_warning(struct prof_thread *t, const char *kind, uint64_t count,
                              const char *message)
{
    struct prof_sbuf b = {0};
    prof_sbuf_add(&b, "kind", 5);
    prof_sbuf_add(&b, kind, strlen(kind) + 1);
    prof_sbuf_add(&b, "count", 6);
    prof_sbuf_u64(&b, count);
    prof_sbuf_char(&b, 0);
    prof_sbuf_add(&b, "message", 8);
    prof_sbuf_add(&b, message, strlen(message) + 1);
    int err = b.failed ? ENOMEM : prof_part_write(t->fd, PROF_CHUNK_WARNING, b.data, b.len);
    prof_sbuf_release(&b);
    return err;
}

/*
 * Summary mode: one binary record per calling-context node, as one chunk of the given type:
 * PRFS at the end, PRFP for a snapshot (t->lock held). The records name ids by index, so the
 * ids go first: every node's id is among them, as ids and nodes are added under the lock.
 */
static int write_summary_rows(struct prof_thread *t, uint32_t type, off_t *rows_at)
{
    /* Only the owner may apply its queue; another thread's last few calls (fewer than
       PROF_PENDING) then miss the histogram but not the other columns. */
    if (t == prof_self) {
        prof_summary_apply(t);
        name_leftout(t);
    }
    /* The rows are encoded before anything is written: a snapshot written over the last one
       (write_snapshot) damages it from its first write on, so its writes follow one another
       with no encoding between them. */
    struct prof_sbuf b = {0};
    double period_ticks = sample_period_ticks(t);
    uint64_t hot = hook_samples(t);
    prof_cct_encode(&t->summary.cct, &b, period_ticks, hook_ticks(t, period_ticks, &hot),
                    &t->sampling.leftout);
    int err = b.failed ? ENOMEM : 0;
    struct prof_sbuf ids = {0};
    if (!err)
        err = write_ids(t, &ids);
    prof_sbuf_release(&ids);
    if (rows_at)
        *rows_at = lseek(t->fd, 0, SEEK_CUR);
    if (!err && b.len)
        err = prof_part_write(t->fd, type, b.data, b.len);
    prof_sbuf_release(&b);
    return err;
}

/*
 * A snapshot of the statistics (PRFP) and the CPU times (t->lock held, t->fd open). Each one
 * replaces those before it, so it is written over the last one when nothing came after that
 * (its PRFC included): the ids new since then, the rows and the CPU times, then the file cut
 * where they end. Appended, a part grew by the whole tree at each flush interval (16,382
 * paths every 2 ms: 77 GB in minutes). A run killed while one is being written over loses its
 * statistics (a chunk cut short is damage), as one killed before its first snapshot does: the
 * few writes of an encoded snapshot (write_summary_rows), not its encoding.
 */
static int write_snapshot(struct prof_thread *t)
{
    off_t end = t->snap_end ? lseek(t->fd, 0, SEEK_CUR) : -1;
    int over =
        t->snap_end && end == t->snap_end && lseek(t->fd, t->snap_at, SEEK_SET) == t->snap_at;
    off_t at = -1;
    t->snap_end = 0;
    int err = write_summary_rows(t, PROF_CHUNK_SNAPSHOT, &at);
    if (!err && t->fd >= 0)
        err = write_cpu(t);
    off_t now = err ? -1 : lseek(t->fd, 0, SEEK_CUR);
    /* The descriptor is checked again right before the cut: a program that closed ours and
       opened a file of its own under the same number keeps its file whole. */
    if (over && now >= 0 && now < end &&
        (!prof_part_is(t->fd, &t->part_id) || ftruncate(t->fd, now) != 0))
        now = -1; /* the old tail stays: no snapshot is written over it */
    if (now > 0 && at > 0) {
        t->snap_at = at;
        t->snap_end = now;
    }
    return err;
}

/*
 * Shift every open frame that read the clock (and, in events mode, the thread's clock) by the
 * ticks the slow path took, so that it is not counted in anyone's time. A frame of sampled
 * timing that is only counted has no start: its mark stays (moved, it read as a timed call
 * that began at the clock's origin).
 */
void prof_thread_hide(struct prof_thread *t, uint64_t spent)
{
    uint32_t open = t->depth < t->stack_cap ? t->depth : t->stack_cap;
    for (uint32_t d = 0; d < open; d++)
        if (t->stack[d].start != PROF_UNTIMED)
            t->stack[d].start += spent;
    if (t->mode == PROF_MODE_EVENTS)
        t->last += spent;
}

/* The ticks since began (0 if the clock read less). */
static uint64_t ticks_since(uint64_t began)
{
    uint64_t now = prof_ticks();
    return now > began ? now - began : 0;
}

/* Summary mode: the flush deadline passed: write the statistics so far as a snapshot chunk,
   which a recovery of a killed run reads when the final one is missing (owner thread). Its
   time, and that of naming left-out functions, is the collector's (prof_thread_hide). */
__attribute__((noinline, cold)) void prof_thread_snapshot(struct prof_thread *t, uint64_t now)
{
    uint64_t began = prof_ticks();
    if (!now)
        now = began; /* after a call that read no clock (sampled timing) */
    /* Before naming: a sample that needs a name after it asks again */
    t->flush_at = t->flush_due;
    prof_busy_begin(); /* a sample here is the collector's slow path, not a hook's cost */
    struct prof_host host = prof_host_hold();
    prof_mem_quiet_begin();
    describe_leftout(t);
    if (now < t->flush_due) {
        /* Not due: the sampler asked for the names of left-out functions only. */
        pthread_mutex_lock(&t->lock);
        name_leftout(t);
        pthread_mutex_unlock(&t->lock);
        prof_mem_quiet_end();
        prof_host_release(host);
        prof_thread_hide(t, ticks_since(began));
        prof_busy_end();
        return;
    }
    prof_process_check();
    pthread_mutex_lock(&t->lock);
    int err = part_writable(t) ? write_snapshot(t) : t->fd >= 0 ? write_cpu(t) : 0;
    if (err) {
        close(t->fd);
        t->fd = -1;
        prof_fail("cannot write", t->path, err);
    }
    /* The next deadline counts from the snapshot's end: from its start, a snapshot longer
       than the interval (a large tree, a sanitizer) made the next event write another, and
       the program ran one event per snapshot. */
    uint64_t spent = ticks_since(began);
    t->flush_due = t->flush_interval ? now + spent + t->flush_interval : UINT64_MAX;
    t->flush_at = t->flush_due;
    pthread_mutex_unlock(&t->lock);
    prof_mem_quiet_end();
    prof_host_release(host);
    prof_thread_hide(t, spent);
    prof_busy_end();
}

/* Past PROFILER_MAX_EVENTS: the warning, counting the region instances left out of the event
   stream (t->lock held). */
static int write_cap_warning(struct prof_thread *t)
{
    uint64_t past = prof_cct_calls(&t->summary.cct);
    char msg[200];
    snprintf(msg, sizeof msg,
             "PROFILER_MAX_EVENTS=%llu reached: the region instances that started after it "
             "are counted per calling context (the run's summary section), not listed",
             (unsigned long long)t->max_events);
    return prof_thread_write_warning(t, "max-events", past, msg);
}

/* Summary mode: the final rows, then what only the live stack knows (t->lock held). */
static int write_summary(struct prof_thread *t)
{
    int err = write_summary_rows(t, PROF_CHUNK_SUMMARY, NULL);
    /* Past PROFILER_MAX_EVENTS, the regions open at the cap and the stray stops before it are
       in the event stream, where the reader finds them. */
    uint32_t open = PROF_LOAD(t->depth), below = PROF_LOAD(t->summary.stream_depth);
    open = open > below ? open - below : 0;
    if (!err && t->capped)
        err = write_cap_warning(t);
    if (!err && open) {
        /* The stack can be read only by its own thread: name the regions when that is us. */
        struct prof_sbuf msg = {0};
        prof_sbuf_str(&msg, open == 1 ? "region never stopped" : "regions never stopped");
        if (t == prof_self) {
            uint32_t top = below + open < t->stack_cap ? below + open : t->stack_cap;
            for (uint32_t k = 0; k + below < top && k < 5; k++) {
                prof_sbuf_str(&msg, k ? ", " : ": ");
                prof_sbuf_str(&msg, t->ids[t->stack[top - 1 - k].idx]);
            }
            if (top > below + 5)
                prof_sbuf_str(&msg, ", ...");
        }
        prof_sbuf_char(&msg, 0);
        err = msg.failed ? ENOMEM : prof_thread_write_warning(t, "unterminated", open, msg.data);
        prof_sbuf_release(&msg);
    }
    uint64_t stray = PROF_LOAD(t->stray) - t->stray_at_cap;
    if (!err && stray)
        err = prof_thread_write_warning(t, "stray-stop", stray, "a stop with no region open");
    uint64_t folded = PROF_LOAD(t->summary.cct.folded);
    if (!err && folded) {
        char msg[160];
        snprintf(msg, sizeof msg,
                 "PROFILER_MAX_NODES=%u calling contexts reached: region instances on newer "
                 "paths were folded into their parent's",
                 t->summary.cct.max_nodes);
        err = prof_thread_write_warning(t, "max-nodes", folded, msg);
        /* A count lost from its path is said where the user looks, not only in the file. */
        prof_warn("thread %u: PROFILER_MAX_NODES=%u calling contexts reached: %llu calls were "
                  "counted in their caller's context instead of their own",
                  t->number, t->summary.cct.max_nodes, (unsigned long long)folded);
    }
    return err;
}

/* Write what is still in memory, the warnings and the end chunk, then close the part. */
void prof_thread_end(struct prof_thread *t, const char *state)
{
    pthread_mutex_lock(&t->lock);
    prof_thread_pool_hooks(t); /* at the latest when it ends (the run's end pools them all) */
    if (part_writable(t)) {
        int err = write_pending(t);
        if (!err && t->mode == PROF_MODE_SUMMARY)
            err = write_summary(t);
        /* The thread's own warnings, each written when it happened at all. */
        const struct {
            const char *kind;
            uint64_t count;
            const char *message;
        } warns[] = {
            {"scope-mismatch", PROF_LOAD(t->mismatch),
             "a scope ended after its region was stopped by hand, or with regions inside it "
             "still open"},
            {"depth-limit", PROF_LOAD(t->depth_limit),
             "calls nested deeper than PROFILER_MAX_DEPTH (or regions deeper than 1048576) were "
             "folded into the deepest one kept: their time is in its self time"},
            {"unwound", PROF_LOAD(t->unwound),
             "regions still open when their stack frame was gone were closed: an enclosing "
             "function returned, or a longjmp left them"},
        };
        for (size_t i = 0; i < sizeof warns / sizeof *warns && !err; i++)
            if (warns[i].count)
                err = prof_thread_write_warning(t, warns[i].kind, warns[i].count, warns[i].message);
        if (!err) /* the features' chunks: memory counts, the function hooks' warnings */
            err = prof_hooks_thread_write(t);
        /* The owner's counter lives as long as the thread, and the thread is registered (so
           alive) whenever this runs. */
        uint64_t dropped = PROF_LOAD(*t->dropped), signal = dropped - t->dropped_seen;
        t->dropped_seen = dropped;
        if (!err && signal)
            err = prof_thread_write_warning(
                t, "signal", signal,
                "events recorded while the collector was already running on "
                "this thread (in a signal handler that interrupted it) were "
                "dropped");
        if (!err)
            err = write_cpu(t);
        if (!err)
            err = prof_part_write(t->fd, PROF_CHUNK_END, state, strlen(state));
        if (err)
            prof_fail("cannot write", t->path, err);
        close(t->fd);
        t->fd = -1;
    }
    pthread_mutex_unlock(&t->lock);
}

static void take_name(struct prof_thread *t);

/* The kernel's id of the calling thread. */
static pid_t gettid_compat(void) { return (pid_t)syscall(SYS_gettid); }

/* Build this thread's header chunk: the run's pairs, then its own. */
static int write_header(struct prof_thread *t, const struct prof_run_info *run)
{
    struct prof_sbuf b = {0};
    prof_sbuf_add(&b, run->header, run->header_len);
    prof_sbuf_add(&b, "Thread", 7);
    prof_sbuf_u64(&b, t->number);
    prof_sbuf_char(&b, 0);
    prof_sbuf_add(&b, "Tid", 4);
    prof_sbuf_u64(&b, (uint64_t)t->tid);
    prof_sbuf_char(&b, 0);
    prof_sbuf_add(&b, "Name", 5);
    prof_sbuf_add(&b, t->name, strlen(t->name) + 1);
    int err = b.failed ? ENOMEM : prof_part_write(t->fd, PROF_CHUNK_HEADER, b.data, b.len);
    prof_sbuf_release(&b);
    return err;
}

/*
 * Start recording the current run into a new part file. With keep_stack (a fork child), the
 * regions open at the fork are opened again at the child's start.
 */
enum prof_error prof_thread_begin(struct prof_thread *t, const struct prof_run_info *run,
                                  unsigned number, int keep_stack)
{
    uint32_t inherited = keep_stack ? t->depth : 0;
    if (inherited > t->stack_cap)
        inherited = t->stack_cap;
    /* Straight from the kernel, so they go back to it when the thread ends. */
    if (!t->buf)
        t->buf = prof_mem_map(PROF_BUFFER_WORDS * sizeof *t->buf);
    if (!t->stack) {
        t->stack = prof_mem_map(PROF_STACK_INITIAL * sizeof *t->stack);
        t->stack_cap = t->stack ? PROF_STACK_INITIAL : 0;
    }
    /* The function of each inherited frame, before the id table goes (the hooks leave it out
       of their frames to save a store per call). */
    for (uint32_t d = 0; d < inherited; d++)
        t->stack[d].fn = t->fns && t->stack[d].idx < t->nids ? t->fns[t->stack[d].idx] : NULL;
    free(t->slots);
    t->mask = 63;
    t->nslots = 0;
    t->slots = calloc(t->mask + 1, sizeof *t->slots);
    t->mod_gen = PROF_LOAD(prof_mod_gen);
    stats_free(t);
    t->nids = t->ids_written = t->ids_cap = 0;
    t->inlined_written = t->inlined_nids = 0;
    t->inlined_gen = 0;
    free(t->ids);
    free(t->fns);
    t->ids = NULL;
    t->fns = NULL;
    if (!t->buf || !t->stack || !t->slots)
        return PROF_ERR_NOMEM;

    t->frequency = run->frequency;
    /* Sampled timing needs the thread's own sampler (sample.c's thread_begin hook sets
       sampled); without one its calls are all timed. */
    t->summary.sampled = 0;
    t->summary.short_ticks = run->short_ticks;
    prof_hooks_thread_begin(t, run);
    t->mode = run->mode;
    t->summary.lean = t->mode == PROF_MODE_SUMMARY && t->summary.sampled && !t->on_stop;
    t->number = number;
    take_name(t);
    t->tid = gettid_compat();
    t->owner = pthread_self();
    int64_t cpu = thread_cpu_ns(t);
    t->cpu_known = cpu >= 0;
    t->cpu_begin_ns = cpu >= 0 ? (uint64_t)cpu : 0;
    int64_t wait = thread_wait_ns(t);
    t->wait_known = wait >= 0;
    t->wait_begin_ns = wait >= 0 ? (uint64_t)wait : 0;
    t->wall_begin_ns = prof_monotonic_ns();
    if (!t->name[0] && t->tid == getpid())
        strcpy(t->name, "main");
    t->pos = t->flushed = 0;
    t->summary.npending = 0;
    t->depth = 0;
    t->last = run->base_ticks;
    t->flush_interval = run->flush_interval;
    t->flush_due = run->flush_interval ? prof_ticks() + run->flush_interval : UINT64_MAX;
    t->flush_at = t->flush_due;
    t->stray = t->mismatch = t->depth_limit = t->unwound = 0;
    prof_cct_init(&t->summary.cct, run->max_nodes, &t->lock); /* emptied by stats_free */
    t->epoch++;
    t->max_events = run->mode == PROF_MODE_EVENTS ? run->max_events : 0;
    t->events_total = run->events_total;
    t->serial_counted = t->serial;
    t->capped = 0;
    t->stray_at_cap = 0;
    t->summary.stream_depth = 0;
    t->summary.start_limit = t->stack_cap;
    prof_lean_refresh(t);

    free(t->path);
    size_t plen = strlen(run->dir) + strlen(run->runname) + 32;
    t->path = malloc(plen);
    if (!t->path)
        return PROF_ERR_NOMEM;
    snprintf(t->path, plen, "%s/%s.%u.part", run->dir, run->runname, number);
    /* The folder may be shared: never through a link, and relative to the folder the run
       opened, whatever its name leads to now. */
    const char *name = run->dirfd == AT_FDCWD ? t->path : t->path + strlen(run->dir) + 1;
    t->fd = prof_file_create_at(run->dirfd, name, 0644);
    t->snap_at = t->snap_end = 0; /* no snapshot in this part yet */
    if (t->fd >= 0 && prof_part_identify(t->fd, &t->part_id) != 0) {
        close(t->fd);
        t->fd = -1;
    }
    if (t->fd < 0) {
        prof_fail("cannot create", t->path, errno);
        free(t->path);
        t->path = NULL; /* no part to merge */
        return PROF_ERR_IO;
    }
    int err = write_header(t, run);
    if (err) {
        prof_fail("cannot write", t->path, err);
        close(t->fd);
        t->fd = -1;
        return PROF_ERR_IO;
    }
    /* Reopen the regions a fork child inherited, at the child's start. */
    for (uint32_t d = 0; d < inherited; d++) {
        struct prof_frame *f = &t->stack[d];
        uint32_t slot, idx = prof_id_find(t, f->id, &slot);
        if (idx == UINT32_MAX)
            idx = prof_id_add(t, f->id, f->fn);
        if (idx == UINT32_MAX || idx == PROF_IDX_SKIP)
            return PROF_ERR_NOMEM;
        f->idx = idx;
        f->start = run->base_ticks;
        f->child = 0;
        t->depth = d + 1;
        if (t->mode == PROF_MODE_SUMMARY) {
            f->node = prof_node_for(t, d, f->id, idx);
            f->interrupts0 = t->sampling.interrupts;
        } else
            prof_put_enter(t, idx, run->base_ticks);
    }
    return PROF_OK;
}

/* Empty the id table (owner thread): every key gets a new index at its next use, and old
   indexes keep their texts, so open frames and written ids stay valid. */
void prof_thread_forget_keys(struct prof_thread *t)
{
    memset(t->slots, 0, (t->mask + 1) * sizeof *t->slots);
    t->nslots = 0;
    t->mod_gen = PROF_LOAD(prof_mod_gen);
    prof_cct_forget_keys(&t->summary.cct); /* their nodes' keys may name other functions now */
}

/* Name the calling thread at its next begin; its stale recorder t (or NULL) takes it now. */
void prof_thread_name_later(struct prof_thread *t, const char *name)
{
    snprintf(pending_name, sizeof pending_name, "%s", name);
    if (t)
        snprintf(t->name, sizeof t->name, "%s", name);
}

/* Name the recording thread, in its part at once. */
void prof_thread_rename(struct prof_thread *t, const char *name)
{
    struct prof_host host = prof_host_hold();
    prof_busy_mark(t);
    prof_process_check();
    pthread_mutex_lock(&t->lock);
    snprintf(t->name, sizeof t->name, "%s", name);
    int err =
        part_writable(t) ? prof_part_write(t->fd, PROF_CHUNK_NAME, t->name, strlen(t->name)) : 0;
    if (err) {
        close(t->fd);
        t->fd = -1;
        prof_fail("cannot write", t->path, err);
    }
    pthread_mutex_unlock(&t->lock);
    prof_busy_unmark(t);
    prof_host_release(host);
}

/* The name given before the thread's first region becomes the recorder's name. */
static void take_name(struct prof_thread *t)
{
    if (pending_name[0]) {
        memcpy(t->name, pending_name, sizeof t->name);
        pending_name[0] = 0;
    }
}

/* A fork child: the part file and the buffered events are the parent's; drop them. */
void prof_thread_forked(struct prof_thread *t)
{
    prof_part_close(&t->fd, &t->part_id);
    t->pos = t->flushed = 0;
    t->registered = 0;
    t->fork_pending = 1;
    t->hooks_pooled = 0; /* the child's run has a pool of its own */
    /* The thread that forked is the child's only thread: its name follows the new pid. */
    if (strcmp(t->name, "main") == 0)
        t->name[0] = 0;
}

/* The most bytes one chunk of the crash path needs (t->lock held): the new ids, their
   functions' locations, or summary mode's records (a node's and its whole histogram each). */
static size_t crash_bound(const struct prof_thread *t)
{
    size_t ids = 0, locations = 0;
    for (uint32_t i = t->ids_written; i < t->nids; i++) {
        ids += 8 + strlen(t->ids[i]);
        const struct prof_fn *fn = t->fns[i];
        if (fn)
            locations += 4 + (fn->file ? strlen(fn->file) : 0) + 21 +
                         (fn->module ? strlen(fn->module) : 0) + 21 + 2 +
                         (fn->build_id ? strlen(fn->build_id) + 1 : 0); /* and its PRFB entry */
    }
    size_t need = ids > locations ? ids : locations;
    if ((size_t)t->nids * 4 > need) /* the inlined functions, all named again */
        need = (size_t)t->nids * 4;
    if (t->mode == PROF_MODE_SUMMARY) {
        size_t rows = (size_t)t->summary.cct.nnodes *
                      (PROF_SUMMARY_HEAD + (size_t)PROF_SUMMARY_PAIR * PROF_HIST_BUCKETS);
        if (rows > need)
            need = rows;
    }
    return need ? need : 1;
}

/*
 * The program crashed (crash.c, in its signal handler, holding t->lock): write what the part
 * lacks, new ids, the buffered events or summary mode's statistics as a snapshot, and the CPU
 * time, then the crash chunk (mark, len bytes). No allocation (chunks are built in memory
 * straight from the kernel), no lock, no stdio: async-signal-safe in practice. The histogram
 * updates still queued (fewer than PROF_PENDING) are added only on the crashing thread's own
 * recorder, and only when the signal came outside the collector: another thread's are its
 * owner's to add, and an interrupted prof_summary_apply would count them twice.
 */
int prof_thread_crash_write(struct prof_thread *t, const void *mark, size_t len)
{
    if (t->fd < 0)
        return 0;
    uint32_t pos = __atomic_load_n(&t->pos, __ATOMIC_ACQUIRE);
    size_t need = crash_bound(t);
    char *mem = prof_mem_map(need);
    if (!mem)
        return ENOMEM;
    struct prof_sbuf b;
    prof_sbuf_fixed(&b, mem, need);
    int err = write_ids(t, &b);
    if (!err)
        err = write_events(t, pos);
    if (!err && t->mode == PROF_MODE_SUMMARY) {
        if (t == prof_self && !(t->gen & PROF_GEN_BUSY) && !prof_busy)
            prof_summary_apply(t);
        b.len = 0;
        double period_ticks = sample_period_ticks(t);
        uint64_t hot = hook_samples(t);
        prof_cct_encode(&t->summary.cct, &b, period_ticks, hook_ticks(t, period_ticks, &hot),
                        &t->sampling.leftout);
        err = b.failed ? ENOMEM : 0;
        if (!err && b.len)
            err = prof_part_write(t->fd, PROF_CHUNK_SNAPSHOT, b.data, b.len);
    }
    if (!err)
        err = write_cpu(t);
    if (!err)
        err = prof_part_write(t->fd, PROF_CHUNK_CRASH, mark, len);
    prof_mem_unmap(mem, need);
    return err;
}
