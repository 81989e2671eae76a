/*
 * ingest.c - one run read into the model: the run_handler (model/rows.h) whose callbacks merge
 * each row into regions, runs, threads, edges, memory findings and warnings, the calling-context
 * tree fed as rows come, and a skipped run forgotten whole (model_rollback).
 */
#define _GNU_SOURCE /* qsort_r */
#include "model/cct.h"
#include "model/index.h"
#include "model/model.h"
#include "model/othercost.h"
#include "model/uncounted.h"
#include "model/wallbound.h"
#include "base/util.h"

#include "cxxname.h"
#include "hist.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Past this many problems in one file, the rest are counted in one warning. */
#define PROBLEMS_PER_FILE 50

/* ---- the calling-context tree as rows come (model_keep_paths) ---- */

/* The tree's name index of region `region` (text s[0..n)): the model hashed the text
   already, so it is interned once per region, not once per row. */
static uint32_t paths_name(struct model_paths *p, size_t region, const char *s, size_t n)
{
    p->name_of = xgrow_zeroed(p->name_of, &p->nname_of, region, sizeof *p->name_of);
    if (!p->name_of[region])
        p->name_of[region] = cct_intern(&p->tree, s, n) + 1;
    return p->name_of[region] - 1;
}

/* Close the stream of the thread being read. */
static void paths_stop(struct model_paths *p)
{
    if (p && p->streaming)
        cct_stream_end(&p->stream);
    if (p)
        p->streaming = 0;
}

/* One row: a step of its thread's stream (seed rows are all at depth 0). */
static void paths_event(struct model_paths *p, size_t run, enum run_kind kind,
                        const struct prof_event_rec *e, size_t region, double ns, double self_ns)
{
    uint32_t id = paths_name(p, region, e->region, e->region_len);
    if (!p->streaming || p->run != run || p->thread != e->thread) {
        paths_stop(p);
        cct_stream_begin(&p->stream, &p->tree, p->tree.root);
        p->streaming = 1;
        p->run = run;
        p->thread = e->thread;
    }
    cct_stream_row_interned(&p->stream, id, kind == RUN_EVENTS ? e->depth : 0, e->stopped, ns,
                            self_ns);
}

/*
 * A summary row's calling context; returns its tree node. A version 3 row (node set) goes
 * under its parent row's node, under (the root for a top-level one), with its calls, inclusive
 * and self time, as an events row would; its Calls may be 0, and the node is still there for
 * its children. A version 1 or 2 row has no path: its region counts as a root of the tree,
 * with its Outer time, so that a recursive region's inner calls do not count again.
 */
static uint32_t paths_summary(struct model_paths *p, const struct prof_summary_rec *s, double k,
                              uint32_t under)
{
    paths_stop(p);
    if (!s->node)
        return cct_add(&p->tree, p->tree.root, s->region, s->region_len, s->calls,
                       (double)s->outer * k, (double)s->self * k);
    return cct_add(&p->tree, under, s->region, s->region_len, s->calls, (double)s->ticks * k,
                   (double)s->self * k);
}

/* ---- one run's rows ---- */

/* What reading one run needs to remember. */
struct ingest {
    struct model *m;
    size_t run;
    const char *name;
    double ns_per_tick;
    size_t *thread_of; /* open addressing over thread numbers: index in m->threads + 1, 0 =
                          empty; thread_cap slots (a power of two), at most half of them used */
    size_t thread_cap;
    double max_end_ns;
    unsigned long problems;
    int has_duration;
    double counted_ns; /* the run's Duration in its program's count (on_begin), ns */
    int counted;       /* the run reached its table: it is counted in the model's programs */
    int dropped;       /* the run is not of the program picked (model_pick): nothing more is read */
    uint64_t unterminated; /* seed form: rows with an empty delta */
    char names[1200];      /* ... the first few of their ids */
    struct location {
        char *region, *file;
        size_t region_len;
        unsigned long line;
        char *module; /* the module holding its code, or NULL */
        uint64_t offset;
        int has_offset; /* offset read: the reporter may locate it in its module */
        int no_hooks;   /* the record marks it uninstrumented: compiled without hooks */
        int inlined;    /* the record marks it inlined: copies of it are in other functions */
    } * locations;      /* Function records, attached to their regions after the rows */
    size_t nlocations, locations_cap;
    struct run_module {
        char *path, *build_id;
    } * modules; /* Module records: the build ids of the Function records' modules */
    size_t nmodules;
    struct uncounted_run uncounted; /* its Calls-0 rows and the functions without hooks */
    struct busy_pending *pending;   /* per thread of the run, in m->threads order: busy_row */
    size_t npending;
    size_t thread_base; /* the run's first thread in m->threads */
    size_t *by_id;      /* the reader's id numbers (runfile.h) -> region index + 1, 0: not yet */
    size_t nby_id;
    /* The calling-context nodes of the thread whose version 3 summary rows are being read
       (FORMAT.md 1.4), in increasing node order: each one's region, and its node in the
       call-path tree (CCT_NONE when the tree is not kept). A thread's rows come together. */
    struct node_map {
        int open;
        unsigned thread;
        uint32_t *node, *cct;
        size_t *region;
        size_t n, cap;
    } nodes;
    /* The same rows' Calls and what their Wall took out, for its bound (wallbound.h) */
    struct wallbound walls;
};

