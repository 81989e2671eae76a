/*
 * compact.c - profreport --compact: every run read on its own into a calling-context tree with
 * the statistics of a summary row per path (docs/FORMAT.md 1.4), then written with format/'s
 * run-file writer (csvwrite.h), the one that writes the collector's summary tables.
 */
#define _GNU_SOURCE /* qsort_r */
#include "compact.h"

#include "base/atomicfile.h"
#include "fileutil.h"
#include "read/input.h"
#include "model/model.h"
#include "read/partfile.h"
#include "base/util.h"

#include "csvwrite.h"
#include "format.h"
#include "hist.h"

#include <errno.h>
#include <inttypes.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* One histogram bucket in use: a path's histogram is a short list of them, in bucket order. */
struct hpair {
    uint32_t bucket;
    uint64_t count;
};

/*
 * The statistics of one tree node: the columns of a summary row, and when the thread first
 * entered the path (first, second): an events row's (Start, Depth), or for a row with no place
 * in time (summary, seed) (UINT64_MAX, its Node or its place among the rows). Ordered so, a
 * node never comes before its parent: a caller starts no later than its callees, and is less
 * deep; a summary row comes after its parent's; a summary section's paths were entered after
 * every row of the table started.
 */
struct compact_stat {
    uint64_t calls, ticks, self, min, max, outer;
    uint64_t samples, timed, wall; /* format 4's Samples, Timed and Wall */
    double sumsq;
    uint64_t first, second;
    int seen; /* the node holds a row's account (first and second are set) */
    uint32_t nhist, hcap;
    struct hpair *hist;
};

/* A metadata record, its fields back to back with a NUL after each. */
struct compact_meta {
    char *text;
    size_t *lens;
    size_t n;
};

/* A row of the memory section, its text owned. */
struct compact_mem {
    struct prof_memory_rec rec;
    char *region, *site, *other_site, *function, *stack;
};

/* The value of a word in a table of n words, or -1. */
static int word_index(const char *s, const char *const *words, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(s, words[i]) == 0)
            return i;
    return -1;
}

/* ---- statistics per node ---- */

/* Make room for node i's statistics (new ones are zero). */
static struct compact_stat *stat_of(struct compact_run *c, uint32_t i)
{
    c->stats = xgrow_zeroed(c->stats, &c->nstats, i, sizeof *c->stats);
    return &c->stats[i];
}

/* Add count to bucket b of x's histogram. */
static void hist_add(struct compact_stat *x, uint32_t b, uint64_t count)
{
    uint32_t lo = 0, hi = x->nhist;
    while (lo < hi) {
        uint32_t mid = (lo + hi) / 2;
        if (x->hist[mid].bucket < b)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < x->nhist && x->hist[lo].bucket == b) {
        x->hist[lo].count += count;
        return;
    }
    if (x->nhist == x->hcap) {
        x->hcap = x->hcap ? 2 * x->hcap : 2;
        x->hist = xrealloc(x->hist, x->hcap * sizeof *x->hist);
    }
    memmove(x->hist + lo + 1, x->hist + lo, (x->nhist - lo) * sizeof *x->hist);
    x->hist[lo] = (struct hpair){b, count};
    x->nhist++;
}

/* Whether key (f, s) comes before x's. */
static int key_before(uint64_t f, uint64_t s, const struct compact_stat *x)
{
    return f < x->first || (f == x->first && s < x->second);
}

/* Add n instances' account (a summary row's columns, or one instance) to x. */
static void stat_add(struct compact_stat *x, uint64_t calls, uint64_t ticks, uint64_t self,
                     uint64_t min, uint64_t max, double sumsq, uint64_t outer, uint64_t first,
                     uint64_t second)
{
    if (calls) {
        x->min = x->calls && x->min < min ? x->min : min;
        x->max = x->calls && x->max > max ? x->max : max;
    }
    x->calls += calls;
    x->ticks += ticks;
    x->self += self;
    x->sumsq += sumsq;
    x->outer += outer;
    if (!x->seen || key_before(first, second, x)) {
        x->first = first;
        x->second = second;
    }
    x->seen = 1;
}

/* Add Samples, Timed and Wall (format 4; an events row is one timed call) to x. */
static void timing_add(struct compact_stat *x, uint64_t samples, uint64_t timed, uint64_t wall)
{
    x->samples += samples;
    x->timed += timed;
    x->wall += wall;
}

