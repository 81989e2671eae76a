/*
 * test_batch.c - unit tests of batch.c: a run_handler's calls recorded into batches and
 * replayed give the handler the calls a direct reading gives, in the same order, with the same
 * contents, and the reader's outcome; a run the handler stops is left out after its start.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "read/batch.h"
#include "corpus.h"
#include "read/runfile.h"
#include "strbuf.h"

/* ---- a handler that writes every call, every member, into a trace ---- */

/* What a tracing handler saw, and what its stop answers. */
struct trace {
    struct prof_sbuf text;
    int stop; /* the answer of stop */
    unsigned asked;
};

/* A string field, byte for byte (NULs included), or NULL. */
static void trace_str(struct trace *t, const char *s, size_t len)
{
    if (!s) {
        prof_sbuf_str(&t->text, " (null)");
        return;
    }
    prof_sbuf_addf(&t->text, " %zu:", len);
    prof_sbuf_add(&t->text, s, len);
    /* The string ends with a NUL, as the parser's do. */
    prof_sbuf_str(&t->text, s[len] == 0 ? "" : "(no NUL)");
}

/* Trace a metadata record. */
static void trace_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    struct trace *t = ctx;
    prof_sbuf_addf(&t->text, "meta %zu", n);
    for (size_t i = 0; i < n; i++)
        trace_str(t, fields[i], lens[i]);
    prof_sbuf_char(&t->text, '\n');
}

/* Trace the start of the table. */
static void trace_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    struct trace *t = ctx;
    prof_sbuf_addf(&t->text, "begin %d %llu\n", (int)kind, (unsigned long long)frequency);
}

/* Trace an events or seed row, every member. */
static void trace_event(void *ctx, const struct prof_event_rec *e)
{
    struct trace *t = ctx;
    prof_sbuf_str(&t->text, "event");
    trace_str(t, e->region, e->region_len);
    trace_str(t, e->parent, e->parent_len);
    prof_sbuf_addf(&t->text, " %u %u %u %u %d %d %llu %llu %llu\n", e->region_id, e->parent_id,
                   e->thread, e->depth, e->stopped, e->nested, (unsigned long long)e->ticks,
                   (unsigned long long)e->self, (unsigned long long)e->start);
}

/* Trace a summary row, every member and histogram pair. */
static void trace_summary(void *ctx, const struct prof_summary_rec *s)
{
    struct trace *t = ctx;
    prof_sbuf_str(&t->text, "summary");
    trace_str(t, s->region, s->region_len);
    prof_sbuf_addf(&t->text, " %u %u %u %u %llu %llu %llu %llu %llu %llu %a", s->region_id,
                   s->thread, s->node, s->parent, (unsigned long long)s->calls,
                   (unsigned long long)s->ticks, (unsigned long long)s->self,
                   (unsigned long long)s->min, (unsigned long long)s->max,
                   (unsigned long long)s->outer, s->sumsq);
    for (size_t i = 0; i < s->nhist; i++)
        prof_sbuf_addf(&t->text, " %u:%llu", (unsigned)s->hist_bucket[i],
                       (unsigned long long)s->hist_count[i]);
    prof_sbuf_char(&t->text, '\n');
}

/* Trace a memory-section row. */
static void trace_memory(void *ctx, const struct run_memory *m)
{
    struct trace *t = ctx;
    prof_sbuf_addf(&t->text, "memory %u %u %llu %llu", m->thread, m->other_thread,
                   (unsigned long long)m->count, (unsigned long long)m->bytes);
    trace_str(t, m->kind, m->kind ? strlen(m->kind) : 0);
    trace_str(t, m->alloc_kind, m->alloc_kind ? strlen(m->alloc_kind) : 0);
    trace_str(t, m->free_kind, m->free_kind ? strlen(m->free_kind) : 0);
    trace_str(t, m->region, m->region_len);
    trace_str(t, m->site, m->site_len);
    trace_str(t, m->other_site, m->other_site_len);
    trace_str(t, m->function, m->function_len);
    trace_str(t, m->stack, m->stack_len);
    prof_sbuf_char(&t->text, '\n');
}

/* Trace a problem and its line. */
static void trace_problem(void *ctx, unsigned long line, const char *message)
{
    struct trace *t = ctx;
    prof_sbuf_addf(&t->text, "problem %lu %s\n", line, message);
}

