/*
 * batch.c - record a run_handler's calls into batches of bytes and replay them into another
 * run_handler in the same order, so that parsing and modelling can run on two threads.
 */
#include "read/batch.h"
#include "base/util.h"

#include <stdlib.h>
#include <string.h>

/*
 * A record is a tag byte and its fields, packed (read with memcpy: nothing is aligned). A
 * string is its length as a uint64 (UINT64_MAX: NULL), then its bytes and a NUL, so that a
 * replayed call can point into the batch as the parser's calls point into its buffers.
 */
enum rec_tag {
    REC_META = 1,
    REC_BEGIN,
    REC_STOP,
    REC_EVENT,
    REC_SUMMARY,
    REC_PROBLEM,
    REC_MEMORY,
    REC_PROGRESS,
    REC_MARK,
    REC_END,
    REC_ID /* a number of the recorder's (batch_recorder.number_ids) and its text */
};

/* An event's flags: the common row (seed form, or an events row at depth 0 without self,
   start or thread) is the tag, the flags, ticks and the region; the rest only when set. */
#define EV_STOPPED 1u
#define EV_NESTED 2u
#define EV_FULL 4u     /* every other field follows */
#define EV_NUMBERED 8u /* ids as numbers (REC_ID gave their texts), not as strings */

/* The bytes of a string field. */
static size_t str_size(const char *s, size_t n) { return 8 + (s ? n + 1 : 0); }

/* Append a uint32. */
static char *put_u32(char *p, uint32_t v)
{
    memcpy(p, &v, 4);
    return p + 4;
}

/* Append a uint64. */
static char *put_u64(char *p, uint64_t v)
{
    memcpy(p, &v, 8);
    return p + 8;
}

/* Append a string field. */
static char *put_str(char *p, const char *s, size_t n)
{
    if (!s)
        return put_u64(p, UINT64_MAX);
    p = put_u64(p, n);
    memcpy(p, s, n);
    p[n] = 0;
    return p + n + 1;
}

/* Read a uint32. */
static uint32_t get_u32(const char **p)
{
    uint32_t v;
    memcpy(&v, *p, 4);
    *p += 4;
    return v;
}

/* Read a uint64. */
static uint64_t get_u64(const char **p)
{
    uint64_t v;
    memcpy(&v, *p, 8);
    *p += 8;
    return v;
}

/* Read a string field: its bytes in place (NUL-terminated), its length in *n (0 for NULL). */
static const char *get_str(const char **p, size_t *n)
{
    uint64_t len = get_u64(p);
    if (len == UINT64_MAX) {
        *n = 0;
        return NULL;
    }
    const char *s = *p;
    *p += len + 1;
    *n = (size_t)len;
    return s;
}

/* A new empty batch. */
struct run_batch *batch_new(size_t cap)
{
    struct run_batch *b = xcalloc(1, sizeof *b);
    b->cap = cap ? cap : 1;
    b->buf = xmalloc(b->cap);
    return b;
}

/* Free a batch. */
void batch_free(struct run_batch *b)
{
    if (!b)
        return;
    free(b->buf);
    free(b);
}

/* Room for a record of n bytes at the end of the batch being written. */
static char *room(struct batch_recorder *r, size_t n)
{
    struct run_batch *b = r->cur;
    if (b->cap - b->len < n) {
        size_t cap = 2 * b->cap > b->len + n ? 2 * b->cap : b->len + n;
        b->buf = xrealloc(b->buf, cap);
        b->cap = cap;
    }
    char *p = b->buf + b->len;
    b->len += n;
    return p;
}

/* A record is complete: past the limit, the batch goes to the reader. */
static void record_done(struct batch_recorder *r)
{
    if (r->cur->len >= r->limit)
        r->cur = r->swap(r->ctx, r->cur);
}

/* Hand the batch over if it holds anything. */
void batch_record_flush(struct batch_recorder *r)
{
    if (r->cur->len)
        r->cur = r->swap(r->ctx, r->cur);
}