/*
 * One thread's time waiting to be counted as busy: sum[d] is the time of the instances at
 * depth d whose enclosing instance has not been read yet (rows come in end order, FORMAT.md
 * 1.3); top is the deepest index that may be nonzero.
 */
struct busy_pending {
    double *sum;
    size_t cap, top;
    /* The thread's self time, and whether the run counted some of its instances past
       PROFILER_MAX_EVENTS (a summary section): then its busy time is its self time, which
       adds up to the same top-level time (FORMAT.md 1.6) where the rows alone cannot. */
    double self;
    int capped;
};

/* The busy time waiting to be counted of thread t of the run being read. */
static struct busy_pending *pending_of(struct ingest *in, const struct thread_rec *t)
{
    /* The run's threads are contiguous in m->threads; their numbers are keys, not sizes. */
    size_t number = (size_t)(t - in->m->threads) - in->thread_base;
    if (number >= in->npending) {
        size_t n = number + 1 > 2 * in->npending ? number + 1 : 2 * in->npending;
        in->pending = xrealloc(in->pending, n * sizeof *in->pending);
        memset(in->pending + in->npending, 0, (n - in->npending) * sizeof *in->pending);
        in->npending = n;
    }
    return &in->pending[number];
}

/*
 * Count a row toward its thread's busy time, the base of Total %: a top-level instance's
 * time; for one that never stopped (a killed run), the time of the instances seen inside it,
 * so that no region's share of it exceeds 100 %.
 */
static void busy_row(struct ingest *in, struct thread_rec *t, unsigned depth, int stopped,
                     double ns)
{
    struct busy_pending *p = pending_of(in, t);
    size_t d = depth > CCT_MAX_DEPTH ? 0 : depth; /* as the call paths take such rows */
    if (d + 2 > p->cap) {
        size_t cap = d + 2 > 2 * p->cap ? d + 2 : 2 * p->cap;
        p->sum = xrealloc(p->sum, cap * sizeof *p->sum);
        memset(p->sum + p->cap, 0, (cap - p->cap) * sizeof *p->sum);
        p->cap = cap;
    }
    /* Deeper instances still waiting lost their caller's row (a cut file): top-level time,
       as they are top-level paths in the call paths. */
    for (; p->top > d + 1; p->top--) {
        t->busy_ns += p->sum[p->top];
        p->sum[p->top] = 0;
    }
    double v = stopped ? ns : p->sum[d + 1];
    p->sum[d + 1] = 0;
    if (p->top > d)
        p->top = d;
    if (d == 0) {
        t->busy_ns += v;
    } else {
        p->sum[d] += v;
        p->top = d;
    }
}

/* The run's rows are read: time still waiting for its caller counts as top-level time. */
static void busy_finish(struct ingest *in)
{
    for (size_t n = 0; n < in->npending; n++) {
        struct busy_pending *p = &in->pending[n];
        for (size_t d = 1; d <= p->top && d < p->cap; d++)
            in->m->threads[in->thread_base + n].busy_ns += p->sum[d];
        if (p->capped)
            in->m->threads[in->thread_base + n].busy_ns = p->self;
        free(p->sum);
    }
    free(in->pending);
}

/* The Module records of a run that are read: far more than a process maps (the rest would
   only make each function's look-up longer; their functions are located without a check). */
#define MODULES_PER_RUN 4096

/* The build id a Module record gave the module at path, or NULL. */
static const char *module_build_id(const struct ingest *in, const char *path)
{
    for (size_t i = 0; i < in->nmodules; i++)
        if (strcmp(in->modules[i].path, path) == 0)
            return in->modules[i].build_id;
    return NULL;
}

/* Give the regions that ran their source file and line from the run's Function records, or
   note them to be located in their modules (a run that left that to the reporter). */
static void attach_locations(struct ingest *in)
{
    for (size_t i = 0; i < in->nlocations; i++) {
        struct location *l = &in->locations[i];
        size_t k = index_region_find(in->m, l->region, l->region_len);
        /* a module named by a relative path (the vDSO, "linux-vdso.so.1") is no file here */
        if (k != SIZE_MAX && !l->file && l->module && l->module[0] == '/' && l->has_offset)
            model_unlocated_add(in->m, k, l->module, module_build_id(in, l->module), l->offset);
        if (k != SIZE_MAX && !l->no_hooks)
            in->m->regions[k].function = 1;
        if (k != SIZE_MAX && l->inlined)
            in->m->regions[k].inlined = 1;
        if (k != SIZE_MAX && !in->m->regions[k].file && l->file) {
            in->m->regions[k].file = l->file;
            in->m->regions[k].line = l->line;
            l->file = NULL;
        }
        free(l->region);
        free(l->file);
        free(l->module);
    }
    free(in->locations);
    for (size_t i = 0; i < in->nmodules; i++) {
        free(in->modules[i].path);
        free(in->modules[i].build_id);
    }
    free(in->modules);
}