/* Hook: the node the events row being streamed went to gets that row's account (a node
   made for the row starts empty). */
static void on_row_node(void *ctx, uint32_t node, int fresh)
{
    struct compact_run *c = ctx;
    const struct prof_event_rec *e = c->row;
    struct compact_stat *x = stat_of(c, node);
    if (fresh) {
        free(x->hist);
        memset(x, 0, sizeof *x);
    }
    if (e->stopped) {
        stat_add(x, 1, e->ticks, e->self, e->ticks, e->ticks, (double)e->ticks * (double)e->ticks,
                 e->nested ? 0 : e->ticks, c->row_first, c->row_second);
        timing_add(x, 0, 1, e->ticks);
        hist_add(x, prof_hist_bucket(e->ticks), 1);
    } else {
        stat_add(x, 0, 0, 0, 0, 0, 0, 0, c->row_first, c->row_second);
    }
}

/* Hook: node src merges into dst; src's statistics move there and it is left empty. */
static void on_merged(void *ctx, uint32_t dst, uint32_t src)
{
    struct compact_run *c = ctx;
    stat_of(c, dst > src ? dst : src);
    struct compact_stat *d = &c->stats[dst], *s = &c->stats[src];
    if (s->seen)
        stat_add(d, s->calls, s->ticks, s->self, s->min, s->max, s->sumsq, s->outer, s->first,
                 s->second);
    timing_add(d, s->samples, s->timed, s->wall);
    for (uint32_t i = 0; i < s->nhist; i++)
        hist_add(d, s->hist[i].bucket, s->hist[i].count);
    free(s->hist);
    memset(s, 0, sizeof *s);
}

/* ---- reading a run ---- */

/* The tree node of thread n: a child of the root named by the number. */
static uint32_t thread_node(struct compact_run *c, uint32_t n)
{
    char name[16];
    int len = snprintf(name, sizeof name, "%" PRIu32, n);
    return cct_child(&c->tree, c->tree.root, name, (size_t)len);
}

/* End the events rows of the thread being streamed. */
static void stream_stop(struct compact_run *c)
{
    if (c->streaming)
        cct_stream_end(&c->stream);
    c->streaming = 0;
}

/* Handler: a metadata record, kept as it is (Mode says summary once written). */
static void on_meta(void *ctx, const char *const *f, const size_t *lens, size_t n)
{
    struct compact_run *c = ctx;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += lens[i] + 1;
    struct compact_meta m = {xmalloc(total ? total : 1), xmalloc((n ? n : 1) * sizeof(size_t)), n};
    char *p = m.text;
    for (size_t i = 0; i < n; i++) {
        memcpy(p, f[i], lens[i]);
        p[lens[i]] = 0;
        p += lens[i] + 1;
        m.lens[i] = lens[i];
    }
    c->meta = xgrow_zeroed(c->meta, &c->meta_cap, c->nmeta, sizeof *c->meta);
    c->meta[c->nmeta++] = m;
}

/* Handler: the table starts. */
static void on_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    struct compact_run *c = ctx;
    c->kind = kind;
    c->frequency = frequency;
    c->began = 1;
}

/* Handler: one events row (or seed row), into its thread's stream. A seed row is an instance
   at the top level of thread 1, in its order among the rows; it knows nothing of nesting. */
static void on_event(void *ctx, const struct prof_event_rec *r)
{
    struct compact_run *c = ctx;
    struct prof_event_rec e = *r;
    c->seq++;
    if (c->kind == RUN_SEED) {
        e.thread = 1;
        e.depth = 0;
        e.nested = 0;
        e.self = e.ticks;
        c->row_first = c->seq;
        c->row_second = 0;
        if (e.stopped && e.ticks > c->seed_end)
            c->seed_end = e.ticks;
        if (!e.stopped) {
            if (c->never < 4) {
                size_t len = strlen(c->never_names);
                snprintf(c->never_names + len, sizeof c->never_names - len, "%s%.*s",
                         len ? ", " : "", (int)(e.region_len < 40 ? e.region_len : 40), e.region);
            }
            c->never++;
        }
    } else {
        c->row_first = e.start;
        c->row_second = e.depth;
    }
    if (!c->streaming || c->stream_thread != e.thread) {
        stream_stop(c);
        cct_stream_begin(&c->stream, &c->tree, thread_node(c, e.thread));
        c->streaming = 1;
        c->stream_thread = e.thread;
    }
    c->row = &e;
    cct_stream_row(&c->stream, e.region, e.region_len, e.depth, e.stopped, 0, 0);
    c->row = NULL;
}