/* Record a metadata record. */
static void rec_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    struct batch_recorder *r = ctx;
    size_t size = 1 + 8;
    for (size_t i = 0; i < n; i++)
        size += str_size(fields[i], lens[i]);
    char *p = room(r, size);
    *p++ = REC_META;
    p = put_u64(p, n);
    for (size_t i = 0; i < n; i++)
        p = put_str(p, fields[i], lens[i]);
    record_done(r);
}

/* Record the start of the table. */
static void rec_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    struct batch_recorder *r = ctx;
    char *p = room(r, 1 + 4 + 8);
    *p++ = REC_BEGIN;
    p = put_u32(p, (uint32_t)kind);
    put_u64(p, frequency);
    record_done(r);
}

/* Record the reader's question; it reads on (the replay asks the real handler). */
static int rec_stop(void *ctx)
{
    struct batch_recorder *r = ctx;
    *room(r, 1) = REC_STOP;
    record_done(r);
    return 0;
}

/* Grow the recorder's table of numbered texts and re-enter them. */
static void ids_rehash(struct batch_ids *t)
{
    size_t size = t->mask ? (t->mask + 1) * 2 : 256;
    free(t->slots);
    t->slots = xcalloc(size, sizeof *t->slots);
    t->mask = size - 1;
    for (uint32_t k = 1; k <= t->n; k++) {
        uint64_t hash = id_hash(t->text[k - 1], t->len[k - 1]);
        size_t at = hash & t->mask;
        while (t->slots[at])
            at = (at + 1) & t->mask;
        t->slots[at] = (hash >> 32) << 32 | k;
    }
}

/* The number of text s[0..n), given (and its text recorded) on first sight; 0 when the
   numbers ran out (the text is then recorded with its row). */
static uint32_t id_number(struct batch_recorder *r, const char *s, size_t n)
{
    struct batch_ids *t = &r->ids;
    if (t->last && t->len[t->last - 1] == n && id_same(t->text[t->last - 1], s, n))
        return t->last;
    if ((size_t)(t->n + 1) * 2 > t->mask + 1)
        ids_rehash(t);
    uint64_t hash = id_hash(s, n);
    size_t at = hash & t->mask;
    for (; t->slots[at]; at = (at + 1) & t->mask) {
        uint64_t e = t->slots[at];
        uint32_t k = (uint32_t)e;
        if (e >> 32 == hash >> 32 && t->len[k - 1] == n && id_same(t->text[k - 1], s, n))
            return t->last = k;
    }
    if (t->n == UINT32_MAX)
        return 0;
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->text = xrealloc(t->text, t->cap * sizeof *t->text);
        t->len = xrealloc(t->len, t->cap * sizeof *t->len);
    }
    t->text[t->n] = xmalloc(n + 1);
    memcpy(t->text[t->n], s, n);
    t->text[t->n][n] = 0;
    t->len[t->n] = n;
    uint32_t k = ++t->n;
    t->last = k;
    t->slots[at] = (hash >> 32) << 32 | k;
    char *p = room(r, 1 + 4 + str_size(s, n));
    *p++ = REC_ID;
    p = put_u32(p, k);
    put_str(p, s, n);
    return k;
}

