/*
 * fuzz.c - the pieces the fuzz targets share: inputs as FILEs and memory-backed files, and the
 * run_handler that checks runfile.c's promises on every callback.
 */
#define _GNU_SOURCE /* fmemopen, memfd_create, memmem */
#include "fuzz.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* Stop the run with a message libFuzzer shows above its crash report. */
void fuzz_check(int ok, const char *what, const char *file, int line)
{
    if (ok)
        return;
    fprintf(stderr, "fuzz: %s:%d: check failed: %s\n", file, line, what);
    abort();
}

/* Cut data into pieces at the separators. */
size_t fuzz_split(const uint8_t *data, size_t size, struct fuzz_piece *out)
{
    const size_t seplen = sizeof FUZZ_SEPARATOR - 1;
    size_t n = 0;
    while (n + 1 < FUZZ_MAX_PIECES) {
        const uint8_t *sep = memmem(data, size, FUZZ_SEPARATOR, seplen);
        if (!sep)
            break;
        out[n].data = data;
        out[n].size = (size_t)(sep - data);
        n++;
        size -= out[n - 1].size + seplen;
        data = sep + seplen;
    }
    out[n].data = data;
    out[n].size = size;
    return n + 1;
}

/* The input as a read-only FILE. */
FILE *fuzz_open(const uint8_t *data, size_t size)
{
    /* In read mode fmemopen never writes to the buffer. */
    FILE *f = fmemopen((void *)(uintptr_t)data, size, "r");
    FUZZ_CHECK(f != NULL);
    return f;
}

/* One piece in the memfd of its slot, made on first use and emptied for each input. */
const char *fuzz_part_path(size_t slot, const uint8_t *data, size_t size)
{
    static int fds[FUZZ_MAX_PIECES];
    static char paths[FUZZ_MAX_PIECES][32];
    FUZZ_CHECK(slot < FUZZ_MAX_PIECES);
    if (!fds[slot]) {
        int fd = memfd_create("fuzz-part", MFD_CLOEXEC);
        FUZZ_CHECK(fd >= 0);
        fds[slot] = fd + 1; /* 0: not made yet */
        snprintf(paths[slot], sizeof paths[slot], "/proc/self/fd/%d", fd);
    }
    int fd = fds[slot] - 1;
    FUZZ_CHECK(ftruncate(fd, 0) == 0);
    for (size_t done = 0; done < size;) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        FUZZ_CHECK(w > 0);
        done += (size_t)w;
    }
    return paths[slot];
}

/* Every piece in a memfd of its own. */
const char *const *fuzz_part_paths(const struct fuzz_piece *pieces, size_t n)
{
    static const char *paths[FUZZ_MAX_PIECES];
    for (size_t i = 0; i < n; i++)
        paths[i] = fuzz_part_path(i, pieces[i].data, pieces[i].size);
    return paths;
}

/* FNV-1a, continued. */
uint64_t fuzz_hash(uint64_t h, const void *s, size_t n)
{
    const unsigned char *p = s;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

/* Whether s is one of the n words. */
static int one_of(const char *s, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, words[i]) == 0)
            return 1;
    return 0;
}

/* Metadata comes before the table, each field NUL-ended at its length (model.c uses strcmp). */
static void check_meta(void *ctx, const char *const *fields, const size_t *lens, size_t n)
{
    struct fuzz_runlog *log = ctx;
    FUZZ_CHECK(!log->begun);
    FUZZ_CHECK(n >= 1);
    for (size_t i = 0; i < n; i++)
        FUZZ_CHECK(fields[i][lens[i]] == 0);
    log->metas++;
}

/* The table begins once, with a known kind and a usable frequency. */
static void check_begin(void *ctx, enum run_kind kind, uint64_t frequency)
{
    struct fuzz_runlog *log = ctx;
    FUZZ_CHECK(!log->begun);
    FUZZ_CHECK(kind == RUN_EVENTS || kind == RUN_SUMMARY || kind == RUN_SEED);
    FUZZ_CHECK(frequency > 0);
    log->begun = 1;
    log->kind = kind;
}

/* An events or seed row: inside the table, strings NUL-ended, no ticks without a stop. */
static void check_event(void *ctx, const struct prof_event_rec *e)
{
    struct fuzz_runlog *log = ctx;
    FUZZ_CHECK(log->begun && (log->kind == RUN_EVENTS || log->kind == RUN_SEED));
    FUZZ_CHECK(!log->summary_section);
    FUZZ_CHECK(e->region && e->region[e->region_len] == 0);
    FUZZ_CHECK(e->parent && e->parent[e->parent_len] == 0);
    FUZZ_CHECK(e->nested == 0 || e->nested == 1);
    if (!e->stopped)
        FUZZ_CHECK(e->ticks == 0 && e->self == 0);
    if (log->kind == RUN_SEED)
        FUZZ_CHECK(e->thread == 0 && e->depth == 0 && e->parent_len == 0 && e->start == 0 &&
                   !e->nested && e->self == 0);
    log->events++;
    if (e->stopped)
        log->tick_sum += e->ticks;
    else
        log->unterminated++;
    log->region_hash = fuzz_hash(log->region_hash, &e->region_len, sizeof e->region_len);
    log->region_hash = fuzz_hash(log->region_hash, e->region, e->region_len);
}

