/*
 * partfile.c - read a killed run's part files into a run_handler, as runfile.c reads a run file:
 * format/assemble.c rebuilds the run's records (metadata, rows, memory section) and this file
 * hands each on as the run_handler callback its text would have reached.
 */
#include "read/partfile.h"

#include "read/runfile.h"
#include "base/util.h"

#include "assemble.h"

#include <stdlib.h>
#include <string.h>

/* Where the records go: the handler, and the facts the parser would keep for it. */
struct adapter {
    const struct run_handler *h;
    enum run_kind kind;
    uint64_t frequency;
    int stopped; /* the handler's stop said so after begin: no more records go to it */
};

/* Whether the field of n bytes is the word w. */
static int is_word(const char *s, size_t n, const char *w)
{
    return strlen(w) == n && memcmp(s, w, n) == 0;
}

/* A metadata record: Frequency and Format are the reader's own, as in runfile.c. */
static void on_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    struct adapter *a = ctx;
    if (is_word(fields[0], lens[0], "Frequency")) {
        a->frequency = strtoull(fields[1], NULL, 10); /* assemble.c checked it is a number */
        return;
    }
    if (is_word(fields[0], lens[0], "Format"))
        return;
    if (is_word(fields[0], lens[0], "Mode") && n >= 2)
        a->kind = is_word(fields[1], lens[1], "summary") ? RUN_SUMMARY : RUN_EVENTS;
    if (a->h->meta)
        a->h->meta(a->h->ctx, fields, lens, n);
}

/* The table starts. */
static void on_table(void *ctx, int summary)
{
    struct adapter *a = ctx;
    a->kind = summary ? RUN_SUMMARY : RUN_EVENTS;
    if (a->h->begin)
        a->h->begin(a->h->ctx, a->kind, a->frequency);
    a->stopped = a->h->stop && a->h->stop(a->h->ctx);
}

/* One events-table row: the record itself, with ticks and self 0 when the region never stopped,
   as a run file gives them. */
static void on_event(void *ctx, const struct prof_event_rec *r)
{
    struct adapter *a = ctx;
    struct prof_event_rec e = *r;
    if (!e.stopped)
        e.ticks = e.self = 0;
    /* They number ids within one part, and a run has a part per thread: not numbers that
       stand for one text throughout the run, which a handler may take them for (runfile.h). */
    e.region_id = e.parent_id = 0;
    if (a->h->event && !a->stopped)
        a->h->event(a->h->ctx, &e);
}

/* One summary-table row: the record itself. */
static void on_summary(void *ctx, const struct prof_summary_rec *r)
{
    struct adapter *a = ctx;
    if (a->h->summary && !a->stopped)
        a->h->summary(a->h->ctx, r);
}

/* One row of the memory section. */
static void on_memory(void *ctx, const struct prof_memory_rec *r)
{
    struct adapter *a = ctx;
    struct run_memory m = {.kind = r->kind >= 0 && r->kind < PROF_MK_N ? prof_memory_kinds[r->kind]
                                                                       : "",
                           .thread = r->thread,
                           .other_thread = r->other_thread,
                           .region = r->region ? r->region : "",
                           .site = r->site ? r->site : "",
                           .alloc_kind = prof_alloc_kind_name(r->alloc_kind),
                           .free_kind = prof_free_kind_name(r->free_kind),
                           .other_site = r->other_site ? r->other_site : "",
                           .region_len = r->region ? r->region_len : 0,
                           .site_len = r->site ? strlen(r->site) : 0,
                           .other_site_len = r->other_site ? strlen(r->other_site) : 0,
                           .function = r->function ? r->function : "",
                           .function_len = r->function ? strlen(r->function) : 0,
                           .stack = r->stack ? r->stack : "",
                           .stack_len = r->stack ? strlen(r->stack) : 0,
                           .count = r->count,
                           .bytes = r->bytes};
    if (a->h->memory && !a->stopped)
        a->h->memory(a->h->ctx, &m);
}

/* Read the parts' metadata. */
enum prof_error partfile_open(struct partfile *pf, const char *const *paths, size_t count)
{
    if (!paths || count == 0)
        return PROF_ERR_ARGUMENT;
    return prof_parts_open(paths, count, NULL, &pf->parts);
}

/* Hand the run's records to h. */
enum run_status partfile_read(void *src, const struct run_handler *h, struct rep_error *why,
                              unsigned long *line)
{
    struct partfile *pf = src;
    struct adapter a = {h, RUN_EVENTS, 0, 0};
    /* The summary section's rows (PROFILER_MAX_EVENTS) come through on_summary too. */
    struct prof_run_sink sink = {&a,       on_meta,    on_table,  NULL, NULL,
                                 on_event, on_summary, on_memory, NULL, NULL};
    if (why)
        rep_error_clear(why);
    if (line)
        *line = 0;
    /* Pass one read every part already: what can fail now is memory, which ends the command
       wherever it runs out in the reporter, or a part gone since (the run is then dropped). */
    enum prof_error e = prof_parts_emit(pf->parts, &sink);
    if (e == PROF_ERR_NOMEM)
        die_nomem(NULL);
    if (e != PROF_OK) {
        if (why)
            rep_fail(why, REP_ERR_NO_INPUT, "%s", prof_strerror(e));
        return RUNFILE_IO_ERROR;
    }
    return RUNFILE_OK;
}

/* Free what partfile_open read. */
void partfile_close(struct partfile *pf)
{
    prof_parts_free(pf->parts);
    pf->parts = NULL;
}