/* The slot of thread number n in the run's table: its entry, or the empty slot for it. */
static size_t *thread_slot(struct ingest *in, unsigned n)
{
    size_t mask = in->thread_cap - 1;
    size_t h = (size_t)((n * 0x9E3779B97F4A7C15ull) >> 32) & mask;
    while (in->thread_of[h] && in->m->threads[in->thread_of[h] - 1].number != n)
        h = (h + 1) & mask;
    return &in->thread_of[h];
}

/* The model's thread record for thread number n of the current run, created on first sight. */
static struct thread_rec *thread_get(struct ingest *in, unsigned n, const char *tid,
                                     const char *name, const char *state, const char *role)
{
    struct model *m = in->m;
    /* Numbers are keys, not sizes: a file may name thread 4000000000. */
    if ((m->runs[in->run].threads + 1) * 2 > in->thread_cap) {
        size_t old_cap = in->thread_cap, *old = in->thread_of;
        in->thread_cap = old_cap ? old_cap * 2 : 16;
        in->thread_of = xcalloc(in->thread_cap, sizeof *in->thread_of);
        for (size_t i = 0; i < old_cap; i++)
            if (old[i])
                *thread_slot(in, m->threads[old[i] - 1].number) = old[i];
        free(old);
    }
    size_t *slot = thread_slot(in, n);
    if (!*slot) {
        /* doubling: one element at a time, a sanitizer's realloc (a copy each time) took
           minutes over 20,000 threads */
        m->threads = xgrow_zeroed(m->threads, &m->threads_cap, m->nthreads, sizeof *m->threads);
        struct thread_rec *t = &m->threads[m->nthreads];
        memset(t, 0, sizeof *t);
        t->run = in->run;
        t->number = n;
        t->tid = utf8_repair(tid ? tid : "", tid ? strlen(tid) : 0);
        t->name = utf8_repair(name ? name : "", name ? strlen(name) : 0);
        t->state = utf8_repair(state ? state : "", state ? strlen(state) : 0);
        t->role = role && role[0] ? utf8_repair(role, strlen(role)) : NULL;
        t->cpu_ns = t->wall_ns = t->wait_ns = NAN;
        t->samples = t->overhead = t->outside = t->hook_ns = t->sample_cost_ns = NAN;
        t->timer_samples = t->timer_draws = 0;
        t->hook_samples = NAN;
        char key[96];
        if (t->name[0])
            t->key = index_key_get(m, t->name);
        else if (m->runs[in->run].kind == RUN_SEED)
            t->key = index_key_get(m, "(no thread data)");
        else if (t->role) {
            /* An unnamed thread by what it runs (FORMAT.md 1.2), the same from run to run
               whatever order the threads started in: "in compress_thread" */
            size_t bare = prof_cxx_bare_length(t->role);
            size_t from = prof_cxx_qualified_start(t->role, bare);
            int len = (int)(bare - from < 80 ? bare - from : 80);
            snprintf(key, sizeof key, "in %.*s", len, t->role + from);
            t->key = index_key_get(m, key);
        } else {
            snprintf(key, sizeof key, "thread %u", n);
            t->key = index_key_get(m, key);
        }
        *slot = ++m->nthreads;
        m->runs[in->run].threads++;
    }
    return &m->threads[*slot - 1];
}

/* A Crash record, "Crash,<signal>,<name>,<thread>" (FORMAT.md 1.2): the run's signal as text,
   by its name when the record has a usable one. */
static void crash_meta(struct run_rec *run, const char *const *f, size_t n)
{
    char *end;
    unsigned long sig = strtoul(f[1], &end, 10);
    if (*end || sig == 0 || sig > 1000 || run->crash_signal)
        return;
    int named = n >= 3 && f[2][0] && strlen(f[2]) < 16 &&
                strspn(f[2], "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789") == strlen(f[2]);
    char text[64];
    if (named)
        snprintf(text, sizeof text, "%s (signal %lu)", f[2], sig);
    else
        snprintf(text, sizeof text, "signal %lu", sig);
    run->crash_signal = (int)sig;
    run->crash = xstrdup(text);
    unsigned long th = n >= 4 ? strtoul(f[3], &end, 10) : 0;
    run->crash_thread = n >= 4 && !*end && th < 1000000 ? (unsigned)th : 0;
}

