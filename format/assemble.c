/*
 * assemble.c - read a run's part files (docs/FORMAT.md 3) as the records of its run file
 * (sections 1.2 to 1.5), for the run-file writer at exit and for the profreport command, which
 * reads a killed run's leftovers without writing a run file.
 *
 * Two passes over the parts: the first learns what the metadata section must say (threads,
 * warnings, completeness), the second hands over the rows. Memory stays O(ids + depth) per part.
 */
#define _GNU_SOURCE /* fopencookie */
#include "assemble.h"

#include "hash.h"
#include "partread.h"
#include "replay.h"
#include "strbuf.h"
#include "summary.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define UNTERMINATED_NAMES 5

/* Run-level metadata, from the first part's header. */
struct meta {
    char *frequency, *mode, *program, *command, *pid, *ppid, *host, *start, *clock, *format;
    char *timing; /* the Timing record's fields after its key, joined by commas */
    char *include, *exclude;
};

/* A Warning record of a PRFW chunk. */
struct warning {
    char *kind, *count, *message;
};

/* What pass one learns about one part. */
struct part_info {
    char *number, *tid, *name;
    char *role;  /* summary mode: the thread's role (thread_role), or NULL */
    char *state; /* from the end chunk: "exited" or "running"; NULL when missing */
    int damaged; /* truncated or malformed; -1: skipped */
    uint64_t stray, unterminated, clock;
    int has_cpu;  /* a PRFC chunk: cpu_ns and wall_ns while the thread recorded */
    int has_wait; /* and wait_ns, its time waiting for a CPU */
    uint64_t cpu_ns, wall_ns, wait_ns;
    /* a sampled thread's PRFC chunk: its samples, overhead, outside, hook ps, and in newer
       parts the samples' own cost in ns, then those a CPU-time timer took and its signals, then
       the samples that measured the hook cost: has_samples of these fields (0: none) */
    unsigned has_samples;
    uint64_t samples[8];
    /* a PRFX chunk: the program crashed by signal crash_signal (0: no chunk), which came to
       thread number crash_thread (0: one that recorded nothing) */
    uint32_t crash_signal, crash_thread;
    char crash_name[16];
    char *unterminated_names[UNTERMINATED_NAMES];
    size_t nnames;
    struct warning *warnings;
    size_t nwarnings;
    uint64_t size; /* bytes of the file */
    int clean;     /* read to its end (or its truncation) with no error: a cut may fall in it */
    /* The replay's state near the middle of the file, after mark_chunks events chunks and
       mark_off bytes: where a cut may fall (prof_parts_cut) */
    int has_mark;
    uint64_t mark_chunks, mark_off;
    struct prof_replay_mark mark;
};

/* A part's id table while it is being read. */
struct ids {
    char **s; /* each text, with a NUL after it */
    size_t *len;
    uint32_t *canon; /* index -> first index with the same text */
    uint32_t *table; /* open addressing over texts: index + 1, 0 = empty */
    uint32_t n, cap, mask;
};

/* The Function records of a run (1.2), one per function name (threads repeat them). */
struct functions {
    struct function {
        char *field[5]; /* name, file, line, module, offset */
        size_t len[5];
        unsigned marks; /* what chunks naming it said (FUNCTION_*): a PRFU chunk, its rows'
                           calls are not counted; a PRFJ chunk, gcc inlined copies of it */
    } * v;
    size_t nv;
    char **names; /* open addressing, mask + 1 slots */
    size_t n, mask;
    /* The modules' build ids (PRFB chunks), each module once: its first build id */
    struct module {
        char *path, *build_id;
    } * mods;
    size_t nmods;
};

/* A region-bytes row of the memory section, kept until every part's rows are out. */
struct region_bytes {
    uint32_t thread;
    char *region; /* NULL: outside any region */
    size_t region_len;
    uint64_t count, bytes;
};

/* A summary record of an events-mode part (PROFILER_MAX_EVENTS), kept for the summary section
   after the memory section; region, bucket and count are its own copies. */
struct capped_row {
    struct prof_summary_rec s;
    char *region;
    uint32_t *bucket;
    uint64_t *count;
};

struct prof_parts {
    const char *const *paths;
    size_t count, usable;
    const struct prof_run_override *ov;
    struct meta m;
    struct part_info *info;
    size_t *order; /* part indexes in the order of their thread numbers */
    int summary;   /* the run's table: summary rows (else events rows) */
    int complete;
    uint64_t duration;
    struct functions fs;
    struct region_bytes *rb;
    size_t nrb;
    struct capped_row *capped;
    size_t ncapped;
    /* pass one, thread_role's tree of the summary chunk being read: per node (0: the thread's
       top), the region id and parent, whether it was called, whether a node below it was, and
       its children that call others (up to 2) and the last of them */
    struct role_node {
        uint32_t id, parent, only;
        uint8_t called, below, inner;
    } * nodes;
    size_t nodes_cap;
    /* the histogram of the summary record being handed over */
    uint32_t bucket[PROF_HIST_BUCKETS];
    uint64_t hcount[PROF_HIST_BUCKETS];
};

/* The state of one part's reading. */
struct reader {
    struct prof_parts *p;
    struct part_info *pi;            /* pass one */
    const struct prof_run_sink *out; /* pass two */
    struct ids ids;
    uint32_t thread;  /* pass two: the part's thread number */
    int v1;           /* a part of format version 1: its summary chunks are not read */
    unsigned version; /* the part's format version (1 to 4) */
};