/* Handler: one summary row (a summary table's, or an events run's summary section), added to
   its path: under its Parent's node (version 3), or at the top of its thread (1 and 2). */
static void on_summary(void *ctx, const struct prof_summary_rec *s)
{
    struct compact_run *c = ctx;
    stream_stop(c);
    c->seq++;
    uint32_t under = thread_node(c, s->thread);
    if (s->node) {
        /* Another thread, or a node not above the last (the section after the table): the
           map starts again. runfile.c and assemble.c hand on only rows that fit. */
        if (!c->map_open || c->map_thread != s->thread ||
            (c->map_n && s->node <= c->map_node[c->map_n - 1])) {
            c->map_open = 1;
            c->map_thread = s->thread;
            c->map_n = 0;
        }
        size_t at = u32_lower_bound(c->map_node, c->map_n, s->parent);
        if (s->parent && at < c->map_n && c->map_node[at] == s->parent)
            under = c->map_tree[at];
    }
    uint32_t node = cct_child(&c->tree, under, s->region, s->region_len);
    if (s->node) {
        if (c->map_n == c->map_cap) {
            c->map_cap = c->map_cap ? 2 * c->map_cap : 64;
            c->map_node = xrealloc(c->map_node, c->map_cap * sizeof *c->map_node);
            c->map_tree = xrealloc(c->map_tree, c->map_cap * sizeof *c->map_tree);
        }
        c->map_node[c->map_n] = s->node;
        c->map_tree[c->map_n] = node;
        c->map_n++;
    }
    struct compact_stat *x = stat_of(c, node);
    stat_add(x, s->calls, s->ticks, s->self, s->min, s->max, s->sumsq, s->outer, UINT64_MAX,
             s->node ? s->node : c->seq);
    timing_add(x, s->samples, s->timed, s->wall);
    for (size_t i = 0; i < s->nhist; i++)
        hist_add(x, s->hist_bucket[i], s->hist_count[i]);
}

/* A copy of s[0..n) with a NUL, or NULL for an empty field (the writer's "empty"). */
static char *field_copy(const char *s, size_t n) { return n ? xstrndup(s, n) : NULL; }

/* Handler: one row of the memory section, kept for the compact's own. */
static void on_memory(void *ctx, const struct run_memory *m)
{
    struct compact_run *c = ctx;
    c->mem = xgrow_zeroed(c->mem, &c->mem_cap, c->nmem, sizeof *c->mem);
    struct compact_mem *x = &c->mem[c->nmem++];
    memset(x, 0, sizeof *x);
    x->region = field_copy(m->region, m->region_len);
    x->site = field_copy(m->site, m->site_len);
    x->other_site = field_copy(m->other_site, m->other_site_len);
    x->function = field_copy(m->function, m->function_len);
    x->stack = field_copy(m->stack, m->stack_len);
    /* The reader checked the words: each is one of the format's (format.h). */
    int alloc = word_index(m->alloc_kind, prof_alloc_kinds, PROF_MEM_KIND_NAMES);
    int freed = word_index(m->free_kind, prof_free_kinds, PROF_MEM_KIND_NAMES);
    x->rec = (struct prof_memory_rec){.kind = word_index(m->kind, prof_memory_kinds, PROF_MK_N),
                                      .alloc_kind = alloc > 0 ? alloc - 1 : -1,
                                      .free_kind = freed > 0 ? freed - 1 : -1,
                                      .thread = m->thread,
                                      .other_thread = m->other_thread,
                                      .region = x->region,
                                      .region_len = m->region_len,
                                      .site = x->site,
                                      .other_site = x->other_site,
                                      .function = x->function,
                                      .stack = x->stack,
                                      .count = m->count,
                                      .bytes = m->bytes};
}

/* Handler: a malformed row, left out; the first one's message is kept for the warning. */
static void on_problem(void *ctx, unsigned long line, const char *message)
{
    struct compact_run *c = ctx;
    if (!c->problems++) {
        c->problem_line = line;
        snprintf(c->problem, sizeof c->problem, "%s", message);
    }
}

