/*
 * live.c - the live per-thread report (PROFILER_REPORT_INTERVAL): at most once per interval,
 * a thread prints where its time went since its previous report, checked on region stops.
 */
#define _GNU_SOURCE /* qsort_r: threads report at the same time */
#include "fileutil.h"
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Room for the counters of every id the thread has (owner thread). */
int prof_live_grow(struct prof_thread *t)
{
    if (t->live_cap >= t->ids_cap)
        return 0;
    struct prof_live *l = realloc(t->live, t->ids_cap * sizeof *l);
    if (!l)
        return -1;
    memset(l + t->live_cap, 0, (t->ids_cap - t->live_cap) * sizeof *l);
    t->live = l;
    t->live_cap = t->ids_cap;
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
    uint64_t elapsed = now - t->live_since;
    prof_mem_quiet_begin(); /* the collector's allocations are not the program's */
    uint32_t *order = malloc((t->nids ? t->nids : 1) * sizeof *order);
    uint32_t n = 0;
    for (uint32_t i = 0; order && i < t->nids && i < t->live_cap; i++)
        if (t->live[i].calls)
            order[n++] = i;
    if (order && n) {
        /* Ids with the same text are one region: add them into the first. */
        qsort_r(order, n, sizeof *order, by_text, t->ids);
        uint32_t m = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (m && strcmp(t->ids[order[m - 1]], t->ids[order[i]]) == 0) {
                t->live[order[m - 1]].calls += t->live[order[i]].calls;
                t->live[order[m - 1]].ticks += t->live[order[i]].ticks;
                t->live[order[i]].calls = t->live[order[i]].ticks = 0;
            } else {
                order[m++] = order[i];
            }
        }
        qsort_r(order, m, sizeof *order, by_time, t->live);
        for (uint32_t i = 0; i < m; i++)
            report_line(t->tid, t->ids[order[i]], &t->live[order[i]], elapsed, t->live_frequency);
    }
    free(order);
    prof_mem_quiet_end();
    memset(t->live, 0, t->live_cap * sizeof *t->live);
    t->live_since = now;
    t->live_next = now + t->live_interval;
}

/* Count the stop of the region at depth d; report when the interval has passed. */
void prof_live_stop(struct prof_thread *t, uint32_t d, uint64_t now)
{
    if (d < PROF_MAX_DEPTH && t->stack[d].idx < t->live_cap) {
        struct prof_live *l = &t->live[t->stack[d].idx];
        l->calls++;
        l->ticks += now > t->stack[d].start ? now - t->stack[d].start : 0;
    }
    if (now >= t->live_next)
        report(t, now);
}