/* Which rows of a part a pass-two reading hands over, when the rows are cut in two. */
enum span_role {
    SPAN_HEAD, /* the rows before the cut, and the part's other records */
    SPAN_TAIL  /* the rows after the cut, and nothing else (a second thread: no shared state) */
};
struct span {
    enum span_role role;
    uint64_t chunks;                     /* events chunks before the cut */
    const struct prof_replay_mark *mark; /* the replay's state there; NULL: the part's start */
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static void ids_release(struct ids *ids)
{
    for (uint32_t i = 0; i < ids->n; i++)
        free(ids->s[i]);
    free(ids->s);
    free(ids->len);
    free(ids->canon);
    free(ids->table);
    memset(ids, 0, sizeof *ids);
}

/* The first index whose text equals that of index i, entering i if it is the first. */
static uint32_t ids_find_or_add(struct ids *ids, uint32_t i)
{
    uint32_t h = (uint32_t)prof_hash(ids->s[i], ids->len[i]) & ids->mask;
    for (;; h = (h + 1) & ids->mask) {
        uint32_t e = ids->table[h];
        if (e == 0) {
            ids->table[h] = i + 1;
            return i;
        }
        e--;
        if (ids->len[e] == ids->len[i] && memcmp(ids->s[e], ids->s[i], ids->len[i]) == 0)
            return e;
    }
}

/* Rebuild the text table with size slots (a power of two, at least twice the ids). */
static enum prof_error ids_rehash(struct ids *ids, uint32_t size)
{
    uint32_t *t = calloc(size, sizeof *t);
    if (!t)
        return PROF_ERR_NOMEM;
    free(ids->table);
    ids->table = t;
    ids->mask = size - 1;
    for (uint32_t i = 0; i < ids->n; i++)
        if (ids->canon[i] == i)
            ids_find_or_add(ids, i);
    return PROF_OK;
}

/* Add the definitions of a PRFI chunk (indexes must arrive in order) and tell the sink. */
static enum prof_error ids_add(struct reader *r, const unsigned char *p, size_t len)
{
    struct ids *ids = &r->ids;
    size_t off = 0;
    while (off < len) {
        uint32_t hdr[2];
        if (len - off < sizeof hdr)
            return PROF_ERR_FORMAT;
        memcpy(hdr, p + off, sizeof hdr);
        off += sizeof hdr;
        if (hdr[0] != ids->n || hdr[1] > len - off)
            return PROF_ERR_FORMAT;
        if (ids->n == ids->cap) {
            uint32_t cap = ids->cap ? ids->cap * 2 : 64;
            char **s = realloc(ids->s, cap * sizeof *s);
            if (s)
                ids->s = s;
            size_t *l = realloc(ids->len, cap * sizeof *l);
            if (l)
                ids->len = l;
            uint32_t *cn = realloc(ids->canon, cap * sizeof *cn);
            if (cn)
                ids->canon = cn;
            if (!s || !l || !cn || ids_rehash(ids, cap * 2) != PROF_OK)
                return PROF_ERR_NOMEM;
            ids->cap = cap;
        }
        char *s = dup_n((const char *)p + off, hdr[1]);
        if (!s)
            return PROF_ERR_NOMEM;
        ids->s[ids->n] = s;
        ids->len[ids->n] = hdr[1];
        ids->canon[ids->n] = ids_find_or_add(ids, ids->n);
        if (r->out && r->out->id)
            r->out->id(r->out->ctx, ids->n, s, hdr[1]);
        ids->n++;
        off += hdr[1];
    }
    return PROF_OK;
}

/* Whether name has a Function record already; if not, remember it. -1: out of memory. */
static int functions_seen(struct functions *fs, const char *name)
{
    if ((fs->n + 1) * 2 > fs->mask + 1) {
        size_t size = fs->mask ? (fs->mask + 1) * 2 : 64;
        char **t = calloc(size, sizeof *t);
        if (!t)
            return -1;
        for (size_t i = 0; fs->mask && i <= fs->mask; i++)
            if (fs->names[i]) {
                size_t h = prof_hash_str(fs->names[i]) & (size - 1);
                while (t[h])
                    h = (h + 1) & (size - 1);
                t[h] = fs->names[i];
            }
        free(fs->names);
        fs->names = t;
        fs->mask = size - 1;
    }
    size_t h = prof_hash_str(name) & fs->mask;
    for (; fs->names[h]; h = (h + 1) & fs->mask)
        if (strcmp(fs->names[h], name) == 0)
            return 1;
    fs->names[h] = dup_n(name, strlen(name));
    if (!fs->names[h])
        return -1;
    fs->n++;
    return 0;
}

static void functions_release(struct functions *fs)
{
    for (size_t i = 0; fs->mask && i <= fs->mask; i++)
        free(fs->names[i]);
    free(fs->names);
    for (size_t i = 0; i < fs->nv; i++)
        for (int k = 0; k < 5; k++)
            free(fs->v[i].field[k]);
    free(fs->v);
    for (size_t i = 0; i < fs->nmods; i++) {
        free(fs->mods[i].path);
        free(fs->mods[i].build_id);
    }
    free(fs->mods);
    memset(fs, 0, sizeof *fs);
}

/* Next NUL-ended string of a payload at *off, or NULL when the payload ends first. */
static const char *next_cstr(const unsigned char *p, size_t len, size_t *off)
{
    if (*off >= len)
        return NULL;
    const char *s = (const char *)p + *off;
    size_t n = strnlen(s, len - *off);
    if (*off + n >= len)
        return NULL;
    *off += n + 1;
    return s;
}

/* A PRFL chunk: Function records (docs/FORMAT.md 1.2) for the functions among the ids. */
static enum prof_error locations_add(struct functions *fs, const struct ids *ids,
                                     const unsigned char *p, size_t len)
{
    size_t off = 0;
    while (off < len) {
        uint32_t idx;
        if (len - off < sizeof idx)
            return PROF_ERR_FORMAT;
        memcpy(&idx, p + off, sizeof idx);
        off += sizeof idx;
        const char *text[5] = {NULL};
        for (int k = 1; k < 5; k++)
            text[k] = next_cstr(p, len, &off);
        if (!text[4] || idx >= ids->n)
            return PROF_ERR_FORMAT;
        int seen = functions_seen(fs, ids->s[idx]);
        if (seen < 0)
            return PROF_ERR_NOMEM;
        if (seen)
            continue;
        if ((fs->nv & (fs->nv - 1)) == 0) { /* 0 or a power of two: full */
            struct function *v = realloc(fs->v, (fs->nv ? 2 * fs->nv : 1) * sizeof *v);
            if (!v)
                return PROF_ERR_NOMEM;
            fs->v = v;
        }
        struct function *f = &fs->v[fs->nv++];
        memset(f, 0, sizeof *f);
        f->field[0] = dup_n(ids->s[idx], ids->len[idx]);
        f->len[0] = ids->len[idx];
        for (int k = 1; k < 5; k++) {
            f->len[k] = strlen(text[k]);
            f->field[k] = dup_n(text[k], f->len[k]);
        }
        for (int k = 0; k < 5; k++)
            if (!f->field[k])
                return PROF_ERR_NOMEM;
    }
    return PROF_OK;
}

/* A PRFB chunk: pairs of a module's path and its build id, a module seen before kept as it
   was. A damaged chunk (a pair cut short, an empty path or id) adds none of its pairs. */
static enum prof_error build_ids_add(struct functions *fs, const unsigned char *p, size_t len)
{
    for (size_t off = 0; off < len;) {
        const char *path = next_cstr(p, len, &off), *id = next_cstr(p, len, &off);
        if (!path || !id || !path[0] || !id[0])
            return PROF_ERR_FORMAT;
    }
    size_t off = 0;
    while (off < len) {
        const char *path = next_cstr(p, len, &off), *id = next_cstr(p, len, &off);
        if (!path || !id || !path[0] || !id[0])
            return PROF_ERR_FORMAT;
        size_t i = 0;
        while (i < fs->nmods && strcmp(fs->mods[i].path, path) != 0)
            i++;
        if (i < fs->nmods)
            continue;
        struct module *v = realloc(fs->mods, (fs->nmods + 1) * sizeof *v);
        if (!v)
            return PROF_ERR_NOMEM;
        fs->mods = v;
        v[fs->nmods].path = strdup(path);
        v[fs->nmods].build_id = strdup(id);
        if (!v[fs->nmods].path || !v[fs->nmods].build_id) {
            free(v[fs->nmods].path);
            free(v[fs->nmods].build_id);
            return PROF_ERR_NOMEM;
        }
        fs->nmods++;
    }
    return PROF_OK;
}

/* The marks of a function (struct function's marks). */
#define FUNCTION_UNINSTRUMENTED 1u
#define FUNCTION_INLINED 2u

/* A PRFU or PRFJ chunk: the functions among the ids that have no hooks, or that gcc inlined
   copies of (after their PRFL), get the chunk's mark. A name that thread defined but located
   nowhere is passed over. */
static enum prof_error marks_add(struct functions *fs, const struct ids *ids,
                                 const unsigned char *p, size_t len, unsigned mark)
{
    if (len % sizeof(uint32_t))
        return PROF_ERR_FORMAT;
    for (size_t off = 0; off < len; off += sizeof(uint32_t)) {
        uint32_t idx;
        memcpy(&idx, p + off, sizeof idx);
        if (idx >= ids->n)
            return PROF_ERR_FORMAT;
        for (size_t i = 0; i < fs->nv; i++)
            if (fs->v[i].len[0] == ids->len[idx] &&
                memcmp(fs->v[i].field[0], ids->s[idx], ids->len[idx]) == 0)
                fs->v[i].marks |= mark;
    }
    return PROF_OK;
}

/* Whether s is a decimal number of 1 to 20 digits (NULL is not). */
static int is_number(const char *s)
{
    if (!s)
        return 0;
    size_t n = strspn(s, "0123456789");
    return n > 0 && n <= 20 && s[n] == 0;
}

/* Whether s is a decimal number from low to high: what the run file's reader accepts for the
   field the part's header gives (a Thread number is 32 bits, a Frequency is not 0). */
static int is_number_in(const char *s, uint64_t low, uint64_t high)
{
    if (!is_number(s))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, NULL, 10);
    return errno == 0 && v >= low && v <= high;
}