/* Record a row of an events table or the seed form. */
static void rec_event(void *ctx, const struct prof_event_rec *e)
{
    struct batch_recorder *r = ctx;
    /* Numbers first: a new text's REC_ID goes before the row that uses it. */
    int full = e->thread || e->depth || e->self || e->start || e->parent_len ||
               (e->stopped != 0 && e->stopped != 1) || (e->nested != 0 && e->nested != 1);
    uint32_t region = 0, parent = 0;
    int numbered = 0;
    if (r->number_ids && e->region) {
        /* The common row's parent is "" with no number (the model reads it at depth > 0). */
        region = id_number(r, e->region, e->region_len);
        if (full && e->parent)
            parent = id_number(r, e->parent, e->parent_len);
        numbered = region && (!full || parent);
    }
    if (!numbered && (e->region_id || e->parent_id))
        full = 1;
    size_t size = 1 + 1 + 8 + (numbered ? 4 : str_size(e->region, e->region_len));
    if (full)
        size += 2 * 4 + 2 * 4 + 2 * 8 + (numbered ? 4 : 2 * 4 + str_size(e->parent, e->parent_len));
    char *p = room(r, size);
    *p++ = REC_EVENT;
    *p++ = (char)((full ? EV_FULL : (e->stopped ? EV_STOPPED : 0) | (e->nested ? EV_NESTED : 0)) |
                  (numbered ? EV_NUMBERED : 0));
    p = put_u64(p, e->ticks);
    p = numbered ? put_u32(p, region) : put_str(p, e->region, e->region_len);
    if (full) {
        p = put_u32(p, e->thread);
        p = put_u32(p, e->depth);
        p = put_u32(p, (uint32_t)e->stopped);
        p = put_u32(p, (uint32_t)e->nested);
        p = put_u64(p, e->self);
        p = put_u64(p, e->start);
        if (numbered) {
            put_u32(p, parent);
        } else {
            p = put_u32(p, e->region_id);
            p = put_u32(p, e->parent_id);
            put_str(p, e->parent, e->parent_len);
        }
    }
    record_done(r);
}

/* Record a summary row, its histogram pairs with it. */
static void rec_summary(void *ctx, const struct prof_summary_rec *s)
{
    struct batch_recorder *r = ctx;
    size_t size = 1 + str_size(s->region, s->region_len) + 4 * 4 + 10 * 8 + 8 + s->nhist * 12;
    char *p = room(r, size);
    *p++ = REC_SUMMARY;
    p = put_str(p, s->region, s->region_len);
    p = put_u32(p, s->region_id);
    p = put_u32(p, s->thread);
    p = put_u32(p, s->node);
    p = put_u32(p, s->parent);
    p = put_u64(p, s->calls);
    p = put_u64(p, s->ticks);
    p = put_u64(p, s->self);
    p = put_u64(p, s->min);
    p = put_u64(p, s->max);
    p = put_u64(p, s->outer);
    p = put_u64(p, s->samples);
    p = put_u64(p, s->timed);
    p = put_u64(p, s->wall);
    memcpy(p, &s->sumsq, 8);
    p += 8;
    p = put_u64(p, s->nhist);
    for (size_t i = 0; i < s->nhist; i++)
        p = put_u32(p, s->hist_bucket[i]);
    for (size_t i = 0; i < s->nhist; i++)
        p = put_u64(p, s->hist_count[i]);
    record_done(r);
}

/* Record a problem at a line. */
static void rec_problem(void *ctx, unsigned long line, const char *message)
{
    struct batch_recorder *r = ctx;
    size_t n = strlen(message);
    char *p = room(r, 1 + 8 + str_size(message, n));
    *p++ = REC_PROBLEM;
    p = put_u64(p, line);
    put_str(p, message, n);
    record_done(r);
}

/* The length of a string without one (NULL: 0). */
static size_t len_of(const char *s) { return s ? strlen(s) : 0; }

/* Record a row of the memory section. */
static void rec_memory(void *ctx, const struct run_memory *m)
{
    struct batch_recorder *r = ctx;
    size_t nkind = len_of(m->kind), nalloc = len_of(m->alloc_kind), nfree = len_of(m->free_kind);
    size_t size = 1 + 2 * 4 + 2 * 8 + str_size(m->kind, nkind) + str_size(m->alloc_kind, nalloc) +
                  str_size(m->free_kind, nfree) + str_size(m->region, m->region_len) +
                  str_size(m->site, m->site_len) + str_size(m->other_site, m->other_site_len) +
                  str_size(m->function, m->function_len) + str_size(m->stack, m->stack_len);
    char *p = room(r, size);
    *p++ = REC_MEMORY;
    p = put_u32(p, m->thread);
    p = put_u32(p, m->other_thread);
    p = put_u64(p, m->count);
    p = put_u64(p, m->bytes);
    p = put_str(p, m->kind, nkind);
    p = put_str(p, m->alloc_kind, nalloc);
    p = put_str(p, m->free_kind, nfree);
    p = put_str(p, m->region, m->region_len);
    p = put_str(p, m->site, m->site_len);
    p = put_str(p, m->other_site, m->other_site_len);
    p = put_str(p, m->function, m->function_len);
    put_str(p, m->stack, m->stack_len);
    record_done(r);
}