/* A metadata record: run facts, threads and the collector's warnings. */
static void on_meta(void *ctx, const char *const *f, const size_t *lens, size_t n)
{
    struct ingest *in = ctx;
    struct run_rec *run = &in->m->runs[in->run];
    char **slot = NULL;
    (void)lens;
    if (n < 2)
        return;
    if (strcmp(f[0], "Program") == 0)
        slot = &run->program;
    else if (strcmp(f[0], "Command") == 0)
        slot = &run->command;
    else if (strcmp(f[0], "Host") == 0)
        slot = &run->host;
    else if (strcmp(f[0], "Start") == 0)
        slot = &run->start;
    else if (strcmp(f[0], "Clock") == 0)
        slot = &run->clock;
    else if (strcmp(f[0], "Pid") == 0)
        slot = &run->pid;
    else if (strcmp(f[0], "Include") == 0)
        slot = &run->include;
    else if (strcmp(f[0], "Exclude") == 0)
        slot = &run->exclude;
    else if (strcmp(f[0], PROF_TIMING_RECORD) == 0 && n >= 4 &&
             strcmp(f[1], PROF_TIMING_WORD_SAMPLED) == 0) {
        double period = strtod(f[3], NULL);
        if (period > 0 && isfinite(period)) {
            free(run->sampling);
            run->sampling = xstrdup(f[2]);
            run->period_ns = period;
            double cost = n >= 7 ? strtod(f[6], NULL) : 0;
            run->overflow_ns = cost > 0 && cost < period ? cost : 0;
            double asked = n >= 8 ? strtod(f[7], NULL) : 0;
            run->period_asked_ns = asked > 0 && asked <= period ? asked : period;
        }
    } else if (strcmp(f[0], "Complete") == 0)
        run->complete = strcmp(f[1], "no") != 0;
    else if (strcmp(f[0], PROF_CRASH_KEY) == 0)
        crash_meta(run, f, n);
    else if (strcmp(f[0], "Duration") == 0) {
        run->duration_ns = strtod(f[1], NULL); /* ticks until begin converts */
        in->has_duration = 1;
    } else if (strcmp(f[0], "Thread") == 0 && n >= 5) {
        char *end;
        unsigned long num = strtoul(f[1], &end, 10);
        if (*end == 0 && num < 1000000)
            thread_get(in, (unsigned)num, f[2], f[3], f[4], n >= 6 ? f[5] : NULL);
    } else if (strcmp(f[0], PROF_THREAD_CPU_RECORD) == 0 && n >= PROF_THREAD_CPU_FIELDS) {
        /* runfile.c and assemble.c checked the numbers */
        char *end;
        unsigned long num = strtoul(f[1], &end, 10);
        if (*end == 0 && num < 1000000) {
            struct thread_rec *t = thread_get(in, (unsigned)num, NULL, NULL, NULL, NULL);
            t->cpu_ns = strtod(f[2], NULL);
            t->wall_ns = strtod(f[3], NULL);
            /* The wait (FORMAT.md 1.2) when the fifth field is a number. */
            if (n > PROF_THREAD_CPU_FIELDS && lens[4] > 0 && f[4][0] >= '0' && f[4][0] <= '9') {
                double w = strtod(f[4], &end);
                if (*end == 0)
                    t->wait_ns = w;
            }
            if (n >= PROF_THREAD_CPU_FIELDS_SAMPLED) {
                t->samples = strtod(f[5], NULL);
                t->overhead = strtod(f[6], NULL);
                t->outside = strtod(f[7], NULL);
                t->hook_ns = strtod(f[8], NULL) / 1000;
            }
            if (n >= PROF_THREAD_CPU_FIELDS_COST)
                t->sample_cost_ns = strtod(f[9], NULL);
            if (n >= PROF_THREAD_CPU_FIELDS_TIMER) {
                t->timer_samples = strtod(f[10], NULL);
                t->timer_draws = strtod(f[11], NULL);
            }
            if (n >= PROF_THREAD_CPU_FIELDS_HOOK)
                t->hook_samples = strtod(f[12], NULL);
        }
    } else if (strcmp(f[0], "Function") == 0 && n >= 4) {
        /* without a file (no DWARF) it still says the region is a function: an instrumented
           one unless its seventh field marks it compiled without hooks */
        in->locations =
            xgrow_zeroed(in->locations, &in->locations_cap, in->nlocations, sizeof *in->locations);
        struct location *l = &in->locations[in->nlocations++];
        l->region = xstrndup(f[1], lens[1]);
        l->region_len = lens[1];
        l->file = lens[2] > 0 ? utf8_repair(f[2], lens[2]) : NULL;
        l->line = strtoul(f[3], NULL, 10);
        /* where its code is: the reporter reads a missing file and line from there */
        l->module = n > 5 && lens[4] > 0 ? xstrndup(f[4], lens[4]) : NULL;
        if (l->module && memchr(f[4], 0, lens[4])) {
            free(l->module);
            l->module = NULL;
        }
        char *end = NULL;
        l->has_offset = l->module && lens[5] > 2 && f[5][0] == '0' && f[5][1] == 'x';
        if (l->has_offset) {
            l->offset = strtoull(f[5] + 2, &end, 16);
            l->has_offset = end == f[5] + lens[5];
        }
        l->no_hooks = uncounted_function_record(&in->uncounted, f, lens, n);
        l->inlined = n > PROF_FUNCTION_MARK_FIELD &&
                     lens[PROF_FUNCTION_MARK_FIELD] == strlen(PROF_FUNCTION_INLINED) &&
                     memcmp(f[PROF_FUNCTION_MARK_FIELD], PROF_FUNCTION_INLINED,
                            lens[PROF_FUNCTION_MARK_FIELD]) == 0;
    } else if (strcmp(f[0], PROF_MODULE_RECORD) == 0 && n >= 3 && lens[1] > 0 && lens[2] > 0 &&
               !memchr(f[1], 0, lens[1]) && !memchr(f[2], 0, lens[2]) &&
               in->nmodules < MODULES_PER_RUN) {
        in->modules = xgrow_doubling(in->modules, in->nmodules, sizeof *in->modules);
        in->modules[in->nmodules++] =
            (struct run_module){xstrndup(f[1], lens[1]), xstrndup(f[2], lens[2])};
    } else if (strcmp(f[0], "Warning") == 0 && n >= 5) {
        model_warn(in->m, in->name, f[1], strtoull(f[3], NULL, 10), "thread %s: %s", f[2], f[4]);
    }
    if (slot) {
        free(*slot);
        *slot = utf8_repair(f[1], lens[1]);
    }
}