/*
 * Walk the NUL-separated key/value pairs of a header or warning payload:
 * returns the value of key, or NULL.
 */
static const char *kv_get(const unsigned char *p, size_t len, const char *key)
{
    size_t off = 0;
    while (off < len) {
        const char *k = (const char *)p + off;
        size_t kl = strnlen(k, len - off);
        if (off + kl + 1 >= len)
            return NULL;
        const char *v = k + kl + 1;
        size_t vl = strnlen(v, len - off - kl - 1);
        if (off + kl + 1 + vl >= len)
            return NULL;
        if (strcmp(k, key) == 0)
            return v;
        off += kl + vl + 2;
    }
    return NULL;
}

static char *kv_dup(const unsigned char *p, size_t len, const char *key)
{
    const char *v = kv_get(p, len, key);
    return v ? dup_n(v, strlen(v)) : NULL;
}

/* Take the run-level metadata from header pairs. */
static void meta_from(struct meta *m, const unsigned char *p, size_t len)
{
    m->format = kv_dup(p, len, "Format");
    m->frequency = kv_dup(p, len, "Frequency");
    m->mode = kv_dup(p, len, "Mode");
    m->program = kv_dup(p, len, "Program");
    m->command = kv_dup(p, len, "Command");
    m->pid = kv_dup(p, len, "Pid");
    m->ppid = kv_dup(p, len, "ParentPid");
    m->host = kv_dup(p, len, "Host");
    m->start = kv_dup(p, len, "Start");
    m->clock = kv_dup(p, len, "Clock");
    m->timing = kv_dup(p, len, PROF_TIMING_RECORD);
    m->include = kv_dup(p, len, "Include");
    m->exclude = kv_dup(p, len, "Exclude");
}

static void meta_release(struct meta *m)
{
    char **f[] = {&m->frequency, &m->mode,    &m->program, &m->command, &m->pid,
                  &m->ppid,      &m->host,    &m->start,   &m->clock,   &m->format,
                  &m->timing,    &m->include, &m->exclude};
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        free(*f[i]);
        *f[i] = NULL;
    }
}

static void info_release(struct part_info *pi)
{
    free(pi->number);
    free(pi->tid);
    free(pi->name);
    free(pi->role);
    free(pi->state);
    for (size_t i = 0; i < pi->nnames; i++)
        free(pi->unterminated_names[i]);
    for (size_t i = 0; i < pi->nwarnings; i++) {
        free(pi->warnings[i].kind);
        free(pi->warnings[i].count);
        free(pi->warnings[i].message);
    }
    free(pi->warnings);
    prof_replay_mark_release(&pi->mark);
    memset(pi, 0, sizeof *pi);
}

/* Pass one: keep a PRFW chunk's warning (one without kind or count is dropped). */
static enum prof_error warning_add(struct part_info *pi, const unsigned char *p, size_t len)
{
    const char *kind = kv_get(p, len, "kind"), *count = kv_get(p, len, "count");
    const char *msg = kv_get(p, len, "message");
    if (!kind || !count)
        return PROF_OK;
    struct warning *v = realloc(pi->warnings, (pi->nwarnings + 1) * sizeof *v);
    if (!v)
        return PROF_ERR_NOMEM;
    pi->warnings = v;
    struct warning *w = &v[pi->nwarnings++];
    w->kind = dup_n(kind, strlen(kind));
    w->count = dup_n(count, strlen(count));
    w->message = msg ? dup_n(msg, strlen(msg)) : NULL;
    return w->kind && w->count && (w->message || !msg) ? PROF_OK : PROF_ERR_NOMEM;
}

/* The warning of a version-1 part's summary chunks, which this reader cannot decode. */
static enum prof_error old_summary_warning(struct part_info *pi)
{
    static const char kv[] = "kind\0old-format\0count\0"
                             "1\0message\0"
                             "summary statistics written by an older profreport (part format 1) "
                             "cannot be read; this thread's summary rows are missing";
    return warning_add(pi, (const unsigned char *)kv, sizeof kv);
}

/* Row callback, pass two: one events-table row to the sink. */
static void emit_row(void *ctx, const struct prof_row *row)
{
    struct reader *r = ctx;
    const struct ids *ids = &r->ids;
    /* A part whose mode is not the run's (a folder of mixed files) gives no rows to its table. */
    if (!r->out->event || r->p->summary)
        return;
    struct prof_event_rec e = {.region = ids->s[row->id],
                               .region_len = ids->len[row->id],
                               .parent = row->depth > 0 ? ids->s[row->parent] : "",
                               .parent_len = row->depth > 0 ? ids->len[row->parent] : 0,
                               .region_id = row->id,
                               .parent_id = row->parent,
                               .thread = r->thread,
                               .depth = row->depth,
                               .stopped = row->stopped,
                               .nested = row->nested,
                               .ticks = row->ticks,
                               .self = row->self,
                               .start = row->start};
    r->out->event(r->out->ctx, &e);
}

/* Row callback, pass one (a scan: only regions that never stopped come): remember their names. */
static void note_row(void *ctx, const struct prof_row *row)
{
    struct reader *r = ctx;
    struct part_info *pi = r->pi;
    if (row->stopped || pi->nnames == UNTERMINATED_NAMES)
        return;
    char *s = dup_n(r->ids.s[row->id], r->ids.len[row->id]);
    if (s)
        pi->unterminated_names[pi->nnames++] = s;
}

/* Keep a summary record of an events-mode part for the summary section; -1: out of memory. */
static int keep_capped(struct prof_parts *pp, const struct prof_summary_rec *s)
{
    struct capped_row *c = realloc(pp->capped, (pp->ncapped + 1) * sizeof *c);
    if (!c)
        return -1;
    pp->capped = c;
    c = &pp->capped[pp->ncapped];
    c->s = *s;
    c->region = dup_n(s->region, s->region_len);
    c->bucket = malloc((s->nhist ? s->nhist : 1) * sizeof *c->bucket);
    c->count = malloc((s->nhist ? s->nhist : 1) * sizeof *c->count);
    if (!c->region || !c->bucket || !c->count) {
        free(c->region);
        free(c->bucket);
        free(c->count);
        return -1;
    }
    memcpy(c->bucket, s->hist_bucket, s->nhist * sizeof *c->bucket);
    memcpy(c->count, s->hist_count, s->nhist * sizeof *c->count);
    c->s.region = c->region;
    c->s.hist_bucket = c->bucket;
    c->s.hist_count = c->count;
    pp->ncapped++;
    return 0;
}

/*
 * Pass one, a summary part's chunk of nodes 1 to n (pp->nodes): the thread's role, where the
 * chain of the only children that call functions of their own, from the thread's top, ends.
 * A thread that a trampoline starts (a thread pool's, std::thread's _M_run, pigz's yarn
 * ignition(), which also calls its cleanup) has that as its top function and the function it
 * runs below it: the role is what the thread does, the same in every run whatever order the
 * threads started in, where its number is not. Only nodes that were called, or that lead to
 * such (a function still open has no calls yet), count: a function without hooks has rows of
 * samples and no calls, which come and go from run to run. NULL when the thread called
 * nothing; the last chunk read says it.
 */