/* Trace the question, and answer as told. */
static int trace_stop(void *ctx)
{
    struct trace *t = ctx;
    t->asked++;
    prof_sbuf_addf(&t->text, "stop? %d\n", t->stop);
    return t->stop;
}

/* A handler writing into t. */
static struct run_handler tracer(struct trace *t)
{
    return (struct run_handler){
        t,         trace_meta, trace_begin, trace_event, trace_summary, trace_problem, trace_memory,
        trace_stop};
}

/* Trace a reader's outcome. */
static void trace_outcome(struct trace *t, enum run_status st, const struct rep_error *why,
                          unsigned long line)
{
    prof_sbuf_addf(&t->text, "status %d line %lu code %d why %s\n", (int)st, line, (int)why->code,
                   why->msg);
}

/* ---- batches queued in memory, as one thread would hand them to the other ---- */

/* Batches handed over, oldest first, and the ones given back. */
struct queue {
    struct run_batch *items[4096];
    size_t n, next;
    size_t given_back;
    uint64_t progress;
    unsigned stopped;
};

/* The recorder's swap: queue the full batch, start a new one. */
static struct run_batch *queue_swap(void *ctx, struct run_batch *full)
{
    struct queue *q = ctx;
    assert_true(q->n < sizeof q->items / sizeof q->items[0]);
    assert_true(full->len > 0); /* only batches that hold something are handed over */
    q->items[q->n++] = full;
    return batch_new(16);
}

/* The cursor's next: the oldest batch not read yet. */
static struct run_batch *queue_next(void *ctx)
{
    struct queue *q = ctx;
    assert_true(q->next < q->n); /* the replay never reads past what was recorded */
    return q->items[q->next++];
}

/* The cursor's done: a batch read to its end. */
static void queue_done(void *ctx, struct run_batch *b)
{
    struct queue *q = ctx;
    q->given_back++;
    batch_free(b);
}

/* The cursor's progress and stopped. */
static void queue_progress(void *ctx, uint64_t bytes) { ((struct queue *)ctx)->progress += bytes; }
static void queue_stopped(void *ctx) { ((struct queue *)ctx)->stopped++; }

/* A recorder writing into q, handing batches over past limit bytes. */
static void recorder_on(struct batch_recorder *r, struct queue *q, size_t limit)
{
    memset(q, 0, sizeof *q);
    batch_recorder_init(r, batch_new(16), limit, queue_swap, q);
}

/* A cursor reading q. */
static void cursor_on(struct batch_cursor *c, struct queue *q)
{
    batch_cursor_init(c, queue_next, queue_done, q);
    c->progress = queue_progress;
    c->stopped = queue_stopped;
}

/* Every batch was read and given back; free the recorder's last one. */
static void check_all_read(struct batch_cursor *c, struct queue *q, struct batch_recorder *r)
{
    batch_cursor_release(c);
    assert_int_equal(q->next, q->n);
    assert_int_equal(q->given_back, q->n);
    batch_free(r->cur);
}

/* ---- runs read from text ---- */

/* Read text[0..len) straight into a tracer. */
static void read_direct(const char *text, size_t len, struct trace *t)
{
    struct run_handler h = tracer(t);
    FILE *f = fmemopen((void *)text, len, "r");
    assert_non_null(f);
    struct rep_error why;
    unsigned long line = 99;
    enum run_status st = runfile_parse(f, "t", &h, &why, &line);
    fclose(f);
    trace_outcome(t, st, &why, line);
}

/* Read text[0..len) into a recorder, as the reader thread does. */
static void read_recorded(const char *text, size_t len, struct batch_recorder *r)
{
    FILE *f = fmemopen((void *)text, len, "r");
    assert_non_null(f);
    struct rep_error why;
    unsigned long line = 99;
    enum run_status st = runfile_parse(f, "t", &r->h, &why, &line);
    fclose(f);
    batch_record_end(r, st, &why, line);
}

/* Replay the next run into a tracer. */
static void replay(struct batch_cursor *c, struct trace *t)
{
    struct run_handler h = tracer(t);
    struct rep_error why;
    unsigned long line = 99;
    enum run_status st = batch_replay_run(c, &h, &why, &line);
    trace_outcome(t, st, &why, line);
}