/* After begin: a run of another program than the one picked is read no further. */
static int on_stop(void *ctx) { return ((struct ingest *)ctx)->dropped; }

/* The table starts: now ticks can be converted. */
static void on_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    struct ingest *in = ctx;
    struct run_rec *run = &in->m->runs[in->run];
    /* The metadata is all in: the run's program decides whether its rows are wanted. */
    struct program_count *c = model_program_count(in->m, run->program);
    c->runs++;
    in->counted_ns = in->has_duration && frequency ? run->duration_ns * 1e9 / (double)frequency : 0;
    c->ns += in->counted_ns;
    in->counted = 1;
    if (!model_program_wanted(in->m, run->program)) {
        in->dropped = 1;
        return;
    }
    c->kept++;
    run->kind = kind;
    run->frequency = frequency;
    in->ns_per_tick = 1e9 / (double)frequency;
    if (in->has_duration)
        run->duration_ns *= in->ns_per_tick;
    free(run->mode);
    run->mode = xstrdup(kind == RUN_SUMMARY ? "summary" : kind == RUN_SEED ? "seed" : "events");
    if (kind == RUN_SUMMARY)
        in->m->any_summary = 1;
    /* The run's threads (the last ones read, each with its ThreadCpu record by now): what the
       others' collector work added to each one's waits. */
    size_t first = in->m->nthreads;
    while (first > 0 && in->m->threads[first - 1].run == in->run)
        first--;
    if (first < in->m->nthreads) /* none yet: m->threads may be NULL */
        othercost_apply(in->m->threads + first, in->m->nthreads - first, run->period_ns);
    if (in->m->sink && in->m->sink->run_begin)
        in->m->sink->run_begin(in->m->sink->ctx, in->m, in->run);
}

/* The region of id text s[0..n), which the reader numbered id (0: no number). A number stands
   for the same text throughout the run (runfile.h), so the text is looked up once per number. */
static size_t region_of(struct ingest *in, uint32_t id, const char *s, size_t n)
{
    if (!id)
        return index_region_get(in->m, s, n);
    in->by_id = xgrow_zeroed(in->by_id, &in->nby_id, id, sizeof *in->by_id);
    if (!in->by_id[id])
        in->by_id[id] = index_region_get(in->m, s, n) + 1;
    return in->by_id[id] - 1;
}

/* One region instance (events table or seed form). */
static void on_event(void *ctx, const struct prof_event_rec *e)
{
    struct ingest *in = ctx;
    struct model *m = in->m;
    size_t ri = region_of(in, e->region_id, e->region, e->region_len);
    struct thread_rec *t = thread_get(in, e->thread, NULL, NULL, NULL, NULL);
    size_t key = t->key;
    m->runs[in->run].events++;
    m->events++;
    t->events++;
    struct region *r = &m->regions[ri];
    double ns = (double)e->ticks * in->ns_per_tick;
    double self = (double)e->self * in->ns_per_tick;
    if (in->m->runs[in->run].kind == RUN_SEED)
        self = ns; /* the seed form knows nothing of nesting */
    if (m->sink && m->sink->event)
        m->sink->event(m->sink->ctx, m, in->run, t, e, ri, ns, self,
                       (double)e->start * in->ns_per_tick);
    if (m->paths)
        paths_event(m->paths, in->run, m->runs[in->run].kind, e, ri, ns, self);
    busy_row(in, t, e->depth, e->stopped, ns);
    if (e->stopped)
        pending_of(in, t)->self += self;
    if (!e->stopped) {
        r->unterminated++;
        /* Events files list these in their Warning records; the seed form has none. */
        if (m->runs[in->run].kind == RUN_SEED) {
            if (in->unterminated < 5) {
                size_t len = strlen(in->names);
                size_t n = strlen(r->display);
                snprintf(in->names + len, sizeof in->names - len, "%s%.*s", len ? ", " : "",
                         (int)(n < 200 ? n : 200), r->display);
            }
            in->unterminated++;
        }
        return;
    }
    m->self_total_ns += self;
    double end = (double)e->start * in->ns_per_tick + ns;
    if (end > in->max_end_ns)
        in->max_end_ns = end;
    if (r->excluded)
        return;
    dist_add(&r->cost, ns);
    r->self_ns += self;
    if (!e->nested)
        r->outer_ns += ns;
    struct columns c = index_region_grow(r, in->run, key);
    c.run_sum[in->run] += ns;
    if (!e->nested)
        c.run_outer[in->run] += ns;
    c.run_calls[in->run]++;
    if (!e->nested)
        c.key_sum[key] += ns;
    c.key_self[key] += self;
    c.key_calls[key]++;
    if (m->runs[in->run].kind == RUN_SEED)
        return; /* no caller information */
    size_t caller = SIZE_MAX;
    if (e->depth > 0) {
        caller = region_of(in, e->parent_id, e->parent, e->parent_len);
        r = &m->regions[ri]; /* region_get may have moved the array */
        if (m->regions[caller].excluded)
            return;
    }
    struct edge *x = index_edge_get(m, caller, ri);
    x->calls++;
    x->total_ns += ns;
    x->outer_ns += ns;
    x->self_ns += self;
}