static enum prof_error thread_role(struct reader *r, uint32_t n)
{
    struct role_node *v = r->p->nodes;
    for (uint32_t k = n; k > 0; k--) /* a node's children come after it */
        if (v[k].called || v[k].below) {
            struct role_node *up = &v[v[k].parent];
            int calls_others = v[k].below;
            up->below = 1;
            if (calls_others) {
                up->only = k;
                if (up->inner < 2)
                    up->inner++;
            }
        }
    uint32_t at = 0;
    while (v[at].inner == 1)
        at = v[at].only;
    if (!at) { /* no chain: a thread of one function, or of several that call none */
        for (uint32_t k = 1; k <= n && !at; k++)
            if (v[k].parent == 0 && (v[k].called || v[k].below))
                at = k;
        for (uint32_t k = at + 1; at && k <= n; k++)
            if (v[k].parent == 0 && (v[k].called || v[k].below))
                at = 0; /* more than one */
    }
    free(r->pi->role);
    r->pi->role = at ? dup_n(r->ids.s[v[at].id], r->ids.len[v[at].id]) : NULL;
    return at && !r->pi->role ? PROF_ERR_NOMEM : PROF_OK;
}

/*
 * A PRFS or PRFP chunk: check every record (a version 3 record's node is its place in the
 * chunk, its parent below it), then (emit set) hand each to the sink. In an
 * events-mode part they count the instances past PROFILER_MAX_EVENTS: kept for the summary
 * section, after the memory section.
 */
static enum prof_error summary_rows(struct reader *r, const unsigned char *p, size_t len, int emit)
{
    struct prof_parts *pp = r->p;
    /* a summary part of a version with a tree (3 on): its role, in pass one */
    int role = r->pi && r->version >= 3 && pp->m.mode && strcmp(pp->m.mode, "summary") == 0;
    if (role && !pp->nodes_cap) {
        pp->nodes = malloc(1024 * sizeof *pp->nodes);
        if (!pp->nodes)
            return PROF_ERR_NOMEM;
        pp->nodes_cap = 1024;
    }
    if (role)
        pp->nodes[0] = (struct role_node){0};
    for (int pass = 0; pass < 1 + emit; pass++) {
        size_t off = 0;
        uint32_t k = 1;
        for (; off < len; k++) {
            struct prof_summary_counts c;
            size_t nhist;
            if (prof_summary_decode(p, len, &off, r->version, &c, pp->bucket, pp->hcount, &nhist) !=
                    PROF_OK ||
                c.id >= r->ids.n)
                return PROF_ERR_FORMAT;
            if (r->version >= 3 && (c.node != k || c.parent >= c.node))
                return PROF_ERR_FORMAT;
            if (role && pass == 0) {
                if (k >= pp->nodes_cap) {
                    size_t cap = pp->nodes_cap ? 2 * pp->nodes_cap : 1024;
                    struct role_node *v = realloc(pp->nodes, cap * sizeof *v);
                    if (!v)
                        return PROF_ERR_NOMEM;
                    pp->nodes = v;
                    pp->nodes_cap = cap;
                }
                pp->nodes[k] =
                    (struct role_node){.id = c.id, .parent = c.parent, .called = c.calls > 0};
            }
            if (pass == 0 || !r->out->summary)
                continue;
            struct prof_summary_rec s = {.region = r->ids.s[c.id],
                                         .region_len = r->ids.len[c.id],
                                         .region_id = c.id,
                                         .thread = r->thread,
                                         .node = c.node,
                                         .parent = c.parent,
                                         .calls = c.calls,
                                         .ticks = c.ticks,
                                         .self = c.self,
                                         .min = c.min,
                                         .max = c.max,
                                         .outer = c.outer,
                                         .sumsq = c.sumsq,
                                         .samples = c.samples,
                                         .timed = c.timed,
                                         .wall = c.wall,
                                         .hist_bucket = pp->bucket,
                                         .hist_count = pp->hcount,
                                         .nhist = nhist};
            if (!pp->summary) {
                if (keep_capped(pp, &s) != 0)
                    return PROF_ERR_NOMEM;
                continue;
            }
            r->out->summary(r->out->ctx, &s);
        }
        if (role && pass == 0) {
            enum prof_error err = thread_role(r, k - 1);
            if (err != PROF_OK)
                return err;
        }
    }
    return PROF_OK;
}

/* Whether a PRFM chunk is whole records naming known ids: what memory_rows accepts. */
static int memory_valid(const struct ids *ids, const unsigned char *p, size_t len)
{
    if (len % PROF_MEM_RECORD != 0)
        return 0;
    for (size_t i = 0; i < len / PROF_MEM_RECORD; i++) {
        uint32_t idx;
        memcpy(&idx, p + i * PROF_MEM_RECORD, 4);
        if (idx != PROF_MEM_NO_REGION && idx >= ids->n)
            return 0;
    }
    return 1;
}

/* Pass two: a PRFM chunk as region-bytes rows, one per region text (FORMAT.md 1.5 and 3), kept
   for the memory section. */
static enum prof_error memory_rows(struct reader *r, const unsigned char *p, size_t len)
{
    const struct ids *ids = &r->ids;
    if (!memory_valid(ids, p, len))
        return PROF_ERR_FORMAT;
    size_t n = len / PROF_MEM_RECORD;
    /* Ids with the same text are one region: add their counts into the first such record. */
    uint64_t *sum = calloc(n ? 2 * n : 1, sizeof *sum);
    uint32_t *key = calloc(n ? n : 1, sizeof *key);
    enum prof_error err = sum && key ? PROF_OK : PROF_ERR_NOMEM;
    size_t k = 0;
    for (size_t i = 0; i < n && err == PROF_OK; i++) {
        uint32_t idx;
        uint64_t count, bytes;
        memcpy(&idx, p + i * PROF_MEM_RECORD, 4);
        memcpy(&count, p + i * PROF_MEM_RECORD + 4, 8);
        memcpy(&bytes, p + i * PROF_MEM_RECORD + 12, 8);
        uint32_t c = idx == PROF_MEM_NO_REGION ? idx : ids->canon[idx];
        size_t j = 0;
        while (j < k && key[j] != c)
            j++;
        if (j == k)
            key[k++] = c;
        sum[2 * j] += count;
        sum[2 * j + 1] += bytes;
    }
    struct prof_parts *pp = r->p;
    if (err == PROF_OK && k) {
        struct region_bytes *v = realloc(pp->rb, (pp->nrb + k) * sizeof *v);
        if (v)
            pp->rb = v;
        else
            err = PROF_ERR_NOMEM;
    }
    for (size_t j = 0; j < k && err == PROF_OK; j++) {
        struct region_bytes *b = &pp->rb[pp->nrb++];
        memset(b, 0, sizeof *b);
        b->thread = r->thread;
        b->count = sum[2 * j];
        b->bytes = sum[2 * j + 1];
        if (key[j] != PROF_MEM_NO_REGION) {
            b->region_len = ids->len[key[j]];
            b->region = dup_n(ids->s[key[j]], b->region_len);
            if (!b->region)
                err = PROF_ERR_NOMEM;
        }
    }
    free(sum);
    free(key);
    return err;
}