/* Set up a recorder. */
void batch_recorder_init(struct batch_recorder *r, struct run_batch *first, size_t limit,
                         struct run_batch *(*swap)(void *ctx, struct run_batch *full), void *ctx)
{
    memset(r, 0, sizeof *r);
    r->h = (struct run_handler){r,           rec_meta,    rec_begin,  rec_event,
                                rec_summary, rec_problem, rec_memory, rec_stop};
    r->cur = first;
    r->limit = limit;
    r->swap = swap;
    r->ctx = ctx;
}

/* Free the recorder's numbered texts. */
void batch_recorder_release(struct batch_recorder *r)
{
    for (uint32_t k = 0; k < r->ids.n; k++)
        free(r->ids.text[k]);
    free(r->ids.text);
    free(r->ids.len);
    free(r->ids.slots);
    memset(&r->ids, 0, sizeof r->ids);
}

/* Record a mark. */
void batch_record_mark(struct batch_recorder *r, uint32_t code, int64_t value)
{
    char *p = room(r, 1 + 4 + 8);
    *p++ = REC_MARK;
    p = put_u32(p, code);
    put_u64(p, (uint64_t)value);
    record_done(r);
}

/* Record bytes read. */
void batch_record_progress(struct batch_recorder *r, uint64_t bytes)
{
    char *p = room(r, 1 + 8);
    *p++ = REC_PROGRESS;
    put_u64(p, bytes);
    record_done(r);
}

/* Record the end of a run. */
void batch_record_end(struct batch_recorder *r, enum run_status st, const struct rep_error *why,
                      unsigned long line)
{
    size_t n = why ? strlen(why->msg) : 0;
    char *p = room(r, 1 + 4 + 8 + 4 + str_size(why ? why->msg : NULL, n));
    *p++ = REC_END;
    p = put_u32(p, (uint32_t)st);
    p = put_u64(p, line);
    p = put_u32(p, why ? (uint32_t)why->code : 0);
    put_str(p, why ? why->msg : NULL, n);
    record_done(r);
}

/* Set up a cursor. */
void batch_cursor_init(struct batch_cursor *c, struct run_batch *(*next)(void *ctx),
                       void (*done)(void *ctx, struct run_batch *b), void *ctx)
{
    memset(c, 0, sizeof *c);
    c->next = next;
    c->done = done;
    c->ctx = ctx;
}

/* Give the batch back and free the cursor's room. */
void batch_cursor_release(struct batch_cursor *c)
{
    if (c->b)
        c->done(c->ctx, c->b);
    c->b = NULL;
    for (size_t i = 0; i < c->nids; i++)
        free(c->ids[i]);
    free(c->ids);
    free(c->ids_len);
    free(c->fptr);
    free(c->flen);
    free(c->hist_bucket);
    free(c->hist_count);
}

/* The next record's tag; *p is where its fields start. */
static int next_record(struct batch_cursor *c, const char **p)
{
    while (!c->b || c->pos == c->b->len) {
        if (c->b)
            c->done(c->ctx, c->b);
        c->b = c->next(c->ctx);
        c->pos = 0;
    }
    *p = c->b->buf + c->pos + 1;
    return (unsigned char)c->b->buf[c->pos];
}

/* A metadata record, replayed when live. */
static const char *play_meta(struct batch_cursor *c, const char *p, const struct run_handler *h,
                             int live)
{
    size_t n = (size_t)get_u64(&p);
    if (n > c->fcap) {
        c->fcap = n;
        c->fptr = xrealloc(c->fptr, n * sizeof *c->fptr);
        c->flen = xrealloc(c->flen, n * sizeof *c->flen);
    }
    for (size_t i = 0; i < n; i++)
        c->fptr[i] = get_str(&p, &c->flen[i]);
    if (live && h->meta)
        h->meta(h->ctx, c->fptr, c->flen, n);
    return p;
}