/* The place of node in the map, or SIZE_MAX (its nodes increase: bisection). */
static size_t node_find(const struct node_map *x, uint32_t node)
{
    size_t at = u32_lower_bound(x->node, x->n, node);
    return at < x->n && x->node[at] == node ? at : SIZE_MAX;
}

/*
 * Place a version 3 summary row of thread (its index in m->threads) among its thread's nodes:
 * *caller becomes its parent row's region (SIZE_MAX at the top level), *under its parent's
 * tree node (the root at the top level) and *at_out its parent row's place in the map. A row of
 * another thread, or one not above the last node (the summary section after the table), starts the
 * map afresh. The reader hands on a row only after its parent's; a parent not found all the same
 * makes the row a top-level one.
 */
static void node_parent(struct ingest *in, const struct prof_summary_rec *s, size_t thread,
                        size_t *caller, uint32_t *under, size_t *at_out)
{
    struct node_map *x = &in->nodes;
    if (!x->open || x->thread != s->thread || (x->n && s->node <= x->node[x->n - 1])) {
        x->open = 1;
        x->thread = s->thread;
        x->n = 0;
        wallbound_flush(&in->walls, in->m);
        wallbound_begin(&in->walls, thread);
    }
    *caller = SIZE_MAX;
    *under = in->m->paths ? in->m->paths->tree.root : CCT_NONE;
    size_t at = s->parent ? node_find(x, s->parent) : SIZE_MAX;
    *at_out = at;
    if (at != SIZE_MAX) {
        *caller = x->region[at];
        *under = x->cct[at];
    }
}

/* Remember a version 3 row's node: its region and tree node, for its children's rows. */
static void node_add(struct node_map *x, uint32_t node, size_t region, uint32_t cct)
{
    if (x->n == x->cap) {
        x->cap = x->cap ? 2 * x->cap : 64;
        x->node = xrealloc(x->node, x->cap * sizeof *x->node);
        x->cct = xrealloc(x->cct, x->cap * sizeof *x->cct);
        x->region = xrealloc(x->region, x->cap * sizeof *x->region);
    }
    x->node[x->n] = node;
    x->region[x->n] = region;
    x->cct[x->n] = cct;
    x->n++;
}

/*
 * A summary row of a sampled run (format 4, Timing,sampled): its Ticks, Self and Outer are
 * CPU-time samples times the period. A context whose every call was timed has its calls' wall
 * time as their cost (Wall, Min, Max, SumSquares, Histogram); the others only the mean of the
 * sampled time. Each sample adds period^2 to the variance of the region's totals, times its
 * thread's spread (thread_sample_spread).
 */
static void sampled_cost(struct region *r, const struct prof_summary_rec *s, double k,
                         double period, double spread, double scale)
{
    double outer = (double)s->outer * k, self = (double)s->self * k;
    r->sampled = 1;
    r->var_outer += outer * period * spread;
    r->var_self += self * period * spread;
    if (s->timed == s->calls) {
        /* scale: the other threads' collector work taken out (othercost.h); each call is
           taken to have lost the same fraction, as the collector does with its own hooks */
        double ks = k * scale;
        dist_add_moments(&r->cost, s->calls, (double)s->wall * ks, s->sumsq * ks * ks,
                         (double)s->min * ks, (double)s->max * ks);
        if (s->outer == s->ticks) { /* outermost (or no samples): recursion counted once */
            r->wall_ns += (double)s->wall * ks;
            r->wall_cpu_ns += (double)s->ticks * k;
        }
        return;
    }
    double mean = (double)s->ticks * k / (double)s->calls;
    r->counted_only += s->calls;
    dist_add_moments(&r->cost, s->calls, (double)s->ticks * k, mean * mean * (double)s->calls, mean,
                     mean);
    dist_add_bin(&r->cost, mean, mean, s->calls);
}

/*
 * One summary row. Version 1 or 2 (node 0): a thread's whole account of a region. Version 3:
 * one calling context of a thread; a region's account is the sum of its rows (FORMAT.md 1.4),
 * which is what adding each row to it gives, and each row with calls is the edge from its
 * parent row's region, as an events row is from its Parent.
 */