/* The first chunk: the header. Pass one takes the metadata and the part's facts from it. */
static enum prof_error header_chunk(struct reader *r, uint32_t type, const unsigned char *p,
                                    size_t len)
{
    const char *fmt = kv_get(p, len, "Format"), *number = kv_get(p, len, "Thread");
    if (type != PROF_CHUNK_HEADER || !fmt ||
        (strcmp(fmt, PROF_PART_FORMAT) != 0 && strcmp(fmt, PROF_PART_FORMAT_V3) != 0 &&
         strcmp(fmt, PROF_PART_FORMAT_V2) != 0 && strcmp(fmt, PROF_PART_FORMAT_V1) != 0) ||
        !is_number_in(number, 0, UINT32_MAX) ||
        !is_number_in(kv_get(p, len, "Frequency"), 1, UINT64_MAX))
        return PROF_ERR_FORMAT;
    r->thread = (uint32_t)strtoul(number, NULL, 10);
    r->v1 = strcmp(fmt, PROF_PART_FORMAT_V1) == 0;
    r->version = r->v1                                   ? 1
                 : strcmp(fmt, PROF_PART_FORMAT_V2) == 0 ? 2
                 : strcmp(fmt, PROF_PART_FORMAT_V3) == 0 ? 3
                                                         : PROF_PART_VERSION;
    if (r->pi) {
        if (!r->p->m.format)
            meta_from(&r->p->m, p, len);
        r->pi->number = kv_dup(p, len, "Thread");
        r->pi->tid = kv_dup(p, len, "Tid");
        r->pi->name = kv_dup(p, len, "Name");
        return r->pi->number ? PROF_OK : PROF_ERR_NOMEM;
    }
    if (r->out->part)
        r->out->part(r->out->ctx, r->thread);
    return PROF_OK;
}

/* A PRFX chunk (its PROF_CRASH_RECORD bytes there): the signal, its thread and its name, of
   which letters and digits are kept (a name that is not one reads as "signal <n>" later). */
static void crash_read(struct part_info *pi, const unsigned char *p, size_t len)
{
    memcpy(&pi->crash_signal, p, 4);
    memcpy(&pi->crash_thread, p + 4, 4);
    size_t n = 0;
    for (size_t i = PROF_CRASH_RECORD; i < len && p[i] && n + 1 < sizeof pi->crash_name; i++)
        if ((p[i] >= 'A' && p[i] <= 'Z') || (p[i] >= '0' && p[i] <= '9'))
            pi->crash_name[n++] = (char)p[i];
    pi->crash_name[n] = 0;
}

/* A stream reading fd from its start with pread, at an offset of its own: the head and the
   tail of a split read one part at once, and the caller's descriptor keeps its offset. */
struct pread_cookie {
    int fd;
    off64_t off;
};

/* fopencookie's read: the next bytes at the stream's own offset. */
static ssize_t cookie_read(void *c, char *buf, size_t n)
{
    struct pread_cookie *k = c;
    ssize_t r;
    do
        r = pread(k->fd, buf, n, k->off);
    while (r < 0 && errno == EINTR);
    if (r > 0)
        k->off += r;
    return r;
}

/* fopencookie's seek (the reader passes over chunks it skips). */
static int cookie_seek(void *c, off64_t *pos, int whence)
{
    struct pread_cookie *k = c;
    off64_t base = 0;
    struct stat st;
    if (whence == SEEK_CUR)
        base = k->off;
    else if (whence == SEEK_END)
        base = fstat(k->fd, &st) == 0 ? st.st_size : -1;
    if (base < 0 || base + *pos < 0) {
        errno = EINVAL;
        return -1;
    }
    k->off = base + *pos;
    *pos = k->off;
    return 0;
}

/* fopencookie's close: the descriptor stays the caller's. */
static int cookie_close(void *c)
{
    free(c);
    return 0;
}

/* A read stream over fd from its start, or NULL. */
static FILE *fd_stream(int fd)
{
    struct pread_cookie *k = malloc(sizeof *k);
    if (!k)
        return NULL;
    k->fd = fd;
    k->off = 0;
    cookie_io_functions_t io = {cookie_read, NULL, cookie_seek, cookie_close};
    FILE *f = fopencookie(k, "rb", io);
    if (!f)
        free(k);
    return f;
}

/*
 * Read one part. Pass one (pi set) fills the metadata and part info; pass two (pi NULL) hands
 * its rows to the sink, all of them or (sp set) those on one side of a cut. A damaged part is
 * read up to the damage.
 */
