/*
 * live.c - the live per-thread report (PROFILER_REPORT_INTERVAL): at most once per interval,
 * a thread prints where its time went since its previous report, checked on region stops.
 */
#define _GNU_SOURCE /* qsort_r: threads report at the same time */
#include "live.h"

#include "fileutil.h"
#include "status.h"
#include "thread.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* One id's share since the last report. */
struct prof_live {
    uint64_t calls, ticks;
};

/* A thread's live report (t->live, owned here): allocated at its begin when the run reports. */
struct prof_live_state {
    uint64_t interval, next, since, frequency; /* ticks */
    struct prof_live *count;                   /* per index: since the last report */
    uint32_t cap;
};

/* Room for the counters of every id the thread has (owner thread); -1 when out of memory. */
static int grow(struct prof_thread *t)
{
    struct prof_live_state *s = t->live;
    if (s->cap >= t->ids_cap)
        return 0;
    prof_mem_quiet_begin(); /* the collector's allocations are not the program's */
    struct prof_live *l = realloc(s->count, t->ids_cap * sizeof *l);
    prof_mem_quiet_end();
    if (!l)
        return -1;
    memset(l + s->cap, 0, (t->ids_cap - s->cap) * sizeof *l);
    s->count = l;
    s->cap = t->ids_cap;
    return 0;
}

/* Order of the report's lines: by id text (to merge equal texts), then by time, descending. */
static int by_text(const void *a, const void *b, void *ids)
{
    const char *const *id = ids;
    return strcmp(id[*(const uint32_t *)a], id[*(const uint32_t *)b]);
}

static int by_time(const void *a, const void *b, void *live)
{
    const struct prof_live *l = live;
    uint64_t x = l[*(const uint32_t *)a].ticks, y = l[*(const uint32_t *)b].ticks;
    return (x < y) - (x > y);
}

/* One line, written with one write() so lines of different threads never mix. */
static void report_line(pid_t tid, const char *id, const struct prof_live *l, uint64_t elapsed,
                        uint64_t frequency)
{
    char name[200];
    size_t n = 0;
    /* The id stays on one line and inside its quotes. */
    for (const char *p = id; *p && n + 3 < sizeof name; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\')
            name[n++] = '\\';
        name[n++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
    }
    name[n] = 0;
    char line[320];
    double ms = (double)l->ticks * 1000.0 / (double)frequency;
    double all = (double)elapsed * 1000.0 / (double)frequency;
    int len = snprintf(line, sizeof line,
                       "TID 0x%x time spent in \"%s\": %.0f/%.0f ms %.1f%% %llux\n", (unsigned)tid,
                       name, ms, all, elapsed ? 100.0 * (double)l->ticks / (double)elapsed : 0.0,
                       (unsigned long long)l->calls);
    if (len > 0)
        prof_write_stderr(line, (size_t)len < sizeof line ? (size_t)len : sizeof line - 1);
}

/* Print the thread's report: one line per region (by text) it spent time in, heaviest first. */
static void report(struct prof_thread *t, uint64_t now)
{
    struct prof_live_state *s = t->live;
    uint64_t elapsed = now - s->since;
    struct prof_host host = prof_host_hold(); /* write() to stderr */
    prof_mem_quiet_begin(); /* the collector's allocations are not the program's */
    uint32_t *order = malloc((t->nids ? t->nids : 1) * sizeof *order);
    uint32_t n = 0;
    for (uint32_t i = 0; order && i < t->nids && i < s->cap; i++)
        if (s->count[i].calls)
            order[n++] = i;
    if (order && n) {
        /* Ids with the same text are one region: add them into the first. */
        qsort_r(order, n, sizeof *order, by_text, t->ids);
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (m && strcmp(t->ids[order[m - 1]], t->ids[order[i]]) == 0) {
                s->count[order[m - 1]].calls += s->count[order[i]].calls;
                s->count[order[m - 1]].ticks += s->count[order[i]].ticks;
                s->count[order[i]].calls = s->count[order[i]].ticks = 0;
            } else {
                order[m++] = order[i];
            }
        }
        qsort_r(order, m, sizeof *order, by_time, s->count);
        for (uint32_t i = 0; i < m; i++)
            report_line(t->tid, t->ids[order[i]], &s->count[order[i]], elapsed, s->frequency);
    }
    free(order);
    prof_mem_quiet_end();
    prof_host_release(host);
    if (s->count)
        memset(s->count, 0, s->cap * sizeof *s->count);
    s->since = now;
    s->next = now + s->interval;
}

/* The recorder's on_stop: count the stop of the region at depth d (its frame still on the
   stack), and report when the interval has passed. */
static void live_stop(struct prof_thread *t, uint32_t d, uint64_t now)
{
    struct prof_live_state *s = t->live;
    /* Counters grow here, not with the id table: a new id's first stop (rare) pays for it. */
    if (d < t->stack_cap && (t->stack[d].idx < s->cap || grow(t) == 0)) {
        struct prof_live *l = &s->count[t->stack[d].idx];
        l->calls++;
        l->ticks += now > t->stack[d].start ? now - t->stack[d].start : 0;
    }
    if (now >= s->next)
        report(t, now);
}

/* Free a recorder's live counters. */
static void live_free(struct prof_thread *t)
{
    if (t->live)
        free(t->live->count);
    free(t->live);
    t->live = NULL;
    t->on_stop = NULL;
}

/* A recorder begins a run: fresh counters when the run reports, none otherwise. */
static void live_begin(struct prof_thread *t, const struct prof_run_info *run)
{
    live_free(t);
    if (!run->live_interval)
        return;
    struct prof_live_state *s = calloc(1, sizeof *s);
    if (!s)
        return; /* no report for this thread; recording goes on */
    s->interval = run->live_interval;
    s->frequency = run->frequency;
    s->since = prof_ticks();
    s->next = s->since + s->interval;
    t->live = s;
    t->on_stop = live_stop;
}

const struct prof_hooks prof_live_hooks = {
    .name = "live report",
    .thread_begin = live_begin,
    .thread_free = live_free,
};