/* A summary row: inside a summary table, or an events run's summary section (last), histogram
   buckets in range, a finite SumSquares. */
static void check_summary(void *ctx, const struct prof_summary_rec *s)
{
    struct fuzz_runlog *log = ctx;
    FUZZ_CHECK(log->begun && (log->kind == RUN_SUMMARY || log->kind == RUN_EVENTS));
    if (log->kind == RUN_EVENTS)
        log->summary_section = 1;
    FUZZ_CHECK(s->region && s->region[s->region_len] == 0);
    FUZZ_CHECK(isfinite(s->sumsq) && s->sumsq >= 0);
    for (size_t i = 0; i < s->nhist; i++)
        FUZZ_CHECK(s->hist_bucket[i] < PROF_HIST_BUCKETS);
    log->summaries++;
    log->tick_sum += s->ticks;
    log->region_hash = fuzz_hash(log->region_hash, &s->region_len, sizeof s->region_len);
    log->region_hash = fuzz_hash(log->region_hash, s->region, s->region_len);
}

/* A memory row: after an events or summary table, words from FORMAT.md 1.5 only. */
static void check_memory(void *ctx, const struct run_memory *m)
{
    struct fuzz_runlog *log = ctx;
    FUZZ_CHECK(log->begun && log->kind != RUN_SEED && !log->summary_section);
    FUZZ_CHECK(one_of(m->kind, prof_memory_kinds, PROF_MK_N));
    FUZZ_CHECK(one_of(m->alloc_kind, prof_alloc_kinds, PROF_MEM_KIND_NAMES));
    FUZZ_CHECK(one_of(m->free_kind, prof_free_kinds, PROF_MEM_KIND_NAMES));
    FUZZ_CHECK(m->region[m->region_len] == 0 && m->site[m->site_len] == 0 &&
               m->other_site[m->other_site_len] == 0);
    log->memory++;
}

/* A problem names a line of the input's text, in file order, and says something. */
static void check_problem(void *ctx, unsigned long line, const char *message)
{
    struct fuzz_runlog *log = ctx;
    FUZZ_CHECK(line >= 1 && line <= log->lines);
    FUZZ_CHECK(line >= log->last_problem);
    FUZZ_CHECK(message && message[0]);
    log->last_problem = line;
    log->problems++;
    log->problem_hash = fuzz_hash(log->problem_hash, &line, sizeof line);
}

/* Parse text through the checking handler. */
enum run_status fuzz_parse(const uint8_t *text, size_t size, struct fuzz_runlog *log)
{
    memset(log, 0, sizeof *log);
    log->lines = 1;
    for (const uint8_t *p = text, *end = text + size; (p = memchr(p, '\n', (size_t)(end - p))); p++)
        log->lines++;
    log->region_hash = log->problem_hash = FUZZ_HASH_START;
    struct run_handler h = {log,           check_meta,    check_begin,  check_event,
                            check_summary, check_problem, check_memory, NULL};
    FILE *f = fuzz_open(text, size);
    struct rep_error why;
    unsigned long line = 0;
    enum run_status st = runfile_parse(f, "fuzz", &h, &why, &line);
    fclose(f);
    /* A memory FILE cannot fail to read. */
    FUZZ_CHECK(st == RUNFILE_OK || st == RUNFILE_SKIPPED || st == RUNFILE_TRUNCATED);
    if (st == RUNFILE_SKIPPED) {
        /* model.c forgets a skipped run and relies on none of its rows having been given. */
        FUZZ_CHECK(why.code == REP_ERR_NO_INPUT && why.msg[0]);
        FUZZ_CHECK(!log->begun && log->events == 0 && log->summaries == 0 && log->memory == 0);
    } else {
        FUZZ_CHECK(log->begun);
        FUZZ_CHECK(why.code == REP_OK && why.msg[0] == 0 && line == 0);
    }
    return st;
}

/* Read a killed run's parts straight into the checking handler, as profreport does. */
enum run_status fuzz_read_parts(const char *const *paths, size_t n, struct fuzz_runlog *log)
{
    memset(log, 0, sizeof *log);
    log->lines = 0; /* no text: any problem breaks the check on its line */
    log->region_hash = log->problem_hash = FUZZ_HASH_START;
    struct partfile pf;
    if (partfile_open(&pf, paths, n) != PROF_OK)
        return RUNFILE_SKIPPED;
    struct run_handler h = {log,           check_meta,    check_begin,  check_event,
                            check_summary, check_problem, check_memory, NULL};
    struct rep_error why;
    unsigned long line = 0;
    enum run_status st = partfile_read(&pf, &h, &why, &line);
    partfile_close(&pf);
    return st;
}