static enum prof_error read_part(struct prof_parts *pp, size_t index, struct part_info *pi,
                                 const struct prof_run_sink *out, const struct span *sp)
{
    int fd = pp->ov && pp->ov->fds ? pp->ov->fds[index] : -1;
    FILE *f = fd >= 0 ? fd_stream(fd) : fopen(pp->paths[index], "rb");
    if (!f)
        return PROF_ERR_IO;
    struct prof_part_reader rd = {.f = f};
    struct reader r = {.p = pp, .pi = pi, .out = out};
    struct prof_replay rp;
    enum prof_error err = PROF_OK;
    prof_replay_init(&rp, pi ? note_row : emit_row, &r);
    rp.scan = pi != NULL; /* pass one wants the counts and the regions never stopped */
    int tail = sp && sp->role == SPAN_TAIL, resumed = 0;
    if (sp) {
        /* The other side's events chunks are passed over unread. */
        rd.skip_type = PROF_CHUNK_EVENTS;
        rd.keep_from = tail ? sp->chunks : 0;
        rd.keep_to = tail ? UINT64_MAX : sp->chunks;
    }
    uint64_t off = 0, nevents = 0; /* pass one: bytes and events chunks read so far */
    struct stat st;
    if (pi && fstat(fd >= 0 ? fd : fileno(f), &st) == 0 && st.st_size > 0)
        pi->size = (uint64_t)st.st_size;

    uint32_t type;
    const unsigned char *p;
    size_t len;
    int first = 1, rc, summary_final = 0, v1_warned = 0;
    struct prof_sbuf snapshot = {0}; /* the last PRFP chunk: used when no PRFS follows */
    while ((rc = prof_part_next(&rd, &type, &p, &len)) == 1) {
        off += 8 + (uint64_t)len;
        if (tail && !first && type != PROF_CHUNK_IDS && type != PROF_CHUNK_EVENTS &&
            type != PROF_CHUNK_MEMORY)
            continue; /* the head's side reads them */
        if (first) {
            err = header_chunk(&r, type, p, len);
            if (err != PROF_OK)
                break;
            first = 0;
            continue;
        }
        if (type == PROF_CHUNK_IDS) {
            err = ids_add(&r, p, len);
            rp.nids = r.ids.n;
            rp.canon = r.ids.canon;
        } else if (type == PROF_CHUNK_EVENTS) {
            if (tail && !resumed) {
                resumed = 1;
                if (sp->mark)
                    err = prof_replay_resume(&rp, sp->mark);
            }
            if (err != PROF_OK)
                break;
            if (len % 4 != 0)
                err = PROF_ERR_FORMAT;
            else
                err = prof_replay_words(&rp, (const uint32_t *)(const void *)p, len / 4);
            nevents++;
            /* Pass one keeps the state near the middle, where the rows may be cut in two. */
            if (err == PROF_OK && pi && !pi->has_mark && off >= pi->size / 2 &&
                prof_replay_mark(&rp, &pi->mark) == PROF_OK) {
                pi->has_mark = 1;
                pi->mark_chunks = nevents;
                pi->mark_off = off;
            }
        } else if (type == PROF_CHUNK_MEMORY && tail) {
            /* Only whether the head's side stops here, as it would. */
            if (!memory_valid(&r.ids, p, len))
                err = PROF_ERR_FORMAT;
        } else if (type == PROF_CHUNK_LOCATIONS && pi) {
            err = locations_add(&pp->fs, &r.ids, p, len);
        } else if (type == PROF_CHUNK_BUILD_IDS && pi) {
            err = build_ids_add(&pp->fs, p, len);
        } else if (type == PROF_CHUNK_UNINSTRUMENTED && pi) {
            err = marks_add(&pp->fs, &r.ids, p, len, FUNCTION_UNINSTRUMENTED);
        } else if (type == PROF_CHUNK_INLINED && pi) {
            err = marks_add(&pp->fs, &r.ids, p, len, FUNCTION_INLINED);
        } else if (type == PROF_CHUNK_NAME && pi) {
            free(pi->name);
            pi->name = dup_n((const char *)p, strnlen((const char *)p, len));
        } else if (type == PROF_CHUNK_WARNING && pi) {
            err = warning_add(pi, p, len);
        } else if (type == PROF_CHUNK_MEMORY && !pi) {
            err = memory_rows(&r, p, len);
        } else if ((type == PROF_CHUNK_SUMMARY || type == PROF_CHUNK_SNAPSHOT) && r.v1) {
            if (pi && !v1_warned) {
                err = old_summary_warning(pi);
                v1_warned = 1;
            }
        } else if (type == PROF_CHUNK_SUMMARY) {
            err = summary_rows(&r, p, len, !pi);
            summary_final = 1;
        } else if (type == PROF_CHUNK_SNAPSHOT) {
            err = summary_rows(&r, p, len, 0);
            snapshot.len = 0; /* each snapshot holds every row so far */
            if (err == PROF_OK && !pi) {
                prof_sbuf_add(&snapshot, (const char *)p, len);
                if (snapshot.failed)
                    err = PROF_ERR_NOMEM;
            }
        } else if (type == PROF_CHUNK_CPU && pi) {
            if (len < PROF_CPU_RECORD) {
                err = PROF_ERR_FORMAT;
            } else {
                memcpy(&pi->cpu_ns, p, 8);
                memcpy(&pi->wall_ns, p + 8, 8);
                pi->has_cpu = 1;
                pi->has_wait = len >= PROF_CPU_RECORD_WAIT;
                if (pi->has_wait)
                    memcpy(&pi->wait_ns, p + 16, 8);
                pi->has_samples = len >= PROF_CPU_RECORD_SAMPLED_HOOK    ? 8
                                  : len >= PROF_CPU_RECORD_SAMPLED_TIMER ? 7
                                  : len >= PROF_CPU_RECORD_SAMPLED_COST  ? 5
                                  : len >= PROF_CPU_RECORD_SAMPLED       ? 4
                                                                         : 0;
                memcpy(pi->samples, p + PROF_CPU_RECORD_WAIT, 8 * pi->has_samples);
            }
        } else if (type == PROF_CHUNK_CRASH && pi) {
            if (len < PROF_CRASH_RECORD)
                err = PROF_ERR_FORMAT;
            else
                crash_read(pi, p, len);
        } else if (type == PROF_CHUNK_END && pi) {
            pi->crash_signal = 0; /* an end after a crash chunk: the program lived on */
            free(pi->state);
            pi->state = dup_n((const char *)p, strnlen((const char *)p, len));
        }
        if (err != PROF_OK)
            break;
    }
    if (first && err == PROF_OK)
        err = PROF_ERR_FORMAT; /* empty file: not even a header */
    if (rc < 0)
        err = PROF_ERR_IO;
    if (pi && (rd.truncated || (err != PROF_OK && !first)))
        pi->damaged = 1;
    if (pi)
        pi->clean = err == PROF_OK && rc == 0;
    /* Damage after a valid header loses the rest of the part, not the run. */
    if (!first && (err == PROF_ERR_FORMAT || err == PROF_ERR_IO))
        err = PROF_OK;
    /* With a cut, the regions still open at the end are the rows of the side that read the
       last events (the head's if no events chunk came after the cut). */
    int finish = !sp || (tail ? resumed : rd.seen <= sp->chunks);
    if (err == PROF_OK && finish) {
        prof_replay_finish(&rp);
        if (pi) {
            pi->stray = rp.stray;
            pi->unterminated = rp.unterminated;
            pi->clock = rp.clock;
        }
    }
    /* The snapshot was checked when it was read. */
    if (!pi && !summary_final && snapshot.len && err != PROF_ERR_NOMEM)
        summary_rows(&r, (const unsigned char *)snapshot.data, snapshot.len, 1);
    prof_sbuf_release(&snapshot);
    prof_replay_release(&rp);
    ids_release(&r.ids);
    prof_part_reader_release(&rd);
    fclose(f);
    return err;
}

/* A part's thread number (checked to be a decimal number of 32 bits), or UINT64_MAX for none. */
static uint64_t thread_number(const struct part_info *p)
{
    return p->number ? strtoull(p->number, NULL, 10) : UINT64_MAX;
}

/* Whether part a's thread number is smaller than b's. */
static int thread_before(const struct part_info *a, const struct part_info *b)
{
    return thread_number(a) < thread_number(b);
}

/* Pass one over the parts. */
enum prof_error prof_parts_open(const char *const *paths, size_t count,
                                const struct prof_run_override *ov, struct prof_parts **out)
{
    *out = NULL;
    if (!paths && count)
        return PROF_ERR_ARGUMENT;
    struct prof_parts *p = calloc(1, sizeof *p);
    if (!p)
        return PROF_ERR_NOMEM;
    p->paths = paths;
    p->count = count;
    p->ov = ov;
    p->info = calloc(count ? count : 1, sizeof *p->info);
    p->order = malloc((count ? count : 1) * sizeof *p->order);
    enum prof_error err = p->info && p->order ? PROF_OK : PROF_ERR_NOMEM;
    if (err == PROF_OK && ov && ov->header)
        meta_from(&p->m, (const unsigned char *)ov->header, ov->header_len);

    /* A part that cannot be read at all spoils a recovery only if it is the only one. */
    struct part_info *info = p->info;
    for (size_t i = 0; i < count && err == PROF_OK; i++) {
        enum prof_error e = read_part(p, i, &info[i], NULL, NULL);
        if (e == PROF_ERR_NOMEM) {
            err = e;
        } else if (e != PROF_OK) {
            info_release(&info[i]);
            info[i].damaged = -1; /* skipped */
        } else {
            p->usable++;
        }
    }
    if (err == PROF_OK && count > 0 && p->usable == 0)
        err = PROF_ERR_FORMAT;
    if (err != PROF_OK) {
        prof_parts_free(p);
        return err;
    }

    /* Threads in the order of their numbers, whatever order the paths came in. */
    size_t *order = p->order;
    for (size_t i = 0; i < count; i++)
        order[i] = i;
    for (size_t i = 1; i < count; i++) /* insertion sort: few threads, usually in order */
        for (size_t j = i; j > 0 && thread_before(&info[order[j]], &info[order[j - 1]]); j--) {
            size_t t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }

    /* Two parts of one thread number cannot come from one run (a folder of mixed or damaged
       files): the first is kept, and the run file's reader is not given two threads 2. */
    for (size_t k = 1, last = SIZE_MAX; k < count; k++) {
        if (info[order[k - 1]].damaged >= 0)
            last = order[k - 1];
        struct part_info *pi = &info[order[k]];
        if (pi->damaged >= 0 && last != SIZE_MAX &&
            thread_number(pi) == thread_number(&info[last])) {
            info_release(pi);
            pi->damaged = -1;
            p->usable--;
        }
    }

    p->complete = ov ? ov->complete : 1;
    for (size_t i = 0; i < count; i++) {
        if (info[i].damaged < 0)
            continue;
        if (!info[i].state || info[i].damaged)
            p->complete = 0;
        if (info[i].clock > p->duration)
            p->duration = info[i].clock;
    }
    if (ov && ov->duration > p->duration)
        p->duration = ov->duration;
    *out = p;
    return PROF_OK;
}