/* An empty run. */
void compact_run_init(struct compact_run *c)
{
    memset(c, 0, sizeof *c);
    cct_init(&c->tree);
    c->hooks = (struct cct_hooks){c, on_row_node, on_merged};
    c->tree.hooks = &c->hooks;
}

/* Free everything c holds. */
void compact_run_release(struct compact_run *c)
{
    stream_stop(c);
    cct_release(&c->tree);
    for (size_t i = 0; i < c->nstats; i++)
        free(c->stats[i].hist);
    free(c->stats);
    free(c->map_node);
    free(c->map_tree);
    for (size_t i = 0; i < c->nmeta; i++) {
        free(c->meta[i].text);
        free(c->meta[i].lens);
    }
    free(c->meta);
    for (size_t i = 0; i < c->nmem; i++) {
        free(c->mem[i].region);
        free(c->mem[i].site);
        free(c->mem[i].other_site);
        free(c->mem[i].function);
        free(c->mem[i].stack);
    }
    free(c->mem);
    memset(c, 0, sizeof *c);
}

/* The callbacks that read a run into c. */
void compact_run_handler(struct compact_run *c, struct run_handler *h)
{
    *h = (struct run_handler){c,          on_meta,    on_begin,  on_event,
                              on_summary, on_problem, on_memory, NULL};
}

/* ---- writing the compact ---- */

/* One thread's nodes being numbered. */
struct order {
    const struct compact_run *c;
    uint32_t anchor; /* the thread's node */
};

/* Order of a thread's nodes: by first entry, then (nodes entered at one tick, at one depth)
   name bytes, then their parents in the same order. Never a node before its parent. */
static int by_entry(const void *a, const void *b, void *ctx)
{
    const struct order *o = ctx;
    const struct cct *t = &o->c->tree;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    while (x != y && x != o->anchor && y != o->anchor) {
        const struct compact_stat *sx = &o->c->stats[x], *sy = &o->c->stats[y];
        if (sx->first != sy->first)
            return sx->first < sy->first ? -1 : 1;
        if (sx->second != sy->second)
            return sx->second < sy->second ? -1 : 1;
        uint32_t nx = t->nodes[x].name, ny = t->nodes[y].name;
        size_t lx = t->name_lens[nx], ly = t->name_lens[ny];
        int d = memcmp(t->names[nx], t->names[ny], lx < ly ? lx : ly);
        if (d || lx != ly)
            return d ? d : lx < ly ? -1 : 1;
        x = t->nodes[x].parent;
        y = t->nodes[y].parent;
    }
    return (x != o->anchor) - (y != o->anchor);
}

/* The nodes below anchor, in tree order (*n of them; the caller frees the array). */
static uint32_t *subtree(const struct cct *t, uint32_t anchor, size_t *n)
{
    /* out doubles as the stack: out[0..k) are listed, out[k..top) wait for their children. */
    size_t cap = 64, k = 0, top = 0;
    uint32_t *out = xmalloc(cap * sizeof *out);
    uint32_t from = anchor;
    for (;;) {
        for (uint32_t ch = t->nodes[from].child; ch != CCT_NONE; ch = t->nodes[ch].sibling) {
            if (top == cap)
                out = xrealloc(out, (cap *= 2) * sizeof *out);
            out[top++] = ch;
        }
        if (k == top)
            break;
        from = out[k++];
    }
    *n = k;
    return out;
}

/* A thread's node and its number, for sorting. */
struct numbered {
    unsigned long number;
    uint32_t node;
};

/* Order of threads: by number. */
static int by_number(const void *a, const void *b)
{
    const struct numbered *x = a, *y = b;
    return (x->number > y->number) - (x->number < y->number);
}

/* The threads' nodes (children of the root), in increasing thread number (*n of them): sorted,
   as a run may have many threads. */
static uint32_t *threads_sorted(const struct cct *t, size_t *n)
{
    uint32_t *v = cct_children(t, t->root, n);
    struct numbered *x = xmalloc((*n ? *n : 1) * sizeof *x);
    for (size_t i = 0; i < *n; i++)
        x[i] = (struct numbered){strtoul(t->names[t->nodes[v[i]].name], NULL, 10), v[i]};
    qsort(x, *n, sizeof *x, by_number);
    for (size_t i = 0; i < *n; i++)
        v[i] = x[i].node;
    free(x);
    return v;
}