/* The traces are equal (the first difference shown when they are not). */
static void check_same(const struct trace *want, const struct trace *got, const char *what)
{
    assert_false(want->text.failed || got->text.failed);
    if (want->text.len == got->text.len &&
        memcmp(want->text.data, got->text.data, want->text.len) == 0)
        return;
    size_t at = 0;
    while (at < want->text.len && at < got->text.len && want->text.data[at] == got->text.data[at])
        at++;
    fprintf(stderr, "%s: traces differ at byte %zu:\n--- direct\n%.200s\n--- replayed\n%.200s\n",
            what, at, want->text.data + at, got->text.data + at);
    fail();
}

/* Recording text and replaying it, batches cut every limit bytes, gives the direct calls. */
static void check_replay(const char *text, size_t len, size_t limit, const char *what)
{
    struct trace direct = {0}, replayed = {0};
    read_direct(text, len, &direct);
    struct queue q;
    struct batch_recorder r;
    recorder_on(&r, &q, limit);
    read_recorded(text, len, &r);
    batch_record_flush(&r);
    struct batch_cursor c;
    cursor_on(&c, &q);
    replay(&c, &replayed);
    check_all_read(&c, &q, &r);
    check_same(&direct, &replayed, what);
    assert_int_equal(q.stopped, 0);
    prof_sbuf_release(&direct.text);
    prof_sbuf_release(&replayed.text);
}

/* A corpus file replays as it reads: one record per batch, small batches, one large batch. */
static void check_corpus_replay(const char *path, const char *text, size_t len, void *ctx)
{
    (void)ctx;
    static const size_t limits[] = {1, 100, 1 << 20};
    for (size_t k = 0; k < sizeof limits / sizeof *limits; k++)
        check_replay(text, len, limits[k], path);
}

/* Every file of the fuzz corpora (run files, seed files, truncated and malformed ones among
   them) replays as it reads. */
static void replay_gives_the_calls_of_every_corpus_file(void **state)
{
    (void)state;
    static const char *const dirs[] = {"tests/fuzz/corpus/runfile", "tests/fuzz/corpus/seed",
                                       "tests/fuzz/corpus/workbook"};
    assert_true(corpus_each(dirs, sizeof dirs / sizeof *dirs, check_corpus_replay, NULL) >= 20);
}

/* Malformed rows (problems at their lines), a file cut inside a record, a file that is not a
   run file (skipped, with its reason and line), and an empty one. */
static void replay_gives_problems_and_outcomes(void **state)
{
    (void)state;
    static const char *const texts[] = {
        "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
        "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
        "a,10,1,,0,10,5,0\nb,x,1,,0,1,1,0\nc,1,1\n\"open,1,1,,0,1,1,0\n",
        "Frequency,1000\nFormat,profreport-run,2\nMode,events\n"
        "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\na,10,1,,0,10,5,0\nb,12",
        "Frequency,1000\nFormat,profreport-run,99\n",
        "Frequency,0\n",
        "",
    };
    for (size_t i = 0; i < sizeof texts / sizeof *texts; i++)
        for (size_t limit = 1; limit < 200; limit += 37)
            check_replay(texts[i], strlen(texts[i]), limit, texts[i]);
}

/* ---- calls made by hand: every member, odd strings ---- */