/* The text of a recorder's number. */
static const char *id_text(const struct batch_cursor *c, uint32_t k, size_t *len)
{
    if (k == 0 || k > c->nids)
        abort(); /* a number without its REC_ID: the recorder's order was broken, a bug */
    *len = c->ids_len[k - 1];
    return c->ids[k - 1];
}

/* An event, replayed when live. */
static const char *play_event(const struct batch_cursor *c, const char *p,
                              const struct run_handler *h, int live)
{
    struct prof_event_rec e = {0};
    unsigned flags = (unsigned char)*p++;
    e.ticks = get_u64(&p);
    if (flags & EV_NUMBERED) {
        e.region_id = get_u32(&p);
        e.region = id_text(c, e.region_id, &e.region_len);
    } else {
        e.region = get_str(&p, &e.region_len);
    }
    if (flags & EV_FULL) {
        e.thread = get_u32(&p);
        e.depth = get_u32(&p);
        e.stopped = (int)get_u32(&p);
        e.nested = (int)get_u32(&p);
        e.self = get_u64(&p);
        e.start = get_u64(&p);
        if (flags & EV_NUMBERED) {
            e.parent_id = get_u32(&p);
            e.parent = id_text(c, e.parent_id, &e.parent_len);
        } else {
            e.region_id = get_u32(&p);
            e.parent_id = get_u32(&p);
            e.parent = get_str(&p, &e.parent_len);
        }
    } else {
        e.stopped = (flags & EV_STOPPED) != 0;
        e.nested = (flags & EV_NESTED) != 0;
        e.parent = "";
    }
    if (live && h->event)
        h->event(h->ctx, &e);
    return p;
}

/* A number's text, kept for the rows that use it. */
static const char *play_id(struct batch_cursor *c, const char *p)
{
    uint32_t k = get_u32(&p);
    size_t n;
    const char *s = get_str(&p, &n);
    if (k != c->nids + 1)
        abort(); /* numbers are given in order: the recorder's order was broken, a bug */
    if (c->nids == c->ids_cap) {
        c->ids_cap = c->ids_cap ? 2 * c->ids_cap : 64;
        c->ids = xrealloc(c->ids, c->ids_cap * sizeof *c->ids);
        c->ids_len = xrealloc(c->ids_len, c->ids_cap * sizeof *c->ids_len);
    }
    c->ids[c->nids] = xmalloc(n + 1);
    memcpy(c->ids[c->nids], s, n + 1);
    c->ids_len[c->nids++] = n;
    return p;
}

/* A summary row, replayed when live (its histogram copied out: the batch is not aligned). */
static const char *play_summary(struct batch_cursor *c, const char *p, const struct run_handler *h,
                                int live)
{
    struct prof_summary_rec s = {0};
    s.region = get_str(&p, &s.region_len);
    s.region_id = get_u32(&p);
    s.thread = get_u32(&p);
    s.node = get_u32(&p);
    s.parent = get_u32(&p);
    s.calls = get_u64(&p);
    s.ticks = get_u64(&p);
    s.self = get_u64(&p);
    s.min = get_u64(&p);
    s.max = get_u64(&p);
    s.outer = get_u64(&p);
    s.samples = get_u64(&p);
    s.timed = get_u64(&p);
    s.wall = get_u64(&p);
    memcpy(&s.sumsq, p, 8);
    p += 8;
    s.nhist = (size_t)get_u64(&p);
    if (s.nhist > c->hist_cap) {
        c->hist_cap = s.nhist;
        c->hist_bucket = xrealloc(c->hist_bucket, s.nhist * sizeof *c->hist_bucket);
        c->hist_count = xrealloc(c->hist_count, s.nhist * sizeof *c->hist_count);
    }
    memcpy(c->hist_bucket, p, s.nhist * 4);
    p += s.nhist * 4;
    memcpy(c->hist_count, p, s.nhist * 8);
    p += s.nhist * 8;
    s.hist_bucket = c->hist_bucket;
    s.hist_count = c->hist_count;
    if (live && h->summary)
        h->summary(h->ctx, &s);
    return p;
}