static void on_summary(void *ctx, const struct prof_summary_rec *s)
{
    struct ingest *in = ctx;
    struct model *m = in->m;
    size_t ri = index_region_get(m, s->region, s->region_len);
    struct thread_rec *t = thread_get(in, s->thread, NULL, NULL, NULL, NULL);
    struct region *r = &m->regions[ri];
    double k = in->ns_per_tick;
    m->runs[in->run].events += s->calls;
    m->events += s->calls;
    t->events += s->calls;
    m->self_total_ns += (double)s->self * k;
    if (m->runs[in->run].kind == RUN_EVENTS || s->node) {
        /* The summary section of an events run (the instances past PROFILER_MAX_EVENTS), or
           a version 3 summary table: a thread's self time over its rows adds up to the time
           of its top-level instances (FORMAT.md 1.6), its busy time. */
        struct busy_pending *p = pending_of(in, t);
        p->self += (double)s->self * k;
        p->capped = 1;
    }
    if (m->sink && m->sink->summary)
        m->sink->summary(m->sink->ctx, m, in->run, t, s, k);
    size_t caller = SIZE_MAX, parent_at = SIZE_MAX;
    uint32_t under = CCT_NONE, node = CCT_NONE;
    if (s->node)
        node_parent(in, s, (size_t)(t - m->threads), &caller, &under, &parent_at);
    if (m->paths)
        node = paths_summary(m->paths, s, k, under);
    if (s->node) {
        node_add(&in->nodes, s->node, ri, node);
        wallbound_row(&in->walls, parent_at, s->calls);
    }
    if (s->calls == 0) {
        struct uncounted_row x = {.region = ri,
                                  .key = t->key,
                                  .caller = caller,
                                  .cct = node,
                                  .node = s->node != 0,
                                  .ticks = (double)s->ticks * k,
                                  .self = (double)s->self * k,
                                  .outer = (double)s->outer * k,
                                  .sample_ns = thread_sample_ns(m->runs[in->run].period_ns, t),
                                  .spread = thread_sample_spread(t)};
        uncounted_row_add(&in->uncounted, m, in->run, &x);
        return;
    }
    if (r->excluded)
        return;
    double period = m->runs[in->run].period_ns, scale = 1;
    /* What the row's calls took, as the region's cost per call counts it: their wall time
       when every one was timed (sampled_cost), else their time as the table has it */
    double cost_ns = (double)s->ticks * k;
    if (period > 0) {
        period = thread_sample_ns(period, t);
        if (s->timed == s->calls) {
            double wall = (double)s->wall * k, cpu = (double)s->ticks * k;
            double off = t->wall_ns - t->cpu_ns;
            double others = othercost_scale(wall, cpu, t->others_ns, off);
            double cap = othercost_offcpu_cap(wall * others, cpu, s->calls, period, off);
            scale = others * cap;
            if (s->node && s->outer == s->ticks) /* its Wall is the region's (sampled_cost) */
                wallbound_wall(&in->walls, ri, scale, wall * (1 - others) * cap);
        }
        sampled_cost(r, s, k, period, thread_sample_spread(t), scale);
        if (s->timed == s->calls)
            cost_ns = (double)s->wall * k * scale;
    } else {
        dist_add_moments(&r->cost, s->calls, (double)s->ticks * k, s->sumsq * k * k,
                         (double)s->min * k, (double)s->max * k);
    }
    for (size_t i = 0; (period <= 0 || s->timed == s->calls) && i < s->nhist; i++) {
        /* Bucket bounds of FORMAT.md 1.4 (format/hist.h), in ticks, then in ns. */
        uint32_t b = s->hist_bucket[i];
        dist_add_bin(&r->cost, prof_hist_bound(b) * k * scale, prof_hist_bound(b + 1) * k * scale,
                     s->hist_count[i]);
    }
    r->self_ns += (double)s->self * k;
    r->outer_ns += (double)s->outer * k;
    struct columns c = index_region_grow(r, in->run, t->key);
    /* per run, as the region's cost: its run means are of the same times as its Mean (pigz's
       main read a Mean of 24.2 ms, its wall time a call, and run means of 2.1 ms, its CPU) */
    c.run_sum[in->run] += cost_ns;
    c.run_outer[in->run] += (double)s->outer * k;
    c.run_calls[in->run] += s->calls;
    c.key_sum[t->key] += (double)s->outer * k;
    c.key_self[t->key] += (double)s->self * k;
    c.key_calls[t->key] += s->calls;
    if (!s->node || (caller != SIZE_MAX && m->regions[caller].excluded))
        return;
    struct edge *x = index_edge_get(m, caller, ri);
    x->calls += s->calls;
    x->total_ns += (double)s->ticks * k;
    x->outer_ns += (double)s->ticks * k;
    x->self_ns += (double)s->self * k;
}