/* Make the same calls into h (a tracer, or a recorder's handler). */
static void call_by_hand(const struct run_handler *h)
{
    static const char nul_id[] = {'a', 0, 'b', 0, 0}; /* ids end with a NUL past their length */
    const char *meta[] = {"Program", "pro\0g"};
    size_t meta_lens[] = {7, 5};
    h->meta(h->ctx, meta, meta_lens, 2);
    const char *none[] = {NULL};
    h->meta(h->ctx, none, meta_lens, 0);
    h->begin(h->ctx, RUN_EVENTS, UINT64_MAX);
    /* The common row, and rows with every member set, the largest values, odd flags. */
    struct prof_event_rec e = {
        .region = "r", .region_len = 1, .parent = "", .stopped = 1, .ticks = 7};
    h->event(h->ctx, &e);
    e.stopped = 0;
    e.nested = 1;
    e.region = "";
    e.region_len = 0;
    h->event(h->ctx, &e);
    struct prof_event_rec full = {.region = nul_id,
                                  .region_len = 3,
                                  .parent = nul_id + 1,
                                  .parent_len = 2,
                                  .region_id = 4000000000u,
                                  .parent_id = 3,
                                  .thread = UINT32_MAX,
                                  .depth = 12,
                                  .stopped = 1,
                                  .nested = 1,
                                  .ticks = UINT64_MAX,
                                  .self = UINT64_MAX - 1,
                                  .start = 1ull << 63};
    h->event(h->ctx, &full);
    full.stopped = 2; /* not a flag: kept as it is */
    full.nested = -1;
    full.thread = 0;
    full.depth = 0;
    full.region_id = full.parent_id = 0;
    full.self = full.start = 0;
    full.parent = "";
    full.parent_len = 0;
    h->event(h->ctx, &full);
    uint32_t buckets[] = {0, 5, 4000};
    uint64_t counts[] = {1, UINT64_MAX, 3};
    struct prof_summary_rec s = {.region = nul_id,
                                 .region_len = 4,
                                 .region_id = 9,
                                 .thread = 2,
                                 .node = 3,
                                 .parent = 1,
                                 .calls = 10,
                                 .ticks = 20,
                                 .self = 15,
                                 .min = 1,
                                 .max = 5,
                                 .outer = 18,
                                 .sumsq = 0.1,
                                 .hist_bucket = buckets,
                                 .hist_count = counts,
                                 .nhist = 3};
    h->summary(h->ctx, &s);
    s.nhist = 0;
    s.hist_bucket = NULL;
    s.hist_count = NULL;
    h->summary(h->ctx, &s);
    struct run_memory m = {.kind = "leak",
                           .thread = 3,
                           .other_thread = 4,
                           .region = nul_id,
                           .region_len = 3,
                           .site = "main.c:3",
                           .site_len = 8,
                           .alloc_kind = "malloc",
                           .free_kind = "",
                           .other_site = "",
                           .function = NULL,
                           .stack = "a;b",
                           .stack_len = 3,
                           .count = 2,
                           .bytes = UINT64_MAX};
    h->memory(h->ctx, &m);
    h->problem(h->ctx, ULONG_MAX, "a problem, \"quoted\"");
}

/* Calls made by hand replay member for member: ids with NULs, the empty id, the largest
   numbers, flags that are not 0 or 1, an empty histogram, a NULL string. */
static void replay_keeps_every_member(void **state)
{
    (void)state;
    for (size_t limit = 1; limit < 400; limit += 50) {
        struct trace direct = {0}, replayed = {0};
        struct run_handler h = tracer(&direct);
        call_by_hand(&h);
        struct rep_error why = {REP_ERR_NO_INPUT, "gone"};
        trace_outcome(&direct, RUNFILE_IO_ERROR, &why, 12);
        struct queue q;
        struct batch_recorder r;
        recorder_on(&r, &q, limit);
        call_by_hand(&r.h);
        batch_record_end(&r, RUNFILE_IO_ERROR, &why, 12);
        batch_record_flush(&r);
        struct batch_cursor c;
        cursor_on(&c, &q);
        replay(&c, &replayed);
        check_all_read(&c, &q, &r);
        check_same(&direct, &replayed, "by hand");
        prof_sbuf_release(&direct.text);
        prof_sbuf_release(&replayed.text);
    }
}

/* ---- stop, marks, progress ---- */

static const char two_rows[] = "Frequency,1000\nFormat,profreport-run,2\nProgram,p\nMode,events\n"
                               "Region,Ticks,Thread,Parent,Depth,Self,Start,Nested\n"
                               "a,10,1,,0,10,5,0\nb,x,1,,0,1,1,0\n\"cut";

/* The recorder's stop lets the reader read on; when the handler stops the replay, the rest of
   the run is left out and the run ends as runfile_parse ends a run its handler stops (read
   straight, the handler stopping it). The next run replays whole. */