/* A memory row, replayed when live. */
static const char *play_memory(const char *p, const struct run_handler *h, int live)
{
    struct run_memory m = {0};
    size_t unused;
    m.thread = get_u32(&p);
    m.other_thread = get_u32(&p);
    m.count = get_u64(&p);
    m.bytes = get_u64(&p);
    m.kind = get_str(&p, &unused);
    m.alloc_kind = get_str(&p, &unused);
    m.free_kind = get_str(&p, &unused);
    m.region = get_str(&p, &m.region_len);
    m.site = get_str(&p, &m.site_len);
    m.other_site = get_str(&p, &m.other_site_len);
    m.function = get_str(&p, &m.function_len);
    m.stack = get_str(&p, &m.stack_len);
    if (live && h->memory)
        h->memory(h->ctx, &m);
    return p;
}

/* The next mark, replaying the progress recorded before it. */
uint32_t batch_take_mark(struct batch_cursor *c, int64_t *value)
{
    for (;;) {
        const char *p;
        int tag = next_record(c, &p);
        if (tag == REC_PROGRESS || tag == REC_ID) {
            if (tag == REC_ID) {
                p = play_id(c, p);
            } else {
                uint64_t bytes = get_u64(&p);
                if (c->progress)
                    c->progress(c->ctx, bytes);
            }
            c->pos = (size_t)(p - c->b->buf);
            continue;
        }
        if (tag != REC_MARK)
            abort(); /* the recorder's order was broken: a bug, not a bad input */
        uint32_t code = get_u32(&p);
        *value = (int64_t)get_u64(&p);
        c->pos = (size_t)(p - c->b->buf);
        return code;
    }
}

/* Replay one run into h. */
enum run_status batch_replay_run(void *src, const struct run_handler *h, struct rep_error *why,
                                 unsigned long *line)
{
    struct batch_cursor *c = src;
    int live = 1;
    for (;;) {
        const char *p;
        int tag = next_record(c, &p);
        switch (tag) {
        case REC_EVENT:
            p = play_event(c, p, h, live);
            break;
        case REC_ID:
            p = play_id(c, p);
            break;
        case REC_META:
            p = play_meta(c, p, h, live);
            break;
        case REC_BEGIN: {
            enum run_kind kind = (enum run_kind)get_u32(&p);
            uint64_t frequency = get_u64(&p);
            if (live && h->begin)
                h->begin(h->ctx, kind, frequency);
            break;
        }
        case REC_STOP:
            if (live && h->stop && h->stop(h->ctx)) {
                live = 0;
                if (c->stopped)
                    c->stopped(c->ctx);
            }
            break;
        case REC_SUMMARY:
            p = play_summary(c, p, h, live);
            break;
        case REC_PROBLEM: {
            unsigned long at = (unsigned long)get_u64(&p);
            size_t n;
            const char *msg = get_str(&p, &n);
            if (live && h->problem)
                h->problem(h->ctx, at, msg);
            break;
        }
        case REC_MEMORY:
            p = play_memory(p, h, live);
            break;
        case REC_PROGRESS: {
            uint64_t bytes = get_u64(&p);
            if (c->progress)
                c->progress(c->ctx, bytes);
            break;
        }
        case REC_END: {
            enum run_status st = (enum run_status)get_u32(&p);
            unsigned long at = (unsigned long)get_u64(&p);
            enum rep_code code = (enum rep_code)get_u32(&p);
            size_t n;
            const char *msg = get_str(&p, &n);
            c->pos = (size_t)(p - c->b->buf);
            if (!live) {
                /* As runfile_parse ends when its handler stops it after the table's start. */
                st = RUNFILE_OK;
                at = 0;
                msg = NULL;
            }
            if (why) {
                rep_error_clear(why);
                if (msg && (code != REP_OK || *msg))
                    rep_fail(why, code, "%s", msg);
            }
            if (line)
                *line = at;
            return st;
        }
        default:
            abort(); /* a mark inside a run: the recorder's order was broken, a bug */
        }
        c->pos = (size_t)(p - c->b->buf);
    }
}