/* Write one thread's rows: its nodes by first entry, numbered from 1. */
static void write_thread(struct compact_run *c, uint32_t anchor, const struct prof_run_sink *sink,
                         uint32_t *num)
{
    const struct cct *t = &c->tree;
    size_t n;
    uint32_t *v = subtree(t, anchor, &n);
    stat_of(c, (uint32_t)t->nnodes); /* every node has statistics, if only zero */
    struct order o = {c, anchor};
    qsort_r(v, n, sizeof *v, by_entry, &o);
    uint32_t thread = (uint32_t)strtoul(t->names[t->nodes[anchor].name], NULL, 10);
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t count[PROF_HIST_BUCKETS];
    for (size_t i = 0; i < n; i++) {
        num[v[i]] = (uint32_t)(i + 1);
        const struct compact_stat *x = &c->stats[v[i]];
        const struct cct_node *nd = &t->nodes[v[i]];
        for (uint32_t k = 0; k < x->nhist; k++) {
            bucket[k] = x->hist[k].bucket;
            count[k] = x->hist[k].count;
        }
        struct prof_summary_rec s = {.region = t->names[nd->name],
                                     .region_len = t->name_lens[nd->name],
                                     .thread = thread,
                                     .node = (uint32_t)(i + 1),
                                     .parent = nd->parent == anchor ? 0 : num[nd->parent],
                                     .calls = x->calls,
                                     .ticks = x->ticks,
                                     .self = x->self,
                                     .min = x->calls ? x->min : 0,
                                     .max = x->calls ? x->max : 0,
                                     .outer = x->outer,
                                     .sumsq = x->sumsq,
                                     .samples = x->samples,
                                     .timed = x->timed,
                                     .wall = x->wall,
                                     .hist_bucket = bucket,
                                     .hist_count = count,
                                     .nhist = x->nhist};
        sink->summary(sink->ctx, &s);
    }
    free(v);
}

/* Hand a record of NUL-ended fields to the sink. */
static void put_record(const struct prof_run_sink *sink, const char *const *f, size_t n)
{
    size_t lens[8];
    for (size_t i = 0; i < n; i++)
        lens[i] = strlen(f[i]);
    sink->meta(sink->ctx, f, lens, n);
}

/* Write the compact of c to out. */
enum prof_error compact_run_write(struct compact_run *c, FILE *out, int truncated)
{
    stream_stop(c);
    struct prof_csv_writer w;
    struct prof_run_sink sink;
    prof_csv_writer_init(&w, &sink, out);
    char freq[24], version[24];
    snprintf(freq, sizeof freq, "%" PRIu64, c->frequency);
    snprintf(version, sizeof version, "%d", PROF_RUN_VERSION);
    put_record(&sink, (const char *const[]){"Frequency", freq}, 2);
    put_record(&sink, (const char *const[]){"Format", PROF_RUN_FORMAT, version}, 3);
    int mode = 0, complete = 0;
    for (size_t i = 0; i < c->nmeta; i++) {
        const struct compact_meta *m = &c->meta[i];
        size_t n = m->n;
        const char **f = xmalloc((n ? n : 1) * sizeof *f);
        size_t *lens = xmalloc((n ? n : 1) * sizeof *lens);
        const char *p = m->text;
        for (size_t k = 0; k < n; k++) {
            f[k] = p;
            lens[k] = m->lens[k];
            p += m->lens[k] + 1;
        }
        if (n >= 2 && strcmp(f[0], "Mode") == 0) {
            f[1] = "summary";
            lens[1] = strlen(f[1]);
            mode = 1;
        }
        if (n >= 2 && strcmp(f[0], "Complete") == 0) {
            complete = 1;
            if (truncated) {
                f[1] = "no";
                lens[1] = 2;
            }
        }
        sink.meta(sink.ctx, f, lens, n);
        free(f);
        free(lens);
    }
    if (!mode) /* the seed form has no metadata */
        put_record(&sink, (const char *const[]){"Mode", "summary"}, 2);
    if (c->kind == RUN_SEED) {
        /* What a report takes for a seed run's duration: its rows' latest end. */
        char end[24];
        snprintf(end, sizeof end, "%" PRIu64, c->seed_end);
        put_record(&sink, (const char *const[]){"Duration", end}, 2);
    }
    if (truncated && !complete)
        put_record(&sink, (const char *const[]){"Complete", "no"}, 2);
    if (c->never) {
        char count[24], message[400];
        snprintf(count, sizeof count, "%" PRIu64, c->never);
        snprintf(message, sizeof message, "%s never stopped: %s%s",
                 c->never == 1 ? "region" : "regions", c->never_names, c->never > 4 ? ", ..." : "");
        put_record(&sink, (const char *const[]){"Warning", "unterminated", "1", count, message}, 5);
    }
    sink.table(sink.ctx, 1);
    size_t nthreads;
    uint32_t *threads = threads_sorted(&c->tree, &nthreads);
    uint32_t *num = xcalloc(c->tree.nnodes ? c->tree.nnodes : 1, sizeof *num);
    for (size_t i = 0; i < nthreads; i++)
        write_thread(c, threads[i], &sink, num);
    free(num);
    free(threads);
    for (size_t i = 0; i < c->nmem; i++)
        sink.memory(sink.ctx, &c->mem[i].rec);
    return prof_csv_writer_finish(&w);
}