/* One row of the memory section: kept as it is, text repaired. */
static void on_memory(void *ctx, const struct run_memory *mr)
{
    struct ingest *in = ctx;
    struct model *m = in->m;
    if (m->nmem == m->mem_cap) {
        m->mem_cap = m->mem_cap ? 2 * m->mem_cap : 64;
        m->mem = xrealloc(m->mem, m->mem_cap * sizeof *m->mem);
    }
    struct mem_rec *r = &m->mem[m->nmem++];
    r->run = in->run;
    r->kind = xstrdup(mr->kind);
    r->region = utf8_repair(mr->region, mr->region_len);
    r->site = utf8_repair(mr->site, mr->site_len);
    r->alloc_kind = xstrdup(mr->alloc_kind);
    r->free_kind = xstrdup(mr->free_kind);
    r->other_site = utf8_repair(mr->other_site, mr->other_site_len);
    r->function = utf8_repair(mr->function ? mr->function : "", mr->function_len);
    r->stack = utf8_repair(mr->stack ? mr->stack : "", mr->stack_len);
    r->thread = mr->thread;
    r->other_thread = mr->other_thread;
    r->count = mr->count;
    r->bytes = mr->bytes;
    m->runs[in->run].has_memory = 1;
}

/* A problem at a line: becomes a warning, up to a limit per file. */
static void on_problem(void *ctx, unsigned long line, const char *message)
{
    struct ingest *in = ctx;
    in->m->skipped_rows++;
    if (++in->problems > PROBLEMS_PER_FILE)
        return;
    char where[4096];
    snprintf(where, sizeof where, "%s:%lu", in->name, line);
    model_warn(in->m, where, "malformed", 1, "%s", message);
}

/* Read one run into the model through a run_reader. */
enum run_status model_read_run(struct model *m, const char *name, int recovered, run_reader read,
                               void *src)
{
    struct model_mark mark = model_mark(m); /* what a skipped run rolls back to */
    m->runs = xgrow_zeroed(m->runs, &m->runs_cap, m->nruns, sizeof *m->runs);
    struct run_rec *run = &m->runs[m->nruns];
    memset(run, 0, sizeof *run);
    run->file = utf8_repair(name, strlen(name));
    run->complete = 1;
    run->recovered = recovered;
    run->wait_share = run->busy_ratio = NAN;
    struct ingest in = {.m = m, .run = m->nruns, .name = name, .ns_per_tick = 1, .names = ""};
    in.thread_base = m->nthreads;
    m->nruns++;
    struct run_handler h = {&in,        on_meta,    on_begin,  on_event,
                            on_summary, on_problem, on_memory, on_stop};
    struct rep_error why;
    rep_error_clear(&why);
    unsigned long line = 0;
    enum run_status st = read(src, &h, &why, &line);
    wallbound_flush(&in.walls, m);
    wallbound_release(&in.walls);
    busy_finish(&in);
    uncounted_run_end(&in.uncounted, m, in.run,
                      !in.dropped && st != RUNFILE_SKIPPED && st != RUNFILE_IO_ERROR);
    free(in.thread_of);
    free(in.by_id);
    free(in.nodes.node);
    free(in.nodes.cct);
    free(in.nodes.region);
    attach_locations(&in);
    run = &m->runs[m->nruns - 1];
    if (!in.dropped && in.counted && (st == RUNFILE_SKIPPED || st == RUNFILE_IO_ERROR)) {
        struct program_count *c = model_program_count(m, run->program);
        c->runs--;
        c->kept--;
        c->ns -= in.counted_ns;
    }
    if (st == RUNFILE_SKIPPED || st == RUNFILE_IO_ERROR || in.dropped) {
        /* Forget the run: nothing of it was counted but its threads and warnings. */
        model_rollback(m, &mark);
        char where[4096];
        if (line)
            snprintf(where, sizeof where, "%s:%lu", name, line);
        else
            snprintf(where, sizeof where, "%s", name);
        if (!in.dropped) /* another program's run is counted in m->programs instead */
            model_warn(m, where, "skipped", 1, "file skipped: %s",
                       st == RUNFILE_IO_ERROR ? "read error"
                       : why.msg[0]           ? why.msg
                                              : "not a run file");
        paths_stop(m->paths);
        if (m->sink && m->sink->run_end)
            m->sink->run_end(m->sink->ctx, m, m->nruns, 0);
        return st;
    }
    if (in.problems > PROBLEMS_PER_FILE)
        model_warn(m, name, "malformed", in.problems - PROBLEMS_PER_FILE,
                   "%lu more malformed rows not listed", in.problems - PROBLEMS_PER_FILE);
    if (st == RUNFILE_TRUNCATED)
        run->complete = 0;
    if (in.unterminated)
        model_warn(m, name, "unterminated", in.unterminated, "%s never stopped: %s%s",
                   in.unterminated == 1 ? "region" : "regions", in.names,
                   in.unterminated > 5 ? ", ..." : "");
    if (run->duration_ns < in.max_end_ns)
        run->duration_ns = in.max_end_ns;
    if (run->crash)
        model_warn(m, name, "crashed", 1,
                   "the program crashed (%s): its data ends there; regions open at the crash "
                   "never stopped",
                   run->crash);
    else if (!run->complete)
        model_warn(m, name, "incomplete", 1,
                   recovered ? "run rebuilt from the temporary files of a killed run"
                             : "the run's data ends early (killed, or a write failed)");
    paths_stop(m->paths);
    if (m->sink && m->sink->run_end)
        m->sink->run_end(m->sink->ctx, m, m->nruns - 1, 1);
    return st;
}