static void a_stopped_run_is_left_out_after_its_start(void **state)
{
    (void)state;
    struct trace direct = {.stop = 1}, replayed = {.stop = 1};
    read_direct(two_rows, sizeof two_rows - 1, &direct);
    struct queue q;
    struct batch_recorder r;
    recorder_on(&r, &q, 1);
    read_recorded(two_rows, sizeof two_rows - 1, &r);
    read_recorded(two_rows, sizeof two_rows - 1, &r);
    batch_record_flush(&r);
    /* The reader read on past the question: the rows and the cut are recorded. */
    assert_true(q.n > 8);
    struct batch_cursor c;
    cursor_on(&c, &q);
    replay(&c, &replayed);
    check_same(&direct, &replayed, "stopped");
    assert_int_equal(q.stopped, 1);
    assert_non_null(strstr(replayed.text.data, "status 0 line 0 code 0 why \n"));
    assert_null(strstr(replayed.text.data, "\nevent "));

    struct trace whole = {0}, again = {0};
    read_direct(two_rows, sizeof two_rows - 1, &whole);
    replay(&c, &again);
    check_same(&whole, &again, "after a stopped run");
    assert_int_equal(q.stopped, 1);
    assert_non_null(strstr(again.text.data, "status 3")); /* RUNFILE_TRUNCATED */
    check_all_read(&c, &q, &r);
    prof_sbuf_release(&direct.text);
    prof_sbuf_release(&replayed.text);
    prof_sbuf_release(&whole.text);
    prof_sbuf_release(&again.text);
}

/* Marks come back with their values, after the progress recorded before them; progress
   inside a run comes back as the run replays, even in the part a stop leaves out. */
static void marks_and_progress_come_back_in_order(void **state)
{
    (void)state;
    struct queue q;
    struct batch_recorder r;
    recorder_on(&r, &q, 10);
    batch_record_progress(&r, 5);
    batch_record_mark(&r, 7, -3);
    batch_record_mark(&r, 0, INT64_MAX);
    r.h.begin(r.h.ctx, RUN_SEED, 10);
    assert_int_equal(r.h.stop(r.h.ctx), 0);
    batch_record_progress(&r, 100);
    batch_record_end(&r, RUNFILE_OK, NULL, 0);
    batch_record_mark(&r, 2, 1);
    batch_record_flush(&r);

    struct batch_cursor c;
    cursor_on(&c, &q);
    int64_t v;
    assert_int_equal(batch_take_mark(&c, &v), 7);
    assert_true(v == -3);
    assert_true(q.progress == 5);
    assert_int_equal(batch_take_mark(&c, &v), 0);
    assert_true(v == INT64_MAX);
    struct trace t = {.stop = 1};
    replay(&c, &t);
    assert_true(q.progress == 105);
    assert_string_equal(t.text.data, "begin 2 10\nstop? 1\nstatus 0 line 0 code 0 why \n");
    assert_int_equal(batch_take_mark(&c, &v), 2);
    assert_true(v == 1);
    check_all_read(&c, &q, &r);
    prof_sbuf_release(&t.text);
}

/* A record larger than a batch grows its batch rather than being cut. */
static void a_record_larger_than_a_batch_stays_whole(void **state)
{
    (void)state;
    size_t n = 100000;
    char *id = malloc(n + 1);
    assert_non_null(id);
    memset(id, 'x', n);
    id[n] = 0;
    struct queue q;
    struct batch_recorder r;
    recorder_on(&r, &q, 64);
    struct prof_event_rec e = {.region = id, .region_len = n, .parent = "", .stopped = 1};
    r.h.event(r.h.ctx, &e);
    batch_record_end(&r, RUNFILE_OK, NULL, 0);
    batch_record_flush(&r);
    assert_true(q.items[0]->len > n);
    struct batch_cursor c;
    cursor_on(&c, &q);
    struct trace t = {0};
    replay(&c, &t);
    assert_true(t.text.len > n);
    assert_int_equal(memcmp(t.text.data, "event 100000:xxx", 16), 0);
    check_all_read(&c, &q, &r);
    prof_sbuf_release(&t.text);
    free(id);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(replay_gives_the_calls_of_every_corpus_file),
        cmocka_unit_test(replay_gives_problems_and_outcomes),
        cmocka_unit_test(replay_keeps_every_member),
        cmocka_unit_test(a_stopped_run_is_left_out_after_its_start),
        cmocka_unit_test(marks_and_progress_come_back_in_order),
        cmocka_unit_test(a_record_larger_than_a_batch_stays_whole),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