/* ---- the runs named on the command line ---- */

/* The compact's path for an input: outdir/ and the run file's name (a killed run's: the name
   of its parts up to the thread number, and .csv). The caller frees it. */
static char *target_of(const char *outdir, const struct input *in)
{
    char *copy = xstrdup(in->path ? in->path : in->display);
    const char *base = basename(copy);
    size_t len = strlen(outdir) + strlen(base) + 8;
    char *t = xmalloc(len);
    snprintf(t, len, "%s%s%s%s", outdir, outdir[strlen(outdir) - 1] == '/' ? "" : "/", base,
             in->path ? "" : ".csv");
    free(copy);
    return t;
}

/* Read one input into c. Its status, as runfile_parse's; why says what is wrong. */
static enum run_status read_input(const struct input *in, struct compact_run *c,
                                  struct model *scratch, struct rep_error *why, uint64_t *bytes)
{
    struct run_handler h;
    compact_run_handler(c, &h);
    unsigned long line = 0;
    rep_error_clear(why);
    *bytes = 0;
    if (!in->path) {
        struct partfile pf;
        enum prof_error e = partfile_open(&pf, (const char *const *)in->parts, in->nparts);
        if (e != PROF_OK) {
            rep_fail(why, REP_ERR_NO_INPUT, "parts of a killed run: %s", prof_strerror(e));
            return RUNFILE_SKIPPED;
        }
        for (size_t i = 0; i < in->nparts; i++) {
            struct stat st;
            if (stat(in->parts[i], &st) == 0)
                *bytes += (uint64_t)st.st_size;
        }
        enum run_status st = partfile_read(&pf, &h, why, &line);
        partfile_close(&pf);
        return st;
    }
    int fd = input_open(in, scratch);
    if (fd < 0)
        return RUNFILE_IO_ERROR; /* input_open said why */
    struct stat st;
    if (fstat(fd, &st) == 0)
        *bytes = (uint64_t)st.st_size;
    FILE *f = fdopen(fd, "rb");
    if (!f)
        die_nomem(NULL);
    enum run_status rs = runfile_parse(f, in->path, &h, why, &line);
    fclose(f);
    if (rs == RUNFILE_SKIPPED && line) {
        struct rep_error at = *why;
        rep_fail(why, at.code, "line %lu: %s", line, at.msg);
    }
    return rs;
}

/* Write c to target (outdir/name, outdir open as dirfd) through a temporary file in that
   folder, never over an existing file. 0, or -1 with e. */
static int write_compact(struct compact_run *c, int dirfd, const char *outdir, const char *target,
                         int truncated, uint64_t *bytes, struct rep_error *e)
{
    struct atomicfile a;
    if (atomicfile_open_at(&a, dirfd, outdir, strrchr(target, '/') + 1, e) != 0)
        return -1;
    FILE *f = atomicfile_stream(&a);
    if (!f) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", target, strerror(errno));
        atomicfile_discard(&a);
        return -1;
    }
    enum prof_error err = compact_run_write(c, f, truncated);
    int errn = errno;
    *bytes = (uint64_t)ftello(f);
    if (fclose(f) != 0 && err == PROF_OK) {
        err = PROF_ERR_IO;
        errn = errno;
    }
    if (err == PROF_ERR_NOMEM)
        die_nomem(NULL);
    if (err != PROF_OK) {
        rep_fail(e, REP_ERR_OUTPUT, "cannot write '%s': %s", target, strerror(errn));
        atomicfile_discard(&a);
        return -1;
    }
    return atomicfile_commit_new(&a, e);
}