/* A metadata record being put together: its fields, and room for the numbers among them. */
#define REC_FIELDS 13u /* the longest record: ThreadCpu's key and twelve fields */
struct rec {
    const char *f[REC_FIELDS];
    size_t len[REC_FIELDS];
    size_t n;
    char num[REC_FIELDS][24];
};

/* Add a field of n bytes (NULL: an empty field); none past REC_FIELDS (a record made longer
   in the format and not here loses its last fields, never the stack around it). */
static void rec_add(struct rec *r, const char *s, size_t n)
{
    if (r->n >= REC_FIELDS)
        return;
    r->f[r->n] = s ? s : "";
    r->len[r->n] = s ? n : 0;
    r->n++;
}

/* Add a NUL-terminated field (NULL: an empty one). */
static void rec_str(struct rec *r, const char *s) { rec_add(r, s, s ? strlen(s) : 0); }

/* Add a decimal number. */
static void rec_u64(struct rec *r, uint64_t v)
{
    if (r->n >= REC_FIELDS)
        return;
    char *end = prof_u64_put(r->num[r->n], v);
    *end = 0;
    rec_add(r, r->num[r->n], (size_t)(end - r->num[r->n]));
}

/* Hand the record to the sink and start the next one. */
static void rec_emit(const struct prof_run_sink *s, struct rec *r)
{
    if (s->meta && r->n)
        s->meta(s->ctx, r->f, r->len, r->n);
    r->n = 0;
}

/* A "key,value" record, left out when value is NULL. */
static void rec_pair(const struct prof_run_sink *s, struct rec *r, const char *key,
                     const char *value)
{
    if (!value)
        return;
    rec_str(r, key);
    rec_str(r, value);
    rec_emit(s, r);
}

/* The Warning records of part pi (1.2): those the collector wrote, then what pass one found. */
static void part_warnings(const struct prof_run_sink *s, const struct part_info *pi)
{
    struct rec r = {.n = 0};
    for (size_t i = 0; i < pi->nwarnings; i++) {
        rec_str(&r, "Warning");
        rec_str(&r, pi->warnings[i].kind);
        rec_str(&r, pi->number);
        rec_str(&r, pi->warnings[i].count);
        rec_str(&r, pi->warnings[i].message);
        rec_emit(s, &r);
    }
    if (pi->unterminated) {
        struct prof_sbuf msg = {0};
        prof_sbuf_str(&msg,
                      pi->unterminated == 1 ? "region never stopped: " : "regions never stopped: ");
        for (size_t i = 0; i < pi->nnames; i++) {
            if (i)
                prof_sbuf_str(&msg, ", ");
            prof_sbuf_str(&msg, pi->unterminated_names[i]);
        }
        if (pi->unterminated > pi->nnames)
            prof_sbuf_str(&msg, ", ...");
        prof_sbuf_char(&msg, 0);
        rec_str(&r, "Warning");
        rec_str(&r, "unterminated");
        rec_str(&r, pi->number);
        rec_u64(&r, pi->unterminated);
        rec_str(&r, msg.failed ? NULL : msg.data);
        rec_emit(s, &r);
        prof_sbuf_release(&msg);
    }
    if (pi->stray) {
        rec_str(&r, "Warning");
        rec_str(&r, "stray-stop");
        rec_str(&r, pi->number);
        rec_u64(&r, pi->stray);
        rec_str(&r, "a stop with no region open");
        rec_emit(s, &r);
    }
    if (!pi->state || pi->damaged) {
        rec_str(&r, "Warning");
        rec_str(&r, "incomplete");
        rec_str(&r, pi->number);
        rec_str(&r, "1");
        if (pi->crash_signal && !pi->damaged)
            rec_str(&r, "the thread's data ends where the program crashed");
        else
            rec_str(&r, "the thread's data ends early (the run was killed or a write failed)");
        rec_emit(s, &r);
    }
}

/* The metadata section (1.2) and the table's header. */
static void emit_meta(const struct prof_parts *p, const struct prof_run_sink *s, int summary)
{
    const struct meta *m = &p->m;
    const struct prof_run_override *ov = p->ov;
    struct rec r = {.n = 0};
    rec_str(&r, "Frequency");
    if (ov && ov->frequency)
        rec_u64(&r, ov->frequency);
    else
        rec_str(&r, m->frequency ? m->frequency : PROF_RUN_FREQUENCY_DEFAULT);
    rec_emit(s, &r);
    rec_str(&r, "Format");
    rec_str(&r, PROF_RUN_FORMAT);
    rec_u64(&r, PROF_RUN_VERSION);
    rec_emit(s, &r);
    rec_pair(s, &r, "Mode", summary ? "summary" : "events");
    rec_pair(s, &r, "Program", m->program);
    rec_pair(s, &r, "Command", m->command);
    rec_pair(s, &r, "Pid", m->pid);
    rec_pair(s, &r, "ParentPid", m->ppid);
    rec_pair(s, &r, "Host", m->host);
    rec_pair(s, &r, "Start", m->start);
    rec_pair(s, &r, "Clock", m->clock);
    rec_pair(s, &r, "Include", m->include);
    rec_pair(s, &r, "Exclude", m->exclude);
    if (m->timing) {
        /* The header's value holds the record's fields joined by commas (run.c). */
        rec_str(&r, PROF_TIMING_RECORD);
        for (const char *f = m->timing; r.n < sizeof r.f / sizeof r.f[0];) {
            const char *c = strchr(f, ',');
            rec_add(&r, f, c ? (size_t)(c - f) : strlen(f));
            if (!c)
                break;
            f = c + 1;
        }
        rec_emit(s, &r);
    }
    rec_str(&r, "Duration");
    rec_u64(&r, p->duration);
    rec_emit(s, &r);
    rec_pair(s, &r, "Complete", p->complete ? "yes" : "no");
    for (size_t k = 0; k < p->count; k++) {
        const struct part_info *pi = &p->info[p->order[k]];
        if (pi->damaged < 0 || !pi->crash_signal)
            continue;
        rec_str(&r, PROF_CRASH_KEY); /* the first part's word: every part says the same */
        rec_u64(&r, pi->crash_signal);
        rec_str(&r, pi->crash_name);
        rec_u64(&r, pi->crash_thread);
        rec_emit(s, &r);
        break;
    }
    rec_str(&r, "Threads");
    rec_u64(&r, p->usable);
    rec_emit(s, &r);
    for (size_t k = 0; k < p->count; k++) {
        const struct part_info *pi = &p->info[p->order[k]];
        if (pi->damaged < 0)
            continue;
        rec_str(&r, "Thread");
        rec_str(&r, pi->number);
        rec_str(&r, pi->tid);
        rec_str(&r, pi->name);
        rec_str(&r, pi->damaged || !pi->state ? "incomplete" : pi->state);
        if (pi->role && (!pi->name || !pi->name[0])) /* a named thread's name says what it is */
            rec_str(&r, pi->role);
        rec_emit(s, &r);
    }
    for (size_t k = 0; k < p->count; k++) {
        const struct part_info *pi = &p->info[p->order[k]];
        if (pi->damaged < 0 || !pi->has_cpu)
            continue;
        rec_str(&r, PROF_THREAD_CPU_RECORD);
        rec_str(&r, pi->number);
        rec_u64(&r, pi->cpu_ns);
        rec_u64(&r, pi->wall_ns);
        if (pi->has_samples && pi->wait_ns == UINT64_MAX)
            rec_str(&r, NULL); /* a sampled thread's record keeps its place: wait unknown */
        else if (pi->has_wait)
            rec_u64(&r, pi->wait_ns);
        for (size_t i = 0; i < pi->has_samples; i++)
            rec_u64(&r, pi->samples[i]);
        rec_emit(s, &r);
    }
    for (size_t k = 0; k < p->count; k++)
        if (p->info[p->order[k]].damaged >= 0)
            part_warnings(s, &p->info[p->order[k]]);
    for (size_t i = 0; i < p->fs.nv; i++) {
        rec_str(&r, "Function");
        for (int k = 0; k < 5; k++)
            rec_add(&r, p->fs.v[i].field[k], p->fs.v[i].len[k]);
        /* One word: a function with no hooks cannot have hooked copies (a PRFJ from before
           a module was unloaded and its address reused, say, is passed over) */
        if (p->fs.v[i].marks & FUNCTION_UNINSTRUMENTED)
            rec_str(&r, PROF_FUNCTION_UNINSTRUMENTED);
        else if (p->fs.v[i].marks & FUNCTION_INLINED)
            rec_str(&r, PROF_FUNCTION_INLINED);
        rec_emit(s, &r);
    }
    for (size_t i = 0; i < p->fs.nmods; i++) {
        rec_str(&r, PROF_MODULE_RECORD);
        rec_str(&r, p->fs.mods[i].path);
        rec_str(&r, p->fs.mods[i].build_id);
        rec_emit(s, &r);
    }
    if (s->table)
        s->table(s->ctx, summary);
}

/* The memory section: the run's findings, then each thread's bytes per region. */
static void emit_memory(const struct prof_parts *p, const struct prof_run_sink *s)
{
    if (!s->memory)
        return;
    for (size_t i = 0; p->ov && i < p->ov->nmemory; i++)
        s->memory(s->ctx, &p->ov->memory[i]);
    for (size_t i = 0; i < p->nrb; i++) {
        const struct region_bytes *b = &p->rb[i];
        struct prof_memory_rec m = {.kind = PROF_MK_REGION_BYTES,
                                    .alloc_kind = -1,
                                    .free_kind = -1,
                                    .thread = b->thread,
                                    .region = b->region,
                                    .region_len = b->region_len,
                                    .count = b->count,
                                    .bytes = b->bytes};
        s->memory(s->ctx, &m);
    }
}

/* Pass two: every record in the run file's order; with cut set, the rows after it are left
   to join, called where they belong (after every part, before the memory section). */
static enum prof_error emit(struct prof_parts *p, const struct prof_run_sink *sink,
                            const struct prof_parts_cut *cut, enum prof_error (*join)(void *ctx),
                            void *ctx)
{
    int summary = p->m.mode && strcmp(p->m.mode, "summary") == 0;
    if (!cut) /* prof_parts_cut set it before the tail's thread began reading it */
        p->summary = summary;
    emit_meta(p, sink, summary);
    enum prof_error err = sink->status ? sink->status(sink->ctx) : PROF_OK;
    for (size_t k = 0; k < p->count && err == PROF_OK; k++) {
        const struct part_info *pi = &p->info[p->order[k]];
        if (pi->damaged < 0)
            continue;
        struct span sp = {SPAN_HEAD, 0, NULL};
        if (cut && k == cut->at)
            sp.chunks = cut->chunks;
        err = read_part(p, p->order[k], NULL, sink, cut && k >= cut->at ? &sp : NULL);
        if (err == PROF_OK && sink->status)
            err = sink->status(sink->ctx);
    }
    if (err == PROF_OK && cut)
        err = join(ctx);
    if (err == PROF_OK) {
        emit_memory(p, sink);
        if (sink->status)
            err = sink->status(sink->ctx);
    }
    /* Last, so that a reader that skips an unknown section still reads the memory section. */
    if (err == PROF_OK && p->ncapped && sink->summary) {
        if (sink->section)
            sink->section(sink->ctx, PROF_SUMMARY_SECTION);
        for (size_t i = 0; i < p->ncapped; i++)
            sink->summary(sink->ctx, &p->capped[i].s);
        if (sink->status)
            err = sink->status(sink->ctx);
    }
    return err;
}

/* Pass two: every record, in the run file's order. */
enum prof_error prof_parts_emit(struct prof_parts *p, const struct prof_run_sink *sink)
{
    return emit(p, sink, NULL, NULL, NULL);
}

/* Choose the cut nearest the middle of the parts' bytes, at a part's start or at its mark. */
int prof_parts_cut(struct prof_parts *p, struct prof_parts_cut *cut)
{
    p->summary = p->m.mode && strcmp(p->m.mode, "summary") == 0;
    if (p->summary)
        return 0;
    uint64_t total = 0;
    for (size_t k = 0; k < p->count; k++)
        if (p->info[p->order[k]].damaged >= 0)
            total += p->info[p->order[k]].size;
    /* Walk back from the last part: a cut may fall only where every part from it on was read
       cleanly by pass one, so that the tail's side stops exactly where the serial reading
       would. Positions are doubled to compare with total without rounding. */
    int found = 0;
    uint64_t best = UINT64_MAX, after = 0;
    for (size_t k = p->count; k-- > 0;) {
        const struct part_info *pi = &p->info[p->order[k]];
        if (pi->damaged < 0)
            continue;
        if (!pi->clean)
            break;
        after += pi->size;
        uint64_t start = total - after; /* bytes before this part */
        uint64_t pos[2] = {start, start + pi->mark_off};
        uint64_t chunks[2] = {0, pi->mark_chunks};
        for (int i = 0; i < 2; i++) {
            if ((i == 1 && (!pi->has_mark || pi->mark_chunks == 0)) || pos[i] == 0 ||
                pos[i] >= total)
                continue;
            uint64_t d = 2 * pos[i] > total ? 2 * pos[i] - total : total - 2 * pos[i];
            if (d < best) {
                best = d;
                found = 1;
                cut->at = k;
                cut->chunks = chunks[i];
                cut->before = pos[i];
                cut->after = total - pos[i];
            }
        }
    }
    return found;
}

/* Pass two up to the cut, then join, then the rest of the records. */
enum prof_error prof_parts_emit_head(struct prof_parts *p, const struct prof_run_sink *sink,
                                     const struct prof_parts_cut *cut,
                                     enum prof_error (*join)(void *ctx), void *ctx)
{
    return emit(p, sink, cut, join, ctx);
}

/* Pass two after the cut, alone: part and id records and events rows. It writes nothing that
   emit_head reads, and reads nothing that emit_head writes. */
enum prof_error prof_parts_emit_tail(struct prof_parts *p, const struct prof_run_sink *sink,
                                     const struct prof_parts_cut *cut)
{
    enum prof_error err = PROF_OK;
    for (size_t k = cut->at; k < p->count && err == PROF_OK; k++) {
        const struct part_info *pi = &p->info[p->order[k]];
        if (pi->damaged < 0)
            continue;
        struct span sp = {SPAN_TAIL, 0, NULL};
        if (k == cut->at && cut->chunks) {
            sp.chunks = cut->chunks;
            sp.mark = &pi->mark;
        }
        err = read_part(p, p->order[k], NULL, sink, &sp);
        if (err == PROF_OK && sink->status)
            err = sink->status(sink->ctx);
    }
    return err;
}

/* Free what pass one and pass two kept. */
void prof_parts_free(struct prof_parts *p)
{
    if (!p)
        return;
    for (size_t i = 0; p->info && i < p->count; i++)
        info_release(&p->info[i]);
    free(p->info);
    free(p->order);
    meta_release(&p->m);
    functions_release(&p->fs);
    for (size_t i = 0; i < p->nrb; i++)
        free(p->rb[i].region);
    free(p->rb);
    for (size_t i = 0; i < p->ncapped; i++) {
        free(p->capped[i].region);
        free(p->capped[i].bucket);
        free(p->capped[i].count);
    }
    free(p->capped);
    free(p->nodes);
    free(p);
}