/* Compact every run the paths name into outdir. */
int compact_runs(const char *const *paths, size_t npaths, const char *outdir,
                 struct compact_totals *tot, struct rep_error *e)
{
    memset(tot, 0, sizeof *tot);
    struct model scratch; /* where inputs_collect and input_open put their warnings */
    model_init(&scratch);
    struct input *in = NULL;
    size_t n = inputs_collect(paths, npaths, &in, &scratch);
    char **targets = xcalloc(n ? n : 1, sizeof *targets);
    int rc = 0;
    /* Every target is checked before anything is written: a refusal leaves outdir as it was.
       seen indexes targets[0..i), for many runs. */
    struct str_index seen = {0};
    for (size_t i = 0; i < n && rc == 0; i++) {
        targets[i] = target_of(outdir, &in[i]);
        struct stat st;
        if (lstat(targets[i], &st) == 0)
            rc = rep_fail(e, REP_ERR_OUTPUT,
                          "cannot write '%s': it exists (a compact never replaces a file)",
                          targets[i]);
        size_t k = rc == 0 ? str_index_find(&seen, targets, targets[i]) : SIZE_MAX;
        if (k != SIZE_MAX)
            rc = rep_fail(e, REP_ERR_OUTPUT,
                          "cannot write '%s': two runs would have that name ('%s' and '%s')",
                          targets[i], in[k].display, in[i].display);
        else if (rc == 0)
            str_index_add(&seen, targets);
    }
    str_index_release(&seen);
    if (rc == 0 && n == 0)
        rc = rep_fail(e, REP_ERR_NO_INPUT,
                      "no run files found in the paths given (run files are *.csv; folders are "
                      "not searched recursively)");
    int dirfd = -1;
    if (rc == 0) {
        int err = prof_mkdirs(outdir);
        if (err)
            rc = rep_fail(e, REP_ERR_OUTPUT, "cannot write to '%s': %s", outdir, strerror(err));
    }
    /* Written relative to the folder opened, as the charts are: a symbolic link planted at its
       name is refused, never followed into a folder the user did not name. */
    if (rc == 0 && (dirfd = atomicfile_dir_open(outdir, "compacts", e)) < 0)
        rc = -1;
    for (size_t i = 0; i < n && rc == 0; i++) {
        struct compact_run c;
        compact_run_init(&c);
        struct rep_error why;
        uint64_t in_bytes, out_bytes;
        enum run_status st = read_input(&in[i], &c, &scratch, &why, &in_bytes);
        if (st == RUNFILE_SKIPPED || st == RUNFILE_IO_ERROR || !c.began) {
            if (why.msg[0] || st != RUNFILE_IO_ERROR)
                warn_msg("skipping '%s': %s", in[i].display,
                         why.msg[0] ? why.msg : "not a run file");
            tot->skipped++;
        } else {
            if (c.problems)
                warn_msg("%s:%lu: %lu malformed row%s left out of the compact (the first: %s)",
                         in[i].display, c.problem_line, c.problems, c.problems == 1 ? "" : "s",
                         c.problem);
            rc = write_compact(&c, dirfd, outdir, targets[i], st == RUNFILE_TRUNCATED, &out_bytes,
                               e);
            if (rc == 0) {
                tot->runs++;
                tot->in_bytes += in_bytes;
                tot->out_bytes += out_bytes;
            }
        }
        compact_run_release(&c);
    }
    if (rc == 0 && tot->runs == 0)
        rc = rep_fail(e, REP_ERR_NO_INPUT, "no readable run among %zu input%s", n,
                      n == 1 ? "" : "s");
    if (dirfd >= 0)
        close(dirfd);
    for (size_t i = 0; i < n; i++)
        free(targets[i]);
    free(targets);
    inputs_free(in, n);
    model_release(&scratch);
    return rc;
}
